"""Concurrent writers (DESIGN.md invariant 5): conflicts are reported, nothing
accepted is lost, versions stay dense.

A sample of what ``bench/reliability.py`` runs with 4 writers x 1,000
commands: forked writers appending notes through ``execute`` to one
encounter and to one encounter each in the same file, writers racing fight
steps, undo and redo (then every command is re-derived by the audit), and
``affray note`` subprocesses (exit 3 with a one-line retry hint, never a
traceback). Then the races the harness found, each made to happen on purpose.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from affray.events import commands as cmd
from affray.commands.handler import execute
from affray.commands.demo import next_command
from affray.dice import commitment
from affray.projections.snapshots import load_state, replay
from affray.store import ConflictError, EventStore

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the writers are forked")

HARNESS = Path(__file__).resolve().parents[1] / "bench" / "reliability.py"


def harness():
    """bench/reliability.py as a module (loaded once, shared by the test files)."""
    name = "affray_reliability"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HARNESS)
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


R = harness()


def _clean(stats) -> None:
    assert stats.problems == []
    assert stats.failures == 0
    assert stats.versions_dense and stats.lost == 0 and stats.duplicates == 0 and stats.tracebacks == 0
    assert stats.accepted == stats.writers * stats.commands
    assert stats.attempted == stats.accepted + stats.conflicts + stats.locked + stats.refused


def test_writers_on_one_encounter(tmp_path: Path) -> None:
    stats = R.run_concurrency(tmp_path, "one", 3, 30)
    _clean(stats)
    assert stats.events == 1 + 90


def test_writers_on_separate_encounters_never_conflict(tmp_path: Path) -> None:
    stats = R.run_concurrency(tmp_path, "separate", 3, 30, separate=True)
    _clean(stats)
    assert stats.conflicts == 0


def test_writers_racing_fight_steps_undo_and_redo(tmp_path: Path) -> None:
    stats = R.run_concurrency(tmp_path, "fight", 3, 40, kind="fight")
    _clean(stats)
    assert stats.audit_differences == 0


def test_cli_writers(tmp_path: Path) -> None:
    stats = R.run_concurrency(tmp_path, "cli", 3, 3, via="cli")
    _clean(stats)


# --------------------------------------------------------------------------- #
# the races, on purpose
# --------------------------------------------------------------------------- #


def _duel(store: EventStore) -> str:
    eid = execute(store, cmd.OpenEncounter(name="race", system="mrq1"), actor="gm", seed=b"s" * 32).encounter_id
    for sheet, side, name in R.sheets():
        execute(store, cmd.JoinCombatant(sheet=sheet, side=side, name=name), encounter_id=eid, actor="gm")
    return eid


def test_a_command_decided_on_a_stale_state_is_a_conflict(tmp_path: Path) -> None:
    """B undoes an attack while A is reading the log (between the meta
    events and the rest). A's state once counted B's undo in its version
    without folding it in, so A's reaction to the undone attack was accepted
    with no conflict; now A gets ConflictError and nothing is written."""
    db = tmp_path / "affray.db"
    with EventStore(db) as a, EventStore(db) as b:
        eid = _duel(a)
        state = execute(a, cmd.StartRound(), encounter_id=eid).state
        state = execute(a, next_command(state), encounter_id=eid).state
        assert a.snapshots(eid) == []  # so load_state replays the log
        head = a.version(eid)
        real = a.read_meta

        def undo_meanwhile(*args, **kwargs):
            out = real(*args, **kwargs)
            if a.version(eid) == head:
                execute(b, cmd.Undo(), encounter_id=eid, actor="b")
            return out

        a.read_meta = undo_meanwhile
        with pytest.raises(ConflictError):
            execute(a, next_command(state), encounter_id=eid, actor="a")
        assert a.version(eid) == head + 1  # B's undo, and nothing of A's
        assert load_state(a, eid) == replay(a, eid)


def test_the_writer_that_loses_a_new_encounter_keeps_the_winners_seed(tmp_path: Path) -> None:
    """Two 'affray new --id same' at once: the loser gets ConflictError
    (exit 3), and the kept dice seed is still the winner's, the one
    committed in encounter-opened."""
    db = tmp_path / "affray.db"
    with EventStore(db) as a, EventStore(db) as b:
        won = execute(a, cmd.OpenEncounter(name="x", system="mrq1", encounter_id="x"), actor="a", seed=b"A" * 32)
        b.encounter_ids = lambda: []  # B looked for the id before A's append
        with pytest.raises(ConflictError):
            execute(b, cmd.OpenEncounter(name="x", system="mrq1", encounter_id="x"), actor="b", seed=b"B" * 32)
        assert a.get_seed("x") == b"A" * 32
        assert commitment(a.get_seed("x")) == won.state.seed_sha256


def test_a_locked_snapshot_write_does_not_fail_a_committed_command(tmp_path: Path, monkeypatch) -> None:
    """The snapshot is written after the command's transaction. When another
    writer held the lock past the busy timeout there, execute raised
    DatabaseLocked (exit 2, 'run the command again') for a command already in
    the log, and running it again would have recorded it twice."""
    import affray.commands.handler as handler

    db = tmp_path / "affray.db"
    with EventStore(db, busy_timeout_ms=50) as a, EventStore(db) as b:
        eid = execute(a, cmd.OpenEncounter(name="lock", system="mrq1"), actor="gm", seed=b"s" * 32).encounter_id
        monkeypatch.setattr(handler, "wants_snapshot", lambda *args: True)
        real = a.append

        def then_lock(*args, **kwargs):
            out = real(*args, **kwargs)
            b._conn.execute("BEGIN IMMEDIATE")
            return out

        a.append = then_lock
        try:
            out = execute(a, cmd.AddNote(text="committed"), encounter_id=eid, actor="gm")
        finally:
            b._conn.execute("ROLLBACK")
        assert out.records[0].version == 2
        assert [r.event.text for r in a.read(eid, from_version=2)] == ["committed"]
        assert load_state(a, eid) == replay(a, eid)
