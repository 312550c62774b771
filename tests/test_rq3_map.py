"""rq3 movement on the optional 1 m hex map (seed 002 "2) MOVE PHASE":
"MOVEMENT INITIATIVE", "MOVE", "RULES OF ENGAGEMENT"; "4) POST MELEE MOVE
PHASE"; "MOVEMENT ABORT"; rulings ``map_thirds``, ``hex_rear_step``,
``third_move``, ``post_move_engagement``), through the real command path.
Vasana DEX 16, move 3; Gorakh DEX 11, move 3, Maul 2 m (engages at 2 m)."""

from __future__ import annotations

import pytest

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.rq3 import core

from test_rq3_rules import ROLL, RuledTable, Table, _archer, sheet


def _pos(t: Table, who: str) -> tuple[int, int, int]:
    return core.position(t.state.combatants[who])


def _placed(vasana="0,0 facing=e", gorakh="8,0 facing=w", joins=None) -> Table:
    t = Table(*joins) if joins else Table()
    t.act("vasana", f"place {vasana}")
    t.act("gorakh", f"place {gorakh}")
    return t


def _round(t: Table, gorakh: str, vasana: str) -> None:
    t(cmd.StartRound())
    t.act("gorakh", gorakh)
    t.act("vasana", vasana)


@pytest.mark.parametrize("length, ring, count", [(1.0, 1, 5), (2.0, 1, 5), (2.0, 2, 5), (3.0, 3, 7), (1.0, 2, 0),
                                                 (2.0, 3, 0)])
def test_engagement_zone_hexes(length, ring, count):
    """Seed 002 "RULES OF ENGAGEMENT": "one of the three front or two side
    hexes" adjacent; "one of the five secondary front hexes" for a 2 m
    weapon; "one of the seven tertiary front hexes" for a 3 m one."""
    hexes = [(q, r) for q in range(-4, 5) for r in range(-4, 5) if core.hex_distance((0, 0), (q, r)) == ring]
    assert sum(core.in_engagement_zone((0, 0), 0, length, h) for h in hexes) == count


def test_place_and_bad_places():
    """DESIGN.md "Positions": the GM places figures on hexes; one figure a
    hex (seed 002 "MOVE": no figure passes through another); bad input is
    one line and appends nothing."""
    t = _placed()
    assert _pos(t, "vasana") == (0, 0, 0) and _pos(t, "gorakh") == (8, 0, 3)
    t.refused(cmd.TakeAction(who="gorakh", action="place 0,0"), "Vasana stands in hex 0,0")
    t.refused(cmd.TakeAction(who="gorakh", action="place 1;2"), "a hex is Q,R")
    t.refused(cmd.TakeAction(who="gorakh", action="place 1,2 facing=up"), "unknown hex direction")


def test_alternating_thirds_in_movement_initiative_order():
    """Seed 002 "MOVEMENT INITIATIVE": "alternate moving ... 1/3 of their
    current movement rate in order of movement initiative" (DEX); a triple
    move of a move-3 human is 9 m, 3 m a third (ruling map_thirds)."""
    t = _placed()
    _round(t, "intent triple", "intent triple")
    assert t.state.pending[0].who == "vasana" and "third 1 of 3" in t.state.pending[0].prompt
    t.refused(cmd.TakeAction(who="vasana", action="move e e e e"), "may move 3 m in this third")
    t.act("vasana", "move e e e")
    assert t.state.pending[0].who == "gorakh"
    t.act("gorakh", "move w")
    assert t.state.pending[0].who == "vasana" and "third 2 of 3" in t.state.pending[0].prompt
    t.refused(cmd.TakeAction(who="vasana", action="move se e e e"), "may move 3 m in this third")
    t.act("vasana", "move se")  # 1 m this third: 4 of 6 by the end of the second
    t.act("gorakh", "move done")
    assert t.state.pending[0].who == "vasana" and "third 3 of 3" in t.state.pending[0].prompt
    t.act("vasana", "move e")
    assert t.state.pending[0].kind == "end-round"
    assert t.state.combatants["vasana"].moved == 5.0 and _pos(t, "vasana") == (4, 1, 0)


@pytest.mark.parametrize("gorakh, intent, thirds", [("19,0", "intent triple", True), ("20,0", "intent triple", False),
                                                     ("17,0", "intent double attack:vasana:Maul", True),
                                                     ("18,0", "intent double attack:vasana:Maul", False),
                                                     ("17,0", "intent double misc:look", False)])
def test_thirds_begin_once_foes_could_conceivably_reach_each_other(gorakh, intent, thirds):
    """Seed 002 "MOVEMENT INITIATIVE": "Once hostile characters come within a
    range where they could conceivably reach each other, the gamemaster and
    each player alternate moving ... 1/3 of their current movement rate"
    (ruling map_thirds = in-reach: the distance less the longer declared
    weapon's engagement range, 1 m or the Maul's 2 m, within the metres both
    have left: 9 + 9 for two triple moves, 9 + 6 with Gorakh's double)."""
    t = _placed(gorakh=f"{gorakh} facing=w")
    _round(t, intent, "intent triple")
    assert core.in_thirds(t.state) is thirds
    assert ("third 1 of 3" in t.state.pending[0].prompt) is thirds
    assert ("the whole move" in t.state.pending[0].prompt) is not thirds


def test_out_of_reach_each_makes_the_whole_move_in_turn():
    """Seed 002 "MOVE": "Any unengaged characters move no further than they
    have declared to move, in order of movement initiative"; out of
    conceivable reach there are no thirds (ruling map_thirds = in-reach):
    Vasana (DEX 16) walks her whole 9 m, then Gorakh his."""
    t = _placed(gorakh="40,0 facing=w")
    _round(t, "intent triple", "intent triple")
    t.refused(cmd.TakeAction(who="vasana", action="move " + "e " * 10), "may move 9 m this Move Phase")
    t.act("vasana", "move " + "e " * 9)
    assert _pos(t, "vasana")[:2] == (9, 0) and t.state.combatants["vasana"].has("moved")
    assert t.state.pending[0].who == "gorakh" and "the whole move" in t.state.pending[0].prompt
    t.act("gorakh", "move w w")
    assert t.state.pending[0].kind == "end-round"
    assert _pos(t, "gorakh")[:2] == (38, 0)


def test_thirds_go_on_to_the_end_of_the_phase():
    """Seed 002 "MOVEMENT INITIATIVE": once begun, the thirds go on "until all
    movement is completed", even when the foes then stand apart again."""
    t = _placed(gorakh="19,0 facing=w")
    _round(t, "intent triple", "intent triple")
    t.act("vasana", "move face:w w w")  # turns away (1 m) and walks 2 m: 21 m apart, 6 + 9 m left
    assert not core.conceivably_reach(t.state) and core.in_thirds(t.state)
    assert t.state.pending[0].who == "gorakh" and "third 1 of 3" in t.state.pending[0].prompt
    assert core.map_move(t.state.combatants["vasana"]).effects["thirds"] == 1


def test_always_thirds_by_ruling():
    """Ruling map_thirds = always: every Move Phase on the map in thirds,
    however far apart the foes stand (seed 002 "MOVEMENT INITIATIVE")."""
    t = RuledTable({"map_thirds": "always"}, ("vasana", sheet("vasana"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t.act("vasana", "place 0,0 facing=e")
    t.act("gorakh", "place 40,0 facing=w")
    _round(t, "intent triple", "intent triple")
    assert "third 1 of 3" in t.state.pending[0].prompt
    t.refused(cmd.TakeAction(who="vasana", action="move e e e e"), "may move 3 m in this third")


def test_facing_and_backwards_cost():
    """Seed 002 "MOVE": "a character can shift one hex facing and then move
    one meter"; "one meter of movement to stand still but change facing to
    any orientation"; "Backwards movement is at half the speed ... 1 meter
    backwards take two meters" (ruling hex_rear_step: the rear side hexes
    too)."""
    t = _placed()
    _round(t, "intent triple", "intent triple")
    t.act("vasana", "move ne w")  # 1 m, facing ne; then w is a rear side of ne: 2 m
    assert _pos(t, "vasana") == (0, -1, 1)
    assert t.state.combatants["vasana"].moved == 3.0
    t.act("gorakh", "move done")
    t.act("vasana", "move face:sw sw")  # 1 m to turn, 1 m forward
    assert _pos(t, "vasana") == (-1, 0, 4)


def test_no_passing_through_a_figure():
    """Seed 002 "MOVE": "A character cannot pass directly through another
    figure (or hex occupied by a figure) in the Move Phase"."""
    t = _placed(gorakh="2,0 facing=e")
    _round(t, "intent triple", "intent triple")
    t.act("vasana", "move e")
    t.act("gorakh", "move done")
    t.refused(cmd.TakeAction(who="vasana", action="move e"), "cannot pass through another")


def test_engagement_stops_the_move():
    """Seed 002 "RULES OF ENGAGEMENT": moving into the secondary front hexes
    of a foe with a 2 m weapon engages, and the mover "must end his or her
    movement immediately", "with a hex in between"; once engaged, no further
    move without a contest of Maneuver ("MANEUVER SKILL")."""
    t = _placed(vasana="1,0 facing=e", gorakh="5,0 facing=w")
    _round(t, "intent double attack:vasana:Maul", "intent double attack:gorakh:Broadsword")
    t.act("vasana", "move e e")
    assert _pos(t, "vasana")[:2] == (3, 0)
    v = t.state.combatants["vasana"]
    assert "gorakh" in v.engaged and core.reach(v, "gorakh") == 2
    t.act("gorakh", "move done")
    t.refused(cmd.TakeAction(who="vasana", action="move e"), "cannot move on without winning a contest")
    t.act("vasana", "move close gorakh")
    t(ROLL, "10,90")
    assert core.reach(t.state.combatants["vasana"], "gorakh") == 1


def test_path_cut_short_by_engagement():
    """Seed 002: the mover stops "at the point he or she became engaged";
    the rest of the path is not walked."""
    t = _placed(vasana="2,0 facing=e", gorakh="5,0 facing=w")
    _round(t, "intent double attack:vasana:Maul", "intent double attack:gorakh:Broadsword")
    t.act("vasana", "move e e")
    assert _pos(t, "vasana")[:2] == (3, 0)
    assert "is not walked" in t.events(ev.CombatantMoved)[-1].reason
    assert t.events(ev.CombatantMoved)[-1].distance == 1.0


def test_a_third_when_engaged_at_the_start():
    """Seed 002 "MOVE": "A character who begins the Move Phase engaged can
    only move 1/3 of his or her normal movement ... and must remain adjacent
    ... to all figures he or she is engaged by" (ruling third_move: a single
    move of 3 m gives 1 m)."""
    t = _placed(vasana="3,0 facing=e", gorakh="5,0 facing=w")
    _round(t, "intent triple", "intent double attack:gorakh:Broadsword")
    t.act("vasana", "move e")  # into Gorakh's reach? Gorakh declared no attack: Vasana's own reach engages
    assert "gorakh" in t.state.combatants["vasana"].engaged
    t.act("gorakh", "move done")
    t.act("vasana", "move done facing=ne")
    t.act("vasana", "pass")
    t(cmd.EndRound())
    t.act("gorakh", "intent single attack:vasana:Maul parry:vasana:Maul")
    t.act("vasana", "intent single attack:gorakh:Broadsword parry:gorakh:Broadsword")
    mm = core.map_move(t.state.combatants["vasana"])
    assert mm.effects["allow"] == 1 and "began the Move Phase engaged" in mm.note
    t.refused(cmd.TakeAction(who="vasana", action="move nw"), "must stay within 1 m")
    t.act("vasana", "move ne")  # still adjacent to Gorakh at 5,0
    assert _pos(t, "vasana")[:2] == (5, -1)


def test_reloading_and_mobility_allowances():
    """Seed 002 "6. Draw weapon" / "MOVE": reloading a missile weapon
    limits movement to 1/3; "A human with Mobility 4 taking a one action,
    two move melee round will move 10 meters in each Move Phase, not 14"."""
    t = _placed(joins=(("vasana", _archer(), "heroes"), ("gorakh", sheet("gorakh"), "trolls")))
    _round(t, "intent double parry:vasana:Maul mobility=4", "intent double draw:Bow")
    assert core.map_move(t.state.combatants["gorakh"]).effects["allow"] == 10
    v = core.map_move(t.state.combatants["vasana"])
    assert v.effects["allow"] == 2 and "reloading" in v.note


def test_free_facing_shift_at_the_end():
    """Seed 002 "MOVE": "At the end of each Move and Post Melee Move Phase,
    every character receives a free one hex facing shift"."""
    t = _placed()
    _round(t, "intent triple", "intent triple")
    t.refused(cmd.TakeAction(who="vasana", action="move done facing=w"), "turns one hex side")
    t.refused(cmd.TakeAction(who="vasana", action="move e facing=ne"), "comes at the end of the Move Phase")
    t.act("vasana", "move done facing=ne")
    assert _pos(t, "vasana") == (0, 0, 1)


def test_movement_abort_adds_a_category_to_the_post_melee_move():
    """Seed 002 "MOVEMENT ABORT": "abort a single unused melee action to
    increase his or her movement rate by one category ... in the upcoming
    Post Melee Move Phase": a single move (3 m) becomes a double (6 m)."""
    for abort, allowed in (("", 3), ("movement", 6)):
        t = _placed(gorakh="-8,0 facing=e")
        _round(t, "intent triple", "intent single misc:look misc:listen")
        if abort:
            t.act("vasana", "abort 1 movement")
        t.act("vasana", "move done")
        t.act("gorakh", "move done")
        assert t.state.pending[0].kind == "end-round"  # the miscellaneous actions resolve at their SR
        t.refused(cmd.TakeAction(who="vasana", action="move " + "e " * (allowed + 1)), f"({allowed} m)")
        t.act("vasana", "move " + "e " * allowed)
        assert _pos(t, "vasana")[:2] == (allowed, 0)


def test_post_melee_move_passes_a_prone_figure_and_leaves_engagement():
    """Seed 002 "4) POST MELEE MOVE PHASE": engagement rules do not apply;
    "A character still cannot pass directly through a space occupied by
    another character unless that character is prone"; moving beyond the
    fighting distance ends the engagement (ruling post_move_engagement)."""
    t = _placed(vasana="3,0 facing=e", gorakh="5,0 facing=w")
    _round(t, "intent triple", "intent double attack:gorakh:Broadsword")
    t.act("vasana", "move e")
    t.act("gorakh", "move done")
    t.act("vasana", "move done")
    assert "gorakh" in t.state.combatants["vasana"].engaged
    t.act("vasana", "pass")
    assert t.state.pending[0].kind == "end-round"
    t.refused(cmd.TakeAction(who="vasana", action="move e"), "cannot pass through another")
    t(cmd.TakeAction(who="gorakh", action="place 5,0"))
    t.act("vasana", "move w w")
    assert "gorakh" not in t.state.combatants["vasana"].engaged


def test_missile_range_from_the_map():
    """Seed 002 "PARRYING AND DODGING MISSILE WEAPONS": on the map the range
    is the distance in hexes: 5 m from a bow of range 90 is point blank
    (dodged at one fifth)."""
    t = _placed(vasana="0,0 facing=e", gorakh="5,0 facing=w",
                joins=(("vasana", _archer(), "heroes"), ("gorakh", sheet("gorakh"), "trolls")))
    _round(t, "intent double dodge:vasana", "intent double missile:gorakh:Bow")
    t.act("vasana", "move done")
    t.act("gorakh", "move done")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "30")
    t(cmd.ChooseReaction(defender="gorakh", reaction="dodge"), "50")
    assert t.events(ev.SkillTested)[-1].base == 25 // 5


def test_terrain_tests_then_the_hex_path():
    """Seed 002 "COMBAT MOVEMENT IN UNRELIABLE TERRAIN" on the map: the
    tests come first, then the figure walks its path."""
    t = _placed()
    _round(t, "intent triple", "intent triple")
    t.act("vasana", "move e e terrain=difficult moves=1")
    assert t.state.pending[0].kind == "terrain"
    t(ROLL, "50")  # DEX 16 x5 = 80: a success
    assert _pos(t, "vasana")[:2] == (2, 0)
    assert t.state.pending[0].who == "gorakh"


def test_winning_a_contest_frees_the_move():
    """Seed 002 "MOVE": one who begins the Move Phase engaged moves a third
    "unless he or she succeeds in a contest of Maneuver skill. In that case,
    the character can move normally": after the won contest the full
    allowance (a single move: 3 m) is back."""
    t = _placed(vasana="3,0 facing=e", gorakh="5,0 facing=w")
    _round(t, "intent triple", "intent double attack:gorakh:Broadsword")
    t.act("vasana", "move e")
    t.act("gorakh", "move done")
    t.act("vasana", "move done")
    t.act("vasana", "pass")
    t(cmd.EndRound())
    t.act("gorakh", "intent single attack:vasana:Maul parry:vasana:Maul")
    t.act("vasana", "intent single attack:gorakh:Broadsword parry:gorakh:Broadsword")
    assert core.map_move(t.state.combatants["vasana"]).effects["allow"] == 1
    t.act("vasana", "move disengage gorakh")
    t(ROLL, "10,90")
    v = t.state.combatants["vasana"]
    assert "gorakh" not in v.engaged and core.map_move(v).effects["allow"] == 3
    t.act("gorakh", "move done")
    t.act("vasana", "move w")  # backwards, 2 m: back into the Maul's 2 m reach, engaged again there
    v = t.state.combatants["vasana"]
    assert _pos(t, "vasana")[:2] == (3, 0) and core.reach(v, "gorakh") == 2


def test_close_and_open_move_the_figure_on_the_map():
    """Seed 002 "MANEUVER SKILL": a won contest "allows the winner to close
    with his or her opponent" (on the map: into the hex beside it), and "A
    character that is already closed can move back to a normal range"."""
    t = _placed(vasana="1,0 facing=e", gorakh="5,0 facing=w")
    _round(t, "intent double attack:vasana:Maul", "intent double attack:gorakh:Broadsword")
    t.act("vasana", "move e e")  # engaged at 2 m, at 3,0
    t.act("gorakh", "move done")
    t.act("vasana", "move close gorakh")
    t(ROLL, "10,90")
    assert _pos(t, "vasana")[:2] == (4, 0) and core.reach(t.state.combatants["vasana"], "gorakh") == 1
    t.act("vasana", "move done")
    while t.state.pending[0].kind == "strike":
        t.act(t.state.pending[0].who, "pass")
    t(cmd.EndRound())
    t.act("gorakh", "intent double attack:vasana:Maul")
    t.act("vasana", "intent double attack:gorakh:Broadsword")
    t.act("vasana", "move open gorakh")
    t(ROLL, "10,90")
    assert core.distance_between(t.state, "vasana", "gorakh") == 2


def _post_melee(vasana: str, gorakh: str, intents: tuple[str, str], moves: tuple[str, ...] = ()) -> Table:
    """Both placed, the round declared (Gorakh, Vasana), Vasana's ``moves``
    then ``move done`` for all, the Melee Phase passed."""
    t = _placed(vasana=vasana, gorakh=gorakh)
    _round(t, *intents)
    for m in moves:
        t.act("vasana", m)
    while t.state.pending[0].kind == "move":
        t.act(t.state.pending[0].who, "move done")
    while t.state.pending[0].kind == "strike":
        t.act(t.state.pending[0].who, "pass")
    assert t.state.pending[0].kind == "end-round"
    return t


def test_withdraw_on_the_map_walks_away():
    """Seed 002 "4) POST MELEE MOVE PHASE": "All characters can move again as
    in the Move Phase, except that engagement rules do not apply": on the map
    ``withdraw FOE`` walks straight away from the foe (turning away, 1 m, then
    forward, when that goes further than backing off at 2 m a hex) and the
    engagement ends beyond the fighting distance (ruling
    post_move_engagement)."""
    t = _post_melee("2,0 facing=e", "5,0 facing=w", ("intent double attack:vasana:Maul", "intent triple"), ("move e",))
    assert core.reach(t.state.combatants["vasana"], "gorakh") == 2
    t.act("vasana", "withdraw gorakh")  # 9 m: turn w (1 m), then 8 hexes west
    assert _pos(t, "vasana") == (-5, 0, 3)
    assert "gorakh" not in t.state.combatants["vasana"].engaged


def test_withdraw_backs_off_when_turning_gains_nothing():
    """Seed 002 "MOVE": "To move 1 meter backwards take two meters"; with 2 m
    left, one hex backwards (facing kept) goes as far as turning and one
    step, and keeps the foe in front."""
    t = _post_melee("2,0 facing=e", "5,0 facing=w",
                    ("intent double attack:vasana:Maul", "intent single attack:gorakh:Broadsword misc:look"), ("move e",))
    t.act("vasana", "move face:ne")  # 1 m of her 3
    t.act("vasana", "withdraw gorakh")
    assert _pos(t, "vasana") == (2, 0, 1)
    assert "gorakh" not in t.state.combatants["vasana"].engaged
    t.refused(cmd.TakeAction(who="vasana", action="withdraw gorakh"), "not engaged")


def test_approach_on_the_map_walks_to_the_foe():
    """Seed 002 "4) POST MELEE MOVE PHASE": ``approach FOE`` walks toward the
    free hex beside the foe (turning first when needed), as far as the Post
    Melee Move allows; a figure ending in a foe's engagement zone is engaged
    for the next round (ruling post_move_engagement)."""
    t = _post_melee("0,0 facing=w", "5,0 facing=w",
                    ("intent double attack:vasana:Maul", "intent double attack:gorakh:Broadsword"))
    t.act("vasana", "approach gorakh")  # 6 m: turn e and step (2 m), then 3 more: 4,0
    assert _pos(t, "vasana") == (4, 0, 0)
    assert "gorakh" in t.state.combatants["vasana"].engaged
    t.refused(cmd.TakeAction(who="vasana", action="approach gorakh"), "already stands beside")


def test_approach_stops_where_the_movement_ends():
    """Seed 002 "4) POST MELEE MOVE PHASE": the declared movement again, no
    more: a single move (3 m) toward a foe 8 m off ends 3 hexes nearer."""
    t = _post_melee("0,0 facing=e", "8,0 facing=w",
                    ("intent triple", "intent single attack:gorakh:Broadsword misc:look"))
    t.act("vasana", "approach gorakh")
    assert _pos(t, "vasana")[:2] == (3, 0)
    assert "gorakh" not in t.state.combatants["vasana"].engaged
    t.refused(cmd.TakeAction(who="vasana", action="approach gorakh"), "no movement left")


def test_a_won_contest_gains_movement_initiative():
    """Seed 002 "MOVE": winning a contest of Maneuver, "the character can
    move normally, and gains movement initiative over the defeated target if
    he or she did not already have it": Gorakh (DEX 11) disengages from
    Vasana (DEX 16) in the first third and moves before her in the next."""
    t = _placed(vasana="3,0 facing=e", gorakh="5,0 facing=w")
    _round(t, "intent double attack:vasana:Maul", "intent triple")
    t.act("vasana", "move e done")  # engaged at 1 m
    t.act("gorakh", "move done")
    t.act("gorakh", "pass")
    t(cmd.EndRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent triple")
    assert t.state.pending[0].who == "vasana"
    t.act("vasana", "move face:e")
    t.act("gorakh", "move disengage vasana")
    t(ROLL, "10,90")  # Gorakh's success against her failure
    assert core.movement_order(t.state)[:2] == ["gorakh", "vasana"]
    step = t.state.pending[0]
    assert step.who == "gorakh" and "third 2 of 3" in step.prompt


def test_standing_up_on_the_map_costs_two_moves():
    """Seed 002 "FALLEN CHARACTERS": prone to kneeling and kneeling to
    standing take a move action each: on the map a triple move (9 m) that
    stands has 3 m left, walked in the same whole move (no foe within
    reach: ruling map_thirds)."""
    joins = (("vasana", sheet("vasana", skills={"Dodge": 40, "Maneuver": 55}), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t = _placed(vasana="3,0 facing=e", gorakh="5,0 facing=w", joins=joins)
    _round(t, "intent double attack:vasana:Maul", "intent triple")
    t.act("vasana", "move e done")
    t.act("gorakh", "move done")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(ROLL, "12,3,3,1")
    t(ROLL, "90")  # knocked back and down
    assert t.state.combatants["vasana"].stance == "prone"
    t.act("gorakh", "withdraw vasana")
    assert not t.state.combatants["vasana"].engaged
    t(cmd.EndRound())
    t.act("gorakh", "place 40,0 facing=w")
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent triple")
    t.act("vasana", "move stand")
    assert core.map_move(t.state.combatants["vasana"]).effects["used"] == 6
    assert t.state.pending[0].who == "vasana" and "3 m" in t.state.pending[0].prompt
    here = _pos(t, "vasana")
    t.refused(cmd.TakeAction(who="vasana", action="move w w w w"), "may move 3 m this Move Phase")
    t.act("vasana", "move face:w w w")
    assert _pos(t, "vasana")[:2] == (here[0] - 2, here[1])
