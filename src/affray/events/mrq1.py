"""Events that belong to Mongoose RuneQuest 1 alone (seed 004).

Shared meanings (damage, wounds, conditions) use :mod:`affray.events.core`.
"""

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


class GrappleManoeuvred(Event, frozen=True, kw_only=True, tag="mrq1-grapple-manoeuvred"):
    """A grappling combatant's special Combat Action against his partner
    (seed 004, "Grappling Combatants"): ``manoeuvre`` is break-free,
    immobilise, inflict-pain, throw or release; ``success`` whether it worked;
    ``outcome`` a one-line account."""

    handle: str
    partner: str
    manoeuvre: str
    success: bool
    outcome: str = ""


class HeroPointSpent(Event, frozen=True, kw_only=True, tag="mrq1-hero-point-spent"):
    """``handle`` spends one Hero Point (seed 004, "Hero Points"): ``option``
    is second-chance, glancing-blow or luck; ``left`` the points left after
    it. ``roll`` is the version of the superseded roll (Second Chance),
    ``location`` the wound downgraded (Glancing Blow), ``note`` the story
    change the GM approved (Luck of the Heroes)."""

    handle: str
    option: str
    left: int
    roll: int = 0
    location: str = ""
    note: str = ""


class RidingTested(Event, frozen=True, kw_only=True, tag="mrq1-riding-tested"):
    """The start-of-round Riding test for an untrained mount (seed 004,
    "Mounted Combat" > "Untrained Mounts"): on a failure the mount flees for
    the rest of the round."""

    handle: str
    mount: str
    success: bool
