"""The Python API: run and read a fight from a script or a notebook.

Everything the ``affray`` command does, as calls (issue 16, item 8). A log
is an SQLite file (:func:`open_log`); a fight is one encounter in it
(:class:`Fight`, from :func:`new_encounter` or :func:`fight`). Each verb is
one command, appended atomically (all of its events or none), exactly as
the CLI appends it: the same rules, dice and checks, so ``affray verify``
and ``affray log`` read a scripted fight like any other::

    from affray import api

    with api.open_log("ford.db") as log:
        ford = api.new_encounter(log, "Ambush at the ford", system="mrq1", seed=bytes(range(16)))
        ford.join("examples/mrq1/vasana.toml", side="heroes")
        ford.join("examples/mrq1/broo.toml", side="broo", name="Broo 1")
        ford.start(dice="7,3")                       # strike ranks: Vasana 20, Broo 1 13
        ford.attack("vasana", "broo1", dice="34")
        print(ford.pending()[0]["prompt"])           # Broo 1 chooses a reaction
        ford.react("broo1", "parry", dice="71,34")
        ford.roll()                                  # engine dice, from the committed seed
        print(ford.state().combatants["broo1"].locations)
        print(ford.export("markdown"))
        assert ford.verify().code == 0

Units and shapes. HP are hit points; distances metres; modifiers percent
(``"-20:unstable ground"``); rounds and steps count as ``affray state --at``
does (``"1.2"``: just after step 2 of round 1). ``dice`` are the table's
values in the order :meth:`Fight.pending` lists them (``"71,34"``; on a
d100 ``00`` is 100); leave them out and the engine rolls from the dice seed
committed when the encounter opened. A combatant is named by its handle or
a unique name prefix.

Errors. Bad input raises a subclass of :class:`affray.errors.AffrayError`
(:class:`affray.rules.base.RuleError` for a command the rules refuse, such
as an attack out of turn; :class:`affray.errors.UserError` for a bad
argument; the store's errors for a missing, locked or corrupt file), whose
``str()`` is the one line the CLI prints and whose ``exit_code`` is the
CLI's (2, or 3 for a concurrency conflict: another writer appended first).
Nothing is appended when a command raises. Anything else is a bug.

Lower layers stay importable as they are: the command vocabulary
(:mod:`affray.events.commands`, re-exported here as ``commands``), the
store (:class:`affray.store.EventStore`), :func:`affray.commands.handler.execute`,
the state (:class:`affray.projections.state.State`) and the exports
(:mod:`affray.views.export`).
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping

import msgspec

from affray.commands.core import Outcome, parse_modifiers
from affray.commands.handler import execute
from affray.commands.lookup import resolve_encounter
from affray.errors import AffrayError, UserError
from affray.events import commands
from affray.projections.snapshots import load_state
from affray.projections.state import State
from affray.projections.travel import parse_point, state_at_store
from affray.rules import base
from affray.rules.base import RuleError
from affray.store import EventStore
from affray.verify import Verdict, verify_store
from affray.views.data import pending_data, state_data
from affray.views.export import FORMATS, VIEWS, export_store

__all__ = [
    "AffrayError", "Fight", "Outcome", "RuleError", "State", "UserError", "Verdict", "commands", "fight",
    "new_encounter", "open_log",
]


def open_log(path: str | os.PathLike, *, must_exist: bool = False, readonly: bool = False) -> EventStore:
    """Open (or create) the log file ``path``: an
    :class:`affray.store.EventStore`, to use in a ``with`` block (closed at
    its end) and to pass to :func:`new_encounter` and :func:`fight`.

    ``must_exist``: refuse a missing file instead of creating it
    (:class:`affray.store.DatabaseMissing`). ``readonly``: open it for
    reading only (no migration, no writes). The engine's secret dice seeds
    go to the key file beside it, ``PATH.keys`` (``AFFRAY_KEYS`` names
    another), never into the log. Errors: ``DatabaseMissing``,
    ``DatabaseCorrupt`` (not an affray log), ``StoreError`` (locked, not
    writable), all :class:`affray.errors.AffrayError`.
    """
    return EventStore(os.fspath(path), must_exist=must_exist, readonly=readonly)


def new_encounter(
    log: EventStore,
    name: str,
    *,
    system: str = "mrq1",
    encounter_id: str = "",
    rulings: dict[str, str] | None = None,
    seed: bytes | None = None,
    manual_dice: bool = False,
    actor: str = "gm",
) -> Fight:
    """Open a new encounter in ``log`` and return its :class:`Fight`.

    ``system`` is a rule system key or alias (``mrq1``, ``mythras``,
    ``rq3``, ``rolemaster``, ``uesrpg``); ``rulings`` its named rulings,
    ``{"critical_on": "natural"}`` (``affray rulings --system S`` lists
    them); ``encounter_id`` the id (default: made from the name; 1 to 64
    ASCII letters, digits, ``-``, ``_``, ``.``). ``seed`` (at least 16
    bytes) fixes the dice seed for a reproducible fight, and the log records
    that it was chosen; default: a random one. ``manual_dice``: the engine
    never rolls, every die comes from ``dice=``. ``actor`` is recorded on
    every event the fight's verbs append (the CLI's ``--as``).

    Errors: :class:`RuleError` for an unknown system or ruling, a bad or
    taken id, an empty name.
    """
    out = execute(
        log,
        commands.OpenEncounter(
            name=name, system=system, manual_dice=manual_dice, rulings=dict(rulings or {}),
            encounter_id=encounter_id,
        ),
        actor=actor,
        seed=seed,
    )
    return Fight(log, out.encounter_id, actor=actor)


def fight(log: EventStore, encounter_id: str | None = None, *, actor: str = "gm") -> Fight:
    """The :class:`Fight` of an existing encounter of ``log``: ``encounter_id``,
    or the newest open one when it is None. Errors:
    :class:`affray.store.UnknownEncounter`, or ``NoOpenEncounter`` when
    none is open."""
    return Fight(log, resolve_encounter(log, encounter_id), actor=actor)


class Fight:
    """One encounter of a log, with a method per verb of the CLI.

    Every method that changes the fight issues one command and returns its
    :class:`affray.commands.core.Outcome`: ``records`` (the
    :class:`affray.events.envelope.Recorded` events appended, each with its
    ``version``, ``command_id`` and ``event``), ``before`` and ``state``
    (the :class:`State` before and after). Each takes ``dice`` (table
    values, see the module docstring), ``reroll`` (a reason to roll anew
    where an undone or rewound command stood; logged) and ``salt`` (this
    command's own salt) where the CLI verb takes them. Errors: see the
    module docstring; nothing is appended when one is raised.
    """

    def __init__(self, log: EventStore, encounter_id: str, *, actor: str = "gm") -> None:
        self.log = log
        self.encounter_id = encounter_id
        self.actor = actor

    def __repr__(self) -> str:
        return f"Fight({self.encounter_id!r} in {self.log.path!r})"

    # -- issuing commands -----------------------------------------------------

    def issue(self, command: commands.Command, *, dice: str = "", reroll: str = "", salt: str = "") -> Outcome:
        """Issue any command of :mod:`affray.events.commands` (``api.commands``)
        against this encounter, as the CLI does; the :class:`Outcome`."""
        return execute(
            self.log, command, encounter_id=self.encounter_id, dice=dice, actor=self.actor, reroll=reroll,
            salt=salt,
        )

    def join(self, sheet: str | os.PathLike | Mapping | msgspec.Struct, *, side: str, name: str = "",
             handle: str = "", surprised: bool = False) -> Outcome:
        """Add a combatant on ``side``; ``name`` and ``handle`` override the
        sheet's. ``sheet`` is, in the format of this encounter's system
        (README, "Sheets"):

        - a sheet file's path (``str`` or ``os.PathLike``: TOML, YAML or
          JSON). A ``str`` is always a path: to join from TOML text, decode
          it first (``tomllib.loads(text)``) and pass the dict;
        - a mapping of what a sheet file holds (``{"name": "Gorp",
          "characteristics": {...}, ...}``);
        - the system's loaded ``Sheet`` struct
          (``affray.rules.<system>.sheet.Sheet``, as that module's
          ``load_sheet`` returns it, or built in code).

        Data and structs get the same checks as a file and are stored as a
        file's would be. Paths inside the data (a rolemaster sheet's
        ``tables``) are kept as given, so name them absolute; a file's are
        made absolute against its folder. Errors: RuleError for a sheet the
        system refuses, naming the file (or ``sheet``) and the field, or
        another system's ``Sheet`` struct; UserError for anything else."""
        system = base.get(self.state().system)
        if isinstance(sheet, (str, os.PathLike)):
            data = system.load_sheet(os.fspath(sheet))
        elif isinstance(sheet, (Mapping, msgspec.Struct)):
            owner = type(sheet).__module__.split(".")
            if isinstance(sheet, msgspec.Struct) and owner[:2] == ["affray", "rules"] and owner[2] != system.key:
                raise RuleError(f"that is a {owner[2]} sheet, and this encounter plays {system.key}; "
                                f"load the {system.key} sheet instead")
            data = system.sheet_data(dict(sheet) if isinstance(sheet, Mapping) else sheet)
        else:
            raise UserError(f"join takes a sheet file's path, a mapping or a loaded Sheet, not {type(sheet).__name__}")
        return self.issue(commands.JoinCombatant(sheet=data, side=side, name=name, handle=handle, surprised=surprised))

    def start(self, *, dice: str = "", reroll: str = "", salt: str = "") -> Outcome:
        """Start the next round: strike ranks (or the system's order of action)."""
        return self.issue(commands.StartRound(), dice=dice, reroll=reroll, salt=salt)

    def attack(self, attacker: str, target: str, *, weapon: str = "", mods=(), situations=(), dice: str = "",
               reroll: str = "", salt: str = "") -> Outcome:
        """``attacker`` attacks ``target`` (one combat action) with ``weapon``
        (default: the first held ready). ``mods``: ``"-20:reason"`` strings,
        percent; ``situations``: named situations of the system's table
        (``"target-prone"``), or the CLI's options as ``"charge=6"``,
        ``"range=30"``, ``"flurry"``."""
        return self.issue(
            commands.DeclareAttack(attacker=attacker, target=target, weapon=weapon, modifiers=parse_modifiers(mods),
                                   situations=tuple(situations)),
            dice=dice, reroll=reroll, salt=salt,
        )

    def react(self, defender: str, reaction: str, *, with_item: str = "", mods=(), situations=(),
              dice: str = "", reroll: str = "", salt: str = "") -> Outcome:
        """``defender`` answers the pending attack: ``parry``, ``dodge``,
        ``none`` (or the system's other reactions), parrying ``with_item``."""
        return self.issue(
            commands.ChooseReaction(defender=defender, reaction=reaction, with_item=with_item,
                                    modifiers=parse_modifiers(mods), situations=tuple(situations)),
            dice=dice, reroll=reroll, salt=salt,
        )

    def roll(self, who: str = "", *, dice: str = "", reroll: str = "", salt: str = "") -> Outcome:
        """Perform the pending roll step (damage and location, a wound's
        effects, a Resilience test…)."""
        return self.issue(commands.RollPending(who=who), dice=dice, reroll=reroll, salt=salt)

    def choose(self, who: str, option: str, *, secret: bool = False) -> Outcome:
        """Answer a pending choice (``yank``/``leave``, ``follow``/``stay``,
        a Special Effect)."""
        return self.issue(commands.MakeChoice(who=who, option=option, secret=secret))

    def act(self, who: str, action: str, *, dice: str = "", reroll: str = "", salt: str = "") -> Outcome:
        """Spend a combat action on anything but a plain attack: the CLI's
        ``affray act WHO ACTION…`` as one string (``"move 6 to=broo1"``)."""
        return self.issue(commands.TakeAction(who=who, action=action), dice=dice, reroll=reroll, salt=salt)

    def end_round(self, *, dice: str = "", reroll: str = "", salt: str = "") -> Outcome:
        """End the round: expiries, re-tests, then the next order of action."""
        return self.issue(commands.EndRound(), dice=dice, reroll=reroll, salt=salt)

    def note(self, text: str, *, secret: bool = False) -> Outcome:
        """Record a GM's note (``secret``: left out of exports unless asked)."""
        return self.issue(commands.AddNote(text=text, secret=secret))

    def undo(self) -> Outcome:
        """Retract the newest live command; it stays in the log, struck
        through. ``outcome.records[0].event.command_id`` names it."""
        return self.issue(commands.Undo())

    def redo(self) -> Outcome:
        """Restore the most recently undone command."""
        return self.issue(commands.Redo())

    def rewind(self, to: str = "", *, version: int = 0) -> Outcome:
        """Void everything after the point ``to`` (``"1.2"``: just after step
        2 of round 1; ``"1"``: the end of round 1) or after log ``version``;
        it stays in the log, struck through."""
        return self.issue(commands.Rewind(to_point=to, to_version=version))

    def close(self, reason: str = "") -> Outcome:
        """Close the encounter and reveal its dice seed (then
        ``verify(dice=True)`` re-derives every engine roll)."""
        return self.issue(commands.CloseEncounter(reason=reason))

    # -- reading --------------------------------------------------------------

    def state(self, *, at: str = "", version: int = 0) -> State:
        """The fight now, at ``at`` (``"2"``: the end of round 2; ``"1.3"``:
        just after step 3 of round 1) or with the log cut at ``version``: a
        :class:`State` (``combatants`` by handle, each with ``locations``
        (``hp``, ``max_hp``, ``wound``), ``conditions``, ``status``; the
        ``pending`` steps; ``round``, ``step``, ``phase``, ``winner``).
        Errors: UserError for a point or version the log does not have."""
        if at:
            try:
                rnd, step = parse_point(at)
                return state_at_store(self.log, self.encounter_id, rnd, step)
            except (ValueError, LookupError) as exc:
                raise UserError(str(exc)) from None
        if version:
            head = self.log.version(self.encounter_id)
            if not 1 <= version <= head:
                raise UserError(f"version takes 1–{head} for encounter {self.encounter_id}, got {version}")
            return load_state(self.log, self.encounter_id, at_version=version)
        return load_state(self.log, self.encounter_id)

    def state_json(self, **point) -> dict:
        """:meth:`state` in the documented JSON shape of ``affray state
        --json`` (README, "--json fields"): plain dicts and lists."""
        return state_data(self.state(**point))

    def pending(self) -> list[dict]:
        """What the table waits for, as ``affray pending --json``: a list of
        ``{"who", "name", "verb", "kind", "prompt", "options", "dice":
        [{"purpose", "expr", "by"}], "exchange"}``, in ``dice=`` order."""
        return pending_data(self.state())

    def export(self, fmt: str = "markdown", *, view: str = "table", rounds: tuple[int, int] | None = None,
               secret: bool = False, limit: int | None = None) -> str:
        """The export ``affray export`` writes, as a string: ``fmt`` one of
        markdown, bbcode, discord, html, jsonl; ``view`` ``table`` (the fight
        as it stands, for players) or ``record`` (the whole trail); rounds
        ``(first, last)``; ``secret`` includes secret notes; ``limit`` the
        most characters in one bbcode post or discord message. Errors:
        UserError for an unknown format or view."""
        if fmt not in FORMATS:
            raise UserError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
        if view not in VIEWS:
            raise UserError(f"unknown view {view!r}; choose one of {', '.join(VIEWS)}")
        out = io.StringIO()
        export_store(self.log, self.encounter_id, fmt, out, rounds=rounds, show_secret=secret, view=view,
                     footer=fmt != "jsonl", limit=limit)
        return out.getvalue()

    def verify(self, *, dice: bool = False, full: bool = False, against: str = "") -> Verdict:
        """Check this encounter as ``affray verify`` does: the hash chain,
        every snapshot, with ``dice`` every engine roll (once the seed is
        revealed or in the key file), with ``full`` the audit, with
        ``against`` a kept head. A :class:`affray.verify.Verdict`:
        ``code`` (0 intact, 1 tampering or a difference, 4 dice not yet
        checkable), ``problems`` (one line each), ``data()`` (the ``verify
        --json`` shape). Never raises for a tampered log: it reports it."""
        return verify_store(self.log, self.encounter_id, dice=dice, full=full, against=against)

    def head(self) -> tuple[int, str]:
        """``(version, hash)`` of the newest event: keep it to check later
        with ``verify(against="VERSION:HASH")``."""
        return self.log.head(self.encounter_id)
