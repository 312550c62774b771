"""Grappling in mrq1 through the real command path, with table dice.

Sources: seed 004_71637fb3cfde52c9.txt, "Grappling" (the grapple attack, the
opposed roll, the Grapple table and its result texts), "Martial Arts",
"Grappling Combatants" (no Reactions, -20% to other tests, Break Free,
Immobilise, Inflict Pain, Throw); rules-reference.md "Seed ambiguities":
Grapple (ruling ``grapple_table``).

Figures (example sheets):

* Ulfrik: Fist (Unarmed) 70% (critical <= 7); damage modifier +1D4;
  Strike Rank +12; 3 combat actions.
* Broo: Head Butt (natural) 40%, Shortspear 60%, Dodge 30% (critical <= 3);
  STR 15, CON 12, SIZ 13, DEX 13; Strike Rank +10; Resilience 45%.
"""

from __future__ import annotations

import pytest

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.rules.base import RuleError
from affray.rules.mrq1 import tables

from test_mrq1_flow import TOUGH, Table, join, sheet

G = cmd.Grapple


def wrestle(broo: dict | None = None, **kw) -> Table:
    """Ulfrik (heroes) and a Broo, round 1: Ulfrik 10+12 = 22 acts first,
    the Broo 1+10 = 11."""
    t = Table(
        join(sheet("ulfrik", location_hp=TOUGH), "heroes", "ulfrik"),
        join(broo or sheet("broo", location_hp=TOUGH), "broo", "broo"),
        **kw,
    )
    t(cmd.StartRound(), "10,1")
    return t


def grappled(**kw) -> Table:
    """Ulfrik has the Broo in a grapple (attack 40, Broo dodges 80: failure,
    Ulfrik's opposed test 40: success -> "Grapple succeeds")."""
    t = wrestle(**kw)
    t(G(who="ulfrik", manoeuvre="attack", target="broo"), "40")
    t(cmd.ChooseReaction(defender="broo", reaction="dodge"), "80,40")
    assert t.c("ulfrik").has("grappling") and t.c("broo").has("grappling")
    return t


# --------------------------------------------------------------------------- #
# The Grapple table: all nine cells (seed 004 "Grappling", Grapple table)
# --------------------------------------------------------------------------- #

# Ulfrik's opposed Unarmed 70% (critical <= 7); the Broo's Dodge 30% (critical <= 3)
ATT = {"failure": "90", "success": "40", "critical": "03"}
DFN = {"failure": "80", "success": "20", "critical": "02"}
GRAPPLE_CELLS = {
    # (attacker, defender): (grappling, follow-up Immobilise or Throw, defender may Riposte)
    ("failure", "failure"): (False, False, False),  # Grapple fails
    ("failure", "success"): (False, False, False),  # Grapple fails
    ("failure", "critical"): (False, False, True),  # Grapple fails; defender may Riposte
    ("success", "failure"): (True, False, False),  # Grapple succeeds
    ("success", "success"): (False, False, False),  # Grapple fails
    ("success", "critical"): (False, False, True),  # Grapple fails; defender may Riposte
    ("critical", "failure"): (True, True, False),  # succeeds; attacker may Immobilise or Throw
    ("critical", "success"): (True, False, False),  # Grapple succeeds
    ("critical", "critical"): (False, False, True),  # Grapple fails; defender may Riposte
}


@pytest.mark.parametrize(
    "att, dfn, holds, follow, riposte", [pytest.param(a, d, *v, id=f"{a}-{d}") for (a, d), v in GRAPPLE_CELLS.items()]
)
def test_grapple_table_cell(att, dfn, holds, follow, riposte):
    t = wrestle()
    t(G(who="ulfrik", manoeuvre="attack", target="broo"), "40")  # 40 <= 70: the grapple attack hits
    declared = t.one(ev.AttackDeclared)
    assert (declared.kind, declared.weapon) == ("grapple", "Fist")
    assert not t.new(ev.DamageDealt)  # "no damage is initially caused"
    step = t.step()
    assert (step.kind, step.who, step.options) == ("grapple-defence", "broo", ("unarmed", "weapon", "dodge"))
    t(cmd.ChooseReaction(defender="broo", reaction="dodge"), f"{DFN[dfn]},{ATT[att]}")
    resolved = t.one(ev.ReactionResolved)
    assert resolved.cell == f"grapple:{att}/{dfn}"
    assert resolved.outcome == tables.GRAPPLE[att, dfn].outcome
    assert [(e.handle, e.result) for e in t.new(ev.SkillTested)] == [("broo", dfn), ("ulfrik", att)]
    assert t.c("broo").reactions == 3  # opposing a grapple is not a Reaction (our ruling)
    assert t.c("ulfrik").has("grappling") is holds and t.c("broo").has("grappling") is holds
    if holds:
        assert "broo" in t.c("ulfrik").engaged
    step = t.step()
    if follow:
        assert (step.kind, step.who, step.options) == ("grapple-follow-up", "ulfrik", ("immobilise", "throw", "none"))
    elif riposte:
        assert (step.kind, step.who) == ("riposte", "broo")
        assert step.data["weapon"] == "Shortspear"
    else:
        assert (step.kind, step.who) == ("turn", "broo")


def test_grapple_attack_miss_causes_nothing():
    t = wrestle()
    t(G(who="ulfrik", manoeuvre="attack", target="broo"), "85")
    assert not t.one(ev.AttackResolved).hit
    assert not t.c("broo").has("grappling")
    assert t.step().who == "broo"


def test_grapple_table_ruling_parry_reads_the_parry_table():
    """Ruling grapple_table=parry (the seed's first paragraph): a hit on the
    Parry table is a hold, and there is no follow-up."""
    t = wrestle(rulings={"grapple_table": "parry"})
    t(G(who="ulfrik", manoeuvre="attack", target="broo"), "40")
    t(cmd.ChooseReaction(defender="broo", reaction="dodge"), "20,03")  # critical/success
    resolved = t.one(ev.ReactionResolved)
    assert resolved.outcome == tables.PARRY["critical", "success"].outcome
    assert t.c("broo").has("grappling") and t.step().kind == "turn"


def test_grapple_needs_an_unarmed_or_natural_weapon():
    t = wrestle()
    with pytest.raises(RuleError, match="unarmed or natural"):
        t(G(who="ulfrik", manoeuvre="attack", target="broo", weapon="Dagger"), "40")


def test_martial_arts_replaces_the_unarmed_skill():
    """Seed 004 "Martial Arts": may be used rather than any other skill in the grapple rules."""
    t = Table(
        join(sheet("ulfrik", skills={"Martial Arts": 90, "Dodge": 40}, location_hp=TOUGH), "heroes", "ulfrik"),
        join(sheet("broo", location_hp=TOUGH), "broo", "broo"),
    )
    t(cmd.StartRound(), "10,1")
    t(G(who="ulfrik", manoeuvre="attack", target="broo"), "85")
    tested = t.tests_of("ulfrik")[0]
    assert (tested.skill, tested.target) == ("Martial Arts", 90)


# --------------------------------------------------------------------------- #
# Grappling combatants (seed 004 "Grappling Combatants")
# --------------------------------------------------------------------------- #


def test_grappling_combatants_may_not_react_or_attack():
    t = grappled()
    cond = next(c for c in t.c("broo").conditions if c.name == "grappling")
    assert cond.id == "grappling:ulfrik" and cond.effects == {"grappling": 1, "penalty": -20}
    step = t.step()
    assert (step.who, step.verb, step.options) == ("broo", "grapple", ("break-free", "immobilise", "inflict-pain", "throw", "release", "pass"))
    with pytest.raises(RuleError, match="grappling Ulfrik and may not make a normal attack"):
        t(cmd.DeclareAttack(attacker="broo", target="ulfrik"), "40")
    with pytest.raises(RuleError, match="may not defend"):
        t(cmd.TakeAction(who="broo", action="defend"))


def test_grappling_minus_20_to_tests_not_aimed_at_the_partner():
    """A second Broo stabs the grappling Ulfrik: he may not react, and his
    Resilience test for the wound suffers -20% for grappling."""
    t = Table(
        join(sheet("ulfrik", location_hp={"chest": 2}), "heroes", "ulfrik"),
        join(sheet("broo", location_hp=TOUGH), "broo", "b1", name="Broo 1"),
        join(sheet("broo", location_hp=TOUGH), "broo", "b2", name="Broo 2"),
    )
    t(cmd.StartRound(), "10,5,1")  # Ulfrik 22, Broo 1 15, Broo 2 11
    t(G(who="ulfrik", manoeuvre="attack", target="b1"), "40")
    t(cmd.ChooseReaction(defender="b1", reaction="dodge"), "80,40")
    t(G(who="b1", manoeuvre="pass"))  # a grappling combatant may let his action go
    t(cmd.DeclareAttack(attacker="b2", target="ulfrik"), "40")
    assert any("grappling and may not use Reactions" in n.text for n in t.new(ev.NoteAdded))
    assert t.step().kind == "damage"
    t(cmd.RollPending(), "8,2,11")  # 10 to the chest, AP 1: 2 - 9 = -7 (major: below -2)
    t(cmd.RollPending(), "10,30")  # Resilience 50 - 20 = 30: death test 10 passes, consciousness 30 passes
    tested = [e for e in t.new(ev.SkillTested) if e.skill == "Resilience"]
    assert all(ev.Modifier(-20, "grappling") in e.modifiers and e.target == 30 for e in tested)


def test_immobilise_makes_the_partner_helpless():
    """Seed 004 Immobilise: an Unarmed test at minus the opponent's DEX+STR
    (13 + 15 = 28); immobilised enemies are helpless, so attacks on them
    are automatic critical hits."""
    t = grappled()
    t(cmd.TakeAction(who="broo", action="pass"))
    t(G(who="ulfrik", manoeuvre="immobilise"), "42")  # 70 - 28 = 42
    tested = t.tests_of("ulfrik")[0]
    assert tested.target == 42 and ev.Modifier(-28, "Broo's DEX+STR") in tested.modifiers
    assert ev.Modifier(-20, "grappling") not in tested.modifiers  # it targets his partner
    assert t.one(ev_mrq1.GrappleManoeuvred).success
    assert t.c("broo").has("immobilised") and t.c("broo").effect("helpless") == 1
    # held, not out of the fight (issue 15, mrq1 item 3): Ulfrik acts on
    assert t.state.phase == "round" and (t.step().kind, t.step().who) == ("turn", "ulfrik")


def test_immobilise_fails_above_the_penalised_skill():
    t = grappled()
    t(cmd.TakeAction(who="broo", action="pass"))
    t(G(who="ulfrik", manoeuvre="immobilise"), "43")
    assert not t.one(ev_mrq1.GrappleManoeuvred).success and not t.c("broo").has("immobilised")


def test_inflict_pain_deals_1d6_plus_damage_modifier_to_a_random_location():
    """Seed 004 Inflict Pain: penalty DEX+CON (13 + 12 = 25); 1D6 + damage
    modifier to a random location (armour counts)."""
    t = grappled()
    t(cmd.TakeAction(who="broo", action="pass"))
    t(G(who="ulfrik", manoeuvre="inflict-pain"), "45")  # 70 - 25 = 45
    step = t.step()
    assert (step.kind, [d.expr for d in step.dice]) == ("grapple-damage", ["1D6", "1D4", "1D20"])
    t(cmd.RollPending(), "5,3,11")  # 5 + 3 = 8 to the chest, AP 3 -> 5
    dealt = t.one(ev.DamageDealt)
    assert (dealt.location, dealt.rolled, dealt.armour, dealt.final) == ("chest", 8, 3, 5)
    assert t.c("broo").has("grappling")  # the grapple goes on


def test_throw_ends_the_grapple_and_deals_1d6():
    """Seed 004 Throw: penalty DEX+SIZ (13 + 13 = 26); thrown 2 metres, 1D6
    damage to a random location; the grapple ends."""
    t = grappled()
    t(cmd.TakeAction(who="broo", action="pass"))
    t(G(who="ulfrik", manoeuvre="throw"), "44")
    assert t.tests_of("ulfrik")[0].target == 44
    moved = t.one(ev.CombatantMoved)
    assert (moved.handle, moved.distance, moved.reason) == ("broo", 2.0, "thrown")
    assert not t.c("broo").has("grappling") and not t.c("ulfrik").has("grappling")
    assert [d.expr for d in t.step().dice] == ["1D6", "1D20"]  # no damage modifier
    t(cmd.RollPending(), "6,1")  # right leg, hide 1
    dealt = t.one(ev.DamageDealt)
    assert (dealt.location, dealt.rolled, dealt.final) == ("right leg", 6, 5)


@pytest.mark.parametrize("partner, mine, freed", [("90", "80", True), ("40", "20", True), ("40", "80", False), ("03", "20", False)])
def test_break_free_reads_the_grapple_table_with_the_breaker_as_defender(partner, mine, freed):
    """Seed 004 Break Free: Unarmed or Natural Weapon skill only; a result of
    'grapple fails' frees him, still adjacent."""
    t = grappled()
    t(G(who="broo", manoeuvre="break-free"), f"{mine},{partner}")
    mine_test, theirs = t.new(ev.SkillTested)
    assert (mine_test.handle, mine_test.skill, mine_test.target) == ("broo", "Head Butt", 40)
    assert theirs.handle == "ulfrik"
    assert t.one(ev_mrq1.GrappleManoeuvred).success is freed
    assert t.c("broo").has("grappling") is not freed
    assert "ulfrik" in t.c("broo").engaged  # adjacent either way


def test_critical_grapple_follow_up_throw_costs_no_action():
    t = wrestle()
    t(G(who="ulfrik", manoeuvre="attack", target="broo"), "40")
    t(cmd.ChooseReaction(defender="broo", reaction="dodge"), "80,03")  # critical/failure
    assert t.c("ulfrik").combat_actions == 2
    t(G(who="ulfrik", manoeuvre="throw"), "30")
    assert t.c("ulfrik").combat_actions == 2  # "immediately", no combat action
    assert t.step().kind == "grapple-damage"


def test_release_ends_the_grapple():
    t = grappled()
    t(cmd.TakeAction(who="broo", action="pass"))
    t(G(who="ulfrik", manoeuvre="release"))
    assert not t.c("ulfrik").has("grappling") and not t.c("broo").has("grappling")


def test_grapple_manoeuvre_out_of_a_grapple_is_refused():
    t = wrestle()
    with pytest.raises(RuleError, match="not grappling"):
        t(G(who="ulfrik", manoeuvre="throw"), "30")


# --------------------------------------------------------------------------- #
# A golden grapple with fixed table dice, the demo, and bad input on the CLI
# --------------------------------------------------------------------------- #

GOLDEN = [
    # Strike ranks: Ulfrik d10 6 + 12 = 18, Broo 1 d10 2 + 10 = 12.
    (cmd.StartRound(), "6,2"),
    # Ulfrik's grapple attack: 35 <= 70 (not <= 7): a hit, no damage.
    (G(who="ulfrik", manoeuvre="attack", target="broo1"), "35"),
    # Broo 1 opposes with Unarmed (his Head Butt, 40%): 50 fails; Ulfrik's
    # opposed Unarmed test 20 <= 70 succeeds -> Grapple table success/failure:
    # "Grapple succeeds".
    (cmd.ChooseReaction(defender="broo1", reaction="unarmed"), "50,20"),
    # Broo 1 tries to break free (Head Butt 40%): 60 fails; Ulfrik 30 succeeds
    # -> success/failure: "Grapple succeeds": still held.
    (G(who="broo1", manoeuvre="break-free"), "60,30"),
    # Inflict Pain: 70 - (DEX 13 + CON 12) = 45; 40 succeeds.
    (G(who="ulfrik", manoeuvre="inflict-pain"), "40"),
    # 1D6 6 + 1D4 4 = 10 to the chest (d20 11), AP 3 -> 7: chest 7 -> 0, a
    # Minor Wound: Broo 1's next combat action (his 2nd) is lost.
    (cmd.RollPending(), "6,4,11"),
    # Ulfrik's 3rd action: Immobilise at 70 - (DEX 13 + STR 15) = 42; 30
    # succeeds: Broo 1 is helpless, yet held, not out of the fight (issue 15,
    # mrq1 item 3: this golden used to end here, "heroes" winning on a hold).
    (G(who="ulfrik", manoeuvre="immobilise"), "30"),
    # Nobody else can act: the GM ends round 1; round 2 strike ranks 6, 2.
    (cmd.EndRound(), "6,2"),
    # Inflict Pain on the held Broo: 10 <= 45 succeeds.
    (G(who="ulfrik", manoeuvre="inflict-pain"), "10"),
    # 6 + 4 = 10 to the chest again, AP 3 -> 7: chest 0 -> -7, a Serious Wound.
    (cmd.RollPending(), "6,4,11"),
    # 1D4 2 combat actions lost; Resilience 90 > 45 fails: unconscious, and
    # now nobody fights for the broo.
    (cmd.RollPending(), "2,90"),
]


def test_golden_grapple_with_fixed_dice():
    from affray.commands.demo import setup
    from affray.commands.handler import execute
    from affray.projections.timeline import project
    from affray.store import EventStore

    store = EventStore(":memory:")
    eid = setup(store, "mrq1-grapple", manual=True, seed=b"golden-grapple", allow_short_seed=True)
    for command, dice in GOLDEN:
        out = execute(store, command, encounter_id=eid, dice=dice, actor="gm")
    s = out.state
    assert (s.phase, s.winner, s.round) == ("over", "heroes", 2)
    u, b = s.combatants["ulfrik"], s.combatants["broo1"]
    assert [x.id for x in u.conditions] == ["grappling:broo1"]
    assert [x.id for x in b.conditions] == ["grappling:ulfrik", "immobilised", "lost-actions", "unconscious"]
    assert [(l.name, l.hp, l.wound) for l in b.locations if l.hp != l.max_hp] == [("chest", -7, "serious")]
    assert all(l.hp == l.max_hp for l in u.locations)
    assert b.status == "unconscious"
    manoeuvres = [(r.event.manoeuvre, r.event.success) for r in store.read(eid) if isinstance(r.event, ev_mrq1.GrappleManoeuvred)]
    assert manoeuvres == [("break-free", False), ("inflict-pain", True), ("immobilise", True), ("inflict-pain", True)]
    assert project(list(store.read(eid))) == s


def test_demo_scenario_mrq1_grapple_runs_to_the_end(cli):
    """``affray demo --scenario mrq1-grapple``: a grapple, its manoeuvres, an end."""
    result = cli.ok("demo", "--scenario", "mrq1-grapple")
    assert "tries to grapple" in result.stdout and "Grapple table" in result.stdout
    assert "Demo over" in result.stdout
    state = cli.state()
    assert state["phase"] == "over"
    cli.ok("verify", "--dice")


def _cli_grapple(cli):
    from conftest import EXAMPLES, SEED

    cli.ok("new", "Pit", "--system", "mrq1", "--seed", SEED)
    cli.ok("join", EXAMPLES / "ulfrik.toml", "--side", "heroes")
    cli.ok("join", EXAMPLES / "broo.toml", "--name", "Broo 1", "--side", "broo")
    cli.ok("start", "--dice", "6,2")
    cli.ok("grapple", "ulfrik", "attack", "broo1", "--dice", "35")
    cli.ok("react", "broo1", "unarmed", "--dice", "50,20")


def test_cli_reaction_while_grappled_is_refused(cli):
    """Seed 004 Grappling Combatants: "may not use Reactions"."""
    from conftest import assert_user_error

    _cli_grapple(cli)
    before = cli.events()
    result = cli("react", "broo1", "dodge", "--dice", "20,40")
    assert_user_error(result, "grappling Ulfrik and may not use Reactions")
    result = cli("attack", "broo1", "ulfrik", "--dice", "20")
    assert_user_error(result, "may not make a normal attack")
    assert cli.events() == before


def test_cli_grapple_manoeuvre_with_table_dice(cli):
    _cli_grapple(cli)
    result = cli.ok("grapple", "broo1", "break-free", "--dice", "60,30")
    assert "Grapple table, success/failure: Grapple succeeds" in result.stdout  # still held
    conditions = [c["id"] for c in cli.combatant("broo1")["conditions"]]
    assert conditions == ["grappling:ulfrik"]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("table", [False, True], ids=["engine", "table"])
def test_grapple_fights_run_to_the_end_and_audit_clean(seed, table):
    """The mrq1-grapple scenario played by the autopilot, engine or typed
    dice: it ends, replays to the same state and re-decides to the same events."""
    import random

    from affray.audit import audit_encounter
    from affray.commands.demo import autoplay, setup
    from affray.projections.timeline import project
    from affray.store import EventStore

    store = EventStore(":memory:")
    eid = setup(store, "mrq1-grapple", seed=bytes([seed, 1]), allow_short_seed=True, manual=table)
    state = autoplay(store, eid, table_rng=random.Random(seed) if table else None)
    assert state.phase == "over"
    report = audit_encounter(store, eid)
    assert report.checked and not report.differences
    assert project(list(store.read(eid))) == state


def test_ruling_grapple_damage_armour_off_lets_inflict_pain_through_armour():
    """Ruling ``grapple_damage_armour`` (seed 004 "Grappling Combatants" is
    silent on armour): false, and Inflict Pain's 8 points reach the chest
    whole (with the default, true, the chest's AP 3 absorbs 3)."""
    t = grappled(rulings={"grapple_damage_armour": "false"})
    t(cmd.TakeAction(who="broo", action="pass"))
    t(G(who="ulfrik", manoeuvre="inflict-pain"), "45")
    t(cmd.RollPending(), "5,3,11")
    dealt = t.one(ev.DamageDealt)
    assert (dealt.location, dealt.rolled, dealt.armour, dealt.final) == ("chest", 8, 0, 8)
