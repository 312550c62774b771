"""What every command module shares, at the bottom of ``commands/``.

:class:`Outcome` (what a handled command did), :func:`slug` (an encounter
id from a name) and :func:`with_issued` (the state the rules decide in).
The handler (:mod:`affray.commands.handler`), time travel
(:mod:`affray.commands.travel`) and the re-deciding of recorded commands
(:mod:`affray.commands.points`) all import these from here, so imports
inside ``commands/`` run one way: the verbs (amend, hero, demo) → handler →
travel → points → core and lookup.
"""

from __future__ import annotations

import msgspec

import re

from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.projections.evolve import evolve
from affray.projections.state import State
from affray.rules.base import Draft


class Outcome(msgspec.Struct):
    """What a handled command did: the records appended and the states
    before and after."""

    encounter_id: str
    records: list[Recorded]
    before: State
    state: State
    notes: list[str] = []


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
