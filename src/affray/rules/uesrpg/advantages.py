"""Advantages: spent by the winner of the combat roll before damage (seed
003 Step 3 "Advantage", Step 4 "Next, resolve any Advantage gained";
rules-reference.md D8 for the list the seed's "Transclude of advantage"
leaves out).

The winner answers a ``choose`` step once per Advantage; two Advantages may
stack where that means something (Press Advantage +20, Overextend -20,
Forceful Impact Damaged(2)). Ranged attacks and spells never reach this
step (seed 003 Step 4: they "cannot gain or utilize advantage").
"""

from __future__ import annotations

from affray.events import core as ev
from affray.events import uesrpg as ev_ues
from affray.rules.base import Draft, RuleError
from affray.rules.uesrpg import conditions as cat
from affray.rules.uesrpg import tables

#: Advantages that mean nothing twice.
ONCE = frozenset({"precision-strike", "penetrate-armor", "overwhelm"})
#: Advantages that need a blow landing on the loser.
NEED_HIT = frozenset({"precision-strike", "penetrate-armor", "forceful-impact"})


def options_for(carry: dict, by_attacker: bool, chosen: str) -> tuple[str, ...]:
    """The Advantages open to the winner: the attack ones to the side whose
    blow lands or who attacked (those needing a hit only when it lands),
    Overextend to a defender who blocked, evaded or parried, Overwhelm and
    Special Advantage to either (D8); ``none`` to stop."""
    taken = set(filter(None, chosen.split(",")))
    hits_loser = carry.get("hits") == ("defender" if by_attacker else "attacker")
    striker = by_attacker or carry.get("hits") == "attacker"
    out = []
    for key, row in tables.ADVANTAGES.items():
        if key in ONCE and key in taken:
            continue
        if row.side == "attack" and (not striker or (key in NEED_HIT and not hits_loser)):
            continue
        if row.side == "defence" and (by_attacker or carry.get("defence") not in ("block", "evade", "parry")):
            continue
        out.append(key)
    return tuple(out) + ("none",)


def offer(draft: Draft, carry: dict, left: int, by: str, chosen: str = "") -> None:
    """The winner's ``choose`` step for its next Advantage."""
    state = draft.state
    x = state.exchange
    by_attacker = by == x.attacker
    options = options_for(carry, by_attacker, chosen)
    c = state.combatants[by]
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=by, verb="choose", kind="advantage", exchange=x.id, options=options,
        prompt=f"{c.name}: spend an Advantage ({left} left): {' | '.join(options)} "
               "(precision-strike:LOCATION, special-advantage:ACTION)",
        data={**carry, "left": left, "chosen": chosen},
    ),)))


def choose(draft: Draft, step: ev.PendingStep, who: str, option: str) -> None:
    """``affray choose WHO ADVANTAGE[:DETAIL]``: one Advantage and its
    effect (D8): Precision Strike picks the location, Penetrate Armor and
    Forceful Impact mark the blow, Press Advantage, Overextend and Overwhelm
    become conditions, Special Advantage is recorded for the GM (ruling
    ``special_advantage``); ``none`` gives up the rest."""
    state = draft.state
    x = state.exchange
    data = dict(step.data)
    left, chosen = int(data.pop("left")), str(data.pop("chosen", ""))
    key, _, detail = option.strip().partition(":")
    key = key.strip().lower()
    detail = detail.strip()
    if key not in step.options:
        raise RuleError(f"{state.combatants[who].name} cannot take {key!r} here; choose one of {', '.join(step.options)}")
    against = x.target if who == x.attacker else x.attacker
    if key == "none":
        draft.emit(ev_ues.AdvantageChosen(exchange=x.id, by=who, against=against, advantage="none",
                                          detail=f"{left} Advantage{'s' if left > 1 else ''} not used"))
        draft.then("resolve", carry=data)
        return
    if key == "precision-strike":
        loc = detail.lower()
        if loc not in tables.LOCATION_NAMES:
            raise RuleError(f"Precision Strike names the location: precision-strike:LOCATION ({', '.join(tables.LOCATION_NAMES)})")
        data["loc"], detail = loc, loc
    elif key == "special-advantage" and not detail:
        raise RuleError("name the Special Action: special-advantage:ACTION (the GM applies it)")
    draft.emit(ev_ues.AdvantageChosen(exchange=x.id, by=who, against=against, advantage=key, detail=detail))
    _apply(draft, key, who, against, data)
    if left > 1:
        offer(draft, data, left - 1, who, ",".join(filter(None, [chosen, key])))
    else:
        draft.then("resolve", carry=data)


def _stacked(draft: Draft, handle: str, name: str, effect: str, step_value: int, **extra) -> None:
    """Apply condition ``name`` or add ``step_value`` to its ``effect``."""
    state = draft.state
    c = state.combatants[handle]
    key = extra.pop("key", "")
    old = next((k for k in c.conditions if k.name == name and (not key or k.id.endswith(":" + key))), None)
    value = (old.effects.get(effect, 0) if old else 0) + step_value
    effects = {effect: value, **extra.pop("effects", {})}
    draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
        name, cause=draft.next_version, round=state.round, step=state.step, key=key, effects=effects, **extra)))


def _apply(draft: Draft, key: str, by: str, against: str, data: dict) -> None:
    names = draft.state.combatants
    if key == "penetrate-armor":
        data["penetrate"] = 1
    elif key == "forceful-impact":
        data["forceful"] = int(data.get("forceful", 0)) + 1
    elif key == "press-advantage":  # +10 on the next melee attack on that opponent within 1 round
        _stacked(draft, by, "pressing", "attack-bonus", 10, key=against, ends="rounds", count=2,
                 effects={f"from:{against}": 1}, note=f"against {names[against].name}, until the end of the next round")
    elif key == "overextend":  # the opponent's next attack within 1 round is at -10
        _stacked(draft, against, "overextended", "attack-penalty", -10, ends="rounds", count=2,
                 effects={f"from:{by}": 1}, note="until its next attack or the end of the next round")
    elif key == "overwhelm":  # no attacks of opportunity until the winner's next Turn
        draft.emit(ev.ConditionApplied(handle=against, condition=cat.make(
            "overwhelmed", cause=draft.next_version, round=draft.state.round, step=draft.state.step, ends="event",
            key=by, effects={"no-opportunity": 1, f"from:{by}": 1}, note=f"until {names[by].name}'s next Turn")))


def ranged_refusal(kind: str) -> str:
    """The one line for an Advantage asked for at range or with a spell."""
    what = "a spell" if kind == "spell" else "a ranged attack"
    return (f"{what} cannot gain or use Advantage (seed 003 Step 4: 'Ranged attackers and spells cannot gain or "
            "utilize advantage'); nothing to choose")
