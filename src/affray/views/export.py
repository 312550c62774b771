"""Play-by-post exports of an encounter's log.

``export(records, fmt)`` renders the whole log; retracted and rewound
entries are kept and struck through, so the record of a mistake survives its
correction. Formats: ``markdown`` (GitHub-flavoured) and ``jsonl`` (one
event per line with its envelope, lossless).
"""

from __future__ import annotations

import msgspec

from affray.events.core import NoteAdded
from affray.events.envelope import Recorded
from affray.views.narrate import Entry, entries, names_of

FORMATS = ("markdown", "jsonl")


def _md_escape(text: str) -> str:
    for ch in "\\`*_[]<>|~":
        text = text.replace(ch, "\\" + ch)
    return text


def markdown(records: list[Recorded], *, rounds: tuple[int, int] | None = None, show_secret: bool = False) -> str:
    """GitHub-flavoured markdown: a heading per round, a bullet per line,
    retracted entries struck through, the actor on each command's first line.

    ``rounds`` limits the output to an inclusive (first, last) range.
    """
    if not records:
        return ""
    names = names_of(records)
    first = records[0].event
    title = getattr(first, "name", records[0].encounter_id)
    out = [f"# {_md_escape(title)}", ""]
    current = -1
    last_cmd = ""
    for item in entries(records, names):
        if item.secret and not show_secret:
            continue
        if rounds and not (rounds[0] <= item.round <= rounds[1]):
            continue
        if item.round != current:
            current = item.round
            out += ["", f"## Round {current}" if current else "## Setup", ""]
        out.append(_md_line(item, show_actor=item.command_id != last_cmd))
        last_cmd = item.command_id
    return "\n".join(out).strip() + "\n"


def _md_line(item: Entry, *, show_actor: bool) -> str:
    text = _md_escape(item.text)
    if item.status in ("retracted", "void"):
        text = f"~~{text}~~ *({item.status})*"
    actor = f" — *{_md_escape(item.actor)}*" if show_actor and item.actor else ""
    return f"- {text}{actor}"


def jsonl(records: list[Recorded], *, rounds: tuple[int, int] | None = None, show_secret: bool = False) -> str:
    """One JSON object per event: the envelope with the event as ``data``.

    Lossless when neither ``rounds`` nor hidden secret notes leave events
    out: the envelope keeps every hash, so the log can be rebuilt and verified.
    """
    enc = msgspec.json.Encoder()
    lines = []
    in_round = _rounds_of(records)
    for r in records:
        if not show_secret and isinstance(r.event, NoteAdded) and r.event.secret:
            continue
        if rounds and not (rounds[0] <= in_round[r.version] <= rounds[1]):
            continue
        lines.append(
            enc.encode(
                {
                    "seq": r.seq,
                    "encounter_id": r.encounter_id,
                    "version": r.version,
                    "command_id": r.command_id,
                    "type": r.type,
                    "schema": r.schema,
                    "recorded_at": r.recorded_at,
                    "actor": r.actor,
                    "hash": r.hash,
                    "data": r.event,
                }
            ).decode()
        )
    return "\n".join(lines) + ("\n" if lines else "")


def _rounds_of(records: list[Recorded]) -> dict[int, int]:
    """version -> the (live) round each event belongs to; 0 before round 1."""
    from affray.events.core import RoundStarted
    from affray.projections.timeline import Timeline

    tl = Timeline(records)
    out, current = {}, 0
    for r in records:
        if isinstance(r.event, RoundStarted) and tl.status(r.command_id) == "live":
            current = r.event.round
        out[r.version] = current
    return out


def export(records: list[Recorded], fmt: str, **options) -> str:
    """Render ``records`` in ``fmt`` (one of :data:`FORMATS`); options:
    ``rounds`` (first, last) and ``show_secret``."""
    if fmt == "markdown":
        return markdown(records, **options)
    if fmt == "jsonl":
        return jsonl(records, **options)
    raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
