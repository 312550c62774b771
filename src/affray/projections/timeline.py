"""Which events are live: the meaning of undo, redo and rewind.

The log is append-only (DESIGN.md invariant 1), so undo, redo and rewind are
meta events that say which *commands* count:

- ``CommandRetracted(command_id)`` voids every event of that command;
- ``CommandRestored(command_id)`` makes a retracted command live again;
- ``EncounterRewound(to_version)`` voids every command with an event after
  ``to_version`` (for good: a rewind is not undone by redo).

:func:`live` applies those rules to a run of records and returns the live,
non-meta records in log order; :func:`project` folds them into a state.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Iterable, Iterator

from msgspec.structs import replace

from affray.events.core import CommandRestored, CommandRetracted, EncounterRewound
from affray.events.envelope import Recorded
from affray.projections.evolve import fold_fast
from affray.projections.state import State

_META = (CommandRetracted, CommandRestored, EncounterRewound)


class Timeline:
    """The command history of a run of records.

    ``commands`` are the non-meta command ids in first-seen order;
    ``retracted`` those undone (and not restored); ``void`` those rewound
    away; ``touched`` the command ids meta events in this run acted on.
    """

    def __init__(self, records: Iterable[Recorded]):
        self.records: list[Recorded] = list(records)
        self.commands: list[str] = []
        self.first_version: dict[str, int] = {}
        self.last_version: dict[str, int] = {}
        self.retracted: set[str] = set()
        self.void: set[str] = set()
        self.touched: set[str] = set()
        self.rewound_to: int | None = None
        self.redo_stack: list[str] = []
        for rec in self.records:
            e = rec.event
            if isinstance(e, CommandRetracted):
                self.retracted.add(e.command_id)
                self.touched.add(e.command_id)
                self.redo_stack.append(e.command_id)
            elif isinstance(e, CommandRestored):
                self.retracted.discard(e.command_id)
                self.touched.add(e.command_id)
                if e.command_id in self.redo_stack:
                    self.redo_stack.remove(e.command_id)
            elif isinstance(e, EncounterRewound):
                low = e.to_version if self.rewound_to is None else min(self.rewound_to, e.to_version)
                self.rewound_to = low
                for cid in self.commands:
                    if self.last_version[cid] > e.to_version:
                        self.void.add(cid)
                self.redo_stack = []
            else:
                cid = rec.command_id
                if cid not in self.first_version:
                    self.commands.append(cid)
                    self.first_version[cid] = rec.version
                    # a new command after an undo ends the chance to redo
                    self.redo_stack = []
                self.last_version[cid] = rec.version

    def is_live(self, command_id: str) -> bool:
        """Whether ``command_id`` counts (neither retracted nor rewound away)."""
        return command_id not in self.retracted and command_id not in self.void

    def live_records(self) -> Iterator[Recorded]:
        """The live, non-meta records in log order."""
        dead = self.retracted | self.void
        for rec in self.records:
            if rec.command_id in dead or isinstance(rec.event, _META):
                continue
            yield rec

    def live_commands(self) -> list[str]:
        """The live command ids, oldest first."""
        return [c for c in self.commands if self.is_live(c)]

    def status(self, command_id: str) -> str:
        """``live``, ``retracted``, ``void`` or ``meta`` for a command id."""
        if command_id in self.void:
            return "void"
        if command_id in self.retracted:
            return "retracted"
        if command_id in self.first_version:
            return "live"
        return "meta"


def fold(state: State, records: Iterable[Recorded]) -> State:
    """Fold already-live records into ``state`` (no meta handling); equal to
    applying :func:`evolve` to each in turn."""
    return fold_fast(state, records)


def project(records: Iterable[Recorded], start: State | None = None) -> State:
    """The state after ``records`` (a whole log, or the tail after ``start``).

    The returned state's ``version`` is the last record's version, meta
    events included.
    """
    tl = Timeline(records)
    state = fold(start if start is not None else State(), tl.live_records())
    if tl.records and tl.records[-1].version != state.version:
        state = replace(state, version=tl.records[-1].version)
    return state


class Liveness:
    """:class:`Timeline`'s verdict on each command, from the meta events
    alone, for passes that stream the log instead of holding it.

    Undo and redo depend only on the meta events: ``retracted`` is exactly
    ``Timeline(whole log).retracted``. A rewind ``EncounterRewound(to_version=t)``
    recorded at version ``v`` voids every command with a (non-meta) event
    at a version in the open interval ``(t, v)``: the commands seen before
    the rewind whose last event is after ``t``. So a command's status needs
    only the versions of its own events: :meth:`status` gives
    ``Timeline.status`` for a command whose non-meta events are at
    ``versions`` (all of them; a command's events are consecutive in the
    log, so a streaming pass has them all once the command id changes).
    """

    def __init__(self, metas: Iterable[Recorded]):
        metas = [m for m in metas if isinstance(m.event, _META)]
        self.retracted: frozenset[str] = frozenset(Timeline(metas).retracted)
        spans = sorted((m.event.to_version, m.version) for m in metas if isinstance(m.event, EncounterRewound))
        merged: list[list[int]] = []
        for low, high in spans:  # open intervals (low, high), merged where they overlap
            if merged and low < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], high)
            else:
                merged.append([low, high])
        self._lows = [a for a, _ in merged]
        self._highs = [b for _, b in merged]

    def spans(self) -> list[tuple[int, int]]:
        """The rewound spans, merged where they overlap: open intervals
        ``(low, high)`` of versions, in order; a non-meta event inside one
        is void (:meth:`voided`)."""
        return list(zip(self._lows, self._highs))

    def voided(self, version: int) -> bool:
        """Whether a non-meta event at ``version`` lies in a rewound span
        (which makes its whole command void)."""
        i = bisect_right(self._lows, version - 1) - 1  # the last span with low < version
        return i >= 0 and version < self._highs[i]

    def span_start(self, version: int) -> int | None:
        """The ``to_version`` of the rewound span ``version`` lies in (the
        span is open: its events are after it), or None (see :meth:`voided`)."""
        i = bisect_right(self._lows, version - 1) - 1
        return self._lows[i] if i >= 0 and version < self._highs[i] else None

    def status(self, command_id: str, versions: Iterable[int]) -> str:
        """``live``, ``retracted``, ``void`` or ``meta``, as
        :meth:`Timeline.status` says for the whole log, for the command
        ``command_id`` whose non-meta events are at ``versions``."""
        seen = False
        for v in versions:
            seen = True
            if self.voided(v):
                return "void"
        if command_id in self.retracted:
            return "retracted"
        return "live" if seen else "meta"

    def is_live(self, command_id: str, version: int) -> bool:
        """Whether the non-meta event of ``command_id`` at ``version`` is
        live (its command's other events lie on the same side of every
        rewound span when rewinds cut at command boundaries, as they do)."""
        return command_id not in self.retracted and not self.voided(version)


def numbered_version(command_id: str) -> int:
    """The version a command id names by affray's numbering: ``c<N>`` -> N,
    the version of the command's first event (as
    :func:`affray.commands.handler.execute` names it); 0 for an id that is
    not of that form (imported under another name, or edited). Only a
    guess: check it against the log (``store.starts_command(eid, N, id)``)
    before relying on it."""
    return int(command_id[1:]) if command_id[:1] == "c" and command_id[1:].isdigit() else 0


def is_meta(event) -> bool:
    """Whether ``event`` is an undo, a redo or a rewind."""
    return isinstance(event, _META)
