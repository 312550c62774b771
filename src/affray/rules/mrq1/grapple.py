"""Grappling in mrq1: the grapple attack, the Grapple table and the
grappling state (the special Combat Actions are in :mod:`.grapple_actions`).

Source: seed 004 "Grappling" (the grapple attack, the opposed roll and the
Grapple table), "Martial Arts", "Grappling Combatants" (no Reactions, −20%
to other tests, Break Free, Immobilise, Inflict Pain, Throw); the table is
chosen by ruling ``grapple_table`` (rules-reference.md "Seed ambiguities":
Grapple). Our rulings, named in the functions below: the target's opposed
roll is not a Reaction (the seed lists four Reactions and this is none of
them); an immobilised combatant stays helpless until the grapple ends; a
grappler may ``release`` his partner as a combat action (the seed is silent
on letting go, which matters once the partner falls).
"""

from __future__ import annotations

from affray.events import core as ev
from affray.projections.state import Combatant
from affray.rules.base import Draft, RuleError
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1 import tables
from affray.rules.mrq1.attack import _attack_modifiers, _require_turn, end_exchange, situation_modifiers
from affray.rules.mrq1.common import (
    condition_modifiers,
    find_weapon,
    rulings_of,
    sheet_of,
    skill,
    table_level,
    test,
)
from affray.rules.mrq1.sheet import Weapon

#: The special Combat Actions of a grappling combatant (seed 004), plus our
#: ruling ``release``.
MANOEUVRES = ("break-free", "immobilise", "inflict-pain", "throw", "release")
#: The characteristics whose sum penalises each manoeuvre's Unarmed test.
PENALTY = {"immobilise": ("DEX", "STR"), "inflict-pain": ("DEX", "CON"), "throw": ("DEX", "SIZ")}
#: Step kinds this module answers.
KINDS = ("grapple-defence", "grapple-follow-up", "grapple-damage")
GRAPPLE_KINDS = ("unarmed", "natural")


def partner_of(c: Combatant) -> str:
    """The handle ``c`` is grappling with ("" when not grappling)."""
    for cond in c.conditions:
        if cond.name == "grappling":
            return cond.id.split(":", 1)[1]
    return ""


def unarmed_weapon(c: Combatant, name: str = "", *, natural: bool = True) -> Weapon:
    """The unarmed (or natural) weapon ``c`` grapples with (seed 004: "made
    in the same way as a normal unarmed or natural weapon attack")."""
    kinds = GRAPPLE_KINDS if natural else ("unarmed",)
    if name:
        w = find_weapon(c, name, ready_only=False)
        if w.kind not in kinds:
            raise RuleError(f"{w.name} is a {w.kind} weapon; grapple with an unarmed or natural weapon (seed 004 Grappling)")
        return w
    for w in sheet_of(c).weapons:
        if w.kind in kinds:
            return w
    if skill(c, "Unarmed") or skill(c, "Martial Arts"):
        return Weapon(name="Unarmed", skill=skill(c, "Unarmed"), damage="1D3", ap=0, hp=0, kind="unarmed")
    raise RuleError(f"{c.name} has no unarmed or natural weapon and no Unarmed skill to grapple with")


def grapple_skill(c: Combatant, weapon: Weapon | None = None, *, natural: bool = True) -> tuple[str, int]:
    """(skill name, value) for a grapple test: the unarmed or natural weapon's
    skill (the Unarmed skill if higher), or Martial Arts if higher still
    (seed 004 "Martial Arts": it may replace any other skill in the grapple
    rules)."""
    w = weapon or unarmed_weapon(c, natural=natural)
    best = (w.name, w.skill)
    if w.kind == "unarmed" and skill(c, "Unarmed") > best[1]:
        best = ("Unarmed", skill(c, "Unarmed"))
    if skill(c, "Martial Arts") > best[1]:
        best = ("Martial Arts", skill(c, "Martial Arts"))
    return best


def own_modifiers(c: Combatant) -> list[ev.Modifier]:
    """The bearer's condition modifiers for a test that targets or answers
    his grapple partner: without the −20% for grappling (seed 004)."""
    return [m for m in condition_modifiers(c, mobility=True, combat=True) if m.reason != "grappling"]


def _cell(draft: Draft, att: str, dfn: str) -> tuple[str, dict[str, int]]:
    """(outcome, effects) of the opposed grapple roll. Under ruling
    ``grapple_table=parry`` a hit on the Parry table is a hold (no follow-up)."""
    rulings = rulings_of(draft.state)
    cell = tables.grapple_table(rulings)[table_level(att), table_level(dfn)]
    effects = dict(cell.effects)
    if rulings.grapple_table == "parry":
        effects = {"grapple": effects["hit"], "hit": effects["hit"], "riposte": effects["riposte"], "follow_up": 0}
    return cell.outcome, effects


# --------------------------------------------------------------------------- #
# The grapple attack
# --------------------------------------------------------------------------- #


def declare(draft: Draft, attacker: str, target: str, weapon_name: str, modifiers, situations) -> None:
    """A grapple attack, declared before any dice (seed 004 "Grappling"):
    a d100 against the unarmed or natural weapon skill; on a hit no damage,
    the target opposes it instead (see :func:`resist`). Costs a combat action."""
    state = draft.state
    a, t = _require_turn(state, attacker), state.combatants[target]
    why = (
        partner_of(a) and f"{a.name} is already grappling; use break-free, immobilise, inflict-pain, throw or release"
        or attacker == target and f"{a.name} cannot grapple themself; name another combatant"
        or t.status == "dead" and f"{t.name} is dead; choose another target"
        or a.effect("cannot-attack") and f"{a.name} cannot attack now (see 'affray state')"
    )
    if why:
        raise RuleError(why)
    weapon = unarmed_weapon(a, weapon_name)
    name, value = grapple_skill(a, weapon)
    _spend(draft, a, f"grapple {t.name}")
    mods = _attack_modifiers(draft.state, attacker, target, modifiers, situations)
    x = draft.state.next_exchange
    draft.emit(ev.AttackDeclared(exchange=x, attacker=attacker, target=target, weapon=weapon.name, kind="grapple", modifiers=tuple(mods)))
    if target not in a.engaged:
        draft.emit(ev.EngagementChanged(a=attacker, b=target, engaged=True))
    tested = test(draft, a, name, value, mods, f"grapple attack on {t.name}", critical_base=value)
    helpless = bool(t.effect("helpless")) or t.status == "unconscious"
    hit = tested.result in ("success", "critical") or helpless
    draft.emit(ev.AttackResolved(exchange=x, hit=hit, critical=tested.result == "critical" or helpless,
                                 fumble=tested.result == "fumble" and not helpless, roll=tested.roll, skill=tested.target))
    if not hit:
        end_exchange(draft, f"{a.name}'s grapple misses {t.name} ({tested.roll} vs {tested.target}%)")
        return
    if helpless:
        draft.emit(ev.NoteAdded(text=f"{t.name} is helpless and cannot oppose the grapple (seed 004)"))
        _settle(draft, "failure", None)
        return
    draft.emit(ev.StepsAwaited(steps=(defence_step(draft.state),)))


def defence_step(state) -> ev.PendingStep:
    """The target's choice of skill to oppose the grapple: Unarmed, a Weapon
    skill or Dodge (seed 004 "Grappling": "target's choice")."""
    x = state.exchange
    t, a = state.combatants[x.target], state.combatants[x.attacker]
    options = ["unarmed"]
    if any(w.name in t.ready and w.kind in ("melee", "shield") for w in sheet_of(t).weapons):
        options.append("weapon")
    options.append("dodge")
    dice = [ev.DiceNeed(f"{t.name}'s grapple defence", "1D100", by=t.handle)]
    if rulings_of(state).reaction_attacker_roll == "fresh":
        dice.append(ev.DiceNeed(f"{a.name}'s opposed Unarmed test", "1D100", by=a.handle))
    return ev.PendingStep(
        who=t.handle, verb="react", kind="grapple-defence", exchange=x.id, options=tuple(options), dice=tuple(dice),
        prompt=f"{t.name}: oppose {a.name}'s grapple with {' | '.join(options)} (Grapple table; not a Reaction)",
    )


def resist(draft: Draft, defender: str, choice: str, with_item: str, modifiers, situations) -> None:
    """The target's opposed test against a grapple hit, read on the Grapple
    table (seed 004 "Grappling"). Our ruling: it is not a Reaction, so it
    spends none and a grappling or surprised target may still make it."""
    state = draft.state
    step = next(s for s in state.pending if s.who == defender and s.kind == "grapple-defence")
    c = state.combatants[defender]
    choice = choice.lower()
    if choice not in step.options:
        raise RuleError(f"{c.name} can oppose the grapple with {' | '.join(step.options)}, not {choice!r}")
    item = None
    if choice == "unarmed":
        name, value = grapple_skill(c)
    elif choice == "weapon":
        item = find_weapon(c, with_item) if with_item else next(
            w for w in sheet_of(c).weapons if w.name in c.ready and w.kind in ("melee", "shield"))
        name, value = item.name, item.skill
    else:
        name, value = "Dodge", skill(c, "Dodge")
    x = state.exchange
    draft.emit(ev.ReactionChosen(exchange=x.id, handle=defender, reaction=f"grapple-{choice}", with_item=item.name if item else ""))
    mods = condition_modifiers(c, mobility=True, combat=True) + situation_modifiers(tuple(situations)) + list(modifiers)
    d = test(draft, c, name, value, mods, f"oppose {state.combatants[x.attacker].name}'s grapple")
    _settle(draft, d.result, item)


def _settle(draft: Draft, defender_level: str, item: Weapon | None) -> None:
    x = draft.state.exchange
    a, t = draft.state.combatants[x.attacker], draft.state.combatants[x.target]
    if rulings_of(draft.state).reaction_attacker_roll == "fresh":
        name, value = grapple_skill(a, unarmed_weapon(a, x.weapon) if x.weapon != "Unarmed" else None)
        att = test(draft, a, name, value, own_modifiers(a), f"opposed Unarmed test against {t.name}").result
    else:
        att = "critical" if x.critical else "success"
    row, col = table_level(att), table_level(defender_level)
    outcome, effects = _cell(draft, row, col)
    draft.emit(ev.ReactionResolved(exchange=x.id, cell=f"grapple:{row}/{col}", outcome=outcome, effects=effects))
    if effects.get("grapple"):
        begin(draft, a.handle, t.handle)
        if effects.get("follow_up"):
            draft.emit(ev.StepsAwaited(steps=(follow_up_step(draft.state, a.handle),)))
            return
        end_exchange(draft, f"{a.name} grapples {t.name}")
        return
    if effects.get("riposte") and not partner_of(t):  # a grappling defender has no Reactions
        from affray.rules.mrq1.attack import _offer_riposte

        _offer_riposte(draft, t.handle, item)
        return
    end_exchange(draft, f"{t.name} resists {a.name}'s grapple")


def begin(draft: Draft, a: str, b: str) -> None:
    """Both combatants are now grappling (seed 004 "Grapple Succeeds")."""
    at = dict(cause=draft.next_version, round=draft.state.round, step=draft.state.step)
    for me, other in ((a, b), (b, a)):
        name = draft.state.combatants[other].name
        draft.emit(ev.ConditionApplied(handle=me, condition=cat.make(
            "grappling", ends="event", suffix=other, effects={"grappling": 1, "penalty": -20}, note=f"with {name}", **at)))


def end(draft: Draft, a: str, reason: str) -> None:
    """The grapple between ``a`` and his partner ends; an immobilised partner
    is free again."""
    b = partner_of(draft.state.combatants[a])
    for h in (a, b):
        for cond in draft.state.combatants[h].conditions:
            if cond.name in ("grappling", "immobilised"):
                draft.emit(ev.ConditionExpired(handle=h, condition_id=cond.id, reason=reason))


def follow_up_step(state, who: str) -> ev.PendingStep:
    """Grapple table, attacker Critical / defender Failure: the attacker may
    immediately Immobilise or Throw (seed 004)."""
    c = state.combatants[who]
    return ev.PendingStep(
        who=who, verb="grapple", kind="grapple-follow-up", options=("immobilise", "throw", "none"),
        dice=(ev.DiceNeed(f"{c.name}'s Unarmed test", "1D100", by=who),),
        exchange=state.exchange.id if state.exchange else 0,
        prompt=f"{c.name}: immediately Immobilise or Throw (no combat action): immobilise | throw | none",
    )


def _spend(draft: Draft, c: Combatant, reason: str) -> None:
    """One combat action; it ends Overextension (seed 004 "Overextended")."""
    draft.emit(ev.ActionSpent(handle=c.handle, kind="combat-action", reason=reason))
    for cond in c.conditions:
        if cond.name == "overextended":
            draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=cond.id, reason="performed another combat action"))


def restricted(state, handle: str, what: str) -> None:
    """Refuse ``what`` for a grappling combatant (seed 004 "Grappling
    Combatants": restricted to the special Combat Actions, no Reactions)."""
    c = state.combatants.get(handle)
    if c is not None and partner_of(c):
        p = state.combatants[partner_of(c)].name
        raise RuleError(
            f"{c.name} is grappling {p} and may not {what} (seed 004 Grappling Combatants); "
            f"use 'affray grapple {handle} {{break-free|immobilise|inflict-pain|throw|release}}'"
        )
