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
        The encounter's secret key: 32 random bytes (:func:`new_seed`),
        kept in the key file beside the log (``<db>.keys``, mode 0600;
        :mod:`affray.store.keys`), never in the log itself.
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

Salts (players' entropy)
========================

Any participant may add a salt (``affray salt VALUE``): a ``SaltAdded``
event with ``value`` (text) and ``from_index``, one past the highest engine
roll number drawn so far in the whole log (undone and rewound rolls
included). A command may bring its own salt (``--salt VALUE``), recorded in
its ``CommandIssued.salt``. The salts that apply to engine die ``index`` are,
in this order (:func:`salts_for`):

* the value of every ``SaltAdded`` of the encounter, in log order, whose
  ``from_index <= index`` (live or not: undoing or rewinding a salt never
  takes it back);
* then the rolling command's own salt, if it has one.

When no salt applies, the face is derived exactly as above. Otherwise let
``S`` be the lowercase hex SHA-256 of, for each applicable salt in order,
its UTF-8 byte length in decimal ASCII, a ``:``, and its UTF-8 bytes
(:func:`salt_digest`); step 2a's message becomes
``f"{encounter_id}:{index}:{k}:{S}"`` for every ``k`` (``k = 0``
included), and everything else is unchanged. Example::

    S = hashlib.sha256(b"".join(b"%d:%s" % (len(s.encode()), s.encode())
                                for s in salts)).hexdigest()
    msg = f"{encounter_id}:{index}:{k}:{S}"

A salt added after the seed's commitment is something the GM could not know
when the seed was drawn, so the GM cannot have ground the seed to favour any
outcome. Because ``from_index`` lies past every roll already drawn, a salt
never changes a roll that was drawn: a command re-issued after an undo or a
rewind reuses its roll numbers and gets the same faces. Whoever holds the
seed and every salt can still compute the rolls to come (README, "Threat
model").

A chosen seed (``affray new --seed``) must be at least
:data:`MIN_CHOSEN_SEED` bytes; the encounter records ``seed_chosen``.

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

from affray.dice.engine import EngineKey, commitment, engine_face, new_seed, rederive, salt_digest, salted_faces, salts_for
from affray.dice.errors import BadDiceValue, BadExpression, DiceError, PartialDice, TooManyDice
from affray.dice.expr import MAX_DICE, MAX_SIDES, Expr, combine, count_dice, parse
from affray.dice.needs import MissingDice, needed_message
from affray.dice.roller import Roller
from affray.dice.table import face_from_token, parse_values

#: The shortest seed a GM may choose (``affray new --seed``), in bytes: a
#: shorter one could be brute-forced from its commitment.
MIN_CHOSEN_SEED = 16


def short_seed_refusal(seed: bytes | None, *, manual_dice: bool = False) -> str:
    """The one-line refusal of a chosen ``seed`` shorter than
    :data:`MIN_CHOSEN_SEED` bytes, or ``""`` when it may be used (none
    chosen, long enough, or a manual-dice encounter, whose seed decides no
    die). A shorter seed can be found from its commitment by trying every
    value (README, "Threat model"). ``affray new --seed``, ``affray demo
    --seed`` and the Python API (``affray.commands.handler.execute``)
    refuse with these same words."""
    if seed is None or manual_dice or len(seed) >= MIN_CHOSEN_SEED:
        return ""
    return (
        f"--seed must be at least {MIN_CHOSEN_SEED} bytes ({2 * MIN_CHOSEN_SEED} hex digits), "
        f"got {len(seed)}: a shorter seed can be found from its commitment; pass a longer one, or none"
    )

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
    "EngineKey",
    "engine_face",
    "parse_values",
    "face_from_token",
    "needed_message",
    "Roller",
    "rederive",
    "salt_digest",
    "salts_for",
    "salted_faces",
    "MIN_CHOSEN_SEED",
    "short_seed_refusal",
    "MAX_DICE",
    "MAX_SIDES",
]
