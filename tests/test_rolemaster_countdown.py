"""rolemaster: the RMH initiative countdown (ruling ``turn_order``,
default ``countdown``). Seed 000 (000_0c5afa08bd3fc886.txt) speaks of
rounds, Action Points and "You have initiative" without a round
structure; RMH ``tactical-activity-tracking_.md`` gives it: "Actual
Initiative = Base Initiative + (remaining Action Points x 5)", the GM
counting down from the highest.

Initiative "10,5,3,4": Kestrel 15 + Qu 10 = 25 (count 45 with 4 AP),
Gruk 7 + Qu 5 = 12 (count 32).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import rolemaster as rev
from affray.rules.base import RuleError

from rolemaster_fight import Fight, sheet

A, R = cmd.DeclareAttack, cmd.ChooseReaction
START = "10,5,3,4"


def turns(f):
    return [(t.handles, t.action_no) for t in f.events(ev.TurnBegan) if t.handles]


def test_the_highest_count_declares_first(tmp_path):
    """Base + 5 x AP left: Kestrel 45 before Gruk 32; the prompt names the count."""
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    assert turns(f) == [(("kestrel",), 45)]
    assert "count 45, 4 AP" in f.state.pending[0].prompt


def test_spending_action_points_lowers_the_count(tmp_path):
    """A 2 AP quick attack takes Kestrel from 45 to 35, still above Gruk's
    32: Kestrel goes again (the cycle ruling would give Gruk the turn);
    after a second one (25, no AP left) Gruk acts at 32."""
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk", situations=("ap=2",)))
    f.run(R(defender="gruk", reaction="none"), "30")
    assert f.state.turn == ("kestrel",) and turns(f)[-1] == (("kestrel",), 35)
    with pytest.raises(RuleError, match="not Gruk's turn"):
        f.run(A(attacker="gruk", target="kestrel"))
    f.run(A(attacker="kestrel", target="gruk", situations=("ap=2",)))
    f.run(R(defender="gruk", reaction="none"), "30")
    assert turns(f)[-1] == (("gruk",), 32)
    f.run(cmd.TakeAction(who="gruk", action="pass"))
    assert f.state.pending[0].kind == "end-round"


def test_counts_interleave(tmp_path):
    """Kestrel 25 (count 45), Gruk 18 + 5 = 23 (count 43): Kestrel's 2 AP
    quick attack leaves him at 35, so Gruk (43) comes in; Gruk's 2 AP
    attack leaves him at 33, so Kestrel (35) is next."""
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), "10,5,10,8")
    f.run(A(attacker="kestrel", target="gruk", situations=("ap=2",)))
    f.run(R(defender="gruk", reaction="none"), "30")
    assert turns(f)[-1] == (("gruk",), 43)
    f.run(A(attacker="gruk", target="kestrel", situations=("ap=2",)))
    f.run(R(defender="kestrel", reaction="none"), "30")
    assert turns(f)[-1] == (("kestrel",), 35)


def test_equal_counts_go_to_the_higher_quickness_bonus(tmp_path):
    """Kestrel 10+5+10 = 25, Gruk 10+10+5 = 25: both count 45; Kestrel's
    Quickness bonus (10) beats Gruk's (5)."""
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), "10,5,10,10")
    assert turns(f) == [(("kestrel",), 45)]


def test_cycle_is_still_a_ruling(tmp_path):
    """turn_order=cycle: one action per turn in initiative order."""
    f = Fight(tmp_path, rulings={"turn_order": "cycle"})
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk", situations=("ap=2",)))
    f.run(R(defender="gruk", reaction="none"), "30")
    assert f.state.turn == ("gruk",)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(1, 10), min_size=4, max_size=4), st.lists(st.sampled_from([1, 2, 3, 4, 0]), min_size=1, max_size=8))
def test_the_turn_always_goes_to_the_highest_count(tmp_path_factory, faces, spends):
    """RMH countdown, as a property: whatever the Initiative dice and the
    AP each action spends (a quick attack of 1-3 AP, a full one of 4, or a
    pass), the combatant in turn has the highest count (Initiative + 5 x AP
    left) of those with AP left, and nobody's count ever rises in a round."""
    f = Fight(tmp_path_factory.mktemp("cd"))
    f.run(cmd.StartRound(), ",".join(map(str, faces)))
    entries = {e.handle: e for e in f.state.order}
    last = {h: 10**6 for h in entries}
    for spend in spends:
        if not f.state.turn:
            break
        counts = {h: entries[h].rank + 5 * f.who(h).combat_actions for h in entries if f.who(h).combat_actions > 0}
        who = f.state.turn[0]
        assert counts[who] == max(counts.values())
        assert all(counts[h] <= last[h] for h in counts)
        last.update(counts)
        foe = "gruk" if who == "kestrel" else "kestrel"
        ap = min(spend, f.who(who).combat_actions)
        if ap == 0:
            f.run(cmd.TakeAction(who=who, action="pass"))
            continue
        f.run(A(attacker=who, target=foe, situations=(f"ap={ap}",)))
        f.run(R(defender=foe, reaction="none"), "20")  # 20 + OB - DB: never a critical


# --------------------------------------------------------------------------- #
# Delayed resolution (ruling resolution=when-spent, the default): RMH
# tactical-activity-tracking_.md "Resolution": "Actions are declared when
# they are started, and paid for (in AP) and resolved on the initiative
# when they are completed"; "Conditional Actions"; "Canceling action".
# --------------------------------------------------------------------------- #

SPENT = {"resolution": "when-spent"}


def _spent(tmp_path, start=START, **rulings):
    f = Fight(tmp_path, rulings={**SPENT, **rulings})
    f.run(cmd.StartRound(), start)
    return f


def test_an_attack_resolves_when_its_action_points_are_spent(tmp_path):
    """RMH 'Resolution' (Hauser: declared on 35, 3 AP, resolved on 20):
    Kestrel declares a 4 AP attack on 45, so it resolves on 25; Gruk
    declares on 32 in between, his 4 AP attack resolving on 12. Nothing
    is rolled and no AP are spent until the count comes."""
    f = _spent(tmp_path)
    f.run(A(attacker="kestrel", target="gruk"))
    d = f.events(rev.ActionDeclared)[-1]
    assert (d.handle, d.count, d.ap, d.resolves_at) == ("kestrel", 45, 4, 25)
    assert f.who("kestrel").combat_actions == 4 and f.state.exchange is None
    assert f.state.turn == ("gruk",) and turns(f)[-1] == (("gruk",), 32)
    f.run(A(attacker="gruk", target="kestrel"))
    assert f.events(rev.ActionDeclared)[-1].resolves_at == 12
    # count 25: Kestrel's attack resolves; Gruk is asked to react
    assert turns(f)[-1] == (("kestrel",), 25) and f.state.pending[0].kind == "react"
    assert f.who("kestrel").combat_actions == 0 and not f.who("kestrel").has("declared")
    f.run(R(defender="gruk", reaction="none"), "30")  # 30 + 70 - 20 = 80: 3 hits
    assert turns(f)[-1] == (("gruk",), 12) and f.state.pending[0].who == "kestrel"
    f.run(R(defender="kestrel", reaction="none"), "50")
    assert f.state.pending[0].kind == "end-round"


def test_resolutions_interleave_by_count(tmp_path):
    """Kestrel 24 (44), Gruk 23 (43): both declare 4 AP attacks before
    either resolves; Kestrel's resolves on 24, Gruk's on 23."""
    f = _spent(tmp_path, start="8,6,9,9")
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(A(attacker="gruk", target="kestrel"))
    assert [(t.handles, t.action_no) for t in f.events(ev.TurnBegan) if t.handles][-3:] == [
        (("kestrel",), 44), (("gruk",), 43), (("kestrel",), 24)]
    f.run(R(defender="gruk", reaction="none"), "30")
    assert turns(f)[-1] == (("gruk",), 23)


def test_an_action_that_cannot_be_completed_is_lost(tmp_path):
    """Gruk declares on 32; Kestrel's attack resolving on 25 stuns him (a B
    critical, 85: stunned 1 round), and a stunned combatant cannot attack
    (seed 000 'Stunned'): on 12 Gruk's attack is lost and its AP spent
    (RMH second-by-second 'Opportunity action': 'it is lost')."""
    f = _spent(tmp_path)
    f.run(A(attacker="kestrel", target="gruk", situations=("parry=20",)))
    f.run(A(attacker="gruk", target="kestrel"))
    f.run(R(defender="gruk", reaction="parry:30"), "97,40")
    f.run(cmd.RollPending(), "85")
    lost = f.events(rev.ActionDropped)[-1]
    assert (lost.handle, lost.how, lost.count, lost.spent) == ("gruk", "lost", 12, 4)
    assert "cannot attack" in lost.reason
    assert f.who("gruk").combat_actions == 0 and f.state.pending[0].kind == "end-round"


def test_cancelling_spends_the_time_gone_by(tmp_path):
    """RMH 'Canceling action': Kestrel's attack declared on 45 is cancelled
    on 32 (Gruk's count): 13 counts gone, 3 AP spent (1 per 5 begun; our
    ruling), so Kestrel declares again on 25 + 5 = 30, after Gruk."""
    f = _spent(tmp_path)
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(cmd.TakeAction(who="kestrel", action="cancel"))
    drop = f.events(rev.ActionDropped)[-1]
    assert (drop.how, drop.count, drop.spent) == ("cancelled", 32, 3)
    assert f.who("kestrel").combat_actions == 1 and not f.who("kestrel").has("declared")
    assert f.state.turn == ("gruk",)
    f.run(cmd.TakeAction(who="gruk", action="pass"))
    assert turns(f)[-1] == (("kestrel",), 30)
    with pytest.raises(RuleError, match="no declared action"):
        f.run(cmd.TakeAction(who="kestrel", action="cancel"))


def test_a_used_parry_commits_the_declared_attack(tmp_path):
    """RMH 'Parry': "the Action Points are considered spent once the parry
    is used". Kestrel 45, Gruk 32, Gorg 27: Gruk's attack waits for 12;
    attacked on 25 he parries; on 22 Gorg's 1 AP attack resolves and Gorg
    declares again, and then Gruk can no longer cancel his attack."""
    gorg = sheet("gruk")
    gorg["name"] = "Gorg"
    f = Fight(tmp_path, rulings=SPENT, sheets=((sheet("kestrel"), "heroes"), (sheet("gruk"), "orcs"), (gorg, "orcs")))
    f.run(cmd.StartRound(), "10,5,3,4,1,1")
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(A(attacker="gruk", target="kestrel"))
    f.run(A(attacker="gorg", target="kestrel", situations=("ap=1",)))
    f.run(R(defender="gruk", reaction="parry:10"), "30")
    assert next(k for k in f.who("gruk").conditions if k.name == "declared").effects.get("committed") == 1
    f.run(R(defender="kestrel", reaction="none"), "20")
    assert f.state.turn == ("gorg",) and turns(f)[-1] == (("gorg",), 22)
    before = f.version
    with pytest.raises(RuleError, match="parry has been used"):
        f.run(cmd.TakeAction(who="gruk", action="cancel"))
    assert f.version == before


def test_a_held_action_waits_for_its_trigger(tmp_path):
    """RMH 'Conditional Actions': Kestrel holds a 4 AP attack "until Gruk
    closes": ready (AP spent) on 25. Gruk declares on 32; when his attack's
    count (12) comes, the countdown pauses so the held attack may interrupt
    it ('Opportunity action': it completes first); Kestrel triggers it,
    then Gruk's resolves."""
    f = _spent(tmp_path)
    f.run(A(attacker="kestrel", target="gruk", situations=("hold=when gruk closes",)))
    assert f.events(rev.ActionDeclared)[-1].hold == "when gruk closes"
    f.run(A(attacker="gruk", target="kestrel"))
    ready = f.events(rev.ActionReadied)[-1]
    assert (ready.handle, ready.count) == ("kestrel", 25) and f.who("kestrel").combat_actions == 0
    step = f.state.pending[0]
    assert (step.kind, step.who) == ("resolve", "gruk") and "'affray act kestrel trigger'" in step.prompt
    assert "count 12: Gruk resolves attack Kestrel with Club" in step.prompt
    f.run(cmd.TakeAction(who="kestrel", action="trigger"))
    assert f.state.exchange.attacker == "kestrel" and f.who("kestrel").combat_actions == 0
    f.run(R(defender="gruk", reaction="none"), "30")
    # nobody holds an action now: Gruk's attack (count 12) resolves at once
    assert f.state.exchange.attacker == "gruk" and f.state.pending[0].who == "kestrel"


@pytest.mark.parametrize("ruling,kept", [("concentration", True), ("end-of-round", False)])
def test_an_untriggered_held_action_at_the_end_of_the_round(tmp_path, ruling, kept):
    """Ruling held_action: kept while the holder concentrates (RMH
    tactical-activity-tracking 'Conditional Actions': "as many rounds as
    the character can maintain unbroken concentration"), or lost at the
    end of the round (the-tactical-combat-sequence: "If the conditional
    action is never triggered, the action is lost")."""
    f = _spent(tmp_path, held_action=ruling)
    f.run(A(attacker="kestrel", target="gruk", situations=("hold=when gruk closes",)))
    f.run(cmd.TakeAction(who="gruk", action="pass"))
    assert f.state.pending[0].kind == "end-round"
    f.run(cmd.EndRound(), "8,6,9,9")
    assert f.who("kestrel").has("declared") is kept
    if kept:  # concentrating: no other turn; Gruk declares
        assert f.state.turn == ("gruk",)
        f.run(cmd.TakeAction(who="kestrel", action="trigger"))
        assert f.state.exchange.attacker == "kestrel" and f.who("kestrel").combat_actions == 4
    else:
        assert f.events(rev.ActionDropped)[-1].reason == "never triggered"


def test_other_actions_resolve_when_spent_too(tmp_path):
    """Drawing (1 AP, RMH) declared on 45 resolves on 40; a 0 AP parry
    ('Parry has no affect on time', seed 000) takes effect at once."""
    f = Fight(tmp_path, rulings=SPENT, sheets=((sheet("kestrel", ready=["Target Shield"]), "heroes"), (sheet("gruk"), "orcs")))
    f.run(cmd.StartRound(), START)
    f.run(cmd.TakeAction(who="kestrel", action="draw Broadsword"))
    assert f.events(rev.ActionDeclared)[-1].resolves_at == 40
    # 40 is above Gruk's 32: the draw resolves (and Kestrel declares again on 40) before Gruk's turn
    drawn = [e for e in f.events() if isinstance(e, ev.WeaponReadied)]
    assert drawn and turns(f)[-2:] == [(("kestrel",), 40), (("kestrel",), 40)] and "Broadsword" in f.who("kestrel").ready
    f.run(cmd.TakeAction(who="kestrel", action="parry 20"))
    assert f.who("kestrel").has("parrying") and f.state.turn == ("kestrel",)


def test_bad_input_on_the_countdown(tmp_path):
    """One line and nothing appended: a second declaration, a trigger with
    nothing held, a resolve out of place."""
    f = _spent(tmp_path)
    before = f.version
    for action, message in (("trigger", "holds no conditional action"), ("resolve", "no action waiting")):
        with pytest.raises(RuleError, match=message):
            f.run(cmd.TakeAction(who="kestrel", action=action))
    assert f.version == before


@pytest.mark.parametrize("gruk_ap,ruling,parried", [
    ("1", "attack-time", True),    # Gruk's 1 AP attack resolves on 27, inside Kestrel's attack time (45..25)
    ("4", "attack-time", False),   # Gruk's resolves on 12: Kestrel's attack time ended on 25
    ("4", "round", True),          # rules-reference.md A6: the parry holds for the round
])
def test_a_parry_holds_for_the_attack_time(tmp_path, gruk_ap, ruling, parried):
    """Seed 000 'Parry action': "It is in effect for the duration of the
    'attack time' against any one attack that is 'resolved' against the
    target during that time" (ruling parry_time). Kestrel declares on 45 a
    4 AP attack moving 20 of OB to parry (resolving on 25); Gruk declares
    on 32 (count 32 - 5 x AP)."""
    f = _spent(tmp_path, parry_time=ruling)
    f.run(A(attacker="kestrel", target="gruk", situations=("parry=20",)))
    assert "for its attack time" in next(k for k in f.who("kestrel").conditions if k.name == "parrying").note \
        or ruling == "round"
    f.run(A(attacker="gruk", target="kestrel", situations=(f"ap={gruk_ap}",)))
    if gruk_ap == "4":  # Kestrel's attack resolves first, on 25
        f.run(R(defender="gruk", reaction="none"), "30")
    step = f.state.pending[0]
    assert step.kind == "react" and step.who == "kestrel"
    assert ("parry" in step.options) is parried
    if parried:
        f.run(R(defender="kestrel", reaction="parry"), "50")
        x = f.events(rev.AttackLookedUp)[-1]
        assert (20, "parry (OB moved)") in [(m.value, m.reason) for m in x.db_parts]


def test_a_log_recorded_before_the_delayed_resolution_keeps_its_rulings():
    """An encounter's stored rulings hold every ruling of their day (the
    frozen fixture ``tests/fixtures/rolemaster_schema1.jsonl`` has no
    ``resolution``): those added since read as the behaviour it was decided
    under, so ``affray audit`` re-decides it the same; a new encounter
    stores the new defaults."""
    import json
    from pathlib import Path

    from affray.rules.rolemaster.rulings import LEGACY, as_mapping, from_mapping, from_stored

    first = Path(__file__).resolve().parent / "fixtures" / "rolemaster_schema1.jsonl"
    stored = json.loads(first.read_text().splitlines()[0])["data"]["rulings"]
    assert "resolution" not in stored
    old = from_stored(stored)
    assert {k: getattr(old, k) for k in LEGACY} == LEGACY
    new = as_mapping(from_mapping({"melee_ap": "3"}))
    assert from_stored(new).resolution == "when-spent" and from_stored(new).melee_ap == "3"
    assert from_stored({"melee_ap": "3"}).resolution == "when-spent"  # user input is not a stored mapping


def test_a_held_attack_in_the_cycle_turn_order(tmp_path):
    """Ruling turn_order=cycle (every action resolves as declared): a held
    attack (RMH 'Conditional Actions') is ready at once, its AP spent; the
    holder takes no other turn while it waits; the trigger resolves it."""
    f = Fight(tmp_path, rulings={"turn_order": "cycle"})
    f.run(cmd.StartRound(), START)
    f.run(A(attacker="kestrel", target="gruk", situations=("ap=2", "hold=gruk moves")))
    assert f.events(rev.ActionReadied)[-1].handle == "kestrel" and f.who("kestrel").combat_actions == 2
    assert f.state.turn == ("gruk",)
    f.run(cmd.TakeAction(who="gruk", action="pass"))
    assert f.state.pending[0].kind == "end-round"  # Kestrel concentrates: no turn with his 2 AP left
    f.run(cmd.TakeAction(who="kestrel", action="trigger"))
    assert f.state.exchange.attacker == "kestrel" and f.who("kestrel").combat_actions == 2


def test_the_log_tells_declarations_readiness_and_drops(tmp_path):
    """The log lines of the countdown's own events (views/narrate.py)."""
    from affray.views.narrate import narrate

    names = {"kestrel": "Kestrel", "gruk": "Gruk"}
    f = _spent(tmp_path)
    f.run(A(attacker="kestrel", target="gruk", situations=("hold=gruk closes",)))
    f.run(A(attacker="gruk", target="kestrel"))
    f.run(cmd.TakeAction(who="kestrel", action="cancel"))
    lines = [narrate(e, names, "rolemaster") for e in f.events() if isinstance(e, (rev.ActionDeclared, rev.ActionReadied, rev.ActionDropped))]
    assert lines == [
        "Kestrel declares on 45: attack Gruk with Broadsword (4 AP), held until gruk closes",
        "Gruk declares on 32: attack Kestrel with Club (4 AP), resolving on 12",
        "Kestrel's held action (attack Gruk with Broadsword) is ready on 25, waiting until gruk closes",
        "Kestrel's action (attack Gruk with Broadsword) is cancelled on 12: cancelled before it resolved; "
        "the GM may call for an orientation roll",
    ]


def test_the_demo_parries_only_within_the_attack_time(tmp_path):
    """The demo's autopilot keeps OB back to parry only when the foe's
    attack can resolve before the parry's attack time ends (seed 000
    'Parry action'): Kestrel on 45 (his attack resolving on 25) does not
    against Gruk, whose full attack would resolve on 12; Gruk on 32 does,
    Kestrel's attack resolving on 25 within his own (32 .. 12)."""
    from affray.commands.demo_rolemaster import next_command

    f = _spent(tmp_path)
    first = next_command(f.state)
    assert isinstance(first, cmd.DeclareAttack) and first.situations == ()
    f.run(first)
    second = next_command(f.state)
    assert isinstance(second, cmd.DeclareAttack) and second.situations == ("parry=15",)


def test_a_declared_action_text_keeps_parentheses_in_names():
    """The declared action's text is read up to its ``(N AP)``, so a weapon
    called "Bow (long)" survives."""
    from affray.rules.rolemaster import conditions as cat
    from affray.rules.rolemaster.core import declared_hold, declared_text

    cond = cat.make("declared", cause=1, round=1, step=1, ends="never", effects={"ap": 3, "hold": 1},
                    note="attack Gruk with Bow (long) (3 AP), held until: he steps (into) the light")
    assert declared_text(cond) == "attack Gruk with Bow (long)"
    assert declared_hold(cond) == "he steps (into) the light"
