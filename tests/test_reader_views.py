"""The SQL views for readers (issue 16, item 6; ``READER_VIEWS`` in
``affray.store.schema``): the plain views show the live timeline with a
``status`` column, the ``*_all`` views every row with its status, and
``combatants`` the fight as it stands. Each is checked against affray's own
projection (the timeline's liveness, ``load_state``) on real fights: the
sample fights of every system, and a fight with undo, redo, rewind, amend
and the GM's rulings. ``examples/datasette/metadata.json`` names only what
is there and hides the seeds.

PostgreSQL (issue 18; ``READER_VIEWS`` in ``affray.store.schema_pg``, skipped
without a server, tests/backends.py): the same log played on both backends
gives every view's columns and rows alike; an older PostgreSQL log gets the
views at its next write; the README's GRANT lets a reader read every view
and no seed."""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from affray.commands.demo import DEFAULT_SEEDS, SCENARIOS, TACTICAL, autoplay, setup
from affray.events.core import DamageDealt, DiceRolled
from affray.projections.snapshots import load_state
from affray.projections.timeline import Liveness, Timeline, is_meta
from affray.store import SCHEMA_VERSION, EventStore, open_store, schema_pg
from affray.store.schema import READER_VIEWS

from backends import pg_backend  # noqa: F401 - fixture used by name
from conftest import BROO, GORP, SEED, Cli, fight_with_mistakes, views_with_old_event_log_all

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
    fight_with_mistakes(cli, str(cli.db))
    with EventStore(str(cli.db), readonly=True) as store:
        _check_against_affray(cli.db, store, "ford")
        _check_against_affray(cli.db, store, "river")
    statuses = {r["status"] for r in _rows(cli.db, "SELECT status FROM event_log_all")}
    assert statuses == {"live", "retracted", "void", "meta"}
    rows = _rows(cli.db, "SELECT handle, status, locations FROM combatants WHERE encounter_id = 'ford'")
    assert [(r["handle"], r["status"]) for r in rows] == [("gorp", "out"), ("broo1", "active")]
    head = next(l for l in json.loads(rows[1]["locations"]) if l["name"] == "head")
    assert head["hp"] == head["max_hp"]  # healed to the maximum, no more


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
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6
        views = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'view'")}
    assert views == set(READER_VIEWS)
    assert _rows(cli.db, "SELECT handle, status FROM combatants") == [{"handle": "gorp", "status": "active"}]


def test_a_schema_4_file_gets_the_retracted_lookup(cli):
    """Migration 5: event_log_all finds a retracted command with an IN lookup
    (SQLite scanned the LEFT JOIN of migration 4 once per event); the rows
    are the same."""
    cli.ok("new", "Ford", "--seed", SEED)
    cli.ok("join", GORP, "--side", "a")
    cli.ok("join", BROO, "--side", "b")
    cli.ok("undo")
    want = _rows(cli.db, "SELECT * FROM event_log_all")
    old = READER_VIEWS["event_log_all"].replace(
        "WHEN (e.encounter_id, e.command_id) IN (SELECT encounter_id, command_id FROM retracted) THEN 'retracted'",
        "WHEN x.command_id IS NOT NULL THEN 'retracted'",
    ).replace(
        "FROM events e\n", "FROM events e LEFT JOIN retracted x ON x.encounter_id = e.encounter_id AND x.command_id = e.command_id\n"
    )
    assert old != READER_VIEWS["event_log_all"]
    with closing(sqlite3.connect(cli.db)) as conn:  # back to schema 4, as the last affray left it
        views_with_old_event_log_all(conn, old)
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = '0005_reader_views_retracted_lookup'")
        conn.execute("PRAGMA user_version = 4")
        conn.commit()
    assert _rows(cli.db, "SELECT * FROM event_log_all") == want
    cli.ok("note", "a write migrates the file")
    with closing(sqlite3.connect(cli.db)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'event_log_all'").fetchone()[0]
    assert "IN (SELECT encounter_id, command_id FROM retracted)" in sql and "LEFT JOIN" not in sql
    assert _rows(cli.db, "SELECT * FROM event_log_all")[:len(want)] == want


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


# --------------------------------------------------------------------------- #
# PostgreSQL: the same views, the same rows (issue 18; schema_pg.READER_VIEWS)
# --------------------------------------------------------------------------- #

#: The views' JSON columns: SQLite gives their text, PostgreSQL (``json``) the
#: value psycopg has already parsed.
_JSON_COLUMNS = {"data", "faces", "locations"}
#: Wall-clock columns: the two logs were written at different times.
_CLOCK_COLUMNS = {"recorded_at", "opened_at"}


def _normalised(columns: list[str], row) -> tuple:
    """One view row with the backends' type differences taken out: JSON text
    parsed, booleans as 0/1 (SQLite's), times only checked to be there."""
    out = []
    for name, value in zip(columns, row):
        if name in _JSON_COLUMNS and isinstance(value, str):
            value = json.loads(value)
        elif isinstance(value, bool):
            value = int(value)
        elif name in _CLOCK_COLUMNS:
            assert isinstance(value, str) and value, (name, value)
            value = "<time>"
        out.append(value)
    return tuple(out)


def _view_rows(conn, view: str) -> tuple[list[str], list[tuple]]:
    """``SELECT * FROM view`` in the view's own order: its columns and rows."""
    cur = conn.execute(f"SELECT * FROM {view}")
    columns = [d[0] for d in cur.description]
    return columns, [_normalised(columns, r) for r in cur.fetchall()]


def _play_the_same_log(target: str) -> None:
    """Every sample fight (fixed seeds) and a fight with undo, redo, a rewind,
    an amend, a branch and the GM's rulings, into the log at ``target``."""
    with open_store(target) as store:
        for scenario in sorted(SCENARIOS):
            seed = bytes.fromhex(DEFAULT_SEEDS.get(scenario, "")) or bytes(range(16))
            eid = setup(store, scenario, seed=seed, allow_short_seed=True)  # the built-in, public seeds
            autoplay(store, eid, tactics=scenario in TACTICAL)
    fight_with_mistakes(Cli(target), target)


def test_postgres_views_give_the_sqlite_rows(tmp_path, monkeypatch, pg_backend):
    """The same log on both backends: every reader view has the same columns,
    in the same order, and the same rows, in the same order."""
    monkeypatch.chdir(tmp_path)
    for var in ("AFFRAY_DB", "AFFRAY_ENCOUNTER", "AFFRAY_ACTOR", "AFFRAY_KEYS"):
        monkeypatch.delenv(var, raising=False)
    db = tmp_path / "affray.db"
    _play_the_same_log(str(db))
    _play_the_same_log(pg_backend.target)
    assert list(schema_pg.READER_VIEWS) == list(READER_VIEWS)
    pg = pg_backend.connect()
    try:
        made = {r[0] for r in pg.execute(
            "SELECT table_name FROM information_schema.views WHERE table_schema = current_schema()")}
        assert made == set(READER_VIEWS)
        with closing(sqlite3.connect(db)) as lite:
            for view in READER_VIEWS:
                want_columns, want = _view_rows(lite, view)
                got_columns, got = _view_rows(pg, view)
                assert got_columns == want_columns, view
                assert got == want, view
                assert want, view  # every view has rows to compare
        statuses = {r[0] for r in pg.execute("SELECT DISTINCT status FROM event_log_all")}
        assert statuses == {"live", "retracted", "void", "meta"}
        assert pg.execute("SELECT count(*) FROM combatants WHERE conditions <> ''").fetchone()[0] > 0
        assert pg.execute("SELECT count(*) FROM damage_all WHERE status <> 'live'").fetchone()[0] > 0
    finally:
        pg.close()


def _pg_views(backend) -> set[str]:
    with backend.connect() as conn:
        return {r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.views WHERE table_schema = current_schema()")}


def test_an_older_postgres_log_gets_the_views_when_opened_for_writing(tmp_path, monkeypatch, pg_backend):
    """A log written by an affray that knew only migration 1 (the four old
    views) gets the reader views from migration 2 at its next write."""
    monkeypatch.chdir(tmp_path)
    cli = Cli(pg_backend.target)
    with monkeypatch.context() as old:
        old.setattr(schema_pg, "MIGRATIONS", schema_pg.MIGRATIONS[:1])
        old.setattr(schema_pg, "SCHEMA_VERSION", 1)
        cli.ok("new", "Ford", "--seed", SEED)
        cli.ok("join", GORP, "--side", "a")
    assert _pg_views(pg_backend) == {"event_log", "encounters", "dice_rolls", "damage"}
    assert pg_backend.query("SELECT max(version) FROM affray_schema") == [(1,)]
    cli.ok("join", BROO, "--side", "b")  # a writing verb migrates the log
    assert pg_backend.query("SELECT max(version) FROM affray_schema") == [(schema_pg.SCHEMA_VERSION,)] == [(2,)]
    assert _pg_views(pg_backend) == set(schema_pg.READER_VIEWS)
    assert pg_backend.query("SELECT handle, status FROM combatants") == [("gorp", "active"), ("broo", "active")]


README = Path(__file__).resolve().parents[1] / "README.md"


def test_a_postgres_reader_granted_what_the_readme_says_reads_every_view_and_no_seed(tmp_path, monkeypatch, pg_backend):
    """The README's GRANT (PostgreSQL, "Where the dice seeds live") names
    every view: a role granted just that reads each one, and not the seeds."""
    import psycopg

    grant = re.search(r"`(GRANT SELECT ON [^`]+ TO players)`", README.read_text(encoding="utf-8")).group(1)
    named = {n.strip() for n in grant.removeprefix("GRANT SELECT ON ").removesuffix(" TO players").split(",")}
    assert set(READER_VIEWS) <= named and "dice_keys" not in named
    monkeypatch.chdir(tmp_path)
    cli = Cli(pg_backend.target)
    cli.ok("new", "Ford", "--seed", SEED)
    cli.ok("join", GORP, "--side", "a")
    role = f"reader_{pg_backend.schema}"
    with pg_backend.connect() as conn:
        conn.execute(f"CREATE ROLE {role} NOLOGIN")
        try:
            conn.execute(grant.replace(" TO players", f" TO {role}"))
            conn.execute(f"GRANT USAGE ON SCHEMA {pg_backend.schema} TO {role}")
            conn.execute(f"SET ROLE {role}")
            for name in sorted(named):
                conn.execute(f"SELECT * FROM {name}").fetchall()
            assert conn.execute("SELECT handle FROM combatants").fetchall() == [("gorp",)]
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("SELECT seed FROM dice_keys")
        finally:
            conn.execute("RESET ROLE")
            conn.execute(f"DROP OWNED BY {role}")
            conn.execute(f"DROP ROLE {role}")


def test_the_views_benchmark_runs(tmp_path, capsys):
    """``bench/views.py`` (README figures) on a small fight: SQLite always,
    PostgreSQL too when a server is set (its schema is dropped after)."""
    import runpy
    import sys

    from backends import postgres_dsn

    bench = Path(__file__).resolve().parents[1] / "bench" / "views.py"
    argv = ["views.py", "--events", "300", "--runs", "1", "--postgres", postgres_dsn() or ""]
    saved = sys.argv, list(sys.path)
    sys.argv = argv
    try:
        with pytest.raises(SystemExit) as done:
            runpy.run_path(str(bench), run_name="__main__")
    finally:
        sys.argv, sys.path[:] = saved
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.count("SELECT * FROM combatants") == 2
    assert ("PostgreSQL" in out) == (postgres_dsn() is not None)
