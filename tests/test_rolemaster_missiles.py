"""rolemaster: missile attacks: range bands, cover and reloading. Seed 000
(000_0c5afa08bd3fc886.txt) "Attack Procedure" covers every attack but
gives no missile figures; these follow RMH (``combat-rules.md``: OB
"modified for range if applicable"; ``ob-db-modifiers.md`` "COVER";
``tactical-activity-tracking_.md``: Ranged Attack 1-3 AP, "Ammo reload",
"Round to Round Actions"), with the weapon's own range bands on the sheet
(RMSS range modifiers are per weapon, from the book you own).

Gruk's Short Bow here (test figures): OB 50, sample-club, bands up to
10 m +0, 30 m -20, 60 m -40; reload 2 AP.
"""

from __future__ import annotations

import pytest

from affray.events import commands as cmd
from affray.events import rolemaster as rev
from affray.rules.base import RuleError
from affray.rules.rolemaster.sheet import SheetError, parse_sheet

from rolemaster_fight import Fight, sheet

A, R = cmd.DeclareAttack, cmd.ChooseReaction
START = "10,5,3,4"
BOW = {"name": "Short Bow", "kind": "missile", "ob": 50, "table": "sample-club",
       "ranges": [[10, 0], [30, -20], [60, -40]], "reload": 2}


def _fight(tmp_path, **rulings):
    f = Fight(tmp_path, rulings=rulings, sheets=((sheet("kestrel"), "heroes"), (sheet("gruk", weapons=[BOW]), "orcs")))
    f.run(cmd.StartRound(), START)
    f.run(cmd.TakeAction(who="kestrel", action="pass"))
    return f


def _shoot(f, *situations, dice="50"):
    f.run(A(attacker="gruk", target="kestrel", situations=tuple(situations)))
    f.run(R(defender="kestrel", reaction="none"), dice)
    return f.events(rev.AttackLookedUp)[-1]


@pytest.mark.parametrize("metres,mod,band", [(0, 0, 10), (10, 0, 10), (10.5, -20, 30), (30, -20, 30), (31, -40, 60), (60, -40, 60)])
def test_range_band_modifies_ob(tmp_path, metres, mod, band):
    """RMH: the OB is 'modified for range': the nearest band that reaches."""
    f = _fight(tmp_path)
    x = _shoot(f, f"range={metres}")
    assert (mod, f"range {metres:g} m (band up to {band} m)") in [(m.value, m.reason) for m in x.ob_parts]
    assert x.ob == 50 + mod


@pytest.mark.parametrize("situation,message", [
    ("range=61", "beyond Short Bow's longest range .60 m."),
    ("range=far", "takes a number"),
    ("range=-3", "0 metres or more"),
    ("", "say how far Kestrel is: --situation range=METRES"),
])
def test_a_bad_range_is_one_line_and_appends_nothing(tmp_path, situation, message):
    f = _fight(tmp_path)
    before = f.version
    with pytest.raises(RuleError, match=message):
        f.run(A(attacker="gruk", target="kestrel", situations=(situation,) if situation else ()))
    assert f.version == before


def test_range_is_for_missiles(tmp_path):
    f = Fight(tmp_path)
    f.run(cmd.StartRound(), START)
    with pytest.raises(RuleError, match="not a missile weapon"):
        f.run(A(attacker="kestrel", target="gruk", situations=("range=5",)))


@pytest.mark.parametrize("cover,db,ruling", [
    ("half-soft", 20, "times-ten"), ("half-hard", 50, "times-ten"), ("half-reinforced", 50, "times-ten"),
    ("full-soft", 40, "times-ten"), ("full-hard", 100, "times-ten"), ("full-soft", 4, "as-printed"), ("full-hard", 10, "as-printed"),
])
def test_cover_adds_to_db(tmp_path, cover, db, ruling):
    """RMH ob-db-modifiers 'COVER': the DB bonus of each cover; the full
    covers printed +4 and +10 are read by ruling full_cover. The cover
    holds for the attack it was declared with."""
    f = _fight(tmp_path, full_cover=ruling)
    x = _shoot(f, "range=5", f"cover={cover}")
    assert (db, f"cover {cover} (+{db} DB)") in [(m.value, m.reason) for m in x.db_parts]
    assert not f.who("kestrel").has("covered")


def test_unknown_cover_is_refused(tmp_path):
    f = _fight(tmp_path)
    with pytest.raises(RuleError, match="unknown cover 'wall'"):
        f.run(A(attacker="gruk", target="kestrel", situations=("range=5", "cover=wall")))


def test_a_shot_unloads_and_reloading_carries_over_rounds(tmp_path):
    """RMH: a ranged attack takes 3 AP; the bow then needs 2 AP of
    reloading; with 1 AP left this round 1 carries over ('Round to Round
    Actions'); shooting unloaded is refused."""
    f = _fight(tmp_path)
    _shoot(f, "range=5")
    g = f.who("gruk")
    assert g.combat_actions == 1 and next(k for k in g.conditions if k.name == "unloaded").effects == {"reload-left": 2}
    assert "reload" in f.state.pending[0].options
    with pytest.raises(RuleError, match="not loaded .2 AP of reloading left.; 'affray act gruk reload Short Bow'"):
        f.run(A(attacker="gruk", target="kestrel", situations=("range=5",)))
    f.run(cmd.TakeAction(who="gruk", action="reload"))
    assert next(k for k in f.who("gruk").conditions if k.name == "unloaded").effects == {"reload-left": 1}
    f.run(cmd.EndRound(), START)
    f.run(cmd.TakeAction(who="kestrel", action="pass"))
    f.run(cmd.TakeAction(who="gruk", action="reload Short"))
    assert not f.who("gruk").has("unloaded") and f.who("gruk").combat_actions == 3
    with pytest.raises(RuleError, match="is loaded"):
        f.run(cmd.TakeAction(who="gruk", action="reload Short Bow"))
    _shoot(f, "range=5")
    assert f.who("gruk").has("unloaded")


@pytest.mark.parametrize("weapon,error", [
    ({"name": "Axe", "ob": 10, "table": "t", "ranges": [[10, 0]]}, "range bands are for missile weapons"),
    ({"name": "Bow", "kind": "missile", "ob": 10, "table": "t", "ranges": [[30, 0], [10, -10]]}, "nearest first"),
    ({"name": "Bow", "kind": "missile", "ob": 10, "table": "t", "reload": -1}, "reload is a number of Action Points"),
])
def test_sheet_ranges_and_reload_are_checked(weapon, error):
    with pytest.raises(SheetError, match=error):
        parse_sheet({"name": "X", "hits": 10, "armour": "none", "weapons": [weapon]})
