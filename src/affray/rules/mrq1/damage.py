"""Damage, knockback, wounds and their follow-ups in mrq1.

Source: seed 004 "Damage Resolution", "Damage Application", "Critical
Hits", "Dodge"/"Parry" results, "Hit Locations" and the wound rules under it,
"Knockback", "Impaling Close Combat Attacks", "Giving Ground"; rules-reference
E rulings (location table, Resilience, Major Wound boundary).

Every die a step needs is known when the step is queued, so ``affray
pending`` can list it and ``--dice`` can supply it; consequences that need
further dice become further pending steps.
"""

from __future__ import annotations

from affray import dice as dicelib
from affray.events import core as ev
from affray.projections.state import Combatant
from affray.rules.base import Draft, RuleError
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1 import tables
from affray.rules.mrq1.attack import end_exchange
from affray.rules.mrq1.common import (
    condition_modifiers,
    kind_parts,
    find_weapon,
    rulings_of,
    sheet_of,
    skill,
    test,
)
from affray.rules.mrq1.sheet import derive


def _damage_modifier(draft: Draft, c: Combatant) -> str:
    """The attacker's damage modifier (sheet override, else STR+SIZ; E2)."""
    return derive(sheet_of(c), rulings_of(draft.state)).damage_modifier


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
    state = draft.state
    x = state.exchange
    assert x is not None
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    weapon_dice, modifier, mode, critical = damage_plan(draft)
    wexpr = dicelib.parse(weapon_dice)
    if mode == "max":
        weapon_part = wexpr.maximum()
    elif mode == "min":
        weapon_part = wexpr.minimum()
    else:
        weapon_part = draft.roll(str(wexpr), f"{x.weapon} damage", by=a.handle).total
    mod_part = 0
    if modifier:
        mexpr = dicelib.parse(modifier)
        if dicelib.count_dice(modifier):
            magnitude = draft.roll(str(dicelib.parse(modifier.lstrip("+-"))), "damage modifier", by=a.handle).total
            mod_part = -magnitude if modifier.strip().startswith("-") else magnitude
        else:
            mod_part = mexpr.total(())
    charge = _charge_bonus(draft)
    charge_part = 4 if charge == "max" else (draft.roll("1D4", "charge bonus", by=a.handle).total if charge else 0)
    base, opts = kind_parts(x.kind)
    precise = opts.get("precise", "")
    if precise.startswith("location:"):
        location, d20 = precise[len("location:"):], 0
    else:
        d20 = draft.roll("1D20", "hit location", by=a.handle).total
        location = _location_for(t, d20)
    if location in [c.strip() for c in opts.get("cover", "").split(",") if c.strip()]:
        from affray.rules.mrq1 import ranged

        ranged.covered(draft, location, rest)
        return
    rolled = max(0, weapon_part + mod_part + charge_part)
    reduced = min(rolled, int(x.effects.get("reduce", 0)))
    after_parry = rolled - reduced
    loc = t.location(location)
    armour = 0 if precise == "bypass" else min(after_parry, loc.ap)
    final = after_parry - armour
    parts = f"{weapon_part}{' (max)' if mode == 'max' else ' (min)' if mode == 'min' else ''}"
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
    # Knockback: after reactions, before armour (seed 004 "Knockback").
    siz = sheet_of(t).characteristics.SIZ
    kb_damage = after_parry if rulings_of(state).knockback_after_parry else rolled
    from affray.rules.mrq1.mounted import knockback_siz

    siz = knockback_siz(draft, t.handle, siz, kb_damage)  # a rider adds his mount's SIZ (seed 004 Knockback)
    metres = tables.knockback_metres(kb_damage, siz, charge=base == "charge")
    if metres and t.status == "active":
        draft.emit(ev.CombatantMoved(handle=t.handle, distance=float(metres), reason="knockback", away_from=a.handle))
        if t.handle in a.engaged:
            draft.emit(ev.EngagementChanged(a=a.handle, b=t.handle, engaged=False))
        follow.append(
            ev.PendingStep(
                who=t.handle,
                verb="roll",
                kind="knockback",
                prompt=f"{t.name}: knocked back {metres} m; Acrobatics test or fall prone"
                + ("; into a wall: Dodge test or 1D4 damage" if opts.get("wall") else ""),
                dice=(ev.DiceNeed("Acrobatics (knockback)", "1D100", by=t.handle),)
                + ((ev.DiceNeed("Dodge (knocked into a wall)", "1D100", by=t.handle),) if opts.get("wall") else ()),
                exchange=x.id,
                data={"wall": 1} if opts.get("wall") else {},
            )
        )
    if final > 0:
        follow.extend(_wound(draft, t.handle, location, x.id))
    weapon = find_weapon(a, x.weapon, ready_only=False)
    if critical and weapon.impaling and final > 0 and draft.state.combatants[t.handle].status != "dead":
        follow.append(
            ev.PendingStep(
                who=a.handle,
                verb="choose",
                kind="impale",
                prompt=f"{a.name}: {weapon.name} impales {t.name}'s {location}: yank | leave",
                options=("yank", "leave"),
                exchange=x.id,
                data={"location": location},
            )
        )
    if x.effects.get("give_ground"):
        follow.append(_give_ground(draft, a.handle, t.handle))
    if x.effects.get("riposte"):
        # Parry table, Success/Critical: damage less 2xAP, and the defender may Riposte
        from affray.rules.mrq1.attack import riposte_step

        offer = riposte_step(draft.state, t.handle, x.with_item)
        if offer is not None:
            follow.append(offer)
    _continue(draft, rest + tuple(follow), f"{a.name} hits {t.name}'s {location} for {final}")


def _location_for(t: Combatant, d20: int) -> str:
    for loc in t.locations:
        if loc.low <= d20 <= loc.high:
            return loc.name
    return tables.hit_location(d20)


def _give_ground(draft: Draft, attacker: str, defender: str) -> ev.PendingStep:
    """Seed 004 "Giving Ground": the defender retreats his Movement directly
    away; the attacker may follow and stay adjacent, or stay."""
    d = draft.state.combatants[defender]
    a = draft.state.combatants[attacker]
    from affray.rules.mrq1.mounted import movement_of

    metres = movement_of(draft.state, defender)  # a rider moves at his mount's Movement (seed 004)
    if d.status == "active":
        draft.emit(ev.CombatantMoved(handle=defender, distance=float(metres), reason="gives ground", away_from=attacker))
    return ev.PendingStep(
        who=attacker,
        verb="choose",
        kind="give-ground",
        prompt=f"{a.name}: {d.name} gives ground {metres} m: follow | stay",
        options=("follow", "stay"),
        exchange=draft.state.exchange.id if draft.state.exchange else 0,
    )


def _wound(draft: Draft, handle: str, location: str, exchange: int) -> list[ev.PendingStep]:
    """Apply a wound's immediate, dice-free effects; return the steps for
    the ones that need dice (seed 004 "Hit Locations")."""
    state = draft.state
    c = state.combatants[handle]
    loc = c.location(location)
    severity = tables.wound_severity(loc.hp, loc.max_hp, rulings_of(state))
    if severity == "none":
        return []
    cause = draft.next_version
    draft.emit(ev.WoundInflicted(target=handle, location=location, severity=severity, exchange=exchange))
    at = dict(cause=cause, round=state.round, step=draft.state.step)
    steps: list[ev.PendingStep] = []
    label = f"{severity.capitalize()} Wound to the {location}"
    if severity == "minor":
        lose_actions(draft, handle, 1, label, at)
        return steps
    dice = []
    if severity == "serious":
        dice.append(ev.DiceNeed("combat actions lost", "1D4", by=handle))
    if loc.limb:
        name = "useless-limb" if severity == "serious" else "severed-limb"
        draft.emit(
            ev.ConditionApplied(
                handle=handle,
                condition=cat.make(name, ends="event", location=location, effects={"useless-limb": 1}, note=label, **at),
            )
        )
        if loc.limb == "leg" or severity == "major":
            if draft.state.combatants[handle].stance != "prone":
                draft.emit(ev.StanceChanged(handle=handle, stance="prone", reason=label))
        if loc.limb == "arm":
            _drop_from_arm(draft, handle, location, label)
    tests = []
    if severity == "major" and not loc.limb:
        tests.append("death")
    if severity == "major" or not loc.limb:
        tests.append("consciousness")
    for t in tests:
        dice.append(ev.DiceNeed(f"Resilience ({t})", "1D100", by=handle))
    if severity == "major":
        cp = sheet_of(c).characteristics.CON + sheet_of(c).characteristics.POW
        rounds = cp if loc.limb else cp // 2
        draft.emit(
            ev.ConditionApplied(
                handle=handle,
                condition=cat.make(
                    "bleeding-out", ends="rounds", count=rounds, location=location, note=label, **at
                ),
            )
        )
    what = []
    if severity == "serious":
        what.append("loses the next 1D4 combat actions")
    what += ["Resilience test or die" if t == "death" else "Resilience test or fall unconscious" for t in tests]
    steps.append(
        ev.PendingStep(
            who=handle,
            verb="roll",
            kind="wound",
            prompt=f"{c.name}: {label}: {'; '.join(what)}",
            dice=tuple(dice),
            exchange=exchange,
            data={"location": location, "severity": severity, "tests": ",".join(tests)},
        )
    )
    return steps


def lose_actions(draft: Draft, handle: str, n: int, label: str, at: dict) -> None:
    """``handle`` loses its next ``n`` combat actions (added to any already
    owed); they are taken as they fall due (seed 004 wound rules)."""
    c = draft.state.combatants[handle]
    old = next((x for x in c.conditions if x.name == "lost-actions"), None)
    total = n + (old.effects.get("lost-actions", 0) if old else 0)
    draft.emit(
        ev.ConditionApplied(
            handle=handle,
            condition=cat.make(
                "lost-actions", ends="actions", count=total, effects={"lost-actions": total}, note=label, **at
            ),
        )
    )


def _drop_from_arm(draft: Draft, handle: str, location: str, label: str) -> None:
    """A useless arm drops what its hand holds (seed 004 "One Useless or
    Missing Arm"); a two-handed weapon is dropped by either arm. Ruling
    ``hands``: a shield is held in the left hand, other weapons in the right
    (a second non-shield weapon in the left)."""
    c = draft.state.combatants[handle]
    weapons = {w.name: w for w in sheet_of(c).weapons}
    held = [weapons[name] for name in c.ready if name in weapons]
    shields = [w for w in held if w.kind == "shield"]
    others = [w for w in held if w.kind != "shield"]
    if location.startswith("right"):
        in_hand = others[:1]
    else:
        in_hand = shields[:1] or others[1:2]
    in_hand += [w for w in held if w.hands >= 2 and w not in in_hand]
    for w in in_hand:
        draft.emit(ev.WeaponDropped(handle=handle, weapon=w.name, reason=label))


def _roll_wound(draft: Draft, step: ev.PendingStep, rest: tuple[ev.PendingStep, ...]) -> None:
    handle = step.who
    c = draft.state.combatants[handle]
    severity = str(step.data["severity"])
    location = str(step.data["location"])
    label = f"{severity.capitalize()} Wound to the {location}"
    at = dict(cause=draft.next_version, round=draft.state.round, step=draft.state.step)
    if severity == "serious":
        n = draft.roll("1D4", "combat actions lost", by=handle).total
        lose_actions(draft, handle, n, label, at)
    tests = [t for t in str(step.data.get("tests", "")).split(",") if t]
    for t in tests:
        _resilience(draft, handle, t, label, location)
    _continue(draft, rest, f"{c.name}: {label}")


def _resilience(draft: Draft, handle: str, which: str, label: str, location: str) -> str:
    """A Resilience test (rules-reference E: an ordinary skill test). On a
    failure the bearer dies (``death``) or falls unconscious; on a success
    the test is due again at each round's end while the wound stands."""
    c = draft.state.combatants[handle]
    mods = condition_modifiers(c)
    tested = test(draft, c, "Resilience", skill(c, "Resilience"), mods, f"Resilience ({which}): {label}")
    passed = tested.result in ("success", "critical")
    cond_name = "death-test" if which == "death" else "resilience-retest"
    at = dict(cause=draft.state.version, round=draft.state.round, step=draft.state.step)
    if c.status == "dead":
        return "moot"
    if not passed:
        if which == "death":
            draft.emit(ev.StatusChanged(handle=handle, status="dead", reason=f"failed Resilience: {label}"))
        elif c.status == "active":
            draft.emit(ev.StatusChanged(handle=handle, status="unconscious", reason=f"failed Resilience: {label}"))
            draft.emit(
                ev.ConditionApplied(
                    handle=handle,
                    condition=cat.make("unconscious", ends="event", effects={"helpless": 1}, note=label, **at),
                )
            )
        return "failed"
    if not any(x.name == cond_name and x.location == location for x in draft.state.combatants[handle].conditions):
        draft.emit(
            ev.ConditionApplied(
                handle=handle,
                condition=cat.make(cond_name, ends="event", location=location, note=label, **at),
            )
        )
    return "passed"


def _roll_retest(draft: Draft, step: ev.PendingStep, rest: tuple[ev.PendingStep, ...]) -> None:
    handle = step.who
    c = draft.state.combatants[handle]
    cond = next((x for x in c.conditions if x.id == step.data["condition"]), None)
    label = cond.note if cond else "wound"
    if cond is not None and c.location(cond.location).hp >= 1:
        draft.emit(ev.ConditionExpired(handle=handle, condition_id=cond.id, reason="the location recovered"))
    else:
        _resilience(draft, handle, str(step.data["test"]), label, cond.location if cond else "")
    if not rest:
        from affray.rules.mrq1.turns import fight_over, start_step

        if fight_over(draft):
            return
        rest = (start_step(draft.state),)
    draft.emit(ev.StepsAwaited(steps=rest))


def _roll_knockback(draft: Draft, step: ev.PendingStep, rest: tuple[ev.PendingStep, ...]) -> None:
    handle = step.who
    c = draft.state.combatants[handle]
    tested = test(draft, c, "Acrobatics", skill(c, "Acrobatics"), condition_modifiers(c), "Acrobatics against knockback")
    if tested.result not in ("success", "critical") and c.stance != "prone":
        draft.emit(ev.StanceChanged(handle=handle, stance="prone", reason="knockback"))
    if step.data.get("wall"):
        # Seed 004 "Knockback": knocked back into a wall or other solid
        # object, a Dodge test or 1D4 damage to a random hit location.
        dodged = test(draft, c, "Dodge", skill(c, "Dodge"), condition_modifiers(c, mobility=True), "Dodge: knocked into a wall")
        if dodged.result not in ("success", "critical"):
            slam = ev.PendingStep(
                who=handle, verb="roll", kind="wall-damage",
                prompt=f"{c.name} slams into the wall: roll 1D4 damage and a random hit location 1D20",
                dice=(ev.DiceNeed("slam into the wall", "1D4", by=handle), ev.DiceNeed("hit location", "1D20", by=handle)),
                exchange=step.exchange,
            )
            rest = (slam,) + tuple(rest)
    _continue(draft, rest, f"{c.name} is knocked back")


def _roll_wall(draft: Draft, step: ev.PendingStep, rest: tuple[ev.PendingStep, ...]) -> None:
    """1D4 damage to a random location from a wall (seed 004 "Knockback");
    armour absorbs it as any other damage."""
    handle = step.who
    c = draft.state.combatants[handle]
    amount = draft.roll("1D4", "slam into the wall", by=handle).total
    d20 = draft.roll("1D20", "hit location", by=handle).total
    location = _location_for(c, d20)
    armour = min(amount, c.location(location).ap)
    draft.emit(
        ev.DamageDealt(
            exchange=step.exchange, target=handle, location=location, rolled=amount, reduced=0, armour=armour,
            final=amount - armour, note=f"slammed into a wall; d20={d20}",
        )
    )
    follow = _wound(draft, handle, location, step.exchange) if amount - armour > 0 else []
    _continue(draft, tuple(rest) + tuple(follow), f"{c.name} slams into the wall")


def _roll_yank(draft: Draft, step: ev.PendingStep, rest: tuple[ev.PendingStep, ...]) -> None:
    """Seed 004 "Yanking": a brute force Athletics test. Success: normal
    weapon damage again to the same location, and the weapon is free;
    failure: 1D4 damage to the location and the weapon stays stuck. The
    damage is its own roll step, since its dice depend on the test."""
    x = draft.state.exchange
    assert x is not None
    a = draft.state.combatants[x.attacker]
    location = str(step.data["location"])
    weapon = find_weapon(a, x.weapon, ready_only=False)
    tested = test(draft, a, "Athletics", skill(a, "Athletics"), condition_modifiers(a), f"Athletics: yank {weapon.name} free")
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
    _continue(draft, (after,) + rest, "")


def _roll_yank_damage(draft: Draft, step: ev.PendingStep, rest: tuple[ev.PendingStep, ...]) -> None:
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
    follow = _wound(draft, t.handle, location, x.id) if amount else []
    if not freed:
        _impale(draft, a.handle, t.handle, x.weapon, location)
    _continue(draft, rest + tuple(follow), f"{a.name}'s {x.weapon} {note}")


def _impale(draft: Draft, attacker: str, target: str, weapon: str, location: str) -> None:
    """Seed 004 "Impaled Enemies": −20% to all skill tests, cumulative; the
    attacker no longer holds the weapon."""
    t = draft.state.combatants[target]
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
    draft.emit(ev.WeaponDropped(handle=attacker, weapon=weapon, reason=f"left impaled in {t.name}'s {location}"))


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
    x = state.exchange
    assert x is not None
    from affray.events.mrq1 import GiveGroundChosen, ImpaleChosen

    if step.kind == "impale":
        location = str(step.data["location"])
        draft.emit(
            ImpaleChosen(exchange=x.id, attacker=who, target=x.target, weapon=x.weapon, location=location, choice=option)
        )
        if option == "leave":
            _impale(draft, who, x.target, x.weapon, location)
            _continue(draft, rest, f"{c.name} leaves the {x.weapon} in")
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
        _continue(draft, (yank,) + rest, f"{c.name} yanks")
        return
    follow = option == "follow"
    draft.emit(GiveGroundChosen(exchange=x.id, attacker=who, defender=x.target, follow=follow))
    d = state.combatants[x.target]
    if follow:
        draft.emit(ev.CombatantMoved(handle=who, distance=float(d.movement), reason="follows up"))
    elif x.target in c.engaged:
        draft.emit(ev.EngagementChanged(a=who, b=x.target, engaged=False))
    _continue(draft, rest, f"{c.name} {'follows' if follow else 'stays'}")


def _continue(draft: Draft, steps: tuple[ev.PendingStep, ...], summary: str) -> None:
    """Carry on with ``steps``; when none are left, end the exchange."""
    if steps:
        draft.emit(ev.StepsAwaited(steps=steps))
        return
    end_exchange(draft, summary)


_ROLLS = {
    "damage": _roll_damage,
    "wound": _roll_wound,
    "knockback": _roll_knockback,
    "yank": _roll_yank,
    "yank-damage": _roll_yank_damage,
    "retest": _roll_retest,
    "wall-damage": _roll_wall,
}
