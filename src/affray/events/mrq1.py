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
