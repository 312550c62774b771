"""``affray audit``: re-derive every recorded decision with the current rules.

For each live fight command (a batch with a ``CommandIssued`` record), the
state just before it is rebuilt from the log (the projection of the live
records before it, at the version the command was decided at); the rule
system decides the recorded command again, with every face the command's
rolls recorded typed in as table values (so no die is rolled); and the
events it produces are compared with the recorded ones. ``DiceRolled``
events are compared on what was rolled (purpose, expression, faces, total,
whose roll) and not on where the dice came from (``source``, ``index``,
``typed_by``). Notes added around a decision (a re-roll request, an amend
marker) are not part of it.

A difference means the rules decide otherwise today than the log says:
rules were fixed since, a table changed, or the log holds a ruling no
command would make. The audit is a report: it reads the log and never
writes to it (see :mod:`affray.verify` for ``affray verify``).
"""

from __future__ import annotations


import msgspec

from affray import dice as dicelib
from affray.commands.points import command_text, decide_only, faces_of
from affray.errors import UserError
from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.projections.state import State
from affray.projections.timeline import Timeline, fold
from affray.rules.base import RuleError, to_command

#: Notes the command handler and amend add around a decision.
_MARKERS = ("re-roll after undoing ", "amend: ")


class Difference(msgspec.Struct):
    """One command whose re-derivation differs: ``text`` is one line."""

    command_id: str
    version: int
    command: str
    text: str

    def data(self) -> dict:
        return {"command_id": self.command_id, "version": self.version, "command": self.command, "text": self.text}


class AuditReport(msgspec.Struct):
    """``checked`` fight commands re-derived; ``differences`` one per
    command that differs; ``skipped`` command ids with no recorded command
    (logs written before affray recorded them)."""

    encounter_id: str
    checked: int = 0
    differences: list[Difference] = msgspec.field(default_factory=list)
    skipped: list[str] = msgspec.field(default_factory=list)

    @property
    def summary(self) -> str:
        line = f"audit: {self.checked} commands re-derived, {len(self.differences)} differ"
        if self.skipped:
            line += f" ({len(self.skipped)} older commands have no record to re-derive)"
        return line

    def data(self) -> dict:
        return {
            "encounter": self.encounter_id,
            "checked": self.checked,
            "differ": len(self.differences),
            "differences": [d.data() for d in self.differences],
            "skipped": list(self.skipped),
        }


def _norm(e: ev.Event) -> ev.Event:
    if isinstance(e, ev.DiceRolled):
        return msgspec.structs.replace(e, source="", index=-1, typed_by="")
    return e


def _decision(batch: list[Recorded]) -> list[ev.Event]:
    """The recorded events a decision produced: after the ``CommandIssued``,
    without the handler's and amend's marker notes."""
    events = [r.event for r in batch]
    start = next(i for i, e in enumerate(events) if isinstance(e, ev.CommandIssued))
    out = events[start + 1 :]
    while out and isinstance(out[-1], ev.NoteAdded) and out[-1].text.startswith(_MARKERS):
        out.pop()
    return out


def _flat(value, prefix: str = "") -> dict[str, object]:
    if isinstance(value, dict):
        out: dict[str, object] = {}
        for k, v in value.items():
            out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
        return out or {prefix: {}}
    if isinstance(value, list):
        out = {}
        for i, v in enumerate(value):
            out.update(_flat(v, f"{prefix}[{i}]"))
        return out or {prefix: []}
    return {prefix: value}


def _short(v: object) -> str:
    text = repr(v) if isinstance(v, str) else str(v)
    return text if len(text) <= 60 else text[:57] + "…"


def describe(recorded: list[ev.Event], derived: list[ev.Event]) -> str:
    """One line: where the re-derived events first differ from the recorded."""
    rec = [_norm(e) for e in recorded]
    der = [_norm(e) for e in derived]
    diff = [i for i in range(max(len(rec), len(der))) if i >= len(rec) or i >= len(der) or rec[i] != der[i]]
    i = diff[0]
    more = f" (+{len(diff) - 1} more events differ)" if len(diff) > 1 else ""
    if i >= len(rec):
        return f"the rules now also emit {der[i].__struct_config__.tag} {_short(msgspec.to_builtins(der[i]))}{more}"
    if i >= len(der):
        return f"the rules no longer emit {rec[i].__struct_config__.tag} {_short(msgspec.to_builtins(rec[i]))}{more}"
    a, b = rec[i], der[i]
    ta, tb = a.__struct_config__.tag, b.__struct_config__.tag
    if ta != tb:
        return f"event {i + 1}: recorded {ta}, the rules now emit {tb}{more}"
    fa, fb = _flat(msgspec.to_builtins(a)), _flat(msgspec.to_builtins(b))
    keys = [k for k in dict.fromkeys([*fa, *fb]) if fa.get(k) != fb.get(k)]
    fields = "; ".join(f"{k} {_short(fa.get(k))} → {_short(fb.get(k))}" for k in keys[:4])
    if len(keys) > 4:
        fields += f"; +{len(keys) - 4} more fields"
    return f"{ta}: {fields}{more}"


def audit_records(records: list[Recorded], encounter_id: str = "", tick=None) -> AuditReport:
    """Audit a whole encounter log (see the module docstring). Pure: reads
    the records and the current rules, nothing else. ``affray audit`` exits 1 when any
    command differs. ``tick(version)``, when given, is called after each
    command (a progress bar)."""
    tl = Timeline(records)
    report = AuditReport(encounter_id=encounter_id or (records[0].encounter_id if records else ""))
    state = State()
    batch: list[Recorded] = []

    def check(batch: list[Recorded], state: State) -> None:
        issued = next((r.event for r in batch if isinstance(r.event, ev.CommandIssued)), None)
        if issued is None or issued.command.get("command") == "branch":
            if issued is None and not all(
                isinstance(r.event, (ev.NoteAdded, ev.EncounterOpened, ev.EncounterClosed)) for r in batch
            ):
                report.skipped.append(batch[0].command_id)
            return
        first = batch[0]
        what = command_text(issued.command, issued.dice)
        before = msgspec.structs.replace(state, version=first.version - 1)
        report.checked += 1
        try:
            command = to_command(issued.command)
            derived = decide_only(before, command, faces_of(batch), actor=first.actor, reroll=issued.reroll)[1:]
        except dicelib.MissingDice as exc:
            text = f"the rules now need dice that were not recorded ({', '.join(f'{e} {u}' for u, e in exc.needs)})"
        except dicelib.TooManyDice as exc:
            text = f"the rules now roll fewer dice than were recorded ({', '.join(exc.extra)} left over)"
        except dicelib.DiceError as exc:
            why = str(exc).replace(" Nothing was recorded.", "").rstrip(".")
            text = f"the recorded dice no longer fit: {why}"
        except RuleError as exc:
            text = f"the rules now refuse it: {exc}"
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, AssertionError) as exc:
            # the state before it does not fit the command (a log edited by hand)
            detail = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
            text = f"the rules cannot re-run it on the state before it ({detail}); run 'affray verify'"
        else:
            recorded = _decision(batch)
            if [_norm(e) for e in recorded] == [_norm(e) for e in derived]:
                return
            text = describe(recorded, derived)
        report.differences.append(Difference(first.command_id, first.version, what, text))

    for rec in tl.live_records():
        if batch and rec.command_id != batch[0].command_id:
            check(batch, state)
            state = fold(state, batch)
            if tick is not None:
                tick(batch[-1].version)
            batch = []
        batch.append(rec)
    if batch:
        check(batch, state)
    return report


def audit_encounter(store, encounter_id: str, tick=None) -> AuditReport:
    """:func:`audit_records` for an encounter of ``store`` (read only).

    Raises :class:`affray.errors.UserError` when the hash chain is broken:
    re-deciding an edited log would compare against events that never were.
    """
    problems = store.verify(encounter_id)
    if problems:
        raise UserError(f"{problems[0]}; the log fails 'affray verify', so it cannot be audited")
    return audit_records(list(store.read(encounter_id)), encounter_id, tick=tick)


def difference_lines(report: AuditReport) -> list[str]:
    """One problem line per difference (``verify --full`` prints them as
    FAILED lines)."""
    return [
        f"{report.encounter_id}: audit: {d.command_id} v{d.version} ({d.command}): {d.text}"
        for d in report.differences
    ]


def report_lines(report: AuditReport) -> list[str]:
    """The human report: one line per difference, then the summary."""
    lines = [f"{d.command_id} v{d.version} ({d.command}): {d.text}" for d in report.differences]
    return lines + [report.summary]
