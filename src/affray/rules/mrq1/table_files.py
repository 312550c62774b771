"""The mrq1 data files: the typed shapes of ``rules/mrq1/data/*.toml``,
decoded once at import, and each table's source note.

Source: the files themselves (each has a ``source = "..."`` note: seed 004
or rules-reference.md E); :mod:`.tables` and :mod:`.reaction_tables` read
them.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

DATA = Path(__file__).with_name("data")


class _Cell(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    attacker: str
    defender: str
    outcome: str
    effects: dict[str, int] = {}


class _ReactionTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    source: str
    cells: list[_Cell]


class _ReactionsFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    source: str
    dodge: _ReactionTable
    parry: _ReactionTable
    grapple: _ReactionTable


class _Band(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    low: int
    value: int | str
    high: int | None = None


class _BandTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    source: str
    bands: list[_Band]


class _Above100(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    source: str
    base: str
    band_width: int
    step_sides: list[int]


class _DamageModifierTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    source: str
    bands: list[_Band]
    above_100: _Above100


class _LocationHpTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    source: str
    band_width: int
    bands: list[tuple[int, int]]
    above_step: int
    rows: dict[str, list[int]]


class _CharacteristicsFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    source: str
    combat_actions: _BandTable
    damage_modifier: _DamageModifierTable
    location_hp: _LocationHpTable


class _Location(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str
    low: int
    high: int
    limb: str


class _LocationsFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    source: str
    locations: list[_Location]


class Modifier(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
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


class _Grade(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    key: str
    value: int
    time: str


class _Difficulty(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    source: str
    grades: list[_Grade]


class _ModifierTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    source: str
    modifiers: list[Modifier]


class _ModifiersFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    source: str
    difficulty: _Difficulty
    close: _ModifierTable
    ranged: _ModifierTable
    combat: _ModifierTable


def _load(name: str, typ: type):
    return msgspec.toml.decode((DATA / name).read_bytes(), type=typ)


_REACTIONS: _ReactionsFile = _load("reactions.toml", _ReactionsFile)
_CHARS: _CharacteristicsFile = _load("characteristics.toml", _CharacteristicsFile)
_LOCS: _LocationsFile = _load("locations.toml", _LocationsFile)
_MODS: _ModifiersFile = _load("modifiers.toml", _ModifiersFile)

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
