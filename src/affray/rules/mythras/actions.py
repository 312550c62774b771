"""Combat Actions other than Attack, Parry and Evade: ``affray act WHO
ACTION[:ARG[:ARG]]`` (seed 001 "Combat Actions": "Proactive Actions",
"Reactive Actions", "Free Actions"; "Movement"; "Outmaneuvering";
"Leaping Attacks"; "Sweep Attacks"; "Aiming"; "Cover"; "Passive
Blocking"; the Impale and Entangle follow-ups; magic).

Proactive Actions cost 1 Action Point on the actor's own Turn:
``brace``, ``move[:TARGET]``, ``hustle[:run|sprint]``,
``change-range:TARGET``, ``outmaneuver``, ``ready:WEAPON`` (draw, pick
up; one already in hand is refused), ``sheathe:WEAPON``, ``reload``, ``aim``, ``take-cover:AP[:LOCATIONS]``, ``mount``,
``dismount``, ``struggle``, ``yank``, ``trip:TARGET`` (an entangling
wielder), ``leap:TARGET``, ``sweep:T1,T2,...``, ``cast:SPELL``,
``hold``; and ``pass``/``delay``/``stand`` (:func:`.turns.delay`).

Free Actions cost nothing and need no Turn: ``ward:LOCATIONS[:WEAPON]``,
``unward``, ``luck`` (re-roll), ``drop:WEAPON``, ``speak:TEXT``,
``signal:TEXT``, ``assess``, ``release[:TARGET]`` (a cast spell).
Reactive: ``interrupt`` (a delaying character takes a Turn inside
another's).

This module checks and dispatches an action: :func:`act` queues the step
``"act:" + ACTION`` (``turns:delay`` for pass, delay and stand), whose
handler the router (:mod:`affray.rules.mythras.system`) finds. It holds
the actions on weapons in hand and on what a character says and sees
(``ready``, ``drop``, ``speak``, ``signal``, ``assess``). The rest live by
theme: :mod:`.movement` (move, hustle, change-range, outmaneuver, mount,
dismount), :mod:`.movement_modes` (climb, crawl, jump, swim),
:mod:`.terrain`, :mod:`.defence` (brace, take-cover, ward, unward),
:mod:`.ranged` (reload, aim), :mod:`.holds` (struggle, yank, trip),
:mod:`.special_attacks` (leap, sweep), :mod:`.magic` (cast, hold,
release, Counter Spell), :mod:`.luck` and :mod:`.turns` (interrupt).
"""

from __future__ import annotations

import shlex

from msgspec.structs import replace

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.d100 import is_success
from affray.rules.mythras import conditions as cat
from affray.rules.mythras.core import (
    break_aim,
    at,
    done,
    engaged_foes,
    find_weapon,
    fizzle,
    STRENUOUS,
    grade_modifiers,
    reopen_wound,
    require_turn,
    resume,
    sheet_of,
    spend,
    test,
    useless_arms,
    weapon_hp,
)


FREE = ("ward", "unward", "luck", "drop", "speak", "signal", "assess", "release", "interrupt", "terrain")
TURN = ("brace", "move", "hustle", "change-range", "outmaneuver", "ready", "sheathe", "reload", "aim", "take-cover",
        "mount", "dismount", "struggle", "yank", "trip", "leap", "sweep", "cast", "hold",
        "climb", "crawl", "jump", "swim",  # these four: movement_modes.py
        "first-aid")  # wounds.py
BASIC = ("pass", "dither", "delay", "defend", "stand", "regain-footing")


#: The Turn actions a fighter stunned in the torso may still take: he is
#: "only able to defend" (seed 001 "Stun Location"); bracing and ducking
#: into cover are defence (our reading), as are his Reactions.
STUNNED_TORSO_MAY = ("brace", "take-cover")


def _stun_refusal(c, name: str) -> str:
    """Why a Stun Location forbids the action ``name`` ("" when it does
    not). Seed 001 "Stun Location": "A blow to the torso causes the
    defender to stagger winded, only able to defend. A head shot renders
    the foe briefly insensible and unable to act." A stunned head allows
    only pass, dither or delay; a stunned chest or abdomen also the Turn
    actions of :data:`STUNNED_TORSO_MAY`, and Ward Location."""
    where = {k.location for k in c.conditions if k.name == "stunned-location"}
    if "head" in where and name not in ("pass", "dither", "delay"):
        return f"{c.name}'s head is stunned: insensible and unable to act (seed 001 'Stun Location'); pass"
    if where & {"chest", "abdomen"} and name in TURN + ("stand", "regain-footing") and name not in STUNNED_TORSO_MAY:
        return (f"{c.name} is stunned in the torso: staggered, only able to defend (seed 001 'Stun Location'); "
                f"{', '.join(STUNNED_TORSO_MAY)}, delay or pass")
    return ""


def _unquoted(action: str) -> str:
    """The action text with any shell-style quoting the CLI added undone
    (``act kaelin "jump:1 standing"`` arrives as ``'jump:1 standing'``)."""
    try:
        return " ".join(shlex.split(action))
    except ValueError:  # an unbalanced quote: keep the text as typed
        return action.strip()


def act_command(draft: Draft, command: cmd.TakeAction) -> None:
    """``affray act WHO ACTION``: see :func:`act`."""
    act(draft, find_combatant(draft.state, command.who), command.action)


def act(draft: Draft, who: str, action: str) -> None:
    """``affray act WHO ACTION``: check that the action may be taken now
    (a Turn action on ``WHO``'s Turn, with an Action Point left; a Free
    Action at any time), then queue its step ``"act:" + ACTION`` (handler
    ``(draft, who, arg)``), or ``turns:delay`` for pass, delay and stand.
    A cast spell due this Turn fizzles unless the action holds it."""
    state = draft.state
    name, _, arg = _unquoted(action).partition(":")
    name = name.strip().lower()
    if name not in ("luck", "speak", "drop", "terrain", "unward"):  # free and no feat of arms
        why = _stun_refusal(state.combatants[who], name)
        if why:
            raise RuleError(why)
    if name in BASIC:
        require_turn(state, who)
        if name in ("stand", "regain-footing"):
            break_aim(draft, who, name)
        fizzle(draft, who, name)
        draft.then("turns:delay", handle=who, action=name)
        return
    if name in FREE:
        draft.then("act:" + name, who=who, arg=arg)
        return
    if name in TURN:
        c = require_turn(state, who)
        if c.combat_actions <= 0:
            raise RuleError(f"{c.name} has no Action Points left")
        if name != "aim":
            break_aim(draft, who, name)
        if name in STRENUOUS:
            reopen_wound(draft, who, name)
        fizzle(draft, who, name)
        draft.then("act:" + name, who=who, arg=arg)
        return
    raise RuleError(f"unknown action {name!r}; use one of: {', '.join(BASIC[:3] + ('stand',) + TURN + FREE)}")


# --------------------------------------------------------------------------- #
# Proactive Actions
# --------------------------------------------------------------------------- #


def ready(draft: Draft, who: str, arg: str) -> None:
    """Ready: draw a weapon (1 Action); picking up a dropped one takes 2
    (seed 001 "Ready"); a broken weapon cannot be readied, and one already
    in hand is refused (issue 16: it used to be sheathed, which the user
    did not ask for; :func:`sheathe` puts it away)."""
    state = draft.state
    c = state.combatants[who]
    if not arg:
        raise RuleError("ready needs a weapon: 'affray act WHO ready:WEAPON'")
    w = find_weapon(c, arg, ready_only=False)
    if weapon_hp(c, w) <= 0 and w.hp > 0:
        raise RuleError(f"{w.name} is broken")
    dropped = next((k for k in c.conditions if k.name == "dropped" and k.id == f"dropped:{w.name.lower()}"), None)
    if w.name in c.ready:
        raise RuleError(f"{c.name} already holds {w.name} ready; to put it away: "
                        f"'affray act {who} sheathe:{w.name}' (1 Action Point)")
    hands = sum(x.hands for x in sheet_of(c).weapons if x.name in c.ready and x.kind != "unarmed")
    if hands + w.hands > 2:
        raise RuleError(f"{c.name}'s hands are full ({', '.join(c.ready)}); sheathe or drop something first")
    lame = useless_arms(c)
    if lame and hands + w.hands + len(lame) > 2:
        raise RuleError(f"{c.name}'s {' and '.join(lame)} {'is' if len(lame) == 1 else 'are'} useless (a Serious Wound): "
                        f"no hand free for {w.name}")
    if dropped is not None and not dropped.effects.get("stage"):
        spend(draft, who, f"reach for {w.name}")
        draft.emit(ev.ConditionApplied(handle=who, condition=replace(
            dropped, effects={**dropped.effects, "stage": 1}, note=f"{w.name} in hand: one more Action to stand ready")))
        done(draft)
        return
    spend(draft, who, f"ready {w.name}")
    if dropped is not None:
        draft.emit(ev.ConditionExpired(handle=who, condition_id=dropped.id, reason="picked up"))
    draft.emit(ev.WeaponReadied(handle=who, weapon=w.name))
    done(draft)


def sheathe(draft: Draft, who: str, arg: str) -> None:
    """Sheathe: put a weapon in hand away (1 Action; seed 001 "Ready": "draw,
    sheath, withdraw"). Refused for a weapon not in hand."""
    c = draft.state.combatants[who]
    if not arg:
        raise RuleError(f"sheathe needs a weapon in hand: 'affray act {who} sheathe:WEAPON' (in hand: {', '.join(c.ready) or 'nothing'})")
    w = find_weapon(c, arg, ready_only=False)
    if w.name not in c.ready:
        raise RuleError(f"{c.name} does not hold {w.name} (in hand: {', '.join(c.ready) or 'nothing'}); nothing to sheathe")
    spend(draft, who, f"sheathe {w.name}")
    draft.emit(ev.WeaponDropped(handle=who, weapon=w.name, reason="sheathed"))
    done(draft)


# --------------------------------------------------------------------------- #
# Free and Reactive Actions
# --------------------------------------------------------------------------- #


def drop(draft: Draft, who: str, arg: str) -> None:
    """Drop Item (free, seed 001)."""
    c = draft.state.combatants[who]
    w = find_weapon(c, arg) if arg else None
    if w is None or w.name not in c.ready:
        raise RuleError(f"drop needs a held weapon: {', '.join(c.ready) or 'nothing held'}")
    draft.emit(ev.WeaponDropped(handle=who, weapon=w.name, reason="dropped (free action)"))
    idx = [x.name for x in sheet_of(c).weapons].index(w.name)
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "dropped", ends="event", key=w.name.lower(), effects={"weapon": idx, "stage": 0},
        note=f"{w.name} lies on the ground", **at(draft))))


def speak(draft: Draft, who: str, arg: str) -> None:
    """Speak (free): a short phrase, five seconds or less (seed 001)."""
    if not arg.strip():
        raise RuleError("speak needs the words: 'affray act WHO \"speak:Look out behind you!\"'")
    draft.emit(ev.NoteAdded(text=f"{draft.state.combatants[who].name} says: {arg.strip()}"))


def signal(draft: Draft, who: str, arg: str) -> None:
    """Signal (free, if unengaged; seed 001)."""
    c = draft.state.combatants[who]
    if engaged_foes(draft.state, c):
        raise RuleError(f"{c.name} is engaged: signalling is free only when unengaged (seed 001 'Signal')")
    draft.emit(ev.NoteAdded(text=f"{c.name} signals: {arg.strip() or '(a gesture)'}"))


def assess(draft: Draft, who: str, arg: str) -> None:
    """Assess Situation (free, if unengaged): a Perception roll, Hard while
    Running, Formidable while Sprinting (seed 001)."""
    state = draft.state
    c = state.combatants[who]
    if engaged_foes(state, c):
        raise RuleError(f"{c.name} is engaged: Assess Situation needs a moment unengaged (seed 001)")
    extra = [("hard", "Assessing while Running")] if c.has("running") else (
        [("formidable", "Assessing while Sprinting")] if c.has("sprinting") else [])
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=who, verb="roll", kind="assess", prompt=f"{c.name} assesses the situation: Perception",
        dice=(ev.DiceNeed(f"{c.name}: Perception", "1D100", by=who),),
        data={"grade": extra[0][0] if extra else ""}),) + tuple(state.pending)))


def roll_assess(draft: Draft, step: ev.PendingStep, rest) -> None:
    """The Perception roll of Assess Situation (seed 001 "Assess Situation")."""
    state = draft.state
    c = state.combatants[step.who]
    perception = sheet_of(c).skill("Perception")
    extra = [(str(step.data["grade"]), "Assessing on the move")] if step.data.get("grade") else []
    t = test(draft, c, "Perception", perception, "Assess Situation",
             grade_modifiers(state, c, perception, (), "both", combat=False, extra=extra))
    draft.emit(ev.NoteAdded(text=f"{c.name} " + ("reads the tactical situation: the GM reveals what changed"
                                                  if is_success(t.result) else "learns nothing new")))
    resume(draft, rest)


#: The actions this module decides (``"act:" + name``); the router
#: (:mod:`affray.rules.mythras.system`) lists the others.
ACTIONS = {"ready": ready, "sheathe": sheathe, "drop": drop, "speak": speak, "signal": signal, "assess": assess}

__all__ = ["ACTIONS", "BASIC", "FREE", "TURN", "act", "act_command", "roll_assess"]
