"""SQLite against PostgreSQL, side by side in one run, on this machine.

    python bench/backends.py --postgres postgresql://postgres@/postgres?host=/tmp/pg
    python bench/backends.py                 # AFFRAY_TEST_POSTGRES names the server (else SQLite only)
    python bench/backends.py --smoke         # small and quick (CI; nothing asserted)
    python bench/backends.py --json out.json

What it measures, each on a fresh log per backend (SQLite: a file in a
temporary folder at ``synchronous=FULL``, the default; PostgreSQL: a fresh
schema in the given database, its server's own durability settings, which
the notes print):

a. append throughput: W writer processes, each with its own connection,
   appending C commands of 5 events (notes of ~60 bytes) through
   ``Store.append``; W = 1, 4 and 16 on distinct encounters (one each), and
   4 on ONE encounter (each command retried on the exit-3 conflict until it
   lands). Commands/s over the wall time from a common start, p50/p99 of a
   command's commit latency, conflicts;
b. the real command path: an endless duel (the demo sheets with huge HP)
   played by the autopilot through ``affray.commands.handler.execute``
   (load state, decide, append, snapshots): commands/s and events/s, one
   writer;
c. full replay of that log (``replay``, the path ``load_state`` uses):
   events/s, median of 5 runs;
d. the state at an old version (a tenth of the log), from the nearest
   snapshot (``load_state(at_version=...)``) and without snapshots, median
   of 25 runs.

Nothing is asserted: the figures go into the README with their reading.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench import HUGE_HP, SEED, bench_sheets, load_average  # noqa: E402 - bench/bench.py beside this file

from affray.commands.demo import autoplay  # noqa: E402
from affray.commands.handler import execute  # noqa: E402
from affray.events import commands as cmd  # noqa: E402
from affray.events.core import NoteAdded  # noqa: E402
from affray.projections.snapshots import load_state, replay  # noqa: E402
from affray.store import ConflictError, DatabaseLocked, open_store  # noqa: E402

EVENTS_PER_COMMAND = 5
TEXT = "the broo circles left, shield high; rain on the ford stones " * 1


def _pct(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))]


class Target:
    """A fresh log on one backend: ``url`` (or file path), removed by ``drop``."""

    def __init__(self, kind: str, postgres: str | None, folder: Path) -> None:
        self.kind = kind
        self._postgres = postgres
        if kind == "sqlite":
            self.url = str(folder / f"bench-{uuid.uuid4().hex[:8]}.db")
            self.schema = ""
        else:
            import psycopg

            self.schema = "bench_" + uuid.uuid4().hex[:10]
            with psycopg.connect(postgres, autocommit=True) as conn:
                conn.execute(f"CREATE SCHEMA {self.schema}")
            self.url = f"{postgres}{'&' if '?' in postgres else '?'}options=-csearch_path%3D{self.schema}"
        open_store(self.url).close()  # the schema exists before any writer starts

    def drop(self) -> None:
        if self.kind == "sqlite":
            for suffix in ("", "-wal", "-shm", ".keys"):
                Path(self.url + suffix).unlink(missing_ok=True)
        else:
            import psycopg

            with psycopg.connect(self._postgres, autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA {self.schema} CASCADE")


def _writer(url: str, eid: str, who: str, commands: int, go, out) -> None:
    lat, conflicts, locked = [], 0, 0
    batch = [NoteAdded(text=f"{TEXT}{i}") for i in range(EVENTS_PER_COMMAND)]
    with open_store(url) as s:
        go.wait()
        for i in range(commands):
            while True:
                t = time.perf_counter()
                try:
                    s.append(eid, s.version(eid), batch, command_id=f"{who}-{i}", actor=who)
                    lat.append((time.perf_counter() - t) * 1000)
                    break
                except ConflictError:
                    conflicts += 1
                except DatabaseLocked:  # waited past the busy timeout (SQLite: 5 s): a user runs it again
                    locked += 1
    out.put((lat, conflicts, locked))


def append_run(url: str, writers: int, commands: int, shared: bool) -> dict:
    ctx = multiprocessing.get_context("fork")
    go, out = ctx.Event(), ctx.Queue()
    procs = [
        ctx.Process(target=_writer, args=(url, "shared" if shared else f"w{w}", f"w{w}", commands, go, out))
        for w in range(writers)
    ]
    for p in procs:
        p.start()
    time.sleep(0.5)  # every writer connected
    t0 = time.perf_counter()
    go.set()
    results = [out.get(timeout=600) for _ in procs]
    wall = time.perf_counter() - t0
    for p in procs:
        p.join()
    lat = [x for r, _, _ in results for x in r]
    total = writers * commands
    return {
        "writers": writers, "shared": shared, "commands": total, "seconds": wall,
        "commands_per_s": total / wall, "events_per_s": total * EVENTS_PER_COMMAND / wall,
        "p50_ms": _pct(lat, 50), "p99_ms": _pct(lat, 99), "conflicts": sum(c for _, c, _ in results),
        "locked": sum(k for _, _, k in results),
    }


def fight_run(url: str, target_events: int, runs: int) -> dict:
    """b, c, d on one backend."""
    with open_store(url) as store:
        n = [0]

        def echo(_outcome) -> None:
            n[0] += 1

        t0 = time.perf_counter()
        out = execute(store, cmd.OpenEncounter(name="Bench: endless duel", system="mrq1"), actor="bench", seed=SEED)
        eid = out.encounter_id
        for sheet, side, name in bench_sheets():
            execute(store, cmd.JoinCombatant(sheet=sheet, side=side, name=name), encounter_id=eid, actor="bench")
        while store.version(eid) < target_events:
            state = autoplay(store, eid, actor="bench", echo=echo, max_commands=200)
            if state.phase in ("over", "closed") or not state.pending:
                raise SystemExit(f"backends: the fight ended at {state.version} events; raise HUGE_HP ({HUGE_HP})")
        build = time.perf_counter() - t0
        events = store.version(eid)
        replays = []
        for _ in range(runs):
            t = time.perf_counter()
            replay(store, eid)
            replays.append(time.perf_counter() - t)
        old = max(1, events // 10)
        snap, nosnap = [], []
        for _ in range(runs * 5):  # short: more runs, so one descheduling on a busy machine does not decide it
            t = time.perf_counter()
            load_state(store, eid, at_version=old)
            snap.append(time.perf_counter() - t)
            t = time.perf_counter()
            load_state(store, eid, at_version=old, use_snapshots=False)
            nosnap.append(time.perf_counter() - t)
        return {
            "events": events, "commands": n[0] + 3, "build_seconds": build,
            "commands_per_s": (n[0] + 3) / build, "events_per_s_appended": events / build,
            "replay_events_per_s": events / statistics.median(replays),
            "old_version": old, "state_old_snapshot_ms": statistics.median(snap) * 1000,
            "state_old_no_snapshot_ms": statistics.median(nosnap) * 1000,
        }


def server_notes(postgres: str) -> str:
    import psycopg

    with psycopg.connect(postgres, autocommit=True) as conn:
        version = conn.execute("SHOW server_version").fetchone()[0]
        settings = {k: conn.execute(f"SHOW {k}").fetchone()[0] for k in ("fsync", "synchronous_commit", "shared_buffers")}
        host = conn.info.host
    return f"PostgreSQL {version} on {host} ({', '.join(f'{k}={v}' for k, v in settings.items())})"


def table(rows: list[tuple[str, str, str]]) -> str:
    lines = ["| | SQLite | PostgreSQL |", "|---|---:|---:|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--postgres", default=os.environ.get("AFFRAY_TEST_POSTGRES", ""),
                    help="libpq URL of a PostgreSQL server to create a schema in (default: AFFRAY_TEST_POSTGRES)")
    ap.add_argument("--smoke", action="store_true", help="small and quick (CI)")
    ap.add_argument("--commands", type=int, default=None, help="commands per writer (default 200; 10 with --smoke)")
    ap.add_argument("--events", type=int, default=None, help="events in the fight log (default 20,000; 600 with --smoke)")
    ap.add_argument("--json", default="", help="also write the figures here")
    args = ap.parse_args(argv)
    commands = args.commands or (10 if args.smoke else 200)
    events = args.events or (600 if args.smoke else 20_000)
    runs = 1 if args.smoke else 5
    kinds = ["sqlite"] + (["postgresql"] if args.postgres else [])
    if not args.postgres:
        print("backends: no PostgreSQL (--postgres or AFFRAY_TEST_POSTGRES): SQLite only")
    load = load_average()
    results: dict[str, dict] = {k: {"append": [], "fight": None} for k in kinds}
    with tempfile.TemporaryDirectory(prefix="affray-backends-") as tmp:
        for kind in kinds:
            for writers, shared in ((1, False), (4, False), (16, False), (4, True)):
                t = Target(kind, args.postgres, Path(tmp))
                try:
                    r = append_run(t.url, writers, commands, shared)
                finally:
                    t.drop()
                results[kind]["append"].append(r)
                print(f"{kind:10} append {writers:2} writer(s) {'one encounter' if shared else 'own encounters'}: "
                      f"{r['commands_per_s']:,.0f} commands/s, p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, "
                      f"{r['conflicts']} conflicts, {r['locked']} timed out waiting for the lock", flush=True)
            t = Target(kind, args.postgres, Path(tmp))
            try:
                f = fight_run(t.url, events, runs)
            finally:
                t.drop()
            results[kind]["fight"] = f
            print(f"{kind:10} fight: {f['events']:,} events, {f['commands_per_s']:,.0f} commands/s through execute, "
                  f"replay {f['replay_events_per_s']:,.0f} events/s, state at v{f['old_version']}: "
                  f"{f['state_old_snapshot_ms']:.1f} ms (snapshot) / {f['state_old_no_snapshot_ms']:.1f} ms (none)",
                  flush=True)
    if len(kinds) == 2:
        s, p = results["sqlite"], results["postgresql"]
        rows = []
        for a, b in zip(s["append"], p["append"]):
            label = f"append, {a['writers']} writer{'s' * (a['writers'] > 1)}, " + (
                "one encounter" if a["shared"] else "own encounters")
            rows.append((label + ": commands/s (p99 ms)",
                         f"{a['commands_per_s']:,.0f} ({a['p99_ms']:.1f})" + (f", {a['locked']} timed out" if a["locked"] else ""),
                         f"{b['commands_per_s']:,.0f} ({b['p99_ms']:.1f})" + (f", {b['locked']} timed out" if b["locked"] else "")))
        sf, pf = s["fight"], p["fight"]
        rows += [
            ("fight through execute, 1 writer: commands/s", f"{sf['commands_per_s']:,.0f}", f"{pf['commands_per_s']:,.0f}"),
            (f"full replay of {sf['events']:,} events: events/s", f"{sf['replay_events_per_s']:,.0f}",
             f"{pf['replay_events_per_s']:,.0f}"),
            (f"state at version {sf['old_version']:,}, from a snapshot: ms", f"{sf['state_old_snapshot_ms']:.1f}",
             f"{pf['state_old_snapshot_ms']:.1f}"),
            ("the same, no snapshot: ms", f"{sf['state_old_no_snapshot_ms']:.1f}", f"{pf['state_old_no_snapshot_ms']:.1f}"),
        ]
        print()
        print(table(rows))
        print(f"\n{commands} commands of {EVENTS_PER_COMMAND} events per writer; SQLite synchronous=FULL (WAL); "
              f"{server_notes(args.postgres)}; {os.cpu_count()} CPUs, load average {load} at the start.")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
