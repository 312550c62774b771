"""Cast Spell and Skill Use in mrq1: the actions the GM rules on.

Source: seed 004 "Combat Actions" (Cast Spell, Skill Use), "Free Attacks";
rules-reference E3 (difficulty grades). The spell or skill's effect is not
modelled: the GM applies it.

Steps: ``act:cast`` (then ``free-attacks:offer`` and ``finish:cast``) and
``act:skill`` (a successful First Aid then ``wounds:first-aid``).
"""

from __future__ import annotations

from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.rules.base import Draft, RuleError, find_combatant
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
    first_aid_locations,
    limb_check,
    note,
    progress,
    relies_on_mobility,
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


#: The options ``act WHO skill`` takes; First Aid takes ``target=`` and
#: ``location=`` as well (seed 004 "Serious Wound", "Major Wound").
SKILL_OPTIONS = ("diff", "hands")
FIRST_AID_OPTIONS = ("target", "location")


def skill_use(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Skill Use": a skill test as a Combat Action (``diff=`` a
    difficulty grade, rules-reference E3; ``mod=`` a reasoned modifier). The
    GM applies what it does, except First Aid: ``skill "First Aid"
    target=WHO [location=LOC]`` treats a wound, and a success queues the step
    ``wounds:first-aid``. Raises :class:`RuleError` (one line) for an
    unknown ``key=value`` or ``sit=`` (it would change nothing), and for
    First Aid without a patient or a wound it treats."""
    c = require_turn(draft.state, who)
    name = " ".join(spec.args)
    if not name:
        raise RuleError(f"which skill? {USAGE['skill']}")
    first_aid = name.lower() == "first aid"
    allowed = SKILL_OPTIONS + (FIRST_AID_OPTIONS if first_aid else ())
    unknown = [k for k in spec.opts if k not in allowed]
    if unknown or spec.sits:
        what = f"{unknown[0]}={spec.opts[unknown[0]]}" if unknown else f"sit={spec.sits[0]}"
        raise RuleError(f"skill does not take {what}; {USAGE['skill']}")
    sheet = sheet_of(c)
    base = next((v for k, v in sheet.skills.items() if k.lower() == name.lower()), None)
    if base is None:
        w = next((w for w in sheet.weapons if w.name.lower() == name.lower()), None)
        if w is None:
            raise RuleError(f"{c.name} has no skill {name!r} (skills: {', '.join(sheet.skills) or 'none'})")
        name, base = w.name, w.skill
    else:
        name = next(k for k in sheet.skills if k.lower() == name.lower())
    patient, location = first_aid_patient(draft.state, c, spec) if first_aid else ("", "")
    hands = spec.number("hands", 1) or 1
    if hands > 2:
        raise RuleError(f"skill: hands takes 1 or 2, not {hands}")
    mods = condition_modifiers(c, mobility=relies_on_mobility(c, name)) + limb_check(c, name, two_hands=hands == 2) + list(spec.mods)
    grade = spec.get("diff")
    if grade:
        if grade not in tables.DIFFICULTY:
            raise RuleError(f"unknown difficulty {grade!r}; use one of {', '.join(tables.DIFFICULTY)}")
        if tables.DIFFICULTY[grade]:
            mods.append(ev.Modifier(tables.DIFFICULTY[grade], grade))
    begin(draft, who, spec, reason=f"skill: {name}")
    tested = test(draft, c, name, base, mods, f"First Aid on {draft.state.combatants[patient].name}'s {location}" if first_aid else "skill use")
    ok = tested.result in ("success", "critical")
    if first_aid:
        p = draft.state.combatants[patient]
        note(draft, who, "skill", f"{c.name}'s First Aid on {p.name}'s {location}: {tested.result}", spec)
        if ok:
            draft.then("wounds:first-aid", healer=who, patient=patient, location=location)
    else:
        note(draft, who, "skill", f"{c.name} uses {name}: {tested.result}; the GM applies the outcome", spec)
    done(draft)


def first_aid_patient(state, c, spec: Spec) -> tuple[str, str]:
    """(patient handle, location) of a First Aid: ``target=`` (any
    combatant, the healer himself included) and ``location=``; without
    ``location=``, the one location with a wound First Aid treats. Raises
    :class:`RuleError` when there is none, or several and none is named."""
    if not spec.get("target"):
        raise RuleError(f"First Aid on whom? {USAGE['skill']} target=WHO [location=LOC]")
    patient = find_combatant(state, spec.get("target"))
    p = state.combatants[patient]
    treatable = first_aid_locations(p)
    wanted = spec.get("location").replace("-", " ").strip().lower()
    if wanted:
        if not any(loc.name == wanted for loc in p.locations):
            raise RuleError(f"{p.name} has no location {wanted!r} ({', '.join(l.name for l in p.locations)})")
        if wanted not in treatable:
            raise RuleError(f"{p.name}'s {wanted} has no wound First Aid treats (treatable: {', '.join(treatable) or 'none'})")
        return patient, wanted
    if not treatable:
        raise RuleError(f"{p.name} has no Serious or Major Wound or impaling weapon that First Aid treats")
    if len(treatable) > 1:
        raise RuleError(f"{p.name} has wounds to treat at {', '.join(treatable)}; name one with location=LOC")
    return patient, treatable[0]
