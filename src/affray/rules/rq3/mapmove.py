"""Movement on the optional 1 m hex map (seed 002 "2) MOVE PHASE":
"MOVEMENT INITIATIVE", "MOVE", "RULES OF ENGAGEMENT"; "4) POST MELEE MOVE
PHASE"; "MOVEMENT ABORT"; DESIGN.md "Positions").

Without a map (no one placed) the Move Phase is the one of
:mod:`affray.rules.rq3.movement`. Once the GM places a figure, positions
are hexes (axial ``Q,R``, 1 m apart) with a facing (``e``, ``ne``, ``nw``,
``w``, ``sw``, ``se``):

- ``affray act WHO place Q,R [facing=DIR]``: put a figure on the map, or
  move it there by the GM's word (any time; not a Move Phase step).
- ``affray act WHO move DIR DIR face:DIR ... [facing=DIR]`` in the Move
  Phase: each DIR steps one hex. A step straight ahead, or to a front side
  hex (the facing shifts one side for it), costs 1 m; a step into a rear
  hex is backwards movement, 2 m, facing kept (ruling ``hex_rear_step``);
  ``face:DIR`` turns on the spot to any facing for 1 m; ``facing=DIR`` at
  the end is the free one-side facing shift at the end of the phase (not
  after a fumbled Maneuver). ``move done`` (or ``move stay``) ends one's
  move for the phase.
- Once hostile figures could conceivably reach each other (their distance,
  less the longer declared weapon's engagement range, within the metres
  both have left), the Move Phase goes in three alternating thirds in
  movement initiative order to its end (ruling ``map_thirds``): by the end
  of the k-th third a figure has used at most k/3 of its allowance
  (rounded up). Before that each figure makes its whole move in turn.
- Allowance: movement rate x declared moves per Move Phase (ruling
  ``movement_allowance``); a third of it when the figure begins the phase
  engaged, reloads a missile weapon or concentrates (ruling ``third_move``);
  Mobility (``intent ... mobility=N``) adds to the total.
- No step into a hex another figure stands in. A step into a foe's
  engagement zone (its declared weapon's length; the front and side hexes
  when adjacent, the front 60 degrees further out) engages and ends the
  move there; ``move pass FOE`` / ``disengage FOE`` in a later third
  contests Maneuver to move on (:mod:`affray.rules.rq3.movement`). A
  figure engaged at the start must stay within its fighting distance of
  those engaged with it.
- ``affray act WHO move DIR...`` in the Post Melee Move: the declared
  movement again (one category more after a Movement Abort), no
  engagement rules, through a prone figure's hex, or one the mover knocked
  aside in the Melee Phase, but not another standing one's (ruling
  ``post_move_engagement`` for where it ends). ``withdraw FOE`` walks
  straight away from the foe, ``approach FOE`` toward the free hex beside
  it, as far as the movement allows.
"""

from __future__ import annotations

import math

from affray.events import core as ev
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.rq3 import core

#: Words of a map move besides directions (and ``face:DIR``, ``facing=DIR``).
ENDS = ("done", "stay")


def is_map_move(words: list[str]) -> bool:
    """Whether the words after ``move`` are a hex path (directions,
    ``face:DIR``, ``facing=DIR``, ``done``, ``stay``)."""
    if not words:
        return False
    first = words[0].lower()
    return first in core.DIRECTION_NAMES + ENDS or first.startswith(("face:", "facing="))


def _coords(text: str) -> tuple[int, int]:
    parts = text.replace(" ", "").split(",")
    try:
        q, r = (int(p) for p in parts)
    except ValueError:
        raise RuleError(f"a hex is Q,R (two whole numbers, e.g. 3,-1), not {text!r}") from None
    return q, r


def place(draft: Draft, handle: str, words: list[str]) -> None:
    """``place Q,R [facing=DIR]``: the GM puts ``handle`` on the hex map.
    Refused: no hex given, a hex another standing figure holds, a finished
    fight."""
    state = draft.state
    if state.phase in ("over", "closed"):
        raise RuleError("the fight is over; nothing to place")
    if not words:
        raise RuleError("say where: place Q,R [facing=DIR] (e.g. place 0,0 facing=e)")
    c = state.combatants[handle]
    facing = (core.position(c) or (0, 0, 0))[2]
    rest = []
    for w in words:
        if w.lower().startswith("facing="):
            facing = core.direction(w.split("=", 1)[1])
        else:
            rest.append(w)
    q, r = _coords("".join(rest))
    other = core.occupant(state, (q, r), but=handle)
    if other is not None:
        raise RuleError(f"{other.name} stands in hex {q},{r}; place {c.name} in another hex")
    draft.emit(core.place_event(draft, handle, q, r, facing, "placed"))


def _walk(state, c, pos: tuple[int, int, int], tokens: list[str], *, post: bool):
    """Yield ``(q, r, facing, cost, token)`` for each token of a path."""
    q, r, facing = pos
    for t in tokens:
        low = t.lower()
        if low.startswith("face:"):
            facing = core.direction(low.split(":", 1)[1])
            yield q, r, facing, 1, t
            continue
        side = core.direction(low)
        turn = core.turns_between(facing, side)
        nq, nr = core.neighbour(q, r, side)
        if turn <= 1:
            cost, facing = 1, side  # "shift one hex facing and then move one meter"
        else:
            cost = 2  # backwards (ruling hex_rear_step): "To move 1 meter backwards take two meters"
        other = core.occupant(state, (nq, nr), but=c.handle)
        aside = post and any(x.id == f"knocked-aside:{c.handle}" for x in other.conditions) if other is not None else False
        if other is not None and not (post and other.stance != "standing") and not aside:
            raise RuleError(f"{other.name} stands in hex {nq},{nr}: a figure cannot pass through another "
                            f"(seed 002 'MOVE'); go round, or knock it aside in the Melee Phase")
        q, r = nq, nr
        yield q, r, facing, cost, t


def _split(words: list[str]) -> tuple[list[str], int | None, bool]:
    """The path tokens, the final free facing (or None) and whether the
    move ends the phase (``done``/``stay``)."""
    path, final, done = [], None, False
    for w in words:
        low = w.lower()
        if low.startswith("facing="):
            final = core.direction(low.split("=", 1)[1])
        elif low in ENDS:
            done = True
        else:
            path.append(w)
    return path, final, done


def _engagers(state, c, at: tuple[int, int]) -> list[tuple[str, int]]:
    """Foes whose engagement zone hex ``at`` lies in (seed 002 "RULES OF
    ENGAGEMENT": a foe "that has declared a Melee Attack"; a fallen foe
    cannot force engagement), with the distance, not yet engaged with ``c``."""
    out = []
    for o in core.fighters(state):
        if o.side == c.side or o.handle in c.engaged or o.stance != "standing":
            continue
        p = core.position(o)
        length = core.longest_declared_weapon(o)
        if p is None or length <= 0:
            continue
        if core.in_engagement_zone(p[:2], p[2], length, at):
            out.append((o.handle, core.hex_distance(p[:2], at)))
    return out


def _own_reach(state, c, at: tuple[int, int], facing: int) -> list[tuple[str, int]]:
    """Foes in ``c``'s own engagement zone at ``at`` (its declared weapon)."""
    length = core.longest_declared_weapon(c)
    out = []
    if length <= 0:
        return out
    for o in core.fighters(state):
        p = core.position(o)
        if o.side != c.side and o.handle not in c.engaged and p is not None and core.in_engagement_zone(at, facing, length, p[:2]):
            out.append((o.handle, core.hex_distance(at, p[:2])))
    return out


def move(draft: Draft, handle: str, words: list[str]) -> None:
    """``move DIR... [facing=DIR] | done`` on the hex map, in the Move Phase
    or the Post Melee Move (see the module docstring)."""
    state = draft.state
    if core.phase(state) == "post":
        return _post(draft, handle, words)
    core.expect(state, ("move",), handle, "move")
    c = state.combatants[handle]
    pos = core.position(c)
    if pos is None:
        raise RuleError(f"{c.name} is not on the map; the GM places it first: affray act {handle} place Q,R")
    mm = core.map_move(c)
    if mm is None:  # placed after the Move Phase opened
        core.open_map_phase(draft)
        state = draft.state
        c = state.combatants[handle]
        mm = core.map_move(c)
    path, final, done = _split(words)
    if path and c.stance != "standing":
        raise RuleError(f"{c.name} is {c.stance}; move stand first (seed 002 'FALLEN CHARACTERS')")
    _not_carrying(state, c, path)
    allow, used, taken = mm.effects.get("allow", 0), mm.effects.get("used", 0), mm.effects.get("pass", 0)
    thirds = core.in_thirds(state)
    # ruling map_thirds: a third of the allowance each time round, once foes could conceivably reach each other
    cap = math.ceil(allow * (taken + 1) / 3) if thirds else allow
    q, r, facing = pos
    spent, stopped = 0, ""
    for i, (nq, nr, nf, cost, token) in enumerate(_walk(state, c, pos, path, post=False)):
        if used + spent + cost > cap:
            raise RuleError(f"{c.name} may move {cap - used} m {'in this third' if thirds else 'this Move Phase'} "
                            f"({allow} m this Move Phase{_why(mm)}); "
                            f"the path comes to {spent + cost} m at {token!r} (a step back or a turn on the spot costs more)")
        if c.engaged and not mm.effects.get("limited-by-engagement") and cost and (nq, nr) != (q, r):
            names = ", ".join(state.combatants[h].name for h in c.engaged)
            raise RuleError(f"{c.name} is engaged with {names} and cannot move on without winning a contest of "
                            f"Maneuver (affray act {handle} move disengage FOE | pass FOE), or move done")
        spent += cost
        q, r, facing = nq, nr, nf
        for foe in c.engaged:
            reach = core.reach(c, foe)
            fp = core.position(state.combatants[foe])
            if mm.effects.get("limited-by-engagement") and fp is not None and core.hex_distance((q, r), fp[:2]) > max(1, reach):
                raise RuleError(f"{c.name} began the Move Phase engaged with {state.combatants[foe].name} and must stay "
                                f"within {max(1, reach)} m of it unless it wins a contest of Maneuver (move disengage {foe})")
        hit = _engagers(state, c, (q, r))
        if hit:
            stopped = ", ".join(state.combatants[h].name for h, _ in hit)
            for h, metres in hit:
                draft.emit(ev.EngagementChanged(a=handle, b=h, engaged=True))
                draft.emit(*core.reach_events(draft, handle, h, metres))
            if i + 1 < len(path):
                stopped += f" (the rest of the path, {' '.join(path[i + 1:])}, is not walked)"
            break
    for h, metres in _own_reach(draft.state, draft.state.combatants[handle], (q, r), facing) if spent else ():
        draft.emit(ev.EngagementChanged(a=handle, b=h, engaged=True))
        draft.emit(*core.reach_events(draft, handle, h, metres))
    last = not thirds or taken + 1 >= 3 or done or used + spent >= allow
    if final is not None:
        if not last:
            raise RuleError("the free facing shift comes at the end of the Move Phase: add 'done', or give it in the last third")
        if c.has("no-facing-shift"):
            raise RuleError(f"{c.name} fumbled a Maneuver roll and has no free facing shift this phase (seed 002)")
        if core.turns_between(facing, final) > 1:
            raise RuleError(f"the free facing shift turns one hex side; from {core.DIRECTION_NAMES[facing]} that is "
                            f"{core.DIRECTION_NAMES[(facing - 1) % 6]} or {core.DIRECTION_NAMES[(facing + 1) % 6]}")
        facing = final
    if (q, r, facing) != pos:
        draft.emit(core.place_event(draft, handle, q, r, facing, "Move Phase"))
        core.drop_apart_closings(draft, handle, "stepped out of the hex")
    if spent:
        draft.emit(ev.CombatantMoved(handle=handle, distance=float(spent), reason="Move Phase"
                                     + (f": engaged by {stopped}" if stopped else "")))
    core.carry_mount(draft, handle, q, r, facing, spent, "Move Phase")
    core.condition(draft, handle, "map-move",
                   effects=dict(mm.effects, used=used + spent, thirds=int(thirds), **{"pass": taken + 1 if thirds else 3}),
                   note=f"{used + spent} of {allow} m " + (f"after third {taken + 1}" if thirds else "(no foe within reach: the whole move)"))
    if last:
        core.condition(draft, handle, "moved", note=f"moved {used + spent} m on the map"
                       + (f"; engaged by {stopped}" if stopped else ""))
    draft.hand_over()


def _not_carrying(state, c, path: list[str]) -> None:
    """A mount carrying a rider does not walk on its own: the rider moves
    the pair (ruling ``mounted_map``)."""
    riders = core.riders_of(state, c.handle)
    if path and riders:
        r = state.combatants[riders[0]]
        raise RuleError(f"{c.name} carries {r.name}: the rider moves the pair (affray act {r.handle} move ...); "
                        f"{c.name} may move done")


def _why(mm) -> str:
    return f", a third: {mm.note.split('; ', 1)[1]}" if "; " in mm.note else ""


def _post_allowance(state, c) -> tuple[int, str, int]:
    """Metres ``c`` may move in the Post Melee Move, why it is limited, and
    the metres already used in it (seed 002 "4) POST MELEE MOVE PHASE":
    "as in the Move Phase"; "MOVEMENT ABORT")."""
    intent = core.intent_of(c)
    moves = intent.effects.get("post-moves", intent.effects.get("moves", 1)) if intent is not None else 1
    allow, why = core.allowance(c, moves, engaged_at_start=False, rate=core.mount_rate(state, c))
    mm = core.map_move(c)
    return allow, why, mm.effects.get("post-used", 0) if mm is not None else 0


def _free(state, c, hexes: tuple[int, int]) -> bool:
    """Whether ``c`` may step into ``hexes`` in the Post Melee Move (empty,
    or a prone figure's, or one ``c`` knocked aside)."""
    o = core.occupant(state, hexes, but=c.handle)
    return o is None or o.stance != "standing" or any(x.id == f"knocked-aside:{c.handle}" for x in o.conditions)


def _away_path(state, c, foe) -> list[str]:
    """The hex path of ``withdraw FOE``: straight away from ``foe`` along
    the hex side nearest the line from it through ``c``, as far as the Post
    Melee Move allows; backing off (2 m a hex, facing kept) when that goes
    as far as turning away (1 m) and walking, else turning and walking."""
    (q, r, facing), fp = core.position(c), core.position(foe)
    away = fp[2] if fp[:2] == (q, r) else min(range(6), key=lambda k: core.bearing(fp[:2], k, (q, r)))
    allow, _, used = _post_allowance(state, c)
    budget = allow - used
    hexes, at = [], (q, r)
    for _ in range(budget):
        at = core.neighbour(*at, away)
        if not _free(state, c, at):
            break
        hexes.append(at)

    def fit(n: int) -> int:  # not ending in a prone figure's hex
        while n and core.occupant(state, hexes[n - 1], but=c.handle) is not None:
            n -= 1
        return n

    name = core.DIRECTION_NAMES[away]
    if core.turns_between(facing, away) <= 1:
        return [name] * fit(len(hexes))
    back, turned = fit(min(len(hexes), budget // 2)), fit(min(len(hexes), budget - 1))
    if back >= turned:
        return [name] * back
    return [f"face:{name}"] + [name] * turned


def _toward_path(state, c, foe) -> list[str]:
    """The hex path of ``approach FOE``: toward the free hex beside ``foe``
    nearest to ``c``, one hex at a time (turning first, 1 m, when the next
    hex is not ahead or to a front side), as far as the Post Melee Move
    allows, ending facing the foe with the free facing shift if it turns
    one side."""
    (q, r, facing), fp = core.position(c), core.position(foe)
    ring = [core.neighbour(*fp[:2], k) for k in range(6)]
    ring = [h for h in ring if h == (q, r) or core.occupant(state, h, but=c.handle) is None]
    if not ring:
        return []
    goal = min(ring, key=lambda h: (core.hex_distance((q, r), h), h))
    allow, _, used = _post_allowance(state, c)
    budget, tokens, at = allow - used, [], (q, r)
    while at != goal:
        steps = [(core.hex_distance(core.neighbour(*at, k), goal), core.turns_between(facing, k), k) for k in range(6)]
        steps = [x for x in steps if x[0] < core.hex_distance(at, goal)
                 and core.occupant(state, core.neighbour(*at, x[2]), but=c.handle) is None]
        if not steps:
            break
        _, turn, k = min(steps)
        cost = 1 if turn <= 1 else 2
        if cost > budget:
            break
        tokens += [core.DIRECTION_NAMES[k]] if turn <= 1 else [f"face:{core.DIRECTION_NAMES[k]}", core.DIRECTION_NAMES[k]]
        budget -= cost
        facing, at = k, core.neighbour(*at, k)
    toward = min(range(6), key=lambda k: core.bearing(at, k, fp[:2]))
    if at != fp[:2] and core.turns_between(facing, toward) == 1:
        tokens.append(f"facing={core.DIRECTION_NAMES[toward]}")
    return tokens


def toward_or_away(draft: Draft, handle: str, words: list[str]) -> None:
    """``withdraw FOE`` / ``approach FOE`` in the Post Melee Move on the hex
    map: the figure walks away from the foe, or toward the free hex beside
    it, as far as its Post Melee Move allows (a hex path, as ``move DIR``
    there: no engagement rules; ruling ``post_move_engagement`` for where it
    ends)."""
    state = draft.state
    verb = words[0].lower()
    if core.phase(state) != "post":
        raise RuleError("withdraw and approach belong to the Post Melee Move, after every melee action")
    if len(words) < 2:
        raise RuleError(f"name the foe: {verb} FOE")
    c = state.combatants[handle]
    foe = find_combatant(state, words[1])
    o = state.combatants[foe]
    if foe == handle:
        raise RuleError(f"{c.name} cannot {verb} themself; name a foe")
    if core.position(o) is None:
        raise RuleError(f"{o.name} is not on the map; the GM places it (affray act {foe} place Q,R), or move DIR ...")
    if verb == "withdraw" and foe not in c.engaged:
        raise RuleError(f"{c.name} is not engaged with {o.name}")
    if verb == "approach" and core.distance_between(state, handle, foe) == 1:
        raise RuleError(f"{c.name} already stands beside {o.name}")
    tokens = _away_path(state, c, o) if verb == "withdraw" else _toward_path(state, c, o)
    if not [t for t in tokens if not t.startswith("facing=")]:
        raise RuleError(f"{c.name} has no movement left or no free hex to {verb} into; move done")
    _post(draft, handle, tokens)


def _post(draft: Draft, handle: str, words: list[str]) -> None:
    """A hex path in the Post Melee Move: the declared movement again (a
    Movement Abort adds a category), no engagement rules, through a prone
    figure (seed 002 "4) POST MELEE MOVE PHASE", "MOVEMENT ABORT")."""
    state = draft.state
    c = state.combatants[handle]
    pos = core.position(c)
    if pos is None:
        raise RuleError(f"{c.name} is not on the map; the GM places it first: affray act {handle} place Q,R")
    if not c.can_fight:
        raise RuleError(f"{c.name} cannot move now")
    if c.has("braced"):
        raise RuleError(f"{c.name} braced this round and cannot move in the Post Melee Move (seed 002)")
    if c.stance != "standing":
        raise RuleError(f"{c.name} is {c.stance} and cannot move; act {handle} stand if it may (seed 002 'FALLEN CHARACTERS')")
    allow, why, used = _post_allowance(state, c)
    mm = core.map_move(c)
    path, final, done = _split(words)
    _not_carrying(state, c, path)
    q, r, facing = pos
    spent = 0
    for nq, nr, nf, cost, token in _walk(state, c, pos, path, post=True):
        if used + spent + cost > allow:
            raise RuleError(f"{c.name} may move {allow - used} m in the Post Melee Move ({allow} m"
                            f"{', ' + why if why else ''}); the path comes to {spent + cost} m at {token!r}")
        spent += cost
        q, r, facing = nq, nr, nf
    if core.occupant(state, (q, r), but=handle) is not None:
        raise RuleError(f"{c.name} cannot end its move in hex {q},{r}: another figure lies there")
    if final is not None:
        if core.turns_between(facing, final) > 1:
            raise RuleError("the free facing shift turns one hex side")
        facing = final
    draft.emit(core.place_event(draft, handle, q, r, facing, "Post Melee Move"))
    core.drop_apart_closings(draft, handle, "stepped out of the hex")
    if spent:
        draft.emit(ev.CombatantMoved(handle=handle, distance=float(spent), reason="Post Melee Move"))
    core.carry_mount(draft, handle, q, r, facing, spent, "Post Melee Move")
    effects = dict(mm.effects) if mm is not None else {}
    effects["post-used"] = used + spent
    core.condition(draft, handle, "map-move", effects=effects, note=f"{used + spent} of {allow} m in the Post Melee Move")
    s = draft.state
    me = s.combatants[handle]
    for foe in me.engaged:  # ruling post_move_engagement: beyond the fighting distance, no longer engaged
        d = core.distance_between(s, handle, foe)
        if d is not None and d > max(1, core.reach(me, foe)):
            core.end_engagement(draft, handle, foe, "moved away")
    s = draft.state
    me = s.combatants[handle]
    for h, metres in _engagers(s, me, (q, r)) + _own_reach(s, me, (q, r), facing):
        if h not in draft.state.combatants[handle].engaged:
            draft.emit(ev.EngagementChanged(a=handle, b=h, engaged=True))
            draft.emit(*core.reach_events(draft, handle, h, metres))

