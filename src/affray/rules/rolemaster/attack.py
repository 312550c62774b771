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
from affray.rules.rolemaster import core, tables
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


#: ``--situation`` keys a rolemaster attack takes, with what each means.
SITUATIONS = {
    "parry": "parry=N: move N of OB to parry for the round (A6)",
    "ap": "ap=N: a quicker attack, -25 per AP less (RMH)",
    "range": "range=METRES: a missile's range band (the weapon's ranges)",
    "cover": "cover=" + "|".join(tables.COVER) + ": the target's cover, DB (RMH)",
    "pace": "pace=" + "|".join(tables.PACE) + ": the attacker's pace this round, its action penalty (RMH)",
    "charge": "charge=M/S: a charge at that speed relative to the defender (RMH 'Charging'; needs pace=jog or faster)",
    "hold": "hold=TRIGGER: a conditional action, ready when its AP are spent, resolved by 'act WHO trigger' (RMH)",
}


def _situations(situations) -> dict[str, str]:
    """``--situation KEY=VALUE`` pairs, checked against :data:`SITUATIONS`."""
    out = {}
    for s in situations:
        key, sep, value = s.partition("=")
        key, value = key.strip().lower(), value.strip().lower()
        if key not in SITUATIONS or not sep or not value:
            raise RuleError(f"unknown situation {s!r}; rolemaster knows " + "; ".join(SITUATIONS.values()))
        out[key] = value
    return out


def _number(situations: dict[str, str], key: str, kind=int):
    """The number of situation ``key`` (0 when absent); one line when it is not one."""
    text = situations.get(key)
    if text is None:
        return kind(0)
    try:
        return kind(text)
    except ValueError:
        raise RuleError(f"--situation {key}= takes a number; got {text!r} ({SITUATIONS[key]})") from None


def _situation_mods(state, a, t, w: Weapon, sit: dict[str, str]) -> tuple[list[ev.Modifier], dict[str, int]]:
    """OB modifiers from range, pace and charge, and the charge's effects
    (RMH: range bands, movement pace, "Charging", "Closing")."""
    mods: list[ev.Modifier] = []
    charge: dict[str, int] = {}
    metres = _number(sit, "range", float)
    if "range" in sit:
        if w.kind != "missile":
            raise RuleError(f"{w.name} is not a missile weapon; range=METRES is for missiles")
        mods.append(core.range_modifier(w, metres))
    elif w.kind == "missile" and w.ranges:
        raise RuleError(f"say how far {t.name} is: --situation range=METRES ({w.name}'s bands reach {w.ranges[-1][0]:g} m)")
    pace = sit.get("pace")
    if pace is not None:
        if pace not in tables.PACE:
            raise RuleError(f"unknown pace {pace!r}; use one of {', '.join(tables.PACE)} (RMH movement-rules)")
        p = tables.PACE[pace]
        clash = w.kind != "missile" and t.handle not in a.engaged
        why = f"pace {pace} (x{p.multiple:g})" + (": closing, the clash of blades" if clash else "")
        mods.append(ev.Modifier(p.ob, why))
    if "charge" in sit:
        speed = _number(sit, "charge", float)
        if w.kind == "missile":
            raise RuleError("a charge is a melee attack; drop --situation charge")
        if pace is None or tables.PACE[pace].multiple < 2:
            raise RuleError("a charge needs a running pace: add --situation pace=jog or faster (RMH 'Charge action')")
        band = tables.charge_band(speed)
        if core.rulings_of(state).charge_bonus == "second-by-second":
            mods.append(ev.Modifier(10, "charge (+10 OB)"))
            charge["charge-db"] = -10
        if band is not None:
            charge["charge-hits"] = band.hits
            charge["charge-crit"] = band.critical
        charge["charge-speed"] = int(speed)
        charge["charge-pace"] = int(tables.PACE[pace].multiple)
    return mods, charge


def _plan(state, attacker: str, target: str, weapon: str, situations, cost: int = 0, resolving: bool = False):
    """Check an attack and work out its pieces: ``(w, sit, extra, charge,
    cover, cost, full)``. Raises :class:`RuleError` (one line) for any
    attack that cannot be made now (as declared, or when its count comes)."""
    core.own_turn(state, attacker)
    check_target(state, attacker, target, hint="" if resolving else f"; 'affray act {attacker} pass' ends its actions")
    a, t = state.combatants[attacker], state.combatants[target]
    if t.side == a.side:
        raise RuleError(f"{t.name} is on {a.name}'s side; choose a foe")
    if not t.can_fight and t.status != "active":
        raise RuleError(f"{t.name} is {t.status}; choose another target")
    w = _weapon(a, weapon)
    sit = _situations(situations)
    ap = _number(sit, "ap")
    if w.kind == "missile" and core.unloaded(a, w.name) is not None:
        left = core.unloaded(a, w.name).effects.get("reload-left", 0)
        raise RuleError(f"{a.name}'s {w.name} is not loaded ({left} AP of reloading left); 'affray act {attacker} reload {w.name}'")
    extra, charge = _situation_mods(state, a, t, w, sit)
    cover = sit.get("cover")
    if cover is not None and cover not in tables.COVER:
        raise RuleError(f"unknown cover {cover!r}; use one of {', '.join(tables.COVER)} (RMH ob-db-modifiers)")
    full = int(core.rulings_of(state).melee_ap) if w.kind != "missile" else 3
    cost = cost or ap or min(full, a.combat_actions)  # with fewer AP left: a quicker attack at -25 per AP less
    if not 1 <= cost <= full:
        raise RuleError(f"an attack with {w.name} takes 1 to {full} Action Points; got ap={cost}")
    return w, sit, extra, charge, cover, cost, full


def declare(draft: Draft, command: cmd.DeclareAttack) -> None:
    """``affray attack A T [--weapon W] [--situation parry=N] [--situation
    ap=N] [--situation hold=TRIGGER] [--mod V:WHY]``: declare the attack.
    OB moved to parry is declared at once (A6: "as soon as melee ensues";
    RMH: parry "has no affect on time"). Under the countdown the attack
    resolves when its Action Points are spent, 5 x AP further down the
    count (ruling ``resolution``; RMH tactical-activity-tracking
    "Resolution"); ``hold=TRIGGER`` makes it a conditional action that
    waits for ``act A trigger`` ("Conditional Actions"). Otherwise it
    resolves now (:func:`open_attack`)."""
    state = draft.state
    attacker = find_combatant(state, command.attacker)
    target = find_combatant(state, command.target)
    w, sit, _, _, _, cost, _ = _plan(state, attacker, target, command.weapon, command.situations)
    a, t = state.combatants[attacker], state.combatants[target]
    parry = _number(sit, "parry")
    hold = sit.get("hold", "")
    if hold and w.kind == "missile" and "range" not in sit and w.ranges:
        raise RuleError(f"say how far {t.name} will be: --situation range=METRES")
    if parry:
        if w.kind == "missile":
            raise RuleError("OB moves to parry from a melee weapon; drop --situation parry")
        if parry >= w.ob:
            raise RuleError(f"moving {parry} to parry leaves nothing of {a.name}'s OB {w.ob}; parry less")
    kept = tuple(x for x in command.situations if x.partition("=")[0].strip().lower() not in ("parry", "hold"))
    meeting = "charge" in sit and not hold and core.rulings_of(state).charge_timing == "on-meeting"
    deferred = not meeting and core.defer(draft, attacker, cost, "attack:open", f"attack {t.name} with {w.name}",
                                          hold=hold, target=target, weapon=w.name, situations=kept,
                                          modifiers=tuple(command.modifiers))
    if parry:  # declared with the attack: for its attack time when it resolves later (ruling parry_time)
        core.declare_parry(draft, attacker, parry, target)
    if deferred:
        return
    draft.then("attack:open", who=attacker, target=target, weapon=w.name, situations=kept,
               modifiers=tuple(command.modifiers), cost=cost)


def open_attack(draft: Draft, who: str, target: str, weapon: str = "", situations=(), modifiers=(), cost: int = 0,
                resolving: bool = False) -> None:
    """The attack starts to resolve: its Action Points are spent (none for
    a held action readied earlier), melee engages, and the target is asked
    for its reaction; the roll comes with it. ``resolving``: a declared
    action whose count has come (or whose trigger occurred); when it can
    no longer be made it is lost (:func:`~affray.rules.rolemaster.core.lose`)."""
    state = draft.state
    attacker = who
    def check():
        plan = _plan(state, attacker, target, weapon, situations, cost, resolving)
        held = core.declared_of(state.combatants[attacker]) if resolving else None
        if not (held is not None and held.effects.get("ready")) and state.combatants[attacker].combat_actions < plan[5]:
            raise RuleError(f"{state.combatants[attacker].name} has {state.combatants[attacker].combat_actions} "
                            f"Action Points left; the attack needs {plan[5]}")
        return plan

    plan = core.attempt(draft, who, resolving, check)
    if plan is None:
        return
    w, sit, extra, charge, cover, cost, full = plan
    pay = cost
    if resolving and core.resolving_now(draft, attacker).effects.get("ready"):
        pay = 0  # a held action's AP were spent when it became ready
    a, t = state.combatants[attacker], state.combatants[target]
    if pay:
        core.spend(draft, attacker, pay, f"attack with {w.name}")
    xid = draft.state.next_exchange
    draft.emit(ev.AttackDeclared(exchange=xid, attacker=attacker, target=target, weapon=w.name,
                                 kind="missile" if w.kind == "missile" else "melee",
                                 modifiers=tuple(extra) + tuple(modifiers)))
    if w.kind == "missile" and w.reload:
        core.mark_unloaded(draft, attacker, w)
    if cover is not None:
        db = core.cover_db(state, cover)
        draft.emit(ev.ConditionApplied(handle=target, condition=cat.make(
            "covered", cause=draft.next_version, round=state.round, step=state.step, ends="round-end",
            effects={"cover-db": db}, note=f"cover {cover} (+{db} DB)")))
    if charge:
        draft.emit(ev.ConditionApplied(handle=attacker, condition=cat.make(
            "charging", cause=draft.next_version, round=state.round, step=state.step, ends="round-end",
            effects={**charge, f"exchange:{xid}": 1},
            note=f"charges {t.name} at {charge['charge-speed']} m/s")))
    quick = full - cost
    if not a.has("attacked"):
        draft.emit(ev.ConditionApplied(handle=attacker, condition=cat.make(
            "attacked", cause=draft.next_version, round=state.round, step=state.step, ends="round-end",
            effects={"quick-ap": quick, f"at:{target}": 1}, note=f"attacked {t.name}")))
    else:
        old = next(k for k in draft.state.combatants[attacker].conditions if k.name == "attacked")
        draft.emit(ev.ConditionApplied(handle=attacker, condition=core.merged(old, **{"quick-ap": quick, f"at:{target}": 1})))
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
    if charge and core.rulings_of(state).charge_maneuver == "moving-maneuver":
        dice.append(ev.DiceNeed(f"{a.name}: charge (moving maneuver, open-ended)", "1D100", by=attacker))
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
    charging = next((k for k in a.conditions if k.name == "charging" and k.effects.get(f"exchange:{x.id}")), None)
    if charging is not None and core.rulings_of(state).charge_maneuver == "moving-maneuver":
        charging = _charge_maneuver(draft, charging)
        state = draft.state
        a = state.combatants[x.attacker]
        if a.effect("cannot-attack") or a.status != "active":
            draft.emit(ev.AttackResolved(exchange=x.id, hit=False))
            core.end_exchange(draft, f"{a.name}'s charge fails before it lands: no attack")
            return
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
    hits, severity, note = cell.hits, cell.severity, f"{table.name} {cell.raw}"
    if charging is not None and hits and charging.effects.get("charge-hits"):
        hits *= charging.effects["charge-hits"]
        severity = tables.step_severity(severity, charging.effects.get("charge-crit", 0))
        draft.emit(rev.ChargeLanded(exchange=x.id, attacker=a.handle, speed=charging.effects.get("charge-speed", 0),
                                    hits_from=cell.hits, hits=hits, severity_from=cell.severity, severity=severity))
        note += f", charge x{charging.effects['charge-hits']}"
    draft.emit(ev.AttackResolved(exchange=x.id, hit=hits > 0, critical=bool(severity), roll=roll, skill=ob - db))
    if hits:
        draft.emit(ev.DamageDealt(exchange=x.id, target=t.handle, location="body", rolled=hits, reduced=0, armour=0,
                                  final=hits, critical=bool(severity), note=note))
        core.check_down(draft, t.handle)
    if severity and draft.state.combatants[t.handle].status != "dead":
        crit_table = table.criticals[crit_type]
        parts = core.critical_parts(state, a, crit_table, severity)
        dice = tuple(ev.DiceNeed(f"{a.name}: critical roll (closed)" + (f", {p} part" if p != severity else ""),
                                 "1D100", by=a.handle) for p in parts)
        split = f" (an {' + '.join(parts)})" if parts != (severity,) else ""
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=a.handle, verb="roll", kind="critical", exchange=x.id,
            prompt=f"{a.name}: roll the {severity} critical{split} ({crit_type}) on {crit_table} against {t.name}",
            dice=dice, data={"table": crit_table, "severity": severity, "type": crit_type}),)))
        return
    summary = f"{a.name} hits {t.name} for {hits}" if hits else f"{a.name} misses {t.name}"
    core.end_exchange(draft, f"{summary} ({table.name} {total} → {cell.raw})")


def _charge_maneuver(draft: Draft, charging: ev.Condition) -> ev.Condition | None:
    """The charge's moving maneuver (ruling ``charge_maneuver``; RMH
    second-by-second "Charge action": "a special maneuver that requires a
    movement maneuver roll"): open-ended + 3 x Ag bonus ("if no skill
    applies", RMH moving-maneuver-difficulties) - the maneuver penalties,
    in the pace's column (:data:`~affray.rules.rolemaster.tables.CHARGE_DIFFICULTY`).
    Returns the ``charging`` condition when the charge lands at speed (100
    or more), else None (the attack goes on without the charge's hits
    and critical; its effects, such as a fall, have fallen on the charger)."""
    x = draft.state.exchange
    a = draft.state.combatants[x.attacker]
    s = core.sheet_of(a)
    column = tables.CHARGE_DIFFICULTY.get(float(charging.effects.get("charge-pace", 2)), "routine")
    parts = [ev.Modifier(3 * s.stats.agility.bonus, "3 x Ag bonus (no skill applies)")]
    parts += list(core.maneuver_penalty(draft.state, a))
    value = core.moving_maneuver(draft, a.handle, "charge", column, parts, exchange=x.id, static_difficulty=True)
    return charging if value >= 100 else None


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
