"""The store conformance suite: every backend of :class:`affray.store.interface.Store`
must pass it, SQLite and PostgreSQL alike (``tests/backends.py`` says how a
PostgreSQL server is found; without one those cases skip, saying why).

DESIGN.md invariants 1 (append-only), 4 (atomic commands), 5 (optimistic
concurrency: the exit-3 conflict) and 6 (tamper evidence), plus dense
versions, read ranges, snapshots, concurrent writers on one encounter and on
many (threads and processes), import/export round trips with identical
hashes, and a writer killed in the middle of a command. SQLite-only checks
(WAL, file modes, damaged files, locking) stay in ``tests/test_store.py``.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import signal
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from affray.commands.demo import autoplay
from affray.commands.handler import execute
from affray.events import codec
from affray.events import commands as cmd
from affray.events.core import DamageDealt, DiceRolled, EncounterClosed, EncounterOpened, NoteAdded
from affray.projections.timeline import project
from affray.store import chain
from affray.store import ConflictError, EventStore, Store, StoreError, UnknownEncounter, canonical, chain_hash, open_store
from affray.store.interface import is_postgres
from affray.views.export import export
from affray.views.formats.jsonl import parse

from backends import BACKENDS, backend, make_backend, pg_backend  # noqa: F401, F811 - fixtures used by name
from test_golden import SCRIPT, open_duel


def opened(eid: str = "ford", name: str = "Ambush at the ford", system: str = "mrq1"):
    return EncounterOpened(encounter_id=eid, name=name, system=system, seed_sha256="ab" * 32)


def notes(*texts: str) -> list[NoteAdded]:
    return [NoteAdded(text=t) for t in texts]


def fill(store, eid: str = "ford", n: int = 5) -> None:
    """An encounter with ``n`` events: opened, then notes, one per command."""
    store.append(eid, 0, [opened(eid)], command_id=f"{eid}-c0", actor="gm")
    for v in range(1, n):
        store.append(eid, v, notes(f"note {v}"), command_id=f"{eid}-c{v}", actor="gm")


def one_clear_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and "Traceback" not in text and text
    return text


@pytest.fixture
def store(backend):
    with backend.open() as s:
        yield s


# --------------------------------------------------------------------------- #
# the interface and the factory
# --------------------------------------------------------------------------- #


def test_every_backend_is_a_store(store) -> None:
    assert isinstance(store, Store)
    for name in Store.__dict__:
        if not name.startswith("_") and callable(getattr(Store, name, None)):
            assert callable(getattr(store, name)), name


def test_open_store_picks_the_backend_from_the_target(tmp_path) -> None:
    assert is_postgres("postgresql://u@h/db") and is_postgres("POSTGRES://h/db")
    assert not is_postgres(str(tmp_path / "postgresql.db")) and not is_postgres("affray.db")
    with open_store(tmp_path / "x.db") as s:
        assert type(s) is EventStore


def test_a_sqlite_cli_call_never_imports_psycopg(tmp_path) -> None:
    import subprocess
    import sys

    code = (
        "import sys; from affray.store import open_store; s = open_store(sys.argv[1]); s.close(); "
        "print('psycopg' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "a.db")], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_an_unreachable_server_is_one_clear_line() -> None:
    pytest.importorskip("psycopg")
    with pytest.raises(StoreError) as err:
        open_store("postgresql://nobody:secret@/affray?host=/nonexistent-socket-folder&connect_timeout=2")
    text = one_clear_line(err.value)
    assert "cannot connect" in text and "secret" not in text


# --------------------------------------------------------------------------- #
# append / read
# --------------------------------------------------------------------------- #


def test_roundtrip(store) -> None:
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
    assert raw[1][6] == codec.encode(events[1]).decode()  # the exact text, byte for byte
    assert json.loads(raw[1][6]) == {"type": "note-added", "text": "rain, −10% to Perception", "secret": True}
    assert raw[1][7:] == (r.recorded_at, "sam", r.hash)


def test_hostile_text_keeps_its_bytes(store) -> None:
    texts = ["nul \x00 byte", "quote \" and \\ backslash", "emoji 🎲 and \u2028", '{"key": "not json"}']
    recs = store.append("e", 0, notes(*texts), command_id="c", actor="gm")
    assert [r.event.text for r in store.read("e")] == texts
    assert [r[9] for r in store.read_raw("e")] == [r.hash for r in recs]
    assert list(store.read_chain("e")) == [r[:1] + r[2:] for r in store.read_raw("e")]
    assert store.verify() == []


def test_default_recorded_at_is_utc_iso(store) -> None:
    (rec,) = store.append("e", 0, notes("x"), command_id="c", actor="a")
    assert rec.recorded_at.endswith("Z") and rec.recorded_at[10] == "T"


def test_dense_versions_and_ranges(store) -> None:
    fill(store, "a", 4)
    store.append("b", 0, notes("b1", "b2"), command_id="b", actor="gm")
    store.append("a", 4, notes("x", "y", "z"), command_id="a-big", actor="gm")
    assert [r.version for r in store.read("a")] == list(range(1, 8))
    assert [r.version for r in store.read("b")] == [1, 2]
    assert store.version("a") == 7 and store.version("b") == 2 and store.version("nope") == 0
    assert [r.version for r in store.read("a", from_version=3, to_version=5)] == [3, 4, 5]
    assert [r.version for r in store.read("a", from_version=6)] == [6, 7]
    assert [r[2] for r in store.read_raw("a", to_version=2)] == [1, 2]
    assert [x.version for x in store.read_live("a", from_version=2, to_version=3)] == [2, 3]
    assert list(store.read("nope")) == []
    assert {r.command_id for r in store.read("a", from_version=5)} == {"a-big"}
    assert store.head("a") == (7, store.hash_at("a", 7))
    assert store.version_of_hash("a", store.hash_at("a", 3)) == 3
    assert store.version_of_hash("a", "00" * 32) is None and store.version_of_hash("a", "not hex") is None
    with pytest.raises(UnknownEncounter):
        store.head("nope")


def test_long_logs_read_in_pages(store) -> None:
    """More events than one page of a backend's streaming read."""
    n = 4500
    store.append("long", 0, notes(*(f"n{i}" for i in range(n))), command_id="c", actor="gm")
    assert [r[2] for r in store.read_raw("long")] == list(range(1, n + 1))
    assert list(store.read_chain("long")) == [r[:1] + r[2:] for r in store.read_raw("long")]  # verify's read
    assert list(store.read_chain("nope")) == []
    assert [x.version for x in store.read_live("long", from_version=1999, to_version=4001)] == list(range(1999, 4002))
    assert store.verify("long") == []


def test_empty_batch_writes_nothing(store) -> None:
    assert store.append("e", 0, [], command_id="c", actor="a") == []
    assert store.version("e") == 0 and store.encounter_ids() == [] and not store.has_encounter("e")
    with pytest.raises(ConflictError):
        store.append("e", 3, [], command_id="c", actor="a")


def test_encounter_queries(store) -> None:
    assert store.newest_open_encounter() is None
    fill(store, "first", 2)
    fill(store, "second", 3)
    store.append("notes-only", 0, notes("x"), command_id="n", actor="gm")
    assert store.encounter_ids() == ["first", "second", "notes-only"]
    assert store.has_encounter("first") and not store.has_encounter("ghost")
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
    assert store.commitment("first") == "ab" * 32 and store.commitment("notes-only") is None
    with pytest.raises(UnknownEncounter) as err:
        store.encounter_info("ghost")
    assert "ghost" in one_clear_line(err.value)
    # every encounter's at once (affray list), the same as one by one
    assert store.encounter_infos() == [store.encounter_info(e) for e in store.encounter_ids()]
    assert [i.id for i in store.encounter_infos()] == ["first", "second", "notes-only"]


def test_typed_queries(store) -> None:
    fill(store, "f", 2)
    store.append(
        "f", 2,
        [
            DiceRolled(purpose="attack", expr="1D100", faces=(34,), total=34, source="engine", index=3, by="v"),
            DiceRolled(purpose="damage", expr="2D6", faces=(2, 5), total=7, source="engine", index=4, by="v"),
        ],
        command_id="roll1", actor="gm",
    )
    store.append(
        "f", 4, [DiceRolled(purpose="parry", expr="1D100", faces=(71,), total=71, source="table", typed_by="sam")],
        command_id="roll2", actor="gm",
    )
    assert store.dice_per_command("f") == [("roll1", 3, 3), ("roll2", 5, 1)]
    assert store.dice_per_command("f", to_version=4) == [("roll1", 3, 3)]
    assert store.dice_of("f", ["roll2", "roll1", "nope"]) == {
        "roll1": [("1D100", [34]), ("2D6", [2, 5])], "roll2": [("1D100", [71])],
    }
    assert store.engine_high_water("f") == 6 and store.engine_high_water("ghost") == 0
    rows = store.versions_of_type("f", "dice-rolled")
    assert [(v, c, s) for v, c, s, _ in rows] == [(3, "roll1", 1), (4, "roll1", 1), (5, "roll2", 1)]
    assert [r[0] for r in store.versions_of_type("f", "dice-rolled", to_version=4)] == [3, 4]
    assert [r[0] for r in store.versions_of_type("f", "dice-rolled", match=("$.purpose", "damage", 1))] == [4]
    assert [r[0] for r in store.versions_of_type("f", "dice-rolled", match=("$.total", 71, 1))] == [5]
    assert [r[0] for r in store.versions_of_type("f", "dice-rolled", match=("$.total", 71, 2))] == [3, 4, 5]
    assert store.any_command_up_to("f", ["roll2"], 5) and not store.any_command_up_to("f", ["roll2"], 4)
    assert not store.any_command_up_to("f", [], 5)
    assert store.salts("f") == []
    # the re-roll guard reads only from the first version a time travel touched
    assert store.dice_per_command("f", from_version=4) == [("roll1", 4, 2), ("roll2", 5, 1)]
    assert store.dice_per_command("f", from_version=5) == [("roll2", 5, 1)]
    assert store.dice_of("f", ["roll1", "roll2"], from_version=4) == {
        "roll1": [("2D6", [2, 5])], "roll2": [("1D100", [71])],
    }
    assert store.dice_of("f", ["roll1"], from_version=5) == {}


def test_starts_command(store) -> None:
    fill(store, "f", 2)
    store.append("f", 2, notes("a", "b"), command_id="c3", actor="gm")
    assert store.starts_command("f", 3) and store.starts_command("f", 3, "c3")
    assert not store.starts_command("f", 3, "c4")
    assert not store.starts_command("f", 4)  # the second event of c3
    assert store.starts_command("f", 1) and not store.starts_command("f", 5)  # past the head


def test_append_rows_copies_rows_as_they_are(backend) -> None:
    """What amend uses to copy its scratch work: rows already chained, appended
    as stored (command ids, times, actors, hashes), checked, all or nothing."""
    with EventStore(":memory:") as src, backend.open() as dest:
        fill(src, "f", 5)
        rows = [r[2:] for r in src.read_raw("f")]
        assert dest.append_rows("f", 0, rows[:3]) == 3
        with pytest.raises(ConflictError):
            dest.append_rows("f", 2, rows[3:])
        v, c, t, sc, data, at, _, h = rows[3]
        with pytest.raises(StoreError, match="does not follow version 3"):
            dest.append_rows("f", 3, [(v, c, t, sc, data, at, "mallory", h), rows[4]])
        with pytest.raises(StoreError, match="does not follow version 3"):
            dest.append_rows("f", 3, rows[4:])  # a gap
        assert dest.version("f") == 3
        assert dest.append_rows("f", 3, rows[3:]) == 2
        assert [r[1:] for r in dest.read_raw("f")] == [r[1:] for r in src.read_raw("f")]
        assert dest.head("f") == src.head("f") and dest.verify() == []


def test_append_rows_takes_rows_chained_before_the_lock(backend) -> None:
    """Branch and amend hash or check their rows before the transaction
    (``chain.linked`` / ``chain.checked``); ``append_rows`` then checks only
    that the head is still the version and hash they chain from, and
    appends exactly what the unchecked rows give."""
    with EventStore(":memory:") as src, backend.open() as dest:
        fill(src, "f", 6)
        rows = [r[2:] for r in src.read_raw("f")]
        linked = chain.linked("f", 0, "", [r[:-1] for r in rows[:3]])
        assert list(linked) == rows[:3] and linked.head == (3, rows[2][-1])  # the hashes the store wrote
        assert dest.append_rows("f", 0, linked) == 3
        rest = chain.checked("f", 3, rows[2][-1], rows[3:])
        with pytest.raises(ConflictError):
            dest.append_rows("f", 2, rest)  # another head than the one they chain from
        forged = chain.linked("f", 3, "0" * 64, [r[:-1] for r in rows[3:]])
        with pytest.raises(StoreError, match="does not follow version 3"):
            dest.append_rows("f", 3, forged)  # chained from a hash that is not the head's: nothing written
        assert dest.version("f") == 3
        with pytest.raises(StoreError, match="does not follow version 3"):
            chain.checked("f", 3, rows[2][-1], rows[4:])  # a gap, found before any transaction
        assert dest.append_rows("f", 3, rest) == 3
        assert [r[1:] for r in dest.read_raw("f")] == [r[1:] for r in src.read_raw("f")]
        assert dest.head("f") == src.head("f") and dest.verify() == []


# --------------------------------------------------------------------------- #
# optimistic concurrency and atomicity
# --------------------------------------------------------------------------- #


def test_conflict_writes_nothing(store) -> None:
    fill(store, "e", 3)
    before = list(store.read_raw("e"))
    for wrong in (0, 2, 4):
        with pytest.raises(ConflictError) as err:
            store.append("e", wrong, notes("late"), command_id="late", actor="gm")
        assert (err.value.encounter_id, err.value.expected, err.value.actual) == ("e", wrong, 3)
        assert err.value.exit_code == 3
        assert one_clear_line(err.value) == (
            f"encounter e changed while you were typing (expected version {wrong}, found 3); "
            "run the command again"
        )
    assert list(store.read_raw("e")) == before
    store.append("e", 3, notes("on time"), command_id="ok", actor="gm")  # the connection is still usable


def test_racing_writers_conflict(backend) -> None:
    a, b = backend.open(), backend.open()
    fill(a, "e", 1)
    seen_by_b = b.version("e")
    a.append("e", 1, notes("a wins"), command_id="a", actor="ann")
    with pytest.raises(ConflictError):
        b.append("e", seen_by_b, notes("b loses"), command_id="b", actor="bob")
    assert [r.event.text for r in b.read("e", from_version=2)] == ["a wins"]
    a.close()
    b.close()


def test_unencodable_event_writes_nothing(store) -> None:
    fill(store, "e", 2)
    with pytest.raises(TypeError):
        store.append("e", 2, [NoteAdded(text="ok"), NoteAdded(text=object())], command_id="c", actor="gm")
    with pytest.raises(TypeError):
        store.append("e", 2, [NoteAdded(text="ok"), "not an event"], command_id="c", actor="gm")
    assert store.version("e") == 2 and len(list(store.read("e"))) == 2


def test_failure_inside_append_rolls_back(backend, monkeypatch) -> None:
    store = backend.open()
    fill(store, "e", 2)
    calls = []

    def flaky(prev: str, text, *sha) -> str:
        calls.append(text)
        if len(calls) == 3:
            raise RuntimeError("simulated crash half-way through a command")
        return chain_hash(prev, text, *sha)

    monkeypatch.setattr(backend.module, "chain_hash", flaky)
    with pytest.raises(RuntimeError):
        store.append("e", 2, notes("a", "b", "c"), command_id="c", actor="gm")
    monkeypatch.undo()
    assert store.version("e") == 2 and len(list(store.read_raw("e"))) == 2
    store.append("e", 2, notes("a", "b", "c"), command_id="c", actor="gm")
    assert store.version("e") == 5 and store.verify() == []
    store.close()


def test_check_sees_the_new_events_and_can_refuse_them(store) -> None:
    fill(store, "e", 2)
    seen = []

    def refuse(recs):
        seen.append([r.version for r in recs])
        seen.append(store.version("e"))
        seen.append([r.version for r in store.read("e")])
        raise ValueError("no")

    with pytest.raises(ValueError):
        store.append("e", 2, notes("x", "y"), command_id="c", actor="gm", check=refuse)
    assert seen == [[3, 4], 4, [1, 2, 3, 4]]
    assert store.version("e") == 2 and store.verify() == []


def test_the_seed_is_kept_with_the_append_and_not_with_a_lost_race(backend) -> None:
    a, b = backend.open(), backend.open()
    seed_a, seed_b = b"\x01" * 32, b"\x02" * 32
    ev = EncounterOpened(encounter_id="e", name="x", system="mrq1", seed_sha256=hashlib.sha256(seed_a).hexdigest())
    a.append("e", 0, [ev], command_id="a", actor="gm", seed=seed_a)
    with pytest.raises(ConflictError):
        b.append("e", 0, [ev], command_id="b", actor="gm", seed=seed_b)
    assert a.get_seed("e") == seed_a and b.get_seed("e") == seed_a
    assert seed_b not in b.keys.seeds("e")
    assert a.get_seed("ghost") is None
    a.close()
    b.close()


def test_transaction_is_all_or_nothing(store) -> None:
    fill(store, "src", 2)
    with pytest.raises(RuntimeError):
        with store.transaction() as t:
            t.append("branch", 0, notes("one"), command_id="b1", actor="gm")
            t.save_snapshot("branch", 1, b"snap")
            raise RuntimeError("half-way")
    assert store.version("branch") == 0 and store.latest_snapshot("branch", 9) is None
    with store.transaction() as t:
        t.append("branch", 0, notes("one"), command_id="b1", actor="gm")
        with pytest.raises(ConflictError):  # one failed append is undone alone
            t.append("branch", 0, notes("again"), command_id="b2", actor="gm")
        with t.transaction():  # nested: joins the outer one
            t.append("branch", 1, notes("two"), command_id="b3", actor="gm")
    assert [r.event.text for r in store.read("branch")] == ["one", "two"]
    assert store.verify() == []


def test_the_log_refuses_updates_and_deletes(backend) -> None:
    with backend.open() as s:
        fill(s, "e", 2)
    conn = backend.connect()
    try:
        for sql in ("UPDATE events SET actor = 'mallory'", "DELETE FROM events WHERE version = 2"):
            with pytest.raises(Exception, match="append-only"):
                conn.execute(sql)
    finally:
        conn.close()
    with backend.open() as s:
        assert s.verify() == [] and s.version("e") == 2


def test_readonly_store_writes_nothing(backend) -> None:
    with backend.open() as s:
        fill(s, "e", 2)
    with backend.open(readonly=True, must_exist=True) as r:
        assert r.version("e") == 2
        for write in (
            lambda: r.append("e", 2, notes("x"), command_id="c", actor="gm"),
            lambda: r.save_snapshot("e", 2, b"x"),
            lambda: r.put_seed("e", b"x"),
        ):
            with pytest.raises(StoreError, match="read-only"):
                write()


# --------------------------------------------------------------------------- #
# hash chain and verify
# --------------------------------------------------------------------------- #


def test_hash_chain(store) -> None:
    recs = store.append("e", 0, [opened("e"), NoteAdded(text='say "hi"')], command_id="c1", actor="sam",
                        recorded_at="2024-05-01T10:00:00Z")
    data = codec.encode(recs[0].event).decode()
    text = (
        '{"encounter_id":"e","version":1,"command_id":"c1","type":"encounter-opened","schema":1,'
        '"recorded_at":"2024-05-01T10:00:00Z","actor":"sam","data":%s}' % data
    )
    assert canonical("e", 1, "c1", "encounter-opened", 1, "2024-05-01T10:00:00Z", "sam", data) == text
    assert recs[0].hash == chain_hash("", text)
    second = canonical("e", 2, "c1", "note-added", 1, "2024-05-01T10:00:00Z", "sam",
                       codec.encode(recs[1].event).decode())
    assert recs[1].hash == chain_hash(recs[0].hash, second)
    assert [r.hash for r in store.read("e")] == [r.hash for r in recs]


def test_hashes_are_identical_on_every_backend(tmp_path) -> None:
    """The same commands at the same times give byte-identical hashes."""
    hashes = {}
    for param in BACKENDS:
        name = param.values[0]
        if any(m.args and m.args[0] for m in param.marks if m.name == "skipif"):
            continue
        b = make_backend(name, tmp_path)
        with b.open() as s:
            s.append("e", 0, [opened("e"), *notes("a", "ü \x00")], command_id="c", actor="gm",
                     recorded_at="2024-05-01T10:00:00Z")
            hashes[name] = [r[9] for r in s.read_raw("e")]
        b.close()
    assert len(set(map(tuple, hashes.values()))) == 1, hashes


def test_verify_clean(store) -> None:
    fill(store, "a", 6)
    fill(store, "b", 3)
    assert store.verify() == []
    assert store.verify("a") == []
    problems, ids = store.verify_file()
    assert problems == [] and ids == ["a", "b"]
    with pytest.raises(UnknownEncounter):
        store.verify("ghost")


EDITS = [
    {"sqlite": "UPDATE events SET data = replace(data, 'note 3', 'note 9') WHERE encounter_id = 'a' AND version = 4",
     "postgresql": "UPDATE events SET data = replace(data::text, 'note 3', 'note 9')::json "
                   "WHERE encounter_id = 'a' AND version = 4"},
    "UPDATE events SET actor = 'mallory' WHERE encounter_id = 'a' AND version = 4",
    "UPDATE events SET recorded_at = '1999-01-01T00:00:00Z' WHERE encounter_id = 'a' AND version = 4",
    "UPDATE events SET command_id = 'other' WHERE encounter_id = 'a' AND version = 4",
]


@pytest.mark.parametrize("edit", EDITS, ids=["data", "actor", "recorded_at", "command_id"])
def test_verify_finds_edit(backend, edit) -> None:
    with backend.open() as s:
        fill(s, "a", 6)
        fill(s, "b", 3)
    backend.tamper(edit[backend.name] if isinstance(edit, dict) else edit)
    with backend.open() as s:
        assert s.verify() == ["encounter a version 4: hash mismatch (this event, or the hash before it, was changed)"]
        assert s.verify("b") == []


def test_verify_finds_deleted_events(backend) -> None:
    with backend.open() as s:
        fill(s, "a", 6)
        fill(s, "b", 6)
        fill(s, "c", 3)
    backend.tamper("DELETE FROM events WHERE encounter_id = 'a' AND version IN (3, 4)",
                   "DELETE FROM events WHERE encounter_id = 'b' AND version = 6",
                   "DELETE FROM events WHERE encounter_id = 'c'")
    with backend.open() as s:
        problems = s.verify()
        assert "encounter a version 3-4: missing (events were deleted)" in problems
        assert any(p.startswith("encounter a version 5: hash mismatch") for p in problems)
        assert "encounter b version 6: missing, the head is at version 6 (the newest events were deleted)" in problems
        assert "encounter c version 1-3: missing, the head is at version 3 (the newest events were deleted)" in problems


def test_verify_finds_head_edits(backend) -> None:
    with backend.open() as s:
        fill(s, "a", 3)
    backend.tamper("UPDATE heads SET hash = 'x' WHERE encounter_id = 'a'")
    with backend.open() as s:
        assert s.verify() == ["encounter a version 3: head hash differs from the last event's (tail rewritten)"]
    backend.tamper("UPDATE heads SET version = 2 WHERE encounter_id = 'a'")
    with backend.open() as s:
        assert s.verify() == ["encounter a version 3: the head says version 2 (the heads table was edited)"]
    backend.tamper("DELETE FROM heads")
    with backend.open() as s:
        assert s.verify() == ["encounter a version 3: no head row (the heads table was edited)"]


def test_verify_finds_reorder(backend) -> None:
    with backend.open() as s:
        fill(s, "a", 5)
    backend.tamper("UPDATE events SET seq = (SELECT max(seq) + 1 FROM events) WHERE encounter_id = 'a' AND version = 2")
    with backend.open() as s:
        assert "encounter a version 3: stored before version 2 (events were reordered)" in s.verify()


# --------------------------------------------------------------------------- #
# snapshots
# --------------------------------------------------------------------------- #


def test_snapshots(store) -> None:
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
    assert store.snapshot_versions("e") == [10, 20]
    assert store.snapshots("e") == [(10, b"\x00state@10"), (20, b"rebuilt")]
    assert list(store.snapshot_stream("e")) == store.snapshots("e")


# --------------------------------------------------------------------------- #
# concurrent writers
# --------------------------------------------------------------------------- #


def _hammer(target: str, eid: str, who: str, commands: int) -> tuple[int, int]:
    """Append ``commands`` notes to ``eid`` from a connection of its own,
    retrying each on conflict; returns ``(accepted, conflicts)``."""
    conflicts = 0
    with open_store(target) as s:
        for i in range(commands):
            while True:
                try:
                    s.append(eid, s.version(eid), notes(f"{who} {i}"), command_id=f"{who}-{i}", actor=who)
                    break
                except ConflictError:
                    conflicts += 1
    return commands, conflicts


def _check_dense(store, eid: str, expected: dict[str, int]) -> None:
    recs = list(store.read(eid))
    assert [r.version for r in recs] == list(range(1, len(recs) + 1))
    for who, n in expected.items():
        mine = [r.event.text for r in recs if r.actor == who]
        assert mine == [f"{who} {i}" for i in range(n)]  # each writer's commands, once each, in order
    assert store.verify(eid) == []


@pytest.mark.parametrize("shared", [True, False], ids=["one-encounter", "many-encounters"])
def test_threads_writing(backend, shared) -> None:
    with backend.open() as s:
        s.put_seed("x", b"x")  # the log exists before the writers start
    writers, commands = 4, 25
    results = {}

    def run(w: int) -> None:
        results[w] = _hammer(backend.target, "shared" if shared else f"own{w}", f"w{w}", commands)

    threads = [threading.Thread(target=run, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == list(range(writers))
    with backend.open() as s:
        if shared:
            _check_dense(s, "shared", {f"w{w}": commands for w in range(writers)})
        else:
            for w in range(writers):
                _check_dense(s, f"own{w}", {f"w{w}": commands})
            assert sum(c for _, c in results.values()) == 0  # distinct encounters never conflict
        assert s.verify() == []


def _proc(target: str, eid: str, who: str, commands: int, out) -> None:
    out.put(_hammer(target, eid, who, commands))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the writers are forked")
def test_processes_writing_one_encounter(backend) -> None:
    with backend.open() as s:
        fill(s, "shared", 1)
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    procs = [ctx.Process(target=_proc, args=(backend.target, "shared", f"p{w}", 20, out)) for w in range(3)]
    for p in procs:
        p.start()
    got = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(30)
        assert p.exitcode == 0
    assert [a for a, _ in got] == [20, 20, 20]
    with backend.open() as s:
        _check_dense(s, "shared", {f"p{w}": 20 for w in range(3)})
        assert s.version("shared") == 61


# --------------------------------------------------------------------------- #
# a writer killed in the middle of a command
# --------------------------------------------------------------------------- #


def _killed_writer(target: str, ready) -> None:
    with open_store(target) as s:
        def stall(recs):  # inside the transaction, the events written but not committed
            ready.set()
            time.sleep(60)

        s.append("e", s.version("e"), notes("half", "way", "there"), command_id="killed", actor="gm", check=stall)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the writer is forked")
def test_a_writer_killed_mid_command_leaves_none_of_it(backend) -> None:
    with backend.open() as s:
        fill(s, "e", 3)
    ctx = multiprocessing.get_context("fork")
    ready = ctx.Event()
    p = ctx.Process(target=_killed_writer, args=(backend.target, ready))
    p.start()
    assert ready.wait(60)
    os.kill(p.pid, signal.SIGKILL)
    p.join(30)
    with backend.open(lock_timeout_ms=20000) if backend.name == "postgresql" else backend.open(busy_timeout_ms=20000) as s:
        assert s.version("e") == 3 and [r.command_id for r in s.read("e")][-1] == "e-c2"
        s.append("e", 3, notes("after"), command_id="after", actor="gm")  # the lock died with the writer
        assert s.version("e") == 4 and s.verify() == []


# --------------------------------------------------------------------------- #
# import / export round trips
# --------------------------------------------------------------------------- #


def _golden(store) -> str:
    eid = open_duel(store, manual=True)
    for i, (command, dice) in enumerate(SCRIPT):
        execute(store, command, encounter_id=eid, dice=dice, actor="gm")
        if i == 2:
            execute(store, cmd.AddNote(text="the broo is bluffing", secret=True), encounter_id=eid, actor="sam")
            execute(store, cmd.Undo(), encounter_id=eid, actor="sam")
            execute(store, cmd.Redo(), encounter_id=eid, actor="sam")
    return eid


def test_export_import_round_trip_keeps_every_hash(backend) -> None:
    with EventStore(":memory:") as src, backend.open() as dest:
        eid = _golden(src)
        text = export(list(src.read(eid)), "jsonl", show_secret=True)
        got, rows = parse(text)
        assert got == eid
        assert dest.import_records(eid, rows) == src.version(eid)
        assert [r[1:] for r in dest.read_raw(eid)] == [r[1:] for r in src.read_raw(eid)]
        assert dest.verify() == [] and dest.head(eid) == src.head(eid)
        assert project(dest.read(eid)) == project(src.read(eid))
        again = export(list(dest.read(eid)), "jsonl", show_secret=True)
        strip = lambda t: [{k: v for k, v in json.loads(x).items() if k != "seq"} for x in t.splitlines()]  # noqa: E731
        assert strip(again) == strip(text)
        with pytest.raises(StoreError, match="already exists"):
            dest.import_records(eid, rows)


def test_import_refuses_a_broken_chain_and_writes_nothing(backend) -> None:
    with EventStore(":memory:") as src, backend.open() as dest:
        eid = _golden(src)
        _, rows = parse(export(list(src.read(eid)), "jsonl", show_secret=True))
        bad = list(rows)
        v, c, t, s, data, at, _, h = bad[3]
        bad[3] = (v, c, t, s, data, at, "mallory", h)
        with pytest.raises(StoreError, match="hash chain does not verify at version 4"):
            dest.import_records(eid, bad)
        with pytest.raises(StoreError, match="version 2 is missing"):
            dest.import_records(eid, [rows[0]] + rows[2:])
        with pytest.raises(StoreError, match="empty"):
            dest.import_records(eid, [])
        # under another id the same rows do not verify: the id is in every hash
        with pytest.raises(StoreError, match="hash chain does not verify at version 1"):
            dest.import_records("other", rows)
        assert dest.encounter_ids() == [] and dest.version(eid) == 0
        dest.import_records(eid, rows)
        assert dest.verify() == []


def test_a_whole_fight_replays_the_same_on_the_backend(backend) -> None:
    """An engine-dice fight played to the end through the command handler."""
    with backend.open() as s:
        eid = open_duel(s, manual=False, seed=b"conformance")
        state = autoplay(s, eid, actor="gm")
        assert state.winner
        execute(s, cmd.CloseEncounter(reason="done"), encounter_id=eid, actor="gm")
        assert s.verify() == [] and s.encounter_info(eid).closed
        assert s.get_seed(eid) == b"conformance"


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


@pytest.mark.parametrize("name", BACKENDS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(operations=ops)
def test_property_dense_versions_and_sound_chain(name, tmp_path_factory, operations) -> None:
    b = make_backend(name, tmp_path_factory.mktemp("p"))
    try:
        with b.open() as s:
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
    finally:
        b.close()


# --------------------------------------------------------------------------- #
# PostgreSQL only: its views and its seeds
# --------------------------------------------------------------------------- #


def test_postgres_views(pg_backend) -> None:
    with pg_backend.open() as s:
        fill(s, "ford", 2)
        s.append(
            "ford", 2,
            [
                DiceRolled(purpose="attack", expr="1D100", faces=(34,), total=34, source="engine", index=3, by="v"),
                DamageDealt(exchange=1, target="broo1", location="chest", rolled=9, reduced=0, armour=2, final=7),
            ],
            command_id="c", actor="sam",
        )
        s.append("ford", 4, [EncounterClosed(seed="00")], command_id="close", actor="gm")
    assert [r[0] for r in pg_backend.query("SELECT version FROM event_log")] == [1, 2, 3, 4, 5]
    assert pg_backend.query("SELECT id, name, system, events, closed FROM encounters") == [
        ("ford", "Ambush at the ford", "mrq1", 5, True)
    ]
    assert pg_backend.query('SELECT purpose, total, "index", by FROM dice_rolls') == [("attack", 34, 3, "v")]
    assert pg_backend.query("SELECT target, final FROM damage") == [("broo1", 7)]


def test_postgres_seeds_are_in_an_owner_only_table(pg_backend) -> None:
    with pg_backend.open() as s:
        s.put_seed("e", b"\x07" * 8)
        assert s.keys.seeds("e") == [b"\x07" * 8]
        assert "dice_keys" in s.keys.path
    acl = pg_backend.query("SELECT relacl FROM pg_class WHERE relname = 'dice_keys' AND relnamespace = "
                           "(SELECT oid FROM pg_namespace WHERE nspname = current_schema())")
    assert acl and (acl[0][0] is None or not any(str(a).startswith("=") for a in acl[0][0]))  # nothing for PUBLIC


def test_postgres_keys_file_when_asked(pg_backend, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("AFFRAY_KEYS", str(tmp_path / "k.keys"))
    with pg_backend.open() as s:
        s.put_seed("e", b"\x07" * 8)
        assert s.keys.path == str(tmp_path / "k.keys")
    assert (tmp_path / "k.keys").read_text().startswith("e 0707")
    assert pg_backend.query("SELECT count(*) FROM dice_keys") == [(0,)]


def test_postgres_must_exist_and_foreign_tables(pg_backend) -> None:
    from affray.store import DatabaseCorrupt, DatabaseMissing

    with pytest.raises(DatabaseMissing) as err:
        pg_backend.open(must_exist=True)
    assert "affray new" in one_clear_line(err.value)
    with pytest.raises(DatabaseMissing):
        pg_backend.open(readonly=True)
    with pg_backend.connect() as conn:
        conn.execute("CREATE TABLE events (x int)")
    with pytest.raises(DatabaseCorrupt, match="not an affray log"):
        pg_backend.open()


def test_postgres_store_borrows_from_a_pool(pg_backend) -> None:
    from psycopg_pool import ConnectionPool

    from affray.store.postgres import PostgresStore

    with ConnectionPool(pg_backend.target, min_size=1, max_size=2, kwargs={"autocommit": True}) as pool:
        with PostgresStore(pg_backend.target, pool=pool) as s:
            fill(s, "e", 3)
        with PostgresStore(pg_backend.target, pool=pool, readonly=True) as r:
            assert r.version("e") == 3
        with PostgresStore(pg_backend.target, pool=pool) as s:  # the read-only setting went with the borrower
            s.append("e", 3, notes("x"), command_id="c", actor="gm")
            assert s.verify() == []
        assert pool.get_stats()["pool_size"] >= 1


def test_postgres_verify_reports_a_disabled_trigger(pg_backend) -> None:
    with pg_backend.open() as s:
        fill(s, "e", 2)
    pg_backend.tamper("ALTER TABLE events DISABLE TRIGGER events_no_delete", "DROP TRIGGER events_no_truncate ON events")
    with pg_backend.open() as s:
        assert s.verify() == [
            "database: the append-only trigger events_no_delete on events is missing or disabled",
            "database: the append-only trigger events_no_truncate on events is missing or disabled",
        ]
        assert s.verify("e") == []  # the chain itself is whole


def test_postgres_a_missing_schema_is_one_clear_line(pg_backend) -> None:
    from backends import with_schema

    with pytest.raises(StoreError) as err:
        open_store(with_schema(pg_backend.dsn, "no_such_schema_here"))
    assert "CREATE SCHEMA" in one_clear_line(err.value)
