"""Issue 15, Mythras: what an independent rules audit found wrong, each
test naming the section of seed 001 (``001_0613c1b7f6517492.txt``, CFI
Chapter 8: Combat) and quoting its words.

Figures as in test_mythras_flow.py: Kaelin 65% (critical <= 7), Longsword
1D8 Medium (AP 6, HP 12), Heater Shield 1D4 Large (AP 6, HP 12), DM +1D2,
chest 3 AP. Grusk 60% (critical <= 6), Maul 2D6 Huge (AP 4, HP 10), DM
+1D4, chest 2 worn + 1 natural AP.
"""

from __future__ import annotations

import pytest

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events.mythras import SpecialEffectChosen
from affray.rules.base import RuleError

from test_mythras_effects import WHIP, act, grusk_first, kaelin_with
from test_mythras_flow import attack, choose, kaelin_first, react


def weapon_damaged(t, who):
    return {c.id: c.effects["hp-lost"] for c in t.c(who).conditions if c.name == "weapon-damaged"}


# --------------------------------------------------------------------------- #
# 1, 2: Damage Weapon
# --------------------------------------------------------------------------- #


def test_damage_weapon_by_the_defender_strikes_the_attackers_weapon_and_the_blow_still_lands():
    """Seed 001 "Damage Weapon": "Permits the character to damage his
    opponent's weapon as part of an attack or Parry." The defender's parry
    damages the *attacker's* weapon; the attacker's blow still resolves as
    the parry allows ("Attacks and Parries" steps 5-7: "If the defender
    achieved a Success or Critical, reduce any damage inflicted according
    to the comparative sizes of the weapons involved")."""
    t = grusk_first()
    attack(t, "grusk", "kaelin", "30")  # success
    react(t, "kaelin", "parry", "03")  # critical with the Heater Shield (Large against the Huge Maul: half)
    choose(t, "kaelin", "damage-weapon")
    step = t.step()
    assert step.kind == "weapon-damage" and step.who == "kaelin"
    assert "Grusk's Maul" in step.prompt
    t(cmd.RollPending(), "4,2")  # shield 4 + DM 2 = 6 against the Maul's AP 4: 2 HP lost
    assert weapon_damaged(t, "grusk") == {"weapon-damaged:maul": 2}
    assert weapon_damaged(t, "kaelin") == {}
    notes = [e.text for e in t.new(ev.NoteAdded)]
    assert any(n.startswith("Damage Weapon by Kaelin") for n in notes)
    step = t.step()
    assert step.kind == "damage" and step.who == "grusk" and "Heater Shield" not in step.prompt
    t(cmd.RollPending(), "6,6,4,11")  # 16, halved by the parry to 8, chest 3 AP -> 5
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.target, dd.location, dd.rolled, dd.reduced, dd.armour, dd.final) == ("kaelin", "chest", 16, 8, 3, 5)
    assert weapon_damaged(t, "kaelin") == {}
    assert not any("Damage Weapon by Grusk" in e.text for e in t.log(ev.NoteAdded))


def test_damage_weapon_by_the_attacker_takes_the_whole_roll_before_the_parry():
    """Seed 001 "Damage Weapon": "If attacking, the character aims
    specifically at the defender's Parrying weapon and applies his damage
    roll to it, rather than the wielder. The targeted weapon uses its own
    Armor Points for resisting the damage." A parry that would deflect all
    of a blow at the wielder does not shield the parrying weapon itself."""
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "05")  # critical
    react(t, "grusk", "parry", "40")  # success with the Maul: Huge against Medium deflects all
    assert t.log(ev.ReactionResolved)[-1].effects["block"] == 2
    choose(t, "kaelin", "damage-weapon")
    t(cmd.RollPending(), "8,2,11")  # 8 + 2 = 10 against the Maul's AP 4: 6 HP lost
    assert weapon_damaged(t, "grusk") == {"weapon-damaged:maul": 6}
    assert not t.new(ev.DamageDealt)


# --------------------------------------------------------------------------- #
# 3: Stun Location on a limb
# --------------------------------------------------------------------------- #


def stunned_left_arm():
    """Grusk's Maul stuns Kaelin's left arm (the shield arm) for 2 Turns."""
    t = grusk_first()
    attack(t, "grusk", "kaelin", "30")
    react(t, "kaelin", "none")
    choose(t, "grusk", "stun-location")
    t(cmd.RollPending(), "2,1,1,17")  # 4 to the left arm, AP 2 -> 2
    assert t.step().kind == "wound" and t.step().who == "kaelin"
    t(cmd.RollPending(), "90")  # Endurance fails against the original 30
    applied = [e.condition for e in t.new(ev.ConditionApplied) if e.condition.name == "stunned-location"]
    assert [(c.location, c.ends.kind, c.ends.count) for c in applied][0] == ("left arm", "actions", 2)  # 2 damage: 2 Turns
    cond = [c for c in t.c("kaelin").conditions if c.name == "stunned-location"][0]
    assert cond.ends.count == 1  # her next Turn has begun: it is the first of the two
    assert "cannot-attack" not in cond.effects and "no-defence" not in cond.effects
    return t


def test_stun_location_on_an_arm_incapacitates_that_arm_only_its_shield_cannot_parry():
    """Seed 001 "Stun Location": "If the defender Fails, then the Hit
    Location is Incapacitated for a number of Turns equal to the damage
    inflicted." The stunned arm's shield cannot parry; the other hand's
    weapon still can."""
    t = stunned_left_arm()
    act(t, "kaelin", "delay")  # keeps her last Action Point for a parry
    attack(t, "grusk", "kaelin", "30")
    with pytest.raises(RuleError, match="left arm is stunned"):
        t(cmd.ChooseReaction(defender="kaelin", reaction="parry", with_item="Heater Shield"), "20")
    t(cmd.ChooseReaction(defender="kaelin", reaction="parry", with_item="Longsword"), "20")
    assert t.log(ev.ReactionChosen)[-1].reaction == "parry"


def test_stun_location_on_an_arm_leaves_the_other_hand_free_to_attack():
    """Seed 001 "Stun Location": only "the Hit Location" is Incapacitated;
    a blow to the torso leaves the foe "only able to defend", an arm does
    not: the right hand's Longsword still attacks."""
    t = stunned_left_arm()
    attack(t, "kaelin", "grusk", "30")
    assert t.state.exchange is not None and t.state.exchange.weapon == "Longsword"


# --------------------------------------------------------------------------- #
# 4: breaking an entangling weapon frees the victim
# --------------------------------------------------------------------------- #

FRAIL_WHIP = {**WHIP, "ap": 1, "hp": 4}


def grusk_entangled():
    """Kaelin's whip snares Grusk's right leg."""
    t = kaelin_first(kaelin=kaelin_with(FRAIL_WHIP, ready=["Whip", "Heater Shield"]))
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "entangle")
    t(cmd.RollPending(), "1,1,2")  # the right leg
    assert t.c("grusk").has("entangled")
    return t


def test_breaking_the_entangling_weapon_frees_the_victim():
    """Seed 001 "Entangle": "An entangled victim can attempt to free
    himself on his turn by either attempting an Opposed Roll using Brawn
    to yank free, or win a Special Effect and select Damage Weapon,
    Disarm Opponent, or Slip Free." Grusk wins, strikes the parrying whip
    ("If reduced to zero Hit Points the weapon breaks") and is free."""
    t = grusk_entangled()
    attack(t, "grusk", "kaelin", "05")  # critical
    t(cmd.ChooseReaction(defender="kaelin", reaction="parry", with_item="Whip"), "40")
    assert "damage-weapon" in t.step().options
    choose(t, "grusk", "damage-weapon")
    t(cmd.RollPending(), "3,3,2,11")  # 8 against the whip's AP 1: 7 HP lost of 4
    assert "Whip" not in t.c("kaelin").ready
    assert not t.c("grusk").has("entangled")
    assert any("Whip is broken" in e.reason for e in t.log(ev.ConditionExpired))


def test_an_entangled_attackers_damage_weapon_strikes_the_entangling_weapon():
    """Seed 001 "Entangle": the victim may "win a Special Effect and select
    Damage Weapon" to free himself; "Damage Weapon" itself names "the
    defender's Parrying weapon". Ruling ``entangled_damage_weapon``
    (default ``entangling-weapon``): the whip is struck even though Kaelin
    parries with her shield."""
    t = grusk_entangled()
    attack(t, "grusk", "kaelin", "05")  # critical
    t(cmd.ChooseReaction(defender="kaelin", reaction="parry", with_item="Heater Shield"), "40")
    choose(t, "grusk", "damage-weapon")
    assert "Kaelin's Whip" in t.step().prompt
    t(cmd.RollPending(), "3,3,2,11")
    assert weapon_damaged(t, "kaelin") == {"weapon-damaged:whip": 7}
    assert not t.c("grusk").has("entangled")


def test_entangled_damage_weapon_ruling_parrying_weapon():
    """The other reading of the same words: ``parrying-weapon`` strikes
    "the defender's Parrying weapon" as "Damage Weapon" says; the victim
    stays entangled."""
    t = kaelin_first(kaelin=kaelin_with(FRAIL_WHIP, ready=["Whip", "Heater Shield"]),
                     rulings={"entangled_damage_weapon": "parrying-weapon"})
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "entangle")
    t(cmd.RollPending(), "1,1,2")
    attack(t, "grusk", "kaelin", "05")
    t(cmd.ChooseReaction(defender="kaelin", reaction="parry", with_item="Heater Shield"), "40")
    choose(t, "grusk", "damage-weapon")
    t(cmd.RollPending(), "3,3,2,11")  # 8 against the shield's AP 6: 2 HP
    assert weapon_damaged(t, "kaelin") == {"weapon-damaged:heater shield": 2}
    assert t.c("grusk").has("entangled")


# --------------------------------------------------------------------------- #
# 5: Grip stops disengaging
# --------------------------------------------------------------------------- #


def grusk_gripped():
    t = kaelin_first()
    t(cmd.DeclareAttack(attacker="kaelin", target="grusk", weapon="Fist"), "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "grip")
    t(cmd.RollPending(), "1,1,11")
    assert t.c("grusk").has("gripped")
    return t


def test_a_gripped_fighter_cannot_outmaneuver_away():
    """Seed 001 "Grip": the gripper holds onto the opponent, "preventing
    them from being able to disengage from combat"; Outmaneuvering is
    movement out of the fight, so it is refused."""
    t = grusk_gripped()
    with pytest.raises(RuleError, match="gripped by Kaelin and cannot disengage"):
        act(t, "grusk", "outmaneuver")


def test_a_gripped_fighter_cannot_withdraw_from_the_gripper():
    """Seed 001 "Grip": "preventing them from being able to disengage from
    combat"; "Withdraw" ("breaking off engagement with that particular
    opponent") is not offered against the gripper; Slip Free is."""
    t = grusk_gripped()
    act(t, "grusk", "pass")
    attack(t, "kaelin", "grusk", "50")
    react(t, "grusk", "parry", "03")  # critical: Grusk wins
    options = t.step().options
    assert "withdraw" not in options and "slip-free" in options
    assert "grusk" in t.c("kaelin").engaged


def test_a_gripper_who_withdraws_lets_go():
    """Seed 001 "Withdraw": "breaking off engagement with that particular
    opponent"; the grip ends with it."""
    t = grusk_gripped()
    attack(t, "grusk", "kaelin", "50")
    react(t, "kaelin", "parry", "03")  # critical: Kaelin wins
    assert "withdraw" in t.step().options
    choose(t, "kaelin", "withdraw")
    assert not t.c("grusk").has("gripped")
    assert "grusk" not in t.c("kaelin").engaged


# --------------------------------------------------------------------------- #
# 6: Bypass Armor: worn or natural, the attacker's choice
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("which, armour", [("worn", 1), ("natural", 2)])
def test_bypass_armor_the_attacker_decides_worn_or_natural(which, armour):
    """Seed 001 "Bypass Armor": "If the defender is wearing armor above
    natural protection, then the attacker must decide which of the two is
    bypassed." Grusk's chest: 2 worn + 1 natural AP."""
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "05")  # critical
    react(t, "grusk", "none")
    choose(t, "kaelin", "bypass-armor")
    step = t.step()
    assert step.kind == "bypass-armor" and step.options == ("worn", "natural")
    choose(t, "kaelin", which)
    assert ("kaelin", "bypass-armor", which) in [(e.by, e.effect, e.detail) for e in t.log(SpecialEffectChosen)]
    while t.step().kind == "special-effect":
        choose(t, "kaelin", "none")
    t(cmd.RollPending(), "5,1,11")  # 6 to the chest
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.location, dd.rolled, dd.armour, dd.final) == ("chest", 6, armour, 6 - armour)


def test_bypass_armor_twice_bypasses_both_without_asking():
    """Seed 001 "Bypass Armor": "This effect can be stacked to bypass both." """
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "05")
    react(t, "grusk", "none")
    assert "(2 left)" in t.step().prompt  # a critical against no defence: two
    choose(t, "kaelin", "bypass-armor")
    choose(t, "kaelin", "worn")
    choose(t, "kaelin", "bypass-armor")
    assert t.step().kind == "damage"
    t(cmd.RollPending(), "5,1,11")
    assert t.new(ev.DamageDealt)[0].armour == 0


# --------------------------------------------------------------------------- #
# 8: Aiming takes an entire Combat Round
# --------------------------------------------------------------------------- #


def test_aiming_then_moving_gives_no_benefit():
    """Seed 001 "Aiming": "Aiming requires an entire Combat Round steadying
    the weapon". Aiming with 1 AP and then moving is not an entire round:
    the aim ends and next round's shot is as hard as ever."""
    from test_mythras_ranged import table, shoot

    t = table()
    act(t, "kaelin", "aim")
    act(t, "grusk", "pass")
    act(t, "kaelin", "move")
    assert not t.c("kaelin").has("aiming")
    assert any("aim broken by move" in e.reason for e in t.log(ev.ConditionExpired))
    act(t, "grusk", "pass")
    t(cmd.EndRound())
    shoot(t, "kaelin", "grusk", "90", "light-wind")
    assert t.new(ev.SkillTested)[0].target == 44  # still Hard


def test_aiming_begun_after_the_first_turn_is_not_a_whole_round_yet():
    """Seed 001 "Aiming": "requires an entire Combat Round". An aim begun
    at Kaelin's second Turn of round 1 has not covered a whole round when
    round 2 begins."""
    from test_mythras_ranged import table, shoot

    t = table()
    act(t, "kaelin", "pass")
    act(t, "grusk", "pass")
    act(t, "kaelin", "aim")
    act(t, "grusk", "pass")
    t(cmd.EndRound())
    shoot(t, "kaelin", "grusk", "90", "light-wind")
    assert t.new(ev.SkillTested)[0].target == 44


# --------------------------------------------------------------------------- #
# 9: Initiative: roll-off, forced re-roll
# --------------------------------------------------------------------------- #


def with_twin():
    from test_mythras_flow import Table, sheet

    t = Table()
    twin = sheet("kaelin")
    twin["name"] = "Twin"
    t(cmd.JoinCombatant(sheet=twin, side="orcs", handle="twin"))
    return t


def test_initiative_full_tie_is_settled_by_a_roll_off_not_join_order():
    """Seed 001 "Initiative": "When two or more participants tie scores,
    the one with the higher DEX will act first. If this still results in a
    tie, have each roll a die with the higher roll going before the
    other." Kaelin and Twin: 15 each, DEX 14 each."""
    t = with_twin()
    t(cmd.StartRound(), "5,7,5,3,8")  # 15, 15 (DEX 11), 15; roll-off Kaelin 3, Twin 8
    assert [e.handle for e in t.state.order] == ["twin", "kaelin", "grusk"]
    rolled = [e.purpose for e in t.new(ev.DiceRolled)]
    assert rolled[-2:] == ["initiative roll-off: Kaelin", "initiative roll-off: Twin"]
    assert "roll-off 8" in t.state.order[0].detail


def test_initiative_roll_off_ties_roll_again():
    """Seed 001 "Initiative": "have each roll a die with the higher roll
    going before the other": a tied roll-off is no answer, so they roll
    again."""
    t = with_twin()
    t(cmd.StartRound(), "5,7,5,4,4,9,2")
    assert [e.handle for e in t.state.order] == ["kaelin", "twin", "grusk"]
    assert "roll-off 4/9" in t.state.order[0].detail


def test_the_gm_can_force_initiative_to_be_re_rolled():
    """Seed 001 "Initiative": "Initiative remains in play until it is
    forced to be re-rolled." Once the round's turns are done, 'start' is
    the GM forcing the re-roll: the next round opens on fresh dice."""
    t = kaelin_first()
    for who in ("kaelin", "grusk", "kaelin", "grusk"):
        act(t, who, "pass")
    assert t.step().kind == "end-round"
    t(cmd.StartRound(), "1,9")  # Kaelin 1+10 = 11, Grusk 9+8 = 17
    rs = t.new(ev.RoundStarted)[0]
    assert rs.round == 2 and [e.handle for e in rs.order] == ["grusk", "kaelin"]
    assert t.state.turn == ("grusk",)
    assert any("forces Initiative to be re-rolled" in e.text for e in t.new(ev.NoteAdded))
    with pytest.raises(RuleError, match="Initiative is rolled once"):
        t(cmd.StartRound(), "1,1")  # mid-round: refused


# --------------------------------------------------------------------------- #
# 11: skills over 100: every line shows the grade applied
# --------------------------------------------------------------------------- #


def test_over_100_the_attack_line_shows_the_grade_the_exchange_uses():
    """rules-reference.md B8 (seed 001 "Differential Rolls"): "in an
    opposed or differential roll, take the highest modified skill.
    Everyone involved (that fighter included) subtracts that skill's
    excess over 100." Kaelin at 120% rolls 11: a critical at 120, a
    plain success at 100, and the attack's own line says success."""
    from affray.views.export import export
    from test_mythras_flow import sheet

    k = sheet("kaelin")
    k["combat_styles"][0]["skill"] = 120
    t = kaelin_first(kaelin=k)
    attack(t, "kaelin", "grusk", "11")
    tested = t.new(ev.SkillTested)[0]
    assert (tested.target, tested.result) == (100, "success")
    assert [m.value for m in tested.modifiers] == [-20]
    react(t, "grusk", "parry", "45")
    assert t.new(ev.ReactionResolved)[0].cell == "differential:parry success/failure"
    text = export(list(t.store.read(t.eid)), "markdown").lower()
    assert "critical" not in text


def test_over_100_a_defender_further_over_regrades_the_attack_on_its_attack_line():
    """B8 (seed 001 "Differential Rolls"): the highest excess is
    everyone's. Grusk parries at 130%: Kaelin's attack at 110 (already 100)
    loses 20 more. The attack line is told again, as the Differential Roll
    reads it: the same roll against 80%, a failure (not a note line)."""
    from test_mythras_flow import sheet

    k = sheet("kaelin")
    k["combat_styles"][0]["skill"] = 110
    g = sheet("grusk")
    g["combat_styles"][0]["skill"] = 130
    t = kaelin_first(kaelin=k, grusk=g)
    attack(t, "kaelin", "grusk", "85")  # success at 100
    assert t.new(ev.SkillTested)[0].result == "success"
    react(t, "grusk", "parry", "50")  # 130 - 30 = 100: success
    assert not t.new(ev.NoteAdded)
    parry, again = t.new(ev.SkillTested)
    assert (parry.handle, parry.target) == ("grusk", 100)
    assert (again.handle, again.skill, again.base, again.target, again.roll, again.result) == (
        "kaelin", "Legionary", 110, 80, 85, "failure")
    assert [m.value for m in again.modifiers] == [-10, -20]
    assert again.purpose == "attack on Grusk with Longsword, against Grusk's parry"
    assert t.new(ev.ReactionResolved)[0].outcome.startswith("Kaelin failure against Grusk's parry success")
    assert not t.new(ev.DiceRolled)[1:]  # the attack is not rolled again: one die, the parry's


# --------------------------------------------------------------------------- #
# 7: mounted combat
# --------------------------------------------------------------------------- #


def test_a_riders_combat_style_is_capped_by_ride():
    """Seed 001 "Close Combat Situational Modifiers": "fighting from the
    back of a horse would cap the combatant's Combat Skill by their Ride
    skill". Kaelin (Legionary 65%) rides with Ride 40: she attacks at 40."""
    from test_mythras_flow import sheet

    k = sheet("kaelin")
    k["skills"]["Ride"] = 40
    t = kaelin_first(kaelin=k)
    act(t, "kaelin", "mount")
    act(t, "grusk", "pass")
    attack(t, "kaelin", "grusk", "50")
    tested = t.new(ev.SkillTested)[0]
    assert (tested.base, tested.target, tested.result) == (40, 40, "failure")
    assert "capped by Ride 40" in tested.skill


def test_a_rider_without_ride_on_the_sheet_is_capped_at_dex_plus_pow():
    """Ruling ``unlisted_ride`` (default ``dex-pow``): no Ride on the sheet
    caps the style at DEX+POW (14 + 11 = 25); ``no-cap`` leaves it."""
    t = kaelin_first()
    act(t, "kaelin", "mount")
    act(t, "grusk", "pass")
    attack(t, "kaelin", "grusk", "50")
    assert t.new(ev.SkillTested)[0].target == 25
    t2 = kaelin_first(rulings={"unlisted_ride": "no-cap"})
    act(t2, "kaelin", "mount")
    act(t2, "grusk", "pass")
    attack(t2, "kaelin", "grusk", "50")
    assert t2.new(ev.SkillTested)[0].target == 65


def test_a_mounted_charge_may_use_the_mounts_damage_modifier():
    """Seed 001 "Charging": "Riding characters may substitute their Damage
    Modifier for that of their mount instead" (the charge moves a
    quadruped's two steps). Ruling ``mounted_charge_dm`` (default
    ``better``): the horse's is the better, so it is rolled."""
    import msgspec

    from affray.rules.mythras import tables
    from affray.rules.mythras.rulings import DEFAULT_RULINGS
    from affray.rules.mythras.sheet import Sheet, derive
    from test_mythras_flow import Table, sheet

    horse = sheet("grusk")
    horse.update(name="Horse", legs=4)
    horse["characteristics"] = {**horse["characteristics"], "STR": 30, "SIZ": 30}
    k = sheet("kaelin")
    k["skills"]["Ride"] = 80
    t = Table(kaelin=k)
    t(cmd.JoinCombatant(sheet=horse, side="heroes", handle="horse"))
    t(cmd.StartRound(), "7,5,1")
    act(t, "kaelin", "mount:horse")
    assert t.c("kaelin").conditions[0].note == "mounted on Horse"
    while t.state.turn != ("kaelin",):
        act(t, t.state.turn[0], "pass")
    t(cmd.DeclareAttack(attacker="kaelin", target="grusk", situations=("charge",)), "05")
    react(t, "grusk", "none")
    while t.step().kind == "special-effect":
        choose(t, "kaelin", "none")
    mount_dm = derive(msgspec.convert(horse, Sheet), DEFAULT_RULINGS).damage_modifier
    want = tables.dm_step(mount_dm, 2)
    assert tables.dm_rank(want) > tables.dm_rank(tables.dm_step("+1D2", 1))
    dm_need = [d.expr for d in t.step().dice if d.purpose == "damage modifier"]
    assert dm_need and dm_need[0] in want


# --------------------------------------------------------------------------- #
# 12: smaller items
# --------------------------------------------------------------------------- #


def test_a_major_wound_leaves_the_victim_prone():
    """rules-reference.md B15: "At or below −(starting HP) it is a Major
    wound: the victim is Incapacitated"; neither source says whether it
    stays standing: ruling ``major_wound_prone`` (default ``always``)
    fells it. 16 to Kaelin's right leg (6 HP, 2 AP): −8, a Major Wound."""
    t = kaelin_first()
    act(t, "kaelin", "pass")
    attack(t, "grusk", "kaelin", "30")
    react(t, "kaelin", "none")
    choose(t, "grusk", "none")
    t(cmd.RollPending(), "6,6,4,2")
    assert t.new(ev.WoundInflicted)[0].severity == "major"
    assert [e.reason for e in t.new(ev.StanceChanged)] == ["Major Wound to the right leg (ruling major_wound_prone)"]
    assert t.c("kaelin").stance == "prone"


def bleeding_grusk(**kw):
    from test_mythras_flow import Table, sheet

    t = Table(**kw)
    b = sheet("grusk")
    b["name"] = "Brakka"
    t(cmd.JoinCombatant(sheet=b, side="orcs", handle="brakka"))
    t(cmd.StartRound(), "7,5,1")
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "bleed")
    t(cmd.RollPending(), "5,1,11")  # 6 to the chest, 3 through
    t(cmd.RollPending(), "90")  # Endurance fails: Grusk bleeds
    assert t.c("grusk").has("bleeding")
    return t


def next_round(t):
    for _ in range(20):
        if t.step().kind == "end-round":
            break
        act(t, t.state.turn[0], "pass")
    t(cmd.EndRound())


def test_bleed_goes_on_past_incapacitated_to_death():
    """Seed 001 "Bleed": "At the start of each Combat Round, the recipient
    loses one level of Fatigue, until they collapse and possibly die."
    Ruling ``bleed_past_incapacitated`` (default ``mythras-track``): past
    Incapacitated come Semi-Conscious and Comatose (unconscious), then
    Dead."""
    t = bleeding_grusk()
    notes = []
    for _ in range(9):
        next_round(t)
        notes.append([c.note for c in t.c("grusk").conditions if c.name == "fatigue"][0])
    assert [n.split(" ")[0] for n in notes] == ["winded", "tired", "wearied", "exhausted", "debilitated",
                                                "incapacitated", "semi-conscious", "comatose", "dead"]
    assert t.c("grusk").status == "dead"


def test_bleed_ruling_stop_ends_the_track_at_incapacitated():
    """The other reading: B19's track ends at Incapacitated."""
    t = bleeding_grusk(rulings={"bleed_past_incapacitated": "stop"})
    for _ in range(8):
        next_round(t)
    assert t.c("grusk").status == "active"
    assert [c.note for c in t.c("grusk").conditions if c.name == "fatigue"][0].startswith("incapacitated")


def test_the_turn_prompt_stops_offering_release_and_hold_once_the_spell_is_released():
    """Seed 001 "Cast Magic": once concluded the magic "can be released";
    released, it is gone, so Kaelin's waiting Turn no longer offers
    ``release | hold``."""
    from test_mythras_magic import mages

    t = mages()
    act(t, "kaelin", "cast:bladesharp")
    act(t, "grusk", "pass")
    act(t, "kaelin", "cast")
    act(t, "grusk", "pass")
    t(cmd.EndRound())
    assert t.state.turn == ("kaelin",) and {"release", "hold"} <= set(t.step().options)
    act(t, "kaelin", "release")
    t(cmd.RollPending(), "20")
    t(cmd.MakeChoice(who="grusk", option="none"))
    step = t.step()
    assert step.kind == "turn" and step.who == "kaelin"
    assert "release" not in step.options and "hold" not in step.options
    assert "release" not in step.prompt and "hold" not in step.prompt


def test_player_facing_lines_carry_no_seed_tags():
    """Issue 15 item 12: log and export lines carry no "(seed 001 …)"
    source tags (``why`` and ``rulings`` keep them). A surprised foe (seed
    001 "Surprise": the first successful attack gains a bonus Special
    Effect; no defence)."""
    from affray.views.export import export

    t = kaelin_first(surprised=True)
    attack(t, "kaelin", "grusk", "30")
    while t.step().kind == "special-effect":
        choose(t, "kaelin", "none")
    t(cmd.RollPending(), "1,1,11")
    text = export(list(t.store.read(t.eid)), "markdown")
    assert "surprised" in text and "counts as a Failure" in text
    assert "seed 001" not in text


@pytest.mark.parametrize("typed", ["Choose Location", "CHOOSE-LOCATION", "choose_location"])
def test_choose_accepts_the_effects_printed_name_in_any_case(typed):
    """Seed 001 "Special Effects" prints the names ("Choose Location",
    "Maximize Damage"); ``choose`` takes them as printed, in any case, and
    British spellings ("maximise-damage")."""
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "05")
    react(t, "grusk", "none")
    choose(t, "kaelin", typed)
    assert t.step().kind == "location"
    choose(t, "kaelin", "Right Arm")
    choose(t, "kaelin", "maximise-damage")
    assert [e.effect for e in t.log(SpecialEffectChosen)] == ["choose-location", "maximize-damage"]


def test_choose_still_refuses_what_is_not_offered():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "05")
    react(t, "grusk", "none")
    with pytest.raises(RuleError, match="can choose .* not 'enhance-parry'"):
        choose(t, "kaelin", "Enhance Parry")


# --------------------------------------------------------------------------- #
# 10: Luck Points re-roll a particular result (Endurance)
# --------------------------------------------------------------------------- #


def lucky_kaelin_stunned_roll():
    from test_mythras_flow import sheet

    t = grusk_first(kaelin=sheet("kaelin", luck_points=2))
    attack(t, "grusk", "kaelin", "30")
    react(t, "kaelin", "none")
    choose(t, "grusk", "stun-location")
    t(cmd.RollPending(), "2,1,1,17")
    t(cmd.RollPending(), "90")  # Endurance fails against the original 30
    step = t.step()
    assert step.kind == "luck-endurance" and step.who == "kaelin" and step.options == ("luck", "accept")
    assert not t.c("kaelin").has("stunned-location")
    return t


def test_a_luck_point_re_rolls_a_failed_endurance_roll():
    """Seed 001 "Use Luck Point": "Using a Luck Point – to re-roll a
    particular result for example – is a Free Action." Not only the
    attack or parry: Kaelin's failed Endurance roll against Stun Location
    is re-rolled, and the new roll holds."""
    t = lucky_kaelin_stunned_roll()
    t(cmd.MakeChoice(who="kaelin", option="luck"), "10")
    tested = t.new(ev.SkillTested)
    assert [(e.roll, e.result) for e in tested] == [(10, "success")] and "Luck Point" in tested[0].purpose
    assert not t.c("kaelin").has("stunned-location")
    assert [c.effects["spent"] for c in t.c("kaelin").conditions if c.name == "luck-spent"] == [1]


def test_a_failed_endurance_roll_may_be_accepted():
    """Seed 001 "Stun Location": "If the defender Fails, then the Hit
    Location is Incapacitated"; accepting the roll keeps the Luck Point."""
    t = lucky_kaelin_stunned_roll()
    choose(t, "kaelin", "accept")
    assert t.c("kaelin").has("stunned-location")
    assert not t.c("kaelin").has("luck-spent")


def lucky_grusk_tripped():
    from test_mythras_flow import sheet

    t = kaelin_first(grusk=sheet("grusk", luck_points=1))
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "trip-opponent")
    t(cmd.RollPending(), "95")  # Brawn 51 fails against Kaelin's 30
    step = t.step()
    assert step.kind == "luck-reroll" and step.who == "grusk"
    assert t.c("grusk").stance != "prone"
    return t


def test_a_luck_point_re_rolls_the_roll_against_trip_opponent():
    """Seed 001 "Use Luck Point": "to re-roll a particular result"; also
    an opposed roll against a Special Effect ("Trip Opponent": "If the
    target Fails, they fall prone"). Grusk re-rolls 45 (beating 30) and keeps his feet."""
    t = lucky_grusk_tripped()
    t(cmd.MakeChoice(who="grusk", option="luck"), "45")
    assert t.c("grusk").stance != "prone"
    assert [(e.roll, e.purpose) for e in t.new(ev.SkillTested)] == [(45, "resist Trip Opponent")]
    assert t.c("grusk").has("luck-spent")
    assert t.step().kind == "damage"


def test_a_lost_roll_against_trip_opponent_may_be_accepted():
    t = lucky_grusk_tripped()
    choose(t, "grusk", "accept")
    assert t.c("grusk").stance == "prone" and not t.c("grusk").has("luck-spent")
    assert not t.new(ev.SkillTested)  # nothing rolled again


def test_a_luck_point_re_rolls_the_roll_against_disarm_opponent():
    """Seed 001 "Disarm Opponent": "The opponent must make an Opposed Roll
    of his Combat Style"; "Use Luck Point": "re-roll a particular result".
    Lost with a fumble (00), re-rolled at 50 (against 120%: the Medium
    longsword disarming the Huge Maul is two grades easier, and 50 beats
    30): Grusk keeps his Maul."""
    from test_mythras_flow import sheet

    t = kaelin_first(grusk=sheet("grusk", luck_points=1))
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "disarm-opponent")
    t(cmd.RollPending(), "00")  # the distance die waits for the outcome
    assert t.step().kind == "luck-reroll" and "Maul" in t.c("grusk").ready
    t(cmd.MakeChoice(who="grusk", option="luck"), "50,2")
    assert "Maul" in t.c("grusk").ready and not t.new(ev.WeaponDropped)


# --------------------------------------------------------------------------- #
# 12: a leaping attack reads as a leap, not "with " and nothing
# --------------------------------------------------------------------------- #


def test_a_leaping_attack_names_what_it_is_made_with():
    """Seed 001 "Leaping Attacks": "A leaping attack is resolved with an
    Opposed Roll of the leaper's Athletics skill versus the defender's
    Brawn or Evade skill." No weapon: the log says the leap, and the
    Differential line names the defender's Brawn (no empty weapon name)."""
    from affray.views.export import export
    from affray.views.log_view import log_entries

    t = kaelin_first()
    act(t, "kaelin", "leap:grusk", "40,80")  # Athletics 49: 40; Grusk's Brawn 51: 80 fails
    texts = [e.text for e in log_entries(t.store, t.eid)]
    assert "Kaelin leaps at Grusk" in texts
    assert "Grusk tries to withstand the leap" in texts
    assert any(x.startswith("Differential table, leap success/failure: Kaelin success against Grusk's Brawn failure")
               for x in texts)
    assert not any(x.rstrip() != x or x.endswith(" with") for x in texts)
    assert "with  " not in export(list(t.store.read(t.eid)), "markdown")


# --------------------------------------------------------------------------- #
# 9: a combatant joining a fight under way
# --------------------------------------------------------------------------- #


def twin_joins(dice: str, **kw):
    from test_mythras_flow import sheet

    t = kaelin_first()  # Kaelin 17 (DEX 14), Grusk 13; Kaelin's turn
    twin = sheet("kaelin")
    twin["name"] = "Twin"
    t(cmd.JoinCombatant(sheet=twin, side="orcs", handle="twin", **kw), dice)
    return t


def test_a_newcomer_mid_fight_rolls_initiative_and_is_placed_in_the_order():
    """Seed 001 "Initiative": "Initiative is calculated by each participant
    rolling 1d10 and adding their Initiative Modifier. Whoever gained the
    highest result acts first, followed by the second highest and so on."
    Twin joins during Kaelin's turn: 5 + 13 − 3 = 15 goes between Kaelin
    (17) and Grusk (13), with 2 Action Points ("All beginning characters get
    2 Action Points per Round"); the turn already pending stays, and Twin's
    Turn comes when the turns reach its place."""
    t = twin_joins("5")
    changed = t.new(ev.OrderChanged)
    assert len(changed) == 1 and "Twin joins the fight" in changed[0].reason
    assert [(e.handle, e.rank) for e in t.state.order] == [("kaelin", 17), ("twin", 15), ("grusk", 13)]
    assert [e.tier for e in t.state.order] == [0, 1, 2]
    assert t.c("twin").combat_actions == 2
    assert [d.purpose for d in t.new(ev.DiceRolled)] == ["initiative: Twin"]
    step = t.step()
    assert (step.kind, step.who) == ("turn", "kaelin") and len(t.state.pending) == 1
    act(t, "kaelin", "pass")
    assert t.step().who == "twin"


def test_a_newcomer_tied_on_total_and_dex_rolls_off_against_that_fighter():
    """Seed 001 "Initiative": "When two or more participants tie scores,
    the one with the higher DEX will act first. If this still results in a
    tie, have each roll a die with the higher roll going before the
    other." Twin rolls 7: 17 and DEX 14, as Kaelin; the roll-off ties at 4,
    then Twin 9 against Kaelin 2: Twin goes first."""
    t = twin_joins("7,4,4,9,2")
    assert [e.handle for e in t.state.order] == ["twin", "kaelin", "grusk"]
    assert "roll-off 4/9" in t.state.order[0].detail
    t = twin_joins("7,2,9")
    assert [e.handle for e in t.state.order] == ["kaelin", "twin", "grusk"]


def test_a_newcomer_when_only_the_end_of_the_round_was_pending_takes_its_turn_now():
    """Seed 001 "Turns": "If any participant has Action Points remaining,
    the players may each take another Turn in Initiative order." Everyone
    had passed; Twin joins with 2 AP and acts before the round ends."""
    from test_mythras_flow import sheet

    t = kaelin_first()
    for who in ("kaelin", "grusk", "kaelin", "grusk"):
        act(t, who, "pass")
    assert t.step().kind == "end-round"
    twin = sheet("kaelin")
    twin["name"] = "Twin"
    t(cmd.JoinCombatant(sheet=twin, side="orcs", handle="twin"), "1")
    assert (t.step().kind, t.step().who) == ("turn", "twin")
    assert t.state.turn == ("twin",)


def test_a_surprised_newcomer_cannot_defend_until_its_initiative_arrives():
    """Seed 001 "Surprise": "The target suffers a -10 penalty to
    Initiative. Until their Initiative arrives, they are considered
    flat-footed and cannot defend themselves." 5 + 13 − 3 − 10 = 5."""
    t = twin_joins("5", surprised=True)
    assert [(e.handle, e.rank) for e in t.state.order][-1] == ("twin", 5)
    assert t.c("twin").has("surprised")


def test_a_newcomer_cannot_join_in_the_middle_of_an_exchange_and_the_log_says_the_order():
    from affray.views.log_view import log_entries
    from test_mythras_flow import sheet

    t = kaelin_first()
    attack(t, "kaelin", "grusk", "30")
    with pytest.raises(RuleError, match="between turns"):
        t(cmd.JoinCombatant(sheet=sheet("kaelin"), name="Twin", side="orcs", handle="twin"), "5")
    t = twin_joins("5")
    texts = [e.text for e in log_entries(t.store, t.eid)]
    assert texts[-2:] == ["Twin joins side orcs (2 Action Points)",
                          "Initiative now: Kaelin 17, Twin 15, Grusk 13 (Twin joins the fight: Initiative d10=5 +13 −3 armour = 15)"]


# --------------------------------------------------------------------------- #
# 10: Luck Points re-roll a lost Regain Footing
# --------------------------------------------------------------------------- #


def lucky_grusk_prone():
    from test_mythras_flow import sheet

    t = kaelin_first(grusk=sheet("grusk", luck_points=1))
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "evade", "80")  # both fail; Grusk is prone
    t(cmd.TakeAction(who="grusk", action="stand"))
    t(cmd.RollPending(), "70,30")  # Grusk's Brawn 51: 70 fails; Kaelin's Brawn 49: 30 succeeds
    step = t.step()
    assert step.kind == "luck-reroll" and step.who == "grusk" and step.options == ("luck", "accept")
    assert t.c("grusk").stance == "prone"
    return t


def test_a_luck_point_re_rolls_a_lost_regain_footing():
    """Seed 001 "Use Luck Point": "Using a Luck Point – to re-roll a
    particular result for example – is a Free Action"; "Regain Footing"
    while engaged is an opposed roll. Grusk re-rolls his own roll (40,
    beating Kaelin's kept 30) and stands; Kaelin does not roll again."""
    t = lucky_grusk_prone()
    t(cmd.MakeChoice(who="grusk", option="luck"), "40")
    assert [(e.handle, e.roll) for e in t.new(ev.SkillTested)] == [("grusk", 40)]
    assert "Luck Point re-roll" in t.new(ev.SkillTested)[0].purpose
    assert t.c("grusk").stance == "standing" and t.c("grusk").has("luck-spent")


def test_a_lost_regain_footing_may_be_accepted():
    t = lucky_grusk_prone()
    choose(t, "grusk", "accept")
    assert t.c("grusk").stance == "prone" and not t.c("grusk").has("luck-spent")
    assert not t.new(ev.SkillTested)


def test_a_luck_point_re_rolls_a_lost_struggle_the_holders_roll_kept():
    """Seed 001 "Entangle": the victim "can attempt to free themselves on
    their turn by winning an opposed Brawn roll" ("Struggle"); "Use Luck
    Point": "to re-roll a particular result". Grusk's Brawn (one grade
    harder, 34) 60 fails against Kaelin's 20; re-rolled at 30, beating 20
    (the higher success wins): the whip lets go. Kaelin does not roll again."""
    from test_mythras_flow import sheet

    t = kaelin_first(kaelin=kaelin_with(WHIP, ready=["Whip", "Heater Shield"]), grusk=sheet("grusk", luck_points=1))
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "entangle")
    t(cmd.RollPending(), "1,1,11")  # chest
    act(t, "grusk", "struggle")
    t(cmd.RollPending(), "60,20")
    step = t.step()
    assert (step.kind, step.who) == ("luck-reroll", "grusk") and "Struggle failed" in step.prompt
    assert t.c("grusk").has("entangled")
    t(cmd.MakeChoice(who="grusk", option="luck"), "30")
    assert [(e.handle, e.roll, e.purpose) for e in t.new(ev.SkillTested)] == [
        ("grusk", 30, "break free (Luck Point re-roll)")]
    assert not t.c("grusk").has("entangled") and t.c("grusk").has("luck-spent")


def lucky_kaelin_yanks(dice: str):
    from test_mythras_flow import sheet

    t = kaelin_first(kaelin=sheet("kaelin", luck_points=1))
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "impale")
    t(cmd.RollPending(), "1,1,1,2")
    choose(t, "kaelin", "accept")  # her Luck Point is not spent on the damage (ruling luck_damage_roll)
    act(t, "grusk", "pass")
    act(t, "kaelin", "yank")
    t(cmd.RollPending(), dice)
    return t


def test_a_luck_point_re_rolls_a_failed_yank():
    """Seed 001 "Impale": withdrawing the weapon takes "a Brawn roll,
    opposed when the victim resists"; "Use Luck Point": "to re-roll a
    particular result". Kaelin's Brawn 49: 90 loses to Grusk's 20; the
    re-roll 40 beats it (Grusk's 20 kept) and the weapon comes free with
    the damage die rolled with it (6, halved: 3)."""
    t = lucky_kaelin_yanks("90,20,5")
    assert t.step().kind == "luck-reroll" and t.c("grusk").has("impaled")
    t(cmd.MakeChoice(who="kaelin", option="luck"), "40,6")
    assert [(e.handle, e.roll) for e in t.new(ev.SkillTested)] == [("kaelin", 40)]
    assert not t.c("grusk").has("impaled")
    assert t.new(ev.DamageDealt)[0].final == 3


def test_a_failed_yank_may_be_accepted():
    t = lucky_kaelin_yanks("90,20,5")
    choose(t, "kaelin", "accept")
    assert t.c("grusk").has("impaled") and not t.new(ev.SkillTested) and not t.new(ev.DamageDealt)
    assert not t.c("kaelin").has("luck-spent")


def lucky_kaelin_outmaneuvered():
    """Kaelin (1 Luck Point) outmaneuvers Grusk and loses: Evade 90 against 10."""
    from test_mythras_flow import sheet

    t = kaelin_first(kaelin=sheet("kaelin", luck_points=1))
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "none")
    act(t, "grusk", "pass")
    act(t, "kaelin", "outmaneuver")
    t(cmd.RollPending(), "90,10")
    return t


def test_a_luck_point_re_rolls_a_lost_outmaneuver():
    """Seed 001 "Outmaneuvering": "a group Opposed Roll" of Evade; "Use
    Luck Point": "to re-roll a particular result". Kaelin's Evade 90 loses
    to Grusk's 10; re-rolled to 20, a success beating Grusk's kept 10:
    Grusk is outmaneuvered and Kaelin may withdraw."""
    t = lucky_kaelin_outmaneuvered()
    step = t.step()
    assert (step.kind, step.who) == ("luck-reroll", "kaelin") and not t.c("grusk").has("outmaneuvered")
    t(cmd.MakeChoice(who="kaelin", option="luck"), "20")
    assert [(e.handle, e.roll) for e in t.new(ev.SkillTested)] == [("kaelin", 20)]
    assert t.c("grusk").has("outmaneuvered") and t.step().kind == "outmaneuver-end"


def test_a_lost_outmaneuver_may_be_accepted():
    t = lucky_kaelin_outmaneuvered()
    choose(t, "kaelin", "accept")
    assert not t.c("grusk").has("outmaneuvered") and not t.new(ev.SkillTested)
    assert t.step().kind == "end-round"


def lucky_blow(rulings=None, **sheets):
    t = kaelin_first(rulings=rulings, **sheets)
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "none")
    t(cmd.RollPending(), "1,1,11")  # Longsword 1 + DM 1 = 2 to the chest
    return t


def test_a_luck_point_re_rolls_the_attackers_damage_roll_the_location_kept():
    """Seed 001 "Use Luck Point": "Using a Luck Point – to re-roll a
    particular result for example – is a Free Action"; a damage roll is a
    result too (ruling ``luck_damage_roll``, default the attacker's own
    roll). Kaelin's 2 damage is re-rolled to 8 + 2 = 10; the chest (d20 11)
    stays, and no new location die is rolled."""
    from test_mythras_flow import sheet

    t = lucky_blow(kaelin=sheet("kaelin", luck_points=1))
    step = t.step()
    assert (step.kind, step.who, step.options) == ("luck-damage", "kaelin", ("luck", "accept"))
    assert "2 damage" in step.prompt and not t.new(ev.DamageDealt)
    t(cmd.MakeChoice(who="kaelin", option="luck"), "8,2")
    rolled = t.new(ev.DiceRolled)
    assert [(r.faces, r.purpose) for r in rolled] == [((8,), "Longsword damage (Luck Point re-roll)"),
                                                      ((2,), "damage modifier")]
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.location, dd.rolled, dd.armour, dd.final) == ("chest", 10, 3, 7)
    assert t.c("kaelin").has("luck-spent")


def test_a_damage_roll_may_be_accepted():
    from test_mythras_flow import sheet

    t = lucky_blow(kaelin=sheet("kaelin", luck_points=1))
    choose(t, "kaelin", "accept")
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.location, dd.rolled) == ("chest", 2) and not t.c("kaelin").has("luck-spent")
    assert not t.new(ev.DiceRolled)


def test_ruling_luck_damage_roll_target_asks_the_one_struck():
    from test_mythras_flow import sheet

    t = lucky_blow(rulings={"luck_damage_roll": "target"}, kaelin=sheet("kaelin", luck_points=1),
                   grusk=sheet("grusk", luck_points=1))
    assert (t.step().kind, t.step().who) == ("luck-damage", "grusk")
    t(cmd.MakeChoice(who="grusk", option="luck"), "1,1")
    assert t.new(ev.DamageDealt)[0].rolled == 2 and t.c("grusk").has("luck-spent")


def test_ruling_luck_damage_roll_off_and_no_luck_left_ask_nobody():
    from test_mythras_flow import sheet

    t = lucky_blow(rulings={"luck_damage_roll": "off"}, kaelin=sheet("kaelin", luck_points=1))
    assert t.new(ev.DamageDealt) and t.step().kind != "luck-damage"
    t = lucky_blow()
    assert t.new(ev.DamageDealt) and t.step().kind != "luck-damage"


def knocked_back_lucky_kaelin():
    """Grusk's maximised critical to Kaelin's head (16 damage over SIZ 14:
    Knockback, seed 001 "Knockback"); Kaelin has a Luck Point, and the Major
    Wound leaves her standing (ruling ``major_wound_prone=never``)."""
    from test_mythras_flow import Table, sheet

    t = Table(kaelin=sheet("kaelin", luck_points=1), rulings={"major_wound_prone": "never"})
    t(cmd.StartRound(), "1,10")
    attack(t, "grusk", "kaelin", "5")  # a critical
    react(t, "kaelin", "parry", "80")
    for pick in ("choose-location", "head", "maximize-damage"):
        choose(t, "grusk", pick)
    t(cmd.RollPending(), "6,4")  # 1D6+6 + 1D4 = 16
    assert t.step().kind == "knockback"
    t(cmd.RollPending(), "90")  # Athletics 49 fails
    step = t.step()
    assert (step.kind, step.who) == ("luck-reroll", "kaelin") and "Knockback" in step.prompt
    assert t.c("kaelin").stance != "prone"
    return t


def test_a_luck_point_re_rolls_a_failed_roll_against_knockback():
    """Seed 001 "Knockback": "the recipient must pass an Easy Acrobatics
    or Standard Athletics roll to avoid falling prone"; "Use Luck Point":
    "to re-roll a particular result". Re-rolled at 10: Kaelin keeps her
    feet."""
    t = knocked_back_lucky_kaelin()
    t(cmd.MakeChoice(who="kaelin", option="luck"), "10")
    assert [(e.roll, e.purpose) for e in t.new(ev.SkillTested)] == [
        (10, "stay on their feet (Knockback) (Luck Point re-roll)")]
    assert t.c("kaelin").stance != "prone" and t.c("kaelin").has("luck-spent")


def test_a_failed_roll_against_knockback_may_be_accepted():
    t = knocked_back_lucky_kaelin()
    choose(t, "kaelin", "accept")
    assert t.c("kaelin").stance == "prone" and not t.new(ev.SkillTested)
    assert not t.c("kaelin").has("luck-spent")
