"""Rolemaster-style character sheets: schema, loading, derived figures.

A sheet is a TOML, YAML or JSON file decoded into :class:`Sheet`. Every
problem becomes a :class:`SheetError` whose message is one line naming the
file and the field. Shapes and units: stats as ``{value, bonus}``; OB, DB
and skills as bonuses (added to an open-ended d100); ``hits`` in points;
``armour`` the armour type, a column of the attack tables (seed 000
"Attack Procedure"; rules-reference.md A4, A5).
"""

import os

import msgspec

from affray.errors import file_suffix
from affray.rules.base import check_names, decode_sheet, read_sheet_data, suggestion
from affray.events.core import LocationInit
from affray.text import one_line

STATS = ("agility", "constitution", "empathy", "intuition", "memory", "presence", "quickness", "reasoning",
         "self_discipline", "strength")
WEAPON_KINDS = ("melee", "missile", "shield", "unarmed")
#: The skills the rules read by name (bonuses: acrobatics in defence.py,
#: perception in maneuvers.py), as
#: the sheet must spell them: a near miss (``Perception``) is refused.
RULE_SKILLS = ("acrobatics", "perception")
_DO = "fix the sheet and try again"


class SheetError(ValueError):
    """A sheet could not be loaded; ``str(err)`` is one line."""


class Stat(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A stat's ``value`` (1..102) and its ``bonus``."""

    value: int = 50
    bonus: int = 0


class Stats(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The ten RMSS stats; each defaults to value 50, bonus 0."""

    agility: Stat = Stat()
    constitution: Stat = Stat()
    empathy: Stat = Stat()
    intuition: Stat = Stat()
    memory: Stat = Stat()
    presence: Stat = Stat()
    quickness: Stat = Stat()
    reasoning: Stat = Stat()
    self_discipline: Stat = Stat()
    strength: Stat = Stat()


class Weapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A weapon or shield. ``ob``: the Offensive Bonus with it; ``table``:
    its attack table (a name or a path); ``fumble``: ``[LOW, HIGH]`` of the
    unmodified first die (default: the table's ``fumble_range``); ``db``: a
    shield's DB; ``kind``: melee, missile, shield or unarmed. A missile
    weapon's ``ranges``: its range bands, ``[[UP_TO_METRES, OB_MODIFIER],
    ...]`` nearest first (the figures of the book you own: RMSS weapon
    range modifiers are per weapon); ``reload``: the Action Points to make
    it ready again after a shot (0: none; RMH "Ammo reload" is 6; more than
    the round's AP carries over, RMH "Round to Round Actions")."""

    name: str
    kind: str = "melee"
    ob: int = 0
    table: str = ""
    fumble: tuple[int, int] | None = None
    db: int = 0
    ranges: tuple[tuple[float, int], ...] = ()
    reload: int = 0


class Sheet(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A Rolemaster-style sheet. ``db``: DB from other sources (magic,
    items), without the Quickness part (3 x Quickness bonus, A5) and the
    shield, which are derived; ``skills``: bonuses by name (``acrobatics``,
    ``perception``); ``tables``: a folder of campaign tables (made absolute
    against the sheet's folder when loaded); ``ready``: weapons in hand at
    the start (default: the first melee weapon and a shield)."""

    name: str
    hits: int
    armour: str
    level: int = 1
    stats: Stats = Stats()
    db: int = 0
    skills: dict[str, int] = {}
    weapons: tuple[Weapon, ...] = ()
    tables: str = ""
    ready: tuple[str, ...] | None = None

    def weapon(self, name: str) -> Weapon:
        """The weapon called ``name`` (or an unambiguous prefix);
        ``ValueError`` naming the weapons otherwise."""
        wanted = name.strip().lower()
        exact = [w for w in self.weapons if w.name.lower() == wanted]
        hits = exact or [w for w in self.weapons if w.name.lower().startswith(wanted)]
        if len(hits) == 1:
            return hits[0]
        known = ", ".join(w.name for w in self.weapons) or "none"
        raise ValueError(f"{self.name} has no weapon {name!r} (weapons: {known})")

    def skill(self, name: str) -> int:
        """A skill bonus (0 when the sheet does not list it)."""
        return self.skills.get(name, 0)

    @property
    def quickness_db(self) -> int:
        """The Quickness part of DB: 3 x Quickness bonus (A5)."""
        return 3 * self.stats.quickness.bonus


def parse_sheet(data: object, label: str = "sheet") -> Sheet:
    """Validate plain data as a :class:`Sheet`; :class:`SheetError` (one
    line). A ``system`` key, which the other systems' sheets carry, may name
    rolemaster (it is not stored); naming another system is refused."""
    if isinstance(data, dict) and "system" in data:
        named = str(data["system"]).strip()
        if named.lower() not in ("rolemaster", "rm", "rmss"):
            raise SheetError(one_line(f"{label}: system: this is a {named!r} sheet, not rolemaster; "
                                      f"join it to a {named} encounter or fix the sheet"))
        data = {k: v for k, v in data.items() if k != "system"}
    try:
        sheet = decode_sheet(data, Sheet, label)  # one line naming the key (affray.rules.base)
    except ValueError as exc:
        raise SheetError(str(exc)) from None
    if sheet.hits < 1:
        raise SheetError(f"{label}: hits must be at least 1; {_DO}")
    names = [w.name.lower() for w in sheet.weapons]
    if len(set(names)) != len(names):
        raise SheetError(f"{label}: two weapons share a name; {_DO}")
    for w in sheet.weapons:
        if w.kind not in WEAPON_KINDS:
            raise SheetError(f"{label}: weapon {w.name!r}: kind {w.kind!r} is not one of {', '.join(WEAPON_KINDS)}; {_DO}")
        if w.kind != "shield" and not w.table:
            raise SheetError(f"{label}: weapon {w.name!r} names no attack table (table = \"NAME\"); {_DO}")
        if w.ranges and w.kind != "missile":
            raise SheetError(f"{label}: weapon {w.name!r}: range bands are for missile weapons; {_DO}")
        if any(b[0] <= 0 for b in w.ranges) or any(a[0] >= b[0] for a, b in zip(w.ranges, w.ranges[1:])):
            raise SheetError(f"{label}: weapon {w.name!r}: ranges are [[UP_TO_METRES, MODIFIER], ...], nearest first; {_DO}")
        if w.reload < 0:
            raise SheetError(f"{label}: weapon {w.name!r}: reload is a number of Action Points (0 or more); {_DO}")
        if w.fumble is not None and not 1 <= w.fumble[0] <= w.fumble[1] <= 100:
            raise SheetError(f"{label}: weapon {w.name!r}: fumble is [LOW, HIGH] within 1..100; {_DO}")
    try:
        check_names(label, "skills", sheet.skills, RULE_SKILLS, exact_case=True)
    except ValueError as exc:
        raise SheetError(str(exc)) from None
    for r in sheet.ready or ():
        if r.lower() not in names:
            raise SheetError(f"{label}: ready names {r!r}, which is not one of its weapons"
                             f"{suggestion(r, [w.name for w in sheet.weapons])}; {_DO}")
    return sheet


def load_sheet(path: str | os.PathLike[str]) -> Sheet:
    """Load a sheet from ``.toml``, ``.yaml``/``.yml`` or ``.json``; a
    relative ``tables`` folder (sheet or weapon table path) is made absolute
    against the sheet's folder, so the log keeps a path that works later."""
    label, folder = str(path), os.path.dirname(os.fspath(path))
    try:
        data = read_sheet_data(path)  # the file's plain data, one-line errors (affray.rules.base)
    except ValueError as exc:
        raise SheetError(str(exc)) from None
    sheet = parse_sheet(data, label)
    if sheet.tables and not os.path.isabs(sheet.tables):
        sheet = msgspec.structs.replace(sheet, tables=os.path.realpath(os.path.join(folder, sheet.tables)))
    weapons = tuple(
        msgspec.structs.replace(w, table=os.path.realpath(os.path.join(folder, w.table)))
        if file_suffix(w.table) and not os.path.isabs(w.table) else w
        for w in sheet.weapons)
    return msgspec.structs.replace(sheet, weapons=weapons)


def default_ready(sheet: Sheet) -> tuple[str, ...]:
    """Weapons in hand at the start: ``sheet.ready``, else the first melee
    or missile weapon and the first shield."""
    if sheet.ready is not None:
        return tuple(sheet.weapon(r).name for r in sheet.ready)
    out = []
    first = next((w for w in sheet.weapons if w.kind in ("melee", "missile")), None)
    if first is not None:
        out.append(first.name)
    shield = next((w for w in sheet.weapons if w.kind == "shield"), None)
    if shield is not None:
        out.append(shield.name)
    return tuple(out)


def locations(sheet: Sheet) -> tuple[LocationInit, ...]:
    """Rolemaster counts hits on the whole body: one location, ``body``."""
    return (LocationInit(name="body", hp=sheet.hits),)
