"""Terrain and the burden of 'Things' for movement, without a map (seed 001
"Movement" > "Effects of Terrain on Movement", "Situational Movement
Rates").

The GM declares what lies next to a character with the free action
``affray act WHO terrain:water,climbable`` (``terrain:clear`` ends it);
Climb needs a climbable surface and Swim needs water. Obstacles and
Difficult Terrain are options on a Move or Hustle:
``move:difficult``, ``move:4 difficult`` (4 m of the route is difficult),
``hustle:sprint difficult``, ``move:obstacle`` (refused: an Obstacle
blocks movement): :mod:`.movement` queues ``terrain:move`` for those.
What lies around a character and the 'Things' it carries are read by
:mod:`.core` (``surroundings``, ``things``).

Units: metres; the seed's feet are converted at 5 feet = 1.5 m
(:data:`.tables.FEET_TO_M`). Creatures unaffected by terrain (ghosts,
fliers) are not modelled: the GM leaves the option out for them.
"""

from __future__ import annotations

import re

from affray.events import core as ev
from affray.projections.state import Combatant
from affray.rules.base import Draft, RuleError
from affray.rules.d100 import is_success
from affray.rules.mythras import conditions as cat
from affray.rules.mythras import tables
from affray.rules.mythras.core import (
    SURROUNDINGS,
    TERRAIN_WORDS,
    at,
    done,
    grade_modifiers,
    metres,
    sheet_of,
    spend,
    test,
    tokens,
)

#: "A slow creature hindered by Difficult Terrain can always move a minimum
#: of 5 feet" (seed 001 "Effects of Terrain on Movement").
MIN_DIFFICULT = 5 * tables.FEET_TO_M
GAITS = {"walk": 1, "run": 3, "sprint": 5}


def declare(draft: Draft, who: str, arg: str) -> None:
    """``terrain:water,climbable`` (free, the GM's declaration): what lies
    next to the character, so Swim and Climb may follow (seed 001 "Climb":
    "next to a climbable surface"; "Swim": "next to a body of water");
    ``terrain:clear`` ends it."""
    c = draft.state.combatants[who]
    words = tokens(arg)
    old = next((k for k in c.conditions if k.name == "terrain"), None)
    if words == ["clear"]:
        if old is None:
            raise RuleError(f"nothing is declared next to {c.name}")
        draft.emit(ev.ConditionExpired(handle=who, condition_id=old.id, reason="the GM clears the terrain"))
        return
    bad = [w for w in words if w not in SURROUNDINGS]
    if not words or bad:
        raise RuleError(f"terrain takes {', '.join(SURROUNDINGS)} or clear: 'affray act WHO terrain:water'"
                        + (f"; not {bad[0]!r}" if bad else "")
                        + (" (difficult terrain and obstacles are options of move/hustle)" if set(bad) & set(TERRAIN_WORDS) else ""))
    kinds = sorted(set(words))
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "terrain", ends="event", effects={k: 1 for k in kinds},
        note="next to " + " and ".join("water" if k == "water" else "a climbable surface" for k in kinds), **at(draft))))


def difficult_distance(allowance: float, difficult: float | None) -> float:
    """Metres covered with ``allowance`` metres of movement when
    ``difficult`` metres of the route (all of it when ``None``) are
    Difficult Terrain, which "costs twice the normal movement to enter",
    never less than 5 feet (seed 001 "Effects of Terrain on Movement")."""
    through = allowance / 2 if difficult is None else min(difficult, allowance / 2)
    clear = 0.0 if difficult is None or difficult > allowance / 2 else allowance - 2 * through
    return round(max(through + clear, MIN_DIFFICULT), 2)


def move(draft: Draft, who: str, arg: str, *, hustle: bool) -> None:
    """A Move or Hustle with terrain (seed 001 "Effects of Terrain on
    Movement"): an ``obstacle`` "completely blocks movement" (refused);
    ``difficult`` terrain costs double movement, minimum 5 feet; passing
    through it faster than the Base Movement Rate (a Hustle) needs a
    Formidable Athletics or a Standard Acrobatics roll, whichever chance is
    higher, "to avoid stumbling and falling" (prone). ``move:4 difficult``:
    4 m of the route is difficult, the rest clear. Step ``terrain:move``,
    queued by a Move or Hustle whose argument names terrain."""
    state = draft.state
    c = state.combatants[who]
    words = tokens(arg)
    if "obstacle" in words:
        raise RuleError(f"an Obstacle completely blocks movement: {c.name} must go around it, or climb or jump it "
                        "(seed 001 'Effects of Terrain on Movement')")
    gaits = [w for w in words if w in GAITS]
    numbers = [w for w in words if re.fullmatch(r"[0-9]+(\.[0-9]+)?", w)]
    rest = [w for w in words if w not in gaits and w not in numbers and w not in TERRAIN_WORDS]
    if rest or len(numbers) > 1 or len(gaits) > 1 or (gaits and not hustle) or (hustle and gaits == ["walk"]):
        raise RuleError("with terrain, give only the metres of difficult ground and, for hustle, run or sprint: "
                        "'affray act WHO move:4 difficult' or 'hustle:sprint difficult' (no target)")
    gait = (gaits or ["run"])[0] if hustle else "walk"
    allowance = c.movement * GAITS[gait]
    difficult = metres(numbers[0], "the difficult ground") if numbers else None
    distance = difficult_distance(allowance, difficult)
    spend(draft, who, f"hustle ({gait}) through difficult terrain" if hustle else "move through difficult terrain")
    part = "all of it" if difficult is None else f"{difficult:g} m of it"
    draft.emit(ev.CombatantMoved(handle=who, distance=distance, reason=(
        f"{'Hustle: ' + gait if hustle else 'Move'} through difficult terrain ({part}, double cost): "
        f"{distance:g} m of {allowance:g} m")))
    if hustle:
        draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
            "running" if gait == "run" else "sprinting", ends="next-action", note=f"{gait}s until its next turn", **at(draft))))
        footing(draft, c)
    done(draft)


def footing(draft: Draft, c: Combatant) -> ev.SkillTested:
    """The roll to stay up in difficult terrain at speed: Formidable
    Athletics or Standard Acrobatics, whichever chance is higher; a failure
    falls prone (seed 001 "Effects of Terrain on Movement")."""
    state = draft.state
    s = sheet_of(c)
    athletics = s.skill("Athletics")
    acrobatics = s.skill("Acrobatics")
    a_mods = grade_modifiers(state, c, athletics, (), "both", combat=False,
                             extra=[("formidable", "Athletics through difficult terrain at speed")])
    b_mods = grade_modifiers(state, c, acrobatics, (), "both", combat=False)
    a_target = athletics + sum(m.value for m in a_mods)
    b_target = acrobatics + sum(m.value for m in b_mods)
    name, base, mods = ("Athletics", athletics, a_mods) if a_target >= b_target else ("Acrobatics", acrobatics, b_mods)
    t = test(draft, c, name, base, "keep footing in difficult terrain", mods)
    if not is_success(t.result):
        draft.emit(ev.StanceChanged(handle=c.handle, stance="prone",
                                    reason="stumbles and falls in difficult terrain"))
    return t


__all__ = ["FREE_ACTIONS", "declare", "move", "difficult_distance"]

FREE_ACTIONS = {"terrain": declare}
