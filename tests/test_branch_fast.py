"""Branch builds the new encounter without the write lock and gives what
the whole-log branch gave, event for event (issue 17: a branch of a
100,000-event log held the lock for 2.5 s).

- Property (hypothesis): a fight with undos, redos, rewinds, salts and
  notes, branched from now, at a version or at ``ROUND.STEP``: the branch's
  rows (versions, command ids, types, data, times, actors, hashes), its
  snapshot, the outcome and every refusal are those of the branch as it was
  built before (:func:`reference_branch`, the earlier code kept here as the
  oracle: every record decoded, one ``append`` per copied command inside
  one transaction, then a full replay).
- The lock is free while the branch is built: a note typed meanwhile gets
  in at once; then a branch from now refuses with a conflict (exit 3) and
  writes nothing, and so does any branch whose new id was taken meanwhile;
  a branch at a version is not disturbed by a write to the origin.
"""

from __future__ import annotations

import random
from typing import Iterable

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from affray.commands import travel
from affray.commands.amend import scratch_copy
from affray.commands.core import Outcome
from affray.commands.demo import next_command, setup, table_dice
from affray.commands.handler import execute
from affray.commands.points import command_points, stream_of
from affray.commands.travel import _chosen_version, new_encounter_id
from affray.errors import AffrayError
from affray.events import commands as cmd
from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.projections.snapshots import dump, load_state
from affray.projections.state import State
from affray.projections.timeline import Timeline
from affray.rules.base import RuleError
from affray.store import EventStore
from affray.store.errors import ConflictError

from backends import backend  # noqa: F401 - a fixture used by name

NOW = "2026-11-24T12:00:00.000000Z"


# --------------------------------------------------------------------------- #
# the oracle: the branch as it was built before issue 17's second round
# --------------------------------------------------------------------------- #


def _remap(e: ev.Event, vmap: dict[int, int]) -> ev.Event:
    def new(v: int) -> int:
        if v in vmap:
            return vmap[v]
        below = [k for k in vmap if k < v]
        return vmap[max(below)] if below else v

    if isinstance(e, ev.ConditionApplied) and e.condition.cause:
        return msgspec.structs.replace(e, condition=msgspec.structs.replace(e.condition, cause=new(e.condition.cause)))
    if isinstance(e, ev.DiceRolled) and e.supersedes:
        return msgspec.structs.replace(e, supersedes=new(e.supersedes))
    return e


def _batches(records: Iterable[Recorded]) -> list[list[Recorded]]:
    out: list[list[Recorded]] = []
    for rec in records:
        if out and out[-1][0].command_id == rec.command_id:
            out[-1].append(rec)
        else:
            out.append([rec])
    return out


def _copied(records, live) -> list[list]:
    live_batches = {b[0].command_id: b for b in _batches(live)}
    out: list[list] = []
    for batch in _batches(records):
        kept = live_batches.pop(batch[0].command_id, None)
        if kept is not None:
            if not any(isinstance(r.event, ev.EncounterOpened) for r in kept):
                out.append(kept)
            continue
        salts = [r for r in batch if isinstance(r.event, ev.SaltAdded)]
        if salts:
            out.append(salts)
    return out


def reference_branch(store, command: cmd.BranchEncounter, *, origin: str, actor: str = "") -> Outcome:
    """The branch of the whole log, as ``affray.commands.travel.branch`` built it before."""
    records = list(store.read(origin))
    head = records[-1].version if records else 0
    tl = Timeline(records)
    name = command.name.strip()
    if not name:
        raise RuleError("a branch needs a name: affray branch \"what if\" --at 1.2")
    version = _chosen_version(records, tl, command.at_point, command.at_version, "--at")
    if version is None:
        version = head
    prefix = Timeline(records[:version])
    live = list(prefix.live_records())
    closed = next((r for r in live if isinstance(r.event, ev.EncounterClosed)), None)
    if closed is not None:
        raise RuleError(
            f"{origin} was closed at version {closed.version}; branch at an earlier point (--version {closed.version - 1})"
        )
    opened = next((r.event for r in records if isinstance(r.event, ev.EncounterOpened)), None)
    if opened is None:
        raise RuleError(f"{origin} has no opening event to branch from")
    seed = store.get_seed(origin)
    if seed is None and not opened.manual_dice:
        raise RuleError(f"the dice seed of {origin} is not in {store.path}; a branch needs it to roll engine dice")
    new_id = new_encounter_id(store, command.encounter_id or name, bool(command.encounter_id))
    stream = stream_of(records, origin)
    pts = command_points(records[:version], prefix)
    at = pts[-1].end if pts else (0, 0)
    batches = _copied(records[:version], live)
    live_ids = {r.command_id for r in live}
    salts = sum(1 for b in batches if b[0].command_id not in live_ids)
    issued = ev.CommandIssued(
        command=msgspec.to_builtins(
            msgspec.structs.replace(
                command, origin=origin, at_version=version, dice_stream=stream, encounter_id=new_id, name=name
            )
        )
    )
    note = ev.NoteAdded(
        text=f"Branch of {origin} at round {at[0]}, step {at[1]} (version {version}): "
        f"{sum(1 for b in batches if b[0].command_id in live_ids)} commands copied"
        + (f", {salts} salts of commands undone or rewound away" if salts else "")
        + f"; engine dice follow {stream}'s seed"
    )
    opening = ev.EncounterOpened(
        encounter_id=new_id, name=name, system=opened.system, seed_sha256=opened.seed_sha256,
        manual_dice=opened.manual_dice, rulings=dict(opened.rulings), dice_stream=stream, chain=2,
    )
    with store.transaction():
        if seed is not None:
            store.put_seed(new_id, seed)
        first = store.append(new_id, 0, [opening, issued, note], command_id="c1", actor=actor or "gm")
        at_version = len(first)
        vmap: dict[int, int] = {}
        for batch in batches:
            for i, rec in enumerate(batch):
                vmap[rec.version] = at_version + 1 + i
            events = [_remap(rec.event, vmap) for rec in batch]
            store.append(new_id, at_version, events, command_id=f"c{at_version + 1}", actor=batch[0].actor,
                         recorded_at=batch[0].recorded_at)
            at_version += len(events)
        state = load_state(store, new_id, use_snapshots=False)
        store.save_snapshot(new_id, state.version, dump(state, store.head(new_id)[1]))
    return Outcome(encounter_id=new_id, records=first, before=State(), state=state, notes=[note.text])


# --------------------------------------------------------------------------- #
# a fight with every kind of time travel
# --------------------------------------------------------------------------- #


def play(store: EventStore, rng: random.Random, steps: int, closing: bool = True) -> tuple[str, list[int]]:
    """Play the demo duel with undos, redos, rewinds, salts and notes, and
    now and then close it; return its id and the head after each command
    (every one a boundary)."""
    eid = setup(store, seed=rng.randbytes(16), actor="gm", manual=rng.random() < 0.2)
    heads = [store.version(eid)]
    for _ in range(steps):
        state = load_state(store, eid)
        roll = rng.random()
        if roll < 0.08:
            command, dice = cmd.Undo(), ""
        elif roll < 0.12:
            command, dice = cmd.Redo(), ""
        elif roll < 0.16:
            command, dice = cmd.Rewind(to_version=rng.choice(heads)), ""
        elif roll < 0.19:
            command, dice = cmd.AddSalt(value=f"salt {rng.random()}"), ""
        elif roll < 0.22:
            command, dice = cmd.AddNote(text="a note", secret=rng.random() < 0.5), ""
        else:
            command = next_command(state)
            if command is None:
                break
            dice = table_dice(state, rng) if state.manual_dice or rng.random() < 0.3 else ""
        try:
            execute(store, command, encounter_id=eid, dice=dice, actor=rng.choice(["gm", "sam"]))
        except AffrayError:
            continue
        heads.append(store.version(eid))
    if closing and rng.random() < 0.2:  # a closed fight: a branch at its end is refused, before it is not
        execute(store, cmd.CloseEncounter(reason="over"), encounter_id=eid, actor="gm")
        heads.append(store.version(eid))
    return eid, heads


def envelope(store, eid: str) -> list[tuple]:
    """Every stored row of ``eid`` but its global ``seq``."""
    return [row[1:] for row in store.read_raw(eid)]


def both(store, eid: str, command: cmd.BranchEncounter):
    """``(new, old)``: the outcome (or the refusal) and the stored branch of
    this code and of the oracle, each on its own copy of the encounter."""
    out = []
    for fn in (travel.branch, reference_branch):
        copy = scratch_copy(store, eid)
        try:
            try:
                result = fn(copy, command, origin=eid, actor="ann")
            except RuleError as exc:
                out.append(("refused", str(exc)))
                continue
            new = result.encounter_id
            out.append((
                [(r.version, r.command_id, r.type, r.schema, r.event, r.recorded_at, r.actor, r.hash)
                 for r in result.records],
                result.state, result.notes, envelope(copy, new), copy.snapshots(new), copy.get_seed(new),
                copy.verify(new),
            ))
        finally:
            copy.close()
    return out


@pytest.fixture
def fixed_clock(monkeypatch):
    """Both builds stamp their first command with the same time."""
    import affray.store.sqlite

    monkeypatch.setattr(affray.store.sqlite, "utc_now", lambda: NOW)
    monkeypatch.setattr(travel, "utc_now", lambda: NOW)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 70), where=st.floats(0, 1), how=st.sampled_from(
    ["now", "version", "point", "round", "inside", "bad"]))
def test_the_branch_is_the_one_the_whole_log_gave(fixed_clock, seed, steps, where, how):
    rng = random.Random(seed)
    with EventStore(":memory:") as store:
        eid, heads = play(store, rng, steps)
        records = list(store.read(eid))
        points = command_points(records, Timeline(records))
        name = rng.choice(["what if", "  what if she dodged  "])
        if how == "now":
            command = cmd.BranchEncounter(name=name)
        elif how == "version":
            command = cmd.BranchEncounter(name=name, at_version=heads[min(len(heads) - 1, int(where * len(heads)))])
        elif how in ("point", "round"):
            p = points[min(len(points) - 1, int(where * len(points)))]
            text = p.label if how == "point" else str(p.label.split(".")[0])
            command = cmd.BranchEncounter(name=name, at_point=text, encounter_id="w-1")
        elif how == "inside":  # not a command boundary, or past the head: refused alike
            command = cmd.BranchEncounter(name=name, at_version=1 + int(where * (store.version(eid) + 2)))
        else:
            command = rng.choice([cmd.BranchEncounter(name=" "), cmd.BranchEncounter(name=name, at_point="x"),
                                  cmd.BranchEncounter(name=name, at_point="1.1", at_version=3),
                                  cmd.BranchEncounter(name=name, at_point="999.1")])
        new, old = both(store, eid, command)
        assert new == old
        if new[0] != "refused":
            assert new[-1] == []  # the branch verifies


def test_a_branch_at_a_version_in_a_long_log_copies_what_the_whole_log_gives(fixed_clock):
    with EventStore(":memory:") as store:
        eid, heads = play(store, random.Random(7), 400, closing=False)
        for at in (heads[len(heads) // 3], heads[-1], 0):
            new, old = both(store, eid, cmd.BranchEncounter(name="long", at_version=at))
            assert new == old and new[0] != "refused"


def test_the_branch_is_the_same_on_every_backend(backend, fixed_clock):  # noqa: F811
    """SQLite and PostgreSQL (``append_rows`` of rows chained before the
    lock) store the branch the oracle builds on a copy in memory."""
    with backend.open() as store:
        eid, heads = play(store, random.Random(11), 80, closing=False)
        command = cmd.BranchEncounter(name="what if", at_version=heads[len(heads) // 2])
        copy = scratch_copy(store, eid)
        try:
            old = reference_branch(copy, command, origin=eid, actor="ann")
            new = execute(store, command, encounter_id=eid, actor="ann")
            assert envelope(store, new.encounter_id) == envelope(copy, old.encounter_id)
            assert store.snapshots(new.encounter_id) == copy.snapshots(old.encounter_id)
            assert new.state == old.state == load_state(store, new.encounter_id)
            assert store.verify(new.encounter_id) == []
        finally:
            copy.close()


# --------------------------------------------------------------------------- #
# the write lock, and conflicts
# --------------------------------------------------------------------------- #


def fight_file(path) -> str:
    with EventStore(path) as store:
        eid, _ = play(store, random.Random(3), 60, closing=False)
    return eid


def someone_writes_while_built(monkeypatch, write):
    """Run ``write()`` (another connection) once the branch is being built."""
    real = travel._built

    def built_then_write(*args, **kwargs):
        out = real(*args, **kwargs)
        write()
        return out

    monkeypatch.setattr(travel, "_built", built_then_write)


def test_a_note_typed_while_the_branch_is_built_gets_in_then_a_branch_from_now_refuses(tmp_path, monkeypatch):
    path = tmp_path / "fight.db"
    eid = fight_file(path)
    typed = []

    def note():
        with EventStore(path, busy_timeout_ms=0) as other:  # no waiting: the lock must be free
            typed.append(execute(other, cmd.AddNote(text="typed meanwhile"), encounter_id=eid, actor="gm"))

    someone_writes_while_built(monkeypatch, note)
    with EventStore(path) as store:
        before, ids = envelope(store, eid), store.encounter_ids()
        with pytest.raises(ConflictError) as err:
            execute(store, cmd.BranchEncounter(name="what if"), encounter_id=eid, actor="gm")
        assert err.value.exit_code == 3 and err.value.encounter_id == eid
        assert envelope(store, eid) == before + [r[1:] for r in store.read_raw(eid, from_version=len(before) + 1)]
        assert len(typed) == 1 and store.version(eid) == len(before) + len(typed[0].records)
        assert store.encounter_ids() == ids and store.snapshots("what-if") == []  # nothing of the branch


def test_a_branch_at_a_version_is_not_disturbed_by_a_write_to_its_origin(tmp_path, monkeypatch):
    path = tmp_path / "fight.db"
    eid = fight_file(path)

    def note():
        with EventStore(path, busy_timeout_ms=0) as other:
            execute(other, cmd.AddNote(text="typed meanwhile"), encounter_id=eid, actor="gm")

    someone_writes_while_built(monkeypatch, note)
    with EventStore(path) as store:
        at = store.version(eid)
        out = execute(store, cmd.BranchEncounter(name="what if", at_version=at), encounter_id=eid, actor="gm")
        assert store.version(eid) > at and out.encounter_id == "what-if"
        assert load_state(store, "what-if") == out.state and store.verify("what-if") == []


def test_a_branch_whose_id_was_taken_meanwhile_refuses_with_nothing_written(tmp_path, monkeypatch):
    path = tmp_path / "fight.db"
    eid = fight_file(path)

    def take_the_id():
        with EventStore(path, busy_timeout_ms=0) as other:
            execute(other, cmd.OpenEncounter(name="Another table", system="mrq1", encounter_id="what-if"), actor="gm")

    someone_writes_while_built(monkeypatch, take_the_id)
    with EventStore(path) as store:
        with pytest.raises(ConflictError) as err:
            execute(store, cmd.BranchEncounter(name="what if", at_version=store.version(eid)), encounter_id=eid,
                    actor="gm")
        assert err.value.exit_code == 3 and err.value.encounter_id == "what-if"
        assert store.version("what-if") == 1 and store.snapshots("what-if") == []  # the other table's, alone
        assert [r.event.name for r in store.read("what-if")] == ["Another table"]
