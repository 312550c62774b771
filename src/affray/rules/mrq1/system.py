"""The mrq1 rule system: Mongoose RuneQuest (1st ed.) SRD combat, seed 004.

``SYSTEM.decide(state, command, dice)`` turns a command into events. It
reads the projected state and never touches the store.

This module is the router (DESIGN.md, "Inside a system, steps are data and
imports run one way"), and the only one that imports the rule modules: the
``COMMANDS`` table sends each command to its handler, the ``STEPS`` table
each step kind a handler queued with ``draft.then(kind, **args)`` (or the
pending step an ``affray roll``, ``react`` or ``choose`` answers) to the
handler of its seed section. Read ``STEPS`` top to bottom for the course
of an exchange: attack, reaction, damage and what follows it, the end of
the exchange and the next turn.
"""

from __future__ import annotations

import msgspec

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.base import Draft, RuleError, SystemBase, find_combatant, joining
from affray.rules.mrq1 import (
    actions,
    area,
    attack,
    casting,
    core,
    damage,
    delay,
    free_attacks,
    grapple,
    heroes,
    impaling,
    knockback,
    mounted,
    movement,
    options,
    precise,
    ranged,
    readying,
    turns,
    unarmed,
    wounds,
)
from affray.rules.mrq1.conditions import CATALOGUE
from affray.rules.mrq1.rulings import QUIET_AT_DEFAULT, RULINGS_DOC, from_mapping
from affray.rules.mrq1.sheet import Sheet, SheetError, compact, derive, load_sheet, parse_sheet
from affray.rules import gm
from affray.rules.router import Router

# --------------------------------------------------------------------------- #
# Commands
# --------------------------------------------------------------------------- #


def _join(draft: Draft, command: cmd.JoinCombatant) -> None:
    """A combatant joins with his sheet (derived attributes, seed 004); once
    two sides are present the GM may start round 1."""
    state = draft.state
    if state.phase in ("over", "closed"):
        raise RuleError("the fight is over; open a new encounter with 'affray new'")
    try:
        sheet = msgspec.convert(command.sheet, Sheet)
    except msgspec.ValidationError as exc:
        raise RuleError(f"sheet: {exc}") from None
    name = command.name or sheet.name
    handle, side = joining(state, command, name)
    d = derive(sheet, from_mapping(state.rulings))
    draft.emit(
        ev.CombatantJoined(
            handle=handle,
            name=name,
            side=side,
            sheet=compact(msgspec.to_builtins(sheet)),
            locations=tuple(
                ev.LocationInit(name=l.name, hp=l.hp, ap=l.ap, low=l.low, high=l.high, limb=l.limb)
                for l in d.locations
            ),
            combat_actions=d.combat_actions,
            reactions=d.reactions,
            movement=d.movement,
            weapons_ready=tuple(d.ready),
            surprised=command.surprised,
        )
    )
    if state.phase == "setup":
        s = draft.state
        sides = {c.side for c in s.combatants.values()}
        steps = ()
        if len(sides) >= 2:
            steps = (
                ev.PendingStep(
                    who="GM",
                    verb="start",
                    kind="start",
                    prompt="GM: start round 1 (strike ranks), or join more combatants",
                    dice=turns.sr_dice(s),
                ),
            )
        draft.emit(ev.StepsAwaited(steps=steps))


def _start_round(draft: Draft, command: cmd.StartRound) -> None:
    turns.start(draft)
    draft.then("mounted:riding-tests")


def _end_round(draft: Draft, command: cmd.EndRound) -> None:
    turns.end_round(draft)
    draft.then("mounted:riding-tests")


def _declare_attack(draft: Draft, command: cmd.DeclareAttack) -> None:
    state = draft.state
    attacker, target = find_combatant(state, command.attacker), find_combatant(state, command.target)
    attack.declare_attack(draft, attacker, target, command.weapon, command.modifiers, command.situations)
    draft.then("unarmed:bare-parry")


def _choose_reaction(draft: Draft, command: cmd.ChooseReaction) -> None:
    state = draft.state
    who = find_combatant(state, command.defender)
    if any(s.who == who and s.kind == "grapple-defence" for s in state.pending):
        draft.then("react:grapple-defence", defender=who, choice=command.reaction, with_item=command.with_item,
                   modifiers=command.modifiers, situations=command.situations)
        return
    attack.react(draft, who, command.reaction, command.with_item, command.modifiers, command.situations)
    draft.then("unarmed:after-parry")


#: Roll steps of the rules added to the melee core; an ``affray roll`` that
#: answers one has no after-command steps.
_OWN_ROLLS = ("grapple-damage", *unarmed.KINDS, "riding")


def _roll(draft: Draft, command: cmd.RollPending) -> None:
    """``affray roll``: the first pending roll step (of ``who``) goes to the
    step ``roll:KIND``; mounted combat re-rolls excluded hit locations."""
    state = draft.state
    who = find_combatant(state, command.who) if command.who else ""
    step = core.pending_roll(state, who)
    rest = tuple(s for s in state.pending if s is not step)
    if step.kind in _OWN_ROLLS:
        draft.then("roll:" + step.kind, step=step, rest=rest)
        return
    mounted.reroll_excluded_locations(draft)
    draft.then("roll:" + step.kind, step=step, rest=rest)
    draft.then("unarmed:lay-hold")


def _choose(draft: Draft, command: cmd.MakeChoice) -> None:
    state = draft.state
    who = find_combatant(state, command.who)
    step = next((s for s in state.pending if s.who == who and s.kind == "lay-hold"), None)
    if step is not None:
        draft.then("choose:lay-hold", step=step, option=command.option)
        return
    damage.choose(draft, who, command.option)


def _take_action(draft: Draft, command: cmd.TakeAction) -> None:
    state = draft.state
    word = command.action.strip().lower()
    gm = command.who.strip().lower() == "gm" and "gm" not in state.combatants  # the GM's area effect
    if not gm:
        core.check_fleeing(state, find_combatant(state, command.who), word.split(" ", 1)[0])
    if word == "flee":
        mounted.flee(draft, find_combatant(state, command.who))
        return
    if word == "yank":
        core.restricted(state, find_combatant(state, command.who), "yank")
        unarmed.self_yank(draft, find_combatant(state, command.who))
        return
    if word != "pass" and not gm:
        core.restricted(state, find_combatant(state, command.who), command.action)
    if gm:
        actions.gm_action(draft, command.action)
    else:
        actions.take_action(draft, find_combatant(state, command.who), command.action)


def _grapple(draft: Draft, command: cmd.Grapple) -> None:
    state = draft.state
    who = find_combatant(state, command.who)
    what = command.manoeuvre.strip().lower()
    core.check_fleeing(state, who, "grapple")
    if what == "attack":
        if not command.target:
            raise RuleError("a grapple attack needs a target: affray grapple WHO attack TARGET")
        grapple.declare(draft, who, find_combatant(state, command.target), command.weapon, command.modifiers, command.situations)
    else:
        grapple.act(draft, who, what, command.modifiers)


def _hero_point(draft: Draft, command: cmd.SpendHeroPoint) -> None:
    heroes.spend(draft, find_combatant(draft.state, command.who), command)


def _mount(draft: Draft, command: cmd.Mount) -> None:
    state = draft.state
    rider = find_combatant(state, command.rider)
    m = find_combatant(state, command.mount) if command.mount else ""
    if not command.off and not m:
        raise RuleError("name the mount: affray mount RIDER MOUNT (or --off to dismount)")
    mounted.mount(draft, rider, m, command.off)


def _redecide(draft: Draft, command: cmd.Command, dice, then: str, **args) -> None:
    """The step ``command:redecide``: decide ``command`` afresh in the
    working state with ``dice`` (a Hero Point's Second Chance), and hand its
    events to the step ``then``."""
    events = ROUTER.decide(Draft(draft.state, dice), command)
    draft.then(then, events=events, **args)


def _gm_hit_points(draft: Draft, command: cmd.SetHitPoints | cmd.Heal) -> None:
    """``affray set WHO hp LOC N`` and ``affray heal``: the shared GM verbs
    (rules/gm.py), then the step ``wounds:recovered`` (a location back at
    1 HP or more ends its useless limb and its Resilience re-tests, seed
    004 "Serious Wound", "Major Wound")."""
    gm.COMMANDS[type(command)](draft, command)
    draft.then("wounds:recovered", handle=find_combatant(draft.state, command.who))


COMMANDS = {
    **gm.COMMANDS,  # the GM's rulings, the same in every system (rules/gm.py)
    cmd.SetHitPoints: _gm_hit_points,
    cmd.Heal: _gm_hit_points,
    cmd.JoinCombatant: _join,
    cmd.StartRound: _start_round,
    cmd.DeclareAttack: _declare_attack,
    cmd.ChooseReaction: _choose_reaction,
    cmd.RollPending: _roll,
    cmd.MakeChoice: _choose,
    cmd.TakeAction: _take_action,
    cmd.EndRound: _end_round,
    cmd.Grapple: _grapple,
    cmd.SpendHeroPoint: _hero_point,
    cmd.Mount: _mount,
}

# --------------------------------------------------------------------------- #
# Steps
# --------------------------------------------------------------------------- #

STEPS = {
    # -- an attack (seed 004 "Close Combat Attacks" 1 and 2) ---------------
    "attack:options": options.declare,  # charge, flurry, precise, off-hand, a ranged weapon
    "attack:open": attack.open_exchange,  # declare and roll the attack; a hit offers a reaction
    "attack:offer-reaction": attack.offer_reaction,
    "react:react": attack.resolve_reaction,  # Dodge / Parry tables; a hit queues damage:queue
    "react:riposte": attack.riposte,
    "react:free-attack": free_attacks.free_attack,
    "react:dive": area.dive,
    "react:grapple-defence": grapple.resist,  # the Grapple table
    "attack:offer-riposte": attack.offer_riposte,
    # -- damage (3 - Damage Resolution, 4 - Damage Application) ------------
    "damage:queue": damage.queue_damage,  # await the damage roll (or precise:queue)
    "precise:queue": precise.queue,  # Disarm, Strike Weapon / Shield
    "roll:damage": damage.roll_damage,  # DamageDealt, then, in this order:
    "knockback:blow": knockback.knockback,  # 1. knockback
    "wounds:wound": wounds.wound_step,  # 2. the wound (after any damage through armour)
    "impaling:offer": impaling.impale_offer,  # 3. an impaling critical's yank | leave
    "knockback:give-ground": knockback.give_ground,  # 4. giving ground
    "attack:riposte-after-damage": attack.follow_with_riposte,  # 5. the defender's Riposte
    "exchange:carry-on": core.carry_on_step,  # 6. await the steps left, or end the exchange
    "ranged:covered": ranged.covered,  # a blow into cover or a crowd, instead of 1-6
    "ranged:projectile-on": ranged.continue_projectile,
    # -- roll steps the table answers (affray roll) -------------------------
    "roll:wound": wounds.roll_wound,
    "roll:retest": wounds.roll_retest,
    "wounds:first-aid": wounds.first_aid,  # after a successful First Aid (act:skill)
    "wounds:recovered": wounds.recovered,  # after the GM sets or restores HP
    "roll:knockback": knockback.roll_knockback,
    "roll:wall-damage": knockback.roll_wall,
    "roll:yank": impaling.roll_yank,
    "roll:yank-damage": impaling.roll_yank_damage,
    "impaling:stuck": impaling.impale,
    "roll:disarm": precise.roll_disarm,
    "roll:item-damage": precise.roll_item_damage,
    "roll:area-damage": area.roll_area,
    "area:target": area.area_target,
    "roll:free-attack-test": free_attacks.roll_free_attack_test,
    "roll:action-roll": free_attacks.roll_action,
    "roll:grapple-damage": grapple.roll_damage,
    "roll:unarmed-parried": unarmed.roll_step,
    "roll:impaler-yank": unarmed.roll_step,
    "roll:impaler-damage": unarmed.roll_step,
    "roll:riding": mounted.roll_riding,
    "unarmed:carry-on": unarmed.carry_on_before_turns,
    # -- choices (affray choose) --------------------------------------------
    "choose:impale": impaling.choose_impale,
    "choose:give-ground": knockback.choose_give_ground,
    "choose:lay-hold": unarmed.choose,
    # -- after an exchange: core.end_exchange queues exchange:after ---------
    "exchange:after": actions.proceed,  # an action waiting for free attacks, else:
    "free-attacks:resume": free_attacks.resume,
    "flurry:next-blow": delay.next_blows,  # a Flurry's next blow, else core.done:
    "turn:next": turns.advance,  # the turn sequencer: who acts next, or end the round
    "round:retests-done": turns.retests_done,
    # -- combat actions (affray act WHO WORD): act:WORD, then finish:WORD ---
    "act:defend": actions.defend_or_pass,
    "act:pass": actions.defend_or_pass,
    "act:aim": ranged.aim,
    "act:cast": casting.cast,
    "act:charge": movement.charge,
    "act:move": movement.move,
    "act:sprint": movement.move,
    "act:retreat": movement.retreat,
    "act:ready": readying.ready,
    "act:reload": readying.ready,
    "act:stance": movement.stance,
    "act:stand": movement.stance,
    "act:skill": casting.skill_use,
    "act:delay": delay.delay,
    "act:interrupt": delay.interrupt,
    "act:shoot": ranged.shoot,
    "gm:area": area.area_effect,
    "free-attacks:offer": free_attacks.with_free_attacks,  # then finish:WORD
    "finish:cast": casting.finish_cast,
    "finish:move": movement.finish_move,
    "finish:sprint": movement.finish_move,
    "finish:charge": movement.finish_charge,
    "finish:ready": readying.finish_ready,
    "finish:reload": readying.finish_ready,
    "finish:stance": movement.finish_stance,
    "finish:stand": movement.finish_stance,
    "finish:shoot": ranged.finish,
    # -- after a command ----------------------------------------------------
    "unarmed:bare-parry": unarmed.offer_bare_parry,  # after affray attack
    "unarmed:after-parry": unarmed.after_parry,  # after affray react
    "unarmed:lay-hold": unarmed.after_roll,  # after affray roll
    "mounted:riding-tests": mounted.riding_steps,  # after a command that starts a round
    # -- Hero Points --------------------------------------------------------
    "command:redecide": _redecide,
    "hero:second-chance-check": heroes.second_chance_check,
}

#: The one router of mrq1. ``turn:next`` is queued explicitly by
#: :func:`.core.done` (not with ``hand_over``), so the steps a command queues
#: after its flow (``unarmed:lay-hold``, ``mounted:riding-tests``) see the
#: next turn's steps, as they always did.
ROUTER = Router(system="mrq1", commands=COMMANDS, steps=STEPS, sequencer=turns.advance)


class Mrq1(SystemBase):
    """Mongoose RuneQuest (1st ed.): strike ranks rolled each round, combat
    actions in passes, reactions against each successful attack."""

    key = "mrq1"
    aliases = ("mrq", "mongoose-runequest", "mrq1e")
    title = "Mongoose RuneQuest (1st ed.)"
    source = "seed 004_71637fb3cfde52c9.txt (Mongoose RuneQuest SRD, Combat)"
    conditions = CATALOGUE
    rulings_doc = RULINGS_DOC

    _rulings_from = from_mapping
    _sheet_loader = load_sheet
    _sheet_parser = parse_sheet
    _sheet_error = SheetError
    router = ROUTER

    def _rulings_as(r) -> dict[str, str]:
        """Every ruling as a string, except a :data:`QUIET_AT_DEFAULT` one at its default."""
        return {
            k: str(v).lower() if isinstance(v, bool) else str(v)
            for k, v in r.as_mapping().items()
            if k not in QUIET_AT_DEFAULT or str(v) != RULINGS_DOC[k][0]
        }

    def stored_sheet(self, sheet: Sheet) -> dict:
        """The sheet as plain data, without mounted-combat fields at their
        defaults (so older logs and exports stay byte for byte the same)."""
        return compact(super().stored_sheet(sheet))


SYSTEM = Mrq1()
