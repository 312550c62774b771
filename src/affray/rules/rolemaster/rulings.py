"""Named, configurable rulings for the Rolemaster-style system.

Where seed 000 (``000_0c5afa08bd3fc886.txt``) and rules-reference.md
section A leave something open, the choice is a named setting here, never
a silent guess (DESIGN.md, "Rule systems"). Names are the field names;
kebab-case is accepted on input (``affray new --ruling open-ended-cap=3``).
"""

from typing import Annotated, Literal

import msgspec

from affray.rules.base import parse_rulings

__all__ = ["DEFAULT_RULINGS", "LEGACY", "RULINGS_DOC", "Rulings", "as_mapping", "from_mapping", "from_stored"]


class Rulings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The rolemaster rulings in force for an encounter (every field defaulted)."""

    open_ended_cap: Annotated[str, msgspec.Meta(pattern=r"^([2-9]|1[0-9]|20)$")] = "20"
    """Most dice in one open-ended chain (2-20). rules-reference.md A,
    "NOT FOUND / our ruling": chain while each extra die shows 96-100,
    either end, with a safety cap of 20."""

    attack_roll: Literal["high", "both"] = "high"
    """The attack roll is open-ended high (seed 000 "Attack Procedure" step
    1; A2): a first die of 01-05 is kept. ``both`` opens the low end too
    (roll again and subtract, A1)."""

    parry_missiles: Literal["melee-only", "shield-half"] = "melee-only"
    """Parry holds against melee attacks only; ``shield-half``: a shield may
    parry a missile with half the amount. A "NOT FOUND / our ruling"."""

    unusual_checks: Literal["unmodified-die", "total", "off"] = "unmodified-die"
    """Where the static maneuver's 66 ("unusual event") and 100 ("unusual
    success") checks apply: on the unmodified die (a flag for the GM, the
    band outcome stands), on the modified total (A8's sources), or not at
    all. A "NOT FOUND / our ruling"."""

    surprise_worst: Literal["failure"] = "failure"
    """Spectacular and Absolute failure in the Surprised / Confused rule
    count as Failure (seed 000 lists only Failure, Partial, Near, Success;
    A ruling)."""

    dodge_without_table: Literal["static-bands"] = "static-bands"
    """Dodge with no moving-maneuver table loaded: the static bands of A8
    give their percentage to DB (0/0/0/20/80/100/120). A ruling."""

    dodge_and_parry: Literal["stack", "parry-only"] = "stack"
    """Dodge DB and parry DB add up (``stack``, A ruling), or only the parry
    counts when both are in play."""

    dodge_armed: Literal["refuse", "allow"] = "refuse"
    """Dodge is for "a character [who] does not have a weapon (or cannot use
    their weapon)" (seed 000 "Dodge action"): a defender holding a usable
    weapon is refused (``refuse``) unless the table allows it (``allow``)."""

    dodge_ap: Literal["rest-of-round", "free"] = "rest-of-round"
    """Dodge costs 4 Action Points (RMH tactical action table): the dodger
    spends what it has left this round, at most 4, and needs at least 1
    (``rest-of-round``); or it costs nothing (``free``)."""

    stun_penalty: Literal["worst", "sum"] = "worst"
    """Whether the maneuver penalties of states waiting in the stack add
    up: only the worst active state's penalty applies (``worst``, A
    ruling), or every state's (``sum``)."""

    late_stun: Literal["next-turn", "no-wear-off", "wears-off"] = "next-turn"
    """When a stun's or stagger's rounds begin: "'for ß rounds' =
    beginning from target's next turn (this round or the next)" (seed 000
    "Effects from Criticals"): received when the bearer has no Action
    Points left this round (its next turn is next round), it does not wear
    off at the end of this round (``next-turn``); RMH upkeep's reading,
    received after it had spent 2 or more AP (``no-wear-off``); or it
    always wears off at the round's end (``wears-off``)."""

    initiative: Literal["2d10+qu"] = "2d10+qu"
    """Initiative each round: 2d10 + Quickness bonus - 1 per -10 of
    maneuver penalty (RMH tactical-activity-tracking), -1d10 after a foe's
    "You have initiative" (seed 000)."""

    action_points: Annotated[str, msgspec.Meta(pattern=r"^[1-9]$")] = "4"
    """Action Points each round (RMH: "Combatants receive 4 Action Points
    every round")."""

    melee_ap: Annotated[str, msgspec.Meta(pattern=r"^[1-4]$")] = "4"
    """Action Points a full melee attack takes (RMH: Melee Attack 2-4; -25
    for each AP less, asked with ``--situation ap=N``)."""

    turn_order: Literal["countdown", "cycle"] = "countdown"
    """The RMH initiative countdown (tactical-activity-tracking: "Actual
    Initiative = Base Initiative + (remaining Action Points x 5)"): the
    highest actual initiative declares its next action, its AP lower its
    count, ties to the higher Quickness bonus then the order rolled
    (``countdown``); when it resolves is ruling ``resolution``.
    ``cycle``: the older simplification, highest initiative first, one
    action per turn, cycling while anyone has Action Points left, each
    action resolving as it is declared."""

    resolution: Literal["when-spent", "when-declared"] = "when-spent"
    """Under the countdown, an action costing AP resolves when they are
    spent, 5 x its AP further down the count (RMH tactical-activity-
    tracking "Resolution": "declared when they are started, and paid for
    (in AP) and resolved on the initiative when they are completed"), so
    others may declare and resolve in between (``when-spent``); or it
    resolves as it is declared (``when-declared``, our older
    simplification). 0 AP actions (parry, orientation) resolve at once."""

    held_action: Literal["concentration", "end-of-round"] = "concentration"
    """How long a conditional (held) action waits for its trigger: "as
    many rounds as the character can maintain unbroken concentration"
    (RMH tactical-activity-tracking "Conditional Actions"; the holder takes
    no other action meanwhile, and ``act WHO cancel`` ends it), or until the
    end of the round, when an untriggered one is lost (``end-of-round``,
    RMH the-tactical-combat-sequence "Conditional Action")."""

    prone_penalty: Annotated[str, msgspec.Meta(pattern=r"^-?[0-9]{1,3}$")] = "-50"
    """"The usual modifiers to action for prone position" (seed 000
    "Staggered or Prone") are not given: a prone combatant's attacks and
    maneuvers take this much. Our ruling."""

    parry_after_attack: Literal["refuse", "allow"] = "refuse"
    """Parry is OB moved out of the round's attack (A6; RMH: declared at the
    start of the round or as soon as melee ensues): once a combatant has
    attacked in a round it may not declare a parry in it (``refuse``)."""

    parry_time: Literal["attack-time", "round"] = "attack-time"
    """How long a parry declared with an attack that resolves later holds:
    "for the duration of the 'attack time'" (seed 000 "Parry action"), from
    the declaration until that attack resolves (or is lost or cancelled)
    (``attack-time``); or the round (rules-reference.md A6, ``round``).
    A parry declared with no attack waiting, or under
    ``resolution=when-declared``, holds for the round either way."""

    moving_maneuver_table: str = "sample-moving-maneuver"
    """The moving-maneuver table a Dodge reads (its ``extremely-hard``
    column, seed 000 "Dodge action"); the default is the shipped INVENTED
    sample; empty for none, and then ruling ``dodge_without_table``."""

    static_maneuver_table: str = ""
    """A static-maneuver table of the campaign's for Perception, orientation
    and a table-less Dodge; empty: the bands of rules-reference.md A8."""

    charge_bonus: Literal["tactical", "second-by-second"] = "tactical"
    """A charge's accuracy: RMH's tactical rules give only the pace penalty
    (``tactical``); its second-by-second rules add +10 OB and -10 DB to
    the charger for the round (``second-by-second``). Both multiply the
    hits and raise the critical by the relative speed (RMH "Charging")."""

    charge_maneuver: Literal["moving-maneuver", "off"] = "moving-maneuver"
    """"Charging is a special maneuver that requires a movement maneuver
    roll" (RMH second-by-second "Charge action"): before the attack roll
    the charger rolls a moving maneuver (open-ended + 3 x Ag bonus, "if no
    skill applies", RMH moving-maneuver-difficulties) in the column of its
    pace (x2 routine, our ruling; x3 easy, x4 light, x5 medium, RMH), its
    effects falling on the charger. Our ruling on the number (the share of
    the movement made, A10): 100 or more and the charge lands at speed
    (hits multiplied, critical raised); less, and the attack is made at
    the pace penalty without them; a charger who can no longer attack (a
    fall) makes no attack. ``off``: no roll."""

    charge_timing: Literal["on-meeting", "when-spent"] = "on-meeting"
    """"Charges are the exception to 'resolve times'. Resolve a charge at
    the 'moment' the combatants meet!" (RMH second-by-second "Charge
    action"). With no positions to time the closing, our ruling: the
    charge resolves on the count it is declared, its AP spent at once (the
    charger's next action comes 5 x AP later, as after any attack)
    (``on-meeting``); or like any action, when its AP are spent
    (``when-spent``)."""

    full_cover: Literal["times-ten", "as-printed"] = "times-ten"
    """RMH ``ob-db-modifiers.md`` prints full soft cover +4 and full hard
    cover +10 beside half soft +20 and half hard +50: read as +40 and +100
    (``times-ten``, our ruling: a digit lost), or as printed."""

    severity_f: Literal["e-plus-c", "e"] = "e-plus-c"
    """An ``F`` critical on a critical table with no F column: an E
    critical plus a C critical, two closed rolls on the same table (RMC
    ``CriticalSeverity``, rules-reference.md A11), or an E alone (``e``).
    A table with an F column is read there."""

    death_at: Literal["body-development", "constitution", "off"] = "body-development"
    """When hits below 0 kill (RMH ``injury-death-healing.md``, "Death": a
    character dies on reaching negative hits greater than his Body
    Development skill bonus, ``skills.body_development``; a sheet without
    it uses its Constitution value). ``constitution``: negative hits
    greater than the Constitution value (our reading of RMSS); ``off``:
    never from hits (the GM rules it). 0 hits or less is unconscious in
    every case (RMH "Unconsciousness")."""

    death_delay: Literal["five-minutes", "at-once"] = "five-minutes"
    """"The soul will depart the body in five minutes" (RMH "Death"): a
    combatant past the death threshold is ``dying`` for 60 rounds of 5
    seconds and dies at the end of the last unless healed back above it
    (``five-minutes``), or dies at once (``at-once``)."""

    knockback_table: str = "sample-knockback"
    """The table of what landing in a terrain adds to a knock-back (seed 000
    "Knocked Back": "depending on terrain, may suffer additional effects";
    the seed and RMH give no figures): read for the terrain the GM set for
    the combatant (``act WHO terrain KIND``). The default is the shipped
    INVENTED sample; empty for none."""

    tables: str = ""
    """A folder of the campaign's own tables, searched before a sheet's
    ``tables`` folder and the shipped INVENTED samples (issue 13: "a
    campaign points at its own tables with a setting")."""


DEFAULT_RULINGS = Rulings()

SEED = "seed 000_0c5afa08bd3fc886.txt"
REF = "rules-reference.md"

#: name -> (default, text, source), as ``affray rulings`` shows them.
RULINGS_DOC: dict[str, tuple[str, str, str]] = {
    "open_ended_cap": ("20", "most dice in one open-ended chain (2-20)", f"{REF} A ruling (RMH 2, RMC 3)"),
    "attack_roll": ("high", "attack roll open-ended high only (high) or at both ends (both)",
                    f"{SEED} 'Attack Procedure' 1; {REF} A1, A2"),
    "parry_missiles": ("melee-only", "parry only melee (melee-only), or a shield parries missiles at half",
                       f"{REF} A ruling"),
    "unusual_checks": ("unmodified-die", "66/100 unusual checks on the unmodified die, the total, or off",
                       f"{REF} A8 and ruling"),
    "surprise_worst": ("failure", "Spectacular/Absolute failure count as Failure in Surprised / Confused",
                       f"{SEED} 'Surprised / Confused Effect'; {REF} A ruling"),
    "dodge_without_table": ("static-bands", "dodge with no moving-maneuver table: static band % to DB",
                            f"{REF} A10 and ruling"),
    "dodge_and_parry": ("stack", "dodge DB and parry DB add up (stack) or parry only", f"{REF} A ruling"),
    "dodge_armed": ("refuse", "a defender holding a usable weapon may not dodge (refuse) or may (allow)",
                    f"{SEED} 'Dodge action'"),
    "dodge_ap": ("rest-of-round", "dodge spends the AP left (max 4, needs 1) or is free",
                 "RMH tactical-activity-tracking (Dodge 4 AP); our ruling"),
    "stun_penalty": ("worst", "only the worst state's penalty (worst) or all of them (sum)", f"{REF} A ruling"),
    "late_stun": ("next-turn", "a stun taken with no AP left (next-turn) or after 2+ AP spent (no-wear-off) "
                  "does not wear off that round; or wears-off", f"{SEED} 'for ß rounds'; RMH upkeep"),
    "initiative": ("2d10+qu", "2d10 + Qu bonus - 1 per -10 penalty, -1d10 after 'You have initiative'",
                   f"RMH tactical-activity-tracking; {SEED} 'Effects from Criticals'"),
    "action_points": ("4", "Action Points each round", "RMH tactical-activity-tracking"),
    "melee_ap": ("4", "AP of a full melee attack (-25 per AP less with --situation ap=N)",
                 "RMH tactical-activity-tracking (Melee Attack 2-4)"),
    "turn_order": ("countdown", "the RMH countdown by base + 5 x AP left, "
                   "or cycle: one action per turn in initiative order", "RMH tactical-activity-tracking; our ruling"),
    "resolution": ("when-spent", "an action resolves when its AP are spent (count - 5 x AP), or when declared",
                   "RMH tactical-activity-tracking 'Resolution'; when-declared our ruling"),
    "held_action": ("concentration", "a held action waits while the holder concentrates, or only to the round's end",
                    "RMH tactical-activity-tracking 'Conditional Actions'; the-tactical-combat-sequence"),
    "prone_penalty": ("-50", "prone: this much to attacks and maneuvers", f"{SEED} 'Staggered or Prone'; our ruling"),
    "parry_after_attack": ("refuse", "no parry declared after attacking in the round (refuse) or allow",
                           f"{REF} A6; RMH 'Parry'"),
    "parry_time": ("attack-time", "a parry declared with a later attack holds for its attack time, or the round",
                   f"{SEED} 'Parry action'; {REF} A6"),
    "moving_maneuver_table": ("sample-moving-maneuver", "the moving-maneuver table Dodge reads (empty: none)",
                              f"{SEED} 'Dodge action'; {REF} A10"),
    "static_maneuver_table": ("", "the campaign's static-maneuver table (empty: the A8 bands)", f"{REF} A8"),
    "charge_bonus": ("tactical", "a charge: pace penalty only (tactical) or also +10 OB / -10 DB (second-by-second)",
                     "RMH tactical-activity-tracking 'Charging'; second-by-second-rules 'Charge action'"),
    "charge_maneuver": ("moving-maneuver", "a charge rolls a moving maneuver first (100+: lands at speed), or off",
                        "RMH second-by-second 'Charge action', moving-maneuver-difficulties; our ruling"),
    "charge_timing": ("on-meeting", "a charge resolves on the count it is declared (on-meeting) or when its AP are spent",
                      "RMH second-by-second 'Charge action'; our ruling"),
    "full_cover": ("times-ten", "full soft/hard cover: +40/+100 DB (times-ten) or the printed +4/+10",
                   "RMH ob-db-modifiers 'COVER'; our ruling"),
    "severity_f": ("e-plus-c", "F critical without an F column: E + C (two rolls), or E alone",
                   f"{REF} A11 (RMC CriticalSeverity)"),
    "death_at": ("body-development", "dead below -(Body Development bonus) hits, -(Constitution), or off",
                 "RMH injury-death-healing 'Death'; our ruling"),
    "death_delay": ("five-minutes", "past the death threshold: dying for 60 rounds unless healed, or dead at once",
                    "RMH injury-death-healing 'Death'"),
    "knockback_table": ("sample-knockback", "what landing in a terrain adds to a knock-back (empty: nothing)",
                        f"{SEED} 'Knocked Back'; our ruling (no figures given)"),
    "tables": ("", "folder of the campaign's own tables (searched first)", "issue 13; README 'Rolemaster rules'"),
}


def from_mapping(mapping: dict[str, str] | None) -> Rulings:
    """Read rulings from ``EncounterOpened.rulings``; raise ``ValueError``
    (one line) naming the ruling and its allowed values."""
    return parse_rulings(Rulings, "rolemaster", mapping, verbatim=("tables", "moving_maneuver_table", "static_maneuver_table", "knockback_table"))


#: Rulings added after encounters were first recorded, with the behaviour
#: those older encounters were decided under: a stored mapping (every
#: ruling of its day, as :func:`as_mapping` wrote it at ``affray new``)
#: that lacks one was recorded before it existed.
LEGACY = {"resolution": "when-declared", "held_action": "concentration", "charge_maneuver": "off",
          "charge_timing": "when-spent", "parry_time": "round"}


def from_stored(mapping: dict[str, str] | None) -> Rulings:
    """The rulings of a recorded encounter: :func:`from_mapping`, with the
    rulings its log predates (:data:`LEGACY`) at the values it was decided
    under, so an older log is re-decided as it was (``affray audit``). A
    stored mapping always holds ``open_ended_cap``."""
    mapping = dict(mapping or {})
    if "open_ended_cap" in mapping:
        mapping = {**{k: v for k, v in LEGACY.items() if k not in mapping}, **mapping}
    return from_mapping(mapping)


def as_mapping(r: Rulings) -> dict[str, str]:
    """Every ruling with its value, as stored on the encounter."""
    return {k: str(getattr(r, k)) for k in r.__struct_fields__}
