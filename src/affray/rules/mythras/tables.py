"""Mythras / CFI tables and table-driven rules (system ``mythras``).

The tables live in ``data/tables.toml``, each with a ``source`` note, and are
decoded once at import (the loader and the shared row shapes are
:mod:`affray.rules.tables`). Sources: seed 001 (``001_0613c1b7f6517492.txt``, CFI
Chapter 8: Combat) and rules-reference.md section B (the Mythras Imperative
SRD), named on each function. Levels of success are the strings of
:mod:`affray.rules.d100`.
"""

import math
import os
import re

from affray.rules import d100
from affray.rules.d100 import CRITICAL, FAILURE, FUMBLE, SUCCESS
from affray.rules.tables import Band, HitLocation, Row, Sourced, band_of, by_key, load, location_of, sources

DATA = os.path.join(os.path.dirname(__file__), "data")
LEVELS = (CRITICAL, SUCCESS, FAILURE, FUMBLE)


class DiffCell(Row):
    """A cell of the Differential Roll Results table (B7)."""

    attacker: str
    defender: str
    winner: str
    effects: int


class _Diff(Sourced):
    cells: list[DiffCell]


class _Locs(Sourced):
    rows: list[HitLocation]


class _LocHp(Sourced):
    band_width: int
    rows: dict[str, list[int]]


class _Dm(Sourced):
    bands: list[Band]


class _Ap(Sourced):
    band_width: int


class _Sizes(Sourced):
    order: list[str]


class _Impale(Sourced):
    grades: list[str]
    band_width: int
    rows: list[list[str]]


class SpecialEffect(Row):
    """A row of the seed's Special Effects Table. ``weapon``: required weapon
    traits, ``|``-separated (any one will do); ``roll``: the required roll
    (``attacker-criticals``, ``defender-criticals``, ``attacker-fumbles``,
    ``opponent-fumbles`` or ""); ``implemented``: resolved by this engine."""

    key: str
    name: str
    offensive: bool
    defensive: bool
    weapon: str
    roll: str
    stackable: bool
    implemented: bool


class _Effects(Sourced):
    effects: list[SpecialEffect]


class Grade(Row):
    """A Difficulty Grade (B4): skill × ``num``/``den`` (rounded up) or
    skill + ``add`` (the simplified alternative)."""

    key: str
    num: int
    den: int
    add: int


class _Grades(Sourced):
    rows: list[Grade]


class Situation(Row):
    """A row of the seed's Close Combat or Ranged Combat Situational
    Modifiers tables; ``applies``: attack, defence or both; ``combat``:
    close, ranged or both; ``grade`` a Difficulty Grade, ``automatic`` (no
    roll) or ``harder`` (one grade harder than the rest); ``flag`` a mark
    the exchange keeps (charge, crowd, long-range...)."""

    key: str
    grade: str
    applies: str
    text: str
    combat: str = "close"
    flag: str = ""


class _Situations(Sourced):
    rows: list[Situation]


class FatigueLevel(Row):
    """A Fatigue level (B19): skill grade, Initiative and AP penalties."""

    key: str
    grade: str
    initiative: int
    ap: int


class _Fatigue(Sourced):
    levels: list[FatigueLevel]


class _File(Sourced):
    fatigue: _Fatigue
    grades: _Grades
    situations: _Situations
    differential: _Diff
    locations: _Locs
    location_hp: _LocHp
    damage_modifier: _Dm
    action_points: _Ap
    sizes: _Sizes
    impale: _Impale
    special_effects: _Effects


_T = load(DATA, "tables.toml", _File)

SOURCES: dict[str, str] = sources(_T, (
    "fatigue", "grades", "situations", "differential", "locations", "location_hp", "damage_modifier",
    "action_points", "sizes", "impale", "special_effects"))
DIFFERENTIAL: dict[tuple[str, str], DiffCell] = {(c.attacker, c.defender): c for c in _T.differential.cells}
LOCATIONS: tuple[HitLocation, ...] = tuple(_T.locations.rows)
LOCATION_NAMES: tuple[str, ...] = tuple(l.name for l in LOCATIONS)
SIZES: tuple[str, ...] = tuple(_T.sizes.order)
SPECIAL_EFFECTS: dict[str, SpecialEffect] = by_key(_T.special_effects.effects)
GRADES: dict[str, Grade] = by_key(_T.grades.rows)
#: Fatigue levels, 1-based: FATIGUE[0] is Winded (B19).
FATIGUE: tuple[FatigueLevel, ...] = tuple(_T.fatigue.levels)
GRADE_ORDER: tuple[str, ...] = tuple(g.key for g in _T.grades.rows)
SITUATIONS: dict[str, Situation] = by_key(_T.situations.rows)


def graded(skill: int, grade: str, style: str = "multiplier") -> int:
    """``skill`` at Difficulty Grade ``grade`` (B4): multiplied and rounded
    up (MF), or the simplified additive value; never below 0. ``ValueError``
    for an unknown grade."""
    try:
        g = GRADES[grade]
    except KeyError:
        raise ValueError(f"unknown difficulty grade {grade!r}; grades: {', '.join(GRADE_ORDER)}") from None
    if style == "simplified":
        return max(0, skill + g.add)
    return -(-skill * g.num // g.den)


def hardest(grades) -> str:
    """The hardest of several grades applies (B4; seed 001 "Situational
    Modifiers": use the most severe). ``standard`` when there are none."""
    return max(list(grades) or ["standard"], key=GRADE_ORDER.index)


def critical_max(skill: int) -> int:
    """Highest critical roll: ``ceil(skill/10)``, at least 1, on the skill
    after modifiers (rules-reference.md B2)."""
    return max(1, math.ceil(max(0, skill) / 10))


def fumble_min(skill: int) -> int:
    """Lowest fumbling roll: 99, or 100 only when the skill is over 100
    (rules-reference.md B3)."""
    return 100 if skill > 100 else 99


def skill_test(roll: int, skill: int) -> str:
    """Grade a d100 roll against a (modified) skill: 01-05 always succeed,
    96-00 always fail, critical and fumble as above (rules-reference.md
    B1-B3)."""
    return d100.grade(roll, skill, critical_max=critical_max(skill), fumble_min=fumble_min(skill))


def over_100(*skills: int) -> int:
    """What everyone in an opposed or differential roll subtracts: the
    highest skill's excess over 100, else 0 (rules-reference.md B8)."""
    top = max(skills) if skills else 0
    return max(0, top - 100)


def differential(attacker: str, defender: str) -> DiffCell:
    """The Differential Roll Results cell for the two levels (B7; seed 001
    "Attacks and Parries" step 3-4). ``ValueError`` for an unknown level."""
    try:
        return DIFFERENTIAL[(attacker, defender)]
    except KeyError:
        raise ValueError(f"no differential cell for {attacker!r} against {defender!r}; levels: {', '.join(LEVELS)}") from None


def opposed_winner(a_level: str, a_roll: int, b_level: str, b_roll: int) -> str:
    """``a``, ``b`` or ``none``: the better level wins; at the same level of
    success the higher roll wins; both failing (or equal rolls) is ``none``
    (rules-reference.md B6)."""
    ra, rb = d100.level_rank(a_level), d100.level_rank(b_level)
    if not d100.is_success(a_level) and not d100.is_success(b_level):
        return "none"
    if ra != rb:
        return "a" if ra > rb else "b"
    if a_roll == b_roll:
        return "none"
    return "a" if a_roll > b_roll else "b"


def hit_location(d20: int) -> str:
    """Humanoid hit location for a d20 roll (rules-reference.md B13)."""
    name = location_of(LOCATIONS, d20)
    if name is not None:
        return name
    raise ValueError(f"hit location takes a d20 (1-20); got {d20}")


def location_hp(con_siz: int) -> dict[str, int]:
    """HP per location by CON+SIZ: bands of 5, +1 per further 5 above 40
    (rules-reference.md B14)."""
    if con_siz < 1:
        raise ValueError(f"CON+SIZ must be at least 1; got {con_siz}")
    width = _T.location_hp.band_width
    band = (con_siz - 1) // width
    out = {}
    for name, row in _T.location_hp.rows.items():
        out[name] = row[band] if band < len(row) else row[-1] + band - (len(row) - 1)
    return out


def damage_modifier(str_siz: int) -> str:
    """Damage modifier dice by STR+SIZ (rules-reference.md B16); ``""`` is
    none. Above 120 each further 10 points adds one step of the progression,
    read here as another +1D2 on the 111-120 value (ruling: the source only
    says "the progression continues")."""
    band = band_of(_T.damage_modifier.bands, str_siz)
    if band is not None:
        return band.value
    if str_siz < 1:
        raise ValueError(f"STR+SIZ must be at least 1; got {str_siz}")
    last = _T.damage_modifier.bands[-1]
    steps = math.ceil((str_siz - last.high) / 10)
    return last.value + "+1D2" * steps


def action_points_int_dex(int_dex: int) -> int:
    """Full-Mythras Action Points by INT+DEX: <=12 -> 1, 13-24 -> 2,
    25-36 -> 3, +1 per further 12 (rules-reference.md B18)."""
    return max(1, math.ceil(int_dex / _T.action_points.band_width))


def initiative(dex: int, int_: int) -> int:
    """Initiative = the average of DEX and INT, rounded up (B17; MG)."""
    return math.ceil((dex + int_) / 2)


def size_index(size: str) -> int:
    """Position of a weapon Size (seed 001 "Weapon Size"); ``ValueError``."""
    try:
        return SIZES.index(size.lower())
    except ValueError:
        raise ValueError(f"unknown weapon size {size!r}; use one of {', '.join(SIZES)}") from None


def parry_block(parry_size: str, attack_size: str) -> str:
    """How much a successful parry deflects: ``all`` (equal or larger),
    ``half`` (one Size smaller), ``none`` (two or more smaller). Seed 001
    "Damage Reduction"; rules-reference.md B11."""
    diff = size_index(attack_size) - size_index(parry_size)
    return "all" if diff <= 0 else ("half" if diff == 1 else "none")


def after_parry(damage: int, block: str, rounding: str = "down") -> int:
    """Damage left after a parry that deflects ``block`` (seed 001 "Damage
    Reduction"; ruling ``half_parry_rounding``)."""
    if block == "all":
        return 0
    if block == "half":
        return damage // 2 if rounding == "down" else (damage + 1) // 2
    return damage


def wound_severity(hp: int, max_hp: int, boundary: str = "inclusive") -> str:
    """minor (HP still above 0), serious (0 or below) or major (at or below
    -starting HP, or strictly below with ``strict``). rules-reference.md
    B15 and the Major Wound boundary ruling."""
    major = hp <= -max_hp if boundary == "inclusive" else hp < -max_hp
    if major:
        return "major"
    return "serious" if hp <= 0 else "minor"


def impale_grade(siz: int, size: str) -> str:
    """The Difficulty Grade an impaled weapon of ``size`` inflicts on a
    creature of ``siz`` (seed 001 "Impale Effects Table"; each further 10
    SIZ follows the progression: one grade easier)."""
    band = max(0, (siz - 1) // _T.impale.band_width)
    rows, grades = _T.impale.rows, _T.impale.grades
    last = len(rows) - 1
    grade = rows[min(band, last)][size_index(size)]
    i = grades.index(grade) + max(0, band - last)
    return grades[min(i, len(grades) - 1)]


def eligible_effects(
    side: str, *, own: str, other: str, traits: set[str], parried: bool = False
) -> list[str]:
    """Implemented Special Effects ``side`` (attacker|defender) may take,
    given its own level, the opponent's and its weapon traits (seed 001
    "Special Effects Table": offensive/defensive, weapon type, specific roll).
    Enhance Parry needs a parry; Choose Location is melee here."""
    out = []
    for e in SPECIAL_EFFECTS.values():
        if not e.implemented:
            continue
        if side == "attacker" and not e.offensive or side == "defender" and not e.defensive:
            continue
        if e.weapon and not (set(e.weapon.split("|")) & traits):
            continue
        need = e.roll
        if need == "attacker-criticals" and not (side == "attacker" and own == CRITICAL):
            continue
        if need == "defender-criticals" and not (side == "defender" and own == CRITICAL):
            continue
        if need == "attacker-fumbles" and not (side == "defender" and other == FUMBLE):
            continue
        if need == "opponent-fumbles" and other != FUMBLE:
            continue
        if e.key == "enhance-parry" and not parried:
            continue
        out.append(e.key)
    return out


def shift(grade: str, steps: int) -> str:
    """``grade`` made ``steps`` grades harder (negative: easier), within the
    table (B4). ``hopeless`` stays hopeless."""
    if grade == "hopeless":
        return grade
    i = GRADE_ORDER.index(grade) + steps
    return GRADE_ORDER[max(0, min(i, len(GRADE_ORDER) - 1))]


def size_step(size: str, steps: int) -> str:
    """A weapon Size moved ``steps`` along Small..Enormous, clamped (seed 001
    "Charging": +1 step; "Long Range": Force one step less)."""
    i = size_index(size) + steps
    return SIZES[max(0, min(i, len(SIZES) - 1))]


def dm_step(dm: str, steps: int) -> str:
    """The Damage Modifier ``steps`` bands further along the B16 table (seed
    001 "Charging": one step for a biped, two for a quadruped). Past the
    last band each step adds +1D2 (the same reading as
    :func:`damage_modifier`)."""
    values = [b.value for b in _T.damage_modifier.bands]
    if dm in values:
        i = values.index(dm) + steps
        if i < 0:
            return values[0]
        if i < len(values):
            return values[i]
        return values[-1] + "+1D2" * (i - len(values) + 1)
    return dm + "+1D2" * max(0, steps)


#: British spellings a GM may type for the effects' American names.
_SPELLINGS = (("maximise", "maximize"), ("armour", "armor"), ("manoeuvre", "maneuver"))


def option_key(text: str, options) -> str:
    """The option of ``options`` that ``text`` names: as typed (any case),
    or a Special Effect's printed name ("Choose Location"), with
    underscores or spaces for hyphens and British spellings
    ("maximise-damage", "Bypass Armour"). ``text`` lower-cased when none
    matches."""
    plain = text.strip().lower()
    if plain in options:
        return plain
    key = re.sub(r"[\s_]+", "-", plain)
    for british, american in _SPELLINGS:
        key = key.replace(british, american)
    if key in options:
        return key
    by_name = {e.name.lower(): k for k, e in SPECIAL_EFFECTS.items()}
    return by_name.get(plain, plain)


def dm_rank(dm: str) -> int:
    """Where ``dm`` stands on the B16 table (higher is better; past the last
    band one more per extra +1D2), to compare two Damage Modifiers."""
    values = [b.value for b in _T.damage_modifier.bands]
    if dm in values:
        return values.index(dm)
    base = next((v for v in reversed(values) if dm.startswith(v)), "")
    return values.index(base) + dm[len(base):].count("+1D2") if base else -1


#: Hit locations next to each other on a humanoid (seed 001 "Sharpshooter":
#: "a leg shot ... up to the abdomen"; "common sense should be applied").
ADJACENT: dict[str, tuple[str, ...]] = {
    "right leg": ("abdomen",),
    "left leg": ("abdomen",),
    "abdomen": ("right leg", "left leg", "chest"),
    "chest": ("abdomen", "right arm", "left arm", "head"),
    "right arm": ("chest",),
    "left arm": ("chest",),
    "head": ("chest",),
}

FEET_TO_M = 0.3


def knockback_feet(damage: int, siz: int) -> int:
    """Feet a blow throws its recipient back: 5 ft for each 8 points (or
    fraction) of damage over the SIZ, before parry and armour; 0 when the
    damage is not more than the SIZ (seed 001 "Knockback")."""
    over = damage - siz
    return 0 if over <= 0 else 5 * math.ceil(over / 8)


def bash_feet(damage: int, shield: bool) -> int:
    """Feet a Bash knocks the defender back: 5 ft per 3 points of damage
    rolled with a shield, per 5 points with a bludgeoning weapon (seed 001
    "Bash"; whole steps only: our reading)."""
    return 5 * (damage // (3 if shield else 5))


def reach_index(reach: str) -> int:
    """Position of a weapon reach, Touch < Short < Medium < Long < Very Long."""
    order = ("touch", "short", "medium", "long", "very long")
    return order.index(reach.lower()) if reach.lower() in order else 2
