"""Undo and redo read the meta events and a few rows back from the head
(``commands.points.newest_live_command``, ``redo_stack``), not the whole log,
and the re-roll guard reads the dice from the first version an undo, redo
or rewind touched (``commands.handler.slots_ahead``).

Property (hypothesis): after any run of fight commands, notes, undos, redos
and rewinds (the demo duel, engine dice), the command an undo would retract
and the redo stack are exactly what a :class:`Timeline` of the whole log
says (and the guard's map of the dice is :func:`rolled_slots`'s over the
whole log), whatever the size of the stretches the rows are read in (1 row at
first, so that every jump over a rewound span and every stretch boundary is
crossed). The log itself never changes: each check only reads.
"""

from __future__ import annotations

import random

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from affray.commands.demo import next_command, setup
from affray.commands.handler import SlotsAhead, execute, rolled_slots, slots_ahead
from affray.commands.points import command_points, newest_live_command, redo_stack
from affray.commands.travel import rewind_from_log, rewind_from_stretch
from affray.errors import AffrayError
from affray.events import commands as cmd
from affray.projections.snapshots import load_state, replay
from affray.projections.timeline import Timeline, project
from affray.store import EventStore

OPS = ("fight", "fight", "note", "undo", "undo", "redo", "rewind")
MOVES = st.lists(st.sampled_from(OPS), min_size=5, max_size=45)


def expected(store, eid):
    tl = Timeline(store.read(eid))
    live = [c for c in tl.live_commands() if c != tl.commands[0]]
    newest = (live[-1], tl.first_version[live[-1]]) if live else None
    return newest, tl.redo_stack


def check(store, eid):
    newest, stack = expected(store, eid)
    head = store.version(eid)
    metas = store.read_meta(eid)
    for stretch in (1, 3, 64):
        assert newest_live_command(store, eid, head, metas, stretch=stretch) == newest
        assert redo_stack(store, eid, head, metas, stretch=stretch) == stack
    # the re-roll guard's map, read from the first version an undo, redo or rewind touched
    slots, total = rolled_slots(store, eid)
    assert slots_ahead(store, eid) == {slot - total: v for slot, v in slots.items()}


def fresh(seed):
    """``(rng, store, eid)``: the demo duel in a new log, its dice from ``seed``."""
    rng = random.Random(seed)
    store = EventStore(":memory:")
    return rng, store, setup(store, seed=rng.randbytes(16), actor="gm")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), ops=MOVES)
def test_undo_and_redo_targets_are_the_whole_logs(seed, ops):
    rng, store, eid = fresh(seed)
    check(store, eid)
    for op in ops:
        play(store, eid, rng, op, lambda: [cmd.Rewind(to_version=v) for v in live_ends(store, eid)])
        check(store, eid)


def live_ends(store, eid) -> list[int]:
    """The last version of every live command but the newest."""
    tl = Timeline(store.read(eid))
    return sorted({tl.last_version[c] for c in tl.live_commands()})[:-1]


def play(store, eid, rng, op, rewinds) -> None:
    """One move of the property tests: a fight command (the demo's choice),
    a note, an undo, a redo, or one of the rewinds ``rewinds()`` offers.
    A refusal writes nothing and is passed over."""
    try:
        if op == "fight":
            command = next_command(load_state(store, eid))
            if command is not None:
                execute(store, command, encounter_id=eid, actor="gm", reroll="property test")
        elif op == "note":
            execute(store, cmd.AddNote(text=f"note {rng.random()}"), encounter_id=eid, actor="gm")
        elif op in ("undo", "redo"):
            execute(store, cmd.Undo() if op == "undo" else cmd.Redo(), encounter_id=eid, actor="gm")
        else:
            choices = rewinds()
            if choices:
                execute(store, rng.choice(choices), encounter_id=eid, actor="gm")
    except AffrayError:
        pass  # nothing to undo or redo, a rewind point already gone, a fight over: refused, nothing written


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), ops=MOVES, later=st.lists(st.sampled_from(OPS), min_size=1, max_size=30))
def test_the_guard_map_carried_from_command_to_command_is_the_one_read_from_the_log(seed, ops, later):
    """Amend's replay carries the re-roll guard's map through its commands
    (``SlotsAhead``): after every command it issues with the map, fight
    commands and notes (the map moves down by the command's dice), undos,
    redos and rewinds (it is read again), the map is :func:`slots_ahead`
    of the log as it then is."""
    rng, store, eid = fresh(seed)
    play(store, eid, rng, "fight", list)  # the first round starts
    started = store.version(eid)
    rewinds = lambda: [cmd.Rewind(to_version=v) for v in live_ends(store, eid) if v >= started]  # noqa: E731
    for op in ["fight"] * 8 + ops:  # a fight, then a history with undos and rewinds to guard
        play(store, eid, rng, op, rewinds)
    carried = SlotsAhead()
    for op in later:
        try:
            if op == "fight":
                state = load_state(store, eid)
                command = next_command(state) or (cmd.StartRound() if state.phase == "setup" else None)
                if command is None:
                    continue
                execute(store, command, encounter_id=eid, actor="gm", reroll="property test", ahead=carried)
            elif op == "note":
                execute(store, cmd.AddNote(text="n"), encounter_id=eid, actor="gm", ahead=carried)
            elif op in ("undo", "redo"):
                execute(store, cmd.Undo() if op == "undo" else cmd.Redo(), encounter_id=eid, actor="gm", ahead=carried)
            else:
                choices = rewinds()
                if choices:
                    execute(store, rng.choice(choices), encounter_id=eid, actor="gm", ahead=carried)
        except AffrayError:
            pass
        head = store.version(eid)
        if carried.version == head:  # carried along: the map must be the log's
            assert carried.slots == slots_ahead(store, eid, to_version=head)
        assert carried.at(store, eid, head).slots == slots_ahead(store, eid, to_version=head)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), ops=MOVES, cuts=st.lists(st.floats(0, 1), min_size=1, max_size=4))
def test_a_replay_that_skips_the_rewound_spans_is_the_whole_logs(seed, ops, cuts):
    """A log with rewinds is replayed in the stretches between its rewound
    spans, which are not read: the state is the one the whole log's
    :class:`Timeline` folds (``project``), at the head and cut anywhere."""
    rng, store, eid = fresh(seed)
    play(store, eid, rng, "fight", list)
    started = store.version(eid)
    for op in ["fight"] * 6 + ops:
        play(store, eid, rng, op, lambda: [cmd.Rewind(to_version=v) for v in live_ends(store, eid) if v >= started])
    head = store.version(eid)
    for v in [head] + [max(1, int(c * head)) for c in cuts]:
        assert replay(store, eid, to_version=v) == project(store.read(eid, to_version=v))


def test_a_replay_does_not_read_a_rewound_span():
    store = EventStore(":memory:")
    eid = execute(store, cmd.OpenEncounter(name="Notes", system="mrq1"), actor="gm", seed=b"s" * 16).encounter_id
    for i in range(300):
        execute(store, cmd.AddNote(text=f"n{i}"), encounter_id=eid, actor="gm")
    keep = store.version(eid) - 250
    execute(store, cmd.Rewind(to_version=keep), encounter_id=eid, actor="gm")
    execute(store, cmd.AddNote(text="after"), encounter_id=eid, actor="gm")
    read = []
    real = store.fold_rows

    def counting(encounter_id, fold, **k):
        def seen(rows, first):
            for version, row in enumerate(rows, first):
                read.append(version)
                yield row

        return real(encounter_id, lambda rows, first: fold(seen(rows, first), first), **k)

    store.fold_rows = counting
    assert replay(store, eid) == project(store.read(eid))
    # every row but the 250 rewound notes: the kept ones, the rewind and the note after it
    assert read == list(range(1, keep + 1)) + [keep + 251, keep + 252] and max(read) == store.version(eid)


def test_undo_walks_back_past_a_long_rewound_span_without_reading_it():
    store = EventStore(":memory:")
    eid = execute(store, cmd.OpenEncounter(name="Notes", system="mrq1"), actor="gm", seed=b"s" * 16).encounter_id
    for i in range(300):
        execute(store, cmd.AddNote(text=f"n{i}"), encounter_id=eid, actor="gm")
    keep = store.version(eid) - 250  # 50 notes stay live
    execute(store, cmd.Rewind(to_version=keep), encounter_id=eid, actor="gm")
    execute(store, cmd.AddNote(text="after"), encounter_id=eid, actor="gm")
    execute(store, cmd.Undo(), encounter_id=eid, actor="gm")  # "after" retracted
    check(store, eid)
    read = []
    real = store.read_raw

    def counting(*a, **k):
        for row in real(*a, **k):
            read.append(row[2])
            yield row

    store.read_raw = counting
    found = newest_live_command(store, eid, store.version(eid), store.read_meta(eid), stretch=4)
    assert found is not None and found[1] == keep  # the newest live note ends at the rewind point
    assert len(read) < 60, len(read)  # the 250 rewound rows were jumped over
    out = execute(store, cmd.Undo(), encounter_id=eid, actor="gm")
    assert out.records[-1].event.command_id == found[0]


def test_a_refused_rewind_does_not_read_the_whole_log():
    store = EventStore(":memory:")
    eid = execute(store, cmd.OpenEncounter(name="Notes", system="mrq1"), actor="gm", seed=b"s" * 16).encounter_id
    for i in range(300):
        execute(store, cmd.AddNote(text=f"n{i}"), encounter_id=eid, actor="gm")
    execute(store, cmd.Undo(), encounter_id=eid, actor="gm")
    execute(store, cmd.Undo(), encounter_id=eid, actor="gm")
    tl = Timeline(store.read(eid))
    newest = tl.live_commands()[-1]
    whole = []
    real = store.read

    def counting(*a, **k):
        whole.append(a)
        return real(*a, **k)

    store.read = counting
    rewind = cmd.Rewind(to_version=tl.last_version[newest])  # after it: two undone notes and two undos
    version = store.version(eid)
    with pytest.raises(AffrayError, match=r"nothing to rewind: no live command after version \d+ \(they are already undone or void\)"):
        execute(store, rewind, encounter_id=eid, actor="gm")
    assert whole == [] and store.version(eid) == version  # refused from a stretch, nothing appended
    store.read = real
    assert outcome(rewind_from_log, store, eid, rewind) == outcome(rewind_from_stretch, store, eid, rewind)


def rewind_points(store, eid, rng):
    """Rewind commands to try: every live command boundary (``--version``)
    and every ``ROUND.STEP`` and ``ROUND`` the live timeline has, a sample."""
    tl = Timeline(store.read(eid))
    points = command_points(list(store.read(eid)), tl)
    tries = [cmd.Rewind(to_version=tl.last_version[c]) for c in tl.live_commands()]
    tries += [cmd.Rewind(to_point=p.label) for p in points] + [cmd.Rewind(to_point=str(p.ends_round)) for p in points if p.ends_round]
    tries += [cmd.Rewind(to_version=store.version(eid)), cmd.Rewind(to_point="999.1"), cmd.Rewind(to_point="0.1")]
    for rnd in {p.start[0] for p in points}:  # a step a live round does not have, and the round alone
        tries += [cmd.Rewind(to_point=f"{rnd}.{max(p.start[1] for p in points if p.start[0] == rnd) + 7}")]
        tries += [cmd.Rewind(to_point=str(rnd))]
    return rng.sample(tries, min(len(tries), 12))


def same_rewind(store, eid, command) -> bool:
    """Whether the rewind decided from a stretch (when it decides) is the
    one decided from the whole log; True when the stretch decided."""
    fast, slow = outcome(rewind_from_stretch, store, eid, command), outcome(rewind_from_log, store, eid, command)
    assert fast is None or fast == slow, (command, fast, slow)
    if isinstance(fast, str):  # the refusals a stretch words
        assert fast.startswith(("nothing to rewind", "the live timeline has no round", "round ")), fast
    return fast is not None


def outcome(decide, store, eid, command):
    """A rewind's events, or the words of its refusal."""
    try:
        return decide(store, eid, command)
    except AffrayError as exc:
        return str(exc)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), ops=MOVES)
def test_a_rewind_decided_from_a_stretch_is_the_whole_logs(seed, ops):
    rng, store, eid = fresh(seed)
    decided = 0

    def rewinds():
        nonlocal decided
        choices = rewind_points(store, eid, rng)
        decided += sum(same_rewind(store, eid, c) for c in choices)
        return choices

    for op in ops:
        play(store, eid, rng, op, rewinds)
    for c in rewind_points(store, eid, rng):
        decided += same_rewind(store, eid, c)
    if len(ops) >= 20 and ops.count("fight") >= 8:
        assert decided  # the stretch decides the common rewinds
