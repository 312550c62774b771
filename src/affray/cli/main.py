"""The ``affray`` console script.

The common verbs (:data:`affray.cli.dispatch.VERBS`: every fight verb and
the reads) are answered by :mod:`affray.cli.dispatch` without importing the
CLI framework: typer alone costs 60–100 ms to import, more than the whole
command. ``--help``, shell completion, errors of the command line and every
form the dispatcher does not recognise go to the Typer app, which defines
the full interface (:mod:`affray.cli.app`); both run the same verb bodies
and print the same text. A help page or a refused command line that Typer
printed before, in the same conditions, is printed again from the help
cache without importing Typer (:mod:`affray.cli.helpcache`).
"""

from __future__ import annotations

import gc
import os
import sys

#: Allocations of container objects between two young collections of the
#: cyclic garbage collector in the console script (Python's default: 700).
YOUNG_COLLECTION_AFTER = 50_000


def main() -> None:
    """Entry point of the ``affray`` command.

    The collector runs its young collection every
    :data:`YOUNG_COLLECTION_AFTER` allocations rather than every 700: a
    command's imports allocate tens of thousands of objects that live until
    the end (functions, classes, msgspec's type information), and the
    default threshold traversed them again and again, including a few full
    collections, about 3 ms of CPU of a fight verb. Garbage held in cycles is
    still collected, after at most that many allocations, so a walk over a
    long log keeps its memory flat.
    """
    gc.set_threshold(YOUNG_COLLECTION_AFTER, *gc.get_threshold()[1:])
    from affray.cli.dispatch import answer

    argv = sys.argv[1:]
    code = answer(argv)
    if code is not None:
        leave(code)
    from affray.cli.helpcache import record, replay

    code = replay(argv)
    if code is not None:
        leave(code)
    from affray.cli.app import main as full
    from typer.core import TyperCommand

    record(argv, full, TyperCommand.context_class)


def leave(code: int) -> None:
    """End the process with exit status ``code`` once stdout and stderr are
    flushed, without the interpreter's teardown.

    The teardown (clearing every module's namespace, then a last collection
    of the cyclic garbage collector over everything the imports made) costs
    about 9 ms of CPU after a fight verb, an eighth of the whole command, and
    does nothing a finished verb needs: the verb has closed its store (every
    command commits, or rolls back, inside its ``with`` block) and writes
    only to stdout and stderr, flushed here. A reader that went away
    (``affray log | head``) is not an error: the unflushed rest is dropped,
    as the fast path does for a write (:func:`affray.cli.read_verbs.quiet_stdout`).
    Only the console script's fast path calls this, never the in-process
    :func:`affray.cli.dispatch.answer` that tests call.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or a closed stream: nothing more can be shown
            pass
    os._exit(code)
