"""HTML: one self-contained page (inline CSS; no script, font or image).

The page has the encounter's name, a table of the combatants, a table of
contents with a link to each round (``#setup``, ``#round-1``, ...; a round
that comes back after a rewind gets ``#round-1-2``), and a ``<section>`` per
round. Within a round, each exchange is an ``<ol class="exchange">`` headed
``Exchange N`` (anchor ``#round-1-exchange-3``) and each command outside an
exchange an ``<ol class="step">``; each entry is an ``<li>`` with its status as
a class (``live``, ``retracted``, ``void``, ``meta``) and its version as
``id="v42"``. Retracted and rewound entries are in ``<del>`` (struck
through) with their status. Every line that rests on dice has a ``title``
naming each roll and its source, shown on hover (``1D100=34 (engine roll
#3) for close attack on Broo 1``, ``... (table dice typed by sam) ...``),
and a dotted underline. The actor is shown on each command's first line.

Every piece of the user's text (encounter name, names, sides, notes,
reasons, actors) goes through :func:`affray.text.safe_line` and then
:func:`html.escape`, attributes included: a combatant named
``<script>alert(1)</script>`` is shown as that text, and a line break in a
note is `` / `` as in every format.

The record view strikes retracted and rewound entries through; the table
view (for players) shows the live timeline only, exchanges numbered in play
order, the roster without undone joins, and ends with a section "As it
stands" (``#as-it-stands``, in the table of contents): the result, then a
list item per combatant (status, HP per location, conditions). With
``footer``, the page's footer also gives the dice seed commitment and the
log's head (version and hash). In either view with the footer, or in the
table view, the page carries extra CSS so that nothing is wider than a
phone (390 px): long names, words and hashes wrap.
"""

from __future__ import annotations

import io
import shutil
import tempfile
from html import escape

from affray.events.envelope import Recorded
from affray.text import safe_line
from affray.views.formats.common import (
    STANDING_TITLE,
    STRUCK,
    Block,
    Source,
    footer_lines,
    round_title,
    segments,
    shows_standing,
    source_of,
    standing,
    table_blocks,
)
from affray.views.narrate import Entry

_CSS = """
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fdfdfb; --muted: #6b6b70; --rule: #d9d6cf;
        --accent: #8a2d1b; --note: #f3efe4; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e8e6e1; --bg: #1b1b1d; --muted: #9a9aa0; --rule: #3a3a3e; --accent: #e0876f; --note: #2a2824; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 46rem; padding: 1.5rem 1rem 4rem; background: var(--bg); color: var(--fg);
       font: 16px/1.5 Georgia, "Times New Roman", serif; }
h1 { font-size: 1.8rem; margin: 0 0 .25rem; }
h2 { font-size: 1.3rem; border-bottom: 1px solid var(--rule); margin-top: 2rem; padding-bottom: .2rem; }
h3 { font-size: .8rem; text-transform: uppercase; letter-spacing: .08em; color: var(--muted); margin: 1rem 0 .2rem; }
.subtitle, .actor, .status { color: var(--muted); }
.subtitle { margin: 0 0 1rem; font-size: .9rem; }
nav ol { padding-left: 1.2rem; margin: .2rem 0; } nav li { display: inline; margin-right: .8rem; }
nav a { color: var(--accent); }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { border: 1px solid var(--rule); padding: .15rem .6rem; text-align: left; }
ol.exchange, ol.step { list-style: none; padding: 0; margin: 0 0 .6rem; }
ol.exchange { border-left: 3px solid var(--rule); padding-left: .7rem; }
li { margin: .1rem 0; }
.name { font-weight: bold; }
.roll { font-weight: bold; font-variant-numeric: tabular-nums; }
[title] { text-decoration: underline dotted var(--muted); cursor: help; }
del { color: var(--muted); }
li.meta { font-style: italic; color: var(--muted); }
li.secret { background: var(--note); }
.actor { font-style: italic; font-size: .9rem; }
.note { white-space: pre-line; }
a.self { color: inherit; text-decoration: none; }
footer { margin-top: 3rem; font-size: .8rem; color: var(--muted); }
"""

#: Added to the page in the table view or with the footer (the record view
#: without a footer keeps the bytes it always had): nothing is wider than a
#: phone's screen (390 px), so the page never scrolls sideways; long words,
#: names and hashes wrap anywhere.
_PHONE_CSS = """
body { overflow-wrap: anywhere; }
table { max-width: 100%; }
th, td, code { overflow-wrap: anywhere; word-break: break-word; }
ul.standing { padding-left: 1.2rem; margin: .3rem 0; } ul.standing li { margin: .25rem 0; }
p.result { font-weight: bold; margin: .5rem 0; }
footer p { margin: .2rem 0; } footer code { word-break: break-all; }
@media (max-width: 30rem) { body { padding: 1rem .7rem 3rem; } th, td { padding: .15rem .35rem; } }
"""


def render(
    records: list[Recorded] | Source,
    *,
    rounds: tuple[int, int] | None = None,
    show_secret: bool = False,
    view: str = "record",
    footer: bool = False,
) -> str:
    """The encounter as one self-contained HTML page (see the module
    docstring). ``rounds`` limits it to an inclusive (first, last) range;
    secret notes are left out unless ``show_secret``; ``view`` is ``record``
    or ``table``; ``footer`` adds the seed commitment and head."""
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
    """:func:`render` streamed to ``out`` (anything with ``write(str)``);
    nothing for an empty log.

    The table of contents comes before the rounds it lists, so the body is
    written first, in the same single walk of the log, to a temporary file
    (in memory up to 1 MiB), and copied to ``out`` after the head and
    the table of contents."""
    if src.empty:
        return
    ids = _Ids()
    toc: list[tuple[str, str]] = []  # (anchor, title) per round, in order
    names = list(src.names.values())
    with tempfile.SpooledTemporaryFile(max_size=_SPOOL, mode="w+", encoding="utf-8", newline="") as body:
        anchor = ""
        found, walk = table_blocks(src, rounds=rounds, show_secret=show_secret, view=view)
        for block in found:
            if block.opens_round:
                if toc:
                    body.write("</section>\n")
                title = round_title(block.round)
                anchor = ids.new("setup" if block.round == 0 else f"round-{block.round}")
                toc.append((anchor, title))
                body.write(f'<section class="round" id="{anchor}">\n')
                body.write(f'<h2><a class="self" href="#{anchor}">{escape(title)}</a></h2>\n')
            body.write("\n".join(_block(block, anchor, ids, names)) + "\n")
        if toc:
            body.write("</section>\n")
        if walk is not None and shows_standing(src, rounds):
            anchor = ids.new("as-it-stands")
            lines = standing(src, walk, show_secret=show_secret)
            body.write(f'<section class="standing" id="{anchor}">\n')
            body.write(f'<h2><a class="self" href="#{anchor}">{STANDING_TITLE}</a></h2>\n')
            body.write(f'<p class="result">{_marked(lines[0], names)}</p>\n<ul class="standing">\n')
            body.write("".join(f"<li>{_marked(line, names)}</li>\n" for line in lines[1:]))
            body.write("</ul>\n</section>\n")
            toc.append((anchor, STANDING_TITLE))
        title = escape(src.title)
        css = _CSS if view == "record" and not footer else _CSS + _PHONE_CSS
        head = [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{title}</title>",
            f"<style>{css}</style>",
            "</head>",
            "<body>",
            "<header>",
            f"<h1>{title}</h1>",
            f'<p class="subtitle">Encounter <code>{escape(safe_line(src.encounter_id))}</code>'
            + (f" ({escape(src.system)})" if src.system else "")
            + (f", rounds {rounds[0]}–{rounds[1]}" if rounds and rounds[0] != rounds[1] else f", round {rounds[0]}" if rounds else "")
            + "</p>",
            "</header>",
        ]
        roster = src.live_roster() if view == "table" else src.roster
        if roster:
            head.append('<table class="roster"><thead><tr><th>Combatant</th><th>Side</th></tr></thead><tbody>')
            head += [f"<tr><td>{escape(n)}</td><td>{escape(s)}</td></tr>" for n, s in roster]
            head.append("</tbody></table>")
        if toc:
            head.append('<nav aria-label="Rounds"><h2 id="contents">Contents</h2><ol>')
            head += [f'<li><a href="#{a}">{escape(t)}</a></li>' for a, t in toc]
            head.append("</ol></nav>")
        else:
            head.append('<p class="subtitle">No entries in this range.</p>')
        out.write("\n".join(head) + "\n")
        body.seek(0)
        shutil.copyfileobj(body, out, _COPY)
    out.write("\n".join([_footer(src) if footer else "<footer>Exported by affray.</footer>", "</body>", "</html>"]) + "\n")


def _footer(src: Source) -> str:
    """The page's footer with :func:`~affray.views.formats.common.footer_lines`."""
    lines = "".join(f"<p>{escape(line)}</p>" for line in footer_lines(src))
    return f"<footer><p>Exported by affray.</p>{lines}</footer>"


def _marked(text: str, names: list[str]) -> str:
    """``text`` escaped, with combatant names and rolls in their spans."""
    return "".join(
        f'<span class="{kind}">{escape(piece)}</span>' if kind in ("name", "roll") else escape(piece)
        for kind, piece in segments(text, names)
    )


#: Characters of body kept in memory before the temporary file goes to disk.
_SPOOL = 1 << 20
#: Characters copied at a time from the temporary file to the output.
_COPY = 1 << 18


def _block(block: Block, anchor: str, ids: "_Ids", names: list[str]) -> list[str]:
    lines = []
    if block.exchange:
        bid = ids.new(f"{anchor}-exchange-{block.exchange}")
        lines.append(f'<h3 id="{bid}">Exchange {block.exchange}</h3>')
        lines.append(f'<ol class="exchange" data-exchange="{block.exchange}">')
    else:
        lines.append('<ol class="step">')
    lines += [_entry(item, names, show_actor=first) for item, first in zip(block.entries, block.firsts)]
    lines.append("</ol>")
    return lines


def _entry(item: Entry, names: list[str], *, show_actor: bool) -> str:
    body = _marked(item.text, names)
    if item.kind == "note-added":
        body = f'<span class="note">{body}</span>'
    if item.source:
        body = f'<span class="dice" title="{escape(item.source)}">{body}</span>'
    classes = [item.status]
    if item.secret:
        classes.append("secret")
    if item.status in STRUCK:
        body = f'<del>{body}</del> <span class="status">({escape(item.status)})</span>'
    actor = f' <span class="actor">— {escape(item.actor)}</span>' if show_actor and item.actor else ""
    return f'<li id="v{item.version}" class="{" ".join(classes)}">{body}{actor}</li>'


class _Ids:
    """Unique anchors: the second ``round-1`` becomes ``round-1-2``."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def new(self, base: str) -> str:
        n = self.seen.get(base, 0) + 1
        self.seen[base] = n
        return base if n == 1 else f"{base}-{n}"
