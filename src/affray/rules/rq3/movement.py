"""The Move Phase and the Post Melee Move, without a map (seed 002 "2) MOVE
PHASE", "RULES OF ENGAGEMENT", "MANEUVER SKILL", "FALLEN CHARACTERS",
"4) POST MELEE MOVE PHASE").

Positions are optional (DESIGN.md): what is tracked is who is engaged with
whom and at what fighting distance (``reach`` conditions, 1-3 m). In
movement initiative order (DEX) each fighter takes one step:

- ``move engage FOE``: become engaged, stopping at the range of the longest
  weapon FOE declared a Melee Attack with (1 m under 2 m long, 2 m from 2 m,
  3 m from 3 m). A mover whose own weapon is shorter may try to go on
  (a contest of Maneuver) to close to 1 m;
- ``move close FOE`` / ``move open FOE``: from a long weapon's range to
  1 m, or back out to it, on winning a contest of Maneuver; from 1 m (at
  the start of the Move Phase) against a longer weapon of 2 m or more,
  ``close`` goes into the wielder's hex: closed (a ``closed`` condition;
  within 1 m of a 3 m weapon one is closed already), and the long weapon
  cannot strike the closer (ruling ``closed_long_weapon``); ``open`` backs
  out to the longer weapon's range;
- ``move disengage FOE`` (or ``move pass FOE``, to go on past it): leave
  the engagement on winning the contest;
- ``move stand``: a fallen character gets up (prone to kneeling and to
  standing take a move each);
- ``move charge FOE``: an all-out lance charge (mounted, a lance attack
  declared on FOE): adjacent whatever FOE's weapon;
- ``move stay``; ``move wait``: delay the move until the others have
  moved (seed 002 "MOVEMENT INITIATIVE").

In the Post Melee Move engagement rules do not apply: ``withdraw FOE`` and
``approach FOE`` need no contest (a braced character cannot move). A figure
on the hex map walks them there (:mod:`affray.rules.rq3.mapmove`).
"""

from __future__ import annotations

from affray.events import core as ev
from affray.events import rq3 as rev
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.d100 import level_rank
from affray.rules.rq3 import core

PURPOSES = ("close", "open", "disengage", "pass")


def _moved(draft: Draft, handle: str, note: str, *, freed: bool = False) -> None:
    core.finish_move(draft, handle, note, freed=freed)
    draft.hand_over()


def _foe(draft: Draft, handle: str, words: list[str], verb: str):
    if len(words) < 2:
        raise RuleError(f"name the foe: move {verb} FOE")
    other = find_combatant(draft.state, words[1])
    if other == handle:
        raise RuleError(f"{draft.state.combatants[handle].name} cannot {verb} themself; name a foe")
    return other


def move(draft: Draft, handle: str, words: list[str]) -> None:
    """``move ...`` in the Move Phase (see the module docstring)."""
    state = draft.state
    core.expect(state, ("move",), handle, "move")
    c = state.combatants[handle]
    verb = words[0].lower() if words else "stay"
    if verb == "stay":
        return _moved(draft, handle, "stayed")
    if verb == "wait":
        waiting = [h for h, x in state.combatants.items() if x.can_fight and not x.has("moved") and h != handle]
        if c.has("move-waiting") or not waiting:
            raise RuleError(f"{c.name} has no one left to wait for; move now (seed 002 'MOVEMENT INITIATIVE')")
        core.condition(draft, handle, "move-waiting", note="moves after the lower DEX")
        draft.hand_over()
        return
    if verb == "stand":
        if c.stance == "standing":
            raise RuleError(f"{c.name} is already standing; move stay or another move")
        if c.has("fallen-this-round"):
            raise RuleError(f"{c.name} fell this round and cannot stand until the next Move Phase (seed 002)")
        intent = core.intent_of(c)
        if any(x.name in ("useless-limb", "severed") and "leg" in x.location for x in c.conditions):
            raise RuleError(f"{c.name} cannot stand on a useless leg; move stay")
        spent = ""
        if intent is not None and intent.effects.get("moves", 1) < 2:
            # seed 002 "FALLEN CHARACTERS": prone to standing takes two move actions, leaving "a single melee or move
            # action": a single move pays the second with one of its two melee actions
            spare = [d for d in core.declared(c) if not d.used and not d.abort]
            if len(spare) < 2:
                raise RuleError(f"standing takes two moves (prone, kneeling, standing); {c.name} declared a single move "
                                "and has no second action to give up for it (seed 002 'FALLEN CHARACTERS')")
            core.abort_events(draft, handle, spare[-1], "plain", "")
            spent = f"; gave up action {spare[-1].slot} ({spare[-1].kind}) for the second move"
        draft.emit(ev.StanceChanged(handle=handle, stance="standing",
                                    reason="stood up: two moves (prone, kneeling, standing)" + spent))
        mm = core.map_move(draft.state.combatants[handle])
        if mm is not None:  # on the hex map the two moves come off this Move Phase's allowance
            rate = core.mount_rate(draft.state, c) or core.sheet_of(c).move
            used = min(mm.effects.get("allow", 0), mm.effects.get("used", 0) + rate * (2 if not spent else 1))
            core.condition(draft, handle, "map-move", effects=dict(mm.effects, used=used),
                           note=f"{used} of {mm.effects.get('allow', 0)} m: stood up")
            if used < mm.effects.get("allow", 0) and not core.in_thirds(draft.state):
                draft.hand_over()  # the whole move: the metres left are walked in the same turn
                return
        return _moved(draft, handle, "stood up")
    if verb == "charge":
        return _lance_charge(draft, handle, words)
    if verb not in ("engage",) + PURPOSES:
        raise RuleError(f"unknown move {verb!r}; use engage, close, open, disengage, pass, charge, wait, stand or stay")
    if c.stance != "standing":
        raise RuleError(f"{c.name} is {c.stance}; a fallen character cannot force engagement; move stand first")
    other = _foe(draft, handle, words, verb)
    o = state.combatants[other]
    if verb == "engage":
        if core.on_map(state):
            raise RuleError("on the hex map engagement comes from where figures stand: move DIR... into "
                            f"{o.name}'s reach (affray act {handle} move e ne ...)")
        if other in c.engaged:
            raise RuleError(f"{c.name} is already engaged with {o.name}; move close, open or disengage")
        metres = core.engagement_range(core.longest_declared_weapon(o))
        draft.emit(ev.EngagementChanged(a=handle, b=other, engaged=True))
        draft.emit(*core.reach_events(draft, handle, other, metres))
        own = core.engagement_range(core.longest_declared_weapon(c))
        if metres > 1 and own < metres:
            # stopped at the longer weapon's range: a contest of Maneuver to go on
            return _contest_step(draft, handle, other, "close")
        return _moved(draft, handle, f"engaged {o.name} at {metres} m")
    if other not in c.engaged:
        raise RuleError(f"{c.name} is not engaged with {o.name}; move engage {other} first")
    now = core.reach(c, other)
    if verb == "close" and now <= 1:
        _may_close_in(state, c, o)
    if verb == "open":
        longer = max(core.engagement_range(core.longest_declared_weapon(x)) for x in (c, o))
        if now >= longer:
            raise RuleError(f"{c.name} and {o.name} are already at {now} m, the longer weapon's range")
    _contest_step(draft, handle, other, verb)


def _may_close_in(state, c, o) -> None:
    """Refuse closing from 1 m into ``o``'s hex unless ``o`` uses a longer
    weapon (2 m or more), ``c`` is not closed already, and ``c`` began the
    Move Phase adjacent to it (seed 002 "MANEUVER SKILL": "If a character
    begins a Move Phase adjacent to an opponent using a longer weapon ...
    Maneuver skill can be used to close with the longer weapon wielder")."""
    if core.is_closed(state, c, o):
        raise RuleError(f"{c.name} is already closed inside {o.name}'s reach (within 1 m of a 3 m weapon counts as "
                        f"closed); move open {o.handle} to back out to its range")
    if not core.long_weapon_against(c, o):
        raise RuleError(f"{c.name} is already within 1 m of {o.name}, who declared no weapon longer than {c.name}'s; "
                        "closing is against a long weapon (seed 002 'MANEUVER SKILL')")
    x = next((x for x in c.conditions if x.id == f"reach:{o.handle}"), None)
    if x is not None and x.since_round >= state.round:
        raise RuleError(f"{c.name} came within 1 m of {o.name} this round; closing into its hex needs to begin the Move "
                        "Phase adjacent (seed 002 'MANEUVER SKILL'); move done or move stay")


def _contest_step(draft: Draft, mover: str, other: str, purpose: str) -> None:
    s = draft.state
    a, b = s.combatants[mover], s.combatants[other]
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=mover, verb="roll", kind="maneuver", data={"against": other, "purpose": purpose},
        dice=(ev.DiceNeed(f"Maneuver: {a.name}", "1D100", by=mover), ev.DiceNeed(f"Maneuver: {b.name}", "1D100", by=other)),
        prompt=f"contest of Maneuver: {a.name} tries to {purpose} against {b.name}: affray roll"),)))


def _maneuver(draft: Draft, handle: str, against: str) -> str:
    """One side's Maneuver roll, +5% for every metre of basic movement rate
    above the opponent's (seed 002 "MANEUVER SKILL")."""
    s = draft.state
    c, o = s.combatants[handle], s.combatants[against]
    mine, theirs = core.sheet_of(c).move, core.sheet_of(o).move
    mods = (ev.Modifier(5 * (mine - theirs), "faster than the opponent"),) if mine > theirs else ()
    skill = "Ride" if c.has("mounted") else "Maneuver"  # seed 002: a mounted figure substitutes Ride
    return core.test(draft, handle, skill, core.skill_of(c, skill) + core.bonus(c), mods,
                     f"{skill}: {c.name} against {o.name}")


def roll_contest(draft: Draft, step: ev.PendingStep) -> None:
    """Roll a pending contest of Maneuver: the higher level of success wins,
    the same level changes nothing; a fumbling mover stops and loses the
    free facing shift (seed 002 "MANEUVER SKILL", ruling ``fumble_maneuver``)."""
    mover, against, purpose = step.who, str(step.data["against"]), str(step.data["purpose"])
    mine = _maneuver(draft, mover, against)
    theirs = _maneuver(draft, against, mover)
    won = level_rank(mine) > level_rank(theirs)
    lost = level_rank(mine) < level_rank(theirs)
    winner = mover if won else against if lost else ""
    draft.emit(rev.ManeuverContested(mover=mover, against=against, purpose=purpose, mover_level=mine,
                                     against_level=theirs, winner=winner))
    s = draft.state
    c, o = s.combatants[mover], s.combatants[against]
    if mine == "fumble":
        core.condition(draft, mover, "no-facing-shift", note="fumbled Maneuver")
    if won:
        order = core.movement_order(s)
        if order.index(mover) > order.index(against):
            # seed 002 "MOVE": the winner "gains movement initiative over the defeated target if he or she did not
            # already have it"
            core.condition(draft, mover, "initiative-over", key=against, note=f"moves before {o.name} this round")
        if purpose == "close" and core.reach(c, against) <= 1:
            # seed 002 "MANEUVER SKILL": "moving into the opponents hex, with the normal effect for closing against a
            # long weapon" (ruling closed_long_weapon)
            core.condition(draft, mover, "closed", ends="event", key=against,
                           note=f"closed inside {o.name}'s {core.longest_declared_weapon(o):g} m weapon")
            core.step_into(draft, mover, against, f"closes inside {o.name}'s reach")
        elif purpose == "close":
            draft.emit(*core.reach_events(draft, mover, against, 1))
            core.step_to(draft, mover, against, 1, f"closes with {o.name}")  # on the hex map: beside the foe
        elif purpose == "open":
            longer = max(core.engagement_range(core.longest_declared_weapon(x)) for x in (c, o))
            draft.emit(*core.reach_events(draft, mover, against, longer))
            core.step_to(draft, mover, against, longer, f"opens to {longer} m from {o.name}")
        elif purpose in ("disengage", "pass"):
            core.end_engagement(draft, mover, against, "disengaged")
    _moved(draft, mover, f"{purpose} against {o.name}: {'won' if won else 'lost' if lost else 'no change'}",
           freed=won and purpose in ("disengage", "pass"))


def post_move(draft: Draft, handle: str, words: list[str]) -> None:
    """``withdraw FOE`` or ``approach FOE`` in the Post Melee Move: no
    engagement rules, no contest; a braced character cannot move (seed 002
    "4) POST MELEE MOVE PHASE", "BRACING AGAINST KNOCKBACK")."""
    state = draft.state
    if core.phase(state) != "post":
        raise RuleError("withdraw and approach belong to the Post Melee Move, after every melee action")
    c = state.combatants[handle]
    if not c.can_fight:
        raise RuleError(f"{c.name} cannot move now")
    if c.has("braced"):
        raise RuleError(f"{c.name} braced this round and cannot move in the Post Melee Move (seed 002)")
    verb = words[0].lower()
    other = _foe(draft, handle, words, verb)
    o = state.combatants[other]
    if verb == "withdraw":
        if other not in c.engaged:
            raise RuleError(f"{c.name} is not engaged with {o.name}")
        core.end_engagement(draft, handle, other, "withdrew")
        draft.emit(ev.CombatantMoved(handle=handle, distance=float(core.sheet_of(c).move), reason="Post Melee Move",
                                     away_from=other))
    else:
        if other in c.engaged:
            raise RuleError(f"{c.name} is already engaged with {o.name}")
        draft.emit(ev.EngagementChanged(a=handle, b=other, engaged=True))
        draft.emit(*core.reach_events(draft, handle, other, 1))


def _charge_on_map(draft: Draft, handle: str, other: str) -> None:
    """On the hex map the charger rides to the free hex next to the foe
    nearest to it, facing the foe, within its Move Phase allowance (seed 002
    "Lance charge": "moving adjacent to the figure it is attacking,
    regardless of" its weapon; ruling ``mounted_map``). Nothing off the map."""
    state = draft.state
    c, o = state.combatants[handle], state.combatants[other]
    here, there = core.position(c), core.position(o)
    mm = core.map_move(c)
    if here is None or there is None or mm is None:
        return
    free = [core.neighbour(*there[:2], k) for k in range(6)]
    free = [h for h in free if core.occupant(state, h, but=handle) is None]
    if not free:
        raise RuleError(f"no free hex next to {o.name} to charge into")
    to = min(free, key=lambda h: (core.hex_distance(here[:2], h), h))
    cost = core.hex_distance(here[:2], to)
    left = mm.effects.get("allow", 0) - mm.effects.get("used", 0)
    if cost > left:
        raise RuleError(f"{c.name} has {left} m of movement left; {o.name}'s side is {cost} m away")
    facing = (min(range(6), key=lambda k: core.bearing(to, k, there[:2])))
    draft.emit(core.place_event(draft, handle, to[0], to[1], facing, "lance charge"))
    draft.emit(ev.CombatantMoved(handle=handle, distance=float(cost), reason=f"lance charge at {o.name}"))
    core.carry_mount(draft, handle, to[0], to[1], facing, cost, "lance charge")
    core.condition(draft, handle, "map-move", effects=dict(mm.effects, used=mm.effects.get("used", 0) + cost),
                   note=f"{mm.effects.get('used', 0) + cost} of {mm.effects.get('allow', 0)} m: lance charge")


def _lance_charge(draft: Draft, handle: str, words: list[str]) -> None:
    """``move charge FOE``: an all-out lance charge (seed 002 "Lance
    charge"): a mounted rider who declared a lance attack on FOE moves
    adjacent whatever FOE's weapon; this round the lance strikes before
    shorter weapons (a pike still first) with the mount's damage bonus."""
    state = draft.state
    c = state.combatants[handle]
    other = _foe(draft, handle, words, "charge")
    if not c.has("mounted"):
        raise RuleError(f"{c.name} is not mounted; a lance charge is made on a mount (affray mount)")
    lance = next((d for d in core.declared(c) if d.kind == "attack" and d.target in ("", other) and not d.used
                  and core.is_lance(core.weapon_of(c, d.weapon))), None)
    if lance is None:
        raise RuleError(f"{c.name} declared no lance attack on {state.combatants[other].name}; a charge needs one")
    _charge_on_map(draft, handle, other)
    if other not in c.engaged:
        draft.emit(ev.EngagementChanged(a=handle, b=other, engaged=True))
    draft.emit(*core.reach_events(draft, handle, other, 1))
    core.condition(draft, handle, "lance-charge", note=f"charges {state.combatants[other].name}")
    _moved(draft, handle, f"lance charge at {state.combatants[other].name}")
