"""Named, configurable rulings for RuneQuest III (house rules).

Where seed 002 (``002_321dc991624c8969.txt``) and rules-reference.md section
C leave something open, the choice is a named setting here, never a silent
guess (DESIGN.md, "Rule systems"). Names are the field names; kebab-case is
accepted on input. ``affray rulings --system rq3`` lists them.
"""

from typing import Literal

import msgspec

from affray.rules.base import parse_rulings

__all__ = ["RULINGS_DOC", "Rulings", "as_mapping", "from_mapping"]

SEED = "seed 002"
REF = "rules-reference.md C"


class Rulings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The rq3 rulings in force for an encounter (every field defaulted)."""

    missile_locations: Literal["melee-table", "missile-table"] = "melee-table"
    location_hp_above_21: Literal["plus-one-per-3"] = "plus-one-per-3"
    skills_over_100: Literal["fumble-00-only"] = "fumble-00-only"
    resistance_limits: Literal["5-95"] = "5-95"
    thresholds_from: Literal["modified-skill"] = "modified-skill"
    two_attacks_one_weapon: Literal["both-minus-10"] = "both-minus-10"
    impale_double: Literal["roll-twice"] = "roll-twice"
    knockback_damage: Literal["rolled-before-armour"] = "rolled-before-armour"
    overlapping_armour: Literal["any-under"] = "any-under"
    multi_arm: Literal["three-or-more"] = "three-or-more"
    movement_allowance: Literal["per-move-phase"] = "per-move-phase"
    sr_ties: Literal["higher-dex"] = "higher-dex"
    fumble_attack: Literal["miss-and-lose-action"] = "miss-and-lose-action"
    fumble_parry: Literal["parry-fails"] = "parry-fails"
    fumble_dodge: Literal["seed"] = "seed"
    fumble_maneuver: Literal["seed"] = "seed"
    parry_damage: Literal["weapon-ap"] = "weapon-ap"
    wounds: Literal["rq3-locations"] = "rq3-locations"
    knockback_engagement: Literal["kept"] = "kept"
    tied_initiative_die: Literal["1d10"] = "1d10"
    thrown_damage_modifier: Literal["half", "full"] = "half"
    knockback_collision: Literal["per-2m-rounded-up"] = "per-2m-rounded-up"
    terrain_test: Literal["better-of"] = "better-of"
    grapple_sr: Literal["weapon-sr-3"] = "weapon-sr-3"
    grapple_follow_ups: Literal["undefended"] = "undefended"
    grapple_arm: Literal["shield-left-weapon-right"] = "shield-left-weapon-right"
    disarm_target: Literal["first-ready"] = "first-ready"
    break_target: Literal["parrying-or-first-ready"] = "parrying-or-first-ready"
    swordbreaking_option: Literal["disarm"] = "disarm"
    parry_damages_weapon: Literal["excess-over-ap"] = "excess-over-ap"
    parry_source: Literal["opponent"] = "opponent"
    missile_beyond_range: Literal["refused", "half-to-double"] = "refused"
    moving_target: Literal["gm-penalty"] = "gm-penalty"
    entangle_two_hands: Literal["attacked-weapon", "attacking-weapon"] = "attacked-weapon"
    map_thirds: Literal["in-reach", "always"] = "in-reach"
    hex_rear_step: Literal["backwards"] = "backwards"
    third_move: Literal["of-declared-move"] = "of-declared-move"
    post_move_engagement: Literal["end-in-zone"] = "end-in-zone"
    jump_terrain: Literal["one-roll-same-results"] = "one-roll-same-results"
    throw_height: Literal["1d6-per-3m"] = "1d6-per-3m"
    protective_spells: Literal["gm-given-ap"] = "gm-given-ap"
    mounted_map: Literal["rider-moves-pair"] = "rider-moves-pair"
    throw_spell_ap: Literal["half", "none"] = "half"
    closed_long_weapon: Literal["no-attack", "recorded-only"] = "no-attack"
    large_limb_location: Literal["rolled-first", "aimed-only"] = "rolled-first"
    bash_weapon: Literal["seed", "any"] = "seed"
    perception_skills: Literal["listen-scan-search-track"] = "listen-scan-search-track"


RULINGS_DOC: dict[str, tuple[str, str, str]] = {
    "missile_locations": ("melee-table", "missile hits use the melee d20 table, or the unverified RQ3 missile table",
                          f"{REF} 'NOT FOUND' (missile table not found in open material)"),
    "location_hp_above_21": ("plus-one-per-3", "above 21 total HP each further 3 HP add 1 to every location; the chest keeps 2 over the legs",
                             f"{REF} 'NOT FOUND' (location HP above 21)"),
    "skills_over_100": ("fumble-00-only", "skills above 100 keep the C1 formulas and fumble on 00 only", f"{REF} 'NOT FOUND'"),
    "resistance_limits": ("5-95", "the resistance chance is clamped to 5-95; 96-00 fails", f"{REF}2 and 'NOT FOUND'"),
    "thresholds_from": ("modified-skill", "special and critical ranges are computed from the modified skill", f"{REF} 'NOT FOUND'"),
    "two_attacks_one_weapon": ("both-minus-10", "two attacks with one weapon: both blows take the -10%",
                               f"{SEED} 'Selecting two Melee Attack actions'; {REF} 'NOT FOUND'"),
    "impale_double": ("roll-twice", "an impaling special rolls the weapon dice twice (both recorded); the damage bonus once",
                      f"{SEED} 'Impale'; {REF} 'NOT FOUND'"),
    "knockback_damage": ("rolled-before-armour", "knockback compares the rolled damage, damage bonus included, before parry and armour, with SIZ",
                         f"{SEED} 'KNOCKBACK'; {REF} 'NOT FOUND'"),
    "overlapping_armour": ("any-under", "any piece worn under another adds half its AP, rounded up",
                           f"{SEED} 'POINTS FOR OVERLAPPING ARMOR'; {REF} 'NOT FOUND'"),
    "multi_arm": ("three-or-more", "'more than two arms' means three or more", f"{SEED} 'Parry'; {REF} 'NOT FOUND'"),
    "movement_allowance": ("per-move-phase", "the declared movement is allowed in each Move Phase",
                           f"{SEED} 'MOVE' (Mobility example); {REF} 'NOT FOUND'"),
    "sr_ties": ("higher-dex", "actions on the same SR go to the higher DEX, then the higher tie-break die",
                f"{SEED} 'MELEE PHASE' (no tie rule); our ruling"),
    "fumble_attack": ("miss-and-lose-action", "a fumbled attack misses; the fumble table is the GM's (recorded as a note)",
                      f"{SEED} (fumble tables not given); our ruling"),
    "fumble_parry": ("parry-fails", "a fumbled parry is a failed parry; the GM narrates the rest",
                     f"{SEED} (fumble tables not given); our ruling"),
    "fumble_dodge": ("seed", "a fumbled dodge improves the attack one degree", f"{SEED} 'MELEE DODGING'"),
    "fumble_maneuver": ("seed", "a fumbled Maneuver stops all movement and loses the free facing shift",
                        f"{SEED} 'MANEUVER SKILL'"),
    "parry_damage": ("weapon-ap", "a parry stops damage up to the parrying weapon's AP; the excess strikes the parrier",
                     f"{SEED} 'Standard Parry'"),
    "wounds": ("rq3-locations", "a limb at 0 HP is useless, at minus its HP severed (and takes no more); head, chest or "
               "abdomen at 0 HP: unconscious (abdomen: falls); total HP 0 or below: dead",
               f"{REF}7-8 (figures only); RQ3 wound rules, our ruling"),
    "knockback_engagement": ("kept", "knockback moves the target but leaves engagement as it was (no map)",
                             f"{SEED} 'KNOCKBACK'; DESIGN.md positions optional; our ruling"),
    "tied_initiative_die": ("1d10", "ties of INT (Statement of Intent) and DEX (movement) are broken by 1D10 each, highest first",
                            f"{SEED} 'Resolve ties by a die roll'; our ruling on the die"),
    "thrown_damage_modifier": ("half", "a thrown weapon adds half the thrower's damage modifier (rounded down), or all of it; "
                               "projected missiles none", "RQ3 missile rules (the seed is silent); our ruling"),
    "knockback_collision": ("per-2m-rounded-up", "knocked into something: 1D6 per two metres of knockback, rounded up "
                            "(1 m gives 1D6)", f"{SEED} 'KNOCKBACK INTO ... OBJECTS'; our ruling on odd metres"),
    "terrain_test": ("better-of", "a terrain test uses the better of Maneuver and DEX xN; a fumble's 1D6 falling damage "
                     "goes to a random location, armour counting; a fall ends the move",
                     f"{SEED} 'COMBAT MOVEMENT IN UNRELIABLE TERRAIN'; our ruling"),
    "grapple_sr": ("weapon-sr-3", "a grapple attack strikes as a weapon of SR 3 (DEX SR + SIZ SR + 3); the follow-ups at DEX SR",
                   f"{SEED} 'GRAPPLING' (the grab's SR not given); our ruling"),
    "grapple_follow_ups": ("undefended", "immobilise, throw and damage follow-ups are not parried or dodged; the grab is",
                           f"{SEED} 'GRAPPLING'; our ruling"),
    "grapple_arm": ("shield-left-weapon-right", "a special grapple against a parry catches the left arm behind a shield, "
                    "else the right arm", f"{SEED} 'GRAPPLING' ('the parrying weapon or shield arm'); our ruling"),
    "disarm_target": ("first-ready", "a Disarm aims at the defender's first ready weapon; the landing die is rolled with the "
                      "resistance roll", f"{SEED} 'Disarm'; our ruling"),
    "break_target": ("parrying-or-first-ready", "Break Weapon strikes the weapon that parries it, else the first ready one",
                     f"{SEED} 'Break Weapon'; our ruling"),
    "swordbreaking_option": ("disarm", "a @Swordbreaking parry disarms (STR vs STR, x1.5 for a 2H weapon) unless the "
                             "parry was declared parry:FOE:WEAPON:@swordbreaking:damage (the option is chosen in the "
                             "Statement of Intent)", f"{SEED} '@Swordbreaking', 'COMBAT OPTIONS'; our ruling on when it is chosen"),
    "parry_damages_weapon": ("excess-over-ap", "a bladed parry against a failed attack rolls the parrying weapon's damage; "
                             "what exceeds the attacking weapon's AP comes off it", f"{SEED} 'Standard Parry' (no amount given); our ruling"),
    "parry_source": ("opponent", "a Parry declared against a source covers every weapon of that opponent (a creature with "
                     "several sources declares several parries)", f"{SEED} '4. Parry' (a source is 'a single weapon used by a "
                     "single opponent'); our simplification"),
    "missile_beyond_range": ("refused", "a missile attack beyond the weapon's range is refused; half-to-double: up to "
                             "twice the range at half chance", f"{SEED} gives point blank (a tenth of the range) and "
                             "normal range only; our ruling"),
    "moving_target": ("gm-penalty", "the GM gives the moving-target penalty (--situation moving=N, percent); the "
                      "engine doubles it at point blank, not against a creature three times the shooter's SIZ",
                      f"{SEED} 'PARRYING AND DODGING MISSILE WEAPONS', 'DODGING BY LARGE CREATURES' (no base penalties given)"),
    "entangle_two_hands": ("attacked-weapon", "an entangled weapon held in two hands gives its wielder STR x1.5 against "
                           "the pull (as Disarm and @Swordbreaking); attacking-weapon: the seed's words, x1.5 when the "
                           "entangling weapon is held in two hands", f"{SEED} '@Entangle' ('if the attacking weapon was "
                           "held in both hands'); our ruling"),
    "map_thirds": ("in-reach", "on the hex map the Move Phase goes in three alternating thirds in movement initiative "
                   "order once two foes 'could conceivably reach each other': their distance, less the engagement "
                   "range of the longer weapon either declared (at least 1 m), is within the metres both have left; "
                   "then to the end of the phase (move done ends one's move early); before that each makes its whole "
                   "move in turn. always: every Move Phase in thirds",
                   f"{SEED} 'MOVEMENT INITIATIVE'; our ruling on 'conceivably reach'"),
    "hex_rear_step": ("backwards", "a step into one of the three rear hexes (behind or to the rear sides) is backwards "
                      "movement: 2 m, facing kept; a step to a front side hex shifts the facing one side for free",
                      f"{SEED} 'MOVE' (hex map, backwards at half speed); our ruling on the rear sides"),
    "third_move": ("of-declared-move", "a third of the declared movement (rate x moves), rounded down, at least 1 m, "
                   "for one who begins the Move Phase engaged, reloads or concentrates; Mobility is added after",
                   f"{SEED} 'MOVE' ('1/3 ... (1 to 3 meters for humans)'); our ruling on rounding"),
    "post_move_engagement": ("end-in-zone", "in the Post Melee Move no move is stopped or contested; a figure that ends "
                             "its move in a foe's engagement zone (or the foe in its) is engaged for the next round, "
                             "and one that ends beyond its fighting distance is no longer engaged",
                             f"{SEED} '4) POST MELEE MOVE PHASE'; our ruling"),
    "jump_terrain": ("one-roll-same-results", "over=jump|acrobatics: one Jump or Acrobatics roll clears a narrow "
                     "feature of any tested terrain (bodies too), with the terrain table's fumble, failure, special and "
                     "critical results", f"{SEED} 'Jump or Acrobatics skill can be used ...'; our ruling on the results"),
    "throw_height": ("1d6-per-3m", "a grapple throw from a height (--situation height=METRES) adds 1D6 for every full 3 m "
                     "of the drop, halved with the rest by DEX x1, Acrobatics/2 or Breakfall",
                     f"{SEED} 'GRAPPLING' ('more if the fall is from a greater height', no amount given); our ruling"),
    "protective_spells": ("gm-given-ap", "the GM gives a protective spell's AP (act WHO protect AP SPELL): it adds on every "
                          "location, a critical ignores it, grapple damage meets half of it, a throw "
                          "counts it as ruling throw_spell_ap says", f"{SEED} 'CRITICAL HITS', 'GRAPPLING' (the spells are in the Magic Book); our ruling"),
    "closed_long_weapon": ("no-attack", "a foe closed inside a long weapon (2 m or more: won a contest of Maneuver "
                           "from 1 m into the wielder's hex; within 1 m of a 3 m weapon always) cannot be attacked with "
                           "that weapon; the wielder still parries and dodges, other weapons strike normally; "
                           "recorded-only: the closing is recorded and its effect is the GM's",
                           f"{SEED} 'MANEUVER SKILL' ('the normal effect for closing against a long weapon', not given); "
                           "our ruling"),
    "large_limb_location": ("rolled-first", "an unaimed melee hit on a creature of three times the attacker's SIZ "
                            "that attacks it with a limb this round rolls the hit location before the reaction; on "
                            "that limb the creature cannot dodge, and the damage uses that location; aimed-only: only "
                            "an Aimed Shot or @Aimed Blow at the limb is 'directed at' it",
                            f"{SEED} 'DODGING BY LARGE CREATURES' ('an attack directed at the attacking arm or leg'); "
                            "our ruling"),
    "bash_weapon": ("seed", "a Bash adds the weapon's rolled damage only from a weapon with a slash or crush mode and "
                    "of SR 2 or less ('generally ineffective' read as none from SR 3); any: every weapon adds it",
                    f"{SEED} 'Bash'; our ruling on 'generally ineffective'"),
    "perception_skills": ("listen-scan-search-track", "the perception skills rolled at half in combat (full after a "
                          "Miscellaneous Action to look around, resolved this round) are Listen, Scan, Search and Track",
                          f"{SEED} '9. Miscellaneous Action' ('most perception skills, such as Scan, Listen, etc.'); "
                          "our ruling on the list"),
    "throw_spell_ap": ("half", "a grapple throw's damage meets the location's armour and the protective spells' AP "
                       "together at half (rounded down); none: the worn armour at half only",
                       f"{SEED} 'GRAPPLING' ('armor protecting, at best, at half value'; 'CRITICAL HITS' counts "
                       "protective spells as armor); our ruling"),
    "mounted_map": ("rider-moves-pair", "on the hex map a rider and its mount share a hex; the rider moves the pair at "
                    "the mount's movement rate times the rider's declared moves, the mount going along; a mount "
                    "carrying a rider does not walk on its own", f"{SEED} 'Lance charge', 'MOVE' (silent on mounted "
                    "movement); our ruling"),
}


def from_mapping(mapping: dict[str, str] | None) -> Rulings:
    """Read rulings from ``EncounterOpened.rulings``; raise ``ValueError``
    (one line) naming the ruling and its allowed values
    (:func:`affray.rules.base.parse_rulings`)."""
    return parse_rulings(Rulings, "rq3", mapping)


def as_mapping(r: Rulings) -> dict[str, str]:
    """Every ruling with its value, as stored on the encounter."""
    return {k: str(getattr(r, k)) for k in r.__struct_fields__}
