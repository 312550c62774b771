"""Grappling (seed 002 "GRAPPLING"; "1. Melee Attack": "including grapple
... attacks").

Declared as ``attack:FOE:Grapple`` (the Grapple skill, weapon SR 3). A
successful grapple grasps a random location; a dodge evades it; a
successful parry with a weapon catches the weapon instead (a shield parry,
the shield); a special grapple against a parry catches the parrying arm; a
successful parry with Grapple blocks it. In later rounds, at DEX SR:

- ``attack:FOE:Grapple:immobilise``: a Grapple roll, then STR vs STR/2 on
  the resistance table: immobilised (it cannot attack; it may try
  ``attack:HOLDER:Grapple:break-free``, STR/2 vs STR, once a round at its
  DEX SR);
- ``attack:FOE:Grapple:throw`` at +10%: STR+DEX vs SIZ/2+DEX: 1D6 + damage
  modifier to a random location, armour at half, and the foe falls;
- ``attack:FOE:Grapple:damage`` at -10%: 1D4 + damage modifier to the held
  location, armour ignored.

A caught shield or hafted weapon is held (``weapon-held``): the
follow-ups immobilise the weapon (it cannot attack or parry) or throw its
wielder; a caught blade cannot be held. A throw from a height
(``affray attack … --situation height=METRES``) adds +1D6 for each full 3
m (ruling ``throw_height``). A failed follow-up releases the hold.
Follow-ups are not parried or dodged (ruling ``grapple_follow_ups``).
"""

from __future__ import annotations

from affray.events import core as ev
from affray.rules.base import Draft
from affray.rules.rq3 import core, tables

FOLLOW_UPS = ("immobilise", "throw", "damage")


def _held(c, other: str):
    return next((x for x in c.conditions if x.name == "grappling" and x.id.endswith(f":{other}")), None)


def hold(draft: Draft, step: ev.PendingStep) -> None:
    """The grasp of a successful grapple (after any parry)."""
    state = draft.state
    x = state.exchange
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    d20 = draft.roll("1D20", step.dice[0].purpose, by=x.attacker).total
    location = tables.hit_location(d20)
    pw = str(step.data.get("parry-weapon", ""))
    parried = pw and core.succeeded(str(step.data.get("parry-level", "")))
    if parried and pw == "Grapple":
        return core.end_exchange(draft, f"{t.name}'s Grapple parry blocks {a.name}'s grapple")
    what = location
    held_item = 0
    if parried:
        w = core.weapon_of(t, pw)
        if step.data.get("level") in ("special", "critical"):
            what = "left arm" if w.kind == "shield" else "right arm"  # the parrying arm (ruling grapple_arm)
        elif w.kind != "shield" and w.blade == "bladed":
            # seed 002: "A bladed weapon that is caught can not normally be held."
            return core.end_exchange(draft, f"{a.name} catches {t.name}'s {w.name} but cannot hold a blade")
        else:
            what, held_item = w.name, 1  # "A shield or hafted weapon that is caught can be held"
    loc = what if what in {l.name for l in t.locations} else ""
    core.condition(draft, a.handle, "grappling", ends="event", key=t.handle, location=loc,
                   effects={"grappling": 1, "weapon-held": held_item}, note=f"holds {t.name}'s {what}")
    core.condition(draft, t.handle, "grappled", ends="event", key=a.handle, location=loc,
                   effects={"grappled": 1, "weapon-held": held_item}, note=f"{what} held by {a.name}")
    core.end_exchange(draft, f"{a.name} grasps {t.name}'s {what} (d20={d20})")


def release(draft: Draft, holder: str, target: str, reason: str) -> None:
    """End a hold (and any immobilisation)."""
    h, t = draft.state.combatants[holder], draft.state.combatants[target]
    for x in h.conditions:
        if x.name == "grappling" and x.id.endswith(f":{target}"):
            draft.emit(ev.ConditionExpired(handle=holder, condition_id=x.id, reason=reason))
    for x in t.conditions:
        if (x.name == "grappled" and x.id.endswith(f":{holder}")) or x.id == f"immobilised:{holder}":
            draft.emit(ev.ConditionExpired(handle=target, condition_id=x.id, reason=reason))


def follow_step(draft: Draft, mode: str) -> None:
    """After a successful follow-up Grapple roll: its dice."""
    x = draft.state.exchange
    a = draft.state.combatants[x.attacker]
    db = core.derived(a).damage_modifier.lstrip("+-")
    if mode == "damage":
        dice = [ev.DiceNeed("grapple damage", "1D4", by=x.attacker)] + ([ev.DiceNeed("damage modifier", db, by=x.attacker)] if db else [])
    else:
        dice = [ev.DiceNeed(f"resistance: {mode}", "1D100", by=x.attacker)]
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=x.attacker, verb="roll", kind="grapple-follow", exchange=x.id, data={"mode": mode}, dice=tuple(dice),
        prompt=f"{a.name}: {mode} — affray roll"),)))


def follow(draft: Draft, step: ev.PendingStep) -> None:
    """The resistance roll of an immobilise or throw, or the damage."""
    state = draft.state
    x = state.exchange
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    mode = str(step.data["mode"])
    sa, st = core.sheet_of(a).characteristics, core.sheet_of(t).characteristics
    held = _held(a, t.handle)
    if mode == "immobilise" and held is not None and held.effects.get("weapon-held"):
        item = held.note.split("'s ", 1)[-1]
        if core.resist(draft, a.handle, sa.STR, st.STR // 2, f"immobilise: {a.name} STR against {t.name} STR/2"):
            # seed 002: a caught shield or hafted weapon held "to immobilize the weapon"
            core.condition(draft, t.handle, "weapon-immobilised", ends="event", key=item,
                           note=f"{item} held immobilised by {a.name}")
            return core.end_exchange(draft, f"{a.name} immobilises {t.name}'s {item}")
        return core.end_exchange(draft, f"{t.name}'s {item} is not immobilised, but still held")
    if mode == "immobilise":
        if core.resist(draft, a.handle, sa.STR, st.STR // 2, f"immobilise: {a.name} STR against {t.name} STR/2"):
            core.condition(draft, t.handle, "immobilised", ends="event", key=a.handle,
                           effects={"cannot-attack": 1, "immobilised": 1}, note=f"by {a.name}")
            return core.end_exchange(draft, f"{a.name} immobilises {t.name}")
        return core.end_exchange(draft, f"{t.name} is not immobilised, but still held")
    if mode == "throw":
        if core.resist(draft, a.handle, sa.STR + sa.DEX, st.SIZ // 2 + st.DEX,
                       f"throw: {a.name} STR+DEX against {t.name} SIZ/2+DEX"):
            db = core.derived(a).damage_modifier.lstrip("+-")
            dice = [ev.DiceNeed(f"hit location: {t.name} thrown", "1D20", by=a.handle), ev.DiceNeed("throw damage", "1D6", by=a.handle)]
            extra = _height_dice(x.kind)
            if extra:
                dice.append(ev.DiceNeed(f"the fall from {_height(x.kind)} m", extra, by=a.handle))
            if db:
                dice.append(ev.DiceNeed("damage modifier", db, by=a.handle))
            dice.append(ev.DiceNeed(f"{_break_skill(t)[0]}: {t.name} lands well", "1D100", by=t.handle))
            draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
                who=a.handle, verb="roll", kind="thrown", exchange=x.id, dice=tuple(dice),
                prompt=f"{t.name} is thrown: affray roll"),)))
            return None
        return core.end_exchange(draft, f"{t.name} is not thrown, but still held")
    # damage: 1D4 + damage modifier to the held location, armour ignored
    amount = draft.roll("1D4", "grapple damage", by=a.handle).total + _db(draft, a, step)
    location = held.location if held and held.location else "chest"
    amount = max(0, amount)
    spell = min(amount, core.spell_ap(t) // 2)  # seed 002: "Protective spells have half value"
    note = "grapple damage: armour has no effect" + (f"; protective spells at half: {spell}" if spell else "")
    draft.emit(ev.DamageDealt(exchange=x.id, target=t.handle, location=location, rolled=amount, reduced=0, armour=spell,
                              final=amount - spell, note=note))
    draft.then("wounds", target=t.handle, location=location, final=amount - spell)
    draft.then("grapple:end")


def _db(draft: Draft, a, step: ev.PendingStep) -> int:
    text = core.derived(a).damage_modifier
    if not text:
        return 0
    n = draft.roll(text.lstrip("+-"), "damage modifier", by=a.handle).total
    return -n if text.startswith("-") else n


def thrown(draft: Draft, step: ev.PendingStep) -> None:
    """A thrown foe: 1D6 + damage modifier to a random location, armour at
    half at best (protective spells counted with it: ruling
    ``throw_spell_ap``); it falls, and the hold ends."""
    state = draft.state
    x = state.exchange
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    d20 = draft.roll("1D20", step.dice[0].purpose, by=a.handle).total
    location = tables.hit_location(d20)
    amount = draft.roll("1D6", "throw damage", by=a.handle).total
    note = f"thrown; armour at half; d20={d20}"
    extra = _height_dice(x.kind)
    if extra:
        amount += draft.roll(extra, f"the fall from {_height(x.kind)} m", by=a.handle).total
        note += f"; a fall of {_height(x.kind)} m: +{extra}"
    amount = max(0, amount + _db(draft, a, step))
    name, value = _break_skill(t)
    if core.succeeded(core.test(draft, t.handle, name, value, purpose=f"{name}: {t.name} lands well")):
        amount //= 2  # seed 002: "If the opponent succeeds in a DEXx1, Acrobatics/2, or Breakfall roll, the damage is halved"
        note += f"; halved ({name})"
    worn = t.location(location).ap
    spell = core.spell_ap(t) if core.rulings_of(state).throw_spell_ap == "half" else 0
    if spell:
        note += f"; protective spells {spell} AP with the armour"
    armour = min(amount, (worn + spell) // 2)  # seed 002 "armor protecting, at best, at half value"; ruling throw_spell_ap
    draft.emit(ev.DamageDealt(exchange=x.id, target=t.handle, location=location, rolled=amount, reduced=0, armour=armour,
                              final=amount - armour, note=note))
    if t.stance != "prone":
        draft.emit(ev.StanceChanged(handle=t.handle, stance="prone", reason=f"thrown by {a.name}"))
    release(draft, a.handle, t.handle, "thrown")
    draft.then("wounds", target=t.handle, location=location, final=amount - armour)
    draft.then("grapple:end")


def _height(kind: str) -> int:
    return next((int(f.split("=", 1)[1]) for f in core.kind_flags(kind) if f.startswith("height=")), 0)


def _height_dice(kind: str) -> str:
    """Extra dice for a throw from a height (seed 002 "GRAPPLING": "more if
    the fall is from a greater height"; ruling ``throw_height``: +1D6 for
    every full 3 m of the drop), or ""."""
    n = _height(kind) // 3
    return f"{n}D6" if n else ""


def end(draft: Draft) -> None:
    """Close the exchange after grapple damage."""
    core.end_exchange(draft)


def failed(draft: Draft, holder: str, target: str) -> None:
    """A failed follow-up Grapple roll releases the opponent."""
    release(draft, holder, target, "the follow-up failed")
    core.end_exchange(draft, "the hold is released")


def break_free(draft: Draft, handle: str, holder: str) -> None:
    """An immobilised character's STR/2 vs STR attempt at its DEX SR."""
    c, h = draft.state.combatants[handle], draft.state.combatants[holder]
    sc, sh = core.sheet_of(c).characteristics, core.sheet_of(h).characteristics
    if core.resist(draft, handle, sc.STR // 2, sh.STR, f"break free: {c.name} STR/2 against {h.name} STR"):
        release(draft, holder, handle, "broke free")
    core.end_exchange(draft)



def _break_skill(t) -> tuple[str, int]:
    """The best of DEX x1, Acrobatics/2 and Breakfall (seed 002 "GRAPPLING": a throw's damage halved)."""
    sheet = core.sheet_of(t)
    options = [("DEX x1", sheet.characteristics.DEX), ("Acrobatics/2", sheet.skills.get("Acrobatics", 0) // 2),
               ("Breakfall", sheet.skills.get("Breakfall", 0))]
    return max(options, key=lambda o: o[1])
