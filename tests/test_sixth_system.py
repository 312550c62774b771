"""README "How to add a sixth system": a toy system registered at test time
plays a minimal fight through the real command path, the store, the
projections and the exports, with no change to ``affray/events`` or
``affray/projections``.

The toy ("Coin duel", key ``toy``, alias ``t6``): whoever joins gets 1 HP
on one location; ``start`` opens round 1 with the join order; ``attack``
rolls 1D2 and a 2 takes the target's HP (an opposed nothing: it is a toy).
It speaks only through the shared events of :mod:`affray.events.core`.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from affray.events import commands as cmd
from affray.commands.handler import execute
from affray.events import core as ev
from affray.rules import base
from affray.rules.base import Draft, RuleError, SystemBase, find_combatant
from affray.store import EventStore
from affray.views.export import export


class Toy(SystemBase):
    key = "toy"
    aliases = ("t6",)
    title = "Coin duel (a toy sixth system)"
    source = "tests/test_mythras_sixth_system.py"
    conditions = {"down": "lost its one Hit Point"}
    rulings_doc: dict = {}

    def rulings(self, mapping):
        if mapping:
            raise RuleError(f"the toy system has no rulings, not {', '.join(mapping)}")
        return {}

    def load_sheet(self, path):
        return {"name": Path(path).stem}

    def decide(self, state, command, dice):
        draft = Draft(state, dice)
        match command:
            case cmd.JoinCombatant():
                handle = command.handle or command.sheet["name"].lower()
                draft.emit(ev.CombatantJoined(
                    handle=handle, name=command.sheet["name"], side=command.side, sheet=command.sheet,
                    locations=(ev.LocationInit(name="body", hp=1, low=1, high=20),), combat_actions=1, reactions=0))
                draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(who="GM", verb="start", kind="start", prompt="GM: start"),)))
            case cmd.StartRound():
                order = tuple(ev.InitiativeEntry(handle=h, rank=len(state.combatants) - i, tier=i)
                              for i, h in enumerate(state.combatants))
                draft.emit(ev.RoundStarted(round=state.round + 1, order=order, reactions={},
                                           combat_actions={h: 1 for h in state.combatants}))
                first = order[0].handle
                draft.emit(ev.TurnBegan(handles=(first,), action_no=1))
                draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
                    who=first, verb="attack", kind="turn", prompt=f"{first}: attack",
                    dice=(ev.DiceNeed("coin", "1D2", by=first),)),)))
            case cmd.DeclareAttack():
                a, t = find_combatant(state, command.attacker), find_combatant(state, command.target)
                if a not in state.turn:
                    raise RuleError(f"it is not {a}'s turn")
                x = state.next_exchange
                draft.emit(ev.ActionSpent(handle=a, kind="combat-action", reason="coin toss"))
                draft.emit(ev.AttackDeclared(exchange=x, attacker=a, target=t, weapon="coin"))
                coin = draft.roll("1D2", "coin", by=a).total
                draft.emit(ev.AttackResolved(exchange=x, hit=coin == 2, roll=coin))
                if coin == 2:
                    draft.emit(ev.DamageDealt(exchange=x, target=t, location="body", rolled=1, reduced=0, armour=0, final=1))
                    draft.emit(ev.StatusChanged(handle=t, status="out", reason="lost the toss"))
                draft.emit(ev.ExchangeEnded(exchange=x, summary=f"coin {coin}"))
                if coin == 2:
                    draft.emit(ev.FightEnded(winner=state.combatants[a].side, reason="coin"), ev.StepsAwaited(steps=()))
                else:
                    draft.emit(ev.StepsAwaited(steps=()))
            case _:
                raise RuleError(f"the toy system does not handle {type(command).__name__}")
        return draft.events


@pytest.fixture
def toy(monkeypatch):
    module = types.ModuleType("affray_toy_system")
    module.SYSTEM = Toy()
    monkeypatch.setitem(sys.modules, "affray_toy_system", module)
    monkeypatch.setitem(base._REGISTRY, "toy", ("affray_toy_system", ("t6",), "Coin duel"))
    return module.SYSTEM


def test_a_sixth_system_registers_and_plays_a_minimal_command(toy):
    assert base.resolve_key("T6") == "toy" and base.get("t6") is toy
    assert base.available()["toy"] == "Coin duel"
    store = EventStore(":memory:")
    out = execute(store, cmd.OpenEncounter(name="Toss", system="t6", manual_dice=True), seed=b"toy", actor="gm")
    eid = out.encounter_id
    assert out.state.system == "toy"
    for name, side in (("Ann", "a"), ("Bob", "b")):
        execute(store, cmd.JoinCombatant(sheet=toy.load_sheet(f"{name}.toml"), side=side), encounter_id=eid)
    execute(store, cmd.StartRound(), encounter_id=eid)
    out = execute(store, cmd.DeclareAttack(attacker="ann", target="bob"), encounter_id=eid, dice="2", actor="sam")
    state = out.state  # the shared projections folded the toy's events
    assert state.phase == "over" and state.winner == "a"
    assert state.combatants["bob"].status == "out" and state.combatants["bob"].location("body").hp == 0
    assert state.combatants["ann"].combat_actions == 0
    md = export(list(store.read(eid)), "markdown")
    assert "Ann attacks Bob with coin" in md and "The fight is over: side a wins" in md
    assert store.verify(eid) == []  # the hash chain holds
    with pytest.raises(RuleError, match="no rulings"):
        execute(store, cmd.OpenEncounter(name="Bad", system="toy", rulings={"x": "y"}), seed=b"t")


def test_the_toy_needed_no_change_to_events_or_projections(toy):
    """The seam: nothing under affray/events or affray/projections names a
    rule system's package; the toy uses only shared event classes."""
    root = Path(ev.__file__).resolve().parent.parent
    for folder in ("events", "projections"):
        for path in (root / folder).glob("*.py"):
            text = path.read_text()
            assert "affray.rules" not in text, path
            assert "toy" not in text, path
    from affray.events.codec import EVENT_TYPES

    used = {ev.CombatantJoined, ev.StepsAwaited, ev.RoundStarted, ev.TurnBegan, ev.ActionSpent, ev.AttackDeclared,
            ev.DiceRolled, ev.AttackResolved, ev.DamageDealt, ev.StatusChanged, ev.ExchangeEnded, ev.FightEnded}
    assert used <= set(EVENT_TYPES.values())
