"""The rq3 rule system: RuneQuest III house rules (seed 002,
``002_321dc991624c8969.txt``, replacing RQ3 pp. 45-65) with the figures of
rules-reference.md section C.

The one router of the system: commands and pending-step kinds map to the
handlers of the rule modules (one per seed section); :func:`turns.advance`
is the turn sequencer. This is the only module that imports rule modules.
"""

from __future__ import annotations

import shlex

from affray.events import commands as cmd
from affray.rules.base import Draft, RuleError, SystemBase, find_combatant
from affray.rules import gm
from affray.rules.router import Router
from affray.rules.rq3 import (attack, damage, defence, fallen, grapple, intent, knockback, magic, mapmove, mounted,
                              movement, perception, terrain, turns, wounds)
from affray.rules.rq3.core import on_map, position
from affray.rules.rq3.conditions import CATALOGUE
from affray.rules.rq3.rulings import RULINGS_DOC, as_mapping, from_mapping
from affray.rules.rq3.sheet import SheetError, load_sheet, parse_sheet

#: ``affray act WHO "WORD ..."``: the first word -> the step kind it queues.
ACT_WORDS = {
    "intent": "act:intent", "declare": "act:intent", "abort": "act:abort", "move": "act:move",
    "withdraw": "act:post-move", "approach": "act:post-move", "pass": "act:pass", "stand": "act:stand",
    "place": "act:place", "protect": "act:protect", "perceive": "act:perceive",
}


def _act(draft: Draft, command: cmd.TakeAction) -> None:
    who = find_combatant(draft.state, command.who)
    try:
        words = shlex.split(command.action)
    except ValueError:
        raise RuleError(f"cannot read {command.action!r}: close the quotes") from None
    if len(words) == 1 and " " in words[0]:  # the whole action typed as one quoted argument
        words = shlex.split(words[0])
    if not words or words[0].lower() not in ACT_WORDS:
        raise RuleError(f"unknown rq3 action {command.action!r}; use one of: {', '.join(ACT_WORDS)}")
    first = words[0].lower()
    kind = ACT_WORDS[first]
    if first == "move" and any(w.lower().startswith(("terrain=", "moves=")) for w in words):
        kind = "act:terrain"
    elif first == "move" and on_map(draft.state) and mapmove.is_map_move(words[1:]):
        kind = "act:map-move"  # a hex path on the map (seed 002 "MOVE")
    elif first in ("withdraw", "approach") and position(draft.state.combatants[who]) is not None:
        kind = "act:map-post-move"  # the Post Melee Move walks the hexes
    draft.then(kind, who=who, words=words if first in ("withdraw", "approach") else words[1:])


def _roll(draft: Draft, command: cmd.RollPending) -> None:
    state = draft.state
    who = find_combatant(state, command.who) if command.who else ""
    step = next((p for p in state.pending if p.verb == "roll" and (not who or p.who == who)), None)
    if step is None:
        waiting = state.pending[0].prompt if state.pending else "nothing"
        raise RuleError(f"no roll is pending{' for ' + who if who else ''}; the table waits for: {waiting}")
    draft.then("roll:" + step.kind, step=step)


def _pass(draft: Draft, who: str, words: list[str]) -> None:
    attack.pass_action(draft, who)


ROUTER = Router(
    system="rq3",
    commands={
        **gm.COMMANDS,  # the GM's rulings, the same in every system (rules/gm.py)
        cmd.JoinCombatant: turns.join,
        cmd.StartRound: turns.start,
        cmd.EndRound: turns.end_round,
        cmd.TakeAction: _act,
        cmd.DeclareAttack: attack.declare,
        cmd.ChooseReaction: defence.react,
        cmd.RollPending: _roll,
        cmd.Mount: mounted.mount,
    },
    steps={
        "act:intent": lambda draft, who, words: intent.declare(draft, who, words),
        "act:abort": lambda draft, who, words: intent.abort(draft, who, words),
        "act:move": lambda draft, who, words: movement.move(draft, who, words),
        "act:post-move": lambda draft, who, words: movement.post_move(draft, who, words),
        "act:pass": _pass,
        "act:terrain": lambda draft, who, words: terrain.start(draft, who, words),
        "act:map-move": lambda draft, who, words: mapmove.move(draft, who, words),
        "act:map-post-move": lambda draft, who, words: mapmove.toward_or_away(draft, who, words),
        "act:perceive": lambda draft, who, words: perception.perceive(draft, who, words),
        "act:place": lambda draft, who, words: mapmove.place(draft, who, words),
        "act:protect": lambda draft, who, words: magic.protect(draft, who, words),
        "act:stand": lambda draft, who, words: fallen.stand(draft, who, words),
        "roll:terrain": terrain.roll,
        "roll:fall": terrain.roll_fall,
        "terrain:after-fall": terrain.after_fall,
        "roll:breakfall": fallen.roll,
        "roll:grapple-hold": grapple.hold,
        "roll:disarm": attack.disarm,
        "roll:weapon-hit": defence.weapon_hit,
        "roll:grapple-follow": grapple.follow,
        "roll:thrown": grapple.thrown,
        "grapple:follow-step": grapple.follow_step,
        "grapple:failed": grapple.failed,
        "grapple:break-free": grapple.break_free,
        "grapple:end": grapple.end,
        "roll:maneuver": movement.roll_contest,
        "roll:limb-location": attack.limb_location,
        "roll:damage": damage.roll,
        "roll:knockback": knockback.roll,
        "wounds": wounds.inflict,
        "knockback": knockback.check,
    },
    sequencer=turns.advance,
)


class RQ3(SystemBase):
    """RuneQuest III house rules: a Statement of Intent from the lowest INT,
    a Move Phase by DEX, every action in Strike Rank order, a Post Melee
    Move; critical, special, success, failure and fumble."""

    key = "rq3"
    aliases = ("rq", "runequest3")
    title = "RuneQuest III house rules"
    source = "seed 002_321dc991624c8969.txt (RQ3 house rules replacing pp. 45-65); rules-reference.md C"
    conditions = CATALOGUE
    rulings_doc = RULINGS_DOC

    _rulings_from = from_mapping
    _rulings_as = as_mapping
    _sheet_loader = load_sheet
    _sheet_parser = parse_sheet
    _sheet_error = SheetError
    router = ROUTER


SYSTEM = RQ3()
