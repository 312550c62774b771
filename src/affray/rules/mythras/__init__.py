"""Mythras / Classic Fantasy Imperative combat (seed 001_0613c1b7f6517492.txt,
rules-reference.md B).

Layout, the same for every system (DESIGN.md, "Inside a system, steps are
data and imports run one way"): ``system`` (the router: which handler
decides each command and each step kind, and the only module importing
the rule modules) -> rule modules, one per seed section, never importing
each other (``turns``, ``attack``, ``effect_choice``, ``effects``,
``damage``, ``wounds``, ``special_attacks``, ``ranged``, ``defence``,
``movement``, ``movement_modes``, ``terrain``, ``holds``, ``magic``,
``luck``, ``actions``) -> ``core`` (what they share) -> ``sheet`` -> ``tables`` (+
``data/``), ``rulings``, ``conditions``. pyproject.toml's import-linter
contract for mythras keeps it so.
"""

from affray.rules.mythras.system import SYSTEM

__all__ = ["SYSTEM"]
