"""Rewind, branch and amend (DESIGN.md "Undo, redo, rewind, branch, amend";
invariants 1, 4, 7, 8), from Python and through the CLI.

- (a) rewinding to any command boundary of a generated fight (engine dice,
  random choices, undos and redos) gives exactly the state of the log cut at
  that version, keeps every row, and replays the same;
- (b) engine dice after a rewind re-derive the same values; table dice right
  after a rewind are guarded like after an undo;
- (c) a branch copies the live prefix with the same seed and dice stream and
  leaves the original's rows byte-identical;
- (d) amend with --replay on the golden duel: the changed outcome, the later
  commands with the same dice, and a clear stop when one no longer fits;
- (e) every verb: one-line errors, exit 2, nothing appended; Example in --help.

(Undo then redo being the identity is tests/test_replay.py's.)
"""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from affray.verify import verify_encounter
from affray.cli import travel as cli_travel
from affray.cli.app import app
from affray.events import commands as cmd
from affray.commands.handler import execute
from affray.commands.amend import amend
from affray.commands.points import command_points
from affray.rules.base import to_command
from affray.projections.snapshots import load_state
from affray.commands.demo import next_command, setup
from affray.dice import DiceError
from affray.events import core as ev
from affray.projections.snapshots import load_state
from affray.projections.state import State
from affray.projections.timeline import Timeline, project
from affray.projections.travel import state_at
from affray.rules.base import RuleError
from affray.store import EventStore

from conftest import assert_user_error
from test_golden import SCRIPT, open_duel

cli_travel.register(app)  # the lead adds it to cli/app.py; registering is idempotent

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #


def run(store, eid, command, dice: str = "", **kw):
    return execute(store, command, encounter_id=eid, dice=dice, actor="test", **kw)


def same_but_version(a: State, b: State) -> bool:
    return replace(a, version=0) == replace(b, version=0)


def rows(store, eid) -> list[tuple]:
    return list(store.read_raw(eid))


def dice_of(records) -> list[tuple]:
    return [
        (e.purpose, e.expr, e.faces, e.total, e.source, e.index)
        for e in (r.event for r in records)
        if isinstance(e, ev.DiceRolled)
    ]


def _safe(store, eid, state: State) -> cmd.Command | None:
    """The autoplay's command, or Defend when the rules refuse its attack."""
    command = next_command(state)
    if isinstance(command, cmd.DeclareAttack):
        from affray.rules import base

        class Stop(Exception):
            pass

        class NoDice:
            def roll(self, *a, **k):
                raise Stop

        try:
            base.get(state.system).decide(state, command, NoDice())
        except RuleError:
            return cmd.TakeAction(who=command.attacker, action="defend")
        except Stop:
            pass
    return command


def generated_fight(seed: bytes, rng: random.Random, steps: int) -> tuple[EventStore, str]:
    """The example duel with engine dice: the autoplay's choices mixed with
    other legal ones, undos, redos and notes."""
    store = EventStore(":memory:")
    eid = setup(store, "duel", seed=seed, allow_short_seed=True, actor="test")
    state = load_state(store, eid)
    for _ in range(steps):
        roll = rng.random()
        tl = Timeline(store.read(eid))
        try:
            if roll < 0.12 and len(tl.live_commands()) > 3:
                state = run(store, eid, cmd.Undo()).state
                continue
            if roll < 0.18 and tl.redo_stack:
                state = run(store, eid, cmd.Redo()).state
                continue
            if roll < 0.22:
                state = run(store, eid, cmd.AddNote(text=f"at {state.version}")).state
                continue
            command = _safe(store, eid, state)
            if command is None:
                break
            if roll < 0.4 and state.pending:
                step = state.pending[0]
                if step.kind == "react":
                    command = cmd.ChooseReaction(defender=step.who, reaction=rng.choice([o for o in step.options if o != "parry"] or ["none"]))
                elif step.kind == "turn":
                    command = cmd.TakeAction(who=step.who, action=rng.choice(["defend", "pass"]))
            state = run(store, eid, command).state
        except RuleError:
            state = load_state(store, eid)
    return store, eid


def boundaries(records) -> list[int]:
    """Every version at a command boundary, below the head."""
    tl = Timeline(records)
    head = records[-1].version
    inside = {v for c in tl.commands for v in range(tl.first_version[c], tl.last_version[c])}
    return [v for v in range(1, head) if v not in inside]


# --------------------------------------------------------------------------- #
# (a) rewind = the log cut at that version
# --------------------------------------------------------------------------- #


@SETTINGS
@given(seed=st.binary(min_size=4, max_size=12), choice=st.integers(0, 10_000), steps=st.integers(8, 60), pick=st.integers(0, 10_000))
def test_rewind_gives_the_state_of_the_log_cut_at_that_version(seed, choice, steps, pick):
    store, eid = generated_fight(seed, random.Random(choice), steps)
    records = list(store.read(eid))
    points = boundaries(records)
    version = points[pick % len(points)]
    expected = load_state(store, eid, at_version=version)
    before_rows = rows(store, eid)
    try:
        out = run(store, eid, cmd.Rewind(to_version=version))
    except RuleError as exc:
        # only when nothing after the point counts any more
        assert "nothing to rewind" in str(exc)
        assert rows(store, eid) == before_rows
        return
    assert same_but_version(out.state, expected)
    assert out.state.pending == expected.pending and out.state.combatants == expected.combatants
    assert isinstance(out.records[-1].event, ev.EncounterRewound)
    # the log only grew, and everything reads back the same
    assert rows(store, eid)[: len(before_rows)] == before_rows
    everything = list(store.read(eid))
    assert project(everything) == out.state == load_state(store, eid) == load_state(store, eid, use_snapshots=False)
    # engine dice re-derive: the command that followed the point, issued again, rolls the same
    follower = next((r for r in records if r.version == version + 1), None)
    if follower is not None and isinstance(follower.event, ev.CommandIssued):
        again = run(store, eid, to_command(follower.event.command))
        original = [r for r in records if r.command_id == follower.command_id]
        assert dice_of(again.records) == dice_of(original)
    assert store.verify(eid) == []


def test_a_second_rewind_cannot_reach_a_point_rewound_away():
    store, eid = generated_fight(b"twice", random.Random(1), 0)
    state = load_state(store, eid)
    for _ in range(12):
        state = run(store, eid, _safe(store, eid, state)).state
    records = list(store.read(eid))
    middle = Timeline(records).last_version[command_points(records)[-6].command_id]
    run(store, eid, cmd.Rewind(to_version=middle - 5 if middle - 5 in boundaries(records) else boundaries(records)[3]))
    n = len(rows(store, eid))
    with pytest.raises(RuleError, match="rewound away"):
        run(store, eid, cmd.Rewind(to_version=middle))
    assert len(rows(store, eid)) == n


def test_rewind_to_a_step_equals_state_at_and_conditions_come_back():
    """--to ROUND.STEP is the point 'affray state --at' shows; conditions
    ended after it (Defend ending as its bearer acts again) come back."""
    store = EventStore(":memory:")
    eid = open_duel(store, manual=True)
    for command, dice in SCRIPT[:14]:  # through Vasana's Defend (round 1)
        run(store, eid, command, dice)
    state = load_state(store, eid)
    assert state.combatant("vasana").has("defending")
    for command, dice in SCRIPT[14:17]:  # end of round, re-test, round 2: Defend ends
        run(store, eid, command, dice)
    assert not load_state(store, eid).combatant("vasana").has("defending")
    records = list(store.read(eid))
    expected = state_at(records, 1, 13)
    out = run(store, eid, cmd.Rewind(to_point="1.13"))
    assert same_but_version(out.state, expected) and same_but_version(out.state, state)
    assert out.state.combatant("vasana").has("defending")
    assert out.state.pending[0].kind == "end-round"


def test_rewind_refusals_append_nothing():
    store = EventStore(":memory:")
    eid = open_duel(store, manual=True)
    for command, dice in SCRIPT[:4]:
        run(store, eid, command, dice)
    tl = Timeline(store.read(eid))
    cid = tl.commands[-1]
    n = len(rows(store, eid))
    bad = [
        (cmd.Rewind(), "--to"),
        (cmd.Rewind(to_version=tl.first_version[cid]), "inside command"),
        (cmd.Rewind(to_version=store.version(eid)), "nothing to rewind"),
        (cmd.Rewind(to_version=10_000), "--version takes"),
        (cmd.Rewind(to_point="9.1"), "no round 9"),
        (cmd.Rewind(to_point="1"), "has not ended"),
        (cmd.Rewind(to_point="x"), "ROUND"),
        (cmd.Rewind(to_point="1.1", to_version=3), "not both"),
    ]
    for command, fragment in bad:
        with pytest.raises(RuleError, match=fragment):
            run(store, eid, command)
        assert len(rows(store, eid)) == n
    with pytest.raises(RuleError, match="rolls no dice"):
        run(store, eid, cmd.Rewind(to_point="1.1"), "5")


# --------------------------------------------------------------------------- #
# (b) dice after a rewind
# --------------------------------------------------------------------------- #


def test_engine_dice_after_a_rewind_re_derive_the_same_values():
    store = EventStore(":memory:")
    eid = setup(store, "duel", seed=b"rewind dice", allow_short_seed=True, actor="test")
    state = load_state(store, eid)
    outs = []
    for _ in range(6):
        out = run(store, eid, _safe(store, eid, state))
        outs.append(out)
        state = out.state
    cut = outs[1].records[-1].version
    run(store, eid, cmd.Rewind(to_version=cut))
    for original in outs[2:]:
        command = to_command(original.records[0].event.command)
        again = run(store, eid, command)
        assert dice_of(again.records) == dice_of(original.records)
        assert [e.index for e in (r.event for r in again.records) if isinstance(e, ev.DiceRolled)] == [
            e.index for e in (r.event for r in original.records) if isinstance(e, ev.DiceRolled)
        ]


def test_table_dice_after_a_rewind_are_guarded_like_after_an_undo():
    store = EventStore(":memory:")
    eid = open_duel(store, manual=True)
    for command, dice in SCRIPT[:3]:  # start, Vasana attacks (40), Broo parries (30,50)
        run(store, eid, command, dice)
    run(store, eid, cmd.Rewind(to_point="1.1"))
    run(store, eid, cmd.AddNote(text="the GM thinks it over"))
    n = len(rows(store, eid))
    with pytest.raises(RuleError, match="30,50"):
        run(store, eid, SCRIPT[2][0], "90,50")
    assert len(rows(store, eid)) == n
    out = run(store, eid, SCRIPT[2][0], "90,50", reroll="the die rolled off the table")
    notes = [r.event.text for r in out.records if isinstance(r.event, ev.NoteAdded)]
    assert notes and "the die rolled off the table" in notes[-1]
    assert isinstance(out.records[0].event, ev.CommandIssued), "the record stays first; the note comes last"
    # the guard ends with the first command: the next one is free
    run(store, eid, cmd.RollPending(), "1,1,1")


def test_the_same_dice_after_a_rewind_need_no_reason():
    store = EventStore(":memory:")
    eid = open_duel(store, manual=True)
    for command, dice in SCRIPT[:3]:
        run(store, eid, command, dice)
    first = load_state(store, eid)
    run(store, eid, cmd.Rewind(to_point="1.1"))
    again = run(store, eid, SCRIPT[2][0], "30,50")
    assert same_but_version(again.state, first) or again.state.pending == first.pending


# --------------------------------------------------------------------------- #
# (c) branch
# --------------------------------------------------------------------------- #


def _played(seed=b"branching", commands=14):
    store = EventStore(":memory:")
    eid = setup(store, "duel", seed=seed, allow_short_seed=True, actor="test")
    state = load_state(store, eid)
    for _ in range(commands):
        state = run(store, eid, _safe(store, eid, state)).state
    return store, eid


def _comparable(s: State) -> dict:
    """A state without what a branch renumbers: ids and log versions."""
    data = msgspec.to_builtins(s)
    for key in ("encounter_id", "name", "version", "last_command", "dice_stream"):
        data.pop(key)
    for c in data["combatants"].values():
        c.pop("joined_version")
        for cond in c["conditions"]:
            cond.pop("cause")
    if data["exchange"]:
        data["exchange"].pop("declared_version")
    return data


def test_branch_copies_the_prefix_and_leaves_the_original_untouched():
    store, eid = _played()
    before = rows(store, eid)
    snaps = store.snapshots(eid)
    records = list(store.read(eid))
    point = command_points(records)[-4]
    expected = load_state(store, eid, at_version=point.last_version)
    out = run(store, eid, cmd.BranchEncounter(name="What if", at_point=point.label))
    new = out.encounter_id
    assert new == "what-if" and new != eid
    assert rows(store, eid) == before and store.snapshots(eid) == snaps  # byte-identical
    assert _comparable(out.state) == _comparable(expected)
    assert out.state.encounter_id == new and out.state.name == "What if"
    opened = next(store.read(new)).event
    original = next(store.read(eid)).event
    assert (opened.seed_sha256, opened.rulings, opened.system, opened.manual_dice) == (
        original.seed_sha256, original.rulings, original.system, original.manual_dice
    )
    assert store.get_seed(new) == store.get_seed(eid)
    assert load_state(store, new).dice_stream == eid and load_state(store, eid).dice_stream == ""
    # the copies keep the data: every copied roll is the original's
    assert dice_of(r for r in store.read(new)) == dice_of(
        r for r in Timeline(records[: point.last_version]).live_records()
    )
    assert verify_encounter(store, new, dice=True)[0] == []
    assert store.verify(new) == [] and store.verify() == []
    # engine dice go on as in the original: the next command rolls the same
    follower = next(p for p in command_points(records) if p.first_version > point.last_version)
    if follower.issued is not None:
        again = run(store, new, to_command(follower.issued.command))
        assert dice_of(again.records) == dice_of(follower.records)
    assert rows(store, eid) == before


def test_branch_of_a_log_with_undos_maps_versions_and_causes():
    store = EventStore(":memory:")
    eid = open_duel(store, manual=True)
    for command, dice in SCRIPT[:5]:
        run(store, eid, command, dice)
    run(store, eid, cmd.Undo())
    run(store, eid, cmd.Undo())
    for command, dice in SCRIPT[3:14]:
        run(store, eid, command, dice)
    head = load_state(store, eid)
    out = run(store, eid, cmd.BranchEncounter(name="copy", encounter_id="copy-1"))
    assert out.encounter_id == "copy-1"
    assert _comparable(out.state) == _comparable(head)
    records = {r.version: r for r in store.read("copy-1")}
    for c in out.state.combatants.values():
        for cond in c.conditions:  # every cause names an event of the branch, in the same command
            cause = records[cond.cause]
            applied = next(
                r for r in records.values()
                if isinstance(r.event, ev.ConditionApplied) and r.event.condition.id == cond.id and r.event.handle == c.handle
            )
            assert cause.command_id == applied.command_id
    # a branch of the branch follows the same dice stream
    run(store, "copy-1", cmd.BranchEncounter(name="copy of copy", at_point="1.1"))
    assert load_state(store, "copy-of-copy").dice_stream == eid
    with pytest.raises(RuleError, match="taken"):
        run(store, eid, cmd.BranchEncounter(name="again", encounter_id="copy-1"))


def test_branch_refusals_append_nothing():
    store, eid = _played(commands=4)
    ids = store.encounter_ids()
    n = len(rows(store, eid))
    tl = Timeline(store.read(eid))
    for command, fragment in [
        (cmd.BranchEncounter(name=" "), "needs a name"),
        (cmd.BranchEncounter(name="x", at_point="7.1"), "no round 7"),
        (cmd.BranchEncounter(name="x", at_version=tl.first_version[tl.commands[-1]]), "inside command"),
        (cmd.BranchEncounter(name="x", at_version=9999), "--version takes"),
        (cmd.BranchEncounter(name="x", encounter_id="bad id!"), "must be letters"),
    ]:
        with pytest.raises(RuleError, match=fragment):
            run(store, eid, command)
    assert store.encounter_ids() == ids and len(rows(store, eid)) == n
    run(store, eid, cmd.CloseEncounter())
    with pytest.raises(RuleError, match="closed at version"):
        run(store, eid, cmd.BranchEncounter(name="after"))
    # before the close, a finished fight can still be explored
    out = run(store, eid, cmd.BranchEncounter(name="before", at_version=store.version(eid) - 1))
    assert out.state.phase != "closed"


# --------------------------------------------------------------------------- #
# (d) amend, on the golden duel (tests/test_golden.py)
# --------------------------------------------------------------------------- #


@pytest.fixture
def golden():
    store = EventStore(":memory:")
    eid = open_duel(store, manual=True)
    outs = [run(store, eid, c, d) for c, d in SCRIPT]
    return store, eid, outs


def _events(outcome, kind):
    return [r.event for r in outcome.records if isinstance(r.event, kind)]


def test_amend_a_parry_penalty_turns_the_parry_into_a_failure_and_the_replay_stops(golden):
    """Step 1.2: Broo 1 parried 30 vs 45%. With −20 (he stands in the
    river) it is 30 vs 25%: a failure, so the Parry table reads
    success/failure and no AP is deducted. The damage (8+4, d20 11, chest)
    replays with its dice: 12 − armour 3 = 9, chest 7 → −2, a Serious
    Wound, whose roll is now due, so Broo 1's own attack (1.4) no longer
    fits: the replay stops there and says why."""
    store, eid, outs = golden
    parry = outs[2].records[0].command_id
    report = amend(
        store,
        cmd.AmendCommand(target="1.2", modifiers=(ev.Modifier(-20, "Broo stands in the river"),), replay=True),
        encounter_id=eid,
        actor="sam",
    )
    assert report.original == parry and report.rewound_to == outs[2].records[0].version - 1
    amended = next(o for o in report.outcomes if o.records[0].command_id == report.amended)
    tested = _events(amended, ev.SkillTested)[0]
    assert (tested.roll, tested.target, tested.result) == (30, 25, "failure")
    assert tested.modifiers == (ev.Modifier(-20, "Broo stands in the river"),)
    assert _events(amended, ev.ReactionResolved)[0].cell == "parry:success/failure"
    assert _events(amended, ev.NoteAdded)[-1].text.startswith(f"amend: {parry} (step 1.2) issued again")
    # the damage replayed with its recorded dice
    assert report.replayed == [(outs[3].records[0].command_id, report.outcomes[-1].records[0].command_id)]
    damage = report.outcomes[-1]
    assert [e.faces for e in _events(damage, ev.DiceRolled)] == [e.faces for e in _events(outs[3], ev.DiceRolled)]
    dealt = _events(damage, ev.DamageDealt)[0]
    assert (dealt.location, dealt.rolled, dealt.reduced, dealt.armour, dealt.final) == ("chest", 12, 0, 3, 9)
    assert _events(damage, ev.WoundInflicted)[0].severity == "serious"
    assert "replaying" in _events(damage, ev.NoteAdded)[-1].text
    # Broo 1's attack at 1.4 no longer fits
    attack = outs[4].records[0].command_id
    assert report.stopped.startswith(f"replay stopped at {attack} (attack broo1 vasana --dice 25, step 1.4): ")
    assert "waiting for something else" in report.stopped and "Serious Wound" in report.stopped
    assert report.left[0] == attack and len(report.left) == len(SCRIPT) - 4
    # the log is consistent: a valid history, every row kept
    state = load_state(store, eid)
    assert state == project(store.read(eid)) == report.state
    assert state.pending[0].kind == "wound"
    assert store.verify(eid) == []
    tl = Timeline(store.read(eid))
    assert all(tl.status(r.records[0].command_id) == "void" for r in outs[2:])


def test_amend_with_replay_plays_the_rest_of_the_fight_with_the_same_dice(golden):
    """Step 1.5: Vasana dodged Broo 1 with 10 vs 35% (a success; Broo's
    fresh roll 70 failed: Dodge failure/success, the attack fails). With
    +70 her skill is 105%, so 10 is a critical (≤ 10): Dodge
    failure/critical, 'Attack fails; attacker Overextended'. The fight goes
    on as before (Broo's next attack ends Overextended), so every later
    command replays with its recorded dice to the same end."""
    store, eid, outs = golden
    dodge = outs[5].records[0].command_id
    report = amend(
        store,
        cmd.AmendCommand(target=dodge, modifiers=(ev.Modifier(70, "she saw it coming"),), replay=True),
        encounter_id=eid,
        actor="sam",
    )
    assert report.stopped == "" and report.left == []
    amended = next(o for o in report.outcomes if o.records[0].command_id == report.amended)
    assert _events(amended, ev.ReactionResolved)[0].cell == "dodge:failure/critical"
    applied = _events(amended, ev.ConditionApplied)[0]
    assert applied.handle == "broo1" and applied.condition.name == "overextended"
    replays = report.outcomes[2:]
    assert [old for old, _ in report.replayed] == [o.records[0].command_id for o in outs[6:]]
    for original, again in zip(outs[6:], replays):
        assert [e.faces for e in _events(again, ev.DiceRolled)] == [e.faces for e in _events(original, ev.DiceRolled)]
    expired = [e for o in replays for e in _events(o, ev.ConditionExpired) if e.condition_id == "overextended"]
    assert len(expired) == 1
    final, golden_final = load_state(store, eid), outs[-1].state
    assert final.phase == "over" and final.winner == "heroes"
    assert _comparable(final) == _comparable(golden_final)
    assert store.verify(eid) == []


def test_amend_without_replay_leaves_the_later_commands_void(golden):
    store, eid, outs = golden
    report = amend(store, cmd.AmendCommand(target="1.1", reroll="misread", dice="41"), encounter_id=eid, actor="sam")
    assert report.replayed == [] and len(report.left) == len(SCRIPT) - 2
    assert report.state.pending[0].kind == "react"
    notes = [r.event.text for r in report.outcomes[-1].records if isinstance(r.event, ev.NoteAdded)]
    assert "dice 41" in notes[-1] and "misread" in notes[-1]


def test_amend_on_a_branch_leaves_the_original_untouched(golden):
    store, eid, outs = golden
    before = rows(store, eid)
    report = amend(
        store,
        cmd.AmendCommand(target="1.2", reaction="dodge", replay=True, on_branch="dodge instead"),
        encounter_id=eid,
        actor="sam",
    )
    assert rows(store, eid) == before
    assert report.branch == "dodge-instead" == report.encounter_id
    amended = next(o for o in report.outcomes if o.records[0].command_id == report.amended)
    # Broo's Dodge 30%: 30 succeeds; Vasana's fresh 50 succeeds: success/success
    assert _events(amended, ev.ReactionResolved)[0].cell == "dodge:success/success"
    assert report.stopped  # minimum damage and giving ground: the script's roll no longer fits as it was
    assert load_state(store, report.branch) == project(store.read(report.branch))


def test_amend_refusals_append_nothing(golden):
    store, eid, outs = golden
    n = len(rows(store, eid))
    ids = store.encounter_ids()
    mod = (ev.Modifier(-10, "mud"),)
    for command, fragment in [
        (cmd.AmendCommand(target="1.2", weapon="Spoon"), "no weapon called"),
        (cmd.AmendCommand(target="1.1", reaction="dodge"), "--reaction applies to a react command"),
        (cmd.AmendCommand(target="1.2", target_combatant="vasana"), "--target applies to an attack"),
        (cmd.AmendCommand(target="1.3", modifiers=mod), "--mod and --situation apply"),
        (cmd.AmendCommand(target="1.2"), "nothing to amend"),
        (cmd.AmendCommand(target="1.2", dice="90,50"), "--reroll"),
        (cmd.AmendCommand(target="9.9", modifiers=mod), "no round 9"),
        (cmd.AmendCommand(target="c9999", modifiers=mod), "no such command"),
        (cmd.AmendCommand(target="1.0", modifiers=mod), "--mod and --situation apply"),
        (cmd.AmendCommand(target="0.1", modifiers=mod), "'join' command"),
        (cmd.AmendCommand(target="x", modifiers=mod), "ROUND.STEP"),
        (cmd.AmendCommand(target="1.2", reaction="sing"), "not 'sing'"),
        (cmd.AmendCommand(target="1.2", situations=("on-the-moon",)), "unknown situation"),
        (cmd.AmendCommand(target="1.2", dice="30"), "--reroll"),
    ]:
        with pytest.raises((RuleError, DiceError), match=fragment):
            amend(store, command, encounter_id=eid, actor="sam")
        assert len(rows(store, eid)) == n and store.encounter_ids() == ids, command
    run(store, eid, cmd.Undo())
    undone = Timeline(store.read(eid)).retracted.pop()
    with pytest.raises(RuleError, match="undone"):
        amend(store, cmd.AmendCommand(target=undone, modifiers=mod), encounter_id=eid, actor="sam")


def test_amend_on_engine_dice_re_derives_the_amended_roll_and_keeps_the_replays_engine_rolls():
    store = EventStore(":memory:")
    eid = setup(store, "duel", seed=b"amend engine", allow_short_seed=True, actor="gm")
    state = load_state(store, eid)
    outs = []
    for _ in range(8):
        out = run(store, eid, _safe(store, eid, state))
        outs.append(out)
        state = out.state
    target = outs[1]  # the first action of round 1: an attack
    assert target.records[0].event.command["command"] == "attack"
    report = amend(
        store, cmd.AmendCommand(target="1.1", modifiers=(ev.Modifier(-5, "glare"),), replay=True), encounter_id=eid, actor="gm"
    )
    amended = next(o for o in report.outcomes if o.records[0].command_id == report.amended)
    assert dice_of(amended.records) == dice_of(target.records)  # the same engine roll numbers and faces
    for old, new in report.replayed:
        before = next(o for o in outs if o.records[0].command_id == old)
        after = next(o for o in report.outcomes if o.records[0].command_id == new)
        assert [d[2] for d in dice_of(after.records)] == [d[2] for d in dice_of(before.records)]
        # issue 11: a replayed engine roll stays engine roll #N, never relabelled as typed dice
        assert [(d[4], d[5]) for d in dice_of(after.records)] == [(d[4], d[5]) for d in dice_of(before.records)]
    assert load_state(store, eid) == project(store.read(eid)) and store.verify(eid) == []
    assert verify_encounter(store, eid, dice=True)[0] == []


def test_amend_to_a_reaction_that_rolls_needs_dice_in_manual_mode(golden):
    store, eid, outs = golden
    first = amend(store, cmd.AmendCommand(target="1.2", reaction="none"), encounter_id=eid, actor="sam")
    n = len(rows(store, eid))
    with pytest.raises(DiceError, match="missing dice"):
        amend(store, cmd.AmendCommand(target=first.amended, reaction="dodge"), encounter_id=eid, actor="sam")
    assert len(rows(store, eid)) == n
    # the parry's 30,50 were rolled at these places: new faces there are a re-roll (issue 11), even
    # though the amended command ('none') rolled no dice itself
    with pytest.raises(RuleError, match="rolled with 30,50"):
        amend(store, cmd.AmendCommand(target=first.amended, reaction="dodge", dice="20,60"), encounter_id=eid, actor="sam")
    assert len(rows(store, eid)) == n
    again = amend(store, cmd.AmendCommand(target=first.amended, reaction="dodge", dice="20,60", reroll="a dodge is a new roll"),
                  encounter_id=eid, actor="sam")
    assert _events(again.outcomes[-1], ev.ReactionResolved)[0].cell == "dodge:success/success"
    assert any("re-roll" in e.text for e in _events(again.outcomes[-1], ev.NoteAdded))


def test_amend_to_no_reaction_keeps_only_the_dice_it_uses(golden):
    """Parry → none needs no dice: the recorded 30,50 are dropped, not refused."""
    store, eid, outs = golden
    report = amend(store, cmd.AmendCommand(target="1.2", reaction="none"), encounter_id=eid, actor="sam")
    amended = report.outcomes[-1]
    assert not _events(amended, ev.DiceRolled)
    assert amended.state.pending[0].kind == "damage"


# --------------------------------------------------------------------------- #
# (e) the CLI
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("verb", cli_travel.VERBS)
def test_every_verb_has_an_example(cli, verb):
    out = cli.ok(verb, "--help").stdout
    assert "Example: affray " + verb in out


def _script(cli):
    cli.ok("--as", "sam", "start", "--dice", "5,3")
    cli.ok("--as", "sam", "attack", "vasana", "broo1", "--dice", "40")
    cli.ok("--as", "sam", "react", "broo1", "parry", "--dice", "30,50")
    cli.ok("--as", "sam", "roll", "--dice", "8,4,11")
    cli.ok("--as", "sam", "attack", "broo1", "vasana", "--dice", "25")


def test_cli_rewind_branch_amend(manual_duel):
    cli = manual_duel
    _script(cli)
    before = cli.state("--at", "1.3")
    out = cli.ok("rewind", "--to", "1.2").stdout
    assert "Rewound ford to version" in out and "Waiting for: Vasana: roll damage" in out
    assert cli.state("--at", "1.2")["combatants"] == cli.state()["combatants"]
    log = cli.json("log")
    assert {e["status"] for e in log if e["version"] > 30} >= {"void"}
    cli.ok("roll", "--dice", "8,4,11")
    assert cli.state()["combatants"] == before["combatants"]
    out = cli.ok("branch", "river").stdout
    assert "Branch river opened" in out and "--encounter ford" in out
    assert cli.json("list")[-1]["id"] == "river"
    out = cli.ok("-e", "river", "amend", "1.1", "--mod", "-30:knee-deep", "--replay").stdout
    assert "Amended" in out and "40 vs 35% (-30 knee-deep) — failure" in out
    assert "Replay stopped at" in out and "no reaction to make now" in out
    assert cli.json("-e", "ford", "audit")["differ"] == 0
    assert cli.json("-e", "river", "audit")["differ"] == 0
    cli.ok("-e", "river", "verify", "--dice")


def test_cli_errors_are_one_line_and_append_nothing(manual_duel):
    cli = manual_duel
    _script(cli)
    n = cli.events()
    for args, fragment in [
        (("rewind",), "--to"),
        (("rewind", "--to", "7.7"), "no round 7"),
        (("rewind", "--version", "999"), "--version takes"),
        (("rewind", "--to", "1.1", "--version", "3"), "not both"),
        (("branch", "x", "--at", "5.5"), "no round 5"),
        (("branch", ""), "needs a name"),
        (("amend", "1.2"), "nothing to amend"),
        (("amend", "1.2", "--mod", "bad"), "mod"),
        (("amend", "1.1", "--reaction", "dodge"), "--reaction applies"),
        (("amend", "1.2", "--dice", "1,1"), "--reroll"),
        (("amend", "1.2", "--weapon", "Spoon"), "no weapon"),
        (("why", "nobody"), "no combatant"),
        (("why", "broo1", "tail"), "no location or condition"),
        (("replay", "--round", "9"), "no round 9"),
        (("replay",), "--round"),
        (("-e", "nowhere", "audit"), "nowhere"),
    ]:
        result = cli(*args)
        assert_user_error(result, fragment)
        assert cli.events() == n, args


def test_cli_rewind_of_a_closed_encounter_is_refused(manual_duel):
    cli = manual_duel
    _script(cli)
    cli.ok("close")
    n = cli.events()
    assert_user_error(cli("-e", "ford", "rewind", "--to", "1.1"), "closed")
    assert_user_error(cli("-e", "ford", "amend", "1.2", "--mod", "-5:x"), "closed")
    assert cli.events() == n
    out = cli.ok("-e", "ford", "branch", "reopened", "--at", "1.3").stdout
    assert "Branch reopened opened" in out


def test_a_branch_that_fails_half_way_leaves_nothing(monkeypatch):
    """A branch is written in one transaction (EventStore.transaction): when
    a write fails after its events went in (a crash, a full disk), the new
    encounter, its seed and its snapshot are all gone."""
    store, eid = _played()
    before_ids = store.encounter_ids()
    real = EventStore.save_snapshot
    calls = {"rows": 0}

    def failing(self, *args, **kwargs):
        calls["rows"] = self.version("half")  # the branch's events are in, inside the transaction
        raise OSError("disk full")

    monkeypatch.setattr(EventStore, "save_snapshot", failing)
    with pytest.raises(OSError, match="disk full"):
        run(store, eid, cmd.BranchEncounter(name="Half"))
    monkeypatch.setattr(EventStore, "save_snapshot", real)
    assert calls["rows"] > 3
    assert store.encounter_ids() == before_ids and store.get_seed("half") is None
    assert store.version("half") == 0 and store.snapshots("half") == []
    assert store.verify() == []
    out = run(store, eid, cmd.BranchEncounter(name="Half"))  # nothing was left to collide with
    assert out.encounter_id == "half"


def test_inside_a_transaction_a_failed_append_is_undone_alone():
    """EventStore.transaction: each append is a savepoint, so a conflict
    inside it undoes that append only, and the rest commits."""
    store = EventStore(":memory:")
    opened = ev.EncounterOpened(encounter_id="t", name="T", system="mrq1", seed_sha256="00" * 32)
    with store.transaction():
        store.append("t", 0, [opened], command_id="c1", actor="gm")
        with pytest.raises(Exception, match="expected version 0"):
            store.append("t", 0, [ev.NoteAdded(text="late")], command_id="c2", actor="gm")
        store.append("t", 1, [ev.NoteAdded(text="on time")], command_id="c2", actor="gm")
    assert [r.event for r in store.read("t")][1:] == [ev.NoteAdded(text="on time")]
    assert store.verify() == []
