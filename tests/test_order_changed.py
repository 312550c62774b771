"""``OrderChanged`` (a shared event, no rule system's own): the order of
action changes within a round, with the allowances granted with it; its
fold and its line in the log."""

from affray.events import core as ev
from affray.events.codec import EVENT_TYPES
from affray.events.envelope import Recorded
from affray.projections.evolve import evolve
from affray.projections.state import Combatant, State
from affray.views.narrate import narrate


def _rec(e: ev.Event, version: int) -> Recorded:
    return Recorded(seq=version, encounter_id="e", version=version, command_id=f"c{version}", type="", schema=1,
                    event=e, recorded_at="", actor="gm", hash="")


def test_order_changed_replaces_the_order_and_grants_the_named_allowances():
    a = Combatant(handle="a", name="Ann", side="x", sheet={}, locations=(), max_combat_actions=2, max_reactions=0,
                  combat_actions=1)
    b = Combatant(handle="b", name="Bo", side="y", sheet={}, locations=(), max_combat_actions=3, max_reactions=0)
    state = State(name="f", system="mythras", phase="round", round=2,
                  order=(ev.InitiativeEntry(handle="a", rank=17),), combatants={"a": a, "b": b})
    order = (ev.InitiativeEntry(handle="b", rank=19), ev.InitiativeEntry(handle="a", rank=17))
    after = evolve(state, _rec(ev.OrderChanged(order=order, combat_actions={"b": 3}, reason="Bo joins"), 9))
    assert after.order == order
    assert after.combatants["b"].combat_actions == 3
    assert after.combatants["a"].combat_actions == 1  # not named: kept
    assert (after.round, after.phase) == (2, "round")


def test_order_changed_is_registered_with_defaults_and_told_in_the_systems_words():
    assert EVENT_TYPES["order-changed"] is ev.OrderChanged
    e = ev.OrderChanged(order=(ev.InitiativeEntry(handle="b", rank=19), ev.InitiativeEntry(handle="a", rank=17)),
                        reason="Bo joins the fight")
    assert (e.combat_actions, e.reactions) == ({}, {})
    names = {"a": "Ann", "b": "Bo"}
    assert narrate(e, names, "mythras") == "Initiative now: Bo 19, Ann 17 (Bo joins the fight)"
    assert narrate(e, names, "mrq1") == "Strike ranks now: Bo 19, Ann 17 (Bo joins the fight)"
