"""rq3 rules through the real command path, with table dice (seed 002,
``002_321dc991624c8969.txt``; rules-reference.md C). Each test names the
seed section it checks.

Figures (examples/rq3): Vasana INT 13, DEX 16 (DEX SR 1), SIZ 12 (SIZ SR
2), Broadsword SR 2 1D8+1 AP 10 attack 70 parry 60 (@glancing), Dagger SR
3 1D4+2 attack 45, Dodge 40, Maneuver 55, +1D4, move 3. Gorakh INT 11, DEX
11 (DEX SR 3), SIZ 18 (SIZ SR 1), STR 18, Maul SR 1 2 m 2D8 AP 10 attack 60
parry 45, Dodge 25, Maneuver 35, +1D6, natural AP 1, move 3.
"""

from __future__ import annotations

import msgspec
import pytest

from affray.commands.demo import examples_dir
from affray.commands.handler import execute
from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import rq3 as rev
from affray.rules.base import RuleError
from affray.rules.rq3 import core, knockback
from affray.rules.rq3.sheet import load_sheet
from affray.store import EventStore

EX = examples_dir() / "rq3"
ROLL = cmd.RollPending()


def sheet(file: str, **changes) -> dict:
    d = msgspec.to_builtins(load_sheet(EX / f"{file}.toml"))
    for k, v in changes.items():
        if k in ("STR", "CON", "SIZ", "INT", "POW", "DEX", "APP"):
            d["characteristics"][k] = v
        else:
            d[k] = v
    return d


class Table:
    """A manual-dice rq3 encounter driven through ``execute``."""

    def __init__(self, *joins: tuple[str, dict, str]):
        self.store = EventStore(":memory:")
        self.out = execute(self.store, cmd.OpenEncounter(name="rules", system="rq3", manual_dice=True),
                           seed=b"s", allow_short_seed=True, actor="gm")
        self.eid = self.out.encounter_id
        for handle, data, side in joins or (("vasana", sheet("vasana"), "heroes"), ("gorakh", sheet("gorakh"), "trolls")):
            self(cmd.JoinCombatant(sheet=data, side=side, handle=handle))

    def __call__(self, command, dice: str = ""):
        self.out = execute(self.store, command, encounter_id=self.eid, dice=dice, actor="gm")
        return self.out

    def act(self, who: str, text: str, dice: str = ""):
        return self(cmd.TakeAction(who=who, action=text), dice)

    @property
    def state(self):
        return self.out.state

    def events(self, kind=None):
        evs = [r.event for r in self.store.read(self.eid)]
        return [e for e in evs if kind is None or isinstance(e, kind)]

    def refused(self, command, fragment: str, dice: str = "") -> str:
        before = self.store.version(self.eid)
        with pytest.raises(RuleError) as info:
            self(command, dice)
        assert self.store.version(self.eid) == before
        text = str(info.value)
        assert "\n" not in text and fragment in text, text
        return text


class RuledTable(Table):
    """A :class:`Table` opened with ``rulings``."""

    def __init__(self, rulings: dict[str, str], *joins):
        self.store = EventStore(":memory:")
        self.out = execute(self.store, cmd.OpenEncounter(name="rules", system="rq3", manual_dice=True, rulings=rulings),
                           seed=b"s", actor="gm")
        self.eid = self.out.encounter_id
        for handle, data, side in joins:
            self(cmd.JoinCombatant(sheet=data, side=side, handle=handle))


#: A spear that only impales (seed 002 "Bash", "Break Weapon": a thrusting weapon).
SPEAR = {"name": "Spear", "damage": "1D8+1", "sr": 1, "length": 1.5, "modes": ["impale"], "attack": 50, "parry": 40,
         "hands": 2}


def declared_of(t: Table, who: str) -> list[core.Declared]:
    return core.declared(t.state.combatants[who])


def ready_for_melee(t: Table, gorakh: str, vasana: str) -> None:
    """Start, declare, and engage at 1 m (Vasana wins a contest 10 vs 30)."""
    t(cmd.StartRound())
    t.act("gorakh", gorakh)
    t.act("vasana", vasana)
    t.act("vasana", "move engage gorakh")
    if t.state.pending[0].kind == "maneuver":
        t(ROLL, "10,30")
    t.act("gorakh", "move stay")


# --------------------------------------------------------------------------- #
# 1) Statement of Intent
# --------------------------------------------------------------------------- #


def test_intent_order_lowest_int_first():
    """Seed 002 "1) STATEMENT OF INTENT": from lowest INT to highest."""
    t = Table()
    t(cmd.StartRound())
    assert [e.handle for e in t.state.order] == ["gorakh", "vasana"]
    assert t.state.pending[0].kind == "intent" and t.state.pending[0].who == "gorakh"
    t.refused(cmd.TakeAction(who="vasana", action="intent triple"), "cannot state an intent now")


def test_a_round_is_five_seconds():
    """Seed 002 "THE MELEE ROUND": "For the purposes of keeping track of
    time, each melee round lasts 5 seconds": the Statement of Intent prompt
    keeps the time."""
    t = Table()
    t(cmd.StartRound())
    assert "round 1 (0-5 s of the fight)" in t.state.pending[0].prompt
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent triple")
    t.act("vasana", "move stay")
    t.act("gorakh", "move stay")
    t(cmd.EndRound())
    assert "round 2 (5-10 s of the fight)" in t.state.pending[0].prompt


def test_intent_ties_by_a_die():
    """Seed 002: "Resolve ties by a die roll" (ruling tied_initiative_die:
    1D10 each, the higher states first)."""
    t = Table(("vasana", sheet("vasana"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"),
              ("grak", sheet("gorakh", name="Grak"), "trolls"))
    assert [n.by for n in t.state.pending[0].dice] == ["gorakh", "grak"]
    t(cmd.StartRound(), "3,8")
    assert [e.handle for e in t.state.order] == ["grak", "gorakh", "vasana"]


def test_triple_move_has_no_melee_actions():
    """Seed 002 type 1: TRIPLE MOVE AND NO MELEE ACTIONS."""
    t = Table()
    t(cmd.StartRound())
    t.refused(cmd.TakeAction(who="gorakh", action="intent triple attack:vasana:Maul"), "allows 0 melee actions, not 1")
    t.act("gorakh", "intent triple")
    assert core.intent_of(t.state.combatants["gorakh"]).effects["moves"] == 3
    assert declared_of(t, "gorakh") == []


def test_double_move_one_action_at_plus_3_sr():
    """Seed 002 type 2: DOUBLE MOVE AND ONE MELEE ACTION, +3 SR."""
    t = Table()
    t(cmd.StartRound())
    t.refused(cmd.TakeAction(who="gorakh", action="intent double attack:vasana:Maul parry:vasana:Maul"),
              "allows 1 melee action, not 2")
    t.act("gorakh", "intent double attack:vasana:Maul")
    (d,) = declared_of(t, "gorakh")
    assert (d.kind, d.sr) == ("attack", 3 + 1 + 1 + 3)  # DEX SR + SIZ SR + weapon SR + 3


def test_single_move_two_actions():
    """Seed 002 type 3: SINGLE MOVE AND TWO MELEE ACTIONS; no third."""
    t = Table()
    t(cmd.StartRound())
    t.refused(cmd.TakeAction(who="gorakh", action="intent single attack:vasana:Maul parry:vasana:Maul dodge:vasana"),
              "allows 2 melee actions, not 3")
    t.act("gorakh", "intent single attack:vasana:Maul parry:vasana:Maul")
    assert [(d.kind, d.sr) for d in declared_of(t, "gorakh")] == [("attack", 5), ("parry", 0)]


def test_a_move_phase_given_up_for_a_draw():
    """Seed 002: "either move phase [may] be sacrificed for a Draw Weapon or
    a simple Miscellaneous Action"; a drawn weapon attacks 3 SR later."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent double draw:Dagger attack:gorakh:Dagger:impale")
    draw, attack = declared_of(t, "vasana")
    assert (draw.kind, attack.sr) == ("draw", 1 + 2 + 3 + 3 + 3)  # double +3, drawn +3
    assert core.intent_of(t.state.combatants["vasana"]).effects["sacrificed"] == 1


def test_undrawn_weapon_refused():
    """Seed 002 action 1: a weapon not in hand needs a Draw Weapon first."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.refused(cmd.TakeAction(who="vasana", action="intent double attack:gorakh:Dagger"), "declare 'draw:Dagger'")


def test_unknown_action_and_mode_refused():
    """Seed 002: the nine melee actions; the modes of the weapon."""
    t = Table()
    t(cmd.StartRound())
    t.refused(cmd.TakeAction(who="gorakh", action="intent double charge:vasana"), "the seed's nine")
    t.refused(cmd.TakeAction(who="gorakh", action="intent double attack:vasana:Maul:slash"), "crush mode, not slash")
    t.refused(cmd.TakeAction(who="gorakh", action="intent quadruple"), "use triple, double or single")


def test_untrained_tactic_refused():
    """Seed 002 "SPECIAL TACTICS": "@" tactics need training (on the sheet)."""
    t = Table()
    t(cmd.StartRound())
    t.refused(cmd.TakeAction(who="gorakh", action="intent single attack:vasana:Maul:@feint parry:vasana:Maul"),
              "has not trained @feint with Maul")
    t.refused(cmd.TakeAction(who="gorakh", action="intent double parry:vasana:Maul:@riposte"), "has not trained @riposte")
    t.refused(cmd.TakeAction(who="gorakh", action="intent double dodge:vasana:@counter"), "has not trained @counter")


def test_glancing_parry_needs_dex_3_over_minimum():
    """Seed 002 "@Glancing Parry": DEX at least 3 above the weapon's minimum."""
    v = sheet("vasana")
    v["weapons"][0]["min_dex"] = 15
    t = Table(("vasana", v, "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.refused(cmd.TakeAction(who="vasana", action="intent double parry:gorakh:Broadsword:@glancing"), "DEX at least 3")


@pytest.mark.parametrize("tactic, STR, DEX, ok", [
    ("@flurry", 13, 10, True), ("@flurry", 12, 12, False), ("@flurry", 11, 13, True), ("@flurry", 11, 12, False),
    ("@flurry", 10, 16, False), ("@aimed-blow:head", 10, 13, True), ("@aimed-blow:head", 10, 12, False)])
def test_flurry_and_aimed_blow_minimums(tactic, STR, DEX, ok):
    """Seed 002 "@Flurry": "requires STR at least 3 above the minimum weapon
    STR; or STR at least 1 above the minimum weapon STR, and DEX at least 3
    above the minimum weapon DEX"; "@Aimed Blow": "requires a minimum DEX of
    13" (the Broadsword's minimums set to STR 10, DEX 10)."""
    v = sheet("vasana", STR=STR, DEX=DEX)
    v["weapons"][0].update(min_str=10, min_dex=10, tactics=["@flurry", "@aimed-blow"])
    t = Table(("vasana", v, "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    action = cmd.TakeAction(who="vasana", action=f"intent double attack:gorakh:Broadsword:{tactic}")
    if ok:
        t(action)
        assert declared_of(t, "vasana")[0].mode.startswith(tactic.split(":")[0])
    else:
        t.refused(action, "falls short" if tactic == "@flurry" else "needs DEX 13")


def test_two_attacks_with_one_weapon():
    """Seed 002 "Selecting two Melee Attack actions": one weapon twice at
    -10% (ruling: both blows), the second 3 SR after the first."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent single attack:gorakh:Broadsword attack:gorakh:Broadsword")
    assert [(d.sr, d.penalty) for d in declared_of(t, "vasana")] == [(5, -10), (8, -10)]


def test_second_attack_on_sr_10_after_sr_8():
    """Seed 002: "(or on SR 10 if the first attack occurred on SR 8 or later)"."""
    t = Table(("vasana", sheet("vasana", DEX=5, SIZ=6), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent single attack:gorakh:Broadsword attack:gorakh:Broadsword")
    assert [d.sr for d in declared_of(t, "vasana")] == [5 + 3 + 2, 10]


def test_two_weapons_at_their_own_srs():
    """Seed 002: two weapons "at their normal strike ranks", no penalty."""
    t = Table(("vasana", sheet("vasana", ready=["Broadsword", "Dagger"]), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent single attack:gorakh:Broadsword attack:gorakh:Dagger")
    assert [(d.sr, d.penalty) for d in declared_of(t, "vasana")] == [(5, 0), (6, 0)]


def test_two_parries_two_attackers_one_1h_weapon():
    """Seed 002 "Selecting two Parry options": -20% to parry two attackers
    with the same 1H weapon."""
    t = Table(("vasana", sheet("vasana"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"),
              ("grak", sheet("gorakh", name="Grak", INT=12), "trolls"))
    t(cmd.StartRound(), "3,8")  # the trolls share DEX 11: movement tie-break dice
    t.act("gorakh", "intent triple")
    t.act("grak", "intent triple")
    t.act("vasana", "intent single parry:gorakh:Broadsword parry:grak:Broadsword")
    assert [d.penalty for d in declared_of(t, "vasana")] == [-20, -20]


@pytest.mark.parametrize("parries, second", [("intent double parry:gorakh:Broadsword", [ev.Modifier(-10, "parrying the same source again")]),
                                              ("intent single parry:gorakh:Broadsword parry:gorakh:Broadsword", [])])
def test_parrying_one_source_twice(parries, second):
    """Seed 002 "4. Parry": "If the source for some reason strikes more than
    once, each Parry roll after the first is at a cumulative penalty of
    -10%"; "Selecting two Parry options": "Alternately, the character can
    ignore the modifier for parrying multiple attacks from a single
    source". Gorakh's Maul strikes twice (SR 5 and 8)."""
    t = Table()
    ready_for_melee(t, "intent single attack:vasana:Maul attack:vasana:Maul", parries)
    for sr in (5, 8):
        assert t.state.pending[0].data["sr"] == sr
        t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "30")
        t(cmd.ChooseReaction(defender="vasana", reaction="parry"), "40")
        parry = t.events(ev.SkillTested)[-1]
        assert list(parry.modifiers) == ([] if sr == 5 else second)
        t(ROLL, "12,1,1,1")  # 2 + 1 = 3, stopped by the Broadsword


def test_dodging_attacks_on_the_same_sr():
    """Seed 002 "5. Dodge": "Attacks landing on the same strike rank are at a
    -10% to Dodge skill for each attack beyond the first": the beast's Claw
    and Talon both land on SR 9."""
    beast = sheet("gorakh", name="Beast")
    beast["weapons"] = [{"name": n, "damage": "1D6", "sr": 2, "kind": "unarmed", "attack": 50, "modes": ["slash"]}
                        for n in ("Claw", "Talon", "Bite", "Tail")]
    beast["ready"] = []
    t = Table(("vasana", sheet("vasana"), "heroes"), ("beast", beast, "monsters"))
    t(cmd.StartRound())
    t.act("beast", "intent double attack:vasana:Claw+Talon")
    t.act("vasana", "intent double dodge:beast")
    t.act("vasana", "move engage beast")
    t.act("beast", "move stay")
    mods = []
    for _ in range(2):
        assert t.state.pending[0].data["sr"] == 9
        t(cmd.DeclareAttack(attacker="beast", target="vasana"), "30")
        t(cmd.ChooseReaction(defender="vasana", reaction="dodge"), "95")
        mods.append(list(t.events(ev.SkillTested)[-1].modifiers))
        t(ROLL, "12,1,1")
    assert mods == [[], [ev.Modifier(-10, "attacks landing on the same SR")]]


def test_perception_half_in_combat_full_after_looking_around():
    """Seed 002 "9. Miscellaneous Action": "most perception skills, such as
    Scan, Listen, etc. are at half skill while in combat. Taking a
    miscellaneous action to look around would allow the use of Scan, Listen,
    etc. at full skill" (ruling perception_skills)."""
    t = Table(("vasana", sheet("vasana", skills={"Dodge": 40, "Maneuver": 55, "Scan": 60}), "heroes"),
              ("gorakh", sheet("gorakh"), "trolls"))
    t.refused(cmd.TakeAction(who="vasana", action="perceive Scan"), "for a running fight", "10")
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent double misc:look")
    t.act("vasana", "perceive scan", "50")
    tested = t.events(ev.SkillTested)[-1]
    assert (tested.skill, tested.base, tested.result) == ("Scan", 30, "failure") and "half skill" in tested.purpose
    t.refused(cmd.TakeAction(who="vasana", action="perceive Climb"), "not a perception skill", "10")
    t.refused(cmd.TakeAction(who="vasana", action="perceive Listen"), "has no Listen", "10")
    t.act("vasana", "move stay")
    t.act("gorakh", "move stay")
    assert t.state.pending[0].kind == "end-round"  # the look resolved at its SR
    t.act("vasana", "perceive Scan", "50")
    tested = t.events(ev.SkillTested)[-1]
    assert (tested.base, tested.result) == (60, "success") and "full skill" in tested.purpose


def test_two_spells_must_fit_10_sr():
    """Seed 002 "Selecting two Cast Spell actions": the second goes off at the
    sum of both; only if the total is 10 SR or less. A spell is DEX SR + MP
    (+3 to ready it); divine magic at DEX SR (+1 per MP)."""
    t = Table()
    t(cmd.StartRound())
    t.refused(cmd.TakeAction(who="gorakh", action="intent single cast:disruption:4 cast:bladesharp:4"), "10 SR or less")
    t.act("gorakh", "intent single cast:disruption:1 cast:demoralise:2:ready")
    assert [d.sr for d in declared_of(t, "gorakh")] == [3 + 1, 3 + 1 + 2 + 3]


def test_brace_forbids_the_dodge():
    """Seed 002 "BRACING AGAINST KNOCKBACK": one cannot dodge while braced."""
    t = Table()
    t(cmd.StartRound())
    t.refused(cmd.TakeAction(who="gorakh", action="intent double dodge:vasana brace"), "cannot dodge while braced")
    t.act("gorakh", "intent double parry:vasana:Maul brace")
    assert t.state.combatants["gorakh"].has("braced")


# --------------------------------------------------------------------------- #
# Altering the Statement of Intent
# --------------------------------------------------------------------------- #


def test_defensive_abort_to_dodge():
    """Seed 002 "DEFENSIVE ABORT": an unused action becomes a Dodge at -20%."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent double attack:vasana:Maul")
    t.act("gorakh", "abort 1 defensive dodge:vasana")
    (aborted, dodge) = declared_of(t, "gorakh")
    assert aborted.abort == "defensive" and (dodge.kind, dodge.penalty) == ("dodge", -20)
    assert t.events(rev.ActionAborted)[-1].abort == "defensive"
    t.refused(cmd.TakeAction(who="gorakh", action="abort 1 movement"), "no unused declared action 1")


def test_movement_abort_and_only_one_special_abort():
    """Seed 002 "MOVEMENT ABORT", and "One unused melee action per melee
    round ... can be aborted to one of two possible special abort actions"."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent single attack:vasana:Maul parry:vasana:Maul")
    t.act("gorakh", "abort 1 movement")
    intent = core.intent_of(t.state.combatants["gorakh"])
    assert intent.effects["aborted"] == 1 and intent.effects["post-moves"] == 2
    t.refused(cmd.TakeAction(who="gorakh", action="abort 2 defensive dodge:vasana"), "used this round's abort")
    t.act("gorakh", "abort 2")  # a plain abort is always allowed
    assert [d.abort for d in declared_of(t, "gorakh")] == ["movement", "plain"]


def test_defensive_abort_at_the_blow_and_pass():
    """Seed 002 "DEFENSIVE ABORT" when the blow comes (react abort-dodge),
    and a plain abort of a due attack (act WHO pass)."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent single attack:gorakh:Broadsword dodge:gorakh")
    # SR 5 Vasana (DEX 16) before Gorakh's SR 8.
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "50")
    assert t.state.pending[0].options == ("abort-parry", "abort-dodge", "none")
    t.refused(cmd.ChooseReaction(defender="gorakh", reaction="parry"), "declared no parry")
    # Dodge 25 - 20 = 5: 04 is a success (01-05 always succeed).
    t(cmd.ChooseReaction(defender="gorakh", reaction="abort-dodge"), "4")
    assert t.events(ev.ReactionResolved)[-1].cell == "dodge:success/success"
    assert t.state.exchange is None and t.state.pending[0].kind == "end-round"


def test_pass_drops_the_due_attack():
    """Seed 002: "A character can always abort a declared action"."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent double attack:gorakh:Broadsword")
    t.act("vasana", "pass")
    assert t.events(rev.ActionAborted)[-1].abort == "plain"
    assert t.state.pending[0].who == "gorakh" and t.state.pending[0].kind == "strike"


# --------------------------------------------------------------------------- #
# 2) Move Phase
# --------------------------------------------------------------------------- #


def test_movement_initiative_by_dex():
    """Seed 002 "MOVEMENT INITIATIVE": higher DEX moves first."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent triple")
    assert t.state.pending[0].kind == "move" and t.state.pending[0].who == "vasana"


def test_engagement_by_weapon_length_and_closing():
    """Seed 002 "RULES OF ENGAGEMENT": within 2 m of a foe who declared a
    weapon of 2 m or more one is engaged there, and only the long weapon
    reaches; "MANEUVER SKILL": a contest to close. A lost contest leaves
    her at 2 m, where her Broadsword cannot attack."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent single attack:vasana:Maul parry:vasana:Maul")
    t.act("vasana", "intent single attack:gorakh:Broadsword parry:gorakh:Broadsword")
    t.act("vasana", "move engage gorakh")
    assert core.reach(t.state.combatants["vasana"], "gorakh") == 2
    assert t.state.pending[0].kind == "maneuver"
    t(ROLL, "50,30")  # both successes: the same level, nothing changes
    assert t.events(rev.ManeuverContested)[-1].winner == ""
    assert core.reach(t.state.combatants["vasana"], "gorakh") == 2
    t.act("gorakh", "move stay")
    t.refused(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "only a weapon of at least 2 m reaches")


def test_contest_winner_closes_and_disengages():
    """Seed 002 "MANEUVER SKILL": the higher level of success wins."""
    t = Table()
    ready_for_melee(t, "intent triple", "intent triple")
    assert core.reach(t.state.combatants["vasana"], "gorakh") == 1  # 10 special beats 30 success
    t(cmd.EndRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent triple")
    t.act("vasana", "move disengage gorakh")
    t(ROLL, "60,20")  # failure against success: Gorakh holds her
    assert "gorakh" in t.state.combatants["vasana"].engaged
    t.act("gorakh", "move disengage vasana")
    t(ROLL, "3,70")  # Gorakh 3 critical, Vasana 70 failure
    assert t.state.combatants["gorakh"].engaged == ()


def test_maneuver_bonus_for_faster_movement():
    """Seed 002: "Every meter of basic movement rate higher than an opponent
    adds +5% to Maneuver skill rolls made against that opponent"."""
    t = Table(("vasana", sheet("vasana", move=5), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t(cmd.StartRound())
    t.act("gorakh", "intent single attack:vasana:Maul parry:vasana:Maul")
    t.act("vasana", "intent triple")
    t.act("vasana", "move engage gorakh")
    t(ROLL, "64,30")
    tested = [e for e in t.events(ev.SkillTested) if e.skill == "Maneuver"]
    assert (tested[0].target, tested[0].result) == (65, "success")
    assert tested[1].target == 35


def test_fumbled_maneuver_loses_the_facing_shift():
    """Seed 002: a fumbling character stops and loses the free facing shift."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent single attack:vasana:Maul parry:vasana:Maul")
    t.act("vasana", "intent triple")
    t.act("vasana", "move engage gorakh")
    t(ROLL, "100,50")
    assert t.state.combatants["vasana"].has("no-facing-shift")


@pytest.mark.parametrize("intent, left", [("intent triple", []),
                                          ("intent double attack:gorakh:Broadsword", ["attack"]),
                                          ("intent single attack:gorakh:Broadsword parry:gorakh:Broadsword", ["attack"])])
def test_standing_takes_two_moves(intent, left):
    """Seed 002 "FALLEN CHARACTERS": "moving from a prone position to a
    kneeling position takes a single move action ..., moving from a kneeling
    position to a standing position takes another move action. In other
    words, a character going from a prone position to a standing position
    will only have a single melee or move action left to use": a double move
    keeps its melee action, a single move gives up one of its two."""
    t = Table(("vasana", sheet("vasana", skills={"Dodge": 40, "Maneuver": 55}), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent triple")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(ROLL, "12,3,3,1")
    t(ROLL, "90")  # knocked down
    t(cmd.EndRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", intent)
    t.act("vasana", "move stand")
    assert t.state.combatants["vasana"].stance == "standing"
    assert [d.kind for d in declared_of(t, "vasana") if not d.abort] == left


def test_post_melee_withdraw_needs_no_contest():
    """Seed 002 "4) POST MELEE MOVE PHASE": engagement rules do not apply;
    a braced character cannot move."""
    t = Table()
    ready_for_melee(t, "intent triple brace", "intent triple")
    assert t.state.pending[0].kind == "end-round"
    t.refused(cmd.TakeAction(who="gorakh", action="withdraw vasana"), "braced this round")
    t.act("vasana", "withdraw gorakh")
    assert t.state.combatants["vasana"].engaged == ()


# --------------------------------------------------------------------------- #
# 3) Melee Phase
# --------------------------------------------------------------------------- #


def test_melee_in_strike_rank_order():
    """Seed 002 "3) MELEE PHASE": all actions in SR order (C3: DEX SR + SIZ
    SR + weapon SR); the double move's +3 puts Vasana after Gorakh."""
    t = Table()
    ready_for_melee(t, "intent single attack:vasana:Maul parry:vasana:Maul", "intent double attack:gorakh:Broadsword")
    assert (t.state.pending[0].who, t.state.pending[0].data["sr"]) == ("gorakh", 5)
    t.refused(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "no declared attack is due")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "99")  # a failure
    assert (t.state.pending[0].who, t.state.pending[0].data["sr"]) == ("vasana", 8)


def test_undeclared_weapon_refused():
    """Seed 002 "ALTERING STATEMENT OF INTENT": only the declared action."""
    t = Table(("vasana", sheet("vasana", ready=["Broadsword", "Dagger"]), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t, "intent triple", "intent double attack:gorakh:Broadsword")
    t.refused(cmd.DeclareAttack(attacker="vasana", target="gorakh", weapon="Dagger"), "declared an attack with Broadsword")


def _hit(t: Table, attack: str, react: tuple[str, str] | None, damage: str) -> ev.DamageDealt:
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), attack)
    if react:
        t(cmd.ChooseReaction(defender="gorakh", reaction=react[0]), react[1])
    t(ROLL, damage)
    return t.events(ev.DamageDealt)[-1]


def test_crush_special_max_bonus_and_half_soft_armour():
    """Seed 002 "Crush": ignores half of soft armour; maximum damage bonus
    to head, chest or abdomen."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent triple")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "10")  # special (<= 12)
    t(ROLL, "12,3,4,2")  # chest; 2D8 3+4; 1D6 2 -> maximum 6
    d = t.events(ev.DamageDealt)[-1]
    # ringmail 5 + soft leather 1 (half ignored: 1 - 0 = 1, ceil 1/2 = 1) = 6
    assert (d.location, d.rolled, d.armour, d.final) == ("chest", 13, 6, 7)
    assert t.state.combatants["vasana"].location("chest").hp == -1


def test_impale_special_doubles_on_vitals_and_no_knockback():
    """Seed 002 "Impale": double weapon damage to head, chest or abdomen
    (ruling: a second roll); "Impaling weapons that impale and do damage do
    no knockback"."""
    t = Table()
    ready_for_melee(t, "intent triple", "intent double attack:gorakh:Broadsword:impale")
    d = _hit(t, "10", None, "9,8,7,4")  # abdomen; 8+1, second 7+1; 1D4 4
    assert (d.location, d.rolled, d.armour, d.final) == ("abdomen", 9 + 8 + 4, 5, 16)
    assert t.events(ev.CombatantMoved) == []


def test_slash_special_normal_on_chest():
    """Seed 002 "Slash": maximum weapon damage to head, limbs or abdomen,
    normal weapon damage to chest."""
    t = Table()
    ready_for_melee(t, "intent triple", "intent double attack:gorakh:Broadsword:slash")
    d = _hit(t, "10", None, "12,2,1")
    assert d.rolled == 3 + 1 and t.events(rev.SpecialApplied)[-1].detail == "no effect on the chest"


def test_critical_ignores_armour_but_not_a_critical_parry():
    """Seed 002 "CRITICAL HITS": a critical ignores all armour; "Standard
    Parry": a critical parry stops all damage, even a critical attack's."""
    t = Table()
    ready_for_melee(t, "intent double parry:vasana:Maul", "intent single attack:gorakh:Broadsword parry:gorakh:Broadsword")
    d = _hit(t, "3", ("parry", "2"), "12,8,4")  # critical vs critical parry
    assert (d.rolled, d.reduced, d.final) == (13, 13, 0)
    assert t.events(ev.ReactionResolved)[-1].cell == "parry:critical/critical"


def test_a_critical_is_also_a_special():
    """Seed 002 "CRITICAL HITS": "As it is also a special success, it will
    typically have an additional effect depending on the weapon and mode of
    attack used": a critical slash to the head does maximum weapon damage
    (1D8+1: 9) and ignores the helm and skin."""
    t = Table()
    ready_for_melee(t, "intent triple", "intent double attack:gorakh:Broadsword")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "3")
    assert t.events(ev.AttackResolved)[-1].critical
    t(ROLL, "19,2,1")  # head; the weapon's 2 becomes 9; +1D4 1
    d = t.events(ev.DamageDealt)[-1]
    assert (d.location, d.rolled, d.armour, d.final) == ("head", 10, 0, 10)
    assert "maximum weapon damage 9" in d.note


def test_standard_parry_weapon_loses_an_ap():
    """Seed 002 "Standard Parry": the parrying weapon loses 1 AP from an
    attack exceeding its AP; the excess strikes the parrier. A special parry
    spares the weapon."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent double parry:gorakh:Broadsword")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(cmd.ChooseReaction(defender="vasana", reaction="parry"), "50")  # success, not special
    t(ROLL, "12,8,7,6")  # 21 against AP 10: 11 through
    d = t.events(ev.DamageDealt)[-1]
    assert (d.rolled, d.reduced, d.armour, d.final) == (21, 10, 6, 5)
    v = t.state.combatants["vasana"]
    assert core.weapon_ap(v, core.weapon_of(v, "Broadsword")) == 9


def test_dodge_shifts_the_hit_down():
    """Seed 002 "MELEE DODGING": a normal dodge turns a special hit into a
    normal hit."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent double dodge:gorakh")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "10")  # special
    t(cmd.ChooseReaction(defender="vasana", reaction="dodge"), "30")  # success
    assert t.events(ev.ReactionResolved)[-1].cell == "dodge:success/special"
    step = t.state.pending[0]
    assert step.kind == "damage" and step.data["level"] == "success"


def test_fumbled_dodge_makes_a_critical_do_maximum():
    """Seed 002: a fumbled dodge: "a critical hit does maximum damage"."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent double dodge:gorakh")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "2")  # critical
    t(cmd.ChooseReaction(defender="vasana", reaction="dodge"), "100")  # fumble
    t(ROLL, "1,1,1,1")
    d = t.events(ev.DamageDealt)[-1]
    assert (d.rolled, d.armour, d.critical) == (16 + 6, 0, True)


@pytest.mark.parametrize("roll, cut", [("10", -35), ("3", -70)])
def test_feint_special_lowers_the_defence(roll, cut):
    """Seed 002 "@Feint": a special subtracts half the attack skill from the
    parry or dodge; "A critical feint does normal damage ignoring armor, but
    subtracts the attackers attack skill" (70)."""
    v = sheet("vasana")
    v["weapons"][0]["tactics"] = ["@feint", "@glancing"]
    t = Table(("vasana", v, "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t, "intent double parry:vasana:Maul", "intent double attack:gorakh:Broadsword:@feint")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), roll)
    t(cmd.ChooseReaction(defender="gorakh", reaction="parry"), "20")
    tested = t.events(ev.SkillTested)[-1]
    assert tested.modifiers == (ev.Modifier(cut, "@Feint"),) and tested.target == max(0, 45 + cut)
    assert tested.result == "failure"


def test_flexible_weapon_parried_by_shield_at_three_quarters():
    """Seed 002 "FLEXIBLE WEAPONS": a shield larger than a buckler parries a
    flexible weapon at 3/4."""
    v = sheet("vasana")
    v["weapons"].append({"name": "Flail", "damage": "1D6+2", "sr": 2, "flexible": True, "modes": ["crush"], "attack": 50, "parry": 0})
    v["ready"] = ["Flail"]
    g = sheet("gorakh")
    g["weapons"].append({"name": "Shield", "damage": "1D6", "kind": "shield", "shield_size": "small", "sr": 3, "ap": 12, "parry": 40})
    g["ready"] = ["Maul", "Shield"]
    t = Table(("vasana", v, "heroes"), ("gorakh", g, "trolls"))
    ready_for_melee(t, "intent double parry:vasana:Shield", "intent double attack:gorakh:Flail")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "40")
    t(cmd.ChooseReaction(defender="gorakh", reaction="parry"), "31")
    tested = t.events(ev.SkillTested)[-1]
    assert (tested.base, tested.result) == (30, "failure")


# --------------------------------------------------------------------------- #
# Knockback and wounds
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("points, threshold, braced, metres", [
    (11, 12, False, 0), (12, 12, False, 1), (21, 12, False, 1), (22, 12, False, 2), (34, 12, False, 3),
    (30, 30, True, 0), (31, 30, True, 1)])
def test_knockback_metres(points, threshold, braced, metres):
    """Seed 002 "KNOCKBACK": damage >= SIZ: 1 m, +1 m per 10 over; "BRACING":
    only damage higher than STR+SIZ."""
    assert knockback.metres(points, threshold, braced) == metres


def test_knockback_dex_roll_falls():
    """Seed 002 "KNOCKBACK": DEX x5 to stay standing, one multiple less per
    extra metre; a failure knocks the target down."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent triple")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(ROLL, "12,3,3,1")  # chest: 7 crush counts double: 14 >= SIZ 12 -> 1 m; 7 - 6 AP = 1 HP
    step = t.state.pending[0]
    assert (step.kind, step.data["metres"], step.dice[0].purpose) == ("knockback", 1, "DEX x5: Vasana stays standing")
    t(ROLL, "90")  # 90 > DEX 16 x5 = 80
    # Seed 002 "FALLEN CHARACTERS": Acrobatics 35 to stand in the Post Melee Move: 50 fails.
    assert t.state.pending[0].kind == "breakfall"
    t(ROLL, "50")
    v = t.state.combatants["vasana"]
    assert v.stance == "prone" and v.has("fallen-this-round") and v.location("chest").hp == 5
    assert [(e.distance, e.away_from) for e in t.events(ev.CombatantMoved)] == [(1.0, "gorakh")]


def test_small_blow_no_knockback():
    """Seed 002 "KNOCKBACK": under SIZ, no knockback."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent triple")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(ROLL, "12,1,1,1")  # 3 crush -> 6 knockback points: none
    assert t.state.pending[0].kind == "end-round" and t.events(ev.CombatantMoved) == []


def test_wounds_limb_vital_and_total():
    """RQ3 wounds (ruling 'wounds'; C7-C8): a leg at 0 HP is useless and
    fells; the abdomen at 0 HP knocks out."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent triple")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(ROLL, "1,4,3,1")  # right leg: 8 - 1 = 7 -> 5 - 7 = -2
    v = t.state.combatants["vasana"]
    assert v.location("right leg").hp == -2 and v.has("useless-limb") and v.stance == "prone"
    assert t.events(ev.WoundInflicted)[-1].severity == "serious"


def test_breakfall_lets_her_stand_in_the_post_melee_move():
    """Seed 002 "FALLEN CHARACTERS": a successful Acrobatics or Breakfall
    roll allows the character to stand in that round's Post Melee Move."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent triple")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(ROLL, "12,3,3,1")
    t(ROLL, "90")
    t.refused(cmd.TakeAction(who="vasana", action="stand"), "belongs to the Post Melee Move")
    t(ROLL, "20")  # Acrobatics 35: a success
    assert not t.state.combatants["vasana"].has("fallen-this-round")
    t.act("vasana", "stand")
    assert t.state.combatants["vasana"].stance == "standing"


def test_terrain_tests_and_results():
    """Seed 002 "COMBAT MOVEMENT IN UNRELIABLE TERRAIN": a test per move
    in difficult terrain (the better of Maneuver and DEX x5); a special
    gives +10% to attacks and defences this round; a failure fells."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent double attack:gorakh:Broadsword")
    t.refused(cmd.TakeAction(who="vasana", action="move engage gorakh terrain=swamp"), "unknown terrain")
    t.act("vasana", "move engage gorakh terrain=difficult")
    step = t.state.pending[0]
    assert (step.kind, step.data["left"]) == ("terrain", 2)
    t(ROLL, "10")  # DEX 16 x5 = 80 beats Maneuver 55: 10 <= 16, a special
    assert t.state.combatants["vasana"].effect("bonus") == 10
    t(ROLL, "50")  # the second move's test: a success; then she engages
    assert "gorakh" in t.state.combatants["vasana"].engaged
    t.act("gorakh", "move engage vasana terrain=bodies")
    t(ROLL, "99")  # DEX 11 x3 = 33 (Maneuver 35 better): 99 fails
    g = t.state.combatants["gorakh"]
    assert g.stance == "prone" and g.has("fallen-this-round")


def test_terrain_fumble_loses_actions_and_hurts():
    """Seed 002 terrain: "Fumble: The character falls down, loses any
    remaining actions that round, and takes 1D6 falling damage"."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent double attack:gorakh:Broadsword")
    t.act("vasana", "move stay terrain=very-difficult moves=1")
    t(ROLL, "100")
    assert [d.abort for d in declared_of(t, "vasana")] == ["plain"]
    t(ROLL, "19,5")  # head, 1D6 5: helm 3 + cap ceil(1/2) = 4 AP -> 1
    d = t.events(ev.DamageDealt)[-1]
    assert (d.location, d.rolled, d.armour, d.final) == ("head", 5, 4, 1)
    assert t.state.pending[0].kind == "breakfall"


def test_knockback_into_a_wall():
    """Seed 002 "KNOCKBACK INTO ... SOLID OBJECTS": another DEX x5, 1D6 per
    two metres (rounded up: ruling knockback_collision), doubled against a
    solid object."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent triple")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana", situations=("solid-wall",)), "40")
    t(ROLL, "12,3,3,1")  # 1 m of knockback
    assert [n.expr for n in t.state.pending[0].dice] == ["1D100", "1D100", "1D20", "1D6"]
    t(ROLL, "10,90,1,3")  # stays up, then falls against the wall; right leg 3 x2 = 6 - 1 AP = 5
    d = t.events(ev.DamageDealt)[-1]
    assert (d.location, d.rolled, d.armour, d.final) == ("right leg", 6, 1, 5)
    assert t.state.combatants["vasana"].stance == "prone"


def test_mounted_knockback_and_high_ground():
    """Seed 002 "KNOCKBACK": a mounted target adds its mount's SIZ on a Ride
    success; "HIT LOCATIONS OF MOUNTED TARGETS"/"HIGH GROUND": a rider has
    +10% and 1D10+10 locations against a footman (1H weapon)."""
    horse = sheet("gorakh", name="Horse", SIZ=10, INT=3, DEX=10)
    t = Table(("vasana", sheet("vasana", skills={"Ride": 60, "Dodge": 40, "Maneuver": 55}), "heroes"),
              ("horse", horse, "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t(cmd.Mount(rider="vasana", mount="horse"))
    t(cmd.StartRound())
    t.act("horse", "intent triple")
    t.act("gorakh", "intent double attack:vasana:Maul")
    t.act("vasana", "intent single attack:gorakh:Broadsword parry:gorakh:Broadsword")
    t.act("vasana", "move engage gorakh")
    t(ROLL, "10,30")
    t.act("gorakh", "move stay")
    t.act("horse", "move stay")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "75")  # 70 + 10 high ground
    tested = t.events(ev.SkillTested)[-1]
    assert tested.target == 80 and tested.result == "success"
    t(cmd.ChooseReaction(defender="gorakh", reaction="none"))
    assert t.state.pending[0].dice[0].expr == "1D10"
    t(ROLL, "5,1,1")  # 1D10+10 = 15: right arm
    assert t.events(ev.DamageDealt)[-1].location == "right arm"
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(cmd.ChooseReaction(defender="vasana", reaction="parry"), "50")  # stops 10 of 12
    t(ROLL, "12,3,3,6")  # 12 crush x2 = 24 against SIZ 12: 2 m; with the horse 12 + 10 = 22: 1 m
    t(ROLL, "30,10")  # Ride 30 <= 60; DEX x5 10: she keeps the saddle
    assert [e.distance for e in t.events(ev.CombatantMoved)] == [1.0]
    assert t.state.combatants["vasana"].has("mounted")


def _archer() -> dict:
    v = sheet("vasana")
    v["weapons"].append({"name": "Javelin", "damage": "1D8", "kind": "missile", "thrown": True, "modes": ["impale"],
                         "attack": 50, "range": 20})
    v["weapons"].append({"name": "Bow", "damage": "1D6+1", "kind": "missile", "modes": ["impale"], "attack": 60,
                         "range": 90, "hands": 2})
    v["ready"] = ["Javelin", "Bow"]
    return v


def test_missile_at_dex_sr_and_dodged_at_point_blank():
    """Seed 002 action 2: a missile attack at DEX SR (+3 on a double move);
    "PARRYING AND DODGING MISSILE WEAPONS": at point blank a thrown weapon is
    dodged at half; a javelin does 1D10 (table correction); a thrown weapon
    adds half the damage modifier (ruling thrown_damage_modifier)."""
    t = Table(("vasana", _archer(), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t(cmd.StartRound())
    t.act("gorakh", "intent double dodge:vasana")
    t.act("vasana", "intent double missile:gorakh:Javelin")
    t.act("vasana", "move stay")
    t.act("gorakh", "move stay")
    assert t.state.pending[0].data["sr"] == 1 + 3
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh", situations=("point-blank",)), "30")
    t(cmd.ChooseReaction(defender="gorakh", reaction="dodge"), "13")  # Dodge 25 / 2 = 12: 13 fails
    assert t.events(ev.SkillTested)[-1].base == 12
    assert [n.expr for n in t.state.pending[0].dice] == ["1D20", "1D10", "1D4"]
    t(ROLL, "12,10,3")  # chest: 10 + half of 3 = 1 -> 11; AP 3 + ceil(2/2) + 1 = 5 -> 6
    d = t.events(ev.DamageDealt)[-1]
    assert (d.rolled, d.armour, d.final) == (11, 5, 6)


def test_projected_missile_parried_at_one_fifth_and_fired_while_engaged():
    """Seed 002: projected missiles "are parried by a weapon at 1/5 normal
    percentage"; "If a character with a missile weapon starts the melee round
    adjacent to an opponent, missile attacks are at half percentage"; no
    damage modifier for a bow. In the round she closed to 1 m she shoots at
    full chance; the next round, having started it adjacent, at half."""
    t = Table(("vasana", _archer(), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t, "intent double parry:vasana:Maul", "intent double missile:gorakh:Bow")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "95")
    assert t.events(ev.SkillTested)[-1].base == 60
    t(cmd.EndRound())
    t.act("gorakh", "intent double parry:vasana:Maul")
    t.act("vasana", "intent double missile:gorakh:Bow")
    t.act("vasana", "move stay")
    t.act("gorakh", "move stay")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "25")
    assert t.events(ev.SkillTested)[-1].base == 30 and t.events(ev.SkillTested)[-1].result == "success"
    t(cmd.ChooseReaction(defender="gorakh", reaction="parry"), "9")  # Maul parry 45 / 5 = 9
    assert t.events(ev.SkillTested)[-1].base == 9 and t.events(ev.SkillTested)[-1].result == "success"
    assert [n.expr for n in t.state.pending[0].dice] == ["1D20", "1D6+1"]


# --------------------------------------------------------------------------- #
# Grappling
# --------------------------------------------------------------------------- #


def _grappled(t: Table, parry: str = "") -> None:
    """Round 1: Gorakh (Grapple 40) grapples Vasana (a double move)."""
    ready_for_melee(t, "intent double attack:vasana:Grapple",
                    "intent triple" if not parry else f"intent double parry:gorakh:{parry}")


def test_grapple_grasps_a_random_location():
    """Seed 002 "GRAPPLING": "A successful Grapple attack grasps a random hit
    location of an opponent"."""
    t = Table()
    _grappled(t)
    assert t.state.pending[0].data["sr"] == 3 + 1 + 3 + 3  # DEX SR + SIZ SR + 3, double move +3
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "20")
    assert t.state.pending[0].kind == "grapple-hold"
    t(ROLL, "14")
    g, v = t.state.combatants["gorakh"], t.state.combatants["vasana"]
    assert g.has("grappling") and v.has("grappled")
    assert next(x for x in v.conditions if x.name == "grappled").location == "right arm"


def test_grapple_parried_catches_the_weapon_or_the_arm():
    """Seed 002 "GRAPPLING": a successful weapon parry means the weapon was
    caught; a special grapple catches the parrying arm instead."""
    t = Table()
    _grappled(t, "Broadsword")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "8")  # special (<= 8)
    t(cmd.ChooseReaction(defender="vasana", reaction="parry"), "30")
    t(ROLL, "2")
    held = next(x for x in t.state.combatants["gorakh"].conditions if x.name == "grappling")
    assert held.note == "holds Vasana's right arm"


def test_grapple_follow_ups_immobilise_throw_damage_and_release():
    """Seed 002 "GRAPPLING": next round at DEX SR: immobilise (STR vs
    STR/2), throw (+10%, STR+DEX vs SIZ/2+DEX, 1D6 + damage modifier,
    armour at half), damage (-10%, 1D4 + damage modifier, no armour); a
    failed roll releases."""
    t = Table()
    _grappled(t)
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "20")
    t(ROLL, "12")  # chest held
    t(cmd.EndRound())
    t.act("gorakh", "intent single attack:vasana:Grapple:damage attack:vasana:Grapple:immobilise")
    t.act("vasana", "intent triple")
    t.act("vasana", "move stay")
    t.act("gorakh", "move stay")
    assert t.state.pending[0].data["sr"] == 3
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "15")  # 40 - 10 (damage) - 10 (two attacks) = 20
    t(ROLL, "3,4")  # 1D4 3 + 1D6 4 = 7, armour ignored: chest 6 -> -1
    d = t.events(ev.DamageDealt)[-1]
    assert (d.location, d.rolled, d.armour, d.final) == ("chest", 7, 0, 7)
    assert t.state.combatants["vasana"].status == "unconscious"


def test_grapple_failed_follow_up_releases():
    """Seed 002 "GRAPPLING": "If the second roll fails, the opponent is released"."""
    t = Table()
    _grappled(t)
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "20")
    t(ROLL, "12")
    t(cmd.EndRound())
    t.act("gorakh", "intent double attack:vasana:Grapple:throw")
    t.refused(cmd.TakeAction(who="vasana", action="intent double attack:gorakh:Grapple:throw"), "holds no location")
    t.act("vasana", "intent triple")
    t.act("vasana", "move stay")
    t.act("gorakh", "move stay")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "80")  # 40 + 10 = 50: failure
    assert not t.state.combatants["gorakh"].has("grappling")
    assert not t.state.combatants["vasana"].has("grappled")


# --------------------------------------------------------------------------- #
# Special tactics
# --------------------------------------------------------------------------- #


def _trained(*tactics: str) -> dict:
    v = sheet("vasana")
    v["weapons"][0]["tactics"] = list(tactics)
    return v


def test_aimed_shot_half_chance_chosen_location():
    """Seed 002 "Aimed Shot": at half the normal chance, at a location."""
    t = Table()
    ready_for_melee(t, "intent triple", "intent double attack:gorakh:Broadsword:aimed:head")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "30")
    assert t.events(ev.SkillTested)[-1].base == 35
    assert [n.expr for n in t.state.pending[0].dice] == ["1D8+1", "1D4"]
    t(ROLL, "5,2")
    d = t.events(ev.DamageDealt)[-1]
    assert (d.location, d.rolled, d.armour, d.final) == ("head", 8, 4, 4)


def test_slam_knockback_only():
    """Seed 002 "Slam": at DEXx3 or Grapple, weapon SR 3, STR+SIZ points of
    knockback and no damage."""
    t = Table()
    ready_for_melee(t, "intent triple", "intent double attack:gorakh:Broadsword:slam")
    step = t.state.pending[0]
    assert step.data["sr"] == 1 + 2 + 3 + 3
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "40")
    assert t.events(ev.SkillTested)[-1].base == 48  # DEX 16 x3 beats Grapple 30
    assert [n.expr for n in t.state.pending[0].dice] == ["1D20"]
    t(ROLL, "12")
    d = t.events(ev.DamageDealt)[-1]
    assert d.final == 0 and t.state.pending[0].kind == "knockback"  # 13 + 12 = 25 against SIZ 18: 1 m


def test_bash_knockback_from_weapon_and_half_str_siz():
    """Seed 002 "Bash": weapon damage + (STR+SIZ)/2 of knockback, no damage."""
    t = Table()
    ready_for_melee(t, "intent triple", "intent double attack:gorakh:Broadsword:bash")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "40")
    t(ROLL, "12,5")  # 5+1 + 25//2 = 18 against SIZ 18: 1 m (no damage modifier)
    assert t.events(ev.DamageDealt)[-1].final == 0
    assert t.state.pending[0].kind == "knockback"


@pytest.mark.parametrize("weapon, rulings, dice", [("Dagger", None, ["1D20"]), ("Spear", None, ["1D20"]),
                                                   ("Spear", {"bash_weapon": "any"}, ["1D20", "1D8+1"]),
                                                   ("Broadsword", None, ["1D20", "1D8+1"])])
def test_bash_with_thrusting_or_small_weapons(weapon, rulings, dice):
    """Seed 002 "Bash": "Thrusting weapons must be used in a crushing or
    cutting mode (staff or halberd) to effectively add to a Bash attempt,
    and smaller weapons (SR 3) are generally ineffective" (ruling
    bash_weapon = seed: neither adds its damage; any: every weapon does)."""
    v = sheet("vasana")
    v["weapons"].append(SPEAR)
    v["ready"] = [weapon]
    joins = (("vasana", v, "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t = RuledTable(rulings, *joins) if rulings else Table(*joins)
    ready_for_melee(t, "intent triple", f"intent double attack:gorakh:{weapon}:bash")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "20")
    assert [n.expr for n in t.state.pending[0].dice] == dice
    t(ROLL, ",".join(["12", "6"][:len(dice)]))
    knock = (6 if len(dice) > 1 else 0) + (13 + 12) // 2
    assert t.events(ev.DamageDealt)[-1].final == 0
    assert (t.state.pending[0].kind == "knockback") is (knock >= 18)


def test_disarm_needs_a_special_and_a_resistance_roll():
    """Seed 002 "Disarm": a special hit, then STR vs STR (x1.5 for a weapon
    in two hands); the weapon lands 1D6-1 m away."""
    t = Table()
    ready_for_melee(t, "intent triple", "intent double attack:gorakh:Broadsword:disarm")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "10")
    t(ROLL, "3,4")  # STR 13 against 18 x1.5 = 27: 5% (clamped); 03 succeeds
    drop = t.events(ev.WeaponDropped)[-1]
    assert (drop.handle, drop.weapon) == ("gorakh", "Maul") and "3 m" in drop.reason


def test_break_weapon_excess_over_ap():
    """Seed 002 "Break Weapon": not parried, all damage over the weapon's AP
    is suffered by the weapon; no default special."""
    t = Table()
    ready_for_melee(t, "intent triple", "intent double attack:gorakh:Broadsword:break")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "40")
    t(ROLL, "8,4")  # 9 + 4 = 13 against the Maul's AP 10
    g = t.state.combatants["gorakh"]
    assert core.weapon_ap(g, core.weapon_of(g, "Maul")) == 7


def test_break_weapon_parried_at_the_same_level_and_impaling_weapons():
    """Seed 002 "Break Weapon": "If the weapon being attacked is used to
    parry the attack, and achieves an equal degree of success ..., it will
    suffer 1 armor point of damage from the attack if the damage done
    exceeds the parrying weapon's armor points"; "Impaling weapons cannot
    effectively damage an opponent's weapon unless they are used in a
    cutting or crushing mode" (a Spear that only impales: refused, one line)."""
    v = sheet("vasana")
    v["weapons"].append(SPEAR)
    v["ready"] = ["Broadsword", "Spear"]
    t = Table(("vasana", v, "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t(cmd.StartRound())
    t.act("gorakh", "intent double parry:vasana:Maul")
    t.refused(cmd.TakeAction(who="vasana", action="intent double attack:gorakh:Spear:break"), "cannot break weapons")
    t.act("vasana", "intent double attack:gorakh:Broadsword:break")
    t.act("vasana", "move engage gorakh")
    t.act("gorakh", "move stay")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "40")  # a success
    t(cmd.ChooseReaction(defender="gorakh", reaction="parry"), "40")  # a success too
    t(ROLL, "8,4")  # 9 + 4 = 13 against the Maul's AP 10
    g = t.state.combatants["gorakh"]
    assert core.weapon_ap(g, core.weapon_of(g, "Maul")) == 9


def test_flurry_second_blow():
    """Seed 002 "@Flurry": a special allows a second free attack in the
    default mode, DEX SR after the first."""
    t = Table(("vasana", _trained("@flurry"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t, "intent triple", "intent double attack:gorakh:Broadsword:@flurry")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "10")
    t(ROLL, "12,2,1")
    step = t.state.pending[0]
    assert (step.kind, step.who, step.data["sr"]) == ("strike", "vasana", 8 + 1)
    assert "slash" in step.prompt


def test_riposte_after_a_special_parry():
    """Seed 002 "@Riposte": a special parry sets up a free attack on the SR
    after the parried attack."""
    t = Table(("vasana", _trained("@riposte"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent double parry:gorakh:Broadsword:@riposte")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(cmd.ChooseReaction(defender="vasana", reaction="parry"), "10")
    t(ROLL, "12,1,1,1")
    step = t.state.pending[0]
    assert (step.kind, step.who, step.data["sr"]) == ("strike", "vasana", 9)


@pytest.mark.parametrize("roll, hit", [("95", True), ("00", False)])
def test_critical_riposte_blocks_only_its_ap_and_hits_anyway(roll, hit):
    """Seed 002 "@Riposte": "A critical parry using Riposte will block only
    its armor points in damage, not all damage as does a standard parry";
    "A critical riposte allows the riposter to automatically hit ... even if
    the attack roll is a miss. A fumbled attack becomes a simple miss"."""
    t = Table(("vasana", _trained("@riposte"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent double parry:gorakh:Broadsword:@riposte")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(cmd.ChooseReaction(defender="vasana", reaction="parry"), "2")  # a critical parry
    step = t.state.pending[0]
    assert (step.data["block"], step.data["block-all"]) == (10, 0)  # the Broadsword's AP only
    t(ROLL, "12,1,1,1")
    assert t.state.pending[0].kind == "strike" and t.state.pending[0].who == "vasana"
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), roll)
    assert t.events(ev.AttackResolved)[-1].hit is hit
    assert not t.events(ev.AttackResolved)[-1].fumble
    assert t.events(rev.SpecialApplied)[-1].effect == ("sure blow" if hit else "simple miss")


def test_counter_dodge_counts_one_level_lower():
    """Seed 002 "@Counter": a special dodge is treated as a normal dodge and
    sets up a free attack."""
    t = Table(("vasana", _trained("@counter"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent double dodge:gorakh:@counter")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "10")  # special hit
    t(cmd.ChooseReaction(defender="vasana", reaction="dodge"), "5")  # special dodge -> counts as a success
    assert t.state.pending[0].data["level"] == "success"
    assert t.events(rev.SpecialApplied)[-1].effect == "counter"


def test_weave_free_dodge_and_active_parry_disarm():
    """Seed 002 "@Weave": on a special parry a free dodge evades what blows
    through; "@Active Parry": a critical disarms the attacker."""
    t = Table(("vasana", _trained("@weave", "@active"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t, "intent single attack:vasana:Maul attack:vasana:Maul",
                    "intent single parry:gorakh:Broadsword:@weave dodge:gorakh")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(cmd.ChooseReaction(defender="vasana", reaction="parry"), "10")  # special
    assert t.state.pending[0].dice[0].purpose == "@Weave: Vasana's free dodge"
    t(ROLL, "20,12,8,8,6")  # dodge 20 <= 40; 22 - 10 = 12 through, evaded
    d = t.events(ev.DamageDealt)[-1]
    assert (d.rolled, d.final) == (22, 0) and "@Weave" in d.note


def test_spell_over_10_sr_carries_over():
    """Seed 002 "3. Cast Spell": "If a spell takes more than 10 SR to cast,
    the excess SRs carry over to the next melee round. The character must
    select another Cast Spell action to complete the spell"."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent double cast:summon:6:ready")  # 3 + 6 + 3 + 3 = 15
    t.act("vasana", "intent triple")
    t.act("vasana", "move stay")
    t.act("gorakh", "move stay")
    done = t.events(rev.ActionResolved)[-1]
    assert (done.kind, done.sr) == ("cast", 10) and "5 SR carry over" in done.detail
    t(cmd.EndRound())
    t.act("gorakh", "intent double cast:summon:0")
    assert [d.sr for d in declared_of(t, "gorakh")] == [5]
    assert not t.state.combatants["gorakh"].has("spell-carried")


# --------------------------------------------------------------------------- #
# More of the seed, one claim each
# --------------------------------------------------------------------------- #


def test_two_spirit_attacks_allow_nothing_else_and_divine_spells():
    """Seed 002: "A character in spirit combat can choose to attack twice, in
    which case he or she can take no other actions"; "Divine magic never
    requires readying and goes off on DEX SR ... (add 1 SR per MP)"."""
    t = Table()
    t(cmd.StartRound())
    t.refused(cmd.TakeAction(who="gorakh", action="intent single spirit-attack:vasana spirit-attack:vasana misc:shout"),
              "attacking twice in spirit combat allows no other action")
    t.refused(cmd.TakeAction(who="gorakh", action="intent double cast:shield:2:ready+divine"), "'ready'")  # "never requires readying"
    t.act("gorakh", "intent double cast:shield:2:divine")
    assert [d.sr for d in declared_of(t, "gorakh")] == [3 + 2 + 3]


@pytest.mark.parametrize("spirit", ["spirit-attack:vasana spirit-attack:vasana", "spirit-defend spirit-defend"])
def test_two_spirit_actions_allow_no_abort(spirit):
    """Seed 002: two spirit attacks allow "no other actions, including
    defending him or herself from the attacking spirit"; two defensive
    actions "but no other actions": no Defensive or Movement Abort; a plain
    abort stays."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", f"intent single {spirit}")
    t.act("vasana", "intent double attack:gorakh:Broadsword")
    t.refused(cmd.TakeAction(who="gorakh", action="abort 1 defensive dodge:vasana"), "can take no other action")
    t.refused(cmd.TakeAction(who="gorakh", action="abort 1 movement"), "can take no other action")
    t.act("gorakh", "abort 2")
    assert [d.abort for d in declared_of(t, "gorakh")] == ["", "plain"]
    t.refused(cmd.TakeAction(who="gorakh", action="abort 1 defensive dodge:vasana"), "can take no other action")


def test_two_dodges_against_two_opponents():
    """Seed 002 "Selecting two Dodge options": -10% cumulative for each
    opponent after the first."""
    t = Table(("vasana", sheet("vasana"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"),
              ("grak", sheet("gorakh", name="Grak", INT=12, DEX=10), "trolls"))
    t(cmd.StartRound())
    t.act("gorakh", "intent double attack:vasana:Maul")
    t.act("grak", "intent double attack:vasana:Maul")
    t.act("vasana", "intent single dodge dodge")
    t.act("vasana", "move engage gorakh")
    t(ROLL, "10,30")
    t.act("gorakh", "move stay")
    t.act("grak", "move engage vasana")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(cmd.ChooseReaction(defender="vasana", reaction="dodge"), "30")
    assert t.events(ev.SkillTested)[-1].target == 40
    t(cmd.DeclareAttack(attacker="grak", target="vasana"), "40")
    t(cmd.ChooseReaction(defender="vasana", reaction="dodge"), "29")
    tested = t.events(ev.SkillTested)[-1]
    assert tested.modifiers == (ev.Modifier(-10, "dodging another opponent"),) and tested.target == 30


def test_draw_readies_the_weapon_at_its_sr():
    """Seed 002 action 6, "Draw weapon": the weapon is ready for the attack."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent double draw:Dagger attack:gorakh:Dagger:impale")
    t.act("vasana", "move engage gorakh")
    t.act("gorakh", "move stay")
    assert "Dagger" in t.state.combatants["vasana"].ready
    assert (t.state.pending[0].kind, t.state.pending[0].data["sr"]) == ("strike", 12)


def test_approach_in_the_post_melee_move():
    """Seed 002 "4) POST MELEE MOVE PHASE": move again, no engagement rules."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent triple")
    t.act("vasana", "move stay")
    t.act("gorakh", "move stay")
    t.act("gorakh", "approach vasana")
    assert core.reach(t.state.combatants["gorakh"], "vasana") == 1


def test_breakfall_negates_a_fall_in_the_move_phase_and_no_standing_on_a_useless_leg():
    """Seed 002 "FALLEN CHARACTERS": "A successful Acrobatics or Breakfall
    skill roll will negate the effects of the fall"; ruling 'wounds': a
    useless leg cannot stand."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent double attack:gorakh:Broadsword")
    t.act("vasana", "move stay terrain=difficult moves=1")
    t(ROLL, "90")  # DEX x5 80: fails, she falls
    t(ROLL, "20")  # Acrobatics 35: negated
    assert t.state.combatants["vasana"].stance == "standing"
    t.act("gorakh", "move stay")
    t2 = Table()
    ready_for_melee(t2, "intent double attack:vasana:Maul", "intent triple")
    t2(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t2(ROLL, "1,4,3,1")  # right leg useless, she falls
    t2(cmd.EndRound())
    t2.act("gorakh", "intent triple")
    t2.act("vasana", "intent triple")
    t2.refused(cmd.TakeAction(who="vasana", action="move stand"), "cannot stand on a useless leg")


def test_a_fall_in_the_move_phase_stands_in_the_post_melee_move():
    """Seed 002 "FALLEN CHARACTERS": "A character that fell in the course of
    a Move or Post Melee Move will normally be unable to stand until the
    next movement phase, either Move or Post Melee Move": fallen in
    difficult terrain in the Move Phase, she stands in the Post Melee Move;
    one felled in the Melee Phase may not without Acrobatics or Breakfall
    (test_breakfall_lets_her_stand_in_the_post_melee_move)."""
    t = Table(("vasana", sheet("vasana", skills={"Dodge": 40, "Maneuver": 55}), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent double misc:look")
    t.refused(cmd.TakeAction(who="vasana", action="stand"), "belongs to the Post Melee Move")
    t.act("vasana", "move stay terrain=difficult moves=1")
    t(ROLL, "90")  # DEX x5 80 (Maneuver 55 lower): she falls; no Acrobatics or Breakfall
    assert t.state.combatants["vasana"].stance == "prone"
    t.act("gorakh", "move stay")
    assert t.state.pending[0].kind == "end-round"
    t.act("vasana", "stand")
    assert t.state.combatants["vasana"].stance == "standing"
    t2 = Table(("vasana", sheet("vasana", skills={"Dodge": 40, "Maneuver": 55}), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t2, "intent double attack:vasana:Maul", "intent triple")
    t2(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t2(ROLL, "12,3,3,1")
    t2(ROLL, "90")  # knocked down in the Melee Phase
    assert t2.state.pending[0].kind == "end-round"
    t2.refused(cmd.TakeAction(who="vasana", action="stand"), "cannot stand before the next Move Phase")


def test_glancing_parry_critical_and_shield_special():
    """Seed 002 "@Glancing Parry": on a critical no damage is done to the
    defender or the parrying weapon; with a shield a special adds only half
    again the shield's AP."""
    g = sheet("gorakh")
    g["weapons"].append({"name": "Shield", "damage": "1D6", "kind": "shield", "shield_size": "hoplite", "sr": 3, "ap": 12,
                         "parry": 50, "tactics": ["@glancing"]})
    g["ready"] = ["Shield"]
    t = Table(("vasana", sheet("vasana"), "heroes"), ("gorakh", g, "trolls"))
    ready_for_melee(t, "intent double parry:vasana:Shield:@glancing", "intent single attack:gorakh:Broadsword attack:gorakh:Broadsword")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "40")
    t(cmd.ChooseReaction(defender="gorakh", reaction="parry"), "8")  # special (<= 10)
    assert t.events(ev.ReactionResolved)[-1].effects["block"] == 18
    t(ROLL, "12,8,4")  # 13 stopped; not penetrating: 26 points of knockback against SIZ 18
    t(ROLL, "10")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "40")
    t(cmd.ChooseReaction(defender="gorakh", reaction="parry"), "2")  # critical
    t(ROLL, "12,8,4")
    assert t.events(ev.DamageDealt)[-1].final == 0 and t.events(ev.ReactionResolved)[-1].effects["block-all"] == 1


def test_active_parry_critical_disarms_and_aimed_blow_location():
    """Seed 002 "@Active Parry": "A critical Active Parry automatically
    disarms the opponent"; "@Aimed Blow": a special strikes the chosen
    location."""
    t = Table(("vasana", _trained("@active", "@aimed-blow"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t, "intent single attack:vasana:Maul attack:vasana:Maul",
                    "intent single attack:gorakh:Broadsword:@aimed-blow:head parry:gorakh:Broadsword:@active")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "10")  # special
    assert [n.expr for n in t.state.pending[0].dice][0] != "1D20"
    t(cmd.ChooseReaction(defender="gorakh", reaction="none"))
    t(ROLL, "5,2")
    assert t.events(ev.DamageDealt)[-1].location == "head"
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(cmd.ChooseReaction(defender="vasana", reaction="parry"), "2")  # critical @Active Parry
    drop = t.events(ev.WeaponDropped)[-1]
    assert (drop.handle, drop.weapon) == ("gorakh", "Maul")


def test_entangle_half_damage():
    """Seed 002 "@Entangle": a special entangles the location struck, doing
    only half the normal weapon damage."""
    v = sheet("vasana")
    v["weapons"].append({"name": "Whip", "damage": "1D3", "sr": 2, "length": 2.0, "flexible": True, "modes": ["slash"],
                         "attack": 60, "tactics": ["@entangle"]})
    v["ready"] = ["Whip"]
    t = Table(("vasana", v, "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t, "intent triple", "intent double attack:gorakh:Whip:@entangle")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "10")
    t(ROLL, "14,3,4,90")  # right arm: 3 // 2 + 4 = 5 - 1 AP = 4; STR vs STR 90 fails
    d = t.events(ev.DamageDealt)[-1]
    assert (d.rolled, d.final) == (5, 4)
    assert t.state.combatants["gorakh"].has("entangled")


def test_high_ground_parry_and_large_creature_missiles():
    """Seed 002 "HIGH GROUND": +10% to parries against a lower character;
    "DODGING BY LARGE CREATURES": missiles at a creature three times the
    shooter's SIZ count as point blank for its dodge."""
    giant = sheet("gorakh", name="Giant", SIZ=40)
    t = Table(("vasana", _archer(), "heroes"), ("giant", giant, "trolls"))
    t(cmd.StartRound())
    t.act("giant", "intent double dodge:vasana")
    t.act("vasana", "intent double missile:giant:Bow")
    t.act("vasana", "move stay")
    t.act("giant", "move stay")
    t(cmd.DeclareAttack(attacker="vasana", target="giant"), "30")
    t(cmd.ChooseReaction(defender="giant", reaction="dodge"), "6")
    assert t.events(ev.SkillTested)[-1].base == 5  # Dodge 25 / 5
    t2 = Table()
    ready_for_melee(t2, "intent double parry:vasana:Maul", "intent double attack:gorakh:Broadsword")
    t2(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "40")
    t2(cmd.ChooseReaction(defender="gorakh", reaction="parry", situations=("high-ground",)), "50")
    assert t2.events(ev.SkillTested)[-1].target == 55


def test_grapple_parry_blocks_immobilise_throw_and_break_free():
    """Seed 002 "GRAPPLING": a Grapple parry blocks the attack; immobilise
    (STR vs STR/2); throw (+10%, STR+DEX vs SIZ/2+DEX, 1D6 + damage
    modifier, armour at half, the foe falls); an immobilised character
    breaks free on STR/2 vs STR."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Grapple", "intent double parry:gorakh:Grapple")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "20")
    t(cmd.ChooseReaction(defender="vasana", reaction="parry"), "10")  # Grapple 30: success
    t(ROLL, "5")
    assert not t.state.combatants["gorakh"].has("grappling")
    t(cmd.EndRound())
    t.act("gorakh", "intent double attack:vasana:Grapple")
    t.act("vasana", "intent triple")
    t.act("vasana", "move stay")
    t.act("gorakh", "move stay")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "20")
    t(ROLL, "12")
    t(cmd.EndRound())
    t.act("gorakh", "intent double attack:vasana:Grapple:immobilise")
    t.act("vasana", "intent triple")
    t.act("vasana", "move stay")
    t.act("gorakh", "move stay")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "20")
    t(ROLL, "50")  # STR 18 against 13 // 2 = 6: 95%
    assert t.state.combatants["vasana"].has("immobilised")
    t(cmd.EndRound())
    t.act("gorakh", "intent double attack:vasana:Grapple:throw")
    t.act("vasana", "intent double attack:gorakh:Grapple:break-free")
    t.act("vasana", "move stay")
    t.act("gorakh", "move stay")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "96")  # SR 1 + 3: STR 6 against 18: 5%, fails
    assert t.state.combatants["vasana"].has("immobilised")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "45")  # 40 + 10 = 50
    t(ROLL, "10")  # STR+DEX 29 against 6 + 16 = 22: 85%
    t(ROLL, "12,4,3,90")  # chest: 4 + 3 = 7, armour 6 // 2 = 3 -> 4; Acrobatics/2 = 17 (DEX x1 16): 90 fails
    d = t.events(ev.DamageDealt)[-1]
    assert (d.location, d.rolled, d.armour, d.final) == ("chest", 7, 3, 4)
    assert t.events(ev.SkillTested)[-1].skill == "Acrobatics/2"
    v = t.state.combatants["vasana"]
    assert v.stance == "prone" and not v.has("grappled") and not v.has("immobilised")


def test_swordbreaking_special_parry_disarms():
    """Seed 002 "@Swordbreaking": a special parry catches the attacking
    weapon; STR vs STR (x1.5 for a two-handed weapon) disarms it."""
    t = Table(("vasana", _trained("@swordbreaking"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent double parry:gorakh:Broadsword:@swordbreaking")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(cmd.ChooseReaction(defender="vasana", reaction="parry"), "10")  # special
    assert [n.expr for n in t.state.pending[0].dice][-2:] == ["1D100", "1D3"]
    t(ROLL, "12,1,1,1,5,3")  # STR 13 against 18 x1.5 = 27: 5%; 05 succeeds; lands 2 m away
    drop = t.events(ev.WeaponDropped)[-1]
    assert (drop.handle, drop.weapon) == ("gorakh", "Maul") and "2 m" in drop.reason


def test_entangle_strength_immobilises_the_location():
    """Seed 002 "@Entangle": "An entangled hit location is immobilized on a
    successful STR vs. STR roll"."""
    v = sheet("vasana")
    v["weapons"].append({"name": "Whip", "damage": "1D3", "sr": 2, "length": 2.0, "flexible": True, "modes": ["slash"],
                         "attack": 60, "tactics": ["@entangle"]})
    v["ready"] = ["Whip"]
    t = Table(("vasana", v, "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t, "intent triple", "intent double attack:gorakh:Whip:@entangle")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "10")
    t(ROLL, "14,3,4,20")  # STR 13 against 18: 25%; 20 succeeds
    cond = next(x for x in t.state.combatants["gorakh"].conditions if x.name == "entangled")
    assert cond.effects == {"useless": 1} and cond.location == "right arm"


def test_critical_slam_dex_x1_rolls():
    """Seed 002 "Slam": "A critical success on a Slam attempt additionally
    forces the defender to make a DEXx1 roll to remain standing, and another
    DEXx1 roll to retain a grip on any held ... items"."""
    t = Table()
    ready_for_melee(t, "intent triple", "intent double attack:gorakh:Broadsword:slam")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "2")  # critical (<= rhu(48/20) = 2)
    t(ROLL, "12,50,50")  # both DEX x1 (11) fail
    g = t.state.combatants["gorakh"]
    assert g.stance == "prone" and "Maul" not in g.ready


def test_higher_dex_may_wait_to_move():
    """Seed 002 "MOVEMENT INITIATIVE": "Higher DEX characters can decide to
    move first, or delay their movement up to and until all characters with
    a lower DEX have moved"."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent triple")
    t.act("vasana", "move wait")
    assert t.state.pending[0].who == "gorakh"
    t.act("gorakh", "move stay")
    assert t.state.pending[0].who == "vasana"
    t.refused(cmd.TakeAction(who="vasana", action="move wait"), "no one left to wait for")


def test_lance_charge():
    """Seed 002 "Lance charge": the charger moves adjacent whatever the
    foe's weapon, its lance strikes before shorter weapons, with the riding
    animal's damage bonus."""
    v = sheet("vasana")
    v["weapons"].append({"name": "Lance", "damage": "1D10+1", "sr": 1, "length": 3.0, "modes": ["impale"], "attack": 50,
                         "hands": 1, "type": "lance"})
    v["ready"] = ["Lance"]
    horse = sheet("gorakh", name="Horse", STR=30, SIZ=30, INT=3, DEX=10)  # STR+SIZ 60: +3D6
    t = Table(("vasana", v, "heroes"), ("horse", horse, "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t(cmd.Mount(rider="vasana", mount="horse"))
    t(cmd.StartRound())
    t.act("horse", "intent triple")
    t.act("gorakh", "intent single attack:vasana:Maul parry:vasana:Maul")
    t.act("vasana", "intent double attack:gorakh:Lance")  # SR 1 + 2 + 1 + 3 = 7, after the maul's 5
    t.act("vasana", "move charge gorakh")
    assert core.reach(t.state.combatants["vasana"], "gorakh") == 1
    t.act("gorakh", "move stay")
    t.act("horse", "move stay")
    step = t.state.pending[0]
    assert (step.who, step.data["sr"]) == ("vasana", 7)  # the lance first, though the maul is on SR 5
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "40")
    t(cmd.ChooseReaction(defender="gorakh", reaction="parry"), "90")
    assert [n.expr for n in t.state.pending[0].dice] == ["1D10", "1D10+1", "3D6"]  # high ground; the horse's +3D6


def test_spell_enhanced_attack_waits_for_the_spell():
    """Seed 002: "If the character wants to take advantage of the spell
    enhancement (for example, a Speedart), the attack must take place at its
    normal SR or the SR the spell went off on, whichever occurs later"."""
    t = Table(("vasana", _archer(), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t(cmd.StartRound())
    t.act("gorakh", "intent triple")
    t.act("vasana", "intent single cast:speedart:1:ready+enhance missile:gorakh:Bow")
    assert [(d.kind, d.sr) for d in declared_of(t, "vasana")] == [("cast", 1 + 1 + 3), ("missile", 5)]
    t.refused(cmd.TakeAction(who="vasana", action="abort 9"), "no unused declared action 9")


def test_bladed_parry_damages_the_weapon_of_a_failed_attack():
    """Seed 002 "Standard Parry": "If used with a bladed weapon, it will
    damage an attacking weapon if the attackers attack roll was a failure"
    (ruling parry_damages_weapon: the damage over the weapon's AP)."""
    t = Table()
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent double parry:gorakh:Broadsword")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "80")  # a failure
    step = t.state.pending[0]
    assert (step.kind, step.options) == ("parry-miss", ("parry", "none"))
    t(cmd.ChooseReaction(defender="vasana", reaction="parry"), "30")
    t(ROLL, "8")  # 1D8+1 = 9 against the Maul's AP 10: no loss
    g = t.state.combatants["gorakh"]
    assert core.weapon_ap(g, core.weapon_of(g, "Maul")) == 10 and t.state.exchange is None
    assert t.events(rev.SpecialApplied)[-1].detail.endswith("it loses 0 AP")


def test_hafted_blade_needs_a_special_against_a_miss():
    """Seed 002 "Standard Parry": hafted bladed weapons (axes) damage
    attacking weapons only on a special parry."""
    v = sheet("vasana")
    v["weapons"][0]["blade"] = "hafted"
    t = Table(("vasana", v, "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent double parry:gorakh:Broadsword")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "80")
    t(cmd.ChooseReaction(defender="vasana", reaction="parry"), "30")  # a success, not a special
    assert t.events(ev.ReactionResolved)[-1].outcome == "the parry does not harm the weapon"
    assert t.state.pending[0].kind == "end-round"


def test_active_parry_special_damages_the_attacking_weapon():
    """Seed 002 "@Active Parry": "special parries with a bladed weapon do
    their normal damage against the parried weapon, even on a successful
    attack. However, the parrying weapon will take damage from normal and
    special attacks"."""
    t = Table(("vasana", _trained("@active"), "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    ready_for_melee(t, "intent double attack:vasana:Maul", "intent double parry:gorakh:Broadsword:@active")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "40")
    t(cmd.ChooseReaction(defender="vasana", reaction="parry"), "10")  # special
    assert t.state.pending[0].dice[-1].purpose == "@Active Parry: Broadsword strikes the Maul"
    t(ROLL, "12,8,8,6,8")  # 22 against AP 10: 12 through; the Broadsword's 8+1 = 9 against the Maul's AP 10
    g, v = t.state.combatants["gorakh"], t.state.combatants["vasana"]
    assert core.weapon_ap(g, core.weapon_of(g, "Maul")) == 10
    assert core.weapon_ap(v, core.weapon_of(v, "Broadsword")) == 9  # exposed: it loses 1 AP


def test_creatures_with_more_than_two_sources():
    """Seed 002 "1. Melee Attack": "Creatures with more than two possible
    sources of attacks ... can attack with up to half of them if they select a
    single attack option", all of them with two (ruling multi_arm: three or
    more)."""
    beast = sheet("gorakh", name="Beast")
    beast["weapons"] = [
        {"name": "Claw", "damage": "1D6", "sr": 2, "kind": "unarmed", "attack": 50, "modes": ["slash"]},
        {"name": "Talon", "damage": "1D6", "sr": 2, "kind": "unarmed", "attack": 50, "modes": ["slash"]},
        {"name": "Bite", "damage": "1D8", "sr": 3, "kind": "unarmed", "attack": 40, "modes": ["impale"]},
        {"name": "Tail", "damage": "1D6", "sr": 1, "kind": "unarmed", "attack": 40, "modes": ["crush"]},
    ]
    beast["ready"] = []
    t = Table(("vasana", sheet("vasana"), "heroes"), ("beast", beast, "monsters"))
    t(cmd.StartRound())
    t.refused(cmd.TakeAction(who="beast", action="intent double attack:vasana:Claw+Talon+Bite"), "up to 2 of its 4 sources")
    t.act("beast", "intent double attack:vasana:Claw+Bite")
    assert [(d.slot, d.weapon, d.sr) for d in declared_of(t, "beast")] == [(1, "Claw", 3 + 1 + 2 + 3), (41, "Bite", 3 + 1 + 3 + 3)]
    t.refused(cmd.TakeAction(who="vasana", action="intent double attack:beast:Broadsword+Broadsword"), "more than two sources")


def test_four_sources_all_with_two_options():
    """Seed 002: "... can attack with all of them if they select two attack options"."""
    beast = sheet("gorakh", name="Beast")
    beast["weapons"] = [
        {"name": n, "damage": "1D6", "sr": 2, "kind": "unarmed", "attack": 50, "modes": ["slash"]}
        for n in ("Claw", "Talon", "Bite", "Tail")]
    beast["ready"] = []
    t = Table(("vasana", sheet("vasana"), "heroes"), ("beast", beast, "monsters"))
    t(cmd.StartRound())
    t.act("beast", "intent single attack:vasana:Claw+Talon attack:vasana:Bite+Tail")
    assert len(declared_of(t, "beast")) == 4


def test_creatures_with_more_than_two_means_of_parrying():
    """Seed 002 "4. Parry": "Creatures with more than two possible means of
    parrying (i.e., more than two arms) can parry with up to half of them if
    they select a single parry option"; "Selecting two Parry options": "can
    choose to parry with all of them" (ruling multi_arm: three or more)."""
    beast = sheet("gorakh", name="Beast")
    arms = ("Scimitar", "Axe", "Mace", "Buckler")  # a four-armed creature, a weapon in each hand
    beast["weapons"] = [{"name": n, "damage": "1D6", "sr": 2, "attack": 50, "parry": 40, "modes": ["slash"]} for n in arms]
    beast["ready"] = list(arms)
    t = Table(("vasana", sheet("vasana"), "heroes"), ("beast", beast, "monsters"))
    t(cmd.StartRound())
    t.refused(cmd.TakeAction(who="beast", action="intent double parry:vasana:Scimitar+Axe+Mace"),
              "may parry with up to 2 of its 4 sources (half with one option), not 3")
    t.act("beast", "intent single parry:vasana:Scimitar+Axe parry:vasana:Mace+Buckler")
    assert sorted(d.weapon for d in declared_of(t, "beast")) == sorted(arms)


def test_shield_covers_locations_against_missiles():
    """Seed 002 "PARRYING AND DODGING MISSILE WEAPONS": "Instead of parrying,
    shields can be used to cover locations": a missile hit there meets the
    shield's AP too."""
    g = sheet("gorakh")
    g["weapons"].append({"name": "Shield", "damage": "1D6", "kind": "shield", "shield_size": "large", "sr": 3, "ap": 16,
                         "parry": 40})
    g["ready"] = ["Shield", "Maul"]
    t = Table(("vasana", _archer(), "heroes"), ("gorakh", g, "trolls"))
    t(cmd.StartRound())
    t.refused(cmd.TakeAction(who="gorakh", action="intent double parry:vasana:Maul:cover:chest"), "only a shield covers")
    t.act("gorakh", "intent double parry:vasana:Shield:cover:chest+head")
    t.act("vasana", "intent double missile:gorakh:Bow")
    t.act("vasana", "move stay")
    t.act("gorakh", "move stay")
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "30")
    assert t.state.pending[0].kind == "damage"  # covering is not parrying: no reaction
    t(ROLL, "12,6")  # chest: 6+1 = 7 against 5 AP + the shield's 16
    d = t.events(ev.DamageDealt)[-1]
    assert (d.rolled, d.armour, d.final) == (7, 7, 0) and "Shield covers the chest" in d.note


def test_special_parry_spares_the_weapon_except_from_a_critical():
    """Seed 002 "Standard Parry": "A special parry will cause the parrying
    weapon to take no damage from normal or special attacks that exceed its
    armor points" (a critical attack still costs it 1 AP)."""
    t = Table()
    ready_for_melee(t, "intent single attack:vasana:Maul attack:vasana:Maul", "intent double parry:gorakh:Broadsword")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "10")  # 60 - 10 = 50: special (<= 10)
    t(cmd.ChooseReaction(defender="vasana", reaction="parry"), "12")  # special; the next parry is at -10
    t(ROLL, "12,5,5,2")  # 12 against AP 10; crush x2 = 24: knocked back
    t(ROLL, "10")  # DEX x4: she stays up
    v = t.state.combatants["vasana"]
    assert core.weapon_ap(v, core.weapon_of(v, "Broadsword")) == 10
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "2")  # critical
    t(cmd.ChooseReaction(defender="vasana", reaction="parry"), "10")  # 60 - 10 = 50: special
    t(ROLL, "12,5,5,2")
    v = t.state.combatants["vasana"]
    assert core.weapon_ap(v, core.weapon_of(v, "Broadsword")) == 9


def test_shorter_weapon_may_attack_the_longer_weapon():
    """Seed 002 "RULES OF ENGAGEMENT": "Characters with shorter weapons can
    still parry and dodge, but could only attack the longer weapon, not its
    wielder" (Break Weapon or Disarm)."""
    t = Table()
    t(cmd.StartRound())
    t.act("gorakh", "intent single attack:vasana:Maul parry:vasana:Maul")
    t.act("vasana", "intent double attack:gorakh:Broadsword:break")
    t.act("vasana", "move engage gorakh")
    t(ROLL, "50,30")  # the same level: she stays at 2 m
    t.act("gorakh", "move stay")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "99")  # SR 5: a miss
    t(cmd.DeclareAttack(attacker="vasana", target="gorakh"), "40")  # SR 8: at the Maul
    assert t.state.pending[0].kind in ("react", "damage")


def test_wounds_vital_location_knocks_out_and_total_hp_kills():
    """RQ3 wounds (ruling 'wounds'; rules-reference.md C7-C8): the abdomen at
    0 HP knocks out and fells; total HP at 0 or below is death."""
    t = Table()
    ready_for_melee(t, "intent single attack:vasana:Maul attack:vasana:Maul", "intent triple")
    t(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "30")  # 60 - 10 = 50
    t(ROLL, "10,4,4,3")  # abdomen: 11 - 6 AP = 5: abdomen 5 -> 0
    v = t.state.combatants["vasana"]
    assert v.status == "unconscious" and v.stance == "prone" and v.has("unconscious")
    assert t.state.phase == "over" and t.state.winner == "trolls"
    t2 = Table()
    ready_for_melee(t2, "intent double attack:vasana:Maul", "intent triple")
    t2(cmd.DeclareAttack(attacker="gorakh", target="vasana"), "2")  # critical: armour ignored
    t2(ROLL, "12,8,8,6")  # chest: 22 -> total HP 13 - 22 < 0
    assert t2.state.combatants["vasana"].status == "dead"
