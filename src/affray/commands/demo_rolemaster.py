"""The rolemaster autopilot for ``affray demo --system rolemaster``:
``next_command(state)`` answers the first pending step as a sensible
player would (seed 000): attack the nearest foe, keeping a quarter of OB
back to parry while the foe can still strike this round; parry with what
was declared, or declare a quarter of what may be moved; dodge when unarmed;
stand up when prone; pick a weapon back up; roll what is asked.
(Must not import :mod:`affray.commands.demo`.)"""

from __future__ import annotations

from affray.events import commands as cmd
from affray.projections.state import State


def _weapons(c) -> list[dict]:
    return [w for w in c.sheet.get("weapons", []) if w.get("kind") in ("melee", "missile")]


def next_command(state: State) -> cmd.Command | None:
    """A command for the first pending step, or None when nothing is pending."""
    if state.phase in ("over", "closed") or not state.pending:
        return None
    step = state.pending[0]
    if step.kind == "start":
        return cmd.StartRound()
    if step.kind == "end-round":
        return cmd.EndRound()
    if step.verb == "roll":
        return cmd.RollPending(who=step.who)
    if step.kind == "resolve":  # a declared action's count came while someone holds one
        return cmd.TakeAction(who=step.who, action="resolve")
    me = state.combatants.get(step.who)
    if step.kind == "react":
        if "dodge" in step.options:
            return cmd.ChooseReaction(defender=step.who, reaction="dodge")
        if "parry" in step.options:
            if any(k.name == "parrying" for k in me.conditions):
                return cmd.ChooseReaction(defender=step.who, reaction="parry")
            held = [w for w in _weapons(me) if w["name"] in me.ready and w.get("kind") == "melee"]
            ob = held[0].get("ob", 0) if held else 0
            amount = max(1, (ob // 2 if any(k.effects.get("half-parry") for k in me.conditions) else ob) // 4)
            return cmd.ChooseReaction(defender=step.who, reaction=f"parry:{amount}")
        return cmd.ChooseReaction(defender=step.who, reaction="none")
    if step.kind != "turn":
        return None
    if "stand" in step.options:
        return cmd.TakeAction(who=step.who, action="stand")
    if "draw" in step.options:
        spare = next(w["name"] for w in _weapons(me) if w["name"] not in me.ready)
        return cmd.TakeAction(who=step.who, action=f"draw '{spare}'")
    foes = sorted((c for c in state.combatants.values() if c.side != me.side and c.can_fight),
                  key=lambda c: (c.handle not in me.engaged, c.handle))
    if "attack" not in step.options or not foes:
        return cmd.TakeAction(who=step.who, action="pass")
    foe = foes[0]
    situations: tuple[str, ...] = ()
    held = [w for w in _weapons(me) if w["name"] in me.ready and w.get("kind") == "melee"]
    foe_may_strike = foe.combat_actions > 0 and not foe.effect("cannot-attack")
    if held and "parry" in step.options and foe_may_strike:
        situations = (f"parry={held[0].get('ob', 0) // 4}",)
    return cmd.DeclareAttack(attacker=step.who, target=foe.handle, situations=situations)
