"""GitHub-flavoured markdown: a heading per round, a bullet per line.

In the record view, retracted and rewound entries are struck through
(``~~...~~ *(retracted)*``); the table view shows the live timeline only and
ends with a section ``## As it stands`` (the result, then a bullet per
combatant: status, HP per location, conditions). The actor is shown on each
command's first line. With ``footer``, a rule ``---`` and a bullet each for
the dice seed commitment and the log's head (version and hash) close the
file. Every markdown character
in the narration (names, notes, reasons) is backslash-escaped; a line break
inside a note becomes `` / `` so that one entry stays one bullet.
``tests/golden/duel.md`` pins the output byte for byte.
"""

from __future__ import annotations

import io

from affray.events.envelope import Recorded
from affray.views.formats.common import (
    STANDING_TITLE,
    STRUCK,
    Source,
    TrimEnd,
    footer_lines,
    one_line,
    round_title,
    shows_standing,
    source_of,
    standing,
    table_blocks,
)
from affray.views.narrate import Entry


def md_escape(text: str) -> str:
    """``text`` with markdown's special characters backslash-escaped."""
    for ch in "\\`*_[]<>|~":
        text = text.replace(ch, "\\" + ch)
    return text


def render(
    records: list[Recorded] | Source,
    *,
    rounds: tuple[int, int] | None = None,
    show_secret: bool = False,
    view: str = "record",
    footer: bool = False,
) -> str:
    """GitHub-flavoured markdown: a heading per round, a bullet per line,
    the actor on each command's first line (see the module docstring).

    ``rounds`` limits the output to an inclusive (first, last) range; secret
    notes are left out unless ``show_secret``; ``view`` is ``record`` (every
    entry, retracted ones struck through) or ``table`` (the live timeline
    and the final state); ``footer`` adds the seed commitment and head.
    """
    buf = io.StringIO()
    write(source_of(records), buf, rounds=rounds, show_secret=show_secret, view=view, footer=footer)
    return buf.getvalue()


def write(
    src: Source,
    out,
    *,
    rounds: tuple[int, int] | None = None,
    show_secret: bool = False,
    view: str = "record",
    footer: bool = False,
) -> None:
    """:func:`render` streamed to ``out`` (anything with ``write(str)``),
    block by block; nothing for an empty log."""
    if src.empty:
        return
    w = TrimEnd(out)
    w.write(f"# {md_escape(src.title)}\n")
    blocks, walk = table_blocks(src, rounds=rounds, show_secret=show_secret, view=view)
    for block in blocks:
        if block.opens_round:
            w.write(f"\n\n## {round_title(block.round)}\n")
        for item, first in zip(block.entries, block.firsts):
            w.write("\n" + _line(item, show_actor=first))
    if walk is not None and shows_standing(src, rounds):
        w.write(f"\n\n## {STANDING_TITLE}\n")
        for line in standing(src, walk, show_secret=show_secret):
            w.write("\n- " + md_escape(line))
    if footer:
        w.write("\n\n---\n")
        for line in footer_lines(src):
            w.write("\n- " + md_escape(line))
    w.close()


def _line(item: Entry, *, show_actor: bool) -> str:
    text = md_escape(one_line(item.text))
    if item.status in STRUCK:
        text = f"~~{text}~~ *({item.status})*"
    actor = f" — *{md_escape(item.actor)}*" if show_actor and item.actor else ""
    return f"- {text}{actor}"
