"""uesrpg fights as a hypothesis property (DESIGN.md invariants 2 and 3):
whatever defences, Advantages and undos the table picks, the fold of all
events equals the state the commands maintained, an undo restores the
state before, and a redo brings the undone one back."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from affray.commands.demo import setup
from affray.commands.demo_uesrpg import next_command
from affray.commands.handler import execute
from affray.events import commands as cmd
from affray.projections.snapshots import load_state
from affray.projections.timeline import project
from affray.store import EventStore


def choices(state) -> list[cmd.Command]:
    """The autopilot's command and every other legal answer to the first step."""
    auto = next_command(state)
    out = [auto] if auto is not None else []
    if not state.pending or state.phase in ("over", "closed"):
        return out
    step = state.pending[0]
    if step.kind in ("react", "opportunity"):
        out += [cmd.ChooseReaction(defender=step.who, reaction=r) for r in step.options]
    elif step.kind == "advantage":
        out += [cmd.MakeChoice(who=step.who, option=o) for o in step.options
                if o not in ("precision-strike", "special-advantage")]
        out.append(cmd.MakeChoice(who=step.who, option="special-advantage:Disarm"))
    elif step.kind == "turn":
        out.append(cmd.TakeAction(who=step.who, action="pass"))
        me = state.combatants[step.who]
        if me.engaged:
            out.append(cmd.TakeAction(who=step.who, action="move 2"))
    elif step.kind == "evade-move":
        out.append(cmd.MakeChoice(who=step.who, option="move"))
    return out


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(min_size=2, max_size=8), st.lists(st.integers(min_value=0, max_value=9), min_size=60, max_size=60))
def test_any_uesrpg_fight_replays_to_its_state(seed, picks):
    store = EventStore(":memory:")
    eid = setup(store, "uesrpg-duel", seed=seed, allow_short_seed=True, actor="test")
    state = load_state(store, eid)
    for n, pick in enumerate(picks):
        options = choices(state)
        if not options:
            break
        before = state
        out = execute(store, options[pick % len(options)], encounter_id=eid, actor="test")
        state = out.state
        assert project(store.read(eid)) == state
        if n % 7 == 3:  # undo restores the state before; redo brings the command back
            undone = execute(store, cmd.Undo(), encounter_id=eid, actor="test").state
            assert replace(undone, version=0, last_command="", step=0) == replace(before, version=0, last_command="", step=0)
            state = execute(store, cmd.Redo(), encounter_id=eid, actor="test").state
            assert project(store.read(eid)) == state
    assert load_state(store, eid) == state
    assert store.verify(eid) == []
