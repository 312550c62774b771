"""The bodies of the verbs that read, without the CLI framework: list,
state, pending, log, export, verify, head, audit, rulings, why, replay.

As in :mod:`affray.cli.fight_verbs`, each function is ``verb(opts,
**params)`` with ``params`` named as the parameters of the Typer command
that defines the verb (:mod:`affray.cli.inspect`, :mod:`affray.cli.travel`)
and forwards here; the fast dispatcher (:mod:`affray.cli.dispatch`) calls
the same functions. Each returns an exit code when it is not 0.
"""

from __future__ import annotations

import sys

from affray.cli.core import Options, UserError, color, echo, echo_json, open_store, styled
from affray.text import safe_line


def list_(opts: Options, *, json: bool = False) -> None:
    """List the encounters in the database."""
    with open_store(opts, readonly=True) as store:
        rows = store.encounter_infos()
    data = [{"id": r.id, "name": r.name, "system": r.system, "version": r.version, "closed": r.closed} for r in rows]
    if json:
        echo_json(data)
        return
    for d in data:
        echo(f"{d['id']}  {d['system']}  v{d['version']}  {'closed' if d['closed'] else 'open'}  {d['name']}")


def state(opts: Options, *, json: bool = False, at: str = "", version: int = 0) -> None:
    """Show the fight (:func:`affray.cli.show.state_text`)."""
    from affray.cli.show import load_for_read, state_text

    echo(state_text(load_for_read(opts.db, opts.encounter, at=at, version=version), json=json), nl=False, block=True)


def pending(opts: Options, *, json: bool = False) -> None:
    """Show what the table is waiting for (:func:`affray.cli.show.pending_text`)."""
    from affray.cli.show import load_for_read, pending_text

    echo(pending_text(load_for_read(opts.db, opts.encounter), json=json), nl=False, block=True)


def log(opts: Options, *, json: bool = False, dice: bool = False, tail: int = 0, round_no: int | None = None) -> None:
    """Show the log, streamed (:func:`affray.views.log_view.log_entries`):
    every entry, the last ``tail`` or those of round ``round_no``."""
    from affray.commands.lookup import resolve_encounter
    from affray.views.log_view import log_entries

    if tail < 0:
        raise UserError(f"--tail takes a number of entries (0: all), got {tail}")
    with open_store(opts, readonly=True) as store:
        eid = resolve_encounter(store, opts.encounter)
        try:
            items = log_entries(store, eid, dice=dice, tail=tail, round_no=round_no)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        try:
            if json:
                _json_list(_log_json(items, dice))
            else:
                from affray.cli.tables import render_log

                render_log(items, color=color(opts))
            sys.stdout.flush()
        except BrokenPipeError:
            quiet_stdout()  # the reader went away (| head): not an error
        finally:
            close = getattr(items, "close", None)
            if close is not None:  # end the walk of the log while the store is open
                close()


def _log_json(items, dice: bool):
    """``log --json`` objects; with ``dice``, each with ``rolls``: the rolls
    behind it as objects (the fields of ``why --json``'s rolls)."""
    if dice:
        from affray.views.log_index import roll_data
    for e in items:
        item = {
            "version": e.version, "round": e.round, "command_id": e.command_id, "actor": e.actor,
            "status": e.status, "type": e.kind, "text": e.text,
        }
        if dice:
            item["rolls"] = [roll_data(r) for r in e.dice]
        yield item


def _json_list(items) -> None:
    """Write ``items`` as one JSON array, as :func:`echo_json` would (C1 and
    bidi characters escaped), one item at a time."""
    import msgspec

    from affray.text import escape_json

    encode = msgspec.json.Encoder().encode
    write = sys.stdout.write
    sep = "["
    for item in items:
        write(sep + escape_json(encode(item).decode()))
        sep = ","
    write("[]\n" if sep == "[" else "]\n")


def quiet_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush
    after a closed pipe prints no second error."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


class _Ticks:
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


def export(opts: Options, *, fmt: str = "markdown", out: str = "", rounds: str = "", secret: bool = False,
           view: str = "", limit: int | None = None) -> None:
    """Export the log for play-by-post (:func:`affray.views.export.export_store`):
    to ``out``, or streamed to stdout. Raises :class:`UserError` for an
    unknown format or view, a ``--limit`` out of range or for a format
    without one, a ``--round`` that is not ``N`` or ``N-M``, or a file that
    cannot be written (a partly written one is removed)."""
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
                quiet_stdout()  # the reader went away (| head): not an error
                return
    if out:
        echo(f"Wrote {out} ({fmt}).")


def verify(opts: Options, *, dice: bool = False, against: str = "", full: bool = False, json: bool = False) -> int | None:
    """Check the log (:func:`affray.verify.verify_store`): the reports on
    stdout, each problem as one ``FAILED:`` line on stderr. Returns the
    verdict's exit code: 1 tampering or a difference, 4 intact but the dice
    not checkable yet (the seed neither revealed nor in the key file)."""
    from affray.verify import anchor_encounter, verify_store
    from affray.views.progress import progress_bar

    def bar(total: int):
        return _Ticks(progress_bar(total, text_to_stdout=False, label="Verifying"))

    with open_store(opts, readonly=True) as store:
        eid = opts.encounter
        if against and not eid:
            eid = anchor_encounter(store, against)
        verdict = verify_store(store, eid, dice=dice, full=full, against=against, progress=None if json else bar)
    if json:
        echo_json(verdict.data())
        return verdict.code
    for report in verdict.reports:
        echo(safe_line(report.summary))
    for p in verdict.problems:
        # one line each (quick_check's can hold several); an id or name in it cannot hide the line
        styled(opts, f"FAILED: {safe_line(' '.join(p.split()))}", "bold red", err=True)
    if verdict.code == 1:
        return 1
    if verdict.code == 4:
        styled(opts, "OK so far: the log is intact, but the dice cannot be checked until the seed is revealed ('affray close').", "yellow")
        return 4
    styled(opts, "OK: the log is intact.", "green")
    return None


def audit(opts: Options, *, json: bool = False) -> int | None:
    """Re-derive every recorded decision with today's rules
    (:func:`affray.audit.audit_encounter`) and list where the log differs.
    Returns 1 when any decision differs."""
    from affray.audit import audit_encounter, report_lines
    from affray.commands.lookup import resolve_encounter
    from affray.views.progress import progress_bar

    with open_store(opts, readonly=True) as store:
        eid = resolve_encounter(store, opts.encounter)
        with progress_bar(store.version(eid), text_to_stdout=False, label="Auditing") as bar:
            result = audit_encounter(store, eid, tick=bar.tick)
    if json:
        echo_json(result.data())
    else:
        for line in report_lines(result):
            echo(line)
    return 1 if result.differences else None


def head(opts: Options, *, json: bool = False) -> None:
    """Print the encounter's head: its newest version, full hash and the
    dice seed's commitment (SHA-256, hex)."""
    from affray.commands.lookup import resolve_encounter

    with open_store(opts, readonly=True) as store:
        eid = resolve_encounter(store, opts.encounter)
        version, hash_ = store.head(eid)
        commitment = store.commitment(eid) or ""
    if json:
        echo_json({"encounter": eid, "version": version, "head": hash_, "seed_sha256": commitment})
        return
    echo(f"{eid} version {version} head {hash_}")
    echo(f"seed commitment sha256 {commitment}")


def rulings(opts: Options, *, system: str = "mrq1", json: bool = False) -> None:
    """List a system's named rulings, their defaults and sources; with
    ``json``, a list of ``{"name", "default", "text", "source"}``."""
    from affray.rules import base

    sysobj = base.get(system)
    if json:
        echo_json([
            {"name": name, "default": default, "text": text, "source": source}
            for name, (default, text, source) in sysobj.rulings_doc.items()
        ])
        return
    for name, (default, text, source) in sysobj.rulings_doc.items():
        echo(f"{name} = {default}")
        echo(f"    {text} [{source}]")


def why(opts: Options, *, combatant: str, subject: str = "", json: bool = False) -> None:
    """Explain a condition or a wound (:func:`affray.views.why.why_store`)."""
    from affray.commands.lookup import resolve_encounter
    from affray.projections.snapshots import load_state
    from affray.rules.base import find_combatant
    from affray.views.why import why_lines, why_store

    with open_store(opts, readonly=True) as store:
        eid = resolve_encounter(store, opts.encounter)
        state = load_state(store, eid)
        handle = find_combatant(state, combatant)
        try:
            # reads only the windows of the log the chains go through
            data = why_store(store, eid, state, handle, subject)
        except ValueError as exc:
            raise UserError(str(exc)) from None
    if json:
        echo_json(data)
        return
    for line in why_lines(data, state):
        echo(line)


def replay(opts: Options, *, round_no: int, json: bool = False) -> None:
    """Show a round step by step, reading only that round
    (:func:`affray.views.round_replay.replay_store`)."""
    from affray.commands.lookup import resolve_encounter
    from affray.views.round_replay import replay_lines, replay_store

    with open_store(opts, readonly=True) as store:
        eid = resolve_encounter(store, opts.encounter)
        try:
            data = replay_store(store, eid, round_no)
        except ValueError as exc:
            raise UserError(str(exc)) from None
    if json:
        echo_json(data)
        return
    for line in replay_lines(data):
        echo(line)
