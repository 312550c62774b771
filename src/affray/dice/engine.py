"""Provably fair engine dice: HMAC-SHA256 of the seed, the encounter id and
the roll number, with rejection sampling (the public contract is in
:mod:`affray.dice`; ``tests/test_dice.py`` pins golden values)."""

from __future__ import annotations

from collections.abc import Sequence
import os

from affray.digest import sha256

from affray.dice.expr import parse
from affray.events.core import DiceRolled

_TWO_64 = 2**64


# --------------------------------------------------------------------------- #
# Engine dice
# --------------------------------------------------------------------------- #


def new_seed() -> bytes:
    """A fresh encounter seed: 32 random bytes from :mod:`secrets`."""
    return os.urandom(32)  # the OS CSPRNG, as secrets.token_bytes uses


def commitment(seed: bytes) -> str:
    """The public commitment to ``seed``: ``sha256(seed).hexdigest()`` (64 hex chars)."""
    return sha256(seed).hexdigest()


def salt_digest(salts: Sequence[str]) -> str:
    """``S``, the digest of the salts that apply to one die (module
    docstring, "Salts"): SHA-256 over, for each salt in order, the decimal
    length of its UTF-8 bytes, a ``:`` and those bytes; lowercase hex.
    ``""`` when there are no salts."""
    if not salts:
        return ""
    h = sha256()
    for salt in salts:
        raw = salt.encode("utf-8")
        h.update(b"%d:" % len(raw))
        h.update(raw)
    return h.hexdigest()


def _message(encounter_id: str, index: int, k: int, salted: str = "") -> bytes:
    """The HMAC message of block ``k`` of engine roll ``index`` (module docstring, step 2a and "Salts")."""
    if salted:
        msg = f"{encounter_id}:{index}:{k}:{salted}"
    else:
        msg = f"{encounter_id}:{index}" if k == 0 else f"{encounter_id}:{index}:{k}"
    return msg.encode("utf-8")


_IPAD = bytes(x ^ 0x36 for x in range(256))  # RFC 2104's inner and outer pads, as byte maps
_OPAD = bytes(x ^ 0x5C for x in range(256))


class EngineKey:
    """HMAC-SHA256 keyed with one encounter's ``seed``, its two key pads
    hashed once (RFC 2104): the same digests as ``hmac.digest(seed, msg,
    "sha256")`` at a third of the cost, for deriving many rolls (``verify
    --dice``). Errors: ``ValueError`` when ``seed`` is not non-empty bytes."""

    __slots__ = ("_inner", "_outer")

    def __init__(self, seed: bytes) -> None:
        if not isinstance(seed, (bytes, bytearray)) or not seed:
            raise ValueError("the engine needs the encounter's seed as non-empty bytes")
        key = bytes(seed)
        if len(key) > 64:  # longer than SHA-256's block: HMAC keys with its hash
            key = sha256(key).digest()
        key = key.ljust(64, b"\0")
        self._inner = sha256(key.translate(_IPAD))
        self._outer = sha256(key.translate(_OPAD))

    def digest(self, msg: bytes) -> bytes:
        """``HMAC-SHA256(key=seed, msg=msg)``: 32 bytes."""
        inner = self._inner.copy()
        inner.update(msg)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()

    def faces(self, encounter_id: str, first: int, dice: Sequence[int],
              standing: Sequence[tuple[int, str]] = (), command_salt: str = "") -> tuple[int, ...]:
        """:func:`salted_faces` with this key's seed: the faces of the
        engine dice ``dice`` (their sides) from roll number ``first`` on.
        Errors: as :func:`engine_face`."""
        if first.__class__ is not int and (isinstance(first, bool) or not isinstance(first, int)) or first < 0:
            raise ValueError(f"an engine roll number is an int >= 0, not {first!r}")
        salted = bool(standing or command_salt)
        inner0, outer0 = self._inner, self._outer
        out = []
        index = first
        for sides in dice:
            limit = _LIMITS.get(sides) if sides.__class__ is int else None
            if limit is None:
                if isinstance(sides, bool) or not isinstance(sides, int) or not 1 <= sides <= _TWO_64:
                    raise ValueError(f"a die has 1 to 2**64 sides, not {sides!r}")
                limit = _TWO_64 - _TWO_64 % sides
                if len(_LIMITS) < 4096:
                    _LIMITS[sides] = limit
            digest = salt_digest(salts_for(index, standing, command_salt)) if salted else ""
            # step 2, block k = 0, the keyed HMAC written out (self.digest(_message(...)))
            inner = inner0.copy()
            inner.update(f"{encounter_id}:{index}:0:{digest}".encode() if digest else f"{encounter_id}:{index}".encode())
            outer = outer0.copy()
            outer.update(inner.digest())
            block = outer.digest()
            v = int.from_bytes(block[:8], "big")
            if v >= limit:  # rejected (below 10**-17 for a d100): the other chunks, then k = 1, 2, ...
                v = self._accepted(block, encounter_id, index, limit, digest)
            out.append(1 + v % sides)
            index += 1
        return tuple(out)

    def _accepted(self, block: bytes, encounter_id: str, index: int, limit: int, salted: str) -> int:
        """The first chunk ``v < limit`` of block 0's last three chunks, then of blocks 1, 2, ... (step 2)."""
        k = 0
        while True:
            for v in _chunks(block):
                if v < limit:
                    return v
            k += 1
            block = self.digest(_message(encounter_id, index, k, salted))


_LIMITS: dict[int, int] = {}  # sides -> L (module docstring, step 1), for the dice seen


def _chunks(block: bytes):
    """The four 8-byte chunks of a block as big-endian integers, in order (step 2c)."""
    return (int.from_bytes(block[j:j + 8], "big") for j in (0, 8, 16, 24))


def _digest(seed: bytes, encounter_id: str, index: int, k: int, salted: str = "") -> bytes:
    """HMAC-SHA256 block ``k`` for engine roll ``index`` (see module docstring)."""
    return EngineKey(seed).digest(_message(encounter_id, index, k, salted))


def engine_face(seed: bytes, encounter_id: str, index: int, sides: int, salts: Sequence[str] = ()) -> int:
    """The face (``1..sides``) of engine roll ``index`` on a d``sides``.

    Derived from HMAC-SHA256(key=seed, msg=f"{encounter_id}:{index}") with
    rejection sampling, exactly as the module docstring specifies; the same
    inputs always give the same face. ``salts`` are the salts that apply to
    this die, in order (:func:`salts_for`); with none the face is the
    unsalted one. ``seed`` is non-empty bytes, ``index >= 0``,
    ``1 <= sides <= 2**64``; otherwise ``ValueError`` (a programming error).
    """
    if not isinstance(seed, (bytes, bytearray)) or not seed:
        raise ValueError("the engine needs the encounter's seed as non-empty bytes")
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ValueError(f"an engine roll number is an int >= 0, not {index!r}")
    if isinstance(sides, bool) or not isinstance(sides, int) or not 1 <= sides <= _TWO_64:
        raise ValueError(f"a die has 1 to 2**64 sides, not {sides!r}")
    return _face(bytes(seed), encounter_id, index, sides, salt_digest(salts))


def _face(seed: bytes, encounter_id: str, index: int, sides: int, salted: str) -> int:
    """:func:`engine_face` of checked arguments, ``salted`` the salt digest."""
    limit = _TWO_64 - _TWO_64 % sides
    k = 0
    while True:
        block = _digest(seed, encounter_id, index, k, salted) if salted else _digest(seed, encounter_id, index, k)
        for j in (0, 8, 16, 24):
            v = int.from_bytes(block[j:j + 8], "big")
            if v < limit:
                return 1 + v % sides
        k += 1


def engine_faces(seed: bytes, encounter_id: str, first: int,
                 dice: Sequence[int]) -> tuple[int, ...]:
    """The engine's faces for one expression's ``dice`` (their sides, e.g.
    ``(100,)`` or ``(6, 6)``): die *i* is :func:`engine_face` of roll number
    ``first + i``. Used by :class:`affray.dice.roller.Roller` to roll and by
    :func:`rederive` to check."""
    return tuple(
        engine_face(seed, encounter_id, first + i, sides) for i, sides in enumerate(dice)
    )


def salts_for(index: int, standing: Sequence[tuple[int, str]] = (), command_salt: str = "") -> tuple[str, ...]:
    """The salts that apply to engine die ``index``: the value of every
    standing salt ``(from_index, value)`` (``SaltAdded``, in log order) with
    ``from_index <= index``, then the command's own salt when it has one."""
    out = tuple(value for first, value in standing if first <= index)
    return out + (command_salt,) if command_salt else out


def salted_faces(seed: bytes, encounter_id: str, first: int, dice: Sequence[int],
                 standing: Sequence[tuple[int, str]] = (), command_salt: str = "") -> tuple[int, ...]:
    """The faces of the engine dice ``dice`` (their sides) rolled from roll
    number ``first`` on, each die with the salts that apply to it
    (:func:`salts_for`). With no salts, the unsalted faces. Errors: as
    :func:`engine_face`. (:meth:`EngineKey.faces`, keyed once per call.)"""
    return EngineKey(seed).faces(encounter_id, first, dice, standing, command_salt)


def rederive(seed: bytes, encounter_id: str, rolled: DiceRolled,
             standing: Sequence[tuple[int, str]] = (), command_salt: str = "") -> tuple[int, ...]:
    """The faces an engine roll must have, re-derived from the revealed seed.

    ``rolled`` is a ``DiceRolled`` with ``source == "engine"``; its dice use
    roll numbers ``rolled.index``, ``rolled.index + 1``, ... (see the module
    docstring); ``standing`` are the encounter's salts ``(from_index,
    value)`` and ``command_salt`` the rolling command's own (see "Salts"). ``affray verify --dice`` compares the result with
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
    return salted_faces(seed, encounter_id, rolled.index, e.dice, standing, command_salt)
