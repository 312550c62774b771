"""Events that belong to RuneQuest III (house rules) alone (seed 002).

Shared meanings (damage, wounds, conditions, stance, engagement, moves) use
:mod:`affray.events.core`; the projection ignores these and they are facts
for the log, exports and narration.
"""

from affray.events.core import Event


class IntentDeclared(Event, frozen=True, kw_only=True, tag="rq3-intent-declared"):
    """``handle`` states its intent for ``round`` (seed 002 "STATEMENT OF
    INTENT"): ``moves`` 3 (triple move, no melee actions), 2 (double move,
    one action, +3 SR) or 1 (single move, two actions); ``actions`` the
    declared melee actions as text (``attack troll with Broadsword
    (slash) at SR 5``); ``brace`` braced against knockback."""

    handle: str
    round: int
    moves: int
    actions: tuple[str, ...] = ()
    brace: bool = False


class ActionAborted(Event, frozen=True, kw_only=True, tag="rq3-action-aborted"):
    """``handle`` aborts declared action ``slot`` (seed 002 "ALTERING
    STATEMENT OF INTENT"): ``abort`` is ``plain`` (just dropped),
    ``defensive`` (a Dodge or Parry at -20% instead, ``replacement``) or
    ``movement`` (one more movement category in the Post Melee Move)."""

    handle: str
    slot: int
    abort: str
    replacement: str = ""


class ManeuverContested(Event, frozen=True, kw_only=True, tag="rq3-maneuver-contested"):
    """A contest of Maneuver skill between ``mover`` and ``against`` (seed
    002 "MANEUVER SKILL"): ``purpose`` (pass, close, disengage, open);
    ``levels`` the two levels of success; ``winner`` a handle or "" (same
    level: nothing changes)."""

    mover: str
    against: str
    purpose: str
    mover_level: str
    against_level: str
    winner: str = ""


class ActionResolved(Event, frozen=True, kw_only=True, tag="rq3-action-resolved"):
    """A timed melee action other than an attack reached its strike rank
    (seed 002 "MELEE PHASE"): ``kind`` (draw, cast, misc, spirit-attack,
    spirit-defend) at ``sr``, with ``detail`` (the weapon drawn, the spell
    and its magic points). Spell and spirit combat effects are the GM's."""

    handle: str
    kind: str
    sr: int
    detail: str = ""


class SpecialApplied(Event, frozen=True, kw_only=True, tag="rq3-special-applied"):
    """A special or critical result's effect on ``exchange`` (seed 002
    "MELEE AND MISSILE ATTACKS", "SPECIAL TACTICS", "CRITICAL HITS"):
    ``effect`` (slash, crush, impale, critical, feint, glancing...) and
    ``detail`` what it did."""

    exchange: int
    by: str
    effect: str
    detail: str = ""
