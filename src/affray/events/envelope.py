"""The envelope a stored event travels in (DESIGN.md, "Events").

``seq`` is the global order in the file, ``version`` the position in its
encounter (dense, from 1), ``command_id`` groups the events of one command
(the unit of undo), ``recorded_at`` is UTC ISO-8601, ``actor`` who issued the
command and ``hash`` is ``sha256(previous hash ‖ canonical bytes)`` in hex.
"""

import msgspec

from affray.events.core import Event


class Recorded(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One stored event with its envelope (acyclic: no GC tracking needed)."""

    seq: int
    encounter_id: str
    version: int
    command_id: str
    type: str
    schema: int
    event: Event
    recorded_at: str
    actor: str
    hash: str


class Live(msgspec.Struct, frozen=True, gc=False):
    """The part of an envelope a projection needs: ``version``,
    ``command_id`` and the ``event`` (a lean read for replays)."""

    version: int
    command_id: str
    event: Event
