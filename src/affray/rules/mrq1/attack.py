"""Close combat attacks and reactions in mrq1.

Source: seed 004 "Close Combat Attacks" (1 - Making the Attack, 2 - Target
Reaction), "Close Combat Situational Modifiers", "Critical Hits",
"Reactions", "Dodge", "Parry" (the Dodge and Parry tables are applied in
:func:`resolve_reaction`), "Riposte", "Free Attacks", "Defend" and the
rules-reference rulings on the reaction's attacker roll, Overextended and
surprise.

The flow: :func:`declare_attack` (or another module's step
``attack:open``) rolls the attack in :func:`open_exchange`; a hit asks the
target to react (:func:`offer_reaction`); :func:`react` answers it and
queues ``react:KIND``; a hit that stands queues ``damage:queue`` (step 3,
:mod:`.damage`). A miss or a defeated attack ends the exchange
(:func:`.core.end_exchange`).
"""

from __future__ import annotations

from affray.events import core as ev
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError, check_target
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1 import tables
from affray.rules.mrq1.core import (
    attack_modifiers,
    break_aim,
    can_react,
    check_arms,
    check_attack,
    check_parry,
    check_weapon,
    condition_modifiers,
    default_weapon,
    end_exchange,
    end_other_actions,
    extra_parry,
    find_weapon,
    has_attack_options,
    improvised_parry,
    IMPROVISED,
    parry_item,
    kind_parts,
    limb_check,
    lose_actions,
    require_turn,
    restricted,
    rulings_of,
    sheet_of,
    named_helpless,
    shield_skill,
    situation_modifiers,
    skill,
    skill_modifiers,
    split_as_tall,
    table_level,
    test,
    use_off_hand,
    usable,
)
from affray.rules.mrq1.sheet import Weapon


def declare_attack(draft: Draft, attacker: str, target: str, weapon_name: str, modifiers, situations) -> None:
    """A close combat attack (seed 004 "Close Combat Attacks", step 1).

    Costs one combat action. The roll is a d100 against the modified Weapon
    skill; at or under floor(skill/10) it is a critical (seed 004 "Critical
    Hits"). A helpless target is hit critically (situational modifiers).
    A grappling combatant may not attack this way (seed 004 "Grappling
    Combatants"); a rider's weapon and modifiers follow seed 004 "Mounted
    Combat". An attack with options (charge, flurry, precise, off-hand,
    cover, a ranged weapon) goes on as the step ``attack:options``.
    """
    state = draft.state
    restricted(state, attacker, "make a normal attack")
    check_attack(state, attacker, target, weapon_name)
    a = state.combatants[attacker]
    w = find_weapon(a, weapon_name) if weapon_name else default_weapon(a)
    tall, situations = split_as_tall(situations)
    extra = skill_modifiers(state, attacker, target, w, attacking=True, as_tall=tall)
    if extra:  # else the options pick the weapon (the off-hand item for a two-weapon bonus attack)
        weapon_name, modifiers = w.name, tuple(modifiers) + tuple(extra)
    if has_attack_options(state, attacker, target, weapon_name, modifiers, situations):
        draft.then("attack:options", attacker=attacker, target=target, weapon_name=weapon_name,
                   modifiers=modifiers, situations=situations)
        return
    a = require_turn(state, attacker)
    check_target(state, attacker, target)
    t = state.combatants[target]
    weapon = find_weapon(a, weapon_name) if weapon_name else default_weapon(a)
    check_arms(a, weapon, rulings_of(state).two_useless_legs_weapons)
    draft.emit(ev.ActionSpent(handle=attacker, kind="combat-action", reason=f"attack on {t.name}"))
    for cond in a.conditions:
        if cond.name == "overextended":
            draft.emit(ev.ConditionExpired(handle=attacker, condition_id=cond.id, reason="performed another combat action"))
    end_other_actions(draft, attacker, "attack")
    mods = attack_modifiers(draft.state, attacker, target, modifiers, situations)
    open_exchange(draft, attacker, target, weapon, "close", mods)


def open_exchange(
    draft: Draft, attacker: str, target: str, weapon: Weapon, exchange_kind: str, mods, *, auto_fail: str = "", base: int | None = None
) -> None:
    """The step ``attack:open``: declare the attack, roll it and go on to
    the reaction (seed 004 "Close Combat Attacks" 1 and 2). ``exchange_kind`` may
    carry options (:func:`.core.make_kind`); a ranged attack does not
    engage. ``auto_fail`` names why the attack fails whatever the roll
    (beyond double range, a hurricane); ``base`` replaces the weapon skill
    (a ranged attack at long range is halved before other modifiers)."""
    state = draft.state
    a, t = state.combatants[attacker], state.combatants[target]
    exchange = state.next_exchange
    base_kind = kind_parts(exchange_kind)[0]
    draft.emit(
        ev.AttackDeclared(
            exchange=exchange, attacker=attacker, target=target, weapon=weapon.name, kind=exchange_kind, modifiers=tuple(mods)
        )
    )
    if target not in a.engaged and base_kind != "ranged":
        draft.emit(ev.EngagementChanged(a=attacker, b=target, engaged=True))
    skill_base = weapon.skill if base is None else base
    tested = test(draft, a, weapon.name, skill_base, mods, f"{base_kind} attack on {t.name}", critical_base=skill_base)
    helpless = bool(t.effect("helpless")) or t.status == "unconscious" or named_helpless(mods)
    if base_kind == "ranged":
        helpless = False  # a helpless target is +10% at range, not a critical (seed 004 ranged table)
    hit = tested.result in ("success", "critical") or helpless
    critical = tested.result == "critical" or helpless
    fumble = tested.result == "fumble" and not helpless
    if auto_fail:
        draft.emit(ev.NoteAdded(text=f"{auto_fail}: the attack fails automatically (seed 004)"))
        hit = critical = False
    draft.emit(
        ev.AttackResolved(
            exchange=exchange, hit=hit, critical=critical, fumble=fumble, roll=tested.roll, skill=tested.target
        )
    )
    if helpless and tested.result not in ("critical",):
        draft.emit(ev.NoteAdded(text=f"{t.name} is helpless: automatic critical hit (seed 004)"))
    if fumble and rulings_of(state).fumble_effect == "lose-next-action":
        lose_actions(draft, attacker, 1, "fumble", dict(cause=draft.state.version, round=state.round, step=draft.state.step))
    if not hit:
        what = "fumbles" if fumble else "misses"
        end_exchange(draft, f"{a.name} {what} {t.name} ({tested.roll} vs {tested.target}%)")
        return
    offer_reaction(draft)


def offer_reaction(draft: Draft) -> None:
    """The step ``attack:offer-reaction``: ask the target to react, or go
    straight to damage (``damage:queue``) when it cannot (seed 004 "Close
    Combat Attacks" 2)."""
    state = draft.state
    x = state.exchange
    assert x is not None
    t = state.combatants[x.target]
    a = state.combatants[x.attacker]
    why = can_react(state, x.target, x.attacker)
    extra = extra_parry(state, x.target, x.attacker) if why.endswith("no reactions left") else ""
    if why and not extra:
        draft.emit(ev.NoteAdded(text=f"{why}: the attack is unopposed"))
        draft.then("damage:queue")
        return
    ranged = kind_parts(x.kind)[0] == "ranged"
    options = [] if extra else ["dodge"]
    parry_with = [w.name for w in sheet_of(t).weapons
                  if w.name in t.ready and w.kind in ("melee", "shield", "natural", "unarmed") and usable(state, t, w)]
    if extra:
        parry_with = [extra]
    if parry_with and not ranged:
        options.insert(0, "parry")
    if not options:
        draft.emit(ev.NoteAdded(text=f"{why}: the attack is unopposed"))
        draft.then("damage:queue")
        return
    options.append("none")
    dice = [ev.DiceNeed(f"{t.name}'s parry or dodge", "1D100", by=t.handle)]
    if rulings_of(state).reaction_attacker_roll == "fresh":
        dice.append(ev.DiceNeed(f"{a.name}'s attack, fresh roll for the table", "1D100", by=a.handle))
    with_text = f" (with {', '.join(parry_with)})" if parry_with and not ranged else ""
    if extra:
        with_text += " (the off-hand's extra parry: Two Weapon Use)"
    draft.emit(
        ev.StepsAwaited(
            steps=(
                ev.PendingStep(
                    who=t.handle,
                    verb="react",
                    kind="react",
                    prompt=f"{t.name}: choose a reaction to {a.name}'s attack: {' | '.join(options)}{with_text}",
                    options=tuple(options),
                    dice=tuple(dice),
                    exchange=x.id,
                    data={"extra-parry": extra} if extra else {},
                ),
            )
        )
    )


def react(draft: Draft, defender: str, reaction: str, with_item: str, modifiers, situations) -> None:
    """``affray react DEFENDER REACTION``: check the answer to ``defender``'s
    pending reaction step and queue ``react:KIND`` (``react``: Dodge or
    parry, :func:`resolve_reaction`; ``riposte``; ``free-attack``; ``dive``).

    Against the open attack, the parrying item is chosen here (the one
    named, else :func:`default_parry`, else a bare hand) and the
    mounted-combat modifiers are added (seed 004 "Mounted Combat", "Natural
    Weapons"). A grappling combatant may not react (seed 004 "Grappling
    Combatants"). Raises :class:`RuleError` (one line)."""
    state = draft.state
    if not any(s.who == defender and s.verb == "react" for s in state.pending):
        restricted(state, defender, "use Reactions")
    chosen, x = reaction.strip().lower(), state.exchange
    if chosen in ("parry", "dodge") and x is not None and any(s.who == defender and s.kind == "react" for s in state.pending):
        c = state.combatants[defender]
        item = None
        if chosen == "parry":
            check_parry(state, defender, with_item)
            if with_item:
                item = parry_item(state, c, with_item)
            elif any(w.name in c.ready and w.kind != "ranged" for w in sheet_of(c).weapons):
                item = default_parry(c)
            else:
                item = next((w for w in sheet_of(c).weapons if w.kind in ("unarmed", "natural")), None)
            if item is not None:
                check_weapon(c, item)
                with_item = item.name if item.kind != IMPROVISED else with_item  # NAME:AP[:SKILL] kept
        tall, situations = split_as_tall(situations)
        extra = skill_modifiers(state, defender, x.attacker, item, attacking=False, as_tall=tall)
        modifiers = tuple(modifiers) + tuple(extra)
    step = next((s for s in state.pending if s.who == defender and s.verb == "react"), None)
    c = state.combatants[defender]
    if step is None:
        waiting = "; ".join(s.prompt for s in state.pending) or "nothing"
        raise RuleError(f"{c.name} has no reaction to make now (waiting for: {waiting})")
    reaction = reaction.lower()
    if reaction == "parry" and step.kind == "react" and with_item:
        parry_item(state, c, with_item)  # an item that is not there is refused with how to name one
    improvised = reaction == "parry" and step.kind == "react" and improvised_parry(state, c, with_item) is not None
    if reaction not in step.options and not (improvised and state.exchange is not None
                                             and kind_parts(state.exchange.kind)[0] != "ranged"):
        if reaction == "parry" and state.exchange is not None and kind_parts(state.exchange.kind)[0] == "ranged":
            raise RuleError(f"ranged attacks may not be parried (seed 004 'Parry'); {c.name} can {' | '.join(step.options)}")
        raise RuleError(f"{c.name} can {' | '.join(step.options)} here, not {reaction!r}")
    if step.kind == "dive":
        draft.then("react:dive", step=step, reaction=reaction)
        return
    draft.then("react:" + step.kind, step=step, reaction=reaction, with_item=with_item, modifiers=modifiers,
               situations=situations)


def resolve_reaction(draft: Draft, step: ev.PendingStep, reaction: str, with_item: str, modifiers, situations) -> None:
    """The step ``react:react``: Dodge, parry or none against the open
    attack, read on the Dodge or Parry table (seed 004 "Dodge", "Parry",
    :func:`.tables.dodge`, :func:`.tables.parry`); a hit that stands goes on
    to ``damage:queue``."""
    state = draft.state
    defender = step.who
    c = state.combatants[defender]
    x = state.exchange
    assert x is not None
    if reaction == "none":
        draft.emit(ev.ReactionChosen(exchange=x.id, handle=defender, reaction="none"))
        draft.then("damage:queue")
        return
    a = state.combatants[x.attacker]
    rulings = rulings_of(state)
    extra = str(step.data.get("extra-parry", ""))
    if reaction == "parry":
        item = parry_item(state, c, with_item) if with_item else (find_weapon(c, extra) if extra else default_parry(c))
        if extra and item.name != extra:
            raise RuleError(f"{c.name} has no reaction left; only the off-hand {extra} may parry (Two Weapon Use)")
        base = item.skill
        skill_name = f"{item.name} (parry)"
        if item.kind == "ranged":  # seed 004 "Parry", Improvisation: "such as crossbows ... the Shield Skill"
            name, base = shield_skill(c)
            skill_name = f"{name} (improvised parry with {item.name})"
        elif item.kind == IMPROVISED:  # "or fallen logs": an item not on the sheet, on the skill it names
            skill_name = f"{item.group} (improvised parry with {item.name})"
    else:
        item = None
        base = skill(c, "Dodge")
        skill_name = "Dodge"
    if extra:
        use_off_hand(draft, defender, "extra parry")
    else:
        draft.emit(ev.ActionSpent(handle=defender, kind="reaction", reason=f"{reaction} against {a.name}"))
    break_aim(draft, defender, f"{reaction}s")
    draft.emit(ev.ReactionChosen(exchange=x.id, handle=defender, reaction=reaction, with_item=item.name if item else ""))
    if reaction == "parry":
        check_arms(c, item, rulings.two_useless_legs_weapons)
        mods = condition_modifiers(c, reaction=True, mobility=True, combat=True)
    else:
        mods = condition_modifiers(c, reaction=True, mobility=True, combat=True) + limb_check(c, "Dodge")
    mods.extend(situation_modifiers(tuple(situations), role=reaction))
    mods.extend(modifiers)
    for cond in c.conditions:
        if cond.name == "overextended":
            draft.emit(ev.ConditionExpired(handle=defender, condition_id=cond.id, reason="its next reaction was taken"))
    d = test(draft, c, skill_name, base, mods, f"{reaction} against {a.name}")
    if rulings.reaction_attacker_roll == "fresh":
        fresh = test(draft, a, x.weapon, x.skill, (), f"{x.weapon}: fresh roll against the {reaction}")
        att_level = fresh.result
    else:
        att_level = "critical" if x.critical else ("success" if x.hit else "failure")
    row, col = table_level(att_level), table_level(d.result)
    cell = (tables.dodge if reaction == "dodge" else tables.parry)(row, col)
    effects = dict(cell.effects)
    if effects.get("parry_ap_halves") and item is not None:
        effects["reduce"] = tables.parry_deduction(item.ap, effects["parry_ap_halves"], rulings)
    reading = ""
    if effects.get("minimum_damage") and (row == "critical") != x.critical:
        # "If the attack being dodged was a critical hit": the attack roll and the
        # fresh table roll disagree; ruling dodged_critical_from says which counts.
        counts = x.critical if rulings.dodged_critical_from == "attack" else row == "critical"
        effects["dodged_critical"] = int(counts)
        which = "attack roll" if rulings.dodged_critical_from == "attack" else "fresh table roll"
        reading = (f"ruling dodged_critical_from={rulings.dodged_critical_from}: the {which} "
                   f"{'is' if counts else 'is not'} a critical, so the dodged blow does "
                   f"{'normal' if counts else 'minimum'} damage")
    draft.emit(
        ev.ReactionResolved(exchange=x.id, cell=f"{reaction}:{row}/{col}", outcome=cell.outcome, effects=effects)
    )
    if reading:
        draft.emit(ev.NoteAdded(text=reading))
    if effects.get("overextended"):
        who = a.handle if rulings.overextended_applies_to == "attacker" else defender
        draft.emit(
            ev.ConditionApplied(
                handle=who,
                condition=cat.make(
                    "overextended",
                    cause=draft.state.version,
                    round=draft.state.round,
                    step=draft.state.step,
                    ends="next-action",
                    effects={"next-reaction": -20},
                ),
            )
        )
    if not effects.get("hit"):
        if effects.get("riposte"):
            offer_riposte(draft, defender, item)
            return
        if reaction == "dodge" and kind_parts(x.kind)[1].get("crowd-from"):
            draft.then("ranged:projectile-on")
            return
        end_exchange(draft, f"{c.name}'s {reaction} defeats {a.name}'s attack")
        return
    draft.then("damage:queue")


def default_parry(c: Combatant) -> Weapon:
    """What ``c`` parries with when he names nothing: the first ready
    shield, else the first ready close combat weapon. Raises
    :class:`RuleError` when he holds nothing to parry with."""
    ready = [w for w in sheet_of(c).weapons if w.name in c.ready and w.kind != "ranged"]
    shields = [w for w in ready if w.kind == "shield"]
    if shields:
        return shields[0]
    if ready:
        return ready[0]
    raise RuleError(f"{c.name} holds nothing to parry with; dodge instead")


def riposte_step(state: State, defender: str, item_name: str, attacker: str = "") -> ev.PendingStep | None:
    """The pending Riposte for ``defender`` after a parry cell that grants one
    (seed 004 "Riposte": a free attack against the attacker, which needs an
    available reaction), or None when it cannot be taken. ``attacker``:
    whom it strikes when no exchange is open (a Break Free)."""
    x = state.exchange
    assert x is not None or attacker
    c = state.combatants[defender]
    a = state.combatants[attacker or x.attacker]
    if c.reactions <= 0 or c.status != "active" or c.effect("helpless"):
        return None
    weapons = {w.name: w for w in sheet_of(c).weapons}
    item = weapons.get(item_name)
    weapon = item if item is not None and item.kind != "shield" and item.name in c.ready else None
    if weapon is None:
        try:
            weapon = default_weapon(c)
        except RuleError:
            return None
    return ev.PendingStep(
        who=defender,
        verb="react",
        kind="riposte",
        prompt=f"{c.name} may Riposte against {a.name} (free attack, costs a reaction): riposte | none",
        options=("riposte", "none"),
        dice=(ev.DiceNeed(f"{c.name}'s riposte attack roll", "1D100", by=defender),),
        exchange=x.id if x is not None else 0,
        data={"target": a.handle, "weapon": weapon.name},
    )


def follow_with_riposte(draft: Draft, defender: str, item_name: str, follow: list[ev.PendingStep]) -> None:
    """The step ``attack:riposte-after-damage``: after a parry that let
    damage through and grants a Riposte (Parry table, Success/Critical:
    damage less 2xAP), add the defender's Riposte to ``follow``, the steps
    the blow leaves pending, when he can take it."""
    offer = riposte_step(draft.state, defender, item_name)
    if offer is not None:
        follow.append(offer)


def offer_riposte(draft: Draft, defender: str, item: Weapon | None, attacker: str = "") -> None:
    """The step ``attack:offer-riposte``: after a parry (or a resisted
    grapple, or a Break Free read as "Grapple fails; Defender may Riposte"
    against ``attacker``) that defeats the attack and grants a Riposte,
    offer it, or end the exchange when it cannot be taken (seed 004
    "Riposte", "Grappling Combatants")."""
    step = riposte_step(draft.state, defender, item.name if item else "", attacker)
    if step is None:
        end_exchange(draft, "the parry defeats the attack")
        return
    draft.emit(ev.StepsAwaited(steps=(step,)))


def riposte(draft: Draft, step: ev.PendingStep, reaction: str, with_item: str, modifiers, situations) -> None:
    """The step ``react:riposte``: take the Riposte (a free attack on the
    attacker, costing a Reaction: the exchange closes and a new one opens)
    or let it go (seed 004 "Riposte")."""
    state = draft.state
    defender = step.who
    rest = tuple(s for s in state.pending if s is not step)
    if reaction == "none":
        draft.emit(ev.NoteAdded(text=f"{state.combatants[defender].name} lets the riposte go"))
        if rest:
            draft.emit(ev.StepsAwaited(steps=rest))
        else:
            end_exchange(draft, "no riposte")
        return
    if state.exchange is not None:
        end_exchange(draft, "the defender ripostes", advance_turn=False)
    c = state.combatants[defender]
    weapon = find_weapon(c, with_item) if with_item else find_weapon(c, str(step.data["weapon"]))
    target = str(step.data["target"])
    draft.emit(ev.ActionSpent(handle=defender, kind="reaction", reason=f"riposte against {state.combatants[target].name}"))
    mods = attack_modifiers(draft.state, defender, target, modifiers, situations)
    open_exchange(draft, defender, target, weapon, "riposte", mods)
