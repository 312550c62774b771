"""Combat actions that defend: Parry and Dodge (seed 000 "Combat Actions").

Parry: OB moved to parry, declared for the round (``act WHO parry N
[against=FOE]``, ``attack --situation parry=N``, or ``react WHO parry:N``
as soon as melee ensues); it holds against any one attack resolved
against the parrier during the round and adds N to its DB against it; a
stunned combatant parries with at most half its OB (seed 000 "Parry
action", "Stunned"; rules-reference.md A6).

Dodge: an Extremely Hard moving maneuver, open-ended, adding the average
of the Agility and Quickness bonuses or the Acrobatics skill; the numeric
result is added to DB; off the bottom of the column it is a fumble, off
the top the column's highest number and its text (seed 000 "Dodge
action"; A10 and the A rulings).
"""

from __future__ import annotations

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.rolemaster import conditions as cat
from affray.rules.rolemaster import core


def _amount(text: str, what: str) -> int:
    t = text.strip()
    if not t.lstrip("-").isdigit():
        raise RuleError(f"{what} takes a whole number of OB to move to parry; got {text!r}")
    return int(t)


def act_parry(draft: Draft, who: str, args: tuple[str, ...]) -> None:
    """``affray act WHO parry N [against=FOE] [with=WEAPON]``: move N of OB
    to parry for the round, at no Action Point cost (RMH: parry has "no
    affect on time")."""
    state = draft.state
    if state.phase != "round":
        raise RuleError("no round is in progress; parries are declared for a round")
    if not args:
        raise RuleError(f"say how much OB to move: 'affray act {who} parry 30 [against=FOE]'")
    amount = _amount(args[0], "parry")
    against, weapon = "", ""
    for a in args[1:]:
        key, sep, value = a.partition("=")
        if key not in ("against", "with") or not sep:
            raise RuleError(f"parry takes AMOUNT [against=FOE] [with=WEAPON]; got {a!r}")
        if key == "against":
            against = find_combatant(state, value)
        else:
            weapon = value
    core.declare_parry(draft, who, amount, against, weapon)
    if state.exchange is None and who in state.turn:
        draft.emit(ev.StepsAwaited(steps=(_turn_again(draft, who),)))


def _turn_again(draft: Draft, who: str) -> ev.PendingStep:
    """The same turn, offered again after a free declaration."""
    step = next(s for s in draft.state.pending if s.kind == "turn")
    options = tuple(o for o in step.options if o != "parry")
    c = draft.state.combatants[who]
    return ev.PendingStep(who=who, verb=step.verb, kind="turn", options=options,
                          prompt=f"{c.name} ({c.combat_actions} AP, parry declared): {' | '.join(options)}")


def react(draft: Draft, command: cmd.ChooseReaction) -> None:
    """``affray react WHO parry[:N] [--with WEAPON]|dodge|none``: answer the
    pending attack; then the attack is rolled and looked up."""
    state = draft.state
    who = find_combatant(state, command.defender)
    step = core.pending_of(state, ("react",), who)
    if step is None:
        raise RuleError(f"{state.combatants[who].name} has no attack to answer now; see 'affray pending'")
    word, _, arg = command.reaction.strip().lower().partition(":")
    if word not in step.options:
        raise RuleError(f"{state.combatants[who].name} can answer with {', '.join(step.options)}; not {command.reaction!r}")
    x = state.exchange
    draft.emit(ev.ReactionChosen(exchange=x.id, handle=who, reaction=word, with_item=command.with_item))
    parry, dodge = 0, 0
    if word == "parry":
        parry = _use_parry(draft, who, arg, command.with_item)
    elif word == "dodge":
        dodge = _dodge(draft, who, command.modifiers)
        c = draft.state.combatants[who]
        stack = core.rulings_of(state).dodge_and_parry == "stack"
        if stack and core.parry_declared(c) is not None and not core.may_parry(draft.state, c, x.attacker, x.kind != "missile"):
            parry = _use_parry(draft, who, "")
    if draft.state.combatants[who].status != "active":
        core.end_exchange(draft, f"{state.combatants[who].name} falls while dodging")
        return
    draft.then("attack:roll", exchange=x.id, parry=parry, dodge=dodge)


def _use_parry(draft: Draft, who: str, arg: str, weapon: str = "") -> int:
    """The parry's DB against this attack: the round's declared amount, or
    ``arg`` declared now; half against a missile with a shield (ruling
    ``parry_missiles``). It is used up: one attack per round."""
    state = draft.state
    x = state.exchange
    c = state.combatants[who]
    declared = core.parry_declared(c)
    if declared is None:
        if not arg:
            raise RuleError(f"say how much OB {c.name} moves to parry: 'affray react {who} parry:N' (at most {core.parry_limit(c, weapon)})")
        core.declare_parry(draft, who, _amount(arg, "parry"), x.attacker, weapon)
        declared = core.parry_declared(draft.state.combatants[who])
    elif arg and _amount(arg, "parry") != declared.effects.get("parry", 0):
        raise RuleError(f"{c.name} declared {declared.effects.get('parry', 0)} of OB to parry this round; answer 'parry'")
    amount = declared.effects.get("parry", 0)
    if x.kind == "missile":
        amount //= 2
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "parry-used", cause=draft.next_version, round=state.round, step=state.step, ends="round-end",
        effects={f"from:{x.attacker}": 1}, note=f"parried {state.combatants[x.attacker].name} for {amount}")))
    pending = core.declared_of(draft.state.combatants[who])
    if pending is not None and not pending.effects.get("committed"):
        # RMH "Parry": the declared attack's AP "are considered spent once the parry is used"
        draft.emit(ev.ConditionApplied(handle=who, condition=core.merged(pending, committed=1)))
    return amount


def _dodge(draft: Draft, who: str, modifiers) -> int:
    """Roll the dodge and return what it adds to DB (seed 000 "Dodge
    action"): the moving-maneuver table's Extremely Hard column, or with
    no table the static bands' percentage (ruling ``dodge_without_table``)."""
    state = draft.state
    c = state.combatants[who]
    why = core.may_dodge(state, c)
    if why:
        raise RuleError(why)
    r = core.rulings_of(state)
    if r.dodge_ap == "rest-of-round":
        core.spend(draft, who, min(4, c.combat_actions), "dodge")
    s = core.sheet_of(c)
    avg = (s.stats.agility.bonus + s.stats.quickness.bonus) // 2
    acro = s.skill("acrobatics")
    parts = [ev.Modifier(acro, "Acrobatics") if acro > avg else ev.Modifier(avg, "average of Ag and Qu bonuses")]
    parts += list(core.maneuver_penalty(state, c)) + list(modifiers)
    declared = core.parry_declared(c)
    x = state.exchange
    value = core.moving_maneuver(draft, who, "dodge", "extremely-hard", parts, exchange=x.id)
    if declared is not None and r.dodge_and_parry == "parry-only":
        value = 0
    if value:
        draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
            "dodging", cause=draft.next_version, round=state.round, step=state.step, ends="round-end",
            effects={"dodge-db": value}, note=f"+{value} DB against {state.combatants[x.attacker].name}")))
    return value
