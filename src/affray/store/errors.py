"""Store errors: each ``str()`` is one line saying what was wrong and what to do.

The CLI prints ``error: <str(exc)>`` and exits 2 (3 for :class:`ConflictError`);
a traceback is always a bug (DESIGN.md, "CLI conventions").
"""

from __future__ import annotations

import sqlite3

from affray.errors import AffrayError


class StoreError(AffrayError):
    """Base of every store error; ``str()`` is one user-facing line."""


class DatabaseMissing(StoreError):
    """The database file does not exist and the caller needs it to."""

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(f"no database at {path}; create one with 'affray new'")

    def __reduce__(self):
        return (type(self), (self.path,))


class DatabaseCorrupt(StoreError):
    """Not a SQLite file, truncated, empty, or not laid out as affray expects."""

    def __init__(self, path: str, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(
            f"{path} is not a usable affray database ({reason}); "
            "run 'affray verify' or restore it from a backup"
        )

    def __reduce__(self):
        return (type(self), (self.path, self.reason))


class DatabaseLocked(StoreError):
    """Another connection kept the write lock past the busy timeout."""

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(
            f"{path} is locked: another affray is writing to it; "
            "wait a moment and run the command again"
        )

    def __reduce__(self):
        return (type(self), (self.path,))


class ConflictError(StoreError):
    """The encounter's version moved on between reading state and appending."""

    exit_code = 3

    def __init__(self, encounter_id: str, expected: int, actual: int) -> None:
        self.encounter_id, self.expected, self.actual = encounter_id, expected, actual
        super().__init__(
            f"encounter {encounter_id} changed while you were typing "
            f"(expected version {expected}, found {actual}); run the command again"
        )

    def __reduce__(self):
        return (type(self), (self.encounter_id, self.expected, self.actual))


class UnknownEncounter(StoreError):
    """No event of this encounter is in the database."""

    def __init__(self, encounter_id: str, path: str) -> None:
        self.encounter_id, self.path = encounter_id, path
        super().__init__(
            f"no encounter {encounter_id!r} in {path}; check the id, "
            "or leave out --encounter to use the newest open one"
        )

    def __reduce__(self):
        return (type(self), (self.encounter_id, self.path))


def translate(exc: sqlite3.Error, path: str) -> Exception:
    """Map a ``sqlite3`` error to the :class:`StoreError` a user should see.

    Programming errors (``ProgrammingError``, ``InterfaceError``: a closed
    connection, wrong parameters) are bugs and come back unchanged.
    """
    if isinstance(exc, (sqlite3.ProgrammingError, sqlite3.InterfaceError)):
        return exc
    name = getattr(exc, "sqlite_errorname", "") or ""
    msg = str(exc)
    low = msg.lower()
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in low or "busy" in low:
        return DatabaseLocked(path)
    if name.startswith("SQLITE_READONLY") or "readonly" in low:
        return StoreError(f"cannot write to {path}: it is read-only; check the file's permissions")
    if name.startswith("SQLITE_CANTOPEN") or "unable to open" in low:
        return StoreError(f"cannot open {path}; check that its folder exists and is writable")
    if name.startswith("SQLITE_FULL"):
        return StoreError(f"cannot write to {path}: the disk is full; free some space and try again")
    if name.startswith("SQLITE_IOERR"):
        return StoreError(f"cannot read or write {path} ({msg}); check the disk and try again")
    return DatabaseCorrupt(path, _REASONS.get(msg, msg))


_REASONS = {
    "file is not a database": "it is not a SQLite file",
    "database disk image is malformed": "the file is damaged or truncated",
}
