"""Trust that holds against whoever holds the file (issue 11).

Each test plays an attacker: a GM who holds the log file (and may edit it
and re-hash the chain), a player with a copy of the file, or a hostile
player. Every test shows the attack no longer fools affray, or names what
catches it. README, "Threat model", claims only what these tests prove.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import BROO, SEED, VASANA, Cli, affray_on_a_terminal, affray_process, assert_user_error, dice_events, raw_events
from affray import dice as dicelib
from affray.commands.demo import autoplay, next_command, setup
from affray.commands.handler import execute
from affray.events import commands as cmd
from affray.projections.snapshots import dump, load_state
from affray.store import SCHEMA_VERSION, EventStore
from affray.rules.base import RuleError
from affray.store.chain import canonical, chain_hash
from affray.verify import check_encounter, verify_store

from test_dice import reference_salted_face

# --------------------------------------------------------------------------- #
# Tools of the attacker: edit the file, re-hash the chain
# --------------------------------------------------------------------------- #


def tamper(db: Path, eid: str, version: int, edit=None, *, delete_from: int | None = None) -> None:
    """Edit the event at ``version`` (``edit(data dict) -> data dict``) or
    delete every event from ``delete_from`` on, then re-hash the whole chain
    and the head as affray would: what a GM holding the file can do."""
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("DROP TRIGGER IF EXISTS events_no_update")
        conn.execute("DROP TRIGGER IF EXISTS events_no_delete")
        if delete_from is not None:
            conn.execute("DELETE FROM events WHERE encounter_id = ? AND version >= ?", (eid, delete_from))
        if edit is not None:
            (data,) = conn.execute(
                "SELECT data FROM events WHERE encounter_id = ? AND version = ?", (eid, version)
            ).fetchone()
            new = json.dumps(edit(json.loads(data)), separators=(",", ":"), ensure_ascii=False)
            conn.execute("UPDATE events SET data = ? WHERE encounter_id = ? AND version = ?", (new, eid, version))
        rehash(conn, eid)
        conn.commit()


def rehash(conn: sqlite3.Connection, eid: str) -> None:
    prev = ""
    rows = conn.execute(
        "SELECT version, command_id, type, schema, data, recorded_at, actor FROM events "
        "WHERE encounter_id = ? ORDER BY version", (eid,)
    ).fetchall()
    for version, command_id, type_, schema, data, recorded_at, actor in rows:
        prev = chain_hash(prev, canonical(eid, version, command_id, type_, schema, recorded_at, actor, data))
        conn.execute("UPDATE events SET hash = ? WHERE encounter_id = ? AND version = ?", (prev, eid, version))
    conn.execute("UPDATE heads SET version = ?, hash = ? WHERE encounter_id = ?", (rows[-1][0], prev, eid))


def versions_of(db: Path, type_: str, eid: str = "ford") -> list[tuple[int, dict]]:
    return [(e["version"], e["data"]) for e in raw_events(db, eid) if e["type"] == type_]


def failed(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("FAILED: ")]


@pytest.fixture
def engine_fight(duel: Cli) -> Cli:
    """``duel`` (engine dice, a chosen 16-byte seed) with strike ranks and a
    few engine-rolled commands."""
    duel.ok("start")
    duel.ok("attack", "vasana", "broo1")
    duel.ok("react", "broo1", "dodge")
    return duel


# --------------------------------------------------------------------------- #
# 1. The seed stays out of the shared file
# --------------------------------------------------------------------------- #


def test_the_seed_is_in_the_key_file_never_in_the_log(cli: Cli):
    cli.ok("new", "Ford")
    keys = Path(f"{cli.db}.keys")
    assert keys.exists() and (keys.stat().st_mode & 0o777) == 0o600
    eid, hexed = keys.read_text().split()
    seed = bytes.fromhex(hexed)
    assert len(seed) == 32 and eid == "ford"
    [(_, opened)] = versions_of(cli.db, "encounter-opened")
    assert opened["seed_sha256"] == dicelib.commitment(seed) and "seed_chosen" not in opened
    for suffix in ("", "-wal"):
        if Path(f"{cli.db}{suffix}").exists():
            blob = Path(f"{cli.db}{suffix}").read_bytes()
            assert seed not in blob and hexed.encode() not in blob
    with closing(sqlite3.connect(cli.db)) as conn:
        assert conn.execute("SELECT count(*) FROM dice_seeds").fetchone()[0] == 0


def test_a_player_with_a_copy_of_the_file_cannot_predict_a_roll(engine_fight: Cli, tmp_path):
    """The predicted-roll attack: the copy holds no seed, so nothing in it
    derives the next roll; verify --dice says it cannot check the dice yet
    (exit 4, not a failure)."""
    copy = tmp_path / "copy.db"
    with closing(sqlite3.connect(engine_fight.db)) as src, closing(sqlite3.connect(copy)) as dst:
        src.backup(dst)
    with EventStore(copy, readonly=True) as store:
        assert store.get_seed("ford") is None
    result = engine_fight("verify", "--dice", db=copy)
    assert result.exit_code == 4, result.output
    assert "dice NOT checked" in result.stdout and not failed(result)
    # the GM, with the key file, checks them; after close anyone can
    assert "engine rolls re-derived" in engine_fight.ok("verify", "--dice").stdout
    engine_fight.ok("close")
    Path(f"{engine_fight.db}.keys").unlink()
    with closing(sqlite3.connect(engine_fight.db)) as src, closing(sqlite3.connect(copy)) as dst:
        src.backup(dst)
    assert engine_fight("verify", "--dice", db=copy).exit_code == 0


def test_a_chosen_seed_is_recorded_and_shown(duel: Cli):
    [(_, opened)] = versions_of(duel.db, "encounter-opened")
    assert opened["seed_chosen"] is True
    assert "CHOSEN" in duel.ok("verify").stdout
    data = duel.json("verify")
    assert data["encounters"][0]["seed_chosen"] is True and data["exit"] == 0
    for fmt in ("markdown", "bbcode", "discord", "html"):
        assert "a seed chosen by the GM" in duel.ok("export", "--format", fmt).stdout, fmt
    assert '"seed_chosen":true' in duel.ok("export", "--format", "jsonl").stdout


@pytest.mark.parametrize("seed", ["00", "00ff", "0badc0de" * 3 + "0bad"])
def test_a_short_chosen_seed_is_refused(cli: Cli, seed: str):
    assert_user_error(cli("new", "Ford", "--seed", seed), "at least 16 bytes")
    assert not cli.db.exists() or cli.events() == 0


@pytest.mark.parametrize("seed", ["00", "0a0b", "0badc0de" * 3 + "0bad"])
def test_demo_refuses_a_short_chosen_seed_as_new_does(cli: Cli, tmp_path, seed: str):
    db = tmp_path / "demo.db"
    result = cli("--db", db, "demo", "--seed", seed, db=None)
    new = cli("new", "Ford", "--seed", seed)
    assert_user_error(result, "at least 16 bytes")
    assert result.stderr == new.stderr  # the same line, word for word
    assert not db.exists() or Cli(db).events() == 0


def test_demo_with_a_long_seed_or_its_built_in_seed_runs(cli: Cli, tmp_path):
    """A built-in scenario seed is public (it is in the source), so its
    length hides nothing; it is recorded as chosen like any other."""
    for args in (["--seed", "0a" * 16], ["--scenario", "mrq1-grapple"]):
        db = tmp_path / f"demo{len(args[1])}.db"
        assert "winner:" in cli.ok("--db", db, "demo", *args, db=None).stdout
        assert Cli(db).json("verify")["encounters"][0]["seed_chosen"] is True


@pytest.mark.parametrize("seed", [b"\x00", b"fifteen bytes!!"])
def test_the_python_api_refuses_a_short_chosen_seed_with_the_same_words(cli: Cli, seed: bytes):
    result = cli("new", "Ford", "--seed", seed.hex())
    store = EventStore(":memory:")
    with pytest.raises(ValueError) as refused:
        execute(store, cmd.OpenEncounter(name="Ford", system="mrq1"), actor="gm", seed=seed)
    assert isinstance(refused.value, RuleError)
    assert result.stderr == f"error: {refused.value}\n" and "\n" not in str(refused.value)
    assert store.encounter_ids() == []
    with pytest.raises(ValueError, match="at least 16 bytes"):
        setup(store, "duel", seed=seed)
    # a manual-dice encounter's seed decides no die: any length, as with new --manual-dice
    execute(store, cmd.OpenEncounter(name="Ford", system="mrq1", manual_dice=True), actor="gm", seed=seed)
    execute(store, cmd.OpenEncounter(name="Ford", system="mrq1"), actor="gm", seed=seed * 16)


def test_a_seed_swapped_after_new_is_never_used(duel: Cli):
    """The GM replaces the key file's seed with one he ground: the engine
    refuses to roll with it (it does not match the commitment), and so does
    a seed slipped into an old log's dice_seeds table."""
    keys = Path(f"{duel.db}.keys")
    keys.write_text(f"ford {'11' * 32}\n")
    result = duel("start")
    assert_user_error(result, "not in its key file")
    with closing(sqlite3.connect(duel.db)) as conn:
        conn.execute("INSERT INTO dice_seeds (encounter_id, seed) VALUES ('ford', ?)", (b"\x11" * 32,))
        conn.commit()
    assert_user_error(duel("start"), "not in its key file")
    assert duel("verify", "--dice").exit_code == 0  # no engine roll yet: nothing to check


def test_an_old_log_with_its_seed_in_dice_seeds_still_rolls_and_verifies(engine_fight: Cli):
    """A log written before the key file kept the seed in its dice_seeds table."""
    keys = Path(f"{engine_fight.db}.keys")
    seed = bytes.fromhex(keys.read_text().split()[1])
    keys.unlink()
    with closing(sqlite3.connect(engine_fight.db)) as conn:
        conn.execute("INSERT INTO dice_seeds (encounter_id, seed) VALUES ('ford', ?)", (seed,))
        conn.commit()
    engine_fight.ok("roll")
    assert "engine rolls re-derived" in engine_fight.ok("verify", "--dice").stdout


# --------------------------------------------------------------------------- #
# 2. Every engine roll is accounted for
# --------------------------------------------------------------------------- #


def _engine_rolls(db: Path) -> list[tuple[int, dict]]:
    return [(v, d) for v, d in versions_of(db, "dice-rolled") if d["source"] == "engine" and d["faces"]]


def test_a_cherry_picked_roll_number_is_caught(engine_fight: Cli):
    """The GM finds a roll number whose face he likes and relabels a roll
    with it (faces re-derived from the seed, chain re-hashed): the live log's
    roll numbers no longer run 0, 1, 2, ..."""
    seed = bytes.fromhex(Path(f"{engine_fight.db}.keys").read_text().split()[1])
    version, roll = _engine_rolls(engine_fight.db)[2]
    sides = dicelib.parse(roll["expr"]).dice[0]
    pick = next(i for i in range(100, 10_000) if dicelib.engine_face(seed, "ford", i, sides) == 1)

    def cherry(data):
        data["index"], data["faces"] = pick, [1]
        data["total"] = 1
        return data

    tamper(engine_fight.db, "ford", version, cherry)
    assert engine_fight("verify").exit_code == 0  # the chain alone is consistent again
    result = engine_fight("verify", "--dice")
    assert result.exit_code == 1
    assert any(f"skips to #{pick}" in line for line in failed(result)), result.stderr


def test_a_relabelled_roll_is_caught(engine_fight: Cli):
    """An engine roll relabelled as table dice typed by the GM, with a face
    he chose: a gap in the engine roll numbers, and typed dice the command
    never recorded."""
    version, roll = _engine_rolls(engine_fight.db)[1]

    def relabel(data):
        data.update(source="table", index=-1, typed_by="gm", faces=[1], total=1)
        return data

    tamper(engine_fight.db, "ford", version, relabel)
    result = engine_fight("verify", "--dice")
    assert result.exit_code == 1
    lines = failed(result)
    assert any("skips to" in line for line in lines) and any("typed dice" in line for line in lines), lines
    assert len(lines) == len(set(lines))  # each FAILED line once


def test_a_table_roll_passed_off_as_an_engine_roll_is_caught(manual_fight: Cli):
    manual_fight.ok("attack", "vasana", "broo1", "--dice", "34")
    [(version, _)] = [(v, d) for v, d in versions_of(manual_fight.db, "dice-rolled") if d["faces"] == [34]]
    tamper(manual_fight.db, "ford", version, lambda d: {**d, "source": "engine", "index": 0, "typed_by": ""})
    result = manual_fight("verify", "--dice")
    assert result.exit_code == 1
    assert any("are not the dice its command typed" in line for line in failed(result)), result.stderr


def test_an_edited_face_is_caught(engine_fight: Cli):
    version, roll = _engine_rolls(engine_fight.db)[0]
    face = roll["faces"][0] % dicelib.parse(roll["expr"]).dice[0] + 1
    tamper(engine_fight.db, "ford", version, lambda d: {**d, "faces": [face]})
    result = engine_fight("verify", "--dice")
    assert result.exit_code == 1 and any("does not re-derive" in line for line in failed(result))


# --------------------------------------------------------------------------- #
# 3. The re-roll guard
# --------------------------------------------------------------------------- #


def test_undo_then_type_a_die_in_an_engine_encounter_needs_reroll(engine_fight: Cli):
    engine_fight.ok("undo")  # the dodge
    rolled = dice_events(engine_fight.db)[-2:]
    faces = [d["faces"][0] for d in rolled]
    chosen = [f % 100 + 1 for f in faces]
    n = engine_fight.events()
    result = engine_fight("react", "broo1", "dodge", "--dice", ",".join(map(str, chosen)))
    assert_user_error(result, "--reroll")
    assert engine_fight.events() == n
    # the same faces typed are fine, and so is the engine rolling them again
    engine_fight.ok("react", "broo1", "dodge", "--reroll", "the table wants physical dice", "--dice",
                    ",".join(map(str, chosen)))
    notes = [d["text"] for _, d in versions_of(engine_fight.db, "note-added")]
    assert any(t.startswith("re-roll after undoing") and "physical dice" in t for t in notes)


def test_undo_then_reissue_with_the_engine_repeats_the_faces(engine_fight: Cli):
    before = dice_events(engine_fight.db)[-2:]
    engine_fight.ok("undo")
    engine_fight.ok("react", "broo1", "dodge")
    again = dice_events(engine_fight.db)[-2:]
    assert [(d["index"], d["faces"]) for d in again] == [(d["index"], d["faces"]) for d in before]
    assert engine_fight("verify", "--dice").exit_code == 0


def test_double_undo_guards_every_reissued_command(manual_fight: Cli):
    """Two undos, then the first command issued again with its own dice:
    the second may not take new dice freely (it could before)."""
    cli = manual_fight
    cli.ok("attack", "vasana", "broo1", "--dice", "34")
    cli.ok("react", "broo1", "dodge", "--dice", "90,20")
    cli.ok("undo")
    cli.ok("undo")
    cli.ok("attack", "vasana", "broo1", "--dice", "34")
    assert_user_error(cli("react", "broo1", "dodge", "--dice", "10,20"), "90,20", "--reroll")
    cli.ok("react", "broo1", "dodge", "--dice", "90,20")


def test_rewind_guards_every_reissued_command(manual_fight: Cli):
    cli = manual_fight
    head = cli.events()
    cli.ok("attack", "vasana", "broo1", "--dice", "34")
    cli.ok("react", "broo1", "dodge", "--dice", "90,20")
    cli.ok("rewind", "--version", str(head))
    cli.ok("attack", "vasana", "broo1", "--dice", "34")
    assert_user_error(cli("react", "broo1", "dodge", "--dice", "10,20"), "--reroll")


def test_amend_cannot_re_roll_dice_the_log_rolled_at_those_places(manual_fight: Cli):
    """Amend a rolled parry to no reaction (its dice are dropped), then
    amend that to a dodge with new dice: the parry's dice were rolled
    there, so new faces are a re-roll. Amend used to compare them only with
    the amended command's own dice (none), and let them through."""
    cli = manual_fight
    cli.ok("attack", "vasana", "broo1", "--dice", "34")
    cli.ok("react", "broo1", "parry", "--dice", "30,50")
    cli.ok("amend", "1.2", "--reaction", "none")
    heads = cli.events()
    assert_user_error(cli("amend", "1.2", "--reaction", "dodge", "--dice", "90,20"), "30,50", "--reroll")
    assert cli.events() == heads
    cli.ok("amend", "1.2", "--reaction", "dodge", "--dice", "30,50")  # the faces rolled there
    assert cli("verify", "--dice").exit_code == 0


def test_a_different_command_with_other_dice_is_not_a_reroll(manual_fight: Cli):
    """After an undo, a different decision that rolls other dice (no die of
    the same size where the undone one rolled) is not a re-roll."""
    cli = manual_fight
    cli.ok("attack", "vasana", "broo1", "--dice", "34")
    cli.ok("react", "broo1", "dodge", "--dice", "90,20")
    cli.ok("undo")
    cli.ok("react", "broo1", "none")


# --------------------------------------------------------------------------- #
# 4. Players' entropy: salts
# --------------------------------------------------------------------------- #


def _salted_twins(tmp_path: Path) -> tuple[Cli, Cli]:
    a, b = Cli(tmp_path / "a.db"), Cli(tmp_path / "b.db")
    for c in (a, b):
        c.ok("new", "Ford", "--seed", SEED)
        c.ok("join", VASANA, "--side", "heroes")
        c.ok("join", BROO, "--name", "Broo 1", "--side", "broo")
    return a, b


def test_a_salt_changes_the_rolls_to_come_and_verify_re_derives_them(tmp_path):
    salted, plain = _salted_twins(tmp_path)
    out = salted.ok("--as", "sam", "salt", "owls at midnight 4417")
    assert "from #0" in out.stdout
    [(version, salt)] = versions_of(salted.db, "salt-added")
    assert salt == {"type": "salt-added", "value": "owls at midnight 4417", "from_index": 0}
    assert [e["actor"] for e in raw_events(salted.db) if e["version"] == version] == ["sam"]
    for c in (salted, plain):
        c.ok("start")
        c.ok("attack", "vasana", "broo1")
    faces = [[d["faces"] for d in dice_events(c.db)] for c in (salted, plain)]
    assert faces[0] != faces[1]
    result = salted.ok("verify", "--dice")
    assert "re-derived with 1 salts" in result.stdout
    seed = bytes.fromhex(SEED)
    first = dice_events(salted.db)[0]
    expected = dicelib.engine_face(seed, "ford", 0, 10, ("owls at midnight 4417",))
    assert first["faces"] == [expected]


def test_a_salt_never_changes_a_roll_already_drawn(engine_fight: Cli):
    before = dice_events(engine_fight.db)[-2:]
    engine_fight.ok("undo")
    engine_fight.ok("--as", "sam", "salt", "too late to matter")
    [(_, salt)] = versions_of(engine_fight.db, "salt-added")
    assert salt["from_index"] == before[-1]["index"] + 1
    engine_fight.ok("react", "broo1", "dodge")  # no --reroll needed: the same faces
    again = dice_events(engine_fight.db)[-2:]
    assert [d["faces"] for d in again] == [d["faces"] for d in before]
    engine_fight.ok("roll")  # past the salt: derived with it
    assert engine_fight("verify", "--dice").exit_code == 0


@pytest.mark.parametrize("edit", ["value", "from_index", "actor-only"])
def test_a_salt_edited_after_the_rolls_it_salted_is_caught(engine_fight: Cli, edit: str):
    """Salts are events in the chain, and every later engine roll is
    derived with them: whoever rewrites a salt (and re-hashes) must also
    rewrite every roll after it, or verify --dice fails. Its author (the
    envelope's actor, as given with --as) is only as true as the GM."""
    cli = engine_fight
    cli.ok("--as", "sam", "salt", "sam's dice")
    cli.ok("roll")  # the damage and hit location the table waits for: engine dice, salted
    assert cli("verify", "--dice").exit_code == 0
    [(version, _)] = versions_of(cli.db, "salt-added")
    if edit == "actor-only":
        with closing(sqlite3.connect(cli.db)) as conn:
            conn.execute("DROP TRIGGER IF EXISTS events_no_update")
            conn.execute("UPDATE events SET actor = 'gm' WHERE version = ?", (version,))
            rehash(conn, "ford")
            conn.commit()
        assert cli("verify", "--dice").exit_code == 0  # the author is not authenticated: see the threat model
        return
    change = {"value": lambda d: {**d, "value": "the GM's ground salt"},
              "from_index": lambda d: {**d, "from_index": d["from_index"] + 50}}[edit]
    tamper(cli.db, "ford", version, change)
    assert cli("verify").exit_code == 0  # a consistent chain on its own
    result = cli("verify", "--dice")
    assert result.exit_code == 1 and any("does not re-derive" in line for line in failed(result))


def test_a_salt_cannot_be_undone(duel: Cli):
    duel.ok("salt", "abc")
    assert_user_error(duel("undo"), "salt")


def test_a_command_salt_mixes_into_that_command_only(tmp_path):
    salted, plain = _salted_twins(tmp_path)
    salted.ok("start", "--salt", "mine")
    plain.ok("start")
    assert [d["faces"] for d in dice_events(salted.db)] != [d["faces"] for d in dice_events(plain.db)]
    issued = [d for _, d in versions_of(salted.db, "command-issued") if d["command"]["command"] == "start"]
    assert issued[0]["salt"] == "mine"
    for c in (salted, plain):
        c.ok("attack", "vasana", "broo1")
    assert dice_events(salted.db)[-1]["faces"] == dice_events(plain.db)[-1]["faces"]
    assert salted("verify", "--dice").exit_code == 0
    # re-issued without its salt after an undo: new faces need --reroll
    salted.ok("undo")
    salted.ok("undo")
    assert_user_error(salted("start"), "--reroll")
    salted.ok("start", "--salt", "mine")


def test_an_empty_salt_is_refused(duel: Cli):
    assert_user_error(duel("salt", "  "), "salt needs a value")


# --------------------------------------------------------------------------- #
# 5. History is anchored
# --------------------------------------------------------------------------- #


def _head(cli: Cli) -> dict:
    return cli.json("head")


def test_head_prints_the_full_hash_and_version(engine_fight: Cli):
    head = _head(engine_fight)
    assert len(head["head"]) == 64 and head["version"] == engine_fight.events()
    text = engine_fight.ok("head").stdout
    assert head["head"] in text and f"version {head['version']}" in text
    assert engine_fight.ok("verify", "--against", head["head"]).exit_code == 0


def test_truncation_is_caught_against_a_kept_head(engine_fight: Cli):
    head = _head(engine_fight)
    tamper(engine_fight.db, "ford", 0, delete_from=head["version"] - 3)
    assert engine_fight("verify").exit_code == 0  # a consistent, shorter chain
    result = engine_fight("verify", "--against", head["head"])
    assert result.exit_code == 1 and "truncated" in result.stderr
    spec = f"{head['version']}:{head['head']}"
    assert engine_fight("verify", "--against", spec).exit_code == 1


def test_a_rewrite_before_the_anchor_is_caught_even_re_hashed(engine_fight: Cli):
    head = _head(engine_fight)
    [(version, _)] = versions_of(engine_fight.db, "combatant-joined")[:1]
    tamper(engine_fight.db, "ford", version, lambda d: {**d, "side": "broo"})
    assert engine_fight("verify").exit_code == 0
    result = engine_fight("verify", "--against", head["head"])
    assert result.exit_code == 1 and len(failed(result)) == 1


def test_a_forged_tail_that_does_not_extend_the_anchor_is_caught(engine_fight: Cli):
    """The GM cuts the newest command and appends his own in its place."""
    head = _head(engine_fight)
    engine_fight.ok("note", "kept by the players")
    anchor = _head(engine_fight)
    tamper(engine_fight.db, "ford", 0, delete_from=head["version"] + 1)
    engine_fight.ok("note", "forged by the GM")
    assert engine_fight("verify").exit_code == 0
    assert engine_fight("verify", "--against", anchor["head"]).exit_code == 1
    assert engine_fight("verify", "--against", head["head"]).exit_code == 0  # it does extend the older head


def test_a_jsonl_export_is_an_anchor(engine_fight: Cli, tmp_path):
    export = tmp_path / "thread.jsonl"
    engine_fight.ok("export", "--format", "jsonl", "--secret", "--out", str(export))
    engine_fight.ok("roll")
    assert engine_fight("verify", "--against", str(export)).exit_code == 0
    [(version, _)] = versions_of(engine_fight.db, "encounter-opened")
    tamper(engine_fight.db, "ford", version, lambda d: {**d, "name": "Another ford"})
    assert engine_fight("verify", "--against", str(export)).exit_code == 1


# --------------------------------------------------------------------------- #
# 3b. The chain is bound to the seed commitment (chain v2)
# --------------------------------------------------------------------------- #


def test_a_new_chain_starts_from_the_seed_commitment(engine_fight: Cli):
    """Chain v2: the first link is keyed by genesis(id, commitment), not by
    the empty string; verify says which chain it checked."""
    from affray.store.chain import genesis

    [first] = [e for e in raw_events(engine_fight.db, "ford") if e["version"] == 1]
    assert first["data"]["chain"] == 2
    with closing(sqlite3.connect(engine_fight.db)) as conn:
        row = conn.execute("SELECT encounter_id, version, command_id, type, schema, recorded_at, actor, data, hash "
                           "FROM events WHERE version = 1").fetchone()
    text = canonical(*row[:8])
    start = genesis("ford", first["data"]["seed_sha256"])
    assert row[8] == hashlib.sha256((start + text).encode()).hexdigest()
    assert row[8] != hashlib.sha256(text.encode()).hexdigest()
    report = engine_fight.json("verify")["encounters"][0]
    assert report["chain_version"] == 2
    assert "(chain v2, bound to the seed commitment)" in engine_fight.ok("verify").stdout


def test_a_log_re_hashed_from_the_empty_string_does_not_verify(engine_fight: Cli):
    """A re-hash that starts the chain as v1 did, keeping the v2 mark, is a
    broken chain: the start is not the commitment's."""
    with closing(sqlite3.connect(engine_fight.db)) as conn:
        conn.execute("DROP TRIGGER IF EXISTS events_no_update")
        prev = ""
        rows = conn.execute("SELECT version, command_id, type, schema, data, recorded_at, actor FROM events "
                            "ORDER BY version").fetchall()
        for version, command_id, type_, schema, data, recorded_at, actor in rows:
            prev = hashlib.sha256((prev + canonical("ford", version, command_id, type_, schema,
                                                    recorded_at, actor, data)).encode()).hexdigest()
            conn.execute("UPDATE events SET hash = ? WHERE version = ?", (prev, version))
        conn.execute("UPDATE heads SET hash = ?", (prev,))
        conn.commit()
    result = engine_fight("verify")
    assert result.exit_code == 1 and any("version 1: hash mismatch" in line for line in failed(result))


def test_the_kept_seed_commitment_is_an_anchor_from_the_first_moment(engine_fight: Cli):
    """The commitment 'affray new' and 'affray head' print anchors the log
    before any head was kept: the same log extends it."""
    commitment = _head(engine_fight)["seed_sha256"]
    result = engine_fight.ok("verify", "--against", commitment)
    assert "opened with the kept seed commitment" in result.stdout and "every hash is bound to it" in result.stdout


def test_a_log_re_hashed_with_another_seed_is_caught_against_the_kept_commitment(engine_fight: Cli):
    """The GM swaps seed and commitment and re-hashes the whole chain: the
    file alone is consistent, but not with the commitment the players kept."""
    kept = _head(engine_fight)["seed_sha256"]
    other = bytes(range(32))
    Path(f"{engine_fight.db}.keys").write_text(f"ford {other.hex()}\n")
    tamper(engine_fight.db, "ford", 1, lambda d: {**d, "seed_sha256": dicelib.commitment(other)})
    assert engine_fight("verify").exit_code == 0  # consistent on its own: no secret keys the chain
    result = engine_fight("verify", "--against", kept)
    assert result.exit_code == 1 and "nor is it the seed commitment" in failed(result)[0]


def test_a_log_truncated_and_re_started_is_caught_against_the_kept_commitment(engine_fight: Cli):
    """The GM deletes the encounter and opens it again under the same id."""
    kept = _head(engine_fight)["seed_sha256"]
    with closing(sqlite3.connect(engine_fight.db)) as conn:
        conn.execute("DROP TRIGGER IF EXISTS events_no_delete")
        conn.execute("DELETE FROM events")
        conn.execute("DELETE FROM heads")
        conn.execute("DELETE FROM snapshots")
        conn.commit()
    engine_fight.ok("new", "Ford", "--id", "ford")
    assert engine_fight("verify").exit_code == 0
    result = engine_fight("verify", "--against", kept)
    assert result.exit_code == 1 and "re-started with another seed" in failed(result)[0]


def test_a_v2_log_passed_off_as_v1_is_named_and_caught_against_an_anchor(engine_fight: Cli):
    """Dropping the v2 mark and re-hashing from the empty string gives a
    consistent v1 chain: verify says 'chain v1', and any kept head or the
    kept commitment's chain binding catches it."""
    head = _head(engine_fight)
    tamper(engine_fight.db, "ford", 1, lambda d: {k: v for k, v in d.items() if k != "chain"})
    out = engine_fight.ok("verify").stdout
    assert "chain v1" in out
    assert engine_fight("verify", "--against", head["head"]).exit_code == 1
    assert "chain v1: only the opening event holds it" in engine_fight.ok(
        "verify", "--against", head["seed_sha256"]).stdout


@pytest.mark.parametrize("name", ["schema1", "mythras_schema1", "rq3_schema1", "rolemaster_schema1", "uesrpg_schema1"])
def test_an_old_v1_log_still_verifies_and_says_it_is_v1(cli: Cli, name: str):
    fixture = Path(__file__).resolve().parent / "fixtures" / f"{name}.jsonl"
    cli.ok("import", str(fixture))
    data = cli.json("verify")
    [report] = data["encounters"]
    assert data["ok"] and report["chain_version"] == 1 and report["chain_intact"]
    assert "(chain v1: an old log" in cli.ok("verify").stdout


def test_a_chain_cannot_be_spliced_onto_another_encounter(engine_fight: Cli):
    """Another encounter's events, copied row for row with their hashes
    after a new opening, do not verify: every hash is bound to its
    encounter (id and commitment) from the first link on."""
    from affray.store.chain import genesis

    commitment = _head(engine_fight)["seed_sha256"]
    assert genesis("ford", commitment) != genesis("ford-2", commitment)
    assert genesis("ford", commitment) != genesis("ford", dicelib.commitment(b"x" * 16))
    engine_fight.ok("new", "Ford", "--id", "ford-2")
    with closing(sqlite3.connect(engine_fight.db)) as conn:
        rows = conn.execute("SELECT version, command_id, type, schema, data, recorded_at, actor, hash FROM events "
                            "WHERE encounter_id = 'ford' AND version > 1 ORDER BY version").fetchall()
        conn.executemany("INSERT INTO events (encounter_id, version, command_id, type, schema, data, recorded_at, "
                         "actor, hash) VALUES ('ford-2', ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        conn.execute("UPDATE heads SET version = ?, hash = ? WHERE encounter_id = 'ford-2'", rows[-1][:1] + rows[-1][-1:])
        conn.commit()
    result = engine_fight("-e", "ford-2", "verify")
    assert result.exit_code == 1 and "ford-2 version 2: hash mismatch" in failed(result)[0]


def test_a_bad_anchor_is_one_line(engine_fight: Cli):
    assert_user_error(engine_fight("verify", "--against", "nonsense"), "--against takes")


# --------------------------------------------------------------------------- #
# 6. Snapshots cannot change a decision unnoticed
# --------------------------------------------------------------------------- #


def _forged_broadsword(store: EventStore):
    """The state now, and the same with Vasana's Broadsword at 5% instead of 65%."""
    state = load_state(store, "ford")
    vasana = state.combatants["vasana"]
    sheet = json.loads(json.dumps(vasana.sheet))
    sheet["weapons"][0]["skill"] = 5
    forged = msgspec.structs.replace(
        state, combatants={**state.combatants, "vasana": msgspec.structs.replace(vasana, sheet=sheet)}
    )
    return state, forged


def test_a_forged_snapshot_is_caught_by_verify_and_by_the_audit(manual_fight: Cli):
    """The forged-snapshot attack: Vasana's Broadsword 65% becomes 5% in a
    snapshot, so her 40 is recorded as a miss. verify finds the snapshot;
    once it is deleted, the audit (and verify --full) still finds the
    decision, with exit 1."""
    db = manual_fight.db
    with EventStore(db) as store:
        state, forged = _forged_broadsword(store)
        # the head hash is public: the forger binds the snapshot to the right one
        store.save_snapshot("ford", state.version, dump(forged, store.head("ford")[1]))
    manual_fight.ok("attack", "vasana", "broo1", "--dice", "40")
    result = manual_fight("verify")
    assert result.exit_code == 1 and "snapshot at version" in result.stderr
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("DELETE FROM snapshots")
        conn.commit()
    assert manual_fight("verify").exit_code == 0  # the chain and the replay hold: the decision does not
    audit = manual_fight("audit")
    assert audit.exit_code == 1 and "1 differ" in audit.stdout
    full = manual_fight("verify", "--full")
    assert full.exit_code == 1 and "audit:" in full.stderr


def test_a_snapshot_of_another_history_is_never_used(manual_fight: Cli):
    """A snapshot bound to another head (copied from another log, or left
    under a rewritten one) is ignored: the state comes from the log."""
    db = manual_fight.db
    with EventStore(db) as store:
        state, forged = _forged_broadsword(store)
        store.save_snapshot("ford", state.version, dump(forged, "0" * 64))
        assert load_state(store, "ford").combatants["vasana"].sheet["weapons"][0]["skill"] == 65
        store.save_snapshot("ford", state.version, dump(forged))  # written before snapshots were bound: ignored too
        assert load_state(store, "ford").combatants["vasana"].sheet["weapons"][0]["skill"] == 65
    manual_fight.ok("attack", "vasana", "broo1", "--dice", "40")
    assert manual_fight("audit").exit_code == 0
    assert "success" in manual_fight.ok("log").stdout


# --------------------------------------------------------------------------- #
# 7. Exit codes, --json, each FAILED line once, read-only logs
# --------------------------------------------------------------------------- #


def test_verify_json_and_each_failed_line_once(engine_fight: Cli):
    version, _ = _engine_rolls(engine_fight.db)[0]
    with closing(sqlite3.connect(engine_fight.db)) as conn:
        conn.execute("DROP TRIGGER events_no_update")
        conn.execute("UPDATE events SET actor = 'mallory' WHERE version = ?", (version,))
        conn.commit()
    result = engine_fight("verify")
    assert result.exit_code == 1
    lines = failed(result)
    assert lines and len(lines) == len(set(lines))
    data = json.loads(engine_fight("verify", "--json").stdout)
    assert data["ok"] is False and data["exit"] == 1 and data["problems"]
    assert data["encounters"][0]["chain_intact"] is False


def test_an_archived_log_in_a_folder_that_cannot_be_written_is_read(engine_fight: Cli, monkeypatch):
    """Read verbs fall back to immutable=1 when the folder cannot be written
    (as root the test cannot take the permission away, so it tells affray
    the folder is not writable)."""
    real = os.access
    folder = str(engine_fight.db.parent)
    monkeypatch.setattr(os, "access", lambda p, mode, *a, **k: False if str(p) == folder else real(p, mode, *a, **k))
    for suffix in ("-wal", "-shm"):
        Path(f"{engine_fight.db}{suffix}").unlink(missing_ok=True)
    assert engine_fight.ok("verify", "--dice").exit_code == 0
    assert engine_fight.json("state")["round"] == 1


# --------------------------------------------------------------------------- #
# 8. The property: salted fights re-derive, and any single change is caught
# --------------------------------------------------------------------------- #

_salts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12).filter(str.strip)
_move = st.one_of(
    st.just(("auto", "")),
    st.just(("undo", "")),
    st.tuples(st.just("salt"), _salts),
    st.tuples(st.just("own-salt"), _salts),
)


def _play(store: EventStore, eid: str, moves) -> None:
    for kind, value in moves:
        state = load_state(store, eid)
        if state.phase in ("over", "closed"):
            break
        try:
            if kind == "salt":
                execute(store, cmd.AddSalt(value=value), encounter_id=eid, actor="sam")
            elif kind == "undo":
                execute(store, cmd.Undo(), encounter_id=eid, actor="gm")
            elif kind == "own-salt":
                command = next_command(state)
                if command is None:
                    break
                execute(store, command, encounter_id=eid, actor="gm", salt=value)
            else:
                autoplay(store, eid, actor="gm", max_commands=1)
        except RuleError:
            continue  # a refused command (nothing to undo, a salt to undo, a re-roll): nothing written


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(
    seed=st.binary(min_size=16, max_size=32),
    moves=st.lists(_move, min_size=6, max_size=22),
    pick=st.integers(0, 10_000),
    change=st.sampled_from(["face", "index", "source"]),
    delta=st.integers(1, 3),
)
def test_salted_fights_re_derive_and_any_single_change_is_caught(tmp_path_factory, seed, moves, pick, change, delta):
    db = tmp_path_factory.mktemp("prop") / "fight.db"
    with EventStore(db, synchronous="NORMAL") as store:
        eid = setup(store, "duel", seed=seed, allow_short_seed=True, actor="gm")
        _play(store, eid, [("auto", "")] * 2 + moves)
        report = check_encounter(store, eid, dice=True)
        assert report.problems == [] and report.dice == "checked"
        rolls = [(v, d) for v, d in versions_of(db, "dice-rolled", eid) if d["source"] == "engine" and d["faces"]]
        assert report.engine_rolls == len(rolls) > 0
    version, roll = rolls[pick % len(rolls)]
    sides = dicelib.parse(roll["expr"]).dice

    def edit(data):
        if change == "face":
            j = pick % len(data["faces"])
            data["faces"][j] = data["faces"][j] % sides[j] + 1 if sides[j] > 1 else data["faces"][j] + 1
        elif change == "index":
            data["index"] = data["index"] + delta if data["index"] < delta or pick % 2 else data["index"] - delta
        else:
            data.update(source="table", index=-1, typed_by="gm")
        return data

    tamper(db, eid, version, edit)
    with EventStore(db, readonly=True) as store:
        assert store.verify(eid) == []  # the chain was re-hashed: only the dice checks can tell
        assert check_encounter(store, eid, dice=True).problems


def test_verify_of_an_unknown_encounter_is_one_line(engine_fight: Cli):
    assert_user_error(engine_fight("-e", "nowhere", "verify"), "nowhere")


def test_against_finds_the_encounter_the_anchor_belongs_to(engine_fight: Cli, tmp_path):
    """With no --encounter, the anchor's own encounter is checked, closed or not."""
    head = _head(engine_fight)
    export = tmp_path / "ford.jsonl"
    engine_fight.ok("export", "--format", "jsonl", "--secret", "--out", str(export))
    engine_fight.ok("close")
    engine_fight.ok("new", "Second fight")
    for spec in (head["head"], f"{head['version']}:{head['head']}", str(export)):
        out = engine_fight.ok("verify", "--against", spec).stdout
        assert out.startswith("ford:") and "extends the anchor" in out


def test_verify_reports_progress_and_streams(engine_fight: Cli, monkeypatch):
    from affray import verify as verify_module

    monkeypatch.setattr(verify_module, "_TICK", 5)  # a tick every 5 events (4,096 by default)

    ticks: list[int] = []

    class Bar:
        def __init__(self, total):
            self.total = total

        def __enter__(self):
            return ticks.append

        def __exit__(self, *exc):
            return False

    with EventStore(engine_fight.db, readonly=True) as store:
        verdict = verify_store(store, dice=True, progress=Bar)
    assert verdict.code == 0 and verdict.reports[0].events == engine_fight.events()
    assert ticks and ticks == sorted(ticks) and ticks[-1] <= engine_fight.events()


def test_the_salted_derivation_is_exactly_the_documented_one():
    """README "How it is built" / affray.dice "Salts", written out by hand."""

    face = reference_salted_face  # test_dice: the derivation written out with hmac and hashlib
    seed = bytes(range(16))
    standing = [(0, "owls"), (3, "ünïcode 4417"), (7, "late")]
    for index in range(10):
        for sides in (4, 10, 20, 100, 3):
            applies = [v for first, v in standing if first <= index]
            expected = face(seed, "ford", index, sides, applies + ["mine"])
            assert dicelib.salted_faces(seed, "ford", index, (sides,), standing, "mine") == (expected,)
            if applies:
                assert dicelib.engine_face(seed, "ford", index, sides, tuple(applies)) == face(seed, "ford", index, sides, applies)
    # no salt: the unsalted contract, unchanged
    assert dicelib.salted_faces(seed, "ford", 0, (100,)) == (dicelib.engine_face(seed, "ford", 0, 100),)


def test_an_amend_replay_that_cannot_keep_an_engine_roll_stops_and_says_why(duel: Cli):
    """Amending the parry (two engine dice) to no reaction shifts the engine's
    roll numbers: the damage roll after it cannot keep engine roll #5, so the
    replay stops there instead of typing its faces in as the GM's dice."""
    for verb in (["start"], ["attack", "vasana", "broo1"], ["react", "broo1", "parry"], ["roll"]):
        duel.ok(*verb)
    typed_before = [d for _, d in versions_of(duel.db, "dice-rolled") if d["source"] == "table"]
    out = duel.ok("amend", "1.2", "--reaction", "none", "--replay").stdout
    assert "Replay stopped at" in out and "would now be engine roll #3" in out
    assert "amend never relabels an engine roll as typed dice" in out
    typed_after = [d for _, d in versions_of(duel.db, "dice-rolled") if d["source"] == "table"]
    assert typed_after == typed_before
    assert duel("verify", "--dice").exit_code == 0


def test_a_revealed_seed_that_is_not_the_committed_one_is_caught(engine_fight: Cli):
    engine_fight.ok("close")
    [(version, _)] = versions_of(engine_fight.db, "encounter-closed")
    tamper(engine_fight.db, "ford", version, lambda d: {**d, "seed": "11" * 32})
    Path(f"{engine_fight.db}.keys").unlink()
    result = engine_fight("verify", "--dice")
    assert result.exit_code == 1 and any("does not match the commitment" in line for line in failed(result))


def _as_schema_2(db: Path, seed: bytes) -> None:
    """Turn a log into one written before the key file: its seed in the
    dice_seeds table, no key file, schema 2."""
    Path(f"{db}.keys").unlink()
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("INSERT INTO dice_seeds (encounter_id, seed) VALUES ('ford', ?)", (seed,))
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = '0003_dice_seeds_to_key_file'")
        conn.execute("PRAGMA user_version = 2")
        conn.commit()


def test_an_old_log_is_read_as_it_is_and_its_seed_moves_out_on_the_first_write(engine_fight: Cli):
    db = engine_fight.db
    seed = bytes.fromhex(Path(f"{db}.keys").read_text().split()[1])
    _as_schema_2(db, seed)
    # a read verb on the archived old log neither fails nor upgrades it
    assert engine_fight.ok("verify", "--dice").exit_code == 0
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    # the first write verb migrates: the seed goes to the key file, out of the log
    engine_fight.ok("note", "after the upgrade")
    assert Path(f"{db}.keys").read_text().split() == ["ford", seed.hex()]
    assert (Path(f"{db}.keys").stat().st_mode & 0o777) == 0o600
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT count(*) FROM dice_seeds").fetchone()[0] == 0
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION  # 3 and every later one
    for suffix in ("", "-wal"):
        if Path(f"{db}{suffix}").exists():
            assert seed not in Path(f"{db}{suffix}").read_bytes()
    engine_fight.ok("roll")
    assert engine_fight.ok("verify", "--dice").exit_code == 0


def _reference_slots(store: EventStore, eid: str) -> tuple[dict, int]:
    """The re-roll guard's map of the dice, the slow way: every die of the
    whole log walked in version order, undo, redo and rewind applied."""
    from affray.events import core as ev
    from affray.projections.timeline import Timeline

    records = list(store.read(eid))
    if not any(isinstance(r.event, (ev.CommandRetracted, ev.EncounterRewound)) for r in records):
        return {}, 0
    dice: dict[str, list] = {}
    start: dict[str, int] = {}
    live: list[str] = []
    slots: dict[int, tuple] = {}
    total = 0
    for i, rec in enumerate(records):
        e = rec.event
        if isinstance(e, ev.DiceRolled):
            cid = rec.command_id
            if cid not in dice:
                dice[cid], start[cid] = [], total
                live.append(cid)
            for face, sides in zip(e.faces, dicelib.parse(e.expr).dice):
                slots[start[cid] + len(dice[cid])] = (face, sides, cid)
                dice[cid].append((face, sides))
                total += 1
        elif isinstance(e, (ev.CommandRetracted, ev.CommandRestored, ev.EncounterRewound)):
            now = Timeline(records[: i + 1])
            was = set(live)
            live = [c for c in dice if now.is_live(c)]
            for cid in live:
                if cid not in was:  # restored: takes its places again
                    start[cid] = total
                    for j, (face, sides) in enumerate(dice[cid]):
                        slots[total + j] = (face, sides, cid)
                    total += len(dice[cid])
            total -= sum(len(dice[c]) for c in was - set(live))
    return {s: v for s, v in slots.items() if s >= total}, total


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(moves=st.lists(st.sampled_from(["auto", "auto", "undo", "redo", "rewind"]), min_size=4, max_size=24),
       seed=st.binary(min_size=16, max_size=16))
def test_the_guards_map_of_the_dice_matches_a_walk_of_every_die(moves, seed):
    from affray.commands.handler import rolled_slots

    store = EventStore(":memory:")
    eid = setup(store, "duel", seed=seed, allow_short_seed=True, actor="gm")
    autoplay(store, eid, actor="gm", max_commands=2)
    for move in moves:
        try:
            if move == "auto":
                autoplay(store, eid, actor="gm", max_commands=1)
            elif move == "undo":
                execute(store, cmd.Undo(), encounter_id=eid)
            elif move == "redo":
                execute(store, cmd.Redo(), encounter_id=eid)
            else:
                execute(store, cmd.Rewind(to_version=max(4, store.version(eid) - 12)), encounter_id=eid)
        except RuleError:
            continue
        assert rolled_slots(store, eid) == _reference_slots(store, eid)


# --------------------------------------------------------------------------- #
# import: a progress bar on a terminal only
# --------------------------------------------------------------------------- #


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminals as on Linux")
def test_import_shows_a_progress_bar_on_a_terminal_only(engine_fight: Cli, tmp_path):
    export = tmp_path / "ford.jsonl"
    engine_fight.ok("export", "--format", "jsonl", "--secret", "--out", str(export))
    quiet = affray_process("--db", str(tmp_path / "a.db"), "import", str(export), capture_output=True, text=True)
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout.startswith("Imported encounter ford")
    proc, shown = affray_on_a_terminal("--db", str(tmp_path / "b.db"), "import", str(export))
    assert proc.returncode == 0 and proc.stdout.decode().startswith("Imported encounter ford")  # the bar never reaches stdout
    assert b"Importing" in shown and b"events" in shown
    assert Cli(tmp_path / "b.db").json("verify")["ok"]


# --------------------------------------------------------------------------- #
# Branches keep the salts of commands rewound away
# --------------------------------------------------------------------------- #


def _faces_of_next(store: EventStore, eid: str) -> list[tuple[int, tuple[int, ...]]]:
    out = execute(store, next_command(load_state(store, eid)), encounter_id=eid, actor="gm")
    return [(r.event.index, tuple(r.event.faces)) for r in out.records if r.type == "dice-rolled"]


@pytest.mark.parametrize("how", ["rewind", "undo"])
def test_a_branch_keeps_a_salt_rewound_away_and_rolls_as_its_origin_would(tmp_path, how):
    """A salt counts from its roll number on even when its command is
    rewound or undone away; a branch follows its origin's dice, so it must
    copy that salt, in its place, or its rolls to come would differ."""
    with EventStore(tmp_path / "b.db") as store:
        eid = setup(store, "duel", seed=bytes(range(16)), actor="gm")
        for _ in range(4):
            _faces_of_next(store, eid)
        mark = store.version(eid)
        execute(store, cmd.AddSalt(value="the players' salt"), encounter_id=eid, actor="sam")
        if how == "rewind":
            execute(store, cmd.Rewind(to_version=mark), encounter_id=eid, actor="gm")
        else:
            with pytest.raises(RuleError, match="salt"):
                execute(store, cmd.Undo(), encounter_id=eid, actor="gm")
        branched = execute(store, cmd.BranchEncounter(name="what if"), encounter_id=eid, actor="gm").encounter_id
        assert store.salts(branched) == store.salts(eid) == [(store.salts(eid)[0][0], "the players' salt")]
        [salt_rec] = [r for r in store.read(branched) if r.type == "salt-added"]
        assert salt_rec.actor == "sam"
        for _ in range(3):
            assert _faces_of_next(store, branched) == _faces_of_next(store, eid)
        for e in (eid, branched):
            verdict = verify_store(store, e, dice=True)
            assert verdict.code == 0, verdict.problems


def test_import_under_another_id_keeps_the_chain_version(engine_fight: Cli, tmp_path):
    """--as-id hashes the chain anew for the new id: from the new genesis
    for a chain v2, from the empty string for a chain v1."""
    export = tmp_path / "ford.jsonl"
    engine_fight.ok("export", "--format", "jsonl", "--secret", "--out", str(export))
    copy = Cli(tmp_path / "copy.db")
    copy.ok("import", str(export), "--as-id", "ford-copy")
    fixture = Path(__file__).resolve().parent / "fixtures" / "schema1.jsonl"
    copy.ok("import", str(fixture), "--as-id", "old-copy")
    versions = {r["encounter"]: r["chain_version"] for r in copy.json("verify")["encounters"]}
    assert versions == {"ford-copy": 2, "old-copy": 1}
