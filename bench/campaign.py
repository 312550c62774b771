"""affray on a realistic campaign: many encounters of mixed systems and
sizes, with undo, redo, rewind, amend, wounds and endings.

    python bench/campaign.py                      # 1,000 encounters (long: the build runs every command)
    python bench/campaign.py --encounters 100
    python bench/campaign.py --smoke              # 10 encounters (CI; no assertions)

Beside the endless duel of bench/bench.py (one encounter, no wounds that
end it, no time travel), this log looks like a GM's file after a campaign.
Each encounter is one of the demo scenarios of every system (mrq1 duel,
skirmish and grapple, mythras, rq3, rolemaster and uesrpg duels), opened
with its own seed and played by the autopilot in stretches of 3–30
commands, one transaction per command at ``synchronous=NORMAL``. Between
stretches, now and then: an undo (a third of them redone), a rewind back
one to five commands, a note, and in one encounter of ten an ``amend
--replay`` of its first attack. A fight that ends is closed. The log is
kept in ``bench/.cache/campaign-N.db`` (``--reuse`` measures it again).

Measured: the build; the file; a full replay of every encounter
(``replay``, the path ``load_state`` takes without snapshots) in events per
second of CPU; ``load_state`` of every encounter (from its snapshots); and
``affray state``/``pending``/``log --tail 20`` through the console script on
the largest encounter, with ``python -c pass`` as the floor. Nothing is
asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench  # noqa: E402  (bench/bench.py: cache, bytecode, the console script)
import cli  # noqa: E402  (bench/cli.py: the runner of the console script)

from affray.commands.amend import amend  # noqa: E402
from affray.commands.demo import SCENARIOS, autoplay, setup  # noqa: E402
from affray.commands.handler import execute  # noqa: E402
from affray.errors import AffrayError  # noqa: E402
from affray.events import commands as cmd  # noqa: E402
from affray.events import core as ev  # noqa: E402
from affray.projections.snapshots import load_state, replay  # noqa: E402
from affray.store import EventStore  # noqa: E402

FORMAT = 2  # bump when the build changes


def live_boundaries(store, eid: str, back: int) -> list[int]:
    """The last versions of the newest ``back`` commands (rewind points),
    read from the rows near the head."""
    head = store.version(eid)
    rows = list(store.read_raw(eid, from_version=max(1, head - 40 * back), to_version=head))
    ends = [a[2] for a, b in zip(rows, rows[1:]) if a[3] != b[3]]
    return ends[-back:]


def play(store, eid: str, rng: random.Random, counts: dict[str, int]) -> None:
    """Play one encounter to its end (or 400 commands) with time travel between stretches."""
    amended = rng.random() < 0.1
    for _ in range(60):
        try:
            state = autoplay(store, eid, actor="gm", max_commands=rng.randint(3, 30))
        except AffrayError:  # the autopilot has no answer to this step (a demo's limit): the GM ends here
            counts["stuck"] += 1
            break
        if state.phase in ("over", "closed") or not state.pending:
            break
        roll = rng.random()
        try:
            if roll < 0.15:
                execute(store, cmd.Undo(), encounter_id=eid, actor="gm")
                counts["undo"] += 1
                if rng.random() < 0.33:
                    execute(store, cmd.Redo(), encounter_id=eid, actor="gm")
                    counts["redo"] += 1
            elif roll < 0.25:
                points = live_boundaries(store, eid, rng.randint(2, 6))
                if points:
                    execute(store, cmd.Rewind(to_version=points[0]), encounter_id=eid, actor="gm")
                    counts["rewind"] += 1
            elif roll < 0.35:
                execute(store, cmd.AddNote(text=f"the GM rules on something {rng.random():.3f}"), encounter_id=eid, actor="gm")
                counts["note"] += 1
            elif amended and state.round >= 2:
                amended = False
                amend(store, cmd.AmendCommand(target="1.1", modifiers=(ev.Modifier(5, "campaign bench"),), replay=True),
                      encounter_id=eid, actor="gm")
                counts["amend"] += 1
        except AffrayError:
            counts["refused"] += 1
    state = load_state(store, eid)
    if state.phase != "closed":
        execute(store, cmd.CloseEncounter(reason="the session ends"), encounter_id=eid, actor="gm")
        counts["closed"] += 1


def build(path: Path, encounters: int, say) -> dict:
    bench.remove_db(path)
    rng = random.Random(17)
    counts = {k: 0 for k in ("undo", "redo", "rewind", "note", "amend", "refused", "stuck", "closed")}
    scenarios = sorted(SCENARIOS)
    t = time.perf_counter()
    with EventStore(path, synchronous="NORMAL") as store:
        for i in range(encounters):
            eid = setup(store, rng.choice(scenarios), seed=rng.randbytes(16), actor="gm")
            play(store, eid, rng, counts)
            if (i + 1) % max(1, encounters // 10) == 0:
                say(f"  {i + 1:,} encounters, {time.perf_counter() - t:,.0f} s")
    counts["build_s"] = time.perf_counter() - t
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true", help="10 encounters, 1 CLI run (CI)")
    ap.add_argument("--encounters", type=int, default=None, help="how many (default 1000; 10 with --smoke)")
    ap.add_argument("--reuse", action="store_true", help="measure the cached log again without rebuilding it")
    ap.add_argument("--runs", type=int, default=None, help="CLI runs per verb (default 7; 1 with --smoke)")
    ap.add_argument("--cache", type=Path, default=bench.CACHE, help=f"where the log is kept (default {bench.CACHE})")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    n = args.encounters or (10 if args.smoke else 1000)
    runs = args.runs or (1 if args.smoke else 7)
    started = time.perf_counter()
    say = lambda msg: print(f"[{time.perf_counter() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)  # noqa: E731
    bench.prepare_cache(args.cache)
    load = bench.load_average()
    db, meta = args.cache / f"campaign-{n}.db", args.cache / f"campaign-{n}.json"
    info = json.loads(meta.read_text()) if args.reuse and meta.exists() and db.exists() else None
    if info is None or info.get("format") != FORMAT:
        say(f"building {n:,} encounters in {db} ...")
        info = {"format": FORMAT, **build(db, n, say)}
        meta.write_text(json.dumps(info))
    with EventStore(db, readonly=True) as store:
        ids = store.encounter_ids()
        sizes = {eid: store.version(eid) for eid in ids}
        systems: dict[str, int] = {}
        for eid in ids:
            key = store.encounter_info(eid).system
            systems[key] = systems.get(key, 0) + 1
        say("full replay of every encounter ...")
        c = time.process_time()
        for eid in ids:
            replay(store, eid)
        replay_cpu = time.process_time() - c
        say("load_state of every encounter ...")
        c = time.process_time()
        for eid in ids:
            load_state(store, eid)
        load_cpu = time.process_time() - c
    events = sum(sizes.values())
    biggest = max(sizes, key=sizes.get)
    runner = cli.Runner()
    runner.time([sys.executable, "-c", "pass"])
    verbs = {"state": ["-e", biggest, "state"], "pending": ["-e", biggest, "pending"],
             "log --tail 20": ["-e", biggest, "log", "--tail", "20"], "list": ["list"]}
    samples = {}
    for name, argv_ in verbs.items():
        runner.pass_floor()
        runner.affray_time(db, argv_)
        samples[name] = [runner.affray_time(db, argv_) for _ in range(runs)]
    floor = runner.floor
    size = os.path.getsize(db)
    print("| measure | result |")
    print("|---|---|")
    print(f"| the campaign | {len(ids):,} encounters ({', '.join(f'{k} {v}' for k, v in sorted(systems.items()))}); "
          f"{events:,} events; {size / 2**20:,.1f} MiB |")
    print(f"| encounter sizes | median {statistics.median(sizes.values()):,.0f} events, largest {sizes[biggest]:,} ({biggest}) |")
    print(f"| time travel in it | {info['undo']:,} undos ({info['redo']:,} redone), {info['rewind']:,} rewinds, "
          f"{info['amend']:,} amends, {info['note']:,} notes, {info['refused']:,} refused; {info['closed']:,} closed "
          f"({info['stuck']:,} where the autopilot had no answer) |")
    print(f"| build (every command through `execute()`, synchronous=NORMAL) | {info['build_s']:,.0f} s |")
    print(f"| full replay of every encounter, CPU | {replay_cpu:,.2f} s: **{events / replay_cpu:,.0f} events/s** |")
    print(f"| `load_state` of every encounter (snapshots), CPU | {load_cpu:,.2f} s, {1000 * load_cpu / len(ids):,.1f} ms each |")
    for name, xs in samples.items():
        print(f"| `affray {name}` on the largest encounter | {cli.cell(xs, floor)} |")
    fw = sorted(f.wall for f in floor)
    print(f"| `python -c pass` (the floor) | {cli.med(fw) * 1000:,.0f} ms, CPU {cli.med([f.cpu for f in floor]) * 1000:,.0f} ms |")
    print(f"\n1-minute load {load} at the start. Benchmark wall time {time.perf_counter() - started:,.0f} s.")
    if args.json:
        args.json.write_text(json.dumps({"info": info, "events": events, "encounters": len(ids), "size": size,
                                         "replay_cpu_s": replay_cpu, "load_cpu_s": load_cpu,
                                         "samples": samples, "floor": floor}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
