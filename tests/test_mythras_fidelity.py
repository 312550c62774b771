"""Issue 15, Mythras: what an independent rules audit found wrong, each
test naming the section of seed 001 (``001_0613c1b7f6517492.txt``, CFI
Chapter 8: Combat) and quoting its words.

Figures as in test_mythras_flow.py: Kaelin 65% (critical <= 7), Longsword
1D8 Medium (AP 6, HP 12), Heater Shield 1D4 Large (AP 6, HP 12), DM +1D2,
chest 3 AP. Grusk 60% (critical <= 6), Maul 2D6 Huge (AP 4, HP 10), DM
+1D4, chest 2 worn + 1 natural AP.
"""

from __future__ import annotations

import pytest

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.base import RuleError

from test_mythras_effects import WHIP, act, grusk_first, kaelin_with
from test_mythras_flow import attack, choose, kaelin_first, react


def weapon_damaged(t, who):
    return {c.id: c.effects["hp-lost"] for c in t.c(who).conditions if c.name == "weapon-damaged"}


# --------------------------------------------------------------------------- #
# 1, 2: Damage Weapon
# --------------------------------------------------------------------------- #


def test_damage_weapon_by_the_defender_strikes_the_attackers_weapon_and_the_blow_still_lands():
    """Seed 001 "Damage Weapon": "Permits the character to damage his
    opponent's weapon as part of an attack or Parry." The defender's parry
    damages the *attacker's* weapon; the attacker's blow still resolves as
    the parry allows ("Attacks and Parries" steps 5-7: "If the defender
    achieved a Success or Critical, reduce any damage inflicted according
    to the comparative sizes of the weapons involved")."""
    t = grusk_first()
    attack(t, "grusk", "kaelin", "30")  # success
    react(t, "kaelin", "parry", "03")  # critical with the Heater Shield (Large against the Huge Maul: half)
    choose(t, "kaelin", "damage-weapon")
    step = t.step()
    assert step.kind == "weapon-damage" and step.who == "kaelin"
    assert "Grusk's Maul" in step.prompt
    t(cmd.RollPending(), "4,2")  # shield 4 + DM 2 = 6 against the Maul's AP 4: 2 HP lost
    assert weapon_damaged(t, "grusk") == {"weapon-damaged:maul": 2}
    assert weapon_damaged(t, "kaelin") == {}
    notes = [e.text for e in t.new(ev.NoteAdded)]
    assert any(n.startswith("Damage Weapon by Kaelin") for n in notes)
    step = t.step()
    assert step.kind == "damage" and step.who == "grusk" and "Heater Shield" not in step.prompt
    t(cmd.RollPending(), "6,6,4,11")  # 16, halved by the parry to 8, chest 3 AP -> 5
    dd = t.new(ev.DamageDealt)[0]
    assert (dd.target, dd.location, dd.rolled, dd.reduced, dd.armour, dd.final) == ("kaelin", "chest", 16, 8, 3, 5)
    assert weapon_damaged(t, "kaelin") == {}
    assert not any("Damage Weapon by Grusk" in e.text for e in t.log(ev.NoteAdded))


def test_damage_weapon_by_the_attacker_takes_the_whole_roll_before_the_parry():
    """Seed 001 "Damage Weapon": "If attacking, the character aims
    specifically at the defender's Parrying weapon and applies his damage
    roll to it, rather than the wielder. The targeted weapon uses its own
    Armor Points for resisting the damage." A parry that would deflect all
    of a blow at the wielder does not shield the parrying weapon itself."""
    t = kaelin_first()
    attack(t, "kaelin", "grusk", "05")  # critical
    react(t, "grusk", "parry", "40")  # success with the Maul: Huge against Medium deflects all
    assert t.log(ev.ReactionResolved)[-1].effects["block"] == 2
    choose(t, "kaelin", "damage-weapon")
    t(cmd.RollPending(), "8,2,11")  # 8 + 2 = 10 against the Maul's AP 4: 6 HP lost
    assert weapon_damaged(t, "grusk") == {"weapon-damaged:maul": 6}
    assert not t.new(ev.DamageDealt)
