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
blank line. Markdown characters of the user's text are backslash-escaped,
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

import re

from affray.events.envelope import Recorded
from affray.views.formats.common import STRUCK, Log, first_of_command, one_line, prepare, segments
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
    records: list[Recorded],
    *,
    rounds: tuple[int, int] | None = None,
    show_secret: bool = False,
    limit: int = LIMIT,
) -> str:
    """The encounter as Discord messages of at most ``limit`` characters,
    each after a ``--- message N ---`` line (see the module docstring).

    ``rounds`` limits it to an inclusive (first, last) range; secret notes
    are left out unless ``show_secret``.
    """
    if not records:
        return ""
    messages = pack(blocks(prepare(records, rounds=rounds, show_secret=show_secret), limit), limit)
    return "".join(SEPARATOR.format(n=i) + "\n" + m + "\n" for i, m in enumerate(messages, 1))


def blocks(log: Log, limit: int = LIMIT) -> list[list[str]]:
    """The lines of ``log`` in blocks that should stay in one message when
    they can: a round's heading goes with its first block, the title with
    the first block of all. Every line is at most ``limit`` long."""
    names = list(log.names.values())
    firsts = iter(first_of_command(log.entries()))
    out: list[list[str]] = []
    head = [_start(f"**{dc_escape(_short(one_line(log.title), 200))}**"), ""]
    for rnd in log.rounds:
        head += [f"**{rnd.title}**"]
        for block in rnd.blocks:
            lines: list[str] = []
            for item in block.entries:
                lines += _lines(item, names, show_actor=next(firsts), limit=limit)
            out.append(head + lines)
            head = []
        if head:  # a round without blocks cannot happen, but keep the heading
            out.append(head)
            head = []
    if head:
        out.append(head[:1])
    return out


def pack(blocks_: list[list[str]], limit: int = LIMIT) -> list[str]:
    """Fill messages of at most ``limit`` with ``blocks_`` (lists of lines,
    each line at most ``limit``), a blank line between blocks; a block goes
    whole into a message when it fits, else it is split between lines."""
    messages: list[list[str]] = []
    cur: list[str] = []
    size = 0  # units of "\n".join(cur)

    def close() -> None:
        nonlocal cur, size
        while cur and not cur[-1]:
            cur.pop()
        if cur:
            messages.append(cur)
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
    close()
    return ["\n".join(m) for m in messages]


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
    """How much of ``text`` to put in the next piece: the longest prefix
    that ends at a space (the space kept) and fits in ``limit`` once
    formatted; when there is no such space in the second half of what fits
    (a "word" of a thousand characters), the longest prefix that fits."""
    if units(_format(text, names, status, "")) <= limit:
        return len(text)
    lo, hi = 1, len(text)  # the longest prefix that fits, by bisection
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if units(_format(text[:mid], names, status, "")) <= limit:
            lo = mid
        else:
            hi = mid - 1
    cut = text.rfind(" ", 0, lo) + 1
    while cut > 0 and units(_format(text[:cut], names, status, "")) > limit:
        cut = text.rfind(" ", 0, cut - 1) + 1
    return cut if cut > lo // 2 else lo
