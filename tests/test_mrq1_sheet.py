"""Mongoose RuneQuest 1 sheets: loading, validation errors, derived figures."""

import json
from pathlib import Path

import msgspec
import pytest

from affray.rules.mrq1 import sheet as S
from affray.rules.mrq1 import tables
from affray.rules.mrq1.rulings import Rulings

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "mrq1"

MINIMAL = {
    "name": "Tester",
    "characteristics": {"STR": 12, "CON": 12, "SIZ": 12, "INT": 12, "POW": 12, "DEX": 12, "CHA": 12},
    "skills": {"Dodge": 30},
    "weapons": [
        {"name": "Sword", "skill": 50, "damage": "1D8", "ap": 4, "hp": 10},
        {"name": "Shield", "skill": 40, "damage": "1D4", "ap": 6, "hp": 8, "kind": "shield"},
    ],
}


def write(tmp_path, fmt, data):
    p = tmp_path / f"x.{fmt}"
    if fmt == "json":
        p.write_text(json.dumps(data))
    elif fmt == "yaml":
        p.write_bytes(msgspec.yaml.encode(data))
    else:
        p.write_text(to_toml(data))
    return p


def _val(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, str)):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_val(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_val(x)}" for k, x in v.items()) + "}"
    raise TypeError(v)


def to_toml(data):
    """A tiny TOML writer for the test sheets (no tomli-w needed)."""
    lines, tables_, arrays = [], [], []
    for k, v in data.items():
        if isinstance(v, dict):
            tables_.append((k, v))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            arrays.append((k, v))
        else:
            lines.append(f"{json.dumps(k)} = {_val(v)}")
    for k, v in tables_:
        lines.append(f"[{json.dumps(k)}]")
        lines += [f"{json.dumps(kk)} = {_val(vv)}" for kk, vv in v.items()]
    for k, items in arrays:
        for item in items:
            lines.append(f"[[{json.dumps(k)}]]")
            lines += [f"{json.dumps(kk)} = {_val(vv)}" for kk, vv in item.items()]
    return "\n".join(lines) + "\n"


def with_change(path, value):
    data = json.loads(json.dumps(MINIMAL))
    *head, last = path
    node = data
    for k in head:
        node = node[k]
    if value is DELETE:
        del node[last]
    else:
        node[last] = value
    return data


DELETE = object()

ERRORS = [
    (("characteristics", "DEX"), "high", "characteristics.DEX: expected int, got str"),
    (("characteristics", "DEX"), DELETE, "missing 'characteristics.DEX'"),
    (("characteristics", "LUCK"), 3, "characteristics.LUCK: unknown key (keys here: STR, CON, SIZ, INT, POW, DEX, CHA)"),
    (("characteristics", "DEX"), 0, "characteristics.DEX: 0 is out of range 1..100"),
    (("characteristics", "STR"), 101, "characteristics.STR: 101 is out of range 1..100"),
    (("skills", "Dodge"), "x", "skills.Dodge: expected int, got str"),
    (("skills", "Dodge"), 301, "skills.Dodge: 301 is out of range 0..300"),
    (("weapons", 0, "damage"), "1X8", "weapons[0].damage: '1X8' is not dice"),
    (("weapons", 1, "ap"), "6", "weapons[1].ap: expected int, got str"),
    (("weapons", 1, "name"), "sword", "weapons[1].name: 'sword' is also weapons[0]"),
    (("weapons", 0, "kind"), "laser", "weapons[0].kind: 'laser' is not one of"),
    (("weapons", 0, "hands"), 3, "weapons[0].hands: 3 is out of range 1..2"),
    (("weapons", 0, "colour"), "red", "weapons[0].colour: unknown key (keys here: name, skill"),
    (("armour",), {"tail": 2}, "armour.tail: unknown hit location"),
    (("armour",), {"chest": -1}, "armour.chest: -1 is out of range 0..100"),
    (("armour",), {"chest": 2, "Chest": 3}, "armour.Chest: chest is given twice"),
    (("movement",), "fast", "movement: expected int, got str"),
    (("ready",), ["Axe"], "ready[0]: 'Axe' is not a weapon on the sheet"),
    (("damage_modifier",), "lots", "damage_modifier: 'lots' is not dice"),
    (("location_hp",), {"head": 0}, "location_hp.head: 0 is out of range 1..100"),
    (("system",), "rq3", "system: this is a 'rq3' sheet, not mrq1"),
    (("nickname",), "T", "nickname: unknown key; did you mean 'name'?"),
]


@pytest.mark.parametrize("fmt", ["toml", "yaml", "json"])
@pytest.mark.parametrize("path,value,expected", ERRORS, ids=[e[2].split(":")[0] + f"-{i}" for i, e in enumerate(ERRORS)])
def test_sheet_errors_name_the_field(tmp_path, fmt, path, value, expected):
    p = write(tmp_path, fmt, with_change(path, value))
    with pytest.raises(S.SheetError) as e:
        S.load_sheet(p)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"{p}: ")
    assert expected in msg
    assert msg.rstrip().endswith("try again") or "; " in msg
    assert isinstance(e.value, ValueError)


def test_sheet_error_example_wording(tmp_path):
    p = write(tmp_path, "toml", with_change(("characteristics", "DEX"), "high"))
    with pytest.raises(S.SheetError) as e:
        S.load_sheet(p)
    assert str(e.value) == f"{p}: characteristics.DEX: expected int, got str; fix the sheet and try again"


@pytest.mark.parametrize(
    "name,content,expected",
    [
        ("bad.toml", "x = [", "not valid TOML"),
        ("bad.yaml", "a: [", "not valid YAML"),
        ("bad.json", "{", "not valid JSON"),
        ("list.json", "[1, 2]", "expected a table of sheet fields, got a list"),
        ("scalar.yml", "hello", "expected a table of sheet fields, got str"),
        ("sheet.txt", "", "unknown sheet format '.txt'"),
    ],
)
def test_sheet_syntax_errors(tmp_path, name, content, expected):
    p = tmp_path / name
    p.write_text(content)
    with pytest.raises(S.SheetError) as e:
        S.load_sheet(p)
    assert expected in str(e.value)
    assert "\n" not in str(e.value)


def test_missing_file(tmp_path):
    with pytest.raises(S.SheetError, match="no such file"):
        S.load_sheet(tmp_path / "nope.toml")


def test_ready_too_many_hands(tmp_path):
    data = json.loads(json.dumps(MINIMAL))
    data["weapons"][0]["hands"] = 2
    data["ready"] = ["Sword", "Shield"]
    with pytest.raises(S.SheetError, match="ready: Sword, Shield need 3 hands"):
        S.load_sheet(write(tmp_path, "json", data))


# --------------------------------------------------------------------------- #
# Derived figures
# --------------------------------------------------------------------------- #


def test_minimal_sheet_defaults_and_derive(tmp_path):
    sh = S.load_sheet(write(tmp_path, "toml", MINIMAL))
    assert sh.movement == 8 and sh.hero_points == 0 and sh.system == "mrq1"
    d = S.derive(sh)
    assert d.combat_actions == 2 and d.reactions == 2
    assert d.damage_modifier == ""  # STR+SIZ 24
    assert d.strike_rank_mod == 12
    assert d.ready == ("Sword", "Shield")
    assert [loc.name for loc in d.locations] == list(tables.LOCATIONS)
    assert {loc.name: loc.hp for loc in d.locations} == tables.location_hp(24)
    assert all(loc.ap == 0 for loc in d.locations)
    assert [(loc.low, loc.high) for loc in d.locations] == list(tables.HIT_LOCATIONS.values())
    assert [loc.limb for loc in d.locations] == ["leg", "leg", "", "", "arm", "arm", ""]


def test_overrides_and_normalised_names(tmp_path):
    data = json.loads(json.dumps(MINIMAL))
    data.update(
        combat_actions=4,
        damage_modifier="1d4",
        strike_rank=20,
        location_hp={"Head": 9},
        armour={"Right-Leg": 2, "chest": 4},
        natural_armour={"chest": 1},
        ready=["shield"],
    )
    sh = S.load_sheet(write(tmp_path, "yaml", data))
    assert sh.armour == {"right leg": 2, "chest": 4}
    d = S.derive(sh)
    assert d.combat_actions == 4 and d.reactions == 4
    assert d.damage_modifier == "+1D4"
    assert d.strike_rank_mod == 20
    locs = {loc.name: loc for loc in d.locations}
    assert locs["head"].hp == 9
    assert locs["chest"].hp == tables.location_hp(24)["chest"]
    assert locs["chest"].ap == 5 and locs["right leg"].ap == 2
    assert d.worn_ap_total == 6
    assert d.ready == ("Shield",)


def test_natural_armour_has_no_strike_rank_penalty(tmp_path):
    data = json.loads(json.dumps(MINIMAL))
    data["natural_armour"] = {loc: 3 for loc in tables.LOCATIONS}
    d = S.derive(S.load_sheet(write(tmp_path, "json", data)))
    assert d.strike_rank_mod == 12
    data["armour"] = data.pop("natural_armour")
    d = S.derive(S.load_sheet(write(tmp_path, "json", data)))
    assert d.strike_rank_mod == 12 - 21 // 5
    d = S.derive(S.load_sheet(write(tmp_path, "json", data)), Rulings(strike_rank_armour_penalty="none"))
    assert d.strike_rank_mod == 12


def test_default_ready_two_handed_first_weapon(tmp_path):
    data = json.loads(json.dumps(MINIMAL))
    data["weapons"][0]["hands"] = 2
    assert S.derive(S.load_sheet(write(tmp_path, "json", data))).ready == ("Sword",)
    data["weapons"] = [{"name": "Claw", "skill": 40, "damage": "1D6", "ap": 0, "hp": 0, "kind": "natural"}]
    assert S.derive(S.load_sheet(write(tmp_path, "json", data))).ready == ()


def test_sheet_lookups(tmp_path):
    sh = S.load_sheet(write(tmp_path, "toml", MINIMAL))
    assert sh.skill("dodge") == 30
    assert sh.skill("Resilience", 0) == 0
    with pytest.raises(ValueError, match="no skill"):
        sh.skill("Resilience")
    assert sh.weapon("sw").name == "Sword"
    assert sh.weapon("SHIELD").name == "Shield"
    with pytest.raises(ValueError, match="not on the sheet"):
        sh.weapon("axe")


def test_parse_sheet_round_trips_builtins():
    sh = S.load_sheet(EXAMPLES / "vasana.toml")
    again = S.parse_sheet(msgspec.to_builtins(sh), "stored")
    assert again == sh


# --------------------------------------------------------------------------- #
# Example sheets
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("name", ["vasana.toml", "broo.toml", "broo.yaml", "gorp.json"])
def test_examples_load(name):
    sh = S.load_sheet(EXAMPLES / name)
    d = S.derive(sh)
    ch = sh.characteristics
    # derived values come out of the tables (no overrides in the samples)
    assert sh.combat_actions is None and sh.damage_modifier is None
    assert sh.strike_rank is None and sh.location_hp is None
    assert d.combat_actions == tables.combat_actions(ch.DEX)
    assert d.damage_modifier == tables.damage_modifier(ch.STR + ch.SIZ)
    assert {loc.name: loc.hp for loc in d.locations} == tables.location_hp(ch.CON + ch.SIZ)
    assert d.ready


def test_vasana_figures():
    d = S.derive(S.load_sheet(EXAMPLES / "vasana.toml"))
    assert (d.combat_actions, d.damage_modifier, d.strike_rank_mod) == (3, "+1D4", 13)
    assert d.ready == ("Broadsword", "Target Shield")
    sh = S.load_sheet(EXAMPLES / "vasana.toml")
    assert sh.weapon("broadsword").damage == "1D8"
    assert (sh.weapon("broadsword").ap, sh.weapon("broadsword").hp) == (4, 10)


def test_broo_figures_and_formats_agree():
    toml = S.load_sheet(EXAMPLES / "broo.toml")
    assert S.load_sheet(EXAMPLES / "broo.yaml") == toml
    d = S.derive(toml)
    assert (d.combat_actions, d.damage_modifier, d.strike_rank_mod) == (3, "+1D2", 10)
    assert toml.weapon("shortspear").impaling is True
    assert d.ready == ("Shortspear", "Target Shield")


def test_gorp_figures():
    d = S.derive(S.load_sheet(EXAMPLES / "gorp.json"))
    assert (d.combat_actions, d.damage_modifier, d.strike_rank_mod) == (3, "-1D2", 11)
    assert d.ready == ("Club",)
