"""The uesrpg catalogue of conditions, each with its source (seed 003 /
rules-reference.md D). Conditions are applied and ended only by events.

Effect keys read by the rules: ``penalty`` (percent on every test),
``initiative`` (added to the initiative rank), ``attack-bonus`` (percent on
the bearer's next melee attack on ``from:HANDLE``), ``attack-penalty``
(percent on the bearer's next attack), ``no-opportunity`` (may not make
attacks of opportunity), ``stunned`` (no turn, no defence), ``unaware``
(cannot defend), ``damaged`` (AR lost on the location), ``rounds-left``
(an untreated wound's countdown), ``from:HANDLE`` (who caused it).
"""

from __future__ import annotations

from affray.events.core import Condition, ConditionEnd

CATALOGUE: dict[str, str] = {
    "wounded": "-20 on all tests and -2 initiative after a wound (rules-reference.md D12)",
    "untreated-wound": "an untreated wound: HP fall to 0 after 5 rounds (rules-reference.md D12)",
    "crippled-body": "a body wound whose Shock Test failed (rules-reference.md D12)",
    "crippled-limb": "a limb wound: the limb is crippled (rules-reference.md D12)",
    "lost-limb": "a limb wound whose Shock Test failed: the limb is lost (rules-reference.md D12)",
    "stunned": "a head wound: stunned for 1 round, no turn and no defence (rules-reference.md D12)",
    "pressing": "Press Advantage: +10 on the next melee attack against that opponent within 1 round (rules-reference.md D8)",
    "overextended": "Overextend: the next attack within 1 round is at -10 (rules-reference.md D8)",
    "overwhelmed": "Overwhelm: cannot make attacks of opportunity until the winner's next Turn (rules-reference.md D8)",
    "damaged-armour": "Forceful Impact: Damaged(1), the location's armour or shield loses 1 AR (rules-reference.md D8)",
    "moving": "moved out of engagement: its Turn waits while the foes it left take or decline their attacks of opportunity (seed 003 'Evade'; rules-reference.md D8 Overwhelm)",
    "unaware": "not aware of attacks (surprised in round 1): cannot defend, an automatic failure (seed 003 Step 2)",
}


def from_of(cond: Condition) -> str:
    """The handle a condition points at (an effect key ``from:HANDLE``), or ""."""
    for k in cond.effects:
        if k.startswith("from:"):
            return k[5:]
    return ""


def make(name: str, *, cause: int, round: int, step: int, ends: str, count: int = 0,
         effects: dict[str, int] | None = None, location: str = "", note: str = "", key: str = "") -> Condition:
    """A catalogue condition; ``id`` is the name (plus ``:location``, plus
    ``:key`` when one bearer can have several). ``KeyError`` for a name not
    in :data:`CATALOGUE`."""
    if name not in CATALOGUE:
        raise KeyError(name)
    return Condition(
        id=name + (f":{location}" if location else "") + (f":{key}" if key else ""),
        name=name,
        cause=cause,
        since_round=round,
        since_step=step,
        ends=ConditionEnd(kind=ends, count=count),
        effects=effects or {},
        location=location,
        note=note,
    )
