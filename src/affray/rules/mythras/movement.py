"""Movement Actions in mythras: ``move``, ``hustle``, ``change-range``,
``outmaneuver``, ``mount``, ``dismount`` (seed 001 "Movement", "Move", "Hustle", "Change Range",
"Outmaneuvering", "Mount"). Queued as ``act:ACTION`` steps by
:func:`affray.rules.mythras.actions.act`; what a Charge asks of the charger is
checked in :mod:`.attack`.
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.events import core as ev
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.mythras import conditions as cat
from affray.rules.mythras import tables
from affray.rules.mythras.core import (
    at, done, engaged_foes, grade_modifiers, grippers, kept_roll, keeping, luck_suffix, names_terrain, offer_luck, sheet_of,
    leg_held, spend, test,
)


def _can_move(state: State, c: Combatant, what: str) -> None:
    held = leg_held(c)
    if held:
        raise RuleError(f"{held}: no movement (seed 001 'Entangle', 'Stun Location')")
    if engaged_foes(state, c):
        raise RuleError(f"{c.name} is engaged and cannot {what} (seed 001 'Movement': Outmaneuver or Withdraw first)")
    if c.stance == "prone":
        raise RuleError(f"{c.name} is prone: stand up first (a prone character may only crawl)")
    if what == "hustle" and c.has("hustled"):
        raise RuleError(f"{c.name} has hustled this round already: Hustle is once a Combat Round (seed 001 'Move': "
                        f"'Unlike the Hustle Action, the Move Action may be taken multiple times'); move instead")


def move(draft: Draft, who: str, arg: str) -> None:
    """Move: up to the Base Movement Rate while unengaged; into contact with
    ``TARGET`` it engages, and a melee attack follows without another
    Action Point (seed 001 "Move", "Movement"). Through terrain: step
    ``terrain:move``."""
    state = draft.state
    c = state.combatants[who]
    _can_move(state, c, "move")
    if names_terrain(arg):  # difficult terrain, obstacles: terrain.py
        draft.then("terrain:move", who=who, arg=arg, hustle=False)
        return
    spend(draft, who, "move")
    if arg:
        target = find_combatant(state, arg)
        t = state.combatants[target]
        draft.emit(ev.CombatantMoved(handle=who, distance=c.movement, reason=f"moves into contact with {t.name}"))
        draft.emit(ev.EngagementChanged(a=who, b=target, engaged=True))
        draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
            "free-attack", ends="next-action", key=target, note=f"may attack {t.name} without another Action Point",
            **at(draft))))
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=who, verb="attack", kind="turn", prompt=f"{c.name}: attack {t.name} now (no Action Point) or pass",
            options=("attack", "pass"), dice=(ev.DiceNeed("attack roll (if attacking)", "1D100", by=who),)),)))
        return
    draft.emit(ev.CombatantMoved(handle=who, distance=c.movement, reason="Move (Base Movement Rate)"))
    done(draft)


def hustle(draft: Draft, who: str, arg: str) -> None:
    """Hustle: Run (3x Movement Rate) or Sprint (5x) while unengaged; Ranged
    attacks on a running target are Hard, on a sprinting one Formidable,
    until its next Turn (seed 001 "Hustle", "Ranged Combat Situational
    Modifiers"). Through terrain: step ``terrain:move``. Once a Combat
    Round (seed 001 "Move": "Unlike the Hustle Action, the Move Action may
    be taken multiple times during a Combat Round"): the ``hustled``
    condition lasts to the round's end, and a second Hustle is refused."""
    state = draft.state
    c = state.combatants[who]
    _can_move(state, c, "hustle")
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "hustled", ends="round-end", note="hustled this round", **at(draft))))
    if names_terrain(arg):  # difficult terrain, obstacles: terrain.py
        draft.then("terrain:move", who=who, arg=arg, hustle=True)
        return
    gait = (arg or "run").lower()
    if gait not in ("run", "sprint"):
        raise RuleError("hustle takes run or sprint: 'affray act WHO hustle:sprint'")
    spend(draft, who, f"hustle ({gait})")
    times = 3 if gait == "run" else 5
    draft.emit(ev.CombatantMoved(handle=who, distance=c.movement * times, reason=f"Hustle: {gait} ({times}x Movement Rate)"))
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "running" if gait == "run" else "sprinting", ends="next-action", note=f"{gait}s until its next turn", **at(draft))))
    done(draft)


def change_range(draft: Draft, who: str, arg: str) -> None:
    """Change Range: close in on an opponent (engaging) when unengaged;
    stepping back out of an engagement needs Withdraw or Outmaneuver (seed
    001 "Change Range", "Engagement")."""
    if not arg:
        raise RuleError("change-range needs a target: 'affray act WHO change-range:TARGET'")
    move(draft, who, arg)


def outmaneuver(draft: Draft, who: str, arg: str) -> None:
    """Outmaneuver: a group Opposed Roll of Evade against every engaged foe
    with an Action Point, each spending one (seed 001 "Outmaneuvering").
    :class:`RuleError` for a gripped fighter, who cannot disengage ("Grip")."""
    state = draft.state
    c = state.combatants[who]
    held = grippers(c)
    if held:
        raise RuleError(f"{c.name} is gripped by {', '.join(state.combatants[h].name for h in held)} and cannot "
                        f"disengage (seed 001 'Grip'): struggle free or Slip Free first")
    foes = [f for f in engaged_foes(state, c) if f.combat_actions > 0]
    if not foes:
        raise RuleError(f"{c.name} has no engaged foe with Action Points to outmaneuver")
    spend(draft, who, "outmaneuver")
    for f in foes:
        draft.emit(ev.ActionSpent(handle=f.handle, kind="combat-action", reason=f"corner {c.name} (Outmaneuvering)"))
    dice = (ev.DiceNeed(f"{c.name}: Evade", "1D100", by=who),) + tuple(
        ev.DiceNeed(f"{f.name}: Evade", "1D100", by=f.handle) for f in foes)
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=who, verb="roll", kind="outmaneuver", prompt=f"{c.name} outmaneuvers {', '.join(f.name for f in foes)}: Evade rolls",
        dice=dice, data={"foes": ",".join(f.handle for f in foes)}),)))


def roll_outmaneuver(draft: Draft, step: ev.PendingStep, rest) -> None:
    """The Evade rolls of Outmaneuvering: each foe the actor beats cannot
    attack it this round; beating them all lets it withdraw or engage one
    alone (seed 001 "Outmaneuvering"). When a foe is not beaten, the actor
    with a Luck Point left may re-roll his Evade, the foes' rolls kept
    ("Use Luck Point": "to re-roll a particular result";
    :func:`~.core.offer_luck`); accepted, the rolls stand as they were."""
    state = draft.state
    c = state.combatants[step.who]
    foes = str(step.data["foes"]).split(",")
    forced = step.data.get("forced")
    if forced:
        mine = (str(step.data["mine"]).partition(":")[0], int(str(step.data["mine"]).partition(":")[2]))
    else:
        tested = _evade(draft, c, "Outmaneuvering" + luck_suffix(step))
        mine = (tested.result, tested.roll)
    rolls = {}
    for h in foes:
        theirs = kept_roll(step, h)
        if theirs is None:
            tested = _evade(draft, state.combatants[h], f"corner {c.name}")
            theirs = (tested.result, tested.roll)
        rolls[h] = theirs
    beaten = [h for h in foes if tables.opposed_winner(*rolls[h], *mine) != "a"]
    again = keeping(step, rolls)
    again = replace(again, data={**again.data, "mine": f"{mine[0]}:{mine[1]}"})
    if len(beaten) < len(foes) and offer_luck(draft, c, again, rest, True):
        return
    for h in beaten:
        draft.emit(ev.ConditionApplied(handle=h, condition=cat.make(
            "outmaneuvered", ends="round-end", key=step.who, effects={f"from:{step.who}": 1},
            note=f"cannot attack {c.name} this round", **at(draft))))
    if len(beaten) == len(foes):
        options = ("withdraw",) + tuple(f"engage:{h}" for h in foes)
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=step.who, verb="choose", kind="outmaneuver-end",
            prompt=f"{c.name} beats every foe: withdraw, or engage one alone for the round: {' | '.join(options)}",
            options=options, data={"foes": step.data["foes"]}),)))
        return
    done(draft)


def outmaneuver_end(draft: Draft, step: ev.PendingStep, option: str) -> None:
    """Withdraw from every foe, or stay engaged with the one picked (seed 001
    "Outmaneuvering")."""
    who = step.who
    for h in str(step.data["foes"]).split(","):
        if option == "withdraw" or option != f"engage:{h}":
            if option == "withdraw":
                draft.emit(ev.EngagementChanged(a=who, b=h, engaged=False))
    if option == "withdraw":
        draft.emit(ev.NoteAdded(text=f"{draft.state.combatants[who].name} withdraws from the fight"))
    done(draft)


def _evade(draft: Draft, c: Combatant, purpose: str) -> ev.SkillTested:
    skill = sheet_of(c).skill("Evade")
    return test(draft, c, "Evade", skill, purpose, grade_modifiers(draft.state, c, skill, (), "both", combat=False))


def mount(draft: Draft, who: str, arg: str) -> None:
    """Mount a riding beast (seed 001 "Mount"); a mounted attacker makes
    the defence Hard ("Defending ... against mounted foe"). ``mount:MOUNT``
    naming a combatant's handle rides it: its Damage Modifier may serve a
    mounted charge ("Charging"; ruling ``mounted_charge_dm``)."""
    c = draft.state.combatants[who]
    if c.has("mounted"):
        raise RuleError(f"{c.name} is already mounted")
    spend(draft, who, "mount")
    steed = draft.state.combatants.get(arg.strip().lower()) if arg else None
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "mounted", ends="event", effects={f"from:{steed.handle}": 1} if steed is not None else {},
        note=f"mounted{(' on ' + (steed.name if steed is not None else arg)) if arg else ''}", **at(draft))))
    done(draft)


def dismount(draft: Draft, who: str, arg: str) -> None:
    """Dismount (1 Action Point; seed 001 "Mount")."""
    c = draft.state.combatants[who]
    cond = next((k for k in c.conditions if k.name == "mounted"), None)
    if cond is None:
        raise RuleError(f"{c.name} is not mounted")
    spend(draft, who, "dismount")
    draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="dismounts"))
    done(draft)
