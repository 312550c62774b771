"""Discord: messages of at most 2,000 characters, ready to post one by one.

Output layout (the contract a bot or a human splits on): each message is
preceded by a separator line of its own, ``--- message N ---`` (N from 1),
and runs to the next separator or the end of the text::

    --- message 1 ---
    **Golden duel**

    **Setup**
    ...
    --- message 2 ---
    ...

Split with ``re.split(r"^--- message \\d+ ---$\\n?", text, flags=re.M)[1:]``
and strip the trailing newline of each part. No line of a message can look
like a separator: a message line that would start with ``-`` (or another
markdown block marker: ``#``, ``>``, ``+``, ``1.``) has it backslash-escaped.

Within a message: the encounter's name and each round in bold, then one line
per entry; combatant names and test rolls in bold; the actor in italics on
each command's first line; retracted and rewound entries in ``~~...~~``.
Blocks (one exchange, or one command outside exchanges) are separated by a
blank line. The record view strikes retracted and rewound entries through;
the table view (for players) shows the live timeline only and ends with a
block ``**As it stands**``: the result, then a line per combatant (status,
HP per location, conditions). With ``footer``, a last block in italics gives
the dice seed commitment and the log's head (version and hash). Markdown characters of the user's text are backslash-escaped,
and ``@everyone``/``@here`` get a zero-width space so a paste pings no one.

Splitting: messages are filled greedily with whole blocks; a block that does
not fit in the rest of a message starts the next one, together with its
round heading when it is the round's first block. A block longer than a
whole message is split between its lines. A message is never split inside a
line, except a single line longer than the limit (a very long GM note): it is
cut after the last space that keeps the piece within the limit (or, when that
would leave the piece less than half full, as for a "word" longer than the
limit, right at the limit), and each piece carries the line's formatting
(struck through if it was); the pieces follow one another, so joining them
gives the line back. Lengths are counted in UTF-16 code
units, as Discord counts them, so an emoji counts 2.
"""

from __future__ import annotations

import io
import re
from itertools import chain
from typing import Iterable, Iterator

from affray.events.envelope import Recorded
from affray.views.formats.common import (
    STANDING_TITLE,
    STRUCK,
    Log,
    Source,
    footer_lines,
    longest_fit,
    one_line,
    round_title,
    segments,
    shows_standing,
    source_of,
    standing,
    table_blocks,
)
from affray.views.narrate import Entry

#: Discord's limit for one message.
LIMIT = 2000
#: The separator line before message N (N from 1).
SEPARATOR = "--- message {n} ---"
#: Matches a separator line (with ``re.M``).
SEPARATOR_RE = re.compile(r"^--- message (\d+) ---$", re.M)

_BLOCK_START = re.compile(r"[-#>+]|\d+[.)]")


def units(text: str) -> int:
    """The length of ``text`` in UTF-16 code units (Discord's count)."""
    return len(text.encode("utf-16-le")) // 2


def dc_escape(text: str) -> str:
    """``text`` with Discord markdown's special characters backslash-escaped
    and mass mentions defused."""
    for ch in "\\`*_~|<>[]":
        text = text.replace(ch, "\\" + ch)
    return text.replace("@everyone", "@\u200beveryone").replace("@here", "@\u200bhere")


def split(text: str) -> list[str]:
    """The messages of a :func:`render` output, in order (separators removed)."""
    parts = SEPARATOR_RE.split(text)
    # parts: [before, n1, body1, n2, body2, ...]
    return [body.removeprefix("\n").removesuffix("\n") for body in parts[2::2]]


def render(
    records: list[Recorded] | Source,
    *,
    rounds: tuple[int, int] | None = None,
    show_secret: bool = False,
    limit: int = LIMIT,
    view: str = "record",
    footer: bool = False,
) -> str:
    """The encounter as Discord messages of at most ``limit`` characters,
    each after its separator line (see the module docstring). ``rounds``
    limits it to an inclusive (first, last) range; secret notes are left out
    unless ``show_secret``; ``view`` is ``record`` or ``table``; ``footer``
    adds the seed commitment and head.
    """
    buf = io.StringIO()
    write(source_of(records), buf, rounds=rounds, show_secret=show_secret, limit=limit, view=view, footer=footer)
    return buf.getvalue()


def write(
    src: Source,
    out,
    *,
    rounds: tuple[int, int] | None = None,
    show_secret: bool = False,
    limit: int = LIMIT,
    view: str = "record",
    footer: bool = False,
) -> None:
    """:func:`render` streamed to ``out`` (anything with ``write(str)``),
    message by message; nothing for an empty log."""
    if src.empty:
        return
    names = list(src.names.values())
    found, walk = table_blocks(src, rounds=rounds, show_secret=show_secret, view=view)
    blocks_ = _block_lines(src.title, names, ((b.opens_round, b) for b in found), limit)

    def closing() -> Iterator[list[str]]:
        if walk is not None and shows_standing(src, rounds):
            lines = [f"**{STANDING_TITLE}**"]
            for line in standing(src, walk, show_secret=show_secret):
                lines += _plain(line, names, limit)
            yield lines
        if footer:
            yield [piece for line in footer_lines(src) for piece in _plain(line, names, limit, italic=True)]

    for n, message in enumerate(_pack(chain(blocks_, closing()), limit), 1):
        out.write(SEPARATOR.format(n=n) + "\n" + message + "\n")


def _plain(text: str, names: list[str], limit: int, *, italic: bool = False) -> list[str]:
    """A line that is no entry (the final state, the footer), formatted as
    an entry's is (names and rolls in bold), or in italics; cut at spaces
    into pieces of at most ``limit`` units."""
    if italic:
        fmt = lambda piece: _start(f"*{dc_escape(piece)}*")  # noqa: E731
    else:
        fmt = lambda piece: _format(piece, names, "live", "")  # noqa: E731
    out: list[str] = []
    rest = text
    while rest:
        cut = longest_fit(rest, lambda piece: units(fmt(piece)) <= limit)
        out.append(fmt(rest[:cut]))
        rest = rest[cut:]
    return out


def blocks(log: Log, limit: int = LIMIT) -> list[list[str]]:
    """The lines of ``log`` in blocks that should stay in one message when
    they can: a round's heading goes with its first block, the title with
    the first block of all. Every line is at most ``limit`` long."""
    pairs = ((i == 0, b) for rnd in log.rounds for i, b in enumerate(rnd.blocks))
    return list(_block_lines(log.title, list(log.names.values()), pairs, limit))


def _block_lines(title: str, names: list[str], pairs, limit: int) -> Iterator[list[str]]:
    """:func:`blocks` as a stream, from ``(opens_round, block)`` pairs."""
    head = [_start(f"**{dc_escape(_short(one_line(title), 200))}**"), ""]
    shown = False
    for opens, block in pairs:
        if opens:
            head += [f"**{round_title(block.round)}**"]
        lines: list[str] = []
        for item, first in zip(block.entries, block.firsts):
            lines += _lines(item, names, show_actor=first, limit=limit)
        yield head + lines
        head = []
        shown = True
    if not shown:
        yield head[:1]


def pack(blocks_: list[list[str]], limit: int = LIMIT) -> list[str]:
    """Fill messages of at most ``limit`` with ``blocks_`` (lists of lines,
    each line at most ``limit``), a blank line between blocks; a block goes
    whole into a message when it fits, else it is split between lines."""
    return list(_pack(blocks_, limit))


def _pack(blocks_: Iterable[list[str]], limit: int = LIMIT) -> Iterator[str]:
    """:func:`pack` as a stream: each message as soon as it is full."""
    cur: list[str] = []
    size = 0  # units of "\n".join(cur)
    done: list[str] = []

    def close() -> None:
        nonlocal cur, size
        while cur and not cur[-1]:
            cur.pop()
        if cur:
            done.append("\n".join(cur))
        cur, size = [], 0

    def add(line: str, *, gap: bool) -> None:
        nonlocal size
        extra = units(line) + (1 if cur else 0) + (1 if gap and cur else 0)
        if cur and size + extra > limit:
            close()
            extra = units(line)
            gap = False
        if gap and cur:
            cur.append("")
        if not cur and not line:
            return  # no blank line at the top of a message
        cur.append(line)
        size += extra

    for block in blocks_:
        length = units("\n".join(block))
        if cur and size + 2 + length > limit and length <= limit:
            close()
        for i, line in enumerate(block):
            add(line, gap=i == 0)
        yield from done
        done.clear()
    close()
    yield from done


def _start(line: str) -> str:
    """``line`` with a leading markdown block marker escaped."""
    return "\\" + line if _BLOCK_START.match(line) else line


def _format(text: str, names: list[str], status: str, actor: str) -> str:
    body = "".join(
        f"**{dc_escape(piece)}**" if kind in ("name", "roll") else dc_escape(piece)
        for kind, piece in segments(text, names)
    )
    if status in STRUCK:
        body = f"~~{body}~~ *({status})*"
    return _start(body + (f" — *{dc_escape(actor)}*" if actor else ""))


def _short(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def _lines(item: Entry, names: list[str], *, show_actor: bool, limit: int) -> list[str]:
    """The entry as one line, or, when longer than ``limit``, as pieces cut
    at spaces, each formatted on its own and at most ``limit`` long (the
    actor, shortened to 100 characters, goes on the last piece, or on a line
    of its own when it does not fit there)."""
    text = one_line(item.text)
    actor = _short(one_line(item.actor), 100) if show_actor and item.actor else ""
    line = _format(text, names, item.status, actor)
    if units(line) <= limit:
        return [line]
    out: list[str] = []
    rest = text
    while rest:
        cut = _longest_fit(rest, names, item.status, limit)
        piece, rest = rest[:cut], rest[cut:]
        out.append(_format(piece, names, item.status, ""))
    if actor:
        with_actor = _format(piece, names, item.status, actor)
        if units(with_actor) <= limit:
            out[-1] = with_actor
        else:
            out.append(f"— *{dc_escape(actor)}*")
    return out


def _longest_fit(text: str, names: list[str], status: str, limit: int) -> int:
    """How much of ``text`` to put in the next piece
    (:func:`~affray.views.formats.common.longest_fit`, formatted as
    :func:`_format` does, within ``limit`` units)."""
    return longest_fit(text, lambda piece: units(_format(piece, names, status, "")) <= limit)
