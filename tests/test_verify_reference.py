"""``affray verify``'s one fast pass finds the same problems as a plain check.

The pass (:func:`affray.verify.check_encounter`) hashes, decodes, folds and
re-derives the dice in one loop with its per-row work kept in locals
(issue 11, item 5). ``reference`` below does each check the plain way,
one after the other, over the whole log in memory: every row through
:meth:`ChainCheck.feed` (the plain chain check, with
:func:`affray.store.chain.canonical`), every snapshot against
:func:`project` of the log up to it, and every engine roll re-derived with
:func:`affray.dice.rederive` (the one-shot ``hmac.digest`` path, not the
pass's :class:`affray.dice.EngineKey`). Hypothesis then tampers with a real
log in the ways an attacker would (an edited field, an edited envelope, a
deleted or reordered row, an edited hash or head, a forged snapshot; the
chain re-hashed or not) and the two must agree line for line.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from affray import dice as dicelib
from affray.commands.demo import autoplay, setup
from affray.commands.handler import execute
from affray.errors import AffrayError
from affray.events import codec
from affray.events import commands as cmd
from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.projections.snapshots import dump, load_bound, load_state
from affray.projections.timeline import project
from affray.rules.base import RuleError
from affray.store import EventStore
from affray.store.chain import canonical, chain_hash
from affray.store.errors import DatabaseCorrupt
from affray.store.verify import ChainCheck
from affray.verify import check_encounter

DICE_TYPES = (ev.DiceRolled, ev.CommandIssued, ev.EncounterOpened, ev.SaltAdded)


# --------------------------------------------------------------------------- #
# The reference: each check done the plain way
# --------------------------------------------------------------------------- #


def reference(store: EventStore, eid: str, *, dice: bool) -> tuple[list[str], list[str]]:
    """``(chain problems, other problems)`` of ``eid``, the plain way. The
    other problems count only when the chain holds (``check_encounter``
    stops at a broken chain's problems; a log that is not intact says so first)."""
    rows = list(store.read_raw(eid))
    chain = ChainCheck(eid)
    records: list[Recorded] = []  # every row that decodes, in version order
    for seq, _e, version, command_id, type_, schema, data, at, actor, hash_ in rows:
        event = chain.feed(seq, version, command_id, type_, schema, data, at, actor, hash_)
        if event is not None:
            records.append(Recorded(seq=seq, encounter_id=eid, version=version, command_id=command_id, type=type_,
                                    schema=schema, event=event, recorded_at=at, actor=actor, hash=hash_))
    head = store.head(eid) if store.has_encounter(eid) else None
    found = chain.finish(head) or []
    other = _replay_problems(store, eid, records)
    if dice:
        other += _dice_problems(store, eid, records)
    return found, other


def _state_at(records: list[Recorded], upto: int):
    """``project`` of the records before index ``upto``; ``None`` when they do not replay."""
    try:
        return project(records[:upto])
    except (AffrayError, LookupError, TypeError, ValueError, AttributeError):
        return None


def _replay_problems(store, eid: str, records: list[Recorded]) -> list[str]:
    problems = []
    try:
        project(records)
    except AffrayError as exc:
        detail = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        problems.append(f"{eid} version ?: the log does not replay ({detail})")
    at = {r.version: i for i, r in enumerate(records)}
    for version, blob in store.snapshots(eid):
        if version not in at:
            continue
        state = _state_at(records, at[version] + 1)
        loaded = load_bound(blob)
        if state is None or loaded is None:
            continue
        cached, head_hash = loaded
        if head_hash and head_hash != records[at[version]].hash:
            problems.append(f"{eid}: snapshot at version {version} was taken at another head (a rewritten log, or a copied snapshot)")
        elif cached != msgspec.structs.replace(state, version=version):
            problems.append(f"{eid}: snapshot at version {version} differs from a replay")
    return problems


def _dice_problems(store, eid: str, records: list[Recorded]) -> list[str]:
    """The engine dice, walked command by command (a command's dice-type
    events, consecutive): each roll re-derived, the roll numbers dense from
    the state the command found, table dice equal to what was typed, salts
    past every drawn roll, the seed equal to its commitment."""
    problems: list[str] = []
    try:
        standing = store.salts(eid)
    except DatabaseCorrupt:  # a salt that is not JSON: reported as its row, its rolls then do not re-derive
        standing = []
    seed = None
    for _v, _c, schema, data in store.versions_of_type(eid, "encounter-closed"):
        try:
            revealed = codec.decode("encounter-closed", schema, data).seed
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        if revealed:
            try:
                seed = bytes.fromhex(revealed)
            except ValueError:
                problems.append(f"{eid}: the revealed seed is not hex")
    if seed is None:
        try:
            seed = store.get_seed(eid)
        except DatabaseCorrupt:  # the opening event is not JSON: its row is reported
            seed = None
    stream, opened, high = eid, False, 0
    i = 0
    while i < len(records):
        rec = records[i]
        e = rec.event
        if not isinstance(e, DICE_TYPES):
            i += 1
            continue
        if isinstance(e, ev.EncounterOpened) and not opened:
            opened = True
            stream = e.dice_stream or eid
            if seed is not None and dicelib.commitment(seed) != e.seed_sha256:
                problems.append(f"{eid}: the seed does not match the commitment sha256 {e.seed_sha256[:16]}…")
                seed = None
        elif isinstance(e, ev.SaltAdded) and e.from_index < high:
            problems.append(
                f"{eid} version {rec.version}: the salt starts at roll #{e.from_index}, "
                f"but rolls up to #{high - 1} were drawn before it (a salt must never change a drawn roll)"
            )
        if not isinstance(e, (ev.DiceRolled, ev.CommandIssued)):
            i += 1
            continue
        # the command's dice: its DiceRolled and CommandIssued until a dice event of another command
        first = i
        while first > 0 and records[first - 1].command_id == rec.command_id and not isinstance(
                records[first - 1].event, (ev.CommandRetracted, ev.CommandRestored, ev.EncounterRewound)):
            first -= 1  # the command's first event: the state as the command found it is before it
        batch = []
        while i < len(records) and (not isinstance(records[i].event, DICE_TYPES) or records[i].command_id == rec.command_id):
            if isinstance(records[i].event, (ev.DiceRolled, ev.CommandIssued)):
                batch.append(records[i])
            elif isinstance(records[i].event, DICE_TYPES):
                break
            i += 1
        high = _check_command(problems, eid, seed, stream, standing, batch, _state_at(records, first), high)
    return problems


def _check_command(problems, eid, seed, stream, standing, batch, state, high) -> int:
    rolls = [r for r in batch if isinstance(r.event, ev.DiceRolled)]
    issued = next((r.event for r in batch if isinstance(r.event, ev.CommandIssued)), None)
    if not rolls:
        return high
    salt = issued.salt_text if issued is not None else ""
    if issued is not None and (issued.dice or any(r.event.source != "engine" for r in rolls)):
        table = [r.event for r in rolls if r.event.source == "table"]
        sides = [s for e in table for s in _sides(e.expr)]
        faces = [f for e in table for f in e.faces]
        try:
            typed = [dicelib.face_from_token(t, n, "") for t, n in zip(issued.dice, sides)]
        except (dicelib.DiceError, ValueError):
            typed = None
        if typed is None or len(issued.dice) != len(faces) or typed != faces:
            problems.append(
                f"{eid} version {rolls[0].version}: typed dice {','.join(map(str, faces)) or 'none'} "
                f"are not the dice its command typed ({','.join(issued.dice) or 'none'})"
            )
    expected = None if state is None else state.next_roll_index
    for r in rolls:
        e = r.event
        if e.source != "engine" or not e.faces:
            if e.source not in ("engine", "table"):
                problems.append(f"{eid} version {r.version}: roll source {e.source!r} is neither engine nor table")
            continue
        if e.index < 0:
            problems.append(f"{eid} version {r.version}: engine roll {e.expr} ({e.purpose}) has no roll number")
            continue
        high = max(high, e.index + len(e.faces))
        if seed is not None:
            try:
                ok = dicelib.rederive(seed, stream, e, standing, salt) == tuple(e.faces)
            except (ValueError, dicelib.DiceError) as exc:
                problems.append(f"{eid} version {r.version}: engine roll #{e.index} {e.expr} cannot be re-derived ({exc})")
                ok = True
            if not ok:
                problems.append(f"{eid} version {r.version}: engine roll #{e.index} {e.expr} does not re-derive")
        if expected is not None:
            if e.index != expected:
                kind = "repeats" if e.index < expected else "skips to"
                problems.append(
                    f"{eid} version {r.version}: engine roll {kind} #{e.index} where the engine "
                    f"was at #{expected} (engine roll numbers run 0, 1, 2, ... along the live log)"
                )
            expected = e.index + len(e.faces)
    return high


def _sides(expr: str) -> tuple[int, ...]:
    try:
        return dicelib.parse(expr).dice
    except dicelib.DiceError:
        return ()


def fast(store: EventStore, eid: str, *, dice: bool) -> tuple[list[str], list[str]]:
    """``check_encounter``'s problems split as :func:`reference` splits them
    (the chain's lines name the encounter as ``encounter <id>``)."""
    report = check_encounter(store, eid, dice=dice)
    chain = [p for p in report.problems if p.startswith(f"encounter {eid} ")]
    assert report.chain_ok == (not chain)
    return chain, [p for p in report.problems if not p.startswith(f"encounter {eid} ")]


def same(store: EventStore, eid: str, *, dice: bool) -> list[str]:
    """Assert the pass and the reference agree; the problems found. Where
    a command's events are not consecutive (a command id edited, then
    re-hashed), only the chain's lines are compared: the pass's fold
    assumes they are, and differs from ``project`` there
    (:func:`test_a_command_split_by_an_edited_id_is_folded_as_project_folds_it`)."""
    chain, other = fast(store, eid, dice=dice)
    want_chain, want_other = reference(store, eid, dice=dice)
    assert sorted(chain) == sorted(want_chain)
    if not chain and consecutive_commands(store, eid):  # the deeper checks count once the chain holds
        assert sorted(_unplaced(other)) == sorted(_unplaced(want_other))
    return chain + other


def consecutive_commands(store: EventStore, eid: str) -> bool:
    """Whether each command id's events are one run in version order, as affray writes them."""
    seen, last = set(), None
    for row in store.read_raw(eid):
        if row[3] != last:
            if row[3] in seen:
                return False
            seen.add(row[3])
            last = row[3]
    return True


def _unplaced(lines: list[str]) -> list[str]:
    """A "does not replay" line names the version the pass was folding up
    to; the reason in brackets names the version that failed. Compare the reason."""
    out = []
    for line in lines:
        _where, sep, reason = line.partition(": the log does not replay (")
        out.append("the log does not replay (" + reason if sep else line)
    return out


# --------------------------------------------------------------------------- #
# A real log to tamper with
# --------------------------------------------------------------------------- #


@pytest.fixture(scope="module")
def fights(tmp_path_factory) -> dict[str, Path]:
    """Two logs, built once: an engine-dice duel with salts (standing and a
    command's own), undos and round-end snapshots; and a table-dice one."""
    out = {}
    base = tmp_path_factory.mktemp("reference")
    for name, manual in (("engine", False), ("table", True)):
        db = base / f"{name}.db"
        with EventStore(db, synchronous="NORMAL") as store:
            setup(store, "duel", seed=b"reference-seed-0123456789", manual=manual, actor="gm")
            store_id = store.encounter_ids()[0]
            for step in range(40):
                try:
                    if step in (3, 17):
                        execute(store, cmd.AddSalt(value=f"salt {step}"), encounter_id=store_id, actor="sam")
                    elif step in (8, 25):
                        execute(store, cmd.Undo(), encounter_id=store_id, actor="gm")
                    else:
                        autoplay(store, store_id, actor="gm", max_commands=1,
                                 table_rng=random.Random(step) if manual else None)
                except RuleError:
                    continue
        out[name] = db
    return out


def copy_log(src: Path, dest: Path) -> Path:
    shutil.copy(src, dest)
    keys = Path(f"{src}.keys")
    if keys.exists():
        shutil.copy(keys, f"{dest}.keys")
    return dest


def rehash(conn: sqlite3.Connection, eid: str) -> None:
    """Re-hash the chain and the head as affray would: what a GM holding the file can do."""
    prev = ""
    rows = conn.execute(
        "SELECT seq, version, command_id, type, schema, data, recorded_at, actor FROM events "
        "WHERE encounter_id = ? ORDER BY version", (eid,)
    ).fetchall()
    for seq, version, command_id, type_, schema, data, at, actor in rows:
        try:
            prev = chain_hash(prev, canonical(eid, version, command_id, type_, schema, at, actor, data))
        except (TypeError, ValueError):
            continue
        conn.execute("UPDATE events SET hash = ? WHERE seq = ?", (prev, seq))
    if rows:
        conn.execute("UPDATE heads SET version = ?, hash = ? WHERE encounter_id = ?", (rows[-1][1], prev, eid))


def _edit_value(value, n: int):
    """Another value of the same JSON shape (or, now and then, of another)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + (n % 5) - 2 or value + 1
    if isinstance(value, str):
        other = ["", "broo1", "vasana", "table", "engine", "1D6"][n % 6]
        return other if other != value else value + "x"
    if isinstance(value, list):
        if value and n % 3:
            j = n % len(value)
            return value[:j] + [_edit_value(value[j], n // 3)] + value[j + 1:]
        return value[:-1] if value else [n]
    if isinstance(value, dict) and set(value) - {"type"}:
        key = sorted(set(value) - {"type"})[n % len(set(value) - {"type"})]  # the tag stays the row's type
        return {**value, key: _edit_value(value[key], n // 7)}
    return n


TAMPERS = ("data", "garbage", "command_id", "actor", "type", "schema", "hash", "delete", "reorder", "head",
           "snapshot", "snapshot-head", "salt", "blob")


def tamper(db: Path, eid: str, how: str, pick: int, n: int, rehashed: bool) -> None:
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("DROP TRIGGER IF EXISTS events_no_update")
        conn.execute("DROP TRIGGER IF EXISTS events_no_delete")
        rows = conn.execute("SELECT seq, version, type, data FROM events WHERE encounter_id = ? ORDER BY version",
                            (eid,)).fetchall()
        seq, version, type_, data = rows[pick % len(rows)]
        if how == "data":
            edited = _edit_value(json.loads(data), n)
            if isinstance(edited, dict):
                edited["type"] = type_
            conn.execute("UPDATE events SET data = ? WHERE seq = ?", (json.dumps(edited, separators=(",", ":")), seq))
        elif how == "garbage":
            conn.execute("UPDATE events SET data = ? WHERE seq = ?", (data[: n % max(1, len(data))], seq))
        elif how in ("command_id", "actor"):
            other = rows[(pick + 1 + n) % len(rows)][0]
            conn.execute(f"UPDATE events SET {how} = (SELECT {how} FROM events WHERE seq = ?) WHERE seq = ?", (other, seq))
        elif how == "blob":  # the same bytes, stored as a BLOB: a field of the wrong type
            column = ["command_id", "recorded_at", "actor", "data"][n % 4]
            conn.execute(f"UPDATE events SET {column} = CAST({column} AS BLOB) WHERE seq = ?", (seq,))
        elif how == "type":
            conn.execute("UPDATE events SET type = ? WHERE seq = ?", (["dice-rolled", "skill-tested", "no-such"][n % 3], seq))
        elif how == "schema":
            conn.execute("UPDATE events SET schema = schema + ? WHERE seq = ?", (1 + n % 2, seq))
        elif how == "hash":
            conn.execute("UPDATE events SET hash = ? WHERE seq = ?", ("0" * 64, seq))
        elif how == "delete":
            conn.execute("DELETE FROM events WHERE seq = ?", (seq,))
        elif how == "reorder":
            other = rows[(pick + 1 + n % 3) % len(rows)][0]
            if other != seq:
                conn.execute("UPDATE events SET seq = -1 WHERE seq = ?", (seq,))
                conn.execute("UPDATE events SET seq = ? WHERE seq = ?", (seq, other))
                conn.execute("UPDATE events SET seq = ? WHERE seq = -1", (other,))
        elif how == "head":
            conn.execute("UPDATE heads SET version = version - ? WHERE encounter_id = ?", (n % 3, eid))
        elif how in ("snapshot", "snapshot-head"):
            snaps = conn.execute("SELECT version, data FROM snapshots WHERE encounter_id = ? ORDER BY version", (eid,)).fetchall()
            if snaps:
                at, blob = snaps[pick % len(snaps)]
                state, head_hash = load_bound(bytes(blob))
                if how == "snapshot":
                    forged = dump(msgspec.structs.replace(state, next_exchange=state.next_exchange + 1 + n % 3), head_hash)
                else:
                    forged = dump(state, "f" * 64)
                conn.execute("UPDATE snapshots SET data = ? WHERE encounter_id = ? AND version = ?", (forged, eid, at))
        elif how == "salt":
            salts = [r for r in rows if r[2] == "salt-added"]
            if salts:
                seq, _v, _t, data = salts[pick % len(salts)]
                edited = json.loads(data)
                edited["from_index"] = max(0, edited["from_index"] - 1 - n % 4)
                conn.execute("UPDATE events SET data = ? WHERE seq = ?", (json.dumps(edited, separators=(",", ":")), seq))
        if rehashed and how not in ("hash", "head"):
            rehash(conn, eid)
        conn.commit()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(
    log=st.sampled_from(["engine", "table"]),
    how=st.sampled_from(TAMPERS),
    pick=st.integers(0, 10_000),
    n=st.integers(0, 1_000),
    rehashed=st.booleans(),
    dice=st.booleans(),
)
def test_the_fast_pass_finds_what_the_plain_check_finds(fights, tmp_path_factory, log, how, pick, n, rehashed, dice):
    db = copy_log(fights[log], tmp_path_factory.mktemp("tampered") / "fight.db")
    with EventStore(db, readonly=True) as store:
        eid = store.encounter_ids()[0]
    tamper(db, eid, how, pick, n, rehashed)
    with EventStore(db, readonly=True) as store:
        same(store, eid, dice=dice)


@pytest.mark.parametrize("log", ["engine", "table"])
def test_an_untouched_log_is_intact_both_ways(fights, tmp_path, log):
    db = copy_log(fights[log], tmp_path / "fight.db")
    with EventStore(db, readonly=True) as store:
        eid = store.encounter_ids()[0]
        assert same(store, eid, dice=True) == []
        report = check_encounter(store, eid, dice=True)
        assert report.snapshots > 0 and report.events > 100
        assert (report.engine_rolls > 0) == (log == "engine")
        assert report.salts == (2 if log == "engine" else report.salts)
        assert load_state(store, eid).version == report.version


@pytest.mark.parametrize("how", ["data", "snapshot", "snapshot-head", "salt", "reorder", "delete"])
def test_each_kind_of_tampering_is_found_both_ways(fights, tmp_path, how):
    """Not only agreement: each attack is found (the examples hypothesis
    draws may miss; these pick a row that matters)."""
    db = copy_log(fights["engine"], tmp_path / "fight.db")
    with EventStore(db, readonly=True) as store:
        eid = store.encounter_ids()[0]
        rolls = [v for v, _c, _s, _d in store.versions_of_type(eid, "dice-rolled")]
    pick = {"data": rolls[len(rolls) // 2] - 1}.get(how, 3)
    tamper(db, eid, how, pick, 3 if how == "data" else 1, rehashed=True)
    with EventStore(db, readonly=True) as store:
        assert same(store, eid, dice=True)


def test_a_command_split_by_an_edited_id_is_reported(fights, tmp_path):
    """An event given another command's id by hand, the chain re-hashed:
    verify's fold assumes a command's events are one run (as affray writes
    them, one command per transaction), so the edit is reported as such, by
    the pass and by the plain ``ChainCheck`` alike (PostgreSQL's verify),
    instead of being folded differently from ``project``."""
    db = copy_log(fights["engine"], tmp_path / "fight.db")
    with EventStore(db, readonly=True) as store:
        eid = store.encounter_ids()[0]
        rows = list(store.read_raw(eid))
    undone = next(r for r in rows if r[4] == "command-retracted")
    target = json.loads(undone[6])["command_id"]
    first = next(i for i, r in enumerate(rows) if r[3] == target)
    split = next(r for r in rows[first:] if r[3] == target and r[4] == "skill-tested")
    with closing(sqlite3.connect(db)) as conn:  # one event of the undone command given the undo's own id
        conn.execute("DROP TRIGGER IF EXISTS events_no_update")
        conn.execute("UPDATE events SET command_id = ? WHERE seq = ?", (undone[3], split[0]))
        rehash(conn, eid)
        conn.commit()
    with EventStore(db, readonly=True) as store:
        assert not consecutive_commands(store, eid)
        chain, other = fast(store, eid, dice=True)
        want_chain, want_other = reference(store, eid, dice=True)
    assert chain == want_chain
    # the undone command's events resume after the edited one, and the undo's own id comes back at the undo
    resumed = next(r for r in rows if r[3] == target and r[2] > split[2])
    assert [p for p in chain if "after other commands' events" in p] == [
        f"encounter {eid} version {v}: an event of command {c!r} after other commands' events "
        "(affray writes a command's events together; the command ids were edited)"
        for v, c in sorted([(resumed[2], target), (undone[2], undone[3])])
    ]
