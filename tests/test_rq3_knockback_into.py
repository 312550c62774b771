"""rq3: knockback into a creature (seed 002 "KNOCKBACK INTO SMALL OBJECTS,
PEOPLE AND SOLID OBJECTS"; ruling ``knockback_collision``) and knockback on
the hex map (DESIGN.md "Positions": along the line from the attacker
through the target). Gorakh's Maul 2D8 crushing, +1D6; Vasana SIZ 12, DEX
16, chest AP 6; Kesh (Vasana's figures, INT 12, DEX 14) stands behind her."""

from __future__ import annotations

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import rq3 as rev
from affray.rules.rq3 import core

from test_rq3_rules import ROLL, Table, ready_for_melee, sheet

JOINS = (("vasana", sheet("vasana"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"),
         ("kesh", sheet("vasana", name="Kesh", INT=12, DEX=14), "heroes"))


def _blow(t: Table, situations: tuple[str, ...] = ()) -> None:
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana", situations=situations), "40")


def test_knocked_into_a_creature_both_roll_and_take_damage():
    """Seed 002: "he must make another DEX x 5 roll to remain standing, as
    must the object, if it is a living or animate creature"; "both take 1d6
    damage to a random location for every two meters of knockback"."""
    t = Table(*JOINS)
    t(cmd.StartRound())
    t.act("gorakh", "intent double attack:vasana:Maul")
    t.act("kesh", "intent triple")
    t.act("vasana", "intent triple")
    t.act("vasana", "move engage gorakh")
    t(ROLL, "90,10")  # loses the contest to close: stays at the Maul's 2 m
    t.act("kesh", "move stay")
    t.act("gorakh", "move stay")
    _blow(t, ("into=kesh",))
    t(ROLL, "12,3,3,1")  # 7 crushing: 14 >= SIZ 12: 1 m
    assert [n.purpose for n in t.state.pending[0].dice] == [
        "DEX x5: Vasana stays standing", "DEX x5: Vasana stays standing against Kesh", "hit location: Vasana hits Kesh",
        "damage: Vasana hits Kesh", "DEX x5: Kesh stays standing", "hit location: Kesh is hit by Vasana",
        "damage: Kesh is hit by Vasana"]
    t(ROLL, "10,20,1,3,95,2,4")  # Vasana stays up; Kesh (DEX 14 x5 = 70) falls; right leg 3-1, left leg 4-1
    hits = [(d.target, d.location, d.final) for d in t.events(ev.DamageDealt)][-2:]
    assert hits == [("vasana", "right leg", 2), ("kesh", "right leg", 3)]
    assert t.state.combatants["kesh"].stance == "prone" and t.state.combatants["vasana"].stance == "standing"


def test_into_refused_for_the_attacker_or_with_a_wall():
    """One line, nothing appended: into= names a third creature, and a
    knockback hits one thing."""
    t = Table(*JOINS)
    t(cmd.StartRound())
    t.act("gorakh", "intent double attack:vasana:Maul")
    t.act("kesh", "intent triple")
    t.act("vasana", "intent triple")
    t.act("vasana", "move engage gorakh")
    t(ROLL, "90,10")
    t.act("kesh", "move stay")
    t.act("gorakh", "move stay")
    t.refused(cmd.DeclareAttack(attacker="gorakh", target="vasana", situations=("into=gorakh",)), "not the attacker", "40")
    t.refused(cmd.DeclareAttack(attacker="gorakh", target="vasana", situations=("into=kesh", "wall")), "not both", "40")


def _on_map(kesh_at: str) -> Table:
    t = Table(*JOINS)
    t.act("gorakh", "place 0,0 facing=e")
    t.act("vasana", "place 3,0 facing=w")
    t.act("kesh", f"place {kesh_at} facing=w")
    t(cmd.StartRound())
    t.act("gorakh", "intent double attack:vasana:Maul")
    t.act("kesh", "intent triple")
    t.act("vasana", "intent triple")
    t.act("vasana", "move w")  # into the Maul's secondary front hexes: engaged at 2 m
    t.act("kesh", "move done")
    t.act("gorakh", "move done")
    t.act("vasana", "move done")
    return t


def test_knockback_moves_the_figure_on_the_map():
    """DESIGN.md: "Knockback moves a combatant along the line from the
    attacker through the target": 1 m east, from hex 2,0 to 3,0."""
    t = _on_map("6,0")
    _blow(t)
    t(ROLL, "12,3,3,1")
    t(ROLL, "10")
    assert core.position(t.state.combatants["vasana"])[:2] == (3, 0)


def test_knockback_on_the_map_stops_at_a_figure_and_hits_it():
    """Seed 002: 2 m of knockback (22 points: SIZ + 10) toward Kesh two hexes
    behind: Vasana stops in front of Kesh and both take 1D6 ("the full
    distance need not be traveled")."""
    t = _on_map("4,0")
    _blow(t)
    t(ROLL, "12,5,5,1")  # 11 crushing, doubled: 22: 2 m
    step = t.state.pending[0]
    assert step.data["into"] == "kesh" and step.data["metres"] == 2
    t(ROLL, "10,20,1,3,10,2,4")  # DEX x4 = 64: stays; against Kesh: stays; Kesh stays
    assert core.position(t.state.combatants["vasana"])[:2] == (3, 0)
    assert [d.target for d in t.events(ev.DamageDealt)][-2:] == ["vasana", "kesh"]


def test_pass_a_figure_knocked_aside_in_the_post_melee_move():
    """Seed 002 "MOVE": one "can knock the intervening character down or
    aside in the Melee phase, and then continue his or her movement in the
    Post Melee Move Phase"; "4) POST MELEE MOVE PHASE": no passing through
    another figure otherwise."""
    t = _on_map("6,0")
    _blow(t)
    t(ROLL, "12,3,3,1")
    t(ROLL, "10")  # Vasana stays up at 3,0, knocked aside by Gorakh
    assert t.state.pending[0].kind == "end-round"
    t.refused(cmd.TakeAction(who="kesh", action="move w w w"), "cannot pass through another")
    t.act("gorakh", "move e e e e")  # through Vasana's hex to 4,0
    assert core.position(t.state.combatants["gorakh"])[:2] == (4, 0)


def test_a_free_standing_object_takes_damage_too():
    """Seed 002 "KNOCKBACK INTO SMALL OBJECTS, PEOPLE AND SOLID OBJECTS": "If
    the target was knocked back and hit a creature or free standing object,
    both take 1d6 damage ... for every two meters of knockback" (ruling
    knockback_collision: 1 m gives 1D6): the object's own 1D6 is rolled and
    recorded; a solid wall takes none (test_rq3_rules)."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent triple")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana", situations=("wall",)), "40")
    t(ROLL, "12,3,3,1")  # 1 m of knockback
    assert [n.expr for n in t.state.pending[0].dice] == ["1D100", "1D100", "1D20", "1D6", "1D6"]
    t(ROLL, "10,10,1,3,5")  # stays up twice; right leg 3 - 1 AP = 2; the object takes 5
    d = t.events(ev.DamageDealt)[-1]
    assert (d.location, d.rolled, d.final) == ("right leg", 3, 2)
    hit = [e for e in t.events(rev.SpecialApplied) if e.effect == "object damaged"]
    assert len(hit) == 1 and "takes 5 damage" in hit[0].detail
