"""Mounted combat (seed 002 "HIT LOCATIONS OF MOUNTED TARGETS", "PROHIBITED
MOUNTED WEAPONS", "HIGH GROUND", "KNOCKBACK", "Lance charge").

``affray mount RIDER MOUNT`` seats a rider on a mount (another combatant),
``affray mount RIDER --off`` dismounts. While mounted: against footmen the
rider has high ground (+10% to attacks and parries, 1D10+10 locations with
1H melee weapons: :mod:`affray.rules.rq3.attack`); two-handed hacking
weapons are used at 3/4 of their attack and parry; Ride replaces Maneuver
in contests; knockback adds the mount's SIZ on a Ride success
(:mod:`affray.rules.rq3.knockback`).
"""

from __future__ import annotations

from affray.events import commands as cmd
from affray.events import core as ev
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.rq3 import core


def mount(draft: Draft, command: cmd.Mount) -> None:
    """Seat ``rider`` on ``mount`` or, with ``off``, dismount."""
    state = draft.state
    rider = find_combatant(state, command.rider)
    r = state.combatants[rider]
    seat = next((x for x in r.conditions if x.name == "mounted"), None)
    if command.off:
        if seat is None:
            raise RuleError(f"{r.name} is not mounted")
        draft.emit(ev.ConditionExpired(handle=rider, condition_id=seat.id, reason="dismounted"))
        return
    if seat is not None:
        raise RuleError(f"{r.name} is already mounted; affray mount {rider} --off first")
    if not command.mount:
        raise RuleError(f"name the mount: affray mount {rider} MOUNT")
    m = find_combatant(state, command.mount)
    if m == rider:
        raise RuleError(f"{r.name} cannot ride themself")
    siz = core.sheet_of(state.combatants[m]).characteristics.SIZ
    core.condition(draft, rider, "mounted", ends="event", key=m, effects={"siz": siz},
                   note=f"on {state.combatants[m].name} (SIZ {siz})")
