"""Combat actions beyond the close combat attack, and the free attacks they
draw, in mrq1.

Source: seed 004 "Combat Actions" (Aim, Cast Spell, Charge, Defend, Delay,
Fighting Retreat, Sprint, Flurry, Move, Ranged Attack, Ready Weapon, Skill
Use, Change Stance), "Free Attacks", "Two Weapon Use" and "Dive"; the
rulings named on each function.

An action is written as a small text, the same on the command line
(``affray act WHO ACTION...``) and in the log (:class:`Spec`)::

    WORD [ARG ...] [KEY=VALUE ...]

    aim broo1                       move 6 to=broo1 past=gorp
    cast "Bladesharp 2" actions=3   sprint 16
    ready "Target Shield"           retreat 4
    ready sling                     stance prone   |  stand
    ready sword drop=spear          skill "First Aid" mod=-20:in the rain
    delay after=broo1               delay interrupt=broo1  |  interrupt
    charge broo1 12 past=gorp       shoot broo1 range=30 cover=head
    defend                          pass

An action that draws free attacks (seed 004 "Free Attacks") waits for them:
an ``acting`` condition on the actor holds the action's text, and each
adjacent enemy is asked in turn (``affray react ENEMY attack|none``). When
all have answered, the action goes on with what the free attacks did: "if
the free attack causes damage" is read as "the actor lost hit points".
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.d100 import parse_modifier
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1 import tables
from affray.rules.mrq1.common import (
    ALWAYS_READY,
    break_aim,
    condition_modifiers,
    make_kind,
    default_weapon,
    find_weapon,
    hands_used,
    held,
    movement,
    opposed,
    rulings_of,
    sheet_of,
    skill,
    test,
    total_hp,
    useless_limbs,
)
from affray.rules.mrq1.sheet import Weapon

STANCES = ("standing", "prone", "kneeling", "sitting")

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
    "skill": "skill NAME [mod=V:REASON] [diff=GRADE]",
    "delay": "delay after=X | delay interrupt=X",
    "interrupt": "interrupt [with=SKILL] [against=SKILL]",
    "shoot": "shoot TARGET [weapon=W] [range=M] [cover=LOCS] [crowd=X] [precise=..]",
    "area": "area DAMAGE on=A,B [name=NAME]  (as: affray act gm area ...)",
}


# --------------------------------------------------------------------------- #
# The action text
# --------------------------------------------------------------------------- #


@dataclass
class Spec:
    """A parsed action: its word, positional arguments, ``key=value``
    options (``mod=`` and ``sit=`` may repeat)."""

    word: str
    args: list[str] = field(default_factory=list)
    opts: dict[str, str] = field(default_factory=dict)
    mods: list[ev.Modifier] = field(default_factory=list)
    sits: list[str] = field(default_factory=list)

    def text(self) -> str:
        """The canonical action text (parses back to the same Spec)."""
        words = [self.word, *self.args, *(f"{k}={v}" for k, v in self.opts.items())]
        words += [f"mod={m.value:+d}:{m.reason}" for m in self.mods] + [f"sit={s}" for s in self.sits]
        return shlex.join(words)

    def get(self, key: str, default: str = "") -> str:
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
    return [v.strip() for v in value.split(",") if v.strip()]


# --------------------------------------------------------------------------- #
# Entry points
# --------------------------------------------------------------------------- #


def take_action(draft: Draft, who: str, action: str) -> None:
    """``affray act WHO ACTION``: dispatch on the action's word."""
    spec = parse(action)
    handler = _ACTIONS.get(spec.word)
    if handler is None:
        raise RuleError(f"unknown action {spec.word!r}; use one of {', '.join(_ACTIONS)} (see 'affray act --help')")
    handler(draft, who, spec)


def gm_action(draft: Draft, action: str) -> None:
    """``affray act gm ...``: what the GM does outside any character's turn
    (an area effect)."""
    spec = parse(action)
    if spec.word != "area":
        raise RuleError(f"the GM can act with: {USAGE['area']}; characters act with 'affray act WHO ACTION'")
    area_effect(draft, spec)


def _require_turn(state: State, handle: str) -> Combatant:
    from affray.rules.mrq1.attack import _require_turn as require

    return require(state, handle)


def begin(draft: Draft, who: str, spec: Spec, *, cost: int = 1, reason: str = "", keep: str = "") -> Combatant:
    """Spend the action's Combat Actions and end what another action ends:
    Overextended (seed 004 "Overextended"), the aim (seed 004 "Aim"), a
    spell or Ready Weapon in progress (ruling ``multi_action_interrupted``),
    a delay."""
    c = _require_turn(draft.state, who)
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


def done(draft: Draft) -> None:
    """The action is over: move the turn on."""
    from affray.rules.mrq1.turns import advance

    draft.emit(ev.StepsAwaited(steps=()))
    advance(draft)


def note(draft: Draft, who: str, word: str, text: str, spec: Spec | None = None) -> None:
    draft.emit(ev_mrq1.ActionTaken(handle=who, action=word, text=text, spec=spec.text() if spec else ""))


def _at(draft: Draft) -> dict:
    return dict(cause=draft.next_version, round=draft.state.round, step=draft.state.step)


# --------------------------------------------------------------------------- #
# Defend, pass
# --------------------------------------------------------------------------- #


def defend_or_pass(draft: Draft, who: str, spec: Spec) -> None:
    """``defend`` (+20% to Dodge and parry tests until the bearer's next
    combat action, seed 004 "Defend") or ``pass`` (the action is given up;
    a Flurry's remaining blows too)."""
    state = draft.state
    flurry = _flurry_step(state, who)
    if flurry is not None and spec.word == "pass":
        c = state.combatants[who]
        cond = next(x for x in c.conditions if x.name == "flurry")
        draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="the rest of the flurry is given up"))
        done(draft)
        return
    begin(draft, who, spec)
    if spec.word == "defend":
        draft.emit(
            ev.ConditionApplied(
                handle=who,
                condition=cat.make("defending", ends="next-action", effects={"reaction-bonus": 20}, **_at(draft)),
            )
        )
    done(draft)


# --------------------------------------------------------------------------- #
# Aim
# --------------------------------------------------------------------------- #


def _ranged_weapon(c: Combatant, name: str) -> Weapon:
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


def aim(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Aim": +10% per Combat Action to the first ranged attack at
    the target with the weapon, at most three actions (+30%)."""
    state = draft.state
    c = _require_turn(state, who)
    if not spec.args:
        raise RuleError(f"aim at whom? {USAGE['aim']}")
    target = find_combatant(state, spec.args[0])
    if target == who:
        raise RuleError(f"{c.name} cannot aim at themself")
    weapon = _ranged_weapon(c, spec.get("weapon"))
    if not loaded(c, weapon):
        raise RuleError(f"{weapon.name} is not loaded; reload it first (affray act {who} ready {shlex.quote(weapon.name)})")
    cid = f"aiming:{target}"
    old = next((x for x in c.conditions if x.name == "aiming"), None)
    n = 1
    if old is not None and old.id == cid and old.note == weapon.name:
        n = old.effects.get("aim", 0) // 10 + 1
        if n > 3:
            raise RuleError(f"{c.name} already aims for +30%, the most three Combat Actions give (seed 004 'Aim'); shoot now")
    begin(draft, who, spec, keep="aiming" if n > 1 else "")
    if n == 1:
        break_aim(draft, who, "aims at another target")
    t = state.combatants[target]
    draft.emit(
        ev.ConditionApplied(
            handle=who,
            condition=cat.make(
                "aiming", ends="event", effects={"aim": 10 * n}, note=weapon.name, suffix=target, **_at(draft)
            ),
        )
    )
    note(draft, who, "aim", f"{c.name} aims {weapon.name} at {t.name} (+{10 * n}%)", spec)
    done(draft)


def aim_bonus(draft: Draft, who: str, target: str, weapon: Weapon) -> list[ev.Modifier]:
    """The aim bonus for this shot, used up (seed 004 "Aim": only the first
    attack with the weapon, at the target aimed at)."""
    c = draft.state.combatants[who]
    mods = []
    for cond in c.conditions:
        if cond.name == "aiming":
            if cond.id == f"aiming:{target}" and cond.note == weapon.name:
                mods.append(ev.Modifier(cond.effects.get("aim", 0), "aimed"))
                reason = "the aimed shot is taken"
            else:
                reason = "shoots at another target or with another weapon"
            draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason=reason))
    return mods


# --------------------------------------------------------------------------- #
# Free attacks (seed 004 "Free Attacks")
# --------------------------------------------------------------------------- #


def adjacent_enemies(state: State, who: str) -> list[str]:
    c = state.combatants[who]
    return [h for h in c.engaged if h in state.combatants and state.combatants[h].side != c.side]


def _free_attack_weapon(c: Combatant) -> Weapon | None:
    try:
        w = default_weapon(c)
    except RuleError:
        return None
    if w.kind == "ranged":  # free attacks are always close combat attacks
        close = [x for x in held(c) if x.kind != "ranged"]
        if close:
            return close[0]
        return next((x for x in sheet_of(c).weapons if x.kind in ALWAYS_READY), None)
    return w


def _eligible(state: State, enemy: str, actor: str) -> bool:
    from affray.rules.mrq1.attack import can_react

    e = state.combatants.get(enemy)
    if e is None or e.side == state.combatants[actor].side:
        return False
    return not can_react(state, enemy, actor) and _free_attack_weapon(e) is not None


def with_free_attacks(draft: Draft, who: str, spec: Spec, enemies: list[str], trigger: str, *, bonus: int = 0) -> None:
    """Offer each of ``enemies`` a free attack on ``who`` in turn, then go on
    with the action (:func:`complete`). ``bonus``: Sprint's +20%."""
    state = draft.state
    asked = [h for h in dict.fromkeys(enemies) if _eligible(state, h, who)]
    if not asked:
        complete(draft, who, spec, damaged=False, suspended=False)
        return
    effects = {"hp": total_hp(state.combatants[who]), "bonus": bonus}
    effects.update({f"ask:{h}": 1 for h in asked})
    draft.emit(
        ev.ConditionApplied(
            handle=who,
            condition=cat.make("acting", ends="event", effects=effects, note=spec.text(), **_at(draft)),
        )
    )
    names = " and ".join(state.combatants[h].name for h in asked)
    note(draft, who, "free-attacks", f"{names} may make a free attack on {state.combatants[who].name} ({trigger})")
    _offer_next(draft, who)


def _acting(c: Combatant) -> ev.Condition | None:
    return next((x for x in c.conditions if x.name == "acting"), None)


def _offer_next(draft: Draft, who: str) -> None:
    state = draft.state
    c = state.combatants[who]
    cond = _acting(c)
    assert cond is not None
    for key, flag in cond.effects.items():
        if not key.startswith("ask:") or not flag:
            continue
        enemy = key[4:]
        if not _eligible(state, enemy, who) or c.status != "active":
            _answered(draft, who, enemy)
            return _offer_next(draft, who)
        e = state.combatants[enemy]
        weapon = _free_attack_weapon(e)
        bonus = cond.effects.get("bonus", 0)
        what = parse(cond.note).word
        draft.emit(
            ev.StepsAwaited(
                steps=(
                    ev.PendingStep(
                        who=enemy,
                        verb="react",
                        kind="free-attack",
                        prompt=f"{e.name} may make a free attack on {c.name} ({what}{f', +{bonus}%' if bonus else ''}; costs a reaction): attack | none",
                        options=("attack", "none"),
                        dice=(ev.DiceNeed(f"{e.name}'s free attack roll", "1D100", by=enemy),),
                        data={"actor": who, "weapon": weapon.name if weapon else ""},
                    ),
                )
            )
        )
        return
    resume(draft, who)


def _answered(draft: Draft, who: str, enemy: str) -> None:
    c = draft.state.combatants[who]
    cond = _acting(c)
    assert cond is not None
    from msgspec.structs import replace

    draft.emit(ev.ConditionApplied(handle=who, condition=replace(cond, effects={**cond.effects, f"ask:{enemy}": 0})))


def free_attack(draft: Draft, step: ev.PendingStep, reaction: str, with_item: str, modifiers, situations) -> None:
    """``affray react ENEMY attack|none`` at a free attack offer. A free
    attack is a single close combat attack, never a charge, flurry or
    precise attack; it costs a Reaction and may be parried or dodged."""
    from affray.rules.mrq1.attack import _attack_modifiers, _open_exchange

    state = draft.state
    enemy, who = step.who, str(step.data["actor"])
    e, c = state.combatants[enemy], state.combatants[who]
    for s in situations:
        if s.split("=")[0].strip().lower() in ("charge", "flurry", "precise", "range", "off-hand"):
            raise RuleError("free attacks are single close combat attacks: no charge, flurry or precise attack (seed 004)")
    _answered(draft, who, enemy)
    if reaction == "none":
        note(draft, enemy, "free-attack", f"{e.name} lets {c.name} go")
        _offer_next(draft, who)
        return
    weapon = find_weapon(e, with_item) if with_item else find_weapon(e, str(step.data["weapon"]), ready_only=False)
    if weapon.kind == "ranged":
        raise RuleError("free attacks must always be close combat attacks (seed 004); name a close combat weapon with --with")
    draft.emit(ev.ActionSpent(handle=enemy, kind="reaction", reason=f"free attack on {c.name}"))
    break_aim(draft, enemy, "makes a free attack")
    mods = _attack_modifiers(draft.state, enemy, who, modifiers, situations)
    bonus = (_acting(c).effects.get("bonus", 0)) if _acting(c) else 0
    if bonus:
        mods.append(ev.Modifier(bonus, "free attack on a sprinting enemy"))
    _open_exchange(draft, enemy, who, weapon, "free", mods)


def resume(draft: Draft, who: str) -> None:
    """Every free attack has been answered: go on with the action."""
    state = draft.state
    c = state.combatants[who]
    cond = _acting(c)
    assert cond is not None
    if any(k.startswith("ask:") and v and _eligible(state, k[4:], who) for k, v in cond.effects.items()) and c.status == "active":
        _offer_next(draft, who)
        return
    spec = parse(cond.note)
    damaged = total_hp(c) < cond.effects.get("hp", 0)
    draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="the free attacks are over"))
    if not c.can_fight:
        note(draft, who, spec.word, f"{c.name} is down: the {spec.word} is lost")
        done(draft)
        return
    complete(draft, who, spec, damaged=damaged, suspended=True)


def pending_action(state: State) -> str:
    """The handle of a combatant whose action waits for free attacks."""
    for c in state.combatants.values():
        if _acting(c) is not None:
            return c.handle
    return ""


# The consequence of a free attack's damage, when it takes a test.
_TESTS = {"cast": ("Persistence", "or the spell fails"), "ready": ("Dodge", "or drop the weapon"),
          "reload": ("Dodge", "or drop the weapon"), "stance": ("Athletics", "or stay prone")}


def complete(draft: Draft, who: str, spec: Spec, *, damaged: bool, suspended: bool, passed: bool | None = None) -> None:
    """Carry the action out, with what the free attacks did."""
    word = "stance" if spec.word == "stand" else spec.word
    c = draft.state.combatants[who]
    needs_test = word in _TESTS and damaged and passed is None
    if word == "stance" and (spec.args[:1] != ["standing"] and spec.word != "stand" or c.stance != "prone"):
        needs_test = False  # only standing up from prone has a consequence
    if needs_test:
        skill_name, what = _TESTS[word]
        draft.emit(
            ev.StepsAwaited(
                steps=(
                    ev.PendingStep(
                        who=who,
                        verb="roll",
                        kind="free-attack-test",
                        prompt=f"{c.name}: the free attack did damage: {skill_name} test {what}",
                        dice=(ev.DiceNeed(f"{skill_name} (free attack)", "1D100", by=who),),
                        data={"spec": spec.text(), "skill": skill_name},
                    ),
                )
            )
        )
        return
    if word in ("shoot", "charge") and suspended and not damaged:
        draft.emit(
            ev.StepsAwaited(
                steps=(
                    ev.PendingStep(
                        who=who,
                        verb="roll",
                        kind="action-roll",
                        prompt=f"{c.name}: roll the {'ranged' if word == 'shoot' else 'charge'} attack",
                        dice=(ev.DiceNeed("attack roll", "1D100", by=who),),
                        data={"spec": spec.text()},
                    ),
                )
            )
        )
        return
    _FINISH[word](draft, who, spec, damaged, passed)


def _roll_free_attack_test(draft: Draft, step: ev.PendingStep, rest) -> None:
    who = step.who
    c = draft.state.combatants[who]
    name = str(step.data["skill"])
    tested = test(draft, c, name, skill(c, name), condition_modifiers(c, mobility=True), f"{name} after a free attack's damage")
    complete(draft, who, parse(str(step.data["spec"])), damaged=True, suspended=True,
             passed=tested.result in ("success", "critical"))


def _roll_action(draft: Draft, step: ev.PendingStep, rest) -> None:
    spec = parse(str(step.data["spec"]))
    _FINISH[spec.word](draft, step.who, spec, False, None)


# --------------------------------------------------------------------------- #
# Cast Spell
# --------------------------------------------------------------------------- #


def cast(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Cast Spell": a spell takes ``actions=N`` Combat Actions
    (default 1). Each casting action draws free attacks from adjacent
    enemies; damage from one calls for a Persistence test or the spell
    fails. When the last action is spent the spell is cast: it is a named
    effect the GM applies."""
    c = _require_turn(draft.state, who)
    old = next((x for x in c.conditions if x.name == "casting"), None)
    name = " ".join(spec.args)
    if old is None:
        if not name:
            raise RuleError(f"cast what? {USAGE['cast']}")
        needed = spec.number("actions", 1) or 1
        spec = Spec("cast", [name], {"actions": str(needed)})
    else:
        if name and name.lower() != old.note.lower():
            raise RuleError(f"{c.name} is casting {old.note}; 'cast' goes on with it (another action abandons it)")
        spec = Spec("cast", [old.note], {"actions": str(old.effects.get("needed", 1))})
    begin(draft, who, spec, keep="casting", reason=f"cast {spec.args[0]}")
    with_free_attacks(draft, who, spec, adjacent_enemies(draft.state, who), "casting a spell")


def _finish_cast(draft: Draft, who: str, spec: Spec, damaged: bool, passed) -> None:
    c = draft.state.combatants[who]
    spell = spec.args[0]
    needed = spec.number("actions", 1) or 1
    old = next((x for x in c.conditions if x.name == "casting"), None)
    progress = (old.effects.get("progress", 0) if old else 0) + 1
    if damaged and passed is False:
        if old is not None:
            draft.emit(ev.ConditionExpired(handle=who, condition_id=old.id, reason="the spell fails"))
        draft.emit(ev_mrq1.SpellCast(handle=who, spell=spell, actions=progress, success=False,
                                     reason="a free attack's damage and a failed Persistence test"))
        done(draft)
        return
    if progress >= needed:
        if old is not None:
            draft.emit(ev.ConditionExpired(handle=who, condition_id=old.id, reason="the spell is cast"))
        draft.emit(ev_mrq1.SpellCast(handle=who, spell=spell, actions=needed))
    else:
        draft.emit(
            ev.ConditionApplied(
                handle=who,
                condition=cat.make("casting", ends="event", effects={"progress": progress, "needed": needed},
                                   note=spell, **_at(draft)),
            )
        )
        note(draft, who, "cast", f"{c.name} casts {spell}: {progress} of {needed} Combat Actions", spec)
    done(draft)


# --------------------------------------------------------------------------- #
# Moving: Move, Sprint, Fighting Retreat, Charge
# --------------------------------------------------------------------------- #


def _move(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Move" (up to Movement) and "Sprint" (up to twice Movement;
    the free attacks it draws are at +20%). Moving away from adjacent
    enemies, or adjacent to one (``to=X``, ``past=A,B`` for those passed on
    the way), draws their free attacks; damage from one halves the move."""
    state = draft.state
    c = _require_turn(state, who)
    if c.stance == "prone" and spec.word == "sprint":
        raise RuleError(f"{c.name} is prone; stand up first (affray act {who} stand)")
    allowance = movement(c) * (2 if spec.word == "sprint" else 1)
    metres = spec.number("metres", allowance, pos=0)
    if metres > allowance:
        raise RuleError(f"{c.name} can {spec.word} at most {allowance} m ({'twice ' if spec.word == 'sprint' else ''}Movement {movement(c)} m), not {metres} m")
    if metres <= 0:
        raise RuleError(f"{spec.word} how far? {USAGE[spec.word]}")
    to = find_combatant(state, spec.get("to")) if spec.get("to") else ""
    past = [find_combatant(state, p) for p in split(spec.get("past"))]
    spec = Spec(spec.word, [str(metres)], {k: v for k, v in (("to", to), ("past", ",".join(past))) if v})
    begin(draft, who, spec)
    engaged = adjacent_enemies(draft.state, who)
    drawn = [h for h in engaged if h != to] + ([to] if to and to not in engaged else []) + past
    bonus = tables.COMBAT_MODIFIERS["sprint-free-attack"].value if spec.word == "sprint" else 0
    with_free_attacks(draft, who, spec, drawn, f"{spec.word}", bonus=bonus)


def _finish_move(draft: Draft, who: str, spec: Spec, damaged: bool, passed) -> None:
    c = draft.state.combatants[who]
    metres = int(spec.args[0])
    allowance = movement(c) * (2 if spec.word in ("sprint", "charge") else 1)
    to = spec.get("to")
    if damaged:
        metres = min(metres, allowance // 2)
    reached = metres == int(spec.args[0])
    away = next(iter(adjacent_enemies(draft.state, who)), "")
    draft.emit(ev.CombatantMoved(handle=who, distance=float(metres), reason=spec.word + (" (halved by a free attack)" if damaged else ""), away_from=away if away != to else ""))
    for h in list(draft.state.combatants[who].engaged):
        if h != to:
            draft.emit(ev.EngagementChanged(a=who, b=h, engaged=False))
    if to and reached and to not in draft.state.combatants[who].engaged:
        draft.emit(ev.EngagementChanged(a=who, b=to, engaged=True))
    if to and not reached:
        note(draft, who, spec.word, f"{c.name} stops short of {draft.state.combatants[to].name}")
    done(draft)


def retreat(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Fighting Retreat": up to half Movement directly away from
    an enemy he is fighting; it draws no free attack."""
    state = draft.state
    c = _require_turn(state, who)
    enemies = adjacent_enemies(state, who)
    if not enemies:
        raise RuleError(f"{c.name} is not fighting anyone; a Fighting Retreat moves away from an adjacent enemy (use move)")
    allowance = movement(c) // 2
    metres = spec.number("metres", allowance, pos=0)
    if metres > allowance or metres <= 0:
        raise RuleError(f"{c.name} can retreat 1 to {allowance} m (half Movement {movement(c)} m), not {metres} m")
    begin(draft, who, spec, reason="fighting retreat")
    draft.emit(ev.CombatantMoved(handle=who, distance=float(metres), reason="fighting retreat", away_from=enemies[0]))
    for h in list(draft.state.combatants[who].engaged):
        draft.emit(ev.EngagementChanged(a=who, b=h, engaged=False))
    done(draft)


def charge(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Charge": at least 5 m, up to twice Movement, in a straight
    line, ending adjacent to the enemy; then a close combat attack with
    +1D4 damage on a hit, and doubled Knockback. Leaving adjacent enemies
    and passing others (``past=``) draws their free attacks; the enemy
    charged does not get one. A charge may not be a flurry, a precise or
    a ranged attack."""
    state = draft.state
    c = _require_turn(state, who)
    if not spec.args:
        raise RuleError(f"charge whom? {USAGE['charge']}")
    target = find_combatant(state, spec.args[0])
    t = state.combatants[target]
    metres = spec.number("charge", None) if spec.get("charge") else spec.number("metres", None, pos=1)
    if metres is None:
        raise RuleError(f"how far does {c.name} charge? give the distance in metres (at least 5)")
    if metres < 5:
        raise RuleError(f"a charge needs at least 5 m of movement (seed 004 'Charge'); {c.name} would move {metres} m: use move and attack instead")
    if metres > 2 * movement(c):
        raise RuleError(f"{c.name} can charge at most {2 * movement(c)} m (twice Movement {movement(c)} m), not {metres} m")
    if target == who or t.side == c.side:
        raise RuleError(f"a charge must end adjacent to an enemy; {t.name} is not one")
    if t.status == "dead":
        raise RuleError(f"{t.name} is dead; choose another target")
    if target in c.engaged:
        raise RuleError(f"{c.name} is already adjacent to {t.name}; attack instead of charging")
    if c.stance != "standing":
        raise RuleError(f"{c.name} is {c.stance}; stand up before charging (affray act {who} stand)")
    for bad in ("flurry", "precise", "range", "off-hand", "cover", "crowd"):
        if spec.get(bad):
            what = {"precise": "a precise attack", "range": "a ranged attack", "off-hand": "a two-weapon bonus attack",
                    "cover": "a ranged attack", "crowd": "a ranged attack", "flurry": "a flurry"}[bad]
            raise RuleError(f"a charge may not be {what} (seed 004)")
    weapon = find_weapon(c, spec.get("weapon")) if spec.get("weapon") else default_weapon(c)
    if weapon.kind == "ranged":
        raise RuleError("ranged attacks may not be used as part of a charge (seed 004 'Ranged Weapons')")
    if c.effect("cannot-attack"):
        raise RuleError(f"{c.name} cannot attack now (see 'affray state')")
    past = [find_combatant(state, p) for p in split(spec.get("past"))]
    spec = Spec("charge", [target, str(metres)], {"weapon": weapon.name, **({"past": ",".join(past)} if past else {}),
                                                  **({"wall": "1"} if spec.get("wall") else {})}, spec.mods, spec.sits)
    begin(draft, who, spec, reason=f"charge at {t.name}")
    drawn = [h for h in adjacent_enemies(draft.state, who) if h != target] + [p for p in past if p != target]
    with_free_attacks(draft, who, spec, drawn, "charge")


def _finish_charge(draft: Draft, who: str, spec: Spec, damaged: bool, passed) -> None:
    from affray.rules.mrq1.attack import _attack_modifiers, _open_exchange

    c = draft.state.combatants[who]
    target, metres = spec.args[0], int(spec.args[1])
    t = draft.state.combatants[target]
    moved = min(metres, movement(c)) if damaged else metres
    draft.emit(ev.CombatantMoved(handle=who, distance=float(moved), reason="charge" + (" (halved by a free attack)" if damaged else "")))
    for h in list(c.engaged):
        draft.emit(ev.EngagementChanged(a=who, b=h, engaged=False))
    if moved < metres or t.status == "dead":
        note(draft, who, "charge", f"{c.name} stops short of {t.name}: no attack")
        done(draft)
        return
    weapon = find_weapon(c, spec.get("weapon"))
    mods = _attack_modifiers(draft.state, who, target, tuple(spec.mods), tuple(spec.sits))
    _open_exchange(draft, who, target, weapon, make_kind("charge", wall=spec.get("wall")), mods)


# --------------------------------------------------------------------------- #
# Ready Weapon
# --------------------------------------------------------------------------- #


def ready(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Ready Weapon": draw an item (1 action); drop one and draw
    another (1); sheathe one and draw another, or ready two (2); reload a
    ranged weapon (as many actions as its ``reload``). Adjacent enemies get
    a free attack; damage from one calls for a Dodge test or the weapon is
    dropped instead of readied. Several actions are spent one at a time:
    the same ``ready`` again goes on with it."""
    state = draft.state
    c = _require_turn(state, who)
    progress = next((x for x in c.conditions if x.name == "readying"), None)
    if progress is not None and (not spec.args and spec.word == "ready" or parse(progress.note).text() == _ready_spec(c, spec).text()):
        spec = parse(progress.note)
    else:
        spec = _ready_spec(c, spec)
    begin(draft, who, spec, keep="readying", reason=spec.text())
    with_free_attacks(draft, who, spec, adjacent_enemies(draft.state, who), "readying a weapon")


def _ready_spec(c: Combatant, spec: Spec) -> Spec:
    """Validate a Ready Weapon action; return it with its action count."""
    if spec.word == "reload":
        w = _ranged_weapon(c, " ".join(spec.args))
        if loaded(c, w):
            raise RuleError(f"{w.name} is already loaded")
        if w.reload <= 0:
            raise RuleError(f"{w.name} needs no reloading")
        return Spec("reload", [w.name], {"actions": str(w.reload)})
    if not spec.args:
        raise RuleError(f"ready what? {USAGE['ready']}")
    items = [find_weapon(c, a, ready_only=False) for a in spec.args[:2]]
    first = items[0]
    if len(items) == 1 and first.name in c.ready:
        if first.kind == "ranged" and not loaded(c, first):
            return _ready_spec(c, Spec("reload", [first.name]))
        raise RuleError(f"{c.name} already holds {first.name} ready")
    for w in items:
        if w.kind in ALWAYS_READY:
            raise RuleError(f"{w.name} is always ready; no need to ready it")
        if w.name in c.ready:
            raise RuleError(f"{c.name} already holds {w.name} ready")
    drop = find_weapon(c, spec.get("drop")) if spec.get("drop") else None
    sheathe = find_weapon(c, spec.get("sheathe")) if spec.get("sheathe") else None
    if drop and sheathe:
        raise RuleError("drop or sheathe one item, not both")
    freed = (drop or sheathe).hands if (drop or sheathe) else 0
    need = sum(w.hands for w in items)
    if hands_used(c) - freed + need > 2 or useless_limbs(c, "arm") and need + hands_used(c) - freed > 1:
        raise RuleError(f"{c.name} has no free hand for {', '.join(w.name for w in items)}; add drop=ITEM or sheathe=ITEM")
    actions = 2 if (sheathe or len(items) == 2) else 1
    opts = {"actions": str(actions)}
    if drop:
        opts["drop"] = drop.name
    if sheathe:
        opts["sheathe"] = sheathe.name
    return Spec("ready", [w.name for w in items], opts)


def _finish_ready(draft: Draft, who: str, spec: Spec, damaged: bool, passed) -> None:
    c = draft.state.combatants[who]
    needed = spec.number("actions", 1) or 1
    old = next((x for x in c.conditions if x.name == "readying"), None)
    progress = (old.effects.get("progress", 0) if old else 0) + 1
    if damaged and passed is False:
        if old is not None:
            draft.emit(ev.ConditionExpired(handle=who, condition_id=old.id, reason="failed Dodge test"))
        if spec.get("drop"):
            draft.emit(ev.WeaponDropped(handle=who, weapon=spec.get("drop"), reason="dropped to the floor"))
        for name in spec.args:
            draft.emit(ev.WeaponDropped(handle=who, weapon=name, reason="dropped instead of readied (free attack, failed Dodge)"))
        done(draft)
        return
    if progress < needed:
        draft.emit(
            ev.ConditionApplied(
                handle=who,
                condition=cat.make("readying", ends="event", effects={"progress": progress, "needed": needed},
                                   note=spec.text(), **_at(draft)),
            )
        )
        note(draft, who, spec.word, f"{c.name}: {spec.word} {' '.join(spec.args)}, {progress} of {needed} Combat Actions", spec)
        done(draft)
        return
    if old is not None:
        draft.emit(ev.ConditionExpired(handle=who, condition_id=old.id, reason="done"))
    if spec.word == "reload":
        for cond in c.conditions:
            if cond.name == "unloaded" and cond.note == spec.args[0]:
                draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="reloaded"))
        note(draft, who, "reload", f"{c.name} reloads {spec.args[0]}", spec)
        done(draft)
        return
    if spec.get("drop"):
        draft.emit(ev.WeaponDropped(handle=who, weapon=spec.get("drop"), reason="dropped to the floor"))
    if spec.get("sheathe"):
        draft.emit(ev.WeaponDropped(handle=who, weapon=spec.get("sheathe"), reason="sheathed"))
    for name in spec.args:
        draft.emit(ev.WeaponReadied(handle=who, weapon=name))
    done(draft)


# --------------------------------------------------------------------------- #
# Change Stance
# --------------------------------------------------------------------------- #


def stance(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Change Stance": standing, prone, kneeling or sitting; adjacent
    enemies get a free attack. Standing up from prone after a free attack's
    damage needs an Athletics test, or the character stays prone."""
    state = draft.state
    c = _require_turn(state, who)
    to = "standing" if spec.word == "stand" else (spec.args[0].lower() if spec.args else "")
    to = {"stand": "standing", "kneel": "kneeling", "sit": "sitting"}.get(to, to)
    if to not in STANCES:
        raise RuleError(f"stance takes one of {', '.join(STANCES)}, got {to or 'nothing'!r}")
    if to == c.stance:
        raise RuleError(f"{c.name} is already {to}")
    if to != "prone" and len(useless_limbs(c, "leg")) >= 2:
        raise RuleError(f"{c.name} has two useless legs and stays prone until one is restored (seed 004)")
    spec = Spec("stance", [to])
    begin(draft, who, spec, reason=f"stance: {to}")
    with_free_attacks(draft, who, spec, adjacent_enemies(draft.state, who), "changing stance")


def _finish_stance(draft: Draft, who: str, spec: Spec, damaged: bool, passed) -> None:
    c = draft.state.combatants[who]
    to = spec.args[0]
    if damaged and passed is False and c.stance == "prone":
        note(draft, who, "stance", f"{c.name} fails to stand and stays prone")
    else:
        draft.emit(ev.StanceChanged(handle=who, stance=to, reason="change stance"))
    done(draft)


# --------------------------------------------------------------------------- #
# Skill Use
# --------------------------------------------------------------------------- #


def skill_use(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Skill Use": a skill test as a Combat Action (``diff=`` a
    difficulty grade, rules-reference E3; ``mod=`` a reasoned modifier). The
    GM applies what it does."""
    c = _require_turn(draft.state, who)
    name = " ".join(spec.args)
    if not name:
        raise RuleError(f"which skill? {USAGE['skill']}")
    sheet = sheet_of(c)
    base = next((v for k, v in sheet.skills.items() if k.lower() == name.lower()), None)
    if base is None:
        w = next((w for w in sheet.weapons if w.name.lower() == name.lower()), None)
        if w is None:
            raise RuleError(f"{c.name} has no skill {name!r} (skills: {', '.join(sheet.skills) or 'none'})")
        name, base = w.name, w.skill
    else:
        name = next(k for k in sheet.skills if k.lower() == name.lower())
    mods = condition_modifiers(c, mobility=True) + list(spec.mods)
    grade = spec.get("diff")
    if grade:
        if grade not in tables.DIFFICULTY:
            raise RuleError(f"unknown difficulty {grade!r}; use one of {', '.join(tables.DIFFICULTY)}")
        if tables.DIFFICULTY[grade]:
            mods.append(ev.Modifier(tables.DIFFICULTY[grade], grade))
    begin(draft, who, spec, reason=f"skill: {name}")
    tested = test(draft, c, name, base, mods, "skill use")
    note(draft, who, "skill", f"{c.name} uses {name}: {tested.result}; the GM applies the outcome", spec)
    done(draft)


# --------------------------------------------------------------------------- #
# Delay
# --------------------------------------------------------------------------- #


def delay(draft: Draft, who: str, spec: Spec) -> None:
    """Seed 004 "Delay": ``after=X`` waits until X has finished a Combat
    Action, then acts, and keeps that place in the order for the round;
    ``interrupt=X`` waits to act as X acts: ``affray act WHO interrupt``
    during X's turn makes an opposed test, and whoever wins acts first.
    Delaying spends nothing until the character acts."""
    state = draft.state
    c = _require_turn(state, who)
    other = spec.get("after") or spec.get("interrupt")
    if not other or (spec.get("after") and spec.get("interrupt")):
        raise RuleError(f"delay how? {USAGE['delay']}")
    x = find_combatant(state, other)
    if x == who:
        raise RuleError(f"{c.name} cannot wait for themself")
    t = state.combatants[x]
    if t.status != "active" or t.combat_actions <= 0:
        raise RuleError(f"{t.name} has no combat action left this round; {c.name} would wait for nothing")
    mode = "interrupt" if spec.get("interrupt") else "after"
    for cond in c.conditions:
        if cond.name == "delaying":
            draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="delays again"))
    draft.emit(
        ev.ConditionApplied(
            handle=who,
            condition=cat.make("delaying", ends="next-action", suffix=x,
                               effects={"wait": t.actions_taken + 1, "interrupt": int(mode == "interrupt")},
                               note=f"{mode} {t.name}", **_at(draft)),
        )
    )
    note(draft, who, "delay", f"{c.name} delays, to {'interrupt' if mode == 'interrupt' else 'act after'} {t.name}", Spec("delay", [], {mode: x}))
    done(draft)


def interrupt(draft: Draft, who: str, spec: Spec) -> None:
    """A delaying character interrupts the one he waits for (seed 004
    "Delay"): an opposed test of the skills the two actions need (``with=``
    and ``against=``; default each side's weapon). The winner acts first;
    a draw or two failures leave the order as it is (ruling
    ``opposed_ties``)."""
    state = draft.state
    c = state.combatants[who]
    cond = next((x for x in c.conditions if x.name == "delaying" and x.effects.get("interrupt")), None)
    if cond is None:
        raise RuleError(f"{c.name} is not delaying to interrupt anyone; first: affray act {who} delay interrupt=X")
    x = cond.id.split(":", 1)[1]
    if state.turn != (x,) or state.exchange is not None or any(s.kind != "turn" for s in state.pending):
        raise RuleError(f"{c.name} can interrupt only as {state.combatants[x].name} is about to act")
    t = state.combatants[x]

    def side(k: Combatant, name: str) -> tuple[str, int]:
        if name:
            sk = next((v for kk, v in sheet_of(k).skills.items() if kk.lower() == name.lower()), None)
            if sk is not None:
                return name, sk
            w = find_weapon(k, name, ready_only=False)
            return w.name, w.skill
        w = default_weapon(k)
        return w.name, w.skill

    a_name, a_skill = side(c, spec.get("with"))
    d_name, d_skill = side(t, spec.get("against"))
    a = test(draft, c, a_name, a_skill, condition_modifiers(c, combat=True), f"interrupt {t.name}")
    d = test(draft, t, d_name, d_skill, condition_modifiers(t, combat=True), f"against {c.name}'s interrupt")
    winner = opposed(a, d, rulings_of(state).opposed_ties)
    if winner == "a":
        draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="interrupts"))
        note(draft, who, "interrupt", f"{c.name} interrupts {t.name} and acts first")
        from affray.rules.mrq1.turns import turn_steps

        draft.emit(ev.TurnBegan(handles=(who,), action_no=c.actions_taken + 1))
        draft.emit(ev.StepsAwaited(steps=turn_steps(draft.state, (who,), c.actions_taken + 1)))
        return
    from msgspec.structs import replace

    draft.emit(ev.ConditionApplied(handle=who, condition=replace(cond, effects={"wait": t.actions_taken + 1, "interrupt": 0},
                                                                 note=f"after {t.name}")))
    note(draft, who, "interrupt", f"{t.name} acts first; {c.name} acts right after")
    done(draft)


# --------------------------------------------------------------------------- #
# Flurry
# --------------------------------------------------------------------------- #


def _flurry_step(state: State, who: str) -> ev.PendingStep | None:
    return next((s for s in state.pending if s.kind == "flurry" and s.who == who), None)


def next_blow(draft: Draft, handle: str) -> bool:
    """After an exchange: offer the next blow of a Flurry (True), or not."""
    c = draft.state.combatants[handle]
    cond = next((x for x in c.conditions if x.name == "flurry"), None)
    if cond is None:
        return False
    left = cond.effects.get("blows", 0)
    foes = [h for h in c.engaged if draft.state.combatants[h].can_fight]
    if left <= 0 or not c.can_fight or not foes or c.effect("cannot-attack"):
        draft.emit(ev.ConditionExpired(handle=handle, condition_id=cond.id, reason="the flurry is over"))
        return False
    draft.emit(
        ev.StepsAwaited(
            steps=(
                ev.PendingStep(
                    who=handle,
                    verb="attack",
                    kind="flurry",
                    prompt=f"{c.name}: next blow of the flurry ({left} left, -20%): affray attack {handle} TARGET (or act {handle} pass)",
                    options=("attack", "pass"),
                    dice=(ev.DiceNeed("flurry blow", "1D100", by=handle),),
                    data={"weapon": cond.note},
                ),
            )
        )
    )
    return True


def proceed(draft: Draft) -> None:
    """What comes after an exchange: an action waiting for its free attacks,
    the next blow of a flurry, or the next turn."""
    who = pending_action(draft.state)
    if who:
        resume(draft, who)
        return
    for c in draft.state.combatants.values():
        if c.has("flurry") and next_blow(draft, c.handle):
            return
    done(draft)


# --------------------------------------------------------------------------- #
# Area effects and Dive (seed 004 "Dive")
# --------------------------------------------------------------------------- #


def area_effect(draft: Draft, spec: Spec) -> None:
    """``affray act gm area DAMAGE on=A,B [name=NAME]``: an area effect hits
    each target; each may Dive (a Reaction: a Dodge test halves the damage,
    a critical avoids it all, and the diver ends prone), then the damage is
    rolled once and a location for each target."""
    from affray import dice as dicelib

    state = draft.state
    if state.phase != "round" or state.exchange is not None or any(s.kind != "turn" for s in state.pending):
        raise RuleError("an area effect comes between actions in a round; finish what is pending first")
    if not spec.args:
        raise RuleError(f"how much damage? {USAGE['area']}")
    damage = spec.args[0]
    try:
        damage = str(dicelib.parse(damage))
    except ValueError as exc:
        raise RuleError(f"area damage {spec.args[0]!r}: {exc}") from None
    targets = [find_combatant(state, h) for h in split(spec.get("on"))]
    if not targets:
        raise RuleError(f"whom does it hit? {USAGE['area']}")
    name = spec.get("name") or "area effect"
    draft.emit(ev_mrq1.AreaEffect(name=name, damage=damage, targets=tuple(targets)))
    steps = []
    for h in targets:
        c = state.combatants[h]
        why = _cannot_dive(state, h)
        if why:
            note(draft, h, "dive", f"{c.name} cannot dive ({why})")
            continue
        steps.append(
            ev.PendingStep(
                who=h, verb="react", kind="dive",
                prompt=f"{c.name}: dive for cover from the {name} (Dodge test, costs a reaction; ends prone): dive | none",
                options=("dive", "none"),
                dice=(ev.DiceNeed(f"{c.name}'s dive (Dodge)", "1D100", by=h),),
            )
        )
    steps.append(_area_step(name, damage, targets, {}))
    draft.emit(ev.StepsAwaited(steps=tuple(steps)))


def _cannot_dive(state: State, handle: str) -> str:
    c = state.combatants[handle]
    if c.status != "active" or c.effect("helpless"):
        return "helpless"
    if c.stance == "prone":
        return "already prone"
    if c.reactions <= 0:
        return "no reactions left"
    return ""


def _area_step(name: str, damage: str, targets: list[str], results: dict[str, str]) -> ev.PendingStep:
    dice = [ev.DiceNeed(f"{name} damage", damage, by="GM")] + [ev.DiceNeed(f"hit location: {h}", "1D20", by="GM") for h in targets]
    return ev.PendingStep(
        who="GM", verb="roll", kind="area-damage",
        prompt=f"GM: roll the {name}'s damage {damage} and a location for each of {', '.join(targets)}",
        dice=tuple(dice),
        data={"name": name, "damage": damage, "targets": ",".join(targets), **{f"dive:{k}": v for k, v in results.items()}},
    )


def dive(draft: Draft, step: ev.PendingStep, reaction: str) -> None:
    """``affray react WHO dive|none`` against an area effect."""
    state = draft.state
    who = step.who
    c = state.combatants[who]
    rest = [s for s in state.pending if s is not step]
    area = next(s for s in rest if s.kind == "area-damage")
    result = "none"
    if reaction == "dive":
        draft.emit(ev.ActionSpent(handle=who, kind="reaction", reason="dive"))
        break_aim(draft, who, "dives")
        mods = condition_modifiers(c, reaction=True, mobility=True)
        tested = test(draft, c, "Dodge", skill(c, "Dodge"), mods, f"dive from the {area.data['name']}")
        result = {"critical": "all", "success": "half"}.get(tested.result, "failed")
        draft.emit(ev.StanceChanged(handle=who, stance="prone", reason="dived"))
    else:
        note(draft, who, "dive", f"{c.name} does not dive")
    data = dict(area.data)
    data[f"dive:{who}"] = result
    new_area = ev.PendingStep(who=area.who, verb=area.verb, kind=area.kind, prompt=area.prompt, dice=area.dice, data=data)
    draft.emit(ev.StepsAwaited(steps=tuple(new_area if s is area else s for s in rest)))


def _roll_area(draft: Draft, step: ev.PendingStep, rest) -> None:
    from affray.rules.mrq1.damage import _wound, _location_for, _continue

    if any(s.kind == "dive" for s in rest):
        raise RuleError("every target must first dive or not: " + "; ".join(s.prompt for s in rest if s.kind == "dive"))
    rulings = rulings_of(draft.state)
    name = str(step.data["name"])
    amount = draft.roll(str(step.data["damage"]), f"{name} damage", by="GM").total
    follow: list[ev.PendingStep] = []
    for h in str(step.data["targets"]).split(","):
        d20 = draft.roll("1D20", f"hit location: {h}", by="GM").total
        c = draft.state.combatants[h]
        if c.status == "dead":
            continue
        dive_result = str(step.data.get(f"dive:{h}", "none"))
        rolled = amount
        if dive_result == "half":
            rolled = amount // 2 if rulings.dive_half_rounding == "down" else -(-amount // 2)
        elif dive_result == "all":
            rolled = 0
        location = _location_for(c, d20)
        loc = c.location(location)
        armour = min(rolled, loc.ap) if rulings.area_damage_armour else 0
        draft.emit(ev.DamageDealt(exchange=0, target=h, location=location, rolled=rolled, reduced=0, armour=armour,
                                  final=rolled - armour,
                                  note=f"{name}; d20={d20}" + {"half": "; dived: halved", "all": "; dived: avoided"}.get(dive_result, "")))
        if rolled - armour > 0:
            follow.extend(_wound(draft, h, location, 0))
    _continue(draft, tuple(rest) + tuple(follow), f"the {name} is over")


_ACTIONS = {
    "defend": defend_or_pass,
    "pass": defend_or_pass,
    "aim": aim,
    "cast": cast,
    "charge": charge,
    "move": _move,
    "sprint": _move,
    "retreat": retreat,
    "ready": ready,
    "reload": ready,
    "stance": stance,
    "stand": stance,
    "skill": skill_use,
    "delay": delay,
    "interrupt": interrupt,
}


def _shoot(draft: Draft, who: str, spec: Spec) -> None:
    from affray.rules.mrq1 import ranged

    ranged.shoot(draft, who, spec)


def _finish_shoot(draft: Draft, who: str, spec: Spec, damaged: bool, passed) -> None:
    from affray.rules.mrq1 import ranged

    ranged.finish(draft, who, spec, damaged)


_ACTIONS["shoot"] = _shoot

_FINISH = {
    "cast": _finish_cast,
    "move": _finish_move,
    "sprint": _finish_move,
    "charge": _finish_charge,
    "ready": _finish_ready,
    "reload": _finish_ready,
    "stance": _finish_stance,
    "shoot": _finish_shoot,
}


def _register() -> None:
    from affray.rules.mrq1 import damage

    damage._ROLLS.update(
        {"free-attack-test": _roll_free_attack_test, "action-roll": _roll_action, "area-damage": _roll_area}
    )


_register()
