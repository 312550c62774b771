"""GitHub-flavoured markdown: a heading per round, a bullet per line.

Retracted and rewound entries are struck through (``~~...~~ *(retracted)*``)
and the actor is shown on each command's first line. Every markdown character
in the narration (names, notes, reasons) is backslash-escaped; a line break
inside a note becomes `` / `` so that one entry stays one bullet.
``tests/golden/duel.md`` pins the output byte for byte.
"""

from __future__ import annotations

from affray.events.envelope import Recorded
from affray.views.formats.common import STRUCK, first_of_command, one_line, prepare
from affray.views.narrate import Entry


def md_escape(text: str) -> str:
    """``text`` with markdown's special characters backslash-escaped."""
    for ch in "\\`*_[]<>|~":
        text = text.replace(ch, "\\" + ch)
    return text


def render(records: list[Recorded], *, rounds: tuple[int, int] | None = None, show_secret: bool = False) -> str:
    """GitHub-flavoured markdown: a heading per round, a bullet per line,
    retracted entries struck through, the actor on each command's first line.

    ``rounds`` limits the output to an inclusive (first, last) range; secret
    notes are left out unless ``show_secret``.
    """
    if not records:
        return ""
    log = prepare(records, rounds=rounds, show_secret=show_secret)
    out = [f"# {md_escape(log.title)}", ""]
    firsts = iter(first_of_command(log.entries()))
    for rnd in log.rounds:
        out += ["", f"## {rnd.title}", ""]
        out += [_line(item, show_actor=next(firsts)) for item in rnd.entries]
    return "\n".join(out).strip() + "\n"


def _line(item: Entry, *, show_actor: bool) -> str:
    text = md_escape(one_line(item.text))
    if item.status in STRUCK:
        text = f"~~{text}~~ *({item.status})*"
    actor = f" — *{md_escape(item.actor)}*" if show_actor and item.actor else ""
    return f"- {text}{actor}"
