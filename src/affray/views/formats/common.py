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
from typing import Callable, Iterable, Iterator

import msgspec

from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.projections.state import State
from affray.projections.timeline import Liveness, is_meta, project
from affray.text import safe_line
from affray.views.formats import VIEWS
from affray.views.narrate import QUIET_CONDITIONS, Entry, command_batches, in_rounds, iter_entries, narrate

#: Statuses shown struck through: undone, or rewound away (kept on record).
STRUCK = ("retracted", "void")


def check_view(view: str) -> str:
    """``view`` if it is one of :data:`VIEWS`; else ``ValueError``."""
    if view not in VIEWS:
        raise ValueError(f"unknown export view {view!r}; choose one of {', '.join(VIEWS)}")
    return view


class Block(msgspec.Struct):
    """Consecutive entries of one exchange (``exchange`` > 0) or, outside
    exchanges, of one command (``exchange`` == 0).

    ``round`` is the round the block is in, and ``opens_round`` whether it
    is the first block of that round's run in the export; ``firsts`` says,
    entry by entry, whether it is the first kept line of its command (where
    the formats show who issued the command)."""

    exchange: int
    entries: list[Entry] = msgspec.field(default_factory=list)
    round: int = 0
    opens_round: bool = False
    firsts: list[bool] = msgspec.field(default_factory=list)


class Round(msgspec.Struct):
    """The entries of one round (0: the setup before round 1), in blocks."""

    number: int
    blocks: list[Block] = msgspec.field(default_factory=list)

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


class Log(msgspec.Struct):
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
    side)`` per ``CombatantJoined``, in log order; :meth:`live_roster` leaves
    out those whose join was undone or rewound away), ``names`` (handle ->
    name), ``total`` (the head version), ``seed_sha256`` (the dice
    commitment of the opening event) and ``liveness`` (from the meta events:
    undo, redo, rewind). Every name, side and the title are passed through
    :func:`affray.text.safe_line`, as are the text, actor and rolls of every
    entry :meth:`blocks` gives (:meth:`entries` gives them as the log says
    them), so no format prints a control, escape or bidi character or a line
    break that a user or a sheet supplied. :meth:`records` walks the log itself;
    :meth:`entries` and :meth:`blocks` build on it, holding one command (one
    block) at a time; :meth:`head_hash` and :meth:`state` give the head's
    hash and the state as it stands. ``progress``, when set, is called with
    the version reached every few hundred events of a walk.

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
        joins: list[tuple[int, str]] | None = None,
        seed_sha256: str = "",
        head: Callable[[], str] | None = None,
        state: Callable[[], State] | None = None,
    ) -> None:
        self.encounter_id = encounter_id
        self.title = safe_line(title)
        self.system = safe_line(system)
        self.roster = [(safe_line(name), safe_line(side)) for name, side in roster]
        self.names = {handle: safe_line(name) for handle, name in names.items()}
        self.total = total
        self.liveness = liveness
        self.seed_sha256 = seed_sha256
        #: ``(version, command_id)`` of each ``CombatantJoined``, as ``roster``
        self.joins = joins or []
        self._walk = walk
        self._rows = rows
        self._head = head
        self._state = state
        self.progress = progress

    @classmethod
    def from_records(cls, records: Iterable[Recorded]) -> Source:
        """The log of ``records`` (one whole encounter, in version order)."""
        records = records if isinstance(records, list) else list(records)
        first = records[0] if records else None
        joined = [r for r in records if isinstance(r.event, ev.CombatantJoined)]
        return cls(
            encounter_id=first.encounter_id if first else "",
            title=(getattr(first.event, "name", "") or first.encounter_id) if first else "",
            system=getattr(first.event, "system", "") if first else "",
            roster=[(r.event.name, r.event.side) for r in joined],
            names={r.event.handle: r.event.name for r in joined},
            total=records[-1].version if records else 0,
            liveness=Liveness(r for r in records if is_meta(r.event)),
            walk=lambda: iter(records),
            joins=[(r.version, r.command_id) for r in joined],
            seed_sha256=getattr(first.event, "seed_sha256", "") if first else "",
            head=lambda: records[-1].hash if records else "",
            state=lambda: project(records),
        )

    @classmethod
    def from_store(cls, store, encounter_id: str, *, progress: Callable[[int], None] | None = None) -> Source:
        """The log of ``encounter_id`` in ``store`` (an
        :class:`affray.store.EventStore`), read before the walk only through
        the type index: the opening event, the ``CombatantJoined`` events and
        the meta events."""
        from affray.events import codec
        from affray.projections.snapshots import load_state

        total = store.version(encounter_id)
        opening = list(store.read(encounter_id, to_version=1)) if total else []
        first = opening[0] if opening else None
        tag = "combatant-joined"
        joined = [
            (version, cid, codec.decode(tag, schema, data))
            for version, cid, schema, data in store.versions_of_type(encounter_id, tag)
        ]
        joined = [j for j in joined if codec.tag_of(j[2]) == tag]  # a row whose data was swapped by hand says otherwise

        def head() -> str:
            last = next(iter(store.read(encounter_id, from_version=total, to_version=total)), None)
            return last.hash if last is not None else ""

        return cls(
            encounter_id=encounter_id,
            title=(getattr(first.event, "name", "") or encounter_id) if first else "",
            system=getattr(first.event, "system", "") if first else "",
            roster=[(e.name, e.side) for _, _, e in joined],
            names={e.handle: e.name for _, _, e in joined},
            total=total,
            liveness=Liveness(store.read_meta(encounter_id)),
            walk=lambda: store.read(encounter_id),
            rows=lambda: store.read_raw(encounter_id),
            progress=progress,
            joins=[(v, cid) for v, cid, _ in joined],
            seed_sha256=getattr(first.event, "seed_sha256", "") if first else "",
            head=head,
            state=lambda: load_state(store, encounter_id, at_version=total),
        )

    @property
    def empty(self) -> bool:
        """Whether the log has no events at all."""
        return self.total == 0

    def live_roster(self) -> list[tuple[str, str]]:
        """``roster`` without the combatants whose join was undone (and not
        redone) or rewound away."""
        if len(self.joins) != len(self.roster):
            return list(self.roster)
        return [who for who, (v, cid) in zip(self.roster, self.joins) if self.liveness.is_live(cid, v)]

    def head_hash(self) -> str:
        """The hash of the newest event (the head a reader can keep and
        check with ``affray verify``); ``""`` for an empty log."""
        return self._head() if self._head is not None else ""

    def state(self) -> State:
        """The encounter's state at the head (the fold of its live events)."""
        return self._state() if self._state is not None else project(self.records())

    def records(self) -> Iterator[Recorded]:
        """The records, in version order (one walk of the log)."""
        return self._ticking(self._walk(), lambda r: r.version)

    def raw_rows(self) -> Iterator[tuple] | None:
        """The stored rows ``(seq, encounter_id, version, command_id, type,
        schema, data, recorded_at, actor, hash)`` undecoded, or ``None`` when
        the log is not in a store."""
        return None if self._rows is None else self._ticking(self._rows(), lambda row: row[2])

    def entries(self, *, dice: bool = False) -> Iterator[Entry]:
        """:func:`affray.views.narrate.iter_entries` over one walk (as the
        log says them: :meth:`blocks` makes them safe to print)."""
        return iter_entries(self.records(), self.names, self.liveness, dice=dice, system=self.system)

    def blocks(
        self, *, rounds: tuple[int, int] | None = None, show_secret: bool = False, view: str = "record",
        table: TableWalk | None = None,
    ) -> Iterator[Block]:
        """:func:`iter_blocks` over one walk: of every entry (``view``
        ``record``), or of the live timeline alone (``table``, see
        :class:`TableWalk`; pass ``table`` to read what the walk saw, such as
        the fight's end, once the blocks are written)."""
        if check_view(view) == "table":
            walk = table if table is not None else TableWalk(self)
            return iter_blocks(walk.entries(), rounds=rounds, show_secret=show_secret)
        return iter_blocks(map(_safe, self.entries()), rounds=rounds, show_secret=show_secret)

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


def _safe(e: Entry) -> Entry:
    """``e`` with its text, actor and rolls made safe to print."""
    e.text = safe_line(e.text)
    e.actor = safe_line(e.actor)
    if e.rolls:
        e.rolls = tuple(safe_line(r) for r in e.rolls)
        e.source = "; ".join(e.rolls)
    return e


_AMENDED = re.compile(r"amend: (?P<cid>\S+) \(step (?P<step>[^)]*)\) issued again: (?P<what>.*)", re.S)
_CHANGE = re.compile(r"(?P<kind>reaction|target|weapon|with) (?P<new>.+) \(was (?P<old>[^()]+)\)")
_REPLAYED = re.compile(r"amend: replaying \S+ \(step [^)]*\) with its recorded dice")


class TableWalk:
    """The live timeline of a :class:`Source`, for players (``--view
    table``; issue 16, item 1), as a stream of entries.

    Only live commands are kept: undone and rewound-away commands, and the
    undo, redo and rewind lines themselves, are left out. An amend (which is
    a rewind, the command issued again with a note, and each replayed
    command with a note) shows as the re-issued command's lines and one line
    ``GM amended c264 (step 2.3): parry instead of dodge``; the notes on
    replayed commands are left out. Those notes are recognised as what
    :mod:`affray.commands.amend` writes, and only as the last event of a
    fight command's batch (a ``note`` the GM types is its own command, so it
    is always shown). Exchanges are numbered in play order, 1, 2, 3 ...,
    over the whole log (a round range shows the same numbers). After the
    walk, ``fight_ended`` is the newest live ``FightEnded`` (or ``None``).
    """

    def __init__(self, src: Source) -> None:
        self.src = src
        self.fight_ended: ev.FightEnded | None = None
        self._amended: dict[int, str] = {}

    def _records(self) -> Iterator[Recorded]:
        for status, batch in command_batches(self.src.records(), self.src.liveness):
            if status != "live":
                continue
            fight = isinstance(batch[0].event, ev.CommandIssued)
            for rec in batch:
                e = rec.event
                if isinstance(e, ev.FightEnded):
                    self.fight_ended = e
                elif fight and isinstance(e, ev.NoteAdded) and not e.secret:
                    if _REPLAYED.fullmatch(e.text):
                        continue
                    m = _AMENDED.fullmatch(e.text)
                    if m:
                        what = self.readable_changes(m["what"])
                        self._amended[rec.version] = f"GM amended {m['cid']} (step {m['step']}): {what}"
                yield rec

    def readable_changes(self, text: str) -> str:
        """Amend's list of changes as a player reads it: ``reaction parry
        (was dodge)`` becomes ``parry instead of dodge``, ``target broo2
        (was broo1)`` becomes ``target Broo 2 instead of Broo 1``; the other
        changes (modifiers, situations, dice, a re-roll's reason) as amend
        wrote them."""
        out = []
        for part in text.split("; "):
            m = _CHANGE.fullmatch(part)
            if m is None:
                out.append(part)
            elif m["kind"] == "reaction":
                out.append(f"{m['new']} instead of {m['old']}")
            elif m["kind"] == "target":
                name = self.src.names.get
                out.append(f"target {name(m['new'], m['new'])} instead of {name(m['old'], m['old'])}")
            else:
                out.append(f"{m['kind']} {m['new']} instead of {m['old']}")
        return "; ".join(out)

    def entries(self) -> Iterator[Entry]:
        """The live entries, amends one-lined, exchanges renumbered."""
        numbers: dict[int, int] = {}
        for e in iter_entries(self._records(), self.src.names, Liveness(()), system=self.src.system):
            if e.version in self._amended:
                e.text = self._amended.pop(e.version)
            if e.exchange:
                e.exchange = numbers.setdefault(e.exchange, len(numbers) + 1)
            yield _safe(e)


def standing(src: Source, walk: TableWalk, *, show_secret: bool = False) -> list[str]:
    """The final state block of the table view, as plain lines: the result
    first (``The fight is over: side heroes wins (...)``, or ``The fight
    goes on (round 3)``), then one line per combatant in joining order:
    name, side and status, the HP of each location against its maximum
    (with the worst wound there), and the conditions on it (secret ones only
    with ``show_secret``; bookkeeping ones never). ``walk`` must have been
    walked (it knows the fight's end)."""
    state = src.state()
    if walk.fight_ended is not None:
        result = narrate(walk.fight_ended, src.names, src.system)
    elif state.phase in ("over", "closed") and state.winner:
        result = f"The fight is over: side {state.winner} wins"
    elif state.phase in ("over", "closed"):
        result = "The fight is over"
    elif state.round:
        result = f"The fight goes on (round {state.round})"
    else:
        result = "The fight has not started"
    lines = [safe_line(result)]
    for c in state.combatants.values():
        hp = ", ".join(
            f"{loc.name} {loc.hp}/{loc.max_hp}" + (f" ({loc.wound} wound)" if loc.wound else "") for loc in c.locations
        )
        shown = [
            x.name + (f" ({x.location})" if x.location else "")
            + (f", {x.ends.count} rounds left" if x.ends.kind == "rounds" and x.ends.count else "")
            for x in c.conditions
            if x.name not in QUIET_CONDITIONS and (show_secret or not x.effects.get("secret"))
        ]
        line = f"{src.names.get(c.handle, c.name)} ({c.side}): {c.status}"
        if hp:
            line += f"; HP {hp}"
        line += f"; conditions: {', '.join(shown)}" if shown else "; no conditions"
        lines.append(safe_line(line))
    return lines


#: The heading of the final state block.
STANDING_TITLE = "As it stands"


def shows_standing(src: Source, rounds: tuple[int, int] | None) -> bool:
    """Whether a table-view export over ``rounds`` ends with the final state
    block: always for the whole fight; for a round range, when it reaches
    the current round."""
    return rounds is None or rounds[1] >= src.state().round


def footer_lines(src: Source) -> list[str]:
    """The footer of every export but jsonl, in both views, as plain lines:
    the dice seed commitment (SHA-256 of the seed, in full, as the opening
    event recorded it) and the log's head (version and hash), so a reader
    can check the fight later with ``affray verify``. jsonl needs none: its
    first line holds the commitment and every line its hash."""
    lines = []
    if src.seed_sha256:
        lines.append(f"Dice seed commitment (SHA-256): {src.seed_sha256}")
    lines.append(f"Log head: version {src.total}, hash {src.head_hash()}")
    return [safe_line(line) for line in lines]


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
    records: list[Recorded] | Source,
    *,
    rounds: tuple[int, int] | None = None,
    show_secret: bool = False,
    view: str = "record",
) -> Log:
    """The :class:`Log` of ``records`` (one whole encounter, in version
    order), held in memory: :func:`iter_blocks` gathered into rounds, in
    ``view`` (``record``: every entry; ``table``: the live timeline, and
    the roster without undone joins)."""
    src = source_of(records)
    out: list[Round] = []
    for block in src.blocks(rounds=rounds, show_secret=show_secret, view=view):
        if block.opens_round or not out:
            out.append(Round(block.round))
        out[-1].blocks.append(block)
    roster = src.live_roster() if view == "table" else list(src.roster)
    return Log(
        encounter_id=src.encounter_id, title=src.title, system=src.system,
        roster=roster, names=dict(src.names), rounds=out,
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
    """``text`` as one safe line: :func:`affray.text.safe_line` (line
    breaks become `` / ``, controls and bidi characters are escaped); text
    without any comes back unchanged."""
    return safe_line(text)


def longest_fit(text: str, fits: Callable[[str], bool]) -> int:
    """How much of ``text`` to put in the next piece of a line cut to fit a
    message or a post: the longest prefix that ends at a space (the space
    kept) and ``fits`` once formatted; when there is no such space in the
    second half of what fits (a "word" of a thousand characters), the
    longest prefix that fits (at least one character)."""
    if fits(text):
        return len(text)
    lo, hi = 1, len(text)  # the longest prefix that fits, by bisection
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(text[:mid]):
            lo = mid
        else:
            hi = mid - 1
    cut = text.rfind(" ", 0, lo) + 1
    while cut > 0 and not fits(text[:cut]):
        cut = text.rfind(" ", 0, cut - 1) + 1
    return cut if cut > lo // 2 else lo


def table_blocks(
    src: Source, *, rounds: tuple[int, int] | None, show_secret: bool, view: str
) -> tuple[Iterator[Block], TableWalk | None]:
    """The blocks of ``src`` in ``view``, and the :class:`TableWalk` behind
    them in the table view (``None`` in the record view), which knows the
    fight's end once the blocks are walked (for :func:`standing`)."""
    walk = TableWalk(src) if check_view(view) == "table" else None
    return src.blocks(rounds=rounds, show_secret=show_secret, view=view, table=walk), walk


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
