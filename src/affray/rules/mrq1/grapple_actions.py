"""The special Combat Actions of grappling combatants in mrq1.

Source: seed 004 "Grappling Combatants": Break Free (a grapple attempt with
the breaker as defender, Unarmed or Natural Weapon skill only), Immobilise
(Unarmed test at minus the opponent's DEX+STR; the opponent is helpless),
Inflict Pain (minus DEX+CON; 1D6 + damage modifier to a random location),
Throw (minus DEX+SIZ; thrown 2 metres, 1D6 to a random location, the grapple
ends); and our ruling ``release`` (see :mod:`.grapple`).
"""

from __future__ import annotations

from affray import dice as dicelib
from affray.events import core as ev
from affray.events.mrq1 import GrappleManoeuvred
from affray.projections.state import Combatant
from affray.rules.d100 import roll_damage_modifier
from affray.rules.base import Draft, RuleError
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1.attack import _require_turn, end_exchange
from affray.rules.mrq1.common import rulings_of, sheet_of, table_level, test
from affray.rules.mrq1.grapple import MANOEUVRES, PENALTY, _cell, _spend, end, grapple_skill, own_modifiers, partner_of
from affray.rules.mrq1.sheet import derive


# --------------------------------------------------------------------------- #
# Grappling combatants
# --------------------------------------------------------------------------- #


def turn_step(state, c: Combatant, pass_no: int) -> ev.PendingStep | None:
    """A grappling combatant's turn: only the special Combat Actions (seed
    004 "Grappling Combatants"), or pass. None when ``c`` is not grappling."""
    partner = partner_of(c)
    if not partner:
        return None
    from affray.rules.mrq1.common import ordinal

    p = state.combatants[partner]
    return ev.PendingStep(
        who=c.handle, verb="grapple", kind="turn", options=MANOEUVRES + ("pass",),
        dice=(ev.DiceNeed(f"{c.name}'s Unarmed test", "1D100", by=c.handle),
              ev.DiceNeed(f"{p.name}'s opposed test (break-free only)", "1D100", by=partner)),
        prompt=f"{c.name} ({ordinal(pass_no)} combat action, grappling {p.name}): {' | '.join(MANOEUVRES)} | pass",
    )


def act(draft: Draft, who: str, manoeuvre: str, modifiers) -> None:
    """A grapple manoeuvre: as a combat action on ``who``'s turn, or free as
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
        from affray.rules.mrq1.attack import take_action

        return take_action(draft, who, "pass")
    if manoeuvre not in MANOEUVRES:
        raise RuleError(f"unknown grapple manoeuvre {manoeuvre!r}; use attack, {', '.join(MANOEUVRES)}")
    _require_turn(state, who)
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
    him (still adjacent)."""
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
    """Roll the pending Inflict Pain or Throw damage and apply it."""
    from affray.rules.mrq1.damage import _continue
    from affray.rules.mrq1.wounds import location_for, wound

    c = draft.state.combatants[step.who]
    t = draft.state.combatants[str(step.data["target"])]
    base = draft.roll("1D6", f"{step.data['manoeuvre']} damage", by=c.handle).total
    modifier = str(step.data.get("modifier", ""))
    mod = roll_damage_modifier(draft, modifier, c.handle)
    d20 = draft.roll("1D20", "hit location", by=c.handle).total
    location = location_for(t, d20)
    rolled = max(0, base + mod)
    from affray.rules.mrq1.rulings import from_mapping

    armour = min(rolled, t.location(location).ap) if from_mapping(draft.state.rulings).grapple_damage_armour else 0
    draft.emit(ev.DamageDealt(exchange=0, target=t.handle, location=location, rolled=rolled, reduced=0, armour=armour,
                              final=rolled - armour, note=f"{step.data['manoeuvre']}: {base}{f' {mod:+d}' if modifier else ''}; d20={d20}"))
    follow = wound(draft, t.handle, location, 0) if rolled - armour > 0 else []
    _continue(draft, rest + tuple(follow), f"{c.name}'s {step.data['manoeuvre']} hurts {t.name}")
