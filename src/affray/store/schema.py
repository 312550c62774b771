"""The SQLite schema, created and migrated with sqlite-utils migrations.

``PRAGMA user_version`` holds :data:`SCHEMA_VERSION` once every migration has
run, so opening an up-to-date file costs one pragma (two for writing: the
store also checks that the file is in WAL mode) and never imports
sqlite-utils (about 80 ms). :func:`migrate` imports it only when needed.
sqlite-utils also records each applied migration in ``_sqlite_migrations``.
"""

from __future__ import annotations

import contextlib

import sqlite3

from affray.store.errors import DatabaseCorrupt

#: Number of migrations in :func:`_migrations`; bump it with each new one.
SCHEMA_VERSION = 6

#: The oldest schema a read-only store opens as it is: migration 3 only moves
#: the dice seeds out of the file (readers fall back to ``dice_seeds``), so a
#: read verb on an archived log written at schema 2 need not upgrade it.
READABLE_SINCE = 2

_EVENT_COLUMNS = {
    "seq": int,
    "encounter_id": str,
    "version": int,
    "command_id": str,
    "type": str,
    "schema": int,
    "data": str,
    "recorded_at": str,
    "actor": str,
    "hash": str,
}

# --------------------------------------------------------------------------- #
# The reader views (migration 4, issue 16 item 6): plain SQL, in one place
# --------------------------------------------------------------------------- #

#: Event types that are undo, redo and rewind (their status is ``meta``).
_META = "('command-retracted', 'command-restored', 'encounter-rewound')"

# --------------------------------------------------------------------------- #
# The type index (migration 6, issue 17): only the types looked up by type
# --------------------------------------------------------------------------- #

#: The event types affray looks up by type, and so the only ones in the
#: ``events_type`` index (a partial index since migration 6): undo, redo and
#: rewind (``read_meta``, the reader views); openings and closings
#: (``encounter_info``, ``newest_open_encounter``, ``commitment``, the
#: ``encounters`` view, ``verify``, ``branch``); salts (``salts``); round
#: starts and ends (``state --at``, ``log --round``, ``replay --round``);
#: joins (``log``, exports, ``why``); and what ``why`` walks back through
#: (``affray.views.why``). Together about 5% of a fight's events. The other
#: types (``dice-rolled`` is a fifth of a fight) are read by version range:
#: when every type had its entries in the index, each type of a command's
#: events sat on a leaf page of its own, and each commit wrote several more
#: pages. A query uses the index only when its ``WHERE`` names the type as a
#: literal (``type = 'salt-added'``, or such terms joined by ``OR``: SQLite
#: must see that it implies the index's ``WHERE``); ``tests/test_type_index.py``
#: checks the plan of each lookup.
INDEXED_TYPES: tuple[str, ...] = (
    "command-retracted", "command-restored", "encounter-rewound",
    "encounter-opened", "encounter-closed", "salt-added",
    "round-started", "round-ended", "combatant-joined",
    "ruling-changed", "wound-inflicted", "condition-applied", "status-changed",
    "damage-dealt", "hit-points-set", "hit-points-restored", "combatant-out",
)

#: The ``WHERE`` of the partial ``events_type`` index: ``type = ... OR type =
#: ...``, not ``type IN (...)``: SQLite builds a table for an ``IN`` list each
#: time it runs an ``INSERT`` (to test the row against the index), which cost
#: more than the index saved; a chain of ``=`` is a few comparisons.
TYPE_INDEX_WHERE = " OR ".join(f"type = '{t}'" for t in INDEXED_TYPES)


def encounter_infos_sql(name: str, system: str) -> str:
    """The query behind ``Store.encounter_infos``, for both backends (PostgreSQL imports it from here): each
    encounter's id, head version, name, system, opening time and closed flag
    (its first ``encounter-opened`` event, any ``encounter-closed`` one), in
    creation order. ``name`` and ``system`` are the dialect's expressions for
    ``$.name`` and ``$.system`` of the opening's JSON ``o.data``."""
    return f"""
SELECT x.encounter_id, x.version, {name}, {system}, o.recorded_at,
       EXISTS (SELECT 1 FROM events c WHERE c.type = 'encounter-closed' AND c.encounter_id = x.encounter_id)
FROM (SELECT h.encounter_id, h.version,
             (SELECT e.seq FROM events e WHERE e.encounter_id = h.encounter_id AND e.version = 1) AS first,
             (SELECT e.seq FROM events e WHERE e.type = 'encounter-opened' AND e.encounter_id = h.encounter_id
              ORDER BY e.seq LIMIT 1) AS opened
      FROM heads h WHERE h.version > 0) x
LEFT JOIN events o ON o.seq = x.opened
ORDER BY x.first"""

#: The views for readers of the file (sqlite3, Datasette), created in this
#: order by migration 4 (a view may use those before it) and described in
#: ``examples/datasette/metadata.json``. Plain SQLite SQL; the JSON of each
#: event is read with ``json_extract``/``json_each``. Another backend ports
#: this dict (the same names and columns) rather than anything else here.
#:
#: ``event_log_all`` holds the meaning of undo, redo and rewind
#: (:class:`affray.projections.timeline.Liveness`) in SQL: an event is
#: ``meta`` (an undo, redo or rewind), ``void`` (inside a rewound span: after
#: a rewind's ``to_version`` and before the rewind), ``retracted`` (its
#: command's newest undo/redo is an undo) or ``live`` (``event_status``
#: shows just that). The plain views show
#: the live timeline, each with a ``status`` column; each ``*_all`` view has
#: every row with its status. ``combatants`` folds the live events into each
#: combatant's current HP per location, wounds, status and conditions, as
#: :mod:`affray.projections.evolve` does.
READER_VIEWS: dict[str, str] = {
    "event_log_all": f"""
WITH rewinds AS MATERIALIZED (
    SELECT encounter_id, json_extract(data, '$.to_version') AS low, version AS high
    FROM events WHERE type = 'encounter-rewound'
), retracted AS MATERIALIZED (
    SELECT encounter_id, command_id FROM (
        SELECT encounter_id, type, json_extract(data, '$.command_id') AS command_id,
               row_number() OVER (PARTITION BY encounter_id, json_extract(data, '$.command_id')
                                  ORDER BY version DESC) AS newest
        FROM events WHERE type = 'command-retracted' OR type = 'command-restored'
    ) WHERE newest = 1 AND type = 'command-retracted'
)
SELECT e.seq, e.encounter_id, e.version, e.type, e.actor, e.recorded_at, e.command_id, e.data,
       CASE
         WHEN e.type IN {_META} THEN 'meta'
         WHEN EXISTS (SELECT 1 FROM rewinds r
                      WHERE r.encounter_id = e.encounter_id AND e.version > r.low AND e.version < r.high) THEN 'void'
         WHEN (e.encounter_id, e.command_id) IN (SELECT encounter_id, command_id FROM retracted) THEN 'retracted'
         ELSE 'live'
       END AS status
FROM events e
ORDER BY e.seq""",
    "event_status": """
SELECT seq, encounter_id, version, command_id, type, status FROM event_log_all""",
    "event_log": """
SELECT * FROM event_log_all WHERE status = 'live'""",
    "encounters": """
SELECT o.encounter_id AS id,
       json_extract(o.data, '$.name') AS name,
       json_extract(o.data, '$.system') AS system,
       o.recorded_at AS opened_at,
       (SELECT count(*) FROM events e WHERE e.encounter_id = o.encounter_id) AS events,
       EXISTS (SELECT 1 FROM events c
               WHERE c.type = 'encounter-closed' AND c.encounter_id = o.encounter_id) AS closed
FROM events o WHERE o.type = 'encounter-opened' ORDER BY o.seq""",
    "dice_rolls_all": """
SELECT seq, encounter_id, version, recorded_at, actor,
       json_extract(data, '$.purpose') AS purpose,
       json_extract(data, '$.expr') AS expr,
       json_extract(data, '$.faces') AS faces,
       json_extract(data, '$.total') AS total,
       json_extract(data, '$.source') AS source,
       json_extract(data, '$.index') AS "index",
       json_extract(data, '$.typed_by') AS typed_by,
       json_extract(data, '$.by') AS "by",
       status
FROM event_log_all WHERE type = 'dice-rolled'""",
    "dice_rolls": """
SELECT * FROM dice_rolls_all WHERE status = 'live'""",
    "damage_all": """
SELECT seq, encounter_id, version, recorded_at,
       json_extract(data, '$.exchange') AS exchange,
       json_extract(data, '$.target') AS target,
       json_extract(data, '$.location') AS location,
       json_extract(data, '$.rolled') AS rolled,
       json_extract(data, '$.reduced') AS reduced,
       json_extract(data, '$.armour') AS armour,
       json_extract(data, '$.final') AS final,
       json_extract(data, '$.critical') AS critical,
       status
FROM event_log_all WHERE type = 'damage-dealt'""",
    "damage": """
SELECT * FROM damage_all WHERE status = 'live'""",
    "combatants": """
WITH RECURSIVE live AS MATERIALIZED (
    SELECT encounter_id, version, type, data FROM event_log_all
    WHERE status = 'live' AND type IN (
        'combatant-joined', 'damage-dealt', 'hit-points-restored', 'hit-points-set', 'wound-inflicted',
        'wound-eased', 'status-changed', 'combatant-out', 'condition-applied', 'condition-expired')
), joined AS (
    SELECT encounter_id, version, json_extract(data, '$.handle') AS handle,
           json_extract(data, '$.name') AS name, json_extract(data, '$.side') AS side, data
    FROM live WHERE type = 'combatant-joined'
), locs AS (
    SELECT j.encounter_id, j.handle, CAST(l.key AS INTEGER) AS idx,
           json_extract(l.value, '$.name') AS location, json_extract(l.value, '$.hp') AS max_hp
    FROM joined j, json_each(j.data, '$.locations') l
), changes AS (
    SELECT encounter_id, version, type,
           CASE WHEN type IN ('damage-dealt', 'wound-inflicted', 'wound-eased')
                THEN json_extract(data, '$.target') ELSE json_extract(data, '$.handle') END AS handle,
           json_extract(data, '$.location') AS location,
           CASE type WHEN 'damage-dealt' THEN json_extract(data, '$.final')
                     WHEN 'hit-points-restored' THEN json_extract(data, '$.amount')
                     WHEN 'hit-points-set' THEN json_extract(data, '$.hp') END AS amount,
           json_extract(data, '$.severity') AS severity
    FROM live
    WHERE type IN ('damage-dealt', 'hit-points-restored', 'hit-points-set', 'wound-inflicted', 'wound-eased')
), numbered AS (
    SELECT c.*, row_number() OVER (PARTITION BY encounter_id, handle, location ORDER BY version) AS n
    FROM changes c
), fold(encounter_id, handle, idx, location, max_hp, n, hp, wound) AS (
    SELECT encounter_id, handle, idx, location, max_hp, 0, max_hp, '' FROM locs
    UNION ALL
    SELECT f.encounter_id, f.handle, f.idx, f.location, f.max_hp, f.n + 1,
           CASE c.type WHEN 'damage-dealt' THEN f.hp - c.amount
                       WHEN 'hit-points-restored' THEN min(f.max_hp, f.hp + c.amount)
                       WHEN 'hit-points-set' THEN c.amount
                       ELSE f.hp END,
           CASE c.type WHEN 'wound-eased' THEN c.severity
                       WHEN 'wound-inflicted' THEN
                         CASE WHEN (CASE c.severity WHEN 'minor' THEN 1 WHEN 'wound' THEN 1 WHEN 'serious' THEN 2
                                                   WHEN 'major' THEN 3 ELSE 0 END)
                                 > (CASE f.wound WHEN 'minor' THEN 1 WHEN 'wound' THEN 1 WHEN 'serious' THEN 2
                                                 WHEN 'major' THEN 3 ELSE 0 END)
                              THEN c.severity ELSE f.wound END
                       ELSE f.wound END
    FROM fold f JOIN numbered c
      ON c.encounter_id = f.encounter_id AND c.handle = f.handle AND c.location = f.location AND c.n = f.n + 1
), now AS (
    SELECT * FROM (
        SELECT f.*, row_number() OVER (PARTITION BY encounter_id, handle, location ORDER BY n DESC) AS newest
        FROM fold f
    ) WHERE newest = 1
), statuses AS (
    SELECT encounter_id, handle, status FROM (
        SELECT encounter_id, json_extract(data, '$.handle') AS handle,
               CASE type WHEN 'status-changed' THEN json_extract(data, '$.status')
                         ELSE CASE json_extract(data, '$.how') WHEN 'dead' THEN 'dead' ELSE 'out' END END AS status,
               row_number() OVER (PARTITION BY encounter_id, json_extract(data, '$.handle') ORDER BY version DESC)
                 AS newest
        FROM live WHERE type IN ('status-changed', 'combatant-out')
    ) WHERE newest = 1
), applied AS (
    SELECT encounter_id, version, json_extract(data, '$.handle') AS handle,
           json_extract(data, '$.condition.id') AS condition_id,
           json_extract(data, '$.condition.name') AS name,
           json_extract(data, '$.condition.location') AS location,
           row_number() OVER (PARTITION BY encounter_id, json_extract(data, '$.handle'),
                              json_extract(data, '$.condition.id') ORDER BY version DESC) AS newest
    FROM live WHERE type = 'condition-applied'
), conditions AS (
    SELECT a.encounter_id, a.handle, a.version, a.name, a.location FROM applied a
    WHERE a.newest = 1 AND NOT EXISTS (
        SELECT 1 FROM live x
        WHERE x.type = 'condition-expired' AND x.encounter_id = a.encounter_id AND x.version > a.version
          AND json_extract(x.data, '$.handle') = a.handle
          AND json_extract(x.data, '$.condition_id') = a.condition_id)
)
SELECT j.encounter_id, j.handle, j.name, j.side,
       coalesce(st.status, 'active') AS status,
       (SELECT sum(n.hp) FROM now n WHERE n.encounter_id = j.encounter_id AND n.handle = j.handle) AS hp,
       (SELECT sum(n.max_hp) FROM now n WHERE n.encounter_id = j.encounter_id AND n.handle = j.handle) AS max_hp,
       (SELECT json_group_array(json_object('name', o.location, 'hp', o.hp, 'max_hp', o.max_hp, 'wound', o.wound))
        FROM (SELECT * FROM now n WHERE n.encounter_id = j.encounter_id AND n.handle = j.handle ORDER BY n.idx) o
       ) AS locations,
       (SELECT group_concat(c.label, ', ')
        FROM (SELECT c.name || CASE WHEN c.location <> '' THEN ' (' || c.location || ')' ELSE '' END AS label
              FROM conditions c WHERE c.encounter_id = j.encounter_id AND c.handle = j.handle
              ORDER BY c.version) c
       ) AS conditions,
       j.version AS joined_version
FROM joined j
LEFT JOIN statuses st ON st.encounter_id = j.encounter_id AND st.handle = j.handle
ORDER BY j.encounter_id, j.version""",
}


def _migrations(sqlite_utils, keys=None):  # noqa: ANN001 - the lazily imported module
    """The ordered migration set (``len`` must equal :data:`SCHEMA_VERSION`).
    ``keys`` is the store's :class:`affray.store.keys.KeyFile` (migration 3
    moves the seeds into it)."""
    migrations = sqlite_utils.Migrations("affray")

    @migrations(name="0001_events_heads_snapshots_views")
    def initial(db) -> None:  # noqa: ANN001
        events = db.create_table(
            "events", _EVENT_COLUMNS, pk="seq", not_null=[c for c in _EVENT_COLUMNS if c != "seq"]
        )
        events.create_index(["encounter_id", "version"], index_name="events_encounter_version", unique=True)
        events.create_index(["type", "encounter_id"], index_name="events_type")
        db.create_table(
            "heads", {"encounter_id": str, "version": int, "hash": str},
            pk="encounter_id", not_null=["encounter_id", "version", "hash"],
        )
        db.create_table(
            "snapshots", {"encounter_id": str, "version": int, "data": bytes},
            pk=("encounter_id", "version"), not_null=["encounter_id", "version", "data"],
        )
        # Invariant 1, guarded in the file itself: edits by hand fail loudly.
        for op in ("UPDATE", "DELETE"):
            db.execute(
                f"CREATE TRIGGER events_no_{op.lower()} BEFORE {op} ON events "
                "BEGIN SELECT RAISE(ABORT, 'the affray log is append-only'); END"
            )
        # (the views for readers come with migration 4: READER_VIEWS)

    @migrations(name="0002_dice_seeds")
    def dice_seeds(db) -> None:  # noqa: ANN001
        # The engine's secret dice seed per encounter. Only sha256(seed) is in
        # the log until 'affray close' reveals the seed in an event.
        db.create_table(
            "dice_seeds", {"encounter_id": str, "seed": bytes},
            pk="encounter_id", not_null=["encounter_id", "seed"],
        )

    @migrations(name="0003_dice_seeds_to_key_file")
    def seeds_out(db) -> None:  # noqa: ANN001
        # The seed must not be in the shared file (README, "Threat model"):
        # move every seed to the key file beside it, then blank and delete the
        # rows (secure_delete overwrites the freed content with zeros). The
        # table stays, empty, so an older reader still finds it.
        rows = db.execute("SELECT encounter_id, seed FROM dice_seeds").fetchall()
        if not rows:
            return
        if keys is None:
            raise ValueError("moving the dice seeds needs the store's key file")
        for encounter_id, seed in rows:
            if bytes(seed) not in keys.seeds(encounter_id):
                keys.add(encounter_id, bytes(seed))
        db.execute("PRAGMA secure_delete = ON")
        db.execute("DELETE FROM dice_seeds")

    def create_reader_views(db) -> None:  # noqa: ANN001
        """(Re)create :data:`READER_VIEWS` in order, dropping the old views first."""
        for name in ("event_log", "dice_rolls", "damage", *reversed(READER_VIEWS)):
            if name in db.view_names():
                db.view(name).drop()
        for name, sql in READER_VIEWS.items():
            db.create_view(name, sql.strip())

    @migrations(name="0004_reader_views")
    def reader_views(db) -> None:  # noqa: ANN001
        # The live timeline by default, status columns, *_all views with
        # every row, and combatants (issue 16, item 6): READER_VIEWS.
        create_reader_views(db)

    @migrations(name="0005_reader_views_retracted_lookup")
    def reader_views_lookup(db) -> None:  # noqa: ANN001
        # event_log_all finds a retracted command with an IN lookup, not a
        # LEFT JOIN that SQLite scanned once per event (1.35 s -> 38 ms on a
        # 21,000-event log with 1,000 undo/redo/rewind events): the same rows.
        create_reader_views(db)

    @migrations(name="0006_partial_type_index")
    def partial_type_index(db) -> None:  # noqa: ANN001
        # events_type holds only INDEXED_TYPES (issue 17: each commit wrote a
        # leaf page per type of its events), and event_log_all names its two
        # types with OR, so that SQLite sees the partial index serves it.
        db.execute("DROP INDEX IF EXISTS events_type")
        db.execute(f"CREATE INDEX events_type ON events (type, encounter_id) WHERE {TYPE_INDEX_WHERE}")
        create_reader_views(db)

    return migrations


#: ``PRAGMA application_id`` of an affray log: "AFRY" as a big-endian int32.
APPLICATION_ID = int.from_bytes(b"AFRY", "big")


def is_affray(conn: sqlite3.Connection) -> bool:
    """Whether the open file is an affray log (at any schema version).

    True when the header carries :data:`APPLICATION_ID`, or, for logs written
    before affray set it, when sqlite-utils' ``_sqlite_migrations`` table
    records the ``affray`` migration set. Another program's SQLite file (one
    that sets ``user_version`` too, as many do) is not.
    """
    if conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID:
        return True
    try:
        row = conn.execute("SELECT 1 FROM _sqlite_migrations WHERE migration_set = 'affray' LIMIT 1").fetchone()
    except sqlite3.OperationalError:  # no such table
        return False
    return row is not None


def user_version(conn: sqlite3.Connection) -> int:
    """The file's ``PRAGMA user_version`` (reads the header: fails on non-SQLite)."""
    return conn.execute("PRAGMA user_version").fetchone()[0]


def clone_schema(src: sqlite3.Connection, dst: sqlite3.Connection) -> None:
    """Give the empty database ``dst`` the schema of the affray file ``src``
    as SQLite holds it: its tables, indexes, views and triggers (created in
    that order, each kind in the order ``src`` made them), sqlite-utils'
    record of the migrations applied, ``user_version`` and
    ``application_id``; no events, snapshots or seeds. The same schema as
    :func:`migrate` gives, without importing sqlite-utils (60–100 ms) or
    running the migrations: for a scratch store in memory (``amend``)."""
    kinds = {"table": 0, "index": 1, "view": 2, "trigger": 3}
    rows = src.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
    ).fetchall()
    with _transaction(dst, "BEGIN"):
        for _, _, sql in sorted(rows, key=lambda r: kinds.get(r[0], 4)):  # a stable sort keeps src's order
            dst.execute(sql)
        if any(name == "_sqlite_migrations" for _, name, _ in rows):
            done = src.execute("SELECT * FROM _sqlite_migrations").fetchall()
            if done:
                chunk = done[0]
                dst.executemany(f"INSERT INTO _sqlite_migrations VALUES ({', '.join('?' * len(chunk))})", done)
        # PRAGMA takes no parameters: two ints read from src's header, through int()
        header_version, header_app_id = int(user_version(src)), int(src.execute("PRAGMA application_id").fetchone()[0])
        dst.execute(f"PRAGMA user_version = {header_version}")
        dst.execute(f"PRAGMA application_id = {header_app_id}")


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection, begin: str):
    """``begin`` (``BEGIN`` or ``BEGIN IMMEDIATE``), then COMMIT, or ROLLBACK
    on any error."""
    conn.execute(begin)
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def migrate(conn: sqlite3.Connection, path: str, *, wal: bool = True, keys=None) -> None:
    """Bring the schema of ``conn`` up to :data:`SCHEMA_VERSION`.

    Runs in one ``BEGIN IMMEDIATE`` transaction, so two processes creating the
    same file cannot both migrate. Refuses a SQLite file that already holds
    other tables but no affray schema (:class:`DatabaseCorrupt`). Switches the
    file to WAL (persistent) after a successful migration.
    """
    with _transaction(conn, "BEGIN IMMEDIATE"):
        current = user_version(conn)
        if current < SCHEMA_VERSION:
            if conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] and not is_affray(conn):
                raise DatabaseCorrupt(path, "it is a SQLite database, but not an affray one")
            if current != 0 and not is_affray(conn):
                raise DatabaseCorrupt(path, f"it is a SQLite database (user_version {current}), but not an affray one")
            import sqlite_utils

            db = sqlite_utils.Database(conn, recursive_triggers=False, execute_plugins=False)
            migrations = _migrations(sqlite_utils, keys)
            migrations.apply(db)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    if wal:
        conn.execute("PRAGMA journal_mode = WAL")


#: The row key the replay's fold dispatches on (``fold_rows`` on both
#: backends): the type tag, or ``tag@schema`` for a row stored at a schema
#: other than 1, so the fold reads one column where it read two.
ROW_KEY_SQL = "CASE WHEN schema = 1 THEN type ELSE type || '@' || schema END"
