"""Mounted combat in mrq1.

Source: seed 004 "Mounted Combat" (untrained mounts and the Riding test each
round, weapon skill capped by Riding, +20%/−20% against footmen, prohibited
2H/Polearm/Staff weapons, the mount's Movement, re-rolled leg and head hit
locations), "Knockback" (the mount's SIZ added on a Riding test, else
knocked off) and "Dodge" (−30% mounted).

A mount is a combatant of its own (its sheet, ``war_trained`` false for an
untrained one); ``affray mount RIDER MOUNT`` puts the rider on it. Our
rulings: mounting or dismounting costs a combat action during a round and
nothing before one; the seed's exception "not if the target on foot is as
tall as the rider" is left to the GM (a --mod); a weapon with no ``group``
counts as 2H when it needs two hands; the fleeing mount carries its rider
away its Movement and both leave melee.
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.events import core as ev
from affray.events.mrq1 import RidingTested
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1.common import condition_modifiers, sheet_of, skill, test
from affray.rules.mrq1.sheet import Weapon

PROHIBITED = ("polearm", "staff")


def mount_of(c: Combatant) -> str:
    """The handle of the mount ``c`` rides ("" when on foot)."""
    return next((x.id.split(":", 1)[1] for x in c.conditions if x.name == "mounted"), "")


def rider_of(c: Combatant) -> str:
    """The handle of whoever rides ``c`` ("" when nobody does)."""
    return next((x.id.split(":", 1)[1] for x in c.conditions if x.name == "ridden"), "")


def on_foot(c: Combatant) -> bool:
    """Neither riding nor a ridden mount."""
    return not mount_of(c) and not rider_of(c)


def movement_of(state: State, handle: str) -> int:
    """Metres a combatant moves: his mount's Movement when mounted (seed 004)."""
    c = state.combatants[handle]
    m = mount_of(c)
    return state.combatants[m].movement if m else c.movement


def _group(w: Weapon) -> str:
    return w.group.strip().lower() or ("2h" if w.hands >= 2 else "")


def check_weapon(c: Combatant, w: Weapon) -> None:
    """A mounted warrior may not use weapons dependent on a 2H Weapon skill,
    Polearm or Staff (seed 004 "Mounted Combat")."""
    g = _group(w)
    if mount_of(c) and (g.startswith("2h") or g in PROHIBITED):
        raise RuleError(f"{c.name} is mounted and may not use {w.name} ({w.group or 'two-handed'}; seed 004 Mounted Combat); dismount or choose another weapon")


#: The situation that lifts the ±20% between a rider and a footman: "These
#: modifiers do not apply if the target on foot is as tall as the mounted
#: character is while mounted" (seed 004 "Mounted Combat"; the GM says so).
AS_TALL = "as-tall"


def skill_modifiers(
    state: State, me: str, other: str, w: Weapon | None, *, attacking: bool, as_tall: bool = False
) -> list[ev.Modifier]:
    """Mounted-combat modifiers for ``me`` attacking (or parrying, with
    ``w``; dodging, ``w`` None) against ``other``: the Riding cap on the
    weapon skill, +20% for a rider against a footman (attack or parry), −20%
    for a footman's reaction against a mounted attacker, −30% to a rider's
    Dodge. ``as_tall``: the footman is as tall as the rider, and the ±20%
    does not apply (seed 004 "Mounted Combat")."""
    c, o = state.combatants[me], state.combatants[other]
    mods: list[ev.Modifier] = []
    if mount_of(c):
        if w is not None:
            riding = skill(c, "Riding")
            if w.skill > riding:
                mods.append(ev.Modifier(riding - w.skill, f"mounted: {w.name} capped at Riding {riding}%"))
            if on_foot(o) and not as_tall:
                mods.append(ev.Modifier(20, "mounted against a foe on foot"))
        elif not attacking:
            mods.append(ev.Modifier(-30, "dodging while mounted"))
    elif not attacking and mount_of(o) and on_foot(c) and not as_tall:
        mods.append(ev.Modifier(-20, "on foot against a mounted attacker"))
    return mods


def check_attack(state: State, attacker: str, target: str, weapon: str) -> None:
    """Refuse a prohibited weapon for a mounted attacker, or an attack by a
    mount that flees."""
    from affray.rules.mrq1.common import default_weapon, find_weapon

    c = state.combatants[attacker]
    if c.has("mount-fleeing"):
        raise RuleError(f"{c.name} is fleeing this round and may only flee (seed 004 Untrained Mounts)")
    if mount_of(c):
        check_weapon(c, find_weapon(c, weapon, ready_only=False) if weapon else default_weapon(c))


def excluded_locations(state: State) -> tuple[str, ...]:
    """Hit locations re-rolled for the open exchange (seed 004 "Hit
    Locations in Mounted Combat"): legs, for a mounted attacker against a
    footman unless his weapon depends on the Spear skill; the head, for a
    footman against a mounted foe unless his weapon is Spear, Polearm or 2H."""
    from affray.rules.mrq1.common import find_weapon

    x = state.exchange
    if x is None:
        return ()
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    try:
        g = _group(find_weapon(a, x.weapon, ready_only=False))
    except RuleError:
        g = ""
    if mount_of(a) and on_foot(t) and g != "spear":
        return ("right leg", "left leg")
    if on_foot(a) and mount_of(t) and not (g == "spear" or g in PROHIBITED or g.startswith("2h")):
        return ("head",)
    return ()


class RerollLocations:
    """The command's dice, with a hit location that falls on an excluded
    location rolled again; the discarded roll stays on record."""

    def __init__(self, draft: Draft, excluded: tuple[str, ...], target: Combatant) -> None:
        self.draft, self.inner, self.excluded, self.target = draft, draft.dice, excluded, target

    def roll(self, expr, purpose: str, by: str = "") -> ev.DiceRolled:
        rolled = self.inner.roll(expr, purpose, by=by)
        for _ in range(100):
            if not purpose.startswith("hit location") or _where(self.target, rolled.total) not in self.excluded:
                return rolled
            where = _where(self.target, rolled.total)
            self.draft.emit(replace(rolled, purpose=f"hit location ({where}: re-rolled, mounted combat)"))
            rolled = self.inner.roll(expr, f"hit location re-roll ({where} does not count in mounted combat)", by=by)
        return rolled

    def __getattr__(self, name):
        return getattr(self.inner, name)


def _where(t: Combatant, d20: int) -> str:
    return next((l.name for l in t.locations if l.low <= d20 <= l.high), "")


# --------------------------------------------------------------------------- #
# Mounting, untrained mounts, knockback
# --------------------------------------------------------------------------- #


def mount(draft: Draft, rider: str, mount_handle: str, off: bool) -> None:
    """Get on or off a mount: during a round, on the rider's turn, and a
    Combat Action unless ruling ``mount_costs_action`` is false (seed 004
    "Mounted Combat" is silent on the cost)."""
    from affray.rules.mrq1.rulings import from_mapping

    state = draft.state
    c = state.combatants[rider]
    costs = state.phase == "round" and from_mapping(state.rulings).mount_costs_action
    if state.phase == "round":
        from affray.rules.mrq1.attack import _require_turn

        _require_turn(state, rider)
    at = dict(cause=draft.next_version, round=state.round, step=state.step)
    if off:
        m = mount_of(c)
        if not m:
            raise RuleError(f"{c.name} is not mounted")
        if costs:
            draft.emit(ev.ActionSpent(handle=rider, kind="combat-action", reason="dismount"))
        _dismount(draft, rider, "dismounts")
    else:
        if mount_of(c):
            raise RuleError(f"{c.name} already rides {state.combatants[mount_of(c)].name}")
        m = state.combatants[mount_handle]
        if m.handle == rider or rider_of(m) or mount_of(m):
            raise RuleError(f"{m.name} cannot carry {c.name} now")
        if m.side != c.side:
            raise RuleError(f"{m.name} fights for side {m.side}; a rider mounts a beast of his own side")
        if costs:
            draft.emit(ev.ActionSpent(handle=rider, kind="combat-action", reason=f"mount {m.name}"))
        draft.emit(ev.ConditionApplied(handle=rider, condition=cat.make(
            "mounted", ends="event", suffix=m.handle, effects={"mounted": 1}, note=f"on {m.name}", **at)))
        draft.emit(ev.ConditionApplied(handle=m.handle, condition=cat.make(
            "ridden", ends="event", suffix=rider, effects={"ridden": 1}, note=f"by {c.name}", **at)))
    if state.phase == "round":
        from affray.rules.mrq1.attack import end_exchange

        end_exchange(draft, "mount")


def dismount(draft: Draft, rider: str, reason: str) -> None:
    """End the ``mounted``/``ridden`` pair of ``rider`` (no action spent:
    knocked off, thrown, or diving from the saddle)."""
    _dismount(draft, rider, reason)


def _dismount(draft: Draft, rider: str, reason: str) -> None:
    c = draft.state.combatants[rider]
    m = mount_of(c)
    for h, name in ((rider, "mounted"), (m, "ridden")):
        for x in draft.state.combatants[h].conditions:
            if x.name == name:
                draft.emit(ev.ConditionExpired(handle=h, condition_id=x.id, reason=reason))


def riding_steps(draft: Draft) -> None:
    """After a round starts: a Riding test for every rider of an untrained
    mount, before anyone acts (seed 004 "Untrained Mounts")."""
    state = draft.state
    steps = []
    for c in state.combatants.values():
        m = mount_of(c)
        if m and c.status == "active" and not sheet_of(state.combatants[m]).war_trained:
            steps.append(ev.PendingStep(
                who=c.handle, verb="roll", kind="riding", dice=(ev.DiceNeed("Riding (untrained mount)", "1D100", by=c.handle),),
                data={"mount": m},
                prompt=f"{c.name}: Riding test, or {state.combatants[m].name} (untrained) flees this round",
            ))
    if steps:
        draft.emit(ev.StepsAwaited(steps=tuple(steps) + state.pending))


def roll_riding(draft: Draft, step: ev.PendingStep, rest) -> None:
    c = draft.state.combatants[step.who]
    m = draft.state.combatants[str(step.data["mount"])]
    tested = test(draft, c, "Riding", skill(c, "Riding"), condition_modifiers(c), f"Riding: keep {m.name} in the fight")
    ok = tested.result in ("success", "critical")
    draft.emit(RidingTested(handle=c.handle, mount=m.handle, success=ok))
    if not ok:
        draft.emit(ev.ConditionApplied(handle=m.handle, condition=cat.make(
            "mount-fleeing", cause=draft.state.version, round=draft.state.round, step=draft.state.step,
            ends="round-end", effects={"fleeing": 1}, note=f"{c.name} failed his Riding test")))
        fleeing = draft.state.combatants[m.handle]
        rest = tuple(flee_step(draft.state, fleeing) if s.who == m.handle and s.kind == "turn" else s for s in rest)
    draft.emit(ev.StepsAwaited(steps=tuple(rest)))


def flee_step(state: State, c: Combatant) -> ev.PendingStep | None:
    """A fleeing mount's turn: flee (seed 004: "at every opportunity")."""
    if not c.has("mount-fleeing"):
        return None
    return ev.PendingStep(who=c.handle, verb="act", kind="turn", options=("flee",),
                          prompt=f"{c.name} flees (untrained mount): act {c.handle} flee")


def flee(draft: Draft, who: str) -> None:
    """The untrained mount flees its Movement, carrying its rider; both
    leave melee."""
    from affray.rules.mrq1.attack import _require_turn, end_exchange

    c = _require_turn(draft.state, who)
    draft.emit(ev.ActionSpent(handle=who, kind="combat-action", reason="flee"))
    riders = [h for h in (rider_of(c),) if h]
    for h in [who] + riders:
        draft.emit(ev.CombatantMoved(handle=h, distance=float(c.movement), reason="the untrained mount flees"))
        for other in draft.state.combatants[h].engaged:
            if other not in (who, *riders):
                draft.emit(ev.EngagementChanged(a=h, b=other, engaged=False))
    end_exchange(draft, f"{c.name} flees")


def knockback_siz(draft: Draft, handle: str, siz: int, damage: int) -> int:
    """The SIZ knockback is measured against (seed 004 "Knockback"): a
    mounted character adds his mount's SIZ on a successful Riding test; on a
    failure his own SIZ counts and any knockback unhorses him (prone)."""
    c = draft.state.combatants[handle]
    m = mount_of(c)
    if not m or damage <= siz:
        return siz
    tested = test(draft, c, "Riding", skill(c, "Riding"), condition_modifiers(c), "Riding: stay mounted against knockback")
    if tested.result in ("success", "critical"):
        return siz + sheet_of(draft.state.combatants[m]).characteristics.SIZ
    _dismount(draft, handle, "knocked off his mount")
    if c.stance != "prone":
        draft.emit(ev.StanceChanged(handle=handle, stance="prone", reason="knocked off his mount"))
    return siz
