"""Bad input: ONE ``error:`` line on stderr, exit 2 (3 for a conflict), and
nothing appended to the log (DESIGN.md, invariant 4 and "CLI conventions").

"Nothing appended" is checked on the file itself: the ``events`` row count
(sqlite3, read-only) or, where the file is not a usable database, its bytes.
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest

import affray.commands.handler as handler
from affray.events.core import NoteAdded
from affray.store import EventStore

from conftest import (
    BROO,
    BROO_YAML,
    GORP,
    VASANA,
    Cli,
    assert_user_error,
    copy_sheet,
    event_count,
)


def refused(cli: Cli, args, *fragments: str, code: int = 2) -> str:
    """Run ``args``; require one error line with ``fragments`` and no new event."""
    before = cli.events()
    line = assert_user_error(cli(*args), *fragments, code=code)
    assert cli.events() == before, f"{args}: events appended on error"
    return line


# --------------------------------------------------------------------------- #
# Commands the rules or the CLI refuse, at Vasana's turn in round 1
# --------------------------------------------------------------------------- #

AT_VASANAS_TURN = [
    # who and what
    pytest.param(["attack", "vasana", "nobody"], ["no combatant called 'nobody'"], id="unknown-target"),
    pytest.param(["attack", "nobody", "broo1"], ["no combatant called 'nobody'"], id="unknown-attacker"),
    pytest.param(["attack", "vasana", "vasana"], ["cannot attack"], id="attack-self"),
    pytest.param(["attack", "vasana", "broo1", "--weapon", "axe"], ["no weapon called 'axe'"], id="unknown-weapon"),
    pytest.param(["attack", "broo1", "vasana"], ["it is Vasana's turn", "affray pending"], id="attack-out-of-turn"),
    pytest.param(["act", "broo1", "pass"], ["it is Vasana's turn"], id="act-out-of-turn"),
    pytest.param(["act", "vasana", "dance"], ["unknown action 'dance'"], id="unknown-action"),
    pytest.param(["react", "broo1", "parry"], ["Broo 1 has no reaction to make now"], id="react-none-pending"),
    pytest.param(["roll"], ["no roll is pending"], id="roll-none-pending"),
    pytest.param(["choose", "vasana", "follow"], ["no choice to make"], id="choose-none-pending"),
    pytest.param(["start"], ["already running"], id="start-twice"),
    pytest.param(["redo"], ["nothing to redo"], id="redo-nothing"),
    pytest.param(["note", ""], ["a note needs text"], id="empty-note"),
    # dice that do not fit
    pytest.param(["attack", "vasana", "broo1", "--dice", "0"], ["d100 takes values 1–100", "got 0"], id="d100-zero"),
    pytest.param(["attack", "vasana", "broo1", "--dice", "101"], ["d100 takes values 1–100", "got 101"], id="d100-101"),
    pytest.param(["attack", "vasana", "broo1", "--dice", "x"], ["'x' is not a dice value"], id="dice-letter"),
    pytest.param(["attack", "vasana", "broo1", "--dice", "-3"], ["'-3' is not a dice value"], id="dice-negative"),
    pytest.param(["attack", "vasana", "broo1", "--dice", "34,,12"], ["empty dice value"], id="dice-stray-comma"),
    pytest.param(["attack", "vasana", "broo1", "--dice", "34,12"], ["only 1 was needed", "drop the extra 12"], id="dice-too-many"),
    # modifiers and situations
    pytest.param(["attack", "vasana", "broo1", "--mod", "-20"], ["'-20' needs a reason", "-20:unstable ground"], id="mod-without-reason"),
    pytest.param(["attack", "vasana", "broo1", "--mod", "-20:"], ["needs a reason"], id="mod-empty-reason"),
    pytest.param(["attack", "vasana", "broo1", "--mod", "lots:luck"], ["cannot read modifier"], id="mod-not-a-number"),
    pytest.param(["attack", "vasana", "broo1", "--situation", "flying-pigs"], ["unknown situation 'flying-pigs'"], id="unknown-situation"),
    # reading the past
    pytest.param(["state", "--at", "9"], ["no round 9"], id="state-at-future-round"),
    pytest.param(["state", "--at", "1.99"], ["no round 1 step 99"], id="state-at-future-step"),
    pytest.param(["state", "--at", "soon"], ["ROUND or ROUND.STEP"], id="state-at-garbage"),
    pytest.param(["state", "--at", "-1"], ["count from 0"], id="state-at-negative"),
    pytest.param(["state", "--version", "999"], ["--version takes 1–"], id="state-version-too-big"),
    # exports
    pytest.param(["export", "--format", "pdf"], ["unknown format 'pdf'"], id="export-unknown-format"),
    pytest.param(["export", "--round", "one"], ["--round takes N or N-M"], id="export-bad-round"),
    pytest.param(["export", "--out", "/nonexistent-dir/fight.md"], ["cannot write /nonexistent-dir/fight.md"], id="export-unwritable"),
    # opening encounters
    pytest.param(["new", "Bridge", "--system", "dnd5e"], ["unknown system 'dnd5e'"], id="new-unknown-system"),
    pytest.param(["new", ""], ["needs a name"], id="new-no-name"),
    pytest.param(["new", "Bridge", "--id", "ford"], ["'ford' is taken"], id="new-id-taken"),
    pytest.param(["new", "Bridge", "--seed", "zz"], ["--seed takes hex digits"], id="new-bad-seed"),
    pytest.param(["new", "Bridge", "--ruling", "critical_on=sometimes"], ["critical_on"], id="new-bad-ruling"),
    pytest.param(["rulings", "--system", "dnd5e"], ["unknown system 'dnd5e'"], id="rulings-unknown-system"),
    pytest.param(["demo", "--scenario", "war"], ["unknown scenario 'war'"], id="demo-unknown-scenario"),
    # joining
    pytest.param(["join", str(VASANA), "--side", "heroes"], ["'vasana' is already taken"], id="join-duplicate-handle"),
    pytest.param(["join", str(GORP), "--side", ""], ["needs a side"], id="join-empty-side"),
]


@pytest.mark.parametrize("args, fragments", AT_VASANAS_TURN)
def test_refused_at_vasanas_turn(fight, args, fragments):
    refused(fight, args, *fragments)


@pytest.mark.parametrize(
    "args, fragment",
    [
        pytest.param(["attack", "vasana"], "target", id="missing-argument"),
        pytest.param(["note", "hi", "--dice", "3"], "--dice", id="unknown-option"),
        pytest.param(["state", "--version", "abc"], "--version", id="not-an-int"),
    ],
)
def test_usage_errors_are_one_line_too(fight, args, fragment):
    refused(fight, args, fragment)


# --------------------------------------------------------------------------- #
# Dice at the step that needs them
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "dice, fragments",
    [
        pytest.param("11,3", ["d10 takes values 1–10", "got 11"], id="d10-eleven"),
        pytest.param("7,3,5", ["only 2 were needed", "drop the extra 5"], id="too-many"),
        pytest.param("7;3", ["not a dice value"], id="bad-separator"),
    ],
)
def test_start_refuses_dice_that_do_not_fit(duel, dice, fragments):
    refused(duel, ["start", "--dice", dice], *fragments)


@pytest.fixture
def reacting(fight):
    """Vasana hit Broo 1 (34 vs 65%): Broo 1 must react."""
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    return fight


@pytest.mark.parametrize(
    "args, fragments",
    [
        pytest.param(["react", "broo1", "parry", "--dice", "0,34"], ["d100 takes values 1–100", "got 0"], id="parry-zero"),
        pytest.param(["react", "broo1", "parry", "--dice", "71,101"], ["got 101"], id="fresh-roll-101"),
        pytest.param(["react", "broo1", "parry", "--dice", "71,34,5"], ["drop the extra 5"], id="too-many"),
        pytest.param(["react", "broo1", "none", "--dice", "5"], ["none were needed"], id="none-takes-no-dice"),
        pytest.param(["react", "broo1", "juggle"], ["parry | dodge | none", "'juggle'"], id="unknown-reaction"),
        pytest.param(["react", "broo1", "riposte"], ["not 'riposte'"], id="riposte-not-offered"),
        pytest.param(["react", "broo1", "parry", "--with", "axe"], ["no weapon called 'axe'"], id="parry-with-unknown"),
        pytest.param(["react", "vasana", "parry"], ["Vasana has no reaction to make now"], id="wrong-defender"),
        pytest.param(["end-round"], ["exchange is still open"], id="end-round-mid-exchange"),
    ],
)
def test_reaction_step_refusals(reacting, args, fragments):
    refused(reacting, args, *fragments)


@pytest.fixture
def damage_due(reacting):
    reacting.ok("react", "broo1", "none")
    return reacting


@pytest.mark.parametrize(
    "dice, fragments",
    [
        pytest.param("9,1,1", ["d8 takes values 1–8", "got 9"], id="d8-nine"),
        pytest.param("1,5,1", ["d4 takes values 1–4", "got 5"], id="d4-five"),
        pytest.param("1,1,21", ["d20 takes values 1–20", "got 21"], id="d20-21"),
        pytest.param("1,1,0", ["d20", "got 0"], id="d20-zero"),
        pytest.param("1,1,1,1", ["drop the extra 1"], id="too-many"),
    ],
)
def test_damage_roll_refuses_dice_that_do_not_fit(damage_due, dice, fragments):
    refused(damage_due, ["roll", "--dice", dice], *fragments)


def test_partial_damage_expression_is_refused(cli, tmp_path):
    """A 2D6 weapon: one typed value for two dice is neither table nor engine."""
    sheet = copy_sheet(VASANA, tmp_path / "vasana-2d6.toml", ('damage = "1D8"', 'damage = "2D6"'))
    cli.ok("new", "Ford")
    cli.ok("join", sheet, "--side", "heroes")
    cli.ok("join", BROO, "--name", "Broo 1", "--side", "broo")
    cli.ok("start", "--dice", "7,3")
    cli.ok("attack", "vasana", "broo1", "--dice", "34")
    cli.ok("react", "broo1", "none")
    assert [d["expr"] for d in cli.pending()[0]["dice"]] == ["2D6", "1D4", "1D20"]
    refused(cli, ["roll", "--dice", "3"], "2D6 (Broadsword damage) needs 2 dice values", "supply all 2 or none")
    refused(cli, ["roll", "--dice", "3,4,2,7,1"], "drop the extra 1")


# --------------------------------------------------------------------------- #
# Manual dice: missing dice are listed
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "dice, fragments",
    [
        pytest.param(None, ["missing dice: 1D10 (strike rank: Vasana), 1D10 (strike rank: Broo 1)", "--dice"], id="none"),
        pytest.param("7", ["missing dice: 1D10 (strike rank: Broo 1)"], id="one-of-two"),
    ],
)
def test_manual_dice_start_lists_missing_dice(manual_duel, dice, fragments):
    line = refused(manual_duel, ["start"] + (["--dice", dice] if dice else []), *fragments)
    if dice:
        assert "Vasana" not in line


def test_manual_dice_attack_reaction_and_damage_list_missing_dice(manual_fight):
    refused(manual_fight, ["attack", "vasana", "broo1"], "missing dice: 1D100")
    manual_fight.ok("attack", "vasana", "broo1", "--dice", "34")
    line = refused(manual_fight, ["react", "broo1", "parry", "--dice", "71"], "missing dice: 1D100")
    assert "Vasana's attack" in line and "Broo 1's parry" not in line
    manual_fight.ok("react", "broo1", "parry", "--dice", "71,34")
    refused(manual_fight, ["roll", "--dice", "6"], "missing dice: 1D4 (damage modifier), 1D20 (hit location)")


# --------------------------------------------------------------------------- #
# Weapons and reactions a combatant does not have
# --------------------------------------------------------------------------- #


def test_weapon_not_held_ready(cli, tmp_path):
    sheet = copy_sheet(VASANA, tmp_path / "vasana-shield.toml", ('name = "Vasana"', 'name = "Vasana"\nready = ["Target Shield"]'))
    cli.ok("new", "Ford")
    cli.ok("join", sheet, "--side", "heroes")
    cli.ok("join", BROO, "--name", "Broo 1", "--side", "broo")
    cli.ok("start", "--dice", "7,3")
    refused(cli, ["attack", "vasana", "broo1", "--weapon", "broadsword"], "does not hold Broadsword ready", "Target Shield")
    assert "with Target Shield" in cli.ok("attack", "vasana", "broo1", "--weapon", "target shield", "--dice", "34").stdout


def test_reaction_when_the_defender_has_none_left(cli, tmp_path):
    """A broo with one combat action (so one reaction) spends it on a parry;
    Vasana's next attack is unopposed and no reaction can be forced in. (He
    holds the spear alone: with a shield too, Two Weapon Use would give him
    one more parry.)"""
    sheet = copy_sheet(
        BROO, tmp_path / "broo-one-action.toml", ('name = "Broo"', 'name = "Broo"\ncombat_actions = 1\nready = ["Shortspear"]')
    )
    cli.ok("new", "Ford")
    cli.ok("join", VASANA, "--side", "heroes")
    cli.ok("join", sheet, "--name", "Broo 1", "--side", "broo")
    cli.ok("start", "--dice", "7,3")
    cli.ok("attack", "vasana", "broo1", "--dice", "34")
    cli.ok("react", "broo1", "parry", "--dice", "71,34")
    cli.ok("roll", "--dice", "1,1,1")
    cli.ok("act", "broo1", "pass")
    assert cli.combatant("broo1")["reactions"] == {"left": 0, "max": 1}
    result = cli.ok("attack", "vasana", "broo1", "--dice", "34")
    assert "no reactions left" in result.stdout
    for reaction in ("parry", "dodge"):
        refused(cli, ["react", "broo1", reaction, "--dice", "10,90"], "Broo 1", "no reaction")


# --------------------------------------------------------------------------- #
# Sheets
# --------------------------------------------------------------------------- #

SHEETS = [
    # (file name, how to make it, fragments of the message)
    ("bad-syntax.toml", lambda p: p.write_text('name = "X"\n[characteristics\nSTR = 1\n'), ["not valid TOML"]),
    ("wrong-type.toml", lambda p: copy_sheet(VASANA, p, ("DEX = 15", 'DEX = "high"')), ["characteristics.DEX", "expected int"]),
    ("unknown-field.toml", lambda p: copy_sheet(VASANA, p, ('name = "Vasana"', 'name = "Vasana"\nwings = 2')), ["wings: unknown key"]),
    ("out-of-range.toml", lambda p: copy_sheet(VASANA, p, ("DEX = 15", "DEX = 0")), ["characteristics.DEX", "out of range"]),
    ("bad-damage.toml", lambda p: copy_sheet(VASANA, p, ('damage = "1D8"', 'damage = "1Q8"')), ["weapons[0].damage"]),
    ("other-system.toml", lambda p: copy_sheet(VASANA, p, ('system = "mrq1"', 'system = "rq3"')), ["'rq3' sheet"]),
    ("empty.toml", lambda p: p.write_text(""), ["missing 'name'"]),
    ("bad-syntax.yaml", lambda p: p.write_text("name: [\n"), ["not valid YAML"]),
    ("wrong-type.yaml", lambda p: copy_sheet(BROO_YAML, p, ("DEX: 13", "DEX: lots")), ["characteristics.DEX", "expected int"]),
    ("unknown-field.yaml", lambda p: copy_sheet(BROO_YAML, p, ("name: Broo\n", "name: Broo\nhorns: 2\n")), ["horns: unknown key"]),
    ("scalar.yaml", lambda p: p.write_text("just a string\n"), ["expected a table"]),
    ("bad-syntax.json", lambda p: p.write_text('{"name": "x",'), ["not valid JSON"]),
    ("wrong-type.json", lambda p: copy_sheet(GORP, p, ('"DEX": 14', '"DEX": "14"')), ["characteristics.DEX", "expected int"]),
    ("unknown-field.json", lambda p: copy_sheet(GORP, p, ('"movement": 8', '"movement": 8, "tail": true')), ["tail: unknown key"]),
    ("array.json", lambda p: p.write_text("[]"), ["expected a table", "a list"]),
    ("sheet.txt", lambda p: p.write_text("name = x"), ["unknown sheet format '.txt'"]),
    ("not-utf8.toml", lambda p: p.write_bytes(b'name = "\xff\xfe"\n'), ["not valid TOML"]),
    ("missing.toml", None, ["no such file"]),
]


@pytest.mark.parametrize("filename, make, fragments", SHEETS, ids=[s[0] for s in SHEETS])
def test_malformed_sheet(fight, tmp_path, filename, make, fragments):
    path = tmp_path / "sheets" / filename
    path.parent.mkdir(exist_ok=True)
    if make is not None:
        make(path)
    line = refused(fight, ["join", str(path), "--side", "red"], *fragments)
    assert filename in line  # the message names the file


# --------------------------------------------------------------------------- #
# Databases that are missing, locked or corrupt
# --------------------------------------------------------------------------- #

READ_VERBS = [
    pytest.param(["state"], id="state"),
    pytest.param(["state", "--json"], id="state-json"),
    pytest.param(["pending"], id="pending"),
    pytest.param(["log"], id="log"),
    pytest.param(["export"], id="export"),
    pytest.param(["verify"], id="verify"),
    pytest.param(["list"], id="list"),
]
WRITE_VERBS = [
    pytest.param(["join", str(VASANA), "--side", "heroes"], id="join"),
    pytest.param(["start"], id="start"),
    pytest.param(["attack", "vasana", "broo1"], id="attack"),
    pytest.param(["note", "hello"], id="note"),
    pytest.param(["undo"], id="undo"),
    pytest.param(["close"], id="close"),
]


@pytest.mark.parametrize("args", READ_VERBS + WRITE_VERBS)
def test_missing_database(cli, tmp_path, args):
    db = tmp_path / "nowhere" / "affray.db"
    result = cli(*args, db=db)
    assert_user_error(result, f"no database at {db}", "create one with 'affray new'")
    assert not db.exists() and not db.parent.exists()


def test_missing_database_from_the_default_path(cli, tmp_path):
    assert_user_error(cli("state", db=None), "no database at affray.db", "affray new")
    assert not (tmp_path / "affray.db").exists()


@pytest.fixture
def short_busy_timeout(monkeypatch):
    """The store waits 5 s for a lock by default and has no setting for it:
    shorten the default of EventStore.__init__ to keep the suite fast."""
    monkeypatch.setitem(EventStore.__init__.__kwdefaults__, "busy_timeout_ms", 200)


@pytest.fixture
def locked(fight):
    """Another connection holds the write lock (BEGIN IMMEDIATE)."""
    conn = sqlite3.connect(fight.db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    yield fight
    conn.execute("ROLLBACK")
    conn.close()


LOCKED_WRITES = [
    pytest.param(["note", "hello"], id="note"),
    pytest.param(["attack", "vasana", "broo1", "--dice", "34"], id="attack"),
    pytest.param(["act", "vasana", "defend"], id="act"),
    pytest.param(["undo"], id="undo"),
    pytest.param(["join", str(GORP), "--side", "trollkin"], id="join"),
    pytest.param(["new", "Bridge"], id="new"),
    pytest.param(["close"], id="close"),
]


@pytest.mark.parametrize("args", LOCKED_WRITES)
def test_locked_database(short_busy_timeout, locked, args):
    before = locked.events()  # WAL: a reader is not blocked by the writer's lock
    assert_user_error(locked(*args), "is locked", "run the command again")
    assert locked.events() == before


def test_locked_database_with_the_default_busy_timeout(locked):
    """The real default (5 s): slow, but it is what a user gets."""
    before = locked.events()
    started = time.monotonic()
    assert_user_error(locked("note", "hello"), "is locked")
    assert time.monotonic() - started >= 4
    assert locked.events() == before


def test_reads_still_work_while_another_writer_holds_the_lock(short_busy_timeout, locked):
    assert locked.state()["encounter"] == "ford"
    assert locked.pending()[0]["who"] == "vasana"
    assert "OK: the log is intact." in locked.ok("verify").stdout


def _random_bytes(path: Path, tmp_path: Path) -> None:
    path.write_bytes(bytes(range(256)) * 16 + os.urandom(4096))


def _text_file(path: Path, tmp_path: Path) -> None:
    path.write_text("Round 1: Vasana attacks Broo 1.\n" * 50)


def _empty_file(path: Path, tmp_path: Path) -> None:
    path.write_bytes(b"")


def _truncated(path: Path, tmp_path: Path) -> None:
    real = Cli(path)
    real.ok("new", "Ford", "--seed", "00ff" * 8)
    real.ok("join", VASANA, "--side", "heroes")
    real.ok("join", BROO, "--name", "Broo 1", "--side", "broo")
    real.ok("start")
    real.ok("attack", "vasana", "broo1")
    for suffix in ("-wal", "-shm"):  # every connection is closed: nothing to recover from
        Path(str(path) + suffix).unlink(missing_ok=True)
    data = path.read_bytes()
    assert len(data) > 8192
    path.write_bytes(data[: len(data) // 2 + 100])


def _foreign_sqlite(path: Path, tmp_path: Path) -> None:
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE recipes (name TEXT)")
        conn.execute("INSERT INTO recipes VALUES ('stew')")
        conn.commit()


CORRUPT = {
    "random-bytes": _random_bytes,
    "text-file": _text_file,
    "empty-file": _empty_file,
    "truncated": _truncated,
    "foreign-sqlite": _foreign_sqlite,
}
CORRUPT_VERBS = {
    "state": ["state"],
    "log": ["log", "--json"],
    "export": ["export"],
    "verify": ["verify"],
    "note": ["note", "hello"],
    "attack": ["attack", "vasana", "broo1"],
    "new": ["new", "Bridge"],
}
CORRUPT_CASES = [
    pytest.param(kind, verb, id=f"{kind}-{verb}")
    for kind in CORRUPT
    for verb in CORRUPT_VERBS
    # an empty file is a valid, empty SQLite database: 'new' may lay out the schema in it
    if (kind, verb) != ("empty-file", "new")
]


@pytest.mark.parametrize("kind, verb", CORRUPT_CASES)
def test_corrupt_database(cli, tmp_path, kind, verb):
    db = tmp_path / "broken.db"
    CORRUPT[kind](db, tmp_path)
    before = db.read_bytes()
    assert_user_error(cli(*CORRUPT_VERBS[verb], db=db), f"{db} is not a usable affray database")
    assert db.read_bytes() == before, "the file was changed"


def test_new_in_an_empty_file_lays_out_the_schema(cli, tmp_path):
    db = tmp_path / "empty.db"
    db.write_bytes(b"")
    cli.ok("new", "Ford", db=db)
    assert event_count(db) == 1


def test_database_is_a_folder(cli, tmp_path):
    assert_user_error(cli("state", db=tmp_path), "is a folder")


def test_database_of_a_newer_affray(cli, tmp_path):
    db = tmp_path / "future.db"
    with closing(sqlite3.connect(db)) as conn:  # marked as affray's, at a schema from the future
        conn.execute("PRAGMA user_version = 99")
        conn.execute(f"PRAGMA application_id = {int.from_bytes(b'AFRY', 'big')}")
    assert_user_error(cli("state", db=db), "newer affray", "upgrade affray")


# --------------------------------------------------------------------------- #
# Fights that are over, and closed encounters
# --------------------------------------------------------------------------- #


@pytest.fixture
def over(cli, tmp_path):
    """A whole demo fight (engine dice): heroes win, Broo 1 is down."""
    db = tmp_path / "over.db"
    cli.ok("--db", db, "demo", "--seed", "01" * 16, db=None)
    done = Cli(db)
    s = done.state()
    assert s["phase"] == "over" and s["winner"]
    return done


@pytest.mark.parametrize(
    "args, fragments",
    [
        pytest.param(["attack", "vasana", "broo1"], ["the fight is over"], id="attack-winner"),
        pytest.param(["attack", "broo1", "vasana"], ["the fight is over"], id="attack-loser"),
        pytest.param(["start"], ["the fight is over"], id="start"),
        pytest.param(["act", "vasana", "defend"], ["the fight is over"], id="act"),
        pytest.param(["join", str(GORP), "--side", "trollkin"], ["the fight is over"], id="join"),
        pytest.param(["react", "broo1", "parry"], ["no reaction to make"], id="react"),
        pytest.param(["roll"], ["no roll is pending"], id="roll"),
        pytest.param(["end-round"], ["no round in progress"], id="end-round"),
    ],
)
def test_after_the_fight_is_over(over, args, fragments):
    refused(over, args, *fragments)


CLOSED_WRITES = [
    pytest.param(["attack", "vasana", "broo1"], id="attack"),
    pytest.param(["react", "broo1", "parry"], id="react"),
    pytest.param(["roll"], id="roll"),
    pytest.param(["choose", "vasana", "follow"], id="choose"),
    pytest.param(["act", "vasana", "pass"], id="act"),
    pytest.param(["start"], id="start"),
    pytest.param(["end-round"], id="end-round"),
    pytest.param(["note", "too late"], id="note"),
    pytest.param(["undo"], id="undo"),
    pytest.param(["redo"], id="redo"),
    pytest.param(["close"], id="close"),
    pytest.param(["join", str(GORP), "--side", "trollkin"], id="join"),
]


@pytest.fixture
def closed(fight):
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    fight.ok("close")
    return fight


@pytest.mark.parametrize("args", CLOSED_WRITES)
def test_closed_encounter_named_with_encounter(closed, args):
    refused(closed, ["--encounter", "ford", *args], "encounter ford is closed", "affray new")


@pytest.mark.parametrize("args", [["attack", "vasana", "broo1"], ["note", "too late"], ["state"], ["pending"]], ids=lambda a: a[0])
def test_closed_encounter_as_the_default(closed, args):
    """No open encounter is left: every verb must say so in one line."""
    refused(closed, args, "no open encounter", "affray new")


@pytest.mark.parametrize("args", [["state"], ["log"], ["note", "hi"]], ids=lambda a: a[0])
def test_unknown_encounter_id(fight, args):
    refused(fight, ["--encounter", "nope", *args], "no encounter 'nope'")


def test_reads_still_work_on_a_closed_encounter(closed):
    assert closed.json("--encounter", "ford", "state")["phase"] == "closed"
    assert "OK: the log is intact." in closed.ok("--encounter", "ford", "verify", "--dice").stdout
    assert "Vasana attacks Broo 1" in closed.ok("--encounter", "ford", "export").stdout


# --------------------------------------------------------------------------- #
# Side effects of a refused 'new'
# --------------------------------------------------------------------------- #


def test_refused_new_leaves_no_database_behind(cli):
    assert_user_error(cli("new", "Ford", "--system", "dnd5e"), "unknown system")
    assert not cli.db.exists()


def test_refused_new_on_a_fresh_path_records_nothing(cli):
    assert_user_error(cli("new", "Ford", "--system", "dnd5e"), "unknown system")
    assert not cli.db.exists() or event_count(cli.db) == 0


# --------------------------------------------------------------------------- #
# Optimistic concurrency: a writer that raced us wins, we exit 3
# --------------------------------------------------------------------------- #


@pytest.fixture
def racing_writer(monkeypatch):
    """Between the command's load of the state and its append, another
    writer (its own connection) appends a note."""
    real = handler.load_state

    def load_then_race(store, encounter_id, **kwargs):
        state = real(store, encounter_id, **kwargs)
        with EventStore(store.path) as other:
            other.append(encounter_id, state.version, [NoteAdded(text="the other GM was faster", secret=False)],
                         command_id="race", actor="other-gm")
        return state

    monkeypatch.setattr(handler, "load_state", load_then_race)


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["note", "mine"], id="note"),
        pytest.param(["attack", "vasana", "broo1", "--dice", "34"], id="attack"),
        pytest.param(["act", "vasana", "defend"], id="act"),
        pytest.param(["undo"], id="undo"),
        pytest.param(["join", str(GORP), "--side", "trollkin"], id="join"),
    ],
)
def test_concurrency_conflict_exits_3(fight, racing_writer, args):
    before = fight.events()
    assert_user_error(fight(*args), "changed while you were typing", "run the command again", code=3)
    assert fight.events() == before + 1  # only the other writer's note
    with closing(sqlite3.connect(fight.db)) as conn:
        newest = conn.execute("SELECT actor, type FROM events ORDER BY seq DESC LIMIT 1").fetchone()
    assert newest == ("other-gm", "note-added")


@pytest.mark.parametrize("system, sheet_file", [("mrq1", "mrq1/vasana.toml"), ("mythras", "mythras/kaelin.toml")])
def test_a_stored_sheet_from_a_newer_affray_is_one_line(system, sheet_file):
    """A sheet in the log with a field this affray does not know (a newer
    affray wrote it, or a hand edit): the rules refuse with one line naming
    the combatant, instead of a msgspec traceback."""
    from affray.projections.state import Combatant
    from affray.rules.base import RuleError, get

    if system == "mrq1":
        from affray.rules.mrq1.core import sheet_of
    else:
        from affray.rules.mythras.core import sheet_of
    from affray.commands.demo import examples_dir

    data = get(system).load_sheet(str(examples_dir() / sheet_file))
    c = Combatant(handle="x", name="Xan", side="a", sheet={**data, "from_the_future": 1}, locations=(),
                  max_combat_actions=2, max_reactions=2)
    with pytest.raises(RuleError) as info:
        sheet_of(c)
    line = str(info.value)
    assert "\n" not in line and "Xan" in line and "upgrade affray" in line
