"""A scratch store in memory (``amend`` works an amend out there, off the
write lock) gets its file's schema by copy (:func:`schema.clone_schema`),
not by running the migrations through sqlite-utils, whose import alone
costs 60-100 ms of a CLI verb. The copy must be the schema the migrations
give, object for object."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

from affray.commands.amend import scratch_copy
from affray.commands.demo import autoplay, setup
from affray.store import EventStore
from affray.store.schema import SCHEMA_VERSION, is_affray


def _schema(conn: sqlite3.Connection) -> tuple:
    objects = sorted(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall(), key=str)
    migrations = sorted(conn.execute("SELECT migration_set, name FROM _sqlite_migrations").fetchall())
    pragmas = tuple(conn.execute(f"PRAGMA {p}").fetchone()[0] for p in ("user_version", "application_id"))
    return objects, migrations, pragmas


def test_the_copied_schema_is_the_migrated_one(tmp_path):
    with EventStore(tmp_path / "f.db") as store:
        with store.scratch() as scratch, EventStore(":memory:") as migrated:
            assert _schema(scratch._conn) == _schema(migrated._conn) == _schema(store._conn)
            assert is_affray(scratch._conn) and _schema(scratch._conn)[2][0] == SCHEMA_VERSION
            assert scratch._conn.execute("SELECT count(*) FROM events").fetchone()[0] == 0


def test_the_copy_holds_the_triggers_and_the_partial_index(tmp_path):
    with EventStore(tmp_path / "f.db") as store:
        eid = setup(store, seed=b"a", allow_short_seed=True, actor="gm")
        with scratch_copy(store, eid) as scratch:
            assert list(scratch.read_raw(eid)) == list(store.read_raw(eid))
            try:
                scratch._conn.execute("DELETE FROM events")
            except sqlite3.DatabaseError as exc:
                assert "append-only" in str(exc)
            else:
                raise AssertionError("the append-only trigger is missing")
            plan = " ".join(str(r) for r in scratch._conn.execute(
                "EXPLAIN QUERY PLAN SELECT version FROM events WHERE type = 'round-started' AND encounter_id = ?", (eid,)
            ))
            assert "events_type" in plan


def test_an_older_schema_is_migrated_not_copied():
    with EventStore(":memory:") as older:
        older._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1}")
        with EventStore(":memory:", schema_of=older._conn) as scratch:
            assert _schema(scratch._conn)[2][0] == SCHEMA_VERSION


def test_amend_on_the_cli_imports_no_sqlite_utils(tmp_path):
    db = tmp_path / "f.db"
    with EventStore(db) as store:
        eid = setup(store, seed=b"a", allow_short_seed=True, actor="gm")
        autoplay(store, eid, actor="gm")
    probe = (
        "import sys\n"
        "from affray.cli.dispatch import answer\n"
        "code = answer(sys.argv[1:])\n"
        "print('PROBE', code, 'sqlite_utils' in sys.modules, 'typer' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, "--db", str(db), "-e", eid, "amend", "1.1", "--mod", "-20:the river", "--replay"],
        capture_output=True, text=True,
    )
    assert "Amended" in proc.stdout, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "PROBE 0 False False", proc.stdout + proc.stderr
