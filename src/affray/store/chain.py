"""The hash chain: one definition of the canonical bytes, used by append and verify.

``hash = sha256(prev_hash + canonical).hexdigest()`` where ``prev_hash`` is the
hex hash of the previous event of the same encounter and ``canonical`` is the
envelope and raw ``data`` JSON in a fixed layout (DESIGN.md invariant 6).

Where the chain starts (the ``prev_hash`` of version 1) is its version,
marked in the opening event's data (``EncounterOpened.chain``):

* **chain v1** (logs written before the mark; no ``chain`` field): the
  empty string.
* **chain v2** (``"chain":2``): :func:`genesis`, ``sha256("affray chain
  v2\\n" + encounter id + "\\n" + seed commitment)`` as hex, so every hash
  of the encounter is bound to its seed commitment from the first link on.

A caller passes ``""`` as the ``prev_hash`` of version 1 whatever the
version: :func:`chain_hash` reads the mark from the opening event's
canonical text and starts the chain where its version says. So every
backend (SQLite, PostgreSQL), the import and the export checks hash the same
way through these functions, and a v1 log still verifies as it always did.
"""

import msgspec
from msgspec.json import encode as _json

from affray.digest import sha256

#: The chain version new encounters are opened with.
CURRENT_CHAIN = 2

_LAYOUT = (
    '{"encounter_id":%s,"version":%d,"command_id":%s,"type":%s,'
    '"schema":%d,"recorded_at":%s,"actor":%s,"data":%s}'
)


class _OpeningData(msgspec.Struct):
    seed_sha256: str = ""
    chain: int = 1


class _Opening(msgspec.Struct):
    encounter_id: str
    version: int
    type: str
    data: msgspec.Raw


_OPENING = msgspec.json.Decoder(_Opening)
_OPENING_DATA = msgspec.json.Decoder(_OpeningData)


def genesis(encounter_id: str, commitment: str) -> str:
    """The ``prev_hash`` of version 1 in a chain v2: ``sha256("affray chain
    v2\\n" + encounter_id + "\\n" + commitment)`` as lowercase hex
    (``commitment`` is the ``seed_sha256`` of the opening event)."""
    return sha256(f"affray chain v2\n{encounter_id}\n{commitment}".encode()).hexdigest()


def chain_version(data: str | bytes) -> int:
    """The chain version an opening event's raw ``data`` JSON marks: 2 with
    ``"chain":2``, else 1 (also when it does not decode)."""
    try:
        return 2 if _OPENING_DATA.decode(data).chain == 2 else 1
    except (msgspec.DecodeError, msgspec.ValidationError):
        return 1


def start_of(canonical_text: str | bytes) -> str:
    """Where a chain starts whose first canonical text is ``canonical_text``:
    ``""`` (chain v1, or a text that is not a version-1 opening event) or
    :func:`genesis` (chain v2)."""
    try:
        head = _OPENING.decode(canonical_text)
        if head.version != 1 or head.type != "encounter-opened":
            return ""
        data = _OPENING_DATA.decode(head.data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return ""
    return genesis(head.encounter_id, data.seed_sha256) if data.chain == 2 else ""


def canonical(
    encounter_id: str,
    version: int,
    command_id: str,
    type: str,
    schema: int,
    recorded_at: str,
    actor: str,
    data: str,
) -> str:
    """The canonical text an event's hash covers (``data`` is raw JSON text)."""
    return _LAYOUT % (
        _json(encounter_id).decode(),
        version,
        _json(command_id).decode(),
        _json(type).decode(),
        schema,
        _json(recorded_at).decode(),
        _json(actor).decode(),
        data,
    )


#: type tag -> its JSON as bytes (the tags are a few dozen constants)
_QUOTED_TYPES: dict[str, bytes] = {}


def command_texts(encounter_id: str, command_id: str, recorded_at: str, actor: str):
    """:func:`canonical` for the events of one command, faster, as UTF-8
    bytes: the JSON of the four fields the events share is encoded once, and
    that of each type tag once per process. Returns ``text(version, type,
    schema, data) -> bytes`` with ``data`` the event's JSON as bytes (what
    :func:`affray.events.codec.encode` gives): the same as
    ``canonical(encounter_id, version, command_id, type, schema,
    recorded_at, actor, data.decode()).encode()``, byte for byte (what
    :meth:`affray.store.EventStore.append` hashes; issue 17). Bytes rather
    than text: the hash needs bytes, and formatting bytes saves encoding
    each text again."""
    head = b'{"encounter_id":' + _json(encounter_id) + b',"version":'
    mid = b',"command_id":' + _json(command_id) + b',"type":'
    tail = b',"recorded_at":' + _json(recorded_at) + b',"actor":' + _json(actor) + b',"data":'
    quoted = _QUOTED_TYPES

    def text(version: int, type: str, schema: int, data: bytes) -> bytes:
        q = quoted.get(type)
        if q is None:
            q = _json(type)
            if len(quoted) < 1024 and isinstance(type, str):
                quoted[type] = q
        return b'%s%d%s%s,"schema":%d%s%s}' % (head, version, mid, q, schema, tail, data)

    return text


def chain_hash(prev_hash: str, canonical_text: str | bytes, sha=sha256) -> str:
    """``sha256(prev_hash + canonical_text)`` as lowercase hex
    (``canonical_text`` as text, or as its UTF-8 bytes). A ``prev_hash``
    of ``""`` is the start of the chain: the opening event's own text says
    where its version starts (:func:`start_of`). ``sha`` is the SHA-256
    constructor: CPython's own by default (:mod:`affray.digest`: a command
    hashes a few events), :func:`bulk_sha256` for a loop over many rows."""
    if not prev_hash:
        prev_hash = start_of(canonical_text)
    if isinstance(canonical_text, bytes):
        return sha(prev_hash.encode() + canonical_text).hexdigest()
    return sha((prev_hash + canonical_text).encode()).hexdigest()


def bulk_sha256():
    """:mod:`hashlib`'s ``sha256`` (OpenSSL): the same digests as
    :data:`affray.digest.sha256`, about twice as fast on an event's text, but
    about 2 ms to load; for whatever hashes a whole log (``branch``,
    ``amend``, a chain check of every row)."""
    import hashlib  # deferred: OpenSSL's libcrypto costs ~2 ms to load, paid only by the loops over many rows

    return hashlib.sha256


class Canonicals:
    """:func:`canonical` for one encounter's rows in a row, faster: the
    JSON of the encounter id is encoded once, and that of the other text
    fields is kept while they repeat (a command's events share the command
    id, time and actor). The same text as :func:`canonical`, byte for byte."""

    def __init__(self, encounter_id: str) -> None:
        self._head = '{"encounter_id":' + _json(encounter_id).decode() + ',"version":'
        self._text: dict[str, str] = {}

    @property
    def head(self) -> str:
        """The text before the version: ``{"encounter_id":<id>,"version":``."""
        return self._head

    def quote(self, value: str) -> str:
        """``value`` as a JSON string, exactly as :func:`canonical` writes a
        text field. Errors: ``TypeError`` when ``value`` is not a ``str``."""
        if not isinstance(value, str):
            raise TypeError(f"a text field holds {type(value).__name__}")
        return _json(value).decode()

    def _q(self, value: str) -> str:
        if not isinstance(value, str):
            raise TypeError(f"a text field holds {type(value).__name__}")
        if len(self._text) > 4096:
            self._text.clear()
        found = self._text[value] = _json(value).decode()
        return found

    def __call__(self, version: int, command_id: str, type: str, schema: int,
                 recorded_at: str, actor: str, data: str) -> str:
        text, q = self._text, self._q
        return (
            f'{self._head}{version:d},"command_id":{text.get(command_id) or q(command_id)},'
            f'"type":{text.get(type) or q(type)},"schema":{schema:d},'
            f'"recorded_at":{text.get(recorded_at) or q(recorded_at)},"actor":{text.get(actor) or q(actor)},'
            f'"data":{data}}}'
        )


def follow(encounter_id: str, version: int, prev: str, rows):
    """Yield each of ``rows`` (``(version, command_id, type, schema, data,
    recorded_at, actor, hash)``, ``data`` the stored JSON text, ``hash``
    hex) once it is checked to run on from ``version`` and its hash
    ``prev``: the next version, and the hash that chains from the one
    before. Raises :class:`~affray.store.errors.StoreError` at the first row
    that does not (the caller's transaction then writes nothing). Used by
    every backend's ``append_rows``."""
    text, sha = Canonicals(encounter_id), bulk_sha256()
    for row in rows:
        v, command_id, type_, schema, data, recorded_at, actor, hash_ = row
        if v != version + 1 or chain_hash(prev, text(v, command_id, type_, schema, recorded_at, actor, data), sha) != hash_:
            raise mismatch(encounter_id, version, v)
        yield row
        version, prev = v, hash_


def mismatch(encounter_id: str, version: int, row: int | None = None):
    """The :class:`~affray.store.errors.StoreError` for rows that do not run
    on from version ``version`` of ``encounter_id`` (``row``: the first
    that does not; by default the one after ``version``)."""
    from affray.store.errors import StoreError

    return StoreError(
        f"row {version + 1 if row is None else row} of {encounter_id} does not follow version {version} "
        "of the chain; nothing was recorded"
    )


class Chained:
    """Rows that run on from version ``after`` (hash ``prev``) of
    ``encounter_id``, checked (or hashed) here before any transaction is
    opened: ``rows`` is a tuple of ``(version, command_id, type, schema,
    data, recorded_at, actor, hash)``. Made only by :func:`checked` and
    :func:`linked`. A backend's ``append_rows`` given one for the same
    encounter and version only checks, with the write lock held, that the
    head is still ``(after, prev)``, so the lock is not held while
    ``sha256`` runs over every row (issue 17: branch and amend copy many)."""

    __slots__ = ("encounter_id", "after", "prev", "rows")

    def __init__(self, encounter_id: str, after: int, prev: str, rows: tuple) -> None:
        self.encounter_id, self.after, self.prev, self.rows = encounter_id, after, prev, rows

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    @property
    def head(self) -> tuple[int, str]:
        """``(version, hash)`` of the last row (``(after, prev)`` when empty)."""
        return (self.rows[-1][0], self.rows[-1][-1]) if self.rows else (self.after, self.prev)


def checked(encounter_id: str, after: int, prev: str, rows) -> Chained:
    """``rows`` (each with its hash) as :class:`Chained`, once :func:`follow`
    has checked that they run on from version ``after`` whose hash is
    ``prev`` (``""`` for a new encounter). Raises
    :class:`~affray.store.errors.StoreError` at the first row that does not."""
    return Chained(encounter_id, after, prev, tuple(follow(encounter_id, after, prev, rows)))


def linked(encounter_id: str, after: int, prev: str, rows) -> Chained:
    """Rows without their hash, ``(version, command_id, type, schema, data,
    recorded_at, actor)``, each given the hash that chains it from the one
    before (from version ``after``, hash ``prev``): :class:`Chained`.
    Raises :class:`~affray.store.errors.StoreError` when the versions do
    not run on from ``after`` one by one."""
    text, sha = Canonicals(encounter_id), bulk_sha256()
    out = []
    version, start = after, prev
    for row in rows:
        v, command_id, type_, schema, data, recorded_at, actor = row
        if v != version + 1:
            raise mismatch(encounter_id, version, v)
        prev = chain_hash(prev, text(v, command_id, type_, schema, recorded_at, actor, data), sha)
        out.append((v, command_id, type_, schema, data, recorded_at, actor, prev))
        version = v
    return Chained(encounter_id, after, start, tuple(out))
