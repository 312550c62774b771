"""Damage in mrq1: the damage roll, and the choices that follow a blow.

Source: seed 004 "Close Combat Attacks" (3 - Damage Resolution, 4 - Damage
Application), "Critical Hits", the Dodge and Parry results that change the
damage, "Charge" (+1D4), "Precise Attack" (Bypass Armour, Location Strike),
"Cover".

What follows damage. :func:`roll_damage` (the step ``roll:damage``) rolls
the weapon dice, the damage modifier, a Charge's bonus and the d20 location,
emits ``DamageDealt``, and then queues, in this order (each only when it
applies), with ``follow`` collecting the steps they leave pending:

1. ``knockback:blow`` (:mod:`.knockback`, seed 004 "Knockback"),
2. ``wounds:wound`` (:mod:`.wounds`, seed 004 "Hit Locations" and the wound
   rules),
3. ``impaling:offer`` (:mod:`.impaling`, an impaling critical's yank | leave),
4. ``knockback:give-ground`` (seed 004 "Giving Ground"),
5. ``attack:riposte-after-damage`` (:mod:`.attack`, seed 004 "Riposte"),
6. ``exchange:carry-on``: those pending steps are awaited, or, when there
   are none, the exchange ends (``exchange:after``: the action waiting for
   its free attacks, a Flurry's next blow, or the next turn).

A blow into cover goes to ``ranged:covered`` instead; a Disarm or Strike
Weapon / Shield precise attack queues ``precise:queue`` instead of the damage
roll. Every die a step needs is known when the step is queued, so ``affray
pending`` can list it and ``--dice`` can supply it; consequences that need
further dice become further pending steps.
"""

from __future__ import annotations

from affray import dice as dicelib
from affray.events import core as ev
from affray.rules.base import Draft, RuleError
from affray.rules.d100 import roll_damage_modifier
from affray.rules.mrq1.core import damage_plan, find_weapon, kind_parts, location_for, rulings_of, weapon_part


def queue_damage(draft: Draft) -> None:
    """The step ``damage:queue``: await the attacker's damage roll: weapon dice (unless maximised or
    minimised), damage modifier, a Charge's +1D4, and the d20 hit location
    (not for a Location Strike). A Disarm or a Strike Weapon / Shield
    precise attack queues its own step instead (seed 004 "Precise Attack")."""
    x = draft.state.exchange
    assert x is not None
    a = draft.state.combatants[x.attacker]
    t = draft.state.combatants[x.target]
    base, opts = kind_parts(x.kind)
    precise = opts.get("precise", "")
    if precise.startswith("disarm") or precise.startswith("weapon"):
        draft.then("precise:queue", precise=precise)
        return
    weapon_dice, modifier, mode, critical = damage_plan(draft)
    needs = []
    if mode == "roll":
        needs.append(ev.DiceNeed(f"{x.weapon} damage", str(dicelib.parse(weapon_dice)), by=a.handle))
    if modifier and dicelib.count_dice(modifier):
        needs.append(ev.DiceNeed("damage modifier", str(dicelib.parse(modifier.lstrip("+-"))), by=a.handle))
    charge = _charge_bonus(draft)
    if charge == "roll":
        needs.append(ev.DiceNeed("charge bonus", "1D4", by=a.handle))
    where = precise[len("location:"):] if precise.startswith("location:") else ""
    if not where:
        needs.append(ev.DiceNeed("hit location", "1D20", by=a.handle))
    how = {"max": " (critical: weapon dice maximised)", "min": " (minimum weapon damage)", "roll": ""}[mode]
    extra = " +1D4 (charge)" if charge else ""
    loc_text = f"to the {where} (location strike)" if where else "and hit location 1D20"
    draft.emit(
        ev.StepsAwaited(
            steps=(
                ev.PendingStep(
                    who=a.handle,
                    verb="roll",
                    kind="damage",
                    prompt=f"{a.name}: roll damage {dicelib.combine(weapon_dice, modifier)}{extra}{how} {loc_text} against {t.name}",
                    dice=tuple(needs),
                    exchange=x.id,
                ),
            )
        )
    )


def _charge_bonus(draft: Draft) -> str:
    """Empty (no charge), "roll" or "max": a Charge's +1D4 damage on a hit
    (seed 004 "Charge"; ruling ``charge_bonus_on_critical``)."""
    x = draft.state.exchange
    if x is None or kind_parts(x.kind)[0] != "charge":
        return ""
    _, _, mode, critical = damage_plan(draft)
    if mode == "max" and rulings_of(draft.state).charge_bonus_on_critical == "max":
        return "max"
    return "roll"


def roll_damage(draft: Draft, step: ev.PendingStep, rest: tuple[ev.PendingStep, ...]) -> None:
    """The step ``roll:damage``: weapon dice, damage modifier, a Charge's
    bonus and the hit location; then what follows the blow, queued in the
    order the module docstring lists (seed 004 "Damage Resolution",
    "Damage Application")."""
    state = draft.state
    x = state.exchange
    assert x is not None
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    weapon_dice, modifier, mode, critical = damage_plan(draft)
    weapon_roll = weapon_part(draft, weapon_dice, mode)
    mod_part = roll_damage_modifier(draft, modifier, a.handle)
    charge = _charge_bonus(draft)
    charge_part = 4 if charge == "max" else (draft.roll("1D4", "charge bonus", by=a.handle).total if charge else 0)
    base, opts = kind_parts(x.kind)
    precise = opts.get("precise", "")
    if precise.startswith("location:"):
        location, d20 = precise[len("location:"):], 0
    else:
        d20 = draft.roll("1D20", "hit location", by=a.handle).total
        location = location_for(t, d20)
    if location in [c.strip() for c in opts.get("cover", "").split(",") if c.strip()]:
        draft.then("ranged:covered", location=location, rest=rest)
        return
    rolled = max(0, weapon_roll + mod_part + charge_part)
    reduced = min(rolled, int(x.effects.get("reduce", 0)))
    after_parry = rolled - reduced
    loc = t.location(location)
    armour = 0 if precise == "bypass" else min(after_parry, loc.ap)
    final = after_parry - armour
    parts = f"{weapon_roll}{' (max)' if mode == 'max' else ' (min)' if mode == 'min' else ''}"
    if modifier:
        parts += f" {mod_part:+d}"
    if charge:
        parts += f" {charge_part:+d} charge"
    if precise == "bypass":
        parts += "; armour bypassed"
    draft.emit(
        ev.DamageDealt(
            exchange=x.id,
            target=t.handle,
            location=location,
            rolled=rolled,
            reduced=reduced,
            armour=armour,
            final=final,
            critical=critical,
            note=f"{parts}; d20={d20}" if d20 else f"{parts}; location strike",
        )
    )
    follow: list[ev.PendingStep] = []
    draft.then("knockback:blow", a=a, t=t, rolled=rolled, after_parry=after_parry, charge=base == "charge",
               wall=bool(opts.get("wall")), exchange=x.id, follow=follow)
    if final > 0:
        draft.then("wounds:wound", handle=t.handle, location=location, exchange=x.id, follow=follow)
    weapon = find_weapon(a, x.weapon, ready_only=False)
    if critical and weapon.impaling and final > 0:
        if weapon.kind != "ranged":
            draft.then("impaling:offer", a=a, t=t, weapon=weapon, location=location, exchange=x.id, follow=follow)
        elif rulings_of(draft.state).ranged_impale == "left-in":  # the shooter cannot yank it
            draft.then("impaling:stuck", attacker=a.handle, target=t.handle, weapon=weapon.name, location=location)
    if x.effects.get("give_ground"):
        draft.then("knockback:give-ground", attacker=a.handle, defender=t.handle, follow=follow)
    if x.effects.get("riposte"):
        # Parry table, Success/Critical: damage less 2xAP, and the defender may Riposte
        draft.then("attack:riposte-after-damage", defender=t.handle, item_name=x.with_item, follow=follow)
    draft.then("exchange:carry-on", steps=rest, follow=follow, summary=f"{a.name} hits {t.name}'s {location} for {final}")


def choose(draft: Draft, who: str, option: str) -> None:
    """``affray choose WHO OPTION`` after a blow: check the answer and queue
    ``choose:KIND`` (``impale``: yank | leave after an impaling critical,
    :mod:`.impaling`; ``give-ground``: follow | stay, :mod:`.knockback`).
    Raises :class:`RuleError` when ``who`` has no such choice to make."""
    state = draft.state
    step = next((s for s in state.pending if s.verb == "choose" and s.who == who), None)
    c = state.combatants[who]
    if step is None:
        waiting = "; ".join(s.prompt for s in state.pending) or "nothing"
        raise RuleError(f"{c.name} has no choice to make now (waiting for: {waiting})")
    option = option.lower()
    if option not in step.options:
        raise RuleError(f"{c.name} can choose {' | '.join(step.options)} here, not {option!r}")
    rest = tuple(s for s in state.pending if s is not step)
    assert state.exchange is not None
    draft.then("choose:" + step.kind, step=step, option=option, rest=rest)
