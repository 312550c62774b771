"""Readying a weapon already in hand is refused with one clear line, exit 2,
nothing appended (issue 16, item 7), in every system with a ready or draw
action: mrq1 ``ready``, Mythras ``ready:`` (which used to sheathe the weapon
and spend an Action Point; ``sheathe:`` now does that, on purpose), rq3's
``draw:`` in the Statement of Intent, Rolemaster's ``draw``. UESRPG has no
ready action: every weapon on its sheet is in hand from the start.

Each fight is the system's example duel through the CLI with a fixed seed
and encounter id; whoever the table waits for tries to ready each weapon
it holds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SEED, assert_user_error

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "affray" / "examples"

DUELS = {
    # system: (sheets, the action that readies WEAPON, what the line says)
    "mrq1": (("vasana.toml", "broo.toml"), "ready {weapon}", "{name} already holds {weapon} ready"),
    "mythras": (("kaelin.toml", "grusk.toml"), "ready:{weapon}",
                "{name} already holds {weapon} ready; to put it away: 'affray act {who} sheathe:{weapon}'"),
    "rq3": (("gorakh.toml", "vasana.toml"), "intent single draw:{weapon}", "{name} already holds {weapon} ready"),
    "rolemaster": (("kestrel.toml", "gruk.toml"), "draw {weapon}", "{name} already holds {weapon}"),
}


def duel(cli, system: str) -> dict:
    """The example duel, started; the combatant the table waits for (``state --json``)."""
    cli.ok("new", "Duel", "--system", system, "--seed", SEED, "--id", f"duel-{system}")
    for sheet, side in zip(DUELS[system][0], "ab"):
        cli.ok("join", EXAMPLES / system / sheet, "--side", side)
    cli.ok("start")
    return cli.combatant(cli.pending()[0]["who"])


@pytest.mark.parametrize("system", sorted(DUELS))
def test_readying_a_weapon_in_hand_is_refused(cli, system):
    c = duel(cli, system)
    _, action, line = DUELS[system]
    assert c["ready"], c  # the example holds a weapon
    for weapon in c["ready"]:
        if " " in weapon and system == "mrq1":
            continue  # mrq1's 'ready A B' readies two items, one word each
        before, state = cli.events(), cli.state()
        fill = {"weapon": weapon, "name": c["name"], "who": c["handle"]}
        words = [action.format(**fill)] if system == "mythras" else action.format(**fill).split()  # as a shell splits them
        assert_user_error(cli("act", c["handle"], *words), line.format(**fill))
        assert cli.events() == before  # nothing appended
        assert cli.state() == state


def test_mythras_sheathe_puts_a_weapon_away_for_one_action_point(cli):
    assert duel(cli, "mythras")["handle"] == "kaelin"
    ap = cli.combatant("kaelin")["combat_actions"]["left"]
    cli.ok("act", "kaelin", "sheathe:Longsword")
    kaelin = cli.combatant("kaelin")
    assert kaelin["ready"] == ["Heater Shield"]
    assert kaelin["combat_actions"]["left"] == ap - 1


def test_mythras_sheathe_refuses_a_weapon_not_in_hand_and_ready_draws_it_back(cli):
    assert duel(cli, "mythras")["handle"] == "kaelin"
    before = cli.events()
    assert_user_error(cli("act", "kaelin", "sheathe:Fist"), "Kaelin does not hold Fist", "nothing to sheathe")
    assert_user_error(cli("act", "kaelin", "sheathe"), "sheathe needs a weapon in hand", "Longsword, Heater Shield")
    assert cli.events() == before
    cli.ok("act", "kaelin", "sheathe:Longsword")
    cli.ok("act", "grusk", "pass")
    cli.ok("act", "kaelin", "ready:Longsword")  # her second Action Point: drawn again
    assert "Longsword" in cli.combatant("kaelin")["ready"]


def test_rq3_drawing_a_held_weapon_is_refused_in_any_statement(cli):
    assert duel(cli, "rq3")["handle"] == "gorakh"
    before = cli.events()
    assert_user_error(cli("act", "gorakh", "intent double draw:Maul"), "Gorakh already holds Maul ready")
    assert cli.events() == before
