"""Choosing Special Effects in mythras: which the winner of a Differential
Roll may pick, the pick itself, the follow-up choices (Blind Opponent's
grade, Select Target's bystander, Prepare Counter's secret pick, a
triggered counter's substitute) and the effects that act as they are
chosen (Arise, Withdraw, Grip, Slip Free, Rapid Reload). Seed 001
"Special Effects", "Special Effects Table", "Special Effect
Descriptions", "Prepare Counter".

Steps: ``effects:offer-choice`` (the first pick), ``choose:special-effect``
and the ``choose:`` follow-ups; once the picks are made,
``effects:after-choice`` (:mod:`affray.rules.mythras.effects`: the
effects' opposed rolls, then the damage roll).
"""

from __future__ import annotations

import json

from affray.events import core as ev
from affray.events.mythras import SpecialEffectChosen
from affray.projections.state import State
from affray.rules.base import Draft
from affray.rules.d100 import CRITICAL
from affray.rules.mythras import tables
from msgspec.structs import replace

from affray.rules.mythras import conditions as cat
from affray.rules.mythras.core import at, find_weapon, grippers, held_weapon, kinds, sheet_of, traits_of, weapon_struck


#: Effects that only shape a blow that lands.
NEEDS_HIT = ("choose-location", "maximize-damage", "bypass-armor", "bleed", "stun-location", "impale",
             "enhance-parry", "circumvent-parry", "bash", "sunder", "sharpshooter")
#: Effects whose victim resists with an opposed roll (Force Failure combines with them).
OPPOSED = {"trip-opponent", "bleed", "stun-location", "disarm-opponent", "blind-opponent"}
#: What a triggered Prepare Counter may put in the attacker's place (our
#: reading of "one of his own, which succeeds automatically": an effect that
#: needs no blow of its own; ruling ``counter_effects``).
COUNTER_EFFECTS = ("trip-opponent", "disarm-opponent", "blind-opponent", "withdraw", "arise", "slip-free", "scar-foe")

EFFECT_KEYS = tuple(tables.SPECIAL_EFFECTS)


def _name(key: str) -> str:
    return tables.SPECIAL_EFFECTS[key].name


def _weapon_of(state: State, who: str, data: dict):
    """The weapon ``who`` fought with in this exchange (None for an Evade)."""
    x = state.exchange
    c = state.combatants[who]
    if who == x.attacker:
        return find_weapon(c, x.weapon, ready_only=False) if x.weapon else None
    if data.get("item"):
        return find_weapon(c, str(data["item"]), ready_only=False)
    return None


def bystanders(state: State) -> list[str]:
    """Combatants other than the two in the exchange who still stand."""
    x = state.exchange
    return [c.handle for c in state.combatants.values()
            if c.handle not in (x.attacker, x.target) and c.status == "active"]


def eligible(state: State, who: str, data: dict) -> list[str]:
    """Special Effects ``who`` may still pick: eligible by the table and not
    already taken unless stackable (seed 001 "Special Effects"), and with
    the conditions each description sets (a blow that landed, a parrying
    weapon to damage, a weapon to disarm, SIZ and STR limits, a bystander,
    something to slip free from, a weapon to reload)."""
    x = state.exchange
    c = state.combatants[who]
    loser = state.combatants[str(data["loser"])]
    mine = _weapon_of(state, who, data)
    traits = traits_of(mine) if mine is not None else set()
    parried = x.reaction == "parry"
    keys = tables.eligible_effects(str(data["side"]), own=str(data["own"]), other=str(data["other"]),
                                   traits=traits, parried=parried)
    taken = [k for k in str(data["chosen"]).split(",") if k]
    out = [k for k in keys if k not in taken or tables.SPECIAL_EFFECTS[k].stackable]
    flags = kinds(x)
    if not x.effects.get("hit"):
        out = [k for k in out if k not in NEEDS_HIT]
    if not x.effects.get("parried"):
        out = [k for k in out if k not in ("enhance-parry", "circumvent-parry")]
    if c.stance != "prone":
        out = [k for k in out if k != "arise"]
    if "choose-location" in out and ("blind-strike" in flags or (
            "ranged" in flags and str(data["own"]) != CRITICAL and "close-range" not in flags)):
        out.remove("choose-location")
    me_sheet, loser_sheet = sheet_of(c).characteristics, sheet_of(loser).characteristics
    def drop(key, ok):
        if key in out and not ok:
            out.remove(key)
    if "damage-weapon" in out:
        target_w = weapon_struck(state, who, loser.handle)
        drop("damage-weapon", target_w is not None and target_w.hp > 0 and (who == x.attacker or mine is not None))
    drop("disarm-opponent", held_weapon(state, loser.handle) is not None and loser_sheet.STR <= 2 * me_sheet.STR)
    siz = loser_sheet.SIZ * (2 if loser.has("braced") else 1)
    drop("bash", siz <= 2 * me_sheet.SIZ)
    drop("select-target", bool(bystanders(state)) and bool(x.weapon))
    drop("accidental-injury", bool(x.weapon))  # a leap has no weapon to turn on its wielder
    drop("slip-free", any(k.name in ("entangled", "gripped", "pinned") for k in c.conditions))
    drop("withdraw", loser.handle not in grippers(c))  # seed 001 "Grip": the gripped cannot disengage
    drop("rapid-reload", mine is not None and mine.load > 0)
    drop("entangle", who == x.attacker or mine is not None)
    if "accidental-injury" in taken:
        drop("accidental-injury", False)
    if not (OPPOSED & set(out)) and not (OPPOSED & set(taken)):
        out = [k for k in out if k != "force-failure"]  # it needs an effect with an opposed roll
    return out


def choose_step(state: State, who: str, data: dict) -> ev.PendingStep:
    """The step that asks ``who`` for its next Special Effect (seed 001
    "Special Effects")."""
    c = state.combatants[who]
    options = tuple(eligible(state, who, data)) + ("none",)
    return ev.PendingStep(
        who=who, verb="choose", kind="special-effect",
        prompt=f"{c.name}: choose a Special Effect ({data['left']} left): {' | '.join(options)}",
        options=options, exchange=state.exchange.id, data=data,
    )


def sub_step(who: str, kind: str, prompt: str, options, data: dict, x_id: int) -> ev.StepsAwaited:
    """A follow-up choice of a Special Effect, as a pending step."""
    return ev.StepsAwaited(steps=(ev.PendingStep(who=who, verb="choose", kind=kind, prompt=prompt,
                                                 options=tuple(options), exchange=x_id, data=data),))


def choose_effect(draft: Draft, step: ev.PendingStep, option: str) -> None:
    """Pick one Special Effect (or ``none`` to forgo the rest), or name the
    location of Choose Location (steps ``choose:special-effect`` and
    ``choose:location``). Each pick is a ``SpecialEffectChosen``;
    Withdraw, Arise, Grip and Slip Free act at once; the rest act when
    damage is rolled or as their own opposed-roll step (seed 001 "Special
    Effect Descriptions"). The follow-up choices (Blind Opponent's grade,
    Select Target's bystander, Prepare Counter's secret) have steps of
    their own (:mod:`affray.rules.mythras.system`)."""
    state = draft.state
    who = step.who
    c = state.combatants[who]
    x = state.exchange
    data = dict(step.data)
    if step.kind == "location":
        draft.emit(SpecialEffectChosen(exchange=x.id, by=who, against=str(data["loser"]), effect="choose-location",
                                       detail=option))
        data["location"] = option
    elif option == "none":
        data["left"] = 0
    else:
        data["left"] = int(data["left"]) - 1
        data["chosen"] = ",".join([k for k in str(data["chosen"]).split(",") if k] + [option])
        loser = str(data["loser"])
        counter = counter_for(state, loser, who, option)
        if counter is not None:
            trigger_counter(draft, who, loser, option, counter, data)
            return
        if option == "choose-location":
            draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
                who=who, verb="choose", kind="location", prompt=f"{c.name}: choose the location struck",
                options=tables.LOCATION_NAMES, exchange=x.id, data=data),)))
            return
        follow = pick_follow_up(state, who, option, data)
        if follow is not None:
            if option == "prepare-counter":  # public: a counter is prepared; which one is secret
                draft.emit(SpecialEffectChosen(exchange=x.id, by=who, against=loser, effect=option))
            draft.emit(follow)
            return
        draft.emit(SpecialEffectChosen(exchange=x.id, by=who, against=loser, effect=option))
        at_once(draft, who, loser, option)
    continue_choosing(draft, who, data)


def offer_choice(draft: Draft, who: str, data: dict) -> None:
    """Ask the winner of the Differential Roll for its first Special Effect
    (step ``effects:offer-choice``, queued by
    :func:`affray.rules.mythras.attack.resolve`)."""
    draft.emit(ev.StepsAwaited(steps=(choose_step(draft.state, who, data),)))


def continue_choosing(draft: Draft, who: str, data: dict) -> None:
    """Offer the next pick while any is left and eligible, else go on to
    the effects' own steps and the damage roll (``effects:after-choice``;
    step ``effects:continue-choosing``)."""
    if int(data["left"]) > 0 and eligible(draft.state, who, data):
        draft.emit(ev.StepsAwaited(steps=(choose_step(draft.state, who, data),)))
        return
    draft.then("effects:after-choice", data=data)


# --------------------------------------------------------------------------- #
# Prepare Counter
# --------------------------------------------------------------------------- #


def counter_for(state: State, bearer: str, foe: str, effect: str):
    """``bearer``'s prepared counter against ``foe`` using ``effect``, if
    any (seed 001 "Prepare Counter")."""
    c = state.combatants.get(bearer)
    if c is None or effect not in EFFECT_KEYS:
        return None
    idx = EFFECT_KEYS.index(effect)
    for cond in c.conditions:
        if cond.name == "prepared-counter" and cat.from_of(cond) == foe and cond.effects.get("effect") == idx:
            return cond
    return None


def trigger_counter(draft: Draft, winner: str, loser: str, effect: str, counter, data: dict) -> None:
    """The foe attempts the very Special Effect the bearer prepared against:
    it is substituted by one of the bearer's own, which succeeds
    automatically (seed 001 "Prepare Counter"). The counter is revealed."""
    state = draft.state
    x = state.exchange
    w, l = state.combatants[winner], state.combatants[loser]
    draft.emit(SpecialEffectChosen(exchange=x.id, by=winner, against=loser, effect=effect, detail="countered"))
    draft.emit(ev.ConditionExpired(handle=loser, condition_id=counter.id, reason=f"revealed: it counters {_name(effect)}"))
    draft.emit(ev.NoteAdded(text=f"{l.name} had prepared a counter against {w.name}'s {_name(effect)}: "
                                 f"{l.name} substitutes an effect of their own, which succeeds automatically"))
    data = dict(data)
    data["chosen"] = ",".join(_remove_last(str(data["chosen"]).split(","), effect))
    options = _counter_options(state, loser, winner)
    draft.emit(sub_step(loser, "counter-effect",
                        f"{l.name}: the counter triggers; choose your own Special Effect (it succeeds automatically): {' | '.join(options)}",
                        options, {"resume": encode(data), "winner": winner}, x.id))


def _remove_last(items: list[str], key: str) -> list[str]:
    out = list(items)
    for i in range(len(out) - 1, -1, -1):
        if out[i] == key:
            del out[i]
            break
    return [k for k in out if k]


def _counter_options(state: State, who: str, foe: str) -> tuple[str, ...]:
    c, f = state.combatants[who], state.combatants[foe]
    out = []
    for key in COUNTER_EFFECTS:
        if key == "arise" and c.stance != "prone":
            continue
        if key == "slip-free" and not any(k.name in ("entangled", "gripped", "pinned") for k in c.conditions):
            continue
        if key == "disarm-opponent" and held_weapon(state, foe) is None:
            continue
        if key == "withdraw" and (foe not in c.engaged or foe in grippers(c)):
            continue
        if key == "trip-opponent" and f.stance == "prone":
            continue
        out.append(key)
    return tuple(out) + ("none",)


def counter_effect(draft: Draft, step: ev.PendingStep, option: str) -> None:
    """A triggered counter's substitute, which succeeds automatically
    (step ``choose:counter-effect``; seed 001 "Prepare Counter"), then the
    foe's picks go on."""
    state = draft.state
    x = state.exchange
    who, foe = step.who, str(step.data["winner"])
    data = decode(step.data["resume"])
    if option != "none":
        draft.emit(SpecialEffectChosen(exchange=x.id, by=who, against=foe, effect=option, detail="counter: succeeds automatically"))
        if option == "trip-opponent":
            if state.combatants[foe].stance != "prone":
                draft.emit(ev.StanceChanged(handle=foe, stance="prone", reason="Trip Opponent (prepared counter)"))
        elif option == "disarm-opponent":
            w = held_weapon(state, foe)
            if w is not None:
                draft.then("effects:disarm", handle=foe, weapon=w.name, why="disarmed by a prepared counter")
                draft.then("effects:continue-choosing", who=foe, data=data)
                return
        elif option == "blind-opponent":
            data["counter"] = f"{who}>blind-opponent"
        else:
            at_once(draft, who, foe, option)
    continue_choosing(draft, foe, data)


def secret_counter(draft: Draft, step: ev.PendingStep, option: str) -> None:
    """Note the counter in secret: a ``prepared-counter`` condition marked
    ``secret`` (exports leave it out, as they leave out the command that
    chose it); only its existence is public."""
    state = draft.state
    who = step.who
    foe = str(step.data["foe"])
    c = state.combatants[who]
    n = sum(1 for k in c.conditions if k.name == "prepared-counter") + 1
    while any(k.id == f"prepared-counter:{foe}:{n}" for k in c.conditions):
        n += 1
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "prepared-counter", ends="event", key=f"{foe}:{n}",
        effects={"secret": 1, "effect": EFFECT_KEYS.index(option), f"from:{foe}": 1},
        note=f"secret: against {state.combatants[foe].name}'s {_name(option)}", **at(draft))))
    continue_choosing(draft, who, decode(step.data["resume"]))


# --------------------------------------------------------------------------- #
# Picks with a follow-up choice, and effects that act at once
# --------------------------------------------------------------------------- #


def pick_follow_up(state: State, who: str, option: str, data: dict):
    """The follow-up step a pick needs before it is recorded: Blind
    Opponent's grade (Hard or Formidable, "depending on the method"),
    Select Target's bystander, Bypass Armor's worn or natural armour (when
    the loser has both). None for the rest. (Prepare Counter is
    recorded first, then asks for its secret: see :func:`at_once`.)"""
    x = state.exchange
    c = state.combatants[who]
    if option == "blind-opponent":
        return sub_step(who, "blind-grade", f"{c.name}: how blinding is it? hard | formidable",
                        ("hard", "formidable"), {"resume": encode(data)}, x.id)
    if option == "select-target":
        options = tuple(bystanders(state))
        return sub_step(who, "select-target", f"{c.name}: who takes the blow instead? {' | '.join(options)}",
                        options, {"resume": encode(data)}, x.id)
    if option == "bypass-armor" and str(data["chosen"]).split(",").count("bypass-armor") == 1:
        # seed 001 "Bypass Armor": "If the defender is wearing armor above
        # natural protection, then the attacker must decide which of the two
        # is bypassed" (a second pick bypasses both: no choice then)
        s = sheet_of(state.combatants[str(data["loser"])])
        if any(s.armour.values()) and any(s.natural_armour.values()):
            return sub_step(who, "bypass-armor", f"{c.name}: bypass which armour? worn | natural",
                            ("worn", "natural"), {"resume": encode(data)}, x.id)
    if option == "prepare-counter":
        return sub_step(who, "counter",
                        f"{c.name}: note in secret the Special Effect to counter (choose --secret)",
                        EFFECT_KEYS, {"resume": encode(data), "foe": str(data["loser"])}, x.id)
    return None


#: Follow-ups that complete a Special Effect with a detail: the step kind ->
#: the effect and the key of the choose step's data the detail goes under
#: (Blind Opponent's grade, Select Target's bystander).
_DETAILS = {"blind-grade": ("blind-opponent", "blind"), "select-target": ("select-target", "bystander"),
            "bypass-armor": ("bypass-armor", "bypass")}


def effect_detail(draft: Draft, step: ev.PendingStep, option: str) -> None:
    """Blind Opponent's grade, Select Target's bystander or the armour Bypass
    Armor bypasses (steps ``choose:blind-grade``, ``choose:select-target``,
    ``choose:bypass-armor``): the pick is recorded
    with its detail, then the picks go on."""
    effect, key = _DETAILS[step.kind]
    data = decode(step.data["resume"])
    x = draft.state.exchange
    draft.emit(SpecialEffectChosen(exchange=x.id, by=step.who, against=str(data["loser"]), effect=effect, detail=option))
    data[key] = option
    continue_choosing(draft, step.who, data)


def at_once(draft: Draft, who: str, loser: str, option: str) -> None:
    """Effects that act as they are chosen: Arise, Withdraw, Grip, Slip
    Free, Rapid Reload (seed 001)."""
    state = draft.state
    c = state.combatants[who]
    if option == "arise" and c.stance == "prone":
        draft.emit(ev.StanceChanged(handle=who, stance="standing", reason="Arise (Special Effect)"))
        for cond in c.conditions:
            if cond.name == "pinned":
                draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="Arise"))
    elif option == "withdraw":
        if loser in c.engaged:
            draft.emit(ev.EngagementChanged(a=who, b=loser, engaged=False))
        # a gripper who withdraws lets go (the gripped cannot withdraw: eligible)
        for cond in state.combatants[loser].conditions:
            if cond.name == "gripped" and cat.from_of(cond) == who:
                draft.emit(ev.ConditionExpired(handle=loser, condition_id=cond.id, reason=f"{c.name} withdrew"))
    elif option == "grip":
        draft.emit(ev.ConditionApplied(handle=loser, condition=cat.make(
            "gripped", ends="event", key=who, effects={f"from:{who}": 1},
            note=f"gripped by {c.name}: cannot disengage", **at(draft))))
    elif option == "slip-free":
        for cond in c.conditions:
            if cond.name in ("entangled", "gripped", "pinned"):
                draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="Slip Free"))
    elif option == "rapid-reload":
        x = state.exchange
        w = find_weapon(c, x.weapon, ready_only=False)
        cond = next((k for k in c.conditions if k.id == f"unloaded:{w.name.lower()}"), None)
        if cond is not None:
            left = cond.effects.get("load", 0) - 1
            if left <= 0:
                draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason=f"{w.name} is reloaded (Rapid Reload)"))
            else:
                draft.emit(ev.ConditionApplied(handle=who, condition=replace(
                    cond, effects={**cond.effects, "load": left}, note=f"{w.name}: {left} Turn(s) to reload (Rapid Reload)")))
    elif option == "prepare-counter":
        pass  # the secret pick follows (pick_follow_up)


def encode(data: dict) -> str:
    """A choose step's data, kept inside another step's data."""
    return json.dumps(data, sort_keys=True)


def decode(text) -> dict:
    """A choose step's data back from :func:`encode`."""
    return json.loads(str(text)) if text else {}
