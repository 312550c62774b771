"""UESRPG 3e combat (seed 003_9f2af80e743acd07.txt, rules-reference.md D).

Layout, the same for every system: ``system`` (the router, the only module
importing rule modules), one rule module per step of the seed (``attack``,
``defence``, ``contest``, ``advantages``, ``damage``, ``wounds``,
``opportunity``, ``turns``), then ``core`` (shared queries and the d100
test), ``sheet``, ``tables`` (+ ``data/``), ``rulings``, ``conditions``.
"""

from affray.rules.uesrpg.system import SYSTEM

__all__ = ["SYSTEM"]
