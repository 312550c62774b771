"""uesrpg flows with table dice, one test per rule, each naming its step in
seed 003 (or the rules-reference.md D item): the defence before the roll,
each Advantage, Block against BR with magic halving, ranged attacks and
spells, wounds, attacks of opportunity, Action Points and initiative.

Figures of the sample sheets are in tests/test_uesrpg_golden.py.
"""

from __future__ import annotations

import copy

import pytest

from affray.commands.demo import examples_dir
from affray.commands.handler import execute
from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import uesrpg as ev_ues
from affray.projections.snapshots import load_state
from affray.rules import base
from affray.rules.uesrpg.core import can_defend
from affray.rules.uesrpg.damage import block_rating
from affray.rules.uesrpg.rulings import DEFAULT_RULINGS
from affray.rules.uesrpg.sheet import Shield
from affray.store import EventStore

A, R, CH, ACT = cmd.DeclareAttack, cmd.ChooseReaction, cmd.MakeChoice, cmd.TakeAction
ROLL = cmd.RollPending()


def struck(d: ev.DamageDealt) -> str:
    """The location a blow struck: the HP are one pool (``location`` "HP"), the note names where it landed."""
    assert d.location == "HP"
    return d.note.split("; ")[0]


def sheet(name: str) -> dict:
    return base.get("uesrpg").load_sheet(str(examples_dir() / "uesrpg" / f"{name}.toml"))


class Table:
    """An encounter played with typed dice; ``fails`` checks a refusal
    leaves the log as it was."""

    def __init__(self, sheets=None, rulings=None, surprised=()):
        self.store = EventStore(":memory:")
        self.eid = execute(self.store, cmd.OpenEncounter(name="t", system="ues", manual_dice=True,
                                                         rulings=rulings or {}), seed=b"t", allow_short_seed=True).encounter_id
        sheets = sheets or {"hrolfdar": sheet("hrolfdar"), "vethis": sheet("vethis")}
        for (handle, data), side in zip(sheets.items(), ("heroes", "sellswords")):
            execute(self.store, cmd.JoinCombatant(sheet=data, side=side, handle=handle,
                                                  surprised=handle in surprised), encounter_id=self.eid)
        self.state = None

    def __call__(self, command, dice: str = ""):
        self.state = execute(self.store, command, encounter_id=self.eid, dice=dice).state
        return self.state

    def fails(self, command, match: str, dice: str = ""):
        before = self.store.version(self.eid)
        with pytest.raises(base.RuleError, match=match):
            execute(self.store, command, encounter_id=self.eid, dice=dice)
        assert self.store.version(self.eid) == before

    def events(self, kind):
        return [r.event for r in self.store.read(self.eid) if isinstance(r.event, kind)]

    def step(self):
        return self.state.pending[0]


def started(**kw) -> Table:
    """Round 1 begun: Hrolfdar 6 + 8 = 14 acts before Vethis 1 + 10 = 11."""
    t = Table(**kw)
    t(cmd.StartRound(), "6,1")
    return t


def test_initiative_is_1d6_plus_rating_and_ap_refill_each_round():
    """D11: initiative 1d6 + rating, highest first; 3 AP, refilled each round."""
    t = started()
    assert [(o.handle, o.rank) for o in t.state.order] == [("hrolfdar", 14), ("vethis", 11)]
    assert t.step().who == "hrolfdar" and t.state.combatants["hrolfdar"].combat_actions == 3
    t(A(attacker="hrolfdar", target="vethis"))
    t(R(defender="vethis", reaction="none"))
    t(ROLL, "90")  # a miss: both fail
    assert t.state.combatants["hrolfdar"].combat_actions == 2  # the attack cost 1 AP (ruling ap_costs)
    t(ACT(who="vethis", action="pass"))
    assert t.step().kind == "end-round"
    t(cmd.EndRound())
    assert t.state.round == 2 and t.state.combatants["hrolfdar"].combat_actions == 3


def test_the_defence_comes_before_the_attack_roll():
    """Seed 003 Step 2: after 'attack' the table waits for the defender's
    'react'; the roll is refused until then; then the tests step rolls both."""
    t = started()
    t(A(attacker="hrolfdar", target="vethis"))
    assert (t.step().verb, t.step().who, t.step().kind) == ("react", "vethis", "react")
    assert t.step().options == ("evade", "parry", "block", "counter", "none")
    t.fails(ROLL, "chooses a defence first", dice="50")
    t.fails(A(attacker="hrolfdar", target="vethis"), "waiting for something else")
    t(R(defender="vethis", reaction="evade"))
    assert (t.step().verb, t.step().kind, [d.purpose for d in t.step().dice]) == (
        "roll", "tests", ["Hrolfdar: attack test", "Vethis Ilnoth: evade test"])
    assert t.state.combatants["vethis"].combat_actions == 2  # a defence costs 1 AP
    t.fails(R(defender="vethis", reaction="parry"), "already chosen a defence")


def test_a_defence_after_the_attack_roll_is_refused():
    """Seed 003 Step 2: "must choose to defend before the attacker has rolled"."""
    t = started()
    t(A(attacker="hrolfdar", target="vethis"))
    t(R(defender="vethis", reaction="none"))
    t(ROLL, "50")
    assert t.step().kind == "advantage"
    t.fails(R(defender="vethis", reaction="parry"), "too late: .* before the attacker rolls")


def test_an_unaware_defender_automatically_fails():
    """Seed 003 Step 2-3: a defender unaware of the attack cannot defend and
    is treated as having failed: no react step, one die."""
    t = started(surprised=("vethis",))
    t(A(attacker="hrolfdar", target="vethis"))
    assert t.step().kind == "tests" and len(t.step().dice) == 1
    t(ROLL, "50")
    roll = t.events(ev_ues.CombatRollResolved)[-1]
    assert (roll.defence, roll.row, roll.advantages) == ("none", "attacker-wins", 1)


def test_a_block_without_a_shield_is_refused():
    """D7, D13: Block needs a shield that can block."""
    bare = copy.deepcopy(sheet("hrolfdar"))
    bare["shields"], bare["styles"][0]["weapons"] = [], ["Steel Axe"]
    t = started(sheets={"hrolfdar": bare, "vethis": sheet("vethis")})
    t(ACT(who="hrolfdar", action="pass"))
    t(A(attacker="vethis", target="hrolfdar"))
    assert "block" not in t.step().options
    t.fails(R(defender="hrolfdar", reaction="block"), "Hrolfdar has no shield to block with; choose one of evade, parry")


def test_a_buckler_cannot_block():
    """D13: a buckler cannot block (and adds +1 DoS to a successful parry, see the golden fight)."""
    v = copy.deepcopy(sheet("vethis"))
    v["shields"] = [s for s in v["shields"] if s["variant"] == "buckler"]
    t = started(sheets={"hrolfdar": sheet("hrolfdar"), "vethis": v})
    t(A(attacker="hrolfdar", target="vethis"))
    assert "block" not in t.step().options
    t.fails(R(defender="vethis", reaction="block"), r"no shield to block with \(a buckler cannot block\)")


def _hit(t: Table, att_roll: str = "50", defence: str = "none", def_roll: str = "") -> None:
    """Hrolfdar attacks Vethis and wins the combat roll."""
    t(A(attacker="hrolfdar", target="vethis"))
    t(R(defender="vethis", reaction=defence))
    t(ROLL, att_roll + ("," + def_roll if def_roll else ""))


def test_precision_strike_chooses_the_location():
    """D8 Precision Strike: the winner picks the location (not the ones digit)."""
    t = started()
    _hit(t)
    t(CH(who="hrolfdar", option="precision-strike:head"))
    t(ROLL, "3,3")
    d = t.events(ev.DamageDealt)[-1]
    assert (struck(d), d.rolled, d.armour, d.final) == ("head", 8, 1, 7)
    t.fails(CH(who="hrolfdar", option="precision-strike"), "no choice to make now")


def test_precision_strike_needs_a_location():
    t = started()
    _hit(t)
    t.fails(CH(who="hrolfdar", option="precision-strike"), "names the location")


def test_penetrate_armor_full_counts_as_partial():
    """D8 Penetrate Armor: full armour counts as partial (half AR, ruling partial_armour)."""
    t = started(sheets={"hrolfdar": sheet("hrolfdar"), "vethis": sheet("hrolfdar")})
    _hit(t, att_roll="51")  # ones digit 1: body, full AR 4
    t(CH(who="hrolfdar", option="penetrate-armor"))
    t(ROLL, "3,3")
    d = t.events(ev.DamageDealt)[-1]
    assert (struck(d), d.rolled, d.armour, d.final) == ("body", 8, 2, 6)


def test_penetrate_armor_partial_counts_as_none():
    """D8: partial armour counts as none (Vethis's arms: AR 2 partial)."""
    t = started()
    _hit(t, att_roll="58")  # ones digit 8: right arm, partial
    t(CH(who="hrolfdar", option="penetrate-armor"))
    t(ROLL, "3,3")
    assert t.events(ev.DamageDealt)[-1].armour == 0


def test_partial_armour_counts_half_without_penetrate():
    t = started()
    _hit(t, att_roll="58")
    t(CH(who="hrolfdar", option="none"))
    t(ROLL, "3,3")
    assert t.events(ev.DamageDealt)[-1].armour == 1  # AR 2 partial -> 1


def test_press_advantage_gives_plus_10_on_the_next_melee_attack():
    """D8 Press Advantage: +10 on the next melee attack against that opponent; used up by it."""
    t = started()
    _hit(t)
    t(CH(who="hrolfdar", option="press-advantage"))
    t(ROLL, "1,1")
    assert t.state.combatants["hrolfdar"].has("pressing")
    t(ACT(who="vethis", action="pass"))
    t(cmd.EndRound())
    t(A(attacker="hrolfdar", target="vethis"))
    x = t.state.exchange
    assert ev.Modifier(10, "Press Advantage") in x.modifiers and "tn=75" in x.kind
    assert not t.state.combatants["hrolfdar"].has("pressing")


def test_two_advantages_stack():
    """Seed 003: two Advantages "can stack if applicable": Press Advantage twice is +20."""
    t = started()
    _hit(t, att_roll="27")  # Lucky: critical against no defence: two Advantages
    t(CH(who="hrolfdar", option="press-advantage"))
    assert t.step().data["left"] == 1
    t(CH(who="hrolfdar", option="press-advantage"))
    cond = next(c for c in t.state.combatants["hrolfdar"].conditions if c.name == "pressing")
    assert cond.effects["attack-bonus"] == 20


def test_forceful_impact_damages_the_armour():
    """D8 Forceful Impact: the struck location's armour gains Damaged(1),
    counted against this blow (ruling forceful_impact) and later ones."""
    t = started()
    _hit(t, att_roll="51")
    t(CH(who="hrolfdar", option="forceful-impact"))
    t(ROLL, "3,3")
    d = t.events(ev.DamageDealt)[-1]
    assert (struck(d), d.armour) == ("body", 1)  # AR 2 - Damaged(1)
    assert t.state.combatants["vethis"].effect("damaged:body") == 1


def test_overextend_gives_the_attacker_minus_10():
    """D8 Overextend (block, evade or parry only): the opponent's next attack is at -10."""
    t = started()
    t(A(attacker="hrolfdar", target="vethis"))
    t(R(defender="vethis", reaction="parry"))
    t(ROLL, "90,30")  # attack fails, parry passes: the defender wins one Advantage
    assert t.step().who == "vethis" and "overextend" in t.step().options
    assert "precision-strike" not in t.step().options
    t(CH(who="vethis", option="overextend"))
    t(ACT(who="vethis", action="pass"))
    t(cmd.EndRound())
    t(A(attacker="hrolfdar", target="vethis"))
    assert ev.Modifier(-10, "Overextended") in t.state.exchange.modifiers


def test_overextend_is_not_offered_to_a_counter_attack():
    t = started()
    t(A(attacker="hrolfdar", target="vethis"))
    t(R(defender="vethis", reaction="counter"))
    t(ROLL, "90,30")
    assert "overextend" not in t.step().options and "precision-strike" in t.step().options


def test_overwhelm_stops_attacks_of_opportunity():
    """D8 Overwhelm: the opponent cannot make attacks of opportunity until the winner's next Turn."""
    t = started()
    _hit(t)
    t(CH(who="hrolfdar", option="overwhelm"))
    t(ROLL, "1,1")
    assert t.state.combatants["vethis"].effect("no-opportunity") == 1
    t(ACT(who="vethis", action="pass"))
    t(cmd.EndRound())
    # Hrolfdar's next Turn begins: the Overwhelm ends
    assert not t.state.combatants["vethis"].has("overwhelmed")


def test_overwhelmed_foe_gets_no_attack_of_opportunity():
    t = started()
    _hit(t)
    t(CH(who="hrolfdar", option="overwhelm"))
    t(ROLL, "1,1")
    # Vethis's Turn: he moves away from Hrolfdar, who may strike
    t(ACT(who="vethis", action="move 3"))
    assert t.step().kind == "opportunity" and t.step().who == "hrolfdar"
    t(R(defender="hrolfdar", reaction="none"))
    assert t.step().kind == "turn" and t.step().who == "vethis"  # the mover's Turn goes on


def test_attack_of_opportunity_is_a_melee_attack_the_mover_defends():
    """seed 003 'Evade' (Attack of Opportunity, a Reaction): leaving melee provokes one."""
    t = started()
    t(A(attacker="hrolfdar", target="vethis"))
    t(R(defender="vethis", reaction="none"))
    t(ROLL, "95")  # a miss
    t(ACT(who="vethis", action="move 2"))
    assert t.step().kind == "opportunity"
    t(R(defender="hrolfdar", reaction="attack"))
    x = t.state.exchange
    assert x.kind.startswith("opportunity") and (x.attacker, x.target) == ("hrolfdar", "vethis")
    assert t.step().kind == "react" and t.step().who == "vethis"
    t(R(defender="vethis", reaction="evade"))
    t(ROLL, "90,20")  # attack fails, evade passes: Vethis wins an Advantage
    t(CH(who="vethis", option="none"))
    t(CH(who="vethis", option="stay"))
    assert t.step().kind == "turn" and t.step().who == "vethis"
    assert t.state.combatants["hrolfdar"].combat_actions == 1  # attack + opportunity


def test_evade_allows_a_free_one_metre_move():
    """Seed 003 "Evade": negated, and the evader may move up to 1 m for free."""
    t = started()
    t(A(attacker="hrolfdar", target="vethis"))
    t(R(defender="vethis", reaction="evade"))
    t(ROLL, "35,45")  # 3 DoS against 4 DoS: the evade holds
    assert t.step().kind == "evade-move"
    t(CH(who="vethis", option="move"))
    assert t.events(ev.CombatantMoved)[-1].distance == 1.0
    assert t.state.exchange is None
    assert "hrolfdar" in t.state.combatants["vethis"].engaged  # ruling evade_move_engagement = stays


def test_evade_move_may_end_the_engagement_by_ruling():
    """Seed 003 "Evade" is silent on engagement: under ruling
    evade_move_engagement = ends the free 1 m move leaves melee with the
    attacker, still without an attack of opportunity."""
    t = Table(rulings={"evade_move_engagement": "ends"})
    t(cmd.StartRound(), "6,1")
    t(A(attacker="hrolfdar", target="vethis"))
    t(R(defender="vethis", reaction="evade"))
    t(ROLL, "35,45")
    t(CH(who="vethis", option="move"))
    assert "hrolfdar" not in t.state.combatants["vethis"].engaged
    assert not any(p.kind == "opportunity" for p in t.state.pending)


def test_special_advantage_is_recorded():
    """D8 Special Advantage: the Special Action is named and recorded (ruling special_advantage)."""
    t = started()
    _hit(t)
    t.fails(CH(who="hrolfdar", option="special-advantage"), "name the Special Action")
    t(CH(who="hrolfdar", option="special-advantage:Shield Bash"))
    assert t.events(ev_ues.AdvantageChosen)[-1].detail == "Shield Bash"


def test_a_ranged_attack_gains_no_advantage_and_cannot_choose_one():
    """Seed 003 Step 4: "Ranged attackers and spells cannot gain or utilize advantage"."""
    t = started()
    t(ACT(who="hrolfdar", action="pass"))
    t(A(attacker="vethis", target="hrolfdar", weapon="Short Bow"))
    assert t.step().options == ("evade", "block", "none")  # no parry or counter at range
    t(R(defender="hrolfdar", reaction="evade"))
    t(ROLL, "20,90")
    roll = t.events(ev_ues.CombatRollResolved)[-1]
    assert (roll.row, roll.advantages) == ("attacker-wins", 0)
    assert t.step().kind == "damage"
    t.fails(CH(who="vethis", option="press-advantage"), "a ranged attack cannot gain or use Advantage")


def test_a_spell_uses_its_school_and_magic_halves_the_block_rating():
    """Seed 003 Step 1 (a spell is a test of its school's skill) and "Block":
    magic damage treats BR as half, rounded up: 7 -> 4."""
    t = started()
    t(ACT(who="hrolfdar", action="pass"))
    t(A(attacker="vethis", target="hrolfdar", weapon="Firebite"))
    assert "tn=50" in t.state.exchange.kind  # Destruction 50
    t(R(defender="hrolfdar", reaction="block"))
    t(ROLL, "20,30")
    t(ROLL, "3")  # 1D6+2 = 5 > 4
    block = t.events(ev_ues.BlockResolved)[-1]
    assert (block.damage, block.br, block.held) == (5, 4, False)
    d = t.events(ev.DamageDealt)[-1]
    assert (struck(d), d.armour, d.final) == ("left arm", 0, 5)  # no magic AR on the arm


@pytest.mark.parametrize("damage,held", [(6, True), (7, True), (8, False)])
def test_block_at_under_and_over_the_block_rating(damage, held):
    """Seed 003 "Block": damage at or under BR 7 is stopped; over it, the full damage lands on the shield arm."""
    t = started()
    t(ACT(who="hrolfdar", action="pass"))
    t(A(attacker="vethis", target="hrolfdar"))
    t(R(defender="hrolfdar", reaction="block"))
    t(ROLL, "40,30")
    t(ROLL, str(damage))
    assert t.events(ev_ues.BlockResolved)[-1].held is held
    dealt = t.events(ev.DamageDealt)
    assert (dealt == []) is held
    if not held:
        assert (struck(dealt[-1]), dealt[-1].rolled) == ("left arm", damage)


def test_block_rating_variants_and_magic():
    """Seed 003 "Block" and D13: magic halves BR (up) unless a magic BR; a targe halves BR."""
    assert block_rating(Shield(name="s", br=7), "slashing", DEFAULT_RULINGS)[0] == 7
    assert block_rating(Shield(name="s", br=7), "fire", DEFAULT_RULINGS)[0] == 4
    assert block_rating(Shield(name="s", br=7, magic_br=6), "fire", DEFAULT_RULINGS)[0] == 6
    assert block_rating(Shield(name="s", br=7, variant="targe"), "crushing", DEFAULT_RULINGS)[0] == 4
    assert block_rating(Shield(name="s", br=8, variant="tower"), "crushing", DEFAULT_RULINGS)[0] == 8


def test_tower_shield_adds_10_to_block():
    h = copy.deepcopy(sheet("hrolfdar"))
    h["shields"][0]["variant"] = "tower"
    t = started(sheets={"hrolfdar": h, "vethis": sheet("vethis")})
    t(ACT(who="hrolfdar", action="pass"))
    t(A(attacker="vethis", target="hrolfdar"))
    t(R(defender="hrolfdar", reaction="block"))
    assert t.step().data["tn"] == 75


def test_a_weapon_outside_the_style_is_minus_20():
    """Seed 003 Step 1: "Weapons not included in the character's combat style are made at -20"."""
    t = started()
    t(A(attacker="hrolfdar", target="vethis", weapon="Hunting Knife"))
    x = t.state.exchange
    assert ev.Modifier(-20, "Hunting Knife is outside Nordic Warrior") in x.modifiers and "tn=45" in x.kind


def test_circumstances_and_difficulty_modify_the_tn():
    """D1 difficulty grades and D14 melee circumstances add to the TN."""
    t = started()
    t(A(attacker="hrolfdar", target="vethis", situations=("hard", "poor-visibility")))
    assert "tn=25" in t.state.exchange.kind  # 65 - 30 - 10
    t.fails(R(defender="vethis", reaction="parry", situations=("slippery",)), "unknown situation")


def test_counter_attack_winner_strikes_with_its_own_weapon_and_roll():
    """Seed 003 Counter-Attack; ruling hit_location: the winner's own roll picks the location."""
    t = started()
    t(A(attacker="hrolfdar", target="vethis"))
    t(R(defender="vethis", reaction="counter"))
    t(ROLL, "23,59")  # 2 DoS against 5 DoS: Vethis hits
    assert t.step().kind == "damage" and t.step().who == "vethis"
    t(ROLL, "5")
    d = t.events(ev.DamageDealt)[-1]
    assert (d.target, struck(d), d.rolled) == ("hrolfdar", "left arm", 5)  # ones digit 9


def _wound(t: Table, loc: str, shock: str, damage: str = "6,6") -> None:
    _hit(t)
    t(CH(who="hrolfdar", option=f"precision-strike:{loc}"))
    t(ROLL, damage)
    assert t.step().kind == "shock"
    t(ROLL, shock)


def test_a_body_wound_costs_an_ap_and_a_failed_shock_test_cripples():
    """D12: body: lose 1 AP; failing the Shock Test adds crippled body; then -20 and -2 initiative."""
    t = started()
    _wound(t, "body", "90")
    v = t.state.combatants["vethis"]
    assert v.has("crippled-body") and v.has("wounded") and v.has("untreated-wound")
    assert v.combat_actions == 2 and v.effect("penalty") == -20 and v.effect("initiative") == -2


def test_a_limb_wound_cripples_and_a_failed_shock_test_loses_it():
    t = started()
    _wound(t, "left leg", "90")
    assert t.state.combatants["vethis"].has("lost-limb")


def test_a_head_wound_stuns_for_the_next_turn():
    """D12 head: stunned 1 round instead (ruling head_wound): Vethis loses his Turn and cannot defend."""
    t = started()
    _wound(t, "head", "20")
    stun = [e for e in t.events(ev.ConditionApplied) if e.condition.name == "stunned"]
    assert [e.handle for e in stun] == ["vethis"] and not t.state.combatants["vethis"].has("crippled-limb")
    assert t.step().kind == "end-round"  # his Turn came next, and is lost
    assert t.events(ev.ConditionExpired)[-1].reason == "stunned: loses this Turn"


def test_damage_not_over_the_threshold_is_no_wound():
    """Seed 003 Step 4: a wound only when the damage after AR *exceeds* the Wound Threshold (10)."""
    t = started()
    _hit(t)
    t(CH(who="hrolfdar", option="precision-strike:left leg"))
    t(ROLL, "5,4")  # 11 - AR 1 = 10: not over 10
    assert t.events(ev.WoundInflicted) == [] and t.state.exchange is None


def test_an_untreated_wound_drops_hp_to_zero_after_five_rounds():
    """D12: 0 HP after 5 rounds unless treated; 'act gm treat' stops the countdown."""
    t = started()
    _wound(t, "left leg", "20")
    for _ in range(5):
        if t.step().kind == "turn":
            t(ACT(who=t.step().who, action="pass"))
        if t.step().kind == "turn":
            t(ACT(who=t.step().who, action="pass"))
        if t.state.phase == "over":
            break
        t(cmd.EndRound())
    v = t.state.combatants["vethis"]
    assert v.location("HP").hp == 0 and v.status == "unconscious" and t.state.phase == "over"


def test_treating_a_wound_stops_the_countdown():
    t = started()
    _wound(t, "left leg", "20")
    t(ACT(who="gm", action="treat vethis"))
    assert not t.state.combatants["vethis"].has("untreated-wound")
    t.fails(ACT(who="gm", action="treat vethis"), "no untreated wound")


def test_a_pc_needs_its_lucky_numbers():
    """D4: a PC has Luck-bonus Lucky Numbers and 5 - Luck bonus Unlucky ones (ruling lucky_numbers)."""
    bad = copy.deepcopy(sheet("hrolfdar"))
    bad["lucky"] = [5]
    with pytest.raises(base.RuleError, match="4 distinct Lucky and 1 Unlucky"):
        Table(sheets={"hrolfdar": bad, "vethis": sheet("vethis")})


def test_a_stunned_or_unaware_defender_cannot_defend():
    """Seed 003 Step 2-3: a defender who cannot defend automatically fails
    (D12: stunned; Step 2: unaware; D11: no AP left)."""
    t = Table()
    t(cmd.StartRound(), "1,6")  # Vethis 16 acts first, Hrolfdar 9
    t(ACT(who="vethis", action="pass"))
    _wound(t, "head", "20")  # Hrolfdar's Turn: a head wound stuns Vethis until his next Turn
    v = t.state.combatants["vethis"]
    assert v.has("stunned") and can_defend(t.state, v) == "Vethis Ilnoth is stunned"
    assert t.step().kind == "end-round"
    t(cmd.EndRound())
    assert not t.state.combatants["vethis"].has("stunned")  # his Turn in round 2 is lost
    assert t.step().who == "hrolfdar"


def test_a_pc_without_lucky_numbers_is_refused_under_ruling_sheet():
    """Ruling lucky_numbers = sheet: a PC's numbers are written on its sheet."""
    bare = copy.deepcopy(sheet("hrolfdar"))
    bare["lucky"], bare["unlucky"] = [], []
    with pytest.raises(base.RuleError, match="without Lucky and Unlucky Numbers"):
        Table(sheets={"hrolfdar": bare, "vethis": sheet("vethis")})


def test_lucky_numbers_drawn_at_start_are_recorded():
    """Ruling lucky_numbers = draw (D4): 5 d100 after the initiative dice; Luck
    bonus 4 of them Lucky, the rest Unlucky; a repeat moves up; recorded as a
    condition caused by the roll, and read by every later test."""
    bare = copy.deepcopy(sheet("hrolfdar"))
    bare["lucky"], bare["unlucky"] = [], []
    t = Table(sheets={"hrolfdar": bare, "vethis": sheet("vethis")}, rulings={"lucky_numbers": "draw"})
    step = load_state(t.store, t.eid).pending[0]
    assert [d.expr for d in step.dice] == ["1D6", "1D6", "5D100"]
    t(cmd.StartRound(), "6,1,12,40,12,100,77")
    luck = next(c for c in t.state.combatants["hrolfdar"].conditions if c.name == "lucky-numbers")
    assert luck.note == "Lucky 12, 40, 13, 100; Unlucky 77"
    rolled = t.events(ev.DiceRolled)[-1]
    assert luck.cause == next(r.version for r in t.store.read(t.eid) if r.event == rolled)
    _hit(t, att_roll="77")  # an Unlucky Number: a critical failure whatever the TN
    assert t.events(ev_ues.CombatRollResolved)[-1].attack_result == "fumble"


def test_melee_uses_str_or_agi_and_ranged_agi():
    """Seed 003 Step 1: melee tests the Combat Style with STR or AGI (ruling
    melee_characteristic: the higher by default), ranged with AGI."""
    t = started()
    t(ACT(who="hrolfdar", action="pass"))
    t(A(attacker="vethis", target="hrolfdar"))
    assert "test=Ashlander Skirmisher (AGI);base=66" in t.state.exchange.kind  # AGI 46 > STR 38
    t = started(rulings={"melee_characteristic": "strength"})
    t(ACT(who="hrolfdar", action="pass"))
    t(A(attacker="vethis", target="hrolfdar"))
    assert "test=Ashlander Skirmisher (STR);base=58" in t.state.exchange.kind
    t = started(rulings={"melee_characteristic": "strength"})
    t(ACT(who="hrolfdar", action="pass"))
    t(A(attacker="vethis", target="hrolfdar", weapon="Short Bow"))
    assert "test=Ashlander Skirmisher (AGI);base=66" in t.state.exchange.kind  # ranged: AGI whatever the ruling


def test_the_defender_picks_the_style():
    """Seed 003 Step 2: the defender picks the method and the Combat Style (--situation style:NAME)."""
    t = started()
    t(A(attacker="hrolfdar", target="vethis"))
    t.fails(R(defender="vethis", reaction="parry", situations=("style:Redoran Guard",)), "no Combat Style")
    t(R(defender="vethis", reaction="parry", situations=("style:Ashlander Skirmisher",)))
    assert t.step().data["test"] == "Ashlander Skirmisher (AGI)"


def test_a_move_out_of_reach_of_anyone_keeps_the_turn():
    """A move with no engaged foe provokes nothing; the mover's Turn goes on (it may still attack)."""
    t = started()
    t(ACT(who="hrolfdar", action="move 5"))
    assert t.step().kind == "turn" and t.step().who == "hrolfdar"
    assert t.events(ev.CombatantMoved)[-1].distance == 5.0
    t.fails(ACT(who="hrolfdar", action="move 0"), "more than 0 metres")
    t.fails(ACT(who="hrolfdar", action="move far"), "move takes metres")


def test_hit_location_by_a_d10_ruling():
    """Seed 003 Step 4: "the ones digit of the attack roll or a d10 (count 10 as 0)" (ruling hit_location)."""
    t = started(rulings={"hit_location": "d10"})
    _hit(t, att_roll="51")
    t(CH(who="hrolfdar", option="none"))
    assert [d.expr for d in t.step().dice] == ["2D6+2", "1D10"]
    t(ROLL, "1,1,10")  # 10 counts as 0: the head
    d = t.events(ev.DamageDealt)[-1]
    assert (struck(d), d.armour) == ("head", 1)


def test_crippled_limbs_are_unusable_by_ruling():
    """D12 names crippled and lost limbs without an effect; ruling
    crippled_limbs = unusable: a crippled weapon arm (not the shield arm)
    wields no weapon (no weapon attack, no Parry or Counter-Attack), a
    spell is still cast; under the default (recorded) nothing is taken."""
    t = started(rulings={"crippled_limbs": "unusable"})
    _wound(t, "right arm", "20")  # Shock Test passed: the right arm is crippled; Vethis's shield arm is the left
    v = t.state.combatants["vethis"]
    assert v.has("crippled-limb")
    assert t.step().who == "vethis"
    t.fails(A(attacker="vethis", target="hrolfdar"), r"right|weapon arm is crippled or lost .*no attack with the Chitin Sword")
    t(A(attacker="vethis", target="hrolfdar", weapon="Firebite"))
    t(R(defender="hrolfdar", reaction="none"))
    t(ROLL, "90")
    t(cmd.EndRound())
    t(A(attacker="hrolfdar", target="vethis"))
    assert t.step().options == ("evade", "block", "none")  # the targe on the left arm still blocks; no parry or counter
    t.fails(R(defender="vethis", reaction="parry"), "weapon arm is crippled or lost")


def test_a_crippled_leg_gives_no_move_by_ruling():
    """Ruling crippled_limbs = unusable: a crippled or lost leg gives no
    move; the default (recorded) leaves the move alone."""
    t = started(rulings={"crippled_limbs": "unusable"})
    _wound(t, "left leg", "20")
    assert t.step().who == "vethis"
    t.fails(ACT(who="vethis", action="move 2"), "leg is crippled or lost")
    t2 = started()
    _wound(t2, "left leg", "20")
    t2(ACT(who="vethis", action="move 2"))
    assert t2.events(ev.CombatantMoved)[-1].distance == 2.0
