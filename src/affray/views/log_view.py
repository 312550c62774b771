"""``affray log`` and ``affray replay --round`` read from the store as a
stream, or only the stretch of the log they show.

Before any walk, the undo, redo and rewind events (each command's status,
:class:`~affray.projections.timeline.Liveness`) and the ``CombatantJoined``
events (the names) are found through the store's type index. Then:

- :func:`log_entries` with neither ``tail`` nor ``round_no`` walks the whole
  log once, one command at a time: memory stays flat however long the
  fight, and the first entry comes out as soon as it is read;
- ``round_no=R`` reads only round R: from the live ``RoundStarted`` of
  round R (the type index, with a JSON match on the round) to just before
  the next live one (round 0 is the setup, before round 1), widened to
  whole commands so that each command's status is known, then cut back to
  those versions;
- ``tail=N`` reads the log backwards in growing stretches (each starting at
  a command's first event, with the round in progress there read back from
  it as far as the nearest live ``RoundStarted``) until N entries are in.

Every entry is what :func:`affray.views.narrate.entries` gives for the
whole log: the same round, status and text. :func:`round_span` and
:func:`round_records` give ``replay --round`` its round the same way.
"""

from __future__ import annotations

from collections import deque
from typing import Iterator

from affray.events import codec
from affray.events.envelope import Recorded
from affray.projections.timeline import Liveness
from affray.views.narrate import Entry, iter_entries

#: rows read per step when looking for a command's first or last event
_STEP = 64
#: rows read per step when looking for a round's start
_SCAN = 256
_STARTED = "round-started"


class LogReader:
    """One encounter of ``store``, ready to be read stretch by stretch:
    ``names`` (handle -> name), ``system`` (the rule system key), ``liveness`` (from the meta events),
    and ``head`` (the head version). Where a round starts is found by
    reading the log on from a version, or back from it, as far as the
    nearest live ``RoundStarted``."""

    def __init__(self, store, encounter_id: str) -> None:
        self.store, self.encounter_id = store, encounter_id
        self.head = store.version(encounter_id)
        self.liveness = Liveness(store.read_meta(encounter_id))
        joined = "combatant-joined"
        self.names = {
            e.handle: e.name
            for e in (codec.decode(joined, s, d) for _, _, s, d in store.versions_of_type(encounter_id, joined))
            if codec.tag_of(e) == joined  # a row whose data was swapped by hand says otherwise
        }
        opened = "encounter-opened"
        self.system = next((
            e.system for e in (codec.decode(opened, s, d) for _, _, s, d in store.versions_of_type(encounter_id, opened))
            if codec.tag_of(e) == opened), "")
        self._starts: list[tuple[int, int]] | None = None

    @property
    def starts(self) -> list[tuple[int, int]]:
        """``(version, round)`` of every live ``RoundStarted``, in version
        order, through the type index (only the error of a round that is not
        there lists them all)."""
        if self._starts is None:
            live = self.liveness.is_live
            self._starts = []
            for version, command_id, schema, data in self.store.versions_of_type(self.encounter_id, _STARTED):
                e = codec.decode(_STARTED, schema, data)
                if codec.tag_of(e) == _STARTED and live(command_id, version):
                    self._starts.append((version, e.round))
        return self._starts

    def rounds(self) -> list[int]:
        """Every round of the live timeline, 0 (the setup) first."""
        return sorted({0} | {r for _, r in self.starts})

    def _round_of(self, row) -> int | None:
        """The round a stored row starts, when it is a live ``RoundStarted``."""
        if row[4] != _STARTED or not self.liveness.is_live(row[3], row[2]):
            return None
        e = codec.decode(_STARTED, row[5], row[6])
        return e.round if codec.tag_of(e) == _STARTED else None

    def round_at(self, version: int) -> int:
        """The round in progress just before ``version``: that of the newest
        live ``RoundStarted`` before it (0 before round 1), found by reading
        the log backwards from there (undecoded rows, a chunk at a time)."""
        hi = version - 1
        while hi >= 1:
            lo = max(1, hi - _SCAN + 1)
            for row in reversed(list(self.store.read_raw(self.encounter_id, from_version=lo, to_version=hi))):
                found = self._round_of(row)
                if found is not None:
                    return found
            hi = lo - 1
        return 0

    def next_start(self, version: int) -> int | None:
        """The version of the first live ``RoundStarted`` after ``version``
        (None: there is none), reading the log forwards from there."""
        lo = version + 1
        while lo <= self.head:
            hi = min(self.head, lo + _SCAN - 1)
            for row in self.store.read_raw(self.encounter_id, from_version=lo, to_version=hi):
                if self._round_of(row) is not None:
                    return row[2]
            lo = hi + 1
        return None

    def find_start(self, round_no: int) -> int | None:
        """The version of the live ``RoundStarted`` of round ``round_no``
        (the type index, narrowed by a JSON match on the round)."""
        live = self.liveness.is_live
        match = ("$.round", round_no, codec.CURRENT_SCHEMA[_STARTED])
        for version, command_id, schema, data in self.store.versions_of_type(self.encounter_id, _STARTED, match=match):
            if not live(command_id, version):
                continue
            e = codec.decode(_STARTED, schema, data)
            if codec.tag_of(e) == _STARTED and e.round == round_no:
                return version
        return None

    def round_span(self, round_no: int) -> tuple[int, int] | None:
        """``(first, last)`` versions of round ``round_no``: from its live
        ``RoundStarted`` (version 1 for round 0) to just before the next live
        one (or the head); None when the live timeline has no such round."""
        if not self.head:
            return None
        if round_no == 0:
            first = 1
            nxt = self.next_start(0)
        else:
            found = self.find_start(round_no)
            if found is None:
                return None
            first, nxt = found, self.next_start(found)
        return first, (nxt - 1 if nxt is not None else self.head)

    def command_start(self, version: int) -> int:
        """The first version of the command holding ``version``."""
        command = self._command_at(version)
        lo = version
        while lo > 1:
            rows = list(self.store.read_raw(self.encounter_id, from_version=max(1, lo - _STEP), to_version=lo - 1))
            for row in reversed(rows):
                if row[3] != command:
                    return lo
                lo = row[2]
            if not rows:
                break
        return max(1, lo)

    def command_end(self, version: int) -> int:
        """The last version of the command holding ``version``."""
        command = self._command_at(version)
        hi = version
        while hi < self.head:
            rows = list(self.store.read_raw(self.encounter_id, from_version=hi + 1, to_version=hi + _STEP))
            for row in rows:
                if row[3] != command:
                    return hi
                hi = row[2]
            if not rows:
                break
        return hi

    def _command_at(self, version: int) -> str | None:
        row = next(iter(self.store.read_raw(self.encounter_id, from_version=version, to_version=version)), None)
        return row[3] if row else None

    def records(self, first: int = 1, last: int | None = None) -> Iterator[Recorded]:
        """The records from ``first`` to ``last`` (inclusive), streamed."""
        return self.store.read(self.encounter_id, from_version=first, to_version=last)

    def entries(self, first: int = 1, last: int | None = None, *, dice: bool = False) -> Iterator[Entry]:
        """The log entries of versions ``first`` to ``last``, as the whole
        log's would be: the stretch is widened to whole commands (for their
        status) and the round in progress at its start is looked up."""
        last = self.head if last is None else min(last, self.head)
        if first > last:
            return iter(())
        lo, hi = self.command_start(first), self.command_end(last)
        items = iter_entries(self.records(lo, hi), self.names, self.liveness, dice=dice, round_no=self.round_at(lo),
                             system=self.system)
        if lo == first and hi == last:
            return items
        return (e for e in items if first <= e.version <= last)


def log_entries(store, encounter_id: str, *, dice: bool = False, tail: int = 0, round_no: int | None = None) -> Iterator[Entry]:
    """The entries ``affray log`` shows, streamed (see the module docstring):
    every entry, those of round ``round_no`` only, or the last ``tail``.
    Raises ``ValueError`` (one line) for a round the live timeline does not
    have."""
    reader = LogReader(store, encounter_id)
    if round_no is not None:
        span = reader.round_span(round_no)
        if span is None:
            rounds = reader.rounds()
            raise ValueError(
                f"the live timeline has no round {round_no} (rounds: {rounds[0]}–{rounds[-1]}); "
                "'affray log' shows the fight"
            )
        items = reader.entries(*span, dice=dice)
    else:
        items = reader.entries(dice=dice)
    if not tail:
        return items
    if round_no is not None:
        return iter(deque(items, maxlen=tail))
    return iter(_tail(reader, tail, dice=dice))


def _tail(reader: LogReader, count: int, *, dice: bool) -> list[Entry]:
    """The last ``count`` entries of the log, reading back from the head in
    stretches that grow fourfold until enough are in (at worst, the whole
    log once more, keeping only ``count``)."""
    span = 8 * count + _STEP
    while True:
        first = max(1, reader.head - span + 1)
        if first <= 1 or span > 4 * reader.head:
            return list(deque(reader.entries(dice=dice), maxlen=count))
        got = list(reader.entries(first, dice=dice))
        if len(got) >= count:
            return got[-count:]
        span *= 4
