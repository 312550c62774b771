"""The one base of every error a user can cause.

``str(error)`` is one line saying what was wrong and what to do; the CLI
prints it as ``error: ...`` and exits with ``exit_code`` (2 for bad input,
3 for a concurrency conflict). Nothing is appended when one is raised.
"""

from __future__ import annotations

import os
import stat


class AffrayError(Exception):
    """A user-facing error: one clear line, and the exit code to use."""

    exit_code = 2


class UserError(AffrayError):
    """A bad option value or argument on the command line; exit 2."""


class LogInconsistent(AffrayError):
    """A stored event that decodes but cannot be folded into the state
    before it (an event of a combatant who never joined...): the log was
    edited behind affray's back, or written by a buggy affray."""

    def __init__(self, version: int, event_type: str, exc: BaseException) -> None:
        self.version, self.event_type = version, event_type
        detail = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        super().__init__(
            f"the log does not replay at version {version} ({event_type}: {detail}); "
            "it may have been edited: run 'affray verify'"
        )


def not_utf8(exc: UnicodeEncodeError) -> str:
    """The one line for text that cannot be stored: bytes that are not UTF-8
    reach Python's ``sys.argv`` (and the environment) as lone surrogates,
    which neither JSON nor SQLite can hold."""
    bad = exc.object[exc.start:exc.end] if isinstance(exc.object, str) else ""
    start = max(0, exc.start - 20) if isinstance(exc.object, str) else 0
    shown = exc.object[start:exc.end + 20] if isinstance(exc.object, str) else ""
    where = f"{bad!r}" if shown == bad else f"{shown!r}: {bad!r}"
    return f"{where} is not UTF-8 text; type it again in UTF-8"


def file_suffix(path) -> str:  # noqa: ANN001 - str or os.PathLike
    """The extension of the file ``path`` names (``".toml"``; ``""`` for
    none), exactly as :attr:`pathlib.PurePath.suffix` gives it: the last
    name of the path (trailing ``/`` and ``.`` parts dropped), from its last
    dot, when that dot is neither its first nor its last character. Without
    importing :mod:`pathlib`, which with ``urllib.parse`` and ``ipaddress``
    costs about 3 ms of every command (the sheet and table readers ask this)."""
    parts = [part for part in os.fspath(path).split(os.sep) if part not in ("", ".")]
    name = parts[-1] if parts else ""
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def file_stem(path) -> str:  # noqa: ANN001 - str or os.PathLike
    """The last name of ``path`` without its :func:`file_suffix`, exactly as
    :attr:`pathlib.PurePath.stem` gives it (``"sample-slash"`` for
    ``data/sample-slash.toml``)."""
    parts = [part for part in os.fspath(path).split(os.sep) if part not in ("", ".")]
    name = parts[-1] if parts else ""
    suffix = file_suffix(name)
    return name[: -len(suffix)] if suffix else name


def special_file(path) -> str:  # noqa: ANN001 - str or os.PathLike
    """How ``path`` is not a regular file: ``"a folder"``, ``"a FIFO (named
    pipe)"``, ``"a socket"``, ``"a device"``; ``""`` for a regular file, a
    missing path or one that cannot be looked at (whoever opens it says why).
    Every reader of a file a user names asks this first: opening a FIFO waits
    for a writer for ever, and a device such as ``/dev/zero`` never ends."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError, TypeError):
        return ""
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"
