"""Named, configurable rulings for Mongoose RuneQuest 1 (system ``mrq1``).

Where seed 004 (``/work/shared/seeds/004_71637fb3cfde52c9.txt``, the MRQ1
SRD combat chapter) is silent or contradicts itself, rules-reference.md
("Seed ambiguities and our rulings" and "E. Mongoose RuneQuest") gives a
default. DESIGN.md: a ruling is always a named, configurable setting, never a
silent choice. Each field of :class:`Rulings` is one such setting; its
default is the documented default, and :data:`RULINGS_DOC` carries the text
and source shown by ``affray rulings``.

An encounter stores its rulings as ``dict[str, str]`` (``EncounterOpened.
rulings``): use :meth:`Rulings.as_mapping` to write and :func:`from_mapping`
to read. Names are the field names (``reaction_attacker_roll``); the
kebab-case spelling (``reaction-attacker-roll``) is accepted on input.
"""

from typing import Literal

import msgspec

__all__ = [
    "DEFAULT_RULINGS",
    "QUIET_AT_DEFAULT",
    "RULING_CHOICES",
    "RULINGS_DOC",
    "Rulings",
    "from_mapping",
]

SEED = "seed 004_71637fb3cfde52c9.txt"
REF = "rules-reference.md"

#: Allowed values of every ruling. Booleans are listed as (True, False).
RULING_CHOICES: dict[str, tuple] = {
    "reaction_attacker_roll": ("fresh", "reuse"),
    "critical_on": ("modified", "base"),
    "fumble_on_99": (True, False),
    "automatic_results": (True, False),
    "surprise_reactions": ("after-own-action", "lower-strike-rank"),
    "overextended_applies_to": ("attacker", "defender"),
    "grapple_table": ("grapple", "parry"),
    "major_wound_boundary": ("strict", "inclusive"),
    "parried_critical_keeps_max": (True, False),
    "strike_rank_armour_penalty": ("ap-div-5", "none"),
    "ties": ("simultaneous",),
    "knockback_after_parry": (True, False),
    "fumble_effect": ("miss", "lose-next-action"),
    "half_ap_rounding": ("down", "up"),
    "ranged_sections": ("cumulative", "worst-only"),
    "opposed_ties": ("higher-roll", "passive"),
    "multi_action_interrupted": (True, False),
    "charge_bonus_on_critical": ("roll", "max"),
    "area_damage_armour": (True, False),
    "dive_half_rounding": ("down", "up"),
    "grapple_damage_armour": (True, False),
    "mount_costs_action": (True, False),
    "first_aid_stops_bleeding": (True, False),
    "two_useless_legs_weapons": ("penalty", "impossible"),
    "dodged_critical_from": ("attack", "table-roll"),
    "ranged_impale": ("left-in", "close-combat-only"),
}
#: Rulings added after logs were first written: an encounter records them
#: only when set away from their default, so older logs and goldens stay
#: byte for byte the same (their default is what those logs played under).
QUIET_AT_DEFAULT = ("first_aid_stops_bleeding", "two_useless_legs_weapons", "dodged_critical_from", "ranged_impale")


class Rulings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The mrq1 rulings in force for an encounter. Every field has a default.

    See :data:`RULINGS_DOC` for each ruling's meaning and source. Values are
    validated on construction (``ValueError`` with one line naming the valid
    values).
    """

    reaction_attacker_roll: Literal["fresh", "reuse"] = "fresh"
    """Which attacker roll sets the row on the Dodge/Parry tables.
    ``fresh``: a new d100 against the same skill; ``reuse``: the attack roll.
    Source: rules-reference.md "Seed ambiguities", Dodge and Parry tables."""

    critical_on: Literal["modified", "base"] = "modified"
    """Critical score from the skill after (``modified``) or before
    (``base``) situational modifiers. Source: rules-reference.md E,
    "Critical rounding" ruling."""

    fumble_on_99: bool = True
    """00 always fumbles; with True, 99 also fumbles when the (modified)
    skill is 100 or less. Source: rules-reference.md E, "Fumble" ruling."""

    automatic_results: bool = True
    """01-05 always succeed and 96-00 always fail. Source: rules-reference.md
    E, "Automatic results" ruling."""

    surprise_reactions: Literal["after-own-action", "lower-strike-rank"] = "after-own-action"
    """In round 1 a surprised character may react only to actions taken after
    his own first action (``after-own-action``), or to attackers with a lower
    Strike Rank (``lower-strike-rank``, the seed's footnote). Source:
    rules-reference.md "Seed ambiguities", Surprise; seed 004 "Gaining
    Surprise" and close-combat modifier footnote 2."""

    overextended_applies_to: Literal["attacker", "defender"] = "attacker"
    """Who is Overextended on the Dodge table's Failure/Critical cell.
    Source: rules-reference.md "Seed ambiguities", Overextended; seed 004
    "Dodge" table and "Overextended"."""

    grapple_table: Literal["grapple", "parry"] = "grapple"
    """The table for the opposed roll after a grapple hit. Source:
    rules-reference.md "Seed ambiguities", Grapple; seed 004 "Grappling"."""

    major_wound_boundary: Literal["strict", "inclusive"] = "strict"
    """Major Wound when HP < -starting HP (``strict``: start 5 -> major at
    -6) or HP <= -starting HP (``inclusive``, the Mythras boundary). Source:
    rules-reference.md "Seed ambiguities", Major Wound boundary; seed 004
    "Hit Locations" and "Hero Points" (Glancing Blow)."""

    parried_critical_keeps_max: bool = True
    """A parried critical still rolls maximum weapon damage before the parry
    deduction. Source: rules-reference.md "Seed ambiguities", parried
    critical."""

    strike_rank_armour_penalty: Literal["ap-div-5", "none"] = "ap-div-5"
    """Strike Rank armour penalty: total worn AP // 5 (``ap-div-5``) or
    none. Unverified. Source: rules-reference.md E, "Strike Rank" ruling."""

    ties: Literal["simultaneous"] = "simultaneous"
    """Equal Strike Rank and equal DEX: act simultaneously, as the seed says
    (either may be the first to declare). Kept as a named setting so the
    engine's reading is on record. Source: seed 004 "Strike Ranks"."""

    knockback_after_parry: bool = True
    """Knockback is measured on damage after the parry deduction, before
    armour (True) or on the damage before the parry (False). Source: seed
    004 "Knockback" ("after Reactions have been completed, but before armour
    points are deducted") and "Close Combat Attacks" step 3; our ruling."""

    fumble_effect: Literal["miss", "lose-next-action"] = "miss"
    """What a close-combat fumble does. The seed gives no effect:
    ``miss`` treats it as a miss, flagged as a fumble for the GM;
    ``lose-next-action`` (invented house option, not from any source) also
    costs the fumbler his next Combat Action. Source: seed 004 is silent;
    our ruling."""

    half_ap_rounding: Literal["down", "up"] = "down"
    """Rounding of the "½ AP" parry deduction for an odd AP. The seed does
    not say; ``down`` follows the seed's only stated rounding (critical
    score, "rounded down"). Source: seed 004 "Parry" table; our ruling."""

    ranged_sections: Literal["cumulative", "worst-only"] = "cumulative"
    """Ranged modifiers from different sections of the table add up, as the
    footnote's rule says (``cumulative``), or only the worst one applies,
    as the footnote's own example computes (``worst-only``: mist and a
    target that moved 10 m give -20, not -30). Within one section only the
    largest modifier applies either way (attacker condition excepted).
    Source: seed 004 "Ranged Attack Situational Modifiers", footnote 1."""

    opposed_ties: Literal["higher-roll", "passive"] = "higher-roll"
    """An opposed test (Disarm, a Delay's interrupt) where both sides reach
    the same level of success: the higher roll wins (``higher-roll``), or
    the passive side (``passive``). Both failing: nobody wins. Source: seed
    004 is silent; rules-reference B6; our ruling."""

    multi_action_interrupted: bool = True
    """A spell or a two-action Ready Weapon in progress is abandoned when its
    caster takes any other Combat Action. Source: seed 004 "Cast Spell" is
    silent; our ruling."""

    charge_bonus_on_critical: Literal["roll", "max"] = "roll"
    """The Charge's +1D4 damage is rolled on a critical like a damage
    modifier (``roll``), or maximised with the weapon (``max``). Source:
    seed 004 "Charge", "Critical Hits"; our ruling."""

    area_damage_armour: bool = True
    """Armour absorbs area-effect damage at the random location struck.
    Source: seed 004 "Dive" is silent; our ruling."""

    dive_half_rounding: Literal["down", "up"] = "down"
    """A successful Dive halves the damage, rounding down or up. Source:
    seed 004 "Dive"; our ruling."""

    grapple_damage_armour: bool = True
    """Armour absorbs the 1D6 (+ damage modifier) of Inflict Pain and Throw
    at the random location struck. Source: seed 004 "Grappling Combatants"
    is silent; our ruling."""

    mount_costs_action: bool = True
    """Mounting or dismounting during a round costs a Combat Action. Source:
    seed 004 "Mounted Combat" is silent; our ruling."""

    first_aid_stops_bleeding: bool = True
    """A successful First Aid on a Major Wound's location also ends the
    count to death by blood loss (True), or only the re-tests (False).
    The seed's ambiguity: the re-tests last "until the location is restored
    to 1 hit point or more, or the character receives First Aid", but the
    death clause says only "If the location does not recover within a
    number of Combat Rounds equal to the character's CON+POW". Source:
    seed 004 "Major Wound"; our ruling (issue 15, mrq1 item 1: First Aid
    "stops the bleeding")."""

    two_useless_legs_weapons: Literal["penalty", "impossible"] = "penalty"
    """With two useless legs, Weapon skills suffer -30% (``penalty``) or are
    impossible (``impossible``). The seed's ambiguity: "One Useless or
    Missing Leg" counts Weapon skills among those relying on physical
    mobility, and "Two Useless or Missing Legs" makes "Most Skills that rely
    upon physical mobility" impossible, naming only Dodge and Stealth as
    examples of those that "only suffer a -30% penalty". Source: seed 004;
    our ruling (issue 15, mrq1 item 6)."""

    dodged_critical_from: Literal["attack", "table-roll"] = "attack"
    """On a Dodge table cell of minimum damage, which roll says whether "the
    attack being dodged was a critical hit" (then it "instead inflicts normal
    damage"): the attack roll (``attack``) or, under ruling
    ``reaction_attacker_roll=fresh``, the fresh roll that set the table row
    (``table-roll``). The seed's ambiguity: with a fresh roll the two can
    disagree (a success attack and a critical fresh roll read
    critical/critical). Source: seed 004 "Dodge"; our ruling (issue 15,
    mrq1 item 8). The choice is noted in the log whenever they disagree."""

    ranged_impale: Literal["left-in", "close-combat-only"] = "left-in"
    """A critical with an impaling ranged weapon (an arrow, a javelin):
    the seed's impaling rule is headed "Impaling Close Combat Attacks" and
    offers the attacker "whether to yank the weapon free or to leave the
    enemy impaled", which a shooter out of reach cannot do, yet "all
    ranged attacks are handled in same manner as close combat attacks"
    ("Ranged Weapons") with no exception for impaling. ``left-in``: the
    missile stays in the wound (the target is impaled, -20%; he may yank
    it himself, or First Aid removes it) and the shooter keeps his
    weapon; ``close-combat-only``: a ranged critical only does maximum
    damage. Source: seed 004 "Impaling Close Combat Attacks", "Ranged
    Weapons"; our ruling (issue 15, Also)."""

    def __post_init__(self) -> None:
        for name, choices in RULING_CHOICES.items():
            value = getattr(self, name)
            ok = (
                isinstance(value, bool)
                if isinstance(choices[0], bool)
                else (isinstance(value, str) and value in choices)
            )
            if not ok:
                raise ValueError(_bad_value(name, value))

    def as_mapping(self) -> dict[str, str]:
        """All rulings as ``{name: value}`` strings (bools as true/false),
        for ``EncounterOpened.rulings``. Round-trips through
        :func:`from_mapping`."""
        out: dict[str, str] = {}
        for name in RULING_CHOICES:
            value = getattr(self, name)
            out[name] = ("true" if value else "false") if isinstance(value, bool) else value
        return out

    @classmethod
    def from_mapping(cls, mapping: dict[str, str] | None) -> "Rulings":
        """Same as the module-level :func:`from_mapping`."""
        return from_mapping(mapping)


def _choices_text(name: str) -> str:
    choices = RULING_CHOICES[name]
    if isinstance(choices[0], bool):
        return "true or false"
    return " or ".join(choices)


def _bad_value(name: str, value: object) -> str:
    return f"ruling {name}: {value!r} is not valid; choose {_choices_text(name)}"


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def from_mapping(mapping: dict[str, str] | None) -> Rulings:
    """Build :class:`Rulings` from ``{name: value}`` strings; missing names
    keep their defaults.

    Names may use ``_`` or ``-``. Boolean values accept true/false, yes/no,
    on/off, 1/0 (or real bools). Raises ``ValueError`` with one line: for an
    unknown name it lists the valid names; for a bad value it lists the valid
    values.
    """
    kwargs: dict[str, object] = {}
    for raw_name, raw_value in (mapping or {}).items():
        name = str(raw_name).strip().replace("-", "_")
        if name not in RULING_CHOICES:
            raise ValueError(
                f"unknown ruling {raw_name!r}; valid rulings: {', '.join(RULING_CHOICES)}"
            )
        choices = RULING_CHOICES[name]
        if isinstance(choices[0], bool):
            if isinstance(raw_value, bool):
                value: object = raw_value
            else:
                text = str(raw_value).strip().lower()
                if text in _TRUE:
                    value = True
                elif text in _FALSE:
                    value = False
                else:
                    raise ValueError(_bad_value(name, raw_value))
        else:
            value = str(raw_value).strip().lower()
            if value not in choices:
                raise ValueError(_bad_value(name, raw_value))
        kwargs[name] = value
    return Rulings(**kwargs)  # type: ignore[arg-type]


DEFAULT_RULINGS = Rulings()

#: ``{name: (default, text, source)}`` for ``affray rulings``; ``default`` is
#: the string form used by :meth:`Rulings.as_mapping`.
RULINGS_DOC: dict[str, tuple[str, str, str]] = {
    "reaction_attacker_roll": (
        "fresh",
        "Dodge/Parry tables: once a reaction is declared the attacker rolls a fresh "
        "d100 against the same Weapon skill to set his row (fresh), or the attack "
        "roll is reused and the Failure row never applies (reuse).",
        f"{REF}, 'Seed ambiguities and our rulings': which attacker roll",
    ),
    "critical_on": (
        "modified",
        "The critical score floor(skill/10) uses the skill after situational "
        "modifiers (modified) or before them (base).",
        f"{REF} E, 'Critical rounding' ruling; {SEED} 'Critical Hits'",
    ),
    "fumble_on_99": (
        "true",
        "00 always fumbles; when true, 99 also fumbles if the modified skill is 100 "
        "or less.",
        f"{REF} E, 'Fumble' ruling",
    ),
    "automatic_results": (
        "true",
        "Rolls of 01-05 always succeed and 96-00 always fail.",
        f"{REF} E, 'Automatic results' ruling",
    ),
    "surprise_reactions": (
        "after-own-action",
        "In the first round a surprised character may react only to actions taken "
        "after he has taken his own first action (after-own-action), or only to "
        "attackers with a lower Strike Rank (lower-strike-rank, the footnote).",
        f"{REF}, 'Seed ambiguities': Surprise; {SEED} 'Gaining Surprise'",
    ),
    "overextended_applies_to": (
        "attacker",
        "On the Dodge table's attacker Failure / defender Critical cell the attacker "
        "is Overextended (the table and the Overextended section), not the defender "
        "(the result text).",
        f"{REF}, 'Seed ambiguities': Overextended; {SEED} 'Dodge', 'Overextended'",
    ),
    "grapple_table": (
        "grapple",
        "After a grapple hit the opposed roll is read on the Grapple table (the "
        "later paragraph, the only one with grapple outcomes), or on the Parry table.",
        f"{REF}, 'Seed ambiguities': Grapple; {SEED} 'Grappling'",
    ),
    "major_wound_boundary": (
        "strict",
        "Major Wound when location HP is below minus its starting HP (strict: start "
        "5 gives a Major Wound at -6, not -5), or at/below it (inclusive, Mythras).",
        f"{REF}, 'Seed ambiguities': Major Wound boundary; {SEED} 'Hit Locations'",
    ),
    "parried_critical_keeps_max": (
        "true",
        "A parried critical still rolls maximum weapon damage before the parry "
        "deduction; no table cell removes critical status.",
        f"{REF}, 'Seed ambiguities': a parried critical",
    ),
    "strike_rank_armour_penalty": (
        "ap-div-5",
        "Strike Rank modifier = ceil((DEX+INT)/2) minus total worn AP // 5 "
        "(ap-div-5), or no armour penalty (none). Unverified.",
        f"{REF} E5 and E 'Strike Rank' ruling",
    ),
    "ties": (
        "simultaneous",
        "Same Strike Rank: higher DEX first; same DEX too: act simultaneously, "
        "either may declare first (the seed).",
        f"{SEED} 'Strike Ranks'",
    ),
    "knockback_after_parry": (
        "true",
        "Knockback is measured on the damage after the parry deduction and before "
        "armour (true), or on the damage before any parry deduction (false).",
        f"{SEED} 'Knockback' (after Reactions, before armour); our ruling",
    ),
    "fumble_effect": (
        "miss",
        "The seed gives no close-combat fumble effect: a fumble is a miss, flagged "
        "for the GM (miss), or also costs the fumbler his next Combat Action "
        "(lose-next-action, invented house option).",
        f"{SEED} is silent; our ruling",
    ),
    "half_ap_rounding": (
        "down",
        "The Parry table's '½ AP' deduction rounds down (the seed's only stated "
        "rounding) or up, for an odd AP.",
        f"{SEED} 'Parry' table; our ruling",
    ),
    "ranged_sections": (
        "cumulative",
        "Ranged modifiers from different sections add up (cumulative, the footnote's "
        "rule) or only the worst applies (worst-only, the footnote's example: mist "
        "and 10 m of movement give -20). Within a section only the largest applies.",
        f"{SEED} 'Ranged Attack Situational Modifiers', footnote 1; our ruling",
    ),
    "opposed_ties": (
        "higher-roll",
        "Opposed tests (Disarm, Delay interrupts): the better level of success wins; "
        "at the same level the higher roll wins (higher-roll) or the passive side "
        "(passive); both failing, nobody wins.",
        f"{SEED} is silent; {REF} B6; our ruling",
    ),
    "multi_action_interrupted": (
        "true",
        "Any other Combat Action abandons a spell or a two-action Ready Weapon in "
        "progress.",
        f"{SEED} 'Cast Spell', 'Ready Weapon'; our ruling",
    ),
    "charge_bonus_on_critical": (
        "roll",
        "The Charge's +1D4 is rolled on a critical, like a damage modifier (roll), or "
        "maximised (max).",
        f"{SEED} 'Charge', 'Critical Hits'; our ruling",
    ),
    "area_damage_armour": (
        "true",
        "Armour absorbs area-effect damage at the random location struck.",
        f"{SEED} 'Dive' is silent; our ruling",
    ),
    "dive_half_rounding": (
        "down",
        "A successful Dive halves the area damage, rounding down (down) or up (up).",
        f"{SEED} 'Dive'; our ruling",
    ),
    "grapple_damage_armour": (
        "true",
        "Armour absorbs Inflict Pain and Throw damage at the random location struck.",
        f"{SEED} 'Grappling Combatants' is silent; our ruling",
    ),
    "mount_costs_action": (
        "true",
        "Mounting or dismounting during a round costs a Combat Action.",
        f"{SEED} 'Mounted Combat' is silent; our ruling",
    ),
    "first_aid_stops_bleeding": (
        "true",
        "A successful First Aid on a Major Wound's location ends the count to death by "
        "blood loss as well as the Resilience re-tests (true), or only the re-tests "
        "(false): the seed ends the re-tests on First Aid but says only 'if the "
        "location does not recover' of the blood loss.",
        f"{SEED} 'Major Wound'; our ruling",
    ),
    "two_useless_legs_weapons": (
        "penalty",
        "With two useless legs, Weapon skills suffer -30% like Dodge and Stealth "
        "(penalty), or are impossible (impossible): the seed counts Weapon skills as "
        "relying on mobility, makes 'most' such skills impossible, and names only "
        "Dodge and Stealth as the ones left at -30%.",
        f"{SEED} 'One Useless or Missing Leg', 'Two Useless or Missing Legs'; our ruling",
    ),
    "dodged_critical_from": (
        "attack",
        "On a Dodge cell of minimum damage, 'if the attack being dodged was a critical "
        "hit' it does normal damage: the attack roll decides (attack), or the fresh "
        "table roll that set the row (table-roll); they can disagree under "
        "reaction_attacker_roll=fresh. A note names the reading whenever they do.",
        f"{SEED} 'Dodge'; our ruling",
    ),
    "ranged_impale": (
        "left-in",
        "An impaling ranged weapon's critical leaves the missile in the wound (left-in: "
        "the target is impaled and the shooter keeps his weapon; no yank | leave choice, "
        "as the shooter is out of reach), or impales only in close combat "
        "(close-combat-only).",
        f"{SEED} 'Impaling Close Combat Attacks', 'Ranged Weapons'; our ruling",
    ),
}

assert set(RULINGS_DOC) == set(RULING_CHOICES)  # kept in step by hand
