"""The uesrpg autopilot for ``affray demo --system uesrpg``: an answer for
every step the uesrpg rules ask for (seed 003: the defence is chosen
before the attack roll; Advantages are spent before damage).

``next_command(state)`` gives the command for the first pending step, or
None when the fight is over. The defence varies with the exchange number
(block, parry, counter-attack, evade) so one demo fight shows the rows of
the outcome table; a caster casts its first spell every third round; Advantages go to Precision Strike on the least armoured location
where a blow lands, else the first open one. Must not import :mod:`.demo`.
"""

from __future__ import annotations

from affray.events import commands as cmd
from affray.projections.state import State

#: Defence preference by exchange number modulo 4.
_DEFENCES = (("block", "evade"), ("parry", "evade"), ("counter", "evade"), ("evade",))


def next_command(state: State) -> cmd.Command | None:
    """A sensible command for the first pending step (None when done)."""
    if state.phase in ("over", "closed") or not state.pending:
        return None
    step = state.pending[0]
    if step.kind == "start":
        return cmd.StartRound()
    if step.kind == "end-round":
        return cmd.EndRound()
    if step.kind == "turn":
        me = state.combatants[step.who]
        foes = sorted((c for c in state.combatants.values() if c.side != me.side and c.can_fight),
                      key=lambda c: (c.handle not in me.engaged, c.handle))
        if "attack" not in step.options or not foes:
            return cmd.TakeAction(who=step.who, action="pass")
        spells = me.sheet.get("spells", [])
        if spells and state.round % 3 == 2:  # now and then a spell (seed 003 Step 1, "Cast Magic Attacks")
            return cmd.DeclareAttack(attacker=step.who, target=foes[0].handle, weapon=spells[0]["name"])
        return cmd.DeclareAttack(attacker=step.who, target=foes[0].handle)
    if step.kind == "react":
        prefer = _DEFENCES[step.exchange % len(_DEFENCES)]
        defence = next((d for d in prefer if d in step.options), "none")
        return cmd.ChooseReaction(defender=step.who, reaction=defence)
    if step.kind == "opportunity":
        return cmd.ChooseReaction(defender=step.who, reaction="attack")
    if step.kind == "advantage":
        if "precision-strike" in step.options:  # the least armoured hit location of the one struck
            x = state.exchange
            struck = state.combatants[x.target if step.who == x.attacker else x.attacker]
            loc = min((l for l in struck.locations if l.max_hp == 0), key=lambda l: l.ap)
            return cmd.MakeChoice(who=step.who, option=f"precision-strike:{loc.name}")
        pick = next((o for o in step.options if o != "special-advantage"), "none")
        return cmd.MakeChoice(who=step.who, option=pick)
    if step.kind == "evade-move":
        return cmd.MakeChoice(who=step.who, option="stay")
    if step.verb == "roll":
        return cmd.RollPending(who=step.who)
    return None
