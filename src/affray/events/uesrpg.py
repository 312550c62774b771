"""Events that belong to UESRPG 3e alone (seed 003_9f2af80e743acd07.txt).

Shared meanings (tests, damage, wounds, conditions) use
:mod:`affray.events.core`; these record what only UESRPG has: the combat
roll read on the seed's outcome table with both sides' Degrees of Success,
the Advantages spent, and a Block against its Block Rating.
"""

from affray.events.core import Event


class CombatRollResolved(Event, frozen=True, kw_only=True, tag="uesrpg-combat-roll-resolved"):
    """Both tests of an exchange read on the outcome table (seed 003 Step 3).

    ``defence`` is evade, parry, block, counter or none; for each side the
    ``*_roll`` (0: no roll, an automatic failure), ``*_tn``, ``*_result``
    (critical, success, failure, fumble: after an opponent's critical
    failure has turned a success critical) and ``*_degrees`` (DoS when it
    passed, DoF when it failed). ``row`` names the table row applied,
    ``winner`` is attacker, defender or "", ``hits`` who is struck (the
    defender, or the attacker by a Counter-Attack), ``blocked`` whether a
    Block must be rolled against its BR, ``advantages`` how many the
    ``advantage_to`` side gained (always 0 at range or for a spell)."""

    exchange: int
    attacker: str
    defender: str
    defence: str
    attack_roll: int
    attack_tn: int
    attack_result: str
    attack_degrees: int
    defence_roll: int = 0
    defence_tn: int = 0
    defence_result: str = "failure"
    defence_degrees: int = 0
    row: str
    winner: str = ""
    hits: str = ""
    blocked: bool = False
    advantages: int = 0
    advantage_to: str = ""


class AdvantageChosen(Event, frozen=True, kw_only=True, tag="uesrpg-advantage-chosen"):
    """The winner spends one Advantage before damage (seed 003 Step 4;
    rules-reference.md D8): ``advantage`` is its key, ``by`` the winner,
    ``against`` the loser, ``detail`` e.g. the location chosen."""

    exchange: int
    by: str
    against: str
    advantage: str
    detail: str = ""


class BlockResolved(Event, frozen=True, kw_only=True, tag="uesrpg-block-resolved"):
    """A Block rolled the attack's damage against the shield's Block Rating
    (seed 003 "Block"): ``br`` is the rating used (halved against magic
    without a magic BR, halved for a targe), ``held`` whether the damage
    stayed at or under it; otherwise the full damage lands on the shield
    arm."""

    exchange: int
    defender: str
    shield: str
    damage: int
    br: int
    held: bool
    note: str = ""
