"""Declared actions on the countdown: cancelling one, triggering a held
(conditional) one, and letting one resolve after a held action had the
chance to interrupt it.

Sources: RMH ``tactical-activity-tracking_.md`` (the round structure seed
000's terms imply; rules-reference.md lists it): "Actions are declared when
they are started, and paid for (in AP) and resolved on the initiative when
they are completed"; "Conditional Actions": "The combatant declares a
specific trigger and action on his initiative, and it is considered
"ready" (and AP is spend) when it would normally resolve. The action is
resolved when (and if) the trigger condition occurs (often on someone
else's initiative)"; "Canceling action": "An action may be canceled before
it is resolved. Depending on how stressful the cancelled action was, this
may require an Orientation Maneuver"; "Parry": "the Action Points are
considered spent once the parry is used". RMH ``second-by-second-rules.md``
"Opportunity action": it "interrupts the action that triggered it. It
completes prior to the interrupted action".
"""

from __future__ import annotations

from affray.events import core as ev
from affray.events import rolemaster as rev
from affray.rules.base import Draft, RuleError
from affray.rules.rolemaster import core


def _quiet(state) -> None:
    """Refuse while an attack or a roll is being resolved (one line)."""
    if state.phase != "round":
        raise RuleError("no round is in progress")
    if state.exchange is not None or any(s.kind not in ("turn", "resolve", "end-round") for s in state.pending):
        raise RuleError("an attack or a roll is being resolved; finish it first (see 'affray pending')")


def act_cancel(draft: Draft, who: str, args: tuple[str, ...]) -> None:
    """``affray act WHO cancel``: drop ``WHO``'s declared action before it
    resolves, at any count (RMH "Canceling action"). The time since it was
    declared is spent: 1 AP per 5 counts begun, at most its cost (our
    ruling: otherwise its maker would step back up the count); a held
    action's AP are spent already. Refused once its parry was used (RMH
    "Parry": the AP "are considered spent once the parry is used"). The GM
    may call for an orientation roll (``act WHO orientation``)."""
    state = draft.state
    _quiet(state)
    c = state.combatants[who]
    cond = core.declared_of(c)
    if cond is None:
        raise RuleError(f"{c.name} has no declared action to cancel")
    if cond.effects.get("committed"):
        raise RuleError(f"{c.name}'s parry has been used, so the declared attack's AP count as spent (RMH 'Parry'); it cannot be cancelled")
    text = core.declared_text(cond)
    spent = 0
    if not cond.effects.get("ready"):
        elapsed = max(0, cond.effects.get("count", 0) - state.action_no)
        spent = min(cond.effects.get("ap", 0), -(-elapsed // 5), c.combat_actions)
    draft.emit(rev.ActionDropped(handle=who, action=text, how="cancelled", count=state.action_no, spent=spent,
                                 reason="cancelled before it resolved; the GM may call for an orientation roll"))
    draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason=f"cancelled at count {state.action_no}"))
    if spent:
        draft.emit(ev.ActionSpent(handle=who, kind="combat-action", amount=spent, reason=f"{text} (cancelled)"))
    core.attack_time_over(draft, who)
    draft.emit(ev.StepsAwaited(steps=()))
    draft.hand_over()


def act_trigger(draft: Draft, who: str, args: tuple[str, ...]) -> None:
    """``affray act WHO trigger``: the trigger of ``WHO``'s held action has
    occurred; it resolves now, out of turn, before the action it interrupts
    (RMH "Conditional Actions", "Opportunity action"). Its AP were spent
    when it became ready."""
    state = draft.state
    _quiet(state)
    c = state.combatants[who]
    cond = core.declared_of(c)
    if cond is None or not cond.effects.get("hold"):
        raise RuleError(f"{c.name} holds no conditional action; declare one with 'affray attack {who} FOE --situation hold=TRIGGER'")
    if not cond.effects.get("ready"):
        raise RuleError(f"{c.name}'s held action is not ready until count {cond.effects.get('resolve', 0)}")
    kind, params = core.declared_step(cond)
    draft.emit(rev.ActionTriggered(handle=who, action=core.declared_text(cond), count=state.action_no,
                                   hold=core.declared_hold(cond)))
    draft.emit(ev.TurnBegan(handles=(who,), action_no=state.action_no))
    draft.then(kind, who=who, resolving=True, **params)


def act_resolve(draft: Draft, who: str, args: tuple[str, ...]) -> None:
    """``affray act WHO resolve``: ``WHO``'s declared action, whose count
    has come, resolves (the countdown pauses there while someone holds a
    conditional action that may interrupt it)."""
    state = draft.state
    step = core.pending_of(state, ("resolve",), who)
    if step is None:
        raise RuleError(f"{state.combatants[who].name} has no action waiting to resolve now; see 'affray pending'")
    kind, params = core.declared_step(core.declared_of(state.combatants[who]))
    draft.then(kind, who=who, resolving=True, **params)
