"""Hero Points in mrq1 (seed 004_71637fb3cfde52c9.txt, "Hero Points"):
Second Chance, Glancing Blow, Luck of the Heroes, one point per use,
counted against the sheet's ``hero_points`` (Vasana has 2, the Broo 0).
"""

from __future__ import annotations

import pytest

from affray.events import commands as cmd
from affray.commands.hero import second_chance
from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.projections.timeline import Timeline
from affray.rules.base import RuleError

from test_mrq1_flow import CHEST, RIGHT_LEG, Table, attack, duel, hit_vasana, react

H = cmd.SpendHeroPoint


def spend_second_chance(t: Table, who: str, dice: str = "", roll: int = 0):
    t.out = second_chance(t.store, who, dice=dice, roll=roll, encounter_id=t.eid, actor="gm")
    return t.out


def test_second_chance_rerolls_an_attack_on_the_character_and_supersedes_the_old_roll():
    """Second Chance: "re-roll any dice roll that affects his character". The
    Broo's hit on Vasana (40 <= 60) is re-rolled to 90, a miss."""
    t = duel(sr="1,10")  # the Broo acts first
    attack(t, "broo", "vasana", "40")
    old = next(r for r in t.out.records if isinstance(r.event, ev.DiceRolled))
    old_command = old.command_id
    spend_second_chance(t, "vasana", dice="90")
    new = t.one(ev.DiceRolled)
    assert (new.faces, new.supersedes) == ((90,), old.version)
    assert "Second Chance" in new.purpose
    spent = t.one(ev_mrq1.HeroPointSpent)
    assert (spent.option, spent.left, spent.roll) == ("second-chance", 1, old.version)
    assert not t.one(ev.AttackResolved).hit
    assert t.c("vasana").effect("hero-points-spent") == 1
    # the old roll is never erased: it stays in the log, its command retracted
    records = list(t.store.read(t.eid))
    assert any(r.version == old.version and r.event == old.event for r in records)
    assert Timeline(records).status(old_command) == "retracted"
    assert any("Hero Point: Second Chance" in n.text for n in t.new(ev.NoteAdded))


def test_second_chance_keeps_the_dice_before_the_reroll():
    """Re-rolling the defender's parry keeps nothing before it; re-rolling the
    attacker's fresh roll (the second roll) keeps the parry as it was."""
    t = duel()
    attack(t, "vasana", "broo", "40")
    react(t, "broo", "parry", "80,40")  # parry fails; Vasana's fresh roll 40 succeeds
    fresh = [r for r in t.out.records if isinstance(r.event, ev.DiceRolled)][1]
    spend_second_chance(t, "vasana", dice="03", roll=fresh.version)
    rolls = t.new(ev.DiceRolled)
    assert [(r.faces, r.supersedes) for r in rolls] == [((80,), 0), ((3,), fresh.version)]
    assert t.one(ev.ReactionResolved).cell == "parry:critical/failure"


def test_second_chance_with_engine_dice_draws_a_new_roll_number():
    t = duel(manual=False, sr="1,10")
    attack(t, "broo", "vasana", "")
    old = t.one(ev.DiceRolled)
    spend_second_chance(t, "vasana")
    new = t.one(ev.DiceRolled)
    assert new.source == "engine" and new.index > old.index and new.supersedes
    assert t.state.next_roll_index == new.index + 1


def test_second_chance_needs_a_hero_point_and_appends_nothing_without_one():
    t = duel()
    attack(t, "vasana", "broo", "40")
    before = t.store.version(t.eid)
    with pytest.raises(RuleError, match="no Hero Points left"):
        spend_second_chance(t, "broo", dice="90")
    assert t.store.version(t.eid) == before


def test_hero_points_are_counted_per_character():
    t = duel()
    t(H(who="vasana", option="luck", note="the bridge holds", approved=True))
    t(H(who="vasana", option="luck", note="a rope is at hand", approved=True))
    assert t.one(ev_mrq1.HeroPointSpent).left == 0
    with pytest.raises(RuleError, match=r"no Hero Points left \(2 spent of 2\)"):
        t(H(who="vasana", option="luck", note="again", approved=True))


def test_luck_of_the_heroes_needs_the_gms_approval_and_is_logged():
    t = duel()
    with pytest.raises(RuleError, match="approval"):
        t(H(who="vasana", option="luck", note="the bridge holds"))
    with pytest.raises(RuleError, match="note"):
        t(H(who="vasana", option="luck", approved=True))
    t(H(who="vasana", option="luck", note="the bridge holds", approved=True))
    assert t.one(ev_mrq1.HeroPointSpent).note == "the bridge holds"
    assert "approved by the GM: the bridge holds" in t.one(ev.NoteAdded).text


def test_glancing_blow_turns_a_major_chest_wound_serious():
    """Glancing Blow: Major becomes Serious, the location at minus its
    starting HP; the pending death test gives way to the Serious Wound's
    1D4 lost actions and consciousness test. Chest 5 HP, 11 damage -> -6."""
    t = hit_vasana(11, CHEST)
    assert t.c("vasana").has("death-test") is False and t.step().data["severity"] == "major"
    t(H(who="vasana", option="glancing-blow"))
    c = t.c("vasana")
    assert c.location("chest").hp == -5
    assert c.location("chest").wound == "serious"  # shown as the lesser wound (a wound-eased event)
    assert t.one(ev.WoundEased).reason == "Glancing Blow"
    assert not c.has("bleeding-out")
    step = t.step()
    assert (step.kind, step.data["severity"], step.data["tests"]) == ("wound", "serious", "consciousness")
    assert [d.expr for d in step.dice] == ["1D4", "1D100"]
    assert t.one(ev_mrq1.HeroPointSpent).location == "chest"
    t(cmd.RollPending(), "2,10")
    assert t.c("vasana").status == "active"
    lost = [e.condition for e in t.new(ev.ConditionApplied) if e.condition.name == "lost-actions"]
    assert lost[0].effects == {"lost-actions": 2}  # 1D4 = 2, and she loses the first at once


def test_glancing_blow_turns_a_severed_leg_useless():
    t = hit_vasana(11, RIGHT_LEG)
    t(cmd.RollPending(), "10")  # passes the consciousness test of the Major Wound
    t(H(who="vasana", option="glancing-blow", location="right leg"))
    c = t.c("vasana")
    assert c.location("right leg").wound == "serious"
    assert c.has("useless-limb") and not c.has("severed-limb") and not c.has("bleeding-out")
    assert not c.has("resilience-retest")  # a Serious limb wound has no re-tests


def test_glancing_blow_without_a_major_wound_is_refused():
    t = hit_vasana(7, CHEST)  # 5 - 7 = -2: serious
    with pytest.raises(RuleError, match="no Major Wound"):
        t(H(who="vasana", option="glancing-blow"))


@pytest.mark.parametrize("manual", [True, False])
def test_second_chance_log_replays_and_audits_clean(manual):
    """The spend is an ordinary command: re-deciding it from its record gives
    the same events (the audit), and a replay gives the same state."""
    from affray.audit import audit_encounter
    from affray.projections.timeline import project

    t = duel(manual=manual, sr="1,10")
    attack(t, "broo", "vasana", "40" if manual else "")
    react(t, "vasana", "dodge", "80,40" if manual else "")
    spend_second_chance(t, "vasana", dice="10" if manual else "")
    report = audit_encounter(t.store, t.eid)
    assert report.checked and not report.differences, report.differences
    assert project(list(t.store.read(t.eid))) == t.state


def test_cli_hero_point_when_none_are_left(cli):
    """One error line, exit 2, nothing appended; then a spend that works."""
    from conftest import BROO, SEED, VASANA, assert_user_error

    cli.ok("new", "Ford", "--system", "mrq1", "--seed", SEED)
    cli.ok("join", VASANA, "--side", "heroes")
    cli.ok("join", BROO, "--name", "Broo 1", "--side", "broo")
    before = cli.events()
    assert_user_error(cli("hero", "broo1", "luck", "--note", "a miracle", "--gm-approves"), "no Hero Points left")
    assert_user_error(cli("hero", "vasana", "luck", "--note", "a miracle"), "approval")
    assert_user_error(cli("hero", "vasana", "second-chance"), "Second Chance re-rolls a roll of the newest fight command")
    assert cli.events() == before
    result = cli.ok("hero", "vasana", "luck", "--note", "the ford is shallow here", "--gm-approves")
    assert "spends a Hero Point on Luck of the Heroes: the ford is shallow here; 1 left" in result.stdout


def test_cli_second_chance(cli):
    from conftest import BROO, VASANA

    cli.ok("new", "Ford", "--system", "mrq1", "--manual-dice")
    cli.ok("join", VASANA, "--side", "heroes")
    cli.ok("join", BROO, "--name", "Broo 1", "--side", "broo")
    cli.ok("start", "--dice", "1,10")  # Broo 1 first
    cli.ok("attack", "broo1", "vasana", "--dice", "40")
    result = cli.ok("hero", "vasana", "second-chance", "--dice", "90")
    assert "spends a Hero Point on Second Chance" in result.stdout
    assert "90 vs 60%" in result.stdout and "Second Chance" in result.stdout
    assert cli.combatant("vasana")["conditions"][0]["id"] == "hero-points-spent"
