"""The RQ3 melee round: joining, the four phases in turn, the end of the
round and of the fight.

Source: seed 002 "THE MELEE ROUND" (four phases: Statement of Intent, Move,
Melee, Post Melee Move), "STATEMENT OF INTENT" (lowest INT first, ties by a
die), "MOVEMENT INITIATIVE" (DEX, ties by a die), "MELEE PHASE" (every
action in Strike Rank order); rules-reference.md C3-C4 (strike ranks).

:func:`advance` is the system's turn sequencer: once a step hands over it
works out what the table waits for next (the next declaration, the next
move, the next action by SR, or the GM's end of round) and records it as a
``StepsAwaited``. Draws, spells, spirit combat and miscellaneous actions
resolve by themselves when their SR comes (their effects are the GM's).
"""

from __future__ import annotations

import msgspec

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import rq3 as rev
from affray.projections.state import State
from affray.rules.base import Draft, RuleError, joining
from affray.rules.rq3 import core
from affray.rules.rq3.sheet import SheetError, derive, parse_sheet


def join(draft: Draft, command: cmd.JoinCombatant) -> None:
    """``affray join``: a combatant from an rq3 sheet, with total and
    location HP (C7-C8) and armour; joins only before the first round
    (refused later with one line)."""
    state = draft.state
    if state.phase != "setup":
        raise RuleError("rq3 combatants join before 'affray start' (the Statement of Intent order is set for the fight)")
    try:
        sheet = parse_sheet(command.sheet)
    except SheetError as exc:
        raise RuleError(str(exc)) from None
    name = command.name or sheet.name
    handle, side = joining(state, command, name)
    d = derive(sheet)
    draft.emit(ev.CombatantJoined(handle=handle, name=name, side=side, sheet=msgspec.to_builtins(sheet),
                                  locations=d.locations, combat_actions=2, reactions=0, movement=sheet.move,
                                  weapons_ready=d.ready, surprised=command.surprised))
    s = draft.state
    steps = (start_step(s),) if len({c.side for c in s.combatants.values()}) >= 2 else ()
    draft.emit(ev.StepsAwaited(steps=steps))


def tie_dice(state: State) -> tuple[ev.DiceNeed, ...]:
    """The tie-break dice for the next round: one 1D10 for each fighter whose
    INT or DEX another fighter shares (seed 002: "Resolve ties by a die
    roll"; ruling ``tied_initiative_die``), in join order."""
    fs = core.fighters(state)
    ints = [core.sheet_of(c).characteristics.INT for c in fs]
    dexs = [core.sheet_of(c).characteristics.DEX for c in fs]
    return tuple(ev.DiceNeed(f"tie-break: {c.name}", "1D10", by=c.handle)
                 for c, i, d in zip(fs, ints, dexs) if ints.count(i) > 1 or dexs.count(d) > 1)


def start_step(state: State) -> ev.PendingStep:
    """The GM's step that opens round 1."""
    return ev.PendingStep(who="GM", verb="start", kind="start", dice=tie_dice(state),
                          prompt="GM: start round 1 (Statements of Intent from the lowest INT), or join more combatants")


def _order(draft: Draft) -> tuple[ev.InitiativeEntry, ...]:
    """Roll the tie-break dice and order the fighters for the Statement of
    Intent: lowest INT first; on a tie the higher die states first."""
    state = draft.state
    dice = {n.by: draft.roll(n.expr, n.purpose, by=n.by).total for n in tie_dice(state)}
    rows = []
    for i, c in enumerate(core.fighters(state)):
        ch = core.sheet_of(c).characteristics
        rows.append((ch.INT, -dice.get(c.handle, 0), i, c.handle, dice.get(c.handle, 0)))
    rows.sort()
    return tuple(ev.InitiativeEntry(handle=h, rank=intel, tiebreak=die, tier=n,
                                    detail=f"INT {intel}" + (f", tie-break {die}" if die else ""))
                 for n, (intel, _, _, h, die) in enumerate(rows))


def _open_round(draft: Draft) -> None:
    order = _order(draft)
    number = draft.state.round + 1
    draft.emit(ev.RoundStarted(round=number, order=order, reactions={},
                               combat_actions={c.handle: 2 for c in core.fighters(draft.state)}))
    advance(draft)


def start(draft: Draft, command: cmd.StartRound) -> None:
    """``affray start``: round 1 begins with the Statements of Intent."""
    state = draft.state
    if state.phase == "over":
        raise RuleError("the fight is over; 'affray close' ends the encounter")
    if state.phase != "setup":
        raise RuleError("the fight has started; 'affray end-round' opens the next round")
    if len(core.side_of_fight(state)) < 2:
        raise RuleError("a fight needs combatants on at least two sides; add one with 'affray join SHEET --side NAME'")
    _open_round(draft)


def end_round(draft: Draft, command: cmd.EndRound) -> None:
    """``affray end-round``: the Post Melee Move is over; round-long
    conditions (the Statement of Intent, moves, bracing) expire and the
    next round opens with its Statements of Intent."""
    state = draft.state
    core.expect(state, ("end-round",), "GM", "end the round")
    for c in state.combatants.values():
        for x in c.conditions:
            if x.ends.kind == "round-end":
                draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=x.id, reason="end of the round"))
    draft.emit(ev.RoundEnded(round=state.round))
    _open_round(draft)


# --------------------------------------------------------------------------- #
# the sequencer
# --------------------------------------------------------------------------- #


def intent_step(state: State, handle: str) -> ev.PendingStep:
    """The Statement of Intent step of ``handle``; its prompt keeps the
    time, 5 seconds a round (seed 002 "THE MELEE ROUND": "For the purposes
    of keeping track of time, each melee round lasts 5 seconds")."""
    c = state.combatants[handle]
    ch = core.sheet_of(c).characteristics
    foe = next((x.handle for x in core.fighters(state) if x.side != c.side), "FOE")
    w = next(iter(c.ready), "WEAPON")
    n = state.round
    return ev.PendingStep(
        who=handle, verb="act", kind="intent", options=tuple(core.TYPES),
        prompt=(f"Statement of Intent, round {n} ({5 * (n - 1)}-{5 * n} s of the fight), {c.name} (INT {ch.INT}): affray act {handle} "
                f"intent single attack:{foe}:{w} parry:{foe}:{w} (triple | double ACTION | single ACTION ACTION)"))


def move_step(state: State, handle: str) -> ev.PendingStep:
    """The Move Phase step of ``handle`` (movement initiative by DEX)."""
    c = state.combatants[handle]
    ch = core.sheet_of(c).characteristics
    mm = core.map_move(c)
    if mm is not None:
        third = mm.effects.get("pass", 0) + 1
        left = mm.effects.get("allow", 0) - mm.effects.get("used", 0)
        if not core.in_thirds(state):
            return ev.PendingStep(
                who=handle, verb="act", kind="move", options=core.DIRECTION_NAMES + ("done", "wait"),
                prompt=f"Move Phase, {c.name} (DEX {ch.DEX}), the whole move ({left} m; no foe within reach, "
                       f"ruling map_thirds): affray act {handle} move DIR... (e ne nw w sw se, face:DIR) | move done")
        return ev.PendingStep(
            who=handle, verb="act", kind="move", options=core.DIRECTION_NAMES + ("done", "disengage", "pass", "wait"),
            prompt=f"Move Phase, third {third} of 3, {c.name} (DEX {ch.DEX}, {left} m left of {mm.effects.get('allow', 0)}): "
                   f"affray act {handle} move DIR... (e ne nw w sw se, face:DIR) | move done | move disengage FOE")
    options = ["stay", "engage", "close", "open", "disengage", "wait"]
    if c.stance != "standing":
        options.append("stand")
    return ev.PendingStep(who=handle, verb="act", kind="move", options=tuple(options),
                          prompt=f"Move Phase, {c.name} (DEX {ch.DEX}): affray act {handle} "
                                 "move engage FOE | close FOE | open FOE | disengage FOE | stay | wait | stand")


def strike_step(state: State, handle: str, d: core.Declared) -> ev.PendingStep:
    """The Melee Phase step for declared attack ``d`` of ``handle``."""
    c = state.combatants[handle]
    foes = tuple(x.handle for x in core.fighters(state) if x.side != c.side)
    target = d.target if d.target in foes else "FOE"
    what = "missile attack" if d.kind == "missile" else "attack"
    return ev.PendingStep(
        who=handle, verb="attack", kind="strike", options=foes,
        dice=(ev.DiceNeed(f"{what}: {c.name}", "1D100", by=handle),), data={"slot": d.slot, "sr": d.sr},
        prompt=f"SR {d.sr}: {c.name}'s {what} with {d.weapon} ({d.mode}): affray attack {handle} {target} "
               f"(or affray act {handle} pass)")


def end_step(state: State) -> ev.PendingStep:
    """The GM's step closing the Post Melee Move."""
    return ev.PendingStep(who="GM", verb="end-round", kind="end-round", dice=tie_dice(state),
                          prompt="Post Melee Move: affray act WHO withdraw FOE (no engagement rules), "
                                 "then affray end-round")


def next_action(state: State) -> tuple[str, core.Declared] | None:
    """The next unused timed action of a fighter, in SR order; ties to the
    higher DEX, then the higher tie-break die (ruling ``sr_ties``). In a
    round with a lance charge, pikes strike first, then the charging lance,
    then the rest (seed 002 "Lance charge")."""
    best = None
    charging = any(c.has("lance-charge") for c in core.fighters(state))
    for i, c in enumerate(core.fighters(state)):
        dex = core.sheet_of(c).characteristics.DEX
        for d in core.declared(c):
            if d.used or d.abort or d.kind not in core.TIMED:
                continue
            group = 2
            if charging and d.kind == "attack":
                w = core.weapon_of(c, d.weapon)
                # seed 002 "Lance charge": a pike before the lance, the lance before shorter weapons
                group = 0 if w.length >= 3 and not core.is_lance(w) else 1 if core.is_lance(w) and c.has("lance-charge") else 2
            key = (group, d.sr, -dex, -core.tiebreak(state, c.handle), i, d.slot)
            if best is None or key < best[0]:
                best = (key, c.handle, d)
    return None if best is None else (best[1], best[2])


def _fight_over(draft: Draft) -> bool:
    sides = core.side_of_fight(draft.state)
    if len(sides) >= 2:
        return False
    winner = next(iter(sides), "")
    draft.emit(ev.FightEnded(winner=winner, reason="no one else can fight" if winner else "no one can fight"))
    draft.emit(ev.StepsAwaited(steps=()))
    return True


def advance(draft: Draft) -> None:
    """The turn sequencer: record what the table waits for next."""
    if draft.state.phase in ("over", "closed") or _fight_over(draft):
        return
    while True:
        state = draft.state
        fs = {c.handle for c in core.fighters(state)}
        todo = [h for h in core.intent_order(state) if h in fs and core.intent_of(state.combatants[h]) is None]
        if todo:
            draft.emit(ev.StepsAwaited(steps=(intent_step(state, todo[0]),)))
            return
        todo = [h for h in core.move_queue(state) if h in fs]
        if todo and core.on_map(state) and any(core.map_move(state.combatants[h]) is None for h in todo):
            core.open_map_phase(draft)  # seed 002 "MOVE": the allowance as the phase begins
            continue
        if todo:
            draft.emit(ev.StepsAwaited(steps=(move_step(state, todo[0]),)))
            return
        nxt = next_action(state)
        if nxt is None:
            draft.emit(ev.StepsAwaited(steps=(end_step(state),)))
            return
        handle, d = nxt
        if d.kind in ("attack", "missile"):
            draft.emit(ev.StepsAwaited(steps=(strike_step(state, handle, d),)))
            return
        _resolve_other(draft, handle, d)


def _resolve_other(draft: Draft, handle: str, d: core.Declared) -> None:
    """A draw, spell, spirit combat or miscellaneous action at its SR (seed
    002 actions 3, 6-9): recorded; a draw readies the weapon."""
    detail = d.weapon + (f" ({d.mode} MP)" if d.kind == "cast" and d.mode else "")
    if d.kind == "cast" and d.sr > 10:
        # seed 002 "3. Cast Spell": the excess SRs carry over to the next round
        detail += f"; {d.sr - 10} SR carry over: declare another Cast Spell next round or it is aborted"
        core.condition(draft, handle, "spell-carried", ends="event", effects={"sr": d.sr - 10}, note=d.weapon)
    draft.emit(rev.ActionResolved(handle=handle, kind=d.kind, sr=min(d.sr, 10), detail=detail))
    if d.kind == "draw":
        draft.emit(ev.WeaponReadied(handle=handle, weapon=d.weapon))
    core.mark_used(draft, handle, d)
