"""rolemaster: hits below 0, unconsciousness and death. Seed 000
(000_0c5afa08bd3fc886.txt) has no hits rule; these follow RMH
``injury-death-healing.md`` ("Unconsciousness": 0 or less hits; "Death":
negative hits greater than the Body Development bonus, the soul departing
in five minutes), with the rulings ``death_at`` and ``death_delay``.

Kestrel's first blow (97, 40): 137 + OB 70 - DB 20 = 187, read 150 on the
rigid column: 13C (13 hits and a C slash critical); critical roll 10 on
sample-slash C: +3 hits and 1 hit per round.
"""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from affray import dice as dicelib
from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.base import Draft
from affray.rules.rolemaster import core

from rolemaster_fight import Fight, sheet

A, R, ROLL = cmd.DeclareAttack, cmd.ChooseReaction, cmd.RollPending()
START3 = "10,5,3,4,1,1"  # Kestrel 25, Gruk 12, Gorg 2 + 5 = 7


def _fight(tmp_path, hits=5, bd=10, *, third=False, **rulings):
    gruk = sheet("gruk", hits=hits, skills={"perception": 15, "body_development": bd})
    sheets = [(sheet("kestrel"), "heroes"), (gruk, "orcs")]
    if third:
        gorg = sheet("gruk")
        gorg["name"] = "Gorg"
        sheets.append((gorg, "orcs"))
    f = Fight(tmp_path, rulings=rulings, sheets=tuple(sheets))
    f.run(cmd.StartRound(), START3 if third else "10,5,3,4")
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="none"), "97,40")
    return f


def test_zero_hits_or_less_is_unconscious(tmp_path):
    """RMH 'Unconsciousness': 5 - 13 = -8 hits, not past -10 (Body
    Development 10): unconscious, not dying."""
    f = _fight(tmp_path)
    g = f.who("gruk")
    assert g.location("body").hp == -8 and g.status == "unconscious" and not g.has("dying")


def test_past_minus_body_development_is_dying_for_five_minutes(tmp_path):
    """RMH 'Death': -8 - 3 (the critical) = -11, past -10: dying, the soul
    departing in five minutes = 60 rounds of 5 seconds (ruling
    death_delay=five-minutes)."""
    f = _fight(tmp_path)
    f.run(ROLL, "10")
    g = f.who("gruk")
    dying = next(k for k in g.conditions if k.name == "dying")
    assert g.status == "unconscious" and dying.ends.count == core.SOUL_DEPARTS_ROUNDS == 60
    assert "past -10 (Body Development)" in dying.note


def test_exactly_minus_body_development_lives(tmp_path):
    """'a character with +67 Body Development will die when he reaches
    -68': at exactly -BD the character lives. 8 hits: 8 - 13 - 3 = -8;
    Body Development 8 -> -8 is not past -8."""
    f = _fight(tmp_path, hits=8, bd=8)
    f.run(ROLL, "10")
    assert f.who("gruk").location("body").hp == -8 and not f.who("gruk").has("dying")


def test_death_at_once_is_a_ruling(tmp_path):
    """Ruling death_delay=at-once: past the threshold the combatant is dead."""
    f = _fight(tmp_path, death_delay="at-once")
    f.run(ROLL, "10")
    assert f.who("gruk").status == "dead"


@pytest.mark.parametrize("ruling,hp,dies", [("constitution", -51, True), ("constitution", -50, False), ("off", -500, False)])
def test_death_threshold_rulings(tmp_path, ruling, hp, dies):
    """Ruling death_at: ``constitution`` reads the Constitution value
    (Gruk's default 50: dead below -50); ``off`` never kills from hits.
    The sheet without body_development reads Constitution too."""
    f = _fight(tmp_path, death_at=ruling, death_delay="at-once")
    state = f.state
    g = state.combatants["gruk"]
    g = replace(g, locations=(replace(g.location("body"), hp=hp),))
    draft = Draft(replace(state, combatants={**state.combatants, "gruk": g}), dicelib.Roller(None, "e", 0, [], manual=True))
    core.check_down(draft, "gruk")
    assert (draft.state.combatants["gruk"].status == "dead") is dies
    no_bd = replace(g, sheet={k: v for k, v in g.sheet.items() if k != "skills"})
    assert core.death_limit(replace(state, rulings={}), no_bd) == (50, "Constitution")


def test_the_unconscious_bleed_on_and_healing_stops_dying(tmp_path):
    """RMH upkeep: bleeding goes on while unconscious (one hit a round
    here); a dying combatant healed back to -BD or better lives; otherwise
    one round of the five minutes passes each end of round."""
    f = _fight(tmp_path, third=True)
    f.run(ROLL, "10")  # -11 hits, dying, 1 per round
    f.run(cmd.TakeAction(who="gorg", action="pass"))
    f.run(cmd.EndRound(), "10,5,1,1")
    g = f.who("gruk")
    assert g.location("body").hp == -12 and next(k for k in g.conditions if k.name == "dying").ends.count == 59
    f.run(cmd.Heal(who="gruk", location="body", amount=3, reason="a healer's draught"))
    assert f.who("gruk").location("body").hp == -9 and not f.who("gruk").has("dying")  # at once
    f.run(cmd.TakeAction(who="kestrel", action="pass"))
    f.run(cmd.TakeAction(who="gorg", action="pass"))
    f.run(cmd.EndRound(), "10,5,1,1")
    assert f.who("gruk").location("body").hp == -10 and not f.who("gruk").has("dying")
    assert f.who("gruk").status == "unconscious"


def test_the_soul_departs_at_the_end_of_the_last_round(tmp_path):
    """The 60th round's end: the dying combatant dies (RMH 'Death')."""
    f = _fight(tmp_path)
    f.run(ROLL, "10")
    state = f.state
    g = state.combatants["gruk"]
    last = [replace(k, ends=ev.ConditionEnd(kind="rounds", count=1)) if k.name == "dying" else k for k in g.conditions]
    state = replace(state, combatants={**state.combatants, "gruk": replace(g, conditions=tuple(last))})
    draft = Draft(state, dicelib.Roller(None, "e", 0, [], manual=True))
    core.dying_upkeep(draft, "gruk", 7)
    assert draft.state.combatants["gruk"].status == "dead" and not draft.state.combatants["gruk"].has("dying")


def test_healed_back_above_the_threshold_stops_dying_at_once(tmp_path):
    """RMH 'Death': "If someone heals enough of these hits (before the five
    minutes are up) to drop the total under the sum mentioned above, then
    death will not occur": the ``dying`` condition ends with the heal, not
    at the next end of round. Set to -12 (still past -10) it goes on; a
    heal of 2 (-10) ends it. The status stays unconscious (0 hits or less:
    the GM rules waking)."""
    f = _fight(tmp_path)
    f.run(ROLL, "10")
    assert f.who("gruk").has("dying")
    f.run(cmd.SetHitPoints(who="gruk", location="body", hp=-12, reason="a second look"))
    assert f.who("gruk").has("dying")  # still past -10
    f.run(cmd.Heal(who="gruk", location="body", amount=2, reason="a healer's draught"))
    g = f.who("gruk")
    assert g.location("body").hp == -10 and not g.has("dying") and g.status == "unconscious"
    ended = [e for e in f.events(ev.ConditionExpired) if e.condition_id.startswith("dying")]
    assert ended and "healed in time (-10 hits, not past -10)" in ended[-1].reason
    # the GM's 'set' is fiat, not damage: setting the hits past the threshold again does not start dying
    f.run(cmd.SetHitPoints(who="gruk", location="body", hp=-30, reason="the draught failed"))
    assert not f.who("gruk").has("dying")


def test_set_hit_points_above_the_threshold_stops_dying(tmp_path):
    """``affray set WHO hp body N`` to -limit or better ends ``dying`` at once (RMH 'Death')."""
    f = _fight(tmp_path)
    f.run(ROLL, "10")
    f.run(cmd.SetHitPoints(who="gruk", location="body", hp=-5, reason="the GM rules a lighter wound"))
    assert not f.who("gruk").has("dying") and f.who("gruk").status == "unconscious"
