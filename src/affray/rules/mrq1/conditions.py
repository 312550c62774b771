"""The mrq1 catalogue of conditions, each with its source (seed 004).

A condition is applied and ended only by explicit events
(``ConditionApplied`` / ``ConditionExpired``) so a rewind restores it exactly.
Effect keys read by the rules:

- ``penalty``: added to every skill test (percent, negative);
- ``reaction-bonus``: added to Dodge and parry tests (percent);
- ``next-reaction``: added to the next reaction only (percent);
- ``lost-actions``: combat actions still to be lost;
- ``no-reactions``: the bearer may not react;
- ``helpless``: attacks against the bearer are automatic critical hits;
- ``cannot-attack``; ``useless-limb``; ``retest``: a Resilience test is due
  at each round's end; ``death-test``: a Resilience test or die;
  ``bleeding``: rounds left before death unless the location recovers;
  ``grappling``: locked in a grapple (no Reactions, grapple actions only);
  ``hero-points-spent``: Hero Points used; ``fleeing``: the mount flees.
"""

from __future__ import annotations

from affray.events.core import Condition, ConditionEnd

CATALOGUE: dict[str, str] = {
    "surprised": "−10 Strike Rank; reactions only after own first action; attackers +20% (seed 004, Gaining Surprise)",
    "defending": "+20% to Dodge and parry tests until the bearer's next combat action (seed 004, Defend)",
    "overextended": "−20% to the next reaction; recovers on the next combat action (seed 004, Overextended)",
    "lost-actions": "loses the next N combat actions (seed 004, Minor/Serious Wound)",
    "useless-limb": "the limb is useless until restored to 1 HP or First Aid (seed 004, Serious Wound)",
    "severed-limb": "the limb is severed or mangled (seed 004, Major Wound)",
    "resilience-retest": "Resilience test at each round's end or fall unconscious (seed 004, Serious/Major Wound)",
    "death-test": "Resilience test at each round's end or die (seed 004, Major Wound to abdomen, chest or head)",
    "bleeding-out": "dies when the count reaches 0 unless the location recovers (seed 004, Major Wound)",
    "impaled": "−20% to all skill tests, cumulative (seed 004, Impaled Enemies)",
    "aiming": "+10% per Combat Action aiming (at most +30%) to the first ranged attack at the target; lost by any other action or reaction (seed 004, Aim)",
    "casting": "a spell in progress: Combat Actions spent out of those it needs (seed 004, Cast Spell)",
    "readying": "a Ready Weapon that takes several Combat Actions, in progress (seed 004, Ready Weapon)",
    "unloaded": "the ranged weapon must be reloaded with Ready Weapon before it shoots again (seed 004, Loading Ranged Weapons)",
    "acting": "an action waits for the free attacks it drew (seed 004, Free Attacks)",
    "flurry": "blows of a Flurry still to strike, each at -20% (seed 004, Flurry)",
    "delaying": "waits to act after, or to interrupt, another character (seed 004, Delay)",
    "delayed": "acts after the character it waited for, for the rest of the round (seed 004, Delay)",
    "two-weapon": "the off-hand item was used this round: an extra parry or a bonus attack (seed 004, Two Weapon Use)",
    "item-damaged": "a held weapon or shield has lost hit points (seed 004, Strike Weapon / Shield)",
    "unconscious": "helpless: cannot act or react; attacks are automatic critical hits (seed 004, situational modifiers)",
    "grappling": "locked with a grapple partner: no Reactions, only grapple actions, −20% to other tests (seed 004, Grappling Combatants)",
    "immobilised": "helpless while the grapple lasts: attacks are automatic critical hits (seed 004, Grappling > Immobilise)",
    "hero-points-spent": "Hero Points spent so far this encounter (seed 004, Hero Points)",
    "mounted": "rides a mount: its Movement, Riding caps weapon skills, +20% against footmen (seed 004, Mounted Combat)",
    "ridden": "carries a rider (seed 004, Mounted Combat)",
    "mount-fleeing": "the untrained mount flees for the rest of the round (seed 004, Mounted Combat > Untrained Mounts)",
}


def make(
    name: str,
    *,
    cause: int,
    round: int,
    step: int,
    ends: str,
    count: int = 0,
    effects: dict[str, int] | None = None,
    location: str = "",
    note: str = "",
    stacks: bool = False,
    suffix: str = "",
) -> Condition:
    """A catalogue condition. ``id`` is ``name`` (plus ``suffix`` for stacks
    or per-location conditions) and is unique on its bearer."""
    if name not in CATALOGUE:
        raise KeyError(name)
    cid = name + (f":{suffix}" if suffix else (f":{location}" if location else ""))
    return Condition(
        id=cid,
        name=name,
        cause=cause,
        since_round=round,
        since_step=step,
        ends=ConditionEnd(kind=ends, count=count),
        stacks=stacks,
        effects=effects or {},
        location=location,
        note=note,
    )
