"""Rule fidelity for mrq1 (issue 15, "mrq1 (seed 004)"), each item played
through the real command path with table dice.

Every test names its seed section (seed 004_71637fb3cfde52c9.txt) and quotes
the seed's words it checks. Figures come from the example sheets (see
``test_mrq1_flow`` and ``test_mrq1_grapple``).
"""

from __future__ import annotations

import re

import msgspec
import pytest

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.rules.base import RuleError
from affray.rules.mrq1 import ranged
from affray.rules.mrq1.core import Spec, find_weapon, useless_limbs

from test_mrq1_actions import three
from test_mrq1_flow import CHEST, FIVE, MAUL, RIGHT_LEG, TOUGH, duel, hit_vasana, sheet
from test_mrq1_grapple import G, grappled
from test_mrq1_mounted import cavalry
from test_mrq1_ranged import archer, shot

# --------------------------------------------------------------------------- #
# Item 3: Immobilise in a one-on-one fight does not end the fight
# --------------------------------------------------------------------------- #


def test_immobilise_one_on_one_keeps_the_fight_going():
    """Seed 004 "Grappling Combatants": "Grappling combatants will remain
    locked together until one combatant breaks free or is thrown out of the
    grapple"; Immobilise: "While immobilised, enemies are considered
    helpless". The held Broo is helpless, not out of the fight: Ulfrik's
    next turn still offers Inflict Pain and Throw, and the fight is not over."""
    t = grappled()
    t(cmd.TakeAction(who="broo", action="pass"))
    t(G(who="ulfrik", manoeuvre="immobilise"), "42")
    assert t.c("broo").has("immobilised") and not t.c("broo").can_fight
    assert t.state.phase == "round" and not t.state.winner
    assert not t.new(ev.FightEnded)
    step = t.step()
    assert (step.kind, step.who) == ("turn", "ulfrik")
    assert {"inflict-pain", "throw"} <= set(step.options)
    # Inflict Pain on the held foe: 70 - (DEX 13 + CON 12) = 45
    t(G(who="ulfrik", manoeuvre="inflict-pain"), "45")
    assert t.one(ev_mrq1.GrappleManoeuvred).success
    assert t.step().kind == "grapple-damage"


def test_throw_of_an_immobilised_foe_frees_him_and_the_fight_goes_on():
    """Seed 004 "Grappling Combatants", Throw: "the opponent is thrown 2
    metres and suffers 1D6 damage, applied to a random location. The
    grapple ends in this case." Thrown, the Broo is no longer immobilised
    and fights on."""
    t = grappled()
    t(cmd.TakeAction(who="broo", action="pass"))
    t(G(who="ulfrik", manoeuvre="immobilise"), "42")
    t(G(who="ulfrik", manoeuvre="throw"), "40")  # 70 - (DEX 13 + SIZ 13) = 44
    assert t.one(ev_mrq1.GrappleManoeuvred).success
    assert not t.c("broo").has("immobilised") and not t.c("broo").has("grappling")
    t(cmd.RollPending(), "3,11")
    assert t.state.phase == "round" and t.c("broo").can_fight


# --------------------------------------------------------------------------- #
# Item 1: First Aid is a real action
# --------------------------------------------------------------------------- #


def _turn_of(t, who: str) -> None:
    """Pass every pending turn until ``who``'s."""
    while t.step().kind == "turn" and t.step().who != who:
        t(cmd.TakeAction(who=t.step().who, action="pass"))
    assert (t.step().kind, t.step().who) == ("turn", who)


def _medic(damage: int, d20: int, wound_dice: str, **kw):
    """Vasana (First Aid 60%) takes ``damage`` at ``d20`` from the Broo."""
    chars = kw.pop("characteristics", None)
    extra = {"characteristics": chars} if chars else {}
    t = hit_vasana(damage, d20, skills=dict(sheet("vasana")["skills"], **{"First Aid": 60}), **extra)
    t(cmd.RollPending(), wound_dice)
    return t


def test_first_aid_restores_a_useless_leg():
    """Seed 004 "Serious Wound": "A limb will be rendered useless by a
    Serious Wound, until the location is restored to 1 hit point or more,
    or if the character receives First Aid." A successful First Aid ends
    the useless leg; the location keeps its hit points (the seed gives
    First Aid none to restore)."""
    t = _medic(6, RIGHT_LEG, "1")
    assert t.c("vasana").has("useless-limb")
    _turn_of(t, "vasana")
    t(cmd.TakeAction(who="vasana", action='skill "First Aid" target=vasana'), "30")
    assert [e.purpose for e in t.new(ev.SkillTested)] == ["First Aid on Vasana's right leg"]
    expired = t.new(ev.ConditionExpired)
    assert [e.reason for e in expired] == ["First Aid by Vasana"]
    assert not t.c("vasana").has("useless-limb")
    assert t.c("vasana").location("right leg").hp == -1


def test_first_aid_that_fails_ends_nothing():
    """Seed 004 "Skill Use": the test must succeed; 90 > 60 fails and the
    leg stays useless (the Combat Action is spent all the same)."""
    t = _medic(6, RIGHT_LEG, "1")
    _turn_of(t, "vasana")
    before = t.c("vasana").combat_actions
    t(cmd.TakeAction(who="vasana", action='skill "First Aid" target=vasana'), "90")
    assert t.c("vasana").has("useless-limb") and not t.new(ev.ConditionExpired)
    assert t.c("vasana").combat_actions == before - 1


def test_first_aid_ends_the_resilience_retests():
    """Seed 004 "Serious Wound": "this test will have to be repeated at the
    end of every Combat Round, until the location is restored to 1 hit
    point or more, or the character receives First Aid." After First Aid
    the round ends with no re-test."""
    t = _medic(6, CHEST, "1,20")
    assert t.c("vasana").has("resilience-retest")
    _turn_of(t, "vasana")
    t(cmd.TakeAction(who="vasana", action='skill "First Aid" target=vasana location=chest'), "30")
    assert not t.c("vasana").has("resilience-retest")
    t.pass_turns()
    t(cmd.EndRound(), "1,10")
    assert not any(s.kind == "retest" for s in t.state.pending)
    assert t.state.round == 2


def test_first_aid_stops_the_bleeding_of_a_major_wound():
    """Seed 004 "Major Wound": "Both tests will have to be repeated at the
    end of every Combat Round, until the location is restored to 1 hit
    point or more, or the character receives First Aid. If the location
    does not recover within a number of Combat Rounds equal to half the
    character's CON+POW, the character dies". First Aid ends both re-tests
    and (ruling ``first_aid_stops_bleeding``, default true) the bleeding."""
    t = _medic(11, CHEST, "10,10")
    assert {"death-test", "resilience-retest", "bleeding-out"} <= {x.name for x in t.c("vasana").conditions}
    _turn_of(t, "vasana")
    t(cmd.TakeAction(who="vasana", action='skill "First Aid" target=vasana'), "30")
    names = {x.name for x in t.c("vasana").conditions}
    assert not names & {"death-test", "resilience-retest", "bleeding-out"}


def test_ruling_first_aid_stops_bleeding_false_keeps_the_count():
    """Ruling ``first_aid_stops_bleeding=false`` (seed 004 "Major Wound"
    ends only the re-tests on First Aid in so many words): the bleeding
    count goes on."""
    broo = sheet("broo", damage_modifier="", weapons=[MAUL], ready=["Maul"])
    vasana = sheet("vasana", armour={}, location_hp=FIVE, skills=dict(sheet("vasana")["skills"], **{"First Aid": 60}))
    t = duel(vasana=vasana, broo=broo, sr="1,10", rulings={"first_aid_stops_bleeding": "false"})
    t(cmd.DeclareAttack(attacker="broo", target="vasana"), "40")
    t(cmd.ChooseReaction(defender="vasana", reaction="none"))
    t(cmd.RollPending(), f"8,3,{CHEST}")  # 11 to the chest: 5 - 11 = -6, a Major Wound
    t(cmd.RollPending(), "10,10")
    assert t.state.rulings["first_aid_stops_bleeding"] == "false"
    _turn_of(t, "vasana")
    t(cmd.TakeAction(who="vasana", action='skill "First Aid" target=vasana'), "30")
    names = {x.name for x in t.c("vasana").conditions}
    assert "bleeding-out" in names and not names & {"death-test", "resilience-retest"}


def test_first_aid_refuses_without_a_patient_or_a_wound():
    """First Aid names its patient, and a wound it can treat: otherwise one
    line, nothing appended."""
    t = _medic(6, RIGHT_LEG, "1")
    _turn_of(t, "vasana")
    before = len(t.log())
    for action, words in [
        ('skill "First Aid"', "First Aid on whom?"),
        ('skill "First Aid" target=broo', "no Serious or Major Wound"),
        ('skill "First Aid" target=vasana location=chest', "has no wound First Aid treats"),
        ('skill "First Aid" target=vasana location=tail', "has no location"),
    ]:
        with pytest.raises(RuleError, match=words):
            t(cmd.TakeAction(who="vasana", action=action), "30")
    assert len(t.log()) == before


# --------------------------------------------------------------------------- #
# Item 9: act ... skill refuses an unknown key=value
# --------------------------------------------------------------------------- #


def test_skill_use_refuses_an_unknown_option():
    """Seed 004 "Skill Use" takes a skill and the GM's difficulty: an
    unknown ``key=value`` (or a ``sit=`` it would ignore) is refused with
    one line, not silently dropped; ``target=`` belongs to First Aid only."""
    t = _medic(6, RIGHT_LEG, "1")
    _turn_of(t, "vasana")
    before = len(t.log())
    for action in ("skill Athletics tagret=broo", "skill Athletics target=broo", "skill Athletics sit=prone"):
        with pytest.raises(RuleError, match="skill does not take"):
            t(cmd.TakeAction(who="vasana", action=action), "30")
    assert len(t.log()) == before
    t(cmd.TakeAction(who="vasana", action="skill Athletics diff=easy"), "30")
    assert t.new(ev.SkillTested)[0].skill == "Athletics"


# --------------------------------------------------------------------------- #
# Item 2: the rider moves at the mount's Movement
# --------------------------------------------------------------------------- #


def test_rider_moves_and_sprints_at_the_mounts_movement():
    """Seed 004 "Mounted Combat": "A mounted character uses his mount's
    Movement score when moving rather than his own." Sir Aldric (Movement
    8 m) on Bayard (15 m) moves 15 m, and sprints up to twice 15 m."""
    t = cavalry()
    assert (t.c("aldric").movement, t.c("bayard").movement) == (8, 15)
    t(cmd.TakeAction(who="aldric", action="move 15"))
    assert t.c("aldric").moved == 15.0
    _turn_of(t, "aldric")
    with pytest.raises(RuleError, match=r"at most 30 m \(twice Movement 15 m\)"):
        t(cmd.TakeAction(who="aldric", action="sprint 31"))
    t(cmd.TakeAction(who="aldric", action="sprint 30"))
    assert t.c("aldric").moved == 45.0


def test_rider_charges_at_twice_the_mounts_movement():
    """Seed 004 "Charge": "He may move a distance up to twice his
    Movement", and "Mounted Combat": the mount's Movement. A 25 m charge
    (more than twice Aldric's own 8 m) is allowed; 31 m is not."""
    t = cavalry()
    with pytest.raises(RuleError, match=r"at most 30 m"):
        t(cmd.TakeAction(who="aldric", action="charge broo 31"))
    t(cmd.TakeAction(who="aldric", action="charge broo 25"), "30")
    moved = [e for e in t.new(ev.CombatantMoved) if e.handle == "aldric"]
    assert moved and moved[0].distance == 25.0 and moved[0].reason == "charge"


# --------------------------------------------------------------------------- #
# Item 7: an untrained mount that failed its Riding test may only flee
# --------------------------------------------------------------------------- #


def test_fleeing_mount_may_not_pass_or_act_otherwise():
    """Seed 004 "Untrained Mounts": "Failing this test will cause the horse
    to automatically use the Flee Combat Action at every opportunity for
    the remainder of the Combat Round." Bayard may not pass, defend, move
    or grapple: one line each, nothing appended; flee is accepted."""
    t = cavalry(riding="90", sr="1,10,1")  # Bayard 17 acts first
    assert t.c("bayard").has("mount-fleeing") and t.step().who == "bayard"
    before = len(t.log())
    for action in ("pass", "defend", "move 5"):
        with pytest.raises(RuleError, match="may only flee"):
            t(cmd.TakeAction(who="bayard", action=action))
    with pytest.raises(RuleError, match="may only flee"):
        t(G(who="bayard", manoeuvre="attack", target="broo"), "30")
    assert len(t.log()) == before
    t(cmd.TakeAction(who="bayard", action="flee"))
    assert t.c("bayard").moved == 15.0


# --------------------------------------------------------------------------- #
# Item 4: a named situation is never silently dropped
# --------------------------------------------------------------------------- #


def test_named_target_helpless_gives_the_automatic_critical():
    """Seed 004 "Close Combat Situational Modifiers": "Target is helpless:
    Automatic Critical Hit". The GM names it (the engine does not know the
    Broo is tied up): a roll of 90, a miss at 65%, is a critical hit, and
    the modifier is on record."""
    t = duel()
    t(cmd.DeclareAttack(attacker="vasana", target="broo", situations=("target-helpless",)), "90")
    resolved = t.one(ev.AttackResolved)
    assert resolved.hit and resolved.critical and not resolved.fumble
    assert ev.Modifier(0, "Target is helpless: Automatic Critical Hit") in t.one(ev.AttackDeclared).modifiers


def test_named_target_prone_counts_once_when_the_target_is_prone():
    """Seed 004 close combat table: "Target prone or attacked from behind"
    +20%. Named for a standing target (attacked from behind) it applies;
    named for a prone one it is the same +20%, once."""
    t = duel()
    t(cmd.DeclareAttack(attacker="vasana", target="broo", situations=("target-prone",)), "90")
    assert t.tests_of("vasana")[0].target == 85
    t2 = duel()
    t2(cmd.TakeAction(who="vasana", action="pass"))
    t2(cmd.TakeAction(who="broo", action="stance prone"))
    t2(cmd.DeclareAttack(attacker="vasana", target="broo", situations=("target-prone",)), "90")
    assert t2.tests_of("vasana")[0].target == 85


def test_a_target_situation_on_a_reaction_is_refused():
    """Seed 004: "Target is helpless" describes whom an attack strikes; on
    a Dodge or a parry it would change nothing, so it is refused in one
    line and nothing is appended."""
    t = duel()
    t(cmd.DeclareAttack(attacker="vasana", target="broo"), "20")
    before = len(t.log())
    with pytest.raises(RuleError, match="describes the target of an attack, not a parry"):
        t(cmd.ChooseReaction(defender="broo", reaction="parry", situations=("target-helpless",)), "50,50")
    assert len(t.log()) == before


@pytest.mark.parametrize("key, value", [("attacker-prone", -20), ("target-prone", -20), ("target-helpless", 10), ("target-surprised", 10)])
def test_named_ranged_conditions_apply_even_when_the_stance_disagrees(key, value):
    """Seed 004 "Ranged Attack Situational Modifiers": "Attacker is prone"
    -20%, "Target prone" -20%, "Target is helpless" +10%, "Target
    surprised" +10%. Named by the GM against a standing, able target from
    a standing archer, each applies (Sling 40%)."""
    t = archer()
    shot(t, dice="01", situations=(key,))
    assert t.one(ev.SkillTested).target == 40 + value


def test_named_ranged_condition_counts_once_when_the_state_agrees():
    """Gorp is prone and the GM also names attacker-prone: -20% once."""
    t = archer()
    state = t.state
    a = msgspec.structs.replace(state.combatants["gorp"], stance="prone")
    _, mods, _ = ranged.modifiers(state, a, state.combatants["vasana"], find_weapon(a, "Sling"),
                                  Spec("shoot", ["vasana"], {}, [], ["attacker-prone"]))
    assert sum(m.value for m in mods) == -20


def test_named_target_size_on_a_ranged_attack_is_refused():
    """Seed 004 ranged table: "Per 1 SIZ target is under SIZ 5" is worked
    out from the target's SIZ; named, it would be ignored, so it is refused."""
    t = archer()
    before = len(t.log())
    with pytest.raises(RuleError, match="worked out from Vasana's SIZ 15"):
        shot(t, dice="01", situations=("target-small",))
    assert len(t.log()) == before


# --------------------------------------------------------------------------- #
# Item 9: "back to a wall" is a named Dodge situation
# --------------------------------------------------------------------------- #


def test_back_to_a_wall_is_a_dodge_situation():
    """Seed 004 "Dodge", Penalties: "If a character has his back to a wall,
    cliff, more enemies or is otherwise impeded from freely dodging in any
    direction, he will suffer a -20% penalty to his Dodge Skill." The Broo's
    Dodge 30% becomes 10%; on a parry the situation is refused."""
    t = duel()
    t(cmd.DeclareAttack(attacker="vasana", target="broo"), "20")
    with pytest.raises(RuleError, match="is a Dodge penalty"):
        t(cmd.ChooseReaction(defender="broo", reaction="parry", situations=("back-to-wall",)), "50,50")
    t(cmd.ChooseReaction(defender="broo", reaction="dodge", situations=("back-to-wall",)), "50,50")
    dodge = t.tests_of("broo")[0]
    assert dodge.target == 10 and ev.Modifier(-20, "back to a wall or otherwise impeded") in dodge.modifiers


# --------------------------------------------------------------------------- #
# Item 6: two useless legs or arms; one useless arm on a two-handed test
# --------------------------------------------------------------------------- #


def _limbs(*locations: str, rulings: dict | None = None):
    """Vasana (Dodge 35%, Athletics 40%... see the sheet) with useless
    ``locations`` (Serious Wounds put on through the log), her turn in
    round 1 against the Broo (she acts first)."""
    from affray.rules.mrq1 import conditions as cat

    t = duel(rulings=rulings)
    conditions = [
        ev.ConditionApplied(handle="vasana", condition=cat.make(
            "useless-limb", cause=1, round=1, step=0, ends="event", location=loc, effects={"useless-limb": 1}, note=loc))
        for loc in locations
    ]
    t.store.append(t.eid, t.state.version, conditions, command_id="limbs", actor="gm")
    t(cmd.TakeAction(who="vasana", action="pass"))
    assert len(useless_limbs(t.c("vasana"), "leg") + useless_limbs(t.c("vasana"), "arm")) == len(locations)
    return t


def test_two_useless_legs_dodge_at_minus_30_not_better_than_one():
    """Seed 004 "Two Useless or Missing Legs": "Most Skills that rely upon
    physical mobility are impossible, though some (such as Dodge and
    Stealth) only suffer a -30% penalty" (one leg: -10%). Vasana's Dodge
    35% is 5% with two useless legs, 25% with one."""
    for legs, target in ((("right leg",), 25), (("right leg", "left leg"), 5)):
        t = _limbs(*legs)
        t(cmd.DeclareAttack(attacker="broo", target="vasana"), "20")
        t(cmd.ChooseReaction(defender="vasana", reaction="dodge"), "50,50")
        assert t.tests_of("vasana")[0].target == target, legs


def test_two_useless_legs_make_athletics_impossible():
    """Seed 004 "Two Useless or Missing Legs": "Most Skills that rely upon
    physical mobility are impossible" (Athletics relies on it, "One Useless
    or Missing Leg"); refused in one line."""
    t = _limbs("right leg", "left leg")
    t(cmd.TakeAction(who="broo", action="pass"))
    with pytest.raises(RuleError, match="two useless legs: Athletics is impossible"):
        t(cmd.TakeAction(who="vasana", action="skill Athletics"), "10")


def test_ruling_two_useless_legs_weapons():
    """Ruling ``two_useless_legs_weapons``: Weapon skills at -30% (penalty,
    the default: Broadsword 65% -> 35%) or impossible."""
    t = _limbs("right leg", "left leg")
    t(cmd.TakeAction(who="broo", action="pass"))
    t(cmd.DeclareAttack(attacker="vasana", target="broo"), "90")
    tested = t.tests_of("vasana")[0]
    assert ev.Modifier(-30, "two useless legs") in tested.modifiers
    t = _limbs("right leg", "left leg", rulings={"two_useless_legs_weapons": "impossible"})
    t(cmd.TakeAction(who="broo", action="pass"))
    with pytest.raises(RuleError, match="may not use Weapon skills"):
        t(cmd.DeclareAttack(attacker="vasana", target="broo"), "90")


def test_two_useless_arms_dodge_at_minus_30_and_no_parry_offered():
    """Seed 004 "Two Useless or Missing Arms": "The character may not use
    any weapon. Most Skills based on STR or DEX are impossible, though some
    (such as Athletics and Dodge) only suffer a -30% penalty." No parry is
    offered; Dodge 35% is 5%."""
    t = _limbs("right arm", "left arm")
    t(cmd.DeclareAttack(attacker="broo", target="vasana"), "20")
    assert "parry" not in t.step().options
    t(cmd.ChooseReaction(defender="vasana", reaction="dodge"), "50,50")
    dodge = t.tests_of("vasana")[0]
    assert dodge.target == 5 and ev.Modifier(-30, "two useless arms") in dodge.modifiers


def test_one_useless_arm_minus_20_to_a_two_handed_test():
    """Seed 004 "One Useless or Missing Arm": "They also suffer a -20%
    penalty to any Skill that normally relies upon using two arms or hands,
    such as Athletics tests to swim". The GM says so with ``hands=2``;
    with two useless arms such a test is impossible."""
    t = _limbs("left arm")
    t(cmd.TakeAction(who="broo", action="pass"))
    t(cmd.TakeAction(who="vasana", action="skill Athletics hands=2"), "10")
    tested = t.tests_of("vasana")[0]
    assert ev.Modifier(-20, "one useless arm (a two-handed test)") in tested.modifiers
    t = _limbs("left arm", "right arm")
    t(cmd.TakeAction(who="broo", action="pass"))
    with pytest.raises(RuleError, match="two useless arms: a test that relies on two hands is impossible"):
        t(cmd.TakeAction(who="vasana", action="skill Athletics hands=2"), "10")


# --------------------------------------------------------------------------- #
# Item 8: a dodged critical under the fresh-roll ruling is a named ruling
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("ruling, mode", [("attack", "min"), ("table-roll", "roll")])
def test_dodge_critical_critical_on_the_fresh_roll_only(ruling, mode):
    """Seed 004 "Dodge": "Attack Succeeds but Inflicts Minimum Damage ...
    If the attack being dodged was a critical hit, it instead inflicts
    normal damage." Vasana's attack roll 20 is a plain success (critical
    <= 6); the Broo's Dodge 02 and her fresh roll 03 are both critical:
    the cell is critical/critical. Ruling ``dodged_critical_from`` says
    whether the attack roll (minimum damage) or the fresh roll (normal
    damage) decides, and a note names the reading."""
    t = duel(rulings={"dodged_critical_from": ruling})
    t(cmd.DeclareAttack(attacker="vasana", target="broo"), "20")
    assert not t.one(ev.AttackResolved).critical
    t(cmd.ChooseReaction(defender="broo", reaction="dodge"), "02,03")
    resolved = t.one(ev.ReactionResolved)
    assert resolved.cell == "dodge:critical/critical" and resolved.effects["minimum_damage"]
    assert resolved.effects["dodged_critical"] == (ruling == "table-roll")
    assert any(f"ruling dodged_critical_from={ruling}" in n.text for n in t.new(ev.NoteAdded))
    t(cmd.RollPending(), "3,11" if mode == "min" else "5,3,11")  # (1D8 5,) 1D4 3, chest
    dealt = t.one(ev.DamageDealt)
    weapon = 1 if mode == "min" else 5  # minimum of 1D8 is 1; normal keeps the 5 rolled
    assert dealt.rolled == weapon + 3


# --------------------------------------------------------------------------- #
# Item 9: Break Free's "Defender may Riposte"
# --------------------------------------------------------------------------- #


def test_break_free_with_a_riposte_cell_offers_the_riposte():
    """Seed 004 "Break Free": "designating himself as the defender ... a
    result of 'grapple fails' means the character has succeeded in breaking
    free", and the Grapple table's "Grapple Fails; Defender may Riposte:
    ... The attacker has also left himself wide open for a Riposte, which
    the defender may immediately take advantage of." The Broo's Head Butt
    03 is critical (<= 4), Ulfrik's hold 40 a success: success/critical.
    Freed, the Broo is offered the Riposte against Ulfrik and takes it."""
    t = grappled()
    t(G(who="broo", manoeuvre="break-free"), "03,40")
    assert t.one(ev_mrq1.GrappleManoeuvred).success
    assert not t.c("broo").has("grappling")
    step = t.step()
    assert (step.kind, step.who, step.data["target"], step.options) == ("riposte", "broo", "ulfrik", ("riposte", "none"))
    reactions = t.c("broo").reactions
    t(cmd.ChooseReaction(defender="broo", reaction="riposte"), "20")
    declared = t.one(ev.AttackDeclared)
    assert (declared.attacker, declared.target, declared.kind) == ("broo", "ulfrik", "riposte")
    assert t.c("broo").reactions == reactions - 1


def test_break_free_riposte_may_be_let_go():
    """The Riposte is the defender's to take ("may"): ``none`` lets it go
    and the turns go on."""
    t = grappled()
    t(G(who="broo", manoeuvre="break-free"), "03,40")
    t(cmd.ChooseReaction(defender="broo", reaction="none"))
    assert t.state.exchange is None and t.step().kind in ("turn", "end-round")


# --------------------------------------------------------------------------- #
# Item 5: an improvised parry with a missile weapon
# --------------------------------------------------------------------------- #


def _slinger():
    """Vasana (23) attacks Gorp, who holds only his Sling (Shield skill 35)."""
    gorp = sheet("gorp", location_hp=TOUGH, ready=["Sling"], skills=dict(sheet("gorp")["skills"], Shield=35))
    t = three(gorp=gorp, sr="10,1,1")
    t(cmd.DeclareAttack(attacker="vasana", target="gorp"), "20")
    return t


def test_improvised_parry_with_a_missile_weapon_uses_the_shield_skill():
    """Seed 004 "Parry", Improvisation: "Parrying with improvised items,
    such as crossbows or fallen logs, is usually done using the Shield
    Skill". Gorp, holding only his Sling, is not offered a parry, but
    naming the Sling parries with his Shield skill 35% (the seed gives no
    further penalty); the Sling's AP 1 is what the Parry table deducts from."""
    t = _slinger()
    assert "parry" not in t.step().options
    t(cmd.ChooseReaction(defender="gorp", reaction="parry", with_item="Sling"), "10,50")
    tested = t.tests_of("gorp")[0]
    assert (tested.skill, tested.base, tested.result) == ("Shield (improvised parry with Sling)", 35, "success")
    assert t.one(ev.ReactionChosen).with_item == "Sling"


def test_improvised_parry_needs_the_item_named():
    """Without ``--with`` naming the missile weapon nothing is improvised:
    the parry is refused in one line, and nothing is appended."""
    t = _slinger()
    before = len(t.log())
    with pytest.raises(RuleError, match=re.escape("Gorp can dodge | none here, not 'parry'")):
        t(cmd.ChooseReaction(defender="gorp", reaction="parry"), "10,50")
    assert len(t.log()) == before


# --------------------------------------------------------------------------- #
# Item 9b: Second Chance re-rolls the character's own failed roll
# --------------------------------------------------------------------------- #


def _dodged(manual: bool = True):
    from test_mrq1_flow import attack, react

    t = duel(manual=manual, sr="1,10")  # the Broo acts first
    attack(t, "broo", "vasana", "40" if manual else "")
    react(t, "vasana", "dodge", "80,40" if manual else "")  # Vasana's Dodge 80 fails; the Broo's fresh roll 40
    return t


def test_second_chance_by_default_re_rolls_the_characters_own_failed_roll():
    """Seed 004 "Hero Points": "Second Chance: A character can re-roll any
    dice roll that affects his character. This can be a skill test, damage
    roll or anything else that has some effect on him." Without ``--roll``
    it is Vasana's own failed Dodge (80) that is rolled again (10), not the
    Broo's fresh table roll; that roll keeps its 40 (one roll is re-rolled)."""
    from test_mrq1_heroes import spend_second_chance

    t = _dodged()
    dodge, fresh = [r for r in t.out.records if isinstance(r.event, ev.DiceRolled)]
    spend_second_chance(t, "vasana", dice="10")
    rolls = t.new(ev.DiceRolled)
    assert [(r.faces, r.by, r.supersedes) for r in rolls] == [((10,), "vasana", dodge.version), ((40,), "broo", 0)]
    assert [(e.handle, e.roll, e.result) for e in t.new(ev.SkillTested)] == [
        ("vasana", 10, "success"), ("broo", 40, "success")]
    assert t.one(ev_mrq1.HeroPointSpent).roll == dodge.version


def test_second_chance_typed_dice_after_the_re_roll_take_the_place_of_the_kept_ones():
    """The values given with ``--dice`` come first: ``10,55`` re-rolls the
    Dodge to 10 and gives the fresh roll 55; nothing is left over."""
    from test_mrq1_heroes import spend_second_chance

    t = _dodged()
    spend_second_chance(t, "vasana", dice="10,55")
    assert [r.faces for r in t.new(ev.DiceRolled)] == [(10,), (55,)]


def test_second_chance_with_engine_dice_re_rolls_the_own_failed_roll():
    from test_mrq1_heroes import spend_second_chance

    t = _dodged(manual=False)
    dodge = next(r for r in t.out.records if isinstance(r.event, ev.DiceRolled))
    spend_second_chance(t, "vasana")
    new = t.new(ev.DiceRolled)[0]
    assert (new.by, new.supersedes, new.source) == ("vasana", dodge.version, "engine")



# --------------------------------------------------------------------------- #
# Item 5: an improvised parry with an item not on the sheet
# --------------------------------------------------------------------------- #


def test_improvised_parry_with_an_item_off_the_sheet_uses_the_shield_skill_and_its_ap():
    """Seed 004 "Parry", Improvisation: "Parrying with improvised items,
    such as crossbows or fallen logs, is usually done using the Shield
    Skill". Gorp snatches up a chair the GM gives 3 AP (the seed gives no
    figure): his Shield 35% parries, and the chair's AP is what the Parry
    table deducts (a success against a success: the parrying item's AP)."""
    t = _slinger()
    t(cmd.ChooseReaction(defender="gorp", reaction="parry", with_item="chair:3"), "10,50")
    tested = t.tests_of("gorp")[0]
    assert (tested.skill, tested.base, tested.result) == ("Shield (improvised parry with chair)", 35, "success")
    assert t.one(ev.ReactionChosen).with_item == "chair"
    resolved = t.one(ev.ReactionResolved)
    assert resolved.cell == "parry:success/success" and resolved.effects.get("reduce") == 3


def test_improvised_parry_on_the_skill_the_gm_names():
    """"... though the Games Master may decide a particular Weapon skill is
    more appropriate in other cases (such as the Club Skill for tree
    branches)": ``branch:2:Athletics`` parries on the skill named."""
    t = _slinger()
    gorp = t.c("gorp")
    athletics = {k.lower(): v for k, v in gorp.sheet["skills"].items()}["athletics"]
    t(cmd.ChooseReaction(defender="gorp", reaction="parry", with_item="branch:2:Athletics"), "10,50")
    tested = t.tests_of("gorp")[0]
    assert (tested.skill, tested.base) == ("Athletics (improvised parry with branch)", athletics)


@pytest.mark.parametrize("item, message", [
    ("chair", "an improvised item not on the sheet is named with its Armour Points: --with 'chair:AP'"),
    ("chair:x", "an improvised item is NAME:AP or NAME:AP:SKILL"),
    ("chair:21", "an improvised item is NAME:AP or NAME:AP:SKILL"),
    ("chair:2:Juggling", "Gorp has no skill 'Juggling' for the improvised chair"),
    ("sling:2", "Sling is on Gorp's sheet; name it without ':AP'"),
])
def test_improvised_item_badly_named_is_refused_in_one_line(item, message):
    t = _slinger()
    before = len(t.log())
    with pytest.raises(RuleError, match=re.escape(message)):
        t(cmd.ChooseReaction(defender="gorp", reaction="parry", with_item=item), "10,50")
    assert len(t.log()) == before
