"""rq3: large creatures dodging a blow at their own attacking limb (seed
002 "DODGING BY LARGE CREATURES"), through the real command path with
table dice. Vasana SIZ 12, Broadsword attack 70 (aimed: 35), DEX SR 1 +
SIZ SR 2 + SR 2 = SR 5. The giant: Gorakh's figures with SIZ 40 (three
times 12 is 36) and a Fist (natural weapon, right arm, SR 3: SR 6)."""

from __future__ import annotations

import pytest

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import rq3 as rev

from test_rq3_rules import ROLL, RuledTable, Table, sheet


def _giant(siz: int = 40) -> dict:
    g = sheet("gorakh", name="Giant", SIZ=siz)
    g["weapons"].append({"name": "Fist", "damage": "1D3", "sr": 3, "kind": "unarmed", "modes": ["crush"],
                         "attack": 60, "parry": 0, "limb": "right arm"})
    return g


def _round(giant_attack: str, aimed_at: str, siz: int = 40, roll: str = "10", rulings: dict | None = None) -> Table:
    joins = (("vasana", sheet("vasana"), "heroes"), ("giant", _giant(siz), "trolls"))
    t = RuledTable(rulings, *joins) if rulings else Table(*joins)
    t(cmd.StartRound())
    t.act("giant", f"intent single attack:vasana:{giant_attack} dodge:vasana")
    aimed = f":aimed:{aimed_at}" if aimed_at else ""
    t.act("vasana", f"intent single attack:giant:Broadsword{aimed} dodge:giant")
    t.act("vasana", "move engage giant")
    if t.state.pending[0].kind == "maneuver":
        t(ROLL, "10,90")
    t.act("giant", "move stay")
    if t.state.pending[0].who == "giant":  # the Maul strikes first (SR 4): let it pass
        t.act("giant", "pass")
    t(cmd.DeclareAttack(attacker="vasana", target="giant"), roll)
    return t


def test_no_dodge_for_the_attacking_limb():
    """Seed 002: "A large giant kicking or punching a human will not be able
    to dodge an attack directed at the attacking arm or leg" (three times
    the SIZ): the dodge is not offered, and a dodge is refused in one line."""
    t = _round("Fist", "right-arm")
    step = t.state.pending[0]
    assert "dodge" not in step.options and "abort-dodge" not in step.options
    assert t.events(rev.SpecialApplied)[-1].effect == "attacking limb"
    t.refused(cmd.ChooseReaction(defender="giant", reaction="dodge"), "declared no dodge", "5")


@pytest.mark.parametrize("weapon, aimed_at, siz", [
    ("Fist", "head", 40),          # another location: dodged normally
    ("Maul", "right-arm", 40),     # "When using a weapon that lets them stay out of reach ... can dodge normally"
    ("Fist", "right-arm", 35),     # under three times the SIZ (35 < 36)
])
def test_dodge_kept_otherwise(weapon, aimed_at, siz):
    """Seed 002 "DODGING BY LARGE CREATURES": only a blow at the limb the
    larger creature (at least three times the SIZ) physically attacks with
    cannot be dodged."""
    t = _round(weapon, aimed_at, siz)
    assert "dodge" in t.state.pending[0].options


def test_limb_must_be_a_location():
    """A sheet naming an unknown limb is refused in one line."""
    g = _giant()
    g["weapons"][-1]["limb"] = "tail"
    t = Table(("vasana", sheet("vasana"), "heroes"))
    t.refused(cmd.JoinCombatant(sheet=g, side="trolls", handle="giant"), "limb 'tail'")


def test_unaimed_blow_landing_on_the_attacking_limb():
    """Seed 002 "DODGING BY LARGE CREATURES" with an unaimed blow (ruling
    large_limb_location = rolled-first): the hit location is rolled before
    the reaction; d20 14 is the right arm the giant punches with, so no
    dodge, and the damage falls there without another location die."""
    t = _round("Fist", "", roll="30")
    step = t.state.pending[0]
    assert (step.kind, step.who, [n.expr for n in step.dice]) == ("limb-location", "vasana", ["1D20"])
    t(ROLL, "14")
    assert t.events(rev.SpecialApplied)[-1].effect == "attacking limb"
    step = t.state.pending[0]
    assert step.kind == "react" and "dodge" not in step.options
    t(cmd.ChooseReaction(defender="giant", reaction="none"))
    assert [n.expr for n in t.state.pending[0].dice] == ["1D8+1", "1D4"]  # no location die
    t(ROLL, "5,2")
    d = t.events(ev.DamageDealt)[-1]
    assert d.location == "right arm" and "rolled before the reaction" in d.note


def test_unaimed_blow_elsewhere_is_dodged():
    """Seed 002 "DODGING BY LARGE CREATURES": a blow landing elsewhere (d20
    19, the head) may be dodged; the damage uses the head."""
    t = _round("Fist", "", roll="30")
    t(ROLL, "19")
    assert "dodge" in t.state.pending[0].options
    t(cmd.ChooseReaction(defender="giant", reaction="dodge"), "90")
    t(ROLL, "5,2")
    assert t.events(ev.DamageDealt)[-1].location == "head"


@pytest.mark.parametrize("weapon, siz, rulings", [("Maul", 40, None), ("Fist", 35, None),
                                                  ("Fist", 40, {"large_limb_location": "aimed-only"})])
def test_no_location_first_otherwise(weapon, siz, rulings):
    """No location before the reaction with a weapon that keeps the creature
    out of reach, under three times the SIZ, or by ruling
    large_limb_location = aimed-only (only an aimed blow is "directed at"
    the limb)."""
    t = _round(weapon, "", siz=siz, roll="30", rulings=rulings)
    assert t.state.pending[0].kind == "react" and "dodge" in t.state.pending[0].options
