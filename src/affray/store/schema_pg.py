"""The PostgreSQL schema: the SQLite tables (:mod:`affray.store.schema`) in
PostgreSQL's types, and their migrations.

Tables live in the connection's current schema (the first of its
``search_path``; pick another with ``?options=-csearch_path%3Dmyschema`` in
the URL), so one database can hold several logs.

* ``events``: ``data`` is ``json``, not ``jsonb``: the hash chain covers the
  exact JSON text affray wrote (:mod:`affray.store.chain`), and ``json``
  keeps it byte for byte where ``jsonb`` re-orders keys, drops spaces and
  refuses ``\\u0000``; the ``->``/``->>`` operators and ``json_*`` functions
  read it all the same. ``hash`` is ``bytea`` (32 bytes; the store speaks
  hex). The primary key ``(encounter_id, version)`` is the optimistic
  concurrency guard and, under Citus, includes the distribution column
  (docs/scale.md). ``seq`` is an identity column with its own index.
* ``heads``: one row per encounter; an append locks it (``FOR UPDATE``).
* ``snapshots``: ``bytea`` cache, outside the chain.
* ``dice_keys``: the secret dice seeds (the SQLite backend's key file).
  Only its owner may read it: PostgreSQL gives a new table to its owner
  alone, and migration 1 revokes it from ``PUBLIC`` again. Grant readers
  (Datasette, a web view) the log tables and views by name, never
  ``ALL TABLES IN SCHEMA`` (README, "PostgreSQL").
* append-only: ``BEFORE UPDATE``/``DELETE`` row triggers and a ``BEFORE
  TRUNCATE`` statement trigger on ``events`` raise "the affray log is
  append-only".
* the reader views (:data:`READER_VIEWS`, migration 2): SQLite's
  :data:`affray.store.schema.READER_VIEWS` in PostgreSQL's syntax, with the
  same names, columns and rows.

``affray_schema`` holds the applied version; :func:`migrate` runs the
missing migrations in one transaction under an advisory lock, so two
processes creating the same log cannot both migrate.
"""

from __future__ import annotations

#: The four views migration 1 made (SQLite's before its migration 4), in
#: PostgreSQL's JSON syntax; kept because migration 1 is never edited.
#: Migration 2 replaces them with :data:`READER_VIEWS`.
VIEWS = {
    "event_log": """
SELECT seq, encounter_id, version, type, actor, recorded_at, command_id, data
FROM events ORDER BY seq""",
    "encounters": """
SELECT o.encounter_id AS id,
       o.data->>'name' AS name,
       o.data->>'system' AS system,
       o.recorded_at AS opened_at,
       (SELECT count(*) FROM events e WHERE e.encounter_id = o.encounter_id) AS events,
       EXISTS (SELECT 1 FROM events c
               WHERE c.type = 'encounter-closed' AND c.encounter_id = o.encounter_id) AS closed
FROM events o WHERE o.type = 'encounter-opened' ORDER BY o.seq""",
    "dice_rolls": """
SELECT seq, encounter_id, version, recorded_at, actor,
       data->>'purpose' AS purpose,
       data->>'expr' AS expr,
       data->'faces' AS faces,
       (data->>'total')::bigint AS total,
       data->>'source' AS source,
       (data->>'index')::bigint AS "index",
       data->>'typed_by' AS typed_by,
       data->>'by' AS "by"
FROM events WHERE type = 'dice-rolled' ORDER BY seq""",
    "damage": """
SELECT seq, encounter_id, version, recorded_at,
       (data->>'exchange')::bigint AS exchange,
       data->>'target' AS target,
       data->>'location' AS location,
       (data->>'rolled')::bigint AS rolled,
       (data->>'reduced')::bigint AS reduced,
       (data->>'armour')::bigint AS armour,
       (data->>'final')::bigint AS final,
       data->>'critical' AS critical
FROM events WHERE type = 'damage-dealt' ORDER BY seq""",
}

#: Event types that are undo, redo and rewind (their status is ``meta``).
_META = "('command-retracted', 'command-restored', 'encounter-rewound')"

#: The reader views of :data:`affray.store.schema.READER_VIEWS` (issue 16,
#: item 6), ported to PostgreSQL by migration 2 (issue 18): the same names,
#: created in the same order, with the same columns in the same order and
#: the same rows. Only the syntax differs:
#:
#: * ``json_extract(data, '$.a')`` is ``data->>'a'`` (``data->'a'`` for the
#:   JSON of ``faces``), cast where SQLite's value is a number
#:   (``::bigint``) or a JSON boolean (``critical``, ``::boolean``: SQLite
#:   gives ``1``/``0``, as it does for ``encounters.closed``);
#: * ``json_each(j.data, '$.locations')`` is ``json_array_elements(...)
#:   WITH ORDINALITY`` (its ``ordinality - 1`` is ``json_each``'s ``key``);
#: * the scalar ``min(a, b)`` is ``LEAST(a, b)``;
#: * ``json_group_array(json_object(...))`` over an ordered subquery is
#:   ``json_agg(json_build_object(...) ORDER BY idx)`` (``[]`` when empty, as
#:   SQLite gives), ``group_concat`` is ``string_agg(... ORDER BY version)``;
#: * a retracted command is found with ``(encounter_id, command_id) IN
#:   (SELECT ... FROM retracted)``, where SQLite LEFT JOINs ``retracted``:
#:   PostgreSQL estimates that CTE at one row and would loop over it for
#:   every event (1.8 s instead of 0.07 s to count 21,000 events by status,
#:   1,000 of them undo, redo and rewind events; ``bench/views.py``), where
#:   ``IN`` is one hashed lookup per event;
#: * every subquery in ``FROM`` has an alias, the fold's empty wound is
#:   ``''::text`` and its sums are ``::bigint`` (PostgreSQL's ``sum`` of a
#:   ``bigint`` is ``numeric``);
#: * the views that filter another view say ``ORDER BY seq`` themselves
#:   (SQLite keeps the inner view's order; PostgreSQL does not promise to),
#:   and ``combatants`` orders encounter ids with ``COLLATE "C"`` (bytewise,
#:   as SQLite compares text).
#:
#: ``data``, ``faces`` and ``locations`` are ``json`` (SQLite gives their
#: text). ``tests/test_reader_views.py`` plays one fight with undo, redo
#: and a rewind on both backends and compares every view row by row.
READER_VIEWS: dict[str, str] = {
    "event_log_all": f"""
WITH rewinds AS MATERIALIZED (
    SELECT encounter_id, (data->>'to_version')::bigint AS low, version AS high
    FROM events WHERE type = 'encounter-rewound'
), retracted AS MATERIALIZED (
    SELECT encounter_id, command_id FROM (
        SELECT encounter_id, type, data->>'command_id' AS command_id,
               row_number() OVER (PARTITION BY encounter_id, data->>'command_id'
                                  ORDER BY version DESC) AS newest
        FROM events WHERE type IN ('command-retracted', 'command-restored')
    ) AS marks WHERE newest = 1 AND type = 'command-retracted'
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
SELECT seq, encounter_id, version, command_id, type, status FROM event_log_all ORDER BY seq""",
    "event_log": """
SELECT * FROM event_log_all WHERE status = 'live' ORDER BY seq""",
    "encounters": VIEWS["encounters"],  # unchanged since migration 1
    "dice_rolls_all": """
SELECT seq, encounter_id, version, recorded_at, actor,
       data->>'purpose' AS purpose,
       data->>'expr' AS expr,
       data->'faces' AS faces,
       (data->>'total')::bigint AS total,
       data->>'source' AS source,
       (data->>'index')::bigint AS "index",
       data->>'typed_by' AS typed_by,
       data->>'by' AS "by",
       status
FROM event_log_all WHERE type = 'dice-rolled' ORDER BY seq""",
    "dice_rolls": """
SELECT * FROM dice_rolls_all WHERE status = 'live' ORDER BY seq""",
    "damage_all": """
SELECT seq, encounter_id, version, recorded_at,
       (data->>'exchange')::bigint AS exchange,
       data->>'target' AS target,
       data->>'location' AS location,
       (data->>'rolled')::bigint AS rolled,
       (data->>'reduced')::bigint AS reduced,
       (data->>'armour')::bigint AS armour,
       (data->>'final')::bigint AS final,
       (data->>'critical')::boolean AS critical,
       status
FROM event_log_all WHERE type = 'damage-dealt' ORDER BY seq""",
    "damage": """
SELECT * FROM damage_all WHERE status = 'live' ORDER BY seq""",
    "combatants": """
WITH RECURSIVE live AS MATERIALIZED (
    SELECT encounter_id, version, type, data FROM event_log_all
    WHERE status = 'live' AND type IN (
        'combatant-joined', 'damage-dealt', 'hit-points-restored', 'hit-points-set', 'wound-inflicted',
        'wound-eased', 'status-changed', 'combatant-out', 'condition-applied', 'condition-expired')
), joined AS (
    SELECT encounter_id, version, data->>'handle' AS handle,
           data->>'name' AS name, data->>'side' AS side, data
    FROM live WHERE type = 'combatant-joined'
), locs AS (
    SELECT j.encounter_id, j.handle, l.ordinality - 1 AS idx,
           l.value->>'name' AS location, (l.value->>'hp')::bigint AS max_hp
    FROM joined j, json_array_elements(j.data->'locations') WITH ORDINALITY AS l(value, ordinality)
), changes AS (
    SELECT encounter_id, version, type,
           CASE WHEN type IN ('damage-dealt', 'wound-inflicted', 'wound-eased')
                THEN data->>'target' ELSE data->>'handle' END AS handle,
           data->>'location' AS location,
           CASE type WHEN 'damage-dealt' THEN (data->>'final')::bigint
                     WHEN 'hit-points-restored' THEN (data->>'amount')::bigint
                     WHEN 'hit-points-set' THEN (data->>'hp')::bigint END AS amount,
           data->>'severity' AS severity
    FROM live
    WHERE type IN ('damage-dealt', 'hit-points-restored', 'hit-points-set', 'wound-inflicted', 'wound-eased')
), numbered AS (
    SELECT c.*, row_number() OVER (PARTITION BY encounter_id, handle, location ORDER BY version) AS n
    FROM changes c
), fold(encounter_id, handle, idx, location, max_hp, n, hp, wound) AS (
    SELECT encounter_id, handle, idx, location, max_hp, 0::bigint, max_hp, ''::text FROM locs
    UNION ALL
    SELECT f.encounter_id, f.handle, f.idx, f.location, f.max_hp, f.n + 1,
           CASE c.type WHEN 'damage-dealt' THEN f.hp - c.amount
                       WHEN 'hit-points-restored' THEN LEAST(f.max_hp, f.hp + c.amount)
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
    ) AS steps WHERE newest = 1
), statuses AS (
    SELECT encounter_id, handle, status FROM (
        SELECT encounter_id, data->>'handle' AS handle,
               CASE type WHEN 'status-changed' THEN data->>'status'
                         ELSE CASE data->>'how' WHEN 'dead' THEN 'dead' ELSE 'out' END END AS status,
               row_number() OVER (PARTITION BY encounter_id, data->>'handle' ORDER BY version DESC)
                 AS newest
        FROM live WHERE type IN ('status-changed', 'combatant-out')
    ) AS changed WHERE newest = 1
), applied AS (
    SELECT encounter_id, version, data->>'handle' AS handle,
           data->'condition'->>'id' AS condition_id,
           data->'condition'->>'name' AS name,
           data->'condition'->>'location' AS location,
           row_number() OVER (PARTITION BY encounter_id, data->>'handle',
                              data->'condition'->>'id' ORDER BY version DESC) AS newest
    FROM live WHERE type = 'condition-applied'
), conditions AS (
    SELECT a.encounter_id, a.handle, a.version, a.name, a.location FROM applied a
    WHERE a.newest = 1 AND NOT EXISTS (
        SELECT 1 FROM live x
        WHERE x.type = 'condition-expired' AND x.encounter_id = a.encounter_id AND x.version > a.version
          AND x.data->>'handle' = a.handle
          AND x.data->>'condition_id' = a.condition_id)
)
SELECT j.encounter_id, j.handle, j.name, j.side,
       coalesce(st.status, 'active') AS status,
       (SELECT sum(n.hp) FROM now n WHERE n.encounter_id = j.encounter_id AND n.handle = j.handle)::bigint AS hp,
       (SELECT sum(n.max_hp) FROM now n WHERE n.encounter_id = j.encounter_id AND n.handle = j.handle)::bigint
         AS max_hp,
       (SELECT coalesce(json_agg(json_build_object('name', n.location, 'hp', n.hp, 'max_hp', n.max_hp,
                                                   'wound', n.wound) ORDER BY n.idx), '[]'::json)
        FROM now n WHERE n.encounter_id = j.encounter_id AND n.handle = j.handle
       ) AS locations,
       (SELECT string_agg(c.name || CASE WHEN c.location <> '' THEN ' (' || c.location || ')' ELSE '' END,
                          ', ' ORDER BY c.version)
        FROM conditions c WHERE c.encounter_id = j.encounter_id AND c.handle = j.handle
       ) AS conditions,
       j.version AS joined_version
FROM joined j
LEFT JOIN statuses st ON st.encounter_id = j.encounter_id AND st.handle = j.handle
ORDER BY j.encounter_id COLLATE "C", j.version""",
}

#: The views migration 1 made, which migration 2 replaces.
_OLD_VIEWS = ("event_log", "encounters", "dice_rolls", "damage")

_INITIAL = [
    """CREATE TABLE events (
    seq bigint GENERATED BY DEFAULT AS IDENTITY NOT NULL,
    encounter_id text NOT NULL,
    version bigint NOT NULL,
    command_id text NOT NULL,
    type text NOT NULL,
    schema integer NOT NULL,
    data json NOT NULL,
    recorded_at text NOT NULL,
    actor text NOT NULL,
    hash bytea NOT NULL,
    CONSTRAINT events_encounter_version PRIMARY KEY (encounter_id, version)
)""",
    "CREATE INDEX events_seq ON events (seq)",
    "CREATE INDEX events_type ON events (type, encounter_id)",
    """CREATE TABLE heads (
    encounter_id text PRIMARY KEY,
    version bigint NOT NULL,
    hash bytea NOT NULL
)""",
    """CREATE TABLE snapshots (
    encounter_id text NOT NULL,
    version bigint NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (encounter_id, version)
)""",
    """CREATE TABLE dice_keys (
    n bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    encounter_id text NOT NULL,
    seed bytea NOT NULL
)""",
    "CREATE INDEX dice_keys_encounter ON dice_keys (encounter_id)",
    "REVOKE ALL ON dice_keys FROM PUBLIC",
    # Invariant 1, guarded in the database itself: edits by hand fail loudly.
    """CREATE FUNCTION affray_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the affray log is append-only' USING ERRCODE = 'restrict_violation';
END $$""",
    "CREATE TRIGGER events_no_update BEFORE UPDATE ON events FOR EACH ROW EXECUTE FUNCTION affray_append_only()",
    "CREATE TRIGGER events_no_delete BEFORE DELETE ON events FOR EACH ROW EXECUTE FUNCTION affray_append_only()",
    "CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION affray_append_only()",
    *(f"CREATE VIEW {name} AS {sql.strip()}" for name, sql in VIEWS.items()),
]

#: The ordered migrations, each a list of statements run in one transaction.
#: Append new ones; never edit an applied one.
MIGRATIONS: list[list[str]] = [
    _INITIAL,
    # 2 (issue 18): the reader views of the SQLite file (its migration 4),
    # the live timeline by default with status columns, *_all and combatants.
    [
        f"DROP VIEW IF EXISTS {', '.join(_OLD_VIEWS)}",
        *(f"CREATE VIEW {name} AS {sql.strip()}" for name, sql in READER_VIEWS.items()),
    ],
]

#: Number of migrations: the version an up-to-date log records.
SCHEMA_VERSION = len(MIGRATIONS)

#: The append-only triggers ``verify`` checks are present and enabled.
TRIGGERS = ("events_no_update", "events_no_delete", "events_no_truncate")

_LOCK = "SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.affray_schema'))"


def found_version(conn) -> int | None:  # noqa: ANN001 - a psycopg connection
    """The schema version the current schema records, ``0`` when it holds
    other tables but no affray log, ``None`` when it holds no table at all."""
    row = conn.execute("SELECT to_regclass('affray_schema') IS NOT NULL, to_regclass('events') IS NOT NULL").fetchone()
    if row[0]:
        got = conn.execute("SELECT max(version) FROM affray_schema").fetchone()
        return int(got[0] or 0)
    if row[1]:
        return 0
    return None


def migrate(conn) -> int:  # noqa: ANN001 - a psycopg connection in autocommit mode
    """Bring the current schema up to :data:`SCHEMA_VERSION` in one
    transaction; returns the version found before. Raises ``ValueError``
    when the schema holds an ``events`` table that is not affray's."""
    with conn.transaction():
        conn.execute(_LOCK)
        found = found_version(conn)
        if found == 0:
            raise ValueError("it holds an events table, but not an affray log")
        if found is None:
            conn.execute("CREATE TABLE affray_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
            found = 0
        for number, statements in enumerate(MIGRATIONS[found:], found + 1):
            for sql in statements:
                conn.execute(sql)
            conn.execute("INSERT INTO affray_schema (version) VALUES (%s)", (number,))
    return found
