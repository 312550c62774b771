"""Dice: expressions, the seeded engine roller, and the table's own dice.

Source: DESIGN.md, "Commands, exchanges and dice"; UX.md, "Errors".

Every roll becomes a :class:`~affray.events.core.DiceRolled` event with its
expression, faces, total, purpose and source. The source is either

* ``table`` -- values typed in from physical dice or a forum roller
  (``--dice 71,34``), recorded with who typed them (``typed_by``); or
* ``engine`` -- derived from the encounter's secret seed, recorded with the
  engine roll number (``index``) of the expression's first die.

A command builds one :class:`Roller` and asks it for each expression it needs,
in the order ``affray pending`` lists them. The roller takes values from the
table first; whatever is not supplied is rolled by the engine, or, in
manual-dice mode, the command fails with :class:`MissingDice`.

Expressions
===========

``parse("1D8+1D4-1")`` reads an expression: terms ``[+-][count]D<sides>`` and
whole-number constants, joined by ``+`` or ``-``. ``D`` is case-insensitive,
``D%`` means ``D100``, a missing count means 1, spaces are ignored, and the
empty string means 0. The dice of an expression are consumed left to right,
each term's dice in turn: ``1D8+2D4`` has dice ``(8, 4, 4)``.

Provably fair engine dice (public contract)
===========================================

Anyone holding the revealed seed can re-derive every engine roll of an
encounter with nothing but HMAC-SHA256. This derivation is a public contract
and never changes; ``tests/test_dice.py`` pins golden values.

Inputs
    ``seed``
        The encounter's secret key: 32 random bytes (:func:`new_seed`).
        The encounter's first event (``EncounterOpened.seed_sha256``)
        commits to it as ``SHA-256(seed)`` in lowercase hex
        (:func:`commitment`); ``EncounterClosed.seed`` reveals it as
        lowercase hex.
    ``encounter_id``
        The encounter's id, a text string, encoded as UTF-8.
    ``index``
        The engine roll number, a non-negative integer, written in decimal
        ASCII without sign or leading zeros. Each *die* uses one number: an
        expression of *n* dice rolled by the engine uses ``index``,
        ``index + 1``, ..., ``index + n - 1``, in the order of its dice, and
        its ``DiceRolled.index`` records the first.
    ``sides``
        The die's number of sides *s*, with ``1 <= s <= 2**64``.

Derivation of the face of die ``index``
    1. Let ``L = 2**64 - (2**64 mod s)``: the largest multiple of *s* that
       does not exceed ``2**64`` (so ``L = 2**64`` when *s* is a power of
       two, and nothing is rejected).
    2. For ``k = 0, 1, 2, ...``:

       a. The message is ``f"{encounter_id}:{index}"`` when ``k == 0`` and
          ``f"{encounter_id}:{index}:{k}"`` when ``k >= 1``, encoded as UTF-8.
       b. ``D = HMAC-SHA256(key=seed, msg=message)``: 32 bytes.
       c. Split ``D`` into four 8-byte chunks ``D[0:8]``, ``D[8:16]``,
          ``D[16:24]``, ``D[24:32]`` and read each, in that order, as an
          unsigned big-endian integer ``v``.
       d. The first chunk with ``v < L`` gives the face ``1 + (v mod s)``.
          Chunks with ``v >= L`` are rejected (this removes modulo bias).
          If all four are rejected, go on with ``k + 1``.

    For a d100 the chance of rejecting one chunk is below ``10**-17``, so in
    practice the first chunk decides. Within one encounter the messages of
    different ``(index, k)`` never coincide (a ``k >= 1`` message has one more
    ``:``), and each encounter has its own seed.

    Example (Python)::

        import hashlib, hmac
        def face(seed: bytes, encounter_id: str, index: int, sides: int) -> int:
            limit = 2**64 - 2**64 % sides
            k = 0
            while True:
                msg = f"{encounter_id}:{index}" + (f":{k}" if k else "")
                d = hmac.new(seed, msg.encode(), hashlib.sha256).digest()
                for j in range(0, 32, 8):
                    v = int.from_bytes(d[j:j + 8], "big")
                    if v < limit:
                        return 1 + v % sides
                k += 1

Table values
============

``--dice`` text is read by :func:`parse_values` into tokens: runs of ASCII
digits separated by commas and/or spaces (``"71,34"``, ``"71 34"``,
``"6, 3"``). A token becomes a face only once the roller knows its die
(:func:`face_from_token`): a d*N* takes ``1``..\\ *N*; on a d10 ``0`` also
means 10; on a d100 ``00`` also means 100 (a lone ``0`` is refused on a d100:
it is ambiguous). Leading zeros are allowed (``07`` is 7).

Errors
======

Every user error is a :class:`DiceError` (a ``ValueError``) whose ``str()`` is
one line saying what was wrong and what to do. Programming errors (an engine
roll with no seed, faces that do not fit an expression) are plain
``ValueError``.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from affray.errors import AffrayError
from affray.events.core import DiceRolled

__all__ = [
    "DiceError",
    "MissingDice",
    "TooManyDice",
    "BadDiceValue",
    "BadExpression",
    "PartialDice",
    "Expr",
    "parse",
    "combine",
    "count_dice",
    "new_seed",
    "commitment",
    "engine_face",
    "parse_values",
    "face_from_token",
    "needed_message",
    "Roller",
    "rederive",
    "MAX_DICE",
    "MAX_SIDES",
]

#: Most dice one expression may roll (a guard against typos like ``1000D6``).
MAX_DICE = 100
#: Most sides a die in an expression may have.
MAX_SIDES = 10_000
#: Longest whole number (in digits) accepted in an expression.
_MAX_DIGITS = 9

_TWO_64 = 2**64


# --------------------------------------------------------------------------- #
# Errors
# --------------------------------------------------------------------------- #


class DiceError(AffrayError, ValueError):
    """A user error about dice; ``str()`` is one user-facing line.

    The line says what was wrong and what to do. Any line break in the
    message is turned into a space, so the CLI can print it as is.
    """

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).splitlines()))

    @property
    def message(self) -> str:
        """The one-line message (same as ``str(self)``)."""
        return str(self.args[0])


class MissingDice(DiceError):
    """Manual-dice mode, and the table has not supplied every die needed.

    ``needs`` holds the missing ``(purpose, expr)`` pairs in the order they
    are consumed; the message lists them (see :func:`needed_message`).
    """

    def __init__(self, needs: Iterable[Any]) -> None:
        self.needs: tuple[tuple[str, str], ...] = tuple(_need_pair(n) for n in needs)
        super().__init__(needed_message(self.needs))


class TooManyDice(DiceError):
    """More table values were supplied than the command consumed.

    ``used`` and ``extra`` are the tokens used and left over.
    """

    def __init__(self, used: Sequence[str], extra: Sequence[str]) -> None:
        self.used = tuple(used)
        self.extra = tuple(extra)
        given = len(self.used) + len(self.extra)
        noun = "dice value" if given == 1 else "dice values"
        if self.used:
            verb = "was" if len(self.used) == 1 else "were"
            what = (
                f"only {len(self.used)} {verb} needed: "
                f"{', '.join(self.used)} {verb} used"
            )
            drop = f"drop the extra {', '.join(self.extra)}"
        else:
            what = "none were needed"
            drop = f"drop {', '.join(self.extra)}"
        super().__init__(f"{given} {noun} given but {what}; {drop}")


class BadDiceValue(DiceError):
    """A table value is not a whole number, or does not fit its die.

    ``value`` is the token as typed; ``sides`` the die (0 if not yet known);
    ``purpose`` what the roll was for ("" if not known).
    """

    def __init__(self, message: str, value: str = "", sides: int = 0,
                 purpose: str = "") -> None:
        self.value = value
        self.sides = sides
        self.purpose = purpose
        super().__init__(message)


class BadExpression(DiceError):
    """A dice expression cannot be read. ``expr`` is the text given."""

    def __init__(self, expr: str, why: str) -> None:
        self.expr = expr
        self.why = why
        super().__init__(
            f"cannot read dice expression {expr!r}: {why}; "
            "write it like 1D100, 2D6, 1D8+1D4 or 1D6-1"
        )


class PartialDice(DiceError):
    """The table supplied some, but not all, of one expression's dice.

    An expression is all-table or all-engine, so this is refused.
    ``expr`` is the expression, ``needed`` its number of dice, ``remaining``
    the table values that were left for it.
    """

    def __init__(self, expr: str, purpose: str, needed: int,
                 remaining: Sequence[str]) -> None:
        self.expr = expr
        self.purpose = purpose
        self.needed = needed
        self.remaining = tuple(remaining)
        what = f"{expr} ({purpose})" if purpose else expr
        left = len(self.remaining)
        super().__init__(
            f"{what} needs {needed} dice values but only {left} "
            f"{'is' if left == 1 else 'are'} left ({', '.join(self.remaining)}); "
            f"supply all {needed} or none (the engine then rolls them)"
        )


# --------------------------------------------------------------------------- #
# Expressions
# --------------------------------------------------------------------------- #


@dataclass(frozen=True, slots=True)
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

    terms: tuple[tuple[int, int, int], ...] = ()
    constant: int = 0
    dice: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        terms = tuple(tuple(t) for t in self.terms)
        for sign, count, sides in terms:
            if sign not in (1, -1) or count < 1 or sides < 1:
                raise BadExpression(
                    str((sign, count, sides)), "a term is (sign ±1, count ≥ 1, sides ≥ 1)"
                )
        object.__setattr__(self, "terms", terms)
        object.__setattr__(
            self, "dice", tuple(sides for _, count, sides in terms for _ in range(count))
        )

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


_TERM = re.compile(
    r"\s*([+-]?)\s*(?:([0-9]*)[dD]([0-9]+|%)|([0-9]+))\s*", re.ASCII
)


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
    pos = 0
    if expr.strip():
        while pos < len(expr):
            m = _TERM.match(expr, pos)
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


# --------------------------------------------------------------------------- #
# Engine dice
# --------------------------------------------------------------------------- #


def new_seed() -> bytes:
    """A fresh encounter seed: 32 random bytes from :mod:`secrets`."""
    return os.urandom(32)  # the OS CSPRNG, as secrets.token_bytes uses


def commitment(seed: bytes) -> str:
    """The public commitment to ``seed``: ``sha256(seed).hexdigest()`` (64 hex chars)."""
    return hashlib.sha256(seed).hexdigest()


def _digest(seed: bytes, encounter_id: str, index: int, k: int) -> bytes:
    """HMAC-SHA256 block ``k`` for engine roll ``index`` (see module docstring)."""
    msg = f"{encounter_id}:{index}" if k == 0 else f"{encounter_id}:{index}:{k}"
    return hmac.new(seed, msg.encode("utf-8"), hashlib.sha256).digest()


def engine_face(seed: bytes, encounter_id: str, index: int, sides: int) -> int:
    """The face (``1..sides``) of engine roll ``index`` on a d``sides``.

    Derived from HMAC-SHA256(key=seed, msg=f"{encounter_id}:{index}") with
    rejection sampling, exactly as the module docstring specifies; the same
    inputs always give the same face. ``seed`` is non-empty bytes,
    ``index >= 0``, ``1 <= sides <= 2**64``; otherwise ``ValueError``
    (a programming error).
    """
    if not isinstance(seed, (bytes, bytearray)) or not seed:
        raise ValueError("the engine needs the encounter's seed as non-empty bytes")
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ValueError(f"an engine roll number is an int >= 0, not {index!r}")
    if isinstance(sides, bool) or not isinstance(sides, int) or not 1 <= sides <= _TWO_64:
        raise ValueError(f"a die has 1 to 2**64 sides, not {sides!r}")
    limit = _TWO_64 - _TWO_64 % sides
    k = 0
    while True:
        block = _digest(bytes(seed), encounter_id, index, k)
        for j in range(0, 32, 8):
            v = int.from_bytes(block[j:j + 8], "big")
            if v < limit:
                return 1 + v % sides
        k += 1


def _engine_faces(seed: bytes, encounter_id: str, first: int,
                  dice: Sequence[int]) -> tuple[int, ...]:
    return tuple(
        engine_face(seed, encounter_id, first + i, sides) for i, sides in enumerate(dice)
    )


def rederive(seed: bytes, encounter_id: str, rolled: DiceRolled) -> tuple[int, ...]:
    """The faces an engine roll must have, re-derived from the revealed seed.

    ``rolled`` is a ``DiceRolled`` with ``source == "engine"``; its dice use
    roll numbers ``rolled.index``, ``rolled.index + 1``, ... (see the module
    docstring). ``affray verify --dice`` compares the result with
    ``rolled.faces``. A zero-dice roll re-derives to ``()``.
    Raises ``ValueError`` for a table roll, an engine roll with dice but no
    index, or a recorded expression that cannot be read (``BadExpression``).
    """
    if rolled.source != "engine":
        raise ValueError(
            f"{rolled.purpose or rolled.expr} is a {rolled.source!r} roll; "
            "only engine rolls can be re-derived"
        )
    e = parse(rolled.expr)
    if not e.dice:
        return ()
    if rolled.index < 0:
        raise ValueError(f"engine roll {rolled.expr} ({rolled.purpose}) has no index")
    return _engine_faces(seed, encounter_id, rolled.index, e.dice)


# --------------------------------------------------------------------------- #
# Table values
# --------------------------------------------------------------------------- #

_SEPARATOR = re.compile(r"\s*,\s*|\s+")
_DIGITS = re.compile(r"[0-9]+")
_VALUES_HINT = "give whole numbers separated by commas or spaces, like --dice 71,34"


def _shown(token: str) -> str:
    return token if len(token) <= 12 else token[:12] + "…"


def parse_values(text: str) -> list[str]:
    """Split ``--dice`` text into value tokens, in order.

    Accepts ``"71"``, ``"71,34"``, ``"71 34"``, ``"6, 3"``, ``"00"``. Returns
    the tokens as typed (``["71", "34"]``): whether ``0``/``00`` means 10 or
    100 depends on the die, so the mapping to faces happens in the
    :class:`Roller` (:func:`face_from_token`). Surrounding spaces are ignored.
    Raises :class:`BadDiceValue` for empty text, an empty value (``"71,,34"``,
    a trailing comma) or a token that is not plain ASCII digits (``"7a"``,
    ``"-3"``).
    """
    stripped = text.strip()
    if not stripped:
        raise BadDiceValue(f"no dice values given; {_VALUES_HINT}. Nothing was recorded.")
    tokens = _SEPARATOR.split(stripped)
    for token in tokens:
        _check_token(token)
    return tokens


def _check_token(token: str) -> None:
    if not token:
        raise BadDiceValue(
            f"an empty dice value (a stray comma?); {_VALUES_HINT}. "
            "Nothing was recorded."
        )
    if not _DIGITS.fullmatch(token):
        raise BadDiceValue(
            f"{_shown(token)!r} is not a dice value; {_VALUES_HINT}. Nothing was recorded.",
            value=token,
        )


def face_from_token(token: str, sides: int, purpose: str = "") -> int:
    """The face a table value ``token`` gives on a d``sides``.

    A d*N* takes ``1``..*N*; on a d10 ``"0"`` is 10; on a d100 ``"00"`` is 100
    (``"0"`` is refused there). Leading zeros are allowed otherwise
    (``"07"`` -> 7). Raises :class:`BadDiceValue`, e.g.
    ``"d100 takes values 1–100 (00 is 100); got 0. Nothing was recorded."``
    """
    _check_token(token)
    if sides == 100 and token == "00":
        return 100
    if sides == 10 and token == "0":
        return 10
    significant = token.lstrip("0")
    if significant and len(significant) <= len(str(sides)):
        value = int(significant)
        if value <= sides:
            return value
    note = {100: " (00 is 100)", 10: " (0 is 10)"}.get(sides, "")
    raise BadDiceValue(
        f"d{sides} takes values 1–{sides}{note}; got {_shown(token)}. Nothing was recorded.",
        value=token, sides=sides, purpose=purpose,
    )


# --------------------------------------------------------------------------- #
# The per-command roller
# --------------------------------------------------------------------------- #


def _need_pair(need: Any) -> tuple[str, str]:
    if isinstance(need, tuple):
        purpose, expr = need
        return str(purpose), str(expr)
    return str(need.purpose), str(need.expr)  # a DiceNeed


def needed_message(needs: Iterable[Any]) -> str:
    """Format the :class:`MissingDice` line for the dice a step still needs.

    ``needs`` are ``(purpose, expr)`` pairs or ``DiceNeed`` objects, in the
    order they are consumed. Returns e.g. ``"missing dice: 1D100 (Broo 1's
    parry), 1D100 (Vasana's attack, fresh roll); supply them with --dice"``;
    expressions are normalised when readable; an empty purpose shows just
    the expression. Returns ``""`` when nothing is needed.
    """
    items = []
    for need in needs:
        purpose, expr = _need_pair(need)
        try:
            expr = str(parse(expr))
        except BadExpression:
            pass
        items.append(f"{expr} ({purpose})" if purpose else expr)
    if not items:
        return ""
    return f"missing dice: {', '.join(items)}; supply them with --dice"


class Roller:
    """The dice source of one command: table values first, then the engine.

    ``Roller(seed, encounter_id, next_index, values=(), manual=False,
    typed_by="")``

    * ``seed``: the encounter's seed (bytes), or ``None`` when the engine must
      not roll (manual mode, or a replay that supplies every value).
    * ``encounter_id``: part of every engine derivation.
    * ``next_index``: the encounter's next unused engine roll number.
    * ``values``: table value tokens in consumption order, usually
      ``parse_values(--dice)``; ints are accepted and written in decimal.
    * ``manual``: manual-dice mode; dice not supplied raise :class:`MissingDice`.
    * ``typed_by``: who typed the values, recorded on table rolls.

    Call :meth:`roll` for each expression in order, then :meth:`finish`.
    A failed :meth:`roll` consumes nothing.
    """

    def __init__(self, seed: bytes | None, encounter_id: str, next_index: int,
                 values: Sequence[str | int] = (), manual: bool = False,
                 typed_by: str = "") -> None:
        if next_index < 0:
            raise ValueError(f"next_index is >= 0, not {next_index}")
        tokens = [str(v) for v in values]
        for token in tokens:
            _check_token(token)
        self._seed = seed
        self._encounter_id = encounter_id
        self._next_index = next_index
        self._values = tokens
        self._pos = 0
        self.manual = manual
        self.typed_by = typed_by

    @property
    def next_index(self) -> int:
        """The next unused engine roll number (advanced by engine rolls)."""
        return self._next_index

    @property
    def used_values(self) -> tuple[str, ...]:
        """The table tokens consumed so far, in order."""
        return tuple(self._values[: self._pos])

    @property
    def remaining_values(self) -> tuple[str, ...]:
        """The table tokens not yet consumed, in order."""
        return tuple(self._values[self._pos:])

    def roll(self, expr: str | Expr, purpose: str, by: str = "") -> DiceRolled:
        """Roll ``expr`` for ``purpose`` (and combatant handle ``by``).

        Returns a ``DiceRolled`` with the normalised ``expr``, its ``faces``
        (one per die, in order) and ``total``:

        * if at least as many table values remain as the expression has dice,
          they are consumed in order: ``source="table"``, ``typed_by`` set,
          ``index=-1``;
        * else, if none remain and not ``manual``, the engine rolls with
          consecutive roll numbers from ``next_index`` (which advances):
          ``source="engine"``, ``index`` = the first die's number;
        * an expression with no dice (``""``, ``"3"``) consumes nothing and
          returns ``faces=()``, ``total`` = the constant, ``source="engine"``,
          ``index=-1``.

        Raises :class:`BadExpression`; :class:`BadDiceValue` if a value does
        not fit its die; :class:`PartialDice` if some but too few values
        remain; :class:`MissingDice` in manual mode when none remain;
        ``ValueError`` if the engine must roll but the seed is ``None``.
        """
        e = parse(expr)
        n = len(e.dice)
        if n == 0:
            return DiceRolled(purpose=purpose, expr=str(e), faces=(), total=e.constant,
                              source="engine", by=by)
        remaining = self.remaining_values
        if len(remaining) >= n:
            faces = tuple(
                face_from_token(token, sides, purpose)
                for token, sides in zip(remaining, e.dice)
            )
            self._pos += n
            return DiceRolled(purpose=purpose, expr=str(e), faces=faces,
                              total=e.total(faces), source="table",
                              typed_by=self.typed_by, by=by)
        if remaining:
            raise PartialDice(str(e), purpose, n, remaining)
        if self.manual:
            raise MissingDice([(purpose, str(e))])
        if self._seed is None:
            raise ValueError(f"engine roll of {e} for {purpose!r} but the roller has no seed")
        first = self._next_index
        faces = _engine_faces(self._seed, self._encounter_id, first, e.dice)
        self._next_index += n
        return DiceRolled(purpose=purpose, expr=str(e), faces=faces, total=e.total(faces),
                          source="engine", index=first, by=by)

    def require(self, needs: Iterable[Any]) -> None:
        """Check up front that the remaining values can serve ``needs``.

        ``needs`` are ``(purpose, expr)`` pairs or ``DiceNeed`` objects, in
        consumption order. Consumes nothing and does not check value ranges.
        Raises :class:`PartialDice` where :meth:`roll` would, and in manual
        mode :class:`MissingDice` listing every need the values do not cover
        (so one error names all the dice of a pending step).
        """
        left = len(self._values) - self._pos
        missing: list[tuple[str, str]] = []
        for need in needs:
            purpose, expr = _need_pair(need)
            n = count_dice(expr)
            if n == 0:
                continue
            if left >= n:
                left -= n
            elif left:
                raise PartialDice(str(parse(expr)), purpose, n, self._values[-left:])
            else:
                missing.append((purpose, expr))
        if missing and self.manual:
            raise MissingDice(missing)

    def finish(self) -> None:
        """End the command: raise :class:`TooManyDice` if values are left over.

        E.g. ``"3 dice values given but only 2 were needed: 71, 34 were used;
        drop the extra 12"``.
        """
        if self._pos < len(self._values):
            raise TooManyDice(self.used_values, self.remaining_values)
