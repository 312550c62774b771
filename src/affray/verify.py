"""``affray verify``: is the record intact, and were the dice fair?

One pass over each encounter's stored rows (:func:`check_encounter`), in
version order, with memory that does not grow with the log:

* **the hash chain** (:class:`affray.store.verify.ChainCheck`): every hash
  recomputed, version density, reordering, the head row, data that does not
  decode; the report names the chain's version (v2 starts from the seed
  commitment, v1 from the empty string: :mod:`affray.store.chain`);
* **a full replay**: the state is folded from the log itself as the pass goes
  (undo, redo and rewind applied as :func:`affray.projections.timeline.project`
  does) and compared with every snapshot at its version; a snapshot is never
  trusted, and a log that no longer replays is a problem;
* with ``dice``, **every engine roll**: the seed (revealed by ``close``, else
  the key file beside the log) must match the commitment; every engine roll
  must re-derive from the seed, its roll numbers and the salts that apply
  (:mod:`affray.dice`, "Salts"); the engine roll numbers must run 0, 1, 2,
  ... along the live log with no gap, repeat or jump: each command's engine
  rolls start at the next roll number of the log as that command found it
  (so a command issued after an undo or a rewind reuses the numbers of the
  rolls it replaces, and nothing else may); the table dice of a command
  must be the values it typed (``CommandIssued.dice``); and every salt must
  start past the rolls already drawn;
* with ``against``, **an anchor**: a head hash someone kept (or the last
  line of a JSON Lines export) must be in the chain, at its version, so the
  log still extends it; or a kept seed commitment must be the one the
  encounter was opened with (:func:`check_against`).

A branch's engine rolls are derived with its origin's encounter id
(:func:`affray.commands.points.stream_of`). The other audit, re-deriving
every recorded decision with the current rules, is :mod:`affray.audit`
(``verify --full`` runs it too).

Exit codes (``affray verify``): 0 intact; 1 a problem (tampering, a
difference); 4 intact so far, but the dice cannot be checked yet: the seed
is not revealed and not in this key file (not a failure).
"""

from __future__ import annotations

import os
from hashlib import sha256

import msgspec

from affray import dice as dicelib
from affray.errors import UserError
from affray.events import codec
from affray.events import core as ev
from affray.events.envelope import Live
from affray.projections.snapshots import dump, load_bound, replay
from affray.projections.state import State
from affray.projections.timeline import fold
from affray.store.chain import chain_hash
from affray.store.errors import DatabaseCorrupt, UnknownEncounter
from affray.store.verify import ChainCheck, decoded_row

#: Exit code: the dice cannot be checked yet (the seed is not revealed).
EXIT_DICE_PENDING = 4

_META = frozenset({ev.CommandRetracted, ev.CommandRestored, ev.EncounterRewound})
_DICE_TYPES = frozenset({ev.DiceRolled, ev.CommandIssued, ev.EncounterOpened, ev.SaltAdded})
_UNDO_DEPTH = 64  # states kept to step back over an undo without a replay
_TICK = 4096  # rows between progress ticks
_CHAIN_WORDS = {1: "(chain v1: an old log, its chain not bound to the seed commitment)",
                2: "(chain v2, bound to the seed commitment)"}


class EncounterReport(msgspec.Struct):
    """What :func:`check_encounter` found for one encounter.

    ``dice``: ``"checked"`` (every engine roll re-derived), ``"pending"``
    (the seed is neither revealed nor in the key file), ``"manual"`` (no
    engine dice), or ``""`` (not asked)."""

    encounter_id: str
    events: int = 0
    version: int = 0
    head_hash: str = ""
    chain_ok: bool = True
    chain_version: int = 1
    snapshots: int = 0
    engine_rolls: int = 0
    salts: int = 0
    seed_chosen: bool = False
    seed_revealed: bool = False
    dice: str = ""
    anchor: str = ""
    audit: object = None
    problems: list[str] = msgspec.field(default_factory=list)

    @property
    def summary(self) -> str:
        if not self.chain_ok:
            return f"{self.encounter_id}: hash chain BROKEN"
        line = (f"{self.encounter_id}: {self.events} events, hash chain intact "
                f"{_CHAIN_WORDS.get(self.chain_version, '')}, {self.snapshots} snapshots checked")
        if self.dice in ("checked", "manual"):
            line += f", {self.engine_rolls} engine rolls re-derived"
            if self.salts:
                line += f" with {self.salts} salts"
            if self.dice == "manual":
                line += " (manual dice)"
        elif self.dice == "pending":
            line += ", dice NOT checked: the seed is not revealed (it is revealed by 'affray close')"
        if self.seed_chosen:
            line += "; the dice seed was CHOSEN by the GM (new --seed)"
        if self.anchor:
            line += f"; {self.anchor}"
        if self.audit is not None:
            line += f"; {self.audit.summary}"
        return line

    def data(self) -> dict:
        return {
            "encounter": self.encounter_id,
            "events": self.events,
            "version": self.version,
            "head": self.head_hash,
            "chain_intact": self.chain_ok,
            "chain_version": self.chain_version,
            "snapshots_checked": self.snapshots,
            "dice": self.dice,
            "engine_rolls": self.engine_rolls,
            "salts": self.salts,
            "seed_chosen": self.seed_chosen,
            "seed_revealed": self.seed_revealed,
            "anchor": self.anchor,
            "audit": self.audit.data() if self.audit is not None else None,
            "problems": list(self.problems),
        }


def verify_encounter(store, encounter_id: str, *, dice: bool = False) -> tuple[list[str], str]:
    """(problems, one-line summary) for ``encounter_id``; no problems = intact."""
    report = check_encounter(store, encounter_id, dice=dice)
    return report.problems, report.summary


def check_encounter(store, encounter_id: str, *, dice: bool = False, tick=None) -> EncounterReport:
    """Check one encounter in one pass (see the module docstring).

    ``tick(version)``, when given, is called now and then with the version
    reached (a progress bar). Reads only; raises the store's errors.
    """
    report = EncounterReport(encounter_id=encounter_id)
    chain = ChainCheck(encounter_id)
    fold_ = _Replay(store, encounter_id)
    dice_check = _DiceCheck(store, encounter_id, report) if dice else None
    snaps = store.snapshot_stream(encounter_id)
    try:
        n = _one_pass(store.read_chain(encounter_id), chain, fold_, dice_check, snaps, report, tick)
    finally:
        snaps.close()
    head = store.head(encounter_id) if store.has_encounter(encounter_id) else None
    found = chain.finish(head)
    if found is None:  # neither events nor a head: no such encounter
        raise UnknownEncounter(encounter_id, store.path)
    report.events = n
    report.version, report.head_hash = head if head else (0, "")
    if found:
        report.chain_ok = False
        report.problems[:0] = found
        return report
    fold_.finish()
    report.problems.extend(fold_.problems)
    if dice_check is not None:
        dice_check.finish()
    return report


def _one_pass(rows, chain: ChainCheck, fold_: _Replay, dice_check: _DiceCheck | None, snaps,
              report: EncounterReport, tick) -> int:
    """The verify hot path: every ``read_chain`` row of one encounter, in
    version order, through the checks of :meth:`ChainCheck.feed` (the same
    text hashed, :func:`affray.store.chain.canonical`, and the same
    problems), decoded, folded per command (:class:`_Replay`), the snapshots
    compared at their versions and the dice fed to ``dice_check``; in one
    loop with the per-row work kept in locals. Returns the number of rows.
    ``tests/test_verify_reference.py`` holds it to a plain reference check."""
    where, problems = chain.where, chain.problems
    expected, prev, prev_seq = chain.expected, chain.prev_hash, chain.prev_seq
    head, quote = chain.canonicals.head, chain.canonicals.quote
    sha, order, json_text = sha256, chain.misplaced, msgspec.json.encode
    new_run, run = chain.new_run, chain.run
    texts: dict = {}  # type -> its JSON text
    cid = rat = act = None
    cq = tail = ""
    decoders: dict = {}  # type -> (current schema, decoder)
    current, typed = codec.CURRENT_SCHEMA, codec.typed_decoder
    decode_errors = (msgspec.DecodeError, msgspec.ValidationError, codec.UnknownEvent, TypeError)
    pending = fold_.pending
    command = None
    meta, opened = _META, ev.EncounterOpened
    dice_types = _DICE_TYPES if dice_check is not None else ()
    dice_feed = dice_check.feed if dice_check is not None else None
    rolled = ev.DiceRolled
    dice_command = dice_rolls = None  # dice_check's command and its rolls list, while they stay the same
    last = 1 << 62  # past any version: no snapshot left
    next_snap, next_blob = next(snaps, (last, b""))
    next_tick = _TICK if tick is not None else 1 << 62
    n = 0
    try:
        for seq, version, command_id, type_, schema, data, recorded_at, actor, hash_ in rows:
            n += 1
            # the hash chain: ChainCheck.feed, with the envelope's JSON kept while it repeats
            if version != expected or seq < prev_seq:
                order(seq, version, expected, prev_seq)
            if command_id != run:  # a command's events are one run (ChainCheck.new_run)
                new_run(version, command_id)
                run = command_id
            try:
                if command_id != cid or recorded_at != rat or actor != act:
                    if command_id.__class__ is not str or recorded_at.__class__ is not str or actor.__class__ is not str:
                        raise TypeError("a text field holds another type")  # as quote() refuses it
                    cid, rat, act = command_id, recorded_at, actor
                    cq = f',"command_id":{json_text(command_id).decode()},"type":'
                    tail = f',"recorded_at":{json_text(recorded_at).decode()},"actor":{json_text(actor).decode()},"data":'
                tq = texts.get(type_)
                if tq is None:
                    tq = texts[type_] = quote(type_) + ',"schema":'
                if prev:  # the text hashed is canonical(...), prev_hash before it, in one string
                    ok = sha(f'{prev}{head}{version:d}{cq}{tq}{schema:d}{tail}{data}}}'.encode()).hexdigest() == hash_
                else:
                    ok = chain_hash(prev, f'{head}{version:d}{cq}{tq}{schema:d}{tail}{data}}}') == hash_
            except (TypeError, ValueError, AttributeError):  # a field of the wrong type (an edited row)
                ok = False
                cid = None
            if not ok or data.__class__ is not str:
                problems.append(f"{where} version {version}: hash mismatch (this event, or the hash before it, was changed)")
            expected, prev, prev_seq = version + 1, hash_, seq
            # decoded, so undecodable data is found
            found = decoders.get(type_)
            if found is None and current.get(type_) is not None:
                found = decoders[type_] = (current[type_], typed(type_))
            if found is not None and found[0] == schema:
                try:
                    event = found[1](data)
                except decode_errors as exc:
                    problems.append(f"{where} version {version}: cannot decode its data: {exc}")
                    continue
            else:
                event, wrong = decoded_row(type_, schema, data)
                if wrong:
                    problems.extend(f"{where} version {version}: {p}" for p in wrong)
                if event is None:
                    continue
            # folded per command; the dice see the state as their command found it
            cls = event.__class__
            live = Live(version, command_id, event)
            if cls in meta:
                fold_.meta(live)
                command = None
            else:
                if command_id != command:
                    fold_.begin(command_id)
                    command = command_id
                if cls is rolled and command_id == dice_command:  # another roll of the command whose dice are held
                    dice_rolls.append(live)
                elif cls in dice_types:
                    dice_feed(live, fold_)
                    dice_command, dice_rolls = dice_check.command, dice_check.rolled
                    if version == 1 and cls is opened:
                        report.seed_chosen = event.is_chosen
                        report.chain_version = event.chain_version
                elif version == 1 and cls is opened:
                    report.seed_chosen = event.is_chosen
                    report.chain_version = event.chain_version
                pending.append(live)
            if next_snap <= version:
                while next_snap <= version:
                    if next_snap == version:
                        report.snapshots += 1
                        problem = fold_.compare_snapshot(version, next_blob, hash_)
                        if problem:
                            report.problems.append(problem)
                    next_snap, next_blob = next(snaps, (last, b""))
            if n >= next_tick:
                tick(version)
                next_tick += _TICK
    finally:
        chain.expected, chain.prev_hash, chain.prev_seq, chain.last_hash = expected, prev, prev_seq, prev
        chain.seen = chain.seen or n > 0
    return n


class _Replay:
    """The state of the log cut at each version, kept as the pass goes:
    ``project(records up to v)``, without holding the records. The pass
    calls :meth:`begin` when a command starts, appends its events to
    ``pending`` (folded in when the next command begins, or when
    :attr:`state` is read) and hands each meta event to :meth:`meta`. An
    undo of one of the last commands steps back to the state before it;
    any other undo, redo or rewind re-projects from the store (streamed)."""

    def __init__(self, store, encounter_id: str) -> None:
        self.store, self.encounter_id = store, encounter_id
        self._state = State()
        self.problems: list[str] = []
        self.broken = False
        self._before: list[tuple[str, State]] = []  # (command id, state before it), newest last
        self.pending: list[Live] = []  # the current command's events not folded yet (one list, kept)
        self.command: str | None = None  # the current command's id; None after a meta event

    @property
    def state(self) -> State:
        """The state after every event fed so far."""
        if self.pending:
            self._flush()
        return self._state

    @property
    def folded(self) -> State:
        """The state before the current command's events still pending."""
        return self._state

    def _flush(self) -> None:
        pending = self.pending
        if self.broken:
            pending.clear()
            return
        try:
            self._state = fold(self._state, pending)
        except Exception as exc:  # noqa: BLE001 - a log edited by hand: reported, not raised
            self._broke(pending[-1].version, exc)
        pending.clear()

    def _broke(self, version: int, exc: Exception) -> None:
        self.broken = True
        detail = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        self.problems.append(f"{self.encounter_id} version {version}: the log does not replay ({detail})")

    def begin(self, command_id: str) -> None:
        """A command starts: fold the one before it, keep the state before it."""
        if self.pending:
            self._flush()
        self.command = command_id
        if not self.broken:
            self._before.append((command_id, self._state))
            if len(self._before) > _UNDO_DEPTH:
                del self._before[0]

    def meta(self, live: Live) -> None:
        """An undo, redo or rewind (``_META``), applied as
        :func:`affray.projections.timeline.project` does."""
        if self.pending:
            self._flush()
        self.command = None
        if self.broken:
            return
        try:
            self._meta(live)
        except Exception as exc:  # noqa: BLE001 - as above
            self._broke(live.version, exc)

    def _meta(self, live: Live) -> None:
        e = live.event
        if isinstance(e, ev.CommandRetracted) and self._before and self._before[-1][0] == e.command_id:
            _, self._state = self._before.pop()
        else:
            self._state = replay(self.store, self.encounter_id, to_version=live.version)
            self._before.clear()
        self._state = msgspec.structs.replace(self._state, version=live.version)

    def compare_snapshot(self, version: int, blob: bytes, at_hash: str) -> str:
        state = self.state
        if self.broken:
            return ""
        if state.version != version:
            state = msgspec.structs.replace(state, version=version)
        if blob == dump(state, at_hash):  # the very bytes of this state taken at this head: equal, no decode needed
            return ""
        loaded = load_bound(blob)
        if loaded is None:
            return ""  # written for another state schema: ignored, not wrong
        cached, head_hash = loaded
        if head_hash and head_hash != at_hash:
            return f"{self.encounter_id}: snapshot at version {version} was taken at another head (a rewritten log, or a copied snapshot)"
        if cached != state:
            return f"{self.encounter_id}: snapshot at version {version} differs from a replay"
        return ""

    def finish(self) -> None:
        if self.pending:
            self._flush()


class _DiceCheck:
    """The engine dice of one encounter, checked as the pass goes: each
    command's rolls are held until its last event (a command's events are
    consecutive), then re-derived and, when the command is live, checked
    for dense roll numbers."""

    def __init__(self, store, encounter_id: str, report: EncounterReport) -> None:
        self.encounter_id, self.report = encounter_id, report
        self.problems = report.problems
        try:
            self.standing = store.salts(encounter_id)
        except DatabaseCorrupt:  # a salt's data is not JSON (an edited log): the pass reports that row
            self.standing = []
        report.salts = len(self.standing)
        self.seed, self.commitment, self.stream = None, None, encounter_id
        self.manual = False
        closed = store.versions_of_type(encounter_id, "encounter-closed")
        revealed = ""
        for _v, _c, schema, data in closed:
            try:
                revealed = codec.decode("encounter-closed", schema, data).seed or revealed
            except (msgspec.DecodeError, msgspec.ValidationError, codec.UnknownEvent):
                continue  # an edited closing event: the pass reports that row
        if revealed:
            try:
                self.seed = bytes.fromhex(revealed)
                report.seed_revealed = True
            except ValueError:
                self.problems.append(f"{encounter_id}: the revealed seed is not hex")
        if self.seed is None:
            try:
                self.seed = store.get_seed(encounter_id)  # the key file: checked against the commitment
            except DatabaseCorrupt:  # the opening event's data is not JSON: the pass reports that row
                self.seed = None
        self.key = dicelib.EngineKey(self.seed) if self.seed else None
        self.command: str | None = None  # the command whose dice are held (None: none held)
        self.issued: ev.CommandIssued | None = None  # its first CommandIssued
        self.rolled: list[Live] = []  # its DiceRolled events
        self.start: int | None = None  # the engine's next roll number when the current command was decided
        self.high_water = 0  # one past the highest roll number drawn (live or not)
        self.rolls = 0
        self.any_engine = False
        self._opened = False

    def feed(self, rec: Live, replay_: _Replay) -> None:
        """One event of a ``_DICE_TYPES`` class, in log order; ``replay_``
        has folded every command before ``rec``'s."""
        e = rec.event
        cls = e.__class__
        if self.command is not None and self.command != rec.command_id:
            self._flush()
        if self.command is None:
            # the state as the command found it: its own events before this one roll nothing
            self.start = None if replay_.broken else replay_.folded.next_roll_index
        if cls is ev.DiceRolled:
            self.rolled.append(rec)
            self.command = rec.command_id
        elif cls is ev.CommandIssued:
            if self.issued is None:
                self.issued = e
            self.command = rec.command_id
        elif cls is ev.EncounterOpened and not self._opened:
            self._opened = True
            self.commitment = e.seed_sha256
            self.manual = e.manual_dice
            self.stream = e.dice_stream or self.encounter_id
            if self.seed is not None and dicelib.commitment(self.seed) != e.seed_sha256:
                self.problems.append(
                    f"{self.encounter_id}: the seed does not match the commitment sha256 {e.seed_sha256[:16]}…"
                )
                self.seed = self.key = None
        elif cls is ev.SaltAdded and e.from_index < self.high_water:
            self.problems.append(
                f"{self.encounter_id} version {rec.version}: the salt starts at roll #{e.from_index}, "
                f"but rolls up to #{self.high_water - 1} were drawn before it (a salt must never change a drawn roll)"
            )

    def _flush(self) -> None:
        rolls, issued = self.rolled, self.issued
        self.command, self.issued, self.rolled = None, None, []
        if not rolls:
            return
        salt = ""
        if issued is not None:
            salt = issued.salt_text
            if issued.dice:
                self._typed(issued, rolls)
            else:
                for r in rolls:
                    if r.event.source != "engine":
                        self._typed(issued, rolls)
                        break
        expected = self.start  # None: the log does not replay here (reported already)
        seed, stream, standing, problems, eid = self.seed, self.stream, self.standing, self.problems, self.encounter_id
        if self.key is not None:
            derive = self.key.faces
        else:  # no key: an empty seed, refused with the engine's own words
            def derive(*args):
                return dicelib.salted_faces(seed, *args)
        high, counted = self.high_water, 0
        for r in rolls:
            e = r.event
            faces, source = e.faces, e.source
            if source != "engine" or not faces:
                if source != "engine" and source != "table":
                    problems.append(f"{eid} version {r.version}: roll source {source!r} is neither engine nor table")
                continue
            counted += 1
            index = e.index
            if index < 0:
                problems.append(f"{eid} version {r.version}: engine roll {e.expr} ({e.purpose}) has no roll number")
                continue
            end = index + len(faces)
            if end > high:
                high = end
            if seed is not None:
                try:
                    derived = derive(stream, index, _SIDES.get(e.expr) or _sides(e.expr), standing, salt)
                except (ValueError, dicelib.DiceError) as exc:
                    problems.append(f"{eid} version {r.version}: engine roll #{index} {e.expr} cannot be re-derived ({exc})")
                    derived = None
                if derived is not None and derived != tuple(faces):
                    problems.append(f"{eid} version {r.version}: engine roll #{index} {e.expr} does not re-derive")
            if expected is not None:
                if index != expected:
                    kind = "repeats" if index < expected else "skips to"
                    problems.append(
                        f"{eid} version {r.version}: engine roll {kind} #{index} where the engine "
                        f"was at #{expected} (engine roll numbers run 0, 1, 2, ... along the live log)"
                    )
                expected = end
        self.high_water = high
        if counted:
            self.any_engine = True
            self.rolls += counted

    def _typed(self, issued: ev.CommandIssued, rolls: list[Live]) -> None:
        """Table dice are what the command typed (``CommandIssued.dice``), in
        order: a roll relabelled as typed dice shows faces nobody typed."""
        sides = [s for r in rolls if r.event.source == "table" for s in _sides(r.event.expr)]
        faces = [f for r in rolls if r.event.source == "table" for f in r.event.faces]
        tokens = list(issued.dice)
        try:
            typed = [dicelib.face_from_token(t, n, "") for t, n in zip(tokens, sides)]
        except (dicelib.DiceError, ValueError):
            typed = None
        if typed is None or len(tokens) != len(faces) or typed != list(faces):
            where = rolls[0].version
            self.problems.append(
                f"{self.encounter_id} version {where}: typed dice {','.join(map(str, faces)) or 'none'} "
                f"are not the dice its command typed ({','.join(tokens) or 'none'})"
            )

    def finish(self) -> None:
        if self.command is not None:
            self._flush()
        self.report.engine_rolls = self.rolls
        if self.manual and not self.any_engine:
            self.report.dice = "manual"
        elif self.seed is None and self.any_engine:
            self.report.dice = "pending"
        else:
            self.report.dice = "checked"


_SIDES: dict[str, tuple[int, ...]] = {}


def _sides(expr: str) -> tuple[int, ...]:
    """The dice of a recorded expression (cached: a fight has few)."""
    found = _SIDES.get(expr)
    if found is None:
        try:
            found = dicelib.parse(expr).dice
        except dicelib.DiceError:
            found = ()
        if len(_SIDES) < 4096:
            _SIDES[expr] = found
    return found


# --------------------------------------------------------------------------- #
# Anchors: does the log still extend a head someone kept?
# --------------------------------------------------------------------------- #


def parse_anchor(spec: str, encounter_id: str) -> tuple[int | None, str]:
    """``(version or None, hash)`` from ``--against``: a 64-hex head hash
    (or the encounter's seed commitment, as ``affray new`` and the exports
    print it), ``VERSION:HASH``, or a JSON Lines export (its last line of
    ``encounter_id``, else its last line). Errors: ``UserError``."""
    text = spec.strip()
    version_text, sep, maybe_hash = text.partition(":")
    if sep and version_text.isdigit() and _is_hash(maybe_hash):
        return int(version_text), maybe_hash.lower()
    if _is_hash(text):
        return None, text.lower()
    if not os.path.isfile(text):
        raise UserError(
            f"--against takes a head hash (64 hex digits, as 'affray head' prints), "
            f"VERSION:HASH, or a .jsonl export; {spec!r} is none of these"
        )
    last = mine = None
    try:
        with open(text, "rb") as fh:
            for line in fh:
                if not line.strip():
                    continue
                try:
                    row = msgspec.json.decode(line)
                except msgspec.DecodeError:
                    raise UserError(f"{text} is not a JSON Lines export: a line is not JSON") from None
                if not isinstance(row, dict) or "hash" not in row or "version" not in row:
                    raise UserError(f"{text} is not a JSON Lines export of affray (a line has no version and hash)")
                last = row
                if row.get("encounter_id") == encounter_id:
                    mine = row
    except OSError as exc:
        raise UserError(f"cannot read {text}: {exc.strerror}") from None
    row = mine or last
    if row is None:
        raise UserError(f"{text} holds no events to anchor to")
    return int(row["version"]), str(row["hash"])


def anchor_encounter(store, spec: str) -> str:
    """The encounter ``verify --against SPEC`` checks when none is named:
    the one a jsonl export names, else the one whose log holds the hash,
    else the newest open one, else the newest. Errors: ``UserError``."""
    text = spec.strip()
    ids = store.encounter_ids()
    if not ids:
        raise UserError(f"{store.path} holds no encounter to check against the anchor")
    if os.path.isfile(text):
        named = ""
        with open(text, "rb") as fh:
            for line in fh:
                if line.strip():
                    try:
                        named = str(msgspec.json.decode(line).get("encounter_id", "")) or named
                    except (msgspec.DecodeError, AttributeError):
                        break
        if named in ids:
            return named
    else:
        wanted = text.rpartition(":")[2].lower()
        if _is_hash(wanted):
            for eid in ids:
                if store.version_of_hash(eid, wanted) is not None:
                    return eid
            for eid in ids:
                opening = _opening(store, eid)
                if opening is not None and opening.seed_sha256 == wanted:
                    return eid
    return store.newest_open_encounter() or ids[-1]


def _is_hash(text: str) -> bool:
    return len(text) == 64 and all(c in "0123456789abcdefABCDEF" for c in text)


def check_against(store, encounter_id: str, version: int | None, hash_: str) -> tuple[list[str], str]:
    """(problems, one-line verdict): whether the log of ``encounter_id``
    still holds ``hash_`` (at ``version`` when given). With an intact chain
    that proves every event up to it is the one the anchor saw: a
    truncation before it, a rewrite before it (re-hashed or not), or a log
    that forked from it all fail. Without a version, ``hash_`` may also be
    the seed commitment the encounter was opened with (``affray head``
    prints it): a log re-hashed with another seed, or truncated and opened
    again, fails."""
    short = hash_[:16]
    if version is not None:
        now = store.hash_at(encounter_id, version)
        if now is None:
            head = store.version(encounter_id)
            return ([f"{encounter_id}: the anchor is at version {version}, but the log ends at version {head} "
                     "(it was truncated)"], "")
        if now != hash_:
            return ([f"{encounter_id}: the event at version {version} has hash {now[:16]}…, the anchor says {short}… "
                     "(the log was rewritten at or before it)"], "")
        return [], f"extends the anchor {short}… at version {version}"
    found = store.version_of_hash(encounter_id, hash_)
    if found is None:
        opening = _opening(store, encounter_id)
        if opening is not None and opening.seed_sha256 == hash_:
            bound = ("every hash is bound to it" if opening.chain_version == 2
                     else "chain v1: only the opening event holds it")
            return [], f"opened with the kept seed commitment {short}… ({bound})"
        return ([f"{encounter_id}: no event has the anchor hash {short}…, nor is it the seed commitment "
                 "(the log was truncated before it, rewritten at or before it, or re-started with another seed)"], "")
    return [], f"extends the anchor {short}… at version {found}"


def _opening(store, encounter_id: str):
    """The encounter's opening event (version 1), or ``None``."""
    for version, _c, schema, data in store.versions_of_type(encounter_id, "encounter-opened"):
        if version == 1:
            try:
                return codec.decode("encounter-opened", schema, data)
            except (msgspec.DecodeError, msgspec.ValidationError, codec.UnknownEvent):
                return None
    return None


# --------------------------------------------------------------------------- #
# The whole verb
# --------------------------------------------------------------------------- #


class Verdict(msgspec.Struct):
    """``affray verify`` over a file (or one encounter): ``problems`` each
    once, in the order found; ``code`` the exit code."""

    reports: list[EncounterReport] = msgspec.field(default_factory=list)
    problems: list[str] = msgspec.field(default_factory=list)

    @property
    def code(self) -> int:
        if self.problems:
            return 1
        if any(r.dice == "pending" for r in self.reports):
            return EXIT_DICE_PENDING
        return 0

    def data(self) -> dict:
        return {
            "ok": not self.problems,
            "exit": self.code,
            "encounters": [r.data() for r in self.reports],
            "problems": list(self.problems),
        }


def verify_store(store, encounter_id: str | None = None, *, dice: bool = False, full: bool = False,
                 against: str = "", progress=None) -> Verdict:
    """Check the file (or one encounter): see the module docstring.
    ``progress(total)`` returns a context manager giving ``tick(n)`` or
    ``None`` (the CLI's progress bar). ``against`` needs one encounter (the
    newest open one is the CLI's default). ``full`` runs the audit too
    (:func:`affray.audit.audit_encounter`): a decision the rules make
    otherwise today is a problem."""
    verdict = Verdict()
    if encounter_id is None:
        found, ids = store.verify_file()
        verdict.problems += found
    else:
        ids = [encounter_id]
    anchor = parse_anchor(against, ids[0]) if against and ids else None
    total = sum(store.version(eid) for eid in ids)
    done = 0
    with (progress(total) if progress is not None else _no_progress()) as tick:
        for eid in ids:
            step = None if tick is None else (lambda v, base=done: tick(base + v))
            report = check_encounter(store, eid, dice=dice, tick=step)
            done += report.version
            if anchor is not None and eid == ids[0] and report.chain_ok:
                more, verdict_line = check_against(store, eid, *anchor)
                report.problems += more
                report.anchor = verdict_line
            if full and report.chain_ok and report.events:
                from affray.audit import audit_records, difference_lines  # the rules, only for --full

                report.audit = audit_records(list(store.read(eid)), eid)
                report.problems += difference_lines(report.audit)
            verdict.reports.append(report)
            verdict.problems += report.problems
    verdict.problems = list(dict.fromkeys(verdict.problems))  # each FAILED line once
    return verdict


class _no_progress:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False
