"""What every CLI verb shares: global options, error handling, output.

User errors print ``error: <one line>`` on stderr and exit 2; a concurrency
conflict exits 3 (DESIGN.md, "CLI conventions"). Heavy modules are imported
inside functions so that ``affray --help`` and read verbs start fast.
"""

from __future__ import annotations

import functools
import getpass
import os
import sys
from dataclasses import dataclass

import typer

from affray.errors import AffrayError, UserError  # noqa: F401  (UserError is re-exported)


@dataclass
class Options:
    """Global options: database path, encounter id, actor."""

    db: str = "affray.db"
    encounter: str | None = None
    actor: str = ""


def options(ctx: typer.Context) -> Options:
    """The global options of this invocation."""
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Options) else Options()


def default_actor() -> str:
    """``AFFRAY_ACTOR``, else the login name, else ``gm``."""
    try:
        return os.environ.get("AFFRAY_ACTOR") or getpass.getuser() or "gm"
    except Exception:  # no login name in some containers
        return "gm"




def fail(message: str, code: int = 2) -> None:
    """Print ``error: message`` on stderr and exit with ``code``."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def handles_errors(fn):
    """Turn every user-facing error into one line and an exit code."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except AffrayError as exc:
            text = str(exc).strip()
            fail(text.splitlines()[0] if text else type(exc).__name__, exc.exit_code)
        except KeyboardInterrupt:
            fail("interrupted; nothing was recorded for the unfinished command", 130)
        except UnicodeEncodeError as exc:  # undecodable bytes typed on the command line
            from affray.errors import not_utf8

            fail(not_utf8(exc))
        except ValueError as exc:  # open() and sqlite3.connect() of a path with a NUL byte
            if "embedded null" not in str(exc):
                raise
            fail("a file name holds a NUL byte, which no file system allows; remove it and try again")

    return wrapper


def open_store(opts: Options, *, must_exist: bool = True, readonly: bool = False):
    """Open the event store at ``opts.db``."""
    from affray.cli.show import open_event_store

    return open_event_store(opts.db, must_exist=must_exist, readonly=readonly)


def parse_mods(values: list[str] | None):
    """``--mod "-20:unstable ground"`` values as modifiers with reasons."""
    from affray.events.core import Modifier
    from affray.rules.d100 import parse_modifier

    mods = []
    for text in values or []:
        try:
            value, reason = parse_modifier(text)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        mods.append(Modifier(value, reason))
    return tuple(mods)


def run(ctx: typer.Context, command, *, dice: str = "", quiet: bool = False, reroll: str = "", salt: str = ""):
    """Execute ``command`` against the current encounter and print what
    happened and what the table waits for next."""
    from affray.commands.handler import execute

    opts = options(ctx)
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
        text = narrate(rec.event, names)
        if text:
            typer.echo(text)
    print_waiting(outcome.state)


def print_waiting(state) -> None:
    """``Waiting for: ...`` lines for the pending steps."""
    for step in state.pending:
        dice = ", ".join(f"{d.expr} ({d.purpose})" for d in step.dice)
        typer.echo(f"Waiting for: {step.prompt}" + (f"  [dice: {dice}]" if dice else ""))
    if state.phase == "over":
        typer.echo("The fight is over. 'affray close' reveals the dice seed; 'affray export' writes the log.")


def echo_json(data) -> None:
    """Print ``data`` as JSON on stdout."""
    import msgspec

    sys.stdout.write(msgspec.json.encode(data).decode() + "\n")
