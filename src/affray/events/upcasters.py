"""Upcasters: ``(tag, from_schema) -> fn(dict) -> dict``.

When an event's meaning changes, bump its class's ``schema`` and register a
function here that turns the stored dict of the old schema into the next one.
They run before decoding, so a log written by an older affray replays the same
(DESIGN.md invariant 3). A fixture log written at schema 1 is kept in
``tests/fixtures`` and replayed by the tests.
"""

from __future__ import annotations

from typing import Callable

Upcaster = Callable[[dict], dict]

UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def upcaster(tag: str, from_schema: int) -> Callable[[Upcaster], Upcaster]:
    """Register ``fn`` to lift ``tag`` events from ``from_schema`` by one."""

    def register(fn: Upcaster) -> Upcaster:
        UPCASTERS[(tag, from_schema)] = fn
        return fn

    return register
