"""Amend: issue a recorded command again with a change (DESIGN.md, "Undo,
redo, rewind, branch, amend"; invariant 1: it is all new events).

Amend rewinds to just before a command (or branches there), issues it again
from its ``CommandIssued`` record with the changes, and with ``replay``
re-issues each later live command from its record with its recorded dice
typed as table values. A replay stops at the first command that no longer
fits, with one line saying which and why; everything appended so far is a
valid history. The amended command is checked before anything is appended,
and the whole amend is one transaction.
"""

from __future__ import annotations

import re

import msgspec

from affray import dice as dicelib
from affray.events import commands as cmd
from affray.events import core as ev
from affray.projections.state import State
from affray.projections.timeline import Timeline, fold
from affray.commands.handler import SlotsAhead, execute
from affray.commands.lookup import resolve_encounter
from affray.commands.points import (
    Point,
    command_points,
    command_text,
    decide_only,
    faces_of,
    find_point,
    stream_of,
)
from affray.commands.travel import branch, new_encounter_id
from affray.store import EventStore, chain
from affray.rules.base import RuleError, to_command

# --------------------------------------------------------------------------- #
# Amend
# --------------------------------------------------------------------------- #


class AmendReport(msgspec.Struct):
    """What an amend did.

    ``outcomes`` are the appended commands in order (the rewind, when on the
    live encounter; the amended command; each replay); ``replayed`` pairs
    each replayed original command id with its new one; ``stopped`` is the
    one-line reason a replay stopped ("" when it did not); ``left`` the
    original command ids not replayed (void, kept in the log)."""

    encounter_id: str
    original: str
    amended: str
    changes: str
    rewound_to: int = 0
    branch: str = ""
    outcomes: list = msgspec.field(default_factory=list)
    replayed: list[tuple[str, str]] = msgspec.field(default_factory=list)
    stopped: str = ""
    left: list[str] = msgspec.field(default_factory=list)
    state: State | None = None


def _token_face(token: str) -> int:
    return 100 if token == "00" else 10 if token == "0" else int(token)


def _changed(original: cmd.Command, a: cmd.AmendCommand, cid: str) -> tuple[cmd.Command, str]:
    d = msgspec.to_builtins(original)
    tag = d.get("command")
    what: list[str] = []

    def refuse(flag: str, fits: str) -> None:
        verb = "apply" if " and " in flag else "applies"
        raise RuleError(f"{cid} is '{command_text(d)}'; {flag} {verb} to {fits}")

    if a.reaction:
        if tag != "react":
            refuse("--reaction", "a react command")
        what.append(f"reaction {a.reaction} (was {d['reaction']})")
        d["reaction"] = a.reaction
    if a.target_combatant:
        if tag != "attack":
            refuse("--target", "an attack")
        what.append(f"target {a.target_combatant} (was {d['target']})")
        d["target"] = a.target_combatant
    if a.weapon:
        key = {"attack": "weapon", "react": "with_item"}.get(tag)
        if key is None:
            refuse("--weapon", "an attack or a react command")
        what.append(f"{'weapon' if key == 'weapon' else 'with'} {a.weapon}" + (f" (was {d[key]})" if d[key] else ""))
        d[key] = a.weapon
    if a.modifiers or a.situations:
        if tag not in ("attack", "react"):
            refuse("--mod and --situation", "an attack or a react command")
        d["modifiers"] = list(d.get("modifiers") or []) + [msgspec.to_builtins(m) for m in a.modifiers]
        d["situations"] = list(d.get("situations") or []) + list(a.situations)
        what += [f"modifier {m.value:+d} {m.reason}" for m in a.modifiers]
        what += [f"situation {s}" for s in a.situations]
    return to_command(d), "; ".join(what)


def _find_target(points: list[Point], tl: Timeline, target: str) -> Point:
    text = target.strip()
    if re.fullmatch(r"c\d+", text):
        hit = next((p for p in points if p.command_id == text), None)
        if hit is None:
            status = tl.status(text) if text in tl.first_version else "unknown"
            why = {"retracted": "it was undone", "void": "it was rewound away", "unknown": "there is no such command"}.get(
                status, "it is not a command"
            )
            raise RuleError(f"cannot amend {text}: {why}; 'affray log' shows the live commands")
        return hit
    if not re.fullmatch(r"\d+\.\d+", text):
        raise RuleError(f"amend takes ROUND.STEP (like 1.3) or a command id (like c42), got {target!r}")
    return find_point(points, text)


def _stop_line(p: Point, exc: Exception) -> str:
    what = command_text(p.issued.command, p.issued.dice) if p.issued is not None else p.kind
    if isinstance(exc, dicelib.MissingDice):
        need = ", ".join(f"{e} ({u})" for u, e in exc.needs)
        why = f"it now needs dice that were not recorded: {need}"
    elif isinstance(exc, dicelib.TooManyDice):
        why = f"it now rolls fewer dice than were recorded ({', '.join(exc.extra)} left over)"
    else:
        why = str(exc).rstrip(".")
    return f"replay stopped at {p.command_id} ({what}, step {p.label}): {why}"


def _rolls(events) -> list[tuple[str, int, tuple[int, ...], str]]:
    """``(source, index, faces, typed_by)`` of each roll with dice."""
    return [(e.source, e.index, tuple(e.faces), e.typed_by) for e in events if isinstance(e, ev.DiceRolled) and e.faces]


def _replay_dice(q: Point, state: State, again: cmd.Command, seed, stream: str, salts, actor: str):
    """The table values and typist a replayed command is issued with, so
    each of its rolls keeps its recorded source: a table roll is typed again
    by whoever typed it, an engine roll is rolled by the engine with the
    same roll number (and so the same faces). Raises :class:`RuleError`
    (the replay stops there) when that cannot be: the command now rolls
    otherwise, or its engine rolls no longer line up with the engine's roll
    numbers (the amended command rolled a different number of engine dice)."""
    recorded = _rolls(r.event for r in q.records)
    table = [f for source, _i, faces, _t in recorded if source == "table" for f in faces]
    typed_by = next((t for source, _i, _f, t in recorded if source == "table"), actor)
    engine = any(source == "engine" for source, *_ in recorded)
    derived = decide_only(
        state, again, [str(f) for f in table], seed=seed, stream=stream, manual=not engine or seed is None,
        actor=typed_by, salts=salts, salt=q.issued.salt_text if q.issued is not None else "",
    )
    now = _rolls(derived)
    if now != recorded:
        first = next(
            (i for i, (a, b) in enumerate(zip(recorded, now)) if a != b), min(len(recorded), len(now))
        )
        if first < len(recorded) and recorded[first][0] == "engine":
            source, index, faces, _t = recorded[first]
            at = now[first][1] if first < len(now) and now[first][0] == "engine" else state.next_roll_index
            raise RuleError(
                f"its engine roll #{index} ({','.join(map(str, faces))}) would now be engine roll #{at}; "
                "amend never relabels an engine roll as typed dice"
            )
        raise RuleError("its dice no longer replay as recorded")
    return [str(f) for f in table], typed_by


def amend(store, command: cmd.AmendCommand, *, encounter_id: str | None = None, actor: str = "") -> AmendReport:
    """Amend a command (see the module docstring). Raises :class:`RuleError`
    (or a dice error) with nothing appended when the amended command itself
    is refused; a replay that no longer fits is reported, not raised.

    The amend is worked out on a copy of the encounter in memory (its log,
    snapshots and seed), without holding the write lock; then what it
    appended there is appended to ``store`` in one short transaction, at
    the version the copy was taken from: a command written meanwhile makes
    it a :class:`~affray.store.errors.ConflictError` (exit 3) with nothing
    appended. Others are locked out only for the copying of the new events:
    their hash chain is checked before the lock is taken."""
    eid = resolve_encounter(store, encounter_id)
    head = store.version(eid)
    branch_id = new_encounter_id(store, command.on_branch, False) if command.on_branch else ""
    with scratch_copy(store, eid) as scratch:
        report = _amend(scratch, command, eid, actor, branch_id)
        target, after = (report.branch, 0) if report.branch else (eid, head)
        rows = worked_out(scratch, target, after)  # checked before the lock is taken
        with store.transaction():  # all or none, and the lock held only for this
            if report.branch:
                seed = scratch.get_seed(report.branch)
                if seed is not None:
                    store.put_seed(report.branch, seed)
            copy_out(scratch, store, target, after, rows)
    return report


def scratch_copy(store, eid: str) -> EventStore:
    """A new in-memory store holding encounter ``eid`` of ``store``: its
    log as stored (envelopes and hashes; the chain is checked again), its
    snapshots and its dice seed. Close it after use (a context manager).
    From a SQLite file it has that file's schema, copied without running
    the migrations (:meth:`EventStore.scratch`)."""
    scratch = store.scratch() if isinstance(store, EventStore) else EventStore(":memory:")
    try:
        scratch.import_records(eid, (row[2:] for row in store.read_raw(eid)))
        for version, data in store.snapshot_stream(eid):
            scratch.save_snapshot(eid, version, data)
        seed = store.get_seed(eid)
        if seed is not None:
            scratch.put_seed(eid, seed)
    except BaseException:
        scratch.close()
        raise
    return scratch


def worked_out(scratch, eid: str, after: int) -> chain.Chained:
    """The events of ``eid`` after version ``after`` in ``scratch``, as
    stored there, their versions and hash chain checked
    (:func:`affray.store.chain.checked`), so that appending them needs the
    lock only to insert."""
    prev = (scratch.hash_at(eid, after) or "") if after else ""
    return chain.checked(eid, after, prev, (row[2:] for row in scratch.read_raw(eid, from_version=after + 1)))


def copy_out(scratch, store, eid: str, after: int, rows: chain.Chained | None = None) -> None:
    """Append the events of ``eid`` after version ``after`` from ``scratch``
    to ``store`` as they are stored there (the same command ids, actors,
    times and hashes; ``rows``, when given, is :func:`worked_out` of them;
    :meth:`EventStore.append_rows` checks the chain), and the snapshots
    taken after ``after``. A head in ``store`` other than ``after`` is a
    :class:`ConflictError`."""
    if rows is None:
        rows = worked_out(scratch, eid, after)
    store.append_rows(eid, after, rows)
    for version, data in scratch.snapshot_stream(eid):
        if version > after:
            store.save_snapshot(eid, version, data)


def _amend(store, command: cmd.AmendCommand, eid: str, actor: str, branch_id: str) -> AmendReport:
    """The amend of :func:`amend`, on ``store`` (the scratch copy)."""
    records = list(store.read(eid))
    if any(isinstance(r.event, ev.EncounterClosed) for r in records):
        raise RuleError(f"encounter {eid} is closed; amend it on a branch: affray branch NAME --version N")
    head = records[-1].version
    tl = Timeline(records)
    points = command_points(records, tl)
    p = _find_target(points, tl, command.target)
    if p.issued is None:
        what = {"open": "the opening of the encounter", "note": "a note", "close": "the closing"}.get(p.kind, "an entry")
        raise RuleError(
            f"{p.command_id} is {what}, not a fight command; "
            "only commands with a recorded command (attack, react, roll...) can be amended"
        )
    if p.kind in ("join", "branch"):
        raise RuleError(f"{p.command_id} is a '{p.kind}' command; amend fight commands (attack, react, roll, ...)")
    original = to_command(p.issued.command)
    changed, changes = _changed(original, command, p.command_id)
    recorded = faces_of(p.records)
    if command.dice.strip():
        values = dicelib.parse_values(command.dice)
        given, before = [_token_face(t) for t in values], [int(f) for f in recorded]
        n = min(len(given), len(before))  # dice the command did not roll before are new, not re-rolls
        if given[:n] != before[:n] or len(given) < len(before):
            if not command.reroll:
                shown = ",".join(recorded) or "engine dice"
                raise RuleError(
                    f"{p.command_id} was rolled with {shown}; amend reuses them: drop --dice, "
                    "or pass --reroll REASON to roll anew (the request is logged)"
                )
        changes = "; ".join(x for x in (changes, f"dice {','.join(values)}") if x)
    else:
        values = list(p.issued.dice)
    if not changes:
        raise RuleError("nothing to amend: pass --mod, --situation, --reaction, --target, --weapon or --dice")

    # check the amended command before anything is appended
    cut = p.first_version - 1
    base = fold(State(), (r for r in tl.live_records() if r.version <= cut))
    base = msgspec.structs.replace(base, version=head + 1)
    seed, stream = store.get_seed(eid), stream_of(records, eid)
    salts, own_salt = tuple(store.salts(eid)), p.issued.salt_text
    try:
        decide_only(base, changed, values, seed=seed, stream=stream, manual=base.manual_dice, actor=actor,
                    salts=salts, salt=own_salt)
    except dicelib.TooManyDice as exc:
        if command.dice.strip():
            raise
        values = list(exc.used)  # the change needs fewer dice: keep those it uses
        decide_only(base, changed, values, seed=seed, stream=stream, manual=base.manual_dice, actor=actor,
                    salts=salts, salt=own_salt)

    later = [q for q in points if q.first_version > p.last_version]
    report = AmendReport(encounter_id=eid, original=p.command_id, amended="", changes=changes)
    ahead = SlotsAhead()  # the re-roll guard's map, carried through the replay (not read again per command)
    with store.transaction():  # the rewind or branch, the amended command and the replays: all or none
        if command.on_branch:
            out = branch(store, cmd.BranchEncounter(name=command.on_branch, at_version=cut, encounter_id=branch_id),
                         origin=eid, actor=actor)
            work = report.branch = out.encounter_id
        else:
            out = execute(store, cmd.Rewind(to_version=cut), encounter_id=eid, actor=actor)
            report.outcomes.append(out)
            report.rewound_to = cut
            work = eid
        reroll = command.reroll
        note = f"amend: {p.command_id} (step {p.label}) issued again: {changes}" + (f" (re-roll: {reroll})" if reroll else "")
        # amend checked --dice against the command's own dice above; the re-roll guard holds every die
        # against whatever the log rolled at its place (the rewound original, or a command undone before)
        out = execute(store, changed, encounter_id=work, dice=",".join(values), actor=actor, reroll=reroll, note=note,
                      salt=own_salt, ahead=ahead)
        report.outcomes.append(out)
        report.amended = out.records[0].command_id
        state = out.state
        if command.replay:
            for i, q in enumerate(later):
                try:
                    if q.issued is None:
                        notes = [r.event for r in q.records if isinstance(r.event, ev.NoteAdded)]
                        if q.kind != "note" or not notes:
                            raise RuleError(f"it has no recorded command ({q.kind or 'meta'} entry)")
                        again = cmd.AddNote(text=f"{notes[0].text} (replayed from {q.command_id})", secret=notes[0].secret)
                        out = execute(store, again, encounter_id=work, actor=actor, ahead=ahead)
                    else:
                        again = to_command(q.issued.command)
                        dice, typed_by = _replay_dice(q, state, again, seed, stream, salts, actor)
                        out = execute(
                            store, again, encounter_id=work, dice=",".join(dice), actor=actor, typed_by=typed_by,
                            note=f"amend: replaying {q.command_id} (step {q.label}) with its recorded dice",
                            salt=q.issued.salt_text, ahead=ahead,
                        )
                except (RuleError, dicelib.DiceError) as exc:
                    report.stopped = _stop_line(q, exc)
                    report.left = [x.command_id for x in later[i:]]
                    break
                report.outcomes.append(out)
                report.replayed.append((q.command_id, out.records[0].command_id))
                state = out.state
        else:
            report.left = [q.command_id for q in later]
    report.encounter_id = work
    report.state = state
    return report
