"""rq3: closing inside a long weapon (seed 002 "MANEUVER SKILL": "If a
character begins a Move Phase adjacent to an opponent using a longer
weapon ... A success in a contest of Maneuver skills ... allows the winner
to close with his or her opponent, moving into the opponents hex, with the
normal effect for closing against a long weapon"; "A character that is
already closed can move back to a normal range"; "with a very long weapon,
such as a pike or sarissa, characters within 1 meter ... should be treated
as closed"; ruling ``closed_long_weapon``), with and without the hex map,
through the real command path. Gorakh's Maul is 2 m; Vasana's Broadsword
under 2 m; Vasana DEX 16 moves first."""

from __future__ import annotations

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.rq3 import core

from test_rq3_map import _placed, _pos
from test_rq3_rules import ROLL, RuledTable, Table, ready_for_melee, sheet


def _closed(t: Table, who: str = "vasana", foe: str = "gorakh") -> bool:
    s = t.state
    return core.is_closed(s, s.combatants[who], s.combatants[foe])


def _next_round(t: Table, gorakh: str, vasana: str) -> None:
    while t.state.pending[0].kind == "strike":
        t.act(t.state.pending[0].who, "pass")
    t(cmd.EndRound())
    t.act("gorakh", gorakh)
    t.act("vasana", vasana)


def _closed_in(t: Table) -> None:
    """Round 1 Vasana wins her way to 1 m of the Maul; round 2 she closes."""
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent triple")
    _next_round(t, "intent double attack:vasana:Maul", "intent double attack:gorakh:Broadsword")
    t.act("vasana", "move close gorakh")
    assert t.state.pending[0].kind == "maneuver"
    t(ROLL, "10,30")  # a special beats a success


def test_closing_from_one_metre_into_the_long_weapon():
    """Seed 002 "MANEUVER SKILL": beginning the Move Phase adjacent to a
    longer weapon, a won contest closes; the Maul then cannot strike her
    (ruling closed_long_weapon = no-attack), her Broadsword still can."""
    t = Table()
    _closed_in(t)
    assert _closed(t) and core.reach(t.state.combatants["vasana"], "gorakh") == 1
    assert t.state.combatants["vasana"].has("closed")
    t.act("gorakh", "move stay")
    assert t.state.pending[0].who == "vasana"  # SR 8 each; the higher DEX first
    t.act("vasana", "pass")
    t.refused(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "a long weapon cannot strike a closed foe", "20")


def test_a_lost_or_drawn_contest_does_not_close():
    """Seed 002 "MANEUVER SKILL": "If they achieve the same level of
    success, nothing changes"."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent triple")
    _next_round(t, "intent double attack:vasana:Maul", "intent triple")
    t.act("vasana", "move close gorakh")
    t(ROLL, "50,30")
    assert not _closed(t)


def test_closing_only_against_a_longer_weapon():
    """Seed 002 "MANEUVER SKILL": closing is against "an opponent using a
    longer weapon": Gorakh declaring no Maul attack leaves nothing to close;
    one line, nothing appended."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent triple")
    _next_round(t, "intent double parry:vasana:Maul", "intent triple")
    t.refused(cmd.TakeAction(who="vasana", action="move close gorakh"), "closing is against a long weapon")


def test_opening_back_out_of_the_closing():
    """Seed 002 "MANEUVER SKILL": "A character that is already closed can
    move back to a normal range if he or she succeeds in a contest"; closing
    twice is refused."""
    t = Table()
    _closed_in(t)
    t.act("gorakh", "move stay")
    _next_round(t, "intent double attack:vasana:Maul", "intent triple")
    t.refused(cmd.TakeAction(who="vasana", action="move close gorakh"), "already closed")
    t.act("vasana", "move open gorakh")
    t(ROLL, "10,30")
    v = t.state.combatants["vasana"]
    assert not _closed(t) and not v.has("closed") and core.reach(v, "gorakh") == 2


def test_within_one_metre_of_a_pike_is_closed():
    """Seed 002 "MANEUVER SKILL": "with a very long weapon, such as a pike or
    sarissa, characters within 1 meter (in an adjacent hex) should be
    treated as closed. They do not need to enter the pike wielders hex"."""
    g = sheet("gorakh")
    g["weapons"].append({"name": "Pike", "damage": "1D10+1", "sr": 0, "length": 3.0, "modes": ["impale"],
                         "attack": 50, "parry": 40, "hands": 2})
    g["ready"] = ["Pike"]
    t = Table(("vasana", sheet("vasana"), "heroes"), ("gorakh", g, "trolls"))
    ready_for_melee(t, "intent double attack:vasana:Pike", "intent triple")
    assert core.reach(t.state.combatants["vasana"], "gorakh") == 1 and _closed(t)
    assert not t.state.combatants["vasana"].has("closed")
    t.refused(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "a long weapon cannot strike a closed foe", "20")


def test_closing_recorded_only_by_ruling():
    """Ruling closed_long_weapon = recorded-only: the closing is recorded,
    the Maul may still strike (the GM rules its effect)."""
    t = RuledTable({"closed_long_weapon": "recorded-only"},
                   ("vasana", sheet("vasana"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    _closed_in(t)
    assert _closed(t)
    t.act("gorakh", "move stay")
    t.act("vasana", "pass")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "90")
    assert t.events(ev.AttackDeclared)[-1].attacker == "gorakh"


def test_on_the_map_closing_enters_the_hex():
    """Seed 002 "MANEUVER SKILL" on the hex map: the winner closes "moving
    into the opponents hex"; one who came within 1 m this round did not
    begin the Move Phase adjacent and cannot close yet; opening steps back
    out to the longer weapon's range."""
    t = _placed(vasana="1,0 facing=e", gorakh="5,0 facing=w")
    t(cmd.StartRound())
    t.act("gorakh", "intent double attack:vasana:Maul")
    t.act("vasana", "intent triple")
    t.act("vasana", "move e e")  # engaged at 2 m, at 3,0
    t.act("gorakh", "move done")
    t.act("vasana", "move close gorakh")
    t(ROLL, "10,90")
    assert _pos(t, "vasana")[:2] == (4, 0)
    t.refused(cmd.TakeAction(who="vasana", action="move close gorakh"), "needs to begin the Move Phase adjacent")
    t.act("vasana", "move done")
    _next_round(t, "intent double attack:vasana:Maul", "intent triple")
    t.act("vasana", "move close gorakh")
    t(ROLL, "10,90")
    assert _pos(t, "vasana")[:2] == _pos(t, "gorakh")[:2] == (5, 0) and _closed(t)
    t.act("gorakh", "move done")
    t.act("vasana", "move done")
    _next_round(t, "intent double attack:vasana:Maul", "intent triple")
    t.act("vasana", "move open gorakh")
    t(ROLL, "10,90")
    assert core.distance_between(t.state, "vasana", "gorakh") == 2 and not _closed(t)
    assert not t.state.combatants["vasana"].has("closed")


def test_knocked_back_out_of_the_closing_on_the_map():
    """Seed 002 "MANEUVER SKILL"/"KNOCKBACK": a knockback moves the target
    out of the shared hex (along the attacker's facing) and the closing
    ends: Vasana, closed in Gorakh's hex, slams him 1 m away."""
    t = _placed(vasana="3,0 facing=e", gorakh="5,0 facing=w")
    t(cmd.StartRound())
    t.act("gorakh", "intent double attack:vasana:Maul")
    t.act("vasana", "intent triple")
    t.act("vasana", "move e done")  # into the Maul's reach at 1 m
    t.act("gorakh", "move done")
    _next_round(t, "intent double attack:vasana:Maul", "intent double attack:gorakh:Broadsword:slam")
    t.act("vasana", "move close gorakh")
    t(ROLL, "10,90")
    assert _closed(t)
    t.act("gorakh", "move done")
    t.act("vasana", "move done")
    t.refused(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "cannot strike a closed foe", "20")
    t.act("gorakh", "pass")  # SR 8; Vasana's slam on SR 9
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "40")
    t(ROLL, "12")  # 13 + 12 = 25 against SIZ 18: 1 m
    t(ROLL, "10")  # DEX x5: stays standing
    assert _pos(t, "gorakh")[:2] == (6, 0) and not _closed(t)
    assert not t.state.combatants["vasana"].has("closed")
