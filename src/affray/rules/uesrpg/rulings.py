"""Named, configurable rulings for UESRPG 3e.

Where seed 003 (``003_9f2af80e743acd07.txt``) and rules-reference.md
section D leave something open, the choice is a named setting here, never a
silent guess (DESIGN.md, "Rule systems"). Names are the field names;
kebab-case is accepted on input. ``affray rulings --system uesrpg`` lists
them from :data:`RULINGS_DOC`.
"""

from typing import Literal

import msgspec

from affray.rules.base import rulings_codec

__all__ = ["DEFAULT_RULINGS", "RULINGS_DOC", "Rulings", "as_mapping", "from_mapping"]


class Rulings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The uesrpg rulings in force for an encounter (every field defaulted;
    each is explained in :data:`RULINGS_DOC`)."""

    parry_evade_tie: Literal["defence-holds", "attack-hits"] = "defence-holds"
    roll_100_over_tn: Literal["failure", "dos"] = "failure"
    critical_vs_block: Literal["block-holds", "critical-hits"] = "block-holds"
    hit_location: Literal["ones-digit", "d10"] = "ones-digit"
    melee_characteristic: Literal["higher", "strength", "agility"] = "higher"
    partial_armour: Literal["half", "full"] = "half"
    targe_rounding: Literal["up", "down"] = "up"
    wound_penalty_stacks: Literal["no", "yes"] = "no"
    forceful_impact: Literal["this-blow", "next-blow"] = "this-blow"
    ap_costs: Literal["one-each"] = "one-each"
    advantage_count: Literal["total"] = "total"
    lucky_numbers: Literal["sheet", "draw"] = "sheet"
    lucky_above_tn: Literal["critical"] = "critical"
    ranged_critical: Literal["no-advantage"] = "no-advantage"
    defence_vs_ranged: Literal["evade-block"] = "evade-block"
    outside_style: Literal["style-tn"] = "style-tn"
    shock_test: Literal["plain-endurance"] = "plain-endurance"
    head_wound: Literal["stunned"] = "stunned"
    evade_move: Literal["optional"] = "optional"
    attacks_per_turn: Literal["one"] = "one"
    initiative: Literal["once"] = "once"
    zero_hp: Literal["unconscious"] = "unconscious"
    special_advantage: Literal["recorded"] = "recorded"
    several_defenders: Literal["most-dos", "first-declared"] = "most-dos"
    evade_move_engagement: Literal["stays", "ends"] = "stays"
    crippled_limbs: Literal["recorded", "unusable"] = "recorded"


DEFAULT_RULINGS = Rulings()

SEED = "seed 003_9f2af80e743acd07.txt"
REF = "rules-reference.md"

#: name -> (default, text, source), as ``affray rulings`` shows them.
RULINGS_DOC: dict[str, tuple[str, str, str]] = {
    "parry_evade_tie": ("defence-holds", "both pass a Parry or Evade with equal DoS: the defence holds (or the attack hits)",
                        f"{SEED} Step 3 ('more degrees of success'); {REF} D ruling"),
    "roll_100_over_tn": ("failure", "a 100 on a TN above 100 is a failure unless it is a Lucky Number (or counts its DoS)",
                         f"{REF} D ruling"),
    "critical_vs_block": ("block-holds", "a critical against a Block: the block still holds and the critical's Advantage "
                          "is gained (or the critical hits as more DoS)", f"{SEED} Step 3 vs 'Critical Success'; {REF} D ruling"),
    "hit_location": ("ones-digit", "hit location from the ones digit of the roll that resolves the hit (or a fresh d10)",
                     f"{SEED} Step 4; {REF} D9 and ruling (a Counter-Attack uses the winner's own roll)"),
    "melee_characteristic": ("higher", "a melee Combat Style test uses the higher of STR and AGI (or always one of them)",
                             f"{SEED} Step 1 ('either Strength or Agility'); our ruling"),
    "partial_armour": ("half", "partial armour protects with half its AR, rounded down (or fully); Penetrate Armor "
                       "makes full count as partial and partial as none", f"{REF} D8 (no figure for partial); our ruling"),
    "targe_rounding": ("up", "a targe's halved BR rounds up (or down)", f"{REF} D13 (no rounding given); our ruling"),
    "wound_penalty_stacks": ("no", "the wound penalty (-20 on tests, -2 initiative) counts once (or once per wound)",
                             f"{REF} D12 (silent); our ruling"),
    "forceful_impact": ("this-blow", "Forceful Impact's Damaged(1) (-1 AR) applies to this blow's damage (or only later ones)",
                        f"{SEED} Step 4 (Advantages before damage); {REF} D8; our ruling"),
    "ap_costs": ("one-each", "1 AP for an attack, a spell or a defence; declining to defend costs nothing",
                 f"{REF} D ruling (the seed gives no costs)"),
    "advantage_count": ("total", "Advantage counts are totals: a critical against a failure gives two, not three",
                        f"{SEED} 'Critical Success/Failure'; {REF} D ruling"),
    "lucky_numbers": ("sheet", "a PC's Lucky and Unlucky Numbers are those written on the sheet, recorded in its join "
                      "event; or (draw) a PC without them draws them at 'start', 5 d100 after the initiative dice, a "
                      "repeated number moving up to the next free one, recorded as a 'lucky-numbers' condition (an NPC "
                      "without them: 1-3 and 98-100)", f"{REF} D4; our ruling"),
    "lucky_above_tn": ("critical", "a Lucky Number above the TN is a success and a critical", f"{REF} D4 and ruling"),
    "ranged_critical": ("no-advantage", "a ranged or spell critical counts as more DoS but gains no Advantage",
                        f"{SEED} Step 4 ('cannot gain or utilize advantage'); {REF} D ruling"),
    "defence_vs_ranged": ("evade-block", "a ranged attack or spell may be evaded or blocked, not parried or counter-attacked",
                          f"{REF} D7 ('Parry ... melee only'); our ruling for Counter-Attack"),
    "outside_style": ("style-tn", "the -20 for a weapon outside the Combat Style comes off the style's TN",
                      f"{SEED} Step 1; {REF} D ruling"),
    "shock_test": ("plain-endurance", "the Shock Test is an Endurance test with no modifier; the wound's -20 starts after it",
                   f"{REF} D12 and ruling"),
    "head_wound": ("stunned", "a head wound stuns for 1 round instead of crippling; a failed Shock Test adds nothing more",
                   f"{REF} D12 ('stunned 1 round instead'); our ruling"),
    "evade_move": ("optional", "Evade's free 1 m move is offered as a choice (move or stay)", f"{SEED} 'Evade'; {REF} D ruling"),
    "attacks_per_turn": ("one", "a Turn holds one attack (1 AP); the other AP are kept for defences",
                         "the seed gives no turn economy; our ruling"),
    "initiative": ("once", "initiative (1d6 + rating) is rolled once; each wound's -2 re-orders later rounds",
                   f"{REF} D11, D12; our ruling"),
    "zero_hp": ("unconscious", "at 0 HP or less a combatant is out of the fight (unconscious)", f"{REF} D12; our ruling"),
    "special_advantage": ("recorded", "a Special Advantage names the Special Action; the engine records it and the GM "
                          "applies it", f"{REF} D8 (Special Actions are not in the seed)"),
    "evade_move_engagement": ("stays", "Evade's free 1 m move leaves the evader engaged with the attacker (or ends that "
                              "engagement; either way it provokes no attack of opportunity)",
                              f"{SEED} Step 4 'Evade' (silent on engagement); our ruling"),
    "crippled_limbs": ("recorded", "a crippled or lost limb is recorded for the GM (or, unusable: the weapon arm, the "
                       "one that is not the shield arm, wields no weapon: no weapon attack, Parry, Counter-Attack or "
                       "attack of opportunity; the shield arm cannot Block; a leg gives no move and no free Evade move)",
                       f"{REF} D12 ('crippled limb', 'lost limb': no further effect given); our ruling"),
    "several_defenders": ("most-dos", "an attack against several defenders (an item with targets > 1): only one "
                          "defender gains the defensive Advantage, the winning defender with the most DoS (a critical "
                          "counting as more; ties to the first declared), or (first-declared) the first winner in the "
                          "order the defences were declared", f"{SEED} Step 4 Block ('only one defender gains a "
                          "defensive advantage'); our ruling for which one"),
}


#: ``from_mapping(mapping)`` reads ``EncounterOpened.rulings`` (a one-line
#: ``ValueError`` for an unknown ruling or value); ``as_mapping(rulings)``
#: gives every ruling with its value.
from_mapping, as_mapping = rulings_codec(Rulings, "uesrpg")
