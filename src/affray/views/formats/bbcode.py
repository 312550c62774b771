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
"""

from __future__ import annotations

import io

from affray.events.envelope import Recorded
from affray.views.formats.common import STRUCK, Source, one_line, round_title, segments, source_of
from affray.views.narrate import Entry

_ZWSP = "\u200b"


def bb_escape(text: str) -> str:
    """``text`` that can never form a BBCode tag: ``[`` becomes ``[`` + U+200B."""
    return text.replace("[", "[" + _ZWSP)


def render(
    records: list[Recorded] | Source, *, rounds: tuple[int, int] | None = None, show_secret: bool = False
) -> str:
    """The encounter as one forum post in BBCode (see the module docstring).

    ``rounds`` limits it to an inclusive (first, last) range; secret notes
    are left out unless ``show_secret``.
    """
    buf = io.StringIO()
    write(source_of(records), buf, rounds=rounds, show_secret=show_secret)
    return buf.getvalue()


def write(src: Source, out, *, rounds: tuple[int, int] | None = None, show_secret: bool = False) -> None:
    """:func:`render` streamed to ``out`` (anything with ``write(str)``),
    block by block; nothing for an empty log."""
    if src.empty:
        return
    names = list(src.names.values())
    out.write(f"[b]{bb_escape(src.title)}[/b]\n")
    if src.roster:
        cells = "".join(
            f"[tr][td]{bb_escape(one_line(name))}[/td][td]{bb_escape(one_line(side))}[/td][/tr]"
            for name, side in src.roster
        )
        out.write(f"[table][tr][th]Combatant[/th][th]Side[/th][/tr]{cells}[/table]\n")
    for block in src.blocks(rounds=rounds, show_secret=show_secret):
        out.write(f"\n[b]{round_title(block.round)}[/b]\n" if block.opens_round else "\n")
        for item, first in zip(block.entries, block.firsts):
            out.write(_line(item, names, show_actor=first) + "\n")


def _line(item: Entry, names: list[str], *, show_actor: bool) -> str:
    text = "".join(
        f"[b]{bb_escape(piece)}[/b]" if kind in ("name", "roll") else bb_escape(piece)
        for kind, piece in segments(one_line(item.text), names)
    )
    if item.status in STRUCK:
        text = f"[s]{text}[/s] [i]({item.status})[/i]"
    actor = f" [i]— {bb_escape(one_line(item.actor))}[/i]" if show_actor and item.actor else ""
    return text + actor
