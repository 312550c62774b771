"""Damage: hit location, the default specials by mode, criticals, parries
and armour (seed 002 "MELEE AND MISSILE ATTACKS", "CRITICAL HITS",
"Standard Parry", "@Glancing Parry", "Slam", "Bash", "@Entangle", "@Feint",
"HIGH GROUND", "POINTS FOR OVERLAPPING ARMOR"; rules-reference.md C6).

The dice the damage step lists are always rolled, in order: the hit
location (1D20, or 1D10+10 from high ground), the weapon's dice, a second
roll of them for an impaling special, the damage modifier's dice. A
special then applies by mode and location:

- Slash: maximum weapon damage to head, limbs or abdomen;
- Crush: half of soft armour ignored everywhere; maximum damage modifier
  to head, chest or abdomen;
- Impale: the second roll is added on head, chest or abdomen (ruling
  ``impale_double``).

A critical also ignores all armour. A parry stops up to its weapon's AP (or
all, on a critical parry); the parrying weapon loses 1 AP when a standard
parry is exceeded. A limb takes at most twice its HP (ruling ``wounds``).
"""

from __future__ import annotations

from affray import dice as dicelib
from affray.events import core as ev
from affray.events import rq3 as rev
from affray.rules.base import Draft
from affray.rules.rq3 import core, tables
from affray.rules.rq3.sheet import layered_ap

VITALS = ("head", "chest", "abdomen")


def _armour(t, location: str, *, crush_special: bool) -> int:
    sheet = core.sheet_of(t)
    return layered_ap(sheet.armour.get(location, []), crush_special=crush_special) + sheet.natural_ap


def roll(draft: Draft, step: ev.PendingStep) -> None:
    """Roll the pending damage step and deal the damage."""
    state = draft.state
    x = state.exchange
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    kind, mode, _ = core.kind_parts(x.kind)
    mode, _, where = core.base_mode(mode)
    at_weapon = mode == "break" or (mode == "@entangle" and where == "weapon")
    w = core.weapon_of(a, x.weapon)
    level = str(step.data["level"])
    special = level in ("special", "critical", "maximum")
    critical = level in ("critical", "maximum")
    needs = list(step.dice)
    dodged_through = False
    if int(step.data.get("free-dodge", 0)):
        need = needs.pop(0)
        dodged_through = core.succeeded(core.test(draft, t.handle, "Dodge", core.skill_of(t, "Dodge"),
                                                  purpose=need.purpose))
    notes: list[str] = []
    if "location" in step.data and int(step.data.get("location-first", 0)):
        location = str(step.data["location"])
        notes.append(f"{location} (rolled before the reaction)")
    elif "location" in step.data:
        location = str(step.data["location"])
        notes.append(f"{location} chosen ({'Aimed Shot' if mode == 'aimed' else '@Aimed Blow'})")
    elif at_weapon:
        location = ""
    else:
        need = needs.pop(0)
        d20 = draft.roll(need.expr, need.purpose, by=x.attacker).total
        high = need.expr == "1D10"
        if high:
            d20 += 10  # seed 002 "HIGH GROUND": 1D10+10
        table = "missile" if kind == "missile" and core.rulings_of(state).missile_locations == "missile-table" else "melee"
        location = tables.hit_location(min(20, d20), table)
        notes.append(f"{'1D10+10' if high else 'd20'}={d20} {location}")
    needs.insert(0, ev.DiceNeed("", ""))  # keeps the positions below
    weapon_total, db_total, knock = 0, 0, 0
    rest = needs[1:]
    if mode == "bash" and not core.bash_adds_weapon(state, w):
        notes.append(f"bash: {w.name} adds no weapon damage (thrusting only, or SR 3)")
    elif mode != "slam":
        r = draft.roll(rest[0].expr, rest[0].purpose, by=x.attacker)
        rest = rest[1:]
        weapon_total = r.total
        top = dicelib.parse(w.damage).maximum()
        if level == "maximum" or (special and mode == "slash" and location != "chest"):
            weapon_total = top
            notes.append(f"{'slash special: ' if mode == 'slash' else ''}maximum weapon damage {top}")
        if mode == "impale" and special and rest and rest[0].purpose.startswith("impale"):
            second = draft.roll(rest[0].expr, rest[0].purpose, by=x.attacker).total
            rest = rest[1:]
            if location in VITALS:
                weapon_total += second
                notes.append(f"impale special: weapon damage doubled (+{second})")
            else:
                notes.append("impale special: the second roll counts only on head, chest or abdomen")
    if rest and rest[0].purpose == "damage modifier":
        r = draft.roll(rest[0].expr, rest[0].purpose, by=x.attacker)
        rest = rest[1:]
        db_total = r.total
        db_text = core.blow_damage_modifier(state, a)
        if (level == "maximum" or (special and mode == "crush" and location in VITALS)) and not db_text.startswith("-"):
            db_total = dicelib.parse(db_text.lstrip("+")).maximum()
            notes.append(f"crush special: maximum damage modifier {db_total}")
        if db_text.startswith("-"):
            db_total = -db_total
        if kind == "missile" and w.thrown and core.rulings_of(state).thrown_damage_modifier == "half":
            db_total = int(db_total / 2)
            notes.append("thrown: half the damage modifier")
    sheet = core.sheet_of(a)
    if mode == "slam":
        knock = sheet.characteristics.STR + sheet.characteristics.SIZ
        knock *= 2 if special else 1
        rolled = 0
        notes.append(f"slam: {knock} points of knockback, no damage")
    elif mode == "bash":
        knock = weapon_total + (sheet.characteristics.STR + sheet.characteristics.SIZ) // 2
        rolled = 0
        notes.append(f"bash: {knock} points of knockback, no damage")
    else:
        rolled = max(0, weapon_total + db_total)
        if mode == "@entangle" and special:
            rolled = max(0, weapon_total // 2 + db_total)
            notes.append(f"@Entangle: half weapon damage; the {'weapon' if at_weapon else 'location'} is entangled")
    block = int(step.data.get("block", 0))
    block_all = bool(step.data.get("block-all", 0))
    tactic = str(step.data.get("tactic", ""))
    passed = 0 if block_all else max(0, rolled - block)
    if dodged_through and passed:
        notes.append(f"@Weave: the free dodge evades the {passed} points through the parry")
        passed = 0
    if at_weapon:
        return _break_weapon(draft, step, rolled, notes, rest if mode == "@entangle" and special else [])
    reduced = rolled - passed
    crush_special = special and mode == "crush"
    ignore = critical or (mode in ("@feint", "@flurry") and level == "critical")
    armour = 0 if ignore else _armour(t, location, crush_special=crush_special)
    spell = core.spell_ap(t)
    if spell and not ignore:
        armour += spell
        notes.append(f"protective spells +{spell} AP")
    elif spell:
        notes.append("critical: protective spells ignored too")  # seed 002 "CRITICAL HITS"
    if kind == "missile" and not ignore:
        cover = _cover(t, x.attacker, location)
        if cover:
            armour += cover[1]
            notes.append(f"{cover[0]} covers the {location} (+{cover[1]} AP)")
    if ignore:
        notes.append("critical: armour ignored")
    elif crush_special:
        notes.append("crush special: half of soft armour ignored")
    loc = t.location(location)
    final = max(0, passed - armour)
    if loc.limb:
        final = min(final, max(0, loc.hp + loc.max_hp))  # a limb takes at most twice its HP
    draft.emit(ev.DamageDealt(exchange=x.id, target=t.handle, location=location, rolled=rolled, reduced=reduced,
                              armour=min(armour, passed), final=final, critical=critical, note="; ".join(notes)))
    if special and mode in ("slash", "crush", "impale") and level != "maximum":
        done = [n.split(": ", 1)[-1] for n in notes[1:] if n.startswith(mode)]
        detail = "; ".join(done) or f"no effect on the {location}"
        draft.emit(rev.SpecialApplied(exchange=x.id, by=x.attacker, effect=mode,
                                      detail=detail + ("; armour ignored (critical)" if critical else "")))
    pw = str(step.data.get("parry-weapon", ""))
    if pw:
        _parrying_weapon(draft, t.handle, pw, str(step.data.get("parry-level", "")), tactic, rolled, block, level)
    if mode == "@entangle" and special:
        core.condition(draft, t.handle, "entangled", ends="event", location=location, note=f"by {a.name}'s {w.name}")
    _extras(draft, step, rest, location)
    penetrated = final > 0
    draft.then("wounds", target=t.handle, location=location, final=final)
    draft.then("knockback", target=t.handle, rolled=rolled if mode not in ("slam", "bash") else knock,
               penetrated=int(penetrated or mode in ("slam", "bash")), mode=mode, special=int(special))


def _parrying_weapon(draft: Draft, handle: str, weapon: str, level: str, tactic: str, rolled: int, block: int,
                     hit: str = "success") -> None:
    """Standard Parry: the parrying weapon loses 1 AP from an attack that
    exceeds its AP; a special parry spares it from normal and special
    attacks (not from a critical one), unless the tactic exposes it
    (@Weave, @Riposte, @Active); a critical parry and a critical @Glancing
    Parry always spare it (seed 002 "MELEE PARRIES")."""
    if not core.succeeded(level) or rolled <= block:
        return
    if level == "critical" and tactic not in ("@weave", "@riposte", "@active"):
        return
    if level == "special" and tactic not in ("@weave", "@riposte", "@active") and hit not in ("critical", "maximum"):
        return
    c = draft.state.combatants[handle]
    old = next((x for x in c.conditions if x.id == f"weapon-damaged:{weapon}"), None)
    lost = (old.effects.get("ap-lost", 0) if old else 0) + 1
    core.condition(draft, handle, "weapon-damaged", ends="never", key=weapon, effects={"ap-lost": lost},
                   note=f"{weapon} -{lost} AP")


def _break_weapon(draft: Draft, step: ev.PendingStep, rolled: int, notes: list[str],
                  entangle: list[ev.DiceNeed] | None = None) -> None:
    """Break Weapon (seed 002): the blow strikes the weapon parrying it, or
    the target's first ready weapon (ruling ``break_target``). An equal
    level of parry costs it 1 AP if the damage exceeds its AP; a higher
    attack level, or no parry with it, costs it all damage over its AP. No
    default special applies. At 0 AP it breaks.

    @Entangle at a weapon (seed 002 "@Entangle") strikes it the same way
    (half weapon damage on a special); on a special ``entangle`` holds the
    STR vs STR roll that pulls it "out of the grasp of its wielder" (STR
    x1.5 for the side the ruling ``entangle_two_hands`` names) and the
    1D6-1 m where it lands."""
    state = draft.state
    x = state.exchange
    t = state.combatants[x.target]
    pw = str(step.data.get("parry-weapon", ""))
    name = pw or (t.ready[0] if t.ready else "")
    if not name:
        return core.end_exchange(draft, f"{t.name} holds no weapon to break")
    w = core.weapon_of(t, name)
    ap = core.weapon_ap(t, w)
    hit = str(step.data["level"])
    parried = str(step.data.get("parry-level", "")) if pw else ""
    from_rank = {"success": 2, "special": 3, "critical": 4, "maximum": 4}
    if parried and core.succeeded(parried) and from_rank.get(hit, 2) <= from_rank.get(parried, 2):
        lost = 1 if rolled > ap and from_rank.get(hit, 2) == from_rank.get(parried, 2) else 0
    else:
        lost = max(0, rolled - ap)
    old = next((c for c in t.conditions if c.id == f"weapon-damaged:{w.name}"), None)
    total = (old.effects.get("ap-lost", 0) if old else 0) + lost
    draft.emit(rev.SpecialApplied(exchange=x.id, by=x.attacker, effect="break weapon",
                                  detail=f"{rolled} points against {t.name}'s {w.name} (AP {ap}): it loses {lost} AP"))
    if lost:
        core.condition(draft, t.handle, "weapon-damaged", ends="never", key=w.name, effects={"ap-lost": total},
                       note=f"{w.name} -{total} AP")
    if lost and w.ap - total <= 0:
        draft.emit(ev.WeaponDropped(handle=t.handle, weapon=w.name, reason="broken"))
    elif entangle:
        _entangle_weapon(draft, w, entangle)
    core.end_exchange(draft)


def _entangle_weapon(draft: Draft, target_weapon, needs: list[ev.DiceNeed]) -> None:
    """The entangled weapon is pulled away on a STR vs STR roll, landing
    1D6-1 m away (seed 002 "@Entangle"; STR x1.5 by ruling
    ``entangle_two_hands``)."""
    state = draft.state
    x = state.exchange
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    aw = core.weapon_of(a, x.weapon)
    mine, theirs = core.sheet_of(a).characteristics.STR, core.sheet_of(t).characteristics.STR
    two = aw.hands == 2 if core.rulings_of(state).entangle_two_hands == "attacking-weapon" else target_weapon.hands == 2
    if two:
        theirs = theirs * 3 // 2
    pull, land = needs[0], needs[1]
    ok = core.resist(draft, a.handle, mine, theirs, pull.purpose)
    metres = draft.roll(land.expr, land.purpose, by=a.handle).total - 1
    draft.emit(rev.SpecialApplied(exchange=x.id, by=a.handle, effect="entangle",
                                  detail=f"{t.name}'s {target_weapon.name} is entangled"
                                  + (f" and pulled away: it lands {metres} m away" if ok else "; it stays in hand")))
    if ok:
        draft.emit(ev.WeaponDropped(handle=t.handle, weapon=target_weapon.name,
                                    reason=f"pulled away by {a.name}'s {aw.name}: lands {metres} m away"))
    else:
        core.condition(draft, t.handle, "entangled", ends="event", key=target_weapon.name,
                       note=f"{target_weapon.name} entangled by {a.name}'s {aw.name}")


def _extras(draft: Draft, step: ev.PendingStep, rest: list, location: str) -> None:
    """The rolls a tactic adds after the damage (seed 002): @Active Parry
    (a special bladed parry does its damage to the attacking weapon: what
    exceeds its AP), @Swordbreaking
    (a special parry: STR vs STR to disarm, ruling ``swordbreaking_option``;
    a critical disarms at once; the weapon lands 1D3-1 m away), @Entangle
    (STR vs STR: the entangled location is immobilised), a critical Slam
    (DEX x1 to stay standing, DEX x1 to keep hold of held items)."""
    state = draft.state
    x = state.exchange
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    sa, st = core.sheet_of(a).characteristics, core.sheet_of(t).characteristics
    caught = True  # a critical swordbreaking parry disarms without a roll
    breaker = [n for n in rest if n.purpose.startswith("@Swordbreaking") and " damages the " in n.purpose]
    if breaker:
        _swordbreaker_damage(draft, [n for n in rest if n.purpose.startswith("@Swordbreaking")], step)
        rest = [n for n in rest if not n.purpose.startswith("@Swordbreaking")]
    for need in rest:
        if need.purpose.startswith("@Swordbreaking"):
            aw = core.weapon_of(a, x.weapon)
            theirs = sa.STR * 3 // 2 if aw.hands == 2 else sa.STR
            caught = core.resist(draft, t.handle, st.STR, theirs, need.purpose)
        elif need.purpose.startswith("where the caught weapon"):
            metres = draft.roll(need.expr, need.purpose, by=t.handle).total - 1
            if caught:
                draft.emit(ev.WeaponDropped(handle=a.handle, weapon=x.weapon,
                                            reason=f"caught by {t.name}'s swordbreaker: lands {metres} m away"))
        elif need.purpose.startswith("@Active Parry"):
            rolled = draft.roll(need.expr, need.purpose, by=t.handle).total
            aw = core.weapon_of(a, x.weapon)
            ap = core.weapon_ap(state.combatants[a.handle], aw)
            lost = max(0, rolled - ap)
            if lost:
                old = next((c for c in state.combatants[a.handle].conditions if c.id == f"weapon-damaged:{aw.name}"), None)
                total = (old.effects.get("ap-lost", 0) if old else 0) + lost
                core.condition(draft, a.handle, "weapon-damaged", ends="never", key=aw.name, effects={"ap-lost": total},
                               note=f"{aw.name} -{total} AP")
                if aw.ap - total <= 0:
                    draft.emit(ev.WeaponDropped(handle=a.handle, weapon=aw.name, reason="broken by an @Active Parry"))
            draft.emit(rev.SpecialApplied(exchange=x.id, by=t.handle, effect="active",
                                          detail=f"{rolled} points against the {aw.name} (AP {ap}): it loses {lost} AP"))
        elif need.purpose.startswith("@Entangle"):
            if core.resist(draft, a.handle, sa.STR, st.STR, need.purpose):
                core.condition(draft, t.handle, "entangled", ends="event", location=location,
                               effects={"useless": 1}, note=f"{location} immobilised by {a.name}")
        elif need.purpose.startswith("DEX x1"):
            ok = core.succeeded(core.test(draft, t.handle, "DEX x1", st.DEX, purpose=need.purpose))
            if not ok and "standing" in need.purpose and state.combatants[t.handle].stance == "standing":
                draft.emit(ev.StanceChanged(handle=t.handle, stance="prone", reason="a critical Slam"))
            if not ok and "hold" in need.purpose:
                for held in state.combatants[t.handle].ready:
                    draft.emit(ev.WeaponDropped(handle=t.handle, weapon=held, reason="a critical Slam"))


def _swordbreaker_damage(draft: Draft, needs: list[ev.DiceNeed], step: ev.PendingStep) -> None:
    """@Swordbreaking's damage option (seed 002): "the swordbreaker's damage
    plus his or her damage bonus directly to the armor points of the
    attacking weapon"; less than its AP does only 1 AP; a critical parry
    doubles the damage. At 0 AP the weapon breaks."""
    state = draft.state
    x = state.exchange
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    total = 0
    for need in needs:
        r = draft.roll(need.expr, need.purpose, by=t.handle).total
        negative = need.purpose.endswith("damage modifier") and core.derived(t).damage_modifier.startswith("-")
        total += -r if negative else r
    total = max(0, total)
    if str(step.data.get("parry-level", "")) == "critical":
        total *= 2
    aw = core.weapon_of(a, x.weapon)
    ap = core.weapon_ap(a, aw)
    lost = total if total >= ap else 1
    old = next((c for c in a.conditions if c.id == f"weapon-damaged:{aw.name}"), None)
    gone = (old.effects.get("ap-lost", 0) if old else 0) + lost
    draft.emit(rev.SpecialApplied(exchange=x.id, by=t.handle, effect="swordbreaking",
                                  detail=f"the caught {aw.name} takes {total} points against its {ap} AP: it loses {lost} AP"))
    core.condition(draft, a.handle, "weapon-damaged", ends="never", key=aw.name, effects={"ap-lost": gone},
                   note=f"{aw.name} -{gone} AP")
    if aw.ap - gone <= 0:
        draft.emit(ev.WeaponDropped(handle=a.handle, weapon=aw.name, reason=f"broken by {t.name}'s swordbreaker"))


def _cover(t, attacker: str, location: str) -> tuple[str, int] | None:
    """A shield declared to cover ``location`` against ``attacker``'s
    missiles (seed 002: "Instead of parrying, shields can be used to cover
    locations"): ``(shield, its AP now)``, or None."""
    for d in core.declared(t):
        if d.kind == "parry" and not d.abort and d.target in ("", attacker) and d.mode.startswith("cover/"):
            if location in d.mode.split("/", 1)[1].split("+"):
                w = core.weapon_of(t, d.weapon)
                return w.name, core.weapon_ap(t, w)
    return None
