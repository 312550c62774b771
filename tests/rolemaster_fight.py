"""A small harness for rolemaster tests: an encounter in a temporary store
with table dice, sheets built from the sample ones with overrides."""

from __future__ import annotations

import copy

from affray.commands.demo import examples_dir
from affray.commands.handler import execute
from affray.events import commands as cmd
from affray.rules import base
from affray.store import EventStore

RM = base.get("rolemaster")


def sheet(name: str, **changes) -> dict:
    """A sample sheet (``kestrel`` or ``gruk``) as plain data with top-level
    ``changes`` (``weapons`` replaced whole)."""
    data = copy.deepcopy(RM.load_sheet(str(examples_dir() / "rolemaster" / f"{name}.toml")))
    data.update(changes)
    return data


class Fight:
    """An open rolemaster encounter; ``run(command, dice)`` executes a command."""

    def __init__(self, tmp_path, *, rulings=None, sheets=None, manual=True, surprised=()):
        self.store = EventStore(str(tmp_path / "rm.db"))
        # These tests script one exchange after another, so they open with
        # ruling resolution=when-declared unless they name it; the default,
        # when-spent (an action resolves when its AP are spent), is played in
        # test_rolemaster_countdown.py and test_rolemaster_cli.py.
        rulings = {"resolution": "when-declared", **(rulings or {})}
        out = execute(self.store, cmd.OpenEncounter(name="test", system="rolemaster", manual_dice=manual,
                                                    rulings=rulings), seed=b"rm-test", allow_short_seed=True, actor="gm")
        self.eid = out.encounter_id
        for data, side in sheets or ((sheet("kestrel"), "heroes"), (sheet("gruk"), "orcs")):
            self.run(cmd.JoinCombatant(sheet=data, side=side, surprised=data["name"].lower() in surprised))

    def run(self, command, dice: str = ""):
        out = execute(self.store, command, encounter_id=self.eid, dice=dice, actor="gm")
        self.state = out.state
        self.last = out
        return out

    def events(self, cls=None):
        """The live events of the log (of type ``cls``)."""
        return [r.event for r in self.store.read(self.eid) if cls is None or isinstance(r.event, cls)]

    def who(self, handle: str):
        return self.state.combatants[handle]

    @property
    def version(self) -> int:
        return self.store.version(self.eid)
