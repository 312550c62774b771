"""Verbs that read: list, state, pending, log, export, verify, head, rulings.

Each Typer command here defines its verb's interface and forwards every
parameter by name to the body of the same name in
:mod:`affray.cli.read_verbs`, which the fast dispatcher
(:mod:`affray.cli.dispatch`) calls too."""

from __future__ import annotations

from typing import Optional

import typer

from affray.cli import read_verbs
from affray.cli.common import forward, handles_errors


def register(app: typer.Typer) -> None:
    """Add the read verbs to ``app``."""

    @app.command("list")
    @handles_errors
    def list_(ctx: typer.Context, json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
        """List the encounters in the database.

        Example: affray list --json
        """
        forward(ctx, read_verbs.list_, locals())

    @app.command()
    @handles_errors
    def state(
        ctx: typer.Context,
        json: bool = typer.Option(False, "--json", help="Machine-readable output (fields documented in the README)."),
        at: str = typer.Option("", "--at", help="ROUND (its end) or ROUND.STEP (just after that step)."),
        version: int = typer.Option(0, "--version", help="The state with the log cut at this version."),
    ):
        """Show the fight: combatants, hit points, conditions, actions left.

        Example: affray state --at 1.2
        """
        forward(ctx, read_verbs.state, locals())

    @app.command()
    @handles_errors
    def pending(ctx: typer.Context, json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
        """Show what the table is waiting for, from whom, and which dice.

        Example: affray pending --json
        """
        forward(ctx, read_verbs.pending, locals())

    @app.command()
    @handles_errors
    def log(
        ctx: typer.Context,
        json: bool = typer.Option(False, "--json", help="One object per entry."),
        dice: bool = typer.Option(False, "--dice", help="Show every roll with its source."),
        tail: int = typer.Option(0, "--tail", help="Only the last N entries (read from the end of the log)."),
        round_no: Optional[int] = typer.Option(None, "--round", help="Only round N (0: the setup before round 1)."),
    ):
        """Show the log; undone entries are struck through.

        The log is streamed: written as it is read, so memory stays flat
        however long the fight; --tail and --round read only what they show.

        Example: affray log --dice; affray log --tail 20; affray log --round 3
        """
        forward(ctx, read_verbs.log, locals())

    @app.command()
    @handles_errors
    def export(
        ctx: typer.Context,
        fmt: str = typer.Option("markdown", "--format", "-f", help="markdown, bbcode, discord, html or jsonl."),
        out: str = typer.Option("", "--out", "-o", help="Write to this file instead of stdout."),
        rounds: str = typer.Option("", "--round", help="A round or range, e.g. 2 or 1-3."),
        secret: bool = typer.Option(False, "--secret", help="Include secret GM notes."),
        view: str = typer.Option(
            "", "--view", help="table: the fight as it stands, for players (default; jsonl: record). "
            "record: the full trail, undone and rewound entries struck through."
        ),
        limit: Optional[int] = typer.Option(
            None, "--limit", help="Most characters in one post: bbcode (default 20000) or discord (default 2000).",
        ),
    ):
        """Export the log for play-by-post.

        --view table (the default) gives players the fight as it stands:
        the live timeline, each amend as one line, exchanges numbered in
        play order, and the result, HP and conditions at the end. --view
        record keeps the whole trail. jsonl defaults to --view record, the
        whole log that 'affray import' reads back. Every format but jsonl
        ends with the dice seed commitment and the log's head hash.

        The log is streamed: written as it is read, so memory stays flat
        however long the fight. On a terminal, a progress bar shows how far
        it has got.

        Example: affray export --format bbcode --view table --out fight.txt
        """
        forward(ctx, read_verbs.export, locals())

    @app.command()
    @handles_errors
    def verify(
        ctx: typer.Context,
        dice: bool = typer.Option(False, "--dice", help="Also re-derive every engine roll from the seed and the salts, and check that roll numbers run 0, 1, 2, ... along the live log."),
        against: str = typer.Option("", "--against", help="A head someone kept (HASH, VERSION:HASH, or a .jsonl export): prove the log still extends it."),
        full: bool = typer.Option(False, "--full", help="Also run the audit: re-derive every decision with today's rules."),
        json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    ):
        """Check the hash chain (edits, deletions, reordering), every snapshot
        against a full replay and, with --dice, every engine roll.

        Exit 0: intact. Exit 1: tampering or a difference (each FAILED line
        once, on stderr). Exit 4: intact, but the dice cannot be checked yet:
        the seed is neither revealed ('affray close') nor in the key file.

        Example: affray verify --dice --against 3f2a…(the 64-hex head 'affray head' printed)
        """
        forward(ctx, read_verbs.verify, locals())

    @app.command()
    @handles_errors
    def head(
        ctx: typer.Context,
        json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    ):
        """Print the encounter's head: its newest version and full hash.

        Keep it (post it in the thread): 'affray verify --against HASH' later
        proves the log still extends it, so nothing before it was cut,
        rewritten or forged.

        Example: affray head
        """
        forward(ctx, read_verbs.head, locals())

    @app.command()
    @handles_errors
    def rulings(
        ctx: typer.Context,
        system: str = typer.Option("mrq1", "--system", "-s"),
        json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    ):
        """List a system's named rulings, their defaults and sources.

        Example: affray rulings --system mrq1 --json
        """
        forward(ctx, read_verbs.rulings, locals())

