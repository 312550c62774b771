"""Mythras / Classic Fantasy Imperative combat (seed 001_0613c1b7f6517492.txt,
rules-reference.md B).

Layout, the same for every system: ``sheet`` (the combatant sheet), ``rulings``
(named, configurable rulings), ``tables`` (+ ``data/``), ``conditions``
(catalogue), ``turns`` (round structure), ``attack`` / ``damage`` (the
exchange) and ``system`` (the decider).
"""

from affray.rules.mythras.system import SYSTEM

__all__ = ["SYSTEM"]
