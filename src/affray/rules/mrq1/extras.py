"""The one door from :mod:`affray.rules.mrq1.system` to the rules added on
top of the melee core: grappling (:mod:`.grapple`), Hero Points
(:mod:`.heroes`), unarmed and natural weapons (:mod:`.unarmed`) and mounted
combat (:mod:`.mounted`).

:func:`decide` either handles a command completely (returns True) or checks
it against these rules and leaves it to the core (returns False). Source:
seed 004, the sections each module names.
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.commands import types as cmd
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.mrq1 import attack, grapple, mounted, unarmed
from affray.rules.mrq1.common import default_weapon, find_weapon, sheet_of


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
            if any(s.who == who and s.kind == "react" for s in state.pending):
                return _react(draft, who, command)
        case cmd.RollPending():
            who = find_combatant(state, command.who) if command.who else ""
            step = next((s for s in state.pending if s.verb == "roll" and (not who or s.who == who)), None)
            if step is not None and step.kind in grapple.KINDS:
                grapple.roll_damage(draft, step, tuple(s for s in state.pending if s is not step))
                return True
            if step is not None and step.kind in unarmed.KINDS:
                unarmed.roll_step(draft, step, tuple(s for s in state.pending if s is not step))
                return True
            if step is not None and step.kind == "riding":
                mounted.roll_riding(draft, step, tuple(s for s in state.pending if s is not step))
                return True
            excluded = mounted.excluded_locations(state) if step is not None and step.kind == "damage" else ()
            if excluded or (step is not None and step.kind == "damage" and unarmed.is_unarmed_attack(state)):
                from affray.rules.mrq1 import damage

                if excluded:
                    draft.dice = mounted.RerollLocations(draft, excluded, state.combatants[state.exchange.target])
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
            target = find_combatant(state, command.target)
            grapple.restricted(state, who, "make a normal attack")
            mounted.check_attack(state, who, target, command.weapon)
            a = state.combatants[who]
            w = find_weapon(a, command.weapon) if command.weapon else default_weapon(a)
            extra = mounted.skill_modifiers(state, who, target, w, attacking=True)
            attack.declare_attack(draft, who, target, w.name, tuple(command.modifiers) + tuple(extra), command.situations)
            unarmed.offer_bare_parry(draft)
            return True
        case cmd.Mount():
            rider = find_combatant(state, command.rider)
            m = find_combatant(state, command.mount) if command.mount else ""
            if not command.off and not m:
                raise RuleError("name the mount: affray mount RIDER MOUNT (or --off to dismount)")
            mounted.mount(draft, rider, m, command.off)
            return True
        case cmd.TakeAction():
            if command.action.strip().lower() != "pass":
                grapple.restricted(state, find_combatant(state, command.who), command.action)
            if command.action.strip().lower() == "flee":
                mounted.flee(draft, find_combatant(state, command.who))
                return True
            if command.action.strip().lower() == "yank":
                unarmed.self_yank(draft, find_combatant(state, command.who))
                return True
    return False


def _react(draft: Draft, who: str, command: cmd.ChooseReaction) -> bool:
    """A parry or dodge with the mounted-combat modifiers and checks, and the
    unarmed-parry consequence; other reactions go to the core."""
    state = draft.state
    reaction = command.reaction.strip().lower()
    x = state.exchange
    if reaction not in ("parry", "dodge") or x is None:
        return False
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
    extra = mounted.skill_modifiers(state, who, x.attacker, item, attacking=False)
    command = replace(command, modifiers=tuple(command.modifiers) + tuple(extra))
    if unarmed.parry_unarmed(draft, who, command):
        return True
    attack.react(draft, who, reaction, command.with_item, command.modifiers, command.situations)
    return True


def turn_step(state, c, pass_no: int):
    """A restricted turn: a grappling combatant's or a fleeing mount's."""
    return grapple.turn_step(state, c, pass_no) or mounted.flee_step(state, c)


def after(draft: Draft, command: cmd.Command) -> None:
    """After the core decided: a new round opens with the Riding tests for
    untrained mounts (seed 004 "Untrained Mounts")."""
    from affray.events import core as ev

    if any(isinstance(e, ev.RoundStarted) for e in draft.events):
        mounted.riding_steps(draft)
