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

Round/step points (:func:`command_points`) follow the projection's count:
a command's step is the number of live commands since its round began;
a command that starts a round (``start``, or ``end-round`` rolling the next
strike ranks) is step 0 of the round it starts.
"""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass, field
from typing import Iterable

import msgspec

from affray.commands import types as cmd
from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.projections.state import State
from affray.projections.timeline import Timeline
from affray.rules.base import RuleError

# --------------------------------------------------------------------------- #
# Points of the live timeline
# --------------------------------------------------------------------------- #


@dataclass
class Point:
    """One live command on the timeline.

    ``start`` is the (round, step) the command was issued at; ``end`` the
    (round, step) after it (they differ for a command that starts a round).
    ``kind`` is the command's tag (``attack``, ``react``...), or ``open``,
    ``note``, ``close`` for commands without a ``CommandIssued`` record.
    ``ends_round`` is the round a ``RoundEnded`` in it closed (0: none).
    """

    command_id: str
    first_version: int
    last_version: int
    start: tuple[int, int]
    end: tuple[int, int]
    actor: str
    kind: str = ""
    ends_round: int = 0
    issued: ev.CommandIssued | None = None
    records: list[Recorded] = field(default_factory=list)

    @property
    def label(self) -> str:
        """``ROUND.STEP`` of the command (its end point for a round start)."""
        r, s = self.end if self.end[1] == 0 and self.end != self.start else self.start
        return f"{r}.{s}"


def command_points(records: Iterable[Recorded], timeline: Timeline | None = None) -> list[Point]:
    """Every live command of ``records`` (a whole log) with its round and step."""
    tl = timeline if timeline is not None else Timeline(records)
    out: list[Point] = []
    rnd, step, cur = 0, 0, None
    for rec in tl.live_records():
        if cur is None or rec.command_id != cur.command_id:
            step += 1
            cur = Point(rec.command_id, rec.version, rec.version, (rnd, step), (rnd, step), rec.actor)
            out.append(cur)
        e = rec.event
        cur.records.append(rec)
        if isinstance(e, ev.EncounterOpened):
            step = 0
            cur.kind = cur.kind or "open"
            cur.start = (rnd, 0)
        elif isinstance(e, ev.RoundStarted):
            rnd, step = e.round, 0
        elif isinstance(e, ev.RoundEnded):
            cur.ends_round = e.round
        elif isinstance(e, ev.CommandIssued) and cur.issued is None:
            cur.issued = e
            cur.kind = str(e.command.get("command", "")) if cur.kind != "open" else cur.kind
        elif isinstance(e, ev.NoteAdded):
            cur.kind = cur.kind or "note"
        elif isinstance(e, ev.EncounterClosed):
            cur.kind = "close"
        cur.last_version = rec.version
        cur.end = (rnd, step)
    for p in out:
        if p.issued is not None and p.kind == "note":  # a re-roll note before the record (older logs)
            p.kind = str(p.issued.command.get("command", ""))
    return out


def find_point(points: list[Point], text: str) -> Point:
    """The live command at ``ROUND.STEP`` (or, for ``ROUND``, the command
    that ended that round). Raises :class:`RuleError` with one line."""
    from affray.projections.travel import parse_point

    try:
        rnd, step = parse_point(text)
    except ValueError as exc:
        raise RuleError(str(exc)) from None
    if step is None:
        hit = next((p for p in points if p.ends_round == rnd), None)
        if hit is None:
            raise RuleError(
                f"round {rnd} has not ended on the live timeline; name a step, like {rnd}.1 "
                f"('affray replay --round {rnd}' lists them)"
            )
        return hit
    hit = next((p for p in points if p.start == (rnd, step) and p.end[0] == rnd), None)
    hit = hit or next((p for p in points if p.end == (rnd, step)), None)
    hit = hit or next((p for p in points if p.start == (rnd, step)), None)
    if hit is None:
        raise RuleError(
            f"the live timeline has no round {rnd} step {step}; 'affray replay --round {rnd}' lists its steps"
        )
    return hit


def _boundary(tl: Timeline, version: int) -> None:
    for cid in tl.commands:
        first, last = tl.first_version[cid], tl.last_version[cid]
        if first <= version < last:
            raise RuleError(
                f"version {version} is inside command {cid} (versions {first}–{last}); "
                f"choose {first - 1} (before it) or {last} (after it)"
            )


def _issued_of(batch: list[Recorded]) -> ev.CommandIssued | None:
    return next((r.event for r in batch if isinstance(r.event, ev.CommandIssued)), None)


_COMMAND_UNION = None


def to_command(data: dict) -> cmd.Command:
    """The command a ``CommandIssued.command`` dict describes.

    Raises :class:`RuleError` when it does not decode (a tag this affray
    does not know, or fields that changed meaning)."""
    global _COMMAND_UNION
    if _COMMAND_UNION is None:
        kinds = [k for k in _subclasses(cmd.Command) if k.__struct_config__.tag]
        _COMMAND_UNION = typing.Union[tuple(kinds)]  # noqa: UP007 - a runtime union of structs
    try:
        return msgspec.convert(data, _COMMAND_UNION)
    except msgspec.ValidationError as exc:
        raise RuleError(f"the recorded command {data.get('command')!r} does not decode: {exc}") from None


def _subclasses(k: type) -> list[type]:
    out = []
    for sub in k.__subclasses__():
        out.append(sub)
        out.extend(_subclasses(sub))
    return out


def command_text(data: dict, dice: Iterable[str] = ()) -> str:
    """A recorded command as the CLI line that issues it (for logs and reports)."""
    tag = str(data.get("command", "?"))
    skip = {"command", "sheet", "modifiers", "situations"}
    order = {
        "attack": ("attacker", "target"),
        "react": ("defender", "reaction"),
        "roll": ("who",),
        "choose": ("who", "option"),
        "act": ("who", "action"),
        "join": ("side",),
    }.get(tag, ())
    words = [tag] + [str(data[k]) for k in order if data.get(k)]
    for key, value in data.items():
        if key in skip or key in order or value in ("", None, False, 0, [], ()):
            continue
        flag = {"with_item": "with", "target_combatant": "target"}.get(key, key).replace("_", "-")
        words.append(f"--{flag} {value!r}" if isinstance(value, str) and " " in value else f"--{flag} {value}")
    for m in data.get("modifiers") or ():
        words.append(f"--mod \"{m['value']:+d}:{m['reason']}\"" if isinstance(m, dict) else f"--mod {m}")
    for s in data.get("situations") or ():
        words.append(f"--situation {s}")
    dice = list(dice)
    if dice:
        words.append("--dice " + ",".join(dice))
    return " ".join(words)


# --------------------------------------------------------------------------- #
# Dice streams (branches follow their origin's engine dice)
# --------------------------------------------------------------------------- #




def stream_of(records: list[Recorded], encounter_id: str) -> str:
    """The encounter id engine dice are derived with: the encounter's own,
    or for a branch its origin's (``EncounterOpened.dice_stream``)."""
    opened = next((r.event for r in records[:1] if isinstance(r.event, ev.EncounterOpened)), None)
    return (opened.dice_stream if opened is not None else "") or encounter_id


# --------------------------------------------------------------------------- #
# Rewind
# --------------------------------------------------------------------------- #


def rewind_target(records: list[Recorded], tl: Timeline, command: cmd.Rewind) -> int:
    """The version ``command`` rewinds to (validated: a command boundary
    before the head). Raises :class:`RuleError`."""
    head = records[-1].version if records else 0
    if command.to_point and command.to_version:
        raise RuleError("give either --to ROUND[.STEP] or --version N, not both")
    if command.to_point:
        version = find_point(command_points(records, tl), command.to_point).last_version
    elif command.to_version:
        version = command.to_version
        if not 1 <= version <= head:
            raise RuleError(f"--version takes 1–{head} here, got {version}")
        _boundary(tl, version)
    else:
        raise RuleError("say where to rewind to: --to ROUND[.STEP] (like 1.2) or --version N")
    if version >= head:
        raise RuleError(f"nothing to rewind: version {version} is the newest")
    return version


def rewind_events(store, encounter_id: str, state: State, command: cmd.Rewind) -> list[ev.Event]:
    """The events of a rewind (see the module docstring). Raises
    :class:`RuleError` when the point cannot be reached."""
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


def rewound_command(store, encounter_id: str, rewind_version: int) -> str | None:
    """For the undo guard: the first fight command a rewind (its event at
    ``rewind_version``) voided, i.e. the one whose table dice a command
    issued right after the rewind must repeat. None if there is none."""
    records = list(store.read(encounter_id, to_version=rewind_version))
    if not records or not isinstance(records[-1].event, ev.EncounterRewound):
        return None
    to_version = records[-1].event.to_version
    batch = records[-1].command_id
    before = [r for r in records if r.command_id != batch]
    tl = Timeline(before)
    fight = {r.command_id for r in before if isinstance(r.event, ev.CommandIssued)}
    for cid in tl.commands:
        if tl.first_version[cid] > to_version and tl.is_live(cid) and cid in fight:
            return cid
    return None


# --------------------------------------------------------------------------- #
# Branch
# --------------------------------------------------------------------------- #


def _new_id(store, wanted: str, explicit: bool) -> str:
    from affray.commands.handler import slug

    eid = slug(wanted) if not explicit else wanted.strip()
    if explicit and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", eid):
        raise RuleError(f"encounter id {wanted!r} must be letters, digits, '-', '_' or '.'; choose another")
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
    """Create the branch; return an :class:`~affray.commands.handler.Outcome`
    for the new encounter (``records``: its first command). Raises
    :class:`RuleError` before anything is written when the point or the name
    is wrong."""
    from affray.commands.handler import Outcome

    records = list(store.read(origin))
    head = records[-1].version if records else 0
    tl = Timeline(records)
    name = command.name.strip()
    if not name:
        raise RuleError("a branch needs a name: affray branch \"what if\" --at 1.2")
    if command.at_point and command.at_version:
        raise RuleError("give either --at ROUND[.STEP] or --version N, not both")
    if command.at_point:
        version = find_point(command_points(records, tl), command.at_point).last_version
    elif command.at_version:
        version = command.at_version
        if not 1 <= version <= head:
            raise RuleError(f"--version takes 1–{head} here, got {version}")
        _boundary(tl, version)
    else:
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
    new_id = _new_id(store, command.encounter_id or name, bool(command.encounter_id))
    stream = stream_of(records, origin)
    pts = command_points(records[:version], prefix)
    at = pts[-1].end if pts else (0, 0)
    batches = [b for b in _batches(live) if not any(isinstance(r.event, ev.EncounterOpened) for r in b)]
    issued = ev.CommandIssued(
        command=msgspec.to_builtins(
            msgspec.structs.replace(
                command, origin=origin, at_version=version, dice_stream=stream, encounter_id=new_id, name=name
            )
        )
    )
    note = ev.NoteAdded(
        text=f"Branch of {origin} at round {at[0]}, step {at[1]} (version {version}): "
        f"{len(batches)} commands copied; engine dice follow {stream}'s seed"
    )
    opening = ev.EncounterOpened(
        encounter_id=new_id,
        name=name,
        system=opened.system,
        seed_sha256=opened.seed_sha256,
        manual_dice=opened.manual_dice,
        rulings=dict(opened.rulings),
        dice_stream=stream,
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


def _write_branch(store, new_id: str, seed, opening: list[ev.Event], batches, actor: str):
    from affray.projections.snapshots import dump, load_state

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
    store.save_snapshot(new_id, state.version, dump(state))
    return first, state


# --------------------------------------------------------------------------- #
# Deciding without appending (amend's check, the audit)
# --------------------------------------------------------------------------- #


def decide_only(
    state: State,
    command: cmd.Command,
    values: list[str],
    *,
    seed: bytes | None = None,
    stream: str = "",
    manual: bool = True,
    actor: str = "",
    reroll: str = "",
) -> list[ev.Event]:
    """The events ``command`` would append in ``state`` with table
    ``values`` (the batch ``execute`` builds: ``CommandIssued`` first),
    without touching any store. ``manual`` (default) refuses to roll what
    ``values`` do not cover. Raises what ``execute`` raises."""
    from affray import dice as dicelib
    from affray.commands.handler import _issue
    from affray.rules import base

    system = base.get(state.system)
    roller = dicelib.Roller(
        seed if not manual else None, stream or state.encounter_id, state.next_roll_index, values,
        manual=manual, typed_by=actor,
    )
    issued = ev.CommandIssued(command=msgspec.to_builtins(command), dice=tuple(values), reroll=reroll)
    events = [issued] + system.decide(_issue(state, issued), command, roller)
    roller.finish()
    return events


def faces_of(batch: Iterable[Recorded]) -> list[str]:
    """Every face a command's rolls show, in order, as table tokens."""
    return [str(f) for r in batch if isinstance(r.event, ev.DiceRolled) for f in r.event.faces]


# --------------------------------------------------------------------------- #
# Amend
# --------------------------------------------------------------------------- #


@dataclass
class AmendReport:
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
    outcomes: list = field(default_factory=list)
    replayed: list[tuple[str, str]] = field(default_factory=list)
    stopped: str = ""
    left: list[str] = field(default_factory=list)
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
    from affray import dice as dicelib

    what = command_text(p.issued.command, p.issued.dice) if p.issued is not None else p.kind
    if isinstance(exc, dicelib.MissingDice):
        need = ", ".join(f"{e} ({u})" for u, e in exc.needs)
        why = f"it now needs dice that were not recorded: {need}"
    elif isinstance(exc, dicelib.TooManyDice):
        why = f"it now rolls fewer dice than were recorded ({', '.join(exc.extra)} left over)"
    else:
        why = str(exc).rstrip(".")
    return f"replay stopped at {p.command_id} ({what}, step {p.label}): {why}"


def amend(store, command: cmd.AmendCommand, *, encounter_id: str | None = None, actor: str = "") -> AmendReport:
    """Amend a command (see the module docstring). Raises :class:`RuleError`
    (or a dice error) with nothing appended when the amended command itself
    is refused; a replay that no longer fits is reported, not raised."""
    from affray import dice as dicelib
    from affray.commands.handler import execute
    from affray.commands.lookup import resolve_encounter
    from affray.projections.timeline import fold

    eid = resolve_encounter(store, encounter_id)
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
    try:
        decide_only(base, changed, values, seed=seed, stream=stream, manual=base.manual_dice, actor=actor)
    except dicelib.TooManyDice as exc:
        if command.dice.strip():
            raise
        values = list(exc.used)  # the change needs fewer dice: keep those it uses
        decide_only(base, changed, values, seed=seed, stream=stream, manual=base.manual_dice, actor=actor)

    later = [q for q in points if q.first_version > p.last_version]
    report = AmendReport(encounter_id=eid, original=p.command_id, amended="", changes=changes)
    with store.transaction():  # the rewind or branch, the amended command and the replays: all or none
        if command.on_branch:
            out = branch(store, cmd.BranchEncounter(name=command.on_branch, at_version=cut), origin=eid, actor=actor)
            work = report.branch = out.encounter_id
        else:
            out = execute(store, cmd.Rewind(to_version=cut), encounter_id=eid, actor=actor)
            report.outcomes.append(out)
            report.rewound_to = cut
            work = eid
        reroll = command.reroll
        note = f"amend: {p.command_id} (step {p.label}) issued again: {changes}" + (f" (re-roll: {reroll})" if reroll else "")
        out = execute(store, changed, encounter_id=work, dice=",".join(values), actor=actor, reroll=reroll, note=note)
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
                        out = execute(store, again, encounter_id=work, actor=actor)
                    else:
                        again = to_command(q.issued.command)
                        dice = faces_of(q.records)
                        decide_only(state, again, dice, actor=actor)  # no new dice, no refusal
                        out = execute(
                            store, again, encounter_id=work, dice=",".join(dice), actor=actor,
                            note=f"amend: replaying {q.command_id} (step {q.label}) with its recorded dice",
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
