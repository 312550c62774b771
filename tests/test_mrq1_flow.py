"""Mongoose RuneQuest 1 rules through the real command path, with table dice.

Every test opens a manual-dice encounter, joins sheets built from the
examples, and drives it with :func:`affray.commands.handler.execute`, typing
each die with ``dice=``. Consequences are asserted on the projected State
(conditions, locations, stance, status, pending steps) and on the events the
command appended.

Sources: seed 004_71637fb3cfde52c9.txt (sections Close Combat Attacks,
Critical Hits, Reactions, Dodge, Parry, Riposte, Giving Ground, Overextended,
Hit Locations and wounds, Knockback, Impaling, Gaining Surprise, Defend,
Close Combat Situational Modifiers) and rules-reference.md section E and
"Seed ambiguities and our rulings".

Figures used below (from the example sheets, see their comments):

* Vasana: Broadsword 65% (critical <= 6), 1D8, AP 4; Target Shield 50%
  (critical <= 5), AP 6; Dodge 35% (critical <= 3); Resilience 45%;
  Acrobatics 30%; damage modifier +1D4; Strike Rank +13; SIZ 15;
  CON 14 + POW 12 = 26; 3 combat actions and 3 reactions.
* Broo: Shortspear 60% (critical <= 6), 1D8, impaling; Target Shield 45%
  (critical <= 4), AP 6; Dodge 30% (critical <= 3); Athletics 40%;
  damage modifier +1D2; Strike Rank +10; SIZ 13; head AP 1 worn + 1 hide.
* Gorp: SIZ 8; Club 45%, AP 4; Acrobatics 35%; Strike Rank +11.
"""

from __future__ import annotations

import msgspec
import pytest

from affray.events import commands as cmd
from affray.commands.handler import execute
from affray.commands.demo import examples_dir
from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.rules.base import RuleError
from affray.rules.mrq1 import tables
from affray.rules.mrq1.sheet import load_sheet
from affray.store import EventStore

EXAMPLES = examples_dir() / "mrq1"
LOCATIONS = tables.LOCATIONS
TOUGH = {loc: 20 for loc in LOCATIONS}  # no wounds get in the way of a table test
FIVE = {loc: 5 for loc in LOCATIONS}  # every location starts at 5 HP
MAUL = dict(name="Maul", skill=60, damage="2D8", ap=2, hp=5, kind="melee")


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #


def sheet(name: str, **changes) -> dict:
    """An example sheet as plain data, with top-level fields replaced."""
    path = EXAMPLES / (f"{name}.json" if name == "gorp" else f"{name}.toml")
    data = msgspec.to_builtins(load_sheet(path))
    data.update(changes)
    return data


def join(sheet_data: dict, side: str, handle: str, name: str = "", surprised: bool = False) -> cmd.JoinCombatant:
    return cmd.JoinCombatant(sheet=sheet_data, side=side, handle=handle, name=name, surprised=surprised)


class Table:
    """A manual-dice mrq1 encounter driven through ``execute``."""

    def __init__(self, *joins: cmd.JoinCombatant, rulings: dict | None = None, manual: bool = True):
        self.store = EventStore(":memory:")
        opened = execute(
            self.store,
            cmd.OpenEncounter(name="flow", system="mrq1", manual_dice=manual, rulings=rulings or {}),
            seed=b"flow-seed", allow_short_seed=True,
            actor="gm",
        )
        self.eid = opened.encounter_id
        self.out = opened
        for j in joins:
            self(j)

    def __call__(self, command: cmd.Command, dice: str = ""):
        self.out = execute(self.store, command, encounter_id=self.eid, dice=dice, actor="gm")
        return self.out

    # the last command ------------------------------------------------------
    @property
    def state(self):
        return self.out.state

    def new(self, cls=ev.Event) -> list:
        return [r.event for r in self.out.records if isinstance(r.event, cls)]

    def one(self, cls):
        found = self.new(cls)
        assert len(found) == 1, f"expected one {cls.__name__}, got {found}"
        return found[0]

    # the whole log ---------------------------------------------------------
    def log(self, cls=ev.Event) -> list:
        return [r.event for r in self.store.read(self.eid) if isinstance(r.event, cls)]

    def c(self, handle: str):
        return self.state.combatants[handle]

    def step(self):
        assert self.state.pending, "nothing is pending"
        return self.state.pending[0]

    def tests_of(self, handle: str) -> list[ev.SkillTested]:
        return [e for e in self.new(ev.SkillTested) if e.handle == handle]

    def pass_turns(self) -> None:
        """Every pending turn is passed until the end-of-round step."""
        while self.state.pending and self.step().kind == "turn":
            self(cmd.TakeAction(who=self.step().who, action="pass"))


def attack(t: Table, attacker: str, target: str, roll: str, **kw):
    return t(cmd.DeclareAttack(attacker=attacker, target=target, **kw), roll)


def react(t: Table, defender: str, reaction: str, dice: str = "", **kw):
    return t(cmd.ChooseReaction(defender=defender, reaction=reaction, **kw), dice)


def duel(vasana: dict | None = None, broo: dict | None = None, *, sr: str = "10,1", **kw) -> Table:
    """Vasana (heroes) against a Broo (broo), round 1 started.

    ``sr`` are the strike-rank d10s in join order: "10,1" gives Vasana
    10+13 = 23 and the Broo 1+10 = 11 (Vasana first); "1,10" gives 14 and 20.
    """
    t = Table(
        join(vasana or sheet("vasana"), "heroes", "vasana"),
        join(broo or sheet("broo", location_hp=TOUGH), "broo", "broo"),
        **kw,
    )
    t(cmd.StartRound(), sr)
    return t


# --------------------------------------------------------------------------- #
# The Parry table: 9 cells (seed 004 "Parry"), attacker's fresh roll sets the row
# --------------------------------------------------------------------------- #

# d100 values that give each level. Vasana's Broadsword 65% (crit <= 6),
# the Broo's Target Shield 45% (crit <= 4) and Dodge 30% (crit <= 3).
ATT = {"failure": "80", "success": "40", "critical": "03"}
PARRY = {"failure": "80", "success": "30", "critical": "02"}
DODGE = {"failure": "80", "success": "20", "critical": "02"}

# Damage when rolled: 1D8 = 8, +1D4 = 4, d20 = 19 (head: AP 1 worn + 1 hide = 2).
# 12 rolled; the Broo's Target Shield has AP 6.
PARRY_CELLS = {
    # (attacker, defender): (hit, parry deduction, critical upgrade, riposte)
    ("failure", "failure"): (True, 0, False, False),  # Attack succeeds as normal
    ("failure", "success"): (True, 12, False, False),  # 2 x AP = 12
    ("failure", "critical"): (False, 0, False, True),  # Attack fails; defender may Riposte
    ("success", "failure"): (True, 0, False, False),  # as normal
    ("success", "success"): (True, 6, False, False),  # AP = 6
    ("success", "critical"): (True, 12, False, True),  # 2 x AP; defender may Riposte
    ("critical", "failure"): (True, 0, True, False),  # becomes critical hit
    ("critical", "success"): (True, 3, False, False),  # 1/2 AP = 3
    ("critical", "critical"): (True, 6, False, False),  # AP = 6
}


def _parry_params():
    for (att, dfn), expected in PARRY_CELLS.items():
        yield pytest.param(att, dfn, *expected, id=f"{att}-{dfn}")


@pytest.mark.parametrize("att, dfn, hit, reduce, upgraded, riposte", list(_parry_params()))
def test_parry_table_cell(att, dfn, hit, reduce, upgraded, riposte):
    t = duel()
    attack(t, "vasana", "broo", "40")  # 40 <= 65: a plain success, so a reaction is offered
    assert t.step().kind == "react" and t.step().who == "broo"
    react(t, "broo", "parry", f"{PARRY[dfn]},{ATT[att]}")  # defender's roll first, then the fresh roll
    resolved = t.one(ev.ReactionResolved)
    assert resolved.cell == f"parry:{att}/{dfn}"
    assert [e.handle for e in t.new(ev.SkillTested)] == ["broo", "vasana"]
    fresh = t.tests_of("vasana")[0]
    assert fresh.result == att and fresh.target == 65
    assert t.c("broo").reactions == 2  # 3 per round, one spent on the parry

    if not hit:
        assert not t.log(ev.DamageDealt)
        assert riposte
        step = t.step()
        assert (step.kind, step.who, step.options) == ("riposte", "broo", ("riposte", "none"))
        react(t, "broo", "riposte", "50")  # 50 <= 60 Shortspear
        assert t.new(ev.ExchangeEnded)  # the parried attack's exchange closes as the riposte opens
        declared = t.one(ev.AttackDeclared)
        assert (declared.kind, declared.attacker, declared.target) == ("riposte", "broo", "vasana")
        assert t.c("broo").reactions == 1  # the riposte costs a reaction
        assert t.step().kind == "react" and t.step().who == "vasana"
        return

    step = t.step()
    assert step.kind == "damage"
    if upgraded:
        # "Attack succeeds and becomes critical hit": the weapon die is maximised,
        # so only the damage modifier and the location are asked for.
        assert [d.expr for d in step.dice] == ["1D4", "1D20"]
        t(cmd.RollPending(), "4,19")
    else:
        assert [d.expr for d in step.dice] == ["1D8", "1D4", "1D20"]
        t(cmd.RollPending(), "8,4,19")
    dealt = t.one(ev.DamageDealt)
    # 8 + 4 = 12 rolled; minus the parry deduction; minus 2 AP on the head
    assert (dealt.location, dealt.rolled, dealt.reduced) == ("head", 12, reduce)
    assert dealt.armour == min(2, 12 - reduce)
    assert dealt.final == max(0, 12 - reduce - 2)
    assert dealt.critical is upgraded
    assert t.c("broo").location("head").hp == 20 - dealt.final
    if riposte:
        step = t.step()
        assert (step.kind, step.who) == ("riposte", "broo")
    else:
        assert t.step().kind == "turn" and t.step().who == "broo"


def test_parry_success_critical_deducts_double_ap():
    """The damage half of the success/critical cell (its Riposte is checked above)."""
    t = duel()
    attack(t, "vasana", "broo", "40")
    react(t, "broo", "parry", "02,40")
    assert t.one(ev.ReactionResolved).effects["reduce"] == 12  # 2 x AP 6
    t(cmd.RollPending(), "8,4,19")
    dealt = t.one(ev.DamageDealt)
    assert (dealt.rolled, dealt.reduced, dealt.final) == (12, 12, 0)


def test_parry_with_weapon_deducts_the_weapons_ap():
    """The deduction is the AP of the item actually used: the Shortspear has AP 2."""
    t = duel()
    attack(t, "vasana", "broo", "40")
    react(t, "broo", "parry", "30,40", with_item="Shortspear")  # Shortspear 60%: 30 succeeds
    assert t.one(ev.ReactionChosen).with_item == "Shortspear"
    assert t.one(ev.ReactionResolved).effects["reduce"] == 2  # success/success: AP 2
    t(cmd.RollPending(), "8,4,19")
    dealt = t.one(ev.DamageDealt)
    assert (dealt.rolled, dealt.reduced, dealt.armour, dealt.final) == (12, 2, 2, 8)


# --------------------------------------------------------------------------- #
# The Dodge table: 9 cells (seed 004 "Dodge")
# --------------------------------------------------------------------------- #

DODGE_CELLS = {
    # (attacker, defender): (hit, critical upgrade, minimum damage + give ground, overextended)
    ("failure", "failure"): (True, False, False, False),  # Attack succeeds as normal
    ("failure", "success"): (False, False, False, False),  # Attack fails
    ("failure", "critical"): (False, False, False, True),  # Attack fails; attacker Overextended
    ("success", "failure"): (True, False, False, False),  # as normal
    ("success", "success"): (True, False, True, False),  # minimum damage; Give Ground
    ("success", "critical"): (False, False, False, False),  # Attack fails
    ("critical", "failure"): (True, True, False, False),  # becomes critical hit
    ("critical", "success"): (True, False, False, False),  # as normal
    ("critical", "critical"): (True, False, True, False),  # minimum damage; Give Ground
}


@pytest.mark.parametrize(
    "att, dfn, hit, upgraded, minimum, overextended",
    [pytest.param(a, d, *v, id=f"{a}-{d}") for (a, d), v in DODGE_CELLS.items()],
)
def test_dodge_table_cell(att, dfn, hit, upgraded, minimum, overextended):
    t = duel()
    attack(t, "vasana", "broo", "40")
    react(t, "broo", "dodge", f"{DODGE[dfn]},{ATT[att]}")
    resolved = t.one(ev.ReactionResolved)
    assert resolved.cell == f"dodge:{att}/{dfn}"
    dodge_test = t.tests_of("broo")[0]
    assert (dodge_test.skill, dodge_test.target, dodge_test.result) == ("Dodge", 30, dfn)
    assert t.c("vasana").has("overextended") is overextended

    if not hit:
        assert t.new(ev.ExchangeEnded) and not t.log(ev.DamageDealt)
        assert t.step().kind == "turn" and t.step().who == "broo"
        if overextended:
            cond = next(c for c in t.c("vasana").conditions if c.name == "overextended")
            assert cond.effects == {"next-reaction": -20}
            # Overextended: -20% on the next Reaction the attacking character takes.
            attack(t, "broo", "vasana", "40")
            react(t, "vasana", "parry", "30,80")
            parry_test = t.tests_of("vasana")[0]
            assert parry_test.base == 50 and parry_test.target == 30
            assert ev.Modifier(-20, "overextended") in parry_test.modifiers
            assert not t.c("vasana").has("overextended")  # only the next reaction
        return

    step = t.step()
    assert step.kind == "damage"
    if upgraded:
        assert [d.expr for d in step.dice] == ["1D4", "1D20"]
        t(cmd.RollPending(), "4,19")
        expected_rolled = 8 + 4  # maximised 1D8, rolled +1D4
    elif minimum:
        # "the damage is the minimum possible for the weapon": 1D8 -> 1;
        # "Damage modifiers ... are not minimised": the 1D4 is rolled.
        assert [d.expr for d in step.dice] == ["1D4", "1D20"]
        t(cmd.RollPending(), "4,19")
        expected_rolled = 1 + 4
    else:
        t(cmd.RollPending(), "8,4,19")
        expected_rolled = 8 + 4
    dealt = t.one(ev.DamageDealt)
    assert (dealt.rolled, dealt.reduced, dealt.armour) == (expected_rolled, 0, 2)
    assert dealt.final == expected_rolled - 2
    assert dealt.critical is upgraded
    if minimum:
        moved = t.one(ev.CombatantMoved)
        assert (moved.handle, moved.distance, moved.away_from) == ("broo", 8.0, "vasana")  # his Movement
        assert t.c("broo").moved == 8.0
        step = t.step()
        assert (step.kind, step.who, step.options) == ("give-ground", "vasana", ("follow", "stay"))
        t(cmd.MakeChoice(who="vasana", option="stay"))
        assert not t.one(ev_mrq1.GiveGroundChosen).follow
        assert "broo" not in t.c("vasana").engaged
    else:
        assert not t.new(ev.CombatantMoved)
        assert t.step().kind == "turn"


def test_give_ground_follow_keeps_the_attacker_adjacent():
    t = duel()
    attack(t, "vasana", "broo", "40")
    react(t, "broo", "dodge", "20,40")  # success/success
    t(cmd.RollPending(), "4,19")
    t(cmd.MakeChoice(who="vasana", option="follow"))
    assert t.one(ev_mrq1.GiveGroundChosen).follow
    moved = t.one(ev.CombatantMoved)
    assert (moved.handle, moved.distance) == ("vasana", 8.0)
    assert "broo" in t.c("vasana").engaged and "vasana" in t.c("broo").engaged
    # Giving Ground costs no combat action and no reaction
    assert t.c("vasana").combat_actions == 2 and t.c("broo").reactions == 2


def test_dodged_critical_inflicts_normal_damage():
    """Seed 004 Dodge: "If the attack being dodged was a critical hit, it instead
    inflicts normal damage" on the minimum-damage cell."""
    t = duel()
    attack(t, "vasana", "broo", "03")  # 03 <= 6: critical
    assert t.one(ev.AttackResolved).critical
    react(t, "broo", "dodge", "20,40")  # success/success: minimum damage cell
    assert [d.expr for d in t.step().dice] == ["1D8", "1D4", "1D20"]  # rolled, neither max nor min
    t(cmd.RollPending(), "5,4,19")
    assert t.one(ev.DamageDealt).rolled == 9


def test_parried_critical_keeps_maximum_damage():
    """rules-reference "Seed ambiguities": a parried critical still rolls
    maximum weapon damage before the parry deduction."""
    t = duel()
    attack(t, "vasana", "broo", "03")
    react(t, "broo", "parry", "30,40")  # success/success: AP 6 deducted
    assert [d.expr for d in t.step().dice] == ["1D4", "1D20"]
    t(cmd.RollPending(), "4,19")
    dealt = t.one(ev.DamageDealt)
    assert (dealt.rolled, dealt.reduced, dealt.armour, dealt.final, dealt.critical) == (12, 6, 2, 4, True)


def test_ruling_parried_critical_without_max():
    t = duel(rulings={"parried_critical_keeps_max": "false"})
    attack(t, "vasana", "broo", "03")
    react(t, "broo", "parry", "30,40")
    # with the ruling off, a parried critical rolls its weapon dice normally
    assert [d.expr for d in t.step().dice] == ["1D8", "1D4", "1D20"]


def test_ruling_overextended_applies_to_defender():
    t = duel(rulings={"overextended_applies_to": "defender"})
    attack(t, "vasana", "broo", "40")
    react(t, "broo", "dodge", "02,80")  # failure/critical
    assert t.c("broo").has("overextended") and not t.c("vasana").has("overextended")


def test_overextended_recovers_on_next_combat_action():
    """Seed 004 Overextended: "As soon as the Overextended character performs
    another Combat Action, he recovers from his Overextension"."""
    t = duel()
    attack(t, "vasana", "broo", "40")
    react(t, "broo", "dodge", "02,80")
    assert t.c("vasana").has("overextended")
    t(cmd.TakeAction(who="broo", action="pass"))
    attack(t, "vasana", "broo", "80")
    expired = t.one(ev.ConditionExpired)
    assert (expired.handle, expired.condition_id) == ("vasana", "overextended")
    assert not t.c("vasana").has("overextended")
    # the attack itself is not affected (the penalty is on a Reaction)
    assert t.tests_of("vasana")[0].target == 65


def test_reuse_ruling_reads_the_original_attack_roll():
    """The alternative ruling: no fresh roll, the attack roll sets the row."""
    t = duel(rulings={"reaction_attacker_roll": "reuse"})
    attack(t, "vasana", "broo", "03")
    assert [d.expr for d in t.step().dice] == ["1D100"]  # only the defender rolls
    react(t, "broo", "parry", "80")
    assert t.one(ev.ReactionResolved).cell == "parry:critical/failure"
    assert len(t.new(ev.SkillTested)) == 1


# --------------------------------------------------------------------------- #
# Critical boundaries and automatic results (seed 004 Critical Hits; E rulings)
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "roll, hit, critical",
    [
        ("01", True, True),
        ("06", True, True),  # 65 // 10 = 6: at or below the critical score
        ("07", True, False),
        ("65", True, False),  # equal to the skill hits
        ("66", False, False),
        ("95", False, False),
    ],
)
def test_attack_roll_boundaries_skill_65(roll, hit, critical):
    t = duel()
    attack(t, "vasana", "broo", roll)
    resolved = t.one(ev.AttackResolved)
    assert (resolved.hit, resolved.critical, resolved.skill) == (hit, critical, 65)
    if hit:
        assert t.step().kind == "react"
    else:
        assert t.new(ev.ExchangeEnded) and t.step().who == "broo"


@pytest.mark.parametrize("roll", ["96", "97", "98", "99", "00"])
def test_96_to_00_always_miss(roll):
    big = sheet("vasana", weapons=[dict(name="Broadsword", skill=150, damage="1D8", ap=4, hp=10)])
    t = duel(vasana=big)
    attack(t, "vasana", "broo", roll)
    resolved = t.one(ev.AttackResolved)
    assert resolved.skill == 150 and not resolved.hit
    assert t.new(ev.ExchangeEnded)


@pytest.mark.parametrize("roll", ["99", "00"])
def test_99_and_00_fumble_at_skill_65(roll):
    t = duel()
    attack(t, "vasana", "broo", roll)
    resolved = t.one(ev.AttackResolved)
    assert (resolved.hit, resolved.fumble) == (False, True)


@pytest.mark.parametrize("roll", ["01", "05"])
def test_01_to_05_always_hit_with_a_huge_penalty(roll):
    t = duel()
    attack(t, "vasana", "broo", roll, modifiers=(ev.Modifier(-200, "blind drunk in the dark"),))
    tested = t.tests_of("vasana")[0]
    assert tested.target == 0  # a modified skill never goes below 0
    resolved = t.one(ev.AttackResolved)
    assert resolved.hit and not resolved.critical  # critical score of 0 is 0
    assert t.step().kind == "react"


def test_06_misses_with_a_huge_penalty():
    t = duel()
    attack(t, "vasana", "broo", "06", modifiers=(ev.Modifier(-200, "blind drunk in the dark"),))
    assert not t.one(ev.AttackResolved).hit


# --------------------------------------------------------------------------- #
# Wounds through the damage step (seed 004 Hit Locations; E ruling on Major)
# --------------------------------------------------------------------------- #


def hit_vasana(damage: int, d20: int, *, manual: bool = True, **vasana_changes) -> Table:
    """The Broo hits an unarmoured Vasana (every location 5 HP) for exactly
    ``damage`` (a 2D8 Maul, no damage modifier) at location ``d20``; she does
    not react. The Broo acts first (strike ranks 1+13 = 14 vs 10+10 = 20)."""
    broo = sheet("broo", damage_modifier="", weapons=[MAUL], ready=["Maul"])
    vasana = sheet("vasana", armour={}, location_hp=FIVE, **vasana_changes)
    t = duel(vasana=vasana, broo=broo, sr="1,10", manual=manual)
    attack(t, "broo", "vasana", "40")
    react(t, "vasana", "none")
    first = min(8, damage - 1)
    t(cmd.RollPending(), f"{first},{damage - first},{d20}")
    dealt = t.one(ev.DamageDealt)
    assert (dealt.rolled, dealt.armour, dealt.final) == (damage, 0, damage)
    return t


CHEST = 11  # d20 10-12
RIGHT_LEG = 2
RIGHT_ARM = 14
LEFT_ARM = 17


def test_location_above_zero_is_no_wound():
    t = hit_vasana(4, CHEST)  # 5 - 4 = 1
    assert t.c("vasana").location("chest").hp == 1
    assert not t.new(ev.WoundInflicted)
    assert t.step().kind == "turn" and t.step().who == "vasana"


def test_exactly_zero_is_a_minor_wound_and_loses_the_next_action():
    t = hit_vasana(5, CHEST)  # 5 - 5 = 0: "Location's Hit Points reduced to 0"
    assert t.one(ev.WoundInflicted).severity == "minor"
    loc = t.c("vasana").location("chest")
    assert (loc.hp, loc.wound) == (0, "minor")
    # "the character loses his next Combat Action": her 1st action is lost now
    lost = [e for e in t.new(ev.ActionSpent) if e.handle == "vasana"]
    assert len(lost) == 1 and lost[0].reason.startswith("lost")
    assert t.c("vasana").combat_actions == 2
    assert not t.c("vasana").has("lost-actions")
    assert t.step().who == "broo"  # the turn went straight on to the Broo's 2nd action


@pytest.mark.parametrize("damage, hp", [(6, -1), (10, -5)])
def test_minus_one_to_minus_start_is_a_serious_wound(damage, hp):
    t = hit_vasana(damage, CHEST)
    assert t.one(ev.WoundInflicted).severity == "serious"
    assert t.c("vasana").location("chest").hp == hp
    step = t.step()
    assert step.kind == "wound"
    assert [d.expr for d in step.dice] == ["1D4", "1D100"]  # 1D4 lost actions, Resilience


def test_below_minus_start_is_a_major_wound():
    t = hit_vasana(11, CHEST)  # 5 - 11 = -6 < -5 (strict boundary)
    assert t.one(ev.WoundInflicted).severity == "major"
    assert t.c("vasana").location("chest").wound == "major"


def test_inclusive_major_boundary_ruling():
    broo = sheet("broo", damage_modifier="", weapons=[MAUL], ready=["Maul"])
    vasana = sheet("vasana", armour={}, location_hp=FIVE)
    t = duel(vasana=vasana, broo=broo, sr="1,10", rulings={"major_wound_boundary": "inclusive"})
    attack(t, "broo", "vasana", "40")
    react(t, "vasana", "none")
    t(cmd.RollPending(), f"8,2,{CHEST}")  # 10: 5 - 10 = -5 <= -5
    assert t.one(ev.WoundInflicted).severity == "major"


def test_serious_wound_loses_1d4_actions():
    t = hit_vasana(6, CHEST)
    t(cmd.RollPending(), "3,20")  # lose 3; Resilience 20 <= 45 passes
    cond = next(c for c in t.c("vasana").conditions if c.name == "lost-actions")
    # one lost at once (her 1st action was due), two still to lose
    assert cond.effects["lost-actions"] == 2
    assert t.c("vasana").combat_actions == 2
    t.pass_turns()
    assert t.c("vasana").combat_actions == 0  # the Broo passes, her 2nd and 3rd are lost too
    assert not t.c("vasana").has("lost-actions")
    lost = [e for e in t.log(ev.ActionSpent) if e.handle == "vasana" and e.reason.startswith("lost")]
    assert len(lost) == 3


def test_serious_leg_wound_drops_prone_and_makes_the_leg_useless():
    t = hit_vasana(6, RIGHT_LEG)
    c = t.c("vasana")
    assert c.stance == "prone"
    assert c.has("useless-limb")
    assert next(x for x in c.conditions if x.name == "useless-limb").location == "right leg"
    # a limb's Serious Wound asks for no Resilience test, only the 1D4
    assert [d.expr for d in t.step().dice] == ["1D4"]
    assert t.one(ev.StanceChanged).reason == "Serious Wound to the right leg"


@pytest.mark.parametrize("d20, dropped, kept", [(RIGHT_ARM, "Broadsword", "Target Shield"), (LEFT_ARM, "Target Shield", "Broadsword")])
def test_serious_arm_wound_drops_what_the_hand_holds(d20, dropped, kept):
    t = hit_vasana(6, d20)
    assert t.one(ev.WeaponDropped).weapon == dropped
    assert t.c("vasana").ready == (kept,)
    assert t.c("vasana").stance == "standing"
    assert t.c("vasana").has("useless-limb")


def test_serious_chest_failed_resilience_falls_unconscious():
    t = hit_vasana(6, CHEST)
    t(cmd.RollPending(), "1,90")  # Resilience 90 > 45
    c = t.c("vasana")
    assert c.status == "unconscious"
    assert c.has("unconscious") and c.effect("helpless")
    assert t.state.phase == "over" and t.state.winner == "broo"


def test_serious_chest_passed_resilience_is_retested_at_end_of_round():
    t = hit_vasana(6, CHEST)
    t(cmd.RollPending(), "1,20")
    c = t.c("vasana")
    assert c.status == "active"
    assert any(x.name == "resilience-retest" and x.location == "chest" for x in c.conditions)
    t.pass_turns()
    t(cmd.EndRound())
    step = t.step()
    assert (step.kind, step.who, step.data["test"]) == ("retest", "vasana", "consciousness")
    t(cmd.RollPending(), "30")  # passes again: still conscious, still due
    assert t.c("vasana").status == "active"
    assert t.c("vasana").has("resilience-retest")
    assert t.step().kind == "start"


def test_major_chest_failed_death_test_dies():
    t = hit_vasana(11, CHEST)
    step = t.step()
    assert step.data["tests"] == "death,consciousness"
    t(cmd.RollPending(), "90,30")  # Resilience 90: dies
    assert t.c("vasana").status == "dead"
    assert t.state.phase == "over" and t.state.winner == "broo"


def test_major_chest_passed_tests_repeat_both_at_end_of_round():
    t = hit_vasana(11, CHEST)
    t(cmd.RollPending(), "20,30")
    c = t.c("vasana")
    assert c.status == "active" and c.has("death-test") and c.has("resilience-retest")
    t.pass_turns()
    t(cmd.EndRound())
    assert [(s.kind, s.data["test"]) for s in t.state.pending] == [("retest", "death"), ("retest", "consciousness")]


@pytest.mark.parametrize(
    "d20, location, rounds",
    [(CHEST, "chest", (14 + 12) // 2), (RIGHT_LEG, "right leg", 14 + 12)],
)
def test_major_wound_starts_bleeding_out(d20, location, rounds):
    """Torso: half CON+POW rounds; limb: CON+POW rounds (CON 14, POW 12)."""
    t = hit_vasana(11, d20)
    cond = next(x for x in t.c("vasana").conditions if x.name == "bleeding-out")
    assert cond.location == location
    assert (cond.ends.kind, cond.ends.count) == ("rounds", rounds)
    if location == "right leg":
        assert t.c("vasana").stance == "prone" and t.c("vasana").has("severed-limb")
        assert t.step().data["tests"] == "consciousness"


def _bleeding_vasana(manual: bool) -> Table:
    """Major chest wound with CON 2 + POW 2: bleeds out in 4 // 2 = 2 rounds."""
    chars = dict(sheet("vasana")["characteristics"], CON=2, POW=2)
    t = hit_vasana(11, CHEST, manual=manual, characteristics=chars)
    t(cmd.RollPending(), "10,10")
    assert next(x for x in t.c("vasana").conditions if x.name == "bleeding-out").ends.count == 2
    t.pass_turns()
    t(cmd.EndRound())
    assert next(x for x in t.c("vasana").conditions if x.name == "bleeding-out").ends.count == 1
    t(cmd.RollPending(), "10")
    t(cmd.RollPending(), "10")
    t(cmd.StartRound(), "1,10")
    t.pass_turns()
    return t


def test_bleeding_out_countdown_kills():
    t = _bleeding_vasana(manual=False)  # engine dice fill whatever EndRound asks for
    t(cmd.EndRound())
    assert t.c("vasana").status == "dead"
    assert not t.c("vasana").has("bleeding-out")
    assert any(e.reason == "bled out" for e in t.new(ev.ConditionExpired))
    assert t.state.phase == "over" and t.state.winner == "broo"


def test_bleeding_out_death_ends_the_fight_without_new_strike_ranks():
    t = _bleeding_vasana(manual=True)
    assert t.step().kind == "end-round" and t.step().dice == ()
    t(cmd.EndRound())  # the dice pending lists: none
    assert t.c("vasana").status == "dead"
    assert t.state.phase == "over" and t.state.round == 2
    assert not t.new(ev.RoundStarted)


# --------------------------------------------------------------------------- #
# Knockback (seed 004 Knockback)
# --------------------------------------------------------------------------- #


def vasana_vs_gorp(**gorp_changes) -> Table:
    gorp = sheet("gorp", location_hp=TOUGH, **gorp_changes)
    t = Table(join(sheet("vasana"), "heroes", "vasana"), join(gorp, "trollkin", "gorp"))
    t(cmd.StartRound(), "10,1")  # Vasana 23, Gorp 1+11 = 12
    attack(t, "vasana", "gorp", "40")
    return t


@pytest.mark.parametrize("acrobatics, prone", [("90", True), ("20", False)])
def test_knockback_over_siz_needs_acrobatics(acrobatics, prone):
    t = vasana_vs_gorp()
    react(t, "gorp", "none")
    t(cmd.RollPending(), "8,4,1")  # 12 > SIZ 8: knocked back 1 + (12-8)//5 = 1 m
    moved = t.one(ev.CombatantMoved)
    assert (moved.handle, moved.distance, moved.reason, moved.away_from) == ("gorp", 1.0, "knockback", "vasana")
    step = t.step()
    assert (step.kind, step.who, [d.expr for d in step.dice]) == ("knockback", "gorp", ["1D100"])
    t(cmd.RollPending(), acrobatics)  # Acrobatics 35%
    assert t.tests_of("gorp")[0].skill == "Acrobatics"
    assert (t.c("gorp").stance == "prone") is prone


def test_no_knockback_when_the_parry_brings_damage_to_siz():
    t = vasana_vs_gorp()
    react(t, "gorp", "parry", "30,40")  # Club 45%: success/success, AP 4 deducted
    t(cmd.RollPending(), "8,4,1")  # 12 - 4 = 8, not more than SIZ 8
    assert t.one(ev.DamageDealt).reduced == 4
    assert not t.new(ev.CombatantMoved)
    assert t.step().kind == "turn"


def test_knockback_adds_a_metre_per_five_full_points():
    gorp = sheet("gorp", location_hp=TOUGH)
    broo = sheet("broo", damage_modifier="", weapons=[MAUL], ready=["Maul"])
    t = Table(join(broo, "broo", "broo"), join(gorp, "trollkin", "gorp"))
    t(cmd.StartRound(), "10,1")
    attack(t, "broo", "gorp", "40")
    react(t, "gorp", "none")
    t(cmd.RollPending(), "8,5,1")  # 13 = SIZ 8 + 5: 1 + 5//5 = 2 m
    assert t.one(ev.CombatantMoved).distance == 2.0


# --------------------------------------------------------------------------- #
# Impaling (seed 004 Impaling Close Combat Attacks)
# --------------------------------------------------------------------------- #


def impaled_vasana() -> Table:
    """The Broo's Shortspear (impaling) scores a critical on Vasana's chest:
    max 8 + 1D2 (2) = 10, AP 3: 7 HP lost, chest 8 -> 1."""
    t = duel(broo=sheet("broo"), sr="1,10")
    attack(t, "broo", "vasana", "03")
    react(t, "vasana", "none")
    t(cmd.RollPending(), "2,11")
    dealt = t.one(ev.DamageDealt)
    assert (dealt.rolled, dealt.final, dealt.critical) == (10, 7, True)
    step = t.step()
    assert (step.kind, step.who, step.options) == ("impale", "broo", ("yank", "leave"))
    return t


def test_impaling_critical_left_in_gives_minus_20():
    t = impaled_vasana()
    t(cmd.MakeChoice(who="broo", option="leave"))
    assert t.one(ev_mrq1.ImpaleChosen).choice == "leave"
    cond = next(x for x in t.c("vasana").conditions if x.name == "impaled")
    assert cond.effects == {"penalty": -20} and cond.location == "chest"
    assert "Shortspear" not in t.c("broo").ready  # the weapon stays in the wound
    # "-20% penalty to all skill tests, including Weapon skills"
    attack(t, "vasana", "broo", "50")
    tested = t.tests_of("vasana")[0]
    assert (tested.base, tested.target) == (65, 45)
    assert not t.one(ev.AttackResolved).hit


def test_impaling_critical_yanked_free_deals_weapon_damage_again():
    t = impaled_vasana()
    t(cmd.MakeChoice(who="broo", option="yank"))
    assert t.step().kind == "yank"
    t(cmd.RollPending(), "20")  # brute force Athletics 40%: freed
    step = t.step()
    assert (step.kind, [d.expr for d in step.dice]) == ("yank-damage", ["1D8"])
    t(cmd.RollPending(), "3")  # normal (not maximised) weapon damage to the same location
    dealt = t.one(ev.DamageDealt)
    assert (dealt.location, dealt.final) == ("chest", 3)
    assert t.c("vasana").location("chest").hp == 8 - 7 - 3
    assert "Shortspear" in t.c("broo").ready
    assert not t.c("vasana").has("impaled")


def test_impaling_failed_yank_deals_1d4_and_stays_stuck():
    t = impaled_vasana()
    t(cmd.MakeChoice(who="broo", option="yank"))
    t(cmd.RollPending(), "90")  # Athletics fails
    assert [d.expr for d in t.step().dice] == ["1D4"]
    t(cmd.RollPending(), "1")
    assert t.c("vasana").location("chest").hp == 0
    assert t.c("vasana").has("impaled")
    assert "Shortspear" not in t.c("broo").ready


# --------------------------------------------------------------------------- #
# Surprise (seed 004 Gaining Surprise; rules-reference ruling)
# --------------------------------------------------------------------------- #


def surprised_broo(**kw) -> Table:
    t = Table(
        join(sheet("vasana"), "heroes", "vasana"),
        join(sheet("broo", location_hp=TOUGH), "broo", "broo", surprised=True),
        **kw,
    )
    t(cmd.StartRound(), "1,10")  # Vasana 1+13 = 14; Broo 10+10-10 = 10
    return t


def test_surprise_strike_rank_penalty_and_no_reaction_before_own_action():
    t = surprised_broo()
    ranks = {e.handle: e.rank for e in t.state.order}
    assert ranks == {"vasana": 14, "broo": 10}  # the -10 puts the Broo after Vasana
    assert t.c("broo").has("surprised")
    attack(t, "vasana", "broo", "80")
    tested = t.tests_of("vasana")[0]
    assert tested.target == 85 and ev.Modifier(20, "target surprised") in tested.modifiers
    # 80 <= 85 hits, and the surprised Broo may not react: straight to damage
    assert t.step().kind == "damage"
    assert not t.new(ev.ReactionChosen)
    t(cmd.RollPending(), "1,1,19")
    t(cmd.TakeAction(who="broo", action="pass"))  # his own first action
    attack(t, "vasana", "broo", "40")
    step = t.step()
    assert (step.kind, step.who) == ("react", "broo")  # now he may


def test_surprise_lasts_only_the_first_round():
    t = surprised_broo()
    t.pass_turns()
    t(cmd.EndRound(), "1,10")
    assert not t.c("broo").has("surprised")
    assert {e.handle: e.rank for e in t.state.order} == {"vasana": 14, "broo": 20}


def test_surprise_footnote_ruling_blocks_reactions_to_higher_strike_ranks():
    t = surprised_broo(rulings={"surprise_reactions": "lower-strike-rank"})
    attack(t, "vasana", "broo", "80")
    t(cmd.RollPending(), "1,1,19")
    t(cmd.TakeAction(who="broo", action="pass"))
    attack(t, "vasana", "broo", "40")  # Vasana's strike rank 14 is not lower than his 10
    assert t.step().kind == "damage"


# --------------------------------------------------------------------------- #
# Strike ranks (seed 004 Combat step 1, Strike Ranks; E5)
# --------------------------------------------------------------------------- #


def test_equal_strike_rank_goes_to_the_higher_dex():
    t = Table(join(sheet("broo"), "broo", "broo"), join(sheet("vasana"), "heroes", "vasana"))
    t(cmd.StartRound(), "4,1")  # Broo 4+10 = 14, Vasana 1+13 = 14
    assert [(e.handle, e.rank, e.tiebreak) for e in t.state.order] == [("vasana", 14, 15), ("broo", 14, 13)]
    assert t.state.turn == ("vasana",)  # DEX 15 before DEX 13


def test_equal_strike_rank_and_dex_act_simultaneously():
    t = Table(
        join(sheet("vasana"), "heroes", "vasana"),
        join(sheet("broo"), "broo", "b1", name="Broo 1"),
        join(sheet("broo"), "broo", "b2", name="Broo 2"),
    )
    t(cmd.StartRound(), "1,5,5")  # Vasana 14, both Broos 15 with DEX 13
    assert t.state.turn == ("b1", "b2")
    assert [(s.who, s.kind) for s in t.state.pending] == [("b1", "turn"), ("b2", "turn")]
    t(cmd.TakeAction(who="b2", action="pass"))  # either may go first
    assert t.state.turn == ("b1",)


def test_each_pass_waits_for_everyone_and_the_round_ends_when_actions_run_out():
    """A Broo with 1 combat action against Vasana's 3: 1st actions in strike
    rank order, then Vasana's 2nd and 3rd; then the GM ends the round."""
    t = duel(broo=sheet("broo", combat_actions=1), sr="1,10")  # Broo 20, Vasana 14
    order = []
    while t.step().kind == "turn":
        order.append((t.step().who, t.state.action_no))
        t(cmd.TakeAction(who=t.step().who, action="pass"))
    assert order == [("broo", 1), ("vasana", 1), ("vasana", 2), ("vasana", 3)]
    step = t.step()
    assert (step.kind, step.who) == ("end-round", "GM")
    assert [d.purpose for d in step.dice] == ["strike rank: Vasana", "strike rank: Broo"]
    t(cmd.EndRound(), "10,1")
    assert t.state.round == 2 and [e.handle for e in t.state.order] == ["vasana", "broo"]
    assert (t.c("vasana").combat_actions, t.c("broo").combat_actions) == (3, 1)


# --------------------------------------------------------------------------- #
# Defend, helpless targets, reaction allowance
# --------------------------------------------------------------------------- #


def three_way(**kw) -> Table:
    t = Table(
        join(sheet("vasana"), "heroes", "vasana"),
        join(sheet("broo"), "broo", "b1", name="Broo 1"),
        join(sheet("broo"), "broo", "b2", name="Broo 2"),
        **kw,
    )
    t(cmd.StartRound(), "10,5,1")  # Vasana 23, Broo 1 15, Broo 2 11
    return t


def test_defend_adds_20_to_every_reaction_until_the_next_action():
    t = three_way()
    t(cmd.TakeAction(who="vasana", action="defend"))
    assert t.c("vasana").has("defending")
    attack(t, "b1", "vasana", "40")
    react(t, "vasana", "dodge", "50,80")  # Dodge 35 + 20 = 55: 50 succeeds
    assert t.tests_of("vasana")[0].target == 55
    attack(t, "b2", "vasana", "40")
    react(t, "vasana", "parry", "65,80")  # Target Shield 50 + 20 = 70
    assert t.tests_of("vasana")[0].target == 70
    t(cmd.RollPending(), "1,1,19")  # failure/success: 2 x AP deducted
    # her 2nd combat action begins: Defend ends
    assert t.step().who == "vasana"
    assert not t.c("vasana").has("defending")
    t(cmd.TakeAction(who="vasana", action="pass"))
    attack(t, "b1", "vasana", "40")
    react(t, "vasana", "dodge", "50,80")
    tested = t.tests_of("vasana")[0]
    assert tested.target == 35 and tested.result == "failure"


def test_unconscious_target_is_hit_critically_even_on_a_miss():
    t = three_way()
    attack(t, "vasana", "b1", "03")
    react(t, "b1", "none")
    t(cmd.RollPending(), "4,11")  # max 8 + 4 = 12 to the chest (AP 3): 7 - 9 = -2
    t(cmd.RollPending(), "1,90")  # Resilience fails
    assert t.c("b1").status == "unconscious"
    assert t.state.phase == "round"  # Broo 2 still stands
    assert t.step().who == "b2"
    t(cmd.TakeAction(who="b2", action="pass"))
    attack(t, "vasana", "b1", "90")  # 90 > 65 would miss
    resolved = t.one(ev.AttackResolved)
    assert resolved.hit and resolved.critical
    # helpless: no reaction; the critical maximises the weapon die
    step = t.step()
    assert step.kind == "damage" and [d.expr for d in step.dice] == ["1D4", "1D20"]


def test_reactions_are_limited_per_round():
    """A character has as many Reactions as Combat Actions (here 1). (The
    broo holds the spear alone: with spear and shield, Two Weapon Use would
    give him an extra parry, see test_mrq1_twoweapon.py.)"""
    t = duel(broo=sheet("broo", location_hp=TOUGH, combat_actions=1, ready=["Shortspear"]))
    assert t.c("broo").reactions == 1
    attack(t, "vasana", "broo", "40")
    react(t, "broo", "parry", "80,80")
    with pytest.raises(RuleError):  # only one Reaction to a single trigger
        react(t, "broo", "dodge", "20,40")
    t(cmd.RollPending(), "1,1,19")
    t(cmd.TakeAction(who="broo", action="pass"))
    attack(t, "vasana", "broo", "40")
    assert t.c("broo").reactions == 0
    assert t.step().kind == "damage"  # unopposed
    assert any("no reactions left" in n.text for n in t.new(ev.NoteAdded))
    t(cmd.RollPending(), "1,1,19")
    t.pass_turns()
    t(cmd.EndRound(), "10,1")
    assert t.c("broo").reactions == 1  # refilled for the new round


def test_riposte_needs_a_reaction_left():
    """Seed 004 Riposte: "the defender must have an available Reaction"."""
    t = duel(broo=sheet("broo", location_hp=TOUGH, combat_actions=1))
    attack(t, "vasana", "broo", "40")
    react(t, "broo", "parry", "02,80")  # failure/critical: would allow a Riposte
    assert t.one(ev.ReactionResolved).effects["riposte"] == 1
    assert t.step().kind == "turn"  # but his only reaction went on the parry
    assert not t.new(ev.AttackDeclared)
