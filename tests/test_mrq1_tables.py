"""Mongoose RuneQuest 1 tables and rulings (seed 004, rules-reference.md E)."""

import pytest

from affray.rules.mrq1 import rulings as R
from affray.rules.mrq1 import tables
from affray.rules.mrq1.rulings import Rulings

F, S, C = "failure", "success", "critical"
DEFAULT = Rulings()


# --------------------------------------------------------------------------- #
# Reaction tables: all 27 cells, written out here from the seed's text
# --------------------------------------------------------------------------- #

DODGE_EXPECTED = {
    (F, F): ("Attack succeeds as normal", {"hit": 1}),
    (F, S): ("Attack fails", {}),
    (F, C): ("Attack fails; attacker Overextended", {"overextended": 1}),
    (S, F): ("Attack succeeds as normal", {"hit": 1}),
    (S, S): ("Attack succeeds but inflicts minimum damage; defender forced to Give Ground",
             {"hit": 1, "minimum_damage": 1, "give_ground": 1}),
    (S, C): ("Attack fails", {}),
    (C, F): ("Attack succeeds and becomes critical hit", {"hit": 1, "critical": 1}),
    (C, S): ("Attack succeeds as normal", {"hit": 1}),
    (C, C): ("Attack succeeds but inflicts minimum damage; defender forced to Give Ground",
             {"hit": 1, "minimum_damage": 1, "give_ground": 1}),
}

PARRY_EXPECTED = {
    (F, F): ("Attack succeeds as normal", {"hit": 1}),
    (F, S): ("Attack succeeds but 2xAP of parrying weapon/shield is deducted from damage",
             {"hit": 1, "parry_ap_halves": 4}),
    (F, C): ("Attack fails; defender may Riposte", {"riposte": 1}),
    (S, F): ("Attack succeeds as normal", {"hit": 1}),
    (S, S): ("Attack succeeds but AP of parrying weapon/shield is deducted from damage",
             {"hit": 1, "parry_ap_halves": 2}),
    (S, C): ("Attack succeeds but 2xAP of parrying weapon/shield is deducted from damage; defender may Riposte",
             {"hit": 1, "parry_ap_halves": 4, "riposte": 1}),
    (C, F): ("Attack succeeds and becomes critical hit", {"hit": 1, "critical": 1}),
    (C, S): ("Attack succeeds but ½ AP of parrying weapon/shield is deducted from damage",
             {"hit": 1, "parry_ap_halves": 1}),
    (C, C): ("Attack succeeds but AP of parrying weapon/shield is deducted from damage",
             {"hit": 1, "parry_ap_halves": 2}),
}

GRAPPLE_EXPECTED = {
    (F, F): ("Grapple fails", {}),
    (F, S): ("Grapple fails", {}),
    (F, C): ("Grapple fails; defender may Riposte", {"riposte": 1}),
    (S, F): ("Grapple succeeds", {"hit": 1, "grapple": 1}),
    (S, S): ("Grapple fails", {}),
    (S, C): ("Grapple fails; defender may Riposte", {"riposte": 1}),
    (C, F): ("Grapple succeeds; attacker may immediately make Immobilise or Throw attempt (attacker's choice)",
             {"hit": 1, "grapple": 1, "follow_up": 1}),
    (C, S): ("Grapple succeeds", {"hit": 1, "grapple": 1}),
    (C, C): ("Grapple fails; defender may Riposte", {"riposte": 1}),
}

CASES = [
    (name, fn, key, outcome, effects)
    for name, fn, expected in (
        ("dodge", tables.dodge, DODGE_EXPECTED),
        ("parry", tables.parry, PARRY_EXPECTED),
        ("grapple", tables.grapple, GRAPPLE_EXPECTED),
    )
    for key, (outcome, effects) in expected.items()
]


@pytest.mark.parametrize(
    "name,fn,key,outcome,effects", CASES, ids=[f"{c[0]}-{c[2][0]}-{c[2][1]}" for c in CASES]
)
def test_reaction_cell(name, fn, key, outcome, effects):
    cell = fn(*key)
    assert cell.outcome == outcome
    full = {k: effects.get(k, 0) for k in tables.EFFECT_KEYS}
    assert cell.effects == full


def test_27_cells():
    assert len(CASES) == 27
    for table in (tables.DODGE, tables.PARRY, tables.GRAPPLE):
        assert set(table) == {(a, d) for a in (F, S, C) for d in (F, S, C)}


def test_fumble_reads_as_failure_on_tables():
    assert tables.parry("fumble", "critical") == tables.parry(F, C)
    assert tables.dodge(S, "fumble") == tables.dodge(S, F)
    with pytest.raises(ValueError):
        tables.dodge("special", F)


def test_grapple_table_ruling():
    assert tables.grapple_table(DEFAULT) is tables.GRAPPLE
    assert tables.grapple_table(Rulings(grapple_table="parry")) is tables.PARRY


@pytest.mark.parametrize(
    "ap,halves,rounding,expected",
    [(6, 1, "down", 3), (6, 2, "down", 6), (6, 4, "down", 12), (5, 1, "down", 2),
     (5, 1, "up", 3), (5, 0, "down", 0), (0, 4, "down", 0)],
)
def test_parry_deduction(ap, halves, rounding, expected):
    assert tables.parry_deduction(ap, halves, Rulings(half_ap_rounding=rounding)) == expected


def test_tables_have_sources():
    for name, src in tables.SOURCES.items():
        assert src.strip(), name


# --------------------------------------------------------------------------- #
# Skill tests
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "roll,skill,expected",
    [
        (1, 65, C), (6, 65, C), (7, 65, S), (65, 65, S), (66, 65, F),
        (98, 65, F), (99, 65, "fumble"), (100, 65, "fumble"),
        (1, 0, S), (5, 0, S), (6, 0, F),  # 01-05 always succeed, no critical at 0
        (9, 9, S), (1, 9, S),  # skill 9: critical score 0
        (1, 10, C), (2, 10, S),
        (95, 200, S), (96, 200, F), (97, 200, F), (98, 200, F), (99, 200, F),
        (100, 200, "fumble"),
        (20, 200, C), (21, 200, S),
        (99, 100, "fumble"), (99, 101, F),  # 99 fumbles iff skill <= 100
    ],
)
def test_skill_test(roll, skill, expected):
    assert tables.skill_test(roll, skill, DEFAULT) == expected


def test_critical_score():
    assert [tables.critical_score(x) for x in (0, 9, 10, 65, 99, 100, 155, -20)] == [0, 0, 1, 6, 9, 10, 15, 0]


def test_fumble_on_99_ruling_off():
    r = Rulings(fumble_on_99=False)
    assert tables.skill_test(99, 50, r) == F
    assert tables.skill_test(100, 50, r) == "fumble"
    assert tables.fumble_min(50, r) == 100
    assert tables.fumble_min(50) == 99
    assert tables.fumble_min(101) == 100


def test_automatic_results_ruling_off():
    r = Rulings(automatic_results=False)
    assert tables.skill_test(3, 0, r) == F
    assert tables.skill_test(97, 200, r) == S
    assert tables.skill_test(100, 200, r) == "fumble"


def test_modifier_and_critical_on():
    # skill 65 with -20: target 45, critical 04 (modified) or 06 (base)
    assert tables.skill_test(5, 65, DEFAULT, modifier=-20) == S
    assert tables.skill_test(4, 65, DEFAULT, modifier=-20) == C
    assert tables.skill_test(6, 65, Rulings(critical_on="base"), modifier=-20) == C
    assert tables.skill_test(46, 65, DEFAULT, modifier=-20) == F
    # a skill pushed below 0 is clamped: only 01-05 succeed
    assert tables.skill_test(5, 20, DEFAULT, modifier=-60) == S
    assert tables.skill_test(6, 20, DEFAULT, modifier=-60) == F


# --------------------------------------------------------------------------- #
# Characteristic tables
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "dex,ca", [(1, 1), (6, 1), (7, 2), (12, 2), (13, 3), (18, 3), (19, 4), (30, 4), (100, 4)]
)
def test_combat_actions(dex, ca):
    assert tables.combat_actions(dex) == ca


def test_combat_actions_below_table():
    with pytest.raises(ValueError):
        tables.combat_actions(0)


@pytest.mark.parametrize(
    "total,dm",
    [
        (1, "-1D8"), (5, "-1D8"), (6, "-1D6"), (10, "-1D6"), (11, "-1D4"), (15, "-1D4"),
        (16, "-1D2"), (20, "-1D2"), (21, ""), (25, ""), (26, "+1D2"), (30, "+1D2"),
        (31, "+1D4"), (35, "+1D4"), (36, "+1D6"), (40, "+1D6"), (41, "+1D8"), (45, "+1D8"),
        (46, "+1D10"), (50, "+1D10"), (51, "+1D12"), (60, "+1D12"), (61, "+2D6"), (70, "+2D6"),
        (71, "+2D8"), (80, "+2D8"), (81, "+2D10"), (90, "+2D10"), (91, "+2D12"), (100, "+2D12"),
        # ruling damage-modifier-above-100
        (101, "+2D12+1D2"), (110, "+2D12+1D2"), (111, "+2D12+1D4"), (121, "+2D12+1D6"),
        (131, "+2D12+1D8"), (141, "+2D12+1D10"), (151, "+3D12"), (160, "+3D12"),
        (161, "+3D12+1D2"), (211, "+4D12"), (221, "+4D12+1D2"),
    ],
)
def test_damage_modifier(total, dm):
    assert tables.damage_modifier(total) == dm


def test_damage_modifier_above_100_grows():
    from affray.dice import parse

    means = []
    for total in range(91, 260, 10):
        d = parse(tables.damage_modifier(total))
        means.append((d.minimum() + d.maximum()) / 2)
    assert means == sorted(means) and len(set(means)) == len(means)


def test_damage_modifier_below_table():
    with pytest.raises(ValueError):
        tables.damage_modifier(0)


LEGS = [1, 2, 3, 4, 5, 6, 7, 8]
ABD = [2, 3, 4, 5, 6, 7, 8, 9]
CHEST = [3, 4, 5, 6, 7, 8, 9, 10]
ARMS = [1, 1, 2, 3, 4, 5, 6, 7]
HEAD = [1, 2, 3, 4, 5, 6, 7, 8]


@pytest.mark.parametrize("band", range(8))
@pytest.mark.parametrize("edge", ["low", "high"])
def test_location_hp_bands(band, edge):
    total = band * 5 + (1 if edge == "low" else 5)
    hp = tables.location_hp(total)
    assert list(hp) == list(tables.LOCATIONS)
    assert hp == {
        "right leg": LEGS[band], "left leg": LEGS[band], "abdomen": ABD[band],
        "chest": CHEST[band], "right arm": ARMS[band], "left arm": ARMS[band],
        "head": HEAD[band],
    }


@pytest.mark.parametrize("total,extra", [(41, 1), (45, 1), (46, 2), (50, 2), (51, 3), (60, 4)])
def test_location_hp_above_40(total, extra):
    hp = tables.location_hp(total)
    assert hp["chest"] == 10 + extra
    assert hp["right arm"] == 7 + extra
    assert hp["head"] == 8 + extra


def test_location_hp_below_table():
    with pytest.raises(ValueError):
        tables.location_hp(0)


# --------------------------------------------------------------------------- #
# Hit locations
# --------------------------------------------------------------------------- #

EXPECTED_LOC = (
    ["right leg"] * 3 + ["left leg"] * 3 + ["abdomen"] * 3 + ["chest"] * 3
    + ["right arm"] * 3 + ["left arm"] * 3 + ["head"] * 2
)


@pytest.mark.parametrize("d20", range(1, 21))
def test_hit_location(d20):
    assert tables.hit_location(d20) == EXPECTED_LOC[d20 - 1]


@pytest.mark.parametrize("bad", [0, 21, -1, True])
def test_hit_location_bad(bad):
    with pytest.raises(ValueError):
        tables.hit_location(bad)


def test_hit_locations_table():
    assert tables.HIT_LOCATIONS == {
        "right leg": (1, 3), "left leg": (4, 6), "abdomen": (7, 9), "chest": (10, 12),
        "right arm": (13, 15), "left arm": (16, 18), "head": (19, 20),
    }


@pytest.mark.parametrize(
    "loc,limb",
    [("right leg", "leg"), ("left leg", "leg"), ("abdomen", ""), ("chest", ""),
     ("right arm", "arm"), ("left arm", "arm"), ("head", ""), ("Right-Arm", "arm"), ("ll", "leg")],
)
def test_limb_of(loc, limb):
    assert tables.limb_of(loc) == limb


def test_limb_of_unknown():
    with pytest.raises(ValueError, match="unknown hit location"):
        tables.limb_of("tail")


# --------------------------------------------------------------------------- #
# Strike rank, modifiers, knockback, wounds
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "dex,int_,ap,expected",
    [(15, 14, 12, 13), (15, 14, 0, 15), (14, 14, 4, 14), (14, 14, 5, 13), (13, 8, 0, 11),
     (13, 8, 9, 10), (13, 8, 10, 9), (10, 10, 35, 3)],
)
def test_strike_rank_modifier(dex, int_, ap, expected):
    assert tables.strike_rank_modifier(dex, int_, ap, DEFAULT) == expected


def test_strike_rank_no_armour_penalty_ruling():
    assert tables.strike_rank_modifier(15, 14, 12, Rulings(strike_rank_armour_penalty="none")) == 15


def test_difficulty():
    assert tables.DIFFICULTY == {
        "very-easy": 60, "easy": 40, "simple": 20, "normal": 0, "difficult": -20,
        "hard": -40, "very-hard": -60, "nearly-impossible": -80,
    }


def test_close_modifiers():
    m = tables.CLOSE_MODIFIERS
    values = {k: v.value for k, v in m.items()}
    assert values == {
        "target-helpless": 0, "target-surprised": 20, "target-prone": 20, "higher-ground": 20,
        "prone": -30, "unstable-ground": -20, "arm-obstructed": -10, "underwater": -40,
        "lower-ground": -20, "partial-darkness": -20, "darkness": -40, "blind": -60,
    }
    assert m["target-helpless"].special == "automatic-critical"
    assert m["lower-ground"].applies == "defence"
    assert all(v.text for v in m.values())
    assert tables.lookup_modifier("Unstable Ground").value == -20
    with pytest.raises(ValueError, match="unknown modifier"):
        tables.lookup_modifier("on-fire")


def test_other_modifier_catalogues():
    assert tables.RANGED_MODIFIERS["hurricane"].special == "automatic-failure"
    assert tables.COMBAT_MODIFIERS["defend"].value == 20
    assert tables.COMBAT_MODIFIERS["precise-attack"].value == -40
    assert all(m.section for m in tables.COMBAT_MODIFIERS.values())


@pytest.mark.parametrize(
    "damage,siz,metres",
    [(0, 10, 0), (9, 10, 0), (10, 10, 0), (11, 10, 1), (14, 10, 1), (15, 10, 2),
     (19, 10, 2), (20, 10, 3), (25, 10, 4), (14, 13, 1)],
)
def test_knockback(damage, siz, metres):
    assert tables.knockback_metres(damage, siz) == metres


def test_knockback_charge_doubles():
    assert tables.knockback_metres(15, 10, charge=True) == 4
    assert tables.knockback_metres(10, 10, charge=True) == 0


@pytest.mark.parametrize(
    "hp,start,expected",
    [(1, 5, "none"), (5, 5, "none"), (0, 5, "minor"), (-1, 5, "serious"), (-5, 5, "serious"),
     (-6, 5, "major"), (-20, 5, "major"), (0, 1, "minor"), (-1, 1, "serious"), (-2, 1, "major")],
)
def test_wound_severity_strict(hp, start, expected):
    assert tables.wound_severity(hp, start, DEFAULT) == expected


def test_wound_severity_inclusive():
    r = Rulings(major_wound_boundary="inclusive")
    assert tables.wound_severity(-4, 5, r) == "serious"
    assert tables.wound_severity(-5, 5, r) == "major"
    assert tables.wound_severity(-1, 1, r) == "major"
    assert tables.wound_severity(0, 1, r) == "minor"


# --------------------------------------------------------------------------- #
# Rulings
# --------------------------------------------------------------------------- #


def test_rulings_defaults():
    r = Rulings()
    assert r.reaction_attacker_roll == "fresh"
    assert r.critical_on == "modified"
    assert r.fumble_on_99 is True
    assert r.automatic_results is True
    assert r.surprise_reactions == "after-own-action"
    assert r.overextended_applies_to == "attacker"
    assert r.grapple_table == "grapple"
    assert r.major_wound_boundary == "strict"
    assert r.parried_critical_keeps_max is True
    assert r.strike_rank_armour_penalty == "ap-div-5"
    assert r.ties == "simultaneous"
    assert r.knockback_after_parry is True
    assert r.fumble_effect == "miss"


def test_rulings_doc_matches_defaults():
    defaults = Rulings().as_mapping()
    assert set(R.RULINGS_DOC) == set(defaults)
    for name, (default, text, source) in R.RULINGS_DOC.items():
        assert default == defaults[name], name
        assert text and source


def test_rulings_round_trip():
    r = R.from_mapping({"reaction-attacker-roll": "reuse", "fumble_on_99": "no", "half-ap-rounding": "up"})
    assert r.reaction_attacker_roll == "reuse"
    assert r.fumble_on_99 is False
    assert R.from_mapping(r.as_mapping()) == r
    assert Rulings.from_mapping({}) == Rulings()
    assert all(isinstance(v, str) for v in r.as_mapping().values())


def test_rulings_unknown_name_lists_valid_names():
    with pytest.raises(ValueError) as e:
        R.from_mapping({"crit_rule": "base"})
    msg = str(e.value)
    assert "\n" not in msg and "crit_rule" in msg and "critical_on" in msg and "fumble_effect" in msg


@pytest.mark.parametrize(
    "mapping", [{"ties": "coin"}, {"fumble_on_99": "maybe"}, {"critical_on": ""}]
)
def test_rulings_bad_value(mapping):
    with pytest.raises(ValueError) as e:
        R.from_mapping(mapping)
    assert "\n" not in str(e.value)
    assert "choose" in str(e.value)


def test_rulings_validated_on_construction():
    with pytest.raises(ValueError):
        Rulings(ties="coin")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Rulings(fumble_on_99="yes")  # type: ignore[arg-type]
