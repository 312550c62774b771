"""Wounds by location and total HP (rules-reference.md C7-C8 for the
figures; the RQ3 effects are ruling ``wounds``).

- Any damage: a minor wound.
- A limb at 0 HP or less is useless (an arm drops what it holds is left to
  the GM; a leg fells its owner): a serious wound.
- A limb that took twice its HP is severed or maimed and takes no more: a
  major wound.
- Head, chest or abdomen at 0 HP or less: unconscious (the abdomen also
  fells its owner): a serious wound; at minus its HP, a major wound.
- Total HP (total less every location's damage, a limb counting at most
  twice its HP) at 0 or below: dead.
"""

from __future__ import annotations

from affray.events import core as ev
from affray.rules.base import Draft
from affray.rules.rq3 import core


def inflict(draft: Draft, target: str, location: str, final: int) -> None:
    """The effects of ``final`` points to ``location`` of ``target``."""
    if final <= 0:
        return
    t = draft.state.combatants[target]
    loc = t.location(location)
    x = draft.state.exchange
    n = x.id if x else 0
    before = loc.hp + final
    if loc.hp > 0:
        severity = "minor"
    elif loc.hp > -loc.max_hp:
        severity = "serious"
    else:
        severity = "major"
    draft.emit(ev.WoundInflicted(target=target, location=location, severity=severity, exchange=n))
    if loc.limb and loc.hp <= 0 < before:
        core.condition(draft, target, "useless-limb", ends="never", location=location, effects={"useless": 1},
                       note=f"{location} at {loc.hp} HP")
        if loc.limb == "leg" and t.stance == "standing":
            draft.emit(ev.StanceChanged(handle=target, stance="prone", reason=f"useless {location}"))
    if loc.limb and loc.hp <= -loc.max_hp and before > -loc.max_hp:
        core.condition(draft, target, "severed", ends="never", location=location, effects={"useless": 1},
                       note=f"{location} took twice its HP")
    if not loc.limb and loc.hp <= 0 < before:
        if location == "abdomen" and t.stance == "standing":
            draft.emit(ev.StanceChanged(handle=target, stance="prone", reason="abdomen at 0 HP"))
    t = draft.state.combatants[target]
    left = core.total_hp_left(t)
    if left <= 0 and t.status != "dead":
        draft.emit(ev.StatusChanged(handle=target, status="dead", reason=f"total HP {left}"))
    elif not loc.limb and loc.hp <= 0 and t.status == "active":
        core.condition(draft, target, "unconscious", ends="event", effects={"helpless": 1}, note=f"{location} at {loc.hp} HP")
        draft.emit(ev.StatusChanged(handle=target, status="unconscious", reason=f"{location} at {loc.hp} HP"))
