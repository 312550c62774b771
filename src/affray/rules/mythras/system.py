"""The mythras rule system: Mythras / Classic Fantasy Imperative combat,
seed 001 (CFI Chapter 8: Combat) and rules-reference.md section B.

``SYSTEM.decide(state, command, dice)`` turns a command into events. It
reads the projected state and never touches the store.

This module is the router (:mod:`affray.rules.router`), and the only one
that imports the rule modules. ``COMMANDS`` maps each command to its
handler; ``STEPS`` maps every step kind to the handler that decides it:
the steps a handler queues with ``draft.then(kind, ...)`` and the pending
steps the table answers (``affray roll`` queues ``"roll:" + kind``,
``affray choose`` queues ``"choose:" + kind``, ``affray act`` queues
``"act:" + action``). When a handler has finished and nothing is queued,
the router hands over to the turn sequencer, :func:`.turns.advance`.

The exchange, step by step (seed 001 "Attacks and Parries"):

1. ``attack``: the attack roll, the defender's reaction (parry, evade,
   counterattack) and the differential roll (:func:`.attack.resolve`, where
   the parry's deflection by weapon Size is settled).
2. ``effect_choice``: the winner picks Special Effects; ``effects``: the
   effects' own opposed rolls (Trip, Disarm, Blind, ...).
3. ``damage``: the damage roll, then Knockback or Bash, the parry and
   armour; ``wounds``: Bleed, Stun Location, Impale, the wound on the
   location's Hit Points with its Endurance roll.
4. ``attack:end-exchange``: the exchange closes; a charger may sweep past,
   a deferred attack (``special_attacks``) opens, or the turn moves on.
"""

from __future__ import annotations

from affray.events import commands as cmd
from affray.rules.base import Draft, RuleError, SystemBase, find_combatant
from affray.rules.mythras import (
    actions,
    attack,
    damage,
    defence,
    effect_choice,
    effects,
    holds,
    luck,
    magic,
    movement,
    movement_modes,
    ranged,
    special_attacks,
    terrain,
    turns,
    wounds,
)
from affray.rules.mythras import tables
from affray.rules.mythras.conditions import CATALOGUE
from affray.rules.mythras.core import go_on
from affray.rules.mythras.rulings import RULINGS_DOC, as_mapping, from_mapping
from affray.rules.mythras.sheet import SheetError, load_sheet, parse_sheet
from affray.rules import gm
from affray.rules.router import Router


def roll_pending(draft: Draft, command: cmd.RollPending) -> None:
    """``affray roll [WHO]``: perform the first pending roll step (or the
    first that is ``WHO``'s): queue ``"roll:" + step.kind`` with the step
    and the rest of the pending steps. :class:`RuleError` when no roll is
    pending."""
    state = draft.state
    who = find_combatant(state, command.who) if command.who else ""
    steps = [s for s in state.pending if s.verb == "roll" and (not who or s.who == who)]
    if not steps:
        waiting = "; ".join(s.prompt for s in state.pending) or "nothing"
        raise RuleError(f"no roll is pending{' for ' + who if who else ''} (waiting for: {waiting})")
    step = steps[0]
    draft.then("roll:" + step.kind, step=step, rest=tuple(s for s in state.pending if s is not step))


def make_choice(draft: Draft, command: cmd.MakeChoice) -> None:
    """``affray choose WHO OPTION``: answer ``WHO``'s pending choice (a
    Special Effect, its follow-ups, Sharpshooter's location, a crowd's
    victim, the end of a charge, Outmaneuvering's end, Counter Spell):
    queue ``"choose:" + step.kind``. :class:`RuleError` when ``WHO`` has no
    choice to make or names an option not offered; Prepare Counter's pick
    must be ``--secret`` (seed 001 "Prepare Counter")."""
    state = draft.state
    who = "GM" if command.who.strip().lower() == "gm" else find_combatant(state, command.who)
    c = state.combatants.get(who)
    step = next((s for s in state.pending if s.verb == "choose" and s.who == who), None)
    name = c.name if c is not None else who
    if step is None:
        waiting = "; ".join(s.prompt for s in state.pending) or "nothing"
        raise RuleError(f"{name} has no choice to make now (waiting for: {waiting})")
    option = tables.option_key(command.option, step.options)  # "Choose Location", maximise-damage
    if option not in step.options:
        raise RuleError(f"{name} can choose {' | '.join(step.options)} here, not {option!r}")
    if step.kind == "counter" and not getattr(command, "secret", False):
        raise RuleError("the effect a counter is prepared against is noted in secret: add --secret "
                        "(seed 001 'Prepare Counter'; exports hide it)")
    draft.then("choose:" + step.kind, step=step, option=option)


COMMANDS = {
    **gm.COMMANDS,  # the GM's rulings, the same in every system (rules/gm.py)
    cmd.JoinCombatant: turns.join,
    cmd.StartRound: turns.start,
    cmd.DeclareAttack: attack.declare,
    cmd.ChooseReaction: attack.react_command,
    cmd.MakeChoice: make_choice,
    cmd.RollPending: roll_pending,
    cmd.TakeAction: actions.act_command,
    cmd.EndRound: turns.end_round,
}

STEPS = {
    # --- the exchange: attack, reaction, differential roll (attack.py) ---
    "attack:rolled": attack.rolled,                  # the attack roll resolved; the defender is offered a reaction
    "attack:offer-reaction": attack.offer_reaction,  # parry | evade | counterattack | none
    "attack:resolve": attack.resolve,                # the differential roll; the parry's deflection by Size
    "ranged:crowd-miss": ranged.crowd_miss,          # a shot that missed only for the crowd
    "special:counterattack": special_attacks.counterattack,  # the reaction to a charge
    # --- Special Effects: the picks (effect_choice.py), then their steps (effects.py) ---
    "effects:offer-choice": effect_choice.offer_choice,
    "effects:continue-choosing": effect_choice.continue_choosing,
    "effects:after-choice": effects.after_choice,    # Trip, Disarm, Blind, ... steps; then damage:offer
    "effects:disarm": effects.disarm,
    "effects:damage-weapon": effects.damage_weapon,  # the attacker's Damage Weapon, from apply_damage
    "effects:entangle": effects.entangle,            # the attacker's Entangle, from apply_damage
    "effects:injured": effects.injured,              # after Accidental Injury's wounds:hurt
    # --- damage and wounds (damage.py); what follows damage is in its docstring ---
    "damage:offer": damage.offer,                    # await the damage roll, or end the exchange
    "damage:apply": damage.apply_damage,             # after Sharpshooter
    # --- what follows damage: wounds (wounds.py) ---
    "wounds:inflict": wounds.inflict,                # Bleed, Stun Location, Impale, Entangle; then wounds:wound
    "wounds:wound": wounds.wound_step,               # the wound on the location, then go-on
    "wounds:hurt": wounds.hurt,                      # damage from elsewhere, then the caller's continuation
    "go-on": go_on,                                  # await the steps left, or end the exchange, or done
    # --- the end of an exchange (attack.py) and the attacks it leaves (special_attacks.py) ---
    "attack:end-exchange": attack.end_exchange,      # a charger stops or sweeps past
    "attack:after-exchange": attack.after_exchange,  # a deferred attack opens, or the turn moves on
    "special:open-deferred": special_attacks.open_deferred,
    # --- rolls the table makes (affray roll): handler(draft, step, rest) ---
    "roll:damage": damage.roll_damage,          # weapon dice, Damage Modifier, location; then apply_damage
    "roll:wound": wounds.roll_endurance,        # opposed Endurance after Bleed, Stun Location, a Serious/Major Wound
    "roll:knockback": damage.roll_fall,         # stay on one's feet after Knockback
    "roll:bash": damage.roll_fall,              # ... after a Bash into an obstacle
    "roll:trip": effects.roll_trip,             # Trip Opponent (and an entangling weapon's trip)
    "roll:disarm": effects.roll_disarm,
    "roll:blind": effects.roll_blind,
    "roll:weapon-damage": effects.roll_weapon_damage,   # the defender's Damage Weapon
    "roll:entangle": effects.roll_entangle,     # the defender's Entangle: the location
    "roll:injury": effects.roll_injury,         # Accidental Injury; then wounds:hurt
    "roll:footing": turns.roll_footing,         # Regain Footing while engaged
    "roll:outmaneuver": movement.roll_outmaneuver,
    "roll:struggle": holds.roll_struggle,
    "roll:yank": holds.roll_yank,               # then wounds:hurt, holds:yanked
    "roll:cast": magic.roll_cast,
    "roll:counter-spell": magic.roll_counter_spell,
    "roll:assess": actions.roll_assess,
    # --- choices (affray choose): handler(draft, step, option) ---
    "choose:special-effect": effect_choice.choose_effect,
    "choose:location": effect_choice.choose_effect,     # Choose Location's location
    "choose:counter": effect_choice.secret_counter,     # Prepare Counter's secret pick
    "choose:counter-effect": effect_choice.counter_effect,
    "choose:blind-grade": effect_choice.effect_detail,
    "choose:select-target": effect_choice.effect_detail,
    "choose:bypass-armor": effect_choice.effect_detail,  # worn or natural armour bypassed
    "choose:crowd-victim": effects.crowd_victim,
    "choose:charge-end": effects.charge_end,
    "choose:sharpshooter": effects.sharpshooter,       # then damage:apply
    "choose:outmaneuver-end": movement.outmaneuver_end,
    "choose:counter-spell": magic.counter_choice,
    "choose:luck-reroll": luck.luck_reroll,          # a lost roll (Trip, Disarm, Blind, Struggle, footing, yank, Outmaneuver): Luck?
    "choose:luck-endurance": wounds.luck_endurance,  # a failed Endurance roll: spend a Luck Point to re-roll?
    "choose:luck-damage": damage.luck_damage,        # a damage roll: spend a Luck Point to re-roll it?
    # --- actions (affray act WHO ACTION, checked by actions.act): handler(draft, who, arg) ---
    **{"act:" + name: handler for name, handler in actions.ACTIONS.items()},  # ready, sheathe, drop, speak, signal, assess
    "act:brace": defence.brace,
    "act:take-cover": defence.take_cover,
    "act:ward": defence.ward,
    "act:unward": defence.unward,
    "act:move": movement.move,                  # through terrain: terrain:move
    "act:hustle": movement.hustle,
    "act:change-range": movement.change_range,
    "act:outmaneuver": movement.outmaneuver,
    "act:mount": movement.mount,
    "act:dismount": movement.dismount,
    **{"act:" + name: handler for name, handler in movement_modes.TURN_ACTIONS.items()},  # climb, crawl, jump, swim
    "modes:landed": movement_modes.landed,      # after a fumbled Jump's wounds:hurt
    "act:terrain": terrain.declare,
    "terrain:move": terrain.move,
    "act:reload": ranged.reload,
    "act:aim": ranged.aim,
    "act:struggle": holds.struggle,
    "act:yank": holds.yank,
    "act:trip": holds.trip,
    "holds:yanked": holds.yanked,               # after a yanked weapon's wounds:hurt
    "act:leap": special_attacks.leap,
    "act:sweep": special_attacks.sweep,
    "act:cast": magic.cast,
    "act:hold": magic.hold,
    "act:release": magic.release,
    "act:luck": luck.luck,
    "act:interrupt": turns.interrupt,
    "act:first-aid": wounds.first_aid,  # staunch a Bleed (seed 001 'Bleed')
    "turns:delay": turns.delay,                 # pass, delay, stand: handler(draft, handle, action)
}

ROUTER = Router(system="mythras", commands=COMMANDS, steps=STEPS, sequencer=turns.advance)


class Mythras(SystemBase):
    """Mythras / CFI: Initiative rolled once, turns cycling while anyone has
    Action Points, attack and parry as a differential roll with Special
    Effects chosen before damage."""

    key = "mythras"
    aliases = ("cfi", "mythras-imperative", "classic-fantasy-imperative")
    title = "Mythras / Classic Fantasy Imperative"
    source = "seed 001_0613c1b7f6517492.txt (Classic Fantasy Imperative, Chapter 8: Combat); rules-reference.md B"
    conditions = CATALOGUE
    rulings_doc = RULINGS_DOC

    _rulings_from = from_mapping
    _rulings_as = as_mapping
    _sheet_loader = load_sheet
    _sheet_parser = parse_sheet
    _sheet_error = SheetError
    router = ROUTER


SYSTEM = Mythras()
