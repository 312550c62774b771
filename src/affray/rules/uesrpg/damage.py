"""Step 4 of the uesrpg exchange: resolve the attack (seed 003 "Step 4:
Resolve Attack & Advantages": "Attacker Won", "Defender won": Evade, Parry,
Block; rules-reference.md D9, D10, D13).

A blow that lands rolls its damage and the hit location (the ones digit of
the roll that resolved the hit, or a d10 by ruling ``hit_location``), takes
off the AR of the location against its damage type (partial armour by
ruling ``partial_armour``; Penetrate Armor and Forceful Impact applied) and
the rest from the HP: ``DamageDealt`` goes to the ``HP`` pool location, its
``note`` naming the location struck first. A Block rolls the damage against the shield's Block
Rating: at or under it nothing happens, over it the full damage lands on
the shield arm. The wound check follows in :mod:`.wounds`.
"""

from __future__ import annotations

import math

from affray.events import core as ev
from affray.events import uesrpg as ev_ues
from affray.projections.state import Combatant
from affray.rules.base import Draft
from affray.rules.uesrpg import conditions as cat
from affray.rules.uesrpg import tables
from affray.rules.uesrpg.core import POOL, find_item, finish_exchange, rulings_of, sheet_of, unusable_limbs
from affray.rules.uesrpg.rulings import Rulings
from affray.rules.uesrpg.sheet import Sheet, Shield


def resolve(draft: Draft, carry: dict) -> None:
    """What the result asks for next: the damage roll of the side struck's
    opponent, the Block's roll against BR, Evade's free move, or the end of
    the exchange (parried, both failed, nothing resolved)."""
    state = draft.state
    x = state.exchange
    hits = carry.get("hits", "")
    if hits:
        hitter = x.attacker if hits == "defender" else x.target
        target = x.target if hits == "defender" else x.attacker
        weapon = x.weapon if hitter == x.attacker else str(carry.get("item", ""))
        item = find_item(sheet_of(state.combatants[hitter]), weapon)
        dice = [ev.DiceNeed(f"{item.name} damage", item.damage, by=hitter)]
        if rulings_of(state).hit_location == "d10" and not carry.get("loc"):
            dice.append(ev.DiceNeed("hit location", "1D10", by=hitter))
        h, t = state.combatants[hitter], state.combatants[target]
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=hitter, verb="roll", kind="damage", exchange=x.id, dice=tuple(dice),
            prompt=f"{h.name}: roll {item.name} damage {item.damage} against {t.name}",
            data={**carry, "hitter": hitter, "target": target, "weapon": item.name}),)))
        return
    if carry.get("blocked"):
        a, t = state.combatants[x.attacker], state.combatants[x.target]
        item = find_item(sheet_of(a), x.weapon)
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=x.attacker, verb="roll", kind="block", exchange=x.id,
            dice=(ev.DiceNeed(f"{item.name} damage (against the Block Rating)", item.damage, by=x.attacker),),
            prompt=f"{a.name}: roll {item.name} damage {item.damage} against {t.name}'s {carry.get('item')} (BR)",
            data=carry),)))
        return
    if (carry.get("winner") == "defender" and carry.get("defence") == "evade"
            and "leg" not in unusable_limbs(state, state.combatants[x.target])):
        t = state.combatants[x.target]
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=x.target, verb="choose", kind="evade-move", exchange=x.id, options=("move", "stay"),
            prompt=f"{t.name} evaded: move up to 1 m for free (no attack of opportunity), or stay"),)))
        return
    finish_exchange(draft, str(carry.get("defence", "")) + " held" if carry.get("winner") == "defender" else "no blow landed")


def armour_at(c: Combatant, sheet: Sheet, location: str, damage_type: str, rulings: Rulings,
              *, penetrate: bool = False, forceful: int = 0) -> tuple[int, str]:
    """The AR that counts at ``location`` against ``damage_type`` and how it
    was reached: physical AR against physical damage, magic AR against magic
    (seed 003 "Some types of AR only mitigate certain types of damage");
    Penetrate Armor makes full count as partial and partial as none (D8);
    partial armour counts half, rounded down (ruling ``partial_armour``);
    Damaged(N) from Forceful Impact takes N off (D8)."""
    piece = sheet.armour.get(location)
    if piece is None:
        return 0, ""
    ar = piece.magic_ar if damage_type in tables.MAGIC_TYPES else piece.ar
    coverage = piece.coverage
    notes = []
    if penetrate:
        coverage = {"full": "partial", "partial": "none"}[coverage]
        notes.append(f"Penetrate Armor: {piece.coverage} counts as {coverage}")
    if coverage == "none":
        ar = 0
    elif coverage == "partial" and rulings.partial_armour == "half":
        ar //= 2
        notes.append("partial armour: half AR")
    damaged = c.effect(f"damaged:{location}") + forceful
    if damaged:
        ar = max(0, ar - damaged)
        notes.append(f"Damaged({damaged})")
    return ar, "; ".join(notes)


def _damaged(draft: Draft, target: str, location: str, n: int) -> None:
    """Forceful Impact: the armour on ``location`` gains Damaged(n) (D8)."""
    state = draft.state
    c = state.combatants[target]
    old = next((k for k in c.conditions if k.id == f"damaged-armour:{location}"), None)
    value = (old.effects.get(f"damaged:{location}", 0) if old else 0) + n
    draft.emit(ev.ConditionApplied(handle=target, condition=cat.make(
        "damaged-armour", cause=draft.next_version, round=state.round, step=state.step, ends="never",
        location=location, effects={f"damaged:{location}": value}, note=f"Damaged({value})")))


def roll_damage(draft: Draft, step: ev.PendingStep) -> None:
    """``affray roll`` on the damage step: damage, location, AR, HP lost
    (seed 003 "Attacker Won"; D9, D10); then the wound check."""
    state = draft.state
    x = state.exchange
    data = dict(step.data)
    hitter, target = str(data["hitter"]), str(data["target"])
    h, t = state.combatants[hitter], state.combatants[target]
    item = find_item(sheet_of(h), str(data["weapon"]))
    rolled = draft.roll(item.damage, f"{item.name} damage", by=hitter).total
    rulings = rulings_of(state)
    if data.get("loc"):
        location, how = str(data["loc"]), "Precision Strike"
    elif rulings.hit_location == "d10":
        d10 = draft.roll("1D10", "hit location", by=hitter).total
        location, how = tables.location_for_digit(d10).name, f"d10={d10}"
    else:
        roll = int(data.get("hit_roll", 0))
        location, how = tables.location_for_digit(roll % 10).name, f"ones digit of {roll:02d}"
    forceful = int(data.get("forceful", 0))
    this_blow = forceful if rulings.forceful_impact == "this-blow" else 0
    ar, notes = armour_at(t, sheet_of(t), location, item.type, rulings,
                          penetrate=bool(data.get("penetrate")), forceful=this_blow)
    if forceful:
        _damaged(draft, target, location, forceful)
    final = max(0, rolled - ar)
    note = "; ".join(filter(None, [location, how, item.type, notes]))
    draft.emit(ev.DamageDealt(exchange=x.id, target=target, location=POOL, rolled=rolled, reduced=0, armour=ar,
                              final=final, critical=bool(data.get("critical")), note=note))
    draft.then("wound-check", target=target, location=location, final=final)


def block_rating(shield: Shield, damage_type: str, rulings: Rulings) -> tuple[int, str]:
    """The BR a Block rolls against: against magic damage the magic BR, or
    half the BR rounded up when there is none (seed 003 "Block"); a targe
    halves it (D13, ruling ``targe_rounding``)."""
    br, notes = shield.br, []
    if damage_type in tables.MAGIC_TYPES:
        if shield.magic_br:
            br = shield.magic_br
            notes.append("magic BR")
        else:
            br = math.ceil(br / 2)
            notes.append("magic damage: BR halved")
    if tables.SHIELD_VARIANTS[shield.variant].br_halved:
        br = math.ceil(br / 2) if rulings.targe_rounding == "up" else br // 2
        notes.append("targe: BR halved")
    return br, "; ".join(notes)


def roll_block(draft: Draft, step: ev.PendingStep) -> None:
    """``affray roll`` on the block step: the attack's damage against the
    shield's BR. At or under it no damage is taken; over it the full damage
    lands on the shield arm, whose AR counts (seed 003 "Block")."""
    state = draft.state
    x = state.exchange
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    item = find_item(sheet_of(a), x.weapon)
    sheet = sheet_of(t)
    shield = find_item(sheet, str(step.data.get("item", "")))
    rulings = rulings_of(state)
    rolled = draft.roll(item.damage, f"{item.name} damage (against the Block Rating)", by=a.handle).total
    br, note = block_rating(shield, item.type, rulings)
    held = rolled <= br
    draft.emit(ev_ues.BlockResolved(exchange=x.id, defender=t.handle, shield=shield.name, damage=rolled, br=br,
                                    held=held, note=note))
    if held:
        finish_exchange(draft, "blocked")
        return
    arm = sheet.shield_arm
    ar, notes = armour_at(t, sheet, arm, item.type, rulings)
    final = max(0, rolled - ar)
    draft.emit(ev.DamageDealt(exchange=x.id, target=t.handle, location=POOL, rolled=rolled, reduced=0, armour=ar, final=final,
                              note="; ".join(filter(None, [arm, f"over BR {br}: the shield arm", item.type, notes]))))
    draft.then("wound-check", target=t.handle, location=arm, final=final)
