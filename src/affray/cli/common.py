"""What every Typer verb shares: the global options from the context, and
the decorator that turns an error into one line and an exit code.

The framework-free part (printing, errors, running a command) is
:mod:`affray.cli.core`, shared with the fast dispatcher
(:mod:`affray.cli.dispatch`); its names are re-exported here. User errors
print ``error: <one line>`` on stderr and exit 2; a concurrency conflict
exits 3 (DESIGN.md, "CLI conventions").
"""

from __future__ import annotations

import functools

import typer

from affray.cli import core
from affray.cli.core import (  # noqa: F401  (re-exported for the verb modules)
    Options,
    UserError,
    default_actor,
    echo,
    echo_json,
    open_store,
    parse_mods,
    print_waiting,
    report,
    styled,
)
from affray.errors import AffrayError  # noqa: F401  (re-exported)


def options(ctx: typer.Context) -> Options:
    """The global options of this invocation."""
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Options) else Options()


def fail(message: str, code: int = 2) -> None:
    """Print ``error: message`` on stderr and exit with ``code``."""
    echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def handles_errors(fn):
    """Turn every user-facing error into one line and an exit code
    (:func:`affray.cli.core.error_of`); anything else is a bug and raises."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (Exception, KeyboardInterrupt) as exc:
            if isinstance(exc, typer.Exit):
                raise
            shown = core.error_of(exc)
            if shown is None:
                raise
            fail(*shown)

    return wrapper


def forward(ctx: typer.Context, verb, params: dict):
    """Call the framework-free body of a verb, ``verb(options, **params)``,
    with every parameter of the Typer command but the context (pass
    ``locals()``), and exit with the code it returns, if any. The fast
    dispatcher calls the same body with the same names."""
    code = verb(options(ctx), **{k: v for k, v in params.items() if k != "ctx"})
    if code:
        raise typer.Exit(code)


def run(ctx: typer.Context, command, *, dice: str = "", quiet: bool = False, reroll: str = "", salt: str = ""):
    """Execute ``command`` against the current encounter and print what
    happened and what the table waits for next (:func:`affray.cli.core.run`)."""
    return core.run(options(ctx), command, dice=dice, quiet=quiet, reroll=reroll, salt=salt)
