"""Handle a command: load state → rules decide → append atomically.

``execute(store, command, ...)`` is the one door through which every change
to the log passes, from the CLI or from Python. It loads the encounter's state
(snapshot + tail), asks the encounter's rule system to decide, checks the
dice, and appends every resulting event in one transaction at the version it
expects (DESIGN.md invariants 4 and 5). On any refusal nothing is appended.

Errors (all one line, for the CLI to print): :class:`affray.rules.base.RuleError`,
:class:`affray.dice.DiceError`, :class:`affray.store.StoreError`
(``ConflictError`` when another writer got in first).
"""

from __future__ import annotations

import msgspec

from affray import dice as dicelib
from affray.events import commands as cmd
from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.projections.evolve import evolve
from affray.projections.snapshots import dump, load_state, wants_snapshot
from affray.projections.state import State
from affray.projections.timeline import numbered_version
from affray.commands.core import Outcome, check_encounter_id, slug, with_issued  # Outcome and slug are also imported from here
from affray.commands.lookup import resolve_encounter
from affray.commands.points import newest_live_command, redo_stack
from affray.commands.travel import branch, rewind_events
from affray.rules import base
from affray.store.errors import StoreError


_STEP_VERBS = {
    cmd.DeclareAttack: ("turn", "flurry"),
    cmd.ChooseReaction: ("react", "riposte", "free-attack", "dive"),
    cmd.TakeAction: ("turn",),
    cmd.RollPending: ("damage", "wound", "knockback", "yank", "yank-damage", "retest")
    + ("free-attack-test", "action-roll", "area-damage", "disarm", "item-damage", "wall-damage")  # mrq1 actions
    # mythras roll steps (rules/mythras: damage, effects, actions, turns)
    + ("trip", "footing", "bash", "blind", "weapon-damage", "entangle", "injury",
       "outmaneuver", "struggle", "cast", "counter-spell", "assess")
    + ("tests", "block", "shock")  # uesrpg roll steps (rules/uesrpg: contest, damage, wounds)
    + ("critical", "fumble", "perception"),  # rolemaster roll steps (rules/rolemaster)
    cmd.StartRound: ("start",),
    cmd.EndRound: ("end-round",),
}


# rq3 (rules/rq3): the declared attack at its SR, and its roll steps
_STEP_VERBS[cmd.DeclareAttack] += ("strike",)
_STEP_VERBS[cmd.RollPending] += ("maneuver", "terrain", "fall", "breakfall", "grapple-hold", "grapple-follow", "thrown",
                                  "disarm", "weapon-hit", "limb-location")
_STEP_VERBS[cmd.ChooseReaction] += ("parry-miss",)


def execute(
    store,
    command: cmd.Command,
    *,
    encounter_id: str | None = None,
    dice: str = "",
    actor: str = "",
    seed: bytes | None = None,
    reroll: str = "",
    note: str = "",
    salt: str = "",
    typed_by: str | None = None,
    guard: bool = True,
    allow_short_seed: bool = False,
    ahead: SlotsAhead | None = None,
) -> Outcome:
    """Handle ``command`` and append its events; return the :class:`Outcome`.

    ``dice`` are table values in the order ``affray pending`` lists them;
    ``seed`` fixes the dice seed of a new encounter (for reproducible runs);
    ``reroll`` is the GM's reason for rolling anew where an undone or
    rewound command stood (logged as a note; without it, the dice rolled
    there must be reused: :func:`_guard_reroll`);
    ``note`` is added as the last event of a fight command's batch (amend
    marks the commands it re-issues with it); ``salt`` is the command's own
    salt, mixed into its engine rolls only (:mod:`affray.dice`, "Salts");
    ``typed_by`` is who typed the table dice (default: ``actor``; amend's
    replay keeps the original typist); ``guard=False`` skips the re-roll
    guard, for amend, which re-issues recorded faces and checks its own
    ``--dice`` (:func:`_guard_reroll`); ``ahead`` carries the guard's map
    from one command to the next (:class:`SlotsAhead`: amend's replay, which
    issues many commands in a row on one log).

    A chosen ``seed`` shorter than 16 bytes is refused (``RuleError``, a
    ``ValueError``, with the words ``affray new --seed`` prints:
    :func:`affray.dice.short_seed_refusal`), unless ``allow_short_seed``:
    for a seed that is public anyway (the demo scenarios' built-in seeds,
    test fixtures); it is recorded as chosen like any other.
    """
    if isinstance(command, cmd.OpenEncounter):
        if not allow_short_seed:
            refusal = dicelib.short_seed_refusal(seed, manual_dice=command.manual_dice)
            if refusal:
                raise base.RuleError(refusal)
        return _open(store, command, actor=actor, seed=seed)
    eid = resolve_encounter(store, encounter_id)
    if isinstance(command, cmd.BranchEncounter):
        return branch(store, command, origin=eid, actor=actor)
    # cut at one head version: read piecemeal, a newer event could count in
    # state.version without being folded in, and the append would not conflict
    state = load_state(store, eid, at_version=store.version(eid))
    if state.phase == "closed":
        raise base.RuleError(f"encounter {eid} is closed; open a new one with 'affray new'")
    values = dicelib.parse_values(dice) if dice.strip() else []
    if isinstance(command, (cmd.Undo, cmd.Redo, cmd.AddNote, cmd.CloseEncounter, cmd.Rewind, cmd.AddSalt)):
        if values:
            raise base.RuleError(f"'{command.__struct_config__.tag}' rolls no dice; drop --dice")
        events = _meta(store, eid, state, command)
    else:
        system = base.get(state.system)
        seed = store.get_seed(eid)
        roller = dicelib.Roller(  # a branch derives engine dice with its origin's id
            seed, state.dice_stream or eid, state.next_roll_index, values,
            manual=state.manual_dice or seed is None, typed_by=actor if typed_by is None else typed_by,
            salts=store.salts(eid), command_salt=salt,
        )
        step = _step_for(state, command)
        _check_exchange_open(state, command)
        issued = ev.CommandIssued(
            command=msgspec.to_builtins(command), dice=tuple(values), reroll=reroll,
            salt=salt if salt else msgspec.UNSET,
        )
        ready = with_issued(state, issued)
        try:
            events = [issued] + system.decide(ready, command, roller)
        except dicelib.MissingDice as exc:
            rest = step.dice[_values_to_needs(step, values) :] if step is not None else ()
            missing = dicelib.MissingDice([(d.purpose, d.expr) for d in rest]) if rest else exc
            if seed is None and not state.manual_dice:
                raise base.RuleError(
                    f"the dice seed of {eid} is not in its key file {store.keys.path or '(memory)'} "
                    f"(an imported open encounter, or the key file was lost or changed), "
                    f"so the engine cannot roll; {missing}"
                ) from None
            raise missing from None
        roller.finish()
        if guard:
            events = _guard_reroll(store, eid, state, events, reroll, actor, ahead)
        if note:
            events.append(ev.NoteAdded(text=note))
    out = _append(store, eid, state, events, actor)
    if ahead is not None:
        ahead.appended(state.version, out)
    return out


def _guard_reroll(
    store, eid: str, state: State, events: list[ev.Event], reroll: str, actor: str, carried: SlotsAhead | None = None
) -> list[ev.Event]:
    """Undo must not become a way to re-roll (DESIGN.md, "Undo, redo...").

    A die is known by its place among the dice of the live log: the n-th die
    rolled since the encounter opened (:func:`rolled_slots`). A command
    issued where an undone or rewound command stood (after any number of
    undos, a rewind, and for every command re-issued there, not only the
    first) must show the faces the log already rolled at those places,
    whatever their source, for each die of the same size as the one rolled
    there (a die of another size belongs to another command: the decision
    changed, not the dice): engine dice re-derive the same faces by
    construction (roll numbers follow the live log, and a salt never changes
    a roll already drawn), and typed dice must repeat them. A new face needs
    the GM's ``--reroll REASON``, logged as a note; without it the command is
    refused with nothing written.
    """
    new = [(f, sides) for e in events if isinstance(e, ev.DiceRolled) for f, sides in _sided(e.expr, e.faces)]
    if not new:
        return events
    ahead = carried.at(store, eid, state.version) if carried is not None else slots_ahead(store, eid, state.version)
    old = [ahead.get(i) for i in range(len(new))]
    # a die of another size is another die (the command changed), not a re-roll
    changed = [(i, o[2]) for i, (o, n) in enumerate(zip(old, new)) if o is not None and o[1] == n[1] and o[0] != n[0]]
    if not changed:
        return events
    cid = changed[0][1]
    if not reroll:
        shown = ",".join(str(o[0]) for o in old if o is not None and o[2] == cid)
        raise base.RuleError(
            f"the undone command {cid} was rolled with {shown}; type the same dice, "
            "or pass --reroll REASON to roll anew (the request is logged)"
        )
    # last, so the versions the rules numbered their events with stay right
    return events + [ev.NoteAdded(text=f"re-roll after undoing {cid}, asked by {actor or 'the GM'}: {reroll}")]


def _sided(expr: str, faces) -> list[tuple[int, int]]:
    """``(face, sides)`` of each die of a recorded roll."""
    try:
        sides = dicelib.parse(expr).dice
    except dicelib.DiceError:
        sides = (0,) * len(faces)
    return [(int(f), s) for f, s in zip(faces, sides)]


def rolled_slots(store, eid: str, to_version: int | None = None) -> tuple[dict[int, tuple[int, int, str]], int]:
    """The dice the log already rolled, by place: ``({slot: (face, sides,
    command_id)}, live)`` where ``live`` is the number of dice in the live
    log (the slot the next command's first die takes) and each slot at or
    after it holds the newest face an undone or rewound command rolled
    there. Empty when the log holds no undo or rewind (nothing to guard).

    Walks the commands that rolled dice (counted in SQL) and the undo, redo
    and rewind events in version order; only the few commands that rolled
    at or after ``live`` have their faces read. A log with undos pays this
    walk for each command (one row per command that rolled: about 20 ms for
    100,000 events).
    """
    metas = store.read_meta(eid, to_version=to_version)  # the log the command was decided on
    if not any(isinstance(m.event, (ev.CommandRetracted, ev.EncounterRewound)) for m in metas):
        return {}, 0
    return _walk_slots(store, eid, metas, store.dice_per_command(eid, to_version), 1)


def slots_ahead(store, eid: str, to_version: int | None = None) -> dict[int, tuple[int, int, str]]:
    """:func:`rolled_slots` counted from the live total: ``{slot - live:
    (face, sides, command_id)}`` (key 0 is the place of the next command's
    first die). The same map, read from the first version an undo, redo or
    rewind acted on (:func:`first_touched`) instead of the whole log: the
    commands before it were placed once, in order, and stay live, so they
    hold no place at or after the live total. A log whose undos are recent
    reads a few rows; one undone in round 1 still reads the whole log."""
    metas = store.read_meta(eid, to_version=to_version)
    if not any(isinstance(m.event, (ev.CommandRetracted, ev.EncounterRewound)) for m in metas):
        return {}
    low = first_touched(store, eid, metas)
    slots, total = _walk_slots(store, eid, metas, store.dice_per_command(eid, to_version, from_version=low), low)
    return {slot - total: v for slot, v in slots.items()}


class SlotsAhead:
    """:func:`slots_ahead` carried from one command to the next on one log,
    so a run of commands (amend's replay: every later command of the fight,
    after its rewind) does not walk the rolls from the rewind's point once
    per command (issue 17: 85 s of CPU for 1,700 commands on 15,000 events).

    The map is read from the store for the first command, and again
    whenever the log is not at the version the last command left it at.
    After a command that undoes, redoes or rewinds nothing, the map is the
    one before it with its keys moved down by the command's dice (it took
    the places from the live total on; the places after them keep what was
    rolled there): :func:`slots_ahead` of the log after it, without a read
    (``tests/test_history_fast.py`` compares the two). The move is kept as
    an offset, so a command costs the same however many places are ahead."""

    def __init__(self) -> None:
        self.version = -1
        self._read: dict[int, tuple[int, int, str]] = {}
        self._moved = 0

    @property
    def slots(self) -> dict[int, tuple[int, int, str]]:
        """The map as :func:`slots_ahead` gives it (a copy)."""
        return {k - self._moved: v for k, v in self._read.items() if k >= self._moved}

    def get(self, place: int) -> tuple[int, int, str] | None:
        """What was rolled at ``place`` (0: the next die), or None."""
        return self._read.get(place + self._moved) if place >= 0 else None

    def at(self, store, eid: str, version: int) -> SlotsAhead:
        """Itself, holding :func:`slots_ahead` of ``eid`` cut at ``version``
        (read from the store unless it already does)."""
        if version != self.version:
            self.version, self._read, self._moved = version, slots_ahead(store, eid, to_version=version), 0
        return self

    def appended(self, before: int, out) -> None:
        """Follow the command ``out`` (an :class:`Outcome`) appended at
        version ``before``: the map moves with it, or is read again next
        time (an undo, a redo or a rewind, or a log other than the one
        carried)."""
        if before != self.version or any(_META_EVENT(r.event) for r in out.records):
            self.version = -1
            return
        self._moved += sum(len(r.event.faces) for r in out.records if isinstance(r.event, ev.DiceRolled))
        self.version = out.records[-1].version if out.records else before


def _META_EVENT(e) -> bool:
    return isinstance(e, (ev.CommandRetracted, ev.CommandRestored, ev.EncounterRewound))


def first_touched(store, eid: str, metas: list[Recorded]) -> int:
    """The first version an undo, redo or rewind of ``metas`` acted on: the
    first event of a retracted or restored command, one past a rewind's
    ``to_version``. A command id that is not ``c<first version>`` or a
    rewind that cut inside a command (a log from elsewhere, or edited)
    gives 1: the whole log."""
    low = None
    for m in metas:
        e = m.event
        if isinstance(e, ev.EncounterRewound):
            v = e.to_version + 1
            if not (1 < v < m.version and store.starts_command(eid, v)):  # a cut inside a command: edited
                return 1
        else:
            cid = e.command_id
            v = numbered_version(cid)
            if not (1 <= v < m.version and store.starts_command(eid, v, cid)):
                return 1
        low = v if low is None else min(low, v)
    return max(1, low or 1)


def _walk_slots(store, eid: str, metas: list[Recorded], per_command, low: int):
    """The walk of :func:`rolled_slots` over ``metas`` and the dice of
    ``per_command`` (``dice_per_command`` from ``low``), as ``(slots, live total)``
    counted from the first die at or after ``low``."""
    items: list[tuple[int, int, object]] = [(m.version, 1, m.event) for m in metas]
    items += [(first, 0, (cid, n)) for cid, first, n in per_command]
    items.sort(key=lambda item: (item[0], item[1]))
    count: dict[str, int] = {}  # command id -> its number of dice
    first: dict[str, int] = {}  # command id -> version of its first die
    live: set[str] = set()
    placed: list[tuple[str, int]] = []  # (command id, its first slot) each time a command takes its places
    total = 0
    for version, kind, item in items:
        if kind == 0:
            cid, n = item
            count[cid], first[cid] = n, version
            live.add(cid)
            placed.append((cid, total))
            total += n
        elif isinstance(item, ev.CommandRetracted) and item.command_id in live:
            live.discard(item.command_id)
            total -= count[item.command_id]
        elif isinstance(item, ev.CommandRestored) and item.command_id in count and item.command_id not in live:
            live.add(item.command_id)
            placed.append((item.command_id, total))
            total += count[item.command_id]
        elif isinstance(item, ev.EncounterRewound):
            for cid in [c for c in live if first[c] > item.to_version]:
                live.discard(cid)
                total -= count[cid]
    owners: dict[int, tuple[str, int]] = {}  # slot >= total -> (command id, the die's place in it), newest wins
    for cid, start in placed:
        for i in range(max(0, total - start), count[cid]):
            owners[start + i] = (cid, i)
    if not owners:
        return {}, total
    cids = {cid for cid, _ in owners.values()}
    # their dice are at or after their first die (``first``): from the oldest of those on, not from ``low``
    # (an undo in round 1 leaves the places of the newest commands beyond the live total: a few rows to read)
    rolls = store.dice_of(eid, cids, from_version=max(low, min(first[cid] for cid in cids)))
    dice = {cid: [d for expr, faces in found for d in _sided(expr, faces)] for cid, found in rolls.items()}
    slots = {}
    for slot, (cid, i) in owners.items():
        if i < len(dice.get(cid, ())):
            face, sides = dice[cid][i]
            slots[slot] = (face, sides, cid)
    return slots, total


def _check_exchange_open(state: State, command: cmd.Command) -> None:
    """A damage roll belongs to an open exchange: a log that awaits one with
    no exchange open (an imported or hand-edited log) is refused in one line
    before any system reads the missing exchange (issue 16: was a traceback)."""
    if not isinstance(command, cmd.RollPending) or state.exchange is not None:
        return
    if any(s.verb == "roll" and s.kind == "damage" for s in state.pending):
        raise base.RuleError(
            "this log awaits a damage roll but no exchange is open (an imported or edited log that does not "
            "hold together); 'affray rewind' or 'affray undo' to a point before it"
        )


def _values_to_needs(step: ev.PendingStep, values: list[str]) -> int:
    """How many of the step's dice entries the supplied values cover."""
    n, covered = 0, 0
    for need in step.dice:
        k = dicelib.count_dice(need.expr)
        if covered + k > len(values):
            break
        covered += k
        n += 1
    return n


def _step_for(state: State, command: cmd.Command) -> ev.PendingStep | None:
    kinds = _STEP_VERBS.get(type(command))
    if not kinds:
        return None
    return next((s for s in state.pending if s.kind in kinds), None)


def _open(store, command: cmd.OpenEncounter, *, actor: str, seed: bytes | None) -> Outcome:
    key = base.resolve_key(command.system)
    system = base.get(key)
    rulings = system.rulings(command.rulings)
    name = command.name.strip()
    if not name:
        raise base.RuleError("an encounter needs a name: affray new \"Ambush at the ford\" --system mrq1")
    eid = check_encounter_id(command.encounter_id) if command.encounter_id else slug(name)
    taken = set(store.encounter_ids())
    if eid in taken:
        if command.encounter_id:
            raise base.RuleError(f"encounter id {eid!r} is taken; choose another with --id")
        n = 2
        while f"{eid}-{n}" in taken:
            n += 1
        eid = f"{eid}-{n}"
    chosen = seed is not None and not command.manual_dice  # a manual-dice seed decides no die
    seed = seed if seed is not None else dicelib.new_seed()
    opened = ev.EncounterOpened(
        encounter_id=eid,
        name=name,
        system=key,
        seed_sha256=dicelib.commitment(seed),
        manual_dice=command.manual_dice,
        rulings=rulings,
        seed_chosen=True if chosen else msgspec.UNSET,
        chain=2,  # the chain starts from the seed commitment (affray.store.chain)
    )
    outcome = _append(store, eid, State(), [opened], actor, seed=seed)
    return outcome


def _meta(store, eid: str, state: State, command: cmd.Command) -> list[ev.Event]:
    if isinstance(command, cmd.AddNote):
        if not command.text.strip():
            raise base.RuleError("a note needs text: affray note \"the bridge is slippery\"")
        return [ev.NoteAdded(text=command.text, secret=command.secret)]
    if isinstance(command, cmd.AddSalt):
        if not command.value.strip():
            raise base.RuleError("a salt needs a value: affray salt \"any words or digits\" --as NAME")
        if len(command.value) > 1024:
            raise base.RuleError(f"a salt is at most 1024 characters, got {len(command.value)}")
        return [ev.SaltAdded(value=command.value, from_index=store.engine_high_water(eid))]
    if isinstance(command, cmd.CloseEncounter):
        seed = store.get_seed(eid)
        return [ev.EncounterClosed(seed=seed.hex() if seed else "", reason=command.reason)]
    if isinstance(command, cmd.Rewind):
        return rewind_events(store, eid, state, command)
    # from the meta events and the rows back from the head, not the whole log
    metas = store.read_meta(eid, to_version=state.version)
    if isinstance(command, cmd.Undo):
        found = newest_live_command(store, eid, state.version, metas)
        if found is None:
            raise base.RuleError("nothing to undo: only the opening of the encounter is on record")
        newest, first = found
        if any(isinstance(r.event, ev.SaltAdded) for r in store.read(eid, from_version=first, to_version=first)):
            raise base.RuleError(
                f"{newest} is a salt, which cannot be undone: it counts for every roll from now on"
            )
        return [ev.CommandRetracted(command_id=newest)]
    stack = redo_stack(store, eid, state.version, metas)
    if not stack:
        raise base.RuleError("nothing to redo: no command was undone since the last new command")
    return [ev.CommandRestored(command_id=stack[-1])]


def _append(store, eid: str, state: State, events: list[ev.Event], actor: str, *, seed: bytes | None = None) -> Outcome:
    if not events:
        raise base.RuleError("that command changes nothing")
    command_id = f"c{state.version + 1}"
    # a new encounter's seed goes in with its first event, in one transaction
    projected: list[State] = []
    check = None
    if _has_meta(events):
        # an undo, redo or rewind changes history: project the state it leads
        # to inside the append's transaction, so a log that no longer replays
        # (edited by hand) refuses the command with nothing written
        def check(records: list) -> None:
            projected.append(load_state(store, eid, at_version=records[-1].version))

    records = store.append(
        eid, state.version, events, command_id=command_id, actor=actor or "gm", seed=seed, check=check
    )
    after = projected[0] if projected else _fold_tail(state, records)
    round_ended = any(isinstance(e, ev.RoundEnded) for e in events)
    if wants_snapshot(state.version, after.version, round_ended):
        try:
            store.save_snapshot(eid, after.version, dump(after, records[-1].hash))
        except StoreError:
            pass  # a cache: the command is committed, and must not be reported as failed
    return Outcome(encounter_id=eid, records=records, before=state, state=after)


def _has_meta(events: list[ev.Event]) -> bool:
    return any(isinstance(e, (ev.CommandRetracted, ev.CommandRestored, ev.EncounterRewound)) for e in events)


def _fold_tail(state: State, records: list[Recorded]) -> State:
    for rec in records:
        state = evolve(state, rec)
    return state
