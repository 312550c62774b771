"""The reader views on SQLite and on PostgreSQL, side by side in one run.

    python bench/views.py --postgres postgresql://postgres@/postgres?host=/tmp/pg
    python bench/views.py                  # AFFRAY_TEST_POSTGRES names the server (else SQLite only)
    python bench/views.py --events 2000    # smaller and quicker

One fight of about ``--events`` events (``bench.py``'s build: the autopilot
duel through ``execute``, one command per transaction) is built in a SQLite
file and copied into a fresh PostgreSQL schema with ``copy_log`` (what
``affray copy`` does). Each query of :data:`QUERIES` runs on both, best of
``--runs``. Then 1,000 undo, redo and rewind events are appended to the same
fight (every 20th a rewind to a random earlier version, the others undo or
redo a random command), copied again, and the queries timed again: the
views decide each event's status on every query, so these are their worst
case. Nothing is asserted: the figures go into the README (README, "SQL
views for readers").
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import sys
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench import build  # noqa: E402 - bench/bench.py beside this file

from affray.events.core import CommandRestored, CommandRetracted, EncounterRewound  # noqa: E402
from affray.store import EventStore, open_store  # noqa: E402
from affray.store.copying import copy_log  # noqa: E402

QUERIES = (
    "SELECT count(*) FROM event_log",
    "SELECT count(*) FROM dice_rolls",
    "SELECT * FROM combatants",
    "SELECT status, count(*) FROM event_log_all GROUP BY status",
)


def best_ms(run, runs: int) -> float:
    """The fastest of ``runs`` calls of ``run()``, in milliseconds."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def add_meta_events(db: Path, eid: str, count: int = 1000, seed: int = 1) -> None:
    """Append ``count`` undo, redo and rewind events to ``eid`` (raw, one
    command each: a stress for the views, not a fight anyone played)."""
    rng = random.Random(seed)
    with EventStore(str(db)) as store:
        commands = sorted({r.command_id for r in store.read(eid)})
        for i in range(count):
            version = store.version(eid)
            if i % 20 == 19:
                event = EncounterRewound(to_version=rng.randrange(1, version))
            elif i % 2:
                event = CommandRestored(command_id=rng.choice(commands))
            else:
                event = CommandRetracted(command_id=rng.choice(commands))
            store.append(eid, version, [event], command_id=f"bench-meta-{i}", actor="bench")


def fresh_schema(postgres: str) -> tuple[str, str]:
    """A new schema in ``postgres``: ``(its name, the URL that selects it)``."""
    import psycopg  # deferred: PostgreSQL is optional

    schema = "bench_" + uuid.uuid4().hex[:10]
    with psycopg.connect(postgres, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    return schema, f"{postgres}{'&' if '?' in postgres else '?'}options=-csearch_path%3D{schema}"


def measure(db: Path, postgres: str | None, runs: int, label: str) -> None:
    """Print each query's time on the SQLite file ``db`` and on a copy of it
    in PostgreSQL (when ``postgres`` is given)."""
    conns = {"SQLite": sqlite3.connect(db)}
    schema = ""
    if postgres:
        import psycopg  # deferred: PostgreSQL is optional

        schema, url = fresh_schema(postgres)
        with open_store(str(db), must_exist=True, readonly=True) as source, open_store(url) as target:
            copy_log(source, target)
        conns["PostgreSQL"] = psycopg.connect(url, autocommit=True)
        conns["PostgreSQL"].execute("ANALYZE")
    try:
        print(f"\n{label}")
        for sql in QUERIES:
            cells = [f"{name} {best_ms(lambda c=c: c.execute(sql).fetchall(), runs):8.1f} ms" for name, c in conns.items()]
            print(f"  {sql:<60} " + "   ".join(cells))
    finally:
        for conn in conns.values():
            conn.close()
        if schema:
            with psycopg.connect(postgres, autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA {schema} CASCADE")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--postgres", default=os.environ.get("AFFRAY_TEST_POSTGRES", ""),
                    help="libpq URL of a PostgreSQL server to create a schema in (default: AFFRAY_TEST_POSTGRES)")
    ap.add_argument("--events", type=int, default=20_000, help="size of the fight (default 20000)")
    ap.add_argument("--runs", type=int, default=3, help="repetitions of each query (default 3; the best is shown)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="affray-views-") as folder:
        db = Path(folder) / "views.db"
        eid, _ = build(db, args.events, "NORMAL")
        with EventStore(str(db), readonly=True) as store:
            events = store.version(eid)
        measure(db, args.postgres or None, args.runs, f"a fight of {events:,} events")
        add_meta_events(db, eid)
        measure(db, args.postgres or None, args.runs, f"the same with 1,000 undo, redo and rewind events (50 rewinds)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
