"""Damage and hit locations in mythras: the blow of an exchange, from the
damage roll to the damage that gets through armour.

Source: seed 001 "Attacks and Parries" steps 5-6, "Damage Reduction",
"Armor", "Knockback", "Cover", "Ward Location", Special Effect
Descriptions ("Maximize Damage", "Bypass Armor", "Enhance Parry",
"Circumvent Parry", "Choose Location", "Sharpshooter", "Bash", "Sunder");
rules-reference.md B10 (order of adjustments), B11 (parry), B13 (armour),
B16 (damage modifier).

The flow, step by step (kinds as in :mod:`affray.rules.mythras.system`):

1. ``damage:offer`` (after the Special Effects' steps): the attacker's
   damage roll is awaited, or, when the attack missed, the exchange ends
   (``attack:end-exchange``).
2. ``roll:damage`` (:func:`roll_damage`): weapon dice, Damage Modifier,
   location; Sharpshooter may then move the location
   (``choose:sharpshooter``, then ``damage:apply``).
3. :func:`apply_damage`: Knockback or Bash, the parry's deflection, a
   Damage Weapon blow (``effects:damage-weapon``, then ``go-on``), armour
   and Sunder, the ``DamageDealt`` event.

What follows damage: ``wounds:inflict`` (:mod:`.wounds`: Bleed, Stun
Location, Impale, the attacker's Entangle, then the wound on the
location's Hit Points with its Endurance roll); then the pending rolls the
blow brought (a fall after Knockback or Bash, Endurance), each ending with
:func:`~.core.go_on`; once none is left the exchange ends
(``attack:end-exchange``: a charger sweeps past, a deferred attack opens,
or the turn moves on).
"""

from __future__ import annotations

import json

from affray import dice as dicelib
from affray.events import core as ev
from affray.projections.state import State
from affray.rules.d100 import roll_damage_modifier
from affray.rules.base import Draft
from affray.rules.d100 import is_success
from affray.rules.mythras import conditions as cat
from affray.rules.mythras import tables
from affray.rules.mythras.core import (
    LUCK_REROLL,
    attack_size,
    effective_siz,
    find_weapon,
    go_on,
    grade_modifiers,
    keeping,
    kinds,
    luck_left,
    luck_suffix,
    mount_of,
    offer_luck,
    rulings_of,
    sheet_of,
    spend_luck,
    sundered_ap,
    test,
    weapon_struck,
)
from affray.rules.mythras.sheet import derive

_BLOCKS = {0: "none", 1: "half", 2: "all"}


def split_maximized(expr: str, k: int) -> tuple[str, int]:
    """(dice still to roll, fixed points) when ``k`` of the weapon's dice
    are taken at full value (seed 001 "Maximize Damage": a great club's 2d6
    becomes 1d6+6)."""
    e = dicelib.parse(expr)
    fixed, terms = e.constant, []
    for sign, count, sides in e.terms:
        if sign > 0 and k > 0:
            n = min(k, count)
            k -= n
            fixed += n * sides
            count -= n
        if count:
            terms.append((sign, count, sides))
    rest = dicelib.Expr(tuple(terms), 0)
    return (str(rest) if terms else ""), fixed


def _plan(state: State, chosen: list[str]):
    """(weapon, dice to roll, fixed points, damage modifier) of the blow of
    the exchange: Maximize Damage fixes dice; a charge moves the Damage
    Modifier one step (two for a quadruped, seed 001 "Charging"); a weapon
    set against a charge uses the charger's; a Ranged weapon adds it only
    when its ``damage_modifier`` says so ("Ranged Combat")."""
    x = state.exchange
    a = state.combatants[x.attacker]
    weapon = find_weapon(a, x.weapon, ready_only=False)
    rolled, fixed = split_maximized(weapon.damage, chosen.count("maximize-damage"))
    dm = derive(sheet_of(a), rulings_of(state)).damage_modifier
    flags = kinds(x)
    if "charge" in flags:
        dm = tables.dm_step(dm, 2 if sheet_of(a).legs >= 4 else 1)
        steed = mount_of(state, a)
        if steed is not None and rulings_of(state).mounted_charge_dm == "better":
            # seed 001 "Charging": "Riding characters may substitute their
            # Damage Modifier for that of their mount instead"
            theirs = tables.dm_step(derive(sheet_of(steed), rulings_of(state)).damage_modifier,
                                    2 if sheet_of(steed).legs >= 4 else 1)
            if tables.dm_rank(theirs) > tables.dm_rank(dm):
                dm = theirs
    if "counter" in flags and "set" in weapon.traits:
        t = state.combatants[x.target]
        dm = derive(sheet_of(t), rulings_of(state)).damage_modifier
    if weapon.kind == "ranged" and not weapon.damage_modifier:
        dm = ""
    return weapon, rolled, fixed, dm


def offer(draft: Draft, data: dict, chosen: list[str], steps: list[ev.PendingStep]) -> None:
    """After the Special Effects' steps (step ``damage:offer``): the damage
    roll joins ``steps`` if the attack succeeded (not when Select Target
    turned the blow on a bystander); the steps are awaited, or with none
    the exchange ends (seed 001 "Attacks and Parries" step 5,
    "Unsuccessful Rolls and Fumbles")."""
    x = draft.state.exchange
    steps = list(steps)
    if x.effects.get("hit") and not (data.get("side") == "defender" and "select-target" in chosen):
        steps.append(damage_step(draft.state, chosen, str(data.get("location", "")), str(data.get("side", "")),
                                 bypass=str(data.get("bypass", ""))))
    if steps:
        draft.emit(ev.StepsAwaited(steps=tuple(steps)))
        return
    draft.then("attack:end-exchange",
               summary=str(next((e.outcome for e in reversed(draft.events) if isinstance(e, ev.ReactionResolved)), "")))


def damage_step(state: State, chosen: list[str], location: str, side: str = "", *, bypass: str = "") -> ev.PendingStep:
    """The attacker's damage roll: weapon dice (twice for Impale), damage
    modifier, and the d20 location unless it was chosen (seed 001 step 5).
    ``side`` is who won the Special Effects in ``chosen`` (``attacker`` or
    ``defender``): Damage Weapon and Entangle may be either side's.
    ``bypass`` is the armour (``worn``, ``natural``) a single Bypass Armor
    bypasses, when the attacker chose."""
    x = state.exchange
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    weapon, rolled, fixed, dm = _plan(state, chosen)
    needs = []
    if rolled:
        times = 2 if "impale" in chosen else 1
        for i in range(times):
            needs.append(ev.DiceNeed(f"{weapon.name} damage" + (f" (impale {i + 1})" if times > 1 else ""), rolled, by=a.handle))
    if dm and dicelib.count_dice(dm):
        needs.append(ev.DiceNeed("damage modifier", str(dicelib.parse(dm.lstrip("+-"))), by=a.handle))
    if not location:
        needs.append(ev.DiceNeed("hit location", "1D20", by=a.handle))
    shown = dicelib.combine(*(p for p in (rolled, str(fixed) if fixed else "", dm) if p))
    struck = weapon_struck(state, a.handle, t.handle) if side == "attacker" and "damage-weapon" in chosen else None
    into = f"{t.name}'s {struck.name}" if struck is not None else t.name
    return ev.PendingStep(
        who=a.handle, verb="roll", kind="damage",
        prompt=f"{a.name}: roll damage {shown} against {into}" + (f"'s {location}" if location else " and hit location 1D20"),
        dice=tuple(needs), exchange=x.id, data={"chosen": ",".join(chosen), "location": location, "side": side, "bypass": bypass},
    )


def roll_fall(draft: Draft, step: ev.PendingStep, rest) -> None:
    """After Knockback: an Easy Acrobatics or Standard Athletics roll, or
    fall prone (seed 001 "Knockback"). After a Bash into an obstacle: an
    Acrobatics roll, or Athletics at Hard ("Bash"). The better chance is
    taken. A failed roll, with a Luck Point left, may be re-rolled (seed 001
    "Use Luck Point": "to re-roll a particular result";
    :func:`~.core.offer_luck`); accepted, the fall stands."""
    state = draft.state
    c = state.combatants[step.who]
    if step.data.get("forced"):
        fall(draft, c, step.kind == "knockback")
        go_on(draft, rest, f"{c.name} falls")
        return
    s = sheet_of(c)
    easy_acro = step.kind == "knockback"
    acro = tables.graded(s.skill("Acrobatics"), "easy" if easy_acro else "standard", rulings_of(state).grade_style)
    ath = tables.graded(s.skill("Athletics"), "standard" if easy_acro else "hard", rulings_of(state).grade_style)
    if acro >= ath:
        name, skill, grade = "Acrobatics", s.skill("Acrobatics"), "easy" if easy_acro else "standard"
    else:
        name, skill, grade = "Athletics", s.skill("Athletics"), "standard" if easy_acro else "hard"
    extra = [(grade, "Knockback" if easy_acro else "Bash into an obstacle")] if grade != "standard" else []
    tested = test(draft, c, name, skill, "stay on their feet (" + ("Knockback" if easy_acro else "Bash") + ")"
                  + luck_suffix(step), grade_modifiers(state, c, skill, (), "both", combat=False, extra=extra))
    if not is_success(tested.result):
        if offer_luck(draft, c, keeping(step, {}), rest, True):
            return
        fall(draft, c, easy_acro)
    go_on(draft, rest, f"{c.name} {'falls' if not is_success(tested.result) else 'keeps their feet'}")


def fall(draft: Draft, c, knockback: bool) -> None:
    """``c`` falls prone after Knockback (``knockback``) or a Bash."""
    if c.stance != "prone":
        draft.emit(ev.StanceChanged(handle=c.handle, stance="prone", reason="knocked down (" + ("Knockback" if knockback else "Bash") + ")"))


def roll_damage(draft: Draft, step: ev.PendingStep, rest) -> None:
    """Roll the blow: weapon dice (Impale: twice, the higher kept), damage
    modifier (no damage when a negative one takes it to 0, B16), the
    location; at Long Range the damage is halved (seed 001 "Ranged
    Combat"). Sharpshooter may then move the location; then
    :func:`apply_damage`."""
    state = draft.state
    x = state.exchange
    a = state.combatants[x.attacker]
    chosen = [k for k in str(step.data.get("chosen", "")).split(",") if k]
    weapon, rolled, fixed, dm = _plan(state, chosen)
    weapon_part = fixed
    note = []
    luck = LUCK_REROLL if step.data.get("luck") else ""
    if rolled:
        first = draft.roll(rolled, f"{weapon.name} damage{luck}", by=a.handle).total
        if "impale" in chosen:
            second = draft.roll(rolled, f"{weapon.name} damage (impale 2){luck}", by=a.handle).total
            note.append(f"impale {first}/{second}")
            first = max(first, second)  # ruling impale_pick = higher
        weapon_part += first
    mod = roll_damage_modifier(draft, dm, a.handle)
    location = str(step.data.get("location", ""))
    if not location:
        d20 = draft.roll("1D20", "hit location", by=a.handle).total
        location = tables.hit_location(d20)
        note.append(f"d20={d20}")
    elif step.data.get("kept"):
        note.append(str(step.data["kept"]) + ", kept")
    else:
        note.append("location chosen")
    total = max(0, weapon_part + mod)
    if "long-range" in kinds(x):
        note.append(f"Long Range: {total} halved")
        total //= 2
    if "charge" in kinds(x):
        note.append("charge: Damage Modifier one step up")
    data = {"chosen": ",".join(chosen), "location": location, "total": total, "side": str(step.data.get("side", "")),
            "bypass": str(step.data.get("bypass", "")),
            "shown": f"{weapon_part}{mod:+d}", "note": "; ".join(note)}
    if offer_damage_luck(draft, step, data, rest):
        return
    after_roll(draft, data, rest)


def offer_damage_luck(draft: Draft, step: ev.PendingStep, data: dict, rest) -> bool:
    """After the damage roll, before it is applied: the one ruling
    ``luck_damage_roll`` names (the attacker, or the target) with a Luck
    Point left is asked whether to spend it to re-roll the damage (seed 001
    "Use Luck Point": "to re-roll a particular result"), as step
    ``choose:luck-damage`` (:func:`luck_damage`); the hit location stays as
    rolled. True when asked."""
    state = draft.state
    x = state.exchange
    side = rulings_of(state).luck_damage_roll
    if side == "off":
        return False
    who = state.combatants[x.attacker if side == "attacker" else x.target]
    if luck_left(who) <= 0 or who.status == "dead":
        return False
    target = state.combatants[x.target]
    again = {**{k: v for k, v in step.data.items() if k not in ("luck", "kept")}, "location": data["location"],
             "kept": next((p for p in str(data["note"]).split("; ") if p.startswith("d20=")), "location chosen")}
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=who.handle, verb="choose", kind="luck-damage",
        prompt=f"{who.name}: {data['total']} damage ({data['shown']}) to {target.name}'s {data['location']}; "
               "spend a Luck Point to re-roll the damage? luck | accept",
        options=("luck", "accept"), exchange=x.id,
        data={"apply": json.dumps(data, sort_keys=True), "again": json.dumps(again, sort_keys=True)}),) + tuple(rest)))
    return True


def luck_damage(draft: Draft, step: ev.PendingStep, option: str) -> None:
    """Step ``choose:luck-damage``: ``luck`` spends a Luck Point and rolls
    the damage again, the hit location kept (step ``roll:damage`` once
    more); ``accept`` applies the damage as rolled (seed 001 "Use Luck
    Point")."""
    rest = tuple(s for s in draft.state.pending if s is not step)
    if option == "accept":
        after_roll(draft, json.loads(str(step.data["apply"])), rest)
        return
    c = draft.state.combatants[step.who]
    spend_luck(draft, c, "re-roll the damage")
    x = draft.state.exchange
    data = json.loads(str(step.data["again"])) | {"luck": 1}
    again = ev.PendingStep(who=x.attacker, verb="roll", kind="damage", prompt="", exchange=step.exchange, data=data)
    draft.then("roll:damage", step=again, rest=rest)


def after_roll(draft: Draft, data: dict, rest) -> None:
    """The rolled blow goes on: Sharpshooter may move the location, else
    :func:`apply_damage`."""
    state = draft.state
    x = state.exchange
    a = state.combatants[x.attacker]
    chosen = [k for k in str(data.get("chosen", "")).split(",") if k]
    location = str(data["location"])
    if "sharpshooter" in chosen:
        options = tables.ADJACENT.get(location, ()) + ("keep",)
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=a.handle, verb="choose", kind="sharpshooter",
            prompt=f"{a.name}: Sharpshooter: the shot hits the {location}; move it to an adjoining location: {' | '.join(options)}",
            options=options, exchange=x.id, data=data),) + tuple(rest)))
        return
    apply_damage(draft, data, rest)


def _ward_block(state: State, t, location: str, attack: str) -> tuple[str, str]:
    """The best passive block on ``location`` (seed 001 "Ward Location",
    "Passive Blocking"): as a parry with the warding weapon's Size."""
    best, by = "none", ""
    for cond in t.conditions:
        if cond.name == "warding" and cond.effects.get("loc:" + location):
            w = sheet_of(t).weapons[cond.effects.get("weapon", 0)]
            b = tables.parry_block(w.size, attack)
            if _BLOCK_RANK[b] > _BLOCK_RANK[best]:
                best, by = b, w.name
    return best, by


_BLOCK_RANK = {"none": 0, "half": 1, "all": 2}


def _cover_ap(t, location: str) -> int:
    """Armor Points of cover over ``location`` (seed 001 "Cover", "Take
    Cover")."""
    return max((c.effects.get("ap", 0) for c in t.conditions
                if c.name == "in-cover" and c.effects.get("loc:" + location)), default=0)


def apply_damage(draft: Draft, data: dict, rest) -> None:
    """Damage in the order of B10 once rolled: Knockback (damage over SIZ,
    before parry and armour) or Bash; the parry by comparative Size (B11;
    Enhance Parry deflects all, Circumvent Parry bypasses it; a warded
    location blocks as a parry of the warding weapon); a Damage Weapon blow
    goes to the parrying weapon instead; armour last (worn + natural, less
    Sunder's losses, plus cover; Bypass Armor), Sunder tearing into it;
    then ``wounds:inflict`` (Bleed, Stun Location, Impale, Entangle, the
    wound). Also step ``damage:apply``, after Sharpshooter."""
    state = draft.state
    x = state.exchange
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    chosen = [k for k in str(data.get("chosen", "")).split(",") if k]
    weapon = find_weapon(a, x.weapon, ready_only=False)
    location = str(data["location"])
    total = int(data["total"])
    note = [str(data.get("note", ""))] if data.get("note") else []
    follow: list[ev.PendingStep] = []
    flags = kinds(x)
    # the attacker's Damage Weapon strikes the parrying weapon; the
    # defender's was its own step (effects:weapon-damage), and the blow
    # still lands as the parry allows (seed 001 "Damage Weapon")
    struck = weapon_struck(state, a.handle, t.handle) if "damage-weapon" in chosen and data.get("side") == "attacker" else None
    strike_weapon = struck is not None
    # Knockback and Bash act on the damage rolled, before parry and armour
    if "bash" in chosen:
        feet = tables.bash_feet(total, weapon.kind == "shield" or "shield" in weapon.traits)
        if feet:
            draft.emit(ev.CombatantMoved(handle=t.handle, distance=feet * tables.FEET_TO_M, away_from=a.handle,
                                         reason=f"Bash: {feet} ft back"))
        if "obstacle" in flags and feet:
            follow.append(_fall_step(state, t.handle, "bash", "bashed into an obstacle: Acrobatics, or Athletics at Hard, or fall"))
    elif not strike_weapon and rulings_of(state).knockback == "on":
        siz = effective_siz(t, "knockback")
        feet = tables.knockback_feet(total, int(siz) if siz == int(siz) else siz)
        if feet:
            draft.emit(ev.CombatantMoved(handle=t.handle, distance=feet * tables.FEET_TO_M, away_from=a.handle,
                                         reason=f"Knockback: {feet} ft back ({total} damage over SIZ {siz:g})"))
            follow.append(_fall_step(state, t.handle, "knockback", "knocked back: Easy Acrobatics or Athletics, or fall prone"))
    block = _BLOCKS[int(x.effects.get("block", 0))]
    if x.effects.get("parried") and "enhance-parry" in chosen:
        block = "all"  # seed 001 "Enhance Parry": no matter the Size of the weapon
    if "circumvent-parry" in chosen:
        block = "none"  # seed 001 "Circumvent Parry": an otherwise successful parry is bypassed
    ward, ward_by = _ward_block(state, t, location, attack_size(state, x))
    if _BLOCK_RANK[ward] > _BLOCK_RANK[block]:
        block = ward
        note.append(f"warded by {ward_by}")
    if strike_weapon:
        # seed 001 "Damage Weapon": the attacker "applies his damage roll to
        # it"; "the targeted weapon uses its own Armor Points" (the parry
        # does not deflect a blow aimed at the parrying weapon itself)
        draft.then("effects:damage-weapon", owner=t.handle, weapon=struck.name, damage=total,
                   why=f"Damage Weapon by {a.name}")
        draft.then("go-on", steps=tuple(rest) + tuple(follow), summary=f"{a.name} strikes {t.name}'s {struck.name}")
        return
    after = tables.after_parry(total, block, rulings_of(state).half_parry_rounding)
    sheet = sheet_of(t)
    worn, natural = sheet.armour.get(location, 0), sheet.natural_armour.get(location, 0)
    lost = sundered_ap(t, location)
    worn_left = max(0, worn - lost)
    natural_left = max(0, natural - max(0, lost - worn))
    cover = _cover_ap(t, location)
    bypass = chosen.count("bypass-armor")
    if bypass >= 2:
        armour_ap = 0
    elif bypass == 1 and data.get("bypass") == "natural":
        armour_ap = worn_left  # seed 001 "Bypass Armor": "the attacker must decide which of the two is bypassed"
    elif bypass == 1:
        armour_ap = natural_left if worn_left else 0  # worn chosen, or only one kind there to bypass
    else:
        armour_ap = worn_left + natural_left
    if cover:
        note.append(f"cover {cover} AP")
    armour_ap += cover
    if "sunder" in chosen:
        surplus = max(0, after - armour_ap)
        torn = min(worn_left + natural_left, surplus)
        final = surplus - torn
        armour = after - final
        if torn:
            draft.emit(ev.ConditionApplied(handle=t.handle, condition=cat.make(
                "sundered", cause=draft.next_version, round=state.round, step=draft.state.step, ends="never",
                location=location, effects={"ap-lost": lost + torn},
                note=f"Sunder: the {location}'s protection loses {torn} AP ({worn_left + natural_left - torn} left)")))
    else:
        armour = min(after, armour_ap)
        final = after - armour
    draft.emit(ev.DamageDealt(exchange=x.id, target=t.handle, location=location, rolled=total, reduced=total - after,
                              armour=armour, final=final, critical=bool(x.effects.get("critical")),
                              note=str(data.get("shown", "")) + (f"; parry {block}" if block != "none" else "") + "; " + "; ".join(n for n in note if n)))
    draft.then("wounds:inflict", handle=t.handle, location=location, final=final, chosen=tuple(chosen),
               entangle="entangle" in chosen and data.get("side") == "attacker" and "entangling" in weapon.traits,
               steps=tuple(rest) + tuple(follow), summary=f"{a.name} hits {t.name}'s {location} for {final}")


def _fall_step(state: State, handle: str, kind: str, why: str) -> ev.PendingStep:
    c = state.combatants[handle]
    return ev.PendingStep(who=handle, verb="roll", kind=kind, prompt=f"{c.name}: {why}",
                          dice=(ev.DiceNeed(f"{c.name}: Acrobatics/Athletics", "1D100", by=handle),),
                          exchange=state.exchange.id if state.exchange else 0)
