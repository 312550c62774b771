"""Unarmed attacks, natural weapons and impaled characters in mrq1.

Source: seed 004 "Unarmed Combat" (a parried unarmed attack hurts the
attacker's limb with the parrying weapon's rolled damage, no damage
modifier), "Natural Weapons" (they may parry natural weapons and unarmed
attacks, not crafted weapons) and "Impaled Enemies" (an unarmed hit on the
impaled location lays hold of the weapon, which may be yanked at once; the
impaled creature may spend a Combat Action to yank it himself; yanking per
"Yanking"). Our rulings, named where used: "parried" means the parry test
succeeded; shields and crafted or natural weapons hurt, a parrying fist does
not; the limb is the weapon's ``limb`` on the sheet, else the one the
weapon's name points to (kick/knee/leg/foot: right leg, head: head), else
the right arm.

Steps: after an ``affray attack``, ``unarmed:bare-parry``; after an ``affray
react``, ``unarmed:after-parry``; after an ``affray roll``,
``unarmed:lay-hold``; ``roll:unarmed-parried``, ``roll:impaler-yank``,
``roll:impaler-damage`` (:func:`roll_step`), ``unarmed:carry-on`` and
``choose:lay-hold``.
"""

from __future__ import annotations

from msgspec.structs import replace

from affray import dice as dicelib
from affray.events import core as ev
from affray.rules.base import Draft, RuleError
from affray.rules.mrq1.core import carry_on, find_weapon, require_turn, sheet_of, skill, test, test_modifiers, usable
from affray.rules.mrq1 import tables
from affray.rules.mrq1.sheet import Weapon

KINDS = ("unarmed-parried", "impaler-yank", "impaler-damage")
HURTS = ("melee", "shield", "natural")


def limb_of_weapon(w: Weapon) -> str:
    """The location an unarmed attack is made with: the sheet's ``limb``,
    else our ruling by name (see above)."""
    if w.limb.strip():
        try:
            return tables.normalize_location(w.limb)
        except ValueError:
            pass  # a sheet joined without its checks (a plain dict): the ruling below
    name = w.name.lower()
    if any(k in name for k in ("kick", "knee", "leg", "foot")):
        return "right leg"
    if "head" in name:
        return "head"
    return "right arm"


def offer_bare_parry(draft: Draft) -> None:
    """The step ``unarmed:bare-parry`` (after an attack is declared):
    against an unarmed or natural attack the target may parry with his own
    unarmed or natural weapons, held or not (seed 004 "Natural Weapons": they
    "may parry other natural weapons or unarmed attacks")."""
    state = draft.state
    x = state.exchange
    step = next((s for s in state.pending if s.kind == "react" and x is not None and s.exchange == x.id), None)
    if step is None or "parry" in step.options:
        return
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    used = next((w for w in sheet_of(a).weapons if w.name == x.weapon), None)
    bare = [w.name for w in sheet_of(t).weapons if w.kind in ("unarmed", "natural") and usable(state, t, w)]
    if used is None or used.kind not in ("unarmed", "natural") or not bare:
        return
    steps = tuple(
        replace(s, options=("parry",) + s.options, prompt=f"{s.prompt} (parry with {', '.join(bare)})") if s is step else s
        for s in state.pending
    )
    draft.emit(ev.StepsAwaited(steps=steps))


def after_parry(draft: Draft) -> None:
    """The step ``unarmed:after-parry`` (after a reaction): after a parry
    against an unarmed attack, a successful parry with a
    crafted or natural weapon queues the attacker's own injury first (seed
    004 "Unarmed Combat")."""
    x = draft.start.exchange
    if x is None or x.weapon == "Unarmed":
        return
    a = draft.start.combatants[x.attacker]
    used = next((w for w in sheet_of(a).weapons if w.name == x.weapon), None)
    chosen = next((e for e in draft.events if isinstance(e, ev.ReactionChosen) and e.reaction == "parry"), None)
    resolved = next((e for e in draft.events if isinstance(e, ev.ReactionResolved)), None)
    if used is None or used.kind != "unarmed" or chosen is None or resolved is None:
        return
    defender = chosen.handle
    item = find_weapon(draft.state.combatants[defender], chosen.with_item, ready_only=False)
    if resolved.cell.rsplit("/", 1)[1] in ("success", "critical") and item.kind in HURTS:
        step = ev.PendingStep(
            who=defender, verb="roll", kind="unarmed-parried",
            dice=(ev.DiceNeed(f"{item.name} damage (parried unarmed attack)", str(dicelib.parse(item.damage)), by=defender),),
            data={"target": a.handle, "location": limb_of_weapon(used), "weapon": item.name},
            prompt=f"{draft.state.combatants[defender].name}: roll {item.damage} {item.name} damage to {a.name}'s {limb_of_weapon(used)} (parried unarmed attack)",
        )
        draft.emit(ev.StepsAwaited(steps=(step,) + draft.state.pending))


def _hurt(draft: Draft, target: str, location: str, amount: int, note: str, rest, summary: str) -> None:
    t = draft.state.combatants[target]
    armour = min(amount, t.location(location).ap)
    x = draft.state.exchange
    draft.emit(ev.DamageDealt(exchange=x.id if x else 0, target=target, location=location, rolled=amount, reduced=0,
                              armour=armour, final=amount - armour, note=note))
    follow: list[ev.PendingStep] = []
    if amount - armour > 0:
        draft.then("wounds:wound", handle=target, location=location, exchange=x.id if x else 0, follow=follow)
    draft.then("unarmed:carry-on", rest=rest, follow=follow, summary=summary)


def carry_on_before_turns(draft: Draft, rest, follow, summary: str) -> None:
    """The step ``unarmed:carry-on``: await ``follow`` (the wound's steps)
    before any turn step in ``rest``, or end the exchange with ``summary``."""
    carry_on(draft, _before_turns(follow, rest), summary)


def _before_turns(follow, rest) -> tuple[ev.PendingStep, ...]:
    """The wound steps ``follow`` before any turn step in ``rest``: when the
    exchange has already ended, the next turn waits for the wound's tests."""
    rest = tuple(rest)
    return tuple(s for s in rest if s.kind != "turn") + tuple(follow) + tuple(s for s in rest if s.kind == "turn")


def roll_step(draft: Draft, step: ev.PendingStep, rest) -> None:
    """The steps ``roll:unarmed-parried``, ``roll:impaler-yank`` and
    ``roll:impaler-damage``: roll one of this module's pending steps."""
    if step.kind == "unarmed-parried":
        need = step.dice[0]
        amount = draft.roll(need.expr, need.purpose, by=step.who).total
        target = str(step.data["target"])
        return _hurt(draft, target, str(step.data["location"]), amount, f"parried by {step.data['weapon']}: no damage modifier",
                     rest, f"{draft.state.combatants[target].name} hurts himself on {step.data['weapon']}")
    if step.kind == "impaler-yank":
        return _yank_test(draft, step, rest)
    need = step.dice[0]
    amount = draft.roll(need.expr, need.purpose, by=step.who).total
    victim = str(step.data["victim"])
    freed = bool(step.data["freed"])
    if freed:
        draft.emit(ev.ConditionExpired(handle=victim, condition_id=str(step.data["condition"]), reason="yanked free"))
    # the weapon is already past the armour: no AP (as impaling.py's yank)
    x = draft.state.exchange
    location = str(step.data["location"])
    draft.emit(ev.DamageDealt(exchange=x.id if x else 0, target=victim, location=location, rolled=amount, reduced=0,
                              armour=0, final=amount, note="yanked free" if freed else "stuck"))
    follow: list[ev.PendingStep] = []
    draft.then("wounds:wound", handle=victim, location=location, exchange=x.id if x else 0, follow=follow)
    draft.then("unarmed:carry-on", rest=rest, follow=follow, summary="yank")


# --------------------------------------------------------------------------- #
# Impaled characters
# --------------------------------------------------------------------------- #


def _impaler(state, cond) -> Weapon | None:
    """The weapon an ``impaled`` condition names ("<wielder>'s <weapon>")."""
    for c in state.combatants.values():
        for w in sheet_of(c).weapons:
            if cond.note == f"{c.name}'s {w.name}":
                return w
    return None


def self_yank(draft: Draft, who: str) -> None:
    """Seed 004 "Impaled Enemies": the impaled creature may spend a Combat
    Action to yank the impaling weapon free (a brute force Athletics test,
    as "Yanking"). The newest impaling weapon comes first."""
    c = require_turn(draft.state, who)
    impaled = [x for x in c.conditions if x.name == "impaled"]
    if not impaled:
        raise RuleError(f"{c.name} is not impaled; 'yank' frees an impaling weapon")
    draft.emit(ev.ActionSpent(handle=who, kind="combat-action", reason="yank an impaling weapon free"))
    draft.emit(ev.StepsAwaited(steps=(yank_step(draft.state, who, who, impaled[-1]),)))


def yank_step(state, yanker: str, victim: str, cond) -> ev.PendingStep:
    """The pending Athletics test of ``yanker`` to yank the weapon of the
    ``impaled`` condition ``cond`` out of ``victim`` (seed 004 "Yanking")."""
    c, v = state.combatants[yanker], state.combatants[victim]
    return ev.PendingStep(
        who=yanker, verb="roll", kind="impaler-yank", dice=(ev.DiceNeed("Athletics (yank)", "1D100", by=yanker),),
        data={"victim": victim, "condition": cond.id, "location": cond.location},
        prompt=f"{c.name}: Athletics test to yank {cond.note} out of {v.name}'s {cond.location} (then damage)",
    )


def _yank_test(draft: Draft, step: ev.PendingStep, rest) -> None:
    c = draft.state.combatants[step.who]
    victim = draft.state.combatants[str(step.data["victim"])]
    cond = next((x for x in victim.conditions if x.id == step.data["condition"]), None)
    if cond is None:
        raise RuleError(f"{victim.name} is no longer impaled there")
    tested = test(draft, c, "Athletics", skill(c, "Athletics"), test_modifiers(c, "Athletics"), f"Athletics: yank {cond.note} free")
    freed = tested.result in ("success", "critical")
    weapon = _impaler(draft.state, cond)
    expr = str(dicelib.parse(weapon.damage)) if freed and weapon else "1D4"
    what = f"{weapon.name if weapon else 'weapon'} damage as it comes free" if freed else "1D4 damage, the weapon stays stuck"
    after = ev.PendingStep(
        who=step.who, verb="roll", kind="impaler-damage", dice=(ev.DiceNeed(what, expr, by=step.who),),
        data={**step.data, "freed": int(freed)}, prompt=f"{c.name}: roll {expr} ({what}) to {victim.name}'s {cond.location}",
    )
    draft.emit(ev.StepsAwaited(steps=(after,) + tuple(rest)))


def lay_hold(draft: Draft) -> None:
    """After an unarmed hit: if it struck an impaled location, the attacker
    lays hold of the impaling weapon and may yank it at once (seed 004
    "Impaled Enemies"); offered as a choice, yank | leave."""
    hits = [e for e in draft.events if isinstance(e, ev.DamageDealt)]
    if not hits:
        return
    hit = hits[0]
    x = draft.start.exchange  # the exchange may have closed with the damage
    if x is None:
        return
    victim = draft.state.combatants[hit.target]
    cond = next((c for c in reversed(victim.conditions) if c.name == "impaled" and c.location == hit.location), None)
    if cond is None:
        return
    a = draft.state.combatants[x.attacker]
    step = ev.PendingStep(
        who=a.handle, verb="choose", kind="lay-hold", options=("yank", "leave"), exchange=x.id,
        data={"victim": victim.handle, "condition": cond.id, "location": cond.location},
        prompt=f"{a.name} lays hold of {cond.note} in {victim.name}'s {cond.location}: yank | leave",
    )
    draft.emit(ev.StepsAwaited(steps=(step,) + draft.state.pending))


def choose(draft: Draft, step: ev.PendingStep, option: str) -> None:
    """The step ``choose:lay-hold``: answer the lay-hold choice."""
    rest = tuple(s for s in draft.state.pending if s is not step)
    option = option.lower()
    if option not in step.options:
        raise RuleError(f"choose {' | '.join(step.options)} here, not {option!r}")
    if option == "leave":
        return carry_on(draft, rest, "the weapon stays in")
    victim = draft.state.combatants[str(step.data["victim"])]
    cond = next(x for x in victim.conditions if x.id == step.data["condition"])
    draft.emit(ev.StepsAwaited(steps=(yank_step(draft.state, step.who, victim.handle, cond),) + rest))


def after_roll(draft: Draft) -> None:
    """The step ``unarmed:lay-hold`` (after an ``affray roll``): when the
    command began in an unarmed attack's exchange, :func:`lay_hold`."""
    if draft.start.exchange is not None and is_unarmed_attack(draft.start):
        lay_hold(draft)


def is_unarmed_attack(state) -> bool:
    """Whether the open exchange is an unarmed attack."""
    x = state.exchange
    if x is None or x.kind == "grapple":
        return False
    if x.weapon == "Unarmed":
        return True
    w = next((w for w in sheet_of(state.combatants[x.attacker]).weapons if w.name == x.weapon), None)
    return w is not None and w.kind == "unarmed"

