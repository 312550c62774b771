"""Shared d100 helpers for every rule system (DESIGN.md, "Rule systems").

Everything here is system-neutral. A system decides its own critical and
fumble ranges and passes them to :func:`grade`; this module only knows how a
percentile roll is read against a target:

* ``d100`` gives 1..100 and a rolled "00" is read as 100 (rules-reference.md,
  "Conventions used in every section").
* Results 01-05 always succeed and 96-00 always fail unless a system turns
  that off (rules-reference.md B1 for Mythras, E "Automatic results" ruling
  for Mongoose RuneQuest; each system passes its own bounds).
* A modified skill never goes below 0 (rules-reference.md, "NOT FOUND / our
  ruling (B)", skill floor).

Dice expressions (weapon damage, damage modifiers) are parsed by
:func:`affray.dice.parse`, the one parser the engine rolls with.

Difficulty grades are system-specific, so each system keeps its own
``DIFFICULTY`` table next to its rules.

Levels of success are plain strings so that they travel unchanged through
events and JSON: :data:`CRITICAL`, :data:`SPECIAL` (RQ3 only),
:data:`SUCCESS`, :data:`FAILURE`, :data:`FUMBLE`.
"""

from __future__ import annotations

import re

from affray import dice as dicelib

__all__ = [
    "CRITICAL",
    "SPECIAL",
    "SUCCESS",
    "FAILURE",
    "FUMBLE",
    "LEVELS",
    "LEVEL_RANK",
    "check_d100",
    "clamp_skill",
    "grade",
    "is_success",
    "level_rank",
    "parse_modifier",
    "read_d100",
]

CRITICAL = "critical"
SPECIAL = "special"
SUCCESS = "success"
FAILURE = "failure"
FUMBLE = "fumble"

#: Every level, worst first.
LEVELS: tuple[str, ...] = (FUMBLE, FAILURE, SUCCESS, SPECIAL, CRITICAL)

#: Rank of each level for comparisons (higher is better): fumble 0, failure 1,
#: success 2, special 3, critical 4. Mythras ranks (rules-reference.md B5)
#: are the same order without ``special``.
LEVEL_RANK: dict[str, int] = {level: i for i, level in enumerate(LEVELS)}


def level_rank(level: str) -> int:
    """Rank of a level of success, higher is better (see :data:`LEVEL_RANK`).

    Raises ``ValueError`` for a string that is not a level.
    """
    try:
        return LEVEL_RANK[level]
    except KeyError:
        raise ValueError(
            f"unknown level of success {level!r}; expected one of {', '.join(LEVELS)}"
        ) from None


def is_success(level: str) -> bool:
    """True for ``success``, ``special`` and ``critical``."""
    return level_rank(level) >= LEVEL_RANK[SUCCESS]


def check_d100(roll: int) -> int:
    """Return ``roll`` if it is a valid d100 result (1..100), else raise.

    ``00`` on percentile dice is 100 (rules-reference.md, conventions).
    Raises ``ValueError`` with one line naming the allowed values.
    """
    if isinstance(roll, bool) or not isinstance(roll, int) or not 1 <= roll <= 100:
        raise ValueError(f"d100 takes values 1-100 (00 is 100); got {roll!r}")
    return roll


def read_d100(text: str) -> int:
    """Read a typed-in d100 result: ``"7"``, ``"07"``, ``"100"`` or ``"00"``.

    ``"00"`` (and ``"0"`` written as two digits only) reads as 100; a bare
    ``"0"`` is rejected because it is ambiguous. Returns 1..100 or raises
    ``ValueError`` with one line.
    """
    t = str(text).strip()
    if t == "00":
        return 100
    if not t.isdigit():
        raise ValueError(f"d100 takes values 1-100 (00 is 100); got {text!r}")
    return check_d100(int(t))


def clamp_skill(value: int, lo: int = 0, hi: int | None = None) -> int:
    """Clamp a (modified) skill percentage into ``[lo, hi]``.

    By default only the floor applies: a modified skill never goes below 0
    (rules-reference.md, "NOT FOUND / our ruling (B)", skill floor). ``hi``
    is ``None`` for no ceiling, since skills above 100 are legal.
    """
    value = int(value)
    if value < lo:
        return lo
    if hi is not None and value > hi:
        return hi
    return value


def grade(
    roll: int,
    target: int,
    *,
    critical_max: int,
    fumble_min: int,
    auto_success_max: int = 5,
    auto_fail_min: int = 96,
    special_max: int = 0,
) -> str:
    """Grade a d100 ``roll`` (1..100) against ``target`` (a percentage).

    Shapes and units: ``roll`` 1..100 ("00" = 100); ``target`` the modified
    skill in percent, clamped so it never goes below 0; ``critical_max`` the
    highest roll that is a critical (0 = none); ``fumble_min`` the lowest roll
    that is a fumble (101 = none); ``auto_success_max`` / ``auto_fail_min``
    the automatic-result bands (pass 0 / 101 to disable them);
    ``special_max`` the highest roll that is a special success (RQ3; 0 =
    none). Returns one of :data:`CRITICAL`, :data:`SPECIAL`, :data:`SUCCESS`,
    :data:`FAILURE`, :data:`FUMBLE`.

    Order of reading:

    1. ``roll >= fumble_min`` is a fumble (a fumble is always a failure).
    2. ``roll <= auto_success_max`` succeeds and ``roll >= auto_fail_min``
       fails, whatever the target (rules-reference.md B1; E "Automatic
       results" ruling); otherwise the roll succeeds if ``roll <= target``.
    3. A success with ``roll <= critical_max`` is a critical, else one with
       ``roll <= special_max`` is a special, else a plain success.

    Sources: rules-reference.md B1-B3 (Mythras), C1 (RQ3), E6 and the E
    rulings (Mongoose RuneQuest); seed 004 "Critical Hits" for "a roll at or
    below the critical score of a successful roll".
    """
    check_d100(roll)
    target = clamp_skill(target)
    if roll >= fumble_min:
        return FUMBLE
    if roll <= auto_success_max:
        success = True
    elif roll >= auto_fail_min:
        success = False
    else:
        success = roll <= target
    if not success:
        return FAILURE
    if roll <= critical_max:
        return CRITICAL
    if roll <= special_max:
        return SPECIAL
    return SUCCESS


_MOD_RE = r"(?s)^\s*([+-]?\s*[0-9]+)\s*%?\s*(?::\s*(.*?)\s*)?$"  # ASCII digits only (issue 16); compiled on first use
#: The largest modifier, in percent either way: a typo guard (issue 16).
MAX_MODIFIER = 999


def parse_modifier(text: str, *, require_reason: bool = True) -> tuple[int, str]:
    """Parse a situational modifier ``"VALUE:REASON"`` into ``(value, reason)``.

    ``"-20:unstable ground"`` -> ``(-20, "unstable ground")``; ``"+20%:higher
    ground"`` -> ``(20, "higher ground")``. The value is in percent; the
    reason is everything after the first colon, stripped. DESIGN.md "Rulings
    are facts": a modifier carries its reason, so a missing reason is an
    error unless ``require_reason`` is False (then the reason is ``""``).
    The value is ASCII digits 0-9, within ±``MAX_MODIFIER``.

    Raises ``ValueError`` with a one-line message saying how to write it.
    """
    m = re.match(_MOD_RE, str(text))
    hint = "write it as VALUE:REASON, e.g. '-20:unstable ground'"
    if not m:
        raise ValueError(f"cannot read modifier {text!r} (its value takes ASCII digits 0-9); {hint}")
    digits = m.group(1).replace(" ", "")
    if len(digits.lstrip("+-")) > 4 or abs(int(digits)) > MAX_MODIFIER:
        raise ValueError(f"modifier {digits} is out of bounds: a modifier runs from -{MAX_MODIFIER} to +{MAX_MODIFIER} percent")
    value = int(digits)
    reason = (m.group(2) or "").strip()
    if require_reason and not reason:
        raise ValueError(f"modifier {text!r} needs a reason; {hint}")
    if "\n" in reason:
        raise ValueError(f"modifier reason must be one line; {hint}")
    return value, reason


def roll_damage_modifier(draft, modifier: str, by: str) -> int:
    """The value of a damage modifier such as ``+1D4``, ``-1D6``, ``+2`` or
    ``""`` (0): its dice are rolled through the command's :class:`Draft`
    (purpose "damage modifier", rolled by ``by``) and a minus sign makes the
    roll a deduction. Source: rules-reference.md B16 (Mythras) and E2
    (mrq1), the damage modifier tables. Raises the dice's one-line errors."""
    text = modifier.strip()
    if not text:
        return 0
    if dicelib.count_dice(text):
        magnitude = draft.roll(str(dicelib.parse(text.lstrip("+-"))), "damage modifier", by=by).total
        return -magnitude if text.startswith("-") else magnitude
    return dicelib.parse(text).total(())
