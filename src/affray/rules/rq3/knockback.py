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
up: ruling ``knockback_collision``), doubled against a solid object; the
creature or object hit is the GM's.
"""

from __future__ import annotations

import math

from affray.events import core as ev
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
    data = {"metres": m, "points": points, "threshold": threshold, "wall": wall, "mount": mount,
            "with-mount": metres(points, threshold + mount, braced) if mount else m, "standing": int(standing)}
    if not dice:
        _knocked(draft, target, m, points, threshold)
        return _end(draft)
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=target, verb="roll", kind="knockback", data=data, dice=tuple(dice),
        prompt=f"{t.name} is knocked back {m} m{' into the ' + wall if wall else ''}: affray roll"),)))


def _knocked(draft: Draft, target: str, m: int, points: int, threshold: int) -> None:
    x = draft.state.exchange
    draft.emit(ev.CombatantMoved(handle=target, distance=float(m), reason=f"knockback: {points} points against {threshold}",
                                 away_from=x.attacker if x else ""))


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
    _knocked(draft, target, m, points, threshold)
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
    breakfall = core.breakfall_step(draft.state, target, "melee") if fell else None
    if breakfall is not None:
        draft.emit(ev.StepsAwaited(steps=(breakfall,)))
        return
    _end(draft)


def _end(draft: Draft) -> None:
    core.end_exchange(draft)
