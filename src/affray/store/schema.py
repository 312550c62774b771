"""The SQLite schema, created and migrated with sqlite-utils migrations.

``PRAGMA user_version`` holds :data:`SCHEMA_VERSION` once every migration has
run, so opening an up-to-date file costs one pragma (two for writing: the
store also checks that the file is in WAL mode) and never imports
sqlite-utils (about 80 ms). :func:`migrate` imports it only when needed.
sqlite-utils also records each applied migration in ``_sqlite_migrations``.
"""

from __future__ import annotations

import sqlite3

from affray.store.errors import DatabaseCorrupt

#: Number of migrations in :func:`_migrations`; bump it with each new one.
SCHEMA_VERSION = 3

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

# Views so the log reads well in sqlite3 or Datasette without affray.
VIEWS = {
    "event_log": """
SELECT seq, encounter_id, version, type, actor, recorded_at, command_id, data
FROM events ORDER BY seq""",
    "encounters": """
SELECT o.encounter_id AS id,
       json_extract(o.data, '$.name') AS name,
       json_extract(o.data, '$.system') AS system,
       o.recorded_at AS opened_at,
       (SELECT count(*) FROM events e WHERE e.encounter_id = o.encounter_id) AS events,
       EXISTS (SELECT 1 FROM events c
               WHERE c.type = 'encounter-closed' AND c.encounter_id = o.encounter_id) AS closed
FROM events o WHERE o.type = 'encounter-opened' ORDER BY o.seq""",
    "dice_rolls": """
SELECT seq, encounter_id, version, recorded_at, actor,
       json_extract(data, '$.purpose') AS purpose,
       json_extract(data, '$.expr') AS expr,
       json_extract(data, '$.faces') AS faces,
       json_extract(data, '$.total') AS total,
       json_extract(data, '$.source') AS source,
       json_extract(data, '$.index') AS "index",
       json_extract(data, '$.typed_by') AS typed_by,
       json_extract(data, '$.by') AS "by"
FROM events WHERE type = 'dice-rolled' ORDER BY seq""",
    "damage": """
SELECT seq, encounter_id, version, recorded_at,
       json_extract(data, '$.exchange') AS exchange,
       json_extract(data, '$.target') AS target,
       json_extract(data, '$.location') AS location,
       json_extract(data, '$.rolled') AS rolled,
       json_extract(data, '$.reduced') AS reduced,
       json_extract(data, '$.armour') AS armour,
       json_extract(data, '$.final') AS final,
       json_extract(data, '$.critical') AS critical
FROM events WHERE type = 'damage-dealt' ORDER BY seq""",
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
        for name, sql in VIEWS.items():
            db.create_view(name, sql.strip())

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


def migrate(conn: sqlite3.Connection, path: str, *, wal: bool = True, keys=None) -> None:
    """Bring the schema of ``conn`` up to :data:`SCHEMA_VERSION`.

    Runs in one ``BEGIN IMMEDIATE`` transaction, so two processes creating the
    same file cannot both migrate. Refuses a SQLite file that already holds
    other tables but no affray schema (:class:`DatabaseCorrupt`). Switches the
    file to WAL (persistent) after a successful migration.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
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
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    if wal:
        conn.execute("PRAGMA journal_mode = WAL")
