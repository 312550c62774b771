"""The attack procedure (seed 000 "Attack Procedure", "Melee"):

1. roll open-ended high (each die its own event);
2. a first die inside the weapon's fumble range is a fumble: it is
   resolved on the fumble table and the attack ends;
3. add the attacker's OB; 4. subtract the defender's DB;
5. look the total up on the weapon's attack table, in the column of the
   target's armour type: a miss (``-``), hits (``8``) or hits and a
   critical (``10D``), whose closed roll is the next step.

rules-reference.md A1-A4, A11. Melee engagement: a melee attack engages
attacker and target ("A foe attacked in the previous second ... within
striking distance"; seed 000 "Melee").
"""

from __future__ import annotations

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import rolemaster as rev
from affray.rules.base import Draft, RuleError, check_target, find_combatant
from affray.rules.rolemaster import conditions as cat
from affray.rules.rolemaster import core
from affray.rules.rolemaster.sheet import Weapon
from affray.rules.rolemaster.tables import AttackTable, FumbleTable


def _weapon(c, name: str) -> Weapon:
    sheet = core.sheet_of(c)
    if name:
        try:
            w = sheet.weapon(name)
        except ValueError as exc:
            raise RuleError(str(exc)) from None
        if w.kind == "shield":
            raise RuleError(f"{w.name} is a shield; attack with a weapon")
        if w.kind != "unarmed" and w.name not in c.ready:
            raise RuleError(f"{c.name} does not hold {w.name} (in hand: {', '.join(c.ready) or 'nothing'}); 'affray act {c.handle} draw {w.name}'")
        return w
    for w in sheet.weapons:
        if w.kind in ("melee", "missile") and w.name in c.ready:
            return w
    for w in sheet.weapons:
        if w.kind == "unarmed":
            return w
    raise RuleError(f"{c.name} holds no weapon; 'affray act {c.handle} draw WEAPON' or pass")


def _situations(situations) -> tuple[int, int]:
    """``(parry, ap)`` from ``--situation parry=N`` and ``--situation ap=N``."""
    parry, ap = 0, 0
    for s in situations:
        key, sep, value = s.partition("=")
        key = key.strip().lower()
        if key not in ("parry", "ap") or not sep or not value.strip().lstrip("-").isdigit():
            raise RuleError(f"unknown situation {s!r}; rolemaster knows parry=N (OB moved to parry) and ap=N (a quicker attack)")
        if key == "parry":
            parry = int(value)
        else:
            ap = int(value)
    return parry, ap


def declare(draft: Draft, command: cmd.DeclareAttack) -> None:
    """``affray attack A T [--weapon W] [--situation parry=N] [--situation
    ap=N] [--mod V:WHY]``: spend the attack's Action Points (ruling
    ``melee_ap``; ``ap=N`` is a quicker attack at -25 per AP less, RMH),
    move OB to parry for the round when asked (A6), engage the target in
    melee, and wait for the target's reaction; the roll comes with it."""
    state = draft.state
    attacker = find_combatant(state, command.attacker)
    target = find_combatant(state, command.target)
    core.own_turn(state, attacker)
    check_target(state, attacker, target, hint=f"; 'affray act {attacker} pass' ends its actions")
    a, t = state.combatants[attacker], state.combatants[target]
    if t.side == a.side:
        raise RuleError(f"{t.name} is on {a.name}'s side; choose a foe")
    if not t.can_fight and t.status != "active":
        raise RuleError(f"{t.name} is {t.status}; choose another target")
    w = _weapon(a, command.weapon)
    parry, ap = _situations(command.situations)
    full = int(core.rulings_of(state).melee_ap) if w.kind != "missile" else 3
    cost = ap or min(full, a.combat_actions)  # with fewer AP left: a quicker attack at -25 per AP less
    if not 1 <= cost <= full:
        raise RuleError(f"an attack with {w.name} takes 1 to {full} Action Points; got ap={cost}")
    if parry:
        if w.kind == "missile":
            raise RuleError("OB moves to parry from a melee weapon; drop --situation parry")
        if parry >= w.ob:
            raise RuleError(f"moving {parry} to parry leaves nothing of {a.name}'s OB {w.ob}; parry less")
        core.declare_parry(draft, attacker, parry, target)
    core.spend(draft, attacker, cost, f"attack with {w.name}")
    xid = draft.state.next_exchange
    draft.emit(ev.AttackDeclared(exchange=xid, attacker=attacker, target=target, weapon=w.name,
                                 kind="missile" if w.kind == "missile" else "melee", modifiers=tuple(command.modifiers)))
    if not a.has("attacked"):
        draft.emit(ev.ConditionApplied(handle=attacker, condition=cat.make(
            "attacked", cause=draft.next_version, round=state.round, step=state.step, ends="round-end",
            effects={"quick-ap": full - cost, f"at:{target}": 1}, note=f"attacked {t.name}")))
    else:
        old = next(k for k in draft.state.combatants[attacker].conditions if k.name == "attacked")
        draft.emit(ev.ConditionApplied(handle=attacker, condition=core.merged(old, **{"quick-ap": full - cost, f"at:{target}": 1})))
    if w.kind != "missile" and target not in a.engaged:
        draft.emit(ev.EngagementChanged(a=attacker, b=target, engaged=True))
    t = draft.state.combatants[target]
    options = []
    if not core.may_parry(draft.state, t, attacker, w.kind != "missile"):
        options.append("parry")
    if not core.may_dodge(draft.state, t):
        options.append("dodge")
    options.append("none")
    dice = []
    if "dodge" in options:
        dice.append(ev.DiceNeed(f"{t.name}: dodge (open-ended), only if dodging", "1D100", by=target))
    dice.append(ev.DiceNeed(f"{a.name}: attack roll (open-ended high: a 96-100 needs another die)", "1D100", by=attacker))
    declared = core.parry_declared(t)
    hint = f" (parry declared: {declared.effects.get('parry', 0)})" if declared and "parry" in options else (
        " (parry:N moves N of OB)" if "parry" in options else "")
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=target, verb="react", kind="react", options=tuple(options), exchange=xid, dice=tuple(dice),
        prompt=f"{t.name}: answer {a.name}'s {w.name}: {' | '.join(options)}{hint}"),)))


def roll_attack(draft: Draft, exchange: int, parry: int = 0, dodge: int = 0) -> None:
    """Steps 1-5 of the attack procedure for the open exchange, after the
    reaction: ``parry`` and ``dodge`` are the DB they add (seed 000)."""
    state = draft.state
    x = state.exchange
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    w = core.sheet_of(a).weapon(x.weapon)
    table = core.table(state, a, w.table, AttackTable)
    fr = w.fumble or table.fumble_range
    r = core.rulings_of(state)
    purpose = f"{a.name}: attack roll ({w.name})"
    first = draft.roll("1D100", purpose, by=a.handle).total
    if fr[0] <= first <= fr[1]:
        draft.emit(rev.AttackLookedUp(exchange=x.id, attacker=a.handle, target=t.handle, weapon=w.name, table=table.name,
                                      table_sha256=table.sha256, dice=(first,), first=first, fumble_range=fr, fumble=True))
        draft.emit(ev.AttackResolved(exchange=x.id, hit=False, fumble=True, roll=first))
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=a.handle, verb="roll", kind="fumble", exchange=x.id,
            prompt=f"{a.name} fumbles ({first} within {fr[0]}-{fr[1]}): roll on {table.fumble_table or 'the fumble table'}",
            dice=(ev.DiceNeed(f"{a.name}: fumble roll (closed)", "1D100", by=a.handle),),
            data={"table": table.fumble_table, "weapon": w.name}),)))
        return
    extra = core.chain(draft, first, purpose, a.handle, low=r.attack_roll == "both")
    roll = core.chain_total(first, extra)
    attacked = next((k for k in a.conditions if k.name == "attacked"), None)
    quick = attacked.effects.get("quick-ap", 0) if attacked is not None else 0
    obs = core.ob_parts(state, a, w, x.modifiers, quick)
    dbs = core.db_parts(state, t, melee=x.kind != "missile", parry=parry, dodge=dodge)
    ob, db = sum(m.value for m in obs), sum(m.value for m in dbs)
    total = roll + ob - db
    if t.sheet.get("armour") not in table.columns:
        raise RuleError(f"{t.name}'s armour {t.sheet.get('armour')!r} is not a column of {table.name} "
                        f"({', '.join(table.columns)}); fix the sheet or the table")
    row, cell, read = table.lookup(total, t.sheet["armour"])
    crit_type = (cell.crit_type or table.critical_type) if cell.severity else ""
    draft.emit(rev.AttackLookedUp(
        exchange=x.id, attacker=a.handle, target=t.handle, weapon=w.name, table=table.name, table_sha256=table.sha256,
        dice=(first, *extra), first=first, fumble_range=fr, roll=roll, ob=ob, ob_parts=obs, db=db, db_parts=dbs,
        total=total, read=read, row_low=row.low, row_high=row.high, column=t.sheet["armour"], cell=cell.raw,
        hits=cell.hits, severity=cell.severity, crit_type=crit_type))
    draft.emit(ev.AttackResolved(exchange=x.id, hit=cell.hits > 0, critical=bool(cell.severity), roll=roll, skill=ob - db))
    if cell.hits:
        draft.emit(ev.DamageDealt(exchange=x.id, target=t.handle, location="body", rolled=cell.hits, reduced=0, armour=0,
                                  final=cell.hits, critical=bool(cell.severity), note=f"{table.name} {cell.raw}"))
        core.check_down(draft, t.handle)
    if cell.severity and draft.state.combatants[t.handle].status != "dead":
        crit_table = table.criticals[crit_type]
        parts = core.critical_parts(state, a, crit_table, cell.severity)
        dice = tuple(ev.DiceNeed(f"{a.name}: critical roll (closed)" + (f", {p} part" if p != cell.severity else ""),
                                 "1D100", by=a.handle) for p in parts)
        split = f" (an {' + '.join(parts)})" if parts != (cell.severity,) else ""
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=a.handle, verb="roll", kind="critical", exchange=x.id,
            prompt=f"{a.name}: roll the {cell.severity} critical{split} ({crit_type}) on {crit_table} against {t.name}",
            dice=dice, data={"table": crit_table, "severity": cell.severity, "type": crit_type}),)))
        return
    summary = f"{a.name} hits {t.name} for {cell.hits}" if cell.hits else f"{a.name} misses {t.name}"
    core.end_exchange(draft, f"{summary} ({table.name} {total} → {cell.raw})")


def roll_fumble(draft: Draft, step: ev.PendingStep) -> None:
    """Resolve a fumble (seed 000 "Attack Procedure" step 2): a closed d100
    on the weapon's fumble table; its effects fall on the fumbler."""
    state = draft.state
    a = state.combatants[step.who]
    name = str(step.data.get("table", ""))
    if not name:
        core.end_exchange(draft, f"{a.name} fumbles (the attack table names no fumble table)")
        return
    table = core.table(state, a, name, FumbleTable)
    roll = draft.roll("1D100", f"{a.name}: fumble roll", by=a.handle).total
    row, cell = table.lookup(roll)
    draft.emit(rev.FumbleLookedUp(exchange=step.exchange, handle=a.handle, table=table.name, table_sha256=table.sha256,
                                  roll=roll, row_low=row.low, row_high=row.high, text=cell.text, effects=cell.as_dict()))
    core.apply_effects(draft, a.handle, cell.as_dict(), f"fumble: {cell.text}", exchange=step.exchange, critical=False)
    core.end_exchange(draft, f"{a.name} fumbles: {cell.text}")
