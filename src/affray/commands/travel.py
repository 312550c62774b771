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

from bisect import bisect_left

import msgspec

from affray.events import commands as cmd
from affray.events import codec
from affray.events import core as ev
from affray.events.envelope import Live, Recorded
from affray.projections.snapshots import dump
from affray.projections.state import State
from affray.projections.timeline import Liveness, Timeline, fold, numbered_version
from affray.projections.travel import LogWindow, parse_point
from affray.commands.core import Outcome, check_encounter_id, slug
from affray.commands.points import check_boundary, command_points, find_point, newest_live_command
from affray.rules.base import RuleError
from affray.store import chain, utc_now
from affray.store.errors import ConflictError, DatabaseCorrupt

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

    Most rewinds, and the refusals "nothing to rewind", are decided from a
    stretch of the log (:func:`rewind_from_stretch`); the rest from the
    whole log (:func:`rewind_from_log`)."""
    events = rewind_from_stretch(store, encounter_id, command)
    return events if events is not None else rewind_from_log(store, encounter_id, command)


def rewind_from_stretch(store, encounter_id: str, command: cmd.Rewind) -> list[ev.Event] | None:
    """The events :func:`rewind_from_log` gives, read from the meta events,
    the round the point is in (``--to R.S``: from its live ``RoundStarted``,
    through the type index, to the command that starts the next round) or
    two rows around the version (``--version N``), and the rows back from
    the head to the newest live command. None (decide from the whole log)
    for every case it does not cover: the setup (round 0), a later rewind
    over the point, a command id that is not ``c<first version>``. Raises
    :class:`RuleError` with the whole log's words when there is nothing to
    rewind (the point is the head, or no live command comes after it), so
    a refused rewind costs what an accepted one does."""
    window = LogWindow(store, encounter_id)
    head = window.head
    if command.to_point and command.to_version:
        return None
    if command.to_point:
        version = point_in_round(window, command.to_point)
        if version is None:
            return None
    else:
        version = command.to_version
        if not 1 <= version < head or not store.starts_command(encounter_id, version + 1):
            return None
    if version >= head:
        raise RuleError(f"nothing to rewind: version {version} is the newest")
    later = [m for m in window.metas if m.version > version]
    if any(isinstance(m.event, ev.EncounterRewound) and m.event.to_version < version for m in later):
        return None  # a later rewind voided commands at or before the point: the whole log says which
    was = Liveness([m for m in window.metas if m.version <= version])
    touched: dict[str, int] = {}
    for m in later:
        if isinstance(m.event, (ev.CommandRetracted, ev.CommandRestored)):
            cid = m.event.command_id
            first = numbered_version(cid)
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
        raise RuleError(f"nothing to rewind: no live command after version {version} (they are already undone or void)")
    return fixes + [ev.EncounterRewound(to_version=version)]


def point_in_round(window: LogWindow, point: str) -> int | None:
    """The last version of the live command at ``point`` (``ROUND.STEP`` or
    ``ROUND``, round 1 on), found in that round alone: from its live
    ``RoundStarted`` (through the type index) to the command that starts
    the next round, read through ``window``. The version
    ``find_point(command_points(whole log), point)`` gives, or None (read
    the whole log) for the setup (round 0), a round the live timeline does
    not have, or text that is not a point. Raises :class:`RuleError` with
    the whole log's words for a step the round does not have, or a round
    named alone that has not ended: every command of the round is in the
    stretch."""
    try:
        rnd, _ = parse_point(point)
    except ValueError:
        return None
    span = window.round_span(rnd) if rnd else None
    if span is None:
        return None
    first, last = span
    lo = window.command_start(first)
    hi = window.command_end(last + 1) if last < window.head else last
    records = list(window.records(lo, hi))
    return find_point(command_points(records, window.live(records)), point).last_version


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


class _Versions:
    """The origin's log versions of the copied events, mapped to the
    branch's: a version that was copied maps to its copy, any other to the
    copy of the newest copied event before it (itself when there is none),
    as the events are copied in order."""

    def __init__(self) -> None:
        self._old: list[int] = []
        self._new: list[int] = []

    def add(self, old: int, new: int) -> None:
        self._old.append(old)
        self._new.append(new)

    def __call__(self, v: int) -> int:
        i = bisect_left(self._old, v)
        if i < len(self._old) and self._old[i] == v:
            return self._new[i]
        return self._new[i - 1] if i else v

    def remap(self, e: ev.Event) -> ev.Event:
        """``e`` with the log versions it carries (a condition's ``cause``, a
        roll's ``supersedes``) mapped to the branch's."""
        if isinstance(e, ev.ConditionApplied) and e.condition.cause:
            return msgspec.structs.replace(e, condition=msgspec.structs.replace(e.condition, cause=self(e.condition.cause)))
        if isinstance(e, ev.DiceRolled) and e.supersedes:
            return msgspec.structs.replace(e, supersedes=self(e.supersedes))
        return e


def branch_point(store, origin: str, head: int, command: cmd.BranchEncounter) -> int:
    """The origin's version a branch starts from (validated: a command
    boundary, inside the log; the head when no point is given). ``--at
    ROUND.STEP`` is found in its round (:func:`point_in_round`) and
    ``--version N`` checked with two rows; the setup, the refusals and the
    rest read the whole log (:func:`_chosen_version`). Raises
    :class:`RuleError`."""
    if command.at_point and not command.at_version:
        found = point_in_round(LogWindow(store, origin), command.at_point)
        if found is not None:
            return found
    elif command.at_version and not command.at_point:
        v = command.at_version
        if 1 <= v <= head and (v == head or store.starts_command(origin, v + 1)):
            return v
    elif not command.at_point:
        return head
    records = list(store.read(origin))
    found = _chosen_version(records, Timeline(records), command.at_point, command.at_version, "--at")
    return head if found is None else found


class _Plan(msgspec.Struct):
    """What a branch copies from its origin's log cut at a version:
    ``batches`` ``(live, rows)`` in log order (raw rows, see
    :meth:`Store.read_raw`): each live command's non-meta rows but the
    opening's, and the salts of each command that is not live; ``at`` the
    (round, step) after the last live command (``command_points``' count)."""

    batches: list[tuple[bool, list[tuple]]]
    at: tuple[int, int]


_OPENED, _STARTED, _SALT = "encounter-opened", "round-started", "salt-added"
_META_TAGS = frozenset(c.__struct_config__.tag for c in (ev.CommandRetracted, ev.CommandRestored, ev.EncounterRewound))


def _plan(store, origin: str, version: int, liveness: Liveness) -> _Plan:
    """The :class:`_Plan` of a branch of ``origin`` at ``version``, from
    its raw rows (only the round starts and the opening are decoded) and
    ``liveness``, the meta events up to ``version``: the choice the
    :class:`Timeline` of the log cut there gives. A salt counts for the
    rolls from its ``from_index`` on whether or not its command is live
    (:mod:`affray.dice`, "Salts"), so the branch, which follows its
    origin's dice stream, must hold the same salts in the same order to
    roll what the origin would."""
    batches: list[tuple[bool, list[tuple]]] = []
    rnd = step = 0
    current = None

    def close(cid: str, rows: list[tuple]) -> None:
        nonlocal rnd, step, current
        kept = [r for r in rows if r[4] not in _META_TAGS]
        if not kept:
            return
        if cid in liveness.retracted or any(liveness.voided(r[2]) for r in kept):
            salts = [r for r in rows if r[4] == _SALT]
            if salts:
                batches.append((False, salts))
            return
        if cid != current:
            current, step = cid, step + 1
        opening = False
        for r in kept:
            if r[4] == _OPENED:
                opening, step = True, 0
            elif r[4] == _STARTED:
                rnd, step = _decoded(store, origin, r).round, 0
        if not opening:
            batches.append((True, kept))

    group: list[tuple] = []
    for row in store.read_raw(origin, to_version=version):
        if group and row[3] != group[0][3]:
            close(group[0][3], group)
            group = []
        group.append(row)
    if group:
        close(group[0][3], group)
    return _Plan(batches, (rnd, step))


def _decoded(store, origin: str, row: tuple) -> ev.Event:
    """The event of a raw row. Raises :class:`DatabaseCorrupt` (one line)
    when it does not decode, or for a type this affray does not know."""
    try:
        return codec.decode(row[4], row[5], row[6])
    except (codec.UnknownEvent, msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise DatabaseCorrupt(store.path, f"encounter {origin} version {row[2]} does not decode: {exc}") from exc


def _first_of(store, origin: str, tag: str, liveness: Liveness | None = None, to_version: int | None = None):
    """``(version, event)`` of the oldest ``tag`` event of ``origin`` (the
    type index), of a live command when ``liveness`` is given; or None."""
    for v, cid, schema, data in sorted(store.versions_of_type(origin, tag, to_version=to_version)):
        if liveness is None or liveness.is_live(cid, v):
            return v, _decoded(store, origin, (v, origin, v, cid, tag, schema, data))
    return None


def branch(store, command: cmd.BranchEncounter, *, origin: str, actor: str = ""):
    """Create the branch; return an :class:`~affray.commands.core.Outcome`
    for the new encounter (``records``: its first command). Raises
    :class:`RuleError` before anything is written when the point or the name
    is wrong.

    The branch is built without the write lock: the origin's rows up to
    the point are read as stored (only the copied ones are decoded, once
    each), given their new versions, command ids and hashes, and folded
    into the branch's state. Then one short transaction stores the seed,
    appends the rows as they are (:meth:`Store.append_rows`, its chain
    checked before) and the snapshot at its head. The branch is the one the
    whole log gives, event for event (``tests/test_branch_fast.py``).
    :class:`~affray.store.errors.ConflictError` (exit 3) with nothing
    written when another encounter took the new id meanwhile, or, for a
    branch from now (no point given), when the origin moved on meanwhile."""
    name = command.name.strip()
    if not name:
        raise RuleError("a branch needs a name: affray branch \"what if\" --at 1.2")
    head = store.version(origin)
    version = branch_point(store, origin, head, command)
    liveness = Liveness(store.read_meta(origin, to_version=version))
    closed = _first_of(store, origin, "encounter-closed", liveness, to_version=version)
    if closed is not None:
        raise RuleError(
            f"{origin} was closed at version {closed[0]}; branch at an earlier point (--version {closed[0] - 1})"
        )
    found = _first_of(store, origin, _OPENED)
    if found is None:
        raise RuleError(f"{origin} has no opening event to branch from")
    opened = found[1]
    seed = store.get_seed(origin)
    if seed is None and not opened.manual_dice:
        raise RuleError(f"the dice seed of {origin} is not in {store.path}; a branch needs it to roll engine dice")
    new_id = new_encounter_id(store, command.encounter_id or name, bool(command.encounter_id))
    stream = (opened.dice_stream if found[0] == 1 else "") or origin
    plan = _plan(store, origin, version, liveness)
    copied = sum(1 for live, _ in plan.batches if live)
    salts = len(plan.batches) - copied
    issued = ev.CommandIssued(
        command=msgspec.to_builtins(
            msgspec.structs.replace(
                command, origin=origin, at_version=version, dice_stream=stream, encounter_id=new_id, name=name
            )
        )
    )
    note = ev.NoteAdded(
        text=f"Branch of {origin} at round {plan.at[0]}, step {plan.at[1]} (version {version}): "
        f"{copied} commands copied"
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
    rows, state = _built(store, origin, new_id, [opening, issued, note], plan.batches, actor or "gm")
    with store.transaction():  # the whole branch or none of it; the lock held only for this
        if not (command.at_point or command.at_version) and store.version(origin) != head:
            raise ConflictError(origin, head, store.version(origin))  # "from now", and now has moved
        if seed is not None:
            store.put_seed(new_id, seed)
        store.append_rows(new_id, 0, rows)
        store.save_snapshot(new_id, state.version, dump(state, rows.head[1]))
        first = list(store.read(new_id, to_version=3))
    return Outcome(
        encounter_id=new_id,
        records=first,
        before=State(),
        state=state,
        notes=[note.text],
    )


def _built(store, origin: str, new_id: str, opening: list[ev.Event], batches, actor: str):
    """``(rows, state)``: the branch's log as :class:`~affray.store.chain.Chained`
    rows (the ``opening`` events as command ``c1`` by ``actor`` now, then each
    batch as one command ``c<its first version>`` with its first row's actor
    and time, every event decoded once, its versions remapped, encoded
    again) and the state they fold to (what a full replay of them gives)."""
    recorded_at = utc_now()
    rows: list[tuple] = []
    encode = codec.encode

    def lives():
        v = 0
        for e in opening:
            v += 1
            rows.append((v, "c1", codec.tag_of(e), type(e).schema, encode(e).decode(), recorded_at, actor))
            yield Live(v, "c1", e)
        versions = _Versions()
        for _live, batch in batches:
            cid, when, who = f"c{v + 1}", batch[0][7], batch[0][8]
            for i, r in enumerate(batch):
                versions.add(r[2], v + 1 + i)
            for r in batch:
                e = versions.remap(_decoded(store, origin, r))
                v += 1
                rows.append((v, cid, r[4], type(e).schema, encode(e).decode(), when, who))
                yield Live(v, cid, e)

    state = fold(State(), lives())
    last = rows[-1][0]
    if state.version != last:
        state = msgspec.structs.replace(state, version=last)
    return chain.linked(new_id, 0, "", rows), state
