"""The demo fight, and an autopilot that plays any pending step.

``autoplay`` is what ``affray demo`` runs: it answers whatever the table waits
for with a sensible choice (attack the nearest standing enemy, parry when
possible, follow up, yank) until one side is down. With ``table_rng`` it types
dice "from the table" (recorded as table dice, typed by the actor) instead of
letting the engine roll. Tests and the benchmark reuse it.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Callable

from affray import dice as dicelib
from affray.commands import types as cmd
from affray.commands.handler import Outcome, execute
from affray.projections.state import State
from affray.rules.base import RuleError

#: Scenario name -> (sheet file, side, display name) for each combatant.
SCENARIOS: dict[str, list[tuple[str, str, str]]] = {
    "duel": [("mrq1/vasana.toml", "heroes", ""), ("mrq1/broo.toml", "broo", "Broo 1")],
    "mythras-duel": [("mythras/kaelin.toml", "heroes", ""), ("mythras/grusk.toml", "orcs", "")],
}
#: System key -> its default scenario (``affray demo --system KEY``).
SYSTEM_SCENARIOS: dict[str, str] = {"mrq1": "duel", "mythras": "mythras-duel"}


def examples_dir() -> Path:
    """Where the sample sheets are: inside the installed package."""
    return Path(__file__).resolve().parent / "examples"


def next_command(state: State) -> cmd.Command | None:
    """A sensible command for the first pending step (None when done)."""
    if state.phase in ("over", "closed") or not state.pending:
        return None
    step = state.pending[0]
    if step.kind == "start":
        return cmd.StartRound()
    if step.kind == "end-round":
        return cmd.EndRound()
    if step.kind == "turn":
        me = state.combatants[step.who]
        for action in ("stand", "yank", "struggle"):  # mythras: get up, pull a stuck weapon, break free
            if action in step.options:
                return cmd.TakeAction(who=step.who, action=action)
        if step.options and "attack" not in step.options:
            return cmd.TakeAction(who=step.who, action="pass")
        foes = [c for c in state.combatants.values() if c.side != me.side and c.can_fight]
        foes.sort(key=lambda c: (c.handle not in me.engaged, c.handle))
        if not foes:
            return cmd.TakeAction(who=step.who, action="pass")
        return cmd.DeclareAttack(attacker=step.who, target=foes[0].handle)
    if step.kind == "react":
        reaction = next((r for r in ("parry", "dodge", "evade") if r in step.options), "none")
        return cmd.ChooseReaction(defender=step.who, reaction=reaction)
    if step.kind == "riposte":
        return cmd.ChooseReaction(defender=step.who, reaction="riposte")
    if step.verb == "choose" and step.kind == "counter":  # mythras Prepare Counter: a secret pick
        return cmd.MakeChoice(who=step.who, option=step.options[0], secret=True)
    if step.verb == "choose":
        prefer = {"impale": "yank", "give-ground": "follow"}.get(step.kind, step.options[0])
        return cmd.MakeChoice(who=step.who, option=prefer)
    if step.verb == "roll":
        return cmd.RollPending(who=step.who)
    return None


def table_dice(state: State, rng: random.Random) -> str:
    """Values for the first pending step's dice, as a GM would type them."""
    if not state.pending:
        return ""
    values = []
    for need in state.pending[0].dice:
        for sides in dicelib.parse(need.expr).dice:
            face = rng.randint(1, sides)
            values.append("00" if sides == 100 and face == 100 else str(face))
    return ",".join(values)


def autoplay(
    store,
    encounter_id: str,
    *,
    actor: str = "demo",
    table_rng: random.Random | None = None,
    echo: Callable[[Outcome], None] | None = None,
    max_commands: int = 5000,
) -> State:
    """Play the encounter until the fight is over (or ``max_commands``)."""
    from affray.projections.snapshots import load_state

    state = load_state(store, encounter_id)
    for _ in range(max_commands):
        command = next_command(state)
        if command is None:
            break
        dice = table_dice(state, table_rng) if table_rng is not None and _rolls(command) else ""
        try:
            out = execute(store, command, encounter_id=encounter_id, dice=dice, actor=actor)
        except RuleError:
            if not isinstance(command, cmd.DeclareAttack):
                raise
            # cannot attack (no usable weapon): defend instead
            out = execute(store, cmd.TakeAction(who=command.attacker, action="defend"), encounter_id=encounter_id, actor=actor)
        if echo is not None:
            echo(out)
        state = out.state
    return state


def _rolls(command: cmd.Command) -> bool:
    return not isinstance(command, cmd.MakeChoice | cmd.TakeAction)


def scenario_system(scenario: str) -> str:
    """The rule system a scenario's sheets belong to (their folder)."""
    return SCENARIOS[scenario][0][0].split("/", 1)[0]


def setup(store, scenario: str = "duel", *, seed: bytes | None = None, manual: bool = False, actor: str = "demo") -> str:
    """Open the scenario's encounter and join its combatants; return its id."""
    from affray.rules import base

    key = scenario_system(scenario)
    out = execute(
        store,
        cmd.OpenEncounter(name=f"Demo: {scenario}", system=key, manual_dice=manual),
        actor=actor,
        seed=seed,
    )
    eid = out.encounter_id
    system = base.get(key)
    for sheet, side, name in SCENARIOS[scenario]:
        data = system.load_sheet(str(examples_dir() / sheet))
        execute(store, cmd.JoinCombatant(sheet=data, side=side, name=name), encounter_id=eid, actor=actor)
    return eid
