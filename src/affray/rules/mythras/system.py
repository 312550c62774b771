"""The mythras rule system: Mythras / Classic Fantasy Imperative combat,
seed 001 (CFI Chapter 8: Combat) and rules-reference.md section B.

``SYSTEM.decide(state, command, dice)`` turns a command into events. It
reads the projected state and never touches the store.
"""

from __future__ import annotations


import msgspec

from affray.events import commands as cmd
from affray.events import core as ev
from affray.projections.state import State
from affray.rules.base import Draft, RuleError, SystemBase, find_combatant, joining
from affray.rules.mythras import actions, attack, damage, turns
from affray.rules.mythras.common import rulings_of
from affray.rules.mythras.conditions import CATALOGUE
from affray.rules.mythras.effect_choice import choose
from affray.rules.mythras.rulings import RULINGS_DOC, as_mapping, from_mapping
from affray.rules.mythras.sheet import SheetError, derive, load_sheet, parse_sheet


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
    _sheet_error = SheetError

    def decide(self, state: State, command: cmd.Command, dice) -> list[ev.Event]:
        """The events ``command`` produces in ``state``; :class:`RuleError`
        (one line) when the rules refuse it."""
        draft = Draft(state, dice)
        match command:
            case cmd.JoinCombatant():
                self._join(draft, command)
            case cmd.StartRound():
                if state.phase == "over":
                    raise RuleError("the fight is over; 'affray close' ends the encounter")
                turns.start(draft)
            case cmd.DeclareAttack():
                attack.declare_attack(draft, find_combatant(state, command.attacker),
                                      find_combatant(state, command.target), command.weapon,
                                      command.modifiers, command.situations)
            case cmd.ChooseReaction():
                attack.react(draft, find_combatant(state, command.defender), command.reaction,
                             command.with_item, command.modifiers, command.situations)
            case cmd.MakeChoice():
                who = "GM" if command.who.strip().lower() == "gm" else find_combatant(state, command.who)
                choose(draft, who, command.option, secret=getattr(command, "secret", False))
            case cmd.RollPending():
                damage.roll_step(draft, find_combatant(state, command.who) if command.who else "")
            case cmd.TakeAction():
                actions.act(draft, find_combatant(state, command.who), command.action)
            case cmd.EndRound():
                turns.end_round(draft)
            case _:
                raise RuleError(f"mythras does not handle {type(command).__name__}")
        return draft.events

    def _join(self, draft: Draft, command: cmd.JoinCombatant) -> None:
        state = draft.state
        if state.phase != "setup":
            raise RuleError("mythras rolls Initiative once, so combatants join before 'affray start'")
        try:
            sheet = parse_sheet(command.sheet)
        except SheetError as exc:
            raise RuleError(str(exc)) from None
        name = command.name or sheet.name
        handle, side = joining(state, command, name)
        d = derive(sheet, rulings_of(state))
        draft.emit(ev.CombatantJoined(
            handle=handle, name=name, side=side, sheet=msgspec.to_builtins(sheet), locations=d.locations,
            combat_actions=d.action_points, reactions=0, weapons_ready=d.ready, surprised=command.surprised,
            movement=sheet.movement,
        ))
        s = draft.state
        steps = (turns.start_step(s),) if len({c.side for c in s.combatants.values()}) >= 2 else ()
        draft.emit(ev.StepsAwaited(steps=steps))


SYSTEM = Mythras()
