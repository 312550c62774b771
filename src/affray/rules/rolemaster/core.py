"""State queries, spending, modifiers and the shared checks of the
Rolemaster-style rules (imported by every rule module; imports none).

Sources: seed 000 (``000_0c5afa08bd3fc886.txt``) sections named in each
docstring; rules-reference.md section A.
"""

from __future__ import annotations

import os
import shlex

from msgspec.structs import replace

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import rolemaster as rev
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError, find_combatant, rulings_reader, sheet_reader
from affray.rules.rolemaster import conditions as cat
from affray.rules.rolemaster import tables
from affray.rules.rolemaster.rulings import from_stored
from affray.rules.rolemaster.sheet import Sheet, Weapon

#: ``rulings_of(state)``: the encounter's rulings (defaults filled in; a log
#: recorded before a ruling existed keeps the behaviour it was decided under).
rulings_of = rulings_reader(from_stored)

FEET = 0.3048  # metres per foot (a critical's knock-back is in feet)
MELEE_REACH = 3.0  # metres: "usually within 3m" (seed 000 "Melee")


#: ``sheet_of(combatant)``: the stored sheet as the typed :class:`Sheet`
#: (:class:`RuleError` for one this affray cannot read).
sheet_of = sheet_reader(Sheet)


def fighters(state: State) -> list[Combatant]:
    """Combatants still able to fight, in join order."""
    return [c for c in state.combatants.values() if c.can_fight]


# --------------------------------------------------------------------------- #
# Tables
# --------------------------------------------------------------------------- #


def table(state: State, c: Combatant | None, name: str, kind: type):
    """The table ``name`` of type ``kind``: searched in the encounter's
    ``tables`` ruling folder, then the sheet's ``tables`` folder, then the
    shipped INVENTED samples. :class:`RuleError` (one line) when it is
    missing, malformed or of another kind."""
    dirs = (rulings_of(state).tables, sheet_of(c).tables if c is not None else "")
    path = tables.find(name, dirs)
    if path is None:
        where = ", ".join(d for d in dirs if d) or "no campaign folder"
        raise RuleError(f"no table {name!r} found ({where}, then the samples); set --ruling tables=FOLDER or the sheet's tables")
    try:
        t = tables.load_file(path)
    except tables.TableError as exc:
        raise RuleError(f"table {exc}; fix it and check it with 'affray tables check FILE'") from None
    if not isinstance(t, kind):
        raise RuleError(f"table {name!r} ({os.path.basename(path)}) is not a {kind.__name__}")
    return t


def critical_parts(state: State, c: Combatant | None, name: str, severity: str) -> tuple[str, ...]:
    """The columns a critical of ``severity`` reads on table ``name``, one
    closed roll each: the severity itself, or for an ``F`` on a table with
    no F column an E and a C (rules-reference.md A11, after RMC; ruling
    ``severity_f``: ``e`` reads the E alone). :class:`RuleError` (one
    line) for a column the table lacks."""
    t = table(state, c, name, tables.CriticalTable)
    if severity == "F" and "F" not in t.columns:
        parts = ("E", "C") if rulings_of(state).severity_f == "e-plus-c" else ("E",)
    else:
        parts = (severity,)
    for p in parts:
        if p not in t.columns:
            raise RuleError(f"critical table {t.name} has no column {p}; fix the table")
    return parts


def static_result(state: State, c: Combatant, total: int) -> tuple[str, int | None, int | None, str, int]:
    """A static maneuver total read: ``(table, low, high, outcome,
    percent)``, on the campaign's static-maneuver table (ruling
    ``static_maneuver_table``) or else the bands of rules-reference.md A8."""
    name = rulings_of(state).static_maneuver_table
    if name:
        t = table(state, c, name, tables.StaticTable)
        row, cell = t.lookup(total)
        return t.name, row.low, row.high, cell.outcome, cell.value
    band = tables.static_band(total)
    return "static-maneuver", band.low, band.high, band.outcome, band.percent


def moving_maneuver(draft: Draft, who: str, maneuver: str, column: str, parts: list[ev.Modifier], *,
                    exchange: int = 0, static_difficulty: bool = False) -> int:
    """Roll a moving maneuver for ``who`` (open-ended, A1, + ``parts``) and
    return its number: read in ``column`` (a difficulty) of the
    moving-maneuver table (ruling ``moving_maneuver_table``; A10: off the
    bottom a fumble, 0, and its effects; off the top the column's highest
    number and its text), whose effects fall on ``who``; with no table the
    static bands' percentage (ruling ``dodge_without_table``), after the
    difficulty's A7 modifier when ``static_difficulty``. Records
    :class:`~affray.events.rolemaster.ManeuverResolved`."""
    state = draft.state
    c = state.combatants[who]
    name = rulings_of(state).moving_maneuver_table
    if not name and static_difficulty and tables.DIFFICULTY_MODS[column]:
        parts = parts + [ev.Modifier(tables.DIFFICULTY_MODS[column], column)]
    dice, roll = open_ended(draft, f"{c.name}: {maneuver}", who)
    total = roll + sum(m.value for m in parts)
    if not name:
        name, low, high, outcome, value = static_result(state, c, total)
        draft.emit(rev.ManeuverResolved(
            handle=who, maneuver=maneuver, table=name, column=column, dice=dice, roll=roll,
            parts=tuple(parts), total=total, row_low=low, row_high=high, where="band", outcome=outcome, value=value,
            exchange=exchange))
        return value
    t = table(state, c, name, tables.ManeuverTable)
    if column not in t.columns:
        raise RuleError(f"the moving-maneuver table {t.name} has no {column} column for {maneuver}")
    row, cell, where = t.lookup(total, column)
    value = 0 if where == "bottom" else cell.value
    draft.emit(rev.ManeuverResolved(
        handle=who, maneuver=maneuver, table=t.name, column=column, dice=dice, roll=roll, parts=tuple(parts),
        total=total, row_low=row.low, row_high=row.high, where=where,
        outcome=("fumble: " if where == "bottom" else "") + cell.text, value=value,
        effects=cell.as_dict(), exchange=exchange))
    effects = {k: v for k, v in cell.as_dict().items() if k != "value"}
    if effects:
        apply_effects(draft, who, effects, f"{maneuver}: {cell.text or 'maneuver result'}", exchange=exchange,
                      critical=False)
    return value


# --------------------------------------------------------------------------- #
# Open-ended rolls (rules-reference.md A1, A2 and the A rulings)
# --------------------------------------------------------------------------- #


def chain(draft: Draft, first: int, purpose: str, by: str, *, low: bool) -> list[int]:
    """The rest of an open-ended chain after ``first``: while a die shows
    96-100 roll again (added after a high start, subtracted after a low
    one); a first die of 01-05 opens only when ``low``. An extra die of
    01-05 is simply added (or subtracted). At most ``open_ended_cap`` dice
    in all. Returns the extra dice, each rolled as its own event."""
    cap = int(rulings_of(draft.state).open_ended_cap)
    if first >= 96:
        sign = "+"
    elif low and first <= 5:
        sign = "-"
    else:
        return []
    extra: list[int] = []
    while len(extra) + 1 < cap:
        d = draft.roll("1D100", f"{purpose}: open-ended, die {len(extra) + 2} ({sign})", by=by).total
        extra.append(d)
        if d < 96:
            break
    return extra


def chain_total(first: int, extra: list[int]) -> int:
    """The result of an open-ended chain (the extra dice add after a high
    start and subtract after a low one)."""
    return first - sum(extra) if first <= 5 and extra else first + sum(extra)


def open_ended(draft: Draft, purpose: str, by: str, *, low: bool = True) -> tuple[tuple[int, ...], int]:
    """Roll an open-ended d100 (both ends by default, A1): ``(dice, result)``."""
    first = draft.roll("1D100", purpose, by=by).total
    extra = chain(draft, first, purpose, by, low=low)
    return (first, *extra), chain_total(first, extra)


# --------------------------------------------------------------------------- #
# Penalties and bonuses
# --------------------------------------------------------------------------- #


def state_penalty(base: int, sd_bonus: int) -> int:
    """A state's maneuver penalty "modified by +3x SD bonus" (seed 000 state
    table footnote; A12): ``base + 3 * sd_bonus``, never above 0."""
    return min(0, base + 3 * sd_bonus)


def maneuver_penalty(state: State, c: Combatant) -> tuple[ev.Modifier, ...]:
    """The maneuver penalties on ``c`` now, each with its reason: the stun
    and stagger states (only the worst, or all with ``stun_penalty=sum``),
    a lasting critical penalty, and prone (ruling ``prone_penalty``)."""
    out = []
    states = [k for k in c.conditions if k.name in cat.BASE_PENALTY]
    if states:
        if rulings_of(state).stun_penalty == "sum":
            out += [ev.Modifier(k.effects.get("penalty", 0), k.name) for k in states]
        else:
            worst = min(states, key=lambda k: k.effects.get("penalty", 0))
            out.append(ev.Modifier(worst.effects.get("penalty", 0), f"{worst.name} (worst state)"))
    wounded = next((k for k in c.conditions if k.name == "wounded"), None)
    if wounded is not None:
        out.append(ev.Modifier(wounded.effects.get("penalty", 0), "critical wounds"))
    if c.stance == "prone":
        out.append(ev.Modifier(int(rulings_of(state).prone_penalty), "prone"))
    return tuple(m for m in out if m.value)


def parry_declared(c: Combatant):
    """The round's parry condition (OB moved to parry), or None."""
    return next((k for k in c.conditions if k.name == "parrying"), None)


def held(c: Combatant) -> list[Weapon]:
    """The weapons ``c`` holds now, in sheet order."""
    return [w for w in sheet_of(c).weapons if w.name in c.ready]


def parry_weapon(c: Combatant, name: str = "") -> Weapon | None:
    """The weapon a parry is made with: the held melee weapon called (or
    starting with) ``name``, else the first held melee weapon ("Parrying
    requires that the character be wielding a weapon", seed 000 "Parry
    action"); None when it holds none (or none by that name)."""
    melee = [w for w in held(c) if w.kind == "melee"]
    if name:
        wanted = name.strip().lower()
        melee = [w for w in melee if w.name.lower().startswith(wanted)]
    return melee[0] if melee else None


def parry_limit(c: Combatant, name: str = "") -> int:
    """The most OB ``c`` may move to parry: the parry weapon's OB, half of
    it while stunned (seed 000 "Stunned"; A6), 0 when unable to parry."""
    w = parry_weapon(c, name)
    if w is None or c.effect("cannot-parry"):
        return 0
    return w.ob // 2 if c.effect("half-parry") else w.ob


def declare_parry(draft: Draft, handle: str, amount: int, against: str = "", weapon: str = "") -> None:
    """Move ``amount`` of OB to parry for the round (seed 000 "Parry
    action"; A6) with the held melee ``weapon`` (default: the first): the
    parrier's attacks this round lose it, and it holds against one attack
    (of ``against`` when named). Refused (one line) when larger than that
    weapon's OB (half while stunned), when unable to parry, when already
    declared, or after attacking this round (ruling ``parry_after_attack``)."""
    state = draft.state
    c = state.combatants[handle]
    if amount < 1:
        raise RuleError(f"a parry moves at least 1 of OB; got {amount}")
    w = parry_weapon(c, weapon)
    if w is None:
        what = f"no melee weapon {weapon!r} in hand" if weapon else "no melee weapon"
        raise RuleError(f"{c.name} holds {what}; parrying needs one (seed 000 'Parry action')")
    if c.effect("cannot-parry"):
        raise RuleError(f"{c.name} is stunned and unable to parry")
    if parry_declared(c) is not None:
        raise RuleError(f"{c.name} has already moved OB to parry this round")
    if c.has("attacked") and rulings_of(state).parry_after_attack == "refuse":
        raise RuleError(f"{c.name} has attacked this round, so its OB is committed; parry next round (ruling parry_after_attack)")
    limit = parry_limit(c, w.name)
    if amount > limit:
        why = f"half its OB with {w.name} while stunned" if c.effect("half-parry") else f"its OB with {w.name}"
        raise RuleError(f"{c.name} can parry with at most {limit} ({why}); got {amount}")
    effects = {"parry": amount}
    if against:
        effects[f"from:{against}"] = 1
    note = f"{amount} of OB moved to parry with {w.name}" + (f" against {state.combatants[against].name}" if against else "")
    pending = declared_of(c)
    if pending is not None and not pending.effects.get("hold") and rulings_of(state).parry_time == "attack-time":
        effects["attack-time"] = 1  # seed 000 'Parry action': in effect for the duration of the "attack time"
        note += ", for its attack time"
    draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
        "parrying", cause=draft.next_version, round=state.round, step=state.step, ends="round-end",
        effects=effects, note=note)))


def ob_parts(state: State, c: Combatant, weapon: Weapon, modifiers=(), quick_ap: int = 0) -> tuple[ev.Modifier, ...]:
    """The attacker's OB, part by part: the weapon's OB, the OB moved to
    parry this round, a quick attack's -25 per AP less (RMH), the lasting
    critical and prone penalties, and the GM's modifiers."""
    parts = [ev.Modifier(weapon.ob, f"{weapon.name} OB")]
    parry = parry_declared(c)
    if parry is not None:
        parts.append(ev.Modifier(-parry.effects.get("parry", 0), "OB moved to parry"))
    if quick_ap:
        parts.append(ev.Modifier(-25 * quick_ap, f"quick attack ({quick_ap} AP less)"))
    for m in maneuver_penalty(state, c):
        if m.reason in ("critical wounds", "prone"):
            parts.append(m)
    footing = terrain_of(c)
    if footing is not None and footing.effects.get("terrain-ob"):
        parts.append(ev.Modifier(footing.effects["terrain-ob"], f"{footing.note} (RMH terrain)"))
    parts += list(modifiers)
    return tuple(parts)


def db_parts(state: State, target: Combatant, *, melee: bool, parry: int = 0, dodge: int = 0) -> tuple[ev.Modifier, ...]:
    """The defender's DB, part by part: the sheet's DB, the Quickness part
    (3 x Qu bonus, lost when unaware or unable to move, A5), a held
    shield, the parry used against this attack and a dodge's result."""
    s = sheet_of(target)
    parts = []
    if s.db:
        parts.append(ev.Modifier(s.db, "DB (sheet)"))
    if s.quickness_db:
        if target.effect("no-qu-db") or target.effect("helpless") or target.effect("no-actions"):
            parts.append(ev.Modifier(0, f"Quickness {s.quickness_db} lost (unaware or cannot move)"))
        elif target.effect("terrain-qu-none"):
            parts.append(ev.Modifier(0, f"Quickness {s.quickness_db} lost ({terrain_of(target).note}, RMH terrain)"))
        elif target.effect("terrain-qu-half"):
            parts.append(ev.Modifier(s.quickness_db // 2, f"Quickness halved ({terrain_of(target).note}, RMH terrain)"))
        else:
            parts.append(ev.Modifier(s.quickness_db, "Quickness (3 x Qu bonus)"))
    shield = next((w for w in held(target) if w.kind == "shield"), None)
    if shield is not None and shield.db:
        parts.append(ev.Modifier(shield.db, f"{shield.name}"))
    if parry:
        parts.append(ev.Modifier(parry, "parry (OB moved)"))
    if dodge:
        parts.append(ev.Modifier(dodge, "dodge"))
    for k in target.conditions:
        if k.name == "covered" and k.effects.get("cover-db"):
            parts.append(ev.Modifier(k.effects["cover-db"], k.note))
        elif k.name == "charging" and k.effects.get("charge-db"):
            parts.append(ev.Modifier(k.effects["charge-db"], "charged this round (-10 DB)"))
    return tuple(parts)


# --------------------------------------------------------------------------- #
# Missiles, cover, pace and charges (RMH; rules-reference.md A)
# --------------------------------------------------------------------------- #


def range_modifier(w: Weapon, metres: float) -> ev.Modifier:
    """The OB modifier of a missile ``w`` at ``metres``: the nearest band
    of its ``ranges`` that reaches that far (the sheet's figures; RMSS
    range modifiers are per weapon). :class:`RuleError` beyond the last
    band, for a weapon without bands, and for a negative range."""
    if metres < 0:
        raise RuleError(f"a range is 0 metres or more; got {metres:g}")
    if not w.ranges:
        raise RuleError(f"{w.name} has no range bands; add ranges = [[UP_TO_METRES, MODIFIER], ...] to its sheet entry")
    for upto, mod in w.ranges:
        if metres <= upto:
            return ev.Modifier(mod, f"range {metres:g} m (band up to {upto:g} m)")
    raise RuleError(f"{metres:g} m is beyond {w.name}'s longest range ({w.ranges[-1][0]:g} m)")


def cover_db(state: State, kind: str) -> int:
    """The DB bonus of cover ``kind`` (RMH ``ob-db-modifiers.md``; the
    full covers by ruling ``full_cover``)."""
    cover = tables.COVER[kind]
    if cover.printed and rulings_of(state).full_cover == "times-ten":
        return cover.db * 10
    return cover.db


def unloaded(c: Combatant, weapon: str) -> ev.Condition | None:
    """The ``unloaded`` condition of ``c``'s missile ``weapon``, or None
    (loaded). Its ``reload-left`` effect is the Action Points still owed."""
    return next((k for k in c.conditions if k.name == "unloaded" and k.id == f"unloaded:{weapon}"), None)


def mark_unloaded(draft: Draft, handle: str, w: Weapon, left: int | None = None) -> None:
    """``handle``'s ``w`` needs ``left`` (default: its ``reload``) Action
    Points of reloading before it shoots again (RMH "Ammo reload")."""
    state = draft.state
    left = w.reload if left is None else left
    cond = replace(cat.make("unloaded", cause=draft.next_version, round=state.round, step=state.step, ends="never",
                            effects={"reload-left": left}, note=f"{w.name}: {left} AP of reloading left"),
                   id=f"unloaded:{w.name}")
    draft.emit(ev.ConditionApplied(handle=handle, condition=cond))


def terrain_of(c: Combatant) -> ev.Condition | None:
    """The terrain the GM set for ``c`` (its ``footing`` condition), or None."""
    return next((k for k in c.conditions if k.name == "footing"), None)


def terrain_name(cond: ev.Condition) -> str:
    """The terrain a ``footing`` condition names (an effect ``terrain:NAME``)."""
    return next((k[8:] for k in cond.effects if k.startswith("terrain:")), "")


def landing(draft: Draft, handle: str, exchange: int) -> None:
    """A knock-back lands in the terrain the GM set for ``handle``: the
    knockback table (ruling ``knockback_table``) adds that terrain's
    effects (seed 000 "Knocked Back": "depending on terrain, may suffer
    additional effects"). Nothing without a terrain or a table entry."""
    state = draft.state
    c = state.combatants[handle]
    footing = terrain_of(c)
    name = rulings_of(state).knockback_table
    if footing is None or not name:
        return
    t = table(state, c, name, tables.KnockbackTable)
    where = terrain_name(footing)
    cell = t.terrain.get(where)
    if cell is None:
        return
    effects = cell.as_dict()
    draft.emit(rev.TerrainLookedUp(exchange=exchange, handle=handle, table=t.name, table_sha256=t.sha256,
                                   terrain=where, text=cell.text, effects=effects))
    apply_effects(draft, handle, effects, f"knocked back into {where}: {cell.text}", exchange=exchange, critical=False)


# --------------------------------------------------------------------------- #
# Effects (seed 000 "Effects from Criticals")
# --------------------------------------------------------------------------- #


def add_state(draft: Draft, handle: str, name: str, rounds: int, why: str) -> None:
    """Add ``rounds`` of a stun state (cumulative, seed 000 "All stun
    results are cumulative") or the staggered state (at most one round
    "no matter how many"). The penalty is reduced by 3 x SD bonus. Rounds
    received when the bearer's next turn is next round (no AP left; seed
    000 "'for ß rounds' = beginning from target's next turn (this round or
    the next)"), or by ruling ``late_stun=no-wear-off`` after it has spent
    2+ AP this round (RMH upkeep), are ``late``: they do not wear off at
    the end of this round."""
    state = draft.state
    c = state.combatants[handle]
    sd = sheet_of(c).stats.self_discipline.bonus
    old = next((k for k in c.conditions if k.name == name), None)
    how = rulings_of(state).late_stun
    late = (how == "next-turn" and c.combat_actions == 0) or (how == "no-wear-off" and c.actions_taken >= 2)
    if name == "staggered":
        count = 1
        late_n = 1 if late or (old is not None and old.effects.get("late-round") == state.round) else 0
    else:
        count = (old.ends.count if old is not None else 0) + rounds
        prev_late = old.effects.get("late", 0) if old is not None and old.effects.get("late-round") == state.round else 0
        late_n = prev_late + (rounds if late else 0)
    effects = {"penalty": state_penalty(cat.BASE_PENALTY[name], sd), "cannot-attack": 1}
    if name == "stunned":
        effects["half-parry"] = 1
        effects["stun-rank"] = 2
    elif name == "stunned-no-parry":
        effects["cannot-parry"] = 1
        effects["stun-rank"] = 3
    elif name == "dazed":
        effects["stun-rank"] = 1
    if late_n:
        effects["late"] = late_n
        effects["late-round"] = state.round
    draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
        name, cause=draft.next_version, round=state.round, step=state.step, ends="rounds", count=count,
        effects=effects, stacks=name != "staggered", note=why)))


def apply_effects(draft: Draft, handle: str, effects: dict[str, int], why: str, *, exchange: int = 0,
                  away_from: str = "", critical: bool = True) -> None:
    """Apply a table cell's effects to ``handle`` as events: hits
    (``DamageDealt`` to ``body``), the stun stack and staggered, prone
    (staggered too, seed 000 "Staggered or Prone"), knocked back (moved
    ``away_from`` the attacker, then staggered: one -25, A ruling),
    "You have initiative" (-1d10 on the foe's next Initiative), bleeding,
    a lasting penalty, a dropped weapon, losing the round, unconscious and
    dead."""
    state = draft.state
    c = state.combatants[handle]
    if effects.get("hits"):
        draft.emit(ev.DamageDealt(exchange=exchange, target=handle, location="body", rolled=effects["hits"],
                                  reduced=0, armour=0, final=effects["hits"], critical=critical, note=why))
    for name, key in (("stunned-no-parry", "stunned_no_parry"), ("stunned", "stunned"), ("dazed", "dazed")):
        if effects.get(key):
            add_state(draft, handle, name, effects[key], why)
    if effects.get("knocked_back"):
        metres = round(effects["knocked_back"] * FEET, 2)
        draft.emit(ev.CombatantMoved(handle=handle, distance=metres, reason=f"knocked back {effects['knocked_back']} feet",
                                     away_from=away_from))
        if away_from and metres > MELEE_REACH and away_from in draft.state.combatants[handle].engaged:
            draft.emit(ev.EngagementChanged(a=handle, b=away_from, engaged=False))
    if effects.get("prone") and c.stance != "prone":
        draft.emit(ev.StanceChanged(handle=handle, stance="prone", reason=why))
    if effects.get("staggered") or effects.get("prone") or effects.get("knocked_back"):
        add_state(draft, handle, "staggered", 1, why)
    if effects.get("knocked_back"):
        landing(draft, handle, exchange)
    if effects.get("initiative"):
        draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
            "lost-initiative", cause=draft.next_version, round=state.round, step=state.step, ends="event",
            effects={"initiative-d10": 1}, note=why)))
    for name, key, unit in (("bleeding", "bleed", "hits per round"), ("wounded", "penalty", "to all actions")):
        if effects.get(key):
            old = next((k for k in c.conditions if k.name == name), None)
            total = (old.effects.get(key, 0) if old else 0) + effects[key]
            draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
                name, cause=draft.next_version, round=state.round, step=state.step, ends="never",
                effects={key: total}, stacks=True, note=f"{total} {unit}")))
    if effects.get("drop_weapon"):
        for w in held(draft.state.combatants[handle]):
            if w.kind != "shield":
                draft.emit(ev.WeaponDropped(handle=handle, weapon=w.name, reason=why))
    if effects.get("lose_round"):
        lose_next_turn(draft, handle, why)
    if effects.get("dead"):
        draft.emit(ev.StatusChanged(handle=handle, status="dead", reason=why))
    elif effects.get("unconscious"):
        draft.emit(ev.StatusChanged(handle=handle, status="unconscious", reason=why))
    check_down(draft, handle)


def lose_round(draft: Draft, handle: str, why: str) -> None:
    """``handle`` can perform no further actions this round: its Action
    Points are lost (seed 000 "Surprised / Confused Effect", Failure)."""
    state = draft.state
    c = state.combatants[handle]
    draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
        "no-actions", cause=draft.next_version, round=state.round, step=state.step, ends="round-end",
        effects={"no-actions": 1, "cannot-attack": 1}, note=why)))
    if c.combat_actions:
        draft.emit(ev.ActionSpent(handle=handle, kind="combat-action", amount=c.combat_actions, reason=why))


def lose_next_turn(draft: Draft, handle: str, why: str) -> None:
    """A critical's lost round: "'next round' = next turn (this round or
    the next)" (seed 000 "Effects from Criticals"). With Action Points
    left this round, ``handle``'s next turn is in this round, which it
    loses (:func:`lose_round`); with none, it loses the next round (a
    ``round-lost`` condition, taken when that round starts)."""
    state = draft.state
    c = state.combatants[handle]
    if state.phase == "round" and c.combat_actions > 0:
        lose_round(draft, handle, why)
        return
    draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
        "round-lost", cause=draft.next_version, round=state.round, step=state.step, ends="event",
        effects={"lose-next-round": 1}, note=f"{why} (its next turn is next round)")))


#: Rounds of 5 seconds in "five minutes" (RMH "Death"; a round is five
#: seconds, RMH tactical-activity-tracking).
SOUL_DEPARTS_ROUNDS = 60


def death_limit(state: State, c: Combatant) -> tuple[int, str] | None:
    """``(limit, source)``: ``c`` dies once its hits fall below ``-limit``
    (RMH ``injury-death-healing.md`` "Death": "negative hits greater than
    his Body Development skill bonus", a +67 dies at -68), by ruling
    ``death_at``: the ``body_development`` skill (the Constitution value
    when the sheet lists none), the Constitution value, or None (``off``)."""
    how = rulings_of(state).death_at
    if how == "off":
        return None
    s = sheet_of(c)
    if how == "body-development" and "body_development" in s.skills:
        return s.skill("body_development"), "Body Development"
    return s.stats.constitution.value, "Constitution"


def check_down(draft: Draft, handle: str) -> None:
    """Hits and their thresholds (RMH ``injury-death-healing.md``): at 0
    hits or less the combatant falls unconscious ("Unconsciousness"); below
    ``-limit`` (:func:`death_limit`) it dies, at once or after five minutes
    (ruling ``death_delay``: a ``dying`` condition of 60 rounds)."""
    state = draft.state
    c = state.combatants[handle]
    hp = c.location("body").hp
    if c.status == "active" and hp <= 0:
        draft.emit(ev.StatusChanged(handle=handle, status="unconscious", reason="no hits left"))
    limit = death_limit(state, c)
    c = draft.state.combatants[handle]
    if c.status == "dead" or limit is None or hp >= -limit[0] or c.has("dying"):
        return
    why = f"{hp} hits, past -{limit[0]} ({limit[1]})"
    if rulings_of(state).death_delay == "at-once":
        draft.emit(ev.StatusChanged(handle=handle, status="dead", reason=why))
        return
    draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
        "dying", cause=draft.next_version, round=state.round, step=state.step, ends="rounds",
        count=SOUL_DEPARTS_ROUNDS, effects={"dying": 1},
        note=f"{why}: dies in five minutes ({SOUL_DEPARTS_ROUNDS} rounds) unless healed")))


def dying_upkeep(draft: Draft, handle: str, round_no: int) -> None:
    """End of round for a ``dying`` combatant (RMH "Death"): healed back
    to ``-limit`` hits or better, it lives; else one round of the five
    minutes passes, and at the last the combatant dies."""
    c = draft.state.combatants[handle]
    cond = next((k for k in c.conditions if k.name == "dying"), None)
    if cond is None or c.status == "dead":
        return
    limit = death_limit(draft.state, c)
    if limit is None or c.location("body").hp >= -limit[0]:
        draft.emit(ev.ConditionExpired(handle=handle, condition_id=cond.id, reason="healed in time: no longer dying"))
        return
    left = cond.ends.count - 1
    if left > 0:
        draft.emit(ev.ConditionApplied(handle=handle, condition=replace(cond, ends=ev.ConditionEnd(kind="rounds", count=left))))
        return
    draft.emit(ev.ConditionExpired(handle=handle, condition_id=cond.id, reason=f"end of round {round_no}"))
    draft.emit(ev.StatusChanged(handle=handle, status="dead", reason="the soul departed (five minutes past the death threshold)"))


# --------------------------------------------------------------------------- #
# Routing commands to steps
# --------------------------------------------------------------------------- #


def pending_of(state: State, kinds: tuple[str, ...], who: str = "") -> ev.PendingStep | None:
    """The first pending step of one of ``kinds`` (for ``who`` when given)."""
    return next((s for s in state.pending if s.kind in kinds and (not who or s.who == who)), None)


def route_roll(draft: Draft, command: cmd.RollPending) -> None:
    """``affray roll [WHO]``: queue the handler of the first pending roll
    step (``roll:KIND``)."""
    state = draft.state
    who = find_combatant(state, command.who) if command.who else ""
    step = next((s for s in state.pending if s.verb == "roll" and (not who or s.who == who)), None)
    if step is None:
        raise RuleError("no roll is pending; see 'affray pending'")
    draft.then("roll:" + step.kind, step=step)


def route_act(draft: Draft, command: cmd.TakeAction) -> None:
    """``affray act WHO ACTION [ARG...]``: queue ``act:ACTION`` with the
    actor's handle and the words after the action."""
    try:
        words = shlex.split(command.action)
    except ValueError:
        words = command.action.split()
    if not words:
        raise RuleError("name an action: pass, parry AMOUNT, stand, draw WEAPON, reload [WEAPON], terrain KIND, "
                        "orientation, perception, maneuver SKILL, cancel, trigger, resolve")
    word = words[0].lower()
    known = ("pass", "parry", "stand", "draw", "reload", "terrain", "orientation", "perception", "maneuver",
             "cancel", "trigger", "resolve")
    if word not in known:
        raise RuleError(f"unknown action {word!r}; use one of {', '.join(known)}")
    draft.then("act:" + word, who=find_combatant(draft.state, command.who), args=tuple(words[1:]))


def own_turn(state: State, handle: str) -> None:
    """Refuse an action out of turn (one line)."""
    if state.phase != "round":
        raise RuleError("no round is in progress; 'affray start' begins the fight")
    if handle not in state.turn:
        now = ", ".join(state.combatants[h].name for h in state.turn) or "nobody (see 'affray pending')"
        raise RuleError(f"it is not {state.combatants[handle].name}'s turn (now: {now})")
    if state.exchange is not None:
        raise RuleError("an attack is still being resolved; see 'affray pending'")
    if state.combatants[handle].effect("no-actions"):
        raise RuleError(f"{state.combatants[handle].name} can perform no further actions this round")


# --------------------------------------------------------------------------- #
# The countdown: declared actions (RMH tactical-activity-tracking_.md)
# --------------------------------------------------------------------------- #


def declared_of(c: Combatant) -> ev.Condition | None:
    """``c``'s declared action on the countdown (the ``declared``
    condition), or None."""
    return next((k for k in c.conditions if k.name == "declared"), None)


def delayed(state: State) -> bool:
    """Whether actions resolve when their AP are spent (ruling
    ``resolution=when-spent`` under ``turn_order=countdown``)."""
    r = rulings_of(state)
    return r.turn_order == "countdown" and r.resolution == "when-spent"


def defer(draft: Draft, who: str, cost: int, kind: str, text: str, *, hold: str = "", **params) -> bool:
    """Declare ``who``'s action now and resolve it later, when that is the
    rule; True when it was declared (the caller stops there).

    RMH ``tactical-activity-tracking_.md`` "Resolution": "Actions are
    declared when they are started, and paid for (in AP) and resolved on
    the initiative when they are completed": declared at the count ``who``
    stands on, it resolves at count - 5 x ``cost`` (ruling ``resolution``).
    A conditional action (``hold``, the trigger as text; "Conditional
    Actions") is also declared: its AP are spent when it would resolve and
    it waits for ``act WHO trigger``. ``kind`` is the step that resolves it
    and ``params`` its arguments (``target``, ``weapon``, ``situations``,
    ``modifiers``, ``args``), kept in the ``declared`` condition."""
    state = draft.state
    if not hold and (cost <= 0 or not delayed(state)):
        return False
    c = state.combatants[who]
    if declared_of(c) is not None:
        raise RuleError(f"{c.name} has declared an action already ({declared_of(c).note}); 'affray act {who} cancel' drops it")
    count = state.action_no if rulings_of(state).turn_order == "countdown" else count_now(state, who)
    later = delayed(state)
    resolve = count - 5 * cost if later else count
    effects = {"ap": cost, "count": count, "resolve": resolve, f"step:{kind}": 1}
    if hold:
        effects["hold"] = 1
    for i, m in enumerate(params.get("modifiers", ())):
        effects[f"mod:{i}:{m.reason}"] = m.value
    for s in params.get("situations", ()):
        effects[f"sit:{s}"] = 1
    for key in ("target", "weapon"):
        if params.get(key):
            effects[f"{key}:{params[key]}"] = 1
    if params.get("args"):
        effects["args:" + shlex.join(params["args"])] = 1
    draft.emit(rev.ActionDeclared(handle=who, action=text, ap=cost, count=count, resolves_at=resolve, hold=hold))
    note = f"{text} ({cost} AP): declared at count {count}, resolves at {resolve}"
    if hold:
        note = f"{text} ({cost} AP), held until: {hold}"
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "declared", cause=draft.next_version, round=state.round, step=state.step, ends="never",
        effects=effects, note=note)))
    if hold and not later:
        ready(draft, who)
    draft.emit(ev.StepsAwaited(steps=()))
    draft.hand_over()
    return True


def declared_text(cond: ev.Condition) -> str:
    """What a ``declared`` condition's action is (``attack Gruk with
    Broadsword``): its note up to `` (N AP)`` (see :func:`defer`)."""
    return cond.note.split(f" ({cond.effects.get('ap', 0)} AP)", 1)[0]


def declared_hold(cond: ev.Condition) -> str:
    """The trigger of a held ``declared`` action as the player gave it, or ""."""
    return cond.note.split("held until: ", 1)[1] if cond.effects.get("hold") else ""


def count_now(state: State, who: str) -> int:
    """``who``'s actual initiative: its base + 5 x the AP it has left (RMH)."""
    entry = next((e for e in state.order if e.handle == who), None)
    return (entry.rank if entry is not None else 0) + 5 * state.combatants[who].combat_actions


def ready(draft: Draft, who: str) -> None:
    """A held action's count has come: its AP are spent and it waits for
    its trigger (RMH "Conditional Actions": 'considered "ready" (and AP is
    spend) when it would normally resolve')."""
    state = draft.state
    c = state.combatants[who]
    cond = declared_of(c)
    cost = min(cond.effects.get("ap", 0), c.combat_actions)
    text = declared_text(cond)
    if cost:
        draft.emit(ev.ActionSpent(handle=who, kind="combat-action", amount=cost, reason=f"{text} (held)"))
    hold = declared_hold(cond)
    draft.emit(rev.ActionReadied(handle=who, action=text, count=state.action_no, hold=hold))
    draft.emit(ev.ConditionApplied(handle=who, condition=merged(cond, ready=1)))


def declared_step(cond: ev.Condition) -> tuple[str, dict]:
    """The step that resolves a ``declared`` action and its arguments
    (the inverse of :func:`defer`'s encoding)."""
    kind, params = "", {}
    situations, modifiers = [], []
    for key, value in cond.effects.items():
        head, _, rest = key.partition(":")
        if head == "step":
            kind = rest
        elif head in ("target", "weapon"):
            params[head] = rest
        elif head == "sit":
            situations.append(rest)
        elif head == "mod":
            index, _, reason = rest.partition(":")
            modifiers.append((int(index), ev.Modifier(value, reason)))
        elif head == "args":
            params["args"] = tuple(shlex.split(rest))
    if kind.startswith("attack"):
        params.update(situations=tuple(situations), modifiers=tuple(m for _, m in sorted(modifiers, key=lambda p: p[0])),
                      cost=cond.effects.get("ap", 0))
    elif "args" not in params:
        params["args"] = ()
    return kind, params


def resolving_now(draft: Draft, who: str) -> ev.Condition:
    """The declared action of ``who`` resolves now: its condition ends
    (and is returned: ``ready`` when a held action's AP were spent)."""
    state = draft.state
    cond = declared_of(state.combatants[who])
    how = "triggered" if cond.effects.get("ready") else "resolves"
    draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason=f"{how} at count {state.action_no}"))
    return cond


def attempt(draft: Draft, who: str, resolving: bool, check):
    """Run an action's ``check()`` (which raises :class:`RuleError` when
    the action cannot be made) and return what it returns. When it fails
    while a declared action is ``resolving``, the action is lost
    (:func:`lose`) and None is returned; when declaring, the error goes to
    the user (one line)."""
    try:
        return check()
    except RuleError as exc:
        if not resolving:
            raise
        lose(draft, who, str(exc))
        return None


def proceed(draft: Draft, who: str, cost: int, kind: str, text: str, *, resolving: bool, **params) -> bool:
    """After an action's checks: declare it to resolve later (:func:`defer`,
    False: stop here), or carry it out now (True): the declared condition
    ends when it is ``resolving``, and its ``cost`` in AP is spent."""
    if not resolving and defer(draft, who, cost, kind, text, **params):
        return False
    if resolving:
        resolving_now(draft, who)
    spend(draft, who, cost, text)
    return True


def attack_time_over(draft: Draft, who: str) -> None:
    """``who``'s declared attack has resolved (or was lost or cancelled):
    a parry declared for its "attack time" ends (seed 000 "Parry action":
    "in effect for the duration of the 'attack time' against any one
    attack that is 'resolved' against the target during that time";
    ruling ``parry_time``)."""
    c = draft.state.combatants.get(who)
    parry = parry_declared(c) if c is not None else None
    if parry is not None and parry.effects.get("attack-time"):
        draft.emit(ev.ConditionExpired(handle=who, condition_id=parry.id,
                                       reason="its attack time is over (seed 000 'Parry action')"))


def lose(draft: Draft, who: str, reason: str) -> None:
    """The declared action of ``who`` cannot be completed when its count
    comes: it is lost and its AP are spent (the time went by; RMH second-
    by-second "Opportunity action": "if the interrupted action becomes
    impossible to complete, it is lost"). The turn order goes on."""
    state = draft.state
    c = state.combatants[who]
    cond = declared_of(c)
    spent = 0 if cond.effects.get("ready") else min(cond.effects.get("ap", 0), c.combat_actions)
    text = declared_text(cond)
    draft.emit(rev.ActionDropped(handle=who, action=text, how="lost", reason=reason, count=state.action_no, spent=spent))
    draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason=f"lost: {reason}"))
    if spent:
        draft.emit(ev.ActionSpent(handle=who, kind="combat-action", amount=spent, reason=f"{text} (lost)"))
    attack_time_over(draft, who)
    draft.emit(ev.StepsAwaited(steps=()))
    draft.hand_over()


def spend(draft: Draft, handle: str, amount: int, reason: str) -> None:
    """Spend ``amount`` Action Points (RMH: 4 a round)."""
    c = draft.state.combatants[handle]
    if amount > c.combat_actions:
        raise RuleError(f"{c.name} has {c.combat_actions} Action Points left; {reason} needs {amount}")
    if amount:
        draft.emit(ev.ActionSpent(handle=handle, kind="combat-action", amount=amount, reason=reason))


def end_exchange(draft: Draft, summary: str) -> None:
    """Close the exchange; the sequencer decides the next turn."""
    x = draft.state.exchange
    if x is not None:
        for h in (x.attacker, x.target):
            c = draft.state.combatants.get(h)
            for k in (c.conditions if c else ()):
                if k.name in ("dodging", "covered"):
                    draft.emit(ev.ConditionExpired(handle=h, condition_id=k.id, reason="the attack is resolved"))
        attack_time_over(draft, x.attacker)
        draft.emit(ev.ExchangeEnded(exchange=x.id, summary=summary))
    draft.emit(ev.StepsAwaited(steps=()))
    draft.hand_over()


def merged(cond: ev.Condition, **effects: int) -> ev.Condition:
    """``cond`` with ``effects`` merged in (a re-applied condition)."""
    return replace(cond, effects={**cond.effects, **effects})


def may_dodge(state: State, c: Combatant) -> str:
    """Why ``c`` may not dodge now, or "" when it may (seed 000 "Dodge
    action": for a character without a weapon "or [who] cannot use their
    weapon", as one stunned and unable to parry; rulings
    ``dodge_armed`` and ``dodge_ap``)."""
    r = rulings_of(state)
    if c.effect("no-actions") or c.effect("helpless"):
        return f"{c.name} can perform no actions"
    # "does not have a weapon (or cannot use their weapon)": stunned and
    # unable to parry, it can neither attack nor parry with what it holds
    unusable = c.effect("cannot-attack") and c.effect("cannot-parry")
    armed = any(w.kind in ("melee", "missile") for w in held(c)) and not unusable
    if armed and r.dodge_armed == "refuse":
        return (f"{c.name} holds a weapon, and Dodge is for a character without one (seed 000 'Dodge action'); "
                "parry instead, or open the encounter with --ruling dodge_armed=allow")
    if r.dodge_ap == "rest-of-round" and c.combat_actions < 1:
        return f"{c.name} has no Action Points left this round to dodge with (ruling dodge_ap)"
    return ""


def may_parry(state: State, c: Combatant, attacker: str, melee: bool) -> str:
    """Why ``c`` may not parry this attack, or "" when it may: a parry
    declared this round and not yet used (against this attacker when it
    named one), or one it may still declare (seed 000 "Parry action"; A6;
    rulings ``parry_missiles`` and ``parry_after_attack``)."""
    if c.effect("no-actions") or c.effect("helpless"):
        return f"{c.name} can perform no actions"
    if c.has("parry-used"):
        return f"{c.name}'s parry has already held against one attack this round"
    if not melee and not (rulings_of(state).parry_missiles == "shield-half"
                          and any(w.kind == "shield" for w in held(c))):
        return "parry works only against melee attacks (ruling parry_missiles)"
    declared = parry_declared(c)
    if declared is not None:
        against = cat.from_of(declared)
        if against and against != attacker:
            return f"{c.name}'s parry is declared against {state.combatants[against].name}"
        return ""
    if parry_limit(c) < 1:
        return f"{c.name} cannot parry (no melee weapon in hand, or stunned and unable to parry)"
    if c.has("attacked") and rulings_of(state).parry_after_attack == "refuse":
        return f"{c.name} has attacked this round, so its OB is committed (ruling parry_after_attack)"
    return ""
