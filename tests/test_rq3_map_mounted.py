"""rq3 mounted figures and the lance charge on the hex map (seed 002 "Lance
charge": "moving adjacent to the figure it is attacking, regardless of
whether the figure is using a pike, long spear, or shorter weapon"; ruling
``mounted_map``). Vasana rides a horse (move 8): a double move is 16 m."""

from __future__ import annotations

from affray.events import commands as cmd
from affray.rules.rq3 import core

from test_rq3_rules import Table, sheet


def _riding() -> Table:
    v = sheet("vasana")
    v["weapons"].append({"name": "Lance", "damage": "1D10+1", "sr": 1, "length": 3.0, "modes": ["impale"], "attack": 50,
                         "hands": 1, "type": "lance"})
    v["ready"] = ["Lance"]
    horse = sheet("gorakh", name="Horse", STR=30, SIZ=30, INT=3, DEX=10, move=8)
    t = Table(("vasana", v, "heroes"), ("horse", horse, "heroes"), ("gorakh", sheet("gorakh"), "trolls"))
    t(cmd.Mount(rider="vasana", mount="horse"))
    t.act("horse", "place 0,0 facing=e")
    t.act("vasana", "place 0,0 facing=e")  # the rider shares its mount's hex
    t.act("gorakh", "place 9,0 facing=w")
    t(cmd.StartRound())
    t.act("horse", "intent triple")
    t.act("gorakh", "intent single attack:vasana:Maul parry:vasana:Maul")
    t.act("vasana", "intent double attack:gorakh:Lance")
    return t


def test_the_rider_moves_the_pair_at_the_mounts_rate():
    """Ruling mounted_map: the rider moves at the mount's rate times its own
    declared moves, the mount going along; the mount does not walk alone."""
    t = _riding()
    assert core.map_move(t.state.combatants["vasana"]).effects["allow"] == 16
    t.act("vasana", "move e e")
    assert core.position(t.state.combatants["horse"]) == (2, 0, 0)
    t.act("gorakh", "move done")
    t.refused(cmd.TakeAction(who="horse", action="move e"), "the rider moves the pair")


def test_lance_charge_rides_next_to_the_foe():
    """Seed 002 "Lance charge": the charger moves adjacent to its target, on
    the map to the nearest free hex beside it (8 m of the 16), facing it."""
    t = _riding()
    t.act("vasana", "move charge gorakh")
    v = t.state.combatants["vasana"]
    assert core.position(v) == (8, 0, 0) and core.position(t.state.combatants["horse"]) == (8, 0, 0)
    assert core.reach(v, "gorakh") == 1 and v.has("lance-charge")
    assert core.map_move(v).effects["used"] == 8
