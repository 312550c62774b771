"""Events that belong to the Rolemaster-style system alone (seed 000).

Each records a table lookup in full, so ``affray why`` can show the chain a
GM needs to settle a dispute, and a replay never has to read a table again.
Shared meanings (dice, damage, conditions, stance, status) use
:mod:`affray.events.core`.
"""

from affray.events.core import Event, Modifier


class AttackLookedUp(Event, frozen=True, kw_only=True, tag="rolemaster-attack-looked-up"):
    """An attack total looked up on a weapon's attack table (seed 000
    "Attack Procedure" steps 1-5).

    ``dice``: the open-ended chain, first die first (``first`` the
    unmodified first die, checked against ``fumble_range``); ``roll`` the
    chain's result; ``ob`` with ``ob_parts``, ``db`` with ``db_parts`` (each
    a value with its reason); ``total`` = roll + OB - DB; ``table`` with
    its file's ``table_sha256``; the ``row`` it read (``row_low`` ..
    ``row_high``, ``read`` the total as read, capped at the table's top),
    the ``column`` (the target's armour type) and the ``cell`` as written;
    ``hits``, ``severity`` (A-F or "") and ``crit_type`` (a letter or "").
    When ``fumble`` is set the attack ended at step 2 and nothing else is
    filled in."""

    exchange: int
    attacker: str
    target: str
    weapon: str
    table: str
    table_sha256: str = ""
    dice: tuple[int, ...] = ()
    first: int = 0
    fumble_range: tuple[int, int] = (0, 0)
    fumble: bool = False
    roll: int = 0
    ob: int = 0
    ob_parts: tuple[Modifier, ...] = ()
    db: int = 0
    db_parts: tuple[Modifier, ...] = ()
    total: int = 0
    read: int = 0
    row_low: int = 0
    row_high: int = 0
    column: str = ""
    cell: str = ""
    hits: int = 0
    severity: str = ""
    crit_type: str = ""


class CriticalLookedUp(Event, frozen=True, kw_only=True, tag="rolemaster-critical-looked-up"):
    """A closed d100 read on a critical table (rules-reference.md A11):
    the ``table`` (type letter ``crit_type``), the ``severity`` column, the
    ``roll`` and the row ``row_low``..``row_high``; ``text`` and the
    ``effects`` as data (hits, stunned rounds, prone...)."""

    exchange: int
    target: str
    table: str
    table_sha256: str = ""
    crit_type: str
    severity: str
    roll: int
    row_low: int
    row_high: int
    text: str
    effects: dict[str, int] = {}


class CriticalSplit(Event, frozen=True, kw_only=True, tag="rolemaster-critical-split"):
    """An ``F`` critical on a critical ``table`` without an F column, read
    as the ``parts`` severities in order (``("E", "C")``: an E critical
    plus a C critical, rules-reference.md A11 after RMC; ruling
    ``severity_f``); a :class:`CriticalLookedUp` follows for each part."""

    exchange: int
    target: str
    table: str
    severity: str = "F"
    parts: tuple[str, ...] = ()


class ChargeLanded(Event, frozen=True, kw_only=True, tag="rolemaster-charge-landed"):
    """A charge's hit (RMH "Charging": at ``speed`` m/s relative to the
    defender the hits are multiplied and the critical raised): the cell's
    ``hits_from`` and ``severity_from`` became ``hits`` and ``severity``."""

    exchange: int
    attacker: str
    speed: int = 0
    hits_from: int
    hits: int
    severity_from: str = ""
    severity: str = ""


class TerrainLookedUp(Event, frozen=True, kw_only=True, tag="rolemaster-terrain-looked-up"):
    """A knock-back landing in ``terrain`` (seed 000 "Knocked Back":
    "depending on terrain, may suffer additional effects"), read on the
    knockback ``table`` (its file's ``table_sha256``): its ``text`` and
    ``effects`` as data, applied to ``handle``."""

    exchange: int = 0
    handle: str
    table: str
    table_sha256: str = ""
    terrain: str
    text: str = ""
    effects: dict[str, int] = {}


class FumbleLookedUp(Event, frozen=True, kw_only=True, tag="rolemaster-fumble-looked-up"):
    """A fumble resolved on a fumble table (seed 000 "Attack Procedure"
    step 2): the closed ``roll``, the row, the ``text`` and ``effects``."""

    exchange: int
    handle: str
    table: str
    table_sha256: str = ""
    roll: int
    row_low: int
    row_high: int
    text: str
    effects: dict[str, int] = {}


class ManeuverResolved(Event, frozen=True, kw_only=True, tag="rolemaster-maneuver-resolved"):
    """A maneuver roll read on a table: ``maneuver`` (dodge, perception,
    orientation), ``table`` (a moving-maneuver table or
    ``static-maneuver``), ``column`` (the difficulty), the open-ended
    ``dice`` and ``roll``, the ``bonus`` parts and ``total``; the row or
    band read and ``where`` (``bottom``/``top`` off the ends of a moving
    column, ``band`` for a static maneuver's band); ``outcome`` (a band name, or the cell text), ``value`` (a
    dodge's DB bonus), ``unusual`` (66 or 100 seen, a flag for the GM)."""

    handle: str
    maneuver: str
    table: str
    column: str = ""
    dice: tuple[int, ...] = ()
    roll: int = 0
    parts: tuple[Modifier, ...] = ()
    total: int = 0
    row_low: int | None = None
    row_high: int | None = None
    where: str = ""
    outcome: str = ""
    value: int = 0
    effects: dict[str, int] = {}
    unusual: str = ""
    exchange: int = 0


class ActionDeclared(Event, frozen=True, kw_only=True, tag="rolemaster-action-declared"):
    """``handle`` declares ``action`` (as text: ``attack Gruk with
    Broadsword``) at ``count`` on the countdown, costing ``ap`` Action
    Points; it resolves when they are spent, at ``resolves_at`` = count - 5
    x ap (RMH ``tactical-activity-tracking_.md`` "Resolution": "Actions are
    declared when they are started, and paid for (in AP) and resolved on
    the initiative when they are completed"; ruling ``resolution``).
    ``hold`` is a conditional action's trigger as the player gave it
    ("Conditional Actions": ready when it would resolve, resolved when the
    trigger occurs), or ""."""

    handle: str
    action: str
    ap: int
    count: int
    resolves_at: int
    hold: str = ""


class ActionReadied(Event, frozen=True, kw_only=True, tag="rolemaster-action-readied"):
    """A conditional (held) ``action`` of ``handle`` is ready at ``count``:
    its Action Points are spent, and it waits for its ``hold`` trigger
    (RMH "Conditional Actions")."""

    handle: str
    action: str
    count: int
    hold: str = ""


class ActionTriggered(Event, frozen=True, kw_only=True, tag="rolemaster-action-triggered"):
    """The trigger of ``handle``'s held ``action`` occurred (``hold`` as the
    player gave it): it resolves now, on ``count``, before the action it
    interrupts (RMH "Conditional Actions", second-by-second "Opportunity
    action")."""

    handle: str
    action: str
    count: int
    hold: str = ""


class ActionDropped(Event, frozen=True, kw_only=True, tag="rolemaster-action-dropped"):
    """A declared ``action`` of ``handle`` does not resolve: ``how`` is
    ``cancelled`` (the player cancelled it before it resolved, RMH
    "Canceling action") or ``lost`` (it could no longer be completed when
    its count came, or a held one was never triggered; RMH second-by-second
    "Opportunity action": "if the interrupted action becomes impossible to
    complete, it is lost"); ``reason`` says why, ``count`` is the count it
    happened on and ``spent`` the Action Points the time already used."""

    handle: str
    action: str
    how: str
    reason: str = ""
    count: int = 0
    spent: int = 0
