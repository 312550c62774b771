"""``evolve(state, recorded) -> state``: the pure fold step.

Pure: it reads the event and the old state and returns a new state; it never
rolls, never rules and never touches the store (DESIGN.md invariants 2–3).
It knows no rule system: system-specific events it does not know are facts
for the log only and leave the state as it was (their consequences arrive as
shared events).

Meta events (retract, restore, rewind) are handled one level up, by
:mod:`affray.projections.timeline`, which decides which events are live.
"""

from __future__ import annotations

import functools
from typing import Callable, Iterable

import msgspec
from msgspec.structs import replace

from affray.events import codec
from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.projections.state import Combatant, Exchange, Location, State

#: A fold handler: ``(state, event, version) -> state`` (``version`` is the
#: event's log version).
Handler = Callable[[State, ev.Event, int], State]
_HANDLERS: dict[type, Handler] = {}


def _on(cls: type) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        _HANDLERS[cls] = fn
        return fn

    return register


#: What a handler raises on an event that does not fit the state before it
#: (a combatant, location or exchange that is not there): a log edited by hand.
_INCONSISTENT = (KeyError, IndexError, LookupError, TypeError, ValueError, AttributeError)


def _inconsistent(version: int, event: object, exc: BaseException) -> Exception:
    from affray.errors import LogInconsistent  # a leaf module: it imports nothing of affray's

    tag = getattr(type(event), "__struct_config__", None)
    return LogInconsistent(version, getattr(tag, "tag", None) or type(event).__name__, exc)


def evolve(state: State, rec: Recorded) -> State:
    """Fold one live recorded event into ``state`` and return the new state."""
    if rec.command_id != state.last_command:
        state = replace(state, last_command=rec.command_id, step=state.step + 1, version=rec.version)
    else:
        state = replace(state, version=rec.version)
    handler = _HANDLERS.get(type(rec.event))
    if handler is None:
        return state
    try:
        return handler(state, rec.event, rec.version)
    except _INCONSISTENT as exc:
        raise _inconsistent(rec.version, rec.event, exc) from exc


def folded_tags() -> frozenset[str]:
    """The type tags of the events the fold acts on; any other event only
    moves the version and step (``read_live(only=...)`` skips decoding it)."""
    return frozenset(cls.__struct_config__.tag for cls in _HANDLERS)


def fold_fast(state: State, records) -> State:
    """The same as folding :func:`evolve` over ``records``, with the
    bookkeeping (version, step, last command) kept in locals and written
    once at the end: the replay hot path. No handler reads those fields;
    ``RoundStarted`` and ``EncounterOpened`` reset the step, as in :func:`evolve`."""
    step, last, version = state.step, state.last_command, state.version
    handlers = _HANDLERS
    resets = (ev.RoundStarted, ev.EncounterOpened)  # the handlers that set step=0
    for rec in records:
        if rec.command_id != last:
            last = rec.command_id
            step += 1
        version = rec.version
        event = rec.event
        handler = handlers.get(type(event))
        if handler is not None:
            try:
                state = handler(state, event, version)
            except _INCONSISTENT as exc:
                raise _inconsistent(rec.version, rec.event, exc) from exc
            if type(event) in resets:
                step = 0
    if (step, last, version) != (state.step, state.last_command, state.version):
        state = replace(state, step=step, last_command=last, version=version)
    return state



#: How :func:`fold_rows` treats a row, by its type: leave it out (``_META``:
#: undo, redo and rewind, the timeline's business), only move the version and
#: step (``_SILENT``: a type the fold has no handler for, never decoded), call
#: its handler (``_CALL``), call it and reset the step (``_RESETS``), or keep
#: the field it sets in a local, written once at the end (``_DICE``:
#: ``next_roll_index``; ``_AWAITED``: ``pending``, of which only the last one
#: counts, so only the last is decoded; no other handler reads either field,
#: and ``_CLOSED`` is the one other handler that sets ``pending``). A fifth of
#: a fight's events are dice rolls and a sixth the steps the table waits for,
#: so this spares a copy of the whole ``State`` for each.
_META, _SILENT, _CALL, _RESETS, _DICE, _AWAITED, _CLOSED = range(7)
_KIND = {
    ev.RoundStarted: _RESETS, ev.EncounterOpened: _RESETS,
    ev.DiceRolled: _DICE, ev.StepsAwaited: _AWAITED, ev.EncounterClosed: _CLOSED,
}


class _Roll(msgspec.Struct):
    """The three fields of a ``dice-rolled`` event the fold reads (the
    others are skipped by the decoder, not built)."""

    faces: tuple[int, ...]
    source: str
    index: int = -1


#: row key (UTF-8 bytes, as the store gives it: the type tag, or
#: ``tag@schema`` for a row stored at a schema other than 1) ->
#: ``(kind, decode, handler)``; filled on first sight.
_ROWS: dict[bytes, tuple[int, Callable | None, Handler | None]] = {}


def _row_entry(key: bytes) -> tuple[int, Callable | None, Handler | None]:
    tag, _, schema = key.decode("utf-8", "replace").partition("@")
    cls = codec.EVENT_TYPES.get(tag)
    handler = None if cls is None else _HANDLERS.get(cls)
    if cls in ev.META_EVENTS:
        entry = (_META, None, None)
    elif handler is None:
        entry = (_SILENT, None, None)
    else:
        kind = _KIND.get(cls, _CALL)
        stored = int(schema) if schema.isdigit() else (1 if not schema else -1)
        if stored != cls.schema:  # behind (upcast) or not a schema at all (the decode says so)
            decode = functools.partial(codec.decode, tag, stored)
        elif kind == _DICE:
            decode = msgspec.json.Decoder(_Roll).decode
        else:
            decode = codec.typed_decoder(tag)
        entry = (kind, decode, handler)
    _ROWS[key] = entry
    return entry


def fold_rows(
    state: State, rows: Iterable[tuple[bytes, bytes, bytes]], skip: frozenset[str] = frozenset(), first: int = 1
) -> tuple[State, int]:
    """The replay's hot path: fold stored rows ``(command_id, key, data)``
    into ``state``; returns ``(state, rows read)``.

    The rows are the versions ``first, first + 1, ...`` in order, with no gap
    (the store checks that against the count this returns); ``key`` is the
    type tag, or ``tag@schema`` when the row is stored at a schema other than
    1; all three are UTF-8 bytes, which the store reads without decoding.
    Each event the fold reads is decoded once and its handler called from a
    table keyed on ``key``. The state is :func:`fold_fast` over the same
    events read with ``read_live(skip=skip, only=folded_tags())``: undo, redo
    and rewind rows and the rows of the commands in ``skip`` are left out;
    rows of a type the fold has no handler for (``command-issued``,
    ``skill-tested``, an unknown tag) only move the version and step and are
    never decoded; of the ``steps-awaited`` rows only the last is decoded
    (only it sets ``pending``), and of a ``dice-rolled`` row only ``faces``,
    ``source`` and ``index``; a row behind its type's current schema is
    upcast (:func:`affray.events.codec.decode`). Decoding every row whole is
    ``affray verify``'s job, not the replay's.

    Errors: :class:`affray.events.codec.Undecodable` (with the version) for
    data the fold decodes that does not decode, for the store to report;
    :class:`affray.errors.LogInconsistent` as :func:`evolve`.
    """
    table, entry_of, errors = _ROWS, _row_entry, codec.DECODE_ERRORS
    skip = frozenset(c.encode() for c in skip) if skip else None
    step, last, version = state.step, state.last_command.encode(), state.version
    pending, next_roll, awaited = state.pending, state.next_roll_index, None
    v = first - 1
    for command_id, key, data in rows:
        v += 1
        kind, decode, handler = table.get(key) or entry_of(key)
        if kind == _META or (skip and command_id in skip):
            continue
        version = v
        if command_id != last:
            last = command_id
            step += 1
        if kind == _SILENT:
            continue
        if kind == _AWAITED:  # as _awaited, decoded at the end if it is the last
            awaited = (decode, data, v)
            continue
        try:
            event = decode(data)
        except errors as exc:
            raise codec.Undecodable(v, exc) from exc
        if kind == _DICE:  # as _dice
            if event.source == "engine" and event.index >= 0 and event.index + len(event.faces) > next_roll:
                next_roll = event.index + len(event.faces)
            continue
        try:
            state = handler(state, event, v)
        except _INCONSISTENT as exc:
            raise _inconsistent(v, event, exc) from exc
        if kind == _RESETS:
            step = 0
        elif kind == _CLOSED:
            pending, awaited = state.pending, None
    if awaited is not None:
        decode, data, at = awaited
        try:
            pending = decode(data).steps
        except errors as exc:
            raise codec.Undecodable(at, exc) from exc
    try:
        last = last.decode()
    except UnicodeDecodeError as exc:  # a command id that is not UTF-8: a file edited by hand
        raise codec.Undecodable(version, exc) from exc
    if (step, last, version, pending, next_roll) != (
        state.step, state.last_command, state.version, state.pending, state.next_roll_index
    ):
        state = replace(state, step=step, last_command=last, version=version, pending=pending, next_roll_index=next_roll)
    return state, v - first + 1


def _with(state: State, handle: str, **changes) -> State:
    combatants = dict(state.combatants)
    combatants[handle] = replace(combatants[handle], **changes)
    return replace(state, combatants=combatants)


# --------------------------------------------------------------------------- #


@_on(ev.EncounterOpened)
def _opened(state: State, e: ev.EncounterOpened, version: int) -> State:
    return replace(
        state,
        encounter_id=e.encounter_id,
        name=e.name,
        system=e.system,
        seed_sha256=e.seed_sha256,
        manual_dice=e.manual_dice,
        rulings=dict(e.rulings),
        dice_stream=e.dice_stream,
        step=0,
    )


@_on(ev.EncounterClosed)
def _closed(state: State, e: ev.EncounterClosed, version: int) -> State:
    return replace(state, phase="closed", seed=e.seed, turn=(), pending=())


@_on(ev.CombatantJoined)
def _joined(state: State, e: ev.CombatantJoined, version: int) -> State:
    c = Combatant(
        handle=e.handle,
        name=e.name,
        side=e.side,
        sheet=e.sheet,
        locations=tuple(
            Location(l.name, l.hp, l.hp, l.ap, l.low, l.high, l.limb) for l in e.locations
        ),
        max_combat_actions=e.combat_actions,
        max_reactions=e.reactions,
        movement=e.movement,
        ready=e.weapons_ready,
        surprised=e.surprised,
        joined_version=version,
    )
    combatants = dict(state.combatants)
    combatants[e.handle] = c
    return replace(state, combatants=combatants)


@_on(ev.RoundStarted)
def _round_started(state: State, e: ev.RoundStarted, version: int) -> State:
    combatants = {
        h: replace(
            c,
            combat_actions=e.combat_actions.get(h, 0),
            reactions=e.reactions.get(h, 0),
            actions_taken=0,
        )
        for h, c in state.combatants.items()
    }
    return replace(
        state,
        round=e.round,
        step=0,
        phase="round",
        order=e.order,
        turn=(),
        action_no=0,
        combatants=combatants,
    )


@_on(ev.OrderChanged)
def _order_changed(state: State, e: ev.OrderChanged, version: int) -> State:
    combatants = dict(state.combatants)
    for h, n in e.combat_actions.items():
        if h in combatants:
            combatants[h] = replace(combatants[h], combat_actions=n)
    for h, n in e.reactions.items():
        if h in combatants:
            combatants[h] = replace(combatants[h], reactions=n)
    return replace(state, order=e.order, combatants=combatants)


@_on(ev.TurnBegan)
def _turn(state: State, e: ev.TurnBegan, version: int) -> State:
    return replace(state, turn=e.handles, action_no=e.action_no)


@_on(ev.ActionSpent)
def _spent(state: State, e: ev.ActionSpent, version: int) -> State:
    # one of the fold's commonest events: written out rather than through _with
    combatants = dict(state.combatants)
    c = combatants[e.handle]
    if e.kind == "reaction":
        left = c.reactions - e.amount
        combatants[e.handle] = replace(c, reactions=left if left > 0 else 0)
    else:
        left = c.combat_actions - e.amount
        combatants[e.handle] = replace(
            c, combat_actions=left if left > 0 else 0, actions_taken=c.actions_taken + e.amount)
    return replace(state, combatants=combatants)


@_on(ev.RoundEnded)
def _round_ended(state: State, e: ev.RoundEnded, version: int) -> State:
    combatants = {h: replace(c, combat_actions=0, reactions=0) for h, c in state.combatants.items()}
    return replace(state, phase="between", turn=(), combatants=combatants)


@_on(ev.StepsAwaited)
def _awaited(state: State, e: ev.StepsAwaited, version: int) -> State:
    return replace(state, pending=e.steps)


@_on(ev.FightEnded)
def _fight_ended(state: State, e: ev.FightEnded, version: int) -> State:
    return replace(state, phase="over", winner=e.winner, turn=())


@_on(ev.DiceRolled)
def _dice(state: State, e: ev.DiceRolled, version: int) -> State:
    if e.source == "engine" and e.index >= 0:
        nxt = e.index + len(e.faces)
        if nxt > state.next_roll_index:
            return replace(state, next_roll_index=nxt)
    return state


@_on(ev.AttackDeclared)
def _attack(state: State, e: ev.AttackDeclared, version: int) -> State:
    x = Exchange(
        id=e.exchange,
        attacker=e.attacker,
        target=e.target,
        weapon=e.weapon,
        kind=e.kind,
        modifiers=e.modifiers,
        declared_version=version,
    )
    after = e.exchange + 1
    return replace(state, exchange=x, next_exchange=after if after > state.next_exchange else state.next_exchange)


@_on(ev.AttackResolved)
def _attack_resolved(state: State, e: ev.AttackResolved, version: int) -> State:
    if state.exchange is None:
        return state
    x = replace(
        state.exchange,
        resolved=True,
        hit=e.hit,
        critical=e.critical,
        fumble=e.fumble,
        roll=e.roll,
        skill=e.skill,
    )
    return replace(state, exchange=x)


@_on(ev.ReactionChosen)
def _reaction(state: State, e: ev.ReactionChosen, version: int) -> State:
    if state.exchange is None:
        return state
    return replace(state, exchange=replace(state.exchange, reaction=e.reaction, with_item=e.with_item))


@_on(ev.ReactionResolved)
def _reaction_resolved(state: State, e: ev.ReactionResolved, version: int) -> State:
    if state.exchange is None:
        return state
    x = state.exchange
    effects = dict(e.effects)
    return replace(
        state,
        exchange=replace(
            x,
            effects=effects,
            hit=bool(effects.get("hit", x.hit)),
            critical=bool(effects.get("critical", 0)) or x.critical,
        ),
    )


@_on(ev.ExchangeEnded)
def _exchange_ended(state: State, e: ev.ExchangeEnded, version: int) -> State:
    return replace(state, exchange=None)


def _set_location(state: State, handle: str, name: str, **changes) -> State:
    c = state.combatants[handle]
    locs = tuple(replace(l, **changes) if l.name == name else l for l in c.locations)
    return _with(state, handle, locations=locs)


@_on(ev.DamageDealt)
def _damage(state: State, e: ev.DamageDealt, version: int) -> State:
    # one of the fold's commonest events: the location found and replaced in one pass
    combatants = dict(state.combatants)
    c = combatants[e.target]
    locs = list(c.locations)
    for i, loc in enumerate(locs):
        if loc.name == e.location:
            locs[i] = replace(loc, hp=loc.hp - e.final)
            break
    else:
        raise KeyError(e.location)
    combatants[e.target] = replace(c, locations=tuple(locs))
    return replace(state, combatants=combatants)


@_on(ev.HitPointsRestored)
def _healed(state: State, e: ev.HitPointsRestored, version: int) -> State:
    loc = state.combatants[e.handle].location(e.location)
    return _set_location(state, e.handle, e.location, hp=min(loc.max_hp, loc.hp + e.amount))


_SEVERITY = {"": 0, "minor": 1, "wound": 1, "serious": 2, "major": 3}  # "wound": uesrpg's one kind


@_on(ev.WoundInflicted)
def _wound(state: State, e: ev.WoundInflicted, version: int) -> State:
    loc = state.combatants[e.target].location(e.location)
    if _SEVERITY.get(e.severity, 0) > _SEVERITY.get(loc.wound, 0):
        return _set_location(state, e.target, e.location, wound=e.severity)
    return state


@_on(ev.WoundEased)
def _eased(state: State, e: ev.WoundEased, version: int) -> State:
    return _set_location(state, e.target, e.location, wound=e.severity)


@_on(ev.ConditionApplied)
def _condition(state: State, e: ev.ConditionApplied, version: int) -> State:
    c = state.combatants[e.handle]
    kept = tuple(x for x in c.conditions if x.id != e.condition.id)
    return _with(state, e.handle, conditions=kept + (e.condition,))


@_on(ev.ConditionExpired)
def _expired(state: State, e: ev.ConditionExpired, version: int) -> State:
    c = state.combatants[e.handle]
    return _with(state, e.handle, conditions=tuple(x for x in c.conditions if x.id != e.condition_id))


@_on(ev.StanceChanged)
def _stance(state: State, e: ev.StanceChanged, version: int) -> State:
    return _with(state, e.handle, stance=e.stance)


@_on(ev.StatusChanged)
def _status(state: State, e: ev.StatusChanged, version: int) -> State:
    return _with(state, e.handle, status=e.status)


@_on(ev.CombatantMoved)
def _moved(state: State, e: ev.CombatantMoved, version: int) -> State:
    return _with(state, e.handle, moved=state.combatants[e.handle].moved + e.distance)


@_on(ev.EngagementChanged)
def _engagement(state: State, e: ev.EngagementChanged, version: int) -> State:
    def update(c: Combatant, other: str) -> tuple[str, ...]:
        rest = tuple(h for h in c.engaged if h != other)
        return rest + (other,) if e.engaged else rest

    state = _with(state, e.a, engaged=update(state.combatants[e.a], e.b))
    return _with(state, e.b, engaged=update(state.combatants[e.b], e.a))


@_on(ev.WeaponDropped)
def _dropped(state: State, e: ev.WeaponDropped, version: int) -> State:
    c = state.combatants[e.handle]
    return _with(state, e.handle, ready=tuple(w for w in c.ready if w != e.weapon))


@_on(ev.WeaponReadied)
def _readied(state: State, e: ev.WeaponReadied, version: int) -> State:
    c = state.combatants[e.handle]
    if e.weapon in c.ready:
        return state
    return _with(state, e.handle, ready=c.ready + (e.weapon,))


# -- GM rulings (issue 16) ----------------------------------------------------


@_on(ev.HitPointsSet)
def _hp_set(state: State, e: ev.HitPointsSet, version: int) -> State:
    state.combatants[e.handle].location(e.location)  # KeyError: not there (a log edited by hand)
    return _set_location(state, e.handle, e.location, hp=e.hp)


@_on(ev.CombatantOut)
def _out(state: State, e: ev.CombatantOut, version: int) -> State:
    return _with(state, e.handle, status="dead" if e.how == "dead" else "out")


@_on(ev.RulingChanged)
def _ruling(state: State, e: ev.RulingChanged, version: int) -> State:
    return replace(state, rulings={**state.rulings, e.name: e.value})
