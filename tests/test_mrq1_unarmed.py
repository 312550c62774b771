"""Unarmed attacks, natural weapons and impaled characters in mrq1.

Sources: seed 004_71637fb3cfde52c9.txt "Unarmed Combat", "Natural Weapons",
"Impaled Enemies" and "Yanking"; "Close Combat Situational Modifiers"
(target is helpless: automatic critical hit).

Figures: Ulfrik Fist 70% (1D3, +1D4), Dagger 40% (1D4+1, impaling,
critical <= 4), Athletics 60%, armour 1 everywhere; Broo Shortspear 60%
(1D8, AP 2), Head Butt (natural) 40% (1D6), Target Shield AP 6, hide 1 AP
(+ worn 2 on chest and abdomen); Vasana Athletics 45%.
"""

from __future__ import annotations

import msgspec
import pytest

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.base import RuleError

from test_mrq1_flow import TOUGH, Table, attack, duel, impaled_vasana, join, react, sheet


def brawl(**ulfrik) -> Table:
    t = Table(
        join(sheet("ulfrik", location_hp=TOUGH, **ulfrik), "heroes", "ulfrik"),
        join(sheet("broo", location_hp=TOUGH), "broo", "broo"),
    )
    t(cmd.StartRound(), "10,1")  # Ulfrik 22, Broo 11
    return t


@pytest.mark.parametrize("item, parry, hurts", [
    ("Shortspear", "30", True),  # crafted weapon, parry succeeds
    ("Head Butt", "30", True),  # a natural weapon may parry an unarmed attack, and hurts
    ("Shortspear", "80", False),  # the parry fails: not parried
])
def test_parried_unarmed_attack_takes_the_parrying_weapons_damage(item, parry, hurts):
    """Seed 004 Unarmed Combat: the attacker suffers the rolled damage of the
    parrying weapon, no damage modifier, to the limb he uses (the fist: his
    right arm), in addition to the normal effect of the parry."""
    t = brawl()
    attack(t, "ulfrik", "broo", "40", weapon="Fist")
    react(t, "broo", "parry", f"{parry},40", with_item=item)
    kinds = [s.kind for s in t.state.pending]
    if not hurts:
        assert kinds == ["damage"]
        return
    assert kinds == ["unarmed-parried", "damage"]  # "immediately", before his own damage
    step = t.step()
    assert step.who == "broo" and [d.expr for d in step.dice] == [{"Shortspear": "1D8", "Head Butt": "1D6"}[item]]
    t(cmd.RollPending(), "5")
    dealt = t.one(ev.DamageDealt)
    assert (dealt.target, dealt.location, dealt.rolled, dealt.armour, dealt.final) == ("ulfrik", "right arm", 5, 1, 4)
    assert t.step().kind == "damage" and t.step().who == "ulfrik"  # the parry's normal effect follows


def test_a_parrying_fist_does_not_hurt():
    t = Table(
        join(sheet("ulfrik", location_hp=TOUGH), "heroes", "ulfrik"),
        join(sheet("ulfrik", location_hp=TOUGH), "broo", "u2", name="Ulfrik II"),
    )
    t(cmd.StartRound(), "10,1")
    attack(t, "ulfrik", "u2", "40", weapon="Fist")
    react(t, "u2", "parry", "30,40", with_item="Fist")
    assert [s.kind for s in t.state.pending] == ["damage"]


def test_natural_weapons_may_not_parry_crafted_weapons():
    """Seed 004 Natural Weapons: "not crafted weapon attacks"."""
    t = duel()
    attack(t, "vasana", "broo", "40")
    with pytest.raises(RuleError, match="natural weapon and may not parry the crafted Broadsword"):
        react(t, "broo", "parry", "30,40", with_item="Head Butt")
    react(t, "broo", "parry", "30,40", with_item="Target Shield")  # a crafted item may


def test_impaled_creature_may_yank_the_weapon_free_with_a_combat_action():
    """Seed 004 Impaled Enemies: "The impaled creature may also spend a Combat
    Action to yank the impaling weapon free themselves"; Yanking: brute force
    Athletics, success: normal weapon damage to the same location."""
    t = impaled_vasana()
    t(cmd.MakeChoice(who="broo", option="leave"))
    assert t.c("vasana").has("impaled")
    t(cmd.TakeAction(who="vasana", action="yank"))
    assert t.c("vasana").combat_actions == 2
    t(cmd.RollPending(), "20")  # Athletics 45 - 20 (impaled) = 25: success
    assert [d.expr for d in t.step().dice] == ["1D8"]  # the Shortspear's damage
    t(cmd.RollPending(), "2")
    assert not t.c("vasana").has("impaled")
    assert t.c("vasana").location("chest").hp == 8 - 7 - 2


def test_failed_self_yank_deals_1d4_and_the_weapon_stays():
    t = impaled_vasana()
    t(cmd.MakeChoice(who="broo", option="leave"))
    t(cmd.TakeAction(who="vasana", action="yank"))
    t(cmd.RollPending(), "90")
    assert [d.expr for d in t.step().dice] == ["1D4"]
    t(cmd.RollPending(), "1")
    assert t.c("vasana").has("impaled")


def test_unarmed_hit_on_an_impaled_location_lays_hold_of_the_weapon():
    """Seed 004 Impaled Enemies: a successful unarmed attack on the impaled
    location lays hold of the impaling weapon; it may be yanked at once."""
    t = brawl(ready=["Dagger"])
    attack(t, "ulfrik", "broo", "03", weapon="Dagger")  # 03 <= 4: critical
    react(t, "broo", "none")
    t(cmd.RollPending(), "1,11")  # max 5 + 1 = 6 to the chest (AP 3)
    t(cmd.MakeChoice(who="ulfrik", option="leave"))
    assert t.c("broo").has("impaled") and "Dagger" not in t.c("ulfrik").ready
    t(cmd.TakeAction(who="broo", action="pass"))
    attack(t, "ulfrik", "broo", "40", weapon="Fist")
    react(t, "broo", "none")
    t(cmd.RollPending(), "1,1,11")  # chest again
    step = t.step()
    assert (step.kind, step.who, step.options) == ("lay-hold", "ulfrik", ("yank", "leave"))
    t(cmd.MakeChoice(who="ulfrik", option="yank"))
    t(cmd.RollPending(), "20")  # Athletics 60
    assert [d.expr for d in t.step().dice] == ["1D4+1"]
    t(cmd.RollPending(), "3")
    assert not t.c("broo").has("impaled")


def test_attacks_on_a_helpless_character_are_automatic_criticals():
    """Seed 004 situational modifiers: target is helpless: automatic critical
    hit; helpless characters may not dodge or parry. An immobilised Broo is
    helpless: a second hero's miss becomes a critical, unopposed."""
    t = Table(
        join(sheet("ulfrik", location_hp=TOUGH), "heroes", "ulfrik"),
        join(sheet("vasana"), "heroes", "vasana"),
        join(sheet("broo", location_hp=TOUGH), "broo", "b1", name="Broo 1"),
        join(sheet("broo", location_hp=TOUGH), "broo", "b2", name="Broo 2"),
    )
    t(cmd.StartRound(), "10,8,5,1")  # Ulfrik 22, Vasana 21, Broo 1 15, Broo 2 11
    t(cmd.Grapple(who="ulfrik", manoeuvre="attack", target="b1"), "40")
    t(cmd.ChooseReaction(defender="b1", reaction="dodge"), "80,03")  # critical grapple: follow-up
    t(cmd.Grapple(who="ulfrik", manoeuvre="immobilise"), "20")
    assert t.c("b1").effect("helpless") == 1
    attack(t, "vasana", "b1", "90")
    resolved = t.one(ev.AttackResolved)
    assert resolved.hit and resolved.critical
    assert t.step().kind == "damage"  # no reaction offered


def _with_limb(limb: str) -> dict:
    data = sheet("ulfrik", location_hp=TOUGH)
    data["weapons"] = [dict(w, limb=limb) if w["name"] == "Fist" else w for w in data["weapons"]]
    return data


def test_the_sheet_names_the_limb_an_unarmed_attack_uses():
    """Seed 004 Unarmed Combat: the parrying weapon's damage goes "to the limb
    he is using"; a weapon's ``limb`` on the sheet says which (a left-handed
    boxer), instead of our ruling's right arm."""
    t = Table(join(_with_limb("Left-Arm"), "heroes", "ulfrik"), join(sheet("broo", location_hp=TOUGH), "broo", "broo"))
    t(cmd.StartRound(), "10,1")
    attack(t, "ulfrik", "broo", "40", weapon="Fist")
    react(t, "broo", "parry", "30,40", with_item="Shortspear")
    assert "Ulfrik's left arm" in t.step().prompt
    t(cmd.RollPending(), "5")
    assert t.one(ev.DamageDealt).location == "left arm"


def test_a_limb_that_is_not_a_hit_location_is_refused():
    from affray.rules.mrq1.sheet import SheetError, compact, parse_sheet

    with pytest.raises(SheetError, match=r"weapons\[\d\]\.limb: 'tail' is not a hit location") as err:
        parse_sheet(_with_limb("tail"), "ulfrik.toml")
    assert "\n" not in str(err.value)
    parsed = parse_sheet(_with_limb("right-leg"), "ulfrik.toml")
    assert next(w for w in parsed.weapons if w.name == "Fist").limb == "right leg"
    # an empty limb is left out of the stored sheet, which stays as before the field existed
    plain = compact(msgspec.to_builtins(parse_sheet(sheet("ulfrik"), "ulfrik.toml")))
    assert all("limb" not in w for w in plain["weapons"])
