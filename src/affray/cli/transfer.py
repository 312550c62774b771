"""Verbs that move a log between files: import (export is a read verb)."""

from __future__ import annotations

import typer

from affray.cli.common import UserError, echo, handles_errors, options


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

        Example: affray --db copy.db import fight.jsonl --as-id ford-copy
        """
        import os
        import sys

        from affray.cli.show import open_event_store, regular_file
        from affray.commands.core import check_encounter_id
        from affray.views.formats.jsonl import renamed, stream
        from affray.views.progress import progress_bar

        name = "stdin" if file == "-" else file
        if file != "-":
            regular_file(file, "import file", "give a jsonl export file, or '-' to read one from stdin")
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

        def watched(rows, tick):
            for n, row in enumerate(rows, 1):
                if row[2] == "encounter-closed":
                    seen["closed"] = True
                if tick is not None and n % 256 == 0:
                    tick(n)
                yield row

        opts = options(ctx)
        existed = os.path.exists(opts.db)
        try:
            eid, rows = stream(lines(), name=name)
            target = eid
            if as_id:
                target = check_encounter_id(as_id.strip(), what="--as-id", fix="choose another")
            else:
                check_encounter_id(eid, what=f"the encounter id in {name}", fix="store it under another with --as-id ID")
            if as_id and target != eid:
                rows = renamed(rows, eid, target)
            # on a terminal, a bar over the file's lines (one event each); none for stdin
            total = 0 if file == "-" else _lines_in(file)
            with open_event_store(opts.db) as store, progress_bar(total, text_to_stdout=False, label="Importing") as bar:
                count = store.import_records(target, watched(rows, bar.tick if total else None))
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
        echo(f"Imported encounter {eid}{moved} ({count} events, {'closed' if closed else 'open'}) into {opts.db}.")
        if target != eid:
            echo(
                f"The hash chain was computed anew for {target}; engine rolls stay derived from {eid}, "
                "so 'verify --dice' cannot re-derive them under the new id."
            )
        if not closed:
            echo(
                "The dice seed is not in the export (it is revealed on close): 'verify --dice' reports it missing, "
                "and new rolls must be typed with --dice."
            )


def _lines_in(path: str) -> int:
    """How many lines the file ``path`` holds (0 when it cannot be read:
    the import itself then says why)."""
    count = 0
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                count += chunk.count(b"\n")
    except OSError:
        return 0
    return count
