"""What the mrq1 rule modules share: state queries, spending, modifiers,
tests, and the bookkeeping that ends an exchange or an action.

Source: seed 004_71637fb3cfde52c9.txt, "Combat" (the sections each function
names). This is the layer under the rule modules (DESIGN.md, "Inside a
system, steps are data and imports run one way"): it imports only
``sheet``, ``tables``, ``rulings``, ``conditions`` and the shared
``affray.rules`` helpers, and never decides what follows a step; where a
function hands on to the next rule it queues a step with ``draft.then``
(see the steps table in :mod:`affray.rules.mrq1.system`).
"""

import shlex

import msgspec

from affray import dice as dicelib
from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError, rulings_reader, unreadable_sheet
from affray.rules.d100 import parse_modifier
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1 import tables
from affray.rules.mrq1.rulings import from_mapping
from affray.rules.mrq1.sheet import Sheet, Weapon, derive

# --------------------------------------------------------------------------- #
# Sheets, weapons, skills, tests and modifiers
# --------------------------------------------------------------------------- #

#: The locations the wound rules treat alike (seed 004 "Abdomen, Chest or Head").
TORSO = ("abdomen", "chest", "head")
#: Weapon kinds that need no Ready Weapon action: fists, claws, teeth.
ALWAYS_READY = ("unarmed", "natural")


#: ``rulings_of(state)``: the encounter's rulings (defaults filled in).
rulings_of = rulings_reader(from_mapping)


def sheet_of(c: Combatant) -> Sheet:
    """The combatant's sheet as the typed :class:`Sheet`. Raises
    :class:`RuleError` (one line) for a stored sheet this affray cannot read
    (a field from a newer affray, or a log edited by hand)."""
    try:
        return msgspec.convert(c.sheet, Sheet)
    except msgspec.ValidationError as exc:
        raise unreadable_sheet(c.name, exc) from None


def ordinal(n: int) -> str:
    """1 -> '1st', 2 -> '2nd' ..."""
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n if n < 20 else n % 10, 'th') }".replace(" ", "")


def find_weapon(c: Combatant, name: str, *, ready_only: bool = True, kinds: tuple[str, ...] = ()) -> Weapon:
    """The weapon ``name`` (or unambiguous prefix) the combatant holds.

    Raises :class:`RuleError` naming what is held when it is unknown or not
    ready.
    """
    weapons = [w for w in sheet_of(c).weapons if not kinds or w.kind in kinds]
    wanted = name.strip().lower()
    hits = [w for w in weapons if w.name.lower() == wanted] or [
        w for w in weapons if w.name.lower().startswith(wanted)
    ]
    held = ", ".join(c.ready) or "nothing"
    if not hits:
        names = ", ".join(w.name for w in weapons) or "none"
        raise RuleError(f"{c.name} has no weapon called {name!r} (weapons: {names})")
    if len(hits) > 1:
        raise RuleError(f"{name!r} could mean {', '.join(w.name for w in hits)}; give the full name")
    w = hits[0]
    if ready_only and w.name not in c.ready and w.kind not in ALWAYS_READY:
        raise RuleError(f"{c.name} does not hold {w.name} ready (ready: {held})")
    return w


def default_weapon(c: Combatant) -> Weapon:
    """The first ready weapon that can attack (not a shield, unless only
    shields are held); with nothing held, an unarmed or natural weapon."""
    weapons = sheet_of(c).weapons
    ready = [w for w in weapons if w.name in c.ready]
    for w in ready:
        if w.kind != "shield":
            return w
    if ready:
        return ready[0]
    for w in weapons:
        if w.kind in ALWAYS_READY:
            return w
    raise RuleError(f"{c.name} holds no weapon ready; name one with --weapon")


def skill(c: Combatant, name: str) -> int:
    """The sheet's value for skill ``name`` (0 when the sheet lacks it)."""
    skills = c.sheet.get("skills", {})
    for key, value in skills.items():
        if key.lower() == name.lower():
            return int(value)
    return 0


def condition_modifiers(
    c: Combatant, *, reaction: bool = False, mobility: bool = False, combat: bool = False
) -> list[ev.Modifier]:
    """Modifiers the bearer's own conditions and stance put on a test.

    ``reaction``: a Dodge or parry test (Defend, Overextended apply);
    ``mobility``: a test that relies on physical mobility (useless legs);
    ``combat``: attacking or defending (prone applies).
    Sources: seed 004 "Defend", "Overextended", "Impaled Enemies",
    "One Useless or Missing Leg", "Close Combat Situational Modifiers".
    """
    mods: list[ev.Modifier] = []
    for cond in c.conditions:
        if cond.effects.get("penalty"):
            mods.append(ev.Modifier(cond.effects["penalty"], f"{cond.name}{' (' + cond.location + ')' if cond.location else ''}"))
        if reaction and cond.effects.get("reaction-bonus"):
            mods.append(ev.Modifier(cond.effects["reaction-bonus"], cond.name))
        if reaction and cond.effects.get("next-reaction"):
            mods.append(ev.Modifier(cond.effects["next-reaction"], cond.name))
    if mobility:
        legs = sum(1 for loc in c.locations if loc.limb == "leg" and _useless(c, loc.name))
        if legs == 1:
            mods.append(ev.Modifier(-10, "one useless leg"))
        elif legs >= 2:  # the skills still possible (limb_check refuses the others)
            mods.append(ev.Modifier(tables.COMBAT_MODIFIERS["two-legs-useless"].value, "two useless legs"))
    if combat and c.stance == "prone":
        mods.append(ev.Modifier(tables.CLOSE_MODIFIERS["prone"].value, "prone"))
    return mods


def _useless(c: Combatant, location: str) -> bool:
    return any(
        cond.location == location and cond.name in ("useless-limb", "severed-limb") for cond in c.conditions
    )


#: Skills that rely upon physical mobility (seed 004 "One Useless or Missing
#: Leg": "such as Athletics, Dodge, Stealth and Weapon skills"; Acrobatics
#: is our addition), and of those the ones two useless legs leave possible
#: at -30% ("Two Useless or Missing Legs": "such as Dodge and Stealth";
#: Weapon skills by ruling ``two_useless_legs_weapons``).
MOBILITY_SKILLS = ("athletics", "acrobatics", "dodge", "stealth")
LEGLESS_POSSIBLE = ("dodge", "stealth")
#: Skills two useless arms leave possible at -30% (seed 004 "Two Useless or
#: Missing Arms": "some (such as Athletics and Dodge) only suffer a -30%
#: penalty").
ARMLESS_POSSIBLE = ("athletics", "dodge")


def limb_check(c: Combatant, skill_name: str, *, two_hands: bool = False) -> list[ev.Modifier]:
    """The useless-limb modifiers of a skill test that :func:`condition_modifiers`
    does not give (the arms'), or :class:`RuleError` (one line) when the
    limbs make it impossible. ``two_hands``: the GM says the test relies on
    two arms or hands (seed 004 "One Useless or Missing Arm": "such as
    Athletics tests to swim or Boating tests to paddle"). Sources: seed 004
    "One Useless or Missing Arm" (-20%), "Two Useless or Missing Arms"
    ("Most Skills based on STR or DEX are impossible", Athletics and Dodge
    -30%), "Two Useless or Missing Legs" ("Most Skills that rely upon
    physical mobility are impossible", Dodge and Stealth -30%). A skill
    outside these lists is left to the GM (the sheet does not say which
    characteristics a skill is based on)."""
    key = skill_name.strip().lower()
    arms, legs = len(useless_limbs(c, "arm")), len(useless_limbs(c, "leg"))
    if legs >= 2 and key in MOBILITY_SKILLS and key not in LEGLESS_POSSIBLE:
        raise RuleError(f"{c.name} has two useless legs: {skill_name} is impossible (seed 004 Two Useless or Missing Legs)")
    if arms >= 2:
        if two_hands:
            raise RuleError(f"{c.name} has two useless arms: a test that relies on two hands is impossible (seed 004)")
        if key in ARMLESS_POSSIBLE:
            return [ev.Modifier(tables.COMBAT_MODIFIERS["two-arms-useless"].value, "two useless arms")]
        return []
    if arms == 1 and two_hands:
        return [ev.Modifier(tables.COMBAT_MODIFIERS["one-arm-useless"].value, "one useless arm (a two-handed test)")]
    return []


def relies_on_mobility(c: Combatant, skill_name: str) -> bool:
    """Whether ``skill_name`` "relies upon physical mobility" (seed 004 "One
    Useless or Missing Leg": "such as Athletics, Dodge, Stealth and Weapon
    skills"): one of :data:`MOBILITY_SKILLS`, or a weapon on ``c``'s sheet
    (its Weapon skill goes by the weapon's name)."""
    key = skill_name.strip().lower()
    return key in MOBILITY_SKILLS or any(key == w.name.lower() for w in sheet_of(c).weapons)


def test_modifiers(c: Combatant, skill_name: str, *, combat: bool = False) -> list[ev.Modifier]:
    """The modifiers of a test the rules call for that is not a Reaction
    (knockback's Acrobatics or wall Dodge, a free attack's Persistence,
    Dodge or Athletics, a yank, a Disarm's or interrupt's opposed test):
    the bearer's conditions; the leg penalties only on a skill that relies
    on mobility (:func:`relies_on_mobility`); the arms' (:func:`limb_check`);
    and on a Dodge test Defend's +20% (seed 004 "Defend": "adding +20% to
    any Dodge Skill tests or parrying Weapon skill tests he is called upon
    to make until the beginning of his next Combat Action"), but not
    Overextended's -20%, which is the next Reaction's. A test the limbs
    make impossible is still rolled when the rules force it (a two-legged
    cripple is prone and may not stand, so it does not arise in play): it
    keeps the -30% of two useless legs."""
    key = skill_name.strip().lower()
    mods = condition_modifiers(c, mobility=relies_on_mobility(c, skill_name), combat=combat)
    if key == "dodge":
        mods += [ev.Modifier(x.effects["reaction-bonus"], x.name) for x in c.conditions if x.effects.get("reaction-bonus")]
    try:
        mods += limb_check(c, skill_name)
    except RuleError:
        pass
    return mods


def useless_limbs(c: Combatant, limb: str) -> list[str]:
    """Locations of kind ``limb`` (arm or leg) that are useless now."""
    return [loc.name for loc in c.locations if loc.limb == limb and _useless(c, loc.name)]


def total(base: int, mods: list[ev.Modifier] | tuple[ev.Modifier, ...]) -> int:
    """``base`` plus the modifiers, never below 0 (percent)."""
    return max(0, base + sum(m.value for m in mods))


def test(
    draft: Draft,
    c: Combatant,
    skill_name: str,
    base: int,
    mods: list[ev.Modifier] | tuple[ev.Modifier, ...],
    purpose: str,
    *,
    critical_base: int | None = None,
) -> ev.SkillTested:
    """Roll a d100 test for ``c`` and record the dice and the result.

    ``critical_base`` is the skill the critical score comes from when the
    ruling ``critical_on`` is ``base`` (seed 004 "Critical Hits"; rules-
    reference E rulings).
    """
    rulings = rulings_of(draft.state)
    target = total(base, mods)
    rolled = draft.roll("1D100", purpose, by=c.handle)
    result = tables.skill_test(rolled.total, target, rulings)
    if critical_base is not None and rulings.critical_on == "base":
        crit = tables.skill_test(rolled.total, critical_base, rulings)
        if result == "critical" and crit != "critical":
            result = "success"
        elif result == "success" and crit == "critical":
            result = "critical"
    tested = ev.SkillTested(
        handle=c.handle,
        skill=skill_name,
        base=base,
        target=target,
        roll=rolled.total,
        result=result,
        purpose=purpose,
        modifiers=tuple(mods),
    )
    draft.emit(tested)
    return tested


def table_level(result: str) -> str:
    """A test result as a Dodge/Parry/Grapple table row or column: a fumble
    counts as a failure (seed 004 tables have three levels)."""
    return "failure" if result == "fumble" else result


# --------------------------------------------------------------------------- #
# Attack kinds with options (charge, ranged, precise, cover...)
# --------------------------------------------------------------------------- #


def make_kind(base: str, **opts: str) -> str:
    """An exchange kind with its options: ``ranged;cover=head,chest``.

    The exchange kind travels in ``AttackDeclared.kind``; the options the
    damage step needs (precise attack, cover, crowd) ride along after ``;``.
    """
    parts = [base] + [f"{k.replace('_', '-')}={v}" for k, v in opts.items() if v not in ("", None)]
    return ";".join(parts)


def kind_parts(kind: str) -> tuple[str, dict[str, str]]:
    """``(base kind, options)`` of an exchange kind made by :func:`make_kind`."""
    base, *rest = kind.split(";")
    opts = {}
    for item in rest:
        k, _, v = item.partition("=")
        opts[k] = v
    return base, opts


def total_hp(c: Combatant) -> int:
    """Hit points left over all locations (to tell whether damage was done)."""
    return sum(loc.hp for loc in c.locations)


def movement(c: Combatant) -> int:
    """Movement in metres after useless legs: one halves it, two leave 1 m
    (seed 004 "One Useless or Missing Leg", "Two Useless or Missing Legs")."""
    legs = len(useless_limbs(c, "leg"))
    if legs >= 2:
        return 1
    return c.movement // 2 if legs == 1 else c.movement


def held(c: Combatant) -> list[Weapon]:
    """The weapons and shields held ready, in the order they were readied."""
    weapons = {w.name: w for w in sheet_of(c).weapons}
    return [weapons[n] for n in c.ready if n in weapons]


def hands_used(c: Combatant) -> int:
    """Hands busy with held weapons and shields."""
    return sum(w.hands for w in held(c) if w.kind not in ALWAYS_READY)


def break_aim(draft: Draft, handle: str, reason: str) -> None:
    """Any other Combat Action or Reaction loses the aim bonus (seed 004
    "Aim")."""
    for cond in draft.state.combatants[handle].conditions:
        if cond.name == "aiming":
            draft.emit(ev.ConditionExpired(handle=handle, condition_id=cond.id, reason=reason))


def opposed(a: ev.SkillTested, d: ev.SkillTested, ties: str = "higher-roll") -> str:
    """Who wins an opposed test: ``"a"`` (the active side), ``"d"`` (the
    passive side) or ``""`` (both fail: nobody).

    A better level of success wins (critical > success > failure); at the
    same level of success the higher roll wins (ruling ``opposed_ties``:
    ``higher-roll``), or the passive side (``passive``). Source: seed 004
    speaks of "an opposed skill test" without the rule; rules-reference B6
    (the d100 family's rule) and our ruling.
    """
    rank = {"critical": 2, "success": 1}
    ra, rd = rank.get(a.result, 0), rank.get(d.result, 0)
    if ra == 0 and rd == 0:
        return ""
    if ra != rd:
        return "a" if ra > rd else "d"
    if ties == "higher-roll" and a.roll != d.roll:
        return "a" if a.roll > d.roll else "d"
    return "d"

# --------------------------------------------------------------------------- #
# Turns, attacks and exchanges (seed 004 "Close Combat Attacks", "Reactions")
# --------------------------------------------------------------------------- #


#: Situations that describe the target of an attack; a reaction refuses them.
TARGET_SITUATIONS = ("target-helpless", "target-surprised", "target-prone")
#: Named Dodge situations (seed 004 "Dodge", Penalties: "If a character has
#: his back to a wall, cliff, more enemies or is otherwise impeded from
#: freely dodging in any direction, he will suffer a -20% penalty to his
#: Dodge Skill"), each the key of its entry in :data:`.tables.COMBAT_MODIFIERS`.
DODGE_SITUATIONS = {"back-to-wall": "dodge-impeded", "dodge-impeded": "dodge-impeded"}
#: The reason of the 0% modifier a GM-named ``target-helpless`` records: the
#: attack is an automatic critical hit (seed 004 close combat table).
HELPLESS = tables.CLOSE_MODIFIERS["target-helpless"].text


def situation_modifiers(keys: tuple[str, ...], *, role: str = "attack") -> list[ev.Modifier]:
    """Modifiers for named situations from the seed's close combat table
    (seed 004 "Close Combat Situational Modifiers"), for ``role`` ``attack``,
    ``parry`` or ``dodge``. An accepted situation always changes something:
    ``target-helpless`` on an attack is a 0% modifier named :data:`HELPLESS`
    that makes the hit an automatic critical (:func:`named_helpless`);
    ``back-to-wall`` is the Dodge's -20%. Raises :class:`RuleError` (one
    line) for an unknown key, a target's situation on a reaction, or a
    Dodge situation on anything but a Dodge."""
    mods = []
    for key in keys:
        if key in DODGE_SITUATIONS:
            if role != "dodge":
                raise RuleError(f"situation {key!r} is a Dodge penalty (seed 004 'Dodge'); drop it, or use --mod")
            entry = tables.COMBAT_MODIFIERS[DODGE_SITUATIONS[key]]
            mods.append(ev.Modifier(entry.value, "back to a wall or otherwise impeded"))
            continue
        entry = tables.CLOSE_MODIFIERS.get(key)
        if entry is None:
            known = ", ".join([*tables.CLOSE_MODIFIERS, *DODGE_SITUATIONS])
            raise RuleError(f"unknown situation {key!r}; known: {known}")
        if role != "attack" and key in TARGET_SITUATIONS:
            raise RuleError(f"situation {key!r} describes the target of an attack, not a {role}; drop it")
        mods.append(ev.Modifier(entry.value, entry.text))
    return mods


def named_helpless(mods) -> bool:
    """Whether the GM named the target helpless (``--situation
    target-helpless``) among an attack's modifiers."""
    return any(m.reason == HELPLESS for m in mods)


def require_turn(state: State, handle: str) -> Combatant:
    """``handle``'s combatant when it is his turn and the table waits for
    nothing else (seed 004 "Combat": actions in Strike Rank order); raises
    :class:`RuleError` (one line) naming whose turn it is otherwise."""
    c = state.combatants[handle]
    if state.phase == "over":
        raise RuleError(f"the fight is over ({state.winner or 'nobody'} stands); 'affray close' ends the encounter")
    if state.phase != "round":
        raise RuleError("no round is running; start one with 'affray start'")
    if state.exchange is not None or any(s.kind != "turn" for s in state.pending):
        first = state.pending[0] if state.pending else None
        hint = f" ({first.prompt})" if first else ""
        raise RuleError(f"the table is waiting for something else first{hint}; see 'affray pending'")
    if handle not in state.turn:
        now = " and ".join(state.combatants[h].name for h in state.turn) or "nobody"
        rank = next((e.rank for e in state.order if e.handle in state.turn), None)
        at = f" (strike rank {rank})" if rank is not None else ""
        raise RuleError(f"it is {now}'s turn{at}, not {c.name}'s. Use 'affray pending' to see who acts next.")
    return c


def check_arms(c: Combatant, weapon: Weapon, legs_rule: str = "penalty") -> None:
    """Refuse ``weapon`` to a combatant with two useless arms, or a
    two-handed one with one useless arm (seed 004 "One Useless or Missing
    Arm", "Two Useless or Missing Arms"), or to one with two useless legs
    under ruling ``two_useless_legs_weapons=impossible`` (``legs_rule``);
    raises :class:`RuleError`."""
    if legs_rule == "impossible" and len(useless_limbs(c, "leg")) >= 2:
        raise RuleError(f"{c.name} has two useless legs and may not use Weapon skills (ruling two_useless_legs_weapons)")
    arms = useless_limbs(c, "arm")
    if len(arms) >= 2:
        raise RuleError(f"{c.name} has two useless arms and may not use any weapon (seed 004)")
    if arms and weapon.hands >= 2:
        raise RuleError(f"{c.name} has a useless arm and may not use the two-handed {weapon.name} (seed 004)")


def shield_skill(c: Combatant) -> tuple[str, int]:
    """(name, value) of the skill an improvised parry uses: the Shield skill
    (seed 004 "Parry", Improvisation: "Parrying with improvised items, such
    as crossbows or fallen logs, is usually done using the Shield Skill"),
    the sheet's ``Shield`` skill or its best shield's, 0 when it has none."""
    best = max([skill(c, "Shield"), *(w.skill for w in sheet_of(c).weapons if w.kind == "shield")])
    return "Shield", best


def improvised_parry(state: State, c: Combatant, with_item: str) -> Weapon | None:
    """The item ``with_item`` names, to parry with as an improvised item
    (seed 004 "Parry", Improvisation: "Parrying with improvised items, such
    as crossbows or fallen logs, is usually done using the Shield Skill,
    though the Games Master may decide a particular Weapon skill is more
    appropriate in other cases (such as the Club Skill for tree
    branches)"): a ready missile weapon of the sheet, or an item not on
    the sheet, :func:`improvised_item`. None when it names something else
    (a close combat weapon or shield of the sheet, or nothing)."""
    if not with_item:
        return None
    if ":" in with_item:
        return improvised_item(c, with_item)
    try:
        w = find_weapon(c, with_item)
    except RuleError:
        return None
    return w if w.kind == "ranged" else None


#: The kind of an improvised item that is not on the sheet (a chair, a torch).
IMPROVISED = "improvised"


def improvised_item(c: Combatant, text: str) -> Weapon:
    """An item not on ``c``'s sheet, parried with as an improvised item:
    ``NAME:AP`` (a chair of 2 AP: ``chair:2``) on the Shield skill
    (:func:`shield_skill`), or ``NAME:AP:SKILL`` on the skill the GM
    decides (``branch:3:Club``: a weapon of the sheet of that name, or a
    skill of the sheet). The seed gives no Armour Points for improvised
    items, so the GM states them (0 to 20); the AP is what the Parry table
    deducts. Kind :data:`IMPROVISED`, the skill's name in ``group``.
    Raises :class:`RuleError` for a malformed text, an item that is on the
    sheet, or a skill the sheet lacks."""
    name, _, rest = text.partition(":")
    name, (ap_text, _, skill_name) = name.strip(), rest.partition(":")
    ap_text, skill_name = ap_text.strip(), skill_name.strip()
    if not name or not (ap_text.isascii() and ap_text.isdigit()) or not 0 <= int(ap_text) <= 20:
        raise RuleError(f"an improvised item is NAME:AP or NAME:AP:SKILL with AP 0-20 (chair:2, branch:3:Club), "
                        f"not {text!r}")
    listed = next((w for w in sheet_of(c).weapons if w.name.lower() == name.lower()), None)
    if listed is not None:
        raise RuleError(f"{listed.name} is on {c.name}'s sheet; name it without ':AP' (--with {listed.name!r})")
    if not skill_name:
        skill_name, base = shield_skill(c)
    else:
        weapon = next((w for w in sheet_of(c).weapons if w.name.lower() == skill_name.lower()), None)
        base = weapon.skill if weapon is not None else skill(c, skill_name)
        if weapon is None and not any(k.lower() == skill_name.lower() for k in c.sheet.get("skills", {})):
            raise RuleError(f"{c.name} has no skill {skill_name!r} for the improvised {name}; name a weapon or skill "
                            "of the sheet, or leave it out for the Shield skill")
    return Weapon(name=name, skill=base, damage="0", ap=int(ap_text), hp=0, kind=IMPROVISED, group=skill_name)


def parry_item(state: State, c: Combatant, with_item: str) -> Weapon:
    """The item ``c`` parries with when he names ``with_item``: an
    improvised item (:func:`improvised_parry`) or a weapon of the sheet he
    holds (:func:`find_weapon`). Raises :class:`RuleError` for an item that
    is neither, saying how to name an improvised one."""
    item = improvised_parry(state, c, with_item)
    if item is not None:
        return item
    try:
        return find_weapon(c, with_item)
    except RuleError as exc:
        raise RuleError(f"{exc}; an improvised item not on the sheet is named with its Armour Points: "
                        f"--with '{with_item.strip()}:AP' (Shield skill) or '{with_item.strip()}:AP:SKILL'") from None


def usable(state: State, c: Combatant, weapon: Weapon) -> bool:
    """Whether ``c``'s limbs let him use ``weapon`` (:func:`check_arms`)."""
    try:
        check_arms(c, weapon, rulings_of(state).two_useless_legs_weapons)
    except RuleError:
        return False
    return True


def attack_modifiers(state: State, attacker: str, target: str, modifiers, situations) -> list[ev.Modifier]:
    """The modifiers of an attack: the attacker's conditions, a prone or
    surprised target, the named situations and the GM's ``modifiers``
    (seed 004 "Close Combat Situational Modifiers")."""
    a, t = state.combatants[attacker], state.combatants[target]
    mods = condition_modifiers(a, mobility=True, combat=True)
    known = set()  # situations the engine already applies from the state: named again, they count once
    if a.stance == "prone":
        known.add("prone")
    if t.stance == "prone":
        mods.append(ev.Modifier(tables.CLOSE_MODIFIERS["target-prone"].value, "target prone"))
        known.add("target-prone")
    if t.has("surprised"):
        mods.append(ev.Modifier(tables.CLOSE_MODIFIERS["target-surprised"].value, "target surprised"))
        known.add("target-surprised")
    mods.extend(situation_modifiers(tuple(s for s in dict.fromkeys(situations) if s not in known)))
    mods.extend(modifiers)
    return mods


def can_react(state: State, handle: str, attacker: str) -> str:
    """Why ``handle`` may not react to ``attacker`` now ("" when it may).

    Sources: seed 004 "Reactions" (allowance), "Dodge"/"Parry" (helpless may
    not), "Gaining Surprise" with ruling ``surprise_reactions``: by default a
    surprised character reacts only after his own first action
    (``after-own-action``); ``lower-strike-rank`` follows the table footnote
    (only against attackers with a Strike Rank lower than his own).
    """
    c = state.combatants[handle]
    if c.status != "active" or c.effect("helpless"):
        return f"{c.name} is helpless"
    if c.effect("grappling"):
        return f"{c.name} is grappling and may not use Reactions (seed 004 Grappling Combatants)"
    if c.reactions <= 0:
        return f"{c.name} has no reactions left"
    if c.effect("no-reactions"):
        if rulings_of(state).surprise_reactions == "lower-strike-rank":
            rank = {e.handle: e.rank for e in state.order}
            if rank.get(attacker, 0) >= rank.get(handle, 0):
                return f"{c.name} is surprised and {state.combatants[attacker].name} strikes at a higher Strike Rank"
        elif c.actions_taken == 0:
            return f"{c.name} is surprised and has not acted yet"
    return ""


def end_exchange(draft: Draft, summary: str, *, advance_turn: bool = True) -> None:
    """Close the exchange (``ExchangeEnded``) and, unless told otherwise,
    queue the step ``exchange:after`` (what follows an exchange: an action
    waiting for its free attacks, a Flurry's next blow, or the next turn)."""
    x = draft.state.exchange
    if x is not None:
        draft.emit(ev.ExchangeEnded(exchange=x.id, summary=summary))
    if advance_turn:
        draft.then("exchange:after")


def carry_on(draft: Draft, steps: tuple[ev.PendingStep, ...], summary: str) -> None:
    """Carry on with the pending ``steps`` (``StepsAwaited``); when none are
    left, end the exchange with ``summary`` (:func:`end_exchange`)."""
    if steps:
        draft.emit(ev.StepsAwaited(steps=steps))
        return
    end_exchange(draft, summary)


def pending_roll(state: State, who: str) -> ev.PendingStep:
    """The first pending roll step (or the first that is ``who``'s), which
    ``affray roll`` answers. Raises :class:`RuleError` naming what the table
    waits for when there is none."""
    steps = [s for s in state.pending if s.verb == "roll" and (not who or s.who == who)]
    if not steps:
        waiting = "; ".join(s.prompt for s in state.pending) or "nothing"
        raise RuleError(f"no roll is pending{' for ' + who if who else ''} (waiting for: {waiting})")
    return steps[0]


def carry_on_step(draft: Draft, steps, summary: str, follow=()) -> None:
    """The step ``exchange:carry-on``: await the pending ``steps`` and then
    ``follow`` (the steps the last blow's consequences left), or end the
    exchange with ``summary`` when there are none (:func:`carry_on`)."""
    carry_on(draft, tuple(steps) + tuple(follow), summary)


def damage_modifier(draft: Draft, c: Combatant) -> str:
    """The attacker's damage modifier (sheet override, else STR+SIZ; E2)."""
    return derive(sheet_of(c), rulings_of(draft.state)).damage_modifier


def weapon_part(draft: Draft, weapon_dice: str, mode: str) -> int:
    """The weapon's share of the open exchange's damage: its dice at their
    maximum (``max``, a critical: seed 004 "Critical Hits"), their minimum
    (``min``, a Dodge's "minimum damage"), or rolled by the attacker."""
    x = draft.state.exchange
    assert x is not None
    wexpr = dicelib.parse(weapon_dice)
    if mode == "max":
        return wexpr.maximum()
    if mode == "min":
        return wexpr.minimum()
    return draft.roll(str(wexpr), f"{x.weapon} damage", by=x.attacker).total


def damage_plan(draft: Draft) -> tuple[str, str, str, bool]:
    """(weapon dice to roll, damage modifier, how the weapon dice are
    treated: roll|max|min, critical) for the open exchange."""
    x = draft.state.exchange
    assert x is not None
    a = draft.state.combatants[x.attacker]
    weapon = find_weapon(a, x.weapon, ready_only=False)
    critical = x.critical
    if critical and x.effects.get("parry_ap_halves") and not rulings_of(draft.state).parried_critical_keeps_max:
        critical = False  # ruling parried_critical_keeps_max=false: a parried critical rolls normal damage
    minimum = bool(x.effects.get("minimum_damage"))
    if minimum and "dodged_critical" in x.effects:  # ruling dodged_critical_from decided it
        mode = "roll" if x.effects["dodged_critical"] else "min"
    elif critical and minimum:
        mode = "roll"  # seed 004: a dodged critical inflicts normal damage instead
    elif critical:
        mode = "max"
    elif minimum:
        mode = "min"
    else:
        mode = "roll"
    return weapon.damage, damage_modifier(draft, a), mode, critical


def location_for(t: Combatant, d20: int) -> str:
    """The location a d20 hits on ``t`` (its own table, else the humanoid
    one; seed 004 "Hit Locations")."""
    for loc in t.locations:
        if loc.low <= d20 <= loc.high:
            return loc.name
    return tables.hit_location(d20)


def lose_actions(draft: Draft, handle: str, n: int, label: str, at: dict) -> None:
    """``handle`` loses its next ``n`` combat actions (added to any already
    owed); they are taken as they fall due (seed 004 wound rules)."""
    c = draft.state.combatants[handle]
    old = next((x for x in c.conditions if x.name == "lost-actions"), None)
    total = n + (old.effects.get("lost-actions", 0) if old else 0)
    draft.emit(
        ev.ConditionApplied(
            handle=handle,
            condition=cat.make(
                "lost-actions", ends="actions", count=total, effects={"lost-actions": total}, note=label, **at
            ),
        )
    )


# --------------------------------------------------------------------------- #
# The action text and the course of an action (seed 004 "Combat Actions")
# --------------------------------------------------------------------------- #


#: Action words and what they take, for the help and the error message.
USAGE = {
    "defend": "defend",
    "pass": "pass",
    "aim": "aim TARGET [weapon=W]",
    "cast": "cast SPELL [actions=N]  (again: cast)",
    "charge": "charge TARGET METRES [weapon=W] [past=A,B]",
    "move": "move [METRES] [to=X] [past=A,B]",
    "sprint": "sprint [METRES] [to=X] [past=A,B]",
    "retreat": "retreat [METRES]",
    "ready": "ready ITEM [ITEM2] [drop=ITEM|sheathe=ITEM]",
    "reload": "reload [WEAPON]",
    "stance": "stance standing|prone|kneeling|sitting",
    "stand": "stand",
    "skill": "skill NAME [mod=V:REASON] [diff=GRADE] [hands=2]  (skill \"First Aid\" target=WHO [location=LOC])",
    "delay": "delay after=X | delay interrupt=X",
    "interrupt": "interrupt [with=SKILL] [against=SKILL]",
    "shoot": "shoot TARGET [weapon=W] [range=M] [cover=LOCS] [crowd=X] [precise=..]",
    "area": "area DAMAGE on=A,B [name=NAME]  (as: affray act gm area ...)",
}
#: The words a character acts with (``affray act WHO WORD``); the router
#: (:mod:`affray.rules.mrq1.system`) sends each to its handler as the step
#: ``act:WORD``. ``area`` is the GM's.
ACTION_WORDS = tuple(w for w in USAGE if w != "area")


class Spec(msgspec.Struct):
    """A parsed action: its word, positional arguments, ``key=value``
    options (``mod=`` and ``sit=`` may repeat)."""

    word: str
    args: list[str] = []
    opts: dict[str, str] = {}
    mods: list[ev.Modifier] = []
    sits: list[str] = []

    def text(self) -> str:
        """The canonical action text (parses back to the same Spec)."""
        words = [self.word, *self.args, *(f"{k}={v}" for k, v in self.opts.items())]
        words += [f"mod={m.value:+d}:{m.reason}" for m in self.mods] + [f"sit={s}" for s in self.sits]
        return shlex.join(words)

    def get(self, key: str, default: str = "") -> str:
        """The option ``key`` (``default`` when not given)."""
        return self.opts.get(key, default)

    def number(self, key: str, default: int | None = None, *, pos: int | None = None) -> int | None:
        """An integer option (or positional argument ``pos``)."""
        raw = self.opts.get(key)
        if raw is None and pos is not None and len(self.args) > pos:
            raw = self.args[pos]
        if raw is None:
            return default
        try:
            value = int(str(raw).rstrip("m"))
        except ValueError:
            raise RuleError(f"{self.word}: {key} takes a whole number, got {raw!r} ({USAGE.get(self.word, '')})") from None
        if value < 0:
            raise RuleError(f"{self.word}: {key} must not be negative, got {value}")
        return value


def parse(action: str) -> Spec:
    """Parse an action text; raises :class:`RuleError` (one line)."""
    try:
        tokens = shlex.split(action)
    except ValueError as exc:
        raise RuleError(f"cannot read the action {action!r} ({exc}); quote names with spaces") from None
    if not tokens:
        raise RuleError(f"name an action: {', '.join(USAGE)}")
    spec = Spec(tokens[0].lower())
    for tok in tokens[1:]:
        key, sep, value = tok.partition("=")
        if sep and key and key.replace("-", "").replace("_", "").isalpha():
            key = key.lower().replace("_", "-")
            if key == "mod":
                try:
                    v, reason = parse_modifier(value)
                except ValueError as exc:
                    raise RuleError(str(exc)) from None
                spec.mods.append(ev.Modifier(v, reason))
            elif key in ("sit", "situation"):
                spec.sits.append(value)
            else:
                spec.opts[key] = value
        else:
            spec.args.append(tok)
    return spec


def from_situations(word: str, target: str, weapon: str, modifiers, situations) -> Spec | None:
    """The Spec for an ``affray attack`` with options in its situations
    (``charge=12``, ``flurry``, ``precise=head``, ``range=30``, ``off-hand``,
    ``cover=head``, ``crowd=gorp``, ``past=gorp``); None when it has none
    and is a plain close combat attack."""
    spec = Spec(word, [target], {}, list(modifiers), [])
    if weapon:
        spec.opts["weapon"] = weapon
    special = False
    for s in situations:
        key, sep, value = s.partition("=")
        key = key.strip().lower()
        if key in ("charge", "range", "precise", "cover", "crowd", "past", "metres"):
            if not sep:
                raise RuleError(f"--situation {s!r}: write {key}=VALUE")
            if key == "precise" and "precise" in spec.opts:
                raise RuleError("precise attacks cannot be combined in a single strike (seed 004 'Precise Attack')")
            spec.opts[key] = value.strip()
            special = True
        elif key in ("flurry", "off-hand", "wall") and not sep:
            spec.opts[key] = "1"
            special = True
        else:
            spec.sits.append(s)
    return spec if special else None


def split(value: str) -> list[str]:
    """The comma-separated items of an option (``past=a,b``), trimmed."""
    return [v.strip() for v in value.split(",") if v.strip()]


def begin(draft: Draft, who: str, spec: Spec, *, cost: int = 1, reason: str = "", keep: str = "") -> Combatant:
    """Spend the action's Combat Actions and end what another action ends:
    Overextended (seed 004 "Overextended"), the aim (seed 004 "Aim"), a
    spell or Ready Weapon in progress (ruling ``multi_action_interrupted``),
    a delay."""
    c = require_turn(draft.state, who)
    if cost > c.combat_actions:
        raise RuleError(f"{c.name} has {c.combat_actions} combat action(s) left; {spec.word} needs {cost}")
    if cost:
        draft.emit(ev.ActionSpent(handle=who, kind="combat-action", amount=cost, reason=reason or spec.word))
    for cond in c.conditions:
        if cond.name == "overextended":
            draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="performed another combat action"))
        elif cond.name == "delaying":
            draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="acts"))
        elif cond.name in ("casting", "readying") and keep != cond.name and rulings_of(draft.state).multi_action_interrupted:
            draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason=f"abandoned for {spec.word}"))
    if keep != "aiming":
        break_aim(draft, who, f"{spec.word} instead of shooting")
    return draft.state.combatants[who]


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


def has_attack_options(state: State, attacker: str, target: str, weapon_name: str, modifiers, situations) -> bool:
    """Whether an ``affray attack`` is more than a plain close combat attack:
    the next blow of a Flurry, options in its situations (:func:`from_situations`),
    or a ranged weapon (seed 004 "Combat Actions", "Ranged Weapons"). Raises
    :class:`RuleError` for malformed options."""
    if flurry_step(state, attacker) is not None:
        return True
    if from_situations("attack", target, weapon_name, modifiers, situations) is not None:
        return True
    c = state.combatants[attacker]
    try:
        weapon = find_weapon(c, weapon_name) if weapon_name else default_weapon(c)
    except RuleError:
        return False
    return weapon.kind == "ranged"


def done(draft: Draft) -> None:
    """The action is over: nothing is pending, and the step ``turn:next``
    (the turn sequencer, :func:`affray.rules.mrq1.turns.advance`) moves
    the turn on."""
    draft.emit(ev.StepsAwaited(steps=()))
    draft.then("turn:next")


def note(draft: Draft, who: str, word: str, text: str, spec: Spec | None = None) -> None:
    """Record what ``who`` did with the action ``word`` (``ActionTaken``)."""
    draft.emit(ev_mrq1.ActionTaken(handle=who, action=word, text=text, spec=spec.text() if spec else ""))


def apply(draft: Draft, who: str, name: str, **kw) -> None:
    """Put the catalogue condition ``name`` on ``who``, caused by the event
    about to be appended (``kw``: see :func:`.conditions.make`)."""
    at = dict(cause=draft.next_version, round=draft.state.round, step=draft.state.step)
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(name, **kw, **at)))


def expire(draft: Draft, who: str, cond: ev.Condition | None, reason: str) -> None:
    """End ``cond`` on ``who``, if there is one."""
    if cond is not None:
        draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason=reason))


def await_roll(draft: Draft, who: str, verb: str, kind: str, prompt: str, die: str, *,
               options: tuple[str, ...] = (), data: dict | None = None) -> None:
    """The action waits for one step of ``who``'s, with one D100 to roll
    (``die`` names it): a test, an attack roll, a free attack, a blow."""
    step = ev.PendingStep(who=who, verb=verb, kind=kind, prompt=prompt, options=options,
                          dice=(ev.DiceNeed(die, "1D100", by=who),), data=data or {})
    draft.emit(ev.StepsAwaited(steps=(step,)))


def progress(c: Combatant, name: str, spec: Spec) -> tuple[ev.Condition | None, int, int]:
    """An action of several Combat Actions, spent one at a time (seed 004
    "Cast Spell", "Ready Weapon"): its ``name`` condition so far (None before
    the first), the number of the action now spent, and how many it needs
    (``actions=``)."""
    old = next((x for x in c.conditions if x.name == name), None)
    return old, (old.effects.get("progress", 0) if old else 0) + 1, spec.number("actions", 1) or 1


def adjacent_enemies(state: State, who: str) -> list[str]:
    """The enemies engaged with ``who`` (seed 004 "Free Attacks": adjacent)."""
    c = state.combatants[who]
    return [h for h in c.engaged if h in state.combatants and state.combatants[h].side != c.side]


def acting(c: Combatant) -> ev.Condition | None:
    """The ``acting`` condition of an action that waits for its free
    attacks (seed 004 "Free Attacks"), or None."""
    return next((x for x in c.conditions if x.name == "acting"), None)


def pending_action(state: State) -> str:
    """The handle of a combatant whose action waits for free attacks."""
    for c in state.combatants.values():
        if acting(c) is not None:
            return c.handle
    return ""


def flurry_step(state: State, who: str) -> ev.PendingStep | None:
    """``who``'s pending next blow of a Flurry (seed 004 "Flurry"), or None."""
    return next((s for s in state.pending if s.kind == "flurry" and s.who == who), None)


# --------------------------------------------------------------------------- #
# Turn steps; grappling and fleeing combatants (seed 004 "Combat", "Delay",
# "Grappling Combatants", "Untrained Mounts")
# --------------------------------------------------------------------------- #


def turn_steps(state: State, handles: tuple[str, ...], pass_no: int) -> tuple[ev.PendingStep, ...]:
    """The turn steps of ``handles`` (attack, defend, pass, or any other
    action with 'affray act'), and the interrupt a delaying character may
    make as the one he waits for is about to act (seed 004 "Delay"). A
    grappling combatant or a fleeing mount gets its restricted turn instead."""
    steps = []
    for h in handles:
        c = state.combatants[h]
        can_stand = c.stance == "prone" and len(useless_limbs(c, "leg")) < 2
        options = ("attack", "defend", "pass") + (("stand",) if can_stand else ())
        steps.append(
            grapple_turn_step(state, c, pass_no) or flee_step(state, c)
            or ev.PendingStep(
                who=h,
                verb="attack",
                kind="turn",
                prompt=f"{c.name} ({ordinal(pass_no)} combat action): attack, defend or pass"
                + (" (prone: act stand to get up)" if can_stand else ""),
                options=options,
                dice=(ev.DiceNeed("attack roll (if attacking)", "1D100", by=h),),
            )
        )
    for c in state.combatants.values():
        for cond in c.conditions:
            if cond.name == "delaying" and cond.effects.get("interrupt") and cond.id.split(":", 1)[1] in handles:
                other = state.combatants[cond.id.split(":", 1)[1]]
                steps.append(
                    ev.PendingStep(
                        who=c.handle,
                        verb="act",
                        kind="turn",
                        prompt=f"{c.name} (delaying) may interrupt {other.name}: affray act {c.handle} interrupt",
                        options=("interrupt",),
                        dice=(
                            ev.DiceNeed(f"{c.name}'s interrupting test", "1D100", by=c.handle),
                            ev.DiceNeed(f"{other.name}'s opposing test", "1D100", by=other.handle),
                        ),
                    )
                )
    return tuple(steps)


#: The special Combat Actions of a grappling combatant (seed 004), plus our
#: ruling ``release``.
MANOEUVRES = ("break-free", "immobilise", "inflict-pain", "throw", "release")


#: The wound conditions First Aid ends (seed 004 "Serious Wound", "Major
#: Wound": "until the location is restored to 1 hit point or more, or the
#: character receives First Aid"); ``bleeding-out`` by ruling
#: ``first_aid_stops_bleeding``; ``impaled`` ("Impaled Enemies": "Another
#: character may remove the impaling weapon in a cleaner and less agonising
#: manner through the use of the First Aid skill": no damage).
FIRST_AID_ENDS = ("useless-limb", "resilience-retest", "death-test", "bleeding-out", "impaled")


def first_aid_locations(c: Combatant) -> list[str]:
    """Locations of ``c`` with a wound condition First Aid ends, in the
    sheet's order."""
    wounded = {x.location for x in c.conditions if x.name in FIRST_AID_ENDS and x.location}
    return [loc.name for loc in c.locations if loc.name in wounded]


def in_the_fight(c: Combatant) -> bool:
    """Whether ``c`` still counts for his side when the engine asks if the
    fight is over: able to fight, or helpless only because a grapple partner
    holds him immobilised. Seed 004 "Grappling Combatants", Immobilise:
    "While immobilised, enemies are considered helpless", yet "grappling
    combatants will remain locked together until one combatant breaks free
    or is thrown out of the grapple": the holder may still Inflict Pain or
    Throw, so a hold alone does not end a one-on-one fight."""
    if c.can_fight:
        return True
    return c.status == "active" and c.has("immobilised") and bool(partner_of(c))


def partner_of(c: Combatant) -> str:
    """The handle ``c`` is grappling with ("" when not grappling)."""
    for cond in c.conditions:
        if cond.name == "grappling":
            return cond.id.split(":", 1)[1]
    return ""


def restricted(state, handle: str, what: str) -> None:
    """Refuse ``what`` for a grappling combatant (seed 004 "Grappling
    Combatants": restricted to the special Combat Actions, no Reactions)."""
    c = state.combatants.get(handle)
    if c is not None and partner_of(c):
        p = state.combatants[partner_of(c)].name
        raise RuleError(
            f"{c.name} is grappling {p} and may not {what} (seed 004 Grappling Combatants); "
            f"use 'affray grapple {handle} {{break-free|immobilise|inflict-pain|throw|release}}'"
        )


def grapple_turn_step(state: State, c: Combatant, pass_no: int) -> ev.PendingStep | None:
    """A grappling combatant's turn: only the special Combat Actions (seed
    004 "Grappling Combatants"), or pass. None when ``c`` is not grappling."""
    partner = partner_of(c)
    if not partner:
        return None
    p = state.combatants[partner]
    return ev.PendingStep(
        who=c.handle, verb="grapple", kind="turn", options=MANOEUVRES + ("pass",),
        dice=(ev.DiceNeed(f"{c.name}'s Unarmed test", "1D100", by=c.handle),
              ev.DiceNeed(f"{p.name}'s opposed test (break-free only)", "1D100", by=partner)),
        prompt=f"{c.name} ({ordinal(pass_no)} combat action, grappling {p.name}): {' | '.join(MANOEUVRES)} | pass",
    )


def check_fleeing(state: State, handle: str, what: str) -> None:
    """Refuse any action but ``flee`` (``pass`` and ``defend`` too) for an
    untrained mount that failed its rider's Riding test this round (seed 004
    "Untrained Mounts": "Failing this test will cause the horse to
    automatically use the Flee Combat Action at every opportunity for the
    remainder of the Combat Round")."""
    c = state.combatants.get(handle)
    if c is not None and c.has("mount-fleeing") and what.strip().lower() != "flee":
        raise RuleError(f"{c.name} is fleeing this round and may only flee (seed 004 Untrained Mounts): affray act {handle} flee")


def flee_step(state: State, c: Combatant) -> ev.PendingStep | None:
    """A fleeing mount's turn: flee (seed 004: "at every opportunity")."""
    if not c.has("mount-fleeing"):
        return None
    return ev.PendingStep(who=c.handle, verb="act", kind="turn", options=("flee",),
                          prompt=f"{c.name} flees (untrained mount): act {c.handle} flee")


# --------------------------------------------------------------------------- #
# Attack options, ranged weapons, mounts (seed 004 "Two Weapon Use", "Precise
# Attack", "Cover", "Ranged Weapons", "Mounted Combat")
# --------------------------------------------------------------------------- #


PRECISE_HELP = "precise=bypass | location:LOCATION (or just the location) | disarm[:ITEM] | weapon[:ITEM] | shield"


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
                raise RuleError("natural weapons may not be attacked this way (seed 004 'Strike Weapon / Shield')")
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


def off_hand_item(c: Combatant) -> Weapon | None:
    """The off-hand item of a character holding two one-handed items (a
    weapon and a shield, or two weapons): the shield, else the second
    weapon readied. None otherwise."""
    items = [w for w in held(c) if w.kind in ("melee", "shield") and w.hands == 1]
    if len(items) < 2:
        return None
    shields = [w for w in items if w.kind == "shield"]
    return shields[0] if shields else items[1]


def used_off_hand(c: Combatant) -> bool:
    """Whether ``c`` has used the off-hand this round (seed 004 "Two Weapon Use")."""
    return c.has("two-weapon")


def extra_parry(state: State, defender: str, attacker: str) -> str:
    """The off-hand item's name when ``defender``, out of reactions, may
    still parry once this round with it (seed 004 "Two Weapon Use": one
    additional parry per round, over the Reaction allowance); else ""."""
    c = state.combatants[defender]
    if c.status != "active" or c.effect("helpless") or used_off_hand(c):
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


def ranged_weapon(c: Combatant, name: str) -> Weapon:
    """The ranged weapon named, or the first one held ready."""
    if name:
        w = find_weapon(c, name)
        if w.kind != "ranged":
            raise RuleError(f"{w.name} is not a ranged weapon; aim and shoot with a ranged weapon")
        return w
    for w in held(c):
        if w.kind == "ranged":
            return w
    raise RuleError(f"{c.name} holds no ranged weapon ready; ready one first (affray act {c.handle} ready WEAPON)")


def loaded(c: Combatant, weapon: Weapon) -> bool:
    """Whether a held ranged weapon is loaded (no ``unloaded`` condition)."""
    return not any(x.name == "unloaded" and x.note == weapon.name for x in c.conditions)


#: Weapon groups a mounted warrior may not use, besides 2H (seed 004 "Mounted Combat").
PROHIBITED = ("polearm", "staff")


def mount_of(c: Combatant) -> str:
    """The handle of the mount ``c`` rides ("" when on foot)."""
    return next((x.id.split(":", 1)[1] for x in c.conditions if x.name == "mounted"), "")


def rider_of(c: Combatant) -> str:
    """The handle of whoever rides ``c`` ("" when nobody does)."""
    return next((x.id.split(":", 1)[1] for x in c.conditions if x.name == "ridden"), "")


def on_foot(c: Combatant) -> bool:
    """Neither riding nor a ridden mount."""
    return not mount_of(c) and not rider_of(c)


def movement_of(state: State, handle: str) -> int:
    """Metres a combatant moves in one Move: his mount's Movement when
    mounted (seed 004 "Mounted Combat": "A mounted character uses his
    mount's Movement score when moving rather than his own"), after the
    mover's useless legs (:func:`movement`)."""
    c = state.combatants[handle]
    m = mount_of(c)
    return movement(state.combatants[m]) if m else movement(c)


def weapon_group(w: Weapon) -> str:
    """The weapon's skill group, lower-case (our ruling: none given and two
    hands counts as ``2h``; seed 004 "Mounted Combat")."""
    return w.group.strip().lower() or ("2h" if w.hands >= 2 else "")


def check_weapon(c: Combatant, w: Weapon) -> None:
    """A mounted warrior may not use weapons dependent on a 2H Weapon skill,
    Polearm or Staff (seed 004 "Mounted Combat")."""
    g = weapon_group(w)
    if mount_of(c) and (g.startswith("2h") or g in PROHIBITED):
        raise RuleError(f"{c.name} is mounted and may not use {w.name} ({w.group or 'two-handed'}; seed 004 Mounted Combat); dismount or choose another weapon")


#: The situation that lifts the ±20% between a rider and a footman: "These
#: modifiers do not apply if the target on foot is as tall as the mounted
#: character is while mounted" (seed 004 "Mounted Combat"; the GM says so).
AS_TALL = "as-tall"


def skill_modifiers(
    state: State, me: str, other: str, w: Weapon | None, *, attacking: bool, as_tall: bool = False
) -> list[ev.Modifier]:
    """Mounted-combat modifiers for ``me`` attacking (or parrying, with
    ``w``; dodging, ``w`` None) against ``other``: the Riding cap on the
    weapon skill, +20% for a rider against a footman (attack or parry), −20%
    for a footman's reaction against a mounted attacker, −30% to a rider's
    Dodge. ``as_tall``: the footman is as tall as the rider, and the ±20%
    does not apply (seed 004 "Mounted Combat")."""
    c, o = state.combatants[me], state.combatants[other]
    mods: list[ev.Modifier] = []
    if mount_of(c):
        if w is not None:
            riding = skill(c, "Riding")
            if w.skill > riding:
                mods.append(ev.Modifier(riding - w.skill, f"mounted: {w.name} capped at Riding {riding}%"))
            if on_foot(o) and not as_tall:
                mods.append(ev.Modifier(20, "mounted against a foe on foot"))
        elif not attacking:
            mods.append(ev.Modifier(-30, "dodging while mounted"))
    elif not attacking and mount_of(o) and on_foot(c) and not as_tall:
        mods.append(ev.Modifier(-20, "on foot against a mounted attacker"))
    return mods


def check_attack(state: State, attacker: str, target: str, weapon: str) -> None:
    """Refuse a prohibited weapon for a mounted attacker, or an attack by a
    mount that flees."""
    c = state.combatants[attacker]
    if c.has("mount-fleeing"):
        raise RuleError(f"{c.name} is fleeing this round and may only flee (seed 004 Untrained Mounts)")
    if mount_of(c):
        check_weapon(c, find_weapon(c, weapon, ready_only=False) if weapon else default_weapon(c))


def dismount(draft: Draft, rider: str, reason: str) -> None:
    """End the ``mounted``/``ridden`` pair of ``rider`` (no action spent:
    dismounting, knocked off, thrown, or diving from the saddle)."""
    c = draft.state.combatants[rider]
    m = mount_of(c)
    for h, name in ((rider, "mounted"), (m, "ridden")):
        for x in draft.state.combatants[h].conditions:
            if x.name == name:
                draft.emit(ev.ConditionExpired(handle=h, condition_id=x.id, reason=reason))


def split_as_tall(situations) -> tuple[bool, tuple[str, ...]]:
    """Whether the GM named the footman as tall as the rider (``--situation
    as-tall``), and the other situations (the core's own keys)."""
    rest = tuple(s for s in situations if s.strip().lower() != AS_TALL)
    return len(rest) != len(tuple(situations)), rest


def check_parry(state, defender: str, with_item: str) -> None:
    """Natural weapons "may parry other natural weapons or unarmed attacks,
    but not crafted weapon attacks" (seed 004 "Natural Weapons")."""
    x = state.exchange
    if x is None or not with_item:
        return
    d = state.combatants[defender]
    item = parry_item(state, d, with_item)
    used = find_weapon(state.combatants[x.attacker], x.weapon, ready_only=False) if x.weapon != "Unarmed" else None
    if item.kind == "natural" and used is not None and used.kind not in ("natural", "unarmed"):
        raise RuleError(f"{item.name} is a natural weapon and may not parry the crafted {used.name} (seed 004 Natural Weapons); parry with a crafted weapon or dodge")


