"""Combat Actions, movement and engagement in mythras (seed 001 "Combat
Actions", "Movement", "Close Combat": Charging, Knockback, Leaping
Attacks, Outmaneuvering, Passive Blocking, Cover, Surprise, Sweep
Attacks), each test named after its section, through ``execute`` with
typed dice. Figures as in test_mythras_flow.py.
"""

from __future__ import annotations

import pytest

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.base import RuleError
from affray.rules.mythras import tables

from test_mythras_flow import Table, attack, choose, kaelin_first, react, sheet


def act(t, who, action, dice=""):
    return t(cmd.TakeAction(who=who, action=action), dice)


# --------------------------------------------------------------------------- #
# "Delay", "Interrupt", AP cycles ("Turns")
# --------------------------------------------------------------------------- #


def test_interrupt_takes_a_delayed_turn_inside_the_opponents():
    """Seed 001 "Interrupt": a delaying character halts an opponent's Turn
    to take the delayed action; the opponent's Turn then continues."""
    t = kaelin_first()
    act(t, "kaelin", "delay")
    assert t.state.turn == ("grusk",)
    with pytest.raises(RuleError, match="only a delaying character"):
        act(t, "grusk", "interrupt")
    act(t, "kaelin", "interrupt")
    assert t.state.turn == ("kaelin",) and t.c("kaelin").has("interrupting")
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "parry", "80")  # both fail: the exchange ends
    assert t.state.turn == ("grusk",) and not t.c("kaelin").has("interrupting")
    assert t.c("kaelin").combat_actions == 1 and t.c("grusk").combat_actions == 1


def test_delay_holds_points_for_reactions_and_they_do_not_carry_over():
    """Seed 001 "Delay" and "Actions in Combat": unused Action Points do
    not carry over to the next round."""
    t = kaelin_first()
    act(t, "kaelin", "delay")
    act(t, "grusk", "pass")
    act(t, "grusk", "pass")
    assert t.step().kind == "end-round" and t.c("kaelin").combat_actions == 2
    t(cmd.EndRound())
    assert t.c("kaelin").combat_actions == 2 and not t.c("kaelin").has("holding")


def test_unknown_action_is_one_line():
    t = kaelin_first()
    with pytest.raises(RuleError, match="unknown action 'dance'"):
        act(t, "kaelin", "dance")


# --------------------------------------------------------------------------- #
# "Movement": Move, Hustle, Change Range, Mount
# --------------------------------------------------------------------------- #


def test_move_into_contact_engages_and_attacks_without_another_point():
    """Seed 001 "Move": if the move brings them into contact with an enemy,
    they may make a melee attack without expending a further Action."""
    t = kaelin_first()
    act(t, "kaelin", "move:grusk")
    assert "grusk" in t.c("kaelin").engaged and t.c("kaelin").combat_actions == 1
    assert t.step().options == ("attack", "pass")
    attack(t, "kaelin", "grusk", "90")
    assert t.c("kaelin").combat_actions == 1  # the attack came with the Move
    react(t, "grusk", "none")
    with pytest.raises(RuleError, match="engaged"):
        act(t, "grusk", "move")  # "Movement": once Engaged, no moving away


def test_hustle_makes_ranged_attacks_harder_until_its_next_turn():
    t = kaelin_first()
    act(t, "kaelin", "hustle:sprint")
    moved = t.new(ev.CombatantMoved)[0]
    assert moved.distance == 30 and t.c("kaelin").has("sprinting")  # 5 x 6 m
    act(t, "grusk", "pass")
    assert not t.c("kaelin").has("sprinting")  # its next turn began


def test_mounted_foe_makes_the_defence_hard():
    """Seed 001 "Close Combat Situational Modifiers": defending against a
    mounted foe is Hard; "Mount" is a Proactive Action."""
    g = sheet("grusk")
    g["skills"]["Ride"] = 70  # a rider's style is capped by Ride (issue 15 item 7): 70 leaves 60 as it is
    t = kaelin_first(grusk=g)
    act(t, "kaelin", "pass")
    act(t, "grusk", "mount")
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "parry", "50")
    assert t.new(ev.SkillTested)[0].target == 60  # Grusk is mounted, Kaelin is not: no penalty for him
    t2 = kaelin_first()
    act(t2, "kaelin", "mount")
    act(t2, "grusk", "pass")
    attack(t2, "kaelin", "grusk", "90")
    react(t2, "grusk", "parry", "50")
    assert t2.new(ev.SkillTested)[0].target == 40  # Hard: 60 x 2/3


# --------------------------------------------------------------------------- #
# "Charging"
# --------------------------------------------------------------------------- #


def test_charge_is_hard_and_steps_up_size_and_damage_modifier():
    """Seed 001 "Charging": Hard; the weapon's Size and the biped's Damage
    Modifier one step up; then stop or sweep past."""
    t = kaelin_first()
    t(cmd.DeclareAttack(attacker="kaelin", target="grusk", situations=("charge",)), "30")
    assert t.new(ev.SkillTested)[0].target == 44  # 65 x 2/3
    assert "counterattack" in t.step().options
    react(t, "grusk", "none")
    choose(t, "kaelin", "none")
    assert [d.expr for d in t.step().dice] == ["1D8", "1D4", "1D20"]  # +1D2 -> +1D4
    t(cmd.RollPending(), "5,4,11")
    assert t.step().kind == "charge-end" and t.step().options == ("stop", "sweep-past")
    choose(t, "kaelin", "sweep-past")
    assert "grusk" not in t.c("kaelin").engaged and t.state.turn == ("grusk",)


def test_charge_parried_by_size_one_step_up():
    t = kaelin_first()
    t(cmd.DeclareAttack(attacker="kaelin", target="grusk", situations=("charge",)), "30")
    react(t, "grusk", "parry", "40")
    rr = t.new(ev.ReactionResolved)[0]
    assert rr.effects["block"] == 2  # a Large charging Longsword against the Huge Maul: still all


def test_charge_needs_to_be_unengaged():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "none")
    with pytest.raises(RuleError, match="cannot charge"):
        t(cmd.DeclareAttack(attacker="grusk", target="kaelin", situations=("charge",)), "30")


def test_counterattack_against_a_charge_longer_weapon_first():
    """Seed 001 "Charging": the recipient may counterattack instead of
    parrying; the wielder of the longer weapon strikes first."""
    t = kaelin_first()
    t(cmd.DeclareAttack(attacker="kaelin", target="grusk", situations=("charge",)), "30")
    react(t, "grusk", "counterattack", "20")  # the Maul (long) outreaches the Longsword (medium)
    x = t.state.exchange
    assert (x.attacker, x.target) == ("grusk", "kaelin") and "counter" in x.kind
    choose(t, "grusk", "none")
    t(cmd.RollPending(), "1,1,1,2")  # Grusk's blow: 3 to Kaelin's right leg
    x = t.state.exchange
    assert (x.attacker, x.target) == ("kaelin", "grusk") and "charge" in x.kind
    choose(t, "kaelin", "none")
    t(cmd.RollPending(), "2,1,11")
    assert [d.target for d in t.log(ev.DamageDealt)] == ["kaelin", "grusk"]
    assert t.step().kind == "charge-end"
    choose(t, "kaelin", "stop")
    assert t.state.exchange is None and t.state.turn == ("grusk",)


def test_set_weapon_uses_the_chargers_damage_modifier():
    g = sheet("grusk")
    g["weapons"][0]["traits"] = ["bludgeoning", "two-handed", "set"]
    g["weapons"][0]["reach"] = "short"
    t = kaelin_first(grusk=g)
    t(cmd.DeclareAttack(attacker="kaelin", target="grusk", situations=("charge",)), "30")
    react(t, "grusk", "counterattack", "20")  # the Longsword is longer now: the charge first
    choose(t, "kaelin", "none")
    t(cmd.RollPending(), "2,1,11")
    choose(t, "kaelin", "stop")
    assert t.state.exchange.attacker == "grusk"
    choose(t, "grusk", "none")
    assert [d.expr for d in t.step().dice] == ["2D6", "1D2", "1D20"]  # Kaelin's +1D2


# --------------------------------------------------------------------------- #
# "Knockback", "Brace"
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("damage, siz, feet", [(14, 14, 0), (15, 14, 5), (22, 14, 5), (23, 14, 10), (31, 14, 15)])
def test_knockback_distances(damage, siz, feet):
    """Seed 001 "Knockback": 5 feet for each 8 points (or fraction) over SIZ."""
    assert tables.knockback_feet(damage, siz) == feet


def test_knockback_and_brace():
    """16 damage on SIZ 14: 5 ft back and an Easy Acrobatics or Athletics
    roll; braced, SIZ counts 21 and nothing happens (seed 001 "Brace").
    The blow is also a Major Wound to the leg: ruling major_wound_prone
    "never" keeps this test about Knockback alone."""
    t = kaelin_first(rulings={"major_wound_prone": "never"})
    act(t, "kaelin", "pass")
    attack(t, "grusk", "kaelin", "30")
    react(t, "kaelin", "none")
    choose(t, "grusk", "none")
    t(cmd.RollPending(), "6,6,4,2")  # 16 to the right leg
    assert t.new(ev.CombatantMoved)[0].distance == 1.5
    assert t.step().kind == "knockback"
    t(cmd.RollPending(), "40")  # Athletics 49 (Acrobatics 0 at Easy is 0): stays up
    assert t.c("kaelin").stance == "standing"
    t2 = kaelin_first()
    act(t2, "kaelin", "brace")
    attack(t2, "grusk", "kaelin", "30")
    react(t2, "kaelin", "none")
    choose(t2, "grusk", "none")
    t2(cmd.RollPending(), "6,6,4,2")
    assert not t2.new(ev.CombatantMoved)


def test_knockback_ruling_off():
    t = kaelin_first(rulings={"knockback": "off"})
    act(t, "kaelin", "pass")
    attack(t, "grusk", "kaelin", "30")
    react(t, "kaelin", "none")
    choose(t, "grusk", "none")
    t(cmd.RollPending(), "6,6,4,2")
    assert not t.new(ev.CombatantMoved)


# --------------------------------------------------------------------------- #
# "Outmaneuvering"
# --------------------------------------------------------------------------- #


def test_outmaneuver_blocks_the_beaten_and_lets_the_winner_withdraw():
    """Seed 001 "Outmaneuvering": a group Opposed Roll of Evade, everyone
    spending an Action Point; those who fail to beat the roll cannot attack
    the maneuvering character this round; beating all, one may withdraw."""
    t2 = kaelin_first()
    attack(t2, "kaelin", "grusk", "90")
    react(t2, "grusk", "none")  # engaged now; Grusk keeps 2 AP
    act(t2, "grusk", "pass")
    act(t2, "kaelin", "outmaneuver")
    assert t2.c("grusk").combat_actions == 0 and t2.step().kind == "outmaneuver"
    t2(cmd.RollPending(), "10,90")
    assert t2.c("grusk").has("outmaneuvered")
    assert t2.step().kind == "outmaneuver-end" and t2.step().options == ("withdraw", "engage:grusk")
    choose(t2, "kaelin", "withdraw")
    assert not t2.c("kaelin").engaged


def test_outmaneuvered_foe_cannot_attack():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "none")
    act(t, "grusk", "pass")
    act(t, "kaelin", "outmaneuver")
    t(cmd.RollPending(), "30,20")  # both succeed, Kaelin's higher roll wins
    choose(t, "kaelin", "engage:grusk")
    assert t.c("grusk").has("outmaneuvered") and t.step().kind == "end-round"
    t(cmd.EndRound())
    assert not t.c("grusk").has("outmaneuvered")  # for the rest of that round only


def test_outmaneuver_lost():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "none")
    act(t, "grusk", "pass")
    act(t, "kaelin", "outmaneuver")
    t(cmd.RollPending(), "90,10")
    assert not t.c("grusk").has("outmaneuvered") and t.step().kind == "end-round"


# --------------------------------------------------------------------------- #
# "Ward Location" / "Passive Blocking", "Cover" / "Take Cover"
# --------------------------------------------------------------------------- #


def test_ward_location_blocks_as_a_parry_of_its_size_until_it_parries():
    t = kaelin_first()
    act(t, "kaelin", "ward:chest,abdomen")  # free: the Heater Shield covers two locations
    assert t.c("kaelin").combat_actions == 2 and t.state.turn == ("kaelin",)
    with pytest.raises(RuleError, match="at most 2"):
        act(t, "kaelin", "ward:chest,abdomen,head")
    act(t, "kaelin", "pass")
    attack(t, "grusk", "kaelin", "30")
    react(t, "kaelin", "none")
    choose(t, "grusk", "none")
    t(cmd.RollPending(), "3,3,2,11")  # 8 to the chest: Large against Huge halves -> 4, AP 3 -> 1
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.reduced, dd.armour, dd.final) == (4, 3, 1) and "warded by Heater Shield" in dd.note


def test_ward_ends_when_the_weapon_parries():
    t = kaelin_first()
    act(t, "kaelin", "ward:chest")
    act(t, "kaelin", "pass")
    attack(t, "grusk", "kaelin", "90")
    react(t, "kaelin", "parry", "50")
    assert not t.c("kaelin").has("warding")


def test_take_cover_adds_its_armour_points():
    t = kaelin_first()
    act(t, "kaelin", "take-cover:4:legs")
    attack(t, "grusk", "kaelin", "30")
    react(t, "kaelin", "none")
    choose(t, "grusk", "none")
    t(cmd.RollPending(), "3,3,2,2")  # 8 to the right leg: AP 2 + cover 4 -> 2
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.armour, dd.final) == (6, 2) and t.c("kaelin").stance == "standing"


# --------------------------------------------------------------------------- #
# "Use Luck Point", free actions
# --------------------------------------------------------------------------- #


def test_luck_point_rerolls_the_attack_before_the_reaction():
    t = kaelin_first(kaelin=sheet("kaelin", luck_points=1))
    attack(t, "kaelin", "grusk", "90")
    act(t, "kaelin", "luck", "30")  # free: no Action Point
    assert t.c("kaelin").combat_actions == 1 and t.state.exchange.hit
    assert t.step().kind == "react"
    with pytest.raises(RuleError, match="no Luck Points left"):
        act(t, "kaelin", "luck", "10")


def test_luck_point_rerolls_the_parry_and_resolves_anew():
    t = kaelin_first(grusk=sheet("grusk", luck_points=1))
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "parry", "90")  # failure: Kaelin wins an effect
    assert t.step().who == "kaelin"
    act(t, "grusk", "luck", "20")
    rr = t.new(ev.ReactionResolved)[0]
    assert rr.cell == "differential:parry success/success" and t.step().kind == "damage"


def test_speak_signal_drop_assess():
    t = kaelin_first()
    act(t, "kaelin", "speak:Yield, orc!")
    assert t.new(ev.NoteAdded)[0].text == "Kaelin says: Yield, orc!"
    act(t, "kaelin", "drop:longsword")
    assert "Longsword" not in t.c("kaelin").ready and t.c("kaelin").combat_actions == 2
    act(t, "kaelin", "assess")
    assert t.step().kind == "assess"
    t(cmd.RollPending(), "50")
    assert t.state.turn == ("kaelin",)
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "none")
    with pytest.raises(RuleError, match="engaged"):
        act(t, "kaelin", "signal:charge")


# --------------------------------------------------------------------------- #
# "Leaping Attacks", "Sweep Attacks", "Regain Footing"
# --------------------------------------------------------------------------- #


def test_leaping_attack_pins_and_blocks_regaining_footing():
    """Seed 001 "Leaping Attacks": Athletics against Brawn or Evade; the
    loser is knocked prone with the attacker astride, no damage, and cannot
    regain footing until the attacker leaves or an Arise is won."""
    t = kaelin_first()
    act(t, "kaelin", "leap:grusk", "40,80")  # Athletics 49: 40; Grusk's Brawn 51: 80 fails
    assert t.c("grusk").stance == "prone" and t.c("grusk").has("pinned")
    assert not t.log(ev.DamageDealt)
    assert t.step().kind == "special-effect" and "impale" not in t.step().options
    choose(t, "kaelin", "none")
    with pytest.raises(RuleError, match="pinned"):
        act(t, "grusk", "stand")


def test_leap_only_up_to_twice_the_siz():
    big = sheet("grusk")
    big["characteristics"] = dict(big["characteristics"], SIZ=29)
    t = kaelin_first(grusk=big)
    with pytest.raises(RuleError, match="twice"):
        act(t, "kaelin", "leap:grusk", "40,80")


def test_sweep_attack_one_roll_each_defender_separately():
    t = Table()
    b = sheet("grusk")
    b["name"] = "Brakka"
    t(cmd.JoinCombatant(sheet=b, side="orcs", handle="brakka"))
    t(cmd.StartRound(), "7,5,1")
    act(t, "kaelin", "sweep:grusk,brakka", "30")
    assert t.state.exchange.target == "grusk" and t.step().kind == "react"
    react(t, "grusk", "parry", "80")
    choose(t, "kaelin", "none")
    t(cmd.RollPending(), "1,1,11")
    x = t.state.exchange
    assert x.target == "brakka" and x.roll == 30 and t.step().kind == "react"
    react(t, "brakka", "parry", "10")
    t(cmd.RollPending(), "1,1,11")
    assert [d.target for d in t.log(ev.DamageDealt)] == ["grusk", "brakka"]
    assert len([e for e in t.log(ev.SkillTested) if e.handle == "kaelin"]) == 1


# --------------------------------------------------------------------------- #
# "Surprise", "Close Combat Situational Modifiers" (Automatic)
# --------------------------------------------------------------------------- #


def test_attacking_a_helpless_target_is_automatic():
    t = kaelin_first()
    t(cmd.DeclareAttack(attacker="kaelin", target="grusk", situations=("helpless",)))
    assert not t.new(ev.SkillTested)
    assert t.new(ev.ReactionChosen)[0].reaction == "none"
    assert t.step().kind == "special-effect"


def test_surprised_cannot_act_offensively_for_the_round():
    t = Table(surprised=True)
    t(cmd.StartRound(), "7,9")
    act(t, "kaelin", "pass")
    assert "attack" not in t.step().options
    with pytest.raises(RuleError, match="cannot attack"):
        attack(t, "grusk", "kaelin", "10")


def test_change_range_closes_in_and_engages():
    """Seed 001 "Change Range": close in on an opponent (then "Move": a
    melee attack follows without a further Action Point)."""
    t = kaelin_first()
    act(t, "kaelin", "change-range:grusk")
    assert "grusk" in t.c("kaelin").engaged and t.step().options == ("attack", "pass")
    with pytest.raises(RuleError, match="needs a target"):
        t2 = kaelin_first()
        act(t2, "kaelin", "change-range")
