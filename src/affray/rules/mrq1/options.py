"""Attack options of mrq1: Charge, Flurry, precise attacks, Two Weapon Use,
cover, and the dispatch of a ranged weapon's attack.

``affray attack`` carries them as situations (``charge=12``, ``flurry``,
``precise=head``, ``off-hand``, ``cover=head``, ``range=30``,
``crowd=gorp``, ``past=gorp``; the CLI has an option for each); a plain
close combat attack has none and takes the path of
:func:`affray.rules.mrq1.attack.declare_attack` unchanged.

Sources: seed 004 "Charge", "Flurry", "Precise Attack" (Bypass Armour,
Disarm, Location Strike, Strike Weapon / Shield), "Two Weapon Use",
"Cover", "Ranged Weapons".

Steps: ``attack:options`` (:func:`declare`, queued by
:func:`.attack.declare_attack` for an attack with options); a ranged
weapon's attack and a Charge go on as ``act:shoot`` and ``act:charge``;
every attack made here is rolled by ``attack:open``.
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.events import core as ev
from affray.rules.base import Draft, RuleError
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1 import tables
from affray.rules.mrq1.core import (
    Spec,
    attack_modifiers,
    check_arms,
    cover_option,
    default_weapon,
    end_other_actions,
    find_weapon,
    flurry_step,
    from_situations,
    held,
    make_kind,
    off_hand_item,
    precise_option,
    require_turn,
    rulings_of,
    use_off_hand,
    used_off_hand,
)


def declare(draft: Draft, attacker: str, target: str, weapon_name: str, modifiers, situations) -> None:
    """The step ``attack:options``: an ``affray attack`` with options, or a
    ranged weapon's attack, or the next blow of a Flurry (never a plain
    close combat attack: :func:`.core.has_attack_options` tells them apart)."""
    state = draft.state
    if flurry_step(state, attacker) is not None:
        spec = from_situations("attack", target, weapon_name, modifiers, situations) or Spec(
            "attack", [target], {"weapon": weapon_name} if weapon_name else {}, list(modifiers), []
        )
        _flurry_blow(draft, attacker, spec)
        return
    spec = from_situations("attack", target, weapon_name, modifiers, situations)
    c = state.combatants[attacker]
    try:
        weapon = find_weapon(c, weapon_name) if weapon_name else default_weapon(c)
    except RuleError:
        weapon = None
    ranged = weapon is not None and weapon.kind == "ranged"
    assert spec is not None or ranged, "a plain close combat attack is attack.declare_attack's"
    if spec is None:
        spec = Spec("attack", [target], {}, list(modifiers), list(situations))
    if weapon is not None and (weapon_name or ranged):
        spec.opts["weapon"] = weapon.name
    if ranged or spec.get("range") or spec.get("crowd"):
        if not ranged:
            raise RuleError("range= and crowd= are for ranged attacks; name a ranged weapon with --weapon")
        if spec.get("charge") or spec.get("flurry"):
            raise RuleError("ranged attacks may not be used as part of a charge or flurry (seed 004 'Ranged Weapons')")
        spec.word = "shoot"
        draft.then("act:shoot", who=attacker, spec=spec)
        return
    if spec.get("charge"):
        spec.word = "charge"
        draft.then("act:charge", who=attacker, spec=spec)
        return
    if spec.get("flurry"):
        _flurry(draft, attacker, spec)
        return
    if spec.get("off-hand"):
        _off_hand(draft, attacker, spec)
        return
    close(draft, attacker, spec)


def close(draft: Draft, attacker: str, spec, *, base: str = "close", cost: int = 1, extra: tuple[ev.Modifier, ...] = (),
          precise_ok: bool = True) -> None:
    """A close combat attack with options (precise, cover), or a blow of a
    Flurry or the off-hand's bonus attack; rolled by ``attack:open``."""
    state = draft.state
    a = require_turn(state, attacker) if cost else state.combatants[attacker]
    target = spec.args[0]
    t = state.combatants[target]
    if attacker == target:
        raise RuleError(f"{a.name} cannot attack themself; name another combatant")
    if t.status == "dead":
        raise RuleError(f"{t.name} is dead; choose another target")
    if a.effect("cannot-attack"):
        raise RuleError(f"{a.name} cannot attack now (see 'affray state')")
    weapon = find_weapon(a, spec.get("weapon")) if spec.get("weapon") else default_weapon(a)
    check_arms(a, weapon, rulings_of(state).two_useless_legs_weapons)
    precise = precise_option(state, a, t, spec.get("precise"))
    if precise and not precise_ok:
        raise RuleError(f"precise attacks may not be made as part of a {base} (seed 004 'Precise Attack')")
    cover = cover_option(spec.get("cover"))
    if cost:
        draft.emit(ev.ActionSpent(handle=attacker, kind="combat-action", amount=cost, reason=f"{base} attack on {t.name}"))
        for cond in a.conditions:
            if cond.name == "overextended":
                draft.emit(ev.ConditionExpired(handle=attacker, condition_id=cond.id, reason="performed another combat action"))
        end_other_actions(draft, attacker, "attack")
    mods = attack_modifiers(draft.state, attacker, target, tuple(spec.mods), tuple(spec.sits))
    mods.extend(extra)
    if precise:
        m = tables.COMBAT_MODIFIERS["precise-attack"]
        mods.append(ev.Modifier(m.value, f"precise attack ({precise})"))
    draft.then("attack:open", attacker=attacker, target=target, weapon=weapon,
               exchange_kind=make_kind(base, precise=precise, cover=cover, wall=spec.get("wall")), mods=mods)


# --------------------------------------------------------------------------- #
# Flurry
# --------------------------------------------------------------------------- #


def _flurry(draft: Draft, attacker: str, spec) -> None:
    """Seed 004 "Flurry": all remaining Combat Actions at once, each blow at
    -20%; no precise attack (seed 004 "Precise Attack"), no ranged weapon."""
    a = require_turn(draft.state, attacker)
    if spec.get("precise"):
        raise RuleError("precise attacks may not be made as part of a flurry (seed 004 'Precise Attack')")
    if spec.get("off-hand"):
        raise RuleError("a flurry uses the Combat Actions; the off-hand bonus attack is separate (seed 004 'Two Weapon Use')")
    n = a.combat_actions
    weapon = find_weapon(a, spec.get("weapon")) if spec.get("weapon") else default_weapon(a)
    flurry = tables.COMBAT_MODIFIERS["flurry"]
    draft.emit(
        ev.ConditionApplied(
            handle=attacker,
            condition=cat.make("flurry", ends="round-end", effects={"blows": n - 1}, note=weapon.name,
                               cause=draft.next_version, round=draft.state.round, step=draft.state.step),
        )
    )
    spec.opts["weapon"] = weapon.name
    close(draft, attacker, spec, base="flurry", cost=n, extra=(ev.Modifier(flurry.value, "flurry"),), precise_ok=False)


def _flurry_blow(draft: Draft, attacker: str, spec) -> None:
    c = draft.state.combatants[attacker]
    if spec.get("precise") or spec.get("charge") or spec.get("range"):
        raise RuleError("flurry blows are single close combat attacks: no precise attack, charge or ranged attack (seed 004)")
    cond = next(x for x in c.conditions if x.name == "flurry")
    if spec.get("weapon") and find_weapon(c, spec.get("weapon")).name != cond.note:
        raise RuleError(f"the flurry is struck with {cond.note}")
    spec.opts["weapon"] = cond.note
    draft.emit(ev.ConditionApplied(handle=attacker, condition=replace(cond, effects={"blows": cond.effects.get("blows", 1) - 1})))
    flurry = tables.COMBAT_MODIFIERS["flurry"]
    close(draft, attacker, spec, base="flurry", cost=0, extra=(ev.Modifier(flurry.value, "flurry"),), precise_ok=False)


# --------------------------------------------------------------------------- #
# Two Weapon Use
# --------------------------------------------------------------------------- #


def _off_hand(draft: Draft, attacker: str, spec) -> None:
    """Seed 004 "Two Weapon Use": a single bonus close combat attack with the
    off-hand item, at -20%, not precise, once a round and not with the
    extra parry. It costs no Combat Action: the character acts on."""
    a = require_turn(draft.state, attacker)
    for bad in ("precise", "charge", "flurry"):
        if spec.get(bad):
            raise RuleError(f"the off-hand bonus attack may not be a {'precise attack' if bad == 'precise' else bad} (seed 004 'Two Weapon Use')")
    item = off_hand_item(a)
    if item is None:
        raise RuleError(f"{a.name} does not wield two one-handed items (two weapons, or a weapon and a shield)")
    if used_off_hand(a):
        raise RuleError(f"{a.name} has already used the off-hand this round (one extra parry or one bonus attack)")
    if spec.get("weapon"):
        w = find_weapon(a, spec.get("weapon"))
        if w.name not in [x.name for x in held(a)]:
            raise RuleError(f"{a.name} does not hold {w.name}")
        item = w
    spec.opts["weapon"] = item.name
    use_off_hand(draft, attacker, "bonus attack")
    m = tables.COMBAT_MODIFIERS["two-weapon-attack"]
    close(draft, attacker, spec, base="off-hand", cost=0, extra=(ev.Modifier(m.value, "off-hand bonus attack"),),
          precise_ok=False)
