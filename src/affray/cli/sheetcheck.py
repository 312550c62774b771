"""``affray sheet check FILE [--system KEY]``: read a character sheet as a
join would, without an encounter, and say what was read (issue 16, item 3).

The system is the sheet's ``system`` key, or ``--system``, or the one
system whose schema accepts the sheet; when none or several do, ``--system``
is asked for. The summary gives the name, what the file gave (characteristics,
skills, weapons, armour...), the weapons in hand, each hit location's HP and
AP, and the system's derived figures (Strike Ranks, Action Points, damage
modifier...). A bad sheet is the loader's one line naming the key, exit 2.
"""

from __future__ import annotations

import importlib
from typing import NamedTuple

import typer

from affray.cli.common import UserError, echo, echo_json, handles_errors

#: What each system calls the per-round actions and reactions a join sets
#: (``None``: the system counts them otherwise, e.g. RQ3's Strike Ranks).
ACTIONS = {
    "mrq1": ("Combat Actions", "Reactions"),
    "mythras": ("Action Points", None),
    "rolemaster": ("Action Points", None),
    "uesrpg": ("Action Points", None),
    "rq3": (None, None),
}
_SKIP = ("name", "system", "notes")


def register(app: typer.Typer) -> None:
    """Add the ``sheet`` group (``sheet check``) to ``app``."""
    group = typer.Typer(name="sheet", no_args_is_help=True,
                        help="Check character sheets.\n\nExample: affray sheet check examples/mythras/kaelin.toml")

    @group.command("check")
    @handles_errors
    def check(path: str = typer.Argument(..., metavar="FILE", help="The sheet (.toml, .yaml, .yml, .json)."),
              system: str = typer.Option("", "--system", "-s", help="The rule system (default: the sheet's 'system' key, or the one that fits)."),
              json: bool = typer.Option(False, "--json", help="The summary as JSON.")):
        """Read a sheet as 'affray join' would and summarise it; exit 2 with
        one line naming the key when it is wrong.

        Example: affray sheet check examples/mythras/kaelin.toml
        """
        if json:
            echo_json(check_data(path, system))
        else:
            echo("\n".join(check_lines(path, system)), block=True)

    @group.command("format")
    @handles_errors
    def format_(system: str = typer.Option("", "--system", "-s", help="One system (default: all five).")):
        """Print the sheet format (every key: type, required, default,
        meaning with its unit) as markdown, as the README's "Sheets" has it.

        Example: affray sheet format --system mythras
        """
        from affray.cli import sheetdoc
        from affray.rules import base

        echo(sheetdoc.reference(base.resolve_key(system)) if system else sheetdoc.references(), block=True)

    app.add_typer(group)


def guess_system(path: str, raw: object) -> str:
    """The system key for a sheet: its ``system`` key when it names a
    system, else the one system whose loader accepts the file. Raises
    :class:`UserError` asking for ``--system`` otherwise."""
    from affray.rules import base

    named = raw.get("system") if isinstance(raw, dict) else None
    if isinstance(named, str) and named.strip():
        try:
            return base.resolve_key(named)
        except base.RuleError as exc:
            raise UserError(f"{path}: system: {exc}") from None
    fits = []
    for key in base.available():
        try:
            base.get(key).load_sheet(path)
        except base.RuleError:
            continue
        fits.append(key)
    if len(fits) == 1:
        return fits[0]
    keys = ", ".join(base.available())
    what = f"it fits {' and '.join(fits)}" if fits else "no system accepts it as it is"
    raise UserError(f"{path}: the sheet names no system and {what}; pass --system KEY ({keys}) to check it against one")


class Checked(NamedTuple):
    """A sheet read as a join would: the ``path``, the system ``key``, the
    file's ``raw`` data, the loaded sheet ``data`` (plain, as a join stores
    it), the ``joined`` event (locations, counts, weapons in hand) and the
    system's ``derived`` figures (``{name: value}``, system words)."""

    path: str
    key: str
    raw: dict
    data: dict
    joined: object
    derived: dict


def read(path: str, system: str = "") -> Checked:
    """Read the sheet at ``path`` under ``system`` (a key or alias; "" to
    guess). Raises :class:`UserError` / ``RuleError`` (one line)."""
    from affray.events import commands as cmd
    from affray.events import core as ev
    from affray.projections.state import State
    from affray.rules import base

    try:
        raw = base.read_sheet_data(path)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if not isinstance(raw, dict):
        raise UserError(f"{path}: expected a table of sheet fields, got {type(raw).__name__}; fix the sheet and try again")
    key = guess_system(path, raw) if not system else base.resolve_key(system)
    named = raw.get("system")
    if system and isinstance(named, str) and named.strip() and guess_system(path, raw) != key:
        raise UserError(f"{path}: the sheet says system = {named!r}, not {key}; drop --system or fix the sheet")
    rules = base.get(key)
    data = rules.load_sheet(path)
    joined = next(e for e in rules.decide(State(system=key), cmd.JoinCombatant(sheet=data, side="check"), None)
                  if isinstance(e, ev.CombatantJoined))
    actions, reactions = ACTIONS.get(key, (None, None))
    derived: dict = {actions: joined.combat_actions} if actions else {}
    derived.update({reactions: joined.reactions} if reactions else {})
    derived.update(derived_figures(key, path))
    return Checked(path, key, raw, data, joined, derived)


def check_lines(path: str, system: str = "") -> list[str]:
    """The summary of the sheet at ``path`` (:func:`read`): what the file
    gave, the weapons in hand, HP and AP per location, derived figures."""
    from affray.rules import base

    c = read(path, system)
    lines = [f"OK: {path}: a {c.key} sheet ({base.available()[c.key]})", f"name: {c.joined.name}"]
    for field, value in c.data.items():
        if field in _SKIP or field not in c.raw or value in ({}, [], (), None, ""):
            continue
        lines.append(f"{field.replace('_', ' ')}: {brief(value, c.raw[field])}")
    lines.append(f"in hand: {', '.join(c.joined.weapons_ready) or 'nothing'}")
    lines.append("hit locations: " + ", ".join(_location(loc) for loc in c.joined.locations))
    figures = [f"{k} {v}" for k, v in c.derived.items()]
    if c.joined.movement:  # after the actions and reactions, which lead
        figures.insert(len([k for k in ACTIONS.get(c.key, ()) if k]), f"movement {c.joined.movement} m")
    if figures:
        lines.append("derived: " + ", ".join(figures))
    return lines


def check_data(path: str, system: str = "") -> dict:
    """The summary as data (``sheet check --json``): ``file``, ``system``,
    ``name``, ``sheet`` (as a join stores it), ``in_hand``, ``locations``
    (``name``, ``hp``, ``ap``), ``movement_m`` (metres; 0 where the system
    has none) and ``derived`` (``{name: value}``)."""
    c = read(path, system)
    return {"file": path, "system": c.key, "name": c.joined.name, "sheet": c.data, "in_hand": list(c.joined.weapons_ready),
            "locations": [{"name": loc.name, "hp": loc.hp, "ap": loc.ap} for loc in c.joined.locations],
            "movement_m": c.joined.movement, "derived": c.derived}


#: Derived figures in the systems' own words.
_NAMES = {"dex_sr": "DEX SR", "siz_sr": "SIZ SR", "total_hp": "total HP", "hp": "HP", "strike_rank_mod": "Strike Rank modifier",
          "worn_ap_total": "worn AP total", "initiative": "Initiative", "damage_modifier": "damage modifier",
          "wound_threshold": "Wound Threshold", "initiative_rating": "initiative rating"}
#: Derived figures the join's counts already show.
_SHOWN = ("combat_actions", "reactions", "action_points", "movement", "hero_points")
#: A list entry's figures shown beside its name (skills, bonuses, damage).
_FIGURES = ("skill", "attack", "parry", "ob", "bonus", "damage", "br", "db", "ap")


def derived_figures(key: str, path: str) -> dict:
    """The scalar figures of the system's ``sheet.derive`` (Strike Ranks,
    damage modifier, initiative, Wound Threshold...) by their names in the
    system's words; ``{}`` for a system without one."""
    import msgspec

    module = importlib.import_module(f"affray.rules.{key}.sheet")
    derive = getattr(module, "derive", None)
    if derive is None:
        return {}
    figures = msgspec.to_builtins(derive(module.load_sheet(path)))
    return {_NAMES.get(k, k.replace("_", " ")): (v if v != "" else "none") for k, v in figures.items()
            if isinstance(v, (int, str)) and not isinstance(v, bool) and k not in _SHOWN}


def brief(value: object, given: object = None) -> str:
    """A sheet value on one line: tables as ``key value`` pairs (nested ones
    in parentheses; only the keys the file gave, when ``given`` is its raw
    table), lists of tables by name with their figures
    (``Longsword (skill 65, damage 1D8)``), other lists in brackets."""
    if isinstance(value, dict):
        keys = [k for k in value if not isinstance(given, dict) or k in given]
        return ", ".join(f"{k} ({brief(value[k], given.get(k) if isinstance(given, dict) else None)})"
                         if isinstance(value[k], dict) else f"{k} [{brief(value[k])}]" if isinstance(value[k], list)
                         else f"{k} {value[k]}" for k in keys)
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, dict) for v in value):
            return ", ".join(_entry(v) for v in value)
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


def _location(loc) -> str:
    """``chest 8 HP AP 3``; a location without HP of its own (UESRPG's
    armour places, beside its one ``HP`` pool) shows its AP only."""
    if loc.name == "HP":
        return f"HP {loc.hp}"
    return " ".join([loc.name] + ([f"{loc.hp} HP"] if loc.hp else []) + ([f"AP {loc.ap}"] if loc.ap else []))


def _entry(entry: dict) -> str:
    figures = [f"{k} {entry[k]}" for k in _FIGURES if entry.get(k) not in (None, "", 0)]
    name = str(entry.get("name", ""))
    return (name + (f" ({', '.join(figures)})" if figures else "")) if name else f"({brief(entry)})"
