"""Verbs that read: list, state, pending, log, export, verify, rulings."""

from __future__ import annotations

from typing import Optional

import typer

from affray.cli.common import UserError, echo_json, handles_errors, open_store, options


def _load(ctx: typer.Context, *, at: str = "", version: int = 0):
    from affray.cli.show import load_for_read

    opts = options(ctx)
    return load_for_read(opts.db, opts.encounter, at=at, version=version)


def _discard(path: str) -> None:
    """Remove a partly written export (a regular file only)."""
    import os

    try:
        if os.path.isfile(path):
            os.remove(path)
    except OSError:
        pass


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush
    after a closed pipe prints no second error."""
    import os
    import sys

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def register(app: typer.Typer) -> None:
    """Add the read verbs to ``app``."""

    @app.command("list")
    @handles_errors
    def list_(ctx: typer.Context, json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
        """List the encounters in the database.

        Example: affray list --json
        """
        opts = options(ctx)
        with open_store(opts, readonly=True) as store:
            rows = [store.encounter_info(eid) for eid in store.encounter_ids()]
        data = [
            {"id": r.id, "name": r.name, "system": r.system, "version": r.version, "closed": r.closed}
            for r in rows
        ]
        if json:
            echo_json(data)
            return
        for d in data:
            typer.echo(f"{d['id']}  {d['system']}  v{d['version']}  {'closed' if d['closed'] else 'open'}  {d['name']}")

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
        from affray.cli.show import state_text

        typer.echo(state_text(_load(ctx, at=at, version=version), json=json), nl=False)

    @app.command()
    @handles_errors
    def pending(ctx: typer.Context, json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
        """Show what the table is waiting for, from whom, and which dice.

        Example: affray pending --json
        """
        from affray.cli.show import pending_text

        typer.echo(pending_text(_load(ctx), json=json), nl=False)

    @app.command()
    @handles_errors
    def log(
        ctx: typer.Context,
        json: bool = typer.Option(False, "--json", help="One object per entry."),
        dice: bool = typer.Option(False, "--dice", help="Show every roll with its source."),
    ):
        """Show the log; undone entries are struck through.

        Example: affray log --dice
        """
        from affray.commands.lookup import resolve_encounter
        from affray.views.narrate import entries, names_of

        opts = options(ctx)
        with open_store(opts, readonly=True) as store:
            eid = resolve_encounter(store, opts.encounter)
            records = list(store.read(eid))
        items = entries(records, names_of(records), dice=dice)
        if json:
            echo_json(
                [
                    {
                        "version": e.version,
                        "round": e.round,
                        "command_id": e.command_id,
                        "actor": e.actor,
                        "status": e.status,
                        "type": e.kind,
                        "text": e.text,
                    }
                    for e in items
                ]
            )
            return
        from affray.cli.tables import render_log

        render_log(items)

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
        from affray.commands.lookup import resolve_encounter
        from affray.views.export import FORMATS, LIMITED, VIEWS, default_view, export_store
        from affray.views.progress import progress_bar

        if fmt not in FORMATS:
            raise UserError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
        view = view or default_view(fmt)
        if view not in VIEWS:
            raise UserError(f"unknown view {view!r}; choose one of {', '.join(VIEWS)}")
        if limit is not None and fmt not in LIMITED:
            raise UserError(f"--limit applies to {' and '.join(LIMITED)} only; drop it for {fmt}")
        if limit is not None and not 200 <= limit <= 1_000_000:
            raise UserError(f"--limit takes 200 to 1000000 characters, got {limit}")
        shape = {"view": view, "footer": True, "limit": limit}
        span = None
        if rounds:
            a, _, b = rounds.partition("-")
            try:
                span = (int(a), int(b or a))
            except ValueError:
                raise UserError(f"--round takes N or N-M, got {rounds!r}") from None
        opts = options(ctx)
        with open_store(opts, readonly=True) as store:
            eid = resolve_encounter(store, opts.encounter)
            total = store.version(eid)
            if out:
                try:
                    fh = open(out, "w", encoding="utf-8")
                except OSError as exc:
                    raise UserError(f"cannot write {out}: {exc.strerror}") from None
                try:
                    with fh, progress_bar(total, text_to_stdout=False) as bar:
                        export_store(store, eid, fmt, fh, rounds=span, show_secret=secret, progress=bar.tick, **shape)
                except OSError as exc:
                    _discard(out)
                    raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None
                except BaseException:
                    _discard(out)
                    raise
            else:
                try:
                    with progress_bar(total, text_to_stdout=True) as bar:
                        export_store(store, eid, fmt, bar.sink, rounds=span, show_secret=secret, progress=bar.tick, **shape)
                except BrokenPipeError:
                    _quiet_stdout()  # the reader went away (| head): not an error
                    return
        if out:
            typer.echo(f"Wrote {out} ({fmt}).")

    @app.command()
    @handles_errors
    def verify(
        ctx: typer.Context,
        dice: bool = typer.Option(False, "--dice", help="Also re-derive every engine roll from the seed."),
    ):
        """Check the hash chain (edits, deletions, reordering), the snapshots
        and, with --dice, every engine roll.

        Example: affray verify --dice
        """
        from affray.verify import verify_encounter

        opts = options(ctx)
        with open_store(opts, readonly=True) as store:
            ids = [opts.encounter] if opts.encounter else store.encounter_ids()
            # the whole file first: it also finds encounters whose every event was deleted
            problems, checked = ([] if opts.encounter else list(store.verify())), []
            for eid in ids:
                found, summary = verify_encounter(store, eid, dice=dice)
                problems += found
                checked.append(summary)
        for line in checked:
            typer.echo(line)
        if problems:
            for p in problems:
                typer.echo(f"FAILED: {' '.join(p.split())}", err=True)  # one line each (quick_check's can hold several)
            raise typer.Exit(1)
        typer.echo("OK: the log is intact.")

    @app.command()
    @handles_errors
    def rulings(ctx: typer.Context, system: str = typer.Option("mrq1", "--system", "-s")):
        """List a system's named rulings, their defaults and sources.

        Example: affray rulings --system mrq1
        """
        from affray.rules import base

        sysobj = base.get(system)
        for name, (default, text, source) in sysobj.rulings_doc.items():
            typer.echo(f"{name} = {default}\n    {text} [{source}]")

