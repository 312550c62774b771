"""Mongoose RuneQuest (1st ed.) SRD combat (seed 004_71637fb3cfde52c9.txt).

Layout, the same for every system, imports running one way only (the
import-linter contract for mrq1 in ``pyproject.toml`` keeps it so):

- ``system``: the router, the only module that imports the rule modules
  (its ``STEPS`` table reads as the course of an exchange);
- the rule modules, one per section of the seed, which never import each
  other: ``attack`` (attack and reactions: the Dodge and Parry tables),
  ``damage``, ``wounds``, ``knockback``, ``impaling``, ``precise``,
  ``options``, ``ranged``, ``free_attacks``, ``actions``, ``movement``,
  ``readying``, ``casting``, ``delay``, ``area``, ``grapple``, ``unarmed``,
  ``mounted``, ``heroes``, ``turns`` (round structure);
- ``core``: what they share (state queries, spending, modifiers, tests);
- ``sheet`` (the combatant sheet), ``tables`` (+ ``data/``), ``rulings``
  (named, configurable rulings), ``conditions`` (catalogue).
"""

from affray.rules.mrq1.system import SYSTEM

__all__ = ["SYSTEM"]
