"""The projected state of an encounter: what the fold of its events says now.

Everything here is a frozen ``msgspec.Struct``, so a state can be compared,
hashed into a snapshot (msgpack) and shared between versions without copies.
Nothing here knows a rule system (DESIGN.md, "The flow").

Units: HP in points, distances in metres, rounds counted from 1.
"""

import msgspec

from affray.events.core import Condition, InitiativeEntry, Modifier, PendingStep

#: Bumped whenever the shape of :class:`State` changes; stale snapshots are ignored.
STATE_SCHEMA = 2


class Location(msgspec.Struct, frozen=True):
    """A hit location: current ``hp`` against ``max_hp``, armour ``ap``,
    its d20 range ``low``–``high``, ``limb`` (leg, arm or "") and the worst
    ``wound`` so far (``""``, minor, serious, major)."""

    name: str
    hp: int
    max_hp: int
    ap: int = 0
    low: int = 0
    high: int = 0
    limb: str = ""
    wound: str = ""


class Combatant(msgspec.Struct, frozen=True):
    """One combatant's state.

    ``combat_actions``/``reactions`` are what is left this round, out of
    ``max_combat_actions``/``max_reactions``; ``actions_taken`` counts the
    combat actions spent or lost this round. ``status`` is active,
    unconscious, dead or out. ``engaged`` lists the handles in melee with it.
    ``moved`` is the distance moved in metres since the encounter began.
    """

    handle: str
    name: str
    side: str
    sheet: dict
    locations: tuple[Location, ...]
    max_combat_actions: int
    max_reactions: int
    combat_actions: int = 0
    reactions: int = 0
    actions_taken: int = 0
    movement: int = 0
    conditions: tuple[Condition, ...] = ()
    stance: str = "standing"
    status: str = "active"
    ready: tuple[str, ...] = ()
    engaged: tuple[str, ...] = ()
    moved: float = 0.0
    surprised: bool = False
    joined_version: int = 0

    def location(self, name: str) -> Location:
        """The location called ``name``; ``KeyError`` if it has none."""
        for loc in self.locations:
            if loc.name == name:
                return loc
        raise KeyError(name)

    def has(self, condition_name: str) -> bool:
        """Whether a condition called ``condition_name`` applies now."""
        return any(c.name == condition_name for c in self.conditions)

    def effect(self, key: str) -> int:
        """Sum of effect ``key`` over all current conditions (0 if none)."""
        return sum(c.effects.get(key, 0) for c in self.conditions)

    @property
    def can_fight(self) -> bool:
        """Active, and not helpless or unconscious through a condition."""
        return self.status == "active" and not self.effect("helpless")


class Exchange(msgspec.Struct, frozen=True):
    """The exchange in progress: attack → reaction → damage → wounds.

    ``roll``/``skill`` are the attack's d100 and modified skill; ``effects``
    the reaction table's machine keys once the reaction is resolved.
    """

    id: int
    attacker: str
    target: str
    weapon: str
    kind: str = "close"
    modifiers: tuple[Modifier, ...] = ()
    resolved: bool = False
    hit: bool = False
    critical: bool = False
    fumble: bool = False
    roll: int = 0
    skill: int = 0
    reaction: str = ""
    with_item: str = ""
    effects: dict[str, int] = {}
    declared_version: int = 0


class State(msgspec.Struct, frozen=True):
    """The whole encounter, as the fold of its live events says.

    ``version`` is the log version the state reflects (meta events count);
    ``round``/``step`` place it in the fight (step = live commands since the
    round began); ``phase`` is setup, round, between, over or closed;
    ``turn`` lists who may act now; ``pending`` what the table waits for.
    ``next_roll_index`` is the next engine roll number; engine rolls are
    derived with ``dice_stream`` (or ``encounter_id`` when it is empty).
    """

    encounter_id: str = ""
    name: str = ""
    system: str = ""
    seed_sha256: str = ""
    manual_dice: bool = False
    rulings: dict[str, str] = {}
    dice_stream: str = ""
    version: int = 0
    round: int = 0
    step: int = 0
    phase: str = "setup"
    order: tuple[InitiativeEntry, ...] = ()
    turn: tuple[str, ...] = ()
    action_no: int = 0
    combatants: dict[str, Combatant] = {}
    pending: tuple[PendingStep, ...] = ()
    exchange: Exchange | None = None
    next_exchange: int = 1
    next_roll_index: int = 0
    last_command: str = ""
    winner: str = ""
    seed: str = ""

    def combatant(self, handle: str) -> Combatant:
        """The combatant with ``handle``; ``KeyError`` if none."""
        return self.combatants[handle]
