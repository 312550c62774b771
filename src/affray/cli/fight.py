"""Verbs that change the fight: new, join, start, attack, react, roll,
choose, act, end-round, note, undo, redo, close."""

from __future__ import annotations

from typing import Optional

import typer

from affray.cli.common import UserError, handles_errors, options, parse_mods, run

REROLL_HELP = "Right after an undo: roll anew instead of repeating the undone dice, for this reason (logged)."
DICE_HELP = "Table dice, in the order 'affray pending' lists them (e.g. '71,34'; 00 is 100 on a d100)."
MOD_HELP = "Situational modifier with its reason, e.g. '-20:unstable ground' (repeatable)."
SIT_HELP = "A named situation from the system's table, e.g. unstable-ground (repeatable)."


def register(app: typer.Typer) -> None:
    """Add the fight verbs to ``app``."""

    @app.command()
    @handles_errors
    def new(
        ctx: typer.Context,
        name: str = typer.Argument(..., help="The encounter's display name."),
        system: str = typer.Option("mrq1", "--system", "-s", help="Rule system key or alias."),
        manual_dice: bool = typer.Option(False, "--manual-dice", help="Never roll for the table: every die must come from --dice."),
        ruling: Optional[list[str]] = typer.Option(None, "--ruling", help="A named ruling, NAME=VALUE (repeatable); see 'affray rulings'."),
        encounter_id: str = typer.Option("", "--id", help="Encounter id (default: from the name)."),
        seed: str = typer.Option("", "--seed", help="Dice seed as hex, for a reproducible fight (default: random)."),
    ):
        """Open a new encounter.

        Example: affray new "Ambush at the ford" --system mrq1
        """
        from affray.commands.handler import execute
        from affray.commands.types import OpenEncounter
        from affray.cli.common import open_store

        rulings = {}
        for item in ruling or []:
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise UserError(f"--ruling takes NAME=VALUE, got {item!r}; see 'affray rulings'")
            rulings[key.strip()] = value.strip()
        seed_bytes = None
        if seed:
            try:
                seed_bytes = bytes.fromhex(seed)
            except ValueError:
                raise UserError(f"--seed takes hex digits, got {seed!r}") from None
            if not seed_bytes:
                raise UserError("--seed must not be empty")
        from affray.rules import base

        base.get(system).rulings(rulings)  # refuse a bad system or ruling before creating a file
        opts = options(ctx)
        with open_store(opts, must_exist=False) as store:
            out = execute(
                store,
                OpenEncounter(name=name, system=system, manual_dice=manual_dice, rulings=rulings, encounter_id=encounter_id),
                actor=opts.actor,
                seed=seed_bytes,
            )
        s = out.state
        dice = "manual dice: every die comes from --dice" if s.manual_dice else f"Dice seed committed: {s.seed_sha256[:16]}… (revealed on close)"
        typer.echo(f"Encounter {out.encounter_id} ({s.system}) opened in {opts.db}. {dice}")

    @app.command()
    @handles_errors
    def join(
        ctx: typer.Context,
        sheet: str = typer.Argument(..., help="Sheet file: TOML, YAML or JSON."),
        side: str = typer.Option(..., "--side", help="Side the combatant fights on."),
        name: str = typer.Option("", "--name", help="Display name (default: the sheet's)."),
        handle: str = typer.Option("", "--handle", help="Short unique handle (default: from the name)."),
        surprised: bool = typer.Option(False, "--surprised", help="Surprised in the first round."),
    ):
        """Add a combatant from a sheet.

        Example: affray join examples/mrq1/broo.toml --name "Broo 1" --side broo
        """
        from affray.commands.types import JoinCombatant
        from affray.projections.snapshots import load_state
        from affray.commands.lookup import resolve_encounter
        from affray.cli.common import open_store
        from affray.rules import base

        opts = options(ctx)
        with open_store(opts) as store:
            eid = resolve_encounter(store, opts.encounter)
            system = base.get(load_state(store, eid).system)
        data = system.load_sheet(sheet)
        run(ctx, JoinCombatant(sheet=data, side=side, name=name, handle=handle, surprised=surprised))

    @app.command()
    @handles_errors
    def start(
        ctx: typer.Context,
        dice: str = typer.Option("", "--dice", help=DICE_HELP),
        reroll: str = typer.Option("", "--reroll", help=REROLL_HELP),
    ):
        """Start the first round: roll strike ranks.

        Example: affray start --dice 7,3
        """
        from affray.commands.types import StartRound

        run(ctx, StartRound(), dice=dice, reroll=reroll)

    @app.command()
    @handles_errors
    def attack(
        ctx: typer.Context,
        attacker: str = typer.Argument(..., help="Who attacks (handle or name prefix)."),
        target: str = typer.Argument(..., help="Who is attacked."),
        weapon: str = typer.Option("", "--weapon", "-w", help="Weapon (default: the first one held ready)."),
        mod: Optional[list[str]] = typer.Option(None, "--mod", help=MOD_HELP),
        situation: Optional[list[str]] = typer.Option(None, "--situation", help=SIT_HELP),
        dice: str = typer.Option("", "--dice", help=DICE_HELP),
        reroll: str = typer.Option("", "--reroll", help=REROLL_HELP),
    ):
        """Make a close combat attack (one combat action).

        Example: affray attack vasana broo1 --weapon broadsword --mod "-20:unstable ground"
        """
        from affray.commands.types import DeclareAttack

        run(
            ctx,
            DeclareAttack(
                attacker=attacker, target=target, weapon=weapon, modifiers=parse_mods(mod), situations=tuple(situation or ())
            ),
            dice=dice,
            reroll=reroll,
        )

    @app.command()
    @handles_errors
    def react(
        ctx: typer.Context,
        defender: str = typer.Argument(..., help="Who reacts."),
        reaction: str = typer.Argument(..., help="parry, dodge, none (or riposte when offered)."),
        with_item: str = typer.Option("", "--with", help="Weapon or shield to parry with."),
        mod: Optional[list[str]] = typer.Option(None, "--mod", help=MOD_HELP),
        situation: Optional[list[str]] = typer.Option(None, "--situation", help=SIT_HELP),
        dice: str = typer.Option("", "--dice", help=DICE_HELP),
        reroll: str = typer.Option("", "--reroll", help=REROLL_HELP),
    ):
        """React to the pending attack: parry, dodge or none.

        Example: affray react broo1 parry --with "target shield" --dice 71,34
        """
        from affray.commands.types import ChooseReaction

        run(
            ctx,
            ChooseReaction(
                defender=defender,
                reaction=reaction,
                with_item=with_item,
                modifiers=parse_mods(mod),
                situations=tuple(situation or ()),
            ),
            dice=dice,
            reroll=reroll,
        )

    @app.command()
    @handles_errors
    def roll(
        ctx: typer.Context,
        who: str = typer.Argument("", help="Whose roll (default: the first pending roll)."),
        dice: str = typer.Option("", "--dice", help=DICE_HELP),
        reroll: str = typer.Option("", "--reroll", help=REROLL_HELP),
    ):
        """Perform the pending roll step (damage and location, wound tests...).

        Example: affray roll --dice 6,3,11
        """
        from affray.commands.types import RollPending

        run(ctx, RollPending(who=who), dice=dice, reroll=reroll)

    @app.command()
    @handles_errors
    def choose(
        ctx: typer.Context,
        who: str = typer.Argument(..., help="Who chooses."),
        option: str = typer.Argument(..., help="The option, e.g. yank, leave, follow, stay."),
        secret: bool = typer.Option(False, "--secret", help="A secret choice (e.g. the effect a mythras Prepare Counter counters): hidden from exports."),
    ):
        """Answer a pending choice (yank or leave an impaling weapon, follow
        a defender who gives ground...).

        Example: affray choose vasana follow
        """
        from affray.commands.types import MakeChoice

        run(ctx, MakeChoice(who=who, option=option, secret=secret))

    @app.command()
    @handles_errors
    def act(
        ctx: typer.Context,
        who: str = typer.Argument(..., help="Who acts."),
        action: str = typer.Argument(..., help="defend or pass; mythras: ACTION[:ARG] (brace, move:TARGET, ward:left-arm, luck, ...)."),
        dice: str = typer.Option("", "--dice", help=DICE_HELP + " Only for actions that roll at once (mythras luck, trip, sweep, leap)."),
        reroll: str = typer.Option("", "--reroll", help=REROLL_HELP),
    ):
        """Spend a combat action on something other than an attack.

        mythras has every Combat Action of its seed here, e.g. brace,
        move:grusk, hustle:sprint, outmaneuver, ready:longsword, reload, aim,
        take-cover:4:legs, ward:left-arm, luck, yank, struggle, cast:SPELL,
        hold, release, interrupt (see 'affray rulings --system mythras').

        Example: affray act broo1 defend
        """
        from affray.commands.types import TakeAction

        run(ctx, TakeAction(who=who, action=action), dice=dice, reroll=reroll)

    @app.command("end-round")
    @handles_errors
    def end_round(
        ctx: typer.Context,
        dice: str = typer.Option("", "--dice", help=DICE_HELP),
        reroll: str = typer.Option("", "--reroll", help=REROLL_HELP),
    ):
        """End the round: expiries, Resilience re-tests, next strike ranks.

        Combat actions not yet taken are forfeited (the GM may end a round early).

        Example: affray end-round --dice 4,9
        """
        from affray.commands.types import EndRound

        run(ctx, EndRound(), dice=dice, reroll=reroll)

    @app.command()
    @handles_errors
    def note(
        ctx: typer.Context,
        text: str = typer.Argument(..., help="The ruling or comment."),
        secret: bool = typer.Option(False, "--secret", help="Hide it from exports."),
    ):
        """Record a GM's ruling or comment.

        Example: affray note "the ford counts as unstable ground"
        """
        from affray.commands.types import AddNote

        run(ctx, AddNote(text=text, secret=secret))

    @app.command()
    @handles_errors
    def undo(ctx: typer.Context):
        """Retract the newest live command; it stays in the log, struck through.

        Example: affray undo
        """
        from affray.commands.types import Undo

        out = run(ctx, Undo(), quiet=True)
        typer.echo(f"Retracted command {out.records[0].event.command_id}; it stays in the log, struck through.")
        from affray.cli.common import print_waiting

        print_waiting(out.state)

    @app.command()
    @handles_errors
    def redo(ctx: typer.Context):
        """Restore the most recently undone command.

        Example: affray redo
        """
        from affray.commands.types import Redo

        out = run(ctx, Redo(), quiet=True)
        typer.echo(f"Restored command {out.records[0].event.command_id}.")
        from affray.cli.common import print_waiting

        print_waiting(out.state)

    @app.command()
    @handles_errors
    def close(ctx: typer.Context, reason: str = typer.Option("", "--reason", help="Why it ends.")):
        """Close the encounter and reveal the dice seed.

        Example: affray close
        """
        from affray.commands.types import CloseEncounter

        out = run(ctx, CloseEncounter(reason=reason), quiet=True)
        typer.echo(
            f"Encounter {out.encounter_id} closed. Dice seed: {out.state.seed}\n"
            "Anyone can now re-derive every engine roll: affray verify --dice"
        )
