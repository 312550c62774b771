"""Round structure of mythras: Initiative once, turns cycling while anyone
has Action Points.

Source: seed 001 "Running Combat" (Initiative, Turns), "Actions in Combat",
"Combat Actions", "Delay", "Interrupt", "Dither", "Regain Footing";
rules-reference.md B12 (armour penalty), B17 (Initiative), B18 (Action
Points).

:func:`advance` is the router's turn sequencer: it runs whenever a handler
has finished its part (:func:`~.core.done`) and nothing else is queued.
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from affray.events import commands as cmd
from affray.events import core as ev
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError, joining
from affray.rules.mythras import conditions as cat
from affray.rules.mythras import tables
from affray.rules.mythras.core import (
    at, fighters, go_on, grade_modifiers, kept_roll, keeping, leg_held, luck_suffix, offer_luck, rulings_of, sheet_of,
    test,
)
from affray.rules.mythras.sheet import SheetError, derive, parse_sheet


def initiative_dice(state: State) -> tuple[ev.DiceNeed, ...]:
    """The d10s the Initiative roll needs, in join order."""
    return tuple(ev.DiceNeed(f"initiative: {c.name}", "1D10", by=c.handle) for c in fighters(state))


def start_step(state: State) -> ev.PendingStep:
    """The GM's step that rolls Initiative and opens round 1."""
    return ev.PendingStep(who="GM", verb="start", kind="start",
                          prompt="GM: roll Initiative and start round 1, or join more combatants",
                          dice=initiative_dice(state))


def roll_initiative(draft: Draft) -> tuple[ev.InitiativeEntry, ...]:
    """1d10 + Initiative − highest worn AP (−10 when surprised), highest
    first; ties to the higher DEX; a tie on both is settled by a roll-off
    (seed 001 "Initiative": "have each roll a die with the higher roll
    going before the other"; B12, B17): each tied fighter rolls 1D10, and
    those still tied roll again, so the dice after the Initiative d10s are
    the roll-off's, in Initiative then join order."""
    rows = [_initiative_row(draft, c) for c in fighters(draft.state)]
    groups: dict[tuple[int, int], list] = {}
    for row in rows:
        groups.setdefault((row[0], row[1]), []).append(row)
    for tied in groups.values():
        if len(tied) > 1:
            _roll_off(draft, tied)
    rows.sort(key=lambda r: (r[0], r[1], r[4]), reverse=True)
    out = []
    for n, (total, dex, c, detail, offs) in enumerate(rows):
        if offs:
            detail += "; tie on total and DEX: roll-off " + "/".join(str(o) for o in offs)
        out.append(ev.InitiativeEntry(handle=c.handle, rank=total, tiebreak=dex, tier=n, detail=detail))
    return tuple(out)


def _initiative_row(draft: Draft, c: Combatant) -> list:
    """Roll ``c``'s Initiative: ``[total, DEX, c, detail, roll-offs]``
    (seed 001 "Initiative"; B12 armour, B17; −10 when surprised)."""
    sheet = sheet_of(c)
    d = derive(sheet, rulings_of(draft.state))
    d10 = draft.roll("1D10", f"initiative: {c.name}", by=c.handle).total
    surprise = -10 if c.surprised else 0
    total = d10 + d.initiative - d.armour_penalty + surprise
    detail = f"d10={d10} +{d.initiative} −{d.armour_penalty} armour" + (" −10 surprised" if surprise else "") + f" = {total}"
    return [total, sheet.characteristics.DEX, c, detail, ()]


def _roll_off(draft: Draft, tied: list, depth: int = 0) -> None:
    """Each of ``tied`` rolls 1D10 (its faces appended to the row's
    roll-offs); those who tie again roll again (seed 001 "Initiative"). A
    run of more than 20 ties falls back to join order."""
    if depth >= 20:
        return
    for row in tied:
        c = row[2]
        row[4] = row[4] + (draft.roll("1D10", f"initiative roll-off: {c.name}", by=c.handle).total,)
    again: dict[int, list] = {}
    for row in tied:
        again.setdefault(row[4][-1], []).append(row)
    for rows in again.values():
        if len(rows) > 1:
            _roll_off(draft, rows, depth + 1)


def start_round(draft: Draft, order: tuple[ev.InitiativeEntry, ...]) -> None:
    """Open the next round with fresh Action Points (unused points do not
    carry over; seed 001 "Actions in Combat") and the kept order."""
    number = draft.state.round + 1
    if number > 1:
        on = rulings_of(draft.state).bleed_past_incapacitated == "mythras-track"
        for c in list(draft.state.combatants.values()):
            if c.effect("bleeding") and (c.status == "active" or (on and c.status == "unconscious")):
                add_fatigue(draft, c.handle, "Bleed")
    active = [c for c in fighters(draft.state) if c.can_fight]
    draft.emit(ev.RoundStarted(round=number, order=order, reactions={}, combat_actions={
        c.handle: max(0, c.max_combat_actions + c.effect("fatigue-ap")) for c in active}))
    if number == 1:
        for c in active:
            if c.surprised:
                draft.emit(ev.ConditionApplied(handle=c.handle, condition=cat.make(
                    "surprised", cause=draft.next_version, round=1, step=draft.state.step, ends="round-end",
                    effects={"no-defence": 1, "cannot-attack": 1, "bonus-effect": 1})))
    advance(draft)


def add_fatigue(draft: Draft, handle: str, why: str) -> None:
    """One more Fatigue level (rules-reference.md B19): the hardest grade of
    its level on every roll, its AP penalty from the next round on; at
    Incapacitated the bearer can no longer fight. Source for the trigger:
    seed 001 "Bleed" (one level at the start of each round)."""
    state = draft.state
    c = state.combatants[handle]
    old = next((x for x in c.conditions if x.name == "fatigue"), None)
    level = (old.effects.get("level", 0) if old else 0) + 1
    if level > len(tables.FATIGUE):
        if rulings_of(state).bleed_past_incapacitated == "stop":
            level = len(tables.FATIGUE)
        else:
            _past_incapacitated(draft, c, level, why)
            return
    row = tables.FATIGUE[level - 1]
    effects = {"level": level, "grade": tables.GRADE_ORDER.index(row.grade), "fatigue-ap": row.ap}
    if level == len(tables.FATIGUE):
        effects["helpless"] = 1
    cond = cat.make("fatigue", cause=draft.next_version, round=state.round, step=state.step, ends="event",
                    effects=effects, note=f"{row.key} ({why})")
    draft.emit(ev.ConditionApplied(handle=handle, condition=cond))


#: The Mythras Fatigue track past Incapacitated (ruling
#: ``bleed_past_incapacitated``): the level's name and the status it brings.
PAST_INCAPACITATED = (("semi-conscious", "unconscious"), ("comatose", "unconscious"), ("dead", "dead"))


def _past_incapacitated(draft: Draft, c: Combatant, level: int, why: str) -> None:
    """Fatigue beyond Incapacitated: Semi-Conscious, Comatose, Dead (seed
    001 "Bleed": "until they collapse and possibly die")."""
    state = draft.state
    n = min(level - len(tables.FATIGUE), len(PAST_INCAPACITATED)) - 1
    name, status = PAST_INCAPACITATED[n]
    old = next((x for x in c.conditions if x.name == "fatigue"), None)
    effects = {**(old.effects if old else {}), "level": len(tables.FATIGUE) + n + 1, "helpless": 1}
    draft.emit(ev.ConditionApplied(handle=c.handle, condition=cat.make(
        "fatigue", cause=draft.next_version, round=state.round, step=state.step, ends="event",
        effects=effects, note=f"{name} ({why})")))
    if c.status != status:
        draft.emit(ev.StatusChanged(handle=c.handle, status=status, reason=f"{why}: {name}"))


def join(draft: Draft, command: cmd.JoinCombatant) -> None:
    """``affray join``: a combatant joins before Initiative is rolled (it is
    rolled once for the fight, seed 001 "Initiative"); once two sides are
    present the GM may start. In a fight under way, between turns, the
    newcomer rolls Initiative and is placed in the order (:func:`place`).
    :class:`RuleError` once the fight is over, or while an exchange or
    another step is open."""
    state = draft.state
    if state.phase in ("over", "closed"):
        raise RuleError("the fight is over; open a new encounter with 'affray new'")
    if state.phase != "setup" and (state.exchange is not None
                                   or any(s.kind not in ("turn", "end-round") for s in state.pending)):
        waiting = "; ".join(s.prompt for s in state.pending) or "nothing"
        raise RuleError(f"a combatant joins a fight under way between turns; finish what is open first (waiting for: {waiting})")
    try:
        sheet = parse_sheet(command.sheet)
    except SheetError as exc:
        raise RuleError(str(exc)) from None
    name = command.name or sheet.name
    handle, side = joining(state, command, name)
    d = derive(sheet, rulings_of(state))
    draft.emit(ev.CombatantJoined(
        handle=handle, name=name, side=side, sheet=msgspec.to_builtins(sheet), locations=d.locations,
        combat_actions=d.action_points, reactions=0, weapons_ready=d.ready, surprised=command.surprised,
        movement=sheet.movement,
    ))
    if state.phase != "setup":
        place(draft, handle)
        return
    s = draft.state
    steps = (start_step(s),) if len({c.side for c in s.combatants.values()}) >= 2 else ()
    draft.emit(ev.StepsAwaited(steps=steps))


def place(draft: Draft, handle: str) -> None:
    """A combatant joining a fight under way: it rolls Initiative as every
    fighter did at the start (seed 001 "Initiative": "Initiative is
    calculated by each participant rolling 1d10 and adding their Initiative
    Modifier"), and goes into the kept order by the same rule: after the
    higher totals, before the lower; on a tie, the higher DEX first; on a
    tie on both, it and that fighter "each roll a die with the higher roll
    going before the other" (again while they tie). It has its Action
    Points for the round ("All beginning characters get 2 Action Points per
    Round") and takes its Turns when the turns reach its place; a surprised
    newcomer cannot defend until its Initiative arrives ("Surprise"). When
    the table was waiting only for the GM to end the round, the newcomer's
    Turn comes now. Events: ``OrderChanged``."""
    state = draft.state
    c = state.combatants[handle]
    total, dex, _, detail, _ = _initiative_row(draft, c)
    order = [o for o in state.order if o.handle in state.combatants]
    at_ = len(order)
    offs: list[int] = []
    for i, o in enumerate(order):
        if (o.rank, o.tiebreak) < (total, dex):
            at_ = i
            break
        if (o.rank, o.tiebreak) == (total, dex) and _wins_roll_off(draft, c, state.combatants[o.handle], offs):
            at_ = i
            break
    if offs:
        detail += "; tie on total and DEX: roll-off " + "/".join(str(o) for o in offs)
    entry = ev.InitiativeEntry(handle=handle, rank=total, tiebreak=dex, detail=detail)
    placed = order[:at_] + [entry] + order[at_:]
    placed = [replace(o, tier=n) for n, o in enumerate(placed)]
    ap = max(0, c.max_combat_actions + c.effect("fatigue-ap"))
    draft.emit(ev.OrderChanged(order=tuple(placed), combat_actions={handle: ap},
                               reason=f"{c.name} joins the fight: Initiative {detail}"))
    if c.surprised:
        draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
            "surprised", cause=draft.next_version, round=state.round, step=draft.state.step, ends="round-end",
            effects={"no-defence": 1, "cannot-attack": 1, "bonus-effect": 1})))
    if state.pending and all(s.kind == "end-round" for s in state.pending):
        advance(draft)


def _wins_roll_off(draft: Draft, c: Combatant, other: Combatant, offs: list[int]) -> bool:
    """``c`` and ``other`` each roll 1D10, again while they tie (at most 20
    times; then ``other``, already placed, keeps its place); ``c``'s faces
    go on ``offs``. True when ``c`` rolled higher."""
    for _ in range(20):
        mine = draft.roll("1D10", f"initiative roll-off: {c.name}", by=c.handle).total
        theirs = draft.roll("1D10", f"initiative roll-off: {other.name}", by=other.handle).total
        offs.append(mine)
        if mine != theirs:
            return mine > theirs
    return False


def start(draft: Draft, command: cmd.StartRound) -> None:
    """``affray start``: roll Initiative once for the fight and open round 1.
    Between rounds (the GM's end-round step is all that is pending) it is
    the GM forcing a re-roll: the round ends and the next opens on a fresh
    Initiative roll (seed 001 "Initiative": it "remains in play until it is
    forced to be re-rolled")."""
    state = draft.state
    if state.phase == "over":
        raise RuleError("the fight is over; 'affray close' ends the encounter")
    if state.phase == "round" and state.pending and all(s.kind == "end-round" for s in state.pending):
        draft.emit(ev.NoteAdded(text="the GM forces Initiative to be re-rolled"))
        if _close_round(draft):
            start_round(draft, roll_initiative(draft))
        return
    if state.phase != "setup":
        raise RuleError("Initiative is rolled once, at the start of the fight; use 'affray end-round' to go on "
                        "(to force a re-roll, 'affray start' once the round's turns are done)")
    if len({c.side for c in state.combatants.values()}) < 2:
        raise RuleError("a fight needs combatants on at least two sides; add one with 'affray join SHEET --side NAME'")
    start_round(draft, roll_initiative(draft))


def _sides_standing(state: State) -> set[str]:
    return {c.side for c in state.combatants.values() if c.can_fight}


def _may_take_turn(c: Combatant) -> bool:
    return c.can_fight and c.combat_actions > 0 and not c.effect("holding")


def next_actor(state: State) -> tuple[str, int] | None:
    """Who takes the next turn, and the turn cycle number: the next in
    Initiative order after the current actor with Action Points left,
    wrapping to a new cycle (seed 001 "Turns"). None when nobody can."""
    order = [e.handle for e in state.order if e.handle in state.combatants]
    n = len(order)
    if state.turn and state.turn[0] in order:
        cur, cycle = order.index(state.turn[0]), max(1, state.action_no)
    else:
        cur, cycle = -1, 1
    for k in range(1, n + 1):
        idx = cur + k
        h = order[idx % n]
        if _may_take_turn(state.combatants[h]):
            return h, cycle + (1 if idx >= n else 0)
    return None


def fight_over(draft: Draft) -> bool:
    """End the fight when fewer than two sides can fight."""
    standing = _sides_standing(draft.state)
    if len(standing) >= 2:
        return False
    winner = next(iter(standing)) if standing else ""
    draft.emit(ev.TurnBegan(handles=(), action_no=0),
               ev.FightEnded(winner=winner, reason="no one else can fight" if winner else "no one can fight"),
               ev.StepsAwaited(steps=()))
    return True


def advance(draft: Draft) -> None:
    """Decide the next turn, or ask the GM to end the round when nobody has
    Action Points for a turn (seed 001 "Turns"). After an Interrupt the
    interrupted turn resumes ("Interrupt")."""
    if draft.state.phase != "round" or fight_over(draft):
        return
    state = draft.state
    for h in state.turn:
        c = state.combatants.get(h)
        cond = next((k for k in c.conditions if k.name == "interrupting"), None) if c else None
        if cond is not None:
            draft.emit(ev.ConditionExpired(handle=h, condition_id=cond.id, reason="the interrupting action is done"))
            resumed = draft.state.combatants.get(cat.from_of(cond))
            if resumed is not None and _may_take_turn(resumed):
                draft.emit(ev.TurnBegan(handles=(resumed.handle,), action_no=state.action_no))
                draft.emit(ev.StepsAwaited(steps=(turn_step(draft.state, resumed.handle, state.action_no),)))
                return
    nxt = next_actor(draft.state)
    if nxt is None:
        draft.emit(ev.TurnBegan(handles=(), action_no=0),
                   ev.StepsAwaited(steps=(ev.PendingStep(who="GM", verb="end-round", kind="end-round",
                                                          prompt=f"GM: end round {draft.state.round}"),)))
        return
    handle, cycle = nxt
    _tick_turn_conditions(draft, handle)
    draft.emit(ev.TurnBegan(handles=(handle,), action_no=cycle))
    draft.emit(ev.StepsAwaited(steps=(turn_step(draft.state, handle, cycle),)))


def turn_step(state: State, handle: str, cycle: int) -> ev.PendingStep:
    """The pending turn of ``handle``: its main options (every Proactive
    Action is open through 'affray act', see :mod:`.actions`)."""
    c = state.combatants[handle]
    options = ("attack", "delay", "pass") if not c.effect("cannot-attack") else ("delay", "pass")
    extra = []
    if c.stance == "prone" and not leg_held(c):  # a held or useless leg: no standing up
        extra.append("stand")
    names = {k.name for k in c.conditions}
    if "spell-ready" in names:
        extra += ["release", "hold"]
    if "casting" in names:
        extra.append("cast")
    if names & {"entangled", "gripped"}:
        extra.append("struggle")
    if "unloaded" in names:
        extra.append("reload")
    if any(k.name == "impaled" and cat.from_of(k) == handle for o in state.combatants.values() for k in o.conditions):
        extra.append("yank")
    options = tuple(extra) + options
    return ev.PendingStep(
        who=handle, verb="attack" if "attack" in options else "act", kind="turn",
        prompt=f"{c.name} (turn {cycle}, {c.combat_actions} AP): {' | '.join(options)} (or 'affray act {handle} ACTION')",
        options=options,
        dice=(ev.DiceNeed("attack roll (if attacking)", "1D100", by=handle),) if "attack" in options else (),
    )


def interrupt(draft: Draft, who: str, arg: str) -> None:
    """Interrupt (Reactive, delaying characters only): halt an opponent's
    Turn to take the delayed Turn now; the opponent's Turn resumes after
    (seed 001 "Interrupt"; ruling ``interrupt_timing``: as the opponent's
    Turn begins). Step ``act:interrupt``; :func:`advance` resumes the
    interrupted Turn."""
    state = draft.state
    c = state.combatants[who]
    if not c.has("holding"):
        raise RuleError(f"only a delaying character can interrupt; {c.name} is not holding Action Points ('affray act {who} delay')")
    if c.combat_actions <= 0:
        raise RuleError(f"{c.name} has no Action Points left")
    turn = next((s for s in state.pending if s.kind == "turn"), None)
    if state.exchange is not None or turn is None or turn.who == who:
        raise RuleError("an Interrupt halts another combatant's Turn before its declaration; wait for one (see 'affray pending')")
    other = state.combatants[turn.who]
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "interrupting", ends="event", effects={f"from:{other.handle}": 1}, note=f"interrupts {other.name}'s turn", **at(draft))))
    draft.emit(ev.TurnBegan(handles=(who,), action_no=state.action_no))
    step = turn_step(draft.state, who, state.action_no)
    options = tuple(o for o in step.options if o != "delay")
    draft.emit(ev.StepsAwaited(steps=(replace(step, options=options, prompt=f"{c.name} interrupts {other.name}: "
                                              + " | ".join(options)),)))


def _tick_turn_conditions(draft: Draft, handle: str) -> None:
    """As the bearer's turn begins: conditions counted in its own turns
    ("cannot attack for 1d3 turns", B15; Blind Opponent's 1d3 Turns, Stun
    Location's Turns) count this turn and end once their turns are used;
    those lasting until its next turn end (Brace, a Hustle's speed); a
    surprised bearer may defend again (seed 001 "Surprise"); a cast spell
    not yet released must now be held or lost ("Cast Magic")."""
    for cond in draft.state.combatants[handle].conditions:
        if cond.effects.get("no-defence") and cond.name == "surprised":  # defence returns when its Initiative arrives
            effects = {k: v for k, v in cond.effects.items() if k != "no-defence"}
            draft.emit(ev.ConditionApplied(handle=handle, condition=replace(cond, effects=effects)))
        if cond.ends.kind == "next-action":
            draft.emit(ev.ConditionExpired(handle=handle, condition_id=cond.id, reason="its next turn"))
            continue
        if cond.name == "spell-ready" and not cond.effects.get("due"):
            draft.emit(ev.ConditionApplied(handle=handle, condition=replace(
                cond, effects={**cond.effects, "due": 1}, note=cond.note + "; release it or Hold Magic this turn")))
            continue
        if cond.ends.kind != "actions":
            continue
        if cond.ends.count <= 0:
            draft.emit(ev.ConditionExpired(handle=handle, condition_id=cond.id, reason="its turns are over"))
        else:
            draft.emit(ev.ConditionApplied(handle=handle, condition=replace(
                cond, ends=ev.ConditionEnd(kind="actions", count=cond.ends.count - 1))))


def end_round(draft: Draft, command: cmd.EndRound) -> None:
    """End the round: what ends with the round expires, then the next round
    starts with the same order (seed 001 "Initiative": it "remains in play
    until it is forced to be re-rolled")."""
    state = draft.state
    if state.phase != "round":
        raise RuleError("there is no round in progress to end; use 'affray start' to begin the fight")
    if state.exchange is not None or any(s.kind not in ("end-round", "turn") for s in state.pending):
        raise RuleError("an exchange is still open; finish it first (see 'affray pending')")
    order = state.order
    if _close_round(draft):
        start_round(draft, order)


def _close_round(draft: Draft) -> bool:
    """The round ends: what ends with it expires. False when the fight is
    then over."""
    state = draft.state
    draft.emit(ev.RoundEnded(round=state.round))
    for c in list(draft.state.combatants.values()):
        for cond in c.conditions:
            if cond.ends.kind == "round-end":
                draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=cond.id, reason=f"end of round {state.round}"))
    return not fight_over(draft)


def delay(draft: Draft, handle: str, action: str) -> None:
    """A turn spent otherwise than attacking: ``pass`` (Dither: the turn is
    wasted, 1 AP), ``delay`` (the remaining AP are held for reactions and
    Interrupts; no more turns this round) or ``stand`` (Regain Footing,
    1 AP: automatic if unengaged, else an opposed Brawn or Athletics roll).
    Seed 001 "Dither", "Delay", "Regain Footing". Step ``turns:delay``;
    the other actions are in :mod:`.actions`."""
    state = draft.state
    c = state.combatants[handle]
    action = action.lower()
    if action in ("dither", "pass"):
        draft.emit(ev.ActionSpent(handle=handle, kind="combat-action", reason="dither"))
    elif action in ("stand", "regain-footing"):
        if c.stance != "prone":
            raise RuleError(f"{c.name} is not prone; attack, delay or pass")
        pin = next((k for k in c.conditions if k.name == "pinned"), None)
        if pin is not None and cat.from_of(pin) in c.engaged:
            raise RuleError(f"{c.name} is pinned by {state.combatants[cat.from_of(pin)].name} and cannot stand until "
                            "the leaper leaves or an Arise is won (seed 001 'Leaping Attacks')")
        held = leg_held(c)
        if held:
            raise RuleError(f"{held}: no standing up yet")
        draft.emit(ev.ActionSpent(handle=handle, kind="combat-action", reason="regain footing"))
        foes = [h for h in c.engaged if h in state.combatants and state.combatants[h].can_fight]
        if not foes:
            draft.emit(ev.StanceChanged(handle=handle, stance="standing", reason="regains footing (unengaged)"))
        else:
            foe = state.combatants[foes[0]]
            draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
                who=handle, verb="roll", kind="footing",
                prompt=f"{c.name}: opposed Brawn or Athletics against {foe.name} to stand up",
                dice=(ev.DiceNeed(f"{c.name}: Brawn/Athletics", "1D100", by=handle),
                      ev.DiceNeed(f"{foe.name}: Brawn/Athletics", "1D100", by=foe.handle)),
                data={"foe": foe.handle}),)))
            return
    elif action in ("delay", "defend"):
        draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
            "holding", cause=draft.next_version, round=state.round, step=state.step, ends="round-end",
            effects={"holding": 1}, note=f"{c.combat_actions} AP held")))
    else:
        raise RuleError(f"unknown action {action!r}; use attack, stand, delay or pass")
    draft.emit(ev.StepsAwaited(steps=()))
    advance(draft)


def roll_footing(draft: Draft, step: ev.PendingStep, rest) -> None:
    """Regain Footing while engaged: win an opposed test of Brawn or
    Athletics (each side its better) to stand (seed 001; B6). Lost with a
    Luck Point left, the stander may re-roll his own roll (seed 001 "Use
    Luck Point": "to re-roll a particular result"; :func:`~.core.offer_luck`):
    the step comes back with the foe's roll kept (:func:`~.core.kept_roll`),
    or ``forced`` when the loss is accepted."""
    state = draft.state
    c, foe = state.combatants[step.who], state.combatants[str(step.data["foe"])]
    if step.data.get("forced"):
        go_on(draft, rest, "")
        return

    def roll(who: Combatant, luck: str = "") -> ev.SkillTested:
        s = sheet_of(who)
        name, skill = max((("Brawn", s.skill("Brawn")), ("Athletics", s.skill("Athletics"))), key=lambda p: p[1])
        return test(draft, who, name, skill, "Regain Footing (opposed)" + luck,
                    grade_modifiers(state, who, skill, (), "both", combat=False))

    mine = roll(c, luck_suffix(step))
    theirs = kept_roll(step, foe.handle)
    if theirs is None:
        tested = roll(foe)
        theirs = (tested.result, tested.roll)
    won = tables.opposed_winner(mine.result, mine.roll, *theirs) == "a"
    if not won and offer_luck(draft, c, keeping(step, {foe.handle: theirs}), rest, True):
        return
    if won:
        draft.emit(ev.StanceChanged(handle=c.handle, stance="standing", reason="regains footing"))
    go_on(draft, rest, "")
