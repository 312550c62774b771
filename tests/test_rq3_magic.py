"""rq3 protective spells, as far as seed 002 states them ("CRITICAL HITS":
a critical ignores "all armor, including that from protective spells";
"GRAPPLING": grapple damage, "Armor has no effect. Protective spells have
half value"; a throw, "armor protecting, at best, at half value"; rulings
``protective_spells``, ``throw_spell_ap``). Vasana's chest: AP 6, 6 HP;
Gorakh's Maul 2D8 crushing, +1D6, attack 60 (critical 01-03)."""

from __future__ import annotations

from affray.events import commands as cmd
from affray.events import core as ev

from test_rq3_rules import ROLL, RuledTable, Table, ready_for_melee, sheet


def test_a_protective_spell_adds_armour():
    """The spell's AP adds on every location (the GM gives it)."""
    t = Table()
    t.act("vasana", "protect 4 Protection")
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent triple")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(ROLL, "12,3,3,1")  # chest: 7 against 6 + 4 AP
    d = t.events(ev.DamageDealt)[-1]
    assert (d.rolled, d.armour, d.final) == (7, 7, 0) and "protective spells +4 AP" in d.note


def test_a_critical_ignores_protective_spells():
    """Seed 002 "CRITICAL HITS": a critical ignores all armour, "including
    that from protective spells"."""
    t = Table()
    t.act("vasana", "protect 4 Protection")
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent triple")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "02")
    t(ROLL, "1,1,1,1")  # right leg: 1 + 1 + 1 = 3, armour and spell ignored
    d = t.events(ev.DamageDealt)[-1]
    assert d.armour == 0 and "protective spells ignored" in d.note


def _follow_up(t: Table, follow_up: str, attack: str, dice: str) -> ev.DamageDealt:
    """Gorakh grabs Vasana's chest; next round, under a 4 AP spell, his
    ``follow_up`` (damage or throw) rolls ``attack`` and then ``dice``."""
    ready_for_melee(t, "intent double attack:vasana:Grapple", "intent triple")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "20")
    t(ROLL, "12")  # chest held
    t(cmd.EndRound())
    t.act("vasana", "protect 4 Protection")
    t.act("gorakh", f"intent double attack:vasana:Grapple:{follow_up}")
    t.act("vasana", "intent triple")
    t.act("vasana", "move stay")
    t.act("gorakh", "move stay")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), attack)
    for roll in dice.split(";"):
        t(ROLL, roll)
    return t.events(ev.DamageDealt)[-1]


def test_grapple_damage_meets_half_the_spell():
    """Seed 002 "GRAPPLING": grapple damage: "Armor has no effect.
    Protective spells have half value": 1D4 3 + 1D6 4 = 7 less 4 // 2."""
    d = _follow_up(Table(), "damage", "15", "3,4")
    assert (d.location, d.rolled, d.armour, d.final) == ("chest", 7, 2, 5)


def _thrown(t: Table) -> ev.DamageDealt:
    # STR+DEX against SIZ/2+DEX: thrown; chest: 1D6 6 + 1D6 6 = 12; the DEX x1 roll fails
    return _follow_up(t, "throw", "45", "10;12,6,6,90")


def test_a_throw_meets_armour_and_spell_at_half():
    """Seed 002 "GRAPPLING": a thrown foe takes the damage with "armor
    protecting, at best, at half value", and "CRITICAL HITS" counts
    protective spells as armour (ruling throw_spell_ap = half): chest AP 6
    and the spell's 4 together at half, 5 of 12."""
    d = _thrown(Table())
    assert (d.location, d.rolled, d.armour, d.final) == ("chest", 12, 5, 7)
    assert "protective spells 4 AP with the armour" in d.note


def test_a_throw_by_ruling_without_the_spell():
    """Ruling throw_spell_ap = none: only the worn armour at half (6 // 2)."""
    t = RuledTable({"throw_spell_ap": "none"}, ("vasana", sheet("vasana"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    d = _thrown(t)
    assert (d.rolled, d.armour, d.final) == (12, 3, 9)


def test_protect_ends_and_bad_input():
    """``protect 0 SPELL`` ends it; bad input is one line, nothing appended."""
    t = Table()
    t.act("vasana", "protect 2 Shield")
    assert t.state.combatants["vasana"].effect("spell-ap") == 2
    t.act("vasana", "protect 0 Shield")
    assert t.state.combatants["vasana"].effect("spell-ap") == 0
    t.refused(cmd.TakeAction(who="vasana", action="protect four"), "say the armour points")
    t.refused(cmd.TakeAction(who="vasana", action="protect 0 Shield"), "no Shield in force")
