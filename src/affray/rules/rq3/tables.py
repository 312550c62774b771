"""RuneQuest III (house rules) tables and table-driven rules (system ``rq3``).

The tables live in ``data/tables.toml``, each with a ``source`` note, and are
decoded once at import through the shared loader :mod:`affray.rules.tables`.
Sources: seed 002 (``002_321dc991624c8969.txt``) and rules-reference.md
section C, named on each function. Levels of success are the strings of
:mod:`affray.rules.d100`.
"""

import math
import os

from affray.rules.d100 import CRITICAL, FAILURE, FUMBLE, SPECIAL, SUCCESS, grade
from affray.rules.tables import Band, HitLocation, Row, Sourced, band_of, load, location_of

DATA = os.path.join(os.path.dirname(__file__), "data")
#: Levels of success, worst first (rules-reference.md C1).
LEVELS = (FUMBLE, FAILURE, SUCCESS, SPECIAL, CRITICAL)
#: The hit levels a dodge can leave: "miss", a level, or "maximum" (a
#: critical doing maximum damage after a fumbled dodge).
HIT_RESULTS = ("miss", SUCCESS, SPECIAL, CRITICAL, "maximum")


class _Bands(Sourced):
    bands: list[Band]


class _Locs(Sourced):
    rows: list[HitLocation]


class _LocHP(Sourced):
    leg: list[int]
    abdomen: list[int]
    chest: list[int]
    arm: list[int]
    head: list[int]


class DodgeCell(Row):
    """A cell of the dodge table: a dodge of level ``dodge`` against a hit of
    level ``hit`` leaves ``result``."""

    dodge: str
    hit: str
    result: str


class _Dodge(Sourced):
    cells: list[DodgeCell]


class TerrainRow(Row):
    """A terrain class: ``dex`` the DEX multiple of its test (0: none),
    ``when`` the test is taken: ``never``, ``over-rate`` (each move beyond
    the unmodified rate) or ``each-rate`` (each move of the rate)."""

    key: str
    dex: int
    when: str


class _Terrain(Sourced):
    rows: list[TerrainRow]


class _File(Row):
    dex_sr: _Bands
    siz_sr: _Bands
    damage_modifier: _Bands
    melee_locations: _Locs
    missile_locations: _Locs
    location_hp: _LocHP
    dodge: _Dodge
    terrain: _Terrain


TABLES = load(DATA, "tables.toml", _File)
TERRAIN = {r.key: r for r in TABLES.terrain.rows}


def rhu(x: float) -> int:
    """Round half up, ``floor(x + 0.5)`` (rules-reference.md conventions)."""
    return math.floor(x + 0.5)


def thresholds(skill: int, *, flexible: bool = False) -> tuple[int, int, int]:
    """``(critical_max, special_max, fumble_min)`` for a (modified) skill in
    percent (rules-reference.md C1: critical <= max(1, rhu(skill/20)),
    special <= max(1, rhu(skill/5)), fumble >= 101 - max(1, rhu((100 -
    skill)/20))). Skills above 100 fumble on 00 only (C ruling). A flexible
    or chain weapon has double the fumble chance (seed 002 "FLEXIBLE
    WEAPONS")."""
    crit = max(1, rhu(skill / 20))
    special = max(1, rhu(skill / 5))
    width = max(1, rhu((100 - skill) / 20)) if skill <= 100 else 1
    if flexible:
        width *= 2
    return crit, special, 101 - width


def level(roll: int, skill: int, *, flexible: bool = False) -> str:
    """The level of success of a d100 ``roll`` against ``skill`` percent:
    critical, special, success, failure or fumble (rules-reference.md C1;
    01-05 always succeed and 96-00 always fail, RQ3's automatic results)."""
    crit, special, fumble = thresholds(skill, flexible=flexible)
    return grade(roll, skill, critical_max=crit, special_max=special, fumble_min=fumble)


def resistance_chance(active: int, passive: int) -> int:
    """The percent chance of ``active`` overcoming ``passive`` on the
    resistance table: 50 + 5 x (active - passive), clamped to 5..95
    (rules-reference.md C2 and its "Resistance limits" ruling)."""
    return max(5, min(95, 50 + 5 * (active - passive)))


def dex_sr(dex: int) -> int:
    """DEX strike rank (rules-reference.md C4)."""
    return int(band_of(TABLES.dex_sr.bands, max(1, dex)).value)


def siz_sr(siz: int) -> int:
    """SIZ strike rank (rules-reference.md C4)."""
    return int(band_of(TABLES.siz_sr.bands, max(1, siz)).value)


def damage_modifier(str_siz: int) -> str:
    """The damage modifier for STR+SIZ: ``-1D4``, ``""``, ``+1D4``, ``+1D6``,
    ``+2D6``, then +1D6 for each further 16 points or part of 16
    (rules-reference.md C5)."""
    band = band_of(TABLES.damage_modifier.bands, max(1, str_siz))
    if band is not None:
        return str(band.value)
    return f"+{2 + math.ceil((str_siz - 56) / 16)}D6"


def total_hp(con: int, siz: int) -> int:
    """Total hit points = (CON+SIZ)/2 rounded half up (rules-reference.md C7)."""
    return rhu((con + siz) / 2)


def location_hp(total: int, part: str) -> int:
    """HP of a location ``part`` (leg, abdomen, chest, arm, head) for
    ``total`` HP (rules-reference.md C8). Above 21 total HP each further 3
    HP add 1 to each location, and the chest keeps its two over the legs
    (ruling ``location_hp_above_21``)."""
    column = getattr(TABLES.location_hp, part)
    band = max(0, (max(1, total) - 1) // 3)
    if band < len(column):
        return column[band]
    extra = band - len(column) + 1
    if part == "chest":
        return TABLES.location_hp.leg[-1] + extra + 2
    return column[-1] + extra


def hit_location(d20: int, table: str = "melee") -> str:
    """The location a d20 strikes on the ``melee`` or ``missile`` table
    (rules-reference.md C6; the missile table is the C ruling)."""
    rows = TABLES.missile_locations.rows if table == "missile" else TABLES.melee_locations.rows
    return location_of(rows, max(1, min(20, d20)))


def locations() -> list[HitLocation]:
    """The humanoid locations with their d20 ranges (C6)."""
    return list(TABLES.melee_locations.rows)


def dodged(dodge: str, hit: str) -> str:
    """What is left of a hit of level ``hit`` after a dodge of level
    ``dodge``: ``miss``, ``success``, ``special``, ``critical`` or
    ``maximum`` (seed 002 "MELEE DODGING"). An attack that failed stays a
    miss, except that a fumbled dodge turns a failed (not fumbled) attack
    into a hit."""
    for cell in TABLES.dodge.cells:
        if cell.dodge == dodge and cell.hit == hit:
            return cell.result
    return "miss"
