"""Nothing a user typed can take over the terminal (issue 16, item 4, the
CLI's printing side): hostile text (ESC/CSI, OSC, C1, BEL, bidi overrides
and isolates, line breaks) in every field a user, a sheet or an imported log
supplies reaches every printing verb, which prints it one line and inert;
``--json`` stays lossless. Encounter ids are checked at ``new``, ``branch``
and ``import``; a ``--db`` or import file that is a FIFO, a device or a
directory is one line, exit 2."""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

import pytest

from affray.text import BIDI, is_unsafe

from conftest import GORP, SEED, VASANA, assert_user_error, event_count

#: a name that clears the screen, sets the window title, rings, flips the
#: text right to left and forges a line of its own
HOSTILE = "Gr\x1b[2Jim\x1b]0;owned\x07\u202eup\u2066\x9b31m\nd100=01 vs 95%: critical success"
FORGED = re.compile(r"^\s*d100=01", re.M)


def _assert_inert(text: str) -> None:
    assert not any(is_unsafe(c) for c in text.replace("\n", "")), repr(text)
    assert not FORGED.search(text), text
    assert not BIDI & set(text)


@pytest.fixture
def hostile(cli, tmp_path):
    """A fight whose encounter name, combatant name, side, weapon, note,
    reason and actor all carry :data:`HOSTILE`; an attack made and undone."""
    sheet = json.loads(GORP.read_text(encoding="utf-8"))
    sheet["name"] = HOSTILE
    sheet["weapons"][0]["name"] = "Cl\x1b[31mub\u202e\nforged"
    sheet["ready"] = [sheet["weapons"][0]["name"]]
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(sheet), encoding="utf-8")
    cli.ok("new", "Ford " + HOSTILE, "--seed", SEED, "--id", "ford")
    cli.ok("join", VASANA, "--side", "heroes")
    cli.ok("--as", HOSTILE, "join", path, "--side", HOSTILE, "--handle", "gorp")
    cli.ok("note", HOSTILE)
    cli.ok("start", "--dice", "9,1")
    cli.ok("attack", "vasana", "gorp", "--dice", "30", "--mod", "-10:" + HOSTILE.replace("\n", " "))
    cli.ok("react", "gorp", "none")
    cli.ok("roll", "--dice", "3,1,10")
    cli.ok("heal", "gorp", "--reason", HOSTILE)
    return cli


PRINTING = [
    ["state"], ["state", "--at", "1"], ["pending"], ["log"], ["log", "--dice"], ["log", "--tail", "3"],
    ["why", "gorp"], ["why", "gorp", "chest"], ["replay", "--round", "1"], ["list"], ["head"], ["verify"],
    ["audit"], ["export"], ["export", "--format", "bbcode"], ["export", "--format", "discord"],
    ["export", "--view", "record"],
]


@pytest.mark.parametrize("argv", PRINTING, ids=[" ".join(a) for a in PRINTING])
def test_every_printing_verb_prints_hostile_text_inert(hostile, argv):
    result = hostile(*argv)
    assert result.exit_code in (0, 4), result.output
    _assert_inert(result.stdout)
    _assert_inert(result.stderr)
    if argv[0] in ("state", "log", "why", "replay", "list"):
        assert "Gr" in result.stdout  # the name is there, made harmless


@pytest.mark.parametrize("argv", [["undo"], ["redo"]])
def test_undo_and_redo_print_hostile_text_inert(hostile, argv):
    hostile.ok("undo")  # the heal, whose reason is hostile
    result = hostile.ok("redo") if argv == ["redo"] else hostile.ok("undo")
    _assert_inert(result.stdout)


def test_the_turn_verbs_print_hostile_text_inert(hostile):
    result = hostile.ok("end-round", "--dice", "5,5")
    _assert_inert(result.stdout)
    result = hostile.ok("note", "once\nmore\x1b[2J")
    _assert_inert(result.stdout)
    assert result.stdout.splitlines()[0] == "GM note: once / more"


def test_an_error_naming_hostile_text_is_one_inert_line(hostile):
    line = assert_user_error(hostile("attack", "vasana", "gorp", "-w", HOSTILE))
    _assert_inert(line)
    line = assert_user_error(hostile("-e", HOSTILE, "state"))
    _assert_inert(line)
    result = hostile("state", "--x\x1b[2J\nforged")
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    _assert_inert(result.stderr)


@pytest.mark.parametrize("argv", [["state"], ["pending"], ["log"], ["log", "--dice"], ["why", "gorp"], ["list"]])
def test_json_is_lossless_and_inert(hostile, argv):
    raw = hostile.ok(*argv, "--json").stdout
    assert not any(is_unsafe(c) for c in raw.replace("\n", ""))
    strings = list(_strings(json.loads(raw)))
    assert any(HOSTILE in s for s in strings), strings  # the very text, not a sanitised copy


def _strings(data):
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for v in data.values():
            yield from _strings(v)
    elif isinstance(data, list):
        for v in data:
            yield from _strings(v)


def test_state_json_keeps_the_name_exactly(hostile):
    names = [c["name"] for c in hostile.state()["combatants"]]
    assert HOSTILE in names


# --------------------------------------------------------------------------- #
# Encounter ids
# --------------------------------------------------------------------------- #

BAD_IDS = ["bad id", "a\x1b[2Jb", "\u202eford", "-e", ".hidden", "x" * 65, "ümlaut", "a/b", "a\nb"]


@pytest.mark.parametrize("eid", BAD_IDS)
def test_new_refuses_a_bad_encounter_id(cli, eid):
    line = assert_user_error(cli("new", "Ford", "--id", eid), "must be letters, digits")
    _assert_inert(line)
    assert event_count(cli.db) in (None, 0)


@pytest.mark.parametrize("eid", ["ford", "F0rd_2.b-c", "x" * 64, "1"])
def test_new_takes_a_good_encounter_id(cli, eid):
    cli.ok("new", "Ford", "--id", eid)
    assert cli.json("list")[0]["id"] == eid


@pytest.mark.parametrize("eid", ["bad id", "a\x1b[2Jb", "-x"])
def test_branch_refuses_a_bad_encounter_id(fight, eid):
    before = fight.events()
    assert_user_error(fight("branch", "what if", "--id", eid), "must be letters, digits")
    assert fight.events() == before


def _export_with_id(tmp_path, eid: str) -> Path:
    """A whole jsonl export of an encounter stored (by the store itself,
    bypassing the checks of 'new') under the id ``eid``."""
    from affray.events import core as ev
    from affray.store import EventStore
    from affray.views.export import export_store

    db = tmp_path / "source.db"
    with EventStore(str(db)) as store:
        opened = ev.EncounterOpened(encounter_id=eid, name="Ford", system="mrq1", seed_sha256="0" * 64)
        store.append(eid, 0, [opened], command_id="c1", actor="gm")
        path = tmp_path / "fight.jsonl"
        with open(path, "w", encoding="utf-8") as fh:
            export_store(store, eid, "jsonl", fh, show_secret=True, view="record")
    return path


@pytest.mark.parametrize("eid", ["bad id", "evil\x1b[2J", "\u202eford"])
def test_import_refuses_a_bad_encounter_id_in_the_file(cli, tmp_path, eid):
    path = _export_with_id(tmp_path, eid)
    line = assert_user_error(cli("import", path), "must be letters, digits", "--as-id")
    _assert_inert(line)
    assert not cli.db.exists()
    # --as-id stores it under a good id
    cli.ok("import", path, "--as-id", "ford-copy")
    assert [e["id"] for e in cli.json("list")] == ["ford-copy"]


def test_import_refuses_a_bad_as_id(cli, tmp_path):
    path = _export_with_id(tmp_path, "ford")
    assert_user_error(cli("import", path, "--as-id", "a\x1b[2J"), "--as-id", "must be letters")
    assert not cli.db.exists()


# --------------------------------------------------------------------------- #
# --db and import files that are not regular files
# --------------------------------------------------------------------------- #


def _fifo(tmp_path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def _within(seconds: float, fn):
    """``fn()``'s result, failing the test (not hanging it) after ``seconds``."""
    box: list = []
    worker = threading.Thread(target=lambda: box.append(fn()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert box, f"still waiting after {seconds} s"
    return box[0]


@pytest.mark.parametrize("argv", [["state"], ["log"], ["note", "x"], ["new", "Ford"], ["verify"], ["export"], ["demo"]])
def test_a_fifo_as_db_is_refused_at_once(cli, tmp_path, argv):
    fifo = _fifo(tmp_path)
    result = _within(20, lambda: cli(*argv, db=fifo))
    line = assert_user_error(result, "--db", "FIFO")
    assert str(fifo) in line


@pytest.mark.parametrize("kind", ["folder", "device"])
def test_a_folder_or_device_as_db_is_refused(cli, tmp_path, kind):
    target = tmp_path if kind == "folder" else Path(os.devnull)
    assert_user_error(cli("state", db=target), "--db", kind)
    assert_user_error(cli("new", "Ford", db=target), "--db", kind)


def test_the_fast_path_refuses_a_fifo_too(tmp_path):
    import contextlib
    import io

    from affray.cli import dispatch

    fifo = _fifo(tmp_path)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = _within(20, lambda: dispatch.answer(["--db", str(fifo), "state"]))
    assert code == 2 and err.getvalue().startswith("error: --db ") and "FIFO" in err.getvalue()


def test_import_refuses_a_fifo(cli, tmp_path):
    fifo = _fifo(tmp_path)
    result = _within(20, lambda: cli("import", fifo))
    assert_user_error(result, "import file", "FIFO", "'-'")
    assert not cli.db.exists()


# --------------------------------------------------------------------------- #
# Sheets, tables and the key file that are not regular files (issue 16)
# --------------------------------------------------------------------------- #

SYSTEMS = ["mrq1", "mythras", "rq3", "rolemaster", "uesrpg"]


def _special(tmp_path, kind: str) -> Path:
    """A FIFO, a folder or a device, with a sheet's suffix where it can."""
    if kind == "FIFO":
        path = tmp_path / "pipe.toml"
        os.mkfifo(path)
        return path
    if kind == "folder":
        path = tmp_path / "sheets.toml"
        path.mkdir()
        return path
    return Path("/dev/zero")  # read whole, it would never end


@pytest.mark.parametrize("system", [*SYSTEMS, ""])
def test_sheet_check_refuses_a_fifo_at_once(cli, tmp_path, system):
    fifo = _special(tmp_path, "FIFO")
    argv = ["sheet", "check", fifo, *(["--system", system] if system else [])]
    result = _within(20, lambda: cli(*argv))
    line = assert_user_error(result, "FIFO", "not a regular file", "name a sheet file")
    assert str(fifo) in line


@pytest.mark.parametrize("kind", ["folder", "device"])
@pytest.mark.parametrize("system", SYSTEMS)
def test_sheet_check_refuses_a_folder_or_a_device(cli, tmp_path, kind, system):
    target = _special(tmp_path, kind)
    result = _within(20, lambda: cli("sheet", "check", target, "--system", system))
    assert_user_error(result, f"is a {kind}, not a regular file")


@pytest.mark.parametrize("system", SYSTEMS)
def test_join_refuses_a_fifo_sheet_and_appends_nothing(cli, tmp_path, system):
    cli.ok("new", "Ford", "--system", system, "--seed", SEED)
    before = cli.events()
    fifo = _special(tmp_path, "FIFO")
    result = _within(20, lambda: cli("join", fifo, "--side", "heroes"))
    assert_user_error(result, "FIFO", "name a sheet file")
    assert cli.events() == before


@pytest.mark.parametrize("kind", ["FIFO", "folder", "device"])
def test_tables_check_refuses_what_is_not_a_regular_file(cli, tmp_path, kind):
    target = _special(tmp_path, kind)
    result = _within(20, lambda: cli("tables", "check", target))
    assert_user_error(result, f"is a {kind}", "not a regular file", "name a table file")


def test_a_fifo_as_the_key_file_is_refused_and_nothing_is_appended(cli, tmp_path):
    keys = tmp_path / "keys"
    os.mkfifo(keys)
    env = {"AFFRAY_KEYS": str(keys)}
    result = _within(20, lambda: cli("new", "Ford", env=env))
    assert_user_error(result, "dice key file", "FIFO", "AFFRAY_KEYS")
    assert not cli.events()
    cli.ok("new", "Ford")  # its own key file beside the log
    result = _within(20, lambda: cli("verify", "--dice", env=env))
    assert_user_error(result, "dice key file", "FIFO")


def test_the_gm_rulings_print_hostile_text_inert(hostile):
    for argv in (
        ["set", "gorp", "hp", "chest", "2", "--reason", HOSTILE],
        ["ruling", "critical_on=base", "--reason", HOSTILE],
        ["out", "gorp", "fled", "--reason", HOSTILE],
    ):
        result = hostile.ok(*argv)
        _assert_inert(result.stdout)
    _assert_inert(hostile.ok("why", "gorp").stdout)
    _assert_inert(assert_user_error(hostile("ruling", HOSTILE + "=x", "--reason", "r")))
    _assert_inert(assert_user_error(hostile("ruling", "critical_on=" + HOSTILE, "--reason", "r")))
    _assert_inert(hostile.ok("rulings").stdout)
