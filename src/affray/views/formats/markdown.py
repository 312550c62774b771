"""GitHub-flavoured markdown: a heading per round, a bullet per line.

Retracted and rewound entries are struck through (``~~...~~ *(retracted)*``)
and the actor is shown on each command's first line. Every markdown character
in the narration (names, notes, reasons) is backslash-escaped; a line break
inside a note becomes `` / `` so that one entry stays one bullet.
``tests/golden/duel.md`` pins the output byte for byte.
"""

from __future__ import annotations

import io

from affray.events.envelope import Recorded
from affray.views.formats.common import STRUCK, Source, TrimEnd, one_line, round_title, source_of
from affray.views.narrate import Entry


def md_escape(text: str) -> str:
    """``text`` with markdown's special characters backslash-escaped."""
    for ch in "\\`*_[]<>|~":
        text = text.replace(ch, "\\" + ch)
    return text


def render(
    records: list[Recorded] | Source, *, rounds: tuple[int, int] | None = None, show_secret: bool = False
) -> str:
    """GitHub-flavoured markdown: a heading per round, a bullet per line,
    retracted entries struck through, the actor on each command's first line.

    ``rounds`` limits the output to an inclusive (first, last) range; secret
    notes are left out unless ``show_secret``.
    """
    buf = io.StringIO()
    write(source_of(records), buf, rounds=rounds, show_secret=show_secret)
    return buf.getvalue()


def write(src: Source, out, *, rounds: tuple[int, int] | None = None, show_secret: bool = False) -> None:
    """:func:`render` streamed to ``out`` (anything with ``write(str)``),
    block by block; nothing for an empty log."""
    if src.empty:
        return
    w = TrimEnd(out)
    w.write(f"# {md_escape(src.title)}\n")
    for block in src.blocks(rounds=rounds, show_secret=show_secret):
        if block.opens_round:
            w.write(f"\n\n## {round_title(block.round)}\n")
        for item, first in zip(block.entries, block.firsts):
            w.write("\n" + _line(item, show_actor=first))
    w.close()


def _line(item: Entry, *, show_actor: bool) -> str:
    text = md_escape(one_line(item.text))
    if item.status in STRUCK:
        text = f"~~{text}~~ *({item.status})*"
    actor = f" — *{md_escape(item.actor)}*" if show_actor and item.actor else ""
    return f"- {text}{actor}"
