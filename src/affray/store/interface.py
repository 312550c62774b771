"""The store interface: every operation the rest of affray asks of an event log.

One :class:`Store` protocol, implemented by :class:`affray.store.sqlite.EventStore`
(one SQLite file, the embedded default) and
:class:`affray.store.postgres.PostgresStore` (a PostgreSQL database, for many
writers on many machines). Both pass ``tests/test_store_conformance.py``.
Nothing outside :mod:`affray.store` touches SQL; callers see only these
methods (their full docstrings are on :class:`EventStore`).

:func:`affray.store.open_store` picks the backend from the target:
a ``postgresql://`` or ``postgres://`` URL opens PostgreSQL, anything else
is a SQLite file path.

Row shapes (the same on every backend, byte for byte):

* a raw row (``read_raw``): ``(seq, encounter_id, version, command_id, type,
  schema, data, recorded_at, actor, hash)``, ``data`` the stored JSON text
  the hash covers, ``hash`` lowercase hex;
* an import row (``import_records``): ``(version, command_id, type, schema,
  data, recorded_at, actor, hash)``.

Errors are :class:`affray.store.errors.StoreError` subclasses on every
backend: :class:`ConflictError` (exit 3) when the head moved,
:class:`UnknownEncounter`, :class:`DatabaseMissing`, :class:`DatabaseLocked`,
:class:`DatabaseCorrupt`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # typing only: importing the store's modules costs nothing at run time here
    from affray.events.core import Event
    from affray.events.envelope import Live, Recorded
    from affray.store.sqlite import EncounterInfo

#: A raw stored row (see the module docstring).
RawRow = tuple[int, str, int, str, str, int, str, str, str, str]
#: One event of a whole log to import (see the module docstring).
ImportRow = tuple[int, str, str, int, str, str, str, str]

#: URL schemes that select the PostgreSQL backend.
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


class Seeds(Protocol):
    """Where a store keeps the secret dice seeds (:mod:`affray.store.keys`):
    a key file, or for PostgreSQL its owner-only ``dice_keys`` table.
    ``path`` names the place in messages."""

    path: str | None

    def add(self, encounter_id: str, seed: bytes) -> None: ...

    def seeds(self, encounter_id: str) -> list[bytes]: ...

    def find(self, encounter_id: str, commitment: str | None) -> bytes | None: ...


@runtime_checkable
class Store(Protocol):
    """An append-only, hash-chained event log of many encounters.

    ``path`` names the log in messages (a file path, or a URL without its
    password); ``readonly`` is true when opened for reading only; ``keys``
    holds the dice seeds.
    """

    path: str
    readonly: bool
    keys: Seeds

    # writing ------------------------------------------------------------
    def append(
        self,
        encounter_id: str,
        expected_version: int,
        events: Sequence[Event],
        *,
        command_id: str,
        actor: str,
        recorded_at: str | None = None,
        seed: bytes | None = None,
        check: Callable[[list[Recorded]], object] | None = None,
    ) -> list[Recorded]:
        """Append one command's events atomically at ``expected_version + 1 ...``;
        :class:`ConflictError` when the head is not ``expected_version``."""
        ...

    def transaction(self) -> AbstractContextManager[Store]:
        """Several appends (branch, amend) as one transaction: all or none."""
        ...

    def save_snapshot(self, encounter_id: str, version: int, data: bytes) -> None: ...

    def put_seed(self, encounter_id: str, seed: bytes) -> None: ...

    def import_records(self, encounter_id: str, rows: Iterable[ImportRow]) -> int:
        """Store a whole, already chained log as a new encounter; all or nothing."""
        ...

    def append_rows(self, encounter_id: str, expected_version: int, rows: Iterable[ImportRow]) -> int:
        """Append rows already chained onto the head ``expected_version``, as
        they are (amend copies its scratch work with it, branch what it
        built); all or nothing. ``rows`` may be a
        :class:`affray.store.chain.Chained` for this encounter and version
        (checked or hashed before the call): then the write lock is held only
        to check that the head is still the one it chains from, and to
        insert."""
        ...

    # reading ------------------------------------------------------------
    def read(self, encounter_id: str, *, from_version: int = 1, to_version: int | None = None) -> Iterator[Recorded]: ...

    def read_raw(self, encounter_id: str, *, from_version: int = 1, to_version: int | None = None) -> Iterator[RawRow]: ...

    def read_chain(self, encounter_id: str) -> Iterator[tuple]:
        """Every raw row in version order, without the encounter id (``affray verify``'s pass)."""
        ...

    def read_live(
        self,
        encounter_id: str,
        *,
        from_version: int = 1,
        to_version: int | None = None,
        skip: frozenset = frozenset(),
        only: frozenset[str] | None = None,
    ) -> Iterator[Live]: ...

    def fold_rows(self, encounter_id: str, fold, *, from_version: int = 1, to_version: int | None = None):
        """``fold(rows, first)`` over the stored rows ``(command_id, key, data)`` (UTF-8 bytes) of versions
        ``first = from_version, first + 1, ...``; ``fold`` returns ``(result, rows read)``, this returns
        ``result``. :class:`DatabaseCorrupt` when versions in range are missing."""
        ...

    def read_meta(self, encounter_id: str, *, from_version: int = 1, to_version: int | None = None) -> list[Recorded]: ...

    def versions_of_type(
        self,
        encounter_id: str,
        type_: str,
        *,
        match: tuple[str, object, int] | None = None,
        to_version: int | None = None,
        quick: bool = False,
    ) -> list[tuple[int, str, int, str]]:
        """``(version, command_id, schema, data)`` of one event type;
        ``match=(json_path, value, schema)`` filters the rows stored at
        ``schema`` (``json_path`` like ``$.a.b``); ``quick`` may skip rows
        whose JSON is not written as affray writes it (ask again without it)."""
        ...

    def any_command_up_to(self, encounter_id: str, command_ids: Iterable[str], version: int) -> bool: ...

    def version(self, encounter_id: str) -> int: ...

    def head(self, encounter_id: str) -> tuple[int, str]: ...

    def has_encounter(self, encounter_id: str) -> bool: ...

    def encounter_ids(self) -> list[str]: ...

    def encounter_info(self, encounter_id: str) -> EncounterInfo: ...

    def encounter_infos(self) -> list[EncounterInfo]: ...

    def newest_open_encounter(self) -> str | None: ...

    def latest_snapshot(self, encounter_id: str, at_most_version: int) -> tuple[int, bytes] | None: ...

    def snapshot_versions(self, encounter_id: str) -> list[int]: ...

    def snapshot_stream(self, encounter_id: str) -> Iterator[tuple[int, bytes]]: ...

    def snapshots(self, encounter_id: str) -> list[tuple[int, bytes]]: ...

    def get_seed(self, encounter_id: str) -> bytes | None: ...

    def commitment(self, encounter_id: str) -> str | None: ...

    def salts(self, encounter_id: str) -> list[tuple[int, str]]: ...

    def dice_per_command(
        self, encounter_id: str, to_version: int | None = None, *, from_version: int = 1
    ) -> list[tuple[str, int, int]]: ...

    def dice_of(
        self, encounter_id: str, command_ids: Iterable[str], *, from_version: int = 1
    ) -> dict[str, list[tuple[str, list[int]]]]: ...

    def starts_command(self, encounter_id: str, version: int, command_id: str | None = None) -> bool:
        """Whether the event at ``version`` is the first of its command (and
        that command is ``command_id``, when given)."""
        ...

    def engine_high_water(self, encounter_id: str) -> int: ...

    def hash_at(self, encounter_id: str, version: int) -> str | None: ...

    def version_of_hash(self, encounter_id: str, hash_: str) -> int | None: ...

    # checking -----------------------------------------------------------
    def verify(self, encounter_id: str | None = None) -> list[str]: ...

    def verify_file(self) -> tuple[list[str], list[str]]:
        """``(problems of the database itself, every encounter id)``."""
        ...

    # lifetime -----------------------------------------------------------
    def close(self) -> None: ...

    def __enter__(self) -> Store: ...

    def __exit__(self, *exc: object) -> None: ...


def is_postgres(target: str) -> bool:
    """Whether ``target`` names a PostgreSQL database (a ``postgresql://``
    or ``postgres://`` URL) rather than a SQLite file."""
    return isinstance(target, str) and target.lower().startswith(POSTGRES_SCHEMES)
