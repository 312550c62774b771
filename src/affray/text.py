"""Text that users and sheets supply, made safe to print on one line.

Shared by every layer (rules' error messages, views, exports), so it sits at
the bottom beside :mod:`affray.errors` and imports nothing of ours but the
standard library.

The one definition of what may never reach a terminal or a post is
:func:`is_unsafe`: the C0 controls (U+0000–U+001F) and DEL, the C1 controls
(U+0080–U+009F), the bidirectional overrides, embeddings, isolates and marks
(U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C), the line and
paragraph separators (U+2028, U+2029) and lone surrogates (which cannot even
be written as UTF-8). On it stand:

- :func:`safe_line`, the sanitiser of every export and view (issue 16, item
  4): escape and control sequences (``ESC [ ... m``, ``ESC ] ... BEL``, their
  C1 forms) are removed whole, line breaks become `` / `` so one field stays
  one line, a tab becomes a space, and every other unsafe character is shown
  as its Python escape (``\\x07``, ``\\u202e``), so a reader sees that
  something was there;
- :func:`safe_lines`, the same for a block of lines (the CLI's printing):
  each line made safe, the newlines between them kept;
- :func:`one_line`, for error messages: every non-printable character
  (unsafe or not) shown as its Python escape, line breaks included;
- :func:`escape_json`, for JSON text printed where a terminal may show it:
  unsafe characters written as ``\\uXXXX`` escapes (lossless: the JSON
  decodes to the same strings).
"""

from __future__ import annotations

import re

__all__ = ["BIDI", "escape_json", "is_unsafe", "one_line", "safe_line", "safe_lines"]

#: Bidirectional formatting characters (Unicode UAX #9): embeddings and
#: overrides U+202A–U+202E, isolates U+2066–U+2069, the marks LRM, RLM and ALM.
BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")

_UNSAFE_CLASS = "\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u2028\u2029\ud800-\udfff"
# The patterns are compiled on first use (``re`` keeps them): most commands
# print only text that :meth:`str.isprintable` already clears.
_UNSAFE = f"[{_UNSAFE_CLASS}]"
#: What :func:`escape_json` escapes: the unsafe characters JSON encoders
#: leave raw (C0 inside strings is always escaped by them; outside strings it
#: is layout, such as an indented document's newlines).
_JSON_RAW = "[\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u2028\u2029\ud800-\udfff]"

#: ECMA-48 sequences, removed whole by :func:`safe_line`: CSI (``ESC [`` or
#: U+009B, parameters, intermediates, a final byte); OSC, DCS, SOS, PM and APC
#: strings (``ESC ]``, ``ESC P``, ``ESC X``, ``ESC ^``, ``ESC _`` or their C1
#: forms) up to their terminator (BEL or ST) or the next control; and the
#: two- and three-character ``ESC`` sequences (``ESC c``, ``ESC ( B``).
_SEQUENCE = (
    r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
    r"|(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\x00-\x1f\x7f-\x9f]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?"
)


def is_unsafe(ch: str) -> bool:
    """Whether the character ``ch`` may not be printed as it is (see the
    module docstring for the list)."""
    return re.match(_UNSAFE, ch) is not None


def _escaped(m: re.Match[str]) -> str:
    c = m.group()
    if c == "\t":
        return " "
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_line(text: str) -> str:
    """``text`` made safe to print on one line of a terminal, a post or a
    page: control and escape sequences removed whole, line breaks (``\\n``,
    ``\\r``, ``\\v``, ``\\f``, U+001C–U+001E, U+0085, U+2028, U+2029) turned
    into `` / `` between the non-blank lines, a tab into a space, and every
    other :func:`is_unsafe` character into its escape (``\\x1b``,
    ``\\u202e``). Text that holds none of them comes back unchanged; the
    result holds none of them; ``safe_line(safe_line(t)) == safe_line(t)``.
    Shape: ``str -> str``; never raises. Source: issue 16, item 4."""
    if text.isprintable() or re.search(_UNSAFE, text) is None:  # every unsafe character is unprintable
        return text
    text = re.sub(_SEQUENCE, "", text)
    parts = text.splitlines()
    if len(parts) > 1 or (parts and parts[0] != text):
        text = " / ".join(p.strip() for p in parts if p.strip())
    return re.sub(_UNSAFE, _escaped, text)


def safe_lines(text: str) -> str:
    """``text`` of several lines made safe to print: each line (split at
    ``\n`` only) passed through :func:`safe_line`, the ``\n`` kept, so a
    block keeps its layout while every other line break, control or escape
    sequence inside a line is neutralised. Shape: ``str -> str``; never
    raises. The CLI prints everything through it (issue 16, item 4)."""
    if re.search(_UNSAFE, text.replace("\n", "")) is None:
        return text
    return "\n".join(safe_line(line) for line in text.split("\n"))


def one_line(text: str) -> str:
    """``text`` with newlines and every other non-printable character
    escaped as Python would write it (``\\n``, ``\\x1b``), so a key, name or
    file name inside a message cannot break it over lines or send control
    sequences to a terminal. Shape: ``str -> str``; never raises."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def escape_json(text: str) -> str:
    """JSON ``text`` with every :func:`is_unsafe` character that JSON
    encoders leave raw (C1, bidi, U+2028/U+2029) written as a ``\\uXXXX``
    escape: it decodes to the same values, and prints safely. Only for text
    whose unsafe characters are all inside JSON strings (any encoder's
    output). Shape: ``str -> str``; never raises."""
    if text.isprintable() or re.search(_JSON_RAW, text) is None:
        return text
    return re.sub(_JSON_RAW, lambda m: f"\\u{ord(m.group()):04x}", text)


def quick_ratio(a: str, b: str) -> float:
    """``difflib.SequenceMatcher(None, a, b).quick_ratio()``: twice the
    characters ``a`` and ``b`` share (counted with repeats) over their total
    length, 1.0 for two empty texts. An upper bound of the ratio difflib
    matches names by. Shape: ``(str, str) -> float`` in 0–1."""
    total = len(a) + len(b)
    if not total:
        return 1.0
    left: dict[str, int] = {}
    for ch in b:
        left[ch] = left.get(ch, 0) + 1
    shared = 0
    for ch in a:
        n = left.get(ch, 0)
        if n > 0:
            left[ch] = n - 1
            shared += 1
    return 2.0 * shared / total


def nearest(word: str, choices, cutoff: float = 0.6) -> str | None:  # noqa: ANN001 - any iterable of str
    """The one of ``choices`` nearest ``word``, ignoring case, as written in
    ``choices``, when at least ``cutoff`` alike (``difflib``'s ratio, 0–1);
    else None. :mod:`difflib` is imported on the first call: only a refused
    name asks for a suggestion, and the import (with ``heapq``) costs about
    1 ms of every command otherwise. Nor is it imported when no choice
    passes :func:`quick_ratio`, the bound ``difflib.get_close_matches``
    checks before the ratio (a sheet's own skills, which the rules do not
    read, are mostly nothing like theirs)."""
    by_lower = {c.lower(): c for c in choices}
    lowered = word.lower()
    if not any(quick_ratio(lowered, c) >= cutoff for c in by_lower):
        return None
    import difflib  # deferred: only an error message needs it

    hits = difflib.get_close_matches(lowered, list(by_lower), n=1, cutoff=cutoff)
    return by_lower[hits[0]] if hits else None
