"""rolemaster and the invariants (DESIGN.md 2, 3, 4): after any sequence of
commands the fold of the log equals the state the commands left, with and
without snapshots; a refused command appends nothing; undo restores."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from affray.commands.demo import next_command, setup
from affray.commands.handler import execute
from affray.events import commands as cmd
from affray.projections.snapshots import load_state
from affray.projections.timeline import Timeline, project
from affray.rules.base import RuleError
from affray.store import EventStore


def alternatives(state, store, eid) -> list[cmd.Command]:
    """Other legal-looking commands for the first pending step."""
    out: list[cmd.Command] = []
    if state.pending and state.phase not in ("over", "closed"):
        step = state.pending[0]
        if step.kind == "react":
            out += [cmd.ChooseReaction(defender=step.who, reaction=r) for r in step.options if r != "parry"]
            out.append(cmd.ChooseReaction(defender=step.who, reaction="parry:15"))
        elif step.kind == "turn":
            out += [cmd.TakeAction(who=step.who, action=a) for a in ("pass", "parry 10", "stand", "orientation")]
            foes = [h for h, c in state.combatants.items() if c.side != state.combatants[step.who].side]
            out += [cmd.DeclareAttack(attacker=step.who, target=foes[0], situations=("ap=2",))]
    if len(Timeline(store.read(eid)).live_commands()) > 3:
        out.append(cmd.Undo())
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.binary(min_size=4, max_size=8), data=st.data())
def test_fold_equals_state_for_any_commands(seed, data):
    store = EventStore(":memory:")
    eid = setup(store, "rolemaster-duel", seed=seed, allow_short_seed=True, actor="test")
    state = load_state(store, eid)
    for _ in range(data.draw(st.integers(5, 40), label="steps")):
        alts = alternatives(state, store, eid)
        pick = data.draw(st.integers(0, 2 * len(alts)), label="pick")
        command = alts[pick] if pick < len(alts) else next_command(state)
        if command is None:
            break
        before = store.version(eid)
        try:
            out = execute(store, command, encounter_id=eid, actor="test")
        except RuleError:
            assert store.version(eid) == before  # refused: nothing appended
            continue
        state = out.state
        projected = project(list(store.read(eid)))
        assert state == projected
        assert load_state(store, eid, use_snapshots=False) == projected
