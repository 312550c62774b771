"""Joining, initiative, rounds, Turns and Action Points in uesrpg.

Source: rules-reference.md D11 (initiative = 1d6 + initiative rating; Action
Points max 3, refilled each round), D12 (a wound's -2 initiative) and the
rulings ``initiative`` (rolled once, re-ordered by wounds) and
``attacks_per_turn`` (one attack a Turn); seed 003 Step 2 (an unaware
defender cannot defend: a surprised combatant in round 1).
"""

from __future__ import annotations

import msgspec

from affray.events import commands as cmd
from affray.events import core as ev
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError, fight_over, joining
from affray.rules.uesrpg import conditions as cat
from affray.rules.uesrpg import tables
from affray.rules.uesrpg.core import POOL, fighters, require_turn, rulings_of, sheet_of, stunned, turn_step
from affray.rules.uesrpg.sheet import MAX_AP, Sheet, SheetError, derive, luck_counts, parse_sheet


def join(draft: Draft, command: cmd.JoinCombatant) -> None:
    """``affray join``: a combatant with one pool of HP (END/2 rounded up,
    D11) and its hit locations carrying their armour (AR shown; the HP
    live in the pool). Initiative is rolled once, so everyone joins before
    ``start``."""
    state = draft.state
    if state.phase != "setup":
        raise RuleError("uesrpg rolls initiative once, so combatants join before 'affray start'")
    try:
        sheet = parse_sheet(command.sheet)
    except SheetError as exc:
        raise RuleError(str(exc)) from None
    name = command.name or sheet.name
    handle, side = joining(state, command, name)
    if needs_luck(sheet) and rulings_of(state).lucky_numbers == "sheet":
        raise RuleError(f"{name} is a PC without Lucky and Unlucky Numbers: list them on the sheet (lucky, unlucky), "
                        "set npc = true, or open the encounter with --ruling lucky_numbers=draw")
    d = derive(sheet)
    locations = (ev.LocationInit(name=POOL, hp=d.hp),) + tuple(
        ev.LocationInit(name=row.name, hp=0, ap=sheet.armour[row.name].ar if row.name in sheet.armour else 0,
                        limb=row.limb if row.limb != "head" else "")
        for row in tables.HIT_LOCATIONS
    )
    draft.emit(ev.CombatantJoined(
        handle=handle, name=name, side=side, sheet=msgspec.to_builtins(sheet), locations=locations,
        combat_actions=MAX_AP, reactions=0, weapons_ready=tuple(w.name for w in sheet.weapons),
        surprised=command.surprised,
    ))
    s = draft.state
    steps = (start_step(s),) if len({c.side for c in s.combatants.values()}) >= 2 else ()
    draft.emit(ev.StepsAwaited(steps=steps))


def start_step(state: State) -> ev.PendingStep:
    """The GM's step that rolls initiative (1d6 each, in join order)."""
    luck = tuple(ev.DiceNeed(f"lucky numbers: {c.name}", "5D100", by=c.handle)
                 for c in fighters(state) if needs_luck(sheet_of(c)))
    return ev.PendingStep(
        who="GM", verb="start", kind="start", prompt="GM: roll initiative and start round 1, or join more combatants",
        dice=tuple(ev.DiceNeed(f"initiative: {c.name}", "1D6", by=c.handle) for c in fighters(state)) + luck,
    )


def needs_luck(sheet: Sheet) -> bool:
    """A PC whose sheet lists no Lucky or Unlucky Numbers."""
    return not sheet.npc and not sheet.lucky and not sheet.unlucky


def draw_luck(draft: Draft, c: Combatant) -> None:
    """Ruling ``lucky_numbers = draw``: 5 d100, the first Luck-bonus of them
    Lucky and the rest Unlucky; a number already drawn moves up to the next
    free one (100 wraps to 1). Recorded as a ``lucky-numbers`` condition
    caused by the roll, so the log proves them (rules-reference.md D4)."""
    sheet = sheet_of(c)
    n_lucky, _ = luck_counts(sheet)
    faces = draft.roll("5D100", f"lucky numbers: {c.name}", by=c.handle).faces
    taken: list[int] = []
    for face in faces:
        v = face
        while v in taken:
            v = v % 100 + 1
        taken.append(v)
    lucky, unlucky = taken[:n_lucky], taken[n_lucky:]
    effects = {**{f"lucky:{v}": 1 for v in lucky}, **{f"unlucky:{v}": 1 for v in unlucky}}
    draft.emit(ev.ConditionApplied(handle=c.handle, condition=cat.make(
        "lucky-numbers", cause=draft.state.version, round=0, step=draft.state.step, ends="never", effects=effects,
        note=f"Lucky {', '.join(map(str, lucky)) or 'none'}; Unlucky {', '.join(map(str, unlucky)) or 'none'}")))


def initiative_bonus(c: Combatant) -> int:
    """The initiative change from conditions (a wound: -2, D12)."""
    return c.effect("initiative")


def start(draft: Draft, command: cmd.StartRound) -> None:
    """``affray start``: initiative 1d6 + rating for each combatant, highest
    first (ties: the higher unwounded total, then join order), and round 1
    (rules-reference.md D11; ruling ``initiative``)."""
    state = draft.state
    if state.phase == "over":
        raise RuleError("the fight is over; 'affray close' ends the encounter")
    if state.phase != "setup":
        raise RuleError("initiative is rolled once, at the start of the fight; use 'affray end-round' to go on")
    if len({c.side for c in state.combatants.values()}) < 2:
        raise RuleError("a fight needs combatants on at least two sides; add one with 'affray join SHEET --side NAME'")
    rows = []
    for i, c in enumerate(fighters(state)):
        rating = derive(sheet_of(c)).initiative_rating
        d6 = draft.roll("1D6", f"initiative: {c.name}", by=c.handle).total
        rows.append((d6 + rating, -i, c.handle, f"1d6={d6} +{rating} = {d6 + rating}"))
    order = tuple(ev.InitiativeEntry(handle=h, rank=t, tiebreak=t, detail=det) for t, _, h, det in rows)
    for c in fighters(state):
        if needs_luck(sheet_of(c)):
            draw_luck(draft, c)
    start_round(draft, order)


def ordered(state: State, order: tuple[ev.InitiativeEntry, ...]) -> tuple[ev.InitiativeEntry, ...]:
    """The kept initiative order re-ranked by each combatant's wounds
    (``tiebreak`` holds the unwounded total; D12 -2 initiative)."""
    join_at = {h: i for i, h in enumerate(state.combatants)}
    rows = []
    for e in order:
        c = state.combatants.get(e.handle)
        if c is None:
            continue
        extra = initiative_bonus(c)
        roll = e.detail.split(" = ")[0].split(" -")[0]
        detail = f"{roll}{f' {extra} wounded' if extra else ''} = {e.tiebreak + extra}"
        rows.append(msgspec.structs.replace(e, rank=e.tiebreak + extra, detail=detail))
    rows.sort(key=lambda e: (-e.rank, -e.tiebreak, join_at[e.handle]))
    return tuple(msgspec.structs.replace(e, tier=n) for n, e in enumerate(rows))


def start_round(draft: Draft, order: tuple[ev.InitiativeEntry, ...]) -> None:
    """Open the next round: every combatant able to fight gets 3 Action
    Points (D11; unused ones do not carry over); in round 1 a surprised
    combatant is unaware of attacks until the round ends (seed 003 Step 2)."""
    number = draft.state.round + 1
    active = [c for c in fighters(draft.state) if c.can_fight]
    draft.emit(ev.RoundStarted(round=number, order=ordered(draft.state, order), reactions={},
                               combat_actions={c.handle: MAX_AP for c in active}))
    if number == 1:
        for c in active:
            if c.surprised:
                draft.emit(ev.ConditionApplied(handle=c.handle, condition=cat.make(
                    "unaware", cause=draft.next_version, round=1, step=draft.state.step, ends="round-end",
                    effects={"unaware": 1}, note="surprised")))
    draft.hand_over()


def may_take_turn(c: Combatant) -> bool:
    """Able to fight and not stunned (a stunned combatant loses its Turn)."""
    return c.can_fight and not stunned(c)


def advance(draft: Draft) -> None:
    """The turn sequencer: the next combatant in initiative order after the
    one whose Turn just ended takes its Turn; once everyone has, the GM ends
    the round. Ends the fight when one side is left."""
    state = draft.state
    if state.phase != "round" or fight_over(draft):
        return
    order = [e.handle for e in state.order if e.handle in state.combatants]
    start_at = order.index(state.turn[0]) + 1 if state.turn and state.turn[0] in order else 0
    for h in order[start_at:]:
        c = draft.state.combatants[h]
        cond = next((k for k in c.conditions if k.name == "stunned"), None)
        if cond is not None and c.can_fight:
            draft.emit(ev.ConditionExpired(handle=h, condition_id=cond.id, reason="stunned: loses this Turn"))
            continue
        if may_take_turn(c):
            _turn_begins(draft, h)
            draft.emit(ev.TurnBegan(handles=(h,), action_no=1))
            draft.emit(ev.StepsAwaited(steps=(turn_step(draft.state, h),)))
            return
    draft.emit(ev.TurnBegan(handles=(), action_no=0),
               ev.StepsAwaited(steps=(ev.PendingStep(who="GM", verb="end-round", kind="end-round",
                                                      prompt=f"GM: end round {state.round}"),)))


def _turn_begins(draft: Draft, handle: str) -> None:
    """As a Turn begins, an Overwhelm the combatant imposed ends ("until
    your next Turn", D8)."""
    for c in fighters(draft.state):
        for cond in c.conditions:
            if cond.name == "overwhelmed" and cat.from_of(cond) == handle:
                draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=cond.id,
                                               reason=f"{draft.state.combatants[handle].name}'s next Turn"))


def pass_turn(draft: Draft, who: str, args: list[str]) -> None:
    """``affray act WHO pass``: the Turn ends; unspent AP stay for defences."""
    require_turn(draft.state, who)
    draft.emit(ev.StepsAwaited(steps=()))
    draft.hand_over()


def end_round(draft: Draft, command: cmd.EndRound) -> None:
    """End the round: what ends with the round expires, counted conditions
    count down, an untreated wound's HP fall to 0 after 5 rounds (D12), and
    the next round starts with 3 AP each and the order re-ranked by wounds."""
    state = draft.state
    if state.phase != "round":
        raise RuleError("there is no round in progress to end; use 'affray start' to begin the fight")
    if state.exchange is not None or any(s.kind not in ("end-round", "turn") for s in state.pending):
        raise RuleError("an exchange is still open; finish it first (see 'affray pending')")
    draft.emit(ev.RoundEnded(round=state.round))
    for c in list(draft.state.combatants.values()):
        for cond in c.conditions:
            if cond.ends.kind == "round-end":
                draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=cond.id, reason=f"end of round {state.round}"))
            elif cond.ends.kind == "rounds":
                left = cond.ends.count - 1
                if left > 0:
                    draft.emit(ev.ConditionApplied(handle=c.handle, condition=msgspec.structs.replace(
                        cond, ends=ev.ConditionEnd(kind="rounds", count=left))))
                    continue
                draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=cond.id, reason=f"end of round {state.round}"))
                if cond.name == "untreated-wound":
                    draft.then("bleed-out", handle=c.handle, location=cond.location)
    draft.then("next-round", order=state.order)


def next_round(draft: Draft, order) -> None:
    """After the round's expiries: the fight ends, or the next round starts."""
    if not fight_over(draft):
        start_round(draft, order)
