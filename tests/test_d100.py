"""Shared d100 helpers (affray.rules.d100)."""

import pytest

from affray.rules import d100
from affray.rules.d100 import CRITICAL, FAILURE, FUMBLE, SPECIAL, SUCCESS, grade


def g(roll, target, crit=None, fumble=100, **kw):
    return grade(roll, target, critical_max=target // 10 if crit is None else crit, fumble_min=fumble, **kw)


@pytest.mark.parametrize(
    "roll,target,expected",
    [
        (1, 65, CRITICAL),
        (6, 65, CRITICAL),
        (7, 65, SUCCESS),
        (65, 65, SUCCESS),
        (66, 65, FAILURE),
        (95, 100, SUCCESS),
        (96, 200, FAILURE),  # 96-00 always fail
        (99, 200, FAILURE),
        (100, 200, FUMBLE),  # fumble_min 100
        (5, 0, SUCCESS),  # 01-05 always succeed
        (1, 0, SUCCESS),  # ... but no critical at critical_max 0
        (6, 0, FAILURE),
    ],
)
def test_grade_bands(roll, target, expected):
    assert g(roll, target) == expected


def test_grade_fumble_min_99():
    assert g(99, 50, fumble=99) == FUMBLE
    assert g(98, 50, fumble=99) == FAILURE


def test_grade_negative_target_clamped_to_zero():
    assert g(3, -40, crit=0) == SUCCESS
    assert g(6, -40, crit=0) == FAILURE


def test_grade_automatic_results_can_be_disabled():
    kw = dict(auto_success_max=0, auto_fail_min=101)
    assert g(3, 0, crit=0, **kw) == FAILURE
    assert g(97, 120, crit=12, **kw) == SUCCESS
    assert g(100, 120, crit=12, **kw) == FUMBLE


def test_grade_critical_needs_success():
    # critical_max above the target cannot make a failed roll critical
    assert grade(8, 6, critical_max=10, fumble_min=100, auto_success_max=0) == FAILURE


def test_grade_special():
    assert grade(8, 50, critical_max=3, fumble_min=98, special_max=10) == SPECIAL
    assert grade(3, 50, critical_max=3, fumble_min=98, special_max=10) == CRITICAL
    assert grade(11, 50, critical_max=3, fumble_min=98, special_max=10) == SUCCESS


@pytest.mark.parametrize("roll", [0, 101, -1, True, 5.0])
def test_grade_rejects_bad_rolls(roll):
    with pytest.raises(ValueError, match="d100 takes values 1-100"):
        g(roll, 50)


def test_read_d100():
    assert d100.read_d100("00") == 100
    assert d100.read_d100("07") == 7
    assert d100.read_d100(" 100 ") == 100
    for bad in ("0", "x", "101", ""):
        with pytest.raises(ValueError):
            d100.read_d100(bad)


def test_clamp_skill():
    assert d100.clamp_skill(-5) == 0
    assert d100.clamp_skill(150) == 150
    assert d100.clamp_skill(150, hi=100) == 100


def test_levels_rank():
    assert d100.level_rank(FUMBLE) < d100.level_rank(FAILURE) < d100.level_rank(SUCCESS) < d100.level_rank(CRITICAL)
    assert d100.is_success(CRITICAL) and d100.is_success(SPECIAL) and not d100.is_success(FUMBLE)
    with pytest.raises(ValueError):
        d100.level_rank("great")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("-20:unstable ground", (-20, "unstable ground")),
        ("+20:higher ground", (20, "higher ground")),
        ("20%: target surprised ", (20, "target surprised")),
        (" -10 : arm: obstructed", (-10, "arm: obstructed")),
    ],
)
def test_parse_modifier(text, expected):
    assert d100.parse_modifier(text) == expected


@pytest.mark.parametrize("text", ["", "abc", "twenty:x", "-20", "-20:", "20:a\nb"])
def test_parse_modifier_errors_are_one_line(text):
    with pytest.raises(ValueError) as e:
        d100.parse_modifier(text)
    assert "\n" not in str(e.value)


def test_parse_modifier_reason_optional():
    assert d100.parse_modifier("-20", require_reason=False) == (-20, "")


class _Dice:
    """A stand-in for a command's Draft: rolls from a fixed list."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)
        self.asked: list[tuple[str, str, str]] = []

    def roll(self, expr: str, purpose: str, by: str = ""):
        self.asked.append((expr, purpose, by))

        class R:
            total = self.faces.pop(0)

        return R()


@pytest.mark.parametrize("text, faces, value, asked", [
    ("", (), 0, []),
    ("+2", (), 2, []),
    ("-1", (), -1, []),
    ("+1D4", (3,), 3, [("1D4", "damage modifier", "vasana")]),
    ("-1D6", (5,), -5, [("1D6", "damage modifier", "vasana")]),
    ("+2D6", (9,), 9, [("2D6", "damage modifier", "vasana")]),
])
def test_roll_damage_modifier(text, faces, value, asked):
    """The damage modifier of rules-reference.md B16/E2 as the systems roll
    it: dice through the command's dice, a minus sign a deduction."""
    from affray.rules.d100 import roll_damage_modifier

    draft = _Dice(*faces)
    assert roll_damage_modifier(draft, text, "vasana") == value
    assert draft.asked == asked
