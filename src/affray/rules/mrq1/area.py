"""Area effects and Dive in mrq1.

Source: seed 004 "Dive"; rulings ``dive_half_rounding``,
``area_damage_armour``.

The GM lets an area effect loose between actions (``affray act gm area
DAMAGE on=A,B``); each target may Dive (``affray react WHO dive|none``);
then the GM rolls the damage once and a location for each target.

Steps: ``gm:area`` (:func:`area_effect`), ``react:dive``, ``roll:area-damage``
and ``area:target`` (each target's location and damage, then its wound).
"""

from __future__ import annotations

from affray import dice as dicelib
from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.projections.state import State
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.mrq1.core import (
    USAGE,
    Spec,
    break_aim,
    condition_modifiers,
    dismount,
    limb_check,
    location_for,
    mount_of,
    note,
    rulings_of,
    skill,
    split,
    test,
)


def area_effect(draft: Draft, spec: Spec) -> None:
    """The step ``gm:area``, ``affray act gm area DAMAGE on=A,B [name=NAME]``: an area effect hits
    each target; each may Dive (a Reaction: a Dodge test halves the damage,
    a critical avoids it all, and the diver ends prone), then the damage is
    rolled once and a location for each target."""
    state = draft.state
    if state.phase != "round" or state.exchange is not None or any(s.kind != "turn" for s in state.pending):
        raise RuleError("an area effect comes between actions in a round; finish what is pending first")
    if not spec.args:
        raise RuleError(f"how much damage? {USAGE['area']}")
    damage = spec.args[0]
    try:
        damage = str(dicelib.parse(damage))
    except ValueError as exc:
        raise RuleError(f"area damage {spec.args[0]!r}: {exc}") from None
    targets = [find_combatant(state, h) for h in split(spec.get("on"))]
    if not targets:
        raise RuleError(f"whom does it hit? {USAGE['area']}")
    name = spec.get("name") or "area effect"
    draft.emit(ev_mrq1.AreaEffect(name=name, damage=damage, targets=tuple(targets)))
    steps = []
    for h in targets:
        c = state.combatants[h]
        why = _cannot_dive(state, h)
        if why:
            note(draft, h, "dive", f"{c.name} cannot dive ({why})")
            continue
        steps.append(
            ev.PendingStep(
                who=h, verb="react", kind="dive",
                prompt=f"{c.name}: dive for cover from the {name} (Dodge test, costs a reaction; ends prone): dive | none",
                options=("dive", "none"),
                dice=(ev.DiceNeed(f"{c.name}'s dive (Dodge)", "1D100", by=h),),
            )
        )
    steps.append(_area_step(name, damage, targets, {}))
    draft.emit(ev.StepsAwaited(steps=tuple(steps)))


def _cannot_dive(state: State, handle: str) -> str:
    """Why ``handle`` may not Dive ("" when he may). Seed 004 "Dive":
    "Helpless characters may not dive ... A prone character may not dive";
    a Dive is a Reaction ("Reactions"), so not without one left, not while
    grappling ("Grappling combatants may not use Reactions"), and not by a
    surprised character who has not acted yet ("Gaining Surprise": he "may
    only use Reactions against actions that occur after his own Strike
    Rank"; an area effect has no attacker's Strike Rank to compare, so
    under either ``surprise_reactions`` ruling his own first action must
    have come)."""
    c = state.combatants[handle]
    if c.status != "active" or c.effect("helpless"):
        return "helpless"
    if c.stance == "prone":
        return "already prone"
    if c.reactions <= 0:
        return "no reactions left"
    if c.effect("grappling"):
        return "grappling: no Reactions"
    if c.effect("no-reactions") and c.actions_taken == 0:
        return "surprised and has not acted yet"
    return ""


def _area_step(name: str, damage: str, targets: list[str], results: dict[str, str]) -> ev.PendingStep:
    dice = [ev.DiceNeed(f"{name} damage", damage, by="GM")] + [ev.DiceNeed(f"hit location: {h}", "1D20", by="GM") for h in targets]
    return ev.PendingStep(
        who="GM", verb="roll", kind="area-damage",
        prompt=f"GM: roll the {name}'s damage {damage} and a location for each of {', '.join(targets)}",
        dice=tuple(dice),
        data={"name": name, "damage": damage, "targets": ",".join(targets), **{f"dive:{k}": v for k, v in results.items()}},
    )


def dive(draft: Draft, step: ev.PendingStep, reaction: str) -> None:
    """The step ``react:dive``, ``affray react WHO dive|none`` against an area effect: a Dodge test
    (half damage; a critical avoids it all); the diver ends prone, and a
    rider dives at -30% and is dismounted (seed 004 "Dive", "Penalties")."""
    state = draft.state
    who = step.who
    c = state.combatants[who]
    rest = [s for s in state.pending if s is not step]
    area = next(s for s in rest if s.kind == "area-damage")
    result = "none"
    if reaction == "dive":
        draft.emit(ev.ActionSpent(handle=who, kind="reaction", reason="dive"))
        break_aim(draft, who, "dives")
        mods = condition_modifiers(c, reaction=True, mobility=True) + limb_check(c, "Dodge")
        riding = mount_of(c)
        if riding:  # seed 004 "Dive": a rider may dive at -30% to Dodge, and is dismounted
            mods = list(mods) + [ev.Modifier(-30, "diving from the saddle")]
        tested = test(draft, c, "Dodge", skill(c, "Dodge"), mods, f"dive from the {area.data['name']}")
        result = {"critical": "all", "success": "half"}.get(tested.result, "failed")
        if riding:
            dismount(draft, who, "dives from the saddle")
        draft.emit(ev.StanceChanged(handle=who, stance="prone", reason="dived"))
    else:
        note(draft, who, "dive", f"{c.name} does not dive")
    data = dict(area.data)
    data[f"dive:{who}"] = result
    new_area = ev.PendingStep(who=area.who, verb=area.verb, kind=area.kind, prompt=area.prompt, dice=area.dice, data=data)
    draft.emit(ev.StepsAwaited(steps=tuple(new_area if s is area else s for s in rest)))


def roll_area(draft: Draft, step: ev.PendingStep, rest) -> None:
    """The step ``roll:area-damage``: the GM rolls the damage once, then
    each target in turn (``area:target``); once every target has dived or
    not (seed 004 "Dive")."""
    if any(s.kind == "dive" for s in rest):
        raise RuleError("every target must first dive or not: " + "; ".join(s.prompt for s in rest if s.kind == "dive"))
    name = str(step.data["name"])
    amount = draft.roll(str(step.data["damage"]), f"{name} damage", by="GM").total
    follow: list[ev.PendingStep] = []
    for h in str(step.data["targets"]).split(","):
        draft.then("area:target", step=step, handle=h, amount=amount, follow=follow)
    draft.then("exchange:carry-on", steps=rest, follow=follow, summary=f"the {name} is over")


def area_target(draft: Draft, step: ev.PendingStep, handle: str, amount: int, follow: list[ev.PendingStep]) -> None:
    """The step ``area:target``: the hit location of one target of an area
    effect, its damage (halved or avoided by a dive: rulings
    ``dive_half_rounding``, ``area_damage_armour``) and its wound."""
    rulings = rulings_of(draft.state)
    name = str(step.data["name"])
    h = handle
    d20 = draft.roll("1D20", f"hit location: {h}", by="GM").total
    c = draft.state.combatants[h]
    if c.status == "dead":
        return
    dive_result = str(step.data.get(f"dive:{h}", "none"))
    rolled = amount
    if dive_result == "half":
        rolled = amount // 2 if rulings.dive_half_rounding == "down" else -(-amount // 2)
    elif dive_result == "all":
        rolled = 0
    location = location_for(c, d20)
    loc = c.location(location)
    armour = min(rolled, loc.ap) if rulings.area_damage_armour else 0
    draft.emit(ev.DamageDealt(exchange=0, target=h, location=location, rolled=rolled, reduced=0, armour=armour,
                              final=rolled - armour,
                              note=f"{name}; d20={d20}" + {"half": "; dived: halved", "all": "; dived: avoided"}.get(dive_result, "")))
    if rolled - armour > 0:
        draft.then("wounds:wound", handle=h, location=location, exchange=0, follow=follow)
