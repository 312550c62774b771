"""Projections: pure folds of the event log into state (DESIGN.md, "The flow")."""

from affray.projections.evolve import evolve
from affray.projections.state import Combatant, Exchange, Location, State
from affray.projections.timeline import Timeline, fold, project

__all__ = ["evolve", "Combatant", "Exchange", "Location", "State", "Timeline", "fold", "project"]
