"""Combat Actions other than Attack, Parry and Evade: ``affray act WHO
ACTION[:ARG[:ARG]]`` (seed 001 "Combat Actions": "Proactive Actions",
"Reactive Actions", "Free Actions"; "Movement"; "Outmaneuvering";
"Leaping Attacks"; "Sweep Attacks"; "Aiming"; "Cover"; "Passive
Blocking"; the Impale and Entangle follow-ups; magic).

Proactive Actions cost 1 Action Point on the actor's own Turn:
``brace``, ``move[:TARGET]``, ``hustle[:run|sprint]``,
``change-range:TARGET``, ``outmaneuver``, ``ready:WEAPON`` (draw, sheathe,
pick up), ``reload``, ``aim``, ``take-cover:AP[:LOCATIONS]``, ``mount``,
``dismount``, ``struggle``, ``yank``, ``trip:TARGET`` (an entangling
wielder), ``leap:TARGET``, ``sweep:T1,T2,...``, ``cast:SPELL``,
``hold``; and ``pass``/``delay``/``stand`` (:func:`.turns.delay`).

Free Actions cost nothing and need no Turn: ``ward:LOCATIONS[:WEAPON]``,
``unward``, ``luck`` (re-roll), ``drop:WEAPON``, ``speak:TEXT``,
``signal:TEXT``, ``assess``, ``release[:TARGET]`` (a cast spell).
Reactive: ``interrupt`` (a delaying character takes a Turn inside
another's).
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.events import core as ev
from affray.events.mythras import MagicResolved
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.d100 import CRITICAL, FUMBLE, is_success
from affray.rules.mythras import conditions as cat
from affray.rules.mythras import movement_modes, tables, terrain
from affray.rules.mythras.attack import (
    _require_turn,
    defer_attack,
    kinds,
    open_deferred,
    resolve,
)
from affray.rules.mythras.common import (
    find_weapon,
    grade_modifiers,
    luck_left,
    rulings_of,
    sheet_of,
    test,
    weapon_hp,
)
from affray.rules.mythras.turns import advance, delay

FREE = ("ward", "unward", "luck", "drop", "speak", "signal", "assess", "release", "interrupt", "terrain")
TURN = ("brace", "move", "hustle", "change-range", "outmaneuver", "ready", "reload", "aim", "take-cover",
        "mount", "dismount", "struggle", "yank", "trip", "leap", "sweep", "cast", "hold",
        "climb", "crawl", "jump", "swim")  # the last four: movement_modes.py
BASIC = ("pass", "dither", "delay", "defend", "stand", "regain-footing")

_GROUPS = {"legs": ("right leg", "left leg"), "arms": ("right arm", "left arm"),
           "torso": ("abdomen", "chest"), "body": ("abdomen", "chest"), "all": tuple(tables.LOCATION_NAMES)}


def _at(draft: Draft) -> dict:
    s = draft.state
    return dict(cause=draft.next_version, round=s.round, step=s.step)


def _locations(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for part in text.split(","):
        p = " ".join(part.strip().replace("-", " ").replace("_", " ").lower().split())
        if not p:
            continue
        if p in _GROUPS:
            out.extend(x for x in _GROUPS[p] if x not in out)
        elif p in tables.LOCATION_NAMES:
            if p not in out:
                out.append(p)
        else:
            raise RuleError(f"unknown location {part.strip()!r}; use {', '.join(tables.LOCATION_NAMES)}, legs, arms, torso or all")
    return tuple(out)


def act(draft: Draft, who: str, action: str) -> None:
    """``affray act WHO ACTION``: dispatch to the action (see the module)."""
    state = draft.state
    name, _, arg = action.strip().partition(":")
    name = name.lower()
    if name in BASIC:
        _require_turn(state, who)
        _fizzle(draft, who, name)
        delay(draft, who, name)
        return
    if name in FREE:
        _FREE_ACTIONS[name](draft, who, arg)
        return
    if name in TURN:
        c = _require_turn(state, who)
        if c.combat_actions <= 0:
            raise RuleError(f"{c.name} has no Action Points left")
        _fizzle(draft, who, name)
        _TURN_ACTIONS[name](draft, who, arg)
        return
    raise RuleError(f"unknown action {name!r}; use one of: {', '.join(BASIC[:3] + ('stand',) + TURN + FREE)}")


def _spend(draft: Draft, who: str, reason: str) -> None:
    draft.emit(ev.ActionSpent(handle=who, kind="combat-action", reason=reason))


def _done(draft: Draft) -> None:
    draft.emit(ev.StepsAwaited(steps=()))
    advance(draft)


def _fizzle(draft: Draft, who: str, name: str) -> None:
    """A cast spell due at this Turn is lost unless held or released
    (seed 001 "Cast Magic")."""
    if name in ("hold",):
        return
    for cond in draft.state.combatants[who].conditions:
        if cond.name == "spell-ready" and cond.effects.get("due"):
            draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="not held: the magic dissipates"))


def _engaged_foes(state: State, c: Combatant) -> list[Combatant]:
    return [state.combatants[h] for h in c.engaged if h in state.combatants and state.combatants[h].can_fight]


def _can_move(state: State, c: Combatant, what: str) -> None:
    if any(k.name == "entangled" and k.location.endswith("leg") for k in c.conditions) or c.effect("no-move"):
        raise RuleError(f"{c.name}'s leg is entangled or stunned: no movement (seed 001 'Entangle')")
    if _engaged_foes(state, c):
        raise RuleError(f"{c.name} is engaged and cannot {what} (seed 001 'Movement': Outmaneuver or Withdraw first)")
    if c.stance == "prone":
        raise RuleError(f"{c.name} is prone: stand up first (a prone character may only crawl)")


# --------------------------------------------------------------------------- #
# Proactive Actions
# --------------------------------------------------------------------------- #


def _brace(draft: Draft, who: str, arg: str) -> None:
    """Brace: SIZ counts 50% bigger against Knockback and Leaping Attacks,
    doubled against Bash, until the next Turn (seed 001 "Brace")."""
    _spend(draft, who, "brace")
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "braced", ends="next-action", note="braced until its next turn", **_at(draft))))
    _done(draft)


def _move(draft: Draft, who: str, arg: str) -> None:
    """Move: up to the Base Movement Rate while unengaged; into contact with
    ``TARGET`` it engages, and a melee attack follows without another
    Action Point (seed 001 "Move", "Movement")."""
    state = draft.state
    c = state.combatants[who]
    _can_move(state, c, "move")
    if terrain.option(arg):  # difficult terrain, obstacles: terrain.py
        return terrain.move(draft, who, arg, hustle=False)
    _spend(draft, who, "move")
    if arg:
        target = find_combatant(state, arg)
        t = state.combatants[target]
        draft.emit(ev.CombatantMoved(handle=who, distance=c.movement, reason=f"moves into contact with {t.name}"))
        draft.emit(ev.EngagementChanged(a=who, b=target, engaged=True))
        draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
            "free-attack", ends="next-action", key=target, note=f"may attack {t.name} without another Action Point",
            **_at(draft))))
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=who, verb="attack", kind="turn", prompt=f"{c.name}: attack {t.name} now (no Action Point) or pass",
            options=("attack", "pass"), dice=(ev.DiceNeed("attack roll (if attacking)", "1D100", by=who),)),)))
        return
    draft.emit(ev.CombatantMoved(handle=who, distance=c.movement, reason="Move (Base Movement Rate)"))
    _done(draft)


def _hustle(draft: Draft, who: str, arg: str) -> None:
    """Hustle: Run (3x Movement Rate) or Sprint (5x) while unengaged; Ranged
    attacks on a running target are Hard, on a sprinting one Formidable,
    until its next Turn (seed 001 "Hustle", "Ranged Combat Situational
    Modifiers")."""
    state = draft.state
    c = state.combatants[who]
    if terrain.option(arg):  # difficult terrain, obstacles: terrain.py
        _can_move(state, c, "hustle")
        return terrain.move(draft, who, arg, hustle=True)
    gait = (arg or "run").lower()
    if gait not in ("run", "sprint"):
        raise RuleError("hustle takes run or sprint: 'affray act WHO hustle:sprint'")
    _can_move(state, c, "hustle")
    _spend(draft, who, f"hustle ({gait})")
    times = 3 if gait == "run" else 5
    draft.emit(ev.CombatantMoved(handle=who, distance=c.movement * times, reason=f"Hustle: {gait} ({times}x Movement Rate)"))
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "running" if gait == "run" else "sprinting", ends="next-action", note=f"{gait}s until its next turn", **_at(draft))))
    _done(draft)


def _change_range(draft: Draft, who: str, arg: str) -> None:
    """Change Range: close in on an opponent (engaging) when unengaged;
    stepping back out of an engagement needs Withdraw or Outmaneuver (seed
    001 "Change Range", "Engagement")."""
    if not arg:
        raise RuleError("change-range needs a target: 'affray act WHO change-range:TARGET'")
    _move(draft, who, arg)


def _outmaneuver(draft: Draft, who: str, arg: str) -> None:
    """Outmaneuver: a group Opposed Roll of Evade against every engaged foe
    with an Action Point, each spending one (seed 001 "Outmaneuvering")."""
    state = draft.state
    c = state.combatants[who]
    foes = [f for f in _engaged_foes(state, c) if f.combat_actions > 0]
    if not foes:
        raise RuleError(f"{c.name} has no engaged foe with Action Points to outmaneuver")
    _spend(draft, who, "outmaneuver")
    for f in foes:
        draft.emit(ev.ActionSpent(handle=f.handle, kind="combat-action", reason=f"corner {c.name} (Outmaneuvering)"))
    dice = (ev.DiceNeed(f"{c.name}: Evade", "1D100", by=who),) + tuple(
        ev.DiceNeed(f"{f.name}: Evade", "1D100", by=f.handle) for f in foes)
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=who, verb="roll", kind="outmaneuver", prompt=f"{c.name} outmaneuvers {', '.join(f.name for f in foes)}: Evade rolls",
        dice=dice, data={"foes": ",".join(f.handle for f in foes)}),)))


def _roll_outmaneuver(draft: Draft, step: ev.PendingStep, rest) -> None:
    state = draft.state
    c = state.combatants[step.who]
    mine = _evade(draft, c, "Outmaneuvering")
    beaten = []
    for h in str(step.data["foes"]).split(","):
        f = state.combatants[h]
        theirs = _evade(draft, f, f"corner {c.name}")
        if tables.opposed_winner(theirs.result, theirs.roll, mine.result, mine.roll) != "a":
            beaten.append(h)
            draft.emit(ev.ConditionApplied(handle=h, condition=cat.make(
                "outmaneuvered", ends="round-end", key=step.who, effects={f"from:{step.who}": 1},
                note=f"cannot attack {c.name} this round", **_at(draft))))
    foes = str(step.data["foes"]).split(",")
    if len(beaten) == len(foes):
        options = ("withdraw",) + tuple(f"engage:{h}" for h in foes)
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=step.who, verb="choose", kind="outmaneuver-end",
            prompt=f"{c.name} beats every foe: withdraw, or engage one alone for the round: {' | '.join(options)}",
            options=options, data={"foes": step.data["foes"]}),)))
        return
    _done(draft)


def _outmaneuver_end(draft: Draft, step: ev.PendingStep, option: str) -> None:
    who = step.who
    for h in str(step.data["foes"]).split(","):
        if option == "withdraw" or option != f"engage:{h}":
            if option == "withdraw":
                draft.emit(ev.EngagementChanged(a=who, b=h, engaged=False))
    if option == "withdraw":
        draft.emit(ev.NoteAdded(text=f"{draft.state.combatants[who].name} withdraws from the fight (seed 001 'Outmaneuvering')"))
    _done(draft)


def _evade(draft: Draft, c: Combatant, purpose: str) -> ev.SkillTested:
    skill = sheet_of(c).skill("Evade")
    return test(draft, c, "Evade", skill, purpose, grade_modifiers(draft.state, c, skill, (), "both", combat=False))


def _ready(draft: Draft, who: str, arg: str) -> None:
    """Ready: draw or sheathe a weapon (1 Action); picking up a dropped one
    takes 2 (seed 001 "Ready"); a broken weapon cannot be readied."""
    state = draft.state
    c = state.combatants[who]
    if not arg:
        raise RuleError("ready needs a weapon: 'affray act WHO ready:WEAPON'")
    w = find_weapon(c, arg, ready_only=False)
    if weapon_hp(c, w) <= 0 and w.hp > 0:
        raise RuleError(f"{w.name} is broken")
    dropped = next((k for k in c.conditions if k.name == "dropped" and k.id == f"dropped:{w.name.lower()}"), None)
    if w.name in c.ready:
        _spend(draft, who, f"sheathe {w.name}")
        draft.emit(ev.WeaponDropped(handle=who, weapon=w.name, reason="sheathed"))
        _done(draft)
        return
    hands = sum(x.hands for x in sheet_of(c).weapons if x.name in c.ready and x.kind != "unarmed")
    if hands + w.hands > 2:
        raise RuleError(f"{c.name}'s hands are full ({', '.join(c.ready)}); sheathe or drop something first")
    if dropped is not None and not dropped.effects.get("stage"):
        _spend(draft, who, f"reach for {w.name}")
        draft.emit(ev.ConditionApplied(handle=who, condition=replace(
            dropped, effects={**dropped.effects, "stage": 1}, note=f"{w.name} in hand: one more Action to stand ready")))
        _done(draft)
        return
    _spend(draft, who, f"ready {w.name}")
    if dropped is not None:
        draft.emit(ev.ConditionExpired(handle=who, condition_id=dropped.id, reason="picked up"))
    draft.emit(ev.WeaponReadied(handle=who, weapon=w.name))
    _done(draft)


def _reload(draft: Draft, who: str, arg: str) -> None:
    """Reload: one Turn off the weapon's Load (seed 001 "Load", "Ready")."""
    c = draft.state.combatants[who]
    conds = [k for k in c.conditions if k.name == "unloaded" and (not arg or k.id == f"unloaded:{arg.lower()}")]
    if not conds:
        raise RuleError(f"{c.name} has nothing to reload")
    cond = conds[0]
    left = cond.effects.get("load", 1) - 1
    _spend(draft, who, "reload")
    weapon = cond.id.split(":", 1)[1]
    if left <= 0:
        draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="reloaded"))
    else:
        draft.emit(ev.ConditionApplied(handle=who, condition=replace(
            cond, effects={**cond.effects, "load": left}, note=f"{weapon}: {left} Turn(s) to reload")))
    _done(draft)


def _aim(draft: Draft, who: str, arg: str) -> None:
    """Aim: steady a Ranged weapon; once a whole Combat Round has passed
    (from the next round on) the shot's difficulty is one grade easier;
    further rounds add nothing (seed 001 "Aiming")."""
    c = draft.state.combatants[who]
    if not any(w.kind == "ranged" and w.name in c.ready for w in sheet_of(c).weapons):
        raise RuleError(f"{c.name} holds no Ranged weapon to aim")
    _spend(draft, who, "aim")
    if not c.has("aiming"):
        draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
            "aiming", ends="event", note="aiming: the shot is one grade easier from the next round on", **_at(draft))))
    _done(draft)


def _take_cover(draft: Draft, who: str, arg: str) -> None:
    """Take Cover: duck behind cover of ``AP`` Armor Points over
    ``LOCATIONS`` (default all); unlike Evade it leaves the character
    standing (seed 001 "Take Cover", "Cover")."""
    ap_text, _, where = arg.partition(":")
    try:
        ap = int(ap_text)
    except ValueError:
        raise RuleError("take-cover needs the cover's Armor Points: 'affray act WHO take-cover:4:legs,abdomen'") from None
    if not 0 < ap <= 100:
        raise RuleError("cover Armor Points must be 1..100")
    locations = _locations(where or "all")
    _spend(draft, who, "take cover")
    effects = {"ap": ap, **{f"loc:{l}": 1 for l in locations}}
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "in-cover", ends="event", effects=effects, note=f"cover {ap} AP over {', '.join(locations)}", **_at(draft))))
    _done(draft)


def _mount(draft: Draft, who: str, arg: str) -> None:
    """Mount a riding beast (seed 001 "Mount"); a mounted attacker makes
    the defence Hard ("Defending ... against mounted foe")."""
    c = draft.state.combatants[who]
    if c.has("mounted"):
        raise RuleError(f"{c.name} is already mounted")
    _spend(draft, who, "mount")
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "mounted", ends="event", note=f"mounted{(' on ' + arg) if arg else ''}", **_at(draft))))
    _done(draft)


def _dismount(draft: Draft, who: str, arg: str) -> None:
    c = draft.state.combatants[who]
    cond = next((k for k in c.conditions if k.name == "mounted"), None)
    if cond is None:
        raise RuleError(f"{c.name} is not mounted")
    _spend(draft, who, "dismount")
    draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="dismounts"))
    _done(draft)


def _struggle(draft: Draft, who: str, arg: str) -> None:
    """Struggle: break free of an Entangle (Opposed Brawn) or a Grip
    (Opposed Brawn or Unarmed against whichever the gripper prefers), seed
    001 "Struggle", "Entangle", "Grip"."""
    c = draft.state.combatants[who]
    hold = next((k for k in c.conditions if k.name in ("entangled", "gripped")), None)
    if hold is None:
        raise RuleError(f"{c.name} is neither entangled nor gripped")
    holder = draft.state.combatants[cat.from_of(hold)]
    _spend(draft, who, f"struggle against {holder.name}")
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=who, verb="roll", kind="struggle", prompt=f"{c.name} struggles against {holder.name}: opposed rolls",
        dice=(ev.DiceNeed(f"{c.name}: Brawn", "1D100", by=who), ev.DiceNeed(f"{holder.name}: resist", "1D100", by=holder.handle)),
        data={"hold": hold.id, "holder": holder.handle}),)))


def _best(c: Combatant, *names: str) -> tuple[str, int]:
    s = sheet_of(c)
    return max(((n, s.skill(n)) for n in names), key=lambda p: p[1])


def _roll_struggle(draft: Draft, step: ev.PendingStep, rest) -> None:
    state = draft.state
    c, holder = state.combatants[step.who], state.combatants[str(step.data["holder"])]
    hold = next((k for k in c.conditions if k.id == step.data["hold"]), None)
    gripped = hold is not None and hold.name == "gripped"
    name, skill = _best(c, "Brawn", "Unarmed") if gripped else ("Brawn", sheet_of(c).skill("Brawn"))
    mine = test(draft, c, name, skill, "break free", grade_modifiers(state, c, skill, (), "both", combat=False))
    h_name, h_skill = _best(holder, "Brawn", "Unarmed") if gripped else ("Brawn", sheet_of(holder).skill("Brawn"))
    theirs = test(draft, holder, h_name, h_skill, "hold on", grade_modifiers(state, holder, h_skill, (), "both", combat=False))
    if hold is not None and tables.opposed_winner(mine.result, mine.roll, theirs.result, theirs.roll) == "a":
        draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=hold.id, reason="struggled free"))
    _done(draft)


def _yank(draft: Draft, who: str, arg: str) -> None:
    """Yank an impaled weapon free: the Ready Weapon action and a Brawn
    roll, opposed when the victim resists (ruling ``yank_resisted``); seed
    001 "Impale"."""
    state = draft.state
    c = state.combatants[who]
    found = [(o, k) for o in state.combatants.values() for k in o.conditions
             if k.name == "impaled" and cat.from_of(k) == who]
    if arg:
        found = [(o, k) for o, k in found if o.handle == find_combatant(state, arg)]
    if not found:
        raise RuleError(f"{c.name} has no weapon stuck in anyone")
    victim, cond = found[0]
    w = sheet_of(c).weapons[cond.effects.get("weapon", 0)]
    _spend(draft, who, f"ready {w.name}: yank it free")
    opposed = rulings_of(state).yank_resisted == "opposed" and victim.can_fight
    dice = [ev.DiceNeed(f"{c.name}: Brawn", "1D100", by=who)]
    if opposed:
        dice.append(ev.DiceNeed(f"{victim.name}: Brawn (resists)", "1D100", by=victim.handle))
    half = "" if "barbed" in w.traits else " (halved)"
    dice.append(ev.DiceNeed(f"{w.name} damage{half}, if it comes free", w.damage, by=who))
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=who, verb="roll", kind="yank", prompt=f"{c.name} yanks {w.name} out of {victim.name}'s {cond.location}",
        dice=tuple(dice), data={"victim": victim.handle, "cond": cond.id, "opposed": int(opposed)}),)))


def _roll_yank(draft: Draft, step: ev.PendingStep, rest) -> None:
    from affray.rules.mythras.damage import hurt

    state = draft.state
    c, v = state.combatants[step.who], state.combatants[str(step.data["victim"])]
    cond = next(k for k in v.conditions if k.id == step.data["cond"])
    w = sheet_of(c).weapons[cond.effects.get("weapon", 0)]
    brawn = sheet_of(c).skill("Brawn")
    mine = test(draft, c, "Brawn", brawn, f"yank {w.name} free", grade_modifiers(state, c, brawn, (), "both", combat=False))
    free = is_success(mine.result)
    if step.data.get("opposed"):
        vb = sheet_of(v).skill("Brawn")
        theirs = test(draft, v, "Brawn", vb, f"resist the yank", grade_modifiers(state, v, vb, (), "both", combat=False))
        free = tables.opposed_winner(mine.result, mine.roll, theirs.result, theirs.roll) == "a"
    rolled = draft.roll(w.damage, f"{w.name} damage (yank)", by=c.handle).total
    follow: list[ev.PendingStep] = []
    if free:
        damage = rolled if "barbed" in w.traits else rolled // 2
        draft.emit(ev.ConditionExpired(handle=v.handle, condition_id=cond.id, reason=f"{c.name} yanks {w.name} free"))
        follow = hurt(draft, v.handle, cond.location, damage, ignore_armour=True,
                      base={"roll": mine.roll, "skill": mine.target},
                      note=f"{w.name} yanked free: {rolled}" + ("" if "barbed" in w.traits else " halved") + ", no Damage Modifier, armour ignored")
    else:
        draft.emit(ev.NoteAdded(text=f"{w.name} stays stuck in {v.name}'s {cond.location}; {c.name} may try again next turn"))
    if follow:
        draft.emit(ev.StepsAwaited(steps=tuple(follow) + tuple(rest)))
        return
    _done(draft)


def _trip(draft: Draft, who: str, arg: str) -> None:
    """The Turn after an Entangle, its wielder may spend an Action Point on
    an automatic Trip Opponent attempt (seed 001 "Entangle"): the victim's
    opposed Brawn, Evade or Acrobatics against the wielder's weapon roll."""
    state = draft.state
    c = state.combatants[who]
    target = find_combatant(state, arg) if arg else ""
    victims = [o for o in state.combatants.values() if (not target or o.handle == target)
               and any(k.name == "entangled" and cat.from_of(k) == who for k in o.conditions)]
    if not victims:
        raise RuleError(f"{c.name} entangles nobody{(' called ' + arg) if arg else ''}: trip needs an Entangle first")
    v = victims[0]
    cond = next(k for k in v.conditions if k.name == "entangled" and cat.from_of(k) == who)
    w = sheet_of(c).weapons[cond.effects.get("weapon", 0)]
    _spend(draft, who, f"trip {v.name} with {w.name}")
    skill_name, skill = sheet_of(c).weapon_skill(w)
    tested = test(draft, c, skill_name, skill, f"trip {v.name} (Entangle)", grade_modifiers(state, c, skill, (), "attack"))
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=v.handle, verb="roll", kind="trip",
        prompt=f"{v.name}: opposed roll against the entangling trip ({tested.roll} vs {tested.target}%) or fall prone",
        dice=(ev.DiceNeed("Brawn/Evade/Acrobatics (trip)", "1D100", by=v.handle),),
        data={"roll": tested.roll, "skill": tested.target, "why": "tripped by an entangling weapon"}),)))


def _leap(draft: Draft, who: str, arg: str) -> None:
    """Leaping Attack: an Opposed Roll of the leaper's Athletics against the
    defender's Brawn or Evade; a quadruped target makes it one grade
    harder; only against up to twice the leaper's SIZ (a braced target's
    SIZ x1.5). Won: the defender is knocked prone with the leaper astride
    (pinned); Special Effects per the Differential Roll; no damage (seed
    001 "Leaping Attacks")."""
    from affray.rules.mythras.damage import effective_siz

    state = draft.state
    c = state.combatants[who]
    if not arg:
        raise RuleError("leap needs a target: 'affray act WHO leap:TARGET'")
    t = state.combatants[find_combatant(state, arg)]
    if effective_siz(t, "leap") > 2 * sheet_of(c).characteristics.SIZ:
        raise RuleError(f"{t.name} is more than twice {c.name}'s SIZ{' (braced)' if t.has('braced') else ''}: a leap cannot bring it down")
    _spend(draft, who, f"leap at {t.name}")
    exchange = state.next_exchange
    draft.emit(ev.AttackDeclared(exchange=exchange, attacker=who, target=t.handle, weapon="", kind="leap"))
    if t.handle not in c.engaged:
        draft.emit(ev.EngagementChanged(a=who, b=t.handle, engaged=True))
    athletics = sheet_of(c).skill("Athletics")
    extra = [("hard", "a quadruped target")] if sheet_of(t).legs >= 4 else []
    mods = grade_modifiers(state, c, athletics, (), "both", combat=False, extra=extra)
    tested = test(draft, c, "Athletics", athletics, f"leap at {t.name}", mods)
    draft.emit(ev.AttackResolved(exchange=exchange, hit=is_success(tested.result), critical=tested.result == CRITICAL,
                                 fumble=tested.result == FUMBLE, roll=tested.roll, skill=tested.target))
    name, skill = _best(t, "Brawn", "Evade")
    if not t.can_fight:
        draft.emit(ev.ReactionChosen(exchange=exchange, handle=t.handle, reaction="none"))
        resolve(draft, "none", None, "failure", 0)
        return
    draft.emit(ev.ReactionChosen(exchange=exchange, handle=t.handle, reaction="withstand"))
    d = test(draft, t, name, skill, f"withstand {c.name}'s leap", grade_modifiers(state, t, skill, (), "both", combat=False))
    won = tables.opposed_winner(tested.result, tested.roll, d.result, d.roll) == "a"
    if won:
        if t.stance != "prone":
            draft.emit(ev.StanceChanged(handle=t.handle, stance="prone", reason=f"{c.name} leaps on them"))
        draft.emit(ev.ConditionApplied(handle=t.handle, condition=cat.make(
            "pinned", ends="event", key=who, effects={f"from:{who}": 1},
            note=f"{c.name} astride: no regaining footing until they leave or an Arise is won", **_at(draft))))
    resolve(draft, "leap", None, d.result, d.roll, d_target=d.target)


def _sweep(draft: Draft, who: str, arg: str) -> None:
    """Sweep Attack (at the GM's call): one attack roll applied to every
    target in the path; each defender resolves it separately, one exchange
    after the other (seed 001 "Sweep Attacks")."""
    state = draft.state
    c = state.combatants[who]
    targets = [find_combatant(state, t) for t in arg.split(",") if t.strip()]
    if len(targets) < 2:
        raise RuleError("sweep needs two or more targets: 'affray act WHO sweep:T1,T2'")
    from affray.rules.mythras.common import default_weapon

    w = default_weapon(c)
    skill_name, skill = sheet_of(c).weapon_skill(w)
    _spend(draft, who, f"sweep attack on {', '.join(state.combatants[t].name for t in targets)}")
    tested = test(draft, c, skill_name, skill, f"sweep attack with {w.name}", grade_modifiers(state, c, skill, (), "attack"))
    for t in targets[1:]:
        defer_attack(draft, who, t, w.name, tested.roll, tested.target, "sweep")
    open_deferred(draft, who, targets[0], w.name, tested.roll, tested.target, "sweep")


# --------------------------------------------------------------------------- #
# Magic
# --------------------------------------------------------------------------- #


def _spell(c: Combatant, name: str):
    spells = sheet_of(c).spells
    want = name.strip().lower()
    hits = [s for s in spells if s.name.lower() == want] or [s for s in spells if s.name.lower().startswith(want)]
    if len(hits) != 1:
        raise RuleError(f"{c.name} has no spell {name!r} (spells: {', '.join(s.name for s in spells) or 'none'})")
    return hits[0]


def _cast(draft: Draft, who: str, arg: str) -> None:
    """Cast Magic: each Turn of the Casting Time costs an Action Point;
    once concluded, the magic can be released at any moment up to the
    caster's next Turn (seed 001 "Cast Magic")."""
    c = draft.state.combatants[who]
    casting = next((k for k in c.conditions if k.name == "casting"), None)
    if casting is not None and not arg:
        spell = sheet_of(c).spells[casting.effects.get("spell", 0)]
    else:
        spell = _spell(c, arg) if arg else None
        if spell is None:
            raise RuleError("cast needs a spell: 'affray act WHO cast:SPELL'")
        if casting is not None:
            draft.emit(ev.ConditionExpired(handle=who, condition_id=casting.id, reason="casting abandoned"))
            casting = None
    idx = sheet_of(c).spells.index(spell)
    _spend(draft, who, f"cast {spell.name}")
    left = (casting.effects.get("left", 0) if casting is not None else spell.casting_time) - 1
    if left > 0:
        draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
            "casting", ends="event", effects={"spell": idx, "left": left},
            note=f"casting {spell.name}: {left} more Turn(s)", **_at(draft))))
    else:
        if casting is not None:
            draft.emit(ev.ConditionExpired(handle=who, condition_id=casting.id, reason="casting concluded"))
        draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
            "spell-ready", ends="event", key=str(idx), effects={"spell": idx},
            note=f"{spell.name} ready to release", **_at(draft))))
    _done(draft)


def _hold(draft: Draft, who: str, arg: str) -> None:
    """Hold Magic: keep a cast spell in check for another Turn (1 AP); it
    lets enemies use Counter Spell freely (seed 001 "Hold Magic")."""
    c = draft.state.combatants[who]
    cond = next((k for k in c.conditions if k.name == "spell-ready"), None)
    if cond is None:
        raise RuleError(f"{c.name} has no cast spell to hold")
    _spend(draft, who, "hold magic")
    effects = {k: v for k, v in cond.effects.items() if k != "due"}
    draft.emit(ev.ConditionApplied(handle=who, condition=replace(
        cond, effects={**effects, "held": 1}, note=cond.note.split(";")[0] + "; held (Hold Magic)")))
    _done(draft)


def _release(draft: Draft, who: str, arg: str) -> None:
    """Release a cast spell (no further Action Point): the casting roll is
    made now; an enemy able to counter may answer (seed 001 "Cast Magic",
    "Hold Magic": the roll of a held spell is made when it is cast)."""
    state = draft.state
    c = state.combatants[who]
    cond = next((k for k in c.conditions if k.name == "spell-ready"), None)
    if cond is None:
        raise RuleError(f"{c.name} has no cast spell to release; cast one first with 'affray act {who} cast:SPELL'")
    if state.exchange is not None or any(s.kind not in ("turn", "end-round") for s in state.pending):
        raise RuleError("release the spell when no exchange is open (see 'affray pending')")
    spell = sheet_of(c).spells[cond.effects.get("spell", 0)]
    target = find_combatant(state, arg) if arg else ""
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=who, verb="roll", kind="cast", prompt=f"{c.name} releases {spell.name}: roll {spell.skill}",
        dice=(ev.DiceNeed(f"{c.name}: {spell.skill}", "1D100", by=who),),
        data={"cond": cond.id, "target": target, "held": cond.effects.get("held", 0),
              "resume": ",".join(s.who for s in state.pending if s.kind == "turn")}),) + tuple(state.pending)))


def _roll_cast(draft: Draft, step: ev.PendingStep, rest) -> None:
    state = draft.state
    c = state.combatants[step.who]
    cond = next(k for k in c.conditions if k.id == step.data["cond"])
    spell = sheet_of(c).spells[cond.effects.get("spell", 0)]
    skill = sheet_of(c).skill(spell.skill)
    tested = test(draft, c, spell.skill, skill, f"cast {spell.name}", grade_modifiers(state, c, skill, (), "both", combat=False))
    draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=cond.id, reason="released"))
    target = str(step.data.get("target", ""))
    if not is_success(tested.result):
        draft.emit(MagicResolved(caster=c.handle, spell=spell.name, target=target, outcome="fails", effect=spell.effect))
        _after_magic(draft, rest)
        return
    held = bool(step.data.get("held"))
    free = held and rulings_of(state).held_counter_cost == "free"
    counterers = [o for o in state.combatants.values() if o.side != c.side and o.can_fight
                  and (free or o.combat_actions > 0) and any(s.counter and s.casting_time == 1 for s in sheet_of(o).spells)]
    if counterers:
        o = counterers[0]
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=o.handle, verb="choose", kind="counter-spell",
            prompt=f"{o.name}: counter {c.name}'s {spell.name} ({tested.roll} vs {tested.target}%)? counter | none"
                   + (" (free: the spell was held)" if free else " (1 AP)"),
            options=("counter", "none"),
            data={"caster": c.handle, "spell": spell.name, "effect": spell.effect, "target": target,
                  "roll": tested.roll, "skill": tested.target, "free": int(free)}),) + tuple(rest)))
        return
    draft.emit(MagicResolved(caster=c.handle, spell=spell.name, target=target, outcome="takes effect", effect=spell.effect))
    _after_magic(draft, rest)


def _counter_choice(draft: Draft, step: ev.PendingStep, option: str) -> None:
    """Counter Spell (a Reaction, 1 AP; free against held magic): an
    opposed roll against the casting roll; success negates the whole spell
    (seed 001 "Counter Spell")."""
    state = draft.state
    rest = tuple(s for s in state.pending if s is not step)
    d = step.data
    if option == "none":
        draft.emit(MagicResolved(caster=str(d["caster"]), spell=str(d["spell"]), target=str(d["target"]),
                                 outcome="takes effect", effect=str(d["effect"])))
        _after_magic(draft, rest)
        return
    o = state.combatants[step.who]
    spell = next(s for s in sheet_of(o).spells if s.counter and s.casting_time == 1)
    if not d.get("free"):
        draft.emit(ev.ActionSpent(handle=o.handle, kind="combat-action", reason=f"Counter Spell ({spell.name})"))
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=o.handle, verb="roll", kind="counter-spell", prompt=f"{o.name} counters with {spell.name}: roll {spell.skill}",
        dice=(ev.DiceNeed(f"{o.name}: {spell.skill}", "1D100", by=o.handle),), data=dict(d)),) + rest))


def _roll_counter_spell(draft: Draft, step: ev.PendingStep, rest) -> None:
    state = draft.state
    o = state.combatants[step.who]
    spell = next(s for s in sheet_of(o).spells if s.counter and s.casting_time == 1)
    skill = sheet_of(o).skill(spell.skill)
    t = test(draft, o, spell.skill, skill, f"counter with {spell.name}", grade_modifiers(state, o, skill, (), "both", combat=False))
    caster_level = tables.skill_test(int(step.data["roll"]), int(step.data["skill"]))
    won = tables.opposed_winner(t.result, t.roll, caster_level, int(step.data["roll"])) == "a"
    d = step.data
    draft.emit(MagicResolved(caster=str(d["caster"]), spell=str(d["spell"]), target=str(d["target"]),
                             outcome=f"countered by {o.name}" if won else "takes effect", effect=str(d["effect"])))
    _after_magic(draft, rest)


def _after_magic(draft: Draft, rest) -> None:
    if rest:
        draft.emit(ev.StepsAwaited(steps=tuple(rest)))
    else:
        _done(draft)


# --------------------------------------------------------------------------- #
# Free and Reactive Actions
# --------------------------------------------------------------------------- #


def _no_open_attack(state: State, what: str) -> None:
    if state.exchange is not None and state.exchange.resolved:
        raise RuleError(f"{what} must be set before an opponent rolls to attack (seed 001 'Ward Location')")


def _ward(draft: Draft, who: str, arg: str) -> None:
    """Ward Location (free): a weapon passively blocks the given locations
    as a parry of its Size until it attacks or actively parries; one
    location for a weapon, a shield's ``ward`` (default 2), doubled with
    ``:crouch`` (seed 001 "Ward Location", "Passive Blocking")."""
    state = draft.state
    c = state.combatants[who]
    _no_open_attack(state, "Ward Location")
    parts = arg.split(":")
    if not parts[0]:
        raise RuleError("ward needs locations: 'affray act WHO ward:left-arm[:WEAPON][:crouch]'")
    locations = _locations(parts[0])
    crouch = "crouch" in [p.lower() for p in parts[1:]]
    names = [p for p in parts[1:] if p.lower() != "crouch"]
    from affray.rules.mythras.common import parry_weapons, usable

    w = find_weapon(c, names[0]) if names else (parry_weapons(c, state) or [None])[0]
    if w is None or w.kind not in ("melee", "shield"):
        raise RuleError(f"{c.name} holds nothing ready to ward with")
    why = usable(state, c, w)
    if why:
        raise RuleError(why)
    limit = (w.ward or (2 if w.kind == "shield" else 1)) * (2 if crouch else 1)
    if len(locations) > limit:
        raise RuleError(f"{w.name} covers at most {limit} location(s)" + ("" if crouch else "; ':crouch' behind a shield doubles it"))
    idx = [x.name for x in sheet_of(c).weapons].index(w.name)
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "warding", ends="event", key=w.name.lower(), effects={"weapon": idx, **{f"loc:{l}": 1 for l in locations}},
        note=f"{w.name} wards {', '.join(locations)}", **_at(draft))))
    if crouch and "crouching" not in [k.name for k in c.conditions]:
        draft.emit(ev.NoteAdded(text=f"{c.name} crouches behind {w.name}: fighting from a crouch is Hard (--situation crouching)"))


def _unward(draft: Draft, who: str, arg: str) -> None:
    c = draft.state.combatants[who]
    conds = [k for k in c.conditions if k.name == "warding"]
    if not conds:
        raise RuleError(f"{c.name} wards nothing")
    for k in conds:
        draft.emit(ev.ConditionExpired(handle=who, condition_id=k.id, reason="stops warding"))


def _drop(draft: Draft, who: str, arg: str) -> None:
    """Drop Item (free, seed 001)."""
    c = draft.state.combatants[who]
    w = find_weapon(c, arg) if arg else None
    if w is None or w.name not in c.ready:
        raise RuleError(f"drop needs a held weapon: {', '.join(c.ready) or 'nothing held'}")
    draft.emit(ev.WeaponDropped(handle=who, weapon=w.name, reason="dropped (free action)"))
    idx = [x.name for x in sheet_of(c).weapons].index(w.name)
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "dropped", ends="event", key=w.name.lower(), effects={"weapon": idx, "stage": 0},
        note=f"{w.name} lies on the ground", **_at(draft))))


def _speak(draft: Draft, who: str, arg: str) -> None:
    """Speak (free): a short phrase, five seconds or less (seed 001)."""
    if not arg.strip():
        raise RuleError("speak needs the words: 'affray act WHO \"speak:Look out behind you!\"'")
    draft.emit(ev.NoteAdded(text=f"{draft.state.combatants[who].name} says: {arg.strip()}"))


def _signal(draft: Draft, who: str, arg: str) -> None:
    """Signal (free, if unengaged; seed 001)."""
    c = draft.state.combatants[who]
    if _engaged_foes(draft.state, c):
        raise RuleError(f"{c.name} is engaged: signalling is free only when unengaged (seed 001 'Signal')")
    draft.emit(ev.NoteAdded(text=f"{c.name} signals: {arg.strip() or '(a gesture)'}"))


def _assess(draft: Draft, who: str, arg: str) -> None:
    """Assess Situation (free, if unengaged): a Perception roll, Hard while
    Running, Formidable while Sprinting (seed 001)."""
    state = draft.state
    c = state.combatants[who]
    if _engaged_foes(state, c):
        raise RuleError(f"{c.name} is engaged: Assess Situation needs a moment unengaged (seed 001)")
    extra = [("hard", "Assessing while Running")] if c.has("running") else (
        [("formidable", "Assessing while Sprinting")] if c.has("sprinting") else [])
    perception = sheet_of(c).skill("Perception")
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=who, verb="roll", kind="assess", prompt=f"{c.name} assesses the situation: Perception",
        dice=(ev.DiceNeed(f"{c.name}: Perception", "1D100", by=who),),
        data={"grade": extra[0][0] if extra else ""}),) + tuple(state.pending)))


def _roll_assess(draft: Draft, step: ev.PendingStep, rest) -> None:
    state = draft.state
    c = state.combatants[step.who]
    perception = sheet_of(c).skill("Perception")
    extra = [(str(step.data["grade"]), "Assessing on the move")] if step.data.get("grade") else []
    t = test(draft, c, "Perception", perception, "Assess Situation",
             grade_modifiers(state, c, perception, (), "both", combat=False, extra=extra))
    draft.emit(ev.NoteAdded(text=f"{c.name} " + ("reads the tactical situation: the GM reveals what changed"
                                                  if is_success(t.result) else "learns nothing new")))
    _after_magic(draft, rest)


def _luck(draft: Draft, who: str, arg: str) -> None:
    """Use Luck Point (free): re-roll one's own latest roll of the open
    exchange, the attack roll or the parry/evade, while no Special Effect
    has been chosen and no damage rolled (seed 001 "Use Luck Point"). The
    new roll supersedes the old in the log."""
    state = draft.state
    c = state.combatants[who]
    if luck_left(c) <= 0:
        raise RuleError(f"{c.name} has no Luck Points left")
    x = state.exchange
    if x is None or not x.resolved:
        raise RuleError("a Luck Point re-rolls a roll of the open exchange (the attack or the reaction); none is open")
    step = state.pending[0] if state.pending else None
    if step is None or step.kind not in ("react", "special-effect", "damage") or (
            step.kind == "special-effect" and step.data.get("chosen")):
        raise RuleError("too late to re-roll: the exchange has moved on (Special Effects chosen or damage rolled)")
    if step.kind == "damage" and x.effects.get("special_effects"):
        raise RuleError("too late to re-roll: the Special Effects have been chosen")
    spent = sum(k.effects.get("spent", 0) for k in c.conditions if k.name == "luck-spent")
    kinds_ = kinds(x)
    if who == x.attacker and "helpless" not in kinds_:
        _spend_luck(draft, c, spent, "re-roll the attack")
        weapon = find_weapon(c, x.weapon, ready_only=False)
        skill_name, skill = sheet_of(c).weapon_skill(weapon)
        mods = x.modifiers
        tested = test(draft, c, skill_name, skill, f"attack on {state.combatants[x.target].name} (Luck Point re-roll)", mods)
        draft.emit(ev.AttackResolved(exchange=x.id, hit=is_success(tested.result), critical=tested.result == CRITICAL,
                                     fumble=tested.result == FUMBLE, roll=tested.roll, skill=tested.target))
        if step.kind == "react":
            from affray.rules.mythras.attack import offer_reaction

            offer_reaction(draft)
            return
        _re_resolve(draft, x.effects.get("d_roll", 0), x.effects.get("d_target", 0))
        return
    if who == x.target and x.reaction in ("parry", "evade") and step.kind != "react":
        _spend_luck(draft, c, spent, f"re-roll the {x.reaction}")
        target = int(x.effects.get("d_target", 0))
        rolled = draft.roll("1D100", f"{x.reaction} (Luck Point re-roll)", by=who)
        result = tables.skill_test(rolled.total, target)
        skill_name = "Evade" if x.reaction == "evade" else sheet_of(c).weapon_skill(find_weapon(c, x.with_item, ready_only=False))[0]
        draft.emit(ev.SkillTested(handle=who, skill=skill_name, base=target, target=target, roll=rolled.total,
                                  result=result, purpose=f"{x.reaction} (Luck Point re-roll)"))
        _re_resolve(draft, rolled.total, target)
        return
    raise RuleError(f"{c.name} has no roll in this exchange to re-roll")


def _spend_luck(draft: Draft, c: Combatant, spent: int, why: str) -> None:
    draft.emit(ev.ConditionApplied(handle=c.handle, condition=cat.make(
        "luck-spent", ends="never", effects={"spent": spent + 1},
        note=f"{spent + 1} of {sheet_of(c).luck_points} Luck Points spent ({why})", **_at(draft))))


def _re_resolve(draft: Draft, d_roll: int, d_target: int) -> None:
    """Resolve the exchange anew after a Luck Point re-roll."""
    state = draft.state
    x = state.exchange
    c = state.combatants[x.target]
    item = find_weapon(c, x.with_item, ready_only=False) if x.with_item else None
    if x.reaction in ("parry", "evade"):
        level = tables.skill_test(d_roll, d_target)
    else:
        level = "failure"
    resolve(draft, x.reaction or "none", item, level, d_roll, shared_penalty=int(x.effects.get("shared", 0)),
            d_target=d_target)


def _interrupt(draft: Draft, who: str, arg: str) -> None:
    """Interrupt (Reactive, delaying characters only): halt an opponent's
    Turn to take the delayed Turn now; the opponent's Turn resumes after
    (seed 001 "Interrupt"; ruling ``interrupt_timing``: as the opponent's
    Turn begins)."""
    state = draft.state
    c = state.combatants[who]
    if not c.has("holding"):
        raise RuleError(f"only a delaying character can interrupt; {c.name} is not holding Action Points ('affray act {who} delay')")
    if c.combat_actions <= 0:
        raise RuleError(f"{c.name} has no Action Points left")
    turn = next((s for s in state.pending if s.kind == "turn"), None)
    if state.exchange is not None or turn is None or turn.who == who:
        raise RuleError("an Interrupt halts another combatant's Turn before its declaration; wait for one (see 'affray pending')")
    other = state.combatants[turn.who]
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "interrupting", ends="event", effects={f"from:{other.handle}": 1}, note=f"interrupts {other.name}'s turn", **_at(draft))))
    draft.emit(ev.TurnBegan(handles=(who,), action_no=state.action_no))
    from affray.rules.mythras.turns import turn_step

    step = turn_step(draft.state, who, state.action_no)
    options = tuple(o for o in step.options if o != "delay")
    draft.emit(ev.StepsAwaited(steps=(replace(step, options=options, prompt=f"{c.name} interrupts {other.name}: "
                                              + " | ".join(options)),)))


_TURN_ACTIONS = {
    "brace": _brace, "move": _move, "hustle": _hustle, "change-range": _change_range, "outmaneuver": _outmaneuver,
    "ready": _ready, "reload": _reload, "aim": _aim, "take-cover": _take_cover, "mount": _mount,
    "dismount": _dismount, "struggle": _struggle, "yank": _yank, "trip": _trip, "leap": _leap, "sweep": _sweep,
    "cast": _cast, "hold": _hold, **movement_modes.TURN_ACTIONS,
}
_FREE_ACTIONS = {
    "ward": _ward, "unward": _unward, "luck": _luck, "drop": _drop, "speak": _speak, "signal": _signal,
    "assess": _assess, "release": _release, "interrupt": _interrupt, **terrain.FREE_ACTIONS,
}

ROLL_HANDLERS = {
    "outmaneuver": _roll_outmaneuver, "struggle": _roll_struggle, "yank": _roll_yank, "cast": _roll_cast,
    "counter-spell": _roll_counter_spell, "assess": _roll_assess,
}

FOLLOW_UPS = {"outmaneuver-end": _outmaneuver_end, "counter-spell": _counter_choice}

__all__ = ["act", "ROLL_HANDLERS", "FOLLOW_UPS"]
