"""A golden rolemaster fight with fixed table dice (DESIGN.md invariant 8):
Kestrel against Gruk (the sample sheets), every die typed. It shows an
open-ended roll that chains, a parry allocation, a critical that stuns,
the stun wearing off, a fumble, and dodges. The expected figures are worked
out by hand in the comments from seed 000, rules-reference.md A and the
INVENTED sample tables; the markdown export is compared byte for byte with
``tests/golden/rolemaster.md`` (``AFFRAY_UPDATE_GOLDEN=1`` rewrites it).

Kestrel: Broadsword OB 70, DB 0 + Qu 30 + shield 20 = 50, SD +5, soft.
Gruk: Club OB 60 (fumble 1-4), DB 5 + Qu 15 = 20, SD -5, Ag/Qu 5, rigid, 55 hits.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from affray.commands.demo import examples_dir
from affray.commands.handler import execute
from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import rolemaster as rev
from affray.projections.timeline import project
from affray.rules import base
from affray.store import EventStore
from affray.views.export import markdown

#: The golden fights were scripted one exchange after another: they open with
#: ruling resolution=when-declared (each action resolves as it is declared).
#: The default, when-spent (RMH: an action resolves when its AP are spent),
#: has its own fight with fixed dice in test_rolemaster_countdown.py.
WHEN_DECLARED = {"resolution": "when-declared"}
GOLDEN = Path(__file__).resolve().parent / "golden" / "rolemaster.md"
A, R, ROLL = cmd.DeclareAttack, cmd.ChooseReaction, cmd.RollPending()


def act(who, action):
    return cmd.TakeAction(who=who, action=action)


SCRIPT = [
    # Round 1: Initiative Kestrel 15 + 10 = 25, Gruk 7 + 5 = 12.
    (cmd.StartRound(), "10,5,3,4"),
    # Kestrel moves 20 of OB to parry for the round (OB 70 -> 50).
    (A(attacker="kestrel", target="gruk", situations=("parry=20",)), ""),
    # Gruk parries with 30 of his OB. The roll chains: 97 + 40 = 137;
    # 137 + 50 - (5 + 15 + 30) = 137: rigid 126..140, 11B.
    (R(defender="gruk", reaction="parry:30"), "97,40"),
    # B slash critical, closed 85: row 81-99, +5 hits, stunned 1 round.
    (ROLL, "85"),
    # Gruk, stunned, cannot attack: he passes.
    (act("gruk", "pass"), ""),
    # End of round 1: the stun wears off (taken before Gruk spent any AP).
    # Initiative: Kestrel 14 + 10 = 24, Gruk 18 + 5 = 23.
    (cmd.EndRound(), "8,6,9,9"),
    # 30 + 70 - 20 = 80: rigid 61..80, 3 hits.
    (A(attacker="kestrel", target="gruk"), ""),
    (R(defender="gruk", reaction="none"), "30"),
    # Gruk's first die 02 is inside the Club's fumble range 1-4.
    (A(attacker="gruk", target="kestrel"), ""),
    (R(defender="kestrel", reaction="none"), "02"),
    # Fumble table 80 (71-90): he drops the Club.
    (ROLL, "80"),
    # Round 3: Kestrel 18 + 10 = 28, Gruk 14 + 5 = 19.
    (cmd.EndRound(), "9,9,8,6"),
    # Unarmed, Gruk dodges (all 4 AP): 75 + 5 = 80, Extremely Hard 61..100:
    # +20 DB. 60 + 70 - 40 = 90: rigid 81..95, 5 hits.
    (A(attacker="kestrel", target="gruk"), ""),
    (R(defender="gruk", reaction="dodge"), "75,60"),
    # Round 4: Kestrel 10 + 10 = 20, Gruk 10 + 5 = 15.
    (cmd.EndRound(), "5,5,5,5"),
    # Dodge 10 + 5 = 15: -50..20, +0 and staggered. The attack chains:
    # 99 + 98 + 40 = 237 + 70 - 20 = 287, read as 150: 13C.
    (A(attacker="kestrel", target="gruk"), ""),
    (R(defender="gruk", reaction="dodge"), "10,99,98,40"),
    # C critical 95: stunned and unable to parry 1 round, +6 hits. Gruk had
    # spent 4 AP before it, so it does not wear off at the end of round 4.
    (ROLL, "95"),
    # Round 5: Kestrel 20; Gruk 10 + 5 - 6 (the -65 penalty) = 9.
    (cmd.EndRound(), "5,5,5,5"),
    # Dodge 30 + 5 - 65 (stunned and unable to parry, -50 - 3 x 5) = -30:
    # +0, staggered again. 85 + 70 - 20 = 135: 11B.
    (A(attacker="kestrel", target="gruk"), ""),
    (R(defender="gruk", reaction="dodge"), "30,85"),
    # B critical 20: +2 hits. Gruk: 55 - 16 - 3 - 5 - 19 - 13 = -1: out.
    (ROLL, "20"),
]


def _play(name: str, seed: bytes, script, rulings=None, surprised=()):
    """Open an encounter with manual dice, join Kestrel and Gruk (the
    sample sheets), and run ``script``: ``(store, eid, outcomes)``."""
    store = EventStore(":memory:")
    out = execute(store, cmd.OpenEncounter(name=name, system="rolemaster", manual_dice=True, rulings=rulings or {}),
                  seed=seed, allow_short_seed=True, actor="gm")
    eid = out.encounter_id
    rm = base.get("rolemaster")
    for file, side in (("kestrel.toml", "heroes"), ("gruk.toml", "orcs")):
        data = rm.load_sheet(str(examples_dir() / "rolemaster" / file))
        execute(store, cmd.JoinCombatant(sheet=data, side=side, surprised=data["name"].lower() in surprised),
                encounter_id=eid, actor="gm")
    return store, eid, [execute(store, c, encounter_id=eid, dice=d, actor="gm") for c, d in script]


@pytest.fixture(scope="module")
def golden():
    return _play("Golden rolemaster duel", b"golden-rm", SCRIPT, WHEN_DECLARED)


def test_golden_final_state(golden):
    store, eid, outcomes = golden
    state = outcomes[-1].state
    assert state.phase == "over" and state.winner == "heroes" and state.round == 5
    k, g = state.combatant("kestrel"), state.combatant("gruk")
    assert k.location("body").hp == 62 and k.status == "active"
    assert g.location("body").hp == -1 and g.status == "unconscious"
    assert g.ready == ()  # the Club was dropped in the fumble
    assert {c.name for c in g.conditions} == {"stunned-no-parry", "staggered"}


def test_golden_milestones(golden):
    store, eid, outcomes = golden
    events = [r.event for r in store.read(eid)]
    looks = [(e.dice, e.ob, e.db, e.total, e.cell, e.fumble) for e in events if isinstance(e, rev.AttackLookedUp)]
    assert looks == [
        ((97, 40), 50, 50, 137, "11B", False),
        ((30,), 70, 20, 80, "3", False),
        ((2,), 0, 0, 0, "", True),
        ((60,), 70, 40, 90, "5", False),
        ((99, 98, 40), 70, 20, 287, "13C", False),
        ((85,), 70, 20, 135, "11B", False),
    ]
    crits = [(e.severity, e.roll, e.effects) for e in events if isinstance(e, rev.CriticalLookedUp)]
    assert crits == [("B", 85, {"hits": 5, "stunned": 1}), ("C", 95, {"hits": 6, "stunned_no_parry": 1}),
                     ("B", 20, {"hits": 2})]
    dodges = [(e.total, e.value) for e in events if isinstance(e, rev.ManeuverResolved)]
    assert dodges == [(80, 20), (15, 0), (-30, 0)]
    expired = [(e.condition_id, e.reason) for e in events if isinstance(e, ev.ConditionExpired) and "wore off" in e.reason]
    assert expired == [("stunned", "wore off (end of round 1)")]
    rounds = [[(o.handle, o.rank) for o in e.order] for e in events if isinstance(e, ev.RoundStarted)]
    assert rounds == [[("kestrel", 25), ("gruk", 12)], [("kestrel", 24), ("gruk", 23)], [("kestrel", 28), ("gruk", 19)],
                      [("kestrel", 20), ("gruk", 15)], [("kestrel", 20), ("gruk", 9)]]
    assert all(e.source == "table" for e in events if isinstance(e, ev.DiceRolled))


def test_golden_replays_to_the_same_state(golden):
    store, eid, outcomes = golden
    assert project(store.read(eid)) == outcomes[-1].state


def test_golden_markdown_export(golden):
    store, eid, outcomes = golden
    text = markdown(list(store.read(eid)))
    if os.environ.get("AFFRAY_UPDATE_GOLDEN"):
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_golden_audit_rederives_every_decision(golden):
    """DESIGN.md "Replay never rules": every recorded decision of the fight,
    decided again with today's rules and the same dice, is the same."""
    from affray.audit import audit_records

    store, eid, outcomes = golden
    report = audit_records(list(store.read(eid)), eid)
    assert report.checked == len(SCRIPT) + 2 and report.differences == []


# --------------------------------------------------------------------------- #
# A second golden fight: the ambush (Surprised, the stun stack wearing off
# worst first, "You have initiative", a knock-back out of melee)
# --------------------------------------------------------------------------- #

AMBUSH_GOLDEN = Path(__file__).resolve().parent / "golden" / "rolemaster-ambush.md"

AMBUSH = [
    # Gruk joined --surprised. Initiative: Kestrel 25, Gruk 12; first Gruk's
    # Perception: 70 + 15 = 85, Partial success: Stunned 1 round.
    (cmd.StartRound(), "10,5,3,4"),
    (ROLL, "70"),
    # Unaware, Gruk loses his Quickness DB: 65 + 70 - 5 = 130: 11B.
    (A(attacker="kestrel", target="gruk"), ""),
    (R(defender="gruk", reaction="none"), "65"),
    # B critical 30 (21-50): +3 hits, Dazed 1 round. The stack: stunned 1, dazed 1.
    (ROLL, "30"),
    (act("gruk", "pass"), ""),
    # End of round 1: the worst state wears off first: stunned goes, dazed
    # stays. Initiative: Kestrel 24; Gruk 18 + 5 - 4 (dazed -25 - 3 x 5 = -40).
    (cmd.EndRound(), "8,6,9,9"),
    # Dazed Gruk may still parry: 50 + 70 - (5 + 15 + 20) = 80: 3.
    (A(attacker="kestrel", target="gruk"), ""),
    (R(defender="gruk", reaction="parry:20"), "50"),
    (act("gruk", "pass"), ""),
    # End of round 2: dazed wears off.
    (cmd.EndRound(), "5,5,5,5"),
    # Kestrel keeps 20 back to parry: 90 + 50 - 20 = 120: 9A; critical A 60
    # (51-80): "You have initiative".
    (A(attacker="kestrel", target="gruk", situations=("parry=20",)), ""),
    (R(defender="gruk", reaction="none"), "90"),
    (ROLL, "60"),
    # Gruk strikes back into Kestrel's parry: 80 + 60 - (30 + 20 + 20) = 70: 4.
    (A(attacker="gruk", target="kestrel"), ""),
    (R(defender="kestrel", reaction="parry"), "80"),
    # Gruk's Initiative takes -1d10 = 7: 10 + 5 - 7 = 8.
    (cmd.EndRound(), "5,5,5,5,7"),
    # 96 + 50 = 146 + 70 - 20 = 196, read as 150: 13C; critical 00 (100):
    # knocked back 10 feet (3.05 m: out of melee), stunned 2 rounds.
    (A(attacker="kestrel", target="gruk"), ""),
    (R(defender="gruk", reaction="none"), "96,50"),
    (ROLL, "00"),
    (act("gruk", "pass"), ""),
    (cmd.EndRound(), "5,5,5,5"),
    # 70 + 70 - 20 = 120: 9A: Gruk 55 - 14 - 3 - 12 - 21 - 9 = -4, then +1.
    (A(attacker="kestrel", target="gruk"), ""),
    (R(defender="gruk", reaction="none"), "70"),
    (ROLL, "10"),
]


@pytest.fixture(scope="module")
def ambush():
    return _play("Golden rolemaster ambush", b"golden-rm-2", AMBUSH, WHEN_DECLARED, surprised=("gruk",))


def test_ambush_final_state_and_milestones(ambush):
    store, eid, outcomes = ambush
    state = outcomes[-1].state
    assert state.phase == "over" and state.winner == "heroes" and state.round == 5
    assert state.combatant("kestrel").location("body").hp == 58
    g = state.combatant("gruk")
    assert g.location("body").hp == -5 and g.status == "unconscious"
    events = [r.event for r in store.read(eid)]
    wore = [e.condition_id for e in events if isinstance(e, ev.ConditionExpired) and "wore off" in e.reason]
    assert wore == ["stunned", "dazed", "staggered"]  # worst first; then the knock-back's stagger
    m = next(e for e in events if isinstance(e, rev.ManeuverResolved))
    assert (m.maneuver, m.total, m.outcome) == ("perception", 85, "partial-success")
    first = next(e for e in events if isinstance(e, rev.AttackLookedUp))
    assert first.db == 5  # unaware: no Quickness DB
    orders = [[(o.handle, o.rank) for o in e.order] for e in events if isinstance(e, ev.RoundStarted)]
    assert orders[1] == [("kestrel", 24), ("gruk", 19)] and orders[3] == [("kestrel", 20), ("gruk", 8)]
    moved = [e for e in events if isinstance(e, ev.EngagementChanged)]
    assert [(e.engaged) for e in moved] == [True, False, True]  # engaged, knocked out of melee, re-engaged


def test_ambush_replays_audits_and_exports(ambush):
    from affray.audit import audit_records

    store, eid, outcomes = ambush
    records = list(store.read(eid))
    assert project(records) == outcomes[-1].state
    assert audit_records(records, eid).differences == []
    text = markdown(records)
    if os.environ.get("AFFRAY_UPDATE_GOLDEN"):
        AMBUSH_GOLDEN.write_text(text, encoding="utf-8")
    assert text == AMBUSH_GOLDEN.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- #
# The same duel under the default rulings: the RMH countdown with each
# action resolving when its Action Points are spent (ruling
# resolution=when-spent; RMH tactical-activity-tracking_.md "Resolution",
# "Conditional Actions", "Canceling action"; seed 000 "Parry action",
# "Effects from Criticals").
# --------------------------------------------------------------------------- #

COUNTDOWN_GOLDEN = Path(__file__).resolve().parent / "golden" / "rolemaster-countdown.md"

COUNTDOWN = [
    # Round 1: Kestrel 25 (count 45), Gruk 12 (count 32).
    (cmd.StartRound(), "10,5,3,4"),
    # Kestrel declares on 45 (4 AP: resolves on 25), 20 of OB to parry for its attack time.
    (A(attacker="kestrel", target="gruk", situations=("parry=20",)), ""),
    # Gruk declares on 32 (resolves on 12); the count reaches 25: Kestrel's attack.
    (A(attacker="gruk", target="kestrel"), ""),
    # 97 + 40 = 137 + 50 - (5 + 15 + 30) = 137: rigid 126..140, 11B.
    (R(defender="gruk", reaction="parry:30"), "97,40"),
    # B critical 85: +5 hits, stunned 1 round. On 12 Gruk cannot attack: his attack is lost.
    (ROLL, "85"),
    # Round 2: Kestrel 24 (44), Gruk 23 (43): both declare, then 24 and 23 resolve.
    (cmd.EndRound(), "8,6,9,9"),
    (A(attacker="kestrel", target="gruk"), ""),
    (A(attacker="gruk", target="kestrel"), ""),
    (R(defender="gruk", reaction="none"), "30"),        # 30 + 70 - 20 = 80: 3 hits
    (R(defender="kestrel", reaction="none"), "02"),     # 02: inside the Club's fumble range 1-4
    (ROLL, "80"),                                       # fumble 71-90: he drops the Club
    # Round 3: Kestrel 28 (48), Gruk 19 (39). Kestrel holds his attack until Gruk strikes.
    (cmd.EndRound(), "9,9,8,6"),
    (A(attacker="kestrel", target="gruk", situations=("hold=gruk strikes",)), ""),
    (act("gruk", "draw Club"), ""),                     # 1 AP: resolves on 34; Gruk declares again on 34
    (A(attacker="gruk", target="kestrel", situations=("ap=3",)), ""),  # resolves on 19
    # Kestrel's held attack is ready on 28; on 19 the countdown pauses and he triggers it.
    (act("kestrel", "trigger"), ""),
    (R(defender="gruk", reaction="none"), "60"),        # 60 + 70 - 20 = 110: 7 hits
    (R(defender="kestrel", reaction="none"), "75"),     # 75 + 60 - 25 (3 AP) - 50 = 60: soft 2 hits
    # Round 4: Kestrel 20 (40), Gruk 15 (35). Kestrel cancels on 35 (5 counts gone: 1 AP)
    # and, at 35 with the higher Qu bonus, declares a 3 AP attack resolving on 20.
    (cmd.EndRound(), "5,5,5,5"),
    (A(attacker="kestrel", target="gruk"), ""),
    (act("kestrel", "cancel"), ""),
    (A(attacker="kestrel", target="gruk", situations=("ap=3",)), ""),
    (A(attacker="gruk", target="kestrel"), ""),
    # 99 + 98 + 40 = 237 + 45 - 20 = 262, read as 150: 13C; C critical 95: stunned and
    # unable to parry 1 round, +6 hits; taken with Gruk's 4 AP unspent, it wears off this round.
    (R(defender="gruk", reaction="none"), "99,98,40"),
    (ROLL, "95"),
    # Round 5: 90 + 70 - 20 = 140: 11B. Gruk 55 - 16 - 3 - 7 - 19 - 11 = -1: unconscious.
    (cmd.EndRound(), "5,5,5,5"),
    (A(attacker="kestrel", target="gruk"), ""),
    (A(attacker="gruk", target="kestrel"), ""),
    (R(defender="gruk", reaction="none"), "90"),
    (ROLL, "20"),
]


@pytest.fixture(scope="module")
def countdown():
    return _play("Golden rolemaster countdown", b"golden-rm-3", COUNTDOWN)


def test_countdown_golden(countdown):
    from affray.audit import audit_records

    store, eid, outcomes = countdown
    state = outcomes[-1].state
    assert state.phase == "over" and state.winner == "heroes" and state.round == 5
    assert state.combatant("gruk").location("body").hp == -3 and state.combatant("kestrel").location("body").hp == 60
    events = [r.event for r in store.read(eid)]
    declared = [(e.handle, e.count, e.ap, e.resolves_at, e.hold) for e in events if isinstance(e, rev.ActionDeclared)]
    assert declared[:5] == [("kestrel", 45, 4, 25, ""), ("gruk", 32, 4, 12, ""), ("kestrel", 44, 4, 24, ""),
                            ("gruk", 43, 4, 23, ""), ("kestrel", 48, 4, 28, "gruk strikes")]
    drops = [(e.handle, e.how, e.count, e.spent) for e in events if isinstance(e, rev.ActionDropped)]
    assert drops == [("gruk", "lost", 12, 4), ("kestrel", "cancelled", 35, 1), ("gruk", "lost", 15, 4)]
    assert [(e.handle, e.count) for e in events if isinstance(e, rev.ActionTriggered)] == [("kestrel", 19)]
    looks = [(e.attacker, e.total, e.cell) for e in events if isinstance(e, rev.AttackLookedUp)]
    assert looks == [("kestrel", 137, "11B"), ("kestrel", 80, "3"), ("gruk", 0, ""), ("kestrel", 110, "7"),
                     ("gruk", 60, "2"), ("kestrel", 262, "13C"), ("kestrel", 140, "11B")]
    records = list(store.read(eid))
    assert project(records) == state
    assert audit_records(records, eid).differences == []
    text = markdown(records)
    if os.environ.get("AFFRAY_UPDATE_GOLDEN"):
        COUNTDOWN_GOLDEN.write_text(text, encoding="utf-8")
    assert text == COUNTDOWN_GOLDEN.read_text(encoding="utf-8")
