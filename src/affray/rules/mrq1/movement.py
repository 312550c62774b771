"""Moving in mrq1: Move, Sprint, Fighting Retreat, Charge, and Change
Stance.

Source: seed 004 "Combat Actions" (Move, Sprint, Fighting Retreat, Charge,
Change Stance), "Free Attacks"; rulings named on each function.

Steps: ``act:move``/``act:sprint``, ``act:retreat``, ``act:charge``,
``act:stance``/``act:stand`` and, once the free attacks they draw are over
(``free-attacks:offer``), ``finish:move``/``finish:sprint``,
``finish:charge`` (its attack: ``attack:open``), ``finish:stance``/``finish:stand``.
"""

from __future__ import annotations

from affray.events import core as ev
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.mrq1 import tables
from affray.rules.mrq1.core import (
    USAGE,
    Spec,
    adjacent_enemies,
    attack_modifiers,
    begin,
    default_weapon,
    done,
    find_weapon,
    make_kind,
    movement_of,
    note,
    require_turn,
    split,
    useless_limbs,
)

STANCES = ("standing", "prone", "kneeling", "sitting")


# --------------------------------------------------------------------------- #
# Moving: Move, Sprint, Fighting Retreat, Charge
# --------------------------------------------------------------------------- #


def move(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Move" (up to Movement) and "Sprint" (up to twice Movement;
    a rider's is his mount's, seed 004 "Mounted Combat";
    the free attacks it draws are at +20%). Moving away from adjacent
    enemies, or adjacent to one (``to=X``, ``past=A,B`` for those passed on
    the way), draws their free attacks; damage from one halves the move."""
    state = draft.state
    c = require_turn(state, who)
    if c.stance == "prone" and spec.word == "sprint":
        raise RuleError(f"{c.name} is prone; stand up first (affray act {who} stand)")
    allowance = movement_of(draft.state, who) * (2 if spec.word == "sprint" else 1)
    metres = spec.number("metres", allowance, pos=0)
    if metres > allowance:
        raise RuleError(f"{c.name} can {spec.word} at most {allowance} m ({'twice ' if spec.word == 'sprint' else ''}Movement {movement_of(draft.state, who)} m), not {metres} m")
    if metres <= 0:
        raise RuleError(f"{spec.word} how far? {USAGE[spec.word]}")
    to = find_combatant(state, spec.get("to")) if spec.get("to") else ""
    past = [find_combatant(state, p) for p in split(spec.get("past"))]
    spec = Spec(spec.word, [str(metres)], {k: v for k, v in (("to", to), ("past", ",".join(past))) if v})
    begin(draft, who, spec)
    engaged = adjacent_enemies(draft.state, who)
    drawn = [h for h in engaged if h != to] + ([to] if to and to not in engaged else []) + past
    bonus = tables.COMBAT_MODIFIERS["sprint-free-attack"].value if spec.word == "sprint" else 0
    draft.then("free-attacks:offer", who=who, spec=spec, enemies=drawn, trigger=f"{spec.word}", bonus=bonus)


def finish_move(draft: Draft, who: str, spec: Spec, damaged: bool, passed) -> None:
    """The step ``finish:move`` / ``finish:sprint``: the move itself, halved
    when a free attack did damage (seed 004 "Move", "Free Attacks")."""
    c = draft.state.combatants[who]
    metres = int(spec.args[0])
    allowance = movement_of(draft.state, who) * (2 if spec.word in ("sprint", "charge") else 1)
    to = spec.get("to")
    if damaged:
        metres = min(metres, allowance // 2)
    reached = metres == int(spec.args[0])
    away = next(iter(adjacent_enemies(draft.state, who)), "")
    draft.emit(ev.CombatantMoved(handle=who, distance=float(metres), reason=spec.word + (" (halved by a free attack)" if damaged else ""), away_from=away if away != to else ""))
    for h in list(draft.state.combatants[who].engaged):
        if h != to:
            draft.emit(ev.EngagementChanged(a=who, b=h, engaged=False))
    if to and reached and to not in draft.state.combatants[who].engaged:
        draft.emit(ev.EngagementChanged(a=who, b=to, engaged=True))
    if to and not reached:
        note(draft, who, spec.word, f"{c.name} stops short of {draft.state.combatants[to].name}")
    done(draft)


def retreat(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Fighting Retreat": up to half Movement directly away from
    an enemy he is fighting; it draws no free attack."""
    state = draft.state
    c = require_turn(state, who)
    enemies = adjacent_enemies(state, who)
    if not enemies:
        raise RuleError(f"{c.name} is not fighting anyone; a Fighting Retreat moves away from an adjacent enemy (use move)")
    allowance = movement_of(draft.state, who) // 2
    metres = spec.number("metres", allowance, pos=0)
    if metres > allowance or metres <= 0:
        raise RuleError(f"{c.name} can retreat 1 to {allowance} m (half Movement {movement_of(draft.state, who)} m), not {metres} m")
    begin(draft, who, spec, reason="fighting retreat")
    draft.emit(ev.CombatantMoved(handle=who, distance=float(metres), reason="fighting retreat", away_from=enemies[0]))
    for h in list(draft.state.combatants[who].engaged):
        draft.emit(ev.EngagementChanged(a=who, b=h, engaged=False))
    done(draft)


def charge(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Charge": at least 5 m, up to twice Movement, in a straight
    line, ending adjacent to the enemy; then a close combat attack with
    +1D4 damage on a hit, and doubled Knockback. Leaving adjacent enemies
    and passing others (``past=``) draws their free attacks; the enemy
    charged does not get one. A charge may not be a flurry, a precise or
    a ranged attack."""
    state = draft.state
    c = require_turn(state, who)
    if not spec.args:
        raise RuleError(f"charge whom? {USAGE['charge']}")
    target = find_combatant(state, spec.args[0])
    t = state.combatants[target]
    metres = spec.number("charge", None) if spec.get("charge") else spec.number("metres", None, pos=1)
    if metres is None:
        raise RuleError(f"how far does {c.name} charge? give the distance in metres (at least 5)")
    if metres < 5:
        raise RuleError(f"a charge needs at least 5 m of movement (seed 004 'Charge'); {c.name} would move {metres} m: use move and attack instead")
    if metres > 2 * movement_of(draft.state, who):
        raise RuleError(f"{c.name} can charge at most {2 * movement_of(draft.state, who)} m (twice Movement {movement_of(draft.state, who)} m), not {metres} m")
    if target == who or t.side == c.side:
        raise RuleError(f"a charge must end adjacent to an enemy; {t.name} is not one")
    if t.status == "dead":
        raise RuleError(f"{t.name} is dead; choose another target")
    if target in c.engaged:
        raise RuleError(f"{c.name} is already adjacent to {t.name}; attack instead of charging")
    if c.stance != "standing":
        raise RuleError(f"{c.name} is {c.stance}; stand up before charging (affray act {who} stand)")
    for bad in ("flurry", "precise", "range", "off-hand", "cover", "crowd"):
        if spec.get(bad):
            what = {"precise": "a precise attack", "range": "a ranged attack", "off-hand": "a two-weapon bonus attack",
                    "cover": "a ranged attack", "crowd": "a ranged attack", "flurry": "a flurry"}[bad]
            raise RuleError(f"a charge may not be {what} (seed 004)")
    weapon = find_weapon(c, spec.get("weapon")) if spec.get("weapon") else default_weapon(c)
    if weapon.kind == "ranged":
        raise RuleError("ranged attacks may not be used as part of a charge (seed 004 'Ranged Weapons')")
    if c.effect("cannot-attack"):
        raise RuleError(f"{c.name} cannot attack now (see 'affray state')")
    past = [find_combatant(state, p) for p in split(spec.get("past"))]
    spec = Spec("charge", [target, str(metres)], {"weapon": weapon.name, **({"past": ",".join(past)} if past else {}),
                                                  **({"wall": "1"} if spec.get("wall") else {})}, spec.mods, spec.sits)
    begin(draft, who, spec, reason=f"charge at {t.name}")
    drawn = [h for h in adjacent_enemies(draft.state, who) if h != target] + [p for p in past if p != target]
    draft.then("free-attacks:offer", who=who, spec=spec, enemies=drawn, trigger="charge")


def finish_charge(draft: Draft, who: str, spec: Spec, damaged: bool, passed) -> None:
    """The step ``finish:charge``: the charge's move (halved by a free
    attack's damage) and its attack (``attack:open``), unless it stops short
    (seed 004 "Charge")."""
    c = draft.state.combatants[who]
    target, metres = spec.args[0], int(spec.args[1])
    t = draft.state.combatants[target]
    moved = min(metres, movement_of(draft.state, who)) if damaged else metres
    draft.emit(ev.CombatantMoved(handle=who, distance=float(moved), reason="charge" + (" (halved by a free attack)" if damaged else "")))
    for h in list(c.engaged):
        draft.emit(ev.EngagementChanged(a=who, b=h, engaged=False))
    if moved < metres or t.status == "dead":
        note(draft, who, "charge", f"{c.name} stops short of {t.name}: no attack")
        done(draft)
        return
    weapon = find_weapon(c, spec.get("weapon"))
    mods = attack_modifiers(draft.state, who, target, tuple(spec.mods), tuple(spec.sits))
    draft.then("attack:open", attacker=who, target=target, weapon=weapon, exchange_kind=make_kind("charge", wall=spec.get("wall")),
               mods=mods)


# --------------------------------------------------------------------------- #
# Change Stance
# --------------------------------------------------------------------------- #


def stance(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Change Stance": standing, prone, kneeling or sitting; adjacent
    enemies get a free attack. Standing up from prone after a free attack's
    damage needs an Athletics test, or the character stays prone."""
    state = draft.state
    c = require_turn(state, who)
    to = "standing" if spec.word == "stand" else (spec.args[0].lower() if spec.args else "")
    to = {"stand": "standing", "kneel": "kneeling", "sit": "sitting"}.get(to, to)
    if to not in STANCES:
        raise RuleError(f"stance takes one of {', '.join(STANCES)}, got {to or 'nothing'!r}")
    if to == c.stance:
        raise RuleError(f"{c.name} is already {to}")
    if to != "prone" and len(useless_limbs(c, "leg")) >= 2:
        raise RuleError(f"{c.name} has two useless legs and stays prone until one is restored (seed 004)")
    spec = Spec("stance", [to])
    begin(draft, who, spec, reason=f"stance: {to}")
    draft.then("free-attacks:offer", who=who, spec=spec, enemies=adjacent_enemies(draft.state, who), trigger="changing stance")


def finish_stance(draft: Draft, who: str, spec: Spec, damaged: bool, passed) -> None:
    """The step ``finish:stance`` / ``finish:stand``: the new stance, unless
    a failed Athletics test after a free attack's damage keeps him prone."""
    c = draft.state.combatants[who]
    to = spec.args[0]
    if damaged and passed is False and c.stance == "prone":
        note(draft, who, "stance", f"{c.name} fails to stand and stays prone")
    else:
        draft.emit(ev.StanceChanged(handle=who, stance=to, reason="change stance"))
    done(draft)
