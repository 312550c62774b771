"""The rolemaster autopilot for ``affray demo --system rolemaster``:
``next_command(state)`` answers the first pending step as a sensible
player would (seed 000): attack the nearest foe, keeping a quarter of OB
back to parry while the foe can still strike before the parry ends (this
round, or on the countdown within the attack's "attack time"); parry with what
was declared, or declare a quarter of what may be moved; dodge when unarmed;
stand up when prone; pick a weapon back up; roll what is asked.
(Must not import :mod:`affray.commands.demo`.)"""

from __future__ import annotations

from affray.events import commands as cmd
from affray.projections.state import State


def _weapons(c) -> list[dict]:
    return [w for w in c.sheet.get("weapons", []) if w.get("kind") in ("melee", "missile")]


def _strikes_in_time(state: State, me, foe) -> bool:
    """Whether ``foe``'s attack may resolve while my parry holds. Under the
    countdown with actions resolving when their AP are spent, a parry
    declared with an attack holds for its attack time (seed 000 "Parry
    action"): until my full attack resolves, 5 x AP down the count; the
    foe's declared attack, or a full one it may still declare, must
    resolve by then. Otherwise the parry holds for the round."""
    r = state.rulings
    if r.get("turn_order", "countdown") != "countdown" or r.get("resolution", "when-spent") != "when-spent" \
            or r.get("parry_time", "attack-time") != "attack-time":
        return True
    mine = state.action_no - 5 * min(4, me.combat_actions)
    declared = next((k for k in foe.conditions if k.name == "declared"), None)
    if declared is not None:
        return declared.effects.get(f"target:{me.handle}", 0) == 1 and declared.effects.get("resolve", 0) >= mine
    rank = next((e.rank for e in state.order if e.handle == foe.handle), 0)
    return rank + 5 * foe.combat_actions - 5 * min(4, foe.combat_actions) >= mine


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
    foe_may_strike = foe.combat_actions > 0 and not foe.effect("cannot-attack") and _strikes_in_time(state, me, foe)
    if held and "parry" in step.options and foe_may_strike:
        situations = (f"parry={held[0].get('ob', 0) // 4}",)
    return cmd.DeclareAttack(attacker=step.who, target=foe.handle, situations=situations)
