"""Knockback and Giving Ground in mrq1: a blow that moves its target.

Source: seed 004 "Knockback" (and its wall, and a rider's mount's SIZ),
"Giving Ground"; ruling ``knockback_after_parry``.

Steps: ``knockback:blow`` and ``knockback:give-ground`` (queued by the
damage roll, :mod:`.damage`), ``roll:knockback``, ``roll:wall-damage`` and
``choose:give-ground``.
"""

from __future__ import annotations

from affray.events import core as ev
from affray.events.mrq1 import GiveGroundChosen
from affray.projections.state import Combatant
from affray.rules.base import Draft
from affray.rules.mrq1 import tables
from affray.rules.mrq1.core import (
    carry_on,
    condition_modifiers,
    dismount,
    location_for,
    mount_of,
    movement_of,
    rulings_of,
    sheet_of,
    skill,
    test,
    test_modifiers,
)


def knockback_siz(draft: Draft, handle: str, siz: int, damage: int) -> int:
    """The SIZ knockback is measured against (seed 004 "Knockback"): a
    mounted character adds his mount's SIZ on a successful Riding test; on a
    failure his own SIZ counts and any knockback unhorses him (prone)."""
    c = draft.state.combatants[handle]
    m = mount_of(c)
    if not m or damage <= siz:
        return siz
    tested = test(draft, c, "Riding", skill(c, "Riding"), condition_modifiers(c), "Riding: stay mounted against knockback")
    if tested.result in ("success", "critical"):
        return siz + sheet_of(draft.state.combatants[m]).characteristics.SIZ
    dismount(draft, handle, "knocked off his mount")
    if c.stance != "prone":
        draft.emit(ev.StanceChanged(handle=handle, stance="prone", reason="knocked off his mount"))
    return siz


def knockback(draft: Draft, a: Combatant, t: Combatant, rolled: int, after_parry: int, *, charge: bool, wall: bool,
              exchange: int, follow: list[ev.PendingStep]) -> None:
    """The step ``knockback:blow``. Seed 004 "Knockback": after reactions,
    before armour, damage beyond the target's SIZ knocks him back (doubled
    by a Charge; a rider adds his mount's SIZ); he moves away and makes an
    Acrobatics test or falls prone (into a wall: a Dodge test too, or 1D4
    damage). The step for the tests is added to ``follow``."""
    siz = sheet_of(t).characteristics.SIZ
    kb_damage = after_parry if rulings_of(draft.state).knockback_after_parry else rolled
    siz = knockback_siz(draft, t.handle, siz, kb_damage)  # a rider adds his mount's SIZ (seed 004 Knockback)
    metres = tables.knockback_metres(kb_damage, siz, charge=charge)
    if not (metres and t.status == "active"):
        return
    draft.emit(ev.CombatantMoved(handle=t.handle, distance=float(metres), reason="knockback", away_from=a.handle))
    if t.handle in a.engaged:
        draft.emit(ev.EngagementChanged(a=a.handle, b=t.handle, engaged=False))
    follow.append(ev.PendingStep(
        who=t.handle,
        verb="roll",
        kind="knockback",
        prompt=f"{t.name}: knocked back {metres} m; Acrobatics test or fall prone"
        + ("; into a wall: Dodge test or 1D4 damage" if wall else ""),
        dice=(ev.DiceNeed("Acrobatics (knockback)", "1D100", by=t.handle),)
        + ((ev.DiceNeed("Dodge (knocked into a wall)", "1D100", by=t.handle),) if wall else ()),
        exchange=exchange,
        data={"wall": 1} if wall else {},
    ))


def roll_knockback(draft: Draft, step: ev.PendingStep, rest: tuple[ev.PendingStep, ...]) -> None:
    """The step ``roll:knockback``: the knocked-back target's Acrobatics test, or he falls prone (seed
    004 "Knockback")."""
    handle = step.who
    c = draft.state.combatants[handle]
    tested = test(draft, c, "Acrobatics", skill(c, "Acrobatics"), test_modifiers(c, "Acrobatics"), "Acrobatics against knockback")
    if tested.result not in ("success", "critical") and c.stance != "prone":
        draft.emit(ev.StanceChanged(handle=handle, stance="prone", reason="knockback"))
    if step.data.get("wall"):
        # Seed 004 "Knockback": knocked back into a wall or other solid
        # object, a Dodge test or 1D4 damage to a random hit location.
        dodged = test(draft, c, "Dodge", skill(c, "Dodge"), test_modifiers(c, "Dodge"), "Dodge: knocked into a wall")
        if dodged.result not in ("success", "critical"):
            slam = ev.PendingStep(
                who=handle, verb="roll", kind="wall-damage",
                prompt=f"{c.name} slams into the wall: roll 1D4 damage and a random hit location 1D20",
                dice=(ev.DiceNeed("slam into the wall", "1D4", by=handle), ev.DiceNeed("hit location", "1D20", by=handle)),
                exchange=step.exchange,
            )
            rest = (slam,) + tuple(rest)
    carry_on(draft, rest, f"{c.name} is knocked back")


def roll_wall(draft: Draft, step: ev.PendingStep, rest: tuple[ev.PendingStep, ...]) -> None:
    """The step ``roll:wall-damage``: 1D4 damage to a random location from a wall (seed 004 "Knockback");
    armour absorbs it as any other damage."""
    handle = step.who
    c = draft.state.combatants[handle]
    amount = draft.roll("1D4", "slam into the wall", by=handle).total
    d20 = draft.roll("1D20", "hit location", by=handle).total
    location = location_for(c, d20)
    armour = min(amount, c.location(location).ap)
    draft.emit(
        ev.DamageDealt(
            exchange=step.exchange, target=handle, location=location, rolled=amount, reduced=0, armour=armour,
            final=amount - armour, note=f"slammed into a wall; d20={d20}",
        )
    )
    follow: list[ev.PendingStep] = []
    if amount - armour > 0:
        draft.then("wounds:wound", handle=handle, location=location, exchange=step.exchange, follow=follow)
    draft.then("exchange:carry-on", steps=rest, follow=follow, summary=f"{c.name} slams into the wall")


def give_ground(draft: Draft, attacker: str, defender: str, follow: list[ev.PendingStep]) -> None:
    """The step ``knockback:give-ground``. Seed 004 "Giving Ground": the
    defender retreats his Movement directly away; the attacker may follow
    and stay adjacent, or stay (his choice is added to ``follow``)."""
    d = draft.state.combatants[defender]
    a = draft.state.combatants[attacker]
    metres = movement_of(draft.state, defender)  # a rider moves at his mount's Movement (seed 004)
    if d.status == "active":
        draft.emit(ev.CombatantMoved(handle=defender, distance=float(metres), reason="gives ground", away_from=attacker))
    follow.append(ev.PendingStep(
        who=attacker,
        verb="choose",
        kind="give-ground",
        prompt=f"{a.name}: {d.name} gives ground {metres} m: follow | stay",
        options=("follow", "stay"),
        exchange=draft.state.exchange.id if draft.state.exchange else 0,
    ))


def choose_give_ground(draft: Draft, step: ev.PendingStep, option: str, rest: tuple[ev.PendingStep, ...]) -> None:
    """The step ``choose:give-ground``: ``follow|stay`` when the defender gives ground (seed 004 "Giving
    Ground"): the attacker follows and stays adjacent, or stays."""
    state = draft.state
    who = step.who
    c = state.combatants[who]
    x = state.exchange
    assert x is not None
    follow = option == "follow"
    draft.emit(GiveGroundChosen(exchange=x.id, attacker=who, defender=x.target, follow=follow))
    d = state.combatants[x.target]
    if follow:
        draft.emit(ev.CombatantMoved(handle=who, distance=float(d.movement), reason="follows up"))
    elif x.target in c.engaged:
        draft.emit(ev.EngagementChanged(a=who, b=x.target, engaged=False))
    carry_on(draft, rest, f"{c.name} {'follows' if follow else 'stays'}")
