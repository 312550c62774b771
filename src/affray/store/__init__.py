"""affray.store: the append-only, hash-chained SQLite event log (DESIGN.md).

``EventStore(path)`` appends command batches atomically with optimistic
concurrency, reads them back decoded or raw, keeps snapshots and verifies the
hash chains. Every error a user can cause is a :class:`StoreError` whose
``str()`` is one line saying what was wrong and what to do.
"""

from affray.store.chain import canonical, chain_hash
from affray.store.errors import (
    ConflictError,
    DatabaseCorrupt,
    DatabaseLocked,
    DatabaseMissing,
    StoreError,
    UnknownEncounter,
)
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
    "StoreError",
    "UnknownEncounter",
    "canonical",
    "chain_hash",
    "utc_now",
]
