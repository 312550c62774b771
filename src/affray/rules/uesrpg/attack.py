"""Step 1 of the uesrpg exchange: the attack (seed 003 "Step 1: Attack").

The attacker chooses target, weapon and Combat Style, and the TN is set with
every circumstance modifier; the roll itself waits until the defender has
chosen (seed 003 Step 2: "must choose to defend before the attacker has
rolled"). Melee uses STR or AGI, ranged AGI, and a spell its school's skill
(Step 1); a weapon outside the style is -20 (Step 1, ruling
``outside_style``); difficulty and melee circumstances come from
rules-reference.md D1 and D14.
"""

from __future__ import annotations

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.base import Draft, RuleError, check_target, find_combatant
from affray.rules.uesrpg.core import (
    attack_spends,
    base_tn,
    can_defend,
    condition_mods,
    defence_options,
    find_item,
    limb_refusal,
    next_defence,
    require_turn,
    rulings_of,
    sheet_of,
    situation_mods,
    split_distance,
    spend_ap,
    total,
    unusable_limbs,
)
from affray.rules.uesrpg.sheet import Spell, Weapon


def attack_kind(item) -> str:
    """melee, ranged or spell, from what the attacker uses."""
    if isinstance(item, Spell):
        return "spell"
    if isinstance(item, Weapon):
        return item.kind
    raise RuleError(f"{item.name} is a shield: block with it ('affray react WHO block'), attack with a weapon")


def declare(draft: Draft, command: cmd.DeclareAttack) -> None:
    """``affray attack ATTACKER TARGET[,TARGET...] [--weapon W]
    [--situation style:S|distance:METRES]`` on the attacker's Turn, for 1 AP
    (ruling ``ap_costs``): the TN is fixed and recorded with its modifiers;
    then each defender is asked for a defence, or, unable to defend,
    automatically fails (seed 003 Step 3). Several targets need an item whose
    ``targets`` allows them (seed 003 Step 4, several defenders); a ranged
    weapon or spell with a ``range`` refuses a ``distance`` beyond it
    (Step 1, "within the range of their weapon")."""
    state = draft.state
    if getattr(draft.dice, "remaining_values", ()):
        raise RuleError("the attack roll comes after the defence (seed 003 Step 2): declare the attack without --dice, "
                        "let the defender 'react', then 'affray roll --dice ATTACK,DEFENCE'")
    attacker = find_combatant(state, command.attacker)
    targets = [find_combatant(state, t) for t in command.target.split(",") if t.strip()]
    if not targets:
        raise RuleError("name the target: affray attack ATTACKER TARGET")
    a = require_turn(state, attacker)
    for target in targets:
        check_target(state, attacker, target, hint=f"; use 'affray act {attacker} pass'")
    if len(set(targets)) != len(targets):
        raise RuleError("each target is named once")
    target = targets[0]
    t = state.combatants[target]
    if a.combat_actions <= 0:
        raise RuleError(f"{a.name} has no Action Points left this round; 'affray act {attacker} pass' ends the Turn")
    sheet = sheet_of(a)
    item = find_item(sheet, command.weapon) if command.weapon else (sheet.weapons or sheet.spells)[0]
    kind = attack_kind(item)
    if kind != "spell" and "weapon arm" in unusable_limbs(state, a):
        raise limb_refusal(a, "weapon arm", f"no attack with the {item.name}; cast a spell or pass")
    if len(targets) > item.targets:
        raise RuleError(f"{item.name} faces {item.targets} defender{'s' if item.targets > 1 else ''} at once, not "
                        f"{len(targets)} (its sheet's 'targets'); attack one target")
    rulings = rulings_of(state)
    situations, distance = split_distance(command.situations)
    sit, style = situation_mods(situations)
    if distance is not None and kind != "melee" and item.range and distance > item.range:
        raise RuleError(f"{t.name} is {distance:g} m away, beyond {item.name}'s range of {item.range:g} m "
                        f"(seed 003 Step 1: 'within the range of their weapon')")
    test, base, style_mods = base_tn(sheet, kind, item.name, rulings, style)
    mods = tuple(style_mods) + tuple(sit) + tuple(condition_mods(a, attack_on=target, melee=kind == "melee")) + tuple(command.modifiers)
    tn = total(base, mods)
    names = " and ".join(state.combatants[h].name for h in targets)
    spend_ap(draft, attacker, f"attack on {names}")
    attack_spends(draft, attacker, target, melee=kind == "melee")
    group = f";group={'+'.join(targets[1:])}" if len(targets) > 1 else ""
    draft.emit(ev.AttackDeclared(
        exchange=state.next_exchange, attacker=attacker, target=target, weapon=item.name,
        kind=f"{kind};test={test};base={base};tn={tn}{group}", modifiers=mods,
    ))
    for h in targets:
        if kind == "melee" and h not in a.engaged:
            draft.emit(ev.EngagementChanged(a=attacker, b=h, engaged=True))
    offer_defence(draft, target)


def offer_defence(draft: Draft, target: str) -> None:
    """Ask the (first) defender for a defence before the roll, or record
    that it cannot defend and go on to the next defender or the roll (seed
    003 Step 2-3)."""
    state = draft.state
    x = state.exchange
    t = state.combatants[target]
    why = can_defend(state, t)
    if why:
        draft.emit(ev.ReactionChosen(exchange=x.id, handle=target, reaction="none", with_item=""))
        next_defence(draft, {"defence": "none", "why": why})
        return
    options = defence_options(state, t, x)
    a = state.combatants[x.attacker]
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=target, verb="react", kind="react", exchange=x.id, options=options,
        prompt=f"{t.name}: choose a defence against {a.name}'s {x.weapon} BEFORE the roll: {' | '.join(options)} "
               f"(--with ITEM, --situation style:NAME)",
    ),)))
