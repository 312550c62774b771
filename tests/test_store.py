"""affray.store: append/read, concurrency, atomicity, tamper evidence, errors.

DESIGN.md invariants 1 (append-only), 4 (atomic commands), 5 (optimistic
concurrency) and 6 (tamper evidence) are tested here.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from affray.events import codec
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
    canonical,
    chain_hash,
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


def test_roundtrip(store: EventStore) -> None:
    events = [opened(), NoteAdded(text="rain, −10% to Perception", secret=True)]
    recs = store.append("ford", 0, events, command_id="c1", actor="sam", recorded_at="2024-05-01T10:00:00Z")
    assert [r.version for r in recs] == [1, 2]
    assert recs[0].seq < recs[1].seq
    back = list(store.read("ford"))
    assert back == recs
    assert [r.event for r in back] == events
    r = back[1]
    assert (r.encounter_id, r.command_id, r.actor, r.type, r.schema) == ("ford", "c1", "sam", "note-added", 1)
    assert r.recorded_at == "2024-05-01T10:00:00Z"
    raw = list(store.read_raw("ford"))
    assert raw[1][:6] == (r.seq, "ford", 2, "c1", "note-added", 1)
    assert json.loads(raw[1][6]) == {"type": "note-added", "text": "rain, −10% to Perception", "secret": True}
    assert raw[1][7:] == (r.recorded_at, "sam", r.hash)


def test_default_recorded_at_is_utc_iso(store: EventStore) -> None:
    (rec,) = store.append("e", 0, notes("x"), command_id="c", actor="a")
    assert rec.recorded_at.endswith("Z") and rec.recorded_at[10] == "T"


def test_dense_versions_and_ranges(store: EventStore) -> None:
    fill(store, "a", 4)
    store.append("b", 0, notes("b1", "b2"), command_id="b", actor="gm")
    store.append("a", 4, notes("x", "y", "z"), command_id="a-big", actor="gm")
    assert [r.version for r in store.read("a")] == list(range(1, 8))
    assert [r.version for r in store.read("b")] == [1, 2]
    assert store.version("a") == 7 and store.version("b") == 2 and store.version("nope") == 0
    assert [r.version for r in store.read("a", from_version=3, to_version=5)] == [3, 4, 5]
    assert [r.version for r in store.read("a", from_version=6)] == [6, 7]
    assert [r[2] for r in store.read_raw("a", to_version=2)] == [1, 2]
    assert list(store.read("nope")) == []
    assert {r.command_id for r in store.read("a", from_version=5)} == {"a-big"}


def test_empty_batch_writes_nothing(store: EventStore) -> None:
    assert store.append("e", 0, [], command_id="c", actor="a") == []
    assert store.version("e") == 0 and store.encounter_ids() == []


def test_encounter_queries(store: EventStore) -> None:
    assert store.newest_open_encounter() is None
    fill(store, "first", 2)
    fill(store, "second", 3)
    store.append("notes-only", 0, notes("x"), command_id="n", actor="gm")
    assert store.encounter_ids() == ["first", "second", "notes-only"]
    assert store.newest_open_encounter() == "second"
    store.append("second", 3, [EncounterClosed(seed="00")], command_id="close", actor="gm")
    assert store.newest_open_encounter() == "first"
    info = store.encounter_info("second")
    assert (info.id, info.name, info.system, info.version, info.closed) == (
        "second", "Ambush at the ford", "mrq1", 4, True,
    )
    assert info.opened_at.endswith("Z")
    assert store.encounter_info("first").closed is False
    assert store.encounter_info("notes-only").name == ""
    with pytest.raises(UnknownEncounter) as err:
        store.encounter_info("ghost")
    assert "ghost" in one_clear_line(err.value)


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


def test_conflict_writes_nothing(store: EventStore) -> None:
    fill(store, "e", 3)
    before = list(store.read_raw("e"))
    for wrong in (0, 2, 4):
        with pytest.raises(ConflictError) as err:
            store.append("e", wrong, notes("late"), command_id="late", actor="gm")
        assert (err.value.encounter_id, err.value.expected, err.value.actual) == ("e", wrong, 3)
        assert one_clear_line(err.value) == (
            f"encounter e changed while you were typing (expected version {wrong}, found 3); "
            "run the command again"
        )
    assert list(store.read_raw("e")) == before
    assert not store._conn.in_transaction


def test_racing_writers_conflict(db: Path) -> None:
    a, b = EventStore(db), EventStore(db)
    fill(a, "e", 1)
    seen_by_b = b.version("e")
    a.append("e", 1, notes("a wins"), command_id="a", actor="ann")
    with pytest.raises(ConflictError):
        b.append("e", seen_by_b, notes("b loses"), command_id="b", actor="bob")
    assert [r.event.text for r in b.read("e", from_version=2)] == ["a wins"]
    a.close()
    b.close()


def test_unencodable_event_writes_nothing(store: EventStore) -> None:
    fill(store, "e", 2)
    with pytest.raises(TypeError):
        store.append("e", 2, [NoteAdded(text="ok"), NoteAdded(text=object())], command_id="c", actor="gm")
    with pytest.raises(TypeError):
        store.append("e", 2, [NoteAdded(text="ok"), "not an event"], command_id="c", actor="gm")
    assert store.version("e") == 2 and len(list(store.read("e"))) == 2


def test_failure_inside_transaction_rolls_back(store: EventStore, monkeypatch) -> None:
    fill(store, "e", 2)
    import affray.store.sqlite as mod

    calls = []

    def flaky(prev: str, text: str) -> str:
        calls.append(text)
        if len(calls) == 3:
            raise RuntimeError("simulated crash half-way through a command")
        return chain_hash(prev, text)

    monkeypatch.setattr(mod, "chain_hash", flaky)
    with pytest.raises(RuntimeError):
        store.append("e", 2, notes("a", "b", "c"), command_id="c", actor="gm")
    monkeypatch.undo()
    assert not store._conn.in_transaction
    assert store.version("e") == 2 and len(list(store.read_raw("e"))) == 2
    store.append("e", 2, notes("a", "b", "c"), command_id="c", actor="gm")
    assert store.version("e") == 5 and store.verify() == []


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


def test_log_file_refuses_edits_by_hand(db: Path) -> None:
    with EventStore(db) as s:
        fill(s, "e", 2)
    conn = sqlite3.connect(db, isolation_level=None)
    for sql in ("UPDATE events SET actor = 'mallory'", "DELETE FROM events WHERE version = 2"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(sql)
    conn.close()


# --------------------------------------------------------------------------- #
# hash chain and verify
# --------------------------------------------------------------------------- #


def test_hash_chain(store: EventStore) -> None:
    recs = store.append("e", 0, [opened("e"), NoteAdded(text='say "hi"')], command_id="c1", actor="sam",
                        recorded_at="2024-05-01T10:00:00Z")
    data = codec.encode(recs[0].event).decode()
    text = (
        '{"encounter_id":"e","version":1,"command_id":"c1","type":"encounter-opened","schema":1,'
        '"recorded_at":"2024-05-01T10:00:00Z","actor":"sam","data":%s}' % data
    )
    assert canonical("e", 1, "c1", "encounter-opened", 1, "2024-05-01T10:00:00Z", "sam", data) == text
    assert recs[0].hash == hashlib.sha256(text.encode()).hexdigest()
    second = canonical("e", 2, "c1", "note-added", 1, "2024-05-01T10:00:00Z", "sam",
                       codec.encode(recs[1].event).decode())
    assert recs[1].hash == hashlib.sha256((recs[0].hash + second).encode()).hexdigest()
    assert [r.hash for r in store.read("e")] == [r.hash for r in recs]


def test_verify_clean(store: EventStore) -> None:
    fill(store, "a", 6)
    fill(store, "b", 3)
    assert store.verify() == []
    assert store.verify("a") == []
    with pytest.raises(UnknownEncounter):
        store.verify("ghost")


@pytest.mark.parametrize(
    "edit",
    [
        "UPDATE events SET data = replace(data, 'note 3', 'note 9') WHERE encounter_id = 'a' AND version = 4",
        "UPDATE events SET actor = 'mallory' WHERE encounter_id = 'a' AND version = 4",
        "UPDATE events SET recorded_at = '1999-01-01T00:00:00Z' WHERE encounter_id = 'a' AND version = 4",
        "UPDATE events SET command_id = 'other' WHERE encounter_id = 'a' AND version = 4",
    ],
)
def test_verify_finds_edit(store: EventStore, db: Path, edit: str) -> None:
    fill(store, "a", 6)
    fill(store, "b", 3)
    tamper(db, edit)
    problems = store.verify()
    assert problems == ["encounter a version 4: hash mismatch (this event, or the hash before it, was changed)"]
    assert store.verify("b") == []


def test_verify_finds_undecodable_data(store: EventStore, db: Path) -> None:
    fill(store, "a", 4)
    tamper(db, "UPDATE events SET data = '{\"type\":\"note-added\",\"text\":' WHERE version = 3")
    problems = store.verify("a")
    assert any(p.startswith("encounter a version 3: cannot decode") for p in problems)
    assert any("version 3: hash mismatch" in p for p in problems)
    with pytest.raises(DatabaseCorrupt) as err:
        list(store.read("a"))
    assert "version 3" in one_clear_line(err.value)


def test_verify_finds_deleted_middle(store: EventStore, db: Path) -> None:
    fill(store, "a", 6)
    tamper(db, "DELETE FROM events WHERE encounter_id = 'a' AND version IN (3, 4)")
    problems = store.verify()
    assert "encounter a version 3-4: missing (events were deleted)" in problems
    assert any(p.startswith("encounter a version 5: hash mismatch") for p in problems)


def test_verify_finds_deleted_tail(store: EventStore, db: Path) -> None:
    fill(store, "a", 6)
    tamper(db, "DELETE FROM events WHERE encounter_id = 'a' AND version = 6")
    assert store.verify() == [
        "encounter a version 6: missing, the head is at version 6 (the newest events were deleted)"
    ]
    tamper(db, "DELETE FROM events WHERE encounter_id = 'a' AND version = 5")
    assert store.verify("a") == [
        "encounter a version 5-6: missing, the head is at version 6 (the newest events were deleted)"
    ]


def test_verify_finds_deleted_everything(store: EventStore, db: Path) -> None:
    fill(store, "a", 3)
    tamper(db, "DELETE FROM events WHERE encounter_id = 'a'")
    assert store.verify() == [
        "encounter a version 1-3: missing, the head is at version 3 (the newest events were deleted)"
    ]


def test_verify_finds_head_edits(store: EventStore, db: Path) -> None:
    """A head whose hash is not the last event's: the tail was swapped out."""
    fill(store, "a", 3)
    tamper(db, "UPDATE heads SET hash = 'x' WHERE encounter_id = 'a'")
    assert store.verify() == [
        "encounter a version 3: head hash differs from the last event's (tail rewritten)"
    ]
    tamper(db, "UPDATE heads SET version = 2 WHERE encounter_id = 'a'")
    assert store.verify() == ["encounter a version 3: the head says version 2 (the heads table was edited)"]
    tamper(db, "DELETE FROM heads")
    assert store.verify() == ["encounter a version 3: no head row (the heads table was edited)"]


@pytest.mark.parametrize("how", ["swap-versions", "swap-rows"])
def test_verify_finds_reorder(store: EventStore, db: Path, how: str) -> None:
    fill(store, "a", 5)
    if how == "swap-versions":
        tamper(
            db,
            "UPDATE events SET version = -1 WHERE encounter_id = 'a' AND version = 2",
            "UPDATE events SET version = 2 WHERE encounter_id = 'a' AND version = 3",
            "UPDATE events SET version = 3 WHERE encounter_id = 'a' AND version = -1",
        )
    else:  # move a whole row to the end: its hash still chains, its place does not
        tamper(db, "UPDATE events SET seq = (SELECT max(seq) + 1 FROM events) WHERE encounter_id = 'a' AND version = 2")
    problems = store.verify()
    assert "encounter a version 3: stored before version 2 (events were reordered)" in problems
    if how == "swap-versions":
        assert any(p.startswith("encounter a version 2: hash mismatch") for p in problems)


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


def test_snapshots(store: EventStore) -> None:
    assert store.latest_snapshot("e", 100) is None
    store.save_snapshot("e", 10, b"\x00state@10")
    store.save_snapshot("e", 20, b"state@20")
    store.save_snapshot("other", 5, b"x")
    assert store.latest_snapshot("e", 9) is None
    assert store.latest_snapshot("e", 10) == (10, b"\x00state@10")
    assert store.latest_snapshot("e", 19) == (10, b"\x00state@10")
    assert store.latest_snapshot("e", 1000) == (20, b"state@20")
    store.save_snapshot("e", 20, b"rebuilt")
    assert store.latest_snapshot("e", 20) == (20, b"rebuilt")


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

ops = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c"]),
        st.lists(st.text(max_size=20), max_size=4),
        st.sampled_from([0, 0, 0, -1, 1, 5]),  # 0: the right expected version
    ),
    max_size=25,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops)
def test_property_dense_versions_and_sound_chain(operations) -> None:
    with tempfile.TemporaryDirectory() as tmp, EventStore(Path(tmp) / "p.db") as s:
        model: dict[str, list[str]] = {}
        for i, (eid, texts, skew) in enumerate(operations):
            head = len(model.get(eid, []))
            expected = head + skew
            if skew and expected >= 0:
                with pytest.raises(ConflictError):
                    s.append(eid, expected, notes(*texts), command_id=f"c{i}", actor="gm")
                continue
            if skew:
                continue
            recs = s.append(eid, head, notes(*texts), command_id=f"c{i}", actor="gm")
            assert [r.version for r in recs] == list(range(head + 1, head + 1 + len(texts)))
            if texts:
                model.setdefault(eid, []).extend(texts)
        for eid, texts in model.items():
            back = list(s.read(eid))
            assert [r.version for r in back] == list(range(1, len(texts) + 1))
            assert [r.event.text for r in back] == texts
            assert [r.seq for r in back] == sorted(r.seq for r in back)
            assert s.version(eid) == len(texts)
        assert s.encounter_ids() == list(model)
        assert s.verify() == []
