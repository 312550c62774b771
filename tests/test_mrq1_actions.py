"""Mongoose RuneQuest 1 combat actions and free attacks, through the command
path with table dice.

Sources (seed 004_71637fb3cfde52c9.txt): "Combat Actions" (Aim, Cast
Spell, Charge, Defend, Delay, Fighting Retreat, Sprint, Flurry, Move, Ready
Weapon, Skill Use, Change Stance), "Free Attacks", "Knockback" (the
Charge's doubled distance) and rules-reference.md; the rulings named in
each test.

Figures (example sheets): Vasana Broadsword 65% (crit <= 6) 1D8, damage
modifier +1D4, Dodge 35%, Athletics 45%, Persistence 40%, Movement 8 m,
SIZ 15, Strike Rank +13. Broo: Shortspear 60% 1D8, Target Shield 45%,
Dodge 30%, Persistence 35%, Athletics 40%, Acrobatics 25%, +1D2, SIZ 13,
Strike Rank +10. Gorp: Club 45% 1D6, Sling 40% 1D8 range 50 m, Dodge 40%,
SIZ 8, Strike Rank +11, -1D2.
"""

from __future__ import annotations

import pytest

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.rules.base import RuleError

from test_mrq1_flow import TOUGH, Table, join, sheet

ACT = cmd.TakeAction
ROLL = cmd.RollPending()


def act(t: Table, who: str, action: str, dice: str = ""):
    return t(ACT(who=who, action=action), dice)


def attack(t: Table, attacker: str, target: str, dice: str = "", **kw):
    return t(cmd.DeclareAttack(attacker=attacker, target=target, **kw), dice)


def react(t: Table, who: str, reaction: str, dice: str = "", **kw):
    return t(cmd.ChooseReaction(defender=who, reaction=reaction, **kw), dice)


def three(*, broo: dict | None = None, gorp: dict | None = None, vasana: dict | None = None, sr: str = "10,5,1", **kw) -> Table:
    """Vasana (heroes) against the Broo and Gorp, round 1 started. Strike
    ranks with "10,5,1": Vasana 23, Broo 15, Gorp 12."""
    t = Table(
        join(vasana or sheet("vasana", location_hp=TOUGH), "heroes", "vasana"),
        join(broo or sheet("broo", location_hp=TOUGH), "broo", "broo"),
        join(gorp or sheet("gorp", location_hp=TOUGH), "broo", "gorp"),
        **kw,
    )
    t(cmd.StartRound(), sr)
    return t


def engage(t: Table, who: str, other: str) -> None:
    """``who`` moves next to ``other``, who lets the free attack go."""
    act(t, who, f"move 2 to={other}")
    if t.state.pending and t.step().kind == "free-attack":
        react(t, t.step().who, "none")
    assert other in t.c(who).engaged


def test_move_adjacent_draws_a_free_attack_and_engages():
    """Seed 004 "Free Attacks": moving adjacent to a character without a
    Charge gives him a free attack; "Move": up to Movement."""
    t = three()
    act(t, "vasana", "move 6 to=broo")
    step = t.step()
    assert (step.kind, step.who, step.options) == ("free-attack", "broo", ("attack", "none"))
    react(t, "broo", "none")
    moved = t.log(ev.CombatantMoved)[-1]
    assert (moved.handle, moved.distance) == ("vasana", 6.0)
    assert t.c("vasana").engaged == ("broo",)
    assert not t.c("vasana").has("acting")
    assert t.state.turn == ("broo",)


def test_move_further_than_movement_is_refused():
    t = three()
    with pytest.raises(RuleError, match="at most 8 m"):
        act(t, "vasana", "move 9")


def test_move_away_free_attack_damage_halves_the_move():
    """Seed 004 "Free Attacks": moving away without a Fighting Retreat; if
    the free attack causes damage, the Movement for that move is halved."""
    t = three()
    engage(t, "vasana", "broo")
    act(t, "broo", "pass")
    act(t, "gorp", "pass")
    act(t, "vasana", "move 8")
    assert t.step().kind == "free-attack"
    react(t, "broo", "attack", "30")  # 30 <= 60: hit
    react(t, "vasana", "none")
    t(ROLL, "4,1,11")  # 4 + 1 = 5 to the chest, AP 3 -> 2 HP
    moved = t.log(ev.CombatantMoved)[-1]
    assert (moved.handle, moved.distance) == ("vasana", 4.0)  # half of Movement 8
    assert "halved" in moved.reason
    assert t.c("vasana").engaged == ()


def test_fighting_retreat_draws_no_free_attack():
    """Seed 004 "Fighting Retreat": up to half Movement directly away from an
    enemy; no free attack."""
    t = three()
    engage(t, "vasana", "broo")
    act(t, "broo", "pass")
    act(t, "gorp", "pass")
    with pytest.raises(RuleError, match="1 to 4 m"):
        act(t, "vasana", "retreat 5")
    act(t, "vasana", "retreat 4")
    assert not any(s.kind == "free-attack" for s in t.state.pending)
    moved = t.new(ev.CombatantMoved)[0]
    assert (moved.distance, moved.away_from, moved.reason) == (4.0, "broo", "fighting retreat")
    assert t.c("vasana").engaged == ()


def test_retreat_needs_an_enemy_to_retreat_from():
    t = three()
    with pytest.raises(RuleError, match="not fighting anyone"):
        act(t, "vasana", "retreat 2")


def test_sprint_twice_movement_free_attacks_at_plus_20():
    """Seed 004 "Sprint": up to twice Movement; adjacent enemies get a free
    attack at +20%."""
    t = three()
    engage(t, "vasana", "broo")
    act(t, "broo", "pass")
    act(t, "gorp", "pass")
    with pytest.raises(RuleError, match="at most 16 m"):
        act(t, "vasana", "sprint 17")
    act(t, "vasana", "sprint 16")
    assert "+20%" in t.step().prompt
    react(t, "broo", "attack", "75")  # 75 <= 60 + 20
    tested = t.new(ev.SkillTested)[0]
    assert (tested.target, tested.result) == (80, "success")
    assert ev.Modifier(20, "free attack on a sprinting enemy") in tested.modifiers


def test_charge_attacks_with_plus_1d4_and_doubled_knockback():
    """Seed 004 "Charge": at least 5 m, up to twice Movement, then a close
    combat attack; +1D4 damage on a hit. "Knockback": the distance is
    doubled for a Charge."""
    t = three(gorp=sheet("gorp", location_hp=TOUGH))
    attack(t, "vasana", "gorp", "40", situations=("charge=12",))
    assert t.new(ev.CombatantMoved)[0].distance == 12.0
    assert t.new(ev.AttackDeclared)[0].kind == "charge"
    react(t, "gorp", "none")
    step = t.step()
    assert [d.purpose for d in step.dice] == ["Broadsword damage", "damage modifier", "charge bonus", "hit location"]
    t(ROLL, "8,4,4,11")  # 8 + 4 + 4 = 16 vs SIZ 8: 1 + 8 // 5 = 2 m, doubled = 4 m
    dealt = t.one(ev.DamageDealt)
    assert dealt.rolled == 16
    kb = [m for m in t.new(ev.CombatantMoved) if m.reason == "knockback"][0]
    assert kb.distance == 4.0


@pytest.mark.parametrize("metres,error", [(4, "at least 5 m"), (17, "at most 16 m")])
def test_charge_distance_limits(metres, error):
    t = three()
    with pytest.raises(RuleError, match=error):
        attack(t, "vasana", "broo", "40", situations=(f"charge={metres}",))


@pytest.mark.parametrize("extra,error", [("flurry", "flurry"), ("precise=head", "precise attack")])
def test_charge_is_never_a_flurry_or_precise(extra, error):
    """Seed 004 "Precise Attack": not as part of a charge or flurry."""
    t = three()
    with pytest.raises(RuleError, match=error):
        attack(t, "vasana", "broo", "40", situations=("charge=8", extra))


def test_charge_leaving_an_enemy_draws_his_free_attack_first():
    """Seed 004 "Free Attacks": moving away without a Fighting Retreat. The
    enemy charged gets none; the attack roll waits for the free attacks."""
    t = three()
    engage(t, "vasana", "broo")
    act(t, "broo", "pass")
    act(t, "gorp", "pass")
    attack(t, "vasana", "gorp", situations=("charge=8",))
    assert (t.step().kind, t.step().who) == ("free-attack", "broo")
    react(t, "broo", "attack", "90")  # misses
    assert (t.step().kind, t.step().who) == ("action-roll", "vasana")
    t(ROLL, "40")
    assert t.new(ev.AttackDeclared)[0].kind == "charge"
    assert t.step().who == "gorp"


def test_flurry_spends_every_action_each_blow_at_minus_20():
    """Seed 004 "Flurry": all remaining Combat Actions at once, -20% each."""
    t = three()
    engage(t, "vasana", "broo")
    act(t, "broo", "pass")
    act(t, "gorp", "pass")
    attack(t, "vasana", "broo", "90", situations=("flurry",))  # 2 actions left: two blows
    assert t.c("vasana").combat_actions == 0
    tested = t.new(ev.SkillTested)[0]
    assert tested.target == 45 and ev.Modifier(-20, "flurry") in tested.modifiers
    step = t.step()
    assert (step.kind, step.who) == ("flurry", "vasana")
    attack(t, "vasana", "broo", "95")
    assert t.new(ev.SkillTested)[0].target == 45
    assert not t.c("vasana").has("flurry")
    assert t.state.turn == ("broo",)


def test_aim_adds_ten_per_action_up_to_thirty_on_the_first_shot():
    """Seed 004 "Aim": +10% per Combat Action, at most three (+30%), only
    the first attack with the weapon, at the target aimed at."""
    gorp = sheet("gorp", location_hp=TOUGH, ready=["Sling"], combat_actions=4)
    t = three(gorp=gorp, sr="1,1,10")  # Gorp first: 21
    act(t, "gorp", "aim vasana")
    assert t.c("gorp").effect("aim") == 10
    act(t, "vasana", "pass")
    act(t, "broo", "pass")
    act(t, "gorp", "aim vasana")
    act(t, "vasana", "pass")
    act(t, "broo", "pass")
    act(t, "gorp", "aim vasana")
    assert t.c("gorp").effect("aim") == 30
    act(t, "vasana", "pass")
    act(t, "broo", "pass")
    with pytest.raises(RuleError, match="\\+30%"):
        act(t, "gorp", "aim vasana")
    attack(t, "gorp", "vasana", "70", weapon="Sling")  # 70 <= 40 + 30
    tested = t.new(ev.SkillTested)[0]
    assert (tested.target, tested.result) == (70, "success")
    assert not t.c("gorp").has("aiming")


def test_aim_is_lost_by_any_other_action():
    gorp = sheet("gorp", location_hp=TOUGH, ready=["Sling"])
    t = three(gorp=gorp, sr="1,1,10")
    act(t, "gorp", "aim vasana")
    act(t, "vasana", "pass")
    act(t, "broo", "pass")
    act(t, "gorp", "defend")
    assert not t.c("gorp").has("aiming")


def test_cast_spell_takes_its_actions_then_is_cast():
    """Seed 004 "Cast Spell": many Combat Actions; the spell is a named
    effect the GM applies."""
    t = three()
    act(t, "vasana", 'cast "Bladesharp 2" actions=2')
    assert t.c("vasana").effect("progress") == 1
    act(t, "broo", "pass")
    act(t, "gorp", "pass")
    act(t, "vasana", "cast")
    spell = t.one(ev_mrq1.SpellCast)
    assert (spell.spell, spell.actions, spell.success) == ("Bladesharp 2", 2, True)
    assert not t.c("vasana").has("casting")


def test_casting_free_attack_damage_and_failed_persistence_break_the_spell():
    """Seed 004 "Free Attacks": a caster damaged by a free attack makes a
    Persistence test or the spell fails."""
    t = three()
    engage(t, "vasana", "broo")
    act(t, "broo", "pass")
    act(t, "gorp", "pass")
    act(t, "vasana", "cast Disruption")
    react(t, "broo", "attack", "10")
    react(t, "vasana", "none")
    t(ROLL, "6,2,11")  # 8 - AP 3 = 5 HP to the chest
    assert (t.step().kind, t.step().who) == ("free-attack-test", "vasana")
    t(ROLL, "90")  # Persistence 90 > 40
    spell = t.one(ev_mrq1.SpellCast)
    assert spell.success is False


def test_another_action_abandons_a_spell_in_progress():
    """Ruling multi_action_interrupted (default true)."""
    t = three()
    act(t, "vasana", "cast Heal actions=3")
    act(t, "broo", "pass")
    act(t, "gorp", "pass")
    act(t, "vasana", "defend")
    assert not t.c("vasana").has("casting")


def test_ready_weapon_draw_drop_and_sheathe():
    """Seed 004 "Ready Weapon": drawing takes one action; dropping one and
    drawing another, one; sheathing one and drawing another, two."""
    v = sheet("vasana", location_hp=TOUGH, ready=["Broadsword"])
    v["weapons"] = v["weapons"] + [dict(name="Dagger", skill=50, damage="1D4+1", ap=4, hp=6, kind="melee")]
    t = three(vasana=v)
    act(t, "vasana", "ready 'Target Shield'")
    assert t.c("vasana").ready == ("Broadsword", "Target Shield")
    act(t, "broo", "pass")
    act(t, "gorp", "pass")
    with pytest.raises(RuleError, match="no free hand"):
        act(t, "vasana", "ready Dagger")
    act(t, "vasana", "ready Dagger drop=Broadsword")
    assert t.c("vasana").ready == ("Target Shield", "Dagger")
    t(cmd.EndRound(), "10,5,1")
    act(t, "vasana", "ready Broadsword sheathe=Dagger")
    assert t.c("vasana").effect("progress") == 1 and "Broadsword" not in t.c("vasana").ready
    act(t, "broo", "pass")
    act(t, "gorp", "pass")
    act(t, "vasana", "ready Broadsword sheathe=Dagger")
    assert t.c("vasana").ready == ("Target Shield", "Broadsword")
    assert [e.reason for e in t.new(ev.WeaponDropped)] == ["sheathed"]


def test_readying_under_a_free_attack_failed_dodge_drops_the_weapon():
    """Seed 004 "Free Attacks": damage while readying: a Dodge test or the
    weapon is dropped instead of readied."""
    v = sheet("vasana", location_hp=TOUGH, ready=["Broadsword"])
    t = three(vasana=v)
    engage(t, "vasana", "broo")
    act(t, "broo", "pass")
    act(t, "gorp", "pass")
    act(t, "vasana", "ready 'Target Shield'")
    react(t, "broo", "attack", "10")
    react(t, "vasana", "none")
    t(ROLL, "6,2,11")
    t(ROLL, "80")  # Dodge 80 > 35
    assert t.new(ev.WeaponDropped)[0].weapon == "Target Shield"
    assert "Target Shield" not in t.c("vasana").ready


def test_reload_a_ranged_weapon_after_the_shot():
    """Seed 004 "Ready Weapon" and "Loading Ranged Weapons": a shot needs the
    weapon readied (reloaded) again; a weapon with reload 2 takes two."""
    gorp = sheet("gorp", location_hp=TOUGH, ready=["Sling"])
    gorp["weapons"][1]["reload"] = 2
    t = three(gorp=gorp, sr="1,1,10")
    attack(t, "gorp", "vasana", "90", weapon="Sling")
    act(t, "vasana", "pass")
    act(t, "broo", "pass")
    with pytest.raises(RuleError, match="not loaded"):
        attack(t, "gorp", "vasana", "10", weapon="Sling")
    act(t, "gorp", "ready Sling")
    assert t.c("gorp").effect("progress") == 1
    act(t, "vasana", "pass")
    act(t, "broo", "pass")
    act(t, "gorp", "reload")
    assert not t.c("gorp").has("unloaded")


def test_change_stance_and_standing_up_under_a_free_attack():
    """Seed 004 "Change Stance" (free attacks), and "Free Attacks": standing
    from prone and damaged, an Athletics test or stay prone."""
    t = three()
    engage(t, "vasana", "broo")
    act(t, "broo", "pass")
    act(t, "gorp", "pass")
    act(t, "vasana", "stance prone")
    react(t, "broo", "none")
    assert t.c("vasana").stance == "prone"
    t(cmd.EndRound(), "10,5,1")
    assert "stand" in t.step().options
    act(t, "vasana", "stand")
    react(t, "broo", "attack", "10")  # prone target: +20
    react(t, "vasana", "none")
    t(ROLL, "6,2,11")
    t(ROLL, "90")  # Athletics 90 > 45
    assert t.c("vasana").stance == "prone"
    act(t, "broo", "pass")
    act(t, "gorp", "pass")
    act(t, "vasana", "stand")
    react(t, "broo", "none")
    assert t.c("vasana").stance == "standing"


def test_skill_use_is_a_test_as_an_action():
    """Seed 004 "Skill Use"; rules-reference E3 difficulty grades."""
    t = three()
    act(t, "vasana", "skill Acrobatics diff=hard", "05")  # First Aid now needs target= (test_mrq1_fidelity)
    tested = t.one(ev.SkillTested)
    assert (tested.skill, tested.base, tested.target, tested.result) == ("Acrobatics", 30, 0, "success")
    assert t.c("vasana").combat_actions == 2


def test_delay_after_acts_after_the_named_character():
    """Seed 004 "Delay": wait until that character has finished his Combat
    Action; the delayer's place in the order is altered."""
    t = three()
    act(t, "vasana", "delay after=broo")
    assert t.state.turn == ("broo",)
    assert t.c("vasana").combat_actions == 3  # delaying spends nothing
    act(t, "broo", "pass")
    assert t.state.turn == ("vasana",)  # before Gorp
    act(t, "vasana", "pass")
    assert t.state.turn == ("gorp",)
    act(t, "gorp", "pass")
    # 2nd pass: Broo, then Vasana (her new place), then Gorp
    assert t.state.turn == ("broo",)
    act(t, "broo", "pass")
    assert t.state.turn == ("vasana",)


@pytest.mark.parametrize("dice,first", [("40,80", "vasana"), ("80,40", "broo")])
def test_delay_interrupt_opposed_test_decides_who_acts_first(dice, first):
    """Seed 004 "Delay": interrupting, an opposed test; whoever wins acts
    first."""
    t = three()
    act(t, "vasana", "delay interrupt=broo")
    assert t.state.turn == ("broo",)
    assert any(s.who == "vasana" and s.options == ("interrupt",) for s in t.state.pending)
    act(t, "vasana", "interrupt", dice)
    assert t.state.turn == (first,)
    act(t, first, "pass")
    assert t.state.turn == ({"vasana": "broo", "broo": "vasana"}[first],)


def test_ranged_attack_damaged_by_a_free_attack_fails():
    """Seed 004 "Free Attacks": if the free attack causes damage, the
    ranged attack fails."""
    gorp = sheet("gorp", location_hp=TOUGH, ready=["Sling"])
    t = three(gorp=gorp)
    engage(t, "vasana", "gorp")
    act(t, "broo", "pass")
    attack(t, "gorp", "vasana", weapon="Sling")
    assert (t.step().kind, t.step().who) == ("free-attack", "vasana")
    react(t, "vasana", "attack", "20")
    react(t, "gorp", "none")
    t(ROLL, "6,2,11")
    assert any("ranged attack fails" in e.text for e in t.new(ev_mrq1.ActionTaken))
    assert not t.log(ev.AttackDeclared)[-1].kind.startswith("ranged")
    assert t.c("gorp").has("unloaded")


def test_ranged_attack_undamaged_by_a_free_attack_rolls_after_it():
    gorp = sheet("gorp", location_hp=TOUGH, ready=["Sling"])
    t = three(gorp=gorp)
    engage(t, "vasana", "gorp")
    act(t, "broo", "pass")
    attack(t, "gorp", "vasana", weapon="Sling")
    react(t, "vasana", "attack", "90")  # misses
    assert t.step().kind == "action-roll"
    t(ROLL, "20")
    assert t.new(ev.AttackDeclared)[0].kind == "ranged"
    assert t.step().options == ("dodge", "none")


def test_free_attacks_are_never_precise():
    """Seed 004 "Free Attacks": not charges, flurries or precise attacks."""
    t = three()
    act(t, "vasana", "move 2 to=broo")
    with pytest.raises(RuleError, match="single close combat"):
        react(t, "broo", "attack", "30", situations=("precise=head",))


def test_area_effect_dive_halves_critical_avoids_and_always_prone():
    """Seed 004 "Dive": a Dodge test halves the damage, a critical avoids it
    all, and any diver ends prone."""
    t = three()
    act(t, "gm", "area 2D6 on=vasana,broo,gorp name=Fireball")
    react(t, "vasana", "dive", "20")  # Dodge 35: success
    react(t, "broo", "dive", "02")  # Dodge 30: critical (<= 3)
    react(t, "gorp", "none")
    t(ROLL, "5,5,11,11,11")
    dealt = {e.target: (e.rolled, e.final) for e in t.new(ev.DamageDealt)}
    assert dealt["vasana"] == (5, 2)  # 10 halved, chest AP 3
    assert dealt["broo"] == (0, 0)
    assert dealt["gorp"] == (10, 9)  # chest AP 1
    assert t.c("vasana").stance == "prone" and t.c("broo").stance == "prone" and t.c("gorp").stance == "standing"


def test_a_prone_character_may_not_dive():
    t = three()
    act(t, "vasana", "stance prone")
    act(t, "gm", "area 1D6 on=vasana")
    assert not any(s.kind == "dive" for s in t.state.pending)


@pytest.mark.parametrize("dodge,slammed", [("10", False), ("90", True)])
def test_knocked_back_into_a_wall_dodge_or_1d4(dodge, slammed):
    """Seed 004 "Knockback": knocked into a wall or other solid object, a
    Dodge test or 1D4 damage to a random hit location."""
    t = three(gorp=sheet("gorp", location_hp=TOUGH))
    attack(t, "vasana", "gorp", "40", situations=("wall",))
    react(t, "gorp", "none")
    t(ROLL, "8,4,11")  # 12 vs SIZ 8: knocked back 1 m
    assert "into a wall" in t.step().prompt
    t(ROLL, f"10,{dodge}")  # Acrobatics 10: stays up; then the Dodge
    if slammed:
        assert t.step().kind == "wall-damage"
        t(ROLL, "3,19")
        dealt = t.one(ev.DamageDealt)
        assert (dealt.location, dealt.rolled, dealt.final) == ("head", 3, 2)
    else:
        assert t.new(ev.DamageDealt) == []
