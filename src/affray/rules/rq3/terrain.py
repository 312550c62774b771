"""Combat movement in unreliable terrain (seed 002 "COMBAT MOVEMENT IN
UNRELIABLE TERRAIN", crossing fallen bodies, "Jump or Acrobatics").

``affray act WHO move VERB ... terrain=KIND [moves=N]`` takes the terrain
tests before the move: KIND is ``clear`` (none), ``restricted`` (a test
for each move beyond the unmodified rate), ``difficult`` (DEX x5 or
Maneuver for each move of the rate), ``very-difficult`` (DEX x3 or
Maneuver), ``body`` (crossing a dead or unconscious body, or a conscious
fallen friend: one Difficult test) or ``bodies`` (stacked bodies, or a
conscious fallen foe: one Very Difficult test). N is the number of moves
of the unmodified rate (default: the declared moves). Each test uses the
better of Maneuver and DEX xN (ruling ``terrain_test``).

``over=jump`` or ``over=acrobatics``: the feature is narrow enough to be
cleared by a single Jump or Acrobatics attempt, which replaces the tests
(one roll, same results; ruling ``jump_terrain``). A feature too wide for
one attempt takes the usual tests ("at the completion of the Jump or
flip"); the jump's own roll is then the GM's.

Results: fumble, the character falls, loses its remaining actions and
takes 1D6 falling damage to a random location; failure, it falls; special,
+10% to all attacks and defences this round; critical, +20%. A fall may be
negated by Acrobatics or Breakfall (:mod:`affray.rules.rq3.fallen`).
"""

from __future__ import annotations

from affray.events import core as ev
from affray.rules.base import Draft, RuleError
from affray.rules.rq3 import core, tables

KINDS = ("clear", "restricted", "difficult", "very-difficult", "body", "bodies")
#: ``over=jump|acrobatics``: the feature is narrow enough for one Jump or
#: Acrobatics attempt to clear it (seed 002 "Jump or Acrobatics skill").
OVER = ("jump", "acrobatics")


def start(draft: Draft, handle: str, words: list[str]) -> None:
    """Split ``terrain=``/``moves=`` off a move and take the tests first."""
    state = draft.state
    core.expect(state, ("move",), handle, "move")
    c = state.combatants[handle]
    kind, moves, rest, over = "clear", 0, [], ""
    for w in words:
        if w.lower().startswith("over="):
            over = w.split("=", 1)[1].lower()
            if over not in OVER:
                raise RuleError(f"over= takes {' or '.join(OVER)} (clearing a narrow feature in one attempt), not {over!r}")
        elif w.lower().startswith("terrain="):
            kind = w.split("=", 1)[1].lower()
        elif w.lower().startswith("moves="):
            value = w.split("=", 1)[1]
            if not value.isdigit() or not 1 <= int(value) <= 3:
                raise RuleError(f"moves= takes 1, 2 or 3 (moves of the unmodified rate), not {value!r}")
            moves = int(value)
        else:
            rest.append(w)
    if kind not in KINDS:
        raise RuleError(f"unknown terrain {kind!r}; use one of: {', '.join(KINDS)}")
    declared = core.intent_of(c).effects.get("moves", 1) if core.intent_of(c) else 1
    moves = moves or declared
    if moves > declared:
        raise RuleError(f"{c.name} declared {declared} move{'s' if declared > 1 else ''}, not {moves}")
    tests = {"clear": 0, "restricted": max(0, moves - 1), "difficult": moves, "very-difficult": moves,
             "body": 1, "bodies": 1}[kind]
    then = "act:map-move" if core.on_map(state) else "act:move"
    if over and tests == 0:
        raise RuleError(f"{kind} terrain needs no test to cross; drop over={over}")
    if tests == 0:
        draft.then(then, who=handle, words=rest or (["done"] if then == "act:map-move" else []))
        return
    if over:
        tests = 1  # seed 002: a narrow feature "cleared by the distance covered by a single Jump or Acrobatics attempt"
    _step(draft, handle, kind, tests, " ".join(rest), over)


def _row(kind: str):
    return tables.TERRAIN[{"body": "difficult", "bodies": "very-difficult"}.get(kind, kind)]


def _step(draft: Draft, handle: str, kind: str, left: int, words: str, over: str = "") -> None:
    c = draft.state.combatants[handle]
    row = _row(kind)
    data = {"terrain": kind, "left": left, "words": words}
    test = f"Maneuver or DEX x{row.dex} ({left} test{'s' if left > 1 else ''})"
    if over:
        data["over"] = over
        test = f"{over.capitalize()} over the narrow feature"
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=handle, verb="roll", kind="terrain", data=data,
        dice=(ev.DiceNeed(f"terrain ({kind}): {c.name}", "1D100", by=handle),),
        prompt=f"{c.name} moves through {kind} terrain: {test}: affray roll"),)))


def roll(draft: Draft, step: ev.PendingStep) -> None:
    """One terrain test and its result."""
    handle = step.who
    c = draft.state.combatants[handle]
    kind, left, words = str(step.data["terrain"]), int(step.data["left"]), str(step.data["words"])
    row = _row(kind)
    dex = core.sheet_of(c).characteristics.DEX * row.dex
    maneuver = core.skill_of(c, "Maneuver")
    name, value = ("Maneuver", maneuver) if maneuver >= dex else (f"DEX x{row.dex}", dex)
    over = str(step.data.get("over", ""))
    if over:
        # seed 002: "Jump or Acrobatics skill can be used ... instead of Maneuver skill or a DEX roll"
        name = over.capitalize()
        value = core.skill_of(c, name)
    level = core.test(draft, handle, name, value, purpose=f"terrain ({kind}): {c.name}")
    if level in ("special", "critical"):
        core.condition(draft, handle, "terrain-advantage", effects={"bonus": 10 if level == "special" else 20},
                       note=f"used the {kind} terrain ({level})")
    if level in ("fumble", "failure"):
        draft.emit(ev.StanceChanged(handle=handle, stance="prone", reason=f"fell in {kind} terrain"))
        # seed 002 "FALLEN CHARACTERS": a fall in a Move Phase: standing again in the next movement phase
        core.condition(draft, handle, "fallen-this-round", effects={"in-move-phase": 1}, note=f"fell in {kind} terrain")
        if level == "fumble":
            for d in core.declared(c):
                if not d.used and not d.abort:
                    core.abort_events(draft, handle, d, "plain", "")
            draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
                who=handle, verb="roll", kind="fall", dice=(ev.DiceNeed(f"hit location: {c.name} falls", "1D20", by=handle),
                                                            ev.DiceNeed(f"falling damage: {c.name}", "1D6", by=handle)),
                prompt=f"{c.name} fumbled and falls: 1D6 falling damage: affray roll"),)))
            return
        _after_fall(draft, handle)
        return
    if left > 1:
        _step(draft, handle, kind, left - 1, words)
        return
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(who=handle, verb="act", kind="move", options=("stay",),
                                                     prompt=f"{c.name} moves on: {words}"),)))
    draft.then("act:map-move" if core.on_map(draft.state) else "act:move", who=handle, words=words.split())


def after_fall(draft: Draft, handle: str) -> None:
    """After a fall in a Move Phase: the Acrobatics or Breakfall roll, if
    the character has the skill, else the move ends."""
    _after_fall(draft, handle)


def _after_fall(draft: Draft, handle: str) -> None:
    step = core.breakfall_step(draft.state, handle, "move")
    if step is not None:
        draft.emit(ev.StepsAwaited(steps=(step,)))
        return
    core.condition(draft, handle, "moved", note="fell")
    draft.hand_over()


def roll_fall(draft: Draft, step: ev.PendingStep) -> None:
    """1D6 falling damage to a random location after a fumbled terrain
    test (armour counts: ruling ``terrain_test``)."""
    handle = step.who
    c = draft.state.combatants[handle]
    d20 = draft.roll("1D20", step.dice[0].purpose, by=handle).total
    location = tables.hit_location(d20)
    amount = draft.roll("1D6", step.dice[1].purpose, by=handle).total
    armour = min(amount, c.location(location).ap)
    draft.emit(ev.DamageDealt(exchange=0, target=handle, location=location, rolled=amount, reduced=0, armour=armour,
                              final=amount - armour, note=f"fell in unreliable terrain; d20={d20}"))
    draft.then("wounds", target=handle, location=location, final=amount - armour)
    draft.then("terrain:after-fall", handle=handle)
