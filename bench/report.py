"""Issue 17's benchmarks in one run, one after the other, in one report.

    python bench/report.py                       # the full figures (logs cached in bench/.cache/)
    python bench/report.py --smoke               # every part in its smoke mode (CI)
    python bench/report.py --only cli ratios     # some parts only
    python bench/report.py --out report.md       # also write the report to a file

Each part is one of the scripts beside this one, run in its own process
with the arguments below, so that its figures and the anchors they are
paired with (``python -c pass``, the raw limit, the peer library, the notes
typed meanwhile) come from the same run:

- ``cli``: every verb's latency on a small log and a 100,000-event encounter,
  as a ratio to ``python -c pass`` (``bench/cli.py``);
- ``ratios``: replay and durable append against the raw limit, in CPU time
  (``bench/ratios.py``);
- ``peer``: the same log replayed and appended by affray, the raw limit and
  the ``eventsourcing`` library (``bench/peer.py --events 100000``; without
  the library, ``pip install -e '.[bench]'``, its column is left out);
- ``amend``: ``amend --replay`` on 15,000 events and the write lock it holds
  while another connection types notes (``bench/amend.py``);
- ``branch``: ``branch`` on 100,000 events, the same way (``bench/branch.py``);
- ``campaign``: 1,000 encounters of mixed systems with time travel, built once
  and kept (``bench/campaign.py``; ``--reuse`` once it is cached).

The parts run one at a time so they do not disturb each other; the 1-minute
load average is noted before each. A part that fails (exit code not 0)
fails the report, with its error output shown. Nothing is asserted about the
figures: they are for the README's Performance section.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _campaign_args(cache: Path, smoke: bool) -> list[str]:
    if smoke:
        return ["--smoke"]
    return ["--reuse"] if (cache / "campaign-1000.db").exists() else []


#: part -> (script, full-run arguments, what it is)
PARTS: dict[str, tuple[str, list[str], str]] = {
    "cli": ("cli.py", [], "CLI latency, verb by verb"),
    "ratios": ("ratios.py", [], "replay and durable append against the raw limit (CPU time)"),
    "peer": ("peer.py", ["--events", "100000", "--runs", "3", "--es-runs", "3"], "against eventsourcing and the raw limit"),
    "amend": ("amend.py", [], "amend --replay and the write lock"),
    "branch": ("branch.py", [], "branch and the write lock"),
    "campaign": ("campaign.py", [], "a campaign: encounters of every system, with time travel"),
}


def load_average() -> str:
    """The 1-minute load average as text (``"?"`` where the system has none)."""
    try:
        return "%.2f" % os.getloadavg()[0]
    except (OSError, AttributeError):
        return "?"


def run_part(name: str, smoke: bool, cache: Path) -> tuple[int, str, str, float, str, str]:
    """Run one part; ``(exit code, stdout, stderr, wall seconds, load before, the command)``."""
    script, full, _ = PARTS[name]
    args = ["--smoke"] if smoke else list(full)
    if name == "campaign":
        args = _campaign_args(cache, smoke)
    args += ["--cache", str(cache)]
    load = load_average()
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, str(HERE / script), *args], capture_output=True, text=True)
    shown = " ".join(["python", f"bench/{script}", *args[:-2]])  # without --cache
    return proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - started, load, shown


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true", help="every part in its smoke mode (CI)")
    ap.add_argument("--only", nargs="*", choices=list(PARTS), default=None, help="run only these parts")
    ap.add_argument("--out", type=Path, default=None, help="also write the report to this file")
    ap.add_argument("--cache", type=Path, default=HERE / ".cache", help="where the parts keep their logs")
    args = ap.parse_args(argv)
    names = args.only or list(PARTS)
    started = time.perf_counter()
    lines = [
        f"# affray benchmarks, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC"
        + (" (smoke mode: sizes too small for the figures to mean anything)" if args.smoke else ""),
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores; {platform.system()} {platform.release()}; "
        f"CPython {platform.python_version()}. Parts run one after the other: {', '.join(names)}.",
    ]
    failed = []
    for name in names:
        print(f"[{time.perf_counter() - started:7.1f}s] {name}: {PARTS[name][2]} ...", file=sys.stderr, flush=True)
        code, out, err, wall, load, shown = run_part(name, args.smoke, args.cache)
        lines += ["", f"## {name}: {PARTS[name][2]}", "",
                  f"`{shown}`: {wall:,.0f} s, 1-minute load {load} before it.", "", out.rstrip()]
        if code != 0:
            failed.append(name)
            lines += ["", f"**{name} failed (exit {code})**:", "", "```", err.rstrip()[-4000:], "```"]
    lines += ["", f"Report wall time {time.perf_counter() - started:,.0f} s."]
    report = "\n".join(lines) + "\n"
    sys.stdout.write(report)
    if args.out:
        args.out.write_text(report)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
