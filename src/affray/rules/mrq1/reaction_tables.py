"""The mrq1 reaction tables: Dodge, Parry and Grapple, read by the
levels of success of the attack and the reaction.

Source: seed 004 "Reactions > Dodge", "Reactions > Parry", "Grappling";
data/reactions.toml; rulings ``grapple_table``, ``half_ap_rounding``,
``overextended_applies_to``.
"""

from __future__ import annotations

import msgspec

from affray.rules.d100 import CRITICAL, FAILURE, FUMBLE, SUCCESS
from affray.rules.mrq1.rulings import DEFAULT_RULINGS, Rulings
from affray.rules.mrq1.table_files import _REACTIONS, _ReactionTable


class TableCell(msgspec.Struct, frozen=True):
    """One cell of the Dodge, Parry or Grapple table.

    ``outcome`` quotes the seed's cell text. ``effects`` has every key of
    :data:`EFFECT_KEYS` (0 when the cell does not set it): ``hit``,
    ``critical``, ``minimum_damage``, ``give_ground``, ``riposte``,
    ``overextended``, ``parry_ap_halves``, ``grapple``, ``follow_up``.
    """

    outcome: str
    effects: dict[str, int]


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
