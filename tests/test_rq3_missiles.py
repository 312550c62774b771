"""rq3 missile ranges and moving targets (seed 002 "PARRYING AND DODGING
MISSILE WEAPONS", "DODGING BY LARGE CREATURES"; rulings
``missile_beyond_range`` and ``moving_target``), through the real command
path with table dice. Figures as in test_rq3_rules: Vasana's Bow 60%,
range 90 m (point blank 9 m), Javelin 50%, range 20 m (point blank 2 m);
Gorakh Dodge 25%, SIZ 18."""

from __future__ import annotations

import pytest

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.rq3 import attack
from affray.rules.rq3.sheet import Weapon

from test_rq3_rules import RuledTable, Table, _archer, ready_for_melee, sheet


def _shooting(weapon: str = "Bow", rulings: dict | None = None, gorakh: dict | None = None) -> Table:
    joins = (("vasana", _archer(), "heroes"), ("gorakh", gorakh or sheet("gorakh"), "trolls"))
    t = RuledTable(rulings, *joins) if rulings else Table(*joins)
    t(cmd.StartRound())
    t.act("gorakh", "intent double dodge:vasana")
    t.act("vasana", f"intent double missile:gorakh:{weapon}")
    t.act("vasana", "move stay")
    t.act("gorakh", "move stay")
    return t


@pytest.mark.parametrize("metres, band", [(0, "point-blank"), (9, "point-blank"), (10, "normal"), (90, "normal")])
def test_range_bands_from_the_sheet(metres, band):
    """Seed 002: point blank is "one tenth the weapon's effective range";
    normal range up to the weapon's range (boundaries 9/10 and 90 m)."""
    bow = Weapon(name="Bow", damage="1D6+1", kind="missile", range=90)
    assert attack.range_band(bow, metres) == band


def test_point_blank_from_the_sheet_and_beyond_range():
    """Seed 002: point blank "will be defined for each weapon" (the sheet's
    point_blank wins over a tenth); beyond the range: refused (ruling
    missile_beyond_range = refused) or half chance up to twice the range
    (half-to-double)."""
    sling = Weapon(name="Sling", damage="1D8", kind="missile", range=80, point_blank=5)
    assert attack.range_band(sling, 5) == "point-blank" and attack.range_band(sling, 6) == "normal"
    with pytest.raises(Exception, match="out of range"):
        attack.range_band(sling, 81)
    assert attack.range_band(sling, 81, "half-to-double") == "half"
    assert attack.range_band(sling, 160, "half-to-double") == "half"
    with pytest.raises(Exception, match="reaches 160 m"):
        attack.range_band(sling, 161, "half-to-double")
    with pytest.raises(Exception, match="no range"):
        attack.range_band(Weapon(name="Rock", damage="1D3", kind="missile"), 3)


def test_range_sets_point_blank_for_the_dodge():
    """Seed 002: at point blank a projected missile is dodged at one fifth;
    at normal range the dodge is at full skill."""
    t = _shooting()
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh", situations=("range=9",)), "30")
    t(cmd.ChooseReaction(defender="gorakh", reaction="dodge"), "50")
    assert t.events(ev.SkillTested)[-1].base == 25 // 5
    t = _shooting()
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh", situations=("range=10",)), "30")
    t(cmd.ChooseReaction(defender="gorakh", reaction="dodge"), "50")
    assert t.events(ev.SkillTested)[-1].base == 25


def test_moving_target_penalty_doubled_at_point_blank():
    """Seed 002: "the penalties to hit a moving target are doubled" at point
    blank; the GM gives the base penalty (ruling moving_target)."""
    t = _shooting()
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh", situations=("range=30", "moving=10")), "30")
    shot = t.events(ev.SkillTested)[-1]
    assert shot.target == 50 and [m.value for m in shot.modifiers] == [-10]
    t = _shooting()
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh", situations=("range=5", "moving=10")), "30")
    shot = t.events(ev.SkillTested)[-1]
    assert shot.target == 40 and [m.reason for m in shot.modifiers] == ["moving target, doubled at point blank"]


def test_large_moving_creature_not_doubled():
    """Seed 002 "DODGING BY LARGE CREATURES": fire at a creature three times
    the shooter's SIZ counts as point blank for its dodge, but "the normal
    doubling of movement penalties at point blank range should not be used
    if the larger creature is moving"."""
    giant = sheet("gorakh", SIZ=36, name="Giant")
    t = _shooting(gorakh=giant)
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh", situations=("range=5", "moving=10")), "30")
    shot = t.events(ev.SkillTested)[-1]
    assert [m.value for m in shot.modifiers] == [-10]
    t(cmd.ChooseReaction(defender="gorakh", reaction="dodge"), "50")
    assert t.events(ev.SkillTested)[-1].base == 25 // 5


def test_beyond_range_refused_or_halved():
    """Ruling missile_beyond_range: refused by default (one line, nothing
    appended); half-to-double halves the chance up to twice the range."""
    t = _shooting("Javelin")
    t.refused(cmd.DeclareAttack(attacker="vasana", target="gorakh", situations=("range=21",)), "out of range", "30")
    t = _shooting("Javelin", rulings={"missile_beyond_range": "half-to-double"})
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh", situations=("range=40",)), "30")
    assert t.events(ev.SkillTested)[-1].base == 25


@pytest.mark.parametrize("situations, fragment", [
    (("range=x",), "whole number"), (("range=-3",), "whole number"), (("speed=3",), "unknown rq3 situation"),
    (("point-blank", "range=30"), "beyond Bow's point blank"),
])
def test_bad_range_input_one_line(situations, fragment):
    """Bad --situation values: one line, nothing appended."""
    t = _shooting()
    t.refused(cmd.DeclareAttack(attacker="vasana", target="gorakh", situations=situations), fragment, "30")


def test_range_refused_for_a_melee_attack():
    """range= and moving= belong to missile attacks (seed 002 sections on missiles)."""
    t = Table()
    ready_for_melee(t, "intent double parry:vasana:Maul", "intent double attack:gorakh:Broadsword")
    t.refused(cmd.DeclareAttack(attacker="vasana", target="gorakh", situations=("moving=10",)), "missile attacks", "30")


def test_an_unaware_target_cannot_dodge_a_missile():
    """Seed 002 "PARRYING AND DODGING MISSILE WEAPONS": "Thrown weapons and
    missile weapons can be dodged if the dodger is aware of the attack and
    ready to dodge": ``--situation unaware`` leaves no dodge (Gorakh
    declared one); for a melee blow it is refused in one line."""
    t = _shooting("Javelin")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh", situations=("unaware", "range=10")), "30")
    assert t.state.pending[0].kind == "damage"
    t2 = Table()
    ready_for_melee(t2, "intent triple", "intent double attack:gorakh:Broadsword")
    t2.refused(cmd.DeclareAttack(attacker="vasana", target="gorakh", situations=("unaware",)), "for a missile attack", "30")
