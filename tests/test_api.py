"""The documented Python API, ``affray.api`` (issue 16, item 8): the README's
example runs as it is; each call does what the CLI verb does (same events,
same log); errors are the CLI's one-line errors, with nothing appended; every
public name has a docstring with its shapes and errors."""

from __future__ import annotations

import importlib
import inspect
import os
import re
import tomllib
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from affray import api
from affray.errors import AffrayError
from affray.store import UnknownEncounter

from conftest import BROO, SEED, VASANA, raw_events

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _readme_example() -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Python API"):text.index("## Threat model")]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    return blocks[0]


def test_the_readme_example_runs_a_whole_fight(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    exec(compile(_readme_example(), "README.md (Python API)", "exec"), {"__name__": "readme"})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("heroes win in round ")
    assert {line.split()[0] for line in printed[1:]} == {"Vasana", "Broo"}
    markdown = (tmp_path / "ford.md").read_text(encoding="utf-8")
    assert "## As it stands" in markdown and "Dice seed commitment" in markdown
    # the scripted fight is an ordinary log: the CLI reads and verifies it
    from typer.testing import CliRunner

    from affray.cli.app import app

    result = CliRunner().invoke(app, ["--db", str(tmp_path / "ford.db"), "-e", "ambush-at-the-ford", "verify", "--dice"])
    assert result.exit_code == 0, result.output


@pytest.fixture
def log(tmp_path):
    with api.open_log(tmp_path / "api.db") as store:
        yield store


@pytest.fixture
def ford(log):
    fight = api.new_encounter(log, "Ford", seed=bytes.fromhex(SEED), actor="sam")
    fight.join(VASANA, side="heroes")
    fight.join(BROO, side="broo", name="Broo 1")
    fight.start(dice="7,3")
    return fight


def test_the_api_writes_what_the_cli_writes(ford, cli):
    cli.ok("--as", "sam", "new", "Ford", "--seed", SEED)
    cli.ok("join", VASANA, "--side", "heroes", "--as", "sam")
    cli.ok("join", BROO, "--side", "broo", "--name", "Broo 1", "--as", "sam")
    cli.ok("start", "--dice", "7,3", "--as", "sam")
    for fight_step, cli_step in [
        (lambda: ford.attack("vasana", "broo1", mods=["-10:mud"], dice="34"),
         ("attack", "vasana", "broo1", "--mod", "-10:mud", "--dice", "34")),
        (lambda: ford.react("broo1", "parry", dice="71,34"), ("react", "broo1", "parry", "--dice", "71,34")),
        (lambda: ford.roll(), ("roll",)),
        (lambda: ford.note("the ford is slippery"), ("note", "the ford is slippery")),
        (lambda: ford.undo(), ("undo",)),
        (lambda: ford.redo(), ("redo",)),
    ]:
        fight_step()
        cli.ok(*cli_step, "--as", "sam")
    keys = ("version", "command_id", "type", "data", "actor")
    mine = [tuple(e[k] for k in keys) for e in raw_events(Path(ford.log.path), "ford")]
    theirs = [tuple(e[k] for k in keys) for e in raw_events(cli.db, "ford")]
    assert mine == theirs


def test_outcomes_states_and_pending(ford):
    out = ford.attack("vasana", "broo1", dice="34")
    assert out.encounter_id == "ford" and out.records[0].type == "command-issued"
    assert out.state.version == out.records[-1].version
    (step,) = ford.pending()
    assert step["who"] == "broo1" and step["verb"] == "react" and "parry" in step["options"]
    assert [d["expr"] for d in step["dice"]] == ["1D100", "1D100"]
    assert ford.state_json()["waiting_for"][0]["who"] == "broo1"
    before = ford.state()
    ford.react("broo1", "none")
    ford.roll(dice="4,1,11")
    assert ford.state(version=before.version).version == before.version
    assert ford.state(at="1.1").step == 1
    assert ford.state().combatants["broo1"] != before.combatants["broo1"]


def test_undo_redo_rewind_and_close(ford):
    noted = ford.note("one")
    undone = ford.undo()
    assert undone.records[0].event.command_id == noted.records[0].command_id
    assert [r.type for r in undone.records] == ["command-retracted"]
    ford.redo()
    ford.attack("vasana", "broo1", dice="34")
    ford.rewind("1.0")
    assert ford.state().pending[0].who == "vasana"
    ford.close("done")
    assert ford.state().phase == "closed" and ford.verify(dice=True).code == 0


def test_fight_finds_an_encounter(log, ford):
    assert api.fight(log).encounter_id == "ford"
    assert api.fight(log, "ford", actor="kim").actor == "kim"
    with pytest.raises(UnknownEncounter):
        api.fight(log, "nope")


def test_issue_takes_any_command(ford):
    ford.issue(api.commands.SetHitPoints(who="broo1", location="chest", hp=2, reason="a weak potion"))
    chest = next(l for l in ford.state().combatants["broo1"].locations if l.name == "chest")
    assert chest.hp == 2


@pytest.mark.parametrize("fmt", ["markdown", "bbcode", "discord", "html", "jsonl"])
def test_export_is_what_affray_export_writes(ford, tmp_path, fmt):
    from typer.testing import CliRunner

    from affray.cli.app import app

    ford.attack("vasana", "broo1", dice="34")
    text = ford.export(fmt)
    result = CliRunner().invoke(app, ["--db", ford.log.path, "export", "--format", fmt])
    assert result.exit_code == 0 and result.stdout == text
    assert ford.export(fmt, view="record") != "" and ford.export(fmt, rounds=(1, 1))


def test_head_and_verify_against_it(ford):
    version, hash_ = ford.head()
    ford.note("later")
    verdict = ford.verify(against=f"{version}:{hash_}")
    assert verdict.code in (0, 4) and not verdict.problems
    assert verdict.data()["encounters"][0]["encounter"] == "ford"


def _count(path: str) -> int:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT count(*) FROM events").fetchone()[0]


@pytest.mark.parametrize(
    "call,error,fragment",
    [
        (lambda f: f.attack("broo1", "vasana"), api.RuleError, "turn"),
        (lambda f: f.attack("vasana", "nobody"), api.RuleError, "nobody"),
        (lambda f: f.attack("vasana", "broo1", mods=["bad"]), api.UserError, "modifier"),
        (lambda f: f.attack("vasana", "broo1", dice="0"), AffrayError, "1–100"),
        (lambda f: f.export("pdf"), api.UserError, "unknown format"),
        (lambda f: f.export("markdown", view="nope"), api.UserError, "unknown view"),
        (lambda f: f.state(at="9.9"), api.UserError, "round"),
        (lambda f: f.state(version=99999), api.UserError, "version"),
        (lambda f: f.rewind("9.9"), api.RuleError, "round"),
        (lambda f: f.join("missing.toml", side="x"), api.RuleError, "missing.toml"),
    ],
)
def test_errors_are_the_cli_one_liners_and_append_nothing(ford, call, error, fragment):
    before = _count(ford.log.path)
    with pytest.raises(error) as raised:
        call(ford)
    assert fragment.lower() in str(raised.value).lower()
    assert isinstance(raised.value, AffrayError) and raised.value.exit_code == 2
    assert "\n" not in str(raised.value).strip()
    assert _count(ford.log.path) == before


def test_new_encounter_refuses_what_new_refuses(log):
    for kwargs, fragment in [({"system": "dnd5e"}, "dnd5e"), ({"encounter_id": "bad id"}, "must be letters"),
                             ({"rulings": {"nope": "1"}}, "nope")]:
        with pytest.raises(api.RuleError, match=fragment):
            api.new_encounter(log, "Ford", **kwargs)
    assert log.encounter_ids() == []


def test_open_log_must_exist(tmp_path):
    from affray.store import DatabaseMissing

    with pytest.raises(DatabaseMissing):
        api.open_log(tmp_path / "none.db", must_exist=True)


def test_every_public_name_is_documented():
    assert api.__doc__ and "Errors" in api.__doc__
    for name in api.__all__:
        assert getattr(api, name).__doc__, name
    for name, member in inspect.getmembers(api.Fight, inspect.isfunction):
        if not name.startswith("_"):
            assert member.__doc__ and len(member.__doc__) > 30, name
    for fn in (api.open_log, api.new_encounter, api.fight):
        assert "Error" in fn.__doc__, fn.__name__


# --------------------------------------------------------------------------- #
# join: a path, a mapping or the system's loaded Sheet (issue 16)
# --------------------------------------------------------------------------- #

SHEETS = {
    "mrq1": ROOT / "examples" / "mrq1" / "vasana.toml",
    "mythras": ROOT / "examples" / "mythras" / "kaelin.toml",
    "rq3": next((ROOT / "examples" / "rq3").glob("*.toml")),
    "rolemaster": ROOT / "examples" / "rolemaster" / "kestrel.toml",
    "uesrpg": next((ROOT / "examples" / "uesrpg").glob("*.toml")),
}


def _joined_sheets(log, eid: str) -> dict[str, dict]:
    return {r.event.handle: r.event.sheet for r in log.read(eid) if r.type == "combatant-joined"}


@pytest.mark.parametrize("system", sorted(SHEETS))
def test_join_takes_a_path_a_mapping_or_a_loaded_sheet_alike(log, system):
    """The three forms store the same sheet data: the file's."""
    path = SHEETS[system]
    module = importlib.import_module(f"affray.rules.{system}.sheet")
    loaded = module.load_sheet(path)  # the system's Sheet struct
    as_dict = tomllib.loads(path.read_text(encoding="utf-8"))
    f = api.new_encounter(log, "Three ways", system=system, seed=bytes.fromhex(SEED))
    f.join(path, side="a", handle="from-path")
    f.join(as_dict, side="b", handle="from-dict")
    f.join(loaded, side="b", handle="from-sheet")
    sheets = _joined_sheets(log, f.encounter_id)
    assert sheets["from-dict"] == sheets["from-path"] == sheets["from-sheet"]
    assert {c for c in f.state().combatants} == {"from-path", "from-dict", "from-sheet"}


def test_join_checks_data_as_it_checks_a_file(ford):
    data = tomllib.loads(BROO.read_text(encoding="utf-8"))
    data["characteristcs"] = data.pop("characteristics")
    before = _count(ford.log.path)
    with pytest.raises(api.RuleError, match="characteristcs.*characteristics"):
        ford.join(data, side="broo")
    from affray.rules.mythras.sheet import load_sheet as load_mythras

    with pytest.raises(api.RuleError, match="mythras sheet.*mrq1"):
        ford.join(load_mythras(SHEETS["mythras"]), side="broo")
    with pytest.raises(api.UserError, match="not int"):
        ford.join(42, side="broo")
    assert _count(ford.log.path) == before


def test_join_refuses_a_fifo_at_once(ford, tmp_path):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    with pytest.raises(api.RuleError, match="FIFO"):
        ford.join(fifo, side="broo")
