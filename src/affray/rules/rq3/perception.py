"""Perception in combat (seed 002 "9. Miscellaneous Action": "most
perception skills, such as Scan, Listen, etc. are at half skill while in
combat. Taking a miscellaneous action to look around would allow the use of
Scan, Listen, etc. at full skill").

``affray act WHO perceive SKILL`` rolls a perception skill from the sheet
while a round runs: at half skill, or at full skill once WHO's declared
Miscellaneous Action to look around (``misc:look``, or one naming the skill,
``misc:listen``) has resolved at its SR this round. Ruling
``perception_skills``: which skills count (Listen, Scan, Search, Track).
Refused in one line: no round running, a skill that is not a perception
skill, one not on the sheet.
"""

from __future__ import annotations

from affray.rules.base import Draft, RuleError
from affray.rules.rq3 import core

#: The perception skills (ruling ``perception_skills``: the seed names
#: "Scan, Listen, etc.").
PERCEPTION = ("Listen", "Scan", "Search", "Track")


def looked(c, skill: str) -> bool:
    """Whether ``c``'s Miscellaneous Action to look around (its text naming
    "look" or ``skill``) has resolved this round."""
    for d in core.declared(c):
        text = d.weapon.lower()
        if d.kind == "misc" and d.used and not d.abort and ("look" in text or skill.lower() in text):
            return True
    return False


def perceive(draft: Draft, handle: str, words: list[str]) -> None:
    """``perceive SKILL``: the perception roll, half or full (see the module
    docstring)."""
    state = draft.state
    if state.phase in ("setup", "over", "closed"):
        raise RuleError("perception at half skill is for a running fight; outside it the GM rolls the skill as usual")
    if not words:
        raise RuleError(f"name the skill: perceive {'|'.join(PERCEPTION)}")
    name = next((p for p in PERCEPTION if p.lower() == words[0].lower()), "")
    if not name:
        raise RuleError(f"{words[0]!r} is not a perception skill ({', '.join(PERCEPTION)}; ruling perception_skills)")
    c = state.combatants[handle]
    sheet = core.sheet_of(c)
    if name not in sheet.skills:
        raise RuleError(f"{c.name}'s sheet has no {name}; add it under [skills]")
    full = looked(c, name)
    why = "looked around (a Miscellaneous Action): full skill" if full else "in combat: half skill"
    core.test(draft, handle, name, sheet.skills[name], purpose=f"{name}: {c.name}, {why}",
              factor=(1, 1) if full else (1, 2))
