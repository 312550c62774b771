"""The documented, stable JSON shapes of ``state --json`` and ``pending --json``.

``state_data(state)``::

    {"encounter": str, "name": str, "system": str, "version": int,
     "round": int, "step": int, "phase": "setup|round|between|over|closed",
     "turn": [handle], "winner": str,
     "waiting_for": [{"who": handle|"GM", "name": str, "verb": str,
                      "kind": str, "prompt": str}],
     "order": [{"handle": str, "rank": int, "detail": str}],
     "combatants": [{
        "handle": str, "name": str, "side": str,
        "status": "active|unconscious|dead|out", "stance": str,
        "combat_actions": {"left": int, "max": int},
        "reactions": {"left": int, "max": int},
        "locations": [{"name": str, "hp": int, "max_hp": int, "ap": int,
                       "wound": "|minor|serious|major"}],
        "conditions": [{"id": str, "name": str, "location": str,
                        "since": "ROUND.STEP", "cause_version": int,
                        "ends": {"kind": str, "count": int},
                        "effects": {str: int}, "note": str}],
        "ready": [str], "engaged": [handle], "moved_m": float}]}

``pending_data(state)``: a list of ``{"who": handle|"GM", "name": str,
"verb": str, "kind": str, "prompt": str, "options": [str],
"dice": [{"purpose": str, "expr": str, "by": handle}], "exchange": int}``
in the order the table should resolve them; dice in the order ``--dice``
takes them.
"""

from __future__ import annotations

from affray.projections.state import Combatant, State


def combatant_data(c: Combatant) -> dict:
    """One combatant in the ``state --json`` shape."""
    return {
        "handle": c.handle,
        "name": c.name,
        "side": c.side,
        "status": c.status,
        "stance": c.stance,
        "combat_actions": {"left": c.combat_actions, "max": c.max_combat_actions},
        "reactions": {"left": c.reactions, "max": c.max_reactions},
        "locations": [
            {"name": l.name, "hp": l.hp, "max_hp": l.max_hp, "ap": l.ap, "wound": l.wound} for l in c.locations
        ],
        "conditions": [
            {
                "id": x.id,
                "name": x.name,
                "location": x.location,
                "since": f"{x.since_round}.{x.since_step}",
                "cause_version": x.cause,
                "ends": {"kind": x.ends.kind, "count": x.ends.count},
                "effects": dict(x.effects),
                "note": x.note,
            }
            for x in c.conditions
        ],
        "ready": list(c.ready),
        "engaged": list(c.engaged),
        "moved_m": c.moved,
    }


def state_data(state: State) -> dict:
    """The whole state in the documented shape above."""
    return {
        "encounter": state.encounter_id,
        "name": state.name,
        "system": state.system,
        "version": state.version,
        "round": state.round,
        "step": state.step,
        "phase": state.phase,
        "turn": list(state.turn),
        "winner": state.winner,
        "waiting_for": [
            {"who": s.who, "name": _name(state, s.who), "verb": s.verb, "kind": s.kind, "prompt": s.prompt}
            for s in state.pending
        ],
        "order": [{"handle": o.handle, "rank": o.rank, "detail": o.detail} for o in state.order],
        "combatants": [combatant_data(c) for c in state.combatants.values()],
    }


def _name(state: State, who: str) -> str:
    c = state.combatants.get(who)
    return c.name if c else who


def pending_data(state: State) -> list[dict]:
    """The pending steps in the documented shape above."""
    out = []
    for s in state.pending:
        who = state.combatants.get(s.who)
        out.append(
            {
                "who": s.who,
                "name": who.name if who else s.who,
                "verb": s.verb,
                "kind": s.kind,
                "prompt": s.prompt,
                "options": list(s.options),
                "dice": [{"purpose": d.purpose, "expr": d.expr, "by": d.by} for d in s.dice],
                "exchange": s.exchange,
            }
        )
    return out
