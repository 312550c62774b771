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
queues the step ``act:WORD`` (the router in :mod:`.system` knows each
word's handler); the word checks it and :func:`.core.begin` spends its
Combat Actions; an action that draws free attacks waits for them
(:mod:`.free_attacks`), which then queue ``finish:WORD`` to carry it out;
:func:`.core.done` moves the turn on. The text itself (:class:`.core.Spec`,
:func:`.core.parse`) is in :mod:`.core`. The words live in:

- :mod:`.movement`: move, sprint, retreat, charge, stance / stand
- :mod:`.readying`: ready, reload
- :mod:`.casting`: cast, skill
- :mod:`.delay`: delay, interrupt, and the blows of a Flurry
- :mod:`.ranged`: aim, shoot
- :mod:`.area`: the GM's area effects, and Dive
"""

from __future__ import annotations

from affray.events import core as ev
from affray.rules.base import Draft, RuleError
from affray.rules.mrq1.core import ACTION_WORDS, USAGE, Spec, apply, begin, done, flurry_step, parse, pending_action


# --------------------------------------------------------------------------- #
# Entry points
# --------------------------------------------------------------------------- #


def take_action(draft: Draft, who: str, action: str) -> None:
    """``affray act WHO ACTION``: parse the text and queue the step
    ``act:WORD`` with ``who`` and the :class:`.core.Spec`. Raises
    :class:`RuleError` for an unknown word."""
    spec = parse(action)
    if spec.word not in ACTION_WORDS:
        raise RuleError(f"unknown action {spec.word!r}; use one of {', '.join(ACTION_WORDS)} (see 'affray act --help')")
    draft.then("act:" + spec.word, who=who, spec=spec)


def gm_action(draft: Draft, action: str) -> None:
    """``affray act gm ...``: what the GM does outside any character's turn
    (an area effect: the step ``gm:area``)."""
    spec = parse(action)
    if spec.word != "area":
        raise RuleError(f"the GM can act with: {USAGE['area']}; characters act with 'affray act WHO ACTION'")
    draft.then("gm:area", spec=spec)


# --------------------------------------------------------------------------- #
# Defend, pass
# --------------------------------------------------------------------------- #


def defend_or_pass(draft: Draft, who: str, spec: Spec) -> None:
    """``defend`` (+20% to Dodge and parry tests until the bearer's next
    combat action, seed 004 "Defend") or ``pass`` (the action is given up;
    a Flurry's remaining blows too)."""
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
    """The step ``exchange:after``: what comes after an exchange. An action
    waiting for its free attacks goes on (``free-attacks:resume``), else a
    Flurry's next blow or the next turn (``flurry:next-blow``)."""
    who = pending_action(draft.state)
    if who:
        draft.then("free-attacks:resume", who=who)
        return
    draft.then("flurry:next-blow")
