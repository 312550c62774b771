"""Events that belong to Mythras / Classic Fantasy Imperative alone (seed 001).

Shared meanings (damage, wounds, conditions, stance) use :mod:`affray.events.core`.
"""

from __future__ import annotations

from affray.events.core import Event


class SpecialEffectChosen(Event, frozen=True, kw_only=True, tag="mythras-special-effect-chosen"):
    """The winner of a differential roll picks a Special Effect before damage
    is rolled (seed 001 "Special Effects"). ``effect`` is the key of the
    Special Effects Table row; ``by`` the winner (attacker or defender
    handle), ``against`` the loser; ``detail`` e.g. the chosen location."""

    exchange: int
    by: str
    against: str
    effect: str
    detail: str = ""
