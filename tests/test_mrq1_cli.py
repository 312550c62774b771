"""The mrq1 combat actions from the command line (CliRunner): the ``act``
action text, the attack options, and bad input: ONE ``error:`` line, exit
2, nothing appended (DESIGN.md invariant 4).

Sources: seed 004_71637fb3cfde52c9.txt "Charge" (at least five metres),
"Precise Attack" (not in a flurry), "Parry" (ranged attacks may not be
parried), "Combat Actions".
"""

from __future__ import annotations

import pytest

from conftest import GORP, VASANA, assert_user_error, copy_sheet


def refused(cli, args, *fragments):
    before = cli.events()
    line = assert_user_error(cli(*args), *fragments)
    assert cli.events() == before, f"{args}: events appended on error"
    return line


def test_charge_shorter_than_five_metres_is_refused(fight):
    refused(fight, ["attack", "vasana", "broo1", "--charge", "4", "--dice", "30"], "at least 5 m")


def test_precise_attack_in_a_flurry_is_refused(fight):
    refused(fight, ["attack", "vasana", "broo1", "--flurry", "--precise", "head", "--dice", "30"],
            "precise attacks may not be made as part of a flurry")


@pytest.fixture
def archer(cli, tmp_path):
    sling = copy_sheet(GORP, tmp_path / "gorp.json", ('"ready": ["Club"]', '"ready": ["Sling"]'))
    cli.ok("new", "Ambush", "--system", "mrq1", "--seed", "00ff" * 8)
    cli.ok("join", VASANA, "--side", "heroes")
    cli.ok("join", sling, "--side", "trolls")
    cli.ok("start", "--dice", "1,10")  # Vasana 14, Gorp 21
    return cli


def test_parry_against_a_ranged_attack_is_refused(archer):
    out = archer.ok("attack", "gorp", "vasana", "--weapon", "sling", "--range", "30", "--dice", "20")
    assert "dodge | none" in out.stdout
    refused(archer, ["react", "vasana", "parry", "--dice", "10,10"], "ranged attacks may not be parried")
    archer.ok("react", "vasana", "dodge", "--dice", "10,80")


def test_act_takes_an_action_text_with_options(fight):
    out = fight.ok("act", "vasana", "move", "6", "to=broo1")
    assert "Broo 1 may make a free attack on Vasana" in out.stdout
    fight.ok("react", "broo1", "none")
    assert fight.combatant("vasana")["engaged"] == ["broo1"]
    assert fight.combatant("vasana")["moved_m"] == 6.0


def test_act_skill_use_takes_dice(fight):
    out = fight.ok("act", "vasana", "skill", "Acrobatics", "--dice", "10")
    assert "Acrobatics 10 vs 30%" in out.stdout  # First Aid needs target= (test_mrq1_fidelity)


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["act", "vasana", "dance"], "unknown action 'dance'"),
        (["act", "vasana", "move", "9"], "at most 8 m"),
        (["act", "vasana", "retreat"], "not fighting anyone"),
        (["act", "vasana", "aim", "broo1"], "holds no ranged weapon"),
        (["act", "vasana", "stance", "flying"], "stance takes one of"),
        (["act", "vasana", "ready", "Fist"], "always ready"),
        (["act", "vasana", "cast"], "cast what?"),
        (["act", "vasana", "delay"], "delay how?"),
        (["act", "gm", "area", "2D6"], "whom does it hit?"),
        (["attack", "vasana", "broo1", "--charge", "17"], "at most 16 m"),
        (["attack", "vasana", "broo1", "--precise", "elbow"], "unknown precise attack"),
        (["attack", "vasana", "broo1", "--range", "30"], "ranged attacks"),
        (["attack", "vasana", "broo1", "--off-hand", "--precise", "head"], "precise"),
    ],
    ids=lambda v: v if isinstance(v, str) else " ".join(v[:4]),
)
def test_bad_actions_are_one_line_and_append_nothing(fight, args, fragment):
    refused(fight, args, fragment)


def test_charge_from_the_cli_rolls_the_bonus(fight):
    out = fight.ok("attack", "vasana", "broo1", "--charge", "10", "--dice", "30")
    assert "Vasana moves 10 m (charge)" in out.stdout
    pending = fight.pending()
    if pending[0]["kind"] == "react":
        fight.ok("react", "broo1", "none")
        pending = fight.pending()
    assert any(d["purpose"] == "charge bonus" for d in pending[0]["dice"])


def test_act_skill_refuses_an_unknown_option_and_first_aid_without_a_patient(fight):
    """Issue 15, mrq1 items 9 and 1 on the command line: ``act … skill``
    refuses an unknown key=value, and First Aid names its patient (seed
    004 "Serious Wound": "or the character receives First Aid")."""
    refused(fight, ["act", "vasana", "skill", "Acrobatics", "tagret=broo1", "--dice", "10"], "skill does not take tagret=broo1")
    refused(fight, ["act", "vasana", "skill", "First Aid", "--dice", "10"], "First Aid on whom?")
    refused(fight, ["act", "vasana", "skill", "First Aid", "target=broo1", "--dice", "10"],
            "Broo 1 has no Serious or Major Wound or impaling weapon that First Aid treats")
