"""affray amend: how long it takes, and how long it holds the write lock.

    python bench/amend.py                 # a ~15,000-event encounter (issue 17's case)
    python bench/amend.py --events 100000
    python bench/amend.py --smoke         # ~2,000 events (CI; no assertions)

The log is bench/bench.py's endless duel, built through ``execute()`` and
kept in ``bench/.cache/`` (``cli-N.db``, shared with bench/cli.py). On a
working copy, ``amend --replay`` changes an early attack (``--mod +1``, so
most of the fight replays as it was) and re-issues every later command with
its recorded dice, through the Python API (the CLI runs the same call).
Meanwhile a second thread, with its own connection, types a note into
another encounter of the same file every 50 ms, as a GM at the table would:
SQLite's write lock covers the whole file, so a note that waits longer than
its busy timeout (5 s) fails with "locked".

Reported: the amend's wall and CPU time, the commands it replayed, the time
the write lock was held (from ``BEGIN IMMEDIATE`` to ``COMMIT`` of the
transaction on the real file; wall time, and the CPU time of the process
meanwhile, which a loaded machine disturbs less), and the notes typed meanwhile, with how many
failed and the longest any one waited. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench  # noqa: E402  (bench/bench.py: the log builder)
import cli  # noqa: E402  (bench/cli.py: the cached logs)

from affray.commands.amend import amend  # noqa: E402
from affray.commands.handler import execute  # noqa: E402
from affray.commands.points import command_points  # noqa: E402
from affray.errors import AffrayError  # noqa: E402
from affray.events import commands as cmd  # noqa: E402
from affray.events import core as ev  # noqa: E402
from affray.projections.timeline import Timeline  # noqa: E402
from affray.store import EventStore  # noqa: E402


def first_attack(store, eid: str) -> str:
    """The ROUND.STEP of the first attack of the log."""
    head = min(store.version(eid), 400)
    records = list(store.read(eid, to_version=head))
    points = command_points(records, Timeline(records))
    return next(p.label for p in points if p.kind == "attack")


def note_typist(path: Path, eid: str, stop: threading.Event, out: list[tuple[float, bool]]) -> None:
    """Type a note every 50 ms into ``eid`` until ``stop``: ``(seconds it took, ok)`` each."""
    with EventStore(path) as store:
        i = 0
        while not stop.is_set():
            t = time.perf_counter()
            try:
                execute(store, cmd.AddNote(text=f"typed during the amend {i}"), encounter_id=eid, actor="gm")
                ok = True
            except AffrayError:
                ok = False
            out.append((time.perf_counter() - t, ok))
            i += 1
            stop.wait(0.05)


@contextmanager
def lock_clock(store: EventStore, spans: list[tuple[float, float]]):
    """Time every transaction of ``store`` (the write lock, held from BEGIN
    to COMMIT): ``(wall, CPU)`` seconds each."""
    real = store.transaction

    @contextmanager
    def timed():
        t, c = time.perf_counter(), time.process_time()
        try:
            with real() as inner:
                yield inner
        finally:
            spans.append((time.perf_counter() - t, time.process_time() - c))

    store.transaction = timed
    try:
        yield
    finally:
        store.transaction = real


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true", help="~2,000 events (CI)")
    ap.add_argument("--events", type=int, default=None, help="size of the encounter (default 15000; 2000 with --smoke)")
    ap.add_argument("--cache", type=Path, default=bench.CACHE, help=f"where the logs are kept (default {bench.CACHE})")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    target = args.events or (2_000 if args.smoke else 15_000)
    started = time.perf_counter()
    say = lambda msg: print(f"[{time.perf_counter() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)  # noqa: E731
    bench.prepare_cache(args.cache)
    load = bench.load_average()
    src, eid = cli.get_log(args.cache, target, say)
    with tempfile.TemporaryDirectory(prefix="affray-amend-bench-") as tmp:
        work = cli.copy_db(src, Path(tmp) / "work.db")
        with EventStore(work) as store:
            events = store.version(eid)
            point = first_attack(store, eid)
            side = execute(store, cmd.OpenEncounter(name="Side table", system="mrq1"), actor="gm").encounter_id
        say(f"{events:,} events; amend {point} --mod +1 --replay, a note every 50 ms meanwhile ...")
        stop, notes, spans = threading.Event(), [], []
        typist = threading.Thread(target=note_typist, args=(work, side, stop, notes))
        typist.start()
        try:
            with EventStore(work) as store, lock_clock(store, spans):
                t, c = time.perf_counter(), time.process_time()
                report = amend(store, cmd.AmendCommand(target=point, modifiers=(ev.Modifier(1, "bench"),), replay=True),
                               encounter_id=eid, actor="bench")
                wall, cpu = time.perf_counter() - t, time.process_time() - c
        finally:
            stop.set()
            typist.join()
    waits = sorted(w for w, _ in notes)
    figures = {
        "events": events, "target": point, "replayed": len(report.replayed), "stopped": report.stopped,
        "wall_s": wall, "cpu_s": cpu, "lock_s": max(w for w, _ in spans) if spans else 0.0,
        "lock_cpu_s": max(c for _, c in spans) if spans else 0.0, "transactions": len(spans),
        "notes": len(notes), "notes_failed": sum(1 for _, ok in notes if not ok),
        "longest_note_s": waits[-1] if waits else 0.0, "load": load,
    }
    shutil.rmtree(tmp, ignore_errors=True)
    print("| measure | result |")
    print("|---|---|")
    print(f"| the encounter | {events:,} events; `amend {point} --mod +1 --replay` |")
    print(f"| commands replayed | {figures['replayed']:,}" + (f" (stopped: {report.stopped})" if report.stopped else "") + " |")
    print(f"| amend, wall / CPU (in process, after the imports) | {wall:,.2f} s / {cpu:,.2f} s |")
    print(f"| write lock held (longest transaction on the file), wall / CPU | **{figures['lock_s'] * 1000:,.0f} ms** / "
          f"{figures['lock_cpu_s'] * 1000:,.0f} ms |")
    print(f"| notes typed into another encounter meanwhile | {len(notes)}, {figures['notes_failed']} failed, "
          f"the longest took {figures['longest_note_s'] * 1000:,.0f} ms |")
    print(f"\n1-minute load {load} at the start. Benchmark wall time {time.perf_counter() - started:,.0f} s.")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
