"""Verbs of time travel and of asking the log questions: rewind, branch,
amend, why, replay, audit.

Add them to the app with ``travel.register(app)`` (idempotent). ``rewind``,
``branch`` and ``amend`` forward to their bodies in
:mod:`affray.cli.fight_verbs`, ``why``, ``replay`` and ``audit`` to theirs
in :mod:`affray.cli.read_verbs` (which the fast dispatcher,
:mod:`affray.cli.dispatch`, calls too).
"""

from __future__ import annotations

from typing import Optional

import typer

from affray.cli import fight_verbs, read_verbs
from affray.cli.common import forward, handles_errors

VERBS = ("rewind", "branch", "amend", "why", "replay", "audit")



def register(app: typer.Typer) -> None:
    """Add the time-travel verbs to ``app`` (a second call does nothing)."""
    if any(getattr(c, "name", None) == "rewind" for c in app.registered_commands):
        return

    @app.command("rewind")
    @handles_errors
    def rewind(
        ctx: typer.Context,
        to: str = typer.Option("", "--to", help="ROUND.STEP (just after that step) or ROUND (after the command that ended it)."),
        version: int = typer.Option(0, "--version", help="A log version at a command boundary ('affray log' shows them)."),
    ):
        """Void everything after a point of the fight; it stays in the log, struck through.

        The state afterwards is exactly the state at that point: conditions,
        actions spent and pending steps as they were. Engine dice re-derive
        the same values; every command issued where a voided one stood must
        roll the dice it rolled (or pass --reroll REASON, which is logged).

        Example: affray rewind --to 1.2
        """
        forward(ctx, fight_verbs.rewind, locals())

    @app.command("branch")
    @handles_errors
    def branch(
        ctx: typer.Context,
        name: str = typer.Argument(..., help="The new encounter's name (its id comes from it)."),
        at: str = typer.Option("", "--at", help="ROUND.STEP or ROUND to branch at (default: now)."),
        version: int = typer.Option(0, "--version", help="A log version at a command boundary to branch at."),
        encounter_id: str = typer.Option("", "--id", help="The new encounter's id (default: from the name)."),
    ):
        """Start a new encounter from a prefix of this one, for a what-if.

        The live commands up to that point are copied (same data, new hashes);
        the new encounter has the same seed commitment, rulings and engine
        dice, so a roll re-derives as in the original. The original is not
        touched. Commands without --encounter then act on the branch (the
        newest open encounter).

        Example: affray branch "what if she dodged" --at 1.2
        """
        forward(ctx, fight_verbs.branch, locals())

    @app.command("amend")
    @handles_errors
    def amend(
        ctx: typer.Context,
        target: str = typer.Argument(..., help="The command to amend: ROUND.STEP (like 1.3) or its id (like c42)."),
        mod: Optional[list[str]] = typer.Option(None, "--mod", help="Add a modifier with its reason, e.g. '-20:unstable ground' (repeatable)."),
        situation: Optional[list[str]] = typer.Option(None, "--situation", help="Add a named situation (repeatable)."),
        reaction: str = typer.Option("", "--reaction", help="For a react command: parry, dodge or none instead."),
        target_combatant: str = typer.Option("", "--target", help="For an attack: attack this combatant instead."),
        weapon: str = typer.Option("", "--weapon", help="For an attack, the weapon; for a parry, the item parried with."),
        dice: str = typer.Option("", "--dice", help="New table dice for the amended command (needs --reroll if they differ)."),
        reroll: str = typer.Option("", "--reroll", help="Why the amended command rolls anew (logged)."),
        replay: bool = typer.Option(False, "--replay", help="Re-issue the later commands with their recorded dice."),
        on_branch: str = typer.Option("", "--on-branch", help="Branch first under this name and amend there."),
    ):
        """Issue a command again with a change; the later commands are rewound
        (kept in the log), and with --replay issued again with their recorded dice.

        A replay stops at the first command that no longer fits, saying which
        and why; everything recorded up to there stands.

        Example: affray amend 1.3 --mod "-20:Broo stands in the river" --replay
        """
        forward(ctx, fight_verbs.amend, locals())

    @app.command("why")
    @handles_errors
    def why(
        ctx: typer.Context,
        combatant: str = typer.Argument(..., help="Who (handle or name prefix)."),
        subject: str = typer.Argument("", help="A hit location (chest) or a condition (unconscious, lost-actions)."),
        json: bool = typer.Option(False, "--json", help="Machine-readable output (fields in affray/views/why.py)."),
    ):
        """Explain a condition or a wound: the chain of events from now back to the attack.

        Each roll shows its source (engine roll #N, or table dice and who
        typed them), each modifier its reason, and the rulings that mattered.

        Example: affray why broo1 unconscious
        """
        forward(ctx, read_verbs.why, locals())

    @app.command("replay")
    @handles_errors
    def replay(
        ctx: typer.Context,
        round_no: int = typer.Option(..., "--round", help="The round to replay."),
        json: bool = typer.Option(False, "--json", help="Machine-readable output (fields in affray/views/why.py)."),
    ):
        """Show a round step by step: who did what, the readable lines and every roll with its source.

        Example: affray replay --round 1
        """
        forward(ctx, read_verbs.replay, locals())

    @app.command("audit")
    @handles_errors
    def audit(
        ctx: typer.Context,
        json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    ):
        """Re-derive every recorded decision with today's rules and list where the log differs.

        A report only: the log is never changed. Differences come from rules
        fixed since the fight, changed tables, rulings no command makes, or
        a decision taken from a forged snapshot. Exit 1 when any differs.

        Example: affray audit
        """
        forward(ctx, read_verbs.audit, locals())
