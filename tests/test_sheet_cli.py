"""``affray sheet check FILE [--system KEY]`` and ``affray sheet format``
through typer's CliRunner (issue 16, item 3), and the README's sheet
reference, which must be the text generated from the sheet structs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from affray.cli import sheetdoc
from affray.cli.app import app
from affray.rules import base

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "src" / "affray" / "examples"
SYSTEMS = ("mrq1", "mythras", "rq3", "rolemaster", "uesrpg")  # examples/datasette holds Datasette metadata, not a sheet
SHEETS = sorted(p for p in EXAMPLES.glob("*/*")
                if p.parent.name in SYSTEMS and p.suffix in (".toml", ".yaml", ".yml", ".json"))
runner = CliRunner()


def check(*args: str):
    return runner.invoke(app, ["sheet", "check", *args])


def error_line(result, *fragments: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    return lines[0]


@pytest.mark.parametrize("sheet", SHEETS, ids=[f"{p.parent.name}/{p.name}" for p in SHEETS])
def test_every_example_checks_ok_and_is_summarised(sheet):
    r = check(str(sheet))
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"OK: {sheet}: a {sheet.parent.name} sheet ({base.available()[sheet.parent.name]})"
    labels = [line.split(":")[0] for line in lines[1:]]
    for label in ("name", "in hand", "hit locations", "derived"):
        assert label in labels, (label, lines)


def test_the_summary_of_kaelin():
    r = check(str(EXAMPLES / "mythras" / "kaelin.toml"))
    assert r.exit_code == 0
    out = r.stdout.splitlines()
    assert "name: Kaelin" in out
    assert "characteristics: STR 15, CON 13, SIZ 14, DEX 14, INT 12, POW 11, CHA 10" in out
    assert "combat styles: Legionary (skill 65)" in out
    assert "in hand: Longsword, Heater Shield" in out
    # B14: CON+SIZ 27 -> chest 8, head 6; worn AP 3 on the chest
    assert any(line.startswith("hit locations: ") and "chest 8 HP AP 3" in line and "head 6 HP AP 3" in line for line in out)
    # flat 2 Action Points; Initiative ceil((14+12)/2) = 13; highest worn AP 3; STR+SIZ 29 -> +1D2
    assert "derived: Action Points 2, movement 6 m, Initiative 13, armour penalty 3, damage modifier +1D2" in out


def test_the_summary_of_gorakh_gives_strike_ranks():
    r = check(str(EXAMPLES / "rq3" / "gorakh.toml"))
    out = r.stdout.splitlines()
    assert "derived: movement 3 m, total HP 16, damage modifier +1D6, DEX SR 3, SIZ SR 1" in out
    assert "armour: head [cuirboilli helm (ap 3)], chest [cuirboilli (ap 3), quilting (ap 2)], abdomen [cuirboilli (ap 3), quilting (ap 2)]" in out


def test_the_summary_of_vasana_gives_combat_actions_and_strike_rank():
    out = check(str(EXAMPLES / "mrq1" / "vasana.toml")).stdout.splitlines()
    assert "derived: Combat Actions 3, Reactions 3, movement 8 m, damage modifier +1D4, Strike Rank modifier 13, worn AP total 12" in out


def test_uesrpg_shows_its_one_hp_pool_and_armour_places():
    out = check(str(EXAMPLES / "uesrpg" / "vethis.toml")).stdout.splitlines()
    assert "hit locations: HP 18, body AP 2, right leg AP 1, left leg AP 1, right arm AP 2, left arm AP 2, head AP 1" in out
    assert "derived: Action Points 3, HP 18, Wound Threshold 10, initiative rating 10" in out


def test_a_rolemaster_sheet_names_no_system_and_is_guessed():
    assert "system" not in base.read_sheet_data(EXAMPLES / "rolemaster" / "gruk.toml")
    r = check(str(EXAMPLES / "rolemaster" / "gruk.toml"))
    assert r.exit_code == 0 and "a rolemaster sheet" in r.stdout and "hit locations: body 55 HP" in r.stdout


def test_a_typo_is_one_line_naming_the_key_and_exit_2(tmp_path):
    p = tmp_path / "kaelin.toml"
    p.write_text((EXAMPLES / "mythras" / "kaelin.toml").read_text().replace('damage = "1D8"', 'dammage = "1D8"'))
    error_line(check(str(p)), f"{p}: weapons[0].dammage: unknown key; did you mean 'damage'?")


def test_a_skill_typo_is_named_with_the_right_spelling(tmp_path):
    p = tmp_path / "vasana.toml"
    p.write_text((EXAMPLES / "mrq1" / "vasana.toml").read_text().replace("Resilience = 45", "Resiliance = 50"))
    error_line(check(str(p)), "skills.Resiliance", "did you mean 'Resilience'?")


def test_a_sheet_that_names_no_system_and_fits_none_asks_for_system(tmp_path):
    p = tmp_path / "x.toml"
    p.write_text('name = "X"\n')
    error_line(check(str(p)), "names no system and no system accepts it", "pass --system KEY")
    error_line(check(str(p), "--system", "rq3"), f"{p}: missing 'characteristics'")


def test_system_option_takes_aliases_and_refuses_a_contradiction():
    sheet = str(EXAMPLES / "mythras" / "kaelin.toml")
    assert check(sheet, "--system", "cfi").exit_code == 0
    error_line(check(sheet, "-s", "rq3"), "the sheet says system = 'mythras', not rq3")
    error_line(check(sheet, "--system", "gurps"), "unknown system 'gurps'")


def test_an_unknown_system_key_in_the_sheet(tmp_path):
    p = tmp_path / "x.toml"
    p.write_text('name = "X"\nsystem = "gurps"\n')
    error_line(check(str(p)), f"{p}: system: unknown system 'gurps'")


@pytest.mark.parametrize("name,content,fragment", [
    ("missing.toml", None, "cannot read the file"),
    ("x.txt", "name = 1", "unknown sheet format '.txt'"),
    ("bad.toml", "name = [", "not valid"),
    ("list.json", "[1, 2]", "expected a table of sheet fields"),
])
def test_files_that_are_not_sheets(tmp_path, name, content, fragment):
    p = tmp_path / name
    if content is not None:
        p.write_text(content)
    error_line(check(str(p)), fragment)


def test_hostile_text_in_a_sheet_is_not_printed_raw(tmp_path):
    p = tmp_path / "x.json"
    text = (EXAMPLES / "mrq1" / "gorp.json").read_text()
    p.write_text(text.replace('"name": "Gorp"', '"name": "Gorp\\u001b[2J\\u202e"'))
    r = check(str(p))
    assert r.exit_code == 0
    assert "\x1b" not in r.stdout and "\u202e" not in r.stdout


def test_json_summary():
    r = check(str(EXAMPLES / "rq3" / "gorakh.toml"), "--json")
    assert r.exit_code == 0
    data = json.loads(r.stdout)
    assert (data["system"], data["name"], data["in_hand"], data["movement_m"]) == ("rq3", "Gorakh", ["Maul"], 3)
    assert data["derived"] == {"total HP": 16, "damage modifier": "+1D6", "DEX SR": 3, "SIZ SR": 1}
    assert {"name": "chest", "hp": 8, "ap": 5} in data["locations"]
    assert data["sheet"]["weapons"][0]["attack"] == 60
    error_line(check(str(EXAMPLES / "rq3" / "gorakh.toml"), "--json", "--system", "mythras"), "not mythras")


def test_no_arguments_shows_help():
    r = runner.invoke(app, ["sheet"])
    assert "check" in r.stdout and "format" in r.stdout


# --------------------------------------------------------------------------- #
# The reference: generated from the structs, and the README holds it
# --------------------------------------------------------------------------- #


def test_every_sheet_key_is_described():
    assert sheetdoc.undocumented() == [], (
        "describe these keys in affray/cli/sheetdoc.py DOCS, then run 'python -m affray.cli.sheetdoc README.md'")


def test_the_readme_holds_the_generated_reference():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start, end = readme.index(sheetdoc.BEGIN), readme.index(sheetdoc.END) + len(sheetdoc.END)
    assert readme[start:end] == sheetdoc.references(), "run 'python -m affray.cli.sheetdoc README.md'"


@pytest.mark.parametrize("key", ["mrq1", "mythras", "rq3", "rolemaster", "uesrpg"])
def test_the_reference_lists_every_key_with_type_default_and_requiredness(key):
    import msgspec

    text = sheetdoc.reference(key)
    for struct in sheetdoc.structs_of(sheetdoc.sheet_module(key).Sheet):
        where = "the sheet's top level" if struct.__name__ == "Sheet" else f"a {struct.__name__} table"
        section = text.split(f"Keys of {where}:")[1].split("Keys of ")[0]
        for f in msgspec.structs.fields(struct):
            row = next((line for line in section.splitlines() if line.startswith(f"| `{f.encode_name}` |")), None)
            assert row is not None, (key, struct.__name__, f.encode_name)
            assert f"| {'yes' if f.required else 'no'} |" in row
    assert f"examples/{key}/{sheetdoc.EXAMPLES[key]}" in text and "```toml" in text


def test_type_words():
    assert sheetdoc.type_words(int) == "integer"
    assert sheetdoc.type_words(dict[str, int]) == "table of name = integer"
    assert sheetdoc.type_words(list[str] | None) == "list of text (optional)"
    assert sheetdoc.type_words(tuple[int, int] | None) == "[integer, integer] (optional)"


def test_sheet_format_prints_one_system_or_all():
    one = runner.invoke(app, ["sheet", "format", "--system", "mythras"])
    assert one.exit_code == 0 and one.stdout.startswith("#### `mythras` sheets") and "| `combat_styles` |" in one.stdout
    every = runner.invoke(app, ["sheet", "format"])
    assert every.exit_code == 0 and every.stdout.strip() == sheetdoc.references()
    error_line(runner.invoke(app, ["sheet", "format", "--system", "nope"]), "unknown system 'nope'")
