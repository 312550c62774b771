"""rolemaster: static maneuvers other than Perception and orientation
(rules-reference.md A7 difficulties, A8 bands; RMH
``dice-rolling-conventions.md``: a maneuver roll is an open-ended roll
plus the skill and the difficulty, read on a chart). Seed 000
(000_0c5afa08bd3fc886.txt) uses only the Perception and orientation rolls
("Surprised / Confused Effect"); any other is recorded for the GM.

Kestrel: Acrobatics +10. Initiative "10,5,3,4": Kestrel's turn first.
"""

from __future__ import annotations

import pytest

from affray.events import commands as cmd
from affray.events import rolemaster as rev
from affray.rules.base import RuleError

from rolemaster_fight import Fight


def act(who, action):
    return cmd.TakeAction(who=who, action=action)


@pytest.mark.parametrize("dice,diff,total,outcome,percent", [
    ("70", "medium", 80, "partial-success", 20),
    ("70", "hard", 70, "failure", 0),
    ("97,10", "routine", 147, "success", 100),
    ("03,50", "absurd", -107, "spectacular-failure", 0),
])
def test_a_static_maneuver_is_read_on_the_bands(tmp_path, dice, diff, total, outcome, percent):
    """Open-ended at both ends (A1), + skill + difficulty (A7), on the A8 bands."""
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), "10,5,3,4")
    f.run(act("kestrel", f"maneuver acrobatics diff={diff}"), dice)
    m = f.events(rev.ManeuverResolved)[-1]
    assert (m.maneuver, m.column, m.total, m.outcome, m.value) == ("acrobatics", diff, total, outcome, percent)
    assert f.who("kestrel").combat_actions == 4 and f.state.turn == ("kestrel",)


def test_a_maneuver_may_spend_action_points_in_turn(tmp_path):
    """RMH: a static action has an AP cost; ap=N spends it in the turn."""
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), "10,5,3,4")
    f.run(act("kestrel", "maneuver acrobatics ap=2"), "50")
    assert f.who("kestrel").combat_actions == 2
    with pytest.raises(RuleError, match="not Gruk's turn"):
        f.run(act("gruk", "maneuver perception ap=1"), "50")


@pytest.mark.parametrize("words,message", [
    ("maneuver", "name the skill"),
    ("maneuver swimming", "lists no skill 'swimming'"),
    ("maneuver acrobatics diff=easyish", "unknown difficulty"),
    ("maneuver acrobatics fast", "takes SKILL"),
])
def test_bad_maneuvers_are_one_line_and_append_nothing(tmp_path, words, message):
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), "10,5,3,4")
    before = f.version
    with pytest.raises(RuleError, match=message):
        f.run(act("kestrel", words), "50")
    assert f.version == before
