"""The rolemaster rule system: a Rolemaster-style sheet, seed 000
(``000_0c5afa08bd3fc886.txt``) and rules-reference.md section A.

The only module that imports the rule modules: it builds the one
:class:`~affray.rules.router.Router` (commands and steps as data, the turn
sequencer) and ``decide`` is ``ROUTER.decide(Draft(state, dice), command)``.
"""

from __future__ import annotations

import msgspec

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.base import Draft, RuleError, SystemBase, joining
from affray.rules import gm
from affray.rules.router import Router
from affray.rules.rolemaster import actions, attack, core, criticals, defence, hits, maneuvers, tactical, turns
from affray.rules.rolemaster.conditions import CATALOGUE
from affray.rules.rolemaster.rulings import RULINGS_DOC, as_mapping, from_mapping
from affray.rules.rolemaster.sheet import SheetError, default_ready, load_sheet, locations, parse_sheet


def join(draft: Draft, command: cmd.JoinCombatant) -> None:
    """Add a combatant from its sheet (before the fight starts, or between
    turns: a newcomer acts from the next round's Initiative). The sheet is
    stored as JSON would give it back (lists, not tuples), so a decision
    re-derived by ``affray audit`` equals the one recorded."""
    state = draft.state
    if state.phase in ("over", "closed"):
        raise RuleError("the fight is over; open a new encounter")
    try:
        sheet = parse_sheet(command.sheet)
    except SheetError as exc:
        raise RuleError(str(exc)) from None
    name = command.name or sheet.name
    handle, side = joining(state, command, name)
    draft.emit(ev.CombatantJoined(
        handle=handle, name=name, side=side, sheet=msgspec.json.decode(msgspec.json.encode(sheet)), locations=locations(sheet),
        combat_actions=int(core.rulings_of(state).action_points), reactions=0, weapons_ready=default_ready(sheet),
        surprised=command.surprised))
    if command.surprised:
        draft.emit(ev.ConditionApplied(handle=handle, condition=ev.Condition(
            id="unaware", name="unaware", cause=draft.next_version, since_round=state.round, since_step=state.step,
            ends=ev.ConditionEnd(kind="round-end"), effects={"no-qu-db": 1}, note="ambushed: unaware until round 1 ends")))
    if draft.state.phase == "setup":
        s = draft.state
        steps = (turns.start_step(s),) if len({c.side for c in s.combatants.values()}) >= 2 else ()
        draft.emit(ev.StepsAwaited(steps=steps))


ROUTER = Router(
    system="rolemaster",
    commands={
        **gm.COMMANDS,  # the GM's rulings, the same in every system (rules/gm.py)
        cmd.Heal: hits.heal,  # gm.heal, then a dying combatant healed in time stops dying at once (RMH)
        cmd.SetHitPoints: hits.set_hit_points,
        cmd.JoinCombatant: join,
        cmd.StartRound: turns.start,
        cmd.EndRound: turns.end_round,
        cmd.DeclareAttack: attack.declare,
        cmd.ChooseReaction: defence.react,
        cmd.RollPending: core.route_roll,
        cmd.TakeAction: core.route_act,
    },
    steps={
        "attack:open": attack.open_attack,
        "attack:roll": attack.roll_attack,
        "roll:fumble": attack.roll_fumble,
        "roll:critical": criticals.roll_critical,
        "roll:perception": maneuvers.roll_perception,
        "act:parry": defence.act_parry,
        "act:pass": actions.act_pass,
        "act:stand": actions.act_stand,
        "act:draw": actions.act_draw,
        "act:reload": actions.act_reload,
        "act:terrain": actions.act_terrain,
        "act:orientation": maneuvers.act_check("orientation"),
        "act:perception": maneuvers.act_check("perception"),
        "act:maneuver": maneuvers.act_maneuver,
        "hits:healed": hits.healed,
        "act:cancel": tactical.act_cancel,
        "act:trigger": tactical.act_trigger,
        "act:resolve": tactical.act_resolve,
    },
    sequencer=turns.advance,
)


class Rolemaster(SystemBase):
    """Rolemaster-style combat: open-ended rolls, OB - DB on attack tables
    the user supplies, closed critical rolls, the stun stack."""

    key = "rolemaster"
    aliases = ("rm", "rmss")
    title = "Rolemaster-style sheet"
    source = "seed 000_0c5afa08bd3fc886.txt (Combat Rules); rules-reference.md A"
    conditions = CATALOGUE
    rulings_doc = RULINGS_DOC

    _rulings_from = from_mapping
    _rulings_as = as_mapping
    _sheet_loader = load_sheet
    _sheet_parser = parse_sheet
    _sheet_error = SheetError
    router = ROUTER


SYSTEM = Rolemaster()
