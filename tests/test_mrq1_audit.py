"""Rule fidelity for mrq1 (issue 15, "Also": the second pass through seed
004 section by section), each finding played through the real command path
with table dice.

Every test names its seed section (seed 004_71637fb3cfde52c9.txt) and
quotes the seed's words it checks. Figures come from the example sheets
(see ``test_mrq1_flow``).
"""

from __future__ import annotations

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.rules.mrq1.core import useless_limbs

from test_mrq1_actions import three
from test_mrq1_fidelity import _turn_of
from test_mrq1_flow import CHEST, RIGHT_LEG, TOUGH, attack, duel, hit_vasana, react, sheet

# --------------------------------------------------------------------------- #
# "Serious Wound", "Major Wound": a location restored to 1 HP or more
# --------------------------------------------------------------------------- #


def _expired(t) -> list[tuple[str, str]]:
    return [(e.condition_id.split(":")[0], e.reason) for e in t.new(ev.ConditionExpired)]


def test_a_useless_limb_restored_to_1_hp_is_useful_again():
    """Seed 004 "Serious Wound", Limbs: "A limb will be rendered useless by
    a Serious Wound, until the location is restored to 1 hit point or more,
    or if the character receives First Aid." The GM restores the leg to 1
    HP (``affray set``): it is no longer useless."""
    t = hit_vasana(6, RIGHT_LEG)  # 5 - 6 = -1: a Serious Wound
    t(cmd.RollPending(), "1")
    assert useless_limbs(t.c("vasana"), "leg") == ["right leg"]
    t(cmd.SetHitPoints(who="vasana", location="right leg", hp=1, reason="a healing potion"))
    assert useless_limbs(t.c("vasana"), "leg") == []
    assert _expired(t) == [("useless-limb", "the location recovered")]


def test_a_location_restored_to_0_hp_stays_useless():
    """Seed 004 "Serious Wound": "until the location is restored to 1 hit
    point or more": 0 HP is not enough."""
    t = hit_vasana(6, RIGHT_LEG)
    t(cmd.RollPending(), "1")
    t(cmd.SetHitPoints(who="vasana", location="right leg", hp=0, reason="some healing"))
    assert useless_limbs(t.c("vasana"), "leg") == ["right leg"] and not t.new(ev.ConditionExpired)


def test_healing_the_chest_ends_the_resilience_retests_at_once():
    """Seed 004 "Serious Wound", Abdomen, Chest or Head: the Resilience
    test "will have to be repeated at the end of every Combat Round, until
    the location is restored to 1 hit point or more". Healed (``affray
    heal``), the chest owes no re-test."""
    t = hit_vasana(6, CHEST)
    t(cmd.RollPending(), "1,20")  # 1 action lost; Resilience 20 <= 45 passes
    assert t.c("vasana").has("resilience-retest")
    t(cmd.Heal(who="vasana", location="chest", reason="Heal 2"))
    assert not t.c("vasana").has("resilience-retest")
    assert _expired(t) == [("resilience-retest", "the location recovered")]


def test_a_severed_limb_healed_stays_severed_but_stops_bleeding():
    """Seed 004 "Major Wound", Limbs: "A limb will be either severed or
    mangled by a Major Wound ... If the location does not recover within a
    number of Combat Rounds equal to the character's CON+POW, the character
    dies from blood loss and shock." Restored to 1 HP, the location has
    recovered (the blood loss and the re-test end); the limb stays
    severed."""
    t = hit_vasana(11, RIGHT_LEG)  # 5 - 11 = -6: a Major Wound
    t(cmd.RollPending(), "20")  # Resilience passes
    assert {"severed-limb", "bleeding-out", "resilience-retest"} <= {c.name for c in t.c("vasana").conditions}
    t(cmd.SetHitPoints(who="vasana", location="right leg", hp=2, reason="regrown by a miracle"))
    names = {c.name for c in t.c("vasana").conditions}
    assert "severed-limb" in names and not names & {"bleeding-out", "resilience-retest"}


# --------------------------------------------------------------------------- #
# "Impaled Enemies": First Aid removes the impaling weapon
# --------------------------------------------------------------------------- #


def test_first_aid_removes_an_impaling_weapon_without_damage():
    """Seed 004 "Impaled Enemies": "Another character may remove the
    impaling weapon in a cleaner and less agonising manner through the use
    of the First Aid skill." A successful First Aid on the impaled chest
    ends the impalement (and its -20%) and deals no damage."""
    medic = sheet("vasana", skills=dict(sheet("vasana")["skills"], **{"First Aid": 60}))
    t = duel(vasana=medic, broo=sheet("broo"), sr="1,10")
    attack(t, "broo", "vasana", "03")  # the Shortspear's critical
    react(t, "vasana", "none")
    t(cmd.RollPending(), "2,11")  # max 8 + 2 = 10 to the chest, AP 3: chest 8 -> 1
    t(cmd.MakeChoice(who="broo", option="leave"))
    assert t.c("vasana").has("impaled")
    _turn_of(t, "vasana")
    t(cmd.TakeAction(who="vasana", action='skill "First Aid" target=vasana'), "80")
    assert t.c("vasana").has("impaled")  # 80 (less the -20% impaled) fails
    _turn_of(t, "vasana")
    t(cmd.TakeAction(who="vasana", action='skill "First Aid" target=vasana location=chest'), "30")
    assert not t.c("vasana").has("impaled")
    assert _expired(t) == [("impaled", "First Aid by Vasana")]
    assert not t.new(ev.DamageDealt) and t.c("vasana").location("chest").hp == 1


# --------------------------------------------------------------------------- #
# "Defend", "One Useless or Missing Leg", "Two Useless or Missing Arms":
# which tests the modifiers reach
# --------------------------------------------------------------------------- #


def _with_conditions(t, handle: str, *locations: str) -> None:
    """Serious Wounds (useless limbs) put on ``handle`` through the log."""
    from affray.rules.mrq1 import conditions as cat

    conditions = [
        ev.ConditionApplied(handle=handle, condition=cat.make(
            "useless-limb", cause=1, round=1, step=0, ends="event", location=loc, effects={"useless-limb": 1}, note=loc))
        for loc in locations
    ]
    t.store.append(t.eid, t.state.version, conditions, command_id="limbs", actor="gm")


def test_defend_adds_20_to_the_dodge_test_of_a_knockback_into_a_wall():
    """Seed 004 "Defend": "effectively adding +20% to any Dodge Skill tests
    or parrying Weapon skill tests he is called upon to make until the
    beginning of his next Combat Action"; "Knockback": "If a character is
    knocked back into a wall or other solid object, he must make a Dodge
    Skill test". Gorp (Dodge 40) defended: his wall Dodge is at 60%."""
    t = three(gorp=sheet("gorp", location_hp=TOUGH), sr="1,5,10")  # Gorp 21, Broo 15, Vasana 14
    t(cmd.TakeAction(who="gorp", action="defend"))
    t(cmd.TakeAction(who="broo", action="pass"))
    attack(t, "vasana", "gorp", "40", situations=("wall",))
    react(t, "gorp", "none")
    t(cmd.RollPending(), "8,4,11")  # 12 against SIZ 8: knocked back 1 m
    t(cmd.RollPending(), "10,55")  # Acrobatics 10; Dodge 55 <= 60
    dodge = [e for e in t.new(ev.SkillTested) if e.skill == "Dodge"][0]
    assert (dodge.base, dodge.target, dodge.result) == (40, 60, "success")
    assert not t.new(ev.DamageDealt)


def test_a_useless_leg_does_not_hinder_persistence_but_hinders_athletics():
    """Seed 004 "One Useless or Missing Leg": "They also suffer a -10%
    penalty to any Skill that relies upon physical mobility, such as
    Athletics, Dodge, Stealth and Weapon skills." Persistence does not rely
    on mobility: Vasana's 40% stays 40%; her Athletics 45% is 35%."""
    t = duel()
    _with_conditions(t, "vasana", "right leg")
    t(cmd.TakeAction(who="vasana", action="skill Persistence"), "50")
    t(cmd.TakeAction(who="broo", action="pass"))
    t(cmd.TakeAction(who="vasana", action="skill Athletics"), "50")
    persistence, athletics = [e for e in t.log(ev.SkillTested) if e.skill in ("Persistence", "Athletics")]
    assert (persistence.base, persistence.target) == (40, 40)
    assert (athletics.base, athletics.target) == (45, 35)


def test_a_useless_leg_hinders_the_weapon_skill_of_a_disarm():
    """Seed 004 "One Useless or Missing Leg": -10% to "Weapon skills"; a
    Disarm's "opposed Weapon skill" test is one. The Broo (Shortspear 60%)
    keeps hold with a useless leg at 50%."""
    t = duel()
    _with_conditions(t, "broo", "left leg")
    attack(t, "vasana", "broo", "10", situations=("precise=disarm",))
    react(t, "broo", "none")
    step = t.step()
    t(cmd.RollPending(), ",".join(["20", "40", "3"][: len(step.dice)]))
    keep = [e for e in t.new(ev.SkillTested) if e.handle == "broo"][0]
    assert (keep.base, keep.target) == (60, 50)


def test_two_useless_arms_dive_at_minus_30():
    """Seed 004 "Two Useless or Missing Arms": "Most Skills based on STR or
    DEX are impossible, though some (such as Athletics and Dodge) only
    suffer a -30% penalty"; "Dive": "a character must succeed in a Dodge
    Skill test". Vasana's Dodge 35% is 5% for the dive."""
    t = three()
    _with_conditions(t, "vasana", "right arm", "left arm")
    t(cmd.TakeAction(who="gm", action="area 2D6 on=vasana name=Fireball"))
    react(t, "vasana", "dive", "20")
    dive = t.one(ev.SkillTested)
    assert (dive.base, dive.target, dive.result) == (35, 5, "failure")


# --------------------------------------------------------------------------- #
# "Impaling Close Combat Attacks" and "Ranged Weapons": a ranged critical
# --------------------------------------------------------------------------- #


def _yara_shoots_critically(rulings: dict | None = None):
    """Yara's Short Bow (impaling, 60%) scores a critical (02) on the Broo's
    chest at 20 m; the Broo does not dodge; 8 (max) to the chest."""
    from test_mrq1_flow import Table, join

    t = Table(join(sheet("yara", ready=["Short Bow"]), "heroes", "yara"),
              join(sheet("broo", location_hp=TOUGH), "broo", "broo"), rulings=rulings)
    t(cmd.StartRound(), "10,1")
    t(cmd.DeclareAttack(attacker="yara", target="broo", weapon="Short Bow", situations=("range=20",)), "02")
    react(t, "broo", "none")
    t(cmd.RollPending(), "11")
    assert t.one(ev.DamageDealt).critical
    return t


def test_a_ranged_impaling_critical_leaves_the_missile_in_and_the_bow_in_hand():
    """Seed 004 "Ranged Weapons": "all ranged attacks are handled in same
    manner as close combat attacks"; "Impaling Close Combat Attacks": the
    attacker chooses "whether to yank the weapon free or to leave the enemy
    impaled", which a shooter 20 m away cannot do. Ruling ``ranged_impale``
    (default ``left-in``): the arrow stays in the Broo ("Impaled Enemies":
    "-20% penalty to all skill tests"), no yank | leave is offered, and
    Yara keeps her bow."""
    t = _yara_shoots_critically()
    assert not any(s.kind == "impale" for s in t.state.pending)
    cond = next(x for x in t.c("broo").conditions if x.name == "impaled")
    assert (cond.location, cond.effects) == ("chest", {"penalty": -20})
    assert "Short Bow" in t.c("yara").ready and not t.new(ev.WeaponDropped)


def test_ruling_ranged_impale_close_combat_only():
    """Ruling ``ranged_impale=close-combat-only``: impaling is read as a
    close combat rule; the ranged critical only does maximum damage."""
    t = _yara_shoots_critically({"ranged_impale": "close-combat-only"})
    assert not t.c("broo").has("impaled") and not any(s.kind == "impale" for s in t.state.pending)


# --------------------------------------------------------------------------- #
# "Dive" is a Reaction
# --------------------------------------------------------------------------- #


def test_a_surprised_character_who_has_not_acted_may_not_dive():
    """Seed 004 "Reactions": "There are four types of Reaction - dodge,
    parry, dive for cover and free attacks"; "Gaining Surprise": "he may
    only use Reactions against actions that occur after his own Strike
    Rank". Gorp, surprised and yet to act, is not offered the Dive;
    Vasana is."""
    from test_mrq1_flow import Table, join

    t = Table(join(sheet("vasana"), "heroes", "vasana"), join(sheet("broo"), "broo", "broo"),
              join(sheet("gorp"), "broo", "gorp", surprised=True))
    t(cmd.StartRound(), "10,5,1")
    t(cmd.TakeAction(who="gm", action="area 2D6 on=vasana,gorp name=Fireball"))
    assert [s.who for s in t.state.pending if s.kind == "dive"] == ["vasana"]
    assert any("Gorp cannot dive (surprised and has not acted yet)" in e.text for e in t.new(ev_mrq1.ActionTaken))


def test_a_grappling_character_may_not_dive():
    """Seed 004 "Grappling Combatants": "Grappling combatants may not use
    Reactions"; a Dive is one ("Reactions")."""
    from test_mrq1_grapple import grappled

    t = grappled()
    t(cmd.TakeAction(who="broo", action="pass"))
    t(cmd.TakeAction(who="gm", action="area 1D6 on=ulfrik,broo"))
    assert not any(s.kind == "dive" for s in t.state.pending)


def test_a_retest_already_due_is_dropped_when_the_location_is_healed():
    """Seed 004 "Serious Wound": the Resilience test is repeated "until the
    location is restored to 1 hit point or more". The round ends with
    Vasana's re-test due; the GM heals her chest first: the re-test is
    dropped and the GM is asked to start the next round."""
    t = hit_vasana(6, CHEST)
    t(cmd.RollPending(), "1,20")  # Resilience passes: a re-test each round's end
    t.pass_turns()
    t(cmd.EndRound())
    assert t.step().kind == "retest"
    t(cmd.Heal(who="vasana", location="chest", reason="Heal 2"))
    assert [s.kind for s in t.state.pending] == ["start"]
    t(cmd.StartRound(), "10,1")
    assert t.state.round == 2 and t.c("vasana").status == "active"
