"""Verbs that move a log between files: import (export is a read verb)."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

import typer

from affray.cli.common import UserError, handles_errors, options

_TICK = 2048  # events imported between progress ticks


def _stderr_is_terminal() -> bool:
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError, OSError):
        return False


@contextmanager
def _import_bar(file: str):
    """``tick(events imported)`` of a rich progress bar on stderr, or
    ``None``: only when stderr is a terminal and ``file`` is a regular file
    (its lines are counted first for the total; stdin cannot be)."""
    if file == "-" or not _stderr_is_terminal() or not os.path.isfile(file):
        yield None
        return
    from affray.views.progress import progress_bar

    total = 0
    with open(file, "rb") as counted:
        for block in iter(lambda: counted.read(1 << 20), b""):
            total += block.count(b"\n")
    with progress_bar(total, text_to_stdout=False, label="Importing") as bar:
        yield bar.tick


def register(app: typer.Typer) -> None:
    """Add the transfer verbs to ``app``."""

    @app.command("import")
    @handles_errors
    def import_(
        ctx: typer.Context,
        file: str = typer.Argument(..., help="A jsonl export: 'affray export --format jsonl --secret' ('-': stdin)."),
        as_id: str = typer.Option("", "--as-id", help="Store the encounter under this id instead of its own."),
    ):
        """Rebuild an encounter from a jsonl export, with its original envelopes.

        The versions, command ids, times, actors, data and hashes are kept as
        they were, so 'affray verify' passes on the copy. The file must be a
        whole export (--secret, no --round) of one encounter whose hash chain
        holds, and its id must be free in --db (or use --as-id: the chain is
        then hashed anew for the new id). An open encounter's dice seed is not
        in the export: 'verify --dice' reports it missing, and its engine
        cannot roll in this file. A closed encounter's seed is in its log.
        When stderr is a terminal and FILE a file, a progress bar shows how
        far the import is (events imported of the lines in FILE).

        Example: affray --db copy.db import fight.jsonl --as-id ford-copy
        """
        from affray.cli.show import open_event_store
        from affray.views.formats.jsonl import stream, renamed

        name = "stdin" if file == "-" else file
        try:
            fh = sys.stdin.buffer if file == "-" else open(file, "rb")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise UserError(f"cannot read {file}: {exc.strerror or exc}; check the path") from None
        seen = {"closed": False}

        def lines():
            try:
                yield from fh
            except OSError as exc:
                raise UserError(f"cannot read {file}: {exc.strerror or exc}; check the path") from None

        def watched(rows, tick=None):
            n = 0
            for row in rows:
                if row[2] == "encounter-closed":
                    seen["closed"] = True
                yield row
                n += 1
                if tick is not None and not n % _TICK:
                    tick(n)

        opts = options(ctx)
        existed = os.path.exists(opts.db)
        try:
            eid, rows = stream(lines(), name=name)
            target = eid
            if as_id:
                target = as_id.strip()
                if not target or any(ch.isspace() or not ch.isprintable() for ch in target):
                    raise UserError(f"--as-id takes an id without spaces, got {as_id!r}")
                if target != eid:
                    rows = renamed(rows, eid, target)
            with open_event_store(opts.db) as store, _import_bar(file) as tick:
                count = store.import_records(target, watched(rows, tick))
        except BaseException:
            if not existed:  # refused: leave no new file behind
                for suffix in ("", "-wal", "-shm"):
                    try:
                        os.remove(opts.db + suffix)
                    except OSError:
                        pass
            raise
        finally:
            if fh is not sys.stdin.buffer:
                fh.close()
        closed = seen["closed"]
        moved = f" as {target}" if target != eid else ""
        typer.echo(f"Imported encounter {eid}{moved} ({count} events, {'closed' if closed else 'open'}) into {opts.db}.")
        if target != eid:
            typer.echo(
                f"The hash chain was computed anew for {target}; engine rolls stay derived from {eid}, "
                "so 'verify --dice' cannot re-derive them under the new id."
            )
        if not closed:
            typer.echo(
                "The dice seed is not in the export (it is revealed on close): 'verify --dice' reports it missing, "
                "and new rolls must be typed with --dice."
            )
