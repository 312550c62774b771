"""The per-command dice source: table values first, then the engine (or
:class:`MissingDice` in manual-dice mode)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from affray.dice.engine import salted_faces
from affray.dice.errors import PartialDice, TooManyDice
from affray.dice.expr import Expr, count_dice, parse
from affray.dice.needs import MissingDice, need_pair
from affray.dice.table import check_token, face_from_token
from affray.events.core import DiceRolled

# --------------------------------------------------------------------------- #
# The per-command roller
# --------------------------------------------------------------------------- #


class Roller:
    """The dice source of one command: table values first, then the engine.

    ``Roller(seed, encounter_id, next_index, values=(), manual=False,
    typed_by="", salts=(), command_salt="")``

    * ``seed``: the encounter's seed (bytes), or ``None`` when the engine must
      not roll (manual mode, or a replay that supplies every value).
    * ``encounter_id``: part of every engine derivation.
    * ``next_index``: the encounter's next unused engine roll number.
    * ``values``: table value tokens in consumption order, usually
      ``parse_values(--dice)``; ints are accepted and written in decimal.
    * ``manual``: manual-dice mode; dice not supplied raise :class:`MissingDice`.
    * ``typed_by``: who typed the values, recorded on table rolls.
    * ``salts``: the encounter's standing salts ``(from_index, value)`` in
      log order, and ``command_salt`` this command's own (``--salt``); engine
      dice are derived with the ones that apply to each die
      (:func:`affray.dice.engine.salts_for`).

    Call :meth:`roll` for each expression in order, then :meth:`finish`.
    A failed :meth:`roll` consumes nothing.
    """

    def __init__(self, seed: bytes | None, encounter_id: str, next_index: int,
                 values: Sequence[str | int] = (), manual: bool = False,
                 typed_by: str = "", salts: Sequence[tuple[int, str]] = (),
                 command_salt: str = "") -> None:
        if next_index < 0:
            raise ValueError(f"next_index is >= 0, not {next_index}")
        tokens = [str(v) for v in values]
        for token in tokens:
            check_token(token)
        self._seed = seed
        self._encounter_id = encounter_id
        self._next_index = next_index
        self._values = tokens
        self._pos = 0
        self.manual = manual
        self.typed_by = typed_by
        self._salts = tuple(salts)
        self._command_salt = command_salt

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
        faces = salted_faces(self._seed, self._encounter_id, first, e.dice, self._salts, self._command_salt)
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
            purpose, expr = need_pair(need)
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
