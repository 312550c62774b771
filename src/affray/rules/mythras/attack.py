"""The exchange in mythras: attack, reaction, differential roll, Special
Effects.

Source: seed 001 "How Combat Works" > "Attacks and Parries" (steps 1-4),
"Parrying a Missed Attack", "Unable or Unwilling to Parry", "Unsuccessful
Rolls and Fumbles", "Evade" and "Evading", "Charging", "Sweep Attacks",
"Ranged Combat" (parried only with shields; Force; "Firing into a Crowd"),
"Special Effects" (the choice before damage; offensive/defensive, weapon
type and specific roll from the Special Effects Table) and the Special
Effect Descriptions; rules-reference.md B6-B9.

Where the differential roll and the parry are applied: :func:`resolve`
(the Differential Roll Results table, whether damage follows, how much a
parry deflects by weapon Size).

What follows, as queued steps (the router is
:mod:`affray.rules.mythras.system`): the winner's choice of Special
Effects (``effects:offer-choice``, :mod:`.effect_choice`), or straight to
``effects:after-choice`` (:mod:`.effects`: the effects' opposed rolls),
which hands on to ``damage:offer`` (:mod:`.damage`: the damage roll, or
the end of the exchange). ``attack:end-exchange`` closes it: a charger
stops or sweeps past, a deferred attack opens (``special:open-deferred``,
:mod:`.special_attacks`), or the turn moves on. The Counterattack on a
charge is ``special:counterattack``; a shot that misses only for the
crowd is ``ranged:crowd-miss`` (:mod:`.ranged`).
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.events import commands as cmd
from affray.events import core as ev
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.d100 import CRITICAL, FAILURE, FUMBLE, SUCCESS, is_success
from affray.rules.mythras import conditions as cat
from affray.rules.mythras import tables
from affray.rules.mythras.core import (
    DEFERRED,
    attack_size,
    check_attack,
    combat_skill,
    default_weapon,
    done,
    end_ward,
    find_weapon,
    break_aim,
    fizzle,
    grade_modifiers,
    kinds,
    over_100_mods,
    over_100_taken,
    parry_weapons,
    reopen_wound,
    require_turn,
    sheet_of,
    test,
    usable,
)


BLOCK = {"none": 0, "half": 1, "all": 2}
WINNER = {"none": 0, "attacker": 1, "defender": 2}


def check_charge(state: State, a: Combatant, t: Combatant) -> None:
    """A Charge moves at a run or sprint into engagement (seed 001
    "Charging", "Movement": only the unengaged move; a snared leg cannot)."""
    if a.engaged:
        engaged = ", ".join(state.combatants[h].name for h in a.engaged if h in state.combatants)
        raise RuleError(f"{a.name} is engaged with {engaged} and cannot charge (seed 001 'Movement'); attack without --situation charge")
    if a.stance == "prone":
        raise RuleError(f"{a.name} is prone and cannot charge; stand up first")
    if any(c.name == "entangled" and c.location.endswith("leg") for c in a.conditions):
        raise RuleError(f"{a.name}'s leg is entangled: no charging (seed 001 'Entangle')")


def declare(draft: Draft, command: cmd.DeclareAttack) -> None:
    """``affray attack ATTACKER TARGET``: see :func:`declare_attack`."""
    state = draft.state
    declare_attack(draft, find_combatant(state, command.attacker), find_combatant(state, command.target),
                   command.weapon, command.modifiers, command.situations)


def react_command(draft: Draft, command: cmd.ChooseReaction) -> None:
    """``affray react DEFENDER REACTION``: see :func:`react`."""
    react(draft, find_combatant(draft.state, command.defender), command.reaction, command.with_item,
          command.modifiers, command.situations)


def declare_attack(draft: Draft, attacker: str, target: str, weapon_name: str, modifiers, situations) -> None:
    """Attack on the attacker's turn for 1 AP: a d100 against the Combat
    Style (seed 001 "Attacks and Parries" step 1). The defender is then
    offered a reaction, even after a miss ("Parrying a Missed Attack").
    ``--situation charge`` is the Charge Action ("Charging": Hard, weapon
    Size and Damage Modifier one step up); a Ranged weapon shoots (no
    engagement; "Ranged Combat Situational Modifiers", "Aiming", "Load",
    "Firing into a Crowd"); ``helpless`` is Automatic (no roll)."""
    state = draft.state
    a = require_turn(state, attacker)
    check_attack(state, attacker, target, hint=f"; use 'affray act {attacker} delay' or pass")
    t = state.combatants[target]
    weapon = find_weapon(a, weapon_name) if weapon_name else default_weapon(a, state)
    why = usable(state, a, weapon)
    if why:
        raise RuleError(f"{why}; attack with another weapon (--weapon) or 'affray act {attacker} ready:WEAPON'")
    ranged = weapon.kind == "ranged"
    situations = tuple(situations)
    if any(c.name == "unloaded" and c.id == f"unloaded:{weapon.name.lower()}" for c in a.conditions):
        raise RuleError(f"{weapon.name} is not loaded; reload with 'affray act {attacker} reload' (seed 001 'Load')")
    flags = ["ranged"] if ranged else []
    for key in situations:
        sit = tables.SITUATIONS.get(key)
        if sit is not None and sit.flag and sit.flag not in flags:
            flags.append(sit.flag)
    automatic = "helpless" in situations or (t.effect("helpless") and t.status == "active")
    if automatic and "helpless" not in flags:
        flags.append("helpless")
    if "charge" in flags:
        check_charge(state, a, t)
    extra = []
    if ranged:
        for cond, grade, text in (("running", "hard", "Target is Running"), ("sprinting", "formidable", "Target is Sprinting")):
            if t.has(cond):
                extra.append((grade, text))
        if t.stance == "prone" and "target-prone" not in situations:
            extra.append(("formidable", "Target prone"))
    aim = next((c for c in a.conditions if c.name == "aiming"), None)
    ease = 1 if (ranged and aim is not None and aim.effects.get("from", aim.since_round) < state.round) else 0
    skill_name, skill = combat_skill(state, a, weapon)
    grades = grade_modifiers(state, a, skill, situations, "attack", ranged=ranged, extra=extra, ease=ease)
    mods = grades + tuple(modifiers)
    # B8: an attack is always settled as a Differential Roll (an undefended
    # one against a Failure, seed 001 "Unable or Unwilling to Parry"), so
    # the attacker's own excess over 100 is taken off the roll as it is
    # made, and its log line shows the grade the exchange uses
    mods += over_100_mods(state, max(0, skill + sum(m.value for m in mods)))
    exchange = state.next_exchange
    free = next((c for c in a.conditions if c.name == "free-attack"), None)
    if free is not None:
        draft.emit(ev.ConditionExpired(handle=attacker, condition_id=free.id, reason="the attack that came with the Move"))
    else:
        draft.emit(ev.ActionSpent(handle=attacker, kind="combat-action", reason=f"attack on {t.name}"))
    if aim is not None and ranged:
        draft.emit(ev.ConditionExpired(handle=attacker, condition_id=aim.id,
                                       reason="the shot is loosed" + ("" if ease else " (aimed less than a whole round: no benefit)")))
    elif aim is not None:
        break_aim(draft, attacker, "a close-combat attack")
    end_ward(draft, attacker, weapon.name, "attacked with it")
    reopen_wound(draft, attacker, "attacks")
    fizzle(draft, attacker, "attack")
    draft.emit(ev.AttackDeclared(exchange=exchange, attacker=attacker, target=target, weapon=weapon.name,
                                 kind="+".join(flags) or "close", modifiers=mods))
    if not ranged and target not in a.engaged:
        draft.emit(ev.EngagementChanged(a=attacker, b=target, engaged=True))
    if ranged and weapon.load:
        draft.emit(ev.ConditionApplied(handle=attacker, condition=cat.make(
            "unloaded", cause=draft.next_version, round=state.round, step=draft.state.step, ends="event",
            effects={"load": weapon.load}, key=weapon.name.lower(), note=f"{weapon.name}: {weapon.load} Turn(s) to reload")))
    if automatic:
        draft.emit(ev.NoteAdded(text=f"{t.name} is helpless: the attack is Automatic"))
        draft.emit(ev.AttackResolved(exchange=exchange, hit=True, roll=0, skill=skill))
        offer_reaction(draft)
        return
    tested = test(draft, a, skill_name, skill, f"attack on {t.name} with {weapon.name}", mods)
    if "crowd" in flags and not is_success(tested.result) and tested.result != FUMBLE:
        draft.then("ranged:crowd-miss", a=a, t=t, weapon=weapon, tested=tested, skill=skill,
                   situations=situations, extra=extra, ease=ease, modifiers=modifiers)
        return
    rolled(draft, tested)


def rolled(draft: Draft, tested: ev.SkillTested) -> None:
    """The attack roll ``tested`` resolved (hit, critical, fumble), then the
    defender is offered a reaction (step ``attack:rolled``)."""
    draft.emit(ev.AttackResolved(exchange=draft.state.exchange.id, hit=is_success(tested.result),
                                 critical=tested.result == CRITICAL, fumble=tested.result == FUMBLE,
                                 roll=tested.roll, skill=tested.target))
    offer_reaction(draft)


def offer_reaction(draft: Draft) -> None:
    """Ask the defender to parry, evade or take the blow. A defender with no
    Action Points (or helpless) cannot: that counts as a Failure (seed 001
    "Unable or Unwilling to Parry"). A Ranged attack can be parried only
    with a shield ("Ranged Combat"); the target of a charge may
    counterattack instead ("Charging"), unless he may not attack now (a
    counterattack is an attack: not after a Serious Wound, nor by a
    surprised fighter, who "may not perform any offensive Action")."""
    state = draft.state
    x = state.exchange
    t, a = state.combatants[x.target], state.combatants[x.attacker]
    flags = kinds(x)
    if not t.can_fight or t.combat_actions <= 0 or t.effect("no-defence") or flags & {"helpless", "bystander"}:
        if "bystander" in flags:
            why = f"{t.name} is taken completely by surprise"
        elif not t.can_fight or "helpless" in flags:
            why = f"{t.name} cannot react"
        elif t.effect("no-defence"):
            why = f"{t.name} is surprised and flat-footed until their turn"
        else:
            why = f"{t.name} has no Action Points left"
        draft.emit(ev.NoteAdded(text=f"{why}: the defence counts as a Failure"))
        draft.emit(ev.ReactionChosen(exchange=x.id, handle=t.handle, reaction="none"))
        resolve(draft, "none", None, FAILURE, 0)
        return
    parriers = [w for w in parry_weapons(t, state) if "ranged" not in flags or w.kind == "shield"]
    options = (["parry"] if parriers else []) + ["evade"]
    if "charge" in flags and not t.effect("cannot-attack") and any(w.kind != "shield" for w in parry_weapons(t, state)):
        options.append("counterattack")
    options.append("none")
    with_text = f" (with {', '.join(w.name for w in parriers)})" if parriers else ""
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=t.handle, verb="react", kind="react",
        prompt=f"{t.name}: react to {a.name}'s attack ({x.roll} vs {x.skill}%): {' | '.join(options)}{with_text}; 1 AP",
        options=tuple(options), dice=(ev.DiceNeed(f"{t.name}'s parry or evade", "1D100", by=t.handle),), exchange=x.id,
    ),)))


def react(draft: Draft, defender: str, reaction: str, with_item: str, modifiers, situations) -> None:
    """Parry (Combat Style, 1 AP), Evade (Evade skill, 1 AP, leaves the
    defender prone), Counterattack a charge (1 AP) or none (a Failure).
    Seed 001 "Parry", "Evade", "Charging", "Attacks and Parries" step 2;
    skills over 100 per B8. Defending against a mounted foe is Hard."""
    state = draft.state
    c = state.combatants[defender]
    step = next((s for s in state.pending if s.who == defender and s.kind == "react"), None)
    if step is None:
        waiting = "; ".join(s.prompt for s in state.pending) or "nothing"
        raise RuleError(f"{c.name} has no reaction to make now (waiting for: {waiting})")
    reaction = reaction.lower()
    if reaction == "dodge" and "evade" in step.options:
        reaction = "evade"
    if reaction not in step.options:
        raise RuleError(f"{c.name} can {' | '.join(step.options)} here, not {reaction!r}")
    x = state.exchange
    a = state.combatants[x.attacker]
    if reaction == "none":
        draft.emit(ev.ReactionChosen(exchange=x.id, handle=defender, reaction="none"))
        resolve(draft, "none", None, FAILURE, 0)
        return
    if reaction != "none":
        reopen_wound(draft, defender, reaction, reaction=True)
    if reaction == "counterattack":
        draft.then("special:counterattack", defender=defender, attacker=a.handle, with_item=with_item,
                   modifiers=tuple(modifiers), situations=tuple(situations))
        return
    item = None
    flags = kinds(x)
    if reaction == "parry":
        choices = [w for w in parry_weapons(c, state) if "ranged" not in flags or w.kind == "shield"]
        item = find_weapon(c, with_item) if with_item else choices[0]
        if item.kind not in ("melee", "shield"):
            raise RuleError(f"{item.name} cannot parry; parry with a melee weapon or shield")
        if "ranged" in flags and item.kind != "shield":
            raise RuleError(f"a Ranged attack can be parried only with a shield (seed 001 'Ranged Combat'), not {item.name}")
        why = usable(state, c, item)
        if why:
            raise RuleError(f"{why}; parry with something else or evade")
        skill_name, skill = combat_skill(state, c, item)
    else:
        skill_name, skill = "Evade", sheet_of(c).skill("Evade")
    draft.emit(ev.ActionSpent(handle=defender, kind="combat-action", reason=f"{reaction} against {a.name}"))
    if item is not None:
        end_ward(draft, defender, item.name, "parried actively")
    draft.emit(ev.ReactionChosen(exchange=x.id, handle=defender, reaction=reaction, with_item=item.name if item else ""))
    extra = [("hard", "Defending against a mounted foe")] if (a.has("mounted") and not c.has("mounted")
                                                              and "lower-ground" not in situations) else []
    own = grade_modifiers(state, c, skill, tuple(situations), "defence", extra=extra) + tuple(modifiers)
    taken = over_100_taken(x.modifiers)  # the attacker's own excess, taken at the attack roll
    shared = over_100_mods(state, x.skill + taken, max(0, skill + sum(m.value for m in own)))
    d = test(draft, c, skill_name, skill, f"{reaction} against {a.name}", own + shared)
    if reaction == "evade" and c.stance != "prone":
        draft.emit(ev.StanceChanged(handle=defender, stance="prone", reason="evaded"))
    more = min(0, sum(m.value for m in shared) + taken)  # a defender further over 100 than the attacker
    resolve(draft, reaction, item, d.result, d.roll, shared_penalty=more, d_target=d.target)


def attacker_level(x, penalty: int = 0) -> str:
    """The attack's level of success, re-read with the shared over-100
    penalty when one applies (B8)."""
    if penalty:
        return tables.skill_test(x.roll, x.skill + penalty)
    if x.fumble:
        return FUMBLE
    return CRITICAL if x.critical else (SUCCESS if x.hit else FAILURE)


#: The reason of the further over-100 penalty a defender's skill brings to the attack roll (B8).
FURTHER_OVER_100 = "the defender's skill further over 100 (B8)"


def regraded_attack(state: State, x, penalty: int, level: str, reaction: str) -> ev.SkillTested:
    """The attack line again, as the Differential Roll reads it once a
    defender further over 100 than the attacker has rolled: the same roll
    against the attack's target less ``penalty`` (rules-reference.md B8,
    seed 001 "Differential Rolls": "Everyone involved ... subtracts that
    skill's excess over 100"), graded ``level``; so the log's attack line
    shows the grade the exchange uses (issue 15, mythras item 11)."""
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    weapon = find_weapon(a, x.weapon, ready_only=False) if x.weapon else None
    skill_name = combat_skill(state, a, weapon)[0] if weapon is not None else "attack"
    base = x.skill - sum(m.value for m in x.modifiers)
    return ev.SkillTested(
        handle=a.handle, skill=skill_name, base=base, target=max(0, x.skill + penalty), roll=x.roll, result=level,
        purpose=f"attack on {t.name}" + (f" with {x.weapon}" if x.weapon else "") + f", against {t.name}'s {reaction}",
        modifiers=tuple(x.modifiers) + (ev.Modifier(penalty, FURTHER_OVER_100),),
    )


def resolve(draft: Draft, reaction: str, item, d_level: str, d_roll: int, shared_penalty: int = 0,
            d_target: int = 0, d_skill: str = "") -> None:
    """Compare the two rolls on the Differential Roll Results table (B7;
    seed 001 step 3-4), settle whether damage follows (step 5; for Evade the
    opposed winner, seed 001 "Evading") and how much a parry deflects
    (step 6, B11; a Ranged weapon's Force against a shield), then offer the
    winner's Special Effects. A blow on a bystander (Select Target, a
    crowd) wins no Special Effects. ``d_skill`` names the defender's roll
    in the outcome's text where the reaction does not (a leap's Brawn or
    Evade)."""
    state = draft.state
    x = state.exchange
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    a_level = attacker_level(x, shared_penalty)
    if shared_penalty:
        draft.emit(regraded_attack(state, x, shared_penalty, a_level, reaction))
    cell = tables.differential(a_level, d_level)
    flags = kinds(x)
    if flags & {"bystander", "crowd"}:
        cell = tables.DiffCell(cell.attacker, cell.defender, "none", 0)
    else:
        bonus = _surprise_bonus(draft, t, a_level)
        if bonus:
            cell = tables.DiffCell(cell.attacker, cell.defender, "attacker", cell.effects + 1)
    if "leap" in flags:
        hit = False  # seed 001 "Leaping Attacks": no damage is inflicted as part of the leap
    elif reaction == "evade":
        hit = is_success(a_level) and tables.opposed_winner(a_level, x.roll, d_level, d_roll) == "a"
    else:
        hit = is_success(a_level)
    block = "none"
    if reaction == "parry" and is_success(d_level):
        block = tables.parry_block(item.size, attack_size(state, x))
    parried = int(reaction == "parry" and is_success(d_level))
    effects = {"hit": int(hit), "critical": int(a_level == CRITICAL), "block": BLOCK[block], "parried": parried,
               "special_effects": cell.effects, "winner": WINNER[cell.winner],
               "d_roll": d_roll, "d_target": d_target, "shared": shared_penalty}
    text = f"{a.name} {a_level} against {t.name}'s {d_skill or (reaction if reaction != 'none' else 'no defence')} {d_level}"
    if cell.effects:
        text += f": {cell.winner} wins {cell.effects} Special Effect{'s' if cell.effects > 1 else ''}"
    if reaction == "parry" and is_success(d_level):
        text += f"; the parry deflects {block}"
    draft.emit(ev.ReactionResolved(exchange=x.id, cell=f"differential:{reaction} {a_level}/{d_level}", outcome=text, effects=effects))
    if cell.effects:
        winner = x.attacker if cell.winner == "attacker" else x.target
        loser = x.target if winner == x.attacker else x.attacker
        own, other = (a_level, d_level) if winner == x.attacker else (d_level, a_level)
        w_roll, w_skill = (x.roll, x.skill + shared_penalty) if winner == x.attacker else (d_roll, d_target)
        if winner == x.target and not d_target:
            tested = next((e for e in reversed(draft.events) if isinstance(e, ev.SkillTested) and e.handle == winner), None)
            w_skill = tested.target if tested else 0
        data = {"left": cell.effects, "chosen": "", "side": cell.winner, "own": own, "other": other,
                "item": item.name if (item is not None and winner == x.target) else "",
                "loser": loser, "roll": w_roll, "skill": w_skill, "location": ""}
        draft.then("effects:offer-choice", who=winner, data=data)
        return
    draft.then("effects:after-choice", data={"chosen": "", "location": ""})


def _surprise_bonus(draft: Draft, t: Combatant, a_level: str) -> bool:
    """The first successful attack on a surprised target gains a bonus
    Special Effect (seed 001 "Surprise"; B17)."""
    if not is_success(a_level):
        return False
    for cond in t.conditions:
        if cond.effects.get("bonus-effect"):
            effects = {k: v for k, v in cond.effects.items() if k != "bonus-effect"}
            draft.emit(ev.ConditionApplied(handle=t.handle, condition=replace(cond, effects=effects)))
            draft.emit(ev.NoteAdded(text=f"{t.name} is surprised: a bonus Special Effect"))
            return True
    return False


def end_exchange(draft: Draft, summary: str) -> None:
    """Close the exchange (step ``attack:end-exchange``, queued when its
    last roll is made); a charger then stops or sweeps past (seed 001
    "Charging"); then any deferred attack opens, or the turn moves on."""
    x = draft.state.exchange
    if x is not None:
        draft.emit(ev.ExchangeEnded(exchange=x.id, summary=summary))
        a = draft.state.combatants[x.attacker]
        if "charge" in kinds(x) and a.can_fight and x.target in a.engaged:
            draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
                who=a.handle, verb="choose", kind="charge-end",
                prompt=f"{a.name}: stop at {draft.state.combatants[x.target].name}, or sweep past and break off: stop | sweep-past",
                options=("stop", "sweep-past"), data={"target": x.target}),)))
            return
    after_exchange(draft)


def after_exchange(draft: Draft) -> None:
    """Open the next deferred attack (a counterattack, a waiting charge, the
    next target of a sweep, a bystander's blow: step
    ``special:open-deferred``), else move the turn on (step
    ``attack:after-exchange``)."""
    for c in list(draft.state.combatants.values()):
        for cond in c.conditions:
            if cond.name != "deferred-attack":
                continue
            draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=cond.id, reason="its exchange opens"))
            target = cat.from_of(cond)
            t = draft.state.combatants.get(target)
            kind = DEFERRED[cond.effects.get("kind", 0)]
            weapons = sheet_of(c).weapons
            weapon = weapons[cond.effects.get("weapon", 0)].name
            if not c.can_fight or t is None or t.status == "dead":
                draft.emit(ev.NoteAdded(text=f"{c.name}'s {kind} on {target} is lost: "
                                             f"{'they can no longer fight' if not c.can_fight else 'the target is gone'}"))
                continue
            draft.then("special:open-deferred", attacker=c.handle, target=target, weapon=weapon,
                       roll=cond.effects.get("roll", 0), skill=cond.effects.get("skill", 0), deferred=kind)
            return
    done(draft)
