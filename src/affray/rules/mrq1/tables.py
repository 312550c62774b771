"""Mongoose RuneQuest 1 tables and table-driven rules (system ``mrq1``).

Sources: seed 004 (``/work/shared/seeds/004_71637fb3cfde52c9.txt``, the MRQ1
SRD combat chapter, "the seed" below) and rules-reference.md section E (with
B13/B14 where E refers to them). Where the seed states a rule, the seed wins;
a gap the sources leave open is a named ruling in
:mod:`affray.rules.mrq1.rulings`.

The tables themselves are TOML files under ``rules/mrq1/data/`` (each with a
``source = "..."`` note), decoded once at import into typed structs (the
loader and the shared row shapes are :mod:`affray.rules.tables`).

Units: skills and modifiers in percent, distances in metres, damage and
hit points in points. Levels of success are the strings of
:mod:`affray.rules.d100`.
"""

import math
import os

import msgspec

from affray import dice
from affray.rules import d100
from affray.rules.d100 import CRITICAL, FAILURE, FUMBLE, SUCCESS
from affray.rules.mrq1.rulings import DEFAULT_RULINGS, Rulings
from affray.rules.tables import Band, HitLocation, Row, Sourced, band_of, by_key, load, location_of

__all__ = [
    "CLOSE_MODIFIERS",
    "COMBAT_MODIFIERS",
    "DIFFICULTY",
    "DIFFICULTY_TIME",
    "DODGE",
    "EFFECT_KEYS",
    "GRAPPLE",
    "HIT_LOCATIONS",
    "LOCATIONS",
    "PARRY",
    "RANGED_MODIFIERS",
    "SOURCES",
    "TABLE_LEVELS",
    "Modifier",
    "TableCell",
    "WOUND_LEVELS",
    "combat_actions",
    "critical_score",
    "damage_modifier",
    "dodge",
    "fumble_min",
    "grapple",
    "grapple_table",
    "hit_location",
    "knockback_metres",
    "limb_of",
    "location_hp",
    "lookup_modifier",
    "normalize_location",
    "parry",
    "parry_deduction",
    "skill_test",
    "strike_rank_modifier",
    "table_level",
    "wound_severity",
]

DATA = os.path.join(os.path.dirname(__file__), "data")
SEED = "seed 004_71637fb3cfde52c9.txt"

# --------------------------------------------------------------------------- #
# Typed shapes of the data files
# --------------------------------------------------------------------------- #


class TableCell(msgspec.Struct, frozen=True):
    """One cell of the Dodge, Parry or Grapple table.

    ``outcome`` quotes the seed's cell text. ``effects`` has every key of
    :data:`EFFECT_KEYS` (0 when the cell does not set it): ``hit``,
    ``critical``, ``minimum_damage``, ``give_ground``, ``riposte``,
    ``overextended``, ``parry_ap_halves``, ``grapple``, ``follow_up``.
    """

    outcome: str
    effects: dict[str, int]


class _Cell(Row):
    attacker: str
    defender: str
    outcome: str
    effects: dict[str, int] = {}


class _ReactionTable(Sourced):
    cells: list[_Cell]


class _ReactionsFile(Sourced):
    dodge: _ReactionTable
    parry: _ReactionTable
    grapple: _ReactionTable


class _BandTable(Sourced):
    bands: list[Band]


class _Above100(Sourced):
    base: str
    band_width: int
    step_sides: list[int]


class _DamageModifierTable(_BandTable):
    above_100: _Above100


class _LocationHpTable(Sourced):
    band_width: int
    bands: list[tuple[int, int]]
    above_step: int
    rows: dict[str, list[int]]


class _CharacteristicsFile(Sourced):
    combat_actions: _BandTable
    damage_modifier: _DamageModifierTable
    location_hp: _LocationHpTable


class _LocationsFile(Sourced):
    locations: list[HitLocation]


class Modifier(Row):
    """A named situational modifier from the seed.

    ``value`` in percent (added to the skill). ``applies``: ``attack``,
    ``defence``, ``both`` (attacking or defending) or ``any`` (every test).
    ``special``: ``""``, ``"automatic-critical"`` (a helpless target) or
    ``"automatic-failure"`` (hurricane). ``per``: if set, ``value`` applies
    once per unit described there. ``group``: ranged modifiers within one
    group do not stack (except ``attacker-condition``). ``section``: where
    in seed 004 the modifier is stated (for :data:`COMBAT_MODIFIERS`).
    ``text`` quotes the seed.
    """

    key: str
    value: int
    applies: str
    text: str
    special: str = ""
    per: str = ""
    group: str = ""
    section: str = ""


class _Grade(Row):
    key: str
    value: int
    time: str


class _Difficulty(Sourced):
    grades: list[_Grade]


class _ModifierTable(Sourced):
    modifiers: list[Modifier]


class _ModifiersFile(Sourced):
    difficulty: _Difficulty
    close: _ModifierTable
    ranged: _ModifierTable
    combat: _ModifierTable


_REACTIONS: _ReactionsFile = load(DATA, "reactions.toml", _ReactionsFile)
_CHARS: _CharacteristicsFile = load(DATA, "characteristics.toml", _CharacteristicsFile)
_LOCS: _LocationsFile = load(DATA, "locations.toml", _LocationsFile)
_MODS: _ModifiersFile = load(DATA, "modifiers.toml", _ModifiersFile)

#: The ``source`` note of every table, by table name.
SOURCES: dict[str, str] = {
    "dodge": _REACTIONS.dodge.source,
    "parry": _REACTIONS.parry.source,
    "grapple": _REACTIONS.grapple.source,
    "combat_actions": _CHARS.combat_actions.source,
    "damage_modifier": _CHARS.damage_modifier.source,
    "damage_modifier_above_100": _CHARS.damage_modifier.above_100.source,
    "location_hp": _CHARS.location_hp.source,
    "hit_locations": _LOCS.source,
    "difficulty": _MODS.difficulty.source,
    "close_modifiers": _MODS.close.source,
    "ranged_modifiers": _MODS.ranged.source,
    "combat_modifiers": _MODS.combat.source,
}

# --------------------------------------------------------------------------- #
# Skill tests
# --------------------------------------------------------------------------- #


def critical_score(skill: int) -> int:
    """The critical score of a skill: ``floor(skill / 10)``, never below 0.

    Source: seed 004 "Critical Hits" ("the Weapon skill's score, divided by
    ten, rounded down"). Skill 65 -> 6, skill 9 -> 0 (no critical).
    """
    return d100.clamp_skill(skill) // 10


def fumble_min(skill: int, rulings: Rulings | None = None) -> int:
    """Lowest roll that fumbles for ``skill`` (the modified skill, percent).

    00 (100) always fumbles; with ruling ``fumble_on_99`` a 99 also fumbles
    when ``skill <= 100``. Returns 99 or 100. Source: rules-reference.md E,
    "Fumble" ruling (the seed gives no fumble rule).
    """
    rulings = rulings or DEFAULT_RULINGS
    return 99 if rulings.fumble_on_99 and skill <= 100 else 100


def skill_test(
    roll: int, skill: int, rulings: Rulings | None = None, *, modifier: int = 0
) -> str:
    """Grade a d100 skill test: ``critical``, ``success``, ``failure`` or
    ``fumble``.

    ``roll`` 1..100 (00 = 100). ``skill`` is the skill before situational
    modifiers and ``modifier`` their sum (percent); the target is
    ``max(0, skill + modifier)``. Callers that only have a modified skill
    pass it as ``skill`` with ``modifier=0`` (then ``critical_on`` makes no
    difference).

    * success: ``roll <= target`` (seed 004 "Close Combat Attacks", 1).
    * critical: a success with ``roll <= floor(S/10)`` where S is the
      modified target, or the base skill under ruling ``critical_on="base"``
      (seed 004 "Critical Hits"; rules-reference.md E ruling).
    * fumble: see :func:`fumble_min` (rules-reference.md E ruling).
    * 01-05 always succeed, 96-00 always fail under ruling
      ``automatic_results`` (rules-reference.md E ruling).

    Example, skill 65: 01-06 critical, 07-65 success, 66-98 failure,
    99-00 fumble.
    """
    rulings = rulings or DEFAULT_RULINGS
    target = d100.clamp_skill(skill + modifier)
    crit_base = target if rulings.critical_on == "modified" else skill
    auto = rulings.automatic_results
    return d100.grade(
        roll,
        target,
        critical_max=critical_score(crit_base),
        fumble_min=fumble_min(target, rulings),
        auto_success_max=5 if auto else 0,
        auto_fail_min=96 if auto else 101,
    )


# --------------------------------------------------------------------------- #
# Dodge, Parry and Grapple tables
# --------------------------------------------------------------------------- #

#: The levels that head the rows and columns of the reaction tables.
TABLE_LEVELS: tuple[str, ...] = (FAILURE, SUCCESS, CRITICAL)

#: Every effect key a :class:`TableCell` carries.
EFFECT_KEYS: tuple[str, ...] = (
    "hit",
    "critical",
    "minimum_damage",
    "give_ground",
    "riposte",
    "overextended",
    "parry_ap_halves",
    "grapple",
    "follow_up",
)


def table_level(level: str) -> str:
    """Map a level of success to a reaction-table row/column.

    The tables have Failure, Success and Critical Result only, so a fumble
    reads as a failure (seed 004 "Dodge", "Parry", "Grapple" tables).
    Raises ``ValueError`` for anything else.
    """
    if level == FUMBLE:
        return FAILURE
    if level in TABLE_LEVELS:
        return level
    raise ValueError(
        f"unknown level {level!r}; expected one of critical, success, failure, fumble"
    )


def _build(table: _ReactionTable, name: str) -> dict[tuple[str, str], TableCell]:
    cells: dict[tuple[str, str], TableCell] = {}
    for c in table.cells:
        key = (c.attacker, c.defender)
        unknown = set(c.effects) - set(EFFECT_KEYS)
        if c.attacker not in TABLE_LEVELS or c.defender not in TABLE_LEVELS or unknown:
            raise RuntimeError(f"data/reactions.toml [{name}]: bad cell {key}")
        if key in cells:
            raise RuntimeError(f"data/reactions.toml [{name}]: duplicate cell {key}")
        effects = {k: int(c.effects.get(k, 0)) for k in EFFECT_KEYS}
        cells[key] = TableCell(c.outcome, effects)
    if len(cells) != 9:
        raise RuntimeError(f"data/reactions.toml [{name}]: needs 9 cells, has {len(cells)}")
    return cells


#: The Dodge table: ``{(attacker level, defender level): TableCell}``.
#: Source: seed 004 "Reactions > Dodge".
DODGE: dict[tuple[str, str], TableCell] = _build(_REACTIONS.dodge, "dodge")
#: The Parry table. Source: seed 004 "Reactions > Parry".
PARRY: dict[tuple[str, str], TableCell] = _build(_REACTIONS.parry, "parry")
#: The Grapple table. Source: seed 004 "Grappling".
GRAPPLE: dict[tuple[str, str], TableCell] = _build(_REACTIONS.grapple, "grapple")


def dodge(att: str, dfn: str) -> TableCell:
    """The Dodge table cell for attacker level ``att`` and defender level
    ``dfn`` (critical/success/failure/fumble; a fumble reads as failure).

    ``overextended`` = 1 marks the party named by ruling
    ``overextended_applies_to`` (default: the attacker). A ``minimum_damage``
    result against an attack that was already a critical inflicts normal
    damage instead. Source: seed 004 "Reactions > Dodge".
    """
    return DODGE[table_level(att), table_level(dfn)]


def parry(att: str, dfn: str) -> TableCell:
    """The Parry table cell for attacker level ``att`` and defender level
    ``dfn``. ``parry_ap_halves`` gives the deduction from damage in halves of
    the parrying weapon's or shield's AP (see :func:`parry_deduction`).
    Source: seed 004 "Reactions > Parry".
    """
    return PARRY[table_level(att), table_level(dfn)]


def grapple(att: str, dfn: str) -> TableCell:
    """The Grapple table cell for attacker level ``att`` (Unarmed) and
    defender level ``dfn`` (Dodge, Unarmed or Weapon skill). ``hit`` and
    ``grapple`` are both 1 when the grapple holds; ``follow_up`` = 1 lets the
    attacker Immobilise or Throw at once. The same table resolves Break Free
    (a result of "grapple fails" frees the character). Source: seed 004
    "Grappling".
    """
    return GRAPPLE[table_level(att), table_level(dfn)]


def grapple_table(rulings: Rulings | None = None) -> dict[tuple[str, str], TableCell]:
    """The table an opposed grapple roll is read on: :data:`GRAPPLE`, or
    :data:`PARRY` under ruling ``grapple_table="parry"``. Source:
    rules-reference.md "Seed ambiguities": Grapple.
    """
    rulings = rulings or DEFAULT_RULINGS
    return PARRY if rulings.grapple_table == "parry" else GRAPPLE


def parry_deduction(ap: int, halves: int, rulings: Rulings | None = None) -> int:
    """Points deducted from damage by a parry: ``ap * halves / 2``.

    ``ap`` is the parrying weapon's or shield's AP; ``halves`` the cell's
    ``parry_ap_halves`` (0 none, 1 = ½ AP, 2 = AP, 4 = 2 x AP). An odd AP
    halved rounds per ruling ``half_ap_rounding`` (default down). Source:
    seed 004 "Parry" table ("½ AP", "AP", "2xAP of parrying weapon/shield").
    """
    rulings = rulings or DEFAULT_RULINGS
    if ap < 0 or halves < 0:
        raise ValueError(f"parry deduction needs AP >= 0 and halves >= 0; got {ap}, {halves}")
    n = ap * halves
    return n // 2 if rulings.half_ap_rounding == "down" else -(-n // 2)


# --------------------------------------------------------------------------- #
# Characteristics
# --------------------------------------------------------------------------- #


def _band_lookup(bands: list[Band], x: int, what: str):
    band = band_of(bands, x)
    if band is not None:
        return band.value
    raise ValueError(f"{what} {x} is below the table (lowest is {bands[0].low})")


def combat_actions(dex: int) -> int:
    """Combat Actions per round by DEX: 1-6 -> 1, 7-12 -> 2, 13-18 -> 3,
    19+ -> 4. Reactions per round equal Combat Actions (seed 004
    "Reactions"). Raises ``ValueError`` for DEX < 1.
    Source: rules-reference.md E1 (MRQ1 GM screen); data/characteristics.toml.
    """
    return int(_band_lookup(_CHARS.combat_actions.bands, dex, "DEX"))


def damage_modifier(str_plus_siz: int) -> str:
    """Damage Modifier by STR+SIZ, as a dice string: ``"-1D8"`` ... ``""``
    (none, 21-25) ... ``"+2D12"`` (91-100).

    Source: rules-reference.md E2 (MRQ1 GM screen); data/characteristics.toml.
    Above 100, OUR RULING "damage-modifier-above-100": every further 10
    points or part of 10 adds one step of an extra die, D2, D4, D6, D8, D10,
    D12, after which another extra die starts at D2: 101-110 ``+2D12+1D2``,
    111-120 ``+2D12+1D4``, ..., 151-160 ``+3D12``, 161-170 ``+3D12+1D2``.
    Raises ``ValueError`` below 1.
    """
    if str_plus_siz <= 100:
        return str(_band_lookup(_CHARS.damage_modifier.bands, str_plus_siz, "STR+SIZ"))
    rule = _CHARS.damage_modifier.above_100
    ((_, base_count, base_sides),) = dice.parse(rule.base).terms
    steps = math.ceil((str_plus_siz - 100) / rule.band_width)
    full, step = divmod(steps - 1, len(rule.step_sides))
    sides = rule.step_sides[step]
    count = base_count + full
    if sides == base_sides:
        return f"+{count + 1}D{base_sides}"
    return f"+{count}D{base_sides}+1D{sides}"


# Difficulty ------------------------------------------------------------------

#: Difficulty (and haste) grades -> skill modifier in percent, keyed
#: ``very-easy`` ... ``nearly-impossible``. Source: rules-reference.md E3.
DIFFICULTY: dict[str, int] = {g.key: g.value for g in _MODS.difficulty.grades}
#: The time each difficulty grade stands for ("" where the source gives none).
DIFFICULTY_TIME: dict[str, str] = {g.key: g.time for g in _MODS.difficulty.grades}

# Hit locations ---------------------------------------------------------------

#: ``{location: (d20 low, d20 high)}`` in table order. Source: seed 004
#: "Humanoid Hit Location" (same as rules-reference.md B13).
HIT_LOCATIONS: dict[str, tuple[int, int]] = {
    loc.name: (loc.low, loc.high) for loc in _LOCS.locations
}
#: Location names in table order: right leg, left leg, abdomen, chest,
#: right arm, left arm, head.
LOCATIONS: tuple[str, ...] = tuple(HIT_LOCATIONS)
_LIMB: dict[str, str] = {loc.name: loc.limb for loc in _LOCS.locations}
_ALIASES = {
    "rl": "right leg", "ll": "left leg", "abd": "abdomen",
    "ra": "right arm", "la": "left arm",
}


def normalize_location(name: str) -> str:
    """Canonical location name for user input: case, ``-``/``_`` and extra
    spaces are ignored (``"Right-Leg"`` -> ``"right leg"``); ``rl``, ``ll``,
    ``abd``, ``ra``, ``la`` are accepted. Raises ``ValueError`` listing the
    locations. Source: seed 004 "Humanoid Hit Location" names.
    """
    key = " ".join(str(name).lower().replace("-", " ").replace("_", " ").split())
    key = _ALIASES.get(key, key)
    if key not in HIT_LOCATIONS:
        raise ValueError(f"unknown hit location {name!r}; use one of {', '.join(LOCATIONS)}")
    return key


def hit_location(d20: int) -> str:
    """The location struck on a D20 roll (1..20): 1-3 right leg, 4-6 left
    leg, 7-9 abdomen, 10-12 chest, 13-15 right arm, 16-18 left arm, 19-20
    head. Raises ``ValueError`` outside 1..20. Source: seed 004 "Hit
    Locations" > "Humanoid Hit Location".
    """
    if isinstance(d20, bool) or not isinstance(d20, int) or not 1 <= d20 <= 20:
        raise ValueError(f"d20 takes values 1-20; got {d20!r}")
    name = location_of(_LOCS.locations, d20)
    if name is not None:
        return name
    raise AssertionError("hit location table has a gap")  # pragma: no cover


def limb_of(location: str) -> str:
    """``"leg"``, ``"arm"`` or ``""`` (abdomen, chest, head) for a location;
    the distinction drives the seed's Serious and Major Wound effects.
    Accepts any spelling :func:`normalize_location` accepts. Source: seed
    004 "Hit Locations" ("Limbs" vs "Abdomen, Chest or Head").
    """
    return _LIMB[normalize_location(location)]


def location_hp(con_plus_siz: int) -> dict[str, int]:
    """Hit points of each location by CON+SIZ, in table order.

    Bands 1-5, 6-10, ... 36-40: each leg 1..8, abdomen 2..9, chest 3..10,
    each arm 1,1,2,3,4,5,6,7, head 1..8; above 40, +1 to every location per
    further 5 points or part of 5 (41-45 +1, 46-50 +2). Raises
    ``ValueError`` below 1. Source: rules-reference.md E4 (legs, abdomen,
    chest 3-6 from the MRQ1 GM screen) and the E ruling "Remaining
    location-HP rows" (Mythras B14 for chest, arms and head).
    """
    t = _CHARS.location_hp
    if con_plus_siz < 1:
        raise ValueError(f"CON+SIZ {con_plus_siz} is below the table (lowest is 1)")
    top = t.bands[-1][1]
    if con_plus_siz <= top:
        idx, extra = (con_plus_siz - 1) // t.band_width, 0
    else:
        idx, extra = len(t.bands) - 1, math.ceil((con_plus_siz - top) / t.above_step)
    return {name: t.rows[name][idx] + extra for name in LOCATIONS}


def strike_rank_modifier(
    dex: int, int_: int, worn_ap_total: int, rulings: Rulings | None = None
) -> int:
    """Strike Rank modifier (added to 1D10 each round).

    ``ceil((DEX + INT) / 2)`` minus the armour penalty; under ruling
    ``strike_rank_armour_penalty="ap-div-5"`` (default) the penalty is the
    total worn AP over all locations ``// 5`` (natural armour excluded).
    FLAGGED UNVERIFIED. The result is not clamped. Source: rules-reference.md
    E5 (average of DEX and INT) and the E "Strike Rank" ruling (rounded up,
    armour penalty); seed 004 "Combat", step 1 "Determine Strike Ranks" (D10 + modifier).
    """
    rulings = rulings or DEFAULT_RULINGS
    if worn_ap_total < 0:
        raise ValueError(f"worn AP total must be >= 0; got {worn_ap_total}")
    base = -(-(dex + int_) // 2)
    penalty = worn_ap_total // 5 if rulings.strike_rank_armour_penalty == "ap-div-5" else 0
    return base - penalty


# --------------------------------------------------------------------------- #
# Situational modifiers
# --------------------------------------------------------------------------- #

#: Close combat situational modifiers by key (``target-helpless``,
#: ``target-surprised``, ``target-prone``, ``higher-ground``, ``prone``,
#: ``unstable-ground``, ``arm-obstructed``, ``underwater``, ``lower-ground``,
#: ``partial-darkness``, ``darkness``, ``blind``). Cumulative.
#: Source: seed 004 "Close Combat Situational Modifiers".
CLOSE_MODIFIERS: dict[str, Modifier] = by_key(_MODS.close.modifiers)
#: Ranged attack situational modifiers by key; see :class:`Modifier` ``group``.
#: Source: seed 004 "Ranged Attack Situational Modifiers".
RANGED_MODIFIERS: dict[str, Modifier] = by_key(_MODS.ranged.modifiers)
#: Other modifiers the seed states in its text (aim, defend, flurry, precise
#: attack, impaled, overextended, dodge penalties, useless limbs...); each
#: names its ``section`` of seed 004.
COMBAT_MODIFIERS: dict[str, Modifier] = by_key(_MODS.combat.modifiers)


def lookup_modifier(key: str, catalogue: dict[str, Modifier] | None = None) -> Modifier:
    """Find a named modifier (default: in :data:`CLOSE_MODIFIERS`).

    Raises ``ValueError`` with one line listing the valid keys.
    """
    cat = CLOSE_MODIFIERS if catalogue is None else catalogue
    k = str(key).strip().lower().replace("_", "-").replace(" ", "-")
    try:
        return cat[k]
    except KeyError:
        raise ValueError(f"unknown modifier {key!r}; use one of {', '.join(cat)}") from None


# --------------------------------------------------------------------------- #
# Damage consequences
# --------------------------------------------------------------------------- #


def knockback_metres(damage: int, siz: int, *, charge: bool = False) -> int:
    """Metres of Knockback for ``damage`` (after Reactions, before armour)
    against a target of ``siz``.

    0 unless ``damage > siz``; then 1 m, plus 1 m for every five full points
    by which the damage exceeds SIZ: ``1 + (damage - siz) // 5``. SIZ 10:
    damage 10 -> 0, 11 -> 1, 14 -> 1, 15 -> 2, 19 -> 2, 20 -> 3. Doubled
    when the attacker was Charging. Which damage (after the parry deduction
    or not) is ruling ``knockback_after_parry``; the caller passes it.
    Source: seed 004 "Knockback".
    """
    excess = damage - siz
    if excess <= 0:
        return 0
    metres = 1 + excess // 5
    return metres * 2 if charge else metres


WOUND_LEVELS: tuple[str, ...] = ("none", "minor", "serious", "major")


def wound_severity(
    hp_after: int, starting_hp: int, rulings: Rulings | None = None
) -> str:
    """Wound severity of a location now at ``hp_after`` HP whose starting HP
    is ``starting_hp``: ``"none"``, ``"minor"``, ``"serious"`` or ``"major"``.

    * ``hp_after > 0``: none.
    * ``hp_after == 0``: Minor Wound ("Location's Hit Points reduced to 0").
    * ``hp_after <= -1``: Serious Wound ("reduced to -1 or more", i.e. to -1
      or below).
    * Major Wound: "reduced to a negative score greater than its starting Hit
      Points"; ruling ``major_wound_boundary="strict"`` (default) reads this
      as ``hp_after < -starting_hp`` (start 5: -5 serious, -6 major),
      ``"inclusive"`` as ``hp_after <= -starting_hp``. The strict reading
      agrees with seed 004 "Hero Points" > Glancing Blow, where a Major
      Injury downgraded to Serious sits "at a negative score equal to its
      starting hit points".

    Source: seed 004 "Damage" > "Hit Locations"; rules-reference.md "Seed
    ambiguities": Major Wound boundary.
    """
    rulings = rulings or DEFAULT_RULINGS
    if starting_hp < 1:
        raise ValueError(f"starting HP must be >= 1; got {starting_hp}")
    if hp_after > 0:
        return "none"
    if hp_after == 0:
        return "minor"
    if rulings.major_wound_boundary == "strict":
        major = hp_after < -starting_hp
    else:
        major = hp_after <= -starting_hp
    return "major" if major else "serious"
