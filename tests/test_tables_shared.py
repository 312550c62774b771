"""The shared table loading and lookups (affray.rules.tables) that every
rule system's tables.py builds on (DESIGN.md "Rule systems": tables in
data/*.toml, each with a source)."""

from pathlib import Path
from types import SimpleNamespace

import msgspec
import pytest

from affray.rules import tables as shared
from affray.rules.mrq1 import tables as mrq1
from affray.rules.mythras import tables as mythras


class _Locs(shared.Sourced):
    rows: list[shared.HitLocation]


def test_a_data_file_with_an_unknown_key_fails_to_load(tmp_path: Path):
    (tmp_path / "t.toml").write_text('source = "x"\nrows = []\ncolour = "red"\n')
    with pytest.raises(msgspec.ValidationError, match="colour"):
        shared.load(tmp_path, "t.toml", _Locs)


def test_load_decodes_typed_frozen_rows(tmp_path: Path):
    (tmp_path / "t.toml").write_text(
        'source = "seed 004 Hit Locations"\n[[rows]]\nname = "head"\nlow = 19\nhigh = 20\nlimb = ""\n')
    t = shared.load(tmp_path, "t.toml", _Locs)
    assert t.rows == [shared.HitLocation("head", 19, 20, "")]
    assert shared.sources(SimpleNamespace(locations=t), ("locations",)) == {"locations": "seed 004 Hit Locations"}
    with pytest.raises(AttributeError):
        t.rows[0].low = 1


def test_band_of_open_ended_and_outside():
    bands = [shared.Band(1, 1, 6), shared.Band(7, 2, 12), shared.Band(13, 3)]
    assert shared.band_of(bands, 1).value == 1
    assert shared.band_of(bands, 12).value == 2
    assert shared.band_of(bands, 500).value == 3  # no high: open-ended
    assert shared.band_of(bands, 0) is None


def test_location_of_covers_the_d20_or_none():
    rows = [shared.HitLocation("right leg", 1, 3, "leg"), shared.HitLocation("head", 19, 20, "")]
    assert shared.location_of(rows, 3) == "right leg"
    assert shared.location_of(rows, 19) == "head"
    assert shared.location_of(rows, 10) is None


def test_by_key_keeps_table_order():
    rows = [mythras.GRADES[k] for k in reversed(mythras.GRADE_ORDER)]
    assert list(shared.by_key(rows)) == list(reversed(mythras.GRADE_ORDER))


def test_both_systems_name_every_table_source():
    """Each table of both systems carries its source note (mythras B, mrq1 E/seed 004)."""
    assert set(mythras.SOURCES) >= {"differential", "locations", "damage_modifier"}
    assert all(mythras.SOURCES.values()) and all(mrq1.SOURCES.values())
    assert mythras.LOCATION_NAMES == mrq1.LOCATIONS  # the same humanoid rows (B13)
