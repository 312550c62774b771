"""Parries and dodges against a hit (seed 002 "4. Parry", "5. Dodge", the
two-parry and two-dodge rules, "DEFENSIVE ABORT", "MELEE PARRIES",
"MELEE DODGING", "FLEXIBLE WEAPONS", "@Feint"; rules-reference.md C1).

``affray react WHO parry|dodge|abort-parry|abort-dodge|none [--with
WEAPON]``. A parry or dodge must have been declared against this source
(or against any source); a Defensive Abort turns an unused declared action
into one at -20%.

- Parry: each parry after the first against one source is at a cumulative
  -10% (not when two parries were declared against it); a parry that
  succeeds stops damage up to the parrying weapon's AP, and the weapon
  loses 1 AP when the damage exceeds it (Standard Parry); a special parry
  spares the weapon; a critical stops everything. @Glancing Parry doubles
  the weapon's AP on a special (half again for a shield) and stops
  everything on a critical. @Weave, @Riposte and @Active Parry let the
  parrying weapon be damaged even on a special.
- Dodge: each dodge level shifts the hit down a level (the dodge table in
  :mod:`affray.rules.rq3.tables`); attacks on the same SR are -10% each
  beyond the first; with two dodges declared, -10% for each opponent
  after the first.
"""

from __future__ import annotations

import msgspec

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import rq3 as rev
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.d100 import level_rank
from affray.rules.rq3 import core, tables

#: The parry tactics that let the parrying weapon take damage on a special.
EXPOSED = ("@weave", "@riposte", "@active")


def _record(draft: Draft, handle: str, source: str, key: str, sr: int) -> dict[str, int]:
    """Count a parry or dodge against ``source`` this round; return the
    counts before it (``parries``, ``dodges``, ``same-sr``: dodges already
    made against attacks landing on this SR)."""
    c = draft.state.combatants[handle]
    old = next((x for x in c.conditions if x.id == f"defended:{source}"), None)
    before = dict(old.effects) if old else {}
    after = dict(before)
    after[key] = before.get(key, 0) + 1
    after["same-sr"] = before.get("same-sr", 0) + 1 if before.get("sr") == sr else 1
    after["sr"] = sr
    core.condition(draft, handle, "defended", key=source, effects=after,
                   note=f"against {draft.state.combatants[source].name}")
    if before.get("sr") != sr:
        before["same-sr"] = 0
    return before


def _others_dodged(c, source: str) -> int:
    return sum(1 for x in c.conditions if x.name == "defended" and x.id != f"defended:{source}" and x.effects.get("dodges"))


def react(draft: Draft, command: cmd.ChooseReaction) -> None:
    """Resolve the defender's choice against the pending hit."""
    state = draft.state
    defender = find_combatant(state, command.defender)
    step = core.expect(state, ("react", "parry-miss"), defender, "react")
    reaction = command.reaction.strip().lower()
    t = state.combatants[defender]
    x = state.exchange
    a = state.combatants[x.attacker]
    if reaction not in step.options:
        raise RuleError(f"{t.name} declared no {reaction} against {a.name}; choose one of: {', '.join(step.options)}")
    hit = str(step.data["level"])
    sr = int(step.data["sr"])
    kind, mode, _ = core.kind_parts(x.kind)
    draft.emit(ev.ReactionChosen(exchange=x.id, handle=defender, reaction=reaction, with_item=command.with_item))
    if step.kind == "parry-miss":
        return _parry_miss(draft, defender, reaction, sr, list(command.modifiers))
    if reaction == "none":
        draft.emit(ev.StepsAwaited(steps=(core.damage_step(draft.state, hit),)))
        return
    ds = [d for d in core.declared(t) if not d.abort]
    mods: list[ev.Modifier] = list(command.modifiers)
    if reaction.startswith("abort-"):
        spare = max((d for d in ds if d.kind in core.TIMED and not d.used), key=lambda d: d.slot)
        what = reaction.split("-", 1)[1]
        weapon = core.weapon_of(t, command.with_item).name if command.with_item else (t.ready[0] if what == "parry" else "")
        new = core.Declared(slot=10 + spare.slot, kind=what, target=x.attacker, weapon=weapon,
                            mode="standard" if what == "parry" else "", sr=0, penalty=-20)
        core.abort_events(draft, defender, spare, "defensive", new.text)
        draft.emit(core.declared_condition(draft, defender, new))
        d, reaction = new, what
    else:
        matching = [d for d in ds if d.kind == reaction and d.target in ("", x.attacker)] or [d for d in ds if d.kind == reaction]
        d = matching[0]
        if command.with_item and core.weapon_of(t, command.with_item).name != d.weapon and reaction == "parry":
            raise RuleError(f"{t.name} declared the parry with {d.weapon}, not {command.with_item}")
        if not d.target:
            draft.emit(core.declared_condition(draft, defender, msgspec.structs.replace(d, target=x.attacker)))
    if d.penalty:
        mods.append(ev.Modifier(d.penalty, "Defensive Abort" if d.slot > 10 else "two attackers, one 1H weapon"))
    if core.bonus(t):
        mods.append(ev.Modifier(core.bonus(t), "terrain used to advantage"))
    if "high-ground" in command.situations:
        mods.append(ev.Modifier(10, "high ground"))  # seed 002 "HIGH GROUND": parries too
    if mode == "@feint" and hit in ("special", "critical"):
        skill = x.skill
        mods.append(ev.Modifier(-(skill if hit == "critical" else skill // 2), "@Feint"))
    if reaction == "parry":
        _parry(draft, defender, d, hit, sr, mods)
    else:
        _dodge(draft, defender, d, hit, sr, mods)


def _parry(draft: Draft, defender: str, d: core.Declared, hit: str, sr: int, mods: list[ev.Modifier]) -> None:
    state = draft.state
    t, x = state.combatants[defender], state.exchange
    a = state.combatants[x.attacker]
    w = core.weapon_of(t, d.weapon)
    aw = core.weapon_of(a, x.weapon)
    before = _record(draft, defender, x.attacker, "parries", sr)
    twice = sum(1 for p in core.declared(t) if p.kind == "parry" and p.target == x.attacker) >= 2
    if before.get("parries") and not twice:
        mods.append(ev.Modifier(-10 * before["parries"], "parrying the same source again"))
    factor = (1, 1)
    if t.has("mounted") and w.hands == 2 and "slash" in w.modes:
        factor = (3, 4)  # seed 002 "PROHIBITED MOUNTED WEAPONS": 2H hacking weapons at 3/4
    if aw.flexible and w.kind == "shield" and w.shield_size not in ("", "buckler"):
        factor = (3, 4)  # seed 002 "FLEXIBLE WEAPONS"
    point_blank = "point-blank" in core.kind_flags(x.kind)
    if core.kind_parts(x.kind)[0] == "missile":
        factor = _missile_parry(w, aw, factor, point_blank)
    level = core.test(draft, defender, f"{w.name} parry", w.parry, tuple(mods),
                      f"parry: {t.name} against {a.name}", factor=factor)
    if (core.kind_parts(x.kind)[0] == "missile" and point_blank and not aw.thrown and level in ("success", "special")
            and not (w.kind == "shield" and w.shield_size in ("hoplite", "large"))):
        level = "failure"  # only a critical weapon parry stops a projected missile at point blank
    tactic, _, option = (d.mode if d.mode.startswith("@") else "").partition("/")
    ap = core.weapon_ap(t, w)
    block, block_all, outcome = 0, False, "the parry fails"
    if core.succeeded(level):
        block = ap
        outcome = f"{w.name} stops up to {ap} points"
        if level == "critical" and tactic != "@riposte":
            block_all, outcome = True, f"a critical parry: {w.name} stops all damage"
        elif level == "special" and tactic == "@glancing":
            block = ap * 2 if w.kind != "shield" else ap + ap // 2
            outcome = f"@Glancing Parry: {w.name}'s AP counts {block} for this blow"
    if tactic == "@glancing" and level == "critical":
        outcome = "@Glancing Parry, critical: no damage to the defender or the parrying weapon"
    free_dodge = tactic == "@weave" and level == "special"
    if free_dodge:
        outcome += "; @Weave: a free dodge against what blows through"
    if tactic == "@active" and level == "critical":
        outcome += f"; @Active Parry: {a.name} is disarmed (the {x.weapon} lands 0-5 m away)"
    if tactic and core.succeeded(level) and level in ("special", "critical"):
        draft.emit(rev.SpecialApplied(exchange=x.id, by=defender, effect=tactic.lstrip("@"), detail=outcome))
    if tactic == "@active" and level == "critical":
        draft.emit(ev.WeaponDropped(handle=x.attacker, weapon=x.weapon, reason=f"disarmed by {t.name}'s @Active Parry"))
    if tactic == "@riposte" and level in ("special", "critical") and w.attack:
        core.free_attack(draft, defender, x.attacker, w.name, sr + 1, "riposte", auto="auto" if level == "critical" else "")
    draft.emit(ev.ReactionResolved(exchange=x.id, cell=f"parry:{level}/{hit}", outcome=outcome,
                                   effects={"hit": 1, "block": block, "block-all": int(block_all)}))
    draft.emit(ev.StepsAwaited(steps=(core.damage_step(draft.state, hit, block=block, block_all=block_all,
                                                       parry_weapon=w.name, parry_level=level, tactic=tactic,
                                                       free_dodge=free_dodge, tactic_option=option),)))


def _missile_parry(w, aw, factor: tuple[int, int], point_blank: bool) -> tuple[int, int]:
    """Parrying missiles (seed 002 "PARRYING AND DODGING MISSILE WEAPONS"):
    small thrown weapons at the normal chance, any shield normally;
    projected missiles at 1/5 with a weapon, normally with a hoplite or
    larger shield; at point blank, a hoplite or larger shield at 1/5 and a
    weapon only on a critical."""
    if aw.thrown:
        return factor
    if w.kind == "shield" and w.shield_size in ("hoplite", "large"):
        return (factor[0], factor[1] * 5) if point_blank else factor
    return factor if point_blank else (factor[0], factor[1] * 5)


def _dodge(draft: Draft, defender: str, d: core.Declared, hit: str, sr: int, mods: list[ev.Modifier]) -> None:
    state = draft.state
    t, x = state.combatants[defender], state.exchange
    a = state.combatants[x.attacker]
    before = _record(draft, defender, x.attacker, "dodges", sr)
    if before.get("same-sr"):
        mods.append(ev.Modifier(-10 * before["same-sr"], "attacks landing on the same SR"))
    others = _others_dodged(t, x.attacker) if before.get("dodges", 0) == 0 else 0
    if others:
        mods.append(ev.Modifier(-10 * others, "dodging another opponent"))
    factor = (1, 1)
    if core.kind_parts(x.kind)[0] == "missile":
        aw = core.weapon_of(a, x.weapon)
        adjacent = core.reach(t, x.attacker) == 1
        if "point-blank" in core.kind_flags(x.kind) and not adjacent:
            factor = (1, 2) if aw.thrown else (1, 5)  # seed 002: at point blank; adjacent: full
    level = core.test(draft, defender, "Dodge", core.skill_of(t, "Dodge"), tuple(mods),
                      f"dodge: {t.name} against {a.name}", factor=factor)
    counts_as = level
    if d.mode == "@counter" and level in ("special", "critical"):
        # seed 002 "@Counter": a special counts as a normal dodge, a critical as a special
        counts_as = {"special": "success", "critical": "special"}[level]
        held = [r for r in t.ready if core.weapon_of(t, r).attack]
        if held:
            core.free_attack(draft, defender, x.attacker, held[0], sr + 1, "counter", auto="auto" if level == "critical" else "")
    result = tables.dodged(counts_as, hit)
    outcome = {"miss": "the blow misses", "maximum": "a fumbled dodge: the critical does maximum damage"}.get(
        result, f"the hit becomes a {result} hit" if result != hit else "the hit stands")
    draft.emit(ev.ReactionResolved(exchange=x.id, cell=f"dodge:{level}/{hit}", outcome=outcome,
                                   effects={"hit": int(result != "miss"), "level": level_rank(result) if result in tables.LEVELS else 5}))
    if result == "miss":
        draft.emit(ev.ExchangeEnded(exchange=x.id, summary=f"{t.name} dodges {a.name}'s blow"))
        draft.hand_over()
        return
    draft.emit(ev.StepsAwaited(steps=(core.damage_step(draft.state, result),)))


#: The parry level a blade needs to damage the weapon of a failed attack
#: (seed 002 "Standard Parry": hafted blades on a special, long-hafted on a critical).
BLADE_NEEDS = {"bladed": "success", "hafted": "special", "long-hafted": "critical"}


def _parry_miss(draft: Draft, defender: str, reaction: str, sr: int, mods: list[ev.Modifier]) -> None:
    """Standard Parry against a failed attack (seed 002): a bladed weapon's
    successful parry damages the attacking weapon (a hafted blade needs a
    special, a long-hafted one a critical): the parrying weapon's damage
    over the attacking weapon's AP comes off it (ruling
    ``parry_damages_weapon``)."""
    state = draft.state
    t, x = state.combatants[defender], state.exchange
    a = state.combatants[x.attacker]
    if reaction == "none":
        return core.end_exchange(draft, f"{a.name} misses {t.name}")
    d = next(p for p in core.declared(t) if p.kind == "parry" and not p.abort and p.target in ("", x.attacker)
             and core.weapon_of(t, p.weapon).blade != "none")
    w = core.weapon_of(t, d.weapon)
    before = _record(draft, defender, x.attacker, "parries", sr)
    if before.get("parries"):
        mods.append(ev.Modifier(-10 * before["parries"], "parrying the same source again"))
    if d.penalty:
        mods.append(ev.Modifier(d.penalty, "two attackers, one 1H weapon"))
    level = core.test(draft, defender, f"{w.name} parry", w.parry, tuple(mods), f"parry: {t.name} against {a.name}'s miss")
    needed = BLADE_NEEDS[w.blade]
    ok = core.succeeded(level) and level_rank(level) >= level_rank(needed)
    draft.emit(ev.ReactionResolved(exchange=x.id, cell=f"parry:{level}/miss", effects={"hit": 0},
                                   outcome=f"{w.name} strikes the {x.weapon}" if ok else "the parry does not harm the weapon"))
    if not ok:
        return core.end_exchange(draft, f"{a.name} misses {t.name}")
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=defender, verb="roll", kind="weapon-hit", exchange=x.id, data={"weapon": w.name},
        dice=(ev.DiceNeed(f"damage to the {x.weapon}: {w.name}", w.damage, by=defender),),
        prompt=f"{t.name}'s {w.name} strikes {a.name}'s {x.weapon}: affray roll"),)))


def weapon_hit(draft: Draft, step: ev.PendingStep) -> None:
    """The parrying weapon's damage against the attacking weapon."""
    state = draft.state
    x = state.exchange
    a = state.combatants[x.attacker]
    rolled = draft.roll(step.dice[0].expr, step.dice[0].purpose, by=step.who).total
    aw = core.weapon_of(a, x.weapon)
    ap = core.weapon_ap(a, aw)
    lost = max(0, rolled - ap)
    old = next((c for c in a.conditions if c.id == f"weapon-damaged:{aw.name}"), None)
    total = (old.effects.get("ap-lost", 0) if old else 0) + lost
    draft.emit(rev.SpecialApplied(exchange=x.id, by=step.who, effect="standard parry",
                                  detail=f"{rolled} points against the {aw.name} (AP {ap}): it loses {lost} AP"))
    if lost:
        core.condition(draft, a.handle, "weapon-damaged", ends="never", key=aw.name, effects={"ap-lost": total},
                       note=f"{aw.name} -{total} AP")
        if aw.ap - total <= 0:
            draft.emit(ev.WeaponDropped(handle=a.handle, weapon=aw.name, reason="broken"))
    core.end_exchange(draft)
