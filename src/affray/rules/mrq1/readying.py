"""Ready Weapon in mrq1: drawing, dropping, sheathing and reloading.

Source: seed 004 "Combat Actions" (Ready Weapon), "Ranged Weapons" (Loading
Ranged Weapons), "Free Attacks"; ruling ``multi_action_interrupted``.

Steps: ``act:ready``/``act:reload``, then ``free-attacks:offer`` and
``finish:ready``/``finish:reload``.
"""

from __future__ import annotations

from affray.events import core as ev
from affray.projections.state import Combatant
from affray.rules.base import Draft, RuleError
from affray.rules.mrq1.core import (
    ALWAYS_READY,
    USAGE,
    Spec,
    adjacent_enemies,
    apply,
    begin,
    done,
    expire,
    find_weapon,
    hands_used,
    loaded,
    note,
    parse,
    progress,
    ranged_weapon,
    require_turn,
    useless_limbs,
)


# --------------------------------------------------------------------------- #
# Ready Weapon
# --------------------------------------------------------------------------- #


def ready(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Ready Weapon": draw an item (1 action); drop one and draw
    another (1); sheathe one and draw another, or ready two (2); reload a
    ranged weapon (as many actions as its ``reload``). Adjacent enemies get
    a free attack; damage from one calls for a Dodge test or the weapon is
    dropped instead of readied. Several actions are spent one at a time:
    the same ``ready`` again goes on with it."""
    state = draft.state
    c = require_turn(state, who)
    progress = next((x for x in c.conditions if x.name == "readying"), None)
    if progress is not None and (not spec.args and spec.word == "ready" or parse(progress.note).text() == _ready_spec(c, spec).text()):
        spec = parse(progress.note)
    else:
        spec = _ready_spec(c, spec)
    begin(draft, who, spec, keep="readying", reason=spec.text())
    draft.then("free-attacks:offer", who=who, spec=spec, enemies=adjacent_enemies(draft.state, who), trigger="readying a weapon")


def _ready_spec(c: Combatant, spec: Spec) -> Spec:
    """Validate a Ready Weapon action; return it with its action count."""
    if spec.word == "reload":
        w = ranged_weapon(c, " ".join(spec.args))
        if loaded(c, w):
            raise RuleError(f"{w.name} is already loaded")
        if w.reload <= 0:
            raise RuleError(f"{w.name} needs no reloading")
        return Spec("reload", [w.name], {"actions": str(w.reload)})
    if not spec.args:
        raise RuleError(f"ready what? {USAGE['ready']}")
    items = [find_weapon(c, a, ready_only=False) for a in spec.args[:2]]
    first = items[0]
    if len(items) == 1 and first.name in c.ready:
        if first.kind == "ranged" and not loaded(c, first):
            return _ready_spec(c, Spec("reload", [first.name]))
        raise RuleError(f"{c.name} already holds {first.name} ready")
    for w in items:
        if w.kind in ALWAYS_READY:
            raise RuleError(f"{w.name} is always ready; no need to ready it")
        if w.name in c.ready:
            raise RuleError(f"{c.name} already holds {w.name} ready")
    drop = find_weapon(c, spec.get("drop")) if spec.get("drop") else None
    sheathe = find_weapon(c, spec.get("sheathe")) if spec.get("sheathe") else None
    if drop and sheathe:
        raise RuleError("drop or sheathe one item, not both")
    freed = (drop or sheathe).hands if (drop or sheathe) else 0
    need = sum(w.hands for w in items)
    if hands_used(c) - freed + need > 2 or useless_limbs(c, "arm") and need + hands_used(c) - freed > 1:
        raise RuleError(f"{c.name} has no free hand for {', '.join(w.name for w in items)}; add drop=ITEM or sheathe=ITEM")
    actions = 2 if (sheathe or len(items) == 2) else 1
    opts = {"actions": str(actions)}
    if drop:
        opts["drop"] = drop.name
    if sheathe:
        opts["sheathe"] = sheathe.name
    return Spec("ready", [w.name for w in items], opts)


def finish_ready(draft: Draft, who: str, spec: Spec, damaged: bool, passed) -> None:
    """The step ``finish:ready`` / ``finish:reload``: the item readied (or
    dropped after a free attack's damage and a failed Dodge test)."""
    c = draft.state.combatants[who]
    old, spent, needed = progress(c, "readying", spec)
    if damaged and passed is False:
        expire(draft, who, old, "failed Dodge test")
        if spec.get("drop"):
            draft.emit(ev.WeaponDropped(handle=who, weapon=spec.get("drop"), reason="dropped to the floor"))
        for name in spec.args:
            draft.emit(ev.WeaponDropped(handle=who, weapon=name, reason="dropped instead of readied (free attack, failed Dodge)"))
        done(draft)
        return
    if spent < needed:
        apply(draft, who, "readying", ends="event", effects={"progress": spent, "needed": needed}, note=spec.text())
        note(draft, who, spec.word, f"{c.name}: {spec.word} {' '.join(spec.args)}, {spent} of {needed} Combat Actions", spec)
        done(draft)
        return
    expire(draft, who, old, "done")
    if spec.word == "reload":
        for cond in c.conditions:
            if cond.name == "unloaded" and cond.note == spec.args[0]:
                draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="reloaded"))
        note(draft, who, "reload", f"{c.name} reloads {spec.args[0]}", spec)
        done(draft)
        return
    if spec.get("drop"):
        draft.emit(ev.WeaponDropped(handle=who, weapon=spec.get("drop"), reason="dropped to the floor"))
    if spec.get("sheathe"):
        draft.emit(ev.WeaponDropped(handle=who, weapon=spec.get("sheathe"), reason="sheathed"))
    for name in spec.args:
        draft.emit(ev.WeaponReadied(handle=who, weapon=name))
    done(draft)
