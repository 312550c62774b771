"""affray.store: the append-only, hash-chained SQLite event log (DESIGN.md).

``EventStore(path)`` appends command batches atomically with optimistic
concurrency, reads them back decoded or raw, keeps snapshots and verifies the
hash chains. Every error a user can cause is a :class:`StoreError` whose
``str()`` is one line saying what was wrong and what to do.

``canonical`` and ``chain_hash`` (the hash chain, :mod:`affray.store.chain`)
are imported on first use: reading a log never hashes, so read verbs do not
pay for the chain's SHA-256 (:mod:`affray.digest`).

Two narrow read queries for time travel (:mod:`affray.projections.travel`,
which sees the store only through its methods) are defined here and bound to
:class:`EventStore`: ``store.versions_of_type(...)`` (events of one type,
through the type index for the types it holds, without decoding the log) and
``store.any_command_up_to(...)`` (whether given commands have an event at or
before a version). They belong in the class body in ``sqlite.py``; they sit
here only while that file is closed to edits other than import laziness.
"""

from __future__ import annotations

from affray.store.errors import (
    ConflictError,
    DatabaseCorrupt,
    DatabaseLocked,
    DatabaseMissing,
    StoreError,
    UnknownEncounter,
    translate,
)
from affray.store.interface import Store, is_postgres
from affray.store.schema import SCHEMA_VERSION
from affray.store.sqlite import EncounterInfo, EventStore, utc_now

__all__ = [
    "SCHEMA_VERSION",
    "ConflictError",
    "DatabaseCorrupt",
    "DatabaseLocked",
    "DatabaseMissing",
    "EncounterInfo",
    "EventStore",
    "Store",
    "StoreError",
    "UnknownEncounter",
    "canonical",
    "chain_hash",
    "is_postgres",
    "open_store",
    "utc_now",
]


def open_store(target, *, must_exist: bool = False, readonly: bool = False, **options) -> Store:
    """Open the event log at ``target``: a ``postgresql://`` (or
    ``postgres://``) URL opens :class:`affray.store.postgres.PostgresStore`,
    anything else the SQLite file :class:`EventStore` at that path.

    ``must_exist`` and ``readonly`` mean the same on both; other keyword
    options go to the backend (SQLite: ``synchronous``, ``busy_timeout_ms``,
    ``keys``; PostgreSQL: ``keys``, ``pool``). psycopg is imported only
    here, when a URL asks for it. Errors: those of the backend's
    constructor (:class:`DatabaseMissing`, :class:`DatabaseCorrupt`,
    :class:`StoreError`).
    """
    if is_postgres(target):
        # deferred: psycopg is an optional extra and costs ~100 ms to import
        from affray.store.postgres import PostgresStore

        return PostgresStore(target, must_exist=must_exist, readonly=readonly, **options)
    return EventStore(target, must_exist=must_exist, readonly=readonly, **options)


_LAZY = {"canonical": "affray.store.chain", "chain_hash": "affray.store.chain"}


def __getattr__(name: str):
    """``canonical`` and ``chain_hash``, imported when first asked for."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
