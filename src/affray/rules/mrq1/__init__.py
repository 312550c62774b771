"""Mongoose RuneQuest (1st ed.) SRD combat (seed 004_71637fb3cfde52c9.txt).

Layout, the same for every system: ``sheet`` (the combatant sheet), ``rulings``
(named, configurable rulings), ``tables`` (+ ``data/``), ``conditions``
(catalogue), ``turns`` (round structure), ``attack`` / ``damage`` (the
exchange) and ``system`` (the decider).
"""

from affray.rules.mrq1.system import SYSTEM

__all__ = ["SYSTEM"]
