"""The second sample fight, ``affray demo --scenario skirmish``: Yara the
archer against Ghorak, a raider who charges. Played by the demo's autopilot
with table dice typed from a fixed random sequence, so every die is fixed;
the final state, the milestones and the markdown export
(``tests/golden/skirmish.md``, rewrite with ``AFFRAY_UPDATE_GOLDEN=1`` and
review the diff) are checked.

Sources: seed 004_71637fb3cfde52c9.txt "Ranged Attack", "Charge", "Ready
Weapon", "Free Attacks", "Change Stance", "Knockback", "Hit Locations",
"Impaling Close Combat Attacks".
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from affray.demo import SCENARIOS, TACTICAL, autoplay, setup
from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.projections.timeline import project
from affray.store import EventStore
from affray.views.export import markdown

GOLDEN = Path(__file__).resolve().parent / "golden" / "skirmish.md"


@pytest.fixture(scope="module")
def skirmish():
    store = EventStore(":memory:")
    eid = setup(store, "skirmish", manual=True, seed=b"skirmish", actor="gm")
    state = autoplay(store, eid, actor="gm", table_rng=random.Random(20), tactics=True)
    return store, eid, state


def test_scenario_is_registered():
    assert [s for s, _, _ in SCENARIOS["skirmish"]] == ["mrq1/yara.toml", "mrq1/ghorak.toml"]
    assert "skirmish" in TACTICAL


def test_skirmish_final_state(skirmish):
    store, eid, state = skirmish
    assert state.phase == "over" and state.winner == "raiders" and state.round == 6
    yara, ghorak = state.combatant("yara"), state.combatant("ghorak")
    assert yara.status == "unconscious" and yara.stance == "prone"
    assert {loc.name: loc.hp for loc in yara.locations if loc.hp != loc.max_hp} == {
        "right leg": 2, "left leg": -2, "chest": 5, "right arm": -13, "left arm": -8, "head": 2,
    }
    assert yara.ready == ()  # the bow dropped for the dagger, the dagger dropped under the free attack
    assert {c.id for c in yara.conditions} >= {
        "unloaded:Short Bow", "useless-limb:left leg", "severed-limb:right arm", "severed-limb:left arm", "unconscious",
    }
    # the charge (12 m), then two follow-ups as Yara gives ground (8 m each)
    assert ghorak.status == "active" and ghorak.moved == 28.0
    assert all(loc.hp == loc.max_hp for loc in ghorak.locations)
    assert ghorak.ready == ("Boar Spear",)


def test_skirmish_milestones(skirmish):
    store, eid, state = skirmish
    events = [r.event for r in store.read(eid)]
    kinds = [e.kind for e in events if isinstance(e, ev.AttackDeclared)]
    assert kinds[:3] == ["ranged", "charge", "free"]  # shot, charge, free attack on readying
    assert kinds.count("free") == 2  # readying a weapon, then standing up
    moved = [(e.handle, e.distance, e.reason) for e in events if isinstance(e, ev.CombatantMoved)]
    assert moved[0] == ("ghorak", 12.0, "charge")
    actions = [e.text for e in events if isinstance(e, ev_mrq1.ActionTaken)]
    assert "Ghorak may make a free attack on Yara (readying a weapon)" in actions
    assert "Ghorak may make a free attack on Yara (changing stance)" in actions
    dodge = [e for e in events if isinstance(e, ev.SkillTested) and e.purpose == "Dodge after a free attack's damage"]
    assert [(d.roll, d.result) for d in dodge] == [(53, "failure")]
    assert all(e.source == "table" for e in events if isinstance(e, ev.DiceRolled))
    # disarmed, Yara fights with her fists: a parried unarmed attack hurts the
    # attacker with the parrying weapon's damage (seed 004 "Unarmed Combat")
    hurt = [(e.target, e.location, e.final) for e in events if isinstance(e, ev.DamageDealt) and e.note.startswith("parried by")]
    assert hurt == [("yara", "right arm", 5), ("yara", "right arm", 9)]


def test_skirmish_replays_to_the_same_state(skirmish):
    store, eid, state = skirmish
    assert project(store.read(eid)) == state


def test_skirmish_markdown_export(skirmish):
    store, eid, state = skirmish
    text = markdown(list(store.read(eid)))
    if os.environ.get("AFFRAY_UPDATE_GOLDEN"):
        GOLDEN.write_text(text, encoding="utf-8")
    assert GOLDEN.exists(), "no golden file skirmish.md yet: run once with AFFRAY_UPDATE_GOLDEN=1 and review it"
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_demo_cli_plays_the_skirmish_to_the_end(cli):
    out = cli.ok("demo", "--scenario", "skirmish", "--table-dice", "--seed", "01")
    assert "shoots at Ghorak" in out.stdout or "charges Yara" in out.stdout
    assert "Demo over" in out.stdout
