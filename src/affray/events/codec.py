"""One JSON codec for the whole event union, built once (DESIGN.md, "Events").

``encode(event) -> bytes`` gives the canonical JSON stored in the ``data``
column (it includes the ``type`` tag). ``decode(type, schema, data)`` runs the
registered upcasters when ``schema`` is older than the class's, then decodes
with the one typed decoder.

Errors: :class:`UnknownEvent` for a tag affray does not know;
``msgspec.ValidationError`` / ``msgspec.DecodeError`` for malformed data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Union

import msgspec

from affray.events import core, mrq1, mythras  # noqa: F401
from affray.events import uesrpg  # noqa: F401
from affray.events import rolemaster  # noqa: F401
from affray.events import rq3  # noqa: F401
from affray.events.core import Event
from affray.events.upcasters import UPCASTERS


class UnknownEvent(ValueError):
    """The log holds an event type this affray does not know."""


#: What decoding stored data can raise: :func:`decode` and the typed decoders.
DECODE_ERRORS = (UnknownEvent, msgspec.DecodeError, msgspec.ValidationError)


class Undecodable(Exception):
    """A stored event at ``version`` did not decode (``cause``: one of
    :data:`DECODE_ERRORS`). Raised by a fold that decodes rows itself
    (:func:`affray.projections.evolve.fold_rows`), for the store that fed it
    the rows to turn into its own error, with the encounter and the file."""

    def __init__(self, version: int, cause: Exception) -> None:
        super().__init__(f"version {version}: {cause}")
        self.version = version
        self.cause = cause


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
_dict_decoder = msgspec.json.Decoder(dict)
#: tag -> that event type's own decoder, built on first use: a decoder for
#: the whole union costs ~10 ms to build, which a short read (``affray
#: state``: a snapshot and a few events) would pay for types it never sees.
_typed: dict[str, Callable[[bytes | str], Event]] = {}


def typed_decoder(event_type: str) -> Callable[[bytes | str], Event]:
    """``decode(data)`` for stored data of type ``event_type`` at its current
    schema (the tag in the data is checked too). Raises :class:`UnknownEvent`
    for a type this affray does not know."""
    fn = _typed.get(event_type)
    if fn is None:
        cls = EVENT_TYPES.get(event_type)
        if cls is None:
            raise UnknownEvent(f"unknown event type {event_type!r}")
        fn = _typed[event_type] = msgspec.json.Decoder(cls).decode
    return fn


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


def typed_decoders() -> dict[str, Callable[[bytes | str], Event]]:
    """The decoders built so far, by tag (the dict itself): the replay hot
    path looks a type up here and calls :func:`typed_decoder` only on a miss."""
    return _typed


def decode(event_type: str, schema: int, data: bytes | str) -> Event:
    """Decode stored ``data``; upcast first when ``schema`` is behind."""
    current = schema_of(event_type)
    if schema == current:
        return typed_decoder(event_type)(data)
    raw = _dict_decoder.decode(data)
    while schema < current:
        fn = UPCASTERS.get((event_type, schema))
        if fn is None:
            raise UnknownEvent(f"no upcaster for {event_type!r} from schema {schema}")
        raw = fn(raw)
        schema += 1
    raw["type"] = event_type
    return msgspec.convert(raw, EVENT_TYPES[event_type])
