"""Which encounter a command acts on (light: read verbs import only this)."""

from __future__ import annotations

from affray.errors import AffrayError
from affray.store import UnknownEncounter


def resolve_encounter(store, encounter_id: str | None) -> str:
    """The encounter to act on: the one named, or the newest open one.

    Raises :class:`affray.store.UnknownEncounter` for an unknown id and
    :class:`NoOpenEncounter` when none is open (one line each).
    """
    if encounter_id:
        if not store.has_encounter(encounter_id):
            raise UnknownEncounter(encounter_id, store.path)
        return encounter_id
    newest = store.newest_open_encounter()
    if newest is None:
        raise NoOpenEncounter()
    return newest


class NoOpenEncounter(AffrayError):
    """Every encounter in the file is closed (or there is none)."""

    def __init__(self) -> None:
        super().__init__(
            "no open encounter in this database; open one with 'affray new NAME --system mrq1' "
            "or name a closed one with --encounter ID"
        )
