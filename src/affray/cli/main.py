"""The ``affray`` console script.

The common verbs (:data:`affray.cli.dispatch.VERBS`: every fight verb and
the reads) are answered by :mod:`affray.cli.dispatch` without importing the
CLI framework: typer alone costs 60–100 ms to import, more than the whole
command. ``--help``, shell completion, errors of the command line and every
form the dispatcher does not recognise go to the Typer app, which defines
the full interface (:mod:`affray.cli.app`); both run the same verb bodies
and print the same text.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Entry point of the ``affray`` command."""
    from affray.cli.dispatch import answer

    code = answer(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from affray.cli.app import main as full

    full()
