"""Load simulation: N tables fighting at once against one PostgreSQL store.

    python bench/load.py --postgres postgresql://postgres@/postgres?host=/tmp/pg
    python bench/load.py                      # AFFRAY_TEST_POSTGRES names the server
    python bench/load.py --smoke              # N = 1 and 10, a few seconds each (CI)
    python bench/load.py --tables 1 10 100 1000 --seconds 30 --think 2.0 --json out.json

Each simulated table is a thread that plays the demo duel (the autopilot of
``affray.commands.demo``, engine dice) one command at a time through
``affray.commands.handler.execute``, as a play-by-post service would: it
borrows a connection from a shared ``psycopg_pool.ConnectionPool`` for the
command (open the store, decide, append, give it back), then "thinks" for an
exponentially distributed time (mean ``--think`` seconds) before the next
one. A finished fight is followed by a new one. The tables are spread over
worker processes (one per CPU), so Python's GIL is not the only limit.

The tables' encounters are made before the clock starts: one duel is set
up, then imported under N ids (``import_records``, the chain hashed anew
for each id) with its dice seed, so N = 1,000 costs seconds, not minutes.

For each N it reports the offered load, the commands/s served (commands
begun in the measured window, over its length), and the p50/p99 latency of
one command (borrow, decide, append, return). A table waits for its command
before it thinks again (a closed loop), so it offers at most one command per
think time plus latency: offered is N / (think + the p50 latency at N = 1).
Where served stops following offered and p99 climbs, one node is saturated:
the curve in docs/scale.md. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import sys
import threading
import time
import uuid
from pathlib import Path

from affray.commands.demo import next_command, setup
from affray.commands.handler import execute
from affray.projections.snapshots import load_state
from affray.store import ConflictError, EventStore, StoreError, open_store
from affray.views.formats.jsonl import renamed

HERE = Path(__file__).resolve().parent


def _pct(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))]


def make_tables(url: str, n: int, prefix: str) -> list[str]:
    """``n`` set-up duels (not started) in the store at ``url``: one played
    through the command path in memory, then imported under each id."""
    with EventStore(":memory:") as mem:
        eid = setup(mem, "duel", seed=b"load-simulation-seed", actor="load")
        rows = [r[2:] for r in mem.read_raw(eid)]
        seed = mem.get_seed(eid)
    ids = [f"{prefix}-{i}" for i in range(n)]
    with open_store(url) as store:
        for new in ids:
            store.import_records(new, renamed(iter(rows), eid, new))
            store.put_seed(new, seed)
    return ids


def _table(pool, url: str, eid: str, think: float, until: float, rng: random.Random, lat: list, counts: dict,
           template: list) -> None:
    from affray.store.postgres import PostgresStore

    time.sleep(rng.uniform(0, think))  # the tables do not all start on the same tick
    while time.perf_counter() < until:
        t = time.perf_counter()  # a command started inside the window counts, wherever it ends
        try:
            with PostgresStore(url, pool=pool) as store:
                state = load_state(store, eid)
                command = next_command(state)
                if command is None:  # the fight is over: this table starts the next one
                    eid = f"{eid.split('~')[0]}~{uuid.uuid4().hex[:6]}"
                    store.import_records(eid, renamed(iter(template[0]), template[1], eid))
                    store.put_seed(eid, template[2])
                    counts["fights"] += 1
                else:
                    execute(store, command, encounter_id=eid, actor="load")
            lat.append((time.perf_counter() - t) * 1000)
            counts["commands"] += 1
        except ConflictError:
            counts["conflicts"] += 1
        except StoreError:
            counts["errors"] += 1
        time.sleep(max(0.0, min(rng.expovariate(1 / think) if think > 0 else 0, until - time.perf_counter())))


def _worker(url: str, ids: list[str], think: float, seconds: float, pool_size: int, out, go) -> None:
    from psycopg_pool import ConnectionPool

    with EventStore(":memory:") as mem:
        teid = setup(mem, "duel", seed=b"load-simulation-seed", actor="load")
        template = ([r[2:] for r in mem.read_raw(teid)], teid, mem.get_seed(teid))
    pool = ConnectionPool(url, min_size=min(pool_size, 4), max_size=pool_size, kwargs={"autocommit": True},
                          timeout=120, open=True)
    lat: list[float] = []
    counts = {"commands": 0, "conflicts": 0, "errors": 0, "fights": 0}
    go.wait()
    until = time.perf_counter() + seconds
    threads = [
        threading.Thread(target=_table, args=(pool, url, eid, think, until, random.Random(eid), lat, counts, template),
                         daemon=True)
        for eid in ids
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 120)
    pool.close()
    out.put((lat, counts))


def run(url: str, n: int, think: float, seconds: float, processes: int, pool_size: int) -> dict:
    ids = make_tables(url, n, f"t{n}-{uuid.uuid4().hex[:4]}")
    ctx = multiprocessing.get_context("fork")
    out, go = ctx.Queue(), ctx.Event()
    parts = [ids[i::processes] for i in range(processes)]
    parts = [p for p in parts if p]
    procs = [ctx.Process(target=_worker, args=(url, part, think, seconds, pool_size, out, go)) for part in parts]
    for p in procs:
        p.start()
    time.sleep(1.0)
    t0 = time.perf_counter()
    go.set()
    results = [out.get(timeout=seconds + 600) for _ in procs]
    wall = time.perf_counter() - t0
    for p in procs:
        p.join()
    lat = [x for r, _ in results for x in r]
    counts = {k: sum(c[k] for _, c in results) for k in results[0][1]}
    return {
        "tables": n, "think_s": think,
        "seconds": seconds, "wall_seconds": wall, "commands": counts["commands"],
        "commands_per_s": counts["commands"] / seconds,
        "p50_ms": _pct(lat, 50), "p99_ms": _pct(lat, 99), "conflicts": counts["conflicts"],
        "errors": counts["errors"], "fights_started": counts["fights"],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--postgres", default=os.environ.get("AFFRAY_TEST_POSTGRES", ""),
                    help="libpq URL of a PostgreSQL server to create a schema in (default: AFFRAY_TEST_POSTGRES)")
    ap.add_argument("--tables", type=int, nargs="+", default=None, help="N values (default 1 10 100 1000)")
    ap.add_argument("--seconds", type=float, default=None, help="measured seconds per N (default 30; 3 with --smoke)")
    ap.add_argument("--think", type=float, default=2.0, help="mean think time between a table's commands, seconds")
    ap.add_argument("--pool", type=int, default=16, help="connections per worker process")
    ap.add_argument("--smoke", action="store_true", help="N = 1 and 10, 3 seconds each (CI)")
    ap.add_argument("--json", default="", help="also write the figures here")
    args = ap.parse_args(argv)
    if not args.postgres:
        print("load: no PostgreSQL (--postgres or AFFRAY_TEST_POSTGRES); nothing to do")
        return 0
    import psycopg

    tables = args.tables or ([1, 10] if args.smoke else [1, 10, 100, 1000])
    seconds = args.seconds or (3.0 if args.smoke else 30.0)
    processes = max(1, os.cpu_count() or 1)
    schema = "load_" + uuid.uuid4().hex[:10]
    with psycopg.connect(args.postgres, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    url = f"{args.postgres}{'&' if '?' in args.postgres else '?'}options=-csearch_path%3D{schema}"
    results = []
    base_ms = 0.0  # the p50 latency of one table alone: what a command costs unloaded
    try:
        open_store(url).close()
        print("| tables | offered commands/s | served commands/s | p50 ms | p99 ms | conflicts | errors |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for n in tables:
            r = run(url, n, args.think, seconds, processes, args.pool)
            base_ms = base_ms or r["p50_ms"]
            r["offered_per_s"] = n / (args.think + base_ms / 1000)
            results.append(r)
            print(f"| {n:,} | {r['offered_per_s']:,.1f} | {r['commands_per_s']:,.1f} | {r['p50_ms']:,.1f} | "
                  f"{r['p99_ms']:,.1f} | {r['conflicts']} | {r['errors']} |", flush=True)
    finally:
        with psycopg.connect(args.postgres, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
    print(f"\nthink time {args.think} s (mean, exponential), {seconds:g} s per N, {processes} worker processes "
          f"x {args.pool} pooled connections; load average {os.getloadavg()[0]:.2f} at the end.")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
