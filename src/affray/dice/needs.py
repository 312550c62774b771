"""The dice a step still needs: :class:`MissingDice` and its one-line message.

It sits above :mod:`affray.dice.expr` (the message shows each expression
normalised), which sits above :mod:`affray.dice.errors`, so imports inside
``dice/`` run one way.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from affray.dice.errors import BadExpression, DiceError
from affray.dice.expr import parse


def need_pair(need: Any) -> tuple[str, str]:
    """``(purpose, expr)`` of a needed roll, given either as such a pair or
    as a ``DiceNeed`` (:class:`affray.events.core.DiceNeed`, with
    ``purpose`` and ``expr`` attributes); both come back as ``str``."""
    if isinstance(need, tuple):
        purpose, expr = need
        return str(purpose), str(expr)
    return str(need.purpose), str(need.expr)  # a DiceNeed


class MissingDice(DiceError):
    """Manual-dice mode, and the table has not supplied every die needed.

    ``needs`` holds the missing ``(purpose, expr)`` pairs in the order they
    are consumed; the message lists them (see :func:`needed_message`).
    """

    def __init__(self, needs: Iterable[Any]) -> None:
        self.needs: tuple[tuple[str, str], ...] = tuple(need_pair(n) for n in needs)
        super().__init__(needed_message(self.needs))


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
        purpose, expr = need_pair(need)
        try:
            expr = str(parse(expr))
        except BadExpression:
            pass
        items.append(f"{expr} ({purpose})" if purpose else expr)
    if not items:
        return ""
    return f"missing dice: {', '.join(items)}; supply them with --dice"
