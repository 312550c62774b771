"""The GM's rulings as verbs (issue 16, item 2), in every system.

``set``, ``heal``, ``out``, ``end`` and ``ruling`` are decided once, in
``affray.rules.gm``, and every system's router maps them there. Per system:
each verb changes the state as it says, is narrated with its reason, and
``undo`` restores the state exactly (the fold of the live log, every field
but the version counters); bad input is one line, exit 2, nothing appended.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from msgspec.structs import replace

from affray.events import core as ev
from affray.projections.snapshots import load_state
from affray.projections.timeline import project
from affray.store import EventStore

from conftest import assert_user_error

EX = Path(__file__).resolve().parents[1] / "examples"

#: system -> (hero sheet, foe sheet): two heroes against two foes
SHEETS = {
    "mrq1": ("mrq1/vasana.toml", "mrq1/broo.toml"),
    "mythras": ("mythras/kaelin.toml", "mythras/grusk.toml"),
    "rq3": ("rq3/vasana.toml", "rq3/gorakh.toml"),
    "rolemaster": ("rolemaster/kestrel.toml", "rolemaster/gruk.toml"),
    "uesrpg": ("uesrpg/hrolfdar.toml", "uesrpg/vethis.toml"),
}
SYSTEMS = sorted(SHEETS)


def _setup(cli, system: str, *, start: bool = True):
    hero, foe = SHEETS[system]
    cli.ok("new", "Table", "--system", system, "--seed", "00ff" * 16)
    cli.ok("join", EX / hero, "--side", "heroes", "--handle", "hero")
    cli.ok("join", EX / hero, "--side", "heroes", "--handle", "hero2", "--name", "Second")
    cli.ok("join", EX / foe, "--side", "foes", "--handle", "foe1")
    cli.ok("join", EX / foe, "--side", "foes", "--handle", "foe2")
    if start:
        cli.ok("start")
    return cli


def _state(cli):
    """The state (snapshot and tail) and the records; the state is checked
    against a fold of the whole log (DESIGN.md invariant 2)."""
    store = EventStore(str(cli.db))
    try:
        eid = store.encounter_ids()[-1]
        state, records = load_state(store, eid), list(store.read(eid))
    finally:
        store.close()
    assert project(records) == state
    return state, records


def _fight_part(state):
    """The state without the log's counters (an undo moves them on)."""
    return replace(state, version=0, step=0, last_command="")


def _loc(state, handle: str):
    """The first location of ``handle`` with HP (uesrpg keeps HP in one pool)."""
    return next(l for l in state.combatants[handle].locations if l.max_hp > 0)


def _undo_restores(cli, before) -> None:
    cli.ok("undo")
    after, _ = _state(cli)
    assert _fight_part(after) == _fight_part(before)


@pytest.fixture(params=SYSTEMS)
def table(request, cli):
    return _setup(cli, request.param), request.param


def test_set_hp_then_undo(table):
    cli, system = table
    before, _ = _state(cli)
    loc = _loc(before, "foe1")
    result = cli.ok("set", "foe1", "hp", loc.name, "1", "--reason", "a weaker foe than he looked")
    assert "GM ruling" in result.stdout and "a weaker foe than he looked" in result.stdout
    now, records = _state(cli)
    assert _loc(now, "foe1").hp == 1
    assert [r.event for r in records if isinstance(r.event, ev.HitPointsSet)] == [
        ev.HitPointsSet(handle="foe1", location=loc.name, hp=1, reason="a weaker foe than he looked")
    ]
    _undo_restores(cli, before)


def test_heal_restores_hp_then_undo(table):
    cli, system = table
    fresh, _ = _state(cli)
    loc = _loc(fresh, "hero")
    cli.ok("set", "hero", "hp", loc.name, "0", "--reason", "a fall")
    before, _ = _state(cli)
    cli.ok("heal", "hero", loc.name, "1", "--reason", "a draught")
    assert _loc(_state(cli)[0], "hero").hp == 1
    _undo_restores(cli, before)
    cli.ok("heal", "hero", "--reason", "the priestess")  # every location to its maximum
    assert _loc(_state(cli)[0], "hero").hp == loc.max_hp
    _undo_restores(cli, before)


def test_out_leaves_the_order_then_undo(table):
    cli, system = table
    before, _ = _state(cli)
    result = cli.ok("out", "foe2", "fled", "--reason", "morale broke")
    assert "fled" in result.stdout and "morale broke" in result.stdout
    now, _ = _state(cli)
    assert now.combatants["foe2"].status == "out"
    assert "foe2" not in now.turn and all(s.who != "foe2" for s in now.pending)
    assert now.phase == "round" and now.pending  # two sides still stand: the fight goes on
    _undo_restores(cli, before)


def test_out_of_the_last_foe_ends_the_fight(table):
    cli, system = table
    cli.ok("out", "foe2", "surrendered", "--reason", "threw down his weapon")
    before, _ = _state(cli)
    cli.ok("out", "foe1", "dead", "--reason", "the GM rules the wound mortal")
    now, _ = _state(cli)
    assert now.combatants["foe1"].status == "dead"
    assert now.phase == "over" and now.winner == "heroes" and not now.pending and not now.turn
    _undo_restores(cli, before)


def test_out_of_the_one_the_table_waits_for_hands_over(table):
    cli, system = table
    state, _ = _state(cli)
    acting = state.turn or tuple(s.who for s in state.pending)  # rq3: statements of intent come first
    assert acting, f"{system}: the table waits for nobody after start"
    before = state
    cli.ok("out", acting[0], "removed", "--reason", "called away")
    now, _ = _state(cli)
    assert acting[0] not in now.turn and now.phase in ("round", "between") and now.pending
    assert all(s.who != acting[0] for s in now.pending)
    _undo_restores(cli, before)


def test_end_with_a_winner_and_a_draw(table):
    cli, system = table
    before, _ = _state(cli)
    result = cli.ok("end", "--winner", "heroes", "--reason", "the foes fled into the woods")
    assert "the foes fled into the woods" in result.stdout
    now, records = _state(cli)
    assert now.phase == "over" and now.winner == "heroes" and not now.pending
    assert any(isinstance(r.event, ev.FightRuledOver) for r in records)
    _undo_restores(cli, before)
    cli.ok("end", "--winner", "draw", "--reason", "both sides withdraw")
    now, _ = _state(cli)
    assert now.phase == "over" and now.winner == ""
    _undo_restores(cli, before)


#: system -> a ruling and a value other than its default
OTHER_RULING = {
    "mrq1": ("critical_on", "base"),
    "mythras": ("major_wound_boundary", "strict"),
    "rq3": ("missile_locations", "missile-table"),
    "rolemaster": ("attack_roll", "both"),
    "uesrpg": ("parry_evade_tie", "attack-hits"),
}


def test_ruling_changes_from_now_on(table):
    cli, system = table
    before, _ = _state(cli)
    name, other = OTHER_RULING[system]
    value = before.rulings[name]
    cli.ok("ruling", f"{name.replace('_', '-')}={other.upper()}", "--reason", "agreed at the table")
    now, records = _state(cli)
    assert now.rulings[name] == other
    changed = [r.event for r in records if isinstance(r.event, ev.RulingChanged)]
    assert changed == [ev.RulingChanged(name=name, value=other, was=value, reason="agreed at the table")]
    count = cli.events()
    assert_user_error(cli("ruling", f"{name}={other}", "--reason", "again"), "already")
    assert_user_error(cli("ruling", f"{name}=no-such-value", "--reason", "x"), name)
    assert cli.events() == count
    _undo_restores(cli, before)


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (["set", "foe1", "hp", "nowhere", "3", "--reason", "x"], "no location"),
        (["set", "foe1", "mp", "head", "3", "--reason", "x"], "hp only"),
        (["set", "foe1", "hp", "head", "\u0663", "--reason", "x"], "ascii digits"),
        (["set", "foe1", "hp", "head", "99999999999999999999", "--reason", "x"], "at most 6"),
        (["set", "nobody", "hp", "head", "3", "--reason", "x"], "no combatant"),
        (["set", "foe1", "hp", "head", "3", "--reason", "  "], "needs a reason"),
        (["heal", "foe1", "--reason", "x"], "lost no hp"),
        (["heal", "foe1", "head", "0", "--reason", "x"], "changes nothing"),
        (["out", "foe1", "asleep", "--reason", "x"], "fled, surrendered, removed, dead"),
        (["end", "--winner", "orcs", "--reason", "x"], "no side called 'orcs'"),
        (["ruling", "no_such_ruling=1", "--reason", "x"], "unknown"),
        (["ruling", "justaname", "--reason", "x"], "name=value"),
    ],
)
@pytest.mark.parametrize("system", ["mrq1", "mythras", "uesrpg"])
def test_bad_input_is_one_line_and_appends_nothing(cli, system, argv, fragment):
    _setup(cli, system)
    if system == "uesrpg" and argv[:2] == ["set", "foe1"] and argv[3] == "head":
        argv = [*argv[:3], "hp", *argv[4:]]  # uesrpg's HP pool
    count = cli.events()
    assert_user_error(cli(*argv), fragment)
    assert cli.events() == count


def test_out_twice_and_end_twice_are_refused(cli):
    _setup(cli, "mrq1")
    cli.ok("out", "foe1", "fled", "--reason", "morale")
    assert_user_error(cli("out", "foe1", "dead", "--reason", "x"), "already out")
    cli.ok("end", "--winner", "heroes", "--reason", "done")
    count = cli.events()
    assert_user_error(cli("end", "--winner", "draw", "--reason", "x"), "already over")
    assert cli.events() == count


def test_out_refused_in_the_open_exchange(cli):
    _setup(cli, "mrq1")
    state, _ = _state(cli)
    attacker = state.turn[0]
    target = "foe1" if attacker == "hero" else "hero"
    cli.ok("attack", attacker, target, "--dice", "5")
    count = cli.events()
    assert_user_error(cli("out", target, "fled", "--reason", "x"), "open exchange")
    assert cli.events() == count


def test_rulings_in_setup_and_before_start(cli):
    """Before the fight starts an 'out' ends nothing: the GM may still start."""
    _setup(cli, "mythras", start=False)
    cli.ok("out", "foe2", "removed", "--reason", "not in this scene")
    state, _ = _state(cli)
    assert state.phase == "setup" and state.combatants["foe2"].status == "out"
    cli.ok("start")
    state, _ = _state(cli)
    assert "foe2" not in {e.handle for e in state.order} or state.combatants["foe2"].status == "out"
    assert "foe2" not in state.turn


def test_log_and_why_show_the_rulings(cli):
    _setup(cli, "mrq1")
    cli.ok("set", "foe1", "hp", "chest", "2", "--reason", "an old wound")
    cli.ok("out", "foe2", "fled", "--reason", "saw the odds")
    log = cli.ok("log").stdout
    assert "GM ruling: " in log and "an old wound" in log and "saw the odds" in log
    why = cli.ok("why", "foe1", "chest").stdout
    assert "an old wound" in why
    why = cli.json("why", "foe2")
    assert any("saw the odds" in link["text"] for chain in why["chains"] for link in chain["links"])


@pytest.mark.parametrize("fmt", ["markdown", "bbcode", "discord", "html"])
@pytest.mark.parametrize("view", ["table", "record"])
def test_exports_narrate_the_rulings_with_their_reasons(cli, fmt, view):
    _setup(cli, "mythras")
    cli.ok("set", "foe1", "hp", _loc(_state(cli)[0], "foe1").name, "1", "--reason", "an old wound")
    cli.ok("ruling", "major-wound-boundary=strict", "--reason", "table vote")
    cli.ok("out", "foe2", "surrendered", "--reason", "saw the odds")
    cli.ok("end", "--winner", "heroes", "--reason", "the last foe ran")
    text = cli.ok("export", "--format", fmt, "--view", view).stdout
    for reason in ("an old wound", "table vote", "saw the odds", "the last foe ran"):
        assert reason in text, (fmt, view, reason)
    assert "surrendered" in text and "heroes" in text


def test_end_in_the_middle_of_an_exchange_closes_it(cli):
    _setup(cli, "mrq1")
    state, _ = _state(cli)
    attacker = state.turn[0]
    target = "foe1" if attacker.startswith("hero") else "hero"
    cli.ok("attack", attacker, target, "--dice", "5")
    before, _ = _state(cli)
    assert before.exchange is not None
    cli.ok("end", "--winner", "draw", "--reason", "the bridge collapses under them all")
    now, _ = _state(cli)
    assert now.exchange is None and now.phase == "over" and not now.pending
    _undo_restores(cli, before)


def test_why_shows_the_ruling_in_force_when_it_happened(cli):
    """A critical rolled before 'ruling critical_on=base' is explained with
    the value in force then, and one rolled after with the GM's change."""
    _setup(cli, "mrq1")
    state, _ = _state(cli)
    attacker = state.turn[0]
    target = "foe1" if attacker.startswith("hero") else "hero"
    cli.ok("attack", attacker, target, "--dice", "2")  # a critical at any skill of 20 or more
    cli.ok("ruling", "critical_on=base", "--reason", "house rule from now on")
    data = why_json(cli, target)
    assert data is not None
    rulings = [r for chain in data["chains"] for r in chain["rulings"] if r["name"] == "critical_on"]
    assert rulings and all(r["value"] == "modified" and "before the GM changed it" in r["why"] for r in rulings)


def why_json(cli, handle: str):
    """``why HANDLE LOCATION --json`` for the location the last blow hit, once
    the exchange is played out with fixed dice (None when no blow landed)."""
    for _ in range(6):
        pending = cli.pending()
        if not pending or pending[0]["verb"] not in ("react", "roll"):
            break
        step = pending[0]
        if step["verb"] == "react":
            cli.ok("react", step["who"], "none")
        else:
            cli.ok("roll", "--dice", ",".join("1" for _ in step["dice"]))
    state, records = _state(cli)
    hits = [r.event for r in records if isinstance(r.event, ev.DamageDealt) and r.event.target == handle]
    if not hits:
        return None
    return cli.json("why", handle, hits[-1].location)


def test_audit_re_derives_every_ruling(table):
    """Replay never rules, but audit re-decides: each GM verb decides the
    same events again from the log (DESIGN.md invariant 3)."""
    cli, system = table
    loc = _loc(_state(cli)[0], "foe1").name
    cli.ok("set", "foe1", "hp", loc, "1", "--reason", "a")
    cli.ok("heal", "foe1", "--reason", "b")
    name, other = OTHER_RULING[system]
    cli.ok("ruling", f"{name}={other}", "--reason", "c")
    cli.ok("out", "foe2", "fled", "--reason", "d")
    cli.ok("end", "--winner", "draw", "--reason", "e")
    result = cli.ok("audit")
    assert " 0 differ" in result.stdout
