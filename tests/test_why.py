"""``affray why`` and ``affray replay`` (UX.md, "Asking the log questions").

The fight is the README's quickstart with one change (Vasana's second attack
carries ``-10:Broo stands in the river``), every die typed by ``sam``, so
the chains are fixed and compared line by line with what a GM would expect:

- Broo 1 is unconscious because his Resilience test (77 vs 45%) failed
  after a Serious Wound to the chest, dealt by 7+2 damage (d20 12: chest,
  armour 3: 6 HP lost, chest 1 -> -5), after his Dodge (55 vs 30%) failed
  against Vasana's fresh roll (61 vs 55%, the -10 applying): Dodge
  failure/failure, "Attack succeeds as normal"; her attack rolled 22 vs 55%.
- Only the reaction_attacker_roll ruling mattered to that chain (a fresh
  roll is what the Dodge table read; -5 is no Major Wound either way).
"""

from __future__ import annotations

import pytest

from affray.cli import travel as cli_travel
from affray.cli.app import app
from affray.events import commands as cmd
from affray.commands.handler import execute
from affray.commands.demo import autoplay, setup
from affray.events.core import Modifier
from affray.projections.snapshots import load_state
from affray.store import EventStore
from affray.views.round_replay import replay, replay_lines
from affray.views.why import why, why_lines

from conftest import assert_user_error
from test_golden import SCRIPT, open_duel

cli_travel.register(app)

A, R, ROLL = cmd.DeclareAttack, cmd.ChooseReaction, cmd.RollPending()
RIVER = (Modifier(-10, "Broo stands in the river"),)
QUICKSTART = [
    (cmd.StartRound(), "7,3"),
    (A(attacker="vasana", target="broo1"), "34"),
    (R(defender="broo1", reaction="parry"), "71,40"),
    (ROLL, "6,3,11"),
    (A(attacker="broo1", target="vasana"), "82"),
    (A(attacker="vasana", target="broo1", modifiers=RIVER), "22"),
    (R(defender="broo1", reaction="dodge"), "55,61"),
    (ROLL, "7,2,12"),
    (ROLL, "3,77"),
]

T = "table dice typed by sam"
FRESH = "reaction_attacker_roll=fresh (which attack roll the reaction table reads; fresh = a new d100 after the reaction)"
EXCHANGE_2 = [
    f"  ← Broo 1: Serious Wound to the chest  (round 1, step 7, c66 by sam)",
    f"  ← 9 damage to Broo 1's chest (armour −3) → 6 HP lost [7 +2; d20=12]  [d8=7, {T}; d4=2, {T}; d20=12, {T}]  (round 1, step 7, c66 by sam)",
    "  ← Dodge table, failure/failure: Attack succeeds as normal  (round 1, step 6, c57 by sam)",
    f"  ← Vasana: Broadsword 61 vs 55% — failure (Broadsword: fresh roll against the dodge)  [d100=61, {T}]  (round 1, step 6, c57 by sam)",
    f"  ← Broo 1: Dodge 55 vs 30% — failure (dodge against Vasana)  [d100=55, {T}]  (round 1, step 6, c57 by sam)",
    "  ← Broo 1 dodges  (round 1, step 6, c57 by sam)",
    f"  ← Vasana: Broadsword 22 vs 55% (-10 Broo stands in the river) — success (close attack on Broo 1)  [d100=22, {T}]  (round 1, step 5, c50 by sam)",
    "  ← Vasana attacks Broo 1 with Broadsword  (round 1, step 5, c50 by sam)",
    f"  rulings: {FRESH}",
]
GOLDEN_WHY = [
    "Broo 1 is UNCONSCIOUS since round 1, step 8 (helpless; Serious Wound to the chest)",
    f"  ← Broo 1: Resilience 77 vs 45% — failure (Resilience (consciousness): Serious Wound to the chest)  [d100=77, {T}]  (round 1, step 8, c73 by sam)",
    *EXCHANGE_2,
    "Broo 1: lost-actions since round 1, step 8 (lost-actions 3; Serious Wound to the chest)",
    f"  ← Broo 1: lost-actions ×3 — Serious Wound to the chest  [d4=3, {T}]  (round 1, step 8, c73 by sam)",
    *EXCHANGE_2,
]
GOLDEN_CHEST = [
    "Broo 1's chest: -5/7 HP, serious wound, hit 2 times",
    "6 HP lost to the chest in round 1, step 7",
    *EXCHANGE_2,
    "6 HP lost to the chest in round 1, step 3",
    f"  ← 9 damage to Broo 1's chest (armour −3) → 6 HP lost [6 +3; d20=11]  [d8=6, {T}; d4=3, {T}; d20=11, {T}]  (round 1, step 3, c31 by sam)",
    "  ← Parry table, success/failure: Attack succeeds as normal  (round 1, step 2, c22 by sam)",
    f"  ← Vasana: Broadsword 40 vs 65% — success (Broadsword: fresh roll against the parry)  [d100=40, {T}]  (round 1, step 2, c22 by sam)",
    f"  ← Broo 1: Target Shield (parry) 71 vs 45% — failure (parry against Vasana)  [d100=71, {T}]  (round 1, step 2, c22 by sam)",
    "  ← Broo 1 parries with Target Shield  (round 1, step 2, c22 by sam)",
    f"  ← Vasana: Broadsword 34 vs 65% — success (close attack on Broo 1)  [d100=34, {T}]  (round 1, step 1, c14 by sam)",
    "  ← Vasana attacks Broo 1 with Broadsword  (round 1, step 1, c14 by sam)",
    f"  rulings: {FRESH}",
]


@pytest.fixture(scope="module")
def quickstart():
    store = EventStore(":memory:")
    eid = open_duel(store, manual=True)
    for command, dice in QUICKSTART:
        execute(store, command, encounter_id=eid, dice=dice, actor="sam")
    return list(store.read(eid)), load_state(store, eid)


def test_why_unconscious_matches_the_golden_chain(quickstart):
    records, state = quickstart
    assert why_lines(why(records, state, "broo1"), state) == GOLDEN_WHY


def test_why_a_condition_by_name(quickstart):
    records, state = quickstart
    data = why(records, state, "broo1", "unconscious")
    assert why_lines(data, state) == GOLDEN_WHY[: 2 + len(EXCHANGE_2)]
    chain = data["chains"][0]
    assert chain["kind"] == "condition" and chain["since"] == "1.8"
    cause = next(r for r in records if r.version == chain["cause_version"])
    assert cause.type == "skill-tested" and chain["links"][0]["version"] == cause.version


def test_why_a_location_lists_every_hit_with_its_exchange(quickstart):
    records, state = quickstart
    data = why(records, state, "broo1", "chest")
    assert why_lines(data, state) == GOLDEN_CHEST
    assert [c["kind"] for c in data["chains"]] == ["location", "location"]
    assert why(records, state, "broo1", "Right-Leg")["headline"] == "Broo 1's right leg: 5/5 HP, never hit"


def test_why_json_names_every_roll_source_and_modifier(quickstart):
    records, state = quickstart
    data = why(records, state, "broo1", "unconscious")
    assert set(data) == {"combatant", "name", "status", "subject", "headline", "chains"}
    links = data["chains"][0]["links"]
    assert [l["type"] for l in links] == [
        "skill-tested", "wound-inflicted", "damage-dealt", "reaction-resolved", "skill-tested",
        "skill-tested", "reaction-chosen", "skill-tested", "attack-declared",
    ]
    assert {frozenset(l) for l in links} == {
        frozenset({"version", "command_id", "actor", "round", "step", "type", "text", "exchange", "rolls", "modifiers"})
    }
    rolls = [r for l in links for r in l["rolls"]]
    assert [r["faces"] for r in rolls] == [[77], [7], [2], [12], [61], [55], [22]]
    assert all(r["source"] == "table" and r["typed_by"] == "sam" and r["index"] == -1 for r in rolls)
    attack = links[-1]
    assert attack["modifiers"] == [{"value": -10, "reason": "Broo stands in the river"}]
    assert attack["exchange"] == 3 and links[0]["exchange"] == 3  # Broo's miss was the 2nd
    assert data["chains"][0]["rulings"] == [
        {"name": "reaction_attacker_roll", "value": "fresh",
         "why": "which attack roll the reaction table reads; fresh = a new d100 after the reaction"}
    ]


def test_why_follows_an_end_of_round_retest_back_to_the_wound():
    """Golden duel to its end-of-round re-test, failed this time (90): the
    cause lies outside any exchange, so the chain goes on to the Serious
    Wound to the abdomen, the riposte that dealt it and the critical parry
    that granted the riposte."""
    store = EventStore(":memory:")
    eid = open_duel(store, manual=True)
    for command, dice in SCRIPT[:15]:
        execute(store, command, encounter_id=eid, dice=dice, actor="sam")
    execute(store, ROLL, encounter_id=eid, dice="90", actor="sam")
    records, state = list(store.read(eid)), load_state(store, eid)
    data = why(records, state, "broo1", "unconscious")
    texts = [l["text"] for l in data["chains"][0]["links"]]
    assert texts[0].startswith("Broo 1: Resilience 90 vs 45% — failure")
    assert data["chains"][0]["links"][0]["exchange"] == 0
    assert texts[1] == "Broo 1: Serious Wound to the abdomen"
    assert "Vasana ripostes against Broo 1 with Broadsword" in texts
    assert "Parry table, failure/critical: Attack fails; defender may Riposte" in texts
    assert texts[-1] == "Broo 1 attacks Vasana with Shortspear"
    names = [r["name"] for r in data["chains"][0]["rulings"]]
    assert names == ["reaction_attacker_roll", "critical_on", "automatic_results"]
    vasana = why(records, state, "vasana", "defending")
    assert vasana["chains"][0]["links"][0]["text"] == "Vasana: defending"


def test_why_shows_engine_roll_numbers():
    store = EventStore(":memory:")
    eid = setup(store, "duel", seed=b"why engine", allow_short_seed=True, actor="gm")
    state = autoplay(store, eid)
    records = list(store.read(eid))
    loser = next(c for c in state.combatants.values() if c.status != "active")
    data = why(records, state, loser.handle)
    rolls = [r for ch in data["chains"] for l in ch["links"] for r in l["rolls"]]
    assert rolls and all(r["source"] == "engine" and r["text"].endswith(f"engine roll #{r['index']}") for r in rolls)
    assert data["chains"][0]["title"].startswith(f"{loser.name} is {loser.status.upper()}")


def test_why_errors(quickstart):
    records, state = quickstart
    with pytest.raises(ValueError, match="no location or condition called 'tail'"):
        why(records, state, "broo1", "tail")
    with pytest.raises(ValueError, match="no combatant"):
        why(records, state, "nobody")
    assert why_lines(why(records, state, "vasana"), state) == ["Vasana is active, with no conditions."]


# --------------------------------------------------------------------------- #
# replay
# --------------------------------------------------------------------------- #


def test_replay_a_round_step_by_step(quickstart):
    records, _ = quickstart
    data = replay(records, 1)
    assert [s["step"] for s in data["steps"]] == list(range(9))
    assert [s["command"] for s in data["steps"][:3]] == [
        "start --dice 7,3", "attack vasana broo1 --dice 34", "react broo1 parry --dice 71,40",
    ]
    assert data["steps"][5]["command"] == 'attack vasana broo1 --mod "-10:Broo stands in the river" --dice 22'
    parry = data["steps"][2]
    assert parry["lines"] == [
        "Broo 1 parries with Target Shield",
        "Broo 1: Target Shield (parry) 71 vs 45% — failure (parry against Vasana)",
        "Vasana: Broadsword 40 vs 65% — success (Broadsword: fresh roll against the parry)",
        "Parry table, success/failure: Attack succeeds as normal",
    ]
    assert [(r["faces"], r["text"]) for r in parry["rolls"]] == [([71], f"d100=71, {T}"), ([40], f"d100=40, {T}")]
    assert all(s["actor"] == "sam" for s in data["steps"])
    lines = replay_lines(data)
    assert lines[0] == "Round 1" and lines[1] == "1.0  c8  sam: start --dice 7,3"
    assert f"    roll: d100=71, {T} for parry against Vasana" in lines
    with pytest.raises(ValueError, match="no round 4"):
        replay(records, 4)


def test_replay_skips_undone_commands_and_shows_the_round_start():
    store = EventStore(":memory:")
    eid = open_duel(store, manual=True)
    for command, dice in SCRIPT[:18]:  # into round 2
        execute(store, command, encounter_id=eid, dice=dice, actor="gm")
    execute(store, cmd.Undo(), encounter_id=eid)
    execute(store, SCRIPT[17][0], encounter_id=eid, dice=SCRIPT[17][1], actor="gm")
    data = replay(list(store.read(eid)), 2)
    assert data["steps"][0]["step"] == 0 and data["steps"][0]["command"] == "start --dice 2,9"
    assert [s["step"] for s in data["steps"]] == [0, 1]
    one = replay(list(store.read(eid)), 1)
    # the re-test is round 1's; the next strike ranks close it and open round 2
    assert [s["command"] for s in one["steps"][-2:]] == ["roll --dice 20", "start --dice 2,9"]


# --------------------------------------------------------------------------- #
# CLI
# --------------------------------------------------------------------------- #


def _quickstart(cli):
    cli.ok("--as", "sam", "start", "--dice", "7,3")
    cli.ok("--as", "sam", "attack", "vasana", "broo1", "--dice", "34")
    cli.ok("--as", "sam", "react", "broo1", "parry", "--dice", "71,40")
    cli.ok("--as", "sam", "roll", "--dice", "6,3,11")


def test_cli_why_and_replay(manual_duel):
    cli = manual_duel
    _quickstart(cli)
    out = cli.ok("why", "broo", "chest").stdout.splitlines()
    assert out[0] == "Broo 1's chest: 1/7 HP, hit 1 time"
    assert out[2].startswith("  ← 9 damage to Broo 1's chest")
    data = cli.json("why", "broo1", "chest")
    assert data["chains"][0]["links"][0]["rolls"][0]["typed_by"] == "sam"
    rep = cli.json("replay", "--round", "1")
    assert [s["step"] for s in rep["steps"]] == [0, 1, 2, 3]
    assert cli.ok("replay", "--round", "1").stdout.startswith("Round 1\n1.0  ")
    n = cli.events()
    assert_user_error(cli("why", "broo1", "tail"), "no location or condition")
    assert_user_error(cli("why", "zz"), "no combatant")
    assert_user_error(cli("replay", "--round", "5"), "no round 5")
    assert cli.events() == n
