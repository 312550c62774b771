"""UESRPG 3e character sheets: schema, loading, derived figures.

A sheet is a TOML, YAML or JSON file decoded into :class:`Sheet`. Every
problem becomes a :class:`SheetError` whose message is one line naming the
file, the field and what to do. :func:`derive` computes the characteristic
bonuses, HP, Wound Threshold and initiative rating (rules-reference.md D5,
D11) unless the sheet writes its own.

Units: characteristics, skills and TNs in percent; HP, AR and BR in points.
"""

import math
import os
from typing import Any

import msgspec

from affray import dice
from affray.rules.base import decode_sheet, read_sheet_data, suggestion
from affray.rules.uesrpg import tables

CHARACTERISTICS = ("STR", "END", "AGI", "INT", "WP", "PRC", "PRS", "LCK")
#: ``melee`` (Combat Style with STR or AGI) or ``ranged`` (AGI), seed 003 Step 1.
WEAPON_KINDS = ("melee", "ranged")
COVERAGE = ("full", "partial")
#: Maximum Action Points, refilled each round (rules-reference.md D11).
MAX_AP = 3
_DO = "fix the sheet and try again"


class SheetError(ValueError):
    """A sheet could not be loaded; ``str(err)`` is one line."""


class Characteristics(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Strength, Endurance, Agility, Intelligence, Willpower, Perception,
    Personality, Luck (UES Ch.1), each 0..100."""

    STR: int
    END: int
    AGI: int
    INT: int
    WP: int
    PRC: int
    PRS: int
    LCK: int


class Style(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A Combat Style: ``bonus`` is its rank bonus in percent, added to the
    characteristic the test uses (seed 003 Step 1); ``weapons`` the weapons
    and shields it includes (any other is -20)."""

    name: str
    bonus: int = 0
    weapons: list[str] = []


class Weapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A weapon: ``damage`` dice (``1D8+1``), damage ``type`` (physical:
    slashing, splitting, crushing, piercing; magic: fire, frost, shock,
    poison, magic) and ``kind`` melee or ranged. ``range`` (metres, 0: not
    stated) is how far a ranged weapon reaches (seed 003 Step 1, "within the
    range of their weapon"); ``targets`` how many defenders one attack with
    it may face (1; a sweeping weapon more: seed 003 Step 4, "multiple
    defenders against a single attack")."""

    name: str
    damage: str
    type: str = "slashing"
    kind: str = "melee"
    range: float = 0.0
    targets: int = 1


class Shield(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A shield: Block Rating ``br``, ``magic_br`` against magic damage (0:
    none, so magic halves BR), ``variant`` standard, tower, targe or buckler
    (rules-reference.md D13)."""

    name: str
    br: int
    magic_br: int = 0
    variant: str = "standard"


class Spell(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An attack spell: cast with the skill of its ``school`` (seed 003
    Step 1, "Cast Magic Attacks"), dealing ``damage`` of a magic ``type``;
    ``range`` in metres (0: not stated) and ``targets``, how many defenders
    one casting may face (an area spell: more than 1), as for a weapon."""

    name: str
    school: str
    damage: str
    type: str = "magic"
    range: float = 0.0
    targets: int = 1


class Armour(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The armour on one hit location: ``ar`` against physical damage,
    ``magic_ar`` against magic damage, ``coverage`` full or partial."""

    ar: int = 0
    magic_ar: int = 0
    coverage: str = "full"


class Sheet(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A UESRPG 3e combatant. ``npc``: criticals on 1-3 and critical
    failures on 98-100 unless ``lucky``/``unlucky`` are given; a PC lists
    its Lucky (Luck bonus of them) and Unlucky (5 - Luck bonus) Numbers
    (rules-reference.md D4). ``evade`` is the Evade rank bonus over AGI;
    ``skills`` other skills by name with their TN (a spell's school).
    ``hp``, ``wound_threshold`` and ``initiative_rating`` override the
    derived figures. ``shield_arm`` takes a block's overflow."""

    name: str
    characteristics: Characteristics
    system: str = "uesrpg"
    npc: bool = False
    lucky: list[int] = []
    unlucky: list[int] = []
    evade: int = 0
    skills: dict[str, int] = {}
    styles: list[Style] = []
    weapons: list[Weapon] = []
    shields: list[Shield] = []
    spells: list[Spell] = []
    armour: dict[str, Armour] = {}
    shield_arm: str = "left arm"
    hp: int | None = None
    wound_threshold: int | None = None
    initiative_rating: int | None = None
    notes: str = ""


class Derived(msgspec.Struct, frozen=True):
    """Figures the engine needs: HP, Wound Threshold, initiative rating."""

    hp: int
    wound_threshold: int
    initiative_rating: int


def bonus(score: int) -> int:
    """A characteristic bonus: the tens digit of the score
    (rules-reference.md D5)."""
    return score // 10


def derive(sheet: Sheet) -> Derived:
    """HP = END/2 rounded up; Wound Threshold = SB + EB + WB; initiative
    rating = AB + IB + PcB (rules-reference.md D11), or the sheet's own."""
    c = sheet.characteristics
    hp = sheet.hp if sheet.hp is not None else math.ceil(c.END / 2)
    wt = sheet.wound_threshold if sheet.wound_threshold is not None else bonus(c.STR) + bonus(c.END) + bonus(c.WP)
    init = (sheet.initiative_rating if sheet.initiative_rating is not None
            else bonus(c.AGI) + bonus(c.INT) + bonus(c.PRC))
    return Derived(hp=hp, wound_threshold=wt, initiative_rating=init)


def luck_counts(sheet: Sheet) -> tuple[int, int]:
    """How many Lucky (the Luck bonus) and Unlucky (5 - Luck bonus) Numbers
    a PC has (rules-reference.md D4)."""
    lb = bonus(sheet.characteristics.LCK)
    return lb, max(0, 5 - lb)


def _fail(label: str, field: str, what: str) -> SheetError:
    where = f" {field}:" if field else ""
    return SheetError(f"{label}:{where} {what}; {_DO}")


def _check_dice(label: str, field: str, expr: str) -> None:
    try:
        dice.parse(expr)
    except dice.DiceError as exc:
        raise _fail(label, field, f"{expr!r} is not a dice expression ({exc})") from None


def _check_reach(label: str, field: str, item: Weapon | Spell) -> None:
    if not item.range >= 0:
        raise _fail(label, f"{field}.range", f"{item.range} is not a range in metres (0 or more)")
    if item.targets < 1:
        raise _fail(label, f"{field}.targets", "an attack faces at least 1 defender")


def validate_sheet(sheet: Sheet, label: str = "sheet") -> Sheet:
    """Check what the schema cannot: ranges, names, dice, variants, the
    Lucky and Unlucky Numbers. Raises :class:`SheetError` (one line)."""
    if not sheet.name.strip():
        raise _fail(label, "name", "a combatant needs a name")
    for k in CHARACTERISTICS:
        v = getattr(sheet.characteristics, k)
        if not 0 <= v <= 100:
            raise _fail(label, f"characteristics.{k}", f"{v} is outside 0-100")
    types = tables.PHYSICAL_TYPES + tables.MAGIC_TYPES
    names: set[str] = set()
    for w in sheet.weapons:
        _check_dice(label, f"weapons.{w.name}.damage", w.damage)
        if w.kind not in WEAPON_KINDS:
            raise _fail(label, f"weapons.{w.name}.kind", f"{w.kind!r} is not one of {', '.join(WEAPON_KINDS)}")
        if w.type not in types:
            raise _fail(label, f"weapons.{w.name}.type", f"{w.type!r} is not one of {', '.join(types)}")
        _check_reach(label, f"weapons.{w.name}", w)
        names.add(w.name.lower())
    for s in sheet.shields:
        if s.variant not in tables.SHIELD_VARIANTS:
            raise _fail(label, f"shields.{s.name}.variant", f"{s.variant!r} is not one of {', '.join(tables.SHIELD_VARIANTS)}")
        if s.br < 0 or s.magic_br < 0:
            raise _fail(label, f"shields.{s.name}.br", "a Block Rating is 0 or more")
        names.add(s.name.lower())
    for sp in sheet.spells:
        _check_dice(label, f"spells.{sp.name}.damage", sp.damage)
        if sp.type not in tables.MAGIC_TYPES:
            raise _fail(label, f"spells.{sp.name}.type", f"{sp.type!r} is not one of {', '.join(tables.MAGIC_TYPES)}")
        if sp.school not in sheet.skills:
            raise _fail(label, f"spells.{sp.name}.school", f"no skill {sp.school!r} in [skills]{suggestion(sp.school, sheet.skills)}")
        _check_reach(label, f"spells.{sp.name}", sp)
    for st in sheet.styles:
        for item in st.weapons:
            if item.lower() not in names:
                raise _fail(label, f"styles.{st.name}.weapons", f"{item!r} is not a weapon or shield of the sheet"
                            + suggestion(item, [x.name for x in (*sheet.weapons, *sheet.shields)]))
    for loc, a in sheet.armour.items():
        if loc not in tables.LOCATION_NAMES:
            raise _fail(label, f"armour.{loc}", f"unknown location; use {', '.join(tables.LOCATION_NAMES)}")
        if a.coverage not in COVERAGE:
            raise _fail(label, f"armour.{loc}.coverage", "coverage is full or partial")
        if a.ar < 0 or a.magic_ar < 0:
            raise _fail(label, f"armour.{loc}.ar", "an Armor Rating is 0 or more")
    if sheet.shield_arm not in ("left arm", "right arm"):
        raise _fail(label, "shield_arm", "left arm or right arm")
    for field in ("lucky", "unlucky"):
        for n in getattr(sheet, field):
            if not 1 <= n <= 100:
                raise _fail(label, field, f"{n} is not a d100 result (1-100)")
    if set(sheet.lucky) & set(sheet.unlucky):
        raise _fail(label, "lucky", "a number cannot be both Lucky and Unlucky")
    if not sheet.npc and (sheet.lucky or sheet.unlucky):  # none listed: drawn at 'start' (ruling lucky_numbers)
        want_lucky, want_unlucky = luck_counts(sheet)
        if len(set(sheet.lucky)) != want_lucky or len(set(sheet.unlucky)) != want_unlucky:
            raise _fail(label, "lucky", f"a PC with Luck {sheet.characteristics.LCK} has {want_lucky} distinct Lucky and "
                        f"{want_unlucky} Unlucky Numbers (rules-reference.md D4); list them, or set npc = true")
    if not sheet.weapons and not sheet.spells:
        raise _fail(label, "weapons", "a combatant needs at least one weapon or spell")
    return sheet


def parse_sheet(data: Any, label: str = "sheet") -> Sheet:
    """A validated :class:`Sheet` from plain data; :class:`SheetError`."""
    try:
        sheet = decode_sheet(data, Sheet, label)
    except ValueError as exc:
        raise SheetError(str(exc)) from None
    return validate_sheet(sheet, label)


def load_sheet(path: str | os.PathLike[str]) -> Sheet:
    """Load a sheet from ``.toml``, ``.yaml``/``.yml`` or ``.json``;
    :class:`SheetError` (one line) when it cannot be read or is invalid."""
    try:
        data = read_sheet_data(path)
    except ValueError as exc:
        raise SheetError(str(exc)) from None
    return parse_sheet(data, str(path))
