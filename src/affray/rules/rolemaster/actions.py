"""The other actions of a turn (RMH tactical action table, the round
structure seed 000 implies): ``pass`` (ends the combatant's actions this
round), ``stand`` (prone to standing, 1 Action Point: seed 000 "Staggered
or Prone"), ``draw WEAPON`` (1 Action Point, RMH "Draw weapon")."""

from __future__ import annotations

from affray.events import core as ev
from affray.rules.base import Draft, RuleError
from affray.rules.rolemaster import core


def act_pass(draft: Draft, who: str, args: tuple[str, ...]) -> None:
    """Give up the rest of the round's Action Points."""
    core.own_turn(draft.state, who)
    c = draft.state.combatants[who]
    core.spend(draft, who, c.combat_actions, "pass")
    draft.emit(ev.StepsAwaited(steps=()))
    draft.hand_over()


def act_stand(draft: Draft, who: str, args: tuple[str, ...]) -> None:
    """Stand up from prone: "a 1 Action Point action" (seed 000)."""
    core.own_turn(draft.state, who)
    c = draft.state.combatants[who]
    if c.stance != "prone":
        raise RuleError(f"{c.name} is not prone")
    core.spend(draft, who, 1, "stand up")
    draft.emit(ev.StanceChanged(handle=who, stance="standing", reason="stands up (1 AP)"))
    draft.emit(ev.StepsAwaited(steps=()))
    draft.hand_over()


def act_draw(draft: Draft, who: str, args: tuple[str, ...]) -> None:
    """Draw or pick up a weapon of the sheet (1 Action Point, RMH)."""
    core.own_turn(draft.state, who)
    c = draft.state.combatants[who]
    if not args:
        raise RuleError(f"name the weapon: 'affray act {who} draw WEAPON'")
    try:
        w = core.sheet_of(c).weapon(" ".join(args))
    except ValueError as exc:
        raise RuleError(str(exc)) from None
    if w.name in c.ready:
        raise RuleError(f"{c.name} already holds {w.name}")
    core.spend(draft, who, 1, f"draw {w.name}")
    draft.emit(ev.WeaponReadied(handle=who, weapon=w.name))
    draft.emit(ev.StepsAwaited(steps=()))
    draft.hand_over()
