"""Impaling in mrq1: the choice after an impaling critical, yanking the
weapon free, and the impaled enemy.

Source: seed 004 "Impaling Close Combat Attacks" (Yanking, Impaled
Enemies).

Steps: ``impaling:offer`` (queued by the damage roll, :mod:`.damage`),
``choose:impale``, ``roll:yank``, ``roll:yank-damage`` and
``impaling:stuck``.
"""

from __future__ import annotations

from affray import dice as dicelib
from affray.events import core as ev
from affray.events.mrq1 import ImpaleChosen
from affray.projections.state import Combatant
from affray.rules.base import Draft
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1.core import carry_on, find_weapon, skill, test, test_modifiers
from affray.rules.mrq1.sheet import Weapon


def impale_offer(draft: Draft, a: Combatant, t: Combatant, weapon: Weapon, location: str, exchange: int,
                 follow: list[ev.PendingStep]) -> None:
    """The step ``impaling:offer``: an impaling weapon's critical that did
    damage to a target still alive: the attacker chooses to yank it free or
    leave it in (seed 004 "Impaling Close Combat Attacks"); the choice is
    added to ``follow``."""
    if draft.state.combatants[t.handle].status == "dead":
        return
    follow.append(ev.PendingStep(
        who=a.handle,
        verb="choose",
        kind="impale",
        prompt=f"{a.name}: {weapon.name} impales {t.name}'s {location}: yank | leave",
        options=("yank", "leave"),
        exchange=exchange,
        data={"location": location},
    ))


def choose_impale(draft: Draft, step: ev.PendingStep, option: str, rest: tuple[ev.PendingStep, ...]) -> None:
    """The step ``choose:impale``: ``yank|leave`` after an impaling critical (seed 004 "Impaling Close
    Combat Attacks"): leave the weapon in the enemy, or try to yank it."""
    who = step.who
    c = draft.state.combatants[who]
    x = draft.state.exchange
    assert x is not None
    location = str(step.data["location"])
    draft.emit(
        ImpaleChosen(exchange=x.id, attacker=who, target=x.target, weapon=x.weapon, location=location, choice=option)
    )
    if option == "leave":
        impale(draft, who, x.target, x.weapon, location)
        carry_on(draft, rest, f"{c.name} leaves the {x.weapon} in")
        return
    yank = ev.PendingStep(
        who=who,
        verb="roll",
        kind="yank",
        prompt=f"{c.name}: Athletics test to yank the {x.weapon} free (then damage: weapon dice on success, 1D4 on failure)",
        dice=(ev.DiceNeed("Athletics (yank)", "1D100", by=who),),
        exchange=x.id,
        data={"location": location},
    )
    carry_on(draft, (yank,) + rest, f"{c.name} yanks")


def roll_yank(draft: Draft, step: ev.PendingStep, rest: tuple[ev.PendingStep, ...]) -> None:
    """The step ``roll:yank``. Seed 004 "Yanking": a brute force Athletics test. Success: normal
    weapon damage again to the same location, and the weapon is free;
    failure: 1D4 damage to the location and the weapon stays stuck. The
    damage is its own roll step, since its dice depend on the test."""
    x = draft.state.exchange
    assert x is not None
    a = draft.state.combatants[x.attacker]
    location = str(step.data["location"])
    weapon = find_weapon(a, x.weapon, ready_only=False)
    tested = test(draft, a, "Athletics", skill(a, "Athletics"), test_modifiers(a, "Athletics"), f"Athletics: yank {weapon.name} free")
    freed = tested.result in ("success", "critical")
    expr = str(dicelib.parse(weapon.damage)) if freed else "1D4"
    what = f"{weapon.name} damage as it comes free" if freed else "1D4 damage, the weapon stays stuck"
    after = ev.PendingStep(
        who=a.handle,
        verb="roll",
        kind="yank-damage",
        prompt=f"{a.name}: roll {expr} ({what}) to the {location}",
        dice=(ev.DiceNeed(what, expr, by=a.handle),),
        exchange=x.id,
        data={"location": location, "freed": int(freed)},
    )
    carry_on(draft, (after,) + rest, "")


def roll_yank_damage(draft: Draft, step: ev.PendingStep, rest: tuple[ev.PendingStep, ...]) -> None:
    """The step ``roll:yank-damage``: the yank's damage (seed 004
    "Yanking"); a weapon still stuck leaves its victim impaled
    (``impaling:stuck``, after the wound)."""
    x = draft.state.exchange
    assert x is not None
    a, t = draft.state.combatants[x.attacker], draft.state.combatants[x.target]
    location = str(step.data["location"])
    freed = bool(step.data["freed"])
    need = step.dice[0]
    amount = draft.roll(need.expr, need.purpose, by=a.handle).total
    note = "yanked free" if freed else "stuck"
    # the weapon is already past the armour: no AP is deducted
    draft.emit(
        ev.DamageDealt(
            exchange=x.id, target=t.handle, location=location, rolled=amount, reduced=0, armour=0, final=amount, note=note
        )
    )
    follow: list[ev.PendingStep] = []
    if amount:
        draft.then("wounds:wound", handle=t.handle, location=location, exchange=x.id, follow=follow)
    if not freed:
        draft.then("impaling:stuck", attacker=a.handle, target=t.handle, weapon=x.weapon, location=location)
    draft.then("exchange:carry-on", steps=rest, follow=follow, summary=f"{a.name}'s {x.weapon} {note}")


def impale(draft: Draft, attacker: str, target: str, weapon: str, location: str) -> None:
    """Seed 004 "Impaled Enemies": −20% to all skill tests, cumulative; the
    attacker no longer holds the weapon (a ranged weapon's missile is left
    in, ruling ``ranged_impale``: the shooter keeps his bow). Also the step
    ``impaling:stuck``."""
    t = draft.state.combatants[target]
    ranged = find_weapon(draft.state.combatants[attacker], weapon, ready_only=False).kind == "ranged"
    n = sum(1 for c in t.conditions if c.name == "impaled") + 1
    draft.emit(
        ev.ConditionApplied(
            handle=target,
            condition=cat.make(
                "impaled",
                cause=draft.next_version,
                round=draft.state.round,
                step=draft.state.step,
                ends="event",
                effects={"penalty": -20},
                location=location,
                stacks=True,
                suffix=f"{location}:{n}",
                note=f"{draft.state.combatants[attacker].name}'s {weapon}",
            ),
        )
    )
    if not ranged:
        draft.emit(ev.WeaponDropped(handle=attacker, weapon=weapon, reason=f"left impaled in {t.name}'s {location}"))
