"""``affray verify``: recompute hash chains and look for edits, gaps and reordering.

Each event's hash is recomputed from its row and the *stored* hash of the
event before it, so one edited event is reported once, not as a cascade.
"""

from __future__ import annotations

import sqlite3

import msgspec

from affray.events import codec
from affray.store.chain import canonical, chain_hash


def verify_encounter(conn: sqlite3.Connection, encounter_id: str) -> list[str] | None:
    """Problems of one encounter, one line each; ``None`` if it does not exist."""
    head = conn.execute(
        "SELECT version, hash FROM heads WHERE encounter_id = ?", (encounter_id,)
    ).fetchone()
    rows = conn.execute(
        "SELECT seq, version, command_id, type, schema, data, recorded_at, actor, hash "
        "FROM events WHERE encounter_id = ? ORDER BY version",
        (encounter_id,),
    )
    where = f"encounter {encounter_id}"
    problems: list[str] = []
    expected, prev_hash, prev_seq, last_hash = 1, "", -1, ""
    seen = False
    for seq, version, command_id, type_, schema, data, recorded_at, actor, hash_ in rows:
        seen = True
        at = f"{where} version {version}"
        if version > expected:
            missing = str(expected) if version == expected + 1 else f"{expected}-{version - 1}"
            problems.append(f"{where} version {missing}: missing (events were deleted)")
        if seq < prev_seq:
            problems.append(f"{at}: stored before version {expected - 1} (events were reordered)")
        text = data if isinstance(data, str) else None
        if text is None or chain_hash(
            prev_hash, canonical(encounter_id, version, command_id, type_, schema, recorded_at, actor, text)
        ) != hash_:
            problems.append(f"{at}: hash mismatch (this event, or the hash before it, was changed)")
        problems.extend(f"{at}: {p}" for p in _decode_problems(type_, schema, data))
        expected, prev_hash, prev_seq, last_hash = version + 1, hash_, seq, hash_
    last = expected - 1
    if head is None:
        if not seen:
            return None
        problems.append(f"{where} version {last}: no head row (the heads table was edited)")
    elif head[0] > last:
        missing = str(head[0]) if head[0] == last + 1 else f"{last + 1}-{head[0]}"
        problems.append(
            f"{where} version {missing}: missing, the head is at version {head[0]} "
            "(the newest events were deleted)"
        )
    elif head[0] < last:
        problems.append(f"{where} version {last}: the head says version {head[0]} (the heads table was edited)")
    elif head[1] != last_hash:
        problems.append(f"{where} version {last}: head hash differs from the last event's (tail rewritten)")
    return problems


def _decode_problems(type_: object, schema: object, data: object) -> list[str]:
    try:
        event = codec.decode(type_, schema, data)  # type: ignore[arg-type]
    except codec.UnknownEvent as exc:
        return [f"cannot decode: {exc}"]
    except (msgspec.DecodeError, msgspec.ValidationError, TypeError, ValueError) as exc:
        return [f"cannot decode its data: {exc}"]
    if codec.tag_of(event) != type_:
        return [f"data says type {codec.tag_of(event)!r} but the row says {type_!r}"]
    return []


def verify_all(conn: sqlite3.Connection) -> list[str]:
    """Problems of every encounter, plus SQLite's own ``quick_check``."""
    problems = [
        f"database: {line}" for (line,) in conn.execute("PRAGMA quick_check") if line != "ok"
    ]
    ids = [r[0] for r in conn.execute(
        "SELECT encounter_id FROM events GROUP BY encounter_id ORDER BY min(seq)"
    )]
    ids += [r[0] for r in conn.execute(
        "SELECT encounter_id FROM heads WHERE encounter_id NOT IN (SELECT encounter_id FROM events)"
    )]
    for eid in ids:
        problems.extend(verify_encounter(conn, eid) or [])
    return problems
