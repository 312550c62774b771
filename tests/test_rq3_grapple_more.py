"""rq3 grappling: a caught shield or hafted weapon held, a caught blade
not, and a throw from a height (seed 002 "GRAPPLING"; ruling
``throw_height``), through the real command path with table dice.
Vasana: Grapple 30, STR 13, DEX 16, Broadsword (bladed) parry 60, chest AP
6. Gorakh: Grapple 40, STR 18, SIZ 18, DEX 11, Maul (hafted) parry 45, +1D6."""

from __future__ import annotations

from affray.events import commands as cmd
from affray.events import core as ev

from test_rq3_rules import ROLL, Table, ready_for_melee


def test_a_caught_blade_is_not_held():
    """Seed 002: "A bladed weapon that is caught can not normally be held"."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Grapple", "intent double parry:gorakh:Broadsword")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "20")
    t(cmd.ChooseReaction(defender="vasana", reaction="parry"), "30")
    t(ROLL, "2")
    assert not t.state.combatants["gorakh"].has("grappling")
    assert "cannot hold a blade" in t.events(ev.ExchangeEnded)[-1].summary


def _maul_caught() -> Table:
    t = Table()
    ready_for_melee(t, "intent double parry:vasana:Maul", "intent double attack:gorakh:Grapple")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "20")
    t(cmd.ChooseReaction(defender="gorakh", reaction="parry"), "30")
    t(ROLL, "2")
    return t


def test_a_caught_hafted_weapon_is_held_and_immobilised():
    """Seed 002: "A shield or hafted weapon that is caught can be held for a
    further grappling attempt to immobilize the weapon or throw the
    opponent": STR 13 against STR/2 9 (70%) immobilises the Maul, which can
    then not strike."""
    t = _maul_caught()
    held = next(x for x in t.state.combatants["vasana"].conditions if x.name == "grappling")
    assert held.note == "holds Gorakh's Maul" and held.effects["weapon-held"] == 1
    t(cmd.EndRound())
    t.act("gorakh", "intent single attack:vasana:Maul parry:vasana:Maul")
    t.refused(cmd.TakeAction(who="vasana", action="intent double attack:gorakh:Grapple:damage"), "not a location")
    t.act("vasana", "intent double attack:gorakh:Grapple:immobilise")
    t.act("vasana", "move stay")
    t.act("gorakh", "move stay")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "20")
    t(ROLL, "10")
    g = t.state.combatants["gorakh"]
    assert g.has("weapon-immobilised") and not g.has("immobilised")
    t.refused(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "held immobilised", "10")


def test_a_throw_from_a_height():
    """Seed 002: a thrown opponent "takes 1d6 damage (+ thrower's damage
    bonus) ... more if the fall is from a greater height" (ruling
    throw_height: +1D6 per full 3 m: 6 m is +2D6)."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Grapple", "intent triple")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "20")
    t(ROLL, "12")
    t(cmd.EndRound())
    t.act("gorakh", "intent double attack:vasana:Grapple:throw")
    t.act("vasana", "intent triple")
    t.act("vasana", "move stay")
    t.act("gorakh", "move stay")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana", situations=("height=6",)), "45")
    t(ROLL, "10")
    assert [n.expr for n in t.state.pending[0].dice] == ["1D20", "1D6", "2D6", "1D6", "1D100"]
    t(ROLL, "12,4,3,3,3,90")  # chest: 4 + 6 + 3 = 13; armour 6 // 2 = 3
    d = t.events(ev.DamageDealt)[-1]
    assert (d.location, d.rolled, d.armour, d.final) == ("chest", 13, 3, 10)


def test_height_only_for_a_throw():
    """height= belongs to a grapple throw: one line, nothing appended."""
    t = Table()
    ready_for_melee(t, "intent triple", "intent double attack:gorakh:Broadsword")
    t.refused(cmd.DeclareAttack(attacker="vasana", target="gorakh", situations=("height=6",)), "grapple throw", "20")
