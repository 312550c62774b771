"""The exchange in mythras: attack, reaction, differential roll, Special
Effects.

Source: seed 001 "How Combat Works" > "Attacks and Parries" (steps 1-4),
"Parrying a Missed Attack", "Unable or Unwilling to Parry", "Unsuccessful
Rolls and Fumbles", "Evade" and "Evading", "Special Effects" (the choice
before damage; offensive/defensive, weapon type and specific roll from the
Special Effects Table), "Withdraw", "Trip Opponent", "Enhance Parry",
"Choose Location", "Circumvent Parry", "Force Failure", "Arise", "Scar
Foe"; rules-reference.md B6-B9.
"""

from __future__ import annotations

from affray.events import core as ev
from affray.events.mythras import SpecialEffectChosen
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError
from affray.rules.d100 import CRITICAL, FAILURE, FUMBLE, SUCCESS, is_success
from affray.rules.mythras import tables
from affray.rules.mythras.common import (
    default_weapon,
    find_weapon,
    grade_modifiers,
    over_100_mods,
    parry_weapons,
    sheet_of,
    test,
    traits_of,
)

BLOCK = {"none": 0, "half": 1, "all": 2}
WINNER = {"none": 0, "attacker": 1, "defender": 2}


def _require_turn(state: State, handle: str) -> Combatant:
    c = state.combatants[handle]
    if state.phase == "over":
        raise RuleError(f"the fight is over ({state.winner or 'nobody'} stands); 'affray close' ends the encounter")
    if state.phase != "round":
        raise RuleError("no round is running; start the fight with 'affray start'")
    if state.exchange is not None or any(s.kind != "turn" for s in state.pending):
        first = state.pending[0].prompt if state.pending else "the open exchange"
        raise RuleError(f"the table is waiting for something else first ({first}); see 'affray pending'")
    if handle not in state.turn:
        now = " and ".join(state.combatants[h].name for h in state.turn) or "nobody"
        raise RuleError(f"it is {now}'s turn, not {c.name}'s; use 'affray pending' to see who acts next")
    return c


def declare_attack(draft: Draft, attacker: str, target: str, weapon_name: str, modifiers, situations) -> None:
    """Attack on the attacker's turn for 1 AP: a d100 against the Combat
    Style (seed 001 "Attacks and Parries" step 1). The defender is then
    offered a reaction, even after a miss ("Parrying a Missed Attack")."""
    state = draft.state
    a = _require_turn(state, attacker)
    if attacker == target:
        raise RuleError(f"{a.name} cannot attack themself; name another combatant")
    t = state.combatants[target]
    if t.status == "dead":
        raise RuleError(f"{t.name} is dead; choose another target")
    if a.effect("cannot-attack"):
        raise RuleError(f"{a.name} cannot attack now (see 'affray state'); use 'affray act {attacker} delay' or pass")
    weapon = find_weapon(a, weapon_name) if weapon_name else default_weapon(a)
    skill_name, skill = sheet_of(a).weapon_skill(weapon)
    mods = grade_modifiers(state, a, skill, tuple(situations), "attack") + tuple(modifiers)
    exchange = state.next_exchange
    draft.emit(ev.ActionSpent(handle=attacker, kind="combat-action", reason=f"attack on {t.name}"))
    draft.emit(ev.AttackDeclared(exchange=exchange, attacker=attacker, target=target, weapon=weapon.name,
                                 modifiers=mods))
    if target not in a.engaged:
        draft.emit(ev.EngagementChanged(a=attacker, b=target, engaged=True))
    tested = test(draft, a, skill_name, skill, f"attack on {t.name} with {weapon.name}", mods)
    draft.emit(ev.AttackResolved(exchange=exchange, hit=is_success(tested.result), critical=tested.result == CRITICAL,
                                 fumble=tested.result == FUMBLE, roll=tested.roll, skill=tested.target))
    offer_reaction(draft)


def offer_reaction(draft: Draft) -> None:
    """Ask the defender to parry, evade or take the blow. A defender with no
    Action Points (or helpless) cannot: that counts as a Failure (seed 001
    "Unable or Unwilling to Parry")."""
    state = draft.state
    x = state.exchange
    t, a = state.combatants[x.target], state.combatants[x.attacker]
    if not t.can_fight or t.combat_actions <= 0 or t.effect("no-defence"):
        if not t.can_fight:
            why = f"{t.name} cannot react"
        elif t.effect("no-defence"):
            why = f"{t.name} is surprised and flat-footed until their turn"
        else:
            why = f"{t.name} has no Action Points left"
        draft.emit(ev.NoteAdded(text=f"{why}: the defence counts as a Failure (seed 001)"))
        draft.emit(ev.ReactionChosen(exchange=x.id, handle=t.handle, reaction="none"))
        resolve(draft, "none", None, FAILURE, 0)
        return
    options = (["parry"] if parry_weapons(t) else []) + ["evade", "none"]
    with_text = f" (with {', '.join(w.name for w in parry_weapons(t))})" if parry_weapons(t) else ""
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=t.handle, verb="react", kind="react",
        prompt=f"{t.name}: react to {a.name}'s attack ({x.roll} vs {x.skill}%): {' | '.join(options)}{with_text}; 1 AP",
        options=tuple(options), dice=(ev.DiceNeed(f"{t.name}'s parry or evade", "1D100", by=t.handle),), exchange=x.id,
    ),)))


def react(draft: Draft, defender: str, reaction: str, with_item: str, modifiers, situations) -> None:
    """Parry (Combat Style, 1 AP), Evade (Evade skill, 1 AP, leaves the
    defender prone) or none (a Failure). Seed 001 "Parry", "Evade",
    "Attacks and Parries" step 2; skills over 100 per B8."""
    state = draft.state
    c = state.combatants[defender]
    step = next((s for s in state.pending if s.who == defender and s.kind == "react"), None)
    if step is None:
        waiting = "; ".join(s.prompt for s in state.pending) or "nothing"
        raise RuleError(f"{c.name} has no reaction to make now (waiting for: {waiting})")
    reaction = reaction.lower()
    if reaction not in step.options:
        raise RuleError(f"{c.name} can {' | '.join(step.options)} here, not {reaction!r}")
    x = state.exchange
    a = state.combatants[x.attacker]
    if reaction == "none":
        draft.emit(ev.ReactionChosen(exchange=x.id, handle=defender, reaction="none"))
        resolve(draft, "none", None, FAILURE, 0)
        return
    item = None
    if reaction == "parry":
        item = find_weapon(c, with_item) if with_item else parry_weapons(c)[0]
        if item.kind not in ("melee", "shield"):
            raise RuleError(f"{item.name} cannot parry; parry with a melee weapon or shield")
        skill_name, skill = sheet_of(c).weapon_skill(item)
    else:
        skill_name, skill = "Evade", sheet_of(c).skill("Evade")
    draft.emit(ev.ActionSpent(handle=defender, kind="combat-action", reason=f"{reaction} against {a.name}"))
    draft.emit(ev.ReactionChosen(exchange=x.id, handle=defender, reaction=reaction, with_item=item.name if item else ""))
    own = grade_modifiers(state, c, skill, tuple(situations), "defence") + tuple(modifiers)
    shared = over_100_mods(state, x.skill, max(0, skill + sum(m.value for m in own)))
    d = test(draft, c, skill_name, skill, f"{reaction} against {a.name}", own + shared)
    if reaction == "evade" and c.stance != "prone":
        draft.emit(ev.StanceChanged(handle=defender, stance="prone", reason="evaded (seed 001 'Evade')"))
    resolve(draft, reaction, item, d.result, d.roll, shared_penalty=sum(m.value for m in shared))


def attacker_level(x, penalty: int = 0) -> str:
    """The attack's level of success, re-read with the shared over-100
    penalty when one applies (B8)."""
    if penalty:
        return tables.skill_test(x.roll, x.skill + penalty)
    if x.fumble:
        return FUMBLE
    return CRITICAL if x.critical else (SUCCESS if x.hit else FAILURE)


def resolve(draft: Draft, reaction: str, item, d_level: str, d_roll: int, shared_penalty: int = 0) -> None:
    """Compare the two rolls on the Differential Roll Results table (B7;
    seed 001 step 3-4), settle whether damage follows (step 5; for Evade the
    opposed winner, seed 001 "Evading") and how much a parry deflects
    (step 6, B11), then offer the winner's Special Effects."""
    state = draft.state
    x = state.exchange
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    a_level = attacker_level(x, shared_penalty)
    cell = tables.differential(a_level, d_level)
    bonus = _surprise_bonus(draft, t, a_level)
    if bonus:
        cell = tables.DiffCell(cell.attacker, cell.defender, "attacker", cell.effects + 1)
    if reaction == "evade":
        hit = is_success(a_level) and tables.opposed_winner(a_level, x.roll, d_level, d_roll) == "a"
    else:
        hit = is_success(a_level)
    block = "none"
    if reaction == "parry" and is_success(d_level):
        block = tables.parry_block(item.size, find_weapon(a, x.weapon, ready_only=False).size)
    parried = int(reaction == "parry" and is_success(d_level))
    effects = {"hit": int(hit), "critical": int(a_level == CRITICAL), "block": BLOCK[block], "parried": parried,
               "special_effects": cell.effects, "winner": WINNER[cell.winner]}
    text = f"{a.name} {a_level} against {t.name}'s {reaction if reaction != 'none' else 'no defence'} {d_level}"
    if cell.effects:
        text += f": {cell.winner} wins {cell.effects} Special Effect{'s' if cell.effects > 1 else ''}"
    if reaction == "parry" and is_success(d_level):
        text += f"; the parry deflects {block}"
    draft.emit(ev.ReactionResolved(exchange=x.id, cell=f"differential:{reaction} {a_level}/{d_level}", outcome=text, effects=effects))
    if cell.effects:
        winner = x.attacker if cell.winner == "attacker" else x.target
        loser = x.target if winner == x.attacker else x.attacker
        own, other = (a_level, d_level) if winner == x.attacker else (d_level, a_level)
        w_roll, w_skill = (x.roll, x.skill + shared_penalty) if winner == x.attacker else (d_roll, 0)
        if winner == x.target:
            tested = next((e for e in reversed(draft.events) if isinstance(e, ev.SkillTested) and e.handle == winner), None)
            w_skill = tested.target if tested else 0
        data = {"left": cell.effects, "chosen": "", "side": cell.winner, "own": own, "other": other,
                "item": item.name if (item is not None and winner == x.target) else "",
                "loser": loser, "roll": w_roll, "skill": w_skill, "location": ""}
        draft.emit(ev.StepsAwaited(steps=(_choose_step(draft.state, winner, data),)))
        return
    proceed(draft, {"chosen": "", "location": ""})


def _surprise_bonus(draft: Draft, t: Combatant, a_level: str) -> bool:
    """The first successful attack on a surprised target gains a bonus
    Special Effect (seed 001 "Surprise"; B17)."""
    if not is_success(a_level):
        return False
    for cond in t.conditions:
        if cond.effects.get("bonus-effect"):
            effects = {k: v for k, v in cond.effects.items() if k != "bonus-effect"}
            from msgspec.structs import replace

            draft.emit(ev.ConditionApplied(handle=t.handle, condition=replace(cond, effects=effects)))
            draft.emit(ev.NoteAdded(text=f"{t.name} is surprised: a bonus Special Effect (seed 001 'Surprise')"))
            return True
    return False


def eligible(state: State, who: str, data: dict) -> list[str]:
    """Special Effects ``who`` may still pick: eligible by the table and not
    already taken unless stackable (seed 001 "Special Effects")."""
    x = state.exchange
    c = state.combatants[who]
    if data["side"] == "attacker":
        traits = traits_of(find_weapon(c, x.weapon, ready_only=False))
    elif data.get("item"):
        traits = traits_of(find_weapon(c, str(data["item"]), ready_only=False))
    else:
        traits = set()
    parried = x.reaction == "parry"
    keys = tables.eligible_effects(str(data["side"]), own=str(data["own"]), other=str(data["other"]),
                                   traits=traits, parried=parried)
    taken = [k for k in str(data["chosen"]).split(",") if k]
    out = [k for k in keys if k not in taken or tables.SPECIAL_EFFECTS[k].stackable]
    if not x.effects.get("hit"):
        # effects that only shape the blow mean nothing without one
        out = [k for k in out if k not in ("choose-location", "maximize-damage", "bypass-armor", "bleed",
                                           "stun-location", "impale", "enhance-parry", "circumvent-parry")]
    if not x.effects.get("parried"):
        out = [k for k in out if k not in ("enhance-parry", "circumvent-parry")]
    if c.stance != "prone":
        out = [k for k in out if k != "arise"]
    opposed = {"trip-opponent", "bleed", "stun-location"}
    if not (opposed & set(out)) and not (opposed & set(taken)):
        out = [k for k in out if k != "force-failure"]  # it needs an effect with an opposed roll
    return out


def _choose_step(state: State, who: str, data: dict) -> ev.PendingStep:
    c = state.combatants[who]
    options = tuple(eligible(state, who, data)) + ("none",)
    return ev.PendingStep(
        who=who, verb="choose", kind="special-effect",
        prompt=f"{c.name}: choose a Special Effect ({data['left']} left): {' | '.join(options)}",
        options=options, exchange=state.exchange.id, data=data,
    )


def choose(draft: Draft, who: str, option: str) -> None:
    """Pick one Special Effect (or ``none`` to forgo the rest), or a location
    after Choose Location. Each pick is a ``SpecialEffectChosen``; Withdraw
    acts at once; the rest act when damage is rolled or as their own
    opposed-roll step (seed 001 "Special Effect Descriptions")."""
    state = draft.state
    c = state.combatants[who]
    step = next((s for s in state.pending if s.verb == "choose" and s.who == who), None)
    if step is None:
        waiting = "; ".join(s.prompt for s in state.pending) or "nothing"
        raise RuleError(f"{c.name} has no choice to make now (waiting for: {waiting})")
    option = option.strip().lower()
    if option not in step.options:
        raise RuleError(f"{c.name} can choose {' | '.join(step.options)} here, not {option!r}")
    x = state.exchange
    data = dict(step.data)
    if step.kind == "location":
        draft.emit(SpecialEffectChosen(exchange=x.id, by=who, against=str(data["loser"]), effect="choose-location",
                                       detail=option))
        data["location"] = option
    elif option == "none":
        data["left"] = 0
    else:
        data["left"] = int(data["left"]) - 1
        data["chosen"] = ",".join([k for k in str(data["chosen"]).split(",") if k] + [option])
        if option == "choose-location":
            draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
                who=who, verb="choose", kind="location", prompt=f"{c.name}: choose the location struck",
                options=tables.LOCATION_NAMES, exchange=x.id, data=data),)))
            return
        draft.emit(SpecialEffectChosen(exchange=x.id, by=who, against=str(data["loser"]), effect=option))
        if option == "arise" and c.stance == "prone":
            draft.emit(ev.StanceChanged(handle=who, stance="standing", reason="Arise (Special Effect)"))
        if option == "withdraw":
            other = str(data["loser"])
            if other in c.engaged:
                draft.emit(ev.EngagementChanged(a=who, b=other, engaged=False))
    if int(data["left"]) > 0 and eligible(draft.state, who, data):
        draft.emit(ev.StepsAwaited(steps=(_choose_step(draft.state, who, data),)))
        return
    proceed(draft, data)


def proceed(draft: Draft, data: dict) -> None:
    """After the Special Effects: Trip Opponent's opposed roll, then the
    damage roll if the attack succeeded; else the exchange ends (seed 001
    "Unsuccessful Rolls and Fumbles")."""
    from affray.rules.mythras.damage import damage_step, trip_step

    x = draft.state.exchange
    chosen = [k for k in str(data.get("chosen", "")).split(",") if k]
    steps = []
    if "trip-opponent" in chosen and "force-failure" in chosen:
        loser = draft.state.combatants[str(data["loser"])]
        draft.emit(ev.NoteAdded(text=f"Force Failure: {loser.name} fails the roll against Trip Opponent (seed 001)"))
        if loser.stance != "prone":
            draft.emit(ev.StanceChanged(handle=loser.handle, stance="prone", reason="Trip Opponent (Force Failure)"))
    elif "trip-opponent" in chosen:
        steps.append(trip_step(draft.state, data))
    if x.effects.get("hit"):
        steps.append(damage_step(draft.state, chosen, str(data.get("location", ""))))
    if steps:
        draft.emit(ev.StepsAwaited(steps=tuple(steps)))
        return
    end_exchange(draft, str(next((e.outcome for e in reversed(draft.events) if isinstance(e, ev.ReactionResolved)), "")))


def end_exchange(draft: Draft, summary: str) -> None:
    """Close the exchange and move the turn on."""
    from affray.rules.mythras.turns import advance

    x = draft.state.exchange
    if x is not None:
        draft.emit(ev.ExchangeEnded(exchange=x.id, summary=summary))
    draft.emit(ev.StepsAwaited(steps=()))
    advance(draft)
