"""Luck Points in mythras: ``luck`` re-rolls one's own roll of the open
exchange (seed 001 "Use Luck Point"). Queued as ``act:ACTION`` steps by
:func:`affray.rules.mythras.actions.act`. A failed opposed Endurance roll
offers its own Luck Point re-roll (:func:`.wounds.luck_endurance`); a lost
roll against Trip, Disarm or Blind, a lost Struggle, Regain Footing, yank
or Outmaneuvering, and a failed roll against Knockback or Bash offer
:func:`luck_reroll` (through :func:`~.core.offer_luck`); a damage roll
offers :func:`.damage.luck_damage` (ruling ``luck_damage_roll``).
"""

from __future__ import annotations

import json

from affray.events import core as ev
from affray.rules.base import Draft, RuleError
from affray.rules.d100 import CRITICAL, FUMBLE, is_success
from affray.rules.mythras import tables
from affray.rules.mythras.core import combat_skill, find_weapon, kinds, luck_left, sheet_of, spend_luck, test


def luck(draft: Draft, who: str, arg: str) -> None:
    """Use Luck Point (free): re-roll one's own latest roll of the open
    exchange, the attack roll or the parry/evade, while no Special Effect
    has been chosen and no damage rolled (seed 001 "Use Luck Point"). The
    new roll supersedes the old in the log."""
    state = draft.state
    c = state.combatants[who]
    if luck_left(c) <= 0:
        raise RuleError(f"{c.name} has no Luck Points left")
    x = state.exchange
    if x is None or not x.resolved:
        raise RuleError("a Luck Point re-rolls a roll of the open exchange (the attack or the reaction); none is open")
    step = state.pending[0] if state.pending else None
    if step is None or step.kind not in ("react", "special-effect", "damage") or (
            step.kind == "special-effect" and step.data.get("chosen")):
        raise RuleError("too late to re-roll: the exchange has moved on (Special Effects chosen or damage rolled)")
    if step.kind == "damage" and x.effects.get("special_effects"):
        raise RuleError("too late to re-roll: the Special Effects have been chosen")
    kinds_ = kinds(x)
    if who == x.attacker and "helpless" not in kinds_:
        spend_luck(draft, c, "re-roll the attack")
        weapon = find_weapon(c, x.weapon, ready_only=False)
        skill_name, skill = combat_skill(state, c, weapon)
        mods = x.modifiers
        tested = test(draft, c, skill_name, skill, f"attack on {state.combatants[x.target].name} (Luck Point re-roll)", mods)
        draft.emit(ev.AttackResolved(exchange=x.id, hit=is_success(tested.result), critical=tested.result == CRITICAL,
                                     fumble=tested.result == FUMBLE, roll=tested.roll, skill=tested.target))
        if step.kind == "react":
            draft.then("attack:offer-reaction")
            return
        _re_resolve(draft, x.effects.get("d_roll", 0), x.effects.get("d_target", 0))
        return
    if who == x.target and x.reaction in ("parry", "evade") and step.kind != "react":
        spend_luck(draft, c, f"re-roll the {x.reaction}")
        target = int(x.effects.get("d_target", 0))
        rolled = draft.roll("1D100", f"{x.reaction} (Luck Point re-roll)", by=who)
        result = tables.skill_test(rolled.total, target)
        skill_name = "Evade" if x.reaction == "evade" else sheet_of(c).weapon_skill(find_weapon(c, x.with_item, ready_only=False))[0]
        draft.emit(ev.SkillTested(handle=who, skill=skill_name, base=target, target=target, roll=rolled.total,
                                  result=result, purpose=f"{x.reaction} (Luck Point re-roll)"))
        _re_resolve(draft, rolled.total, target)
        return
    raise RuleError(f"{c.name} has no roll in this exchange to re-roll")


def _re_resolve(draft: Draft, d_roll: int, d_target: int) -> None:
    """Resolve the exchange anew after a Luck Point re-roll (step
    ``attack:resolve``)."""
    state = draft.state
    x = state.exchange
    c = state.combatants[x.target]
    item = find_weapon(c, x.with_item, ready_only=False) if x.with_item else None
    if x.reaction in ("parry", "evade"):
        level = tables.skill_test(d_roll, d_target)
    else:
        level = "failure"
    draft.then("attack:resolve", reaction=x.reaction or "none", item=item, d_level=level, d_roll=d_roll,
               shared_penalty=int(x.effects.get("shared", 0)), d_target=d_target)


def luck_reroll(draft: Draft, step: ev.PendingStep, option: str) -> None:
    """A lost roll against a Special Effect, or a lost Struggle, Regain
    Footing, yank or Outmaneuvering (step ``choose:luck-reroll``, from
    :func:`~.core.offer_luck`): ``luck`` spends a Luck Point and the
    roll step runs again; ``accept`` runs it ``forced``, the loss standing
    without a new roll (seed 001 "Use Luck Point")."""
    rest = tuple(s for s in draft.state.pending if s is not step)
    c = draft.state.combatants[step.who]
    kind = str(step.data["kind"])
    data = json.loads(str(step.data["data"]))
    if option == "luck":
        spend_luck(draft, c, f"re-roll against {kind}")
    else:
        data["forced"] = 1
    again = ev.PendingStep(who=step.who, verb="roll", kind=kind, prompt="", exchange=step.exchange, data=data)
    draft.then("roll:" + kind, step=again, rest=rest)
