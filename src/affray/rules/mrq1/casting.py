"""Cast Spell and Skill Use in mrq1: the actions the GM rules on.

Source: seed 004 "Combat Actions" (Cast Spell, Skill Use), "Free Attacks";
rules-reference E3 (difficulty grades). The spell or skill's effect is not
modelled: the GM applies it.

Steps: ``act:cast`` (then ``free-attacks:offer`` and ``finish:cast``) and
``act:skill``.
"""

from __future__ import annotations

from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.rules.base import Draft, RuleError
from affray.rules.mrq1 import tables
from affray.rules.mrq1.core import (
    USAGE,
    Spec,
    adjacent_enemies,
    apply,
    begin,
    condition_modifiers,
    done,
    expire,
    note,
    progress,
    require_turn,
    sheet_of,
    test,
)


# --------------------------------------------------------------------------- #
# Cast Spell
# --------------------------------------------------------------------------- #


def cast(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Cast Spell": a spell takes ``actions=N`` Combat Actions
    (default 1). Each casting action draws free attacks from adjacent
    enemies; damage from one calls for a Persistence test or the spell
    fails. When the last action is spent the spell is cast: it is a named
    effect the GM applies."""
    c = require_turn(draft.state, who)
    old = next((x for x in c.conditions if x.name == "casting"), None)
    name = " ".join(spec.args)
    if old is None:
        if not name:
            raise RuleError(f"cast what? {USAGE['cast']}")
        needed = spec.number("actions", 1) or 1
        spec = Spec("cast", [name], {"actions": str(needed)})
    else:
        if name and name.lower() != old.note.lower():
            raise RuleError(f"{c.name} is casting {old.note}; 'cast' goes on with it (another action abandons it)")
        spec = Spec("cast", [old.note], {"actions": str(old.effects.get("needed", 1))})
    begin(draft, who, spec, keep="casting", reason=f"cast {spec.args[0]}")
    draft.then("free-attacks:offer", who=who, spec=spec, enemies=adjacent_enemies(draft.state, who), trigger="casting a spell")


def finish_cast(draft: Draft, who: str, spec: Spec, damaged: bool, passed) -> None:
    """The step ``finish:cast``: the casting action, once its free attacks
    are over; the spell fails on their damage and a failed Persistence test."""
    c = draft.state.combatants[who]
    spell = spec.args[0]
    old, spent, needed = progress(c, "casting", spec)
    if damaged and passed is False:
        expire(draft, who, old, "the spell fails")
        draft.emit(ev_mrq1.SpellCast(handle=who, spell=spell, actions=spent, success=False,
                                     reason="a free attack's damage and a failed Persistence test"))
        done(draft)
        return
    if spent >= needed:
        expire(draft, who, old, "the spell is cast")
        draft.emit(ev_mrq1.SpellCast(handle=who, spell=spell, actions=needed))
    else:
        apply(draft, who, "casting", ends="event", effects={"progress": spent, "needed": needed}, note=spell)
        note(draft, who, "cast", f"{c.name} casts {spell}: {spent} of {needed} Combat Actions", spec)
    done(draft)


# --------------------------------------------------------------------------- #
# Skill Use
# --------------------------------------------------------------------------- #


def skill_use(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Skill Use": a skill test as a Combat Action (``diff=`` a
    difficulty grade, rules-reference E3; ``mod=`` a reasoned modifier). The
    GM applies what it does."""
    c = require_turn(draft.state, who)
    name = " ".join(spec.args)
    if not name:
        raise RuleError(f"which skill? {USAGE['skill']}")
    sheet = sheet_of(c)
    base = next((v for k, v in sheet.skills.items() if k.lower() == name.lower()), None)
    if base is None:
        w = next((w for w in sheet.weapons if w.name.lower() == name.lower()), None)
        if w is None:
            raise RuleError(f"{c.name} has no skill {name!r} (skills: {', '.join(sheet.skills) or 'none'})")
        name, base = w.name, w.skill
    else:
        name = next(k for k in sheet.skills if k.lower() == name.lower())
    mods = condition_modifiers(c, mobility=True) + list(spec.mods)
    grade = spec.get("diff")
    if grade:
        if grade not in tables.DIFFICULTY:
            raise RuleError(f"unknown difficulty {grade!r}; use one of {', '.join(tables.DIFFICULTY)}")
        if tables.DIFFICULTY[grade]:
            mods.append(ev.Modifier(tables.DIFFICULTY[grade], grade))
    begin(draft, who, spec, reason=f"skill: {name}")
    tested = test(draft, c, name, base, mods, "skill use")
    note(draft, who, "skill", f"{c.name} uses {name}: {tested.result}; the GM applies the outcome", spec)
    done(draft)
