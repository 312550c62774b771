"""The live log indexed for the questions ``why`` and ``replay`` ask: each
live record's round, step, exchange and rolls (:class:`LogIndex`, from a
list of records), or the same answers read window by window from a store
(:class:`StoreIndex`, whose cost does not grow with the fight). Also the
rolls' JSON shape and text (:func:`roll_data`, :func:`roll_text`). It only
reads; it never rules."""

from __future__ import annotations

from bisect import bisect_right

import msgspec

from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.events import codec
from affray.projections.timeline import Liveness, Timeline, is_meta
from affray.views.narrate import command_batches, names_of, narrate, system_of

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


class Link(msgspec.Struct):
    """One step of a chain: an event with its rolls and modifiers."""

    rec: Recorded
    round: int
    step: int
    text: str
    exchange: int = 0
    rolls: list[Recorded] = msgspec.field(default_factory=list)

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


class LogIndex:
    """What ``why`` and ``replay`` need to know about the live log, in one
    pass: each live record's round, step, exchange and rolls.

    The queries the chains make (:meth:`newest`, :meth:`every`,
    :meth:`last_hit`) scan that index; :class:`StoreIndex` answers the same
    queries from the store instead, reading only small windows of the log."""

    def __init__(self, records: list[Recorded] | None = None):
        self.names: dict[str, str] = {}
        self.system = ""  # the rule system key, for its words in the lines
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
        self.system = system_of(records)
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
        return narrate(rec.event, self.names, self.system)

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
        last, known = window.last, len(self.live)
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
        # windows are walked in any order: put back in version order the lists this walk added to
        added = self.live[known:]
        by_version = lambda r: r.version  # noqa: E731
        for cid in {r.command_id for r in added}:
            self.commands[cid].sort(key=by_version)
        for xid in {self.exchange_of[r.version] for r in added if r.version in self.exchange_of}:
            self.exchanges[xid].sort(key=by_version)
        if added and known and self.live[known - 1].version > added[0].version:
            self.live.sort(key=by_version)

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
