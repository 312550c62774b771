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
