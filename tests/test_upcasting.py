"""Old logs still replay (DESIGN.md invariant 3, "Events": upcasters).

Every ``tests/fixtures/NAME.jsonl`` is a frozen log with its final state in
``NAME_state.json``; each is replayed and compared. There is one per
implemented system at least (a test checks), and a new one is added when an
event's schema changes (README, "Changing an event safely").

``tests/fixtures/schema1.jsonl`` is a whole fight written at schema 1 by
affray and exported with the jsonl export (one event per line with its
envelope); ``tests/fixtures/schema1_state.json`` is ``state_data`` of its final
state as recorded then. The test loads the rows, byte for byte, into a fresh
store, checks the hash chain, replays them with today's code (upcasters run
for any event whose schema has moved on since) and compares the state.

The fixture is frozen on purpose. ``python tests/test_upcasting.py`` writes
it again, but only do that if it is missing: a rewritten fixture no longer
proves that an old log replays.

The second half tests the upcaster mechanism itself with a temporary
upcaster for a fake old schema of ``note-added``; the registry is restored.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import msgspec
import pytest

from affray.events import codec
from affray.events import core as ev
from affray.events.upcasters import UPCASTERS, upcaster
from affray.projections.snapshots import load_state
from affray.projections.timeline import project
from affray.store import EventStore, canonical, chain_hash
from affray.views.data import state_data

FIXTURES = Path(__file__).resolve().parent / "fixtures"
LOG = FIXTURES / "schema1.jsonl"
STATE = FIXTURES / "schema1_state.json"
#: Every frozen log, ``NAME.jsonl`` with its final state in ``NAME_state.json``.
ALL_LOGS = sorted(FIXTURES.glob("*.jsonl"))


class Line(msgspec.Struct):
    """One line of the jsonl export; ``data`` kept as the exact stored bytes."""

    seq: int
    encounter_id: str
    version: int
    command_id: str
    type: str
    schema: int
    recorded_at: str
    actor: str
    hash: str
    data: msgspec.Raw


def read_fixture(log: Path = LOG) -> list[Line]:
    decoder = msgspec.json.Decoder(Line)
    return [decoder.decode(line) for line in log.read_bytes().splitlines() if line.strip()]


def load_into_store(path: Path, lines: list[Line]) -> EventStore:
    """A fresh store holding the fixture's rows exactly as they were stored."""
    EventStore(path).close()  # create the schema
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN")
        for ln in lines:
            conn.execute(
                "INSERT INTO events (seq, encounter_id, version, command_id, type, schema, data, recorded_at, actor, hash)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (ln.seq, ln.encounter_id, ln.version, ln.command_id, ln.type, ln.schema,
                 bytes(ln.data).decode(), ln.recorded_at, ln.actor, ln.hash),
            )
        last = lines[-1]
        conn.execute(
            "INSERT INTO heads (encounter_id, version, hash) VALUES (?, ?, ?)",
            (last.encounter_id, last.version, last.hash),
        )
        conn.execute("COMMIT")
    finally:
        conn.close()
    return EventStore(path, must_exist=True)


def recorded_part(now, then):
    """``now`` cut down to the keys ``then`` has (recursively)."""
    if isinstance(then, dict) and isinstance(now, dict):
        return {k: recorded_part(now[k], v) if k in now else _MISSING for k, v in then.items()}
    if isinstance(then, list) and isinstance(now, list) and len(now) == len(then):
        return [recorded_part(n, t) for n, t in zip(now, then)]
    return now


_MISSING = "<missing now>"


# --------------------------------------------------------------------------- #
# the schema-1 fixture log
# --------------------------------------------------------------------------- #


def test_fixture_is_a_schema_1_log_of_a_whole_fight():
    lines = read_fixture()
    assert lines, "the fixture log is empty"
    assert {ln.schema for ln in lines} == {1}
    types = {ln.type for ln in lines}
    # a real fight, with its meta events and mrq1's own events
    for tag in (
        "encounter-opened", "combatant-joined", "round-started", "dice-rolled", "skill-tested",
        "attack-declared", "reaction-resolved", "damage-dealt", "wound-inflicted", "condition-applied",
        "condition-expired", "combatant-moved", "weapon-dropped", "mrq1-impale-chosen",
        "mrq1-give-ground-chosen", "command-retracted", "command-restored", "note-added",
        "round-ended", "fight-ended", "encounter-closed",
    ):
        assert tag in types, f"the fixture has no {tag} event"
    assert [ln.version for ln in lines] == list(range(1, len(lines) + 1))


@pytest.mark.parametrize("log", ALL_LOGS, ids=lambda p: p.stem)
def test_every_fixture_log_replays_to_its_recorded_state(tmp_path, log):
    """Schema evolution (issue 6): each frozen log, written by an earlier
    affray, replays with today's code to the final state recorded then."""
    lines = read_fixture(log)
    store = load_into_store(tmp_path / "old.db", lines)
    eid = lines[0].encounter_id
    assert store.verify() == []  # the hash chain written then still holds
    records = list(store.read(eid))  # decoding runs any upcasters
    assert [r.version for r in records] == [ln.version for ln in lines]
    expected = json.loads(log.with_name(log.stem + "_state.json").read_text(encoding="utf-8"))
    state = project(records)
    # every field recorded then has the same value now (fields added to the
    # documented shape since are ignored; a field that went missing fails)
    assert recorded_part(state_data(state), expected) == expected
    assert recorded_part(state_data(load_state(store, eid)), expected) == expected
    assert load_state(store, eid) == state
    store.close()


def test_the_fixtures_cover_every_implemented_system():
    from affray.rules import base

    systems = {json.loads(log.read_text(encoding="utf-8").splitlines()[0])["data"]["system"] for log in ALL_LOGS}
    assert set(base.available()) <= systems


@pytest.mark.parametrize("log", ALL_LOGS, ids=lambda p: p.stem)
def test_fixture_events_decode_without_the_store(log):
    """Each stored ``data`` still decodes through the one codec (upcast if
    need be), and the decoded event round-trips at today's schema."""
    for ln in read_fixture(log):
        event = codec.decode(ln.type, ln.schema, bytes(ln.data))
        assert codec.tag_of(event) == ln.type
        assert codec.decode(ln.type, codec.schema_of(ln.type), codec.encode(event)) == event


def build_fixture() -> tuple[str, dict]:
    """Play the fixture fight with today's affray: (jsonl text, final state).

    Table dice for a scripted first round (give ground, an impaling critical
    left in, a parry, a minor wound, a note with undo and redo), then engine
    dice from a fixed seed until one side is down, then close.
    """
    from affray.events import commands as cmd
    from affray.commands.handler import execute
    from affray.commands.demo import autoplay, setup
    from affray.views.export import jsonl

    store = EventStore(":memory:")
    eid = setup(store, "duel", seed=b"schema-1 fixture", actor="fixture")

    def run(command, dice=""):
        return execute(store, command, encounter_id=eid, dice=dice, actor="fixture")

    A, R = cmd.DeclareAttack, cmd.ChooseReaction
    run(cmd.StartRound(), "5,3")  # Vasana 18, Broo 1 13
    run(A(attacker="vasana", target="broo1"), "40")
    run(R(defender="broo1", reaction="dodge"), "20,40")  # success/success: minimum, give ground
    run(cmd.RollPending(), "3,19")
    run(cmd.MakeChoice(who="vasana", option="follow"))
    run(A(attacker="broo1", target="vasana"), "03")  # Shortspear critical (impaling)
    run(R(defender="vasana", reaction="none"))
    run(cmd.RollPending(), "2,11")
    run(cmd.MakeChoice(who="broo1", option="leave"))
    run(A(attacker="vasana", target="broo1"), "30")  # impaled: 65 - 20 = 45
    run(R(defender="broo1", reaction="parry"), "30,40")
    run(cmd.RollPending(), "8,4,2")  # right leg: 12 - 6 - 1 = 5, 5 -> 0: minor
    run(cmd.AddNote(text="the broo's leg buckles"))
    run(cmd.Undo())
    run(cmd.Redo())
    state = autoplay(store, eid, actor="fixture")
    assert state.phase == "over"
    run(cmd.CloseEncounter(reason="fixture"))
    records = list(store.read(eid))
    return jsonl(records), state_data(load_state(store, eid))


def build_scenario_fixture(scenario: str, seed: bytes) -> tuple[str, dict]:
    """A demo scenario autoplayed with engine dice from ``seed`` to its end,
    then closed: (jsonl text, final state). For a system's own fixture."""
    from affray.events import commands as cmd
    from affray.commands.handler import execute
    from affray.commands.demo import autoplay, setup
    from affray.views.export import jsonl

    store = EventStore(":memory:")
    eid = setup(store, scenario, seed=seed, allow_short_seed=True, actor="fixture")
    state = autoplay(store, eid, actor="fixture")
    assert state.phase == "over"
    execute(store, cmd.CloseEncounter(reason="fixture"), encounter_id=eid, actor="fixture")
    return jsonl(list(store.read(eid))), state_data(load_state(store, eid))


# --------------------------------------------------------------------------- #
# the upcaster mechanism
# --------------------------------------------------------------------------- #


@pytest.fixture
def clean_registry(monkeypatch):
    """Upcasters registered in a test are gone afterwards."""
    before = dict(UPCASTERS)
    yield monkeypatch
    monkeypatch.undo()
    assert UPCASTERS == before


def test_upcaster_runs_for_an_older_schema(clean_registry):
    calls = []

    @upcaster("note-added", 0)
    def words_to_text(raw: dict) -> dict:
        calls.append(dict(raw))
        raw = dict(raw)
        raw["text"] = " ".join(raw.pop("words"))
        return raw

    try:
        assert UPCASTERS[("note-added", 0)] is words_to_text
        event = codec.decode("note-added", 0, b'{"type":"note-added","words":["mind","the","gap"]}')
        assert event == ev.NoteAdded(text="mind the gap")
        assert calls == [{"type": "note-added", "words": ["mind", "the", "gap"]}]
        # the current schema decodes directly: the upcaster is not called
        assert codec.decode("note-added", 1, b'{"type":"note-added","text":"now"}') == ev.NoteAdded(text="now")
        assert len(calls) == 1
    finally:
        del UPCASTERS[("note-added", 0)]


def test_upcasters_chain_in_order(clean_registry):
    """A note at schema 1 read when ``NoteAdded`` is at schema 3 passes
    through 1 -> 2 -> 3, in that order, before decoding."""
    mp = clean_registry
    order = []

    def one_to_two(raw):
        order.append(1)
        return {**raw, "text": raw["text"].upper()}

    def two_to_three(raw):
        order.append(2)
        return {**raw, "text": raw["text"] + "!", "secret": True}

    mp.setattr(ev.NoteAdded, "schema", 3)
    mp.setitem(UPCASTERS, ("note-added", 1), one_to_two)
    mp.setitem(UPCASTERS, ("note-added", 2), two_to_three)
    assert codec.schema_of("note-added") == 3
    event = codec.decode("note-added", 1, b'{"type":"note-added","text":"hold"}')
    assert event == ev.NoteAdded(text="HOLD!", secret=True)
    assert order == [1, 2]


def test_missing_upcaster_is_an_unknown_event(clean_registry):
    clean_registry.setattr(ev.NoteAdded, "schema", 2)
    with pytest.raises(codec.UnknownEvent, match="no upcaster"):
        codec.decode("note-added", 1, b'{"type":"note-added","text":"x"}')


def test_the_store_upcasts_old_rows_on_read(tmp_path, clean_registry):
    """An old-schema row in a real log: read() and verify() both go through
    the upcaster, and the hash (over the stored bytes) still holds."""
    mp = clean_registry
    mp.setitem(UPCASTERS, ("note-added", 0), lambda raw: {"type": raw["type"], "text": raw["body"]})
    path = tmp_path / "old.db"
    store = EventStore(path)
    opened = ev.EncounterOpened(encounter_id="old", name="Old", system="mrq1", seed_sha256="00" * 32)
    store.append("old", 0, [opened], command_id="c1", actor="gm")
    head_hash = store.read_raw("old").__next__()[-1]
    store.close()
    data = '{"type":"note-added","body":"written long ago"}'
    at = "2020-01-01T00:00:00.000000Z"
    digest = chain_hash(head_hash, canonical("old", 2, "c2", "note-added", 0, at, "gm", data))
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(
        "INSERT INTO events (encounter_id, version, command_id, type, schema, data, recorded_at, actor, hash)"
        " VALUES ('old', 2, 'c2', 'note-added', 0, ?, ?, 'gm', ?)",
        (data, at, digest),
    )
    conn.execute("UPDATE heads SET version = 2, hash = ? WHERE encounter_id = 'old'", (digest,))
    conn.close()
    store = EventStore(path, must_exist=True)
    note = list(store.read("old"))[-1]
    assert (note.schema, note.event) == (0, ev.NoteAdded(text="written long ago"))
    assert store.verify() == []
    store.close()


if __name__ == "__main__":  # pragma: no cover - writes a frozen fixture
    # python tests/test_upcasting.py                      the schema-1 mrq1 fight
    # python tests/test_upcasting.py NAME SCENARIO SEED   a demo scenario, autoplayed
    if len(sys.argv) >= 4:
        log, text_data = FIXTURES / f"{sys.argv[1]}.jsonl", build_scenario_fixture(sys.argv[2], sys.argv[3].encode())
    else:
        log, text_data = LOG, None
    if log.exists() and "--force" not in sys.argv:
        sys.exit(f"{log} exists; it is frozen on purpose (pass --force to overwrite)")
    FIXTURES.mkdir(parents=True, exist_ok=True)
    text, data = text_data or build_fixture()
    log.write_text(text, encoding="utf-8")
    log.with_name(log.stem + "_state.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {log} and its final state")
