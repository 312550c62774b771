"""Melee and missile attacks at their strike rank (seed 002 "3) MELEE
PHASE", "1. Melee Attack", "2. Missile Attack", "SPECIAL TACTICS",
"Firing a missile weapon while engaged", "FLEXIBLE WEAPONS", "HIGH
GROUND", "PROHIBITED MOUNTED WEAPONS"; rules-reference.md C1).

``affray attack WHO TARGET`` answers the ``strike`` step of a declared
attack: the target is chosen now (seed 002: "one can select which opponent
to attack on the SR that the attack occurs on"); the weapon and mode are
the declared ones. The attack roll's level of success (critical, special,
success, failure, fumble) is recorded; a hit opens the defender's
reaction if it declared one that covers this attacker (or has an action to
abort into one), else goes straight to damage. ``affray act WHO pass``
drops the declared attack (a plain abort).
"""

from __future__ import annotations

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import rq3 as rev
from affray.projections.state import State
from affray.rules.base import Draft, RuleError, check_target, find_combatant
from affray.rules.rq3 import core, tables

#: Tactics whose attack roll is not the weapon's plain attack chance.
HALF = ("aimed",)


def defence_options(state: State, defender: str, attacker: str) -> tuple[str, ...]:
    """What ``defender`` may do against ``attacker``'s blow: ``parry`` /
    ``dodge`` if declared against this source (or against any), the
    Defensive Aborts ``abort-parry`` / ``abort-dodge`` while an unused
    action and the round's abort remain, and ``none``."""
    t = state.combatants[defender]
    if not t.can_fight:
        return ()
    out = []
    ds = [d for d in core.declared(t) if not d.abort]
    parries = [d for d in ds if d.kind == "parry" and d.target in ("", attacker) and not d.mode.startswith("cover/")
               and not any(x.name == "weapon-immobilised" and x.id.endswith(f":{d.weapon}") for x in t.conditions)]
    dodges = [d for d in ds if d.kind == "dodge" and (d.target in ("", attacker) or len([x for x in ds if x.kind == "dodge"]) == 2)]
    if parries:
        out.append("parry")
    if dodges:
        out.append("dodge")
    intent = core.intent_of(t)
    spare = [d for d in ds if d.kind in core.TIMED and not d.used]
    if intent is not None and spare and not intent.effects.get("aborted") and not core.spirit_bound(t):
        if t.ready:
            out.append("abort-parry")
        if not intent.effects.get("brace"):
            out.append("abort-dodge")
    return tuple(out + ["none"]) if out else ()


#: ``affray attack --situation KEY`` (seed 002): ``point-blank`` (missile
#: at point blank range), ``high-ground`` (standing half again higher: +10%,
#: 1D10+10 locations with a 1H melee weapon), ``high-ground-locations`` (the
#: same, choosing the 1D10+10 locations with a 2H weapon too), ``wall`` /
#: ``solid-wall`` (a creature or free-standing object / a wall behind the
#: target, for knockback), ``unaware`` (a missile the target does not see
#: coming: it cannot be dodged).
SITUATIONS = ("point-blank", "high-ground", "high-ground-locations", "wall", "solid-wall", "unaware")
#: ``affray attack --situation KEY=N`` for missile attacks: ``range=N`` the
#: distance to the target in metres (``affray attack --range N`` says the
#: same), ``moving=N`` the moving-target penalty in percent the GM sets for
#: the target's movement (seed 002 gives none; it doubles at point blank).
VALUED = ("range", "moving", "height")


def valued_situations(situations: tuple[str, ...]) -> dict[str, int]:
    """The ``KEY=N`` situations of :data:`VALUED` as ``{key: N}``; a
    :class:`RuleError` for an unknown key or a value that is not a whole
    number of at least 0."""
    out: dict[str, int] = {}
    for text in situations:
        if "=" not in text or text.startswith("into="):
            continue
        key, _, value = text.partition("=")
        if key not in VALUED:
            raise RuleError(f"unknown rq3 situation {text!r}; known: {', '.join(SITUATIONS)}, range=METRES, moving=PERCENT, "
                           "into=WHO")
        if not value.isdigit():
            raise RuleError(f"{key}= takes a whole number of {'metres' if key == 'range' else 'percent'} (0 or more), "
                            f"not {value!r}; e.g. --situation {key}=20")
        out[key] = int(value)
    return out


def range_band(w, metres: int, beyond: str = "refused") -> str:
    """The range band of a missile at ``metres`` (seed 002 "PARRYING AND
    DODGING MISSILE WEAPONS"): ``point-blank`` up to the weapon's point
    blank (the sheet's ``point_blank``, else a tenth of its ``range``),
    ``normal`` up to its ``range``, beyond it ``half`` (ruling
    ``missile_beyond_range`` = half-to-double: up to twice the range at half
    chance). A :class:`RuleError` when the sheet gives no range, or the
    target is out of reach."""
    if w.range <= 0:
        raise RuleError(f"the sheet gives {w.name} no range; add range = METRES to the weapon, or drop --range")
    blank = w.point_blank or w.range // 10
    if metres <= blank:
        return "point-blank"
    if metres <= w.range:
        return "normal"
    if beyond == "half-to-double" and metres <= 2 * w.range:
        return "half"
    limit = 2 * w.range if beyond == "half-to-double" else w.range
    raise RuleError(f"{w.name} reaches {limit} m (range {w.range} m, ruling missile_beyond_range = {beyond}); "
                    f"the target at {metres} m is out of range: pass (affray act WHO pass) or move closer")


def flags(state: State, attacker: str, target: str, d: core.Declared, situations: tuple[str, ...]) -> tuple[str, ...]:
    """The exchange flags the situations and the sheets give (seed 002
    "HIGH GROUND": 1D10+10 for 1H melee weapons, by choice for 2H; "HIT
    LOCATIONS OF MOUNTED TARGETS": a rider against a footman has high
    ground)."""
    a, t = state.combatants[attacker], state.combatants[target]
    w = core.weapon_of(a, d.weapon)
    out = []
    band = missile_band(state, attacker, d, situations, target)
    if band == "point-blank" or (d.kind == "missile" and _large_target(state, attacker, target)):
        out.append("point-blank")
    high = "high-ground" in situations or "high-ground-locations" in situations or (a.has("mounted") and not t.has("mounted"))
    if d.kind == "attack" and high and (w.hands == 1 or "high-ground-locations" in situations):
        out.append("high-ground")
    out += [x for x in ("wall", "solid-wall") if x in situations]
    if "unaware" in situations:
        out.append("unaware")
    into = behind(state, attacker, target, situations)
    if into:
        out.append(f"into={into}")
    height = valued_situations(situations).get("height", 0)
    if height:
        out.append(f"height={height}")
    return tuple(out)


def behind(state: State, attacker: str, target: str, situations: tuple[str, ...]) -> str:
    """The combatant ``--situation into=WHO`` puts behind the target (seed
    002 "KNOCKBACK INTO SMALL OBJECTS, PEOPLE AND SOLID OBJECTS"), or "";
    a :class:`RuleError` for an unknown one, the attacker or the target."""
    text = next((x for x in situations if x.startswith("into=")), "")
    if not text:
        return ""
    who = find_combatant(state, text.split("=", 1)[1])
    if who in (attacker, target):
        raise RuleError(f"into= names the creature behind {state.combatants[target].name}: not the attacker or the target")
    if "wall" in situations or "solid-wall" in situations:
        raise RuleError("a knockback hits one thing behind the target: give into=WHO or wall/solid-wall, not both")
    return who


def missile_band(state: State, attacker: str, d: core.Declared, situations: tuple[str, ...], target: str = "") -> str:
    """The range band of a declared missile attack: from ``range=N``, else
    from the hex map when both stand on it (:func:`range_band`);
    ``point-blank`` when the GM says so; ``normal`` when no range is known;
    ``""`` for a melee attack."""
    if d.kind != "missile":
        return ""
    metres = valued_situations(situations).get("range")
    if metres is None and target and core.weapon_of(state.combatants[attacker], d.weapon).range > 0:
        metres = core.distance_between(state, attacker, target)  # on the hex map
    if metres is None:
        return "point-blank" if "point-blank" in situations else "normal"
    w = core.weapon_of(state.combatants[attacker], d.weapon)
    band = range_band(w, metres, core.rulings_of(state).missile_beyond_range)
    if "point-blank" in situations and band != "point-blank":
        raise RuleError(f"{metres} m is beyond {w.name}'s point blank ({w.point_blank or w.range // 10} m); "
                        "drop --situation point-blank or give the right range")
    return band


def _large_target(state: State, attacker: str, target: str) -> bool:
    """Seed 002 "DODGING BY LARGE CREATURES": missiles at a creature of at
    least three times the shooter's SIZ count as point blank for its dodge."""
    a, t = (core.sheet_of(state.combatants[h]).characteristics.SIZ for h in (attacker, target))
    return t >= 3 * a


def _skill(state: State, attacker: str, target: str, d: core.Declared, situations: tuple[str, ...]) -> tuple[int, list[ev.Modifier], tuple[int, int]]:
    a = state.combatants[attacker]
    t = state.combatants[target]
    w = core.weapon_of(a, d.weapon)
    sheet = core.sheet_of(a)
    base = w.attack
    mods: list[ev.Modifier] = []
    factor = (1, 1)
    if d.mode == "slam":
        base = max(3 * sheet.characteristics.DEX, core.skill_of(a, "Grapple"))  # seed 002 "Slam"
    if d.penalty:
        mods.append(ev.Modifier(d.penalty, "two attacks with one weapon"))
    if core.base_mode(d.mode)[0] in HALF:
        factor = (1, 2)  # seed 002 "Aimed Shot": half the normal chance
    if d.kind == "missile" and not w.thrown and any(core.adjacent_since_round_began(state, a, h) for h in a.engaged):
        factor = (factor[0], factor[1] * 2)  # seed 002: firing while engaged, half
    band = missile_band(state, attacker, d, situations, target)
    if band == "half":
        factor = (factor[0], factor[1] * 2)  # ruling missile_beyond_range: beyond the range, half
    moving = valued_situations(situations).get("moving", 0)
    if moving:
        if _large_target(state, attacker, target):
            # seed 002 "DODGING BY LARGE CREATURES": no doubling when the larger creature moves
            mods.append(ev.Modifier(-moving, "moving target"))
        elif band == "point-blank":
            mods.append(ev.Modifier(-2 * moving, "moving target, doubled at point blank"))  # seed 002
        else:
            mods.append(ev.Modifier(-moving, "moving target"))
    if core.bonus(a):
        mods.append(ev.Modifier(core.bonus(a), "terrain used to advantage"))
    if ("high-ground" in situations or "high-ground-locations" in situations
            or (a.has("mounted") and not t.has("mounted"))):
        mods.append(ev.Modifier(10, "high ground"))  # seed 002 "HIGH GROUND"
    if a.has("mounted") and w.hands == 2 and "slash" in w.modes:
        factor = (factor[0] * 3, factor[1] * 4)  # seed 002 "PROHIBITED MOUNTED WEAPONS"
    return base, mods, factor


def declare(draft: Draft, command: cmd.DeclareAttack) -> None:
    """``affray attack WHO TARGET``: the declared attack at its SR. Refused:
    no declared attack due now (an action not declared), another weapon
    than the declared one, a target out of the weapon's reach."""
    state = draft.state
    attacker = find_combatant(state, command.attacker)
    step = core.expect(state, ("strike",), attacker, "attack (no declared attack is due at this SR)")
    a = state.combatants[attacker]
    d = next(x for x in core.declared(a) if x.slot == int(step.data["slot"]))
    target = find_combatant(state, command.target) if command.target else d.target
    if not target:
        raise RuleError(f"name the target: affray attack {attacker} TARGET")
    if d.mode == "break-free":  # seed 002 "GRAPPLING": no attack roll, a STR/2 vs STR resistance roll
        core.mark_used(draft, attacker, d)
        draft.then("grapple:break-free", handle=attacker, holder=target)
        return
    check_target(state, attacker, target, hint="; affray act WHO pass")
    t = state.combatants[target]
    if command.weapon and core.weapon_of(a, command.weapon).name != d.weapon:
        raise RuleError(f"{a.name} declared an attack with {d.weapon}, not {command.weapon}; "
                        "only a declared action can be taken (seed 002 'ALTERING STATEMENT OF INTENT')")
    w = core.weapon_of(a, d.weapon)
    unknown = [x for x in command.situations if x not in SITUATIONS and "=" not in x]
    if unknown:
        raise RuleError(f"unknown rq3 situation {unknown[0]!r}; known: {', '.join(SITUATIONS)}, range=METRES, moving=PERCENT")
    valued = valued_situations(command.situations)
    if "height" in valued and d.mode != "throw":
        raise RuleError("height= is for a grapple throw (attack:FOE:Grapple:throw): the drop in metres")
    valued.pop("height", None)
    if "unaware" in command.situations and d.kind != "missile":
        raise RuleError("unaware is for a missile attack the target does not see coming (seed 002 'PARRYING AND DODGING "
                        "MISSILE WEAPONS'); drop it for a melee blow")
    if valued and d.kind != "missile":
        raise RuleError(f"{', '.join(k + '=' for k in valued)} belong to missile attacks; "
                        f"{a.name}'s {w.name} attack is a melee attack: drop them")
    if d.kind == "attack":
        if target not in a.engaged:
            raise RuleError(f"{a.name} is not engaged with {t.name} and cannot reach them; attack an engaged foe or pass")
        dist = core.reach(a, target)
        at_weapon = d.mode in ("break", "disarm", "disarm-dex", "@entangle/weapon")  # seed 002: "could only attack the longer weapon"
        if core.engagement_range(w.length) < dist and not at_weapon:
            raise RuleError(f"{t.name} is {dist} m away: only a weapon of at least {dist} m reaches; "
                            f"{a.name}'s {w.name} cannot (seed 002 'RULES OF ENGAGEMENT'); affray act {attacker} pass")
        if (core.engagement_range(w.length) >= 2 and core.is_closed(state, t, a)
                and core.rulings_of(state).closed_long_weapon == "no-attack"):
            raise RuleError(f"{t.name} has closed inside the reach of {a.name}'s {w.name}: a long weapon cannot strike "
                            f"a closed foe (seed 002 'MANEUVER SKILL'; ruling closed_long_weapon); "
                            f"affray act {attacker} pass")
    if w.name not in a.ready and w.kind != "unarmed":
        raise RuleError(f"{a.name} no longer holds {w.name}; affray act {attacker} pass")
    if any(x.name == "weapon-immobilised" and x.id.endswith(f":{w.name}") for x in a.conditions):
        raise RuleError(f"{a.name}'s {w.name} is held immobilised in a grapple (seed 002 'GRAPPLING'); affray act {attacker} pass")
    base, mods, factor = _skill(state, attacker, target, d, command.situations)
    if d.mode in ("throw", "damage"):
        mods.append(ev.Modifier(10 if d.mode == "throw" else -10, f"grapple: {d.mode}"))  # seed 002 "GRAPPLING"
    mods += list(command.modifiers)
    n = state.next_exchange
    draft.emit(ev.AttackDeclared(exchange=n, attacker=attacker, target=target, weapon=w.name,
                                 kind=core.exchange_kind(d.kind, d.mode, d.slot,
                                                         flags(state, attacker, target, d, command.situations)),
                                 modifiers=tuple(mods)))
    level = core.test(draft, attacker, f"{w.name} attack", base, tuple(mods),
                      f"{'missile' if d.kind == 'missile' else 'attack'}: {a.name} at SR {d.sr}",
                      flexible=w.flexible, factor=factor)
    tested = draft.events[-1]
    mode, auto, _ = core.base_mode(d.mode)
    if auto == "auto" and level == "failure" or auto == "sure" and level in ("failure", "fumble"):
        level = "success"  # seed 002 "@Riposte"/"@Counter" critical, "@Flurry" critical: the blow hits anyway
        draft.emit(rev.SpecialApplied(exchange=n, by=attacker, effect="sure blow", detail="the free blow hits even on a miss"))
    elif auto == "auto" and level == "fumble":
        level = "failure"  # seed 002 "@Riposte"/"@Counter": "A fumbled attack becomes a simple miss"
        draft.emit(rev.SpecialApplied(exchange=n, by=attacker, effect="simple miss", detail="a fumbled free blow is a simple miss"))
    draft.emit(ev.AttackResolved(exchange=n, hit=core.succeeded(level), critical=level == "critical",
                                 fumble=level == "fumble", roll=tested.roll, skill=tested.target))
    core.mark_used(draft, attacker, d)
    s = draft.state
    if d.mode in ("immobilise", "throw", "damage"):
        if core.succeeded(level):
            draft.then("grapple:follow-step", mode=d.mode)
        else:
            draft.then("grapple:failed", holder=attacker, target=target)
        return
    if not core.succeeded(level):
        blade = _bladed_parry(s, target, attacker, w)
        if blade is not None:
            draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
                who=target, verb="react", kind="parry-miss", options=("parry", "none"), exchange=n,
                dice=(ev.DiceNeed(f"parry: {t.name}", "1D100", by=target),), data={"sr": d.sr, "level": level},
                prompt=f"{a.name} missed; {t.name}'s {blade.weapon} may still parry to damage the {w.name}: "
                       f"affray react {target} parry|none"),)))
            return
        summary = f"{a.name} misses {t.name}" + (" (a fumble: the GM rules its effect)" if level == "fumble" else "")
        draft.emit(ev.ExchangeEnded(exchange=n, summary=summary))
        draft.hand_over()
        return
    if mode.startswith("@") and level in ("special", "critical"):
        draft.emit(rev.SpecialApplied(exchange=n, by=attacker, effect=mode.lstrip("@"),
                                      detail=_tactic_note(mode, level, base)))
        if mode == "@flurry":  # seed 002 "@Flurry": a second blow DEX SR later, in the default mode
            dex_sr = core.derived(a).dex_sr
            core.free_attack(draft, attacker, target, w.name, d.sr + dex_sr, "flurry",
                             auto="sure" if level == "critical" else "")
        s = draft.state
    options = defence_options(s, target, attacker)
    if "unaware" in command.situations:
        # seed 002: missiles "can be dodged if the dodger is aware of the attack and ready to dodge"
        options = tuple(o for o in options if o not in ("dodge", "abort-dodge"))
        options = () if options == ("none",) else options
    if attacking_limb(s, attacker, target, d):
        options = _no_dodge(draft, n, attacker, target, options)
    elif "dodge" in options and d.kind == "attack" and not core.base_mode(d.mode)[2] and attack_limbs(s, attacker, target) \
            and core.rulings_of(s).large_limb_location == "rolled-first":
        # ruling large_limb_location: the random location first, to know whether the blow is at the attacking limb
        high = "high-ground" in core.kind_flags(s.exchange.kind)
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=attacker, verb="roll", kind="limb-location", exchange=n, data={"sr": d.sr, "level": level},
            dice=(ev.DiceNeed(f"hit location: {t.name} (before its dodge)", "1D10" if high else "1D20", by=attacker),),
            prompt=f"{a.name} hits {t.name}, which attacks with a limb: roll the hit location before the reaction "
                   "(seed 002 'DODGING BY LARGE CREATURES'): affray roll"),)))
        return
    _react_or_damage(draft, n, attacker, target, d.sr, level, w.name, options)


def _no_dodge(draft: Draft, n: int, attacker: str, target: str, options: tuple[str, ...]) -> tuple[str, ...]:
    """Seed 002 "DODGING BY LARGE CREATURES": no dodge for the limb it
    attacks with; the reaction options without the dodge."""
    s = draft.state
    options = tuple(o for o in options if o not in ("dodge", "abort-dodge"))
    draft.emit(rev.SpecialApplied(exchange=n, by=attacker, effect="attacking limb",
                                  detail=f"{s.combatants[target].name} cannot dodge a blow at the limb it attacks "
                                         f"{s.combatants[attacker].name} with"))
    return () if options == ("none",) else options


def _react_or_damage(draft: Draft, n: int, attacker: str, target: str, sr: int, level: str, weapon: str,
                     options: tuple[str, ...]) -> None:
    """Offer the target its reactions to a hit, or go on to the damage."""
    s = draft.state
    a, t = s.combatants[attacker], s.combatants[target]
    if options:
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=target, verb="react", kind="react", options=options, exchange=n,
            dice=(ev.DiceNeed(f"defence: {t.name}", "1D100", by=target),), data={"sr": sr, "level": level},
            prompt=f"{t.name}, reaction to {a.name}'s {level} hit with {weapon} at SR {sr}: "
                   f"{' | '.join(_describe(s, target, attacker, o) for o in options)} (affray react {target} OPTION)"),)))
        return
    draft.emit(ev.StepsAwaited(steps=(core.damage_step(s, level),)))


def limb_location(draft: Draft, step: ev.PendingStep) -> None:
    """The hit location rolled before a large creature's reaction (ruling
    ``large_limb_location`` = rolled-first): a blow landing on a limb the
    creature attacks the attacker with this round cannot be dodged (seed
    002 "DODGING BY LARGE CREATURES"); the damage step uses this location."""
    s = draft.state
    x = s.exchange
    need = step.dice[0]
    roll = draft.roll(need.expr, need.purpose, by=x.attacker).total
    location = tables.hit_location(min(20, roll + (10 if need.expr == "1D10" else 0)))
    core.condition(draft, x.target, "blow-location", key=str(x.id), location=location,
                   note=f"{'1D10+10' if need.expr == '1D10' else 'd20'}={roll} {location}, rolled before the reaction")
    options = defence_options(draft.state, x.target, x.attacker)
    if location in attack_limbs(draft.state, x.attacker, x.target):
        options = _no_dodge(draft, x.id, x.attacker, x.target, options)
    _react_or_damage(draft, x.id, x.attacker, x.target, int(step.data["sr"]), str(step.data["level"]), x.weapon, options)


def attack_limbs(state: State, attacker: str, target: str) -> set[str]:
    """The limbs ``target`` attacks ``attacker`` with this round (declared
    natural-weapon attacks whose sheet names a ``limb``), when it has at
    least three times ``attacker``'s SIZ; empty otherwise (seed 002
    "DODGING BY LARGE CREATURES")."""
    if not _large_target(state, attacker, target):
        return set()
    t = state.combatants[target]
    out = set()
    for own in core.declared(t):
        if own.kind == "attack" and not own.abort and own.target in ("", attacker):
            w = core.weapon_of(t, own.weapon)
            if w.kind == "unarmed" and w.limb:
                out.add(w.limb)
    return out


def attacking_limb(state: State, attacker: str, target: str, d: core.Declared) -> bool:
    """Whether ``target`` cannot dodge ``d`` (seed 002 "DODGING BY LARGE
    CREATURES": "A large giant kicking or punching a human will not be able
    to dodge an attack directed at the attacking arm or leg", for "a creature
    [with] at least three times the SIZ of its opponent"): ``d`` is aimed
    (Aimed Shot or @Aimed Blow) at a limb with which ``target`` declared a
    natural-weapon attack on ``attacker`` this round (the weapon's ``limb``
    on the sheet). A weapon that keeps it out of reach leaves the dodge.
    An unaimed blow: :func:`limb_location`."""
    where = core.base_mode(d.mode)[2]
    if not where or d.kind != "attack":
        return False
    return where in attack_limbs(state, attacker, target)


def _tactic_note(mode: str, level: str, skill: int) -> str:
    if mode == "@feint":
        cut = skill if level == "critical" else skill // 2
        return f"the defender's parry or dodge is at -{cut}%" + ("; armour ignored" if level == "critical" else "")
    if mode == "@aimed-blow":
        return "the attacker strikes the location chosen"
    if mode == "@flurry":
        return "normal damage" + ("; armour ignored" if level == "critical" else "")
    if mode == "@entangle":
        return "the location or weapon struck is entangled; half weapon damage"
    return level


def pass_action(draft: Draft, handle: str) -> None:
    """``act WHO pass``: drop the declared attack due now (a plain abort,
    seed 002 "A character can always abort a declared action")."""
    state = draft.state
    step = core.expect(state, ("strike",), handle, "pass (no declared attack is due)")
    c = state.combatants[handle]
    d = next(x for x in core.declared(c) if x.slot == int(step.data["slot"]))
    core.abort_events(draft, handle, d, "plain", "")
    draft.hand_over()


def disarm(draft: Draft, step: ev.PendingStep) -> None:
    """Disarm (seed 002 "Disarm"): only a special hit has a chance; then STR
    vs STR (``disarm``) or DEX vs DEX (``disarm-dex``), the defender's
    characteristic x1.5 when its weapon is held in two hands, the attacker's
    halved with a dagger; on a success the weapon lands 1D6-1 m away. The
    weapon aimed at is the defender's first ready weapon (ruling
    ``disarm_target``)."""
    state = draft.state
    x = state.exchange
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    if str(step.data["level"]) not in ("special", "critical", "maximum") or not t.ready:
        return core.end_exchange(draft, "a disarm needs a special hit: no effect")
    target_weapon = core.weapon_of(t, t.ready[0])
    key = "DEX" if step.data.get("mode") == "disarm-dex" else "STR"
    mine = getattr(core.sheet_of(a).characteristics, key)
    theirs = getattr(core.sheet_of(t).characteristics, key)
    w = core.weapon_of(a, x.weapon)
    if "dagger" in (w.type or w.name).lower():
        mine //= 2
    if target_weapon.hands == 2:
        theirs = theirs * 3 // 2
    ok = core.resist(draft, a.handle, mine, theirs, f"disarm: {a.name} {key} against {t.name} {key}")
    metres = draft.roll("1D6", "where the weapon lands (1D6-1 m)", by=a.handle).total - 1
    if ok:
        draft.emit(ev.WeaponDropped(handle=t.handle, weapon=target_weapon.name,
                                    reason=f"disarmed by {a.name}: lands {metres} m away"))
    core.end_exchange(draft, f"{a.name} {'disarms' if ok else 'fails to disarm'} {t.name}")


def _bladed_parry(state: State, defender: str, attacker: str, attacking) -> core.Declared | None:
    """The defender's declared parry against ``attacker`` with a bladed
    weapon, which may damage the weapon of a failed attack (seed 002
    "Standard Parry"); None without one (or against grapples and missiles)."""
    t = state.combatants[defender]
    if not t.can_fight or attacking.kind in ("unarmed", "missile"):
        return None
    for d in core.declared(t):
        if d.kind == "parry" and not d.abort and d.target in ("", attacker):
            if core.weapon_of(t, d.weapon).blade != "none":
                return d
    return None


def _describe(state: State, defender: str, attacker: str, option: str) -> str:
    """``parry (Maul 45%)``, ``dodge (25%)``, ``abort-parry (-20%)``: a
    reaction with its chance before situational modifiers."""
    t = state.combatants[defender]
    if option == "parry":
        d = next((d for d in core.declared(t) if d.kind == "parry" and not d.abort and d.target in ("", attacker)), None)
        if d is not None:
            return f"parry ({d.weapon} {core.weapon_of(t, d.weapon).parry + d.penalty}%)"
    if option == "dodge":
        return f"dodge ({core.skill_of(t, 'Dodge')}%)"
    if option.startswith("abort-"):
        return f"{option} (-20%)"
    return option
