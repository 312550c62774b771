"""Golden exports: two fixed fights in all five formats, byte for byte.

- ``duel``: the golden duel of tests/test_golden.py (every die typed), so
  its markdown is ``tests/golden/duel.md`` itself, the file that test pins.
- ``chronicle``: the same duel with an undo and a redo, an attack undone
  and typed again, a rewind, a public and a secret note, exported with
  ``show_secret``: struck-through (retracted and void) entries, notes, and
  the fight played on after the rewind into round 2.

The log's times are fixed (each fight is rebuilt through
``EventStore.import_records`` with ``recorded_at`` set by version and the
hash chain computed anew), so the jsonl export is stable too. Each format
is checked both ways: ``export(list(records))`` and the streamed
``export_store`` must equal the golden file. Run with
``AFFRAY_UPDATE_GOLDEN=1`` to rewrite the files after a deliberate change,
then review the diff.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from affray.events import commands as cmd
from affray.commands.handler import execute
from affray.store import EventStore
from affray.store.chain import canonical, chain_hash
from affray.views.export import FORMATS, export, export_store
from affray.views.formats import discord
from affray.views.formats.jsonl import parse

from test_golden import SCRIPT, open_duel

GOLDEN = Path(__file__).resolve().parent / "golden"
SUFFIX = {"markdown": "md", "bbcode": "bbcode", "discord": "discord.txt", "html": "html", "jsonl": "jsonl"}


def _fixed_times(store: EventStore, eid: str) -> EventStore:
    """A copy of ``eid`` in a new store with ``recorded_at`` fixed by version
    (and the hash chain computed for those times)."""
    rows, prev = [], ""
    for _, _, version, command_id, type_, schema, data, _, actor, _ in store.read_raw(eid):
        at = f"2024-05-01T19:{version // 60:02d}:{version % 60:02d}.000000Z"
        prev = chain_hash(prev, canonical(eid, version, command_id, type_, schema, at, actor, data))
        rows.append((version, command_id, type_, schema, data, at, actor, prev))
    copy = EventStore(":memory:")
    copy.import_records(eid, rows)
    assert copy.verify(eid) == []
    return copy


def _duel() -> tuple[EventStore, str]:
    store = EventStore(":memory:")
    eid = open_duel(store, manual=True)
    for command, dice in SCRIPT:
        execute(store, command, encounter_id=eid, dice=dice, actor="gm")
    return _fixed_times(store, eid), eid


def _chronicle() -> tuple[EventStore, str]:
    store = EventStore(":memory:")
    eid = open_duel(store, manual=True)

    def run(command, dice="", actor="gm"):
        return execute(store, command, encounter_id=eid, dice=dice, actor=actor)

    for i, (command, dice) in enumerate(SCRIPT[:9]):
        run(command, dice)
        if i == 1:  # Vasana's first attack: undone, redone, undone again and typed again
            run(cmd.Undo(), actor="sam")
            run(cmd.Redo(), actor="sam")
            run(cmd.Undo(), actor="sam")
            run(command, dice)
            run(cmd.AddNote(text="the broo's spear is cursed", secret=True))
        if i == 4:
            run(cmd.AddNote(text="the ford is knee-deep; *mind* the [b]current[/b] <here>"))
    # Back to just after Vasana's attack was typed again (step 1.1): the
    # parry and what followed stay in the log, void; the fight goes on.
    run(cmd.Rewind(to_point="1.1"))
    for command, dice in SCRIPT[2:19]:  # into round 2, up to Broo 1's parry
        run(command, dice, actor="sam")
    return _fixed_times(store, eid), eid


FIGHTS = {"duel": (_duel, False), "chronicle": (_chronicle, True)}


@pytest.fixture(scope="module", params=sorted(FIGHTS))
def fight(request):
    build, secret = FIGHTS[request.param]
    store, eid = build()
    return request.param, store, eid, secret


def _golden(name: str, fmt: str) -> Path:
    return GOLDEN / f"{name}.{SUFFIX[fmt]}"


@pytest.mark.parametrize("fmt", FORMATS)
def test_golden_export(fight, fmt):
    name, store, eid, secret = fight
    text = export(list(store.read(eid)), fmt, show_secret=secret)
    path = _golden(name, fmt)
    if os.environ.get("AFFRAY_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
    assert path.exists(), f"no golden file {path.name} yet: run once with AFFRAY_UPDATE_GOLDEN=1 and review it"
    with open(path, encoding="utf-8", newline="") as fh:
        assert text == fh.read(), f"{path.name} differs"
    streamed = io.StringIO()
    export_store(store, eid, fmt, streamed, show_secret=secret)
    assert streamed.getvalue() == text


def test_the_golden_files_show_what_they_should(fight):
    """The golden files are not just stable, they hold what a reader needs."""
    name, store, eid, secret = fight
    read = {fmt: _golden(name, fmt).read_text(encoding="utf-8") for fmt in FORMATS}
    assert read["markdown"].startswith("# Golden duel\n")
    assert "[b]Golden duel[/b]" in read["bbcode"] and "[table]" in read["bbcode"]
    assert all(len(m) <= discord.LIMIT for m in discord.split(read["discord"]))
    assert read["html"].count('<section class="round"') == read["html"].count("</section>")
    _, rows = parse(read["jsonl"])  # a whole export: it imports and its chain verifies
    assert len(rows) == store.version(eid)
    if name == "duel":
        assert "(retracted)" not in read["markdown"] and "(void)" not in read["markdown"]
        assert read["markdown"] == (GOLDEN / "duel.md").read_text(encoding="utf-8")
    else:
        for fmt in ("markdown", "bbcode", "discord"):
            assert "(retracted)" in read[fmt] and "(void)" in read[fmt], fmt
        assert "<del>" in read["html"] and 'id="round-2"' in read["html"] and 'href="#round-2"' in read["html"]
        assert "cursed" in read["html"] and "&lt;here&gt;" in read["html"]
