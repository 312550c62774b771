"""The UESRPG 3e tables, decoded once from ``data/tables.toml``.

Each table carries its ``source`` note (seed 003_9f2af80e743acd07.txt or
rules-reference.md section D). The lookups here read the data; what a
result means is decided by the rule modules.
"""

import os

from affray.rules.tables import Row, Sourced, by_key, load, sources

__all__ = [
    "ADVANTAGES",
    "CIRCUMSTANCES",
    "DIFFICULTY",
    "HIT_LOCATIONS",
    "LOCATION_NAMES",
    "MAGIC_TYPES",
    "PHYSICAL_TYPES",
    "SHIELD_VARIANTS",
    "SOURCES",
    "WOUND_EFFECTS",
    "location_for_digit",
]


class Graded(Row):
    """A difficulty grade or circumstance: ``key`` and ``value`` (percent
    added to the TN), ``text`` as the modifier's reason."""

    key: str
    value: int
    text: str = ""


class GradeTable(Sourced):
    """Difficulty grades or circumstances with their source."""

    rows: list[Graded]


class LocationRow(Row):
    """A hit location: its ``name``, the ones ``digits`` (0 for 10) that
    strike it, and ``limb`` (leg, arm, head or "" for the body)."""

    name: str
    digits: list[int]
    limb: str


class LocationTable(Sourced):
    """The hit location table with its source."""

    rows: list[LocationRow]


class AdvantageRow(Row):
    """An Advantage: ``key``, who may take it (``side``: attack, defence,
    either) and what it does."""

    key: str
    side: str
    text: str


class AdvantageTable(Sourced):
    """The Advantage list with its source."""

    rows: list[AdvantageRow]


class ShieldVariant(Row):
    """A shield variant: ``block_bonus`` (percent on the block test),
    ``br_halved`` (a targe), ``can_block`` (a buckler cannot) and
    ``parry_dos`` (DoS added to a successful parry)."""

    key: str
    block_bonus: int
    br_halved: bool
    can_block: bool
    parry_dos: int


class ShieldTable(Sourced):
    """The shield variants with their source."""

    rows: list[ShieldVariant]


class DamageTypes(Sourced):
    """Physical and magic damage types with their source."""

    physical: list[str]
    magic: list[str]


class WoundEffect(Row):
    """What a wound does by ``part`` (body, limb, head): ``effect`` always,
    ``on_fail`` when the Shock Test fails."""

    part: str
    effect: str
    on_fail: str


class WoundTable(Sourced):
    """The wound effects by part struck, with their source."""

    rows: list[WoundEffect]


class Tables(Row):
    """The whole ``data/tables.toml``."""

    difficulty: GradeTable
    circumstances: GradeTable
    hit_locations: LocationTable
    advantages: AdvantageTable
    shield_variants: ShieldTable
    damage_types: DamageTypes
    wound_effects: WoundTable


_T = load(os.path.join(os.path.dirname(__file__), "data"), "tables.toml", Tables)

#: difficulty key -> grade (rules-reference.md D1).
DIFFICULTY: dict[str, Graded] = by_key(_T.difficulty.rows)
#: circumstance key -> modifier (rules-reference.md D14).
CIRCUMSTANCES: dict[str, Graded] = by_key(_T.circumstances.rows)
#: the hit locations in table order (seed 003 Step 4).
HIT_LOCATIONS: tuple[LocationRow, ...] = tuple(_T.hit_locations.rows)
LOCATION_NAMES: tuple[str, ...] = tuple(r.name for r in HIT_LOCATIONS)
#: Advantage key -> row (rules-reference.md D8).
ADVANTAGES: dict[str, AdvantageRow] = by_key(_T.advantages.rows)
#: shield variant key -> row (rules-reference.md D13).
SHIELD_VARIANTS: dict[str, ShieldVariant] = by_key(_T.shield_variants.rows)
PHYSICAL_TYPES: tuple[str, ...] = tuple(_T.damage_types.physical)
MAGIC_TYPES: tuple[str, ...] = tuple(_T.damage_types.magic)
#: part (body, limb, head) -> wound effect (rules-reference.md D12).
WOUND_EFFECTS: dict[str, WoundEffect] = {r.part: r for r in _T.wound_effects.rows}
SOURCES: dict[str, str] = sources(
    _T, ("difficulty", "circumstances", "hit_locations", "advantages", "shield_variants", "damage_types", "wound_effects")
)


def location_for_digit(digit: int) -> LocationRow:
    """The location a ones digit strikes (a d10's 10 counts as 0); seed 003
    Step 4. Raises ``ValueError`` for anything but 0-10."""
    d = digit % 10 if digit == 10 else digit
    for row in HIT_LOCATIONS:
        if d in row.digits:
            return row
    raise ValueError(f"a hit location digit is 0-9 (or 10 on a d10); got {digit!r}")
