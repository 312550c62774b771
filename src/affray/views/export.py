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

The renderers are imported when first used.
"""

from __future__ import annotations

import importlib

from affray.events.envelope import Recorded

FORMATS = ("markdown", "bbcode", "discord", "html", "jsonl")


def _renderer(fmt: str):
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return importlib.import_module(f"affray.views.formats.{fmt}").render


def export(
    records: list[Recorded], fmt: str, rounds: tuple[int, int] | None = None, show_secret: bool = False
) -> str:
    """Render ``records`` (one encounter, in version order) in ``fmt``.

    ``rounds`` is an inclusive ``(first, last)`` span (round 0 is the setup
    before round 1); ``show_secret`` keeps secret GM notes. Raises
    ``ValueError`` for a format not in :data:`FORMATS`.
    """
    return _renderer(fmt)(records, rounds=rounds, show_secret=show_secret)


def markdown(records: list[Recorded], *, rounds: tuple[int, int] | None = None, show_secret: bool = False) -> str:
    """GitHub-flavoured markdown (see :mod:`affray.views.formats.markdown`)."""
    return export(records, "markdown", rounds, show_secret)


def jsonl(records: list[Recorded], *, rounds: tuple[int, int] | None = None, show_secret: bool = False) -> str:
    """One event per line with its envelope (see :mod:`affray.views.formats.jsonl`)."""
    return export(records, "jsonl", rounds, show_secret)
