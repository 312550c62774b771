"""The bodies of the verbs that change the fight, without the CLI framework.

Each function is ``verb(opts, **params)``: ``opts`` the global
:class:`~affray.cli.core.Options`, ``params`` named exactly as the
parameters of the Typer command of the same verb (:mod:`affray.cli.fight`,
which defines the interface, its help and its defaults, and forwards here),
so the Typer app and the fast dispatcher (:mod:`affray.cli.dispatch`) run
the same code. A function prints through :func:`affray.cli.core.echo`,
raises :class:`affray.errors.AffrayError` for a user error, and returns an
exit code when it is not 0.
"""

from __future__ import annotations

from affray.cli.core import Options, UserError, echo, open_store, parse_mods, print_waiting, report, run


def new(opts: Options, *, name: str, system: str = "mrq1", manual_dice: bool = False, ruling=None,
        encounter_id: str = "", seed: str = "") -> None:
    """Open a new encounter."""
    from affray.commands.handler import execute
    from affray.dice import short_seed_refusal
    from affray.events.commands import OpenEncounter
    from affray.rules import base

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
        refusal = short_seed_refusal(seed_bytes, manual_dice=manual_dice)
        if refusal:
            raise UserError(refusal)
    base.get(system).rulings(rulings)  # refuse a bad system or ruling before creating a file
    with open_store(opts, must_exist=False) as store:
        out = execute(
            store,
            OpenEncounter(name=name, system=system, manual_dice=manual_dice, rulings=rulings, encounter_id=encounter_id),
            actor=opts.actor,
            seed=seed_bytes,
        )
    s = out.state
    dice = "manual dice: every die comes from --dice" if s.manual_dice else f"Dice seed committed: {s.seed_sha256[:16]}… (revealed on close)"
    echo(f"Encounter {out.encounter_id} ({s.system}) opened in {opts.db}. {dice}")


def join(opts: Options, *, sheet: str, side: str, name: str = "", handle: str = "", surprised: bool = False) -> None:
    """Add a combatant from a sheet."""
    from affray.commands.lookup import resolve_encounter
    from affray.events.commands import JoinCombatant
    from affray.projections.snapshots import load_state
    from affray.rules import base

    with open_store(opts) as store:
        eid = resolve_encounter(store, opts.encounter)
        system = base.get(load_state(store, eid).system)
    data = system.load_sheet(sheet)
    run(opts, JoinCombatant(sheet=data, side=side, name=name, handle=handle, surprised=surprised))


def start(opts: Options, *, dice: str = "", reroll: str = "", salt: str = "") -> None:
    """Start the first round: roll strike ranks."""
    from affray.events.commands import StartRound

    run(opts, StartRound(), dice=dice, reroll=reroll, salt=salt)


def attack(opts: Options, *, attacker: str, target: str, weapon: str = "", mod=None, situation=None,
           charge: int | None = None, past: str = "", flurry: bool = False, precise: str = "",
           off_hand: bool = False, range_m: int | None = None, cover: str = "", crowd: str = "",
           dice: str = "", reroll: str = "", salt: str = "") -> None:
    """Make an attack (one combat action): close combat, or ranged with a ranged weapon."""
    from affray.events.commands import DeclareAttack

    extra = []
    if charge is not None:
        extra.append(f"charge={charge}")
    if past:
        extra.append(f"past={past}")
    if flurry:
        extra.append("flurry")
    if precise:
        extra.append(f"precise={precise}")
    if off_hand:
        extra.append("off-hand")
    if range_m is not None:
        extra.append(f"range={range_m}")
    if cover:
        extra.append(f"cover={cover}")
    if crowd:
        extra.append(f"crowd={crowd}")
    run(
        opts,
        DeclareAttack(
            attacker=attacker, target=target, weapon=weapon, modifiers=parse_mods(mod),
            situations=tuple(situation or ()) + tuple(extra),
        ),
        dice=dice,
        reroll=reroll,
        salt=salt,
    )


def react(opts: Options, *, defender: str, reaction: str, with_item: str = "", mod=None, situation=None,
          dice: str = "", reroll: str = "", salt: str = "") -> None:
    """React to the pending attack: parry, dodge or none."""
    from affray.events.commands import ChooseReaction

    run(
        opts,
        ChooseReaction(
            defender=defender, reaction=reaction, with_item=with_item, modifiers=parse_mods(mod),
            situations=tuple(situation or ()),
        ),
        dice=dice,
        reroll=reroll,
        salt=salt,
    )


def roll(opts: Options, *, who: str = "", dice: str = "", reroll: str = "", salt: str = "") -> None:
    """Perform the pending roll step."""
    from affray.events.commands import RollPending

    run(opts, RollPending(who=who), dice=dice, reroll=reroll, salt=salt)


def choose(opts: Options, *, who: str, option: str, secret: bool = False) -> None:
    """Answer a pending choice."""
    from affray.events.commands import MakeChoice

    run(opts, MakeChoice(who=who, option=option, secret=secret))


def act(opts: Options, *, who: str, action, dice: str = "", reroll: str = "", salt: str = "") -> None:
    """Spend a combat action on something other than a plain attack."""
    from affray.events.commands import TakeAction

    text = " ".join(_quote_value(a) for a in action)
    run(opts, TakeAction(who=who, action=text), dice=dice, reroll=reroll, salt=salt)


def end_round(opts: Options, *, dice: str = "", reroll: str = "", salt: str = "") -> None:
    """End the round."""
    from affray.events.commands import EndRound

    run(opts, EndRound(), dice=dice, reroll=reroll, salt=salt)


def note(opts: Options, *, text: str, secret: bool = False) -> None:
    """Record a GM's ruling or comment."""
    from affray.events.commands import AddNote

    run(opts, AddNote(text=text, secret=secret))


def undo(opts: Options) -> None:
    """Retract the newest live command."""
    from affray.events.commands import Undo

    out = run(opts, Undo(), quiet=True)
    cid = out.records[0].event.command_id
    echo(f"Retracted command {cid}{command_text(opts, out, cid)}; it stays in the log, struck through.")
    print_waiting(out.state)


def redo(opts: Options) -> None:
    """Restore the most recently undone command."""
    from affray.events.commands import Redo

    out = run(opts, Redo(), quiet=True)
    cid = out.records[0].event.command_id
    echo(f"Restored command {cid}{command_text(opts, out, cid)}.")
    print_waiting(out.state)


def command_text(opts: Options, out, command_id: str) -> str:
    """`` (what it did)``: the first line the log narrates for the command
    ``command_id`` of the outcome's encounter (``Vasana attacks Broo 1 with
    Broadsword: d100=34 vs 65%: success``), made safe to print; else its
    verb (``end-round``); ``""`` when the command cannot be found.

    Reads the command's own events only: a command id ``cN`` names the
    version of its first event (:func:`affray.commands.handler.execute`)."""
    from affray.events.core import CommandIssued, DiceRolled
    from affray.text import safe_line
    from affray.views.narrate import narrate

    if command_id[:1] != "c" or not command_id[1:].isdigit():
        return ""
    names = {h: c.name for h, c in out.state.combatants.items()}
    verb = ""
    with open_store(opts, readonly=True) as store:
        records = store.read(out.encounter_id, from_version=int(command_id[1:]))
        try:
            for rec in records:
                if rec.command_id != command_id:
                    break
                e = rec.event
                if isinstance(e, CommandIssued):
                    verb = str(e.command.get("command", ""))
                    continue
                if isinstance(e, DiceRolled):
                    continue
                text = narrate(e, names)
                if text:
                    return f" ({safe_line(text).rstrip('.')})"
        finally:
            records.close()
    return f" ({safe_line(verb)})" if verb else ""


def close(opts: Options, *, reason: str = "") -> None:
    """Close the encounter and reveal the dice seed."""
    from affray.events.commands import CloseEncounter

    out = run(opts, CloseEncounter(reason=reason), quiet=True)
    echo(f"Encounter {out.encounter_id} closed. Dice seed: {out.state.seed}")
    echo("Anyone can now re-derive every engine roll: affray verify --dice")


def grapple(opts: Options, *, who: str, manoeuvre: str, target: str = "", weapon: str = "", mod=None,
            situation=None, dice: str = "", reroll: str = "", salt: str = "") -> None:
    """Grapple (mrq1)."""
    from affray.events.commands import Grapple

    run(
        opts,
        Grapple(who=who, manoeuvre=manoeuvre, target=target, weapon=weapon, modifiers=parse_mods(mod),
                situations=tuple(situation or ())),
        dice=dice,
        reroll=reroll,
        salt=salt,
    )


def hero(opts: Options, *, who: str, option: str, roll: int = 0, location: str = "", note: str = "",
         gm_approves: bool = False, dice: str = "") -> None:
    """Spend a Hero Point (mrq1)."""
    from affray.events.commands import SpendHeroPoint

    if option.strip().lower() == "second-chance":
        from affray.commands.hero import second_chance

        with open_store(opts) as store:
            out = second_chance(store, who, roll=roll, dice=dice, encounter_id=opts.encounter, actor=opts.actor)
        report(out)
        return
    if dice:
        raise UserError(f"'hero {option}' rolls no dice; drop --dice")
    run(opts, SpendHeroPoint(who=who, option=option, location=location, note=note, approved=gm_approves))


def mount(opts: Options, *, rider: str, beast: str = "", off: bool = False) -> None:
    """Mount or dismount (mrq1)."""
    from affray.events.commands import Mount

    run(opts, Mount(rider=rider, mount=beast, off=off))


def rewind(opts: Options, *, to: str = "", version: int = 0) -> None:
    """Void everything after a point of the fight."""
    from affray.commands.handler import execute
    from affray.events.commands import Rewind

    with open_store(opts) as store:
        out = execute(store, Rewind(to_point=to, to_version=version), encounter_id=opts.encounter, actor=opts.actor)
    rewound = out.records[-1].event.to_version
    s = out.state
    fixed = len(out.records) - 1
    extra = f"; {fixed} undo/redo after it set back as they were" if fixed else ""
    echo(
        f"Rewound {out.encounter_id} to version {rewound} (round {s.round}, step {s.step}): "
        f"everything after it is void, kept in the log struck through{extra}."
    )
    print_waiting(s)


def branch(opts: Options, *, name: str, at: str = "", version: int = 0, encounter_id: str = "") -> None:
    """Start a new encounter from a prefix of this one, for a what-if."""
    from affray.commands.handler import execute
    from affray.events.commands import BranchEncounter

    with open_store(opts) as store:
        out = execute(
            store,
            BranchEncounter(name=name, at_point=at, at_version=version, encounter_id=encounter_id),
            encounter_id=opts.encounter,
            actor=opts.actor,
        )
    origin = out.records[1].event.command["origin"]
    echo(f"Branch {out.encounter_id} opened. {out.notes[0]}.")
    echo(
        f"It is now the newest open encounter: commands without --encounter act on it; "
        f"'affray --encounter {origin} …' goes back to the original. "
        "Closing the branch reveals the dice seed it shares with the original."
    )
    print_waiting(out.state)


def salt(opts: Options, *, value: str) -> None:
    """Add a player's salt (commit-reveal, :mod:`affray.dice`, "Salts")."""
    from affray.events.commands import AddSalt

    out = run(opts, AddSalt(value=value), quiet=True)
    e = out.records[0].event
    echo(f"Salt recorded at version {out.records[0].version}: engine rolls from #{e.from_index} on mix it in.")


def amend(opts: Options, *, target: str, mod=None, situation=None, reaction: str = "", target_combatant: str = "",
          weapon: str = "", dice: str = "", reroll: str = "", replay: bool = False, on_branch: str = "") -> None:
    """Issue a command again with a change (:func:`affray.commands.amend.amend`)
    and print what was rewound, the amended command, each replayed one and
    where a replay stopped."""
    from affray.commands.amend import amend as run_amend
    from affray.events.commands import AmendCommand

    command = AmendCommand(
        target=target, modifiers=parse_mods(mod), situations=tuple(situation or ()), reaction=reaction,
        target_combatant=target_combatant, weapon=weapon, dice=dice, reroll=reroll, replay=replay, on_branch=on_branch,
    )
    with open_store(opts) as store:
        result = run_amend(store, command, encounter_id=opts.encounter, actor=opts.actor)
    if result.branch:
        echo(f"Branch {result.branch} opened at the point before {result.original}; the original is untouched.")
    else:
        echo(f"Rewound to version {result.rewound_to}: {result.original} and the commands after it are void, kept in the log.")
    amended = next(o for o in result.outcomes if o.records[0].command_id == result.amended)
    echo(f"Amended {result.original} as {result.amended}: {result.changes}")
    _narrate(amended)
    for old, new in result.replayed:
        out = next(o for o in result.outcomes if o.records[0].command_id == new)
        echo(f"Replayed {old} as {new} with its recorded dice:")
        _narrate(out, indent="  ")
    if result.stopped:
        rest = len(result.left) - 1
        more = f"; it and the {rest} command{'s' if rest != 1 else ''} after it stay void" if rest else "; it stays void"
        echo(f"{result.stopped[0].upper()}{result.stopped[1:]}{more}.")
    elif result.left:
        echo(f"{len(result.left)} later command(s) stay void (use --replay to issue them again).")
    if result.state is not None:
        print_waiting(result.state)


def _narrate(outcome, indent: str = "") -> None:
    """The lines of an amended or replayed command (no dice, no amend notes)."""
    from affray.events.core import DiceRolled, NoteAdded
    from affray.views.narrate import narrate

    names = {h: c.name for h, c in outcome.state.combatants.items()}
    for rec in outcome.records:
        if isinstance(rec.event, DiceRolled):
            continue
        if isinstance(rec.event, NoteAdded) and rec.event.text.startswith("amend: "):
            continue
        text = narrate(rec.event, names, outcome.state.system)
        if text:
            echo(indent + text)


def _quote_value(arg: str) -> str:
    """Quote ``KEY=VALUE WITH SPACES`` so the action text splits back into
    the same arguments."""
    if " " not in arg:
        return arg
    import shlex

    key, sep, value = arg.partition("=")
    if sep and key and " " not in key:
        return f"{key}={shlex.quote(value)}"
    return shlex.quote(arg)
