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

from affray.rules.base import condition_from, condition_maker

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
    "lucky-numbers": "a PC's Lucky and Unlucky Numbers drawn at the start of the fight (rules-reference.md D4; ruling lucky_numbers = draw)",
    "attacking-several": "one attack against several defenders: the defenders after the first wait, their tests "
                         "already rolled, for their Step 4 in the order they were named (seed 003 Step 4, several defenders)",
    "unaware": "not aware of attacks (surprised in round 1): cannot defend, an automatic failure (seed 003 Step 2)",
}


#: ``make(name, *, cause, round, step, ends, ...)``: a catalogue condition
#: (:func:`affray.rules.base.condition_maker`); ``from_of(cond)``: the handle
#: it points at (an effect key ``from:HANDLE``).
make = condition_maker(CATALOGUE)
from_of = condition_from
