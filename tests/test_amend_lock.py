"""Amend works out its new history on a copy in memory and holds the write
lock only to append it (issue 17: an ``amend --replay`` used to hold the
lock for minutes, and notes typed meanwhile failed with "locked").

- a note typed while the amend is being worked out is written at once (the
  lock is free), and the amend then refuses with a conflict, appending
  nothing: it was decided on a log that has changed;
- an amend with nobody writing meanwhile appends exactly what the same
  amend appends when worked out in place: the same events, envelopes and
  hashes, with its snapshots.
"""

from __future__ import annotations

import msgspec
import pytest

from affray.commands import amend as amend_module
from affray.commands.amend import amend
from affray.events import commands as cmd
from affray.events import core as ev
from affray.projections.snapshots import load_state
from affray.projections.timeline import project
from affray.store import EventStore
from affray.store.errors import ConflictError

from test_golden import SCRIPT, open_duel
from test_travel_commands import run

CHANGE = cmd.AmendCommand(target="1.5", modifiers=(ev.Modifier(70, "she saw it coming"),), replay=True)


def golden_file(path) -> str:
    with EventStore(path) as store:
        eid = open_duel(store, manual=True)
        for c, d in SCRIPT:
            run(store, eid, c, d)
    return eid


def test_a_note_typed_during_the_amend_gets_in_and_the_amend_refuses_with_nothing_appended(tmp_path, monkeypatch):
    path = tmp_path / "fight.db"
    eid = golden_file(path)
    real_copy = amend_module.scratch_copy
    typed = []

    def copy_then_someone_writes(store, encounter_id):
        scratch = real_copy(store, encounter_id)
        # another process, while the amend is worked out: no lock stops it
        with EventStore(path, busy_timeout_ms=0) as other:
            typed.append(amend_module.execute(other, cmd.AddNote(text="typed meanwhile"), encounter_id=eid, actor="gm"))
        return scratch

    monkeypatch.setattr(amend_module, "scratch_copy", copy_then_someone_writes)
    with EventStore(path) as store:
        before = [r.hash for r in store.read(eid)]
        with pytest.raises(ConflictError):
            amend(store, CHANGE, encounter_id=eid, actor="sam")
        after = [r.hash for r in store.read(eid)]
    assert len(typed) == 1
    assert after == before + [r.hash for r in typed[0].records]  # the note, and nothing of the amend


def test_the_amend_appends_what_it_worked_out_with_the_same_envelopes_and_hashes(tmp_path):
    path = tmp_path / "fight.db"
    eid = golden_file(path)
    with EventStore(path) as store:
        head = store.version(eid)
        report = amend(store, CHANGE, encounter_id=eid, actor="sam")
        appended = list(store.read(eid, from_version=head + 1))
        snapshots = [v for v in store.snapshot_versions(eid) if v > head]
        assert load_state(store, eid) == project(store.read(eid)) == report.state
        assert store.verify(eid) == []
    worked_out = [r for o in report.outcomes for r in o.records]  # as the copy in memory recorded them
    envelope = lambda r: (r.version, r.command_id, r.type, r.schema, msgspec.json.encode(r.event), r.recorded_at, r.actor, r.hash)  # noqa: E731
    assert [envelope(r) for r in appended] == [envelope(r) for r in worked_out]
    assert report.replayed and not report.stopped
    assert snapshots  # the snapshots taken while it was worked out came along


def test_an_amend_on_a_branch_takes_an_id_free_in_the_file(tmp_path):
    path = tmp_path / "fight.db"
    eid = golden_file(path)
    with EventStore(path) as store:
        taken = amend_module.execute(store, cmd.OpenEncounter(name="dodge instead", system="mrq1"), actor="gm").encounter_id
        branched = cmd.AmendCommand(target="1.2", reaction="dodge", replay=True, on_branch="dodge instead")
        report = amend(store, branched, encounter_id=eid, actor="sam")
        assert taken == "dodge-instead" and report.branch == "dodge-instead-2"
        assert load_state(store, report.branch) == project(store.read(report.branch)) == report.state
        assert store.get_seed(report.branch) == store.get_seed(eid)
        assert store.verify(report.branch) == []


def test_append_rows_checks_the_versions_and_the_chain_and_writes_all_or_nothing(tmp_path):
    from affray.store.errors import StoreError

    path = tmp_path / "fight.db"
    eid = golden_file(path)
    with EventStore(path) as store, amend_module.scratch_copy(store, eid) as scratch:
        head = store.version(eid)
        amend_module.execute(scratch, cmd.AddNote(text="one"), encounter_id=eid, actor="gm")
        amend_module.execute(scratch, cmd.AddNote(text="two"), encounter_id=eid, actor="gm")
        rows = [row[2:] for row in scratch.read_raw(eid, from_version=head + 1)]
        broken = rows[:1] + [rows[1][:-1] + ("0" * 64,)]
        with pytest.raises(StoreError, match="does not follow"):
            store.append_rows(eid, head, broken)
        with pytest.raises(StoreError, match="does not follow"):
            store.append_rows(eid, head, rows[1:])  # a version missing
        with pytest.raises(ConflictError):
            store.append_rows(eid, head - 1, rows)
        assert store.version(eid) == head  # nothing of any of them
        assert store.append_rows(eid, head, rows) == 2
        assert [r.hash for r in store.read(eid, from_version=head + 1)] == [r[-1] for r in rows]
        assert store.verify(eid) == []


@pytest.mark.parametrize("change", [
    CHANGE,
    cmd.AmendCommand(target="1.2", reaction="dodge", replay=True),
    cmd.AmendCommand(target="1.1", modifiers=(ev.Modifier(-60, "blinded"),), replay=True),
])
def test_the_guard_map_carried_through_the_replay_decides_what_reading_it_each_time_decides(tmp_path, monkeypatch, change):
    """Amend carries the re-roll guard's map from one replayed command to
    the next (``handler.SlotsAhead``) instead of reading the rolls from the
    rewind's point for each: the amend appends the same, replays as far, and
    stops with the same line as when the map is read for every command."""
    import affray.store.sqlite
    from affray.commands import handler

    monkeypatch.setattr(affray.store.sqlite, "utc_now", lambda: "2026-11-24T12:00:00.000000Z")
    results = []
    for carried in (True, False):
        if not carried:  # every command reads the map from the log again
            monkeypatch.setattr(handler.SlotsAhead, "appended", lambda self, before, out: setattr(self, "version", -1))
        path = tmp_path / f"fight-{carried}.db"
        eid = golden_file(path)
        with EventStore(path) as store:
            head = store.version(eid)
            try:
                report = amend(store, change, encounter_id=eid, actor="sam")
            except Exception as exc:  # the amended command itself refused: the same refusal
                results.append(("refused", type(exc).__name__, str(exc)))
                continue
            results.append((report.replayed, report.stopped, report.left,
                            [row[1:] for row in store.read_raw(eid, from_version=head + 1)]))
    assert results[0] == results[1]
