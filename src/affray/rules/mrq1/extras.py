"""The one door from :mod:`affray.rules.mrq1.system` to the rules added on
top of the melee core: grappling (:mod:`.grapple`), Hero Points
(:mod:`.heroes`), unarmed and natural weapons (:mod:`.unarmed`) and mounted
combat (:mod:`.mounted`).

:func:`decide` handles the commands and steps that are these rules' own
(returns True); for the core's commands, :func:`prepare` checks them and adds
what these rules add, and :func:`after` follows up on the core's events.
Source: seed 004, the sections each module names.
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.events import commands as cmd
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.mrq1 import attack, grapple, grapple_actions, mounted, unarmed
from affray.rules.mrq1.common import default_weapon, find_weapon, sheet_of


def decide(draft: Draft, command: cmd.Command) -> bool:
    """Handle ``command`` completely if it belongs to these rules (their own
    commands, actions and pending steps) and return True; else False."""
    state = draft.state
    match command:
        case cmd.Grapple():
            who = find_combatant(state, command.who)
            what = command.manoeuvre.strip().lower()
            if what == "attack":
                if not command.target:
                    raise RuleError("a grapple attack needs a target: affray grapple WHO attack TARGET")
                grapple.declare(draft, who, find_combatant(state, command.target), command.weapon, command.modifiers, command.situations)
            else:
                grapple_actions.act(draft, who, what, command.modifiers)
            return True
        case cmd.SpendHeroPoint():
            from affray.rules.mrq1 import heroes

            heroes.spend(draft, find_combatant(state, command.who), command)
            return True
        case cmd.ChooseReaction():
            who = find_combatant(state, command.defender)
            if any(s.who == who and s.kind == "grapple-defence" for s in state.pending):
                grapple.resist(draft, who, command.reaction, command.with_item, command.modifiers, command.situations)
                return True
        case cmd.RollPending():
            who = find_combatant(state, command.who) if command.who else ""
            step = next((s for s in state.pending if s.verb == "roll" and (not who or s.who == who)), None)
            if step is not None and step.kind in grapple.KINDS:
                grapple_actions.roll_damage(draft, step, tuple(s for s in state.pending if s is not step))
                return True
            if step is not None and step.kind in unarmed.KINDS:
                unarmed.roll_step(draft, step, tuple(s for s in state.pending if s is not step))
                return True
            if step is not None and step.kind == "riding":
                mounted.roll_riding(draft, step, tuple(s for s in state.pending if s is not step))
                return True
        case cmd.MakeChoice():
            who = find_combatant(state, command.who)
            step = next((s for s in state.pending if s.who == who and s.kind == "lay-hold"), None)
            if step is not None:
                unarmed.choose(draft, step, command.option)
                return True
        case cmd.Mount():
            rider = find_combatant(state, command.rider)
            m = find_combatant(state, command.mount) if command.mount else ""
            if not command.off and not m:
                raise RuleError("name the mount: affray mount RIDER MOUNT (or --off to dismount)")
            mounted.mount(draft, rider, m, command.off)
            return True
        case cmd.TakeAction():
            if command.action.strip().lower() == "flee":
                mounted.flee(draft, find_combatant(state, command.who))
                return True
            if command.action.strip().lower() == "yank":
                grapple.restricted(state, find_combatant(state, command.who), "yank")
                unarmed.self_yank(draft, find_combatant(state, command.who))
                return True
    return False


def prepare(draft: Draft, command: cmd.Command) -> cmd.Command:
    """Check a core command against these rules and return it with what they
    add (mounted-combat modifiers, the parrying item, a dice wrapper for
    re-rolled hit locations); the core then decides it as usual."""
    state = draft.state
    match command:
        case cmd.ChooseReaction():
            who = find_combatant(state, command.defender)
            if not any(s.who == who and s.verb == "react" for s in state.pending):
                grapple.restricted(state, who, "use Reactions")
            reaction = command.reaction.strip().lower()
            x = state.exchange
            if reaction not in ("parry", "dodge") or x is None or not any(s.who == who and s.kind == "react" for s in state.pending):
                return command
            c = state.combatants[who]
            item = None
            if reaction == "parry":
                unarmed.check_parry(state, who, command.with_item)
                if command.with_item:
                    item = find_weapon(c, command.with_item)
                elif any(w.name in c.ready and w.kind != "ranged" for w in sheet_of(c).weapons):
                    item = attack._default_parry(c)
                else:
                    item = next((w for w in sheet_of(c).weapons if w.kind in ("unarmed", "natural")), None)
                if item is not None:
                    mounted.check_weapon(c, item)
                    command = replace(command, with_item=item.name)
            tall, situations = _as_tall(command.situations)
            extra = mounted.skill_modifiers(state, who, x.attacker, item, attacking=False, as_tall=tall)
            return replace(command, modifiers=tuple(command.modifiers) + tuple(extra), situations=situations)
        case cmd.DeclareAttack():
            who = find_combatant(state, command.attacker)
            target = find_combatant(state, command.target)
            grapple.restricted(state, who, "make a normal attack")
            mounted.check_attack(state, who, target, command.weapon)
            a = state.combatants[who]
            w = find_weapon(a, command.weapon) if command.weapon else default_weapon(a)
            tall, situations = _as_tall(command.situations)
            extra = mounted.skill_modifiers(state, who, target, w, attacking=True, as_tall=tall)
            if not extra:  # the core picks the weapon (the off-hand item for a two-weapon bonus attack)
                return replace(command, situations=situations)
            return replace(command, weapon=w.name, modifiers=tuple(command.modifiers) + tuple(extra), situations=situations)
        case cmd.RollPending():
            step = next((s for s in state.pending if s.verb == "roll"), None)
            excluded = mounted.excluded_locations(state) if step is not None and step.kind == "damage" else ()
            if excluded:
                draft.dice = mounted.RerollLocations(draft, excluded, state.combatants[state.exchange.target])
        case cmd.TakeAction():
            gm = command.who.strip().lower() == "gm" and "gm" not in state.combatants  # the GM's area effect
            if command.action.strip().lower() != "pass" and not gm:
                grapple.restricted(state, find_combatant(state, command.who), command.action)
    return command


def turn_step(state, c, pass_no: int):
    """A restricted turn: a grappling combatant's or a fleeing mount's."""
    return grapple_actions.turn_step(state, c, pass_no) or mounted.flee_step(state, c)


def after(draft: Draft, command: cmd.Command) -> None:
    """After the core decided: bare-handed parries on offer against an unarmed
    or natural attack, the injury of a parried unarmed attack, laying hold of
    an impaling weapon, and the Riding tests that open a round."""
    from affray.events import core as ev

    match command:
        case cmd.DeclareAttack():
            unarmed.offer_bare_parry(draft)
        case cmd.ChooseReaction():
            unarmed.after_parry(draft)
        case cmd.RollPending():
            if draft.start.exchange is not None and unarmed.is_unarmed_attack(draft.start):
                unarmed.lay_hold(draft)
    if any(isinstance(e, ev.RoundStarted) for e in draft.events):
        mounted.riding_steps(draft)


def _as_tall(situations) -> tuple[bool, tuple[str, ...]]:
    """Whether the GM named the footman as tall as the rider (``--situation
    as-tall``), and the other situations (the core's own keys)."""
    rest = tuple(s for s in situations if s.strip().lower() != mounted.AS_TALL)
    return len(rest) != len(tuple(situations)), rest
