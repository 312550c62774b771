"""Combat actions beyond the close combat attack in mrq1: the action text,
its dispatch, and the course every action takes.

Source: seed 004 "Combat Actions" (Defend; the others in the modules named
below), "Free Attacks"; the rulings named on each function.

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

Every action takes the same course: :func:`take_action` parses the text and
calls the action's word; the word checks it and :func:`begin` spends its
Combat Actions; an action that draws free attacks waits for them
(:mod:`.free_attacks`), then :func:`finish` carries it out; :func:`done`
moves the turn on. The words live in:

- :mod:`.movement`: move, sprint, retreat, charge, stance / stand
- :mod:`.readying`: ready, reload
- :mod:`.casting`: cast, skill
- :mod:`.delay`: delay, interrupt, and the blows of a Flurry
- :mod:`.ranged`: aim, shoot
- :mod:`.area`: the GM's area effects, and Dive
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.projections.state import Combatant, State
from affray.rules.base import Draft, RuleError
from affray.rules.d100 import parse_modifier
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1.common import break_aim, rulings_of

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
    handler = _words()[0].get(spec.word)
    if handler is None:
        raise RuleError(f"unknown action {spec.word!r}; use one of {', '.join(_words()[0])} (see 'affray act --help')")
    handler(draft, who, spec)


def gm_action(draft: Draft, action: str) -> None:
    """``affray act gm ...``: what the GM does outside any character's turn
    (an area effect)."""
    spec = parse(action)
    if spec.word != "area":
        raise RuleError(f"the GM can act with: {USAGE['area']}; characters act with 'affray act WHO ACTION'")
    from affray.rules.mrq1.area import area_effect

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


def finish(draft: Draft, who: str, spec: Spec, damaged: bool, passed: bool | None) -> None:
    """Carry the action out, once its free attacks are over: ``damaged``
    whether they did damage, ``passed`` the test that damage called for
    (None: no test)."""
    _words()[1][spec.word](draft, who, spec, damaged, passed)


def done(draft: Draft) -> None:
    """The action is over: move the turn on."""
    from affray.rules.mrq1.turns import advance

    draft.emit(ev.StepsAwaited(steps=()))
    advance(draft)


def note(draft: Draft, who: str, word: str, text: str, spec: Spec | None = None) -> None:
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


# --------------------------------------------------------------------------- #
# Defend, pass
# --------------------------------------------------------------------------- #


def defend_or_pass(draft: Draft, who: str, spec: Spec) -> None:
    """``defend`` (+20% to Dodge and parry tests until the bearer's next
    combat action, seed 004 "Defend") or ``pass`` (the action is given up;
    a Flurry's remaining blows too)."""
    from affray.rules.mrq1.delay import flurry_step

    state = draft.state
    flurry = flurry_step(state, who)
    if flurry is not None and spec.word == "pass":
        c = state.combatants[who]
        cond = next(x for x in c.conditions if x.name == "flurry")
        draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason="the rest of the flurry is given up"))
        done(draft)
        return
    begin(draft, who, spec)
    if spec.word == "defend":
        apply(draft, who, "defending", ends="next-action", effects={"reaction-bonus": 20})
    done(draft)


# --------------------------------------------------------------------------- #
# After an exchange
# --------------------------------------------------------------------------- #


def proceed(draft: Draft) -> None:
    """What comes after an exchange: an action waiting for its free attacks,
    the next blow of a flurry, or the next turn."""
    from affray.rules.mrq1.delay import next_blow
    from affray.rules.mrq1.free_attacks import pending_action, resume

    who = pending_action(draft.state)
    if who:
        resume(draft, who)
        return
    for c in draft.state.combatants.values():
        if c.has("flurry") and next_blow(draft, c.handle):
            return
    done(draft)


# --------------------------------------------------------------------------- #
# The words
# --------------------------------------------------------------------------- #

Handler = Callable[[Draft, str, Spec], None]
Finisher = Callable[[Draft, str, Spec, bool, bool | None], None]


@cache
def _words() -> tuple[dict[str, Handler], dict[str, Finisher]]:
    """Each action word's handler, and the finisher of each word that waits
    for free attacks. Imported on first use: those modules import this one."""
    from affray.rules.mrq1 import casting, delay, movement, ranged, readying

    handlers: dict[str, Handler] = {
        "defend": defend_or_pass,
        "pass": defend_or_pass,
        "aim": ranged.aim,
        "cast": casting.cast,
        "charge": movement.charge,
        "move": movement.move,
        "sprint": movement.move,
        "retreat": movement.retreat,
        "ready": readying.ready,
        "reload": readying.ready,
        "stance": movement.stance,
        "stand": movement.stance,
        "skill": casting.skill_use,
        "delay": delay.delay,
        "interrupt": delay.interrupt,
        "shoot": ranged.shoot,
    }
    finishers: dict[str, Finisher] = {
        "cast": casting.finish_cast,
        "move": movement.finish_move,
        "sprint": movement.finish_move,
        "charge": movement.finish_charge,
        "ready": readying.finish_ready,
        "reload": readying.finish_ready,
        "stance": movement.finish_stance,
        "stand": movement.finish_stance,
        "shoot": ranged.finish,
    }
    return handlers, finishers
