"""Situational Movement Rates (seed 001 "Movement" > "Situational Movement
Rates": "Climb", "Crawl", "Jump", "Swim"), each a Proactive Action of 1
Action Point taken in place of a Move: ``affray act WHO ACTION[:ARG]``.

- ``crawl[:METRES]``: a prone character crawls up to 5 feet (1.5 m).
- ``climb[:WALKED]``: climbs the Base Movement Rate less the metres
  ``WALKED`` to the surface this Turn (``climb:2``); needs
  ``terrain:climbable``; refused after a run or sprint (``climb:2 run``).
- ``swim[:MOVED]``: next to declared water (``terrain:water``), the Base
  Movement Rate less the metres moved first this Turn, slowed by 'Things'
  over STR; at 0 or less the swimmer begins drowning.
- ``jump:METRES[ standing][ up][ run-up=METRES]``: an Athletics roll to
  clear ``METRES`` across (or ``up``).

Units: metres, the seed's feet converted at 5 feet = 1.5 m
(:data:`.tables.FEET_TO_M`). Worn armour counts as 'Things'
(:func:`.terrain.armour_things`).
"""

from __future__ import annotations

import re

from affray.events import core as ev
from affray.rules.base import Draft, RuleError
from affray.rules.d100 import CRITICAL, FUMBLE, SUCCESS, is_success
from affray.rules.mythras import conditions as cat
from affray.rules.mythras import tables
from affray.rules.mythras.core import (
    at,
    check_free_to_move,
    done,
    grade_modifiers,
    metres,
    rulings_of,
    sheet_of,
    spend,
    surroundings,
    test,
    things,
    tokens,
)

FOOT = tables.FEET_TO_M
#: "a maximum rate of 5 feet per Turn" (seed 001 "Crawl").
CRAWL = round(5 * FOOT, 2)
#: "at least a 15-foot run-up" (seed 001 "Jump").
RUN_UP = round(15 * FOOT, 2)
#: "On a Critical Success, the character adds a further 5 feet" ("Jump").
CRITICAL_BONUS = round(5 * FOOT, 2)
_NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?")


def _walked(draft: Draft, who: str, arg: str, what: str) -> float:
    """The metres moved this Turn before the climb or swim (a number in
    ``arg``, default 0: "reduced by any movement already used", seed 001
    "Climb", "Swim"); for Climb a run or sprint first is refused: "The
    character cannot have moved faster than a Walk" (Swim has no such
    limit)."""
    c = draft.state.combatants[who]
    words = tokens(arg)
    fast = [w for w in words if w in ("run", "sprint", "running", "sprinting")] + [
        k.name for k in c.conditions if k.name in ("running", "sprinting")]
    if fast and what == "climb":
        raise RuleError(f"{c.name} cannot {what} after moving faster than a Walk ({fast[0]}); "
                        f"seed 001 '{what.capitalize()}': only a Walk may come before it")
    numbers = [w for w in words if _NUMBER.fullmatch(w)]
    if len(numbers) != len(words) or len(numbers) > 1:
        raise RuleError(f"{what} takes the metres walked first this Turn: 'affray act WHO {what}:2' (or just '{what}')")
    walked = metres(numbers[0], "the distance walked") if numbers else 0.0
    if walked >= c.movement:
        raise RuleError(f"{c.name} has no movement left to {what}: {walked:g} m walked of a {c.movement} m Base Movement Rate")
    return walked


def _thing_penalty(draft: Draft, c) -> tuple[float, int, int]:
    """(metres lost, Things, STR): one unit per Thing carried over STR
    (seed 001 "Swim"; unit by ruling ``swim_thing_unit``)."""
    n = things(draft.state, c)
    strength = sheet_of(c).characteristics.STR
    unit = FOOT if rulings_of(draft.state).swim_thing_unit == "foot" else 1.0
    return round(max(0, n - strength) * unit, 2), n, strength


def _beside(draft: Draft, who: str, arg: str, what: str, need: str, place: str):
    """The checks Climb and Swim share: free to move, ``need`` declared
    next to the character (``terrain``), the metres walked first; returns
    (combatant, walked, penalty for Things, Things, STR)."""
    c = draft.state.combatants[who]
    check_free_to_move(draft.state, c, what)
    if need not in surroundings(c):
        raise RuleError(f"no {place} is declared next to {c.name}: 'affray act {who} terrain:{need}' first")
    walked = _walked(draft, who, arg, what)
    return (c, walked) + _thing_penalty(draft, c)


def _start(draft: Draft, who: str, what: str, walked: float, place: str) -> None:
    """Spend the Action Point and record the walk to the ``place``."""
    spend(draft, who, what)
    if walked:
        draft.emit(ev.CombatantMoved(handle=who, distance=walked, reason=f"walks to the {place}"))


def crawl(draft: Draft, who: str, arg: str) -> None:
    """Crawl: "A character that begins the Turn prone may crawl at a
    maximum rate of 5 feet per Turn in place of a normal Move" (seed 001
    "Crawl"); 5 feet = 1.5 m. ``crawl:1`` crawls less."""
    state = draft.state
    c = state.combatants[who]
    if c.stance != "prone":
        raise RuleError(f"{c.name} is {c.stance}, not prone: only a prone character crawls (seed 001 'Crawl'); use move")
    check_free_to_move(state, c, "crawl", prone_ok=True)
    words = tokens(arg)
    if len(words) > 1 or (words and not _NUMBER.fullmatch(words[0])):
        raise RuleError("crawl takes at most the metres crawled: 'affray act WHO crawl' or 'crawl:1'")
    distance = metres(words[0], "the crawl") if words else CRAWL
    if distance > CRAWL:
        raise RuleError(f"a crawl covers at most 5 feet ({CRAWL:g} m) per Turn (seed 001 'Crawl'); got {distance:g} m")
    spend(draft, who, "crawl")
    draft.emit(ev.CombatantMoved(handle=who, distance=distance, reason=f"Crawl ({distance:g} m; at most 5 feet = {CRAWL:g} m)"))
    done(draft)


def climb(draft: Draft, who: str, arg: str) -> None:
    """Climb: next to a climbable surface, climb at the Base Movement Rate
    less the movement already used this Turn, only after a Walk; worn
    armour counts as 'Things' (light 1, heavy 2 per location). The seed
    gives no figure for how Things slow a climb: ruling ``climb_things``
    (``recorded``: noted only; ``as-swim``: the Swim penalty). Seed 001
    "Climb"."""
    c, walked, penalty, n, strength = _beside(draft, who, arg, "climb", "climbable", "climbable surface")
    if rulings_of(draft.state).climb_things == "recorded":
        penalty = 0.0
    distance = round(c.movement - walked - penalty, 2)
    if distance <= 0:
        raise RuleError(f"{c.name} carries {n} Things against STR {strength}: too burdened to climb (ruling climb_things)")
    _start(draft, who, "climb", walked, "climbable surface")
    how = f"{penalty:g} m off for Things over STR" if penalty else "not slowed (ruling climb_things: recorded)"
    draft.emit(ev.CombatantMoved(handle=who, distance=distance, reason=(
        f"Climb: {distance:g} m ({c.movement} m Base Movement Rate - {walked:g} m walked; "
        f"{n} Things carried, worn armour included: {how})")))
    done(draft)


def swim(draft: Draft, who: str, arg: str) -> None:
    """Swim: next to declared water, swim at the Base Movement Rate less
    the movement already used, at most the Movement Rate -1 for each
    'Thing' carried over STR (worn armour: light 1, heavy 2 per location;
    the unit by ruling ``swim_thing_unit``); "If total ENC reduces swim
    distance to 0 or less, the character automatically begins drowning"
    (seed 001 "Swim"). The Swim skill and Asphyxiation are not modelled."""
    c, walked, penalty, n, strength = _beside(draft, who, arg, "swim", "water", "water")
    speed = round(c.movement - penalty, 2)
    distance = round(min(c.movement - walked, speed), 2)
    _start(draft, who, "swim", walked, "water")
    if speed <= 0:
        draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
            "drowning", ends="event", effects={"things": n},
            note=f"{n} Things against STR {strength}: swim rate {speed:g} m, begins drowning (Asphyxiation: GM)",
            **at(draft))))
    else:
        draft.emit(ev.CombatantMoved(handle=who, distance=distance, reason=(
            f"Swim: {distance:g} m (rate {c.movement} m - {penalty:g} m for {max(0, n - strength)} Things over STR; "
            f"{walked:g} m walked)")))
    done(draft)


def jump_reach(height: float, n_things: int, *, standing: bool, vertical: bool) -> float:
    """The metres a successful Jump reaches: twice one's height across or
    half of it up with a 15-foot run-up, halved from standing, less half
    the Things in feet (seed 001 "Jump"); never below 0."""
    reach = height * (0.5 if vertical else 2.0) * (0.5 if standing else 1.0)
    return round(max(0.0, reach - n_things / 2 * FOOT), 2)


def _jump_args(arg: str) -> tuple[float, bool, bool, float | None]:
    words = tokens(arg.replace("run-up=", "run-up:").replace("runup=", "run-up:").replace("runup", "run-up"))
    run_up: float | None = None
    if "run-up" in words:
        i = words.index("run-up")
        if i + 1 >= len(words):
            raise RuleError("give the run-up in metres: 'jump:3 run-up=2'")
        run_up = metres(words.pop(i + 1), "the run-up")
        words.pop(i)
    standing = "standing" in words
    vertical = "up" in words or "vertical" in words
    rest = [w for w in words if w not in ("standing", "up", "vertical", "across")]
    if len(rest) != 1 or not _NUMBER.fullmatch(rest[0]):
        raise RuleError("jump needs the metres wanted: 'affray act WHO jump:3', 'jump:1.5 standing', 'jump:0.8 up'")
    wanted = metres(rest[0], "the jump")
    if wanted <= 0:
        raise RuleError("the jump must be more than 0 metres")
    return wanted, standing or (run_up is not None and run_up < RUN_UP), vertical, run_up


def jump(draft: Draft, who: str, arg: str) -> None:
    """Jump: an Athletics roll; a Success jumps up to twice one's height
    across or half one's height up with at least a 15-foot (4.5 m) run-up,
    halved from standing (or a shorter run-up); "Reduce the jump distance
    in feet by half the total 'Things' carried", worn armour 1 (light) or
    2 (heavy) per location. A Critical adds 5 feet (1.5 m) and lands
    upright; a Fumble lands awkwardly: an Endurance roll, Success 1 point
    to a leg, Failure 1d4 (seed 001 "Jump"). Height: the sheet's
    ``height``, else ruling ``default_height``; a plain success lands by
    ruling ``jump_landing``."""
    state = draft.state
    c = state.combatants[who]
    check_free_to_move(state, c, "jump")
    wanted, standing, vertical, run_up = _jump_args(arg)
    s = sheet_of(c)
    height = s.height or float(rulings_of(state).default_height)
    n = things(state, c)
    reach = jump_reach(height, n, standing=standing, vertical=vertical)
    way = "up" if vertical else "across"
    if wanted > reach + CRITICAL_BONUS:
        raise RuleError(f"{c.name} jumps at most {reach:g} m {way} ({reach + CRITICAL_BONUS:g} m on a critical): "
                        f"{wanted:g} m is out of reach (height {height:g} m, {n} Things; seed 001 'Jump')")
    spend(draft, who, f"jump {wanted:g} m {way}")
    athletics = s.skill("Athletics")
    how = "from standing" if standing else "with a run-up"
    t = test(draft, c, "Athletics", athletics, f"jump {wanted:g} m {way} {how} (reach {reach:g} m)",
             grade_modifiers(state, c, athletics, (), "both", combat=False))
    best = reach + (CRITICAL_BONUS if t.result == CRITICAL else 0)
    if is_success(t.result) and wanted <= best:
        what = f"Jump: clears {wanted:g} m {way} (reach {best:g} m{', critical: +5 feet' if t.result == CRITICAL else ''})"
        if vertical:
            draft.emit(ev.NoteAdded(text=f"{c.name} jumps {wanted:g} m up (reach {best:g} m)"))
        else:
            draft.emit(ev.CombatantMoved(handle=who, distance=wanted, reason=what))
        if t.result == SUCCESS and rulings_of(state).jump_landing == "prone":
            draft.emit(ev.StanceChanged(handle=who, stance="prone", reason="lands from the jump (ruling jump_landing: prone)"))
    elif is_success(t.result):
        draft.emit(ev.NoteAdded(text=f"{c.name} jumps only {best:g} m {way} and falls short of {wanted:g} m"))
    else:
        draft.emit(ev.NoteAdded(text=f"{c.name} fails to clear {wanted:g} m {way} (the Athletics roll failed)"))
    if t.result == FUMBLE:
        _awkward_landing(draft, who)
        return
    done(draft)


def _awkward_landing(draft: Draft, who: str) -> None:
    """A fumbled Jump: "landed awkwardly ... an Endurance roll. If the
    Endurance roll is a Success, 1 point of damage is sustained to one leg.
    If the Endurance test Fails, then 1d4" (seed 001 "Jump"). The leg by
    1D2 (1 right, 2 left); armour by ruling ``awkward_landing_armour``.
    The damage is step ``wounds:hurt``, then ``modes:landed``."""
    state = draft.state
    c = state.combatants[who]
    endurance = sheet_of(c).skill("Endurance")
    e = test(draft, c, "Endurance", endurance, "awkward landing (fumbled Jump)",
             grade_modifiers(state, c, endurance, (), "both", combat=False))
    amount = 1 if is_success(e.result) else draft.roll("1D4", "awkward landing damage", by=who).total
    leg = "right leg" if draft.roll("1D2", "which leg (1 right, 2 left)", by=who).total == 1 else "left leg"
    draft.then("wounds:hurt", handle=who, location=leg, amount=amount,
               ignore_armour=rulings_of(state).awkward_landing_armour == "ignored",
               base={"roll": e.roll, "skill": e.target},
               note=f"awkward landing from a fumbled Jump: {amount} to the {leg}", then="modes:landed")


def landed(draft: Draft, follow) -> None:
    """After an awkward landing's damage (step ``modes:landed``): the
    wound's Endurance roll, else the Jump is done."""
    if follow:
        draft.emit(ev.StepsAwaited(steps=tuple(follow)))
        return
    done(draft)


TURN_ACTIONS = {"climb": climb, "crawl": crawl, "jump": jump, "swim": swim}

__all__ = ["TURN_ACTIONS", "climb", "crawl", "jump", "jump_reach", "swim", "CRAWL", "RUN_UP"]
