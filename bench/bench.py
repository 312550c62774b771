"""affray benchmark: a ~100,000-event encounter built through the real command path.

    python bench/bench.py                 # full run: ~100,000 events (about 4 minutes on 2 cores)
    python bench/bench.py --reuse         # reuse bench/.cache/bench-100000.db (and its append
                                          # figures) if it is there: under a minute
    python bench/bench.py --smoke         # ~2,000 events, one repetition (CI; no assertions)
    python bench/bench.py --events 20000 --runs 3 --json out.json

What it measures (DESIGN.md invariant 7, and the README's performance targets):

a. appending: every command goes through ``affray.commands.handler.execute``
   (load state, rules decide, one SQLite transaction per command), driven by
   ``affray.commands.demo.autoplay`` -- at ``synchronous=FULL`` (durable commits, the
   default) for the whole build, and at ``synchronous=NORMAL`` for a prefix;
b. full replay through the path ``load_state`` and the CLI use,
   ``replay(store, eid)`` (meta events through the type index, then the live
   events streamed: SQL, decode, fold), stage by stage; and, for comparison,
   the list-based ``project(list(store.read(eid)))`` (read + decode +
   Timeline + fold), stage by stage too;
c. time travel to an old version, with snapshots (``load_state(at_version=)``)
   and without (``use_snapshots=False``); the state at the end of a round and
   after a step through ``state_at_store`` (the ``affray state --at`` path,
   from snapshots) and through ``state_at`` over the whole log (the reference);
d. wall time of the CLI as a user sees it: ``affray state`` on that log,
   ``affray --help``, and ``python -c pass`` / ``import typer`` for the
   floor under them (subprocesses);
e. peak memory of the full replay, both paths (in a fresh subprocess: peak
   RSS from /proc/self/status VmHWM, and the tracemalloc peak).

The encounter is the demo duel (src/affray/examples/mrq1) with every hit
location's HP raised to 1,000,000, so the fight runs for ~1,000 rounds without
anyone going down. Dice come from the engine with a fixed seed, so a given
version of affray builds the same log every time (a change to the rules changes
it). Timing figures are printed as a markdown table; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import msgspec

from affray.events import commands as cmd
from affray.commands.handler import execute
from affray.commands.demo import SCENARIOS, autoplay, examples_dir
from affray.events import codec
from affray.projections.snapshots import SNAPSHOT_EVERY, load_state, replay as replay_state
from affray.projections.state import State
from affray.projections.timeline import Timeline, fold, project
from affray.projections.travel import state_at, state_at_store
from affray.rules.mrq1 import tables
from affray.rules.mrq1.sheet import load_sheet
from affray.store import EventStore

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
PYCACHE = Path(tempfile.gettempdir()) / "affray-bench-pycache"  # bytecode for the CLI runs (see run_cli)
SEED = bytes(range(32))  # fixed dice seed: the same log on every run
HUGE_HP = 1_000_000  # per hit location: nobody goes down for thousands of rounds
NORMAL_PREFIX = 20_000  # events appended at synchronous=NORMAL for the comparison
BUILD_FORMAT = 1  # bump when the way the log is built changes (invalidates --reuse)

START_LOAD = ""  # the 1-minute load average when the bench started, for the notes

TARGET_REPLAY = 200_000  # events/s
TARGET_STATE_MS = 150.0  # affray state on the bench log


# --------------------------------------------------------------------------- #
# building the log through execute()
# --------------------------------------------------------------------------- #


@dataclass
class BuildStats:
    synchronous: str
    events: int = 0
    commands: int = 0
    rounds: int = 0
    seconds: float = 0.0
    #: wall time when the log first reached ``prefix_events`` (same-prefix comparison)
    prefix_events: int = 0
    prefix_seconds: float = 0.0
    prefix_commands: int = 0
    latencies_ms: list[float] = field(default_factory=list, repr=False)

    def summary(self) -> dict:
        d = asdict(self)
        lat = sorted(d.pop("latencies_ms"))
        d["p50_ms"] = _pct(lat, 50)
        d["p99_ms"] = _pct(lat, 99)
        d["max_ms"] = lat[-1] if lat else 0.0
        # the last tenth of the build: what appending costs once the log is long
        tail = self.latencies_ms[-max(1, len(self.latencies_ms) // 10):]
        d["tail_commands"] = len(tail)
        d["tail_rate"] = len(tail) / (sum(tail) / 1000) if tail else 0.0
        return d


def _pct(sorted_values: list[float], p: float) -> float:
    if not sorted_values:
        return 0.0
    k = min(len(sorted_values) - 1, max(0, round(p / 100 * (len(sorted_values) - 1))))
    return sorted_values[k]


def bench_sheets() -> list[tuple[dict, str, str]]:
    """The demo duel's sheets as plain data, every location's HP raised."""
    out = []
    for rel, side, name in SCENARIOS["duel"]:
        sheet = load_sheet(examples_dir() / rel)
        sheet = msgspec.structs.replace(sheet, location_hp={loc: HUGE_HP for loc in tables.HIT_LOCATIONS})
        out.append((msgspec.to_builtins(sheet), side, name))
    return out


def prepare_cache(path: Path) -> Path:
    """Make the cache folder ``path``, with a ``.gitignore`` that keeps all of it out of git."""
    path.mkdir(parents=True, exist_ok=True)
    ignore = path / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# written by bench/: nothing in this folder is source\n*\n")
    return path


def load_average() -> str:
    """The 1-minute load average, for the notes under a table ("?" where there is none)."""
    try:
        return "%.2f" % os.getloadavg()[0]
    except (OSError, AttributeError):
        return "?"


def remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal", ".keys"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def build(path: Path, target: int, synchronous: str, *, prefix: int = 0) -> tuple[str, BuildStats]:
    """Build an encounter of about ``target`` events in ``path``, one command per
    transaction, through ``execute`` (setup) and ``autoplay`` (the fight)."""
    remove_db(path)
    stats = BuildStats(synchronous=synchronous, prefix_events=prefix)
    last = [0.0]
    versions = [0]

    def echo(outcome) -> None:
        now = time.perf_counter()
        stats.latencies_ms.append((now - last[0]) * 1000)
        last[0] = now
        stats.commands += 1
        versions[0] = outcome.state.version
        if prefix and not stats.prefix_seconds and outcome.state.version >= prefix:
            stats.prefix_seconds = now - t0
            stats.prefix_commands = stats.commands

    with EventStore(path, synchronous=synchronous) as store:
        t0 = time.perf_counter()
        last[0] = t0
        out = execute(store, cmd.OpenEncounter(name="Bench: endless duel", system="mrq1"), actor="bench", seed=SEED)
        echo(out)
        eid = out.encounter_id
        for sheet, side, name in bench_sheets():
            echo(execute(store, cmd.JoinCombatant(sheet=sheet, side=side, name=name), encounter_id=eid, actor="bench"))
        state = out.state
        while versions[0] < target:
            # ~7.5 events per command: aim a little short, then close in
            chunk = max(1, min(1000, (target - versions[0]) // 10))
            last[0] = time.perf_counter()  # autoplay's own load_state is not a command
            state = autoplay(store, eid, actor="bench", echo=echo, max_commands=chunk)
            if state.phase in ("over", "closed") or not state.pending:
                raise SystemExit(
                    f"bench: the fight ended after {state.version} events (phase {state.phase!r}, "
                    f"winner {state.winner!r}) before reaching {target}; raise HUGE_HP in bench/bench.py"
                )
        stats.seconds = time.perf_counter() - t0
        stats.events = store.version(eid)
        stats.rounds = state.round
    return eid, stats


# --------------------------------------------------------------------------- #
# timing helpers
# --------------------------------------------------------------------------- #


def timed(fn, runs: int, cpu: list[float] | None = None) -> list[float]:
    """Wall seconds of ``runs`` calls of ``fn`` (no warm-up: the caller warms);
    the CPU seconds of each call go to ``cpu`` when given."""
    out = []
    for _ in range(runs):
        c = time.process_time()
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
        if cpu is not None:
            cpu.append(time.process_time() - c)
    return out


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def stage(fn, runs: int) -> tuple[list[float], object]:
    """Wall seconds of ``runs`` calls of ``fn`` (after one warm-up call),
    and the warm-up's result."""
    out = fn()
    return timed(fn, runs), out


def spread(xs: list[float], scale: float = 1000.0, unit: str = "ms", fmt: str = "{:,.1f}") -> str:
    if len(xs) < 2:
        return "1 run"
    return f"{len(xs)} runs, {fmt.format(min(xs) * scale)}–{fmt.format(max(xs) * scale)} {unit}"


def affray_cmd() -> list[str]:
    """How to run the installed ``affray`` console script of this interpreter."""
    exe = Path(sys.executable).with_name("affray")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("affray")
    if found:
        return [found]
    return [sys.executable, "-c", "from affray.cli.main import main; main()"]


def run_cli(argv: list[str], runs: int) -> tuple[list[float], int]:
    """Wall seconds of ``runs`` subprocess runs of ``argv`` (one warm-up run first)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AFFRAY_")}
    env["AFFRAY_ACTOR"] = "bench"
    # Measure what an installed affray costs: with compiled bytecode cached (an
    # editable install under PYTHONDONTWRITEBYTECODE would recompile every
    # module on every run). The bytecode goes to a temporary folder, not into src/.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)

    def once() -> float:
        t = time.perf_counter()
        proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        dt = time.perf_counter() - t
        if proc.returncode != 0:
            raise SystemExit(f"bench: {' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
        return dt

    once()
    return [once() for _ in range(runs)], runs


MEMORY_PROBE = textwrap.dedent(
    """
    import json, resource, sys, time, tracemalloc
    from affray.projections.snapshots import replay
    from affray.projections.timeline import project
    from affray.store import EventStore

    def hwm_kib():
        # VmHWM is this process's own peak RSS; ru_maxrss can carry the parent's
        # peak across fork+exec on Linux
        try:
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    path, eid, mode, how = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    store = EventStore(path, readonly=True)
    base = hwm_kib()
    if mode == "tracemalloc":
        tracemalloc.start()
    t = time.perf_counter()
    state = replay(store, eid) if how == "replay" else project(list(store.read(eid)))
    dt = time.perf_counter() - t
    out = {"version": state.version, "seconds": dt, "base_kib": base, "peak_kib": hwm_kib()}
    if mode == "tracemalloc":
        out["traced_peak"] = tracemalloc.get_traced_memory()[1]
    print(json.dumps(out))
    """
)


def memory_probe(path: Path, eid: str, mode: str, how: str = "replay") -> dict:
    """Peak memory of one full replay in a fresh process: ``how`` is
    ``replay`` (the streaming path) or ``project`` (the list path)."""
    proc = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, str(path), eid, mode, how], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise SystemExit(f"bench: memory probe failed: {proc.stderr[-800:]}")
    return json.loads(proc.stdout)


def replay_stages(store: EventStore, eid: str, runs: int) -> dict:
    """``replay(store, eid)`` taken apart, each stage timed on its own:
    the meta events through the type index (``read_meta`` + ``Timeline``),
    the SQL of ``fold_rows`` alone (rows stepped, nothing decoded), decoding
    the events the fold reads (from rows already fetched), and
    ``evolve.fold_rows`` over rows already fetched (its decode and its
    handlers). ``"_check"`` is the folded state."""
    from affray.projections.evolve import fold_rows, folded_tags
    from affray.store.sqlite import _SELECT_ROWS as select_rows  # the very query fold_rows reads

    args = (eid, 1, 2**63 - 1)
    conn = store._conn  # the bench looks inside: this is the store's own connection

    def sql_only() -> int:
        n = 0
        for _ in conn.execute(select_rows, args):
            n += 1
        return n

    s_meta, metas = stage(lambda: store.read_meta(eid), runs)
    s_dead, dead = stage(lambda: frozenset(Timeline(metas).retracted), runs)
    s_sql, n = stage(sql_only, runs)
    assert n == store.version(eid), (n, store.version(eid))
    rows = conn.execute(select_rows, args).fetchall()
    folded = folded_tags()
    typed, decode = codec.typed_decoder, codec.decode
    dead_b = {c.encode() for c in dead}

    def decode_rows() -> int:
        k = 0
        for c, key, d in rows:
            tag, _, schema = key.decode().partition("@")
            if tag in folded and c not in dead_b:
                schema = int(schema or 1)
                (typed(tag)(d) if codec.CURRENT_SCHEMA.get(tag) == schema else decode(tag, schema, d))
                k += 1
        return k

    s_decode, _ = stage(decode_rows, runs)
    s_fold, (state, _read) = stage(lambda: fold_rows(State(), rows, dead), runs)
    rows.clear()  # the rows of a long log: free them before the next measure
    return {
        "meta events (`read_meta`: 3 type queries) + `Timeline(metas)`": [a + b for a, b in zip(s_meta, s_dead)],
        "SQL only (`fold_rows`'s rows through the version index, stepped, no decode)": s_sql,
        "decode alone (the events the fold reads, msgspec)": s_decode,
        "`fold_rows` over rows already fetched (decode and handlers)": s_fold,
        "_check": state,
    }


# --------------------------------------------------------------------------- #
# machine notes
# --------------------------------------------------------------------------- #


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _filesystem(path: Path) -> str:
    """The filesystem type holding ``path`` (Linux /proc/mounts), for the fsync figure."""
    try:
        best, fstype = "", "?"
        target = str(path.resolve())
        for line in Path("/proc/mounts").read_text().splitlines():
            parts = line.split()
            if len(parts) >= 3 and (target == parts[1] or target.startswith(parts[1].rstrip("/") + "/")):
                if len(parts[1]) >= len(best):
                    best, fstype = parts[1], parts[2]
        return fstype
    except OSError:
        return "?"


def machine_notes(db: Path) -> str:
    try:
        from importlib.metadata import version

        versions = f"affray {version('affray')}, msgspec {version('msgspec')}, typer {version('typer')}"
    except Exception:  # noqa: BLE001 - notes only
        versions = f"msgspec {msgspec.__version__}"
    try:
        mem_kib = int(next(l for l in Path("/proc/meminfo").read_text().splitlines() if l.startswith("MemTotal")).split()[1])
        mem = f", {mem_kib / 1024 / 1024:.0f} GiB RAM"
    except (OSError, StopIteration, ValueError):
        mem = ""
    load = f"; 1-minute load average {START_LOAD} at the start" if START_LOAD else ""
    return (
        f"{_cpu_model()}, {os.cpu_count()} cores{mem}{load}; {platform.system()} {platform.release()}; "
        f"CPython {platform.python_version()}, SQLite {sqlite3.sqlite_version}; {versions}; "
        f"log on {_filesystem(db.parent)} (WAL)"
    )


# --------------------------------------------------------------------------- #
# main
# --------------------------------------------------------------------------- #


def fmt_int(x: float) -> str:
    return f"{x:,.0f}"


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def load_cached(db: Path, meta_path: Path, target: int) -> tuple[str, BuildStats | None, dict] | None:
    """The cached build, if it is there and still readable by this affray."""
    if not (db.exists() and meta_path.exists()):
        return None
    try:
        meta = json.loads(meta_path.read_text())
        if meta.get("format") != BUILD_FORMAT or meta.get("target") != target:
            return None
        with EventStore(db, readonly=True) as store:
            eid = meta["encounter_id"]
            if store.version(eid) != meta["full"]["events"]:
                return None
            for _ in store.read(eid, from_version=1, to_version=50):  # still decodes
                pass
        return eid, None, meta
    except Exception as exc:  # noqa: BLE001 - any doubt: rebuild
        print(f"(cached log unusable, rebuilding: {exc})", file=sys.stderr)
        return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=None, help="size of the encounter (default 100000; 2000 with --smoke)")
    ap.add_argument("--smoke", action="store_true", help="small and quick: ~2,000 events, 1 repetition (for CI)")
    ap.add_argument("--reuse", action="store_true", help="reuse the cached log of the same size instead of rebuilding")
    ap.add_argument("--runs", type=int, default=None, help="repetitions of each in-process measure (default 5)")
    ap.add_argument("--cli-runs", type=int, default=None, help="repetitions of each CLI measure (default 10)")
    ap.add_argument("--cache", type=Path, default=CACHE, help=f"where the built log is kept (default {CACHE})")
    ap.add_argument("--json", type=Path, default=None, help="also write every figure to this JSON file")
    args = ap.parse_args(argv)

    global START_LOAD
    try:
        START_LOAD = "%.2f" % os.getloadavg()[0]
    except (OSError, AttributeError):
        START_LOAD = ""
    target = args.events or (2_000 if args.smoke else 100_000)
    runs = args.runs or (1 if args.smoke else 5)
    cli_runs = args.cli_runs or (1 if args.smoke else 10)
    started = time.perf_counter()
    args.cache.mkdir(parents=True, exist_ok=True)
    ignore = args.cache / ".gitignore"
    if not ignore.exists():  # the cache never belongs in git, whatever the repo's .gitignore says
        ignore.write_text("# written by bench/bench.py: nothing in this folder is source\n*\n")
    db = args.cache / f"bench-{target}.db"
    meta_path = args.cache / f"bench-{target}.json"
    say = lambda msg: print(f"[{time.perf_counter() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)  # noqa: E731

    # ---- (a) build, FULL, and NORMAL for a prefix --------------------------
    cached = load_cached(db, meta_path, target) if args.reuse else None
    if cached is not None:
        eid, _, meta = cached
        say(f"reusing {db} (built {meta['built_at']})")
    else:
        prefix = min(target, NORMAL_PREFIX)
        say(f"building {target:,} events at synchronous=FULL in {db} ...")
        eid, full = build(db, target, "FULL", prefix=prefix)
        say(f"  {full.events:,} events, {full.commands:,} commands in {full.seconds:.1f} s")
        with tempfile.TemporaryDirectory(prefix="affray-bench-") as tmp:
            say(f"building {prefix:,} events at synchronous=NORMAL (temporary) ...")
            _, normal = build(Path(tmp) / "normal.db", prefix, "NORMAL")
        meta = {
            "format": BUILD_FORMAT,
            "target": target,
            "encounter_id": eid,
            "built_at": time.strftime("%Y-%m-%d %H:%M:%S"),
            "full": full.summary(),
            "normal": normal.summary(),
        }
        meta_path.write_text(json.dumps(meta, indent=2))
    full, normal = meta["full"], meta["normal"]
    n_events = full["events"]
    db_mib = sum(Path(str(db) + s).stat().st_size for s in ("", "-wal") if Path(str(db) + s).exists()) / 2**20

    with EventStore(db, readonly=True) as store:
        # ---- (b) full replay ------------------------------------------------
        say(f"full replay x{runs} ...")
        head = replay_state(store, eid)  # warms the page cache
        assert head.version == n_events, (head.version, n_events)
        assert project(list(store.read(eid))) == head, "replay() and project() disagree"
        replay_cpu: list[float] = []
        replay = timed(lambda: replay_state(store, eid), runs, replay_cpu)
        listed_cpu: list[float] = []
        listed = timed(lambda: project(list(store.read(eid))), runs, listed_cpu)

        # where replay()'s time goes, one stage at a time (medians of `runs`)
        say("replay stages ...")
        stages = replay_stages(store, eid, runs)
        assert msgspec.structs.replace(stages.pop("_check"), version=head.version) == head
        # and the list path's
        s_read, records = stage(lambda: list(store.read(eid)), runs)
        s_tl, tl = stage(lambda: Timeline(records), runs)
        s_fold, _ = stage(lambda: fold(State(), tl.live_records()), runs)
        del records, tl
        list_stages = {
            "read + decode (`list(store.read(eid))`)": s_read,
            "`Timeline(records)`": s_tl,
            "fold (`fold` over the live records)": s_fold,
        }

        # ---- (c) time travel ------------------------------------------------
        old_version = n_events // 2 + SNAPSHOT_EVERY // 2 + 7  # mid-log, between snapshots
        mid_round = max(1, head.round // 2)
        say(f"state at version {old_version:,} and round {mid_round} ...")
        snap_v = timed(lambda: load_state(store, eid, at_version=old_version), runs * 4)
        nosnap_v = timed(lambda: load_state(store, eid, at_version=old_version, use_snapshots=False), runs)
        assert load_state(store, eid, at_version=old_version) == load_state(
            store, eid, at_version=old_version, use_snapshots=False
        )
        head_v = timed(lambda: load_state(store, eid), runs * 4)
        mid_step = (mid_round, 2)
        for point in ((mid_round, None), mid_step):
            assert state_at_store(store, eid, *point) == state_at(list(store.read(eid)), *point), point
        at_round = timed(lambda: state_at_store(store, eid, mid_round), runs * 4)
        at_step = timed(lambda: state_at_store(store, eid, *mid_step), runs * 4)
        at_round_full = timed(lambda: state_at(list(store.read(eid)), mid_round), max(1, min(runs, 3)))
        n_snapshots = len(store.snapshots(eid))

    # ---- (d) the CLI, as a user sees it -----------------------------------
    say(f"CLI x{cli_runs} ...")
    affray = affray_cmd()
    cli = {}
    for key, argv_ in [
        ("pass", [sys.executable, "-c", "pass"]),
        ("typer", [sys.executable, "-c", "import typer"]),
        ("import", [sys.executable, "-c", "import affray.cli.app"]),
        ("help", affray + ["--help"]),
        ("state", affray + ["--db", str(db), "state"]),
        ("state_json", affray + ["--db", str(db), "state", "--json"]),
        ("state_version", affray + ["--db", str(db), "state", "--version", str(old_version)]),
        ("state_at", affray + ["--db", str(db), "state", "--at", str(mid_round)]),
        ("state_at_step", affray + ["--db", str(db), "state", "--at", f"{mid_step[0]}.{mid_step[1]}"]),
    ]:
        cli[key], _ = run_cli(argv_, cli_runs)

    # ---- (e) memory --------------------------------------------------------
    say("peak memory of a replay (subprocesses) ...")
    rss = memory_probe(db, eid, "rss")
    traced = memory_probe(db, eid, "tracemalloc")
    rss_list = memory_probe(db, eid, "rss", "project")
    traced_list = memory_probe(db, eid, "tracemalloc", "project")
    elapsed = time.perf_counter() - started

    # ---- report -------------------------------------------------------------
    replay_rate = n_events / med(replay)
    listed_rate = n_events / med(listed)
    state_ms = med(cli["state"]) * 1000
    ms = lambda xs: f"{med(xs) * 1000:,.1f} ms"  # noqa: E731
    rate_line = lambda b: (  # noqa: E731
        f"{b['commands'] / b['seconds']:,.0f} commands/s ({b['events'] / b['seconds']:,.0f} events/s; "
        f"p50 {b['p50_ms']:.2f} ms, p99 {b['p99_ms']:.2f} ms per command)"
    )
    prefix_rate = (
        f"{full['prefix_commands'] / full['prefix_seconds']:,.0f} commands/s"
        if full.get("prefix_seconds") else "n/a"
    )
    rows_ = [
        ("Bench log (built through `execute()`)",
         f"{n_events:,} events, {full['commands']:,} commands, {full['rounds']:,} rounds, "
         f"{n_snapshots:,} snapshots, {db_mib:,.1f} MiB", ""),
        ("Append, `synchronous=FULL`, 1 command per transaction (whole build)", rate_line(full), ""),
        (f"Append, `synchronous=FULL`, last {full.get('tail_commands', 0):,} commands of the build",
         f"{full.get('tail_rate', 0):,.0f} commands/s", ""),
        (f"Append, `synchronous=FULL`, first {normal['events']:,} events", prefix_rate, ""),
        (f"Append, `synchronous=NORMAL`, first {normal['events']:,} events", rate_line(normal), ""),
        ("Full replay `replay(store, eid)` (the path `load_state` and the CLI use)",
         f"**{replay_rate:,.0f} events/s** ({ms(replay)}; {spread(replay)}; CPU {ms(replay_cpu)})",
         f"≥ {TARGET_REPLAY:,} events/s: {verdict(replay_rate >= TARGET_REPLAY)}"),
        ("Full replay, list path `project(list(store.read(eid)))` (for comparison)",
         f"{listed_rate:,.0f} events/s ({ms(listed)}; {spread(listed)}; CPU {ms(listed_cpu)})", ""),
        (f"State at version {old_version:,}, with snapshots (`load_state(at_version=)`)",
         f"{ms(snap_v)} ({spread(snap_v)})", ""),
        (f"State at version {old_version:,}, no snapshots (`use_snapshots=False`)",
         f"{ms(nosnap_v)} ({spread(nosnap_v)})", ""),
        ("State at the head, with snapshots (`load_state`)", f"{ms(head_v)} ({spread(head_v)})", ""),
        (f"State at the end of round {mid_round:,} (`state_at_store`, the `--at` path, from snapshots)",
         f"{ms(at_round)} ({spread(at_round)})", ""),
        (f"State after step {mid_step[0]}.{mid_step[1]} (`state_at_store`)", f"{ms(at_step)} ({spread(at_step)})", ""),
        (f"State at the end of round {mid_round:,}, whole log (`state_at(list(store.read(eid)))`, the reference)",
         f"{ms(at_round_full)} ({spread(at_round_full)})", ""),
        ("`affray state` on the bench log (wall, subprocess)",
         f"**{state_ms:,.0f} ms** ({spread(cli['state'])})",
         f"≤ {TARGET_STATE_MS:.0f} ms: {verdict(state_ms <= TARGET_STATE_MS)}"),
        ("`affray state --json`", f"{ms(cli['state_json'])} ({spread(cli['state_json'])})", ""),
        (f"`affray state --version {old_version}`", f"{ms(cli['state_version'])} ({spread(cli['state_version'])})", ""),
        (f"`affray state --at {mid_round}`", f"{ms(cli['state_at'])} ({spread(cli['state_at'])})", ""),
        (f"`affray state --at {mid_step[0]}.{mid_step[1]}`",
         f"{ms(cli['state_at_step'])} ({spread(cli['state_at_step'])})", ""),
        ("`affray --help`", f"{ms(cli['help'])} ({spread(cli['help'])})", ""),
        ("`python -c \"import affray.cli.app\"`", f"{ms(cli['import'])} ({spread(cli['import'])})", ""),
        ("`python -c \"import typer\"` (the CLI framework alone)", f"{ms(cli['typer'])} ({spread(cli['typer'])})", ""),
        ("`python -c pass` (interpreter start-up)", f"{ms(cli['pass'])} ({spread(cli['pass'])})", ""),
        ("Peak memory of a full replay, `replay` (fresh process)",
         f"{rss['peak_kib'] / 1024:,.0f} MiB RSS ({rss['base_kib'] / 1024:,.0f} MiB after imports); "
         f"tracemalloc peak {traced['traced_peak'] / 2**20:,.1f} MiB", ""),
        ("Peak memory of a full replay, `project(list(...))` (fresh process)",
         f"{rss_list['peak_kib'] / 1024:,.0f} MiB RSS ({rss_list['base_kib'] / 1024:,.0f} MiB after imports); "
         f"tracemalloc peak {traced_list['traced_peak'] / 2**20:,.0f} MiB", ""),
    ]
    out = ["| Measure | Result | Target |", "|---|---|---|"]
    out += [f"| {a} | {b} | {c} |" for a, b, c in rows_]
    out.append("")
    out.append(f"Machine: {machine_notes(db)}. In-process figures are medians; "
               f"CLI figures are " + (f"medians of {cli_runs} runs" if cli_runs > 1 else "1 run")
               + " after one warm-up, with bytecode cached.")
    out.append("")
    for title, table in [
        (f"`replay(store, eid)`, stage by stage (medians of {runs} runs each; the stages run apart, "
         "so their sum is close to, not equal to, the whole):", stages),
        (f"`project(list(store.read(eid)))`, stage by stage (medians of {runs} runs each):", list_stages),
    ]:
        out.append(title)
        out.append("")
        out.append("| Stage | Time | Rate |")
        out.append("|---|---|---|")
        for name, xs in table.items():
            out.append(f"| {name} | {ms(xs)} ({spread(xs)}) | {n_events / med(xs):,.0f} events/s |")
        out.append("")
    out.append(f"Benchmark wall time: {elapsed:,.0f} s" + (" (log reused from cache)" if cached else "") + ".")
    print("\n".join(out))

    if args.json:
        args.json.write_text(json.dumps({
            "events": n_events, "build": meta, "replay_s": replay, "project_s": listed,
            "replay_stages_s": stages, "project_stages_s": list_stages,
            "old_version": old_version, "snap_s": snap_v, "nosnap_s": nosnap_v, "head_s": head_v,
            "mid_round": mid_round, "state_at_store_s": at_round, "state_at_store_step_s": at_step,
            "state_at_full_s": at_round_full, "cli_s": cli,
            "memory": {"rss": rss, "tracemalloc": traced, "rss_project": rss_list, "tracemalloc_project": traced_list},
            "wall_s": elapsed,
        }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
