"""RuneQuest III house rules (seed 002_321dc991624c8969.txt, rules-reference.md C).

Layout, the same for every system: ``sheet``, ``rulings``, ``tables`` (+
``data/``), ``conditions``, ``core`` (shared queries), one rule module per
seed section (``turns``, ``intent``, ``movement``, ``attack``,
``defence``, ``damage``, ``wounds``, ``knockback``) and ``system`` (the
router).
"""

from affray.rules.rq3.system import SYSTEM

__all__ = ["SYSTEM"]
