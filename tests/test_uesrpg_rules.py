"""uesrpg pure rules: DoS and DoF (rules-reference.md D2-D3), criticals
(D4), and every cell of the outcome table of seed 003 Step 3 with its
critical rows ("Critical Success/Failure"), checked cell by cell and as a
hypothesis property over roll pairs."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from affray.rules.d100 import CRITICAL, FAILURE, FUMBLE, SUCCESS
from affray.rules.uesrpg import tables
from affray.rules.uesrpg.contest import outcome
from affray.rules.uesrpg.core import Test as Graded
from affray.rules.uesrpg.core import dof, dos, grade, passed
from affray.rules.uesrpg.rulings import DEFAULT_RULINGS, from_mapping
from affray.rules.uesrpg.sheet import bonus, derive, load_sheet
from affray.commands.demo import examples_dir
import affray.rules.uesrpg as pkg

NPC_LUCKY, NPC_UNLUCKY = frozenset({1, 2, 3}), frozenset({98, 99, 100})


# --------------------------------------------------------------------------- #
# Degrees of Success and Failure (D2, D3) at every tens boundary
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("tens", range(0, 10))
def test_dos_is_the_tens_digit_at_least_one_at_every_boundary(tens):
    """D2: DoS = max(1, tens digit of the roll), TN at most 100."""
    low, high = max(1, tens * 10), tens * 10 + 9
    assert dos(low, 100) == max(1, tens)
    assert dos(high, 100) == max(1, tens)
    assert dos(tens * 10 + 10, 100) == tens + 1 if tens < 9 else dos(100, 100) == 10


@pytest.mark.parametrize("tn,extra", [(100, 0), (101, 0), (109, 0), (110, 1), (119, 1), (120, 2), (135, 3),
                                      (150, 5), (190, 9), (199, 9)])
def test_dos_adds_the_tens_digit_of_a_tn_above_100(tn, extra):
    """D2: a TN above 100 adds floor((TN mod 100)/10) to the DoS."""
    assert dos(45, tn) == 4 + extra
    assert dos(5, tn) == 1 + extra


@pytest.mark.parametrize("over,degrees", [(1, 1), (9, 1), (10, 2), (19, 2), (20, 3), (29, 3), (30, 4), (59, 6), (60, 7)])
def test_dof_is_one_plus_the_tens_of_the_margin(over, degrees):
    """D3: DoF = 1 + floor((roll - TN)/10), at every tens boundary."""
    assert dof(30 + over, 30) == degrees


def test_a_100_on_a_tn_above_100_fails_unless_lucky():
    """Ruling roll_100_over_tn: 100 on TN 120 is a failure; a Lucky 100 is a critical;
    the other ruling lets it pass with its DoS."""
    assert grade(100, 120, frozenset(), frozenset(), DEFAULT_RULINGS).result == FAILURE
    assert grade(100, 120, frozenset({100}), frozenset(), DEFAULT_RULINGS).result == CRITICAL
    other = from_mapping({"roll-100-over-tn": "dos"})
    t = grade(100, 120, frozenset(), frozenset(), other)
    assert (t.result, t.degrees) == (SUCCESS, 12)
    assert grade(100, 100, frozenset(), frozenset(), DEFAULT_RULINGS).result == SUCCESS  # not above 100


def test_lucky_and_unlucky_numbers_whatever_the_tn():
    """D4: a Lucky Number is a critical success and an Unlucky one a critical
    failure whatever the TN (ruling lucky_above_tn)."""
    assert grade(90, 40, frozenset({90}), frozenset(), DEFAULT_RULINGS).result == CRITICAL
    assert grade(10, 80, frozenset(), frozenset({10}), DEFAULT_RULINGS).result == FUMBLE
    assert grade(3, 0, NPC_LUCKY, NPC_UNLUCKY, DEFAULT_RULINGS).result == CRITICAL
    assert grade(98, 120, NPC_LUCKY, NPC_UNLUCKY, DEFAULT_RULINGS).result == FUMBLE
    assert grade(4, 3, NPC_LUCKY, NPC_UNLUCKY, DEFAULT_RULINGS).result == FAILURE


def test_sample_sheets_derive_their_figures():
    """D5, D11: bonuses are tens digits; HP END/2 up; WT SB+EB+WB; initiative AB+IB+PcB."""
    h = load_sheet(examples_dir() / "uesrpg" / "hrolfdar.toml")
    assert bonus(45) == 4 and derive(h).hp == 21 and derive(h).wound_threshold == 11 and derive(h).initiative_rating == 8
    v = load_sheet(examples_dir() / "uesrpg" / "vethis.toml")
    assert (derive(v).hp, derive(v).wound_threshold, derive(v).initiative_rating) == (18, 10, 10)


def test_hit_location_by_ones_digit():
    """Seed 003 Step 4 table: 1-5 body, 6 right leg, 7 left leg, 8 right arm, 9 left arm, 0 (and a d10's 10) head."""
    got = {d: tables.location_for_digit(d).name for d in range(0, 11)}
    assert got == {0: "head", 1: "body", 2: "body", 3: "body", 4: "body", 5: "body", 6: "right leg",
                   7: "left leg", 8: "right arm", 9: "left arm", 10: "head"}


# --------------------------------------------------------------------------- #
# The outcome table, cell by cell (seed 003 Step 3)
# --------------------------------------------------------------------------- #


def T(result: str, degrees: int = 3) -> Graded:
    return Graded(50, 60, result, degrees)


C, S, F, X = CRITICAL, SUCCESS, FAILURE, FUMBLE
#: (attacker, defender) -> (row, winner, advantages, advantage_to) for a melee Parry with
#: the attacker at 3 DoS and the defender at 3 DoS (a tie: ruling parry_evade_tie).
PARRY_CELLS = {
    (C, C): ("both-critical", "", 0, ""),
    (C, S): ("attack-vs-parry", "attacker", 1, "attacker"),
    (C, F): ("attacker-wins", "attacker", 2, "attacker"),
    (C, X): ("attacker-wins", "attacker", 2, "attacker"),
    (S, C): ("attack-vs-parry", "defender", 1, "defender"),
    (S, S): ("attack-vs-parry", "defender", 0, ""),
    (S, F): ("attacker-wins", "attacker", 1, "attacker"),
    (S, X): ("attacker-wins", "attacker", 2, "attacker"),  # the fumble makes the success critical
    (F, C): ("defender-wins", "defender", 2, "defender"),
    (F, S): ("defender-wins", "defender", 1, "defender"),
    (F, F): ("both-fail", "", 0, ""),
    (F, X): ("both-fail", "", 0, ""),
    (X, C): ("defender-wins", "defender", 2, "defender"),
    (X, S): ("defender-wins", "defender", 2, "defender"),
    (X, F): ("both-fail", "", 0, ""),
    (X, X): ("both-fumble", "", 0, ""),
}


@pytest.mark.parametrize("cell", sorted(PARRY_CELLS))
def test_every_cell_against_a_parry(cell):
    """Seed 003 Step 3 and "Critical Success/Failure": each pair of results
    against a Parry at equal DoS (the tie holds for the defence)."""
    a, d = cell
    o = outcome(T(a), T(d), "parry", True)
    assert (o.row, o.winner, o.advantages, o.advantage_to) == PARRY_CELLS[cell]
    assert (o.hits == "defender") == (o.winner == "attacker")


@pytest.mark.parametrize("cell", sorted(PARRY_CELLS))
def test_every_cell_at_range_gains_no_advantage(cell):
    """Seed 003 Step 4: ranged attackers and spells cannot gain Advantage
    (and a defender against them gains none either: "if melee")."""
    a, d = cell
    o = outcome(T(a), T(d), "evade", False)
    assert o.advantages == 0 and o.advantage_to == ""


@pytest.mark.parametrize("att,dfn,hits,winner", [(4, 3, "defender", "attacker"), (3, 3, "", "defender"),
                                                 (2, 3, "", "defender")])
@pytest.mark.parametrize("kind", ["parry", "evade"])
def test_parry_and_evade_need_more_dos(att, dfn, hits, winner, kind):
    """Seed 003: against Parry or Evade the defence is negated only if the
    attacker has more DoS; a tie holds (ruling parry_evade_tie)."""
    o = outcome(T(S, att), T(S, dfn), kind, True)
    assert (o.row, o.hits, o.winner, o.advantages) == (f"attack-vs-{kind}", hits, winner, 0)


def test_parry_tie_ruling_attack_hits():
    o = outcome(T(S, 3), T(S, 3), "parry", True, from_mapping({"parry_evade_tie": "attack-hits"}))
    assert o.hits == "defender"


@pytest.mark.parametrize("att", [1, 3, 9])
def test_block_holds_regardless_of_dos(att):
    """Seed 003: "The defender blocks the attack regardless of attacker degrees of success"."""
    o = outcome(T(S, att), T(S, 1), "block", True)
    assert (o.row, o.blocked, o.hits, o.winner) == ("attack-vs-block", True, "", "defender")


def test_a_critical_against_a_block():
    """Ruling critical_vs_block: the block holds and the critical gains its
    Advantage; the other setting lets the critical hit."""
    o = outcome(T(C), T(S), "block", True)
    assert (o.blocked, o.hits, o.advantages, o.advantage_to) == (True, "", 1, "attacker")
    o = outcome(T(C), T(S), "block", True, from_mapping({"critical_vs_block": "critical-hits"}))
    assert (o.blocked, o.hits) == (False, "defender")


@pytest.mark.parametrize("att,dfn,hits", [(5, 3, "defender"), (3, 5, "attacker"), (4, 4, "")])
def test_counter_attack_more_dos_hits_equal_resolves_nothing(att, dfn, hits):
    """Seed 003: "Whichever character achieves more degrees of success hits the other"; equal: neither."""
    o = outcome(T(S, att), T(S, dfn), "counter", True)
    assert (o.row, o.hits) == ("counter-attack", hits)


def test_a_failed_attack_against_a_counter_is_struck_back():
    """One fails: the Counter-Attack that passed hits the attacker, with its Advantage."""
    o = outcome(T(F), T(S), "counter", True)
    assert (o.row, o.hits, o.advantages, o.advantage_to) == ("defender-wins", "attacker", 1, "defender")


def test_no_defence_is_an_automatic_failure():
    """Seed 003 Step 3: a defender who does not or cannot defend has failed."""
    o = outcome(T(S), None, "none", True)
    assert (o.row, o.hits, o.advantages) == ("attacker-wins", "defender", 1)
    assert outcome(T(F), None, "none", True).row == "both-fail"


# --------------------------------------------------------------------------- #
# The same table as a property over roll pairs
# --------------------------------------------------------------------------- #

rolls = st.integers(min_value=1, max_value=100)
tns = st.integers(min_value=0, max_value=150)


@given(rolls, tns, rolls, tns, st.sampled_from(["evade", "parry", "block", "counter"]), st.booleans())
def test_outcome_table_over_roll_pairs(ar, at, dr, dt, kind, melee):
    """For any two NPC rolls (criticals on 1-3, critical failures on
    98-100): the upgrade of a success against a critical failure, the rows
    where nothing resolves, one side failing, and both passing, hold as
    seed 003 Step 3 states them."""
    a = grade(ar, at, NPC_LUCKY, NPC_UNLUCKY, DEFAULT_RULINGS)
    d = grade(dr, dt, NPC_LUCKY, NPC_UNLUCKY, DEFAULT_RULINGS)
    o = outcome(a, d, kind, melee)
    ea = CRITICAL if (a.result == SUCCESS and d.result == FUMBLE) else a.result
    ed = CRITICAL if (d.result == SUCCESS and a.result == FUMBLE) else d.result
    assert (o.attack_result, o.defence_result) == (ea, ed)
    if not melee:
        assert o.advantages == 0
    if ea == ed == CRITICAL or ea == ed == FUMBLE or (not passed(ea) and not passed(ed)):
        assert (o.hits, o.winner, o.advantages, o.blocked) == ("", "", 0, False)
        return
    if passed(ea) != passed(ed):
        winner = "attacker" if passed(ea) else "defender"
        assert o.winner == winner
        won = ea if winner == "attacker" else ed
        assert o.advantages == ((2 if won == CRITICAL else 1) if melee else 0)
        assert o.hits == ("defender" if winner == "attacker" else ("attacker" if kind == "counter" else ""))
        return
    # both pass
    crit = "attacker" if ea == CRITICAL else "defender" if ed == CRITICAL else ""
    assert o.advantages == (1 if crit and melee else 0)
    more = (1 if crit == "attacker" else -1) if crit else (a.degrees > d.degrees) - (a.degrees < d.degrees)
    if kind == "block":
        assert o.blocked and o.hits == ""
    elif kind in ("parry", "evade"):
        assert o.hits == ("defender" if more > 0 else "")
    else:
        assert o.hits == {1: "defender", 0: "", -1: "attacker"}[more]


# --------------------------------------------------------------------------- #
# Imports run one way (DESIGN.md, "Inside a system, steps are data")
# --------------------------------------------------------------------------- #

RULE_MODULES = {"attack", "defence", "contest", "advantages", "damage", "wounds", "opportunity", "turns"}
BELOW = {"core": {"sheet", "tables", "rulings", "conditions"}, "sheet": {"tables"}, "tables": set(), "rulings": set(),
         "conditions": set()}


def test_uesrpg_imports_run_one_way():
    """system.py alone imports the rule modules; a rule module imports only
    core and below; core only sheet, tables, rulings, conditions; nothing in
    the package imports another system, the store, the commands, views or cli."""
    folder = Path(pkg.__file__).parent
    for path in folder.glob("*.py"):
        mod = path.stem
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
                imported.update(names)
        for name in imported:
            assert not name.startswith(("affray.store", "affray.commands", "affray.views", "affray.cli",
                                        "affray.rules.mrq1", "affray.rules.mythras")), (mod, name)
        ours = {n.split(".")[3] for n in imported if n.startswith("affray.rules.uesrpg.") and len(n.split(".")) > 3}
        if mod in RULE_MODULES:
            assert ours <= {"core", "sheet", "tables", "rulings", "conditions"}, (mod, ours)
        elif mod in BELOW:
            assert ours <= BELOW[mod] | {mod}, (mod, ours)
        if mod != "system":
            assert not (ours & RULE_MODULES), (mod, ours)
