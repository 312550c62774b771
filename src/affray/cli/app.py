"""The ``affray`` command line: one Typer app, verbs in the game's words.

Global options: ``--db`` (``AFFRAY_DB``, default ``./affray.db``),
``--encounter`` (``AFFRAY_ENCOUNTER``, default the newest open encounter) and
``--as`` (``AFFRAY_ACTOR``, default the login name).
"""

from __future__ import annotations

import typer

from affray.cli import demo, fight, inspect
from affray.cli.common import Options, default_actor

app = typer.Typer(
    name="affray",
    help="Event-sourced combat log for d100 RPG fights: every roll and ruling on record.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def main_options(
    ctx: typer.Context,
    db: str = typer.Option("affray.db", "--db", envvar="AFFRAY_DB", help="SQLite file holding the encounters."),
    encounter: str = typer.Option("", "--encounter", "-e", envvar="AFFRAY_ENCOUNTER", help="Encounter id (default: newest open)."),
    actor: str = typer.Option("", "--as", help="Who issues the command (default: AFFRAY_ACTOR or the login name)."),
):
    """affray: run a d100 fight as an immutable, replayable event log."""
    ctx.obj = Options(db=db, encounter=encounter or None, actor=actor or default_actor())


fight.register(app)
inspect.register(app)
demo.register(app)


def main() -> None:
    """Console-script entry point."""
    app()
