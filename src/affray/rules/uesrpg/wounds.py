"""Physical health in uesrpg: HP, the Wound Threshold and wound effects
(seed 003 Step 4: "If the damage dealt after reduction exceeds the target's
Wound Threshold, the attack has also caused a wound"; rules-reference.md
D10-D12).

A wound calls for a Shock Test (Endurance, ruling ``shock_test``); by the
part struck: body, lose 1 AP (failing: crippled body); a limb, crippled
(failing: lost); the head, stunned 1 round instead (ruling ``head_wound``).
Then -20 on all tests and -2 initiative, and 0 HP after 5 rounds unless the
wound is treated. At 0 HP or less the combatant is out of the fight (ruling
``zero_hp``).
"""

from __future__ import annotations

from affray.events import core as ev
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.uesrpg import conditions as cat
from affray.rules.uesrpg import tables
from affray.rules.uesrpg.core import POOL, finish_exchange, grade, hp_left, luck_of, passed, rulings_of, sheet_of
from affray.rules.uesrpg.sheet import derive


def part_of(location: str) -> str:
    """body, limb or head (D12)."""
    row = next(r for r in tables.HIT_LOCATIONS if r.name == location)
    return "head" if row.limb == "head" else "limb" if row.limb else "body"


def wound_check(draft: Draft, target: str, location: str, final: int) -> None:
    """After damage: out of the fight at 0 HP or less; a wound when the
    damage after AR is greater than the Wound Threshold (D10), with its
    Shock Test as the next step; else the exchange ends."""
    state = draft.state
    c = state.combatants[target]
    sheet = sheet_of(c)
    wt = derive(sheet).wound_threshold
    if hp_left(c) <= 0 and c.status == "active":
        draft.emit(ev.StatusChanged(handle=target, status="unconscious", reason=f"HP at {hp_left(c)}, ruling zero_hp"))
    wounded = final > wt
    if wounded:
        draft.emit(ev.WoundInflicted(target=target, location=location, severity="wound",
                                     exchange=state.exchange.id if state.exchange else 0))
    c = draft.state.combatants[target]
    if wounded and c.can_fight:
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=target, verb="roll", kind="shock", exchange=state.exchange.id if state.exchange else 0,
            prompt=f"{c.name}: Shock Test (Endurance) for the wound to the {location} ({final} damage over WT {wt})",
            dice=(ev.DiceNeed(f"{c.name}: Shock Test", "1D100", by=target),), data={"location": location}),)))
        return
    finish_exchange(draft, f"{final} damage" + (" and a wound" if wounded else ""))


def roll_shock(draft: Draft, step: ev.PendingStep) -> None:
    """``affray roll`` on the Shock Test: an Endurance test with no modifier
    (ruling ``shock_test``), then the wound's effects by part struck and
    the lasting wound penalty and untreated-wound countdown (D12)."""
    state = draft.state
    handle, location = step.who, str(step.data["location"])
    c = state.combatants[handle]
    sheet = sheet_of(c)
    roll = draft.roll("1D100", f"{c.name}: Shock Test", by=handle).total
    lucky, unlucky = luck_of(c)
    t = grade(roll, sheet.characteristics.END, lucky, unlucky, rulings_of(state))
    draft.emit(ev.SkillTested(handle=handle, skill="Endurance", base=sheet.characteristics.END, target=t.tn, roll=roll,
                              result=t.result, purpose=f"Shock Test: wound to the {location}"))
    ok = passed(t.result)
    part = part_of(location)
    effect = tables.WOUND_EFFECTS[part]
    rnd, st = state.round, state.step
    if part == "body":
        if c.combat_actions > 0:
            draft.emit(ev.ActionSpent(handle=handle, kind="combat-action", reason="lost (body wound)"))
        if not ok:
            draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
                effect.on_fail, cause=draft.next_version, round=rnd, step=st, ends="never", location=location,
                note="failed Shock Test")))
    elif part == "limb":
        name = effect.effect if ok else effect.on_fail
        draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
            name, cause=draft.next_version, round=rnd, step=st, ends="never", location=location,
            note="Shock Test passed" if ok else "failed Shock Test")))
    else:
        draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
            "stunned", cause=draft.next_version, round=rnd, step=st, ends="event", effects={"stunned": 1},
            note="head wound: loses its next Turn and cannot defend until then")))
    stacks = rulings_of(state).wound_penalty_stacks == "yes"
    count = sum(1 for k in draft.state.combatants[handle].conditions if k.name == "wounded")
    if stacks or not count:
        draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
            "wounded", cause=draft.next_version, round=rnd, step=st, ends="never", key=str(count + 1) if stacks else "",
            effects={"penalty": -20, "initiative": -2}, note=f"wound to the {location}")))
    draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
        "untreated-wound", cause=draft.next_version, round=rnd, step=st, ends="rounds", count=5, location=location,
        note="0 HP after 5 rounds unless treated")))
    finish_exchange(draft, f"wound to the {location}")


def bleed_out(draft: Draft, handle: str, location: str) -> None:
    """An untreated wound's fifth round has ended: HP fall to 0 (D12)."""
    c = draft.state.combatants[handle]
    left = hp_left(c)
    if left > 0:
        draft.emit(ev.DamageDealt(exchange=0, target=handle, location=POOL, rolled=left, reduced=0, armour=0,
                                  final=left, note=f"{location}; untreated wound: HP fall to 0 after 5 rounds"))
    if c.status == "active":
        draft.emit(ev.StatusChanged(handle=handle, status="unconscious", reason=f"untreated wound to the {location}"))


def treat(draft: Draft, who: str, args: list[str]) -> None:
    """``affray act WHO treat TARGET [LOCATION]``: the GM rules a wound
    treated, which stops its countdown to 0 HP (D12: "unless treated");
    the healing itself is not modelled."""
    state = draft.state
    if not args:
        raise RuleError("name who is treated: affray act WHO treat TARGET [LOCATION]")
    target = find_combatant(state, args[0])
    t = state.combatants[target]
    where = " ".join(args[1:]).lower()
    wounds = [k for k in t.conditions if k.name == "untreated-wound" and (not where or k.location == where)]
    if not wounds:
        raise RuleError(f"{t.name} has no untreated wound{' to the ' + where if where else ''}")
    for k in wounds:
        draft.emit(ev.ConditionExpired(handle=target, condition_id=k.id,
                                       reason=f"treated by {state.combatants[who].name if who in state.combatants else 'the GM'}"))
