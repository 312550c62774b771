"""Criticals and their effects (seed 000 "Effects from Criticals";
rules-reference.md A11, A12).

The critical roll is closed (01-100), read on the critical table of the
cell's type in the column of its severity; the row's text and effects
(data: hits, stun states, prone, knocked back, "You have initiative",
bleeding...) are applied as conditions and damage by
:func:`affray.rules.rolemaster.core.apply_effects`.
"""

from __future__ import annotations

from affray.events import core as ev
from affray.events import rolemaster as rev
from affray.rules.base import Draft
from affray.rules.rolemaster import core
from affray.rules.rolemaster.tables import CriticalTable


def roll_critical(draft: Draft, step: ev.PendingStep) -> None:
    """``affray roll``: the closed critical roll(s), lookup and effects; an
    ``F`` on a table without an F column is an E roll and a C roll
    (:func:`core.critical_parts`)."""
    state = draft.state
    x = state.exchange
    a, t = state.combatants[x.attacker], state.combatants[x.target]
    table = core.table(state, a, str(step.data["table"]), CriticalTable)
    severity = str(step.data["severity"])
    parts = core.critical_parts(state, a, table.name, severity)
    if parts != (severity,):
        draft.emit(rev.CriticalSplit(exchange=x.id, target=t.handle, table=table.name, severity=severity, parts=parts))
    texts = []
    for part in parts:
        label = f"{part} of {severity}" if part != severity else severity
        roll = draft.roll("1D100", f"{a.name}: critical roll ({label}, {table.name})", by=a.handle).total
        row, cell = table.lookup(roll, part)
        effects = cell.as_dict()
        draft.emit(rev.CriticalLookedUp(exchange=x.id, target=t.handle, table=table.name, table_sha256=table.sha256,
                                        crit_type=table.crit_type, severity=part, roll=roll, row_low=row.low,
                                        row_high=row.high, text=cell.text, effects=effects))
        core.apply_effects(draft, t.handle, effects, f"{label} critical: {cell.text}", exchange=x.id, away_from=a.handle)
        texts.append(cell.text)
    core.end_exchange(draft, f"{a.name} hits {t.name}: {severity} critical, {' '.join(texts)}")
