"""Commands: what a GM asks for, named in the imperative.

A command is a request; it may be refused. Handling one turns it into events
(:mod:`affray.commands.handler`). Combatants are named by handle or by an
unambiguous prefix of handle or name; the handler resolves them.
"""

import msgspec

from affray.events.core import Modifier


class Command(msgspec.Struct, frozen=True, kw_only=True, tag_field="command"):
    """Base of all commands."""


class OpenEncounter(Command, frozen=True, kw_only=True, tag="open"):
    """Open a new encounter under ``system`` (a key or alias)."""

    name: str
    system: str
    manual_dice: bool = False
    rulings: dict[str, str] = {}
    encounter_id: str = ""


class JoinCombatant(Command, frozen=True, kw_only=True, tag="join"):
    """Add a combatant from a loaded ``sheet`` (plain data) to the encounter."""

    sheet: dict
    side: str
    name: str = ""
    handle: str = ""
    surprised: bool = False


class StartRound(Command, frozen=True, kw_only=True, tag="start"):
    """Begin the first round (strike ranks, initiative, statements...)."""


class DeclareAttack(Command, frozen=True, kw_only=True, tag="attack"):
    """``attacker`` attacks ``target`` with ``weapon`` ("" = the first ready).

    ``situations`` are keys of the system's situational-modifier catalogue;
    ``modifiers`` free modifiers with their reasons.
    """

    attacker: str
    target: str
    weapon: str = ""
    modifiers: tuple[Modifier, ...] = ()
    situations: tuple[str, ...] = ()


class ChooseReaction(Command, frozen=True, kw_only=True, tag="react"):
    """``defender`` answers the pending attack with ``reaction``
    (e.g. parry, dodge, none, riposte) using ``with_item`` where needed."""

    defender: str
    reaction: str
    with_item: str = ""
    modifiers: tuple[Modifier, ...] = ()
    situations: tuple[str, ...] = ()


class RollPending(Command, frozen=True, kw_only=True, tag="roll"):
    """Perform the first pending roll step (``who`` narrows it to one)."""

    who: str = ""


class MakeChoice(Command, frozen=True, kw_only=True, tag="choose", omit_defaults=True):
    """``who`` picks ``option`` at a pending choice (yank/leave, follow/stay).

    ``secret`` marks a choice the other players must not see (mythras
    Prepare Counter): its ``CommandIssued`` is left out of exports like a
    secret note. (``omit_defaults``: an ordinary choice is recorded as it
    always was.)"""

    who: str
    option: str
    secret: bool = False


class TakeAction(Command, frozen=True, kw_only=True, tag="act"):
    """``who`` spends a combat action on ``action`` (defend, pass...)."""

    who: str
    action: str


class EndRound(Command, frozen=True, kw_only=True, tag="end-round"):
    """End the round: expiries, re-tests, the next round's order."""


class AddNote(Command, frozen=True, kw_only=True, tag="note"):
    """Record a GM's ruling or comment."""

    text: str
    secret: bool = False


class AddSalt(Command, frozen=True, kw_only=True, tag="salt"):
    """Add a participant's salt: entropy mixed into every engine roll to
    come (``affray salt VALUE``; :mod:`affray.dice`, "Salts")."""

    value: str


class Undo(Command, frozen=True, kw_only=True, tag="undo"):
    """Retract the newest live command (kept in the log, struck through)."""


class Redo(Command, frozen=True, kw_only=True, tag="redo"):
    """Restore the most recently retracted command."""


class CloseEncounter(Command, frozen=True, kw_only=True, tag="close"):
    """Close the encounter and reveal the dice seed."""

    reason: str = ""


# --------------------------------------------------------------------------- #
# GM rulings (issue 16): decided once for every system (rules/gm.py)
# --------------------------------------------------------------------------- #


class SetHitPoints(Command, frozen=True, kw_only=True, tag="set-hp"):
    """Set ``location`` of ``who`` to ``hp`` HP, for ``reason``."""

    who: str
    location: str
    hp: int
    reason: str


class Heal(Command, frozen=True, kw_only=True, tag="heal"):
    """Restore HP to ``who``: ``amount`` HP to ``location``, or the location
    to its maximum (``amount`` 0), or every location ("" location)."""

    who: str
    location: str = ""
    amount: int = 0
    reason: str


class RuleOut(Command, frozen=True, kw_only=True, tag="out"):
    """``who`` is out of the fight: ``how`` is fled, surrendered, removed or dead."""

    who: str
    how: str
    reason: str


class EndFight(Command, frozen=True, kw_only=True, tag="end"):
    """End the fight with ``winner`` (a side, or ``draw``), for ``reason``."""

    winner: str
    reason: str


class ChangeRuling(Command, frozen=True, kw_only=True, tag="ruling"):
    """The named ruling ``name`` is ``value`` from now on, for ``reason``."""

    name: str
    value: str
    reason: str


# --------------------------------------------------------------------------- #
# Time travel (issue 5): handled by affray.commands.travel and affray.commands.amend
# --------------------------------------------------------------------------- #


class Rewind(Command, frozen=True, kw_only=True, tag="rewind"):
    """Void everything after a point of the fight (kept in the log, struck
    through): ``to_point`` is ``ROUND`` or ``ROUND.STEP`` on the live
    timeline, or ``to_version`` a log version at a command boundary."""

    to_point: str = ""
    to_version: int = 0


class BranchEncounter(Command, frozen=True, kw_only=True, tag="branch"):
    """Start a new encounter called ``name`` from a prefix of the current one:
    up to ``at_point`` (``ROUND[.STEP]``) or ``at_version`` (default: now).

    ``origin``, ``dice_stream`` and ``at_version`` are filled in when the
    branch is recorded (its ``CommandIssued``): the encounter it came from,
    whose engine dice it follows, and the version it was cut at.
    """

    name: str
    at_point: str = ""
    at_version: int = 0
    encounter_id: str = ""
    origin: str = ""
    dice_stream: str = ""


class AmendCommand(Command, frozen=True, kw_only=True, tag="amend"):
    """Retract command ``target`` (``ROUND.STEP`` or ``cN``) and the live
    commands after it, issue it again with the changes, and with ``replay``
    re-apply the later commands with their recorded dice.

    ``modifiers``/``situations`` are added to the command's own;
    ``reaction``, ``target_combatant`` and ``weapon`` replace its values;
    ``dice`` are new table values (``reroll`` says why, and is logged).
    ``on_branch`` names a branch to create first and amend there instead.
    """

    target: str
    modifiers: tuple[Modifier, ...] = ()
    situations: tuple[str, ...] = ()
    reaction: str = ""
    target_combatant: str = ""
    weapon: str = ""
    dice: str = ""
    reroll: str = ""
    replay: bool = False
    on_branch: str = ""


# --------------------------------------------------------------------------- #
# mrq1 extras: grappling and Hero Points (seed 004)
# --------------------------------------------------------------------------- #


class Grapple(Command, frozen=True, kw_only=True, tag="grapple"):
    """``who`` grapples: ``manoeuvre`` is ``attack`` (a grapple attack on
    ``target`` with the unarmed or natural ``weapon``), or, while grappling,
    ``break-free``, ``immobilise``, ``inflict-pain``, ``throw``, ``release``;
    ``none`` declines a follow-up."""

    who: str
    manoeuvre: str
    target: str = ""
    weapon: str = ""
    modifiers: tuple[Modifier, ...] = ()
    situations: tuple[str, ...] = ()


class SpendHeroPoint(Command, frozen=True, kw_only=True, tag="hero"):
    """``who`` spends a Hero Point on ``option``: ``second-chance`` (re-run
    the retracted command ``redo`` with its roll number ``position``
    re-rolled, superseding the roll recorded at version ``roll``),
    ``glancing-blow`` (a Major Wound to ``location`` becomes Serious) or
    ``luck`` (``note``, with ``approved`` by the GM)."""

    who: str
    option: str
    roll: int = 0
    position: int = 0
    redo: dict = {}
    location: str = ""
    note: str = ""
    approved: bool = False


class Mount(Command, frozen=True, kw_only=True, tag="mount"):
    """``rider`` mounts ``mount`` (a combatant), or dismounts with ``off``."""

    rider: str
    mount: str = ""
    off: bool = False
