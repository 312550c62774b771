"""rq3 tables, cell by cell (rules-reference.md C; seed 002).

Every level of success of every roll 1-100 for every skill 1-100 is checked
against the C1 formulas written out again here, plus the RQGS fumble bands
and C1's worked example; every band of the strike rank, damage modifier and
location HP tables; every d20 hit location; every cell of the dodge table
(seed 002 "MELEE DODGING"); the resistance table (C2); overlapping armour
with the seed's own worked numbers; the weapon table corrections.
"""

from __future__ import annotations

import math

import pytest

from affray.rules.rq3 import tables
from affray.rules.rq3.sheet import Piece, Weapon, corrected, layered_ap


def rhu(x: float) -> int:
    return math.floor(x + 0.5)


def expected_level(roll: int, skill: int) -> str:
    """rules-reference.md C1, written independently of the engine."""
    crit = max(1, rhu(skill / 20))
    special = max(1, rhu(skill / 5))
    fumble = 101 - max(1, rhu((100 - skill) / 20))
    if roll >= fumble:
        return "fumble"
    if not (roll <= 5 or (roll <= skill and roll < 96)):
        return "failure"
    if roll <= crit:
        return "critical"
    if roll <= special:
        return "special"
    return "success"


@pytest.mark.parametrize("skill", range(1, 101))
def test_every_roll_for_every_skill_matches_c1(skill):
    """C1: critical <= max(1, rhu(skill/20)), special <= max(1, rhu(skill/5)),
    fumble >= 101 - max(1, rhu((100-skill)/20)); 01-05 succeed, 96-00 fail."""
    for roll in range(1, 101):
        assert tables.level(roll, skill) == expected_level(roll, skill), (roll, skill)


@pytest.mark.parametrize("skill, fumble_from", [(1, 96), (10, 96), (11, 97), (30, 97), (31, 98), (50, 98),
                                                (51, 99), (70, 99), (71, 100), (100, 100)])
def test_fumble_bands(skill, fumble_from):
    """C1: skill 1-10 fumbles on 96-00, 11-30 on 97-00, 31-50 on 98-00,
    51-70 on 99-00, 71+ on 00 only."""
    assert tables.thresholds(skill)[2] == fumble_from
    assert tables.level(fumble_from, skill) == "fumble"
    assert tables.level(fumble_from - 1, skill) != "fumble"


def test_c1_worked_example_skill_50():
    """C1: skill 50 gives critical 01-03, special 01-10, fumble 98-00."""
    assert tables.thresholds(50) == (3, 10, 98)
    assert [tables.level(r, 50) for r in (3, 4, 10, 11, 50, 51, 97, 98)] == [
        "critical", "special", "special", "success", "success", "failure", "failure", "fumble"]


def test_skills_over_100_fumble_on_00_only():
    """C ruling "Skills above 100": the formulas go on; fumble on 00 only."""
    assert tables.thresholds(140) == (7, 28, 100)
    assert tables.level(95, 140) == "success"
    assert tables.level(99, 140) == "failure"  # 96-99 always fail (RQ3's automatic results)
    assert tables.level(100, 140) == "fumble"


def test_flexible_weapons_fumble_twice_as_often():
    """Seed 002 "FLEXIBLE WEAPONS": a double normal chance of a fumble."""
    assert tables.thresholds(50, flexible=True)[2] == 95
    assert tables.thresholds(80, flexible=True)[2] == 99


@pytest.mark.parametrize("dex, sr", [(1, 5), (5, 5), (6, 4), (8, 4), (9, 3), (12, 3), (13, 2), (15, 2),
                                     (16, 1), (18, 1), (19, 0), (30, 0)])
def test_dex_sr(dex, sr):
    """C4 DEX SR bands."""
    assert tables.dex_sr(dex) == sr


@pytest.mark.parametrize("siz, sr", [(1, 3), (6, 3), (7, 2), (14, 2), (15, 1), (21, 1), (22, 0), (40, 0)])
def test_siz_sr(siz, sr):
    """C4 SIZ SR bands."""
    assert tables.siz_sr(siz) == sr


@pytest.mark.parametrize("total, dm", [(2, "-1D4"), (12, "-1D4"), (13, ""), (24, ""), (25, "+1D4"), (32, "+1D4"),
                                       (33, "+1D6"), (40, "+1D6"), (41, "+2D6"), (56, "+2D6"), (57, "+3D6"),
                                       (72, "+3D6"), (73, "+4D6")])
def test_damage_modifier(total, dm):
    """C5: by STR+SIZ, then +1D6 per further 16 points or part of 16."""
    assert tables.damage_modifier(total) == dm


@pytest.mark.parametrize("con, siz, total", [(14, 12, 13), (14, 18, 16), (3, 3, 3), (10, 11, 11), (11, 11, 11)])
def test_total_hp(con, siz, total):
    """C7: (CON+SIZ)/2 rounded half up."""
    assert tables.total_hp(con, siz) == total


C8 = {"leg": [1, 2, 3, 4, 5, 6, 7], "abdomen": [1, 2, 3, 4, 5, 6, 7], "chest": [2, 3, 4, 5, 6, 8, 9],
      "arm": [1, 2, 3, 3, 4, 5, 6], "head": [1, 2, 3, 4, 5, 6, 7]}


@pytest.mark.parametrize("part", list(C8))
def test_location_hp_every_cell(part):
    """C8: each band of three total HP, 1-3 to 19-21."""
    for band, hp in enumerate(C8[part]):
        for total in range(3 * band + 1, 3 * band + 4):
            assert tables.location_hp(total, part) == hp, (part, total)


def test_location_hp_above_21():
    """C ruling: +1 per further 3 HP; the chest keeps 2 over the legs."""
    assert [tables.location_hp(t, "leg") for t in (22, 24, 25)] == [8, 8, 9]
    assert [tables.location_hp(t, "chest") for t in (22, 25)] == [10, 11]
    assert tables.location_hp(22, "arm") == 7


MELEE = {1: "right leg", 4: "right leg", 5: "left leg", 8: "left leg", 9: "abdomen", 11: "abdomen", 12: "chest",
         13: "right arm", 15: "right arm", 16: "left arm", 18: "left arm", 19: "head", 20: "head"}


def test_every_melee_hit_location():
    """C6, all twenty faces."""
    ranges = [("right leg", 1, 4), ("left leg", 5, 8), ("abdomen", 9, 11), ("chest", 12, 12),
              ("right arm", 13, 15), ("left arm", 16, 18), ("head", 19, 20)]
    for name, lo, hi in ranges:
        for d20 in range(lo, hi + 1):
            assert tables.hit_location(d20) == name
    assert all(tables.hit_location(k) == v for k, v in MELEE.items())


def test_missile_table_is_the_unverified_ruling():
    """C 'NOT FOUND': 1-3 RL, 4-6 LL, 7-10 abdomen, 11-15 chest, 16-17 RA, 18-19 LA, 20 head."""
    got = [tables.hit_location(d, "missile") for d in range(1, 21)]
    assert got == ["right leg"] * 3 + ["left leg"] * 3 + ["abdomen"] * 4 + ["chest"] * 5 + ["right arm"] * 2 + [
        "left arm"] * 2 + ["head"]


DODGE = {
    # seed 002 "MELEE DODGING": dodge level -> {hit level: what is left}
    "critical": {"fumble": "miss", "failure": "miss", "success": "miss", "special": "miss", "critical": "miss"},
    "special": {"fumble": "miss", "failure": "miss", "success": "miss", "special": "miss", "critical": "success"},
    "success": {"fumble": "miss", "failure": "miss", "success": "miss", "special": "success", "critical": "special"},
    "failure": {"fumble": "miss", "failure": "miss", "success": "success", "special": "special", "critical": "critical"},
    "fumble": {"fumble": "miss", "failure": "success", "success": "special", "special": "critical", "critical": "maximum"},
}


@pytest.mark.parametrize("dodge", list(DODGE))
@pytest.mark.parametrize("hit", ["fumble", "failure", "success", "special", "critical"])
def test_every_dodge_against_every_hit(dodge, hit):
    """Seed 002 "MELEE DODGING": a dodge shifts the hit down by its level;
    a fumbled dodge improves the attack one degree (only a fumbled attack
    misses; a critical does maximum damage)."""
    assert tables.dodged(dodge, hit) == DODGE[dodge][hit]


@pytest.mark.parametrize("active, passive, chance", [(10, 10, 50), (12, 10, 60), (10, 12, 40), (18, 9, 95),
                                                     (30, 10, 95), (3, 18, 5), (1, 30, 5)])
def test_resistance_table(active, passive, chance):
    """C2: 50 + 5 x (active - passive), clamped to 5-95 (C ruling)."""
    assert tables.resistance_chance(active, passive) == chance


@pytest.mark.parametrize("under, added", [(1, 1), (3, 2), (5, 3), (7, 4)])
def test_overlapping_armour_seed_examples(under, added):
    """Seed 002 "POINTS FOR OVERLAPPING ARMOR": soft leather (1) under plate
    adds 1, bezainted (3) adds 2, ringmail (5) 3, chainmail (7) 4: half the
    lower piece, rounded up."""
    assert layered_ap([Piece("plate", 8), Piece("under", under)]) == 8 + added


def test_crush_special_ignores_half_of_soft_armour():
    """Seed 002 "Crush": half of soft armour is ignored (ruling: half
    rounded down is ignored)."""
    pieces = [Piece("ringmail", 5), Piece("quilting", 2, soft=True)]
    assert layered_ap(pieces) == 6
    assert layered_ap(pieces, crush_special=True) == 6  # 2 -> 1, ceil(1/2) = 1
    assert layered_ap([Piece("soft leather", 3, soft=True)], crush_special=True) == 2


def test_weapon_table_corrections():
    """Seed 002 "MELEE WEAPONS TABLE. Corrections" and "MISSILE WEAPONS
    TABLE. Correction": all daggers impale; naginatas slash instead of
    impaling; the javelin does 1D10."""
    assert "impale" in corrected(Weapon(name="Dagger", damage="1D4+2", modes=["slash"])).modes
    assert corrected(Weapon(name="Main gauche", type="dagger", damage="1D4")).modes == ["impale"]
    assert corrected(Weapon(name="Naginata", damage="3D6", modes=["impale"])).modes == ["slash"]
    assert corrected(Weapon(name="Javelin", damage="1D8", kind="missile", thrown=True)).damage == "1D10"
    assert corrected(Weapon(name="Broadsword", damage="1D8+1", modes=["slash", "impale"])).modes == ["slash", "impale"]
