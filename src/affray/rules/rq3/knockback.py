"""Knockback and bracing (seed 002 "KNOCKBACK", "BRACING AGAINST
KNOCKBACK", "Slam", "Bash"; ruling ``knockback_damage``).

Damage (rolled, damage modifier included, before armour) equal to or over
the target's SIZ knocks it back 1 m, plus 1 m for every 10 points over,
and it must roll DEX x5 (one multiple less per extra metre) to stay
standing. Blows that do not penetrate armour (all crushing blows, or a
slash or impale stopped by armour) count double; an impaling special that
impales and does damage knocks nobody back. A braced target is knocked
back only by damage over STR+SIZ. Slam and Bash give their own knockback
points (not doubled again).
"""

from __future__ import annotations

from affray.events import core as ev
from affray.rules.base import Draft
from affray.rules.rq3 import core


def metres(points: int, threshold: int, braced: bool) -> int:
    """Metres of knockback for ``points`` against ``threshold`` (SIZ, or
    STR+SIZ when braced: then the points must be higher): 0, or 1 plus 1
    for every full 10 points over."""
    if points < threshold or (braced and points == threshold):
        return 0
    return 1 + (points - threshold) // 10


def check(draft: Draft, target: str, rolled: int, penetrated: int, mode: str, special: int = 0) -> None:
    """After damage: knockback, if any, and the DEX roll to stay standing."""
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
    m = 0 if impaled or t.status == "dead" else metres(points, threshold, braced)
    if m == 0:
        return _end(draft)
    draft.emit(ev.CombatantMoved(handle=target, distance=float(m), reason=f"knockback: {points} points against {threshold}",
                                 away_from=x.attacker if x else ""))
    if t.stance != "standing" or not t.can_fight:
        return _end(draft)
    multiple = max(1, 5 - (m - 1))
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=target, verb="roll", kind="knockback", data={"multiple": multiple, "metres": m},
        dice=(ev.DiceNeed(f"DEX x{multiple}: {t.name} stays standing", "1D100", by=target),),
        prompt=f"{t.name} is knocked back {m} m: DEX x{multiple} to stay standing: affray roll"),)))


def roll(draft: Draft, step: ev.PendingStep) -> None:
    """The DEX xN roll: a failure knocks the target down."""
    t = draft.state.combatants[step.who]
    ch = core.sheet_of(t).characteristics
    multiple = int(step.data["multiple"])
    level = core.test(draft, t.handle, f"DEX x{multiple}", ch.DEX * multiple, purpose=f"knockback: {t.name} stays standing")
    if not core.succeeded(level):
        draft.emit(ev.StanceChanged(handle=t.handle, stance="prone", reason="knocked down"))
        core.condition(draft, t.handle, "fallen-this-round", note="knocked down")
    _end(draft)


def _end(draft: Draft) -> None:
    x = draft.state.exchange
    if x is not None:
        draft.emit(ev.ExchangeEnded(exchange=x.id, summary=""))
    draft.hand_over()
