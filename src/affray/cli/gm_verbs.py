"""The bodies of the GM's ruling verbs, without the CLI framework: set,
heal, out, end, ruling (issue 16, item 2).

Each is ``verb(opts, **params)`` named as the parameters of the Typer
command of the same verb (:mod:`affray.cli.gm`), so the Typer app and the
fast dispatcher (:mod:`affray.cli.dispatch`) run the same code. The rules
are :mod:`affray.rules.gm`; every verb records the GM's ``--reason``.
Numbers are ASCII digits (an optional leading ``-`` for ``set``); anything
else is one line, exit 2, nothing appended.
"""

from __future__ import annotations

import re

from affray.cli.core import Options, UserError, run

_NUMBER = re.compile(r"-?[0-9]{1,6}")


def _number(text: str, what: str, *, negative: bool = False) -> int:
    """``text`` as an int: ASCII digits only, at most six of them."""
    t = str(text).strip()
    if not _NUMBER.fullmatch(t) or (t.startswith("-") and not negative):
        sign = "an optional '-' and " if negative else ""
        raise UserError(f"{what} takes a whole number ({sign}ASCII digits 0-9, at most 6), got {text!r}")
    return int(t)


def set_(opts: Options, *, who: str, field: str, location: str, hp: str, reason: str) -> None:
    """Set a location's HP by the GM's ruling."""
    from affray.events.commands import SetHitPoints

    if field.strip().lower() != "hp":
        raise UserError(f"'set' can set hp only, got {field!r}: affray set WHO hp LOCATION N --reason WHY")
    run(opts, SetHitPoints(who=who, location=location, hp=_number(hp, "HP", negative=True), reason=reason))


def heal(opts: Options, *, who: str, location: str = "", amount: str = "", reason: str) -> None:
    """Restore HP by the GM's ruling."""
    from affray.events.commands import Heal

    n = _number(amount, "the HP to restore") if amount.strip() else 0
    if amount.strip() and n == 0:
        raise UserError("heal 0 HP changes nothing; leave N out to restore the location to its maximum")
    run(opts, Heal(who=who, location=location, amount=n, reason=reason))


def out(opts: Options, *, who: str, how: str, reason: str) -> None:
    """Rule a combatant out of the fight."""
    from affray.events.commands import RuleOut

    run(opts, RuleOut(who=who, how=how, reason=reason))


def end(opts: Options, *, winner: str, reason: str) -> None:
    """End the fight by the GM's ruling."""
    from affray.events.commands import EndFight

    run(opts, EndFight(winner=winner, reason=reason))


def ruling(opts: Options, *, assignment: str, reason: str) -> None:
    """Change a named ruling from now on."""
    from affray.events.commands import ChangeRuling

    name, sep, value = assignment.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise UserError(f"'ruling' takes NAME=VALUE, got {assignment!r}; see 'affray rulings'")
    run(opts, ChangeRuling(name=name.strip(), value=value.strip(), reason=reason))
