"""The partial type index and the append's fast path (issue 17, durable
append; SQLite migration 6 in ``affray.store.schema``).

Since migration 6, ``events_type`` holds only the types affray looks up by
type (``INDEXED_TYPES``): every such lookup still goes through it (checked
with ``EXPLAIN QUERY PLAN`` on the very statements the store runs), the
others (``dice-rolled``) walk the versions, and a schema-5 file (the full
index) gets the partial one when it is next opened for writing, with the
same answers to every query. ``append`` hashes texts built by
``chain.command_texts`` (byte for byte :func:`canonical`, encoded) and numbers the
rows itself: the ``seq`` it returns is the one stored.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from affray.events.core import NoteAdded
from affray.store import SCHEMA_VERSION, EventStore
from affray.store.chain import canonical, command_texts
from affray.store.schema import INDEXED_TYPES, READER_VIEWS, TYPE_INDEX_WHERE

from conftest import BROO, SEED, Cli, fight_with_mistakes, views_with_old_event_log_all

#: event_log_all as schema 5 wrote it: the retracted commands found with IN
_V5_RETRACTED = "FROM events WHERE type IN ('command-retracted', 'command-restored')"


def _played(cli: Cli) -> None:
    """:func:`fight_with_mistakes` (encounter ``ford`` with joins, rounds,
    damage, undo, redo, rewind, set, heal, restored hit points, out and
    close; its branch ``river``, amended), a salt and a ruling on
    ``river``, and an open encounter ``two``: most indexed types."""
    fight_with_mistakes(cli, str(cli.db))
    cli.ok("-e", "river", "--as", "sam", "salt", "owls at midnight 4417")
    cli.ok("-e", "river", "ruling", "critical_on=base", "--reason", "house rule")
    cli.ok("new", "Two", "--seed", SEED)
    cli.ok("join", BROO, "--side", "broo")


def _types(db) -> set[str]:
    with closing(sqlite3.connect(db)) as conn:
        return {t for (t,) in conn.execute("SELECT DISTINCT type FROM events")}


def _answers(store: EventStore) -> dict:
    """What every store query that may read the type index answers, and
    every reader view's rows."""
    out: dict = {"ids": store.encounter_ids(), "newest open": store.newest_open_encounter()}
    for eid in store.encounter_ids():
        head = store.version(eid)
        rolled = [cid for cid, _first, _n in store.dice_per_command(eid)]
        out[eid] = {
            "meta": [(r.version, r.type, r.command_id, r.event) for r in store.read_meta(eid)],
            "meta 3..": [r.version for r in store.read_meta(eid, from_version=3, to_version=head - 2)],
            "salts": store.salts(eid),
            "commitment": store.commitment(eid),
            "info": store.encounter_info(eid),
            "dice": store.dice_per_command(eid),
            "dice 10..": store.dice_per_command(eid, head - 5, from_version=10),
            "rolls": store.dice_of(eid, rolled),
            "rolls 12..": store.dice_of(eid, rolled, from_version=12),
            "high water": store.engine_high_water(eid),
            "round 1 started": store.versions_of_type(eid, "round-started", match=("$.round", 1, 1)),
            **{t: store.versions_of_type(eid, t) for t in (*INDEXED_TYPES, "dice-rolled", "note-added", "turn-began")},
            **{f"{t} ..9": store.versions_of_type(eid, t, to_version=9) for t in ("combatant-joined", "dice-rolled")},
        }
    conn = store._conn
    for name in READER_VIEWS:
        out[name] = conn.execute(f"SELECT * FROM {name}").fetchall()
    return out


@pytest.fixture
def played(cli) -> Cli:
    _played(cli)
    return cli


def test_the_fight_writes_most_of_the_indexed_types(played):
    types = _types(played.db)
    assert set(INDEXED_TYPES) - types <= {"wound-inflicted", "condition-applied", "status-changed"}
    assert {"dice-rolled", "command-issued", "note-added"} <= types


def test_a_new_file_indexes_only_the_types_looked_up_by_type(played):
    with closing(sqlite3.connect(played.db)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'events_type'").fetchone()[0]
        assert sql.endswith(f"WHERE {TYPE_INDEX_WHERE}") and " IN " not in sql
        indexed = conn.execute(f"SELECT count(*) FROM events INDEXED BY events_type WHERE {TYPE_INDEX_WHERE}").fetchone()[0]
        marks = ", ".join("?" * len(INDEXED_TYPES))
        wanted = conn.execute(f"SELECT count(*) FROM events WHERE type IN ({marks})", INDEXED_TYPES).fetchone()[0]
        total = conn.execute("SELECT count(*) FROM events").fetchone()[0]
    assert 0 < indexed == wanted < total / 2


def _traced(store: EventStore, fn) -> list[str]:
    """The statements ``fn(store)`` runs, with their values bound."""
    seen: list[str] = []
    store._conn.set_trace_callback(seen.append)
    try:
        fn(store)
    finally:
        store._conn.set_trace_callback(None)
    return seen


def _plan(conn: sqlite3.Connection, sql: str) -> str:
    return " | ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql))


_BY_TYPE = {
    "read_meta": lambda s: s.read_meta("ford"),
    "read_meta range": lambda s: s.read_meta("ford", from_version=2, to_version=40),
    "salts": lambda s: s.salts("river"),
    "encounter_info": lambda s: s.encounter_info("ford"),
    "newest_open_encounter": lambda s: s.newest_open_encounter(),
    **{f"versions_of_type {t}": (lambda t: lambda s: s.versions_of_type("ford", t, to_version=50))(t)
       for t in INDEXED_TYPES},
    "versions_of_type match": lambda s: s.versions_of_type("ford", "round-ended", match=("$.round", 1, 1)),
}
_BY_VERSION = {
    "dice_per_command": lambda s: s.dice_per_command("ford"),
    "dice_per_command range": lambda s: s.dice_per_command("ford", 40, from_version=10),
    "dice_of": lambda s: s.dice_of("ford", ["c1", "c9"], from_version=3),
    "engine_high_water": lambda s: s.engine_high_water("ford"),
    "versions_of_type dice-rolled": lambda s: s.versions_of_type("ford", "dice-rolled"),
    "versions_of_type note-added": lambda s: s.versions_of_type("ford", "note-added", match=("$.text", "x", 1)),
}


@pytest.mark.parametrize("name", sorted(_BY_TYPE))
def test_every_lookup_by_type_goes_through_the_partial_index(played, name):
    with EventStore(played.db, readonly=True) as store:
        statements = [q for q in _traced(store, _BY_TYPE[name]) if "type = '" in q]
        assert statements, "the lookup names its type as a literal"
        for sql in statements:
            plan = _plan(store._conn, sql)
            assert "INDEX events_type" in plan and "SCAN events" not in plan, (sql, plan)


def test_the_commitment_is_read_at_version_1(played):
    """``commitment`` orders by version and stops at the first opening: SQLite
    walks the version index from version 1, the opening (as it did with the
    full type index)."""
    with EventStore(played.db, readonly=True) as store:
        [sql] = _traced(store, lambda s: s.commitment("ford"))
        assert "type = 'encounter-opened'" in sql and "LIMIT 1" in sql
        assert _plan(store._conn, sql) == "SEARCH events USING INDEX events_encounter_version (encounter_id=?)"


@pytest.mark.parametrize("name", sorted(_BY_VERSION))
def test_the_types_left_out_walk_the_versions(played, name):
    with EventStore(played.db, readonly=True) as store:
        statements = [q for q in _traced(store, _BY_VERSION[name]) if q.lstrip().upper().startswith("SELECT")]
        assert statements
        for sql in statements:
            plan = _plan(store._conn, sql)
            assert "INDEX events_encounter_version" in plan and "events_type" not in plan, (sql, plan)


@pytest.mark.parametrize("view", ["event_log_all", "encounters"])
def test_the_reader_views_find_undo_redo_rewind_and_openings_through_the_index(played, view):
    with closing(sqlite3.connect(played.db)) as conn:
        plan = _plan(conn, f"SELECT * FROM {view}")
    # event_log_all: the rewinds and the undone/redone commands; encounters: openings and closings
    assert plan.count("INDEX events_type") >= 2, plan


def _back_to_schema_5(db) -> None:
    """The file as affray with schema 5 left it: the full type index, and
    event_log_all naming its two types with IN."""
    old = READER_VIEWS["event_log_all"].replace(
        "FROM events WHERE type = 'command-retracted' OR type = 'command-restored'", _V5_RETRACTED
    )
    assert old != READER_VIEWS["event_log_all"]
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("DROP INDEX events_type")
        conn.execute("CREATE INDEX events_type ON events (type, encounter_id)")
        views_with_old_event_log_all(conn, old)
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = '0006_partial_type_index'")
        conn.execute("PRAGMA user_version = 5")
        conn.commit()


def test_a_schema_5_file_gets_the_partial_index_at_its_next_write_with_the_same_answers(played):
    with EventStore(played.db, readonly=True) as store:
        want = _answers(store)
        assert store.verify() == []
    _back_to_schema_5(played.db)
    with EventStore(played.db, readonly=True) as store:  # a reader opens it as it is
        assert _answers(store) == want
    with closing(sqlite3.connect(played.db)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 5
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'events_type'").fetchone()[0]
        assert "WHERE" not in sql
        full = conn.execute("SELECT count(*) FROM events INDEXED BY events_type").fetchone()[0]
    played.ok("-e", "two", "note", "a write migrates the file")
    with closing(sqlite3.connect(played.db)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'events_type'").fetchone()[0]
        assert sql.endswith(f"WHERE {TYPE_INDEX_WHERE}")
        partial = conn.execute(f"SELECT count(*) FROM events INDEXED BY events_type WHERE {TYPE_INDEX_WHERE}").fetchone()[0]
        view = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'event_log_all'").fetchone()[0]
    assert 0 < partial < full / 2 and _V5_RETRACTED not in view
    with EventStore(played.db, readonly=True) as store:
        got = _answers(store)
        assert store.verify() == []
    # the note went to encounter two: ford answers the same, and so do the views but for its row
    assert {k: v for k, v in got.items() if k not in ("two", *READER_VIEWS)} == {
        k: v for k, v in want.items() if k not in ("two", *READER_VIEWS)
    }
    for name in READER_VIEWS:
        assert [r for r in got[name] if "two" not in r[:2]] == [r for r in want[name] if "two" not in r[:2]]


# --------------------------------------------------------------------------- #
# append: the canonical texts, the seq it returns
# --------------------------------------------------------------------------- #

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)


@settings(max_examples=200, deadline=None)
@given(eid=_text, cid=_text, at=_text, actor=_text, version=st.integers(0, 2**62),
       type_=_text, schema=st.integers(0, 99), data=_text)
def test_command_texts_are_the_canonical_text(eid, cid, at, actor, version, type_, schema, data):
    assert command_texts(eid, cid, at, actor)(version, type_, schema, data.encode()) == canonical(
        eid, version, cid, type_, schema, at, actor, data
    ).encode()


def _refuse(records) -> None:
    raise ValueError("no")


def test_append_returns_the_seq_it_stored_across_encounters_and_rollbacks(tmp_path):
    with EventStore(tmp_path / "s.db") as store:
        got = []
        got += store.append("a", 0, [NoteAdded(text="1"), NoteAdded(text="2")], command_id="c1", actor="gm")
        got += store.append("b", 0, [NoteAdded(text="3")], command_id="c1", actor="gm")
        with pytest.raises(ValueError):
            store.append("a", 2, [NoteAdded(text="x")], command_id="c3", actor="gm", check=_refuse)
        got += store.append("a", 2, [NoteAdded(text="4"), NoteAdded(text="5")], command_id="c3", actor="gm")
        with store.transaction():
            got += store.append("b", 1, [NoteAdded(text="6")], command_id="c2", actor="gm")
            with pytest.raises(ValueError):
                store.append("b", 2, [NoteAdded(text="y")], command_id="c3", actor="gm", check=_refuse)
            got += store.append("b", 2, [NoteAdded(text="7")], command_id="c3", actor="gm")
        stored = {(r[1], r[2]): r[0] for r in store._conn.execute("SELECT seq, encounter_id, version FROM events")}
        assert [r.seq for r in got] == [1, 2, 3, 4, 5, 6, 7]
        assert {(r.encounter_id, r.version): r.seq for r in got} == stored
        assert [r.event.text for r in got] == list("1234567") and store.verify() == []
