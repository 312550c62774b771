"""The ``affray`` command line: one Typer app, verbs in the game's words.

Global options: ``--db`` (``AFFRAY_DB``, default ``./affray.db``),
``--encounter`` (``AFFRAY_ENCOUNTER``, default the newest open encounter) and
``--as`` (``AFFRAY_ACTOR``, default the login name).
"""

from __future__ import annotations

import sys

import typer
from typer.core import TyperGroup

from affray.cli import copylog, demo, fight, gm, inspect, transfer, travel
from affray.cli import sheetcheck, tablecheck
from affray.cli.common import Options, default_actor, echo

from typer import Abort

try:  # typer 0.27-0.28 vendors click
    from typer._click.exceptions import ClickException
except ImportError:  # pragma: no cover - a typer on plain click
    from click.exceptions import ClickException


class OneLineErrors(TyperGroup):
    """A usage error (missing argument, bad option value) is one line on
    stderr and exit 2, like every other user error (DESIGN.md, CLI)."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        from affray.cli.dispatch import hoist

        argv = hoist(list(sys.argv[1:] if args is None else args), self._value_options)
        try:
            rv = super().main(args=argv, prog_name=prog_name, complete_var=complete_var, standalone_mode=False, **extra)
        except ClickException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # bare 'affray': show the help
                typer.echo(exc.format_message())
                if standalone_mode:
                    sys.exit(0)
                return 0
            verb = next((a for a in argv if not a.startswith("-") and a in self.commands), "")
            hint = f"affray {verb} --help" if verb else "affray --help"
            echo(f"error: {exc.format_message().rstrip('.')}; see '{hint}'", err=True)
            if standalone_mode:
                sys.exit(exc.exit_code)
            raise
        except Abort:
            typer.echo("error: aborted; nothing was recorded", err=True)
            if standalone_mode:
                sys.exit(1)
            raise
        if standalone_mode:
            sys.exit(rv if isinstance(rv, int) else 0)
        return rv

    def _value_options(self, verb: str) -> set[str] | None:
        """The option strings of ``verb`` (of any subcommand, for a group
        such as ``tables``) that take a value; None for an unknown verb."""
        command = self.commands.get(verb)
        if command is None:
            return None
        commands = list(getattr(command, "commands", {}).values()) or [command]
        return {
            flag
            for c in commands
            for p in c.params
            if p.param_type_name == "option" and not getattr(p, "is_flag", False)
            for flag in p.opts + p.secondary_opts
        }


app = typer.Typer(
    cls=OneLineErrors,
    name="affray",
    help="Event-sourced combat log for d100 RPG fights: every roll and ruling on record.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion, --show-completion (bash, zsh, fish, PowerShell)
    pretty_exceptions_enable=False,
    # plain click help: the "rich" default imports rich (and, for markdown,
    # pygments) on every --help and every usage error, ~100 ms
    rich_markup_mode=None,
)


def version_text() -> str:
    """``affray X.Y.Z`` (the installed distribution's version)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"affray {version('affray')}"
    except PackageNotFoundError:  # pragma: no cover - run from a source tree without installing
        return "affray (version unknown: not installed)"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(version_text())
        raise typer.Exit(0)


@app.callback()
def main_options(
    ctx: typer.Context,
    db: str = typer.Option("affray.db", "--db", envvar="AFFRAY_DB", help="SQLite file holding the encounters, or a postgresql:// URL."),
    encounter: str = typer.Option("", "--encounter", "-e", envvar="AFFRAY_ENCOUNTER", help="Encounter id (default: newest open)."),
    actor: str = typer.Option("", "--as", help="Who issues the command (default: AFFRAY_ACTOR or the login name)."),
    no_color: bool = typer.Option(False, "--no-color", help="No colour or styling, even on a terminal (as NO_COLOR=1 does)."),
    version: bool = typer.Option(False, "--version", is_eager=True, expose_value=False, callback=_print_version,
                                 help="Print affray's version and exit."),
):
    """affray: run a d100 fight as an immutable, replayable event log.

    Global options may also come after the verb: affray verify -e ford.
    """
    ctx.obj = Options(db=db, encounter=encounter or None, actor=actor or default_actor(), no_color=no_color)


fight.register(app)
gm.register(app)
inspect.register(app)
demo.register(app)
travel.register(app)
transfer.register(app)
tablecheck.register(app)
copylog.register(app)
sheetcheck.register(app)


def main() -> None:
    """Console-script entry point."""
    app()
