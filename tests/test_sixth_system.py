"""README "How to add a sixth system": a toy system built the way every
system is (DESIGN.md, "Inside a system, steps are data and imports run one
way"), registered at test time, plays a fight through the real command
path, the store, the projections and the exports, with no change to
``affray/events`` or ``affray/projections``.

The toy ("Coin duel", key ``toy``, alias ``t6``): whoever joins gets 1 HP on
one location and one combat action a round. ``start`` opens a round in join
order and gives the first combatant the turn. ``attack`` tosses 1D2: a 2
hits, the damage step takes the target's Hit Point, and its own follow-up
puts him out. The exchange then ends, and the router hands over to the
sequencer: the next combatant standing with an action left gets the turn;
with none left the round ends and the GM starts the next; with one side
left, the fight is over. It speaks only through the shared events of
:mod:`affray.events.core`.

The toy's sections stand for the modules of a system package, marked with
the file each would be, and use only what is below them: ``system.py`` (the
router: the only part that names handlers) → ``turns.py``, ``attack.py``,
``damage.py`` (one per section of the rules; they never call each other,
they queue follow-ups with ``draft.then``) → ``core.py`` (state queries)
→ the shared ``affray.rules`` helpers.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from affray.commands.handler import execute
from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules import base
from affray.rules.base import Draft, RuleError, SystemBase, find_combatant
from affray.rules.router import Router
from affray.store import EventStore
from affray.views.export import export

# --------------------------------------------------------------------------- #
# rules/toy/core.py: state queries the rule modules share
# --------------------------------------------------------------------------- #


def sides_standing(draft: Draft) -> set[str]:
    """The sides that still have a combatant able to fight."""
    return {c.side for c in draft.state.combatants.values() if c.can_fight}


def next_to_act(draft: Draft) -> str | None:
    """The first combatant after the one whose turn it was, in join order,
    who can fight and has a combat action left (None: nobody)."""
    handles = list(draft.state.combatants)
    last = draft.state.turn[0] if draft.state.turn else handles[-1]
    start = handles.index(last) + 1
    for handle in handles[start:] + handles[:start]:
        c = draft.who(handle)
        if c.can_fight and c.combat_actions > 0:
            return handle
    return None


def give_turn(draft: Draft, handle: str) -> None:
    """``handle`` acts: the one step the table then waits for is his toss."""
    draft.emit(ev.TurnBegan(handles=(handle,), action_no=1))
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=handle, verb="attack", kind="turn", prompt=f"{handle}: attack",
        dice=(ev.DiceNeed("coin", "1D2", by=handle),)),)))


# --------------------------------------------------------------------------- #
# rules/toy/turns.py: joining, rounds and the turn sequencer
# --------------------------------------------------------------------------- #


def join(draft: Draft, command: cmd.JoinCombatant) -> None:
    """One Hit Point on one location; the GM may then start."""
    handle = command.handle or command.sheet["name"].lower()
    draft.emit(ev.CombatantJoined(
        handle=handle, name=command.sheet["name"], side=command.side, sheet=command.sheet,
        locations=(ev.LocationInit(name="body", hp=1, low=1, high=20),), combat_actions=1, reactions=0))
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(who="GM", verb="start", kind="start", prompt="GM: start"),)))


def start(draft: Draft, command: cmd.StartRound) -> None:
    """A round in join order, one combat action each; the first acts."""
    handles = [h for h, c in draft.state.combatants.items() if c.can_fight]
    order = tuple(ev.InitiativeEntry(handle=h, rank=len(handles) - i, tier=i) for i, h in enumerate(handles))
    draft.emit(ev.RoundStarted(round=draft.state.round + 1, order=order, reactions={},
                               combat_actions={h: 1 for h in handles}))
    give_turn(draft, handles[0])


def advance(draft: Draft) -> None:
    """The sequencer, run once an exchange's steps are all done: the fight
    ends, the next combatant acts, or the round ends."""
    sides = sides_standing(draft)
    if len(sides) <= 1:
        draft.emit(ev.FightEnded(winner=next(iter(sides), ""), reason="coin"), ev.StepsAwaited(steps=()))
        return
    handle = next_to_act(draft)
    if handle is not None:
        give_turn(draft, handle)
        return
    draft.emit(ev.RoundEnded(round=draft.state.round))
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(who="GM", verb="start", kind="start", prompt="GM: next round"),)))


# --------------------------------------------------------------------------- #
# rules/toy/attack.py: the toss
# --------------------------------------------------------------------------- #


def attack(draft: Draft, command: cmd.DeclareAttack) -> None:
    """Toss 1D2; a 2 hits. Queues ``damage`` on a hit, then ``end-exchange``,
    and hands over to the sequencer."""
    state = draft.state
    a, t = find_combatant(state, command.attacker), find_combatant(state, command.target)
    if a not in state.turn:
        raise RuleError(f"it is not {a}'s turn; 'affray pending' says whose it is")
    x = state.next_exchange
    draft.emit(ev.ActionSpent(handle=a, kind="combat-action", reason="coin toss"))
    draft.emit(ev.AttackDeclared(exchange=x, attacker=a, target=t, weapon="coin"))
    coin = draft.roll("1D2", "coin", by=a).total
    draft.emit(ev.AttackResolved(exchange=x, hit=coin == 2, roll=coin))
    if coin == 2:
        draft.then("damage", exchange=x, target=t)
    draft.then("end-exchange", exchange=x, summary=f"coin {coin}")
    draft.hand_over()


def end_exchange(draft: Draft, exchange: int, summary: str) -> None:
    draft.emit(ev.ExchangeEnded(exchange=exchange, summary=summary))


# --------------------------------------------------------------------------- #
# rules/toy/damage.py: what a hit does
# --------------------------------------------------------------------------- #


def damage(draft: Draft, exchange: int, target: str) -> None:
    """One point to the body; at 0 HP, queues ``out``."""
    draft.emit(ev.DamageDealt(exchange=exchange, target=target, location="body", rolled=1, reduced=0, armour=0, final=1))
    if draft.who(target).location("body").hp <= 0:
        draft.then("out", target=target)


def out(draft: Draft, target: str) -> None:
    draft.emit(ev.StatusChanged(handle=target, status="out", reason="lost the toss"))


# --------------------------------------------------------------------------- #
# rules/toy/system.py: the router, the only part that names handlers
# --------------------------------------------------------------------------- #

ROUTER = Router(
    system="toy",
    commands={cmd.JoinCombatant: join, cmd.StartRound: start, cmd.DeclareAttack: attack},
    steps={"damage": damage, "out": out, "end-exchange": end_exchange},
    sequencer=advance,
)


class Toy(SystemBase):
    key = "toy"
    aliases = ("t6",)
    title = "Coin duel (a toy sixth system)"
    source = "tests/test_sixth_system.py"
    conditions = {"down": "lost its one Hit Point"}
    rulings_doc: dict = {}

    def rulings(self, mapping):
        if mapping:
            raise RuleError(f"the toy system has no rulings, not {', '.join(mapping)}")
        return {}

    def load_sheet(self, path):
        return {"name": Path(path).stem}

    def decide(self, state, command, dice):
        return ROUTER.decide(Draft(state, dice), command)


# --------------------------------------------------------------------------- #
# the tests
# --------------------------------------------------------------------------- #


@pytest.fixture
def toy(monkeypatch):
    module = types.ModuleType("affray_toy_system")
    module.SYSTEM = Toy()
    monkeypatch.setitem(sys.modules, "affray_toy_system", module)
    monkeypatch.setitem(base._REGISTRY, "toy", ("affray_toy_system", ("t6",), "Coin duel"))
    return module.SYSTEM


def _tags(outcome) -> list[str]:
    return [r.type for r in outcome.records]


def test_a_sixth_system_registers_and_plays_a_fight_through_the_router(toy):
    assert base.resolve_key("T6") == "toy" and base.get("t6") is toy
    assert base.available()["toy"] == "Coin duel"
    store = EventStore(":memory:")
    out = execute(store, cmd.OpenEncounter(name="Toss", system="t6", manual_dice=True), seed=b"toy", allow_short_seed=True, actor="gm")
    eid = out.encounter_id
    assert out.state.system == "toy"
    for name, side in (("Ann", "a"), ("Bob", "b")):
        execute(store, cmd.JoinCombatant(sheet=toy.load_sheet(f"{name}.toml"), side=side), encounter_id=eid)
    execute(store, cmd.StartRound(), encounter_id=eid)

    # a miss: no damage step; the sequencer gives Bob the turn
    out = execute(store, cmd.DeclareAttack(attacker="ann", target="bob"), encounter_id=eid, dice="1", actor="sam")
    assert "damage-dealt" not in _tags(out)
    assert out.state.turn == ("bob",) and out.state.pending[0].who == "bob"
    with pytest.raises(RuleError, match="not ann's turn"):
        execute(store, cmd.DeclareAttack(attacker="ann", target="bob"), encounter_id=eid, dice="2")

    # another miss: nobody has an action left, so the sequencer ends the round
    out = execute(store, cmd.DeclareAttack(attacker="bob", target="ann"), encounter_id=eid, dice="1")
    assert _tags(out)[-2:] == ["round-ended", "steps-awaited"]
    assert out.state.pending[0].kind == "start"
    out = execute(store, cmd.StartRound(), encounter_id=eid)
    assert out.state.round == 2 and out.state.turn == ("ann",)

    # a hit: attack queued damage then end-exchange; damage queued out, which
    # runs before end-exchange (depth first); the sequencer runs last
    out = execute(store, cmd.DeclareAttack(attacker="ann", target="bob"), encounter_id=eid, dice="2", actor="sam")
    assert _tags(out) == [
        "command-issued", "action-spent", "attack-declared", "dice-rolled", "attack-resolved",
        "damage-dealt", "status-changed", "exchange-ended", "fight-ended", "steps-awaited",
    ]
    state = out.state  # the shared projections folded the toy's events
    assert state.phase == "over" and state.winner == "a"
    assert state.combatants["bob"].status == "out" and state.combatants["bob"].location("body").hp == 0
    assert state.combatants["ann"].combat_actions == 0
    md = export(list(store.read(eid)), "markdown")
    assert "Ann attacks Bob with coin" in md and "The fight is over: side a wins" in md
    assert store.verify(eid) == []  # the hash chain holds
    with pytest.raises(RuleError, match="no rulings"):
        execute(store, cmd.OpenEncounter(name="Bad", system="toy", rulings={"x": "y"}), seed=b"t", allow_short_seed=True)


def test_the_router_refuses_what_the_toy_does_not_handle(toy):
    """A command outside the router's ``commands`` table is one line, with
    nothing appended."""
    store = EventStore(":memory:")
    eid = execute(store, cmd.OpenEncounter(name="Toss", system="toy", manual_dice=True), seed=b"toy", allow_short_seed=True).encounter_id
    head = store.version(eid)
    with pytest.raises(RuleError, match="^toy does not handle EndRound$"):
        execute(store, cmd.EndRound(), encounter_id=eid)
    assert store.version(eid) == head


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
            ev.DiceRolled, ev.AttackResolved, ev.DamageDealt, ev.StatusChanged, ev.ExchangeEnded, ev.FightEnded,
            ev.RoundEnded}
    assert used <= set(EVENT_TYPES.values())
