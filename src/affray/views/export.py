"""Play-by-post exports of an encounter's log: the one entry point.

``export(records, fmt, rounds=None, show_secret=False, *, view="record",
footer=False, limit=None)`` renders one encounter's records in ``fmt``, one
of :data:`FORMATS`, in one of two views (:data:`VIEWS`; issue 16, item 1):

- ``table``, for players, the fight as it stands: the live timeline only (no
  undone or rewound-away entries, no undo, redo or rewind lines), each amend
  as one line (``GM amended c264 (step 2.3): parry instead of dodge``,
  without the notes on the commands it replayed), exchanges numbered 1, 2,
  3 ... in play order, the roster without combatants whose join was undone,
  and a final block "As it stands" (the result or winner, each combatant's
  status, HP per location and conditions; for a round range, only when it
  reaches the current round). For jsonl, the table view is the live events
  alone (no meta events, nothing undone or rewound away), each with its
  whole envelope: data for a reader, not an import (the versions have gaps,
  so ``affray import`` refuses it);
- ``record``, the full trail: every entry, retracted and rewound ones struck
  through, so the record of a mistake survives its correction. jsonl's
  record view is the lossless log that ``affray import`` reads back.

``footer`` closes every format but jsonl with the dice seed commitment (the
whole SHA-256) and the log's head (version and hash); jsonl needs none (its
first line holds the commitment and every line its hash). ``affray export``
always writes the footer, and defaults to ``--view table`` (``record`` for
jsonl, whose default must stay the importable whole log); this API
defaults to the record view without a footer, the output it has always
given (the golden files in ``tests/golden`` pin it byte for byte). Every
format can be limited to an inclusive round range and leaves secret GM notes
out unless ``show_secret``. Every piece of text a user or a sheet supplied
goes through :func:`affray.text.safe_line` (no control, escape or bidi
character, no line break) before a format marks it up.

- ``markdown``: GitHub-flavoured (:mod:`affray.views.formats.markdown`);
- ``bbcode``: forums, ``[b]``, ``[i]``, ``[s]``, ``[table]``, in posts of at
  most ``limit`` characters (default 20,000), split at round boundaries,
  each after a line ``--- post N ---`` when there is more than one
  (:mod:`~affray.views.formats.bbcode`);
- ``discord``: messages of at most ``limit`` characters (default 2,000),
  each after a line ``--- message N ---`` (:mod:`~affray.views.formats.discord`);
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
from affray.views.formats import VIEWS

FORMATS = ("markdown", "bbcode", "discord", "html", "jsonl")
#: The formats whose output is cut into posts or messages of ``limit`` characters.
LIMITED = ("bbcode", "discord")


def default_view(fmt: str) -> str:
    """The view ``affray export`` uses for ``fmt`` unless told: ``record``
    for jsonl (an import format: its default is the whole log), ``table``
    for the others."""
    return "record" if fmt == "jsonl" else "table"


def _module(fmt: str):
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return importlib.import_module(f"affray.views.formats.{fmt}")


def _renderer(fmt: str):
    return _module(fmt).render


def _options(fmt: str, view: str, footer: bool, limit: int | None) -> dict:
    if view not in VIEWS:
        raise ValueError(f"unknown export view {view!r}; choose one of {', '.join(VIEWS)}")
    kw: dict = {"view": view}
    if fmt != "jsonl":
        kw["footer"] = footer
    if limit is not None:
        if fmt not in LIMITED:
            raise ValueError(f"a limit applies to {' and '.join(LIMITED)} only, not {fmt}")
        if limit < 1:
            raise ValueError(f"a limit is a positive number of characters, got {limit}")
        kw["limit"] = limit
    return kw


def export(
    records,
    fmt: str,
    rounds: tuple[int, int] | None = None,
    show_secret: bool = False,
    *,
    view: str = "record",
    footer: bool = False,
    limit: int | None = None,
) -> str:
    """Render ``records`` (one encounter, in version order: a list of
    records, or a :class:`~affray.views.formats.common.Source`) in ``fmt``.

    ``rounds`` is an inclusive ``(first, last)`` span (round 0 is the setup
    before round 1); ``show_secret`` keeps secret GM notes; ``view`` is
    ``record`` or ``table`` and ``footer`` adds the seed commitment and head
    (see the module docstring); ``limit`` is the most characters in one
    bbcode post or discord message (``None``: the format's default). Raises
    ``ValueError`` for a format not in :data:`FORMATS`, a view not in
    :data:`VIEWS`, or a limit for another format or below 1.
    """
    buf = io.StringIO()
    write(records, fmt, buf, rounds=rounds, show_secret=show_secret, view=view, footer=footer, limit=limit)
    return buf.getvalue()


def write(
    records,
    fmt: str,
    out,
    *,
    rounds: tuple[int, int] | None = None,
    show_secret: bool = False,
    view: str = "record",
    footer: bool = False,
    limit: int | None = None,
) -> None:
    """:func:`export`, written to ``out`` (anything with ``write(str)``) as
    it is rendered, in one walk of the log."""
    from affray.views.formats.common import source_of

    mod = _module(fmt)
    mod.write(source_of(records), out, rounds=rounds, show_secret=show_secret, **_options(fmt, view, footer, limit))


def export_store(
    store,
    encounter_id: str,
    fmt: str,
    out,
    *,
    rounds: tuple[int, int] | None = None,
    show_secret: bool = False,
    progress: Callable[[int], None] | None = None,
    view: str = "record",
    footer: bool = False,
    limit: int | None = None,
) -> None:
    """Export ``encounter_id`` from ``store`` to ``out``, streaming: the
    title, roster and meta events (undo, redo, rewind) are read first
    through the type index, then the log is walked once and written block by
    block, so memory stays flat however long the fight. ``progress`` is
    called with the version reached as the walk goes (for a progress bar).
    ``view``, ``footer`` and ``limit`` as for :func:`export`."""
    from affray.views.formats.common import Source

    mod = _module(fmt)
    kw = _options(fmt, view, footer, limit)
    mod.write(Source.from_store(store, encounter_id, progress=progress), out, rounds=rounds, show_secret=show_secret, **kw)


def markdown(records: list[Recorded], *, rounds: tuple[int, int] | None = None, show_secret: bool = False) -> str:
    """GitHub-flavoured markdown (see :mod:`affray.views.formats.markdown`)."""
    return export(records, "markdown", rounds, show_secret)


def jsonl(records: list[Recorded], *, rounds: tuple[int, int] | None = None, show_secret: bool = False) -> str:
    """One event per line with its envelope (see :mod:`affray.views.formats.jsonl`)."""
    return export(records, "jsonl", rounds, show_secret)
