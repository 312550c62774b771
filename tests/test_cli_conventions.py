"""The conventions a CLI user expects (issue 16, item 5): ``--version``,
shell completion, colour only on a terminal and never under ``NO_COLOR`` or
``--no-color``, ``--json`` on every read verb (``rulings`` and ``tables
check`` too; structured rolls in ``log --json --dice``), global options
after the verb, and ``undo``/``redo`` saying what they took back."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from affray.cli import core, dispatch
from affray.cli.app import app
from affray.cli.core import Options

from conftest import assert_user_error, raw_events

#: the console script (its name is what shell completion keys on), else the module
_SCRIPT = Path(sys.executable).parent / "affray"
AFFRAY = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-c", "from affray.cli.main import main; main()"]
RM_SAMPLE = Path(__file__).resolve().parents[1] / "src" / "affray" / "rules" / "rolemaster" / "data"


# --------------------------------------------------------------------------- #
# --version and completion
# --------------------------------------------------------------------------- #


def test_version_prints_the_installed_version():
    from importlib.metadata import version

    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"affray {version('affray')}\n"


def test_version_through_the_console_script():
    proc = subprocess.run([*AFFRAY, "--version"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("affray ") and proc.stderr == ""


def test_show_completion_prints_a_script_for_the_shell():
    result = CliRunner().invoke(app, ["--show-completion", "bash"])
    assert result.exit_code == 0
    assert "_affray_completion" in result.stdout and "complete " in result.stdout


def test_completion_completes_verbs_and_options():
    env = {**os.environ, "_AFFRAY_COMPLETE": "complete_bash", "COMP_WORDS": "affray ver", "COMP_CWORD": "1"}
    proc = subprocess.run([*AFFRAY], capture_output=True, text=True, env=env)
    assert proc.returncode == 0 and proc.stdout.split() == ["verify"]
    env.update(COMP_WORDS="affray log --t", COMP_CWORD="2")
    proc = subprocess.run([*AFFRAY], capture_output=True, text=True, env=env)
    assert proc.stdout.split() == ["--tail"]


# --------------------------------------------------------------------------- #
# Colour
# --------------------------------------------------------------------------- #


class _Tty:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    "no_color,env,tty,expected",
    [
        (False, {}, True, True),
        (False, {}, False, False),
        (True, {}, True, False),
        (False, {"NO_COLOR": "1"}, True, False),
        (False, {"NO_COLOR": ""}, True, True),  # no-color.org: set and not empty
        (False, {"TERM": "dumb"}, True, False),
    ],
)
def test_color_only_on_a_terminal_and_never_when_refused(monkeypatch, no_color, env, tty, expected):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert core.color(Options(no_color=no_color), _Tty(tty)) is expected


def _on_a_terminal(argv: list[str], env: dict) -> bytes:
    """Run affray with stdout on a pseudo-terminal; everything it printed."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([*AFFRAY, *argv], stdout=slave, stderr=subprocess.PIPE, env=env)
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 10)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=30)
    os.close(master)
    assert proc.returncode == 0, proc.stderr.read()
    return out


@pytest.fixture
def undone(fight):
    """``fight`` with an attack undone: the log has a struck-through entry."""
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    fight.ok("undo")
    return fight


@pytest.mark.parametrize(
    "argv,env,styled",
    [
        (["log"], {}, True),
        (["log"], {"NO_COLOR": "1"}, False),
        (["--no-color", "log"], {}, False),
        (["log", "--no-color"], {}, False),
    ],
)
def test_log_styles_only_when_colour_is_wanted(undone, argv, env, styled):
    environ = {"PATH": os.environ.get("PATH", ""), "TERM": "xterm-256color", "AFFRAY_ACTOR": "sam", **env}
    out = _on_a_terminal(["--db", str(undone.db), *argv], environ)
    assert (b"\x1b[" in out) is styled, out
    assert b"Vasana attacks Broo 1" in out
    if not styled:
        assert b"~~" in out  # struck through in plain text


def test_log_through_a_pipe_is_plain(undone):
    proc = subprocess.run(
        [*AFFRAY, "--db", str(undone.db), "log"], capture_output=True,
        env={"PATH": os.environ.get("PATH", ""), "TERM": "xterm-256color"},
    )
    assert proc.returncode == 0 and b"\x1b" not in proc.stdout and b"~~" in proc.stdout


# --------------------------------------------------------------------------- #
# --json on every read verb
# --------------------------------------------------------------------------- #


def test_every_read_verb_takes_json():
    import typer

    command = typer.main.get_command(app)
    reads = ["list", "state", "pending", "log", "verify", "head", "rulings", "why", "replay", "audit"]
    for verb in reads:
        assert "--json" in {o for p in command.commands[verb].params for o in p.opts}, verb
    assert "--json" in {o for p in command.commands["tables"].commands["check"].params for o in p.opts}


def test_rulings_json_lists_every_ruling(cli):
    from affray.rules import base

    for system in ("mrq1", "mythras", "rq3", "rolemaster", "uesrpg"):
        data = cli.json("rulings", "--system", system)
        doc = base.get(system).rulings_doc
        assert [d["name"] for d in data] == list(doc)
        for d in data:
            default, text, source = doc[d["name"]]
            assert d == {"name": d["name"], "default": default, "text": text, "source": source}


def test_rulings_json_of_an_unknown_system_is_one_line(cli):
    assert_user_error(cli("rulings", "--system", "dnd5e", "--json"), "dnd5e")


def test_log_json_dice_gives_structured_rolls(fight):
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    entries = fight.json("log", "--dice")
    rolls = [r for e in entries for r in e["rolls"]]
    assert {"purpose", "expr", "faces", "total", "source", "index", "typed_by", "by", "version", "text"} == set(rolls[0])
    attack = [r for r in rolls if r["source"] == "table" and r["expr"] == "1D100"]
    assert [(r["faces"], r["total"]) for r in attack] == [([34], 34)]
    strike = [r for r in rolls if r["purpose"].startswith("strike rank")]
    assert sorted(r["total"] for r in strike) == [3, 7]
    dice_entries = [e for e in entries if e["type"] == "dice-rolled"]
    assert dice_entries and all(len(e["rolls"]) == 1 for e in dice_entries)
    # the versions are those of the dice-rolled events in the file
    versions = {e["version"] for e in raw_events(fight.db) if e["type"] == "dice-rolled"}
    assert {r["version"] for r in rolls} == versions
    # without --dice the shape is unchanged
    assert all("rolls" not in e for e in fight.json("log"))


def test_tables_check_json(cli):
    sample = next(RM_SAMPLE.rglob("*.toml"), None) or next(RM_SAMPLE.rglob("*.csv"))
    data = cli.json("tables", "check", str(sample))
    assert len(data) == 1 and data[0]["file"] == str(sample) and data[0]["rows"] > 0
    assert set(data[0]) == {"file", "kind", "name", "rows", "columns", "source"}


# --------------------------------------------------------------------------- #
# Global options after the verb
# --------------------------------------------------------------------------- #


def _takes(verb_options: dict):
    return lambda verb: verb_options.get(verb)


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["state", "-e", "x"], ["-e", "x", "state"]),
        (["state", "--db=a.db", "--json"], ["--db=a.db", "state", "--json"]),
        (["--as", "kim", "log", "--tail", "2", "--db", "a"], ["--as", "kim", "--db", "a", "log", "--tail", "2"]),
        (["note", "--reason", "--db", "x"], ["note", "--reason", "--db", "x"]),  # a value of the verb's option
        (["note", "--", "--db", "x"], ["note", "--", "--db", "x"]),
        (["note", "-eford", "t"], ["-eford", "note", "t"]),
        (["log", "--no-color"], ["--no-color", "log"]),
        (["nope", "--db", "x"], ["nope", "--db", "x"]),  # an unknown verb: Typer's error
        (["state"], ["state"]),
        (["--db", "x"], ["--db", "x"]),
    ],
)
def test_hoist_moves_global_options_before_the_verb(argv, expected):
    known = {"state": {"--at", "--version"}, "log": {"--tail", "--round"}, "note": {"--reason"}}
    assert dispatch.hoist(argv, _takes(known)) == expected


def test_a_global_option_after_the_verb_takes_the_fast_path(fight):
    parsed = dispatch.parse(["state", "--db", str(fight.db), "-e", "ford", "--no-color"])
    assert parsed is not None
    values, verb, kwargs = parsed
    assert values["db"] == str(fight.db) and values["encounter"] == "ford" and values["no_color"] is True
    assert verb is dispatch.VERBS["state"] and kwargs == {}


@pytest.mark.parametrize(
    "argv",
    [
        ["verify", "-e", "ford", "--db", "{db}"],
        ["head", "--json", "--db={db}"],
        ["export", "--format", "markdown", "--db", "{db}", "-e", "ford"],
        ["audit", "--db", "{db}"],
        ["amend", "1.1", "--db", "{db}", "--as", "kim", "--mod", "-10:mud"],
    ],
)
def test_typer_verbs_take_global_options_after_the_verb(fight, argv):
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    result = CliRunner().invoke(app, [a.format(db=fight.db) for a in argv], catch_exceptions=False, env={"AFFRAY_DB": None})
    assert result.exit_code == 0, result.output
    if argv[0] == "amend":
        assert raw_events(fight.db)[-1]["actor"] == "kim"


def test_a_global_option_after_the_verb_is_as_before_it(fight):
    fight.ok("note", "by kim", "--as", "kim")
    assert raw_events(fight.db)[-1]["actor"] == "kim"
    assert_user_error(fight("state", "-e", "nope"), "nope")


# --------------------------------------------------------------------------- #
# undo and redo say what they took back
# --------------------------------------------------------------------------- #


def test_undo_and_redo_name_the_command_and_what_it_did(fight):
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    cid = raw_events(fight.db)[-1]["command_id"]
    undo = fight.ok("undo").stdout.splitlines()[0]
    assert undo == f"Retracted command {cid} (Vasana attacks Broo 1 with Broadsword); it stays in the log, struck through."
    redo = fight.ok("redo").stdout.splitlines()[0]
    assert redo == f"Restored command {cid} (Vasana attacks Broo 1 with Broadsword)."


def test_undo_of_a_note_and_of_a_join(duel):
    duel.ok("note", "the ford is slippery")
    note = duel.ok("undo").stdout
    assert note.startswith("Retracted command c") and "the ford is slippery" in note
    assert "the ford is slippery" in duel.ok("redo").stdout
    duel.ok("undo")
    join = duel.ok("undo").stdout
    assert join.startswith("Retracted command c") and "(Broo 1 joins side broo" in join


def test_undo_names_hostile_text_safely(duel):
    duel.ok("note", "\x1b]0;owned\x07clear\x1b[2J\nforged line")
    out = duel.ok("undo").stdout
    assert "\x1b" not in out and "\x07" not in out
    assert len(out.splitlines()) == 1 + out.count("Waiting for")


@pytest.mark.parametrize("env,argv,styled", [({}, [], True), ({"NO_COLOR": "1"}, [], False), ({}, ["--no-color"], False)])
def test_verify_colours_its_verdict_only_when_wanted(fight, env, argv, styled):
    environ = {"PATH": os.environ.get("PATH", ""), "TERM": "xterm-256color", **env}
    out = _on_a_terminal(["--db", str(fight.db), "verify", *argv], environ)
    line = next(l for l in out.split(b"\n") if b"OK: the log is intact." in l)
    assert (b"\x1b[32m" in line) is styled, line


# --------------------------------------------------------------------------- #
# Progress on long jobs: import (export, verify and audit had theirs)
# --------------------------------------------------------------------------- #


def test_import_shows_progress_on_a_terminal_only(fight, tmp_path):
    jsonl = tmp_path / "fight.jsonl"
    fight.ok("export", "--format", "jsonl", "--secret", "--out", jsonl)
    environ = {"PATH": os.environ.get("PATH", ""), "TERM": "xterm-256color"}
    out = _on_a_terminal(["--db", str(tmp_path / "a.db"), "import", str(jsonl)], environ)
    assert b"Importing" in out and b"Imported encounter ford" in out
    proc = subprocess.run([*AFFRAY, "--db", str(tmp_path / "b.db"), "import", str(jsonl)], capture_output=True, env=environ)
    assert proc.returncode == 0 and b"Importing" not in proc.stdout + proc.stderr
    assert proc.stdout.startswith(b"Imported encounter ford")
