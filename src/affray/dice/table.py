"""The table's own dice: ``--dice`` text read into tokens, a token read as
a face once its die is known (see :mod:`affray.dice`)."""

from __future__ import annotations

import re

from affray.dice.errors import BadDiceValue

# --------------------------------------------------------------------------- #
# Table values
# --------------------------------------------------------------------------- #

_SEPARATOR = r"\s*,\s*|\s+"  # compiled on first use (re's cache), not at import
_DIGITS = r"[0-9]+"
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
    tokens = re.split(_SEPARATOR, stripped)
    for token in tokens:
        check_token(token)
    return tokens


def check_token(token: str) -> None:
    """Refuse a table value token that is empty or not plain ASCII digits
    (whether it fits its die is :func:`face_from_token`'s check). Raises
    :class:`BadDiceValue` (one line, "Nothing was recorded.")."""
    if not token:
        raise BadDiceValue(
            f"an empty dice value (a stray comma?); {_VALUES_HINT}. "
            "Nothing was recorded."
        )
    if not re.fullmatch(_DIGITS, token):
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
    check_token(token)
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
