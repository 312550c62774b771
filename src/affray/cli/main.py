"""The ``affray`` console script.

``affray state`` and ``affray pending`` (with ``--json`` or not, and the
global ``--db``/``--encounter``/``--as``) are answered without importing
the CLI framework: typer alone costs 60–100 ms to import, more than the
whole read. Every other invocation, and any form this fast path does not
recognise, goes to the Typer app, which defines the full interface
(:mod:`affray.cli.app`); both paths print the same text through
:mod:`affray.cli.show`.
"""

from __future__ import annotations

import os
import sys

_VALUE_OPTIONS = {"--db": "db", "--encounter": "encounter", "-e": "encounter", "--as": "actor"}
_FAST_VERBS = ("state", "pending")


def _fast(argv: list[str]) -> int | None:
    """Answer a plain ``state``/``pending`` read; None for anything else."""
    values = {"db": os.environ.get("AFFRAY_DB") or "affray.db", "encounter": os.environ.get("AFFRAY_ENCOUNTER") or ""}
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        name, eq, value = argv[i].partition("=")
        key = _VALUE_OPTIONS.get(name)
        if key is None:
            return None
        if not eq:
            if i + 1 >= len(argv):
                return None
            value = argv[i + 1]
            i += 1
        values[key] = value
        i += 1
    rest = argv[i:]
    if not rest or rest[0] not in _FAST_VERBS or any(a != "--json" for a in rest[1:]):
        return None
    _without_typing_extensions()
    from affray.cli import show
    from affray.errors import AffrayError

    try:
        state = show.load_for_read(values["db"], values["encounter"] or None)
        render = show.state_text if rest[0] == "state" else show.pending_text
        sys.stdout.write(render(state, json="--json" in rest[1:]))
    except AffrayError as exc:
        text = str(exc).strip()
        sys.stderr.write(f"error: {text.splitlines()[0] if text else type(exc).__name__}\n")
        return exc.exit_code
    except UnicodeEncodeError as exc:  # undecodable bytes typed on the command line
        from affray.errors import not_utf8

        sys.stderr.write(f"error: {not_utf8(exc)}\n")
        return 2
    return 0


def _without_typing_extensions() -> None:
    """Let msgspec load without ``typing_extensions``.

    msgspec imports it, if installed (typer needs it), only to read that
    module's ``Required``/``NotRequired`` and ``get_type_hints``; affray's
    structs use neither, and the import drags in ``inspect``, ``ast`` and
    ``dis``: about 10 ms of the fast path. A ``None`` entry in
    ``sys.modules`` makes msgspec fall back to :mod:`typing`. Only when
    msgspec is not loaded yet; the entry is removed again at once, so a later
    import of ``typing_extensions`` (by typer) works as usual.
    """
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]
    try:
        import msgspec  # noqa: F401
    finally:
        if sys.modules.get("typing_extensions", 0) is None:
            del sys.modules["typing_extensions"]


def main() -> None:
    """Entry point of the ``affray`` command."""
    code = _fast(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from affray.cli.app import main as full

    full()
