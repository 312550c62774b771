"""Knockback and bracing (seed 002 "KNOCKBACK", "BRACING AGAINST
KNOCKBACK", "KNOCKBACK INTO SMALL OBJECTS, PEOPLE AND SOLID OBJECTS",
"Slam", "Bash"; ruling ``knockback_damage``).

Damage (rolled, damage modifier included, before armour) equal to or over
the target's SIZ knocks it back 1 m, plus 1 m for every 10 points over,
and it must roll DEX x5 (one multiple less per extra metre) to stay
standing. Blows that do not penetrate armour (all crushing blows, or a
slash or impale stopped by armour) count double; an impaling special that
impales and does damage knocks nobody back. A braced target is knocked
back only by damage over STR+SIZ. Slam and Bash give their own knockback
points (not doubled again).

A mounted target (``affray mount``) rolls Ride first: on a success its
mount's SIZ is added; it is knocked off if the Ride and DEX rolls both
fail, or if knocked back more than 1 m. Something behind the target
(``--situation wall`` on the attack, ``solid-wall`` for a wall or cliff):
another DEX x5 roll, and 1D6 to a random location per two metres (rounded
up: ruling ``knockback_collision``), doubled against a solid object.
A free-standing object (``wall``) takes its own 1D6 per two metres too
(recorded; its AP and HP are the GM's). Knocked into a creature
(``--situation into=WHO``, or on the hex map the first figure along the
line of the knockback, where the target stops): both roll DEX x5 to stay
standing and both take the 1D6 per two metres. On the map the target is
moved along the hex side nearest the line from the attacker through it.
"""

from __future__ import annotations

import math

from affray.events import core as ev
from affray.events import rq3 as rev
from affray.rules.base import Draft
from affray.rules.rq3 import core, tables


def metres(points: int, threshold: int, braced: bool) -> int:
    """Metres of knockback for ``points`` against ``threshold`` (SIZ, or
    STR+SIZ when braced: then the points must be higher): 0, or 1 plus 1
    for every full 10 points over."""
    if points < threshold or (braced and points == threshold):
        return 0
    return 1 + (points - threshold) // 10


def _mount_siz(t) -> int:
    return next((x.effects.get("siz", 0) for x in t.conditions if x.name == "mounted"), 0)


def check(draft: Draft, target: str, rolled: int, penetrated: int, mode: str, special: int = 0) -> None:
    """After damage: knockback, if any, and the rolls it calls for."""
    state = draft.state
    x = state.exchange
    t = state.combatants[target]
    ch = core.sheet_of(t).characteristics
    points = rolled
    if mode not in ("slam", "bash") and (mode == "crush" or not penetrated):
        points = 2 * rolled
    impaled = mode == "impale" and penetrated and special
    braced = t.has("braced")
    threshold = ch.STR + ch.SIZ if braced else ch.SIZ
    mount = _mount_siz(t)
    m = 0 if impaled or t.status == "dead" else metres(points, threshold, braced)
    if m == 0:
        return _end(draft)
    flags = core.kind_flags(x.kind) if x else set()
    wall = "solid-wall" if "solid-wall" in flags else "wall" if "wall" in flags else ""
    into = next((f.split("=", 1)[1] for f in flags if f.startswith("into=")), "")
    end, hit = _line(state, x.attacker, target, m) if x else (None, "")
    if hit and not into and not wall:
        into = hit  # on the map: the first figure along the line of the knockback
    standing = t.stance == "standing" and t.can_fight
    dice = []
    if mount:
        dice.append(ev.DiceNeed(f"Ride: {t.name} keeps the saddle", "1D100", by=target))
    if standing:
        dice.append(ev.DiceNeed(f"DEX x{max(1, 5 - (m - 1))}: {t.name} stays standing", "1D100", by=target))
    if wall:
        if standing:
            dice.append(ev.DiceNeed(f"DEX x5: {t.name} stays standing against the {wall}", "1D100", by=target))
        dice.append(ev.DiceNeed(f"hit location: {t.name} hits the {wall}", "1D20", by=target))
        dice.append(ev.DiceNeed(f"damage: {t.name} hits the {wall}", f"{math.ceil(m / 2)}D6", by=target))
        if wall == "wall":  # seed 002: a creature or free-standing object hit: "both take 1d6 damage"
            dice.append(ev.DiceNeed(f"damage: the object {t.name} hits", f"{math.ceil(m / 2)}D6", by=target))
    elif into:
        o = state.combatants[into]
        if standing:
            dice.append(ev.DiceNeed(f"DEX x5: {t.name} stays standing against {o.name}", "1D100", by=target))
        dice.append(ev.DiceNeed(f"hit location: {t.name} hits {o.name}", "1D20", by=target))
        dice.append(ev.DiceNeed(f"damage: {t.name} hits {o.name}", f"{math.ceil(m / 2)}D6", by=target))
        if o.stance == "standing" and o.can_fight:
            dice.append(ev.DiceNeed(f"DEX x5: {o.name} stays standing", "1D100", by=into))
        dice.append(ev.DiceNeed(f"hit location: {o.name} is hit by {t.name}", "1D20", by=into))
        dice.append(ev.DiceNeed(f"damage: {o.name} is hit by {t.name}", f"{math.ceil(m / 2)}D6", by=into))
    data = {"metres": m, "points": points, "threshold": threshold, "wall": wall, "mount": mount,
            "with-mount": metres(points, threshold + mount, braced) if mount else m, "standing": int(standing),
            "into": into}
    if end is not None:
        data.update({"q": end[0], "r": end[1]})
    if not dice:
        _knocked(draft, target, m, points, threshold, end)
        return _end(draft)
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=target, verb="roll", kind="knockback", data=data, dice=tuple(dice),
        prompt=f"{t.name} is knocked back {m} m{' into the ' + wall if wall else ''}: affray roll"),)))


def _line(state, attacker: str, target: str, m: int) -> tuple[tuple[int, int] | None, str]:
    """On the hex map, where ``m`` metres of knockback put the target, along
    the hex side nearest the line from the attacker through it (DESIGN.md:
    "Knockback moves a combatant along the line from the attacker through
    the target"), and the first figure in the way ("" if none): the target
    stops in front of it. ``(None, "")`` off the map."""
    a, t = core.position(state.combatants[attacker]), core.position(state.combatants[target])
    if a is None or t is None:
        return None, ""
    # in one hex (a figure closed inside a long weapon): along the attacker's facing
    side = a[2] if a[:2] == t[:2] else min(range(6), key=lambda k: core.bearing(a[:2], k, t[:2]))
    at = t[:2]
    for _ in range(m):
        nxt = core.neighbour(*at, side)
        other = core.occupant(state, nxt, but=target)
        if other is not None:
            return at, other.handle
        at = nxt
    return at, ""


def _knocked(draft: Draft, target: str, m: int, points: int, threshold: int, end: tuple[int, int] | None = None) -> None:
    x = draft.state.exchange
    draft.emit(ev.CombatantMoved(handle=target, distance=float(m), reason=f"knockback: {points} points against {threshold}",
                                 away_from=x.attacker if x else ""))
    if x is not None:  # knocked back out of a closing (seed 002 "MANEUVER SKILL")
        draft.emit(*core.unclose_events(draft.state, target, x.attacker, "knocked back"))
    here = core.position(draft.state.combatants[target])
    if end is not None and here is not None and end != here[:2]:
        draft.emit(core.place_event(draft, target, end[0], end[1], here[2], "knocked back"))
        core.carry_mount(draft, target, end[0], end[1], here[2], 0, "knockback")  # the pair is pushed together
    if here is not None and x is not None:
        # seed 002 "MOVE": the mover "can knock the intervening character down or aside in the Melee phase, and
        # then continue his or her movement in the Post Melee Move Phase"
        core.condition(draft, target, "knocked-aside", key=x.attacker, note=f"knocked aside by {x.attacker}")


def _fall(draft: Draft, target: str, why: str) -> None:
    if draft.state.combatants[target].stance != "prone":
        draft.emit(ev.StanceChanged(handle=target, stance="prone", reason=why))
    core.condition(draft, target, "fallen-this-round", note=why)


def roll(draft: Draft, step: ev.PendingStep) -> None:
    """The rolls of a knockback: Ride (mounted), DEX xN to stay standing,
    and against a wall a second DEX x5 and the collision damage."""
    target = step.who
    t = draft.state.combatants[target]
    ch = core.sheet_of(t).characteristics
    m, points, threshold = int(step.data["metres"]), int(step.data["points"]), int(step.data["threshold"])
    ride_ok = True
    if int(step.data.get("mount", 0)):
        ride_ok = core.succeeded(core.test(draft, target, "Ride", core.skill_of(t, "Ride"),
                                           purpose=f"knockback: {t.name} keeps the saddle"))
        if ride_ok:
            m, threshold = int(step.data["with-mount"]), threshold + int(step.data["mount"])
    if m == 0:
        return _end(draft)
    end = (int(step.data["q"]), int(step.data["r"])) if "q" in step.data else None
    if end is not None and m < int(step.data["metres"]):  # kept the saddle: the mount's SIZ shortens it
        end, _ = _line(draft.state, draft.state.exchange.attacker, target, m)
    _knocked(draft, target, m, points, threshold, end)
    dex_ok = True
    if int(step.data.get("standing", 0)):
        multiple = max(1, 5 - (m - 1))
        dex_ok = core.succeeded(core.test(draft, target, f"DEX x{multiple}", ch.DEX * multiple,
                                          purpose=f"knockback: {t.name} stays standing"))
    fell = False
    if int(step.data.get("mount", 0)) and ((not ride_ok and not dex_ok) or m > 1):
        mounted = next(x for x in t.conditions if x.name == "mounted")
        draft.emit(ev.ConditionExpired(handle=target, condition_id=mounted.id, reason="knocked off the mount"))
        _fall(draft, target, "knocked off the mount")
        fell = True
    elif not dex_ok:
        _fall(draft, target, "knocked down")
        fell = True
    wall = str(step.data.get("wall", ""))
    if wall:
        if int(step.data.get("standing", 0)) and dex_ok:
            if not core.succeeded(core.test(draft, target, "DEX x5", ch.DEX * 5,
                                            purpose=f"knockback: {t.name} stays standing against the {wall}")):
                _fall(draft, target, f"knocked against the {wall}")
                fell = True
        d20 = draft.roll("1D20", f"hit location: {t.name} hits the {wall}", by=target).total
        location = tables.hit_location(d20)
        amount = draft.roll(f"{math.ceil(m / 2)}D6", f"damage: {t.name} hits the {wall}", by=target).total
        amount *= 2 if wall == "solid-wall" else 1
        armour = min(amount, t.location(location).ap)
        x = draft.state.exchange
        draft.emit(ev.DamageDealt(exchange=x.id if x else 0, target=target, location=location, rolled=amount, reduced=0,
                                  armour=armour, final=amount - armour,
                                  note=f"knocked into the {wall}" + ("; doubled (solid)" if wall == "solid-wall" else "")))
        draft.then("wounds", target=target, location=location, final=amount - armour)
        if wall == "wall":
            _object_damaged(draft, target, m)
    into = str(step.data.get("into", ""))
    if into:
        fell = _collide(draft, target, into, m, first_dex_ok=dex_ok and bool(int(step.data.get("standing", 0)))) or fell
    breakfall = core.breakfall_step(draft.state, target, "melee") if fell else None
    if breakfall is not None:
        draft.emit(ev.StepsAwaited(steps=(breakfall,)))
        return
    _end(draft)


def _object_damaged(draft: Draft, target: str, m: int) -> None:
    """The free-standing object a knocked-back figure hit takes its own
    1D6 per two metres (seed 002 "KNOCKBACK INTO SMALL OBJECTS, PEOPLE AND
    SOLID OBJECTS": "both take 1d6 damage"; ruling ``knockback_collision``),
    recorded for the GM, who keeps the object's AP and HP (a solid wall
    takes none)."""
    name = draft.state.combatants[target].name
    amount = draft.roll(f"{math.ceil(m / 2)}D6", f"damage: the object {name} hits", by=target).total
    x = draft.state.exchange
    draft.emit(rev.SpecialApplied(exchange=x.id if x else 0, by=x.attacker if x else target, effect="object damaged",
                                  detail=f"the free-standing object {name} was knocked into takes {amount} damage"))


def _collide(draft: Draft, target: str, into: str, m: int, *, first_dex_ok: bool) -> bool:
    """The target knocked into a creature (seed 002 "KNOCKBACK INTO SMALL
    OBJECTS, PEOPLE AND SOLID OBJECTS"): another DEX x5 for the target, and
    for the creature hit ("as must the object, if it is a living or animate
    creature"); "both take 1d6 damage to a random location for every two
    meters of knockback" (ruling ``knockback_collision``), armour counting.
    Returns whether the target fell."""
    fell = False
    for who, other, dex_roll in ((target, into, first_dex_ok), (into, target, None)):
        c = draft.state.combatants[who]
        o = draft.state.combatants[other]
        ch = core.sheet_of(c).characteristics
        if dex_roll is None:
            dex_roll = c.stance == "standing" and c.can_fight
        if dex_roll:
            label = f"{c.name} stays standing against {o.name}" if who == target else f"{c.name} stays standing"
            if not core.succeeded(core.test(draft, who, "DEX x5", ch.DEX * 5, purpose=f"knockback: {label}")):
                _fall(draft, who, f"knocked down by {draft.state.combatants[target].name}'s knockback" if who == into
                      else f"knocked against {o.name}")
                fell = fell or who == target
        what = f"{c.name} hits {o.name}" if who == target else f"{c.name} is hit by {o.name}"
        d20 = draft.roll("1D20", f"hit location: {what}", by=who).total
        location = tables.hit_location(d20)
        amount = draft.roll(f"{math.ceil(m / 2)}D6", f"damage: {what}", by=who).total
        armour = min(amount, draft.state.combatants[who].location(location).ap)
        x = draft.state.exchange
        draft.emit(ev.DamageDealt(exchange=x.id if x else 0, target=who, location=location, rolled=amount, reduced=0,
                                  armour=armour, final=amount - armour, note=f"knockback: {what}"))
        draft.then("wounds", target=who, location=location, final=amount - armour)
    return fell


def _end(draft: Draft) -> None:
    core.end_exchange(draft)
