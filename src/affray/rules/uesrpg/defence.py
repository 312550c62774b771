"""Step 2 of the uesrpg exchange: the defence (seed 003 "Step 2: Defend"),
and Evade's free move once an attack is evaded (Step 4 "Evade").

The defender picks Evade (Agility), Parry (Combat Style, melee only), Block
(shield, STR) or Counter-Attack, and a Combat Style, before the attacker
rolls (rules-reference.md D7). A defence costs 1 AP (ruling ``ap_costs``);
``none`` costs nothing and automatically fails.
"""

from __future__ import annotations

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.uesrpg import tables
from affray.rules.uesrpg.core import (
    base_tn,
    blocking_shields,
    condition_mods,
    find_item,
    finish_exchange,
    limb_refusal,
    group_of,
    melee_weapons,
    next_defence,
    pack_mods,
    pending,
    rulings_of,
    sheet_of,
    situation_mods,
    spend_ap,
    total,
    unusable_limbs,
)
from affray.rules.uesrpg.sheet import Shield, Weapon

ALIASES = {"counter-attack": "counter", "counterattack": "counter", "dodge": "evade"}


def react(draft: Draft, command: cmd.ChooseReaction) -> None:
    """``affray react DEFENDER evade|parry|block|counter|none [--with ITEM]``:
    the defence and its TN are fixed before the attack roll. Refused after
    the roll (seed 003 Step 2), for a defence the situation does not allow,
    and for a block without a shield."""
    state = draft.state
    handle = find_combatant(state, command.defender)
    c = state.combatants[handle]
    x = state.exchange
    step = pending(state, "react", handle)
    if step is not None and step.kind != "react":
        draft.then(f"react:{step.kind}", step=step, command=command)
        return
    if x is None or (x.target != handle and handle not in group_of(x)):
        raise RuleError(f"no attack on {c.name} is waiting for a defence; see 'affray pending'")
    if step is None:
        if x.resolved:
            raise RuleError(f"too late: {c.name}'s defence must be chosen before the attacker rolls, and the attack of "
                            f"exchange {x.id} is already rolled (seed 003 Step 2)")
        raise RuleError(f"{c.name} has already chosen a defence ({x.reaction or 'none'}); the attack test comes next: 'affray roll'")
    defence = ALIASES.get(command.reaction.strip().lower(), command.reaction.strip().lower())
    sheet = sheet_of(c)
    if defence == "block" and not blocking_shields(sheet):
        has = " (a buckler cannot block)" if sheet.shields else ""
        raise RuleError(f"{c.name} has no shield to block with{has}; choose one of {', '.join(o for o in step.options if o != 'block')}")
    if defence not in step.options:
        limbs = unusable_limbs(state, c)
        if defence in ("parry", "counter") and "weapon arm" in limbs:
            raise limb_refusal(c, "weapon arm", f"no {defence}; choose one of {', '.join(step.options)}")
        if defence == "block" and "shield arm" in limbs:
            raise limb_refusal(c, "shield arm", f"no block; choose one of {', '.join(step.options)}")
        raise RuleError(f"{c.name} cannot {defence} here; choose one of {', '.join(step.options)}")
    if defence == "none":
        draft.emit(ev.ReactionChosen(exchange=x.id, handle=handle, reaction="none"))
        next_defence(draft, _declared(step, x, handle, {"defence": "none", "why": "does not defend"}))
        return
    item = _item(sheet, defence, command.with_item, c.name)
    rulings = rulings_of(state)
    sit, style = situation_mods(command.situations)
    test, base, style_mods = base_tn(sheet, defence, item, rulings, style)
    extra = []
    if defence == "block":
        shield = find_item(sheet, item)
        bonus = tables.SHIELD_VARIANTS[shield.variant].block_bonus
        if bonus:
            extra.append(ev.Modifier(bonus, f"{shield.variant} shield"))
    mods = tuple(style_mods) + tuple(extra) + tuple(sit) + tuple(condition_mods(c)) + tuple(command.modifiers)
    tn = total(base, mods)
    spend_ap(draft, handle, f"{defence} against {state.combatants[x.attacker].name}")
    draft.emit(ev.ReactionChosen(exchange=x.id, handle=handle, reaction=defence, with_item=item if defence != "evade" else ""))
    next_defence(draft, _declared(step, x, handle, {
        "defence": defence, "item": item, "test": test, "base": base, "tn": tn, "mods": pack_mods(mods)}))


def _declared(step: ev.PendingStep, x, handle: str, own: dict) -> dict:
    """The defences declared so far with this one: the first defender's
    keys plain, a later defender's prefixed ``HANDLE/``."""
    if handle == x.target:
        return {**step.data, **own}
    return {**step.data, **{f"{handle}/{k}": v for k, v in own.items()}}


def _item(sheet, defence: str, wanted: str, name: str) -> str:
    """The weapon or shield a defence uses: ``--with``, else the first that
    fits (a melee weapon to parry or counter, a shield to block)."""
    if defence == "evade":
        return "Evade"
    if wanted:
        item = find_item(sheet, wanted)
        if defence == "block" and not (isinstance(item, Shield) and item in blocking_shields(sheet)):
            raise RuleError(f"{name} cannot block with {item.name}; block with a shield ({', '.join(s.name for s in blocking_shields(sheet))})")
        if defence in ("parry", "counter") and not (isinstance(item, Weapon) and item.kind == "melee"):
            raise RuleError(f"{name} cannot {defence} with {item.name}; use a melee weapon")
        return item.name
    if defence == "block":
        return blocking_shields(sheet)[0].name
    return melee_weapons(sheet)[0].name


def choose_evade_move(draft: Draft, step: ev.PendingStep, who: str, option: str) -> None:
    """After an evaded attack the defender may move up to 1 m for free; the
    move provokes no attack of opportunity (seed 003 "Evade"; ruling
    ``evade_move``): ``move`` or ``stay``; under ruling
    ``evade_move_engagement = ends`` the move also ends the engagement with
    the attacker."""
    option = option.strip().lower()
    if option not in ("move", "stay"):
        raise RuleError("after an Evade choose move (1 m, free, no attack of opportunity) or stay")
    if option == "move":
        draft.emit(ev.CombatantMoved(handle=who, distance=1.0, reason="Evade: a free 1 m move, no attack of opportunity"))
        x = draft.state.exchange
        if (rulings_of(draft.state).evade_move_engagement == "ends" and x is not None
                and x.attacker in draft.state.combatants[who].engaged):
            draft.emit(ev.EngagementChanged(a=who, b=x.attacker, engaged=False))
    finish_exchange(draft, "evaded")
