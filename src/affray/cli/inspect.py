"""Verbs that read: list, state, pending, log, export, verify, rulings."""

from __future__ import annotations

import typer

from affray.cli.common import UserError, echo_json, handles_errors, open_store, options


def _load(ctx: typer.Context, *, at: str = "", version: int = 0):
    from affray.cli.show import load_for_read

    opts = options(ctx)
    return load_for_read(opts.db, opts.encounter, at=at, version=version)


class _ticks:
    """A progress bar's ``tick`` as a context manager (``None`` off a terminal)."""

    def __init__(self, cm) -> None:
        self._cm = cm

    def __enter__(self):
        return self._cm.__enter__().tick

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


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
    ):
        """Export the log for play-by-post.

        The log is streamed: written as it is read, so memory stays flat
        however long the fight. On a terminal, a progress bar shows how far
        it has got.

        Example: affray export --format markdown --out fight.md
        """
        from affray.commands.lookup import resolve_encounter
        from affray.views.export import FORMATS, export_store
        from affray.views.progress import progress_bar

        if fmt not in FORMATS:
            raise UserError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
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
                        export_store(store, eid, fmt, fh, rounds=span, show_secret=secret, progress=bar.tick)
                except OSError as exc:
                    _discard(out)
                    raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None
                except BaseException:
                    _discard(out)
                    raise
            else:
                try:
                    with progress_bar(total, text_to_stdout=True) as bar:
                        export_store(store, eid, fmt, bar.sink, rounds=span, show_secret=secret, progress=bar.tick)
                except BrokenPipeError:
                    _quiet_stdout()  # the reader went away (| head): not an error
                    return
        if out:
            typer.echo(f"Wrote {out} ({fmt}).")

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
        from affray.verify import anchor_encounter, verify_store
        from affray.views.progress import progress_bar

        opts = options(ctx)
        with open_store(opts, readonly=True) as store:
            eid = opts.encounter
            if against and not eid:
                eid = anchor_encounter(store, against)
            verdict = verify_store(
                store, eid, dice=dice, full=full, against=against,
                progress=None if json else (lambda total: _ticks(progress_bar(total, text_to_stdout=False, label="Verifying"))),
            )
        if json:
            echo_json(verdict.data())
            raise typer.Exit(verdict.code)
        for report in verdict.reports:
            typer.echo(report.summary)
        for p in verdict.problems:
            typer.echo(f"FAILED: {' '.join(p.split())}", err=True)  # one line each (quick_check's can hold several)
        if verdict.code == 1:
            raise typer.Exit(1)
        if verdict.code == 4:
            typer.echo("OK so far: the log is intact, but the dice cannot be checked until the seed is revealed ('affray close').")
            raise typer.Exit(4)
        typer.echo("OK: the log is intact.")

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
        from affray.commands.lookup import resolve_encounter

        opts = options(ctx)
        with open_store(opts, readonly=True) as store:
            eid = resolve_encounter(store, opts.encounter)
            version, hash_ = store.head(eid)
            commitment = store.commitment(eid) or ""
        if json:
            echo_json({"encounter": eid, "version": version, "head": hash_, "seed_sha256": commitment})
            return
        typer.echo(f"{eid} version {version} head {hash_}")
        typer.echo(f"seed commitment sha256 {commitment}")

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

