"""rq3: Jump or Acrobatics over a narrow terrain feature (seed 002 "COMBAT
MOVEMENT IN UNRELIABLE TERRAIN": "Jump or Acrobatics skill can be used to
cross difficult terrain instead of Maneuver skill or a DEX roll, but only
if the difficult terrain feature is narrow enough to be cleared by the
distance covered by a single Jump or Acrobatics attempt"; ruling
``jump_terrain``). Vasana: Acrobatics 35, Jump 25 (base), DEX 16."""

from __future__ import annotations

from affray.events import commands as cmd
from affray.events import core as ev

from test_rq3_rules import ROLL, Table


def _vasana_moves(action: str) -> Table:
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent double attack:gorakh:Broadsword")
    t.act("vasana", action)
    return t


def test_one_acrobatics_roll_clears_a_narrow_feature():
    """One roll with the skill named replaces the tests (two for a double
    move through difficult terrain without it); then the move goes on."""
    t = _vasana_moves("move engage gorakh terrain=difficult over=acrobatics")
    step = t.state.pending[0]
    assert (step.kind, step.data["left"], step.data["over"]) == ("terrain", 1, "acrobatics")
    t(ROLL, "30")
    test = t.events(ev.SkillTested)[-1]
    assert (test.skill, test.target, test.result) == ("Acrobatics", 35, "success")
    assert "gorakh" in t.state.combatants["vasana"].engaged


def test_jump_failure_falls_as_the_terrain_says():
    """A failed Jump has the terrain's failure result: the character falls
    (ruling jump_terrain)."""
    t = _vasana_moves("move stay terrain=bodies over=jump")
    t(ROLL, "60")  # Jump 25 (base)
    assert t.events(ev.SkillTested)[-1].skill == "Jump"
    assert t.state.combatants["vasana"].stance == "prone"


def test_over_refused_where_no_test_is_due():
    """Clear terrain needs no test; an unknown skill is refused: one line,
    nothing appended."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent double attack:gorakh:Broadsword")
    t.refused(cmd.TakeAction(who="vasana", action="move stay terrain=clear over=jump"), "needs no test")
    t.refused(cmd.TakeAction(who="vasana", action="move stay terrain=difficult over=climb"), "over= takes jump or acrobatics")
