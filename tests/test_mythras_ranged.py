"""Ranged combat in mythras (seed 001 "Ranged Combat": Force, Damage
Modifier, Range, Load, Impale Size; "Ranged Combat Situational
Modifiers"; "Aiming"; "Firing into a Crowd"; the Sharpshooter and Rapid
Reload Special Effects; "Choose Location" for Ranged weapons), through
``execute`` with typed dice.

Kaelin carries a Light Crossbow (1D8, Force Large, Load 2, no Damage
Modifier, range 20/150/400) in her Legionary style (65%, critical <= 7);
Grusk a Javelin (1D8, Size Medium, Force Medium, thrown: Damage Modifier
+1D4) in his Orc Raider style (60%).
"""

from __future__ import annotations

import copy

import pytest

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events.mythras import SpecialEffectChosen
from affray.rules.base import RuleError

from test_mythras_flow import Table, choose, react, sheet

CROSSBOW = {"name": "Light Crossbow", "damage": "1D8", "size": "medium", "kind": "ranged", "force": "large",
            "range": "20/150/400", "load": 2, "damage_modifier": False, "traits": ["impaling", "crossbow"],
            "impale_size": "small"}
JAVELIN = {"name": "Javelin", "damage": "1D8", "size": "medium", "kind": "ranged", "force": "medium",
           "range": "10/20/40", "traits": ["impaling"]}


def with_weapon(name: str, weapon: dict, ready: list[str]) -> dict:
    d = copy.deepcopy(sheet(name))
    d["weapons"].append(weapon)
    d["combat_styles"][0]["weapons"].append(weapon["name"])
    d["ready"] = ready
    return d


def table(**kw) -> Table:
    t = Table(kaelin=with_weapon("kaelin", CROSSBOW, ["Light Crossbow", "Heater Shield"]),
              grusk=with_weapon("grusk", JAVELIN, ["Javelin"]), **kw)
    t(cmd.StartRound(), "7,5")
    return t


def shoot(t, who, target, roll, *situations):
    return t(cmd.DeclareAttack(attacker=who, target=target, situations=tuple(situations)), roll)


def act(t, who, action, dice=""):
    return t(cmd.TakeAction(who=who, action=action), dice)


def test_ranged_attack_parried_only_with_shields_and_no_engagement():
    """Seed 001 "Ranged Combat": Ranged weapons can normally only be parried
    with shields; the rest must Evade."""
    t = table()
    shoot(t, "kaelin", "grusk", "30")
    assert t.step().options == ("evade", "none")  # Grusk has no shield
    assert not t.c("kaelin").engaged
    react(t, "grusk", "none")
    choose(t, "kaelin", "none")
    assert [d.expr for d in t.step().dice] == ["1D8", "1D20"]  # a crossbow adds no Damage Modifier


def test_force_against_a_shield():
    """Seed 001 "Force": the Ranged equivalent of Size against a (shield)
    parry: a Medium javelin against the Large shield is blocked whole."""
    t = Table(grusk=with_weapon("grusk", JAVELIN, ["Javelin"]))  # Kaelin holds Longsword and Heater Shield
    t(cmd.StartRound(), "7,5")
    act(t, "kaelin", "pass")
    shoot(t, "grusk", "kaelin", "30")
    assert t.step().options == ("parry", "evade", "none") and "Longsword" not in t.step().prompt
    with pytest.raises(RuleError, match="only with a shield"):
        t(cmd.ChooseReaction(defender="kaelin", reaction="parry", with_item="Longsword"), "40")
    react(t, "kaelin", "parry", "40")
    assert t.new(ev.ReactionResolved)[0].effects["block"] == 2
    assert [d.expr for d in t.step().dice] == ["1D8", "1D4", "1D20"]  # thrown: Damage Modifier applies


def test_long_range_halves_damage_and_force():
    """Seed 001 "Range": at Long Range the damage is halved and Force is
    one step less (the Large crossbow bolt against a Large shield: all;
    at Long Range Medium: still all; against a Medium parry it would be
    the same)."""
    t = table()
    shoot(t, "kaelin", "grusk", "30", "long-range")
    react(t, "grusk", "none")
    choose(t, "kaelin", "none")
    t(cmd.RollPending(), "7,11")  # 7 halved -> 3, chest AP 3 -> 0
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.rolled, dd.final) == (3, 0) and "Long Range" in dd.note


def test_load_unloaded_reload_and_rapid_reload():
    """Seed 001 "Load": the Turns to reload; "Rapid Reload" takes one off
    per effect (stackable)."""
    t = table()
    shoot(t, "kaelin", "grusk", "30")
    assert [c.effects["load"] for c in t.c("kaelin").conditions if c.name == "unloaded"] == [2]
    react(t, "grusk", "none")
    assert "rapid-reload" in t.step().options
    choose(t, "kaelin", "rapid-reload")
    assert [c.effects["load"] for c in t.c("kaelin").conditions if c.name == "unloaded"] == [1]
    t(cmd.RollPending(), "1,2")
    act(t, "grusk", "pass")
    with pytest.raises(RuleError, match="not loaded"):
        shoot(t, "kaelin", "grusk", "30")
    assert "reload" in t.step().options
    act(t, "kaelin", "reload")
    assert not t.c("kaelin").has("unloaded")


def test_aiming_a_whole_round_eases_one_grade():
    """Seed 001 "Aiming": after an entire Combat Round steadying the weapon,
    a Ranged or Situational Modifier is one grade easier; aiming within the
    same round gives nothing."""
    t = table()
    act(t, "kaelin", "aim")
    act(t, "grusk", "pass")
    shoot(t, "kaelin", "grusk", "90", "light-wind")
    assert t.new(ev.SkillTested)[0].target == 44  # still Hard: the aim began this round
    react(t, "grusk", "none")
    t2 = table()
    act(t2, "kaelin", "aim")
    act(t2, "grusk", "pass")
    act(t2, "kaelin", "pass")
    act(t2, "grusk", "pass")
    t2(cmd.EndRound())
    shoot(t2, "kaelin", "grusk", "90", "light-wind")
    assert t2.new(ev.SkillTested)[0].target == 65  # Hard eased to Standard
    assert not t2.c("kaelin").has("aiming")


def test_ranged_situational_modifiers():
    """Seed 001 "Ranged Combat Situational Modifiers": the hardest applies;
    Gale is Hopeless; a running target is Hard of itself; a prone attacker
    Herculean unless a crossbow from a prepared position."""
    t = table()
    shoot(t, "kaelin", "grusk", "90", "moderate-wind", "mist")
    assert t.new(ev.SkillTested)[0].target == 33  # Formidable
    t2 = table()
    with pytest.raises(RuleError, match="Hopeless"):
        shoot(t2, "kaelin", "grusk", "90", "gale")
    with pytest.raises(RuleError, match="ranged combat"):
        t2(cmd.DeclareAttack(attacker="kaelin", target="grusk", weapon="Fist", situations=("light-wind",)), "90")
    act(t2, "kaelin", "pass")
    act(t2, "grusk", "hustle:run")
    shoot(t2, "kaelin", "grusk", "90")
    assert t2.new(ev.SkillTested)[0].target == 44  # "Target is Running": Hard


def test_choose_location_with_a_ranged_weapon():
    """Seed 001 "Choose Location": with Ranged weapons only on a Critical,
    unless the target is within Close Range and stationary or unaware."""
    t = table()
    shoot(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    assert "choose-location" not in t.step().options
    t2 = table()
    shoot(t2, "kaelin", "grusk", "30", "close-range")
    react(t2, "grusk", "none")
    assert "choose-location" in t2.step().options
    t3 = table()
    shoot(t3, "kaelin", "grusk", "03")
    react(t3, "grusk", "none")
    assert "choose-location" in t3.step().options


def test_sharpshooter_moves_the_hit_to_an_adjoining_location():
    """Seed 001 "Sharpshooter": a leg shot may be moved up to the abdomen."""
    t = table()
    shoot(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "sharpshooter")
    t(cmd.RollPending(), "6,2")  # right leg
    step = t.step()
    assert step.kind == "sharpshooter" and step.options == ("abdomen", "keep")
    choose(t, "kaelin", "abdomen")
    dd = t.new(ev.DamageDealt)[0]
    assert dd.location == "abdomen" and dd.final == 3  # 6 - AP 3
    assert [(e.effect, e.detail) for e in t.log(SpecialEffectChosen)] == [("sharpshooter", ""),
                                                                         ("sharpshooter", "right leg → abdomen")]


def test_ranged_impale_uses_the_impale_size_and_cannot_be_yanked():
    t = table()
    shoot(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "impale")
    t(cmd.RollPending(), "6,5,11")
    imp = [c for c in t.c("grusk").conditions if c.name == "impaled"][0]
    assert "hard" in imp.note and not any(k.startswith("from:") for k in imp.effects)  # Small at SIZ 15


def test_firing_into_a_crowd_strikes_a_neighbour():
    """Seed 001 "Firing into a Crowd": Hard at the edge; a shot that fails
    only because of that penalty strikes an adjacent victim instead, who
    may Evade or Parry; Special Effects apply only to the original target."""
    t = Table(kaelin=with_weapon("kaelin", CROSSBOW, ["Light Crossbow", "Heater Shield"]))
    b = sheet("grusk")
    b["name"] = "Brakka"
    t(cmd.JoinCombatant(sheet=b, side="orcs", handle="brakka"))
    t(cmd.StartRound(), "7,5,1")
    shoot(t, "kaelin", "grusk", "50", "crowd-edge")  # fails against 44, would hit 65
    step = t.step()
    assert step.kind == "crowd-victim" and step.who == "GM" and step.options == ("brakka",)
    t(cmd.MakeChoice(who="gm", option="brakka"))
    x = t.state.exchange
    assert x.target == "brakka" and "crowd" in x.kind and t.step().kind == "react"
    react(t, "brakka", "none")
    assert t.step().kind == "damage"  # no Special Effects against the bystander
    t(cmd.RollPending(), "4,11")
    assert t.new(ev.DamageDealt)[0].target == "brakka"


def test_firing_into_a_crowd_plain_miss():
    t = Table(kaelin=with_weapon("kaelin", CROSSBOW, ["Light Crossbow", "Heater Shield"]))
    t(cmd.StartRound(), "7,5")
    shoot(t, "kaelin", "grusk", "80", "crowd-through")  # fails even without the crowd
    assert t.step().kind == "react"
