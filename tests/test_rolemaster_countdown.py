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
from affray.rules.base import RuleError

from rolemaster_fight import Fight

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
