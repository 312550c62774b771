"""The read views that need no CLI framework: ``state`` and ``pending``.

Both the Typer verbs (:mod:`affray.cli.inspect`) and the fast path
(:mod:`affray.cli.main`) call these, so the output is one and the same.
Nothing here imports typer or rich.
"""

from __future__ import annotations

import msgspec

from affray.errors import UserError, special_file
from affray.text import escape_json, safe_line


def regular_file(path: str, what: str, fix: str) -> None:
    """Refuse, with one line (:class:`UserError`, exit 2), a ``path`` that
    exists but is a directory, a FIFO, a socket or a device: opening a FIFO
    would wait for a writer for ever. A missing path, or one that cannot be
    looked at, is left to whoever opens it. ``what`` names the path in the
    message (``--db``), ``fix`` says what to do (the test is
    :func:`affray.errors.special_file`)."""
    kind = special_file(path)
    if not kind:
        return
    raise UserError(f"{what} {path!r} is {kind}, not a regular file; {fix}")


def open_event_store(db: str, **options):
    """``open_store(db, **options)``: the SQLite file at ``db``, or the
    PostgreSQL database when ``db`` is a ``postgresql://`` URL. A file whose
    schema text is damaged into bytes that are not UTF-8 makes Python's
    sqlite3 fail to decode SQLite's own error message, and is reported as
    the corrupt file it is. A ``db`` that is a directory, FIFO, socket or
    device is refused with one line (:func:`regular_file`), where SQLite
    would fail or hang."""
    from affray.store import DatabaseCorrupt, open_store

    regular_file(db, "--db", "name an affray log file (a new name creates one with 'affray new')")
    try:
        return open_store(db, **options)
    except UnicodeDecodeError:
        raise DatabaseCorrupt(db, "its schema is damaged: text that is not UTF-8") from None


def load_for_read(db: str, encounter: str | None, *, at: str = "", version: int = 0):
    """The state to show: now, at ``at`` (ROUND or ROUND.STEP, from the
    nearest snapshot) or with the log cut at ``version``.

    Raises :class:`affray.errors.AffrayError` subclasses (one line each).
    """
    from affray.commands.lookup import resolve_encounter
    from affray.projections.snapshots import load_state

    with open_event_store(db, must_exist=True, readonly=True) as store:
        eid = resolve_encounter(store, encounter)
        if at:
            from affray.projections.travel import parse_point, state_at_store

            try:
                rnd, step = parse_point(at)
                return state_at_store(store, eid, rnd, step)
            except (ValueError, LookupError) as exc:
                raise UserError(str(exc)) from None
        if version:
            head = store.version(eid)
            if not 1 <= version <= head:
                raise UserError(f"--version takes 1–{head} for encounter {eid}, got {version}")
            return load_state(store, eid, at_version=version)
        return load_state(store, eid)


def state_text(state, *, json: bool = False) -> str:
    """``state`` output: the documented JSON, or the plain-text view; either
    safe to print (:func:`affray.text.escape_json`, each line through
    :func:`affray.cli.tables.safe_indented`)."""
    if json:
        from affray.views.data import state_data

        return escape_json(msgspec.json.encode(state_data(state)).decode()) + "\n"
    from affray.cli.tables import safe_indented, state_lines

    return "\n".join(safe_indented(line) for line in state_lines(state)) + "\n"


def pending_text(state, *, json: bool = False) -> str:
    """``pending`` output: the documented JSON, or numbered steps with
    their verb, options and dice in ``--dice`` order."""
    if json:
        from affray.views.data import pending_data

        return escape_json(msgspec.json.encode(pending_data(state)).decode()) + "\n"
    from affray.cli.tables import safe_indented

    if not state.pending:
        return "Nothing is pending." + (" The fight is over." if state.phase == "over" else "") + "\n"
    lines = []
    for i, step in enumerate(state.pending, 1):
        lines.append(f"{i}. {step.prompt}")
        lines.append(f"   verb: affray {step.verb}" + (f"   options: {' | '.join(step.options)}" if step.options else ""))
        for j, d in enumerate(step.dice, 1):
            lines.append(f"   die {j}: {d.expr}  {d.purpose}")
    return "\n".join(safe_indented(line) for line in lines) + "\n"
