"""The step router (affray.rules.router): follow-ups are data, run depth
first in the order queued, and the turn sequencer runs only once the agenda
is empty after a hand-over (DESIGN.md, "Inside a system, steps are data")."""

from __future__ import annotations

import pytest

from affray.projections.state import State
from affray.rules.base import Draft, RuleError
from affray.rules.router import Router


class Ping:
    pass


class Other:
    pass


def _router(trace: list[str]) -> Router:
    def on_ping(draft: Draft, command: Ping) -> None:
        trace.append("ping")
        draft.then("a", n=1)
        draft.then("b")

    def a(draft: Draft, n: int) -> None:
        trace.append(f"a{n}")
        if n == 1:
            draft.then("a", n=2)
            draft.hand_over()

    def b(draft: Draft) -> None:
        trace.append("b")

    def sequencer(draft: Draft) -> None:
        trace.append("next turn")

    return Router(system="toy", commands={Ping: on_ping}, steps={"a": a, "b": b}, sequencer=sequencer)


def test_follow_ups_run_depth_first_and_the_sequencer_last():
    trace: list[str] = []
    events = _router(trace).decide(Draft(State(), dice=None), Ping())
    assert events == []
    # a1 queued a2: a2 runs before b (a call's order), the sequencer once at the end
    assert trace == ["ping", "a1", "a2", "b", "next turn"]


def test_no_hand_over_no_sequencer():
    trace: list[str] = []
    router = _router(trace)
    draft = Draft(State(), dice=None)
    draft.then("b")
    router.drain(draft)
    assert trace == ["b"]


def test_unknown_command_is_one_line_rule_error():
    with pytest.raises(RuleError, match="toy does not handle Other"):
        _router([]).decide(Draft(State(), dice=None), Other())


def test_unknown_step_kind_names_the_kind():
    router = _router([])
    draft = Draft(State(), dice=None)
    draft.then("nope")
    with pytest.raises(KeyError, match="nope"):
        router.drain(draft)
