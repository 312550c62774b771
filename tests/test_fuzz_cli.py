"""Hostile input on the command line, fuzzed with hypothesis (issue 6).

Every run of a random command line either succeeds or fails as DESIGN.md
says a user error fails: no traceback (the runner uses
``catch_exceptions=False``, so one fails the test), exit 2 (3 for a
conflict), ONE ``error:`` line on stderr, and no event appended (the row
count of the file, read with sqlite3). A read verb never appends, and the log
verifies after every run.

Text a user typed (names, notes, reasons, actors) is stored exactly as typed,
so it went into SQL as a parameter, and comes out of the HTML export escaped.
The source is also read for SQL built from anything but constants, and for
pickle, eval and unsafe YAML. A sample of the hostile cases runs through the
real console script in a subprocess.

``AFFRAY_FUZZ_EXAMPLES=2000`` makes every fuzz test run that many examples.
"""

from __future__ import annotations

import ast
import html
import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from affray.store import EventStore
from affray.text import safe_line

from conftest import copy_log, BROO, GORP, VASANA, Cli, assert_clean_outcome, event_count, fuzz_case, fuzz_examples

SRC = Path(__file__).resolve().parents[1] / "src" / "affray"

FUZZ = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: Text chosen to break things: SQL, HTML, BBCode and Markdown syntax, NUL,
#: control characters, right-to-left overrides, emoji, very long strings.
HOSTILE = [
    "'",
    '"',
    "''; --",
    "'; DROP TABLE events; --",
    '"; DROP TABLE heads; --',
    "Robert'); DROP TABLE events;--",
    "1 OR 1=1",
    "<script>alert(1)</script>",
    "<img src=x onerror=\"document.title='pwned'\">",
    '"><svg onload=alert(1)>',
    "&lt;b&gt; &amp; &#x3C;",
    "[b]bold[/b] [url=javascript:alert(1)]x[/url]",
    "**bold** `code` @everyone ~~s~~ # heading",
    "a\x00b",
    "\x00",
    "tab\there",
    "line one\nline two",
    "cr\rlf",
    "\x1b[31mred\x1b[0m",
    "\u202eevil\u202c right-to-left",
    "שלום עליכם",
    "مرحبا بالعالم",
    "🗡️🛡️💀 👨‍👩‍👧",
    "e\u0301\u0301\u0301",
    "\ufeffbom",
    "\u2028\u2029\x85",
    "%s %n %x {0} {name}",
    "$(touch pwned) `touch pwned`",
    "../../../../etc/passwd",
    "-",
    "--",
    "-1",
    "x" * 10_000,
    "é" * 3000,
]

ALL_VERBS = [
    "new", "join", "start", "attack", "react", "roll", "choose", "act", "end-round", "note",
    "undo", "redo", "close", "list", "state", "pending", "log", "export", "verify", "rulings",
    "rewind", "branch", "amend", "why", "replay", "audit", "import",
]
READ_VERBS = {"list", "state", "pending", "log", "export", "verify", "rulings", "why", "replay", "audit"}

text = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=30), st.text(alphabet="abc-_ .:,0123456789", max_size=12))
word = st.sampled_from(
    ["vasana", "broo1", "Broo", "v", "parry", "dodge", "none", "riposte", "defend", "pass", "follow", "stay",
     "yank", "leave", "broadsword", "target shield", "chest", "head", "unconscious", "1", "1.1", "1.2", "0", "c1"]
)
value = st.one_of(word, text)
dice_text = st.one_of(
    st.lists(st.integers(0, 120).map(str), min_size=1, max_size=4).map(",".join),
    st.text(alphabet="0123456789, -x", max_size=12),
    text,
)
mod_text = st.one_of(st.builds(lambda n, r: f"{n}:{r}", st.integers(-200, 200), text), text)
point = st.one_of(st.sampled_from(["1", "1.1", "1.2", "0", "0.0", "2", "1.99", "-1", "x", "", "1.2.3"]), text)
safe_name = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.", min_size=1, max_size=12)
out_path = st.one_of(
    safe_name.map(lambda s: f"out-{s}"),
    st.sampled_from(["", ".", "/nonexistent-dir/fight.md", "out-dir/", "a\x00b"]),
)

#: option -> strategy of its value (None: a flag), per verb.
OPTIONS = {
    "new": {"--system": st.sampled_from(["mrq1", "MRQ1", "mythras", "rq3", "dnd5e", ""]), "--manual-dice": None,
            "--ruling": st.one_of(st.sampled_from(["critical_on=natural", "ties=simultaneous", "x=y", "=", "critical_on"]), text),
            "--id": value, "--seed": st.one_of(st.sampled_from(["00ff", "", "zz", "0"]), text)},
    "join": {"--side": value, "--name": value, "--handle": value, "--surprised": None},
    "start": {"--dice": dice_text, "--reroll": text},
    "attack": {"--weapon": value, "--mod": mod_text, "--situation": value, "--dice": dice_text, "--reroll": text},
    "react": {"--with": value, "--mod": mod_text, "--situation": value, "--dice": dice_text, "--reroll": text},
    "roll": {"--dice": dice_text, "--reroll": text},
    "end-round": {"--dice": dice_text, "--reroll": text},
    "note": {"--secret": None},
    "close": {"--reason": text},
    "list": {"--json": None},
    "state": {"--json": None, "--at": point, "--version": st.one_of(st.integers(-3, 40).map(str), text)},
    "pending": {"--json": None},
    "log": {"--json": None, "--dice": None},
    "export": {"--format": st.one_of(st.sampled_from(["markdown", "bbcode", "discord", "html", "jsonl", "pdf"]), text),
               "--out": out_path, "--round": point, "--secret": None},
    "verify": {"--dice": None},
    "rulings": {"--system": st.sampled_from(["mrq1", "mythras", "dnd5e", ""])},
    "rewind": {"--to": point, "--version": st.integers(-3, 40).map(str)},
    "branch": {"--at": point, "--version": st.integers(-3, 40).map(str), "--id": value},
    "amend": {"--mod": mod_text, "--situation": value, "--reaction": value, "--target": value, "--weapon": value,
              "--dice": dice_text, "--reroll": text, "--replay": None, "--on-branch": value},
    "why": {"--json": None},
    "replay": {"--round": st.one_of(st.integers(-2, 5).map(str), text), "--json": None},
    "audit": {"--json": None},
    "import": {"--as-id": value},
}
POSITIONALS = {
    "new": [value], "join": [st.sampled_from([str(VASANA), str(BROO), str(GORP), "missing.toml", "sheet.txt", "."])],
    "attack": [value, value], "react": [value, value], "roll": [value], "choose": [value, value],
    "act": [value, value], "note": [text], "branch": [value], "amend": [point], "why": [value, value],
    "import": [st.sampled_from(["missing.jsonl", "-", ".", str(VASANA)])],
}


@st.composite
def command_lines(draw) -> list[str]:
    """A command line: global options, a verb, and either its own
    arguments and options with random values, or a random soup."""
    argv: list[str] = []
    if draw(st.booleans()):
        argv += ["--as", draw(value)]
    if draw(st.integers(0, 4)) == 0:
        argv += ["--encounter", draw(st.one_of(st.just("ford"), value))]
    verb = draw(st.sampled_from(ALL_VERBS))
    argv.append(verb)
    if draw(st.integers(0, 4)) == 0:  # soup: anything, anywhere
        argv += draw(st.lists(st.one_of(value, st.sampled_from(["--dice", "--json", "--mod", "--at", "-e", "--help"])), max_size=5))
        return argv
    positionals = POSITIONALS.get(verb, [])
    keep = draw(st.integers(max(0, len(positionals) - 1), len(positionals)))  # sometimes one short
    argv += [draw(s) for s in positionals[:keep]]
    options = OPTIONS.get(verb, {})
    for name in draw(st.lists(st.sampled_from(sorted(options)), max_size=3)) if options else []:
        argv.append(name)
        if options[name] is not None:
            argv.append(draw(options[name]))
    return argv


# --------------------------------------------------------------------------- #
# A log with some history: round 1, one exchange done, a note
# --------------------------------------------------------------------------- #


@pytest.fixture(scope="module")
def history_db(_templates, tmp_path_factory) -> Path:
    """``fight`` plus Vasana's attack, Broo 1's parry, the damage roll and a
    note, so that undo, rewind, amend and why have something to work on."""
    db = tmp_path_factory.mktemp("fuzz-cli") / "history.db"
    copy_log(_templates("fight"), db)
    runner = Cli(db)
    runner.ok("attack", "vasana", "broo1", "--dice", "34")
    runner.ok("react", "broo1", "parry", "--dice", "71,34")
    runner.ok("roll", "--dice", "1,1,1")
    runner.ok("note", "the ford counts as unstable ground")
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db


def fresh_copy(template: Path, dest: Path) -> Path:
    """``template`` copied over ``dest`` (its -wal and -shm removed first)."""
    for suffix in ("-wal", "-shm"):
        Path(f"{dest}{suffix}").unlink(missing_ok=True)
    copy_log(template, dest)
    return dest


def schema_objects(db: Path) -> list[tuple[str, str]]:
    with closing(sqlite3.connect(Path(db).resolve().as_uri() + "?mode=ro", uri=True)) as conn:
        return sorted(conn.execute("SELECT type, name FROM sqlite_master").fetchall())


def test_hostile_catalogue_is_not_trivial():
    assert any("\x00" in t for t in HOSTILE) and any(len(t) >= 10_000 for t in HOSTILE)


@settings(max_examples=fuzz_examples(100), **FUZZ)
@given(argv=command_lines())
def test_random_command_lines(cli, history_db, tmp_path, argv):
    db = fresh_copy(history_db, tmp_path / "work.db")
    before = event_count(db)
    result = cli(*argv, db=db)
    fuzz_case("cli")
    assert_clean_outcome(result)
    after = event_count(db)
    verb = next((a for a in argv if a in ALL_VERBS), "")
    if result.exit_code != 0 or verb in READ_VERBS or "--help" in argv:
        assert after == before, f"{argv}: {after - before} events appended (exit {result.exit_code})"
    with EventStore(db, readonly=True) as store:
        assert store.verify() == [], argv


# --------------------------------------------------------------------------- #
# The user's text: verbatim in the log (SQL parameters), escaped in HTML
# --------------------------------------------------------------------------- #


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attrs: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs.update(a for a, _ in attrs)

    def handle_data(self, data):
        self.text.append(data)


def _html_shape(page: str) -> _Tags:
    parser = _Tags()
    parser.feed(page)
    parser.close()
    return parser


@pytest.fixture(scope="module")
def html_baseline(history_db, tmp_path_factory) -> _Tags:
    """The tags and attributes of an export of the history log, no hostile text in it."""
    db = fresh_copy(history_db, tmp_path_factory.mktemp("baseline") / "b.db")
    page = Cli(db).ok("export", "--format", "html").stdout
    return _html_shape(page)


def _stored_strings(db: Path, first_seq: int) -> list[str]:
    """Every string in the data and envelopes of the events after ``first_seq``."""
    out: list[str] = []

    def walk(x):
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, dict):
            for k, v in x.items():
                walk(k)
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    with closing(sqlite3.connect(Path(db).resolve().as_uri() + "?mode=ro", uri=True)) as conn:
        for actor, data in conn.execute("SELECT actor, data FROM events WHERE seq > ?", (first_seq,)):
            out.append(actor)
            walk(json.loads(data))
    return out


@settings(max_examples=fuzz_examples(12), **FUZZ)
@given(t=text.filter(lambda s: s.strip()), secret=st.booleans())
def test_user_text_is_stored_verbatim_and_escaped(cli, history_db, html_baseline, tmp_path, t, secret):
    db = fresh_copy(history_db, tmp_path / "text.db")
    objects = schema_objects(db)
    with closing(sqlite3.connect(db)) as conn:
        first_seq = conn.execute("SELECT max(seq) FROM events").fetchone()[0]
    runs = [
        ("--as", t, "note", t) + (("--secret",) if secret else ()),
        ("--as", t, "attack", "broo1", "vasana", "--mod", f"-5:{t}", "--dice", "34"),
        ("react", "vasana", "none"),
        ("join", str(GORP), "--side", t, "--name", t),
        ("close", "--reason", t),
    ]
    for argv in runs:
        result = cli(*argv, db=db)
        fuzz_case("cli")
        assert_clean_outcome(result)
    stored = _stored_strings(db, first_seq)
    # a note and an actor are kept exactly as typed: the text went into SQL as a parameter
    assert t in stored, f"{t!r} is not in the log as typed"
    assert schema_objects(db) == objects, "the schema changed"
    with EventStore(db, readonly=True) as store:
        assert store.verify() == []

    for fmt in ("markdown", "bbcode", "discord"):  # each format's own escaping is tested in test_exports.py
        result = cli("--encounter", "ford", "export", "--format", fmt, "--secret", db=db)
        fuzz_case("cli")
        assert_clean_outcome(result)
        assert result.exit_code == 0
    result = cli("--encounter", "ford", "export", "--format", "html", "--secret", db=db)
    fuzz_case("cli")
    assert result.exit_code == 0, result.stderr
    page = result.stdout
    shape = _html_shape(page)
    assert shape.tags <= html_baseline.tags | {"del"}, f"tags from the user's text: {shape.tags - html_baseline.tags}"
    assert shape.attrs <= html_baseline.attrs | {"title"}, f"attributes from the user's text: {shape.attrs - html_baseline.attrs}"
    assert "<script" not in page.lower()
    if t.splitlines() == [t] and len(t) < 200 and t == t.strip():
        shown = safe_line(t)  # controls, escape sequences and bidi characters made safe (affray.text)
        assert shown in html.unescape(page) or shown in "".join(shape.text), f"{t!r} is not shown as {shown!r}"
    result = cli("--encounter", "ford", "export", "--format", "jsonl", "--secret", db=db)
    fuzz_case("cli")
    assert result.exit_code == 0, result.stderr
    jsonl = result.stdout
    rows = [json.loads(line) for line in jsonl.split("\n") if line.strip()]
    assert any(t in _flatten(r) for r in rows), f"{t!r} is not in the jsonl export"


def _flatten(x) -> list[str]:
    if isinstance(x, str):
        return [x]
    if isinstance(x, dict):
        return [s for k, v in x.items() for s in _flatten(k) + _flatten(v)]
    if isinstance(x, list):
        return [s for v in x for s in _flatten(v)]
    return []


@pytest.mark.parametrize("t", HOSTILE, ids=lambda t: repr(t[:20]))
def test_hostile_names_open_and_join(cli, t):
    """An encounter named with hostile text, and a combatant and side too."""
    result = cli("new", t, "--seed", "00ff" * 8)
    fuzz_case("cli")
    assert_clean_outcome(result)
    if result.exit_code:
        assert not cli.db.exists() or event_count(cli.db) == 0
        return
    before = event_count(cli.db)
    result = cli("join", str(VASANA), "--side", t, "--name", t)
    fuzz_case("cli")
    assert_clean_outcome(result)
    if result.exit_code:
        assert event_count(cli.db) == before
    before = event_count(cli.db)
    for verb in (("state",), ("state", "--json"), ("pending",), ("log",), ("list",), ("verify",), ("export", "-f", "html")):
        fuzz_case("cli")
        result = cli(*verb)
        assert_clean_outcome(result)
        assert result.exit_code == 0, (verb, result.stderr)
    assert event_count(cli.db) == before


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["note", "bad \udcff byte"], id="note"),
        pytest.param(["--as", "\udcfe\udcff", "note", "hi"], id="actor"),
        pytest.param(["--encounter", "\udcff", "state"], id="encounter-read"),
        pytest.param(["--encounter", "\udcff", "note", "hi"], id="encounter-write"),
        pytest.param(["new", "\udcff"], id="new"),
        pytest.param(["attack", "vasana", "broo1", "--mod", "-5:\udcff", "--dice", "34"], id="mod-reason"),
    ],
)
def test_bytes_that_are_not_utf8(fight, argv):
    """Bytes that are not UTF-8 on a command line reach Python as lone
    surrogates, which no JSON or SQLite text can hold: one error line."""
    before = fight.events()
    fuzz_case("cli")
    result = fight(*argv)
    assert_clean_outcome(result)
    assert result.exit_code == 2 and "not UTF-8" in result.stderr
    assert fight.events() == before


@pytest.mark.parametrize(
    "argv, db",
    [
        pytest.param(["export", "--out", "fight\x00.md"], None, id="export-out"),
        pytest.param(["import", "fight\x00.jsonl"], None, id="import"),
        pytest.param(["join", "broo\x00.toml", "--side", "x"], None, id="join"),
        pytest.param(["new", "Bridge"], "new\x00.db", id="new-db"),
        pytest.param(["state"], "x\x00.db", id="state-db"),
    ],
)
def test_nul_bytes_in_file_names(fight, tmp_path, argv, db):
    """No file name can hold a NUL byte (a shell cannot even pass one; the
    Python API and test runners can): one error line, nothing written."""
    before = fight.events()
    result = fight(*argv, db=fight.db if db is None else tmp_path / db)
    fuzz_case("cli")
    assert_clean_outcome(result)
    assert result.exit_code == 2
    assert fight.events() == before


# --------------------------------------------------------------------------- #
# The source: no SQL built from user text, nothing that runs code
# --------------------------------------------------------------------------- #

#: Interpolations allowed in an f-string handed to execute(): constants of
#: affray's own, never text from a user.
SQL_INTERPOLATIONS = {
    "op.lower()",  # schema.py: the trigger names, from the tuple ("UPDATE", "DELETE")
    "op",
    "SCHEMA_VERSION",  # an int constant
    "APPLICATION_ID",  # schema.py: an int constant ("AFRY")
    "synchronous",  # sqlite.py: checked against ("FULL", "NORMAL", "EXTRA") first
    "', '.join('?' * len(chunk))",  # placeholders: the values are parameters
    "_COLUMNS",
    "TYPE_INDEX_WHERE",  # schema.py: the partial type index's WHERE, from the constant INDEXED_TYPES
    "ROW_KEY_SQL",  # schema.py: the fold's row key, a constant CASE over the schema and type columns
    "_ROW_COLUMNS",  # sqlite.py: the fold's three columns, from ROW_KEY_SQL
    "header_version",  # schema.clone_schema: ints read from an affray file's header, through int()
    "header_app_id",
}
EXECUTE = {"execute", "executemany", "executescript"}


def _sources():
    for path in sorted(SRC.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_sql_is_never_built_from_user_text():
    """Every SQL string given to execute() is a constant, a name bound to
    one, or an f-string of affray's own constants; never %-formatting,
    .format() or concatenation at the call."""
    problems = []
    checked = 0
    for path, tree in _sources():
        module_fstrings = {
            t.id: node.value
            for node in tree.body
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.JoinedStr)
            for t in node.targets
            if isinstance(t, ast.Name)
        }
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in EXECUTE):
                continue
            if not node.args:
                continue
            checked += 1
            sql = node.args[0]
            if isinstance(sql, ast.Name) and sql.id in module_fstrings:
                sql = module_fstrings[sql.id]
            where = f"{path.relative_to(SRC)}:{node.lineno}"
            if isinstance(sql, ast.JoinedStr):
                for part in sql.values:
                    if isinstance(part, ast.FormattedValue):
                        src = ast.unparse(part.value)
                        if src not in SQL_INTERPOLATIONS:
                            problems.append(f"{where}: SQL f-string interpolates {src}")
            elif isinstance(sql, (ast.BinOp, ast.Call)):
                problems.append(f"{where}: SQL built at the call ({ast.unparse(sql)[:80]})")
            elif not isinstance(sql, (ast.Constant, ast.Name, ast.Attribute, ast.Subscript)):
                problems.append(f"{where}: SQL of an unexpected form ({ast.unparse(sql)[:80]})")
    assert checked > 20
    assert not problems, "\n".join(problems)


def test_nothing_can_make_affray_run_code():
    """No pickle, marshal or shelve; no eval, exec or compile; YAML only
    through msgspec's safe loader or yaml.parse (events, no objects)."""
    problems = []
    for path, tree in _sources():
        where = lambda n: f"{path.relative_to(SRC)}:{n.lineno}"  # noqa: E731
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
                for name in names:
                    if name.split(".")[0] in {"pickle", "cPickle", "dill", "cloudpickle", "marshal", "shelve", "jsonpickle"}:
                        problems.append(f"{where(node)}: imports {name}")
            elif isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                if isinstance(f, ast.Name) and name in {"eval", "exec", "compile", "__import__"}:
                    problems.append(f"{where(node)}: calls {name}()")
                if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "yaml":
                    if name not in {"parse"}:
                        problems.append(f"{where(node)}: yaml.{name}() (use msgspec.yaml, the safe loader)")
                if name in {"system", "popen", "Popen", "run", "call", "check_output"} and isinstance(f, ast.Attribute) and (
                    isinstance(f.value, ast.Name) and f.value.id in {"os", "subprocess"}
                ):
                    problems.append(f"{where(node)}: runs a program ({ast.unparse(f)})")
            elif isinstance(node, ast.Attribute) and node.attr in {"UnsafeLoader", "FullLoader", "Loader", "unsafe_load", "full_load"}:
                if isinstance(node.value, ast.Name) and node.value.id == "yaml":
                    problems.append(f"{where(node)}: yaml.{node.attr}")
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- #
# A sample through the real console script
# --------------------------------------------------------------------------- #


def _console() -> list[str]:
    exe = Path(sys.executable).with_name("affray")
    return [str(exe)] if exe.exists() else [sys.executable, "-c", "from affray.cli.main import main; main()"]


def _bytes_arg(b: bytes) -> str:
    return os.fsdecode(b)  # as the OS hands undecodable bytes to Python: surrogateescape


SUBPROCESS_SAMPLE = [
    pytest.param(["note", "'; DROP TABLE events; --"], 0, id="sql-note"),
    pytest.param(["note", "<script>alert(1)</script>"], 0, id="html-note"),
    pytest.param(["--as", "\u202eevil 🗡️", "note", "שלום"], 0, id="rtl-emoji"),
    pytest.param(["note", _bytes_arg(b"bad \xff byte")], 2, id="not-utf8-note"),
    pytest.param(["--encounter", _bytes_arg(b"\xfe"), "state"], 2, id="not-utf8-fast-path"),
    pytest.param(["attack", "vasana", "broo1", "--dice", "34,,x"], 2, id="bad-dice"),
    pytest.param(["attack", "vasana", "broo1", "--dice", "9" * 5000], 2, id="huge-dice"),
    pytest.param(["attack", "vasana", "broo1", "--mod", "-20"], 2, id="mod-without-reason"),
    pytest.param(["state", "--at", "'; --"], 2, id="state-at-garbage"),
    pytest.param(["frobnicate", "--now"], 2, id="unknown-verb"),
    pytest.param(["join", "{deep}", "--side", "x"], 2, id="deep-yaml-sheet"),
    pytest.param(["join", "{pwned}", "--side", "x"], 2, id="yaml-python-tag"),
]


@pytest.mark.parametrize("argv, code", SUBPROCESS_SAMPLE)
def test_console_script_sample(fight, tmp_path, argv, code):
    deep = tmp_path / "deep.yaml"
    deep.write_text("name: " + "[" * 60_000 + "]" * 60_000 + "\n")
    marker = tmp_path / "pwned"
    pwned = tmp_path / "pwned.yaml"
    pwned.write_text(f'!!python/object/apply:os.system ["touch {marker}"]\n')
    argv = [a.replace("{deep}", str(deep)).replace("{pwned}", str(pwned)) for a in argv]
    before = fight.events()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AFFRAY_")}
    env["AFFRAY_ACTOR"] = "fuzz"
    env["AFFRAY_CACHE_DIR"] = str(tmp_path / "cache")  # the help cache of this test, not ~/.cache
    proc = subprocess.run(
        _console() + ["--db", str(fight.db), *argv], capture_output=True, env=env, cwd=tmp_path, timeout=120
    )
    fuzz_case("cli (console script)")
    out, err = proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in out + err, err
    assert proc.returncode == code, f"exit {proc.returncode}: {err}"
    if code:
        lines = err.rstrip("\n").split("\n")
        assert len(lines) == 1 and lines[0].startswith("error: "), lines
        assert fight.events() == before
    assert not marker.exists()
