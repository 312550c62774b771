"""Verbs that change the fight: salt, new, join, start, attack, react, roll,
choose, act, end-round, note, undo, redo, close (and mrq1's grapple, hero,
mount).

Each Typer command here defines its verb's interface (arguments, options,
help, defaults) and forwards every parameter by name to the body of the
same name in :mod:`affray.cli.fight_verbs`, which the fast dispatcher
(:mod:`affray.cli.dispatch`) calls too."""

from __future__ import annotations

from typing import Optional

import typer

from affray.cli import fight_verbs
from affray.cli.common import forward, handles_errors

REROLL_HELP = "Where an undone or rewound command stood: roll anew instead of repeating the dice it rolled, for this reason (logged)."
DICE_HELP = "Table dice, in the order 'affray pending' lists them (e.g. '71,34'; 00 is 100 on a d100)."
SALT_HELP = "Your own salt for this command's engine rolls only (any text; recorded), so nobody could predict them before it."
MOD_HELP = "Situational modifier with its reason, e.g. '-20:unstable ground' (repeatable)."
SIT_HELP = "A named situation from the system's table, e.g. unstable-ground (repeatable)."


def register(app: typer.Typer) -> None:
    """Add the fight verbs to ``app``."""
    register_mrq1(app)

    @app.command()
    @handles_errors
    def salt(
        ctx: typer.Context,
        value: str = typer.Argument(..., help="Any text: dice you threw, a phrase, random digits."),
    ):
        """Add your salt: it is mixed into every engine roll from now on.

        Players' entropy (commit-reveal): the GM committed to the dice seed
        when the encounter opened, before any salt, so he cannot have chosen
        a seed that favours what comes. Who adds it is recorded (--as NAME).
        A salt never changes a roll already drawn, and cannot be undone.

        Example: affray --as sam salt "owls at midnight 4417"
        """
        forward(ctx, fight_verbs.salt, locals())

    @app.command()
    @handles_errors
    def new(
        ctx: typer.Context,
        name: str = typer.Argument(..., help="The encounter's display name."),
        system: str = typer.Option("mrq1", "--system", "-s", help="Rule system key or alias."),
        manual_dice: bool = typer.Option(False, "--manual-dice", help="Never roll for the table: every die must come from --dice."),
        ruling: Optional[list[str]] = typer.Option(None, "--ruling", help="A named ruling, NAME=VALUE (repeatable); see 'affray rulings'."),
        encounter_id: str = typer.Option("", "--id", help="Encounter id (default: from the name)."),
        seed: str = typer.Option("", "--seed", help="Dice seed as hex (at least 32 hex digits), for a reproducible fight (default: random); the log records that it was chosen."),
    ):
        """Open a new encounter.

        The engine's secret dice seed goes to the key file beside the log
        (DB.keys, mode 0600; AFFRAY_KEYS names another), never into the log:
        only its SHA-256 is recorded until 'affray close' reveals it.

        Example: affray new "Ambush at the ford" --system mrq1
        """
        forward(ctx, fight_verbs.new, locals())

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
        forward(ctx, fight_verbs.join, locals())

    @app.command()
    @handles_errors
    def start(
        ctx: typer.Context,
        dice: str = typer.Option("", "--dice", help=DICE_HELP),
        reroll: str = typer.Option("", "--reroll", help=REROLL_HELP),
        salt: str = typer.Option("", "--salt", help=SALT_HELP),
    ):
        """Start the first round: roll strike ranks.

        Example: affray start --dice 7,3
        """
        forward(ctx, fight_verbs.start, locals())

    @app.command()
    @handles_errors
    def attack(
        ctx: typer.Context,
        attacker: str = typer.Argument(..., help="Who attacks (handle or name prefix)."),
        target: str = typer.Argument(..., help="Who is attacked."),
        weapon: str = typer.Option("", "--weapon", "-w", help="Weapon (default: the first one held ready). A ranged weapon makes a ranged attack."),
        mod: Optional[list[str]] = typer.Option(None, "--mod", help=MOD_HELP),
        situation: Optional[list[str]] = typer.Option(None, "--situation", help=SIT_HELP),
        charge: Optional[int] = typer.Option(None, "--charge", help="mrq1: charge METRES (at least 5, up to twice Movement) before the attack: +1D4 damage, double knockback."),
        past: str = typer.Option("", "--past", help="mrq1: enemies passed on the way (comma-separated); they get free attacks."),
        flurry: bool = typer.Option(False, "--flurry", help="mrq1: spend all remaining combat actions at once, each blow at -20%."),
        precise: str = typer.Option("", "--precise", help="mrq1: a precise attack at -40%: bypass, LOCATION (e.g. head), disarm[:ITEM], weapon[:ITEM] or shield."),
        off_hand: bool = typer.Option(False, "--off-hand", help="mrq1: the off-hand's bonus attack (two weapon use, -20%, no combat action)."),
        range_m: Optional[int] = typer.Option(None, "--range", help="mrq1: distance to the target in metres, for a ranged weapon."),
        cover: str = typer.Option("", "--cover", help="mrq1: the target's locations in cover, e.g. 'right leg,left leg'."),
        crowd: str = typer.Option("", "--crowd", help="mrq1: firing into a crowd: who is next to the target (hit when a covered location is)."),
        dice: str = typer.Option("", "--dice", help=DICE_HELP),
        reroll: str = typer.Option("", "--reroll", help=REROLL_HELP),
        salt: str = typer.Option("", "--salt", help=SALT_HELP),
    ):
        """Make an attack (one combat action): close combat, or ranged with a ranged weapon.

        Example: affray attack vasana broo1 --weapon broadsword --mod "-20:unstable ground"

        More: affray attack vasana broo1 --charge 12 --dice 34;
        affray attack gorp vasana --weapon sling --range 30 --situation strong-wind;
        affray attack vasana broo1 --precise head; affray attack vasana broo1 --flurry
        """
        forward(ctx, fight_verbs.attack, locals())

    @app.command()
    @handles_errors
    def react(
        ctx: typer.Context,
        defender: str = typer.Argument(..., help="Who reacts."),
        reaction: str = typer.Argument(..., help="parry, dodge, none (or riposte when offered); uesrpg: evade, parry, block, counter, none, before the attack roll."),
        with_item: str = typer.Option("", "--with", help="Weapon or shield to parry with."),
        mod: Optional[list[str]] = typer.Option(None, "--mod", help=MOD_HELP),
        situation: Optional[list[str]] = typer.Option(None, "--situation", help=SIT_HELP),
        dice: str = typer.Option("", "--dice", help=DICE_HELP),
        reroll: str = typer.Option("", "--reroll", help=REROLL_HELP),
        salt: str = typer.Option("", "--salt", help=SALT_HELP),
    ):
        """React to the pending attack: parry, dodge or none.

        Example: affray react broo1 parry --with "target shield" --dice 71,34
        """
        forward(ctx, fight_verbs.react, locals())

    @app.command()
    @handles_errors
    def roll(
        ctx: typer.Context,
        who: str = typer.Argument("", help="Whose roll (default: the first pending roll)."),
        dice: str = typer.Option("", "--dice", help=DICE_HELP),
        reroll: str = typer.Option("", "--reroll", help=REROLL_HELP),
        salt: str = typer.Option("", "--salt", help=SALT_HELP),
    ):
        """Perform the pending roll step (damage and location, wound tests...).

        Example: affray roll --dice 6,3,11
        """
        forward(ctx, fight_verbs.roll, locals())

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
        forward(ctx, fight_verbs.choose, locals())

    @app.command(context_settings={"allow_interspersed_args": True})
    @handles_errors
    def act(
        ctx: typer.Context,
        who: str = typer.Argument(..., help="Who acts (or gm, for an mrq1 area effect)."),
        action: list[str] = typer.Argument(..., help="The action and its arguments (see below); mythras: ACTION[:ARG] (brace, move:TARGET, ward:left-arm, luck, ...)."),
        dice: str = typer.Option("", "--dice", help=DICE_HELP + " For actions that roll at once (mrq1 skill use; mythras luck, trip, sweep, leap, jump, hustle through difficult terrain)."),
        reroll: str = typer.Option("", "--reroll", help=REROLL_HELP),
        salt: str = typer.Option("", "--salt", help=SALT_HELP),
    ):
        """Spend a combat action on something other than a plain attack.

        mythras has every Combat Action of its seed here, e.g. brace,
        move:grusk, hustle:sprint, outmaneuver, ready:longsword, reload, aim,
        take-cover:4:legs, ward:left-arm, luck, yank, struggle, cast:SPELL,
        hold, release, interrupt, first-aid:grusk; terrain:water, climb:2, swim, crawl,
        jump:3 standing, move:4 difficult, hustle:sprint difficult (see
        'affray rulings --system mythras').

        Example: affray act broo1 defend

        mrq1 actions (ACTION [ARG...] [KEY=VALUE...]; quote names with spaces):

        \b
          defend | pass
          aim TARGET [weapon=W]             +10% per action to the next shot, max +30%
          cast SPELL [actions=N]            again: cast (goes on with it)
          move [METRES] [to=X] [past=A,B]   up to Movement
          sprint [METRES] [to=X] [past=A,B] up to twice Movement; free attacks +20%
          retreat [METRES]                  fighting retreat, half Movement, no free attack
          ready ITEM [ITEM2] [drop=I|sheathe=I]   draw; or reload a held ranged weapon
          reload [WEAPON]
          stance standing|prone|kneeling|sitting   (or: stand)
          skill NAME [diff=hard] [mod=-20:reason]  skill use, one d100 (--dice)
          delay after=X | delay interrupt=X; then: interrupt [with=S] [against=S]
          shoot TARGET [weapon=W] [range=M] [cover=LOCS] [crowd=X] [precise=P] [sit=KEY]
          charge TARGET METRES [weapon=W] [past=A,B]
          gm: area DAMAGE on=A,B [name=NAME]  an area effect; each target may dive

        uesrpg actions: pass (ends the Turn), move [METRES] (leaves melee:
        each foe left may make an attack of opportunity), treat TARGET
        [LOCATION] (as gm: a wound is treated, its countdown to 0 HP stops).

        Example: affray act gorp aim vasana; affray act vasana move 6 to=broo1;
        affray act gm area 3D6 on=vasana,gorp name=Fireball

        rolemaster actions: pass | parry N [against=FOE] [with=W] | stand | draw W |
        orientation [diff=D] | perception [diff=D]   (attack: --situation parry=N, ap=N)

        rq3 (see the README, "RuneQuest III rules"):

        \b
          intent triple|double|single KIND:TARGET:WEAPON:MODE... [brace]   Statement of Intent
          abort N [defensive parry:FOE:WEAPON | defensive dodge:FOE | movement]
          move engage|close|open|disengage|charge FOE [terrain=KIND] [moves=N] | move stay|wait|stand
          withdraw FOE | approach FOE | stand    (Post Melee Move)
          pass                                   (drop the declared attack due now)
        """
        forward(ctx, fight_verbs.act, locals())

    @app.command("end-round")
    @handles_errors
    def end_round(
        ctx: typer.Context,
        dice: str = typer.Option("", "--dice", help=DICE_HELP),
        reroll: str = typer.Option("", "--reroll", help=REROLL_HELP),
        salt: str = typer.Option("", "--salt", help=SALT_HELP),
    ):
        """End the round: expiries, Resilience re-tests, next strike ranks.

        Combat actions not yet taken are forfeited (the GM may end a round early).

        Example: affray end-round --dice 4,9
        """
        forward(ctx, fight_verbs.end_round, locals())

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
        forward(ctx, fight_verbs.note, locals())

    @app.command()
    @handles_errors
    def undo(ctx: typer.Context):
        """Retract the newest live command; it stays in the log, struck through.

        Example: affray undo
        """
        forward(ctx, fight_verbs.undo, locals())

    @app.command()
    @handles_errors
    def redo(ctx: typer.Context):
        """Restore the most recently undone command.

        Example: affray redo
        """
        forward(ctx, fight_verbs.redo, locals())

    @app.command()
    @handles_errors
    def close(ctx: typer.Context, reason: str = typer.Option("", "--reason", help="Why it ends.")):
        """Close the encounter and reveal the dice seed.

        Example: affray close
        """
        forward(ctx, fight_verbs.close, locals())


def register_mrq1(app: typer.Typer) -> None:
    """Add the Mongoose RuneQuest verbs: grapple, hero."""

    @app.command()
    @handles_errors
    def grapple(
        ctx: typer.Context,
        who: str = typer.Argument(..., help="Who grapples."),
        manoeuvre: str = typer.Argument(..., help="attack, break-free, immobilise, inflict-pain, throw, release, pass (none declines a follow-up)."),
        target: str = typer.Argument("", help="Whom to grapple (for attack)."),
        weapon: str = typer.Option("", "--weapon", "-w", help="Unarmed or natural weapon (default: the first on the sheet)."),
        mod: Optional[list[str]] = typer.Option(None, "--mod", help=MOD_HELP),
        situation: Optional[list[str]] = typer.Option(None, "--situation", help=SIT_HELP),
        dice: str = typer.Option("", "--dice", help=DICE_HELP),
        reroll: str = typer.Option("", "--reroll", help=REROLL_HELP),
        salt: str = typer.Option("", "--salt", help=SALT_HELP),
    ):
        """Grapple (mrq1): a grapple attack, or a grappling combatant's action.

        Example: affray grapple ulfrik attack broo1 --dice 40; affray grapple broo1 break-free --dice 30,70
        """
        forward(ctx, fight_verbs.grapple, locals())

    @app.command()
    @handles_errors
    def hero(
        ctx: typer.Context,
        who: str = typer.Argument(..., help="Whose Hero Point."),
        option: str = typer.Argument(..., help="second-chance, glancing-blow or luck."),
        roll: int = typer.Option(0, "--roll", help="second-chance: the version of the roll to re-roll (default: the newest that affects WHO)."),
        location: str = typer.Option("", "--location", help="glancing-blow: the location with the Major Wound."),
        note: str = typer.Option("", "--note", help="luck: the change to the story."),
        gm_approves: bool = typer.Option(False, "--gm-approves", help="luck: the Games Master approves it."),
        dice: str = typer.Option("", "--dice", help="second-chance: the re-roll (and any later dice) from the table."),
    ):
        """Spend a Hero Point (mrq1): second-chance, glancing-blow or luck.

        Example: affray hero vasana second-chance; affray hero vasana luck --note "the rope holds" --gm-approves
        """
        forward(ctx, fight_verbs.hero, locals())

    @app.command()
    @handles_errors
    def mount(
        ctx: typer.Context,
        rider: str = typer.Argument(..., help="Who mounts (or dismounts)."),
        beast: str = typer.Argument("", help="The mount, a combatant of the rider's side."),
        off: bool = typer.Option(False, "--off", help="Dismount instead."),
    ):
        """Mount or dismount (mrq1; a combat action during a round).

        Example: affray mount siraldric bayard; affray mount siraldric --off
        """
        forward(ctx, fight_verbs.mount, locals())
