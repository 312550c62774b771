"""Every Special Effect of seed 001 that test_mythras_flow.py does not
already cover: eligibility and mechanics, each test named after the seed's
section ("Special Effect Descriptions" > NAME), through the real command
path with table dice.

Figures (see test_mythras_flow.py): Kaelin 65% (critical <= 7), Longsword
1D8 Medium cutting/impaling (AP 6, HP 12), Heater Shield Large (AP 6, HP
12), DM +1D2, STR 15, SIZ 14, chest 8 HP / 3 AP. Grusk 60% (critical <=
6), Maul 2D6 Huge bludgeoning two-handed (AP 4, HP 10), DM +1D4, STR 16,
SIZ 15, Brawn 51, Evade 32, chest 8 HP / 3 AP, legs 6 HP / 1 AP.
"""

from __future__ import annotations

import copy

import pytest

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events.mythras import SpecialEffectChosen
from affray.rules.base import RuleError
from affray.views.export import export

from test_mythras_flow import Table, attack, choose, kaelin_first, react, sheet


def kaelin_with(*weapons: dict, ready=None, **changes) -> dict:
    d = sheet("kaelin", **changes)
    d = copy.deepcopy(d)
    for w in weapons:
        d["weapons"].append({"reach": "medium", "ap": 0, "hp": 0, "traits": [], "hands": 1, "kind": "melee", **w})
        d["combat_styles"][0]["weapons"].append(w["name"])
    if ready is not None:
        d["ready"] = ready
    return d


def grusk_first(**kw) -> Table:
    """Kaelin passes her first turn: Grusk attacks next."""
    t = kaelin_first(**kw)
    t(cmd.TakeAction(who="kaelin", action="pass"))
    return t


def act(t, who, action, dice=""):
    return t(cmd.TakeAction(who=who, action=action), dice)


def effects(t):
    return [(e.by, e.effect, e.detail) for e in t.log(SpecialEffectChosen)]


# --------------------------------------------------------------------------- #
# Accidental Injury, Select Target (attacker fumbles)
# --------------------------------------------------------------------------- #


def test_accidental_injury_rolls_the_weapon_against_its_wielder():
    """Seed 001 "Accidental Injury": the fumbling attacker rolls damage
    against himself in a random location with the weapon used."""
    t = grusk_first()
    attack(t, "grusk", "kaelin", "99")  # fumble
    react(t, "kaelin", "parry", "30")  # success: A fumble / D success = D+2
    assert "accidental-injury" in t.step().options
    assert "select-target" not in t.step().options  # nobody else stands near
    choose(t, "kaelin", "accidental-injury")
    assert "accidental-injury" not in t.step().options
    choose(t, "kaelin", "none")
    step = t.step()
    assert step.kind == "injury" and step.who == "grusk" and [d.expr for d in step.dice] == ["2D6", "1D4", "1D20"]
    t(cmd.RollPending(), "3,4,2,11")  # 9 to Grusk's chest, AP 3 -> 6
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.target, dd.location, dd.rolled, dd.armour, dd.final) == ("grusk", "chest", 9, 3, 6)
    assert t.c("grusk").location("chest").hp == 2


def test_accidental_injury_unarmed_ignores_armour():
    t = grusk_first()
    t(cmd.DeclareAttack(attacker="grusk", target="kaelin", weapon="Fist"), "99")
    react(t, "kaelin", "parry", "30")
    choose(t, "kaelin", "accidental-injury")
    choose(t, "kaelin", "none")
    t(cmd.RollPending(), "2,1,11")  # Fist 2 + 1 = 3, armour ignored (seed 001)
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.target, dd.armour, dd.final) == ("grusk", 0, 3)


def three() -> Table:
    t = Table()
    b = sheet("grusk")
    b["name"] = "Brakka"
    t(cmd.JoinCombatant(sheet=b, side="orcs", handle="brakka"))
    t(cmd.StartRound(), "7,5,1")
    t(cmd.TakeAction(who="kaelin", action="pass"))
    return t


def test_select_target_turns_the_fumbled_blow_on_a_bystander():
    """Seed 001 "Select Target": on a fumble the defender deflects the blow
    into an adjacent bystander, who cannot avoid it (it hits automatically)
    and suffers no Special Effect."""
    t = three()
    attack(t, "grusk", "kaelin", "00")
    react(t, "kaelin", "parry", "30")
    assert "select-target" in t.step().options
    choose(t, "kaelin", "select-target")
    assert t.step().kind == "select-target" and t.step().options == ("brakka",)
    choose(t, "kaelin", "brakka")
    choose(t, "kaelin", "none")
    x = t.state.exchange
    assert x.target == "brakka" and "bystander" in x.kind
    assert [e.reaction for e in t.new(ev.ReactionChosen)] == ["none"]
    assert t.step().kind == "damage"  # no Special Effects for anyone
    t(cmd.RollPending(), "3,3,1,11")
    assert t.new(ev.DamageDealt)[0].target == "brakka"
    assert ("kaelin", "select-target", "brakka") in effects(t)


# --------------------------------------------------------------------------- #
# Bash, Sunder (weapon-type effects)
# --------------------------------------------------------------------------- #


def test_bash_knocks_back_and_an_obstacle_may_trip():
    """Seed 001 "Bash": a bludgeoning weapon knocks back 5 ft per 5 points
    of damage rolled; into an obstacle, Acrobatics or Hard Athletics or
    fall."""
    t = grusk_first()
    t(cmd.DeclareAttack(attacker="grusk", target="kaelin", situations=("obstacle-behind",)), "30")
    react(t, "kaelin", "none")
    assert "bash" in t.step().options
    choose(t, "grusk", "bash")
    t(cmd.RollPending(), "3,2,1,11")  # 6 damage: 5 ft back
    moved = t.new(ev.CombatantMoved)
    assert [(m.handle, m.distance, m.reason) for m in moved] == [("kaelin", 1.5, "Bash: 5 ft back")]
    step = t.step()
    assert step.kind == "bash" and step.who == "kaelin"
    t(cmd.RollPending(), "50")  # Athletics 49 at Hard = 33: fails
    assert t.c("kaelin").stance == "prone"
    tested = t.new(ev.SkillTested)[0]
    assert (tested.skill, tested.target) == ("Athletics", 33)


def test_bash_only_against_up_to_twice_the_siz_and_brace_doubles():
    """Seed 001 "Bash" works on creatures up to twice the attacker's SIZ;
    "Brace": against Bash SIZ is doubled."""
    big = sheet("grusk")
    big["characteristics"] = dict(big["characteristics"], SIZ=29)
    t = kaelin_first(grusk=big)
    t(cmd.DeclareAttack(attacker="kaelin", target="grusk", weapon="Heater Shield"), "30")
    react(t, "grusk", "none")
    assert "bash" not in t.step().options  # 29 > 2 x 14
    t2 = grusk_first()
    act(t2, "grusk", "pass")
    act(t2, "kaelin", "brace")  # SIZ 14 -> 28 against Bash, still <= 2 x 15
    assert t2.c("kaelin").has("braced")
    attack(t2, "grusk", "kaelin", "30")  # Kaelin has no AP left: no defence
    assert "bash" in t2.step().options


def test_bash_by_shield_is_5_ft_per_3_points():
    t = kaelin_first()
    t(cmd.DeclareAttack(attacker="kaelin", target="grusk", weapon="Heater Shield"), "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "bash")
    t(cmd.RollPending(), "4,2,11")  # 1D4 4 + 1D2 2 = 6: two steps of 3
    assert t.new(ev.CombatantMoved)[0].distance == 3.0


def test_sunder_tears_the_armour_before_the_flesh():
    """Seed 001 "Sunder": the surplus over the AP reduces the AP; what is
    left after the protection reaches 0 goes to Hit Points."""
    t = grusk_first()
    attack(t, "grusk", "kaelin", "30")
    react(t, "kaelin", "none")
    assert "sunder" in t.step().options  # two-handed Maul
    choose(t, "grusk", "sunder")
    t(cmd.RollPending(), "5,5,3,11")  # 13 to the chest, AP 3: surplus 10, 3 tear the armour, 7 wound
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.rolled, dd.final) == (13, 7)
    cond = [c for c in t.c("kaelin").conditions if c.name == "sundered"][0]
    assert cond.location == "chest" and cond.effects["ap-lost"] == 3
    assert t.c("kaelin").location("chest").hp == 1


def test_sunder_needs_a_two_handed_weapon():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    assert "sunder" not in t.step().options and "bash" not in t.step().options


# --------------------------------------------------------------------------- #
# Blind Opponent, Enhance/Slip Free (defender criticals)
# --------------------------------------------------------------------------- #


def test_blind_opponent_opposed_evade_then_a_grade_for_1d3_turns():
    """Seed 001 "Blind Opponent": on a critical parry; the attacker's
    opposed Evade against the parry roll; failed: Hard or Formidable for
    the next 1d3 Turns."""
    t = grusk_first()
    attack(t, "grusk", "kaelin", "30")
    react(t, "kaelin", "parry", "03")  # critical
    assert "blind-opponent" in t.step().options
    choose(t, "kaelin", "blind-opponent")
    assert t.step().kind == "blind-grade"
    choose(t, "kaelin", "formidable")
    step = t.step()
    assert step.kind == "blind" and step.who == "grusk" and [d.expr for d in step.dice] == ["1D100", "1D3"]
    t(cmd.RollPending(), "20,2")  # Evade 32 succeeds, but the critical parry wins
    blind = [c for c in t.c("grusk").conditions if c.name == "blinded"][0]
    assert blind.ends.count == 2 and blind.effects["grade"] == 4  # formidable
    t(cmd.RollPending(), "3,3,2,11")  # the blow, half deflected by the shield
    assert t.state.turn == ("grusk",)
    attack(t, "grusk", "kaelin", "50")
    assert t.new(ev.SkillTested)[0].target == 30  # Formidable: 60 / 2


def test_blind_opponent_needs_a_defender_critical():
    t = grusk_first()
    attack(t, "grusk", "kaelin", "30")
    react(t, "kaelin", "parry", "90")
    t2 = grusk_first()
    attack(t2, "grusk", "kaelin", "90")
    react(t2, "kaelin", "parry", "30")
    assert "blind-opponent" not in t2.step().options and "slip-free" not in t2.step().options


# --------------------------------------------------------------------------- #
# Damage Weapon, Disarm Opponent (offensive and defensive)
# --------------------------------------------------------------------------- #


def test_damage_weapon_by_the_attacker_strikes_the_parrying_weapon():
    """Seed 001 "Damage Weapon": the attacker's damage goes to the
    defender's parrying weapon, resisted by its own AP; not to the
    wielder."""
    t = grusk_first()
    attack(t, "grusk", "kaelin", "30")
    react(t, "kaelin", "parry", "80")  # a failed parry with the Heater Shield
    assert "damage-weapon" in t.step().options
    choose(t, "grusk", "damage-weapon")
    t(cmd.RollPending(), "5,5,3,11")  # 13 against AP 6: 7 HP lost of 12
    assert not t.new(ev.DamageDealt)
    cond = [c for c in t.c("kaelin").conditions if c.name == "weapon-damaged"][0]
    assert cond.effects["hp-lost"] == 7 and "Heater Shield" in t.c("kaelin").ready


def test_damage_weapon_breaks_at_zero_hit_points():
    k = sheet("kaelin")
    k["weapons"][1]["hp"] = 5
    t = grusk_first(kaelin=k)
    attack(t, "grusk", "kaelin", "30")
    react(t, "kaelin", "parry", "80")
    choose(t, "grusk", "damage-weapon")
    t(cmd.RollPending(), "5,5,3,11")
    assert "Heater Shield" not in t.c("kaelin").ready
    assert any(e.reason.startswith("broken") for e in t.new(ev.WeaponDropped))


def test_damage_weapon_by_the_defender():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "parry", "20")
    choose(t, "grusk", "damage-weapon")
    step = t.step()
    assert step.kind == "weapon-damage" and [d.expr for d in step.dice] == ["2D6", "1D4"]
    t(cmd.RollPending(), "6,6,4")  # 16 against the Longsword's AP 6: 10 of 12 HP
    cond = [c for c in t.c("kaelin").conditions if c.name == "weapon-damaged"][0]
    assert cond.id == "weapon-damaged:longsword" and cond.effects["hp-lost"] == 10


def test_damage_weapon_not_against_natural_weapons():
    t = grusk_first()
    t(cmd.DeclareAttack(attacker="grusk", target="kaelin", weapon="Fist"), "90")
    react(t, "kaelin", "parry", "20")
    assert "damage-weapon" not in t.step().options  # a fist has no Hit Points


def test_disarm_opponent_size_steps_and_the_flung_weapon():
    """Seed 001 "Disarm Opponent": the opponent's opposed Combat Style, a
    grade easier for each step the disarmer's weapon is smaller; lost, the
    weapon flies DM x3 feet; picking it up takes 2 Actions ("Ready")."""
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "parry", "70")  # failure: A+1
    choose(t, "kaelin", "disarm-opponent")
    step = t.step()
    assert step.kind == "disarm" and [d.expr for d in step.dice] == ["1D100", "1D2"]
    t(cmd.RollPending(), "00,2")  # Medium against Huge: two grades easier (Very Easy 120), but 00 fumbles
    assert t.new(ev.SkillTested)[0].target == 120
    dropped = t.new(ev.WeaponDropped)[0]
    assert dropped.weapon == "Maul" and "flung 6 ft" in dropped.reason
    assert "Maul" not in t.c("grusk").ready
    t(cmd.RollPending(), "1,1,11")  # the blow itself
    assert t.state.turn == ("grusk",)
    act(t, "grusk", "ready:maul")
    assert "Maul" not in t.c("grusk").ready  # one Action to reach for it...
    act(t, "kaelin", "pass")
    t(cmd.EndRound())
    act(t, "kaelin", "pass")
    act(t, "grusk", "ready:maul")
    assert "Maul" in t.c("grusk").ready  # ...and a second to stand ready


def test_disarm_opponent_resisted():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "parry", "70")
    choose(t, "kaelin", "disarm-opponent")
    t(cmd.RollPending(), "50,2")  # Grusk 50 beats Kaelin's 30 at the same level
    assert not t.new(ev.WeaponDropped) and "Maul" in t.c("grusk").ready


def test_disarm_only_up_to_twice_the_str():
    strong = sheet("grusk")
    strong["characteristics"] = dict(strong["characteristics"], STR=31)
    t = kaelin_first(grusk=strong)
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "parry", "70")
    assert "disarm-opponent" not in t.step().options


def test_force_failure_disarms_outright():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "parry", "99")  # fumble: A+2
    choose(t, "kaelin", "disarm-opponent")
    choose(t, "kaelin", "force-failure")
    assert [d.expr for d in t.step().dice] == ["1D2"]  # no resistance roll, only the distance
    t(cmd.RollPending(), "1")
    assert t.new(ev.WeaponDropped)[0].weapon == "Maul"


# --------------------------------------------------------------------------- #
# Entangle, Grip, Slip Free
# --------------------------------------------------------------------------- #

WHIP = {"name": "Whip", "damage": "1D3", "size": "small", "reach": "long", "traits": ["entangling"]}


def test_entangle_a_leg_then_trip_and_struggle():
    """Seed 001 "Entangle": a snared leg prevents moving; on the following
    turn the wielder may spend an Action Point on an automatic Trip
    Opponent attempt; the victim may Struggle with an Opposed Brawn."""
    t = kaelin_first(kaelin=kaelin_with(WHIP, ready=["Whip", "Heater Shield"]))
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    assert "entangle" in t.step().options
    choose(t, "kaelin", "entangle")
    t(cmd.RollPending(), "1,1,2")  # 2 to the right leg, AP 1 -> 1
    cond = [c for c in t.c("grusk").conditions if c.name == "entangled"][0]
    assert cond.location == "right leg" and cond.effects["from:kaelin"] == 1
    with pytest.raises(RuleError, match="entangled"):
        act(t, "grusk", "move")
    act(t, "grusk", "pass")
    act(t, "kaelin", "trip", "30")  # rolls the Whip's style at once
    step = t.step()
    assert step.kind == "trip" and step.who == "grusk"
    t(cmd.RollPending(), "95")
    assert t.c("grusk").stance == "prone"


def test_entangle_the_body_makes_every_roll_one_grade_harder_and_struggle_frees():
    t = kaelin_first(kaelin=kaelin_with(WHIP, ready=["Whip", "Heater Shield"]))
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "entangle")
    t(cmd.RollPending(), "1,1,11")  # chest
    assert t.state.turn == ("grusk",)
    act(t, "grusk", "struggle")
    step = t.step()
    assert step.kind == "struggle" and len(step.dice) == 2
    t(cmd.RollPending(), "10,90")  # Brawn 51 one grade harder (34): 10 succeeds, Kaelin's 90 fails
    tested = t.new(ev.SkillTested)
    assert tested[0].target == 34
    assert not t.c("grusk").has("entangled")


def test_entangle_by_the_defender_rolls_a_location():
    k = kaelin_with(WHIP, ready=["Whip", "Heater Shield"])
    t = grusk_first(kaelin=k)
    attack(t, "grusk", "kaelin", "90")
    t(cmd.ChooseReaction(defender="kaelin", reaction="parry", with_item="Whip"), "20")
    assert "entangle" in t.step().options
    choose(t, "kaelin", "entangle")
    assert t.step().kind == "entangle"
    t(cmd.RollPending(), "14")  # right arm
    cond = [c for c in t.c("grusk").conditions if c.name == "entangled"][0]
    assert cond.location == "right arm"
    # an entangled arm cannot use what it holds: the two-handed Maul is in both
    with pytest.raises(RuleError, match="entangled"):
        t(cmd.DeclareAttack(attacker="grusk", target="kaelin", weapon="Maul"), "30")


def test_grip_holds_and_slip_free_escapes():
    """Seed 001 "Grip": an unarmed hold prevents disengaging; "Slip Free":
    on a critical the defender escapes Entangle, Grip or Pin."""
    t = kaelin_first()
    t(cmd.DeclareAttack(attacker="kaelin", target="grusk", weapon="Fist"), "30")
    react(t, "grusk", "none")
    assert "grip" in t.step().options
    choose(t, "kaelin", "grip")
    t(cmd.RollPending(), "1,1,11")
    assert t.c("grusk").has("gripped")
    act(t, "grusk", "pass")
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "parry", "03")  # critical
    assert "slip-free" in t.step().options
    choose(t, "grusk", "slip-free")
    assert not t.c("grusk").has("gripped")


def test_grip_needs_an_unarmed_attack():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    assert "grip" not in t.step().options


def test_struggle_out_of_a_grip_uses_brawn_or_unarmed():
    t = kaelin_first()
    t(cmd.DeclareAttack(attacker="kaelin", target="grusk", weapon="Fist"), "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "grip")
    t(cmd.RollPending(), "1,1,11")
    act(t, "grusk", "struggle")
    t(cmd.RollPending(), "40,45")  # Brawn 51 / Kaelin's best of Brawn 49 and Unarmed 49: 40 < 45
    assert t.c("grusk").has("gripped")


# --------------------------------------------------------------------------- #
# Prepare Counter (secret)
# --------------------------------------------------------------------------- #


def test_prepare_counter_is_secret_and_substitutes_the_effect():
    """Seed 001 "Prepare Counter": the defender notes in secret an effect to
    counter; when the foe tries it, the defender substitutes one of his
    own, which succeeds automatically. Exports hide the secret."""
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "parry", "20")
    assert "prepare-counter" in t.step().options
    choose(t, "grusk", "prepare-counter")
    step = t.step()
    assert step.kind == "counter" and "trip-opponent" in step.options
    with pytest.raises(RuleError, match="--secret"):
        choose(t, "grusk", "trip-opponent")
    t(cmd.MakeChoice(who="grusk", option="trip-opponent", secret=True))
    cond = [c for c in t.c("grusk").conditions if c.name == "prepared-counter"][0]
    assert cond.effects["secret"] == 1 and cond.effects["from:kaelin"] == 1
    records = list(t.store.read(t.eid))
    public = export(records, "markdown")
    assert "Prepare Counter" in public and "against Kaelin's Trip Opponent" not in public
    jsonl = export(records, "jsonl")
    assert '"secret":true' not in jsonl and "prepared-counter" not in jsonl
    full = export(records, "markdown", show_secret=True)
    assert "against Kaelin's Trip Opponent" in full
    assert "prepared-counter" in export(records, "jsonl", show_secret=True)
    # the counter triggers: Kaelin tries Trip Opponent, Grusk substitutes a Disarm
    act(t, "grusk", "pass")
    attack(t, "kaelin", "grusk", "30")  # Grusk has no AP left: no defence
    choose(t, "kaelin", "trip-opponent")
    step = t.step()
    assert step.kind == "counter-effect" and step.who == "grusk" and "disarm-opponent" in step.options
    assert not t.c("grusk").has("prepared-counter")
    choose(t, "grusk", "disarm-opponent")
    assert "Longsword" not in t.c("kaelin").ready and t.c("grusk").stance == "standing"
    assert ("kaelin", "trip-opponent", "countered") in effects(t)
    assert t.step().kind == "damage"
    records = list(t.store.read(t.eid))
    assert "Prepare Counter" in export(records, "markdown")


def test_prepare_counter_stacks():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "parry", "03")  # critical against a failure: D+2
    choose(t, "grusk", "prepare-counter")
    t(cmd.MakeChoice(who="grusk", option="trip-opponent", secret=True))
    assert "prepare-counter" in t.step().options  # stackable (Special Effects Table)
    choose(t, "grusk", "prepare-counter")
    t(cmd.MakeChoice(who="grusk", option="disarm-opponent", secret=True))
    assert len([c for c in t.c("grusk").conditions if c.name == "prepared-counter"]) == 2


# --------------------------------------------------------------------------- #
# Yanking an impaled weapon (Impale, Impale Effects Table)
# --------------------------------------------------------------------------- #


def test_impaled_weapon_cannot_parry_and_is_yanked_for_half_damage():
    """Seed 001 "Impale": while it remains impaled the attacker cannot parry
    with it; withdrawing takes Ready Weapon and a Brawn roll (opposed if
    the victim resists); success does half the weapon's damage, no Damage
    Modifier, armour ignored."""
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "impale")
    t(cmd.RollPending(), "4,6,2,11")  # 6 + 2 = 8, chest AP 3 -> 5
    imp = [c for c in t.c("grusk").conditions if c.name == "impaled"][0]
    assert imp.effects["from:kaelin"] == 1 and imp.effects["weapon"] == 0
    assert t.state.turn == ("grusk",)
    attack(t, "grusk", "kaelin", "30")
    assert t.step().options == ("parry", "evade", "none") and "Longsword" not in t.step().prompt
    react(t, "kaelin", "none")
    choose(t, "grusk", "none")
    t(cmd.RollPending(), "1,1,1,2")  # 3 to the right leg, AP 2 -> 1
    assert t.state.turn == ("kaelin",) and "yank" in t.step().options
    with pytest.raises(RuleError, match="stuck"):
        t(cmd.DeclareAttack(attacker="kaelin", target="grusk", weapon="Longsword"), "30")
    act(t, "kaelin", "yank")
    step = t.step()
    assert step.kind == "yank" and [d.expr for d in step.dice] == ["1D100", "1D100", "1D8"]
    t(cmd.RollPending(), "10,90,6")  # Brawn 10 beats Grusk's 90: 6 halved = 3, armour ignored
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.location, dd.armour, dd.final) == ("chest", 0, 3)
    assert not t.c("grusk").has("impaled")
    assert t.c("grusk").location("chest").hp == 0 and t.step().kind == "wound"


def test_yank_failure_leaves_it_stuck():
    t = kaelin_first(rulings={"yank_resisted": "unopposed"})
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "impale")
    t(cmd.RollPending(), "1,1,1,2")
    act(t, "grusk", "pass")
    act(t, "kaelin", "yank")
    assert len(t.step().dice) == 2  # unopposed: no Brawn for Grusk
    t(cmd.RollPending(), "90,5")
    assert t.c("grusk").has("impaled") and not t.new(ev.DamageDealt)


# --------------------------------------------------------------------------- #
# Arise, Scar Foe, and what the GM sees (views/narrate.py)
# --------------------------------------------------------------------------- #


def test_arise_stands_the_prone_defender_up():
    """Seed 001 "Arise": a momentary opening to roll back up to one's feet."""
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "90")
    react(t, "grusk", "evade", "10")  # Evade 32 beats the miss; Grusk is prone after evading
    assert t.c("grusk").stance == "prone" and "arise" in t.step().options
    choose(t, "grusk", "arise")
    assert t.c("grusk").stance == "standing"


def test_scar_foe_is_recorded_and_narrated():
    """Seed 001 "Scar Foe" leaves a scar, and the narration tells the GM
    which Special Effect was chosen, by whom, against whom."""
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "30")
    react(t, "grusk", "none")
    choose(t, "kaelin", "scar-foe")
    t(cmd.RollPending(), "1,1,11")
    md = export(list(t.store.read(t.eid)), "markdown")
    assert "Kaelin chooses Scar Foe against Grusk" in md


def test_narration_of_details_and_counters():
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "03")
    react(t, "grusk", "none")
    choose(t, "kaelin", "choose-location")
    choose(t, "kaelin", "left arm")
    md = export(list(t.store.read(t.eid)), "markdown")
    assert "Kaelin chooses Choose Location against Grusk (left arm)" in md
