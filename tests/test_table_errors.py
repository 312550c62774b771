"""Issue 16's four tracebacks, now one-line errors, and numbers typed in
other scripts' digits or beyond sane bounds refused (exit 2, nothing
appended)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from affray.events import core as ev
from affray.store import EventStore

from conftest import assert_user_error

EX = Path(__file__).resolve().parents[1] / "examples"

SHEETS = {
    "mrq1": ("mrq1/vasana.toml", "mrq1/broo.toml"),
    "mythras": ("mythras/kaelin.toml", "mythras/grusk.toml"),
    "rq3": ("rq3/vasana.toml", "rq3/gorakh.toml"),
    "rolemaster": ("rolemaster/kestrel.toml", "rolemaster/gruk.toml"),
    "uesrpg": ("uesrpg/hrolfdar.toml", "uesrpg/vethis.toml"),
}


@pytest.mark.parametrize("at", ["9223372036854775808", "\u0661.\u0662", "1.9223372036854775808", "1e3", " ", "1..2"])
def test_state_at_takes_ascii_digits_within_bounds(fight, at):
    line = assert_user_error(fight("state", "--at", at))
    assert "ROUND" in line or "count from 0" in line


def test_state_at_negative_still_says_rounds_count_from_0(fight):
    assert_user_error(fight("state", "--at", "-1"), "count from 0")


def test_rewind_to_a_huge_round_is_one_line(fight):
    count = fight.events()
    assert_user_error(fight("rewind", "--to", "99999999999999999999"), "ascii digits")
    assert fight.events() == count


@pytest.mark.parametrize(
    "mod,fragment",
    [("\u0661\u0660:x", "ascii digits"), ("99999999999999999999999:x", "out of bounds"), ("-1000:mud", "-999 to +999"),
     ("+\u0665:x", "ascii digits")],
)
def test_modifiers_take_ascii_digits_within_bounds(fight, mod, fragment):
    count = fight.events()
    assert_user_error(fight("attack", "vasana", "broo1", "--mod", mod, "--dice", "30"), fragment)
    assert fight.events() == count


def test_modifier_at_the_bound_is_taken(fight):
    fight.ok("attack", "vasana", "broo1", "--mod", "-999:blind and upside down", "--dice", "30")


@pytest.mark.parametrize("system", sorted(SHEETS))
@pytest.mark.parametrize("fmt", ["toml", "yaml"])
def test_a_5000_digit_integer_in_a_sheet_is_one_line(cli, tmp_path, system, fmt):
    cli.ok("new", "Big", "--system", system, "--seed", "01" * 16)
    text = (EX / SHEETS[system][0]).read_text(encoding="utf-8")
    if fmt == "toml":
        big = re.sub(r"(?m)^(\w+\s*=\s*)\d+", lambda m: m.group(1) + "9" * 5000, text, count=1)
        assert big != text
    else:
        big = "name: Big\nstr: " + "9" * 5000 + "\n"
    path = tmp_path / f"big.{fmt}"
    path.write_text(big, encoding="utf-8")
    count = cli.events()
    assert_user_error(cli("join", path, "--side", "x"), "big." + fmt, "not valid")
    assert cli.events() == count


def _append(db: Path, *events: ev.Event) -> None:
    store = EventStore(str(db))
    try:
        eid = store.encounter_ids()[-1]
        v = store.version(eid)
        store.append(eid, v, list(events), command_id=f"c{v + 1}", actor="gm")
    finally:
        store.close()


def test_verify_dice_on_an_engine_roll_without_a_number(fight):
    store = EventStore(str(fight.db))
    seed = store.get_seed(store.encounter_ids()[-1])
    store.close()
    _append(fight.db, ev.DiceRolled(purpose="forged", expr="1D6", faces=(3,), total=3, source="engine", index=-1),
            ev.EncounterClosed(seed=seed.hex()))
    result = fight("verify", "--dice")
    assert "Traceback" not in result.output
    assert result.exit_code == 1 and "has no roll number" in result.output


@pytest.mark.parametrize("system", sorted(SHEETS))
def test_roll_awaiting_damage_with_no_open_exchange(cli, system):
    hero, foe = SHEETS[system]
    cli.ok("new", "Forged", "--system", system, "--seed", "01" * 16)
    cli.ok("join", EX / hero, "--side", "h", "--handle", "hero")
    cli.ok("join", EX / foe, "--side", "f", "--handle", "foe")
    cli.ok("start")
    _append(cli.db, ev.StepsAwaited(steps=(ev.PendingStep(
        who="hero", verb="roll", prompt="roll damage", kind="damage", dice=(ev.DiceNeed(purpose="damage", expr="1D8"),),
    ),)))
    count = cli.events()
    assert_user_error(cli("roll"), "no exchange is open")
    assert cli.events() == count
