"""What the mythras rule modules share (seed 001, CFI Chapter 8: Combat):
state queries (sheets, weapons, engagement, Luck Points, what an exchange
is), skill tests and Difficulty Grades, spending Action Points, the small
condition changes several rules make (warding ends, a spell fizzles, an
attack deferred to its own exchange) and how a step hands on (:func:`done`,
:func:`resume`, :func:`go_on`).

Rule modules import this; it imports only ``sheet``, ``tables``,
``rulings``, ``conditions`` and the shared ``affray.rules`` helpers, never
a rule module. Where a rule must be followed by another, the rule queues
the next step by kind (``draft.then``); the kinds are listed in
:mod:`affray.rules.mythras.system`.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

import msgspec

from affray.events import core as ev
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError, check_target, rulings_reader, unreadable_sheet
from affray.rules.base import require_turn as base_require_turn
from affray.rules.d100 import SUCCESS, is_success
from affray.rules.mythras import tables
from affray.rules.mythras import conditions as cat
from affray.rules.mythras.conditions import from_of
from affray.rules.mythras.rulings import from_mapping
from affray.rules.mythras.sheet import Sheet, Weapon

TORSO = ("abdomen", "chest", "head")


#: ``rulings_of(state)``: the encounter's rulings (defaults filled in).
rulings_of = rulings_reader(from_mapping)


def sheet_of(c: Combatant) -> Sheet:
    """The combatant's sheet as the typed :class:`Sheet`. Raises
    :class:`RuleError` (one line) for a stored sheet this affray cannot read
    (a field from a newer affray, or a log edited by hand)."""
    try:
        return _sheet(msgspec.json.encode(c.sheet))
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise unreadable_sheet(c.name, exc) from None


@lru_cache(maxsize=256)
def _sheet(raw: bytes) -> Sheet:
    return msgspec.json.decode(raw, type=Sheet)


def find_weapon(c: Combatant, name: str, *, ready_only: bool = True) -> Weapon:
    """The weapon ``name`` (or unique prefix) ``c`` holds ready; unarmed
    weapons are always ready. :class:`RuleError` naming what is held."""
    sheet = sheet_of(c)
    try:
        w = sheet.weapon(name)
    except ValueError as exc:
        raise RuleError(str(exc)) from None
    if ready_only and w.kind != "unarmed" and w.name not in c.ready:
        raise RuleError(f"{c.name} does not hold {w.name} ready (ready: {', '.join(c.ready) or 'nothing'})")
    return w


def default_weapon(c: Combatant, state: State | None = None) -> Weapon:
    """The first ready weapon that is not a shield, else a shield, else an
    unarmed weapon; with ``state``, only weapons that can be used now."""
    weapons = sheet_of(c).weapons
    ready = [w for w in weapons if w.name in c.ready and (state is None or not usable(state, c, w))]
    for w in ready:
        if w.kind != "shield":
            return w
    if ready:
        return ready[0]
    for w in weapons:
        if w.kind == "unarmed":
            return w
    raise RuleError(f"{c.name} holds no weapon ready; name one with --weapon")


def parry_weapons(c: Combatant, state: State | None = None) -> list[Weapon]:
    """Ready weapons that can parry, biggest first (seed 001 "Parry");
    with ``state``, not those broken, stuck in a wound or in an entangled
    hand."""
    ws = [w for w in sheet_of(c).weapons if w.name in c.ready and w.kind in ("melee", "shield")]
    if state is not None:
        ws = [w for w in ws if not usable(state, c, w)]
    return sorted(ws, key=lambda w: -tables.size_index(w.size))


def traits_of(w: Weapon) -> set[str]:
    """A weapon's traits, with ``shield``/``unarmed``/``ranged`` from its kind
    and ``two-handed`` from its hands."""
    t = set(w.traits)
    if w.kind in ("shield", "unarmed", "ranged"):
        t.add(w.kind)
    if w.hands >= 2:
        t.add("two-handed")
    return t


def test(draft: Draft, c: Combatant, skill_name: str, base: int, purpose: str,
         mods: tuple[ev.Modifier, ...] = ()) -> ev.SkillTested:
    """Roll a d100 for ``c`` and grade it (rules-reference.md B1-B3)."""
    target = max(0, base + sum(m.value for m in mods))
    rolled = draft.roll("1D100", purpose, by=c.handle)
    tested = ev.SkillTested(
        handle=c.handle, skill=skill_name, base=base, target=target, roll=rolled.total,
        result=tables.skill_test(rolled.total, target), purpose=purpose, modifiers=tuple(mods),
    )
    draft.emit(tested)
    return tested


#: The reason of the shared over-100 penalty's modifier (B8).
OVER_100 = "highest skill over 100 (B8)"


def over_100_mods(state: State, *skills: int) -> tuple[ev.Modifier, ...]:
    """The shared penalty for skills over 100 in an opposed or differential
    roll (rules-reference.md B8; ruling ``over_100_in_opposed``)."""
    if rulings_of(state).over_100_in_opposed == "none":
        return ()
    excess = tables.over_100(*skills)
    return (ev.Modifier(-excess, OVER_100),) if excess else ()


def over_100_taken(mods) -> int:
    """The over-100 penalty already among ``mods`` (as a positive number)."""
    return -sum(m.value for m in mods if m.reason == OVER_100)


def grade_modifiers(state: State, c: Combatant, base: int, situations, role: str,
                    combat: bool = True, *, ranged: bool = False, extra=(), ease: int = 0) -> tuple[ev.Modifier, ...]:
    """The Difficulty Grade on ``c``'s ``role`` roll (attack or defence) as a
    modifier: the hardest of the named situations (seed 001 "Close Combat
    Situational Modifiers", or "Ranged Combat Situational Modifiers" when
    ``ranged``), prone ("Fighting while prone"; "Attacker prone" for a
    shot), ``extra`` (grade, text) pairs the caller found, and conditions
    with a grade (Impale Effects Table, Blind Opponent, Fatigue; these also
    apply to non-combat rolls, ``combat=False``). B4: the hardest grade
    applies; then ``harder`` situations and conditions (Entangle, a blind
    strike) make it harder by a grade each, and ``ease`` grades easier
    (Aiming). :class:`RuleError` for an unknown or misplaced situation, or
    Hopeless."""
    found: list[tuple[str, str]] = list(extra)
    harder: list[str] = []
    for key in situations:
        sit = tables.SITUATIONS.get(key)
        if sit is None:
            raise RuleError(f"unknown situation {key!r}; known: {', '.join(tables.SITUATIONS)}")
        if sit.applies not in (role, "both") and role != "both":
            verb = "'affray react'" if sit.applies == "defence" else "'affray attack'"
            raise RuleError(f"situation {key!r} is for {sit.applies} rolls; give it with {verb}")
        if combat and sit.combat != "both" and (sit.combat == "ranged") != ranged:
            raise RuleError(f"situation {key!r} is for {sit.combat} combat, and this is a "
                            f"{'ranged' if ranged else 'close'} {role} roll")
        if sit.grade == "harder":
            harder.append(sit.text)
        elif sit.grade != "automatic":
            found.append((sit.grade, sit.text))
    if combat and c.stance == "prone" and "prone" not in situations:
        if not ranged:
            found.append(("formidable", "Fighting while prone"))
        elif role == "attack" and "attacker-prone" not in situations and "prepared-position" not in situations:
            found.append(("herculean", "Attacker prone"))
    for cond in c.conditions:
        if "grade" in cond.effects:
            found.append((tables.GRADE_ORDER[cond.effects["grade"]], cond.note or cond.name))
        if cond.effects.get("harder"):
            harder.extend([cond.note or cond.name] * cond.effects["harder"])
    if not found and not harder and not ease:
        return ()
    grade = tables.hardest(g for g, _ in found)
    why = "; ".join(text for g, text in found if g == grade)
    if harder:
        grade = tables.shift(grade, len(harder))
        why = "; ".join(filter(None, [why] + [f"one grade harder: {h}" for h in harder]))
    if ease and grade not in ("standard", "very-easy", "easy", "hopeless"):
        grade = tables.shift(grade, -ease)
        why += "; one grade easier (Aiming)"
    if grade == "standard":
        return ()
    if grade == "hopeless" and role == "both" and not combat:
        grade, why = "herculean", why + " (a resistance roll is never refused: taken at Herculean)"
    if grade == "hopeless":
        raise RuleError(f"{c.name} cannot attempt that: the situation is Hopeless ({why})")
    value = tables.graded(base, grade, rulings_of(state).grade_style) - base
    return (ev.Modifier(value, f"{grade}: {why}"),)


def combat_skill(state: State, c: Combatant, w: Weapon) -> tuple[str, int]:
    """(name, value) of the skill ``c`` uses ``w`` with
    (:meth:`Sheet.weapon_skill`), capped by Ride while mounted (seed 001
    "Close Combat Situational Modifiers": "fighting from the back of a
    horse would cap the combatant's Combat Skill by their Ride skill";
    ruling ``unlisted_ride``); the name then says so."""
    s = sheet_of(c)
    name, value = s.weapon_skill(w)
    if not c.has("mounted"):
        return name, value
    ch = s.characteristics
    ride = s.skill("Ride", -1)
    if ride < 0:
        if rulings_of(state).unlisted_ride == "no-cap":
            return name, value
        ride = ch.DEX + ch.POW
    if ride < value:
        return f"{name} (capped by Ride {ride})", ride
    return name, value


def mount_of(state: State, c: Combatant) -> Combatant | None:
    """The combatant ``c`` rides (``act WHO mount:MOUNT``), if any."""
    cond = next((k for k in c.conditions if k.name == "mounted"), None)
    h = from_of(cond) if cond is not None else ""
    return state.combatants.get(h) if h else None


def effects_of(conds, key: str):
    """The conditions in ``conds`` carrying effect ``key``."""
    return [c for c in conds if key in c.effects]


def luck_left(c: Combatant) -> int:
    """Luck Points ``c`` has not spent (sheet ``luck_points``)."""
    spent = sum(x.effects.get("spent", 0) for x in c.conditions if x.name == "luck-spent")
    return max(0, sheet_of(c).luck_points - spent)


def spend_luck(draft: Draft, c: Combatant, why: str) -> None:
    """One Luck Point spent (seed 001 "Use Luck Point": a Free Action), as
    the ``luck-spent`` condition counting them."""
    spent = sum(k.effects.get("spent", 0) for k in c.conditions if k.name == "luck-spent")
    draft.emit(ev.ConditionApplied(handle=c.handle, condition=cat.make(
        "luck-spent", ends="never", effects={"spent": spent + 1},
        note=f"{spent + 1} of {sheet_of(c).luck_points} Luck Points spent ({why})", **at(draft))))


#: How the Luck Point prompt names a lost roll of a step kind (the rest:
#: "roll against KIND", as Trip, Disarm, Blind).
LUCK_ROLLS = {"footing": "Regain Footing roll", "struggle": "Struggle", "yank": "yank",
              "outmaneuver": "Outmaneuvering roll", "knockback": "roll to stay on their feet (Knockback)",
              "bash": "roll to stay on their feet (Bash)"}


def offer_luck(draft: Draft, c: Combatant, step: ev.PendingStep, rest, failed: bool) -> bool:
    """After ``c`` lost an opposed roll against a Special Effect (Trip,
    Disarm, Blind), a Struggle, a Regain Footing, a yank or Outmaneuvering
    with a Luck Point left: ask whether to re-roll it (seed
    001 "Use Luck Point": "to re-roll a particular result"), as step
    ``choose:luck-reroll``, and return True; the roll's outcome waits. The
    roll step comes back with ``forced`` on ``accept`` (the loss stands,
    nothing rolled again) or as it was on ``luck``."""
    if not failed or step.data.get("forced") or luck_left(c) <= 0 or c.status == "dead":
        return False
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=c.handle, verb="choose", kind="luck-reroll",
        prompt=f"{c.name}: the {LUCK_ROLLS.get(step.kind, 'roll against ' + step.kind)} failed; "
               "spend a Luck Point to re-roll it? luck | accept",
        options=("luck", "accept"), exchange=step.exchange,
        data={"kind": step.kind, "data": json.dumps(dict(step.data), sort_keys=True)}),) + tuple(rest)))
    return True


#: The purpose suffix of a roll made again with a Luck Point.
LUCK_REROLL = " (Luck Point re-roll)"


def kept_roll(step: ev.PendingStep, handle: str) -> tuple[str, int] | None:
    """``(result, roll)`` of ``handle``'s opposing roll, kept in the step's
    data when the step runs again after a Luck Point re-roll (the other
    side does not roll again: one result is re-rolled, seed 001 "Use Luck
    Point"); None on the first run."""
    kept = step.data.get(f"kept:{handle}")
    if kept is None:
        return None
    result, _, roll = str(kept).partition(":")
    return result, int(roll)


def keeping(step: ev.PendingStep, rolls: dict[str, tuple[str, int]]) -> ev.PendingStep:
    """``step`` with the opposing ``rolls`` (handle -> ``(result, roll)``)
    kept for a Luck Point re-roll (:func:`kept_roll`), and the re-roll's
    purpose suffix (:data:`LUCK_REROLL`) for the roller's own roll."""
    data = dict(step.data) | {f"kept:{h}": f"{result}:{roll}" for h, (result, roll) in rolls.items()}
    return msgspec.structs.replace(step, data=data | {"luck": 1})


def luck_suffix(step: ev.PendingStep) -> str:
    """:data:`LUCK_REROLL` when ``step`` runs again after a Luck Point, else ``""``."""
    return LUCK_REROLL if step.data.get("luck") and not step.data.get("forced") else ""


def stuck_weapons(state: State, handle: str) -> set[str]:
    """Names of ``handle``'s weapons left impaled in someone (seed 001
    "Impale": the wielder cannot parry with it while it is stuck)."""
    me = state.combatants[handle]
    weapons = sheet_of(me).weapons
    out = set()
    for other in state.combatants.values():
        for cond in other.conditions:
            if cond.name == "impaled" and from_of(cond) == handle and "weapon" in cond.effects:
                i = cond.effects["weapon"]
                if 0 <= i < len(weapons):
                    out.add(weapons[i].name)
    return out


def weapon_hp(c: Combatant, w: Weapon) -> int:
    """A weapon's Hit Points left after Damage Weapon (seed 001)."""
    lost = sum(x.effects.get("hp-lost", 0) for x in c.conditions if x.id == f"weapon-damaged:{w.name.lower()}")
    return w.hp - lost


def broken(c: Combatant, w: Weapon) -> bool:
    """Whether Damage Weapon broke ``w`` (its HP at 0)."""
    return w.hp > 0 and weapon_hp(c, w) <= 0


def sundered_ap(c: Combatant, location: str) -> int:
    """Armor Points the location's protection lost to Sunder (seed 001)."""
    return sum(x.effects.get("ap-lost", 0) for x in c.conditions if x.name == "sundered" and x.location == location)


def useless_arms(c: Combatant) -> list[str]:
    """The arms a failed Endurance roll after a Serious Wound left useless
    (rules-reference B15: the victim "lose[s] the limb's use")."""
    return [k.location for k in c.conditions if k.name == "useless-limb" and k.location.endswith("arm")]


def hand_of(c: Combatant, weapon: str) -> str:
    """Which arm holds ``weapon``: our reading (as for a useless arm) is a
    shield in the left hand, other weapons in the right, a second weapon in
    the left, each going to the other hand when its own arm is useless; a
    two-handed weapon is in both (``both``)."""
    weapons = {w.name: w for w in sheet_of(c).weapons}
    w = weapons.get(weapon)
    if w is None or w.kind == "unarmed":
        return ""
    if w.hands >= 2:
        return "both"
    held = [weapons[n] for n in c.ready if n in weapons]
    others = [x for x in held if x.kind != "shield"]
    if w.kind == "shield":
        arm = "left arm"
    else:
        arm = "right arm" if others and others[0].name == weapon else "left arm"
    useless = useless_arms(c)
    other = "right arm" if arm == "left arm" else "left arm"
    return other if arm in useless and other not in useless else arm


def usable(state: State, c: Combatant, w: Weapon) -> str:
    """Why ``c`` cannot use ``w`` now, or "": broken (Damage Weapon), stuck
    in a wound (Impale), held by an entangled arm (Entangle), by a
    stunned arm (Stun Location: "the Hit Location is Incapacitated") or by
    a useless arm (a Serious Wound, B15)."""
    if broken(c, w):
        return f"{w.name} is broken"
    if w.name in stuck_weapons(state, c.handle):
        return f"{w.name} is stuck in a wound (yank it free with 'affray act {c.handle} yank')"
    hand = hand_of(c, w.name)
    for cond in c.conditions:
        if cond.name == "entangled" and cond.location.endswith("arm") and hand in (cond.location, "both"):
            return f"{c.name}'s {cond.location} is entangled"
        if cond.name == "stunned-location" and cond.location.endswith("arm") and hand in (cond.location, "both"):
            return f"{c.name}'s {cond.location} is stunned (seed 001 'Stun Location': the Hit Location is Incapacitated)"
        if cond.name == "useless-limb" and cond.location.endswith("arm") and hand in (cond.location, "both"):
            return f"{c.name}'s {cond.location} is useless (a Serious Wound)"
    return ""


def check_attack(state: State, attacker: str, target: str, *, hint: str = "") -> None:
    """The checks before any attack (a plain attack, a leap, a sweep, an
    entangling Trip, a counterattack): those of every system (not oneself,
    not the dead, not while a condition forbids attacking, such as
    Surprise's "may not perform any offensive Action") and a foe who was
    outmaneuvered by the target "cannot attack him for the remainder of
    that Combat Round" (seed 001 "Outmaneuvering"). Raises
    :class:`RuleError` (one line)."""
    check_target(state, attacker, target, hint=hint)
    a, t = state.combatants[attacker], state.combatants[target]
    if any(k.name == "outmaneuvered" and from_of(k) == target for k in a.conditions):
        raise RuleError(f"{a.name} was outmaneuvered by {t.name} and cannot attack them this round (seed 001 'Outmaneuvering')")


def fighters(state: State) -> list[Combatant]:
    """Combatants still in the fight (active), in join order."""
    return [c for c in state.combatants.values() if c.status == "active"]


# --------------------------------------------------------------------------- #
# Helpers of the Combat Actions (seed 001 "Combat Actions")
# --------------------------------------------------------------------------- #


def at(draft: Draft) -> dict:
    """When a condition is applied: the cause, round and step it dates from."""
    s = draft.state
    return dict(cause=draft.next_version, round=s.round, step=s.step)


#: Turn actions that are "strenuous or violent" (seed 001 "Bleed"): they
#: re-open a staunched Bleed (ruling ``staunched_reopens``; attacks, leaps
#: and sweeps re-open it through :func:`reopen_wound` at the attack).
STRENUOUS = ("hustle", "outmaneuver", "struggle", "yank", "trip", "leap", "sweep", "climb", "jump", "swim")


def reopen_wound(draft: Draft, who: str, what: str, *, reaction: bool = False) -> None:
    """A staunched Bleed re-opens when its bearer performs a strenuous or
    violent action (seed 001 "Bleed": "the recipient can no longer perform
    any strenuous or violent action without re-opening the wound"); a
    ``reaction`` (Parry, Evade, counterattack) does so only under ruling
    ``staunched_reopens=reactions-too``."""
    if reaction and rulings_of(draft.state).staunched_reopens != "reactions-too":
        return
    c = draft.state.combatants[who]
    for cond in c.conditions:
        if cond.name == "staunched":
            draft.emit(
                ev.ConditionExpired(handle=who, condition_id=cond.id, reason=f"{what}: the wound re-opens"),
                ev.ConditionApplied(handle=who, condition=cat.make(
                    "bleeding", cause=draft.next_version, round=draft.state.round, step=draft.state.step,
                    ends="event", effects={"bleeding": 1}, location=cond.location, note="Bleed (re-opened)")),
            )


def spend(draft: Draft, who: str, reason: str) -> None:
    """An action costs one Action Point (seed 001 "Action Points")."""
    draft.emit(ev.ActionSpent(handle=who, kind="combat-action", reason=reason))


def done(draft: Draft) -> None:
    """The action is over: clear the pending steps and hand over to the
    turn sequencer (:func:`affray.rules.mythras.turns.advance`), which
    moves the turn on once nothing else is queued."""
    draft.emit(ev.StepsAwaited(steps=()))
    draft.hand_over()


def resume(draft: Draft, rest) -> None:
    """Go back to the steps an out-of-turn roll interrupted, else move on."""
    if rest:
        draft.emit(ev.StepsAwaited(steps=tuple(rest)))
    else:
        done(draft)


def go_on(draft: Draft, steps, summary: str) -> None:
    """After a roll step: await ``steps`` (the rest of the pending steps and
    any the roll brought); with none left, end the open exchange (step
    ``attack:end-exchange``, with ``summary``), else the action is
    :func:`done`."""
    if steps:
        draft.emit(ev.StepsAwaited(steps=tuple(steps)))
    elif draft.state.exchange is not None:
        draft.then("attack:end-exchange", summary=summary)
    else:
        done(draft)


def grippers(c: Combatant) -> list[str]:
    """Handles of those gripping ``c``: it cannot disengage from them (seed
    001 "Grip": "preventing them from being able to disengage from
    combat")."""
    return [from_of(k) for k in c.conditions if k.name == "gripped"]


def engaged_foes(state: State, c: Combatant) -> list[Combatant]:
    """The foes engaged with ``c`` who can still fight (seed 001 "Engagement")."""
    return [state.combatants[h] for h in c.engaged if h in state.combatants and state.combatants[h].can_fight]


def best_skill(c: Combatant, *names: str) -> tuple[str, int]:
    """The better of several skills, e.g. Brawn or Evade, with its value."""
    s = sheet_of(c)
    return max(((n, s.skill(n)) for n in names), key=lambda p: p[1])


# --------------------------------------------------------------------------- #
# The exchange (seed 001 "Attacks and Parries")
# --------------------------------------------------------------------------- #


def kinds(x) -> set[str]:
    """The flags of an exchange (``AttackDeclared.kind``, ``+``-joined):
    close, ranged, charge, crowd, long-range, close-range, blind-strike,
    obstacle, helpless, leap, and the deferred kinds (:data:`DEFERRED`)."""
    return set(x.kind.split("+")) if x is not None and x.kind else {"close"}


def attack_size(state: State, x, weapon=None) -> str:
    """The Size a blow is parried against: the weapon's Size, one step more
    on a charge (seed 001 "Charging"); for a Ranged weapon its Force, one
    step less at Long Range ("Ranged Combat")."""
    a = state.combatants[x.attacker]
    w = weapon or find_weapon(a, x.weapon, ready_only=False)
    flags = kinds(x)
    if w.kind == "ranged":
        size = w.force or w.size
        return tables.size_step(size, -1) if "long-range" in flags else size
    return tables.size_step(w.size, 1) if "charge" in flags else w.size


def require_turn(state: State, handle: str) -> Combatant:
    """``handle``'s combatant when it may act on its Turn now (seed 001
    "Turns"); :class:`RuleError` (one line) when the fight is over, no round
    runs, the table waits for something else, or it is another's Turn."""
    return base_require_turn(state, handle)


def held_weapon(state: State, who: str):
    """The weapon ``who`` would lose to a Disarm in the open exchange: the
    one it fought with, else the first held ready (None when only natural
    or unarmed weapons are left); seed 001 "Disarm Opponent"."""
    x = state.exchange
    c = state.combatants[who]
    if who == x.attacker:
        w = find_weapon(c, x.weapon, ready_only=False) if x.weapon else None
    elif x.with_item:
        w = find_weapon(c, x.with_item, ready_only=False)
    else:
        held = [w for w in sheet_of(c).weapons if w.name in c.ready and w.kind != "unarmed"]
        w = held[0] if held else None
    if w is None or w.kind == "unarmed" or w.name not in c.ready:
        return None
    return w


def entangling_weapon(state: State, victim: str, wielder: str) -> Weapon | None:
    """``wielder``'s unbroken weapon that entangles ``victim``, if any (seed
    001 "Entangle")."""
    w = state.combatants[wielder]
    weapons = sheet_of(w).weapons
    for cond in state.combatants[victim].conditions:
        if cond.name == "entangled" and from_of(cond) == wielder:
            i = cond.effects.get("weapon", -1)
            if 0 <= i < len(weapons) and not broken(w, weapons[i]):
                return weapons[i]
    return None


def weapon_struck(state: State, who: str, loser: str) -> Weapon | None:
    """The weapon ``who``'s Damage Weapon strikes in the open exchange (seed
    001 "Damage Weapon"), or None: the weapon that entangles ``who`` (ruling
    ``entangled_damage_weapon``, seed 001 "Entangle"); else, for the
    defender, the attacker's weapon; for the attacker, "the defender's
    Parrying weapon"."""
    x = state.exchange
    if rulings_of(state).entangled_damage_weapon == "entangling-weapon":
        w = entangling_weapon(state, who, loser)
        if w is not None:
            return w
    if who == x.target:
        return held_weapon(state, loser)
    if x.reaction == "parry" and x.with_item:
        return find_weapon(state.combatants[loser], x.with_item, ready_only=False)
    return None


def resister_fails(draft: Draft, resister_level: str, resister_roll: int, roll: int, skill: int) -> bool:
    """An opposed roll against an original roll (rules-reference.md B6): the
    resister fails unless it wins; both failing follows ruling
    ``opposed_both_fail``. ``roll`` 0 is an Automatic attack (a helpless
    target): a Success with no roll."""
    if roll <= 0:
        other = SUCCESS
    else:
        other = tables.skill_test(roll, skill) if skill else "failure"
    winner = tables.opposed_winner(resister_level, resister_roll, other, roll)
    if winner == "none":
        both_fail = not is_success(resister_level) and not is_success(other)
        if both_fail and rulings_of(draft.state).opposed_both_fail == "resister-holds":
            return False
        return True
    return winner != "a"


def effective_siz(c: Combatant, against: str) -> float:
    """SIZ against Knockback or Leaping Attacks (×1.5 when braced) or Bash
    (×2 when braced), seed 001 "Brace"."""
    siz = sheet_of(c).characteristics.SIZ
    if not c.has("braced"):
        return siz
    return siz * (2 if against == "bash" else 1.5)


#: Kinds of a deferred attack (an attack rolled now, resolved in its own
#: exchange later): see :func:`defer_attack`.
DEFERRED = ("counter", "charge", "sweep", "bystander", "crowd")


def defer_attack(draft: Draft, attacker: str, target: str, weapon: str, roll: int, skill: int, kind: str) -> None:
    """Keep an attack already rolled (or to be made) for an exchange of its
    own after this one: a ``deferred-attack`` condition on ``attacker``
    (seed 001 "Charging", "Sweep Attacks"; Select Target; "Firing into a
    Crowd"). ``kind`` is one of :data:`DEFERRED`."""
    state = draft.state
    c = state.combatants[attacker]
    idx = [w.name for w in sheet_of(c).weapons].index(weapon)
    draft.emit(ev.ConditionApplied(handle=attacker, condition=cat.make(
        "deferred-attack", cause=draft.next_version, round=state.round, step=draft.state.step, ends="event",
        effects={f"from:{target}": 1, "roll": roll, "skill": skill, "weapon": idx, "kind": DEFERRED.index(kind)},
        key=f"{target}:{kind}", note=f"{kind} on {state.combatants[target].name} with {weapon}")))


def end_ward(draft: Draft, handle: str, weapon: str, why: str) -> None:
    """Warding ends once its weapon attacks or actively parries (seed 001
    "Ward Location")."""
    for cond in draft.state.combatants[handle].conditions:
        if cond.name == "warding" and cond.id == f"warding:{weapon.lower()}":
            draft.emit(ev.ConditionExpired(handle=handle, condition_id=cond.id, reason=f"{weapon} {why}"))


def break_aim(draft: Draft, who: str, what: str) -> None:
    """Aiming "requires an entire Combat Round steadying the weapon" (seed
    001 "Aiming"): any other Turn action (moving, readying, a melee blow,
    standing up) ends it without benefit; passing and delaying do not."""
    for cond in draft.state.combatants[who].conditions:
        if cond.name == "aiming":
            draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id,
                                           reason=f"aim broken by {what}: aiming takes an entire Combat Round"))


def fizzle(draft: Draft, who: str, name: str) -> None:
    """A cast spell due at this Turn is lost unless the Turn's action
    ``name`` holds it (seed 001 "Cast Magic", "Hold Magic")."""
    if name in ("hold",):
        return
    for cond in draft.state.combatants[who].conditions:
        if cond.name == "spell-ready" and cond.effects.get("due"):
            draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="not held: the magic dissipates"))


# --------------------------------------------------------------------------- #
# Movement (seed 001 "Movement", "Effects of Terrain on Movement")
# --------------------------------------------------------------------------- #


#: Terrain a Move or Hustle may name (``move:difficult``), and what the GM
#: may declare next to a character (``terrain:water``).
TERRAIN_WORDS = ("difficult", "obstacle")
SURROUNDINGS = ("water", "climbable")


def tokens(arg: str) -> list[str]:
    """The words of an action's argument (spaces, commas or colons)."""
    return [t for t in re.split(r"[\s,:]+", arg.strip().lower()) if t]


def metres(text: str, what: str) -> float:
    """A distance in metres; :class:`RuleError` naming ``what`` otherwise."""
    try:
        value = float(text)
    except ValueError:
        raise RuleError(f"{what} must be metres, like 3 or 1.5; got {text!r}") from None
    if not 0 <= value <= 1000:
        raise RuleError(f"{what} must be 0..1000 metres; got {text}")
    return value


def leg_held(c: Combatant) -> str:
    """Why ``c``'s legs keep it from moving or standing up ("" when they
    do not): an entangled leg (seed 001 "Entangle": "a snared leg prevents
    the target from moving"), a stunned one ("Stun Location": the location
    "is Incapacitated"), or one a Serious Wound left useless
    (rules-reference B15: "lose the limb's use"; our reading: as a stunned
    leg, no moving and no standing up)."""
    for k in c.conditions:
        if k.location.endswith("leg") and k.name in ("entangled", "useless-limb", "stunned-location"):
            what = {"entangled": "entangled", "useless-limb": "useless (a Serious Wound)"}.get(k.name, "stunned")
            return f"{c.name}'s {k.location} is {what}"
    return f"{c.name}'s leg is stunned" if c.effect("no-move") else ""


def check_free_to_move(state: State, c: Combatant, what: str, *, prone_ok: bool = False) -> None:
    """Movement needs free legs (:func:`leg_held`), no engaged foe
    ("Movement": only unengaged characters move) and, except for Crawl, a
    character on its feet."""
    held = leg_held(c)
    if held:
        raise RuleError(f"{held}: no {what} (seed 001 'Entangle', 'Stun Location')")
    foes = [h for h in c.engaged if h in state.combatants and state.combatants[h].can_fight]
    if foes:
        raise RuleError(f"{c.name} is engaged and cannot {what} (seed 001 'Movement': Outmaneuver or Withdraw first)")
    if c.stance == "prone" and not prone_ok:
        raise RuleError(f"{c.name} is prone and cannot {what}: regain footing first, or crawl")


def armour_things(state: State, c: Combatant) -> int:
    """'Things' worn armour counts as: 1 per location covered by light
    armour, 2 per location covered by heavy armour (seed 001 "Climb",
    "Jump", "Swim"); heavy from ruling ``heavy_armour_ap`` AP up."""
    heavy = int(rulings_of(state).heavy_armour_ap)
    return sum(2 if ap >= heavy else 1 for ap in sheet_of(c).armour.values() if ap > 0)


def things(state: State, c: Combatant) -> int:
    """All 'Things' carried: the sheet's ``things`` plus worn armour."""
    return sheet_of(c).things + armour_things(state, c)


def surroundings(c: Combatant) -> set[str]:
    """What the GM declared next to ``c`` (``terrain`` action)."""
    return {k for cond in c.conditions if cond.name == "terrain" for k in cond.effects}


def names_terrain(arg: str) -> bool:
    """Whether a move/hustle argument names terrain (difficult, obstacle)."""
    return any(t in TERRAIN_WORDS for t in tokens(arg))
