"""Situational movement and terrain in mythras, without a map (seed 001
"Movement" > "Situational Movement Rates": "Climb", "Crawl", "Jump",
"Swim"; "Miniatures and Movement" > "Facing"; "Effects of Terrain on
Movement"), through ``execute`` with typed dice.

Kaelin (examples/mythras/kaelin.toml): Base Movement Rate 6 m (the sheet
default), STR 15, Athletics 49, Endurance 46, armour on all seven
locations at 2 or 3 AP: light under ruling ``heavy_armour_ap`` (4), so 7
'Things'. Feet convert at 5 feet = 1.5 m (1 foot = 0.3 m).
"""

from __future__ import annotations

import pytest

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.base import RuleError
from affray.rules.mythras import core, movement_modes, tables, terrain
from affray.rules.mythras.sheet import parse_sheet

from conftest import assert_user_error
from test_mythras_flow import EX, Table, attack, kaelin_first, react, sheet

FOOT = tables.FEET_TO_M
KAELIN_THINGS = 7  # seven locations of light armour, nothing else carried


def act(t, who, action, dice=""):
    return t(cmd.TakeAction(who=who, action=action), dice)


def refused(t, who, action, fragment, dice=""):
    """One RuleError line and nothing appended."""
    before = len(list(t.store.read(t.eid)))
    with pytest.raises(RuleError, match=fragment) as err:
        act(t, who, action, dice)
    assert "\n" not in str(err.value)
    assert len(list(t.store.read(t.eid))) == before
    return err


def moved(t):
    return [(m.distance, m.reason) for m in t.new(ev.CombatantMoved)]


def test_armour_counts_as_things_light_one_heavy_two():
    """Seed 001 "Climb", "Jump", "Swim": each location of light armour is 1
    'Thing', of heavy armour 2; heavy from ruling ``heavy_armour_ap``."""
    t = kaelin_first()
    assert core.armour_things(t.state, t.c("kaelin")) == KAELIN_THINGS
    heavy = kaelin_first(rulings={"heavy_armour_ap": "3"})  # head, chest, abdomen at 3 AP now count heavy
    assert core.armour_things(heavy.state, heavy.c("kaelin")) == 3 * 2 + 4 * 1
    laden = kaelin_first(kaelin=sheet("kaelin", things=5))
    assert core.things(laden.state, laden.c("kaelin")) == KAELIN_THINGS + 5


# --------------------------------------------------------------------------- #
# "Crawl"
# --------------------------------------------------------------------------- #


def prone_kaelin(**kw):
    """Kaelin sprints through difficult terrain and fails the footing roll
    (Formidable Athletics 25 against 60): prone; Grusk passes."""
    t = kaelin_first(**kw)
    act(t, "kaelin", "hustle:sprint difficult", "60")
    assert t.c("kaelin").stance == "prone"
    act(t, "grusk", "pass")
    return t


def test_crawl_five_feet_in_place_of_a_move():
    """Seed 001 "Crawl": a character that begins the Turn prone may crawl
    at most 5 feet (1.5 m) per Turn in place of a normal Move."""
    t = prone_kaelin()
    refused(t, "kaelin", "move", "prone")
    refused(t, "kaelin", "crawl:2", "at most 5 feet")
    act(t, "kaelin", "crawl")
    assert moved(t)[0][0] == 5 * FOOT == movement_modes.CRAWL
    assert t.c("kaelin").combat_actions == 0 and t.c("kaelin").stance == "prone"


def test_crawl_less_than_five_feet():
    """Seed 001 "Crawl": "a maximum rate" of 5 feet; less is allowed."""
    t = prone_kaelin()
    act(t, "kaelin", "crawl:1")
    assert moved(t)[0][0] == 1.0


def test_crawl_while_standing_is_refused():
    """Seed 001 "Crawl": only a character that is prone crawls."""
    t = kaelin_first()
    refused(t, "kaelin", "crawl", "not prone")


# --------------------------------------------------------------------------- #
# "Climb"
# --------------------------------------------------------------------------- #


def test_climb_base_rate_less_movement_used():
    """Seed 001 "Climb": at the Base Movement Rate, reduced by the movement
    already used; armour counted as Things and recorded (ruling
    ``climb_things``: the seed gives no figure for how they slow a climb)."""
    t = kaelin_first()
    act(t, "kaelin", "terrain:climbable")
    act(t, "kaelin", "climb:2")
    (walk, _), (up, why) = moved(t)
    assert walk == 2 and up == 6 - 2
    assert f"{KAELIN_THINGS} Things" in why and "recorded" in why
    assert t.c("kaelin").combat_actions == 1 and t.c("kaelin").moved == 6


def test_climb_refusals():
    """Seed 001 "Climb": next to a climbable surface, not after moving
    faster than a Walk, with movement remaining."""
    t = kaelin_first()
    refused(t, "kaelin", "climb", "no climbable surface")
    act(t, "kaelin", "terrain:climbable")
    refused(t, "kaelin", "climb:2 sprint", "faster than a Walk")
    refused(t, "kaelin", "climb:6", "no movement left")
    refused(t, "kaelin", "climb:up", "metres walked")


def test_climb_is_refused_while_a_hustle_still_runs():
    """Seed 001 "Climb": "cannot have moved faster than a Walk": a character
    still carrying its Hustle's speed (until its next Turn) may not climb;
    checked on the rule itself, as its own Turn ends that speed."""
    from affray.rules.base import Draft

    t = kaelin_first()
    act(t, "kaelin", "terrain:climbable")
    act(t, "kaelin", "hustle:run")
    assert t.c("kaelin").has("running")
    with pytest.raises(RuleError, match="faster than a Walk"):
        movement_modes.climb(Draft(t.state, None), "kaelin", "")


def test_climb_things_ruling_as_swim():
    """Ruling ``climb_things: as-swim`` (seed 001 "Climb" gives no figure):
    one foot off per Thing over STR, as Swim."""
    t = kaelin_first(kaelin=sheet("kaelin", things=20), rulings={"climb_things": "as-swim"})
    act(t, "kaelin", "terrain:climbable")
    act(t, "kaelin", "climb")
    over = KAELIN_THINGS + 20 - 15
    assert moved(t)[0][0] == pytest.approx(6 - over * FOOT)


# --------------------------------------------------------------------------- #
# "Swim"
# --------------------------------------------------------------------------- #


def test_swim_rate_less_things_over_str():
    """Seed 001 "Swim": the Base Movement Rate minus movement used; at most
    the Movement Rate -1 (foot, ruling ``swim_thing_unit``) per Thing over
    STR, worn armour included."""
    t = kaelin_first()
    act(t, "kaelin", "terrain:water")
    act(t, "kaelin", "swim:1")
    assert [d for d, _ in moved(t)] == [1, 6 - 1]  # 7 Things, STR 15: no penalty
    laden = kaelin_first(kaelin=sheet("kaelin", things=20))
    act(laden, "kaelin", "terrain:water")
    act(laden, "kaelin", "swim")
    over = KAELIN_THINGS + 20 - 15
    assert moved(laden)[0][0] == pytest.approx(6 - over * FOOT)


def test_swim_to_zero_begins_drowning():
    """Seed 001 "Swim": "If total ENC reduces swim distance to 0 or less, the
    character automatically begins drowning" (Asphyxiation: not modelled);
    ruling ``swim_thing_unit: metre`` takes a metre per Thing."""
    t = kaelin_first(kaelin=sheet("kaelin", things=14), rulings={"swim_thing_unit": "metre"})
    act(t, "kaelin", "terrain:water")
    act(t, "kaelin", "swim")  # 21 Things, STR 15: 6 - 6 = 0
    assert not moved(t) and t.c("kaelin").has("drowning")


def test_swim_with_no_water_declared_is_refused():
    """Seed 001 "Swim": "next to a body of water"; the GM declares it."""
    t = kaelin_first()
    refused(t, "kaelin", "swim", "no water is declared")
    act(t, "kaelin", "terrain:water,climbable")
    act(t, "kaelin", "terrain:clear")
    refused(t, "kaelin", "swim", "no water is declared")
    refused(t, "kaelin", "terrain:lava", "not 'lava'")
    refused(t, "kaelin", "terrain:difficult", "options of move/hustle")


# --------------------------------------------------------------------------- #
# "Jump"
# --------------------------------------------------------------------------- #

HEIGHT = 1.8  # ruling default_height
REACH = 2 * HEIGHT - KAELIN_THINGS / 2 * FOOT  # with a run-up, across


def test_jump_reach_figures():
    """Seed 001 "Jump": twice one's height across, half up, with a 15-foot
    run-up; halved from standing; less half the Things in feet."""
    assert movement_modes.jump_reach(2.0, 0, standing=False, vertical=False) == 4.0
    assert movement_modes.jump_reach(2.0, 0, standing=True, vertical=False) == 2.0
    assert movement_modes.jump_reach(2.0, 0, standing=False, vertical=True) == 1.0
    assert movement_modes.jump_reach(2.0, 0, standing=True, vertical=True) == 0.5
    assert movement_modes.jump_reach(2.0, 4, standing=False, vertical=False) == pytest.approx(4.0 - 2 * FOOT)
    assert movement_modes.jump_reach(1.0, 100, standing=True, vertical=True) == 0
    assert movement_modes.RUN_UP == 15 * FOOT


def test_jump_success_clears_the_gap():
    """Seed 001 "Jump": a successful Athletics roll clears up to the reach."""
    t = kaelin_first()
    act(t, "kaelin", "jump:2.5", "30")  # Athletics 49: a success
    assert t.new(ev.SkillTested)[0].skill == "Athletics"
    assert moved(t)[0][0] == 2.5 and 2.5 <= REACH
    assert t.c("kaelin").stance == "standing" and t.c("kaelin").combat_actions == 1


def test_jump_height_from_the_sheet():
    """Seed 001 "Jump": the sheet's ``height`` is used when present."""
    t = kaelin_first(kaelin=sheet("kaelin", height=2.5))
    act(t, "kaelin", "jump:3.9", "30")  # reach 5.0 - 1.05
    assert moved(t)[0][0] == 3.9


def test_jump_standing_is_halved_and_only_a_critical_reaches_further():
    """Seed 001 "Jump": from standing (or a run-up under 15 feet) the
    distances are halved; a Critical adds 5 feet."""
    standing = HEIGHT - KAELIN_THINGS / 2 * FOOT
    t = kaelin_first()
    refused(t, "kaelin", "jump:2.5 standing", "out of reach", "30")
    act(t, "kaelin", f"jump:{standing + 1:.2f} standing", "30")  # a success: short
    assert not moved(t) and "falls short" in t.new(ev.NoteAdded)[0].text
    t2 = kaelin_first()
    act(t2, "kaelin", f"jump:{standing + 1:.2f} run-up=2", "03")  # a critical (49: 01-05)
    assert moved(t2)[0][0] == pytest.approx(standing + 1)


def test_jump_failure_and_vertical():
    """Seed 001 "Jump": a failed roll does not clear; up to half the height
    vertically."""
    t = kaelin_first(kaelin=sheet("kaelin", armour={}))
    act(t, "kaelin", "jump:0.9 up", "80")
    assert not moved(t) and "fails to clear" in t.new(ev.NoteAdded)[0].text
    act(t, "grusk", "pass")
    act(t, "kaelin", "jump:0.9 up", "20")
    assert "jumps 0.9 m up" in t.new(ev.NoteAdded)[0].text


def test_jump_fumble_lands_awkwardly():
    """Seed 001 "Jump": a Fumble lands awkwardly: an Endurance roll, a
    Success costs 1 point to one leg, a Failure 1d4 (leg by 1D2; armour
    ignored, ruling ``awkward_landing_armour``)."""
    t = kaelin_first()
    act(t, "kaelin", "jump:2", "99,20,1")  # fumble; Endurance 20 vs 46; right leg
    dealt = t.new(ev.DamageDealt)[0]
    assert (dealt.location, dealt.final, dealt.armour) == ("right leg", 1, 0)
    t2 = kaelin_first()
    act(t2, "kaelin", "jump:2", "99,80,3,2")  # Endurance fails: 1d4 = 3 to the left leg
    dealt = t2.new(ev.DamageDealt)[0]
    assert (dealt.location, dealt.final) == ("left leg", 3)


def test_jump_landing_ruling_prone():
    """Ruling ``jump_landing: prone``: only a critical "remains upright on
    landing" (seed 001 "Jump")."""
    t = kaelin_first(rulings={"jump_landing": "prone"})
    act(t, "kaelin", "jump:2", "30")
    assert t.c("kaelin").stance == "prone"


def test_jump_bad_input():
    t = kaelin_first()
    refused(t, "kaelin", "jump", "needs the metres")
    refused(t, "kaelin", "jump:far", "needs the metres")
    refused(t, "kaelin", "jump:2 run-up", "run-up in metres")


# --------------------------------------------------------------------------- #
# "Effects of Terrain on Movement"
# --------------------------------------------------------------------------- #


def test_difficult_terrain_costs_double():
    """Seed 001 "Effects of Terrain on Movement": difficult terrain costs
    twice the normal movement; ``move:2 difficult`` crosses 2 m of it (4 m
    of movement) and 2 m of clear ground."""
    t = kaelin_first()
    act(t, "kaelin", "move:difficult")
    assert moved(t)[0][0] == 6 / 2 and t.c("kaelin").combat_actions == 1
    act(t, "grusk", "pass")
    act(t, "kaelin", "move:2 difficult")
    assert moved(t)[0][0] == 2 + (6 - 2 * 2)
    assert terrain.difficult_distance(6, 4) == 3  # stops inside it


def test_difficult_terrain_minimum_five_feet():
    """Seed 001: "A slow creature hindered by Difficult Terrain can always
    move a minimum of 5 feet"."""
    t = kaelin_first(kaelin=sheet("kaelin", movement=2))
    act(t, "kaelin", "move:difficult")
    assert moved(t)[0][0] == 5 * FOOT


def test_difficult_terrain_at_speed_needs_a_footing_roll():
    """Seed 001: passing through Difficult Terrain faster than the Base
    Movement Rate requires a Formidable Athletics or a Standard Acrobatics
    roll to avoid falling; the better chance is taken."""
    t = kaelin_first()
    act(t, "kaelin", "hustle:run difficult", "20")
    tested = t.new(ev.SkillTested)[0]
    assert (tested.skill, tested.target) == ("Athletics", 25)  # 49 x 1/2, rounded up
    assert moved(t)[0][0] == 6 * 3 / 2 and t.c("kaelin").stance == "standing"
    assert t.c("kaelin").has("running")
    acro = kaelin_first(kaelin=sheet("kaelin", skills={**sheet("kaelin")["skills"], "Acrobatics": 40}))
    act(acro, "kaelin", "hustle:sprint difficult", "20")
    tested = acro.new(ev.SkillTested)[0]
    assert (tested.skill, tested.target) == ("Acrobatics", 40)
    assert acro.c("kaelin").has("sprinting") and moved(acro)[0][0] == 6 * 5 / 2


def test_a_plain_move_needs_no_footing_roll():
    """Seed 001: only "faster than the Base Movement Rate" asks for a roll."""
    t = kaelin_first()
    act(t, "kaelin", "move:difficult")
    assert not t.new(ev.SkillTested)


def test_obstacle_blocks_movement():
    """Seed 001 "Effects of Terrain on Movement": "An Obstacle completely
    blocks movement"."""
    t = kaelin_first()
    refused(t, "kaelin", "move:obstacle", "completely blocks")
    refused(t, "kaelin", "hustle:sprint obstacle", "completely blocks")
    refused(t, "kaelin", "move:grusk difficult", "no target")
    refused(t, "kaelin", "move:walk difficult", "no target")


# --------------------------------------------------------------------------- #
# "Facing"
# --------------------------------------------------------------------------- #


def test_facing_an_attack_from_a_back_square_makes_the_evade_formidable():
    """Seed 001 "Facing": "Evading is always at Standard Difficulty against
    any attack except those from a back square, which is Formidable": the
    GM declares the facing with the ``from-behind`` situation."""
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "50")
    t(cmd.ChooseReaction(defender="grusk", reaction="evade", situations=("from-behind",)), "10")
    evade = t.new(ev.SkillTested)[0]
    assert (evade.skill, evade.target) == ("Evade", 16)  # 32 x 1/2


# --------------------------------------------------------------------------- #
# The command line
# --------------------------------------------------------------------------- #


def test_cli_jump_and_a_refused_crawl(cli):
    """Seed 001 "Jump" and "Crawl" through ``affray act``: the jump rolls
    at once; crawling while standing is ONE error line, exit 2, nothing
    appended."""
    cli.ok("new", "Gorge", "--system", "mythras", "--seed", "00ff" * 8)
    cli.ok("join", EX / "kaelin.toml", "--side", "heroes")
    cli.ok("join", EX / "grusk.toml", "--side", "orcs")
    cli.ok("start", "--dice", "7,5")
    out = cli.ok("act", "kaelin", "jump:2.5", "--dice", "30")
    assert "Athletics" in out.stdout
    assert cli.combatant("kaelin")["moved_m"] == 2.5
    before = cli.events()
    assert_user_error(cli("act", "grusk", "crawl"), "not prone")
    assert cli.events() == before


def test_cli_act_takes_a_quoted_action_with_spaces(cli):
    """``affray act kaelin "jump:0.5 standing"`` as one quoted argument works as
    the words typed apart do (the CLI's quoting is undone before the action
    is read); seed 001 "Jump" (from standing: half the reach)."""
    cli.ok("new", "Gorge", "--system", "mythras", "--seed", "00ff" * 8)
    cli.ok("join", EX / "kaelin.toml", "--side", "heroes")
    cli.ok("join", EX / "grusk.toml", "--side", "orcs")
    cli.ok("start", "--dice", "7,5")
    out = cli.ok("act", "kaelin", "jump:0.5 standing", "--dice", "30")
    assert "Athletics" in out.stdout
    assert cli.combatant("kaelin")["moved_m"] == 0.5  # reach from standing: 0.75 m
