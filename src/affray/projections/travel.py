"""Finding points in a fight's past: the end of a round, or a step in it.

``state_at(records, round, step=None)``: the state just after step ``step``
of round ``round`` (live commands only), or at the end of that round when
``step`` is None. Raises ``LookupError`` with one line when the fight never
got there.

``state_at_store(store, encounter_id, round, step=None)`` gives the same
state without replaying the whole log (``affray state --at``): it finds the
live ``round-ended`` (or, for a step, ``round-started``) event of that round
through the store's type index, loads the state there from the nearest
snapshot, and folds forward only as far as the step. It falls back to a full
replay when the shortcut could differ from :func:`state_at`: a log with a
rewind, or an undo or redo after that point of a command at or before it.
"""

from __future__ import annotations

import re

from typing import Iterable, Iterator

from affray.events import codec
from affray.events.core import CommandRestored, CommandRetracted, EncounterRewound, RoundEnded, RoundStarted
from affray.events.envelope import Recorded
from affray.projections.evolve import evolve
from affray.projections.state import State
from affray.projections.timeline import Liveness, Timeline, is_meta, numbered_version


#: ROUND or ROUND.STEP: ASCII digits only, at most 9 of each (issue 16: a
#: number beyond SQLite's INTEGER, or other scripts' digits, is refused).
_POINT = r"([0-9]{1,9})(?:\.([0-9]{1,9}))?"  # compiled on first use (re's cache), not at import


def parse_point(text: str) -> tuple[int, int | None]:
    """``"3"`` -> (3, None); ``"1.2"`` -> (1, 2). ``ValueError`` (one line)
    for anything else: other than ASCII digits 0-9, or more than 9 of them."""
    m = re.fullmatch(_POINT, text.strip())
    if m is None and re.fullmatch(r"-[0-9]+(?:\.-?[0-9]+)?|[0-9]+\.-[0-9]+", text.strip()):
        raise ValueError(f"rounds and steps count from 0, got {text!r}")
    if m is None:
        raise ValueError(
            f"expected ROUND or ROUND.STEP (like 3 or 1.2; ASCII digits 0-9, at most 9 each), got {text!r}"
        )
    return int(m.group(1)), (int(m.group(2)) if m.group(2) is not None else None)


def state_at(records: list[Recorded], round_no: int, step: int | None = None) -> State:
    """The state after step ``step`` of round ``round_no`` (or at the end of
    the round when ``step`` is None), along the live timeline of the whole
    log: undone commands stay undone in the past too."""
    return _walk(State(), Timeline(records).live_records(), round_no, step)


def _walk(state: State, live: Iterable, round_no: int, step: int | None, found: State | None = None) -> State:
    """:func:`state_at`'s search, folding the live records ``live`` into
    ``state`` (the state just before them); ``found`` is the search's
    fallback answer so far (see :func:`state_at_store`)."""
    for rec in live:
        before = state
        state = evolve(state, rec)
        if step is None:
            if isinstance(rec.event, RoundEnded) and rec.event.round == round_no:
                return state
            if state.round == round_no:
                found = state
        elif before.round == round_no and before.step == step and (state.step != step or state.round != round_no):
            return before
        elif state.round == round_no and state.step == step:
            found = state
    if found is not None:
        return found
    raise _not_found(round_no, step)


def _not_found(round_no: int, step: int | None) -> LookupError:
    where = f"round {round_no}" + (f" step {step}" if step is not None else "")
    return LookupError(f"the fight has no {where} yet; 'affray log' shows the rounds and steps")


# --------------------------------------------------------------------------- #
# the same answers from the store, through snapshots
# --------------------------------------------------------------------------- #

_TAGS = {RoundEnded: "round-ended", RoundStarted: "round-started"}


def live_round_event(store, encounter_id: str, cls: type, round_no: int, dead: frozenset) -> int | None:
    """The version of the first ``cls`` event (:class:`RoundEnded` or
    :class:`RoundStarted`) of round ``round_no`` whose command is not in
    ``dead``, or ``None``. Reads only the events of that type (type index;
    rows stored at an older schema are upcast before their round is read)."""
    tag = _TAGS[cls]
    current = codec.CURRENT_SCHEMA[tag]
    for version, command_id, schema, data in store.versions_of_type(
        encounter_id, tag, match=("$.round", round_no, current)
    ):
        if command_id in dead:
            continue
        if schema != current and codec.decode(tag, schema, data).round != round_no:
            continue
        return version
    return None


def round_end_version(store, encounter_id: str, round_no: int) -> int | None:
    """The version at which live round ``round_no`` ended (its first live
    ``round-ended`` event), or ``None`` when it has not ended, the log holds
    a rewind, or the state there could not be loaded from the log cut at that
    version: an undo or redo after it of a command at or before it (then
    only a full replay, :func:`state_at`, gives the answer)."""
    metas = store.read_meta(encounter_id)
    dead = _dead(metas)
    if dead is None:
        return None
    version = live_round_event(store, encounter_id, RoundEnded, round_no, dead)
    if version is None or _touched_after(store, encounter_id, metas, version):
        return None
    return version


def state_at_store(store, encounter_id: str, round_no: int, step: int | None = None) -> State:
    """``state_at(list(store.read(encounter_id)), round_no, step)``, the same
    state, from the nearest snapshot instead of a full replay.

    End of a round: the state with the log cut at the live ``round-ended``
    event (:func:`round_end_version`). A step: the state at the live
    ``round-started`` event of that round, folded forward until the step is
    over. Falls back to a full replay when the log holds a rewind, and to a
    streamed one from the start when an undo or redo after that point
    touches a command at or before it. ``LookupError`` as :func:`state_at`.
    """
    from affray.projections.snapshots import load_state

    metas = store.read_meta(encounter_id)
    dead = _dead(metas)
    if dead is None:  # a rewind: the one path that knows its rules
        return state_at(list(store.read(encounter_id)), round_no, step)
    end = None
    if step is None:
        end = live_round_event(store, encounter_id, RoundEnded, round_no, dead)
        if end is not None and not _touched_after(store, encounter_id, metas, end):
            return load_state(store, encounter_id, at_version=end)
    start = live_round_event(store, encounter_id, RoundStarted, round_no, dead) if round_no else None
    if start is None and round_no and end is None:
        # only a live round-started event puts a state in round ``round_no``
        # (>= 1), and no live round-ended event of it either: state_at finds nothing
        raise _not_found(round_no, step)
    if start is None or _touched_after(store, encounter_id, metas, start):
        # round 0 (setup), or a past that later undos or redos rewrote:
        # walk the live log from the beginning, streamed
        return _closing_walk(State(), store.read_live(encounter_id, skip=dead), round_no, step)
    base = load_state(store, encounter_id, at_version=start)
    # _walk's search has seen the records up to the round-started one: base
    # is the state after it, in round ``round_no`` at step 0
    found = base if step is None or base.step == step else None
    return _closing_walk(base, store.read_live(encounter_id, from_version=start + 1, skip=dead), round_no, step, found)


def _closing_walk(state, live, *args):
    """:func:`_walk` over the ``read_live`` generator ``live``, closed before
    returning: a walk that stops early, or fails on an edited log, must not
    leave its cursor to be closed after the store is."""
    try:
        return _walk(state, live, *args)
    finally:
        live.close()


def _dead(metas: list[Recorded]) -> frozenset | None:
    """The retracted commands of the whole log, or ``None`` when it holds a rewind."""
    if any(isinstance(m.event, EncounterRewound) for m in metas):
        return None
    return frozenset(Timeline(metas).retracted)


def _touched_after(store, encounter_id: str, metas: list[Recorded], version: int) -> bool:
    """Whether an undo or redo after ``version`` acts on a command with an
    event at or before it: then the log cut at ``version`` disagrees with the
    whole log about what was live there. A command named ``c<N>`` whose
    first event is at version N (a lookup of two rows) is decided by N;
    only the others are looked for along the log (``any_command_up_to``,
    which walks the versions up to ``version``). A command's events are one
    run (``verify`` reports a command id that comes back later)."""
    targets = {
        m.event.command_id
        for m in metas
        if m.version > version and isinstance(m.event, (CommandRetracted, CommandRestored))
    }
    unsure = set()
    for cid in targets:
        # affray numbers a command c<its first version>: one index lookup checks the guess
        first = numbered_version(cid)
        if first and store.starts_command(encounter_id, first, cid):
            if first <= version:
                return True
        else:
            unsure.add(cid)  # imported or edited by hand: look for its events
    return bool(unsure) and store.any_command_up_to(encounter_id, unsure, version)


# --------------------------------------------------------------------------- #
# reading a stretch of the log: a round, a command
# --------------------------------------------------------------------------- #

#: rows read per step when looking for a command's first or last event
COMMAND_STEP = 64
#: rows read per step when looking for a round's start
ROUND_SCAN = 256
STARTED_TAG = "round-started"


class LogWindow:
    """One encounter of ``store``, ready to be read stretch by stretch:
    ``liveness`` (from the meta events) and ``head`` (the head version).
    Where a round starts is found by reading the log on from a version, or
    back from it, as far as the nearest live ``RoundStarted``; a command's
    first and last events by reading around a version. Shared by ``affray
    log``/``replay --round`` (:class:`affray.views.log_view.LogReader`) and
    rewind (:mod:`affray.commands.travel`)."""

    def __init__(self, store, encounter_id: str) -> None:
        self.store, self.encounter_id = store, encounter_id
        self.head = store.version(encounter_id)
        self.metas = store.read_meta(encounter_id)
        self.liveness = Liveness(self.metas)
        self._starts: list[tuple[int, int]] | None = None

    @property
    def starts(self) -> list[tuple[int, int]]:
        """``(version, round)`` of every live ``RoundStarted``, in version
        order, through the type index (only the error of a round that is not
        there lists them all)."""
        if self._starts is None:
            live = self.liveness.is_live
            self._starts = []
            for version, command_id, schema, data in self.store.versions_of_type(self.encounter_id, STARTED_TAG):
                e = codec.decode(STARTED_TAG, schema, data)
                if codec.tag_of(e) == STARTED_TAG and live(command_id, version):
                    self._starts.append((version, e.round))
        return self._starts

    def rounds(self) -> list[int]:
        """Every round of the live timeline, 0 (the setup) first."""
        return sorted({0} | {r for _, r in self.starts})

    def _round_of(self, row) -> int | None:
        """The round a stored row starts, when it is a live ``RoundStarted``."""
        if row[4] != STARTED_TAG or not self.liveness.is_live(row[3], row[2]):
            return None
        e = codec.decode(STARTED_TAG, row[5], row[6])
        return e.round if codec.tag_of(e) == STARTED_TAG else None

    def round_at(self, version: int) -> int:
        """The round in progress just before ``version``: that of the newest
        live ``RoundStarted`` before it (0 before round 1), found by reading
        the log backwards from there (undecoded rows, a chunk at a time)."""
        hi = version - 1
        while hi >= 1:
            lo = max(1, hi - ROUND_SCAN + 1)
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
            hi = min(self.head, lo + ROUND_SCAN - 1)
            for row in self.store.read_raw(self.encounter_id, from_version=lo, to_version=hi):
                if self._round_of(row) is not None:
                    return row[2]
            lo = hi + 1
        return None

    def find_start(self, round_no: int) -> int | None:
        """The version of the live ``RoundStarted`` of round ``round_no``
        (the type index, narrowed by a JSON match on the round: first only
        among the rows that hold ``"round":N`` as affray writes it, then, if
        none is live, among all of them)."""
        live = self.liveness.is_live
        match = ("$.round", round_no, codec.CURRENT_SCHEMA[STARTED_TAG])
        for quick in (True, False):
            for version, command_id, schema, data in self.store.versions_of_type(
                self.encounter_id, STARTED_TAG, match=match, quick=quick
            ):
                if not live(command_id, version):
                    continue
                e = codec.decode(STARTED_TAG, schema, data)
                if codec.tag_of(e) == STARTED_TAG and e.round == round_no:
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
            rows = list(self.store.read_raw(self.encounter_id, from_version=max(1, lo - COMMAND_STEP), to_version=lo - 1))
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
            rows = list(self.store.read_raw(self.encounter_id, from_version=hi + 1, to_version=hi + COMMAND_STEP))
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

    def live(self, records: list[Recorded]) -> LiveRecords:
        """``records`` (a stretch of whole commands) as a timeline whose
        live records are those the whole log's :class:`Timeline` keeps."""
        return LiveRecords(records, self.liveness)


class LiveRecords:
    """The live records of a stretch of the log, as ``Timeline.live_records``
    gives them for the whole log (each command's status from ``liveness``)."""

    def __init__(self, records: list[Recorded], liveness: Liveness) -> None:
        self._records, self._liveness = records, liveness

    def live_records(self) -> Iterator[Recorded]:
        live = self._liveness.is_live
        return (r for r in self._records if not is_meta(r.event) and live(r.command_id, r.version))
