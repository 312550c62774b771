"""A branch plus the rest of the commands is the original fight.

Property (hypothesis): play a fight (the demo duel; each command the
autoplay's choice, its dice typed at the table or rolled by the engine, now
and then an undo, a redo or a secret note), recording each command with the
dice it was given. Branch at a random command boundary with
``execute(BranchEncounter(at_version=...))`` and issue the remaining commands
on the branch, with the same table dice (engine dice are not given: the
branch shares the seed and the dice stream, so it derives the same rolls).
The branch's final state is the original's, but for what must differ: the
encounter's id and name, log versions (the branch's log has its own opening
events) and command ids.
"""

from __future__ import annotations

import random

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from affray.events import commands as cmd
from affray.commands.handler import execute
from affray.commands.demo import next_command, setup, table_dice
from affray.errors import AffrayError
from affray.projections.snapshots import load_state
from affray.projections.timeline import project
from affray.store import EventStore

#: State fields that name the encounter, or hold log versions or command ids.
_TOP = {"encounter_id", "name", "dice_stream", "version", "last_command"}


def _normal(value, *, top: bool = False):
    """``value`` (a state as builtins) without ids, versions and names."""
    if isinstance(value, dict):
        return {
            k: _normal(v)
            for k, v in value.items()
            if not (top and k in _TOP) and not k.endswith("version") and k not in ("cause", "command_id")
        }
    if isinstance(value, (list, tuple)):
        return [_normal(v) for v in value]
    return value


def normal(state) -> dict:
    return _normal(msgspec.to_builtins(state), top=True)


def play(store: EventStore, rng: random.Random, steps: int) -> tuple[str, list[tuple[cmd.Command, str, str]], list[int]]:
    """The fight: ``(encounter id, [(command, dice, actor)], versions)``;
    ``versions[k]`` is the head after the first ``k`` commands."""
    eid = setup(store, seed=rng.randbytes(8), allow_short_seed=True, actor="gm")
    issued: list[tuple[cmd.Command, str, str]] = []
    versions = [store.version(eid)]
    undone = 0
    for _ in range(steps):
        state = load_state(store, eid)
        roll = rng.random()
        if roll < 0.08:
            tries = [(cmd.Undo(), "")]
        elif roll < 0.12 and undone:
            tries = [(cmd.Redo(), "")]
        elif roll < 0.16:
            tries = [(cmd.AddNote(text=f"note {len(issued)}", secret=rng.random() < 0.5), "")]
        else:
            command = next_command(state)
            if command is None:
                break
            typed = table_dice(state, rng) if rng.random() < 0.5 else ""
            # right after an undo, typed dice must repeat the undone ones: fall back to the engine
            tries = [(command, typed), (command, "")] if typed else [(command, "")]
        for command, dice in tries:
            actor = rng.choice(["gm", "sam"])
            try:
                execute(store, command, encounter_id=eid, dice=dice, actor=actor)
            except AffrayError:
                continue
            issued.append((command, dice, actor))
            versions.append(store.version(eid))
            undone = undone + 1 if isinstance(command, cmd.Undo) else undone - 1 if isinstance(command, cmd.Redo) else 0
            break
    return eid, issued, versions


def _redo_safe(rest: list[tuple[cmd.Command, str, str]]) -> bool:
    """Whether every redo in ``rest`` restores an undo made in ``rest``
    (a branch starts with no undo to redo)."""
    balance = 0
    for command, _, _ in rest:
        if isinstance(command, cmd.Undo):
            balance += 1
        elif isinstance(command, cmd.Redo):
            balance -= 1
            if balance < 0:
                return False
        else:
            balance = 0
    return True


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 60), where=st.floats(0, 1))
def test_branch_plus_the_remaining_commands_equals_the_original(seed, steps, where):
    rng = random.Random(seed)
    store = EventStore(":memory:")
    eid, issued, versions = play(store, rng, steps)
    points = [k for k in range(len(issued) + 1) if _redo_safe(issued[k:])]
    k = points[min(len(points) - 1, int(where * len(points)))]
    out = execute(store, cmd.BranchEncounter(name="what if", at_version=versions[k]), encounter_id=eid, actor="gm")
    branch = out.encounter_id
    assert branch != eid
    for command, dice, actor in issued[k:]:
        execute(store, command, encounter_id=branch, dice=dice, actor=actor)
    original, copy = load_state(store, eid), load_state(store, branch)
    assert copy.encounter_id == branch and copy.dice_stream == eid
    assert normal(copy) == normal(original)
    assert project(store.read(branch)) == copy  # and the branch's log replays to it
    # the same rolls, in the same order, from the same sources
    rolls = lambda e: [  # noqa: E731
        (r.event.expr, r.event.faces, r.event.source, r.event.index)
        for r in project_live(store, e)
        if r.type == "dice-rolled"
    ]
    assert rolls(branch) == rolls(eid)


def project_live(store: EventStore, eid: str):
    from affray.projections.timeline import Timeline

    return list(Timeline(store.read(eid)).live_records())
