"""Finding points in a fight's past: the end of a round, or a step in it.

``state_at(records, round, step=None)``: the state just after step ``step``
of round ``round`` (live commands only), or at the end of that round when
``step`` is None. Raises ``LookupError`` with one line when the fight never
got there.
"""

from __future__ import annotations

from affray.events.core import RoundEnded
from affray.events.envelope import Recorded
from affray.projections.evolve import evolve
from affray.projections.state import State
from affray.projections.timeline import Timeline


def parse_point(text: str) -> tuple[int, int | None]:
    """``"3"`` -> (3, None); ``"1.2"`` -> (1, 2). ``ValueError`` otherwise."""
    r, sep, s = text.strip().partition(".")
    try:
        rnd = int(r)
        step = int(s) if sep else None
    except ValueError:
        raise ValueError(f"expected ROUND or ROUND.STEP (like 3 or 1.2), got {text!r}") from None
    if rnd < 0 or (step is not None and step < 0):
        raise ValueError(f"rounds and steps count from 0, got {text!r}")
    return rnd, step


def state_at(records: list[Recorded], round_no: int, step: int | None = None) -> State:
    """The state after step ``step`` of round ``round_no`` (or at the end of
    the round when ``step`` is None), along the live timeline of the whole
    log: undone commands stay undone in the past too."""
    state = State()
    found: State | None = None
    for rec in Timeline(records).live_records():
        before = state
        state = evolve(state, rec)
        if step is None:
            if isinstance(rec.event, RoundEnded) and rec.event.round == round_no:
                return state
            if state.round == round_no:
                found = state
        elif before.round == round_no and before.step == step and (state.step != step or state.round != round_no):
            return before
        elif state.round == round_no and state.step == step:
            found = state
    if found is not None:
        return found
    where = f"round {round_no}" + (f" step {step}" if step is not None else "")
    raise LookupError(f"the fight has no {where} yet; 'affray log' shows the rounds and steps")
