"""Move a whole log between stores (``affray copy``): SQLite ⇄ PostgreSQL,
or file to file.

Every encounter is streamed row by row (memory stays flat) through
:meth:`Store.import_records`, which keeps each envelope as it is (versions,
command ids, times, actors, data text and hashes) and checks the chain again
on the way in; the dice seed each encounter committed to, and its
snapshots, follow it. The hashes on both ends are therefore identical, and
``affray verify`` passes on both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import msgspec

from affray.store.errors import StoreError
from affray.store.interface import ImportRow, Store


class Copied(msgspec.Struct, frozen=True):
    """One encounter copied: its id, number of events, head hash, and
    whether its dice seed and how many snapshots came along."""

    encounter_id: str
    events: int
    head: str
    seed: bool
    snapshots: int


def _rows(src: Store, encounter_id: str) -> Iterator[ImportRow]:
    for _seq, _eid, version, command_id, type_, schema, data, recorded_at, actor, hash_ in src.read_raw(encounter_id):
        yield version, command_id, type_, schema, data, recorded_at, actor, hash_


def copy_log(src: Store, dst: Store, *, progress: Callable[[Copied], object] | None = None) -> list[Copied]:
    """Copy every encounter of ``src`` into ``dst``, oldest first.

    Refuses (:class:`StoreError`, nothing written) when ``src`` holds no
    encounter or when an encounter id of ``src`` is already in ``dst``.
    Each encounter is copied whole or not at all (one transaction); a
    failure part-way leaves the encounters copied before it in ``dst``,
    and the error names the one that failed. After each one, the heads of
    both ends must be equal (else :class:`StoreError`). ``progress`` is
    called with each :class:`Copied`.
    """
    ids = src.encounter_ids()
    if not ids:
        raise StoreError(f"{src.path} holds no encounter to copy")
    taken = [eid for eid in ids if dst.has_encounter(eid)]
    if taken:
        raise StoreError(
            f"{dst.path} already holds encounter {taken[0]!r}"
            + (f" and {len(taken) - 1} more" if len(taken) > 1 else "")
            + "; copy into an empty log"
        )
    out = []
    for eid in ids:
        try:
            count = dst.import_records(eid, _rows(src, eid))
        except StoreError as exc:
            raise StoreError(f"copying encounter {eid} failed, nothing of it was copied: {exc}") from None
        seed = src.get_seed(eid)
        if seed is not None:
            dst.put_seed(eid, seed)
        snaps = 0
        for version, data in src.snapshot_stream(eid):
            dst.save_snapshot(eid, version, data)
            snaps += 1
        head = src.head(eid)
        if dst.head(eid) != head:
            raise StoreError(f"encounter {eid}: the copy's head {dst.head(eid)} differs from {head}; verify both")
        done = Copied(eid, count, head[1], seed is not None, snaps)
        out.append(done)
        if progress is not None:
            progress(done)
    return out
