"""The human views: ``state`` as plain aligned text, ``log`` plain off a
terminal (rich on one), and the read path's imports kept light."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from affray.cli.tables import log_lines, render_log, state_lines
from affray.events.core import Condition, ConditionEnd
from affray.projections.state import Combatant, Location, State


def _state() -> State:
    locs = (Location("right leg", 5, 5, 1), Location("chest", 1, 7, 3, wound="serious"), Location("head", 5, 5))
    cond = Condition(
        id="k1", name="impaled", cause=42, since_round=2, since_step=3,
        ends=ConditionEnd(kind="event"), location="chest",
    )
    vasana = Combatant(
        handle="vasana", name="Vasana", side="heroes", sheet={}, locations=locs,
        max_combat_actions=3, max_reactions=3, combat_actions=1, reactions=2, conditions=(cond,),
    )
    broo = Combatant(
        handle="broo1", name="Broo 1", side="broo", sheet={}, locations=locs[:1],
        max_combat_actions=3, max_reactions=3, stance="prone", status="unconscious",
    )
    return State(
        name="Ford", system="mrq1", version=57, round=2, step=4, phase="round",
        combatants={"vasana": vasana, "broo1": broo}, turn=("vasana",),
    )


def test_state_lines_one_block_per_combatant():
    text = "\n".join(state_lines(_state()))
    assert text.splitlines()[0] == "Ford (mrq1) — version 57, round 2, step 4, round"
    assert "Acting now: Vasana" in text
    lines = text.splitlines()
    header = next(l for l in lines if l.startswith("Combatant"))
    vasana = next(l for l in lines if l.startswith("Vasana (vasana)"))
    broo = next(l for l in lines if l.startswith("Broo 1 (broo1)"))
    # the summary columns line up: side, status, CA, React
    for word, row in [(" heroes ", vasana), (" broo ", broo)]:
        assert row.index(word) + 1 == header.index("Side")
    assert vasana.split()[-2:] == ["1/3", "2/3"]
    assert "unconscious, prone" in broo
    assert vasana.index("1/3") == header.index("CA")
    # locations: name, HP/max, AP, wound; conditions with their cause
    assert any(l.split() == ["chest", "1/7", "AP3", "serious"] for l in lines)
    assert any(l.split() == ["head", "5/5"] for l in lines)
    assert "condition: impaled (chest) since 2.3 ← v42" in text
    assert "conditions: none" in text
    assert not any(l != l.rstrip() for l in lines)


def test_state_lines_setup_and_empty():
    text = "\n".join(state_lines(State(name="Ford", system="mrq1", version=1)))
    assert "version 1, not started" in text
    assert "No combatants yet" in text


class _Entry:
    def __init__(self, version, round_, actor, status, text):
        self.version, self.round, self.actor, self.status, self.text = version, round_, actor, status, text


def test_log_plain_strikes_through_undone_entries(capsys):
    items = [
        _Entry(1, 0, "sam", "live", "Encounter opened"),
        _Entry(7, 1, "sam", "retracted", "Vasana attacks Broo 1"),
        _Entry(8, 1, "sam", "meta", "Undo"),
        _Entry(9, 1, "sam", "void", "[b]not markup[/b]"),
    ]
    assert log_lines(items) == [
        "Setup",
        "  v1    sam      Encounter opened",
        "Round 1",
        "  v7    sam      ~~Vasana attacks Broo 1~~ (retracted)",
        "  v8    sam      Undo",
        "  v9    sam      ~~[b]not markup[/b]~~ (void)",
    ]
    render_log(items)  # captured: not a terminal, plain text
    assert capsys.readouterr().out.splitlines() == log_lines(items)
    render_log(items, color=True)  # rich, as on a terminal
    out = capsys.readouterr().out
    assert "Vasana attacks Broo 1" in out and "(retracted)" in out and "[b]not markup[/b]" in out


def test_cli_state_and_log_are_plain_text(fight):
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    fight.ok("undo")
    state = fight.ok("state").stdout
    assert "Ford (mrq1) — version" in state and "round 1" in state
    assert "Vasana (vasana)" in state and "Broo 1 (broo1)" in state
    assert "┃" not in state and "│" not in state  # no rich table
    log = fight.ok("log").stdout
    assert "~~Vasana attacks Broo 1 with Broadsword~~ (retracted)" in log


_PROBE = textwrap.dedent(
    """
    import sys
    from affray.cli.app import main
    sys.argv = ["affray"] + sys.argv[1:]
    try:
        main()
    except SystemExit:
        pass
    heavy = sorted(m for m in ("rich", "pygments", "markdown_it", "hashlib", "affray.store.chain",
                               "affray.store.verify", "sqlite_utils") if m in sys.modules)
    print("HEAVY", ",".join(heavy), file=sys.stderr)
    """
)


@pytest.mark.parametrize("argv", [["--help"], ["state", "--help"], ["state"], ["state", "--at", "1"]])
def test_read_path_imports_stay_light(fight, argv):
    """Neither help nor ``state`` imports rich (and so pygments), the hash
    chain, the verifier or sqlite-utils."""
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, "--db", str(fight.db), *argv],
        capture_output=True, text=True, check=False, cwd=fight.db.parent,
        env={"PATH": "", "AFFRAY_ACTOR": "test", "PYTHONDONTWRITEBYTECODE": "1"},
    )
    line = next(l for l in proc.stderr.splitlines() if l.startswith("HEAVY"))
    assert ("Usage: affray" if "--help" in argv else "Ford (mrq1)") in proc.stdout, proc.stderr[-500:]
    assert line.split(" ", 1)[1:] in ([], [""]), (line, proc.stdout[-500:])


# --------------------------------------------------------------------------- #
# The console script's fast path (affray.cli.main) prints what the Typer verbs print
# --------------------------------------------------------------------------- #


def test_fast_path_matches_the_typer_verbs(tmp_path):
    import subprocess
    import sys

    from typer.testing import CliRunner

    from affray.cli.app import app

    db = str(tmp_path / "fast.db")
    runner = CliRunner()
    assert runner.invoke(app, ["--db", db, "demo", "--seed", "0c" * 16], catch_exceptions=False).exit_code == 0
    script = [sys.executable, "-c", "import sys; from affray.cli.main import main; sys.argv[0] = 'affray'; main()"]
    for args in (["state"], ["state", "--json"], ["pending"], ["pending", "--json"]):
        fast = subprocess.run(script + ["--db", db, *args], capture_output=True, text=True)
        slow = runner.invoke(app, ["--db", db, *args], catch_exceptions=False)
        assert fast.returncode == slow.exit_code == 0
        assert fast.stdout == slow.stdout, args
    # the fast path never imports typer; an unknown database is one line, exit 2
    probe = subprocess.run(
        [sys.executable, "-c",
         "import sys; from affray.cli.dispatch import answer; code = answer(['--db', sys.argv[1], 'state']); "
         "print('typer' in sys.modules, code)", db],
        capture_output=True, text=True,
    )
    assert probe.stdout.split()[-2:] == ["False", "0"]
    missing = subprocess.run(script + ["--db", str(tmp_path / "none.db"), "state"], capture_output=True, text=True)
    assert missing.returncode == 2
    assert missing.stderr.startswith("error: no database at") and missing.stderr.count("\n") == 1
