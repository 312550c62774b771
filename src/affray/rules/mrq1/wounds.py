"""Wounds in mrq1: where a blow lands, what its wound does, and the
Resilience tests that follow.

Source: seed 004 "Hit Locations" and the wound rules under it (Minor,
Serious and Major Wounds, "One Useless or Missing Arm"); rules-reference E
rulings (location table, Resilience, Major Wound boundary); ruling
``hands``.

Steps: ``wounds:wound`` (:func:`wound_step`, queued after any damage that
gets through armour), ``roll:wound`` (the wound's dice, :func:`roll_wound`)
and ``roll:retest`` (the end-of-round re-tests, :func:`roll_retest`; after
the last one, ``round:retests-done`` in :mod:`.turns`); ``wounds:first-aid``
(:func:`first_aid`, after a successful First Aid test); ``wounds:recovered``
(:func:`recovered`, after the GM sets or restores hit points).
"""

from __future__ import annotations

from affray.events import core as ev
from affray.rules.base import Draft
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1 import tables
from affray.rules.mrq1.core import (
    FIRST_AID_ENDS,
    carry_on,
    condition_modifiers,
    lose_actions,
    rulings_of,
    sheet_of,
    skill,
    test,
)


def wound(draft: Draft, handle: str, location: str, exchange: int) -> list[ev.PendingStep]:
    """Apply a wound's immediate, dice-free effects; return the steps for
    the ones that need dice (seed 004 "Hit Locations")."""
    state = draft.state
    c = state.combatants[handle]
    loc = c.location(location)
    severity = tables.wound_severity(loc.hp, loc.max_hp, rulings_of(state))
    if severity == "none":
        return []
    cause = draft.next_version
    draft.emit(ev.WoundInflicted(target=handle, location=location, severity=severity, exchange=exchange))
    at = dict(cause=cause, round=state.round, step=draft.state.step)
    steps: list[ev.PendingStep] = []
    label = f"{severity.capitalize()} Wound to the {location}"
    if severity == "minor":
        lose_actions(draft, handle, 1, label, at)
        return steps
    dice = []
    if severity == "serious":
        dice.append(ev.DiceNeed("combat actions lost", "1D4", by=handle))
    if loc.limb:
        name = "useless-limb" if severity == "serious" else "severed-limb"
        draft.emit(
            ev.ConditionApplied(
                handle=handle,
                condition=cat.make(name, ends="event", location=location, effects={"useless-limb": 1}, note=label, **at),
            )
        )
        if loc.limb == "leg" or severity == "major":
            if draft.state.combatants[handle].stance != "prone":
                draft.emit(ev.StanceChanged(handle=handle, stance="prone", reason=label))
        if loc.limb == "arm":
            drop_from_arm(draft, handle, location, label)
    tests = []
    if severity == "major" and not loc.limb:
        tests.append("death")
    if severity == "major" or not loc.limb:
        tests.append("consciousness")
    for t in tests:
        dice.append(ev.DiceNeed(f"Resilience ({t})", "1D100", by=handle))
    if severity == "major":
        cp = sheet_of(c).characteristics.CON + sheet_of(c).characteristics.POW
        rounds = cp if loc.limb else cp // 2
        draft.emit(
            ev.ConditionApplied(
                handle=handle,
                condition=cat.make(
                    "bleeding-out", ends="rounds", count=rounds, location=location, note=label, **at
                ),
            )
        )
    what = []
    if severity == "serious":
        what.append("loses the next 1D4 combat actions")
    what += ["Resilience test or die" if t == "death" else "Resilience test or fall unconscious" for t in tests]
    steps.append(
        ev.PendingStep(
            who=handle,
            verb="roll",
            kind="wound",
            prompt=f"{c.name}: {label}: {'; '.join(what)}",
            dice=tuple(dice),
            exchange=exchange,
            data={"location": location, "severity": severity, "tests": ",".join(tests)},
        )
    )
    return steps


def drop_from_arm(draft: Draft, handle: str, location: str, label: str) -> None:
    """A useless arm drops what its hand holds (seed 004 "One Useless or
    Missing Arm"); a two-handed weapon is dropped by either arm. Ruling
    ``hands``: a shield is held in the left hand, other weapons in the right
    (a second non-shield weapon in the left)."""
    c = draft.state.combatants[handle]
    weapons = {w.name: w for w in sheet_of(c).weapons}
    held = [weapons[name] for name in c.ready if name in weapons]
    shields = [w for w in held if w.kind == "shield"]
    others = [w for w in held if w.kind != "shield"]
    if location.startswith("right"):
        in_hand = others[:1]
    else:
        in_hand = shields[:1] or others[1:2]
    in_hand += [w for w in held if w.hands >= 2 and w not in in_hand]
    for w in in_hand:
        draft.emit(ev.WeaponDropped(handle=handle, weapon=w.name, reason=label))


def wound_step(draft: Draft, handle: str, location: str, exchange: int, follow: list[ev.PendingStep]) -> None:
    """The step ``wounds:wound``: :func:`wound`, its pending steps added to
    ``follow`` (the steps the blow leaves pending)."""
    follow.extend(wound(draft, handle, location, exchange))


def roll_wound(draft: Draft, step: ev.PendingStep, rest: tuple[ev.PendingStep, ...]) -> None:
    """The step ``roll:wound``: a Serious Wound's 1D4 Combat Actions lost, and its
    Resilience tests (seed 004 "Serious Wound", "Major Wound")."""
    handle = step.who
    c = draft.state.combatants[handle]
    severity = str(step.data["severity"])
    location = str(step.data["location"])
    label = f"{severity.capitalize()} Wound to the {location}"
    at = dict(cause=draft.next_version, round=draft.state.round, step=draft.state.step)
    if severity == "serious":
        n = draft.roll("1D4", "combat actions lost", by=handle).total
        lose_actions(draft, handle, n, label, at)
    tests = [t for t in str(step.data.get("tests", "")).split(",") if t]
    for t in tests:
        resilience(draft, handle, t, label, location)
    carry_on(draft, rest, f"{c.name}: {label}")


def resilience(draft: Draft, handle: str, which: str, label: str, location: str) -> str:
    """A Resilience test (rules-reference E: an ordinary skill test). On a
    failure the bearer dies (``death``) or falls unconscious; on a success
    the test is due again at each round's end while the wound stands."""
    c = draft.state.combatants[handle]
    mods = condition_modifiers(c)
    tested = test(draft, c, "Resilience", skill(c, "Resilience"), mods, f"Resilience ({which}): {label}")
    passed = tested.result in ("success", "critical")
    cond_name = "death-test" if which == "death" else "resilience-retest"
    at = dict(cause=draft.state.version, round=draft.state.round, step=draft.state.step)
    if c.status == "dead":
        return "moot"
    if not passed:
        if which == "death":
            draft.emit(ev.StatusChanged(handle=handle, status="dead", reason=f"failed Resilience: {label}"))
        elif c.status == "active":
            draft.emit(ev.StatusChanged(handle=handle, status="unconscious", reason=f"failed Resilience: {label}"))
            draft.emit(
                ev.ConditionApplied(
                    handle=handle,
                    condition=cat.make("unconscious", ends="event", effects={"helpless": 1}, note=label, **at),
                )
            )
        return "failed"
    if not any(x.name == cond_name and x.location == location for x in draft.state.combatants[handle].conditions):
        draft.emit(
            ev.ConditionApplied(
                handle=handle,
                condition=cat.make(cond_name, ends="event", location=location, note=label, **at),
            )
        )
    return "passed"


def roll_retest(draft: Draft, step: ev.PendingStep, rest: tuple[ev.PendingStep, ...]) -> None:
    """The step ``roll:retest``: the Resilience test due again at a round's end while the wound stands;
    none once the location is back to 1 HP (seed 004 "Serious Wound",
    "Major Wound")."""
    handle = step.who
    c = draft.state.combatants[handle]
    cond = next((x for x in c.conditions if x.id == step.data["condition"]), None)
    label = cond.note if cond else "wound"
    if cond is not None and c.location(cond.location).hp >= 1:
        draft.emit(ev.ConditionExpired(handle=handle, condition_id=cond.id, reason="the location recovered"))
    else:
        resilience(draft, handle, str(step.data["test"]), label, cond.location if cond else "")
    if not rest:
        draft.then("round:retests-done")
        return
    draft.emit(ev.StepsAwaited(steps=rest))


#: The wound conditions that end once their location is "restored to 1 hit
#: point or more" (seed 004 "Serious Wound", "Major Wound"). A severed or
#: mangled limb stays so.
RECOVERY_ENDS = ("useless-limb", "resilience-retest", "death-test", "bleeding-out")


def recovered(draft: Draft, handle: str) -> None:
    """The step ``wounds:recovered``: after the GM sets or restores hit
    points (``affray set``, ``affray heal``), every location of ``handle``
    back at 1 HP or more ends its wound conditions. Seed 004 "Serious
    Wound", Limbs: "A limb will be rendered useless by a Serious Wound,
    until the location is restored to 1 hit point or more"; the Resilience
    re-tests run "until the location is restored to 1 hit point or more";
    "Major Wound": "If the location does not recover within ..." (the blood
    loss count). A severed limb stays severed, and a character two useless
    legs left prone stays prone until he stands. An end-of-round re-test
    already awaited for an ended condition is dropped (after the last, the
    round goes on: ``round:retests-done``)."""
    c = draft.state.combatants[handle]
    ended = set()
    for cond in c.conditions:
        if cond.name in RECOVERY_ENDS and cond.location and c.location(cond.location).hp >= 1:
            draft.emit(ev.ConditionExpired(handle=handle, condition_id=cond.id, reason="the location recovered"))
            ended.add(cond.id)
    pending = draft.state.pending
    keep = tuple(s for s in pending if not (s.kind == "retest" and s.who == handle and s.data.get("condition") in ended))
    if len(keep) == len(pending):
        return
    if any(s.kind == "retest" for s in keep):
        draft.emit(ev.StepsAwaited(steps=keep))
    else:
        draft.then("round:retests-done")


def first_aid(draft: Draft, healer: str, patient: str, location: str) -> None:
    """The step ``wounds:first-aid``: a successful First Aid on ``patient``'s
    ``location`` ends what seed 004 says First Aid ends. "Serious Wound": a
    limb is useless "until the location is restored to 1 hit point or more,
    or if the character receives First Aid", and the Resilience test is
    "repeated at the end of every Combat Round, until the location is
    restored to 1 hit point or more, or the character receives First Aid";
    "Major Wound": the same for its re-tests (both of them, for the
    abdomen, chest or head). A severed or mangled limb stays so. The blood
    loss countdown ends under ruling ``first_aid_stops_bleeding``. The seed
    gives First Aid no hit points to restore: location HP are left as they
    are (the GM sets them with a reason)."""
    p = draft.state.combatants[patient]
    name = draft.state.combatants[healer].name
    stops_bleeding = rulings_of(draft.state).first_aid_stops_bleeding
    ended = []
    for cond in p.conditions:
        if cond.location != location or cond.name not in FIRST_AID_ENDS:
            continue
        if cond.name == "bleeding-out" and not stops_bleeding:
            continue
        draft.emit(ev.ConditionExpired(handle=patient, condition_id=cond.id, reason=f"First Aid by {name}"))
        ended.append(cond.name)
    what = ", ".join(ended) or "nothing it could end"
    draft.emit(ev.NoteAdded(text=f"{name}'s First Aid on {p.name}'s {location} ends: {what}"))
