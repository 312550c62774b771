"""Crash safety (DESIGN.md invariant 4): SIGKILL a writer, then check the file.

A sample of what ``bench/reliability.py`` runs 1,000 times: a child process
plays commands through ``execute`` and is killed, at a random moment or at
a chosen point (half-way through a batch's INSERTs, at COMMIT, just after
it, before a snapshot write). After every kill: no half-written command, no
acknowledged command lost, ``verify`` passes, ``load_state`` equals a fresh
replay, every snapshot equals a replay, and the dice seeds match their
commitments. See the harness's docstring for how each is checked.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest

from affray.events import commands as cmd
from affray.commands.handler import execute
from affray.projections.snapshots import load_state, replay
from affray.store import EventStore

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL")

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


def test_random_and_targeted_kills_leave_a_whole_log(tmp_path: Path) -> None:
    stats = R.run_crash(tmp_path, 15, targeted=1, kills_per_db=10, max_delay_ms=60, seed=4)
    assert stats.problems == []
    assert stats.failures == 0
    assert stats.kills == 15 + len(R.TARGETS)
    assert stats.targeted == {t: 1 for t in R.TARGETS}
    assert stats.commands_acked > 0 and stats.events > 0


def test_kill_half_way_through_a_batch_leaves_none_of_it(tmp_path: Path) -> None:
    # the strongest case on its own: the first INSERT of a multi-event batch is
    # in the (uncommitted) transaction when the writer dies
    stats = R.run_crash(tmp_path, 0, targeted=3, kills_per_db=100, seed=11)
    assert stats.problems == [] and stats.failures == 0
    assert stats.targeted["mid-batch"] == 3


def test_random_kills_in_a_fresh_interpreter(tmp_path: Path) -> None:
    # --spawn: the child is a new python running the harness, not a fork
    stats = R.run_crash(tmp_path, 3, targeted=0, max_delay_ms=500, seed=2, spawn=True)
    assert stats.problems == [] and stats.failures == 0 and stats.kills == 3


def test_kill_between_schema_commit_and_wal_switch(tmp_path: Path) -> None:
    """A writer killed after the schema's COMMIT but before ``PRAGMA
    journal_mode = WAL`` left a file that stayed in rollback-journal mode
    for good; the next writable open switches it."""
    db = tmp_path / "affray.db"
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            import affray.store.schema as schema
            import affray.store.sqlite as sqlite_mod

            real = schema.migrate

            def migrate_then_die(conn, path, *, wal=True, **kwargs):
                real(conn, path, wal=False, **kwargs)  # committed, not yet switched
                os.kill(os.getpid(), signal.SIGKILL)

            sqlite_mod.migrate = migrate_then_die
            EventStore(db)
        finally:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    with closing(sqlite3.connect(db)) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    with EventStore(db) as store:
        out = execute(store, cmd.OpenEncounter(name="after the crash", system="mrq1"), actor="gm")
        assert load_state(store, out.encounter_id) == replay(store, out.encounter_id)
    with closing(sqlite3.connect(db)) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_kill_while_creating_the_file_leaves_nothing_half_made(tmp_path: Path) -> None:
    db = tmp_path / "affray.db"
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            import affray.store.sqlite as sqlite_mod

            def die_inside(conn, path, *, wal=True, **kwargs):
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY)")
                os.kill(os.getpid(), signal.SIGKILL)

            sqlite_mod.migrate = die_inside
            EventStore(db)
        finally:
            os._exit(3)
    os.waitpid(pid, 0)
    # the half-made schema was never committed: the next 'affray new' starts afresh
    with EventStore(db) as store:
        out = execute(store, cmd.OpenEncounter(name="fresh", system="mrq1"), actor="gm")
        assert store.verify() == []
        assert store.version(out.encounter_id) == 1
