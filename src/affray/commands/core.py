"""What every command module shares, at the bottom of ``commands/``.

:class:`Outcome` (what a handled command did), :func:`slug` (an encounter
id from a name), :func:`check_encounter_id` (what an id may be) and :func:`with_issued` (the state the rules decide in).
The handler (:mod:`affray.commands.handler`), time travel
(:mod:`affray.commands.travel`) and the re-deciding of recorded commands
(:mod:`affray.commands.points`) all import these from here, so imports
inside ``commands/`` run one way: the verbs (amend, hero, demo) → handler →
travel → points → core and lookup.
"""

import msgspec

import re

from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.projections.evolve import evolve
from affray.projections.state import State
from affray.errors import UserError
from affray.rules.base import Draft, RuleError
from affray.rules.d100 import parse_modifier
from affray.text import one_line


class Outcome(msgspec.Struct):
    """What a handled command did: the records appended and the states
    before and after."""

    encounter_id: str
    records: list[Recorded]
    before: State
    state: State
    notes: list[str] = []


#: What an encounter id may be: 1 to 64 ASCII letters, digits, ``-``,
#: ``_`` and ``.``, starting with a letter or digit, so an id is safe in a
#: shell, a file name, a URL and on a terminal (issue 16, item 4).
ENCOUNTER_ID = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}"  # compiled on first use (re's cache), not at import


def check_encounter_id(eid: str, *, what: str = "encounter id", fix: str = "choose another with --id") -> str:
    """``eid`` if it is a valid encounter id (:data:`ENCOUNTER_ID`), else
    :class:`affray.rules.base.RuleError` (exit 2) naming it escaped and
    ``fix``, what to do. Used at ``new``, ``branch`` and ``import``."""
    if not re.fullmatch(ENCOUNTER_ID, eid):
        shown = one_line(eid[:80]) + ("…" if len(eid) > 80 else "")
        raise RuleError(
            f"{what} {shown!r} must be letters, digits, '-', '_' or '.' (1 to 64, ASCII, starting with a letter "
            f"or digit); {fix}"
        )
    return eid


def parse_modifiers(values) -> tuple[ev.Modifier, ...]:
    """``"-20:unstable ground"`` texts (percent, then the reason; or
    :class:`affray.events.core.Modifier` values, kept) as modifiers. A text
    that is not ``VALUE:REASON`` (ASCII digits, -999 to +999) raises
    :class:`affray.errors.UserError` (one line). The CLI's ``--mod`` and
    :mod:`affray.api` read modifiers through it."""
    mods = []
    for value in values or ():
        if isinstance(value, ev.Modifier):
            mods.append(value)
            continue
        try:
            number, reason = parse_modifier(value)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        mods.append(ev.Modifier(number, reason))
    return tuple(mods)


def slug(name: str) -> str:
    """A short, URL- and shell-safe id from a display name."""
    s = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return s[:40] or "encounter"


def with_issued(state: State, issued: ev.CommandIssued) -> State:
    """``state`` with the command's own ``CommandIssued`` record folded in
    (at version ``state.version + 1``, command id ``Draft.COMMAND``), so the
    rules number the events they emit after it exactly as the append will.
    Used by :func:`affray.commands.handler.execute` and
    :func:`affray.commands.points.decide_only`."""
    rec = Recorded(
        seq=0, encounter_id=state.encounter_id, version=state.version + 1, command_id=Draft.COMMAND,
        type="command-issued", schema=1, event=issued, recorded_at="", actor="", hash="",
    )
    return evolve(state, rec)
