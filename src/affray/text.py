"""Text that users and sheets supply, made safe to print on one line.

Shared by every layer (rules' error messages, views, exports), so it sits at
the bottom beside :mod:`affray.errors` and imports nothing of ours.
"""

from __future__ import annotations

__all__ = ["one_line"]


def one_line(text: str) -> str:
    """``text`` with newlines and every other non-printable character
    escaped as Python would write it (``\\n``, ``\\x1b``), so a key, name or
    file name inside a message cannot break it over lines or send control
    sequences to a terminal. Shape: ``str -> str``; never raises."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
