"""Rolemaster-style combat (seed 000_0c5afa08bd3fc886.txt, rules-reference.md A).

Layout, the shape every system shares: ``system`` (the router, the only
module importing rule modules) -> the rule modules, one per seed section
(``attack``: Attack Procedure and fumbles; ``defence``: Parry and Dodge;
``criticals``: Effects from Criticals; ``maneuvers``: Surprised /
Confused; ``turns``: the round and the stun stack's wear-off; ``actions``:
pass, stand, draw) -> ``core`` -> ``sheet``, ``tables`` (+ ``data/``, the
INVENTED samples), ``rulings``, ``conditions``.
"""

from affray.rules.rolemaster.system import SYSTEM

__all__ = ["SYSTEM"]
