"""uesrpg from the command line (CliRunner): a fight typed by hand with the
defence before the roll, ``why`` showing both rolls with their DoS, the row
and the Advantages, the rulings list, and bad input: ONE ``error:`` line,
exit 2, nothing appended (DESIGN.md invariant 4; seed 003 Steps 2-4)."""

from __future__ import annotations

import json
import shlex

import pytest

from affray.commands.demo import examples_dir
from conftest import assert_user_error

HROLFDAR = examples_dir() / "uesrpg" / "hrolfdar.toml"
VETHIS = examples_dir() / "uesrpg" / "vethis.toml"


def refused(cli, args, *fragments):
    before = cli.events()
    line = assert_user_error(cli(*args), *fragments)
    assert cli.events() == before, f"{args}: events appended on error"
    return line


@pytest.fixture
def duel(cli):
    cli.ok("new", "Dunmer road", "--system", "ues", "--manual-dice")
    cli.ok("join", HROLFDAR, "--side", "heroes", "--handle", "hrolfdar")
    cli.ok("join", VETHIS, "--side", "sellswords", "--handle", "vethis")
    cli.ok("start", "--dice", "6,1")
    return cli


def test_the_pending_defence_comes_before_the_roll(duel):
    """Seed 003 Step 2: 'pending' after an attack names the defender's react, with no dice."""
    duel.ok("attack", "hrolfdar", "vethis")
    pending = duel.json("pending")
    step = pending[0] if isinstance(pending, list) else pending["steps"][0]
    assert step["who"] == "vethis" and step["verb"] == "react"


def test_a_defence_declared_after_the_attack_roll(duel):
    duel.ok("attack", "hrolfdar", "vethis")
    duel.ok("react", "vethis", "none")
    duel.ok("roll", "--dice", "50")
    refused(duel, ["react", "vethis", "parry"], "too late", "before the attacker rolls")


def test_the_attack_roll_is_not_typed_with_the_attack(duel):
    """The attack's d100 belongs to the roll step after the defence: dice typed with 'attack' are refused."""
    refused(duel, ["attack", "hrolfdar", "vethis", "--dice", "50"], "the attack roll comes after the defence")


def test_an_advantage_on_a_ranged_attack(duel):
    duel.ok("act", "hrolfdar", "pass")
    duel.ok("attack", "vethis", "hrolfdar", "--weapon", "short bow")
    duel.ok("react", "hrolfdar", "evade")
    duel.ok("roll", "--dice", "20,90")
    refused(duel, ["choose", "vethis", "press-advantage"], "ranged attack cannot gain or use Advantage")


def test_a_block_without_a_shield(cli, tmp_path):
    bare = tmp_path / "bare.toml"
    text = HROLFDAR.read_text(encoding="utf-8")
    cut = text.index("[[shields]]")
    bare.write_text(text[:cut] + text[text.index("[armour]"):], encoding="utf-8")
    bare.write_text(bare.read_text(encoding="utf-8").replace('weapons = ["Steel Axe", "Iron Shield"]', 'weapons = ["Steel Axe"]'),
                    encoding="utf-8")
    cli.ok("new", "No shield", "--system", "uesrpg", "--manual-dice")
    cli.ok("join", bare, "--side", "heroes", "--handle", "hrolfdar")
    cli.ok("join", VETHIS, "--side", "sellswords", "--handle", "vethis")
    cli.ok("start", "--dice", "6,1")
    cli.ok("act", "hrolfdar", "pass")
    cli.ok("attack", "vethis", "hrolfdar")
    refused(cli, ["react", "hrolfdar", "block"], "no shield to block with")


def test_other_bad_input(duel):
    refused(duel, ["attack", "vethis", "hrolfdar"], "Hrolfdar's Turn")
    refused(duel, ["attack", "hrolfdar", "vethis", "--weapon", "halberd"], "no weapon, shield or spell")
    refused(duel, ["act", "hrolfdar", "dance"], "unknown action")
    duel.ok("attack", "hrolfdar", "vethis")
    refused(duel, ["react", "vethis", "riposte"], "cannot riposte here")
    refused(duel, ["roll", "--dice", "50"], "chooses a defence first")


def test_why_shows_both_rolls_the_row_and_the_advantages(duel):
    """The log shows why an exchange went its way: both tests with DoS, the row, the Advantage."""
    duel.ok("attack", "hrolfdar", "vethis")
    duel.ok("react", "vethis", "parry")
    duel.ok("roll", "--dice", "27,90")  # Lucky 27: critical, 2 DoS; parry fails: two Advantages
    duel.ok("choose", "hrolfdar", "precision-strike:left leg")
    duel.ok("choose", "hrolfdar", "forceful-impact")
    duel.ok("roll", "--dice", "6,6")  # 14 - (1 - 1) = 14 > WT 10: a wound
    duel.ok("roll", "--dice", "90")  # Shock Test fails: the leg is lost
    out = duel.ok("why", "vethis", "HP").stdout
    assert "Hrolfdar 27 vs 65% critical, 2 DoS" in out
    assert "parry 90 vs 66% failure, 3 DoF" in out
    assert "one fails: the attack hits" in out and "gains 2 Advantages" in out
    assert "Precision Strike: left leg" in out and "Forceful Impact" in out
    data = json.loads(duel.ok("why", "vethis", "lost-limb", "--json").stdout)
    texts = [link["text"] for chain in data["chains"] for link in chain["links"]]
    assert any(t.startswith("Combat roll:") for t in texts)
    assert "every blow is under 'why vethis HP'" in duel.ok("why", "vethis", "left leg").stdout


def test_rulings_are_listed(cli):
    out = cli.ok("rulings", "--system", "uesrpg").stdout
    for name in ("parry_evade_tie", "roll_100_over_tn", "special_advantage", "lucky_numbers", "hit_location"):
        assert name in out


def test_demo_plays_to_the_end_with_table_dice(cli):
    out = cli.ok("demo", "--system", "uesrpg", "--table-dice", "--seed", "0a").stdout
    assert "Demo over with table dice" in out and "winner:" in out


def test_the_sample_fight_script_plays_as_the_golden_fight(cli):
    """examples/uesrpg/sample-fight.sh, line by line through the CLI, ends as
    tests/test_uesrpg_golden.py works out: Vethis out at -2 HP, Hrolfdar at 15."""
    folder = examples_dir() / "uesrpg"
    for line in (folder / "sample-fight.sh").read_text(encoding="utf-8").splitlines():
        if not line.startswith("affray "):
            continue
        args = shlex.split(line)[1:]
        if args[0] == "join":
            args[1] = str(folder / args[1])
        cli.ok(*args)
    assert cli.combatant("vethis")["status"] == "unconscious"
    hp = {c["handle"]: next(l["hp"] for l in c["locations"] if l["name"] == "HP") for c in cli.state()["combatants"]}
    assert hp == {"hrolfdar": 15, "vethis": -2}


def test_an_area_spell_against_two_defenders_from_the_cli(cli, tmp_path):
    """Seed 003 Step 4 (several defenders) typed by hand: ``attack A T1,T2``
    with an item whose sheet allows 2 targets; each defender reacts before
    the one roll; a target out of the spell's range, or a third target, is
    refused with one line and nothing appended."""
    text = VETHIS.read_text().replace('type = "fire"', 'type = "fire"\ntargets = 2\nrange = 20.0')
    caster = tmp_path / "vethis.toml"
    caster.write_text(text)
    brynja = tmp_path / "brynja.toml"
    brynja.write_text(HROLFDAR.read_text().replace('name = "Hrolfdar"', 'name = "Brynja"'))
    cli.ok("new", "Ash storm", "--system", "ues", "--manual-dice")
    cli.ok("join", HROLFDAR, "--side", "heroes", "--handle", "hrolfdar")
    cli.ok("join", brynja, "--side", "heroes", "--handle", "brynja")
    cli.ok("join", caster, "--side", "sellswords", "--handle", "vethis")
    cli.ok("start", "--dice", "1,1,6")
    refused(cli, ["attack", "vethis", "hrolfdar,brynja,hrolfdar", "--weapon", "firebite"], "named once")
    refused(cli, ["attack", "vethis", "hrolfdar", "--weapon", "firebite", "--situation", "distance:25"], "beyond Firebite's range")
    cli.ok("attack", "vethis", "hrolfdar,brynja", "--weapon", "firebite")
    cli.ok("react", "hrolfdar", "evade")
    cli.ok("react", "brynja", "block")
    cli.ok("roll", "--dice", "20,70,30")
    log = cli.ok("log").stdout
    assert "Vethis Ilnoth attacks Hrolfdar and Brynja with Firebite" in log
