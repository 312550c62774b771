"""Rule fidelity for mythras (issue 15, "Also": the second pass through
seed 001 section by section), each finding played through the real command
path with table dice.

Every test names its seed section (seed 001_0613c1b7f6517492.txt, CFI
Chapter 8: Combat) and quotes the seed's words it checks. Figures as in
test_mythras_flow.py (Kaelin 65%, Grusk 60%, Maul 2D6 Huge).
"""

from __future__ import annotations

import pytest

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.base import RuleError
from affray.rules.mythras.core import find_weapon, hand_of, usable

from test_mythras_fidelity import bleeding_grusk, next_round
from test_mythras_flow import Table, attack, kaelin_first, react, sheet


def act(t, who, action, dice=""):
    return t(cmd.TakeAction(who=who, action=action), dice)


def _medic_grusk(**kw):
    """Grusk (First Aid 50%) bleeds from the chest; it is his Turn."""
    grusk = sheet("grusk")
    grusk["skills"] = dict(grusk["skills"], **{"First Aid": 50})
    t = bleeding_grusk(grusk=grusk, **kw)
    assert t.state.turn == ("grusk",)
    return t


def fatigue_of(t, who):
    return [e for e in t.log(ev.ConditionApplied) if e.handle == who and e.condition.name == "fatigue"]


def test_first_aid_staunches_a_bleed():
    """Seed 001 "Bleed": "Bleeding wounds can be staunched by passing a
    First Aid skill roll". Grusk's First Aid (30 against 50) ends the Bleed
    for 1 Action Point, and the next round costs him no Fatigue level."""
    t = _medic_grusk()
    ap = t.c("grusk").combat_actions
    act(t, "grusk", "first-aid:grusk", "30")
    assert not t.c("grusk").has("bleeding") and t.c("grusk").has("staunched")
    assert t.c("grusk").combat_actions == ap - 1
    tested = t.new(ev.SkillTested)[0]
    assert (tested.skill, tested.target, tested.result) == ("First Aid", 50, "success")
    before = len(fatigue_of(t, "grusk"))
    next_round(t)
    assert len(fatigue_of(t, "grusk")) == before


def test_a_failed_first_aid_leaves_the_bleed():
    """Seed 001 "Bleed": only "passing a First Aid skill roll" staunches
    it; 80 against 50 fails, and the Action Point is spent."""
    t = _medic_grusk()
    act(t, "grusk", "first-aid:grusk", "80")
    assert t.c("grusk").has("bleeding") and not t.c("grusk").has("staunched")
    assert "still bleeds" in t.new(ev.NoteAdded)[0].text


def test_first_aid_needs_a_bleeding_patient():
    """Seed 001 "Bleed": First Aid staunches a bleeding wound; Kaelin does
    not bleed, so it is refused in one line with nothing appended."""
    t = _medic_grusk()
    logged = len(list(t.store.read(t.eid)))
    with pytest.raises(RuleError, match="Kaelin is not bleeding"):
        act(t, "grusk", "first-aid:kaelin", "30")
    with pytest.raises(RuleError, match="needs a patient"):
        act(t, "grusk", "first-aid", "30")
    assert len(list(t.store.read(t.eid))) == logged


def test_an_attack_re_opens_a_staunched_bleed():
    """Seed 001 "Bleed": "the recipient can no longer perform any
    strenuous or violent action without re-opening the wound". Staunched,
    Grusk attacks: he bleeds again."""
    t = _medic_grusk()
    act(t, "grusk", "first-aid:grusk", "30")
    act(t, "brakka", "pass")
    act(t, "kaelin", "pass")
    attack(t, "grusk", "kaelin", "90")
    assert t.c("grusk").has("bleeding") and not t.c("grusk").has("staunched")
    reopened = [e for e in t.new(ev.ConditionExpired) if e.condition_id.startswith("staunched")]
    assert reopened[0].reason == "attacks: the wound re-opens"


@pytest.mark.parametrize("ruling,reopens", [("proactive", False), ("reactions-too", True)])
def test_ruling_staunched_reopens_on_a_parry(ruling, reopens):
    """Ruling ``staunched_reopens``: seed 001 "Bleed" does not list the
    "strenuous or violent" actions; by default (``proactive``) a Parry
    keeps the wound closed, ``reactions-too`` re-opens it."""
    t = _medic_grusk(rulings={"staunched_reopens": ruling})
    act(t, "grusk", "first-aid:grusk", "30")
    act(t, "brakka", "pass")
    attack(t, "kaelin", "grusk", "40")
    react(t, "grusk", "parry", "50")
    assert t.c("grusk").has("bleeding") is reopens


def test_dither_wastes_the_turn_and_its_action_point():
    """Seed 001 "Dither": "The default option unless another Action is
    chosen, the character simply wastes his turn doing nothing useful."
    Kaelin dithers: one Action Point is gone and Grusk's Turn comes."""
    t = kaelin_first()
    act(t, "kaelin", "dither")
    assert t.c("kaelin").combat_actions == 1 and t.state.turn == ("grusk",)
    assert [e.reason for e in t.new(ev.ActionSpent)] == ["dither"]


def test_hustle_once_a_round_move_as_often_as_wanted():
    """Seed 001 "Move": "Unlike the Hustle Action, the Move Action may be
    taken multiple times during a Combat Round." A second Hustle in the
    round is refused in one line; a Move is not; the next round Kaelin may
    hustle again."""
    t = kaelin_first()
    act(t, "kaelin", "hustle:run")
    act(t, "grusk", "pass")
    logged = len(list(t.store.read(t.eid)))
    with pytest.raises(RuleError, match="Hustle is once a Combat Round"):
        act(t, "kaelin", "hustle:sprint")
    assert len(list(t.store.read(t.eid))) == logged
    act(t, "kaelin", "move")
    act(t, "grusk", "pass")
    t(cmd.EndRound())
    act(t, "kaelin", "hustle:sprint")
    assert t.c("kaelin").has("sprinting")


def _surprised_grusks_turn():
    """Grusk is surprised (5 + 8 - 10 = 3); Kaelin (17) and Brakka (9)
    pass; Grusk's Turn in round 1."""
    t = Table(surprised=True)
    b = sheet("grusk")
    b["name"] = "Brakka"
    t(cmd.JoinCombatant(sheet=b, side="orcs", handle="brakka"))
    t(cmd.StartRound(), "7,5,1")
    act(t, "kaelin", "pass")
    act(t, "brakka", "pass")
    assert t.state.turn == ("grusk",) and t.c("grusk").has("surprised")
    return t


def test_a_surprised_fighter_may_not_leap_either():
    """Seed 001 "Surprise": "For the remainder of the Round, they may not
    perform any offensive Action"; a Leaping Attack is one ("Leaping
    Attacks"). Refused in one line, nothing appended; so is a leap at
    oneself."""
    t = _surprised_grusks_turn()
    logged = len(list(t.store.read(t.eid)))
    with pytest.raises(RuleError, match="Grusk cannot attack now"):
        act(t, "grusk", "leap:kaelin", "40,80")
    with pytest.raises(RuleError, match="cannot attack themself"):
        act(t, "grusk", "leap:grusk", "40,80")
    assert len(list(t.store.read(t.eid))) == logged


def test_a_sweep_is_an_attack_on_each_target():
    """Seed 001 "Sweep Attacks": "applying a single attack roll of the
    weapon or creature to all targets in its path" - an attack on each,
    so a surprised fighter may not sweep ("Surprise": no offensive Action),
    and one foe named twice is refused."""
    t = _surprised_grusks_turn()
    with pytest.raises(RuleError, match="Grusk cannot attack now"):
        act(t, "grusk", "sweep:kaelin,brakka", "30")
    t2 = kaelin_first()
    with pytest.raises(RuleError, match="names a target twice"):
        act(t2, "kaelin", "sweep:grusk,grusk", "30")


def _stunned_kaelin(d20: str):
    """Grusk's Maul (Stun Location) strikes Kaelin at ``d20``: 3 + 2 + DM 1
    = 6 less 3 AP = 3 through; her Endurance fails against the 30: stunned
    for 3 Turns. Grusk passes; it is Kaelin's Turn."""
    from test_mythras_effects import grusk_first
    from test_mythras_flow import choose

    t = grusk_first()
    attack(t, "grusk", "kaelin", "30")
    react(t, "kaelin", "none")
    choose(t, "grusk", "stun-location")
    t(cmd.RollPending(), f"3,2,1,{d20}")
    t(cmd.RollPending(), "90")
    assert t.c("kaelin").has("stunned-location") and t.state.turn == ("kaelin",)
    return t


def test_a_stunned_torso_only_defends():
    """Seed 001 "Stun Location": "A blow to the torso causes the defender
    to stagger winded, only able to defend." Kaelin, stunned in the chest,
    may not ready or sheathe a weapon (only attacks were refused before);
    she may brace (our reading: defence)."""
    t = _stunned_kaelin("11")
    with pytest.raises(RuleError, match="only able to defend"):
        act(t, "kaelin", "sheathe:longsword")
    with pytest.raises(RuleError, match="cannot attack now"):
        attack(t, "kaelin", "grusk", "10")
    act(t, "kaelin", "brace")
    assert t.c("kaelin").has("braced")


def test_a_stunned_head_cannot_act_at_all():
    """Seed 001 "Stun Location": "A head shot renders the foe briefly
    insensible and unable to act." Kaelin may not even brace or ward; she
    may pass."""
    t = _stunned_kaelin("19")
    for action in ("brace", "ward:chest", "stand"):
        with pytest.raises(RuleError, match="unable to act"):
            act(t, "kaelin", action)
    act(t, "kaelin", "pass")
    assert t.state.turn == ("grusk",)


def test_no_counterattack_against_a_charge_from_one_who_may_not_attack():
    """Seed 001 "Charging": "the recipient of a charge can simultaneously
    counterattack the charging attacker instead" - an attack, so not by a
    fighter who may not attack now (a Serious Wound: "cannot attack for 1d3
    turns", rules-reference B15). Grusk is offered parry, evade or none,
    and a typed counterattack is refused."""
    from affray.rules.mythras import conditions as cat

    t = kaelin_first()
    wounded = cat.make("cannot-attack", cause=1, round=1, step=0, ends="actions", count=2,
                       effects={"cannot-attack": 1}, note="Serious Wound to the chest")
    t.store.append(t.eid, t.state.version, [ev.ConditionApplied(handle="grusk", condition=wounded)],
                   command_id="wound", actor="gm")
    t(cmd.DeclareAttack(attacker="kaelin", target="grusk", situations=("charge",)), "30")
    assert "counterattack" not in t.step().options and "parry" in t.step().options
    with pytest.raises(RuleError):
        react(t, "grusk", "counterattack", "20")


def test_a_useless_arm_cannot_take_up_a_weapon_again():
    """Rules-reference B15 (Serious Wound): a failed opposed Endurance roll
    means the victim "lose[s] the limb's use". Kaelin's right arm drops
    the Longsword; she may not ready it while her left hand holds the
    shield; with the shield dropped, the sword goes into her left hand."""
    from test_mythras_flow import choose

    t = kaelin_first()
    act(t, "kaelin", "pass")
    attack(t, "grusk", "kaelin", "30")
    react(t, "kaelin", "none")
    choose(t, "grusk", "choose-location")
    choose(t, "grusk", "right arm")
    t(cmd.RollPending(), "3,3,2")  # 8 less AP 2: right arm 5 -> -1, a Serious Wound
    t(cmd.RollPending(), "2,90")  # Endurance fails: the arm is useless
    assert t.c("kaelin").ready == ("Heater Shield",)
    with pytest.raises(RuleError, match="right arm is useless"):
        act(t, "kaelin", "ready:longsword")
    act(t, "kaelin", "drop:heater shield")
    act(t, "kaelin", "ready:longsword")
    k = t.c("kaelin")
    assert k.ready == ("Longsword",) and hand_of(k, "Longsword") == "left arm"
    assert usable(t.state, k, find_weapon(k, "Longsword")) == ""


def test_an_outmaneuvered_foe_may_not_leap_at_the_maneuverer_either():
    """Seed 001 "Outmaneuvering": "those who fail to beat the maneuvering
    character's roll cannot attack him for the remainder of that Combat
    Round"; a Leaping Attack is an attack ("Leaping Attacks"). Grusk (4
    Action Points) loses the Outmaneuver and may neither attack nor leap
    at Kaelin this round."""
    t = kaelin_first(grusk=sheet("grusk", extra_ap=2))
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "none")
    act(t, "grusk", "pass")
    act(t, "kaelin", "outmaneuver")
    t(cmd.RollPending(), "30,20")  # Kaelin's 30 beats Grusk's 20
    t(cmd.MakeChoice(who="kaelin", option="engage:grusk"))
    assert t.c("grusk").has("outmaneuvered") and t.state.turn == ("grusk",)
    with pytest.raises(RuleError, match="outmaneuvered by Kaelin"):
        act(t, "grusk", "leap:kaelin", "10,90")
    with pytest.raises(RuleError, match="outmaneuvered by Kaelin"):
        attack(t, "grusk", "kaelin", "10")


def test_a_useless_leg_neither_stands_nor_moves():
    """Rules-reference B15 (Serious Wound): a failed opposed Endurance roll
    means the victim "lose[s] the limb's use"; a useless leg drops him
    prone. Our reading, as for a stunned or snared leg (seed 001 "Stun
    Location", "Entangle": "a snared leg prevents the target from
    moving"): Kaelin may not regain her footing while the leg is useless."""
    from test_mythras_flow import choose

    t = kaelin_first()
    act(t, "kaelin", "pass")
    attack(t, "grusk", "kaelin", "30")
    react(t, "kaelin", "none")
    choose(t, "grusk", "choose-location")
    choose(t, "grusk", "right leg")
    t(cmd.RollPending(), "4,3,2")  # 9 less AP 2: right leg 6 -> -1, a Serious Wound
    t(cmd.RollPending(), "2,90")  # Endurance fails: the leg is useless, Kaelin falls
    assert t.c("kaelin").stance == "prone" and t.state.turn == ("kaelin",)
    with pytest.raises(RuleError, match="right leg is useless"):
        act(t, "kaelin", "stand")
