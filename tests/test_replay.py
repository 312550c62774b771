"""Replay properties over generated fights (DESIGN.md invariants 1, 2, 3, 6, 7).

Fights are the example duel (Vasana against Broo 1) with engine dice from a
generated seed. At each step the test picks among legal commands: the
autoplay's own choice (:func:`affray.commands.demo.next_command`), an alternative
reaction (dodge / none), an alternative action (defend / pass), a choice's
other option, undo, redo or a note.

Properties:

(a) ``project(all events)`` equals the incrementally maintained state (the
    ``Outcome.state`` chain, and our own fold of each command's records) and
    equals ``load_state`` (snapshots);
(b) undo then redo is the identity on the state;
(c) undo restores exactly the previous state, and the retracted events stay
    in the log (row count never decreases, no row changes);
(d) an undone command re-issued with engine dice gets the same dice;
(e) editing, deleting or swapping rows is reported by ``store.verify()``;
(f) undoing a command from before a snapshot still gives the right state
    through ``load_state``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from affray.events import commands as cmd
from affray.commands.handler import execute
from affray.commands.demo import next_command, setup
from affray.events import core as ev
from affray.projections.snapshots import load_state
from affray.projections.state import State
from affray.projections.timeline import Timeline, fold, project
from affray.rules.base import RuleError
from affray.store import EventStore

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.binary(min_size=4, max_size=16)


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #


def new_fight(seed: bytes, store: EventStore | None = None) -> tuple[EventStore, str]:
    store = store or EventStore(":memory:")
    return store, setup(store, "duel", seed=seed, allow_short_seed=True, actor="test")


def run(store: EventStore, eid: str, command: cmd.Command):
    return execute(store, command, encounter_id=eid, actor="test")


def auto_command(store: EventStore, eid: str, state: State) -> cmd.Command | None:
    """The autoplay's command for ``state``, as ``affray demo`` plays it: its
    attack, or Defend when the rules refuse the attack (two useless arms).
    Deciding appends nothing."""
    command = next_command(state)
    if isinstance(command, cmd.DeclareAttack):
        from affray.rules import base

        try:
            base.get(state.system).decide(state, command, _NoDice())
        except RuleError:
            return cmd.TakeAction(who=command.attacker, action="defend")
        except _Rolled:
            pass
    return command


class _Rolled(Exception):
    pass


class _NoDice:
    """Stops a trial decision at its first roll (the checks come before it)."""

    def roll(self, *args, **kwargs):
        raise _Rolled


def auto(store: EventStore, eid: str, state: State):
    command = auto_command(store, eid, state)
    return None if command is None else run(store, eid, command)


def play(store: EventStore, eid: str, steps: int) -> State:
    state = load_state(store, eid)
    for _ in range(steps):
        out = auto(store, eid, state)
        if out is None:
            break
        state = out.state
    return state


def rows(store: EventStore, eid: str) -> list[tuple]:
    return list(store.read_raw(eid))


def same_but_version(a: State, b: State) -> bool:
    """Equal states, except the log version (meta events count in it)."""
    return replace(a, version=0) == replace(b, version=0)


def has_meta(records) -> bool:
    return any(isinstance(r.event, ev.META_EVENTS) for r in records)


def alternatives(state: State, store: EventStore, eid: str) -> list[cmd.Command]:
    """Legal commands other than the autoplay's, for the first pending step."""
    out: list[cmd.Command] = []
    if state.pending and state.phase not in ("over", "closed"):
        step = state.pending[0]
        if step.kind == "react":
            out += [cmd.ChooseReaction(defender=step.who, reaction=r) for r in step.options if r in ("dodge", "none")]
        elif step.kind == "riposte":
            out.append(cmd.ChooseReaction(defender=step.who, reaction="none"))
        elif step.kind == "turn":
            out += [cmd.TakeAction(who=step.who, action=a) for a in ("defend", "pass")]
        elif step.verb == "choose":
            out += [cmd.MakeChoice(who=step.who, option=o) for o in step.options]
    tl = Timeline(store.read(eid))
    if len(tl.live_commands()) > 3:  # keep the opening and both joins
        out.append(cmd.Undo())
    if tl.redo_stack:
        out.append(cmd.Redo())
    out.append(cmd.AddNote(text=f"note at version {state.version}"))
    return out


# --------------------------------------------------------------------------- #
# (a) the fold, the incremental chain and the snapshots agree
# --------------------------------------------------------------------------- #


@SETTINGS
@given(seed=seeds, data=st.data())
def test_projection_equals_incremental_state_and_snapshots(seed, data):
    store, eid = new_fight(seed)
    state = load_state(store, eid)
    mine = state  # our own incremental fold of each command's records
    steps = data.draw(st.integers(10, 45), label="steps")
    for _ in range(steps):
        alts = alternatives(state, store, eid)
        pick = data.draw(st.integers(0, 2 * len(alts)), label="pick")
        if pick < len(alts):
            command = alts[pick]
            event(f"issued {type(command).__name__}")
            try:
                out = run(store, eid, command)
            except RuleError:
                # a refused command leaves the log untouched (invariant 4)
                assert store.version(eid) == state.version
                continue
        else:
            out = auto(store, eid, state)
            if out is None:
                break
        assert out.before == state, "each command starts from the state the last one left"
        mine = out.state if has_meta(out.records) else fold(mine, out.records)
        state = out.state
        everything = list(store.read(eid))
        event(f"phase {state.phase}")
        projected = project(everything)
        assert state == projected
        assert mine == projected
        assert load_state(store, eid) == projected
        assert load_state(store, eid, use_snapshots=False) == projected
    assert store.verify(eid) == []


def test_full_autoplay_fight_replays(tmp_path):
    """A whole fight to its end, on a file, through snapshots and time travel."""
    store = EventStore(tmp_path / "fight.db")
    store, eid = new_fight(b"full fight", store)
    state = play(store, eid, 2000)
    assert state.phase == "over" and state.winner
    everything = list(store.read(eid))
    assert project(everything) == state
    assert load_state(store, eid) == state
    assert store.snapshots(eid), "round ends leave snapshots"
    for version in range(1, state.version + 1, 7):
        assert load_state(store, eid, at_version=version) == project(everything[:version])
    store.close()
    reopened = EventStore(tmp_path / "fight.db", must_exist=True)
    assert load_state(reopened, eid) == state
    assert reopened.verify() == []


# --------------------------------------------------------------------------- #
# (b) (c) (d) undo, redo, and no re-rolls
# --------------------------------------------------------------------------- #


@SETTINGS
@given(seed=seeds, prefix=st.integers(0, 60))
def test_undo_restores_the_previous_state_and_keeps_the_log(seed, prefix):
    store, eid = new_fight(seed)
    before = play(store, eid, prefix)
    command = auto_command(store, eid, before)
    if command is None:  # the fight ended inside the prefix: undo its last command
        command = cmd.AddNote(text="the last word")
    rows_before = rows(store, eid)
    done = run(store, eid, command)
    rows_done = rows(store, eid)
    assert rows_done[: len(rows_before)] == rows_before

    undone = run(store, eid, cmd.Undo())
    assert undone.records[0].event == ev.CommandRetracted(command_id=done.records[0].command_id)
    # (c) the exact previous state: conditions, pending steps, allowances...
    assert same_but_version(undone.state, before)
    assert undone.state.pending == before.pending
    assert undone.state.combatants == before.combatants
    # ... and the retracted events are still in the log, unchanged
    rows_undone = rows(store, eid)
    assert rows_undone[: len(rows_done)] == rows_done
    assert len(rows_undone) == len(rows_done) + 1

    # (b) redo brings the command back: undo then redo is the identity
    redone = run(store, eid, cmd.Redo())
    assert same_but_version(redone.state, done.state)
    assert rows(store, eid)[: len(rows_undone)] == rows_undone
    assert redone.state == project(store.read(eid)) == load_state(store, eid)


@SETTINGS
@given(seed=seeds, prefix=st.integers(0, 60), undos=st.integers(1, 4))
def test_repeated_undo_then_redo_is_the_identity(seed, prefix, undos):
    store, eid = new_fight(seed)
    start = play(store, eid, prefix)
    undone = 0
    for _ in range(undos):
        if len(Timeline(store.read(eid)).live_commands()) <= 3:
            break
        run(store, eid, cmd.Undo())
        undone += 1
    for _ in range(undone):
        run(store, eid, cmd.Redo())
    after = load_state(store, eid)
    assert same_but_version(after, start)
    assert after.version == start.version + 2 * undone
    with pytest.raises(RuleError):
        run(store, eid, cmd.Redo())  # nothing left to redo


def _dice(records) -> list[tuple]:
    return [
        (e.purpose, e.expr, e.faces, e.total, e.source, e.index)
        for e in (r.event for r in records)
        if isinstance(e, ev.DiceRolled)
    ]


@SETTINGS
@given(seed=seeds, prefix=st.integers(0, 60))
def test_undo_cannot_reroll(seed, prefix):
    """(d) the same command issued again after an undo gets the same dice."""
    store, eid = new_fight(seed)
    state = play(store, eid, prefix)
    command = auto_command(store, eid, state)
    if command is None:
        return
    first = run(store, eid, command)
    run(store, eid, cmd.Undo())
    again = run(store, eid, command)
    assert _dice(again.records) == _dice(first.records)
    # the same facts, only the versions and the command id moved on
    strip = lambda out: [r.event for r in out.records if not isinstance(r.event, ev.ConditionApplied)]  # noqa: E731
    assert strip(again) == strip(first)


def test_undo_of_a_rolling_command_reuses_its_dice_even_after_a_note():
    store, eid = new_fight(b"no rerolls")
    state = play(store, eid, 1)  # strike ranks rolled
    command = next_command(state)
    assert isinstance(command, cmd.DeclareAttack)
    first = run(store, eid, command)
    assert _dice(first.records)
    run(store, eid, cmd.Undo())
    run(store, eid, cmd.AddNote(text="the GM thinks it over"))
    again = run(store, eid, command)
    assert _dice(again.records) == _dice(first.records)


def _manual_attack_undone() -> tuple[EventStore, str]:
    """Manual dice: Vasana's attack rolled 90 (a miss), then undone."""
    store = EventStore(":memory:")
    eid = setup(store, "duel", seed=b"table", allow_short_seed=True, manual=True, actor="test")
    execute(store, cmd.StartRound(), encounter_id=eid, dice="10,1")
    execute(store, cmd.DeclareAttack(attacker="vasana", target="broo1"), encounter_id=eid, dice="90")
    execute(store, cmd.Undo(), encounter_id=eid)
    return store, eid


def test_undone_table_dice_must_be_typed_again():
    store, eid = _manual_attack_undone()
    version = store.version(eid)
    with pytest.raises(RuleError, match="90"):
        execute(store, cmd.DeclareAttack(attacker="vasana", target="broo1"), encounter_id=eid, dice="10")
    assert store.version(eid) == version
    again = execute(store, cmd.DeclareAttack(attacker="vasana", target="broo1"), encounter_id=eid, dice="90")
    assert not again.state.exchange  # the same miss


def test_a_reroll_after_undo_is_logged_with_its_reason():
    store, eid = _manual_attack_undone()
    out = execute(
        store, cmd.DeclareAttack(attacker="vasana", target="broo1"), encounter_id=eid, dice="10", reroll="die fell off the table"
    )
    notes = [r.event for r in out.records if isinstance(r.event, ev.NoteAdded)]
    assert len(notes) == 1 and "die fell off the table" in notes[0].text


def test_a_note_after_undo_does_not_open_a_reroll():
    store, eid = _manual_attack_undone()
    execute(store, cmd.AddNote(text="the GM thinks it over"), encounter_id=eid)
    with pytest.raises(RuleError):
        execute(store, cmd.DeclareAttack(attacker="vasana", target="broo1"), encounter_id=eid, dice="10")


# --------------------------------------------------------------------------- #
# (e) tamper evidence (invariant 6)
# --------------------------------------------------------------------------- #

TAMPERS = ("edit-data-bytes", "edit-data-value", "edit-actor", "edit-recorded-at", "edit-type", "delete", "swap")


def _tamper(path: str, eid: str, how: str, pick: int, other: int) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("DROP TRIGGER IF EXISTS events_no_update")
        conn.execute("DROP TRIGGER IF EXISTS events_no_delete")
        found = conn.execute(
            "SELECT seq, version, type, data FROM events WHERE encounter_id = ? ORDER BY version", (eid,)
        ).fetchall()
        seq, version, type_, data = found[pick % len(found)]
        if how == "edit-data-bytes":  # same meaning, other bytes
            conn.execute("UPDATE events SET data = ? WHERE seq = ?", ("{ " + data[1:], seq))
        elif how == "edit-data-value":
            dice = [row for row in found if row[2] == "dice-rolled"]
            seq, version, type_, data = dice[pick % len(dice)]
            value = json.loads(data)
            value["total"] = value["total"] % 100 + 1
            value["faces"] = [value["total"]]
            conn.execute("UPDATE events SET data = ? WHERE seq = ?", (json.dumps(value, separators=(",", ":")), seq))
        elif how == "edit-actor":
            conn.execute("UPDATE events SET actor = actor || 'x' WHERE seq = ?", (seq,))
        elif how == "edit-recorded-at":
            conn.execute("UPDATE events SET recorded_at = '2000-01-01T00:00:00.000000Z' WHERE seq = ?", (seq,))
        elif how == "edit-type":
            conn.execute("UPDATE events SET type = 'note-added' WHERE seq = ? AND type != 'note-added'", (seq,))
            if type_ == "note-added":
                conn.execute("UPDATE events SET type = 'round-ended' WHERE seq = ?", (seq,))
        elif how == "delete":
            conn.execute("DELETE FROM events WHERE seq = ?", (seq,))
        elif how == "swap":  # two events trade places (their versions)
            seq2, version2, *_ = found[other % len(found)]
            if seq2 == seq:
                seq2, version2, *_ = found[(other + 1) % len(found)]
            conn.execute("UPDATE events SET version = -1 WHERE seq = ?", (seq,))
            conn.execute("UPDATE events SET version = ? WHERE seq = ?", (version, seq2))
            conn.execute("UPDATE events SET version = ? WHERE seq = ?", (version2, seq))
    finally:
        conn.close()


@SETTINGS
@given(seed=seeds, steps=st.integers(1, 20), how=st.sampled_from(TAMPERS), pick=st.integers(0, 10_000), other=st.integers(0, 10_000))
def test_tampering_is_detected(seed, steps, how, pick, other):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "log.db")
        store = EventStore(path)
        store, eid = new_fight(seed, store)
        play(store, eid, steps)
        assert store.verify(eid) == [] and store.verify() == []
        store.close()
        _tamper(path, eid, how, pick, other)
        tampered = EventStore(path, must_exist=True)
        try:
            problems = tampered.verify(eid)
            assert problems, f"{how} went unnoticed"
            assert tampered.verify(), "the whole-file check sees it too"
        finally:
            tampered.close()


def test_the_log_refuses_updates_and_deletes(tmp_path):
    """Invariant 1 is also guarded in the file: the triggers refuse edits."""
    path = tmp_path / "log.db"
    store, eid = new_fight(b"append only", EventStore(path))
    play(store, eid, 3)
    store.close()
    conn = sqlite3.connect(path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE events SET actor = 'mallory'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM events")
    conn.close()


# --------------------------------------------------------------------------- #
# (f) stale snapshots (invariant 7)
# --------------------------------------------------------------------------- #


@SETTINGS
@given(seed=seeds, extra=st.integers(0, 25), undos=st.integers(1, 6), after=st.integers(0, 10))
def test_undo_before_a_snapshot_still_loads_the_right_state(seed, extra, undos, after):
    store, eid = new_fight(seed)
    state = load_state(store, eid)
    # play to the first round end (a snapshot), then a little further
    while not store.snapshots(eid):
        out = auto(store, eid, state)
        if out is None:
            return  # the fight ended in round 1
        state = out.state
    state = play(store, eid, extra)
    snapshot_version = store.snapshots(eid)[-1][0]
    # undo back past the snapshot: at least one retracted command started at or before it
    tl = Timeline(store.read(eid))
    while True:
        live = tl.live_commands()
        if len(live) <= 3:
            break
        newest = live[-1]
        run(store, eid, cmd.Undo())
        tl = Timeline(store.read(eid))
        undos -= 1
        if tl.first_version[newest] <= snapshot_version and undos <= 0:
            break
    assert any(tl.first_version[c] <= snapshot_version for c in tl.retracted)
    assert store.latest_snapshot(eid, store.version(eid))[0] == snapshot_version  # the stale one is still there
    expected = project(store.read(eid))
    assert load_state(store, eid) == expected
    assert load_state(store, eid, use_snapshots=False) == expected
    # the fight goes on from the restored state, still in agreement
    state = play(store, eid, after)
    assert state == project(store.read(eid)) == load_state(store, eid)


def test_undo_of_the_round_end_that_took_the_snapshot():
    store, eid = new_fight(b"stale snapshot")
    state = load_state(store, eid)
    while not store.snapshots(eid):
        state = auto(store, eid, state).state
    version, _ = store.snapshots(eid)[-1]
    assert state.version == version and state.phase in ("round", "between")
    before_end = load_state(store, eid, at_version=Timeline(store.read(eid)).first_version[state.last_command] - 1)
    undone = run(store, eid, cmd.Undo())
    assert same_but_version(undone.state, before_end)
    assert load_state(store, eid) == project(store.read(eid)) == undone.state
    assert undone.state.round == before_end.round and undone.state.pending[0].kind == "end-round"


def test_replay_skips_decoding_only_the_events_the_fold_ignores():
    """``read_live(only=folded_tags())``: the events with no fold handler
    (command records, skill tests) come through undecoded (``event`` is
    None) with their version and command id, the rest decoded; folding that
    stream gives the same state as folding every decoded event."""
    from affray.projections.evolve import folded_tags
    from affray.projections.snapshots import replay

    store, eid = new_fight(b"skip-undecoded")
    state = play(store, eid, 40)
    only = folded_tags()
    assert "command-issued" not in only and "damage-dealt" in only
    lean = list(store.read_live(eid, only=only))
    full = list(store.read_live(eid))
    assert [(x.version, x.command_id) for x in lean] == [(x.version, x.command_id) for x in full]
    for a, b in zip(lean, full):
        assert a.event is None or a.event == b.event
        assert (a.event is None) == (type(b.event).__struct_config__.tag not in only)
    assert any(a.event is None for a in lean)
    assert fold(State(), lean) == fold(State(), full) == project(store.read(eid))
    assert same_but_version(replay(store, eid), state)
