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

import datetime
import os
import sys
from typing import Iterable, TypeVar

import msgspec

__all__ = [
    "Band", "HitLocation", "Row", "Sourced", "band_of", "by_key", "cache_path", "load", "location_of", "parsed_toml", "sources",
]

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


def load(data: str | os.PathLike[str], name: str, typ: type[T]) -> T:
    """Decode the TOML file ``name`` of the folder ``data`` as ``typ``.

    The same as ``msgspec.toml.decode(bytes, type=typ)`` (same checks, same
    errors), but the parsed TOML is kept in a cache beside the bytecode
    (:func:`parsed_toml`): parsing the tables with the pure-Python
    ``tomllib`` at every start cost a few milliseconds of each command.
    """
    return msgspec.convert(
        parsed_toml(os.path.join(data, name)),
        typ,
        builtin_types=(datetime.datetime, datetime.date, datetime.time),
        str_keys=True,
    )


def parsed_toml(path: str | os.PathLike[str]) -> object:
    """The plain data of the TOML file at ``path`` (dicts, lists, scalars),
    read from a cache when the cache was made from the same bytes.

    The cache is ``__pycache__/<name>.msgpack`` beside the file, or under
    ``sys.pycache_prefix`` (``PYTHONPYCACHEPREFIX``) as Python puts bytecode.
    It holds the TOML source and its parsed data, and is used only when the
    source is byte for byte the file's: an edited table is parsed again,
    whatever the file times say. It is written as bytecode is (not under
    ``PYTHONDONTWRITEBYTECODE``), atomically; a cache that cannot be read,
    decoded or written is ignored. Raises what ``msgspec.toml.decode``
    raises for a bad file.
    """
    with open(path, "rb") as f:
        source = f.read()
    cache = cache_path(os.fspath(path))
    try:
        with open(cache, "rb") as f:
            kept_source, data = msgspec.msgpack.decode(f.read())
        if kept_source == source:
            return data
    except (OSError, ValueError, TypeError, msgspec.DecodeError):
        pass
    data = msgspec.toml.decode(source)
    if not sys.dont_write_bytecode:
        _write_cache(cache, source, data)
    return data


def cache_path(path: str) -> str:
    """Where the parsed cache of the TOML file ``path`` lives (see :func:`parsed_toml`)."""
    folder, name = os.path.split(os.path.abspath(path))
    if sys.pycache_prefix:
        return os.path.join(sys.pycache_prefix, folder.lstrip(os.sep), name + ".msgpack")
    return os.path.join(folder, "__pycache__", name + ".msgpack")


def _plain(data: object) -> bool:
    """Whether msgpack gives ``data`` back as it is (no TOML dates or times)."""
    if isinstance(data, dict):
        return all(_plain(v) for v in data.values())
    if isinstance(data, list):
        return all(_plain(v) for v in data)
    return isinstance(data, (str, int, float))  # bool is an int


def _write_cache(cache: str, source: bytes, data: object) -> None:
    if not _plain(data):  # a date or time would come back changed: no cache, parse each time
        return
    try:
        blob = msgspec.msgpack.encode((source, data))
    except (TypeError, ValueError, OverflowError):  # an integer beyond 64 bits: no cache
        return
    tmp = f"{cache}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(blob)
        os.replace(tmp, cache)
    except OSError:  # a read-only install: parse each time, as before
        try:
            os.remove(tmp)
        except OSError:
            pass


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
