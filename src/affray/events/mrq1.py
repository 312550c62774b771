"""Events that belong to Mongoose RuneQuest 1 alone (seed 004).

Shared meanings (damage, wounds, conditions) use :mod:`affray.events.core`.
"""

from __future__ import annotations

from affray.events.core import Event


class ImpaleChosen(Event, frozen=True, kw_only=True, tag="mrq1-impale-chosen"):
    """After an impaling critical the attacker yanks the weapon or leaves it
    in (seed 004, "Impaling Close Combat Attacks"). ``choice``: yank|leave."""

    exchange: int
    attacker: str
    target: str
    weapon: str
    location: str
    choice: str


class GiveGroundChosen(Event, frozen=True, kw_only=True, tag="mrq1-give-ground-chosen"):
    """The attacker follows the defender who Gave Ground, or stays
    (seed 004, "Giving Ground"). ``follow`` true keeps them engaged."""

    exchange: int
    attacker: str
    defender: str
    follow: bool


class ActionTaken(Event, frozen=True, kw_only=True, tag="mrq1-action-taken"):
    """A combat action other than an attack, or a step of one (seed 004
    "Combat Actions": Aim, Cast Spell, Charge, Delay, Fighting Retreat,
    Sprint, Flurry, Move, Ready Weapon, Change Stance, Skill Use), and the
    free attacks, dives and precise attacks around them. ``action`` is the
    action's word (``aim``, ``move``, ``free-attack``...), ``spec`` the
    canonical action text (``move 8 to=broo1``), ``text`` the line a player
    reads. Its consequences arrive as shared events (moves, stances,
    conditions, weapons readied or dropped)."""

    handle: str
    action: str
    text: str
    spec: str = ""


class SpellCast(Event, frozen=True, kw_only=True, tag="mrq1-spell-cast"):
    """A spell's casting ends (seed 004 "Cast Spell"): ``success`` false when
    a free attack's damage and a failed Persistence test broke it. The spell
    is a named effect: the GM applies it (a note, an area effect...)."""

    handle: str
    spell: str
    actions: int
    success: bool = True
    reason: str = ""


class ItemDamaged(Event, frozen=True, kw_only=True, tag="mrq1-item-damaged"):
    """A Strike Weapon / Shield precise attack damages a held item (seed 004
    "Strike Weapon / Shield"): ``rolled`` damage less the item's ``ap``
    leaves it ``hp_left`` hit points; at 0 it is broken."""

    exchange: int
    handle: str
    item: str
    rolled: int
    ap: int
    hp_left: int


class AreaEffect(Event, frozen=True, kw_only=True, tag="mrq1-area-effect"):
    """The GM applies an area effect (a spell's, a fall of rocks...) of
    ``damage`` to ``targets``; each may Dive (seed 004 "Dive")."""

    name: str
    damage: str
    targets: tuple[str, ...]
