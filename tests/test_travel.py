"""Time travel from the store (``affray state --at``) against the reference.

``state_at_store(store, eid, round, step)`` finds the point through the type
index and loads it from the nearest snapshot; ``state_at(list(store.read(eid)),
round, step)`` replays the whole log. They must agree everywhere: at the end
of every round, just after every step, for rounds and steps the fight never
reached (the same ``LookupError``), and on logs where undo and redo rewrote
the past, where the shortcut has to step aside.

Fights are the example duel with engine dice from a fixed seed; a seeded
``random.Random`` mixes the autoplay's commands with undos and redos.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from affray.events import commands as cmd
from affray.commands.handler import execute
from affray.commands.demo import SCENARIOS, examples_dir, next_command
from affray.errors import AffrayError
from affray.events import core as ev
from affray.projections.snapshots import load_state
from affray.projections import travel as travel_mod
from affray.projections.travel import parse_point, round_end_version, state_at, state_at_store
from affray.rules.base import RuleError
from affray.rules.mrq1 import tables
from affray.rules.mrq1.sheet import load_sheet
from affray.store import EventStore

#: HP per hit location: enough for a fight of several rounds
TOUGH = 40


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #


def run(store: EventStore, eid: str, command: cmd.Command):
    return execute(store, command, encounter_id=eid, actor="test")


def auto(store: EventStore, eid: str) -> bool:
    """One autoplay command (Defend when the rules refuse the attack); False when the fight is over."""
    command = next_command(load_state(store, eid))
    if command is None:
        return False
    try:
        run(store, eid, command)
    except RuleError:
        if not isinstance(command, cmd.DeclareAttack):
            raise
        run(store, eid, cmd.TakeAction(who=command.attacker, action="defend"))
    return True


def new_duel(seed: int) -> tuple[EventStore, str]:
    """The demo duel, every hit location at ``TOUGH`` HP, not started."""
    store = EventStore(":memory:")
    out = execute(store, cmd.OpenEncounter(name="Travel", system="mrq1"), actor="test", seed=seed.to_bytes(8, "big"), allow_short_seed=True)
    for rel, side, name in SCENARIOS["duel"]:
        sheet = load_sheet(examples_dir() / rel)
        sheet = msgspec.structs.replace(sheet, location_hp={loc: TOUGH for loc in tables.HIT_LOCATIONS})
        run(store, out.encounter_id, cmd.JoinCombatant(sheet=msgspec.to_builtins(sheet), side=side, name=name))
    return store, out.encounter_id


def generated_fight(seed: int, commands: int = 160, undo: float = 0.15, redo: float = 0.06) -> tuple[EventStore, str]:
    """A duel of up to ``commands`` commands, with undos and redos mixed in
    once the fight has started."""
    store, eid = new_duel(seed)
    rng = random.Random(seed)
    undoing = False
    for _ in range(commands):
        r = rng.random()
        # redo only makes sense right after an undo: there, it is likelier
        if (r < undo or (undoing and r < undo + redo * 6)) and load_state(store, eid).round >= 1:
            try:
                run(store, eid, cmd.Undo() if r < undo else cmd.Redo())
                undoing = True
                continue
            except AffrayError:
                pass  # nothing to undo or redo: play on
        undoing = False
        if not auto(store, eid):
            break
    return store, eid


def outcome(fn, *args):
    """The state, or the LookupError's message."""
    try:
        return fn(*args)
    except LookupError as exc:
        return f"LookupError: {exc}"


def points(store: EventStore, eid: str, rng: random.Random) -> list[tuple[int, int | None]]:
    """Every round's end, a handful of its steps (first, last, one past the
    last, a few between), and a round and step the fight never reached."""
    head = load_state(store, eid)
    steps: dict[int, int] = {}
    for rnd, step in _round_steps(list(store.read(eid))):
        steps[rnd] = max(step, steps.get(rnd, 0))
    out: list[tuple[int, int | None]] = []
    for rnd in range(0, head.round + 2):
        last = steps.get(rnd, 0)
        out.append((rnd, None))
        chosen = {0, 1, last, last + 1} | {rng.randint(0, last + 1) for _ in range(3)}
        out += [(rnd, s) for s in sorted(chosen)]
    return out


def _round_steps(records):
    from affray.projections.evolve import evolve
    from affray.projections.state import State
    from affray.projections.timeline import Timeline

    state = State()
    for rec in Timeline(records).live_records():
        state = evolve(state, rec)
        yield state.round, state.step


class Counting:
    """A store that counts the events it reads (``read``, ``read_live`` and ``fold_rows``)."""

    def __init__(self, store: EventStore) -> None:
        self._store = store
        self.decoded = 0

    def __getattr__(self, name):
        return getattr(self._store, name)

    def _count(self, it):
        for item in it:
            self.decoded += 1
            yield item

    def read(self, *args, **kwargs):
        return self._count(self._store.read(*args, **kwargs))

    def read_live(self, *args, **kwargs):
        return self._count(self._store.read_live(*args, **kwargs))

    def fold_rows(self, encounter_id, fold, **kwargs):
        return self._store.fold_rows(encounter_id, lambda rows, first: fold(self._count(rows), first), **kwargs)


# --------------------------------------------------------------------------- #
# the fast path agrees with state_at
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("seed", [1, 2, 3, 5, 8, 13])
def test_store_path_equals_state_at_on_generated_fights(seed):
    store, eid = generated_fight(seed)
    records = list(store.read(eid))
    assert any(isinstance(r.event, ev.CommandRetracted) for r in records), "no undo in this fight"
    assert any(isinstance(r.event, ev.RoundEnded) for r in records), "no round ended in this fight"
    rng = random.Random(seed)
    checked = 0
    for rnd, step in points(store, eid, rng):
        expected = outcome(state_at, records, rnd, step)
        got = outcome(state_at_store, store, eid, rnd, step)
        assert got == expected, f"seed {seed}, --at {rnd}{'' if step is None else f'.{step}'}"
        checked += not isinstance(expected, str)
    assert checked > 10


def test_round_end_version_is_the_live_round_ended_event():
    store, eid = generated_fight(21, undo=0.0, redo=0.0)
    records = list(store.read(eid))
    ends = {r.event.round: r.version for r in records if isinstance(r.event, ev.RoundEnded)}
    assert ends
    for rnd, version in ends.items():
        assert round_end_version(store, eid, rnd) == version
        assert state_at_store(store, eid, rnd).version == version
    assert round_end_version(store, eid, max(ends) + 5) is None


def test_store_path_reads_one_round_not_the_log():
    store, eid = generated_fight(34, commands=400, undo=0.05, redo=0.02)
    records = list(store.read(eid))
    ended = [r.event.round for r in records if isinstance(r.event, ev.RoundEnded)]
    assert len(ended) >= 4
    rnd = ended[len(ended) // 2]
    for step in (None, 0, 2):
        counting = Counting(store)
        assert state_at_store(counting, eid, rnd, step) == outcome(state_at, records, rnd, step)
        assert counting.decoded < len(records) // 2, (step, counting.decoded, len(records))


def test_an_undone_round_end_is_skipped_for_the_live_one():
    """Round 1 ends, the end is undone and the round is played on and ended
    again: the live round-ended event is the second one."""
    store, eid = generated_fight(55, commands=0)
    while load_state(store, eid).round < 2:
        assert auto(store, eid)
    run(store, eid, cmd.Undo())  # the end-round command: round 1 is open again
    assert load_state(store, eid).round == 1
    for _ in range(2):
        assert auto(store, eid)
    while load_state(store, eid).round < 2:
        assert auto(store, eid)
    records = list(store.read(eid))
    ends = [r for r in records if isinstance(r.event, ev.RoundEnded) and r.event.round == 1]
    assert len(ends) == 2
    assert round_end_version(store, eid, 1) == ends[1].version
    for step in (None, 0, 1, 2, 3):
        assert outcome(state_at_store, store, eid, 1, step) == outcome(state_at, records, 1, step)


def test_a_redo_after_the_point_of_a_command_before_it_falls_back():
    """Undo back over the end of round 1, then redo it: the meta events after
    the round's end touch the command that ended it, so the log cut there is
    not the whole log's past. The answer still matches state_at."""
    store, eid = generated_fight(89, commands=0)
    while load_state(store, eid).round < 2:
        assert auto(store, eid)
    for _ in range(3):
        assert auto(store, eid)
    undone = 0
    while load_state(store, eid).round >= 2:
        run(store, eid, cmd.Undo())
        undone += 1
    for _ in range(undone):
        run(store, eid, cmd.Redo())
    records = list(store.read(eid))
    end = next(r.version for r in records if isinstance(r.event, ev.RoundEnded) and r.event.round == 1)
    assert round_end_version(store, eid, 1) is None  # the shortcut steps aside
    assert state_at_store(store, eid, 1) == state_at(records, 1)
    assert state_at_store(store, eid, 1).version == end
    for rnd, step in [(1, 0), (1, 2), (2, 0), (2, 1), (2, 9), (3, None)]:
        assert outcome(state_at_store, store, eid, rnd, step) == outcome(state_at, records, rnd, step)


@pytest.mark.parametrize("seed", [3, 8])
def test_touched_after_decides_by_command_numbers_and_falls_back_for_others(seed, monkeypatch):
    """Whether an undo or redo after a version touches a command with an
    event at or before it: decided by the command's number (``c<first
    version>``, checked by a lookup) without walking the log, and by the
    walk for an id that does not follow the rule; both the brute answer."""
    store, eid = generated_fight(seed)
    records = list(store.read(eid))
    metas = store.read_meta(eid)
    first_of: dict[str, int] = {}
    for r in records:
        first_of.setdefault(r.command_id, r.version)

    def brute(version: int) -> bool:
        targets = {m.event.command_id for m in metas if m.version > version and hasattr(m.event, "command_id")}
        return any(first_of[c] <= version for c in targets)

    walks = []
    real_walk = store.any_command_up_to
    monkeypatch.setattr(store, "any_command_up_to", lambda *a: walks.append(a) or real_walk(*a))
    versions = range(1, store.version(eid) + 1, 3)
    assert {travel_mod._touched_after(store, eid, metas, v) for v in versions} == {True, False}
    assert all(travel_mod._touched_after(store, eid, metas, v) == brute(v) for v in versions)
    assert walks == []  # every command id here is c<its first version>
    monkeypatch.setattr(store, "starts_command", lambda *a: False)  # as for ids imported under other names
    assert all(travel_mod._touched_after(store, eid, metas, v) == brute(v) for v in versions)
    assert walks


def test_a_rewound_log_uses_the_full_replay():
    store, eid = generated_fight(144, commands=0)
    while load_state(store, eid).round < 3:
        assert auto(store, eid)
    records = list(store.read(eid))
    end_of_one = next(r.version for r in records if isinstance(r.event, ev.RoundEnded) and r.event.round == 1)
    head = store.version(eid)
    store.append(eid, head, [ev.EncounterRewound(to_version=end_of_one + 3)], command_id=f"c{head + 1}", actor="test")
    records = list(store.read(eid))
    assert round_end_version(store, eid, 1) is None
    for rnd, step in [(1, None), (1, 1), (2, None), (2, 0), (3, None)]:
        assert outcome(state_at_store, store, eid, rnd, step) == outcome(state_at, records, rnd, step)


def test_setup_and_unknown_points():
    store, eid = generated_fight(233, commands=30, undo=0.1, redo=0.05)
    records = list(store.read(eid))
    for rnd, step in [(0, None), (0, 0), (0, 1), (0, 2), (0, 3), (0, 9), (99, None), (99, 0), (1, 999)]:
        assert outcome(state_at_store, store, eid, rnd, step) == outcome(state_at, records, rnd, step)
    with pytest.raises(LookupError, match="no round 99"):
        state_at_store(store, eid, 99)


def test_parse_point():
    assert parse_point("3") == (3, None)
    assert parse_point(" 1.2 ") == (1, 2)
    for bad in ("x", "1.x", "-1", "1.-2", ""):
        with pytest.raises(ValueError):
            parse_point(bad)
