"""The event store: one SQLite file, hash-chained, append-only (DESIGN.md, "Events").

A plain ``sqlite3`` connection in autocommit mode (``isolation_level=None``);
the store opens its own ``BEGIN IMMEDIATE`` transactions, so a writer takes the
write lock before it checks the head and two writers can never interleave.
(:meth:`EventStore.append` checks the head this store wrote last and moves
it in one conditional ``UPDATE``; any other head it reads.)

The hash chain (:mod:`affray.store.chain`, and with it the SHA-256 of
:mod:`affray.digest`) and the
verifier (:mod:`affray.store.verify`) are imported on first use, by
:meth:`EventStore.append` (through :func:`_chain`) and
:meth:`EventStore.verify`: a read verb never needs them.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime, timezone
from typing import TypeVar

import msgspec

from affray.events import codec
from affray.events.core import Event
from affray.events.envelope import Live, Recorded
from affray.store.errors import (
    ConflictError,
    DatabaseCorrupt,
    DatabaseMissing,
    StoreError,
    UnknownEncounter,
    translate,
)
from affray.store.keys import KeyFile, default_path, matches
from affray.store.schema import (
    INDEXED_TYPES, READABLE_SINCE, ROW_KEY_SQL, SCHEMA_VERSION, clone_schema, encounter_infos_sql, is_affray, migrate,
    user_version,
)

_SYNCHRONOUS = ("FULL", "NORMAL", "EXTRA")
#: appends of a store hashed with CPython's own SHA-256 before it loads OpenSSL's (:meth:`EventStore._hasher`)
_BULK_AFTER = 8
_MAX_VERSION = 2**63 - 1
_COLUMNS = "seq, encounter_id, version, command_id, type, schema, data, recorded_at, actor, hash"
_SELECT_RANGE = (
    f"SELECT {_COLUMNS} FROM events "
    "WHERE encounter_id = ? AND version BETWEEN ? AND ? ORDER BY version"
)
_SELECT_DECODE = (
    "SELECT seq, version, command_id, type, schema, data, recorded_at, actor, hash FROM events "
    "WHERE encounter_id = ? AND version BETWEEN ? AND ? ORDER BY version"
)
_SELECT_LIVE = (
    "SELECT version, command_id, type, schema, data FROM events "
    "WHERE encounter_id = ? AND version BETWEEN ? AND ? ORDER BY version"
)
#: :meth:`EventStore.fold_rows`: the rows ``(command_id, key, data)`` as blobs
#: (bytes), which sqlite3 hands over without decoding UTF-8 (about a tenth of
#: the read); the versions are counted, not read (the last one is checked).
_ROW_COLUMNS = f"CAST(command_id AS BLOB), CAST({ROW_KEY_SQL} AS BLOB), CAST(data AS BLOB)"
_SELECT_ROWS = (
    f"SELECT {_ROW_COLUMNS} FROM events "
    "WHERE encounter_id = ? AND version BETWEEN ? AND ? ORDER BY version"
)
#: The same rows read along the table itself (a rowid range, ``seq`` from the
#: range's first event to its last) rather than through the version index
#: and a lookup per row. Within an encounter ``seq`` grows with ``version``
#: (both are given under the write lock; ``affray verify`` reports a row out
#: of that order), so this is version order; the version bounds stay in the
#: WHERE, so a row moved out of the span is missed, and the count catches it.
_SCAN_ROWS = (
    f"SELECT {_ROW_COLUMNS} FROM events NOT INDEXED "
    "WHERE seq BETWEEN ? AND ? AND encounter_id = ? AND version BETWEEN ? AND ? ORDER BY seq"
)
_LAST_IN_RANGE = "SELECT max(version) FROM events WHERE encounter_id = ? AND version BETWEEN ? AND ?"
_SEQ_SPAN = (
    "SELECT (SELECT seq FROM events WHERE encounter_id = ? AND version = ?), "
    "(SELECT seq FROM events WHERE encounter_id = ? AND version = ?)"
)
#: From how many rows :meth:`EventStore.fold_rows` looks at the span of
#: ``seq`` (two index lookups) to read along the table, and how much wider
#: than the range the span may be (the other encounters' rows in it are
#: stepped over in SQLite: cheaper than an index lookup per row while they
#: are fewer than about half the range's).
_SCAN_FROM, _SCAN_SPREAD = 1_000, 1.5
#: :meth:`EventStore.encounter_infos`: each encounter's head, its first
#: ``encounter-opened`` event and whether it was closed, in creation order.
_ENCOUNTER_INFOS = encounter_infos_sql("json_extract(o.data, '$.name')", "json_extract(o.data, '$.system')")
T = TypeVar("T")

_META_TYPES = frozenset({"command-retracted", "command-restored", "encounter-rewound"})
#: the meta events of one type in a stretch, through the type index
#: (parameters: encounter id, from, to). The type is a literal in the SQL:
#: SQLite uses the partial ``events_type`` index only when it can see that
#: the query's ``WHERE`` implies the index's (:data:`INDEXED_TYPES`).
_SELECT_META = {
    t: "SELECT seq, version, command_id, type, schema, data, recorded_at, actor, hash FROM events "
    f"WHERE type = '{t}' AND encounter_id = ? AND +version BETWEEN ? AND ?"  # +: use the type index
    for t in sorted(_META_TYPES)
}
assert _META_TYPES <= set(INDEXED_TYPES)
#: dice rolled per command in a stretch (parameters: encounter id, from, to),
#: read by version range (``dice-rolled`` is not in the type index)
_DICE_PER_COMMAND = (
    "SELECT command_id, min(version), sum(json_array_length(data, '$.faces')) FROM events "
    "WHERE encounter_id = ? AND version BETWEEN ? AND ? AND +type = 'dice-rolled' GROUP BY command_id"
)
#: the rows of one indexed type (parameters: encounter id, to): ``+version``
#: and no ORDER BY, otherwise SQLite (no ANALYZE statistics) prefers the
#: (encounter_id, version) index and walks the whole log; the type is a
#: literal, so that SQLite sees the partial index holds its rows
_OF_TYPE = {
    t: f"SELECT version, command_id, schema, data FROM events WHERE type = '{t}' AND encounter_id = ? AND +version <= ?"
    for t in INDEXED_TYPES
}
#: the rows of a type that is not in the index (parameters: encounter id, to, type)
_OF_TYPE_SCAN = "SELECT version, command_id, schema, data FROM events WHERE encounter_id = ? AND version <= ? AND +type = ?"
_CHUNK = 500  # command ids per IN (...) list: far below SQLite's variable limit


def _compact_field(path: str, value: object) -> str | None:
    """``"key":value`` as msgspec writes a top-level field (``path`` ``$.key``)
    holding ``value`` (an ``int`` or a ``str``), or None for any other path
    or value: :meth:`EventStore.versions_of_type`'s ``quick`` prefilter."""
    key = path[2:] if path.startswith("$.") else ""
    if not key or not key.replace("_", "").isalnum() or isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    return f'"{key}":{msgspec.json.encode(value).decode()}'
_INSERT = f"INSERT INTO events ({_COLUMNS}) VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
#: most rows one INSERT of :meth:`EventStore.append` writes (a longer command takes several)
_ROWS_PER_INSERT = 64


class _InsertRows(dict):
    """``_INSERT_ROWS[n]``: the INSERT of ``n`` rows of one command, one
    statement, built on first use: ``?1``-``?4`` are the encounter id,
    command id, time and actor the rows share, then five parameters a row
    (version, type, schema, data, hash); SQLite numbers the ``seq`` (one past
    the largest, row after row: the statement's ``lastrowid`` is the last
    one's). One statement binds a command's shared fields once and steps
    once (about 3 µs a command less than an ``executemany`` of whole rows;
    issue 17). Built from the count alone, never from the rows."""

    def __missing__(self, n: int) -> str:
        rows = ", ".join(
            "(NULL, ?1, ?{0}, ?2, ?{1}, ?{2}, ?{3}, ?3, ?4, ?{4})".format(*range(5 + 5 * i, 10 + 5 * i))
            for i in range(n)
        )
        sql = self[n] = f"INSERT INTO events ({_COLUMNS}) VALUES {rows}"
        return sql


_INSERT_ROWS = _InsertRows()

#: the head of an encounter (no row: no head)
_HEAD = "SELECT version, hash FROM heads WHERE encounter_id = ?"
#: move the head of an encounter only if it is still at that version and hash (parameters:
#: new version, new hash, encounter id, old version, old hash); its rowcount says whether it was
_MOVE_HEAD_FROM = "UPDATE heads SET version = ?, hash = ? WHERE encounter_id = ? AND version = ? AND hash = ?"
#: the head of an encounter that has one (cheaper than the upsert)
_MOVE_HEAD = "UPDATE heads SET version = ?, hash = ? WHERE encounter_id = ?"
_SET_HEAD = (
    "INSERT INTO heads (encounter_id, version, hash) VALUES (?, ?, ?) "
    "ON CONFLICT (encounter_id) DO UPDATE SET version = excluded.version, hash = excluded.hash"
)


def _chain():
    """``(canonical, command_texts, chain_hash)``, imported on first use
    (no hash is needed to read a log) and looked up as this module's
    attributes, so a test can still patch ``affray.store.sqlite.chain_hash``."""
    g = globals()
    if "chain_hash" not in g:
        from affray.store.chain import canonical, chain_hash, command_texts

        g.setdefault("canonical", canonical)
        g.setdefault("command_texts", command_texts)
        g.setdefault("chain_hash", chain_hash)
    return g["canonical"], g["command_texts"], g["chain_hash"]


def __getattr__(name: str):
    """``canonical``, ``command_texts`` and ``chain_hash`` as module attributes, loaded lazily."""
    if name in ("canonical", "command_texts", "chain_hash"):
        return _chain()[("canonical", "command_texts", "chain_hash").index(name)]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: the bytes a ``file:`` URI keeps as they are (``urllib.parse.quote``'s safe set, with ``/``)
_URI_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~/")


def file_uri(path: str) -> str:
    """The ``file://`` URI of ``path`` made absolute with its links resolved:
    what ``pathlib.Path(path).resolve().as_uri()`` gives (every byte of the
    UTF-8 path but letters, digits, ``_.-~/`` percent-encoded), without
    importing :mod:`pathlib` (with ``urllib.parse`` and ``ipaddress``,
    about 3 ms of every read verb)."""
    full = os.fsencode(os.path.realpath(path))
    return "file://" + "".join(chr(b) if b in _URI_SAFE else f"%{b:02X}" for b in full)


def _connect_readonly(path: str, timeout: float) -> sqlite3.Connection:
    """A read-only connection: ``mode=ro``, or ``immutable=1`` when the
    folder cannot be written (SQLite then cannot create a WAL log's
    ``-shm`` file, and every read fails with "attempt to write a readonly
    database"). ``immutable`` promises SQLite that nobody writes the file
    meanwhile: true of an archived log."""
    base = file_uri(path)
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if not os.access(folder, os.W_OK) or not os.access(path, os.W_OK):
        return sqlite3.connect(base + "?mode=ro&immutable=1", uri=True, isolation_level=None, timeout=timeout)
    conn = sqlite3.connect(base + "?mode=ro", uri=True, isolation_level=None, timeout=timeout)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError as exc:
        if "readonly" not in str(exc) and "unable to open" not in str(exc):
            raise
        conn.close()
        return sqlite3.connect(base + "?mode=ro&immutable=1", uri=True, isolation_level=None, timeout=timeout)
    return conn


class EncounterInfo(msgspec.Struct, frozen=True, kw_only=True):
    """What the store knows of an encounter without replaying it.

    ``name``/``system``/``opened_at`` come from its ``encounter-opened`` event
    (empty when it has none); ``version`` is its head; ``closed`` is true once
    an ``encounter-closed`` event is in the log.
    """

    id: str
    name: str
    system: str
    opened_at: str
    version: int
    closed: bool


def utc_now() -> str:
    """Now in UTC as ISO-8601 with microseconds and a ``Z``."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")[:-6] + "Z"  # [:-6]: "+00:00"


def _guarded(fn):
    """Turn ``sqlite3`` errors raised by a method into :class:`StoreError`."""

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs)
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc

    return wrapper


class EventStore:
    """An affray log in one SQLite file.

    ``EventStore(path, *, must_exist=False, readonly=False, synchronous="FULL",
    busy_timeout_ms=5000, keys=None, schema_of=None)``. ``path`` may be ``":memory:"`` (tests).
    ``keys`` is the key file holding the secret dice seeds (default
    ``AFFRAY_KEYS``, else ``<path>.keys``; :mod:`affray.store.keys`).
    ``schema_of``, for ``":memory:"`` only: the connection of an affray file
    at the current schema whose schema the new store copies instead of
    running the migrations (:meth:`scratch`).

    A read-only store opens the file with ``mode=ro``; when its folder cannot
    be written (an archived log: SQLite could not create the WAL's ``-shm``
    file) it falls back to ``immutable=1``.

    Creates the file and its schema when missing, unless ``must_exist`` (or
    ``readonly``) is set. Errors: :class:`DatabaseMissing`,
    :class:`DatabaseCorrupt` (not SQLite, truncated, empty when required, not an
    affray file), :class:`DatabaseLocked`, :class:`StoreError` (newer schema,
    cannot open, read-only file needing an upgrade). ``synchronous`` is
    ``FULL`` (default) or ``NORMAL`` (faster; a power cut may lose the last
    commits, never corrupt). Usable as a context manager.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        must_exist: bool = False,
        readonly: bool = False,
        synchronous: str = "FULL",
        busy_timeout_ms: int = 5000,
        keys: str | None = None,
        schema_of: sqlite3.Connection | None = None,
    ) -> None:
        self.path = os.fspath(path)
        self.readonly = readonly
        self._batch = False  # inside transaction(): appends are savepoints
        self._appends, self._sha = 0, None  # see _hasher
        #: (encounter id, version, hash) of the head the last append wrote (see append)
        self._head: tuple[str, int, str] | None = None
        synchronous = synchronous.upper()
        if synchronous not in _SYNCHRONOUS:
            raise ValueError(f"synchronous must be one of {_SYNCHRONOUS}, not {synchronous!r}")
        memory = self.path == ":memory:"
        self.keys = KeyFile(None if memory else (keys or default_path(self.path)))
        if not memory:
            if not os.path.exists(self.path):
                if must_exist or readonly:
                    raise DatabaseMissing(self.path)
            elif os.path.isdir(self.path):
                raise StoreError(f"{self.path} is a folder, not a database file; pass the file's path")
            elif (must_exist or readonly) and os.path.getsize(self.path) == 0:
                raise DatabaseCorrupt(self.path, "the file is empty")
        timeout = busy_timeout_ms / 1000
        try:
            if readonly and not memory:
                conn = _connect_readonly(self.path, timeout)
            else:
                # cached_statements: room for the INSERT of each command length (_INSERT_ROWS) beside the rest
                conn = sqlite3.connect(self.path, isolation_level=None, timeout=timeout, cached_statements=256)
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc
        self._conn = conn
        try:
            self._open(must_exist, synchronous, memory, schema_of)
        except BaseException as exc:
            conn.close()
            if isinstance(exc, sqlite3.Error):
                raise translate(exc, self.path) from exc
            raise

    def _open(self, must_exist: bool, synchronous: str, memory: bool, schema_of: sqlite3.Connection | None) -> None:
        conn = self._conn
        conn.execute(f"PRAGMA synchronous = {synchronous}")
        conn.execute("PRAGMA cache_size = -16384")  # 16 MiB: repeated replays stay in memory
        found = user_version(conn)  # reads the header: "file is not a database"
        if found != 0 and not is_affray(conn):
            raise DatabaseCorrupt(self.path, f"it is a SQLite database (user_version {found}), but not an affray one")
        if found == SCHEMA_VERSION:
            if not (memory or self.readonly) and conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                # migrate() was killed between its COMMIT and the switch to WAL
                try:
                    conn.execute("PRAGMA journal_mode = WAL")
                except sqlite3.OperationalError:
                    pass  # another connection is busy with the file: the next open tries again
            return
        if found > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer affray (schema {found}, this one knows "
                f"{SCHEMA_VERSION}); upgrade affray"
            )
        if found == 0 and (must_exist or self.readonly):
            if conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                raise DatabaseCorrupt(self.path, "it is a SQLite database, but not an affray one")
            raise DatabaseCorrupt(self.path, "it holds no affray log")
        if self.readonly:
            if found >= READABLE_SINCE:
                return  # readable as it is (its seeds are still in dice_seeds)
            raise StoreError(
                f"{self.path} has an older affray schema (version {found}); "
                "open it once without read-only to upgrade it"
            )
        if memory and found == 0 and schema_of is not None and user_version(schema_of) == SCHEMA_VERSION:
            clone_schema(schema_of, conn)
            return
        migrate(conn, self.path, wal=not memory, keys=self.keys)

    def scratch(self) -> "EventStore":
        """A new, empty store in memory with this file's schema
        (:func:`affray.store.schema.clone_schema`; migrated as usual when
        this file's schema is older), for work done off the write lock, as
        ``amend`` does. Close it after use (a context manager)."""
        return EventStore(":memory:", schema_of=self._conn)

    # ------------------------------------------------------------------ #
    # writing
    # ------------------------------------------------------------------ #

    @_guarded
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
        """Append ``events`` to ``encounter_id`` in one transaction; all or nothing.

        ``expected_version`` is the head the caller decided from (0 for a new
        encounter). The events get versions ``expected_version + 1 ...``, all
        share ``command_id``, ``actor`` and ``recorded_at`` (default: UTC now,
        ISO-8601 with ``Z``), and each is hash-chained to the one before.
        Returns the stored envelopes, in order. ``seed`` (a new encounter's
        secret dice seed, see :meth:`put_seed`) is kept in the same
        transaction, so a writer that loses the race for an encounter id
        cannot replace the winner's seed. ``check``, when given, is called
        with the new envelopes inside the transaction, before it commits; the
        store's reads see the new events there. If it raises, nothing is
        written and its error propagates (how an undo refuses a log that no
        longer replays).

        Errors: :class:`ConflictError` when the head is not ``expected_version``
        (nothing written); :class:`DatabaseLocked`; :class:`DatabaseCorrupt`;
        :class:`StoreError` on a read-only store; ``TypeError`` when an item is
        not an encodable tagged :class:`Event` (a bug; nothing written).
        """
        if self.readonly:
            raise StoreError(f"{self.path} was opened read-only; nothing was recorded")
        command_texts, chain_hash = _chain()[1:]
        sha = self._sha
        if sha is None:
            sha = self._hasher()
        if recorded_at is None:
            recorded_at = utc_now()
        encode = codec.encode
        text = command_texts(encounter_id, command_id, recorded_at, actor)
        prepared = []
        version = expected_version  # the versions the events get unless it is a conflict (checked below)
        for event in events:
            tag = event.__struct_config__.tag if isinstance(event, Event) else None
            if not tag:
                raise TypeError(f"append takes tagged affray events, not {event!r}")
            schema = event.schema
            data = encode(event)
            version += 1
            prepared.append((event, tag, schema, data.decode(), text(version, tag, schema, data)))
        cached = self._head
        prev = cached[2] if cached is not None and cached[0] == encounter_id and cached[1] == expected_version else ""
        # hashed before the lock when this store wrote that head itself (checked below)
        hashes = self._hashes(prev, prepared, chain_hash, sha) if prev and seed is None else None
        conn = self._conn
        nested = self._batch and conn.in_transaction  # inside transaction(): a savepoint
        begin, end = ("SAVEPOINT affray_append", "RELEASE affray_append") if nested else ("BEGIN IMMEDIATE", "COMMIT")
        conn.execute(begin)
        try:
            # The head this store wrote last (self._head) is checked and moved in one statement:
            # no row changes unless the head is still that version with that hash, which is what
            # the hashes were chained from. Otherwise (another writer, a first append, a rollback
            # of an outer transaction) the head is read, as it is the first time.
            if hashes is None or not prepared or not conn.execute(
                _MOVE_HEAD_FROM, (version, hashes[-1], encounter_id, expected_version, prev)
            ).rowcount:
                head = conn.execute(_HEAD, (encounter_id,)).fetchone()
                found, prev = head if head else (0, "")
                if found != expected_version:
                    raise ConflictError(encounter_id, expected_version, found)
                if seed is not None:  # beside the log, never in it: see affray.store.keys
                    self.keys.add(encounter_id, seed)
                hashes = self._hashes(prev, prepared, chain_hash, sha)
                if prepared:
                    if head:
                        conn.execute(_MOVE_HEAD, (version, hashes[-1], encounter_id))
                    else:
                        conn.execute(_SET_HEAD, (encounter_id, version, hashes[-1]))
            out = []
            n = len(prepared)
            for start in range(0, n, _ROWS_PER_INSERT):
                chunk = prepared[start:start + _ROWS_PER_INSERT]
                params = [encounter_id, command_id, recorded_at, actor]  # ?1-?4: shared by the rows (_INSERT_ROWS)
                v = expected_version + start
                for (_, tag, schema, data, _), hash_ in zip(chunk, hashes[start:start + _ROWS_PER_INSERT]):
                    v += 1
                    params += (v, tag, schema, data, hash_)
                # seq: SQLite numbers a statement's rows one after another, one past the largest
                seq = conn.execute(_INSERT_ROWS[len(chunk)], params).lastrowid - len(chunk)
                v = expected_version + start
                for (event, tag, schema, _, _), hash_ in zip(chunk, hashes[start:start + _ROWS_PER_INSERT]):
                    seq += 1
                    v += 1
                    out.append(Recorded(
                        seq=seq, encounter_id=encounter_id, version=v, command_id=command_id, type=tag,
                        schema=schema, event=event, recorded_at=recorded_at, actor=actor, hash=hash_,
                    ))
            if check is not None:
                check(out)
            conn.execute(end)
        except BaseException:
            self._head = None
            self._abandon(nested)
            raise
        if out:
            self._head = (encounter_id, version, hashes[-1])
        return out

    @staticmethod
    def _hashes(prev: str, prepared: list, chain_hash, sha) -> list[str]:
        """The chain hashes of :meth:`append`'s prepared rows, from ``prev``
        (the head's hash; ``""`` for a new encounter)."""
        out = []
        for row in prepared:
            prev = chain_hash(prev, row[4], sha)
            out.append(prev)
        return out

    def _hasher(self):
        """The SHA-256 constructor :meth:`append` hashes with: CPython's own
        (:mod:`affray.digest`) for the first :data:`_BULK_AFTER` appends of
        this store, then OpenSSL's (:func:`affray.store.chain.bulk_sha256`,
        about twice as fast on an event's text, 2 ms to load), kept in
        ``self._sha``. A verb appends a command or two and never pays the
        load; a process that appends many (the autopilot, ``bench/``) does,
        once."""
        from affray.digest import sha256

        self._appends += 1
        if self._appends <= _BULK_AFTER:
            return sha256
        from affray.store.chain import bulk_sha256

        self._sha = bulk_sha256()
        return self._sha

    @contextlib.contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One write of :meth:`append_rows`: a savepoint inside
        :meth:`transaction`, else its own ``BEGIN IMMEDIATE`` ... ``COMMIT``;
        undone on any error, which propagates. (:meth:`append` does the
        same inline: the generator cost a few microseconds a command.)"""
        conn = self._conn
        nested = self._batch and conn.in_transaction
        if nested:
            conn.execute("SAVEPOINT affray_append")
        else:
            conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            if nested:
                conn.execute("RELEASE affray_append")
            else:
                conn.execute("COMMIT")
        except BaseException:
            self._abandon(nested)
            raise

    def _abandon(self, nested: bool) -> None:
        """Undo a write of :meth:`append` or :meth:`append_rows` that failed:
        back to its savepoint (``nested``, inside :meth:`transaction`), else
        the whole transaction."""
        conn = self._conn
        if nested:
            conn.execute("ROLLBACK TO affray_append")
            conn.execute("RELEASE affray_append")
        elif conn.in_transaction:
            conn.execute("ROLLBACK")

    @_guarded
    def append_rows(
        self, encounter_id: str, expected_version: int, rows: Iterable[tuple[int, str, str, int, str, str, str, str]]
    ) -> int:
        """Append rows already hash-chained onto the head ``expected_version``
        of ``encounter_id`` (0: a new encounter), as they are: ``(version,
        command_id, type, schema, data, recorded_at, actor, hash)`` in
        version order, ``data`` the stored JSON text (what :meth:`read_raw`
        gives from its third column on). The versions must run on from the
        head and each hash must chain from the one before, checked here; then
        the rows go in with one ``executemany``. Returns how many. Amend uses
        it to copy what it worked out in a scratch store, branch to write
        what it built. One transaction (a savepoint inside
        :meth:`transaction`); all or nothing. ``rows`` may be a
        :class:`affray.store.chain.Chained` (checked or hashed before the
        call): for the same encounter and ``expected_version``, the lock is
        then held only to check that the head is still the version and hash
        it chains from, and to insert.

        Errors (nothing written): :class:`ConflictError` when the head is
        not ``expected_version``; :class:`StoreError` when a version or a
        hash does not follow, or on a read-only store; :class:`DatabaseLocked`.
        """
        if self.readonly:
            raise StoreError(f"{self.path} was opened read-only; nothing was recorded")
        from affray.store.chain import Chained, follow, mismatch

        ready = None
        if isinstance(rows, Chained) and rows.encounter_id == encounter_id and rows.after == expected_version:
            ready = [(encounter_id, *row) for row in rows.rows]  # checked already: built before the lock
        with self._writing() as conn:
            head = conn.execute("SELECT version, hash FROM heads WHERE encounter_id = ?", (encounter_id,)).fetchone()
            version, prev = head if head else (0, "")
            if version != expected_version:
                raise ConflictError(encounter_id, expected_version, version)
            if ready is not None:
                if prev != rows.prev:
                    raise mismatch(encounter_id, version)
                batch = ready
            else:
                batch = [(encounter_id, *row) for row in follow(encounter_id, version, prev, rows)]
            if batch:
                conn.executemany(_INSERT, batch)
                conn.execute(_SET_HEAD, (encounter_id, batch[-1][1], batch[-1][-1]))
        return len(batch)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[EventStore]:
        """Group several appends (and seed and snapshot writes) into one
        ``BEGIN IMMEDIATE`` transaction: all of them or none, even if the
        process dies half-way. Inside it, each :meth:`append` is a savepoint:
        one that fails is undone alone, and the caller may go on. Holds the
        write lock throughout (others wait up to the busy timeout). Used by
        ``branch`` and ``amend``; nested, it joins the outer one."""
        if self.readonly:
            raise StoreError(f"{self.path} was opened read-only; nothing was recorded")
        if self._batch:  # nested: the outer transaction commits
            yield self
            return
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc
        self._batch = True
        try:
            yield self
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise translate(exc, self.path) from exc
            raise
        finally:
            self._batch = False

    @_guarded
    def save_snapshot(self, encounter_id: str, version: int, data: bytes) -> None:
        """Store (or replace) the projection snapshot of ``encounter_id`` at ``version``.

        Snapshots are a cache, outside the hash chain; ``data`` is opaque bytes
        (the projection owns the format, and should tag it with its own version).
        """
        if self.readonly:
            raise StoreError(f"{self.path} was opened read-only; the snapshot was not saved")
        self._conn.execute(
            "INSERT OR REPLACE INTO snapshots (encounter_id, version, data) VALUES (?, ?, ?)",
            (encounter_id, version, data),
        )

    # ------------------------------------------------------------------ #
    # reading
    # ------------------------------------------------------------------ #

    def _undecodable(self, encounter_id: str, version: int, exc: Exception) -> StoreError:
        """The user-facing error for a stored event that does not decode: an
        unknown type (written by a newer affray) or malformed data."""
        if isinstance(exc, codec.UnknownEvent):
            return StoreError(
                f"encounter {encounter_id} version {version} in {self.path}: {exc}; "
                "it was probably written by a newer affray, upgrade affray"
            )
        return DatabaseCorrupt(self.path, f"encounter {encounter_id} version {version} does not decode: {exc}")

    def read(
        self, encounter_id: str, *, from_version: int = 1, to_version: int | None = None
    ) -> Iterator[Recorded]:
        """Yield the decoded events of ``encounter_id`` in version order.

        ``from_version``/``to_version`` are inclusive bounds. Old schemas are
        upcast by :func:`affray.events.codec.decode`. An unknown encounter yields
        nothing. Errors (raised while iterating): :class:`DatabaseCorrupt` for
        data that does not decode or an event type this affray does not know,
        and the usual SQLite ones.
        """
        decode = codec.decode
        version = from_version  # the row being decoded, for error messages
        cur = None
        try:
            cur = self._conn.execute(
                _SELECT_DECODE,
                (encounter_id, from_version, _MAX_VERSION if to_version is None else to_version),
            )
            for seq, version, command_id, type_, schema, data, recorded_at, actor, hash_ in cur:
                yield Recorded(
                    seq=seq, encounter_id=encounter_id, version=version, command_id=command_id,
                    type=type_, schema=schema, event=decode(type_, schema, data),
                    recorded_at=recorded_at, actor=actor, hash=hash_,
                )
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc
        except (codec.UnknownEvent, msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise self._undecodable(encounter_id, version, exc) from exc
        finally:
            if cur is not None:
                cur.close()

    def read_raw(
        self, encounter_id: str, *, from_version: int = 1, to_version: int | None = None
    ) -> Iterator[tuple[int, str, int, str, str, int, str, str, str, str]]:
        """Like :meth:`read`, without decoding: yield row tuples
        ``(seq, encounter_id, version, command_id, type, schema, data, recorded_at,
        actor, hash)`` where ``data`` is the stored JSON text."""
        cur = None
        try:
            cur = self._conn.execute(
                _SELECT_RANGE,
                (encounter_id, from_version, _MAX_VERSION if to_version is None else to_version),
            )
            yield from cur
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc
        finally:
            if cur is not None:
                cur.close()

    def read_chain(self, encounter_id: str) -> Iterator[tuple[int, int, str, str, int, str, str, str, str]]:
        """Every row of ``encounter_id`` in version order as :meth:`read_raw`
        gives it, without the encounter id (the pass of ``affray verify``
        reads one column less per row): ``(seq, version, command_id, type,
        schema, data, recorded_at, actor, hash)``."""
        cur = None
        try:
            cur = self._conn.execute(_SELECT_DECODE, (encounter_id, 1, _MAX_VERSION))
            yield from cur
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc
        finally:
            if cur is not None:
                cur.close()

    @_guarded
    def version(self, encounter_id: str) -> int:
        """The head version of ``encounter_id``: its number of events, 0 if none."""
        row = self._conn.execute(
            "SELECT version FROM heads WHERE encounter_id = ?", (encounter_id,)
        ).fetchone()
        return row[0] if row else 0

    @_guarded
    def encounter_ids(self) -> list[str]:
        """Every encounter id in the file, in the order they were created."""
        rows = self._conn.execute(
            "SELECT h.encounter_id FROM heads h ORDER BY "
            "(SELECT e.seq FROM events e WHERE e.encounter_id = h.encounter_id AND e.version = 1)"
        )
        return [r[0] for r in rows]

    @_guarded
    def has_encounter(self, encounter_id: str) -> bool:
        """Whether ``encounter_id`` has any event (one primary-key lookup)."""
        row = self._conn.execute("SELECT 1 FROM heads WHERE encounter_id = ?", (encounter_id,)).fetchone()
        return row is not None

    def read_live(
        self,
        encounter_id: str,
        *,
        from_version: int = 1,
        to_version: int | None = None,
        skip: frozenset = frozenset(),
        only: frozenset[str] | None = None,
    ) -> Iterator[Live]:
        """The lean read a replay needs: :class:`Live` (version, command_id,
        event) in version order, leaving out the commands in ``skip`` and the
        meta events (undo, redo, rewind). With ``only`` (a set of type tags),
        an event of any other type is not decoded: its ``Live.event`` is
        ``None`` (a fold that has no handler for it needs only its version and
        command id). Same errors as :meth:`read`."""
        decode = codec.decode
        built, typed = codec.typed_decoders(), codec.typed_decoder
        current = codec.CURRENT_SCHEMA
        meta = _META_TYPES
        version = from_version
        cur = None
        try:
            cur = self._conn.execute(
                _SELECT_LIVE,
                (encounter_id, from_version, _MAX_VERSION if to_version is None else to_version),
            )
            for version, command_id, type_, schema, data in cur:
                if type_ in meta or command_id in skip:
                    continue
                if only is not None and type_ not in only:
                    yield Live(version, command_id, None)
                elif current.get(type_) == schema:
                    yield Live(version, command_id, (built.get(type_) or typed(type_))(data))
                else:
                    yield Live(version, command_id, decode(type_, schema, data))
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc
        except (codec.UnknownEvent, msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise self._undecodable(encounter_id, version, exc) from exc
        finally:
            if cur is not None:
                cur.close()

    def fold_rows(
        self,
        encounter_id: str,
        fold: Callable[[Iterable[tuple[bytes, bytes, bytes]], int], tuple[T, int]],
        *,
        from_version: int = 1,
        to_version: int | None = None,
    ) -> T:
        """``fold(rows, first)`` over the stored rows ``(command_id, key,
        data)`` of ``encounter_id`` from ``from_version`` to ``to_version``
        (inclusive), in version order; returns the first item of what
        ``fold`` returns, ``(result, rows read)``.

        The rows carry no version: they are the versions ``first`` (=
        ``from_version``), ``first + 1``, ... to the last one stored in range,
        which is read first (one index lookup, so rows appended meanwhile are
        not in the range), and the count ``fold`` returns is checked against
        it. A long range whose events lie together in the file is read along
        the table (:data:`_SCAN_ROWS`), any other through the version index.
        ``key`` is the type tag, or ``tag@schema`` for a row stored at a
        schema other than 1 (:data:`affray.store.schema.ROW_KEY_SQL`); all
        three are UTF-8 ``bytes``. The replay's hot path
        (:func:`affray.projections.evolve.fold_rows`): the rows go to the fold
        straight from the cursor, with no envelope and no generator between.

        Errors: the usual :class:`StoreError` ones; :class:`DatabaseCorrupt`
        when versions in range are missing (a file edited by hand); a
        :class:`affray.events.codec.Undecodable` from ``fold`` becomes the
        error :meth:`read` gives for that version."""
        cur = None
        try:
            conn = self._conn
            top = _MAX_VERSION if to_version is None else to_version
            last = conn.execute(_LAST_IN_RANGE, (encounter_id, from_version, top)).fetchone()[0]
            if last is None:
                return fold((), from_version)[0]
            count = last - from_version + 1
            if count >= _SCAN_FROM:
                lo, hi = conn.execute(_SEQ_SPAN, (encounter_id, from_version, encounter_id, last)).fetchone()
                if lo is not None and hi is not None and lo <= hi <= lo + count * _SCAN_SPREAD:
                    cur = conn.execute(_SCAN_ROWS, (lo, hi, encounter_id, from_version, last))
            if cur is None:
                cur = conn.execute(_SELECT_ROWS, (encounter_id, from_version, last))
            result, read = fold(cur, from_version)
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc
        except codec.Undecodable as exc:
            raise self._undecodable(encounter_id, exc.version, exc.cause) from exc.cause
        finally:
            if cur is not None:
                cur.close()
        if read != count:
            raise DatabaseCorrupt(
                self.path,
                f"encounter {encounter_id} has {read} events from version {from_version} to {last}: "
                "versions are missing, the file was edited",
            )
        return result

    def versions_of_type(
        self: EventStore,
        encounter_id: str,
        type_: str,
        *,
        match: tuple[str, object, int] | None = None,
        to_version: int | None = None,
        quick: bool = False,
    ) -> list[tuple[int, str, int, str]]:
        """The events of ``encounter_id`` tagged ``type_``, as ``(version,
        command_id, schema, data)`` rows in version order (``data`` is the
        stored JSON text, not decoded), found through the ``events_type``
        index when ``type_`` is one of :data:`affray.store.schema.INDEXED_TYPES`,
        else by walking the versions (up to ``to_version``).

        ``match=(json_path, value, schema)`` keeps, of the rows stored at
        ``schema``, those whose ``json_extract(data, json_path)`` equals
        ``value``; rows stored at any other schema all come back, for the caller
        to upcast and test itself (a field may be named differently there).
        ``quick`` (a top-level path, an ``int`` or ``str`` value) first keeps
        only the rows whose text holds the field as affray writes it
        (compact JSON: ``"round":465``), which spares parsing the others: a
        row whose JSON was written otherwise (by hand, or imported so) is
        then missed, so a caller that finds nothing asks again without it.
        Errors: the usual :class:`StoreError` ones.
        """
        sql = _OF_TYPE.get(type_)
        if sql is None:  # not in the type index: walk the versions
            sql, args = _OF_TYPE_SCAN, [encounter_id, _MAX_VERSION if to_version is None else to_version, type_]
        else:
            args = [encounter_id, _MAX_VERSION if to_version is None else to_version]
        if match is not None:
            path, value, schema = match
            needle = _compact_field(path, value) if quick else None
            if needle is None:
                sql += " AND (schema != ? OR json_extract(data, ?) = ?)"
                args += [schema, path, value]
            else:
                sql += " AND (schema != ? OR (instr(data, ?) > 0 AND json_extract(data, ?) = ?))"
                args += [schema, needle, path, value]
        try:
            rows = self._conn.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc
        rows.sort()
        return rows

    def any_command_up_to(self, encounter_id: str, command_ids, version: int) -> bool:
        """Whether any of ``command_ids`` has an event of ``encounter_id`` at or
        before ``version``. SQL only (no decoding); it walks the versions up to
        ``version`` (there is no index on ``command_id``), so call it only with
        the few commands that matter."""
        ids = sorted(set(command_ids))
        try:
            for i in range(0, len(ids), _CHUNK):
                chunk = ids[i:i + _CHUNK]
                row = self._conn.execute(
                    "SELECT 1 FROM events WHERE encounter_id = ? AND version <= ? "
                    f"AND command_id IN ({', '.join('?' * len(chunk))}) LIMIT 1",
                    [encounter_id, version, *chunk],
                ).fetchone()
                if row is not None:
                    return True
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc
        return False

    @_guarded
    def read_meta(self, encounter_id: str, *, from_version: int = 1, to_version: int | None = None) -> list[Recorded]:
        """The meta events (undo, redo, rewind) of ``encounter_id`` in range,
        found through the type index without reading the rest of the log."""
        hi = _MAX_VERSION if to_version is None else to_version
        out = []
        for sql in _SELECT_META.values():
            out.extend(
                Recorded(
                    seq=seq, encounter_id=encounter_id, version=version, command_id=command_id, type=t,
                    schema=schema, event=codec.decode(t, schema, data), recorded_at=recorded_at, actor=actor, hash=h,
                )
                for seq, version, command_id, t, schema, data, recorded_at, actor, h in self._conn.execute(
                    sql, (encounter_id, from_version, hi)
                )
            )
        out.sort(key=lambda r: r.version)
        return out

    @_guarded
    def newest_open_encounter(self) -> str | None:
        """The id of the newest encounter that was opened and not closed, or ``None``."""
        row = self._conn.execute(
            "SELECT o.encounter_id FROM events o WHERE o.type = 'encounter-opened' "
            "AND NOT EXISTS (SELECT 1 FROM events c WHERE c.type = 'encounter-closed' "
            "AND c.encounter_id = o.encounter_id) ORDER BY o.seq DESC LIMIT 1"
        ).fetchone()
        return row[0] if row else None

    @_guarded
    def encounter_info(self, encounter_id: str) -> EncounterInfo:
        """Name, system, opening time, head version and closed flag of an encounter.

        Errors: :class:`UnknownEncounter` when it has no events.
        """
        conn = self._conn
        version = self.version(encounter_id)
        if not version:
            raise UnknownEncounter(encounter_id, self.path)
        opened = conn.execute(
            "SELECT json_extract(data, '$.name'), json_extract(data, '$.system'), recorded_at "
            "FROM events WHERE type = 'encounter-opened' AND encounter_id = ? ORDER BY seq LIMIT 1",
            (encounter_id,),
        ).fetchone() or ("", "", "")
        closed = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM events WHERE type = 'encounter-closed' AND encounter_id = ?)",
            (encounter_id,),
        ).fetchone()[0]
        name, system, opened_at = opened
        return EncounterInfo(
            id=encounter_id, name=name or "", system=system or "", opened_at=opened_at,
            version=version, closed=bool(closed),
        )

    @_guarded
    def encounter_infos(self) -> list[EncounterInfo]:
        """:meth:`encounter_info` of every encounter, in the order of
        :meth:`encounter_ids`, from one query (``affray list``: three queries
        an encounter cost 80 ms for a file of 1,000 encounters)."""
        rows = self._conn.execute(_ENCOUNTER_INFOS).fetchall()
        return [
            EncounterInfo(id=eid, name=name or "", system=system or "", opened_at=opened_at or "",
                          version=version, closed=bool(closed))
            for eid, version, name, system, opened_at, closed in rows
        ]

    @_guarded
    def latest_snapshot(self, encounter_id: str, at_most_version: int) -> tuple[int, bytes] | None:
        """The newest snapshot of ``encounter_id`` at or before ``at_most_version``,
        as ``(version, data)``, or ``None``."""
        row = self._conn.execute(
            "SELECT version, data FROM snapshots WHERE encounter_id = ? AND version <= ? "
            "ORDER BY version DESC LIMIT 1",
            (encounter_id, at_most_version),
        ).fetchone()
        return (row[0], bytes(row[1])) if row else None

    @_guarded
    def snapshot_versions(self, encounter_id: str) -> list[int]:
        """The versions ``encounter_id`` has snapshots at, oldest first (the
        data is not read: :meth:`latest_snapshot` fetches one)."""
        rows = self._conn.execute(
            "SELECT version FROM snapshots WHERE encounter_id = ? ORDER BY version", (encounter_id,)
        ).fetchall()
        return [r[0] for r in rows]

    def snapshot_stream(self, encounter_id: str) -> Iterator[tuple[int, bytes]]:
        """Every snapshot of ``encounter_id`` as ``(version, data)``, oldest
        first, streamed from a cursor (one in memory at a time)."""
        cur = None
        try:
            cur = self._conn.execute(
                "SELECT version, data FROM snapshots WHERE encounter_id = ? ORDER BY version", (encounter_id,)
            )
            for version, data in cur:
                yield version, bytes(data)
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc
        finally:
            if cur is not None:
                cur.close()

    @_guarded
    def snapshots(self, encounter_id: str) -> list[tuple[int, bytes]]:
        """Every snapshot of ``encounter_id`` as ``(version, data)``, oldest first."""
        rows = self._conn.execute(
            "SELECT version, data FROM snapshots WHERE encounter_id = ? ORDER BY version", (encounter_id,)
        ).fetchall()
        return [(v, bytes(d)) for v, d in rows]

    def put_seed(self, encounter_id: str, seed: bytes) -> None:
        """Keep the secret dice ``seed`` of ``encounter_id`` in the key file
        (:mod:`affray.store.keys`), never in the log: the log holds only its
        SHA-256 until the encounter is closed."""
        if self.readonly:
            raise StoreError(f"{self.path} was opened read-only; the dice seed was not saved")
        self.keys.add(encounter_id, seed)

    @_guarded
    def salts(self, encounter_id: str) -> list[tuple[int, str]]:
        """Every ``salt-added`` event of ``encounter_id`` as ``(from_index,
        value)``, in log order, live or not (a salt is never taken back;
        :mod:`affray.dice`, "Salts"). Found through the type index."""
        rows = self._conn.execute(
            "SELECT version, json_extract(data, '$.from_index'), json_extract(data, '$.value') "
            "FROM events WHERE type = 'salt-added' AND encounter_id = ?",
            (encounter_id,),
        ).fetchall()
        rows.sort()
        return [(int(first), str(value)) for _, first, value in rows]

    @_guarded
    def dice_per_command(
        self, encounter_id: str, to_version: int | None = None, *, from_version: int = 1
    ) -> list[tuple[str, int, int]]:
        """``(command_id, version of its first roll, number of dice)`` for
        every command of ``encounter_id`` that rolled dice (live or not) from
        ``from_version`` on, in version order, counted in SQL (nothing is
        decoded in Python): the re-roll guard's map of the dice. Read by
        version range (``dice-rolled`` is not in the type index)."""
        hi = _MAX_VERSION if to_version is None else to_version
        rows = self._conn.execute(_DICE_PER_COMMAND, (encounter_id, from_version, hi)).fetchall()
        rows.sort(key=lambda r: r[1])
        return [(cid, int(first), int(n or 0)) for cid, first, n in rows]

    @_guarded
    def dice_of(self, encounter_id: str, command_ids, *, from_version: int = 1) -> dict[str, list[tuple[str, list[int]]]]:
        """The rolls of the given commands as ``{command_id: [(expr, faces),
        ...]}`` in version order (a few commands: the re-roll guard), of the
        rolls from ``from_version`` on."""
        ids = sorted(set(command_ids))
        out: dict[str, list[tuple[int, str, list[int]]]] = {}
        for i in range(0, len(ids), _CHUNK):
            chunk = ids[i:i + _CHUNK]
            rows = self._conn.execute(
                "SELECT version, command_id, json_extract(data, '$.expr'), json_extract(data, '$.faces') "
                "FROM events WHERE encounter_id = ? AND version BETWEEN ? AND ? AND +type = 'dice-rolled' "
                f"AND command_id IN ({', '.join('?' * len(chunk))})",
                [encounter_id, from_version, _MAX_VERSION, *chunk],
            )
            for version, cid, expr, faces in rows:
                out.setdefault(cid, []).append((version, expr or "", msgspec.json.decode(faces or "[]")))
        return {cid: [(expr, faces) for _, expr, faces in sorted(rolls)] for cid, rolls in out.items()}

    @_guarded
    def starts_command(self, encounter_id: str, version: int, command_id: str | None = None) -> bool:
        """Whether the event at ``version`` is the first of its command (and
        that command is ``command_id``, when given): one index lookup of two
        rows. affray numbers a command ``c<its first version>``, so this
        checks that guess; it also tells whether a version is a command
        boundary."""
        rows = dict(self._conn.execute(
            "SELECT version, command_id FROM events WHERE encounter_id = ? AND version BETWEEN ? AND ?",
            (encounter_id, version - 1, version),
        ).fetchall())
        here = rows.get(version)
        return here is not None and rows.get(version - 1) != here and command_id in (None, here)

    @_guarded
    def engine_high_water(self, encounter_id: str) -> int:
        """One past the highest engine roll number ``encounter_id`` ever drew,
        undone and rewound rolls included (0 when it drew none). Walks the
        versions (``dice-rolled`` is not in the type index): the ``salt``
        verb only."""
        row = self._conn.execute(
            "SELECT max(json_extract(data, '$.index') + json_array_length(data, '$.faces')) "
            "FROM events WHERE encounter_id = ? AND +type = 'dice-rolled' "
            "AND json_extract(data, '$.source') = 'engine' AND json_extract(data, '$.index') >= 0",
            (encounter_id,),
        ).fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    @_guarded
    def head(self, encounter_id: str) -> tuple[int, str]:
        """``(version, hash)`` of the encounter's newest event: its head.
        Errors: :class:`UnknownEncounter`."""
        row = self._conn.execute(
            "SELECT version, hash FROM heads WHERE encounter_id = ?", (encounter_id,)
        ).fetchone()
        if row is None:
            raise UnknownEncounter(encounter_id, self.path)
        return int(row[0]), str(row[1])

    @_guarded
    def hash_at(self, encounter_id: str, version: int) -> str | None:
        """The stored hash of the event at ``version``, or ``None``."""
        row = self._conn.execute(
            "SELECT hash FROM events WHERE encounter_id = ? AND version = ?", (encounter_id, version)
        ).fetchone()
        return row[0] if row else None

    @_guarded
    def version_of_hash(self, encounter_id: str, hash_: str) -> int | None:
        """The version of the event of ``encounter_id`` whose stored hash is
        ``hash_``, or ``None`` (a scan: verification only)."""
        row = self._conn.execute(
            "SELECT version FROM events WHERE encounter_id = ? AND hash = ? LIMIT 1", (encounter_id, hash_)
        ).fetchone()
        return row[0] if row else None

    @_guarded
    def commitment(self, encounter_id: str) -> str | None:
        """The ``seed_sha256`` of the encounter's opening event, or ``None``."""
        row = self._conn.execute(
            "SELECT json_extract(data, '$.seed_sha256') FROM events "
            "WHERE type = 'encounter-opened' AND encounter_id = ? ORDER BY version LIMIT 1",
            (encounter_id,),
        ).fetchone()
        return row[0] if row else None

    @_guarded
    def get_seed(self, encounter_id: str) -> bytes | None:
        """The secret dice seed of ``encounter_id``, or ``None`` if unknown.

        Only a seed whose SHA-256 is the encounter's commitment counts: one
        from the key file, else (a log written before the key file) from the
        file's old ``dice_seeds`` table. A seed swapped in after ``affray
        new`` is never returned."""
        committed = self.commitment(encounter_id)
        if committed is None:  # no opening event (a branch rolled back, an unknown id): no seed
            return None
        seed = self.keys.find(encounter_id, committed)
        if seed is not None:
            return seed
        try:
            row = self._conn.execute(
                "SELECT seed FROM dice_seeds WHERE encounter_id = ?", (encounter_id,)
            ).fetchone()
        except sqlite3.OperationalError:  # a file with no dice_seeds table
            return None
        if row is None:
            return None
        seed = bytes(row[0])
        if not matches(seed, committed):
            return None
        return seed

    @_guarded
    def verify_file(self) -> tuple[list[str], list[str]]:
        """``(problems, encounter ids)``: SQLite's ``quick_check`` of the
        whole file, and every encounter id in it, those whose events were all
        deleted included (``affray verify`` then checks each encounter in
        one pass of its own)."""
        from affray.store import verify as _verify

        return _verify.file_problems(self._conn)

    @_guarded
    def verify(self, encounter_id: str | None = None) -> list[str]:
        """Check the hash chains; return one line per problem (empty: all good).

        Recomputes every hash, and finds edited events (hash mismatch), deleted
        ones (version gaps, a head that disagrees with the last event), reordered
        ones (versions out of ``seq`` order) and data that does not decode. With
        no ``encounter_id`` it checks every encounter and runs SQLite's
        ``quick_check``. Errors: :class:`UnknownEncounter` for an id with
        neither events nor head; :class:`DatabaseCorrupt` when SQLite cannot
        read the file at all.
        """
        from affray.store import verify as _verify

        if encounter_id is None:
            return _verify.verify_all(self._conn)
        problems = _verify.verify_encounter(self._conn, encounter_id)
        if problems is None:
            raise UnknownEncounter(encounter_id, self.path)
        return problems

    # ------------------------------------------------------------------ #

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._conn.close()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"EventStore({self.path!r})"

    # ------------------------------------------------------------------ #
    # importing
    # ------------------------------------------------------------------ #

    @_guarded
    def import_records(
        self, encounter_id: str, rows: Iterable[tuple[int, str, str, int, str, str, str, str]]
    ) -> int:
        """Store a whole, already hash-chained log as encounter ``encounter_id``
        in one transaction; all or nothing. Returns the number of events.

        ``rows`` are ``(version, command_id, type, schema, data, recorded_at,
        actor, hash)`` in version order, ``data`` the exact JSON text to store
        (as ``affray export --format jsonl`` writes them). Unlike
        :meth:`append`, the envelopes are kept as given: the recorded times,
        actors and hashes are the original ones; only ``seq`` is new. The
        chain is checked again here, inside the transaction: versions must run
        1, 2, 3 ... and each hash must be ``sha256(previous hash ‖ canonical
        bytes)`` for ``encounter_id``. No dice seed is stored (see
        ``affray import``). ``rows`` may be a lazy iterator (memory stays
        flat); an error it raises while being read rolls the import back.

        Errors (nothing written): :class:`StoreError` when the encounter
        already has events, when ``rows`` is empty, or when the versions or
        the chain do not check out; :class:`StoreError` on a read-only store;
        :class:`DatabaseLocked`.
        """
        from affray.store.chain import canonical, chain_hash

        if self.readonly:
            raise StoreError(f"{self.path} was opened read-only; nothing was imported")
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            taken = conn.execute(
                "SELECT 1 FROM heads WHERE encounter_id = ? UNION ALL "
                "SELECT 1 FROM events WHERE encounter_id = ? LIMIT 1",
                (encounter_id, encounter_id),
            ).fetchone()
            if taken:
                raise StoreError(
                    f"encounter {encounter_id!r} already exists in {self.path}; "
                    "import it under another id with --as-id NEW_ID"
                )
            prev = ""
            expected = 0
            for expected, (version, command_id, type_, schema, data, recorded_at, actor, hash_) in enumerate(rows, 1):
                if version != expected:
                    raise StoreError(
                        f"cannot import encounter {encounter_id}: version {expected} is missing "
                        f"(found {version}); nothing was imported"
                    )
                if chain_hash(
                    prev, canonical(encounter_id, version, command_id, type_, schema, recorded_at, actor, data)
                ) != hash_:
                    raise StoreError(
                        f"cannot import encounter {encounter_id}: the hash chain does not verify at "
                        f"version {version}; nothing was imported"
                    )
                conn.execute(
                    _INSERT, (encounter_id, version, command_id, type_, schema, data, recorded_at, actor, hash_)
                )
                prev = hash_
            if not expected:
                raise StoreError(f"nothing to import for encounter {encounter_id}: the log is empty")
            conn.execute(_SET_HEAD, (encounter_id, expected, prev))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return expected
