"""The rq3 autopilot for ``affray demo --system rq3`` (seed 002): a
sensible answer to every pending step. Each fighter states "single move and
two melee actions" (attack and parry with its first ready weapon, with a
trained parry tactic when it has one; attack and dodge when the weapon
cannot parry; "double" while prone, to stand), engages the nearest foe,
tries to close on a longer weapon, attacks when its weapon reaches and
passes otherwise, parries or dodges every hit."""

from __future__ import annotations

from affray.events import commands as cmd
from affray.projections.state import State
from affray.rules.rq3 import core


def _foe(state: State, handle: str) -> str:
    me = state.combatants[handle]
    foes = [c for c in core.fighters(state) if c.side != me.side]
    foes.sort(key=lambda c: (c.handle not in me.engaged, c.handle))
    return foes[0].handle if foes else ""


def _intent(state: State, handle: str) -> str:
    me = state.combatants[handle]
    foe = _foe(state, handle)
    w = core.weapon_of(me, me.ready[0]) if me.ready else None
    if w is None:
        return "intent triple"
    attack = f"attack:{foe}:{w.name}:{w.modes[0]}"
    if w.parry:
        tactic = next((t for t in w.tactics if t in ("@glancing",)), "")
        defend = f"parry:{foe}:{w.name}" + (f":{tactic}" if tactic else "")
    else:
        defend = f"dodge:{foe}"
    lame = any(x.name in ("useless-limb", "severed") and "leg" in x.location for x in me.conditions)
    if me.stance != "standing" and not lame:
        return f"intent double {attack}"
    return f"intent single {attack} {defend}"


def _move(state: State, handle: str) -> str:
    me = state.combatants[handle]
    if me.stance != "standing":
        lame = any(x.name in ("useless-limb", "severed") and "leg" in x.location for x in me.conditions)
        intent = core.intent_of(me)
        can = not lame and not me.has("fallen-this-round") and intent is not None and intent.effects.get("moves", 1) >= 2
        return "move stand" if can else "move stay"
    foe = _foe(state, handle)
    if not foe:
        return "move stay"
    if foe not in me.engaged:
        return f"move engage {foe}"
    own = core.engagement_range(core.longest_declared_weapon(me))
    if core.reach(me, foe) > own:
        return f"move close {foe}"
    return "move stay"


def next_command(state: State) -> cmd.Command | None:
    """The command answering the first pending step (None when done)."""
    if state.phase in ("over", "closed") or not state.pending:
        return None
    step = state.pending[0]
    if step.kind == "start":
        return cmd.StartRound()
    if step.kind == "end-round":
        return cmd.EndRound()
    if step.kind == "intent":
        return cmd.TakeAction(who=step.who, action=_intent(state, step.who))
    if step.kind == "move":
        return cmd.TakeAction(who=step.who, action=_move(state, step.who))
    if step.kind == "strike":
        me = state.combatants[step.who]
        d = next(x for x in core.declared(me) if x.slot == int(step.data["slot"]))
        w = core.weapon_of(me, d.weapon)
        if me.effect("cannot-attack") or (w.name not in me.ready and w.kind != "unarmed"):
            return cmd.TakeAction(who=step.who, action="pass")  # held fast, or the weapon was lost
        targets = [h for h in me.engaged if state.combatants[h].can_fight
                   and core.reach(me, h) <= core.engagement_range(w.length)]
        if d.kind == "missile":
            targets = [x.handle for x in core.fighters(state) if x.side != me.side]
        if d.target in targets:
            return cmd.DeclareAttack(attacker=step.who, target=d.target)
        if targets:
            return cmd.DeclareAttack(attacker=step.who, target=targets[0])
        return cmd.TakeAction(who=step.who, action="pass")
    if step.kind == "parry-miss":
        return cmd.ChooseReaction(defender=step.who, reaction="parry")
    if step.kind == "react":
        choice = next((r for r in ("parry", "dodge", "abort-parry", "abort-dodge") if r in step.options), "none")
        return cmd.ChooseReaction(defender=step.who, reaction=choice)
    if step.verb == "roll":
        return cmd.RollPending(who=step.who)
    return None
