"""State queries, spending and checks the rq3 rule modules share.

Nothing here decides a step: it reads the projected state (the Statement
of Intent kept as ``intent``/``declared`` conditions, reaches, wounds),
builds conditions and rolls tests through the :class:`Draft`. Sources are
named on each function: seed 002 (``002_321dc991624c8969.txt``) and
rules-reference.md section C.
"""


import math

import msgspec

from affray.events import core as ev
from affray.events import rq3 as rev
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError, rulings_reader
from affray.rules.d100 import is_success
from affray.rules.rq3 import conditions as cat
from affray.rules.rq3 import tables
from affray.rules.rq3.rulings import from_mapping
from affray.rules.rq3.sheet import Sheet, Weapon, derive, skill

rulings_of = rulings_reader(from_mapping)

#: Statement of Intent types by the number of moves (seed 002): triple move
#: and no melee actions, double move and one, single move and two.
TYPES = {"triple": 3, "double": 2, "single": 1}
TYPE_NAMES = {3: "triple move and no melee actions", 2: "double move and one melee action",
              1: "single move and two melee actions"}
#: The seed's list of nine melee actions (seed 002 "STATEMENT OF INTENT").
ACTIONS = ("attack", "missile", "cast", "parry", "dodge", "draw", "spirit-attack", "spirit-defend", "misc")
#: Actions that happen at a strike rank (the rest answer attacks).
TIMED = ("attack", "missile", "cast", "draw", "spirit-attack", "spirit-defend", "misc")


class Declared(msgspec.Struct, frozen=True):
    """One declared melee action: ``slot`` 1 or 2 (3+ for a move phase
    given up to draw or act), ``kind`` among :data:`ACTIONS`, ``target``
    (a handle, "" = chosen at the SR), ``weapon`` (or the spell), ``mode``
    (slash, crush, impale, an attack tactic, ``@`` tactic, or the spell's
    magic points), ``sr`` the strike rank it falls on, ``used``,
    ``penalty`` in percent, ``abort`` (``""``, ``defensive``, ``movement``,
    ``plain``)."""

    slot: int
    kind: str
    target: str
    weapon: str
    mode: str
    sr: int
    used: bool = False
    penalty: int = 0
    abort: str = ""

    @property
    def note(self) -> str:
        return "|".join((self.kind, self.target, self.weapon, self.mode))

    @property
    def text(self) -> str:
        """A short account: ``attack troll with Broadsword (slash) at SR 5``."""
        parts = [self.kind]
        if self.target:
            parts.append(self.target)
        if self.weapon:
            parts.append(f"with {self.weapon}" if self.kind not in ("cast", "misc") else self.weapon)
        if self.mode:
            parts.append(f"({self.mode})")
        if self.kind in TIMED:
            parts.append(f"at SR {self.sr}")
        if self.penalty:
            parts.append(f"{self.penalty:+d}%")
        return " ".join(parts)


_ABORTS = ("", "defensive", "movement", "plain")


def sheet_of(c: Combatant) -> Sheet:
    """The combatant's sheet as stored on joining (corrections applied)."""
    return msgspec.convert(c.sheet, Sheet)


#: Grapple "weapon" modes (seed 002 "GRAPPLING"): the grab, then the
#: follow-ups of the next round, and an immobilised character's attempt to
#: break free.
GRAPPLE_MODES = ("grapple", "immobilise", "throw", "damage", "break-free")


def grapple_weapon(c: Combatant) -> Weapon:
    """Grappling as a weapon (seed 002 "GRAPPLING", "1. Melee Attack":
    "including grapple ... attacks"): the Grapple skill, weapon SR 3 (ruling
    ``grapple_sr``), no weapon damage; every combatant has it."""
    return Weapon(name="Grapple", damage="1D4", sr=3, length=1.0, ap=0, modes=list(GRAPPLE_MODES),
                  attack=skill_of(c, "Grapple"), parry=skill_of(c, "Grapple"), kind="unarmed")


def weapon_of(c: Combatant, name: str) -> Weapon:
    """The sheet weapon called ``name`` (case-insensitive prefix allowed;
    ``Grapple`` is every combatant's grappling, :func:`grapple_weapon`).
    Raises :class:`RuleError` naming the weapons."""
    weapons = sheet_of(c).weapons
    wanted = name.strip().lower()
    if wanted == "grapple" and not any(w.name.lower() == "grapple" for w in weapons):
        return grapple_weapon(c)
    exact = [w for w in weapons if w.name.lower() == wanted]
    hits = exact or [w for w in weapons if w.name.lower().startswith(wanted)]
    if len(hits) == 1:
        return hits[0]
    known = ", ".join(w.name for w in weapons) or "none"
    raise RuleError(f"{c.name} has no weapon {name!r} (weapons: {known}); name one of them")


def fighters(state: State) -> list[Combatant]:
    """Combatants still in the fight, in join order."""
    return [c for c in state.combatants.values() if c.can_fight]


def intent_of(c: Combatant) -> ev.Condition | None:
    """The combatant's Statement of Intent this round, or None."""
    return next((x for x in c.conditions if x.name == "intent"), None)


def declared(c: Combatant) -> list[Declared]:
    """The melee actions ``c`` declared this round, by slot."""
    out = []
    for x in c.conditions:
        if x.name != "declared":
            continue
        kind, target, weapon, mode = (x.note.split("|") + ["", "", "", ""])[:4]
        e = x.effects
        out.append(Declared(slot=e.get("slot", 0), kind=kind, target=target, weapon=weapon, mode=mode,
                            sr=e.get("sr", 0), used=bool(e.get("used", 0)), penalty=e.get("penalty", 0),
                            abort=_ABORTS[e.get("abort", 0)]))
    return sorted(out, key=lambda d: d.slot)


def declared_condition(draft: Draft, handle: str, d: Declared) -> ev.ConditionApplied:
    """The event that records (or updates) declared action ``d``."""
    s = draft.state
    return ev.ConditionApplied(handle=handle, condition=cat.make(
        "declared", cause=draft.next_version, round=s.round, step=s.step, ends="round-end", key=str(d.slot),
        effects={"slot": d.slot, "sr": d.sr, "used": int(d.used), "penalty": d.penalty,
                 "abort": _ABORTS.index(d.abort)}, note=d.note))


def spirit_bound(c: Combatant) -> bool:
    """Whether ``c`` declared two spirit attacks or two spirit defences this
    round, which allow "no other actions, including defending him or
    herself" (seed 002 "A character in spirit combat can choose to attack
    twice ... or can choose to take two defensive actions but no other
    actions"): no Defensive or Movement Abort."""
    kinds = [d.kind for d in declared(c)]  # as stated, aborted or not
    return kinds.count("spirit-attack") >= 2 or kinds.count("spirit-defend") >= 2


def mark_used(draft: Draft, handle: str, d: Declared) -> None:
    """Record that declared action ``d`` is spent."""
    draft.emit(declared_condition(draft, handle, msgspec.structs.replace(d, used=True)))


def phase(state: State) -> str:
    """Where the round is: ``setup``, ``intent`` (Statement of Intent),
    ``move``, ``melee``, ``post`` (Post Melee Move), ``over`` or ``between``,
    read from what the table waits for."""
    if state.phase in ("setup", "over", "closed", "between"):
        return state.phase
    kinds = {p.kind for p in state.pending}
    if "intent" in kinds:
        return "intent"
    if kinds & {"move", "maneuver", "terrain"}:
        return "move"
    if "end-round" in kinds:
        return "post"
    return "melee"


def expect(state: State, kinds: tuple[str, ...], who: str, doing: str) -> ev.PendingStep:
    """The pending step of one of ``kinds`` for ``who``; otherwise a
    :class:`RuleError` saying what the table waits for."""
    for p in state.pending:
        if p.kind in kinds and p.who == who:
            return p
    if state.phase in ("setup", "between"):
        raise RuleError(f"no round is running; {'affray start' if state.phase == 'setup' else 'affray end-round'} comes first")
    waiting = state.pending[0].prompt if state.pending else "nothing"
    name = state.combatants[who].name if who in state.combatants else who
    raise RuleError(f"{name} cannot {doing} now; the table waits for: {waiting}")


def tiebreak(state: State, handle: str) -> int:
    """The combatant's tie-break die this round (0 if none was rolled)."""
    return next((e.tiebreak for e in state.order if e.handle == handle), 0)


def intent_order(state: State) -> list[str]:
    """Statement of Intent order: lowest INT first, ties by the die, the
    higher die declaring first (seed 002 "STATEMENT OF INTENT")."""
    return [e.handle for e in state.order if e.handle in state.combatants]


def movement_order(state: State) -> list[str]:
    """Movement initiative: highest DEX first, ties by the die; those who
    chose to wait move after the rest (seed 002 "MOVEMENT INITIATIVE"); one
    who won a contest of Maneuver moves before the defeated target (seed
    002 "MOVE")."""
    rows = [(int(c.has("move-waiting")), -sheet_of(c).characteristics.DEX, -tiebreak(state, c.handle), i, c.handle)
            for i, c in enumerate(state.combatants.values())]
    order = [r[-1] for r in sorted(rows)]
    for c in state.combatants.values():  # "gains movement initiative over the defeated target" (seed 002 "MOVE")
        for x in c.conditions:
            loser = x.id.split(":", 1)[1] if x.name == "initiative-over" else ""
            if loser in order and order.index(c.handle) > order.index(loser):
                order.remove(c.handle)
                order.insert(order.index(loser), c.handle)
    return order


def reach(c: Combatant, other: str) -> int:
    """The fighting distance in metres between ``c`` and ``other`` when
    engaged (1 if no reach was recorded), 0 when not engaged."""
    if other not in c.engaged:
        return 0
    x = next((x for x in c.conditions if x.id == f"reach:{other}"), None)
    return x.effects.get("metres", 1) if x else 1


def adjacent_since_round_began(state: State, c: Combatant, other: str) -> bool:
    """Whether ``c`` has been within 1 m of ``other`` since before this round
    (its ``reach`` condition at 1 m dates from an earlier round): seed 002 "If
    a character with a missile weapon starts the melee round adjacent to an
    opponent"."""
    x = next((x for x in c.conditions if x.id == f"reach:{other}"), None)
    return other in c.engaged and reach(c, other) == 1 and x is not None and x.since_round < state.round


def reach_events(draft: Draft, a: str, b: str, metres: int) -> list[ev.Event]:
    """Conditions recording the fighting distance of ``a`` and ``b`` (a new
    distance ends a closing between them)."""
    s = draft.state
    out = unclose_events(s, a, b, "a new fighting distance")
    for x, y in ((a, b), (b, a)):
        out.append(ev.ConditionApplied(handle=x, condition=cat.make(
            "reach", cause=draft.next_version, round=s.round, step=s.step, ends="event", key=y,
            effects={"metres": metres}, note=f"{metres} m from {s.combatants[y].name}")))
    return out


def unclose_events(state: State, a: str, b: str, why: str) -> list[ev.Event]:
    """``ConditionExpired`` for the ``closed`` conditions between ``a`` and
    ``b`` (either way round), if any."""
    return [ev.ConditionExpired(handle=x, condition_id=f"closed:{y}", reason=why)
            for x, y in ((a, b), (b, a)) if any(c.id == f"closed:{y}" for c in state.combatants[x].conditions)]


def end_engagement(draft: Draft, a: str, b: str, why: str) -> None:
    """``a`` and ``b`` are no longer engaged: the engagement, their fighting
    distance and any closing between them end."""
    draft.emit(ev.EngagementChanged(a=a, b=b, engaged=False))
    draft.emit(*unclose_events(draft.state, a, b, why))
    expire(draft, a, f"reach:{b}", why)
    expire(draft, b, f"reach:{a}", why)


def long_weapon_against(c: Combatant, o: Combatant) -> float:
    """The length of ``o``'s longest declared Melee Attack weapon when it is
    a long weapon against ``c`` (2 m or more, and engaging further than
    ``c``'s own), else 0 (seed 002 "MANEUVER SKILL": "an opponent using a
    longer weapon, such as a long spear against a sword")."""
    length = longest_declared_weapon(o)
    if engagement_range(length) >= 2 and engagement_range(length) > engagement_range(longest_declared_weapon(c)):
        return length
    return 0.0


def is_closed(state: State, c: Combatant, o: Combatant) -> bool:
    """Whether ``c`` has closed inside ``o``'s long weapon (seed 002
    "MANEUVER SKILL"): it won the contest into ``o``'s hex (a ``closed``
    condition; on the map while they share the hex), or it is within 1 m of
    a weapon of 3 m or more ("characters within 1 meter ... should be
    treated as closed"), except in a lance charge: the pike strikes the
    charger first, the charging lance strikes before shorter weapons
    ("Lance charge")."""
    if o.handle not in c.engaged or reach(c, o.handle) > 1:
        return False
    if engagement_range(longest_declared_weapon(o)) >= 3:
        return not c.has("lance-charge") and not o.has("lance-charge")
    if not any(x.id == f"closed:{o.handle}" for x in c.conditions):
        return False
    pc, po = position(c), position(o)
    return pc is None or po is None or pc[:2] == po[:2]


def longest_declared_weapon(c: Combatant) -> float:
    """The longest weapon ``c`` declared a Melee Attack with (0 if none):
    what sets the range at which others become engaged (seed 002 "RULES OF
    ENGAGEMENT")."""
    best = 0.0
    for d in declared(c):
        if d.kind == "attack" and d.weapon and not d.used:
            try:
                best = max(best, weapon_of(c, d.weapon).length)
            except RuleError:
                continue
    return best


def engagement_range(length: float) -> int:
    """Metres at which a weapon of ``length`` engages: 1 under 2 m, 2 from
    2 m, 3 from 3 m (seed 002 "RULES OF ENGAGEMENT")."""
    return 3 if length >= 3 else 2 if length >= 2 else 1


def modifiers_total(base: int, mods) -> int:
    """``base`` plus every modifier, in percent (never below 0)."""
    return max(0, base + sum(m.value for m in mods))


def test(draft: Draft, handle: str, skill_name: str, base: int, mods: tuple[ev.Modifier, ...] = (),
         purpose: str = "", *, flexible: bool = False, factor: tuple[int, int] = (1, 1)) -> str:
    """Roll 1D100 for ``handle`` against ``base`` (times ``factor``, e.g.
    (1, 2) for half) plus ``mods``, emit ``SkillTested`` and return the level
    of success (rules-reference.md C1; thresholds from the modified skill,
    ruling ``thresholds_from``)."""
    c = draft.state.combatants[handle]
    scaled = base * factor[0] // factor[1]
    target = modifiers_total(scaled, mods)
    roll = draft.roll("1D100", purpose or f"{skill_name}: {c.name}", by=handle).total
    result = tables.level(roll, target, flexible=flexible)
    draft.emit(ev.SkillTested(handle=handle, skill=skill_name, base=scaled, target=target, roll=roll,
                              result=result, purpose=purpose, modifiers=tuple(mods)))
    return result


def resist(draft: Draft, handle: str, active: int, passive: int, purpose: str) -> bool:
    """A resistance roll of ``active`` against ``passive`` (rules-reference.md
    C2; ruling ``resistance_limits``): 1D100 against 50 + 5 x difference,
    clamped 5-95. Emits the roll and a ``SkillTested`` named "resistance"."""
    chance = tables.resistance_chance(active, passive)
    roll = draft.roll("1D100", purpose, by=handle).total
    ok = roll <= chance and roll < 96
    draft.emit(ev.SkillTested(handle=handle, skill="resistance", base=chance, target=chance, roll=roll,
                              result="success" if ok else "failure", purpose=purpose))
    return ok


def succeeded(level: str) -> bool:
    """Success, special or critical."""
    return is_success(level)


def skill_of(c: Combatant, name: str) -> int:
    """A skill in percent from the sheet (base chance if absent)."""
    return skill(sheet_of(c), name)


def derived(c: Combatant):
    """The derived figures of ``c``'s sheet (rq3 sheet.derive)."""
    return derive(sheet_of(c))


def total_hp_left(c: Combatant) -> int:
    """Total HP now: total HP less the damage taken by every location, a
    limb counting at most twice its HP (RQ3; rules-reference.md C7)."""
    total = derived(c).total_hp
    lost = 0
    for loc in c.locations:
        taken = loc.max_hp - loc.hp
        if loc.limb:
            taken = min(taken, 2 * loc.max_hp)
        lost += max(0, taken)
    return total - lost


def condition(draft: Draft, handle: str, name: str, *, ends: str = "round-end", effects: dict | None = None,
              note: str = "", key: str = "", location: str = "") -> None:
    """Emit ``ConditionApplied`` for a catalogue condition on ``handle``."""
    s = draft.state
    draft.emit(ev.ConditionApplied(handle=handle, condition=cat.make(
        name, cause=draft.next_version, round=s.round, step=s.step, ends=ends, effects=effects, note=note,
        key=key, location=location)))


def expire(draft: Draft, handle: str, condition_id: str, reason: str) -> None:
    """End condition ``condition_id`` on ``handle`` if it is there."""
    c = draft.state.combatants[handle]
    if any(x.id == condition_id for x in c.conditions):
        draft.emit(ev.ConditionExpired(handle=handle, condition_id=condition_id, reason=reason))


def spell_ap(c: Combatant) -> int:
    """Armour points protective spells give ``c`` on every location (the
    ``protective-spell`` conditions the GM set; seed 002 "CRITICAL HITS",
    "GRAPPLING")."""
    return c.effect("spell-ap")


def bonus(c: Combatant) -> int:
    """Percent added to attacks and defences this round by conditions
    (terrain used to advantage)."""
    return c.effect("bonus")


def side_of_fight(state: State) -> set[str]:
    """Sides with someone still able to fight."""
    return {c.side for c in fighters(state)}


# --------------------------------------------------------------------------- #
# the exchange: what attack, defence and damage pass to each other
# --------------------------------------------------------------------------- #


def exchange_kind(kind: str, mode: str, slot: int, flags: tuple[str, ...] = ()) -> str:
    """``Exchange.kind`` for an attack: ``attack:slash:1``, with flags
    after a fourth colon (``missile:impale:1:point-blank``): ``point-blank``,
    ``high-ground`` (1D10+10 locations), ``wall``/``solid-wall`` (what is
    behind the target)."""
    return f"{kind}:{mode}:{slot}" + (":" + ",".join(flags) if flags else "")


def kind_parts(kind: str) -> tuple[str, str, int]:
    """``(kind, mode, slot)`` of an ``Exchange.kind``."""
    k, _, rest = kind.partition(":")
    mode, _, rest = rest.partition(":")
    slot, _, _ = rest.partition(":")
    return k, mode, int(slot or 0)


def kind_flags(kind: str) -> set[str]:
    """The flags of an ``Exchange.kind`` (see :func:`exchange_kind`)."""
    parts = kind.split(":", 3)
    return set(parts[3].split(",")) if len(parts) > 3 and parts[3] else set()


def weapon_ap(c: Combatant, w: Weapon) -> int:
    """A weapon's armour points now (less what it lost)."""
    lost = next((x.effects.get("ap-lost", 0) for x in c.conditions if x.id == f"weapon-damaged:{w.name}"), 0)
    return max(0, w.ap - lost)


def damage_step(state: State, level: str, *, block: int = 0, block_all: bool = False, parry_weapon: str = "",
                parry_level: str = "", tactic: str = "", free_dodge: bool = False,
                tactic_option: str = "") -> ev.PendingStep:
    """The attacker's damage roll after a hit of ``level`` (success,
    special, critical or maximum), with what a parry stopped: ``block``
    points (the parrying weapon's AP), ``block_all`` (a critical parry),
    the ``parry_weapon``, its ``parry_level`` and ``tactic`` (and the
    declared ``tactic_option``: ``damage`` for @Swordbreaking). Dice, in
    order: the d20 hit location (1D10+10 from high ground), the weapon's
    dice (twice for an impaling special), the damage modifier's dice."""
    x = state.exchange
    a = state.combatants[x.attacker]
    kind, mode, _ = kind_parts(x.kind)
    w = weapon_of(a, x.weapon)
    mode, _, aimed_at = base_mode(mode)
    if mode in ("disarm", "disarm-dex"):
        t = state.combatants[x.target]
        needs = (ev.DiceNeed(f"disarm: {a.name} against {t.name}", "1D100", by=x.attacker),
                 ev.DiceNeed("where the weapon lands (1D6-1 m)", "1D6", by=x.attacker))
        return ev.PendingStep(
            who=x.attacker, verb="roll", kind="disarm", exchange=x.id, data={"level": level, "mode": mode},
            dice=needs if level in ("special", "critical", "maximum") else (),
            prompt=f"{a.name}'s disarm: the resistance roll: affray roll")
    if mode == "grapple":
        parried = {"parry-weapon": parry_weapon, "parry-level": parry_level} if parry_weapon else {}
        return ev.PendingStep(
            who=x.attacker, verb="roll", kind="grapple-hold", exchange=x.id, data={"level": level, **parried},
            dice=(ev.DiceNeed(f"location grasped: {state.combatants[x.target].name}", "1D20", by=x.attacker),),
            prompt=f"{a.name}'s grapple holds: roll the location grasped: affray roll")
    high = "high-ground" in kind_flags(x.kind)
    dice = []
    if free_dodge:
        dice.append(ev.DiceNeed(f"@Weave: {state.combatants[x.target].name}'s free dodge", "1D100", by=x.target))
    chosen = mode == "aimed" or (mode == "@aimed-blow" and level in ("special", "critical"))
    at_weapon = mode == "break" or (mode == "@entangle" and aimed_at == "weapon")
    rolled_first = blow_location(state.combatants[x.target], x.id)
    if not at_weapon and not (chosen and aimed_at) and not rolled_first:
        dice.append(ev.DiceNeed(f"hit location: {state.combatants[x.target].name}", "1D10" if high else "1D20",
                                by=x.attacker))
    if mode != "slam" and (mode != "bash" or bash_adds_weapon(state, w)):
        dice.append(ev.DiceNeed(f"damage: {w.name}", w.damage, by=x.attacker))
    if mode == "impale" and level in ("special", "critical"):
        dice.append(ev.DiceNeed(f"impale (second roll): {w.name}", w.damage, by=x.attacker))
    db = blow_damage_modifier(state, a).lstrip("+-")
    if db and mode not in ("slam", "bash") and not (kind == "missile" and not w.thrown):
        dice.append(ev.DiceNeed("damage modifier", db, by=x.attacker))
    t = state.combatants[x.target]
    breaker = tactic == "@swordbreaking" and parry_level in ("special", "critical") and bool(parry_weapon)
    if breaker and tactic_option == "damage":
        # seed 002 "@Swordbreaking": the swordbreaker's damage plus damage bonus to the caught weapon's AP
        pw = weapon_of(t, parry_weapon)
        dice.append(ev.DiceNeed(f"@Swordbreaking: {pw.name} damages the {x.weapon}", pw.damage, by=x.target))
        tdb = derived(t).damage_modifier
        if tdb.lstrip("+-"):
            dice.append(ev.DiceNeed(f"@Swordbreaking: {t.name}'s damage modifier", tdb.lstrip("+-"), by=x.target))
    elif breaker:
        if parry_level == "special":
            dice.append(ev.DiceNeed(f"@Swordbreaking: {t.name} STR against {a.name} STR", "1D100", by=x.target))
        dice.append(ev.DiceNeed("where the caught weapon lands (1D3-1 m)", "1D3", by=x.target))
    if tactic == "@active" and parry_level == "special" and parry_weapon:
        pw = weapon_of(t, parry_weapon)
        if pw.blade != "none":
            dice.append(ev.DiceNeed(f"@Active Parry: {pw.name} strikes the {x.weapon}", pw.damage, by=x.target))
    if mode == "@entangle" and level in ("special", "critical"):
        dice.append(ev.DiceNeed(f"@Entangle: {a.name} STR against {t.name} STR", "1D100", by=x.attacker))
        if aimed_at == "weapon":
            dice.append(ev.DiceNeed("where the entangled weapon lands (1D6-1 m)", "1D6", by=x.attacker))
    if mode == "slam" and level == "critical":
        dice.append(ev.DiceNeed(f"DEX x1: {t.name} stays standing", "1D100", by=x.target))
        dice.append(ev.DiceNeed(f"DEX x1: {t.name} keeps hold of what it holds", "1D100", by=x.target))
    data: dict[str, str | int] = {"level": level, "block": block, "block-all": int(block_all), "free-dodge": int(free_dodge)}
    if chosen and aimed_at:
        data["location"] = aimed_at
    elif rolled_first and not at_weapon:
        data.update({"location": rolled_first, "location-first": 1})
    if parry_weapon:
        data.update({"parry-weapon": parry_weapon, "parry-level": parry_level, "tactic": tactic})
    if tactic_option:
        data["tactic-option"] = tactic_option
    return ev.PendingStep(who=x.attacker, verb="roll", kind="damage", exchange=x.id, dice=tuple(dice), data=data,
                          prompt=f"{a.name} rolls damage ({level} hit with {w.name}, {mode}): affray roll")


def bash_adds_weapon(state: State, w: Weapon) -> bool:
    """Whether ``w``'s rolled damage adds to a Bash's knockback (seed 002
    "Bash": "Thrusting weapons must be used in a crushing or cutting mode
    (staff or halberd) to effectively add to a Bash attempt, and smaller
    weapons (SR 3) are generally ineffective"; ruling ``bash_weapon``)."""
    if rulings_of(state).bash_weapon == "any":
        return True
    return bool({"slash", "crush"} & set(w.modes)) and w.sr < 3


def blow_location(c: Combatant, exchange: int) -> str:
    """The hit location rolled for exchange ``exchange`` on ``c`` before its
    reaction (ruling ``large_limb_location``), or ""."""
    return next((x.location for x in c.conditions if x.name == "blow-location" and x.id.endswith(f":{exchange}")), "")


def abort_events(draft: Draft, handle: str, d: Declared, how: str, replacement: str) -> None:
    """Record the abort of ``d``: the event, the declared action marked,
    and the intent's one special abort spent (and, for a Movement Abort,
    one more movement category)."""
    c = draft.state.combatants[handle]
    draft.emit(rev.ActionAborted(handle=handle, slot=d.slot, abort=how, replacement=replacement))
    draft.emit(declared_condition(draft, handle, msgspec.structs.replace(d, abort=how)))
    if how != "plain":
        intent = intent_of(c)
        effects = dict(intent.effects, aborted=1)
        if how == "movement":
            effects["post-moves"] = min(3, intent.effects.get("moves", 1) + 1)
        condition(draft, handle, "intent", effects=effects, note=intent.note + f"; {how} abort")


def end_exchange(draft: Draft, summary: str = "") -> None:
    """Close the exchange in progress (if any) and hand the table over."""
    x = draft.state.exchange
    if x is not None:
        draft.emit(ev.ExchangeEnded(exchange=x.id, summary=summary))
    draft.hand_over()


def fall_skill(c: Combatant) -> tuple[str, int]:
    """The better of Acrobatics and Breakfall (seed 002 "FALLEN
    CHARACTERS"), as ``(name, percent)``; 0 when neither is on the sheet."""
    sheet = sheet_of(c)
    a, b = sheet.skills.get("Acrobatics", 0), sheet.skills.get("Breakfall", 0)
    return ("Breakfall", b) if b > a else ("Acrobatics", a)


def breakfall_step(state: State, handle: str, during: str) -> ev.PendingStep | None:
    """The Acrobatics or Breakfall roll a character who just fell may make
    (seed 002 "FALLEN CHARACTERS"), or None without the skill. ``during``
    is ``melee`` (success: may stand in the Post Melee Move) or ``move``
    (success: the fall is negated)."""
    c = state.combatants[handle]
    name, value = fall_skill(c)
    if value <= 0 or not c.can_fight:
        return None
    return ev.PendingStep(who=handle, verb="roll", kind="breakfall", data={"during": during},
                          dice=(ev.DiceNeed(f"{name}: {c.name} breaks the fall", "1D100", by=handle),),
                          prompt=f"{c.name} fell: {name} to {'stand in the Post Melee Move' if during == 'melee' else 'negate the fall'}: affray roll")


def free_attack(draft: Draft, handle: str, target: str, weapon: str, sr: int, why: str, *, auto: str = "") -> None:
    """A free attack that "does not count as an action" (seed 002 "@Riposte",
    "@Counter", "@Flurry"): a declared attack on a spare slot (20 and up)
    at ``sr`` in the weapon's default mode; ``auto`` is ``auto`` (the blow
    hits even on a miss; a fumble is a simple miss) or ``sure`` (a miss or
    fumble is a normal hit)."""
    c = draft.state.combatants[handle]
    w = weapon_of(c, weapon)
    slot = max([d.slot for d in declared(c)] + [19]) + 1
    mode = (f"{auto}-" if auto else "") + (w.modes[0] if w.modes else "crush")
    draft.emit(declared_condition(draft, handle, Declared(slot=slot, kind="attack", target=target, weapon=w.name,
                                                          mode=mode, sr=min(10, sr))))
    draft.emit(rev.SpecialApplied(exchange=draft.state.exchange.id if draft.state.exchange else 0, by=handle,
                                  effect=why, detail=f"a free attack with {w.name} at SR {min(10, sr)}"
                                  + (" that hits even on a miss" if auto else "")))


def base_mode(mode: str) -> tuple[str, str, str]:
    """``(mode, auto, location)`` of a declared mode: ``auto-slash`` ->
    ("slash", "auto", ""), ``aimed/head`` -> ("aimed", "", "head")."""
    auto = ""
    for prefix in ("auto-", "sure-"):
        if mode.startswith(prefix):
            auto, mode = prefix[:-1], mode[len(prefix):]
    mode, _, where = mode.partition("/")
    return mode, auto, where


def is_lance(w: Weapon) -> bool:
    """A lance, by its weapon-table entry or name."""
    return "lance" in (w.type or w.name).lower()


def blow_damage_modifier(state: State, a: Combatant) -> str:
    """The damage modifier a blow of ``a`` adds: its own, or its mount's in
    an all-out lance charge (seed 002 "Lance charge": "the riding animal's
    damage bonus is used instead of that of the rider")."""
    charge = next((x for x in a.conditions if x.name == "lance-charge"), None)
    mount = next((x.id.split(":", 1)[1] for x in a.conditions if x.name == "mounted"), "")
    if charge is not None and mount in state.combatants:
        return derived(state.combatants[mount]).damage_modifier
    return derived(a).damage_modifier


# --------------------------------------------------------------------------- #
# the hex map (optional; DESIGN.md "Positions"): 1 m hexes, axial coordinates
# --------------------------------------------------------------------------- #

#: The six hex sides a figure can face or step through, in turning order
#: (pointy-top hexes, axial ``(dq, dr)``; "e" is +x, "nw"/"ne" are up).
DIRECTIONS = (("e", 1, 0), ("ne", 1, -1), ("nw", 0, -1), ("w", -1, 0), ("sw", -1, 1), ("se", 0, 1))
DIRECTION_NAMES = tuple(d[0] for d in DIRECTIONS)


def direction(word: str) -> int:
    """The index 0-5 of a direction name (e, ne, nw, w, sw, se) or digit;
    :class:`RuleError` naming them otherwise."""
    w = word.strip().lower()
    if w in DIRECTION_NAMES:
        return DIRECTION_NAMES.index(w)
    if w.isdigit() and int(w) < 6:
        return int(w)
    raise RuleError(f"unknown hex direction {word!r}; use one of {', '.join(DIRECTION_NAMES)}")


def neighbour(q: int, r: int, side: int) -> tuple[int, int]:
    """The hex next to ``(q, r)`` through ``side`` (0-5)."""
    _, dq, dr = DIRECTIONS[side % 6]
    return q + dq, r + dr


def hex_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Metres between two hexes of the 1 m hex map (seed 002 "MOVE": "1
    meter hexes")."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def turns_between(a: int, b: int) -> int:
    """Hex-side facing shifts from facing ``a`` to ``b`` (0-3)."""
    d = (b - a) % 6
    return min(d, 6 - d)


def _xy(q: int, r: int) -> tuple[float, float]:
    return q + r / 2, r * math.sqrt(3) / 2


def bearing(at: tuple[int, int], facing: int, to: tuple[int, int]) -> float:
    """Degrees (0-180) between the facing of a figure at ``at`` and the
    line to hex ``to``."""
    (x0, y0), (x1, y1) = _xy(*at), _xy(*to)
    _, dq, dr = DIRECTIONS[facing % 6]
    fx, fy = _xy(dq, dr)
    angle = math.degrees(math.atan2(y1 - y0, x1 - x0) - math.atan2(fy, fx))
    angle = abs((angle + 180) % 360 - 180)
    return round(angle, 6)


def in_engagement_zone(at: tuple[int, int], facing: int, length: float, hexes: tuple[int, int]) -> bool:
    """Whether hex ``hexes`` lies where a figure at ``at`` facing ``facing``
    with a declared weapon of ``length`` m engages (seed 002 "RULES OF
    ENGAGEMENT"): adjacent in "one of the three front or two side hexes";
    for a 2 m weapon "one of the five secondary front hexes", for a 3 m one
    "one of the seven tertiary front hexes" (within 60 degrees of its
    facing)."""
    d = hex_distance(at, hexes)
    if d == 0 or d > engagement_range(length):
        return False
    limit = 120 if d == 1 else 60
    return bearing(at, facing, hexes) <= limit + 1e-6


def position(c: Combatant) -> tuple[int, int, int] | None:
    """``(q, r, facing)`` of ``c`` on the hex map, or None when not placed."""
    x = next((x for x in c.conditions if x.name == "position"), None)
    if x is None:
        return None
    return x.effects.get("q", 0), x.effects.get("r", 0), x.effects.get("facing", 0)


def on_map(state: State) -> bool:
    """Whether the GM uses the hex map: some combatant has been placed."""
    return any(position(c) is not None for c in state.combatants.values())


def place_event(draft: Draft, handle: str, q: int, r: int, facing: int, why: str) -> ev.ConditionApplied:
    """The ``position`` condition putting ``handle`` at hex ``(q, r)``
    facing ``facing``."""
    s = draft.state
    return ev.ConditionApplied(handle=handle, condition=cat.make(
        "position", cause=draft.next_version, round=s.round, step=s.step, ends="never",
        effects={"q": q, "r": r, "facing": facing % 6},
        note=f"hex {q},{r} facing {DIRECTION_NAMES[facing % 6]}" + (f" ({why})" if why else "")))


def occupant(state: State, hexes: tuple[int, int], but: str = "") -> Combatant | None:
    """The standing-up figure in hex ``hexes`` (a dead or unconscious one is a
    fallen body, crossed as terrain), other than ``but`` and those that may
    share a hex with ``but`` (:func:`sharing`)."""
    for c in state.combatants.values():
        p = position(c)
        if c.handle != but and p is not None and p[:2] == hexes and c.status == "active" and not sharing(state, c.handle, but):
            return c
    return None


def mount_of(c: Combatant) -> str:
    """The handle of the mount ``c`` rides, or ""."""
    return next((x.id.split(":", 1)[1] for x in c.conditions if x.name == "mounted"), "")


def riders_of(state: State, handle: str) -> list[str]:
    """Who rides ``handle``."""
    return [c.handle for c in state.combatants.values() if mount_of(c) == handle]


def paired(state: State, a: str, b: str) -> bool:
    """Whether ``a`` rides ``b`` or ``b`` rides ``a`` (they share a hex on
    the map)."""
    if not a or not b or a not in state.combatants or b not in state.combatants:
        return False
    return mount_of(state.combatants[a]) == b or mount_of(state.combatants[b]) == a


def sharing(state: State, a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` may share a hex: a rider and its mount, or a
    figure closed inside the other's long weapon (seed 002 "MANEUVER SKILL")."""
    if paired(state, a, b):
        return True
    if not a or not b or a not in state.combatants or b not in state.combatants:
        return False
    return any(x.id == f"closed:{y}" for x_, y in ((a, b), (b, a)) for x in state.combatants[x_].conditions)


def distance_between(state: State, a: str, b: str) -> int | None:
    """Metres between two placed combatants, None unless both are placed."""
    pa, pb = position(state.combatants[a]), position(state.combatants[b])
    if pa is None or pb is None:
        return None
    return hex_distance(pa[:2], pb[:2])


def map_move(c: Combatant) -> ev.Condition | None:
    """The ``map-move`` condition of this round (the thirds taken, metres
    used and allowed), or None."""
    return next((x for x in c.conditions if x.name == "map-move"), None)


def reloading(c: Combatant) -> bool:
    """Whether ``c`` declared a Draw Weapon to draw and load a missile
    weapon this round (seed 002 "6. Draw weapon")."""
    for d in declared(c):
        if d.kind == "draw" and not d.abort:
            try:
                w = weapon_of(c, d.weapon)
            except RuleError:
                continue
            if w.kind == "missile" and not w.thrown:
                return True
    return False


def allowance(c: Combatant, moves: int, *, engaged_at_start: bool, rate: int = 0) -> tuple[int, str]:
    """Metres ``c`` may move in one Move (or Post Melee Move) Phase, and why
    it is limited (seed 002 "MOVE"): the movement rate times the declared
    moves (ruling ``movement_allowance``: per Move Phase); a third of it
    (ruling ``third_move``: rounded down, at least 1) when it begins the
    phase engaged, reloads a missile weapon or concentrates on a spell;
    Mobility adds to the total ("not to one's basic movement"). ``rate``
    replaces the sheet's movement rate (a rider moves at its mount's:
    ruling ``mounted_map``)."""
    intent = intent_of(c)
    full = (rate or sheet_of(c).move) * moves
    why = ""
    if reloading(c):
        why = "reloading a missile weapon"
    elif intent is not None and intent.effects.get("concentrate"):
        why = "concentrating on a spell"
    elif engaged_at_start:
        why = "began the Move Phase engaged"
    metres = max(1, full // 3) if why else full
    mobility = intent.effects.get("mobility", 0) if intent is not None else 0
    return metres + mobility, why


def carry_mount(draft: Draft, handle: str, q: int, r: int, facing: int, spent: int, why: str) -> None:
    """The mount of a rider who moved goes with it, to the same hex and
    facing (ruling ``mounted_map``)."""
    m = mount_of(draft.state.combatants[handle])
    if not m or position(draft.state.combatants[m]) is None:
        return
    name = draft.state.combatants[handle].name
    if position(draft.state.combatants[m]) != (q, r, facing):
        draft.emit(place_event(draft, m, q, r, facing, f"carries {name}"))
    if spent:
        draft.emit(ev.CombatantMoved(handle=m, distance=float(spent), reason=f"{why}: carries {name}"))


def step_to(draft: Draft, handle: str, foe: str, metres: int, why: str) -> None:
    """On the hex map, put ``handle`` (and its mount) in the free hex
    ``metres`` from ``foe`` nearest to where it stands, facing the foe, and
    count the hexes crossed against its movement; nothing off the map or
    when no such hex is free."""
    state = draft.state
    c, o = state.combatants[handle], state.combatants[foe]
    here, there = position(c), position(o)
    if here is None or there is None or hex_distance(here[:2], there[:2]) == metres:
        return
    ring = [(there[0] + dq, there[1] + dr) for dq in range(-metres, metres + 1) for dr in range(-metres, metres + 1)
            if hex_distance((0, 0), (dq, dr)) == metres]
    free = [h for h in ring if occupant(state, h, but=handle) is None]
    if not free:
        return
    to = min(free, key=lambda h: (hex_distance(here[:2], h), h))
    cost = hex_distance(here[:2], to)
    facing = min(range(6), key=lambda k: bearing(to, k, there[:2]))
    draft.emit(place_event(draft, handle, to[0], to[1], facing, why))
    draft.emit(ev.CombatantMoved(handle=handle, distance=float(cost), reason=why))
    carry_mount(draft, handle, to[0], to[1], facing, cost, why)
    mm = map_move(draft.state.combatants[handle])
    if mm is not None:
        used = mm.effects.get("used", 0) + cost
        condition(draft, handle, "map-move", effects=dict(mm.effects, used=used),
                  note=f"{used} of {mm.effects.get('allow', 0)} m: {why}")


def step_into(draft: Draft, handle: str, foe: str, why: str) -> None:
    """On the hex map, put ``handle`` (and its mount) into ``foe``'s hex,
    keeping its facing, 1 m counted against its movement (seed 002 "MANEUVER
    SKILL": closing "into the opponents hex"); nothing off the map."""
    here, there = position(draft.state.combatants[handle]), position(draft.state.combatants[foe])
    if here is None or there is None or here[:2] == there[:2]:
        return
    draft.emit(place_event(draft, handle, there[0], there[1], here[2], why))
    draft.emit(ev.CombatantMoved(handle=handle, distance=1.0, reason=why))
    carry_mount(draft, handle, there[0], there[1], here[2], 1, why)
    mm = map_move(draft.state.combatants[handle])
    if mm is not None:
        used = mm.effects.get("used", 0) + 1
        condition(draft, handle, "map-move", effects=dict(mm.effects, used=used),
                  note=f"{used} of {mm.effects.get('allow', 0)} m: {why}")


def drop_apart_closings(draft: Draft, handle: str, why: str) -> None:
    """On the map, end the closings of ``handle`` (either way round) with
    foes no longer in its hex (seed 002 "MANEUVER SKILL": closed is inside
    the wielder's hex)."""
    s = draft.state
    for c in list(s.combatants.values()):
        for x in c.conditions:
            if x.name != "closed":
                continue
            other = x.id.split(":", 1)[1]
            if handle in (c.handle, other) and distance_between(s, c.handle, other) not in (None, 0):
                draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=x.id, reason=why))


def mount_rate(state: State, c: Combatant) -> int:
    """The movement rate of the mount ``c`` rides (0 when on foot)."""
    m = mount_of(c)
    return sheet_of(state.combatants[m]).move if m in state.combatants else 0


def open_map_phase(draft: Draft) -> None:
    """Open the Move Phase on the map: each fighter's allowance, fixed as
    the phase begins (seed 002: "A character who begins the Move Phase
    engaged can only move 1/3"), as a ``map-move`` condition."""
    for c in fighters(draft.state):
        if c.has("moved") or map_move(c) is not None:
            continue
        intent = intent_of(c)
        moves = intent.effects.get("moves", 1) if intent is not None else 1
        metres, why = allowance(c, moves, engaged_at_start=bool(c.engaged), rate=mount_rate(draft.state, c))
        condition(draft, c.handle, "map-move",
                  effects={"allow": metres, "used": 0, "pass": 0,
                           "limited-by-engagement": int(why == "began the Move Phase engaged")},
                  note=f"{metres} m this Move Phase" + (f"; {why}" if why else ""))


def _left(c: Combatant) -> int:
    """Metres ``c`` has left this Move Phase on the map (0 once it moved)."""
    mm = map_move(c)
    if mm is None or c.has("moved"):
        return 0
    return max(0, mm.effects.get("allow", 0) - mm.effects.get("used", 0))


def conceivably_reach(state: State) -> bool:
    """Whether two hostile figures on the map "come within a range where
    they could conceivably reach each other" this Move Phase (seed 002
    "MOVEMENT INITIATIVE"; ruling ``map_thirds`` = in-reach): their distance,
    less the engagement range of the longer weapon either declared a Melee
    Attack with (at least 1 m), is no more than the metres both have left."""
    placed = [(c, position(c)) for c in fighters(state)]
    placed = [(c, p) for c, p in placed if p is not None]
    for i, (a, pa) in enumerate(placed):
        for b, pb in placed[i + 1:]:
            if a.side == b.side:
                continue
            gap = hex_distance(pa[:2], pb[:2]) - engagement_range(max(longest_declared_weapon(a), longest_declared_weapon(b)))
            if gap <= _left(a) + _left(b):
                return True
    return False


def in_thirds(state: State) -> bool:
    """Whether the Move Phase on the map goes in alternating thirds now
    (seed 002 "MOVEMENT INITIATIVE": "Once hostile characters come within a
    range where they could conceivably reach each other, ... alternate
    moving ... 1/3 of their current movement rate ... until all movement is
    completed"). Ruling ``map_thirds``: ``in-reach`` (the seed:
    :func:`conceivably_reach`, and once the thirds began they go on to the
    end of the phase) or ``always``."""
    if rulings_of(state).map_thirds == "always":
        return True
    if any((mm := map_move(c)) is not None and mm.effects.get("thirds") for c in fighters(state)):
        return True
    return conceivably_reach(state)


def finish_move(draft: Draft, handle: str, note: str, *, freed: bool = False) -> None:
    """A Move Phase step is over: without a map the fighter has moved; on
    the map it has taken one of its three thirds (ruling ``map_thirds``),
    and has moved after the third. ``freed``: it won a contest of Maneuver
    to disengage or pass, and "can move normally" (seed 002 "MOVE")."""
    c = draft.state.combatants[handle]
    mm = map_move(c)
    if mm is not None and not c.has("moved"):
        thirds = in_thirds(draft.state)
        taken = mm.effects.get("pass", 0) + 1 if thirds else 3  # ruling map_thirds: out of reach, the whole move
        effects = dict(mm.effects, **{"pass": taken, "thirds": int(thirds)})
        if freed and effects.get("limited-by-engagement"):
            intent = intent_of(c)
            full, _ = allowance(c, intent.effects.get("moves", 1) if intent is not None else 1, engaged_at_start=False,
                                rate=mount_rate(draft.state, c))
            effects.update({"allow": full, "limited-by-engagement": 0})
        condition(draft, handle, "map-move", effects=effects,
                  note=f"{effects.get('used', 0)} of {effects.get('allow', 0)} m after third {taken}: {note}")
        if taken < 3:
            return
    condition(draft, handle, "moved", note=note)


def move_queue(state: State) -> list[str]:
    """Who moves next, first: movement initiative order (DEX); on the map
    by thirds, everyone's first third before anyone's second (ruling
    ``map_thirds``)."""
    order = movement_order(state)
    todo = [h for h in order if state.combatants[h].can_fight and not state.combatants[h].has("moved")]
    if not on_map(state):
        return todo
    def taken(h: str) -> int:
        mm = map_move(state.combatants[h])
        return mm.effects.get("pass", 0) if mm is not None else 0
    return sorted(todo, key=lambda h: (taken(h), order.index(h)))
