"""Choosing Special Effects in mythras: which the winner of a Differential
Roll may pick, the pick itself and the follow-up choices (seed 001
"Special Effects", "Special Effects Table", "Special Effect
Descriptions"). What each effect does once chosen lives in
:mod:`affray.rules.mythras.effects`.
"""

from __future__ import annotations

import json

from affray.events import core as ev
from affray.events.mythras import SpecialEffectChosen
from affray.projections.state import State
from affray.rules.base import Draft, RuleError
from affray.rules.d100 import CRITICAL
from affray.rules.mythras import tables
from affray.rules.mythras.attack import kinds, proceed
from affray.rules.mythras.core import find_weapon, sheet_of, traits_of


#: Effects that only shape a blow that lands.
NEEDS_HIT = ("choose-location", "maximize-damage", "bypass-armor", "bleed", "stun-location", "impale",
             "enhance-parry", "circumvent-parry", "bash", "sunder", "sharpshooter")
#: Effects whose victim resists with an opposed roll (Force Failure combines with them).
OPPOSED = {"trip-opponent", "bleed", "stun-location", "disarm-opponent", "blind-opponent"}
#: What a triggered Prepare Counter may put in the attacker's place (our
#: reading of "one of his own, which succeeds automatically": an effect that
#: needs no blow of its own; ruling ``counter_effects``).
COUNTER_EFFECTS = ("trip-opponent", "disarm-opponent", "blind-opponent", "withdraw", "arise", "slip-free", "scar-foe")


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


def held_weapon(state: State, who: str):
    """The weapon ``who`` would lose to a Disarm in this exchange: the one
    it fought with, else the first held ready (None when only natural or
    unarmed weapons are left)."""
    x = state.exchange
    c = state.combatants[who]
    if who == x.attacker:
        w = find_weapon(c, x.weapon, ready_only=False) if x.weapon else None
    elif x.with_item:
        w = find_weapon(c, x.with_item, ready_only=False)
    else:
        held = [w for w in sheet_of(c).weapons if w.name in c.ready and w.kind != "unarmed"]
        w = held[0] if held else None
    if w is None or w.kind == "unarmed" or w.name not in c.ready:
        return None
    return w


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
        target_w = held_weapon(state, loser.handle) if who == x.target else (
            find_weapon(loser, x.with_item, ready_only=False) if parried and x.with_item else None)
        drop("damage-weapon", target_w is not None and target_w.hp > 0 and (who == x.attacker or mine is not None))
    drop("disarm-opponent", held_weapon(state, loser.handle) is not None and loser_sheet.STR <= 2 * me_sheet.STR)
    siz = loser_sheet.SIZ * (2 if loser.has("braced") else 1)
    drop("bash", siz <= 2 * me_sheet.SIZ)
    drop("select-target", bool(bystanders(state)) and bool(x.weapon))
    drop("accidental-injury", bool(x.weapon))  # a leap has no weapon to turn on its wielder
    drop("slip-free", any(k.name in ("entangled", "gripped", "pinned") for k in c.conditions))
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
    from affray.rules.mythras import effects as fx

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
        counter = fx.counter_for(state, loser, who, option)
        if counter is not None:
            fx.trigger_counter(draft, who, loser, option, counter, data)
            return
        if option == "choose-location":
            draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
                who=who, verb="choose", kind="location", prompt=f"{c.name}: choose the location struck",
                options=tables.LOCATION_NAMES, exchange=x.id, data=data),)))
            return
        follow = fx.pick_follow_up(state, who, option, data)
        if follow is not None:
            if option == "prepare-counter":  # public: a counter is prepared; which one is secret
                draft.emit(SpecialEffectChosen(exchange=x.id, by=who, against=loser, effect=option))
            draft.emit(follow)
            return
        draft.emit(SpecialEffectChosen(exchange=x.id, by=who, against=loser, effect=option))
        fx.at_once(draft, who, loser, option)
    continue_choosing(draft, who, data)


def continue_choosing(draft: Draft, who: str, data: dict) -> None:
    """Offer the next pick while any is left and eligible, else go on."""
    if int(data["left"]) > 0 and eligible(draft.state, who, data):
        draft.emit(ev.StepsAwaited(steps=(choose_step(draft.state, who, data),)))
        return
    proceed(draft, data)


def encode(data: dict) -> str:
    """A choose step's data, kept inside another step's data."""
    return json.dumps(data, sort_keys=True)


def decode(text) -> dict:
    """A choose step's data back from :func:`encode`."""
    return json.loads(str(text)) if text else {}
