"""Mythras rules through the real command path, with table dice.

Every test opens a manual-dice ``mythras`` encounter, joins the example
sheets and drives it with :func:`affray.commands.handler.execute`, typing
each die. Sources: seed 001_0613c1b7f6517492.txt ("Initiative", "Turns",
"Actions in Combat", "Attacks and Parries", "Damage Reduction", "Armor",
"Parrying a Missed Attack", "Unable or Unwilling to Parry", "Evade",
"Special Effects" and the effect descriptions) and rules-reference.md B.

Figures (see the example sheets): Kaelin Legionary 65% (critical <= 7),
Longsword 1D8 Medium, Heater Shield Large, DM +1D2, Initiative 13 − 3 armour,
Endurance 46, Brawn 49, Evade 40, head 6 HP / 3 AP, chest 8 HP / 3 AP.
Grusk Orc Raider 60% (critical <= 6), Maul 2D6 Huge bludgeoning two-handed,
DM +1D4, Initiative 10 − 2 armour, Endurance 48, Brawn 51, chest 8 HP /
2 worn + 1 natural AP, head 6 HP / 1 natural AP.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from affray.events import commands as cmd
from affray.commands.handler import execute
from affray.commands.demo import autoplay, examples_dir
from affray.events import core as ev
from affray.events.mythras import SpecialEffectChosen
from affray.rules.base import RuleError
from affray.rules.mythras.sheet import load_sheet
from affray.store import EventStore

EX = examples_dir() / "mythras"


def sheet(name: str, **changes) -> dict:
    d = msgspec.to_builtins(load_sheet(EX / f"{name}.toml"))
    d.update(changes)
    return d


class Table:
    """A manual-dice mythras encounter driven through ``execute``."""

    def __init__(self, kaelin: dict | None = None, grusk: dict | None = None, rulings: dict | None = None,
                 surprised: bool = False):
        self.store = EventStore(":memory:")
        self.out = execute(self.store, cmd.OpenEncounter(name="flow", system="mythras", manual_dice=True,
                                                         rulings=rulings or {}), seed=b"s", allow_short_seed=True, actor="gm")
        self.eid = self.out.encounter_id
        self(cmd.JoinCombatant(sheet=kaelin or sheet("kaelin"), side="heroes", handle="kaelin"))
        self(cmd.JoinCombatant(sheet=grusk or sheet("grusk"), side="orcs", handle="grusk", surprised=surprised))

    def __call__(self, command, dice: str = ""):
        self.out = execute(self.store, command, encounter_id=self.eid, dice=dice, actor="gm")
        return self.out

    @property
    def state(self):
        return self.out.state

    def new(self, cls):
        return [r.event for r in self.out.records if isinstance(r.event, cls)]

    def log(self, cls):
        return [r.event for r in self.store.read(self.eid) if isinstance(r.event, cls)]

    def step(self):
        return self.state.pending[0]

    def c(self, h):
        return self.state.combatants[h]


def attack(t, who, target, roll):
    return t(cmd.DeclareAttack(attacker=who, target=target), roll)


def react(t, who, reaction, roll=""):
    return t(cmd.ChooseReaction(defender=who, reaction=reaction), roll)


def choose(t, who, option):
    return t(cmd.MakeChoice(who=who, option=option))


def kaelin_first(**kw) -> Table:
    """Initiative 7,5: Kaelin 7+13−3 = 17, Grusk 5+10−2 = 13."""
    t = Table(**kw)
    t(cmd.StartRound(), "7,5")
    return t


# --------------------------------------------------------------------------- #
# Initiative and turns (seed 001 "Initiative", "Turns"; B17, B18)
# --------------------------------------------------------------------------- #


def test_start_step_asks_for_initiative_dice():
    t = Table()
    step = t.step()
    assert step.kind == "start" and [d.expr for d in step.dice] == ["1D10", "1D10"]


def test_initiative_order_armour_penalty_and_action_points():
    t = kaelin_first()
    rs = t.new(ev.RoundStarted)[0]
    assert [(e.handle, e.rank) for e in rs.order] == [("kaelin", 17), ("grusk", 13)]
    assert "−3 armour" in rs.order[0].detail
    assert rs.combat_actions == {"kaelin": 2, "grusk": 2}
    assert t.state.turn == ("kaelin",) and t.step().kind == "turn"


def test_initiative_tie_goes_to_higher_dex():
    t = Table()
    t(cmd.StartRound(), "5,7")  # Kaelin 5+10 = 15, Grusk 7+8 = 15: DEX 14 beats 11
    assert [e.handle for e in t.state.order] == ["kaelin", "grusk"]


def test_turns_cycle_while_anyone_has_ap_and_initiative_is_kept():
    t = kaelin_first()
    t(cmd.TakeAction(who="kaelin", action="pass"))
    assert t.state.turn == ("grusk",) and t.c("kaelin").combat_actions == 1
    t(cmd.TakeAction(who="grusk", action="pass"))
    assert t.state.turn == ("kaelin",) and t.state.action_no == 2  # the second cycle
    t(cmd.TakeAction(who="kaelin", action="delay"))  # holds its last AP for a parry
    assert t.state.turn == ("grusk",)
    t(cmd.TakeAction(who="grusk", action="pass"))
    assert t.step().kind == "end-round" and t.step().dice == ()
    t(cmd.EndRound())
    rs = t.new(ev.RoundStarted)[0]
    assert rs.round == 2 and [e.rank for e in rs.order] == [17, 13]  # not re-rolled
    assert not t.new(ev.DiceRolled)
    assert t.c("kaelin").combat_actions == 2 and not t.c("kaelin").conditions
    with pytest.raises(RuleError, match="Initiative is rolled once"):
        t(cmd.StartRound(), "1,1")


def test_surprise():
    """Seed 001 "Surprise": −10 Initiative, no defence until its own turn, a
    bonus Special Effect on the first successful attack, no offensive action
    for the rest of the round."""
    t = Table(surprised=True)
    t(cmd.StartRound(), "7,9")
    assert [(e.handle, e.rank) for e in t.state.order] == [("kaelin", 17), ("grusk", 7)]
    attack(t, "kaelin", "grusk", "30")
    assert t.new(ev.ReactionChosen)[0].reaction == "none"
    assert t.step().kind == "special-effect" and t.step().data["left"] == 2  # 1 + the bonus
    choose(t, "kaelin", "none")
    t(cmd.RollPending(), "1,1,1")
    assert t.state.turn == ("grusk",) and "attack" not in t.step().options
    t(cmd.TakeAction(who="grusk", action="delay"))
    attack(t, "kaelin", "grusk", "30")
    assert t.step().kind == "react"  # its Initiative has come: it may defend now
    react(t, "grusk", "parry", "90")
    assert t.new(ev.ReactionResolved)[0].effects["special_effects"] == 1  # no second bonus


def test_not_your_turn_is_one_line():
    t = kaelin_first()
    with pytest.raises(RuleError, match="it is Kaelin's turn, not Grusk's"):
        attack(t, "grusk", "kaelin", "10")


# --------------------------------------------------------------------------- #
# The exchange (seed 001 "Attacks and Parries"; B7, B9, B11)
# --------------------------------------------------------------------------- #


def test_parry_with_larger_weapon_blocks_all():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "30")
    assert t.step().kind == "react" and t.step().options == ("parry", "evade", "none")
    react(t, "grusk", "parry", "40")
    rr = t.new(ev.ReactionResolved)[0]
    assert rr.cell == "differential:parry success/success" and rr.effects["block"] == 2 and rr.effects["special_effects"] == 0
    assert t.c("grusk").combat_actions == 1  # the parry cost an AP
    assert t.step().kind == "damage"
    t(cmd.RollPending(), "5,1,11")  # 1D8=5, DM 1D2=1, d20=11 chest
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.location, dd.rolled, dd.reduced, dd.final) == ("chest", 6, 6, 0)
    assert t.state.turn == ("grusk",)


def test_parry_one_size_smaller_halves_then_armour():
    t = kaelin_first()
    t(cmd.TakeAction(who="kaelin", action="pass"))
    attack(t, "grusk", "kaelin", "20")
    react(t, "kaelin", "parry", "30")  # Heater Shield (Large) against a Huge Maul
    assert t.new(ev.ReactionChosen)[0].with_item == "Heater Shield"
    t(cmd.RollPending(), "4,3,2,11")  # 2D6=7, DM 1D4=2 -> 9; half -> 4; chest AP 3 -> 1
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.rolled, dd.reduced, dd.armour, dd.final) == (9, 5, 3, 1)
    assert t.new(ev.WoundInflicted)[0].severity == "minor"


def test_half_parry_rounding_ruling():
    t = kaelin_first(rulings={"half_parry_rounding": "up"})
    t(cmd.TakeAction(who="kaelin", action="pass"))
    attack(t, "grusk", "kaelin", "20")
    react(t, "kaelin", "parry", "30")
    t(cmd.RollPending(), "4,3,2,11")
    assert t.new(ev.DamageDealt)[0].reduced == 4


def test_no_action_points_counts_as_failure():
    t = kaelin_first()
    t(cmd.TakeAction(who="kaelin", action="pass"))
    t(cmd.TakeAction(who="grusk", action="pass"))
    t(cmd.TakeAction(who="kaelin", action="pass"))  # Kaelin has no AP left
    attack(t, "grusk", "kaelin", "20")
    assert t.new(ev.ReactionChosen)[0].reaction == "none"
    rr = t.new(ev.ReactionResolved)[0]
    assert rr.cell == "differential:none success/failure" and rr.effects["special_effects"] == 1
    assert t.step().kind == "special-effect" and t.step().who == "grusk"


def test_missed_attack_parried_for_special_effects_withdraw():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "90")
    assert t.step().kind == "react"  # a miss may still be parried (seed 001)
    react(t, "grusk", "parry", "20")
    step = t.step()
    assert step.who == "grusk" and step.options == ("damage-weapon", "disarm-opponent", "prepare-counter", "scar-foe",
                                                    "trip-opponent", "withdraw", "none")
    choose(t, "grusk", "withdraw")
    se = t.new(SpecialEffectChosen)[0]
    assert (se.by, se.against, se.effect) == ("grusk", "kaelin", "withdraw")
    assert "kaelin" not in t.c("grusk").engaged
    assert t.state.exchange is None and t.state.turn == ("grusk",)


def test_both_fail_ends_the_exchange():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "parry", "80")
    assert t.new(ev.ReactionResolved)[0].effects["special_effects"] == 0
    assert t.new(ev.ExchangeEnded) and t.state.turn == ("grusk",)


def test_evade_leaves_the_defender_prone():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "50")
    react(t, "grusk", "evade", "10")  # Evade 32: a success, like the attack
    rr = t.new(ev.ReactionResolved)[0]
    # both succeed at the same level: the higher roll (Kaelin's 50) wins, so the blow lands (B6)
    assert rr.cell == "differential:evade success/success" and rr.effects["hit"] == 1
    assert t.c("grusk").stance == "prone"


def test_regain_footing_while_engaged():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "evade", "80")  # both fail; Grusk is prone
    assert t.step().options[0] == "stand"
    t(cmd.TakeAction(who="grusk", action="stand"))
    step = t.step()
    assert step.kind == "footing" and len(step.dice) == 2
    t(cmd.RollPending(), "10,90")  # Brawn 51 beats Kaelin's failed Brawn 49 (seed 001 "Regain Footing")
    assert t.c("grusk").stance == "standing" and t.c("grusk").combat_actions == 0
    assert t.state.turn == ("kaelin",)
    with pytest.raises(RuleError, match="not prone"):
        t(cmd.TakeAction(who="kaelin", action="stand"))


def test_evade_won_by_defender_avoids_damage():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "50")
    react(t, "grusk", "evade", "2")  # Evade 32: critical beats success
    rr = t.new(ev.ReactionResolved)[0]
    assert rr.effects["hit"] == 0 and rr.effects["winner"] == 2
    choose(t, "grusk", "none")
    assert not t.log(ev.DamageDealt) and t.state.exchange is None


def test_critical_special_effects_chosen_before_damage():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "3")  # critical (<= 7)
    react(t, "grusk", "parry", "70")  # failure: attacker wins 2 effects
    step = t.step()
    assert step.kind == "special-effect" and step.data["left"] == 2
    assert {"maximize-damage", "bypass-armor", "bleed", "impale", "choose-location"} <= set(step.options)
    assert not t.log(ev.DamageDealt)  # effects come first (seed 001)
    choose(t, "kaelin", "maximize-damage")
    choose(t, "kaelin", "bypass-armor")
    choose(t, "kaelin", "worn")  # seed 001 "Bypass Armor": the attacker decides which of the two
    dmg = t.step()
    assert dmg.kind == "damage" and [d.expr for d in dmg.dice] == ["1D2", "1D20"]  # the 1D8 is maximised
    t(cmd.RollPending(), "2,11")  # 8 + 2 = 10 to the chest; worn 2 bypassed, natural 1 left
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.rolled, dd.armour, dd.final, dd.critical) == (10, 1, 9, True)
    assert [e.effect for e in t.log(SpecialEffectChosen)] == ["maximize-damage", "bypass-armor"]
    # chest 8 HP - 9 = -1: Serious Wound, then 1D3 turns and the opposed Endurance roll
    assert t.new(ev.WoundInflicted)[0].severity == "serious"
    end = t.step()
    assert end.kind == "wound" and [d.expr for d in end.dice] == ["1D3", "1D100"]
    t(cmd.RollPending(), "2,90")  # Endurance fails: the chest -> unconscious
    assert t.c("grusk").status == "unconscious"
    assert t.state.phase == "over" and t.state.winner == "heroes"


def test_enhance_parry_deflects_everything():
    """Grusk's Huge Maul against Kaelin's Large shield: a critical parry wins
    one Special Effect (A+1) and Enhance Parry deflects all (seed 001)."""
    t = kaelin_first()
    t(cmd.TakeAction(who="kaelin", action="pass"))
    attack(t, "grusk", "kaelin", "20")
    react(t, "kaelin", "parry", "5")
    step = t.step()
    assert step.who == "kaelin" and "enhance-parry" in step.options and "circumvent-parry" not in step.options
    choose(t, "kaelin", "enhance-parry")
    t(cmd.RollPending(), "6,6,4,11")
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.rolled, dd.reduced, dd.final) == (16, 16, 0)


def test_circumvent_parry_and_force_failure():
    """Seed 001: on a critical, Circumvent Parry bypasses a successful parry;
    Force Failure (opponent fumbled) makes Trip Opponent succeed outright."""
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "2")  # critical
    react(t, "grusk", "parry", "10")  # success: the Maul would block all; A: P+1
    choose(t, "kaelin", "circumvent-parry")
    t(cmd.RollPending(), "8,2,11")
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.rolled, dd.reduced, dd.armour, dd.final) == (10, 0, 3, 7)
    t2 = kaelin_first()
    attack(t2, "kaelin", "grusk", "30")
    react(t2, "grusk", "parry", "99")  # fumble: P+2
    assert "force-failure" in t2.step().options  # offered while an effect with an opposed roll is available
    choose(t2, "kaelin", "trip-opponent")
    assert "force-failure" in t2.step().options
    choose(t2, "kaelin", "force-failure")
    assert t2.c("grusk").stance == "prone" and t2.step().kind == "damage"


def test_force_failure_with_bleed_skips_the_endurance_roll():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "parry", "00")  # fumble: P+2
    choose(t, "kaelin", "bleed")
    choose(t, "kaelin", "force-failure")
    t(cmd.RollPending(), "5,1,11")  # 6 to the chest, AP 3 -> 3
    assert t.c("grusk").has("bleeding") and not [e for e in t.new(ev.SkillTested) if e.skill == "Endurance"]
    assert t.state.turn == ("grusk",)


def test_choose_location_and_stackable_rules():
    t = kaelin_first()
    t(cmd.TakeAction(who="kaelin", action="pass"))
    attack(t, "grusk", "kaelin", "4")  # critical (<= 6)
    react(t, "kaelin", "parry", "99")  # fumble: P+3
    step = t.step()
    assert step.data["left"] == 3 and "stun-location" in step.options and "bleed" not in step.options
    choose(t, "grusk", "choose-location")
    assert t.step().kind == "location"
    choose(t, "grusk", "left arm")
    assert "choose-location" not in t.step().options  # not stackable
    choose(t, "grusk", "stun-location")
    choose(t, "grusk", "none")
    dmg = t.step()
    assert [d.purpose for d in dmg.dice] == ["Maul damage", "damage modifier"]  # no location die
    t(cmd.RollPending(), "1,1,1")  # 2 + 1 = 3, left arm AP 2 -> 1
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.location, dd.final) == ("left arm", 1)
    assert t.step().kind == "wound" and t.step().data["reason"] == "stun"
    t(cmd.RollPending(), "95")  # Endurance fails against the critical
    cond = t.c("kaelin").conditions[0]
    assert cond.name == "stunned-location" and cond.location == "left arm" and cond.ends.count == 1


def test_bleed_costs_a_fatigue_level_each_round():
    """Seed 001 "Bleed": an opposed Endurance roll; on a failure one level of
    Fatigue at the start of each round (B19: Winded makes every roll Hard)."""
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "bleed")
    t(cmd.RollPending(), "5,1,11")  # 6 to the chest, AP 3 -> 3: the blow injures
    assert t.step().kind == "wound" and t.step().data["reason"] == "bleed"
    t(cmd.RollPending(), "90")
    assert t.c("grusk").has("bleeding")
    for who in ("grusk", "kaelin", "grusk"):
        t(cmd.TakeAction(who=who, action="pass"))
    t(cmd.EndRound())
    fat = [c for c in t.c("grusk").conditions if c.name == "fatigue"][0]
    assert fat.effects["level"] == 1 and fat.note.startswith("winded")
    t(cmd.TakeAction(who="kaelin", action="pass"))
    attack(t, "grusk", "kaelin", "50")
    assert t.new(ev.SkillTested)[0].target == 40  # Hard: ceil(60 × 2/3)


def test_serious_wound_to_the_sword_arm():
    """B15: a Serious Wound: no attacks for 1d3 turns, and a failed opposed
    Endurance roll loses the limb's use; the right hand lets its sword go."""
    t = kaelin_first()
    t(cmd.TakeAction(who="kaelin", action="pass"))
    attack(t, "grusk", "kaelin", "30")
    react(t, "kaelin", "none")
    choose(t, "grusk", "choose-location")
    choose(t, "grusk", "right arm")
    t(cmd.RollPending(), "3,3,2")  # 6 + 2 = 8, AP 2 -> 6; right arm 5 -> -1
    assert t.new(ev.WoundInflicted)[0].severity == "serious"
    t(cmd.RollPending(), "2,90")
    k = t.c("kaelin")
    assert k.has("useless-limb") and k.has("cannot-attack") and k.status == "active"
    assert k.ready == ("Heater Shield",)
    # 1D3 = 2 turns; Kaelin's next turn (the one beginning now) is the first of them
    assert [c.ends.count for c in k.conditions if c.name == "cannot-attack"] == [1]
    assert t.state.turn == ("kaelin",) and "attack" not in t.step().options


def test_trip_opponent_opposed_roll():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "parry", "20")
    choose(t, "grusk", "trip-opponent")
    step = t.step()
    assert step.kind == "trip" and step.who == "kaelin"
    t(cmd.RollPending(), "10")  # Brawn 49: success, but the lower roll loses to Grusk's 20 (B6)
    assert t.c("kaelin").stance == "prone"


def test_impale_rolls_twice_and_keeps_the_higher():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "impale")
    assert [d.expr for d in t.step().dice] == ["1D8", "1D8", "1D2", "1D20"]
    t(cmd.RollPending(), "2,7,1,5")  # keeps 7; +1 -> 8 to the left leg (AP 1) -> 7
    dd = t.new(ev.DamageDealt)[0]
    assert dd.final == 7 and "impale 2/7" in dd.note
    imp = [c for c in t.c("grusk").conditions if c.name == "impaled"][0]
    assert "formidable" in imp.note  # SIZ 15, Medium weapon (Impale Effects Table)
    # left leg 6 - 7 = -1: Serious Wound; the impaled weapon makes his rolls Formidable (48 -> 24)
    t(cmd.RollPending(), "2,3")
    tested = t.new(ev.SkillTested)[0]
    assert tested.target == 24 and tested.modifiers[0].reason.startswith("formidable")
    assert tested.result == "critical"  # beats the attack's success: the leg keeps its use
    assert not t.c("grusk").has("useless-limb") and t.c("grusk").has("cannot-attack")


def test_situational_grades():
    t = kaelin_first()
    t(cmd.DeclareAttack(attacker="kaelin", target="grusk", situations=("dim", "unstable")), "33")
    tested = t.new(ev.SkillTested)[0]
    assert tested.target == 33 and tested.result == "success"  # Formidable: ceil(65/2), the hardest applies
    assert "partial darkness" in tested.modifiers[0].reason
    t(cmd.ChooseReaction(defender="grusk", reaction="parry", situations=("from-behind",)), "31")
    assert t.new(ev.SkillTested)[0].target == 30


def test_prone_fights_at_formidable_and_simplified_grades():
    t = kaelin_first(rulings={"grade_style": "simplified"})
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "evade", "80")  # both fail; Grusk is prone now
    attack(t, "grusk", "kaelin", "50")
    assert t.new(ev.SkillTested)[0].target == 20  # 60 - 40 (simplified Formidable)


@pytest.mark.parametrize(
    "situations, fragment",
    [(("flying-pigs",), "unknown situation 'flying-pigs'"), (("from-behind",), "is for defence rolls")],
)
def test_bad_situations_one_line(situations, fragment):
    t = kaelin_first()
    with pytest.raises(RuleError, match=fragment):
        t(cmd.DeclareAttack(attacker="kaelin", target="grusk", situations=situations), "10")


def test_skills_over_100_shared_penalty():
    k = sheet("kaelin")
    k["combat_styles"][0]["skill"] = 120
    t = kaelin_first(kaelin=k)
    attack(t, "kaelin", "grusk", "00")  # over 100 only 00 fumbles (B3)
    assert t.new(ev.AttackResolved)[0].fumble
    t2 = kaelin_first(kaelin=k)
    attack(t2, "kaelin", "grusk", "11")  # 11 <= ceil(120/10) = 12 would be a critical at 120 ...
    # ... but the Differential Roll takes Kaelin's excess off at once (B8; issue 15 item 11)
    assert not t2.new(ev.AttackResolved)[0].critical and t2.new(ev.AttackResolved)[0].skill == 100
    react(t2, "grusk", "parry", "45")
    tested = [e for e in t2.new(ev.SkillTested) if e.handle == "grusk"][0]
    assert tested.target == 40 and tested.modifiers[0].value == -20  # 60 - (120 - 100), B8
    rr = t2.new(ev.ReactionResolved)[0]
    # in the differential roll Kaelin is at 100 too: 11 > 10 is a plain success; Grusk's 45 > 40 fails
    assert rr.cell == "differential:parry success/failure" and rr.effects["critical"] == 0


def test_over_100_ruling_none():
    k = sheet("kaelin")
    k["combat_styles"][0]["skill"] = 120
    t = kaelin_first(kaelin=k, rulings={"over_100_in_opposed": "none"})
    attack(t, "kaelin", "grusk", "11")
    react(t, "grusk", "parry", "45")
    assert t.new(ev.ReactionResolved)[0].cell == "differential:parry critical/success"


# --------------------------------------------------------------------------- #
# Wounds and whole fights (B15; seed 001)
# --------------------------------------------------------------------------- #


def test_golden_fight_major_wound_to_the_head():
    """Grusk first (Initiative 1,10: Kaelin 11, Grusk 18); a critical Maul
    blow, Choose Location head and Maximize Damage: 1D6+6 +1D4 = 16, head AP 3
    -> 13, head 6 - 13 = -7 <= -6: Major Wound, Incapacitated; the opposed
    Endurance roll fails against the critical, so Kaelin dies."""
    t = Table()
    t(cmd.StartRound(), "1,10")
    assert t.state.turn == ("grusk",)
    attack(t, "grusk", "kaelin", "5")
    react(t, "kaelin", "parry", "80")
    choose(t, "grusk", "choose-location")
    choose(t, "grusk", "head")
    choose(t, "grusk", "maximize-damage")
    assert [d.expr for d in t.step().dice] == ["1D6", "1D4"]
    t(cmd.RollPending(), "6,4")
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.location, dd.rolled, dd.armour, dd.final) == ("head", 16, 3, 13)
    assert t.new(ev.WoundInflicted)[0].severity == "major"
    assert t.c("kaelin").has("incapacitated")
    # seed 001 "Knockback": 16 damage over SIZ 14 throws Kaelin 5 ft back, then a fall roll
    assert t.step().kind == "knockback" and t.new(ev.CombatantMoved)[0].distance == 1.5
    t(cmd.RollPending(), "90")  # Athletics 49 fails: prone
    assert t.c("kaelin").stance == "prone"
    t(cmd.RollPending(), "50")
    assert t.c("kaelin").status == "dead"
    assert t.state.phase == "over" and t.state.winner == "orcs"
    assert [type(e).__name__ for e in t.log(ev.Event) if isinstance(e, (ev.FightEnded,))] == ["FightEnded"]
    with pytest.raises(RuleError, match="fight is over"):
        attack(t, "grusk", "kaelin", "5")


@pytest.mark.parametrize("boundary, severity", [("inclusive", "major"), ("strict", "serious")])
def test_major_wound_boundary_ruling(boundary, severity):
    """Head 6 HP takes 12: HP -6, at (not below) -starting HP (B15 and the
    Major Wound boundary ruling)."""
    t = Table(rulings={"major_wound_boundary": boundary})
    t(cmd.StartRound(), "1,10")
    attack(t, "grusk", "kaelin", "5")
    react(t, "kaelin", "parry", "80")
    choose(t, "grusk", "choose-location")
    choose(t, "grusk", "head")
    choose(t, "grusk", "maximize-damage")
    t(cmd.RollPending(), "5,4")  # 6 + 5 + 4 = 15, head AP 3 -> 12
    assert t.c("kaelin").location("head").hp == -6
    assert t.new(ev.WoundInflicted)[0].severity == severity


def test_golden_autoplay_with_table_dice():
    """A whole demo fight with table dice from a fixed generator ends with
    one side down, and the same dice give the same fight."""
    results = []
    for _ in range(2):
        store = EventStore(":memory:")
        from affray.commands.demo import setup

        eid = setup(store, "mythras-duel", seed=b"golden", allow_short_seed=True, manual=True)
        state = autoplay(store, eid, table_rng=random.Random(20261122))
        assert state.phase == "over" and state.winner in ("heroes", "orcs")
        loser = [c for c in state.combatants.values() if c.side != state.winner][0]
        assert not loser.can_fight
        results.append((state.winner, state.round, state.version,
                        tuple((h, c.status, tuple(l.hp for l in c.locations)) for h, c in state.combatants.items())))
    assert results[0] == results[1]


# --------------------------------------------------------------------------- #
# The command path: missing dice, undo, the CLI demo
# --------------------------------------------------------------------------- #


def test_missing_dice_names_what_the_step_needs():
    from affray.dice import MissingDice

    t = kaelin_first()
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "none")
    with pytest.raises(MissingDice, match="hit location"):
        t(cmd.RollPending(), "5,1")


def test_undo_restores_the_exchange():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "30")
    before = t.state
    react(t, "grusk", "parry", "40")
    t(cmd.Undo())
    assert t.state.pending == before.pending and t.c("grusk").combat_actions == 2


def test_cli_demo_system_mythras(tmp_path):
    from typer.testing import CliRunner

    from affray.cli.app import app

    db = tmp_path / "demo.db"
    result = CliRunner().invoke(app, ["--db", str(db), "demo", "--system", "cfi", "--seed", "0a0b" * 8],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "winner:" in result.stdout
    bad = CliRunner().invoke(app, ["--db", str(db), "demo", "--system", "dnd5e"])
    assert bad.exit_code == 2 and "unknown system 'dnd5e'" in bad.output


def test_golden_fight_two_rounds_to_unconsciousness():
    """A scripted fight, every die typed; expected figures by hand.

    Initiative 7,5: Kaelin 7+13−3 = 17, Grusk 5+10−2 = 13; 2 AP each.
    Round 1. Kaelin 40 (success) — Grusk parries with the Maul 50 (success):
    Huge against Medium deflects all; 1D8 4 + 1D2 2 = 6, all deflected.
    Grusk 25 (success) — Kaelin parries with the Heater Shield 60 (success):
    Large against Huge deflects half; 2D6 5+5 + 1D4 3 = 13 → 6, right arm
    AP 2 → 4: right arm 5 → 1, a Minor Wound. Nobody has AP left.
    Round 2 (Initiative kept). Kaelin 04 (critical) — Grusk parries 75
    (failure): 2 Special Effects, Choose Location (head) and Maximize
    Damage: 8 + 1D2 2 = 10, head AP 1 → 9: head 6 → −3, a Serious Wound.
    1D3 = 3 turns; Endurance 70 fails against the critical: a Serious Wound
    to the head knocks Grusk unconscious (B15). The heroes win.
    """
    t = Table()
    t(cmd.StartRound(), "7,5")
    attack(t, "kaelin", "grusk", "40")
    react(t, "grusk", "parry", "50")
    t(cmd.RollPending(), "4,2,10")
    assert t.new(ev.DamageDealt)[0].final == 0
    attack(t, "grusk", "kaelin", "25")
    react(t, "kaelin", "parry", "60")
    t(cmd.RollPending(), "5,5,3,13")
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.location, dd.rolled, dd.reduced, dd.armour, dd.final) == ("right arm", 13, 7, 2, 4)
    assert t.step().kind == "end-round"
    t(cmd.EndRound())
    assert t.state.round == 2 and t.state.turn == ("kaelin",)
    attack(t, "kaelin", "grusk", "04")
    react(t, "grusk", "parry", "75")
    choose(t, "kaelin", "choose-location")
    choose(t, "kaelin", "head")
    choose(t, "kaelin", "maximize-damage")
    t(cmd.RollPending(), "2")
    t(cmd.RollPending(), "3,70")
    s = t.state
    assert s.phase == "over" and s.winner == "heroes" and s.round == 2
    k, g = s.combatants["kaelin"], s.combatants["grusk"]
    assert (k.location("right arm").hp, k.location("right arm").wound, k.status) == (1, "minor", "active")
    assert (g.location("head").hp, g.location("head").wound, g.status) == (-3, "serious", "unconscious")
    assert [(e.effect, e.detail) for e in t.log(SpecialEffectChosen)] == [("choose-location", "head"), ("maximize-damage", "")]
    assert [e.winner for e in t.log(ev.FightEnded)] == ["heroes"]
