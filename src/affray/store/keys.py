"""The key file: the engine's secret dice seeds, kept out of the shared log.

A log file is shared with the players (and served by Datasette); the seed of
an open encounter must not be in it, or anyone holding the file could compute
every roll to come (README, "Threat model"). The seeds live in a text file
beside the log, ``<db>.keys`` (or the path in ``AFFRAY_KEYS``), created with
mode 0600 (owner read/write only).

Format: one line per seed, ``<encounter id> <seed as lowercase hex>``,
appended and never rewritten. An encounter may have several lines (a writer
that lost the race for an encounter id leaves its seed behind): the seed of
an encounter is the one whose SHA-256 is the commitment in its
``EncounterOpened`` event, so a line added or changed later (a seed swapped
after ``affray new``) is never used. Encounter ids hold no spaces or line
breaks (``slug``; ``--id`` is checked by the handler).

A log written before the key file kept its seeds in its ``dice_seeds``
table; schema migration 3 moves them here on the first write (and
:meth:`affray.store.EventStore.get_seed` still reads that table).

Losing the key file loses nothing recorded: ``affray close`` cannot reveal
the seed then, ``verify --dice`` cannot check the dice (exit 4), and the
engine cannot roll for that encounter (type the dice with ``--dice``).
"""

from __future__ import annotations

import os

from affray.digest import sha256
from affray.errors import special_file
from affray.store.errors import StoreError

#: Environment variable naming the key file (default: ``<db>.keys``).
KEYS_ENV = "AFFRAY_KEYS"


def default_path(db: str) -> str:
    """The key file of the log at ``db``: ``AFFRAY_KEYS``, else ``<db>.keys``."""
    return os.environ.get(KEYS_ENV) or f"{db}.keys"


class KeyFile:
    """The seeds of one log (``path`` is ``None`` for an in-memory store:
    the seeds are then held in memory only)."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._memory: list[tuple[str, bytes]] = []

    def add(self, encounter_id: str, seed: bytes) -> None:
        """Append ``seed`` for ``encounter_id``; the file is created 0600.

        Errors: :class:`StoreError` (one line) when the file cannot be
        written or is not a regular file.
        """
        if any(c.isspace() for c in encounter_id) or not encounter_id:
            raise StoreError(f"encounter id {encounter_id!r} holds a space or a line break; choose another with --id")
        if self.path is None:
            self._memory.append((encounter_id, bytes(seed)))
            return
        line = f"{encounter_id} {bytes(seed).hex()}\n".encode()
        self._refuse_special()
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        except OSError as exc:
            raise StoreError(
                f"cannot write the dice key file {self.path} ({exc.strerror}); "
                "make its folder writable or set AFFRAY_KEYS to a writable path"
            ) from None
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)

    def _refuse_special(self) -> None:
        """:class:`StoreError` when the key file is a folder, FIFO, socket or
        device: opening a FIFO would wait for a writer (or reader) for ever."""
        kind = special_file(self.path)
        if kind:
            raise StoreError(
                f"the dice key file {self.path} is {kind}, not a regular file; "
                "move it away or set AFFRAY_KEYS to a file"
            )

    def seeds(self, encounter_id: str) -> list[bytes]:
        """Every seed kept for ``encounter_id``, oldest first (maybe none).
        Errors: :class:`StoreError` when the key file is not a regular file."""
        if self.path is None:
            return [s for e, s in self._memory if e == encounter_id]
        self._refuse_special()
        try:
            with open(self.path, "rb") as fh:
                text = fh.read().decode("utf-8", "replace")
        except OSError:
            return []
        out = []
        for line in text.splitlines():
            eid, _, hexed = line.strip().partition(" ")
            if eid == encounter_id:
                try:
                    out.append(bytes.fromhex(hexed))
                except ValueError:
                    continue  # a damaged line: never a seed
        return out

    def find(self, encounter_id: str, commitment: str | None) -> bytes | None:
        """The seed of ``encounter_id`` whose SHA-256 is ``commitment``
        (with no commitment: the newest kept), or ``None``."""
        found = self.seeds(encounter_id)
        if commitment is None:
            return found[-1] if found else None
        for seed in reversed(found):
            if matches(seed, commitment):
                return seed
        return None


def matches(seed: bytes, commitment: str) -> bool:
    """Whether ``SHA-256(seed)`` is ``commitment`` (lowercase hex)."""
    return sha256(seed).hexdigest() == commitment
