"""Mounted combat in mrq1 (seed 004_71637fb3cfde52c9.txt "Mounted Combat",
"Untrained Mounts", "Hit Locations in Mounted Combat", "Knockback", "Dodge").

Figures: Sir Aldric Longsword 75% (1D8, +1D2), Lance 55% (Spear), Great
Axe (2H Axe), Kite Shield 55%, Dodge 30%, Riding 60%, SIZ 15, Strike Rank
+7; Bayard (untrained horse) SIZ 26, Movement 15, Strike Rank +7; Broo
Target Shield 45%, Dodge 30%, Shortspear 60%, Strike Rank +10.
"""

from __future__ import annotations

import pytest

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.rules.base import RuleError

from test_mrq1_flow import MAUL, TOUGH, Table, attack, join, react, sheet  # noqa: F401


def cavalry(aldric: dict | None = None, broo: dict | None = None, *, riding: str = "30", sr: str = "10,1,1") -> Table:
    """Sir Aldric on Bayard against a Broo. Strike ranks (join order Aldric,
    Bayard, Broo): "10,1,1" gives 17, 8, 11; the Riding test comes first."""
    t = Table(
        join(aldric or sheet("aldric", location_hp=TOUGH), "heroes", "aldric"),
        join(sheet("bayard", location_hp=TOUGH), "heroes", "bayard"),
        join(broo or sheet("broo", location_hp=TOUGH), "broo", "broo"),
    )
    t(cmd.Mount(rider="aldric", mount="bayard"))
    assert t.c("aldric").has("mounted") and t.c("bayard").has("ridden")
    t(cmd.StartRound(), sr)
    if riding:
        step = t.step()
        assert (step.kind, step.who) == ("riding", "aldric")
        t(cmd.RollPending(), riding)
    return t


def test_untrained_mount_riding_test_each_round_or_it_flees():
    """Seed 004 Untrained Mounts: a Riding test at the start of each round;
    a failure makes the horse flee at every opportunity for the round."""
    t = cavalry(riding="90", sr="1,10,1")  # Aldric 8, Bayard 17, Broo 11
    assert not t.one(ev_mrq1.RidingTested).success
    assert t.c("bayard").has("mount-fleeing")
    step = t.step()
    assert (step.who, step.options) == ("bayard", ("flee",))
    with pytest.raises(RuleError, match="fleeing"):
        attack(t, "bayard", "broo", "40")
    t(cmd.TakeAction(who="bayard", action="flee"))
    assert t.c("bayard").moved == 15.0 and t.c("aldric").moved == 15.0  # the rider is carried off
    while t.step().kind == "turn":  # "at every opportunity": Bayard may not pass (issue 15, mrq1 item 7)
        t(cmd.TakeAction(who=t.step().who, action="flee" if t.step().who == "bayard" else "pass"))
    t(cmd.EndRound(), "10,1,1")
    assert not t.c("bayard").has("mount-fleeing")  # only for that round
    assert t.step().kind == "riding"  # and a new test in the new round


def test_trained_for_the_round_after_a_successful_riding_test():
    t = cavalry(riding="30")
    assert t.one(ev_mrq1.RidingTested).success and not t.c("bayard").has("mount-fleeing")
    assert t.step().who == "aldric" and t.step().kind == "turn"


def test_weapon_skill_capped_by_riding_and_plus_20_against_a_footman():
    """No weapon above Riding 60 (Longsword 75 -> 60), +20% against an
    adjacent foe on foot; the footman's parry suffers -20%."""
    t = cavalry()
    attack(t, "aldric", "broo", "80")
    tested = t.tests_of("aldric")[0]
    assert tested.target == 80
    assert ev.Modifier(-15, "mounted: Longsword capped at Riding 60%") in tested.modifiers
    assert ev.Modifier(20, "mounted against a foe on foot") in tested.modifiers
    react(t, "broo", "parry", "30,40")
    parry = t.tests_of("broo")[0]
    assert (parry.target, parry.result) == (25, "failure")  # Target Shield 45 - 20


def test_rider_parries_plus_20_and_dodges_minus_30():
    t = cavalry(sr="1,1,10")  # Broo 20 acts first
    attack(t, "broo", "aldric", "40")
    react(t, "aldric", "parry", "70,40")
    assert t.tests_of("aldric")[0].target == 75  # Kite Shield 55 + 20
    t(cmd.RollPending(), "1,1,11")
    t(cmd.TakeAction(who="aldric", action="pass"))
    t(cmd.TakeAction(who="bayard", action="pass"))
    attack(t, "broo", "aldric", "40")
    react(t, "aldric", "dodge", "03,40")  # Dodge 30 - 30 = 0: only 01-05 succeed
    assert t.tests_of("aldric")[0].target == 0
    assert ev.Modifier(-30, "dodging while mounted") in t.tests_of("aldric")[0].modifiers


def test_mounted_defender_gives_ground_at_the_mounts_movement():
    t = cavalry(sr="1,1,10")
    attack(t, "broo", "aldric", "40")
    react(t, "aldric", "dodge", "03,40")  # success/success: minimum damage, Give Ground
    t(cmd.RollPending(), "1,11")
    moved = t.one(ev.CombatantMoved)
    assert (moved.handle, moved.distance) == ("aldric", 15.0)


def test_prohibited_weapons_while_mounted():
    """A mounted warrior may not use 2H, Polearm or Staff weapons."""
    axe = sheet("aldric", location_hp=TOUGH, ready=["Great Axe"])
    t = cavalry(aldric=axe)
    with pytest.raises(RuleError, match="mounted and may not use Great Axe"):
        attack(t, "aldric", "broo", "40")
    t(cmd.Mount(rider="aldric", off=True))  # a combat action
    assert not t.c("aldric").has("mounted") and not t.c("bayard").has("ridden")
    t(cmd.TakeAction(who="broo", action="pass"))
    t(cmd.TakeAction(who="bayard", action="pass"))
    attack(t, "aldric", "broo", "40")
    assert t.tests_of("aldric")[0].target == 50  # on foot: no cap, no bonus


@pytest.mark.parametrize("weapon, dice, location", [
    ("Longsword", "5,1,2,11", "chest"),  # leg hit by a mounted attacker: re-rolled
    ("Lance", "5,1,2", "right leg"),  # unless the weapon depends on the Spear skill
])
def test_mounted_attacker_rerolls_leg_hits_on_footmen(weapon, dice, location):
    aldric = sheet("aldric", location_hp=TOUGH, ready=["Longsword", "Lance"])
    t = cavalry(aldric=aldric)
    attack(t, "aldric", "broo", "40", weapon=weapon)
    react(t, "broo", "none")
    t(cmd.RollPending(), dice)
    assert t.one(ev.DamageDealt).location == location
    rolls = [r for r in t.new(ev.DiceRolled) if r.purpose.startswith("hit location")]
    assert len(rolls) == (2 if location == "chest" else 1)


def test_footman_rerolls_head_hits_on_a_rider():
    t = cavalry(sr="1,1,10")
    attack(t, "broo", "aldric", "40")
    react(t, "aldric", "none")
    t(cmd.RollPending(), "3,1,19,11")  # head: re-rolled to the chest
    assert t.one(ev.DamageDealt).location == "chest"


@pytest.mark.parametrize("riding, knocked, mounted", [("30", 0, True), ("90", 1, False)])
def test_knockback_on_a_rider_adds_the_mounts_siz_on_a_riding_test(riding, knocked, mounted):
    """16 damage > SIZ 15: with the Riding test, SIZ 15 + 26 and no
    knockback; failed, his own SIZ: knocked back 1 m and off the horse."""
    broo = sheet("broo", damage_modifier="", weapons=[MAUL], ready=["Maul"], location_hp=TOUGH)
    t = cavalry(broo=broo, sr="1,1,10")
    attack(t, "broo", "aldric", "40")
    react(t, "aldric", "none")
    t(cmd.RollPending(), f"8,8,11,{riding}")
    assert [e.skill for e in t.new(ev.SkillTested)] == ["Riding"]
    assert len([e for e in t.new(ev.CombatantMoved) if e.reason == "knockback"]) == knocked
    assert t.c("aldric").has("mounted") is mounted
    assert (t.c("aldric").stance == "prone") is not mounted


def test_cli_prohibited_weapon_when_mounted(cli):
    """One error line, exit 2, nothing appended."""
    from conftest import BROO, EXAMPLES, assert_user_error

    cli.ok("new", "Joust", "--system", "mrq1", "--manual-dice")
    cli.ok("join", EXAMPLES / "aldric.toml", "--side", "heroes")
    cli.ok("join", EXAMPLES / "bayard.toml", "--side", "heroes")
    cli.ok("join", BROO, "--name", "Broo 1", "--side", "broo")
    cli.ok("mount", "siraldric", "bayard")
    cli.ok("start", "--dice", "10,1,1")
    cli.ok("roll", "--dice", "30")  # Riding: Bayard stays
    before = cli.events()
    result = cli("attack", "siraldric", "broo1", "--weapon", "great axe", "--dice", "20")
    assert_user_error(result, "mounted and may not use Great Axe")
    assert cli.events() == before
    out = cli.ok("attack", "siraldric", "broo1", "--dice", "20")
    assert "capped at Riding 60%" in out.stdout


def test_manual_dice_name_the_location_reroll_they_miss():
    """With table dice the re-roll is asked for when it is needed: one line
    naming it, nothing appended; typed with it, the command goes through."""
    from affray.dice import MissingDice

    t = cavalry()
    attack(t, "aldric", "broo", "40")
    react(t, "broo", "none")
    before = t.store.version(t.eid)
    with pytest.raises(MissingDice, match="hit location re-roll"):
        t(cmd.RollPending(), "5,1,2")
    assert t.store.version(t.eid) == before
    t(cmd.RollPending(), "5,1,2,11")
    assert t.one(ev.DamageDealt).location == "chest"


@pytest.mark.parametrize("seed", range(4))
def test_mounted_fights_run_to_the_end_and_audit_clean(seed):
    """Sir Aldric on the untrained Bayard against two Broos, played by the
    autopilot with engine dice: every rule path re-decides to the same events."""
    from affray.audit import audit_encounter
    from affray.commands.handler import execute
    from affray.commands.demo import autoplay
    from affray.projections.timeline import project

    from affray.store import EventStore

    store = EventStore(":memory:")
    eid = execute(store, cmd.OpenEncounter(name="joust", system="mrq1"), seed=bytes([seed, 7]), allow_short_seed=True).encounter_id
    for j in (
        join(sheet("aldric"), "heroes", "aldric"),
        join(sheet("bayard"), "heroes", "bayard"),
        join(sheet("broo"), "broo", "b1", name="Broo 1"),
        join(sheet("broo"), "broo", "b2", name="Broo 2"),
        cmd.Mount(rider="aldric", mount="bayard"),
    ):
        execute(store, j, encounter_id=eid)
    state = autoplay(store, eid)
    assert state.phase == "over"
    report = audit_encounter(store, eid)
    assert report.checked and not report.differences
    assert project(list(store.read(eid))) == state


def test_a_footman_as_tall_as_the_rider_lifts_the_plus_and_minus_20():
    """Seed 004 "Mounted Combat": the ±20% "do not apply if the target on
    foot is as tall as the mounted character is while mounted" (the GM says
    so with --situation as-tall); the Riding cap stays."""
    t = cavalry()
    attack(t, "aldric", "broo", "50", situations=("as-tall",))
    tested = t.tests_of("aldric")[0]
    assert tested.target == 60 and ev.Modifier(-15, "mounted: Longsword capped at Riding 60%") in tested.modifiers
    assert not any(m.reason == "mounted against a foe on foot" for m in tested.modifiers)
    react(t, "broo", "parry", "30,40", situations=("as-tall",))
    parry = t.tests_of("broo")[0]
    assert parry.target == 45 and not any("mounted attacker" in m.reason for m in parry.modifiers)


@pytest.mark.parametrize("costs, spent", [("true", 1), ("false", 0)])
def test_ruling_mount_costs_action(costs, spent):
    """Ruling ``mount_costs_action`` (seed 004 "Mounted Combat" is silent):
    dismounting in a round spends a Combat Action by default; with false it
    is free and the rider still has his turn."""
    t = Table(
        join(sheet("aldric", location_hp=TOUGH), "heroes", "aldric"),
        join(sheet("bayard", location_hp=TOUGH), "heroes", "bayard"),
        join(sheet("broo", location_hp=TOUGH), "broo", "broo"),
        rulings={"mount_costs_action": costs},
    )
    t(cmd.Mount(rider="aldric", mount="bayard"))  # before the round: free either way
    assert t.new(ev.ActionSpent) == []
    t(cmd.StartRound(), "10,1,1")
    t(cmd.RollPending(), "30")  # Bayard's Riding test
    before = t.c("aldric").combat_actions
    t(cmd.Mount(rider="aldric", off=True))
    assert before - t.c("aldric").combat_actions == spent
    assert not t.c("aldric").has("mounted")


def test_a_rider_dives_at_minus_30_and_is_dismounted():
    """Seed 004 "Dive", Penalties: "A mounted character may dive with a -30%
    penalty to Dodge Skill, but automatically dismounts when he does so"
    (and, like every diver, ends prone)."""
    t = cavalry()
    t(cmd.TakeAction(who="gm", action="area 2D6 on=aldric name=Rockfall"))
    t(cmd.ChooseReaction(defender="aldric", reaction="dive"), "05")
    dodge = t.tests_of("aldric")[0]
    assert ev.Modifier(-30, "diving from the saddle") in dodge.modifiers
    assert dodge.target == 0 and dodge.result != "critical"  # Dodge 30 - 30
    aldric = t.c("aldric")
    assert not aldric.has("mounted") and not t.c("bayard").has("ridden") and aldric.stance == "prone"
