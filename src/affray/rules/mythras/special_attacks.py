"""Attacks beyond the plain exchange in mythras: the Counterattack on a
charge, Leaping Attacks, Sweep Attacks, and the deferred attacks they (and
Select Target, Firing into a Crowd) leave for an exchange of their own
(seed 001 "Charging", "Leaping Attacks", "Sweep Attacks").

Steps: ``special:counterattack`` (a reaction to a charge, queued by
:func:`affray.rules.mythras.attack.react`) and ``special:open-deferred``
(queued when an exchange ends with an attack waiting). Each blow then
goes on as any attack: ``attack:offer-reaction`` or ``attack:resolve``.
"""

from __future__ import annotations

from affray.events import core as ev
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.d100 import CRITICAL, FAILURE, FUMBLE, SUCCESS, is_success
from affray.rules.mythras import conditions as cat
from affray.rules.mythras import tables
from affray.rules.mythras.core import (
    at,
    best_skill,
    check_attack,
    default_weapon,
    defer_attack,
    effective_siz,
    find_weapon,
    grade_modifiers,
    parry_weapons,
    sheet_of,
    spend,
    test,
    usable,
)


def counterattack(draft: Draft, defender: str, attacker: str, with_item: str, modifiers, situations) -> None:
    """Seed 001 "Charging": rather than Parrying or Evading, the recipient
    of a charge counterattacks at the same time; the longer weapon strikes
    first. Each blow is an exchange of its own with no defence (a Failure);
    the second waits as a ``deferred-attack`` condition. A weapon that can
    be set against a charge (trait ``set``) uses the charger's Damage
    Modifier. Step ``special:counterattack``. An attack: refused to one
    who may not attack now."""
    state = draft.state
    x = state.exchange
    c, a = state.combatants[defender], state.combatants[attacker]
    check_attack(state, defender, attacker)
    w = find_weapon(c, with_item) if with_item else next(w for w in parry_weapons(c, state) if w.kind != "shield")
    why = usable(state, c, w)
    if why:
        raise RuleError(why)
    skill_name, skill = sheet_of(c).weapon_skill(w)
    draft.emit(ev.ActionSpent(handle=c.handle, kind="combat-action", reason=f"counterattack against {a.name}'s charge"))
    draft.emit(ev.ReactionChosen(exchange=x.id, handle=c.handle, reaction="counterattack", with_item=w.name))
    mods = grade_modifiers(state, c, skill, tuple(situations), "attack") + tuple(modifiers)
    tested = test(draft, c, skill_name, skill, f"counterattack on {a.name} with {w.name}", mods)
    charger_w = find_weapon(a, x.weapon, ready_only=False)
    if tables.reach_index(w.reach) > tables.reach_index(charger_w.reach):
        # the recipient's longer weapon strikes first: the charge waits
        defer_attack(draft, a.handle, c.handle, charger_w.name, x.roll, x.skill, "charge")
        draft.emit(ev.NoteAdded(text=f"{c.name}'s {w.name} is longer than {a.name}'s {charger_w.name}: it strikes first"))
        draft.emit(ev.ExchangeEnded(exchange=x.id, summary="the charge waits for the longer weapon"))
        open_deferred(draft, c.handle, a.handle, w.name, tested.roll, tested.target, "counter")
        return
    defer_attack(draft, c.handle, a.handle, w.name, tested.roll, tested.target, "counter")
    draft.then("attack:resolve", reaction="none", item=None, d_level=FAILURE, d_roll=0)


def open_deferred(draft: Draft, attacker: str, target: str, weapon: str, roll: int, skill: int, deferred: str) -> None:
    """Open the exchange of a deferred attack: a counterattack or a charge
    (no defence), a sweep (the defender reacts as normal), a blow turned on
    a bystander by Select Target (it hits automatically, no Special
    Effects) or a shot into a crowd that strikes a neighbour (who may
    react; no Special Effects). ``deferred`` is its kind (:data:`~.core.DEFERRED`).
    Step ``special:open-deferred``."""
    state = draft.state
    exchange = state.next_exchange
    flags = [deferred]
    a = state.combatants[attacker]
    if find_weapon(a, weapon, ready_only=False).kind == "ranged":
        flags.insert(0, "ranged")
    draft.emit(ev.AttackDeclared(exchange=exchange, attacker=attacker, target=target, weapon=weapon, kind="+".join(flags)))
    if "ranged" not in flags and target not in a.engaged:
        draft.emit(ev.EngagementChanged(a=attacker, b=target, engaged=True))
    level = SUCCESS if deferred == "bystander" else tables.skill_test(roll, skill)
    draft.emit(ev.AttackResolved(exchange=exchange, hit=is_success(level), critical=level == CRITICAL,
                                 fumble=level == FUMBLE, roll=roll, skill=skill))
    if deferred in ("counter", "charge"):
        draft.emit(ev.ReactionChosen(exchange=exchange, handle=target, reaction="none"))
        draft.emit(ev.NoteAdded(text="simultaneous blows: no defence against this one"))
        draft.then("attack:resolve", reaction="none", item=None, d_level=FAILURE, d_roll=0)
        return
    draft.then("attack:offer-reaction")


def leap(draft: Draft, who: str, arg: str) -> None:
    """Leaping Attack: an Opposed Roll of the leaper's Athletics against the
    defender's Brawn or Evade; a quadruped target makes it one grade
    harder; only against up to twice the leaper's SIZ (a braced target's
    SIZ x1.5). Won: the defender is knocked prone with the leaper astride
    (pinned); Special Effects per the Differential Roll; no damage (seed
    001 "Leaping Attacks"). An attack: refused on oneself, the dead, or by
    one who may not attack now (a surprised fighter "may not perform any
    offensive Action", seed 001 "Surprise"; a Serious Wound; a stunned
    torso or head)."""
    state = draft.state
    c = state.combatants[who]
    if not arg:
        raise RuleError("leap needs a target: 'affray act WHO leap:TARGET'")
    t = state.combatants[find_combatant(state, arg)]
    check_attack(state, who, t.handle)
    if effective_siz(t, "leap") > 2 * sheet_of(c).characteristics.SIZ:
        raise RuleError(f"{t.name} is more than twice {c.name}'s SIZ{' (braced)' if t.has('braced') else ''}: a leap cannot bring it down")
    spend(draft, who, f"leap at {t.name}")
    exchange = state.next_exchange
    draft.emit(ev.AttackDeclared(exchange=exchange, attacker=who, target=t.handle, weapon="", kind="leap"))
    if t.handle not in c.engaged:
        draft.emit(ev.EngagementChanged(a=who, b=t.handle, engaged=True))
    athletics = sheet_of(c).skill("Athletics")
    extra = [("hard", "a quadruped target")] if sheet_of(t).legs >= 4 else []
    mods = grade_modifiers(state, c, athletics, (), "both", combat=False, extra=extra)
    tested = test(draft, c, "Athletics", athletics, f"leap at {t.name}", mods)
    draft.emit(ev.AttackResolved(exchange=exchange, hit=is_success(tested.result), critical=tested.result == CRITICAL,
                                 fumble=tested.result == FUMBLE, roll=tested.roll, skill=tested.target))
    name, skill = best_skill(t, "Brawn", "Evade")
    if not t.can_fight:
        draft.emit(ev.ReactionChosen(exchange=exchange, handle=t.handle, reaction="none"))
        draft.then("attack:resolve", reaction="none", item=None, d_level="failure", d_roll=0)
        return
    draft.emit(ev.ReactionChosen(exchange=exchange, handle=t.handle, reaction="withstand"))
    d = test(draft, t, name, skill, f"withstand {c.name}'s leap", grade_modifiers(state, t, skill, (), "both", combat=False))
    won = tables.opposed_winner(tested.result, tested.roll, d.result, d.roll) == "a"
    if won:
        if t.stance != "prone":
            draft.emit(ev.StanceChanged(handle=t.handle, stance="prone", reason=f"{c.name} leaps on them"))
        draft.emit(ev.ConditionApplied(handle=t.handle, condition=cat.make(
            "pinned", ends="event", key=who, effects={f"from:{who}": 1},
            note=f"{c.name} astride: no regaining footing until they leave or an Arise is won", **at(draft))))
    draft.then("attack:resolve", reaction="leap", item=None, d_level=d.result, d_roll=d.roll, d_target=d.target,
               d_skill=name)


def sweep(draft: Draft, who: str, arg: str) -> None:
    """Sweep Attack (at the GM's call): one attack roll applied to every
    target in the path; each defender resolves it separately, one exchange
    after the other (seed 001 "Sweep Attacks"). An attack: each target is
    checked as one (not oneself, not the dead, not by one who may not
    attack now), twice the same target is refused, and the weapon must be
    usable (a stunned or entangled arm's is not)."""
    state = draft.state
    c = state.combatants[who]
    targets = [find_combatant(state, t) for t in arg.split(",") if t.strip()]
    if len(targets) < 2:
        raise RuleError("sweep needs two or more targets: 'affray act WHO sweep:T1,T2'")
    if len(set(targets)) < len(targets):
        raise RuleError("sweep names a target twice; name each target once: 'affray act WHO sweep:T1,T2'")
    for t in targets:
        check_attack(state, who, t)
    w = default_weapon(c)
    why = usable(state, c, w)
    if why:
        raise RuleError(f"{why}; a sweep needs a weapon in hand")
    skill_name, skill = sheet_of(c).weapon_skill(w)
    spend(draft, who, f"sweep attack on {', '.join(state.combatants[t].name for t in targets)}")
    tested = test(draft, c, skill_name, skill, f"sweep attack with {w.name}", grade_modifiers(state, c, skill, (), "attack"))
    for t in targets[1:]:
        defer_attack(draft, who, t, w.name, tested.roll, tested.target, "sweep")
    open_deferred(draft, who, targets[0], w.name, tested.roll, tested.target, "sweep")
