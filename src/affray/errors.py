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
