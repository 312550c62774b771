"""Mongoose RuneQuest 1 ranged combat, precise attacks and two weapon use.

Sources (seed 004_71637fb3cfde52c9.txt): "Ranged Weapons" (Loading, Ranged
Attack Situational Modifiers and footnotes 1-4, Range, Dodging and
Parrying, Precise Attacks, Cover, Firing into a Crowd), "Precise Attack"
(Bypass Armour, Disarm, Location Strike, Strike Weapon / Shield), "Two
Weapon Use", "Close Combat Situational Modifiers"; ruling ranged_sections.

Figures: Gorp's Sling 40% 1D8, range 50 m, damage modifier -1D2. Vasana
SIZ 15, chest AP 3, Broadsword 65% 1D8 +1D4, Target Shield 50% AP 6 HP 8.
Broo: Shortspear 60%, Target Shield 45% AP 6 HP 8, chest AP 3, head AP 2.
"""

from __future__ import annotations

import msgspec
import pytest

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.rules.base import RuleError
from affray.rules.mrq1 import ranged, tables
from affray.rules.mrq1.core import Spec
from affray.rules.mrq1.core import find_weapon

from test_mrq1_actions import act, attack, react, three
from test_mrq1_flow import TOUGH, sheet

ROLL = cmd.RollPending()


def archer(**kw):
    """Gorp first (strike rank 21) with his sling ready."""
    return three(gorp=sheet("gorp", location_hp=TOUGH, ready=["Sling"]), sr="1,1,10", **kw)


def shot(t, target="vasana", dice="20", **kw):
    sits = kw.pop("situations", ())
    return attack(t, "gorp", target, dice, weapon="Sling", situations=sits, **kw)


# --------------------------------------------------------------------------- #
# Range (seed 004 "Range")
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "metres,target,auto",
    [(50, 40, False), (51, 20, False), (100, 20, False), (101, 40, True)],
)
def test_range_halves_up_to_double_and_fails_beyond(metres, target, auto):
    t = archer()
    shot(t, dice="10", situations=(f"range={metres}",))
    tested = t.one(ev.SkillTested)
    assert tested.target == target
    resolved = t.one(ev.AttackResolved)
    assert resolved.hit is (not auto)


def test_ranged_attack_does_not_engage_and_may_be_dodged_not_parried():
    """Seed 004 "Dodging and Parrying": the target may dodge, not parry."""
    t = archer()
    shot(t)
    assert t.c("gorp").engaged == ()
    assert t.step().options == ("dodge", "none")
    with pytest.raises(RuleError, match="ranged attacks may not be parried"):
        react(t, "vasana", "parry", "10,10")
    react(t, "vasana", "dodge", "10,50")  # dodge success, fresh 50 > 40 failure
    assert t.one(ev.ReactionResolved).cell == "dodge:failure/success"


# --------------------------------------------------------------------------- #
# The modifier table, cell by cell (seed 004 "Ranged Attack Situational Modifiers")
# --------------------------------------------------------------------------- #

GM_KEYS = [
    ("strong-wind", -10), ("high-wind", -20), ("fierce-wind", -40),
    ("target-moved-10m", -10), ("target-moved-30m", -20),
    ("obscured", -20), ("heavily-obscured", -40),
    ("attacker-unstable-ground", -20), ("attacker-blinded", -40),
]


@pytest.mark.parametrize("key,value", GM_KEYS)
def test_ranged_table_cell(key, value):
    t = archer()
    shot(t, dice="01", situations=(key,))
    tested = t.one(ev.SkillTested)
    assert tested.target == 40 + value
    assert tables.RANGED_MODIFIERS[key].value == value


def _mods(t, attacker="gorp", target="vasana", sits=(), **changes):
    state = t.state
    a = state.combatants[attacker]
    tt = msgspec.structs.replace(state.combatants[target], **changes)
    return ranged.modifiers(state, a, tt, find_weapon(a, "Sling"), Spec("shoot", [target], {}, [], list(sits)))


@pytest.mark.parametrize("siz,value", [(5, 0), (4, -10), (2, -30), (20, 0), (29, 0), (30, -10), (41, -20)])
def test_target_size_cells(siz, value):
    t = three(vasana=sheet("vasana", location_hp=TOUGH, characteristics={**sheet("vasana")["characteristics"], "SIZ": siz}),
              gorp=sheet("gorp", location_hp=TOUGH, ready=["Sling"]), sr="1,1,10")
    base, mods, auto = _mods(t)
    assert sum(m.value for m in mods) == value


def test_target_condition_cells_and_their_section():
    """Helpless +10, surprised +10, prone -20: one section, so only the
    largest applies (footnote 1)."""
    t = archer()
    assert sum(m.value for m in _mods(t, status="unconscious")[1]) == 10
    assert sum(m.value for m in _mods(t, stance="prone")[1]) == -20
    assert sum(m.value for m in _mods(t, stance="prone", status="unconscious")[1]) == -20


def test_target_surprised_cell():
    from affray.rules.mrq1 import conditions as cat

    cond = cat.make("surprised", cause=1, round=1, step=0, ends="round-end")
    assert sum(m.value for m in _mods(archer(), conditions=(cond,))[1]) == 10


def test_sections_do_not_stack_within_and_add_up_across():
    t = archer()
    assert sum(m.value for m in _mods(t, sits=("obscured", "heavily-obscured"))[1]) == -40
    assert sum(m.value for m in _mods(t, sits=("obscured", "target-moved-10m"))[1]) == -30


def test_ruling_worst_only_follows_the_footnote_example():
    """Footnote 1's example: mist and a target that moved 10 m give -20."""
    t = archer(rulings={"ranged_sections": "worst-only"})
    assert sum(m.value for m in _mods(t, sits=("obscured", "target-moved-10m"))[1]) == -20


def test_attacker_conditions_add_up():
    """Footnote 3: attacker condition modifiers are cumulative."""
    t = archer()
    gorp = t.state.combatants["gorp"]
    state = t.state
    a = msgspec.structs.replace(gorp, stance="prone")
    _, mods, _ = ranged.modifiers(state, a, state.combatants["vasana"], find_weapon(a, "Sling"),
                                  Spec("shoot", ["vasana"], {}, [], ["attacker-unstable-ground", "attacker-blinded"]))
    assert sum(m.value for m in mods) == -80


@pytest.mark.parametrize("sits,thrown,fails", [(("hurricane",), False, True), (("attacker-underwater",), False, True),
                                               (("attacker-underwater",), True, False)])
def test_automatic_failures(sits, thrown, fails):
    """Hurricane; footnote 4: projectile weapons miss underwater, thrown ones
    take -20%."""
    t = archer()
    a = t.state.combatants["gorp"]
    w = msgspec.structs.replace(find_weapon(a, "Sling"), thrown=thrown)
    _, mods, auto = ranged.modifiers(t.state, a, t.state.combatants["vasana"], w, Spec("shoot", ["vasana"], {}, [], list(sits)))
    assert bool(auto) is fails
    if not fails:
        assert sum(m.value for m in mods) == -20


# --------------------------------------------------------------------------- #
# Cover and crowds (seed 004 "Cover", "Firing into a Crowd")
# --------------------------------------------------------------------------- #


def test_cover_takes_a_hit_on_a_covered_location():
    t = archer()
    shot(t, situations=("cover=chest,abdomen",))
    react(t, "vasana", "none")
    t(ROLL, "6,1,11")  # d20 11: chest, covered
    assert t.new(ev.DamageDealt) == []
    assert any("strikes the cover" in n.text for n in t.new(ev.NoteAdded))


def test_cover_also_protects_in_close_combat():
    t = three()
    attack(t, "vasana", "broo", "20", situations=("cover=right leg",))
    react(t, "broo", "none")
    t(ROLL, "6,2,2")  # d20 2: right leg
    assert t.new(ev.DamageDealt) == []


def test_crowd_covered_hit_strikes_the_neighbour_who_dodges_then_the_target():
    """The accidental target may react; if he dodges, the projectile goes on
    and the intended target may react as normal."""
    t = archer()
    shot(t, situations=("cover=chest", "crowd=broo"))
    react(t, "vasana", "none")
    t(ROLL, "6,1,11")  # chest: covered -> Broo is hit
    assert (t.step().who, t.step().options) == ("broo", ("dodge", "none"))
    react(t, "broo", "dodge", "10,80")  # Broo dodges; Gorp's fresh 80 fails: attack fails
    assert (t.step().who, t.step().kind) == ("vasana", "react")
    react(t, "vasana", "none")
    t(ROLL, "6,1,3")  # right leg
    dealt = t.one(ev.DamageDealt)
    assert (dealt.target, dealt.location) == ("vasana", "right leg")


def test_no_precise_attack_into_a_crowd():
    t = archer()
    with pytest.raises(RuleError, match="crowd"):
        shot(t, situations=("cover=chest", "crowd=broo", "precise=head"))


# --------------------------------------------------------------------------- #
# Precise attacks (seed 004 "Precise Attack")
# --------------------------------------------------------------------------- #


def duel3(**kw):
    return three(**kw)


def test_location_strike_at_minus_40_hits_the_location():
    t = duel3()
    attack(t, "vasana", "broo", "20", situations=("precise=head",))
    tested = t.one(ev.SkillTested)
    assert tested.target == 25 and ev.Modifier(-40, "precise attack (location:head)") in tested.modifiers
    react(t, "broo", "none")
    assert [d.purpose for d in t.step().dice] == ["Broadsword damage", "damage modifier"]
    t(ROLL, "5,2")
    dealt = t.one(ev.DamageDealt)
    assert (dealt.location, dealt.armour, dealt.final) == ("head", 2, 5)


def test_bypass_armour_ignores_the_locations_ap():
    t = duel3()
    attack(t, "vasana", "broo", "20", situations=("precise=bypass",))
    react(t, "broo", "none")
    t(ROLL, "5,2,11")
    dealt = t.one(ev.DamageDealt)
    assert (dealt.location, dealt.armour, dealt.final) == ("chest", 0, 7)


@pytest.mark.parametrize("dice,disarmed,where", [("30,70,1", True, "at the defender's feet"), ("40,50,4", False, ""),
                                                  ("50,40,4", True, "flies 3 m")])
def test_disarm_opposed_weapon_skills(dice, disarmed, where):
    """No damage; opposed Weapon skills; the weapon flies 1D6-1 m (0 at the
    defender's feet). Same level: the higher roll wins (ruling opposed_ties)."""
    t = duel3()
    attack(t, "vasana", "broo", "20", situations=("precise=disarm",))
    react(t, "broo", "none")
    assert t.step().kind == "disarm" and t.step().data["item"] == "Shortspear"
    t(ROLL, dice)
    assert t.new(ev.DamageDealt) == []
    dropped = t.new(ev.WeaponDropped)
    assert bool(dropped) is disarmed
    if disarmed:
        assert dropped[0].weapon == "Shortspear" and where in dropped[0].reason
        assert "Shortspear" not in t.c("broo").ready


def test_disarm_two_handed_weapon_gets_plus_20():
    v = sheet("vasana", location_hp=TOUGH, ready=["Greatsword"])
    v["weapons"] = v["weapons"] + [dict(name="Greatsword", skill=60, damage="2D8", ap=4, hp=12, hands=2)]
    t = duel3(vasana=v)
    attack(t, "vasana", "broo", "15", situations=("precise=disarm",))
    react(t, "broo", "none")
    t(ROLL, "30,70,1")
    disarm = [e for e in t.new(ev.SkillTested) if e.purpose.startswith("disarm")][0]
    assert ev.Modifier(20, "weapon in two hands") in disarm.modifiers and disarm.target == 80


def test_strike_shield_damages_the_item_until_it_breaks():
    t = duel3()
    attack(t, "vasana", "broo", "20", situations=("precise=shield",))
    react(t, "broo", "none")
    assert t.step().kind == "item-damage"
    t(ROLL, "8,4")  # 12 - AP 6 = 6: HP 8 -> 2
    hit = t.one(ev_mrq1.ItemDamaged)
    assert (hit.item, hit.rolled, hit.hp_left) == ("Target Shield", 12, 2)
    assert "Target Shield" in t.c("broo").ready
    act(t, "broo", "pass")
    act(t, "gorp", "pass")
    attack(t, "vasana", "broo", "20", situations=("precise=shield",))
    react(t, "broo", "none")
    t(ROLL, "8,4")
    assert t.one(ev_mrq1.ItemDamaged).hp_left == 0
    assert t.new(ev.WeaponDropped)[0].reason == "broken"


def test_natural_weapons_may_not_be_struck():
    t = duel3()
    with pytest.raises(RuleError, match="natural weapons"):
        attack(t, "vasana", "broo", "20", situations=("precise=weapon:Head Butt",))


def test_precise_attacks_are_not_combined():
    t = duel3()
    with pytest.raises(RuleError, match="cannot be combined"):
        attack(t, "vasana", "broo", "20", situations=("precise=head", "precise=bypass"))


@pytest.mark.parametrize("precise", ["disarm", "shield"])
def test_ranged_precise_attack_may_not_disarm_or_strike_a_weapon(precise):
    t = archer()
    with pytest.raises(RuleError, match="may not disarm or strike"):
        shot(t, situations=(f"precise={precise}",))


def test_ranged_location_strike_works():
    t = archer()
    shot(t, dice="01", situations=("precise=head",))
    assert t.one(ev.SkillTested).target == 0


# --------------------------------------------------------------------------- #
# Two Weapon Use (seed 004)
# --------------------------------------------------------------------------- #


def test_off_hand_extra_parry_over_the_reaction_allowance():
    broo = sheet("broo", location_hp=TOUGH, combat_actions=1)
    t = three(broo=broo)
    attack(t, "vasana", "broo", "20")
    react(t, "broo", "dodge", "20,90")  # the one reaction: the attack fails
    act(t, "broo", "pass")
    act(t, "gorp", "pass")
    attack(t, "vasana", "broo", "20")
    step = t.step()
    assert step.options == ("parry", "none") and step.data["extra-parry"] == "Target Shield"
    react(t, "broo", "parry", "30,90")
    assert t.c("broo").has("two-weapon")
    assert t.new(ev.ActionSpent) == []  # no reaction spent
    assert t.step().kind == "damage"
    t(ROLL, "3,1,3")
    act(t, "gorp", "pass")
    attack(t, "vasana", "broo", "20")
    assert t.step().kind == "damage"  # the extra parry is used: unopposed


def test_off_hand_bonus_attack_costs_no_action_at_minus_20_once_a_round():
    t = duel3()
    attack(t, "vasana", "broo", "20", situations=("off-hand",))
    tested = t.one(ev.SkillTested)
    assert (tested.skill, tested.target) == ("Target Shield", 30)
    react(t, "broo", "none")
    t(ROLL, "3,1,3")
    assert t.c("vasana").combat_actions == 3
    assert t.state.turn == ("vasana",)
    with pytest.raises(RuleError, match="already used the off-hand"):
        attack(t, "vasana", "broo", "20", situations=("off-hand",))


def test_off_hand_bonus_attack_is_never_precise():
    t = duel3()
    with pytest.raises(RuleError, match="precise"):
        attack(t, "vasana", "broo", "20", situations=("off-hand", "precise=head"))


# --------------------------------------------------------------------------- #
# Close combat situational modifiers (seed 004 table), cell by cell
# --------------------------------------------------------------------------- #

CLOSE = [("higher-ground", 20), ("prone", -30), ("unstable-ground", -20), ("arm-obstructed", -10),
         ("underwater", -40), ("lower-ground", -20), ("partial-darkness", -20), ("darkness", -40), ("blind", -60),
         ("target-prone", 20), ("target-surprised", 20)]


@pytest.mark.parametrize("key,value", CLOSE)
def test_close_combat_table_cell(key, value):
    t = duel3()
    attack(t, "vasana", "broo", "01", situations=(key,))
    assert t.one(ev.SkillTested).target == max(0, 65 + value)
