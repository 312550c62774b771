"""Snapshots: a cache of the projected state, never the truth.

A snapshot at version *V* is the state of the log cut at *V* (meta events up
to *V* included). It is taken automatically at each round's end and every
:data:`SNAPSHOT_EVERY` events, so the state at any version costs at most one
snapshot decode plus that many events (DESIGN.md invariant 7).

A snapshot is stale for a later point when a meta event after it retracts,
restores or rewinds over a command at or before *V*; :func:`load_state`
then falls back to an earlier snapshot. ``affray verify`` re-checks every
snapshot against a full replay.

A snapshot records the head hash of the log at *V* (the stored hash of the
event at *V*), and :func:`load_state` uses it only while the log's event at
*V* still has that hash: a snapshot of another history (a log rewritten or
re-imported under it, a snapshot copied from another file) is ignored, and
the state is folded from the log. A snapshot written before affray recorded
the hash is ignored too. Whoever can write the file can still forge a
snapshot with the right hash; ``affray verify`` finds it while it exists,
and ``affray audit`` (or ``verify --full``) finds any decision it steered,
since both fold the log alone (README, "Threat model").
"""

from __future__ import annotations

import msgspec

from affray.events.core import EncounterRewound
from affray.projections.state import STATE_SCHEMA, State
from affray.projections.evolve import fold_rows
from affray.projections.timeline import Liveness, Timeline, fold, project

#: Take a snapshot whenever the log crosses a multiple of this many events.
SNAPSHOT_EVERY = 1000

_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(tuple[int, State, str])


def dump(state: State, head_hash: str = "") -> bytes:
    """Encode ``state`` for the snapshots table (msgpack: its schema, the
    state, and ``head_hash``, the stored hash of the event at
    ``state.version``, which :func:`load_state` checks before using it)."""
    return _encoder.encode((STATE_SCHEMA, state, head_hash))


def load_bound(data: bytes) -> tuple[State, str] | None:
    """Decode a snapshot as ``(state, head hash)`` (``""`` for one written
    before the hash was recorded); ``None`` when it was written for another
    schema or is damaged."""
    try:
        schema, state, head_hash = _decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):
        try:
            schema, state = msgspec.msgpack.decode(data, type=tuple[int, State])  # written before the head hash was recorded
        except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):  # damaged: a cache, so replay
            return None
        head_hash = ""
    return (state, head_hash) if schema == STATE_SCHEMA else None


def load(data: bytes) -> State | None:
    """Decode a snapshot's state; ``None`` when it was written for another schema."""
    found = load_bound(data)
    return found[0] if found is not None else None


def _stale(tail: Timeline, base_version: int) -> bool:
    if tail.rewound_to is not None and tail.rewound_to < base_version:
        return True
    return any(cid not in tail.first_version for cid in tail.touched)


def load_state(store, encounter_id: str, *, at_version: int | None = None, use_snapshots: bool = True) -> State:
    """The state of ``encounter_id`` at its head, or after ``at_version``.

    ``store`` is an :class:`affray.store.EventStore`. Cost: one snapshot
    decode plus the events after it (at most ``SNAPSHOT_EVERY`` in the usual
    case). Raises the store's errors unchanged.
    """
    at_most = at_version if at_version is not None else store.version(encounter_id)
    at_version = at_most  # every read below stops at the same version, even while others append
    while True:
        base = State()
        base_version = 0
        if use_snapshots and at_most > 0:
            snap = store.latest_snapshot(encounter_id, at_most)
            if snap is not None:
                loaded = load_bound(snap[1])
                if loaded is not None and loaded[1] and loaded[1] == store.hash_at(encounter_id, snap[0]):
                    base, base_version = loaded[0], snap[0]
                elif snap[0] > 1:
                    at_most = snap[0] - 1  # not of this history: an earlier one, or the log alone
                    continue
        if not base_version:
            return replay(store, encounter_id, to_version=at_version)
        if not store.read_meta(encounter_id, from_version=base_version + 1, to_version=at_version):
            # the usual case: no undo, redo or rewind since the snapshot, so the
            # tail is folded from the lean read (no envelopes, no hashes)
            return store.fold_rows(
                encounter_id, lambda rows, first: fold_rows(base, rows, first=first),
                from_version=base_version + 1, to_version=at_version)
        tail = Timeline(store.read(encounter_id, from_version=base_version + 1, to_version=at_version))
        if base_version and _stale(tail, base_version):
            at_most = base_version - 1
            if tail.rewound_to is not None:  # every snapshot after the rewind's point has it in its tail
                at_most = min(at_most, tail.rewound_to)
            continue
        state = fold(base, tail.live_records())
        if tail.records and tail.records[-1].version != state.version:
            state = msgspec.structs.replace(state, version=tail.records[-1].version)
        return state


def wants_snapshot(before_version: int, after_version: int, round_ended: bool) -> bool:
    """Whether a command that moved the log from ``before_version`` to
    ``after_version`` should leave a snapshot."""
    return round_ended or before_version // SNAPSHOT_EVERY != after_version // SNAPSHOT_EVERY


def replay(store, encounter_id: str, *, to_version: int | None = None) -> State:
    """The state after a full replay of the log (cut at ``to_version``).

    Streams the log: the meta events are read first through the type index,
    and every other event is decoded and folded as it comes, never held in a
    list, so memory stays flat however long the fight. A log with rewinds
    is read in the stretches between its rewound spans (a rewound span is
    void whole, and is not read: an amend's replay used to read the whole
    log at each of its first commands); it falls back to
    :func:`affray.projections.timeline.project` when a rewind's point is not
    at the end of a command (an edited log), where the span's edge is not a
    command's.
    """
    head = store.version(encounter_id)
    last = head if to_version is None else min(head, to_version)  # one cut for every read below
    metas = store.read_meta(encounter_id, to_version=last)
    dead = frozenset(Timeline(metas).retracted)
    rewinds = [m.event.to_version for m in metas if isinstance(m.event, EncounterRewound)]
    if any(t >= 1 and not store.starts_command(encounter_id, t + 1) for t in rewinds):
        return project(store.read(encounter_id, to_version=last))
    state, start = State(), 1
    for low, high in Liveness(metas).spans():
        state = store.fold_rows(
            encounter_id, lambda rows, first, s=state: fold_rows(s, rows, dead, first), from_version=start, to_version=low)
        start = high  # the rewind itself is a meta event: fold_rows leaves it out
    state = store.fold_rows(
        encounter_id, lambda rows, first, s=state: fold_rows(s, rows, dead, first), from_version=start, to_version=last)
    if last != state.version:
        state = msgspec.structs.replace(state, version=last)
    return state
