"""The rule-system seam: what every system provides, and the registry.

A system is a package under ``affray/rules/`` exposing ``SYSTEM``, an object
with the :class:`RuleSystem` shape. The registry knows each system by key and
aliases and imports it only when it is asked for (as python-chess's variant
registry does), so the CLI never pays for systems it does not use.

Rules read projection state and return events; they never touch the store or
the CLI. While deciding, a system writes through a :class:`Draft`, which folds
each event it emits into a working copy of the state, so later decisions in the
same command see earlier ones.
"""

import importlib
import re
import typing
from functools import lru_cache
from typing import Any, NamedTuple, Protocol

import msgspec

from affray.errors import AffrayError, file_suffix, special_file
from affray.events import commands as cmd
from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.projections.evolve import evolve
from affray.projections.state import Combatant, State
from affray.text import nearest, one_line


class RuleError(AffrayError, ValueError):
    """A command the rules refuse. ``str()`` is one line: what was wrong and
    what to do. The CLI prints it and exits 2; nothing is appended."""


class RuleSystem(Protocol):
    """What a rule system provides (DESIGN.md, "Rule systems").

    - ``key``/``aliases``/``title``/``source``: how it is named and where its
      rules come from (the seed file).
    - ``rulings(mapping)``: validate named rulings, return them with defaults.
    - ``load_sheet(path)``: read a TOML/YAML/JSON sheet into plain data,
      raising :class:`RuleError` with one line naming the field;
      ``sheet_data(sheet)`` the same for a sheet given as a mapping or as
      the system's ``Sheet`` struct (:class:`SystemBase`).
    - ``decide(state, command, dice)``: the events a command produces; raise
      :class:`RuleError` to refuse it.
    - ``conditions``: the catalogue of condition names and what they do.
    """

    key: str
    aliases: tuple[str, ...]
    title: str
    source: str
    conditions: dict[str, str]

    def rulings(self, mapping: dict[str, str]) -> dict[str, str]: ...

    def load_sheet(self, path: str) -> dict: ...

    def sheet_data(self, sheet: Any, label: str = "sheet") -> dict: ...

    def decide(self, state: State, command: object, dice: object) -> list[ev.Event]: ...


# key -> (module, aliases, title); modules are imported on first use.
_REGISTRY: dict[str, tuple[str, tuple[str, ...], str]] = {
    "mrq1": ("affray.rules.mrq1", ("mrq", "mongoose-runequest", "mrq1e"), "Mongoose RuneQuest (1st ed.)"),
    "mythras": (
        "affray.rules.mythras",
        ("cfi", "mythras-imperative", "classic-fantasy-imperative"),
        "Mythras / Classic Fantasy Imperative",
    ),
    "uesrpg": ("affray.rules.uesrpg", ("ues", "uesrpg3e"), "UESRPG 3e"),
    "rolemaster": ("affray.rules.rolemaster", ("rm", "rmss"), "Rolemaster-style sheet"),
    "rq3": ("affray.rules.rq3", ("rq", "runequest3"), "RuneQuest III house rules"),
}
_PLANNED: dict[str, str] = {
}


def resolve_key(name: str) -> str:
    """The system key for ``name`` (a key or an alias, any case).

    Raises :class:`RuleError` for an unknown or not yet implemented system.
    """
    wanted = name.strip().lower()
    for key, (_, aliases, _) in _REGISTRY.items():
        if wanted == key or wanted in aliases:
            return key
    if wanted in _PLANNED:
        raise RuleError(f"system {wanted!r} ({_PLANNED[wanted]}) is not implemented yet; available: {', '.join(_REGISTRY)}")
    raise RuleError(f"unknown system {name!r}; available: {', '.join(_REGISTRY)}")


def get(name: str) -> RuleSystem:
    """The rule system for a key or alias (imported on first use)."""
    module = importlib.import_module(_REGISTRY[resolve_key(name)][0])
    return module.SYSTEM


def available() -> dict[str, str]:
    """Implemented systems: key -> title."""
    return {key: title for key, (_, _, title) in _REGISTRY.items()}


class SystemBase:
    """Shared plumbing for a rule system's ``rulings``, ``load_sheet`` and
    ``decide`` (through its ``router``).

    A subclass sets ``_rulings_from`` (mapping -> rulings object, raising
    ``ValueError``), ``_rulings_as`` (rulings object -> ``dict[str, str]``),
    ``_sheet_loader`` (path -> sheet struct), ``_sheet_parser`` (plain data,
    label -> sheet struct: the system's ``parse_sheet``) and
    ``_sheet_error`` (the loader's and parser's one-line error type). The
    methods turn those errors into :class:`RuleError`.
    """

    _rulings_from = None
    _rulings_as = None
    _sheet_loader = None
    _sheet_parser = None
    _sheet_error: type[Exception] = ValueError
    #: The system's :class:`affray.rules.router.Router` (its ``system.py``).
    router = None

    def decide(self, state: State, command: object, dice) -> list[ev.Event]:
        """The events ``command`` produces in ``state``, decided by the
        system's router (:mod:`affray.rules.router`); ``dice`` is the
        command's roller. Raises :class:`RuleError` (one line) when the rules
        refuse it."""
        return self.router.decide(Draft(state, dice), command)

    def rulings(self, mapping: dict[str, str]) -> dict[str, str]:
        """Validate named rulings; return every ruling with its value."""
        try:
            return type(self)._rulings_as(type(self)._rulings_from(mapping))
        except ValueError as exc:
            raise RuleError(str(exc)) from None

    def load_sheet(self, path: str) -> dict:
        """Load and validate a sheet file; plain data for ``CombatantJoined``."""
        try:
            return self.stored_sheet(type(self)._sheet_loader(path))
        except self._sheet_error as exc:
            raise RuleError(str(exc)) from None

    def sheet_data(self, sheet: Any, label: str = "sheet") -> dict:
        """Validate a sheet given as data rather than a file: a mapping of
        what the sheet file holds (README, "Sheets"), or the system's own
        ``Sheet`` struct (``affray.rules.<key>.sheet.Sheet``), which is
        checked again as plain data. Returns what :meth:`load_sheet` returns
        for the same sheet. Errors: :class:`RuleError`, one line naming
        ``label`` and the field, as for a file."""
        if isinstance(sheet, msgspec.Struct):
            sheet = msgspec.to_builtins(sheet)
        try:
            return self.stored_sheet(type(self)._sheet_parser(sheet, label))
        except self._sheet_error as exc:
            raise RuleError(str(exc)) from None

    def stored_sheet(self, sheet) -> dict:  # noqa: ANN001 - the system's sheet struct
        """The sheet struct as the plain data ``CombatantJoined`` stores."""
        return msgspec.to_builtins(sheet)


class FollowUp(NamedTuple):
    """A step queued on a draft's agenda: its ``kind`` (a key of the
    system router's ``steps`` table, :mod:`affray.rules.router`) and the
    keyword arguments its handler is called with."""

    kind: str
    args: dict[str, Any]


class Draft:
    """The events a command is producing, the state they lead to, and the
    agenda of steps still to decide.

    ``emit`` appends events and folds them into ``state`` with the versions
    and command id the real append will give them, so ``cause`` versions and
    step numbers recorded in conditions are exact. ``then`` queues a
    follow-up step and ``hand_over`` asks for the turn sequencer once the
    agenda is empty; the system's :class:`~affray.rules.router.Router` runs
    both. The agenda is never stored.
    """

    COMMAND = "\x00draft"

    def __init__(self, state: State, dice) -> None:
        self.start = state
        self.state = state
        self.events: list[ev.Event] = []
        self.dice = dice
        self._queued: list[FollowUp] = []
        self._hand_over = False

    def then(self, kind: str, **args: Any) -> None:
        """Queue the step ``kind`` (handler called as ``handler(draft,
        **args)``) to run after the current handler returns, after the steps
        it queued before and before the steps its caller queued after it."""
        self._queued.append(FollowUp(kind, args))

    def take_queued(self) -> list[FollowUp]:
        """The steps queued since the last call, in the order queued (the
        router's use; a rule has no need of it)."""
        queued, self._queued = self._queued, []
        return queued

    def hand_over(self) -> None:
        """This part of the flow is done: when the agenda is empty, the
        router runs the system's turn sequencer."""
        self._hand_over = True

    def take_hand_over(self) -> bool:
        """Whether a handler handed over since the last call (the router's
        use); clears the request."""
        asked, self._hand_over = self._hand_over, False
        return asked

    @property
    def next_version(self) -> int:
        """The version the next emitted event will get."""
        return self.start.version + len(self.events) + 1

    def emit(self, *events: ev.Event) -> int:
        """Append ``events``; return the version of the last one."""
        for e in events:
            version = self.next_version
            self.events.append(e)
            rec = Recorded(
                seq=0,
                encounter_id=self.start.encounter_id,
                version=version,
                command_id=self.COMMAND,
                type="",
                schema=0,
                event=e,
                recorded_at="",
                actor="",
                hash="",
            )
            self.state = evolve(self.state, rec)
        return self.start.version + len(self.events)

    def roll(self, expr: str, purpose: str, by: str = "") -> ev.DiceRolled:
        """Roll ``expr`` through the command's dice and record it."""
        rolled = self.dice.roll(expr, purpose, by=by)
        self.emit(rolled)
        return rolled

    def who(self, handle: str) -> Combatant:
        """The combatant ``handle`` in the working state."""
        return self.state.combatants[handle]


def rulings_reader(from_mapping):
    """``rulings_of(state)`` for a system whose ``from_mapping`` turns an
    encounter's stored rulings into its Rulings struct (defaults filled in),
    cached by the mapping's contents."""

    @lru_cache(maxsize=64)
    def _cached(items: tuple[tuple[str, str], ...]):
        return from_mapping(dict(items))

    def rulings_of(state: State):
        """The encounter's rulings (defaults filled in)."""
        return _cached(tuple(sorted(state.rulings.items())))

    return rulings_of


def unreadable_sheet(name: str, exc: Exception) -> RuleError:
    """The one-line error for a sheet stored in the log that this affray's
    sheet schema refuses (written by a newer affray, or edited by hand)."""
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return RuleError(
        f"the sheet of {name} stored in this log does not fit this affray ({first}); "
        "a newer affray may have written it: upgrade affray"
    )


def check_target(state: State, attacker: str, target: str, *, hint: str = "") -> None:
    """The checks every system makes before an attack: not on oneself, not
    on the dead, not while a condition forbids attacking (``hint`` is what
    to do instead). Raises :class:`RuleError` (one line)."""
    a, t = state.combatants[attacker], state.combatants[target]
    if attacker == target:
        raise RuleError(f"{a.name} cannot attack themself; name another combatant")
    if t.status == "dead":
        raise RuleError(f"{t.name} is dead; choose another target")
    if a.effect("cannot-attack"):
        raise RuleError(f"{a.name} cannot attack now (see 'affray state'){hint}")


def joining(state: State, command, name: str) -> tuple[str, str]:
    """``(handle, side)`` for a ``JoinCombatant`` command: the handle typed,
    or one made from ``name`` (lower-case letters and digits); the side
    trimmed. Raises :class:`RuleError` for a malformed or taken handle, or
    no side. Shared by every system's join."""

    handle = command.handle.strip().lower() or re.sub(r"[^a-z0-9]+", "", name.lower()) or "combatant"
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,31}", handle):
        raise RuleError(f"handle {command.handle!r} must be 1–32 letters, digits, '-' or '_'; pass another --handle")
    if handle in state.combatants:
        raise RuleError(f"handle {handle!r} is already taken; pass --name or --handle to tell them apart")
    side = command.side.strip()
    if not side:
        raise RuleError("a combatant needs a side; pass --side NAME")
    return handle, side


def read_sheet_data(path) -> Any:
    """The plain data of a sheet file: ``.toml``, ``.yaml``/``.yml`` or
    ``.json``. Raises ``ValueError`` with one line naming the file and what
    to do (a folder, FIFO, socket or device; unreadable, unknown format, not
    valid). Shared by every system's
    ``load_sheet``; the system then validates the data."""
    label, suffix = str(path), file_suffix(path)
    kind = special_file(path)  # a FIFO would hang, /dev/zero never end
    if kind:
        raise ValueError(f"{label} is {kind}, not a regular file; name a sheet file")
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError:
        raise ValueError(f"{label}: cannot read the file; check the path") from None
    decoders = {".toml": msgspec.toml.decode, ".yaml": msgspec.yaml.decode, ".yml": msgspec.yaml.decode,
                ".json": msgspec.json.decode}
    decode = decoders.get(suffix.lower())
    if decode is None:
        raise ValueError(f"{label}: unknown sheet format {suffix or '(no extension)'!r}; use .toml, .yaml, .yml or .json")
    try:
        return decode(raw)
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{label}: not valid ({' '.join(str(exc).split())}); fix the sheet and try again") from None
    except (ValueError, OverflowError, RecursionError) as exc:  # the parser's own: a 5,000-digit integer, deep nesting
        first = (str(exc).split(";")[0] or type(exc).__name__).strip()
        raise ValueError(f"{label}: not valid ({' '.join(first.split())}); fix the sheet and try again") from None


def find_combatant(state: State, name: str) -> str:
    """Resolve a handle, or an unambiguous prefix of a handle or name.

    Raises :class:`RuleError` naming the candidates when it is unknown or
    ambiguous.
    """
    wanted = name.strip().lower()
    if wanted in state.combatants:
        return wanted
    squashed = wanted.replace(" ", "")
    hits = [
        h
        for h, c in state.combatants.items()
        if h.startswith(squashed) or c.name.lower().startswith(wanted) or c.name.lower().replace(" ", "") == squashed
    ]
    if len(hits) == 1:
        return hits[0]
    known = ", ".join(state.combatants) or "nobody has joined yet"
    if not hits:
        raise RuleError(f"no combatant called {name!r} in this encounter (known: {known}); check 'affray state'")
    raise RuleError(f"{name!r} could mean {', '.join(hits)}; use the handle")


_COMMAND_UNION = None


def to_command(data: dict) -> cmd.Command:
    """The command a ``CommandIssued.command`` dict describes.

    Raises :class:`RuleError` when it does not decode (a tag this affray
    does not know, or fields that changed meaning)."""
    global _COMMAND_UNION
    if _COMMAND_UNION is None:
        kinds = [k for k in _command_classes(cmd.Command) if k.__struct_config__.tag]
        _COMMAND_UNION = typing.Union[tuple(kinds)]  # noqa: UP007 - a runtime union of structs
    try:
        return msgspec.convert(data, _COMMAND_UNION)
    except msgspec.ValidationError as exc:
        raise RuleError(f"the recorded command {data.get('command')!r} does not decode: {exc}") from None


def _command_classes(k: type) -> list[type]:
    out = []
    for sub in k.__subclasses__():
        out.append(sub)
        out.extend(_command_classes(sub))
    return out


def condition_maker(catalogue: dict[str, str]):
    """``make(name, *, cause, round, step, ends, count=0, effects=None,
    location="", note="", key="")``: a condition of ``catalogue`` in the
    shared shape (:class:`~affray.events.core.Condition`), its ``id`` the
    name plus ``:location`` plus ``:key``. ``KeyError`` for a name not in
    the catalogue. Shared by the systems' ``conditions.py``."""

    def make(name: str, *, cause: int, round: int, step: int, ends: str, count: int = 0,
             effects: dict[str, int] | None = None, location: str = "", note: str = "", key: str = "") -> ev.Condition:
        if name not in catalogue:
            raise KeyError(name)
        return ev.Condition(
            id=name + (f":{location}" if location else "") + (f":{key}" if key else ""),
            name=name, cause=cause, since_round=round, since_step=step,
            ends=ev.ConditionEnd(kind=ends, count=count), effects=effects or {}, location=location, note=note,
        )

    return make


def condition_from(cond: ev.Condition) -> str:
    """The handle a condition points at (an effect key ``from:HANDLE``), or ""."""
    for k in cond.effects:
        if k.startswith("from:"):
            return k[5:]
    return ""


def rulings_codec(struct: type, system: str):
    """``(from_mapping, as_mapping)`` for a system's frozen ``Rulings``
    struct: read ``EncounterOpened.rulings`` (kebab-case accepted; one-line
    ``ValueError`` naming the ruling and its allowed values), and write
    every ruling with its value."""

    def from_mapping(mapping: dict[str, str] | None):
        return parse_rulings(struct, system, mapping)

    def as_mapping(r) -> dict[str, str]:
        return {k: str(getattr(r, k)) for k in r.__struct_fields__}

    return from_mapping, as_mapping


def sheet_reader(sheet_type: type):
    """``sheet_of(combatant)`` for a system whose sheets decode as the
    msgspec struct ``sheet_type``: the stored sheet (plain data) as the
    typed sheet, cached by its bytes. Raises :class:`RuleError` (one line,
    :func:`unreadable_sheet`) for a stored sheet this affray cannot read."""

    @lru_cache(maxsize=256)
    def _decode(raw: bytes):
        return msgspec.json.decode(raw, type=sheet_type)

    def sheet_of(c: Combatant):
        """The combatant's sheet as the system's typed sheet."""
        try:
            return _decode(msgspec.json.encode(c.sheet))
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            raise unreadable_sheet(c.name, exc) from None

    return sheet_of


def fight_over(draft: Draft) -> bool:
    """End the fight when fewer than two sides can fight: no one acts, the
    winner (the side left standing, or none) is recorded and the table
    waits for nothing. Returns whether it ended. Shared by the systems'
    turn sequencers."""
    standing = {c.side for c in draft.state.combatants.values() if c.can_fight}
    if len(standing) >= 2:
        return False
    winner = next(iter(standing)) if standing else ""
    draft.emit(ev.TurnBegan(handles=(), action_no=0),
               ev.FightEnded(winner=winner, reason="no one else can fight" if winner else "no one can fight"),
               ev.StepsAwaited(steps=()))
    return True


def decode_sheet(data: Any, struct: type, label: str = "sheet"):
    """Plain sheet data as ``struct`` (a msgspec Struct, every level with
    ``forbid_unknown_fields``); ``ValueError`` with one line naming the file
    (``label``), the key's path and what to do when it does not fit
    (:func:`sheet_problem`). The system validates the result further.
    Shared by every system's ``parse_sheet``."""
    if not isinstance(data, dict):
        raise ValueError(f"{label}: expected a table of sheet fields, got {_kind_of(data)}; fix the sheet and try again")
    try:
        return msgspec.convert(data, struct)
    except msgspec.ValidationError as exc:
        raise ValueError(sheet_problem(label, exc, data, struct)) from None


# msgspec's validation message, its path and a name in backticks; compiled on
# first use (re's cache), not at import: only a refused sheet needs them
_AT = r"(?s)^(?P<msg>.*?)(?: - at (?P<key>`key` in )?`\$(?P<path>[^`]*)`)?$"
_STEP = r"\.(\w+)|\[(\d+|\.\.\.)\]"
_TICKED = r"`([^`]*)`"
#: msgspec's names for a table and a list, in sheet words (int, str, float, bool and null keep theirs).
_KINDS = {"object": "a table", "array": "a list"}


def _kind_of(value: Any) -> str:
    """A value's kind in sheet words (``a table``, ``a list``, ``int``, ``str``...)."""
    names = {bool: "bool", int: "int", float: "float", str: "str", list: "array", dict: "object", type(None): "null"}
    return _KINDS.get(names.get(type(value), ""), type(value).__name__)


def _inner(tp: Any) -> Any:
    """``tp`` without ``| None``."""
    args = typing.get_args(tp)
    if type(tp).__name__ in ("UnionType", "_UnionGenericAlias") or typing.get_origin(tp) is typing.Union:
        rest = [a for a in args if a is not type(None)]
        return rest[0] if len(rest) == 1 else tp
    return tp


def _fits(value: Any, tp: Any) -> bool:
    try:
        msgspec.convert(value, tp)
    except msgspec.ValidationError:
        return False
    return True


def _follow(path: str, data: Any, struct: type) -> tuple[str, Any]:
    """The readable path (``weapons[1]``, ``skills.Dodge``) that msgspec's
    error path (``$.weapons[1]``, ``$.skills[...]``) points at, and the
    type found there. A dict key msgspec writes as ``[...]`` is found by
    trying each value of the table against the value type."""
    tp: Any = struct
    out = ""
    for m in re.finditer(_STEP, path):
        tp = _inner(tp)
        field, index = m.groups()
        if field is not None:
            infos = msgspec.structs.fields(tp) if isinstance(tp, type) and issubclass(tp, msgspec.Struct) else ()
            info = next((f for f in infos if f.encode_name == field), None)
            tp = info.type if info is not None else Any
            data = data.get(field) if isinstance(data, dict) else None
            out += f".{field}" if out else field
        elif index == "...":
            args = typing.get_args(tp)
            tp = args[1] if len(args) == 2 else Any
            key = "..."
            if isinstance(data, dict):  # the value that does not fit, else a key that is not text
                key = next((k for k, v in data.items() if not _fits(v, tp)),
                           next((k for k in data if not isinstance(k, str)), "..."))
            data = data.get(key) if isinstance(data, dict) else None
            out += f".{key}" if out else str(key)
        else:
            i = int(index)
            args = [a for a in typing.get_args(tp) if a is not Ellipsis]
            tp = args[min(i, len(args) - 1)] if len(args) > 1 and typing.get_origin(tp) is tuple else (args[0] if args else Any)
            data = data[i] if isinstance(data, list) and i < len(data) else None
            out += f"[{i}]"
    return out, _inner(tp)


def keys_of(struct: Any) -> tuple[str, ...]:
    """The keys a sheet may give at a level decoded as ``struct`` (its
    fields' names), or ``()`` when that level is not a struct."""
    if isinstance(struct, type) and issubclass(struct, msgspec.Struct):
        return tuple(f.encode_name for f in msgspec.structs.fields(struct))
    return ()


def did_you_mean(word: str, choices: typing.Iterable[str], cutoff: float = 0.6) -> str:
    """``"did you mean 'X'?"`` for the choice nearest ``word`` (difflib,
    case-insensitive, at least ``cutoff`` alike), or ``""``."""
    hit = nearest(word, choices, cutoff)
    return f"did you mean {hit!r}?" if hit is not None else ""


def suggestion(word: str, choices: typing.Iterable[str]) -> str:
    """``"; did you mean 'X'?"`` for the choice nearest ``word``
    (:func:`did_you_mean`), or ``""``: the tail of a sheet error that
    names something the sheet lists elsewhere (a weapon in ``ready``)."""
    hint = did_you_mean(word, choices)
    return f"; {hint}" if hint else ""


def sheet_problem(label: str, exc: msgspec.ValidationError, data: Any, struct: type) -> str:
    """One line for a sheet msgspec refused: the file, the key's path and
    what to do. Shapes::

        x.toml: weapons[1].dammage: unknown key; did you mean 'damage'? (keys here: name, damage, ...)
        x.toml: missing 'characteristics.STR'; add it to the sheet and try again
        x.toml: characteristics.DEX: expected a whole number, got text; fix the sheet and try again
    """
    text = " ".join(str(exc).split()) or "invalid sheet"
    m = re.match(_AT, text)
    msg, raw_path = (m.group("msg"), m.group("path") or "") if m else (text, "")
    path, tp = _follow(raw_path, data, struct)
    if m and m.group("key"):  # a key of a table that is not text (YAML: 1: 5)
        return one_line(f"{label}: {path}: every name in this table must be text; fix the sheet and try again")
    named = re.search(_TICKED, msg)
    if msg.startswith("Object contains unknown field") and named:
        key, keys = named.group(1), keys_of(tp)
        where = f"{path}.{key}" if path else key
        hint = did_you_mean(key, keys)
        listed = f" (keys here: {', '.join(keys)})" if keys else ""
        return one_line(f"{label}: {where}: unknown key{'; ' + hint if hint else ''}{listed}; fix the sheet and try again")
    if msg.startswith("Object missing required field") and named:
        where = f"{path}.{named.group(1)}" if path else named.group(1)
        return one_line(f"{label}: missing {where!r}; add it to the sheet and try again")
    expected = re.match(r"Expected `([^`]*)`, got `([^`]*)`", msg)
    if expected:
        want = " or ".join(_KINDS.get(k.strip(), k.strip()) for k in expected.group(1).split("|"))
        got = _KINDS.get(expected.group(2), expected.group(2))
        msg = f"expected {want}, got {got}"
    else:
        msg = msg.replace("`", "")
        msg = msg[:1].lower() + msg[1:]
    return one_line(f"{label}: {path + ': ' if path else ''}{msg}; fix the sheet and try again")


def check_names(label: str, path: str, names: typing.Iterable[str], known: typing.Iterable[str], *,
                what: str = "skill", exact_case: bool = False) -> None:
    """Refuse a name in a free-form table (``skills``) that is a near miss
    of a name the rules read: ``Resiliance`` when the rules read
    ``Resilience`` (difflib, at least 0.8 alike), or ``dodge`` when the
    rules read ``Dodge`` exactly (``exact_case``). Other names are kept as
    written (a sheet may list skills the engine never tests). Raises
    ``ValueError`` (one line, naming the key and the suggestion)."""
    known = tuple(known)
    for name in names:
        if name in known or (not exact_case and name.lower() in (k.lower() for k in known)):
            continue
        same_case = [k for k in known if k.lower() == name.lower()]
        hint = f"did you mean {same_case[0]!r}?" if same_case else did_you_mean(name, known, cutoff=0.8)
        if hint:
            raise ValueError(one_line(
                f"{label}: {path}.{name}: not a {what} the rules know; {hint} "
                f"(the rules read {', '.join(known)}); fix the sheet and try again"))


def require_turn(state: State, handle: str, *, turn: str = "turn") -> Combatant:
    """The combatant ``handle`` when it may act now: a round is running,
    nothing else is pending but turns, and it is its ``turn``. Otherwise
    :class:`RuleError` saying what the table waits for."""
    c = state.combatants[handle]
    if state.phase == "over":
        raise RuleError(f"the fight is over ({state.winner or 'nobody'} stands); 'affray close' ends the encounter")
    if state.phase != "round":
        raise RuleError("no round is running; start the fight with 'affray start'")
    if state.exchange is not None or any(s.kind != "turn" for s in state.pending):
        first = state.pending[0].prompt if state.pending else "the open exchange"
        raise RuleError(f"the table is waiting for something else first ({first}); see 'affray pending'")
    if handle not in state.turn:
        now = " and ".join(state.combatants[h].name for h in state.turn) or "nobody"
        raise RuleError(f"it is {now}'s {turn}, not {c.name}'s; use 'affray pending' to see who acts next")
    return c
def parse_rulings(rulings_type: type, system: str, mapping: dict[str, str] | None, *, verbatim: tuple[str, ...] = ()):
    """A system's ``Rulings`` struct from ``EncounterOpened.rulings``: names
    in snake or kebab case, values lower-cased (except the fields named in
    ``verbatim``: paths, table names), defaults filled in. Raises
    ``ValueError`` (one line) naming the ruling and what is allowed."""
    out: dict[str, object] = {}
    fields = rulings_type.__struct_fields__
    for raw, value in (mapping or {}).items():
        key = raw.strip().replace("-", "_")
        if key not in fields:
            raise ValueError(f"unknown {system} ruling {raw!r}; known: {', '.join(fields)}")
        out[key] = str(value).strip() if key in verbatim else str(value).strip().lower()
    try:
        return msgspec.convert(out, rulings_type)
    except msgspec.ValidationError as exc:
        raise ValueError(f"{system} ruling: {exc}; see 'affray rulings --system {system}'") from None
