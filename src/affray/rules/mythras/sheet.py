"""Mythras / CFI character sheets: schema, loading, derived figures.

A sheet is a TOML, YAML or JSON file decoded into :class:`Sheet`. Every
problem becomes a :class:`SheetError` whose message is one line naming the
file, the field and what to do. :func:`derive` computes location HP (B14),
damage modifier (B16), Initiative (B17) and Action Points (seed 001
"Actions in Combat", B18 with ruling ``action_points``).

Units: skills in percent, AP and HP in points.
"""

import os
from typing import Any

import msgspec

from affray.rules.base import check_names, decode_sheet, read_sheet_data, suggestion
from affray.text import one_line
from affray import dice
from affray.events.core import LocationInit
from affray.rules.mythras import tables
from affray.rules.mythras.rulings import DEFAULT_RULINGS, Rulings

SYSTEM = "mythras"
CHARACTERISTICS = ("STR", "CON", "SIZ", "DEX", "INT", "POW", "CHA")
#: ``melee``, ``shield``, ``unarmed`` (needs no hand to hold it), ``ranged``.
WEAPON_KINDS = ("melee", "shield", "unarmed", "ranged")
#: Traits the Special Effects Table asks for (seed 001).
TRAITS = ("cutting", "impaling", "bludgeoning", "entangling", "two-handed", "shield", "unarmed", "ranged",
          "barbed", "set", "crossbow", "counter")
#: Weapon reach, shortest first (Mythras weapon tables; seed 001 "Charging":
#: the longer weapon strikes first).
REACHES = ("touch", "short", "medium", "long", "very long")
#: The skills the rules test by name (Evade, Brawn... seed 001); a near
#: miss of one in ``skills`` is refused (:func:`affray.rules.base.check_names`).
RULE_SKILLS = ("Acrobatics", "Athletics", "Brawn", "Endurance", "Evade", "Perception", "Ride", "Unarmed")
_DO = "fix the sheet and try again"


class SheetError(ValueError):
    """A sheet could not be loaded; ``str(err)`` is one line."""


class Characteristics(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The seven characteristics (MI 0002_Characters.md), each 1..100."""

    STR: int
    CON: int
    SIZ: int
    DEX: int
    INT: int
    POW: int
    CHA: int


class Weapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A weapon, shield or natural weapon. ``damage`` dice without the
    damage modifier; ``size`` Small..Enormous (seed 001 "Weapon Size");
    ``reach`` (Touch, Short, Medium, Long, Very Long: the longer strikes
    first against a charge); ``ap``/``hp`` the item's own (Damage Weapon,
    Sunder); ``traits`` from :data:`TRAITS` (``barbed``: yanking it out does
    full damage; ``set``: can be set against a charge).

    Ranged weapons (seed 001 "Ranged Combat"): ``force`` the Size it strikes
    a (shield) parry with (default: ``size``); ``range`` Close/Effective/Long
    as ``"10/30/60"`` (metres); ``load`` Turns to reload (0: none);
    ``impale_size`` the Size of the impaled missile (Impale Effects Table;
    default ``size``); ``damage_modifier`` whether the wielder's Damage
    Modifier applies (self-drawn bows and thrown weapons). ``ward``: how
    many locations it covers when Warding (default 1, shields 2)."""

    name: str
    damage: str
    size: str
    reach: str = "medium"
    ap: int = 0
    hp: int = 0
    traits: list[str] = []
    hands: int = 1
    kind: str = "melee"
    force: str = ""
    range: str = ""
    load: int = 0
    impale_size: str = ""
    damage_modifier: bool = True
    ward: int = 0


class Spell(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A spell or magical ability (seed 001 "Cast Magic", "Hold Magic",
    "Counter Spell"): cast with ``skill`` (a skill on the sheet, e.g.
    Channel or Invocation), taking ``casting_time`` Turns; ``counter`` spells
    can dismiss an incoming spell; ``effect`` is its named effect, told in
    the log (the engine does not resolve spell effects)."""

    name: str
    skill: str
    casting_time: int = 1
    counter: bool = False
    effect: str = ""


class CombatStyle(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A Combat Style (seed 001 "Combat Skill"): one skill for a package of
    weapons, named in ``weapons``."""

    name: str
    skill: int
    weapons: list[str]


class Sheet(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A Mythras / CFI combatant. ``skills`` holds Evade, Endurance, Brawn,
    Athletics, Willpower, Unarmed... ``armour`` worn AP and
    ``natural_armour`` per location; ``extra_ap`` Action Points gained by
    Rank (seed 001); ``ready`` weapons held at the start (default: the first
    style's weapons that fit two hands); ``luck_points`` per session (seed
    001 "Use Luck Point"); ``movement`` the Base Movement Rate in metres;
    ``legs`` (4 or more: a quadruped for Charge, Trip Opponent and Leaping
    Attacks); ``spells`` (:class:`Spell`); ``height`` in metres (Jump; 0:
    ruling ``default_height``) and ``things`` carried besides worn armour
    (seed 001 "Situational Movement Rates")."""

    name: str
    characteristics: Characteristics
    system: str = SYSTEM
    skills: dict[str, int] = {}
    combat_styles: list[CombatStyle] = []
    weapons: list[Weapon] = []
    armour: dict[str, int] = {}
    natural_armour: dict[str, int] = {}
    extra_ap: int = 0
    ready: list[str] | None = None
    notes: str = ""
    luck_points: int = 0
    movement: int = 6
    legs: int = 2
    spells: list[Spell] = []
    height: float = 0.0
    things: int = 0

    def skill(self, name: str, default: int = 0) -> int:
        """A skill by name, case-insensitive (``default`` when missing)."""
        for k, v in self.skills.items():
            if k.lower() == name.lower():
                return v
        return default

    def weapon(self, name: str) -> Weapon:
        """A weapon by name or unique prefix; ``ValueError`` otherwise."""
        want = name.strip().lower()
        hits = [w for w in self.weapons if w.name.lower() == want] or [
            w for w in self.weapons if w.name.lower().startswith(want)
        ]
        if len(hits) != 1:
            names = ", ".join(w.name for w in self.weapons) or "none"
            raise ValueError(f"{self.name}: weapon {name!r} {'is ambiguous' if hits else 'is not on the sheet'}; weapons: {names}")
        return hits[0]

    def weapon_skill(self, weapon: Weapon) -> tuple[str, int]:
        """(skill name, value) a weapon is used with: the best Combat Style
        listing it, else Unarmed for unarmed weapons (seed 001 "Combat
        Skill"); (name, 0) when nothing covers it."""
        styles = [s for s in self.combat_styles if weapon.name.lower() in (n.lower() for n in s.weapons)]
        if styles:
            best = max(styles, key=lambda s: s.skill)
            return best.name, best.skill
        if weapon.kind == "unarmed":
            return "Unarmed", self.skill("Unarmed")
        return weapon.name, 0


class Derived(msgspec.Struct, frozen=True, kw_only=True):
    """Derived figures: ``action_points`` per round, ``initiative`` (the
    modifier, before armour), ``armour_penalty`` (highest worn AP),
    ``damage_modifier`` dice or ``""``, ``locations`` with HP and AP."""

    action_points: int
    initiative: int
    armour_penalty: int
    damage_modifier: str
    locations: tuple[LocationInit, ...]
    ready: tuple[str, ...]


def _fail(label: str, path: str, what: str) -> SheetError:
    return SheetError(one_line(f"{label}: {path}: {what}; {_DO}" if path else f"{label}: {what}; {_DO}"))


def _norm_loc(label: str, path: str, name: str) -> str:
    n = " ".join(name.replace("-", " ").replace("_", " ").lower().split())
    if n not in tables.LOCATION_NAMES:
        raise _fail(label, path, f"unknown location {name!r} (locations: {', '.join(tables.LOCATION_NAMES)})")
    return n


def validate_sheet(sheet: Sheet, label: str = "sheet") -> Sheet:
    """Check ranges and names; return the sheet with canonical location
    names. Raises :class:`SheetError` (one line)."""
    if sheet.system.lower() not in (SYSTEM, "cfi"):
        raise SheetError(f"{label}: system: this is a {sheet.system!r} sheet, not mythras; join it to a {sheet.system} encounter")
    if not sheet.name.strip():
        raise _fail(label, "name", "must not be empty")
    for c in CHARACTERISTICS:
        v = getattr(sheet.characteristics, c)
        if not 1 <= v <= 100:
            raise _fail(label, f"characteristics.{c}", f"must be 1..100, got {v}")
    for k, v in sheet.skills.items():
        if not 0 <= v <= 300:
            raise _fail(label, f"skills.{k}", f"must be 0..300, got {v}")
    names = set()
    for i, w in enumerate(sheet.weapons):
        p = f"weapons[{i}]"
        if w.name.lower() in names:
            raise _fail(label, f"{p}.name", f"{w.name!r} appears twice")
        names.add(w.name.lower())
        try:
            dice.parse(w.damage)
        except Exception:
            raise _fail(label, f"{p}.damage", f"{w.damage!r} is not a dice expression like 1D8 or 1D6+1") from None
        try:
            tables.size_index(w.size)
        except ValueError as exc:
            raise _fail(label, f"{p}.size", str(exc)) from None
        if w.kind not in WEAPON_KINDS:
            raise _fail(label, f"{p}.kind", f"must be one of {', '.join(WEAPON_KINDS)}, got {w.kind!r}")
        for t in w.traits:
            if t not in TRAITS:
                raise _fail(label, f"{p}.traits", f"unknown trait {t!r} (traits: {', '.join(TRAITS)})")
        if w.hands not in (1, 2) or not 0 <= w.ap <= 100 or not 0 <= w.hp <= 1000:
            raise _fail(label, p, "hands must be 1 or 2, ap 0..100, hp 0..1000")
        if w.reach.lower() not in REACHES:
            raise _fail(label, f"{p}.reach", f"must be one of {', '.join(REACHES)}, got {w.reach!r}")
        for field in ("force", "impale_size"):
            if getattr(w, field):
                try:
                    tables.size_index(getattr(w, field))
                except ValueError as exc:
                    raise _fail(label, f"{p}.{field}", str(exc)) from None
        if w.range:
            try:
                bands = [int(x) for x in w.range.split("/")]
            except ValueError:
                bands = []
            if len(bands) != 3 or not 0 < bands[0] <= bands[1] <= bands[2]:
                raise _fail(label, f"{p}.range", f"{w.range!r} must be Close/Effective/Long, e.g. '10/30/60'")
        if not 0 <= w.load <= 20 or not 0 <= w.ward <= 6:
            raise _fail(label, p, "load must be 0..20 and ward 0..6")
    styled = set()
    for i, s in enumerate(sheet.combat_styles):
        if not 0 <= s.skill <= 300:
            raise _fail(label, f"combat_styles[{i}].skill", f"must be 0..300, got {s.skill}")
        for n in s.weapons:
            if n.lower() not in names:
                raise _fail(label, f"combat_styles[{i}].weapons", f"{n!r} is not among the sheet's weapons"
                            + suggestion(n, [w.name for w in sheet.weapons]))
            styled.add(n.lower())
    for i, w in enumerate(sheet.weapons):  # issue 16: an unstyled weapon would attack at 0%
        if w.kind != "unarmed" and w.name.lower() not in styled:
            raise _fail(label, f"weapons[{i}]", f"{w.name!r} is in no combat style (seed 001 \"Combat Skill\"); "
                        "list it in a [[combat_styles]] weapons list")
    try:
        check_names(label, "skills", sheet.skills, RULE_SKILLS)
    except ValueError as exc:
        raise SheetError(str(exc)) from None
    armour = {_norm_loc(label, f"armour.{k}", k): v for k, v in sheet.armour.items()}
    natural = {_norm_loc(label, f"natural_armour.{k}", k): v for k, v in sheet.natural_armour.items()}
    for k, v in list(armour.items()) + list(natural.items()):
        if not 0 <= v <= 100:
            raise _fail(label, f"armour.{k}", f"must be 0..100, got {v}")
    if not 0 <= sheet.extra_ap <= 10:
        raise _fail(label, "extra_ap", f"must be 0..10, got {sheet.extra_ap}")
    if not 0 <= sheet.luck_points <= 20:
        raise _fail(label, "luck_points", f"must be 0..20, got {sheet.luck_points}")
    if not 0 <= sheet.movement <= 100 or not 0 <= sheet.legs <= 100:
        raise _fail(label, "movement", "movement must be 0..100 metres and legs 0..100")
    if not 0 <= sheet.height <= 100 or not 0 <= sheet.things <= 1000:
        raise _fail(label, "height", "height must be 0..100 metres and things 0..1000")
    for i, sp in enumerate(sheet.spells):
        if not sp.name.strip() or not 1 <= sp.casting_time <= 20:
            raise _fail(label, f"spells[{i}]", "a spell needs a name and a casting_time of 1..20 Turns")
        if sp.skill.lower() not in (k.lower() for k in sheet.skills):
            raise _fail(label, f"spells[{i}].skill", f"{sp.skill!r} is not among the sheet's skills" + suggestion(sp.skill, sheet.skills))
    for n in sheet.ready or []:
        if n.lower() not in names:
            raise _fail(label, "ready", f"{n!r} is not among the sheet's weapons" + suggestion(n, [w.name for w in sheet.weapons]))
    return msgspec.structs.replace(sheet, armour=armour, natural_armour=natural, system=SYSTEM)


def parse_sheet(data: Any, label: str = "sheet") -> Sheet:
    """A validated :class:`Sheet` from plain data; :class:`SheetError`."""
    try:
        sheet = decode_sheet(data, Sheet, label)  # one line naming the key (affray.rules.base)
    except ValueError as exc:
        raise SheetError(str(exc)) from None
    return validate_sheet(sheet, label)


def load_sheet(path: str | os.PathLike[str]) -> Sheet:
    """Load a sheet from ``.toml``, ``.yaml``/``.yml`` or ``.json``;
    :class:`SheetError` (one line) when it cannot be read or is invalid."""
    label = str(path)
    try:
        data = read_sheet_data(path)  # the file's plain data, one-line errors (affray.rules.base)
    except ValueError as exc:
        raise SheetError(str(exc)) from None
    return parse_sheet(data, label)


def default_ready(sheet: Sheet) -> tuple[str, ...]:
    """Weapons held at the start: ``sheet.ready``, else held weapons in
    sheet order while two hands allow (unarmed weapons need none)."""
    if sheet.ready is not None:
        return tuple(sheet.ready)
    out, hands = [], 0
    for w in sheet.weapons:
        if w.kind == "unarmed":
            continue
        if hands + w.hands <= 2:
            out.append(w.name)
            hands += w.hands
    return tuple(out)


def derive(sheet: Sheet, rulings: Rulings | None = None) -> Derived:
    """The figures the engine needs (sources on each table function):
    location HP from CON+SIZ (B14), AP = worn + natural per location (B12),
    damage modifier from STR+SIZ (B16), Initiative = ceil((DEX+INT)/2)
    (B17), armour penalty = highest worn AP (seed 001 "Armor"; B12), Action
    Points = 2 + ``extra_ap`` (seed 001) or the INT+DEX table (B18)."""
    rulings = rulings or DEFAULT_RULINGS
    ch = sheet.characteristics
    if rulings.action_points == "int-dex":
        ap = tables.action_points_int_dex(ch.INT + ch.DEX)
    else:
        ap = 2 + sheet.extra_ap
    hp = tables.location_hp(ch.CON + ch.SIZ)
    locations = tuple(
        LocationInit(
            name=l.name,
            hp=hp[l.name],
            ap=sheet.armour.get(l.name, 0) + sheet.natural_armour.get(l.name, 0),
            low=l.low,
            high=l.high,
            limb=l.limb,
        )
        for l in tables.LOCATIONS
    )
    return Derived(
        action_points=ap,
        initiative=tables.initiative(ch.DEX, ch.INT),
        armour_penalty=max(sheet.armour.values(), default=0),
        damage_modifier=tables.damage_modifier(ch.STR + ch.SIZ),
        locations=locations,
        ready=default_ready(sheet),
    )
