"""Hostile ``--dice`` text and dice expressions, fuzzed with hypothesis (issue 6).

:func:`affray.dice.parse_values`, :func:`~affray.dice.face_from_token`,
:func:`~affray.dice.parse` and the :class:`~affray.dice.Roller` either
answer or raise a :class:`~affray.dice.DiceError` whose text is one line;
nothing else escapes them. Through the CLI, at each step that takes dice
(strike ranks, an attack, a parry, the damage roll, the end of a round), a
random ``--dice`` either is taken or is refused with one ``error:`` line,
exit 2, and nothing appended.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from affray import dice
from affray.store import EventStore

from conftest import copy_log, Cli, assert_clean_outcome, fuzz_case, fuzz_examples

FUZZ = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

numbers = st.one_of(
    st.integers(0, 120).map(str),
    st.integers(0, 10**30).map(str),
    st.sampled_from(["0", "00", "000", "07", "100", "0100", "10", "9" * 5000, "-3", "+3", "3.5", "1e2", "0x10", "½",
                     "٣", "３", "¹", "Ⅻ", "7a", "", " "]),
)
separators = st.sampled_from([",", ", ", " ", ",,", ";", "\t", "\n", "\u00a0", "\u2003", "\x00", "/", "-", "|"])
dice_text = st.one_of(
    st.lists(st.tuples(numbers, separators), max_size=6).map(lambda xs: "".join(n + s for n, s in xs)),
    st.text(max_size=20),
    st.text(alphabet="0123456789, ", max_size=20),
)
expressions = st.one_of(
    st.text(max_size=20),
    st.text(alphabet="0123456789dD%+- ", max_size=16),
    st.builds(
        lambda c, s, op, k: f"{c}D{s}{op}{k}",
        st.integers(-2, 200), st.integers(-2, 20_000), st.sampled_from(["+", "-", "*", "", " + "]), st.integers(-5, 10**12),
    ),
)


def _one_line(exc: Exception) -> None:
    text = str(exc)
    assert text and "\n" not in text and "\r" not in text, repr(text)


@settings(max_examples=fuzz_examples(500), **FUZZ)
@given(text=dice_text)
def test_parse_values(text):
    fuzz_case("dice")
    try:
        tokens = dice.parse_values(text)
    except dice.DiceError as exc:
        _one_line(exc)
        return
    assert tokens and all(t.isascii() and t.isdigit() for t in tokens)
    assert dice.parse_values(",".join(tokens)) == tokens


@settings(max_examples=fuzz_examples(500), **FUZZ)
@given(token=numbers, sides=st.one_of(st.sampled_from([2, 4, 6, 8, 10, 12, 20, 100]), st.integers(2, dice.MAX_SIDES)))
def test_face_from_token(token, sides):
    fuzz_case("dice")
    try:
        face = dice.face_from_token(token, sides)
    except dice.DiceError as exc:
        _one_line(exc)
        return
    assert 1 <= face <= sides


@settings(max_examples=fuzz_examples(500), **FUZZ)
@given(expr=expressions)
def test_parse_expressions(expr):
    fuzz_case("dice")
    try:
        e = dice.parse(expr)
    except dice.DiceError as exc:
        _one_line(exc)
        return
    assert dice.parse(str(e)) == e  # the normal form reads back the same
    assert e.minimum() <= e.maximum()
    assert len(e.dice) <= dice.MAX_DICE


@settings(max_examples=fuzz_examples(300), **FUZZ)
@given(
    text=dice_text,
    exprs=st.lists(st.sampled_from(["1D100", "1D10", "1D8+1D4", "1D20", "2D6+1", "3", "", "1D4-1"]), max_size=4),
    manual=st.booleans(),
)
def test_roller(text, exprs, manual):
    """A command's dice: table values first, then the engine (or, in manual
    mode, a refusal); every user error is one DiceError line."""
    fuzz_case("dice")
    try:
        roller = dice.Roller(b"seed", "ford", 0, dice.parse_values(text), manual=manual, typed_by="sam")
        rolls = [roller.roll(e, f"roll {i}") for i, e in enumerate(exprs)]
        roller.finish()
    except dice.DiceError as exc:
        _one_line(exc)
        return
    for r, e in zip(rolls, exprs):
        assert r.total == dice.parse(e).total(r.faces)


# --------------------------------------------------------------------------- #
# --dice through the CLI, at every step that takes dice
# --------------------------------------------------------------------------- #


@pytest.fixture(scope="module")
def dice_steps(_templates, tmp_path_factory) -> dict[str, tuple[Path, list[str]]]:
    """One log per step that takes dice, each with the command to type there:
    engine and manual dice alike."""
    root = tmp_path_factory.mktemp("fuzz-dice")
    steps: dict[str, tuple[Path, list[str]]] = {}

    def at(name: str, template: str, setup: list[list[str]], command: list[str]) -> None:
        db = root / f"{name}.db"
        copy_log(_templates(template), db)
        runner = Cli(db)
        for argv in setup:
            runner.ok(*argv)
        with closing(sqlite3.connect(db)) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        steps[name] = (db, command)

    for mode, duel, fight in (("engine", "duel", "fight"), ("manual", "manual_duel", "manual_fight")):
        at(f"{mode}-start", duel, [], ["start"])
        at(f"{mode}-attack", fight, [], ["attack", "vasana", "broo1"])
        at(f"{mode}-parry", fight, [["attack", "vasana", "broo1", "--dice", "34"]], ["react", "broo1", "parry"])
        at(
            f"{mode}-damage",
            fight,
            [["attack", "vasana", "broo1", "--dice", "34"], ["react", "broo1", "parry", "--dice", "71,34"]],
            ["roll"],
        )
        at(f"{mode}-end-round", fight, [], ["end-round"])
    return steps


@settings(max_examples=fuzz_examples(80), **FUZZ)
@given(
    step=st.sampled_from(
        [f"{m}-{s}" for m in ("engine", "manual") for s in ("start", "attack", "parry", "damage", "end-round")]
    ),
    text=st.one_of(dice_text, st.lists(st.integers(0, 101).map(str), min_size=1, max_size=4).map(",".join)),
    reroll=st.sampled_from([None, "", "the dog ate the die", "'; DROP TABLE events; --"]),
)
def test_dice_at_every_step(cli, dice_steps, tmp_path, step, text, reroll):
    template, command = dice_steps[step]
    db = tmp_path / "dice.db"
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    copy_log(template, db)
    before = Cli(db).events()
    argv = [*command, "--dice", text] + ([] if reroll is None else ["--reroll", reroll])
    result = cli(*argv, db=db)
    fuzz_case("dice")
    assert_clean_outcome(result)
    after = Cli(db).events()
    if result.exit_code:
        assert after == before, f"{argv}: events appended on error"
    else:
        assert after > before
    with EventStore(db, readonly=True) as store:
        assert store.verify() == []
