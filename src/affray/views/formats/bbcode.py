"""BBCode for forums: ``[b]``, ``[i]``, ``[s]`` and ``[table]``.

The post opens with the encounter's name in bold and a ``[table]`` of the
combatants and their sides. Each round follows under a bold heading; within
it, each exchange (or, outside exchanges, each command) is a paragraph.
Combatant names and test rolls are bold, as in ``[b]Vasana[/b] attacks
[b]Broo 1[/b]`` and ``Broadsword [b]34[/b] vs 65%``; the actor is in italics
on each command's first line; retracted and rewound entries are in
``[s]...[/s]`` followed by ``[i](retracted)[/i]``.

BBCode has no escape character, so every ``[`` of the user's text (names,
notes, reasons) and of the narration is followed by a zero-width space
(U+200B): it reads the same, but can never open or close a tag. Line breaks
inside a note become `` / ``.

Views: the record view strikes retracted and rewound entries through; the
table view (for players) shows the live timeline only, then a bold ``As it
stands`` and a line each for the result and every combatant (status, HP per
location, conditions). With ``footer``, a last paragraph in italics gives
the dice seed commitment and the log's head (version and hash).

Posts: a forum caps a post's length, so the output is cut into posts of at
most ``limit`` characters (default :data:`LIMIT`, 20,000) at round
boundaries: whole rounds fill a post while they fit; a round that does not
fit in the rest of a post starts the next one; a round longer than a whole
post is cut between its blocks (exchanges), a block longer than a post
between its lines, and a line longer than a post at spaces. When there is
more than one post, each is preceded by a separator line of its own,
``--- post N ---`` (N from 1), as the discord format's messages are; an
export that fits in one post has no separator (:func:`split` reads both).
"""

from __future__ import annotations

import io
import re
from typing import Iterable, Iterator

from affray.events.envelope import Recorded
from affray.views.formats.common import (
    STANDING_TITLE,
    STRUCK,
    Block,
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

_ZWSP = "\u200b"

#: The default most characters in one post (many forums allow 20,000 or more).
LIMIT = 20_000
#: The separator line before post N (N from 1), written only when there is more than one post.
SEPARATOR = "--- post {n} ---"
#: Matches a separator line (with ``re.M``).
SEPARATOR_RE = re.compile(r"^--- post (\d+) ---$", re.M)
#: The longest name or side shown in the roster table.
_NAME_MOST = 200


def bb_escape(text: str) -> str:
    """``text`` that can never form a BBCode tag: ``[`` becomes ``[`` + U+200B."""
    return text.replace("[", "[" + _ZWSP)


def split(text: str) -> list[str]:
    """The posts of a :func:`render` output, in order (separators removed;
    an output without a separator is one post)."""
    parts = SEPARATOR_RE.split(text)
    if len(parts) == 1:
        return [text.removesuffix("\n")] if text else []
    return [body.removeprefix("\n").removesuffix("\n") for body in parts[2::2]]


def render(
    records: list[Recorded] | Source,
    *,
    rounds: tuple[int, int] | None = None,
    show_secret: bool = False,
    view: str = "record",
    footer: bool = False,
    limit: int = LIMIT,
) -> str:
    """The encounter as forum posts in BBCode (see the module docstring).

    ``rounds`` limits it to an inclusive (first, last) range; secret notes
    are left out unless ``show_secret``; ``view`` is ``record`` or ``table``;
    ``footer`` adds the seed commitment and head; ``limit`` is the most
    characters in one post.
    """
    buf = io.StringIO()
    write(source_of(records), buf, rounds=rounds, show_secret=show_secret, view=view, footer=footer, limit=limit)
    return buf.getvalue()


def write(
    src: Source,
    out,
    *,
    rounds: tuple[int, int] | None = None,
    show_secret: bool = False,
    view: str = "record",
    footer: bool = False,
    limit: int = LIMIT,
) -> None:
    """:func:`render` streamed to ``out`` (anything with ``write(str)``),
    post by post (the first is held until it is known whether there is a
    second); nothing for an empty log."""
    if src.empty:
        return
    posts = pack_posts(_chunks(src, rounds, show_secret, view, footer, limit), limit)
    first = next(posts, None)
    second = next(posts, None)
    if second is None:
        out.write((first or "") + "\n")
        return
    out.write(SEPARATOR.format(n=1) + "\n" + first + "\n")
    out.write(SEPARATOR.format(n=2) + "\n" + second + "\n")
    for n, post in enumerate(posts, 3):
        out.write(SEPARATOR.format(n=n) + "\n" + post + "\n")


def _chunks(src: Source, rounds, show_secret: bool, view: str, footer: bool, limit: int) -> Iterator[list[str]]:
    """Lists of lines that should stay in one post when they can: the
    title and roster, then each round whole (its heading, and each block
    after a blank line) or, for a round longer than a post, each of its
    blocks; then the final state block and the footer."""
    names = list(src.names.values())
    roster = src.live_roster() if view == "table" else src.roster
    yield [f"[b]{bb_escape(src.title)}[/b]"] + _roster_tables(roster, limit)
    blocks, walk = table_blocks(src, rounds=rounds, show_secret=show_secret, view=view)
    held: list[list[str]] | None = []  # the current round's blocks, while the round fits in a post (else None)
    size = 0
    for block in blocks:
        if block.opens_round:
            if held:
                yield [line for lines in held for line in lines]
            held, size = [], 0
        lines = _block(block, names, limit)
        if held is None:
            yield lines  # this round is longer than a post: block by block
            continue
        held.append(lines)
        size += sum(len(line) + 1 for line in lines)
        if size > limit:
            yield from held
            held = None
    if held:
        yield [line for lines in held for line in lines]
    if walk is not None and shows_standing(src, rounds):
        yield ["", f"[b]{STANDING_TITLE}[/b]"] + [
            piece for line in standing(src, walk, show_secret=show_secret) for piece in _cut(line, names, limit)
        ]
    if footer:
        yield [""] + [f"[i]{bb_escape(line)}[/i]" for line in footer_lines(src)]


def _roster_tables(roster: list[tuple[str, str]], limit: int) -> list[str]:
    """The roster as ``[table]`` lines, as few as fit within ``limit`` each
    (one, unless the roster is very long)."""
    if not roster:
        return []
    head, tail = "[table][tr][th]Combatant[/th][th]Side[/th][/tr]", "[/table]"
    rows = [
        f"[tr][td]{bb_escape(_short(one_line(name)))}[/td][td]{bb_escape(_short(one_line(side)))}[/td][/tr]"
        for name, side in roster
    ]
    out, cur = [], ""
    for row in rows:
        if cur and len(head) + len(cur) + len(row) + len(tail) > limit:
            out.append(head + cur + tail)
            cur = ""
        cur += row
    out.append(head + cur + tail)
    return out


def _short(text: str) -> str:
    return text if len(text) <= _NAME_MOST else text[: _NAME_MOST - 1] + "…"


def _block(block: Block, names: list[str], limit: int) -> list[str]:
    lines = ["", f"[b]{round_title(block.round)}[/b]"] if block.opens_round else [""]
    for item, first in zip(block.entries, block.firsts):
        lines += _lines(item, names, show_actor=first, limit=limit)
    return lines


def pack_posts(chunks: Iterable[list[str]], limit: int) -> Iterator[str]:
    """Posts of at most ``limit`` characters from ``chunks`` (lists of
    lines, each line at most ``limit``): a chunk goes whole into a post when
    it fits, else it starts the next post, and a chunk longer than a post is
    split between lines. A post never starts or ends with a blank line."""
    cur: list[str] = []
    size = 0

    def close() -> str:
        nonlocal cur, size
        while cur and not cur[-1]:
            cur.pop()
        post = "\n".join(cur)
        cur, size = [], 0
        return post

    for chunk in chunks:
        length = len("\n".join(chunk).lstrip("\n"))
        if cur and size + 1 + len("\n".join(chunk)) > limit and length <= limit:
            yield close()
        for line in chunk:
            line = _unlike_separator(line)
            if cur and size + 1 + len(line) > limit:
                post = close()
                if post:
                    yield post
            if not cur and not line:
                continue  # no blank line at the top of a post
            size += len(line) + (1 if cur else 0)
            cur.append(line)
    post = close()
    if post:
        yield post


def _unlike_separator(line: str) -> str:
    """``line``, with a zero-width space after its first character if it
    would read as a separator line."""
    return line[0] + _ZWSP + line[1:] if SEPARATOR_RE.fullmatch(line) else line


def _format(text: str, names: list[str], status: str, actor: str) -> str:
    body = "".join(
        f"[b]{bb_escape(piece)}[/b]" if kind in ("name", "roll") else bb_escape(piece)
        for kind, piece in segments(text, names)
    )
    if status in STRUCK:
        body = f"[s]{body}[/s] [i]({status})[/i]"
    return body + (f" [i]— {bb_escape(actor)}[/i]" if actor else "")


def _line(item: Entry, names: list[str], *, show_actor: bool) -> str:
    return _format(one_line(item.text), names, item.status, one_line(item.actor) if show_actor and item.actor else "")


def _lines(item: Entry, names: list[str], *, show_actor: bool, limit: int) -> list[str]:
    """The entry as one line or, when longer than ``limit``, as pieces cut
    at spaces, each formatted on its own (the actor on the last piece, or on
    a line of its own when it does not fit there)."""
    line = _line(item, names, show_actor=show_actor)
    if len(line) <= limit:
        return [line]
    actor = _short(one_line(item.actor)) if show_actor and item.actor else ""
    out = _cut(one_line(item.text), names, limit, item.status)
    if actor:
        last = out[-1] + f" [i]— {bb_escape(actor)}[/i]"
        if len(last) <= limit:
            out[-1] = last
        else:
            out.append(f"[i]— {bb_escape(actor)}[/i]")
    return out


def _cut(text: str, names: list[str], limit: int, status: str = "live") -> list[str]:
    """``text`` formatted, in pieces of at most ``limit`` characters cut at
    spaces where it can (:func:`~affray.views.formats.common.longest_fit`)."""
    out: list[str] = []
    rest = text
    while rest:
        cut = longest_fit(rest, lambda piece: len(_format(piece, names, status, "")) <= limit)
        out.append(_format(rest[:cut], names, status, ""))
        rest = rest[cut:]
    return out or [""]
