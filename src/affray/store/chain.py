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


class Canonicals:
    """:func:`canonical` for one encounter's rows in a row, faster: the
    JSON of the encounter id is encoded once, and that of the other text
    fields is kept while they repeat (a command's events share the command
    id, time and actor). The same text as :func:`canonical`, byte for byte."""

    def __init__(self, encounter_id: str) -> None:
        self._head = '{"encounter_id":' + _json(encounter_id).decode() + ',"version":'
        self._text: dict[str, str] = {}

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
