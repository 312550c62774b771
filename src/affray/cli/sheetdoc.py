"""The sheet reference: every key of every system's sheet, with its type,
default, whether it is required, and what it means with its unit.

Types, defaults and requiredness are read from the systems' msgspec
``Sheet`` structs; the meaning comes from :data:`DOCS`. The README's
"Sheets" section holds :func:`reference` between two markers, and
``tests/test_sheet_doc.py`` fails when either drifts from the structs (a key
without a line in :data:`DOCS`, or a README that is not the generated text).
``affray sheet format [--system KEY]`` prints it; ``python -m
affray.cli.sheetdoc README.md`` rewrites the README's block.
"""

from __future__ import annotations

import importlib
import json
import sys
import typing
from pathlib import Path

import msgspec

#: Each system's sheet keys, by struct: ``{struct: {key: meaning}}``; the
#: meaning names the unit and the allowed values. ``"*"`` describes every
#: field of a struct whose fields are all alike (characteristics, stats).
DOCS: dict[str, dict[str, dict[str, str]]] = {
    "mrq1": {
        "Sheet": {
            "name": "the combatant's name",
            "characteristics": "the seven characteristics (table below)",
            "system": "`mrq1` (the sheet is refused by another system)",
            "skills": "skill name = percent, 0..300 (Dodge, Acrobatics, Athletics, Resilience, Persistence, Unarmed, Riding, Shield, Martial Arts are tested by name; a near miss of one is refused)",
            "weapons": "weapons, shields and natural weapons (Weapon, below)",
            "armour": "worn AP per hit location, 0..100 (missing = 0; counts for the Strike Rank armour penalty)",
            "natural_armour": "AP of hide or scales per location, 0..100 (adds to armour; no Strike Rank penalty)",
            "movement": "metres per Combat Action, 0..100",
            "hero_points": "Hero Points, 0..100 (`affray hero`)",
            "combat_actions": "override: Combat Actions per round, 1..10 (default: from DEX, rules-reference.md E1)",
            "damage_modifier": "override: dice such as `+1D4` or `-1D2`, `\"\"` for none (default: from STR+SIZ, E2)",
            "strike_rank": "override: the Strike Rank modifier, -50..100 (default: from DEX, INT and worn AP, E5)",
            "location_hp": "override: HP per hit location, 1..100, partial allowed (default: from CON+SIZ, E4)",
            "ready": "weapon names held at the start, at most two hands (default: the first held weapon and, if one-handed, the first shield)",
            "notes": "free text",
            "war_trained": "for a mount: whether it is used to combat (seed 004 \"Untrained Mounts\")",
        },
        "Characteristics": {"*": "a characteristic, 1..100"},
        "Weapon": {
            "name": "the weapon's name, unique on the sheet",
            "skill": "its Weapon (Shield, Unarmed...) skill in percent, 0..300",
            "damage": "dice without the Damage Modifier (`1D8`, `1D6+1`)",
            "ap": "the item's armour points, 0..100 (what a parry deducts)",
            "hp": "the item's hit points, 0..1000",
            "hands": "hands it needs, 1 or 2",
            "impaling": "an impaling weapon (seed 004 \"Impaling Close Combat Attacks\")",
            "kind": "melee, shield, unarmed, natural or ranged",
            "reach": "free text (not used by the seed's rules)",
            "range": "ranged: metres without penalty (halved skill to double it; 0 = no figure, the GM gives `--range`)",
            "reload": "ranged: Combat Actions a Ready Weapon action takes to reload it, 0..20",
            "thrown": "ranged: it leaves the hand when used and must be readied again",
            "group": "the Weapon skill group it belongs to (Spear, Polearm, Staff, 2H Sword...), read by mounted combat",
            "limb": "unarmed: the hit location it strikes with, which a parry hurts (seed 004 \"Unarmed Combat\"; default: kick/knee/leg/foot the right leg, head the head, else the right arm)",
        },
    },
    "mythras": {
        "Sheet": {
            "name": "the combatant's name",
            "characteristics": "the seven characteristics (table below)",
            "system": "`mythras` or `cfi`",
            "skills": "skill name = percent, 0..300 (Evade, Endurance, Brawn, Athletics, Acrobatics, Perception, Ride, Unarmed are tested by name; a near miss of one is refused)",
            "combat_styles": "Combat Styles (CombatStyle, below); every weapon but an unarmed one must be in one",
            "weapons": "weapons, shields and natural weapons (Weapon, below)",
            "armour": "worn AP per hit location, 0..100",
            "natural_armour": "AP of hide or scales per location, 0..100 (adds to worn AP)",
            "extra_ap": "Action Points gained by Rank, 0..10 (seed 001)",
            "ready": "weapon names held at the start (default: the sheet's weapons in order while two hands allow)",
            "notes": "free text",
            "luck_points": "Luck Points per session, 0..20 (seed 001 \"Use Luck Point\")",
            "movement": "Base Movement Rate in metres, 0..100",
            "legs": "legs, 0..100 (4 or more: a quadruped for Charge, Trip Opponent and Leaping Attacks)",
            "spells": "spells and magical abilities (Spell, below)",
            "height": "height in metres for Jump, 0..100 (0: ruling `default_height`)",
            "things": "Things carried besides worn armour, 0..1000 (seed 001 \"Situational Movement Rates\")",
        },
        "Characteristics": {"*": "a characteristic, 1..100"},
        "CombatStyle": {
            "name": "the style's name",
            "skill": "its skill in percent, 0..300",
            "weapons": "names of the sheet's weapons it covers",
        },
        "Weapon": {
            "name": "the weapon's name, unique on the sheet",
            "damage": "dice without the damage modifier (`1D8`)",
            "size": "Small, Medium, Large, Huge or Enormous (seed 001 \"Weapon Size\")",
            "reach": "touch, short, medium, long or very long",
            "ap": "the item's armour points, 0..100",
            "hp": "the item's hit points, 0..1000",
            "traits": "among cutting, impaling, bludgeoning, entangling, two-handed, shield, unarmed, ranged, barbed, set, crossbow, counter",
            "hands": "hands it needs, 1 or 2",
            "kind": "melee, shield, unarmed (needs no hand) or ranged",
            "force": "ranged: the Size it strikes a parry with (default: `size`)",
            "range": "ranged: Close/Effective/Long in metres, as `\"10/30/60\"`",
            "load": "ranged: Turns to reload, 0..20 (0: none)",
            "impale_size": "ranged: the Size of the impaled missile (default: `size`)",
            "damage_modifier": "whether the wielder's Damage Modifier applies",
            "ward": "locations it covers when Warding, 0..6 (0: 1, shields 2)",
        },
        "Spell": {
            "name": "the spell's name",
            "skill": "the skill it is cast with (Channel, Invocation...), which must be on the sheet",
            "casting_time": "Turns to cast, 1..20",
            "counter": "whether it can dismiss an incoming spell (seed 001 \"Counter Spell\")",
            "effect": "its named effect, told in the log (not resolved by the engine)",
        },
    },
    "rq3": {
        "Sheet": {
            "name": "the combatant's name",
            "characteristics": "the seven characteristics (table below)",
            "system": "`rq3`",
            "notes": "free text",
            "move": "movement in metres per Move Phase (seed 002 \"MOVE\")",
            "skills": "skill name = percent (Dodge, Maneuver, Grapple, Ride, Acrobatics, Jump, Breakfall, spelt so, are read by name; missing ones take their base chance)",
            "armour": "hit location = list of pieces (Piece, below), overlapping by the seed's rule; locations: head, chest, abdomen, right/left arm, right/left leg",
            "natural_ap": "skin or hide AP on every location",
            "weapons": "weapons, shields and natural weapons (Weapon, below)",
            "ready": "weapon names held at the start (default: those that fit two hands, in sheet order)",
            "magic_points": "magic points for spells",
        },
        "Characteristics": {"*": "a characteristic, 1..100"},
        "Piece": {
            "name": "the piece of armour",
            "ap": "its armour points",
            "soft": "cloth, padding or leather (a crushing special ignores half of it)",
        },
        "Weapon": {
            "name": "the weapon's name, unique on the sheet",
            "damage": "dice without the damage modifier (`1D8+1`)",
            "sr": "the weapon strike rank",
            "length": "metres (engagement range 1, 2 or 3; seed 002 \"RULES OF ENGAGEMENT\")",
            "ap": "the item's armour points",
            "hp": "the item's hit points",
            "modes": "among slash, crush, impale; the first is the default (default: impale for daggers, else crush)",
            "attack": "attack skill in percent (a weapon needs `attack` or `parry`)",
            "parry": "parry skill in percent",
            "hands": "hands it needs, 1 or 2",
            "kind": "melee, shield, missile or unarmed",
            "flexible": "a whip, flail or chain",
            "blade": "none, bladed, hafted or long-hafted: how it damages a weapon it parries",
            "type": "the weapon-table entry for the seed's corrections (dagger, naginata, javelin...; default: the name)",
            "range": "missile: range in metres",
            "point_blank": "missile: point-blank range in metres (0: a tenth of `range`)",
            "thrown": "a thrown weapon",
            "shield_size": "buckler, small, hoplite or large",
            "tactics": "trained `@` tactics (@feint, @glancing, @riposte...)",
            "min_str": "the weapon's STR minimum",
            "min_dex": "the weapon's DEX minimum",
            "limb": "a creature's natural weapon: the hit location it strikes with (it cannot dodge a blow aimed there; seed 002 \"DODGING BY LARGE CREATURES\")",
        },
    },
    "rolemaster": {
        "Sheet": {
            "name": "the combatant's name",
            "hits": "hit points (concussion hits), at least 1",
            "armour": "the armour type: a column of the attack tables (none, soft, rigid, plate in the samples)",
            "level": "the character's level",
            "stats": "the ten stats (Stat tables, below); each defaults to value 50, bonus 0",
            "db": "DB from other sources (magic, items), without the Quickness part and the shield, which are derived",
            "skills": "skill name = bonus (acrobatics and perception, spelt so, are read by name)",
            "weapons": "weapons and shields (Weapon, below)",
            "tables": "a folder of campaign tables, relative to the sheet",
            "ready": "weapon names in hand at the start (default: the first melee or missile weapon and the first shield)",
        },
        "Stats": {"*": "a stat: a table `{ value = N, bonus = N }`"},
        "Stat": {"value": "the stat, 1..102", "bonus": "its bonus"},
        "Weapon": {
            "name": "the weapon's name, unique on the sheet",
            "kind": "melee, missile, shield or unarmed",
            "ob": "the Offensive Bonus with it",
            "table": "its attack table: a name or a path (required but for shields)",
            "fumble": "`[LOW, HIGH]` of the unmodified first die, within 1..100 (default: the table's `fumble_range`)",
            "db": "a shield's DB",
            "ranges": "missile: range bands `[[UP_TO_METRES, OB_MODIFIER], ...]`, nearest first (your book's figures)",
            "reload": "missile: Action Points to ready it again after a shot (0: none; RMH \"Ammo reload\" is 6)",
        },
    },
    "uesrpg": {
        "Sheet": {
            "name": "the combatant's name",
            "characteristics": "the eight characteristics (table below)",
            "system": "`uesrpg`",
            "npc": "an NPC: criticals on 1-3, critical failures on 98-100 (rules-reference.md D4)",
            "lucky": "a PC's Lucky Numbers, d100 results (as many as the Luck bonus; none listed: ruling `lucky_numbers`)",
            "unlucky": "a PC's Unlucky Numbers, d100 results (5 - Luck bonus of them)",
            "evade": "the Evade rank bonus over AGI, percent",
            "skills": "other skills by name with their TN in percent (a spell's school)",
            "styles": "Combat Styles (Style, below)",
            "weapons": "weapons (Weapon, below); a combatant needs a weapon or a spell",
            "shields": "shields (Shield, below)",
            "spells": "attack spells (Spell, below)",
            "armour": "hit location = its armour (Armour, below)",
            "shield_arm": "the arm that takes a block's overflow: left arm or right arm",
            "hp": "override: hit points (default: END/2 rounded up, rules-reference.md D11)",
            "wound_threshold": "override: the Wound Threshold (default: SB + EB + WB, D11)",
            "initiative_rating": "override: the initiative rating (default: AB + IB + PcB, D11)",
            "notes": "free text",
        },
        "Characteristics": {"*": "a characteristic, 0..100"},
        "Style": {
            "name": "the style's name",
            "bonus": "its rank bonus in percent, added to the characteristic the test uses",
            "weapons": "names of the weapons and shields it includes (any other is -20)",
        },
        "Weapon": {
            "name": "the weapon's name",
            "damage": "dice (`1D8+1`)",
            "type": "damage type: slashing, splitting, crushing, piercing, or magic: fire, frost, shock, poison, magic",
            "kind": "melee or ranged",
            "range": "a ranged weapon's reach in metres (0: not stated); `--situation distance:M` beyond it is refused",
            "targets": "how many defenders one attack with it may face (1; a sweeping weapon more: `attack A T1,T2`)",
        },
        "Shield": {
            "name": "the shield's name",
            "br": "Block Rating, 0 or more",
            "magic_br": "Block Rating against magic damage (0: magic halves BR)",
            "variant": "standard, tower, targe or buckler (rules-reference.md D13)",
        },
        "Spell": {
            "name": "the spell's name",
            "school": "the skill it is cast with, which must be in `skills`",
            "damage": "dice",
            "type": "a magic damage type: fire, frost, shock, poison, magic",
            "range": "metres (0: not stated); `--situation distance:M` beyond it is refused",
            "targets": "how many defenders one casting may face (an area spell: more than 1)",
        },
        "Armour": {
            "ar": "Armor Rating against physical damage, 0 or more",
            "magic_ar": "Armor Rating against magic damage",
            "coverage": "full or partial",
        },
    },
}

#: A line under a system's heading, for what its struct does not show.
NOTES = {"rolemaster": "The sheet may also say `system = \"rolemaster\"` (or `rm`, `rmss`), as the other systems' sheets do; "
                       "it is checked and not stored."}
#: Where each system's commented example sheet is.
EXAMPLES = {"mrq1": "vasana.toml", "mythras": "kaelin.toml", "rq3": "gorakh.toml", "rolemaster": "kestrel.toml",
            "uesrpg": "vethis.toml"}
BEGIN = "<!-- sheet-reference: generated from the sheet structs by 'python -m affray.cli.sheetdoc README.md'; tests/test_sheet_doc.py checks it -->"
END = "<!-- /sheet-reference -->"


def sheet_module(key: str):
    """The system's ``sheet`` module (``affray.rules.<key>.sheet``)."""
    return importlib.import_module(f"affray.rules.{key}.sheet")


def _inner(tp):
    args = typing.get_args(tp)
    if type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return rest[0] if len(rest) == 1 else tp
    return tp


def _is_struct(tp) -> bool:
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


def type_words(tp) -> str:
    """A field's type in sheet words: ``integer``, ``text``, ``list of
    text``, ``table of name = integer``, ``list of Weapon``..."""
    optional = type(None) in typing.get_args(tp)
    tp = _inner(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if _is_struct(tp):
        words = f"{tp.__name__} table"
    elif origin in (list, tuple) and args and (origin is list or args[-1] is Ellipsis):
        words = f"list of {type_words(args[0]).removesuffix(' table')}"
    elif origin is tuple:
        words = "[" + ", ".join(type_words(a) for a in args) + "]"
    elif origin is dict:
        words = f"table of name = {type_words(args[1])}"
    else:
        words = {int: "integer", str: "text", bool: "true/false", float: "number"}.get(tp, getattr(tp, "__name__", str(tp)))
    return words + (" (optional)" if optional else "")


def _default(field) -> str:
    if field.required:
        return ""
    value = field.default_factory() if field.default is msgspec.NODEFAULT else field.default
    if value is None:
        return "derived" if field.name not in ("ready",) else "see meaning"
    if _is_struct(type(value)):
        return "see below"
    return json.dumps(msgspec.to_builtins(value), ensure_ascii=False)


def structs_of(sheet: type) -> list[type]:
    """``sheet`` and every struct it holds, in the order they appear."""
    out: list[type] = []

    def walk(tp) -> None:
        if _is_struct(tp):
            if tp in out:
                return
            out.append(tp)
            for f in msgspec.structs.fields(tp):
                walk(f.type)
        for a in typing.get_args(tp):
            walk(a)

    walk(sheet)
    return out


def undocumented() -> list[str]:
    """``system:Struct.key`` for every sheet key :data:`DOCS` does not
    describe, and every description of a key no struct has."""
    missing = []
    for key, docs in DOCS.items():
        structs = structs_of(sheet_module(key).Sheet)
        for st in structs:
            doc = docs.get(st.__name__, {})
            names = [f.encode_name for f in msgspec.structs.fields(st)]
            missing += [f"{key}:{st.__name__}.{n}" for n in names if n not in doc and "*" not in doc]
            missing += [f"{key}:{st.__name__}.{n} (described, not on the struct)" for n in doc if n != "*" and n not in names]
        missing += [f"{key}:{s} (described, not a struct of the sheet)" for s in docs if s not in {x.__name__ for x in structs}]
    return missing


def reference(key: str) -> str:
    """The markdown reference of one system's sheet: a table per struct
    (key, type, required, default, meaning) and its commented example."""
    from affray.rules import base

    docs = DOCS[key]
    lines = [f"#### `{key}` sheets ({base.available()[key]})", ""] + ([NOTES[key], ""] if key in NOTES else [])
    for st in structs_of(sheet_module(key).Sheet):
        doc = docs.get(st.__name__, {})
        where = "the sheet's top level" if st.__name__ == "Sheet" else f"a {st.__name__} table"
        lines += [f"Keys of {where}:", "", "| key | type | required | default | meaning |", "|---|---|---|---|---|"]
        for f in msgspec.structs.fields(st):
            meaning = (doc.get(f.encode_name) or doc.get("*", "")).replace("|", "\\|")
            default = _default(f).replace("|", "\\|")
            shown = default if default in ("", "derived", "see below", "see meaning") else f"`{default}`"
            lines.append(f"| `{f.encode_name}` | {type_words(f.type)} | {'yes' if f.required else 'no'} | {shown} | {meaning} |")
        lines.append("")
    example = Path(sheet_module(key).__file__).parent.parent.parent / "examples" / key / EXAMPLES[key]
    lines += [f"<details><summary>A commented {key} example: <code>examples/{key}/{EXAMPLES[key]}</code></summary>", "",
              "```toml", example.read_text(encoding="utf-8").rstrip("\n"), "```", "", "</details>", ""]
    return "\n".join(lines)


def references() -> str:
    """Every system's reference, between the README markers."""
    from affray.rules import base

    body = "\n".join(reference(key) for key in base.available())
    return f"{BEGIN}\n\n{body}\n{END}"


def rewrite(readme: str | Path) -> bool:
    """Put :func:`references` between the markers of ``readme``; return
    whether the file changed."""
    path = Path(readme)
    text = path.read_text(encoding="utf-8")
    start, stop = text.index(BEGIN), text.index(END) + len(END)
    new = text[:start] + references() + text[stop:]
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":  # python -m affray.cli.sheetdoc README.md
    print("rewritten" if rewrite(sys.argv[1] if len(sys.argv) > 1 else "README.md") else "up to date")
