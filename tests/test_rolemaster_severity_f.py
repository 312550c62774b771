"""rolemaster: the F severity (rules-reference.md A11: "RMC also has an
F, defined as an E critical plus a C critical"; seed 000 "Attack
Procedure" step 5 "a critical hit (denoted by a number and a letter)").

A table with an F column is read there (one closed roll); on a table
without one, ruling ``severity_f`` reads an E and a C (two closed rolls),
or the E alone. Kestrel's Spear (sample-spear, INVENTED, OB 70) against
Gruk (DB 20): 97 + 40 = 137 + 70 - 20 = 187, read as the top row 166-175.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

from affray.events import commands as cmd
from affray.events import rolemaster as rev
from affray.rules.base import RuleError
from affray.rules.rolemaster import tables as t

from rolemaster_fight import Fight, sheet

A, R, ROLL = cmd.DeclareAttack, cmd.ChooseReaction, cmd.RollPending()
SPEAR = {"name": "Spear", "kind": "melee", "ob": 70, "table": "sample-spear"}


def _fight(tmp_path, armour, **rulings):
    kestrel = sheet("kestrel", weapons=[SPEAR])
    f = Fight(tmp_path, rulings=rulings, sheets=((kestrel, "heroes"), (sheet("gruk", armour=armour, hits=200), "orcs")))
    f.run(cmd.StartRound(), "10,5,3,4")
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="none"), "97,40")
    return f


@pytest.mark.parametrize("text,severity,crit_type", [("24F", "F", ""), ("21FS", "F", "S"), ("7E", "E", "")])
def test_an_f_cell_parses(text, severity, crit_type):
    """The cell grammar: N + severity A-F + an optional type letter."""
    cell = t.parse_cell(text)
    assert (cell.severity, cell.crit_type) == (severity, crit_type)


def test_a_severity_beyond_f_is_refused():
    with pytest.raises(ValueError, match="severity.A-F."):
        t.parse_cell("9G")


def test_a_critical_table_may_have_an_f_column_and_no_other():
    tab = t.load_file(Path(t.DATA) / "sample-puncture.toml")
    assert tab.columns == ("A", "B", "C", "D", "E", "F")
    bad = (Path(t.DATA) / "sample-puncture.toml").read_text().replace('"F"]', '"G"]')
    with pytest.raises(t.TableError, match="severities A-F, not G"):
        t.parse_table("bad.toml", msgspec.toml.decode(bad))


def test_f_read_in_the_tables_own_f_column(tmp_path):
    """sample-spear 166-175, none: 24F (puncture); sample-puncture has an
    F column: one closed roll, 10: F row 1-25, +10 hits, stunned and
    unable to parry 2 rounds, 2 hits per round."""
    f = _fight(tmp_path, "none")
    step = f.state.pending[0]
    assert step.kind == "critical" and step.data["severity"] == "F" and len(step.dice) == 1
    f.run(ROLL, "10")
    looked = f.events(rev.CriticalLookedUp)
    assert not f.events(rev.CriticalSplit)
    assert [(c.severity, c.roll, c.row_low, c.row_high) for c in looked] == [("F", 10, 1, 25)]
    g = f.who("gruk")
    assert g.location("body").hp == 200 - 24 - 10 and g.has("stunned-no-parry") and g.effect("bleed") == 2


def test_f_without_an_f_column_is_an_e_plus_a_c(tmp_path):
    """sample-spear 166-175, soft: 21FS, a slash F; sample-slash has no F
    column: an E critical (10: +6 hits, stunned 1 round) plus a C critical
    (30: +4 hits, stunned 1 round), two closed rolls (A11, RMC)."""
    f = _fight(tmp_path, "soft")
    step = f.state.pending[0]
    assert len(step.dice) == 2 and "E + C" in step.prompt
    f.run(ROLL, "10,30")
    split = f.events(rev.CriticalSplit)[-1]
    assert (split.table, split.severity, split.parts) == ("sample-slash", "F", ("E", "C"))
    looked = f.events(rev.CriticalLookedUp)
    assert [(c.severity, c.roll, c.row_low) for c in looked] == [("E", 10, 1), ("C", 30, 21)]
    g = f.who("gruk")
    assert g.location("body").hp == 200 - 21 - 6 - 4
    assert next(k for k in g.conditions if k.name == "stunned").ends.count == 2  # 1 + 1, cumulative
    assert f.state.exchange is None


def test_f_as_e_alone_is_a_ruling(tmp_path):
    """Ruling severity_f=e: an F on a table without an F column reads the E only."""
    f = _fight(tmp_path, "soft", severity_f="e")
    assert len(f.state.pending[0].dice) == 1
    f.run(ROLL, "10")
    assert [c.severity for c in f.events(rev.CriticalLookedUp)] == ["E"]
    assert f.who("gruk").location("body").hp == 200 - 21 - 6


def test_an_f_on_a_table_missing_e_is_refused_in_one_line(tmp_path):
    """A table without the columns an F needs: one line, nothing appended."""
    (tmp_path / "camp").mkdir()
    slash = (Path(t.DATA) / "sample-slash.toml").read_text()
    small = re.sub(r", E = \{[^}]*\} \}", " }", slash).replace('columns = ["A", "B", "C", "D", "E"]', 'columns = ["A", "B", "C", "D"]')
    (tmp_path / "camp" / "sample-slash.toml").write_text(small)
    kestrel = sheet("kestrel", weapons=[SPEAR])
    f = Fight(tmp_path, rulings={"tables": str(tmp_path / "camp")},
              sheets=((kestrel, "heroes"), (sheet("gruk", armour="soft", hits=200), "orcs")))
    f.run(cmd.StartRound(), "10,5,3,4")
    f.run(A(attacker="kestrel", target="gruk"))
    before = f.version
    with pytest.raises(RuleError, match="has no column E"):
        f.run(R(defender="gruk", reaction="none"), "97,40")
    assert f.version == before
