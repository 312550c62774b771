"""Protective spells, as far as seed 002 states them ("CRITICAL HITS": "A
critical attack will normally ignore all armor, including that from
protective spells"; "GRAPPLING": grapple damage, "Armor has no effect.
Protective spells have half value").

The spells themselves are in the Magic Book, not in the seed: the GM says
what a spell in force gives, ``affray act WHO protect AP [SPELL]`` (``protect
0 SPELL`` when it ends). The armour points count on every location on top
of armour and skin, are ignored by a critical, count half against grapple
damage (ruling ``protective_spells``). Casting stays timing only
(:mod:`affray.rules.rq3.turns`); spirit combat is timing only.
"""

from __future__ import annotations

from affray.rules.base import Draft, RuleError
from affray.rules.rq3 import core


def protect(draft: Draft, handle: str, words: list[str]) -> None:
    """``protect AP [SPELL]``: the protective spell SPELL (default
    "Protection") gives ``handle`` AP armour points on every location until
    the GM says ``protect 0 SPELL``. Refused: AP not a whole number."""
    state = draft.state
    if state.phase in ("over", "closed"):
        raise RuleError("the fight is over")
    if not words or not words[0].isdigit():
        raise RuleError("say the armour points the spell gives: protect AP [SPELL] (e.g. protect 4 Protection; "
                        "protect 0 Protection when it ends)")
    ap = int(words[0])
    spell = " ".join(words[1:]).strip() or "Protection"
    c = state.combatants[handle]
    cid = f"protective-spell:{spell}"
    if ap == 0:
        if not any(x.id == cid for x in c.conditions):
            raise RuleError(f"{c.name} has no {spell} in force")
        core.expire(draft, handle, cid, f"{spell} ends")
        return
    core.condition(draft, handle, "protective-spell", ends="never", key=spell, effects={"spell-ap": ap},
                   note=f"{spell}: +{ap} AP on every location")
