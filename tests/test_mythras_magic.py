"""Magic as named effects in mythras (seed 001 "Cast Magic", "Hold Magic",
"Counter Spell"), through ``execute`` with typed dice.

Kaelin knows Bladesharp (Invocation 60%, Casting Time 2, "+1 damage");
Grusk knows Dispel (Willpower 36%, a counter spell of one Turn).
"""

from __future__ import annotations

import copy

import pytest

from affray.events import commands as cmd
from affray.events.mythras import MagicResolved
from affray.rules.base import RuleError
from affray.views.export import export

from test_mythras_flow import Table, sheet


def mages(**kw) -> Table:
    k = copy.deepcopy(sheet("kaelin"))
    k["skills"]["Invocation"] = 60
    k["spells"] = [{"name": "Bladesharp", "skill": "Invocation", "casting_time": 2, "effect": "+1 damage"}]
    g = copy.deepcopy(sheet("grusk"))
    g["spells"] = [{"name": "Dispel", "skill": "Willpower", "counter": True}]
    t = Table(kaelin=k, grusk=g, **kw)
    t(cmd.StartRound(), "7,5")
    return t


def act(t, who, action, dice=""):
    return t(cmd.TakeAction(who=who, action=action), dice)


def test_casting_time_costs_a_point_per_turn_then_release_and_counter():
    """Seed 001 "Cast Magic": each Turn of casting costs an Action Point;
    once concluded the magic can be released up to the caster's next Turn.
    "Counter Spell": a Reaction (1 AP) that negates the spell."""
    t = mages()
    act(t, "kaelin", "cast:bladesharp")
    assert t.c("kaelin").has("casting") and t.c("kaelin").combat_actions == 1
    act(t, "grusk", "pass")
    assert "cast" in t.step().options
    act(t, "kaelin", "cast")
    assert t.c("kaelin").has("spell-ready") and not t.c("kaelin").has("casting")
    act(t, "kaelin", "release:grusk")  # free: the points were spent casting
    step = t.step()
    assert step.kind == "cast" and step.who == "kaelin"
    t(cmd.RollPending(), "20")
    step = t.step()
    assert step.kind == "counter-spell" and step.who == "grusk" and "(1 AP)" in step.prompt
    t(cmd.MakeChoice(who="grusk", option="counter"))
    assert t.c("grusk").combat_actions == 0
    t(cmd.RollPending(), "30")  # Willpower 36: 30 beats the casting roll 20 at the same level
    mr = t.new(MagicResolved)[0]
    assert (mr.spell, mr.target, mr.outcome) == ("Bladesharp", "grusk", "countered by Grusk")
    assert "Kaelin's Bladesharp at Grusk countered by Grusk" in export(list(t.store.read(t.eid)), "markdown")


def test_spell_takes_effect_when_not_countered():
    t = mages()
    act(t, "kaelin", "cast:bladesharp")
    act(t, "grusk", "pass")
    act(t, "kaelin", "cast")
    act(t, "kaelin", "release")
    t(cmd.RollPending(), "20")
    t(cmd.MakeChoice(who="grusk", option="none"))
    mr = t.new(MagicResolved)[0]
    assert (mr.outcome, mr.effect) == ("takes effect", "+1 damage")


def test_held_magic_lets_enemies_counter_for_free_and_unheld_magic_dissipates():
    """Seed 001 "Hold Magic": held, the spell's roll is made only when it is
    cast, and enemies may use Counter Spell freely (ruling
    ``held_counter_cost``); not held at the caster's next Turn, it is lost."""
    t = mages()
    act(t, "kaelin", "cast:bladesharp")
    act(t, "grusk", "pass")
    act(t, "kaelin", "cast")
    act(t, "grusk", "pass")
    t(cmd.EndRound())
    assert "hold" in t.step().options and "release" in t.step().options
    act(t, "kaelin", "hold")
    act(t, "grusk", "pass")
    act(t, "kaelin", "release:grusk")
    t(cmd.RollPending(), "20")
    assert "(free: the spell was held)" in t.step().prompt
    t(cmd.MakeChoice(who="grusk", option="counter"))
    assert t.c("grusk").combat_actions == 1  # free: no Action Point spent
    t2 = mages()
    act(t2, "kaelin", "cast:bladesharp")
    act(t2, "grusk", "pass")
    act(t2, "kaelin", "cast")
    act(t2, "grusk", "pass")
    t2(cmd.EndRound())
    act(t2, "kaelin", "pass")
    assert not t2.c("kaelin").has("spell-ready")


def test_failed_casting_and_unknown_spell():
    t = mages()
    with pytest.raises(RuleError, match="no spell 'fireball'"):
        act(t, "kaelin", "cast:fireball")
    with pytest.raises(RuleError, match="no cast spell to release"):
        act(t, "kaelin", "release")
    act(t, "kaelin", "cast:bladesharp")
    act(t, "grusk", "pass")
    act(t, "kaelin", "cast")
    act(t, "kaelin", "release")
    t(cmd.RollPending(), "90")
    assert t.new(MagicResolved)[0].outcome == "fails"
