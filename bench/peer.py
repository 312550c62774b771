"""affray against a peer: the same workload through affray, the raw limit and
the ``eventsourcing`` library (pyeventsourcing, with its SQLite persistence).

    python bench/peer.py                  # 1,000,000-event log (built once, ~5 min; cached in bench/.cache)
    python bench/peer.py --events 200000  # a smaller log
    python bench/peer.py --smoke          # ~2,000 events, 1 run each (CI; no assertions)
    python bench/peer.py --json out.json  # also every figure as JSON

``eventsourcing`` is a bench-only extra: ``pip install -e '.[bench]'``. Without
it, its column says "not installed" and everything else still runs.

The workload
============

The log is the one ``bench/bench.py`` builds: the demo duel with every hit
location's HP raised so the fight never ends, played through the real command
path (``affray.commands.handler.execute`` driven by ``affray.commands.demo.autoplay``,
engine dice from a fixed seed, one transaction per command) until it holds
``--events`` events (one encounter; ~8.6 events per command, no undo). It is
built at ``synchronous=NORMAL`` (the build is not what is timed) and cached in
``bench/.cache/peer-N.db``. Every contender then works on those same events:

* **affray**: its own path. Appends through ``EventStore.append`` (encode,
  hash chain, insert, head row: one ``BEGIN IMMEDIATE`` transaction per
  command), and, for reference, the whole command path (``execute``: load the
  state, the rules decide, append); replay through
  ``affray.projections.snapshots.replay`` into the real ``State``; the state
  at an old version through ``load_state(at_version=)`` from its snapshots;
  the ``affray state`` console script.
* **raw limit**: plain ``sqlite3`` (WAL, one ``BEGIN``/``executemany``/``COMMIT``
  per command, same batches, a table with the same key) and ``msgspec``
  (the same event structs and typed decoder), with a trivial fold (count the
  events, keep the last): no hash chain, no envelope, no projection.
* **eventsourcing**: one ``Aggregate`` per encounter whose events carry each
  affray event (its command id, and its data as a dict); ``Application.save``
  per command (one transaction); replay through ``Application.repository.get``,
  both the library's own way (``mutate``/``apply`` per event, applying
  affray's ``evolve``) and with a projector function folding with affray's
  ``fold_fast`` (the fastest the library allows); the state at an old version
  from a library snapshot (``take_snapshot``, the affray ``State`` transcoded
  as msgpack) plus the events after it. Both replays must reach the state
  affray's replay reaches (checked).

Figures are medians of ``--runs`` runs (after a warm-up) with their spread
(min–max). Nothing is asserted; targets are marked met or missed.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench  # noqa: E402  (bench/bench.py: the log builder and the CLI timer)

from affray.events import codec  # noqa: E402
from affray.events.envelope import Live  # noqa: E402
from affray.projections.evolve import evolve, fold_fast  # noqa: E402
from affray.projections.snapshots import SNAPSHOT_EVERY, load_state, replay  # noqa: E402
from affray.projections.state import State  # noqa: E402
from affray.store import EventStore  # noqa: E402

CACHE = HERE / ".cache"
BUILD_FORMAT = 1
TARGETS = {
    "replay_rate": 300_000,  # events/s
    "replay_vs_es": 10.0,  # x eventsourcing
    "old_state_ms": 1.0,
    "append_vs_raw": {"FULL": 0.8, "NORMAL": 0.6},  # issue 17: by synchronous mode
    "cli_ms": 100.0,
    "replay_mib": 200.0,
}

try:  # the bench extra
    import eventsourcing  # noqa: F401

    HAVE_ES = True
except ImportError:
    HAVE_ES = False


def say(msg: str) -> None:
    print(f"[{time.perf_counter() - STARTED:7.1f}s] {msg}", file=sys.stderr, flush=True)


STARTED = time.perf_counter()


def med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def spread(xs: list[float], fmt: str = "{:,.0f}") -> str:
    if len(xs) < 2:
        return "1 run"
    return f"{len(xs)} runs, {fmt.format(min(xs))}–{fmt.format(max(xs))}"


# --------------------------------------------------------------------------- #
# The log: built through the real command path, once
# --------------------------------------------------------------------------- #


def cached_log(target: int, cache: Path) -> tuple[Path, str, dict]:
    """The ``target``-event log in ``cache`` (built when missing or stale)."""
    db = cache / f"peer-{target}.db"
    meta_path = cache / f"peer-{target}.json"
    if db.exists() and meta_path.exists():
        try:
            meta = json.loads(meta_path.read_text())
            if meta.get("format") == BUILD_FORMAT and meta.get("target") == target:
                with EventStore(db, readonly=True) as store:
                    if store.version(meta["encounter_id"]) == meta["events"]:
                        for _ in store.read(meta["encounter_id"], to_version=50):
                            pass
                        return db, meta["encounter_id"], meta
        except Exception as exc:  # noqa: BLE001 - any doubt: rebuild
            say(f"cached log unusable ({exc}); rebuilding")
    say(f"building a {target:,}-event log through execute() at synchronous=NORMAL in {db} ...")
    eid, stats = bench.build(db, target, "NORMAL")
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    s = stats.summary()
    meta = {
        "format": BUILD_FORMAT, "target": target, "encounter_id": eid, "events": s["events"],
        "commands": s["commands"], "rounds": s["rounds"], "build_seconds": s["seconds"],
        "built_at": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    meta_path.write_text(json.dumps(meta, indent=2))
    say(f"  {s['events']:,} events, {s['commands']:,} commands in {s['seconds']:.0f} s")
    return db, eid, meta


def command_batches(db: Path, eid: str, commands: int) -> list[tuple[str, str, list]]:
    """The first ``commands`` commands of the log: (command id, actor, events)."""
    out: list[tuple[str, str, list]] = []
    with EventStore(db, readonly=True) as store:
        for rec in store.read(eid):
            if not out or out[-1][0] != rec.command_id:
                if len(out) == commands:
                    break
                out.append((rec.command_id, rec.actor, []))
            out[-1][2].append(rec.event)
    return out


# --------------------------------------------------------------------------- #
# eventsourcing: the peer's model of the same encounter
# --------------------------------------------------------------------------- #

if HAVE_ES:
    from eventsourcing import sqlite as es_sqlite
    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate
    from eventsourcing.persistence import Transcoding

    def _to_event(data: dict):
        return msgspec.convert(data, codec.EventUnion)

    class Encounter(Aggregate):
        """An encounter: the affray ``State`` folded from its events."""

        def __init__(self, name: str):
            self.name = name
            self.state = State()

        @staticmethod
        def create_id(name: str) -> uuid.UUID:
            return es_aggregate_id(name)

        class Happened(Aggregate.Event):
            command_id: str
            data: dict

            def apply(self, aggregate: "Encounter") -> None:
                # affray version = library version - 1 (the library's version 1 is "Created")
                aggregate.state = evolve(
                    aggregate.state, Live(self.originator_version - 1, self.command_id, _to_event(self.data))
                )

    class StateAsMsgpack(Transcoding):
        """The affray ``State`` in library snapshots: msgpack, base64 text."""

        type = State
        name = "affray_state"

        def encode(self, obj: State) -> str:
            return base64.b64encode(msgspec.msgpack.encode(obj)).decode()

        def decode(self, data: str) -> State:
            return msgspec.msgpack.decode(base64.b64decode(data), type=State)

    class Peer(Application):
        is_snapshotting_enabled = True

        def register_transcodings(self, transcoder) -> None:
            super().register_transcodings(transcoder)
            transcoder.register(StateAsMsgpack())

    def fast_projector(initial, events):
        """A projector function: the library's events folded with affray's
        ``fold_fast`` (no per-event ``mutate``): the fastest read it allows."""
        it = iter(events)
        first = next(it, None)
        if first is None:
            return initial
        aggregate = first.mutate(initial)
        lives = (Live(e.originator_version - 1, e.command_id, _to_event(e.data)) for e in it)
        aggregate.state = fold_fast(aggregate.state, lives)
        return aggregate

    _SYNC = {"mode": "FULL"}
    _real_create = es_sqlite.SQLiteConnectionPool._create_connection

    def _create_connection(self):
        conn = _real_create(self)
        conn._sqlite_conn.execute(f"PRAGMA synchronous = {_SYNC['mode']}")
        return conn

    es_sqlite.SQLiteConnectionPool._create_connection = _create_connection

    def es_app(path: Path) -> "Peer":
        return Peer(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)})


def _es_version() -> str:
    from importlib.metadata import version

    return version("eventsourcing")


def es_aggregate_id(eid: str) -> uuid.UUID:
    return uuid.uuid5(uuid.NAMESPACE_URL, f"affray:{eid}")


# --------------------------------------------------------------------------- #
# (a) durable appends, one command per transaction
# --------------------------------------------------------------------------- #


def append_affray(path: Path, eid: str, batches, synchronous: str) -> float:
    with EventStore(path, synchronous=synchronous) as store:
        t = time.perf_counter()
        v = 0
        for cid, actor, events in batches:
            store.append(eid, v, events, command_id=cid, actor=actor)
            v += len(events)
        return time.perf_counter() - t


RAW_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, encounter_id TEXT NOT NULL, version INTEGER NOT NULL, "
    "command_id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, UNIQUE (encounter_id, version))"
)
_RAW_INSERT = "INSERT INTO events (encounter_id, version, command_id, type, data) VALUES (?, ?, ?, ?, ?)"


def append_raw(path: Path, eid: str, batches, synchronous: str) -> float:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute(f"PRAGMA synchronous = {synchronous}")
        conn.execute(RAW_SCHEMA)
        encode = msgspec.json.Encoder().encode
        t = time.perf_counter()
        v = 0
        for cid, _actor, events in batches:
            rows = []
            for e in events:
                v += 1
                rows.append((eid, v, cid, e.__struct_config__.tag, encode(e).decode()))
            conn.execute("BEGIN")
            conn.executemany(_RAW_INSERT, rows)
            conn.execute("COMMIT")
        return time.perf_counter() - t
    finally:
        conn.close()


def append_es(path: Path, eid: str, batches, synchronous: str) -> float:
    _SYNC["mode"] = synchronous
    app = es_app(path)
    try:
        enc = Encounter(name=eid)
        t = time.perf_counter()
        for cid, _actor, events in batches:
            for e in events:
                enc.trigger_event(Encounter.Happened, command_id=cid, data=msgspec.to_builtins(e))
            app.save(enc)
        return time.perf_counter() - t
    finally:
        app.close()


def append_command_path(path: Path, commands: int, synchronous: str) -> float:
    """affray's whole command path (execute) for about ``commands`` commands:
    the rate of the first ``commands`` of a bench build."""
    bench.remove_db(path)
    from affray.events import commands as cmd
    from affray.commands.handler import execute
    from affray.commands.demo import autoplay

    with EventStore(path, synchronous=synchronous) as store:
        out = execute(store, cmd.OpenEncounter(name="Peer: command path", system="mrq1"), actor="bench", seed=bench.SEED)
        eid = out.encounter_id
        for sheet, side, name in bench.bench_sheets():
            execute(store, cmd.JoinCombatant(sheet=sheet, side=side, name=name), encounter_id=eid, actor="bench")
        n = [0]

        def echo(_outcome) -> None:
            n[0] += 1

        t = time.perf_counter()
        autoplay(store, eid, actor="bench", echo=echo, max_commands=commands)
        return (time.perf_counter() - t) / max(1, n[0]) * commands


@dataclass
class Rates:
    runs: list[float] = field(default_factory=list)  # commands/s per run

    @property
    def median(self) -> float:
        return med(self.runs)


def bench_appends(batches, runs: int, tmp: Path, eid: str) -> dict:
    commands = len(batches)
    events = sum(len(b[2]) for b in batches)
    out: dict[str, dict[str, Rates]] = {}
    for mode in ("FULL", "NORMAL"):
        contenders = {"affray": append_affray, "raw": append_raw}
        if HAVE_ES:
            contenders["eventsourcing"] = append_es
        out[mode] = {k: Rates() for k in [*contenders, "command path"]}
        say(f"appends at synchronous={mode}: {commands:,} commands ({events:,} events) x{runs} per contender ...")
        for r in range(runs + 1):  # the first round warms the page cache and imports
            for name, fn in contenders.items():  # interleaved: a slow moment hits every contender
                path = tmp / f"append-{name}-{mode}-{r}.db"
                bench.remove_db(path)
                seconds = fn(path, eid, batches, mode)
                bench.remove_db(path)
                if r:
                    out[mode][name].runs.append(commands / seconds)
            if r:
                path = tmp / f"append-execute-{mode}-{r}.db"
                seconds = append_command_path(path, commands, mode)
                bench.remove_db(path)
                out[mode]["command path"].runs.append(commands / seconds)
    return out


# --------------------------------------------------------------------------- #
# (b) replay, (c) old state
# --------------------------------------------------------------------------- #


def raw_replay(conn: sqlite3.Connection, eid: str) -> int:
    """Plain sqlite3 + msgspec (the same typed union decoder) + a trivial fold."""
    decode = msgspec.json.Decoder(codec.EventUnion).decode
    n, last = 0, None
    for (data,) in conn.execute("SELECT data FROM events WHERE encounter_id = ? ORDER BY version", (eid,)):
        last = decode(data)
        n += 1
    return n if last is not None else 0


def timed(fn, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def es_log(db: Path, eid: str, n_events: int, cache: Path, old_version: int) -> Path:
    """The same log in an eventsourcing SQLite database (cached beside the
    affray one), with a library snapshot at the multiple of SNAPSHOT_EVERY
    at or below ``old_version``."""
    path = cache / f"peer-{n_events}-eventsourcing.db"
    meta = cache / f"peer-{n_events}-eventsourcing.json"
    want = {"format": BUILD_FORMAT, "events": n_events, "old_version": old_version, "es": _es_version()}
    if path.exists() and meta.exists() and json.loads(meta.read_text()) == want:
        return path
    say(f"copying the log into eventsourcing's SQLite store ({path}) ...")
    bench.remove_db(path)
    _SYNC["mode"] = "NORMAL"
    app = es_app(path)
    aid = es_aggregate_id(eid)
    try:
        enc = Encounter(name=eid)
        assert enc.id == aid
        with EventStore(db, readonly=True) as store:
            i = 0
            for rec in store.read(eid):
                enc.trigger_event(Encounter.Happened, command_id=rec.command_id, data=msgspec.to_builtins(rec.event))
                i += 1
                if i % 20_000 == 0:
                    app.save(enc)
            app.save(enc)
        snap_at = (old_version // SNAPSHOT_EVERY) * SNAPSHOT_EVERY
        say(f"  taking a library snapshot at affray version {snap_at:,} ...")
        app.take_snapshot(aid, version=snap_at + 1)
    finally:
        app.close()
    meta.write_text(json.dumps(want))
    return path


def es_replay(app, eid: str, fast: bool):
    """The aggregate read back through ``app.repository.get`` (the library's
    ``mutate``/``apply``, or the ``fold_fast`` projector); its ``State``."""
    if fast:
        return app.repository.get(es_aggregate_id(eid), projector_func=fast_projector).state
    return app.repository.get(es_aggregate_id(eid)).state


MEMORY_PROBE = textwrap.dedent(
    """
    import json, sys, time
    sys.path.insert(0, sys.argv[5])
    def hwm_kib():
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0
    import peer, sqlite3
    from affray.store import EventStore
    path, eid, how, es_path = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    base = hwm_kib()
    t = time.perf_counter()
    if how == "affray":
        with EventStore(path, readonly=True) as store:
            peer.replay(store, eid)
    elif how == "raw":
        conn = sqlite3.connect(path)
        peer.raw_replay(conn, eid)
    else:
        app = peer.es_app(peer.Path(es_path))
        base = hwm_kib()
        t = time.perf_counter()
        peer.es_replay(app, eid, fast=(how == "es-fast"))
    print(json.dumps({"seconds": time.perf_counter() - t, "base_kib": base, "peak_kib": hwm_kib()}))
    """
)


def memory_probe(db: Path, eid: str, how: str, es_path: Path | None) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, str(db), eid, how, str(es_path or ""), str(HERE)],
        capture_output=True, text=True, check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"peer: memory probe {how} failed: {proc.stderr[-800:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- #
# main
# --------------------------------------------------------------------------- #


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=None, help="size of the log (default 1,000,000; 2,000 with --smoke)")
    ap.add_argument("--smoke", action="store_true", help="small and quick, 1 run each (CI)")
    ap.add_argument("--runs", type=int, default=None, help="runs of each in-process measure (default 5; 1 with --smoke)")
    ap.add_argument("--es-runs", type=int, default=None, help="runs of each eventsourcing replay (default 3)")
    ap.add_argument("--append-commands", type=int, default=None, help="commands per append run (default 500)")
    ap.add_argument("--cli-runs", type=int, default=None, help="runs of each CLI measure (default 10)")
    ap.add_argument("--cache", type=Path, default=CACHE, help=f"where the logs are kept (default {CACHE})")
    ap.add_argument("--json", type=Path, default=None, help="also write every figure to this JSON file")
    args = ap.parse_args(argv)

    target = args.events or (2_000 if args.smoke else 1_000_000)
    runs = args.runs or (1 if args.smoke else 5)
    es_runs = args.es_runs or (1 if args.smoke else 3)
    append_commands = args.append_commands or (50 if args.smoke else 500)
    cli_runs = args.cli_runs or (1 if args.smoke else 10)
    args.cache.mkdir(parents=True, exist_ok=True)
    ignore = args.cache / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# written by bench/: nothing in this folder is source\n*\n")
    try:
        load = "%.2f" % os.getloadavg()[0]
    except OSError:
        load = "?"
    if not HAVE_ES:
        say("eventsourcing is not installed (pip install -e '.[bench]'): its column is skipped")

    db, eid, meta = cached_log(target, args.cache)
    n_events = meta["events"]
    tmp = Path(tempfile.mkdtemp(prefix="peer-", dir=args.cache))
    figures: dict = {"events": n_events, "log": meta, "eventsourcing": HAVE_ES}
    try:
        # ---- (a) appends --------------------------------------------------------
        batches = command_batches(db, eid, append_commands)
        appends = bench_appends(batches, runs, tmp, eid)
        figures["appends_commands_per_s"] = {m: {k: r.runs for k, r in d.items()} for m, d in appends.items()}
        batch_events = sum(len(b[2]) for b in batches)

        # ---- (b) replay -----------------------------------------------------------
        old_version = n_events // 2 + SNAPSHOT_EVERY // 2 + 7  # mid-log, between snapshots
        with EventStore(db, readonly=True) as store:
            assert not store.read_meta(eid), "the bench log has undo/redo/rewind: the peers would fold other events"
            say(f"affray replay x{runs} ...")
            head = replay(store, eid)
            assert head.version == n_events
            affray_replay = timed(lambda: replay(store, eid), runs)
            say(f"state at version {old_version:,} x{runs * 20} ...")
            old = load_state(store, eid, at_version=old_version)
            assert old == load_state(store, eid, at_version=old_version, use_snapshots=False)
            affray_old = timed(lambda: load_state(store, eid, at_version=old_version), runs * 20)
            stages = bench.replay_stages(store, eid, max(1, min(runs, 3)))
            stages.pop("_check")
        conn = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
        say(f"raw replay x{runs} ...")
        assert raw_replay(conn, eid) == n_events
        raw = timed(lambda: raw_replay(conn, eid), runs)
        conn.close()
        figures.update(affray_replay_s=affray_replay, raw_replay_s=raw, affray_old_s=affray_old,
                       replay_stages_s={k: v for k, v in stages.items()})

        es_path = None
        es_slow = es_fast = es_old = []
        if HAVE_ES:
            es_path = es_log(db, eid, n_events, args.cache, old_version)
            app = es_app(es_path)
            try:
                say(f"eventsourcing replay (mutate/apply with evolve) x{es_runs} ...")
                state = es_replay(app, eid, fast=False)
                assert state == head, "eventsourcing (mutate) did not reach affray's state"
                del state
                es_slow = timed(lambda: es_replay(app, eid, fast=False), es_runs)
                say(f"eventsourcing replay (projector with fold_fast) x{es_runs} ...")
                state = es_replay(app, eid, fast=True)
                assert state == head, "eventsourcing (projector) did not reach affray's state"
                del state
                es_fast = timed(lambda: es_replay(app, eid, fast=True), es_runs)
                say(f"eventsourcing state at version {old_version:,} x{runs * 4} ...")
                aid = es_aggregate_id(eid)
                assert app.repository.get(aid, version=old_version + 1).state == old
                es_old = timed(lambda: app.repository.get(aid, version=old_version + 1), runs * 4)
            finally:
                app.close()
            figures.update(es_replay_mutate_s=es_slow, es_replay_projector_s=es_fast, es_old_s=es_old)

        # ---- (d) the CLI ----------------------------------------------------------
        say(f"CLI x{cli_runs} ...")
        affray = bench.affray_cmd()
        cli = {}
        for key, argv_ in [
            ("pass", [sys.executable, "-c", "pass"]),
            ("state", affray + ["--db", str(db), "state"]),
            ("state_json", affray + ["--db", str(db), "state", "--json"]),
            ("state_version", affray + ["--db", str(db), "state", "--version", str(old_version)]),
        ]:
            cli[key], _ = bench.run_cli(argv_, cli_runs)
        figures["cli_s"] = cli

        # ---- (e) memory -----------------------------------------------------------
        say("peak memory of a full replay (fresh processes) ...")
        mem = {how: memory_probe(db, eid, how, es_path) for how in ("affray", "raw")}
        if HAVE_ES:
            for how in ("es-mutate", "es-fast"):
                mem[how] = memory_probe(db, eid, how, es_path)
        figures["memory"] = mem
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    # ---- report -------------------------------------------------------------------
    na = "not installed" if not HAVE_ES else "—"
    rate = lambda xs: [n_events / x for x in xs]  # noqa: E731
    ms = lambda xs: [x * 1000 for x in xs]  # noqa: E731
    rows = []
    for mode in ("FULL", "NORMAL"):
        a, r = appends[mode]["affray"], appends[mode]["raw"]
        e = appends[mode].get("eventsourcing")
        c = appends[mode]["command path"]
        ratio = a.median / r.median
        rows.append((
            f"Durable append, `synchronous={mode}`, 1 command per transaction (commands/s; {len(batches):,} commands, {batch_events:,} events per run)",
            f"**{a.median:,.0f}** ({spread(a.runs)}); whole command path `execute()`: {c.median:,.0f} ({spread(c.runs)})",
            f"{r.median:,.0f} ({spread(r.runs)})",
            f"{e.median:,.0f} ({spread(e.runs)})" if e else na,
            f"{ratio:.2f}× raw" + (f"; {a.median / e.median:.1f}× eventsourcing" if e else ""),
            f"≥ {TARGETS['append_vs_raw'][mode]}× raw: {verdict(ratio >= TARGETS['append_vs_raw'][mode])}",
        ))
    a_rate, r_rate = rate(affray_replay), rate(raw)
    es_best = max(med(rate(es_slow)), med(rate(es_fast))) if HAVE_ES else float("nan")
    vs_es = med(a_rate) / es_best if HAVE_ES else float("nan")
    rows.append((
        f"Full replay of {n_events:,} events into the real `State` (events/s)",
        f"**{med(a_rate):,.0f}** ({spread(a_rate)}; {med(affray_replay):.2f} s)",
        f"{med(r_rate):,.0f} ({spread(r_rate)}; trivial fold)",
        (f"{med(rate(es_slow)):,.0f} ({spread(rate(es_slow))}) `mutate`/`apply`; "
         f"{med(rate(es_fast)):,.0f} ({spread(rate(es_fast))}) projector + `fold_fast`") if HAVE_ES else na,
        f"{med(a_rate) / med(r_rate):.2f}× raw" + (f"; {vs_es:.1f}× eventsourcing (its faster way)" if HAVE_ES else ""),
        f"≥ {TARGETS['replay_rate']:,}/s: {verdict(med(a_rate) >= TARGETS['replay_rate'])}"
        + (f"; ≥ {TARGETS['replay_vs_es']:.0f}× eventsourcing: {verdict(vs_es >= TARGETS['replay_vs_es'])}" if HAVE_ES else ""),
    ))
    old_ms = med(ms(affray_old))
    rows.append((
        f"State at version {old_version:,} (mid-log), with snapshots (ms)",
        f"**{old_ms:.2f}** ({spread(ms(affray_old), '{:.2f}')}) `load_state(at_version=)`",
        "—",
        f"{med(ms(es_old)):.2f} ({spread(ms(es_old), '{:.2f}')}) `repository.get(version=)` from a snapshot" if HAVE_ES else na,
        f"{med(ms(es_old)) / old_ms:.1f}× faster than eventsourcing" if HAVE_ES else "",
        f"≤ {TARGETS['old_state_ms']:.0f} ms: {verdict(old_ms <= TARGETS['old_state_ms'])}",
    ))
    state_ms, pass_ms = med(ms(cli["state"])), med(ms(cli["pass"]))
    rows.append((
        f"`affray state` on the {n_events:,}-event log, wall (ms)",
        f"**{state_ms:.0f}** ({spread(ms(cli['state']))}); `--json` {med(ms(cli['state_json'])):.0f}; "
        f"`--version {old_version}` {med(ms(cli['state_version'])):.0f}",
        f"`python -c pass`: {pass_ms:.0f} ({spread(ms(cli['pass']))})",
        "— (no CLI)",
        f"{state_ms - pass_ms:.0f} ms above the interpreter",
        f"≤ {TARGETS['cli_ms']:.0f} ms: {verdict(state_ms <= TARGETS['cli_ms'])}",
    ))
    mib = lambda m: m["peak_kib"] / 1024  # noqa: E731
    rows.append((
        f"Peak memory while replaying {n_events:,} events (RSS, fresh process)",
        f"**{mib(mem['affray']):,.0f} MiB** ({mem['affray']['base_kib'] / 1024:,.0f} after imports)",
        f"{mib(mem['raw']):,.0f} MiB",
        (f"{mib(mem['es-mutate']):,.0f} MiB `mutate`; {mib(mem['es-fast']):,.0f} MiB projector") if HAVE_ES else na,
        f"{mib(mem['es-mutate']) / mib(mem['affray']):.1f}× less than eventsourcing" if HAVE_ES else "",
        f"≤ {TARGETS['replay_mib']:.0f} MiB: {verdict(mib(mem['affray']) <= TARGETS['replay_mib'])}",
    ))

    out = ["| Measure | affray | raw limit (sqlite3 + msgspec) | eventsourcing | Ratio | Target |",
           "|---|---|---|---|---|---|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    out.append("")
    out.append(f"`replay(store, eid)` stage by stage on the {n_events:,}-event log (medians; the stages run apart):")
    out.append("")
    out.append("| Stage | Time | Rate |")
    out.append("|---|---|---|")
    for name, xs in stages.items():
        out.append(f"| {name} | {med(xs) * 1000:,.0f} ms | {n_events / med(xs):,.0f} events/s |")
    out.append("")
    es_version = f", eventsourcing {_es_version()}" if HAVE_ES else ""
    out.append(
        f"Log: {n_events:,} events, {meta['commands']:,} commands, {meta['rounds']:,} rounds, built through `execute()` "
        f"in {meta['build_seconds']:.0f} s. Machine: {bench.machine_notes(db)}{es_version}; 1-minute load average "
        f"{load} at the start. Medians of {runs} runs (eventsourcing replays: {es_runs}; CLI: {cli_runs}), spreads min–max. "
        f"Bench wall time {time.perf_counter() - STARTED:,.0f} s."
    )
    print("\n".join(out))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str))
    return 0


if __name__ == "__main__":
    # run as the module ``peer``: the eventsourcing classes are stored by
    # topic ("peer:Encounter"), which must resolve in the memory probes too
    import peer

    sys.exit(peer.main())
