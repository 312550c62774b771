"""affray against the raw limit, in CPU time: replay and durable append.

    python bench/ratios.py                 # the 100,000-event encounter of bench/cli.py
    python bench/ratios.py --smoke         # ~2,000 events, 2 runs (CI; no assertions)

Issue 17's targets are ratios of CPU time to the raw limit (plain
``sqlite3`` and msgspec, no hash chain, no envelope, no projection:
bench/peer.py's ``raw_replay`` and ``append_raw``), measured in the same
run, interleaved, so the load of a shared machine falls on both sides:

- **replay**: ``replay(store, eid)`` (read, decode, fold into the real
  ``State``) against ``raw_replay`` (every event's ``data`` decoded with the
  union decoder, a trivial fold); target affray ≥ 0.7× raw per CPU-second;
- **durable append**: ``EventStore.append`` of the log's first 500 commands,
  one transaction per command, against ``append_raw`` (one ``executemany``
  per command into a table with one index), at ``synchronous=FULL`` and
  ``NORMAL``; CPU per command (user + system: at FULL the kernel's share of
  the ``fsync`` counts), from opening the file (made empty, with its schema,
  before the clock starts: a store's migrations are not a cost per command)
  to closing it (the last checkpoint counts); targets ≥ 0.8× raw at FULL,
  ≥ 0.6× at NORMAL.

It also splits the replay into its stages (CPU per 100,000 events):
stepping the rows out of SQLite with the three columns the replay reads
(``command_id``, the row key, ``data``), with the five it read before and
with ``data`` alone, and ``fold_rows`` (decoding and handlers) over rows
already fetched; and the append into what the ``events_type`` index costs
(the same appends into a copy without it; a partial index since SQLite
migration 6, holding only the types looked up by type). Medians of ``--runs``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench  # noqa: E402  (bench/bench.py: the log builder)
import cli  # noqa: E402  (bench/cli.py: the cached logs)
import peer  # noqa: E402  (bench/peer.py: the raw limit)

from affray.projections.snapshots import replay  # noqa: E402
from affray.projections.state import State  # noqa: E402
from affray.store import EventStore  # noqa: E402
from affray.store.sqlite import _SCAN_ROWS, _SELECT_ROWS, _SEQ_SPAN  # noqa: E402  (the very queries the replay reads)

evolve = importlib.import_module("affray.projections.evolve")  # the module (the package exports the function)

_FROM = "FROM events WHERE encounter_id = ? AND version BETWEEN ? AND ? ORDER BY version"


def cpu(fn) -> float:
    c = time.process_time()
    fn()
    return time.process_time() - c


def replay_figures(db: Path, eid: str, runs: int) -> dict:
    store = EventStore(db, readonly=True)
    raw_conn = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
    n = store.version(eid)
    assert not store.read_meta(eid), "the bench log holds undo/redo/rewind: raw would fold other events"
    replay(store, eid), peer.raw_replay(raw_conn, eid)  # warm the page cache and the decoders
    mine, raw = [], []
    for _ in range(runs):  # interleaved
        mine.append(cpu(lambda: replay(store, eid)))
        raw.append(cpu(lambda: peer.raw_replay(raw_conn, eid)))
    conn = store._conn  # the stages below read through the store's own connection
    rows = list(conn.execute(_SELECT_ROWS, (eid, 1, n)))
    lo, hi = conn.execute(_SEQ_SPAN, (eid, 1, eid, n)).fetchone()

    def step(sql: str) -> None:
        for _ in conn.execute(sql, (lo, hi, eid, 1, n) if sql is _SCAN_ROWS else (eid, 1, n)):
            pass

    def fold() -> None:
        evolve.fold_rows(State(), rows)

    stages = {
        "step_rows": _SCAN_ROWS,
        "step_rows_by_index": _SELECT_ROWS,
        "step_5_columns": "SELECT version, command_id, type, schema, data " + _FROM,
        "step_data_only": "SELECT data " + _FROM,
    }
    per = 100_000 / n
    out = {k: statistics.median(cpu(lambda: step(sql)) for _ in range(runs)) * per for k, sql in stages.items()}
    out["fold_fetched"] = statistics.median(cpu(fold) for _ in range(runs)) * per
    store.close()
    raw_conn.close()
    return {"events": n, "affray_s": mine, "raw_s": raw, "stages_per_100k_s": out}


def append_figures(db: Path, eid: str, runs: int, commands: int) -> dict:
    batches = peer.command_batches(db, eid, commands)
    out: dict = {"commands": len(batches), "events": sum(len(b[2]) for b in batches)}
    with tempfile.TemporaryDirectory(prefix="affray-ratios-") as tmp:

        def one(fn, mode: str, drop_type_index: bool = False) -> float:
            path = Path(tmp) / "a.db"
            bench.remove_db(path)
            # the empty file with its schema is made before the clock starts, for both
            # sides: creating a store (its migrations, ~5 ms) is not a cost per command
            if fn is peer.append_raw:
                with closing(sqlite3.connect(path)) as conn:
                    conn.execute("PRAGMA journal_mode = WAL")
                    conn.execute(peer.RAW_SCHEMA)
            else:
                with EventStore(path) as store:
                    if drop_type_index:
                        store._conn.execute("DROP INDEX events_type")
            c = time.process_time()
            fn(path, eid, batches, mode)
            c = time.process_time() - c
            bench.remove_db(path)
            return c / len(batches)

        for mode in ("FULL", "NORMAL"):
            mine, raw, no_index = [], [], []
            for r in range(runs + 1):  # the first round warms up
                a = one(peer.append_affray, mode)
                b = one(peer.append_raw, mode)
                c = one(peer.append_affray, mode, drop_type_index=True)
                if r:
                    mine.append(a), raw.append(b), no_index.append(c)
            out[mode] = {"affray_s_per_command": mine, "raw_s_per_command": raw,
                         "affray_without_type_index_s_per_command": no_index}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true", help="~2,000 events, 2 runs (CI)")
    ap.add_argument("--events", type=int, default=None, help="size of the encounter (default 100000; 2000 with --smoke)")
    ap.add_argument("--runs", type=int, default=None, help="runs of each measure (default 7; 2 with --smoke)")
    ap.add_argument("--commands", type=int, default=None, help="commands per append run (default 500; 50 with --smoke)")
    ap.add_argument("--cache", type=Path, default=bench.CACHE, help=f"where the logs are kept (default {bench.CACHE})")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    target = args.events or (2_000 if args.smoke else 100_000)
    runs = args.runs or (2 if args.smoke else 7)
    commands = args.commands or (50 if args.smoke else 500)
    started = time.perf_counter()
    say = lambda msg: print(f"[{time.perf_counter() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)  # noqa: E731
    bench.prepare_cache(args.cache)
    load = bench.load_average()
    src, eid = cli.get_log(args.cache, target, say)
    say(f"replay of {target:,} events, affray and raw interleaved, x{runs} ...")
    rep = replay_figures(src, eid, runs)
    say(f"appends of {commands} commands at FULL and NORMAL, x{runs} ...")
    app = append_figures(src, eid, runs, commands)
    med = statistics.median
    a, r = med(rep["affray_s"]), med(rep["raw_s"])
    print("| measure (CPU time) | affray | raw limit | ratio | target |")
    print("|---|---|---|---|---|")
    print(f"| replay of {rep['events']:,} events | {a * 1000:,.0f} ms ({rep['events'] / a:,.0f} events/s) | "
          f"{r * 1000:,.0f} ms ({rep['events'] / r:,.0f} events/s) | **{r / a:.2f}×** | ≥ 0.7× |")
    for mode, goal in (("FULL", 0.8), ("NORMAL", 0.6)):
        x, y = med(app[mode]["affray_s_per_command"]), med(app[mode]["raw_s_per_command"])
        z = med(app[mode]["affray_without_type_index_s_per_command"])
        print(f"| durable append, `synchronous={mode}` ({app['commands']} commands, {app['events']:,} events) | "
              f"{x * 1e6:,.0f} µs/command (without the type index: {z * 1e6:,.0f}) | {y * 1e6:,.0f} µs/command | "
              f"**{y / x:.2f}×** | ≥ {goal}× |")
    st = rep["stages_per_100k_s"]
    print("\nReplay stages, CPU per 100,000 events: "
          f"stepping the 3 columns the replay reads, along the table {st['step_rows'] * 1000:,.0f} ms "
          f"(through the version index: {st['step_rows_by_index'] * 1000:,.0f} ms) "
          f"(`data` alone, as raw: {st['step_data_only'] * 1000:,.0f} ms; the 5 columns it read before: "
          f"{st['step_5_columns'] * 1000:,.0f} ms), "
          f"`fold_rows` over rows already fetched (decoding and handlers) {st['fold_fetched'] * 1000:,.0f} ms.")
    print(f"\n1-minute load {load} at the start. Medians of {runs}. Benchmark wall time {time.perf_counter() - started:,.0f} s.")
    if args.json:
        args.json.write_text(json.dumps({"load": load, "replay": rep, "append": app}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
