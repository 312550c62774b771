"""Defensive Actions in mythras other than Parry and Evade: ``brace``,
``take-cover``, ``ward`` and ``unward`` (seed 001 "Brace", "Take Cover",
"Cover", "Ward Location", "Passive Blocking"). Queued as ``act:ACTION`` steps by
:func:`affray.rules.mythras.actions.act`.
"""

from __future__ import annotations

from affray.events import core as ev
from affray.projections.state import State
from affray.rules.base import Draft, RuleError
from affray.rules.mythras import conditions as cat
from affray.rules.mythras import tables
from affray.rules.mythras.core import at, done, find_weapon, parry_weapons, sheet_of, spend, usable


_GROUPS = {"legs": ("right leg", "left leg"), "arms": ("right arm", "left arm"),
           "torso": ("abdomen", "chest"), "body": ("abdomen", "chest"), "all": tuple(tables.LOCATION_NAMES)}


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


def brace(draft: Draft, who: str, arg: str) -> None:
    """Brace: SIZ counts 50% bigger against Knockback and Leaping Attacks,
    doubled against Bash, until the next Turn (seed 001 "Brace")."""
    spend(draft, who, "brace")
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "braced", ends="next-action", note="braced until its next turn", **at(draft))))
    done(draft)


def take_cover(draft: Draft, who: str, arg: str) -> None:
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
    spend(draft, who, "take cover")
    effects = {"ap": ap, **{f"loc:{l}": 1 for l in locations}}
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "in-cover", ends="event", effects=effects, note=f"cover {ap} AP over {', '.join(locations)}", **at(draft))))
    done(draft)


def _no_open_attack(state: State, what: str) -> None:
    if state.exchange is not None and state.exchange.resolved:
        raise RuleError(f"{what} must be set before an opponent rolls to attack (seed 001 'Ward Location')")


def ward(draft: Draft, who: str, arg: str) -> None:
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
        note=f"{w.name} wards {', '.join(locations)}", **at(draft))))
    if crouch and "crouching" not in [k.name for k in c.conditions]:
        draft.emit(ev.NoteAdded(text=f"{c.name} crouches behind {w.name}: fighting from a crouch is Hard (--situation crouching)"))


def unward(draft: Draft, who: str, arg: str) -> None:
    """Stop warding (free; seed 001 "Ward Location")."""
    c = draft.state.combatants[who]
    conds = [k for k in c.conditions if k.name == "warding"]
    if not conds:
        raise RuleError(f"{c.name} wards nothing")
    for k in conds:
        draft.emit(ev.ConditionExpired(handle=who, condition_id=k.id, reason="stops warding"))
