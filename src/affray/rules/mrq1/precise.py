"""Precise attacks that do not wound: Disarm and Strike Weapon / Shield.

Source: seed 004 "Precise Attack" > "Disarm" (on a hit no damage; an
opposed Weapon skill test, +20% to a side using a weapon in two hands; the
attacker winning sends the weapon 1D6-1 metres, 0 at the defender's feet)
and "Strike Weapon / Shield" (the damage goes to the held item; "the rules
for attacking inanimate objects" are not in our sources: our ruling is that
the item's AP absorbs damage as armour does and the rest comes off its HP;
at 0 HP it is broken and dropped). Bypass Armour and Location Strike are
read by the damage step (:mod:`affray.rules.mrq1.damage`).

Steps: ``precise:queue`` (queued by ``damage:queue`` instead of the damage
roll), ``roll:disarm`` and ``roll:item-damage``.
"""

from __future__ import annotations

from msgspec.structs import replace

from affray import dice as dicelib
from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.rules.d100 import roll_damage_modifier
from affray.rules.base import Draft
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1 import tables
from affray.rules.mrq1.core import (
    carry_on,
    damage_plan,
    find_weapon,
    opposed,
    rulings_of,
    test,
    test_modifiers,
    weapon_part,
)


def queue(draft: Draft, precise: str) -> None:
    """The step ``precise:queue``: await the step after a precise attack's
    hit that is not a wound (a Disarm's opposed tests, or the damage to the
    item struck)."""
    x = draft.state.exchange
    assert x is not None
    a, t = draft.state.combatants[x.attacker], draft.state.combatants[x.target]
    what, _, item = precise.partition(":")
    if what == "disarm":
        step = ev.PendingStep(
            who=a.handle, verb="roll", kind="disarm",
            prompt=f"{a.name}: opposed Weapon skill tests to disarm {t.name} of {item} (then 1D6-1 m if it flies)",
            dice=(
                ev.DiceNeed(f"{a.name}'s {x.weapon} (disarm)", "1D100", by=a.handle),
                ev.DiceNeed(f"{t.name}'s {item} (keep hold)", "1D100", by=t.handle),
                ev.DiceNeed("metres the weapon flies (1D6-1)", "1D6", by=a.handle),
            ),
            exchange=x.id, data={"item": item},
        )
    else:
        weapon_dice, modifier, mode, _ = damage_plan(draft)
        needs = []
        if mode == "roll":
            needs.append(ev.DiceNeed(f"{x.weapon} damage", str(dicelib.parse(weapon_dice)), by=a.handle))
        if modifier and dicelib.count_dice(modifier):
            needs.append(ev.DiceNeed("damage modifier", str(dicelib.parse(modifier.lstrip("+-"))), by=a.handle))
        step = ev.PendingStep(
            who=a.handle, verb="roll", kind="item-damage",
            prompt=f"{a.name}: roll damage {dicelib.combine(weapon_dice, modifier)} against {t.name}'s {item}",
            dice=tuple(needs), exchange=x.id, data={"item": item},
        )
    draft.emit(ev.StepsAwaited(steps=(step,)))


def _two_handed(c, weapon_name: str) -> list[ev.Modifier]:
    w = find_weapon(c, weapon_name, ready_only=False)
    if w.hands >= 2:
        m = tables.COMBAT_MODIFIERS["disarm-two-handed"]
        return [ev.Modifier(m.value, "weapon in two hands")]
    return []


def roll_disarm(draft: Draft, step: ev.PendingStep, rest) -> None:
    """The step ``roll:disarm``: the opposed Weapon skill tests of a Disarm,
    and where the weapon flies (seed 004 "Disarm")."""
    x = draft.state.exchange
    assert x is not None
    a, t = draft.state.combatants[x.attacker], draft.state.combatants[x.target]
    item = str(step.data["item"])
    aw = find_weapon(a, x.weapon, ready_only=False)
    dw = find_weapon(t, item, ready_only=False)
    at = test(draft, a, aw.name, aw.skill, test_modifiers(a, aw.name, combat=True) + _two_handed(a, aw.name), f"disarm {t.name}")
    dt = test(draft, t, dw.name, dw.skill, test_modifiers(t, dw.name, combat=True) + _two_handed(t, dw.name), f"keep hold of {dw.name}")
    d6 = draft.roll("1D6", "metres the weapon flies (1D6-1)", by=a.handle).total
    winner = opposed(at, dt, rulings_of(draft.state).opposed_ties)
    if winner == "a":
        metres = d6 - 1
        where = "at the defender's feet" if metres == 0 else f"flies {metres} m in a random direction"
        draft.emit(ev.WeaponDropped(handle=t.handle, weapon=dw.name, reason=f"disarmed: {where}"))
        summary = f"{a.name} disarms {t.name}"
    else:
        draft.emit(ev.NoteAdded(text=f"{t.name} keeps hold of the {dw.name}"))
        summary = f"{t.name} is not disarmed"
    draft.emit(ev_mrq1.ActionTaken(handle=a.handle, action="disarm", text=summary))
    carry_on(draft, rest, summary)


def roll_item_damage(draft: Draft, step: ev.PendingStep, rest) -> None:
    """The step ``roll:item-damage``: Strike Weapon / Shield's damage to the
    item (our ruling: AP absorbs, the rest comes off its HP; broken at 0)."""
    x = draft.state.exchange
    assert x is not None
    a, t = draft.state.combatants[x.attacker], draft.state.combatants[x.target]
    item = find_weapon(t, str(step.data["item"]), ready_only=False)
    weapon_dice, modifier, mode, _ = damage_plan(draft)
    part = weapon_part(draft, weapon_dice, mode)
    mod = roll_damage_modifier(draft, modifier, a.handle)
    rolled = max(0, part + mod - int(x.effects.get("reduce", 0)))
    old = next((c for c in t.conditions if c.name == "item-damaged" and c.note == item.name), None)
    hp = old.effects.get("hp", item.hp) if old else item.hp
    left = max(0, hp - max(0, rolled - item.ap))
    draft.emit(ev_mrq1.ItemDamaged(exchange=x.id, handle=t.handle, item=item.name, rolled=rolled, ap=item.ap, hp_left=left))
    cond = cat.make("item-damaged", ends="never", effects={"hp": left}, note=item.name, suffix=item.name,
                    cause=draft.next_version, round=draft.state.round, step=draft.state.step)
    draft.emit(ev.ConditionApplied(handle=t.handle, condition=replace(cond, cause=old.cause) if old else cond))
    if left <= 0 and item.name in t.ready:
        draft.emit(ev.WeaponDropped(handle=t.handle, weapon=item.name, reason="broken"))
    carry_on(draft, rest, f"{a.name} strikes {t.name}'s {item.name}")
