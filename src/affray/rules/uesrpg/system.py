"""The uesrpg rule system: UESRPG 3e combat, seed 003_9f2af80e743acd07.txt
and rules-reference.md section D.

This is the only module that imports the rule modules: it builds the one
:class:`~affray.rules.router.Router` (commands and pending step kinds to
their handlers, the turn sequencer) and ``decide`` runs it.
"""

from __future__ import annotations

import shlex

from affray.events import commands as cmd
from affray.rules.base import Draft, RuleError, SystemBase, find_combatant
from affray.rules import gm
from affray.rules.router import Router
from affray.rules.uesrpg import advantages, attack, contest, damage, defence, opportunity, several, turns, wounds
from affray.rules.uesrpg.conditions import CATALOGUE
from affray.rules.uesrpg.core import exchange_kind
from affray.rules.uesrpg.rulings import RULINGS_DOC, as_mapping, from_mapping
from affray.rules.uesrpg.sheet import SheetError, load_sheet, parse_sheet


def _roll(draft: Draft, command: cmd.RollPending) -> None:
    """``affray roll [WHO]``: the first pending roll step (of WHO)."""
    state = draft.state
    who = find_combatant(state, command.who) if command.who else ""
    step = next((s for s in state.pending if s.verb == "roll" and (not who or s.who == who)), None)
    if step is None:
        react = next((s for s in state.pending if s.verb == "react"), None)
        if react is not None:
            raise RuleError(f"{state.combatants[react.who].name} chooses a defence first, before the attacker rolls "
                            f"(seed 003 Step 2): affray react {react.who} {'|'.join(react.options)}")
        waiting = "; ".join(s.prompt for s in state.pending) or "nothing"
        raise RuleError(f"no roll is pending{' for ' + who if who else ''} (waiting for: {waiting})")
    draft.then(f"roll:{step.kind}", step=step)


def _choose(draft: Draft, command: cmd.MakeChoice) -> None:
    """``affray choose WHO OPTION``: the pending choice of WHO."""
    state = draft.state
    who = find_combatant(state, command.who)
    step = next((s for s in state.pending if s.verb == "choose" and s.who == who), None)
    if step is None:
        kind, _ = exchange_kind(state.exchange) if state.exchange is not None else ("", {})
        if kind in ("ranged", "spell"):
            raise RuleError(advantages.ranged_refusal(kind))
        waiting = "; ".join(s.prompt for s in state.pending) or "nothing"
        raise RuleError(f"{state.combatants[who].name} has no choice to make now (waiting for: {waiting})")
    draft.then(f"choose:{step.kind}", step=step, who=who, option=command.option)


ACTIONS = {"pass": "act:pass", "move": "act:move", "treat": "act:treat"}


def _act(draft: Draft, command: cmd.TakeAction) -> None:
    """``affray act WHO ACTION [ARGS]``: pass, move [METRES], treat TARGET."""
    state = draft.state
    words = shlex.split(command.action) or [""]
    action, args = words[0].lower(), words[1:]
    who = "gm" if command.who.strip().lower() == "gm" and action == "treat" else find_combatant(state, command.who)
    if action not in ACTIONS:
        raise RuleError(f"unknown action {action!r}; uesrpg actions: {', '.join(ACTIONS)} (attack with 'affray attack')")
    draft.then(ACTIONS[action], who=who, args=args)


def _sequence(draft: Draft) -> None:
    """The turn sequencer: the later defenders of an attack against several
    first (:mod:`.several`), then attacks of opportunity still owed to a
    mover (:mod:`.opportunity`), else the turn order (:mod:`.turns`)."""
    if not several.sequence(draft) and not opportunity.sequence(draft):
        turns.advance(draft)


ROUTER = Router(
    system="uesrpg",
    commands={
        **gm.COMMANDS,  # the GM's rulings, the same in every system (rules/gm.py)
        cmd.JoinCombatant: turns.join,
        cmd.StartRound: turns.start,
        cmd.DeclareAttack: attack.declare,
        cmd.ChooseReaction: defence.react,
        cmd.RollPending: _roll,
        cmd.MakeChoice: _choose,
        cmd.TakeAction: _act,
        cmd.EndRound: turns.end_round,
    },
    steps={
        "roll:tests": contest.roll_tests,
        "advantages": advantages.offer,
        "choose:advantage": advantages.choose,
        "resolve": damage.resolve,
        "roll:damage": damage.roll_damage,
        "roll:block": damage.roll_block,
        "choose:evade-move": defence.choose_evade_move,
        "wound-check": wounds.wound_check,
        "roll:shock": wounds.roll_shock,
        "bleed-out": wounds.bleed_out,
        "next-round": turns.next_round,
        "act:pass": turns.pass_turn,
        "act:treat": wounds.treat,
        "act:move": opportunity.move,
        "react:opportunity": opportunity.react,
        "offer-defence": attack.offer_defence,
    },
    sequencer=_sequence,
)


class Uesrpg(SystemBase):
    """UESRPG 3e: initiative 1d6 + rating, 3 Action Points a round, the
    defence chosen before the attack roll, Degrees of Success, Advantages
    spent before damage, one HP pool with a Wound Threshold."""

    key = "uesrpg"
    aliases = ("ues", "uesrpg3e")
    title = "UESRPG 3e"
    source = "seed 003_9f2af80e743acd07.txt (UESRPG 3e combat steps 1-4); rules-reference.md D"
    conditions = CATALOGUE
    rulings_doc = RULINGS_DOC

    _rulings_from = from_mapping
    _rulings_as = as_mapping
    _sheet_loader = load_sheet
    _sheet_parser = parse_sheet
    _sheet_error = SheetError
    router = ROUTER


SYSTEM = Uesrpg()
