"""Events that belong to Mythras / Classic Fantasy Imperative alone (seed 001).

Shared meanings (damage, wounds, conditions, stance) use :mod:`affray.events.core`.
"""

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


class MagicResolved(Event, frozen=True, kw_only=True, tag="mythras-magic-resolved"):
    """A released spell's outcome (seed 001 "Cast Magic", "Hold Magic",
    "Counter Spell"): ``outcome`` is "takes effect", "fails" or "countered
    by NAME"; ``effect`` the spell's named effect (the GM tells it: the
    engine does not resolve spell effects); ``target`` a handle or ""."""

    caster: str
    spell: str
    outcome: str
    target: str = ""
    effect: str = ""
