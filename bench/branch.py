"""affray branch: how long it takes, and how long it holds the write lock.

    python bench/branch.py                 # the 100,000-event encounter (issue 17's case)
    python bench/branch.py --events 15000
    python bench/branch.py --smoke         # ~2,000 events (CI; no assertions)

The log is bench/bench.py's endless duel, built through ``execute()`` and
kept in ``bench/.cache/`` (``cli-N.db``, shared with bench/cli.py and
bench/amend.py). On a working copy, ``branch`` runs through ``execute()``
(the call the CLI makes) from now (no point: the whole log is copied) and
from the middle of the log (``--version``), ``--runs`` times each.
Meanwhile a second thread, with its own connection, types a note into
another encounter of the same file every 50 ms, as a GM at the table would:
SQLite's write lock covers the whole file.

Reported for each: the median branch wall and CPU time (in process, after
the imports), the median time the write lock was held (from ``BEGIN
IMMEDIATE`` to ``COMMIT``: wall time, and the CPU time of the process
meanwhile, which a loaded machine disturbs less), and the notes typed
meanwhile, with how many failed and the longest any one waited. Nothing is
asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench  # noqa: E402  (bench/bench.py: the log builder)
import cli  # noqa: E402  (bench/cli.py: the cached logs)
from amend import lock_clock, note_typist  # noqa: E402  (bench/amend.py)

from affray.commands.handler import execute  # noqa: E402
from affray.events import commands as cmd  # noqa: E402
from affray.store import EventStore  # noqa: E402


def boundary_near(store, eid: str, version: int) -> int:
    """The last version of the command holding ``version`` (a branch point)."""
    v = version
    while v < store.version(eid) and not store.starts_command(eid, v + 1):
        v += 1
    return v


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true", help="~2,000 events, one run (CI)")
    ap.add_argument("--events", type=int, default=None, help="size of the encounter (default 100000; 2000 with --smoke)")
    ap.add_argument("--runs", type=int, default=None, help="branches of each kind (default 3; 1 with --smoke)")
    ap.add_argument("--cache", type=Path, default=bench.CACHE, help=f"where the logs are kept (default {bench.CACHE})")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    target = args.events or (2_000 if args.smoke else 100_000)
    runs = args.runs or (1 if args.smoke else 3)
    started = time.perf_counter()
    say = lambda msg: print(f"[{time.perf_counter() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)  # noqa: E731
    bench.prepare_cache(args.cache)
    load = bench.load_average()
    src, eid = cli.get_log(args.cache, target, say)
    figures: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="affray-branch-bench-") as tmp:
        work = cli.copy_db(src, Path(tmp) / "work.db")
        with EventStore(work) as store:
            events = store.version(eid)
            middle = boundary_near(store, eid, events // 2)
            side = execute(store, cmd.OpenEncounter(name="Side table", system="mrq1"), actor="gm").encounter_id
        for kind, at_version in (("now", 0), ("middle", middle)):
            say(f"{events:,} events; branch {kind} ({runs} runs), a note every 50 ms meanwhile ...")
            stop, notes, spans, took = threading.Event(), [], [], []
            typist = threading.Thread(target=note_typist, args=(work, side, stop, notes))
            typist.start()
            try:
                for i in range(runs):
                    with EventStore(work) as store, lock_clock(store, spans):
                        t, c = time.perf_counter(), time.process_time()
                        out = execute(store, cmd.BranchEncounter(name=f"What if {kind} {i}", at_version=at_version),
                                      encounter_id=eid, actor="bench")
                        took.append((time.perf_counter() - t, time.process_time() - c))
                        copied = store.version(out.encounter_id)
            finally:
                stop.set()
                typist.join()
            waits = sorted(w for w, _ in notes)
            figures[kind] = {
                "at_version": at_version or events, "branch_events": copied,
                "wall_s": statistics.median(w for w, _ in took), "cpu_s": statistics.median(c for _, c in took),
                "lock_s": statistics.median(w for w, _ in spans), "lock_cpu_s": statistics.median(c for _, c in spans),
                "lock_max_s": max(w for w, _ in spans), "notes": len(notes),
                "notes_failed": sum(1 for _, ok in notes if not ok), "longest_note_s": waits[-1] if waits else 0.0,
            }
    print(f"| `branch` on {events:,} events | from now | from the middle (`--version {middle:,}`) |")
    print("|---|---|---|")
    now, mid = figures["now"], figures["middle"]
    print(f"| events in the branch | {now['branch_events']:,} | {mid['branch_events']:,} |")
    print(f"| branch, wall / CPU (median of {runs}, in process) | {now['wall_s']:,.2f} s / {now['cpu_s']:,.2f} s "
          f"| {mid['wall_s']:,.2f} s / {mid['cpu_s']:,.2f} s |")
    print(f"| write lock held, wall / CPU (median; the longest) | **{now['lock_s'] * 1000:,.0f} ms** / "
          f"{now['lock_cpu_s'] * 1000:,.0f} ms ({now['lock_max_s'] * 1000:,.0f} ms) | "
          f"**{mid['lock_s'] * 1000:,.0f} ms** / {mid['lock_cpu_s'] * 1000:,.0f} ms ({mid['lock_max_s'] * 1000:,.0f} ms) |")
    print(f"| notes typed into another encounter meanwhile | {now['notes']}, {now['notes_failed']} failed, the longest "
          f"{now['longest_note_s'] * 1000:,.0f} ms | {mid['notes']}, {mid['notes_failed']} failed, the longest "
          f"{mid['longest_note_s'] * 1000:,.0f} ms |")
    print(f"\n1-minute load {load} at the start. Benchmark wall time {time.perf_counter() - started:,.0f} s.")
    if args.json:
        args.json.write_text(json.dumps({"events": events, "load": load, **figures}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
