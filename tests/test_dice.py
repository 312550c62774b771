"""Tests for affray.dice: expressions, the provably fair engine, table values.

The engine derivation is a public contract (affray/dice.py module docstring):
``reference_face`` below re-implements it from that text, and golden values
pin it so it can never drift.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from affray import dice
from affray.dice import engine as dice_engine
from affray.dice import (
    BadDiceValue,
    BadExpression,
    DiceError,
    EngineKey,
    Expr,
    MissingDice,
    PartialDice,
    Roller,
    TooManyDice,
    combine,
    commitment,
    count_dice,
    engine_face,
    face_from_token,
    needed_message,
    new_seed,
    parse,
    parse_values,
    rederive,
    salted_faces,
    salts_for,
)
from affray.events.core import DiceNeed, DiceRolled

SEED = bytes(range(32))
ENC = "ford-ambush"


def reference_face(seed: bytes, encounter_id: str, index: int, sides: int) -> int:
    """The derivation exactly as the module docstring states it."""
    limit = 2**64 - 2**64 % sides
    k = 0
    while True:
        msg = f"{encounter_id}:{index}" + (f":{k}" if k else "")
        d = hmac.new(seed, msg.encode(), hashlib.sha256).digest()
        for j in range(0, 32, 8):
            v = int.from_bytes(d[j : j + 8], "big")
            if v < limit:
                return 1 + v % sides
        k += 1


def reference_salted_face(seed: bytes, encounter_id: str, index: int, sides: int, salts) -> int:
    """The salted derivation as the module docstring states it ("Salts"):
    with salts, every block's message ends in ``:k:S``; without, it is
    :func:`reference_face`."""
    if not salts:
        return reference_face(seed, encounter_id, index, sides)
    digest = hashlib.sha256(b"".join(b"%d:%s" % (len(s.encode()), s.encode()) for s in salts)).hexdigest()
    limit = 2**64 - 2**64 % sides
    k = 0
    while True:
        d = hmac.new(seed, f"{encounter_id}:{index}:{k}:{digest}".encode(), hashlib.sha256).digest()
        for j in range(0, 32, 8):
            v = int.from_bytes(d[j : j + 8], "big")
            if v < limit:
                return 1 + v % sides
        k += 1


# --------------------------------------------------------------------------- #
# Engine dice
# --------------------------------------------------------------------------- #


def test_seed_and_commitment():
    seed = new_seed()
    assert isinstance(seed, bytes) and len(seed) == 32
    assert new_seed() != seed
    assert commitment(seed) == hashlib.sha256(seed).hexdigest()
    assert commitment(SEED) == (
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    )


def test_golden_values_pin_the_public_contract():
    assert [engine_face(SEED, ENC, i, 100) for i in range(8)] == [
        49, 36, 17, 13, 25, 71, 23, 34,
    ]
    assert [engine_face(SEED, ENC, i, 6) for i in range(8)] == [1, 4, 5, 1, 1, 3, 5, 2]
    assert [engine_face(SEED, ENC, i, 20) for i in range(8)] == [
        9, 16, 17, 13, 5, 11, 3, 14,
    ]


@settings(max_examples=300)
@given(
    seed=st.binary(min_size=1, max_size=64),
    encounter_id=st.text(max_size=20),
    index=st.integers(min_value=0, max_value=10**9),
    sides=st.integers(min_value=2, max_value=1000),
)
def test_engine_face_in_range_and_matches_reference(seed, encounter_id, index, sides):
    face = engine_face(seed, encounter_id, index, sides)
    assert 1 <= face <= sides
    assert face == reference_face(seed, encounter_id, index, sides)
    assert engine_face(seed, encounter_id, index, sides) == face  # deterministic


def test_engine_face_power_of_two_and_extremes():
    assert engine_face(SEED, ENC, 0, 1) == 1
    for sides in (2, 4, 8, 2**32, 2**64):
        for i in range(20):
            f = engine_face(SEED, ENC, i, sides)
            assert 1 <= f <= sides
            assert f == reference_face(SEED, ENC, i, sides)


def test_different_index_encounter_and_seed_change_the_roll():
    # d100 faces over 200 indices: not constant, not a simple pattern.
    faces = [engine_face(SEED, ENC, i, 100) for i in range(200)]
    assert len(set(faces)) > 50
    # Same index, other encounter id / seed: a different stream.
    assert faces != [engine_face(SEED, "other", i, 100) for i in range(200)]
    assert faces != [engine_face(bytes(32), ENC, i, 100) for i in range(200)]
    # Consecutive indices are not correlated: few equal neighbours on a d100.
    equal_neighbours = sum(a == b for a, b in zip(faces, faces[1:]))
    assert equal_neighbours < 10


@pytest.mark.parametrize("sides, bound", [(6, 30.0), (100, 170.0)])
def test_uniformity_chi_square(sides, bound):
    # 60k rolls, fixed seed: deterministic. Bounds are far above the chi-square
    # 99.9% quantiles (df=5: 20.5, df=99: 148.2).
    n = 60_000
    counts = Counter(engine_face(SEED, "uniformity", i, sides) for i in range(n))
    assert set(counts) == set(range(1, sides + 1))
    expected = n / sides
    chi2 = sum((counts[f] - expected) ** 2 / expected for f in range(1, sides + 1))
    assert chi2 < bound


def test_rejection_path_real_digest():
    # With sides = 2**63 + 1 about half of all chunks are rejected; index 12 of
    # this stream rejects all four chunks of the k=0 block.
    sides = 2**63 + 1
    block = hmac.new(SEED, f"{ENC}:12".encode(), hashlib.sha256).digest()
    chunks = [int.from_bytes(block[j : j + 8], "big") for j in range(0, 32, 8)]
    assert all(c >= sides for c in chunks)  # the k=0 block is rejected...
    face = engine_face(SEED, ENC, 12, sides)
    assert face == 8576934716286501830
    # ...so the face comes from the first accepted chunk of a k>=1 block.
    assert face == reference_face(SEED, ENC, 12, sides)
    k1 = hmac.new(SEED, f"{ENC}:12:1".encode(), hashlib.sha256).digest()
    first = next(
        v
        for v in (int.from_bytes(k1[j : j + 8], "big") for j in range(0, 32, 8))
        if v < sides
    )
    assert face == 1 + first % sides


def test_rejection_path_forced(monkeypatch):
    real = dice_engine._digest
    calls = []

    def fake(seed, encounter_id, index, k):
        calls.append(k)
        if k < 2:
            return b"\xff" * 32  # 2**64-1 is >= the limit for a d6: all rejected
        return real(seed, encounter_id, index, k)

    monkeypatch.setattr(dice_engine, "_digest", fake)
    face = engine_face(SEED, ENC, 5, 6)
    assert calls == [0, 1, 2]
    block = hmac.new(SEED, f"{ENC}:5:2".encode(), hashlib.sha256).digest()
    limit = 2**64 - 2**64 % 6
    first = next(
        v
        for v in (int.from_bytes(block[j : j + 8], "big") for j in range(0, 32, 8))
        if v < limit
    )
    assert face == 1 + first % 6


def test_rejection_limit_is_exact(monkeypatch):
    # A chunk just below the limit is accepted; one at the limit is rejected.
    limit = 2**64 - 2**64 % 6
    below = (limit - 1).to_bytes(8, "big")
    at = limit.to_bytes(8, "big")
    ok = (5).to_bytes(8, "big")
    monkeypatch.setattr(dice_engine, "_digest", lambda *a: below + ok * 3)
    assert engine_face(SEED, ENC, 0, 6) == 1 + (limit - 1) % 6
    monkeypatch.setattr(dice_engine, "_digest", lambda *a: at + ok * 3)
    assert engine_face(SEED, ENC, 0, 6) == 1 + 5 % 6


@pytest.mark.parametrize(
    "args",
    [
        (b"", ENC, 0, 6),
        (None, ENC, 0, 6),
        (SEED, ENC, -1, 6),
        (SEED, ENC, 0, 0),
        (SEED, ENC, 0, 2**64 + 1),
    ],
)
def test_engine_face_programming_errors(args):
    with pytest.raises(ValueError):
        engine_face(*args)


# --------------------------------------------------------------------------- #
# Expressions
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "text, normal, dice_, lo, hi",
    [
        ("1D100", "1D100", (100,), 1, 100),
        ("D20", "1D20", (20,), 1, 20),
        ("d20", "1D20", (20,), 1, 20),
        ("2D6", "2D6", (6, 6), 2, 12),
        ("1D8+1D4", "1D8+1D4", (8, 4), 2, 12),
        ("1d8 + 1d4", "1D8+1D4", (8, 4), 2, 12),
        ("1D6-1", "1D6-1", (6,), 0, 5),
        ("1D8+1D2", "1D8+1D2", (8, 2), 2, 10),
        ("-1D4", "-1D4", (4,), -4, -1),
        ("+1D4", "1D4", (4,), 1, 4),
        ("1D8-1D4", "1D8-1D4", (8, 4), -3, 7),
        ("3", "3", (), 3, 3),
        ("-2", "-2", (), -2, -2),
        ("", "0", (), 0, 0),
        ("D%", "1D100", (100,), 1, 100),
        ("1D6+2+1D4-1", "1D6+1D4+1", (6, 4), 3, 11),
    ],
)
def test_parse(text, normal, dice_, lo, hi):
    e = parse(text)
    assert str(e) == normal
    assert e.dice == dice_
    assert e.minimum() == lo
    assert e.maximum() == hi
    assert parse(str(e)) == e
    assert count_dice(text) == len(dice_)


def test_expr_shape_and_total():
    e = parse("1D8+1D4-1")
    assert e.terms == ((1, 1, 8), (1, 1, 4))
    assert e.constant == -1
    assert e.total((6, 3)) == 8
    assert parse("1D8-1D4").total((6, 3)) == 3
    assert parse("2D6").total((1, 6)) == 7
    assert parse("3").total(()) == 3
    with pytest.raises(ValueError):
        e.total((6,))
    with pytest.raises(ValueError):
        e.total((9, 1))
    assert parse(e) is e
    assert isinstance(e, Expr)
    with pytest.raises(Exception):
        e.constant = 3  # frozen


@pytest.mark.parametrize(
    "text, why",
    [
        ("x", "unexpected 'x' at position 1"),
        ("1D6 2", "unexpected '2' at position 5"),
        ("1D6+", "unexpected '+' at position 4"),
        ("1D6*2", "unexpected '*' at position 4"),
        ("2D", "unexpected 'D' at position 2"),
        ("1D0", "at least 2 sides"),
        ("1D1", "at least 2 sides"),
        ("0D6", "0D6 rolls no dice"),
        ("101D6", "at most 100 dice"),
        ("60D6+60D6", "at most 100 dice"),
        ("1D99999", "at most 10000 sides"),
        ("1" * 5000, "too large"),
        ("１D6", "unexpected"),  # a full-width digit
    ],
)
def test_parse_errors(text, why):
    with pytest.raises(BadExpression) as info:
        parse(text)
    msg = str(info.value)
    assert why in msg
    assert "\n" not in msg
    assert msg.endswith("write it like 1D100, 2D6, 1D8+1D4 or 1D6-1")
    assert isinstance(info.value, DiceError) and isinstance(info.value, ValueError)


terms_st = st.lists(
    st.tuples(
        st.sampled_from([1, -1]),
        st.integers(min_value=1, max_value=5),
        st.sampled_from([2, 3, 4, 6, 8, 10, 12, 20, 100]),
    ),
    max_size=4,
)


@given(terms=terms_st, constant=st.integers(-50, 50), data=st.data())
def test_expression_roundtrip_and_bounds(terms, constant, data):
    e = Expr(tuple(terms), constant)
    again = parse(str(e))
    assert again == e
    assert again.dice == e.dice
    faces = tuple(data.draw(st.integers(1, s)) for s in e.dice)
    assert e.minimum() <= e.total(faces) <= e.maximum()
    assert e.total(tuple(1 if s > 0 else d for s, d in zip(e.signs(), e.dice))) == e.minimum()
    assert e.total(tuple(d if s > 0 else 1 for s, d in zip(e.signs(), e.dice))) == e.maximum()


def test_combine():
    assert combine("1D8", "+1D4") == "1D8+1D4"
    assert combine("1D8", "1D4") == "1D8+1D4"
    assert combine("1D8", "-1D4") == "1D8-1D4"
    assert combine("1D8", "", "+1D4") == "1D8+1D4"
    assert combine("1D6+1", "1D4-3") == "1D6+1D4-2"
    assert combine("", "") == "0"
    assert combine() == "0"
    assert combine("1D6", "1D6") == "1D6+1D6"  # dice order kept, never merged
    assert combine(parse("2D6"), "3") == "2D6+3"
    with pytest.raises(BadExpression):
        combine("1D8", "x")


# --------------------------------------------------------------------------- #
# Table values
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("71", ["71"]),
        ("71,34", ["71", "34"]),
        ("71 34", ["71", "34"]),
        ("6, 3", ["6", "3"]),
        (" 6 ,3  12 ", ["6", "3", "12"]),
        ("00", ["00"]),
    ],
)
def test_parse_values(text, tokens):
    assert parse_values(text) == tokens


@pytest.mark.parametrize(
    "text, shown",
    [
        ("7a", "'7a' is not a dice value"),
        ("-3", "'-3' is not a dice value"),
        ("3.5", "'3.5' is not a dice value"),
        ("", "no dice values given"),
        ("   ", "no dice values given"),
        ("71,,34", "an empty dice value"),
        ("71,", "an empty dice value"),
    ],
)
def test_parse_values_garbage(text, shown):
    with pytest.raises(BadDiceValue) as info:
        parse_values(text)
    msg = str(info.value)
    assert msg.startswith(shown)
    assert "like --dice 71,34" in msg
    assert msg.endswith("Nothing was recorded.")
    assert "\n" not in msg


@pytest.mark.parametrize(
    "token, sides, face",
    [
        ("00", 100, 100),
        ("100", 100, 100),
        ("1", 100, 1),
        ("07", 100, 7),
        ("0", 10, 10),
        ("10", 10, 10),
        ("6", 6, 6),
        ("20", 20, 20),
    ],
)
def test_face_from_token(token, sides, face):
    assert face_from_token(token, sides) == face


@pytest.mark.parametrize(
    "token, sides, message",
    [
        ("0", 100, "d100 takes values 1–100 (00 is 100); got 0. Nothing was recorded."),
        ("101", 100, "d100 takes values 1–100 (00 is 100); got 101. Nothing was recorded."),
        ("000", 100, "d100 takes values 1–100 (00 is 100); got 000. Nothing was recorded."),
        ("11", 10, "d10 takes values 1–10 (0 is 10); got 11. Nothing was recorded."),
        ("00", 10, "d10 takes values 1–10 (0 is 10); got 00. Nothing was recorded."),
        ("0", 6, "d6 takes values 1–6; got 0. Nothing was recorded."),
        ("7", 6, "d6 takes values 1–6; got 7. Nothing was recorded."),
        ("0", 20, "d20 takes values 1–20; got 0. Nothing was recorded."),
    ],
)
def test_face_from_token_rejects(token, sides, message):
    with pytest.raises(BadDiceValue) as info:
        face_from_token(token, sides)
    assert str(info.value) == message
    assert info.value.sides == sides and info.value.value == token


def test_face_from_token_huge_value_stays_one_line():
    with pytest.raises(BadDiceValue) as info:
        face_from_token("9" * 5000, 100)
    assert len(str(info.value)) < 120


# --------------------------------------------------------------------------- #
# The roller
# --------------------------------------------------------------------------- #


def test_engine_rolls_use_consecutive_indices():
    r = Roller(SEED, ENC, next_index=3)
    attack = r.roll("1D100", "Vasana's attack", by="vasana")
    assert attack.source == "engine" and attack.index == 3
    assert attack.faces == (engine_face(SEED, ENC, 3, 100),)
    assert attack.total == attack.faces[0]
    assert attack.by == "vasana" and attack.typed_by == ""
    damage = r.roll("1d8+1d4", "damage")
    assert damage.expr == "1D8+1D4"
    assert damage.index == 4
    assert damage.faces == (engine_face(SEED, ENC, 4, 8), engine_face(SEED, ENC, 5, 4))
    assert damage.total == sum(damage.faces)
    assert r.next_index == 6
    r.finish()


def test_table_values_first_then_engine():
    r = Roller(SEED, ENC, 0, values=parse_values("71, 6 3"), typed_by="sam")
    parry = r.roll("1D100", "Broo 1's parry", by="broo1")
    assert parry == DiceRolled(
        purpose="Broo 1's parry", expr="1D100", faces=(71,), total=71,
        source="table", typed_by="sam", by="broo1",
    )
    damage = r.roll("1D8+1D4-1", "damage")
    assert (damage.faces, damage.total, damage.source) == ((6, 3), 8, "table")
    assert r.used_values == ("71", "6", "3")
    assert r.next_index == 0  # no engine roll yet
    loc = r.roll("1D20", "location")
    assert loc.source == "engine" and loc.index == 0 and loc.typed_by == ""
    assert r.next_index == 1
    r.finish()


def test_table_zero_mappings_in_roller():
    r = Roller(None, ENC, 0, values=["00", "0"])
    assert r.roll("1D100", "attack").faces == (100,)
    assert r.roll("1D10", "strike rank").faces == (10,)
    r.finish()


def test_bad_value_in_roller_consumes_nothing():
    r = Roller(SEED, ENC, 0, values=["0"])
    with pytest.raises(BadDiceValue) as info:
        r.roll("1D100", "Broo 1's parry")
    assert str(info.value) == "d100 takes values 1–100 (00 is 100); got 0. Nothing was recorded."
    assert info.value.purpose == "Broo 1's parry"
    assert r.used_values == () and r.next_index == 0
    with pytest.raises(BadDiceValue):
        Roller(SEED, ENC, 0, values=["7a"])


def test_second_die_of_expression_checked_against_its_own_sides():
    r = Roller(SEED, ENC, 0, values=["8", "5"])
    with pytest.raises(BadDiceValue) as info:
        r.roll("1D8+1D4", "damage")
    assert str(info.value).startswith("d4 takes values 1–4; got 5.")


def test_zero_dice_expression_consumes_nothing():
    r = Roller(SEED, ENC, 7, values=["12"], manual=True)
    rolled = r.roll("3", "flat bonus")
    assert rolled.faces == () and rolled.total == 3
    assert rolled.source == "engine" and rolled.index == -1
    assert r.roll("", "nothing").total == 0
    assert r.next_index == 7 and r.remaining_values == ("12",)


def test_manual_mode_raises_missing_dice():
    r = Roller(None, ENC, 0, values=["71"], manual=True, typed_by="sam")
    assert r.roll("1D100", "Broo 1's parry").faces == (71,)
    with pytest.raises(MissingDice) as info:
        r.roll("d100", "Vasana's attack, fresh roll")
    assert str(info.value) == (
        "missing dice: 1D100 (Vasana's attack, fresh roll); supply them with --dice"
    )
    assert info.value.needs == (("Vasana's attack, fresh roll", "1D100"),)
    assert r.next_index == 0


def test_needed_message_and_require():
    needs = [("Broo 1's parry", "1D100"), ("Vasana's attack, fresh roll", "d100")]
    expected = (
        "missing dice: 1D100 (Broo 1's parry), 1D100 (Vasana's attack, fresh roll); "
        "supply them with --dice"
    )
    assert needed_message(needs) == expected
    assert needed_message([DiceNeed(purpose="damage", expr="1d8+1d4")]) == (
        "missing dice: 1D8+1D4 (damage); supply them with --dice"
    )
    assert needed_message([("", "1D20")]) == "missing dice: 1D20; supply them with --dice"
    assert needed_message([]) == ""

    manual = Roller(None, ENC, 0, manual=True)
    with pytest.raises(MissingDice) as info:
        manual.require(needs)
    assert str(info.value) == expected

    # Values cover the first need: only the second is listed.
    partly = Roller(None, ENC, 0, values=["45"], manual=True)
    with pytest.raises(MissingDice) as info:
        partly.require(needs)
    assert info.value.needs == (("Vasana's attack, fresh roll", "d100"),)
    assert partly.remaining_values == ("45",)  # require consumes nothing

    Roller(None, ENC, 0, values=["45", "12"], manual=True).require(needs)
    Roller(SEED, ENC, 0).require(needs)  # engine mode: nothing is missing
    with pytest.raises(PartialDice):
        Roller(SEED, ENC, 0, values=["6"]).require([("damage", "1D8+1D4")])


def test_partial_expression_values_refused():
    r = Roller(SEED, ENC, 0, values=["6"], typed_by="sam")
    with pytest.raises(PartialDice) as info:
        r.roll("1D8+1D4", "damage")
    msg = str(info.value)
    assert msg == (
        "1D8+1D4 (damage) needs 2 dice values but only 1 is left (6); "
        "supply all 2 or none (the engine then rolls them)"
    )
    assert isinstance(info.value, DiceError)
    assert r.used_values == () and r.next_index == 0


def test_too_many_dice():
    r = Roller(SEED, ENC, 0, values=parse_values("71 34 12"))
    r.roll("1D100", "attack")
    r.roll("1D100", "parry")
    with pytest.raises(TooManyDice) as info:
        r.finish()
    assert str(info.value) == (
        "3 dice values given but only 2 were needed: 71, 34 were used; drop the extra 12"
    )
    assert info.value.used == ("71", "34") and info.value.extra == ("12",)

    one = Roller(SEED, ENC, 0, values=["5", "9"])
    one.roll("1D10", "strike rank")
    with pytest.raises(TooManyDice, match="only 1 was needed: 5 was used; drop the extra 9"):
        one.finish()

    none = Roller(SEED, ENC, 0, values=["5", "9"])
    with pytest.raises(TooManyDice) as info:
        none.finish()
    assert str(info.value) == "2 dice values given but none were needed; drop 5, 9"


def test_engine_roll_without_seed_is_a_programming_error():
    r = Roller(None, ENC, 0)
    with pytest.raises(ValueError) as info:
        r.roll("1D6", "x")
    assert not isinstance(info.value, DiceError)


def test_bad_expression_in_roller():
    with pytest.raises(BadExpression):
        Roller(SEED, ENC, 0).roll("1D", "x")


# --------------------------------------------------------------------------- #
# Re-deriving engine rolls (affray verify --dice)
# --------------------------------------------------------------------------- #


def test_rederive_matches_engine_rolls():
    seed = new_seed()
    r = Roller(seed, "enc-7", 10, values=["50"], typed_by="sam")
    rolls = [
        r.roll("1D100", "table roll"),
        r.roll("1D8+1D4-1", "damage"),
        r.roll("3D6", "stat"),
        r.roll("1D20", "location"),
        r.roll("2", "constant"),
    ]
    for rolled in rolls:
        if rolled.source == "engine":
            assert rederive(seed, "enc-7", rolled) == rolled.faces
    assert [x.index for x in rolls] == [-1, 10, 12, 15, -1]
    # A tampered face no longer matches.
    damage = rolls[1]
    forged = DiceRolled(purpose="damage", expr="1D8+1D4-1",
                        faces=tuple(f % 4 + 1 for f in damage.faces),
                        total=0, source="engine", index=damage.index)
    assert rederive(seed, "enc-7", forged) == damage.faces != forged.faces
    with pytest.raises(ValueError):
        rederive(seed, "enc-7", rolls[0])  # a table roll
    with pytest.raises(ValueError):
        rederive(seed, "enc-7", DiceRolled(purpose="x", expr="1D6", faces=(1,), total=1,
                                           source="engine"))


@settings(max_examples=50)
@given(
    seed=st.binary(min_size=32, max_size=32),
    start=st.integers(0, 10_000),
    exprs=st.lists(st.sampled_from(["1D100", "1D20", "2D6", "1D8+1D4", "-1D4", "1D6-1"]),
                   min_size=1, max_size=6),
)
def test_rederive_property(seed, start, exprs):
    r = Roller(seed, "enc", start)
    for expr in exprs:
        rolled = r.roll(expr, "p")
        assert rederive(seed, "enc", rolled) == rolled.faces
        e = parse(expr)
        assert rolled.total == e.total(rolled.faces)
        assert e.minimum() <= rolled.total <= e.maximum()
    assert r.next_index == start + sum(count_dice(x) for x in exprs)


@settings(max_examples=300, deadline=None)
@given(
    seed=st.binary(min_size=1, max_size=130),  # under, at and over SHA-256's 64-byte block
    first=st.integers(0, 10**9),
    dice=st.lists(st.sampled_from([1, 2, 6, 100, 2**63 + 1, 2**64 - 1, 2**64]) | st.integers(1, 2**64), max_size=4),
    standing=st.lists(st.tuples(st.integers(0, 10**9 + 4), st.text(max_size=6)), max_size=3),
    command_salt=st.text(max_size=4),
)
def test_the_keyed_engine_derives_what_the_one_shot_hmac_derives(seed, first, dice, standing, command_salt):
    """``EngineKey`` (the key pads hashed once; ``verify --dice`` and the
    roller) gives the faces the module docstring's derivation gives with the
    standard library's one-shot HMAC (``hmac.new``, OpenSSL's SHA-256),
    salted or not, and so does :func:`engine_face`. ``2**63 + 1`` sides
    rejects about half the chunks, so the rejection path and the blocks
    k >= 1 are walked too."""
    want = tuple(
        reference_salted_face(seed, ENC, first + i, sides, salts_for(first + i, standing, command_salt))
        for i, sides in enumerate(dice)
    )
    assert EngineKey(seed).faces(ENC, first, dice, standing, command_salt) == want
    assert salted_faces(seed, ENC, first, dice, standing, command_salt) == want
    assert tuple(
        engine_face(seed, ENC, first + i, sides, salts_for(first + i, standing, command_salt))
        for i, sides in enumerate(dice)
    ) == want


@pytest.mark.parametrize("bad", [b"", "text", None])
def test_the_keyed_engine_refuses_what_engine_face_refuses(bad):
    with pytest.raises(ValueError):
        EngineKey(bad)
    with pytest.raises(ValueError):
        EngineKey(SEED).faces(ENC, -1, (6,))
    with pytest.raises(ValueError):
        EngineKey(SEED).faces(ENC, 0, (True,))
    with pytest.raises(ValueError):
        EngineKey(SEED).faces(ENC, 0, (2**64 + 1,))
