"""affray.store's SQLite backend: what only a SQLite file has (WAL, schema
migrations, locking, damaged or foreign files, data no longer JSON, the views).

The behaviour every backend shares (append/read, optimistic concurrency,
atomicity, the hash chain and tamper evidence, snapshots, concurrent
writers) is in tests/test_store_conformance.py, run on SQLite and PostgreSQL.
"""

from __future__ import annotations

import os
import pickle
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from affray.events.core import (
    DamageDealt,
    DiceRolled,
    EncounterClosed,
    EncounterOpened,
    NoteAdded,
)
from affray.store import (
    SCHEMA_VERSION,
    ConflictError,
    DatabaseCorrupt,
    DatabaseLocked,
    DatabaseMissing,
    EventStore,
    StoreError,
    UnknownEncounter,
)

SRC = Path(__file__).resolve().parents[1] / "src"


def opened(eid: str = "ford", name: str = "Ambush at the ford", system: str = "mrq1"):
    return EncounterOpened(encounter_id=eid, name=name, system=system, seed_sha256="ab" * 32)


def notes(*texts: str) -> list[NoteAdded]:
    return [NoteAdded(text=t) for t in texts]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "affray.db"


@pytest.fixture
def store(db: Path):
    with EventStore(db) as s:
        yield s


def fill(store: EventStore, eid: str = "ford", n: int = 5) -> None:
    """An encounter with ``n`` events: opened, then notes, one per command."""
    store.append(eid, 0, [opened(eid)], command_id=f"{eid}-c0", actor="gm")
    for v in range(1, n):
        store.append(eid, v, notes(f"note {v}"), command_id=f"{eid}-c{v}", actor="gm")


def tamper(db: Path, *statements: str) -> None:
    """Edit the file behind affray's back, as a tamperer would (triggers off)."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DROP TRIGGER IF EXISTS events_no_update")
    conn.execute("DROP TRIGGER IF EXISTS events_no_delete")
    for sql in statements:
        conn.execute(sql)
    conn.close()


def one_clear_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and "Traceback" not in text and text
    return text


# --------------------------------------------------------------------------- #
# append / read
# --------------------------------------------------------------------------- #


def test_schema_wal_and_migrations_recorded(db: Path) -> None:
    EventStore(db, synchronous="NORMAL").close()
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    applied = conn.execute("SELECT name FROM _sqlite_migrations WHERE migration_set = 'affray'").fetchall()
    assert len(applied) == SCHEMA_VERSION
    with pytest.raises(ValueError):
        EventStore(db, synchronous="OFF")


def test_reopen_does_not_migrate_again(db: Path) -> None:
    with EventStore(db) as s:
        fill(s, "e", 2)
    with EventStore(db, must_exist=True) as s:
        assert s.version("e") == 2
        s.append("e", 2, notes("more"), command_id="c", actor="gm")
    with EventStore(db, readonly=True) as s:
        assert [r.version for r in s.read("e")] == [1, 2, 3]
        with pytest.raises(StoreError, match="read-only"):
            s.append("e", 3, notes("nope"), command_id="c", actor="gm")
        assert s.verify() == []


def test_memory_store() -> None:
    with EventStore(":memory:") as s:
        fill(s, "e", 3)
        assert s.verify() == []


# --------------------------------------------------------------------------- #
# optimistic concurrency and atomicity
# --------------------------------------------------------------------------- #


def test_sqlite_failure_mid_batch_rolls_back(db: Path) -> None:
    with EventStore(db) as s:
        fill(s, "e", 2)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute(
        "CREATE TRIGGER boom BEFORE INSERT ON events WHEN NEW.data LIKE '%boom%' "
        "BEGIN SELECT RAISE(ABORT, 'boom'); END"
    )
    conn.close()
    with EventStore(db) as s:
        with pytest.raises(StoreError) as err:
            s.append("e", 2, notes("fine", "boom", "fine"), command_id="c", actor="gm")
        one_clear_line(err.value)
        assert not s._conn.in_transaction
        assert s.version("e") == 2 and len(list(s.read_raw("e"))) == 2
        s.append("e", 2, notes("fine"), command_id="c", actor="gm")
        assert s.verify() == []


def test_locked(db: Path) -> None:
    with EventStore(db) as s:
        fill(s, "e", 1)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with EventStore(db, busy_timeout_ms=50) as s:
            with pytest.raises(DatabaseLocked) as err:
                s.append("e", 1, notes("x"), command_id="c", actor="gm")
            text = one_clear_line(err.value)
            assert str(db) in text and "another affray is writing" in text and "again" in text
            assert not s._conn.in_transaction
            assert s.version("e") == 1  # readers are not blocked in WAL mode
    finally:
        other.execute("ROLLBACK")
        other.close()
    with EventStore(db) as s:
        s.append("e", 1, notes("x"), command_id="c", actor="gm")
        assert s.version("e") == 2


# --------------------------------------------------------------------------- #
# hash chain and verify
# --------------------------------------------------------------------------- #


def test_verify_finds_undecodable_data(store: EventStore, db: Path) -> None:
    fill(store, "a", 4)
    tamper(db, "UPDATE events SET data = '{\"type\":\"note-added\",\"text\":' WHERE version = 3")
    problems = store.verify("a")
    assert any(p.startswith("encounter a version 3: cannot decode") for p in problems)
    assert any("version 3: hash mismatch" in p for p in problems)
    with pytest.raises(DatabaseCorrupt) as err:
        list(store.read("a"))
    assert "version 3" in one_clear_line(err.value)


# --------------------------------------------------------------------------- #
# views and snapshots
# --------------------------------------------------------------------------- #


def test_views(store: EventStore, db: Path) -> None:
    fill(store, "ford", 2)
    store.append(
        "ford", 2,
        [
            DiceRolled(purpose="attack", expr="1D100", faces=(34,), total=34, source="engine", index=3, by="vasana"),
            DiceRolled(purpose="parry", expr="1D100", faces=(71,), total=71, source="table", typed_by="sam"),
            DamageDealt(exchange=1, target="broo1", location="chest", rolled=9, reduced=0, armour=2, final=7),
        ],
        command_id="c", actor="sam",
    )
    store.append("ford", 5, [EncounterClosed(seed="00")], command_id="close", actor="gm")
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    log = conn.execute("SELECT * FROM event_log").fetchall()
    assert [r["version"] for r in log] == [1, 2, 3, 4, 5, 6]
    assert log[0].keys() == [
        "seq", "encounter_id", "version", "type", "actor", "recorded_at", "command_id", "data", "status",
    ]
    assert {r["status"] for r in log} == {"live"}
    (enc,) = conn.execute("SELECT * FROM encounters").fetchall()
    assert dict(enc) | {"opened_at": None} == {
        "id": "ford", "name": "Ambush at the ford", "system": "mrq1", "opened_at": None, "events": 6, "closed": 1,
    }
    rolls = conn.execute('SELECT purpose, expr, total, source, "index", typed_by, "by" FROM dice_rolls').fetchall()
    assert [tuple(r) for r in rolls] == [
        ("attack", "1D100", 34, "engine", 3, "", "vasana"),
        ("parry", "1D100", 71, "table", -1, "sam", ""),
    ]
    (dmg,) = conn.execute("SELECT target, location, rolled, armour, final FROM damage").fetchall()
    assert tuple(dmg) == ("broo1", "chest", 9, 2, 7)
    conn.close()


# --------------------------------------------------------------------------- #
# bad files
# --------------------------------------------------------------------------- #


def open_and_use(path: Path, **kw) -> None:
    with EventStore(path, **kw) as s:
        for eid in s.encounter_ids():
            list(s.read(eid))
        s.verify()


def test_missing(tmp_path: Path) -> None:
    path = tmp_path / "nope.db"
    for kw in ({"must_exist": True}, {"readonly": True}):
        with pytest.raises(DatabaseMissing) as err:
            EventStore(path, **kw)
        assert one_clear_line(err.value) == f"no database at {path}; create one with 'affray new'"
    assert not path.exists()
    EventStore(path).close()  # created when allowed
    assert path.exists()
    with pytest.raises(StoreError, match="cannot open"):
        EventStore(tmp_path / "no-such-dir" / "x.db")
    with pytest.raises(StoreError, match="folder"):
        EventStore(tmp_path)


@pytest.mark.parametrize("kind", ["random", "text", "empty", "truncated-header", "truncated-half", "foreign"])
def test_corrupt(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "bad.db"
    if kind == "random":
        path.write_bytes(os.urandom(8192))
    elif kind == "text":
        path.write_text("round 1: Vasana attacks Broo 1\n" * 200)
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "foreign":
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE recipes (name TEXT)")
        conn.commit()
        conn.close()
    else:
        good = tmp_path / "good.db"
        with EventStore(good) as s:
            for v in range(300):
                s.append("e", v, notes("x" * 400), command_id="c", actor="gm")
        blob = good.read_bytes()
        path.write_bytes(blob[:60] if kind == "truncated-header" else blob[: len(blob) // 2])
    with pytest.raises(DatabaseCorrupt) as err:
        open_and_use(path, must_exist=True)
    text = one_clear_line(err.value)
    assert str(path) in text and "affray verify" in text and "backup" in text
    assert "sqlite3" not in text


def test_empty_file_without_must_exist_becomes_a_log(tmp_path: Path) -> None:
    path = tmp_path / "touch.db"
    path.write_bytes(b"")
    with EventStore(path) as s:
        fill(s, "e", 1)
        assert s.verify() == []


def test_foreign_sqlite_file_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(DatabaseCorrupt, match="not an affray one"):
        EventStore(path)
    conn = sqlite3.connect(path)
    assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["recipes"]
    conn.close()


def test_missing_table_is_corrupt(db: Path) -> None:
    with EventStore(db) as s:
        fill(s, "e", 2)
    tamper(db, "DROP VIEW encounters", "DROP TABLE heads")
    with EventStore(db, must_exist=True) as s:
        with pytest.raises(DatabaseCorrupt) as err:
            s.version("e")
        assert "no such table: heads" in one_clear_line(err.value)


def test_newer_schema_refused(db: Path) -> None:
    EventStore(db).close()
    tamper(db, "PRAGMA user_version = 99")
    with pytest.raises(StoreError, match="newer affray") as err:
        EventStore(db)
    one_clear_line(err.value)


def test_errors_pickle() -> None:
    for exc in (ConflictError("e", 1, 2), DatabaseMissing("x"), DatabaseLocked("x"),
                DatabaseCorrupt("x", "why"), UnknownEncounter("e", "x")):
        back = pickle.loads(pickle.dumps(exc))
        assert type(back) is type(exc) and str(back) == str(exc)
        assert isinstance(exc, StoreError)


# --------------------------------------------------------------------------- #
# lazy sqlite_utils import (CLI start-up time)
# --------------------------------------------------------------------------- #

_PROBE = """
import sys
from affray.store import EventStore
s = EventStore(sys.argv[1], must_exist=sys.argv[2] == "1")
s.append("e", s.version("e"), [__import__("affray.events.core").events.core.NoteAdded(text="x")],
         command_id="c", actor="a")
list(s.read("e")); s.newest_open_encounter(); s.close()
print("sqlite_utils" in sys.modules)
"""


def probe(path: Path, must_exist: bool) -> str:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(path), "1" if must_exist else "0"],
        capture_output=True, text=True, env=env, check=True,
    )
    return out.stdout.strip()


def test_sqlite_utils_imported_only_to_migrate(db: Path) -> None:
    assert probe(db, must_exist=False) == "True"  # new file: migrations ran
    assert probe(db, must_exist=True) == "False"  # up to date: no sqlite_utils
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run(
        [sys.executable, "-c", "import sys, affray.store; print('sqlite_utils' in sys.modules)"],
        capture_output=True, text=True, env=env, check=True,
    )
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- #
# property: any sequence of appends keeps versions dense and the chain sound
# --------------------------------------------------------------------------- #
