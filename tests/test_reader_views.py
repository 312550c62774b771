"""The SQL views for readers (issue 16, item 6; ``READER_VIEWS`` in
``affray.store.schema``): the plain views show the live timeline with a
``status`` column, the ``*_all`` views every row with its status, and
``combatants`` the fight as it stands. Each is checked against affray's own
projection (the timeline's liveness, ``load_state``) on real fights: the
sample fights of every system, and a fight with undo, redo, rewind, amend
and the GM's rulings. ``examples/datasette/metadata.json`` names only what
is there and hides the seeds."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from affray.commands.demo import DEFAULT_SEEDS, SCENARIOS, TACTICAL, autoplay, setup
from affray.events.core import DamageDealt, DiceRolled
from affray.projections.snapshots import load_state
from affray.projections.timeline import Liveness, Timeline, is_meta
from affray.store import SCHEMA_VERSION, EventStore
from affray.store.schema import READER_VIEWS

from conftest import BROO, GORP, SEED

METADATA = Path(__file__).resolve().parents[1] / "examples" / "datasette" / "metadata.json"


def _rows(db: Path, sql: str, *params) -> list[dict]:
    with closing(sqlite3.connect(db)) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute(sql, params)]


def _statuses(store: EventStore, eid: str) -> dict[int, str]:
    """Each version's status as affray's timeline gives it."""
    records = list(store.read(eid))
    liveness = Liveness(r for r in records if is_meta(r.event))
    out = {}
    by_command: dict[str, list[int]] = {}
    for r in records:
        if not is_meta(r.event):
            by_command.setdefault(r.command_id, []).append(r.version)
    for r in records:
        out[r.version] = "meta" if is_meta(r.event) else liveness.status(r.command_id, by_command[r.command_id])
    return out


def _check_against_affray(db: Path, store: EventStore, eid: str) -> None:
    """Every view agrees with affray's projection of ``eid``."""
    expected = _statuses(store, eid)
    status = {r["version"]: r["status"] for r in _rows(db, "SELECT * FROM event_status WHERE encounter_id = ?", eid)}
    assert status == expected
    live = [r.version for r in Timeline(store.read(eid)).live_records()]
    assert [r["version"] for r in _rows(db, "SELECT version FROM event_log WHERE encounter_id = ?", eid)] == live
    every = _rows(db, "SELECT version, status FROM event_log_all WHERE encounter_id = ?", eid)
    assert [(r["version"], r["status"]) for r in every] == sorted(expected.items())
    # dice and damage: the live ones by default, all of them in *_all
    for view, cls in (("dice_rolls", DiceRolled), ("damage", DamageDealt)):
        versions = [r.version for r in store.read(eid) if isinstance(r.event, cls)]
        got_all = _rows(db, f"SELECT version, status FROM {view}_all WHERE encounter_id = ?", eid)
        assert [r["version"] for r in got_all] == versions
        assert all(r["status"] == expected[r["version"]] for r in got_all)
        got = _rows(db, f"SELECT version, status FROM {view} WHERE encounter_id = ?", eid)
        assert [r["version"] for r in got] == [v for v in versions if expected[v] == "live"]
        assert {r["status"] for r in got} <= {"live"}
    # combatants: the projection's state, combatant by combatant
    state = load_state(store, eid)
    rows = _rows(db, "SELECT * FROM combatants WHERE encounter_id = ?", eid)
    assert [r["handle"] for r in rows] == list(state.combatants)
    for row in rows:
        c = state.combatants[row["handle"]]
        assert (row["name"], row["side"], row["status"]) == (c.name, c.side, c.status)
        locations = json.loads(row["locations"])
        assert locations == [{"name": l.name, "hp": l.hp, "max_hp": l.max_hp, "wound": l.wound} for l in c.locations]
        assert row["hp"] == sum(l.hp for l in c.locations) and row["max_hp"] == sum(l.max_hp for l in c.locations)
        shown = [x.name + (f" ({x.location})" if x.location else "") for x in c.conditions]
        assert (row["conditions"] or "") == ", ".join(shown)
        assert row["joined_version"] == c.joined_version


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_views_agree_with_affray_on_every_sample_fight(tmp_path, scenario):
    db = tmp_path / "demo.db"
    seed = DEFAULT_SEEDS.get(scenario, "")
    with EventStore(str(db)) as store:
        eid = setup(store, scenario, seed=bytes.fromhex(seed) if seed else None, allow_short_seed=True)  # the built-in, public seeds
        state = autoplay(store, eid, tactics=scenario in TACTICAL)
        assert state.phase in ("over", "closed") or state.round > 1
        _check_against_affray(db, store, eid)
    # a whole fight has hits and conditions to compare
    assert _rows(db, "SELECT count(*) AS n FROM damage")[0]["n"] > 0


def test_views_agree_after_undo_redo_rewind_amend_and_rulings(cli):
    cli.ok("new", "Ford", "--seed", SEED)
    cli.ok("join", GORP, "--side", "heroes", "--name", "Gorp")
    cli.ok("join", BROO, "--side", "broo", "--name", "Broo 1")
    cli.ok("join", BROO, "--side", "broo", "--name", "Broo 2")
    cli.ok("undo")  # Broo 2's join: not a combatant any more
    cli.ok("start", "--dice", "7,3")
    cli.ok("attack", "gorp", "broo1", "--dice", "10")
    cli.ok("react", "broo1", "none")
    cli.ok("roll")
    cli.ok("note", "to be undone")
    cli.ok("undo")
    cli.ok("redo")
    cli.ok("undo")
    cli.ok("end-round", "--dice", "5,5")
    cli.ok("rewind", "--to", "1.2")  # the roll, the note and the round's end are void
    cli.ok("roll")  # the engine rolls what it rolled there
    cli.ok("set", "broo1", "hp", "head", "1", "--reason", "a ruling")
    cli.ok("heal", "broo1", "head", "2", "--reason", "a potion")
    cli.ok("out", "gorp", "fled", "--reason", "morale")
    cli.ok("amend", "1.1", "--mod", "-10:mud", "--replay")
    with EventStore(str(cli.db), readonly=True) as store:
        _check_against_affray(cli.db, store, "ford")
    statuses = {r["status"] for r in _rows(cli.db, "SELECT status FROM event_log_all")}
    assert statuses == {"live", "retracted", "void", "meta"}
    assert [r["handle"] for r in _rows(cli.db, "SELECT handle FROM combatants")] == ["gorp", "broo1"]


def test_views_serve_several_encounters_apart(cli):
    cli.ok("new", "One", "--seed", SEED)
    cli.ok("join", GORP, "--side", "a")
    cli.ok("new", "Two", "--seed", SEED)
    cli.ok("join", BROO, "--side", "b")
    cli.ok("undo")
    rows = _rows(cli.db, "SELECT encounter_id, handle FROM combatants")
    assert rows == [{"encounter_id": "one", "handle": "gorp"}]
    assert {r["id"] for r in _rows(cli.db, "SELECT id FROM encounters")} == {"one", "two"}


def test_an_older_file_gets_the_views_when_opened_for_writing(cli):
    cli.ok("new", "Ford", "--seed", SEED)
    with closing(sqlite3.connect(cli.db)) as conn:  # back to schema 3, as an older affray left it
        for name in reversed(READER_VIEWS):
            conn.execute(f"DROP VIEW IF EXISTS {name}")
        for name in ("event_log", "dice_rolls", "damage", "encounters"):
            conn.execute(f"CREATE VIEW {name} AS SELECT 1 AS old")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = '0004_reader_views'")
        conn.execute("PRAGMA user_version = 3")
        conn.commit()
    cli.ok("join", GORP, "--side", "a")  # a writing verb migrates the file
    with closing(sqlite3.connect(cli.db)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
        views = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'view'")}
    assert views == set(READER_VIEWS)
    assert _rows(cli.db, "SELECT handle, status FROM combatants") == [{"handle": "gorp", "status": "active"}]


def test_every_view_is_plain_sql_in_one_place(cli):
    cli.ok("new", "Ford")
    with closing(sqlite3.connect(cli.db)) as conn:
        made = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'view'").fetchall())
    assert made == {name: f'CREATE VIEW "{name}" AS {sql.strip()}' for name, sql in READER_VIEWS.items()}


# --------------------------------------------------------------------------- #
# Datasette's metadata.json
# --------------------------------------------------------------------------- #


def test_datasette_metadata_names_what_is_there_and_hides_the_seeds(cli):
    cli.ok("new", "Ford")
    meta = json.loads(METADATA.read_text(encoding="utf-8"))
    tables = meta["databases"]["affray"]["tables"]
    with closing(sqlite3.connect(cli.db)) as conn:
        present = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
        columns = {name: {r[1] for r in conn.execute(f"PRAGMA table_info({name})")} for name in present}
    assert set(tables) <= present
    assert set(READER_VIEWS) <= set(tables)  # every view is titled and described
    assert tables["dice_seeds"]["hidden"] is True and tables["snapshots"]["hidden"] is True
    for name, spec in tables.items():
        if not spec.get("hidden"):
            assert spec["title"] and spec["description"], name
        for column in [spec["sort"]] if "sort" in spec else []:
            assert column in columns[name], (name, column)
        for column in spec.get("facets", []):
            assert column in columns[name], (name, column)
