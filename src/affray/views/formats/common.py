"""What every export format shares: which entries, in which rounds and blocks.

:func:`prepare` turns an encounter's records into a :class:`Log`: its title,
its roster, and its rounds (round 0 is the setup), each a run of
:class:`Block` s. A block is one exchange (attack through reaction, damage
and wounds, :attr:`Entry.exchange`), or, outside an exchange, one command
(one post). Secret GM notes are left out unless ``show_secret``; ``rounds``
keeps an inclusive (first, last) span. The entries themselves, with their
status (live, retracted, void, meta), actor and dice, come from
:func:`affray.views.narrate.entries`.

:func:`segments` cuts a line into plain text, combatant names and roll
numbers, so that each format can escape the user's text and emphasise the
rest its own way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.views.narrate import Entry, entries, in_rounds, names_of

#: Statuses shown struck through: undone, or rewound away (kept on record).
STRUCK = ("retracted", "void")


@dataclass
class Block:
    """Consecutive entries of one exchange (``exchange`` > 0) or, outside
    exchanges, of one command (``exchange`` == 0)."""

    exchange: int
    entries: list[Entry] = field(default_factory=list)


@dataclass
class Round:
    """The entries of one round (0: the setup before round 1), in blocks."""

    number: int
    blocks: list[Block] = field(default_factory=list)

    @property
    def title(self) -> str:
        """``Setup`` or ``Round N``."""
        return f"Round {self.number}" if self.number else "Setup"

    @property
    def entries(self) -> list[Entry]:
        """Every entry of the round, in log order."""
        return [e for b in self.blocks for e in b.entries]


@dataclass
class Log:
    """An encounter ready to render: ``title`` (its name), ``roster``
    (``(name, side)`` per combatant, in joining order), ``names`` (handle ->
    name) and ``rounds`` in log order."""

    encounter_id: str
    title: str
    system: str
    roster: list[tuple[str, str]]
    names: dict[str, str]
    rounds: list[Round]

    def entries(self) -> list[Entry]:
        """Every kept entry, in log order."""
        return [e for r in self.rounds for e in r.entries]


def prepare(
    records: list[Recorded], *, rounds: tuple[int, int] | None = None, show_secret: bool = False
) -> Log:
    """The :class:`Log` of ``records`` (one whole encounter, in version order).

    Leaves out secret notes unless ``show_secret`` and entries outside
    ``rounds``. A round starts whenever the round number changes from one
    kept entry to the next; a block whenever the exchange does or, outside
    exchanges (0), whenever the command does.
    """
    names = names_of(records)
    first = records[0].event if records else None
    title = getattr(first, "name", "") or (records[0].encounter_id if records else "")
    system = getattr(first, "system", "")
    roster = [(r.event.name, r.event.side) for r in records if isinstance(r.event, ev.CombatantJoined)]
    out: list[Round] = []
    for item in entries(records, names):
        if item.secret and not show_secret:
            continue
        if not in_rounds(item.round, rounds):
            continue
        if not out or out[-1].number != item.round:
            out.append(Round(item.round))
        blocks = out[-1].blocks
        last = blocks[-1].entries[-1] if blocks else None
        if (
            last is None
            or item.exchange != last.exchange
            or (item.exchange == 0 and item.command_id != last.command_id)
        ):
            blocks.append(Block(item.exchange))
        blocks[-1].entries.append(item)
    eid = records[0].encounter_id if records else ""
    return Log(encounter_id=eid, title=title, system=system, roster=roster, names=names, rounds=out)


def first_of_command(items: list[Entry]) -> list[bool]:
    """For each entry, whether it is the first kept line of its command
    (where the formats show who issued the command)."""
    out, last = [], None
    for item in items:
        out.append(item.command_id != last)
        last = item.command_id
    return out


def one_line(text: str) -> str:
    """``text`` with its line breaks (if any) turned into `` / `` so that one
    entry stays one line in the line-based formats; text without a line
    break comes back unchanged."""
    parts = text.splitlines()
    if len(parts) <= 1 and (not parts or parts[0] == text):
        return text
    return " / ".join(p.strip() for p in parts if p.strip())


_ROLL = r"(?<![\w])\d+(?= vs \d+%)"


def segments(text: str, names: list[str] | dict[str, str]) -> list[tuple[str, str]]:
    """``text`` cut into ``(kind, piece)`` with kind ``"name"`` (a
    combatant's display name, whole word), ``"roll"`` (the die result of a
    test, ``34`` in ``34 vs 65%``) or ``"text"``. Joining the pieces gives
    ``text`` back. Longer names win over their prefixes (``Broo 10`` before
    ``Broo 1``)."""
    pool = names.values() if isinstance(names, dict) else names
    wanted = sorted({n for n in pool if n and n.strip()}, key=len, reverse=True)
    parts = [f"(?P<roll>{_ROLL})"]
    if wanted:
        alt = "|".join(re.escape(n) for n in wanted)
        parts.insert(0, rf"(?P<name>(?<![\w])(?:{alt})(?![\w]))")
    pattern = _pattern("|".join(parts))
    out: list[tuple[str, str]] = []
    pos = 0
    for m in pattern.finditer(text):
        if m.start() == m.end():
            continue
        if m.start() > pos:
            out.append(("text", text[pos : m.start()]))
        out.append((m.lastgroup or "text", m.group()))
        pos = m.end()
    if pos < len(text):
        out.append(("text", text[pos:]))
    return out


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _pattern(source: str) -> re.Pattern[str]:
    found = _PATTERNS.get(source)
    if found is None:
        if len(_PATTERNS) > 64:
            _PATTERNS.clear()
        found = _PATTERNS[source] = re.compile(source)
    return found
