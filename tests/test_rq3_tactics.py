"""rq3: @Entangle pulling a weapon away and @Swordbreaking's damage option
(seed 002 "@Entangle", "@Swordbreaking"; rulings ``entangle_two_hands``,
``swordbreaking_option``), through the real command path with table dice.
Vasana STR 13, Whip 1D3 attack 60 (special 01-12), +1D4; Broadsword 1D8+1
parry 60 (special 01-12, critical 01-03). Gorakh STR 18, Maul 2H 2D8 AP
10 attack 60, +1D6."""

from __future__ import annotations

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import rq3 as rev

from test_rq3_rules import ROLL, RuledTable, Table, _trained, ready_for_melee, sheet


def _whip() -> dict:
    v = sheet("vasana")
    v["weapons"].append({"name": "Whip", "damage": "1D3", "sr": 2, "length": 2.0, "flexible": True, "modes": ["slash"],
                         "attack": 60, "tactics": ["@entangle"]})
    v["ready"] = ["Whip"]
    return v


def _entangling(rulings: dict | None = None) -> Table:
    joins = (("vasana", _whip(), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t = RuledTable(rulings, *joins) if rulings else Table(*joins)
    ready_for_melee(t, "intent triple", "intent double attack:gorakh:Whip:@entangle:weapon")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "10")  # a special
    return t


def test_entangle_pulls_the_weapon_away():
    """Seed 002 "@Entangle": "an entangled weapon is pulled out of the grasp
    of its wielder on a STR vs. STR roll ... landing 0 to 5 meters (1d6-1)
    away"; the two-handed Maul gives Gorakh STR x1.5 (ruling
    entangle_two_hands = attacked-weapon): 13 against 27, 5%."""
    t = _entangling()
    assert [n.expr for n in t.state.pending[0].dice] == ["1D3", "1D4", "1D100", "1D6"]  # no hit location
    t(ROLL, "3,4,5,4")
    resist = t.events(ev.SkillTested)[-1]
    assert (resist.skill, resist.target, resist.result) == ("resistance", 5, "success")
    drop = t.events(ev.WeaponDropped)[-1]
    assert (drop.handle, drop.weapon) == ("gorakh", "Maul") and "3 m away" in drop.reason
    assert not t.events(ev.DamageDealt)  # the blow strikes the weapon, not Gorakh


def test_entangle_fails_the_weapon_stays_entangled():
    """Seed 002 "@Entangle": a failed STR vs STR leaves the weapon in hand
    (entangled); the blow did half weapon damage to it (1 + 4 = 5 < AP 10:
    no AP lost, as Break Weapon)."""
    t = _entangling()
    t(ROLL, "3,4,20,4")
    assert not t.events(ev.WeaponDropped)
    g = t.state.combatants["gorakh"]
    assert "Maul" in g.ready and any(x.id == "entangled:Maul" for x in g.conditions)


def test_entangle_two_hands_ruling_reads_the_seed_literally():
    """Ruling entangle_two_hands = attacking-weapon: the seed's words ("if the
    attacking weapon was held in both hands"): the 1H whip leaves STR 13
    against 18: 25%."""
    t = _entangling({"entangle_two_hands": "attacking-weapon"})
    t(ROLL, "3,4,20,1")
    assert t.events(ev.SkillTested)[-1].target == 25
    assert t.events(ev.WeaponDropped)[-1].weapon == "Maul"


def _caught(parry_roll: str) -> Table:
    t = Table(("vasana", _trained("@swordbreaking"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent double parry:gorakh:Broadsword:@swordbreaking:damage")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(cmd.ChooseReaction(defender="vasana", reaction="parry"), parry_roll)
    return t


def test_swordbreaking_damages_the_caught_weapon():
    """Seed 002 "@Swordbreaking": "he will do the swordbreaker's damage plus
    his or her damage bonus directly to the armor points of the attacking
    weapon, which may result in the weapon breaking": 8+1 + 4 = 13 against
    the Maul's AP 10: it breaks."""
    t = _caught("10")
    assert [n.expr for n in t.state.pending[0].dice][-2:] == ["1D8+1", "1D4"]
    t(ROLL, "12,1,1,1,8,4")
    assert t.events(rev.SpecialApplied)[-1].effect == "swordbreaking"
    drop = t.events(ev.WeaponDropped)[-1]
    assert (drop.handle, drop.weapon) == ("gorakh", "Maul") and "swordbreaker" in drop.reason


def test_swordbreaking_under_ap_takes_one():
    """Seed 002: "If the damage done by the swordbreaker does not equal or
    exceed the attacking weapon's AP, the weapon takes only 1 AP of damage"."""
    t = _caught("10")
    t(ROLL, "12,1,1,1,1,1")  # 1+1 + 1 = 3 < 10
    g = t.state.combatants["gorakh"]
    assert next(x for x in g.conditions if x.id == "weapon-damaged:Maul").effects == {"ap-lost": 1}
    assert "Maul" in g.ready


def test_swordbreaking_critical_doubles():
    """Seed 002: "On a critical parry the character can ... do double
    damage": (3+1 + 2) x 2 = 12 against AP 10: broken."""
    t = _caught("2")
    t(ROLL, "12,1,1,1,3,2")
    assert t.events(ev.WeaponDropped)[-1].weapon == "Maul"


def test_swordbreaking_option_only_for_swordbreaking():
    """An option on another parry tactic is refused in one line."""
    t = Table(("vasana", _trained("@glancing"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.refused(cmd.TakeAction(who="vasana", action="intent double parry:gorakh:Broadsword:@glancing:damage"),
              "only @swordbreaking")
