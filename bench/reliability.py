"""affray reliability harness: crash safety under SIGKILL, and concurrent writers.

    python bench/reliability.py                  # 1,000 kills; 4 writers x 1,000 commands; CLI sample (~10 min on 2 cores)
    python bench/reliability.py --smoke          # 20 kills, 3 writers x 30 commands, CLI 2 x 5 (CI, ~30 s)
    python bench/reliability.py --kills 200 --writers 4 --commands 500 --cli-commands 20 --json out.json

Unlike bench/bench.py this asserts: it exits 1 when any check fails, and
prints the problems found. It prints README-ready markdown tables.

Crash safety (DESIGN.md invariant 4, "a command is atomic"). A child process
(forked from this one; ``--spawn`` runs a fresh interpreter instead) plays an
endless mrq1 duel through :func:`affray.commands.handler.execute` -- fight
steps with engine dice, notes, undo, redo, now and then a new encounter and
its joins, or a close -- on a SQLite file at ``synchronous=FULL``, and is killed
with SIGKILL at a random moment, 0 to ``--max-delay`` ms after it starts (80;
400 with ``--spawn``, whose children spend the first ~300 ms importing). The
child writes markers to a file with ``write(2)`` (no buffering: they survive
the kill): ``I`` just before ``EventStore.append`` (the encounter, expected
version, command id, number of events and a SHA-256 of the exact rows it is
about to write), ``C`` when ``append`` has returned, ``S``/``s`` around a
snapshot write, and ``A`` when ``execute`` has returned (the command is
acknowledged). After every kill the parent opens the file afresh and checks:

* no half-written command: every command id's events are one contiguous
  run, the command id is ``c<first version>``, a fight command's batch starts
  with ``command-issued``, and every batch in the log is byte for byte one
  that some child announced with ``I`` (same tags, data and count: all of the
  command or none of it);
* no acknowledged command lost: every ``C`` and ``A`` ever reported is in
  the log at the versions reported, with the same last hash;
* ``store.verify()`` is empty (hash chains, heads, ``PRAGMA quick_check``);
* projections: for every encounter that changed, ``load_state`` (snapshot +
  tail) equals ``replay`` (no snapshots), at the head and at one random
  version; every new snapshot equals a replay cut at its version;
* the dice seed kept for each encounter matches its commitment in
  ``encounter-opened``.

The next child continues the same file; every ``--kills-per-db`` kills a new
file is started. Besides the random kills, ``--targeted`` kills stop the child
(SIGSTOP, sent to itself) at an exact point and then SIGKILL it: after the
first INSERT of a batch of several events, at COMMIT, just after COMMIT
returns, and just before a snapshot is written.

Concurrency (DESIGN.md invariant 5). ``--writers`` processes each append
``--commands`` notes through ``execute`` to one encounter ("shared"), then to
one encounter each in the same file ("separate"); a writer whose append gets
:class:`ConflictError` runs the command again, as the CLI's hint says.
A third run races fight steps, undo and redo on one encounter and then
re-derives every command with the rules (``affray audit``): a command decided
on a stale state must have been refused. The CLI sample runs ``affray note``
subprocesses (``--cli-writers`` x ``--cli-commands``), shared and separate:
exit 3 must carry the retry hint, and no stderr may hold a traceback.
Checked: versions are 1..head with no gap or duplicate; every accepted
command is in the log exactly once, where its writer saw it; no conflicting
attempt left anything behind; verify, and load_state equals replay.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import select
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import defaultdict
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path


from affray import dice as dicelib
from affray.events import commands as cmd
from affray.commands.handler import execute
from affray.commands.demo import next_command
from affray.events import codec
from affray.projections.snapshots import load as load_snapshot, load_state, replay
from affray.rules.base import RuleError
from affray.store import EventStore
from affray.store.errors import ConflictError, DatabaseLocked

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import affray_cmd, bench_sheets as sheets, remove_db  # noqa: E402  (bench/bench.py's helpers)

SINGLE_EVENT_COMMANDS = {
    "encounter-opened", "note-added", "command-retracted", "command-restored", "encounter-rewound", "encounter-closed",
}
TARGETS = ("mid-batch", "at-commit", "after-commit", "snapshot")


# --------------------------------------------------------------------------- #
# shared helpers
# --------------------------------------------------------------------------- #


def batch_digest(rows) -> str:
    """SHA-256 over ``(type, data)`` of a batch: what append writes per event."""
    h = hashlib.sha256()
    for tag, data in rows:
        h.update(tag.encode())
        h.update(b"\t")
        h.update(data.encode())
        h.update(b"\n")
    return h.hexdigest()


def _fmt_int(n: int) -> str:
    return f"{n:,}"


# --------------------------------------------------------------------------- #
# crash safety: the child
# --------------------------------------------------------------------------- #


class _StopAt:
    """A stand-in for the store's sqlite3 connection that stops the process
    (SIGSTOP to itself) at one chosen point, for the parent to SIGKILL it
    there. Everything else goes to the real connection."""

    def __init__(self, conn: sqlite3.Connection, target: str):
        self._real, self.target, self.armed, self._inserts = conn, target, False, 0

    def __getattr__(self, name):
        return getattr(self._real, name)

    @property
    def in_transaction(self) -> bool:
        return self._real.in_transaction

    def _stop(self) -> None:
        os.kill(os.getpid(), signal.SIGSTOP)
        os._exit(9)  # never reached: the parent kills a stopped child

    def execute(self, sql, *args):
        head = sql.lstrip()[:24].upper()
        if self.armed:
            if self.target == "mid-batch" and head.startswith("INSERT INTO EVENTS"):
                self._inserts += 1
                if self._inserts == 2:  # the first event is in, the second not yet
                    self._stop()
            elif self.target == "at-commit" and head.startswith("COMMIT"):
                self._stop()
            elif self.target == "snapshot" and "INTO SNAPSHOTS" in sql.upper():
                self._stop()
        if head.startswith("BEGIN"):
            self._inserts = 0
        out = self._real.execute(sql, *args)
        if self.armed and self.target == "after-commit" and head.startswith("COMMIT"):
            self._stop()
        if self.armed and self.target == "mid-batch" and head.startswith("INSERT INTO EVENTS") and "), (" in sql:
            # append writes a command's rows with one INSERT of many rows: they are in,
            # and the transaction is not committed
            self._stop()
        return out

    def executemany(self, sql, rows):
        """``append`` inserts a command's events with one ``executemany``:
        "mid-batch" stops once the first row is in and before the second
        goes in (sqlite3 takes the rows one at a time from the iterator)."""
        if self.armed and self.target == "mid-batch" and sql.lstrip()[:24].upper().startswith("INSERT INTO EVENTS"):
            rows = self._stopping_after_first(rows)
        return self._real.executemany(sql, rows)

    def _stopping_after_first(self, rows):
        for i, row in enumerate(rows):
            if i == 1:  # the first event is in, the second not yet
                self._stop()
            yield row


class _Recording(EventStore):
    """An EventStore that announces each write on the marker file."""

    log = None  # set by the child: a function taking one marker line

    def append(self, encounter_id, expected_version, events, *, command_id, actor, recorded_at=None, **kw):
        rows = [(e.__struct_config__.tag, codec.encode(e).decode()) for e in events]
        self.log(f"I {encounter_id} {expected_version} {command_id} {len(rows)} {batch_digest(rows)}")
        out = super().append(encounter_id, expected_version, events, command_id=command_id, actor=actor,
                             recorded_at=recorded_at, **kw)
        if out:
            self.log(f"C {encounter_id} {command_id} {out[0].version} {out[-1].version} {out[-1].hash}")
        return out

    def save_snapshot(self, encounter_id, version, data):
        self.log(f"S {encounter_id} {version}")
        super().save_snapshot(encounter_id, version, data)
        self.log(f"s {encounter_id} {version}")


def _ensure_ready(store, eid: str, k: int, rng: random.Random, ack) -> str:
    """An open encounter with both duellists joined (opening one if needed)."""
    state = load_state(store, eid) if eid else None
    if state is None or state.phase in ("over", "closed"):
        out = execute(
            store, cmd.OpenEncounter(name=f"crash {k} {rng.randrange(10**6)}", system="mrq1"),
            actor="crash", seed=rng.randbytes(32),
        )
        ack(out)
        eid, state = out.encounter_id, out.state
    if state.phase == "setup" and len(state.combatants) < 2:
        for sheet, side, name in sheets():
            handle = (name or sheet["name"]).lower().replace(" ", "")
            if handle not in state.combatants:
                ack(execute(store, cmd.JoinCombatant(sheet=sheet, side=side, name=name), encounter_id=eid, actor="crash"))
    return eid


def crash_child(db: str, markers: str, seed: int, k: int, target: str = "", arm_after: int = 0) -> None:
    """Play commands on ``db`` until killed (never returns normally)."""
    fd = os.open(markers, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def log(line: str) -> None:
        os.write(fd, (line + "\n").encode())

    def ack(out) -> None:
        if out.records:
            r0, r1 = out.records[0], out.records[-1]
            log(f"A {out.encounter_id} {r0.command_id} {r0.version} {r1.version} {r1.hash}")

    rng = random.Random(seed)
    try:
        _Recording.log = staticmethod(log)
        store = _Recording(db)
        if target:
            store._conn = _StopAt(store._conn, target)
        eid = store.newest_open_encounter() or ""
        eid = _ensure_ready(store, eid, k, rng, ack)
        state = load_state(store, eid)
        done = 0
        while True:
            if target and done >= arm_after:
                store._conn.armed = True
            r = rng.random()
            try:
                if r < 0.005:
                    out = execute(store, cmd.CloseEncounter(reason="crash harness"), encounter_id=eid, actor="crash")
                elif r < 0.015:
                    state = None
                    out = None
                    eid = _ensure_ready(store, "", k, rng, ack)
                elif r < 0.075:
                    out = execute(store, cmd.AddNote(text=f"note {k}.{done}", secret=rng.random() < 0.2),
                                  encounter_id=eid, actor="crash")
                elif r < 0.115:
                    out = execute(store, cmd.Undo(), encounter_id=eid, actor="crash")
                elif r < 0.135:
                    out = execute(store, cmd.Redo(), encounter_id=eid, actor="crash")
                else:
                    command = next_command(state) if state is not None else None
                    if command is None:
                        eid = _ensure_ready(store, eid, k, rng, ack)
                        out = None
                    else:
                        out = execute(store, command, encounter_id=eid, actor="crash")
            except RuleError:
                out = None  # nothing to undo or redo, a turn that cannot attack...
                if r >= 0.135 and state is not None and state.pending and state.pending[0].kind == "turn":
                    try:
                        out = execute(store, cmd.TakeAction(who=state.pending[0].who, action="defend"),
                                      encounter_id=eid, actor="crash")
                    except RuleError:
                        out = None
            if out is not None:
                ack(out)
                done += 1
            if out is not None and out.encounter_id == eid and out.state.phase not in ("over", "closed"):
                state = out.state
            else:
                eid = _ensure_ready(store, store.newest_open_encounter() or "", k, rng, ack)
                state = load_state(store, eid)
    except BaseException:  # noqa: BLE001 - a traceback in the child is a finding
        log("E " + json.dumps(traceback.format_exc()))
        os._exit(3)


# --------------------------------------------------------------------------- #
# crash safety: the parent
# --------------------------------------------------------------------------- #


@dataclass
class CrashStats:
    kills: int = 0
    random_kills: int = 0
    targeted: dict = field(default_factory=lambda: {t: 0 for t in TARGETS})
    files: int = 0
    # where the random kills landed, from the child's last marker
    in_append: int = 0  # 'I' without 'C': inside EventStore.append
    in_append_committed: int = 0  # ... and the batch was in the log afterwards
    after_commit: int = 0  # 'C' without 'A' (fold, snapshot), outside a snapshot write
    in_snapshot: int = 0  # 'S' without 's'
    between: int = 0  # opening the file, reading state, deciding
    creating_file: int = 0  # kills that left a new file empty, without schema, or not yet in WAL mode
    wal_switched_on_reopen: int = 0  # ... the last kind: the next writable open must switch it to WAL
    commands_acked: int = 0
    events: int = 0
    snapshots_checked: int = 0
    # failures
    half_written: int = 0
    lost: int = 0
    verify_failures: int = 0
    projection_mismatches: int = 0
    seed_mismatches: int = 0
    child_errors: int = 0
    seconds: float = 0.0
    problems: list = field(default_factory=list)

    @property
    def failures(self) -> int:
        return (self.half_written + self.lost + self.verify_failures + self.projection_mismatches
                + self.seed_mismatches + self.child_errors)


class _FileState:
    """What the parent knows of one database file across its kills."""

    def __init__(self, path: Path):
        self.path = path
        self.intents: dict[tuple[str, str], set[tuple[int, int, str]]] = defaultdict(set)
        self.acks: dict[tuple[str, str], tuple[int, int, str]] = {}
        self.checked: dict[str, int] = {}  # encounter -> version up to which batches are checked
        self.heads: dict[str, int] = {}
        self.snapshots: set[tuple[str, int, str]] = set()


def _read_markers(path: Path) -> list[list[str]]:
    try:
        text = path.read_text()
    except FileNotFoundError:
        return []
    return [["E", line[2:]] if line.startswith("E ") else line.split(" ") for line in text.splitlines() if line]


def check_file(fs: _FileState, markers: list[list[str]], stats: CrashStats, tag: str) -> dict:
    """Check the database after a kill; returns what the kill hit."""
    landed = {"where": "between", "committed": None}
    last_intent = None
    for m in markers:
        kind = m[0]
        if kind == "I":
            eid, expected, cid, n, digest = m[1], int(m[2]), m[3], int(m[4]), m[5]
            fs.intents[(eid, cid)].add((expected + 1, expected + n, digest))
            last_intent = (eid, cid, expected + 1, expected + n, digest)
            landed = {"where": "append", "committed": None}
        elif kind == "C":
            fs.acks[(m[1], m[2])] = (int(m[3]), int(m[4]), m[5])
            landed = {"where": "after-commit", "committed": True}
        elif kind == "S":
            landed = {"where": "snapshot", "committed": True}
        elif kind == "s":
            landed = {"where": "after-commit", "committed": True}
        elif kind == "A":
            fs.acks[(m[1], m[2])] = (int(m[3]), int(m[4]), m[5])
            stats.commands_acked += 1
            landed = {"where": "between", "committed": None}
        elif kind == "E":
            stats.child_errors += 1
            stats.problems.append(f"{tag}: the child raised: {json.loads(m[1]).strip().splitlines()[-1]}")

    def problem(counter: str, text: str) -> None:
        setattr(stats, counter, getattr(stats, counter) + 1)
        if len(stats.problems) < 50:
            stats.problems.append(f"{tag}: {text}")

    # a kill while the first child was creating the file: nothing may be half made
    if not fs.path.exists() or fs.path.stat().st_size == 0:
        stats.creating_file += 1
        if fs.acks:
            problem("lost", f"{fs.path.name} is gone or empty after commands were acknowledged")
        return landed
    with closing(sqlite3.connect(fs.path, isolation_level=None)) as raw:  # rolls back a hot journal, as any opener
        made = raw.execute("PRAGMA user_version").fetchone()[0]
        tables = raw.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        mode = raw.execute("PRAGMA journal_mode").fetchone()[0]
    if made == 0:
        stats.creating_file += 1
        if tables:
            problem("verify_failures", f"{fs.path.name}: a half-created schema ({tables} objects, no version)")
        if fs.acks:
            problem("lost", f"{fs.path.name} has no affray schema after commands were acknowledged")
        return landed
    with EventStore(fs.path, must_exist=True) as store:  # the next writer's open
        conn = store._conn
        if mode != "wal":  # killed between the schema's COMMIT and the switch to WAL
            stats.creating_file += 1
            stats.wal_switched_on_reopen += 1
            now = conn.execute("PRAGMA journal_mode").fetchone()[0]
            if now != "wal":
                problem("verify_failures", f"{fs.path.name}: journal_mode is {now}, not wal, after a writable open")
        found = store.verify()
        if found:
            problem("verify_failures", "verify: " + "; ".join(found[:3]))
        rows: dict[str, dict[int, tuple[str, str, str, str]]] = {}
        for eid in store.encounter_ids():
            rows[eid] = {
                v: (cid, t, d, h)
                for v, cid, t, d, h in conn.execute(
                    "SELECT version, command_id, type, data, hash FROM events WHERE encounter_id = ? ORDER BY version",
                    (eid,),
                )
            }
        # 1. no half-written command: the new batches, one by one
        for eid, evs in rows.items():
            head = max(evs) if evs else 0
            v = fs.checked.get(eid, 0) + 1
            seen_cids = set()
            while v <= head:
                if v not in evs:
                    problem("half_written", f"{eid} version {v} is missing")
                    break
                cid = evs[v][0]
                first = v
                batch = []
                while v <= head and v in evs and evs[v][0] == cid:
                    batch.append(evs[v])
                    v += 1
                last = v - 1
                what = f"{eid} {cid} (versions {first}-{last})"
                if cid != f"c{first}":
                    problem("half_written", f"{what}: the command id is not c{first}: an interleaved or cut batch")
                elif cid in seen_cids:
                    problem("half_written", f"{what}: the command's events are not contiguous")
                types = [b[1] for b in batch]
                if types[0] != "command-issued" and not (len(types) == 1 and types[0] in SINGLE_EVENT_COMMANDS):
                    problem("half_written", f"{what}: starts with {types[0]} ({len(types)} events)")
                digest = batch_digest((b[1], b[2]) for b in batch)
                if (first, last, digest) not in fs.intents.get((eid, cid), ()):
                    problem("half_written", f"{what}: not a batch any writer announced (partial or altered)")
                seen_cids.add(cid)
            fs.checked[eid] = head
        # the batch that was in flight: all of it, or none of it
        if last_intent is not None and landed["where"] == "append":
            eid, cid, first, last, digest = last_intent
            evs = rows.get(eid, {})
            present = [v for v in range(first, last + 1) if v in evs and evs[v][0] == cid]
            landed["committed"] = bool(present)
            if present and len(present) != last - first + 1:
                problem("half_written", f"{eid} {cid}: {len(present)} of {last - first + 1} events in the log")
        # 2. nothing acknowledged is lost
        for (eid, cid), (first, last, last_hash) in fs.acks.items():
            evs = rows.get(eid, {})
            if not all(v in evs and evs[v][0] == cid for v in range(first, last + 1)) or evs[last][3] != last_hash:
                problem("lost", f"{eid} {cid} (versions {first}-{last}) was acknowledged and is not in the log")
        # 3. projections, for the encounters that changed; new snapshots
        for eid, evs in rows.items():
            head = max(evs) if evs else 0
            snaps = store.snapshots(eid)
            new_snaps = [(v, b) for v, b in snaps if (eid, v, hashlib.sha1(b).hexdigest()) not in fs.snapshots]
            if fs.heads.get(eid) == head and not new_snaps:
                continue
            fs.heads[eid] = head
            fresh = replay(store, eid)
            if load_state(store, eid) != fresh:
                problem("projection_mismatches", f"{eid}: load_state at the head differs from a replay")
            if head > 1:
                at = random.Random(f"{tag}{eid}").randint(1, head)
                if load_state(store, eid, at_version=at) != replay(store, eid, to_version=at):
                    problem("projection_mismatches", f"{eid}: load_state at version {at} differs from a replay")
            for v, blob in new_snaps:
                fs.snapshots.add((eid, v, hashlib.sha1(blob).hexdigest()))
                stats.snapshots_checked += 1
                cached = load_snapshot(blob)
                if cached is not None and cached != replay(store, eid, to_version=v):
                    problem("projection_mismatches", f"{eid}: the snapshot at version {v} differs from a replay")
            # 4. the dice seed matches its commitment
            opened = json.loads(evs[1][2]) if 1 in evs and evs[1][1] == "encounter-opened" else None
            seed = store.get_seed(eid)
            if opened is None or seed is None or dicelib.commitment(seed) != opened["seed_sha256"]:
                problem("seed_mismatches", f"{eid}: the kept dice seed does not match the commitment in encounter-opened")
    return landed


def _spawn_child(db: Path, markers: Path, seed: int, k: int, target: str, arm_after: int, spawn: bool):
    """Start a crash child; returns (pid or Popen, ready fd)."""
    r, w = os.pipe()
    if spawn:
        proc = subprocess.Popen(
            [sys.executable, __file__, "--child", str(db), str(markers), str(seed), str(k), target or "-",
             str(arm_after), str(w)],
            pass_fds=(w,),
        )
        os.close(w)
        return proc.pid, r
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child
        try:
            os.close(r)
            os.write(w, b"R")
            os.close(w)
            crash_child(str(db), str(markers), seed, k, target, arm_after)
        finally:
            os._exit(4)
    os.close(w)
    return pid, r


def run_crash(workdir: Path, kills: int, *, targeted: int = 0, kills_per_db: int = 50, max_delay_ms: float = 80.0,
              seed: int = 6, spawn: bool = False, say=lambda msg: None) -> CrashStats:
    """``kills`` random SIGKILLs and ``targeted`` per target point; see the module docstring."""
    stats = CrashStats()
    rng = random.Random(seed)
    t0 = time.perf_counter()
    plan = [("", 0)] * kills + [(t, i) for i in range(targeted) for t in TARGETS]
    rng.shuffle(plan)
    fs = None
    for k, (target, _) in enumerate(plan):
        if k % kills_per_db == 0:
            stats.files += 1
            path = workdir / f"crash-{stats.files:03d}.db"
            remove_db(path)
            fs = _FileState(path)
        if k and k % 100 == 0:
            say(f"  {k} kills, {stats.failures} failures")
        markers = workdir / f"markers-{k}.txt"
        markers.unlink(missing_ok=True)
        pid, ready = _spawn_child(fs.path, markers, rng.randrange(2**32), k, target, rng.randint(0, 25), spawn)
        try:
            if not select.select([ready], [], [], 60)[0] or os.read(ready, 1) != b"R":
                stats.problems.append(f"kill {k}: the child never started")
        finally:
            os.close(ready)
        if target:
            _, status = os.waitpid(pid, os.WUNTRACED)
            if os.WIFSTOPPED(status):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                stats.targeted[target] += 1
            else:
                stats.problems.append(f"kill {k}: the child exited before reaching {target}")
        else:
            time.sleep(rng.uniform(0, max_delay_ms) / 1000)
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            stats.random_kills += 1
        stats.kills += 1
        landed = check_file(fs, _read_markers(markers), stats, f"kill {k}{' (' + target + ')' if target else ''}")
        if not target:
            where = landed["where"]
            if where == "append":
                stats.in_append += 1
                stats.in_append_committed += bool(landed["committed"])
            elif where == "after-commit":
                stats.after_commit += 1
            elif where == "snapshot":
                stats.in_snapshot += 1
            else:
                stats.between += 1
        markers.unlink(missing_ok=True)
    for i in range(1, stats.files + 1):
        path = workdir / f"crash-{i:03d}.db"
        if path.exists() and path.stat().st_size:  # a file whose only child died creating it stays empty
            with closing(sqlite3.connect(path)) as raw:
                if raw.execute("PRAGMA user_version").fetchone()[0]:
                    stats.events += raw.execute("SELECT count(*) FROM events").fetchone()[0]
    stats.seconds = time.perf_counter() - t0
    return stats


# --------------------------------------------------------------------------- #
# concurrency
# --------------------------------------------------------------------------- #


@dataclass
class ConcurrencyStats:
    name: str
    writers: int
    commands: int
    via: str
    attempted: int = 0
    accepted: int = 0
    conflicts: int = 0
    locked: int = 0
    refused: int = 0  # RuleError (nothing to undo...) in the fight run
    unreported: int = 0  # a conflict without its exit code or one-line retry hint
    errors: int = 0  # any other failure of an attempt (a traceback counts here too)
    tracebacks: int = 0
    versions_dense: bool = True
    duplicates: int = 0
    lost: int = 0
    leftovers: int = 0  # events of refused attempts found in the log
    audit_differences: int = -1  # fight run only
    projection_mismatches: int = 0
    verify_failures: int = 0
    events: int = 0
    seconds: float = 0.0
    problems: list = field(default_factory=list)

    @property
    def failures(self) -> int:
        return (self.unreported + self.errors + (not self.versions_dense) + self.duplicates + self.lost
                + self.leftovers + max(self.audit_differences, 0) + self.projection_mismatches + self.verify_failures)


def _new_file(path: Path, encounters: int, *, fight: bool = False) -> list[str]:
    remove_db(path)
    ids = []
    with EventStore(path) as store:
        for i in range(encounters):
            out = execute(store, cmd.OpenEncounter(name=f"race {i}", system="mrq1"), actor="setup",
                          seed=bytes([i + 1]) * 32)
            ids.append(out.encounter_id)
            if fight:
                for sheet, side, name in sheets():
                    execute(store, cmd.JoinCombatant(sheet=sheet, side=side, name=name), encounter_id=ids[-1],
                            actor="setup")
    return ids


def _writer(db: Path, eid: str, w: int, commands: int, kind: str, result: Path, go: int) -> None:
    """One forked writer: ``commands`` accepted commands, retrying conflicts."""
    out = {"accepted": [], "rejected": [], "conflicts": 0, "locked": 0, "refused": 0, "errors": []}
    try:
        os.read(go, 1)  # every writer starts at once
        rng = random.Random(w)
        with EventStore(db) as store:
            for i in range(commands):
                attempt = 0
                while attempt < 10_000:
                    attempt += 1
                    text = f"w{w} n{i} a{attempt}"
                    if kind == "note":
                        command = cmd.AddNote(text=text)
                    else:
                        r = rng.random()
                        command = cmd.Undo() if r < 0.08 else cmd.Redo() if r < 0.12 else None
                        if command is None:
                            command = next_command(load_state(store, eid))
                    try:
                        o = execute(store, command, encounter_id=eid, actor=f"w{w}")
                    except ConflictError:
                        out["conflicts"] += 1
                        out["rejected"].append(text)
                        continue
                    except DatabaseLocked:
                        out["locked"] += 1
                        out["rejected"].append(text)
                        continue
                    except RuleError:
                        out["refused"] += 1
                        continue
                    r0, r1 = o.records[0], o.records[-1]
                    out["accepted"].append([text, r0.command_id, r0.version, r1.version, r1.hash])
                    break
    except BaseException:  # noqa: BLE001
        out["errors"].append(traceback.format_exc())
    result.write_text(json.dumps(out))


def _cli_writer(db: Path, eid: str, w: int, commands: int, out: dict) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AFFRAY_")}
    base = affray_cmd() + ["--db", str(db), "--encounter", eid, "--as", f"w{w}", "note"]
    for i in range(commands):
        for attempt in range(1, 1000):
            text = f"w{w} n{i} a{attempt}"
            proc = subprocess.run(base + [text], capture_output=True, text=True, env=env)
            out["attempts"].append((w, text, proc.returncode, proc.stderr))
            if proc.returncode == 0:
                out["accepted"].append([text, None, None, None, None])
                break
            out["rejected"].append(text)
            if proc.returncode == 3:
                continue
            if proc.returncode == 2 and "locked" in proc.stderr:
                continue
            break  # anything else is reported below


def run_concurrency(workdir: Path, name: str, writers: int, commands: int, *, separate: bool = False,
                    via: str = "execute", kind: str = "note") -> ConcurrencyStats:
    """``writers`` writers of ``commands`` commands each; see the module docstring."""
    st = ConcurrencyStats(name=name, writers=writers, commands=commands, via=via)
    db = workdir / f"race-{name.replace(' ', '-')}.db"
    ids = _new_file(db, writers if separate else 1, fight=kind == "fight")
    with EventStore(db, must_exist=True) as store:
        setup_events = store._conn.execute("SELECT count(*) FROM events").fetchone()[0]
    results: list[dict] = []
    t0 = time.perf_counter()
    if via == "execute":
        r, wfd = os.pipe()
        pids, files = [], []
        for w in range(writers):
            files.append(workdir / f"writer-{name.replace(' ', '-')}-{w}.json")
            files[-1].unlink(missing_ok=True)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                try:
                    os.close(wfd)
                    _writer(db, ids[w if separate else 0], w, commands, kind, files[-1], r)
                finally:
                    os._exit(0)
            pids.append(pid)
        os.close(r)
        os.write(wfd, b"G" * writers)
        os.close(wfd)
        for pid in pids:
            os.waitpid(pid, 0)
        for w, f in enumerate(files):
            try:
                results.append(json.loads(f.read_text()))
            except (OSError, ValueError):
                results.append({"accepted": [], "rejected": [], "conflicts": 0, "locked": 0, "refused": 0,
                                "errors": [f"writer {w} left no result"]})
            f.unlink(missing_ok=True)
    else:
        outs = [{"accepted": [], "rejected": [], "attempts": [], "errors": []} for _ in range(writers)]
        threads = [
            threading.Thread(target=_cli_writer, args=(db, ids[w if separate else 0], w, commands, outs[w]))
            for w in range(writers)
        ]
        [t.start() for t in threads]
        [t.join() for t in threads]
        for o in outs:
            o["conflicts"] = o["locked"] = o["refused"] = 0
            for w, text, code, err in o["attempts"]:
                if "Traceback" in err:
                    st.tracebacks += 1
                    st.problems.append(f"{text}: a traceback on stderr: {err.strip().splitlines()[-1]}")
                if code == 3:
                    o["conflicts"] += 1
                    lines = err.strip().splitlines()
                    if len(lines) != 1 or not lines[0].startswith("error:") or "run the command again" not in err:
                        st.unreported += 1
                        st.problems.append(f"{text}: exit 3 without a one-line retry hint: {err!r}")
                elif code == 2 and "locked" in err:
                    o["locked"] += 1
                elif code != 0:
                    o["errors"].append(f"{text}: exit {code}: {err.strip()}")
            results.append(o)
    st.seconds = time.perf_counter() - t0

    for o in results:
        st.accepted += len(o["accepted"])
        st.conflicts += o["conflicts"]
        st.locked += o["locked"]
        st.refused += o["refused"]
        st.attempted += len(o["accepted"]) + o["conflicts"] + o["locked"] + o["refused"] + len(o["errors"])
        for e in o["errors"]:
            st.errors += 1
            if via == "execute" and "Traceback" in e:
                st.tracebacks += 1  # an unexpected exception in-process: the CLI would show a traceback
            st.problems.append(e.strip().splitlines()[-1] if e.strip() else "an empty error")

    with EventStore(db, must_exist=True) as store:
        conn = store._conn
        found = store.verify()
        st.verify_failures = len(found)
        st.problems += found[:5]
        for eid in ids:
            versions = [v for (v,) in conn.execute(
                "SELECT version FROM events WHERE encounter_id = ? ORDER BY version", (eid,))]
            st.events += len(versions)
            if versions != list(range(1, len(versions) + 1)) or store.version(eid) != len(versions):
                st.versions_dense = False
                st.problems.append(f"{eid}: versions are not 1..{store.version(eid)}")
            if load_state(store, eid) != replay(store, eid):
                st.projection_mismatches += 1
                st.problems.append(f"{eid}: load_state differs from a replay")
        notes: dict[str, list[tuple[str, int, str]]] = defaultdict(list)
        for eid, version, cid, data in conn.execute(
            "SELECT encounter_id, version, command_id, data FROM events WHERE type IN ('note-added', 'command-issued')"
        ):
            if kind == "note":
                notes[json.loads(data)["text"]].append((eid, version, cid))
        at = {(eid, v): (cid, h) for eid, v, cid, h in conn.execute(
            "SELECT encounter_id, version, command_id, hash FROM events")}
        for w, o in enumerate(results):
            eid = ids[w if separate else 0]
            last_seen = 0
            for text, cid, first, last, last_hash in o["accepted"]:
                if kind == "note":
                    where = notes.get(text, [])
                    if len(where) != 1:
                        if len(where) > 1:
                            st.duplicates += 1
                        else:
                            st.lost += 1
                        st.problems.append(f"{text!r} accepted, found {len(where)} times in the log")
                        continue
                    if where[0][0] != eid or (first is not None and where[0][1] != first):
                        st.lost += 1
                        st.problems.append(f"{text!r} accepted at {eid} v{first}, found at {where[0][:2]}")
                    if where[0][1] < last_seen:
                        st.problems.append(f"writer {w}: {text!r} is before an earlier command of its own")
                        st.lost += 1
                    last_seen = where[0][1]
                else:
                    if not all(at.get((eid, v), ("",))[0] == cid for v in range(first, last + 1)) \
                            or at[(eid, last)][1] != last_hash:
                        st.lost += 1
                        st.problems.append(f"{eid} {cid} accepted, not in the log as acknowledged")
            if kind == "note":
                for text in o["rejected"]:
                    if text in notes:
                        st.leftovers += 1
                        st.problems.append(f"{text!r} was refused (conflict) but is in the log")
        if kind == "note":
            foreign = sum(len(v) for t, v in notes.items()) - st.accepted
            if foreign:
                st.leftovers += foreign
                st.problems.append(f"{foreign} notes in the log that no writer saw accepted")
        else:
            from affray.audit import audit_encounter

            st.audit_differences = 0
            for eid in ids:
                report = audit_encounter(store, eid)
                st.audit_differences += len(report.differences)
                st.problems += [f"audit {eid}: {d.command_id} v{d.version} ({d.command}): {d.text}"
                                for d in report.differences[:5]]
        if kind == "note" and st.events != setup_events + st.accepted:
            st.problems.append(f"{st.events} events, expected {setup_events} + {st.accepted}")
            st.lost += max(0, setup_events + st.accepted - st.events)
    remove_db(db)
    return st


# --------------------------------------------------------------------------- #
# report
# --------------------------------------------------------------------------- #


def crash_table(s: CrashStats, max_delay_ms: float, spawn: bool) -> str:
    how = "a fresh interpreter per child" if spawn else "children forked from the harness"
    t = s.targeted
    committed = f"{s.in_append_committed:,} committed, {s.in_append - s.in_append_committed:,} rolled back"
    rows = [
        ("kills run (SIGKILL)", f"{s.kills:,}: {s.random_kills:,} at a random moment 0–{max_delay_ms:g} ms into a "
         f"child's run ({how}), {sum(t.values()):,} at a chosen point"),
        ("… random kills inside `append` (before it returned)", f"{s.in_append:,} ({committed})"),
        ("… random kills after the commit, before the acknowledgement", f"{s.after_commit:,}"),
        ("… random kills inside a snapshot write", f"{s.in_snapshot:,}"),
        ("… random kills elsewhere (open, read, decide)", f"{s.between:,}"),
        ("… of all kills, those while the first writer was creating a new file",
         f"{s.creating_file:,} (of which {s.wal_switched_on_reopen} after the schema's COMMIT, before the switch "
         "to WAL: switched on the next open)"),
        ("… kills at a chosen point", ", ".join(f"{k} {v}" for k, v in t.items())),
        ("commands acknowledged / events written / files", f"{s.commands_acked:,} / {s.events:,} / {s.files}"),
        ("**half-written commands found**", f"**{s.half_written}**"),
        ("**acknowledged commands lost**", f"**{s.lost}**"),
        ("**verify failures**", f"**{s.verify_failures}**"),
        ("**projection mismatches** (load_state vs replay, at the head and a random version; "
         f"{s.snapshots_checked:,} snapshots vs replay)", f"**{s.projection_mismatches}**"),
        ("dice seed not matching its commitment", f"{s.seed_mismatches}"),
        ("child errors (a traceback before the kill)", f"{s.child_errors}"),
        ("wall time", f"{s.seconds:.1f} s"),
    ]
    return "| crash safety | |\n|---|---|\n" + "\n".join(f"| {a} | {b} |" for a, b in rows)


def concurrency_table(runs: list[ConcurrencyStats]) -> str:
    head = ("| run | writers × commands | appends attempted | accepted | conflicts (reported) | locked | "
            "versions dense | lost | duplicates | tracebacks | wall time |\n"
            "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    lines = [head]
    for r in runs:
        extra = (f"; {r.refused:,} refused by the rules, e.g. nothing to redo; audit: {r.audit_differences} differ"
                 if r.audit_differences >= 0 else "")
        lines.append(
            f"| {r.name} ({r.via}{extra}) | {r.writers} × {r.commands:,} | {r.attempted:,} | {r.accepted:,} | "
            f"{r.conflicts:,} ({r.conflicts - (r.unreported if r.via == 'cli' else 0):,}) | {r.locked:,} | "
            f"{'yes' if r.versions_dense else '**no**'} ({r.events:,} events) | {r.lost} | {r.duplicates} | "
            f"{r.tracebacks} | {r.seconds:.1f} s |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:  # --spawn: a fresh interpreter runs crash_child
        db, markers, seed, k, target, arm_after, ready = argv[1:8]
        os.write(int(ready), b"R")
        os.close(int(ready))
        crash_child(db, markers, int(seed), int(k), "" if target == "-" else target, int(arm_after))
        return 4
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kills", type=int, default=None, help="random SIGKILLs (default 1000; 20 with --smoke)")
    ap.add_argument("--targeted", type=int, default=None, help="kills at each chosen point (default 25; 2 with --smoke)")
    ap.add_argument("--writers", type=int, default=None, help="concurrent writers (default 4; 3 with --smoke)")
    ap.add_argument("--commands", type=int, default=None, help="commands per writer (default 1000; 30 with --smoke)")
    ap.add_argument("--fight-commands", type=int, default=None, help="fight steps per writer (default 250; 15 with --smoke)")
    ap.add_argument("--cli-writers", type=int, default=None, help="CLI writers (default 4; 2 with --smoke)")
    ap.add_argument("--cli-commands", type=int, default=None, help="'affray note' runs per CLI writer (default 50; 5 with --smoke)")
    ap.add_argument("--kills-per-db", type=int, default=50, help="kills before a new database file is started")
    ap.add_argument("--max-delay", type=float, default=None,
                    help="a random kill comes 0..this many ms after the child starts (default 80; 400 with --spawn)")
    ap.add_argument("--spawn", action="store_true", help="run each crash child in a fresh interpreter (slower)")
    ap.add_argument("--seed", type=int, default=6, help="seed of the harness's own randomness")
    ap.add_argument("--smoke", action="store_true", help="small and quick (for CI)")
    ap.add_argument("--skip-crash", action="store_true")
    ap.add_argument("--skip-concurrency", action="store_true")
    ap.add_argument("--json", type=Path, default=None, help="also write every figure to this JSON file")
    args = ap.parse_args(argv)
    smoke = args.smoke
    kills = args.kills if args.kills is not None else (20 if smoke else 1000)
    targeted = args.targeted if args.targeted is not None else (2 if smoke else 25)
    writers = args.writers or (3 if smoke else 4)
    commands = args.commands or (30 if smoke else 1000)
    fight_commands = args.fight_commands or (15 if smoke else 250)
    cli_writers = args.cli_writers or (2 if smoke else 4)
    cli_commands = args.cli_commands or (5 if smoke else 50)
    max_delay = args.max_delay if args.max_delay is not None else (400.0 if args.spawn else 80.0)
    started = time.perf_counter()
    say = lambda msg: print(f"[{time.perf_counter() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)  # noqa: E731
    out: dict = {}
    failures = 0
    problems: list[str] = []
    tables_md: list[str] = []
    with tempfile.TemporaryDirectory(prefix="affray-reliability-") as tmp:
        workdir = Path(tmp)
        if not args.skip_crash:
            say(f"crash safety: {kills} random kills, {targeted} at each of {len(TARGETS)} points ...")
            cs = run_crash(workdir, kills, targeted=targeted, kills_per_db=args.kills_per_db,
                           max_delay_ms=max_delay, seed=args.seed, spawn=args.spawn, say=say)
            failures += cs.failures
            problems += cs.problems
            out["crash"] = asdict(cs)
            tables_md.append(crash_table(cs, max_delay, args.spawn))
        if not args.skip_concurrency:
            runs = []
            plan = [
                ("one encounter", writers, commands, False, "execute", "note"),
                ("separate encounters", writers, commands, True, "execute", "note"),
                ("fight steps, undo, redo on one encounter", writers, fight_commands, False, "execute", "fight"),
                ("one encounter", cli_writers, cli_commands, False, "cli", "note"),
                ("separate encounters", cli_writers, cli_commands, True, "cli", "note"),
            ]
            for name, n, c, separate, via, kind in plan:
                say(f"concurrency: {name}, {n} x {c} via {via} ...")
                r = run_concurrency(workdir, name, n, c, separate=separate, via=via, kind=kind)
                runs.append(r)
                failures += r.failures
                problems += [f"{name} ({via}): {p}" for p in r.problems]
            out["concurrency"] = [asdict(r) for r in runs]
            tables_md.append(concurrency_table(runs))
    total = time.perf_counter() - started
    print("\n\n".join(tables_md))
    print(f"\nTotal wall time {total:.1f} s on {os.cpu_count()} cores; Python {sys.version.split()[0]}, "
          f"SQLite {sqlite3.sqlite_version}, synchronous=FULL, WAL, busy timeout 5,000 ms.")
    if args.json:
        out["seconds"] = total
        args.json.write_text(json.dumps(out, indent=2, default=str))
    if problems or failures:
        print(f"\nFAILED: {failures} failed checks", file=sys.stderr)
        for p in problems[:40]:
            print(f"  {p}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
