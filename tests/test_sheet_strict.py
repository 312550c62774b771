"""Sheets refuse what they don't know (issue 16, item 3), in all five systems.

The hostile matrix is built from each system's bundled examples and its
msgspec ``Sheet`` struct: at every level of a sheet that decodes as a
struct (the top, characteristics, each weapon, an armour piece, a stat...)

- an unknown key is refused with its path, and with the nearest valid key
  when one is close ("did you mean 'damage'?");
- a misspelt key (a letter doubled) is refused, naming the key it misspells;
- each required key, removed, is named as missing ("missing 'characteristics.STR'");
- each integer key given text says what was expected.

Every message is one line naming the file. Then the near misses of the skills
the rules read, the parts a system requires (a Mythras combat style, an rq3
weapon skill), and a hypothesis property: a random extra key is always
refused, and named.
"""

from __future__ import annotations

import copy
import json
import string
import typing
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from affray.rules import base
from affray.rules.base import RuleError

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "affray" / "examples"
SYSTEMS = ("mrq1", "mythras", "rq3", "rolemaster", "uesrpg")
SHEETS = sorted(p for p in EXAMPLES.glob("*/*")
                if p.parent.name in SYSTEMS and p.suffix in (".toml", ".yaml", ".yml", ".json"))


def raw(path: Path) -> dict:
    return base.read_sheet_data(path)


def sheet_type(key: str) -> type:
    return __import__(f"affray.rules.{key}.sheet", fromlist=["Sheet"]).Sheet


def inner(tp):
    args = typing.get_args(tp)
    if type(None) in args:
        return next(a for a in args if a is not type(None))
    return tp


def is_struct(tp) -> bool:
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


def levels(data, tp, path=""):
    """``(path, node, struct)`` for every table of ``data`` decoded as a struct."""
    tp = inner(tp)
    if is_struct(tp) and isinstance(data, dict):
        yield path, data, tp
        for f in msgspec.structs.fields(tp):
            if f.encode_name in data:
                yield from levels(data[f.encode_name], f.type, f"{path}.{f.encode_name}" if path else f.encode_name)
        return
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (list, tuple) and isinstance(data, list) and args:
        for i, item in enumerate(data):
            yield from levels(item, args[0] if origin is list or args[-1] is Ellipsis else args[min(i, len(args) - 1)],
                              f"{path}[{i}]")
    elif origin is dict and isinstance(data, dict):
        for k, v in data.items():
            yield from levels(v, args[1], f"{path}.{k}")


def node_at(data: dict, path: str):
    """The node of ``data`` at a path made by :func:`levels`."""
    node = data
    for part in path.replace("[", ".[").split("."):
        if not part:
            continue
        node = node[int(part[1:-1])] if part.startswith("[") else node[part]
    return node


def write(tmp_path: Path, data: dict, name: str = "sheet.json") -> Path:
    p = tmp_path / name
    p.write_bytes(msgspec.json.encode(data))
    return p


def refusal(key: str, path: Path) -> str:
    with pytest.raises(RuleError) as e:
        base.get(key).load_sheet(str(path))
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{path}: "), msg
    return msg


def cases(kind: str):
    """One case per struct level (``kind="level"``) of the bundled example
    sheets, or per field of each system's structs (the first example that
    gives it): ``required`` fields, ``int`` fields, any (``misspelt``)."""
    out, seen = [], set()
    for sheet in SHEETS:
        key = sheet.parent.name
        for path, node, struct in levels(raw(sheet), sheet_type(key)):
            if kind == "level":
                if (key, struct, path.split("[")[0] if "[" in path else path) in seen:
                    continue
                seen.add((key, struct, path.split("[")[0] if "[" in path else path))
                out.append(pytest.param(key, sheet, path, None, id=f"{sheet.parent.name}/{sheet.name}:{path or 'top'}"))
                continue
            for f in msgspec.structs.fields(struct):
                if f.encode_name not in node or (key, struct, f.encode_name) in seen:
                    continue
                seen.add((key, struct, f.encode_name))
                wanted = (kind == "required" and f.required) or (kind == "misspelt") or (
                    kind == "int" and inner(f.type) is int)
                if wanted:
                    out.append(pytest.param(key, sheet, path, f.encode_name,
                                            id=f"{sheet.parent.name}/{sheet.name}:{path or 'top'}.{f.encode_name}"))
    return out


def test_every_bundled_example_loads():
    assert len(SHEETS) >= 15
    for sheet in SHEETS:
        base.get(sheet.parent.name).load_sheet(str(sheet))


def refused_after(tmp_path, key: str, sheet: Path, path: str, change) -> str:
    """The refusal of ``sheet`` once ``change(node)`` has edited its table at ``path``."""
    data = raw(sheet)
    change(node_at(data, path))
    return refusal(key, write(tmp_path, data))


def dotted(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


@pytest.mark.parametrize("key,sheet,path,_", cases("level"))
def test_unknown_key_at_every_level_is_refused_with_its_path(tmp_path, key, sheet, path, _):
    msg = refused_after(tmp_path, key, sheet, path, lambda node: node.update(zqxj_extra=1))
    assert f": {dotted(path, 'zqxj_extra')}: unknown key" in msg
    assert "keys here:" in msg and "did you mean" not in msg  # nothing near it: the keys are listed


@pytest.mark.parametrize("key,sheet,path,field", cases("misspelt"))
def test_misspelt_key_names_the_key_it_misspells(tmp_path, key, sheet, path, field):
    wrong = field + field[-1]  # "damage" -> "damagee", "ap" -> "app"
    msg = refused_after(tmp_path, key, sheet, path, lambda node: node.update({wrong: node.pop(field)}))
    assert f": {dotted(path, wrong)}: unknown key; did you mean {field!r}?" in msg


@pytest.mark.parametrize("key,sheet,path,field", cases("required"))
def test_missing_required_part_is_named(tmp_path, key, sheet, path, field):
    msg = refused_after(tmp_path, key, sheet, path, lambda node: node.pop(field))
    assert f"missing {dotted(path, field)!r}; add it to the sheet" in msg


@pytest.mark.parametrize("key,sheet,path,field", cases("int"))
def test_wrong_type_says_what_was_expected(tmp_path, key, sheet, path, field):
    msg = refused_after(tmp_path, key, sheet, path, lambda node: node.update({field: "lots"}))
    assert f": {dotted(path, field)}: expected int, got str" in msg


@pytest.mark.parametrize("key", SYSTEMS)
def test_a_table_where_a_number_belongs_and_a_number_where_a_table_belongs(tmp_path, key):
    sheet = next(s for s in SHEETS if s.parent.name == key)
    data = raw(sheet)
    table = next(f.encode_name for f in msgspec.structs.fields(sheet_type(key))
                 if is_struct(inner(f.type)) and f.encode_name in data)
    data[table] = 5
    assert f": {table}: expected a table, got int" in refusal(key, write(tmp_path, data))
    data = raw(sheet)
    data["name"] = {"first": "x"}
    assert ": name: expected str, got a table" in refusal(key, write(tmp_path, data))


@pytest.mark.parametrize("key", SYSTEMS)
def test_a_dict_value_of_the_wrong_type_is_named_by_its_key(tmp_path, key):
    sheet = next(s for s in SHEETS if s.parent.name == key)
    data = raw(sheet)
    data["skills"] = {**data.get("skills", {}), "Swim": "good"}
    assert ": skills.Swim: expected int, got str" in refusal(key, write(tmp_path, data))


def test_a_table_key_that_is_not_text_is_named(tmp_path):
    p = tmp_path / "x.yaml"
    p.write_text((EXAMPLES / "mrq1" / "broo.yaml").read_text() + "\nlocation_hp: {1: 5}\n")
    assert ": location_hp: every name in this table must be text" in refusal("mrq1", p)


# --------------------------------------------------------------------------- #
# Skills the rules read by name
# --------------------------------------------------------------------------- #

NEAR_MISSES = [
    ("mrq1", "vasana.toml", "Resilience", "Resiliance", "Resilience"),
    ("mrq1", "vasana.toml", "Dodge", "Dodg", "Dodge"),
    ("mythras", "kaelin.toml", "Evade", "Evaed", "Evade"),
    ("mythras", "kaelin.toml", "Endurance", "Endurence", "Endurance"),
    ("rq3", "gorakh.toml", "Dodge", "dodge", "Dodge"),  # rq3 reads skills by their exact name
    ("rq3", "gorakh.toml", "Maneuver", "Manoeuvre", "Maneuver"),
    ("rolemaster", "gruk.toml", "perception", "Perception", "perception"),
    ("rolemaster", "gruk.toml", "acrobatics", "acrobatic", "acrobatics"),
]


@pytest.mark.parametrize("key,name,skill,typo,suggested", NEAR_MISSES, ids=[f"{c[0]}-{c[3]}" for c in NEAR_MISSES])
def test_a_near_miss_of_a_rule_skill_is_refused_with_the_right_spelling(tmp_path, key, name, skill, typo, suggested):
    data = raw(EXAMPLES / key / name)
    data["skills"] = {(typo if k == skill else k): v for k, v in data["skills"].items()}
    msg = refusal(key, write(tmp_path, data))
    assert f": skills.{typo}: not a skill the rules know; did you mean {suggested!r}?" in msg


@pytest.mark.parametrize("key,name", [("mrq1", "vasana.toml"), ("mythras", "kaelin.toml"), ("rq3", "gorakh.toml"),
                                      ("rolemaster", "gruk.toml"), ("uesrpg", "vethis.toml")])
def test_other_skills_are_kept_as_written(tmp_path, key, name):
    data = raw(EXAMPLES / key / name)
    data["skills"] = {**data.get("skills", {}), "Lore (Orcs)": 40, "Swim": 30}
    loaded = base.get(key).load_sheet(str(write(tmp_path, data)))
    assert loaded["skills"]["Lore (Orcs)"] == 40 and loaded["skills"]["Swim"] == 30


def test_mrq1_skill_case_is_free_because_its_rules_read_any_case(tmp_path):
    data = raw(EXAMPLES / "mrq1" / "vasana.toml")
    data["skills"] = {k.lower(): v for k, v in data["skills"].items()}
    assert base.get("mrq1").load_sheet(str(write(tmp_path, data)))["skills"]["dodge"] == 35


def test_the_issue_sheet_typo_resiliance(tmp_path):
    """The GM's evening: ``Resiliance = 50`` joined, and later tested Resilience at 0%."""
    text = (EXAMPLES / "mrq1" / "vasana.toml").read_text().replace("Resilience = 45", "Resiliance = 50")
    p = tmp_path / "vasana.toml"
    p.write_text(text)
    assert "skills.Resiliance: not a skill the rules know; did you mean 'Resilience'?" in refusal("mrq1", p)


# --------------------------------------------------------------------------- #
# Required parts
# --------------------------------------------------------------------------- #


def test_rolemaster_takes_a_system_key_naming_it_and_refuses_another(tmp_path):
    data = raw(EXAMPLES / "rolemaster" / "gruk.toml")
    plain = base.get("rolemaster").load_sheet(str(write(tmp_path, data)))
    assert base.get("rolemaster").load_sheet(str(write(tmp_path, {"system": "rolemaster", **data}))) == plain
    assert "system" not in plain  # not stored: a log's sheet is as before
    msg = refusal("rolemaster", write(tmp_path, {"system": "mrq1", **data}))
    assert ": system: this is a 'mrq1' sheet, not rolemaster" in msg


def test_mythras_sheet_without_combat_styles_is_refused(tmp_path):
    data = raw(EXAMPLES / "mythras" / "kaelin.toml")
    del data["combat_styles"]
    msg = refusal("mythras", write(tmp_path, data))
    assert "weapons[0]: 'Longsword' is in no combat style" in msg and "[[combat_styles]]" in msg


def test_mythras_weapon_left_out_of_every_style_is_refused(tmp_path):
    data = raw(EXAMPLES / "mythras" / "kaelin.toml")
    data["combat_styles"][0]["weapons"] = ["Longsword"]
    assert "weapons[1]: 'Heater Shield' is in no combat style" in refusal("mythras", write(tmp_path, data))


def test_mythras_unarmed_weapons_need_no_style(tmp_path):
    data = raw(EXAMPLES / "mythras" / "grusk.toml")
    assert all("Fist" not in s["weapons"] for s in data["combat_styles"])
    base.get("mythras").load_sheet(str(write(tmp_path, data)))


def test_mythras_style_naming_a_weapon_misspelt_suggests_it(tmp_path):
    data = raw(EXAMPLES / "mythras" / "kaelin.toml")
    data["combat_styles"][0]["weapons"] = ["Longsord", "Heater Shield"]
    msg = refusal("mythras", write(tmp_path, data))
    assert "combat_styles[0].weapons: 'Longsord' is not among the sheet's weapons; did you mean 'Longsword'?" in msg


def test_mythras_spell_skill_must_be_on_the_sheet(tmp_path):
    data = raw(EXAMPLES / "mythras" / "kaelin.toml")
    data["skills"]["Invocation"] = 50
    data["spells"] = [{"name": "Fireblade", "skill": "Invokation"}]
    msg = refusal("mythras", write(tmp_path, data))
    assert "spells[0].skill: 'Invokation' is not among the sheet's skills; did you mean 'Invocation'?" in msg
    data["spells"][0]["skill"] = "invocation"  # the rules read skills in any case
    base.get("mythras").load_sheet(str(write(tmp_path, data)))


def test_rq3_weapon_without_attack_or_parry_is_refused(tmp_path):
    data = raw(EXAMPLES / "rq3" / "gorakh.toml")
    del data["weapons"][0]["attack"], data["weapons"][0]["parry"]
    assert "weapon 'Maul' gives no attack or parry skill" in refusal("rq3", write(tmp_path, data))
    data["weapons"][0]["parry"] = 30  # a parrying-only item is fine
    base.get("rq3").load_sheet(str(write(tmp_path, data)))


# --------------------------------------------------------------------------- #
# Property: a random extra key is always refused, and named
# --------------------------------------------------------------------------- #

KEY_TEXT = st.text(string.ascii_letters + string.digits + "_-", min_size=1, max_size=20)


@settings(max_examples=60)
@given(key=st.sampled_from(SYSTEMS), extra=KEY_TEXT, where=st.sampled_from(["top", "weapon", "characteristics"]),
       fmt=st.sampled_from(["json", "yaml", "toml"]))
def test_a_random_extra_key_is_always_refused_and_named(tmp_path_factory, key, extra, where, fmt):
    sheet = next(s for s in SHEETS if s.parent.name == key and s.suffix == ".toml")
    data = raw(sheet)
    fields = msgspec.structs.fields(sheet_type(key))
    if where == "weapon" and data.get("weapons"):
        node, path, struct = data["weapons"][0], "weapons[0]", inner(typing.get_args(
            next(f.type for f in fields if f.name == "weapons"))[0])
    elif where == "characteristics" and "characteristics" in data:
        node, path, struct = data["characteristics"], "characteristics", next(
            f.type for f in fields if f.name == "characteristics")
    else:
        node, path, struct = data, "", sheet_type(key)
    if extra in base.keys_of(struct) or (extra == "system" and path == ""):
        return  # a key it knows (rolemaster reads a top-level 'system' without storing it)
    node[extra] = 1
    p = tmp_path_factory.mktemp("s") / f"sheet.{fmt}"
    if fmt == "toml":  # no TOML writer here: the key goes on the file's first line, at the top level
        node, path = data, ""
        p.write_text(f"{json.dumps(extra)} = 1\n" + sheet.read_text())
    else:
        p.write_bytes({"json": msgspec.json.encode, "yaml": msgspec.yaml.encode}[fmt](data))
    with pytest.raises(RuleError) as e:
        base.get(key).load_sheet(str(p))
    where_ = f"{path}.{extra}" if path else extra
    assert f": {where_}: unknown key" in str(e.value)


def test_did_you_mean_and_keys_of():
    assert base.did_you_mean("dammage", ["name", "damage"]) == "did you mean 'damage'?"
    assert base.did_you_mean("zzz", ["name", "damage"]) == ""
    assert base.did_you_mean("STRENGTH", ["str"], cutoff=0.3) == "did you mean 'str'?"
    assert base.keys_of(sheet_type("rolemaster"))[:3] == ("name", "hits", "armour")
    assert base.keys_of(int) == ()


def test_check_names_is_exact_only_when_asked():
    base.check_names("x", "skills", {"dodge": 1}, ("Dodge",))
    with pytest.raises(ValueError, match="did you mean 'Dodge'"):
        base.check_names("x", "skills", {"dodge": 1}, ("Dodge",), exact_case=True)
    base.check_names("x", "skills", {"Lore": 1, "Swim": 2}, ("Dodge", "Evade"), exact_case=True)


def test_sheet_problem_without_a_path_keeps_the_message():
    class S(msgspec.Struct, forbid_unknown_fields=True):
        a: int

    data = copy.deepcopy({"a": "x"})
    with pytest.raises(ValueError, match=r"^f\.toml: a: expected int, got str; fix the sheet and try again$"):
        base.decode_sheet(data, S, "f.toml")
    with pytest.raises(ValueError, match=r"^f\.toml: expected a table of sheet fields, got a list"):
        base.decode_sheet([1], S, "f.toml")


# --------------------------------------------------------------------------- #
# Names that point at other parts of the sheet: a typo gets the nearest one
# --------------------------------------------------------------------------- #

REFERENCES = [
    ("mrq1", "vasana.toml", lambda d: d.update(ready=["Broadsord"]), "ready[0]: 'Broadsord' is not a weapon on the sheet",
     "did you mean 'Broadsword'?"),
    ("mythras", "kaelin.toml", lambda d: d.update(ready=["Longsord"]), "ready: 'Longsord' is not among the sheet's weapons",
     "did you mean 'Longsword'?"),
    ("rq3", "vasana.toml", lambda d: d.update(ready=["Broadsord"]), "ready weapon 'Broadsord' is not among the weapons",
     "did you mean 'Broadsword'?"),
    ("rolemaster", "kestrel.toml", lambda d: d.update(ready=["Broadsord"]), "ready names 'Broadsord', which is not one of its weapons",
     "did you mean 'Broadsword'?"),
    ("uesrpg", "vethis.toml", lambda d: d["styles"][0].update(weapons=["Chitin Sord"]),
     "styles.Ashlander Skirmisher.weapons: 'Chitin Sord' is not a weapon or shield of the sheet", "did you mean 'Chitin Sword'?"),
    ("uesrpg", "vethis.toml", lambda d: d["spells"][0].update(school="Destrucion"),
     "spells.Firebite.school: no skill 'Destrucion' in [skills]", "did you mean 'Destruction'?"),
]


@pytest.mark.parametrize("key,name,change,what,hint", REFERENCES, ids=[f"{r[0]}-{r[3].split(':')[0].split(' ')[0]}" for r in REFERENCES])
def test_a_name_that_points_nowhere_suggests_the_nearest(tmp_path, key, name, change, what, hint):
    data = raw(EXAMPLES / key / name)
    change(data)
    msg = refusal(key, write(tmp_path, data))
    assert what in msg and hint in msg


def test_suggestion():
    assert base.suggestion("Longsord", ["Longsword", "Fist"]) == "; did you mean 'Longsword'?"
    assert base.suggestion("Halberd", ["Longsword", "Fist"]) == ""
