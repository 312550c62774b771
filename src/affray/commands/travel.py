"""Time travel: rewind, branch and amend (DESIGN.md, "Undo, redo, rewind,
branch, amend"; invariant 1: every one of them is new events).

- **Rewind** appends ``EncounterRewound(to_version)``: every command with an
  event after ``to_version`` is void, and stays in the log (struck through).
  The state after it equals the state of the log cut at ``to_version``
  (``load_state(store, eid, at_version=to_version)``): when undos or redos
  made after that point changed which commands before it count, the same
  batch carries ``CommandRestored``/``CommandRetracted`` events that put
  them back as they were (they come first; the rewind is the batch's last
  event, so it also empties the redo stack). ``to_version`` must fall on a
  command boundary, and a point already rewound away cannot be reached again
  (a void command stays void; branch from it instead).
- **Branch** opens a new encounter from a prefix of the live timeline: the
  new ``EncounterOpened`` carries the same seed commitment, system, dice
  mode and rulings; the same seed is stored for it; its first command also
  records a ``CommandIssued`` of the ``branch`` command (origin, version,
  dice stream) and a readable note. Then every live command up to the cut is
  copied as new events (same data, new versions and hashes; versions inside
  events, a condition's ``cause`` and a roll's ``supersedes``, are mapped to
  the new log). Engine dice are derived with the *origin's* encounter id (its
  "dice stream", :func:`dice_stream`), so a branch's engine roll *n* is the
  original's roll *n*: the copied rolls re-derive and a what-if meets the
  same dice. The origin is never touched.
- **Amend** rewinds to just before a command (or branches there), issues it
  again from its ``CommandIssued`` record with the changes, and with
  ``replay`` re-issues each later live command from its record with its
  recorded dice typed as table values. A replay stops at the first command
  that no longer fits, with one line saying which and why; everything
  appended so far is a valid history. The amended command is checked
  before anything is appended.

Amend is in :mod:`affray.commands.amend`; the points of a fight's history
and the re-deciding of recorded commands in :mod:`affray.commands.points`.
"""

from __future__ import annotations

from typing import Iterable

import msgspec

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.projections.snapshots import dump, load_state
from affray.projections.state import State
from affray.projections.timeline import Liveness, Timeline
from affray.projections.travel import LogWindow, parse_point
from affray.commands.core import Outcome, check_encounter_id, slug
from affray.commands.points import check_boundary, command_points, find_point, newest_live_command, stream_of
from affray.rules.base import RuleError

# --------------------------------------------------------------------------- #
# Rewind
# --------------------------------------------------------------------------- #


def _chosen_version(records: list[Recorded], tl: Timeline, point: str, version: int, flag: str) -> int | None:
    """The log version a ``FLAG ROUND[.STEP]`` or ``--version N`` names
    (checked: inside the log, on a command boundary), or None when neither
    was given. Raises :class:`RuleError` (one line) otherwise."""
    head = records[-1].version if records else 0
    if point and version:
        raise RuleError(f"give either {flag} ROUND[.STEP] or --version N, not both")
    if point:
        return find_point(command_points(records, tl), point).last_version
    if not version:
        return None
    if not 1 <= version <= head:
        raise RuleError(f"--version takes 1–{head} here, got {version}")
    check_boundary(tl, version)
    return version


def rewind_target(records: list[Recorded], tl: Timeline, command: cmd.Rewind) -> int:
    """The version ``command`` rewinds to (validated: a command boundary
    before the head). Raises :class:`RuleError`."""
    head = records[-1].version if records else 0
    version = _chosen_version(records, tl, command.to_point, command.to_version, "--to")
    if version is None:
        raise RuleError("say where to rewind to: --to ROUND[.STEP] (like 1.2) or --version N")
    if version >= head:
        raise RuleError(f"nothing to rewind: version {version} is the newest")
    return version


def rewind_events(store, encounter_id: str, state: State, command: cmd.Rewind) -> list[ev.Event]:
    """The events of a rewind (see the module docstring). Raises
    :class:`RuleError` when the point cannot be reached.

    Most rewinds are decided from a stretch of the log
    (:func:`rewind_from_stretch`); the rest, and every refusal, from the
    whole log (:func:`rewind_from_log`)."""
    events = rewind_from_stretch(store, encounter_id, command)
    return events if events is not None else rewind_from_log(store, encounter_id, command)


def rewind_from_stretch(store, encounter_id: str, command: cmd.Rewind) -> list[ev.Event] | None:
    """The events :func:`rewind_from_log` gives, read from the meta events,
    the round the point is in (``--to R.S``: from its live ``RoundStarted``,
    through the type index, to the command that starts the next round) or
    two rows around the version (``--version N``), and the rows back from
    the head to the newest live command. None (decide from the whole log)
    for every case it does not cover: a refusal, the setup (round 0), a
    later rewind over the point, a command id that is not ``c<first
    version>``."""
    window = LogWindow(store, encounter_id)
    head = window.head
    if command.to_point and command.to_version:
        return None
    if command.to_point:
        try:
            rnd, _ = parse_point(command.to_point)
        except ValueError:
            return None
        span = window.round_span(rnd) if rnd else None
        if span is None:
            return None
        first, last = span
        lo = window.command_start(first)
        hi = window.command_end(last + 1) if last < head else last
        records = list(window.records(lo, hi))
        try:
            version = find_point(command_points(records, window.live(records)), command.to_point).last_version
        except RuleError:
            return None
    else:
        version = command.to_version
        if not 1 <= version < head or not store.starts_command(encounter_id, version + 1):
            return None
    if version >= head:
        return None
    later = [m for m in window.metas if m.version > version]
    if any(isinstance(m.event, ev.EncounterRewound) and m.event.to_version < version for m in later):
        return None  # a later rewind voided commands at or before the point: the whole log says which
    was = Liveness([m for m in window.metas if m.version <= version])
    touched: dict[str, int] = {}
    for m in later:
        if isinstance(m.event, (ev.CommandRetracted, ev.CommandRestored)):
            cid = m.event.command_id
            first = int(cid[1:]) if cid[:1] == "c" and cid[1:].isdigit() else 0
            if not (1 <= first < m.version and store.starts_command(encounter_id, first, cid)):
                return None
            if first <= version:
                touched[cid] = first
    fixes: list[ev.Event] = []
    for cid, first in sorted(touched.items(), key=lambda item: item[1]):
        before, now = was.is_live(cid, first), window.liveness.is_live(cid, first)
        if before != now:
            fixes.append(ev.CommandRestored(command_id=cid) if before else ev.CommandRetracted(command_id=cid))
    newest = newest_live_command(store, encounter_id, head, window.metas)
    if not fixes and (newest is None or newest[1] <= version):
        return None  # nothing to rewind: the whole log words the refusal
    return fixes + [ev.EncounterRewound(to_version=version)]


def rewind_from_log(store, encounter_id: str, command: cmd.Rewind) -> list[ev.Event]:
    """The events of a rewind, decided from the whole log (see the module
    docstring). Raises :class:`RuleError` when the point cannot be reached."""
    records = list(store.read(encounter_id))
    tl = Timeline(records)
    version = rewind_target(records, tl, command)
    prefix = Timeline(records[:version])
    fixes: list[ev.Event] = []
    for cid in prefix.commands:
        was, now = prefix.is_live(cid), tl.is_live(cid)
        if was == now:
            continue
        if was and cid in tl.void:
            raise RuleError(
                f"version {version} was rewound away (command {cid} is void for good); "
                "rewind to a point on the live timeline ('affray log' shows it), or branch from it"
            )
        fixes.append(ev.CommandRestored(command_id=cid) if was else ev.CommandRetracted(command_id=cid))
    later = [c for c in tl.live_commands() if tl.first_version[c] > version]
    if not later and not fixes:
        raise RuleError(f"nothing to rewind: no live command after version {version} (they are already undone or void)")
    return fixes + [ev.EncounterRewound(to_version=version)]


# --------------------------------------------------------------------------- #
# Branch
# --------------------------------------------------------------------------- #


def new_encounter_id(store, wanted: str, explicit: bool) -> str:
    """The id of a new encounter named ``wanted``: ``wanted`` itself when
    ``explicit`` (checked: letters, digits, ``-_.``, not taken), else its slug
    made unique with ``-2``, ``-3``... Raises :class:`RuleError`."""
    eid = slug(wanted) if not explicit else wanted.strip()
    if explicit:
        check_encounter_id(eid)
    taken = set(store.encounter_ids())
    if eid in taken:
        if explicit:
            raise RuleError(f"encounter id {eid!r} is taken; choose another with --id")
        n = 2
        while f"{eid}-{n}" in taken:
            n += 1
        eid = f"{eid}-{n}"
    return eid


def _remap(e: ev.Event, vmap: dict[int, int]) -> ev.Event:
    """``e`` with the log versions it carries mapped to the branch's."""

    def new(v: int) -> int:
        if v in vmap:
            return vmap[v]
        below = [k for k in vmap if k < v]
        return vmap[max(below)] if below else v

    if isinstance(e, ev.ConditionApplied) and e.condition.cause:
        return msgspec.structs.replace(e, condition=msgspec.structs.replace(e.condition, cause=new(e.condition.cause)))
    if isinstance(e, ev.DiceRolled) and e.supersedes:
        return msgspec.structs.replace(e, supersedes=new(e.supersedes))
    return e


def _batches(records: Iterable[Recorded]) -> list[list[Recorded]]:
    out: list[list[Recorded]] = []
    for rec in records:
        if out and out[-1][0].command_id == rec.command_id:
            out[-1].append(rec)
        else:
            out.append([rec])
    return out


def branch(store, command: cmd.BranchEncounter, *, origin: str, actor: str = ""):
    """Create the branch; return an :class:`~affray.commands.core.Outcome`
    for the new encounter (``records``: its first command). Raises
    :class:`RuleError` before anything is written when the point or the name
    is wrong."""
    records = list(store.read(origin))
    head = records[-1].version if records else 0
    tl = Timeline(records)
    name = command.name.strip()
    if not name:
        raise RuleError("a branch needs a name: affray branch \"what if\" --at 1.2")
    version = _chosen_version(records, tl, command.at_point, command.at_version, "--at")
    if version is None:
        version = head
    prefix = Timeline(records[:version])
    live = list(prefix.live_records())
    closed = next((r for r in live if isinstance(r.event, ev.EncounterClosed)), None)
    if closed is not None:
        raise RuleError(
            f"{origin} was closed at version {closed.version}; branch at an earlier point (--version {closed.version - 1})"
        )
    opened = next((r.event for r in records if isinstance(r.event, ev.EncounterOpened)), None)
    if opened is None:
        raise RuleError(f"{origin} has no opening event to branch from")
    seed = store.get_seed(origin)
    if seed is None and not opened.manual_dice:
        raise RuleError(f"the dice seed of {origin} is not in {store.path}; a branch needs it to roll engine dice")
    new_id = new_encounter_id(store, command.encounter_id or name, bool(command.encounter_id))
    stream = stream_of(records, origin)
    pts = command_points(records[:version], prefix)
    at = pts[-1].end if pts else (0, 0)
    batches = _copied(records[:version], live)
    live_ids = {r.command_id for r in live}
    salts = sum(1 for b in batches if b[0].command_id not in live_ids)
    issued = ev.CommandIssued(
        command=msgspec.to_builtins(
            msgspec.structs.replace(
                command, origin=origin, at_version=version, dice_stream=stream, encounter_id=new_id, name=name
            )
        )
    )
    note = ev.NoteAdded(
        text=f"Branch of {origin} at round {at[0]}, step {at[1]} (version {version}): "
        f"{sum(1 for b in batches if b[0].command_id in live_ids)} commands copied"
        + (f", {salts} salts of commands undone or rewound away" if salts else "")
        + f"; engine dice follow {stream}'s seed"
    )
    opening = ev.EncounterOpened(
        encounter_id=new_id,
        name=name,
        system=opened.system,
        seed_sha256=opened.seed_sha256,
        manual_dice=opened.manual_dice,
        rulings=dict(opened.rulings),
        dice_stream=stream,
        chain=2,  # the chain starts from the seed commitment (affray.store.chain)
    )
    with store.transaction():  # the whole branch or none of it
        first, state = _write_branch(store, new_id, seed, [opening, issued, note], batches, actor)
    return Outcome(
        encounter_id=new_id,
        records=first,
        before=State(),
        state=state,
        notes=[note.text],
    )


def _copied(records, live) -> list[list]:
    """The batches a branch copies, in log order: every live command's
    (but the opening), and the salts of the commands that are not live
    (undone or rewound away), each alone. A salt counts for the rolls from
    its ``from_index`` on whether or not its command is live (:mod:`affray.dice`,
    "Salts"), so the branch, which follows its origin's dice stream, must
    hold the same salts in the same order to roll what the origin would."""
    live_batches = {b[0].command_id: b for b in _batches(live)}
    out: list[list] = []
    for batch in _batches(records):
        kept = live_batches.pop(batch[0].command_id, None)
        if kept is not None:
            if not any(isinstance(r.event, ev.EncounterOpened) for r in kept):
                out.append(kept)
            continue
        salts = [r for r in batch if isinstance(r.event, ev.SaltAdded)]
        if salts:
            out.append(salts)
    return out


def _write_branch(store, new_id: str, seed, opening: list[ev.Event], batches, actor: str):
    if seed is not None:
        store.put_seed(new_id, seed)
    first = store.append(new_id, 0, opening, command_id="c1", actor=actor or "gm")
    at_version = len(first)
    vmap: dict[int, int] = {}
    for batch in batches:
        for i, rec in enumerate(batch):
            vmap[rec.version] = at_version + 1 + i
        events = [_remap(rec.event, vmap) for rec in batch]
        store.append(
            new_id,
            at_version,
            events,
            command_id=f"c{at_version + 1}",
            actor=batch[0].actor,
            recorded_at=batch[0].recorded_at,
        )
        at_version += len(events)
    state = load_state(store, new_id, use_snapshots=False)
    store.save_snapshot(new_id, state.version, dump(state, store.head(new_id)[1]))
    return first, state


