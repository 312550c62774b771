"""Ranged combat in mrq1.

Source: seed 004 "Ranged Attack" (Combat Actions), "Ranged Weapons"
(Loading Ranged Weapons, Ranged Attack Situational Modifiers and their
footnotes, Range, Dodging and Parrying, Precise Attacks, Cover, Firing into
a Crowd), "Aim", "Free Attacks"; rulings ``ranged_sections``.

A ranged attack is handled like a close combat attack, except: it does not
engage; it draws free attacks from adjacent enemies, and their damage makes
it fail; the target may dodge but not parry; the weapon must be loaded, and
is unloaded by the shot (a thrown weapon leaves the hand).

Steps: ``act:aim``, ``act:shoot`` (also an ``affray attack`` with a ranged
weapon: ``attack:options``), then ``free-attacks:offer`` and
``finish:shoot`` (the shot: ``attack:open``); ``ranged:covered`` (a blow
into cover, from the damage roll) and ``ranged:projectile-on`` (a dodged
shot into a crowd flies on; both re-offer the reaction with
``attack:offer-reaction``).
"""

from __future__ import annotations

import shlex

from affray.events import core as ev
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1 import tables
from affray.rules.mrq1.core import (
    Spec,
    USAGE,
    adjacent_enemies,
    apply,
    begin,
    break_aim,
    check_arms,
    condition_modifiers,
    cover_option,
    done,
    end_exchange,
    find_weapon,
    kind_parts,
    loaded,
    make_kind,
    note,
    precise_option,
    ranged_weapon,
    require_turn,
    rulings_of,
    sheet_of,
)
from affray.rules.mrq1.sheet import Weapon

#: Situation keys for a GM without exact distances.
RANGE_KEYS = {"long-range": "long range (up to double range): skill halved", "beyond-range": "beyond double range"}


# --------------------------------------------------------------------------- #
# Aim
# --------------------------------------------------------------------------- #


def aim(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Aim": +10% per Combat Action to the first ranged attack at
    the target with the weapon, at most three actions (+30%)."""
    state = draft.state
    c = require_turn(state, who)
    if not spec.args:
        raise RuleError(f"aim at whom? {USAGE['aim']}")
    target = find_combatant(state, spec.args[0])
    if target == who:
        raise RuleError(f"{c.name} cannot aim at themself")
    weapon = ranged_weapon(c, spec.get("weapon"))
    if not loaded(c, weapon):
        raise RuleError(f"{weapon.name} is not loaded; reload it first (affray act {who} ready {shlex.quote(weapon.name)})")
    cid = f"aiming:{target}"
    old = next((x for x in c.conditions if x.name == "aiming"), None)
    n = 1
    if old is not None and old.id == cid and old.note == weapon.name:
        n = old.effects.get("aim", 0) // 10 + 1
        if n > 3:
            raise RuleError(f"{c.name} already aims for +30%, the most three Combat Actions give (seed 004 'Aim'); shoot now")
    begin(draft, who, spec, keep="aiming" if n > 1 else "")
    if n == 1:
        break_aim(draft, who, "aims at another target")
    t = state.combatants[target]
    apply(draft, who, "aiming", ends="event", effects={"aim": 10 * n}, note=weapon.name, suffix=target)
    note(draft, who, "aim", f"{c.name} aims {weapon.name} at {t.name} (+{10 * n}%)", spec)
    done(draft)


def aim_bonus(draft: Draft, who: str, target: str, weapon: Weapon) -> list[ev.Modifier]:
    """The aim bonus for this shot, used up (seed 004 "Aim": only the first
    attack with the weapon, at the target aimed at)."""
    c = draft.state.combatants[who]
    mods = []
    for cond in c.conditions:
        if cond.name == "aiming":
            if cond.id == f"aiming:{target}" and cond.note == weapon.name:
                mods.append(ev.Modifier(cond.effects.get("aim", 0), "aimed"))
                reason = "the aimed shot is taken"
            else:
                reason = "shoots at another target or with another weapon"
            draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason=reason))
    return mods


# --------------------------------------------------------------------------- #
# Ranged Attack
# --------------------------------------------------------------------------- #


def shoot(draft: Draft, who: str, spec) -> None:
    """Declare a ranged attack (``affray attack A T --weapon BOW`` or
    ``affray act A shoot T``): check it, spend the Combat Action, and let
    adjacent enemies make their free attacks first."""
    state = draft.state
    c = require_turn(state, who)
    if not spec.args:
        raise RuleError(f"shoot at whom? {USAGE['shoot']}")
    target = find_combatant(state, spec.args[0])
    t = state.combatants[target]
    if target == who:
        raise RuleError(f"{c.name} cannot attack themself; name another combatant")
    if t.status == "dead":
        raise RuleError(f"{t.name} is dead; choose another target")
    if c.effect("cannot-attack"):
        raise RuleError(f"{c.name} cannot attack now (see 'affray state')")
    for bad in ("charge", "flurry", "off-hand"):
        if spec.get(bad):
            raise RuleError("ranged attacks may not be used as part of a charge or flurry (seed 004 'Ranged Weapons')")
    weapon = ranged_weapon(c, spec.get("weapon"))
    check_arms(c, weapon, rulings_of(state).two_useless_legs_weapons)
    if not loaded(c, weapon):
        raise RuleError(f"{weapon.name} is not loaded; reload it first (affray act {who} ready {weapon.name!r})")
    crowd = find_combatant(state, spec.get("crowd")) if spec.get("crowd") else ""
    precise = precise_option(state, c, t, spec.get("precise"), ranged=True)
    if precise and crowd:
        raise RuleError("a precise attack may not be made when firing into a crowd (seed 004 'Firing into a Crowd')")
    cover = cover_option(spec.get("cover"))
    if crowd and not cover:
        raise RuleError("firing into a crowd: say which of the target's locations the crowd covers, with cover=LOCS")
    if crowd == target or crowd == who:
        raise RuleError("crowd= names someone next to the target, not the target or the shooter")
    for s in spec.sits:
        if s not in tables.RANGED_MODIFIERS and s not in RANGE_KEYS:
            known = ", ".join([*tables.RANGED_MODIFIERS, *RANGE_KEYS])
            raise RuleError(f"unknown ranged situation {s!r}; known: {known}")
    metres = spec.number("range", None)
    opts = {"weapon": weapon.name}
    for key, value in (("range", "" if metres is None else str(metres)), ("cover", cover), ("crowd", crowd), ("precise", precise),
                       ("wall", spec.get("wall"))):
        if value:
            opts[key] = value
    spec = Spec("shoot", [target], opts, spec.mods, spec.sits)
    begin(draft, who, spec, keep="aiming", reason=f"ranged attack on {t.name}")
    draft.then("free-attacks:offer", who=who, spec=spec, enemies=adjacent_enemies(draft.state, who), trigger="ranged attack")


def finish(draft: Draft, who: str, spec, damaged: bool, passed: bool | None = None) -> None:
    """The step ``finish:shoot``: the shot itself, once the free attacks are over: if one of them did
    damage, the ranged attack fails (seed 004 "Free Attacks"; no test, so
    ``passed`` is never set)."""
    c = draft.state.combatants[who]
    target = spec.args[0]
    t = draft.state.combatants[target]
    weapon = find_weapon(c, spec.get("weapon"), ready_only=False)
    if damaged:
        break_aim(draft, who, "the shot is spoilt")
        _spend_ammunition(draft, who, weapon)
        note(draft, who, "shoot", f"{c.name}'s ranged attack fails: a free attack did damage (seed 004 'Free Attacks')")
        done(draft)
        return
    if t.status == "dead":
        note(draft, who, "shoot", f"{t.name} is dead: {c.name} holds the shot")
        done(draft)
        return
    base, mods, auto = modifiers(draft.state, c, t, weapon, spec)
    mods = aim_bonus(draft, who, target, weapon) + mods
    _spend_ammunition(draft, who, weapon)
    kind = make_kind("ranged", precise=spec.get("precise"), cover=spec.get("cover"), crowd=spec.get("crowd"), wall=spec.get("wall"))
    if spec.get("precise"):
        m = tables.COMBAT_MODIFIERS["precise-attack"]
        mods.append(ev.Modifier(m.value, f"precise attack ({spec.get('precise')})"))
    draft.then("attack:open", attacker=who, target=target, weapon=weapon, exchange_kind=kind, mods=mods, auto_fail=auto, base=base)


def _spend_ammunition(draft: Draft, who: str, weapon: Weapon) -> None:
    """A shot unloads the weapon (seed 004 "Ready Weapon": nocking an arrow
    is a Ready Weapon action); a thrown weapon leaves the hand."""
    if weapon.thrown:
        draft.emit(ev.WeaponDropped(handle=who, weapon=weapon.name, reason="thrown"))
        return
    if weapon.reload <= 0:
        return
    draft.emit(
        ev.ConditionApplied(
            handle=who,
            condition=cat.make("unloaded", ends="event", note=weapon.name, suffix=weapon.name,
                               cause=draft.next_version, round=draft.state.round, step=draft.state.step),
        )
    )


def modifiers(state: State, a: Combatant, t: Combatant, weapon: Weapon, spec) -> tuple[int, list[ev.Modifier], str]:
    """``(skill base, modifiers, automatic failure)`` of a ranged attack.

    * Range: within the weapon's range no penalty; within double range the
      skill is halved (rounded down) before other modifiers; beyond, the
      attack fails (seed 004 "Range"). ``range=M`` with the sheet's
      ``range``, or the situations ``long-range`` / ``beyond-range``.
    * The table: Target Size from the target's SIZ, Target Condition
      (helpless, surprised, prone) and the attacker's prone stance are
      automatic; the GM may name the last four where the state disagrees
      (they count once), and a named Target Size is refused; the GM names wind, target movement, visibility and other
      attacker conditions (``--situation``). Within a section only the
      largest modifier applies; attacker conditions add up (footnotes 1 and
      3); sections add up, or only the worst applies under ruling
      ``ranged_sections=worst-only``.
    * A hurricane, or a bow or other projectile weapon fired underwater,
      fails automatically (footnote 4).
    """
    base = weapon.skill
    auto = ""
    mods = condition_modifiers(a, mobility=True)
    metres = spec.number("range", None)
    long = "long-range" in spec.sits
    if metres is not None and weapon.range:
        if metres > 2 * weapon.range:
            auto = f"{metres} m is beyond double the {weapon.name}'s range ({weapon.range} m)"
        elif metres > weapon.range:
            long = True
    elif metres is not None and not weapon.range:
        raise RuleError(f"{weapon.name} has no range on the sheet; say long-range or beyond-range with --situation instead")
    if "beyond-range" in spec.sits:
        auto = "beyond double range"
    if long and not auto:
        base = weapon.skill // 2
    groups: dict[str, list[ev.Modifier]] = {}

    def add(key: str, value: int | None = None, times: int = 1) -> None:
        m = tables.RANGED_MODIFIERS[key]
        groups.setdefault(m.group, []).append(ev.Modifier((m.value if value is None else value) * times, m.text))

    siz = sheet_of(t).characteristics.SIZ
    if siz < 5:
        add("target-small", times=5 - siz)
    elif siz > 20 and (siz - 20) // 10:
        add("target-large", times=(siz - 20) // 10)
    seen = {  # the situations the state already gives; named again by the GM, they count once
        "target-helpless": bool(t.effect("helpless")) or t.status == "unconscious",
        "target-surprised": t.has("surprised"),
        "target-prone": t.stance == "prone",
        "attacker-prone": a.stance == "prone",
    }
    named = dict.fromkeys(spec.sits)
    for key, applies in seen.items():
        if applies or key in named:  # the GM's word stands where the engine's stance disagrees
            add(key)
    for s in named:
        if s in RANGE_KEYS or s in seen:
            continue
        if s in ("target-small", "target-large"):
            raise RuleError(f"{s} is worked out from {t.name}'s SIZ {siz}; drop it (or give a reasoned --mod)")
        m = tables.RANGED_MODIFIERS[s]
        if m.special == "automatic-failure":
            auto = auto or m.text
        elif s == "attacker-underwater" and not weapon.thrown:
            auto = auto or "bows and other projectile weapons automatically miss underwater"
        else:
            add(s)
    sections = []
    for group, items in groups.items():
        if group == "attacker-condition":
            continue
        sections.append(max(items, key=lambda m: abs(m.value)))
    if rulings_of(state).ranged_sections == "worst-only" and sections:
        sections = [min(sections, key=lambda m: m.value)]
    mods.extend(sections)
    mods.extend(groups.get("attacker-condition", []))
    mods.extend(spec.mods)
    return base, mods, auto


def covered(draft: Draft, location: str, rest) -> None:
    """The step ``ranged:covered``: the damage roll hit a location in cover (seed 004 "Cover"): the
    object takes the blow; firing into a crowd, the one next to the target
    is hit instead (seed 004 "Firing into a Crowd"), and may react."""
    x = draft.state.exchange
    assert x is not None
    a, t = draft.state.combatants[x.attacker], draft.state.combatants[x.target]
    _, opts = kind_parts(x.kind)
    crowd = opts.get("crowd", "")
    if not crowd or draft.state.combatants[crowd].status == "dead":
        draft.emit(ev.NoteAdded(text=f"the blow strikes the cover in front of {t.name}'s {location}"))
        end_exchange(draft, f"{a.name} hits the cover")
        return
    draft.emit(ev.NoteAdded(text=f"{t.name}'s {location} is covered by the crowd: the shot hits {draft.state.combatants[crowd].name}"))
    _redirect(draft, crowd, make_kind("ranged", crowd_from=x.target))


def continue_projectile(draft: Draft) -> None:
    """The step ``ranged:projectile-on``: the accidental target dodged: the projectile goes on and may strike
    the intended target, who may react as normal (seed 004)."""
    x = draft.state.exchange
    assert x is not None
    intended = kind_parts(x.kind)[1]["crowd-from"]
    draft.emit(ev.NoteAdded(text=f"the projectile flies on towards {draft.state.combatants[intended].name}"))
    _redirect(draft, intended, "ranged")


def _redirect(draft: Draft, target: str, kind: str) -> None:
    x = draft.state.exchange
    assert x is not None
    attacker, weapon, roll, skill, critical = x.attacker, x.weapon, x.roll, x.skill, x.critical
    end_exchange(draft, "the shot goes on", advance_turn=False)
    exchange = draft.state.next_exchange
    draft.emit(ev.AttackDeclared(exchange=exchange, attacker=attacker, target=target, weapon=weapon, kind=kind))
    draft.emit(ev.AttackResolved(exchange=exchange, hit=True, critical=critical, roll=roll, skill=skill))
    draft.then("attack:offer-reaction")
