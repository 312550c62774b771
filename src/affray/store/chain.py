"""The hash chain: one definition of the canonical bytes, used by append and verify.

``hash = sha256(prev_hash + canonical).hexdigest()`` where ``prev_hash`` is the
hex hash of the previous event of the same encounter (``""`` for version 1)
and ``canonical`` is the envelope and raw ``data`` JSON in a fixed layout
(DESIGN.md invariant 6).
"""

from __future__ import annotations

from hashlib import sha256

from msgspec.json import encode as _json

_LAYOUT = (
    '{"encounter_id":%s,"version":%d,"command_id":%s,"type":%s,'
    '"schema":%d,"recorded_at":%s,"actor":%s,"data":%s}'
)


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


def chain_hash(prev_hash: str, canonical_text: str) -> str:
    """``sha256(prev_hash + canonical_text)`` as lowercase hex."""
    return sha256((prev_hash + canonical_text).encode()).hexdigest()
