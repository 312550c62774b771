"""rolemaster sheets (issue 13 "Sheets"): stats with bonuses, OB per
weapon, DB with the Quickness part kept apart (rules-reference.md A5),
hits, armour type, skills, each weapon's table and fumble range; TOML,
YAML and JSON; one-line errors naming the file and the field."""

from __future__ import annotations

import json

import pytest

from affray.commands.demo import examples_dir
from affray.rules.base import RuleError
from affray.rules.rolemaster.sheet import Sheet, SheetError, default_ready, load_sheet, locations, parse_sheet

from rolemaster_fight import RM, sheet

EX = examples_dir() / "rolemaster"


def test_sample_sheets_load_with_derived_figures():
    k = load_sheet(EX / "kestrel.toml")
    assert isinstance(k, Sheet) and k.hits == 62 and k.armour == "soft"
    assert k.stats.quickness.bonus == 10 and k.quickness_db == 30  # 3 x Qu bonus, kept apart from db
    assert k.weapon("broad").ob == 70 and k.weapon("Target").db == 20
    assert default_ready(k) == ("Broadsword", "Target Shield")
    assert locations(k)[0].name == "body" and locations(k)[0].hp == 62
    g = load_sheet(EX / "gruk.toml")
    assert default_ready(g) == ("Club",) and g.skill("perception") == 15 and g.skill("swim") == 0


def test_yaml_and_json_sheets(tmp_path):
    data = sheet("gruk")
    (tmp_path / "g.json").write_text(json.dumps(data))
    yaml = "name: Gob\nhits: 20\narmour: none\nstats:\n  quickness: {value: 90, bonus: 10}\n" \
           "weapons:\n  - {name: Knife, ob: 30, table: sample-club, fumble: [1, 2]}\n"
    (tmp_path / "g.yaml").write_text(yaml)
    assert load_sheet(tmp_path / "g.json").hits == 55
    gob = load_sheet(tmp_path / "g.yaml")
    assert gob.weapons[0].fumble == (1, 2) and gob.quickness_db == 30


def test_relative_tables_are_made_absolute(tmp_path):
    (tmp_path / "s.toml").write_text('name = "A"\nhits = 5\narmour = "none"\ntables = "mine"\n'
                                     '[[weapons]]\nname = "Axe"\nob = 10\ntable = "t/axe.csv"\n')
    s = load_sheet(tmp_path / "s.toml")
    assert s.tables == str((tmp_path / "mine").resolve())
    assert s.weapons[0].table == str((tmp_path / "t" / "axe.csv").resolve())


@pytest.mark.parametrize("changes,fragment", [
    ({"hits": 0}, "hits must be at least 1"),
    ({"hits": "many"}, "hits"),
    ({"stats": {"agility": {"bonus": "high"}}}, "stats.agility.bonus"),
    ({"weapons": [{"name": "X", "kind": "laser", "table": "t"}]}, "kind 'laser'"),
    ({"weapons": [{"name": "X", "table": "t", "fumble": [5, 2]}]}, "fumble is [LOW, HIGH]"),
    ({"weapons": [{"name": "X", "table": "t"}, {"name": "x", "table": "t"}]}, "share a name"),
    ({"ready": ["Spear"]}, "ready names 'Spear'"),
    ({"colour": "red"}, "colour"),
])
def test_bad_sheets_give_one_line(changes, fragment):
    data = sheet("gruk")
    data.update(changes)
    with pytest.raises(SheetError) as info:
        parse_sheet(data, "gruk.toml")
    msg = str(info.value)
    assert "\n" not in msg and fragment in msg and msg.startswith("gruk.toml")


def test_system_load_sheet_errors_are_rule_errors(tmp_path):
    with pytest.raises(RuleError, match="cannot read"):
        RM.load_sheet(str(tmp_path / "none.toml"))
    (tmp_path / "x.txt").write_text("")
    with pytest.raises(RuleError, match="unknown sheet format"):
        RM.load_sheet(str(tmp_path / "x.txt"))
    (tmp_path / "b.toml").write_text("name = ")
    with pytest.raises(RuleError, match="not valid"):
        RM.load_sheet(str(tmp_path / "b.toml"))
