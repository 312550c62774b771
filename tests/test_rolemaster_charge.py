"""rolemaster: closing (the clash of blades) and charges. Seed 000
(000_0c5afa08bd3fc886.txt) "Melee" defines engagement but states no
closing or charge rule; these follow the RMH rules the seed comes from:
``tactical-activity-tracking_.md`` "Closing" (an attack at the pace's
penalty on entering melee range, the defender unpenalised) and
"Charging" (also in RMH ``combat-rules.md``: relative speed 3/6/12 m/s
multiplies the hits x2/x3/x4 and raises the critical +1/+2/+3),
``movement-rules.md`` (pace penalties; a charge needs a running pace,
``second-by-second-rules.md`` "Charge action"), ruling ``charge_bonus``.

Kestrel (Broadsword OB 70) against Gruk (DB 20, rigid): 97 + 40 = 137.
"""

from __future__ import annotations

import pytest

from affray.events import commands as cmd
from affray.events import rolemaster as rev
from affray.rules.base import RuleError
from affray.rules.rolemaster import tables

from rolemaster_fight import Fight

A, R = cmd.DeclareAttack, cmd.ChooseReaction
START = "10,5,3,4"


def _attack(tmp_path, *situations, dice="97,40", **rulings):
    f = Fight(tmp_path, rulings=rulings)
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk", situations=situations))
    f.run(R(defender="gruk", reaction="none"), dice)
    return f


def parts(mods):
    return [(m.value, m.reason) for m in mods]


@pytest.mark.parametrize("pace,penalty", [("creep", -5), ("walk", -10), ("brisk", -20), ("jog", -30), ("run", -40),
                                          ("sprint", -70), ("dash", -100)])
def test_closing_is_the_clash_of_blades_at_the_pace_penalty(tmp_path, pace, penalty):
    """RMH 'Closing': an attacker entering melee range attacks at his
    pace's penalty (movement-rules.md); the defender takes none."""
    f = _attack(tmp_path, f"pace={pace}", dice="50")
    x = f.events(rev.AttackLookedUp)[-1]
    mult = tables.PACE[pace].multiple
    assert (penalty, f"pace {pace} (x{mult:g}): closing, the clash of blades") in parts(x.ob_parts)
    assert all("pace" not in m.reason for m in x.db_parts)
    assert "gruk" in f.who("kestrel").engaged


def test_pace_while_already_engaged_is_no_clash(tmp_path):
    f = _attack(tmp_path, dice="50")
    f.run(cmd.TakeAction(who="gruk", action="pass"))
    f.run(cmd.EndRound(), START)
    f.run(A(attacker="kestrel", target="gruk", situations=("pace=walk",)))
    f.run(R(defender="gruk", reaction="none"), "50")
    assert (-10, "pace walk (x1)") in parts(f.events(rev.AttackLookedUp)[-1].ob_parts)


def test_a_charge_multiplies_hits_and_raises_the_critical(tmp_path):
    """RMH 'Charging' at 6 m/s: x3 hits, critical +2. 137 + 70 - 40 (run)
    - 20 = 147: rigid 13C -> 39 hits and an E critical."""
    f = _attack(tmp_path, "pace=run", "charge=6", dice="80,97,40")  # the charge maneuver: 80 + 30 = 110, easy: 100
    x = f.events(rev.AttackLookedUp)[-1]
    assert (x.total, x.cell) == (147, "13C")
    c = f.events(rev.ChargeLanded)[-1]
    assert (c.speed, c.hits_from, c.hits, c.severity_from, c.severity) == (6, 13, 39, "C", "E")
    assert f.who("gruk").location("body").hp == 55 - 39
    assert f.state.pending[0].kind == "critical" and f.state.pending[0].data["severity"] == "E"


def test_a_charge_below_3_ms_adds_no_power(tmp_path):
    f = _attack(tmp_path, "pace=jog", "charge=2", dice="80,97,40")
    assert not f.events(rev.ChargeLanded)
    assert f.who("gruk").location("body").hp == 55 - 13  # 137 + 70 - 30 - 20 = 157 -> 150: 13C


@pytest.mark.parametrize("speed,band", [(2.9, None), (3, (2, 1)), (5.9, (2, 1)), (6, (3, 2)), (11.9, (3, 2)), (12, (4, 3)), (30, (4, 3))])
def test_charge_bands(speed, band):
    """Every boundary of the RMH charge table."""
    got = tables.charge_band(speed)
    assert (None if got is None else (got.hits, got.critical)) == band


@pytest.mark.parametrize("severity,steps,out", [("A", 1, "B"), ("C", 2, "E"), ("D", 3, "F"), ("E", 3, "F"), ("", 2, ""), ("B", 0, "B")])
def test_raising_a_critical_stops_at_f(severity, steps, out):
    assert tables.step_severity(severity, steps) == out


@pytest.mark.parametrize("situations,message", [
    (("charge=6",), "needs a running pace"),
    (("pace=brisk", "charge=6"), "needs a running pace"),
    (("pace=crawl",), "unknown pace 'crawl'"),
    (("pace=run", "charge=fast"), "takes a number"),
    (("speed=3",), "unknown situation"),
])
def test_bad_charges_are_one_line_and_append_nothing(tmp_path, situations, message):
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    before = f.version
    with pytest.raises(RuleError, match=message):
        f.run(A(attacker="kestrel", target="gruk", situations=situations))
    assert f.version == before


def test_second_by_second_charge_bonus_is_a_ruling(tmp_path):
    """Ruling charge_bonus=second-by-second (RMH 'Charge action'): +10 OB,
    and the charger is at -10 DB for the rest of the round."""
    f = _attack(tmp_path, "pace=run", "charge=3", dice="80,50", charge_bonus="second-by-second")
    assert (10, "charge (+10 OB)") in parts(f.events(rev.AttackLookedUp)[-1].ob_parts)
    f.run(A(attacker="gruk", target="kestrel"))
    f.run(R(defender="kestrel", reaction="none"), "50")
    assert (-10, "charged this round (-10 DB)") in parts(f.events(rev.AttackLookedUp)[-1].db_parts)


# --------------------------------------------------------------------------- #
# The charge's moving maneuver and its timing (RMH second-by-second-rules.md
# "Charge action": "Charging is a special maneuver that requires a movement
# maneuver roll"; "Charges are the exception to 'resolve times'. Resolve a
# charge at the 'moment' the combatants meet!"), rulings charge_maneuver and
# charge_timing. Kestrel's Ag bonus 10: +30 ("if no skill applies, add three
# times the character's Ag stat bonus", RMH moving-maneuver-difficulties).
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("pace,column", [("jog", "routine"), ("run", "easy"), ("sprint", "light"), ("dash", "medium")])
def test_the_charge_maneuver_reads_the_column_of_its_pace(tmp_path, pace, column):
    """RMH moving-maneuver-difficulties: x3 pace Easy, x4 Light, x5 Medium;
    x2 (jog) Routine, our ruling. The roll comes before the attack roll."""
    f = _attack(tmp_path, f"pace={pace}", "charge=6", dice="80,50")
    m = next(e for e in f.events(rev.ManeuverResolved) if e.maneuver == "charge")
    assert (m.handle, m.column, m.dice, m.total) == ("kestrel", column, (80,), 110)
    assert parts(m.parts) == [(30, "3 x Ag bonus (no skill applies)")]
    assert tables.CHARGE_DIFFICULTY[tables.PACE[pace].multiple] == column


def test_a_charge_short_of_100_lands_without_its_power(tmp_path):
    """Our ruling: a maneuver number under 100 (30 + 30 = 60: easy 70) and
    the attack is made at the pace penalty, without the charge's hits
    multiple and critical raise: 137 + 70 - 40 - 20 = 147: 13C, 13 hits."""
    f = _attack(tmp_path, "pace=run", "charge=6", dice="30,97,40")
    assert next(e for e in f.events(rev.ManeuverResolved) if e.maneuver == "charge").value == 70
    assert not f.events(rev.ChargeLanded) and f.who("gruk").location("body").hp == 55 - 13


def test_a_charger_who_falls_makes_no_attack(tmp_path):
    """01 opens low: 1 - 90 = -89 + 30 = -59, off the sample's easy column
    at the bottom: a fall (prone, so staggered: cannot attack, seed 000
    'Staggered or Prone'); the attack is not rolled."""
    f = _attack(tmp_path, "pace=run", "charge=6", dice="01,90")
    k = f.who("kestrel")
    assert k.stance == "prone" and k.has("staggered") and not f.events(rev.AttackLookedUp)
    assert f.state.exchange is None and f.who("gruk").location("body").hp == 55


def test_the_charge_maneuver_is_a_ruling(tmp_path):
    """Ruling charge_maneuver=off: no roll (the dice go to the attack)."""
    f = _attack(tmp_path, "pace=run", "charge=6", charge_maneuver="off")
    assert not [e for e in f.events(rev.ManeuverResolved) if e.maneuver == "charge"]
    assert f.events(rev.ChargeLanded)[-1].hits == 39


@pytest.mark.parametrize("timing,at_once", [("on-meeting", True), ("when-spent", False)])
def test_a_charge_resolves_when_the_combatants_meet(tmp_path, timing, at_once):
    """Under the countdown with resolution=when-spent, a charge declared on
    45 resolves on that count (ruling charge_timing=on-meeting: "the
    exception to 'resolve times'"), its 4 AP spent at once; with
    ``when-spent`` it waits for 25 like any attack."""
    f = Fight(tmp_path, rulings={"resolution": "when-spent", "charge_timing": timing})
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk", situations=("pace=run", "charge=6")))
    assert (f.state.exchange is not None) is at_once
    assert f.who("kestrel").combat_actions == (0 if at_once else 4)
