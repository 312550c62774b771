"""The event store on PostgreSQL (psycopg 3): many writers, many machines, one log.

``PostgresStore(url)`` implements :class:`affray.store.interface.Store` with
the same behaviour as the SQLite :class:`affray.store.sqlite.EventStore`,
proven by ``tests/test_store_conformance.py``. The tables are in
:mod:`affray.store.schema_pg`.

Concurrency: an append locks its encounter's ``heads`` row (``SELECT ... FOR
UPDATE``; a new encounter's row is first inserted with ``ON CONFLICT DO
NOTHING``, so two creators queue on it), compares the version with the
expected one and inserts the events; the primary key ``(encounter_id,
version)`` refuses a duplicate version whatever happens. A lost race, a
unique violation, a serialization failure or a deadlock all become the same
:class:`ConflictError` (exit 3) as on SQLite. Writers on different
encounters never wait for each other.

Hashes are computed by :mod:`affray.store.chain` over the same text as on
SQLite (``data`` is kept as exact ``json`` text), so a log copied between
backends keeps every hash (``affray copy``).

The dice seeds (:mod:`affray.store.keys` explains why they are secret) are in
the owner-only ``dice_keys`` table, or in the key file named by
``AFFRAY_KEYS`` (or ``keys=``) when one is given.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence

import msgspec
import psycopg
from psycopg import errors as pgerr

from affray.events import codec
from affray.events.core import Event
from affray.events.envelope import Live, Recorded
from affray.store import schema_pg
from affray.store.schema import ROW_KEY_SQL, encounter_infos_sql
from affray.store.chain import Chained, canonical, chain_hash, follow, mismatch
from affray.store.errors import (
    ConflictError,
    DatabaseCorrupt,
    DatabaseLocked,
    DatabaseMissing,
    StoreError,
    UnknownEncounter,
)
from affray.store.keys import KEYS_ENV, KeyFile
from affray.store.sqlite import EncounterInfo, utc_now
from affray.store.verify import ChainCheck

_MAX_VERSION = 2**63 - 1
_CHUNK = 500
_META_TYPES = ("command-retracted", "command-restored", "encounter-rewound")
_RAW = "seq, encounter_id, version, command_id, type, schema, data::text, recorded_at, actor, encode(hash, 'hex')"
_DECODE = "seq, version, command_id, type, schema, data::text, recorded_at, actor, encode(hash, 'hex')"
_LIVE = "version, command_id, type, schema, data::text"
# one page of a streamed read (keyset paging on version; _PAGE rows at most)
_PAGE_TAIL = " FROM events WHERE encounter_id = %s AND version BETWEEN %s AND %s ORDER BY version LIMIT 2000"
_PAGE = 2000
# encounter_infos: each encounter's head, first opening and closed flag, in creation order
_ENCOUNTER_INFOS = encounter_infos_sql("o.data->>'name'", "o.data->>'system'")
_PAGE_RAW = "SELECT " + _RAW + _PAGE_TAIL
# fold_rows: (command_id, key, data) as UTF-8 bytes, as SQLite's store gives
# them, read in spans of _PAGE versions (the versions are counted, not read)
_SPAN_ROWS = (
    f"SELECT convert_to(command_id, 'UTF8'), convert_to({ROW_KEY_SQL}, 'UTF8'), convert_to(data::text, 'UTF8') "
    "FROM events WHERE encounter_id = %s AND version BETWEEN %s AND %s ORDER BY version"
)
_LAST_IN_RANGE = "SELECT max(version) FROM events WHERE encounter_id = %s AND version BETWEEN %s AND %s"
_PAGE_DECODE = "SELECT " + _DECODE + _PAGE_TAIL
_PAGE_LIVE = "SELECT " + _LIVE + _PAGE_TAIL
_SELECT_META = (
    "SELECT " + _DECODE + " FROM events WHERE type = ANY(%s) AND encounter_id = %s "
    "AND version BETWEEN %s AND %s ORDER BY version"
)
_SELECT_ALL = "SELECT " + _DECODE + " FROM events WHERE encounter_id = %s ORDER BY version"
_INSERT = (
    "INSERT INTO events (encounter_id, version, command_id, type, schema, data, recorded_at, actor, hash) "
    "SELECT e, v, c, t, s, d::json, r, a, h FROM unnest("
    "%s::text[], %s::bigint[], %s::text[], %s::text[], %s::int[], %s::text[], %s::text[], %s::text[], %s::bytea[]"
    ") AS u(e, v, c, t, s, d, r, a, h) RETURNING seq, version"
)
# the events and the new head in one statement (one round trip)
_INSERT_AND_HEAD = (
    "WITH ins AS (" + _INSERT + "), "
    "head AS (UPDATE heads SET version = %s, hash = %s WHERE encounter_id = %s) "
    "SELECT seq, version FROM ins"
)
_OF_TYPE = (
    "SELECT version, command_id, schema, data::text FROM events "
    "WHERE type = %s AND encounter_id = %s AND version <= %s ORDER BY version"
)
_OF_TYPE_MATCH = (
    "SELECT version, command_id, schema, data::text FROM events "
    "WHERE type = %s AND encounter_id = %s AND version <= %s "
    "AND (schema != %s OR (data #> %s)::jsonb = %s::jsonb) ORDER BY version"
)


def _lock_head(conn, encounter_id: str, expected_version: int) -> tuple[int, str]:
    """Lock the ``heads`` row of ``encounter_id`` for this transaction and
    return ``(version, hash hex)``; a new encounter's row (``expected_version``
    0) is inserted first, so two creators queue on it. Raises
    :class:`ConflictError` when the head is not ``expected_version``."""
    if expected_version == 0:
        conn.execute(
            "INSERT INTO heads (encounter_id, version, hash) VALUES (%s, 0, '') ON CONFLICT (encounter_id) DO NOTHING",
            (encounter_id,),
        )
    head = conn.execute(
        "SELECT version, encode(hash, 'hex') FROM heads WHERE encounter_id = %s FOR UPDATE", (encounter_id,)
    ).fetchone()
    version, prev = (int(head[0]), head[1]) if head else (0, "")
    if version != expected_version:
        raise ConflictError(encounter_id, expected_version, version)
    return version, prev


def redact(url: str) -> str:
    """``url`` without its password (for messages): ``user:secret@`` becomes
    ``user@`` and a ``password=`` parameter is dropped."""
    url = re.sub(r"(://[^/@:]*):[^/@]*@", r"\1@", url)
    return re.sub(r"([?&])password=[^&]*&?", r"\1", url).rstrip("?&")


def _translate(exc: psycopg.Error, path: str) -> Exception:
    """The :class:`StoreError` a user should see for a psycopg error."""
    if isinstance(exc, (pgerr.LockNotAvailable, pgerr.QueryCanceled)):
        return DatabaseLocked(path)
    if isinstance(exc, pgerr.ReadOnlySqlTransaction):
        return StoreError(f"cannot write to {path}: the connection is read-only; check the role's rights")
    if isinstance(exc, pgerr.InsufficientPrivilege):
        return StoreError(f"cannot use {path}: {_first_line(exc)}; ask the database owner for the rights")
    if isinstance(exc, pgerr.RestrictViolation) and "append-only" in str(exc):
        return StoreError(f"{path}: the affray log is append-only; nothing was changed")
    if isinstance(exc, psycopg.DataError) and "NUL" in str(exc):
        return StoreError("a text holds a NUL byte, which PostgreSQL cannot store; remove it and try again")
    if isinstance(exc, psycopg.OperationalError):
        return StoreError(
            f"lost the connection to {path} ({_first_line(exc)}); check the server and run the command again"
        )
    return DatabaseCorrupt(path, _first_line(exc))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _guarded(fn):
    """Turn psycopg errors raised by a method into :class:`StoreError`."""

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs)
        except psycopg.Error as exc:
            raise _translate(exc, self.path) from exc

    return wrapper


def _json_path(path: str) -> list[str]:
    """``$.a.b`` (SQLite's JSON path) as PostgreSQL's ``{a,b}`` path array."""
    if not path.startswith("$."):
        raise ValueError(f"a JSON path starts with '$.', not {path!r}")
    return path[2:].split(".")


def _recorded(seqs: dict[int, int], out, encounter_id: str, command_id: str, recorded_at: str,
              actor: str) -> list[Recorded]:
    """The envelopes of an append: ``out`` its ``(event, type, schema,
    version, hash)`` tuples, ``seqs`` the ``seq`` of each version."""
    return [
        Recorded(
            seq=seqs[v], encounter_id=encounter_id, version=v, command_id=command_id, type=tag,
            schema=schema, event=event, recorded_at=recorded_at, actor=actor, hash=h,
        )
        for event, tag, schema, v, h in out
    ]


class SeedTable(KeyFile):
    """The dice seeds of a PostgreSQL log, in its owner-only ``dice_keys``
    table instead of a file: :class:`affray.store.keys.KeyFile`'s ``add``
    and ``seeds`` on a table (its ``find`` as it is). ``add`` runs on the
    store's connection, so inside an append it commits (or rolls back) with
    the events."""

    def __init__(self, store: PostgresStore) -> None:
        super().__init__(None)
        self._store = store
        self.path = f"table dice_keys of {store.path}"

    def add(self, encounter_id: str, seed: bytes) -> None:
        """Keep ``seed`` (bytes) for ``encounter_id`` in ``dice_keys``, inside
        the caller's transaction. Errors: :class:`StoreError` for an empty id
        or one holding whitespace (as the key file refuses it)."""
        if any(c.isspace() for c in encounter_id) or not encounter_id:
            raise StoreError(f"encounter id {encounter_id!r} holds a space or a line break; choose another with --id")
        self._store._conn.execute(
            "INSERT INTO dice_keys (encounter_id, seed) VALUES (%s, %s)", (encounter_id, bytes(seed))
        )

    def seeds(self, encounter_id: str) -> list[bytes]:
        """Every seed kept for ``encounter_id``, oldest first ([] when none);
        inside a transaction the read is a savepoint, so a refusal (a role
        that may not read ``dice_keys``) does not abort it."""
        conn = self._store._conn
        sql = "SELECT seed FROM dice_keys WHERE encounter_id = %s ORDER BY n"
        try:
            if conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
                rows = conn.execute(sql, (encounter_id,)).fetchall()
            else:  # inside an append or a transaction(): a refusal must not abort it
                with conn.transaction():
                    rows = conn.execute(sql, (encounter_id,)).fetchall()
        except pgerr.InsufficientPrivilege:  # a reader's role: the seeds are not for it
            return []
        return [bytes(r[0]) for r in rows]


class PostgresStore:
    """An affray log in a PostgreSQL database (the current schema of ``url``).

    ``PostgresStore(url, *, must_exist=False, readonly=False, keys=None,
    pool=None, lock_timeout_ms=5000)``. ``url`` is a libpq URL
    (``postgresql://user@host/db``, ``postgresql:///db?host=/run/sock``).
    ``pool`` (a :class:`psycopg_pool.ConnectionPool`) lends the connection,
    given back on :meth:`close`; otherwise the store opens its own. ``keys``
    (or ``AFFRAY_KEYS``) names a key file for the dice seeds instead of the
    ``dice_keys`` table.

    Creates the tables when missing, unless ``must_exist`` or ``readonly``.
    Errors: :class:`DatabaseMissing` (no affray log there and one is
    required), :class:`DatabaseCorrupt` (the schema holds another program's
    ``events`` table), :class:`StoreError` (cannot connect, newer schema).
    Usable as a context manager.
    """

    def __init__(
        self,
        url: str,
        *,
        must_exist: bool = False,
        readonly: bool = False,
        keys: str | None = None,
        pool=None,  # noqa: ANN001 - a psycopg_pool.ConnectionPool
        lock_timeout_ms: int = 5000,
    ) -> None:
        self.url = url
        self.path = redact(url)
        self.readonly = readonly
        self._batch = False
        self._pool = pool
        self._seeds: dict[str, bytes] = {}  # get_seed's finds
        try:
            if pool is not None:
                conn = pool.getconn()
                conn.autocommit = True
            else:
                conn = psycopg.connect(url, autocommit=True)
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot connect to {self.path} ({_first_line(exc)}); "
                "check that the PostgreSQL server is running and the URL is right"
            ) from None
        self._conn = conn
        try:
            conn.execute("SELECT set_config('lock_timeout', %s, false)", (f"{int(lock_timeout_ms)}ms",))
            if readonly:
                conn.execute("SET default_transaction_read_only = on")
            self._open(must_exist)
        except BaseException as exc:
            self.close()
            if isinstance(exc, psycopg.Error):
                raise _translate(exc, self.path) from exc
            raise
        keys = keys or os.environ.get(KEYS_ENV)
        self.keys = KeyFile(keys) if keys else SeedTable(self)

    def _open(self, must_exist: bool) -> None:
        found = schema_pg.found_version(self._conn)
        if found == schema_pg.SCHEMA_VERSION:
            return
        if found is not None and found > schema_pg.SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer affray (schema {found}, this one knows "
                f"{schema_pg.SCHEMA_VERSION}); upgrade affray"
            )
        if found == 0:
            raise DatabaseCorrupt(self.path, "it holds an events table, but not an affray log")
        if found is None and (must_exist or self.readonly):
            raise DatabaseMissing(self.path)
        if self.readonly:
            raise StoreError(
                f"{self.path} has an older affray schema (version {found}); "
                "open it once without read-only to upgrade it"
            )
        if found is None and self._conn.execute("SELECT current_schema()").fetchone()[0] is None:
            raise StoreError(
                f"{self.path}: no schema of the URL's search_path exists; "
                "create it (CREATE SCHEMA name) or fix the URL"
            )
        try:
            schema_pg.migrate(self._conn)
        except ValueError as exc:
            raise DatabaseCorrupt(self.path, str(exc)) from None

    # ------------------------------------------------------------------ #
    # writing
    # ------------------------------------------------------------------ #

    def _refuse_write(self, what: str) -> None:
        if self.readonly:
            raise StoreError(f"{self.path} was opened read-only; {what}")

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
        """Append ``events`` to ``encounter_id`` in one transaction; all or
        nothing. The same contract as :meth:`affray.store.sqlite.EventStore.append`
        (versions, hashes, ``seed``, ``check``, errors)."""
        self._refuse_write("nothing was recorded")
        prepared = []
        for event in events:
            tag = event.__struct_config__.tag if isinstance(event, Event) else None
            if not tag:
                raise TypeError(f"append takes tagged affray events, not {event!r}")
            prepared.append((event, tag, type(event).schema, codec.encode(event).decode()))
        if recorded_at is None:
            recorded_at = utc_now()
        conn = self._conn
        try:
            if not prepared:
                found = self.version(encounter_id)
                if found != expected_version:
                    raise ConflictError(encounter_id, expected_version, found)
                return []
            # pipeline mode: statements are sent without waiting for the
            # previous one's result unless it is read (the head, or the new
            # rows for check): fewer round trips to the server
            with conn.pipeline(), conn.transaction():
                version, prev = _lock_head(conn, encounter_id, expected_version)
                if seed is not None:  # beside the log, never in it: see affray.store.keys
                    self.keys.add(encounter_id, seed)
                rows, out = [], []
                for event, tag, schema, data in prepared:
                    version += 1
                    prev = chain_hash(
                        prev, canonical(encounter_id, version, command_id, tag, schema, recorded_at, actor, data)
                    )
                    rows.append((encounter_id, version, command_id, tag, schema, data, recorded_at, actor,
                                 bytes.fromhex(prev)))
                    out.append((event, tag, schema, version, prev))
                columns = [list(c) for c in zip(*rows)]
                inserted = conn.execute(_INSERT_AND_HEAD, [*columns, version, bytes.fromhex(prev), encounter_id])
                seqs = None
                if check is not None:  # it reads the new events: their rows first
                    seqs = dict((v, q) for q, v in inserted.fetchall())
                    check(_recorded(seqs, out, encounter_id, command_id, recorded_at, actor))
            if seqs is None:
                seqs = dict((v, q) for q, v in inserted.fetchall())
            return _recorded(seqs, out, encounter_id, command_id, recorded_at, actor)
        except (pgerr.UniqueViolation, pgerr.SerializationFailure, pgerr.DeadlockDetected):
            raise ConflictError(encounter_id, expected_version, self.version(encounter_id)) from None
        except psycopg.Error as exc:
            raise _translate(exc, self.path) from exc

    def append_rows(self, encounter_id: str, expected_version: int, rows: Iterable[tuple]) -> int:
        """Append rows already hash-chained onto the head ``expected_version``
        of ``encounter_id`` (0: a new encounter), as they are: ``(version,
        command_id, type, schema, data, recorded_at, actor, hash)``, the
        contract of :meth:`affray.store.sqlite.EventStore.append_rows`
        (versions and chain checked, one insert, all or nothing; a
        :class:`~affray.store.chain.Chained` is checked before the
        transaction, and the head row is locked only to insert). Returns
        how many. Errors: :class:`ConflictError`, :class:`StoreError`."""
        self._refuse_write("nothing was recorded")
        conn = self._conn
        ready = None
        if isinstance(rows, Chained) and rows.encounter_id == encounter_id and rows.after == expected_version:
            # checked already, before the transaction: the head row is locked only to insert
            ready = [(encounter_id, *row[:-1], bytes.fromhex(row[-1])) for row in rows.rows]
        try:
            with conn.transaction():
                version, prev = _lock_head(conn, encounter_id, expected_version)
                if ready is not None:
                    if prev != rows.prev:
                        raise mismatch(encounter_id, version)
                    batch = ready
                else:
                    batch = [(encounter_id, *row[:-1], bytes.fromhex(row[-1]))
                             for row in follow(encounter_id, version, prev, rows)]
                if batch:
                    columns = [list(c) for c in zip(*batch)]
                    conn.execute(_INSERT_AND_HEAD, [*columns, batch[-1][1], batch[-1][-1], encounter_id]).fetchall()
            return len(batch)
        except (pgerr.UniqueViolation, pgerr.SerializationFailure, pgerr.DeadlockDetected):
            raise ConflictError(encounter_id, expected_version, self.version(encounter_id)) from None
        except psycopg.Error as exc:
            raise _translate(exc, self.path) from exc

    @contextlib.contextmanager
    def transaction(self) -> Iterator[PostgresStore]:
        """Group several appends (and seed and snapshot writes) into one
        transaction: all of them or none. Inside it, each :meth:`append` is a
        savepoint (one that fails is undone alone). Nested, it joins the
        outer one. Used by ``branch`` and ``amend``."""
        self._refuse_write("nothing was recorded")
        if self._batch:
            yield self
            return
        self._batch = True
        try:
            with self._conn.transaction():
                yield self
        except psycopg.Error as exc:
            raise _translate(exc, self.path) from exc
        finally:
            self._batch = False

    @_guarded
    def save_snapshot(self, encounter_id: str, version: int, data: bytes) -> None:
        """Store (or replace) the projection snapshot of ``encounter_id`` at ``version``."""
        self._refuse_write("the snapshot was not saved")
        self._conn.execute(
            "INSERT INTO snapshots (encounter_id, version, data) VALUES (%s, %s, %s) "
            "ON CONFLICT (encounter_id, version) DO UPDATE SET data = excluded.data",
            (encounter_id, version, bytes(data)),
        )

    @_guarded
    def put_seed(self, encounter_id: str, seed: bytes) -> None:
        """Keep the secret dice ``seed`` of ``encounter_id`` (never in the log)."""
        self._refuse_write("the dice seed was not saved")
        self.keys.add(encounter_id, seed)

    @_guarded
    def import_records(self, encounter_id: str, rows: Iterable[tuple]) -> int:
        """Store a whole, already hash-chained log as encounter ``encounter_id``
        in one transaction, all or nothing; the contract of
        :meth:`affray.store.sqlite.EventStore.import_records`. The rows go in
        through ``COPY`` (fast for a big log)."""
        self._refuse_write("nothing was imported")
        conn = self._conn
        with conn.transaction():
            taken = conn.execute(
                "SELECT 1 FROM heads WHERE encounter_id = %s UNION ALL "
                "SELECT 1 FROM events WHERE encounter_id = %s LIMIT 1",
                (encounter_id, encounter_id),
            ).fetchone()
            if not taken:
                claimed = conn.execute(
                    "INSERT INTO heads (encounter_id, version, hash) VALUES (%s, 0, '') "
                    "ON CONFLICT (encounter_id) DO NOTHING RETURNING 1",
                    (encounter_id,),
                ).fetchone()
                taken = claimed is None
            if taken:
                raise StoreError(
                    f"encounter {encounter_id!r} already exists in {self.path}; "
                    "import it under another id with --as-id NEW_ID"
                )
            prev, expected = "", 0
            with conn.cursor().copy(
                "COPY events (encounter_id, version, command_id, type, schema, data, recorded_at, actor, hash) "
                "FROM STDIN"
            ) as copy:
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
                    copy.write_row(
                        (encounter_id, version, command_id, type_, schema, data, recorded_at, actor, bytes.fromhex(hash_))
                    )
                    prev = hash_
            if not expected:
                raise StoreError(f"nothing to import for encounter {encounter_id}: the log is empty")
            conn.execute(
                "UPDATE heads SET version = %s, hash = %s WHERE encounter_id = %s",
                (expected, bytes.fromhex(prev), encounter_id),
            )
        return expected

    # ------------------------------------------------------------------ #
    # reading
    # ------------------------------------------------------------------ #

    def _pages(self, sql: str, at: int, encounter_id: str, lo: int, hi: int | None) -> Iterator[tuple]:
        """The rows of ``encounter_id`` from version ``lo`` to ``hi``, in
        version order, :data:`_PAGE` rows per query (keyset paging: memory
        stays flat however long the log). ``sql`` is one of the ``_PAGE_*``
        queries; ``at`` is the index of ``version`` in its rows."""
        hi = _MAX_VERSION if hi is None else hi
        conn = self._conn
        try:
            while lo <= hi:
                rows = conn.execute(sql, (encounter_id, lo, hi)).fetchall()
                yield from rows
                if len(rows) < _PAGE:
                    return
                lo = rows[-1][at] + 1
        except psycopg.Error as exc:
            raise _translate(exc, self.path) from exc

    def _undecodable(self, encounter_id: str, version: int, exc: Exception) -> StoreError:
        if isinstance(exc, codec.UnknownEvent):
            return StoreError(
                f"encounter {encounter_id} version {version} in {self.path}: {exc}; "
                "it was probably written by a newer affray, upgrade affray"
            )
        return DatabaseCorrupt(self.path, f"encounter {encounter_id} version {version} does not decode: {exc}")

    def read(self, encounter_id: str, *, from_version: int = 1, to_version: int | None = None) -> Iterator[Recorded]:
        """Yield the decoded events of ``encounter_id`` in version order
        (inclusive bounds); as :meth:`affray.store.sqlite.EventStore.read`."""
        decode = codec.decode
        version = from_version
        try:
            for seq, version, command_id, type_, schema, data, recorded_at, actor, hash_ in self._pages(
                _PAGE_DECODE, 1, encounter_id, from_version, to_version
            ):
                yield Recorded(
                    seq=seq, encounter_id=encounter_id, version=version, command_id=command_id,
                    type=type_, schema=schema, event=decode(type_, schema, data),
                    recorded_at=recorded_at, actor=actor, hash=hash_,
                )
        except (codec.UnknownEvent, msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise self._undecodable(encounter_id, version, exc) from exc

    def read_raw(self, encounter_id: str, *, from_version: int = 1, to_version: int | None = None) -> Iterator[tuple]:
        """Raw rows ``(seq, encounter_id, version, command_id, type, schema,
        data, recorded_at, actor, hash)``: ``data`` the stored JSON text,
        ``hash`` hex."""
        return self._pages(_PAGE_RAW, 2, encounter_id, from_version, to_version)

    def read_chain(self, encounter_id: str) -> Iterator[tuple]:
        """Every row as :meth:`read_raw` gives it, without the encounter id:
        ``(seq, version, command_id, type, schema, data, recorded_at, actor,
        hash)``; as :meth:`affray.store.sqlite.EventStore.read_chain`."""
        return self._pages(_PAGE_DECODE, 1, encounter_id, 1, None)

    def read_live(
        self,
        encounter_id: str,
        *,
        from_version: int = 1,
        to_version: int | None = None,
        skip: frozenset = frozenset(),
        only: frozenset[str] | None = None,
    ) -> Iterator[Live]:
        """The lean read a replay needs; as :meth:`affray.store.sqlite.EventStore.read_live`."""
        decode = codec.decode
        built, typed = codec.typed_decoders(), codec.typed_decoder
        current = codec.CURRENT_SCHEMA
        meta = _META_TYPES
        version = from_version
        try:
            for version, command_id, type_, schema, data in self._pages(_PAGE_LIVE, 0, encounter_id, from_version, to_version):
                if type_ in meta or command_id in skip:
                    continue
                if only is not None and type_ not in only:
                    yield Live(version, command_id, None)
                elif current.get(type_) == schema:
                    yield Live(version, command_id, (built.get(type_) or typed(type_))(data))
                else:
                    yield Live(version, command_id, decode(type_, schema, data))
        except (codec.UnknownEvent, msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise self._undecodable(encounter_id, version, exc) from exc

    def fold_rows(self, encounter_id: str, fold, *, from_version: int = 1, to_version: int | None = None):
        """``fold(rows, first)`` over the rows ``(command_id, key, data)`` as
        UTF-8 bytes; as :meth:`affray.store.sqlite.EventStore.fold_rows`
        (read in spans of :data:`_PAGE` versions, so memory stays flat)."""
        top = _MAX_VERSION if to_version is None else to_version
        try:
            last = self._conn.execute(_LAST_IN_RANGE, (encounter_id, from_version, top)).fetchone()[0]
        except psycopg.Error as exc:
            raise _translate(exc, self.path) from exc
        if last is None:
            return fold((), from_version)[0]
        try:
            result, read = fold(self._spans(encounter_id, from_version, last), from_version)
        except codec.Undecodable as exc:
            raise self._undecodable(encounter_id, exc.version, exc.cause) from exc.cause
        if read != last - from_version + 1:
            raise DatabaseCorrupt(
                self.path,
                f"encounter {encounter_id} has {read} events from version {from_version} to {last}: "
                "versions are missing, the table was edited",
            )
        return result

    def _spans(self, encounter_id: str, lo: int, hi: int) -> Iterator[tuple]:
        try:
            for start in range(lo, hi + 1, _PAGE):
                yield from self._conn.execute(_SPAN_ROWS, (encounter_id, start, min(hi, start + _PAGE - 1))).fetchall()
        except psycopg.Error as exc:
            raise _translate(exc, self.path) from exc

    @_guarded
    def read_meta(self, encounter_id: str, *, from_version: int = 1, to_version: int | None = None) -> list[Recorded]:
        """The meta events (undo, redo, rewind) of ``encounter_id`` in range."""
        rows = self._conn.execute(
            _SELECT_META,
            (list(_META_TYPES), encounter_id, from_version, _MAX_VERSION if to_version is None else to_version),
        ).fetchall()
        return [
            Recorded(
                seq=seq, encounter_id=encounter_id, version=version, command_id=command_id, type=t,
                schema=schema, event=codec.decode(t, schema, data), recorded_at=recorded_at, actor=actor, hash=h,
            )
            for seq, version, command_id, t, schema, data, recorded_at, actor, h in rows
        ]

    @_guarded
    def versions_of_type(
        self,
        encounter_id: str,
        type_: str,
        *,
        match: tuple[str, object, int] | None = None,
        to_version: int | None = None,
        quick: bool = False,
    ) -> list[tuple[int, str, int, str]]:
        """``(version, command_id, schema, data)`` of the events tagged
        ``type_``, in version order; ``match`` as on SQLite. ``quick`` is
        accepted and changes nothing: ``jsonb`` is matched without parsing text."""
        hi = _MAX_VERSION if to_version is None else to_version
        if match is None:
            rows = self._conn.execute(_OF_TYPE, (type_, encounter_id, hi)).fetchall()
        else:
            path, value, schema = match
            rows = self._conn.execute(
                _OF_TYPE_MATCH,
                (type_, encounter_id, hi, schema, _json_path(path), msgspec.json.encode(value).decode()),
            ).fetchall()
        return [tuple(r) for r in rows]

    @_guarded
    def any_command_up_to(self, encounter_id: str, command_ids, version: int) -> bool:
        """Whether any of ``command_ids`` has an event of ``encounter_id`` at or before ``version``."""
        row = self._conn.execute(
            "SELECT 1 FROM events WHERE encounter_id = %s AND version <= %s AND command_id = ANY(%s) LIMIT 1",
            (encounter_id, version, sorted(set(command_ids))),
        ).fetchone()
        return row is not None

    @_guarded
    def version(self, encounter_id: str) -> int:
        """The head version of ``encounter_id``: its number of events, 0 if none."""
        row = self._conn.execute("SELECT version FROM heads WHERE encounter_id = %s", (encounter_id,)).fetchone()
        return int(row[0]) if row else 0

    @_guarded
    def head(self, encounter_id: str) -> tuple[int, str]:
        """``(version, hash)`` of the encounter's newest event. Errors: :class:`UnknownEncounter`."""
        row = self._conn.execute(
            "SELECT version, encode(hash, 'hex') FROM heads WHERE encounter_id = %s AND version > 0", (encounter_id,)
        ).fetchone()
        if row is None:
            raise UnknownEncounter(encounter_id, self.path)
        return int(row[0]), str(row[1])

    @_guarded
    def has_encounter(self, encounter_id: str) -> bool:
        """Whether ``encounter_id`` has any event."""
        row = self._conn.execute(
            "SELECT 1 FROM heads WHERE encounter_id = %s AND version > 0", (encounter_id,)
        ).fetchone()
        return row is not None

    @_guarded
    def encounter_ids(self) -> list[str]:
        """Every encounter id, in the order they were created."""
        rows = self._conn.execute(
            "SELECT h.encounter_id FROM heads h WHERE h.version > 0 ORDER BY "
            "(SELECT e.seq FROM events e WHERE e.encounter_id = h.encounter_id AND e.version = 1)"
        ).fetchall()
        return [r[0] for r in rows]

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
    def encounter_infos(self) -> list[EncounterInfo]:
        """:meth:`encounter_info` of every encounter, in creation order, from one query."""
        rows = self._conn.execute(_ENCOUNTER_INFOS).fetchall()
        return [
            EncounterInfo(id=eid, name=name or "", system=system or "", opened_at=opened_at or "",
                          version=int(version), closed=bool(closed))
            for eid, version, name, system, opened_at, closed in rows
        ]

    @_guarded
    def encounter_info(self, encounter_id: str) -> EncounterInfo:
        """Name, system, opening time, head version and closed flag. Errors: :class:`UnknownEncounter`."""
        version = self.version(encounter_id)
        if not version:
            raise UnknownEncounter(encounter_id, self.path)
        conn = self._conn
        opened = conn.execute(
            "SELECT data->>'name', data->>'system', recorded_at FROM events "
            "WHERE type = 'encounter-opened' AND encounter_id = %s ORDER BY seq LIMIT 1",
            (encounter_id,),
        ).fetchone() or ("", "", "")
        closed = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM events WHERE type = 'encounter-closed' AND encounter_id = %s)",
            (encounter_id,),
        ).fetchone()[0]
        name, system, opened_at = opened
        return EncounterInfo(
            id=encounter_id, name=name or "", system=system or "", opened_at=opened_at,
            version=version, closed=bool(closed),
        )

    @_guarded
    def latest_snapshot(self, encounter_id: str, at_most_version: int) -> tuple[int, bytes] | None:
        """The newest snapshot at or before ``at_most_version`` as ``(version, data)``, or ``None``."""
        row = self._conn.execute(
            "SELECT version, data FROM snapshots WHERE encounter_id = %s AND version <= %s "
            "ORDER BY version DESC LIMIT 1",
            (encounter_id, at_most_version),
        ).fetchone()
        return (int(row[0]), bytes(row[1])) if row else None

    @_guarded
    def snapshot_versions(self, encounter_id: str) -> list[int]:
        """The versions ``encounter_id`` has snapshots at, oldest first."""
        rows = self._conn.execute(
            "SELECT version FROM snapshots WHERE encounter_id = %s ORDER BY version", (encounter_id,)
        ).fetchall()
        return [int(r[0]) for r in rows]

    def snapshot_stream(self, encounter_id: str) -> Iterator[tuple[int, bytes]]:
        """Every snapshot as ``(version, data)``, oldest first, one fetched at a time."""
        for version in self.snapshot_versions(encounter_id):
            found = self.latest_snapshot(encounter_id, version)
            if found is not None and found[0] == version:
                yield found

    @_guarded
    def snapshots(self, encounter_id: str) -> list[tuple[int, bytes]]:
        """Every snapshot of ``encounter_id`` as ``(version, data)``, oldest first."""
        rows = self._conn.execute(
            "SELECT version, data FROM snapshots WHERE encounter_id = %s ORDER BY version", (encounter_id,)
        ).fetchall()
        return [(int(v), bytes(d)) for v, d in rows]

    @_guarded
    def commitment(self, encounter_id: str) -> str | None:
        """The ``seed_sha256`` of the encounter's opening event, or ``None``."""
        row = self._conn.execute(
            "SELECT data->>'seed_sha256' FROM events "
            "WHERE type = 'encounter-opened' AND encounter_id = %s ORDER BY version LIMIT 1",
            (encounter_id,),
        ).fetchone()
        return row[0] if row else None

    @_guarded
    def get_seed(self, encounter_id: str) -> bytes | None:
        """The secret dice seed of ``encounter_id`` whose SHA-256 is its
        commitment, or ``None``."""
        found = self._seeds.get(encounter_id)
        if found is not None:  # the commitment never changes, nor the seed that matches it
            return found
        committed = self.commitment(encounter_id)
        if committed is None:
            return None
        found = self.keys.find(encounter_id, committed)
        if found is not None and self._conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            self._seeds[encounter_id] = found  # committed: a rollback cannot take it away
        return found

    @_guarded
    def salts(self, encounter_id: str) -> list[tuple[int, str]]:
        """Every ``salt-added`` event as ``(from_index, value)``, in log order."""
        rows = self._conn.execute(
            "SELECT version, data->>'from_index', data->>'value' FROM events "
            "WHERE type = 'salt-added' AND encounter_id = %s ORDER BY version",
            (encounter_id,),
        ).fetchall()
        return [(int(first), str(value)) for _, first, value in rows]

    @_guarded
    def dice_per_command(
        self, encounter_id: str, to_version: int | None = None, *, from_version: int = 1
    ) -> list[tuple[str, int, int]]:
        """``(command_id, version of its first roll, number of dice)`` per
        command that rolled from ``from_version`` on, in version order."""
        rows = self._conn.execute(
            "SELECT command_id, min(version), sum(json_array_length(data->'faces')) FROM events "
            "WHERE type = 'dice-rolled' AND encounter_id = %s AND version BETWEEN %s AND %s GROUP BY command_id "
            "ORDER BY min(version)",
            (encounter_id, from_version, _MAX_VERSION if to_version is None else to_version),
        ).fetchall()
        return [(cid, int(first), int(n or 0)) for cid, first, n in rows]

    @_guarded
    def dice_of(self, encounter_id: str, command_ids, *, from_version: int = 1) -> dict[str, list[tuple[str, list[int]]]]:
        """The rolls of the given commands as ``{command_id: [(expr, faces),
        ...]}`` in version order, of the rolls from ``from_version`` on."""
        out: dict[str, list[tuple[str, list[int]]]] = {}
        for cid, expr, faces in self._conn.execute(
            "SELECT command_id, data->>'expr', (data->'faces')::text FROM events "
            "WHERE type = 'dice-rolled' AND encounter_id = %s AND version >= %s AND command_id = ANY(%s) "
            "ORDER BY version",
            (encounter_id, from_version, sorted(set(command_ids))),
        ).fetchall():
            out.setdefault(cid, []).append((expr or "", msgspec.json.decode(faces or "[]")))
        return out

    @_guarded
    def starts_command(self, encounter_id: str, version: int, command_id: str | None = None) -> bool:
        """Whether the event at ``version`` is the first of its command (and
        that command is ``command_id``, when given): one index lookup of two
        rows."""
        rows = dict(self._conn.execute(
            "SELECT version, command_id FROM events WHERE encounter_id = %s AND version BETWEEN %s AND %s",
            (encounter_id, version - 1, version),
        ).fetchall())
        here = rows.get(version)
        return here is not None and rows.get(version - 1) != here and command_id in (None, here)

    @_guarded
    def engine_high_water(self, encounter_id: str) -> int:
        """One past the highest engine roll number ``encounter_id`` ever drew (0 when none)."""
        row = self._conn.execute(
            "SELECT max((data->>'index')::bigint + json_array_length(data->'faces')) FROM events "
            "WHERE type = 'dice-rolled' AND encounter_id = %s AND data->>'source' = 'engine' "
            "AND (data->>'index')::bigint >= 0",
            (encounter_id,),
        ).fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    @_guarded
    def hash_at(self, encounter_id: str, version: int) -> str | None:
        """The stored hash (hex) of the event at ``version``, or ``None``."""
        row = self._conn.execute(
            "SELECT encode(hash, 'hex') FROM events WHERE encounter_id = %s AND version = %s", (encounter_id, version)
        ).fetchone()
        return row[0] if row else None

    @_guarded
    def version_of_hash(self, encounter_id: str, hash_: str) -> int | None:
        """The version whose stored hash is ``hash_`` (hex), or ``None``."""
        try:
            wanted = bytes.fromhex(hash_)
        except ValueError:
            return None
        row = self._conn.execute(
            "SELECT version FROM events WHERE encounter_id = %s AND hash = %s LIMIT 1", (encounter_id, wanted)
        ).fetchone()
        return int(row[0]) if row else None

    # ------------------------------------------------------------------ #
    # checking
    # ------------------------------------------------------------------ #

    @_guarded
    def verify_file(self) -> tuple[list[str], list[str]]:
        """``(problems, encounter ids)``: the append-only triggers present
        and enabled, and every encounter id (those whose events were all
        deleted included), in the order they were created."""
        conn = self._conn
        enabled = {
            name for name, state in conn.execute(
                "SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'events'::regclass AND NOT tgisinternal"
            ).fetchall() if state != "D"
        }
        problems = [
            f"database: the append-only trigger {name} on events is missing or disabled"
            for name in schema_pg.TRIGGERS if name not in enabled
        ]
        ids = [r[0] for r in conn.execute(
            "SELECT encounter_id FROM events GROUP BY encounter_id ORDER BY min(seq)"
        ).fetchall()]
        ids += [r[0] for r in conn.execute(
            "SELECT encounter_id FROM heads WHERE version > 0 AND encounter_id NOT IN (SELECT encounter_id FROM events)"
        ).fetchall()]
        return problems, ids

    def _verify_encounter(self, encounter_id: str) -> list[str] | None:
        row = self._conn.execute(
            "SELECT version, encode(hash, 'hex') FROM heads WHERE encounter_id = %s AND version > 0", (encounter_id,)
        ).fetchone()
        head = (int(row[0]), row[1]) if row else None
        check = ChainCheck(encounter_id)
        rows = self._conn.execute(_SELECT_ALL, (encounter_id,))
        for r in rows:
            check.feed(*r)
        return check.finish(head)

    @_guarded
    def verify(self, encounter_id: str | None = None) -> list[str]:
        """Check the hash chains; one line per problem (empty: all good).
        The checks of :meth:`affray.store.sqlite.EventStore.verify`, and with
        no ``encounter_id`` the triggers (:meth:`verify_file`)."""
        if encounter_id is None:
            problems, ids = self.verify_file()
            for eid in ids:
                problems.extend(self._verify_encounter(eid) or [])
            return problems
        found = self._verify_encounter(encounter_id)
        if found is None:
            raise UnknownEncounter(encounter_id, self.path)
        return found

    # ------------------------------------------------------------------ #

    def close(self) -> None:
        """Give the connection back to its pool, or close it (idempotent)."""
        conn, self._conn = getattr(self, "_conn", None), None
        if conn is None:
            return
        if self._pool is not None:
            with contextlib.suppress(psycopg.Error):
                conn.execute("RESET ALL")  # lock_timeout, read-only: not for the next borrower
            self._pool.putconn(conn)
        else:
            conn.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"PostgresStore({self.path!r})"
