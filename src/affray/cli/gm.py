"""The GM's ruling verbs: set, heal, out, end, ruling (issue 16, item 2).

Each Typer command defines its verb's interface and forwards every
parameter by name to the body of the same name in
:mod:`affray.cli.gm_verbs`, which the fast dispatcher calls too. Every
ruling is an event with the GM's reason, undone with 'affray undo'."""

from __future__ import annotations

import typer

from affray.cli import gm_verbs
from affray.cli.common import forward, handles_errors

REASON_HELP = "Why the GM rules so (on record with the ruling)."


def register(app: typer.Typer) -> None:
    """Add the GM's ruling verbs to ``app``."""

    @app.command("set")
    @handles_errors
    def set_(
        ctx: typer.Context,
        who: str = typer.Argument(..., help="The combatant (handle or name prefix)."),
        field: str = typer.Argument(..., help="What to set: hp."),
        location: str = typer.Argument(..., help="The hit location (see 'affray state')."),
        hp: str = typer.Argument(..., help="The HP it now has (may be negative)."),
        reason: str = typer.Option(..., "--reason", help=REASON_HELP),
    ):
        """Set a location's HP by the GM's ruling.

        Example: affray set broo1 hp chest 2 --reason "the healing potion was weak"
        """
        forward(ctx, gm_verbs.set_, locals())

    @app.command()
    @handles_errors
    def heal(
        ctx: typer.Context,
        who: str = typer.Argument(..., help="The combatant (handle or name prefix)."),
        location: str = typer.Argument("", help="The hit location (default: every location)."),
        amount: str = typer.Argument("", help="HP to restore (default: up to the maximum)."),
        reason: str = typer.Option(..., "--reason", help=REASON_HELP),
    ):
        """Restore HP by the GM's ruling: N HP to a location, a location to its maximum, or all.

        Example: affray heal vasana "left leg" 3 --reason "healing draught"
        """
        forward(ctx, gm_verbs.heal, locals())

    @app.command()
    @handles_errors
    def out(
        ctx: typer.Context,
        who: str = typer.Argument(..., help="The combatant (handle or name prefix)."),
        how: str = typer.Argument(..., help="fled, surrendered, removed or dead."),
        reason: str = typer.Option(..., "--reason", help=REASON_HELP),
    ):
        """Rule a combatant out of the fight; the last side standing wins.

        Example: affray out broo2 fled --reason "morale broke after broo1 fell"
        """
        forward(ctx, gm_verbs.out, locals())

    @app.command()
    @handles_errors
    def end(
        ctx: typer.Context,
        winner: str = typer.Option(..., "--winner", help="The winning side, or draw."),
        reason: str = typer.Option(..., "--reason", help=REASON_HELP),
    ):
        """End the fight by the GM's ruling.

        Example: affray end --winner heroes --reason "the broo fled into the woods"
        """
        forward(ctx, gm_verbs.end, locals())

    @app.command()
    @handles_errors
    def ruling(
        ctx: typer.Context,
        assignment: str = typer.Argument(..., help="NAME=VALUE, a ruling of 'affray rulings'."),
        reason: str = typer.Option(..., "--reason", help=REASON_HELP),
    ):
        """Change a named ruling from this point of the fight on.

        Example: affray ruling parry_reduction=full --reason "house rule agreed at the table"
        """
        forward(ctx, gm_verbs.ruling, locals())
