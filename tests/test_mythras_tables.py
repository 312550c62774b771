"""Mythras tables (system ``mythras``): every cell of the Differential Roll
Results table and the table-driven rules.

Sources: rules-reference.md B1-B18; seed 001_0613c1b7f6517492.txt "Damage
Reduction", "Special Effects Table", "Impale Effects Table".
"""

from __future__ import annotations

import pytest

from affray.rules.mythras import tables

# rules-reference.md B7, written out again by hand: (attacker, defender) -> (winner, effects)
B7 = {
    ("critical", "critical"): ("none", 0), ("critical", "success"): ("attacker", 1),
    ("critical", "failure"): ("attacker", 2), ("critical", "fumble"): ("attacker", 3),
    ("success", "critical"): ("defender", 1), ("success", "success"): ("none", 0),
    ("success", "failure"): ("attacker", 1), ("success", "fumble"): ("attacker", 2),
    ("failure", "critical"): ("defender", 2), ("failure", "success"): ("defender", 1),
    ("failure", "failure"): ("none", 0), ("failure", "fumble"): ("none", 0),
    ("fumble", "critical"): ("defender", 3), ("fumble", "success"): ("defender", 2),
    ("fumble", "failure"): ("none", 0), ("fumble", "fumble"): ("none", 0),
}


@pytest.mark.parametrize("cell", sorted(B7), ids=lambda c: f"{c[0]}-vs-{c[1]}")
def test_every_differential_cell(cell):
    got = tables.differential(*cell)
    assert (got.winner, got.effects) == B7[cell]


def test_differential_table_is_complete_and_sourced():
    assert set(tables.DIFFERENTIAL) == set(B7)
    assert "B7" in tables.SOURCES["differential"]
    with pytest.raises(ValueError, match="no differential cell"):
        tables.differential("special", "success")


@pytest.mark.parametrize("skill, top", [(0, 1), (1, 1), (10, 1), (11, 2), (66, 7), (100, 10), (101, 11), (120, 12)])
def test_critical_is_ceil_tenth(skill, top):
    assert tables.critical_max(skill) == top


@pytest.mark.parametrize(
    "roll, skill, level",
    [
        (1, 0, "critical"),  # 01-05 always succeed (B1); ceil(0/10) floors at 1 (MF max(1, ...))
        (5, 10, "success"),
        (7, 66, "critical"),
        (8, 66, "success"),
        (66, 66, "success"),
        (67, 66, "failure"),
        (96, 120, "failure"),  # 96-00 always fail
        (99, 100, "fumble"),
        (99, 101, "failure"),  # over 100 only 00 fumbles (B3)
        (100, 101, "fumble"),
        (100, 50, "fumble"),
    ],
)
def test_skill_test_levels(roll, skill, level):
    assert tables.skill_test(roll, skill) == level


def test_over_100_shared_penalty():
    assert tables.over_100(120, 80) == 20
    assert tables.over_100(100, 90) == 0
    assert tables.over_100(150, 130) == 50


@pytest.mark.parametrize(
    "a, ra, b, rb, winner",
    [
        ("critical", 3, "success", 50, "a"),
        ("success", 40, "success", 55, "b"),  # same level: the higher roll wins (B6)
        ("success", 40, "success", 40, "none"),
        ("failure", 90, "failure", 80, "none"),
        ("success", 10, "fumble", 99, "a"),
    ],
)
def test_opposed_winner(a, ra, b, rb, winner):
    assert tables.opposed_winner(a, ra, b, rb) == winner


def test_hit_locations_b13():
    expected = ["right leg"] * 3 + ["left leg"] * 3 + ["abdomen"] * 3 + ["chest"] * 3 + ["right arm"] * 3 + ["left arm"] * 3 + ["head"] * 2
    assert [tables.hit_location(d) for d in range(1, 21)] == expected
    with pytest.raises(ValueError):
        tables.hit_location(21)


@pytest.mark.parametrize(
    "con_siz, head, chest, abdomen, arm, leg",
    [(1, 1, 3, 2, 1, 1), (5, 1, 3, 2, 1, 1), (6, 2, 4, 3, 1, 2), (15, 3, 5, 4, 2, 3), (20, 4, 6, 5, 3, 4),
     (27, 6, 8, 7, 5, 6), (40, 8, 10, 9, 7, 8), (41, 9, 11, 10, 8, 9), (50, 10, 12, 11, 9, 10)],
)
def test_location_hp_b14(con_siz, head, chest, abdomen, arm, leg):
    hp = tables.location_hp(con_siz)
    assert (hp["head"], hp["chest"], hp["abdomen"], hp["right arm"], hp["left leg"]) == (head, chest, abdomen, arm, leg)


@pytest.mark.parametrize(
    "str_siz, dm",
    [(5, "-1D8"), (6, "-1D6"), (15, "-1D4"), (20, "-1D2"), (21, ""), (25, ""), (26, "+1D2"), (31, "+1D4"),
     (40, "+1D6"), (45, "+1D8"), (50, "+1D10"), (60, "+1D12"), (70, "+2D6"), (80, "+1D8+1D6"), (90, "+2D8"),
     (100, "+1D10+1D8"), (110, "+2D10"), (120, "+2D10+1D2"), (130, "+2D10+1D2+1D2")],
)
def test_damage_modifier_b16(str_siz, dm):
    assert tables.damage_modifier(str_siz) == dm


@pytest.mark.parametrize("int_dex, ap", [(2, 1), (12, 1), (13, 2), (24, 2), (25, 3), (36, 3), (37, 4), (48, 4), (49, 5)])
def test_action_points_int_dex_b18(int_dex, ap):
    assert tables.action_points_int_dex(int_dex) == ap


def test_initiative_rounds_up_b17():
    assert tables.initiative(14, 12) == 13
    assert tables.initiative(11, 10) == 11


@pytest.mark.parametrize("parry", tables.SIZES)
@pytest.mark.parametrize("attack", tables.SIZES)
def test_parry_block_by_size_b11(parry, attack):
    diff = tables.SIZES.index(attack) - tables.SIZES.index(parry)
    expected = "all" if diff <= 0 else "half" if diff == 1 else "none"
    assert tables.parry_block(parry, attack) == expected


def test_after_parry_and_rounding():
    assert tables.after_parry(9, "all") == 0
    assert tables.after_parry(9, "half") == 4
    assert tables.after_parry(9, "half", "up") == 5
    assert tables.after_parry(9, "none") == 9
    with pytest.raises(ValueError, match="unknown weapon size"):
        tables.parry_block("tiny", "small")


@pytest.mark.parametrize(
    "hp, max_hp, boundary, severity",
    [(1, 6, "inclusive", "minor"), (0, 6, "inclusive", "serious"), (-5, 6, "inclusive", "serious"),
     (-6, 6, "inclusive", "major"), (-6, 6, "strict", "serious"), (-7, 6, "strict", "major")],
)
def test_wound_severity_b15(hp, max_hp, boundary, severity):
    assert tables.wound_severity(hp, max_hp, boundary) == severity


IMPALE = {  # seed 001 Impale Effects Table, row by row
    5: ["formidable", "herculean", "incapacitated", "incapacitated", "incapacitated"],
    15: ["hard", "formidable", "herculean", "incapacitated", "incapacitated"],
    25: ["no effect", "hard", "formidable", "herculean", "incapacitated"],
    35: ["no effect", "no effect", "hard", "formidable", "herculean"],
    45: ["no effect", "no effect", "no effect", "hard", "formidable"],
    55: ["no effect", "no effect", "no effect", "no effect", "hard"],  # each +10 follows the progression
}


@pytest.mark.parametrize("siz", sorted(IMPALE))
def test_impale_effects_table(siz):
    assert [tables.impale_grade(siz, s) for s in tables.SIZES] == IMPALE[siz]


def test_special_effects_eligibility():
    crit = tables.eligible_effects("attacker", own="critical", other="failure", traits={"cutting", "impaling"})
    assert {"maximize-damage", "bypass-armor", "bleed", "impale", "choose-location", "trip-opponent"} <= set(crit)
    plain = tables.eligible_effects("attacker", own="success", other="failure", traits={"bludgeoning"})
    assert "maximize-damage" not in plain and "bypass-armor" not in plain and "circumvent-parry" not in plain
    assert "circumvent-parry" in crit
    assert "force-failure" in tables.eligible_effects("attacker", own="success", other="fumble", traits=set())
    assert "force-failure" not in crit
    assert "stun-location" in plain and "bleed" not in plain and "impale" not in plain
    d = tables.eligible_effects("defender", own="success", other="failure", traits=set(), parried=True)
    assert set(d) == {"arise", "scar-foe", "trip-opponent", "withdraw", "damage-weapon", "disarm-opponent", "prepare-counter"}
    dc = tables.eligible_effects("defender", own="critical", other="failure", traits=set(), parried=True)
    assert "enhance-parry" in dc
    assert "enhance-parry" not in tables.eligible_effects("defender", own="critical", other="failure", traits=set())
    assert len(tables.SPECIAL_EFFECTS) == 26  # every row of the seed's table is in the data file


@pytest.mark.parametrize(
    "grade, multiplied, simplified",
    [("very-easy", 130, 105), ("easy", 98, 85), ("standard", 65, 65), ("hard", 44, 45),
     ("formidable", 33, 25), ("herculean", 13, 0), ("hopeless", 0, 0)],
)
def test_difficulty_grades_b4(grade, multiplied, simplified):
    assert tables.graded(65, grade) == multiplied  # MF rounds up
    assert tables.graded(65, grade, "simplified") == simplified


def test_hardest_grade_applies_and_situations_are_sourced():
    assert tables.hardest(["hard", "herculean", "formidable"]) == "herculean"
    assert tables.hardest([]) == "standard"
    assert tables.SITUATIONS["prone"].grade == "formidable"
    assert "Close Combat Situational Modifiers" in tables.SOURCES["situations"]
    with pytest.raises(ValueError, match="unknown difficulty grade"):
        tables.graded(50, "tricky")


def test_fatigue_levels_b19():
    rows = [(f.key, f.grade, f.initiative, f.ap) for f in tables.FATIGUE]
    assert rows == [("winded", "hard", 0, 0), ("tired", "hard", 0, 0), ("wearied", "formidable", -2, 0),
                    ("exhausted", "formidable", -4, -1), ("debilitated", "herculean", -6, -2),
                    ("incapacitated", "herculean", -8, -3)]
