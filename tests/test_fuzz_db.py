"""Hostile database files, fuzzed with hypothesis (issue 6).

A real log (a fight with an exchange, a note, a round ended and so a
snapshot) is cut at a random byte, has random bytes overwritten, is replaced
by a file of another type (or an empty one, or a SQLite file laid out
otherwise), or has its hash chain edited behind affray's back (an event's
data, actor, time or hash changed, events deleted, swapped or forged, the
head moved). Then a random verb runs on it. Whatever the damage:

- no traceback: success, or ONE ``error:`` line with exit 2 (3 for a
  conflict); ``affray verify`` may also exit 1 with its ``FAILED:`` lines;
- nothing appended on error: the row count of ``events`` (where sqlite3 can
  still count it) or else the file's bytes are as they were;
- an edited hash chain is always found by ``affray verify``.

test_bad_input.py has the fixed cases (one random file, one truncation at
the middle, a foreign SQLite file); these vary the damage.
"""

from __future__ import annotations

import gzip
import io
import itertools
import json
import sqlite3
import zipfile
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from affray.store import SCHEMA_VERSION

from conftest import copy_log, Cli, assert_clean_outcome, fuzz_case, fuzz_examples

FUZZ = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

READS = [
    ["state"], ["state", "--json"], ["pending", "--json"], ["log", "--json"], ["export"], ["export", "-f", "html"],
    ["export", "-f", "jsonl", "--secret"], ["verify"], ["verify", "--dice"], ["list"], ["why", "broo1", "right leg"],
    ["replay", "--round", "1"], ["audit"], ["state", "--version", "5"], ["state", "--at", "1"], ["state", "--at", "1.2"],
    ["why", "broo1"],
]
WRITES = [
    ["note", "hello"], ["attack", "broo1", "vasana", "--dice", "34"], ["attack", "vasana", "broo1"], ["undo"],
    ["redo"], ["new", "Bridge"], ["end-round"], ["start"], ["react", "broo1", "parry"], ["roll"],
    ["act", "vasana", "pass"], ["choose", "vasana", "follow"], ["close"],
]
verbs = st.sampled_from(READS + WRITES)


@pytest.fixture(scope="module")
def log_db(_templates, tmp_path_factory) -> Path:
    """A real log, every page in the main file (WAL checkpointed and gone)."""
    db = tmp_path_factory.mktemp("fuzz-db") / "log.db"
    copy_log(_templates("fight"), db)
    runner = Cli(db)
    runner.ok("attack", "vasana", "broo1", "--dice", "34")
    runner.ok("react", "broo1", "parry", "--dice", "71,34")
    runner.ok("roll", "--dice", "1,1,1")
    runner.ok("note", "the ford counts as unstable ground")
    runner.ok("end-round")
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert conn.execute("SELECT count(*) FROM snapshots").fetchone()[0] >= 1
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    return db


_PLACED = itertools.count()


def _place(db: Path, data: bytes) -> Path:
    """``data`` written to a new file named after ``db`` (a new name each
    time: a connection of an earlier example that the garbage collector has
    not closed yet must not meet this example's file)."""
    db = db.with_name(f"{db.stem}-{next(_PLACED)}{db.suffix}")
    db.write_bytes(data)
    return db


def _footprint(db: Path):
    """What a command must not change when it fails: the tables and their
    row counts if sqlite3 can read them (so a header-only change, such as
    the journal mode, does not count), else the file's bytes."""
    try:
        with closing(sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)) as conn:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
            return ("rows", [(t, conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]) for t in tables])
    except (sqlite3.Error, UnicodeDecodeError):  # a damaged schema's text may not even decode
        return ("bytes", db.read_bytes() if db.exists() else None)


def run_on(cli: Cli, db: Path, argv: list[str], target: str):
    before = _footprint(db)
    result = cli(*argv, db=db)
    fuzz_case(target)
    assert_clean_outcome(result, verify=argv[0] == "verify")
    if result.exit_code not in (0, 1) or argv in READS:
        after = _footprint(db)
        if before[0] == "rows" and after[0] == "rows":
            assert after == before, f"{argv}: events appended on error"
        elif before[0] == "bytes":
            assert db.read_bytes() == before[1], f"{argv}: the file was changed"
    return result


# --------------------------------------------------------------------------- #
# Truncated, corrupted
# --------------------------------------------------------------------------- #


@settings(max_examples=fuzz_examples(60), **FUZZ)
@given(cut=st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1 / 4096, 0.5, 0.999])), argv=verbs)
def test_truncated(cli, log_db, tmp_path, cut, argv):
    data = log_db.read_bytes()
    n = min(len(data) - 1, int(len(data) * cut))
    db = _place(tmp_path / "cut.db", data[:n])
    run_on(cli, db, argv, "db")


@settings(max_examples=fuzz_examples(80), **FUZZ)
@given(
    patches=st.lists(st.tuples(st.floats(0, 1), st.binary(min_size=1, max_size=16)), min_size=1, max_size=4),
    header=st.booleans(),
    argv=verbs,
)
def test_corrupted(cli, log_db, tmp_path, patches, header, argv):
    data = bytearray(log_db.read_bytes())
    for where, junk in patches:
        at = int(where * 100) if header else int(where * (len(data) - len(junk)))  # the header is the first 100 bytes
        data[at:at + len(junk)] = junk
    db = _place(tmp_path / "corrupt.db", bytes(data))
    run_on(cli, db, argv, "db")


# --------------------------------------------------------------------------- #
# Not an affray database at all
# --------------------------------------------------------------------------- #


def _zip(payload: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("affray.db", payload)
    return buf.getvalue()


def _sqlite(tmp_path: Path, statements: list[str]) -> bytes:
    path = tmp_path / "other.sqlite"
    path.unlink(missing_ok=True)
    with closing(sqlite3.connect(path)) as conn:
        for sql in statements:
            conn.execute(sql)
        conn.commit()
    return path.read_bytes()


OTHER_SQLITE = {
    # right user_version, nothing in it
    "affray-version-no-tables": [f"PRAGMA user_version = {SCHEMA_VERSION}"],
    # right user_version, an events table of another shape
    "affray-version-other-events": [
        f"PRAGMA user_version = {SCHEMA_VERSION}", "CREATE TABLE events (id INTEGER, what TEXT)",
        "INSERT INTO events VALUES (1, 'x')", "CREATE TABLE heads (x)",
    ],
    # right tables, wrong column types in a row
    "affray-version-bad-row": [
        f"PRAGMA user_version = {SCHEMA_VERSION}",
        "CREATE TABLE events (seq INTEGER PRIMARY KEY, encounter_id, version, command_id, type, schema, data, recorded_at, actor, hash)",
        "CREATE TABLE heads (encounter_id PRIMARY KEY, version, hash)",
        "CREATE TABLE snapshots (encounter_id, version, data, PRIMARY KEY (encounter_id, version))",
        "CREATE TABLE dice_seeds (encounter_id PRIMARY KEY, seed)",
        "INSERT INTO events VALUES (1, 'ford', 1, 'c1', 'encounter-opened', 1, x'00ff', 5, NULL, 7)",
        "INSERT INTO heads VALUES ('ford', 1, 7)",
    ],
    "foreign": ["CREATE TABLE recipes (name TEXT)", "INSERT INTO recipes VALUES ('stew')"],
}
#: Another program's files that set a user_version, as many do.
FOREIGN_WITH_USER_VERSION = {
    "user-version-1": ["PRAGMA user_version = 1", "CREATE TABLE recipes (name TEXT)"],
    "user-version-negative": ["PRAGMA user_version = -5"],
}


@st.composite
def wrong_files(draw) -> tuple[str, object]:
    kind = draw(st.sampled_from(
        ["empty", "random", "sqlite-header", "text", "json", "jsonl", "gzip", "zip", "png", "pdf", "elf", "sqlite"]
    ))
    tail = draw(st.binary(max_size=5000))
    return kind, {
        "empty": b"",
        "random": tail,
        "sqlite-header": b"SQLite format 3\x00" + tail,
        "text": draw(st.text(max_size=400)).encode("utf-8", "surrogatepass"),
        "json": json.dumps({"events": [1, 2, 3], "note": draw(st.text(max_size=30))}).encode(),
        "jsonl": None,  # an export of the real log, given to --db by mistake
        "gzip": gzip.compress(tail),
        "zip": _zip(tail),
        "png": b"\x89PNG\r\n\x1a\n" + tail,
        "pdf": b"%PDF-1.7\n" + tail,
        "elf": b"\x7fELF\x02\x01\x01" + tail,
        "sqlite": draw(st.sampled_from(sorted(OTHER_SQLITE))),
    }[kind]


@settings(max_examples=fuzz_examples(40), **FUZZ)
@given(wrong=wrong_files(), argv=verbs)
def test_wrong_file_type(cli, log_db, tmp_path, wrong, argv):
    kind, data = wrong
    if kind == "jsonl":
        data = Cli(log_db)("export", "-f", "jsonl", "--secret").stdout.encode()
    elif kind == "sqlite":
        data = _sqlite(tmp_path, OTHER_SQLITE[data])
    db = _place(tmp_path / "wrong.db", data)
    result = run_on(cli, db, argv, "db")
    if result.exit_code == 0:
        # only 'new' may lay out a log: in an empty file, in one laid out as
        # affray's already
        laid_out = kind == "empty" or not data or (kind == "sqlite" and data.startswith(b"SQLite") and argv[0] == "new")
        assert argv[0] == "new" and laid_out, f"{kind}: {argv} succeeded on a file that is not an affray log"


@pytest.mark.parametrize("argv", [["new", "Bridge"], ["note", "hello"]], ids=lambda a: a[0])
@pytest.mark.parametrize("kind", sorted(FOREIGN_WITH_USER_VERSION))
def test_a_foreign_sqlite_file_with_a_user_version_is_left_alone(cli, tmp_path, kind, argv):
    """Another program's SQLite file that sets PRAGMA user_version must be
    refused as one at user_version 0 is, not given affray's tables (today
    'new' succeeds in it, and a refused 'note' still lays the tables out)."""
    db = _place(tmp_path / "other.db", _sqlite(tmp_path, FOREIGN_WITH_USER_VERSION[kind]))
    before = _footprint(db)
    result = cli(*argv, db=db)
    assert_clean_outcome(result)
    assert result.exit_code == 2 and _footprint(db) == before


# --------------------------------------------------------------------------- #
# A hash chain edited behind affray's back
# --------------------------------------------------------------------------- #

EDITS = [
    "data", "actor", "recorded_at", "hash", "command_id", "type", "schema", "delete", "delete-last",
    "swap", "reorder", "forge", "head-version", "head-hash", "version",
]


def _tamper(db: Path, edit: str, pick: float, text: str) -> None:
    """Apply ``edit`` to event number ``pick`` (0..1 of the log) by hand,
    with the append-only triggers dropped and put back."""
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        triggers = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
        for name, _ in triggers:
            conn.execute(f'DROP TRIGGER "{name}"')
        n = conn.execute("SELECT max(version) FROM events WHERE encounter_id = 'ford'").fetchone()[0]
        v = 1 + int(pick * (n - 1))
        w = v + 1 if v < n else v - 1
        row = conn.execute("SELECT seq, data FROM events WHERE encounter_id = 'ford' AND version = ?", (v,)).fetchone()
        seq, data = row
        if edit == "data":
            doc = json.loads(data)
            key = next((k for k in doc if k != "type"), None)
            if key is None or doc[key] == text:
                doc["extra"] = text
            else:
                doc[key] = text if not isinstance(doc[key], int) or isinstance(doc[key], bool) else doc[key] + 1
            conn.execute("UPDATE events SET data = ? WHERE seq = ?", (json.dumps(doc), seq))
        elif edit in ("actor", "recorded_at", "command_id"):
            conn.execute(f"UPDATE events SET {edit} = {edit} || ? WHERE seq = ?", (text or "x", seq))
        elif edit == "hash":
            conn.execute("UPDATE events SET hash = ? WHERE seq = ?", ("0" * 64, seq))
        elif edit == "type":  # another known type (or an unknown one): never the same
            type_ = conn.execute("SELECT type FROM events WHERE seq = ?", (seq,)).fetchone()[0]
            new = "x-unknown" if v == 1 else "note-added" if type_ != "note-added" else "dice-rolled"
            conn.execute("UPDATE events SET type = ? WHERE seq = ?", (new, seq))
        elif edit == "schema":
            conn.execute("UPDATE events SET schema = schema + 7 WHERE seq = ?", (seq,))
        elif edit == "delete":
            conn.execute("DELETE FROM events WHERE seq = ?", (seq,))
        elif edit == "delete-last":
            conn.execute("DELETE FROM events WHERE encounter_id = 'ford' AND version = ?", (n,))
        elif edit == "swap":  # two events' data swapped
            other = conn.execute("SELECT seq, data FROM events WHERE encounter_id = 'ford' AND version = ?", (w,)).fetchone()
            conn.execute("UPDATE events SET data = ? WHERE seq = ?", (other[1], seq))
            conn.execute("UPDATE events SET data = ? WHERE seq = ?", (data, other[0]))
        elif edit == "reorder":  # versions swapped: the rows now run out of seq order
            conn.execute("UPDATE events SET version = -1 WHERE encounter_id = 'ford' AND version = ?", (v,))
            conn.execute("UPDATE events SET version = ? WHERE encounter_id = 'ford' AND version = ?", (v, w))
            conn.execute("UPDATE events SET version = ? WHERE encounter_id = 'ford' AND version = -1", (w,))
        elif edit == "forge":  # a new event appended by hand, chained with a made-up hash
            conn.execute(
                "INSERT INTO events (encounter_id, version, command_id, type, schema, data, recorded_at, actor, hash) "
                "VALUES ('ford', ?, 'forged', 'note-added', 1, ?, '2020-01-01T00:00:00Z', ?, ?)",
                (n + 1, json.dumps({"type": "note-added", "text": text, "secret": False}), text, "f" * 64),
            )
            conn.execute("UPDATE heads SET version = ? WHERE encounter_id = 'ford'", (n + 1,))
        elif edit == "head-version":
            conn.execute("UPDATE heads SET version = version + 3 WHERE encounter_id = 'ford'")
        elif edit == "head-hash":
            conn.execute("UPDATE heads SET hash = ? WHERE encounter_id = 'ford'", ("e" * 64,))
        elif edit == "version":
            conn.execute("UPDATE events SET version = version + 1000 WHERE seq = ?", (seq,))
        for _, sql in triggers:
            conn.execute(sql)


@settings(max_examples=fuzz_examples(60), **FUZZ)
@given(
    edit=st.sampled_from(EDITS),
    pick=st.floats(0, 1),
    text=st.one_of(st.text(max_size=20), st.sampled_from(["'; DROP TABLE events; --", "<script>", "\x00"])),
    argv=st.sampled_from(READS + WRITES),
)
def test_edited_hash_chain(cli, log_db, tmp_path, edit, pick, text, argv):
    db = _place(tmp_path / "tampered.db", log_db.read_bytes())
    _tamper(db, edit, pick, text)
    result = cli("--encounter", "ford", "verify", db=db)
    fuzz_case("db")
    assert_clean_outcome(result, verify=True)
    assert result.exit_code == 1, f"verify did not find the edit {edit!r}: {result.stdout}"
    whole = cli("verify", db=db)  # the whole file, every encounter
    fuzz_case("db")
    assert_clean_outcome(whole, verify=True)
    assert whole.exit_code == 1
    run_on(cli, db, argv, "db")


def test_undo_on_an_edited_log_appends_nothing(cli, log_db, tmp_path):
    """An event moved out of place by hand (its version + 1000): 'undo' must
    be refused without appending: the state after the retraction is
    projected inside the append's transaction, which rolls back on failure."""
    db = _place(tmp_path / "tampered.db", log_db.read_bytes())
    _tamper(db, "version", 0.05, "x")
    before = _footprint(db)
    result = cli("undo", db=db)
    assert_clean_outcome(result)
    assert result.exit_code == 0 or _footprint(db) == before
