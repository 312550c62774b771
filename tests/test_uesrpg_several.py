"""uesrpg: one attack against several defenders (seed 003 Step 4, Block:
"Should there be multiple defenders against a single attack, only one
defender gains a defensive advantage"), and a ranged weapon's or spell's
range (Step 1: "against a target within the range of their weapon").

An item with ``targets`` above 1 may name several targets; every defence is
chosen before the one attack roll (Step 2); Step 4 runs defender by
defender. Figures of the sample sheets are in tests/test_uesrpg_golden.py:
Hrolfdar's Nordic Warrior TN 65, Vethis's Ashlander Skirmisher TN 66 (+1 DoS
buckler on a successful parry), Destruction 50; Vethis is an NPC (criticals
1-3, critical failures 98-100).
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import uesrpg as ev_ues
from affray.rules.d100 import CRITICAL, FAILURE, SUCCESS
from affray.rules.uesrpg.contest import Outcome, one_defensive_advantage
from affray.rules.uesrpg.core import Test as Graded
from affray.rules.uesrpg.rulings import Rulings
from tests.test_uesrpg_flow import Table, sheet

A, R, CH, ACT = cmd.DeclareAttack, cmd.ChooseReaction, cmd.MakeChoice, cmd.TakeAction
ROLL = cmd.RollPending()


def sweep_table(rulings=None) -> Table:
    """Hrolfdar (heroes) with a Steel Axe that faces 2 defenders, against
    Vethis and Ulvir (a copy of Vethis); round 1 begun, Hrolfdar first."""
    h = sheet("hrolfdar")
    h["weapons"][0]["targets"] = 2
    u = copy.deepcopy(sheet("vethis"))
    u["name"] = "Ulvir"
    t = Table(sheets={"hrolfdar": h, "vethis": sheet("vethis")}, rulings=rulings)
    from affray.commands.handler import execute  # the Table's own store; a third combatant joins it
    execute(t.store, cmd.JoinCombatant(sheet=u, side="sellswords", handle="ulvir"), encounter_id=t.eid)
    t(cmd.StartRound(), "6,1,1")
    return t


def spell_table(surprised=()) -> Table:
    """Vethis (sellswords) with Firebite as an area spell (2 targets, range
    20 m) against Hrolfdar and Brynja (a copy of Hrolfdar); Vethis first."""
    v = sheet("vethis")
    v["spells"][0].update(targets=2, range=20.0)
    b = copy.deepcopy(sheet("hrolfdar"))
    b["name"] = "Brynja"
    t = Table(sheets={"hrolfdar": sheet("hrolfdar"), "vethis": v}, surprised=surprised)
    from affray.commands.handler import execute
    execute(t.store, cmd.JoinCombatant(sheet=b, side="heroes", handle="brynja"), encounter_id=t.eid)
    t(cmd.StartRound(), "1,6,1")
    return t


def test_every_defence_is_chosen_before_the_one_attack_roll():
    """Step 2: each defender chooses before the attacker rolls; the roll
    step waits for both and rolls the attack once, then each defence."""
    t = sweep_table()
    s = t(A(attacker="hrolfdar", target="vethis,ulvir"))
    assert [(p.who, p.verb) for p in s.pending] == [("vethis", "react")]
    t.fails(ROLL, "chooses a defence first")
    s = t(R(defender="vethis", reaction="parry"))
    assert [(p.who, p.verb) for p in s.pending] == [("ulvir", "react")]
    s = t(R(defender="ulvir", reaction="evade"))
    step = s.pending[0]
    assert (step.who, step.verb) == ("hrolfdar", "roll")
    assert [d.purpose for d in step.dice] == ["Hrolfdar: attack test", "Vethis Ilnoth: parry test", "Ulvir: evade test"]
    assert s.combatants["hrolfdar"].combat_actions == 2  # one attack, 1 AP (ruling ap_costs)
    assert s.combatants["vethis"].combat_actions == 2 and s.combatants["ulvir"].combat_actions == 2


def test_only_one_defender_gains_the_defensive_advantage_most_dos():
    """Step 4 Block: two defenders win against one failed melee attack;
    only one gains the Advantage: the one with more DoS (ruling
    several_defenders = most-dos)."""
    t = sweep_table()
    t(A(attacker="hrolfdar", target="vethis,ulvir"))
    t(R(defender="vethis", reaction="parry"))
    t(R(defender="ulvir", reaction="parry"))
    s = t(ROLL, "90,35,55")  # attack fails; Vethis 3+1 = 4 DoS, Ulvir 5+1 = 6 DoS
    rolls = t.events(ev_ues.CombatRollResolved)
    assert [(r.defender, r.row, r.advantages, r.advantage_to) for r in rolls] == [
        ("vethis", "defender-wins", 0, ""), ("ulvir", "defender-wins", 1, "defender")]
    assert len({r.attack_roll for r in rolls}) == 1  # one attack roll for both
    # Vethis's exchange ends at once; Ulvir's opens and Ulvir spends the Advantage
    assert [(p.who, p.verb, p.kind) for p in s.pending] == [("ulvir", "choose", "advantage")]
    assert s.exchange.target == "ulvir" and s.exchange.id == 2
    s = t(CH(who="ulvir", option="overwhelm"))
    assert s.combatants["hrolfdar"].effect("no-opportunity")
    assert not any(k.name == "attacking-several" for k in s.combatants["hrolfdar"].conditions)
    assert s.exchange is None and s.pending[0].who == "vethis"  # then the turn order (one attack a Turn)


def test_only_one_defender_gains_the_defensive_advantage_first_declared():
    """Ruling several_defenders = first-declared: the first winner in the
    order the defences were declared keeps the Advantage."""
    t = sweep_table(rulings={"several_defenders": "first-declared"})
    t(A(attacker="hrolfdar", target="vethis,ulvir"))
    t(R(defender="vethis", reaction="parry"))
    t(R(defender="ulvir", reaction="parry"))
    s = t(ROLL, "90,35,55")
    assert [(r.defender, r.advantages) for r in t.events(ev_ues.CombatRollResolved)] == [("vethis", 1), ("ulvir", 0)]
    assert (s.pending[0].who, s.pending[0].kind) == ("vethis", "advantage")


def test_a_critical_defence_counts_as_more_dos_for_the_one_advantage():
    """Critical Success/Failure: a critical counts as more DoS; Vethis's
    critical (an NPC's 1-3) beats Ulvir's 6 DoS for the one Advantage, and a
    critical against a failure gives two."""
    t = sweep_table()
    t(A(attacker="hrolfdar", target="vethis,ulvir"))
    t(R(defender="vethis", reaction="parry"))
    t(R(defender="ulvir", reaction="parry"))
    t(ROLL, "90,2,55")
    assert [(r.defender, r.defence_result, r.advantages) for r in t.events(ev_ues.CombatRollResolved)] == [
        ("vethis", CRITICAL, 2), ("ulvir", SUCCESS, 0)]


def test_the_attacker_may_win_against_each_defender():
    """Only the defensive Advantage is limited: a melee attacker beating two
    failed defences gains its Advantage against each, in turn."""
    t = sweep_table()
    t(A(attacker="hrolfdar", target="vethis,ulvir"))
    t(R(defender="vethis", reaction="parry"))
    t(R(defender="ulvir", reaction="none"))
    s = t(ROLL, "45,80")
    rolls = t.events(ev_ues.CombatRollResolved)
    assert [(r.defender, r.row, r.advantages, r.advantage_to) for r in rolls] == [
        ("vethis", "attacker-wins", 1, "attacker"), ("ulvir", "attacker-wins", 1, "attacker")]
    assert (s.pending[0].who, s.pending[0].kind, s.exchange.target) == ("hrolfdar", "advantage", "vethis")
    s = t(CH(who="hrolfdar", option="none"))
    s = t(ROLL, "2,3")  # Vethis's damage
    assert s.exchange.target == "ulvir" and (s.pending[0].who, s.pending[0].kind) == ("hrolfdar", "advantage")
    s = t(CH(who="hrolfdar", option="none"))
    before = s.combatants["ulvir"].location("HP").hp
    s = t(ROLL, "4,4")  # Ulvir's damage
    assert s.combatants["ulvir"].location("HP").hp < before
    assert s.exchange is None and s.pending[0].who == "vethis"


def test_an_area_spell_hits_each_defender_in_turn_without_advantage():
    """Step 1 Cast Magic Attacks with an area spell: one Destruction test
    against Hrolfdar and Brynja; spells never gain or use Advantage (Step
    4); each takes the spell's damage in its own exchange."""
    t = spell_table()
    t(A(attacker="vethis", target="hrolfdar,brynja", weapon="Firebite"))
    t(R(defender="hrolfdar", reaction="evade"))
    t(R(defender="brynja", reaction="evade"))
    s = t(ROLL, "20,70,80")  # Destruction 50: 2 DoS; both evades (48) fail
    assert [(r.defender, r.row, r.advantages) for r in t.events(ev_ues.CombatRollResolved)] == [
        ("hrolfdar", "attacker-wins", 0), ("brynja", "attacker-wins", 0)]
    assert (s.pending[0].verb, s.pending[0].kind) == ("roll", "damage") and s.exchange.target == "hrolfdar"
    s = t(ROLL, "4")
    assert (s.pending[0].verb, s.pending[0].kind) == ("roll", "damage") and s.exchange.target == "brynja"
    s = t(ROLL, "3")
    dealt = [(d.target, d.rolled) for d in t.events(ev.DamageDealt)]
    assert dealt == [("hrolfdar", 6), ("brynja", 5)]  # 1D6+2
    assert s.exchange is None


def test_a_defender_unable_to_defend_automatically_fails_and_the_next_is_asked():
    """Step 2-3: "A character must be aware of an attack to defend against
    it": a surprised (unaware) defender automatically fails, recorded as no
    defence, and the next defender is still asked before the roll."""
    t = spell_table(surprised=("hrolfdar",))
    s = t(A(attacker="vethis", target="hrolfdar,brynja", weapon="Firebite"))
    assert [(p.who, p.verb) for p in s.pending] == [("brynja", "react")]
    assert [(r.handle, r.reaction) for r in t.events(ev.ReactionChosen)] == [("hrolfdar", "none")]
    s = t(R(defender="brynja", reaction="block"))
    assert [d.purpose for d in s.pending[0].dice] == ["Vethis Ilnoth: attack test", "Brynja: block test"]
    t(ROLL, "20,30")
    assert [(r.defender, r.defence, r.row) for r in t.events(ev_ues.CombatRollResolved)] == [
        ("hrolfdar", "none", "attacker-wins"), ("brynja", "block", "attack-vs-block")]


def test_several_targets_need_an_item_that_allows_them():
    """An item faces ``targets`` defenders (1 unless its sheet says more);
    each target is named once. Refused with one line, nothing appended."""
    t = spell_table()
    t.fails(A(attacker="vethis", target="hrolfdar,brynja", weapon="Chitin Sword"), "faces 1 defender")
    t.fails(A(attacker="vethis", target="hrolfdar,hrolfdar", weapon="Firebite"), "named once")
    t.fails(A(attacker="vethis", target="hrolfdar,nobody", weapon="Firebite"), "nobody")


def test_a_target_beyond_range_is_refused():
    """Step 1: a ranged weapon or spell attacks "a target within the range
    of their weapon": ``--situation distance:METRES`` beyond the item's
    ``range`` is refused; within it, the attack stands."""
    t = spell_table()
    t.fails(A(attacker="vethis", target="hrolfdar", weapon="Firebite", situations=("distance:30",)), "beyond Firebite's range of 20 m")
    t.fails(A(attacker="vethis", target="hrolfdar", weapon="Firebite", situations=("distance:far",)), "takes metres")
    s = t(A(attacker="vethis", target="hrolfdar", weapon="Firebite", situations=("distance:20",)))
    assert s.pending[0].who == "hrolfdar"


def test_a_non_defender_cannot_answer_the_attack():
    """Only the named defenders choose a defence."""
    t = sweep_table()
    t(A(attacker="hrolfdar", target="vethis"))
    t.fails(R(defender="ulvir", reaction="parry"), "no attack on Ulvir")


def test_sheet_checks_range_and_targets():
    """A range is metres, 0 or more; an item faces at least 1 defender."""
    from affray.rules.uesrpg.sheet import SheetError, parse_sheet
    bad = sheet("vethis")
    bad["spells"][0]["targets"] = 0
    with pytest.raises(SheetError, match="targets"):
        parse_sheet(bad)
    bad = sheet("vethis")
    bad["weapons"][1]["range"] = -5
    with pytest.raises(SheetError, match="range"):
        parse_sheet(bad)


RESULT = st.sampled_from([CRITICAL, SUCCESS, FAILURE])


@given(st.lists(st.tuples(RESULT, st.integers(1, 10), st.integers(0, 2)), min_size=1, max_size=5),
       st.sampled_from(["most-dos", "first-declared"]))
def test_property_at_most_one_defender_keeps_the_defensive_advantage(rows, ruling):
    """Whatever the results, at most one defender keeps a defensive
    Advantage; under most-dos it is one with the best (critical, DoS);
    attacker Advantages and rows are untouched."""
    results = []
    for result, degrees, adv in rows:
        to = "defender" if adv else ""
        results.append((Graded(50, 60, result, degrees), Outcome(row="defender-wins", attack_result=FAILURE,
                                                              defence_result=result, winner="defender",
                                                              advantages=adv, advantage_to=to)))
    out = one_defensive_advantage(results, Rulings(several_defenders=ruling))
    keepers = [i for i, o in enumerate(out) if o.advantage_to == "defender" and o.advantages]
    gainers = [i for i, (_, o) in enumerate(results) if o.advantages]
    assert len(keepers) == min(1, len(gainers))
    assert [o.row for o in out] == [o.row for _, o in results]
    if keepers:
        k = keepers[0]
        assert out[k].advantages == results[k][1].advantages
        if ruling == "first-declared":
            assert k == gainers[0]
        else:
            best = max((results[i][1].defence_result == CRITICAL, results[i][0].degrees) for i in gainers)
            assert (results[k][1].defence_result == CRITICAL, results[k][0].degrees) == best
