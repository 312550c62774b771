"""What the uesrpg rule modules share: state queries, the d100 test with
Degrees of Success, Combat Style TNs and modifiers, Action Points, and the
end of an exchange.

Sources: rules-reference.md D1-D5 (tests, DoS, DoF, criticals, bonuses),
D7 and D13 (which test each defence uses), D11 (Action Points), D12 (the
wound penalty); seed 003 Step 1 (Combat Styles, the -20 outside the style)
and Step 2 (an unaware defender).
"""

import msgspec

from affray.events import core as ev
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError, rulings_reader, unreadable_sheet
from affray.rules.base import require_turn as base_require_turn
from affray.rules.d100 import CRITICAL, FAILURE, FUMBLE, SUCCESS
from affray.rules.uesrpg import tables
from affray.rules.uesrpg.rulings import Rulings, from_mapping
from affray.rules.uesrpg.sheet import Sheet, Shield, Spell, Style, Weapon

#: The location that holds a combatant's one pool of HP (the hit locations
#: hold only their AR; rules-reference.md D10-D11).
POOL = "HP"
#: Defences a defender may declare (seed 003 Step 2), and ``none``.
DEFENCES = ("evade", "parry", "block", "counter")

rulings_of = rulings_reader(from_mapping)


class Test(msgspec.Struct, frozen=True):
    """A graded d100 test: ``result`` critical, success, failure or fumble
    (a critical failure) and ``degrees`` (DoS when it passed, DoF when it
    failed); ``roll`` 0 is an automatic failure without a roll."""

    roll: int
    tn: int
    result: str
    degrees: int


def passed(result: str) -> bool:
    """A critical or a plain success."""
    return result in (CRITICAL, SUCCESS)


def dos(roll: int, tn: int) -> int:
    """Degrees of Success: the tens digit of the roll, at least 1, plus the
    tens digit of the TN when the TN is above 100 (rules-reference.md D2)."""
    extra = (tn % 100) // 10 if tn > 100 else 0
    return max(1, roll // 10) + extra


def dof(roll: int, tn: int) -> int:
    """Degrees of Failure: 1 + the tens digit of (roll - TN), at least 1
    (rules-reference.md D3)."""
    return max(1, 1 + (roll - tn) // 10)


def grade(roll: int, tn: int, lucky, unlucky, rulings: Rulings) -> Test:
    """Grade ``roll`` (1-100) against ``tn``: a Lucky Number is a critical
    success and an Unlucky Number a critical failure whatever the TN
    (rules-reference.md D4, ruling ``lucky_above_tn``); otherwise it passes
    when roll <= TN, except a 100 on a TN above 100 under ruling
    ``roll_100_over_tn = failure``."""
    if not 1 <= roll <= 100:
        raise RuleError(f"a d100 is 1-100 (00 is 100); got {roll}")
    if roll in lucky:
        return Test(roll, tn, CRITICAL, dos(roll, tn))
    if roll in unlucky:
        return Test(roll, tn, FUMBLE, dof(roll, tn))
    ok = roll <= tn and not (roll == 100 and tn > 100 and rulings.roll_100_over_tn == "failure")
    if ok:
        return Test(roll, tn, SUCCESS, dos(roll, tn))
    return Test(roll, tn, FAILURE, dof(roll, tn))


def luck_of(c: Combatant) -> tuple[frozenset[int], frozenset[int]]:
    """The Lucky and Unlucky Numbers: those drawn at the start (a
    ``lucky-numbers`` condition, ruling ``lucky_numbers = draw``), the
    sheet's, or for an NPC without them 1-3 and 98-100 (rules-reference.md D4)."""
    drawn = next((k for k in c.conditions if k.name == "lucky-numbers"), None)
    if drawn is not None:
        return (frozenset(int(k[6:]) for k in drawn.effects if k.startswith("lucky:")),
                frozenset(int(k[8:]) for k in drawn.effects if k.startswith("unlucky:")))
    sheet = sheet_of(c)
    lucky = frozenset(sheet.lucky) if sheet.lucky or not sheet.npc else frozenset({1, 2, 3})
    unlucky = frozenset(sheet.unlucky) if sheet.unlucky or not sheet.npc else frozenset({98, 99, 100})
    return lucky, unlucky


def sheet_of(c: Combatant) -> Sheet:
    """The sheet a combatant joined with; :class:`RuleError` when the log's
    copy does not fit this affray."""
    try:
        return msgspec.convert(c.sheet, Sheet)
    except msgspec.ValidationError as exc:
        raise unreadable_sheet(c.name, exc) from None


def fighters(state: State) -> list[Combatant]:
    """Every combatant, in join order."""
    return list(state.combatants.values())


def hp_left(c: Combatant) -> int:
    """The combatant's HP now (the pool location)."""
    return c.location(POOL).hp


def stunned(c: Combatant) -> bool:
    """Stunned by a head wound: no Turn, no defence (rules-reference.md D12)."""
    return bool(c.effect("stunned"))


# --------------------------------------------------------------------------- #
# Weapons, styles and TNs
# --------------------------------------------------------------------------- #


def find_item(sheet: Sheet, name: str) -> Weapon | Shield | Spell:
    """The weapon, shield or spell called ``name`` (case-insensitive, or an
    unambiguous prefix). :class:`RuleError` naming the choices."""
    items = [*sheet.weapons, *sheet.shields, *sheet.spells]
    wanted = name.strip().lower()
    exact = [i for i in items if i.name.lower() == wanted]
    hits = exact or [i for i in items if i.name.lower().startswith(wanted)]
    if len(hits) == 1:
        return hits[0]
    known = ", ".join(i.name for i in items)
    raise RuleError(f"{sheet.name} has no weapon, shield or spell called {name!r} (has: {known})")


def style_of(sheet: Sheet, item: str, wanted: str = "") -> tuple[Style | None, bool]:
    """The Combat Style used with ``item`` and whether the item is inside
    it: the style named ``wanted`` (``--situation style:NAME``), else the
    first that includes the item, else the style with the highest bonus
    (the item then being outside it: -20, seed 003 Step 1)."""
    if wanted:
        for s in sheet.styles:
            if s.name.lower() == wanted.strip().lower():
                return s, item.lower() in (w.lower() for w in s.weapons)
        raise RuleError(f"{sheet.name} has no Combat Style {wanted!r} (has: {', '.join(s.name for s in sheet.styles) or 'none'})")
    for s in sheet.styles:
        if item.lower() in (w.lower() for w in s.weapons):
            return s, True
    best = max(sheet.styles, key=lambda s: s.bonus, default=None)
    return best, False


def characteristic_for(sheet: Sheet, kind: str, rulings: Rulings) -> tuple[str, int]:
    """The characteristic a test uses: melee STR or AGI (ruling
    ``melee_characteristic``), ranged and evade AGI, block STR (seed 003
    Step 1; rules-reference.md D7)."""
    c = sheet.characteristics
    if kind in ("ranged", "evade"):
        return "AGI", c.AGI
    if kind == "block":
        return "STR", c.STR
    if rulings.melee_characteristic == "strength":
        return "STR", c.STR
    if rulings.melee_characteristic == "agility":
        return "AGI", c.AGI
    return ("STR", c.STR) if c.STR >= c.AGI else ("AGI", c.AGI)


def base_tn(sheet: Sheet, kind: str, item: str, rulings: Rulings, style: str = "") -> tuple[str, int, list[ev.Modifier]]:
    """``(test name, base TN, modifiers)`` for a test of ``kind`` (melee,
    ranged, spell, evade, parry, block, counter) with ``item``: a Combat
    Style adds its bonus to the characteristic; a weapon outside the style
    is -20 (seed 003 Step 1, ruling ``outside_style``); a spell uses its
    school's skill; Evade its own bonus over AGI."""
    if kind == "spell":
        spell = find_item(sheet, item)
        assert isinstance(spell, Spell)
        return spell.school, sheet.skills.get(spell.school, 0), []
    if kind == "evade":
        _, agi = characteristic_for(sheet, "evade", rulings)
        return "Evade", agi + sheet.evade, []
    test_kind = {"parry": "melee", "counter": "melee"}.get(kind, kind)
    name, value = characteristic_for(sheet, test_kind, rulings)
    s, inside = style_of(sheet, item, style)
    mods: list[ev.Modifier] = []
    if s is None:
        mods.append(ev.Modifier(-20, "untrained: no Combat Style"))
        return f"untrained ({name})", value, mods
    if not inside:
        mods.append(ev.Modifier(-20, f"{item} is outside {s.name}"))
    return f"{s.name} ({name})", value + s.bonus, mods


def situation_mods(situations) -> tuple[list[ev.Modifier], str]:
    """The modifiers of ``--situation`` keys (difficulty grades D1 and
    melee circumstances D14) and the Combat Style named by ``style:NAME``.
    :class:`RuleError` for an unknown key."""
    mods, style = [], ""
    for raw in situations:
        key = raw.strip().lower()
        if key.startswith("style:"):
            style = raw.split(":", 1)[1].strip()
            continue
        row = tables.DIFFICULTY.get(key) or tables.CIRCUMSTANCES.get(key)
        if row is None:
            known = ", ".join([*tables.DIFFICULTY, *tables.CIRCUMSTANCES])
            raise RuleError(f"unknown situation {raw!r}; use style:NAME or one of {known}")
        if row.value:
            mods.append(ev.Modifier(row.value, row.text or key))
    return mods, style


def split_distance(situations) -> tuple[list[str], float | None]:
    """The ``--situation`` keys without ``distance:METRES``, and that
    distance (None when not given). :class:`RuleError` for a distance that
    is not a number of metres, 0 or more."""
    rest, distance = [], None
    for raw in situations:
        key, _, value = raw.strip().partition(":")
        if key.lower() != "distance":
            rest.append(raw)
            continue
        try:
            distance = float(value)
        except ValueError:
            distance = -1.0
        if not 0 <= distance < float("inf"):
            raise RuleError(f"distance:METRES takes metres, 0 or more (got {value!r}): --situation distance:30")
    return rest, distance


def condition_mods(c: Combatant, *, attack_on: str = "", melee: bool = False) -> list[ev.Modifier]:
    """Modifiers from the bearer's conditions: the wound penalty on every
    test (D12), and on an attack Press Advantage (+10, a melee attack on the
    pressed opponent) and Overextend (-10) (D8)."""
    out = []
    for cond in c.conditions:
        if cond.effects.get("penalty"):
            out.append(ev.Modifier(cond.effects["penalty"], cond.name))
        if attack_on and cond.name == "pressing" and melee and cond.effects.get(f"from:{attack_on}"):
            out.append(ev.Modifier(cond.effects.get("attack-bonus", 10), "Press Advantage"))
        if attack_on and cond.name == "overextended":
            out.append(ev.Modifier(cond.effects.get("attack-penalty", -10), "Overextended"))
    return out


def total(base: int, mods) -> int:
    """The TN after modifiers, never below 0 (rules-reference.md D1:
    modifiers add together)."""
    return max(0, base + sum(m.value for m in mods))


def pack_mods(mods) -> str:
    """Modifiers as one string for a pending step's data (``v:reason``
    joined by ``|``)."""
    return "|".join(f"{m.value}:{m.reason.replace('|', '/')}" for m in mods)


def unpack_mods(text: str) -> tuple[ev.Modifier, ...]:
    """The modifiers :func:`pack_mods` packed."""
    out = []
    for part in filter(None, str(text).split("|")):
        value, _, reason = part.partition(":")
        out.append(ev.Modifier(int(value), reason))
    return tuple(out)


# --------------------------------------------------------------------------- #
# Action Points and the flow
# --------------------------------------------------------------------------- #


def attack_spends(draft: Draft, attacker: str, target: str, *, melee: bool) -> None:
    """An attack uses up Overextend (its next attack) and, in melee, Press
    Advantage against that target (rules-reference.md D8)."""
    for cond in draft.state.combatants[attacker].conditions:
        if cond.name == "overextended" or (cond.name == "pressing" and melee and cond.effects.get(f"from:{target}")):
            draft.emit(ev.ConditionExpired(handle=attacker, condition_id=cond.id, reason="used by this attack"))


def spend_ap(draft: Draft, handle: str, reason: str) -> None:
    """Spend 1 Action Point (ruling ``ap_costs``: 1 AP for an attack, a
    spell or a defence)."""
    draft.emit(ev.ActionSpent(handle=handle, kind="combat-action", reason=reason))


def can_defend(state: State, c: Combatant) -> str:
    """Why ``c`` cannot defend ("" when it can): it must be aware of the
    attack (seed 003 Step 2), able to fight, not stunned, and have an AP."""
    if not c.can_fight:
        return f"{c.name} is {c.status}"
    if c.effect("unaware"):
        return f"{c.name} is unaware of the attack"
    if stunned(c):
        return f"{c.name} is stunned"
    if c.combat_actions <= 0:
        return f"{c.name} has no Action Points left"
    return ""


def pending(state: State, verb: str, who: str = "") -> ev.PendingStep | None:
    """The first pending step with ``verb`` (and ``who``, when given)."""
    return next((s for s in state.pending if s.verb == verb and (not who or s.who == who)), None)


def finish_exchange(draft: Draft, summary: str) -> None:
    """End the exchange (if one is open), clear the steps and hand the table
    to the turn order."""
    x = draft.state.exchange
    if x is not None:
        draft.emit(ev.ExchangeEnded(exchange=x.id, summary=summary))
    draft.emit(ev.StepsAwaited(steps=()))
    draft.hand_over()


def exchange_kind(x) -> tuple[str, dict[str, str]]:
    """The base kind of an exchange (melee, ranged, spell, opportunity) and
    its ``;key=value`` options (``style``, ``test``, ``tn``)."""
    parts = (x.kind if x is not None else "melee").split(";")
    opts = dict(p.partition("=")[::2] for p in parts[1:])
    return parts[0], opts


def is_melee(x) -> bool:
    """A melee exchange (an attack of opportunity is one too): only melee
    gains or uses Advantage (seed 003 Step 3, Step 4)."""
    return exchange_kind(x)[0] in ("melee", "opportunity")


def unusable_limbs(state: State, c: Combatant) -> set[str]:
    """What a crippled or lost limb takes away under ruling
    ``crippled_limbs = unusable`` (rules-reference.md D12 names the
    conditions, not their effect): ``weapon arm`` (the arm that is not the
    shield arm), ``shield arm``, ``leg``. Empty under ``recorded``."""
    if rulings_of(state).crippled_limbs != "unusable":
        return set()
    shield_arm = sheet_of(c).shield_arm
    out = set()
    for k in c.conditions:
        if k.name in ("crippled-limb", "lost-limb"):
            if k.location.endswith("leg"):
                out.add("leg")
            elif k.location.endswith("arm"):
                out.add("shield arm" if k.location == shield_arm else "weapon arm")
    return out


def limb_refusal(c: Combatant, limb: str, what: str) -> RuleError:
    """The one line refusing ``what`` because ``limb`` is crippled or lost."""
    return RuleError(f"{c.name}'s {limb} is crippled or lost (ruling crippled_limbs = unusable): {what}")


def blocking_shields(sheet: Sheet) -> list[Shield]:
    """Shields that can block (a buckler cannot, D13)."""
    return [s for s in sheet.shields if tables.SHIELD_VARIANTS[s.variant].can_block]


def melee_weapons(sheet: Sheet) -> list[Weapon]:
    """The sheet's melee weapons (to parry, counter-attack or strike an
    attack of opportunity with)."""
    return [w for w in sheet.weapons if w.kind == "melee"]


def defence_options(state: State, defender: Combatant, x) -> tuple[str, ...]:
    """The defences ``defender`` may declare against exchange ``x``: Evade
    always; Parry and Counter-Attack against melee with a melee weapon
    (D7 'melee only'; ruling ``defence_vs_ranged``); Block with a shield
    that can block (D13); and ``none``. Under ruling ``crippled_limbs =
    unusable`` a crippled weapon arm takes Parry and Counter-Attack away,
    a crippled shield arm Block."""
    sheet = sheet_of(defender)
    melee = is_melee(x)
    lost = unusable_limbs(state, defender)
    armed = melee and bool(melee_weapons(sheet)) and "weapon arm" not in lost
    out = ["evade"]
    if armed:
        out.append("parry")
    if blocking_shields(sheet) and "shield arm" not in lost:
        out.append("block")
    if armed:
        out.append("counter")
    return tuple(out) + ("none",)


def group_of(x) -> list[str]:
    """The defenders after the first of an attack against several (the
    exchange option ``group``, handles joined by ``+``), in the order named."""
    _, opts = exchange_kind(x)
    return [h for h in opts.get("group", "").split("+") if h]


def member_data(data: dict, handle: str) -> dict:
    """One later defender's part of the tests step's data (keys
    ``HANDLE/defence``, ``HANDLE/tn``, ...), unprefixed."""
    prefix = f"{handle}/"
    return {k[len(prefix):]: v for k, v in data.items() if k.startswith(prefix)}


#: Codes of the ``attacking-several`` condition's effects (whole numbers only).
RESULTS = (CRITICAL, SUCCESS, FAILURE, FUMBLE)
_DEFENCE_CODES = ("none", *DEFENCES)
_SIDES = ("", "attacker", "defender")


def pack_waiting(state: State, handle: str, order: int, carry: dict, outcome) -> dict[str, int]:
    """One later defender's rolled result as ``HANDLE:key`` whole numbers,
    for the ``attacking-several`` condition (its Step 4 waits until the
    first defender's is done)."""
    items = [i.name for i in (*sheet_of(state.combatants[handle]).weapons, *sheet_of(state.combatants[handle]).shields)]
    item = str(carry.get("item", ""))
    return {f"{handle}:{k}": v for k, v in {
        "order": order, "defence": _DEFENCE_CODES.index(str(carry["defence"])),
        "hits": _SIDES.index(carry["hits"]), "winner": _SIDES.index(carry["winner"]),
        "blocked": int(carry["blocked"]), "hit_roll": int(carry["hit_roll"]), "critical": int(carry["critical"]),
        "advantages": outcome.advantages, "advantage_to": _SIDES.index(outcome.advantage_to),
        "attack_result": RESULTS.index(outcome.attack_result),
        "item": items.index(item) if item in items else -1,
    }.items()}


def unpack_waiting(state: State, cond: ev.Condition) -> list[tuple[str, dict, dict]]:
    """The defenders still waiting in an ``attacking-several`` condition, in
    order: ``(handle, carry for Step 4, {advantages, advantage_to,
    attack_result})``."""
    out = []
    for key, order in sorted(((k, v) for k, v in cond.effects.items() if k.endswith(":order")), key=lambda kv: kv[1]):
        h = key[: -len(":order")]
        e = {k[len(h) + 1:]: v for k, v in cond.effects.items() if k.startswith(f"{h}:")}
        defence = _DEFENCE_CODES[e["defence"]]
        sheet = sheet_of(state.combatants[h])
        items = [i.name for i in (*sheet.weapons, *sheet.shields)]
        item = items[e["item"]] if 0 <= e["item"] < len(items) else ("Evade" if defence == "evade" else "")
        carry = {"defence": defence, "hits": _SIDES[e["hits"]], "blocked": e["blocked"], "winner": _SIDES[e["winner"]],
                 "item": item, "hit_roll": e["hit_roll"], "critical": e["critical"]}
        out.append((h, carry, {"advantages": e["advantages"], "advantage_to": _SIDES[e["advantage_to"]],
                               "attack_result": RESULTS[e["attack_result"]]}))
    return out


def next_defence(draft: Draft, data: dict) -> None:
    """After a defence is declared: ask the next defender of an attack
    against several (one unable to defend automatically fails), or, once
    all have chosen, await the roll (seed 003 Step 2: every defence is
    chosen before the attacker rolls)."""
    state = draft.state
    x = state.exchange
    for h in group_of(x):
        if f"{h}/defence" in data:
            continue
        c = state.combatants[h]
        why = can_defend(state, c)
        if why:
            draft.emit(ev.ReactionChosen(exchange=x.id, handle=h, reaction="none", with_item=""))
            data = {**data, f"{h}/defence": "none", f"{h}/why": why}
            continue
        options = defence_options(state, c, x)
        a = state.combatants[x.attacker]
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=h, verb="react", kind="react", exchange=x.id, options=options, data=data,
            prompt=f"{c.name}: choose a defence against {a.name}'s {x.weapon} BEFORE the roll: {' | '.join(options)} "
                   f"(--with ITEM, --situation style:NAME)"),)))
        return
    draft.emit(ev.StepsAwaited(steps=(tests_step(draft.state, data),)))


_VERBS = {"evade": "evades", "parry": "parries", "block": "blocks", "counter": "counter-attacks"}


def tests_step(state: State, data: dict) -> ev.PendingStep:
    """The attack's roll step, after every defence is declared (seed 003
    Step 3): the attacker's d100, then each defender's (none for one that
    does not or cannot defend), in the order the defenders were named.
    ``data`` carries the defences and their TNs."""
    x = state.exchange
    a = state.combatants[x.attacker]
    dice = [ev.DiceNeed(f"{a.name}: attack test", "1D100", by=a.handle)]
    whats = []
    for h, d in [(x.target, data), *((h, member_data(data, h)) for h in group_of(x))]:
        t = state.combatants[h]
        defence = str(d.get("defence", "none"))
        if defence != "none":
            dice.append(ev.DiceNeed(f"{t.name}: {defence} test", "1D100", by=t.handle))
        whats.append(f"{t.name} {_VERBS[defence]}" if defence in _VERBS else f"{t.name} does not defend")
    names = " and ".join(state.combatants[h].name for h in [x.target, *group_of(x)])
    return ev.PendingStep(who=a.handle, verb="roll", kind="tests", exchange=x.id,
                          prompt=f"{a.name}: roll the attack test against {names} ({'; '.join(whats)})",
                          dice=tuple(dice), data=data)


def turn_step(state: State, handle: str) -> ev.PendingStep:
    """The pending Turn of ``handle``: attack (1 AP), move or pass."""
    c = state.combatants[handle]
    options = ("attack", "move", "pass") if c.combat_actions > 0 else ("move", "pass")
    return ev.PendingStep(
        who=handle, verb="attack" if "attack" in options else "act", kind="turn",
        prompt=f"{c.name} ({c.combat_actions} AP): {' | '.join(options)} (attack TARGET, or 'affray act {handle} move|pass')",
        options=options,
    )


def require_turn(state: State, handle: str) -> Combatant:
    """The combatant whose Turn it is, or :class:`RuleError` saying what
    the table waits for (:func:`affray.rules.base.require_turn`)."""
    return base_require_turn(state, handle, turn="Turn")
