"""Free attacks in mrq1: offering them, answering them, and what their
damage does to the action that drew them.

Source: seed 004 "Free Attacks"; what the damage does: "Cast Spell"
(Persistence), "Ready Weapon" (Dodge), "Change Stance" (Athletics), "Move",
"Sprint", "Charge" (halved), "Ranged Attack" (fails).

An action that draws free attacks waits for them: an ``acting`` condition
on the actor holds the action's text, and each adjacent enemy is asked in
turn (``affray react ENEMY attack|none``). When all have answered, the
action goes on with what the free attacks did: "if the free attack causes
damage" is read as "the actor lost hit points".

Steps: ``free-attacks:offer`` (queued by an action that draws free
attacks), ``react:free-attack`` (an enemy's answer; an attack opens an
exchange with ``attack:open``), ``free-attacks:resume`` (after each free
attack's exchange), ``roll:free-attack-test`` and ``roll:action-roll``.
The action is then carried out by the step ``finish:WORD`` (its module's
finisher, see the steps table in :mod:`.system`).
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.events import core as ev
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError
from affray.rules.mrq1.core import (
    ALWAYS_READY,
    Spec,
    acting,
    apply,
    attack_modifiers,
    await_roll,
    break_aim,
    can_react,
    done,
    note,
    parse,
    default_weapon,
    find_weapon,
    held,
    sheet_of,
    skill,
    test,
    test_modifiers,
    total_hp,
)
from affray.rules.mrq1.sheet import Weapon


# --------------------------------------------------------------------------- #
# Offering and answering
# --------------------------------------------------------------------------- #


def _free_attack_weapon(c: Combatant) -> Weapon | None:
    try:
        w = default_weapon(c)
    except RuleError:
        return None
    if w.kind == "ranged":  # free attacks are always close combat attacks
        close = [x for x in held(c) if x.kind != "ranged"]
        if close:
            return close[0]
        return next((x for x in sheet_of(c).weapons if x.kind in ALWAYS_READY), None)
    return w


def _eligible(state: State, enemy: str, actor: str) -> bool:
    e = state.combatants.get(enemy)
    if e is None or e.side == state.combatants[actor].side:
        return False
    return not can_react(state, enemy, actor) and _free_attack_weapon(e) is not None


def with_free_attacks(draft: Draft, who: str, spec: Spec, enemies: list[str], trigger: str, *, bonus: int = 0) -> None:
    """The step ``free-attacks:offer``: offer each of ``enemies`` a free
    attack on ``who`` in turn, then go on with the action
    (:func:`complete`). ``trigger`` names the action; ``bonus``: Sprint's
    +20%."""
    state = draft.state
    asked = [h for h in dict.fromkeys(enemies) if _eligible(state, h, who)]
    if not asked:
        complete(draft, who, spec, damaged=False, suspended=False)
        return
    effects = {"hp": total_hp(state.combatants[who]), "bonus": bonus}
    effects.update({f"ask:{h}": 1 for h in asked})
    apply(draft, who, "acting", ends="event", effects=effects, note=spec.text())
    names = " and ".join(state.combatants[h].name for h in asked)
    note(draft, who, "free-attacks", f"{names} may make a free attack on {state.combatants[who].name} ({trigger})")
    _offer_next(draft, who)


def _offer_next(draft: Draft, who: str) -> None:
    state = draft.state
    c = state.combatants[who]
    cond = acting(c)
    assert cond is not None
    for key, flag in cond.effects.items():
        if not key.startswith("ask:") or not flag:
            continue
        enemy = key[4:]
        if not _eligible(state, enemy, who) or c.status != "active":
            _answered(draft, who, enemy)
            return _offer_next(draft, who)
        e = state.combatants[enemy]
        weapon = _free_attack_weapon(e)
        bonus = cond.effects.get("bonus", 0)
        what = parse(cond.note).word
        await_roll(draft, enemy, "react", "free-attack",
                   f"{e.name} may make a free attack on {c.name} ({what}{f', +{bonus}%' if bonus else ''}; costs a reaction): attack | none",
                   f"{e.name}'s free attack roll", options=("attack", "none"),
                   data={"actor": who, "weapon": weapon.name if weapon else ""})
        return
    resume(draft, who)


def _answered(draft: Draft, who: str, enemy: str) -> None:
    c = draft.state.combatants[who]
    cond = acting(c)
    assert cond is not None
    draft.emit(ev.ConditionApplied(handle=who, condition=replace(cond, effects={**cond.effects, f"ask:{enemy}": 0})))


def free_attack(draft: Draft, step: ev.PendingStep, reaction: str, with_item: str, modifiers, situations) -> None:
    """The step ``react:free-attack``: ``affray react ENEMY attack|none`` at a free attack offer. A free
    attack is a single close combat attack, never a charge, flurry or
    precise attack; it costs a Reaction and may be parried or dodged."""
    state = draft.state
    enemy, who = step.who, str(step.data["actor"])
    e, c = state.combatants[enemy], state.combatants[who]
    for s in situations:
        if s.split("=")[0].strip().lower() in ("charge", "flurry", "precise", "range", "off-hand"):
            raise RuleError("free attacks are single close combat attacks: no charge, flurry or precise attack (seed 004)")
    _answered(draft, who, enemy)
    if reaction == "none":
        note(draft, enemy, "free-attack", f"{e.name} lets {c.name} go")
        _offer_next(draft, who)
        return
    weapon = find_weapon(e, with_item) if with_item else find_weapon(e, str(step.data["weapon"]), ready_only=False)
    if weapon.kind == "ranged":
        raise RuleError("free attacks must always be close combat attacks (seed 004); name a close combat weapon with --with")
    draft.emit(ev.ActionSpent(handle=enemy, kind="reaction", reason=f"free attack on {c.name}"))
    break_aim(draft, enemy, "makes a free attack")
    mods = attack_modifiers(draft.state, enemy, who, modifiers, situations)
    bonus = (acting(c).effects.get("bonus", 0)) if acting(c) else 0
    if bonus:
        mods.append(ev.Modifier(bonus, "free attack on a sprinting enemy"))
    draft.then("attack:open", attacker=enemy, target=who, weapon=weapon, exchange_kind="free", mods=mods)


def resume(draft: Draft, who: str) -> None:
    """The step ``free-attacks:resume``: after a free attack's exchange, offer
    the next one; once every free attack has been answered, go on with the
    action."""
    state = draft.state
    c = state.combatants[who]
    cond = acting(c)
    assert cond is not None
    if any(k.startswith("ask:") and v and _eligible(state, k[4:], who) for k, v in cond.effects.items()) and c.status == "active":
        _offer_next(draft, who)
        return
    spec = parse(cond.note)
    damaged = total_hp(c) < cond.effects.get("hp", 0)
    draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="the free attacks are over"))
    if not c.can_fight:
        note(draft, who, spec.word, f"{c.name} is down: the {spec.word} is lost")
        done(draft)
        return
    complete(draft, who, spec, damaged=damaged, suspended=True)


# --------------------------------------------------------------------------- #
# Consequences
# --------------------------------------------------------------------------- #

# The consequence of a free attack's damage, when it takes a test.
_TESTS = {"cast": ("Persistence", "or the spell fails"), "ready": ("Dodge", "or drop the weapon"),
          "reload": ("Dodge", "or drop the weapon"), "stance": ("Athletics", "or stay prone")}


def complete(draft: Draft, who: str, spec: Spec, *, damaged: bool, suspended: bool, passed: bool | None = None) -> None:
    """Carry the action out, with what the free attacks did: a test their
    damage calls for, the attack roll of a shot or a charge, then the step
    ``finish:WORD`` (``damaged``: they did damage; ``passed``: the test)."""
    word = "stance" if spec.word == "stand" else spec.word
    c = draft.state.combatants[who]
    needs_test = word in _TESTS and damaged and passed is None
    if word == "stance" and (spec.args[:1] != ["standing"] and spec.word != "stand" or c.stance != "prone"):
        needs_test = False  # only standing up from prone has a consequence
    if needs_test:
        skill_name, what = _TESTS[word]
        await_roll(draft, who, "roll", "free-attack-test", f"{c.name}: the free attack did damage: {skill_name} test {what}",
                   f"{skill_name} (free attack)", data={"spec": spec.text(), "skill": skill_name})
        return
    if word in ("shoot", "charge") and suspended and not damaged:
        await_roll(draft, who, "roll", "action-roll", f"{c.name}: roll the {'ranged' if word == 'shoot' else 'charge'} attack",
                   "attack roll", data={"spec": spec.text()})
        return
    draft.then("finish:" + spec.word, who=who, spec=spec, damaged=damaged, passed=passed)


def roll_free_attack_test(draft: Draft, step: ev.PendingStep, rest) -> None:
    """The step ``roll:free-attack-test``: the test a free attack's damage
    calls for (Persistence, Dodge, Athletics; see ``_TESTS``)."""
    who = step.who
    c = draft.state.combatants[who]
    name = str(step.data["skill"])
    tested = test(draft, c, name, skill(c, name), test_modifiers(c, name), f"{name} after a free attack's damage")
    complete(draft, who, parse(str(step.data["spec"])), damaged=True, suspended=True,
             passed=tested.result in ("success", "critical"))


def roll_action(draft: Draft, step: ev.PendingStep, rest) -> None:
    """The step ``roll:action-roll``: the attack roll of a shot or charge
    the free attacks did not spoil; the action's ``finish:WORD`` rolls it."""
    spec = parse(str(step.data["spec"]))
    draft.then("finish:" + spec.word, who=step.who, spec=spec, damaged=False, passed=None)
