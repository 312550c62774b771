"""Ranged Combat Actions in mythras: ``reload``, ``aim``, and a shot that
misses only for the crowd (seed 001 "Ranged Combat", "Load", "Aiming",
"Firing into a Crowd"). The shot itself is
:func:`affray.rules.mythras.attack.declare_attack`, which queues
``ranged:crowd-miss`` for a failed shot into a crowd.
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.events import core as ev
from affray.rules.base import Draft, RuleError
from affray.rules.d100 import is_success
from affray.rules.mythras import conditions as cat
from affray.rules.mythras import tables
from affray.rules.mythras.core import at, done, grade_modifiers, sheet_of, spend


def reload(draft: Draft, who: str, arg: str) -> None:
    """Reload: one Turn off the weapon's Load (seed 001 "Load", "Ready")."""
    c = draft.state.combatants[who]
    conds = [k for k in c.conditions if k.name == "unloaded" and (not arg or k.id == f"unloaded:{arg.lower()}")]
    if not conds:
        raise RuleError(f"{c.name} has nothing to reload")
    cond = conds[0]
    left = cond.effects.get("load", 1) - 1
    spend(draft, who, "reload")
    weapon = cond.id.split(":", 1)[1]
    if left <= 0:
        draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="reloaded"))
    else:
        draft.emit(ev.ConditionApplied(handle=who, condition=replace(
            cond, effects={**cond.effects, "load": left}, note=f"{weapon}: {left} Turn(s) to reload")))
    done(draft)


def aim(draft: Draft, who: str, arg: str) -> None:
    """Aim: steady a Ranged weapon; once an entire Combat Round has passed
    the shot's difficulty is one grade easier; further rounds add nothing
    (seed 001 "Aiming": "requires an entire Combat Round"). The round
    counts from the bearer's first Turn (an aim begun at Turn 2 or later
    pays off a round later), and any other Turn action breaks the aim
    (:func:`~.core.break_aim`)."""
    c = draft.state.combatants[who]
    if not any(w.kind == "ranged" and w.name in c.ready for w in sheet_of(c).weapons):
        raise RuleError(f"{c.name} holds no Ranged weapon to aim")
    spend(draft, who, "aim")
    if not c.has("aiming"):
        # the entire round counts from the bearer's first Turn: an aim begun
        # later in a round (after Turn 1) is whole only at the end of the next
        start = draft.state.round + (1 if draft.state.action_no > 1 else 0)
        draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
            "aiming", ends="event", effects={"from": start},
            note="aiming: the shot is one grade easier once an entire Combat Round has passed", **at(draft))))
    done(draft)


def crowd_miss(draft: Draft, a, t, weapon, tested, skill, situations, extra, ease, modifiers) -> None:
    """Seed 001 "Firing into a Crowd" (step ``ranged:crowd-miss``, after a
    failed shot into a crowd): a shot that fails only because of the crowd
    penalty strikes an adjacent victim instead, who may Evade or Parry;
    Special Effects apply only to the original target. The victim is the
    GM's pick (a ``choose`` step), or none when nobody stands near. A shot
    that fails anyway goes on as a plain miss (``attack:rolled``)."""
    state = draft.state
    plain = tuple(s for s in situations if s not in ("crowd-edge", "crowd-through"))
    without = grade_modifiers(state, a, skill, plain, "attack", ranged=True, extra=extra, ease=ease) + tuple(modifiers)
    if not is_success(tables.skill_test(tested.roll, max(0, skill + sum(m.value for m in without)))):
        draft.then("attack:rolled", tested=tested)
        return
    x = draft.state.exchange
    draft.emit(ev.AttackResolved(exchange=x.id, hit=False, roll=tested.roll, skill=tested.target))
    others = [c.handle for c in state.combatants.values()
              if c.handle not in (a.handle, t.handle) and c.status == "active"]
    if not others:
        draft.emit(ev.NoteAdded(text="the shot misses only for the crowd, but nobody else stands in the line of fire"))
        draft.then("attack:offer-reaction")
        return
    base = max(0, skill + sum(m.value for m in without))
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who="GM", verb="choose", kind="crowd-victim",
        prompt=f"GM: {a.name}'s shot misses {t.name} only for the crowd: who is struck instead? {' | '.join(others)}",
        options=tuple(others), exchange=x.id,
        data={"roll": tested.roll, "skill": base, "weapon": weapon.name}),)))
