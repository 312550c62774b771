"""rolemaster: terrain, and knock-back into it. Seed 000
(000_0c5afa08bd3fc886.txt) "Knocked Back": "The character will arrive at
that point staggered per above and, depending on terrain, may suffer
additional effects." The ground itself follows RMH ``ob-db-modifiers.md``
"Terrain Condition" (an OB modifier; the Quickness part of DB halved or
negated); what a knock-back into a terrain adds has no figures anywhere,
so it is a table of the campaign's (ruling ``knockback_table``; the
shipped ``sample-knockback`` is INVENTED).

Kestrel (OB 70) against Gruk (DB 5 + Qu 3 x 5 = 15, armour none here):
65 + 70 - 20 = 115: 12C; critical 00 (C row 100): +8 hits, knocked back
10 feet, stunned 2 rounds.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from affray.events import commands as cmd
from affray.events import rolemaster as rev
from affray.rules.base import RuleError
from affray.rules.rolemaster import tables as t

from rolemaster_fight import Fight, sheet

A, R, ROLL = cmd.DeclareAttack, cmd.ChooseReaction, cmd.RollPending()
START = "10,5,3,4"


def act(who, action):
    return cmd.TakeAction(who=who, action=action)


def _fight(tmp_path, **rulings):
    f = Fight(tmp_path, rulings=rulings, sheets=((sheet("kestrel"), "heroes"), (sheet("gruk", armour="none"), "orcs")))
    f.run(cmd.StartRound(), START)
    return f


def _knock_back(f):
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="none"), "65")
    f.run(ROLL, "00")


@pytest.mark.parametrize("kind,ob,qu_db", [
    ("heavy-brush", -10, 15), ("light-brush", 0, 15), ("ice", -5, 15),
    ("knee-deep", -10, 7), ("waist-deep", -20, 0), ("shoulder-deep", -5, 0),
])
def test_terrain_modifies_ob_and_the_quickness_part_of_db(tmp_path, kind, ob, qu_db):
    """RMH 'Terrain Condition', every row: Gruk's attacks take the OB
    modifier; Kestrel's attack on him meets the Quickness part (15) whole,
    halved or lost."""
    f = _fight(tmp_path)
    f.run(act("gruk", f"terrain {kind}"))
    f.run(A(attacker="kestrel", target="gruk"))
    f.run(R(defender="gruk", reaction="none"), "10")  # a light hit at most: no critical
    qu = [m for m in f.events(rev.AttackLookedUp)[-1].db_parts if "Quickness" in m.reason][0]
    assert qu.value == qu_db
    f.run(A(attacker="gruk", target="kestrel"))
    f.run(R(defender="kestrel", reaction="none"), "30")
    obs = [(m.value, m.reason) for m in f.events(rev.AttackLookedUp)[-1].ob_parts]
    assert ((ob, f"terrain {kind} (RMH terrain)") in obs) is (ob != 0)


def test_terrain_is_cleared_and_unknown_terrain_refused(tmp_path):
    f = _fight(tmp_path)
    f.run(act("gruk", "terrain ice"))
    f.run(act("gruk", "terrain clear"))
    assert not f.who("gruk").has("footing")
    before = f.version
    with pytest.raises(RuleError, match="unknown terrain 'lava'; use one of heavy-brush"):
        f.run(act("gruk", "terrain lava"))
    with pytest.raises(RuleError, match="stands on no terrain"):
        f.run(act("gruk", "terrain clear"))
    assert f.version == before


def test_a_knock_back_into_a_wall_adds_the_tables_effects(tmp_path):
    """'depending on terrain, may suffer additional effects':
    sample-knockback 'wall': +5 hits, stunned 1 round (on top of the
    critical's 2)."""
    f = _fight(tmp_path)
    f.run(act("gruk", "terrain wall"))
    _knock_back(f)
    looked = f.events(rev.TerrainLookedUp)[-1]
    assert (looked.handle, looked.table, looked.terrain, looked.effects) == ("gruk", "sample-knockback", "wall", {"hits": 5, "stunned": 1})
    g = f.who("gruk")
    assert g.location("body").hp == 55 - 12 - 8 - 5
    assert next(k for k in g.conditions if k.name == "stunned").ends.count == 3
    assert [k.name for k in g.conditions].count("staggered") == 1


def test_a_knock_back_on_ice_fells(tmp_path):
    """An RMH terrain may also be a row of the knock-back table: on ice the
    knock-back leaves Gruk prone, and the ice's -5 OB stays."""
    f = _fight(tmp_path)
    f.run(act("gruk", "terrain ice"))
    _knock_back(f)
    assert f.who("gruk").stance == "prone" and f.events(rev.TerrainLookedUp)[-1].terrain == "ice"


def test_no_terrain_or_no_table_adds_nothing(tmp_path):
    f = _fight(tmp_path)
    _knock_back(f)
    assert not f.events(rev.TerrainLookedUp)
    (tmp_path / "b").mkdir()
    g = _fight(tmp_path / "b", knockback_table="")
    with pytest.raises(RuleError, match="unknown terrain 'wall'"):
        g.run(act("gruk", "terrain wall"))
    g.run(act("gruk", "terrain ice"))
    _knock_back(g)
    assert not g.events(rev.TerrainLookedUp) and g.who("gruk").stance == "standing"


def test_knockback_table_format(tmp_path):
    """The knockback table kind: TOML and CSV; a terrain cannot knock back
    again; an empty table is refused (one line naming file and entry)."""
    tab = t.load_file(Path(t.DATA) / "sample-knockback.toml")
    assert set(tab.terrain) == {"ice", "heavy-brush", "knee-deep", "waist-deep", "wall", "edge"}
    assert "INVENTED" in tab.source
    csv = tmp_path / "kb.csv"
    csv.write_text("# kind: knockback\n# source: test\nterrain,text,effects\npit,Falls in.,hits=4;prone\n")
    got = t.load_file(csv)
    assert got.terrain["pit"].as_dict() == {"hits": 4, "prone": 1}
    with pytest.raises(t.TableError, match="row 1, column 'pit': a terrain cannot knock back again"):
        t.parse_table("kb.toml", msgspec.toml.decode(b'kind = "knockback"\nsource = "x"\n[terrain]\npit = { knocked_back = 5 }\n'))
    with pytest.raises(t.TableError, match="needs terrain"):
        t.parse_table("kb.toml", {"kind": "knockback", "source": "x"})
