"""rolemaster from the command line: bad input is one line, exit 2 and
nothing appended (DESIGN.md invariant 4); a campaign's own tables; the
rulings listing; the demo with engine and table dice."""

from __future__ import annotations

from pathlib import Path

import pytest

from affray.commands.demo import examples_dir
from affray.rules.rolemaster import tables as t

from conftest import Cli, assert_user_error, event_count

EX = examples_dir() / "rolemaster"


@pytest.fixture
def cli(tmp_path):
    return Cli(tmp_path / "rm.db")


def opened(cli, *rulings: str):
    """An encounter with the default rulings (resolution=when-spent: an
    attack declared at Kestrel's count 45 resolves at 25, after Gruk has
    declared at 32; Gruk passes with ``act gruk pass`` in these tests)."""
    args = ["new", "RM", "--system", "rm", "--manual-dice"]
    for r in rulings:
        args += ["--ruling", r]
    cli.ok(*args)
    cli.ok("join", str(EX / "kestrel.toml"), "--side", "heroes")
    cli.ok("join", str(EX / "gruk.toml"), "--side", "orcs")
    cli.ok("start", "--dice", "10,5,3,4")


def test_parry_larger_than_ob(cli):
    opened(cli)
    cli.ok("attack", "kestrel", "gruk")
    cli.ok("act", "gruk", "pass")  # Gruk declares at 32; Kestrel's attack resolves at 25
    before = event_count(cli.db)
    assert_user_error(cli("react", "gruk", "parry:75", "--dice", "50"), "at most 60")
    assert event_count(cli.db) == before
    assert_user_error(cli("act", "kestrel", "parry", "99"), "has attacked this round")
    assert event_count(cli.db) == before


def test_dodge_while_holding_a_weapon_without_a_ruling(cli):
    """seed 000 'Dodge action': for a character without a usable weapon."""
    opened(cli)
    cli.ok("attack", "kestrel", "gruk")
    cli.ok("act", "gruk", "pass")  # Gruk declares at 32; Kestrel's attack resolves at 25
    before = event_count(cli.db)
    assert_user_error(cli("react", "gruk", "dodge", "--dice", "50,50"), "parry, none")
    assert event_count(cli.db) == before


def test_a_malformed_table_cell_in_the_campaign_tables(cli, tmp_path):
    """The campaign's folder (--ruling tables=DIR) is searched first; a bad
    cell refuses the attack with the file, row and column, and nothing is
    appended."""
    camp = tmp_path / "campaign"
    camp.mkdir()
    text = (Path(t.DATA) / "sample-broadsword.toml").read_text().replace('"9AK"', '"9A!"')
    (camp / "sample-broadsword.toml").write_text(text)
    opened(cli, f"tables={camp}")
    cli.ok("attack", "kestrel", "gruk")
    cli.ok("act", "gruk", "pass")  # Gruk declares at 32; Kestrel's attack resolves at 25
    before = event_count(cli.db)
    line = assert_user_error(cli("react", "gruk", "none", "--dice", "50"), "sample-broadsword.toml", "row 7", "'plate'")
    assert "9A!" in line
    assert event_count(cli.db) == before


def test_campaign_tables_from_the_sheet(cli, tmp_path):
    """A sheet's ``tables`` folder (relative to the sheet) is searched
    before the samples: a CSV broadsword whose every cell is 1 hit."""
    camp = tmp_path / "sheets" / "tables"
    camp.mkdir(parents=True)
    (camp / "sample-broadsword.csv").write_text(
        "# kind: attack\n# source: campaign test table\n# fumble_range: 1,1\n"
        "total,none,soft,rigid,plate\n-999..999,1,1,1,1\n")
    sheet = (EX / "kestrel.toml").read_text().replace('db = 0\n', 'db = 0\ntables = "tables"\n')
    (tmp_path / "sheets" / "kestrel.toml").write_text(sheet)
    cli.ok("new", "RM", "--system", "rolemaster", "--manual-dice")
    cli.ok("join", str(tmp_path / "sheets" / "kestrel.toml"), "--side", "heroes")
    cli.ok("join", str(EX / "gruk.toml"), "--side", "orcs")
    cli.ok("start", "--dice", "10,5,3,4")
    cli.ok("attack", "kestrel", "gruk")
    cli.ok("act", "gruk", "pass")  # Gruk declares at 32; Kestrel's attack resolves at 25
    out = cli.ok("react", "gruk", "none", "--dice", "99,99,50")
    assert "1 hits" in out.output
    why = cli.ok("why", "gruk", "body").output
    assert "table sample-broadsword" in why and "column rigid" in why and "cell 1" in why
    assert "roll: 99 + 99 + 50 = 248" in why and "DB 20: +5 DB (sheet), +15 Quickness" in why


def test_bad_rulings_and_bad_sheets(cli, tmp_path):
    assert_user_error(cli("new", "RM", "--system", "rm", "--ruling", "attack_roll=sideways"), "attack_roll")
    bad = tmp_path / "bad.toml"
    bad.write_text((EX / "gruk.toml").read_text().replace('table = "sample-club"', 'table = ""'))
    cli.ok("new", "RM", "--system", "rm")
    assert_user_error(cli("join", str(bad), "--side", "orcs"), "names no attack table")


def test_unknown_action_and_situation(cli):
    opened(cli)
    before = event_count(cli.db)
    assert_user_error(cli("act", "kestrel", "cartwheel"), "unknown action")
    assert_user_error(cli("attack", "kestrel", "gruk", "--situation", "flank"), "unknown situation")
    assert event_count(cli.db) == before


def test_rulings_are_listed():
    from typer.testing import CliRunner

    from affray.cli.app import app

    out = CliRunner().invoke(app, ["rulings", "--system", "rolemaster"])
    assert out.exit_code == 0
    for name in ("open_ended_cap", "attack_roll", "parry_missiles", "unusual_checks", "surprise_worst",
                 "dodge_without_table", "dodge_and_parry", "dodge_armed", "stun_penalty", "late_stun", "tables",
                 "turn_order", "severity_f", "full_cover", "charge_bonus", "knockback_table", "death_at", "death_delay",
                 "resolution", "held_action", "charge_maneuver", "charge_timing"):
        assert name in out.output


def test_why_shows_the_whole_lookup_chain(cli):
    """issue 13: roll, OB, DB with its parts, table, row, column, cell, then
    the critical roll, table, column and effects."""
    opened(cli)
    cli.ok("attack", "kestrel", "gruk", "--situation", "parry=20")
    cli.ok("act", "gruk", "pass")  # Gruk declares at 32; Kestrel's attack resolves at 25
    cli.ok("react", "gruk", "parry:30", "--dice", "97,40")
    cli.ok("roll", "--dice", "60")
    out = cli.ok("why", "gruk", "staggered").output
    for want in ("roll: 97 + 40 = 137 (open-ended; first die 97, fumble range 1-3)",
                 "OB +50: +70 Broadsword OB, -20 OB moved to parry",
                 "DB 50: +5 DB (sheet), +15 Quickness (3 x Qu bonus), +30 parry (OB moved)",
                 "total 137 +50 −50 = 137",
                 "row 126..140, column rigid, cell 11B → 11 hits + B critical (S)",
                 "critical roll 60 (closed) on sample-slash (S), column B, row 51..80",
                 "effects: hits 3, knocked_back 5"):
        assert want in out, want
    data = cli.ok("why", "gruk", "staggered", "--json").output
    assert '"kind": "critical"' in data or '"kind":"critical"' in data


@pytest.mark.parametrize("extra", [[], ["--table-dice"]])
def test_demo_plays_to_the_end(tmp_path, extra):
    out = Cli(tmp_path / "demo.db")("demo", "--system", "rolemaster", *extra)
    assert out.exit_code == 0, out.output
    assert "Demo over" in out.output and "winner: " in out.output



@pytest.mark.parametrize("script,golden_name", [("sample-fight.sh", "rolemaster.md"),
                                                ("sample-countdown.sh", "rolemaster-countdown.md")])
def test_the_sample_fight_script_is_the_golden_fight(tmp_path, script, golden_name):
    """examples/rolemaster/sample-fight.sh (ruling resolution=when-declared)
    and sample-countdown.sh (the default rulings: the countdown, actions
    resolving when their AP are spent, a held attack, a cancel), typed verb
    by verb, write the golden fights' markdown: a whole fight from the CLI."""
    import shlex

    cli = Cli(tmp_path / "s.db")
    for line in (EX / script).read_text().splitlines():
        if line.startswith("affray "):
            args = [str(EX / a) if a.endswith(".toml") else a for a in shlex.split(line)[1:]]
            cli.ok("--as", "gm", *args)
    md = cli.ok("export", "--format", "markdown", "--view", "record").output
    golden = (Path(__file__).resolve().parent / "golden" / golden_name).read_text(encoding="utf-8")
    # the CLI adds the footer (seed commitment, log head) after the record
    assert md.strip().startswith(golden.strip())
    assert "Log head: version" in md[len(golden.strip()):]


def test_a_sheet_with_a_campaign_csv_table(cli):
    """examples/rolemaster/mira.toml reads its Dagger table from a CSV file
    beside it: 60 + 55 - (Qu 30 + shield 20) = 65 on campaign-dagger, soft: 2."""
    cli.ok("new", "RM", "--system", "rm", "--manual-dice")
    cli.ok("join", str(EX / "mira.toml"), "--side", "heroes")
    cli.ok("join", str(EX / "kestrel.toml"), "--side", "rivals")
    cli.ok("start", "--dice", "10,10,1,1")
    cli.ok("attack", "mira", "kestrel")
    cli.ok("act", "kestrel", "pass")
    out = cli.ok("react", "kestrel", "none", "--dice", "60").output
    assert "Mira: 60=60 +55 OB −50 DB = 65 on campaign-dagger [46..70, soft] → 2: 2 hits" in out


def test_why_shows_the_charge(cli):
    """issue 13, 'why shows every lookup behind a result': a charge
    (RMH 'Charging'). 97 + 40 + 70 - 40 (run) - 20 = 147: rigid 13C; at
    3 m/s x2 hits and the critical raised one step, to D. The charge
    resolves as it is declared (ruling charge_timing=on-meeting)."""
    opened(cli)
    cli.ok("attack", "kestrel", "gruk", "--situation", "pace=run", "--situation", "charge=3")  # resolves at once
    cli.ok("react", "gruk", "none", "--dice", "80,97,40")  # the charge maneuver 80 + 30 = 110: easy 100
    cli.ok("roll", "--dice", "10")
    out = cli.ok("why", "gruk", "body").output
    assert "charge at 3 m/s: 13 hits -> 26, critical C -> D" in out
    # the charge's moving maneuver (RMH second-by-second 'Charge action') is in the chain too
    assert "charge: roll 80 = 80; +30 3 x Ag bonus (no skill applies); total 110" in out
    assert "table sample-moving-maneuver, column easy, row 101..150: value 100" in out


def test_why_shows_a_knock_back_into_a_wall(cli):
    """Seed 000 'Knocked Back' ('depending on terrain'): the stun the wall
    adds is traced to the knockback table's lookup."""
    opened(cli)
    cli.ok("act", "gruk", "terrain", "wall")
    cli.ok("attack", "kestrel", "gruk")
    cli.ok("act", "gruk", "pass")  # Gruk declares at 32; Kestrel's attack resolves at 25
    cli.ok("react", "gruk", "none", "--dice", "97,40")  # 187 -> 150: rigid 13C
    cli.ok("roll", "--dice", "00")  # C row 100: knocked back 10 feet
    out = cli.ok("why", "gruk", "stunned").output
    assert "knock-back into wall: table sample-knockback" in out and "effects: hits 5, stunned" in out


@pytest.mark.parametrize("args,message", [
    (["attack", "kestrel", "gruk", "--situation", "range=10"], "not a missile weapon"),
    (["attack", "kestrel", "gruk", "--situation", "cover=wall"], "unknown cover 'wall'"),
    (["attack", "kestrel", "gruk", "--situation", "charge=6"], "needs a running pace"),
    (["act", "kestrel", "reload"], "no missile weapon that needs reloading"),
    (["act", "gruk", "terrain", "lava"], "unknown terrain 'lava'"),
])
def test_new_situations_bad_input(cli, args, message):
    """Missiles, charges, reloading and terrain: one line, exit 2, nothing appended."""
    opened(cli)
    before = event_count(cli.db)
    assert_user_error(cli(*args), message)
    assert event_count(cli.db) == before


def test_why_shows_every_lookup_behind_a_stun_on_the_countdown(cli):
    """issue 13 'Done when': `why` shows every lookup behind a result, for
    an exchange played with the default rulings (the attack declared on
    45, resolved on 25): the open-ended roll, OB and DB with their parts,
    the attack table's row, column and cell, then the critical table's
    roll, column, row, text and effects (seed 000 'Attack Procedure' 1-5,
    'Effects from Criticals'; rules-reference.md A11)."""
    opened(cli)
    out = cli.ok("attack", "kestrel", "gruk", "--situation", "parry=20").output
    assert "resolving on 25" in out
    cli.ok("act", "gruk", "pass")
    cli.ok("react", "gruk", "parry:30", "--dice", "97,40")
    cli.ok("roll", "--dice", "85")
    out = cli.ok("why", "gruk", "stunned").output
    for want in ("roll: 97 + 40 = 137 (open-ended; first die 97, fumble range 1-3)",
                 "OB +50: +70 Broadsword OB, -20 OB moved to parry",
                 "DB 50: +5 DB (sheet), +15 Quickness (3 x Qu bonus), +30 parry (OB moved)",
                 "row 126..140, column rigid, cell 11B → 11 hits + B critical (S)",
                 "critical roll 85 (closed) on sample-slash (S), column B, row 81..99",
                 "effects: hits 5, stunned",
                 # the stun state: -50 modified by +3x SD bonus (-5): -65; Gruk had passed (no AP
                 # left), so its round begins next round (seed 000 "for ß rounds", ruling late_stun)
                 "Gruk: stunned since round 1", "penalty -65, cannot-attack, half-parry", "late"):
        assert want in out, want
    assert "table sample-broadsword sha256" in out
