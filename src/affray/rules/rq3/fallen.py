"""Fallen characters (seed 002 "FALLEN CHARACTERS").

A character who falls in the Melee Phase cannot stand until the next
round's Move Phase; a successful Acrobatics or Breakfall roll lets it stand
in this round's Post Melee Move (``affray act WHO stand``). A fall in a
Move Phase is negated by a successful Acrobatics or Breakfall roll;
without it the character may stand in the next movement phase, this
round's Post Melee Move. Standing
from prone takes two moves (prone to kneeling, kneeling to standing:
:mod:`affray.rules.rq3.movement`), and a fallen character cannot force
engagement.
"""

from __future__ import annotations

from affray.events import core as ev
from affray.rules.base import Draft, RuleError
from affray.rules.rq3 import core


def roll(draft: Draft, step: ev.PendingStep) -> None:
    """The Acrobatics or Breakfall roll after a fall."""
    c = draft.state.combatants[step.who]
    name, value = core.fall_skill(c)
    during = str(step.data.get("during", "melee"))
    ok = core.succeeded(core.test(draft, c.handle, name, value, purpose=f"{name}: {c.name} breaks the fall"))
    if ok:
        core.expire(draft, c.handle, "fallen-this-round", f"{name} succeeded")
        if during == "move":
            draft.emit(ev.StanceChanged(handle=c.handle, stance="standing", reason=f"{name}: the fall is negated"))
    if during == "move":
        core.condition(draft, c.handle, "moved", note="fell" + (" and rolled out of it" if ok else ""))
        draft.hand_over()
        return
    core.end_exchange(draft)


def stand(draft: Draft, handle: str, words: list[str]) -> None:
    """``act WHO stand`` in the Post Melee Move, after a successful
    Acrobatics or Breakfall roll, a fall in this round's Move Phase ("A
    character that fell in the course of a Move or Post Melee Move will
    normally be unable to stand until the next movement phase, either Move
    or Post Melee Move"), or a fall in an earlier round."""
    state = draft.state
    c = state.combatants[handle]
    if core.phase(state) != "post":
        raise RuleError("'stand' belongs to the Post Melee Move; in the Move Phase use 'move stand'")
    if c.stance == "standing":
        raise RuleError(f"{c.name} is already standing")
    if c.has("fallen-this-round") and not c.effect("in-move-phase"):
        raise RuleError(f"{c.name} fell this round and cannot stand before the next Move Phase without Acrobatics or Breakfall")
    if any(x.name in ("useless-limb", "severed") and "leg" in x.location for x in c.conditions):
        raise RuleError(f"{c.name} cannot stand on a useless leg")
    draft.emit(ev.StanceChanged(handle=handle, stance="standing", reason="stood up in the Post Melee Move"))
