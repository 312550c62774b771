"""The one door from :mod:`affray.rules.mrq1.system` to the rules added on
top of the melee core: grappling (:mod:`.grapple`), Hero Points
(:mod:`.heroes`), unarmed and natural weapons (:mod:`.unarmed`) and mounted
combat (:mod:`.mounted`).

:func:`decide` either handles a command completely (returns True) or checks
it against these rules and leaves it to the core (returns False). Source:
seed 004, the sections each module names.
"""

from __future__ import annotations

from affray.commands import types as cmd
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.mrq1 import grapple, unarmed


def decide(draft: Draft, command: cmd.Command) -> bool:
    """Handle ``command`` if it belongs to these rules; else check the core
    command against them (raising :class:`RuleError`) and return False."""
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
                grapple.act(draft, who, what, command.modifiers)
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
            if not any(s.who == who and s.verb == "react" for s in state.pending):
                grapple.restricted(state, who, "use Reactions")
            if command.reaction.strip().lower() == "parry":
                unarmed.check_parry(state, who, command.with_item)
                if unarmed.parry_unarmed(draft, who, command):
                    return True
        case cmd.RollPending():
            who = find_combatant(state, command.who) if command.who else ""
            step = next((s for s in state.pending if s.verb == "roll" and (not who or s.who == who)), None)
            if step is not None and step.kind in grapple.KINDS:
                grapple.roll_damage(draft, step, tuple(s for s in state.pending if s is not step))
                return True
            if step is not None and step.kind in unarmed.KINDS:
                unarmed.roll_step(draft, step, tuple(s for s in state.pending if s is not step))
                return True
            if step is not None and step.kind == "damage" and unarmed.is_unarmed_attack(state):
                from affray.rules.mrq1 import damage

                damage.roll_step(draft, who)
                unarmed.lay_hold(draft)
                return True
        case cmd.MakeChoice():
            who = find_combatant(state, command.who)
            step = next((s for s in state.pending if s.who == who and s.kind == "lay-hold"), None)
            if step is not None:
                unarmed.choose(draft, step, command.option)
                return True
        case cmd.DeclareAttack():
            who = find_combatant(state, command.attacker)
            grapple.restricted(state, who, "make a normal attack")
            from affray.rules.mrq1 import mounted

            mounted.check_attack(state, who, find_combatant(state, command.target), command.weapon)
            from affray.rules.mrq1 import attack

            attack.declare_attack(draft, who, find_combatant(state, command.target), command.weapon, command.modifiers, command.situations)
            unarmed.offer_bare_parry(draft)
            return True
        case cmd.TakeAction():
            if command.action.strip().lower() != "pass":
                grapple.restricted(state, find_combatant(state, command.who), command.action)
            if command.action.strip().lower() == "yank":
                unarmed.self_yank(draft, find_combatant(state, command.who))
                return True
    return False
