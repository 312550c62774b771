"""The shared event vocabulary of affray.

Every event is a frozen ``msgspec.Struct`` with a stable kebab-case tag
(``tag="attack-declared"``). A class may be renamed; a tag never changes.
``schema`` is a ``ClassVar[int]``: a new field needs a default; a change of
meaning bumps the schema and registers an upcaster in
:mod:`affray.events.upcasters`.

Units: distances in metres, durations in rounds, skills in percent.
This module imports nothing of affray's (DESIGN.md, "The flow").
"""

from typing import ClassVar

import msgspec


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", gc=False):
    """Base of every event. ``schema`` is the event's schema version.

    Events are immutable and acyclic, so they are not tracked by the cyclic
    garbage collector (``gc=False``): a replay of a million events does not
    make the collector walk them again and again."""

    schema: ClassVar[int] = 1


# --------------------------------------------------------------------------- #
# Value objects carried inside events
# --------------------------------------------------------------------------- #


class Modifier(msgspec.Struct, frozen=True):
    """A situational modifier in percent, with the reason the GM gave."""

    value: int
    reason: str


class LocationInit(msgspec.Struct, frozen=True):
    """A hit location as a combatant joins: name, d20 range, HP and armour."""

    name: str
    hp: int
    ap: int = 0
    low: int = 0
    high: int = 0
    limb: str = ""  # "leg", "arm" or "" for abdomen/chest/head


class DiceNeed(msgspec.Struct, frozen=True):
    """One die expression a pending step needs, in the order it is consumed.

    ``expr`` is like ``1D100`` or ``1D8+1D4``; ``purpose`` says what it is for.
    """

    purpose: str
    expr: str
    by: str = ""  # handle of the combatant the roll belongs to


class PendingStep(msgspec.Struct, frozen=True):
    """What the table is waiting for, and from whom.

    ``verb`` is the CLI verb that performs the step (``attack``, ``react``,
    ``roll``, ``choose``, ``end-round``...). ``options`` are the choices the
    verb accepts; ``dice`` the dice it consumes, in order. ``kind`` and
    ``data`` are the rule system's own context for the step (opaque here).
    """

    who: str
    verb: str
    prompt: str
    options: tuple[str, ...] = ()
    dice: tuple[DiceNeed, ...] = ()
    exchange: int = 0
    kind: str = ""
    data: dict[str, str | int] = {}


class ConditionEnd(msgspec.Struct, frozen=True):
    """How a condition ends.

    ``kind``: ``rounds`` (after ``count`` round ends), ``actions`` (after the
    bearer loses or spends ``count`` combat actions), ``round-end`` (at the end
    of the round), ``next-action`` (when the bearer next takes a combat
    action), ``event`` (when an event clears it) or ``never``.
    """

    kind: str
    count: int = 0


class Condition(msgspec.Struct, frozen=True):
    """A condition on a combatant, in the one shape every system shares.

    ``cause`` is the ``version`` of the event that caused it; ``since`` the
    round and step it began. ``effects`` are mechanical keys with values
    (``{"penalty": -20}``, ``{"cannot-attack": 1}``, ``{"helpless": 1}``).
    """

    id: str
    name: str
    cause: int
    since_round: int
    since_step: int
    ends: ConditionEnd
    stacks: bool = False
    effects: dict[str, int] = {}
    location: str = ""
    note: str = ""


class InitiativeEntry(msgspec.Struct, frozen=True):
    """One combatant's place in a round's order of action.

    ``rank`` is the strike rank / initiative total; ``tiebreak`` the DEX used
    to order equal ranks; ``tier`` groups simultaneous actors (same rank and
    same DEX share a tier).
    """

    handle: str
    rank: int
    tiebreak: int = 0
    tier: int = 0
    detail: str = ""


# --------------------------------------------------------------------------- #
# Encounter life cycle
# --------------------------------------------------------------------------- #


class EncounterOpened(Event, frozen=True, kw_only=True, tag="encounter-opened"):
    """First event of an encounter: its system, the dice commitment, rulings.

    ``seed_sha256`` is ``sha256(seed)``: the seed itself is revealed only by
    :class:`EncounterClosed` (DESIGN.md, "Dice"). ``dice_stream`` is the
    encounter id engine rolls are derived with when it is not this one's: a
    branch shares its origin's seed and stream, so its rolls match.
    ``seed_chosen`` is ``True`` when the GM chose the seed (``affray new
    --seed``) instead of the engine drawing it; it is left out of the data
    when false, so logs written before it decode and hash as they did
    (``is_chosen`` reads it). A manual-dice encounter never records it: its
    seed decides no die. ``chain`` is the hash chain's version
    (:mod:`affray.store.chain`): ``2`` for an encounter opened since its
    first link is bound to the seed commitment, left out (chain v1) in logs
    written before (``chain_version`` reads it).
    """

    encounter_id: str
    name: str
    system: str
    seed_sha256: str
    manual_dice: bool = False
    rulings: dict[str, str] = {}
    dice_stream: str = ""  # a branch derives engine dice with its origin's id
    seed_chosen: bool | msgspec.UnsetType = msgspec.UNSET
    chain: int | msgspec.UnsetType = msgspec.UNSET

    @property
    def is_chosen(self) -> bool:
        """Whether the seed was chosen by the GM (``seed_chosen`` is true)."""
        return self.seed_chosen is True

    @property
    def chain_version(self) -> int:
        """The hash chain's version: 2 when ``chain`` says so, else 1."""
        return 2 if self.chain == 2 else 1


class EncounterClosed(Event, frozen=True, kw_only=True, tag="encounter-closed"):
    """The encounter is closed; the dice seed (hex) is revealed."""

    seed: str
    reason: str = ""


class CombatantJoined(Event, frozen=True, kw_only=True, tag="combatant-joined"):
    """A combatant enters the encounter with its derived figures.

    ``sheet`` is the system's sheet as plain data, kept so that a replay
    never needs the original file. ``movement`` is in metres.
    """

    handle: str
    name: str
    side: str
    sheet: dict
    locations: tuple[LocationInit, ...]
    combat_actions: int
    reactions: int
    movement: int = 0
    weapons_ready: tuple[str, ...] = ()
    surprised: bool = False


class CommandIssued(Event, frozen=True, kw_only=True, tag="command-issued"):
    """The command as the GM issued it, first event of its batch: the
    ``command`` as plain data (its ``command`` key is the command's tag), the
    table ``dice`` values typed with it and any ``reroll`` reason. Kept so an
    audit can re-decide it and an amend can issue it again. ``salt`` is the
    command's own salt (``--salt``), mixed into this command's engine rolls
    only (:mod:`affray.dice`); left out of the data when not given
    (``salt_text`` reads it)."""

    command: dict
    dice: tuple[str, ...] = ()
    reroll: str = ""
    salt: str | msgspec.UnsetType = msgspec.UNSET

    @property
    def salt_text(self) -> str:
        """The command's salt, ``""`` when it has none."""
        return self.salt if isinstance(self.salt, str) else ""


class SaltAdded(Event, frozen=True, kw_only=True, tag="salt-added"):
    """A participant's salt: entropy mixed into every engine roll from roll
    number ``from_index`` on (``affray salt VALUE``; who added it is the
    envelope's actor).

    ``from_index`` is one past the highest engine roll number the log had
    drawn when the salt was added, counting undone and rewound rolls too, so
    a salt never changes a roll already drawn. A salt counts from then on
    whether or not its own command is later undone or rewound away.
    Derivation: :mod:`affray.dice`, "Salts".
    """

    value: str
    from_index: int


class NoteAdded(Event, frozen=True, kw_only=True, tag="note-added"):
    """A GM's ruling or comment. ``secret`` notes are hidden from exports."""

    text: str
    secret: bool = False


# --------------------------------------------------------------------------- #
# Rounds and turns
# --------------------------------------------------------------------------- #


class RoundStarted(Event, frozen=True, kw_only=True, tag="round-started"):
    """A round begins with its order of action and fresh allowances."""

    round: int
    order: tuple[InitiativeEntry, ...]
    combat_actions: dict[str, int]
    reactions: dict[str, int]


class OrderChanged(Event, frozen=True, kw_only=True, tag="order-changed"):
    """The order of action changes within a round (a combatant joining a
    fight under way is placed in it): the whole new ``order``; the
    allowances of this round granted with it, by handle (the combatants
    not named keep theirs); ``reason`` says why."""

    order: tuple[InitiativeEntry, ...]
    combat_actions: dict[str, int] = {}
    reactions: dict[str, int] = {}
    reason: str = ""


class TurnBegan(Event, frozen=True, kw_only=True, tag="turn-began"):
    """``handles`` may act now (more than one when they act simultaneously).

    ``action_no`` is the pass: 1 for the 1st combat action, 2 for the 2nd...
    """

    handles: tuple[str, ...]
    action_no: int


class ActionSpent(Event, frozen=True, kw_only=True, tag="action-spent"):
    """A combatant spends (or loses) allowance: ``kind`` is ``combat-action``
    or ``reaction``; ``amount`` how many; ``reason`` why."""

    handle: str
    kind: str
    amount: int = 1
    reason: str = ""


class RoundEnded(Event, frozen=True, kw_only=True, tag="round-ended"):
    """The round is over; unused allowances are gone."""

    round: int


class StepsAwaited(Event, frozen=True, kw_only=True, tag="steps-awaited"):
    """The complete list of what the table now waits for (replaces the last)."""

    steps: tuple[PendingStep, ...]


class FightEnded(Event, frozen=True, kw_only=True, tag="fight-ended"):
    """Only one side (or none) can still fight."""

    winner: str
    reason: str


# --------------------------------------------------------------------------- #
# Dice and tests
# --------------------------------------------------------------------------- #


class DiceRolled(Event, frozen=True, kw_only=True, tag="dice-rolled"):
    """A roll with its expression, faces, total and purpose.

    ``source`` is ``engine`` (with ``index``, the encounter's engine roll
    number) or ``table`` (typed in, with ``typed_by``). ``supersedes`` is the
    version of a roll this one replaces (a Hero Point re-roll), else 0.
    """

    purpose: str
    expr: str
    faces: tuple[int, ...]
    total: int
    source: str
    index: int = -1
    typed_by: str = ""
    by: str = ""
    supersedes: int = 0


class SkillTested(Event, frozen=True, kw_only=True, tag="skill-tested"):
    """A d100 test: ``skill`` name, ``base`` and modified ``target`` percent,
    the ``roll`` and the ``result`` (critical, success, failure, fumble)."""

    handle: str
    skill: str
    base: int
    target: int
    roll: int
    result: str
    purpose: str = ""
    modifiers: tuple[Modifier, ...] = ()


# --------------------------------------------------------------------------- #
# The exchange
# --------------------------------------------------------------------------- #


class AttackDeclared(Event, frozen=True, kw_only=True, tag="attack-declared"):
    """``attacker`` attacks ``target`` with ``weapon``; opens ``exchange``.

    ``kind`` is ``close``, ``riposte`` or another system-specific kind.
    """

    exchange: int
    attacker: str
    target: str
    weapon: str
    kind: str = "close"
    modifiers: tuple[Modifier, ...] = ()


class AttackResolved(Event, frozen=True, kw_only=True, tag="attack-resolved"):
    """The attack's outcome before any reaction: ``hit`` and ``critical``."""

    exchange: int
    hit: bool
    critical: bool = False
    fumble: bool = False
    roll: int = 0
    skill: int = 0


class ReactionChosen(Event, frozen=True, kw_only=True, tag="reaction-chosen"):
    """``handle`` reacts to ``exchange`` with ``reaction`` (``none`` too),
    using ``with_item`` (a weapon or shield) where the reaction needs one."""

    exchange: int
    handle: str
    reaction: str
    with_item: str = ""


class ReactionResolved(Event, frozen=True, kw_only=True, tag="reaction-resolved"):
    """The result of a reaction looked up on the system's table.

    ``cell`` names the table cell (``parry:success/critical``); ``outcome``
    is the rules text; ``effects`` are machine keys (``hit``, ``critical``,
    ``minimum-damage``, ``give-ground``, ``riposte``, ``overextended``,
    ``reduce``: damage points deducted).
    """

    exchange: int
    cell: str
    outcome: str
    effects: dict[str, int] = {}


class DamageDealt(Event, frozen=True, kw_only=True, tag="damage-dealt"):
    """Damage reaching ``location`` of ``target``.

    ``rolled`` is the damage before reductions, ``reduced`` what parry
    deducted, ``armour`` what armour absorbed, ``final`` the HP lost.
    """

    exchange: int
    target: str
    location: str
    rolled: int
    reduced: int
    armour: int
    final: int
    critical: bool = False
    note: str = ""


class WoundInflicted(Event, frozen=True, kw_only=True, tag="wound-inflicted"):
    """A wound of ``severity`` (minor, serious, major) to ``location``."""

    target: str
    location: str
    severity: str
    exchange: int = 0


class WoundEased(Event, frozen=True, kw_only=True, tag="wound-eased"):
    """The wound to ``location`` is now the lesser ``severity`` (an mrq1
    Glancing Blow turns a Major Wound into a Serious one; healing rules may
    ease wounds too). ``reason`` says why."""

    target: str
    location: str
    severity: str
    reason: str = ""


class ExchangeEnded(Event, frozen=True, kw_only=True, tag="exchange-ended"):
    """The exchange is over; ``summary`` is a one-line account."""

    exchange: int
    summary: str = ""


# --------------------------------------------------------------------------- #
# Conditions, stance, position, equipment
# --------------------------------------------------------------------------- #


class ConditionApplied(Event, frozen=True, kw_only=True, tag="condition-applied"):
    """``condition`` now applies to ``handle``."""

    handle: str
    condition: Condition


class ConditionExpired(Event, frozen=True, kw_only=True, tag="condition-expired"):
    """Condition ``condition_id`` on ``handle`` ends, for ``reason``."""

    handle: str
    condition_id: str
    reason: str = ""


class StanceChanged(Event, frozen=True, kw_only=True, tag="stance-changed"):
    """``handle`` is now ``stance`` (standing, prone, kneeling, sitting)."""

    handle: str
    stance: str
    reason: str = ""


class CombatantMoved(Event, frozen=True, kw_only=True, tag="combatant-moved"):
    """``handle`` moved ``distance`` metres, ``away_from`` someone or not."""

    handle: str
    distance: float
    reason: str = ""
    away_from: str = ""


class EngagementChanged(Event, frozen=True, kw_only=True, tag="engagement-changed"):
    """``a`` and ``b`` are now ``engaged`` (in melee) or not."""

    a: str
    b: str
    engaged: bool


class WeaponDropped(Event, frozen=True, kw_only=True, tag="weapon-dropped"):
    """``handle`` no longer holds ``weapon``."""

    handle: str
    weapon: str
    reason: str = ""


class WeaponReadied(Event, frozen=True, kw_only=True, tag="weapon-readied"):
    """``handle`` now holds ``weapon`` ready."""

    handle: str
    weapon: str


class HitPointsRestored(Event, frozen=True, kw_only=True, tag="hit-points-restored"):
    """``amount`` HP come back to ``location`` (First Aid, magic, GM)."""

    handle: str
    location: str
    amount: int
    reason: str = ""


class StatusChanged(Event, frozen=True, kw_only=True, tag="status-changed"):
    """``handle``'s fight status: active, unconscious, dead or out."""

    handle: str
    status: str
    reason: str = ""


# --------------------------------------------------------------------------- #
# GM rulings (issue 16): fiat at the table, each with the GM's reason
# --------------------------------------------------------------------------- #


class HitPointsSet(Event, frozen=True, kw_only=True, tag="hit-points-set"):
    """The GM sets ``location`` of ``handle`` to ``hp`` HP (at most its
    maximum), for ``reason``. Wounds and status are left as they were."""

    handle: str
    location: str
    hp: int
    reason: str = ""


class CombatantOut(Event, frozen=True, kw_only=True, tag="combatant-out"):
    """The GM rules ``handle`` out of the fight: ``how`` is ``fled``,
    ``surrendered``, ``removed`` or ``dead``, for ``reason``. Its status
    becomes ``dead`` (for ``dead``) or ``out``, so it leaves the turn order."""

    handle: str
    how: str
    reason: str = ""


class RulingChanged(Event, frozen=True, kw_only=True, tag="ruling-changed"):
    """The named ruling ``name`` is ``value`` from this point on (the GM's
    ``reason``); ``was`` is its value before."""

    name: str
    value: str
    was: str = ""
    reason: str = ""


class FightRuledOver(Event, frozen=True, kw_only=True, tag="fight-ruled-over"):
    """The GM ends the fight: ``winner`` is a side, or "" for a draw, for
    ``reason``. Followed by the shared :class:`FightEnded`."""

    winner: str
    reason: str = ""


#: The events a GM ruling verb emits (``why`` and the exports show them as rulings).
GM_RULINGS = (HitPointsSet, CombatantOut, RulingChanged, FightRuledOver)


# --------------------------------------------------------------------------- #
# Time travel (meta events: they act on commands, not on the fight)
# --------------------------------------------------------------------------- #


class CommandRetracted(Event, frozen=True, kw_only=True, tag="command-retracted"):
    """Undo: every event of ``command_id`` is void (kept in the log)."""

    command_id: str


class CommandRestored(Event, frozen=True, kw_only=True, tag="command-restored"):
    """Redo: a retracted command is live again."""

    command_id: str


class EncounterRewound(Event, frozen=True, kw_only=True, tag="encounter-rewound"):
    """Everything after ``to_version`` is void (kept in the log)."""

    to_version: int


META_EVENTS = (CommandRetracted, CommandRestored, EncounterRewound)
