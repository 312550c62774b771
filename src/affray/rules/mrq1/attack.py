"""Close combat attacks and reactions in mrq1.

Source: seed 004 "Close Combat Attacks" (making the attack, target reaction,
damage resolution), "Close Combat Situational Modifiers", "Critical Hits",
"Reactions", "Dodge", "Parry", "Riposte", "Free Attacks", "Defend" and the
rules-reference rulings on the reaction's attacker roll, Overextended and
surprise.
"""

from __future__ import annotations

from affray.events import core as ev
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError, check_target
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1 import tables
from affray.rules.mrq1.common import (
    condition_modifiers,
    kind_parts,
    default_weapon,
    find_weapon,
    rulings_of,
    sheet_of,
    skill,
    table_level,
    test,
    useless_limbs,
)
from affray.rules.mrq1.sheet import Weapon


def situation_modifiers(keys: tuple[str, ...]) -> list[ev.Modifier]:
    """Modifiers for named situations from the seed's close combat table."""
    mods = []
    for key in keys:
        entry = tables.CLOSE_MODIFIERS.get(key)
        if entry is None:
            known = ", ".join(k for k in tables.CLOSE_MODIFIERS if tables.CLOSE_MODIFIERS[k].value)
            raise RuleError(f"unknown situation {key!r}; known: {known}")
        if entry.value:
            mods.append(ev.Modifier(entry.value, entry.text))
    return mods


def _require_turn(state: State, handle: str) -> Combatant:
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


def declare_attack(draft: Draft, attacker: str, target: str, weapon_name: str, modifiers, situations) -> None:
    """A close combat attack (seed 004 "Close Combat Attacks", step 1).

    Costs one combat action. The roll is a d100 against the modified Weapon
    skill; at or under floor(skill/10) it is a critical (seed 004 "Critical
    Hits"). A helpless target is hit critically (situational modifiers).
    """
    state = draft.state
    from affray.rules.mrq1 import options

    if options.declare(draft, attacker, target, weapon_name, modifiers, situations):
        return
    a = _require_turn(state, attacker)
    check_target(state, attacker, target)
    t = state.combatants[target]
    weapon = find_weapon(a, weapon_name) if weapon_name else default_weapon(a)
    _check_arms(a, weapon)
    draft.emit(ev.ActionSpent(handle=attacker, kind="combat-action", reason=f"attack on {t.name}"))
    for cond in a.conditions:
        if cond.name == "overextended":
            draft.emit(ev.ConditionExpired(handle=attacker, condition_id=cond.id, reason="performed another combat action"))
    options.end_other_actions(draft, attacker, "attack")
    mods = _attack_modifiers(draft.state, attacker, target, modifiers, situations)
    _open_exchange(draft, attacker, target, weapon, "close", mods)


def _check_arms(c: Combatant, weapon: Weapon) -> None:
    arms = useless_limbs(c, "arm")
    if len(arms) >= 2:
        raise RuleError(f"{c.name} has two useless arms and may not use any weapon (seed 004)")
    if arms and weapon.hands >= 2:
        raise RuleError(f"{c.name} has a useless arm and may not use the two-handed {weapon.name} (seed 004)")


def _attack_modifiers(state: State, attacker: str, target: str, modifiers, situations) -> list[ev.Modifier]:
    a, t = state.combatants[attacker], state.combatants[target]
    mods = condition_modifiers(a, mobility=True, combat=True)
    if t.stance == "prone":
        mods.append(ev.Modifier(tables.CLOSE_MODIFIERS["target-prone"].value, "target prone"))
    if t.has("surprised"):
        mods.append(ev.Modifier(tables.CLOSE_MODIFIERS["target-surprised"].value, "target surprised"))
    mods.extend(situation_modifiers(tuple(situations)))
    mods.extend(modifiers)
    return mods


def _open_exchange(
    draft: Draft, attacker: str, target: str, weapon: Weapon, kind: str, mods, *, auto_fail: str = "", base: int | None = None
) -> None:
    """Declare the attack, roll it and go on to the reaction. ``kind`` may
    carry options (:func:`common.make_kind`); a ranged attack does not
    engage. ``auto_fail`` names why the attack fails whatever the roll
    (beyond double range, a hurricane); ``base`` replaces the weapon skill
    (a ranged attack at long range is halved before other modifiers)."""
    state = draft.state
    a, t = state.combatants[attacker], state.combatants[target]
    exchange = state.next_exchange
    base_kind = kind_parts(kind)[0]
    draft.emit(
        ev.AttackDeclared(
            exchange=exchange, attacker=attacker, target=target, weapon=weapon.name, kind=kind, modifiers=tuple(mods)
        )
    )
    if target not in a.engaged and base_kind != "ranged":
        draft.emit(ev.EngagementChanged(a=attacker, b=target, engaged=True))
    skill_base = weapon.skill if base is None else base
    tested = test(draft, a, weapon.name, skill_base, mods, f"{base_kind} attack on {t.name}", critical_base=skill_base)
    helpless = bool(t.effect("helpless")) or t.status == "unconscious"
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
        from affray.rules.mrq1.wounds import lose_actions

        lose_actions(draft, attacker, 1, "fumble", dict(cause=draft.state.version, round=state.round, step=draft.state.step))
    if not hit:
        what = "fumbles" if fumble else "misses"
        end_exchange(draft, f"{a.name} {what} {t.name} ({tested.roll} vs {tested.target}%)")
        return
    offer_reaction(draft)


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


def offer_reaction(draft: Draft) -> None:
    """Ask the target to react, or go straight to damage when it cannot."""
    state = draft.state
    x = state.exchange
    assert x is not None
    t = state.combatants[x.target]
    a = state.combatants[x.attacker]
    why = can_react(state, x.target, x.attacker)
    from affray.rules.mrq1 import options as attack_options

    extra = attack_options.extra_parry(state, x.target, x.attacker) if why.endswith("no reactions left") else ""
    if why and not extra:
        draft.emit(ev.NoteAdded(text=f"{why}: the attack is unopposed"))
        from affray.rules.mrq1.damage import queue_damage

        queue_damage(draft)
        return
    ranged = kind_parts(x.kind)[0] == "ranged"
    options = [] if extra else ["dodge"]
    parry_with = [w.name for w in sheet_of(t).weapons if w.name in t.ready and w.kind in ("melee", "shield", "natural", "unarmed")]
    if extra:
        parry_with = [extra]
    if parry_with and not ranged:
        options.insert(0, "parry")
    if not options:
        draft.emit(ev.NoteAdded(text=f"{why}: the attack is unopposed"))
        from affray.rules.mrq1.damage import queue_damage

        queue_damage(draft)
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
    """Dodge, parry or none against the pending attack (seed 004 "Dodge",
    "Parry"); a pending Riposte is also answered here."""
    state = draft.state
    step = next((s for s in state.pending if s.who == defender and s.verb == "react"), None)
    c = state.combatants[defender]
    if step is None:
        waiting = "; ".join(s.prompt for s in state.pending) or "nothing"
        raise RuleError(f"{c.name} has no reaction to make now (waiting for: {waiting})")
    reaction = reaction.lower()
    if reaction not in step.options:
        if reaction == "parry" and state.exchange is not None and kind_parts(state.exchange.kind)[0] == "ranged":
            raise RuleError(f"ranged attacks may not be parried (seed 004 'Parry'); {c.name} can {' | '.join(step.options)}")
        raise RuleError(f"{c.name} can {' | '.join(step.options)} here, not {reaction!r}")
    if step.kind == "riposte":
        _riposte(draft, step, reaction, with_item, modifiers, situations)
        return
    if step.kind == "free-attack":
        from affray.rules.mrq1.free_attacks import free_attack

        free_attack(draft, step, reaction, with_item, modifiers, situations)
        return
    if step.kind == "dive":
        from affray.rules.mrq1.area import dive

        dive(draft, step, reaction)
        return
    x = state.exchange
    assert x is not None
    if reaction == "none":
        draft.emit(ev.ReactionChosen(exchange=x.id, handle=defender, reaction="none"))
        from affray.rules.mrq1.damage import queue_damage

        queue_damage(draft)
        return
    a = state.combatants[x.attacker]
    extra = str(step.data.get("extra-parry", ""))
    if reaction == "parry":
        item = find_weapon(c, with_item) if with_item else (find_weapon(c, extra) if extra else _default_parry(c))
        if item.kind == "ranged":
            raise RuleError(f"{item.name} cannot parry; parry with a melee weapon or shield")
        if extra and item.name != extra:
            raise RuleError(f"{c.name} has no reaction left; only the off-hand {extra} may parry (Two Weapon Use)")
        base = item.skill
        skill_name = f"{item.name} (parry)"
    else:
        item = None
        base = skill(c, "Dodge")
        skill_name = "Dodge"
    if extra:
        from affray.rules.mrq1 import options as attack_options

        attack_options.use_off_hand(draft, defender, "extra parry")
    else:
        draft.emit(ev.ActionSpent(handle=defender, kind="reaction", reason=f"{reaction} against {a.name}"))
    from affray.rules.mrq1.common import break_aim

    break_aim(draft, defender, f"{reaction}s")
    draft.emit(ev.ReactionChosen(exchange=x.id, handle=defender, reaction=reaction, with_item=item.name if item else ""))
    mods = condition_modifiers(c, reaction=True, mobility=True, combat=True)
    mods.extend(situation_modifiers(tuple(situations)))
    mods.extend(modifiers)
    for cond in c.conditions:
        if cond.name == "overextended":
            draft.emit(ev.ConditionExpired(handle=defender, condition_id=cond.id, reason="its next reaction was taken"))
    d = test(draft, c, skill_name, base, mods, f"{reaction} against {a.name}")
    rulings = rulings_of(state)
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
    draft.emit(
        ev.ReactionResolved(exchange=x.id, cell=f"{reaction}:{row}/{col}", outcome=cell.outcome, effects=effects)
    )
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
            _offer_riposte(draft, defender, item)
            return
        if reaction == "dodge" and kind_parts(x.kind)[1].get("crowd-from"):
            from affray.rules.mrq1 import ranged

            ranged.continue_projectile(draft)
            return
        end_exchange(draft, f"{c.name}'s {reaction} defeats {a.name}'s attack")
        return
    from affray.rules.mrq1.damage import queue_damage

    queue_damage(draft)


def _default_parry(c: Combatant) -> Weapon:
    ready = [w for w in sheet_of(c).weapons if w.name in c.ready and w.kind != "ranged"]
    shields = [w for w in ready if w.kind == "shield"]
    if shields:
        return shields[0]
    if ready:
        return ready[0]
    raise RuleError(f"{c.name} holds nothing to parry with; dodge instead")


def riposte_step(state: State, defender: str, item_name: str) -> ev.PendingStep | None:
    """The pending Riposte for ``defender`` after a parry cell that grants one
    (seed 004 "Riposte": a free attack against the attacker, which needs an
    available reaction), or None when it cannot be taken."""
    x = state.exchange
    assert x is not None
    c = state.combatants[defender]
    a = state.combatants[x.attacker]
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
        exchange=x.id,
        data={"target": a.handle, "weapon": weapon.name},
    )


def _offer_riposte(draft: Draft, defender: str, item: Weapon | None) -> None:
    """After a parry that defeats the attack and grants a Riposte."""
    step = riposte_step(draft.state, defender, item.name if item else "")
    if step is None:
        end_exchange(draft, "the parry defeats the attack")
        return
    draft.emit(ev.StepsAwaited(steps=(step,)))


def _riposte(draft: Draft, step: ev.PendingStep, reaction: str, with_item: str, modifiers, situations) -> None:
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
    mods = _attack_modifiers(draft.state, defender, target, modifiers, situations)
    _open_exchange(draft, defender, target, weapon, "riposte", mods)


def end_exchange(draft: Draft, summary: str, *, advance_turn: bool = True) -> None:
    """Close the exchange and, unless told otherwise, move the turn on."""
    x = draft.state.exchange
    if x is not None:
        draft.emit(ev.ExchangeEnded(exchange=x.id, summary=summary))
    if advance_turn:
        from affray.rules.mrq1.actions import proceed

        proceed(draft)


def take_action(draft: Draft, who: str, action: str) -> None:
    """A combat action other than an attack (seed 004 "Combat Actions"):
    see :mod:`affray.rules.mrq1.actions` for the action text."""
    from affray.rules.mrq1.actions import take_action as act

    act(draft, who, action)
