"""Actions against a hold in mythras: ``struggle`` free of an Entangle or
a Grip, ``yank`` an impaled weapon free, ``trip`` an entangled foe (seed
001 "Struggle", "Entangle", "Grip", "Impale"). Queued as ``act:ACTION`` steps by
:func:`affray.rules.mythras.actions.act`.
"""

from __future__ import annotations

from affray.events import core as ev
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.d100 import is_success
from affray.rules.mythras import conditions as cat
from affray.rules.mythras import tables
from affray.rules.mythras.core import (
    best_skill, check_attack, done, grade_modifiers, kept_roll, keeping, luck_suffix, offer_luck, rulings_of, sheet_of, spend,
    test,
)


def struggle(draft: Draft, who: str, arg: str) -> None:
    """Struggle: break free of an Entangle (Opposed Brawn) or a Grip
    (Opposed Brawn or Unarmed against whichever the gripper prefers), seed
    001 "Struggle", "Entangle", "Grip"."""
    c = draft.state.combatants[who]
    hold = next((k for k in c.conditions if k.name in ("entangled", "gripped")), None)
    if hold is None:
        raise RuleError(f"{c.name} is neither entangled nor gripped")
    holder = draft.state.combatants[cat.from_of(hold)]
    spend(draft, who, f"struggle against {holder.name}")
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=who, verb="roll", kind="struggle", prompt=f"{c.name} struggles against {holder.name}: opposed rolls",
        dice=(ev.DiceNeed(f"{c.name}: Brawn", "1D100", by=who), ev.DiceNeed(f"{holder.name}: resist", "1D100", by=holder.handle)),
        data={"hold": hold.id, "holder": holder.handle}),)))


def roll_struggle(draft: Draft, step: ev.PendingStep, rest) -> None:
    """The opposed rolls of a Struggle: won, the hold is broken (seed 001
    "Struggle", "Entangle", "Grip"). Lost with a Luck Point left, the
    struggler may re-roll his own roll, the holder's kept ("Use Luck
    Point": "to re-roll a particular result"; :func:`~.core.offer_luck`)."""
    state = draft.state
    c, holder = state.combatants[step.who], state.combatants[str(step.data["holder"])]
    hold = next((k for k in c.conditions if k.id == step.data["hold"]), None)
    if step.data.get("forced"):
        done(draft)
        return
    gripped = hold is not None and hold.name == "gripped"
    name, skill = best_skill(c, "Brawn", "Unarmed") if gripped else ("Brawn", sheet_of(c).skill("Brawn"))
    mine = test(draft, c, name, skill, "break free" + luck_suffix(step),
                grade_modifiers(state, c, skill, (), "both", combat=False))
    theirs = kept_roll(step, holder.handle)
    if theirs is None:
        h_name, h_skill = best_skill(holder, "Brawn", "Unarmed") if gripped else ("Brawn", sheet_of(holder).skill("Brawn"))
        tested = test(draft, holder, h_name, h_skill, "hold on",
                      grade_modifiers(state, holder, h_skill, (), "both", combat=False))
        theirs = (tested.result, tested.roll)
    won = tables.opposed_winner(mine.result, mine.roll, *theirs) == "a"
    if hold is not None and not won and offer_luck(draft, c, keeping(step, {holder.handle: theirs}), rest, True):
        return
    if hold is not None and won:
        draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=hold.id, reason="struggled free"))
    done(draft)


def yank(draft: Draft, who: str, arg: str) -> None:
    """Yank an impaled weapon free: the Ready Weapon action and a Brawn
    roll, opposed when the victim resists (ruling ``yank_resisted``); seed
    001 "Impale"."""
    state = draft.state
    c = state.combatants[who]
    found = [(o, k) for o in state.combatants.values() for k in o.conditions
             if k.name == "impaled" and cat.from_of(k) == who]
    if arg:
        found = [(o, k) for o, k in found if o.handle == find_combatant(state, arg)]
    if not found:
        raise RuleError(f"{c.name} has no weapon stuck in anyone")
    victim, cond = found[0]
    w = sheet_of(c).weapons[cond.effects.get("weapon", 0)]
    spend(draft, who, f"ready {w.name}: yank it free")
    opposed = rulings_of(state).yank_resisted == "opposed" and victim.can_fight
    dice = [ev.DiceNeed(f"{c.name}: Brawn", "1D100", by=who)]
    if opposed:
        dice.append(ev.DiceNeed(f"{victim.name}: Brawn (resists)", "1D100", by=victim.handle))
    half = "" if "barbed" in w.traits else " (halved)"
    dice.append(ev.DiceNeed(f"{w.name} damage{half}, if it comes free", w.damage, by=who))
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=who, verb="roll", kind="yank", prompt=f"{c.name} yanks {w.name} out of {victim.name}'s {cond.location}",
        dice=tuple(dice), data={"victim": victim.handle, "cond": cond.id, "opposed": int(opposed)}),)))


def roll_yank(draft: Draft, step: ev.PendingStep, rest) -> None:
    """The Brawn roll (opposed when resisted) and the damage of a yank: a
    weapon that comes free deals its damage, halved unless barbed, with no
    Damage Modifier and armour ignored (seed 001 "Impale"); the damage is
    step ``wounds:hurt``, then ``holds:yanked``. A yank that fails, with a
    Luck Point left, may be re-rolled (the victim's roll kept; the damage
    die is rolled again with it): seed 001 "Use Luck Point", "to re-roll a
    particular result" (:func:`~.core.offer_luck`)."""
    state = draft.state
    c, v = state.combatants[step.who], state.combatants[str(step.data["victim"])]
    cond = next(k for k in v.conditions if k.id == step.data["cond"])
    w = sheet_of(c).weapons[cond.effects.get("weapon", 0)]
    free = False
    if not step.data.get("forced"):
        brawn = sheet_of(c).skill("Brawn")
        mine = test(draft, c, "Brawn", brawn, f"yank {w.name} free" + luck_suffix(step),
                    grade_modifiers(state, c, brawn, (), "both", combat=False))
        free = is_success(mine.result)
        theirs = kept_roll(step, v.handle)
        if step.data.get("opposed"):
            if theirs is None:
                vb = sheet_of(v).skill("Brawn")
                tested = test(draft, v, "Brawn", vb, "resist the yank", grade_modifiers(state, v, vb, (), "both", combat=False))
                theirs = (tested.result, tested.roll)
            free = tables.opposed_winner(mine.result, mine.roll, *theirs) == "a"
        rolled = draft.roll(w.damage, f"{w.name} damage (yank)", by=c.handle).total
        kept = {v.handle: theirs} if theirs is not None else {}
        if not free and offer_luck(draft, c, keeping(step, kept), rest, True):
            return
    if free:
        damage = rolled if "barbed" in w.traits else rolled // 2
        draft.emit(ev.ConditionExpired(handle=v.handle, condition_id=cond.id, reason=f"{c.name} yanks {w.name} free"))
        draft.then("wounds:hurt", handle=v.handle, location=cond.location, amount=damage, ignore_armour=True,
                   base={"roll": mine.roll, "skill": mine.target},
                   note=f"{w.name} yanked free: {rolled}" + ("" if "barbed" in w.traits else " halved") + ", no Damage Modifier, armour ignored",
                   then="holds:yanked", rest=tuple(rest))
        return
    draft.emit(ev.NoteAdded(text=f"{w.name} stays stuck in {v.name}'s {cond.location}; {c.name} may try again next turn"))
    done(draft)


def yanked(draft: Draft, follow, rest) -> None:
    """After a yanked weapon's damage (step ``holds:yanked``): the wound's
    Endurance roll before the rest of the pending steps, else the action is
    done."""
    if follow:
        draft.emit(ev.StepsAwaited(steps=tuple(follow) + tuple(rest)))
        return
    done(draft)


def trip(draft: Draft, who: str, arg: str) -> None:
    """The Turn after an Entangle, its wielder may spend an Action Point on
    an automatic Trip Opponent attempt (seed 001 "Entangle"): the victim's
    opposed Brawn, Evade or Acrobatics against the wielder's weapon roll."""
    state = draft.state
    c = state.combatants[who]
    target = find_combatant(state, arg) if arg else ""
    victims = [o for o in state.combatants.values() if (not target or o.handle == target)
               and any(k.name == "entangled" and cat.from_of(k) == who for k in o.conditions)]
    if not victims:
        raise RuleError(f"{c.name} entangles nobody{(' called ' + arg) if arg else ''}: trip needs an Entangle first")
    v = victims[0]
    check_attack(state, who, v.handle)  # an offensive Action: not by one who may not attack now
    cond = next(k for k in v.conditions if k.name == "entangled" and cat.from_of(k) == who)
    w = sheet_of(c).weapons[cond.effects.get("weapon", 0)]
    spend(draft, who, f"trip {v.name} with {w.name}")
    skill_name, skill = sheet_of(c).weapon_skill(w)
    tested = test(draft, c, skill_name, skill, f"trip {v.name} (Entangle)", grade_modifiers(state, c, skill, (), "attack"))
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=v.handle, verb="roll", kind="trip",
        prompt=f"{v.name}: opposed roll against the entangling trip ({tested.roll} vs {tested.target}%) or fall prone",
        dice=(ev.DiceNeed("Brawn/Evade/Acrobatics (trip)", "1D100", by=v.handle),),
        data={"roll": tested.roll, "skill": tested.target, "why": "tripped by an entangling weapon"}),)))
