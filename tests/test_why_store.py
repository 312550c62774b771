"""``why`` from the store, window by window, equals ``why`` over the whole log.

``affray why`` must answer in well under 100 ms on a log of a million
events, so it no longer reads the log: :func:`affray.views.why.why_store`
follows the chain from a condition's ``cause`` version, reading only small
windows of the log around the events it leads to (:class:`StoreIndex`).
For generated fights (the demo duel with engine dice, mixed with undo, redo,
rewind and notes), every question (each combatant alone, its status, each of
its conditions and each of its hit locations) gets the same answer both ways,
with the windows made as small as they can be, so that every window starts
well inside the log.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from affray.commands.demo import autoplay, setup
from affray.projections.snapshots import load_state
from affray.store import EventStore
from affray.views import why as whymod
from affray.views.why import why, why_store

from test_export_stream import random_fight


class TinyWindows(whymod.StoreIndex):
    """Windows that start as late as they may, found by reading back a few
    events at a time, never walked on."""

    LEAD = 0
    GAP = -1
    BACK = 3


class WalkOn(TinyWindows):
    """Every later record is reached by walking an earlier window on."""

    GAP = 10**9


def _questions(state, handle: str) -> list[str]:
    c = state.combatants[handle]
    subjects = ["", c.status]
    subjects += [x.id for x in c.conditions] + [x.name for x in c.conditions]
    subjects += [loc.name for loc in c.locations]
    return list(dict.fromkeys(subjects))


def _same_answers(store: EventStore, eid: str, index_cls=whymod.StoreIndex) -> int:
    state = load_state(store, eid)
    records = list(store.read(eid))
    asked = 0
    for handle in state.combatants:
        for subject in _questions(state, handle):
            try:
                expected = why(records, state, handle, subject)
            except ValueError as exc:
                with pytest.raises(ValueError) as info:
                    whymod._why(index_cls(store, eid), state, handle, subject)
                assert str(info.value) == str(exc)
                continue
            assert whymod._why(index_cls(store, eid), state, handle, subject) == expected, (handle, subject)
            asked += 1
    return asked


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(5, 160))
def test_why_from_windows_equals_why_over_the_whole_log(seed, steps):
    store = EventStore(":memory:")
    eid = random_fight(store, random.Random(seed), steps, seed=seed.to_bytes(4, "big"))
    for index in (TinyWindows, WalkOn, whymod.StoreIndex):
        _same_answers(store, eid, index)  # (an undo may have taken back even the joins)


@pytest.mark.parametrize("seed", [b"a", b"b", b"c", b"d"])
def test_why_over_whole_fights(seed):
    """Fights played to the end: wounds, unconsciousness, re-tests at the
    end of a round (whose chain goes back to the wound, rounds earlier)."""
    store = EventStore(":memory:")
    eid = setup(store, seed=seed, allow_short_seed=True, actor="gm")
    state = autoplay(store, eid, actor="gm")
    assert state.phase == "over"
    for index in (TinyWindows, WalkOn, whymod.StoreIndex):
        assert _same_answers(store, eid, index)


def test_why_store_reads_only_windows(monkeypatch):
    """On a longer log, the chain of a condition is found without reading
    the log from its start."""
    store = EventStore(":memory:")
    eid = setup(store, seed=b"a", allow_short_seed=True, actor="gm")
    state = autoplay(store, eid, actor="gm")
    c = next(c for c in state.combatants.values() if c.conditions)
    cond = max(c.conditions, key=lambda x: x.cause)
    reads: list[tuple[int, int | None]] = []
    real = store.read

    def counting(encounter_id, *, from_version=1, to_version=None):
        reads.append((from_version, to_version))
        return real(encounter_id, from_version=from_version, to_version=to_version)

    monkeypatch.setattr(store, "read", counting)
    got = why_store(store, eid, state, c.handle, cond.id)
    assert got["chains"] and got["chains"][0]["links"]
    assert reads and all(to is not None for _, to in reads)
    assert all(lo > 1 for lo, _ in reads) or store.version(eid) < 2 * whymod.StoreIndex.LEAD


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(20, 160), order=st.randoms(use_true_random=False))
def test_windows_indexed_in_any_order_keep_version_order(seed, steps, order):
    """Whatever order the windows are walked in (a chain goes back in time,
    ``every`` asks oldest first), each command's, each exchange's and the
    live records stay in version order, and hold what the whole log's
    index holds for them."""
    store = EventStore(":memory:")
    eid = random_fight(store, random.Random(seed), steps, seed=seed.to_bytes(4, "big"))
    whole = whymod.LogIndex(list(store.read(eid)))
    versions = list(whole.by_version)
    order.shuffle(versions)
    for index_cls in (TinyWindows, WalkOn):
        ix = index_cls(store, eid)
        for v in versions[: max(1, len(versions) // 5)]:
            ix.ensure(v)
        assert [r.version for r in ix.live] == sorted(ix.by_version)
        for cid, recs in ix.commands.items():
            assert [r.version for r in recs] == [r.version for r in whole.commands[cid] if r.version in ix.by_version]
        for xid, recs in ix.exchanges.items():
            assert [r.version for r in recs] == [r.version for r in whole.exchanges[xid] if r.version in ix.by_version]
