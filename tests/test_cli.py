"""Every ``affray`` verb, driven through typer's CliRunner.

Fights are made reproducible by typing the dice (``--dice``) wherever the
outcome matters, and by a fixed seed elsewhere. The fixtures (``cli``,
``duel``, ``fight``, ``manual_fight``) are in conftest.py.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sqlite3
from contextlib import closing

import pytest
import typer

from affray.cli.app import app
from affray.dice import parse as parse_expr
from affray.store.chain import canonical, chain_hash

from conftest import (
    BROO,
    BROO_YAML,
    GORP,
    SEED,
    VASANA,
    Cli,
    assert_user_error,
    dice_events,
    event_count,
    raw_events,
)

#: The verbs the brief and DESIGN.md promise.
VERBS = [
    "new", "join", "start", "attack", "react", "roll", "choose", "act", "end-round", "note",
    "undo", "redo", "close", "verify", "export", "state", "pending", "log", "list", "rulings", "demo",
]


def hp(combatant: dict, location: str) -> tuple[int, int]:
    loc = next(l for l in combatant["locations"] if l["name"] == location)
    return loc["hp"], loc["max_hp"]


def pass_all_actions(cli: Cli) -> None:
    """Everyone passes until the round waits for 'end-round'."""
    for _ in range(20):
        step = cli.pending()[0]
        if step["verb"] == "end-round":
            return
        assert step["verb"] == "attack", step
        cli.ok("act", step["who"], "pass")
    raise AssertionError("the round never ended")


# --------------------------------------------------------------------------- #
# new
# --------------------------------------------------------------------------- #


def test_new_opens_encounter_and_commits_to_the_seed(cli):
    result = cli.ok("new", "Ambush at the ford", "--system", "mrq1", "--seed", SEED)
    commitment = hashlib.sha256(bytes.fromhex(SEED)).hexdigest()
    assert "Encounter ambush-at-the-ford (mrq1) opened" in result.stdout
    assert commitment[:16] in result.stdout
    [opened] = raw_events(cli.db)
    assert opened["type"] == "encounter-opened"
    assert opened["data"]["seed_sha256"] == commitment
    assert opened["data"]["manual_dice"] is False
    # the seed itself is nowhere in the log until the encounter is closed
    assert SEED not in json.dumps(opened["data"]).replace(commitment, "")


def test_new_accepts_a_system_alias(cli):
    cli.ok("new", "Ford", "--system", "MRQ")
    assert cli.state()["system"] == "mrq1"


def test_new_twice_gives_unique_ids_and_the_newest_is_the_default(cli):
    cli.ok("new", "Ford")
    result = cli.ok("new", "Ford")
    assert "Encounter ford-2 " in result.stdout
    assert cli.state()["encounter"] == "ford-2"
    assert cli.json("--encounter", "ford", "state")["encounter"] == "ford"


def test_new_with_the_same_seed_and_id_gives_the_same_engine_dice(tmp_path, cli):
    """DESIGN.md invariant 8 (determinism), through the CLI."""
    other = Cli(tmp_path / "other.db")
    for runner in (cli, other):
        runner.ok("new", "Ford", "--id", "same", "--seed", "0badc0de" * 4)
        runner.ok("join", VASANA, "--side", "heroes")
        runner.ok("join", BROO, "--name", "Broo 1", "--side", "broo")
        runner.ok("start")
        first = runner.pending()[0]["who"]
        foe = "broo1" if first == "vasana" else "vasana"
        runner.ok("attack", first, foe)
    faces = [[(d["purpose"], d["faces"], d["index"]) for d in dice_events(r.db)] for r in (cli, other)]
    assert faces[0] == faces[1]
    assert all(d["source"] == "engine" for d in dice_events(cli.db))
    one, two = cli.state(), other.state()
    assert one == two


def test_new_manual_dice_records_the_mode_and_table_dice(manual_duel):
    assert raw_events(manual_duel.db)[0]["data"]["manual_dice"] is True
    manual_duel.ok("start", "--dice", "7,3")
    rolled = dice_events(manual_duel.db)
    assert [(d["faces"], d["source"]) for d in rolled] == [([7], "table"), ([3], "table")]


def test_new_manual_dice_announces_the_mode(cli):
    result = cli.ok("new", "Ford", "--manual-dice")
    assert "manual dice" in result.stdout
    assert "seed committed" not in result.stdout


def test_new_rulings_are_recorded_in_the_opening_event(cli):
    cli.ok("new", "Ford", "--ruling", "critical_on=base", "--ruling", "fumble-on-99=false")
    rulings = raw_events(cli.db)[0]["data"]["rulings"]
    assert rulings["critical_on"] == "base"
    assert rulings["fumble_on_99"] in ("false", False)
    # the others keep their documented defaults
    assert rulings["reaction_attacker_roll"] == "fresh"


@pytest.mark.parametrize(
    "ruling, fragment",
    [
        pytest.param("fumble_on_99=maybe", "fumble_on_99", id="bad-value"),
        pytest.param("nonsense=1", "unknown ruling 'nonsense'", id="unknown-name"),
        pytest.param("critical_on", "NAME=VALUE", id="no-equals"),
        pytest.param("=base", "NAME=VALUE", id="no-name"),
    ],
)
def test_new_bad_ruling_is_refused(cli, ruling, fragment):
    cli.ok("new", "Existing")
    before = cli.events()
    assert_user_error(cli("new", "Ford", "--ruling", ruling), fragment)
    assert cli.events() == before


# --------------------------------------------------------------------------- #
# join
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "sheet, name, handle, hit_points",
    [
        pytest.param(VASANA, "Vasana", "vasana", {"right leg": 6, "abdomen": 7, "chest": 8, "left arm": 5, "head": 6}, id="toml"),
        pytest.param(BROO_YAML, "Broo", "broo", {"right leg": 5, "abdomen": 6, "chest": 7, "left arm": 4, "head": 5}, id="yaml"),
        pytest.param(GORP, "Gorp", "gorp", {"right leg": 4, "abdomen": 5, "chest": 6, "left arm": 3, "head": 4}, id="json"),
    ],
)
def test_join_reads_every_sheet_format(cli, sheet, name, handle, hit_points):
    cli.ok("new", "Ford")
    result = cli.ok("join", sheet, "--side", "red")
    assert f"{name} joins side red" in result.stdout
    c = cli.combatant(handle)
    assert (c["name"], c["side"], c["status"]) == (name, "red", "active")
    assert c["combat_actions"]["max"] == 3
    for location, value in hit_points.items():
        assert hp(c, location) == (value, value)


def test_join_yaml_and_toml_sheets_of_the_same_broo_agree(cli):
    cli.ok("new", "Ford")
    cli.ok("join", BROO, "--side", "broo", "--handle", "t")
    cli.ok("join", BROO_YAML, "--side", "broo", "--handle", "y")
    t, y = cli.combatant("t"), cli.combatant("y")
    for key in ("locations", "combat_actions", "reactions", "ready", "name"):
        assert t[key] == y[key]


def test_join_name_and_handle(cli):
    cli.ok("new", "Ford")
    cli.ok("join", BROO, "--name", "Broo 1", "--side", "broo")
    cli.ok("join", BROO, "--name", "Broo Chieftain", "--handle", "chief", "--side", "broo")
    handles = {c["handle"]: c["name"] for c in cli.state()["combatants"]}
    assert handles == {"broo1": "Broo 1", "chief": "Broo Chieftain"}


def test_join_surprised_costs_strike_rank_and_reactions(cli):
    cli.ok("new", "Ford")
    cli.ok("join", VASANA, "--side", "heroes")
    result = cli.ok("join", GORP, "--side", "trollkin", "--surprised")
    assert "surprised" in result.stdout
    started = cli.ok("start", "--dice", "7,5")
    assert "Gorp 6 (d10=5 +11 −10 surprised)" in started.stdout
    gorp = cli.combatant("gorp")
    assert [c["name"] for c in gorp["conditions"]] == ["surprised"]
    assert cli.combatant("vasana")["conditions"] == []


# --------------------------------------------------------------------------- #
# start, attack, react, roll
# --------------------------------------------------------------------------- #


def test_start_rolls_strike_ranks_in_order(duel):
    result = duel.ok("start", "--dice", "7,3")
    assert "Strike ranks: Vasana 20 (d10=7 +13), Broo 1 13 (d10=3 +10)" in result.stdout
    assert "Waiting for: Vasana (1st combat action)" in result.stdout
    s = duel.state()
    assert (s["round"], s["phase"], s["turn"]) == (1, "round", ["vasana"])
    assert [(o["handle"], o["rank"]) for o in s["order"]] == [("vasana", 20), ("broo1", 13)]


def test_start_with_engine_dice_records_engine_rolls(duel):
    duel.ok("start")
    rolled = dice_events(duel.db)
    assert [d["source"] for d in rolled] == ["engine", "engine"]
    assert [d["index"] for d in rolled] == [0, 1]
    assert all(1 <= d["faces"][0] <= 10 for d in rolled)


def test_attack_with_weapon_then_pending_reaction(fight):
    result = fight.ok("attack", "vasana", "broo1", "--weapon", "broadsword", "--dice", "34")
    assert "Vasana attacks Broo 1 with Broadsword" in result.stdout
    assert "34 vs 65% — success" in result.stdout
    [step] = fight.pending()
    assert (step["who"], step["verb"], step["options"]) == ("broo1", "react", ["parry", "dodge", "none"])
    assert [d["expr"] for d in step["dice"]] == ["1D100", "1D100"]
    assert "Broo 1" in step["dice"][0]["purpose"] and step["dice"][0]["by"] == "broo1"
    assert "Vasana" in step["dice"][1]["purpose"] and step["dice"][1]["by"] == "vasana"
    assert fight.combatant("vasana")["combat_actions"]["left"] == 2


def test_attack_defaults_to_the_first_ready_weapon_and_matches_case_insensitively(fight):
    assert "with Broadsword" in fight.ok("attack", "vasana", "broo1", "--dice", "34").stdout
    fight.ok("undo")
    assert "with Broadsword" in fight.ok("attack", "Vas", "BROO", "--weapon", "BROAD", "--dice", "34").stdout


def test_attack_with_a_modifier_and_its_reason(fight):
    result = fight.ok("attack", "vasana", "broo1", "--mod", "-20:unstable ground", "--dice", "50")
    assert "50 vs 45% (-20 unstable ground) — failure" in result.stdout
    assert fight.pending()[0]["who"] == "broo1"  # a miss: no reaction, Broo's turn


def test_attack_with_a_named_situation(fight):
    result = fight.ok("attack", "vasana", "broo1", "--situation", "unstable-ground", "--dice", "50")
    assert "50 vs 45%" in result.stdout and "unstable ground" in result.stdout


def test_react_parry_with_the_default_shield(fight):
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    result = fight.ok("react", "broo1", "parry", "--dice", "71,34")
    assert "Broo 1 parries with Target Shield" in result.stdout
    assert "71 vs 45% — failure" in result.stdout
    assert "Attack succeeds as normal" in result.stdout
    [step] = fight.pending()
    assert (step["who"], step["verb"], step["kind"]) == ("vasana", "roll", "damage")
    assert [d["expr"] for d in step["dice"]] == ["1D8", "1D4", "1D20"]
    assert fight.combatant("broo1")["reactions"] == {"left": 2, "max": 3}


def test_react_parry_with_a_chosen_weapon(fight):
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    result = fight.ok("react", "broo1", "parry", "--with", "shortspear", "--dice", "10,90")
    assert "Broo 1 parries with Shortspear" in result.stdout
    assert "10 vs 60% — success" in result.stdout


def test_react_dodge(fight):
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    result = fight.ok("react", "broo1", "dodge", "--dice", "10,90")
    assert "Dodge 10 vs 30% — success" in result.stdout
    assert "Attack fails" in result.stdout
    assert fight.pending()[0]["who"] == "broo1" and fight.pending()[0]["verb"] == "attack"


def test_react_none_uses_no_dice_and_no_reaction(fight):
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    before = len(dice_events(fight.db))
    result = fight.ok("react", "broo1", "none")
    assert "Broo 1 does not react" in result.stdout
    assert len(dice_events(fight.db)) == before
    assert fight.combatant("broo1")["reactions"]["left"] == 3
    assert fight.pending()[0]["kind"] == "damage"


def test_roll_damage_and_location_from_table_dice(fight):
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    fight.ok("react", "broo1", "parry", "--dice", "71,34")
    result = fight.ok("roll", "--dice", "6,3,11")
    assert "9 damage to Broo 1's chest (armour −3) → 6 HP lost" in result.stdout
    assert hp(fight.combatant("broo1"), "chest") == (1, 7)
    assert fight.pending()[0]["who"] == "broo1"


def test_roll_with_engine_dice(fight):
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    fight.ok("react", "broo1", "none")
    before = len(dice_events(fight.db))
    fight.ok("roll", "vasana")
    new = dice_events(fight.db)[before:]
    assert [d["expr"] for d in new] == ["1D8", "1D4", "1D20"]
    assert all(d["source"] == "engine" and d["index"] >= 0 for d in new)
    damaged = [l for l in fight.combatant("broo1")["locations"] if l["hp"] < l["max_hp"]]
    assert len(damaged) <= 1


# --------------------------------------------------------------------------- #
# choose, act, end-round, note
# --------------------------------------------------------------------------- #


@pytest.fixture
def impaled(manual_duel):
    """Broo 1 acts first and impales Vasana's chest with a critical."""
    manual_duel.ok("start", "--dice", "1,10")  # Vasana 14, Broo 1 20
    manual_duel.ok("attack", "broo1", "vasana", "--dice", "03")  # critical (60% -> 01-06)
    manual_duel.ok("react", "vasana", "none")
    result = manual_duel.ok("roll", "--dice", "2,11")  # 1D2 damage modifier, d20=11 chest
    assert "critical damage to Vasana's chest" in result.stdout
    return manual_duel


def test_choose_leave_impales(impaled):
    [step] = impaled.pending()
    assert (step["who"], step["verb"], step["options"]) == ("broo1", "choose", ["yank", "leave"])
    impaled.ok("choose", "broo1", "leave")
    vasana = impaled.combatant("vasana")
    impale = [c for c in vasana["conditions"] if c["name"] == "impaled"]
    assert len(impale) == 1 and impale[0]["location"] == "chest"
    assert "Shortspear" not in impaled.combatant("broo1")["ready"]


def test_choose_yank_asks_for_an_athletics_roll(impaled):
    impaled.ok("choose", "broo1", "yank")
    [step] = impaled.pending()[:1]
    assert (step["who"], step["verb"], step["kind"]) == ("broo1", "roll", "yank")
    assert [d["expr"] for d in step["dice"]] == ["1D100"]


def test_act_defend_and_pass(fight):
    result = fight.ok("act", "vasana", "defend")
    assert "defending" in result.stdout
    vasana = fight.combatant("vasana")
    assert vasana["combat_actions"]["left"] == 2
    assert [c["name"] for c in vasana["conditions"]] == ["defending"]
    assert fight.pending()[0]["who"] == "broo1"
    fight.ok("act", "broo1", "pass")
    assert fight.combatant("broo1")["combat_actions"]["left"] == 2
    assert fight.combatant("broo1")["conditions"] == []
    assert fight.pending()[0]["who"] == "vasana"


def test_end_round_starts_the_next_one(fight):
    pass_all_actions(fight)
    [step] = fight.pending()
    assert step["who"] == "GM" and [d["expr"] for d in step["dice"]] == ["1D10", "1D10"]
    result = fight.ok("end-round", "--dice", "2,9")
    assert "End of round 1" in result.stdout
    assert "Round 2 begins" in result.stdout
    s = fight.state()
    assert s["round"] == 2
    assert [o["handle"] for o in s["order"]] == ["broo1", "vasana"]  # 19 v 15
    assert all(c["combat_actions"]["left"] == 3 for c in s["combatants"])


def test_note_and_secret_note(fight):
    assert "GM note: the ford is slippery" in fight.ok("note", "the ford is slippery").stdout
    fight.ok("note", "the broo has a second spear", "--secret")
    texts = [e["text"] for e in fight.json("log")]
    assert "GM note: the ford is slippery" in texts
    assert any("second spear" in t and "secret" in t for t in texts)
    public = fight.ok("export").stdout
    assert "the ford is slippery" in public
    assert "second spear" not in public
    assert "second spear" in fight.ok("export", "--secret").stdout


# --------------------------------------------------------------------------- #
# undo, redo
# --------------------------------------------------------------------------- #


def test_undo_retracts_but_keeps_the_record(fight):
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    before = fight.events()
    result = fight.ok("undo")
    assert "Retracted command" in result.stdout
    assert fight.events() == before + 1  # undo is an event, nothing is deleted
    assert fight.pending()[0]["who"] == "vasana" and fight.pending()[0]["verb"] == "attack"
    assert fight.combatant("vasana")["combat_actions"]["left"] == 3
    log = fight.json("log")
    attack = [e for e in log if e["type"] == "attack-declared"]
    assert [e["status"] for e in attack] == ["retracted"]
    assert any(e["type"] == "command-retracted" for e in log)
    markdown = fight.ok("export", "--view", "record").stdout
    assert "~~Vasana attacks Broo 1 with Broadsword~~" in markdown
    table = fight.ok("export").stdout  # the players' view: the undone attack is not there at all
    assert "Vasana attacks Broo 1" not in table and "Undo:" not in table and "(retracted)" not in table
    assert "(retracted)" in fight.ok("log").stdout


def test_undo_is_repeatable(fight):
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    fight.ok("undo")
    fight.ok("undo")  # the start of the round
    s = fight.state()
    assert (s["phase"], s["round"]) == ("setup", 0)
    statuses = {e["type"]: e["status"] for e in fight.json("log")}
    assert statuses["round-started"] == "retracted"
    assert statuses["attack-declared"] == "retracted"
    assert statuses["combatant-joined"] == "live"
    fight.ok("undo")
    fight.ok("undo")
    assert fight.state()["combatants"] == []


def test_undo_cannot_reroll_engine_dice(fight):
    """DESIGN.md: re-issuing an undone command reuses the recorded dice."""
    fight.ok("attack", "vasana", "broo1")
    first = [d for d in dice_events(fight.db) if d["source"] == "engine"]
    fight.ok("undo")
    fight.ok("attack", "vasana", "broo1")
    again = [d for d in dice_events(fight.db) if d["source"] == "engine"]
    assert len(first) == 1 and len(again) == 2
    assert (again[1]["faces"], again[1]["index"]) == (first[0]["faces"], first[0]["index"])


def test_redo_restores_the_undone_command(fight):
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    after_attack = fight.state()
    fight.ok("undo")
    result = fight.ok("redo")
    assert "Restored command" in result.stdout
    restored = fight.state()
    assert {k: v for k, v in restored.items() if k != "version"} == {
        k: v for k, v in after_attack.items() if k != "version"
    }
    assert [e["status"] for e in fight.json("log") if e["type"] == "attack-declared"] == ["live"]


# --------------------------------------------------------------------------- #
# close and verify
# --------------------------------------------------------------------------- #


def _engine_fight(fight: Cli) -> Cli:
    fight.ok("attack", "vasana", "broo1")  # engine d100
    if fight.pending()[0]["verb"] == "react":
        fight.ok("react", "broo1", "parry")  # two engine d100s
    return fight


def test_close_reveals_the_seed_and_verify_rederives_every_engine_roll(fight):
    _engine_fight(fight)
    result = fight.ok("close", "--reason", "the broo flee")
    assert f"Dice seed: {SEED}" in result.stdout
    closed = raw_events(fight.db)[-1]
    assert closed["type"] == "encounter-closed" and closed["data"]["seed"] == SEED
    assert hashlib.sha256(bytes.fromhex(closed["data"]["seed"])).hexdigest() == raw_events(fight.db)[0]["data"]["seed_sha256"]
    engine = [d for d in dice_events(fight.db) if d["source"] == "engine"]
    assert engine
    # the revealed seed is enough: drop the store's private copy
    with closing(sqlite3.connect(fight.db)) as conn:
        conn.execute("DELETE FROM dice_seeds")
        conn.commit()
    verified = fight.ok("verify", "--dice")
    assert f"{len(engine)} engine rolls re-derived" in verified.stdout
    assert "OK: the log is intact." in verified.stdout


def test_verify_passes_on_an_intact_log(fight):
    _engine_fight(fight)
    result = fight.ok("verify")
    assert "hash chain intact" in result.stdout
    assert "OK: the log is intact." in result.stdout
    assert result.stderr == ""


def _drop_guards(conn: sqlite3.Connection) -> None:
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("DROP TRIGGER events_no_delete")


def _edit(conn):
    conn.execute("UPDATE events SET data = json_set(data, '$.faces', json('[1]'), '$.total', 1) "
                 "WHERE type = 'dice-rolled' AND version = (SELECT min(version) FROM events WHERE type = 'dice-rolled')")


def _delete(conn):
    conn.execute("DELETE FROM events WHERE version = 3")


def _delete_newest(conn):
    conn.execute("DELETE FROM events WHERE version = (SELECT max(version) FROM events)")


def _reorder(conn):
    a, b = (conn.execute("SELECT seq FROM events WHERE version = ?", (v,)).fetchone()[0] for v in (2, 3))
    conn.execute("UPDATE events SET seq = -1 WHERE seq = ?", (a,))
    conn.execute("UPDATE events SET seq = ? WHERE seq = ?", (a, b))
    conn.execute("UPDATE events SET seq = ? WHERE seq = -1", (b,))


def _delete_everything(conn):
    conn.execute("DELETE FROM events")


@pytest.mark.parametrize(
    "tamper",
    [
        pytest.param(_edit, id="edit"),
        pytest.param(_delete, id="delete"),
        pytest.param(_delete_newest, id="delete-newest"),
        pytest.param(_reorder, id="reorder"),
        pytest.param(
            _delete_everything,
            id="delete-all"
        ),
    ],
)
def test_verify_finds_tampering(fight, tamper):
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    with closing(sqlite3.connect(fight.db, isolation_level=None)) as conn:
        _drop_guards(conn)
        tamper(conn)
    result = fight("verify")
    assert "Traceback" not in result.output
    assert result.exit_code != 0
    assert "OK: the log is intact" not in result.stdout
    assert "FAILED" in result.stderr


def test_verify_dice_finds_a_forged_engine_roll_even_with_a_consistent_chain(fight):
    """Rewrite an engine roll AND every hash after it: the chain is
    consistent again, so only re-deriving the dice can tell."""
    _engine_fight(fight)
    fight.ok("close")
    with closing(sqlite3.connect(fight.db, isolation_level=None)) as conn:
        _drop_guards(conn)
        version, data = conn.execute(
            "SELECT version, data FROM events WHERE type = 'dice-rolled' "
            "AND json_extract(data, '$.source') = 'engine' ORDER BY version LIMIT 1"
        ).fetchone()
        event = json.loads(data)
        sides = parse_expr(event["expr"]).dice[0]
        event["faces"] = [event["faces"][0] % sides + 1]
        event["total"] = event["faces"][0]
        conn.execute("UPDATE events SET data = ? WHERE version = ?", (json.dumps(event, separators=(",", ":")), version))
        rows = conn.execute(
            "SELECT encounter_id, version, command_id, type, schema, recorded_at, actor, data FROM events ORDER BY version"
        ).fetchall()
        prev = ""
        for eid, v, cid, type_, schema, at, actor, text in rows:
            prev = chain_hash(prev, canonical(eid, v, cid, type_, schema, at, actor, text))
            conn.execute("UPDATE events SET hash = ? WHERE version = ?", (prev, v))
        conn.execute("UPDATE heads SET hash = ?", (prev,))
        conn.execute("DELETE FROM snapshots")
    assert fight.ok("verify").stdout.endswith("OK: the log is intact.\n")
    result = fight("verify", "--dice")
    assert result.exit_code != 0
    assert f"version {version}" in result.stderr and "does not re-derive" in result.stderr


# --------------------------------------------------------------------------- #
# export
# --------------------------------------------------------------------------- #


@pytest.fixture
def two_rounds(fight):
    """Round 1: Vasana hits Broo 1 in the chest; round 2: Vasana attacks again."""
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    fight.ok("react", "broo1", "parry", "--dice", "71,34")
    fight.ok("roll", "--dice", "6,3,11")
    pass_all_actions(fight)
    fight.ok("end-round", "--dice", "7,3")
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    fight.ok("react", "broo1", "none")
    fight.ok("roll", "--dice", "1,1,1")  # 1D8=1 + 1D4=1 to the right leg (d20=1)
    return fight


def test_export_markdown(two_rounds):
    text = two_rounds.ok("export", "--format", "markdown").stdout
    assert text.startswith("# Ford\n")
    for heading in ("## Setup", "## Round 1", "## Round 2"):
        assert heading in text
    assert "Vasana attacks Broo 1 with Broadsword" in text


def test_export_to_a_file(two_rounds, tmp_path):
    out = tmp_path / "fight.md"
    result = two_rounds.ok("export", "--out", out)
    assert f"Wrote {out}" in result.stdout
    assert out.read_text(encoding="utf-8") == two_rounds.ok("export").stdout


def test_export_round_range(two_rounds):
    only_two = two_rounds.ok("export", "--round", "2").stdout
    assert "## Round 2" in only_two and "## Round 1" not in only_two and "## Setup" not in only_two
    one_to_two = two_rounds.ok("export", "--round", "1-2").stdout
    assert "## Round 1" in one_to_two and "## Round 2" in one_to_two and "## Setup" not in one_to_two


def test_export_jsonl_is_the_whole_envelope(two_rounds):
    lines = two_rounds.ok("export", "--format", "jsonl").stdout.splitlines()
    assert len(lines) == two_rounds.events()
    items = [json.loads(line) for line in lines]
    assert [i["version"] for i in items] == list(range(1, len(items) + 1))
    for item in items:
        assert {"encounter_id", "version", "command_id", "type", "actor", "hash", "data"} <= item.keys()
        assert item["data"]["type"] == item["type"]


def test_export_jsonl_hides_secret_notes(fight):
    fight.ok("note", "ambush at dawn", "--secret")
    assert "ambush at dawn" not in fight.ok("export", "--format", "jsonl").stdout
    assert "ambush at dawn" in fight.ok("export", "--format", "jsonl", "--secret").stdout


def test_export_jsonl_honours_round(two_rounds):
    result = two_rounds("export", "--format", "jsonl", "--round", "2")
    if result.exit_code == 2:  # refusing the option would be fine too
        assert_user_error(result, "--round")
        return
    types = [json.loads(line)["type"] for line in result.stdout.splitlines()]
    assert "encounter-opened" not in types and "combatant-joined" not in types


# --------------------------------------------------------------------------- #
# state, pending, log, list, rulings
# --------------------------------------------------------------------------- #


def test_state_json_has_the_documented_fields(fight):
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    s = fight.state()
    assert {"encounter", "name", "system", "version", "round", "step", "phase", "turn", "winner", "order", "combatants"} <= s.keys()
    assert (s["encounter"], s["name"], s["system"], s["round"]) == ("ford", "Ford", "mrq1", 1)
    assert s["version"] == fight.events()
    for c in s["combatants"]:
        assert isinstance(c["name"], str) and isinstance(c["side"], str) and isinstance(c["handle"], str)
        assert set(c["combat_actions"]) == {"left", "max"} and set(c["reactions"]) == {"left", "max"}
        assert isinstance(c["conditions"], list)
        assert len(c["locations"]) == 7
        for loc in c["locations"]:
            assert {"name", "hp", "max_hp", "ap", "wound"} <= loc.keys()
            assert isinstance(loc["hp"], int) and isinstance(loc["max_hp"], int)
    assert fight.combatant("vasana")["combat_actions"] == {"left": 2, "max": 3}


def test_state_json_condition_fields(fight):
    fight.ok("act", "vasana", "defend")
    [cond] = fight.combatant("vasana")["conditions"]
    assert cond["name"] == "defending"
    assert re.fullmatch(r"\d+\.\d+", cond["since"])
    assert 1 <= cond["cause_version"] <= fight.events()
    assert {"kind", "count"} == set(cond["ends"])
    assert cond["effects"] == {"reaction-bonus": 20}


def test_state_human_view(fight):
    text = fight.ok("state").stdout
    assert "Ford" in text and "round 1" in text
    assert "Vasana" in text and "Broo 1" in text and "heroes" in text
    assert "Acting now: Vasana" in text


def test_state_at_the_end_of_an_earlier_round(two_rounds):
    now = two_rounds.combatant("broo1")
    assert hp(now, "right leg") == (4, 5)  # 2 damage, 1 AP
    end_of_one = two_rounds.state("--at", "1")
    assert end_of_one["round"] == 1 and end_of_one["phase"] == "between"
    assert end_of_one["version"] < two_rounds.events()
    broo = next(c for c in end_of_one["combatants"] if c["handle"] == "broo1")
    assert hp(broo, "chest") == (1, 7)
    assert hp(broo, "right leg") == (5, 5)  # the round-2 hit has not happened yet


def test_state_at_round_and_step(two_rounds):
    first = two_rounds.state("--at", "1.1")
    second = two_rounds.state("--at", "1.2")
    assert (first["round"], first["step"]) == (1, 1)
    assert (second["round"], second["step"]) == (1, 2)
    assert first["version"] < second["version"] < two_rounds.state("--at", "1")["version"]
    broo = next(c for c in first["combatants"] if c["handle"] == "broo1")
    assert hp(broo, "chest") == (7, 7)


def test_state_at_version(two_rounds):
    # v1 opened; each join is command-issued + combatant-joined + steps-awaited
    s = two_rounds.state("--version", "7")
    assert s["version"] == 7
    assert s["phase"] == "setup"
    assert [c["handle"] for c in s["combatants"]] == ["vasana", "broo1"]


def test_pending_json_lists_who_verb_options_and_dice_in_order(duel):
    [step] = duel.pending()
    assert {"who", "name", "verb", "kind", "prompt", "options", "dice", "exchange"} <= step.keys()
    assert (step["who"], step["verb"]) == ("GM", "start")
    assert [(d["expr"], d["purpose"], d["by"]) for d in step["dice"]] == [
        ("1D10", "strike rank: Vasana", "vasana"),
        ("1D10", "strike rank: Broo 1", "broo1"),
    ]
    # the order is the order --dice takes them
    duel.ok("start", "--dice", "2,9")
    assert [o["handle"] for o in duel.state()["order"]] == ["broo1", "vasana"]


def test_pending_human_view(fight):
    text = fight.ok("pending").stdout
    assert "1. Vasana (1st combat action)" in text
    assert "verb: affray attack" in text
    assert "die 1: 1D100" in text


def test_log_json_fields_and_dice(fight):
    fight.ok("attack", "vasana", "broo1")  # engine
    log = fight.json("log")
    assert log, "empty log"
    for entry in log:
        assert {"version", "round", "command_id", "actor", "status", "type", "text"} <= entry.keys()
    assert [e["version"] for e in log] == sorted(e["version"] for e in log)
    assert not any(e["type"] == "dice-rolled" for e in log)
    with_dice = fight.json("log", "--dice")
    rolls = [e["text"] for e in with_dice if e["type"] == "dice-rolled"]
    assert any("table dice typed by" in t for t in rolls)  # the strike ranks
    assert any("engine roll #0" in t for t in rolls)  # the attack
    assert "engine roll #0" in fight.ok("log", "--dice").stdout


def test_list(cli):
    cli.ok("new", "Ford")
    cli.ok("new", "Bridge")
    cli.ok("--encounter", "ford", "close")
    assert cli.json("list") == [
        {"id": "ford", "name": "Ford", "system": "mrq1", "version": 2, "closed": True},
        {"id": "bridge", "name": "Bridge", "system": "mrq1", "version": 1, "closed": False},
    ]
    text = cli.ok("list").stdout
    assert "ford" in text and "closed" in text and "bridge" in text


def test_rulings_lists_names_defaults_and_sources(cli):
    text = cli.ok("rulings", "--system", "mrq1").stdout
    assert "critical_on = modified" in text
    assert "fumble_on_99 = true" in text
    assert "rules-reference.md" in text


# --------------------------------------------------------------------------- #
# demo
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("table_dice", [False, True], ids=["engine-dice", "table-dice"])
def test_demo_runs_to_the_end(cli, tmp_path, table_dice):
    db = tmp_path / "demo.db"
    args = ["--as", "sam", "--db", db, "demo", "--seed", "0a0b" * 8] + (["--table-dice"] if table_dice else [])
    result = cli.ok(*args, db=None)
    assert "winner:" in result.stdout
    assert ("table dice (typed)" if table_dice else "engine dice") in result.stdout
    s = cli.json("state", db=db)
    assert s["phase"] == "over" and s["winner"]
    assert f"winner: {s['winner']}" in result.stdout
    rolled = dice_events(db)
    assert rolled
    if table_dice:
        assert {(d["source"], d["typed_by"]) for d in rolled} == {("table", "sam")}
    else:
        assert {d["source"] for d in rolled} == {"engine"}
    assert "OK: the log is intact." in cli.ok("verify", "--dice", db=db).stdout


# --------------------------------------------------------------------------- #
# help, environment, actor
# --------------------------------------------------------------------------- #


def test_every_promised_verb_exists():
    assert set(VERBS) <= set(typer.main.get_command(app).commands)


@pytest.mark.parametrize("verb", VERBS)
def test_help_shows_an_example(cli, verb):
    result = cli(verb, "--help", db=None)
    assert result.exit_code == 0
    assert "Example:" in result.stdout
    assert f"affray {verb}" in result.stdout


def test_affray_db_environment_variable(cli, tmp_path):
    target = tmp_path / "from-env.db"
    cli.ok("new", "Ford", db=None, env={"AFFRAY_DB": str(target)})
    assert target.exists() and not cli.db.exists()
    assert event_count(target) == 1
    assert cli.json("state", db=None, env={"AFFRAY_DB": str(target)})["encounter"] == "ford"


def test_affray_encounter_environment_variable(cli):
    cli.ok("new", "Ford")
    cli.ok("new", "Bridge")
    assert cli.json("state", env={"AFFRAY_ENCOUNTER": "ford"})["encounter"] == "ford"
    assert cli.state()["encounter"] == "bridge"


def test_actor_from_environment_and_as(manual_duel):
    manual_duel.ok("note", "from the env", env={"AFFRAY_ACTOR": "alice"})
    manual_duel.ok("--as", "bob", "note", "from the flag", env={"AFFRAY_ACTOR": "alice"})
    manual_duel.ok("--as", "sam", "start", "--dice", "7,3")
    actors = {e["text"]: e["actor"] for e in manual_duel.json("log")}
    assert actors["GM note: from the env"] == "alice"
    assert actors["GM note: from the flag"] == "bob"
    started = [e for e in raw_events(manual_duel.db) if e["type"] == "dice-rolled"]
    assert {e["actor"] for e in started} == {"sam"}
    assert {e["data"]["typed_by"] for e in started} == {"sam"}
    assert {e["data"]["source"] for e in started} == {"table"}
    assert any("typed by sam" in e["text"] for e in manual_duel.json("log", "--dice"))


# --------------------------------------------------------------------------- #
# A whole manual-dice fight, every die typed in the order 'pending' lists it
# --------------------------------------------------------------------------- #


def _type_dice(step: dict, rng: random.Random) -> list[str]:
    """Values for every die of the step, as a table would type them
    (00 for 100 on a d100, 0 for 10 on a d10)."""
    values = []
    for need in step["dice"]:
        for sides in parse_expr(need["expr"]).dice:
            face = rng.randint(1, sides)
            if sides == 100 and face == 100:
                values.append("00")
            elif sides == 10 and face == 10:
                values.append("0")
            else:
                values.append(str(face))
    return values


def _command_for(cli: Cli, step: dict) -> tuple[list[str], bool]:
    """The command answering ``step`` and whether it takes the step's dice."""
    verb, who = step["verb"], step["who"]
    if verb in ("start", "end-round"):
        return [verb], True
    if verb == "attack":
        s = cli.state()
        me = next(c for c in s["combatants"] if c["handle"] == who)
        foes = [c["handle"] for c in s["combatants"] if c["side"] != me["side"] and c["status"] == "active"]
        return ["attack", who, foes[0]], True
    if verb == "react":
        option = next(o for o in ("parry", "dodge", "riposte", "none") if o in step["options"])
        return ["react", who, option], option != "none"
    if verb == "roll":
        return ["roll"] + ([] if who == "GM" else [who]), True
    if verb == "choose":
        return ["choose", who, step["options"][0]], False
    raise AssertionError(f"the driver does not know verb {verb!r}: {step}")


@pytest.mark.parametrize("rng_seed", [1, 5, 6])
def test_manual_dice_fight_typed_from_pending_runs_to_the_end(manual_duel, rng_seed):
    rng = random.Random(rng_seed)
    typed = 0
    for _ in range(400):
        pending = manual_duel.pending()
        if not pending:
            break
        step = pending[0]
        args, takes_dice = _command_for(manual_duel, step)
        values = _type_dice(step, rng) if takes_dice else []
        before = manual_duel.events()
        manual_duel.ok("--as", "sam", *args, *(["--dice", ",".join(values)] if values else []))
        assert manual_duel.events() > before
        typed += len(values)
    else:
        pytest.fail("the fight did not end within 400 commands")
    s = manual_duel.state()
    assert s["phase"] == "over" and s["winner"] in ("heroes", "broo")
    rolled = dice_events(manual_duel.db)
    assert len(rolled) == typed  # every typed die is on record, and only those
    assert {(d["source"], d["typed_by"]) for d in rolled} == {("table", "sam")}
    verified = manual_duel.ok("verify", "--dice")
    assert "0 engine rolls re-derived" in verified.stdout
