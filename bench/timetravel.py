"""Time travel, ``why`` and the exports on a 1,000,000-event encounter.

    python bench/timetravel.py                  # build ~1,000,000 events (10-20 minutes on 2 cores), then measure
    python bench/timetravel.py --reuse          # reuse bench/.cache/timetravel-1000000.db if it is there
    python bench/timetravel.py --smoke          # ~3,000 events, one repetition (CI; no assertions)
    python bench/timetravel.py --events 200000 --json out.json

The encounter is built through the real command path, with bench/bench.py's
builder (``execute()`` for the setup, ``affray.commands.demo.autoplay`` for the
fight, one transaction per command; the demo duel with every hit location's
HP raised so that nobody goes down). Then, still through ``execute()``, the
next combatant to act takes the Defend action, so that the log ends with a
fresh condition whose cause is near the head, for ``why``.

What it measures (DESIGN.md invariant 7; README "Performance"):

a. the state at an old version (mid-log, between snapshots) with
   ``load_state(at_version=)``; the state at the end of a round and after a
   step (``state_at_store``, the ``affray state --at`` path);
b. ``why`` in-process, the whole of what the ``why`` verb does once the
   interpreter is up: open the store, find the encounter, load the state at
   the head, and build the chains from the store (``why_store``), for the
   condition nearest the head, for the oldest condition, and for a combatant
   with no subject (every condition); and ``affray why`` as a subprocess
   (wall time, interpreter start included), for reference;
c. each export format through the CLI (``affray export --format F --out
   FILE``, run in-process in a fresh subprocess): wall time, size, and peak
   memory (VmHWM of that process, imports included);
d. ``affray import`` of the whole jsonl export into a new file (a fresh
   subprocess: wall time and peak memory), and a check that the copy's head
   hash is the original's.

Figures are medians; a markdown table ready for the README is printed at the
end. Nothing is asserted, but each target is marked met or missed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench import CACHE, affray_cmd, build, machine_notes, remove_db, spread, timed  # noqa: E402

from affray.events import commands as cmd  # noqa: E402
from affray.commands.handler import execute  # noqa: E402
from affray.commands.demo import next_command  # noqa: E402
from affray.projections.snapshots import SNAPSHOT_EVERY, load_state  # noqa: E402
from affray.projections.travel import state_at_store  # noqa: E402
from affray.store import EventStore  # noqa: E402
from affray.views.export import FORMATS  # noqa: E402

BUILD_FORMAT = 1  # bump when the way the log is built changes (invalidates --reuse)
TARGET_STATE_MS = 5.0
TARGET_WHY_MS = 100.0
TARGET_EXPORT_MIB = 200.0


def med(xs: list[float]) -> float:
    return statistics.median(xs)


# --------------------------------------------------------------------------- #
# the log
# --------------------------------------------------------------------------- #


def defend_at_the_head(path: Path, eid: str) -> dict:
    """Play on (autoplay's choices) until a combatant's turn, and have that
    combatant Defend: a condition caused at the head of the log."""
    with EventStore(path) as store:
        state = load_state(store, eid)
        for _ in range(200):
            step = state.pending[0] if state.pending else None
            if step is not None and step.kind == "turn":
                out = execute(store, cmd.TakeAction(who=step.who, action="defend"), encounter_id=eid, actor="bench")
                c = out.state.combatants[step.who]
                cond = max(c.conditions, key=lambda x: x.cause)
                return {"handle": c.handle, "condition": cond.id, "cause": cond.cause}
            command = next_command(state)
            if command is None:
                break
            state = execute(store, command, encounter_id=eid, actor="bench").state
    raise SystemExit("timetravel: no turn came up to Defend on")


def get_log(cache: Path, target: int, reuse: bool, say) -> tuple[Path, dict]:
    db = cache / f"timetravel-{target}.db"
    meta_path = cache / f"timetravel-{target}.json"
    if reuse and db.exists() and meta_path.exists():
        try:
            meta = json.loads(meta_path.read_text())
            with EventStore(db, readonly=True) as store:
                ok = meta.get("format") == BUILD_FORMAT and store.version(meta["encounter_id"]) == meta["events"]
            if ok:
                say(f"reusing {db} (built {meta['built_at']})")
                return db, meta
        except Exception as exc:  # noqa: BLE001 - any doubt: rebuild
            say(f"(cached log unusable, rebuilding: {exc})")
    say(f"building {target:,} events through execute() in {db} (synchronous=NORMAL) ...")
    t = time.perf_counter()
    eid, stats = build(db, target, "NORMAL")
    fresh = defend_at_the_head(db, eid)
    with EventStore(db, readonly=True) as store:
        events = store.version(eid)
    meta = {
        "format": BUILD_FORMAT,
        "target": target,
        "encounter_id": eid,
        "events": events,
        "commands": stats.commands + 1,
        "rounds": stats.rounds,
        "build_seconds": time.perf_counter() - t,
        "built_at": time.strftime("%Y-%m-%d %H:%M:%S"),
        "fresh": fresh,
    }
    meta_path.write_text(json.dumps(meta, indent=2))
    say(f"  {events:,} events, {meta['commands']:,} commands in {meta['build_seconds']:.0f} s")
    return db, meta


# --------------------------------------------------------------------------- #
# probes in fresh processes
# --------------------------------------------------------------------------- #

PROBE = textwrap.dedent(
    """
    import json, sys, time

    def hwm_kib():
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0

    argv = json.loads(sys.argv[1])
    from affray.cli.app import app  # the whole CLI, as the console script loads it
    base = hwm_kib()
    t = time.perf_counter()
    try:
        app(argv, prog_name="affray", standalone_mode=False)
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    dt = time.perf_counter() - t
    print(json.dumps({"seconds": dt, "base_kib": base, "peak_kib": hwm_kib(), "code": code}), file=sys.stderr)
    """
)


def probe(argv: list[str]) -> dict:
    """Run ``affray ARGV`` in-process in a fresh interpreter; its time and
    peak RSS (VmHWM), imports included."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AFFRAY_")}
    env["AFFRAY_ACTOR"] = "bench"
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(argv)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, env=env,
    )
    last = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ""
    try:
        out = json.loads(last)
    except ValueError:
        raise SystemExit(f"timetravel: probe {argv} failed: {proc.stderr[-800:]}") from None
    if out["code"]:
        raise SystemExit(f"timetravel: affray {' '.join(argv)} exited {out['code']}: {proc.stderr[-800:]}")
    return out


def wall(argv: list[str], runs: int) -> list[float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AFFRAY_")}
    out = []
    for i in range(runs + 1):
        t = time.perf_counter()
        proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        if proc.returncode:
            raise SystemExit(f"timetravel: {' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
        if i:  # the first run warms the caches
            out.append(time.perf_counter() - t)
    return out


# --------------------------------------------------------------------------- #
# main
# --------------------------------------------------------------------------- #


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=None, help="size of the encounter (default 1000000; 3000 with --smoke)")
    ap.add_argument("--smoke", action="store_true", help="small and quick: ~3,000 events, 1 repetition (for CI)")
    ap.add_argument("--reuse", action="store_true", help="reuse the cached log of the same size instead of rebuilding")
    ap.add_argument("--runs", type=int, default=None, help="repetitions of each in-process measure (default 20)")
    ap.add_argument("--cache", type=Path, default=CACHE, help=f"where the built log is kept (default {CACHE})")
    ap.add_argument("--json", type=Path, default=None, help="also write every figure to this JSON file")
    args = ap.parse_args(argv)

    target = args.events or (3_000 if args.smoke else 1_000_000)
    runs = args.runs or (1 if args.smoke else 20)
    started = time.perf_counter()
    args.cache.mkdir(parents=True, exist_ok=True)
    ignore = args.cache / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# written by the benchmarks: nothing in this folder is source\n*\n")
    say = lambda msg: print(f"[{time.perf_counter() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)  # noqa: E731

    db, meta = get_log(args.cache, target, args.reuse, say)
    eid, n = meta["encounter_id"], meta["events"]
    fresh = meta["fresh"]
    db_mib = sum(Path(str(db) + s).stat().st_size for s in ("", "-wal") if Path(str(db) + s).exists()) / 2**20

    from affray.commands.lookup import resolve_encounter
    from affray.rules.base import find_combatant
    from affray.views.why import why_store

    # ---- (a) state at an old version, a round, a step ----------------------
    with EventStore(db, readonly=True) as store:
        head = load_state(store, eid)
        old_version = n // 3 + SNAPSHOT_EVERY // 2 + 7  # an old point, between snapshots
        mid_round = max(1, head.round // 3)
        say(f"state at version {old_version:,}, round {mid_round} ...")
        load_state(store, eid, at_version=old_version)
        at_version = timed(lambda: load_state(store, eid, at_version=old_version), runs)
        state_at_store(store, eid, mid_round)
        at_round = timed(lambda: state_at_store(store, eid, mid_round), runs)
        at_step = timed(lambda: state_at_store(store, eid, mid_round, 2), runs)
        oldest = min(
            ((c.handle, x) for c in head.combatants.values() for x in c.conditions), key=lambda hx: hx[1].cause
        )
        some = next((c.handle for c in head.combatants.values() if c.conditions), fresh["handle"])

    # ---- (b) why ------------------------------------------------------------
    def why_verb(who: str, subject: str) -> dict:
        """What ``affray why WHO SUBJECT`` does once the interpreter is up."""
        with EventStore(db, readonly=True) as store:
            e = resolve_encounter(store, eid)
            state = load_state(store, e)
            return why_store(store, e, state, find_combatant(state, who), subject)

    questions = [
        (f"`why {fresh['handle']} {fresh['condition']}` (cause at version {fresh['cause']:,}, near the head)",
         fresh["handle"], fresh["condition"]),
        (f"`why {oldest[0]} {oldest[1].id}` (cause at version {oldest[1].cause:,}, the oldest)",
         oldest[0], oldest[1].id),
        (f"`why {some}` (no subject: every condition)", some, ""),
    ]
    why_times = {}
    for label, who, subject in questions:
        say(f"why {who} {subject} x{runs} ...")
        got = why_verb(who, subject)
        assert got["chains"], (who, subject)
        why_times[label] = timed(lambda: why_verb(who, subject), runs)
    say("affray why (subprocess) ...")
    why_cli = wall(affray_cmd() + ["--db", str(db), "-e", eid, "why", fresh["handle"], fresh["condition"]], min(runs, 5))

    # ---- (c) exports ----------------------------------------------------------
    exports = {}
    with tempfile.TemporaryDirectory(prefix="affray-timetravel-") as tmp:
        for fmt in FORMATS:
            path = Path(tmp) / f"fight.{fmt}"
            say(f"export --format {fmt} ...")
            got = probe(["--db", str(db), "-e", eid, "export", "--format", fmt, "--secret", "--out", str(path)])
            got["bytes"] = path.stat().st_size
            exports[fmt] = got
            if fmt != "jsonl":
                path.unlink()
        # ---- (d) import -----------------------------------------------------
        copy = Path(tmp) / "copy.db"
        say("import (jsonl) ...")
        imported = probe(["--db", str(copy), "import", str(Path(tmp) / "fight.jsonl")])
        with EventStore(db, readonly=True) as a, EventStore(copy, readonly=True) as b:
            same = [r[9] for r in a.read_raw(eid, from_version=n)] == [r[9] for r in b.read_raw(eid, from_version=n)]
            same = same and b.version(eid) == n
        imported["same_head_hash"] = same
        remove_db(copy)
    elapsed = time.perf_counter() - started

    # ---- report ---------------------------------------------------------------
    ms = lambda xs: f"{med(xs) * 1000:,.1f} ms"  # noqa: E731
    verdict = lambda ok: "met" if ok else "**missed**"  # noqa: E731
    mib = lambda kib: kib / 1024  # noqa: E731
    rows = [
        ("The log (built through `execute()`)",
         f"{n:,} events, {meta['commands']:,} commands, {head.round:,} rounds, {db_mib:,.0f} MiB", ""),
        (f"State at version {old_version:,} (`load_state(at_version=)`, from the nearest snapshot)",
         f"**{ms(at_version)}** ({spread(at_version)})", f"≤ {TARGET_STATE_MS:g} ms: {verdict(med(at_version) * 1000 <= TARGET_STATE_MS)}"),
        (f"State at the end of round {mid_round:,} (`state_at_store`, `state --at {mid_round}`)",
         f"{ms(at_round)} ({spread(at_round)})", ""),
        (f"State after step {mid_round}.2 (`state_at_store`)", f"{ms(at_step)} ({spread(at_step)})", ""),
    ]
    for label, xs in why_times.items():
        rows.append((label + ", in-process: open, state, chains", f"**{ms(xs)}** ({spread(xs)})",
                     f"≤ {TARGET_WHY_MS:g} ms: {verdict(med(xs) * 1000 <= TARGET_WHY_MS)}"))
    rows.append(("`affray why` as a subprocess (interpreter start and imports included)",
                 f"{ms(why_cli)} ({spread(why_cli)})", ""))
    for fmt, got in exports.items():
        peak = mib(got["peak_kib"])
        rows.append((f"`export --format {fmt} --secret --out FILE`",
                     f"{got['seconds']:,.1f} s, {got['bytes'] / 2**20:,.0f} MiB written; peak {peak:,.0f} MiB RSS "
                     f"({mib(got['base_kib']):,.0f} MiB after imports)",
                     f"≤ {TARGET_EXPORT_MIB:g} MiB: {verdict(peak <= TARGET_EXPORT_MIB)}"))
    rows.append(("`import` of that jsonl into a new file",
                 f"{imported['seconds']:,.1f} s; peak {mib(imported['peak_kib']):,.0f} MiB RSS; "
                 f"head hash {'identical' if imported['same_head_hash'] else '**differs**'}", ""))
    out = ["| Measure | Result | Target |", "|---|---|---|"]
    out += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    out.append("")
    out.append(f"Machine: {machine_notes(db)}. In-process figures are medians of {runs} runs after one warm-up; "
               "each export and the import ran once, in a fresh process.")
    out.append("")
    out.append(f"Benchmark wall time: {elapsed:,.0f} s" + (f" (the log was built in {meta['build_seconds']:,.0f} s)" if 'build_seconds' in meta else "") + ".")
    print("\n".join(out))
    if args.json:
        args.json.write_text(json.dumps({
            "meta": meta, "old_version": old_version, "state_at_version_s": at_version,
            "state_at_round_s": at_round, "state_at_step_s": at_step,
            "why_s": why_times, "why_cli_s": why_cli, "exports": exports, "import": imported, "wall_s": elapsed,
        }, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
