"""rolemaster rules, one test per rule, each naming its seed section
(seed 000_0c5afa08bd3fc886.txt) or rules-reference.md item.

Figures of the sample sheets (src/affray/examples/rolemaster):
  Kestrel: Broadsword OB 70 (sample-broadsword, fumble 1-3), DB 0 + 3 x Qu
  10 = 30 + Target Shield 20 = 50; SD bonus +5; armour soft; 62 hits.
  Gruk: Club OB 60 (sample-club, fumble 1-4), Broadsword OB 40; DB 5 + 3 x
  Qu 5 = 15 -> 20; SD bonus -5; Ag 5, Qu 5 (dodge +5); Perception 15;
  armour rigid; 55 hits.
Initiative "10,5,3,4": Kestrel 15 + 10 = 25, Gruk 7 + 5 = 12.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from affray import dice as dicelib
from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import rolemaster as rev
from affray.projections.state import Combatant, Location, State
from affray.rules.base import Draft, RuleError
from affray.rules.rolemaster import core, turns

from rolemaster_fight import Fight, sheet

A, R, ROLL = cmd.DeclareAttack, cmd.ChooseReaction, cmd.RollPending()
START = "10,5,3,4"


def act(who, action):
    return cmd.TakeAction(who=who, action=action)


def lookup(f: Fight) -> rev.AttackLookedUp:
    return f.events(rev.AttackLookedUp)[-1]


# --------------------------------------------------------------------------- #
# Open-ended rolls (Attack Procedure step 1; rules-reference.md A1, A2)
# --------------------------------------------------------------------------- #


def _draft(values, **rulings) -> Draft:
    state = State(encounter_id="e", rulings={k: str(v) for k, v in rulings.items()})
    return Draft(state, dicelib.Roller(None, "e", 0, [str(v) for v in values], manual=True))


@pytest.mark.parametrize("dice,low,expected", [
    ((50,), False, 50), ((97, 40), False, 137), ((96, 100, 3), False, 199), ((100, 99, 98, 1), False, 298),
    ((3,), False, 3), ((3, 50), True, -47), ((4, 97, 10), True, -103), ((96, 2), True, 98), ((6,), True, 6),
])
def test_open_ended_chains(dice, low, expected):
    """A 96-100 rolls again and adds; with the low end open (A1) a first
    01-05 rolls again and subtracts; each further 96-100 goes on; an extra
    01-05 is simply added (A ruling). Each die is its own DiceRolled."""
    draft = _draft(dice)
    got, total = core.open_ended(draft, "test", "x", low=low)
    assert got == tuple(dice) and total == expected
    assert [e.total for e in draft.events] == list(dice)


def test_open_ended_cap_is_a_ruling():
    """A ruling: the chain stops at ``open_ended_cap`` dice (default 20)."""
    draft = _draft((99, 99, 99, 99), open_ended_cap=3)
    got, total = core.open_ended(draft, "test", "x")
    assert got == (99, 99, 99) and total == 297


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 100), min_size=1, max_size=25), st.booleans())
def test_open_ended_chain_property(faces, low):
    """The chain reads dice while each extra shows 96-100, up to the cap."""
    faces = faces + [50]  # always enough dice to finish
    draft = _draft(faces)
    got, total = core.open_ended(draft, "p", "x", low=low)
    first = faces[0]
    opens = first >= 96 or (low and first <= 5)
    if not opens:
        assert got == (first,)
    else:
        assert all(d >= 96 for d in got[1:-1]) and len(got) <= 20
        assert len(got) == 20 or got[-1] < 96
    sign = -1 if (low and first <= 5) else 1
    assert total == first + sign * sum(got[1:])


def test_attack_roll_is_open_ended_high_only_by_default(tmp_path):
    """Attack Procedure 1: 'Roll open-ended high': a first 01-05 is kept
    (A2); ruling attack_roll=both opens the low end."""
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="none"), "05")
    assert lookup(f).dice == (5,) and lookup(f).roll == 5
    g = Fight(tmp_path / "both" if (tmp_path / "both").mkdir() is None else tmp_path, rulings={"attack_roll": "both"})
    g.run(cmd.StartRound(), START)
    g.run(A(attacker="kestrel", target="gruk"))
    g.run(R(defender="gruk", reaction="none"), "05,30")
    assert lookup(g).dice == (5, 30) and lookup(g).roll == -25


# --------------------------------------------------------------------------- #
# Fumbles (Attack Procedure step 2; A3)
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("first,fumble", [(1, True), (2, True), (3, True), (4, False), (96, False)])
def test_fumble_range_on_the_unmodified_first_die(tmp_path, first, fumble):
    """The first die inside the weapon's fumble range (sample-broadsword
    1-3) ends the attack with a fumble, before OB and DB are added."""
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="none"), f"{first:02d}" + (",10" if first >= 96 else ""))
    looked = lookup(f)
    assert looked.fumble is fumble and looked.first == first and looked.fumble_range == (1, 3)
    if fumble:
        assert looked.ob == 0 and looked.cell == ""
        assert f.state.pending[0].kind == "fumble"


def test_sheet_fumble_range_overrides_the_table(tmp_path):
    k = sheet("kestrel")
    k["weapons"][0]["fumble"] = [1, 5]
    f = Fight(tmp_path, sheets=((k, "heroes"), (sheet("gruk"), "orcs")))
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="none"), "05")
    assert lookup(f).fumble and lookup(f).fumble_range == (1, 5)


def test_fumble_table_effects_fall_on_the_fumbler(tmp_path):
    """sample-weapon-fumble 71-90: the fumbler drops the weapon."""
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="none"), "02")
    f.run(ROLL, "75")
    fum = f.events(rev.FumbleLookedUp)[-1]
    assert (fum.roll, fum.row_low, fum.row_high, fum.effects) == (75, 71, 90, {"drop_weapon": 1})
    assert "Broadsword" not in f.who("kestrel").ready and f.state.exchange is None
    assert f.state.pending[0].who == "gruk"


# --------------------------------------------------------------------------- #
# OB, DB and the table (Attack Procedure steps 3-5; A4, A5)
# --------------------------------------------------------------------------- #


def test_attack_total_and_lookup(tmp_path):
    """97 + 40 = 137, + OB 70 - DB 20 = 187, above max_total 150: the top
    row of the rigid column, 13C: 13 hits and a C slash critical."""
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="none"), "97,40")
    x = lookup(f)
    assert (x.roll, x.ob, x.db, x.total, x.read) == (137, 70, 20, 187, 150)
    assert [(m.value, m.reason) for m in x.db_parts] == [(5, "DB (sheet)"), (15, "Quickness (3 x Qu bonus)")]
    assert (x.row_low, x.row_high, x.column, x.cell, x.hits, x.severity, x.crit_type) == (141, 150, "rigid", "13C", 13, "C", "S")
    assert f.who("gruk").location("body").hp == 55 - 13
    assert f.state.pending[0].kind == "critical" and f.state.pending[0].data["table"] == "sample-slash"


def test_a_miss(tmp_path):
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="parry:40"), "10")  # 10 + 70 - 60 = 20
    assert lookup(f).cell == "-" and lookup(f).hits == 0
    assert f.who("gruk").location("body").hp == 55


def test_quickness_db_is_lost_when_unaware(tmp_path):
    """A5: 3 x Qu bonus counts only if the defender knows he is in combat."""
    f = Fight(tmp_path, surprised=("gruk",))
    f.run(cmd.StartRound(), START)
    f.run(ROLL, "96,40")  # Perception succeeds: no effect, but still unaware this round
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="none"), "50")
    x = lookup(f)
    assert x.db == 5 and "lost" in x.db_parts[1].reason


def test_armour_not_in_the_table_is_a_rule_error(tmp_path):
    f = Fight(tmp_path, sheets=((sheet("kestrel"), "heroes"), (sheet("gruk", armour="chain"), "orcs")))
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    with pytest.raises(RuleError, match="armour 'chain' is not a column"):
        f.run(R(defender="gruk", reaction="none"), "50")


# --------------------------------------------------------------------------- #
# Melee (seed 000 "Melee")
# --------------------------------------------------------------------------- #


def test_a_melee_attack_engages_and_a_round_without_melee_ends_it(tmp_path):
    """'Combatant is engaged in melee if a foe attacked in the previous
    second, ... within 3m, ... and that foe's action is to melee'."""
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    assert "gruk" in f.who("kestrel").engaged and "kestrel" in f.who("gruk").engaged
    f.run(R(defender="gruk", reaction="none"), "10")
    f.run(act("gruk", "pass"))
    f.run(cmd.EndRound(), START)
    assert "gruk" in f.who("kestrel").engaged  # attacked in the round just past
    f.run(act("kestrel", "pass"))
    f.run(act("gruk", "pass"))
    f.run(cmd.EndRound(), START)
    assert not f.who("kestrel").engaged and not f.who("gruk").engaged  # nobody meleed: no longer engaged


# --------------------------------------------------------------------------- #
# Parry (seed 000 "Parry action"; A6)
# --------------------------------------------------------------------------- #


def test_parry_moves_ob_to_db_and_holds_against_one_attack(tmp_path):
    """The parry adds its amount to DB against one attack; the parrier's
    own attacks that round lose it; a second attack meets no parry. (Turns
    alternate: ruling turn_order=cycle; the countdown is tested in
    test_rolemaster_countdown.py.)"""
    f = Fight(tmp_path, rulings={"turn_order": "cycle"})
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk", situations=("ap=2",)))
    f.run(R(defender="gruk", reaction="parry:20"), "50")
    x = lookup(f)
    assert x.db == 40 and (20, "parry (OB moved)") in [(m.value, m.reason) for m in x.db_parts]
    assert [(m.value, m.reason) for m in x.ob_parts] == [(70, "Broadsword OB"), (-50, "quick attack (2 AP less)")]
    f.run(A(attacker="gruk", target="kestrel"))
    f.run(R(defender="kestrel", reaction="none"), "50")
    assert [(m.value, m.reason) for m in lookup(f).ob_parts] == [(60, "Club OB"), (-20, "OB moved to parry")]
    f.run(A(attacker="kestrel", target="gruk", situations=("ap=2",)))
    assert "parry" not in f.state.pending[0].options
    f.run(R(defender="gruk", reaction="none"), "50")
    assert lookup(f).db == 20


def test_parry_declared_with_the_attack(tmp_path):
    """--situation parry=N moves N of the attacker's OB to parry for the round."""
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk", situations=("parry=30",)))
    f.run(R(defender="gruk", reaction="none"), "50")
    assert lookup(f).ob == 40
    f.run(A(attacker="gruk", target="kestrel"))
    assert f.state.pending[0].options[0] == "parry"
    f.run(R(defender="kestrel", reaction="parry"), "50")
    assert lookup(f).db == 80


def test_parry_larger_than_ob_is_refused(tmp_path):
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    with pytest.raises(RuleError, match="at most 60"):
        f.run(R(defender="gruk", reaction="parry:61"), "50")


def test_parry_after_attacking_is_refused(tmp_path):
    """Ruling parry_after_attack: the round's OB is committed once used."""
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="none"), "10")
    with pytest.raises(RuleError, match="has attacked this round"):
        f.run(act("kestrel", "parry 10"))
    f.run(A(attacker="gruk", target="kestrel"))
    assert f.state.pending[0].options == ("none",)


def test_parry_only_against_melee_and_with_a_weapon(tmp_path):
    """'Parrying requires that the character be wielding a weapon.'"""
    f = Fight(tmp_path, sheets=((sheet("kestrel"), "heroes"), (sheet("gruk", ready=[]), "orcs")))
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    assert "parry" not in f.state.pending[0].options


# --------------------------------------------------------------------------- #
# Dodge (seed 000 "Dodge action"; A10 and rulings)
# --------------------------------------------------------------------------- #


def unarmed_fight(tmp_path, **rulings) -> Fight:
    f = Fight(tmp_path, rulings=rulings, sheets=((sheet("kestrel"), "heroes"), (sheet("gruk", ready=[]), "orcs")))
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    return f


def test_dodge_adds_the_numeric_result_to_db(tmp_path):
    """Extremely Hard moving maneuver, + average of Ag and Qu bonuses (5):
    50 + 5 = 55 reads 21..60 -> 5 to DB; it costs the AP left (ruling)."""
    f = unarmed_fight(tmp_path)
    assert f.state.pending[0].options == ("dodge", "none")
    f.run(R(defender="gruk", reaction="dodge"), "50,60")
    m = f.events(rev.ManeuverResolved)[-1]
    assert (m.maneuver, m.column, m.total, m.row_low, m.row_high, m.value) == ("dodge", "extremely-hard", 55, 21, 60, 5)
    assert lookup(f).db == 25 and f.who("gruk").combat_actions == 0


def test_dodge_off_the_bottom_is_a_fumble(tmp_path):
    """02 opens low: 2 - 99 - 99 - 50 = -246, + 5 = -241, below the column:
    no DB, and the lowest row's effects (prone, stunned, +3 hits)."""
    f = unarmed_fight(tmp_path)
    f.run(R(defender="gruk", reaction="dodge"), "02,99,99,50,60")
    m = f.events(rev.ManeuverResolved)[-1]
    assert m.where == "bottom" and m.value == 0 and m.total == -241
    g = f.who("gruk")
    assert g.stance == "prone" and g.has("stunned") and lookup(f).db == 20


def test_dodge_off_the_top_gives_the_best_of_the_column(tmp_path):
    f = unarmed_fight(tmp_path)
    f.run(R(defender="gruk", reaction="dodge"), "99,99,60,10")
    m = f.events(rev.ManeuverResolved)[-1]
    assert m.where == "top" and m.value == 60 and m.outcome == "A perfect dodge."


def test_dodge_without_a_table_uses_the_static_bands(tmp_path):
    """Ruling dodge_without_table: 90 + 5 = 95, Near success: 80 to DB."""
    f = unarmed_fight(tmp_path, moving_maneuver_table="")
    f.run(R(defender="gruk", reaction="dodge"), "90,60")
    m = f.events(rev.ManeuverResolved)[-1]
    assert (m.table, m.outcome, m.value) == ("static-maneuver", "near-success", 80)
    assert lookup(f).db == 100


def test_dodge_while_armed_needs_a_ruling(tmp_path):
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    assert "dodge" not in f.state.pending[0].options
    with pytest.raises(RuleError, match="can answer with parry, none"):
        f.run(R(defender="gruk", reaction="dodge"), "50,50")
    g = Fight(tmp_path / "x" if (tmp_path / "x").mkdir() is None else tmp_path, rulings={"dodge_armed": "allow"})
    g.run(cmd.StartRound(), START)
    g.run(A(attacker="kestrel", target="gruk"))
    assert "dodge" in g.state.pending[0].options


def test_dodge_and_parry_stack(tmp_path):
    """Ruling dodge_and_parry=stack: a declared parry holds with the dodge."""
    f = Fight(tmp_path, rulings={"dodge_armed": "allow"})
    f.run(cmd.StartRound(), START)
    f.run(act("gruk", "parry 10"))
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="dodge"), "50,60")
    assert lookup(f).db == 20 + 5 + 10


# --------------------------------------------------------------------------- #
# Effects from Criticals
# --------------------------------------------------------------------------- #


def crit_fight(tmp_path, attack_roll: str, crit_roll: str, armour="none") -> Fight:
    f = Fight(tmp_path, sheets=((sheet("kestrel"), "heroes"), (sheet("gruk", armour=armour), "orcs")))
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="none"), attack_roll)
    f.run(ROLL, crit_roll)
    return f


def test_critical_roll_is_closed_and_read_by_severity(tmp_path):
    """A11: the critical roll is a closed d100 read in the severity column.
    65 + 70 - 20 = 115, none: 12C; critical 10: C row 1-20, +3 hits, 1 per round."""
    f = crit_fight(tmp_path, "65", "10")
    c = f.events(rev.CriticalLookedUp)[-1]
    assert (c.table, c.crit_type, c.severity, c.roll, c.row_low, c.row_high) == ("sample-slash", "S", "C", 10, 1, 20)
    assert c.effects == {"hits": 3, "bleed": 1}
    assert f.who("gruk").location("body").hp == 55 - 12 - 3
    assert f.who("gruk").effect("bleed") == 1


def test_bleeding_at_the_end_of_the_round(tmp_path):
    f = crit_fight(tmp_path, "65", "10")
    f.run(act("gruk", "pass"))
    f.run(cmd.EndRound(), START)
    assert f.who("gruk").location("body").hp == 55 - 12 - 3 - 1


def test_you_have_initiative(tmp_path):
    """'You have initiative' = foe gets -1d10 to next initiative roll.
    65 -> 115 on rigid: 9A; critical 60: A row 51-80."""
    f = crit_fight(tmp_path, "65", "60", armour="rigid")
    assert f.who("gruk").has("lost-initiative")
    f.run(act("gruk", "pass"))
    f.run(cmd.EndRound(), "10,5,3,4,6")
    rs = f.events(ev.RoundStarted)[-1]
    gruk = next(o for o in rs.order if o.handle == "gruk")
    assert gruk.rank == 7 + 5 - 6 and "-6 (foe had initiative)" in gruk.detail
    assert not f.who("gruk").has("lost-initiative")


def test_prone_and_stand_for_one_action_point(tmp_path):
    """'Staggered or Prone': prone is also staggered; standing is a 1 AP
    action. 85 -> 135, none: 15D; critical 60: D prone, stunned 1 round."""
    f = crit_fight(tmp_path, "85", "60")
    g = f.who("gruk")
    assert g.stance == "prone" and g.has("staggered") and g.has("stunned")
    assert "stand" in f.state.pending[0].options and "attack" not in f.state.pending[0].options
    with pytest.raises(RuleError, match="cannot attack"):
        f.run(A(attacker="gruk", target="kestrel"))
    f.run(act("gruk", "stand"))
    assert f.who("gruk").stance == "standing" and f.who("gruk").combat_actions == 3


def test_attacking_while_prone_takes_the_prone_penalty(tmp_path):
    """'the usual modifiers to action for prone position' (seed 000 'Staggered
    or Prone'): ruling prone_penalty, -50 by default. Dodge off the bottom
    leaves Gruk prone and stunned 1 round; in round 3 he attacks from the floor."""
    f = Fight(tmp_path, rulings={"dodge_armed": "allow"})
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="dodge"), "02,99,99,50,10")
    f.run(cmd.EndRound(), START)  # Gruk spent his AP on the dodge first: the stun is late
    f.run(act("kestrel", "pass"))
    f.run(cmd.EndRound(), START)
    assert f.who("gruk").stance == "prone" and not f.who("gruk").effect("cannot-attack")
    f.run(act("kestrel", "pass"))
    f.run(A(attacker="gruk", target="kestrel"))
    f.run(R(defender="kestrel", reaction="none"), "50")
    assert (-50, "prone") in [(m.value, m.reason) for m in lookup(f).ob_parts]


def test_knocked_back_moves_staggers_once_and_disengages(tmp_path):
    """'Knocked Back': moved (10 feet = 3.05 m > 3 m: out of melee), then
    staggered: one -25 state, not two (A ruling). 65 -> 115: 12C; 00: C row 100."""
    f = crit_fight(tmp_path, "65", "00")
    g = f.who("gruk")
    moved = f.events(ev.CombatantMoved)[-1]
    assert moved.distance == pytest.approx(3.05) and moved.away_from == "kestrel"
    assert "kestrel" not in g.engaged
    assert [k.name for k in g.conditions if k.name == "staggered"] == ["staggered"]


def test_stunned_and_unable_to_parry(tmp_path):
    """65 -> 115: 12C; critical 90: C row 81-99, stunned and unable to parry."""
    f = crit_fight(tmp_path, "65", "90")
    g = f.who("gruk")
    assert g.effect("cannot-parry") and core.parry_limit(g) == 0
    assert "parry" not in f.state.pending[0].options


def test_stunned_parries_with_at_most_half_ob(tmp_path):
    """'Stunned': may only parry with half his OB (60 -> 30).
    97,40 -> 13C on rigid; critical 60: C row 51-80, stunned 2 rounds."""
    f = crit_fight(tmp_path, "97,40", "60", armour="rigid")
    assert core.parry_limit(f.who("gruk")) == 30
    with pytest.raises(RuleError, match="at most 30"):
        f.run(act("gruk", "parry 31"))
    f.run(act("gruk", "parry 30"))
    assert core.parry_declared(f.who("gruk")).effects["parry"] == 30


# --------------------------------------------------------------------------- #
# The state table, the SD reduction and the stun stack
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("base,sd,expected", [(-50, 0, -50), (-50, 5, -35), (-50, -5, -65), (-25, 5, -10),
                                              (-25, 10, 0), (-25, 20, 0), (-50, 17, 0)])
def test_sd_reduces_state_penalties(base, sd, expected):
    """'* modified by +3x SD bonus'; a penalty never becomes a bonus."""
    assert core.state_penalty(base, sd) == expected


def _combatant(sd: int = 0, taken: int = 0, **rulings: str) -> State:
    data = sheet("gruk")
    data["stats"]["self_discipline"] = {"value": 50, "bonus": sd}
    c = Combatant(handle="x", name="X", side="a", sheet=data, locations=(Location("body", 55, 55),),
                  max_combat_actions=4, max_reactions=0, combat_actions=4 - taken, actions_taken=taken)
    return State(encounter_id="e", round=1, phase="round", combatants={"x": c}, rulings=rulings)


def test_state_penalties_with_sd_and_worst_only():
    """The state table: Dazed -25, Stunned -50, both -50 'modified by +3x
    SD'; only the worst active state's penalty counts (ruling stun_penalty)."""
    draft = Draft(_combatant(sd=5), None)
    core.add_state(draft, "x", "dazed", 1, "t")
    assert core.maneuver_penalty(draft.state, draft.who("x"))[0].value == -10
    core.add_state(draft, "x", "stunned", 1, "t")
    mods = core.maneuver_penalty(draft.state, draft.who("x"))
    assert [m.value for m in mods] == [-35]
    summed = Draft(_combatant(sd=5).__class__(**{**{f: getattr(draft.state, f) for f in draft.state.__struct_fields__},
                                                 "rulings": {"stun_penalty": "sum"}}), None)
    assert sorted(m.value for m in core.maneuver_penalty(summed.state, summed.who("x"))) == [-35, -10]


STACK = st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 4))


@settings(max_examples=80, deadline=None)
@given(STACK)
def test_stun_stack_wears_off_worst_first(stack):
    """'All stun results are cumulative. One round of stun effect wears off
    at the end of the round of effect, from the worst effect to the least.'"""
    snp, stun, daze = stack
    draft = Draft(_combatant(), None)
    for name, n in (("stunned-no-parry", snp), ("dazed", daze), ("stunned", stun)):
        if n:
            core.add_state(draft, "x", name, n, "t")
    for k in range(1, snp + stun + daze + 2):
        turns.wear_off(draft, "x", k)
        left = {c.name: c.ends.count for c in draft.who("x").conditions}
        want_snp = max(0, snp - k)
        want_stun = max(0, stun - max(0, k - snp))
        want_daze = max(0, daze - max(0, k - snp - stun))
        assert left.get("stunned-no-parry", 0) == want_snp
        assert left.get("stunned", 0) == want_stun
        assert left.get("dazed", 0) == want_daze


@pytest.mark.parametrize("ruling,taken,late", [
    ("next-turn", 4, True), ("next-turn", 3, False), ("next-turn", 2, False), ("next-turn", 0, False),
    ("no-wear-off", 2, True), ("no-wear-off", 1, False), ("wears-off", 4, False)])
def test_for_n_rounds_begins_from_the_targets_next_turn(ruling, taken, late):
    """Seed 000 'Effects from Criticals': "'for ß rounds' = beginning from
    target's next turn (this round or the next)": a stun received with no
    AP left (the next turn is next round) does not wear off at the end of
    this round; with AP left it does (ruling late_stun=next-turn). RMH
    upkeep's reading: after 2+ AP spent (no-wear-off)."""
    draft = Draft(_combatant(taken=taken, late_stun=ruling), None)
    core.add_state(draft, "x", "stunned", 1, "t")
    core.add_state(draft, "x", "staggered", 1, "t")
    turns.wear_off(draft, "x", 1)
    assert draft.who("x").has("stunned") is late and draft.who("x").has("staggered") is late


def test_stun_received_late_in_the_round_waits():
    """RMH upkeep (ruling late_stun=no-wear-off): a stun taken after 2 AP
    were spent does not wear off that round; it does the round after."""
    draft = Draft(_combatant(taken=2, late_stun="no-wear-off"), None)
    core.add_state(draft, "x", "stunned", 1, "t")
    turns.wear_off(draft, "x", 1)
    assert draft.who("x").has("stunned")
    turns.wear_off(draft, "x", 2)
    assert not draft.who("x").has("stunned")


def test_staggered_lasts_one_round_however_many():
    draft = Draft(_combatant(), None)
    core.add_state(draft, "x", "staggered", 1, "a")
    core.add_state(draft, "x", "staggered", 1, "b")
    assert [c.ends.count for c in draft.who("x").conditions] == [1]
    turns.wear_off(draft, "x", 1)
    assert not draft.who("x").conditions


def test_stun_wears_off_in_play(tmp_path):
    """Stunned 2 rounds in round 1: 1 left after round 1, gone after round 2."""
    f = crit_fight(tmp_path, "97,40", "60", armour="rigid")
    f.run(act("gruk", "pass"))
    f.run(cmd.EndRound(), START)
    assert next(k for k in f.who("gruk").conditions if k.name == "stunned").ends.count == 1
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="none"), "10")
    f.run(act("gruk", "pass"))
    f.run(cmd.EndRound(), START)
    assert not f.who("gruk").has("stunned")


# --------------------------------------------------------------------------- #
# Surprised / Confused
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("dice,band,effect", [
    ("50", "failure", "no-actions"), ("70", "partial-success", "stunned"), ("80", "near-success", "dazed"),
    ("96,10", "success", None), ("03,50", "spectacular-failure", "no-actions"), ("03,20", "absolute-failure", "no-actions"),
])
def test_surprised_perception_bands(tmp_path, dice, band, effect):
    """Perception (15) on the static bands: Failure = no further actions,
    Partial = Stunned 1 round, Near = Dazed 1 round, Success = none;
    Spectacular and Absolute failure count as Failure (ruling)."""
    f = Fight(tmp_path, surprised=("gruk",))
    f.run(cmd.StartRound(), START)
    assert f.state.pending[0].kind == "perception"
    f.run(ROLL, dice)
    m = f.events(rev.ManeuverResolved)[-1]
    assert m.outcome == band
    names = {k.name for k in f.who("gruk").conditions}
    if effect:
        assert effect in names
    else:
        assert not names & {"no-actions", "stunned", "dazed"}
    if effect == "no-actions":
        assert f.who("gruk").combat_actions == 0
    if effect == "stunned":
        assert next(k for k in f.who("gruk").conditions if k.name == "stunned").ends.count == 1


def test_unusual_66_is_flagged_on_the_unmodified_die(tmp_path):
    f = Fight(tmp_path, surprised=("gruk",))
    f.run(cmd.StartRound(), START)
    f.run(ROLL, "66")
    assert f.events(rev.ManeuverResolved)[-1].unusual == "unusual event (66)"


def test_orientation_roll_takes_minus_20(tmp_path):
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    f.run(act("gruk", "orientation"), "80")
    m = f.events(rev.ManeuverResolved)[-1]
    assert m.total == 80 + 15 - 20 and m.outcome == "failure"
    assert f.who("gruk").combat_actions == 0


# --------------------------------------------------------------------------- #
# Round structure (RMH, rulings initiative, action_points, turn_order)
# --------------------------------------------------------------------------- #


def test_initiative_action_points_and_turns(tmp_path):
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    rs = f.events(ev.RoundStarted)[-1]
    assert [(o.handle, o.rank) for o in rs.order] == [("kestrel", 25), ("gruk", 12)]
    assert rs.combat_actions == {"kestrel": 4, "gruk": 4}
    assert f.state.turn == ("kestrel",)
    f.run(act("kestrel", "pass"))
    assert f.state.turn == ("gruk",)
    f.run(act("gruk", "pass"))
    assert f.state.pending[0].kind == "end-round"


def test_out_of_turn_is_refused(tmp_path):
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    with pytest.raises(RuleError, match="not Gruk's turn"):
        f.run(A(attacker="gruk", target="kestrel"))


def _slinger():
    return sheet("gruk", weapons=[{"name": "Sling", "kind": "missile", "ob": 50, "table": "sample-club"}])


@pytest.mark.parametrize("ruling,offered,db", [("melee-only", False, 50), ("shield-half", True, 55)])
def test_parrying_missiles_is_a_ruling(tmp_path, ruling, offered, db):
    """rules-reference.md A ruling: parry works only against melee; with
    ``shield-half`` a shield parries a missile with half of the amount."""
    f = Fight(tmp_path, rulings={"parry_missiles": ruling},
              sheets=((sheet("kestrel"), "heroes"), (_slinger(), "orcs")))
    f.run(cmd.StartRound(), START)
    f.run(act("kestrel", "parry 10"))
    f.run(act("kestrel", "pass"))
    f.run(A(attacker="gruk", target="kestrel"))
    assert ("parry" in f.state.pending[0].options) is offered
    f.run(R(defender="kestrel", reaction="parry" if offered else "none"), "50")
    assert lookup(f).db == db
    assert f.who("gruk").combat_actions == 1  # a missile attack takes 3 AP (RMH 1-3)


def test_draw_then_attack_with_the_action_points_left(tmp_path):
    """Draw weapon: 1 AP (RMH); an attack with 3 AP left is a quicker one,
    -25 for the AP less (RMH 'Melee Attack 2-4'). (Ruling turn_order=cycle.)"""
    f = Fight(tmp_path, rulings={"turn_order": "cycle"})
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="none"), "02")
    f.run(ROLL, "75")  # drops the Broadsword
    f.run(act("gruk", "pass"))
    f.run(cmd.EndRound(), START)
    assert "draw" in f.state.pending[0].options
    f.run(act("kestrel", "draw Broadsword"))
    assert f.who("kestrel").combat_actions == 3 and "Broadsword" in f.who("kestrel").ready
    f.run(act("gruk", "pass"))
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="none"), "50")
    assert (-25, "quick attack (1 AP less)") in [(m.value, m.reason) for m in lookup(f).ob_parts]


def test_perception_called_by_the_gm_with_a_difficulty(tmp_path):
    """A hidden foe: 'affray act WHO perception diff=hard' (A7: -10).
    70 + 15 - 10 = 75: Failure, no further actions this round."""
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    f.run(act("kestrel", "pass"))
    f.run(act("gruk", "perception diff=hard"), "70")
    m = f.events(rev.ManeuverResolved)[-1]
    assert (m.maneuver, m.column, m.total, m.outcome) == ("perception", "hard", 75, "failure")
    assert f.who("gruk").has("no-actions") and f.state.pending[0].kind == "end-round"
    with pytest.raises(RuleError, match="unknown difficulty"):
        f.run(act("kestrel", "perception diff=impossible"), "50")


def test_surprise_reads_the_campaign_static_table(tmp_path):
    """Ruling static_maneuver_table: the campaign's own bands (here 51..80
    is a Partial success: Stunned 1 round)."""
    (tmp_path / "camp").mkdir()
    (tmp_path / "camp" / "my-static.toml").write_text(
        'kind = "static-maneuver"\nsource = "test"\nrows = [\n  [[-999, 50], { outcome = "failure" }],\n'
        '  [[51, 80], { outcome = "partial-success", value = 20 }],\n  [[81, 999], { outcome = "success", value = 100 }],\n]\n')
    f = Fight(tmp_path, surprised=("gruk",), rulings={"tables": str(tmp_path / "camp"), "static_maneuver_table": "my-static"})
    f.run(cmd.StartRound(), START)
    f.run(ROLL, "40")  # 40 + 15 = 55
    m = f.events(rev.ManeuverResolved)[-1]
    assert (m.table, m.row_low, m.row_high, m.outcome) == ("my-static", 51, 80, "partial-success")
    assert f.who("gruk").has("stunned")


def test_parry_with_a_named_weapon(tmp_path):
    """'Parrying requires that the character be wielding a weapon': the
    limit is the OB of the weapon named with --with (Gruk's Broadsword, 40)."""
    f = Fight(tmp_path, sheets=((sheet("kestrel"), "heroes"), (sheet("gruk", ready=["Club", "Broadsword"]), "orcs")))
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk"))
    with pytest.raises(RuleError, match="at most 40 .its OB with Broadsword"):
        f.run(cmd.ChooseReaction(defender="gruk", reaction="parry:45", with_item="broad"), "50")
    f.run(cmd.ChooseReaction(defender="gruk", reaction="parry:45"), "50")  # the Club, OB 60
    assert "with Club" in core.parry_declared(f.who("gruk")).note


LOST_ROUND = '''# INVENTED test critical table: every cell loses the foe his next round.
kind = "critical"
name = "sample-slash"
type = "S"
source = "INVENTED for a test"
columns = ["A", "B", "C", "D", "E"]
rows = [
  [[1, 100], { A = { text = "Foe loses his next round.", hits = 1, lose_round = true }, B = { text = "Foe loses his next round.", hits = 1, lose_round = true }, C = { text = "Foe loses his next round.", hits = 1, lose_round = true }, D = { text = "Foe loses his next round.", hits = 1, lose_round = true }, E = { text = "Foe loses his next round.", hits = 1, lose_round = true } }],
]
'''


@pytest.mark.parametrize("gruk_first", [False, True])
def test_next_round_is_the_next_turn_this_round_or_the_next(tmp_path, gruk_first):
    """Seed 000 'Effects from Criticals': "'next round' = next turn (this
    round or the next)". A critical that loses the foe "his next round"
    (an INVENTED campaign table) takes the rest of this round from a foe
    with AP left (his next turn is this round), and the next round from a
    foe who has already spent his (Gruk passing first on 40: Kestrel 7 +
    10 = 17, count 37; Gruk 15 + 5 = 20, count 40)."""
    camp = tmp_path / "camp"
    camp.mkdir()
    (camp / "sample-slash.toml").write_text(LOST_ROUND)
    f = Fight(tmp_path, rulings={"tables": str(camp)})
    f.run(cmd.StartRound(), "3,4,10,5" if gruk_first else "10,5,3,4")
    if gruk_first:
        f.run(cmd.TakeAction(who="gruk", action="pass"))
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="none"), "97,40")  # 13C
    f.run(ROLL, "10")
    g = f.who("gruk")
    assert g.has("no-actions") is not gruk_first and g.has("round-lost") is gruk_first
    assert g.combat_actions == 0
    if not gruk_first:
        assert f.state.pending[0].kind == "end-round"
        return
    f.run(cmd.EndRound(), "5,5,5,5")
    g = f.who("gruk")
    assert g.has("no-actions") and g.combat_actions == 0 and not g.has("round-lost")
    assert f.state.turn == ("kestrel",)


def test_dodge_when_the_weapon_cannot_be_used(tmp_path):
    """Seed 000 'Dodge action': "When a character does not have a weapon
    (or cannot use their weapon)": Gruk, stunned and unable to parry
    (critical 90: C row 81-99), can neither attack nor parry with his Club,
    so he may dodge though he holds it; merely stunned (half OB to parry,
    critical 60 on rigid: stunned 2 rounds) he still uses it, so no dodge."""
    f = crit_fight(tmp_path, "65", "90")
    g = f.who("gruk")
    assert "Club" in g.ready and g.effect("cannot-parry") and core.may_dodge(f.state, g) == ""
    h = crit_fight(tmp_path / "b" if (tmp_path / "b").mkdir() is None else tmp_path, "97,40", "60", armour="rigid")
    assert "holds a weapon" in core.may_dodge(h.state, h.who("gruk"))
