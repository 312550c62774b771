"""The step router: what happens next is data, and one loop dispatches it.

Every rule system decides a command the same way (DESIGN.md, "Inside a
system, steps are data and imports run one way"):

1. The system's ``system.py`` builds one :class:`Router` with two tables:
   ``commands`` (command type -> handler) and ``steps`` (step kind ->
   handler). It is the only module that imports the rule modules.
2. A handler decides **one** step: it checks, rolls through the
   :class:`~affray.rules.base.Draft`, emits its events, and queues what
   follows with ``draft.then(kind, **args)`` ("roll damage", then "wound
   effects", then "knockback"). It never calls the next rule's function,
   so rule modules never import each other.
3. The router runs the agenda as a stack of pending effects, as card-game
   rule engines do: the follow-ups one handler queued run in the order it
   queued them, and each one's own follow-ups run before the next sibling
   (depth first). That is exactly the order of the direct calls it
   replaces, so the log a command writes does not change.
4. A handler that has finished its part of the flow and leaves the table
   to the turn order calls ``draft.hand_over()``. When the agenda is empty
   the router then runs the system's ``sequencer`` (its turn order: who
   acts next, or "end the round"), which may queue more steps.

Steps the table waits for (a roll, a reaction, a choice) are not on this
agenda: they are ``PendingStep`` events in the log (``StepsAwaited``), and
the command that answers one (``affray roll``, ``affray choose``) is
routed by its kind through the same ``steps`` table (a handler for
``RollPending`` typically queues ``"roll:" + step.kind``).

The agenda lives in the ``Draft`` of one command and is never stored:
everything a later command needs is in the log's events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from affray.rules.base import Draft, FollowUp, RuleError

__all__ = ["CommandHandler", "FollowUp", "Router", "StepHandler"]

#: A command handler: ``handler(draft, command) -> None``.
CommandHandler = Callable[[Draft, Any], None]
#: A step handler: ``handler(draft, **args) -> None``, the ``args`` given to
#: ``draft.then(kind, **args)``.
StepHandler = Callable[..., None]


class Router:
    """One system's dispatch tables and the loop that drains the agenda.

    - ``system``: the system key, for the refusal of an unknown command.
    - ``commands``: command class -> handler ``(draft, command)``.
    - ``steps``: step kind -> handler ``(draft, **args)``.
    - ``sequencer``: ``(draft) -> None``, the turn order, run when the
      agenda is empty after a handler called ``draft.hand_over()``. It
      may queue steps; it must not call ``hand_over()`` itself.

    Errors: :class:`RuleError` for a command the system does not handle (one
    line, exit 2 in the CLI); ``KeyError`` naming the kind for a step no
    handler is registered for, which is a bug in the system, not bad input.
    """

    __slots__ = ("system", "commands", "steps", "sequencer")

    def __init__(
        self,
        *,
        system: str,
        commands: Mapping[type, CommandHandler],
        steps: Mapping[str, StepHandler],
        sequencer: Callable[[Draft], None] | None = None,
    ) -> None:
        self.system, self.commands, self.steps, self.sequencer = system, commands, steps, sequencer

    def decide(self, draft: Draft, command: object) -> list:
        """Dispatch ``command``, drain the agenda, and return the events the
        draft holds. Raises :class:`RuleError` when a handler refuses."""
        handler = self.commands.get(type(command))
        if handler is None:
            raise RuleError(f"{self.system} does not handle {type(command).__name__}")
        handler(draft, command)
        self.drain(draft)
        return draft.events

    def drain(self, draft: Draft) -> None:
        """Run every queued step, depth first, then the sequencer whenever a
        handler handed over and nothing is left to run."""
        stack: list[FollowUp] = []
        while True:
            stack.extend(reversed(draft.take_queued()))
            if stack:
                step = stack.pop()
                try:
                    handler = self.steps[step.kind]
                except KeyError:
                    raise KeyError(f"{self.system}: no handler for step kind {step.kind!r}") from None
                handler(draft, **step.args)
                continue
            if draft.take_hand_over() and self.sequencer is not None:
                self.sequencer(draft)
                continue
            return
