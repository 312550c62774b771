"""Hits healed while dying (RMH ``injury-death-healing.md`` "Death", the
hits rule behind seed 000's criticals; seed 000 has none of its own).

"The soul will depart the body in five minutes. If someone heals enough of
these hits (before the five minutes are up) to drop the total under the
sum mentioned above, then death will not occur due to excessive hits."
So a ``dying`` combatant whom the GM heals (``affray heal``) or sets
(``affray set``) back to ``-limit`` hits or better stops dying at once,
not at the next end of round. The GM verbs themselves are the shared
ones of :mod:`affray.rules.gm`; this module only follows them up.
"""

from __future__ import annotations

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules import gm
from affray.rules.base import Draft, find_combatant
from affray.rules.rolemaster import core


def heal(draft: Draft, command: cmd.Heal) -> None:
    """``affray heal WHO [LOC] [N]`` (:func:`affray.rules.gm.heal`), then
    the check whether ``WHO`` stops dying."""
    gm.heal(draft, command)
    draft.then("hits:healed", who=find_combatant(draft.state, command.who))


def set_hit_points(draft: Draft, command: cmd.SetHitPoints) -> None:
    """``affray set WHO hp LOC N`` (:func:`affray.rules.gm.set_hit_points`),
    then the check whether ``WHO`` stops dying."""
    gm.set_hit_points(draft, command)
    draft.then("hits:healed", who=find_combatant(draft.state, command.who))


def healed(draft: Draft, who: str) -> None:
    """A ``dying`` combatant at ``-limit`` hits or better (or with ruling
    ``death_at=off``) stops dying now (RMH "Death": "death will not occur
    due to excessive hits"). Its status stays as it is: 0 hits or less is
    still unconscious, and the GM rules waking."""
    c = draft.state.combatants[who]
    cond = next((k for k in c.conditions if k.name == "dying"), None)
    if cond is None or c.status == "dead":
        return
    limit = core.death_limit(draft.state, c)
    hp = c.location("body").hp
    if limit is None or hp >= -limit[0]:
        where = "no death threshold (ruling death_at=off)" if limit is None else f"{hp} hits, not past -{limit[0]}"
        draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id,
                                       reason=f"healed in time ({where}): no longer dying"))
