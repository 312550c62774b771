"""Shared fixtures for the CLI tests: a ``cli`` runner bound to a database in
``tmp_path``, ready-made encounters, and helpers that look at the database
directly with ``sqlite3`` (so "nothing was appended" is checked against the
file, not against affray's own view of it)."""

from __future__ import annotations

# CI must not fail on a fresh random draw: examples are derived from each test
# (derandomize), and no deadline (a shared 2-core machine is slow at times).
# HYPOTHESIS_PROFILE=explore gives random draws for a local hunt.
from hypothesis import settings as _hsettings

_hsettings.register_profile("affray", derandomize=True, deadline=None)
_hsettings.register_profile("explore", deadline=None)
_hsettings.load_profile(__import__("os").environ.get("HYPOTHESIS_PROFILE", "affray"))

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from affray.cli.app import app
from affray.events.core import HitPointsRestored
from affray.store import open_store
from affray.store.schema import READER_VIEWS

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "mrq1"
VASANA = EXAMPLES / "vasana.toml"
BROO = EXAMPLES / "broo.toml"
BROO_YAML = EXAMPLES / "broo.yaml"
GORP = EXAMPLES / "gorp.json"

#: A fixed dice seed (hex) so engine rolls are reproducible.
SEED = "00ff" * 8  # 16 bytes: affray new refuses a shorter chosen seed


# --------------------------------------------------------------------------- #
# Looking at the database without affray
# --------------------------------------------------------------------------- #


def _connect_ro(db: Path) -> sqlite3.Connection:
    # mode=ro: never create the file as a side effect of looking at it
    return sqlite3.connect(Path(db).resolve().as_uri() + "?mode=ro", uri=True)


def event_count(db: Path) -> int | None:
    """Rows in the ``events`` table of ``db``; None when the file does not exist."""
    if not Path(db).exists():
        return None
    with closing(_connect_ro(db)) as conn:
        return conn.execute("SELECT count(*) FROM events").fetchone()[0]


def raw_events(db: Path, encounter_id: str | None = None) -> list[dict]:
    """Every event row of ``db`` (in version order), ``data`` decoded."""
    query = "SELECT encounter_id, version, command_id, type, data, actor, hash FROM events"
    params: tuple = ()
    if encounter_id:
        query += " WHERE encounter_id = ?"
        params = (encounter_id,)
    with closing(_connect_ro(db)) as conn:
        rows = conn.execute(query + " ORDER BY encounter_id, version", params).fetchall()
    keys = ("encounter_id", "version", "command_id", "type", "data", "actor", "hash")
    out = []
    for row in rows:
        item = dict(zip(keys, row))
        item["data"] = json.loads(item["data"])
        out.append(item)
    return out


def copy_log(src, dest) -> None:
    """Copy the log file ``src`` to ``dest`` with its key file (the dice
    seeds live beside the log, in ``<db>.keys``, never in it)."""
    shutil.copyfile(src, dest)
    if Path(f"{src}.keys").exists():
        shutil.copyfile(f"{src}.keys", f"{dest}.keys")


def dice_events(db: Path) -> list[dict]:
    """The ``data`` of every ``dice-rolled`` event, in order."""
    return [e["data"] for e in raw_events(db) if e["type"] == "dice-rolled"]


def copy_sheet(src: Path, dest: Path, *edits: tuple[str, str]) -> Path:
    """Write ``src`` to ``dest`` with each ``(old, new)`` text replaced once.

    Fails loudly when ``old`` is not in the sheet, so a changed example sheet
    cannot silently make a test meaningless.
    """
    text = src.read_text(encoding="utf-8")
    for old, new in edits:
        assert text.count(old) == 1, f"{old!r} is not exactly once in {src}"
        text = text.replace(old, new)
    dest.write_text(text, encoding="utf-8")
    return dest


def assert_user_error(result, *fragments: str, code: int = 2) -> str:
    """The result is ONE ``error:`` line on stderr, with ``code``; return it."""
    assert "Traceback" not in result.output, result.output
    assert result.exit_code == code, (
        f"exit {result.exit_code}, expected {code}\nstdout: {result.stdout}\nstderr: {result.stderr}"
    )
    lines = result.stderr.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {lines!r}"
    line = lines[0]
    assert line.startswith("error: "), line
    assert "error:" not in result.stdout, result.stdout
    for fragment in fragments:
        assert fragment.lower() in line.lower(), f"{fragment!r} not in {line!r}"
    return line


# --------------------------------------------------------------------------- #
# The runner
# --------------------------------------------------------------------------- #


class Cli:
    """``cli("attack", "vasana", "broo1")`` runs ``affray --db DB attack ...``.

    Global options (``--as``, ``--encounter``) go first in ``args``, as they
    do on the command line. ``catch_exceptions=False``: a traceback fails the
    test. ``db=None`` leaves out ``--db`` (to test ``AFFRAY_DB``).
    """

    def __init__(self, db: Path) -> None:
        self.db = db
        self.runner = CliRunner()

    def __call__(self, *args, env: dict | None = None, db: Path | None | str = "default"):
        target = self.db if db == "default" else db
        argv = (["--db", str(target)] if target is not None else []) + [str(a) for a in args]
        # nothing leaks in from the host's environment unless a test sets it
        environ = {"AFFRAY_DB": None, "AFFRAY_ENCOUNTER": None, "AFFRAY_ACTOR": None, **(env or {})}
        return self.runner.invoke(app, argv, env=environ, catch_exceptions=False)

    def ok(self, *args, **kwargs):
        """Run and require exit 0."""
        result = self(*args, **kwargs)
        assert result.exit_code == 0, (
            f"affray {' '.join(map(str, args))} exited {result.exit_code}\n"
            f"stdout: {result.stdout}\nstderr: {result.stderr}"
        )
        return result

    def json(self, *args, **kwargs):
        """Run ``args --json`` and decode stdout."""
        return json.loads(self.ok(*args, "--json", **kwargs).stdout)

    def state(self, *args) -> dict:
        """``state --json`` (with extra options such as ``--at 1``)."""
        return self.json("state", *args)

    def pending(self) -> list[dict]:
        return self.json("pending")

    def events(self) -> int | None:
        """Rows in the events table."""
        return event_count(self.db)

    def combatant(self, handle: str, *args) -> dict:
        """One combatant of ``state --json``."""
        return next(c for c in self.state(*args)["combatants"] if c["handle"] == handle)


def views_with_old_event_log_all(conn: sqlite3.Connection, old: str) -> None:
    """Recreate the reader views as an older affray left them: ``old`` as
    ``event_log_all``, the others as now (the migration tests)."""
    for name in reversed(READER_VIEWS):
        conn.execute(f"DROP VIEW IF EXISTS {name}")
    conn.execute(f"CREATE VIEW event_log_all AS {old.strip()}")
    for name, sql in list(READER_VIEWS.items())[1:]:
        conn.execute(f"CREATE VIEW {name} AS {sql.strip()}")


def fight_with_mistakes(cli: Cli, target: str) -> None:
    """Encounter ``ford``, with an undone join, an undo/redo/undo, a rewind,
    the GM's set and heal, a restore of more HP than lost (appended as it
    is: the views cap it, as the projection does), ``out`` and ``close``;
    and its branch ``river``, amended with a replay. ``target`` is the
    database (a path, or a PostgreSQL URL). Used by the reader views' and
    the type index's tests."""

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
    with open_store(target) as store:
        v = store.version("ford")
        store.append("ford", v, [HitPointsRestored(handle="broo1", location="head", amount=50)],
                     command_id=f"restore-{v}", actor="gm")
    cli.ok("branch", "river")
    cli.ok("-e", "river", "amend", "1.1", "--mod", "-10:mud", "--replay")
    cli.ok("-e", "ford", "out", "gorp", "fled", "--reason", "morale")
    cli.ok("-e", "ford", "close")


@pytest.fixture
def cli(tmp_path, monkeypatch) -> Cli:
    """A runner whose ``--db`` is ``tmp_path/affray.db`` (not created yet).

    No affray environment leaks in from the host, and the working directory
    is ``tmp_path`` (the default database is ./affray.db).
    """
    for var in ("AFFRAY_DB", "AFFRAY_ENCOUNTER", "AFFRAY_ACTOR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    return Cli(tmp_path / "affray.db")


def _duel(cli: Cli, *new_options: str) -> None:
    cli.ok("new", "Ford", "--system", "mrq1", *new_options)
    cli.ok("join", VASANA, "--side", "heroes")
    cli.ok("join", BROO, "--name", "Broo 1", "--side", "broo")


_RECIPES = {
    # encounter ``ford`` (engine dice, seed 00ff): Vasana v. Broo 1, not started
    "duel": lambda cli: _duel(cli, "--seed", SEED),
    # the same in round 1, strike ranks Vasana 20, Broo 1 13: Vasana's turn
    "fight": lambda cli: (_duel(cli, "--seed", SEED), cli.ok("start", "--dice", "7,3")),
    # like duel, but --manual-dice: every die must be typed
    "manual_duel": lambda cli: _duel(cli, "--manual-dice"),
    "manual_fight": lambda cli: (_duel(cli, "--manual-dice"), cli.ok("start", "--dice", "7,3")),
}


@pytest.fixture(scope="session", autouse=True)
def _own_cache_dir(tmp_path_factory):
    """The help cache (affray.cli.helpcache) of every test run, and of the
    console scripts it starts, in a folder of its own, not ~/.cache."""
    import os

    os.environ["AFFRAY_CACHE_DIR"] = str(tmp_path_factory.mktemp("affray-cache"))
    yield


@pytest.fixture(scope="session")
def _templates(tmp_path_factory):
    """Each recipe's database, built once per session through the CLI."""
    root = tmp_path_factory.mktemp("templates")
    built: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in built:
            runner = Cli(root / f"{name}.db")
            _RECIPES[name](runner)
            built[name] = runner.db
        return built[name]

    return get


def _from_template(cli: Cli, templates, name: str) -> Cli:
    src = templates(name)
    for suffix in ("", "-wal", ".keys"):  # every connection is closed, but be safe; .keys: the seeds
        if Path(f"{src}{suffix}").exists():
            shutil.copyfile(f"{src}{suffix}", f"{cli.db}{suffix}")
    return cli


@pytest.fixture
def duel(cli, _templates) -> Cli:
    """Encounter ``ford`` (engine dice, seed 00ff): Vasana v. Broo 1, not started."""
    return _from_template(cli, _templates, "duel")


@pytest.fixture
def fight(cli, _templates) -> Cli:
    """``duel`` in round 1 with strike ranks Vasana 20, Broo 1 13: Vasana's turn."""
    return _from_template(cli, _templates, "fight")


@pytest.fixture
def manual_duel(cli, _templates) -> Cli:
    """Like ``duel`` but ``--manual-dice``: every die must be typed."""
    return _from_template(cli, _templates, "manual_duel")


@pytest.fixture
def manual_fight(cli, _templates) -> Cli:
    """``manual_duel`` in round 1: Vasana's turn."""
    return _from_template(cli, _templates, "manual_fight")


# --------------------------------------------------------------------------- #
# Fuzzing (tests/test_fuzz_*.py): how many examples, and how many were run
# --------------------------------------------------------------------------- #

#: Cases run per fuzz target in this session (printed at the end of the run).
FUZZ_CASES: dict[str, int] = {}


def fuzz_examples(default: int) -> int:
    """``max_examples`` for a fuzz test: ``default`` (the quick run), or
    ``AFFRAY_FUZZ_EXAMPLES`` (e.g. 2000 for a long run)."""
    import os

    value = os.environ.get("AFFRAY_FUZZ_EXAMPLES", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else default


def fuzz_case(target: str, n: int = 1) -> None:
    """Count ``n`` cases run against ``target`` (cli, sheets, dice, db)."""
    FUZZ_CASES[target] = FUZZ_CASES.get(target, 0) + n


def pytest_terminal_summary(terminalreporter):
    """One line per fuzz target with the number of cases run; with
    ``AFFRAY_FUZZ_REPORT=path`` the counts are also written there as JSON."""
    if not FUZZ_CASES:
        return
    import os

    for target, n in sorted(FUZZ_CASES.items()):
        terminalreporter.write_line(f"fuzz {target}: {n:,} cases")
    report = os.environ.get("AFFRAY_FUZZ_REPORT")
    if report:
        Path(report).write_text(json.dumps(FUZZ_CASES, indent=2, sort_keys=True) + "\n")


def assert_clean_outcome(result, *, verify: bool = False) -> None:
    """A fuzzed run either succeeded, or failed as a user error should:
    no traceback, and exit 2 (3 for a conflict) with ONE ``error:`` line on
    stderr. ``verify`` also allows ``affray verify``'s exit 1 with its
    ``FAILED:`` lines (the log does not verify: a finding, not an error)."""
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output
    if result.exit_code == 0:
        return
    if verify and result.exit_code == 1:
        lines = result.stderr.rstrip("\n").split("\n")
        assert lines and all(line.startswith("FAILED: ") for line in lines), result.stderr
        return
    if verify and result.exit_code == 4:  # intact, but the dice seed is not revealed (issue 11): not an error
        assert not result.stderr and "dice cannot be checked" in result.stdout, result.output
        return
    assert result.exit_code in (2, 3), (
        f"exit {result.exit_code}\nstdout: {result.stdout[-2000:]}\nstderr: {result.stderr[-2000:]}"
    )
    lines = result.stderr.rstrip("\n").split("\n")  # not splitlines(): U+2028 and \x1c are not line ends here
    assert len(lines) == 1 and lines[0].startswith("error: "), f"expected one error line, got {lines!r}"
    assert "\r" not in lines[0], f"a carriage return in the error line: {lines[0]!r}"


def affray_process(*args: str, **kw):
    """``affray ARGS`` in a fresh Python process (``subprocess.run`` keyword
    arguments in ``kw``), with no ``AFFRAY_*`` variable of the host's."""
    import os
    import subprocess
    import sys

    code = "import sys; from affray.cli.app import main; sys.argv[0] = 'affray'; main()"
    env = {k: v for k, v in os.environ.items() if not k.startswith("AFFRAY_")}
    return subprocess.run([sys.executable, "-c", code, *args], env=env, **kw)


def affray_on_a_terminal(*args: str):
    """``(process, shown)``: ``affray ARGS`` run with stderr on a
    pseudo-terminal (stdout a pipe, ``process.stdout`` bytes) and ``shown``
    every byte drawn on that terminal (Linux pseudo-terminals)."""
    import os
    import pty
    import subprocess

    master, slave = pty.openpty()
    try:
        proc = affray_process(*args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, timeout=60)
        os.close(slave)
        slave = -1
        shown = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)
    return proc, shown
