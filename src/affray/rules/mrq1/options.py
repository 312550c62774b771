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
"""

from __future__ import annotations

from affray.events import core as ev
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1 import tables
from affray.rules.mrq1.common import (
    ALWAYS_READY,
    break_aim,
    default_weapon,
    find_weapon,
    held,
    make_kind,
    rulings_of,
    sheet_of,
)
from affray.rules.mrq1.sheet import Weapon

PRECISE_HELP = "precise=bypass | location:LOCATION (or just the location) | disarm[:ITEM] | weapon[:ITEM] | shield"


def declare(draft: Draft, attacker: str, target: str, weapon_name: str, modifiers, situations) -> bool:
    """Handle an ``affray attack`` with options, or a ranged weapon's attack,
    or the next blow of a Flurry; False for a plain close combat attack."""
    from affray.rules.mrq1 import actions
    from affray.rules.mrq1.delay import flurry_step
    from affray.rules.mrq1.movement import charge
    from affray.rules.mrq1.ranged import shoot

    state = draft.state
    if flurry_step(state, attacker) is not None:
        spec = actions.from_situations("attack", target, weapon_name, modifiers, situations) or actions.Spec(
            "attack", [target], {"weapon": weapon_name} if weapon_name else {}, list(modifiers), []
        )
        _flurry_blow(draft, attacker, spec)
        return True
    spec = actions.from_situations("attack", target, weapon_name, modifiers, situations)
    c = state.combatants[attacker]
    try:
        weapon = find_weapon(c, weapon_name) if weapon_name else default_weapon(c)
    except RuleError:
        weapon = None
    ranged = weapon is not None and weapon.kind == "ranged"
    if spec is None and not ranged:
        return False
    if spec is None:
        spec = actions.Spec("attack", [target], {}, list(modifiers), list(situations))
    if weapon is not None and (weapon_name or ranged):
        spec.opts["weapon"] = weapon.name
    if ranged or spec.get("range") or spec.get("crowd"):
        if not ranged:
            raise RuleError("range= and crowd= are for ranged attacks; name a ranged weapon with --weapon")
        if spec.get("charge") or spec.get("flurry"):
            raise RuleError("ranged attacks may not be used as part of a charge or flurry (seed 004 'Ranged Weapons')")
        spec.word = "shoot"
        shoot(draft, attacker, spec)
        return True
    if spec.get("charge"):
        spec.word = "charge"
        charge(draft, attacker, spec)
        return True
    if spec.get("flurry"):
        _flurry(draft, attacker, spec)
        return True
    if spec.get("off-hand"):
        _off_hand(draft, attacker, spec)
        return True
    close(draft, attacker, spec)
    return True


def end_other_actions(draft: Draft, who: str, word: str) -> None:
    """An attack ends an aim (seed 004 "Aim"), a spell or Ready Weapon in
    progress (ruling ``multi_action_interrupted``) and a delay."""
    c = draft.state.combatants[who]
    for cond in c.conditions:
        if cond.name == "delaying":
            draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="acts"))
        elif cond.name in ("casting", "readying") and rulings_of(draft.state).multi_action_interrupted:
            draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason=f"abandoned for an {word}"))
    break_aim(draft, who, f"{word} instead of shooting")


def precise_option(state: State, attacker: Combatant, target: Combatant, value: str, *, ranged: bool = False) -> str:
    """Validate a precise attack (seed 004 "Precise Attack") and return its
    canonical form: ``bypass``, ``location:LOC``, ``disarm:ITEM``,
    ``weapon:ITEM``. A ranged attack may only bypass armour or strike a
    location (seed 004 "Ranged Weapons > Precise Attacks")."""
    v = value.strip().lower()
    if not v:
        return ""
    what, _, item = v.partition(":")
    if what in ("bypass", "bypass-armour", "bypass-armor", "armour", "armor"):
        return "bypass"
    if what in ("disarm", "weapon", "shield", "strike-weapon", "strike-shield"):
        if ranged:
            raise RuleError("a ranged attack may not disarm or strike a weapon or shield (seed 004 'Ranged Weapons'); "
                            "bypass armour or a location strike work")
        items = [w for w in held(target) if w.kind not in ALWAYS_READY]
        if item:
            w = find_weapon(target, item, ready_only=False)
            if w.kind == "natural":
                raise RuleError(f"natural weapons may not be attacked this way (seed 004 'Strike Weapon / Shield')")
            if w.name not in target.ready:
                raise RuleError(f"{target.name} does not hold {w.name}")
        else:
            if what == "disarm":
                pool = [w for w in items if w.kind != "shield"] or items
            elif what in ("shield", "strike-shield"):
                pool = [w for w in items if w.kind == "shield"]
            else:
                pool = [w for w in items if w.kind != "shield"]
            if not pool:
                raise RuleError(f"{target.name} holds no {'shield' if 'shield' in what else 'weapon'} to {'disarm' if what == 'disarm' else 'strike'}")
            w = pool[0]
        return f"{'disarm' if what == 'disarm' else 'weapon'}:{w.name}"
    if what in ("location", "loc"):
        v = item
    try:
        return "location:" + tables.normalize_location(v)
    except ValueError:
        raise RuleError(f"unknown precise attack {value!r}; use {PRECISE_HELP}") from None


def cover_option(value: str) -> str:
    """Locations in cover (seed 004 "Cover"), canonical and comma-joined."""
    locs = []
    for part in value.split(","):
        if part.strip():
            try:
                locs.append(tables.normalize_location(part))
            except ValueError as exc:
                raise RuleError(f"cover: {exc}") from None
    return ",".join(locs)


def close(draft: Draft, attacker: str, spec, *, base: str = "close", cost: int = 1, extra: tuple[ev.Modifier, ...] = (),
          precise_ok: bool = True) -> None:
    """A close combat attack with options (precise, cover)."""
    from affray.rules.mrq1.attack import _attack_modifiers, _check_arms, _open_exchange, _require_turn

    state = draft.state
    a = _require_turn(state, attacker) if cost else state.combatants[attacker]
    target = spec.args[0]
    t = state.combatants[target]
    if attacker == target:
        raise RuleError(f"{a.name} cannot attack themself; name another combatant")
    if t.status == "dead":
        raise RuleError(f"{t.name} is dead; choose another target")
    if a.effect("cannot-attack"):
        raise RuleError(f"{a.name} cannot attack now (see 'affray state')")
    weapon = find_weapon(a, spec.get("weapon")) if spec.get("weapon") else default_weapon(a)
    _check_arms(a, weapon)
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
    mods = _attack_modifiers(draft.state, attacker, target, tuple(spec.mods), tuple(spec.sits))
    mods.extend(extra)
    if precise:
        m = tables.COMBAT_MODIFIERS["precise-attack"]
        mods.append(ev.Modifier(m.value, f"precise attack ({precise})"))
    _open_exchange(draft, attacker, target, weapon, make_kind(base, precise=precise, cover=cover, wall=spec.get("wall")), mods)


# --------------------------------------------------------------------------- #
# Flurry
# --------------------------------------------------------------------------- #


def _flurry(draft: Draft, attacker: str, spec) -> None:
    """Seed 004 "Flurry": all remaining Combat Actions at once, each blow at
    -20%; no precise attack (seed 004 "Precise Attack"), no ranged weapon."""
    from affray.rules.mrq1.attack import _require_turn

    a = _require_turn(draft.state, attacker)
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
    from msgspec.structs import replace

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


def off_hand_item(c: Combatant) -> Weapon | None:
    """The off-hand item of a character holding two one-handed items (a
    weapon and a shield, or two weapons): the shield, else the second
    weapon readied. None otherwise."""
    items = [w for w in held(c) if w.kind in ("melee", "shield") and w.hands == 1]
    if len(items) < 2:
        return None
    shields = [w for w in items if w.kind == "shield"]
    return shields[0] if shields else items[1]


def _used_off_hand(c: Combatant) -> bool:
    return c.has("two-weapon")


def extra_parry(state: State, defender: str, attacker: str) -> str:
    """The off-hand item's name when ``defender``, out of reactions, may
    still parry once this round with it (seed 004 "Two Weapon Use": one
    additional parry per round, over the Reaction allowance); else ""."""
    c = state.combatants[defender]
    if c.status != "active" or c.effect("helpless") or _used_off_hand(c):
        return ""
    item = off_hand_item(c)
    return item.name if item is not None else ""


def use_off_hand(draft: Draft, who: str, what: str) -> None:
    """Mark the off-hand as used this round (extra parry OR bonus attack)."""
    draft.emit(
        ev.ConditionApplied(
            handle=who,
            condition=cat.make("two-weapon", ends="round-end", effects={"off-hand": 1}, note=what,
                               cause=draft.next_version, round=draft.state.round, step=draft.state.step),
        )
    )


def _off_hand(draft: Draft, attacker: str, spec) -> None:
    """Seed 004 "Two Weapon Use": a single bonus close combat attack with the
    off-hand item, at -20%, not precise, once a round and not with the
    extra parry. It costs no Combat Action: the character acts on."""
    from affray.rules.mrq1.attack import _require_turn

    a = _require_turn(draft.state, attacker)
    for bad in ("precise", "charge", "flurry"):
        if spec.get(bad):
            raise RuleError(f"the off-hand bonus attack may not be a {'precise attack' if bad == 'precise' else bad} (seed 004 'Two Weapon Use')")
    item = off_hand_item(a)
    if item is None:
        raise RuleError(f"{a.name} does not wield two one-handed items (two weapons, or a weapon and a shield)")
    if _used_off_hand(a):
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
