"""What each Special Effect does once chosen (seed 001 "Special Effect
Descriptions"), apart from those that shape the damage roll (in
:mod:`affray.rules.mythras.damage`: Maximize Damage, Bypass Armor, Impale,
Bleed, Stun Location, Choose Location, Sharpshooter, Bash, Sunder, the
attacker's Damage Weapon, the attacker's Entangle).

Here: the opposed-roll steps (Trip Opponent, Disarm Opponent, Blind
Opponent, the defender's Damage Weapon and Entangle, Accidental Injury),
Damage Weapon and Entangle themselves (steps ``effects:damage-weapon`` and
``effects:entangle``, which the damage roll queues for the attacker's),
and the follow-up choices of other steps (a crowd's victim, the end of a
charge, Sharpshooter's location). The picks and the effects that act as
they are chosen are in :mod:`affray.rules.mythras.effect_choice`.

Step ``effects:after-choice`` (:func:`after_choice`) runs once the picks
are made: the effects' steps, then ``damage:offer`` (the damage roll, or
the end of the exchange).
"""

from __future__ import annotations

from affray import dice as dicelib
from affray.events import core as ev
from affray.events.mythras import SpecialEffectChosen
from affray.projections.state import State
from affray.rules.base import Draft
from affray.rules.mythras import conditions as cat
from affray.rules.mythras import tables
from affray.rules.mythras.core import (
    at,
    defer_attack,
    find_weapon,
    go_on,
    grade_modifiers,
    held_weapon,
    offer_luck,
    resister_fails,
    rulings_of,
    sheet_of,
    test,
    weapon_hp,
    weapon_struck,
)
from affray.rules.mythras.sheet import derive


# --------------------------------------------------------------------------- #
# Steps after the picks
# --------------------------------------------------------------------------- #


def trip_step(state: State, data: dict) -> ev.PendingStep:
    """Trip Opponent: the loser's opposed roll of Brawn, Evade or Acrobatics
    (the best) against the winner's original roll (seed 001)."""
    loser = state.combatants[str(data["loser"])]
    return ev.PendingStep(
        who=loser.handle, verb="roll", kind="trip",
        prompt=f"{loser.name}: opposed roll against Trip Opponent ({data['roll']} vs {data['skill']}%) or fall prone",
        dice=(ev.DiceNeed("Brawn/Evade/Acrobatics (trip)", "1D100", by=loser.handle),), exchange=state.exchange.id,
        data={"roll": data["roll"], "skill": data["skill"]},
    )


def roll_trip(draft: Draft, step: ev.PendingStep, rest) -> None:
    """The roll against Trip Opponent (or an entangling weapon's trip): the
    best of Brawn, Evade and Acrobatics (Athletics, one grade easier, for a
    quadruped), opposed to the original roll; lost, the victim falls prone
    (seed 001 "Trip Opponent", "Entangle")."""
    c = draft.state.combatants[step.who]
    s = sheet_of(c)
    options = [("Brawn", s.skill("Brawn")), ("Evade", s.skill("Evade")), ("Acrobatics", s.skill("Acrobatics"))]
    extra = []
    if s.legs >= 4:  # seed 001 "Trip Opponent": quadrupeds may use Athletics for Evade, one grade easier
        options.append(("Athletics", s.skill("Athletics")))
        extra = [("easy", "a quadruped resisting Trip Opponent")]
    name, skill = max(options, key=lambda p: p[1])
    tripped = True
    if not step.data.get("forced"):
        tested = test(draft, c, name, skill, "resist Trip Opponent",
                      grade_modifiers(draft.state, c, skill, (), "both", combat=False, extra=extra))
        tripped = resister_fails(draft, tested.result, tested.roll, int(step.data["roll"]), int(step.data["skill"]))
        if offer_luck(draft, c, step, rest, tripped):
            return
    if tripped and c.stance != "prone":
        draft.emit(ev.StanceChanged(handle=c.handle, stance="prone", reason=str(step.data.get("why", "Trip Opponent"))))
    go_on(draft, rest, f"{c.name} {'is tripped' if tripped else 'resists the trip'}")


def _dm_dice(state: State, handle: str) -> str:
    dm = derive(sheet_of(state.combatants[handle]), rulings_of(state)).damage_modifier
    return dm if dm and dicelib.count_dice(dm) and not dm.startswith("-") else ""


def effect_steps(draft: Draft, data: dict, chosen: list[str]) -> list[ev.PendingStep]:
    """The steps (and immediate outcomes) of the picked effects, in order:
    Trip Opponent, Disarm Opponent, Blind Opponent (their opposed rolls;
    Force Failure makes the resister fail outright), the defender's Damage
    Weapon and Entangle, Accidental Injury; Select Target defers the blow
    onto the bystander (seed 001)."""
    state = draft.state
    x = state.exchange
    steps: list[ev.PendingStep] = []
    if not chosen and not data.get("counter"):
        return steps
    side = str(data.get("side", ""))
    winner = x.attacker if side == "attacker" else x.target
    loser = str(data.get("loser", ""))
    forced = "force-failure" in chosen
    l = state.combatants.get(loser)
    if "trip-opponent" in chosen:
        if forced:
            draft.emit(ev.NoteAdded(text=f"Force Failure: {l.name} fails the roll against Trip Opponent"))
            if l.stance != "prone":
                draft.emit(ev.StanceChanged(handle=loser, stance="prone", reason="Trip Opponent (Force Failure)"))
        else:
            steps.append(trip_step(state, data))
    if "disarm-opponent" in chosen:
        steps.append(_disarm_step(state, winner, loser, data, forced))
    if "blind-opponent" in chosen:
        steps.append(_blind_step(state, winner, loser, data, forced, str(data.get("blind", "hard"))))
    counter = str(data.get("counter", ""))
    if counter.endswith(">blind-opponent"):
        by = counter.split(">")[0]
        other = x.attacker if by == x.target else x.target
        steps.append(_blind_step(state, by, other, data, True, "hard"))
    if "damage-weapon" in chosen and side == "defender":
        steps.append(_weapon_damage_step(state, winner, loser, data))
    if "entangle" in chosen and side == "defender":
        c = state.combatants[winner]
        steps.append(ev.PendingStep(
            who=winner, verb="roll", kind="entangle",
            prompt=f"{c.name}: roll the location of {l.name} the {data.get('item') or 'weapon'} entangles",
            dice=(ev.DiceNeed("entangled location", "1D20", by=winner),), exchange=x.id,
            data={"weapon": str(data.get("item", "")), "victim": loser}))
    if "accidental-injury" in chosen:
        a = state.combatants[x.attacker]
        w = find_weapon(a, x.weapon, ready_only=False)
        needs = [ev.DiceNeed(f"{w.name} damage (own)", w.damage, by=a.handle)]
        dm = _dm_dice(state, a.handle)
        if dm and w.kind != "ranged":
            needs.append(ev.DiceNeed("damage modifier (own)", str(dicelib.parse(dm.lstrip("+"))), by=a.handle))
        needs.append(ev.DiceNeed("hit location (own)", "1D20", by=a.handle))
        steps.append(ev.PendingStep(
            who=a.handle, verb="roll", kind="injury",
            prompt=f"{a.name}: the fumble turns on its wielder: roll {w.name} damage against yourself and a location",
            dice=tuple(needs), exchange=x.id, data={"roll": data.get("roll", 0), "skill": data.get("skill", 0)}))
    if "select-target" in chosen and data.get("bystander"):
        defer_attack(draft, x.attacker, str(data["bystander"]), x.weapon, x.roll, x.skill, "bystander")
    return steps


def after_choice(draft: Draft, data: dict) -> None:
    """After the Special Effects (step ``effects:after-choice``): their
    opposed rolls and other steps (:func:`effect_steps`), then
    ``damage:offer`` adds the damage roll if the attack succeeded, or ends
    the exchange (seed 001 "Special Effects", "Attacks and Parries")."""
    chosen = [k for k in str(data.get("chosen", "")).split(",") if k]
    steps = effect_steps(draft, data, chosen)
    draft.then("damage:offer", data=data, chosen=chosen, steps=steps)


def _disarm_step(state: State, winner: str, loser: str, data: dict, forced: bool) -> ev.PendingStep:
    l = state.combatants[loser]
    w = held_weapon(state, loser)
    needs = [] if forced else [ev.DiceNeed(f"{l.name}: Combat Style against Disarm", "1D100", by=loser)]
    dm = _dm_dice(state, winner)
    if dm:
        needs.append(ev.DiceNeed("distance flung (Damage Modifier x3 ft, if disarmed)", str(dicelib.parse(dm.lstrip("+"))), by=winner))
    return ev.PendingStep(
        who=loser, verb="roll", kind="disarm",
        prompt=f"{l.name}: opposed Combat Style against Disarm Opponent ({data['roll']} vs {data['skill']}%) or lose {w.name}"
        if not forced else f"{l.name} is disarmed (Force Failure): roll how far {w.name} flies",
        dice=tuple(needs), exchange=state.exchange.id,
        data={"roll": data["roll"], "skill": data["skill"], "winner": winner, "weapon": w.name, "forced": int(forced),
              "item": str(data.get("item", ""))})


def _blind_step(state: State, winner: str, loser: str, data: dict, forced: bool, grade: str) -> ev.PendingStep:
    l = state.combatants[loser]
    needs = [] if forced else [ev.DiceNeed(f"{l.name}: Evade against Blind Opponent", "1D100", by=loser)]
    needs.append(ev.DiceNeed("Turns blinded", "1D3", by=winner))
    return ev.PendingStep(
        who=loser, verb="roll", kind="blind",
        prompt=(f"{l.name}: opposed Evade (or Combat Style with a shield) against Blind Opponent "
                f"({data['roll']} vs {data['skill']}%), or be blinded ({grade}) for 1D3 Turns") if not forced
        else f"{l.name} is blinded ({grade}): roll 1D3 Turns",
        dice=tuple(needs), exchange=state.exchange.id,
        data={"roll": data["roll"], "skill": data["skill"], "winner": winner, "grade": grade, "forced": int(forced)})


def _weapon_damage_step(state: State, winner: str, loser: str, data: dict) -> ev.PendingStep:
    c = state.combatants[winner]
    mine = find_weapon(c, str(data["item"]), ready_only=False)
    target = weapon_struck(state, winner, loser)
    needs = [ev.DiceNeed(f"{mine.name} damage (against {target.name})", mine.damage, by=winner)]
    dm = _dm_dice(state, winner)
    if dm:
        needs.append(ev.DiceNeed("damage modifier", str(dicelib.parse(dm.lstrip("+"))), by=winner))
    return ev.PendingStep(
        who=winner, verb="roll", kind="weapon-damage",
        prompt=f"{c.name}: roll {mine.name} damage against {state.combatants[loser].name}'s {target.name} (Damage Weapon)",
        dice=tuple(needs), exchange=state.exchange.id,
        data={"owner": loser, "weapon": target.name, "with": mine.name})


# --------------------------------------------------------------------------- #
# Roll-step handlers
# --------------------------------------------------------------------------- #


def disarm(draft: Draft, handle: str, weapon: str, why: str) -> None:
    """``handle`` loses ``weapon``: it drops, 2 Actions to pick up again,
    and lets go of what it entangles (seed 001 "Disarm Opponent", "Ready";
    also step ``effects:disarm``, a prepared counter's Disarm)."""
    state = draft.state
    c = state.combatants[handle]
    w = find_weapon(c, weapon, ready_only=False)
    draft.emit(ev.WeaponDropped(handle=handle, weapon=w.name, reason=why))
    idx = [x.name for x in sheet_of(c).weapons].index(w.name)
    draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
        "dropped", ends="event", key=w.name.lower(), effects={"weapon": idx, "stage": 0},
        note=f"{w.name} lies on the ground: 2 Actions to pick it up", **at(draft))))
    # a weapon that drops lets go of what it entangles
    for other in state.combatants.values():
        for cond in other.conditions:
            if cond.name == "entangled" and cat.from_of(cond) == handle and cond.effects.get("weapon") == idx:
                draft.emit(ev.ConditionExpired(handle=other.handle, condition_id=cond.id, reason=f"{w.name} dropped"))


def roll_disarm(draft: Draft, step: ev.PendingStep, rest) -> None:
    """Disarm Opponent: an opposed roll of the loser's Combat Style against
    the original roll, one grade harder for each step the disarmer's weapon
    is larger (easier for each smaller); lost: the weapon flies the
    disarmer's Damage Modifier x3 feet, or drops at the feet (seed 001)."""
    state = draft.state
    c = state.combatants[step.who]
    winner = state.combatants[str(step.data["winner"])]
    w = find_weapon(c, str(step.data["weapon"]), ready_only=False)
    forced = bool(step.data.get("forced"))
    lost = True
    if not forced:
        x = state.exchange
        theirs = (find_weapon(winner, x.weapon, ready_only=False) if x.weapon else None) if winner.handle == x.attacker else (
            find_weapon(winner, str(step.data["item"]), ready_only=False) if step.data.get("item") else None)
        steps = tables.size_index(theirs.size) - tables.size_index(w.size) if theirs is not None else 0
        skill_name, skill = sheet_of(c).weapon_skill(w)
        extra = [(tables.shift("standard", steps), f"Disarm: the disarming weapon is {abs(steps)} Size(s) "
                  f"{'larger' if steps > 0 else 'smaller'}")] if steps else []
        tested = test(draft, c, skill_name, skill, "resist Disarm Opponent",
                      grade_modifiers(state, c, skill, (), "both", combat=False, extra=extra))
        lost = resister_fails(draft, tested.result, tested.roll, int(step.data["roll"]), int(step.data["skill"]))
        if offer_luck(draft, c, step, rest, lost):
            return
    dm = _dm_dice(state, winner.handle)
    feet = 3 * draft.roll(str(dicelib.parse(dm.lstrip("+"))), "distance flung (x3 ft)", by=winner.handle).total if dm else 0
    if lost:
        disarm(draft, c.handle, w.name, f"disarmed by {winner.name}: " + (f"flung {feet} ft" if feet else "drops at their feet"))
    go_on(draft, rest, f"{c.name} {'is disarmed' if lost else 'keeps hold of ' + w.name}")


def roll_blind(draft: Draft, step: ev.PendingStep, rest) -> None:
    """Blind Opponent: the loser's opposed Evade (or Combat Style when it
    holds a shield) against the original parry roll; a failure means a
    Hard or Formidable situational modifier for the next 1d3 Turns (seed
    001)."""
    state = draft.state
    c = state.combatants[step.who]
    blinded = True
    if not step.data.get("forced"):
        s = sheet_of(c)
        shield = next((w for w in s.weapons if w.kind == "shield" and w.name in c.ready), None)
        skill_name, skill = s.weapon_skill(shield) if shield is not None else ("Evade", s.skill("Evade"))
        tested = test(draft, c, skill_name, skill, "resist Blind Opponent",
                      grade_modifiers(state, c, skill, (), "both", combat=False))
        blinded = resister_fails(draft, tested.result, tested.roll, int(step.data["roll"]), int(step.data["skill"]))
        if offer_luck(draft, c, step, rest, blinded):
            return
    turns = draft.roll("1D3", "Turns blinded", by=str(step.data["winner"])).total
    if blinded:
        grade = str(step.data["grade"])
        draft.emit(ev.ConditionApplied(handle=c.handle, condition=cat.make(
            "blinded", ends="actions", count=turns, effects={"grade": tables.GRADE_ORDER.index(grade)},
            note=f"Blind Opponent: {grade} for {turns} Turn(s)", **at(draft))))
    go_on(draft, rest, f"{c.name} {'is blinded' if blinded else 'is not blinded'}")


def damage_weapon(draft: Draft, owner: str, weapon: str, damage: int, why: str) -> None:
    """Apply ``damage`` to a weapon: its own Armor Points resist, the rest
    comes off its Hit Points; at 0 it breaks (seed 001 "Damage Weapon";
    step ``effects:damage-weapon`` for the attacker's), and a broken
    entangling weapon frees whoever it entangles ("Entangle")."""
    state = draft.state
    c = state.combatants[owner]
    w = find_weapon(c, weapon, ready_only=False)
    through = max(0, damage - w.ap)
    left = weapon_hp(c, w) - through
    old = next((k for k in c.conditions if k.id == f"weapon-damaged:{w.name.lower()}"), None)
    lost = (old.effects.get("hp-lost", 0) if old else 0) + through
    draft.emit(ev.NoteAdded(text=f"{why}: {damage} damage to {c.name}'s {w.name} (AP {w.ap}) → {through} HP lost, {max(0, left)} left"))
    if through:
        draft.emit(ev.ConditionApplied(handle=owner, condition=cat.make(
            "weapon-damaged", ends="never", key=w.name.lower(), effects={"hp-lost": lost, "broken": int(left <= 0)},
            note=f"{w.name}: {max(0, left)}/{w.hp} HP" + (" — broken" if left <= 0 else ""), **at(draft))))
    if left <= 0 and w.name in c.ready:
        draft.emit(ev.WeaponDropped(handle=owner, weapon=w.name, reason="broken (Damage Weapon)"))
    if left <= 0:
        # seed 001 "Entangle": the victim frees himself if he "win[s] a
        # Special Effect and select[s] Damage Weapon": a broken entangling
        # weapon lets go of what it holds
        idx = [x.name for x in sheet_of(c).weapons].index(w.name)
        for other in state.combatants.values():
            for cond in other.conditions:
                if cond.name == "entangled" and cat.from_of(cond) == owner and cond.effects.get("weapon") == idx:
                    draft.emit(ev.ConditionExpired(handle=other.handle, condition_id=cond.id,
                                                   reason=f"{c.name}'s {w.name} is broken (Damage Weapon)"))


def roll_weapon_damage(draft: Draft, step: ev.PendingStep, rest) -> None:
    """The defender's Damage Weapon: its parrying weapon's damage roll (with
    the Damage Modifier) against the attacker's weapon (seed 001)."""
    c = draft.state.combatants[step.who]
    mine = find_weapon(c, str(step.data["with"]), ready_only=False)
    total = draft.roll(mine.damage, f"{mine.name} damage (Damage Weapon)", by=c.handle).total
    dm = _dm_dice(draft.state, c.handle)
    if dm:
        total += draft.roll(str(dicelib.parse(dm.lstrip("+"))), "damage modifier", by=c.handle).total
    damage_weapon(draft, str(step.data["owner"]), str(step.data["weapon"]), total, f"Damage Weapon by {c.name}")
    go_on(draft, rest, f"{c.name} damages a weapon")


def entangle(draft: Draft, wielder: str, victim: str, weapon: str, location: str) -> None:
    """Entangle: the location is immobilised (seed 001): an arm cannot use
    what it holds, a snared leg cannot move, head or body make all skill
    rolls one grade harder. Step ``effects:entangle`` for the attacker's."""
    state = draft.state
    w = state.combatants[wielder]
    idx = [x.name for x in sheet_of(w).weapons].index(weapon) if weapon else 0
    limb = state.combatants[victim].location(location).limb
    effects = {f"from:{wielder}": 1, "weapon": idx}
    if not limb:
        effects["harder"] = 1
    draft.emit(ev.ConditionApplied(handle=victim, condition=cat.make(
        "entangled", ends="event", location=location, effects=effects,
        note=f"entangled by {w.name}'s {weapon or 'weapon'}", **at(draft))))


def roll_entangle(draft: Draft, step: ev.PendingStep, rest) -> None:
    """The defender's Entangle: the location its weapon entangles, by d20
    (seed 001 "Entangle")."""
    d20 = draft.roll("1D20", "entangled location", by=step.who).total
    location = tables.hit_location(d20)
    entangle(draft, step.who, str(step.data["victim"]), str(step.data["weapon"]), location)
    go_on(draft, rest, f"{location} entangled")


def roll_injury(draft: Draft, step: ev.PendingStep, rest) -> None:
    """Accidental Injury: the fumbling attacker rolls his weapon's damage
    against himself in a random location; unarmed, the damage ignores
    armour (seed 001). Wounds follow as usual, the opposed Endurance roll
    against the defender's roll. The damage is step ``wounds:hurt``."""
    state = draft.state
    x = state.exchange
    a = state.combatants[x.attacker]
    w = find_weapon(a, x.weapon, ready_only=False)
    total = draft.roll(w.damage, f"{w.name} damage (own)", by=a.handle).total
    dm = _dm_dice(state, a.handle)
    if dm and w.kind != "ranged":
        total += draft.roll(str(dicelib.parse(dm.lstrip("+"))), "damage modifier (own)", by=a.handle).total
    d20 = draft.roll("1D20", "hit location (own)", by=a.handle).total
    location = tables.hit_location(d20)
    draft.then("wounds:hurt", handle=a.handle, location=location, amount=total, ignore_armour=w.kind == "unarmed",
               base={"roll": int(step.data["roll"]), "skill": int(step.data["skill"])},
               note=f"Accidental Injury; d20={d20}" + ("; unarmed: armour ignored" if w.kind == "unarmed" else ""),
               then="effects:injured", rest=tuple(rest), summary=f"{a.name} injures themself")


def injured(draft: Draft, follow, rest, summary: str) -> None:
    """After Accidental Injury's damage (step ``effects:injured``): the
    rest of the pending steps, then the wound's."""
    go_on(draft, tuple(rest) + tuple(follow), summary)


# --------------------------------------------------------------------------- #
# Follow-up choices of other steps
# --------------------------------------------------------------------------- #


def crowd_victim(draft: Draft, step: ev.PendingStep, option: str) -> None:
    """The GM's pick of who a shot into a crowd strikes instead (step
    ``choose:crowd-victim``; seed 001 "Firing into a Crowd"): this exchange
    ends, the blow's own opens (``special:open-deferred``)."""
    x = draft.state.exchange
    draft.emit(ev.NoteAdded(text=f"the shot strikes {draft.state.combatants[option].name} instead"))
    draft.emit(ev.ReactionChosen(exchange=x.id, handle=x.target, reaction="none"))
    draft.emit(ev.ExchangeEnded(exchange=x.id, summary="the shot goes astray"))
    draft.then("special:open-deferred", attacker=x.attacker, target=option, weapon=str(step.data["weapon"]),
               roll=int(step.data["roll"]), skill=int(step.data["skill"]), deferred="crowd")


def charge_end(draft: Draft, step: ev.PendingStep, option: str) -> None:
    """A charger stops, or sweeps past and breaks off (step
    ``choose:charge-end``; seed 001 "Charging"); then
    ``attack:after-exchange``."""
    target = str(step.data["target"])
    if option == "sweep-past":
        draft.emit(ev.EngagementChanged(a=step.who, b=target, engaged=False))
        draft.emit(ev.NoteAdded(text=f"{draft.state.combatants[step.who].name} sweeps past, breaking engagement"))
    draft.emit(ev.StepsAwaited(steps=()))
    draft.then("attack:after-exchange")


def sharpshooter(draft: Draft, step: ev.PendingStep, option: str) -> None:
    """Sharpshooter: move the shot's location to an adjoining one, or keep
    it (step ``choose:sharpshooter``; seed 001 "Sharpshooter"); then the
    damage is applied (``damage:apply``)."""
    data = dict(step.data)
    x = draft.state.exchange
    if option != "keep":
        draft.emit(SpecialEffectChosen(exchange=x.id, by=step.who, against=x.target, effect="sharpshooter",
                                       detail=f"{data['location']} → {option}"))
        data["location"] = option
    rest = tuple(s for s in draft.state.pending if s is not step)
    draft.then("damage:apply", data=data, rest=rest)
