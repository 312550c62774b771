"""``affray log`` streams, and ``log --tail N``, ``log --round R`` and
``replay --round R`` read only what they show, with the same answers as the
whole log (affray.views.log_view, affray.views.round_replay.replay_store)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from affray.commands.demo import autoplay
from affray.store import EventStore
from affray.views import log_view
from affray.views.narrate import entries, names_of
from affray.views.round_replay import replay, replay_store

from conftest import Cli


def tough_duel(db) -> str:
    """The demo duel with every location's HP raised, so the autopilot
    fights round after round (as bench/bench.py's endless duel)."""
    import msgspec

    from affray.commands.demo import SCENARIOS, examples_dir
    from affray.commands.handler import execute
    from affray.events import commands as cmd
    from affray.rules.mrq1 import tables
    from affray.rules.mrq1.sheet import load_sheet

    with EventStore(db) as store:
        out = execute(store, cmd.OpenEncounter(name="Ford", system="mrq1", encounter_id="ford"), actor="gm", seed=bytes(32), allow_short_seed=True)
        for rel, side, name in SCENARIOS["duel"]:
            sheet = load_sheet(examples_dir() / rel)
            sheet = msgspec.structs.replace(sheet, location_hp={loc: 10_000 for loc in tables.HIT_LOCATIONS})
            execute(store, cmd.JoinCombatant(sheet=msgspec.to_builtins(sheet), side=side, name=name),
                    encounter_id=out.encounter_id, actor="gm")
    return out.encounter_id


@pytest.fixture(scope="module")
def long_log(tmp_path_factory):
    """A tough duel played by the autopilot over several rounds, with an
    undo, a redo, an undo left standing and a rewind into an earlier round,
    then played on: (database, encounter id)."""
    db = tmp_path_factory.mktemp("logstream") / "long.db"
    eid = tough_duel(db)
    with EventStore(db) as store:
        autoplay(store, eid, actor="auto", max_commands=80)
    runner = Cli(db)
    runner.ok("note", "first note")
    runner.ok("undo")
    runner.ok("redo")
    runner.ok("note", "undone note")
    runner.ok("undo")
    with EventStore(db) as store:
        autoplay(store, eid, actor="auto", max_commands=60)
    state = runner.state()
    assert state["round"] >= 4, state["round"]
    runner.ok("rewind", "--to", str(state["round"] - 2))
    with EventStore(db) as store:
        autoplay(store, eid, actor="auto", max_commands=60)
    return db, eid


def _whole(db, eid, *, dice=False):
    with EventStore(db, readonly=True) as store:
        records = list(store.read(eid))
    return entries(records, names_of(records), dice=dice), records


def _key(e):
    return (e.version, e.round, e.command_id, e.actor, e.status, e.kind, e.text)


def test_the_long_log_has_what_the_reads_must_handle(long_log):
    db, eid = long_log
    items, _ = _whole(db, eid)
    statuses = {e.status for e in items}
    assert {"live", "retracted", "void"} <= statuses
    assert len({e.round for e in items}) >= 4


@pytest.mark.parametrize("dice", [False, True])
def test_stream_equals_the_whole_log(long_log, dice):
    db, eid = long_log
    whole, _ = _whole(db, eid, dice=dice)
    with EventStore(db, readonly=True) as store:
        streamed = list(log_view.log_entries(store, eid, dice=dice))
    assert [_key(e) for e in streamed] == [_key(e) for e in whole]


@pytest.mark.parametrize("dice", [False, True])
def test_tail_is_the_end_of_the_log(long_log, dice):
    db, eid = long_log
    whole, _ = _whole(db, eid, dice=dice)
    with EventStore(db, readonly=True) as store:
        for n in (1, 2, 3, 7, 20, 50, len(whole) - 1, len(whole), len(whole) + 5):
            got = list(log_view.log_entries(store, eid, dice=dice, tail=n))
            assert [_key(e) for e in got] == [_key(e) for e in whole[-n:]], n


@pytest.mark.parametrize("dice", [False, True])
def test_round_is_that_round_of_the_log(long_log, dice):
    db, eid = long_log
    whole, _ = _whole(db, eid, dice=dice)
    rounds = sorted({e.round for e in whole})
    with EventStore(db, readonly=True) as store:
        for r in rounds:
            got = list(log_view.log_entries(store, eid, dice=dice, round_no=r))
            assert [_key(e) for e in got] == [_key(e) for e in whole if e.round == r], r
            assert got, r
            tail = list(log_view.log_entries(store, eid, dice=dice, round_no=r, tail=2))
            assert [_key(e) for e in tail] == [_key(e) for e in whole if e.round == r][-2:]
        with pytest.raises(ValueError, match=rf"no round {rounds[-1] + 1} \(rounds: 0–{rounds[-1]}\)"):
            list(log_view.log_entries(store, eid, round_no=rounds[-1] + 1))


def test_replay_store_equals_replay_of_the_whole_log(long_log):
    db, eid = long_log
    _, records = _whole(db, eid)
    whole, _ = _whole(db, eid)
    rounds = sorted({e.round for e in whole})
    with EventStore(db, readonly=True) as store:
        for r in rounds + [rounds[-1] + 1, -1]:
            try:
                expected = replay(records, r)
            except ValueError as exc:
                with pytest.raises(ValueError) as got:
                    replay_store(store, eid, r)
                assert str(got.value) == str(exc)
                continue
            assert replay_store(store, eid, r) == expected, r


def test_tail_and_round_read_only_a_stretch(long_log, monkeypatch):
    """``--tail`` and ``--round`` decode only a stretch of the log, not all of it."""
    db, eid = long_log
    _, records = _whole(db, eid)
    read = []
    original = EventStore.read

    def counting(self, encounter_id, **kw):
        for rec in original(self, encounter_id, **kw):
            read.append(rec.version)
            yield rec

    monkeypatch.setattr(EventStore, "read", counting)
    with EventStore(db, readonly=True) as store:
        list(log_view.log_entries(store, eid, tail=3))
        assert 0 < len(read) < len(records) // 2
        read.clear()
        list(log_view.log_entries(store, eid, round_no=2))
        assert 0 < len(read) < len(records) // 2
        read.clear()
        replay_store(store, eid, 2)
        assert 0 < len(read) < len(records) // 2


def test_cli_log_options(long_log, tmp_path):
    db, eid = long_log
    work = tmp_path / "work.db"
    shutil.copyfile(db, work)
    cli = Cli(work)
    whole = json.loads(cli.ok("log", "--json").stdout)
    assert json.loads(cli.ok("log", "--json", "--tail", "4").stdout) == whole[-4:]
    assert json.loads(cli.ok("log", "--json", "--round", "1").stdout) == [e for e in whole if e["round"] == 1]
    plain = cli.ok("log", "--tail", "2").stdout.splitlines()
    assert plain[0].startswith(("Round ", "Setup")) and len(plain) in (3, 4)
    bad = cli("log", "--round", "999")
    assert bad.exit_code == 2 and bad.stderr.startswith("error: the live timeline has no round 999")
    bad = cli("log", "--tail", "-1")
    assert bad.exit_code == 2 and bad.stderr.startswith("error: --tail takes")
    empty = json.loads(cli.ok("log", "--json", "--round", "0", "--tail", "1").stdout)
    assert len(empty) == 1 and empty[0]["round"] == 0


def test_log_into_a_closed_pipe_is_not_an_error(long_log, tmp_path):
    db, _ = long_log
    script = "import sys; from affray.cli.main import main; sys.argv[0] = 'affray'; main()"
    proc = subprocess.run(
        f"{sys.executable} -c \"{script}\" --db {db} log --dice | head -n 1",
        shell=True, capture_output=True, text=True,
    )
    assert proc.stdout.count("\n") == 1
    assert "Traceback" not in proc.stderr and "Error" not in proc.stderr, proc.stderr


# --------------------------------------------------------------------------- #
# A property: any history of play, undo, redo and rewind
# --------------------------------------------------------------------------- #

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from affray.commands.handler import execute  # noqa: E402
from affray.errors import AffrayError  # noqa: E402
from affray.events import commands as cmd  # noqa: E402

_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("play"), st.integers(1, 25)),
        st.tuples(st.just("undo"), st.integers(1, 3)),
        st.tuples(st.just("redo"), st.integers(1, 2)),
        st.tuples(st.just("rewind"), st.floats(0.0, 1.0)),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=_OPS)
def test_any_history_reads_the_same_in_stretches(tmp_path_factory, ops):
    db = tmp_path_factory.mktemp("history") / "h.db"
    eid = tough_duel(db)
    with EventStore(db) as store:
        autoplay(store, eid, actor="auto", max_commands=12)
        for op, arg in ops:
            try:
                if op == "play":
                    autoplay(store, eid, actor="auto", max_commands=arg)
                elif op in ("undo", "redo"):
                    for _ in range(arg):
                        execute(store, cmd.Undo() if op == "undo" else cmd.Redo(), encounter_id=eid, actor="gm")
                else:
                    records = list(store.read(eid))
                    ends = [a.version for a, b in zip(records, records[1:]) if a.command_id != b.command_id]
                    target = ends[int(arg * (len(ends) - 1))] if ends else 0
                    execute(store, cmd.Rewind(to_version=target), encounter_id=eid, actor="gm")
            except AffrayError:
                pass  # nothing to undo or redo, a point that is not a live boundary: the log is unchanged
    whole, records = _whole(db, eid)
    keys = [_key(e) for e in whole]
    with EventStore(db, readonly=True) as store:
        assert [_key(e) for e in log_view.log_entries(store, eid)] == keys
        for n in (1, 5, 17):
            assert [_key(e) for e in log_view.log_entries(store, eid, tail=n)] == keys[-n:]
        for r in sorted({e.round for e in whole}):
            got = [_key(e) for e in log_view.log_entries(store, eid, round_no=r)]
            assert got == [k for k in keys if k[1] == r], r
            assert replay_store(store, eid, r) == replay(records, r), r
