"""Moving, and attacks of opportunity (seed 003 "Evade": the evader's free
move "does not provoke Attack of Opportunity (Reaction)"; rules-reference.md
D8 Overwhelm: the overwhelmed "cannot make attacks of opportunity").

``affray act WHO move [METRES]`` on a Turn leaves melee: each engaged foe
able to react (aware, not stunned, not Overwhelmed, with an AP) is asked in
turn for an attack of opportunity (``react FOE attack|none``), a melee
attack for 1 AP that the mover defends as usual. Then the mover's Turn goes
on. Moving costs no AP (the seed gives no cost; ruling ``ap_costs``).
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.base import Draft, RuleError
from affray.rules.uesrpg import conditions as cat
from affray.rules.uesrpg.core import (
    attack_spends,
    base_tn,
    condition_mods,
    find_item,
    limb_refusal,
    melee_weapons,
    require_turn,
    rulings_of,
    sheet_of,
    situation_mods,
    spend_ap,
    stunned,
    total,
    turn_step,
    unusable_limbs,
)


def can_strike(state, foe) -> bool:
    """May ``foe`` make an attack of opportunity now?"""
    return (foe.can_fight and not stunned(foe) and not foe.effect("no-opportunity") and not foe.effect("unaware")
            and foe.combat_actions > 0 and bool(melee_weapons(sheet_of(foe)))
            and "weapon arm" not in unusable_limbs(state, foe))


def move(draft: Draft, who: str, args: list[str]) -> None:
    """``affray act WHO move [METRES]`` (default 1 m): leave melee; the foes
    left behind may strike (an attack of opportunity each)."""
    state = draft.state
    c = require_turn(state, who)
    if "leg" in unusable_limbs(state, c):
        raise limb_refusal(c, "leg", f"no move; 'affray act {who} pass' ends the Turn")
    try:
        metres = float(args[0]) if args else 1.0
    except ValueError:
        raise RuleError(f"move takes metres: affray act {who} move 3 (got {args[0]!r})") from None
    if metres <= 0:
        raise RuleError("a move covers more than 0 metres")
    draft.emit(ev.CombatantMoved(handle=who, distance=metres, reason="move"))
    foes = [h for h in c.engaged if h in state.combatants]
    for h in foes:
        draft.emit(ev.EngagementChanged(a=who, b=h, engaged=False))
    strikers = [h for h in foes if can_strike(draft.state, draft.state.combatants[h])]
    if not strikers:  # nobody may strike: the Turn goes on
        draft.emit(ev.StepsAwaited(steps=(turn_step(draft.state, who),)))
        return
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "moving", cause=draft.next_version, round=state.round, step=state.step, ends="event",
        effects={f"aoo:{h}": 1 for h in strikers}, note="waiting for attacks of opportunity")))
    draft.emit(ev.StepsAwaited(steps=()))
    draft.hand_over()


def sequence(draft: Draft) -> bool:
    """The part of the turn order this module owns: while a mover waits for
    attacks of opportunity, ask the next foe, then give the mover its Turn
    back. Returns True when it took the table (the turn order proper must
    not run)."""
    state = draft.state
    if state.phase != "round":
        return False
    for c in state.combatants.values():
        cond = next((k for k in c.conditions if k.name == "moving"), None)
        if cond is None:
            continue
        waiting = [k[4:] for k in cond.effects if k.startswith("aoo:")]
        for h in waiting:
            rest = {k: v for k, v in cond.effects.items() if k != f"aoo:{h}"}
            draft.emit(ev.ConditionApplied(handle=c.handle, condition=replace(cond, effects=rest)))
            foe = draft.state.combatants[h]
            if not can_strike(draft.state, foe) or not c.can_fight:
                cond = replace(cond, effects=rest)
                continue
            draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
                who=h, verb="react", kind="opportunity", options=("attack", "none"),
                prompt=f"{foe.name}: an attack of opportunity on {c.name}, who moves away: attack | none (1 AP)",
                data={"mover": c.handle}),)))
            return True
        draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=cond.id, reason="attacks of opportunity answered"))
        if c.can_fight and c.handle in state.turn:
            draft.emit(ev.StepsAwaited(steps=(turn_step(draft.state, c.handle),)))
            return True
    return False


def react(draft: Draft, step: ev.PendingStep, command: cmd.ChooseReaction) -> None:
    """``affray react FOE attack|none`` on an attack of opportunity: a melee
    attack (1 AP) with ``--with`` or the first melee weapon; the mover then
    chooses a defence as against any attack."""
    state = draft.state
    foe = state.combatants[step.who]
    mover = str(step.data["mover"])
    choice = command.reaction.strip().lower()
    if choice not in step.options:
        raise RuleError(f"{foe.name}: an attack of opportunity is attack or none")
    if choice == "none":
        draft.emit(ev.StepsAwaited(steps=()))
        draft.hand_over()
        return
    sheet = sheet_of(foe)
    item = find_item(sheet, command.with_item) if command.with_item else melee_weapons(sheet)[0]
    if item not in melee_weapons(sheet):
        raise RuleError(f"an attack of opportunity is a melee attack; {item.name} is not a melee weapon")
    sit, style = situation_mods(command.situations)
    test, base, style_mods = base_tn(sheet, "melee", item.name, rulings_of(state), style)
    mods = tuple(style_mods) + tuple(sit) + tuple(condition_mods(foe, attack_on=mover, melee=True)) + tuple(command.modifiers)
    spend_ap(draft, foe.handle, f"attack of opportunity on {state.combatants[mover].name}")
    attack_spends(draft, foe.handle, mover, melee=True)
    draft.emit(ev.AttackDeclared(exchange=state.next_exchange, attacker=foe.handle, target=mover, weapon=item.name,
                                 kind=f"opportunity;test={test};base={base};tn={total(base, mods)}", modifiers=mods))
    draft.then("offer-defence", target=mover)
