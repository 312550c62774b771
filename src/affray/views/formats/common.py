"""What every export format shares: which entries, in which rounds and blocks.

A :class:`Source` is one encounter's log, ready to be walked once: its
title, roster and names, and the statuses of its commands (from the meta
events alone), are known before the walk; :meth:`Source.blocks` then streams
the kept entries in :class:`Block` s. A block is one exchange (attack through
reaction, damage and wounds, :attr:`Entry.exchange`), or, outside an
exchange, one command (one post); a block that starts a round's run says so
(``opens_round``; round 0 is the setup). Secret GM notes are left out unless
``show_secret``; ``rounds`` keeps an inclusive (first, last) span. The
entries themselves, with their status (live, retracted, void, meta), actor
and dice, come from :func:`affray.views.narrate.iter_entries`. Every format
writes as the blocks come, so an export of a log of any length holds one
block at a time (``Source.from_store``); :func:`prepare` gathers the same
blocks into a :class:`Log` held in memory, by round.

:func:`segments` cuts a line into plain text, combatant names and roll
numbers, so that each format can escape the user's text and emphasise the
rest its own way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.projections.timeline import Liveness, is_meta
from affray.views.narrate import Entry, in_rounds, iter_entries

#: Statuses shown struck through: undone, or rewound away (kept on record).
STRUCK = ("retracted", "void")


@dataclass
class Block:
    """Consecutive entries of one exchange (``exchange`` > 0) or, outside
    exchanges, of one command (``exchange`` == 0).

    ``round`` is the round the block is in, and ``opens_round`` whether it
    is the first block of that round's run in the export; ``firsts`` says,
    entry by entry, whether it is the first kept line of its command (where
    the formats show who issued the command)."""

    exchange: int
    entries: list[Entry] = field(default_factory=list)
    round: int = 0
    opens_round: bool = False
    firsts: list[bool] = field(default_factory=list)


@dataclass
class Round:
    """The entries of one round (0: the setup before round 1), in blocks."""

    number: int
    blocks: list[Block] = field(default_factory=list)

    @property
    def title(self) -> str:
        """``Setup`` or ``Round N``."""
        return round_title(self.number)

    @property
    def entries(self) -> list[Entry]:
        """Every entry of the round, in log order."""
        return [e for b in self.blocks for e in b.entries]


def round_title(number: int) -> str:
    """``Setup`` (round 0) or ``Round N``."""
    return f"Round {number}" if number else "Setup"


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


class Source:
    """One encounter's log, to be walked in one streaming pass.

    What a renderer needs before the walk is here already: ``encounter_id``,
    ``title`` (the encounter's name), ``system``, ``roster`` (``(name,
    side)`` per ``CombatantJoined``, in log order), ``names`` (handle ->
    name), ``total`` (the head version) and ``liveness`` (from the meta
    events: undo, redo, rewind). :meth:`records` walks the log itself;
    :meth:`entries` and :meth:`blocks` build on it, holding one command (one
    block) at a time. ``progress``, when set, is called with the version
    reached every few hundred events of a walk.

    Build one with :meth:`from_records` (a list already in memory) or
    :meth:`from_store` (the log stays in the store; memory stays flat).
    """

    _TICK = 512

    def __init__(
        self,
        *,
        encounter_id: str,
        title: str,
        system: str,
        roster: list[tuple[str, str]],
        names: dict[str, str],
        total: int,
        liveness: Liveness,
        walk: Callable[[], Iterable[Recorded]],
        rows: Callable[[], Iterable[tuple]] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self.encounter_id = encounter_id
        self.title = title
        self.system = system
        self.roster = roster
        self.names = names
        self.total = total
        self.liveness = liveness
        self._walk = walk
        self._rows = rows
        self.progress = progress

    @classmethod
    def from_records(cls, records: Iterable[Recorded]) -> Source:
        """The log of ``records`` (one whole encounter, in version order)."""
        records = records if isinstance(records, list) else list(records)
        first = records[0] if records else None
        joined = [r.event for r in records if isinstance(r.event, ev.CombatantJoined)]
        return cls(
            encounter_id=first.encounter_id if first else "",
            title=(getattr(first.event, "name", "") or first.encounter_id) if first else "",
            system=getattr(first.event, "system", "") if first else "",
            roster=[(e.name, e.side) for e in joined],
            names={e.handle: e.name for e in joined},
            total=records[-1].version if records else 0,
            liveness=Liveness(r for r in records if is_meta(r.event)),
            walk=lambda: iter(records),
        )

    @classmethod
    def from_store(cls, store, encounter_id: str, *, progress: Callable[[int], None] | None = None) -> Source:
        """The log of ``encounter_id`` in ``store`` (an
        :class:`affray.store.EventStore`), read before the walk only through
        the type index: the opening event, the ``CombatantJoined`` events and
        the meta events."""
        from affray.events import codec

        total = store.version(encounter_id)
        opening = list(store.read(encounter_id, to_version=1)) if total else []
        first = opening[0] if opening else None
        tag = "combatant-joined"
        joined = [codec.decode(tag, schema, data) for _, _, schema, data in store.versions_of_type(encounter_id, tag)]
        joined = [e for e in joined if codec.tag_of(e) == tag]  # a row whose data was swapped by hand says otherwise
        return cls(
            encounter_id=encounter_id,
            title=(getattr(first.event, "name", "") or encounter_id) if first else "",
            system=getattr(first.event, "system", "") if first else "",
            roster=[(e.name, e.side) for e in joined],
            names={e.handle: e.name for e in joined},
            total=total,
            liveness=Liveness(store.read_meta(encounter_id)),
            walk=lambda: store.read(encounter_id),
            rows=lambda: store.read_raw(encounter_id),
            progress=progress,
        )

    @property
    def empty(self) -> bool:
        """Whether the log has no events at all."""
        return self.total == 0

    def records(self) -> Iterator[Recorded]:
        """The records, in version order (one walk of the log)."""
        return self._ticking(self._walk(), lambda r: r.version)

    def raw_rows(self) -> Iterator[tuple] | None:
        """The stored rows ``(seq, encounter_id, version, command_id, type,
        schema, data, recorded_at, actor, hash)`` undecoded, or ``None`` when
        the log is not in a store."""
        return None if self._rows is None else self._ticking(self._rows(), lambda row: row[2])

    def entries(self, *, dice: bool = False) -> Iterator[Entry]:
        """:func:`affray.views.narrate.iter_entries` over one walk."""
        return iter_entries(self.records(), self.names, self.liveness, dice=dice)

    def blocks(self, *, rounds: tuple[int, int] | None = None, show_secret: bool = False) -> Iterator[Block]:
        """:func:`iter_blocks` over one walk."""
        return iter_blocks(self.entries(), rounds=rounds, show_secret=show_secret)

    def _ticking(self, items: Iterable, version_of) -> Iterator:
        tick = self.progress
        if tick is None:
            yield from items
            return
        n, every, item = 0, self._TICK, None
        for item in items:
            yield item
            n += 1
            if n % every == 0:
                tick(version_of(item))
        if item is not None:
            tick(version_of(item))


def iter_blocks(
    items: Iterable[Entry], *, rounds: tuple[int, int] | None = None, show_secret: bool = False
) -> Iterator[Block]:
    """The kept entries of ``items`` in :class:`Block` s, as a stream.

    Leaves out secret notes unless ``show_secret`` and entries outside
    ``rounds``. A round starts (``opens_round``) whenever the round number
    changes from one kept entry to the next; a block whenever the round
    does, the exchange does or, outside exchanges (0), the command does.
    """
    cur: Block | None = None
    last_round: int | None = None
    last_command: str | None = None
    for item in items:
        if item.secret and not show_secret:
            continue
        if not in_rounds(item.round, rounds):
            continue
        opens = last_round is None or item.round != last_round
        if cur is not None:
            last = cur.entries[-1]
            if opens or item.exchange != last.exchange or (item.exchange == 0 and item.command_id != last.command_id):
                yield cur
                cur = None
        if cur is None:
            cur = Block(item.exchange, round=item.round, opens_round=opens)
        cur.entries.append(item)
        cur.firsts.append(item.command_id != last_command)
        last_command = item.command_id
        last_round = item.round
    if cur is not None:
        yield cur


def source_of(log: Iterable[Recorded] | Source) -> Source:
    """``log`` as a :class:`Source` (a list of records is wrapped)."""
    return log if isinstance(log, Source) else Source.from_records(log)


def prepare(
    records: list[Recorded] | Source, *, rounds: tuple[int, int] | None = None, show_secret: bool = False
) -> Log:
    """The :class:`Log` of ``records`` (one whole encounter, in version
    order), held in memory: :func:`iter_blocks` gathered into rounds."""
    src = source_of(records)
    out: list[Round] = []
    for block in src.blocks(rounds=rounds, show_secret=show_secret):
        if block.opens_round or not out:
            out.append(Round(block.round))
        out[-1].blocks.append(block)
    return Log(
        encounter_id=src.encounter_id, title=src.title, system=src.system,
        roster=list(src.roster), names=dict(src.names), rounds=out,
    )


def first_of_command(items: list[Entry]) -> list[bool]:
    """For each entry, whether it is the first kept line of its command
    (where the formats show who issued the command)."""
    out, last = [], None
    for item in items:
        out.append(item.command_id != last)
        last = item.command_id
    return out


class TrimEnd:
    """Writes through to ``out``, holding back trailing whitespace, so that
    the text written ends as ``text.rstrip()`` followed by what
    :meth:`close` adds (a streamed ``text.strip() + "\\n"`` for text that
    starts with no whitespace)."""

    def __init__(self, out) -> None:
        self.out = out
        self.held = ""

    def write(self, text: str) -> None:
        kept = len(text.rstrip())
        if not kept:
            self.held += text
            return
        self.out.write(self.held + text[:kept])
        self.held = text[kept:]

    def close(self, end: str = "\n") -> None:
        self.held = ""
        self.out.write(end)


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
