"""Grappling in mrq1: the grapple attack, the Grapple table, the grappling
state and the special Combat Actions of grappling combatants.

Source: seed 004 "Grappling" (the grapple attack, the opposed roll and the
Grapple table), "Martial Arts", "Grappling Combatants" (no Reactions, −20%
to other tests, Break Free, Immobilise, Inflict Pain, Throw); the table is
chosen by ruling ``grapple_table`` (rules-reference.md "Seed ambiguities":
Grapple). Our rulings, named in the functions below: the target's opposed
roll is not a Reaction (the seed lists four Reactions and this is none of
them); an immobilised combatant stays helpless until the grapple ends; a
grappler may ``release`` his partner as a combat action (the seed is silent
on letting go, which matters once the partner falls).

The special Combat Actions (seed 004 "Grappling Combatants"): Break Free (a
grapple attempt with the breaker as defender, Unarmed or Natural Weapon
skill only), Immobilise (Unarmed test at minus the opponent's DEX+STR; the
opponent is helpless), Inflict Pain (minus DEX+CON; 1D6 + damage modifier
to a random location), Throw (minus DEX+SIZ; thrown 2 metres, 1D6 to a
random location, the grapple ends).

Steps: ``react:grapple-defence`` (:func:`resist`), ``roll:grapple-damage``;
a resisted grapple that grants a Riposte goes on as
``attack:offer-riposte``.
"""

from __future__ import annotations

from affray import dice as dicelib
from affray.events import core as ev
from affray.events.mrq1 import GrappleManoeuvred
from affray.projections.state import Combatant
from affray.rules.base import Draft, RuleError
from affray.rules.d100 import roll_damage_modifier
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1 import tables
from affray.rules.mrq1.core import (
    MANOEUVRES,
    attack_modifiers,
    condition_modifiers,
    end_exchange,
    find_weapon,
    location_for,
    named_helpless,
    parse,
    partner_of,
    require_turn,
    rulings_of,
    sheet_of,
    situation_modifiers,
    skill,
    table_level,
    test,
)
from affray.rules.mrq1.sheet import Weapon, derive

#: The characteristics whose sum penalises each manoeuvre's Unarmed test.
PENALTY = {"immobilise": ("DEX", "STR"), "inflict-pain": ("DEX", "CON"), "throw": ("DEX", "SIZ")}
#: Step kinds this module answers.
KINDS = ("grapple-defence", "grapple-follow-up", "grapple-damage")
GRAPPLE_KINDS = ("unarmed", "natural")


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
    a, t = require_turn(state, attacker), state.combatants[target]
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
    mods = attack_modifiers(draft.state, attacker, target, modifiers, situations)
    x = draft.state.next_exchange
    draft.emit(ev.AttackDeclared(exchange=x, attacker=attacker, target=target, weapon=weapon.name, kind="grapple", modifiers=tuple(mods)))
    if target not in a.engaged:
        draft.emit(ev.EngagementChanged(a=attacker, b=target, engaged=True))
    tested = test(draft, a, name, value, mods, f"grapple attack on {t.name}", critical_base=value)
    helpless = bool(t.effect("helpless")) or t.status == "unconscious" or named_helpless(mods)
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
    """The step ``react:grapple-defence``: the target's opposed test against a grapple hit, read on the Grapple
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
    role = "dodge" if choice == "dodge" else "parry"  # the opposed roll answers an attack
    mods = condition_modifiers(c, mobility=True, combat=True) + situation_modifiers(tuple(situations), role=role) + list(modifiers)
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
        draft.then("attack:offer-riposte", defender=t.handle, item=item)
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


# --------------------------------------------------------------------------- #
# Grappling combatants: the special Combat Actions
# --------------------------------------------------------------------------- #


def act(draft: Draft, who: str, manoeuvre: str, modifiers) -> None:
    """``affray grapple WHO MANOEUVRE``: a grapple manoeuvre: as a combat action on ``who``'s turn, or free as
    the follow-up to a critical grapple."""
    state = draft.state
    c = state.combatants[who]
    follow = next((s for s in state.pending if s.who == who and s.kind == "grapple-follow-up"), None)
    if follow is not None:
        if manoeuvre not in follow.options:
            raise RuleError(f"{c.name} may {' | '.join(follow.options)} now, not {manoeuvre!r}")
        if manoeuvre == "none":
            end_exchange(draft, f"{c.name} holds the grapple")
            return
        _manoeuvre(draft, who, manoeuvre, modifiers)
        return
    if manoeuvre == "pass":
        draft.then("act:pass", who=who, spec=parse("pass"))
        return
    if manoeuvre not in MANOEUVRES:
        raise RuleError(f"unknown grapple manoeuvre {manoeuvre!r}; use attack, {', '.join(MANOEUVRES)}")
    require_turn(state, who)
    if not partner_of(c):
        raise RuleError(f"{c.name} is not grappling; 'affray grapple {who} attack TARGET' starts a grapple")
    _spend(draft, c, manoeuvre)
    _manoeuvre(draft, who, manoeuvre, modifiers)


def _manoeuvre(draft: Draft, who: str, what: str, modifiers) -> None:
    c = draft.state.combatants[who]
    partner = partner_of(c)
    p = draft.state.combatants[partner]
    if what == "release":
        draft.emit(GrappleManoeuvred(handle=who, partner=partner, manoeuvre=what, success=True, outcome=f"{c.name} lets go of {p.name}"))
        end(draft, who, f"{c.name} lets go")
        return end_exchange(draft, f"{c.name} releases {p.name}")
    if what == "break-free":
        return _break_free(draft, c, p, modifiers)
    if what == "immobilise" and p.has("immobilised"):
        raise RuleError(f"{p.name} is already immobilised; choose inflict-pain, throw or release")
    ch = sheet_of(p).characteristics
    first, second = PENALTY[what]
    penalty = ev.Modifier(-(getattr(ch, first) + getattr(ch, second)), f"{p.name}'s {first}+{second}")
    name, value = grapple_skill(c)
    tested = test(draft, c, name, value, own_modifiers(c) + [penalty] + list(modifiers), f"{what} {p.name}")
    ok = tested.result in ("success", "critical")
    verb = {"immobilise": "immobilise", "inflict-pain": "inflict pain on", "throw": "throw"}[what]
    outcome = f"{c.name} {'manages' if ok else 'fails'} to {verb} {p.name}"
    draft.emit(GrappleManoeuvred(handle=who, partner=partner, manoeuvre=what, success=ok, outcome=outcome))
    if not ok:
        return end_exchange(draft, outcome)
    if what == "immobilise":
        draft.emit(ev.ConditionApplied(handle=partner, condition=cat.make(
            "immobilised", cause=draft.next_version, round=draft.state.round, step=draft.state.step,
            ends="event", effects={"helpless": 1}, note=f"held by {c.name}")))
        return end_exchange(draft, outcome)
    if what == "throw":
        end(draft, who, f"thrown by {c.name}")
        draft.emit(ev.CombatantMoved(handle=partner, distance=2.0, reason="thrown", away_from=who))
        draft.emit(ev.EngagementChanged(a=who, b=partner, engaged=False))
    draft.emit(ev.StepsAwaited(steps=(_damage_step(draft, c, p, what),)))


def _break_free(draft: Draft, c: Combatant, p: Combatant, modifiers) -> None:
    """Seed 004 "Break Free": a grapple attempt with the breaker as the
    defender, on Unarmed or a Natural Weapon skill; "grapple fails" frees
    him (still adjacent), and on "Grapple fails; Defender may Riposte" the
    freed breaker is offered the Riposte against his former holder."""
    name, value = grapple_skill(c)
    mine = test(draft, c, name, value, own_modifiers(c) + list(modifiers), f"break free of {p.name}")
    pname, pvalue = grapple_skill(p)
    theirs = test(draft, p, pname, pvalue, own_modifiers(p), f"hold {c.name}")
    row, col = table_level(theirs.result), table_level(mine.result)
    outcome, effects = _cell(draft, row, col)
    freed = not effects.get("grapple")
    text = f"{c.name} breaks free of {p.name}" if freed else f"{c.name} fails to break free of {p.name}"
    draft.emit(GrappleManoeuvred(handle=c.handle, partner=p.handle, manoeuvre="break-free", success=freed,
                                 outcome=f"Grapple table, {row}/{col}: {outcome}"))
    if freed:
        end(draft, c.handle, "broke free")
        if effects.get("riposte"):  # "Grapple fails; Defender may Riposte": the breaker is the defender
            draft.then("attack:offer-riposte", defender=c.handle, item=None, attacker=p.handle)
            return
    end_exchange(draft, text)


def _damage_step(draft: Draft, c: Combatant, p: Combatant, what: str) -> ev.PendingStep:
    """Inflict Pain: 1D6 + damage modifier; Throw: 1D6; both to a random
    location (seed 004). Armour counts as for any damage."""
    dmod = derive(sheet_of(c), rulings_of(draft.state)).damage_modifier if what == "inflict-pain" else ""
    dice = [ev.DiceNeed(f"{what} damage", "1D6", by=c.handle)]
    if dmod and dicelib.count_dice(dmod):
        dice.append(ev.DiceNeed("damage modifier", str(dicelib.parse(dmod.lstrip("+-"))), by=c.handle))
    dice.append(ev.DiceNeed("hit location", "1D20", by=c.handle))
    return ev.PendingStep(
        who=c.handle, verb="roll", kind="grapple-damage", dice=tuple(dice),
        data={"target": p.handle, "manoeuvre": what, "modifier": dmod},
        prompt=f"{c.name}: roll {dicelib.combine('1D6', dmod)} {what} damage and hit location 1D20 against {p.name}",
    )


def roll_damage(draft: Draft, step: ev.PendingStep, rest: tuple[ev.PendingStep, ...]) -> None:
    """The step ``roll:grapple-damage``: roll the pending Inflict Pain or
    Throw damage and apply it (ruling ``grapple_damage_armour``); its wound
    follows (``wounds:wound``)."""
    c = draft.state.combatants[step.who]
    t = draft.state.combatants[str(step.data["target"])]
    base = draft.roll("1D6", f"{step.data['manoeuvre']} damage", by=c.handle).total
    modifier = str(step.data.get("modifier", ""))
    mod = roll_damage_modifier(draft, modifier, c.handle)
    d20 = draft.roll("1D20", "hit location", by=c.handle).total
    location = location_for(t, d20)
    rolled = max(0, base + mod)
    armour = min(rolled, t.location(location).ap) if rulings_of(draft.state).grapple_damage_armour else 0
    draft.emit(ev.DamageDealt(exchange=0, target=t.handle, location=location, rolled=rolled, reduced=0, armour=armour,
                              final=rolled - armour, note=f"{step.data['manoeuvre']}: {base}{f' {mod:+d}' if modifier else ''}; d20={d20}"))
    follow: list[ev.PendingStep] = []
    if rolled - armour > 0:
        draft.then("wounds:wound", handle=t.handle, location=location, exchange=0, follow=follow)
    draft.then("exchange:carry-on", steps=rest, follow=follow, summary=f"{c.name}'s {step.data['manoeuvre']} hurts {t.name}")
