"""``affray demo``: a whole fight between two sample characters."""

from __future__ import annotations

import typer

from affray.cli.common import UserError, echo, handles_errors, options, report


def register(app: typer.Typer) -> None:
    """Add the demo verb to ``app``."""

    @app.command()
    @handles_errors
    def demo(
        ctx: typer.Context,
        scenario: str = typer.Option("", "--scenario", help="Which sample fight (duel, skirmish, mrq1-grapple, mythras-duel, uesrpg-duel); default: the system's."),
        system: str = typer.Option("mrq1", "--system", "-s", help="Rule system of the sample fight (mrq1, mythras, uesrpg)."),
        table_dice: bool = typer.Option(False, "--table-dice", help="Type the dice as a table would (manual-dice encounter)."),
        seed: str = typer.Option("", "--seed", help="Dice seed as hex, for a reproducible fight."),
    ):
        """Run a whole sample fight, engine dice or table dice, to the end.

        The log goes to a new temporary file unless --db (or AFFRAY_DB) names one.

        Example: affray demo --table-dice; affray demo --scenario skirmish; affray demo --system mythras
        """
        import random
        import shlex
        import tempfile
        from pathlib import Path

        from affray.dice import short_seed_refusal
        from affray.commands.demo import DEFAULT_SEEDS, SCENARIOS, SYSTEM_SCENARIOS, TACTICAL, autoplay, scenario_system, setup
        from affray.rules import base
        from affray.cli.show import open_event_store

        key = base.resolve_key(system)
        if key not in SYSTEM_SCENARIOS:
            raise UserError(f"no sample fight for {key!r} yet; choose one of {', '.join(SYSTEM_SCENARIOS)}")
        scenario = scenario or SYSTEM_SCENARIOS[key]
        if scenario not in SCENARIOS:
            raise UserError(f"unknown scenario {scenario!r}; choose one of {', '.join(SCENARIOS)}")
        if scenario_system(scenario) != key and ctx.get_parameter_source("system").name == "COMMANDLINE":
            raise UserError(f"scenario {scenario!r} is a {scenario_system(scenario)} fight; drop --system or choose another")
        built_in = not seed  # a scenario's built-in seed is public (in the source): short is no secret lost
        seed = seed or DEFAULT_SEEDS.get(scenario, "")
        try:
            seed_bytes = bytes.fromhex(seed) if seed else None
        except ValueError:
            raise UserError(f"--seed takes hex digits, got {seed!r}") from None
        refusal = "" if built_in else short_seed_refusal(seed_bytes, manual_dice=table_dice)
        if refusal:
            raise UserError(refusal)
        root = ctx.find_root()
        source = root.get_parameter_source("db")
        chosen = source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT")
        path = options(ctx).db if chosen else str(Path(tempfile.mkdtemp(prefix="affray-demo-")) / "demo.db")
        actor = options(ctx).actor
        with open_event_store(path) as store:
            eid = setup(store, scenario, seed=seed_bytes, manual=table_dice, actor=actor, allow_short_seed=built_in)
            rng = random.Random(seed or 20261122) if table_dice else None
            state = autoplay(store, eid, actor=actor, table_rng=rng, echo=report, tactics=scenario in TACTICAL)
        dice = "table dice (typed)" if table_dice else "engine dice"
        echo()
        echo(f"Demo over with {dice} after {state.round} rounds; winner: {state.winner or 'nobody'}.")
        echo(f"The log is in {path}: try  affray --db {shlex.quote(path)} log --dice")
