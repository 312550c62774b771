"""The mrq1 rule system: Mongoose RuneQuest (1st ed.) SRD combat, seed 004.

``SYSTEM.decide(state, command, dice)`` turns a command into events. It
reads the projected state and never touches the store.
"""

from __future__ import annotations


import msgspec

from affray.events import commands as cmd
from affray.events import core as ev
from affray.projections.state import State
from affray.rules.base import Draft, RuleError, SystemBase, find_combatant, joining
from affray.rules.mrq1 import (  # noqa: F401  (area, free_attacks, impaling, knockback, precise, wounds register roll steps)
    actions, area, attack, damage, extras, free_attacks, impaling, knockback, precise, ranged, turns, wounds,
)
from affray.rules.mrq1.conditions import CATALOGUE
from affray.rules.mrq1.rulings import RULINGS_DOC, from_mapping
from affray.rules.mrq1.sheet import Sheet, SheetError, compact, derive, load_sheet


class Mrq1(SystemBase):
    """Mongoose RuneQuest (1st ed.): strike ranks rolled each round, combat
    actions in passes, reactions against each successful attack."""

    key = "mrq1"
    aliases = ("mrq", "mongoose-runequest", "mrq1e")
    title = "Mongoose RuneQuest (1st ed.)"
    source = "seed 004_71637fb3cfde52c9.txt (Mongoose RuneQuest SRD, Combat)"
    conditions = CATALOGUE
    rulings_doc = RULINGS_DOC

    _rulings_from = from_mapping
    _sheet_loader = load_sheet
    _sheet_error = SheetError

    def _rulings_as(r) -> dict[str, str]:
        return {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in r.as_mapping().items()}

    def load_sheet(self, path: str) -> dict:
        """The sheet as plain data, without mounted-combat fields at their
        defaults (so older logs and exports stay byte for byte the same)."""
        return compact(super().load_sheet(path))

    def decide(self, state: State, command: cmd.Command, dice) -> list[ev.Event]:
        """The events ``command`` produces in ``state``.

        Raises :class:`RuleError` (one line) when the rules refuse it.
        """
        draft = Draft(state, dice)
        if extras.decide(draft, command):  # grappling, Hero Points, mounts (rules/mrq1/extras.py)
            return draft.events
        command = extras.prepare(draft, command)
        match command:
            case cmd.JoinCombatant():
                self._join(draft, command)
            case cmd.StartRound():
                if state.phase == "round":
                    raise RuleError(f"round {state.round} is already running; 'affray end-round' ends it")
                if state.phase == "over":
                    raise RuleError("the fight is over; 'affray close' ends the encounter")
                if state.phase == "between" and any(s.kind != "start" for s in state.pending):
                    raise RuleError("Resilience re-tests are due first; see 'affray pending'")
                turns.start_round(draft)
            case cmd.DeclareAttack():
                attack.declare_attack(
                    draft,
                    find_combatant(state, command.attacker),
                    find_combatant(state, command.target),
                    command.weapon,
                    command.modifiers,
                    command.situations,
                )
            case cmd.ChooseReaction():
                attack.react(
                    draft,
                    find_combatant(state, command.defender),
                    command.reaction,
                    command.with_item,
                    command.modifiers,
                    command.situations,
                )
            case cmd.RollPending():
                damage.roll_step(draft, find_combatant(state, command.who) if command.who else "")
            case cmd.MakeChoice():
                damage.choose(draft, find_combatant(state, command.who), command.option)
            case cmd.TakeAction():
                if command.who.strip().lower() == "gm" and "gm" not in state.combatants:
                    actions.gm_action(draft, command.action)
                else:
                    attack.take_action(draft, find_combatant(state, command.who), command.action)
            case cmd.EndRound():
                turns.end_round(draft)
            case _:
                raise RuleError(f"mrq1 does not handle {type(command).__name__}")
        extras.after(draft, command)
        return draft.events

    def _join(self, draft: Draft, command: cmd.JoinCombatant) -> None:
        state = draft.state
        if state.phase in ("over", "closed"):
            raise RuleError("the fight is over; open a new encounter with 'affray new'")
        try:
            sheet = msgspec.convert(command.sheet, Sheet)
        except msgspec.ValidationError as exc:
            raise RuleError(f"sheet: {exc}") from None
        name = command.name or sheet.name
        handle, side = joining(state, command, name)
        d = derive(sheet, _rulings(state))
        draft.emit(
            ev.CombatantJoined(
                handle=handle,
                name=name,
                side=side,
                sheet=compact(msgspec.to_builtins(sheet)),
                locations=tuple(
                    ev.LocationInit(name=l.name, hp=l.hp, ap=l.ap, low=l.low, high=l.high, limb=l.limb)
                    for l in d.locations
                ),
                combat_actions=d.combat_actions,
                reactions=d.reactions,
                movement=d.movement,
                weapons_ready=tuple(d.ready),
                surprised=command.surprised,
            )
        )
        if state.phase == "setup":
            s = draft.state
            sides = {c.side for c in s.combatants.values()}
            steps = ()
            if len(sides) >= 2:
                steps = (
                    ev.PendingStep(
                        who="GM",
                        verb="start",
                        kind="start",
                        prompt="GM: start round 1 (strike ranks), or join more combatants",
                        dice=turns.sr_dice(s),
                    ),
                )
            draft.emit(ev.StepsAwaited(steps=steps))


def _rulings(state: State):
    return from_mapping(state.rulings)


SYSTEM = Mrq1()
