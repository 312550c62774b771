"""Dice expressions: ``parse("1D8+1D4-1")`` (see :mod:`affray.dice`)."""

from __future__ import annotations

from collections.abc import Sequence
import re

from affray.dice.errors import BadExpression

#: Most dice one expression may roll (a guard against typos like ``1000D6``).
MAX_DICE = 100
#: Most sides a die in an expression may have.
MAX_SIDES = 10_000
#: Longest whole number (in digits) accepted in an expression.
_MAX_DIGITS = 9




# --------------------------------------------------------------------------- #
# Expressions
# --------------------------------------------------------------------------- #


class Expr:
    """A parsed dice expression.

    ``terms`` is a tuple of ``(sign, count, sides)`` with ``sign`` in
    ``{+1, -1}``, ``count >= 1`` and ``sides >= 1``, in written order;
    ``constant`` is the sum of the whole-number terms. ``dice`` (derived) is
    the sides of each individual die in the order they are consumed:
    ``1D8+2D4`` -> ``(8, 4, 4)``. ``str()`` gives the normal form
    (``"1D8+1D4-1"``; ``"0"`` for the empty expression).

    Raises :class:`BadExpression` if a term is malformed.
    """

    __slots__ = ("terms", "constant", "dice")

    terms: tuple[tuple[int, int, int], ...]
    constant: int
    dice: tuple[int, ...]

    def __init__(self, terms: tuple[tuple[int, int, int], ...] = (), constant: int = 0) -> None:
        terms = tuple(tuple(t) for t in terms)
        for sign, count, sides in terms:
            if sign not in (1, -1) or count < 1 or sides < 1:
                raise BadExpression(
                    str((sign, count, sides)), "a term is (sign ±1, count ≥ 1, sides ≥ 1)"
                )
        object.__setattr__(self, "terms", terms)
        object.__setattr__(self, "constant", constant)
        object.__setattr__(
            self, "dice", tuple(sides for _, count, sides in terms for _ in range(count))
        )

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"Expr is immutable: cannot set {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Expr):
            return NotImplemented
        return (self.terms, self.constant) == (other.terms, other.constant)

    def __hash__(self) -> int:
        return hash((self.terms, self.constant))

    def __repr__(self) -> str:
        return f"Expr(terms={self.terms!r}, constant={self.constant!r})"

    def minimum(self) -> int:
        """The lowest total the expression can give."""
        return self.constant + sum(
            sign * (count if sign > 0 else count * sides)
            for sign, count, sides in self.terms
        )

    def maximum(self) -> int:
        """The highest total the expression can give."""
        return self.constant + sum(
            sign * (count * sides if sign > 0 else count)
            for sign, count, sides in self.terms
        )

    def signs(self) -> tuple[int, ...]:
        """The sign (+1 or -1) of each individual die, aligned with ``dice``."""
        return tuple(sign for sign, count, _ in self.terms for _ in range(count))

    def total(self, faces: Sequence[int]) -> int:
        """The total for ``faces`` (one per die, in ``dice`` order).

        Applies each term's sign and adds the constant. Raises ``ValueError``
        (a programming error) if the number of faces is wrong or a face does
        not fit its die.
        """
        if len(faces) != len(self.dice):
            raise ValueError(
                f"{self} has {len(self.dice)} dice but {len(faces)} faces were given"
            )
        for face, sides in zip(faces, self.dice):
            if not 1 <= face <= sides:
                raise ValueError(f"face {face} does not fit a d{sides} in {self}")
        return self.constant + sum(s * f for s, f in zip(self.signs(), faces))

    def __str__(self) -> str:
        parts: list[str] = []
        for sign, count, sides in self.terms:
            text = f"{count}D{sides}"
            if sign < 0:
                parts.append("-" + text)
            else:
                parts.append("+" + text if parts else text)
        if self.constant or not parts:
            c = self.constant
            parts.append(f"+{c}" if parts and c > 0 else str(c))
        return "".join(parts)


_TERM = r"(?a)\s*([+-]?)\s*(?:([0-9]*)[dD]([0-9]+|%)|([0-9]+))\s*"  # compiled on first use (re's cache), not at import


def _number(expr: str, digits: str) -> int:
    if len(digits) > _MAX_DIGITS:
        raise BadExpression(expr, f"the number {digits[:12]}… is too large")
    return int(digits)


def parse(expr: str | Expr) -> Expr:
    """Read a dice expression such as ``"1D100"``, ``"2D6"`` or ``"1D8+1D4-1"``.

    Shape: terms ``[+-][count]D<sides>`` or ``[+-]<number>``; the first may
    omit its sign, every later one needs ``+`` or ``-``. ``D`` is
    case-insensitive, a missing count is 1, ``D%`` is ``D100``, spaces are
    allowed around terms and signs (not inside a term), ``""`` is the
    expression 0. Examples: ``"D20"``, ``"-1D4"`` (a negative damage
    modifier), ``"3"``, ``"+1D4"``, ``"1d8 + 1d4"``. An :class:`Expr` is
    returned unchanged.

    Limits: ``1 <= count``, ``2 <= sides <= MAX_SIDES``, at most ``MAX_DICE``
    dice in all. Raises :class:`BadExpression` with a one-line message.
    """
    if isinstance(expr, Expr):
        return expr
    if not isinstance(expr, str):
        raise BadExpression(repr(expr), "an expression is text")
    terms: list[tuple[int, int, int]] = []
    constant = 0
    pos, term = 0, re.compile(_TERM)
    if expr.strip():
        while pos < len(expr):
            m = term.match(expr, pos)
            if m is None or (pos > 0 and not m.group(1)):
                at = pos + len(expr[pos:]) - len(expr[pos:].lstrip())
                shown = expr[at] if m is None else expr[at:m.end()].strip()
                raise BadExpression(expr, f"unexpected {shown!r} at position {at + 1}")
            sign = -1 if m.group(1) == "-" else 1
            if m.group(4) is not None:
                constant += sign * _number(expr, m.group(4))
            else:
                count = _number(expr, m.group(2)) if m.group(2) else 1
                sides = 100 if m.group(3) == "%" else _number(expr, m.group(3))
                if count < 1:
                    raise BadExpression(expr, f"{count}D{sides} rolls no dice")
                if sides < 2:
                    raise BadExpression(expr, f"a die needs at least 2 sides, not {sides}")
                if sides > MAX_SIDES:
                    raise BadExpression(
                        expr, f"a die has at most {MAX_SIDES} sides, not {sides}"
                    )
                terms.append((sign, count, sides))
            pos = m.end()
    if sum(count for _, count, _ in terms) > MAX_DICE:
        raise BadExpression(expr, f"at most {MAX_DICE} dice in one expression")
    return Expr(tuple(terms), constant)


def combine(*exprs: str | Expr) -> str:
    """Join expressions into one, in order, and return its normal form.

    ``combine("1D8", "+1D4")`` -> ``"1D8+1D4"``; ``combine("1D8", "-1D4")`` ->
    ``"1D8-1D4"``; empty expressions are ignored; constants are summed and
    written last; dice terms are kept in order (never merged), so the dice
    order of the result is that of the parts. ``combine()`` is ``"0"``.
    Raises :class:`BadExpression` if any part cannot be read.
    """
    parts = [parse(e) for e in exprs]
    return str(
        Expr(
            tuple(t for p in parts for t in p.terms),
            sum(p.constant for p in parts),
        )
    )


def count_dice(expr: str | Expr) -> int:
    """How many individual dice ``expr`` rolls (``"1D8+2D4"`` -> 3, ``"3"`` -> 0).

    Raises :class:`BadExpression` if it cannot be read.
    """
    return len(parse(expr).dice)
