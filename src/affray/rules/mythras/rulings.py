"""Named, configurable rulings for Mythras / Classic Fantasy Imperative.

Where seed 001 (``001_0613c1b7f6517492.txt``, CFI Chapter 8: Combat) and
rules-reference.md section B leave something open, the choice is a named
setting here, never a silent guess (DESIGN.md, "Rule systems"). Names are the
field names; kebab-case is accepted on input.
"""

from typing import Annotated, Literal

import msgspec

from affray.rules.base import parse_rulings

__all__ = ["DEFAULT_RULINGS", "RULINGS_DOC", "Rulings", "from_mapping"]


class Rulings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The mythras rulings in force for an encounter (every field defaulted)."""

    action_points: Literal["flat-2", "int-dex"] = "flat-2"
    """``flat-2``: every character has 2 AP plus the sheet's ``extra_ap``
    (seed 001 "Actions in Combat": "All beginning characters get 2 Action
    Points per Round"); ``int-dex``: the full-Mythras INT+DEX table (B18).
    Source: rules-reference.md B "NOT FOUND / our ruling (B)"."""

    major_wound_boundary: Literal["inclusive", "strict"] = "inclusive"
    """Major Wound at HP <= -(starting HP) (``inclusive``, Mythras) or only
    below it (``strict``). Source: rules-reference.md B15 and "Seed
    ambiguities", Major Wound boundary."""

    half_parry_rounding: Literal["down", "up"] = "down"
    """A parry with a weapon one Size smaller deflects half the damage; the
    damage that gets through is rounded ``down`` (defender's favour) or
    ``up``. Source: seed 001 "Damage Reduction" (no rounding given); ours."""

    opposed_both_fail: Literal["resister-fails", "resister-holds"] = "resister-fails"
    """In an opposed resistance roll (Endurance against Bleed, Stun Location
    or a wound; Brawn/Evade against Trip Opponent) where both sides fail:
    the resister counts as failing (``resister-fails``) or holds. B6 says
    "re-roll or let the GM narrate"; the engine needs one answer."""

    over_100_in_opposed: Literal["shared-penalty", "none"] = "shared-penalty"
    """Skills over 100 in a differential or opposed roll: the highest skill's
    excess over 100 is taken off everyone (B8), or ignored (``none``)."""

    grade_style: Literal["multiplier", "simplified"] = "multiplier"
    """Difficulty Grades multiply the skill, rounded up (``multiplier``,
    MI/MF) or add the simplified values (+40 ... -80). Source:
    rules-reference.md B4."""

    impale_pick: Literal["higher"] = "higher"
    """Impale rolls weapon damage twice and the attacker picks one (seed 001
    "Impale"); the engine records the higher. Named so it is on record."""


    knockback: Literal["on", "off"] = "on"
    """Knockback applies "by default" (seed 001 "Knockback"): a blow doing
    more damage than the recipient's SIZ throws it back; ``off`` for tables
    that leave it out."""

    yank_resisted: Literal["opposed", "unopposed"] = "opposed"
    """Yanking an impaled weapon free takes an unopposed Brawn roll "or an
    Opposed Brawn roll if the opponent resists" (seed 001 "Impale"): a
    victim able to fight resists (``opposed``) or never does."""

    counter_effects: Literal["no-blow"] = "no-blow"
    """What a triggered Prepare Counter substitutes (seed 001: "one of his
    own, which succeeds automatically"): one of Trip Opponent, Disarm
    Opponent, Blind Opponent, Withdraw, Arise, Slip Free, Scar Foe (the
    effects that need no blow of the counterer's own). Named so it is on
    record."""

    held_counter_cost: Literal["free", "ap"] = "free"
    """Holding magic "allows free use of the Counter Spell reaction by an
    enemy" (seed 001 "Hold Magic"): countering a held spell costs no Action
    Point (``free``) or the usual one (``ap``)."""

    interrupt_timing: Literal["turn-start"] = "turn-start"
    """An Interrupt halts an opponent's Turn "at any point" (seed 001); the
    engine takes it when that Turn begins, before its declaration. Named so
    it is on record."""

    heavy_armour_ap: Annotated[str, msgspec.Meta(pattern=r"^[0-9]{1,3}$")] = "4"
    """Worn armour of this many AP or more on a location counts as heavy (2
    'Things'), less as light (1 'Thing') for Climb, Jump and Swim (seed 001
    "Situational Movement Rates" names light and heavy armour but not which
    is which); our ruling."""

    default_height: Annotated[str, msgspec.Meta(pattern=r"^[0-9](\.[0-9]{1,2})?$")] = "1.8"
    """A character's height in metres for Jump when the sheet gives no
    ``height`` (seed 001 "Jump" measures a jump in heights); our ruling."""

    climb_things: Literal["recorded", "as-swim"] = "recorded"
    """Climb counts worn armour as 'Things' (seed 001 "Climb") but the seed
    gives no figure for how Things slow a climb: ``recorded`` notes the
    count and climbs the full rate; ``as-swim`` takes the Swim penalty (one
    unit per Thing over STR)."""

    swim_thing_unit: Literal["foot", "metre"] = "foot"
    """Swim: "-1 for each 'Thing' carried more than the character's STR"
    (seed 001 "Swim") in the chapter's unit, feet (0.3 m, ``foot``), or in
    metres as Mythras measures Movement (``metre``)."""

    jump_landing: Literal["upright", "prone"] = "upright"
    """A successful, not critical, Jump lands upright or prone (seed 001
    "Jump": only a critical says it "remains upright on landing")."""

    entangled_damage_weapon: Literal["entangling-weapon", "parrying-weapon"] = "entangling-weapon"
    """An entangled victim frees himself if he can "win a Special Effect and
    select Damage Weapon" (seed 001 "Entangle"), but "Damage Weapon" says
    an attacker strikes "the defender's Parrying weapon", and the wielder
    may parry with another weapon or not at all. ``entangling-weapon``: the
    victim's Damage Weapon against the wielder strikes the entangling
    weapon, attacking or parrying; ``parrying-weapon``: it strikes what
    "Damage Weapon" names (the parrying weapon, or the attacker's)."""

    unlisted_ride: Literal["dex-pow", "no-cap"] = "dex-pow"
    """A rider's Combat Style is capped by Ride (seed 001 "Close Combat
    Situational Modifiers": "fighting from the back of a horse would cap
    the combatant's Combat Skill by their Ride skill"); a sheet without a
    Ride skill caps at the Mythras standard base DEX+POW (``dex-pow``) or
    not at all (``no-cap``). The seed gives no base; our ruling."""

    mounted_charge_dm: Literal["better", "rider"] = "better"
    """"Riding characters may substitute their Damage Modifier for that of
    their mount instead" (seed 001 "Charging"): on a mounted charge the
    engine takes the better of the rider's (one step up) and the mount's
    (two steps up for a quadruped), ``better``, or always the rider's,
    ``rider``. The mount is the combatant named by ``act WHO
    mount:MOUNT``."""

    bleed_past_incapacitated: Literal["mythras-track", "stop"] = "mythras-track"
    """Bleed costs "one level of Fatigue, until they collapse and possibly
    die" (seed 001 "Bleed"), but rules-reference.md B19 lists the levels
    only to Incapacitated. ``mythras-track``: the Mythras track goes on,
    Semi-Conscious then Comatose (unconscious), then Dead, one level a
    round, and an unconscious bleeder keeps bleeding; ``stop``: the track
    ends at Incapacitated. Our ruling."""

    major_wound_prone: Literal["always", "legs", "never"] = "always"
    """A Major Wound incapacitates (B15); neither seed 001 nor B15 says
    whether the victim stays on its feet. ``always``: an incapacitated
    victim collapses prone; ``legs``: only a Major Wound to a leg fells it;
    ``never``. Our ruling."""

    awkward_landing_armour: Literal["ignored", "counts"] = "ignored"
    """A fumbled Jump's 1 or 1d4 points to a leg (seed 001 "Jump": the leg,
    right or left, by 1D2) are "sustained": armour is ignored or counts."""

    staunched_reopens: Literal["proactive", "reactions-too"] = "proactive"
    """A Bleed staunched by First Aid re-opens when "the recipient ...
    perform[s] any strenuous or violent action" (seed 001 "Bleed"), which
    the seed does not list. ``proactive``: an attack (a charge, the
    attack after a Move, a leap, a sweep) and the strenuous Turn actions
    (Hustle, Outmaneuver, Struggle, yanking a weapon, Trip, Climb, Jump,
    Swim); ``reactions-too``: also a Parry, an Evade or a counterattack.
    Our ruling."""

    luck_damage_roll: Literal["attacker", "target", "off"] = "attacker"
    """Who may spend a Luck Point to re-roll a damage roll (seed 001 "Use
    Luck Point": "to re-roll a particular result", not saying whose):
    ``attacker``, the roll being his own (as every other Luck re-roll);
    ``target``, the blow falling on him; ``off``. Our ruling."""


DEFAULT_RULINGS = Rulings()

SEED = "seed 001_0613c1b7f6517492.txt"
REF = "rules-reference.md"

#: name -> (default, text, source), as ``affray rulings`` shows them.
RULINGS_DOC: dict[str, tuple[str, str, str]] = {
    "action_points": ("flat-2", "2 AP plus the sheet's extra_ap (flat-2), or the INT+DEX table (int-dex)",
                      f"{SEED} 'Actions in Combat'; {REF} B18 and ruling (B)"),
    "major_wound_boundary": ("inclusive", "Major Wound at HP <= -start (inclusive) or < -start (strict)",
                             f"{REF} B15; Seed ambiguities"),
    "half_parry_rounding": ("down", "damage left after a half-deflecting parry rounds down or up",
                            f"{SEED} 'Damage Reduction' (silent); our ruling"),
    "opposed_both_fail": ("resister-fails", "both fail an opposed resistance roll: the resister fails or holds",
                          f"{REF} B6 (GM's call); our ruling"),
    "over_100_in_opposed": ("shared-penalty", "skills over 100: everyone subtracts the highest excess, or none",
                            f"{REF} B8"),
    "grade_style": ("multiplier", "Difficulty Grades multiply (rounded up) or add the simplified values",
                    f"{REF} B4"),
    "impale_pick": ("higher", "which of Impale's two damage rolls is kept", f"{SEED} 'Impale'"),
    "knockback": ("on", "Knockback when damage exceeds SIZ (on) or never (off)", f"{SEED} 'Knockback' ('by default')"),
    "yank_resisted": ("opposed", "yanking an impaled weapon: the victim resists with Brawn (opposed) or not",
                      f"{SEED} 'Impale'"),
    "counter_effects": ("no-blow", "a triggered Prepare Counter substitutes an effect that needs no blow",
                        f"{SEED} 'Prepare Counter' (silent on which); our ruling"),
    "held_counter_cost": ("free", "Counter Spell against held magic costs no AP (free) or 1 AP (ap)",
                          f"{SEED} 'Hold Magic' ('free use')"),
    "interrupt_timing": ("turn-start", "an Interrupt is taken as the opponent's Turn begins",
                         f"{SEED} 'Interrupt' ('at any point'); our ruling"),
    "heavy_armour_ap": ("4", "worn armour of this AP or more counts 2 Things (heavy), less 1 (light)",
                        f"{SEED} 'Climb', 'Jump', 'Swim' (light/heavy not defined); our ruling"),
    "default_height": ("1.8", "height in metres for Jump when the sheet has none", f"{SEED} 'Jump'; our ruling"),
    "climb_things": ("recorded", "Things slow a climb not at all (recorded) or as Swim (as-swim)",
                     f"{SEED} 'Climb' (no figure given); our ruling"),
    "swim_thing_unit": ("foot", "Swim loses 1 foot (0.3 m) or 1 metre per Thing over STR",
                        f"{SEED} 'Swim' (unit not given); our ruling"),
    "jump_landing": ("upright", "a plain successful Jump lands upright or prone", f"{SEED} 'Jump'; our ruling"),
    "entangled_damage_weapon": ("entangling-weapon",
                                "an entangled victim's Damage Weapon strikes the entangling weapon, or the parrying one",
                                f"{SEED} 'Entangle' vs 'Damage Weapon' (which weapon is left open); our ruling"),
    "unlisted_ride": ("dex-pow", "a rider with no Ride skill on the sheet is capped at DEX+POW, or not capped",
                      f"{SEED} 'Close Combat Situational Modifiers' (no base given); our ruling"),
    "mounted_charge_dm": ("better", "a mounted charge uses the better of the rider's and the mount's Damage Modifier, or the rider's",
                          f"{SEED} 'Charging' ('may substitute'); our ruling"),
    "bleed_past_incapacitated": ("mythras-track", "Bleed goes on past Incapacitated to Semi-Conscious, Comatose, Dead, or stops there",
                                 f"{SEED} 'Bleed' ('until they collapse and possibly die'); {REF} B19 stops at Incapacitated; our ruling"),
    "major_wound_prone": ("always", "a Major Wound leaves the victim prone always, only for a leg, or never",
                          f"{REF} B15 (silent on stance); our ruling"),
    "awkward_landing_armour": ("ignored", "a fumbled Jump's leg damage ignores armour or not",
                               f"{SEED} 'Jump' ('sustained'); our ruling"),
    "staunched_reopens": ("proactive", "a staunched Bleed re-opens on an attack or strenuous Turn action, or on a Parry, Evade or counterattack too",
                          f"{SEED} 'Bleed' ('any strenuous or violent action', not listed); our ruling"),
    "luck_damage_roll": ("attacker", "who may spend a Luck Point to re-roll a damage roll: the attacker, the target, or no one",
                         f"{SEED} 'Use Luck Point' (whose result is not said); our ruling"),
}


def from_mapping(mapping: dict[str, str] | None) -> Rulings:
    """Read rulings from ``EncounterOpened.rulings``; raise ``ValueError``
    (one line) naming the ruling and its allowed values
    (:func:`affray.rules.base.parse_rulings`)."""
    return parse_rulings(Rulings, "mythras", mapping)


def as_mapping(r: Rulings) -> dict[str, str]:
    """Every ruling with its value, as stored on the encounter."""
    return {k: str(getattr(r, k)) for k in r.__struct_fields__}
