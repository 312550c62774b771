"""``affray copy SRC DST``: move a whole log between a SQLite file and a
PostgreSQL database (either way), hashes and dice seeds kept."""

from __future__ import annotations

import typer

from affray.cli.common import UserError, handles_errors


def register(app: typer.Typer) -> None:
    """Add ``copy`` to ``app``."""

    @app.command("copy")
    @handles_errors
    def copy_(
        src: str = typer.Argument(..., help="The log to copy: a SQLite file or a postgresql:// URL."),
        dst: str = typer.Argument(..., help="Where to: a SQLite file or a postgresql:// URL (created when missing)."),
    ):
        """Copy every encounter from one log to another, SQLite ⇄ PostgreSQL.

        The envelopes are kept as they are (versions, times, actors, data and
        hashes), so 'affray verify' passes on both ends and the heads match;
        each encounter's dice seed and snapshots come along. DST must not hold
        any of SRC's encounters. Ignores --db.

        Example: affray copy campaign.db postgresql://gm@db.example/affray
        """
        from affray.store import open_store
        from affray.store.copying import copy_log

        if src == dst:
            raise UserError("SRC and DST are the same log; name another DST")
        with open_store(src, must_exist=True, readonly=True) as source, open_store(dst) as target:
            copied = copy_log(
                source, target,
                progress=lambda c: typer.echo(
                    f"{c.encounter_id}: {c.events} events, head {c.head[:16]}"
                    f"{', dice seed' if c.seed else ''}{f', {c.snapshots} snapshots' if c.snapshots else ''}"
                ),
            )
            total = sum(c.events for c in copied)
            typer.echo(
                f"Copied {len(copied)} encounter{'s' * (len(copied) != 1)} ({total} events) "
                f"from {source.path} to {target.path}; every head hash matches."
            )
