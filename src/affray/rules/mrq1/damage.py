"""Damage in mrq1: the damage roll, and the roll steps and choices that
follow a blow.

Source: seed 004 "Damage Resolution", "Damage Application", "Critical
Hits", "Dodge"/"Parry" results; what follows a blow is in :mod:`.wounds`
("Hit Locations" and the wound rules), :mod:`.knockback` ("Knockback",
"Giving Ground") and :mod:`.impaling` ("Impaling Close Combat Attacks").

Every die a step needs is known when the step is queued, so ``affray
pending`` can list it and ``--dice`` can supply it; consequences that need
further dice become further pending steps.
"""

from __future__ import annotations

from affray import dice as dicelib
from affray.events import core as ev
from affray.projections.state import Combatant
from affray.rules.d100 import roll_damage_modifier
from affray.rules.base import Draft, RuleError
from affray.rules.mrq1.attack import end_exchange
from affray.rules.mrq1.common import find_weapon, kind_parts, rulings_of, sheet_of
from affray.rules.mrq1.sheet import derive


def _damage_modifier(draft: Draft, c: Combatant) -> str:
    """The attacker's damage modifier (sheet override, else STR+SIZ; E2)."""
    return derive(sheet_of(c), rulings_of(draft.state)).damage_modifier


def weapon_part(draft: Draft, weapon_dice: str, mode: str) -> int:
    """The weapon's share of the open exchange's damage: its dice at their
    maximum (``max``, a critical: seed 004 "Critical Hits"), their minimum
    (``min``, a Dodge's "minimum damage"), or rolled by the attacker."""
    x = draft.state.exchange
    assert x is not None
    wexpr = dicelib.parse(weapon_dice)
    if mode == "max":
        return wexpr.maximum()
    if mode == "min":
        return wexpr.minimum()
    return draft.roll(str(wexpr), f"{x.weapon} damage", by=x.attacker).total


def damage_plan(draft: Draft) -> tuple[str, str, str, bool]:
    """(weapon dice to roll, damage modifier, how the weapon dice are
    treated: roll|max|min, critical) for the open exchange."""
    x = draft.state.exchange
    assert x is not None
    a = draft.state.combatants[x.attacker]
    weapon = find_weapon(a, x.weapon, ready_only=False)
    critical = x.critical
    if critical and x.effects.get("parry_ap_halves") and not rulings_of(draft.state).parried_critical_keeps_max:
        critical = False  # ruling parried_critical_keeps_max=false: a parried critical rolls normal damage
    minimum = bool(x.effects.get("minimum_damage"))
    if critical and minimum:
        mode = "roll"  # seed 004: a dodged critical inflicts normal damage instead
    elif critical:
        mode = "max"
    elif minimum:
        mode = "min"
    else:
        mode = "roll"
    return weapon.damage, _damage_modifier(draft, a), mode, critical


def queue_damage(draft: Draft) -> None:
    """Queue the attacker's damage roll: weapon dice (unless maximised or
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
        from affray.rules.mrq1 import precise as precise_rules

        precise_rules.queue(draft, precise)
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


def roll_step(draft: Draft, who: str) -> None:
    """Perform the first pending roll step (or the first that is ``who``'s)."""
    state = draft.state
    steps = [s for s in state.pending if s.verb == "roll" and (not who or s.who == who)]
    if not steps:
        waiting = "; ".join(s.prompt for s in state.pending) or "nothing"
        raise RuleError(f"no roll is pending{' for ' + who if who else ''} (waiting for: {waiting})")
    step = steps[0]
    rest = tuple(s for s in state.pending if s is not step)
    handler = _ROLLS[step.kind]
    handler(draft, step, rest)


def _roll_damage(draft: Draft, step: ev.PendingStep, rest: tuple[ev.PendingStep, ...]) -> None:
    """The damage roll: weapon dice, damage modifier, a Charge's bonus and
    the hit location; then what follows the blow: knockback, the wound, an
    impaling critical's choice, giving ground, a riposte (seed 004 "Damage
    Resolution", "Damage Application")."""
    from affray.rules.mrq1.impaling import impale_offer
    from affray.rules.mrq1.knockback import give_ground, knockback
    from affray.rules.mrq1.wounds import location_for, wound

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
        from affray.rules.mrq1 import ranged

        ranged.covered(draft, location, rest)
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
    kb = knockback(draft, a, t, rolled, after_parry, charge=base == "charge", wall=bool(opts.get("wall")), exchange=x.id)
    if kb is not None:
        follow.append(kb)
    if final > 0:
        follow.extend(wound(draft, t.handle, location, x.id))
    weapon = find_weapon(a, x.weapon, ready_only=False)
    if critical and weapon.impaling and final > 0 and draft.state.combatants[t.handle].status != "dead":
        follow.append(impale_offer(a, t, weapon, location, x.id))
    if x.effects.get("give_ground"):
        follow.append(give_ground(draft, a.handle, t.handle))
    if x.effects.get("riposte"):
        # Parry table, Success/Critical: damage less 2xAP, and the defender may Riposte
        from affray.rules.mrq1.attack import riposte_step

        offer = riposte_step(draft.state, t.handle, x.with_item)
        if offer is not None:
            follow.append(offer)
    _continue(draft, rest + tuple(follow), f"{a.name} hits {t.name}'s {location} for {final}")


def choose(draft: Draft, who: str, option: str) -> None:
    """Answer a pending choice: yank|leave after an impaling critical,
    follow|stay when the defender gives ground."""
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
    if step.kind == "impale":
        from affray.rules.mrq1.impaling import choose_impale

        choose_impale(draft, step, option, rest)
    else:
        from affray.rules.mrq1.knockback import choose_give_ground

        choose_give_ground(draft, step, option, rest)


def _continue(draft: Draft, steps: tuple[ev.PendingStep, ...], summary: str) -> None:
    """Carry on with ``steps``; when none are left, end the exchange."""
    if steps:
        draft.emit(ev.StepsAwaited(steps=steps))
        return
    end_exchange(draft, summary)


#: Each roll step's kind and its handler; the modules of the steps that
#: follow a blow add theirs (wounds, knockback, impaling, precise,
#: free_attacks, area).
_ROLLS = {
    "damage": _roll_damage,
}
