"""rolemaster tables: the documented format, every kind of error, the
shipped INVENTED samples, the static maneuver bands and ``affray tables
check`` (seed 000 "Attack Procedure", "Dodge action"; rules-reference.md
A4, A8, A10, A11, "Shape of an attack table")."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from affray.cli.app import app
from affray.rules.rolemaster import tables as t

ATTACK_TOML = """
kind = "attack"
source = "test table"
columns = ["none", "plate"]
critical_type = "S"
criticals = { S = "sample-slash", K = "sample-krush" }
fumble_range = [1, 2]
max_total = 120
rows = [
  [[-999, 50], ["-", "-"]],
  [[51, 100], ["5", "2"]],
  [[101, 120], ["9B", "4AK"]],
]
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def error_of(tmp_path: Path, name: str, text: str) -> str:
    with pytest.raises(t.TableError) as info:
        t.load_file(write(tmp_path, name, text))
    msg = str(info.value)
    assert "\n" not in msg and name in msg
    return msg


# --------------------------------------------------------------------------- #
# cells
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("text,hits,sev,typ", [
    ("-", 0, "", ""), ("0", 0, "", ""), ("7", 7, "", ""), ("10D", 10, "D", ""), ("5AS", 5, "A", "S"),
    ("18E", 18, "E", ""), ("1BK", 1, "B", "K"),
])
def test_cell_grammar(text, hits, sev, typ):
    """Shape of an attack table: a miss, hits, or hits + severity + type."""
    c = t.parse_cell(text)
    assert (c.hits, c.severity, c.crit_type) == (hits, sev, typ)


@pytest.mark.parametrize("text", ["7X", "A5", "-3", "1000", "5G", "5a", "x", "5 A"])
def test_malformed_cells_are_refused(text):
    with pytest.raises(ValueError):
        t.parse_cell(text)


# --------------------------------------------------------------------------- #
# good tables in every format
# --------------------------------------------------------------------------- #


def test_attack_table_toml_lookup_every_row_boundary(tmp_path):
    """Rows are ranges of the modified total; totals above max_total read
    the top row; totals below the first row read it (A "Shape")."""
    tab = t.load_file(write(tmp_path, "a.toml", ATTACK_TOML))
    assert isinstance(tab, t.AttackTable) and tab.name == "a"
    cases = {-5000: "-", 50: "-", 51: "5", 100: "5", 101: "9B", 120: "9B", 121: "9B", 999: "9B"}
    for total, raw in cases.items():
        row, cell, read = tab.lookup(total, "none")
        assert cell.raw == raw, total
    assert tab.lookup(999, "none")[2] == 120
    assert tab.lookup(110, "plate")[1].crit_type == "K"
    with pytest.raises(KeyError):
        tab.lookup(60, "leather")


def test_attack_table_yaml_and_csv_read_alike(tmp_path):
    yaml = """
kind: attack
source: test table
columns: [none, plate]
critical_type: S
criticals: {S: sample-slash, K: sample-krush}
rows:
  - [[-999, 50], ["-", "-"]]
  - [[51, 100], ["5", "2"]]
  - [[101, 120], ["9B", "4AK"]]
"""
    csv = "# kind: attack\n# source: test table\n# critical_type: S\n# criticals: S=sample-slash;K=sample-krush\n" \
          "total,none,plate\n-999..50,-,-\n51..100,5,2\n101-120,9B,4AK\n"
    a = t.load_file(write(tmp_path, "a.yaml", yaml))
    b = t.load_file(write(tmp_path, "b.csv", csv))
    assert a.columns == b.columns == ("none", "plate")
    assert a.rows == b.rows


def test_critical_and_fumble_tables_in_csv(tmp_path):
    crit = "# kind: critical\n# type: S\n# source: test\n# columns: A,B\nroll,severity,text,effects\n" \
           "1..50,A,Graze.,hits=1\n1..50,B,Cut.,hits=2;stunned=1\n51..100,A,Hit.,hits=3;prone\n51..100,B,Down.,dead\n"
    c = t.load_file(write(tmp_path, "c.csv", crit))
    assert isinstance(c, t.CriticalTable) and c.crit_type == "S"
    row, cell = c.lookup(51, "A")
    assert (row.low, cell.hits, cell.prone) == (51, 3, True)
    assert c.lookup(100, "B")[1].dead
    mm = "# kind: moving-maneuver\n# source: test\n# columns: hard\nroll,column,text,effects\n" \
         "-999..0,hard,You fall.,prone\n1..999,hard,,value=30\n"
    m = t.load_file(write(tmp_path, "m.csv", mm))
    assert isinstance(m, t.ManeuverTable) and m.lookup(50, "hard")[1].value == 30 and m.lookup(-5, "hard")[1].prone
    st = "# kind: static-maneuver\n# source: test\ntotal,outcome,value,text\n-999..74,failure,0,\n75..999,success,100,Done.\n"
    s = t.load_file(write(tmp_path, "s.csv", st))
    assert isinstance(s, t.StaticTable) and s.lookup(80)[1].text == "Done." and s.lookup(0)[1].outcome == "failure"
    fum = "# kind: fumble\n# source: test\nroll,text,effects\n1..60,Slip.,\n61..100,Drop it.,drop_weapon\n"
    f = t.load_file(write(tmp_path, "f.csv", fum))
    assert f.lookup(60)[1].text == "Slip." and f.lookup(61)[1].drop_weapon


def test_moving_maneuver_ends_of_the_column(tmp_path):
    """Dodge: off the bottom is a fumble; off the top gives the column's
    highest number and its text (seed 000 "Dodge action")."""
    m = t.load_file(Path(t.DATA) / "sample-moving-maneuver.toml")
    row, cell, where = m.lookup(-500, "extremely-hard")
    assert where == "bottom" and cell.prone
    row, cell, where = m.lookup(900, "extremely-hard")
    assert where == "top" and cell.value == 60 and cell.text
    row, cell, where = m.lookup(61, "extremely-hard")
    assert where == "" and cell.value == 20


# --------------------------------------------------------------------------- #
# bad tables: every kind of error names the file, the row and the column
# --------------------------------------------------------------------------- #

BAD = {
    "bad-cell": (ATTACK_TOML.replace('"4AK"', '"4AX7"'), ["row 3", "column 'plate'", "'4AX7'"]),
    "cell-count": (ATTACK_TOML.replace('["5", "2"]', '["5"]'), ["row 2", "1 cells for 2 columns"]),
    "overlap": (ATTACK_TOML.replace("[[51, 100]", "[[50, 100]"), ["row 2", "overlaps"]),
    "gap": (ATTACK_TOML.replace("[[51, 100]", "[[53, 100]"), ["row 2", "51..52 fall between rows"]),
    "backwards": (ATTACK_TOML.replace("[[51, 100]", "[[100, 51]"), ["row 2", "runs backwards"]),
    "range": (ATTACK_TOML.replace("[[51, 100]", "[[51, 'x']"), ["row 2", "is not [LOW, HIGH]"]),
    "row-shape": (ATTACK_TOML.replace('[[51, 100], ["5", "2"]]', '[[51, 100]]'), ["row 2", "a row is [[LOW, HIGH], CELLS]"]),
    "kind": (ATTACK_TOML.replace('kind = "attack"', 'kind = "armour"'), ["kind 'armour'"]),
    "source": (ATTACK_TOML.replace('source = "test table"', 'source = " "'), ["source note"]),
    "unknown-key": (ATTACK_TOML + "\ncolour = 3\n", ["colour"]),
    "no-type": (ATTACK_TOML.replace('critical_type = "S"', 'critical_type = ""'), ["row 3", "column 'none'", "no type letter"]),
    "no-critical-table": (ATTACK_TOML.replace('criticals = { S = "sample-slash", K = "sample-krush" }', "criticals = {}"),
                          ["row 3", "column 'none'", "no critical table named for type 'S'"]),
    "fumble": (ATTACK_TOML.replace("fumble_range = [1, 2]", "fumble_range = [5, 2]"), ["fumble_range"]),
    "no-columns": (ATTACK_TOML.replace('columns = ["none", "plate"]', "columns = []"), ["needs columns"]),
    "no-rows": ('kind = "fumble"\nsource = "x"\nrows = []\n', ["no rows"]),
    "toml-syntax": ("kind = \n", ["not valid TOML"]),
    "closed": ('kind = "fumble"\nsource = "x"\nrows = [[[1, 50], { text = "a" }]]\n', ["covers 1..100", "1..50"]),
    "effect-type": ('kind = "fumble"\nsource = "x"\nrows = [[[1, 100], { text = "a", hits = "lots" }]]\n',
                    ["row 1", "column 'result'", "hits"]),
    "effect-unknown": ('kind = "fumble"\nsource = "x"\nrows = [[[1, 100], { text = "a", explode = true }]]\n',
                       ["row 1", "explode"]),
    "crit-columns": ('kind = "critical"\ntype = "S"\nsource = "x"\ncolumns = ["A", "Z"]\n'
                     'rows = [[[1, 100], { A = {}, Z = {} }]]\n', ["severities A-F", "Z"]),
    "crit-letter": ('kind = "critical"\nsource = "x"\ncolumns = ["A"]\nrows = [[[1, 100], { A = {} }]]\n', ["type letter"]),
    "crit-missing-cell": ('kind = "critical"\ntype = "S"\nsource = "x"\ncolumns = ["A", "B"]\n'
                          'rows = [[[1, 100], { A = {} }]]\n', ["row 1", "column 'B'", "missing"]),
    "crit-extra-cell": ('kind = "critical"\ntype = "S"\nsource = "x"\ncolumns = ["A"]\n'
                        'rows = [[[1, 100], { A = {}, C = {} }]]\n', ["row 1", "column 'C'", "not a column"]),
    "crit-cell-shape": ('kind = "critical"\ntype = "S"\nsource = "x"\ncolumns = ["A"]\n'
                        'rows = [[[1, 100], ["x"]]]\n', ["row 1", "one entry per column"]),
    "maneuver-columns": ('kind = "moving-maneuver"\nsource = "x"\ncolumns = ["trivial"]\n'
                         'rows = [[[1, 100], { trivial = {} }]]\n', ["difficulties", "trivial"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_tables_give_one_line_naming_file_row_column(tmp_path, case):
    text, wanted = BAD[case]
    msg = error_of(tmp_path, f"{case}.toml", text)
    for w in wanted:
        assert w in msg, (case, msg)


def test_bad_csv_tables(tmp_path):
    msg = error_of(tmp_path, "r.csv", "# kind: attack\n# source: x\ntotal,none\n1..50,-\nfifty,3\n")
    assert "row 2" in msg and "column 'total'" in msg and "'fifty'" in msg
    msg = error_of(tmp_path, "e.csv", "# kind: fumble\n# source: x\nroll,text,effects\n1..100,Oops,hits=many\n")
    assert "row 1" in msg and "column 'effects'" in msg
    assert "# kind: KIND" in error_of(tmp_path, "k.csv", "total,none\n1..100,3\n")
    msg = error_of(tmp_path, "v.csv", "# kind: static-maneuver\n# source: x\ntotal,outcome,value\n-999..999,success,lots\n")
    assert "row 1" in msg and "column 'value'" in msg
    msg = error_of(tmp_path, "c.csv", "# kind: attack\n# source: x\ntotal,none\n1..100,7Q\n")
    assert "row 1" in msg and "column 'none'" in msg


def test_unreadable_and_unknown_format(tmp_path):
    with pytest.raises(t.TableError, match="cannot read"):
        t.load_file(tmp_path / "missing.toml")
    error_of(tmp_path, "x.txt", "kind = 'attack'")
    assert "mapping" in error_of(tmp_path, "l.yaml", "- 1\n- 2\n")


# --------------------------------------------------------------------------- #
# shipped samples and the static bands
# --------------------------------------------------------------------------- #


def test_shipped_samples_are_marked_invented_and_valid():
    """The published tables are copyrighted: every shipped table but the
    static bands (figures from rules-reference.md A8) says INVENTED."""
    sources = t.sources()
    assert set(sources) >= {"sample-broadsword", "sample-club", "sample-slash", "sample-krush",
                            "sample-weapon-fumble", "sample-moving-maneuver", "static-maneuver"}
    for name, source in sources.items():
        if name.startswith("situations: "):  # RMH rules-text figures (cover, pace, charge, terrain), cited
            assert source.startswith("RMH ")
        elif name != "static-maneuver":
            assert "INVENTED" in source and "not from any published" in source
            assert "INVENTED" in (Path(t.DATA) / f"{name}.toml").read_text()


@pytest.mark.parametrize("total,outcome", [
    (-1000, "spectacular-failure"), (-26, "spectacular-failure"), (-25, "absolute-failure"), (4, "absolute-failure"),
    (5, "failure"), (66, "failure"), (75, "failure"), (76, "partial-success"), (90, "partial-success"),
    (91, "near-success"), (100, "near-success"), (110, "near-success"), (111, "success"), (175, "success"),
    (176, "absolute-success"), (1000, "absolute-success"),
])
def test_static_maneuver_band_boundaries(total, outcome):
    """rules-reference.md A8: every band boundary."""
    assert t.static_band(total).outcome == outcome


def test_static_bands_are_contiguous_with_percentages():
    bands = t.STATIC_BANDS
    assert bands[0].low is None and bands[-1].high is None
    for a, b in zip(bands, bands[1:]):
        assert b.low == a.high + 1
    assert [b.percent for b in bands] == [0, 0, 0, 20, 80, 100, 120]


def test_difficulty_modifiers():
    """rules-reference.md A7."""
    assert [t.DIFFICULTY_MODS[d] for d in t.DIFFICULTIES] == [30, 20, 10, 0, -10, -20, -30, -50, -70]


# --------------------------------------------------------------------------- #
# affray tables check
# --------------------------------------------------------------------------- #


def test_tables_check_cli(tmp_path):
    runner = CliRunner()
    good = write(tmp_path, "good.toml", ATTACK_TOML)
    out = runner.invoke(app, ["tables", "check", str(good), str(Path(t.DATA) / "sample-slash.toml")])
    assert out.exit_code == 0, out.output
    assert "OK:" in out.output and "attack table good" in out.output and "critical table sample-slash" in out.output
    bad = write(tmp_path, "bad.toml", BAD["bad-cell"][0])
    out = runner.invoke(app, ["tables", "check", str(bad)])
    assert out.exit_code == 2
    lines = [ln for ln in out.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and "row 3" in lines[0] and "'plate'" in lines[0]


STATIC_TOML = """
kind = "static-maneuver"
source = "test static table"
rows = [
  [[-999, 50], { outcome = "failure" }],
  [[51, 80], { outcome = "partial-success", value = 25, text = "half-way" }],
  [[81, 999], { outcome = "success", value = 100 }],
]
"""


def test_static_maneuver_table_of_the_campaign(tmp_path):
    """The issue's user-supplied static-maneuver tables: rows by total, an
    outcome of A8's names, off either end the end row."""
    tab = t.load_file(write(tmp_path, "s.toml", STATIC_TOML))
    assert isinstance(tab, t.StaticTable)
    assert [tab.lookup(x)[1].outcome for x in (-5000, 50, 51, 80, 81, 5000)] == [
        "failure", "failure", "partial-success", "partial-success", "success", "success"]
    msg = error_of(tmp_path, "bad-static.toml", STATIC_TOML.replace('"success", value', '"triumph", value'))
    assert "row 3" in msg and "'result'" in msg and "triumph" in msg


def test_tables_check_finds_the_tables_an_attack_table_names(tmp_path):
    """An attack table's critical and fumble tables must exist beside it or
    among the samples, or the check fails naming the missing one."""
    runner = CliRunner()
    bad = write(tmp_path, "axe.toml", ATTACK_TOML.replace('K = "sample-krush"', 'K = "my-krush"'))
    out = runner.invoke(app, ["tables", "check", str(bad)])
    assert out.exit_code == 2 and "critical table 'my-krush' (type K) is not found" in out.output
    write(tmp_path, "my-krush.toml", (Path(t.DATA) / "sample-krush.toml").read_text())
    out = runner.invoke(app, ["tables", "check", str(bad)])
    assert out.exit_code == 0, out.output


@given(st.integers(1, 999), st.sampled_from(["", "A", "B", "C", "D", "E"]), st.sampled_from(["", "S", "K", "P"]))
def test_cell_grammar_round_trips(hits, sev, typ):
    typ = typ if sev else ""
    c = t.parse_cell(f"{hits}{sev}{typ}")
    assert (c.hits, c.severity, c.crit_type, c.raw) == (hits, sev, typ, f"{hits}{sev}{typ}")


@given(st.text(max_size=8))
def test_any_cell_text_parses_or_is_refused_in_one_line(text):
    try:
        t.parse_cell(text)
    except ValueError as exc:
        assert "\n" not in str(exc)


@pytest.mark.parametrize("name", ["sample-broadsword", "sample-club", "sample-spear"])
def test_every_cell_of_the_sample_attack_tables_is_reached_at_its_row_ends(name):
    tab = t.load_file(Path(t.DATA) / f"{name}.toml")
    for row, cells in tab.rows:
        for col, cell in zip(tab.columns, cells):
            for total in (max(row.low, -100), row.high):
                assert tab.lookup(total, col)[1] == cell
            if cell.severity:
                assert (cell.crit_type or tab.critical_type) in tab.criticals


@pytest.mark.parametrize("name", ["sample-slash", "sample-krush", "sample-puncture"])
def test_every_cell_of_the_sample_critical_tables(name):
    """A closed d100: every roll 1..100 reads exactly one row, in every column."""
    tab = t.load_file(Path(t.DATA) / f"{name}.toml")
    for roll in range(1, 101):
        hits = [row for row, _ in tab.rows if row.low <= roll <= row.high]
        assert len(hits) == 1
        for sev in tab.columns:
            row, cell = tab.lookup(roll, sev)
            assert cell.text and (cell.hits or cell.dead or cell.unconscious)
