"""RuneQuest III character sheets: schema, loading, derived figures.

A sheet is a TOML, YAML or JSON file decoded into :class:`Sheet`. Every
problem becomes a :class:`SheetError` whose message is one line naming the
file, the field and what to do. :func:`derive` computes total and location
HP (rules-reference.md C7-C8), the damage modifier (C5), DEX and SIZ strike
ranks (C4) and the armour per location with the overlapping-armour rule
(seed 002 "POINTS FOR OVERLAPPING ARMOR").

Units: skills in percent, HP and AP in points, lengths and movement in
metres (movement per Move Phase, seed 002 "MOVE").
"""

import math
import os

import msgspec

from affray.rules.base import check_names, decode_sheet, read_sheet_data, suggestion
from affray import dice
from affray.events.core import LocationInit
from affray.rules.rq3 import tables

CHARACTERISTICS = ("STR", "CON", "SIZ", "INT", "POW", "DEX", "APP")
#: ``melee``, ``shield``, ``missile`` (fired or thrown), ``unarmed``.
WEAPON_KINDS = ("melee", "shield", "missile", "unarmed")
#: The three default modes of attack (seed 002 "MELEE AND MISSILE ATTACKS").
MODES = ("slash", "crush", "impale")
#: Attack tactics open to all (seed 002 "SPECIAL TACTICS").
ATTACK_TACTICS = ("aimed", "slam", "bash", "disarm", "break")
#: Trained ("@") tactics, by what they are used for (seed 002).
TRAINED = {
    "attack": ("@entangle", "@feint", "@flurry", "@aimed-blow"),
    "parry": ("@swordbreaking", "@glancing", "@active", "@weave", "@riposte"),
    "dodge": ("@counter",),
}
ALL_TRAINED = tuple(t for group in TRAINED.values() for t in group)
#: How a parrying blade damages an attacking weapon (seed 002 "Standard Parry").
BLADES = ("none", "bladed", "hafted", "long-hafted")
_DO = "fix the sheet and try again"


class SheetError(ValueError):
    """A sheet could not be loaded; ``str(err)`` is one line."""


class Characteristics(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The seven RQ3 characteristics (each 1..100)."""

    STR: int
    CON: int
    SIZ: int
    INT: int
    POW: int
    DEX: int
    APP: int


class Weapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A weapon, shield or natural weapon.

    ``sr`` the weapon strike rank; ``length`` in metres (engagement range
    1, 2 or 3; seed 002 "RULES OF ENGAGEMENT"); ``damage`` dice without the
    damage modifier; ``ap``/``hp`` the item's own; ``modes`` among slash,
    crush, impale (the first is the default); ``attack``/``parry`` the
    skills in percent (kept apart); ``hands`` 1 or 2; ``flexible`` for
    whips, flails and chains; ``blade`` how it damages weapons it parries;
    ``type`` the weapon-table entry (dagger, naginata, javelin... for the
    seed's table corrections; default: the name in lower case);
    ``range``/``point_blank`` in metres for missiles (point blank defaults
    to a tenth of the range, seed 002); ``thrown`` for thrown weapons;
    ``shield_size`` buckler, small, hoplite, large; ``tactics`` the trained
    ``@`` tactics; ``min_str``/``min_dex`` the weapon's minimums."""

    name: str
    damage: str
    sr: int = 3
    length: float = 1.0
    ap: int = 8
    hp: int = 0
    modes: list[str] = []
    attack: int = 0
    parry: int = 0
    hands: int = 1
    kind: str = "melee"
    flexible: bool = False
    blade: str = "none"
    type: str = ""
    range: int = 0
    point_blank: int = 0
    thrown: bool = False
    shield_size: str = ""
    tactics: list[str] = []
    min_str: int = 0
    min_dex: int = 0
    limb: str = ""


class Piece(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A piece of armour on one location: ``ap`` and whether it is ``soft``
    (cloth, padding, leather: half of it is ignored by a crushing special)."""

    name: str
    ap: int
    soft: bool = False


class Sheet(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A RuneQuest III combatant. ``skills`` by name (Dodge, Maneuver,
    Grapple, Ride, Acrobatics, Breakfall, Jump...); ``armour`` location ->
    pieces (overlapping, seed 002); ``natural_ap`` skin or hide on every
    location; ``move`` the movement rate in metres per Move Phase;
    ``ready`` the weapons held at the start (default: those that fit two
    hands, in sheet order); ``magic_points`` for spells."""

    name: str
    characteristics: Characteristics
    system: str = "rq3"
    notes: str = ""
    move: int = 3
    skills: dict[str, int] = {}
    armour: dict[str, list[Piece]] = {}
    natural_ap: int = 0
    weapons: list[Weapon] = []
    ready: list[str] | None = None
    magic_points: int = 0


class Derived(msgspec.Struct, frozen=True):
    """The figures the engine needs from a sheet."""

    total_hp: int
    locations: tuple[LocationInit, ...]
    damage_modifier: str
    dex_sr: int
    siz_sr: int
    ready: tuple[str, ...]


#: Base chances of the skills the combat rules name (seed 002: Dodge 15%,
#: Maneuver 25%; RQ3 Grapple 25%, Ride 5%, Acrobatics 5%, Jump 25%, Breakfall 0).
BASE_SKILLS = {"Dodge": 15, "Maneuver": 25, "Grapple": 25, "Ride": 5, "Acrobatics": 5, "Jump": 25, "Breakfall": 0}


def corrected(w: Weapon) -> Weapon:
    """The weapon with the seed's weapon-table corrections applied (seed 002
    "MELEE WEAPONS TABLE. Corrections", "MISSILE WEAPONS TABLE. Correction"):
    all daggers impale; naginatas slash instead of impaling; a javelin does
    1D10. Modes default to ``impale`` for daggers, else ``crush``."""
    kind = (w.type or w.name).strip().lower()
    modes = [m.strip().lower() for m in w.modes] or (["impale"] if "dagger" in kind else ["crush"])
    damage = w.damage
    if "dagger" in kind and "impale" not in modes:
        modes.append("impale")
    if "naginata" in kind:
        modes = ["slash"] + [m for m in modes if m not in ("impale", "slash")]
    if "javelin" in kind:
        damage = "1D10"
    tactics = [t if t.startswith("@") else "@" + t for t in (x.strip().lower() for x in w.tactics)]
    return msgspec.structs.replace(w, modes=modes, damage=damage, tactics=tactics)


def parse_sheet(data: object, label: str = "sheet") -> Sheet:
    """Validate plain data as a sheet (corrections applied); raise
    :class:`SheetError` with one line."""
    try:
        sheet = decode_sheet(data, Sheet, label)  # one line naming the key (affray.rules.base)
    except ValueError as exc:
        raise SheetError(str(exc)) from None
    for k in CHARACTERISTICS:
        v = getattr(sheet.characteristics, k)
        if not 1 <= v <= 100:
            raise SheetError(f"{label}: characteristic {k} is {v}, expected 1-100; {_DO}")
    names = set()
    weapons = []
    for w in sheet.weapons:
        if w.name in names:
            raise SheetError(f"{label}: two weapons are called {w.name!r}; name them apart; {_DO}")
        names.add(w.name)
        if w.kind not in WEAPON_KINDS:
            raise SheetError(f"{label}: weapon {w.name!r} has kind {w.kind!r}; use one of {', '.join(WEAPON_KINDS)}")
        if not w.attack and not w.parry:  # issue 16: it would attack and parry at 0%
            raise SheetError(f"{label}: weapon {w.name!r} gives no attack or parry skill (percent); "
                             f"add attack = N and/or parry = N; {_DO}")
        if w.blade not in BLADES:
            raise SheetError(f"{label}: weapon {w.name!r} has blade {w.blade!r}; use one of {', '.join(BLADES)}")
        w = corrected(w)
        for m in w.modes:
            if m not in MODES:
                raise SheetError(f"{label}: weapon {w.name!r} has mode {m!r}; use slash, crush or impale")
        if w.limb and w.limb not in {loc.name for loc in tables.locations()}:
            raise SheetError(f"{label}: weapon {w.name!r} strikes with limb {w.limb!r}; use a location such as "
                             "right arm or left leg")
        for t in w.tactics:
            if t not in ALL_TRAINED:
                raise SheetError(f"{label}: weapon {w.name!r} lists tactic {t!r}; trained tactics are {', '.join(ALL_TRAINED)}")
        try:
            dice.parse(w.damage)
        except ValueError:
            raise SheetError(f"{label}: weapon {w.name!r} damage {w.damage!r} is not a dice expression; {_DO}") from None
        weapons.append(w)
    for where in sheet.armour:
        if where not in {loc.name for loc in tables.locations()}:
            raise SheetError(f"{label}: armour on unknown location {where!r}; use head, chest, abdomen, right/left arm, right/left leg")
    try:  # the rules read skills by their exact name (sheet.skill)
        check_names(label, "skills", sheet.skills, BASE_SKILLS, exact_case=True)
    except ValueError as exc:
        raise SheetError(str(exc)) from None
    for r in sheet.ready or []:
        if r not in names:
            raise SheetError(f"{label}: ready weapon {r!r} is not among the weapons{suggestion(r, names)}; {_DO}")
    return msgspec.structs.replace(sheet, weapons=weapons)


def load_sheet(path: str | os.PathLike[str]) -> Sheet:
    """Load a sheet from ``.toml``, ``.yaml``/``.yml`` or ``.json``;
    :class:`SheetError` (one line) when it cannot be read or is invalid."""
    label = str(path)
    try:
        data = read_sheet_data(path)  # the file's plain data, one-line errors (affray.rules.base)
    except ValueError as exc:
        raise SheetError(str(exc)) from None
    return parse_sheet(data, label)


def layered_ap(pieces: list[Piece], *, crush_special: bool = False) -> int:
    """AP of overlapping pieces: the best piece counts in full, each piece
    under it adds half its AP rounded up (seed 002 "POINTS FOR OVERLAPPING
    ARMOR"; ruling ``overlapping_armour``). A crushing special ignores half
    of soft armour, rounded down (seed 002 "Crush")."""
    values = sorted((p.ap - (p.ap // 2 if crush_special and p.soft else 0) for p in pieces), reverse=True)
    if not values:
        return 0
    return values[0] + sum(math.ceil(v / 2) for v in values[1:])


def default_ready(sheet: Sheet) -> tuple[str, ...]:
    """Weapons held at the start: ``sheet.ready``, else held weapons in
    sheet order while two hands allow (unarmed and missiles are not held)."""
    if sheet.ready is not None:
        return tuple(sheet.ready)
    out, hands = [], 0
    for w in sheet.weapons:
        if w.kind in ("unarmed", "missile"):
            continue
        if hands + w.hands <= 2:
            out.append(w.name)
            hands += w.hands
    return tuple(out)


def derive(sheet: Sheet) -> Derived:
    """Total HP (C7), location HP (C8), AP per location (pieces + natural),
    damage modifier (C5), DEX SR and SIZ SR (C4)."""
    ch = sheet.characteristics
    total = tables.total_hp(ch.CON, ch.SIZ)
    locs = []
    for row in tables.locations():
        part = row.limb or row.name
        ap = layered_ap(sheet.armour.get(row.name, [])) + sheet.natural_ap
        locs.append(LocationInit(name=row.name, hp=tables.location_hp(total, part), ap=ap,
                                 low=row.low, high=row.high, limb=row.limb))
    return Derived(total_hp=total, locations=tuple(locs), damage_modifier=tables.damage_modifier(ch.STR + ch.SIZ),
                   dex_sr=tables.dex_sr(ch.DEX), siz_sr=tables.siz_sr(ch.SIZ), ready=default_ready(sheet))


def skill(sheet: Sheet, name: str) -> int:
    """A skill in percent: the sheet's, else its base chance (0 if unknown)."""
    return sheet.skills.get(name, BASE_SKILLS.get(name, 0))
