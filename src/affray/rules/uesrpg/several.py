"""An attack against several defenders (seed 003 Step 4, Block: "Should
there be multiple defenders against a single attack, only one defender gains
a defensive advantage").

An item whose sheet entry has ``targets`` above 1 (an area spell, a
sweeping weapon) may name several targets: ``affray attack A T1,T2``. Each
defender chooses a defence before the one attack roll (Step 2); the roll
grades the attack once and each defence against it (Step 3; :mod:`.contest`
keeps the defensive Advantage for one defender, ruling
``several_defenders``). Step 4 then runs defender by defender, each in an
exchange of its own: the first at once, the others from the
``attacking-several`` condition, in the order they were named, before the
turn order goes on. This module is that part of the turn sequencer.
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.events import core as ev
from affray.rules.base import Draft
from affray.rules.d100 import CRITICAL, FUMBLE
from affray.rules.uesrpg.core import sheet_of, unpack_waiting


def sequence(draft: Draft) -> bool:
    """Open the next waiting defender's exchange (its rolled result
    recorded again as ``AttackResolved``) and queue its Advantages or its
    Step 4. Returns True when it took the table (the rest of the turn order
    must not run)."""
    state = draft.state
    if state.phase != "round" or state.exchange is not None:
        return False
    for c in state.combatants.values():
        cond = next((k for k in c.conditions if k.name == "attacking-several"), None)
        if cond is None:
            continue
        waiting = unpack_waiting(state, cond)
        if not waiting:
            draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=cond.id, reason="every defender resolved"))
            continue
        handle, carry, result = waiting[0]
        if len(waiting) == 1:
            draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=cond.id, reason="every defender resolved"))
        else:
            rest = {k: v for k, v in cond.effects.items() if not k.startswith(f"{handle}:")}
            draft.emit(ev.ConditionApplied(handle=c.handle, condition=replace(
                cond, effects=rest, note=f"{cond.note.split(':')[0]}: {len(waiting) - 1} more defender(s) to resolve")))
        sheet = sheet_of(c)
        items = [*sheet.weapons, *sheet.spells]
        item = items[cond.effects["weapon"]]
        kind = "spell" if item in sheet.spells else item.kind
        draft.emit(ev.AttackDeclared(
            exchange=draft.state.next_exchange, attacker=c.handle, target=handle, weapon=item.name,
            kind=f"{kind};tn={cond.effects['tn']};of={cond.effects['exchange']}"))
        draft.emit(ev.AttackResolved(
            exchange=draft.state.exchange.id, hit=carry["hits"] == "defender",
            critical=result["attack_result"] == CRITICAL, fumble=result["attack_result"] == FUMBLE,
            roll=cond.effects["roll"], skill=cond.effects["tn"]))
        if result["advantages"]:
            draft.then("advantages", carry=carry, left=result["advantages"],
                       by=c.handle if result["advantage_to"] == "attacker" else handle)
        else:
            draft.then("resolve", carry=carry)
        return True
    return False
