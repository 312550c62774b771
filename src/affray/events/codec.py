"""One JSON codec for the whole event union, built once (DESIGN.md, "Events").

``encode(event) -> bytes`` gives the canonical JSON stored in the ``data``
column (it includes the ``type`` tag). ``decode(type, schema, data)`` runs the
registered upcasters when ``schema`` is older than the class's, then decodes
with the one typed decoder.

Errors: :class:`UnknownEvent` for a tag affray does not know;
``msgspec.ValidationError`` / ``msgspec.DecodeError`` for malformed data.
"""

from __future__ import annotations

from typing import Union

import msgspec

from affray.events import core, mrq1, mythras  # noqa: F401
from affray.events.core import Event
from affray.events.upcasters import UPCASTERS


class UnknownEvent(ValueError):
    """The log holds an event type this affray does not know."""


def _all_subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out.append(sub)
        out.extend(_all_subclasses(sub))
    return out


EVENT_TYPES: dict[str, type[Event]] = {
    sub.__struct_config__.tag: sub for sub in _all_subclasses(Event) if sub.__struct_config__.tag
}
EventUnion = Union[tuple(EVENT_TYPES.values())]  # type: ignore[valid-type]

#: tag -> current schema, for callers that decode in a tight loop.
CURRENT_SCHEMA: dict[str, int] = {tag: cls.schema for tag, cls in EVENT_TYPES.items()}

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(EventUnion)
_dict_decoder = msgspec.json.Decoder(dict)


def tag_of(event: Event) -> str:
    """The stable kebab-case tag of ``event``."""
    return event.__struct_config__.tag  # type: ignore[return-value]


def schema_of(event_type: str) -> int:
    """The current schema version of the event tagged ``event_type``."""
    try:
        return EVENT_TYPES[event_type].schema
    except KeyError:
        raise UnknownEvent(f"unknown event type {event_type!r}") from None


def encode(event: Event) -> bytes:
    """Canonical JSON bytes of ``event`` (fields in declaration order)."""
    return _encoder.encode(event)


def fast_decoder():
    """``decode(data)`` for stored data already at its current schema (the
    replay hot path checks :data:`CURRENT_SCHEMA` first; the one typed
    decoder is shared, not rebuilt)."""
    return _decoder.decode


def decode(event_type: str, schema: int, data: bytes | str) -> Event:
    """Decode stored ``data``; upcast first when ``schema`` is behind."""
    current = schema_of(event_type)
    if schema == current:
        return _decoder.decode(data)
    raw = _dict_decoder.decode(data)
    while schema < current:
        fn = UPCASTERS.get((event_type, schema))
        if fn is None:
            raise UnknownEvent(f"no upcaster for {event_type!r} from schema {schema}")
        raw = fn(raw)
        schema += 1
    raw["type"] = event_type
    return msgspec.convert(raw, EventUnion)
