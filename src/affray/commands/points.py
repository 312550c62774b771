"""Commands as points of a fight's history, and recorded commands decided
again: what rewind, branch, amend, ``why`` and the audit share.

Round/step points (:func:`command_points`) follow the projection's count:
a command's step is the number of live commands since its round began;
a command that starts a round (``start``, or ``end-round`` rolling the next
strike ranks) is step 0 of the round it starts. :func:`affray.rules.base.to_command` rebuilds
a command from its ``CommandIssued`` record; :func:`decide_only` decides it
with given dice without appending (amend's check, the audit, Second Chance).
"""

import typing
from typing import Iterable

import msgspec

from affray import dice as dicelib
from affray.events import commands as cmd
from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.projections.state import State
from affray.projections.timeline import Liveness, Timeline
from affray.projections.travel import parse_point
from affray.commands.core import with_issued
from affray.rules import base
from affray.rules.base import RuleError

# --------------------------------------------------------------------------- #
# Points of the live timeline
# --------------------------------------------------------------------------- #


class Point(msgspec.Struct):
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
    records: list[Recorded] = []

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


# --------------------------------------------------------------------------- #
# Undo and redo from the head (the meta events and a few rows, not the log)
# --------------------------------------------------------------------------- #

_META_TAGS = frozenset(c.__struct_config__.tag for c in (ev.CommandRetracted, ev.CommandRestored, ev.EncounterRewound))


def _rows_back(store, encounter_id: str, head: int, stretch: int):
    """``(version, command_id)`` of the non-meta events of the log, newest
    first, read in growing stretches (the first ``stretch`` rows) back from
    ``head`` (undecoded rows). Send a version to the generator to carry on
    below it instead."""
    hi, size = head, stretch
    while hi >= 1:
        lo = max(1, hi - size + 1)
        rows = list(store.read_raw(encounter_id, from_version=lo, to_version=hi))
        hi, size = lo - 1, min(size * 4, 16384)
        for row in reversed(rows):
            if row[4] in _META_TAGS:
                continue
            jump = yield row[2], row[3]
            if jump is not None:
                hi = jump - 1  # below the row just given: the rest of this stretch is read again
                yield None  # the answer to send()
                break


def newest_live_command(
    store, encounter_id: str, head: int, metas: list[Recorded], *, stretch: int = 64
) -> tuple[str, int] | None:
    """The command an undo retracts, as ``(command id, version of its first
    event)``: the newest live command but the first (the opening), or None
    when there is none. The command is the same as
    ``Timeline(log).live_commands()[-1]`` (unless that is
    ``Timeline(log).commands[0]``), from the meta events ``metas`` (every
    undo, redo and rewind of the log, :meth:`EventStore.read_meta`) and the
    rows back from ``head`` to that command (read ``stretch`` rows at first,
    then more): a rewound span is skipped whole, so the cost follows the
    undone commands, not the log."""
    liveness = Liveness(metas)
    rows = _rows_back(store, encounter_id, head, stretch)
    current, dead, first = None, False, 0
    for version, cid in rows:
        if cid != current:
            if current is not None and not dead:
                return current, first  # all its events seen: live, and not the first command
            current, dead = cid, cid in liveness.retracted
        first = version
        if liveness.voided(version):
            dead = True
            rows.send(liveness.span_start(version) + 1)  # every command inside the span is void
    return None  # the oldest command reached: the opening, which cannot be undone


def redo_stack(store, encounter_id: str, head: int, metas: list[Recorded], *, stretch: int = 64) -> list[str]:
    """The commands a redo can restore, the next last: ``Timeline(log).redo_stack``,
    from the meta events ``metas`` (as for :func:`newest_live_command`)
    after the newest command that is not an undo, redo or rewind (which
    empties the stack), found by reading back from ``head``."""
    newest, start = None, 0
    for version, cid in _rows_back(store, encounter_id, head, stretch):
        if newest is not None and cid != newest:
            break
        newest, start = cid, version  # the first event of the newest command
    stack: list[str] = []
    for m in metas:
        e = m.event
        if m.version <= start:
            continue
        if isinstance(e, ev.CommandRetracted):
            stack.append(e.command_id)
        elif isinstance(e, ev.CommandRestored):
            if e.command_id in stack:
                stack.remove(e.command_id)
        elif isinstance(e, ev.EncounterRewound):
            stack = []
    return stack


def check_boundary(tl: Timeline, version: int) -> None:
    """Refuse a rewind or branch point (a log ``version``) that falls inside
    a command: a command is the unit of time travel. Raises
    :class:`RuleError` (one line) naming the versions just before and
    after that command."""
    for cid in tl.commands:
        first, last = tl.first_version[cid], tl.last_version[cid]
        if first <= version < last:
            raise RuleError(
                f"version {version} is inside command {cid} (versions {first}–{last}); "
                f"choose {first - 1} (before it) or {last} (after it)"
            )


def _issued_of(batch: list[Recorded]) -> ev.CommandIssued | None:
    return next((r.event for r in batch if isinstance(r.event, ev.CommandIssued)), None)


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
    salts: tuple[tuple[int, str], ...] = (),
    salt: str = "",
) -> list[ev.Event]:
    """The events ``command`` would append in ``state`` with table
    ``values`` (the batch ``execute`` builds: ``CommandIssued`` first),
    without touching any store. ``manual`` (default) refuses to roll what
    ``values`` do not cover; ``salts`` (the encounter's standing salts) and
    ``salt`` (the command's own) feed the engine (:mod:`affray.dice`,
    "Salts"). Raises what ``execute`` raises."""
    system = base.get(state.system)
    roller = dicelib.Roller(
        seed if not manual else None, stream or state.encounter_id, state.next_roll_index, values,
        manual=manual, typed_by=actor, salts=salts, command_salt=salt,
    )
    issued = ev.CommandIssued(
        command=msgspec.to_builtins(command), dice=tuple(values), reroll=reroll, salt=salt or msgspec.UNSET
    )
    events = [issued] + system.decide(with_issued(state, issued), command, roller)
    roller.finish()
    return events


def faces_of(batch: Iterable[Recorded]) -> list[str]:
    """Every face a command's rolls show, in order, as table tokens."""
    return [str(f) for r in batch if isinstance(r.event, ev.DiceRolled) for f in r.event.faces]


