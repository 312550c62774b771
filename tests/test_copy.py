"""``affray copy SRC DST``: a whole log moved SQLite → PostgreSQL → SQLite
(and file to file without a server), every hash identical, the dice seeds
and snapshots along, ``verify --dice`` passing on every end; refusals are one
line, exit 2, nothing written.
"""

from __future__ import annotations

import pytest

from affray.commands.demo import autoplay
from affray.commands.handler import execute
from affray.events import commands as cmd
from affray.store import open_store

from backends import pg_backend  # noqa: F401 - fixture used by name
from conftest import Cli, assert_user_error
from test_golden import open_duel


def _campaign(path: str) -> dict[str, list]:
    """Two engine-dice fights (one closed, one open) and a note-only
    encounter; returns every encounter's raw rows but ``seq``."""
    with open_store(path) as s:
        a = open_duel(s, manual=False, seed=b"copy me first")
        autoplay(s, a, actor="gm")
        execute(s, cmd.CloseEncounter(reason="done"), encounter_id=a, actor="gm")
        b = open_duel(s, manual=False, seed=b"copy me second")  # the handler picks a free id
        assert b != a
        autoplay(s, b, actor="gm")
        return _rows(s)


def _rows(store) -> dict[str, list]:
    return {eid: [r[1:] for r in store.read_raw(eid)] for eid in store.encounter_ids()}


def _check_copy(cli: Cli, src: str, dst: str, rows: dict[str, list]) -> None:
    out = cli.ok("copy", src, dst, db=None).stdout
    assert f"Copied {len(rows)} encounter" in out and "every head hash matches" in out
    with open_store(src) as a, open_store(dst) as b:
        assert _rows(b) == rows  # every column but seq, every hash, byte for byte
        for eid in rows:
            assert a.head(eid) == b.head(eid)
            assert b.get_seed(eid) == a.get_seed(eid) is not None
            assert b.snapshot_versions(eid) == a.snapshot_versions(eid)
        assert a.verify() == [] and b.verify() == []
    for target in (src, dst):
        for eid in rows:
            assert "intact" in cli.ok("--db", target, "-e", eid, "verify", "--dice", db=None).stdout


@pytest.fixture
def cli(tmp_path, monkeypatch) -> Cli:
    monkeypatch.chdir(tmp_path)
    for var in ("AFFRAY_DB", "AFFRAY_ENCOUNTER", "AFFRAY_ACTOR", "AFFRAY_KEYS"):
        monkeypatch.delenv(var, raising=False)
    return Cli(tmp_path / "unused.db")


def test_copy_file_to_file(cli, tmp_path) -> None:
    src, dst = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    rows = _campaign(src)
    assert len(rows) == 2
    _check_copy(cli, src, dst, rows)
    assert (tmp_path / "b.db.keys").exists()  # the seeds went to the copy's key file, not into its log


def test_copy_sqlite_to_postgres_and_back(cli, tmp_path, pg_backend) -> None:
    src, back = str(tmp_path / "a.db"), str(tmp_path / "back.db")
    rows = _campaign(src)
    _check_copy(cli, src, pg_backend.target, rows)
    _check_copy(cli, pg_backend.target, back, rows)
    # and a fight goes on in PostgreSQL after the copy: its engine still rolls from the copied seed
    with open_store(pg_backend.target) as s:
        open_eid = s.newest_open_encounter()
        execute(s, cmd.AddNote(text="after the move"), encounter_id=open_eid, actor="gm")
        assert s.verify() == []


def test_copy_refusals_write_nothing(cli, tmp_path) -> None:
    src, dst = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    assert_user_error(cli("copy", src, dst, db=None), "no database at")
    rows = _campaign(src)
    assert_user_error(cli("copy", src, src, db=None), "same log")
    cli.ok("copy", src, dst, db=None)
    assert_user_error(cli("copy", src, dst, db=None), "already holds encounter")
    with open_store(dst) as b:
        assert _rows(b) == rows
    empty = str(tmp_path / "empty.db")
    open_store(empty).close()
    assert_user_error(cli("copy", empty, str(tmp_path / "c.db"), db=None), "no encounter to copy")
