"""affray verify benchmark: events per second and peak memory of one full
``verify --dice`` pass, at several log sizes.

    python bench/verify.py                  # 10,000 and 100,000 events (builds the logs: minutes)
    python bench/verify.py --sizes 10000    # one size
    python bench/verify.py --smoke          # 2,000 events, one run (CI; no assertions)
    python bench/verify.py --json out.json
    python bench/verify.py --base /tmp/old/src   # also time older sources, alternating (before/after)

The logs are built as ``bench/bench.py`` builds its own: the demo duel with
every location's HP raised, played by the autopilot through the real command
path, engine dice from a fixed seed, snapshots every 1,000 events and at each
round's end (cached in ``bench/.cache/verify-N.db``; ``--fresh`` rebuilds).

Each measurement runs ``affray.verify.verify_store(store, dice=True)`` in a
fresh subprocess: the hash chain, the full replay compared with every
snapshot, and every engine roll re-derived, in one pass, after SQLite's
``quick_check`` of the file. It reports the wall time, the CPU time (and
the part of it the file's own checks take, ``store.verify_file()`` timed
again alone), events per second of CPU, and the peak resident memory of that process
(``VmHWM``) next to its resident memory just before the pass (so the
difference is what verifying costs). The cost per event should stay flat as
the log grows: the pass is linear and streams. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"

PROBE = r"""
import json, sys, time
from affray.store import EventStore
from affray.verify import verify_store

def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
    return 0

path = sys.argv[1]
with EventStore(path, readonly=True) as store:
    before = rss("VmRSS:")
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    verdict = verify_store(store, dice=True)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    events = sum(r.events for r in verdict.reports)
    cpu1 = time.process_time()
    store.verify_file()  # the file's own checks alone (SQLite's quick_check, the encounter list): part of cpu
    file_cpu = time.process_time() - cpu1
print(json.dumps({"events": events, "seconds": wall, "cpu": cpu, "file_cpu": file_cpu, "rss_before": before,
                  "peak_rss": rss("VmHWM:"), "problems": len(verdict.problems), "exit": verdict.code,
                  "snapshots": sum(r.snapshots for r in verdict.reports),
                  "engine_rolls": sum(r.engine_rolls for r in verdict.reports)}))
"""


def build_log(size: int, fresh: bool) -> Path:
    """A log of about ``size`` events (cached)."""
    sys.path.insert(0, str(HERE))
    import bench  # bench/bench.py: the same build as the main benchmark

    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"verify-{size}.db"
    if path.exists() and not fresh:
        return path
    t0 = time.perf_counter()
    bench.build(path, size, "NORMAL")
    print(f"built {path.name} in {time.perf_counter() - t0:,.0f} s", file=sys.stderr)
    return path


def probe(path: Path, base: str = "") -> dict:
    """One measurement in a fresh process; with ``base``, of the affray
    sources under that folder instead (put first on ``PYTHONPATH``)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, (base, os.environ.get("PYTHONPATH", ""))))) if base else None
    proc = subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True, text=True, check=False, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"bench/verify.py: the probe failed: {proc.stderr[-800:]}")
    return json.loads(proc.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=None, help="log sizes in events (default 10000 100000)")
    ap.add_argument("--runs", type=int, default=None, help="repetitions per size (default 3; 1 with --smoke)")
    ap.add_argument("--smoke", action="store_true", help="2,000 events, one run (CI)")
    ap.add_argument("--fresh", action="store_true", help="rebuild the cached logs")
    ap.add_argument("--json", default="", help="also write the figures to this file")
    ap.add_argument("--base", default="", help="a folder holding older affray sources (e.g. 'git archive REV src'"
                    " unpacked: give its src/): each run of them alternates with one of these, under the same load")
    args = ap.parse_args(argv)
    sizes = args.sizes or ([2_000] if args.smoke else [10_000, 100_000])
    runs = args.runs or (1 if args.smoke else 3)
    rows = []
    for size in sizes:
        path = build_log(size, args.fresh or args.smoke)
        results, based = [], []
        for _ in range(runs):
            results.append(probe(path))
            if args.base:
                based.append(probe(path, args.base))
        if based:
            cpu_now, cpu_base = (statistics.median(r["cpu"] for r in rs) for rs in (results, based))
            events = results[0]["events"]
            print(f"{events:,} events, median CPU of {runs} alternating runs: {args.base} {cpu_base:.2f} s "
                  f"({cpu_base / events * 1e6:.2f} µs/event), these sources {cpu_now:.2f} s ({cpu_now / events * 1e6:.2f} µs/event); "
                  f"load average {os.getloadavg()[0]:.1f}", file=sys.stderr)
        best = min(results, key=lambda r: r["seconds"])
        median = statistics.median(r["seconds"] for r in results)
        row = {
            "events": best["events"],
            "runs": runs,
            "median_s": median,
            "events_per_s": best["events"] / median if median else 0.0,
            "us_per_event": median / best["events"] * 1e6 if best["events"] else 0.0,
            "cpu_s": statistics.median(r["cpu"] for r in results),
            "file_cpu_s": statistics.median(r["file_cpu"] for r in results),
            "peak_rss_mb": best["peak_rss"] / 2**20,
            "rss_before_mb": best["rss_before"] / 2**20,
            "snapshots": best["snapshots"],
            "engine_rolls": best["engine_rolls"],
            "exit": best["exit"],
        }
        rows.append(row)
        if args.smoke:
            path.unlink(missing_ok=True)
            for suffix in ("-wal", "-shm", ".keys"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
    print("| events | verify --dice (median wall) | CPU | of it the file's checks | events/s of CPU | µs/event of CPU "
          "| peak RSS | RSS before the pass | snapshots | engine rolls | exit |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        per_s = r["events"] / r["cpu_s"] if r["cpu_s"] else 0.0
        print(f"| {r['events']:,} | {r['median_s']:.2f} s | {r['cpu_s']:.2f} s | {r['file_cpu_s']:.2f} s | {per_s:,.0f} "
              f"| {r['cpu_s'] / r['events'] * 1e6:.1f} "
              f"| {r['peak_rss_mb']:.0f} MB | {r['rss_before_mb']:.0f} MB | {r['snapshots']} | {r['engine_rolls']:,} "
              f"| {r['exit']} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
