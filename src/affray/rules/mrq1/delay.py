"""Waiting and striking again in mrq1: Delay, interrupting, and the blows
of a Flurry.

Source: seed 004 "Combat Actions" (Delay, Flurry); ruling ``opposed_ties``.

Steps: ``act:delay``, ``act:interrupt`` and ``flurry:next-blow`` (after an
exchange, :func:`next_blows`).
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.events import core as ev
from affray.projections.state import Combatant
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.mrq1.core import (
    USAGE,
    Spec,
    apply,
    await_roll,
    default_weapon,
    done,
    find_weapon,
    note,
    opposed,
    require_turn,
    rulings_of,
    sheet_of,
    test,
    test_modifiers,
    turn_steps,
)


# --------------------------------------------------------------------------- #
# Delay
# --------------------------------------------------------------------------- #


def delay(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Delay": ``after=X`` waits until X has finished a Combat
    Action, then acts, and keeps that place in the order for the round;
    ``interrupt=X`` waits to act as X acts: ``affray act WHO interrupt``
    during X's turn makes an opposed test, and whoever wins acts first.
    Delaying spends nothing until the character acts."""
    state = draft.state
    c = require_turn(state, who)
    other = spec.get("after") or spec.get("interrupt")
    if not other or (spec.get("after") and spec.get("interrupt")):
        raise RuleError(f"delay how? {USAGE['delay']}")
    x = find_combatant(state, other)
    if x == who:
        raise RuleError(f"{c.name} cannot wait for themself")
    t = state.combatants[x]
    if t.status != "active" or t.combat_actions <= 0:
        raise RuleError(f"{t.name} has no combat action left this round; {c.name} would wait for nothing")
    mode = "interrupt" if spec.get("interrupt") else "after"
    for cond in c.conditions:
        if cond.name == "delaying":
            draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="delays again"))
    apply(draft, who, "delaying", ends="next-action", suffix=x,
          effects={"wait": t.actions_taken + 1, "interrupt": int(mode == "interrupt")}, note=f"{mode} {t.name}")
    note(draft, who, "delay", f"{c.name} delays, to {'interrupt' if mode == 'interrupt' else 'act after'} {t.name}", Spec("delay", [], {mode: x}))
    done(draft)


def interrupt(draft: Draft, who: str, spec: Spec) -> None:
    """A delaying character interrupts the one he waits for (seed 004
    "Delay"): an opposed test of the skills the two actions need (``with=``
    and ``against=``; default each side's weapon). The winner acts first;
    a draw or two failures leave the order as it is (ruling
    ``opposed_ties``)."""
    state = draft.state
    c = state.combatants[who]
    cond = next((x for x in c.conditions if x.name == "delaying" and x.effects.get("interrupt")), None)
    if cond is None:
        raise RuleError(f"{c.name} is not delaying to interrupt anyone; first: affray act {who} delay interrupt=X")
    x = cond.id.split(":", 1)[1]
    if state.turn != (x,) or state.exchange is not None or any(s.kind != "turn" for s in state.pending):
        raise RuleError(f"{c.name} can interrupt only as {state.combatants[x].name} is about to act")
    t = state.combatants[x]

    def side(k: Combatant, name: str) -> tuple[str, int]:
        if name:
            sk = next((v for kk, v in sheet_of(k).skills.items() if kk.lower() == name.lower()), None)
            if sk is not None:
                return name, sk
            w = find_weapon(k, name, ready_only=False)
            return w.name, w.skill
        w = default_weapon(k)
        return w.name, w.skill

    a_name, a_skill = side(c, spec.get("with"))
    d_name, d_skill = side(t, spec.get("against"))
    a = test(draft, c, a_name, a_skill, test_modifiers(c, a_name, combat=True), f"interrupt {t.name}")
    d = test(draft, t, d_name, d_skill, test_modifiers(t, d_name, combat=True), f"against {c.name}'s interrupt")
    winner = opposed(a, d, rulings_of(state).opposed_ties)
    if winner == "a":
        draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="interrupts"))
        note(draft, who, "interrupt", f"{c.name} interrupts {t.name} and acts first")
        draft.emit(ev.TurnBegan(handles=(who,), action_no=c.actions_taken + 1))
        draft.emit(ev.StepsAwaited(steps=turn_steps(draft.state, (who,), c.actions_taken + 1)))
        return
    draft.emit(ev.ConditionApplied(handle=who, condition=replace(cond, effects={"wait": t.actions_taken + 1, "interrupt": 0},
                                                                 note=f"after {t.name}")))
    note(draft, who, "interrupt", f"{t.name} acts first; {c.name} acts right after")
    done(draft)


# --------------------------------------------------------------------------- #
# Flurry
# --------------------------------------------------------------------------- #


def next_blow(draft: Draft, handle: str) -> bool:
    """After an exchange: offer the next blow of a Flurry (True), or not."""
    c = draft.state.combatants[handle]
    cond = next((x for x in c.conditions if x.name == "flurry"), None)
    if cond is None:
        return False
    left = cond.effects.get("blows", 0)
    foes = [h for h in c.engaged if draft.state.combatants[h].can_fight]
    if left <= 0 or not c.can_fight or not foes or c.effect("cannot-attack"):
        draft.emit(ev.ConditionExpired(handle=handle, condition_id=cond.id, reason="the flurry is over"))
        return False
    await_roll(draft, handle, "attack", "flurry",
               f"{c.name}: next blow of the flurry ({left} left, -20%): affray attack {handle} TARGET (or act {handle} pass)",
               "flurry blow", options=("attack", "pass"), data={"weapon": cond.note})
    return True


def next_blows(draft: Draft) -> None:
    """The step ``flurry:next-blow``, after an exchange no action waits on:
    offer the next blow of a Flurry, or else the action is over
    (:func:`.core.done`, the next turn)."""
    for c in draft.state.combatants.values():
        if c.has("flurry") and next_blow(draft, c.handle):
            return
    done(draft)
