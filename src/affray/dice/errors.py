"""Dice errors: every user error is a :class:`DiceError` whose ``str()`` is
one line saying what was wrong and what to do (UX.md, "Errors").

:class:`~affray.dice.needs.MissingDice`, whose message names the dice in
their normalised expressions, is in :mod:`affray.dice.needs`, above
:mod:`affray.dice.expr` (which imports this module)."""

from __future__ import annotations

from collections.abc import Sequence

from affray.errors import AffrayError


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
