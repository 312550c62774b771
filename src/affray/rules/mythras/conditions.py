"""The mythras catalogue of conditions, each with its source (seed 001 /
rules-reference.md B). Conditions are applied and ended only by events.

Effect keys read by the rules: ``cannot-attack`` (turns left),
``helpless`` (cannot act or defend), ``holding`` (holds its AP for
reactions: no more turns this round), ``bleeding`` (one Fatigue level per
round, recorded only), ``no-defence`` (may not parry or evade: a Failure),
``bonus-effect`` (the next successful attack on the bearer gains a Special
Effect).
"""

from __future__ import annotations

from affray.events.core import Condition, ConditionEnd

CATALOGUE: dict[str, str] = {
    "surprised": "round 1: no defence until its own turn, no offensive action this round, the first successful attack on it gains a bonus Special Effect (seed 001 'Surprise')",
    "holding": "holds remaining Action Points for reactions; takes no more turns this round (seed 001 'Delay')",
    "cannot-attack": "may not attack for 1d3 turns after a Serious Wound (rules-reference.md B15)",
    "useless-limb": "the limb cannot be used after a failed Endurance roll (B15, Serious Wound)",
    "incapacitated": "Major Wound: out of the fight (B15)",
    "unconscious": "failed Endurance roll after a wound (B15)",
    "fatigue": "a Fatigue level: skill grade, Initiative and AP penalties; Incapacitated at the sixth (rules-reference.md B19)",
    "bleeding": "loses one level of Fatigue at the start of each round (seed 001 'Bleed')",
    "stunned-location": "the location is Incapacitated for turns equal to the damage (seed 001 'Stun Location')",
    "impaled": "a weapon is left in the wound: Difficulty Grade on skills (seed 001 'Impale', Impale Effects Table)",
}


def make(name: str, *, cause: int, round: int, step: int, ends: str, count: int = 0,
         effects: dict[str, int] | None = None, location: str = "", note: str = "") -> Condition:
    """A catalogue condition; ``id`` is the name (plus ``:location``)."""
    if name not in CATALOGUE:
        raise KeyError(name)
    return Condition(
        id=name + (f":{location}" if location else ""),
        name=name,
        cause=cause,
        since_round=round,
        since_step=step,
        ends=ConditionEnd(kind=ends, count=count),
        effects=effects or {},
        location=location,
        note=note,
    )
