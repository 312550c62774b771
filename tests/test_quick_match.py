"""``versions_of_type(..., quick=True)``: the text prefilter before the JSON match.

Finding round R's ``RoundStarted`` (``replay --round``, ``log --round``,
``rewind``) used to parse the JSON of every round start in SQL; ``quick``
first keeps the rows whose text holds ``"round":R`` as affray writes it
(compact JSON, msgspec's), so only those are parsed. A row written
otherwise (spaces after the colon: by hand, or imported so) is missed by the
quick match, and ``LogWindow.find_start`` then asks again without it.
"""

from __future__ import annotations

import json
import sqlite3

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from affray.commands.demo import autoplay
from affray.events import codec
from affray.events import core as ev
from affray.projections.travel import STARTED_TAG, LogWindow
from affray.store import EventStore
from affray.store.sqlite import _compact_field
from affray.views.round_replay import replay, replay_store

from test_log_stream import tough_duel

_SCHEMA = codec.CURRENT_SCHEMA[STARTED_TAG]


@given(st.one_of(st.integers(-(2**62), 2**62), st.text(max_size=20)))
def test_the_needle_is_what_msgspec_writes(value):
    """The quick needle is a substring of the event's JSON as stored."""

    class Probe(msgspec.Struct, tag="probe"):
        round: int | str

    needle = _compact_field("$.round", value)
    assert needle is not None and needle in msgspec.json.encode(Probe(round=value)).decode()


def test_no_needle_for_paths_and_values_it_cannot_write():
    assert _compact_field("$.a.b", 1) is None
    assert _compact_field("round", 1) is None
    assert _compact_field("$.round", True) is None
    assert _compact_field("$.round", 1.5) is None
    assert _compact_field("$.round", None) is None
    assert _compact_field('$."odd key"', 1) is None


def _fight(tmp_path) -> tuple[EventStore, str]:
    """The tough duel of test_log_stream, played for a few rounds."""
    eid = tough_duel(tmp_path / "f.db")
    store = EventStore(tmp_path / "f.db")
    autoplay(store, eid, max_commands=150)
    return store, eid


def test_quick_and_exact_agree_on_what_affray_writes(tmp_path):
    store, eid = _fight(tmp_path)
    rounds = {codec.decode(STARTED_TAG, s, d).round for _v, _c, s, d in store.versions_of_type(eid, STARTED_TAG)}
    assert len(rounds) >= 3
    for r in sorted(rounds) + [0, 99]:
        match = ("$.round", r, _SCHEMA)
        assert store.versions_of_type(eid, STARTED_TAG, match=match, quick=True) == store.versions_of_type(
            eid, STARTED_TAG, match=match)


def test_a_round_start_written_otherwise_is_still_found(tmp_path):
    """Rewrite round 2's start with a space after each colon (what a hand or
    another program might write): the quick match misses it, the round is
    found all the same, and ``replay --round`` reads as before."""
    store, eid = _fight(tmp_path)
    before = replay_store(store, eid, 2)
    window = LogWindow(store, eid)
    found = window.find_start(2)
    assert found is not None
    store.close()
    raw = sqlite3.connect(tmp_path / "f.db")
    raw.execute("DROP TRIGGER IF EXISTS events_no_update")
    (data,) = raw.execute("SELECT data FROM events WHERE encounter_id = ? AND version = ?", (eid, found)).fetchone()
    spaced = json.dumps(json.loads(data), separators=(",", ": "))
    assert spaced != data and codec.decode(STARTED_TAG, _SCHEMA, spaced) == codec.decode(STARTED_TAG, _SCHEMA, data)
    raw.execute("UPDATE events SET data = ? WHERE encounter_id = ? AND version = ?", (spaced, eid, found))
    raw.commit()
    raw.close()
    store = EventStore(tmp_path / "f.db", readonly=True)
    match = ("$.round", 2, _SCHEMA)
    assert found not in [r[0] for r in store.versions_of_type(eid, STARTED_TAG, match=match, quick=True)]
    assert found in [r[0] for r in store.versions_of_type(eid, STARTED_TAG, match=match)]
    assert LogWindow(store, eid).find_start(2) == found
    assert replay_store(store, eid, 2) == before == replay(list(store.read(eid)), 2)
    assert isinstance(codec.decode(STARTED_TAG, _SCHEMA, spaced), ev.RoundStarted)
