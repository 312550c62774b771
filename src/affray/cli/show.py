"""The read views that need no CLI framework: ``state`` and ``pending``.

Both the Typer verbs (:mod:`affray.cli.inspect`) and the fast path
(:mod:`affray.cli.main`) call these, so the output is one and the same.
Nothing here imports typer or rich.
"""

from __future__ import annotations

import msgspec

from affray.errors import UserError


def open_event_store(db: str, **options):
    """``open_store(db, **options)``: the SQLite file at ``db``, or the
    PostgreSQL database when ``db`` is a ``postgresql://`` URL. A file whose
    schema text is damaged into bytes that are not UTF-8 makes Python's
    sqlite3 fail to decode SQLite's own error message, and is reported as
    the corrupt file it is."""
    from affray.store import DatabaseCorrupt, open_store

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
    """``state`` output: the documented JSON, or the plain-text view."""
    if json:
        from affray.views.data import state_data

        return msgspec.json.encode(state_data(state)).decode() + "\n"
    from affray.cli.tables import state_lines

    return "\n".join(state_lines(state)) + "\n"


def pending_text(state, *, json: bool = False) -> str:
    """``pending`` output: the documented JSON, or numbered steps with
    their verb, options and dice in ``--dice`` order."""
    if json:
        from affray.views.data import pending_data

        return msgspec.json.encode(pending_data(state)).decode() + "\n"
    if not state.pending:
        return "Nothing is pending." + (" The fight is over." if state.phase == "over" else "") + "\n"
    lines = []
    for i, step in enumerate(state.pending, 1):
        lines.append(f"{i}. {step.prompt}")
        lines.append(f"   verb: affray {step.verb}" + (f"   options: {' | '.join(step.options)}" if step.options else ""))
        for j, d in enumerate(step.dice, 1):
            lines.append(f"   die {j}: {d.expr}  {d.purpose}")
    return "\n".join(lines) + "\n"
