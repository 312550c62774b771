"""Small shared helpers of the mrq1 rules: sheets, weapons, tests, modifiers."""

from __future__ import annotations


import msgspec

from affray.events import core as ev
from affray.projections.state import Combatant
from affray.rules.base import Draft, RuleError, rulings_reader, unreadable_sheet
from affray.rules.mrq1 import tables
from affray.rules.mrq1.rulings import from_mapping
from affray.rules.mrq1.sheet import Sheet, Weapon

TORSO = ("abdomen", "chest", "head")
#: Weapon kinds that need no Ready Weapon action: fists, claws, teeth.
ALWAYS_READY = ("unarmed", "natural")


#: ``rulings_of(state)``: the encounter's rulings (defaults filled in).
rulings_of = rulings_reader(from_mapping)


def sheet_of(c: Combatant) -> Sheet:
    """The combatant's sheet as the typed :class:`Sheet`. Raises
    :class:`RuleError` (one line) for a stored sheet this affray cannot read
    (a field from a newer affray, or a log edited by hand)."""
    try:
        return msgspec.convert(c.sheet, Sheet)
    except msgspec.ValidationError as exc:
        raise unreadable_sheet(c.name, exc) from None


def ordinal(n: int) -> str:
    """1 -> '1st', 2 -> '2nd' ..."""
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n if n < 20 else n % 10, 'th') }".replace(" ", "")


def find_weapon(c: Combatant, name: str, *, ready_only: bool = True, kinds: tuple[str, ...] = ()) -> Weapon:
    """The weapon ``name`` (or unambiguous prefix) the combatant holds.

    Raises :class:`RuleError` naming what is held when it is unknown or not
    ready.
    """
    weapons = [w for w in sheet_of(c).weapons if not kinds or w.kind in kinds]
    wanted = name.strip().lower()
    hits = [w for w in weapons if w.name.lower() == wanted] or [
        w for w in weapons if w.name.lower().startswith(wanted)
    ]
    held = ", ".join(c.ready) or "nothing"
    if not hits:
        names = ", ".join(w.name for w in weapons) or "none"
        raise RuleError(f"{c.name} has no weapon called {name!r} (weapons: {names})")
    if len(hits) > 1:
        raise RuleError(f"{name!r} could mean {', '.join(w.name for w in hits)}; give the full name")
    w = hits[0]
    if ready_only and w.name not in c.ready and w.kind not in ALWAYS_READY:
        raise RuleError(f"{c.name} does not hold {w.name} ready (ready: {held})")
    return w


def default_weapon(c: Combatant) -> Weapon:
    """The first ready weapon that can attack (not a shield, unless only
    shields are held); with nothing held, an unarmed or natural weapon."""
    weapons = sheet_of(c).weapons
    ready = [w for w in weapons if w.name in c.ready]
    for w in ready:
        if w.kind != "shield":
            return w
    if ready:
        return ready[0]
    for w in weapons:
        if w.kind in ALWAYS_READY:
            return w
    raise RuleError(f"{c.name} holds no weapon ready; name one with --weapon")


def skill(c: Combatant, name: str) -> int:
    """The sheet's value for skill ``name`` (0 when the sheet lacks it)."""
    skills = c.sheet.get("skills", {})
    for key, value in skills.items():
        if key.lower() == name.lower():
            return int(value)
    return 0


def condition_modifiers(
    c: Combatant, *, reaction: bool = False, mobility: bool = False, combat: bool = False
) -> list[ev.Modifier]:
    """Modifiers the bearer's own conditions and stance put on a test.

    ``reaction``: a Dodge or parry test (Defend, Overextended apply);
    ``mobility``: a test that relies on physical mobility (useless legs);
    ``combat``: attacking or defending (prone applies).
    Sources: seed 004 "Defend", "Overextended", "Impaled Enemies",
    "One Useless or Missing Leg", "Close Combat Situational Modifiers".
    """
    mods: list[ev.Modifier] = []
    for cond in c.conditions:
        if cond.effects.get("penalty"):
            mods.append(ev.Modifier(cond.effects["penalty"], f"{cond.name}{' (' + cond.location + ')' if cond.location else ''}"))
        if reaction and cond.effects.get("reaction-bonus"):
            mods.append(ev.Modifier(cond.effects["reaction-bonus"], cond.name))
        if reaction and cond.effects.get("next-reaction"):
            mods.append(ev.Modifier(cond.effects["next-reaction"], cond.name))
    if mobility:
        legs = sum(1 for loc in c.locations if loc.limb == "leg" and _useless(c, loc.name))
        if legs == 1:
            mods.append(ev.Modifier(-10, "one useless leg"))
    if combat and c.stance == "prone":
        mods.append(ev.Modifier(tables.CLOSE_MODIFIERS["prone"].value, "prone"))
    return mods


def _useless(c: Combatant, location: str) -> bool:
    return any(
        cond.location == location and cond.name in ("useless-limb", "severed-limb") for cond in c.conditions
    )


def useless_limbs(c: Combatant, limb: str) -> list[str]:
    """Locations of kind ``limb`` (arm or leg) that are useless now."""
    return [loc.name for loc in c.locations if loc.limb == limb and _useless(c, loc.name)]


def total(base: int, mods: list[ev.Modifier] | tuple[ev.Modifier, ...]) -> int:
    """``base`` plus the modifiers, never below 0 (percent)."""
    return max(0, base + sum(m.value for m in mods))


def test(
    draft: Draft,
    c: Combatant,
    skill_name: str,
    base: int,
    mods: list[ev.Modifier] | tuple[ev.Modifier, ...],
    purpose: str,
    *,
    critical_base: int | None = None,
) -> ev.SkillTested:
    """Roll a d100 test for ``c`` and record the dice and the result.

    ``critical_base`` is the skill the critical score comes from when the
    ruling ``critical_on`` is ``base`` (seed 004 "Critical Hits"; rules-
    reference E rulings).
    """
    rulings = rulings_of(draft.state)
    target = total(base, mods)
    rolled = draft.roll("1D100", purpose, by=c.handle)
    result = tables.skill_test(rolled.total, target, rulings)
    if critical_base is not None and rulings.critical_on == "base":
        crit = tables.skill_test(rolled.total, critical_base, rulings)
        if result == "critical" and crit != "critical":
            result = "success"
        elif result == "success" and crit == "critical":
            result = "critical"
    tested = ev.SkillTested(
        handle=c.handle,
        skill=skill_name,
        base=base,
        target=target,
        roll=rolled.total,
        result=result,
        purpose=purpose,
        modifiers=tuple(mods),
    )
    draft.emit(tested)
    return tested


def table_level(result: str) -> str:
    """A test result as a Dodge/Parry/Grapple table row or column: a fumble
    counts as a failure (seed 004 tables have three levels)."""
    return "failure" if result == "fumble" else result


# --------------------------------------------------------------------------- #
# Attack kinds with options (charge, ranged, precise, cover...)
# --------------------------------------------------------------------------- #


def make_kind(base: str, **opts: str) -> str:
    """An exchange kind with its options: ``ranged;cover=head,chest``.

    The exchange kind travels in ``AttackDeclared.kind``; the options the
    damage step needs (precise attack, cover, crowd) ride along after ``;``.
    """
    parts = [base] + [f"{k.replace('_', '-')}={v}" for k, v in opts.items() if v not in ("", None)]
    return ";".join(parts)


def kind_parts(kind: str) -> tuple[str, dict[str, str]]:
    """``(base kind, options)`` of an exchange kind made by :func:`make_kind`."""
    base, *rest = kind.split(";")
    opts = {}
    for item in rest:
        k, _, v = item.partition("=")
        opts[k] = v
    return base, opts


def total_hp(c: Combatant) -> int:
    """Hit points left over all locations (to tell whether damage was done)."""
    return sum(loc.hp for loc in c.locations)


def movement(c: Combatant) -> int:
    """Movement in metres after useless legs: one halves it, two leave 1 m
    (seed 004 "One Useless or Missing Leg", "Two Useless or Missing Legs")."""
    legs = len(useless_limbs(c, "leg"))
    if legs >= 2:
        return 1
    return c.movement // 2 if legs == 1 else c.movement


def held(c: Combatant) -> list[Weapon]:
    """The weapons and shields held ready, in the order they were readied."""
    weapons = {w.name: w for w in sheet_of(c).weapons}
    return [weapons[n] for n in c.ready if n in weapons]


def hands_used(c: Combatant) -> int:
    """Hands busy with held weapons and shields."""
    return sum(w.hands for w in held(c) if w.kind not in ALWAYS_READY)


def break_aim(draft: Draft, handle: str, reason: str) -> None:
    """Any other Combat Action or Reaction loses the aim bonus (seed 004
    "Aim")."""
    for cond in draft.state.combatants[handle].conditions:
        if cond.name == "aiming":
            draft.emit(ev.ConditionExpired(handle=handle, condition_id=cond.id, reason=reason))


def opposed(a: ev.SkillTested, d: ev.SkillTested, ties: str = "higher-roll") -> str:
    """Who wins an opposed test: ``"a"`` (the active side), ``"d"`` (the
    passive side) or ``""`` (both fail: nobody).

    A better level of success wins (critical > success > failure); at the
    same level of success the higher roll wins (ruling ``opposed_ties``:
    ``higher-roll``), or the passive side (``passive``). Source: seed 004
    speaks of "an opposed skill test" without the rule; rules-reference B6
    (the d100 family's rule) and our ruling.
    """
    rank = {"critical": 2, "success": 1}
    ra, rd = rank.get(a.result, 0), rank.get(d.result, 0)
    if ra == 0 and rd == 0:
        return ""
    if ra != rd:
        return "a" if ra > rd else "d"
    if ties == "higher-roll" and a.roll != d.roll:
        return "a" if a.roll > d.roll else "d"
    return "d"
