"""Asking the log questions: ``affray why`` and ``affray replay``.

Every function here takes the records of one encounter (the whole log, as
``store.read`` gives it) and, for ``why``, the state to explain, and never
rules (UX.md, "Asking the log questions"). ``why_store(store, encounter_id,
state, handle, subject)`` gives the same answer as ``why`` without reading
the whole log (``affray why`` uses it): it reads the meta events and the
names through the type index, then only small windows of the log around the
events the chains go through (:class:`StoreIndex`), so its cost does not
grow with the length of the fight.

``why(records, state, handle, subject)`` builds causal chains from the
present back to the attack:

- for a condition: its ``cause`` version → the event at that version → the
  exchange it belongs to (attack, reaction, damage, wound), newest first;
  a cause outside any exchange (an end-of-round Resilience re-test) is
  followed to the wound it tests;
- for a location: every ``DamageDealt`` to it, each with its exchange;
- with no subject: the combatant's status and each of its conditions.

Each link carries its rolls with their source ("engine roll #N" or "table
dice typed by sam") and its modifiers with their reasons; each chain lists
the named rulings in force that its events depended on.

``replay(records, round)`` is a round step by step: per live command its
step, actor, the command as issued, its readable lines and its rolls.

JSON shapes (stable)::

    why:    {"combatant", "name", "status", "subject", "headline",
             "chains": [{"kind": "status|condition|location", "subject",
                         "title", "since", "cause_version",
                         "links": [link], "rulings": [{"name", "value", "why"}]}]}
    link:   {"version", "command_id", "actor", "round", "step", "type",
             "text", "exchange", "rolls": [roll], "modifiers": [{"value", "reason"}]}
    roll:   {"version", "purpose", "expr", "faces", "total", "source",
             "index", "typed_by", "by", "text"}
    replay: {"round", "steps": [{"step", "command_id", "actor", "command",
             "lines": [str], "rolls": [roll]}]}
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.projections.state import Combatant, State
from affray.events import codec
from affray.projections.timeline import Liveness, Timeline, is_meta
from affray.views.narrate import command_batches, names_of, narrate

#: Events that are bookkeeping, never a link of a chain.
_QUIET = (
    ev.DiceRolled, ev.CommandIssued, ev.StepsAwaited, ev.TurnBegan, ev.ActionSpent,
    ev.ExchangeEnded, ev.EngagementChanged, ev.AttackResolved,
)


def roll_data(rec: Recorded) -> dict:
    """A ``DiceRolled`` record as a roll entry (see the module docstring)."""
    e = rec.event
    return {
        "version": rec.version,
        "purpose": e.purpose,
        "expr": e.expr,
        "faces": list(e.faces),
        "total": e.total,
        "source": e.source,
        "index": e.index,
        "typed_by": e.typed_by,
        "by": e.by,
        "text": roll_text(e),
    }


def roll_text(e: ev.DiceRolled) -> str:
    """``d100=58, engine roll #6`` or ``1D8+1D4=6+3=9, table dice typed by sam``."""
    expr = e.expr
    if len(e.faces) == 1 and expr.upper().startswith("1D") and expr[2:].isdigit():
        shown = f"d{expr[2:]}={e.total}"
    elif len(e.faces) > 1:
        shown = f"{expr}={'+'.join(str(f) for f in e.faces)}={e.total}"
    else:
        shown = f"{expr}={e.total}"
    if e.source == "engine":
        src = f"engine roll #{e.index}" if e.index >= 0 else "no dice"
    else:
        src = f"table dice typed by {e.typed_by or 'the GM'}"
    return f"{shown}, {src}"


@dataclass
class Link:
    """One step of a chain: an event with its rolls and modifiers."""

    rec: Recorded
    round: int
    step: int
    text: str
    exchange: int = 0
    rolls: list[Recorded] = field(default_factory=list)

    def data(self) -> dict:
        mods = getattr(self.rec.event, "modifiers", ()) or ()
        return {
            "version": self.rec.version,
            "command_id": self.rec.command_id,
            "actor": self.rec.actor,
            "round": self.round,
            "step": self.step,
            "type": self.rec.type or self.rec.event.__struct_config__.tag,
            "text": self.text,
            "exchange": self.exchange,
            "rolls": [roll_data(r) for r in self.rolls],
            "modifiers": [{"value": m.value, "reason": m.reason} for m in mods],
        }


@dataclass
class Chain:
    """A causal chain: ``links`` newest first."""

    kind: str
    subject: str
    title: str
    since: str = ""
    cause_version: int = 0
    links: list[Link] = field(default_factory=list)
    rulings: list[tuple[str, str, str]] = field(default_factory=list)

    def data(self) -> dict:
        return {
            "kind": self.kind,
            "subject": self.subject,
            "title": self.title,
            "since": self.since,
            "cause_version": self.cause_version,
            "links": [link.data() for link in self.links],
            "rulings": [{"name": n, "value": v, "why": w} for n, v, w in self.rulings],
        }


class LogIndex:
    """What ``why`` and ``replay`` need to know about the live log, in one
    pass: each live record's round, step, exchange and rolls.

    The queries the chains make (:meth:`newest`, :meth:`every`,
    :meth:`last_hit`) scan that index; :class:`StoreIndex` answers the same
    queries from the store instead, reading only small windows of the log."""

    def __init__(self, records: list[Recorded] | None = None):
        self.names: dict[str, str] = {}
        self.live: list[Recorded] = []
        self.by_version: dict[int, Recorded] = {}
        self.where: dict[int, tuple[int, int]] = {}
        self.exchange_of: dict[int, int] = {}
        self.exchanges: dict[int, list[Recorded]] = {}
        self.commands: dict[str, list[Recorded]] = {}
        self.rolls_of: dict[int, list[Recorded]] = {}  # version of a link -> the rolls it used
        self.hp_after: dict[int, tuple[int, int]] = {}  # DamageDealt version -> (HP left, starting HP)
        self._hp: dict[tuple[str, str], list[int]] | None = {}
        # the walk's position: round, step, last command, exchange in progress, rolls not yet used
        self._rnd, self._step, self._last, self._current = 0, 0, None, 0
        self._pending: list[Recorded] = []
        if records is None:
            return
        self.timeline = Timeline(records)
        self.names = names_of(records)
        for rec in self.timeline.live_records():
            self._walk(rec)

    def _walk(self, rec: Recorded, *, index: bool = True) -> None:
        """Advance the walk over the live record ``rec``; with ``index``,
        record what is known of it (a record is indexed once)."""
        e = rec.event
        if rec.command_id != self._last:
            self._step += 1
            self._last = rec.command_id
            self._pending = []
        if isinstance(e, ev.EncounterOpened):
            self._step = 0
        elif isinstance(e, ev.RoundStarted):
            self._rnd, self._step = e.round, 0
        elif isinstance(e, ev.AttackDeclared):
            self._current = e.exchange
        current = self._current
        if index and rec.version not in self.by_version:
            self.live.append(rec)
            self.by_version[rec.version] = rec
            self.where[rec.version] = (self._rnd, self._step)
            self.commands.setdefault(rec.command_id, []).append(rec)
            xid = getattr(e, "exchange", 0) or current
            if isinstance(e, ev.StepsAwaited):
                xid = current
            if xid:
                self.exchange_of[rec.version] = xid
                self.exchanges.setdefault(xid, []).append(rec)
        if isinstance(e, ev.ExchangeEnded) and e.exchange == current:
            self._current = 0
        hp = self._hp
        if hp is not None:
            if isinstance(e, ev.CombatantJoined):
                for loc in e.locations:
                    hp[(e.handle, loc.name)] = [loc.hp, loc.hp]
            elif isinstance(e, ev.DamageDealt) and (e.target, e.location) in hp:
                cell = hp[(e.target, e.location)]
                cell[0] -= e.final
                self.hp_after[rec.version] = (cell[0], cell[1])
            elif isinstance(e, ev.HitPointsRestored) and (e.handle, e.location) in hp:
                cell = hp[(e.handle, e.location)]
                cell[0] = min(cell[1], cell[0] + e.amount)
        if isinstance(e, ev.DiceRolled):
            if e.faces:
                self._pending.append(rec)
        elif self._pending and not isinstance(e, _QUIET) and self.text(rec):
            if index and rec.version not in self.rolls_of:
                self.rolls_of[rec.version] = self._pending
            self._pending = []

    def text(self, rec: Recorded) -> str:
        return narrate(rec.event, self.names)

    def link(self, rec: Recorded) -> Link:
        rnd, step = self.where.get(rec.version, (0, 0))
        return Link(
            rec=rec,
            round=rnd,
            step=step,
            text=self.text(rec),
            exchange=self.exchange_of.get(rec.version, 0),
            rolls=list(self.rolls_of.get(rec.version, ())),
        )

    def significant(self, recs: list[Recorded]) -> list[Recorded]:
        return [r for r in recs if not isinstance(r.event, _QUIET) and self.text(r)]

    # ------------------------------------------------------------------ #
    # the queries of the chains
    # ------------------------------------------------------------------ #

    def ensure(self, version: int) -> None:
        """Make sure the record at ``version`` is indexed, with its command
        and exchange (everything is, here)."""

    def newest(self, cls: type, pred, *, before: int | None = None, key: tuple[str, str] | None = None) -> Recorded | None:
        """The newest live ``cls`` event (before version ``before``) whose
        event satisfies ``pred``; ``key`` is ``(field, value)``, a field of
        the event that ``pred`` requires to equal ``value`` (a hint that lets
        :class:`StoreIndex` narrow its query)."""
        for r in reversed(self.live):
            if (before is None or r.version < before) and isinstance(r.event, cls) and pred(r.event):
                return r
        return None

    def every(self, cls: type, pred, *, key: tuple[str, str] | None = None) -> list[Recorded]:
        """Every live ``cls`` event that satisfies ``pred``, oldest first."""
        return [r for r in self.live if isinstance(r.event, cls) and pred(r.event)]

    def last_hit(self, before: int, target: str, location: str) -> tuple[int, int] | None:
        """``(HP left, starting HP)`` of ``target``'s ``location`` just after
        the newest live ``DamageDealt`` to it before version ``before``."""
        return next(
            (
                self.hp_after[v]
                for v in sorted(self.hp_after, reverse=True)
                if v < before and self.by_version[v].event.target == target
                and self.by_version[v].event.location == location
            ),
            None,
        )


class _Window:
    """A stretch of the log a :class:`StoreIndex` has walked: the live
    records from ``first`` to ``last`` are indexed; ``starts`` are the live
    ``RoundStarted`` versions in it; ``walk`` is the walk's position after
    ``last`` (so that the window can be extended forward)."""

    __slots__ = ("first", "last", "starts", "walk")

    def __init__(self, first: int) -> None:
        self.first = first
        self.last = first - 1
        self.starts: list[int] = []
        self.walk: tuple = (0, 0, None, 0, [])

    def covers(self, version: int) -> bool:
        """Whether ``version``'s round and step, the exchange it is part of
        and its whole command are in this window: it starts at the log's
        start, or at a live ``RoundStarted`` with another one after it, at
        or before ``version``."""
        if not self.first <= version <= self.last:
            return False
        return self.first == 1 or bisect_right(self.starts, version) >= 2


class StoreIndex(LogIndex):
    """:class:`LogIndex` for one encounter of a store, built lazily, window
    by window, so that ``why`` costs the same on a log of a million events
    as on a short one.

    Before any window: the meta events (undo, redo, rewind; type index) give
    each command's status (:class:`Liveness`), and the ``CombatantJoined``
    events the names. A record is indexed by walking a window of the log
    around it (:meth:`ensure`): the log is read backwards from it, in
    growing chunks, until two live ``RoundStarted`` events are found; the
    walk starts at the older of the two (so that the record's round, its
    step and the exchange it belongs to are seen from their start, and
    :data:`LEAD` events earlier still, so that the walk knows the exchange
    in progress and the rolls not yet used) and goes on to the end of the
    record's command. A record a little after a window is reached by
    walking that window on. The queries find their candidates through the
    store's type index (``versions_of_type``) and read only the windows of
    those they return. ``last_hit`` takes the HP of a location from the
    state at the hit (one snapshot and its tail) when no undo, redo or
    rewind came after it, and otherwise folds them from that target's
    ``CombatantJoined``, ``DamageDealt`` and ``HitPointsRestored`` events.
    """

    #: events walked before a window's first round start, only to learn the walk's position
    LEAD = 100
    #: a record at most this many events after a window is reached by walking that window on
    GAP = 2000
    #: the first chunk read backwards from a record (doubled until two round starts are in)
    BACK = 256

    def __init__(self, store, encounter_id: str):
        super().__init__()
        self._hp = None
        self.store = store
        self.encounter_id = encounter_id
        metas = store.read_meta(encounter_id)
        self.liveness = Liveness(metas)
        self._last_meta = max((m.version for m in metas), default=0)
        tag = "combatant-joined"
        self.names = {
            e.handle: e.name
            for e in (codec.decode(tag, s, d) for _, _, s, d in store.versions_of_type(encounter_id, tag))
            if codec.tag_of(e) == tag  # a row whose data was swapped by hand says otherwise
        }
        self._windows: list[_Window] = []

    def ensure(self, version: int) -> None:
        self.ensure_many([version])

    def ensure_many(self, versions) -> None:
        """Index every record of ``versions`` with what :meth:`ensure` says."""
        for v in sorted(set(versions)):
            if v < 1 or any(w.covers(v) for w in self._windows):
                continue
            near = [w for w in self._windows if w.last < v <= w.last + self.GAP]
            if near:
                window = max(near, key=lambda w: w.last)
                self._walk_on(window, v)
                if window.covers(v):
                    continue
            self._new_window(v)

    def _is_round_start(self, rec: Recorded) -> bool:
        return isinstance(rec.event, ev.RoundStarted) and self.liveness.is_live(rec.command_id, rec.version)

    def _new_window(self, version: int) -> None:
        store, eid = self.store, self.encounter_id
        got: list[Recorded] = []
        lo, span = version + 1, self.BACK
        while lo > 1:
            new_lo = max(1, lo - span)
            got[:0] = store.read(eid, from_version=new_lo, to_version=lo - 1)
            lo, span = new_lo, span * 2
            if sum(1 for r in got if self._is_round_start(r)) >= 2:
                break
        starts = [r.version for r in got if self._is_round_start(r)]
        first = starts[-2] if len(starts) >= 2 else 1
        lead = max(1, first - self.LEAD) if first > 1 else 1
        if lead < lo:
            got[:0] = store.read(eid, from_version=lead, to_version=lo - 1)
        window = _Window(first)
        self._windows.append(window)
        self._run(window, (r for r in got if r.version >= lead), version)

    def _walk_on(self, window: _Window, version: int) -> None:
        records = self.store.read(self.encounter_id, from_version=window.last + 1, to_version=version)
        self._run(window, records, version)

    def _run(self, window: _Window, records, version: int) -> None:
        """Walk ``records`` (ending at ``version``) and the rest of the
        command holding ``version``, indexing into ``window``."""
        self._rnd, self._step, self._last, self._current, self._pending = window.walk
        last = window.last
        for status, batch in command_batches(self._through_command(records, version), self.liveness):
            last = max(last, batch[-1].version)
            if status != "live":
                continue
            for rec in batch:
                if is_meta(rec.event):
                    continue
                indexed = rec.version >= window.first
                if indexed and isinstance(rec.event, ev.RoundStarted):
                    window.starts.append(rec.version)
                self._walk(rec, index=indexed)
        window.last = last
        window.walk = (self._rnd, self._step, self._last, self._current, self._pending)
        for recs in self.exchanges.values():
            recs.sort(key=lambda r: r.version)
        for recs in self.commands.values():
            recs.sort(key=lambda r: r.version)
        self.live.sort(key=lambda r: r.version)

    def _through_command(self, records, version: int):
        """``records`` (up to ``version``), then the rest of the command that
        holds ``version`` (read in chunks)."""
        command = None
        for rec in records:
            if rec.version == version:
                command = rec.command_id
            yield rec
        lo = version + 1
        while command is not None:
            chunk = list(self.store.read(self.encounter_id, from_version=lo, to_version=lo + 63))
            for rec in chunk:
                if rec.command_id != command:
                    return
                yield rec
            if len(chunk) < 64:
                return
            lo += 64

    def _rows(self, cls: type, key: tuple[str, str] | None, before: int | None) -> list[tuple[int, str, int, str]]:
        """The live ``cls`` rows ``(version, command_id, schema, data)``
        (before version ``before``), oldest first, through the type index,
        narrowed to those whose ``key`` field has its value."""
        tag = cls.__struct_config__.tag
        live = self.liveness.is_live
        match = None if key is None else (f"$.{key[0]}", key[1], codec.CURRENT_SCHEMA[tag])
        to = None if before is None else before - 1
        rows = self.store.versions_of_type(self.encounter_id, tag, match=match, to_version=to)
        return [row for row in rows if live(row[1], row[0])]

    @staticmethod
    def _decoded(cls: type, row) -> ev.Event:
        return codec.decode(cls.__struct_config__.tag, row[2], row[3])

    def newest(self, cls: type, pred, *, before: int | None = None, key: tuple[str, str] | None = None) -> Recorded | None:
        for row in reversed(self._rows(cls, key, before)):
            if not pred(self._decoded(cls, row)):
                continue
            self.ensure(row[0])
            rec = self.by_version.get(row[0])
            if rec is not None:
                return rec
        return None

    def every(self, cls: type, pred, *, key: tuple[str, str] | None = None) -> list[Recorded]:
        versions = [row[0] for row in self._rows(cls, key, None) if pred(self._decoded(cls, row))]
        self.ensure_many(versions)
        return [self.by_version[v] for v in versions if v in self.by_version]

    def last_hit(self, before: int, target: str, location: str) -> tuple[int, int] | None:
        hit = self._indexed_hit(before, target, location)
        if hit is not None and hit >= self._last_meta:
            # no undo, redo or rewind after the hit: the log cut there says what the whole log says
            from affray.projections.snapshots import load_state

            c = load_state(self.store, self.encounter_id, at_version=hit).combatants.get(target)
            loc = next((x for x in c.locations if x.name == location), None) if c is not None else None
            if loc is not None:
                return (loc.hp, loc.max_hp)
        return self._folded_hit(before, target, location)

    def _indexed_hit(self, before: int, target: str, location: str) -> int | None:
        """The version of the newest live ``DamageDealt`` to ``target``'s
        ``location`` before ``before``, when a window holds it and every
        record from it to ``before``; else ``None``."""
        for w in self._windows:
            if not w.first <= before - 1 <= w.last:
                continue
            for v in range(before - 1, w.first - 1, -1):
                rec = self.by_version.get(v)
                e = rec.event if rec is not None else None
                if isinstance(e, ev.DamageDealt) and e.target == target and e.location == location:
                    return v
        return None

    def _folded_hit(self, before: int, target: str, location: str) -> tuple[int, int] | None:
        events = []
        for cls, field_ in ((ev.CombatantJoined, "handle"), (ev.DamageDealt, "target"), (ev.HitPointsRestored, "handle")):
            for row in self._rows(cls, (field_, target), before):
                e = self._decoded(cls, row)
                if getattr(e, field_) == target:
                    events.append((row[0], e))
        events.sort(key=lambda item: item[0])
        cell: list[int] | None = None
        found = None
        for _, e in events:
            if isinstance(e, ev.CombatantJoined):
                cell = next(([loc.hp, loc.hp] for loc in e.locations if loc.name == location), cell)
            elif cell is None or e.location != location:
                continue
            elif isinstance(e, ev.DamageDealt):
                cell[0] -= e.final
                found = (cell[0], cell[1])
            else:
                cell[0] = min(cell[1], cell[0] + e.amount)
        return found


# --------------------------------------------------------------------------- #
# why
# --------------------------------------------------------------------------- #

_WOUND = re.compile(r"(?:Minor|Serious|Major) Wound to the ([a-z ]+)")

_RULING_WHY = {
    "reaction_attacker_roll": "which attack roll the reaction table reads; fresh = a new d100 after the reaction",
    "critical_on": "a critical is read off the modified skill, or the base one",
    "automatic_results": "01–05 always succeed and 96–00 always fail",
    "fumble_on_99": "a 99 is a fumble",
    "fumble_effect": "what a fumble costs",
    "major_wound_boundary": "where a Serious Wound becomes a Major one",
    "half_ap_rounding": "how half of an odd AP is rounded",
    "parried_critical_keeps_max": "a parried critical keeps its maximised damage",
    "knockback_after_parry": "knockback counts the damage after the parry",
    "overextended_applies_to": "who is Overextended by the table",
    "surprise_reactions": "when a surprised combatant may react",
}


def _rulings(ix: LogIndex, links: list[Link], rulings: dict[str, str]) -> list[tuple[str, str, str]]:
    wanted: list[str] = []
    for link in links:
        e = link.rec.event
        if isinstance(e, ev.ReactionResolved):
            wanted.append("reaction_attacker_roll")
            halves = e.effects.get("parry_ap_halves", 0)
            if halves and halves % 2:
                wanted.append("half_ap_rounding")
        elif isinstance(e, ev.SkillTested):
            if e.result == "critical":
                wanted.append("critical_on")
            if e.result == "fumble":
                wanted += ["fumble_on_99"] if e.roll == 99 else []
                wanted.append("fumble_effect")
            if e.roll <= 5 or e.roll >= 96:
                wanted.append("automatic_results")
        elif isinstance(e, ev.WoundInflicted) and e.severity in ("serious", "major"):
            hit = ix.last_hit(link.rec.version, e.target, e.location)
            if hit is not None and hit[0] in (-hit[1], -hit[1] - 1):  # strict and inclusive part here
                wanted.append("major_wound_boundary")
        elif isinstance(e, ev.DamageDealt) and e.critical and e.reduced:
            wanted.append("parried_critical_keeps_max")
        elif isinstance(e, ev.CombatantMoved) and e.reason == "knockback":
            wanted.append("knockback_after_parry")
        elif isinstance(e, ev.ConditionApplied) and e.condition.name == "overextended":
            wanted.append("overextended_applies_to")
        elif isinstance(e, ev.ConditionApplied) and e.condition.name == "surprised":
            wanted.append("surprise_reactions")
    out = []
    for name in dict.fromkeys(wanted):
        if name in rulings:
            out.append((name, str(rulings[name]), _RULING_WHY.get(name, "")))
    return out


def _back_from(ix: LogIndex, cause: Recorded, handle: str, hint: str = "") -> list[Link]:
    """The links from ``cause`` back to the attack that began it: the cause
    itself (or, for a roll, the event that used it), then what came before
    it in its exchange, newest first. Other conditions applied or ended on
    the way are left out: they are not causes."""
    command = ix.commands.get(cause.command_id, [])
    anchor = cause
    if not ix.significant([cause]):
        anchor = next((r for r in ix.significant(command) if r.version >= cause.version), cause)
    xid = ix.exchange_of.get(anchor.version, 0)
    if xid:
        recs = [r for r in ix.exchanges[xid] if r.version < anchor.version]
        # a riposte opened its own exchange: show the parry that granted it too
        first = ix.exchanges[xid][0].event
        if isinstance(first, ev.AttackDeclared) and first.kind == "riposte":
            earlier = [x for x in ix.exchanges if x < xid]
            if earlier:
                start = ix.exchanges[xid][0].version
                recs = [r for r in ix.exchanges[max(earlier)] if r.version < start] + recs
    else:
        recs = [r for r in command if r.version < anchor.version]
    recs = [r for r in ix.significant(recs) if not isinstance(r.event, (ev.ConditionApplied, ev.ConditionExpired))]
    links = [ix.link(anchor)] + [ix.link(r) for r in reversed(recs)]
    if xid:
        return links
    # outside an exchange (an end-of-round re-test): follow the wound it tests
    found = _WOUND.search(hint) or next(
        (m for m in (_WOUND.search(getattr(r.event, "purpose", "") or "") for r in command) if m), None
    )
    if found:
        location = found.group(1)
        wound = ix.newest(
            ev.WoundInflicted,
            lambda e: e.target == handle and e.location == location,
            before=cause.version,
            key=("target", handle),
        )
        if wound is not None:
            links += _back_from(ix, wound, handle)
    return links


def _cause_record(ix: LogIndex, handle: str, cond: ev.Condition) -> Recorded | None:
    if cond.cause > 0:
        ix.ensure(cond.cause)
    rec = ix.by_version.get(cond.cause)
    if rec is not None:
        return rec
    # the cause is not live (or not recorded right): the event that applied it
    return ix.newest(
        ev.ConditionApplied,
        lambda e: e.handle == handle and e.condition.id == cond.id,
        key=("handle", handle),
    )


def _condition_chain(ix: LogIndex, state: State, c: Combatant, cond: ev.Condition) -> Chain:
    where = f" ({cond.location})" if cond.location and cond.location not in cond.id.split(":", 1)[0] else ""
    head = f"{c.name} is {cond.name.upper()}" if cond.name == "unconscious" else f"{c.name}: {cond.name}{where}"
    extra = []
    if cond.effects:
        signed = ("penalty", "reaction-bonus", "next-reaction")
        extra.append(
            ", ".join(
                f"{k} {v:+d}" if k in signed else (k if v == 1 and k != "lost-actions" else f"{k} {v}")
                for k, v in cond.effects.items()
            )
        )
    if cond.note:
        extra.append(cond.note)
    title = f"{head} since round {cond.since_round}, step {cond.since_step}" + (f" ({'; '.join(extra)})" if extra else "")
    chain = Chain("condition", cond.id, title, f"{cond.since_round}.{cond.since_step}", cond.cause)
    cause = _cause_record(ix, c.handle, cond)
    if cause is not None:
        chain.links = _back_from(ix, cause, c.handle, cond.note)
    chain.rulings = _rulings(ix, chain.links, state.rulings)
    return chain


def _status_chain(ix: LogIndex, state: State, c: Combatant) -> Chain | None:
    rec = ix.newest(ev.StatusChanged, lambda e: e.handle == c.handle, key=("handle", c.handle))
    if rec is None:
        return None
    rnd, step = ix.where.get(rec.version, (0, 0))
    title = f"{c.name} is {c.status.upper()} since round {rnd}, step {step}" + (
        f" ({rec.event.reason})" if rec.event.reason else ""
    )
    chain = Chain("status", c.status, title, f"{rnd}.{step}", rec.version)
    chain.links = _back_from(ix, rec, c.handle, rec.event.reason)
    chain.rulings = _rulings(ix, chain.links, state.rulings)
    return chain


def _location_chains(ix: LogIndex, state: State, c: Combatant, location: str) -> list[Chain]:
    chains = []
    hits = ix.every(
        ev.DamageDealt, lambda e: e.target == c.handle and e.location == location, key=("target", c.handle)
    )
    for rec in reversed(hits):
        rnd, step = ix.where.get(rec.version, (0, 0))
        title = f"{rec.event.final} HP lost to the {location} in round {rnd}, step {step}"
        chain = Chain("location", location, title, f"{rnd}.{step}", rec.version)
        after = [
            r
            for r in ix.commands.get(rec.command_id, [])
            if r.version > rec.version and isinstance(r.event, ev.WoundInflicted)
            and r.event.target == c.handle and r.event.location == location
        ]
        chain.links = [ix.link(r) for r in after] + _back_from(ix, rec, c.handle)
        chain.rulings = _rulings(ix, chain.links, state.rulings)
        chains.append(chain)
    return chains


def _location_headline(c: Combatant, location: str, hits: int) -> str:
    loc = c.location(location)
    wound = f", {loc.wound} wound" if loc.wound else ""
    times = "never hit" if not hits else f"hit {hits} time{'s' if hits > 1 else ''}"
    return f"{c.name}'s {location}: {loc.hp}/{loc.max_hp} HP{wound}, {times}"


def _norm(text: str) -> str:
    return re.sub(r"[\s_-]+", " ", text.strip().lower())


def why(records: list[Recorded], state: State, handle: str, subject: str = "") -> dict:
    """The causal chains for ``handle`` (see the module docstring) as the
    documented JSON shape. Raises ``ValueError`` with one line when the
    subject is neither a location nor a condition of the combatant."""
    if handle not in state.combatants:
        raise ValueError(f"no combatant {handle!r} in this encounter")
    return _why(LogIndex(records), state, handle, subject)


def why_store(store, encounter_id: str, state: State, handle: str, subject: str = "") -> dict:
    """:func:`why` for an encounter of ``store``, without reading the whole
    log (:class:`StoreIndex`): from a condition's ``cause`` version, the
    windows of the log around it and around the events the chain leads to.
    The same answer as ``why(list(store.read(encounter_id)), ...)``."""
    if handle not in state.combatants:
        raise ValueError(f"no combatant {handle!r} in this encounter")
    return _why(StoreIndex(store, encounter_id), state, handle, subject)


def _why(ix: LogIndex, state: State, handle: str, subject: str) -> dict:
    c = state.combatants[handle]
    chains: list[Chain] = []
    headline = ""
    wanted = _norm(subject)
    if wanted:
        locs = [loc.name for loc in c.locations if _norm(loc.name) == wanted]
        conds = [x for x in c.conditions if _norm(x.id) == wanted or _norm(x.name) == wanted]
        if locs:
            chains = _location_chains(ix, state, c, locs[0])
            headline = _location_headline(c, locs[0], len(chains))
        elif conds:
            chains = [_condition_chain(ix, state, c, x) for x in conds]
        elif wanted == c.status and c.status != "active":
            found = _status_chain(ix, state, c)
            chains = [found] if found else []
        else:
            names = ", ".join(loc.name for loc in c.locations)
            now = ", ".join(x.id for x in c.conditions) or "none"
            raise ValueError(
                f"{c.name} has no location or condition called {subject!r} (locations: {names}; conditions now: {now})"
            )
    else:
        covered = c.status == "unconscious" and c.has("unconscious")
        if c.status != "active" and not covered:
            found = _status_chain(ix, state, c)
            if found:
                chains.append(found)
        first = sorted(c.conditions, key=lambda x: x.name != "unconscious")  # the headline first
        chains += [_condition_chain(ix, state, c, x) for x in first]
    return {
        "combatant": c.handle,
        "name": c.name,
        "status": c.status,
        "subject": subject,
        "headline": headline,
        "chains": [ch.data() for ch in chains],
    }


def why_lines(data: dict, state: State | None = None) -> list[str]:
    """The human view of :func:`why` (UX.md's example shape)."""
    lines: list[str] = [data["headline"]] if data.get("headline") else []
    if not data["chains"] and not lines:
        lines.append(f"{data['name']} is {data['status']}, with no conditions.")
        if state is not None:
            c = state.combatants[data["combatant"]]
            hurt = [f"{loc.name} {loc.hp}/{loc.max_hp}" for loc in c.locations if loc.hp < loc.max_hp]
            if hurt:
                lines.append(f"  Hurt: {', '.join(hurt)}; ask 'affray why {c.handle} LOCATION'.")
        return lines
    for chain in data["chains"]:
        lines.append(chain["title"])
        for link in chain["links"]:
            rolls = "; ".join(r["text"] for r in link["rolls"])
            where = f"round {link['round']}, step {link['step']}, {link['command_id']} by {link['actor']}"
            lines.append(f"  ← {link['text']}" + (f"  [{rolls}]" if rolls else "") + f"  ({where})")
        if chain["rulings"]:
            lines.append(
                "  rulings: " + "; ".join(f"{r['name']}={r['value']} ({r['why']})" if r["why"] else f"{r['name']}={r['value']}" for r in chain["rulings"])
            )
    return lines


# --------------------------------------------------------------------------- #
# replay
# --------------------------------------------------------------------------- #


def replay(records: list[Recorded], round_no: int) -> dict:
    """Round ``round_no`` step by step (the documented JSON shape). A
    command that starts the round (its strike ranks) is its step 0, and it
    also closes the round before. Raises ``ValueError`` with one line when
    the live timeline has no such round."""
    from affray.commands.points import command_points, command_text

    ix = LogIndex(records)
    points = command_points(records, ix.timeline)
    rounds = sorted({p.start[0] for p in points} | {p.end[0] for p in points})
    chosen = [p for p in points if p.start[0] == round_no or p.end == (round_no, 0)]
    if not chosen or round_no not in rounds:
        shown = f"{rounds[0]}–{rounds[-1]}" if rounds else "none yet"
        raise ValueError(f"the live timeline has no round {round_no} (rounds: {shown}); 'affray log' shows the fight")
    steps = []
    for p in chosen:
        step = 0 if p.end == (round_no, 0) else p.start[1]
        lines = [ix.text(r) for r in p.records if not isinstance(r.event, ev.DiceRolled) and ix.text(r)]
        rolls = [roll_data(r) for r in p.records if isinstance(r.event, ev.DiceRolled) and r.event.faces]
        steps.append(
            {
                "step": step,
                "command_id": p.command_id,
                "actor": p.actor,
                "command": command_text(p.issued.command, p.issued.dice) if p.issued is not None else p.kind,
                "lines": lines,
                "rolls": rolls,
            }
        )
    return {"round": round_no, "steps": steps}


def replay_lines(data: dict) -> list[str]:
    """The human view of :func:`replay`."""
    out = [f"Round {data['round']}"]
    for s in data["steps"]:
        out.append(f"{data['round']}.{s['step']}  {s['command_id']}  {s['actor']}: {s['command']}")
        out += [f"    {line}" for line in s["lines"]]
        out += [f"    roll: {r['text']} for {r['purpose']}" for r in s["rolls"]]
    return out
