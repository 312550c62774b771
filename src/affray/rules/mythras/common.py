"""Small shared helpers of the mythras rules: rulings, sheets, weapons, tests."""

from __future__ import annotations

from functools import lru_cache

import msgspec

from affray.events import core as ev
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError
from affray.rules.mythras import tables
from affray.rules.mythras.rulings import Rulings, from_mapping
from affray.rules.mythras.sheet import Sheet, Weapon

TORSO = ("abdomen", "chest", "head")


def rulings_of(state: State) -> Rulings:
    """The encounter's rulings (defaults filled in)."""
    return _rulings(tuple(sorted(state.rulings.items())))


@lru_cache(maxsize=64)
def _rulings(items: tuple[tuple[str, str], ...]) -> Rulings:
    return from_mapping(dict(items))


def sheet_of(c: Combatant) -> Sheet:
    """The combatant's sheet as the typed :class:`Sheet`."""
    return _sheet(msgspec.json.encode(c.sheet))


@lru_cache(maxsize=256)
def _sheet(raw: bytes) -> Sheet:
    return msgspec.json.decode(raw, type=Sheet)


def find_weapon(c: Combatant, name: str, *, ready_only: bool = True) -> Weapon:
    """The weapon ``name`` (or unique prefix) ``c`` holds ready; unarmed
    weapons are always ready. :class:`RuleError` naming what is held."""
    sheet = sheet_of(c)
    try:
        w = sheet.weapon(name)
    except ValueError as exc:
        raise RuleError(str(exc)) from None
    if ready_only and w.kind != "unarmed" and w.name not in c.ready:
        raise RuleError(f"{c.name} does not hold {w.name} ready (ready: {', '.join(c.ready) or 'nothing'})")
    return w


def default_weapon(c: Combatant) -> Weapon:
    """The first ready weapon that is not a shield, else a shield, else an
    unarmed weapon."""
    weapons = sheet_of(c).weapons
    ready = [w for w in weapons if w.name in c.ready]
    for w in ready:
        if w.kind != "shield":
            return w
    if ready:
        return ready[0]
    for w in weapons:
        if w.kind == "unarmed":
            return w
    raise RuleError(f"{c.name} holds no weapon ready; name one with --weapon")


def parry_weapons(c: Combatant) -> list[Weapon]:
    """Ready weapons that can parry, biggest first (seed 001 "Parry")."""
    ws = [w for w in sheet_of(c).weapons if w.name in c.ready and w.kind in ("melee", "shield")]
    return sorted(ws, key=lambda w: -tables.size_index(w.size))


def traits_of(w: Weapon) -> set[str]:
    """A weapon's traits, with ``shield``/``unarmed``/``ranged`` from its kind
    and ``two-handed`` from its hands."""
    t = set(w.traits)
    if w.kind in ("shield", "unarmed", "ranged"):
        t.add(w.kind)
    if w.hands >= 2:
        t.add("two-handed")
    return t


def test(draft: Draft, c: Combatant, skill_name: str, base: int, purpose: str,
         mods: tuple[ev.Modifier, ...] = ()) -> ev.SkillTested:
    """Roll a d100 for ``c`` and grade it (rules-reference.md B1-B3)."""
    target = max(0, base + sum(m.value for m in mods))
    rolled = draft.roll("1D100", purpose, by=c.handle)
    tested = ev.SkillTested(
        handle=c.handle, skill=skill_name, base=base, target=target, roll=rolled.total,
        result=tables.skill_test(rolled.total, target), purpose=purpose, modifiers=tuple(mods),
    )
    draft.emit(tested)
    return tested


def over_100_mods(state: State, *skills: int) -> tuple[ev.Modifier, ...]:
    """The shared penalty for skills over 100 in an opposed or differential
    roll (rules-reference.md B8; ruling ``over_100_in_opposed``)."""
    if rulings_of(state).over_100_in_opposed == "none":
        return ()
    excess = tables.over_100(*skills)
    return (ev.Modifier(-excess, "highest skill over 100 (B8)"),) if excess else ()


def grade_modifiers(state: State, c: Combatant, base: int, situations, role: str,
                    combat: bool = True) -> tuple[ev.Modifier, ...]:
    """The Difficulty Grade on ``c``'s ``role`` roll (attack or defence) as a
    modifier: the hardest of the named situations (seed 001 "Close Combat
    Situational Modifiers"), prone ("Fighting while prone") and conditions
    with a grade (Impale Effects Table; these also apply to non-combat
    rolls, ``combat=False``). B4: the hardest grade applies.
    :class:`RuleError` for an unknown or misplaced situation, or Hopeless."""
    found: list[tuple[str, str]] = []
    for key in situations:
        sit = tables.SITUATIONS.get(key)
        if sit is None:
            raise RuleError(f"unknown situation {key!r}; known: {', '.join(tables.SITUATIONS)}")
        if sit.applies not in (role, "both"):
            verb = "'affray react'" if sit.applies == "defence" else "'affray attack'"
            raise RuleError(f"situation {key!r} is for {sit.applies} rolls; give it with {verb}")
        found.append((sit.grade, sit.text))
    if combat and c.stance == "prone" and "prone" not in situations:
        found.append(("formidable", "Fighting while prone"))
    for cond in c.conditions:
        if "grade" in cond.effects:
            found.append((tables.GRADE_ORDER[cond.effects["grade"]], cond.note or cond.name))
    if not found:
        return ()
    grade = tables.hardest(g for g, _ in found)
    if grade == "standard":
        return ()
    if grade == "hopeless":
        raise RuleError(f"{c.name} cannot attempt that: the situation is Hopeless")
    why = "; ".join(text for g, text in found if g == grade)
    value = tables.graded(base, grade, rulings_of(state).grade_style) - base
    return (ev.Modifier(value, f"{grade}: {why}"),)


def fighters(state: State) -> list[Combatant]:
    """Combatants still in the fight (active), in join order."""
    return [c for c in state.combatants.values() if c.status == "active"]
