"""Mythras sheets: the example characters, derived figures, bad input.

Sources: rules-reference.md B12, B14, B16-B18; seed 001 "Actions in
Combat", "Weapon Size"; the figures are in the example sheets' comments.
"""

from __future__ import annotations

import msgspec
import pytest

from affray.commands.demo import examples_dir
from affray.rules import base
from affray.rules.base import RuleError
from affray.rules.mythras.rulings import Rulings, from_mapping
from affray.rules.mythras.sheet import SheetError, derive, load_sheet, parse_sheet

EX = examples_dir() / "mythras"


def data(name: str) -> dict:
    return msgspec.to_builtins(load_sheet(EX / f"{name}.toml"))


def test_registry_and_alias():
    assert base.get("cfi").key == "mythras"
    assert base.resolve_key("Mythras") == "mythras"
    assert "mythras" in base.available()


def test_kaelin_derived():
    s = load_sheet(EX / "kaelin.toml")
    d = derive(s)
    assert d.action_points == 2
    assert d.initiative == 13 and d.armour_penalty == 3
    assert d.damage_modifier == "+1D2"
    hp = {l.name: (l.hp, l.ap) for l in d.locations}
    assert hp == {"right leg": (6, 2), "left leg": (6, 2), "abdomen": (7, 3), "chest": (8, 3),
                  "right arm": (5, 2), "left arm": (5, 2), "head": (6, 3)}
    assert d.ready == ("Longsword", "Heater Shield")
    assert s.weapon_skill(s.weapon("long")) == ("Legionary", 65)
    assert s.weapon_skill(s.weapon("Fist")) == ("Unarmed", 49)
    assert {"Evade", "Endurance", "Brawn", "Athletics", "Willpower", "Unarmed"} <= set(s.skills)


def test_grusk_derived_natural_armour():
    d = derive(load_sheet(EX / "grusk.toml"))
    assert (d.initiative, d.armour_penalty, d.damage_modifier, d.action_points) == (10, 2, "+1D4", 2)
    hp = {l.name: (l.hp, l.ap) for l in d.locations}
    assert hp["chest"] == (8, 3) and hp["head"] == (6, 1)  # natural 1 + worn 2; natural costs no Initiative
    assert d.ready == ("Maul",)


def test_action_points_ruling():
    s = load_sheet(EX / "kaelin.toml")
    assert derive(s, Rulings(action_points="int-dex")).action_points == 3  # INT+DEX 26 (B18)
    more = parse_sheet({**data("kaelin"), "extra_ap": 1})
    assert derive(more).action_points == 3


@pytest.mark.parametrize(
    "change, fragment",
    [
        ({"weapons": [{"name": "Club", "damage": "1D6", "size": "tiny"}]}, "unknown weapon size"),
        ({"weapons": [{"name": "Club", "damage": "1D6", "size": "small", "traits": ["sharp"]}]}, "unknown trait"),
        ({"weapons": [{"name": "Club", "damage": "lots", "size": "small"}]}, "not a dice expression"),
        ({"combat_styles": [{"name": "X", "skill": 50, "weapons": ["Spear"]}]}, "not among the sheet's weapons"),
        ({"armour": {"tail": 2}}, "unknown location"),
        ({"system": "mrq1"}, "not mythras"),
        ({"skills": {"Evade": 400}}, "0..300"),
    ],
)
def test_bad_sheets_one_line(change, fragment):
    with pytest.raises(SheetError, match=fragment) as err:
        parse_sheet({**data("kaelin"), **change}, "bad.toml")
    assert "\n" not in str(err.value)


def test_load_sheet_through_system_is_rule_error(tmp_path):
    p = tmp_path / "x.toml"
    p.write_text('name = "X"\nsystem = "mythras"\n')
    with pytest.raises(RuleError, match="x.toml"):
        base.get("mythras").load_sheet(str(p))


def test_rulings_named_and_checked():
    assert base.get("mythras").rulings({})["action_points"] == "flat-2"
    assert from_mapping({"major-wound-boundary": "strict"}).major_wound_boundary == "strict"
    with pytest.raises(RuleError, match="unknown mythras ruling"):
        base.get("mythras").rulings({"critical_on": "base"})
    with pytest.raises(RuleError):
        base.get("mythras").rulings({"action_points": "3"})
