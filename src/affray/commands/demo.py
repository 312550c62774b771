"""The demo fight, and an autopilot that plays any pending step.

``autoplay`` is what ``affray demo`` runs: it answers whatever the table waits
for with a sensible choice (attack the nearest standing enemy, parry when
possible, follow up, yank) until one side is down. With ``table_rng`` it types
dice "from the table" (recorded as table dice, typed by the actor) instead of
letting the engine roll. Tests and the benchmark reuse it.
"""

from __future__ import annotations

import random
import shlex
from pathlib import Path
from typing import Callable

from affray import dice as dicelib
from affray.events import commands as cmd
from affray.commands import demo_uesrpg
from affray.commands import demo_rolemaster
from affray.commands import demo_rq3
from affray.commands.handler import Outcome, execute
from affray.projections.snapshots import load_state
from affray.projections.state import State
from affray.rules import base
from affray.rules.base import RuleError
from affray.rules.mrq1.core import held, loaded, movement, sheet_of

#: Scenario name -> (sheet file, side, display name) for each combatant.
SCENARIOS: dict[str, list[tuple[str, str, str]]] = {
    "duel": [("mrq1/vasana.toml", "heroes", ""), ("mrq1/broo.toml", "broo", "Broo 1")],
    "mythras-duel": [("mythras/kaelin.toml", "heroes", ""), ("mythras/grusk.toml", "orcs", "")],
    "rolemaster-duel": [("rolemaster/kestrel.toml", "heroes", ""), ("rolemaster/gruk.toml", "orcs", "")],
    # mrq1: an archer against a raider who charges her (ranged attack, charge, free attacks, a grapple)
    "skirmish": [("mrq1/yara.toml", "heroes", ""), ("mrq1/ghorak.toml", "raiders", "")],
    # mrq1 grappling: Ulfrik fights bare-handed, so the autopilot grapples
    "mrq1-grapple": [("mrq1/ulfrik.toml", "heroes", ""), ("mrq1/broo.toml", "broo", "Broo 1")],
    # uesrpg: a Nord with axe and shield against a Dunmer sellsword with a buckler
    "uesrpg-duel": [("uesrpg/hrolfdar.toml", "heroes", ""), ("uesrpg/vethis.toml", "sellswords", "")],
    # rq3: a sword-dancer against a troll's longer maul (Statement of Intent, an engagement contest, knockback)
    "rq3-duel": [("rq3/vasana.toml", "heroes", ""), ("rq3/gorakh.toml", "trolls", "")],
}
#: Scenarios played with the mrq1 tactics of :func:`tactic` (shoot, reload,
#: charge, draw a close weapon when engaged) instead of plain attacks.
TACTICAL: frozenset[str] = frozenset({"skirmish"})
#: Metres between the sides at the start of a tactical scenario (no map: the
#: first shot is at this range, the first charge covers it).
OPENING_RANGE = 12
#: Scenario -> the dice seed (hex) used when none is given: one whose fight
#: shows what the scenario is for (mrq1-grapple: grapples, every manoeuvre).
DEFAULT_SEEDS: dict[str, str] = {
    "mrq1-grapple": "02",
    "uesrpg-duel": "19",  # uesrpg: a wound, a held block, a counter-attack
    "rq3-duel": b"rq3-27".hex(),
}
#: System key -> its default scenario (``affray demo --system KEY``).
SYSTEM_SCENARIOS: dict[str, str] = {
    "mrq1": "duel", "mythras": "mythras-duel", "uesrpg": "uesrpg-duel", "rolemaster": "rolemaster-duel", "rq3": "rq3-duel",
}
#: System key -> that system's own autopilot, ``next_command(state) ->
#: Command | None``, for a system whose steps the generic answers below do
#: not cover. Each lives in ``commands/demo_<key>.py`` and must not import
#: this module.
AUTOPILOTS: dict[str, Callable[[State], "cmd.Command | None"]] = {
    "uesrpg": demo_uesrpg.next_command,
    "rolemaster": demo_rolemaster.next_command,
    "rq3": demo_rq3.next_command,
}


def examples_dir() -> Path:
    """Where the sample sheets are: inside the installed package."""
    return Path(__file__).resolve().parent.parent / "examples"


def next_command(state: State, tactics: bool = False) -> cmd.Command | None:
    """A sensible command for the first pending step (None when done).
    ``tactics``: mrq1 turns use :func:`tactic`."""
    if state.phase in ("over", "closed") or not state.pending:
        return None
    if state.system in AUTOPILOTS:
        return AUTOPILOTS[state.system](state)
    step = state.pending[0]
    if step.kind == "start":
        return cmd.StartRound()
    if step.kind == "end-round":
        return cmd.EndRound()
    if step.kind == "turn" and step.verb == "grapple":
        return _grapple_choice(state, step)
    if step.kind == "turn":
        me = state.combatants[step.who]
        if "flee" in step.options:  # mrq1: an untrained mount that failed its Riding test
            return cmd.TakeAction(who=step.who, action="flee")
        for action in ("stand", "yank", "struggle"):  # get up; mythras: pull a stuck weapon, break free
            if action in step.options:
                return cmd.TakeAction(who=step.who, action=action)
        if step.options and "attack" not in step.options:
            return cmd.TakeAction(who=step.who, action="pass")
        foes = [c for c in state.combatants.values() if c.side != me.side and c.can_fight]
        foes.sort(key=lambda c: (c.handle not in me.engaged, c.handle))
        if not foes:
            return cmd.TakeAction(who=step.who, action="pass")
        if tactics and state.system == "mrq1":
            return tactic(state, me, foes[0])
        if not me.ready and any(w.get("kind") == "unarmed" for w in me.sheet.get("weapons", [])):
            return cmd.Grapple(who=step.who, manoeuvre="attack", target=foes[0].handle)  # bare hands: grapple
        return cmd.DeclareAttack(attacker=step.who, target=foes[0].handle)
    if step.kind == "grapple-defence":
        return cmd.ChooseReaction(defender=step.who, reaction="weapon" if "weapon" in step.options else "unarmed")
    if step.kind == "grapple-follow-up":
        return cmd.Grapple(who=step.who, manoeuvre="immobilise")
    if step.kind == "react":
        reaction = next((r for r in ("parry", "dodge", "evade") if r in step.options), "none")
        return cmd.ChooseReaction(defender=step.who, reaction=reaction)
    if step.kind == "riposte":
        return cmd.ChooseReaction(defender=step.who, reaction="riposte")
    if step.kind == "free-attack":  # mrq1: a free attack on an enemy who moves, shoots, readies...
        return cmd.ChooseReaction(defender=step.who, reaction="attack")
    if step.kind == "dive":  # mrq1: dive for cover from an area effect
        return cmd.ChooseReaction(defender=step.who, reaction="dive")
    if step.kind == "flurry":  # mrq1: the next blow of a flurry, at an adjacent enemy still standing
        me = state.combatants[step.who]
        foes = [h for h in me.engaged if state.combatants[h].can_fight]
        return cmd.DeclareAttack(attacker=step.who, target=foes[0]) if foes else cmd.TakeAction(who=step.who, action="pass")
    if step.verb == "choose" and step.kind == "counter":  # mythras Prepare Counter: a secret pick
        return cmd.MakeChoice(who=step.who, option=step.options[0], secret=True)
    if step.verb == "choose":
        prefer = {"impale": "yank", "give-ground": "follow", "lay-hold": "yank"}.get(step.kind, step.options[0])
        return cmd.MakeChoice(who=step.who, option=prefer)
    if step.verb == "roll":
        return cmd.RollPending(who=step.who)
    return None


def tactic(state: State, me, foe) -> cmd.Command:
    """An mrq1 turn for the tactical scenarios (seed 004 "Combat Actions"):
    an archer shoots while free, reloads after each shot and, once engaged,
    drops the bow for a close weapon; a fighter with no enemy next to him
    charges; one left with nothing in hand grapples; otherwise he attacks."""
    hold = held(me)
    bow = next((w for w in hold if w.kind == "ranged"), None)
    engaged = [h for h in me.engaged if state.combatants[h].can_fight]
    if bow is not None:
        if engaged:
            close = next((w for w in sheet_of(me).weapons if w.kind == "melee" and w.name not in me.ready), None)
            if close is not None:
                return cmd.TakeAction(who=me.handle, action=f"ready {shlex.quote(close.name)} drop={shlex.quote(bow.name)}")
        if not loaded(me, bow):
            return cmd.TakeAction(who=me.handle, action=f"reload {shlex.quote(bow.name)}")
        return cmd.DeclareAttack(attacker=me.handle, target=foe.handle, weapon=bow.name,
                                 situations=(f"range={min(OPENING_RANGE, bow.range) if bow.range else OPENING_RANGE}",))
    if not engaged and me.stance == "standing" and 5 <= 2 * movement(me):
        return cmd.DeclareAttack(attacker=me.handle, target=foe.handle,
                                 situations=(f"charge={min(OPENING_RANGE, 2 * movement(me))}",))
    if not me.ready and engaged and any(w.kind == "unarmed" for w in sheet_of(me).weapons):
        return cmd.Grapple(who=me.handle, manoeuvre="attack", target=foe.handle)  # disarmed: wrestle
    return cmd.DeclareAttack(attacker=me.handle, target=foe.handle)


def _grapple_choice(state: State, step) -> cmd.Command:
    """A grappling combatant's action: the bare-handed wrestler immobilises
    on his first action and inflicts pain otherwise; anyone else breaks free."""
    me = state.combatants[step.who]
    partner = next((x.id.split(":", 1)[1] for x in me.conditions if x.name == "grappling"), "")
    if partner and state.combatants[partner].status != "active":
        return cmd.Grapple(who=step.who, manoeuvre="release")
    if me.ready:
        return cmd.Grapple(who=step.who, manoeuvre="break-free")
    wanted = "immobilise" if state.action_no == 1 and not state.combatants[partner].has("immobilised") else "inflict-pain"
    return cmd.Grapple(who=step.who, manoeuvre=wanted)


def table_dice(state: State, rng: random.Random, command: cmd.Command | None = None) -> str:
    """Values for the first pending step's dice, as a GM would type them
    (a grapple manoeuvre other than break-free rolls only the first)."""
    if not state.pending:
        return ""
    values = []
    needs = state.pending[0].dice
    if isinstance(command, cmd.Grapple) and command.manoeuvre != "break-free" and state.pending[0].kind == "turn":
        needs = needs[:1]
    for need in needs:
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
    tactics: bool = False,
) -> State:
    """Play the encounter until the fight is over (or ``max_commands``).
    ``tactics``: mrq1 turns shoot, reload and charge (:func:`tactic`)."""
    state = load_state(store, encounter_id)
    for _ in range(max_commands):
        command = next_command(state, tactics)
        if command is None:
            break
        dice = table_dice(state, table_rng, command) if table_rng is not None and _rolls(command) else ""
        try:
            out = _execute_typing_more(store, command, encounter_id, dice, actor, table_rng)
        except RuleError:
            if not isinstance(command, cmd.DeclareAttack):
                raise
            # cannot attack (no usable weapon): defend instead
            out = execute(store, cmd.TakeAction(who=command.attacker, action="defend"), encounter_id=encounter_id, actor=actor)
        if echo is not None:
            echo(out)
        state = out.state
    return state


def _execute_typing_more(store, command, encounter_id: str, dice: str, actor: str, table_rng) -> Outcome:
    """``execute``; with table dice, a die no pending step could list in
    advance (a rolemaster open-ended roll showing 96-100 asks for another)
    is rolled at the table and the command typed again with it."""
    for _ in range(50):
        try:
            return execute(store, command, encounter_id=encounter_id, dice=dice, actor=actor)
        except dicelib.MissingDice as exc:
            if table_rng is None:
                raise
            more = []
            for _purpose, expr in exc.needs:
                for sides in dicelib.parse(expr).dice:
                    face = table_rng.randint(1, sides)
                    more.append("00" if sides == 100 and face == 100 else str(face))
            dice = ",".join(filter(None, (dice, *more)))
    return execute(store, command, encounter_id=encounter_id, dice=dice, actor=actor)


def _rolls(command: cmd.Command) -> bool:
    if isinstance(command, cmd.Grapple):
        return command.manoeuvre not in ("release", "pass", "none")
    return not isinstance(command, cmd.MakeChoice | cmd.TakeAction)


def scenario_system(scenario: str) -> str:
    """The rule system a scenario's sheets belong to (their folder)."""
    return SCENARIOS[scenario][0][0].split("/", 1)[0]


def setup(store, scenario: str = "duel", *, seed: bytes | None = None, manual: bool = False, actor: str = "demo",
          allow_short_seed: bool = False) -> str:
    """Open the scenario's encounter and join its combatants; return its id.
    A chosen ``seed`` under 16 bytes is refused (``RuleError``) unless
    ``allow_short_seed`` (a public seed: see ``handler.execute``)."""
    key = scenario_system(scenario)
    out = execute(
        store,
        cmd.OpenEncounter(name=f"Demo: {scenario}", system=key, manual_dice=manual),
        actor=actor,
        seed=seed,
        allow_short_seed=allow_short_seed,
    )
    eid = out.encounter_id
    system = base.get(key)
    for sheet, side, name in SCENARIOS[scenario]:
        data = system.load_sheet(str(examples_dir() / sheet))
        execute(store, cmd.JoinCombatant(sheet=data, side=side, name=name), encounter_id=eid, actor=actor)
    return eid
