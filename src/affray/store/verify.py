"""``affray verify``: recompute hash chains and look for edits, gaps and reordering.

Each event's hash is recomputed from its row and the *stored* hash of the
event before it, so one edited event is reported once, not as a cascade.
"""

from __future__ import annotations

import sqlite3

import msgspec

from affray.events import codec

from affray.store.chain import Canonicals, bulk_sha256, chain_hash


class ChainCheck:
    """The hash-chain check of one encounter, fed one stored row at a time
    (so a caller that streams the log for other checks too reads it once).

    ``feed(seq, version, command_id, type, schema, data, recorded_at,
    actor, hash)`` checks one row and returns the decoded event (``None``
    when it does not decode); ``finish(head)`` checks the head row
    (``(version, hash)`` or ``None``) and returns every problem, one line
    each, or ``None`` when the encounter has neither events nor head.
    ``canonicals`` builds the text each hash covers. ``affray verify``'s
    own pass (:func:`affray.verify.check_encounter`) does what ``feed``
    does inline, keeping ``expected``, ``prev_hash``, ``prev_seq``,
    ``last_hash``, ``seen`` and ``problems`` as ``feed`` would.
    """

    def __init__(self, encounter_id: str, *, decode: bool = True) -> None:
        self.encounter_id = encounter_id
        self.where = f"encounter {encounter_id}"
        self.problems: list[str] = []
        self.expected, self.prev_hash, self.prev_seq, self.last_hash = 1, "", -1, ""
        self.seen = False
        self._decode = decode
        self.canonicals, self.sha = Canonicals(encounter_id), bulk_sha256()
        #: the command whose events the rows are in, and every command seen
        #: before it (affray appends a command's events as one run)
        self.run, self.commands = None, set()

    def feed(self, seq, version, command_id, type_, schema, data, recorded_at, actor, hash_, *, decode=None):
        self.seen = True
        expected = self.expected
        if version != expected or seq < self.prev_seq:
            self.misplaced(seq, version, expected, self.prev_seq)
        if command_id != self.run:
            self.new_run(version, command_id)
        try:
            ok = chain_hash(
                self.prev_hash, self.canonicals(version, command_id, type_, schema, recorded_at, actor, data), self.sha
            ) == hash_
        except (TypeError, ValueError, AttributeError):  # a field of the wrong type (an edited row)
            ok = False
        if not ok or not isinstance(data, str):
            self.problems.append(f"{self.where} version {version}: hash mismatch (this event, or the hash before it, was changed)")
        event = None
        if self._decode if decode is None else decode:
            event, found = decoded_row(type_, schema, data)
            self.problems.extend(f"{self.where} version {version}: {p}" for p in found)
        self.expected, self.prev_hash, self.prev_seq, self.last_hash = version + 1, hash_, seq, hash_
        return event

    def new_run(self, version, command_id) -> None:
        """Note that the rows from ``version`` on are command ``command_id``'s:
        a command already seen earlier in the log is a problem, since affray
        appends each command's events together, in one transaction (an event
        given another command's id by hand, then re-hashed, would otherwise
        be undone or kept with the wrong command)."""
        try:
            again = command_id in self.commands
            self.commands.add(command_id)
        except TypeError:  # an unhashable value in the column: the hash check reports the row
            again = False
        if again:
            self.problems.append(
                f"{self.where} version {version}: an event of command {command_id!r} after other commands' events "
                "(affray writes a command's events together; the command ids were edited)"
            )
        self.run = command_id

    def misplaced(self, seq, version, expected, prev_seq) -> None:
        """Record the problems of a row at ``version`` (stored as ``seq``)
        where ``expected`` was due after the row stored as ``prev_seq``:
        missing versions, or a row stored before the one it follows."""
        where, problems = self.where, self.problems
        if version > expected:
            missing = str(expected) if version == expected + 1 else f"{expected}-{version - 1}"
            problems.append(f"{where} version {missing}: missing (events were deleted)")
        if seq < prev_seq:
            problems.append(f"{where} version {version}: stored before version {expected - 1} (events were reordered)")

    def finish(self, head) -> list[str] | None:
        where, problems = self.where, self.problems
        last = self.expected - 1
        if head is None:
            if not self.seen:
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
        elif head[1] != self.last_hash:
            problems.append(f"{where} version {last}: head hash differs from the last event's (tail rewritten)")
        return problems


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
    check = ChainCheck(encounter_id)
    for row in rows:
        check.feed(*row)
    return check.finish(head)


def decoded_row(type_: object, schema: object, data: object):
    """``(event or None, problems)`` for one stored row: the event decoded
    (upcast to the current schema), or the reasons it does not decode."""
    try:
        event = codec.decode(type_, schema, data)  # type: ignore[arg-type]
    except codec.UnknownEvent as exc:
        return None, [f"cannot decode: {exc}"]
    except (msgspec.DecodeError, msgspec.ValidationError, TypeError, ValueError) as exc:
        return None, [f"cannot decode its data: {exc}"]
    if codec.tag_of(event) != type_:
        return None, [f"data says type {codec.tag_of(event)!r} but the row says {type_!r}"]
    return event, []


def file_problems(conn: sqlite3.Connection) -> tuple[list[str], list[str]]:
    """``(problems, encounter ids)`` of the whole file, without checking the
    chains: SQLite's ``quick_check``, and every encounter id found in the
    events or the heads table (one whose events were all deleted included),
    in the order they were created. :func:`verify_encounter` (or a caller's
    own pass) then checks each one."""
    problems = [
        f"database: {line}" for (line,) in conn.execute("PRAGMA quick_check") if line != "ok"
    ]
    ids = [r[0] for r in conn.execute(
        "SELECT encounter_id FROM events GROUP BY encounter_id ORDER BY min(seq)"
    )]
    ids += [r[0] for r in conn.execute(
        "SELECT encounter_id FROM heads WHERE encounter_id NOT IN (SELECT encounter_id FROM events)"
    )]
    return problems, ids


def verify_all(conn: sqlite3.Connection) -> list[str]:
    """Problems of every encounter, plus SQLite's own ``quick_check``."""
    problems, ids = file_problems(conn)
    for eid in ids:
        problems.extend(verify_encounter(conn, eid) or [])
    return problems
