"""rq3 bad input through the CLI (seed 002; DESIGN.md invariant 4): one
line, exit 2, nothing appended. A declaration the type does not allow, an
action that was not declared, an untrained ``@`` tactic, and more."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from affray.cli.app import app
from affray.commands.demo import examples_dir
from affray.store import EventStore

EX = examples_dir() / "rq3"


def run(db, *args):
    return CliRunner().invoke(app, ["--db", str(db), *args], catch_exceptions=False)


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "rq3.db"
    assert run(path, "new", "Ford", "--system", "runequest3", "--manual-dice").exit_code == 0
    assert run(path, "join", str(EX / "vasana.toml"), "--side", "heroes").exit_code == 0
    assert run(path, "join", str(EX / "gorakh.toml"), "--side", "trolls").exit_code == 0
    assert run(path, "start").exit_code == 0
    return path


def version(db) -> int:
    store = EventStore(db, must_exist=True)
    try:
        return store.version(store.encounter_ids()[-1])
    finally:
        store.close()


def refused(db, fragment: str, *args) -> None:
    before = version(db)
    result = run(db, *args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], result.output
    assert version(db) == before


def test_declaration_the_type_does_not_allow(db):
    """Seed 002 "STATEMENT OF INTENT": a triple move has no melee action."""
    refused(db, "allows 0 melee actions, not 1", "act", "gorakh", "intent", "triple", "attack:vasana:Maul")
    refused(db, "allows 1 melee action, not 2", "act", "gorakh", "intent double attack:vasana:Maul parry:vasana:Maul")


def test_untrained_tactic(db):
    """Seed 002 "SPECIAL TACTICS": an "@" tactic not on the sheet."""
    refused(db, "has not trained @feint with Maul", "act", "gorakh", "intent", "double", "attack:vasana:Maul:@feint")


def test_action_not_declared(db):
    """Seed 002 "ALTERING STATEMENT OF INTENT": a dodge nobody declared."""
    assert run(db, "act", "gorakh", "intent", "double", "parry:vasana:Maul").exit_code == 0
    assert run(db, "act", "vasana", "intent", "double", "attack:gorakh:Broadsword").exit_code == 0
    assert run(db, "act", "vasana", "move", "engage", "gorakh").exit_code == 0
    assert run(db, "act", "gorakh", "move", "stay").exit_code == 0
    refused(db, "no declared attack is due", "attack", "gorakh", "vasana", "--dice", "20")
    assert run(db, "attack", "vasana", "gorakh", "--dice", "20").exit_code == 0
    refused(db, "declared no dodge against Vasana", "react", "gorakh", "dodge", "--dice", "20")


def test_out_of_turn_and_unknown_words(db):
    """Seed 002: lowest INT declares first; the act words of rq3."""
    refused(db, "cannot state an intent now", "act", "vasana", "intent", "triple")
    refused(db, "unknown rq3 action", "act", "gorakh", "charge", "vasana")
    refused(db, "unknown Statement of Intent type", "act", "gorakh", "intent", "sextuple")
    refused(db, "no roll is pending", "roll", "--dice", "10")


def test_rulings_listed():
    """Every named ruling is listed by 'affray rulings --system rq3'."""
    result = CliRunner().invoke(app, ["rulings", "--system", "rq"], catch_exceptions=False)
    assert result.exit_code == 0
    for name in ("missile_locations", "location_hp_above_21", "skills_over_100", "resistance_limits", "wounds"):
        assert name in result.output


def test_undo_rewind_and_amend(db):
    """DESIGN.md time travel on an rq3 log: undo/redo, rewind to a round,
    amend an attack with new dice and replay the later commands."""
    for args in (("act", "gorakh", "intent", "double", "attack:vasana:Maul"),
                 ("act", "vasana", "intent", "double", "attack:gorakh:Broadsword"),
                 ("act", "vasana", "move", "engage", "gorakh"), ("roll", "--dice", "10,30"),
                 ("act", "gorakh", "move", "stay"), ("attack", "vasana", "gorakh", "--dice", "90")):
        assert run(db, *args).exit_code == 0, args
    before = version(db)
    assert run(db, "undo").exit_code == 0 and run(db, "redo").exit_code == 0
    store = EventStore(db, must_exist=True)
    eid = store.encounter_ids()[-1]
    attack_cmd = next(r.command_id for r in store.read(eid) if type(r.event).__name__ == "AttackDeclared")
    store.close()
    result = run(db, "amend", attack_cmd, "--dice", "20", "--reroll", "typed the wrong die")
    assert result.exit_code == 0, result.output
    assert version(db) > before
    out = run(db, "pending", "--json").output
    # the amended attack (20 <= 70) hits: Gorakh may make a Defensive Abort of his unused attack
    assert '"kind":"react"' in out and '"abort-parry"' in out
    assert run(db, "rewind", "--to", "1.0").exit_code == 0
    assert '"kind":"intent"' in run(db, "pending", "--json").output


def test_join_after_start_refused(db):
    """The Statement of Intent order is set for the fight: joining after
    'affray start' is refused with one line."""
    refused(db, "join before 'affray start'", "join", str(EX / "vasana.toml"), "--side", "heroes", "--handle", "v2")
