"""Loading and indexing the rule systems' data tables (DESIGN.md, "Rule
systems": ``tables.py`` + ``data/*.toml`` with sources).

Every system keeps its tables as TOML files under
``rules/<system>/data/``, each table with a ``source = "..."`` note, and
decodes them once at import into typed, frozen structs that refuse unknown
keys. What the systems share lives here: the struct bases, the loader, the
row shapes more than one system reads (a d20 hit location, a band of a
characteristic table) and the lookups built on rows. What a table means
stays in the system's own ``tables.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, TypeVar

import msgspec

__all__ = ["Band", "HitLocation", "Row", "Sourced", "band_of", "by_key", "load", "location_of", "sources"]

T = TypeVar("T")


class Row(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A row or table of a data file: frozen, and a key the struct does not
    name is an error at import (a typo in the data fails loudly)."""


class Sourced(Row):
    """A table (or a whole data file) with its ``source`` note."""

    source: str


class HitLocation(Row):
    """A row of a humanoid hit location table: the location, the d20 range
    that strikes it and its limb (``leg``, ``arm`` or "")."""

    name: str
    low: int
    high: int
    limb: str


class Band(Row):
    """A band of a characteristic table: ``low``..``high`` gives ``value``;
    a band without ``high`` is open-ended."""

    low: int
    value: int | str
    high: int | None = None


def load(data: Path, name: str, typ: type[T]) -> T:
    """Decode the TOML file ``name`` of the folder ``data`` as ``typ``."""
    return msgspec.toml.decode((data / name).read_bytes(), type=typ)


def sources(tables: object, names: Iterable[str]) -> dict[str, str]:
    """The ``source`` note of each named table of a decoded file."""
    return {name: getattr(tables, name).source for name in names}


def by_key(rows: Iterable[T]) -> dict[str, T]:
    """Rows by their ``key``, in table order."""
    return {r.key: r for r in rows}


def band_of(bands: Iterable[Band], x: int) -> Band | None:
    """The band ``x`` falls in, or None when it is outside every band."""
    for b in bands:
        if b.low <= x and (b.high is None or x <= b.high):
            return b
    return None


def location_of(locations: Iterable[HitLocation], d20: int) -> str | None:
    """The location a d20 roll strikes, or None when no row covers it."""
    for loc in locations:
        if loc.low <= d20 <= loc.high:
            return loc.name
    return None
