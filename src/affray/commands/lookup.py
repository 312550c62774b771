"""Which encounter a command acts on (light: read verbs import only this)."""

from __future__ import annotations


def resolve_encounter(store, encounter_id: str | None) -> str:
    """The encounter to act on: the one named, or the newest open one.

    Raises :class:`affray.store.UnknownEncounter` (one line) when there is none.
    """
    from affray.store import UnknownEncounter

    if encounter_id:
        if encounter_id not in store.encounter_ids():
            raise UnknownEncounter(
                f"no encounter {encounter_id!r} in this database; 'affray list' shows the encounters"
            )
        return encounter_id
    newest = store.newest_open_encounter()
    if newest is None:
        raise UnknownEncounter("no open encounter; open one with 'affray new NAME --system mrq1'")
    return newest
