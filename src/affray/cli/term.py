"""What the terminal takes: colour or not (issue 16, item 5).

At the bottom of the CLI (standard library only), so that the framework-free
core (:mod:`affray.cli.core`, which re-exports :func:`color`) and the views
for the terminal (:mod:`affray.cli.tables`) both use it without importing
each other.
"""

from __future__ import annotations

import os
import sys


def color(opts=None, stream=None) -> bool:
    """Whether to print colour and styling to ``stream`` (default stdout)
    for the global options ``opts`` (:class:`affray.cli.core.Options`):
    only to a terminal, never under ``--no-color``, a non-empty ``NO_COLOR``
    (https://no-color.org) or ``TERM=dumb``."""
    if opts is not None and opts.no_color:
        return False
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    stream = sys.stdout if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False
