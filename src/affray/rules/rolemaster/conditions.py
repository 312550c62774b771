"""The rolemaster catalogue of conditions (seed 000 "Effects from
Criticals", "Surprised / Confused Effect"; rules-reference.md A12).

Conditions are applied and ended only by events. Effect keys read by the
rules: ``penalty`` (a maneuver penalty, already reduced by 3 x SD bonus),
``cannot-attack``, ``cannot-parry``, ``half-parry`` (parry with at most
half OB), ``stun-rank`` (3 stunned and unable to parry, 2 stunned, 1
dazed: the wear-off order), ``late`` (received after 2+ AP spent in round
``late``: no wear-off that round), ``parry`` (OB moved to parry this
round), ``from:HANDLE`` (the foe a parry is against, or who caused it),
``bleed`` (hits per round), ``initiative-d10`` (a d10 off the next
Initiative), ``no-actions`` (can perform no further actions this round),
``no-qu-db`` (loses the Quickness part of DB), ``helpless``, ``at:HANDLE``
(attacked that foe this round: melee engagement), ``quick-ap`` (AP short
of a full attack: -25 each). A ``declared`` action keeps ``ap``, ``count``
(declared at), ``resolve`` (the count it resolves on), ``ready`` (a held
one whose AP are spent), ``hold``, ``committed`` (its parry was used, so
it cannot be cancelled) and what to resolve: ``step:KIND``, ``target:H``,
``weapon:NAME``, ``sit:KEY=VALUE``, ``mod:N:REASON`` (value) or
``args:WORDS``.
"""

from __future__ import annotations

from affray.events.core import Condition, ConditionEnd

CATALOGUE: dict[str, str] = {
    "stunned-no-parry": "Stunned and unable to parry: -50 (+3x SD bonus), cannot attack or parry; cumulative, wears off first (seed 000 'Stunned')",
    "stunned": "Stunned: -50 (+3x SD bonus), cannot attack, parries with at most half OB; cumulative (seed 000 'Stunned')",
    "dazed": "Dazed: -25 (+3x SD bonus) to all maneuvers, cannot attack; cumulative, wears off last (seed 000 'Stunned')",
    "staggered": "Staggered (also when knocked prone or back): -25 (+3x SD bonus), cannot attack; at most one round however many (seed 000 'Staggered or Prone', 'Knocked Back')",
    "parrying": "OB moved to parry for the round: the parrier's attacks lose it, one attack against it loses it (seed 000 'Parry action'; rules-reference.md A6)",
    "parry-used": "the round's parry has held against one attack (seed 000 'Parry action': 'any one attack')",
    "dodging": "a dodge's numeric result added to DB against the attack (seed 000 'Dodge action')",
    "bleeding": "loses hits each round at the end of the round (a critical's 'hits per round'; RMH upkeep)",
    "lost-initiative": "'You have initiative': -1d10 to the next Initiative roll (seed 000 'Effects from Criticals')",
    "wounded": "a lasting maneuver penalty from a critical",
    "round-lost": "a critical's lost round falls on the next round: its actions are lost when it starts (seed 000: \"'next round' = next turn (this round or the next)\")",
    "no-actions": "Surprised / Confused, Failure: can perform no further actions this round (seed 000)",
    "unaware": "does not know it is in combat: loses the Quickness part of DB (rules-reference.md A5)",
    "unconscious": "out of the fight (hits gone, or a critical)",
    "dying": "hits past the death threshold: the soul departs in five minutes (60 rounds) unless healed above it (RMH 'Death'; ruling death_delay)",
    "covered": "behind cover against the attack being resolved: its DB bonus (RMH ob-db-modifiers 'COVER')",
    "unloaded": "a missile weapon shot and not yet reloaded: reload-left Action Points owed (RMH 'Ammo reload', 'Round to Round Actions')",
    "charging": "charged into melee this round: the charge's hits multiple and critical steps on that attack, -10 DB with ruling charge_bonus (RMH 'Charging')",
    "footing": "standing in bad terrain: an OB modifier and the Quickness part of DB halved or lost (RMH ob-db-modifiers 'Terrain Condition')",
    "declared": "an action declared on the countdown, resolving when its Action Points are spent; a held one waits for its trigger (RMH tactical-activity-tracking 'Resolution', 'Conditional Actions')",
    "attacked": "attacked someone this round (melee engagement, seed 000 'Melee'; no parry after attacking, ruling parry_after_attack)",
}

#: Stun states, worst first: the order in which rounds wear off (seed 000).
STUN_ORDER = ("stunned-no-parry", "stunned", "dazed")
#: Base maneuver penalty of each state before the SD reduction (seed 000 table).
BASE_PENALTY = {"stunned-no-parry": -50, "stunned": -50, "dazed": -25, "staggered": -25}


def from_of(cond: Condition) -> str:
    """The handle a condition points at (an effect key ``from:HANDLE``), or ""."""
    for k in cond.effects:
        if k.startswith("from:"):
            return k[5:]
    return ""


def make(name: str, *, cause: int, round: int, step: int, ends: str, count: int = 0,
         effects: dict[str, int] | None = None, note: str = "", stacks: bool = False) -> Condition:
    """A catalogue condition; its ``id`` is its name (one of each per bearer)."""
    if name not in CATALOGUE:
        raise KeyError(name)
    return Condition(id=name, name=name, cause=cause, since_round=round, since_step=step,
                     ends=ConditionEnd(kind=ends, count=count), stacks=stacks, effects=effects or {}, note=note)
