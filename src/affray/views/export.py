"""Play-by-post exports of an encounter's log: the one entry point.

``export(records, fmt, rounds=None, show_secret=False)`` renders one
encounter's records in ``fmt``, one of :data:`FORMATS`. Every format keeps
retracted and rewound entries, struck through, so the record of a mistake
survives its correction; every format can be limited to an inclusive round
range and leaves secret GM notes out unless ``show_secret``.

- ``markdown``: GitHub-flavoured (:mod:`affray.views.formats.markdown`);
- ``bbcode``: forums, ``[b]``, ``[i]``, ``[s]``, ``[table]``
  (:mod:`~affray.views.formats.bbcode`);
- ``discord``: messages of at most 2,000 characters, each after a line
  ``--- message N ---`` (:mod:`~affray.views.formats.discord`);
- ``html``: one self-contained page (:mod:`~affray.views.formats.html`);
- ``jsonl``: one event per line with its envelope, lossless; ``affray
  import`` reads it back (:mod:`~affray.views.formats.jsonl`).

Every format streams: :func:`export_store` reads the title, the roster
and the meta events first (through the store's type index), then walks the
log once, writing as it goes (the HTML page's table of contents, which comes
before the rounds it lists, is the one thing written out of order: its body
waits in a temporary file). :func:`export` renders a list of records to a
string, through the same code.

The renderers are imported when first used.
"""

from __future__ import annotations

import importlib
import io
from typing import Callable

from affray.events.envelope import Recorded

FORMATS = ("markdown", "bbcode", "discord", "html", "jsonl")


def _module(fmt: str):
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return importlib.import_module(f"affray.views.formats.{fmt}")


def _renderer(fmt: str):
    return _module(fmt).render


def export(records, fmt: str, rounds: tuple[int, int] | None = None, show_secret: bool = False) -> str:
    """Render ``records`` (one encounter, in version order: a list of
    records, or a :class:`~affray.views.formats.common.Source`) in ``fmt``.

    ``rounds`` is an inclusive ``(first, last)`` span (round 0 is the setup
    before round 1); ``show_secret`` keeps secret GM notes. Raises
    ``ValueError`` for a format not in :data:`FORMATS`.
    """
    buf = io.StringIO()
    write(records, fmt, buf, rounds=rounds, show_secret=show_secret)
    return buf.getvalue()


def write(records, fmt: str, out, *, rounds: tuple[int, int] | None = None, show_secret: bool = False) -> None:
    """:func:`export`, written to ``out`` (anything with ``write(str)``) as
    it is rendered, in one walk of the log."""
    from affray.views.formats.common import source_of

    _module(fmt).write(source_of(records), out, rounds=rounds, show_secret=show_secret)


def export_store(
    store,
    encounter_id: str,
    fmt: str,
    out,
    *,
    rounds: tuple[int, int] | None = None,
    show_secret: bool = False,
    progress: Callable[[int], None] | None = None,
) -> None:
    """Export ``encounter_id`` from ``store`` to ``out``, streaming: the
    title, roster and meta events (undo, redo, rewind) are read first
    through the type index, then the log is walked once and written block by
    block, so memory stays flat however long the fight. ``progress`` is
    called with the version reached as the walk goes (for a progress bar)."""
    from affray.views.formats.common import Source

    mod = _module(fmt)
    mod.write(Source.from_store(store, encounter_id, progress=progress), out, rounds=rounds, show_secret=show_secret)


def markdown(records: list[Recorded], *, rounds: tuple[int, int] | None = None, show_secret: bool = False) -> str:
    """GitHub-flavoured markdown (see :mod:`affray.views.formats.markdown`)."""
    return export(records, "markdown", rounds, show_secret)


def jsonl(records: list[Recorded], *, rounds: tuple[int, int] | None = None, show_secret: bool = False) -> str:
    """One event per line with its envelope (see :mod:`affray.views.formats.jsonl`)."""
    return export(records, "jsonl", rounds, show_secret)
