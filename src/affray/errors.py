"""The one base of every error a user can cause.

``str(error)`` is one line saying what was wrong and what to do; the CLI
prints it as ``error: ...`` and exits with ``exit_code`` (2 for bad input,
3 for a concurrency conflict). Nothing is appended when one is raised.
"""

from __future__ import annotations


class AffrayError(Exception):
    """A user-facing error: one clear line, and the exit code to use."""

    exit_code = 2


class UserError(AffrayError):
    """A bad option value or argument on the command line; exit 2."""


def not_utf8(exc: UnicodeEncodeError) -> str:
    """The one line for text that cannot be stored: bytes that are not UTF-8
    reach Python's ``sys.argv`` (and the environment) as lone surrogates,
    which neither JSON nor SQLite can hold."""
    bad = exc.object[exc.start:exc.end] if isinstance(exc.object, str) else ""
    start = max(0, exc.start - 20) if isinstance(exc.object, str) else 0
    shown = exc.object[start:exc.end + 20] if isinstance(exc.object, str) else ""
    where = f"{bad!r}" if shown == bad else f"{shown!r}: {bad!r}"
    return f"{where} is not UTF-8 text; type it again in UTF-8"
