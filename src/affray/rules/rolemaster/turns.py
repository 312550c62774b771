"""The round structure: Initiative each round, Action Points, turns, and the
upkeep at the end of the round (the stun stack wearing off).

Sources: seed 000 "Effects from Criticals" ("You have initiative", the
state table, "Stunned": wear-off order), "Staggered or Prone"; the RMH
tactical round the seed's terms come from (rules-reference.md source RMH,
``tactical-activity-tracking_.md``: 4 Action Points a round, Initiative
2d10 + Qu bonus, upkeep), simplified by the ruling ``turn_order``.
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.events import core as ev
from affray.events import rolemaster as rev
from affray.projections.state import State
from affray.rules.base import Draft, RuleError, fight_over
from affray.rules.rolemaster import conditions as cat
from affray.rules.rolemaster.core import (
    check_down, declared_of, declared_step, declared_text, delayed as core_delayed, dying_upkeep, fighters, held,
    lose_round, maneuver_penalty, parry_declared, parry_limit, ready, rulings_of, sheet_of, unloaded,
)

#: Conditions that end with the round.
ROUND_BOUND = ("parrying", "parry-used", "attacked", "no-actions", "dodging")


def initiative_dice(state: State) -> tuple[ev.DiceNeed, ...]:
    """The dice the next Initiative roll needs, in join order: 2D10 each,
    and 1D10 more for whoever lost the initiative to a critical."""
    out = []
    for c in fighters(state):
        if state.phase == "round" and c.effect("bleed") >= c.location("body").hp:
            continue  # bleeding takes its last hits at the end of this round: no Initiative
        out.append(ev.DiceNeed(f"initiative: {c.name}", "2D10", by=c.handle))
        if c.effect("initiative-d10"):
            out.append(ev.DiceNeed(f"initiative: {c.name} ('You have initiative': -1d10)", "1D10", by=c.handle))
    return tuple(out)


def start_step(state: State) -> ev.PendingStep:
    """The GM's step that rolls Initiative and opens round 1."""
    return ev.PendingStep(who="GM", verb="start", kind="start",
                          prompt="GM: roll Initiative and start round 1, or join more combatants",
                          dice=initiative_dice(state))


def roll_initiative(draft: Draft) -> tuple[ev.InitiativeEntry, ...]:
    """2d10 + Quickness bonus - 1 per -10 of maneuver penalty (RMH), -1d10
    for a foe's "You have initiative" (seed 000), highest first; ties to
    the higher Quickness bonus, then join order."""
    rows = []
    for i, c in enumerate(fighters(draft.state)):
        qu = sheet_of(c).stats.quickness.bonus
        d = draft.roll("2D10", f"initiative: {c.name}", by=c.handle).total
        pen = sum(m.value for m in maneuver_penalty(draft.state, c))
        lost = 0
        detail = f"2d10={d} {qu:+d} Qu"
        if pen:
            detail += f" {-((-pen) // 10):+d} penalty"
        cond = next((k for k in c.conditions if k.name == "lost-initiative"), None)
        if cond is not None:
            lost = draft.roll("1D10", f"initiative: {c.name} ('You have initiative': -1d10)", by=c.handle).total
            draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=cond.id, reason="the Initiative roll took its -1d10"))
            detail += f" -{lost} (foe had initiative)"
        total = d + qu - ((-pen) // 10) - lost
        rows.append((total, qu, -i, c.handle, f"{detail} = {total}"))
    rows.sort(reverse=True)
    return tuple(ev.InitiativeEntry(handle=h, rank=t, tiebreak=qu, tier=n, detail=det)
                 for n, (t, qu, _, h, det) in enumerate(rows))


def start(draft: Draft, command=None) -> None:
    """``affray start``: roll Initiative and open round 1."""
    state = draft.state
    if state.phase == "over":
        raise RuleError("the fight is over; 'affray close' ends the encounter")
    if state.phase != "setup":
        raise RuleError("the fight has begun; use 'affray end-round' to go on")
    if len({c.side for c in state.combatants.values()}) < 2:
        raise RuleError("a fight needs combatants on at least two sides; add one with 'affray join SHEET --side NAME'")
    start_round(draft)


def start_round(draft: Draft) -> None:
    """Open the next round: Initiative, fresh Action Points (RMH: 4), and
    in round 1 a Perception roll for each surprised combatant (seed 000
    "Surprised / Confused Effect") before the first turn."""
    order = roll_initiative(draft)
    number = draft.state.round + 1
    ap = int(rulings_of(draft.state).action_points)
    active = fighters(draft.state)
    draft.emit(ev.RoundStarted(round=number, order=order, reactions={}, combat_actions={c.handle: ap for c in active}))
    for c in active:  # a critical's "next round" that fell after its bearer's last turn (seed 000)
        lost = next((k for k in c.conditions if k.name == "round-lost"), None)
        if lost is not None:
            draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=lost.id, reason=f"round {number} is lost"))
            lose_round(draft, c.handle, lost.note)
    surprised = [c for c in active if c.surprised] if number == 1 else []
    if surprised:
        draft.emit(ev.StepsAwaited(steps=tuple(
            ev.PendingStep(who=c.handle, verb="roll", kind="perception",
                           prompt=f"{c.name}: Perception roll against the ambush (static maneuver)",
                           dice=(ev.DiceNeed(f"{c.name}: Perception (open-ended)", "1D100", by=c.handle),))
            for c in surprised)))
        return
    draft.emit(ev.StepsAwaited(steps=()))
    draft.hand_over()


def _may_take_turn(state: State, handle: str) -> bool:
    c = state.combatants[handle]
    holding = declared_of(c) is not None and declared_of(c).effects.get("ready")  # concentrating on a held action
    return c.can_fight and c.combat_actions > 0 and not c.effect("no-actions") and not holding


def advance(draft: Draft) -> None:
    """The sequencer: the next in Initiative order after the current actor
    with Action Points left takes a turn, cycling (ruling ``turn_order``);
    when nobody has any, the GM ends the round."""
    state = draft.state
    if state.phase not in ("round",) or state.pending or fight_over(draft):
        return
    if rulings_of(state).turn_order == "countdown":
        countdown(draft)
        return
    order = [e.handle for e in state.order if e.handle in state.combatants]
    n = len(order)
    if state.turn and state.turn[0] in order:
        cur, cycle = order.index(state.turn[0]), max(1, state.action_no)
    else:
        cur, cycle = -1, 1
    for k in range(1, n + 1):
        idx = cur + k
        h = order[idx % n]
        if _may_take_turn(state, h):
            number = cycle + (1 if idx >= n else 0)
            draft.emit(ev.TurnBegan(handles=(h,), action_no=number))
            draft.emit(ev.StepsAwaited(steps=(turn_step(draft.state, h, number),)))
            return
    draft.emit(ev.TurnBegan(handles=(), action_no=0),
               ev.StepsAwaited(steps=(ev.PendingStep(who="GM", verb="end-round", kind="end-round",
                                                      prompt=f"GM: end round {state.round} (upkeep, then Initiative)",
                                                      dice=initiative_dice(state)),)))


def count_of(state: State, entry: ev.InitiativeEntry) -> int:
    """A combatant's actual initiative now (RMH tactical-activity-tracking
    "Actual Initiative"): its base initiative (this round's 2d10 + Qu
    bonus - penalty) + 5 x the Action Points it has left."""
    return entry.rank + 5 * state.combatants[entry.handle].combat_actions


def countdown(draft: Draft) -> None:
    """The RMH countdown (ruling ``turn_order=countdown``): the GM counts
    down; the next thing to happen is the highest of every combatant's
    next count: a declared action resolves at its count (ruling
    ``resolution=when-spent``: declared at base + 5 x AP left, resolved
    when its AP are spent, 5 x AP further down), and a combatant with
    nothing declared and AP left declares at base + 5 x AP left. At equal
    counts a resolution comes before a declaration, then the higher
    Quickness bonus, then the order rolled. A held action becomes ready
    at its count (its AP spent) and waits for ``act WHO trigger``; while
    one waits, each other resolution pauses (``act WHO resolve``) so the
    trigger may interrupt it. When nothing is left, the GM ends the round.
    Source: RMH tactical-activity-tracking_.md "Tactical round",
    "Conditional Actions"."""
    while True:
        state = draft.state
        nxt = []
        holders = set()
        for i, e in enumerate(state.order):
            c = state.combatants.get(e.handle)
            if c is None or not c.can_fight:
                continue
            d = declared_of(c)
            if d is not None and d.effects.get("ready"):
                holders.add(e.handle)  # concentrating on a held action: no other turn
            elif d is not None:
                nxt.append((d.effects.get("resolve", 0), 1, e.tiebreak, -i, e.handle, d))
            elif _may_take_turn(state, e.handle):
                nxt.append((count_of(state, e), 0, e.tiebreak, -i, e.handle, None))
        if not nxt:
            draft.emit(ev.TurnBegan(handles=(), action_no=0),
                       ev.StepsAwaited(steps=(ev.PendingStep(who="GM", verb="end-round", kind="end-round",
                                                              prompt=f"GM: end round {state.round} (upkeep, then Initiative)",
                                                              dice=initiative_dice(state)),)))
            return
        count, _, _, _, h, d = max(nxt, key=lambda x: x[:4])
        draft.emit(ev.TurnBegan(handles=(h,), action_no=count))
        if d is None:
            draft.emit(ev.StepsAwaited(steps=(turn_step(draft.state, h, count, counting=True),)))
            return
        if d.effects.get("hold"):
            ready(draft, h)
            continue
        c = state.combatants[h]
        if holders - {h}:
            others = sorted(holders - {h})
            what = declared_text(d)
            triggers = " or ".join(f"'affray act {x} trigger'" for x in others)
            draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
                who=h, verb="act", kind="resolve", options=("resolve",),
                prompt=f"count {count}: {c.name} resolves {what} ('affray act {h} resolve'); "
                       f"a held action may interrupt it first ({triggers})"),)))
            return
        kind, params = declared_step(d)
        draft.then(kind, who=h, resolving=True, **params)
        return


def turn_step(state: State, handle: str, number: int, counting: bool = False) -> ev.PendingStep:
    """The pending turn of ``handle`` with the actions open to it."""
    c = state.combatants[handle]
    options = []
    if c.stance == "prone":
        options.append("stand")
    sheet = sheet_of(c)
    if any(w.kind in ("melee", "missile") and w.name not in c.ready for w in sheet.weapons) and not any(
            w.kind in ("melee", "missile") for w in sheet.weapons if w.name in c.ready):
        options.append("draw")
    can_hit = any(w.kind in ("melee", "missile", "unarmed") and (w.name in c.ready or w.kind == "unarmed")
                  for w in sheet.weapons)
    if any(w.kind == "missile" and unloaded(c, w.name) is not None for w in held(c)):
        options.append("reload")
    if not c.effect("cannot-attack") and can_hit:  # prone: at the prone penalty (ruling prone_penalty)
        options.append("attack")
    if parry_declared(c) is None and parry_limit(c) > 0 and not c.has("attacked"):
        options.append("parry")
    options.append("pass")
    declare = "declares " if counting and core_delayed(state) else ""
    return ev.PendingStep(
        who=handle, verb="attack" if "attack" in options else "act", kind="turn", options=tuple(options),
        prompt=f"{c.name} {declare}({'count' if counting else 'turn'} {number}, {c.combat_actions} AP): {' | '.join(options)}"
               f" (attack TARGET [--situation parry=N|ap=N|range=M|cover=C|pace=P|charge=M/S|hold=TRIGGER]; act {handle} parry N|stand|draw W|reload|pass)",
    )


def end_round(draft: Draft, command=None) -> None:
    """End the round (RMH upkeep): bleeding, then one round of the stun
    stack wears off, worst state first (seed 000 "Stunned"), staggered
    ends ("max one round"), what lasts the round ends; then the next
    round's Initiative."""
    state = draft.state
    if state.phase != "round":
        raise RuleError("there is no round in progress to end; use 'affray start' to begin the fight")
    if state.exchange is not None or any(s.kind not in ("end-round", "turn", "resolve") for s in state.pending):
        raise RuleError("an attack is still being resolved; finish it first (see 'affray pending')")
    draft.emit(ev.RoundEnded(round=state.round))
    drop_declared(draft)
    disengage(draft)
    for c in list(draft.state.combatants.values()):
        bleed = c.effect("bleed")
        if bleed and c.status in ("active", "unconscious"):  # the unconscious bleed on (RMH upkeep)
            draft.emit(ev.DamageDealt(exchange=0, target=c.handle, location="body", rolled=bleed, reduced=0, armour=0,
                                      final=bleed, note="bleeding"))
            check_down(draft, c.handle)
        dying_upkeep(draft, c.handle, state.round)
        wear_off(draft, c.handle, state.round)
        for cond in draft.state.combatants[c.handle].conditions:
            if cond.name in ROUND_BOUND or cond.ends.kind == "round-end":
                draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=cond.id, reason=f"end of round {state.round}"))
    if fight_over(draft):
        return
    start_round(draft)


def drop_declared(draft: Draft) -> None:
    """At the end of the round a declared action not yet resolved is lost
    (the GM ended the round before its count, or its maker fell); a held
    one that is ready waits on while its holder concentrates (ruling
    ``held_action=concentration``, RMH "Conditional Actions") or is lost
    (``end-of-round``, RMH the-tactical-combat-sequence: "If the
    conditional action is never triggered, the action is lost")."""
    state = draft.state
    keep = rulings_of(state).held_action == "concentration"
    for c in state.combatants.values():
        d = declared_of(c)
        if d is None or (keep and d.effects.get("ready") and c.can_fight):
            continue
        why = "never triggered" if d.effects.get("ready") else "the round ended before its count"
        draft.emit(rev.ActionDropped(handle=c.handle, action=declared_text(d), how="lost", reason=why,
                                     count=state.action_no))
        draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=d.id, reason=f"lost: {why}"))


def disengage(draft: Draft) -> None:
    """Melee engagement ends for a pair neither of whom attacked the other
    in melee this round (seed 000 "Melee": engaged while "a foe attacked in
    the previous second" and "that foe's action ... is to melee")."""
    state = draft.state
    struck = {(c.handle, k[3:]) for c in state.combatants.values() for cond in c.conditions
              if cond.name == "attacked" for k in cond.effects if k.startswith("at:")}
    for c in state.combatants.values():
        for other in c.engaged:
            if c.handle < other and (c.handle, other) not in struck and (other, c.handle) not in struck:
                draft.emit(ev.EngagementChanged(a=c.handle, b=other, engaged=False))


def wear_off(draft: Draft, handle: str, round_no: int) -> None:
    """One round of the stun stack wears off, from the worst state present
    whose rounds count this round (stunned and unable to parry, then
    stunned, then dazed); rounds received late in this round (ruling
    ``late_stun``) wait. Staggered ends after its one round."""
    c = draft.state.combatants[handle]
    by_name = {k.name: k for k in c.conditions}
    for name in cat.STUN_ORDER:
        cond = by_name.get(name)
        if cond is None:
            continue
        late = cond.effects.get("late", 0) if cond.effects.get("late-round") == round_no else 0
        if cond.ends.count - late <= 0:
            continue
        left = cond.ends.count - 1
        if left <= 0:
            draft.emit(ev.ConditionExpired(handle=handle, condition_id=cond.id, reason=f"wore off (end of round {round_no})"))
        else:
            effects = {k: v for k, v in cond.effects.items() if k not in ("late", "late-round")}
            draft.emit(ev.ConditionApplied(handle=handle, condition=replace(
                cond, ends=ev.ConditionEnd(kind="rounds", count=left), effects=effects)))
        break
    stag = by_name.get("staggered")
    if stag is not None and stag.effects.get("late-round") != round_no:
        draft.emit(ev.ConditionExpired(handle=handle, condition_id=stag.id, reason=f"wore off (end of round {round_no})"))
    elif stag is not None:
        effects = {k: v for k, v in stag.effects.items() if k not in ("late", "late-round")}
        draft.emit(ev.ConditionApplied(handle=handle, condition=replace(stag, effects=effects)))
