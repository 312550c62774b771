"""Round structure of mrq1: strike ranks, action passes, the end of a round.

Source: seed 004 "Combat" (the six steps of a round), "Strike Ranks",
"Gaining Surprise"; rules-reference E5 and the E rulings on strike rank and
surprise.

:func:`advance` is the turn sequencer: the step ``turn:next``, queued when
an action is over (:func:`.core.done`), decides who acts next.
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.events import core as ev
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1.core import TORSO, in_the_fight, rulings_of, sheet_of, turn_steps
from affray.rules.mrq1.sheet import derive


def sr_dice(state: State) -> tuple[ev.DiceNeed, ...]:
    """The d10s a new round's strike ranks need, in join order."""
    return tuple(
        ev.DiceNeed(f"strike rank: {c.name}", "1D10", by=c.handle) for c in _fighters(state)
    )


def _fighters(state: State) -> list[Combatant]:
    return [c for c in state.combatants.values() if c.status in ("active", "unconscious")]


def start(draft: Draft) -> None:
    """``affray start``: start the next round (:func:`start_round`), unless
    one is running, the fight is over, or Resilience re-tests are due first.
    Raises :class:`RuleError` (one line)."""
    state = draft.state
    if state.phase == "round":
        raise RuleError(f"round {state.round} is already running; 'affray end-round' ends it")
    if state.phase == "over":
        raise RuleError("the fight is over; 'affray close' ends the encounter")
    if state.phase == "between" and any(s.kind != "start" for s in state.pending):
        raise RuleError("Resilience re-tests are due first; see 'affray pending'")
    start_round(draft)


def start_round(draft: Draft) -> None:
    """Roll strike ranks and open the round (seed 004 step 1).

    Each fighter rolls D10 + Strike Rank modifier (−10 when surprised in the
    first round); highest acts first, ties by DEX, equal DEX simultaneous.
    """
    state = draft.state
    sides = {c.side for c in state.combatants.values()}
    if len(sides) < 2:
        raise RuleError("a fight needs combatants on at least two sides; add one with 'affray join SHEET --side NAME'")
    rulings = rulings_of(state)
    number = state.round + 1
    entries = []
    for c in _fighters(state):
        sheet = sheet_of(c)
        modifier = derive(sheet, rulings).strike_rank_mod
        d10 = draft.roll("1D10", f"strike rank: {c.name}", by=c.handle).total
        surprise = -10 if (c.surprised and number == 1) else 0
        rank = d10 + modifier + surprise
        detail = f"d10={d10} {modifier:+d}" + (" −10 surprised" if surprise else "") + f" = {rank}"
        entries.append((rank, sheet.characteristics.DEX, c.handle, detail))
    entries.sort(key=lambda e: (-e[0], -e[1]))
    order = []
    tier = 0
    for i, (rank, dex, handle, detail) in enumerate(entries):
        if i and (rank, dex) != (entries[i - 1][0], entries[i - 1][1]):
            tier += 1
        order.append(ev.InitiativeEntry(handle=handle, rank=rank, tiebreak=dex, tier=tier, detail=detail))
    active = {c.handle: c for c in _fighters(state) if c.status == "active"}
    draft.emit(
        ev.RoundStarted(
            round=number,
            order=tuple(order),
            combat_actions={h: c.max_combat_actions for h, c in active.items()},
            reactions={h: c.max_reactions for h, c in active.items()},
        )
    )
    if number == 1:
        for c in active.values():
            if c.surprised:
                cause = draft.next_version
                draft.emit(
                    ev.ConditionApplied(
                        handle=c.handle,
                        condition=cat.make(
                            "surprised",
                            cause=cause,
                            round=1,
                            step=draft.state.step,
                            ends="round-end",
                            effects={"no-reactions": 1},
                        ),
                    )
                )
    advance(draft)


def _due(state: State) -> tuple[int, list[str]] | None:
    """The pass number and the handles due to act next, or None.

    A character Delaying (seed 004 "Delay") is passed over until the one he
    waits for has finished a Combat Action (or can no longer act); after
    that he keeps his new place, just after that character, for the round.
    """
    eligible = [
        c
        for c in (state.combatants[e.handle] for e in state.order if e.handle in state.combatants)
        if c.status == "active" and c.combat_actions > 0 and not c.effect("helpless")
    ]
    eligible = [c for c in eligible if not _waiting(state, c)]
    if not eligible:
        return None
    pass_no = min(c.actions_taken for c in eligible) + 1
    tiers = {e.handle: float(e.tier) for e in state.order}
    for c in eligible:
        for cond in c.conditions:
            if cond.name in ("delaying", "delayed") and cond.id.split(":", 1)[-1] in tiers:
                other = cond.id.split(":", 1)[1]
                if cond.name == "delayed" or not _waiting(state, c):
                    tiers[c.handle] = tiers[other] + 0.5
    due = [c for c in eligible if c.actions_taken + 1 == pass_no]
    first_tier = min(tiers[c.handle] for c in due)
    return pass_no, [c.handle for c in due if tiers[c.handle] == first_tier]


def _waiting(state: State, c: Combatant) -> bool:
    """Whether ``c`` still waits for the character he Delays for."""
    for cond in c.conditions:
        if cond.name != "delaying":
            continue
        other = state.combatants.get(cond.id.split(":", 1)[1])
        if other is None or other.status != "active" or other.combat_actions <= 0 or other.effect("helpless"):
            return False
        return other.actions_taken < cond.effects.get("wait", 0)
    return False


def _sides_standing(state: State) -> set[str]:
    return {c.side for c in state.combatants.values() if in_the_fight(c)}


def advance(draft: Draft) -> None:
    """The step ``turn:next`` (the turn sequencer): decide who acts next and
    what the table waits for.

    Queued when nothing else is pending. Lost combat actions are taken here
    as they fall due (seed 004 "Minor Wound", "Serious Wound"); when nobody
    can act, the GM is asked to end the round (seed 004 step 6).
    """
    state = draft.state
    if state.phase != "round":
        return
    standing = _sides_standing(state)
    if len(standing) < 2:
        winner = next(iter(standing)) if standing else ""
        draft.emit(
            ev.TurnBegan(handles=(), action_no=0),
            ev.FightEnded(winner=winner, reason="no one else can fight" if winner else "no one can fight"),
            ev.StepsAwaited(steps=()),
        )
        return
    while True:
        due = _due(draft.state)
        if due is None:
            draft.emit(
                ev.TurnBegan(handles=(), action_no=0),
                ev.StepsAwaited(steps=(end_round_step(draft.state),)),
            )
            return
        pass_no, handles = due
        lost = [h for h in handles if _lost_actions(draft.state.combatants[h])]
        if not lost:
            break
        for h in lost:
            _lose_action(draft, h)
    for h in handles:
        _expire_at_own_action(draft, h)
    draft.emit(ev.TurnBegan(handles=tuple(handles), action_no=pass_no))
    draft.emit(ev.StepsAwaited(steps=turn_steps(draft.state, tuple(handles), pass_no)))


def _lost_actions(c: Combatant) -> int:
    return c.effect("lost-actions")


def _lose_action(draft: Draft, handle: str) -> None:
    c = draft.state.combatants[handle]
    cond = next(x for x in c.conditions if x.effects.get("lost-actions"))
    draft.emit(ev.ActionSpent(handle=handle, kind="combat-action", reason=f"lost ({cond.note or cond.name})"))
    left = cond.effects["lost-actions"] - 1
    if left <= 0:
        draft.emit(ev.ConditionExpired(handle=handle, condition_id=cond.id, reason="all lost combat actions taken"))
    else:
        new = replace(cond, effects={**cond.effects, "lost-actions": left}, ends=ev.ConditionEnd(kind="actions", count=left))
        draft.emit(ev.ConditionApplied(handle=handle, condition=new))


def _expire_at_own_action(draft: Draft, handle: str) -> None:
    """Defend lasts until the beginning of the bearer's next combat action.
    A Delay that has run its course ends here too, and its new place in the
    order is kept for the rest of the round (seed 004 "Delay")."""
    for cond in draft.state.combatants[handle].conditions:
        if cond.ends.kind == "next-action" and cond.name == "defending":
            draft.emit(ev.ConditionExpired(handle=handle, condition_id=cond.id, reason="its bearer acts again"))
        elif cond.name == "delaying":
            other = cond.id.split(":", 1)[1]
            draft.emit(ev.ConditionExpired(handle=handle, condition_id=cond.id, reason="the wait is over"))
            draft.emit(
                ev.ConditionApplied(
                    handle=handle,
                    condition=cat.make("delayed", ends="round-end", suffix=other, note=cond.note,
                                       cause=draft.next_version, round=draft.state.round, step=draft.state.step),
                )
            )


def start_step(state: State) -> ev.PendingStep:
    """The GM's step to roll the next round's strike ranks."""
    return ev.PendingStep(
        who="GM",
        verb="start",
        kind="start",
        prompt=f"GM: start round {state.round + 1} (strike ranks)",
        dice=sr_dice(state),
    )


def bleeding_out(state: State) -> set[str]:
    """Handles that die of blood loss when this round ends (seed 004 Major
    Wound: CON+POW, or half of it, rounds unless the location recovers)."""
    dying = set()
    for c in state.combatants.values():
        if c.status == "dead":
            continue
        for cond in c.conditions:
            if cond.name == "bleeding-out" and cond.ends.count <= 1 and c.location(cond.location).hp < 1:
                dying.add(c.handle)
    return dying


def _after_round_end(state: State) -> State:
    """What the end of the round leaves standing, for planning its dice."""
    dying = bleeding_out(state)
    if not dying:
        return state
    combatants = {h: (replace(c, status="dead") if h in dying else c) for h, c in state.combatants.items()}
    return replace(state, combatants=combatants)


def end_round_step(state: State) -> ev.PendingStep:
    """The GM's step to end the round; its dice are the next round's strike
    ranks when no Resilience re-test is due (else the re-tests come first)
    and the fight goes on."""
    after = _after_round_end(state)
    retests = retests_due(after)
    over = len({c.side for c in after.combatants.values() if c.can_fight}) < 2
    dice = () if retests or over else sr_dice(after)
    prompt = f"GM: end round {state.round}" + (
        f" ({len(retests)} Resilience re-test{'s' if len(retests) > 1 else ''} due)" if retests else ", then strike ranks for the next"
    )
    return ev.PendingStep(who="GM", verb="end-round", kind="end-round", prompt=prompt, dice=dice)


def retests_due(state: State) -> list[tuple[str, str, str]]:
    """(handle, condition id, test) for the end-of-round Resilience re-tests.

    Source: seed 004 "Abdomen, Chest or Head" and "Limbs" under Serious and
    Major Wounds: the tests are repeated at the end of every round until the
    location is restored to 1 HP or First Aid is given.
    """
    due = []
    for c in state.combatants.values():
        if c.status == "dead":
            continue
        for cond in c.conditions:
            if cond.name == "death-test":
                due.append((c.handle, cond.id, "death"))
        for cond in c.conditions:
            if cond.name == "resilience-retest" and c.status == "active":
                due.append((c.handle, cond.id, "consciousness"))
    return due


def end_round(draft: Draft) -> None:
    """End the round (seed 004 step 6): expire what ends with the round,
    count down bleeding, queue the Resilience re-tests, then start the next
    round's strike ranks (or leave that to the last re-test)."""
    state = draft.state
    if state.phase != "round":
        raise RuleError("there is no round in progress to end; use 'affray start' to begin one")
    if state.exchange is not None or any(s.kind != "end-round" and s.kind != "turn" for s in state.pending):
        raise RuleError("an exchange is still open; finish it first (see 'affray pending')")
    draft.emit(ev.RoundEnded(round=state.round))
    for c in list(draft.state.combatants.values()):
        for cond in c.conditions:
            if cond.ends.kind == "round-end":
                draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=cond.id, reason=f"end of round {state.round}"))
            elif cond.name == "bleeding-out" and c.status != "dead":
                left = cond.ends.count - 1
                loc = c.location(cond.location)
                if loc.hp >= 1:
                    draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=cond.id, reason="the location recovered"))
                elif left <= 0:
                    draft.emit(
                        ev.ConditionExpired(handle=c.handle, condition_id=cond.id, reason="bled out"),
                        ev.StatusChanged(handle=c.handle, status="dead", reason=f"blood loss and shock ({cond.location})"),
                    )
                else:
                    draft.emit(
                        ev.ConditionApplied(
                            handle=c.handle,
                            condition=_recount(cond, left),
                        )
                    )
    steps = [retest_step(draft.state, h, cid, test) for h, cid, test in retests_due(draft.state)]
    if steps:
        draft.emit(ev.StepsAwaited(steps=tuple(steps)))
        return
    if fight_over(draft):
        return
    start_round(draft)


def retests_done(draft: Draft) -> None:
    """The step ``round:retests-done``: after the last end-of-round
    Resilience re-test, the fight ends, or the GM is asked to start the next
    round (seed 004 step 6)."""
    if fight_over(draft):
        return
    draft.emit(ev.StepsAwaited(steps=(start_step(draft.state),)))


def fight_over(draft: Draft) -> bool:
    """End the fight when fewer than two sides can fight (seed 004 step 6:
    a new round begins only while enemies are still engaged)."""
    standing = _sides_standing(draft.state)
    if len(standing) >= 2:
        return False
    winner = next(iter(standing)) if standing else ""
    draft.emit(
        ev.FightEnded(winner=winner, reason="no one else can fight" if winner else "no one can fight"),
        ev.StepsAwaited(steps=()),
    )
    return True


def _recount(cond: ev.Condition, left: int) -> ev.Condition:
    return replace(cond, ends=ev.ConditionEnd(kind=cond.ends.kind, count=left))


def retest_step(state: State, handle: str, condition_id: str, test: str) -> ev.PendingStep:
    """A pending end-of-round Resilience re-test for ``handle``."""
    c = state.combatants[handle]
    what = "or die" if test == "death" else "or fall unconscious"
    return ev.PendingStep(
        who=handle,
        verb="roll",
        kind="retest",
        prompt=f"{c.name}: Resilience test {what} (end of round {state.round})",
        dice=(ev.DiceNeed(f"Resilience ({test})", "1D100", by=handle),),
        data={"condition": condition_id, "test": test},
    )


def is_torso(location: str) -> bool:
    """Abdomen, chest or head (seed 004 wound rules treat them alike)."""
    return location in TORSO
