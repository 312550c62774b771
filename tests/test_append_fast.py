"""What issue 17's faster ``EventStore.append`` must keep (SQLite, and the
PostgreSQL store where it is the same contract).

``append`` writes a command's rows with one INSERT of up to 64 rows (its
shared fields bound once, ``store.sqlite._insert_rows``; a longer command
takes several), hashes the canonical texts as bytes
(``chain.command_texts``), and hashes with CPython's own SHA-256 for a
store's first 8 appends, then with OpenSSL's. A SQLite store remembers the
head it wrote last and checks and moves it with one conditional ``UPDATE``
(hashing before the lock), reading the head otherwise. None of it may change
what is stored: the rows, their ``seq`` and versions, a hash chain that
``verify`` and an independent recomputation with :mod:`hashlib` accept, and
the conflict (exit 3) of an append decided on a head that moved.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap

import pytest

from affray.events.core import EncounterOpened, NoteAdded
from affray.store import ConflictError, canonical

from backends import backend  # noqa: F401 - fixture used by name


def _opened(eid: str) -> EncounterOpened:
    return EncounterOpened(encounter_id=eid, name="Long commands", system="mrq1", seed_sha256="ab" * 32, chain=2)


def _recomputed(rows) -> list[str]:
    """The hash chain of stored rows ``(encounter_id, version, command_id,
    type, schema, data, recorded_at, actor)``, recomputed with hashlib from
    the documented layout (the genesis of chain v2 for version 1)."""
    out, prev = [], ""
    for eid, version, cid, type_, schema, data, at, actor in rows:
        if version == 1:
            prev = hashlib.sha256(f"affray chain v2\n{eid}\n{'ab' * 32}".encode()).hexdigest()
        text = canonical(eid, version, cid, type_, schema, at, actor, data)
        prev = hashlib.sha256((prev + text).encode()).hexdigest()
        out.append(prev)
    return out


@pytest.mark.parametrize("sizes", [(1, 63, 64, 65), (128, 129, 1), (200,)])
def test_commands_of_any_length_store_every_row_in_order(backend, sizes) -> None:
    """Commands around and beyond the 64 rows of one INSERT: every event
    stored once, at its version, with consecutive ``seq`` and the hash the
    chain gives; the returned envelopes are the stored rows."""
    with backend.open() as store:
        store.append("long", 0, [_opened("long")], command_id="c0", actor="gm")
        version, returned = 1, []
        for n, size in enumerate(sizes, 1):
            events = [NoteAdded(text=f"command {n} note {i} é") for i in range(size)]
            returned += store.append("long", version, events, command_id=f"c{n}", actor="gm")
            version += size
        assert store.version("long") == version
        stored = list(store.read_raw("long"))
        assert [r[2] for r in stored] == list(range(1, version + 1))
        seqs = [r[0] for r in stored]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
        assert [(r.seq, r.version, r.command_id, r.hash) for r in returned] == [
            (r[0], r[2], r[3], r[9]) for r in stored[1:]
        ]
        assert [r.event.text for r in store.read("long", from_version=2)] == [
            f"command {n} note {i} é" for n, size in enumerate(sizes, 1) for i in range(size)
        ]
        assert [r[9] for r in stored] == _recomputed([(r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]) for r in stored])
        assert store.verify() == []


def test_a_long_command_that_conflicts_writes_none_of_its_rows(backend) -> None:
    with backend.open() as store:
        store.append("long", 0, [_opened("long")], command_id="c0", actor="gm")
        store.append("long", 1, [NoteAdded(text="first")], command_id="c1", actor="gm")
        with pytest.raises(ConflictError):
            store.append("long", 1, [NoteAdded(text=str(i)) for i in range(150)], command_id="c2", actor="gm")
        assert store.version("long") == 2 and len(list(store.read_raw("long"))) == 2
        assert store.verify() == []


def test_long_commands_inside_a_transaction_are_savepoints(tmp_path) -> None:
    """Inside ``transaction()`` each append is a savepoint: a long command
    that conflicts is undone alone, the others commit together."""
    from affray.store import EventStore

    with EventStore(tmp_path / "t.db") as store:
        with store.transaction() as t:
            t.append("long", 0, [_opened("long")], command_id="c0", actor="gm")
            t.append("long", 1, [NoteAdded(text=str(i)) for i in range(100)], command_id="c1", actor="gm")
            with pytest.raises(ConflictError):
                t.append("long", 1, [NoteAdded(text=str(i)) for i in range(100)], command_id="c2", actor="gm")
            t.append("long", 101, [NoteAdded(text="last")], command_id="c3", actor="gm")
        assert store.version("long") == 102 and store.verify() == []


_PROBE = textwrap.dedent(
    """
    import sys
    from affray.events.core import EncounterOpened, NoteAdded
    from affray.store import EventStore

    store = EventStore(sys.argv[1])
    store.append("e", 0, [EncounterOpened(encounter_id="e", name="n", system="mrq1", seed_sha256="ab" * 32, chain=2)],
                 command_id="c0", actor="gm")
    for v in range(1, 8):
        store.append("e", v, [NoteAdded(text=str(v))], command_id=f"c{v}", actor="gm")
    print("_hashlib" in sys.modules, "hashlib" in sys.modules)
    for v in range(8, 30):
        store.append("e", v, [NoteAdded(text=str(v))], command_id=f"c{v}", actor="gm")
    print("_hashlib" in sys.modules)
    store.close()
    """
)


def test_openssl_is_loaded_only_by_a_store_that_appends_many_commands(tmp_path) -> None:
    """A verb appends a command or two and must not load OpenSSL (2 ms);
    from its ninth append a store hashes with it, and the chain is the same."""
    from affray.store import EventStore

    db = tmp_path / "h.db"
    EventStore(db).close()  # made here: creating a file runs its migrations, with sqlite-utils (which loads hashlib)
    out = subprocess.run([sys.executable, "-c", _PROBE, str(db)], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "True"]
    with EventStore(db, readonly=True) as store:
        rows = list(store.read_raw("e"))
        assert len(rows) == 30 and store.verify() == []
        assert [r[9] for r in rows] == _recomputed([(r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]) for r in rows])


def test_writers_taking_turns_on_one_encounter_chain_from_the_true_head(backend) -> None:
    """Two stores append to one encounter in turn: each finds the head moved
    by the other since its own last append (a SQLite store remembers the head
    it wrote, and checks it), so each chains from the head as stored; a store
    that decides from its own stale head gets the conflict, nothing written."""
    a, b = backend.open(), backend.open()
    try:
        a.append("turns", 0, [_opened("turns")], command_id="c0", actor="a")
        version = 1
        for i in range(1, 7):
            writer = (a, b)[i % 2]
            writer.append("turns", version, [NoteAdded(text=f"{i}-{j}") for j in range(i)], command_id=f"c{i}", actor="x")
            version += i
        with pytest.raises(ConflictError):
            a.append("turns", version - 6, [NoteAdded(text="late")], command_id="late", actor="a")
        a.append("turns", version, [NoteAdded(text="after")], command_id="after", actor="a")
        a.append("turns", version + 1, [NoteAdded(text="again")], command_id="again", actor="a")
        assert a.version("turns") == b.version("turns") == version + 2
        stored = list(b.read_raw("turns"))
        assert [r[9] for r in stored] == _recomputed([(r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]) for r in stored])
        assert a.verify() == [] and b.verify() == []
    finally:
        a.close()
        b.close()


def test_an_append_after_a_rolled_back_transaction_starts_from_the_stored_head(backend) -> None:
    """The appends of a transaction that rolls back leave no head behind: the
    next append at the old version goes in, one at the rolled-back version
    is a conflict."""
    with backend.open() as store:
        store.append("rb", 0, [_opened("rb")], command_id="c0", actor="gm")
        store.append("rb", 1, [NoteAdded(text="kept")], command_id="c1", actor="gm")
        with pytest.raises(RuntimeError):
            with store.transaction() as t:
                t.append("rb", 2, [NoteAdded(text="gone"), NoteAdded(text="gone too")], command_id="c2", actor="gm")
                raise RuntimeError("half-way")
        with pytest.raises(ConflictError):
            store.append("rb", 4, [NoteAdded(text="on the lost head")], command_id="c3", actor="gm")
        store.append("rb", 2, [NoteAdded(text="next")], command_id="c3", actor="gm")
        assert [r.event.text for r in store.read("rb", from_version=2)] == ["kept", "next"]
        assert store.verify() == []
