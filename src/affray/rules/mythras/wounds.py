"""Wounds in mythras: what damage that gets through armour does to a
location and to the body, and damage from outside a blow.

Source: rules-reference.md B14-B15 (location Hit Points; Minor, Serious
and Major Wounds, the opposed Endurance roll; ruling
``major_wound_boundary``); seed 001 Special Effect Descriptions "Bleed",
"Stun Location", "Impale" (with the Impale Effects Table), "Force
Failure", "Accidental Injury"; "Jump" (an awkward landing); rules-reference
B6 (opposed rolls).

Steps (kinds as in :mod:`affray.rules.mythras.system`):

- ``wounds:inflict`` (after :func:`affray.rules.mythras.damage.apply_damage`):
  Bleed and Stun Location (an Endurance roll each, or Force Failure),
  Impale, the attacker's Entangle (``effects:entangle``), then
  ``wounds:wound``: the wound itself, then :func:`~.core.go_on` (the
  pending rolls, or the end of the exchange).
- ``wounds:hurt``: damage from elsewhere (Accidental Injury, a yanked
  weapon, a fumbled Jump), then the caller's own continuation step.
- ``roll:wound``: the opposed Endurance roll; failed, the effect takes
  hold.
"""

from __future__ import annotations

from affray.events import core as ev
from affray.projections.state import State
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.d100 import is_success
from affray.rules.mythras import conditions as cat
from affray.rules.mythras import tables
from affray.rules.mythras.core import (
    TORSO,
    done,
    find_weapon,
    go_on,
    grade_modifiers,
    luck_left,
    resister_fails,
    rulings_of,
    sheet_of,
    spend,
    spend_luck,
    sundered_ap,
    test,
)


def inflict(draft: Draft, handle: str, location: str, final: int, chosen, entangle: bool, steps,
            summary: str) -> None:
    """After the blow's ``DamageDealt`` (step ``wounds:inflict``): with
    ``final`` damage through, Bleed and Stun Location ask an opposed
    Endurance roll each (Force Failure: they take hold at once) and Impale
    leaves the weapon in the wound; the attacker's Entangle
    (``effects:entangle``, when ``entangle``); then the wound
    (``wounds:wound``), with ``steps`` still to await (seed 001 Special
    Effect Descriptions)."""
    state = draft.state
    x = state.exchange
    a, t = state.combatants[x.attacker], state.combatants[handle]
    follow = list(steps)
    if final > 0:
        base = {"roll": x.roll, "skill": x.skill, "location": location, "damage": final}
        for key, reason in (("bleed", "bleed"), ("stun-location", "stun")):
            if key not in chosen:
                continue
            if "force-failure" in chosen:  # seed 001 "Force Failure": the resistance roll fails by default
                draft.emit(ev.NoteAdded(text=f"Force Failure: {t.name} fails the Endurance roll ({reason})"))
                _take_hold(draft, t.handle, reason, location, final)
            else:
                follow.append(_endurance(draft.state, t.handle, reason, base))
        if "impale" in chosen:
            _impale(draft, a, t, find_weapon(a, x.weapon, ready_only=False), location)
    if entangle:
        draft.then("effects:entangle", wielder=a.handle, victim=t.handle,
                   weapon=find_weapon(a, x.weapon, ready_only=False).name, location=location)
    draft.then("wounds:wound", handle=handle, location=location, final=final, steps=tuple(follow), summary=summary)


def wound_step(draft: Draft, handle: str, location: str, final: int, steps, summary: str) -> None:
    """After the blow's damage (step ``wounds:wound``): the wound its
    ``final`` damage brings to ``location`` (:func:`_wound`), then the
    pending ``steps`` and the wound's Endurance roll, or the end of the
    exchange (:func:`~.core.go_on`)."""
    x = draft.state.exchange
    follow = list(steps)
    if final > 0:
        base = {"roll": x.roll, "skill": x.skill, "location": location, "damage": final}
        follow.extend(_wound(draft, handle, location, base))
    go_on(draft, tuple(follow), summary)


def _impale(draft: Draft, a, t, weapon, location: str) -> None:
    """Impale: the weapon stays in the wound (Impale Effects Table by the
    victim's SIZ and the weapon's Size, or a missile's Impale Size); a
    melee wielder may yank it free later (seed 001 "Impale")."""
    state = draft.state
    sheet = sheet_of(t)
    size = weapon.impale_size or weapon.size
    grade = tables.impale_grade(sheet.characteristics.SIZ, size)
    if grade == "incapacitated":
        effects = {"helpless": 1}
    elif grade in tables.GRADES:
        effects = {"grade": tables.GRADE_ORDER.index(grade)}
    else:
        effects = {}
    if weapon.kind != "ranged":
        effects[f"from:{a.handle}"] = 1
        effects["weapon"] = [w.name for w in sheet_of(a).weapons].index(weapon.name)
    draft.emit(ev.ConditionApplied(handle=t.handle, condition=cat.make(
        "impaled", cause=draft.next_version, round=state.round, step=draft.state.step, ends="event",
        location=location, effects=effects, note=f"impaled by {a.name}'s {weapon.name}: {grade} (Impale Effects Table)")))


def hurt(draft: Draft, handle: str, location: str, amount: int, *, ignore_armour: bool, base: dict,
         note: str, exchange: int | None = None, then: str, **then_args) -> None:
    """Damage outside the attack's blow (step ``wounds:hurt``: Accidental
    Injury, an impaled weapon yanked free, a fumbled Jump): armour unless
    ignored, then HP and the wound. The caller's continuation ``then`` is
    queued with ``follow`` (the wound's Endurance step, if any) and
    ``then_args``."""
    draft.then(then, follow=tuple(_hurt(draft, handle, location, amount, ignore_armour=ignore_armour, base=base,
                                        note=note, exchange=exchange)), **then_args)


def _hurt(draft: Draft, handle: str, location: str, amount: int, *, ignore_armour: bool, base: dict,
          note: str, exchange: int | None) -> list[ev.PendingStep]:
    state = draft.state
    c = state.combatants[handle]
    sheet = sheet_of(c)
    ap = 0 if ignore_armour else max(0, sheet.armour.get(location, 0) + sheet.natural_armour.get(location, 0)
                                     - sundered_ap(c, location))
    armour = min(ap, amount)
    final = amount - armour
    x_id = exchange if exchange is not None else (state.exchange.id if state.exchange else 0)
    draft.emit(ev.DamageDealt(exchange=x_id, target=handle, location=location, rolled=amount, reduced=0,
                              armour=armour, final=final, note=note))
    if final <= 0:
        return []
    return _wound(draft, handle, location, {**base, "location": location, "damage": final})


def _endurance(state: State, handle: str, reason: str, base: dict, dice: tuple = ()) -> ev.PendingStep:
    c = state.combatants[handle]
    x_id = state.exchange.id if state.exchange is not None else 0
    what = {"bleed": "or bleed (Bleed)", "stun": "or the location is stunned (Stun Location)",
            "serious": "or lose the location's use", "major": "or worse (Major Wound)"}[reason]
    return ev.PendingStep(
        who=handle, verb="roll", kind="wound",
        prompt=f"{c.name}: opposed Endurance against the attack ({base['roll']} vs {base['skill']}%) {what}",
        dice=tuple(dice) + (ev.DiceNeed(f"Endurance ({reason})", "1D100", by=handle),),
        exchange=x_id, data={**base, "reason": reason},
    )


def _wound(draft: Draft, handle: str, location: str, base: dict) -> list[ev.PendingStep]:
    """Minor, Serious or Major Wound (rules-reference.md B15; ruling
    ``major_wound_boundary``). A Major Wound incapacitates at once and,
    by ruling ``major_wound_prone``, fells the victim."""
    state = draft.state
    c = state.combatants[handle]
    loc = c.location(location)
    severity = tables.wound_severity(loc.hp, loc.max_hp, rulings_of(state).major_wound_boundary)
    draft.emit(ev.WoundInflicted(target=handle, location=location, severity=severity,
                                 exchange=state.exchange.id if state.exchange is not None else 0))
    if severity == "minor":
        return []
    if severity == "major" and not c.effect("helpless"):
        draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
            "incapacitated", cause=draft.next_version, round=state.round, step=draft.state.step, ends="event",
            effects={"helpless": 1}, location=location, note=f"Major Wound to the {location}")))
    prone = rulings_of(state).major_wound_prone
    if severity == "major" and c.stance != "prone" and (prone == "always" or (prone == "legs" and loc.limb == "leg")):
        draft.emit(ev.StanceChanged(handle=handle, stance="prone", reason=f"Major Wound to the {location} (ruling major_wound_prone)"))
    dice = (ev.DiceNeed("turns unable to attack", "1D3", by=handle),) if severity == "serious" else ()
    return [_endurance(draft.state, handle, severity, base, dice)]


def _drop_from_arm(draft: Draft, handle: str, location: str) -> None:
    """A useless arm lets go of what it holds (B15 "lose the limb's use").
    Our reading of which hand holds what: a shield in the left hand, other
    weapons in the right; a two-handed weapon falls from either."""
    c = draft.state.combatants[handle]
    weapons = {w.name: w for w in sheet_of(c).weapons}
    held = [weapons[n] for n in c.ready if n in weapons]
    shields = [w for w in held if w.kind == "shield"]
    others = [w for w in held if w.kind != "shield"]
    hand = others[:1] if location.startswith("right") else (shields[:1] or others[1:2])
    hand += [w for w in held if w.hands >= 2 and w not in hand]
    for w in hand:
        draft.emit(ev.WeaponDropped(handle=handle, weapon=w.name, reason=f"useless {location}"))


def roll_endurance(draft: Draft, step: ev.PendingStep, rest) -> None:
    """Opposed Endurance against the original attack roll (seed 001 "Bleed",
    "Stun Location"; B15 wounds): on a failure the effect takes hold."""
    state = draft.state
    c = state.combatants[step.who]
    reason, location = str(step.data["reason"]), str(step.data["location"])
    at = dict(cause=draft.next_version, round=state.round, step=state.step)
    if reason == "serious":
        turns = draft.roll("1D3", "turns unable to attack", by=c.handle).total
        draft.emit(ev.ConditionApplied(handle=c.handle, condition=cat.make(
            "cannot-attack", ends="actions", count=turns, effects={"cannot-attack": 1},
            note=f"Serious Wound to the {location}", **at)))
    _endure(draft, step, rest, "")


def _endure(draft: Draft, step: ev.PendingStep, rest, luck: str) -> None:
    """The Endurance roll itself; failed with a Luck Point left, the roller
    may re-roll it (``choose:luck-endurance``) before the effect takes
    hold (seed 001 "Use Luck Point": "to re-roll a particular result")."""
    c = draft.state.combatants[step.who]
    reason, location = str(step.data["reason"]), str(step.data["location"])
    endurance = sheet_of(c).skill("Endurance")
    tested = test(draft, c, "Endurance", endurance, f"Endurance ({reason}) against the attack{luck}",
                  grade_modifiers(draft.state, c, endurance, (), "both", combat=False))
    failed = resister_fails(draft, tested.result, tested.roll, int(step.data["roll"]), int(step.data["skill"]))
    if failed and c.status != "dead" and luck_left(c) > 0:
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=c.handle, verb="choose", kind="luck-endurance",
            prompt=f"{c.name}: Endurance ({reason}) failed; spend a Luck Point to re-roll it? luck | accept",
            options=("luck", "accept"), exchange=step.exchange, data=dict(step.data)),) + tuple(rest)))
        return
    if failed and c.status != "dead":
        _take_hold(draft, c.handle, reason, location, int(step.data["damage"]))
    go_on(draft, rest, f"{c.name}: Endurance ({reason}) {'failed' if failed else 'held'}")


def luck_endurance(draft: Draft, step: ev.PendingStep, option: str) -> None:
    """A failed Endurance roll: ``luck`` spends a Luck Point and rolls it
    again; ``accept`` lets the effect take hold (step
    ``choose:luck-endurance``; seed 001 "Use Luck Point")."""
    rest = tuple(s for s in draft.state.pending if s is not step)
    c = draft.state.combatants[step.who]
    reason = str(step.data["reason"])
    if option == "luck":
        spend_luck(draft, c, f"re-roll Endurance ({reason})")
        _endure(draft, step, rest, " (Luck Point re-roll)")
        return
    _take_hold(draft, c.handle, reason, str(step.data["location"]), int(step.data["damage"]))
    go_on(draft, rest, f"{c.name}: Endurance ({reason}) failed")


def _take_hold(draft: Draft, handle: str, reason: str, location: str, damage: int) -> None:
    """What a failed opposed Endurance roll brings (seed 001 "Bleed", "Stun
    Location"; B15 Serious and Major Wounds)."""
    state = draft.state
    c = state.combatants[handle]
    at = dict(cause=draft.next_version, round=state.round, step=state.step)
    limb = c.location(location).limb
    if reason == "bleed":
        draft.emit(ev.ConditionApplied(handle=c.handle, condition=cat.make(
            "bleeding", ends="event", effects={"bleeding": 1}, location=location, note="Bleed", **at)))
    elif reason == "stun":
        draft.emit(ev.ConditionApplied(handle=c.handle, condition=cat.make(
            "stunned-location", ends="actions", count=damage, location=location,
            # seed 001 "Stun Location": the torso staggers the foe "only able
            # to defend"; the head renders him "unable to act"; a limb is
            # Incapacitated alone: a stunned arm cannot use what it holds
            # (core.usable), a stunned leg cannot move
            effects=({"cannot-attack": 1, "no-defence": 1} if location == "head" else
                     {"cannot-attack": 1} if not limb else {"no-move": 1} if limb == "leg" else {"incapacitated": 1}),
            note=f"Stun Location ({location})", **at)))
    elif reason == "serious" and limb:
        draft.emit(ev.ConditionApplied(handle=c.handle, condition=cat.make(
            "useless-limb", ends="event", location=location, note="Serious Wound", **at)))
        if limb == "leg" and c.stance != "prone":
            draft.emit(ev.StanceChanged(handle=c.handle, stance="prone", reason=f"useless {location}"))
        if limb == "arm":
            _drop_from_arm(draft, c.handle, location)
    elif reason == "major" and location in TORSO:
        draft.emit(ev.StatusChanged(handle=c.handle, status="dead", reason=f"Major Wound to the {location}"))
    else:  # serious to torso or head; major to a limb
        draft.emit(ev.StatusChanged(handle=c.handle, status="unconscious", reason=f"{reason.capitalize()} Wound to the {location}"))
        draft.emit(ev.ConditionApplied(handle=c.handle, condition=cat.make(
            "unconscious", ends="event", effects={"helpless": 1}, **at)))


def first_aid(draft: Draft, who: str, arg: str) -> None:
    """``affray act WHO first-aid:PATIENT[:LOCATION]`` (a Turn action, 1
    Action Point): a First Aid roll, typed with the command, to staunch
    PATIENT's Bleed (the healer may be the patient). Seed 001 "Bleed":
    "Bleeding wounds can be staunched by passing a First Aid skill roll, but
    the recipient can no longer perform any strenuous or violent action
    without re-opening the wound." On a Success or Critical the ``bleeding``
    condition at that location ends and a ``staunched`` one takes its place
    (re-opened by :func:`~.core.reopen_wound`, ruling ``staunched_reopens``);
    on a failure nothing changes. Refused (one line) when PATIENT is not
    bleeding, or bleeds at several locations and none is named. The
    healer's Difficulty Grades (fatigue, situations) apply."""
    state = draft.state
    c = state.combatants[who]
    name, _, where = arg.partition(":")
    if not name.strip():
        raise RuleError("first-aid needs a patient: 'affray act WHO first-aid:PATIENT[:LOCATION]'")
    p = state.combatants[find_combatant(state, name.strip())]
    wanted = where.replace("-", " ").strip().lower()
    bleeding = [k for k in p.conditions if k.name == "bleeding" and (not wanted or k.location == wanted)]
    if not bleeding:
        at = f" at the {wanted}" if wanted else ""
        raise RuleError(f"{p.name} is not bleeding{at}: First Aid staunches a Bleed (seed 001 'Bleed')")
    if len(bleeding) > 1:
        raise RuleError(f"{p.name} bleeds at {', '.join(k.location for k in bleeding)}; "
                        f"name one: 'affray act {who} first-aid:{p.handle}:LOCATION'")
    wound = bleeding[0]
    spend(draft, who, f"First Aid on {p.name}")
    skill = sheet_of(c).skill("First Aid")
    tested = test(draft, c, "First Aid", skill, f"First Aid: staunch {p.name}'s bleeding {wound.location}",
                  grade_modifiers(state, c, skill, (), "both", combat=False))
    if is_success(tested.result):
        draft.emit(
            ev.ConditionExpired(handle=p.handle, condition_id=wound.id, reason=f"staunched by {c.name}'s First Aid"),
            ev.ConditionApplied(handle=p.handle, condition=cat.make(
                "staunched", cause=draft.next_version, round=state.round, step=state.step, ends="event",
                location=wound.location, note=f"staunched by {c.name}: no strenuous or violent action")),
        )
    else:
        draft.emit(ev.NoteAdded(text=f"{c.name}'s First Aid fails; {p.name} still bleeds"))
    done(draft)
