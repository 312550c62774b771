"""The mythras catalogue of conditions, each with its source (seed 001 /
rules-reference.md B). Conditions are applied and ended only by events.

Effect keys read by the rules: ``cannot-attack`` (turns left),
``helpless`` (cannot act or defend), ``holding`` (holds its AP for
reactions: no more turns this round), ``bleeding`` (one Fatigue level per
round, recorded only), ``no-defence`` (may not parry or evade: a Failure),
``bonus-effect`` (the next successful attack on the bearer gains a Special
Effect), ``grade`` (a Difficulty Grade index on every roll), ``harder``
(that many grades harder), ``from:HANDLE`` (who caused it: the gripper,
the impaling wielder...), ``weapon`` (an index into a sheet's weapons),
``secret`` (left out of exports: Prepare Counter).
"""

from __future__ import annotations

from affray.events.core import Condition
from affray.rules.base import condition_from, condition_maker

CATALOGUE: dict[str, str] = {
    "surprised": "round 1: no defence until its own turn, no offensive action this round, the first successful attack on it gains a bonus Special Effect (seed 001 'Surprise')",
    "holding": "holds remaining Action Points for reactions; takes no more turns this round (seed 001 'Delay')",
    "cannot-attack": "may not attack for 1d3 turns after a Serious Wound (rules-reference.md B15)",
    "useless-limb": "the limb cannot be used after a failed Endurance roll (B15, Serious Wound)",
    "incapacitated": "Major Wound: out of the fight (B15)",
    "unconscious": "failed Endurance roll after a wound (B15)",
    "fatigue": "a Fatigue level: skill grade, Initiative and AP penalties; Incapacitated at the sixth (rules-reference.md B19)",
    "bleeding": "loses one level of Fatigue at the start of each round (seed 001 'Bleed')",
    "staunched": "a Bleed staunched by First Aid: a strenuous or violent action re-opens it (seed 001 'Bleed')",
    "stunned-location": "the location is Incapacitated for turns equal to the damage (seed 001 'Stun Location')",
    "impaled": "a weapon is left in the wound: Difficulty Grade on skills (seed 001 'Impale', Impale Effects Table)",
    "blinded": "a situational modifier of Hard or Formidable for 1d3 Turns (seed 001 'Blind Opponent')",
    "entangled": "a location immobilised: an arm cannot use what it holds, a leg cannot move, head or body makes every roll one grade harder (seed 001 'Entangle')",
    "gripped": "held by an opponent: cannot disengage from them (seed 001 'Grip')",
    "pinned": "knocked prone by a Leaping Attack with the leaper astride: cannot regain footing (seed 001 'Leaping Attacks')",
    "prepared-counter": "a secret counter against one Special Effect of one foe (seed 001 'Prepare Counter'); hidden from exports",
    "weapon-damaged": "a weapon lost Hit Points; at 0 it breaks (seed 001 'Damage Weapon')",
    "sundered": "a location's armour lost Armor Points (seed 001 'Sunder')",
    "braced": "SIZ counts 50% bigger against Knockback and Leaping Attacks, doubled against Bash, until its next turn (seed 001 'Brace')",
    "outmaneuvered": "cannot attack the maneuvering character for the rest of the round (seed 001 'Outmaneuvering')",
    "unloaded": "a missile weapon needs Turns of reloading before it can shoot (seed 001 'Load', 'Ready', 'Rapid Reload')",
    "aiming": "steadying a Ranged weapon: after a whole Combat Round the shot's difficulty is one grade easier (seed 001 'Aiming')",
    "warding": "a weapon passively blocks locations, as a parry of its Size (seed 001 'Ward Location', 'Passive Blocking')",
    "in-cover": "obscured locations are protected by the cover's Armor Points (seed 001 'Take Cover', 'Cover')",
    "running": "ran (Hustle): Hard to hit with Ranged weapons until its next turn (seed 001 'Hustle')",
    "sprinting": "sprinted (Hustle): Formidable to hit with Ranged weapons until its next turn (seed 001 'Hustle')",
    "hustled": "has taken the Hustle Action this round; it may not Hustle again until the next (seed 001 'Move')",
    "casting": "casting a spell over several Turns (seed 001 'Cast Magic')",
    "spell-ready": "a cast spell waiting to be released, until the caster's next Turn, or held with Hold Magic (seed 001 'Cast Magic', 'Hold Magic')",
    "luck-spent": "Luck Points spent this session (seed 001 'Use Luck Point')",
    "interrupting": "takes a delayed turn inside another's turn, which then resumes (seed 001 'Interrupt')",
    "deferred-attack": "an attack rolled and waiting for its own exchange: a counterattack against a charge, the next target of a sweep (seed 001 'Charging', 'Sweep Attacks')",
    "free-attack": "moved into contact: may attack without spending another Action Point (seed 001 'Move')",
    "mounted": "on a riding beast or vehicle (seed 001 'Mount')",
    "dropped": "a weapon lies on the ground: picking it up takes 2 Actions (seed 001 'Ready')",
    "terrain": "what the GM declares next to the character: water to swim, a surface to climb (seed 001 'Climb', 'Swim')",
    "drowning": "swimming burdened to a rate of 0 or less: begins drowning; Asphyxiation is not modelled (seed 001 'Swim')",
}


def from_of(cond: Condition) -> str:
    """The handle a condition points at (an effect key ``from:HANDLE``), or ""."""
    return condition_from(cond)


#: ``make(name, *, cause, round, step, ends, count=0, effects=None,
#: location="", note="", key="")``: a condition of :data:`CATALOGUE` in the
#: shared shape, its ``id`` the name plus ``:location`` plus ``:key``;
#: ``KeyError`` for a name not in the catalogue (a bug, not bad input).
#: Built by :func:`affray.rules.base.condition_maker`.
make = condition_maker(CATALOGUE)
