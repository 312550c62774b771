"""Mongoose RuneQuest 1 character sheets: schema, loading, derived figures.

A sheet is a TOML, YAML or JSON file decoded into :class:`Sheet`
(``msgspec`` structs with ``forbid_unknown_fields``). :func:`load_sheet`
turns every problem into a :class:`SheetError` whose message is ONE line
naming the file, the field path and what to do::

    examples/x.toml: characteristics.DEX: expected int, got str; fix the sheet and try again

:func:`derive` computes the figures the engine needs (Combat Actions,
Reactions, Damage Modifier, Strike Rank modifier, hit locations with HP and
AP), from the tables in :mod:`affray.rules.mrq1.tables`, honouring the
sheet's optional overrides.

Units: skills in percent, movement in metres, AP and HP in points.
Sources: seed 004 (``004_71637fb3cfde52c9.txt``) and rules-reference.md E,
as named on each function.
"""

import os
from typing import Any

import msgspec

from affray.errors import file_suffix, special_file
from affray.rules.base import check_names, decode_sheet, suggestion
from affray.text import one_line
from affray.events.core import LocationInit
from affray import dice
from affray.rules.mrq1 import tables
from affray.rules.mrq1.rulings import DEFAULT_RULINGS, Rulings

__all__ = [
    "CHARACTERISTICS",
    "WEAPON_KINDS",
    "Characteristics",
    "Derived",
    "Sheet",
    "SheetError",
    "Weapon",
    "derive",
    "load_sheet",
    "parse_sheet",
    "validate_sheet",
]

SYSTEM = "mrq1"
#: Characteristic names, in the order of the MRQ1 sheet.
CHARACTERISTICS: tuple[str, ...] = ("STR", "CON", "SIZ", "INT", "POW", "DEX", "CHA")
#: ``melee`` (crafted close-combat weapon), ``shield``, ``unarmed``,
#: ``natural`` (claws, teeth, horns: seed 004 "Natural Weapons"), ``ranged``.
WEAPON_KINDS: tuple[str, ...] = ("melee", "shield", "unarmed", "natural", "ranged")
_HELD_KINDS = ("melee", "shield", "ranged")
#: The skills the rules test by name (seed 004); a near miss of one in
#: ``skills`` (``Resiliance``) is refused (:func:`affray.rules.base.check_names`).
RULE_SKILLS: tuple[str, ...] = ("Acrobatics", "Athletics", "Dodge", "Martial Arts", "Persistence", "Resilience",
                                "Riding", "Shield", "Unarmed")
_DO = "fix the sheet and try again"


class SheetError(ValueError):
    """A sheet could not be loaded; ``str(err)`` is one line naming the file,
    the field and what to do."""


class Characteristics(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The seven characteristics, each 1..100."""

    STR: int
    CON: int
    SIZ: int
    INT: int
    POW: int
    DEX: int
    CHA: int


class Weapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A weapon, shield or natural weapon on a sheet.

    ``skill`` the Weapon (or Shield, Unarmed...) skill in percent;
    ``damage`` a dice expression (``1D8``, ``1D6+1``) without the Damage
    Modifier; ``ap``/``hp`` the item's armour and hit points (AP is what a
    parry deducts, seed 004 "Parry"); ``hands`` 1 or 2; ``impaling`` for
    seed 004 "Impaling Close Combat Attacks"; ``kind`` one of
    :data:`WEAPON_KINDS`; ``reach`` free text (not used by the seed's rules);
    ``group`` the Weapon skill it depends on (``Spear``, ``Polearm``,
    ``Staff``, ``2H Sword``...), which the mounted-combat rules read.
    Ranged weapons also give ``range`` (metres: within it no penalty, up to
    double it the skill is halved, beyond it the attack fails; 0 = no
    figure, the GM says so with ``--range``), ``reload`` (Combat Actions a
    Ready Weapon action takes to reload it, seed 004 "Ready Weapon" and
    "Loading Ranged Weapons") and ``thrown`` (the weapon leaves the hand when
    used: it must be readied again). ``limb`` is the hit location an unarmed
    attack is made with, which a parry hurts (seed 004 "Unarmed Combat":
    "to the limb he is using"); empty: our ruling by the weapon's name
    (kick, knee, leg, foot: the right leg; head: the head; else the right
    arm).
    """

    name: str
    skill: int
    damage: str
    ap: int
    hp: int
    hands: int = 1
    impaling: bool = False
    kind: str = "melee"
    reach: str = ""
    range: int = 0
    reload: int = 1
    thrown: bool = False
    group: str = ""
    limb: str = ""


class Sheet(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An MRQ1 combatant.

    ``skills`` by name (Dodge, Acrobatics, Athletics, Resilience, Unarmed,
    Persistence...); ``armour`` worn AP per hit location (missing = 0;
    counts for the Strike Rank armour penalty); ``natural_armour`` AP of hide
    or scales per location (adds to armour, no Strike Rank penalty; Mythras
    B12 "natural and worn AP add together"); ``movement`` in metres.
    ``combat_actions``, ``damage_modifier``, ``strike_rank`` (the modifier)
    and ``location_hp`` (per location, partial allowed) override the derived
    values when set. ``ready``: weapons held at the start; default: the first
    held weapon and, if it is one-handed, the first shield. ``notes`` is free
    text (e.g. which figures are invented). ``war_trained``: for a mount,
    whether it is used to combat (seed 004 "Untrained Mounts").
    """

    name: str
    characteristics: Characteristics
    system: str = SYSTEM
    skills: dict[str, int] = {}
    weapons: list[Weapon] = []
    armour: dict[str, int] = {}
    natural_armour: dict[str, int] = {}
    movement: int = 8
    hero_points: int = 0
    combat_actions: int | None = None
    damage_modifier: str | None = None
    strike_rank: int | None = None
    location_hp: dict[str, int] | None = None
    ready: list[str] | None = None
    notes: str = ""
    war_trained: bool = True

    def skill(self, name: str, default: int | None = None) -> int:
        """A skill by name, case-insensitive (``"dodge"`` finds ``Dodge``).

        Raises ``ValueError`` naming the known skills if it is missing and
        no ``default`` is given.
        """
        want = name.strip().lower()
        for k, v in self.skills.items():
            if k.lower() == want:
                return v
        if default is not None:
            return default
        raise ValueError(
            f"{self.name} has no skill {name!r}; known skills: {', '.join(self.skills) or 'none'}"
        )

    def weapon(self, name: str) -> Weapon:
        """A weapon by name, case-insensitive; a unique prefix also works.

        Raises ``ValueError`` naming the weapons on the sheet.
        """
        want = name.strip().lower()
        exact = [w for w in self.weapons if w.name.lower() == want]
        if exact:
            return exact[0]
        pref = [w for w in self.weapons if w.name.lower().startswith(want)]
        if len(pref) == 1:
            return pref[0]
        names = ", ".join(w.name for w in self.weapons) or "none"
        what = "is ambiguous" if pref else "is not on the sheet"
        raise ValueError(f"{self.name}: weapon {name!r} {what}; weapons: {names}")


class Derived(msgspec.Struct, frozen=True, kw_only=True):
    """Figures derived from a sheet (after overrides).

    ``combat_actions`` per round (rules-reference.md E1); ``reactions`` per
    round, equal to Combat Actions (seed 004 "Reactions");
    ``damage_modifier`` dice string, ``""`` for none (E2);
    ``strike_rank_mod`` added to 1D10 each round (E5 + ruling);
    ``locations`` in d20 order with HP, AP (worn + natural), d20 range and
    limb (seed 004 "Humanoid Hit Location", E4); ``movement`` metres;
    ``ready`` weapon names held at the start; ``worn_ap_total`` the sum the
    Strike Rank penalty uses.
    """

    combat_actions: int
    reactions: int
    damage_modifier: str
    strike_rank_mod: int
    locations: tuple[LocationInit, ...]
    movement: int
    ready: tuple[str, ...]
    hero_points: int
    worn_ap_total: int


# --------------------------------------------------------------------------- #
# Loading
# --------------------------------------------------------------------------- #

_FORMATS = {".toml": "TOML", ".yaml": "YAML", ".yml": "YAML", ".json": "JSON"}


def _fail(label: str, path: str, what: str, todo: str = _DO) -> SheetError:
    where = f"{label}: {path}: " if path else f"{label}: "
    return SheetError(one_line(f"{where}{what}; {todo}"))


def _is_dice(expr: str) -> bool:
    """True if ``expr`` parses (affray.dice.parse) and rolls at least one die."""
    try:
        return bool(dice.parse(expr).terms)
    except ValueError:
        return False


def _check_range(label: str, path: str, value: int, lo: int, hi: int) -> None:
    if not lo <= value <= hi:
        raise _fail(label, path, f"{value} is out of range {lo}..{hi}")


def _norm_locations(label: str, fname: str, mapping: dict[str, int], lo: int, hi: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for k, v in mapping.items():
        try:
            loc = tables.normalize_location(k)
        except ValueError:
            raise _fail(
                label, f"{fname}.{k}",
                f"unknown hit location (use {', '.join(tables.LOCATIONS)})",
            ) from None
        if loc in out:
            raise _fail(label, f"{fname}.{k}", f"{loc} is given twice")
        _check_range(label, f"{fname}.{k}", v, lo, hi)
        out[loc] = v
    return {loc: out[loc] for loc in tables.LOCATIONS if loc in out}


def _default_ready(weapons: list[Weapon]) -> list[str]:
    held = [w for w in weapons if w.kind in ("melee", "ranged")]
    shields = [w for w in weapons if w.kind == "shield"]
    ready: list[str] = []
    if held:
        ready.append(held[0].name)
    if shields and (not held or held[0].hands == 1):
        ready.append(shields[0].name)
    return ready


def validate_sheet(sheet: Sheet, label: str = "sheet") -> Sheet:
    """Check a decoded sheet's values and return it with canonical names.

    Ranges: characteristics 1..100; skills and weapon skills 0..300; weapon
    ``damage`` a dice expression (``1D8``, ``2D6``, ``1D6+1``); AP 0..100,
    HP 0..1000, hands 1..2, kind in :data:`WEAPON_KINDS`, weapon names
    unique (case-insensitive); armour per known location 0..100 (location
    names are normalised: ``"Right-Leg"`` -> ``"right leg"``); movement
    0..100; hero points 0..100; overrides: combat actions 1..10, damage
    modifier ``""`` or dice, strike rank -50..100, location HP 1..100;
    ``ready`` names weapons on the sheet and needs at most two hands.
    Raises :class:`SheetError` (one line, naming ``label`` and the field).
    """
    if sheet.system.lower() != SYSTEM:
        raise _fail(label, "system", f"this is a {sheet.system!r} sheet, not {SYSTEM}",
                    f"join it to a {sheet.system} encounter or fix the sheet")
    if not sheet.name.strip():
        raise _fail(label, "name", "must not be empty")
    for c in CHARACTERISTICS:
        _check_range(label, f"characteristics.{c}", getattr(sheet.characteristics, c), 1, 100)
    for k, v in sheet.skills.items():
        if not k.strip():
            raise _fail(label, "skills", "a skill name is empty")
        _check_range(label, f"skills.{k}", v, 0, 300)
    try:
        check_names(label, "skills", sheet.skills, RULE_SKILLS)
    except ValueError as exc:
        raise SheetError(str(exc)) from None

    seen: dict[str, int] = {}
    weapons: list[Weapon] = []
    for i, w in enumerate(sheet.weapons):
        p = f"weapons[{i}]"
        if not w.name.strip():
            raise _fail(label, f"{p}.name", "must not be empty")
        key = w.name.strip().lower()
        if key in seen:
            raise _fail(label, f"{p}.name", f"{w.name!r} is also weapons[{seen[key]}]; weapon names must be unique")
        seen[key] = i
        _check_range(label, f"{p}.skill", w.skill, 0, 300)
        if not _is_dice(w.damage):
            raise _fail(label, f"{p}.damage", f"{w.damage!r} is not dice like 1D8, 2D6 or 1D6+1") from None
        _check_range(label, f"{p}.ap", w.ap, 0, 100)
        _check_range(label, f"{p}.hp", w.hp, 0, 1000)
        _check_range(label, f"{p}.hands", w.hands, 1, 2)
        _check_range(label, f"{p}.range", w.range, 0, 10000)
        _check_range(label, f"{p}.reload", w.reload, 0, 20)
        kind = w.kind.strip().lower()
        if kind not in WEAPON_KINDS:
            raise _fail(label, f"{p}.kind", f"{w.kind!r} is not one of {', '.join(WEAPON_KINDS)}")
        limb = w.limb
        if limb.strip():
            try:
                limb = tables.normalize_location(limb)
            except ValueError:
                raise _fail(label, f"{p}.limb", f"{w.limb!r} is not a hit location (use {', '.join(tables.LOCATIONS)})") from None
        weapons.append(msgspec.structs.replace(
            w, name=w.name.strip(), kind=kind, damage=str(dice.parse(w.damage)), limb=limb.strip() and limb
        ))

    armour = _norm_locations(label, "armour", sheet.armour, 0, 100)
    natural = _norm_locations(label, "natural_armour", sheet.natural_armour, 0, 100)
    _check_range(label, "movement", sheet.movement, 0, 100)
    _check_range(label, "hero_points", sheet.hero_points, 0, 100)
    if sheet.combat_actions is not None:
        _check_range(label, "combat_actions", sheet.combat_actions, 1, 10)
    dmod = sheet.damage_modifier
    if dmod is not None:
        dmod = dmod.strip().upper()
        if dmod in ("0", "NONE", "-"):
            dmod = ""
        if dmod:
            if not _is_dice(dmod):
                raise _fail(label, "damage_modifier", f"{sheet.damage_modifier!r} is not dice like +1D4 or -1D2 (or \"\" for none)") from None
            if dmod[0] not in "+-":
                dmod = "+" + dmod
    if sheet.strike_rank is not None:
        _check_range(label, "strike_rank", sheet.strike_rank, -50, 100)
    loc_hp = None
    if sheet.location_hp is not None:
        loc_hp = _norm_locations(label, "location_hp", sheet.location_hp, 1, 100)

    ready = None
    if sheet.ready is not None:
        ready = []
        by_name = {w.name.lower(): w for w in weapons}
        hands = 0
        for j, r in enumerate(sheet.ready):
            w = by_name.get(r.strip().lower())
            if w is None:
                names = ", ".join(w.name for w in weapons) or "none"
                raise _fail(label, f"ready[{j}]", f"{r!r} is not a weapon on the sheet (weapons: {names})"
                            + suggestion(r, [w.name for w in weapons]))
            if w.name in ready:
                raise _fail(label, f"ready[{j}]", f"{w.name!r} is listed twice")
            ready.append(w.name)
            if w.kind in _HELD_KINDS:
                hands += w.hands
        if hands > 2:
            raise _fail(label, "ready", f"{', '.join(ready)} need {hands} hands; ready at most two hands' worth")

    return msgspec.structs.replace(
        sheet,
        system=SYSTEM,
        name=sheet.name.strip(),
        weapons=weapons,
        armour=armour,
        natural_armour=natural,
        damage_modifier=dmod,
        location_hp=loc_hp,
        ready=ready,
    )


def parse_sheet(data: Any, label: str = "sheet") -> Sheet:
    """Build a validated :class:`Sheet` from plain data (a ``dict`` as
    decoded from TOML/YAML/JSON, or as stored in ``CombatantJoined.sheet``).

    Raises :class:`SheetError` with one line naming ``label`` and the field.
    """
    try:
        sheet = decode_sheet(data, Sheet, label)  # one line naming the key (affray.rules.base)
    except ValueError as exc:
        raise SheetError(str(exc)) from None
    return validate_sheet(sheet, label)


def compact(data: dict) -> dict:
    """Plain sheet data without the mounted-combat fields at their defaults
    (``war_trained`` true, a weapon's empty ``group``) and a weapon's empty
    ``limb``, so a sheet that does
    not use them is stored exactly as before they existed."""
    out = dict(data)
    if out.get("war_trained", True) is True:
        out.pop("war_trained", None)
    out["weapons"] = [{k: v for k, v in w.items() if not (k in ("group", "limb") and v == "")} for w in out.get("weapons", [])]
    return out


#: Largest sheet file read (a real sheet is a few KiB).
MAX_SHEET_BYTES = 1024 * 1024
#: Deepest nesting of tables and arrays in a sheet (a real one nests 3 deep).
MAX_SHEET_DEPTH = 32


def _too_deep(label: str) -> SheetError:
    return SheetError(f"{label}: tables or arrays nested more than {MAX_SHEET_DEPTH} deep; {_DO}")


def _check_yaml_depth(label: str, data: bytes) -> None:
    """Refuse YAML nested deeper than :data:`MAX_SHEET_DEPTH` before it is
    composed: libyaml's composer recurses in C (a deep enough file crashes
    the interpreter) and its scanner is quadratic in the flow depth. The
    event stream is read only up to the first level too deep."""
    import yaml  # deferred: a heavy library only YAML sheets need

    depth = 0
    try:
        for ev in yaml.parse(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            if isinstance(ev, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > MAX_SHEET_DEPTH:
                    raise _too_deep(label)
            elif isinstance(ev, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    except yaml.YAMLError:
        return  # the decoder reports it, with its position


def load_sheet(path: str | os.PathLike[str]) -> Sheet:
    """Load an MRQ1 sheet from a ``.toml``, ``.yaml``/``.yml`` or ``.json``
    file (``msgspec.toml``, ``msgspec.yaml`` with the safe loader,
    ``msgspec.json``) and validate it (:func:`validate_sheet`).

    Every failure raises :class:`SheetError` with ONE line naming the file as
    given, the dotted field path (``characteristics.DEX``,
    ``weapons[1].damage``) and what to do.
    """
    label = str(path)
    suffix = file_suffix(path)
    fmt = _FORMATS.get(suffix.lower())
    if fmt is None:
        raise SheetError(f"{label}: unknown sheet format {suffix or '(no extension)'!r}; use .toml, .yaml, .yml or .json")
    kind = special_file(path)  # a FIFO would hang, /dev/zero never end
    if kind:
        raise SheetError(f"{label} is {kind}, not a regular file; name a sheet file")
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_SHEET_BYTES + 1)
    except FileNotFoundError:
        raise SheetError(f"{label}: no such file; check the path") from None
    except OSError as err:
        raise SheetError(f"{label}: cannot read ({err.strerror or err}); check the path") from None
    except ValueError as err:  # a NUL byte in the path
        raise SheetError(f"{label}: cannot read ({err}); check the path") from None
    if len(data) > MAX_SHEET_BYTES:
        raise SheetError(f"{label}: larger than {MAX_SHEET_BYTES // 1024} KiB, too big for a sheet; check the path")
    try:
        if fmt == "TOML":
            raw = msgspec.toml.decode(data)
        elif fmt == "YAML":
            _check_yaml_depth(label, data)
            raw = msgspec.yaml.decode(data)
        else:
            raw = msgspec.json.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError) as err:
        detail = " ".join(str(err).split())
        raise SheetError(f"{label}: not valid {fmt} ({detail}); {_DO}") from None
    except SheetError:
        raise
    except (ValueError, OverflowError) as exc:  # the parser's own refusal, e.g. a 5,000-digit integer (issue 16)
        raise SheetError(f"{label}: not valid ({' '.join(str(exc).split(';')[0].split())}); {_DO}") from None
    except RecursionError:  # the JSON and TOML decoders stop at Python's recursion limit
        raise _too_deep(label) from None
    return parse_sheet(raw, label)


# --------------------------------------------------------------------------- #
# Derived figures
# --------------------------------------------------------------------------- #


def derive(sheet: Sheet, rulings: Rulings | None = None) -> Derived:
    """The figures the engine needs for ``sheet``, honouring its overrides.

    * combat actions: ``sheet.combat_actions`` or :func:`tables.combat_actions`
      (DEX; rules-reference.md E1); reactions = combat actions (seed 004
      "Reactions").
    * damage modifier: ``sheet.damage_modifier`` or
      :func:`tables.damage_modifier` (STR+SIZ; E2).
    * strike rank modifier: ``sheet.strike_rank`` or
      :func:`tables.strike_rank_modifier` (DEX, INT, total worn AP; E5 and
      ruling ``strike_rank_armour_penalty``).
    * locations: HP from ``sheet.location_hp`` where given, else
      :func:`tables.location_hp` (CON+SIZ; E4 + ruling); AP = worn + natural;
      d20 ranges and limb from seed 004 "Humanoid Hit Location".
    * ready: ``sheet.ready`` or the default (first held weapon, plus the
      first shield if that weapon is one-handed).

    Expects a validated sheet (as returned by :func:`load_sheet`).
    """
    rulings = rulings or DEFAULT_RULINGS
    ch = sheet.characteristics
    ca = sheet.combat_actions if sheet.combat_actions is not None else tables.combat_actions(ch.DEX)
    dmod = sheet.damage_modifier if sheet.damage_modifier is not None else tables.damage_modifier(ch.STR + ch.SIZ)
    worn_total = sum(sheet.armour.values())
    if sheet.strike_rank is not None:
        sr = sheet.strike_rank
    else:
        sr = tables.strike_rank_modifier(ch.DEX, ch.INT, worn_total, rulings)
    hp = tables.location_hp(ch.CON + ch.SIZ)
    hp.update(sheet.location_hp or {})
    locations = tuple(
        LocationInit(
            name=name,
            hp=hp[name],
            ap=sheet.armour.get(name, 0) + sheet.natural_armour.get(name, 0),
            low=low,
            high=high,
            limb=tables.limb_of(name),
        )
        for name, (low, high) in tables.HIT_LOCATIONS.items()
    )
    ready = tuple(sheet.ready if sheet.ready is not None else _default_ready(sheet.weapons))
    return Derived(
        combat_actions=ca,
        reactions=ca,
        damage_modifier=dmod,
        strike_rank_mod=sr,
        locations=locations,
        movement=sheet.movement,
        ready=ready,
        hero_points=sheet.hero_points,
        worn_ap_total=worn_total,
    )
