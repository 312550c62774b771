"""The rq3 catalogue of conditions, each with its source (seed 002 /
rules-reference.md C). Conditions are applied and ended only by events.

The Statement of Intent lives here too, as round-long conditions: an
``intent`` per combatant (effects ``moves`` 1-3, ``aborted`` once an abort
was used, ``post-moves`` after a Movement Abort, ``brace``) and a
``declared`` per melee action (effects ``slot``, ``sr``, ``used``,
``penalty``, ``abort``; the note is ``kind|target|weapon|mode``).

Effect keys read by the rules: ``helpless`` (cannot act or defend),
``useless`` (a location that cannot be used), ``metres`` (a ``reach``: the
fighting distance to the handle in the id), ``bonus`` (percent to attacks
and defences: terrain used to advantage), ``ap-lost`` (a damaged weapon),
``held``/``immobilised`` (grappling).
"""

from __future__ import annotations

from affray.rules.base import condition_maker

CATALOGUE: dict[str, str] = {
    "intent": "the Statement of Intent for this round: type (moves), aborts used (seed 002 'STATEMENT OF INTENT')",
    "declared": "a melee action declared in the Statement of Intent: its SR, whether used or aborted (seed 002)",
    "moved": "has taken its Move Phase this round (seed 002 'MOVE PHASE')",
    "move-waiting": "delays its move until those with a lower DEX have moved (seed 002 'MOVEMENT INITIATIVE')",
    "reach": "fighting distance in metres to an engaged foe (seed 002 'RULES OF ENGAGEMENT')",
    "closed": "has closed inside the long weapon of the handle in the id, into its hex (seed 002 'MANEUVER SKILL')",
    "blow-location": "the hit location of the exchange in the id, rolled before this large creature's reaction (seed 002 'DODGING BY LARGE CREATURES'; ruling 'large_limb_location')",
    "initiative-over": "won a contest of Maneuver: movement initiative over the handle in the id this round (seed 002 'MOVE')",
    "no-facing-shift": "fumbled Maneuver: stops, no free facing shift this phase (seed 002 'MANEUVER SKILL')",
    "terrain-advantage": "used the terrain to advantage: bonus to attacks and defences this round (seed 002 terrain, special/critical)",
    "fallen-this-round": "fell this round: cannot stand until the next Move Phase (seed 002 'FALLEN CHARACTERS')",
    "useless-limb": "a limb at 0 HP or less cannot be used (RQ3 wounds; ruling 'wounds')",
    "severed": "a limb took twice its HP: severed or maimed, takes no more damage (RQ3 wounds; ruling 'wounds')",
    "unconscious": "head, chest or abdomen at 0 HP or less (RQ3 wounds; ruling 'wounds')",
    "braced": "braced against knockback: cannot dodge or move in the Post Melee Move (seed 002 'BRACING AGAINST KNOCKBACK')",
    "weapon-damaged": "a weapon lost armour points; at 0 AP... it breaks (seed 002 'Standard Parry', 'Break Weapon')",
    "grappled": "a location held in a grapple (seed 002 'GRAPPLING')",
    "grappling": "holds a location of a foe (seed 002 'GRAPPLING')",
    "immobilised": "immobilised in a grapple: helpless until freed (seed 002 'GRAPPLING')",
    "weapon-immobilised": "a weapon or shield held immobilised in a grapple: it cannot attack or parry (seed 002 'GRAPPLING')",
    "protective-spell": "a protective spell in force: AP on every location, ignored by a critical, half against grapple damage (seed 002 'CRITICAL HITS', 'GRAPPLING')",
    "knocked-aside": "knocked back by the handle in the id this round: it may pass through this figure's hex in the Post Melee Move (seed 002 'MOVE')",
    "entangled": "a location or weapon entangled by a flexible weapon (seed 002 '@Entangle')",
    "feinted": "a feint lowers this defender's parry and dodge against the feinter (seed 002 '@Feint')",
    "free-attack": "a riposte or counter: a free attack at the next SR (seed 002 '@Riposte', '@Counter')",
    "high-ground": "stands half again higher than its foe: 1D10+10 locations, +10% (seed 002 'HIGH GROUND')",
    "lance-charge": "an all-out lance charge this round: the mount's damage bonus, the lance before shorter weapons (seed 002 'Lance charge')",
    "mounted": "on a mount: high ground against footmen, 2H hacking weapons at 3/4 (seed 002 'MOUNTED')",
    "position": "where the figure stands on the 1 m hex map and which hex side it faces (seed 002 'MOVE'; DESIGN.md positions)",
    "map-move": "this round's movement on the hex map: thirds taken, metres used and allowed (seed 002 'MOVEMENT INITIATIVE', 'MOVE')",
    "spell-carried": "a spell longer than 10 SR carried over to the next round (seed 002 'Cast Spell')",
}


#: ``make(name, *, cause, round, step, ends, count=0, effects=None,
#: location="", note="", key="")``: a condition of :data:`CATALOGUE` in the
#: shared shape, its ``id`` the name plus ``:location`` plus ``:key``;
#: ``KeyError`` for a name not in the catalogue (a bug, not bad input).
#: Built by :func:`affray.rules.base.condition_maker`.
make = condition_maker(CATALOGUE)
CATALOGUE["defended"] = ("parries and dodges made this round against one source: the cumulative -10% "
                         "(seed 002 'Parry', 'Dodge')")
