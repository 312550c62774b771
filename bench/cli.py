"""affray CLI latency: every verb, as a user types it, against the Python floor.

    python bench/cli.py                  # small log and a ~100,000-event encounter, 7 runs per verb
    python bench/cli.py --smoke          # a few hundred and ~2,000 events, 1 run (CI; no assertions)
    python bench/cli.py --runs 11 --json out.json
    python bench/cli.py --big PATH --big-id ID   # also `log` memory and first line on a bigger log
    python bench/cli.py --compare /work/venv/bin/affray   # before (that script) and after (this one), in alternation

Each verb runs as the installed console script in a fresh process (wall
time, stdout to /dev/null), with bytecode cached as an installed affray has
it (``PYTHONPYCACHEPREFIX``, as bench/bench.py does). ``python -c pass`` runs
between the verbs in the same run, and every figure is also given as a
ratio to it, so that the table holds on a loaded machine. Figures are
medians; each verb's first run is a warm-up and is not counted.

Two logs, built through ``execute()`` with bench/bench.py's builder (the
endless duel: the demo sheets with location HP raised) and kept in
``bench/.cache/`` (``cli-N.db``, reused when present):

- a small log (~400 events) and a ~100,000-event encounter. The read verbs
  run on them as they are. The fight verbs are driven by what the log
  waits for (``pending``): ``attack``, ``react``, ``roll``, ``end-round``
  and ``choose`` are typed as the step asks, ``act WHO defend`` on a turn,
  ``note``, ``undo`` then ``redo``, ``join`` (a third combatant), ``new``
  (a second encounter in the same file), ``branch`` (a what-if from now),
  ``rewind --to ROUND.STEP`` (back one step, voiding the last), ``salt``,
  and ``amend cN --mod +5:...`` of each attack just typed, on a working
  copy; every command goes to the encounter by ``-e ID``. ``start`` needs an encounter
  in its setup: it runs on a fresh copy of a duel not yet started (its log
  is small whichever column it is in). A verb that takes over two seconds
  (``verify``, ``audit``, the whole ``log`` and the whole ``export`` of a
  long encounter walk all of it) is run once (the warm-up run, for a read).
- ``log`` (the whole log, streamed) is also run for its peak memory (RSS of
  the process, from ``wait4``) and the time until its first line is read.

``--help`` and a usage error are answered from the help cache
(:mod:`affray.cli.helpcache`) once Typer has rendered them: the runs use a
cache folder of their own (``AFFRAY_CACHE_DIR``, empty at the start), so
the warm-up run renders and the counted runs print what it kept; the rows
marked "cache empty" clear that folder before each run (Typer renders every
time, as on the first call after an install or an edit).

``--compare SCRIPT`` runs a second console script (another install, such as
the main branch's venv) beside this interpreter's, in alternation, verb by
verb on the same logs (the fight verbs take turns answering what the log
waits for), and the table gets a "before" and an "after" column per log.

Nothing is asserted: the table is printed (markdown) and ``--json`` keeps
every sample.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench  # noqa: E402  (bench/bench.py: the log builder and the bytecode cache)

from affray.commands.handler import execute  # noqa: E402
from affray.events import commands as cmd  # noqa: E402
from affray.projections.snapshots import load_state  # noqa: E402
from affray.store import EventStore  # noqa: E402

TARGET_MS = 100.0
TARGET_RATIO = 5.0
#: a verb whose warm-up run took longer than this is not run again (its figure is that one run)
SLOW_S = 2.0
FIGHT_VERBS = (
    "attack", "react", "roll", "choose", "act", "end-round", "note", "undo", "redo", "join", "new", "rewind", "branch",
    "salt", "amend",
)
EXAMPLES = Path(bench.examples_dir())


class Sample(tuple):
    """``(wall, cpu)`` seconds of one run."""

    def __new__(cls, wall: float, cpu: float):
        return super().__new__(cls, (wall, cpu))

    wall = property(lambda self: self[0])
    cpu = property(lambda self: self[1])


class Runner:
    """Runs the console script with bytecode cached, and the floor between."""

    def __init__(self, compare: str | None = None) -> None:
        #: the console scripts measured: "after" (this interpreter's), and "before" with --compare
        self.scripts = {"after": bench.affray_cmd()}
        if compare:
            self.scripts = {"before": [compare], **self.scripts}
        self.affray = self.scripts["after"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("AFFRAY_")}
        env["AFFRAY_ACTOR"] = "bench"
        cache_dir = tempfile.mkdtemp(prefix="affray-cli-bench-cache-")  # the help cache, of this run only
        atexit.register(shutil.rmtree, cache_dir, ignore_errors=True)
        env["AFFRAY_CACHE_DIR"] = cache_dir
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(bench.PYCACHE)
        self.env = env
        self.cache_dir = cache_dir
        self.floor: list[Sample] = []

    def clear_help_cache(self) -> None:
        shutil.rmtree(self.cache_dir, ignore_errors=True)

    def time(self, argv: list[str], *, check: bool = True) -> Sample:
        """Wall and CPU seconds (user + system, from ``wait4``) of one run of ``argv``."""
        t = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=self.env)
        err = proc.stderr.read().decode(errors="replace")
        _, status, usage = os.wait4(proc.pid, 0)
        dt = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        proc.stderr.close()
        if check and proc.returncode != 0:
            raise SystemExit(f"bench/cli.py: {' '.join(argv)} exited {proc.returncode}: {err[-500:]}")
        return Sample(dt, usage.ru_utime + usage.ru_stime)

    def affray_time(self, db: Path, args: list[str], *, check: bool = True, which: str = "after") -> Sample:
        return self.time(self.scripts[which] + ["--db", str(db), *args], check=check)

    def pass_floor(self) -> None:
        """One run of ``python -c pass`` (the floor of every ratio)."""
        self.floor.append(self.time([sys.executable, "-c", "pass"]))

    def log_memory(self, db: Path, eid: str) -> dict:
        """Peak RSS of ``affray log`` on the whole log, the time to its first
        line and to its end, and the lines written."""
        argv = self.affray + ["--db", str(db), "-e", eid, "log"]
        t = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=self.env)
        first = proc.stdout.readline()
        t_first = time.perf_counter() - t
        lines = 1 if first else 0
        for _ in proc.stdout:
            lines += 1
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        t_all = time.perf_counter() - t
        proc.stdout.close()
        if proc.returncode != 0:
            raise SystemExit(f"bench/cli.py: {' '.join(argv)} exited {proc.returncode}")
        return {"peak_mib": usage.ru_maxrss / 1024, "first_line_s": t_first, "total_s": t_all, "lines": lines}


def med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def get_log(cache: Path, target: int, say) -> tuple[Path, str]:
    """The cached endless duel of ``target`` events (built when missing)."""
    db = cache / f"cli-{target}.db"
    meta = cache / f"cli-{target}.json"
    if db.exists() and meta.exists():
        info = json.loads(meta.read_text())
        if info.get("format") == bench.BUILD_FORMAT:
            return db, info["encounter_id"]
    say(f"building {target:,} events in {db} (synchronous=NORMAL) ...")
    eid, stats = bench.build(db, target, "NORMAL")
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the file alone is the whole log
    meta.write_text(json.dumps({"format": bench.BUILD_FORMAT, "encounter_id": eid, "events": stats.events}))
    return db, eid


def copy_db(src: Path, dest: Path) -> Path:
    bench.remove_db(dest)
    for suffix in ("", "-wal", ".keys"):  # the key file holds the engine's seed (affray.store.keys)
        if Path(f"{src}{suffix}").exists():
            shutil.copyfile(f"{src}{suffix}", f"{dest}{suffix}")
    return dest


def duel_not_started(path: Path) -> Path:
    """A duel with both sides joined, before ``start``."""
    bench.remove_db(path)
    with EventStore(path) as store:
        out = execute(store, cmd.OpenEncounter(name="Start", system="mrq1"), actor="bench", seed=bench.SEED)
        for sheet, side, name in bench.bench_sheets():
            execute(store, cmd.JoinCombatant(sheet=sheet, side=side, name=name), encounter_id=out.encounter_id, actor="bench")
    return path


def read_commands(eid: str, state) -> dict[str, list[str]]:
    """The read verbs and how they are typed, for an encounter at ``state``."""
    mid = max(1, state.round // 2)
    who = next(iter(state.combatants))
    return {
        "state": ["-e", eid, "state"],
        "state --json": ["-e", eid, "state", "--json"],
        "state --at MID": ["-e", eid, "state", "--at", str(mid)],
        "pending": ["-e", eid, "pending"],
        "list": ["list"],
        "log --tail 20": ["-e", eid, "log", "--tail", "20"],
        "log --round MID": ["-e", eid, "log", "--round", str(mid)],
        "log (whole, to /dev/null)": ["-e", eid, "log"],
        "replay --round MID": ["-e", eid, "replay", "--round", str(mid)],
        "why WHO": ["-e", eid, "why", who],
        "verify": ["-e", eid, "verify"],
        "head": ["-e", eid, "head"],
        "export --round MID -f bbcode": ["-e", eid, "export", "--round", str(mid), "-f", "bbcode"],
        "export (whole, bbcode, to /dev/null)": ["-e", eid, "export", "-f", "bbcode"],
        "audit": ["-e", eid, "audit"],
        "rulings": ["rulings"],
        "--help": ["--help"],
        "attack --help": ["attack", "--help"],
        "attack (a usage error: no target)": ["-e", eid, "attack", who],
        "--help (cache empty: Typer)": ["--help"],
        "attack --help (cache empty: Typer)": ["attack", "--help"],
    }


def fight_command(state) -> tuple[str, list[str]] | None:
    """The verb the log waits for and a command line that answers it."""
    if not state.pending:
        return None
    step = state.pending[0]
    who = step.who
    if step.verb == "attack":
        side = state.combatants[who].side
        target = next((h for h, c in state.combatants.items() if c.side != side and c.status == "active"), None)
        return ("attack", ["attack", who, target]) if target else None
    if step.verb == "react":
        return "react", ["react", who, step.options[0] if step.options else "none"]
    if step.verb in ("roll", "end-round"):
        return step.verb, [step.verb]
    if step.verb == "choose":
        return "choose", ["choose", who, step.options[0]]
    return None


def measure_log(runner: Runner, db: Path, eid: str, runs: int, say) -> dict[str, dict[str, list[Sample]]]:
    """Every verb on (a working copy of) ``db``: its samples per verb, per
    console script ("after", and "before" with ``--compare``)."""
    scripts = list(runner.scripts)
    samples: dict[str, dict[str, list[Sample]]] = {which: {} for which in scripts}
    with EventStore(db, readonly=True) as store:
        state = load_state(store, eid)
    reads = read_commands(eid, state)
    say(f"  reads x{runs} ...")
    for name, args in reads.items():
        cold = "cache empty" in name
        check = "usage error" not in name
        slow = set()
        for which in scripts:  # warm-up
            runner.pass_floor()
            if cold:
                runner.clear_help_cache()
            first = runner.affray_time(db, args, which=which, check=check)
            if first.wall > SLOW_S:  # a read that walks the whole log: once is enough to know it misses
                samples[which][name] = [first]
                slow.add(which)
        for _ in range(runs):
            for which in scripts:
                if which in slow:
                    continue
                runner.pass_floor()
                if cold:
                    runner.clear_help_cache()
                samples[which].setdefault(name, []).append(runner.affray_time(db, args, which=which, check=check))
    say("  the fight verbs, as the log asks for them ...")
    with tempfile.TemporaryDirectory(prefix="affray-cli-bench-") as tmp:
        work = copy_db(db, Path(tmp) / "work.db")
        # -1: the first run of each is a warm-up
        counts = {(which, v): -1 for which in scripts for v in FIGHT_VERBS}
        budget = 60 * (runs + 1) * len(scripts)
        extra = 0
        turn = 0
        while budget > 0 and any(n < runs for (_, v), n in counts.items() if v != "choose"):
            budget -= 1
            which = scripts[turn % len(scripts)]  # the scripts take turns answering the log
            turn += 1
            with EventStore(work, readonly=True) as store:
                state = load_state(store, eid)
            todo = fight_command(state)
            if todo is None:
                raise SystemExit(f"bench/cli.py: nothing to answer in {state.pending!r}")
            verb, args = todo
            if verb == "attack" and counts[which, "act"] < counts[which, "attack"]:
                verb, args = "act", ["act", args[1], "defend"]
            runner.pass_floor()
            took = runner.affray_time(work, ["-e", eid, *args], which=which)
            if counts[which, verb] >= 0:
                samples[which].setdefault(verb, []).append(took)
            counts[which, verb] += 1
            if verb == "attack" and counts[which, "amend"] < runs:
                # the attack just typed (c<its first version>) again, with a modifier: rewound and issued anew
                runner.pass_floor()
                took = runner.affray_time(work, ["-e", eid, "amend", f"c{state.version + 1}", "--mod", "+5:bench amend"], which=which)
                if counts[which, "amend"] >= 0:
                    samples[which].setdefault("amend", []).append(took)
                counts[which, "amend"] += 1
            for name, more in (
                ("note", ["note", f"bench note {extra}"]),
                ("undo", ["undo"]),
                ("redo", ["redo"]),
                ("join", ["join", str(EXAMPLES / "mrq1" / "gorp.json"), "--side", "broo", "--name", f"Gorp {extra}"]),
                ("new", ["new", f"Side fight {extra}", "--id", f"side-{extra}"]),
                ("branch", ["branch", f"What if {extra}", "--id", f"what-if-{extra}"]),
                ("rewind", ["rewind", "--to", f"{state.round}.{state.step - 1}"]),
                ("salt", ["salt", f"bench salt {extra}"]),
            ):
                if name == "rewind" and state.step < 2:
                    continue  # back one step, within this round: there must be one behind us
                if counts[which, name] < runs:
                    runner.pass_floor()
                    took = runner.affray_time(work, (["-e", eid] if name != "new" else []) + more, which=which)
                    if counts[which, name] >= 0:
                        samples[which].setdefault(name, []).append(took)
                    counts[which, name] += 1
                    if took.wall > SLOW_S:  # it walks the whole log: enough runs to know it misses
                        counts[which, name] = max(counts[which, name], runs)
                        samples[which].setdefault(name, [took])
                    if name == "join":  # the new combatant leaves again, so the duel goes on as it was
                        runner.affray_time(work, ["-e", eid, "undo"], which=which)
            extra += 1
    return samples


def measure_start(runner: Runner, runs: int) -> dict[str, list[Sample]]:
    out: dict[str, list[Sample]] = {which: [] for which in runner.scripts}
    with tempfile.TemporaryDirectory(prefix="affray-cli-bench-") as tmp:
        template = duel_not_started(Path(tmp) / "template.db")
        for i in range(runs + 1):
            for which in runner.scripts:
                work = copy_db(template, Path(tmp) / "work.db")
                runner.pass_floor()
                took = runner.affray_time(work, ["start"], which=which)
                if i:
                    out[which].append(took)
    return out


def cell(xs: list[Sample], floor: list[Sample], *, short: bool = False) -> str:
    """``wall ms, ratio (CPU ms, ratio)``, medians, ✗ when the wall time
    misses (``short``: ``wall ms, ratio (CPU ratio)``)."""
    if not xs:
        return "—"
    wall, cpu = med([x.wall for x in xs]), med([x.cpu for x in xs])
    ratio = wall / med([f.wall for f in floor])
    cpu_ratio = cpu / med([f.cpu for f in floor])
    mark = "" if wall * 1000 <= TARGET_MS and ratio <= TARGET_RATIO else " ✗"
    if short:
        return f"{wall * 1000:,.0f} ms, {ratio:.1f}×{mark} (CPU {cpu_ratio:.1f}×)"
    return f"{wall * 1000:,.0f} ms, {ratio:.1f}×{mark} (CPU {cpu * 1000:,.0f} ms, {cpu_ratio:.1f}×)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true", help="small and quick: ~400 and ~2,000 events, 1 run (CI)")
    ap.add_argument("--runs", type=int, default=None, help="counted runs per verb (default 7; 1 with --smoke)")
    ap.add_argument("--events", type=int, default=None, help="size of the big encounter (default 100000; 2000 with --smoke)")
    ap.add_argument("--cache", type=Path, default=bench.CACHE, help=f"where the logs are kept (default {bench.CACHE})")
    ap.add_argument("--big", type=Path, default=None, help="also measure `log` memory on this log file")
    ap.add_argument("--big-id", default="bench-endless-duel", help="the encounter of --big")
    ap.add_argument("--json", type=Path, default=None, help="also write every sample to this JSON file")
    ap.add_argument("--compare", default=None, metavar="SCRIPT",
                    help="another affray console script (e.g. the main branch's venv) run in alternation: before/after columns")
    args = ap.parse_args(argv)
    runs = args.runs or (1 if args.smoke else 7)
    big_target = args.events or (2_000 if args.smoke else 100_000)
    started = time.perf_counter()
    say = lambda msg: print(f"[{time.perf_counter() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)  # noqa: E731
    bench.prepare_cache(args.cache)
    load = bench.load_average()

    runner = Runner(args.compare)
    scripts = list(runner.scripts)
    runner.time([sys.executable, "-c", "pass"])
    logs = {"small": get_log(args.cache, 400, say), "big": get_log(args.cache, big_target, say)}
    sizes = {}
    results: dict[str, dict[str, dict[str, list[Sample]]]] = {}  # log -> script -> verb -> samples
    for key, (db, eid) in logs.items():
        with EventStore(db, readonly=True) as store:
            sizes[key] = store.version(eid)
        say(f"{key} log: {sizes[key]:,} events ({db.name})")
        results[key] = measure_log(runner, db, eid, runs, say)
    say("start, on a duel not yet started ...")
    for which, samples in measure_start(runner, runs).items():
        results["small"][which]["start"] = samples
    say("log: peak memory and first line ...")
    memory = {key: runner.log_memory(db, eid) for key, (db, eid) in logs.items()}
    if args.big is not None:
        with EventStore(args.big, readonly=True) as store:
            sizes["bigger"] = store.version(args.big_id)
        memory["bigger"] = runner.log_memory(args.big, args.big_id)
    floor = runner.floor
    floor_wall = sorted(f.wall for f in floor)
    elapsed = time.perf_counter() - started

    names = []
    for key in ("small", "big"):
        names += [n for n in results[key]["after"] if n not in names]
    compare = len(scripts) > 1
    if compare:
        out = [
            f"| verb | small log ({sizes['small']:,} events): before | after | "
            f"{sizes['big']:,}-event encounter: before | after |",
            "|---|---|---|---|---|",
        ]
    else:
        out = [
            f"| verb | small log ({sizes['small']:,} events) | {sizes['big']:,}-event encounter |",
            "|---|---|---|",
        ]
    for name in names:
        cells = []
        counted = []
        for key in ("small", "big"):
            for which in scripts:
                xs = results[key][which].get(name, [])
                if key == "big" and name == "start":
                    cells.append("— (a log in its setup is small)")
                    continue
                cells.append(cell(xs, floor, short=compare))
                if xs:
                    counted.append(len(xs))
        n = min(counted, default=0)
        shown = f"`{name}`" + (f" ({n} run{'s' if n != 1 else ''})" if n < runs else "")
        out.append(f"| {shown} | " + " | ".join(cells) + " |")
    out.append(f"| `python -c pass` (the floor) | {med(floor_wall) * 1000:,.0f} ms, CPU "
               f"{med([f.cpu for f in floor]) * 1000:,.0f} ms ({len(floor)} runs, "
               f"{floor_wall[0] * 1000:,.0f}–{floor_wall[-1] * 1000:,.0f} ms) |" + " |" * (len(scripts) * 2 - 1))
    out.append("")
    out.append("| `affray log` (whole log, streamed) | events | lines | peak RSS | first line | whole |")
    out.append("|---|---|---|---|---|---|")
    for key, m in memory.items():
        out.append(f"| {key} | {sizes[key]:,} | {m['lines']:,} | {m['peak_mib']:,.0f} MiB | "
                   f"{m['first_line_s'] * 1000:,.0f} ms | {m['total_s']:,.2f} s |")
    out.append("")
    who = (f"Before: `{args.compare}`; after: `{' '.join(runner.affray)}`, run in alternation. " if compare else "")
    out.append(f"{who}Medians of {runs} run{'s' if runs != 1 else ''} per verb after a warm-up: wall time of the "
               f"console script with bytecode cached and its ratio to `python -c pass` in the same run, then the "
               f"CPU time (user + system) and its ratio to the floor's, which a loaded machine disturbs less; "
               f"✗: over {TARGET_MS:.0f} ms or {TARGET_RATIO:.0f}× the floor. MID is the middle round of the log, "
               f"WHO its first combatant. `--help` and the usage error come from the help cache after the warm-up "
               f"run; \"cache empty\": Typer renders on every run. 1-minute load {load} at the start. "
               f"Benchmark wall time {elapsed:,.0f} s.")
    print("\n".join(out))
    if args.json:
        args.json.write_text(json.dumps({"sizes": sizes, "floor_s": runner.floor, "samples": results, "log_memory": memory,
                                         "runs": runs, "load": load, "wall_s": elapsed}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
