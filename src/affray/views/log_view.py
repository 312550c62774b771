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
from affray.projections.travel import COMMAND_STEP, LogWindow
from affray.views.narrate import Entry, iter_entries


class LogReader(LogWindow):
    """:class:`~affray.projections.travel.LogWindow` with ``names`` (handle
    -> name, from the ``CombatantJoined`` events), ``system`` (the rule
    system key, from ``EncounterOpened``) and the log's entries."""

    def __init__(self, store, encounter_id: str) -> None:
        super().__init__(store, encounter_id)
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
    span = 8 * count + COMMAND_STEP
    while True:
        first = max(1, reader.head - span + 1)
        if first <= 1 or span > 4 * reader.head:
            return list(deque(reader.entries(dice=dice), maxlen=count))
        got = list(reader.entries(first, dice=dice))
        if len(got) >= count:
            return got[-count:]
        span *= 4
