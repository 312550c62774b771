"""``fold_rows``: the replay's row fold equals the envelope fold (issue 17).

``affray.projections.evolve.fold_rows`` folds stored rows straight from the
cursor, ``(command_id, key, data)`` with the versions counted, with a table
keyed on the row key (the tag, or ``tag@schema``), and keeps
``next_roll_index`` (dice rolls) and ``pending`` (steps awaited, only the
last one decoded) in locals written once at the end. These tests hold it to
:func:`fold_fast` over what ``read_live`` gives, and to :func:`evolve` one
event at a time: on synthetic rows (hypothesis), on generated fights with
undo and redo, on a fight played to its close, through an upcaster, on rows
that do not decode, and on a log with a version missing.
"""

from __future__ import annotations

import functools
import importlib
import sqlite3

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from affray.commands.handler import execute
from affray.events import codec
from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import upcasters
from affray.events.envelope import Live, Recorded
from affray.projections.evolve import evolve, fold_fast, fold_rows, folded_tags
from affray.projections.snapshots import replay
from affray.projections.state import State
from affray.projections.timeline import Timeline, project
from affray.store import EventStore
from affray.store.errors import DatabaseCorrupt

from test_travel import generated_fight

_FOLDED = folded_tags()
_META = frozenset({"command-retracted", "command-restored", "encounter-rewound"})


def _row(version: int, command_id: str, event: ev.Event) -> tuple[int, bytes, bytes, int, bytes]:
    """A row as the store hands it to the fold: the text columns as UTF-8 bytes."""
    return version, command_id.encode(), event.__struct_config__.tag.encode(), type(event).schema, codec.encode(event)


def _stored(row) -> tuple[bytes, bytes, bytes]:
    """The row as the store gives it to ``fold_rows``: no version, the schema
    folded into the key when it is not 1 (``affray.store.schema.ROW_KEY_SQL``)."""
    _version, command_id, tag, schema, data = row
    return command_id, tag if schema == 1 else tag + b"@" + str(schema).encode(), data


def _fold(state: State, rows, skip=frozenset()) -> State:
    """``fold_rows`` over ``rows`` (with versions, consecutive), checking the count it returns."""
    first = rows[0][0] if rows else state.version + 1
    assert [r[0] for r in rows] == list(range(first, first + len(rows)))
    got, read = fold_rows(state, map(_stored, rows), skip, first)
    assert read == len(rows)
    return got


def _text(row):
    version, command_id, tag, schema, data = row
    return version, command_id.decode(), tag.decode(), schema, data


def _lives(rows, skip=frozenset()):
    """What ``read_live(skip=skip, only=folded_tags())`` gives for ``rows``."""
    for version, command_id, tag, schema, data in map(_text, rows):
        if tag in _META or command_id in skip:
            continue
        yield Live(version, command_id, codec.decode(tag, schema, data) if tag in _FOLDED else None)


def _by_evolve(rows, skip=frozenset()) -> State:
    state = State()
    for version, command_id, tag, schema, data in map(_text, rows):
        if tag in _META or command_id in skip:
            continue
        event = codec.decode(tag, schema, data)
        rec = Recorded(seq=version, encounter_id="e", version=version, command_id=command_id, type=tag,
                       schema=schema, event=event, recorded_at="", actor="gm", hash="")
        state = evolve(state, rec)
    return state


_steps = st.lists(
    st.builds(ev.PendingStep, who=st.sampled_from(["a", "b"]), verb=st.sampled_from(["attack", "react", "roll"]),
              prompt=st.just("go")),
    max_size=2,
).map(tuple)
_events = st.one_of(
    st.builds(ev.DiceRolled, purpose=st.just("attack"), expr=st.just("1d100"),
              faces=st.lists(st.integers(1, 100), min_size=1, max_size=3).map(tuple), total=st.integers(1, 300),
              source=st.sampled_from(["engine", "table"]), index=st.integers(-1, 40)),
    st.builds(ev.StepsAwaited, steps=_steps),
    st.builds(ev.EncounterClosed, seed=st.just("00" * 16)),
    st.builds(ev.NoteAdded, text=st.sampled_from(["n", "m"])),
    st.builds(ev.RoundStarted, round=st.integers(1, 5), order=st.just(()), combat_actions=st.just({}),
              reactions=st.just({})),
    st.builds(ev.CommandIssued, command=st.just({"command": "note"})),
    st.builds(ev.CommandRetracted, command_id=st.sampled_from(["c1", "c2"])),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["c1", "c2", "c3", "c4"]), _events), max_size=40),
    st.frozensets(st.sampled_from(["c1", "c2", "c3", "c4"])),
)
def test_fold_rows_equals_fold_fast_and_evolve_on_any_rows(items, skip):
    opened = ev.EncounterOpened(encounter_id="e", name="x", system="mrq1", seed_sha256="")
    rows = [_row(1, "c0", opened)] + [_row(v, cid, e) for v, (cid, e) in enumerate(items, start=2)]
    got = _fold(State(), rows, skip)
    assert got == fold_fast(State(), _lives(rows, skip))
    assert got == _by_evolve(rows, skip)


def test_fold_rows_continues_from_a_state():
    """A tail folded onto a snapshot's state keeps its dice index and steps."""
    opened = ev.EncounterOpened(encounter_id="e", name="x", system="mrq1", seed_sha256="")
    roll = ev.DiceRolled(purpose="a", expr="1d100", faces=(5,), total=5, source="engine", index=7)
    waits = ev.StepsAwaited(steps=(ev.PendingStep(who="a", verb="roll", prompt="p"),))
    rows = [_row(1, "c1", opened), _row(2, "c2", roll), _row(3, "c2", waits)]
    base = _fold(State(), rows[:2])
    assert base.next_roll_index == 8 and base.pending == ()
    assert _fold(base, rows[2:]) == _fold(State(), rows) == _by_evolve(rows)
    note = ev.NoteAdded(text="n")
    assert _fold(base, [_row(3, "c3", note)]).next_roll_index == 8


@pytest.mark.parametrize("seed", [1, 2, 3, 5])
def test_fold_rows_equals_fold_fast_on_generated_fights(seed):
    store, eid = generated_fight(seed)
    head = store.version(eid)
    for cut in sorted({1, 2, head // 3, head // 2, head - 1, head}):
        skip = frozenset(Timeline(store.read_meta(eid, to_version=cut)).retracted)
        rows = store.fold_rows(eid, lambda rows, first: (lambda got: (got, len(got)))(list(rows)), to_version=cut)
        assert len(rows) == cut
        got, read = fold_rows(State(), rows, skip, 1)
        assert read == cut
        assert got == fold_fast(State(), store.read_live(eid, to_version=cut, skip=skip))
        assert got == store.fold_rows(eid, lambda rows, first: fold_rows(State(), rows, skip, first), to_version=cut)


def test_a_closed_fight_replays_to_its_closing():
    """The closing clears what the table waits for; the fold's local copy follows."""
    store, eid = generated_fight(8, commands=60)
    assert load_pending(store, eid)
    execute(store, cmd.CloseEncounter(reason="done"), encounter_id=eid, actor="gm")
    state = replay(store, eid)
    assert state.phase == "closed" and state.pending == ()
    assert state == project(store.read(eid))


def load_pending(store, eid):
    return replay(store, eid).pending


def test_a_row_behind_its_schema_is_upcast(monkeypatch):
    """A row stored at an older schema goes through the upcasters, as in ``read``."""
    monkeypatch.setattr(ev.DiceRolled, "schema", 2)
    monkeypatch.setitem(codec.CURRENT_SCHEMA, "dice-rolled", 2)
    monkeypatch.setitem(upcasters.UPCASTERS, ("dice-rolled", 1), lambda d: {**d, "faces": d.pop("rolled")})
    monkeypatch.setattr(importlib.import_module("affray.projections.evolve"), "_ROWS", {})
    opened = ev.EncounterOpened(encounter_id="e", name="x", system="mrq1", seed_sha256="")
    old = (2, b"c2", b"dice-rolled", 1,
           b'{"type":"dice-rolled","purpose":"a","expr":"2d6","rolled":[3,4],"total":7,"source":"engine","index":9}')
    state = _fold(State(), [_row(1, "c1", opened), old])
    assert (state.version, state.next_roll_index) == (2, 11)  # decoded: faces (3, 4) from index 9
    assert state == _by_evolve([_row(1, "c1", opened), old])
    bad = (2, b"c2", b"dice-rolled", 0, old[4])  # no upcaster from schema 0
    with pytest.raises(codec.Undecodable) as err:
        _fold(State(), [_row(1, "c1", opened), bad])
    assert err.value.version == 2 and isinstance(err.value.cause, codec.UnknownEvent)


def test_an_unknown_tag_is_skipped_undecoded_and_counts_as_a_step():
    opened = ev.EncounterOpened(encounter_id="e", name="x", system="mrq1", seed_sha256="")
    rows = [_row(1, "c1", opened), (2, b"c2", b"from-a-newer-affray", 1, b"not json at all")]
    state = _fold(State(), rows)
    assert (state.version, state.step, state.last_command) == (2, 1, "c2")


def test_a_row_that_does_not_decode_names_its_version():
    opened = ev.EncounterOpened(encounter_id="e", name="x", system="mrq1", seed_sha256="")
    rows = [_row(1, "c1", opened), (2, b"c2", b"dice-rolled", 1, b'{"type":"dice-rolled","faces":"six"}')]
    with pytest.raises(codec.Undecodable) as err:
        _fold(State(), rows)
    assert err.value.version == 2 and isinstance(err.value.cause, msgspec.ValidationError)


def _edited(tmp_path, notes: str, *edits: tuple[str, tuple]) -> tuple[EventStore, str, int]:
    """A file with an encounter of ``len(notes)`` notes, then edited by hand
    (the append-only triggers dropped, each ``(sql, params)`` of ``edits``
    run, ``{eid}`` and ``{head}`` filled in); reopened read-only. Returns
    (store, encounter id, head version before the edits)."""
    store = EventStore(tmp_path / "f.db")
    eid = execute(store, cmd.OpenEncounter(name="x", system="mrq1"), actor="gm", seed=b"s" * 16).encounter_id
    for text in notes:
        execute(store, cmd.AddNote(text=text), encounter_id=eid, actor="gm")
    head = store.version(eid)
    store.close()
    raw = sqlite3.connect(tmp_path / "f.db")
    raw.execute("DROP TRIGGER IF EXISTS events_no_update")
    raw.execute("DROP TRIGGER IF EXISTS events_no_delete")
    for sql, params in edits:
        raw.execute(sql, tuple(eid if p == "{eid}" else head if p == "{head}" else p for p in params))
    raw.commit()
    raw.close()
    return EventStore(tmp_path / "f.db", readonly=True), eid, head


def test_the_store_reports_an_undecodable_row_as_a_corrupt_file(tmp_path):
    store, eid, v = _edited(
        tmp_path, "a",
        ("UPDATE events SET type = 'dice-rolled', data = '{\"type\":\"dice-rolled\"}' WHERE version = ?", ("{head}",)),
    )
    with pytest.raises(DatabaseCorrupt, match=f"version {v} does not decode"):
        replay(store, eid)
    with pytest.raises(DatabaseCorrupt, match=f"version {v} does not decode"):
        functools.reduce(lambda s, _: s, store.read_live(eid), None)


def test_only_the_last_steps_awaited_is_decoded():
    """``pending`` is the last ``steps-awaited``'s steps, so only that row is
    decoded: an earlier one that would not decode is passed over (``affray
    verify`` decodes every row), the last one names its version."""
    opened = ev.EncounterOpened(encounter_id="e", name="x", system="mrq1", seed_sha256="")
    waits = ev.StepsAwaited(steps=(ev.PendingStep(who="a", verb="roll", prompt="p"),))
    broken = (2, b"c2", b"steps-awaited", 1, b'{"type":"steps-awaited","steps":"none"}')
    rows = [_row(1, "c1", opened), broken, _row(3, "c3", waits)]
    assert _fold(State(), rows).pending == waits.steps
    with pytest.raises(codec.Undecodable) as err:
        _fold(State(), rows[:2])
    assert err.value.version == 2


def test_a_closing_after_the_last_steps_awaited_clears_them():
    opened = ev.EncounterOpened(encounter_id="e", name="x", system="mrq1", seed_sha256="")
    waits = ev.StepsAwaited(steps=(ev.PendingStep(who="a", verb="roll", prompt="p"),))
    rows = [_row(1, "c1", opened), _row(2, "c2", waits), _row(3, "c3", ev.EncounterClosed(seed="00" * 16))]
    assert _fold(State(), rows).pending == () == _by_evolve(rows).pending
    assert _fold(State(), rows + [_row(4, "c4", waits)]).pending == waits.steps


def test_the_store_reports_a_missing_version_as_a_corrupt_file(tmp_path):
    """The fold counts versions instead of reading them; the store checks the
    count against the last version in range, so a row deleted by hand is
    reported, not folded under the wrong versions."""
    store, eid, _head = _edited(
        tmp_path, "abc", ("DELETE FROM events WHERE encounter_id = ? AND version = ?", ("{eid}", 3)),
    )
    with pytest.raises(DatabaseCorrupt, match="versions are missing"):
        replay(store, eid)
    # a range that stops before the gap folds as before
    assert store.fold_rows(eid, lambda rows, first: fold_rows(State(), rows, first=first), to_version=2).version == 2


def test_rows_past_the_range_are_not_read(tmp_path):
    """The range's last version is read first: rows appended while the fold
    runs (or beyond ``to_version``) are not folded, and the count still checks."""
    store = EventStore(tmp_path / "f.db")
    eid = execute(store, cmd.OpenEncounter(name="x", system="mrq1"), actor="gm", seed=b"s" * 16).encounter_id
    execute(store, cmd.AddNote(text="a"), encounter_id=eid, actor="gm")
    head = store.version(eid)

    def fold_and_write(rows, first):
        rows = iter(rows)
        first_row = next(rows)
        execute(store, cmd.AddNote(text="meanwhile"), encounter_id=eid, actor="gm")
        return fold_rows(State(), [first_row, *rows], first=first)

    assert store.fold_rows(eid, fold_and_write).version == head
    assert store.version(eid) > head


_sqlite_store = importlib.import_module("affray.store.sqlite")


@pytest.mark.parametrize("seed", [1, 3])
def test_reading_along_the_table_equals_reading_through_the_index(seed, monkeypatch):
    """A long range whose events lie together is read by ``seq`` (a rowid
    range); the fold sees the same rows as through the version index."""
    store, eid = generated_fight(seed)
    head = store.version(eid)
    by_index = [replay(store, eid, to_version=cut) for cut in (head // 2, head)]
    monkeypatch.setattr(_sqlite_store, "_SCAN_FROM", 1)
    reads = _row_reads(store, monkeypatch)
    assert [replay(store, eid, to_version=cut) for cut in (head // 2, head)] == by_index
    assert reads and set(reads) == {_sqlite_store._SCAN_ROWS}


def _row_reads(store, monkeypatch) -> list[str]:
    """The row queries ``store.fold_rows`` runs from now on, in order."""
    reads = []
    real = store._conn

    class Spy:
        def execute(self, sql, *args):
            if sql in (_sqlite_store._SCAN_ROWS, _sqlite_store._SELECT_ROWS):
                reads.append(sql)
            return real.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(real, name)

    monkeypatch.setattr(store, "_conn", Spy())
    return reads


def test_interleaved_encounters_are_read_through_the_index(tmp_path, monkeypatch):
    """Two encounters written turn about: each one's span of ``seq`` is twice
    its range, so its rows are read through the version index; both replay
    as their whole logs fold."""
    monkeypatch.setattr(_sqlite_store, "_SCAN_FROM", 1)
    store = EventStore(tmp_path / "f.db")
    ids = [execute(store, cmd.OpenEncounter(name=n, system="mrq1"), actor="gm", seed=n.encode() * 16).encounter_id
           for n in "ab"]
    for i in range(20):
        for eid in ids:
            execute(store, cmd.AddNote(text=f"{eid} {i}"), encounter_id=eid, actor="gm")
    reads = _row_reads(store, monkeypatch)
    for eid in ids:
        assert replay(store, eid) == project(store.read(eid))
        assert replay(store, eid).version == store.version(eid) == 21
    assert reads and set(reads) == {_sqlite_store._SELECT_ROWS}


def test_a_row_moved_out_of_its_span_is_reported(tmp_path, monkeypatch):
    """Within an encounter ``seq`` grows with ``version``; a row moved past
    the range's last ``seq`` (a file edited by hand) is missed by the read
    along the table, and the count reports it; ``affray verify`` names it."""
    monkeypatch.setattr(_sqlite_store, "_SCAN_FROM", 1)
    store, eid, _head = _edited(
        tmp_path, "abcd", ("UPDATE events SET seq = 1000 WHERE encounter_id = ? AND version = 2", ("{eid}",)),
    )
    with pytest.raises(DatabaseCorrupt, match="versions are missing"):
        replay(store, eid)
    from affray.verify import verify_encounter

    problems, _head = verify_encounter(store, eid)
    assert any("stored before version" in p and "reordered" in p for p in problems)
