"""Rolemaster-style tables: the documented format, loading, validation and
lookups (seed 000 "Attack Procedure", "Dodge action"; rules-reference.md
A4, A8, A10, A11 and "Shape of an attack table").

The published attack and critical tables are copyrighted, so affray ships
the machinery and this format; a GM loads the tables they own. The tables
under ``data/`` are INVENTED (their ``source`` says so) and exist only so
that the demo and the tests run.

A table file is TOML, YAML or CSV. Every file names its ``kind``:

``attack`` (one weapon)
    ``columns``: the armour types, in the order of the cells;
    ``rows``: ``[[LOW, HIGH], [CELL, ...]]`` with one cell per column, the
    ranges (of the modified total) contiguous and not overlapping;
    a cell is ``-`` (or ``0``): a miss, ``N``: N hits, ``N`` + severity
    ``A``-``F`` + an optional critical type letter (``10D``, ``5AS``,
    ``20F``; ``F`` is RMC's E critical plus C critical, A11);
    ``critical_type``: the letter used when a cell has none;
    ``criticals``: type letter -> critical table name;
    ``fumble_range``: ``[LOW, HIGH]`` of the unmodified first die;
    ``fumble_table``: the fumble table's name; ``max_total`` (totals above
    it read as it; below the first row read the first row).

``critical``
    ``type``: its letter; ``columns``: the severities (``A``..``E``, and
    optionally ``F``: without an F column an F critical is rolled as an E
    and a C, ruling ``severity_f``);
    ``rows``: ``[[LOW, HIGH], {SEVERITY = {text, hits, ...effects}}]``
    covering 1..100 exactly (a closed roll).

``fumble``
    ``rows``: ``[[LOW, HIGH], {text, ...effects}]`` covering 1..100.

``moving-maneuver``
    ``columns``: difficulties (``routine`` .. ``absurd``); ``rows``:
    ``[[LOW, HIGH], {DIFFICULTY = {value, text, ...effects}}]``.

``static-maneuver``
    ``rows``: ``[[LOW, HIGH], {outcome, value, text}]``, contiguous; the
    outcome one of :data:`STATIC_OUTCOMES` (the Surprised / Confused rule
    reads it); totals off either end read the end row. Without one, the
    bands of rules-reference.md A8 apply.

``knockback``
    ``terrain``: ``{TERRAIN = {text, ...effects}}``: what landing in each
    terrain adds to a knock-back (seed 000 "Knocked Back": "depending on
    terrain, may suffer additional effects"); a terrain cannot knock back
    again. CSV: ``terrain,text,effects``.

Effects (every cell of a critical, fumble or maneuver table may carry
them, all optional): ``hits``, ``stunned``, ``stunned_no_parry``, ``dazed``
(rounds, cumulative), ``staggered``, ``prone``, ``knocked_back`` (feet),
``initiative`` ("You have initiative"), ``bleed`` (hits per round),
``penalty`` (a lasting maneuver penalty), ``drop_weapon``, ``unconscious``,
``dead``, ``lose_round``.

CSV: lines starting ``#`` carry ``# key: value`` metadata (kind first,
source, columns for a critical table...). An attack table's header is
``total`` and the column names; each row ``LOW..HIGH`` and the cells. A
critical or moving-maneuver table's header is ``roll,column,text,effects``
(one line per cell) with effects written ``hits=3;stunned=1`` (a maneuver
cell's number as ``value=20``); a fumble table's ``roll,text,effects``; a
static-maneuver table's ``total,outcome,value,text``. Rows are counted
from the first after the header, as in TOML and YAML.

Errors: :class:`TableError`, one line naming the file, the row and the
column (``sample.toml: row 3, column 'plate': cell '7X' is not -, N or
N+severity+type``).
"""

import csv
import io
import re
import os
from functools import lru_cache

import msgspec

from affray.digest import sha256
from affray.errors import file_stem, file_suffix, special_file
from affray.rules import tables as shared

__all__ = [
    "AttackTable", "Cell", "CriticalTable", "KnockbackTable", "DIFFICULTIES", "DIFFICULTY_MODS", "Effects", "FumbleTable",
    "KINDS", "Loaded", "ManeuverTable", "STATIC_BANDS", "STATIC_OUTCOMES", "StaticBand", "StaticCell", "StaticTable",
    "TableError", "load_file",
    "parse_cell", "parse_table", "sources", "static_band", "DATA", "COVER", "PACE", "CHARGE", "CHARGE_DIFFICULTY", "TERRAIN",
    "charge_band", "step_severity",
]

DATA = os.path.join(os.path.dirname(os.path.realpath(__file__)), "data")  # a str: os.path, not pathlib (3 ms of imports)
KINDS = ("attack", "critical", "fumble", "moving-maneuver", "static-maneuver", "knockback")
#: The outcomes of a static maneuver, worst first (rules-reference.md A8).
STATIC_OUTCOMES = ("spectacular-failure", "absolute-failure", "failure", "partial-success", "near-success",
                   "success", "absolute-success")
#: Critical severities, lightest first (rules-reference.md A11: A-E, and
#: RMC's ``F``, an E critical plus a C critical unless a table has an F column).
SEVERITIES = "ABCDEF"

#: Maneuver difficulties, easiest first, with the modifier added to a roll
#: (rules-reference.md A7).
DIFFICULTIES = ("routine", "easy", "light", "medium", "hard", "very-hard", "extremely-hard", "sheer-folly", "absurd")
DIFFICULTY_MODS = dict(zip(DIFFICULTIES, (30, 20, 10, 0, -10, -20, -30, -50, -70)))


class TableError(ValueError):
    """A table file that does not fit the format; ``str()`` is one line
    naming the file, the row and the column where it can."""


class Effects(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What a cell does, as data (seed 000 "Effects from Criticals")."""

    text: str = ""
    hits: int = 0
    stunned: int = 0
    stunned_no_parry: int = 0
    dazed: int = 0
    staggered: bool = False
    prone: bool = False
    knocked_back: int = 0
    initiative: bool = False
    bleed: int = 0
    penalty: int = 0
    drop_weapon: bool = False
    unconscious: bool = False
    dead: bool = False
    lose_round: bool = False
    value: int = 0  # a maneuver cell's number (a dodge adds it to DB)

    def as_dict(self) -> dict[str, int]:
        """The effects that are set, as ``{name: int}`` (for events)."""
        out = {}
        for f in self.__struct_fields__:
            v = getattr(self, f)
            if f != "text" and v:
                out[f] = int(v)
        return out


class Cell(msgspec.Struct, frozen=True):
    """An attack table cell read: ``hits`` (0 = miss), ``severity``
    (``A``-``F`` or ""), ``crit_type`` (a letter or ""), ``raw`` as written."""

    raw: str
    hits: int = 0
    severity: str = ""
    crit_type: str = ""


_CELL = re.compile(r"^(\d{1,3})(?:([A-F])([A-Z])?)?$")


def parse_cell(text: str) -> Cell:
    """Read an attack table cell: ``-``/``0`` a miss, ``N`` hits, ``N`` +
    severity ``A``-``F`` + optional type letter. Raises ``ValueError``."""
    t = str(text).strip()
    if t in ("-", "0", ""):
        return Cell(raw=t or "-")
    m = _CELL.match(t)
    if not m:
        raise ValueError(f"cell {t!r} is not -, N or N+severity(A-F)+type letter (e.g. 7, 10D, 5AS)")
    return Cell(raw=t, hits=int(m.group(1)), severity=m.group(2) or "", crit_type=m.group(3) or "")


class Row(msgspec.Struct, frozen=True):
    """A row's range of totals or rolls, ``low``..``high`` inclusive."""

    low: int
    high: int


def row_of(rows, x: int, *, clamp: bool = False):
    """The ``(Row, cells)`` pair of ``rows`` whose range holds ``x``; with
    ``clamp`` the first or last row for ``x`` off either end, else
    ``KeyError`` (a closed table's rows cover 1..100, validated on load)."""
    for pair in rows:
        if pair[0].low <= x <= pair[0].high:
            return pair
    if clamp:
        return rows[0] if x < rows[0][0].low else rows[-1]
    raise KeyError(x)


class AttackTable(msgspec.Struct, frozen=True):
    """A weapon attack table (rules-reference.md "Shape of an attack table")."""

    name: str
    source: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Row, tuple[Cell, ...]], ...]
    critical_type: str
    criticals: dict[str, str]
    fumble_range: tuple[int, int]
    fumble_table: str
    max_total: int
    sha256: str
    path: str

    def lookup(self, total: int, column: str) -> tuple[Row, Cell, int]:
        """``(row, cell, read_total)`` for a modified total in ``column``:
        above ``max_total`` it reads as ``max_total``, below the first row
        as the first row. ``KeyError`` for an unknown column."""
        col = self.columns.index(column) if column in self.columns else -1
        if col < 0:
            raise KeyError(column)
        read = max(min(total, self.max_total), self.rows[0][0].low)
        row, cells = row_of(self.rows, read, clamp=True)
        return row, cells[col], read


class CriticalTable(msgspec.Struct, frozen=True):
    """A critical table: a closed d100 per severity column (A11)."""

    name: str
    source: str
    crit_type: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Row, dict[str, Effects]], ...]
    sha256: str
    path: str

    def lookup(self, roll: int, severity: str) -> tuple[Row, Effects]:
        row, cells = row_of(self.rows, roll)
        return row, cells[severity]


class FumbleTable(msgspec.Struct, frozen=True):
    """A fumble table: a closed d100, one result per range."""

    name: str
    source: str
    rows: tuple[tuple[Row, Effects], ...]
    sha256: str
    path: str

    def lookup(self, roll: int) -> tuple[Row, Effects]:
        return row_of(self.rows, roll)


class ManeuverTable(msgspec.Struct, frozen=True):
    """A moving-maneuver table (A10): a column per difficulty."""

    name: str
    source: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Row, dict[str, Effects]], ...]
    sha256: str
    path: str

    def lookup(self, total: int, column: str) -> tuple[Row, Effects, str]:
        """``(row, cell, where)``: ``where`` is ``bottom`` (off the low end:
        a fumble), ``top`` (off the high end: the column's highest number
        and its text) or "" (seed 000 "Dodge action")."""
        first, last = self.rows[0][0], self.rows[-1][0]
        if total < first.low:
            return first, self.rows[0][1][column], "bottom"
        if total > last.high:
            best = max((cells[column] for _, cells in self.rows), key=lambda e: e.value)
            return last, best, "top"
        row, cells = row_of(self.rows, total)
        return row, cells[column], ""


class KnockbackTable(msgspec.Struct, frozen=True):
    """What landing in a terrain adds to a knock-back: ``terrain`` name ->
    its :class:`Effects` (seed 000 "Knocked Back")."""

    name: str
    source: str
    terrain: dict[str, Effects]
    sha256: str
    path: str


class StaticCell(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A static maneuver row's result: ``outcome`` (one of
    :data:`STATIC_OUTCOMES`), ``value`` (the share of the action done, in
    percent) and its ``text``."""

    outcome: str
    value: int = 0
    text: str = ""


class StaticTable(msgspec.Struct, frozen=True):
    """A user-supplied static maneuver table: one column, rows by total;
    totals off either end read the end row (A8's bands are open-ended)."""

    name: str
    source: str
    rows: tuple[tuple[Row, StaticCell], ...]
    sha256: str
    path: str

    def lookup(self, total: int) -> tuple[Row, StaticCell]:
        return row_of(self.rows, total, clamp=True)


Loaded = AttackTable | CriticalTable | FumbleTable | ManeuverTable | StaticTable | KnockbackTable


# --------------------------------------------------------------------------- #
# Static maneuver bands (rules-reference.md A8; RMC static-maneuver.json)
# --------------------------------------------------------------------------- #


class StaticBand(shared.Row):
    """A band of the static maneuver table: totals ``low``..``high``
    (None = open) give ``outcome`` and ``percent`` of the action done."""

    outcome: str
    percent: int
    low: int | None = None
    high: int | None = None


class _StaticFile(shared.Sourced):
    bands: tuple[StaticBand, ...]


_STATIC = shared.load(DATA, "static-maneuver.toml", _StaticFile)
STATIC_BANDS: tuple[StaticBand, ...] = _STATIC.bands
STATIC_SOURCE = _STATIC.source


def static_band(total: int) -> StaticBand:
    """The static maneuver band of a final total (A8)."""
    for b in STATIC_BANDS:
        if (b.low is None or b.low <= total) and (b.high is None or total <= b.high):
            return b
    raise KeyError(total)  # the bands cover every integer; a test checks


# --------------------------------------------------------------------------- #
# Situations of the RMH house rules: cover, pace, charge, terrain
# (data/situations.toml, each block with its source)
# --------------------------------------------------------------------------- #


class Cover(shared.Row):
    """A kind of cover and its DB bonus against an attack (RMH
    ``ob-db-modifiers.md``); ``printed``: RMH prints this figure a digit
    short (+4, +10), read by ruling ``full_cover``."""

    key: str
    db: int
    printed: bool = False


class Pace(shared.Row):
    """A movement pace: its ``multiple`` of the walking rate and the
    modifier to simultaneous actions (RMH ``movement-rules.md``)."""

    key: str
    multiple: float
    ob: int


class ChargeBand(shared.Row):
    """A charge at ``speed`` m/s relative to the defender or more:
    ``hits`` times the hits, ``critical`` severity steps up (RMH
    "Charging")."""

    speed: int
    hits: int
    critical: int


class Terrain(shared.Row):
    """Footing: an OB modifier and what is left of the Quickness part of
    DB (``quickness``: ``full``, ``half`` or ``none``; RMH
    ``ob-db-modifiers.md`` "Terrain Condition")."""

    key: str
    ob: int
    quickness: str = "full"


class _CoverTable(shared.Sourced):
    rows: tuple[Cover, ...]


class _PaceTable(shared.Sourced):
    rows: tuple[Pace, ...]


class _ChargeTable(shared.Sourced):
    rows: tuple[ChargeBand, ...]


class _TerrainTable(shared.Sourced):
    rows: tuple[Terrain, ...]


class _Situations(shared.Row):
    cover: _CoverTable
    pace: _PaceTable
    charge: _ChargeTable
    terrain: _TerrainTable


_SITUATIONS = shared.load(DATA, "situations.toml", _Situations)
COVER: dict[str, Cover] = shared.by_key(_SITUATIONS.cover.rows)
PACE: dict[str, Pace] = shared.by_key(_SITUATIONS.pace.rows)
CHARGE: tuple[ChargeBand, ...] = _SITUATIONS.charge.rows
TERRAIN: dict[str, Terrain] = shared.by_key(_SITUATIONS.terrain.rows)
SITUATION_SOURCES = shared.sources(_SITUATIONS, ("cover", "pace", "charge", "terrain"))


#: The moving-maneuver difficulty of a charge at a pace's multiple (RMH
#: ``moving-maneuver-difficulties.md``: "Running fast, x3 pace | Easy",
#: "x4 pace | Light", "x5 pace | Medium"); x2 (jog) is not listed there:
#: Routine, our ruling (one step below x3).
CHARGE_DIFFICULTY: dict[float, str] = {2.0: "routine", 3.0: "easy", 4.0: "light", 5.0: "medium"}


def charge_band(speed: float) -> ChargeBand | None:
    """The charge band of a relative ``speed`` in m/s: the fastest band
    whose speed it reaches, or None below the slowest (no charge bonus)."""
    hits = [b for b in CHARGE if speed >= b.speed]
    return hits[-1] if hits else None


def step_severity(severity: str, steps: int) -> str:
    """``severity`` raised ``steps`` letters, at most ``F`` ("" stays "")."""
    if not severity or not steps:
        return severity
    return SEVERITIES[min(len(SEVERITIES) - 1, SEVERITIES.index(severity) + steps)]


# --------------------------------------------------------------------------- #
# Loading and validation
# --------------------------------------------------------------------------- #

_RANGE = re.compile(r"^\s*(-?\d+)\s*(?:\.\.|–|-)\s*(-?\d+)\s*$")


class _Raw(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    kind: str
    source: str
    name: str = ""
    columns: list[str] = []
    rows: list = []
    critical_type: str = ""
    criticals: dict[str, str] = {}
    fumble_range: list[int] = msgspec.field(default_factory=lambda: [1, 2])
    fumble_table: str = ""
    max_total: int = 150
    type: str = ""
    terrain: dict[str, object] = {}


def _decode(path: str, raw: bytes) -> dict:
    label = str(path)
    suffix = file_suffix(path).lower()
    try:
        if suffix == ".toml":
            return msgspec.toml.decode(raw)
        if suffix in (".yaml", ".yml"):
            data = msgspec.yaml.decode(raw)
            if not isinstance(data, dict):
                raise TableError(f"{label}: a table file is a mapping (kind, source, columns, rows)")
            return data
        if suffix == ".csv":
            return _from_csv(label, raw.decode("utf-8"))
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise TableError(f"{label}: not valid {suffix[1:].upper()} ({' '.join(str(exc).split())})") from None
    raise TableError(f"{label}: unknown table format; use .toml, .yaml, .yml or .csv")


def _from_csv(label: str, text: str) -> dict:
    meta: dict[str, object] = {}
    body = []
    for line in text.splitlines():
        if line.startswith("#"):
            key, sep, value = line[1:].partition(":")
            if sep:
                meta[key.strip()] = value.strip()
            continue
        if line.strip():
            body.append(line)
    rows = list(csv.reader(io.StringIO("\n".join(body))))
    if not rows:
        raise TableError(f"{label}: no header row")
    header = [h.strip() for h in rows[0]]
    kind = str(meta.get("kind", ""))
    if kind not in KINDS:
        raise TableError(f"{label}: a CSV table starts with a '# kind: KIND' line, KIND one of {', '.join(KINDS)}")
    for key in ("columns", "fumble_range"):
        if key in meta:
            meta[key] = [x.strip() for x in str(meta[key]).split(",")]
    if "fumble_range" in meta:
        try:
            meta["fumble_range"] = [int(x) for x in meta["fumble_range"]]  # type: ignore[union-attr]
        except ValueError:
            raise TableError(f"{label}: fumble_range is LOW,HIGH (integers)") from None
    if "max_total" in meta:
        try:
            meta["max_total"] = int(str(meta["max_total"]))
        except ValueError:
            raise TableError(f"{label}: max_total is an integer") from None
    if "criticals" in meta:
        meta["criticals"] = dict(p.split("=", 1) for p in str(meta["criticals"]).split(";") if "=" in p)
    data_rows: list[list[object]] = []
    # rows are counted from the first after the header, as in TOML and YAML
    if kind == "attack":
        meta.setdefault("columns", header[1:])
        for n, r in enumerate(rows[1:], start=1):
            data_rows.append([_csv_range(label, n, r[0] if r else ""), [c.strip() for c in r[1:]]])
    elif kind in ("critical", "moving-maneuver"):
        grouped: dict[str, dict[str, dict]] = {}
        ranges: dict[str, list[int]] = {}
        for n, r in enumerate(rows[1:], start=1):
            if len(r) < 3:
                raise TableError(f"{label}: row {n}: expected roll,column,text[,effects]")
            key = r[0].strip()
            ranges.setdefault(key, _csv_range(label, n, key))
            grouped.setdefault(key, {})[r[1].strip()] = {"text": r[2].strip(), **_csv_effects(label, n, r[3] if len(r) > 3 else "")}
        data_rows = [[ranges[k], v] for k, v in grouped.items()]
    elif kind == "knockback":
        terrain: dict[str, object] = {}
        for n, r in enumerate(rows[1:], start=1):
            if len(r) < 2 or not r[0].strip():
                raise TableError(f"{label}: row {n}: expected terrain,text[,effects]")
            terrain[r[0].strip()] = {"text": r[1].strip(), **_csv_effects(label, n, r[2] if len(r) > 2 else "")}
        meta["terrain"] = terrain
    elif kind == "static-maneuver":
        for n, r in enumerate(rows[1:], start=1):
            if len(r) < 2:
                raise TableError(f"{label}: row {n}: expected total,outcome[,value[,text]]")
            value = r[2].strip() if len(r) > 2 and r[2].strip() else "0"
            if not value.lstrip("-").isdigit():
                raise TableError(f"{label}: row {n}, column 'value': {value!r} is not an integer")
            data_rows.append([_csv_range(label, n, r[0]), {"outcome": r[1].strip(), "value": int(value),
                                                            "text": r[3].strip() if len(r) > 3 else ""}])
    else:
        for n, r in enumerate(rows[1:], start=1):
            if len(r) < 2:
                raise TableError(f"{label}: row {n}: expected roll,text[,effects]")
            data_rows.append([_csv_range(label, n, r[0]), {"text": r[1].strip(), **_csv_effects(label, n, r[2] if len(r) > 2 else "")}])
    meta["rows"] = data_rows
    return meta


def _csv_range(label: str, n: int, text: str) -> list[int]:
    m = _RANGE.match(text)
    if not m:
        raise TableError(f"{label}: row {n}, column 'total': range {text!r} is not LOW..HIGH")
    return [int(m.group(1)), int(m.group(2))]


def _csv_effects(label: str, n: int, text: str) -> dict:
    out: dict[str, object] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        key, sep, value = part.partition("=")
        if not sep:
            out[key.strip()] = True
            continue
        try:
            out[key.strip()] = int(value)
        except ValueError:
            raise TableError(f"{label}: row {n}, column 'effects': {part!r} needs an integer value") from None
    return out


def _range(label: str, n: int, value: object) -> Row:
    if isinstance(value, str):
        m = _RANGE.match(value)
        if m:
            return Row(int(m.group(1)), int(m.group(2)))
    if (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        if value[0] > value[1]:
            raise TableError(f"{label}: row {n}: range {value} runs backwards; write [LOW, HIGH]")
        return Row(value[0], value[1])
    raise TableError(f"{label}: row {n}: range {value!r} is not [LOW, HIGH]")


def _contiguous(label: str, ranges: list[Row], *, closed: bool) -> None:
    if not ranges:
        raise TableError(f"{label}: the table has no rows")
    for n, (a, b) in enumerate(zip(ranges, ranges[1:]), start=2):
        if b.low <= a.high:
            raise TableError(f"{label}: row {n}: range {b.low}..{b.high} overlaps the row before ({a.low}..{a.high})")
        if b.low != a.high + 1:
            raise TableError(f"{label}: row {n}: totals {a.high + 1}..{b.low - 1} fall between rows; close the gap")
    if closed and (ranges[0].low != 1 or ranges[-1].high != 100):
        raise TableError(f"{label}: a closed d100 table covers 1..100; its rows cover {ranges[0].low}..{ranges[-1].high}")


def _effects(label: str, n: int, column: str, value: object) -> Effects:
    if not isinstance(value, dict):
        raise TableError(f"{label}: row {n}, column {column!r}: a cell is a table of text and effects")
    try:
        return msgspec.convert(value, Effects)
    except msgspec.ValidationError as exc:
        raise TableError(f"{label}: row {n}, column {column!r}: {exc}") from None


def _pair(label: str, n: int, row: object) -> tuple[object, object]:
    if not isinstance(row, list) or len(row) != 2:
        raise TableError(f"{label}: row {n}: a row is [[LOW, HIGH], CELLS]")
    return row[0], row[1]


def parse_table(label: str, data: object, *, sha256: str = "", path: str = "") -> Loaded:
    """Validate decoded table data (``label`` names it in errors)."""
    if not isinstance(data, dict):
        raise TableError(f"{label}: a table file is a mapping (kind, source, columns, rows)")
    try:
        raw = msgspec.convert(data, _Raw)
    except msgspec.ValidationError as exc:
        raise TableError(f"{label}: {exc}") from None
    name = raw.name or file_stem(label)
    if raw.kind not in KINDS:
        raise TableError(f"{label}: kind {raw.kind!r} is not one of {', '.join(KINDS)}")
    if not raw.source.strip():
        raise TableError(f"{label}: every table needs a source note (where its figures come from)")
    if raw.kind == "knockback":
        if not raw.terrain:
            raise TableError(f"{label}: a knockback table needs terrain = {{ NAME = {{ text = \"...\", ... }} }}")
        out_t = {}
        for n, (key, cell) in enumerate(raw.terrain.items(), start=1):
            eff = _effects(label, n, key, cell)
            if eff.knocked_back:
                raise TableError(f"{label}: row {n}, column {key!r}: a terrain cannot knock back again")
            out_t[key] = eff
        return KnockbackTable(name, raw.source, out_t, sha256, path)
    rows = [_pair(label, n, r) for n, r in enumerate(raw.rows, start=1)]
    ranges = [_range(label, n, r[0]) for n, r in enumerate(rows, start=1)]
    if raw.kind == "attack":
        cols = tuple(raw.columns)
        if not cols:
            raise TableError(f"{label}: an attack table needs columns (its armour types)")
        _contiguous(label, ranges, closed=False)
        out = []
        for n, ((_, cells), rng) in enumerate(zip(rows, ranges), start=1):
            if not isinstance(cells, list) or len(cells) != len(cols):
                got = len(cells) if isinstance(cells, list) else "no"
                raise TableError(f"{label}: row {n}: {got} cells for {len(cols)} columns ({', '.join(cols)})")
            parsed = []
            for col, cell in zip(cols, cells):
                try:
                    parsed.append(parse_cell(str(cell)))
                except ValueError as exc:
                    raise TableError(f"{label}: row {n}, column {col!r}: {exc}") from None
            out.append((rng, tuple(parsed)))
        if len(raw.fumble_range) != 2 or raw.fumble_range[0] > raw.fumble_range[1] or raw.fumble_range[0] < 1:
            raise TableError(f"{label}: fumble_range is [LOW, HIGH] within 1..100, got {raw.fumble_range}")
        ctype = raw.critical_type
        for n, (_, cells) in enumerate(out, start=1):
            for col, cell in zip(cols, cells):
                letter = cell.crit_type or ctype
                if cell.severity and not letter:
                    raise TableError(f"{label}: row {n}, column {col!r}: critical {cell.raw!r} has no type letter and the table no critical_type")
                if cell.severity and letter not in raw.criticals:
                    raise TableError(f"{label}: row {n}, column {col!r}: no critical table named for type {letter!r}; add it to criticals")
        return AttackTable(name, raw.source, cols, tuple(out), ctype, dict(raw.criticals),
                           (raw.fumble_range[0], raw.fumble_range[1]), raw.fumble_table, raw.max_total, sha256, path)
    if raw.kind == "static-maneuver":
        _contiguous(label, ranges, closed=False)
        cells = []
        for n, ((_, cell), rng) in enumerate(zip(rows, ranges), start=1):
            if not isinstance(cell, dict):
                raise TableError(f"{label}: row {n}, column 'result': a cell is a table of outcome, value and text")
            try:
                got = msgspec.convert(cell, StaticCell)
            except msgspec.ValidationError as exc:
                raise TableError(f"{label}: row {n}, column 'result': {exc}") from None
            if got.outcome not in STATIC_OUTCOMES:
                raise TableError(f"{label}: row {n}, column 'result': outcome {got.outcome!r} is not one of {', '.join(STATIC_OUTCOMES)}")
            cells.append((rng, got))
        return StaticTable(name, raw.source, tuple(cells), sha256, path)
    if raw.kind == "fumble":
        _contiguous(label, ranges, closed=True)
        return FumbleTable(name, raw.source, tuple((rng, _effects(label, n, "result", cell))
                                                   for n, ((_, cell), rng) in enumerate(zip(rows, ranges), start=1)),
                           sha256, path)
    cols = tuple(raw.columns)
    if raw.kind == "critical":
        cols = cols or tuple(SEVERITIES[:5])
        bad = [c for c in cols if c not in SEVERITIES]
        if bad:
            raise TableError(f"{label}: critical columns are severities A-F, not {', '.join(bad)}")
        if not re.fullmatch(r"[A-Z]", raw.type or ""):
            raise TableError(f"{label}: a critical table needs its type letter (type = \"S\")")
    else:
        cols = cols or DIFFICULTIES
        bad = [c for c in cols if c not in DIFFICULTIES]
        if bad:
            raise TableError(f"{label}: maneuver columns are difficulties ({', '.join(DIFFICULTIES)}), not {', '.join(bad)}")
    _contiguous(label, ranges, closed=raw.kind == "critical")
    out2 = []
    for n, ((_, cells), rng) in enumerate(zip(rows, ranges), start=1):
        if not isinstance(cells, dict):
            raise TableError(f"{label}: row {n}: the cells are a table with one entry per column ({', '.join(cols)})")
        extra = [k for k in cells if k not in cols]
        if extra:
            raise TableError(f"{label}: row {n}, column {extra[0]!r}: not a column of this table ({', '.join(cols)})")
        missing = [c for c in cols if c not in cells]
        if missing:
            raise TableError(f"{label}: row {n}, column {missing[0]!r}: the cell is missing")
        out2.append((rng, {c: _effects(label, n, c, cells[c]) for c in cols}))
    if raw.kind == "critical":
        return CriticalTable(name, raw.source, raw.type, cols, tuple(out2), sha256, path)
    return ManeuverTable(name, raw.source, cols, tuple(out2), sha256, path)


def load_file(path: str | os.PathLike[str]) -> Loaded:
    """Load and validate one table file. Raises :class:`TableError`, also
    for a folder, FIFO, socket or device (a FIFO would hang)."""
    p = os.fspath(path)
    kind = special_file(p)
    if kind:
        raise TableError(f"{p} is {kind}, not a regular file; name a table file")
    try:
        with open(p, "rb") as fh:
            raw = fh.read()
    except OSError:
        raise TableError(f"{p}: cannot read the file; check the path") from None
    return _cached(p, raw)


@lru_cache(maxsize=128)
def _cached(path: str, raw: bytes) -> Loaded:
    return parse_table(path, _decode(path, raw), sha256=sha256(raw).hexdigest(), path=path)


def find(name: str, dirs: tuple[str, ...]) -> str | None:
    """The file of table ``name``: a path (absolute, or naming a file that
    exists), else ``NAME.toml|.yaml|.yml|.csv`` in the first of ``dirs``
    (then the shipped samples) that has it."""
    if file_suffix(name) and os.path.isfile(name):
        return name
    for d in (*dirs, DATA):
        if not d:
            continue
        for suffix in (".toml", ".yaml", ".yml", ".csv"):
            p = os.path.join(d, f"{name}{suffix}")
            if os.path.isfile(p):
                return p
    return None


def sources() -> dict[str, str]:
    """The ``source`` note of every shipped table."""
    out = {"static-maneuver": STATIC_SOURCE, **{f"situations: {k}": v for k, v in SITUATION_SOURCES.items()}}
    for name in sorted(n for n in os.listdir(DATA) if n.endswith(".toml") and not n.startswith(".")):
        stem = file_stem(name)
        if stem not in ("static-maneuver", "situations"):
            out[stem] = load_file(os.path.join(DATA, name)).source
    return out
