"""GM rulings at the table (issue 16, item 2), decided once for every system.

The GM's fiat is not a rule of any seed: it is the table's own say (DESIGN.md,
"Rulings are facts": a GM override is an event). So these handlers live
below the systems, and each system's router maps the commands to them
(``COMMANDS`` below, one line in each ``system.py``):

- :class:`~affray.events.commands.SetHitPoints` (``affray set WHO hp LOC N``)
  and :class:`~affray.events.commands.Heal` (``affray heal WHO [LOC] [N]``):
  :class:`~affray.events.core.HitPointsSet`, one per location changed;
- :class:`~affray.events.commands.RuleOut` (``affray out WHO HOW``):
  :class:`~affray.events.core.CombatantOut`; it leaves melee and the turn
  order, its steps are dropped, and when fewer than two sides can fight the
  fight ends (:func:`affray.rules.base.fight_over`); when it was the only one
  acting, the system's turn sequencer decides who acts next;
- :class:`~affray.events.commands.EndFight` (``affray end --winner SIDE|draw``):
  :class:`~affray.events.core.FightRuledOver`, then the shared
  :class:`~affray.events.core.FightEnded`;
- :class:`~affray.events.commands.ChangeRuling` (``affray ruling NAME=VALUE``):
  :class:`~affray.events.core.RulingChanged`, validated by the system's own
  ``rulings()``; the systems read rulings from the state, so it holds from
  that point on.

Every verb needs a reason (it is on record with the ruling). Errors are
:class:`~affray.rules.base.RuleError`, one line; nothing is appended.
Units: HP in points.
"""

from __future__ import annotations

from affray.events import commands as cmd
from affray.events import core as ev
from affray.projections.state import Combatant, Location
from affray.rules import base
from affray.rules.base import Draft, RuleError, find_combatant

#: How a combatant may leave the fight (``affray out WHO HOW``).
OUT_KINDS = ("fled", "surrendered", "removed", "dead")
#: The largest HP a GM may set (a typo guard; no sheet comes near it).
MAX_HP = 9999


def _reason(command, verb: str) -> str:
    reason = " ".join(command.reason.split())
    if not reason:
        raise RuleError(f"a GM ruling needs a reason: affray {verb} ... --reason \"why\"")
    return reason


def _open(draft: Draft, verb: str) -> None:
    if draft.state.phase == "closed":
        raise RuleError("the encounter is closed; open a new one with 'affray new'")


def _squash(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def find_location(c: Combatant, name: str) -> Location:
    """The location of ``c`` called ``name`` (any case; spaces, '-' and '_'
    ignored; an unambiguous prefix will do). Raises :class:`RuleError`
    naming the locations."""
    wanted = _squash(name)
    exact = [l for l in c.locations if _squash(l.name) == wanted]
    hits = exact or [l for l in c.locations if wanted and _squash(l.name).startswith(wanted)]
    if len(hits) == 1:
        return hits[0]
    known = ", ".join(l.name for l in c.locations)
    if not hits:
        raise RuleError(f"{c.name} has no location {name!r} (locations: {known})")
    raise RuleError(f"{name!r} could mean {', '.join(l.name for l in hits)}; name the location in full")


def set_hit_points(draft: Draft, command: cmd.SetHitPoints) -> None:
    """``affray set WHO hp LOCATION N``: the location has ``N`` HP (from
    −MAX_HP up to its maximum; below 0 is allowed, as wounds take locations
    below 0)."""
    _open(draft, "set")
    reason = _reason(command, "set")
    handle = find_combatant(draft.state, command.who)
    c = draft.who(handle)
    loc = find_location(c, command.location)
    if not -MAX_HP <= command.hp <= loc.max_hp:
        raise RuleError(f"{c.name}'s {loc.name} takes {-MAX_HP}..{loc.max_hp} HP, not {command.hp}; "
                        "use 'affray heal' to restore it to its maximum")
    if command.hp == loc.hp:
        raise RuleError(f"{c.name}'s {loc.name} already has {loc.hp} HP; nothing to set")
    draft.emit(ev.HitPointsSet(handle=handle, location=loc.name, hp=command.hp, reason=reason))


def heal(draft: Draft, command: cmd.Heal) -> None:
    """``affray heal WHO [LOCATION] [N]``: ``N`` HP back to the location (up
    to its maximum), or the location to its maximum (no ``N``), or every
    location to its maximum (no location). Wounds and status stay as they
    are: the GM rules those separately."""
    _open(draft, "heal")
    reason = _reason(command, "heal")
    handle = find_combatant(draft.state, command.who)
    c = draft.who(handle)
    if command.amount < 0:
        raise RuleError(f"heal takes a positive number of HP, not {command.amount}; 'affray set' lowers HP")
    if command.amount > MAX_HP:
        raise RuleError(f"heal takes at most {MAX_HP} HP, not {command.amount}")
    locations = (find_location(c, command.location),) if command.location.strip() else c.locations
    changed = []
    for loc in locations:
        hp = min(loc.max_hp, loc.hp + command.amount) if command.amount else loc.max_hp
        if hp > loc.hp:
            changed.append(ev.HitPointsSet(handle=handle, location=loc.name, hp=hp, reason=reason))
    if not changed:
        where = f"{c.name}'s {locations[0].name}" if len(locations) == 1 else c.name
        raise RuleError(f"{where} has lost no HP; nothing to heal")
    draft.emit(*changed)


def rule_out(draft: Draft, command: cmd.RuleOut) -> None:
    """``affray out WHO fled|surrendered|removed|dead``: WHO leaves the fight.

    Refused while WHO is in the open exchange (finish it first). WHO leaves
    melee (``EngagementChanged``) and the turn, its pending steps are
    dropped; when fewer than two sides can fight the fight ends; when the
    table waited for WHO alone, the system's turn sequencer runs."""
    _open(draft, "out")
    reason = _reason(command, "out")
    how = command.how.strip().lower()
    if how not in OUT_KINDS:
        raise RuleError(f"'out' takes one of {', '.join(OUT_KINDS)}, not {command.how!r}")
    state = draft.state
    handle = find_combatant(state, command.who)
    c = state.combatants[handle]
    if c.status in ("out", "dead"):
        raise RuleError(f"{c.name} is already {c.status}; 'affray undo' takes back the ruling that put them out")
    x = state.exchange
    if x is not None and handle in (x.attacker, x.target):
        raise RuleError(f"{c.name} is in the open exchange; finish it first (see 'affray pending')")
    draft.emit(ev.CombatantOut(handle=handle, how=how, reason=reason))
    for other in c.engaged:
        draft.emit(ev.EngagementChanged(a=handle, b=other, engaged=False))
    state = draft.state
    if state.phase in ("round", "between") and base.fight_over(draft):
        return
    steps = tuple(s for s in state.pending if s.who != handle)
    if handle in state.turn:
        rest = tuple(h for h in state.turn if h != handle)
        draft.emit(ev.TurnBegan(handles=rest, action_no=state.action_no if rest else 0))
    if steps != state.pending:
        draft.emit(ev.StepsAwaited(steps=steps))
    if not steps and state.phase == "round":
        draft.hand_over()  # the table waited for WHO alone: the turn order says what comes next


def end_fight(draft: Draft, command: cmd.EndFight) -> None:
    """``affray end --winner SIDE|draw``: the fight is over by the GM's
    word; an open exchange ends unfinished, no one acts and the table waits
    for nothing."""
    _open(draft, "end")
    reason = _reason(command, "end")
    state = draft.state
    if state.phase == "over":
        raise RuleError(f"the fight is already over ({state.winner or 'no winner'}); 'affray undo' takes back its end")
    wanted = command.winner.strip()
    sides = sorted({c.side for c in state.combatants.values()})
    if wanted.lower() == "draw":
        winner = ""
    else:
        winner = next((s for s in sides if s.lower() == wanted.lower()), None)
        if winner is None:
            raise RuleError(f"no side called {wanted!r} (sides: {', '.join(sides) or 'none yet'}); "
                            "pass --winner SIDE or --winner draw")
    draft.emit(ev.FightRuledOver(winner=winner, reason=reason))
    if state.exchange is not None:  # the blow in the air is not finished: the fight ends here
        draft.emit(ev.ExchangeEnded(exchange=state.exchange.id, summary="the GM ended the fight"))
    draft.emit(
        ev.TurnBegan(handles=(), action_no=0),
        ev.FightEnded(winner=winner, reason="the GM's ruling" if winner else "a draw, by the GM's ruling"),
        ev.StepsAwaited(steps=()),
    )


def change_ruling(draft: Draft, command: cmd.ChangeRuling) -> None:
    """``affray ruling NAME=VALUE``: the system's named ruling holds the new
    value from this point on (validated by the system's ``rulings()``;
    see ``affray rulings``)."""
    _open(draft, "ruling")
    reason = _reason(command, "ruling")
    state = draft.state
    name = command.name.strip().replace("-", "_")
    system = base.get(state.system)
    known = system.rulings({})
    if name not in known:
        raise RuleError(f"unknown {state.system} ruling {command.name!r}; known: {', '.join(known)}")
    current = system.rulings(dict(state.rulings))
    after = system.rulings({**state.rulings, name: command.value})
    if after[name] == current[name]:
        raise RuleError(f"ruling {name} is already {current[name]}; nothing to change")
    draft.emit(ev.RulingChanged(name=name, value=after[name], was=current[name], reason=reason))


#: The GM's verbs, for each system's router: ``commands={..., **gm.COMMANDS}``.
COMMANDS = {
    cmd.SetHitPoints: set_hit_points,
    cmd.Heal: heal,
    cmd.RuleOut: rule_out,
    cmd.EndFight: end_fight,
    cmd.ChangeRuling: change_ruling,
}
