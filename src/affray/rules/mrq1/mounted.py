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

Here: mounting, the Riding tests of untrained mounts (after a command that
starts a round: ``mounted:riding-tests``; ``roll:riding``), fleeing, and the
re-rolled hit locations (:class:`RerollLocations`, the dice of an ``affray
roll`` for damage). The queries the other rules share (who rides whom, the
mounted modifiers and weapon checks) are in :mod:`.core`; the mount's SIZ
against knockback is in :mod:`.knockback`, the dive from the saddle in
:mod:`.area`.
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.events import core as ev
from affray.events.mrq1 import RidingTested
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1.core import (
    PROHIBITED,
    condition_modifiers,
    dismount,
    end_exchange,
    find_weapon,
    flee_step,
    mount_of,
    on_foot,
    require_turn,
    rider_of,
    rulings_of,
    sheet_of,
    skill,
    test,
    weapon_group,
)

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


def excluded_locations(state: State) -> tuple[str, ...]:
    """Hit locations re-rolled for the open exchange (seed 004 "Hit
    Locations in Mounted Combat"): legs, for a mounted attacker against a
    footman unless his weapon depends on the Spear skill; the head, for a
    footman against a mounted foe unless his weapon is Spear, Polearm or 2H."""
    x = state.exchange
    if x is None:
        return ()
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    try:
        g = weapon_group(find_weapon(a, x.weapon, ready_only=False))
    except RuleError:
        g = ""
    if mount_of(a) and on_foot(t) and g != "spear":
        return ("right leg", "left leg")
    if on_foot(a) and mount_of(t) and not (g == "spear" or g in PROHIBITED or g.startswith("2h")):
        return ("head",)
    return ()


def reroll_excluded_locations(draft: Draft) -> None:
    """Before an ``affray roll`` whose first pending roll is the damage
    roll: wrap the command's dice in :class:`RerollLocations` when mounted
    combat excludes hit locations (seed 004 "Hit Locations in Mounted
    Combat")."""
    state = draft.state
    first = next((s for s in state.pending if s.verb == "roll"), None)
    excluded = excluded_locations(state) if first is not None and first.kind == "damage" else ()
    if excluded:
        draft.dice = RerollLocations(draft, excluded, state.combatants[state.exchange.target])


def _where(t: Combatant, d20: int) -> str:
    return next((l.name for l in t.locations if l.low <= d20 <= l.high), "")


# --------------------------------------------------------------------------- #
# Mounting, untrained mounts, knockback
# --------------------------------------------------------------------------- #


def mount(draft: Draft, rider: str, mount_handle: str, off: bool) -> None:
    """Get on or off a mount: during a round, on the rider's turn, and a
    Combat Action unless ruling ``mount_costs_action`` is false (seed 004
    "Mounted Combat" is silent on the cost)."""
    state = draft.state
    c = state.combatants[rider]
    costs = state.phase == "round" and rulings_of(state).mount_costs_action
    if state.phase == "round":
        require_turn(state, rider)
    at = dict(cause=draft.next_version, round=state.round, step=state.step)
    if off:
        m = mount_of(c)
        if not m:
            raise RuleError(f"{c.name} is not mounted")
        if costs:
            draft.emit(ev.ActionSpent(handle=rider, kind="combat-action", reason="dismount"))
        dismount(draft, rider, "dismounts")
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
        end_exchange(draft, "mount")


def riding_steps(draft: Draft) -> None:
    """The step ``mounted:riding-tests``, after a command: when it started a
    round, a Riding test for every rider of an untrained mount, before
    anyone acts (seed 004 "Untrained Mounts")."""
    if not any(isinstance(e, ev.RoundStarted) for e in draft.events):
        return
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
    """The step ``roll:riding``: the Riding test that keeps an untrained
    mount in the fight; on a failure it flees this round (seed 004
    "Untrained Mounts")."""
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


def flee(draft: Draft, who: str) -> None:
    """The untrained mount flees its Movement, carrying its rider; both
    leave melee."""
    c = require_turn(draft.state, who)
    draft.emit(ev.ActionSpent(handle=who, kind="combat-action", reason="flee"))
    riders = [h for h in (rider_of(c),) if h]
    for h in [who] + riders:
        draft.emit(ev.CombatantMoved(handle=h, distance=float(c.movement), reason="the untrained mount flees"))
        for other in draft.state.combatants[h].engaged:
            if other not in (who, *riders):
                draft.emit(ev.EngagementChanged(a=h, b=other, engaged=False))
    end_exchange(draft, f"{c.name} flees")


