"""What every CLI verb shares, without the CLI framework: the global
options, printing, the one-line error of an exception, running a command.

Both ways into a verb use this module: the Typer app (:mod:`affray.cli.app`,
through :mod:`affray.cli.common`) and the fast dispatcher
(:mod:`affray.cli.dispatch`), which answers the common verbs without
importing typer (60–100 ms of imports). Nothing here imports typer, rich or
sqlite-utils; heavier modules are imported where a verb first needs them.

User errors print ``error: <one line>`` on stderr and exit 2; a concurrency
conflict exits 3 (DESIGN.md, "CLI conventions").
"""

from __future__ import annotations

import os
import sys

from affray.errors import AffrayError, UserError
from affray.cli.term import color
from affray.text import escape_json, safe_line, safe_lines

__all__ = [
    "Options", "UserError", "color", "default_actor", "echo", "echo_json", "error_of", "open_store", "parse_mods",
    "print_waiting", "report", "run", "styled",
]



class Options:
    """Global options: database path, encounter id (None: the newest open
    one), actor, and ``no_color`` (``--no-color``: no colour or styling even
    on a terminal; see :func:`color`)."""

    __slots__ = ("db", "encounter", "actor", "no_color")

    def __init__(
        self, db: str = "affray.db", encounter: str | None = None, actor: str = "", no_color: bool = False
    ) -> None:
        self.db, self.encounter, self.actor, self.no_color = db, encounter, actor, no_color

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Options) and (self.db, self.encounter, self.actor, self.no_color) == (
            other.db, other.encounter, other.actor, other.no_color
        )

    def __repr__(self) -> str:
        return (
            f"Options(db={self.db!r}, encounter={self.encounter!r}, actor={self.actor!r}, "
            f"no_color={self.no_color!r})"
        )


def default_actor() -> str:
    """``AFFRAY_ACTOR``, else the login name, else ``gm``."""
    if os.environ.get("AFFRAY_ACTOR"):
        return os.environ["AFFRAY_ACTOR"]  # before getpass, whose import (termios) a named actor does not need
    try:
        import getpass

        return getpass.getuser() or "gm"
    except Exception:  # no login name in some containers
        return "gm"


def echo(text: str = "", *, err: bool = False, nl: bool = True, block: bool = False) -> None:
    """Print the line ``text`` and a newline (unless ``nl=False``), flushed
    at once.

    ``text`` passes :func:`affray.text.safe_line` first: control characters,
    escape sequences (ANSI, OSC), bidi overrides and line breaks that a name,
    note, sheet or imported log carries are removed or shown escaped, and a
    line break becomes `` / ``, so nothing printed can rewrite the terminal
    or forge a line (issue 16, item 4). ``block=True`` prints a block of
    lines the caller built line by line (each made safe the same way,
    :func:`affray.text.safe_lines`). Styling goes through :func:`styled`."""
    stream = sys.stderr if err else sys.stdout
    text = safe_lines(text) if block else safe_line(text)
    if nl:
        text += "\n"
    if text:
        stream.write(text)
    stream.flush()


def styled(opts: Options | None, text: str, style: str, *, err: bool = False) -> None:
    """Print the line ``text`` in a rich ``style`` (``"bold red"``) where
    :func:`color` allows it, else plain, as :func:`echo` does. Rich is
    imported only for a terminal that takes colour."""
    stream = sys.stderr if err else sys.stdout
    if not color(opts, stream):
        echo(text, err=err)
        return
    text = safe_line(text)
    from rich.console import Console
    from rich.text import Text

    Console(file=stream, highlight=False, soft_wrap=True).print(Text(text, style=style))


def echo_json(data) -> None:
    """Print ``data`` as JSON on stdout, its C1 and bidi characters written
    as ``\\uXXXX`` escapes (:func:`affray.text.escape_json`: the same
    values, safe on a terminal)."""
    import msgspec

    sys.stdout.write(escape_json(msgspec.json.encode(data).decode()) + "\n")


def error_of(exc: BaseException) -> tuple[str, int] | None:
    """The one line (without ``error:``) and the exit code a user sees for
    ``exc``, or None for an exception that is a bug (to be raised on)."""
    if isinstance(exc, AffrayError):
        text = str(exc).strip()
        return (text.splitlines()[0] if text else type(exc).__name__), exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted; nothing was recorded for the unfinished command", 130
    if isinstance(exc, UnicodeEncodeError):  # undecodable bytes typed on the command line
        from affray.errors import not_utf8

        return not_utf8(exc), 2
    if isinstance(exc, ValueError) and "embedded null" in str(exc):
        # open() and sqlite3.connect() of a path with a NUL byte
        return "a file name holds a NUL byte, which no file system allows; remove it and try again", 2
    return None


def open_store(opts: Options, *, must_exist: bool = True, readonly: bool = False):
    """Open the event store at ``opts.db``."""
    from affray.cli.show import open_event_store

    return open_event_store(opts.db, must_exist=must_exist, readonly=readonly)


def parse_mods(values) -> tuple:
    """``--mod "-20:unstable ground"`` values as modifiers with reasons
    (:func:`affray.commands.core.parse_modifiers`)."""
    if not values:
        return ()
    from affray.commands.core import parse_modifiers

    return parse_modifiers(values)


def run(opts: Options, command, *, dice: str = "", quiet: bool = False, reroll: str = "", salt: str = ""):
    """Execute ``command`` against the current encounter and print what
    happened and what the table waits for next; the outcome."""
    from affray.commands.handler import execute

    with open_store(opts) as store:
        outcome = execute(
            store, command, encounter_id=opts.encounter, dice=dice or "", actor=opts.actor, reroll=reroll, salt=salt
        )
    if not quiet:
        report(outcome)
    return outcome


def report(outcome) -> None:
    """Print the narration of the new events and the pending steps."""
    from affray.events.core import DiceRolled
    from affray.views.narrate import narrate

    names = {h: c.name for h, c in outcome.state.combatants.items()}
    for rec in outcome.records:
        if isinstance(rec.event, DiceRolled):
            continue
        text = narrate(rec.event, names, outcome.state.system)
        if text:
            echo(text)
    print_waiting(outcome.state)


def print_waiting(state) -> None:
    """``Waiting for: ...`` lines for the pending steps."""
    for step in state.pending:
        dice = ", ".join(f"{d.expr} ({d.purpose})" for d in step.dice)
        echo(f"Waiting for: {step.prompt}" + (f"  [dice: {dice}]" if dice else ""))
    if state.phase == "over":
        echo("The fight is over. 'affray close' reveals the dice seed; 'affray export' writes the log.")
