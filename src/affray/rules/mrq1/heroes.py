"""Hero Points in mrq1: Second Chance, Glancing Blow, Luck of the Heroes.

Source: seed 004 "Hero Points". Each use deducts one point from the
character's total (sheet field ``hero_points``); the points spent are kept
as the condition ``hero-points-spent`` so ``affray state`` shows them and an
undo gives them back. Legendary Abilities are not combat and not modelled.
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events.mrq1 import HeroPointSpent
from affray.projections.state import Combatant
from affray.rules.base import Draft, RuleError, to_command
from affray.rules.mrq1 import conditions as cat
from affray.rules.mrq1 import tables
from affray.rules.mrq1.core import rulings_of, sheet_of

OPTIONS = ("second-chance", "glancing-blow", "luck")


def spent(c: Combatant) -> int:
    """Hero Points ``c`` has spent in this encounter."""
    return c.effect("hero-points-spent")


def points_left(c: Combatant) -> int:
    """Hero Points ``c`` still has: the sheet's ``hero_points`` less those spent."""
    return sheet_of(c).hero_points - spent(c)


def check(c: Combatant, option: str) -> None:
    """Refuse an unknown option, or a Hero Point the character does not have."""
    if option not in OPTIONS:
        raise RuleError(f"unknown Hero Point use {option!r}; choose {', '.join(OPTIONS)}")
    if points_left(c) <= 0:
        total = sheet_of(c).hero_points
        raise RuleError(f"{c.name} has no Hero Points left ({spent(c)} spent of {total}); nothing was spent")


def spend(draft: Draft, who: str, command: cmd.SpendHeroPoint) -> None:
    """Spend one Hero Point of ``who`` on ``command.option``."""
    c = draft.state.combatants[who]
    option = command.option.strip().lower()
    check(c, option)
    if option == "luck":
        return _luck(draft, c, command)
    if option == "glancing-blow":
        return _glancing_blow(draft, c, command.location)
    return _second_chance(draft, c, command)


def _record(draft: Draft, c: Combatant, option: str, **fields) -> None:
    draft.emit(HeroPointSpent(handle=c.handle, option=option, left=points_left(c) - 1, **fields))
    n = spent(c) + 1
    draft.emit(ev.ConditionApplied(handle=c.handle, condition=cat.make(
        "hero-points-spent", cause=draft.state.version, round=draft.state.round, step=draft.state.step,
        ends="never", effects={"hero-points-spent": n}, note=f"{n} of {sheet_of(c).hero_points}")))


def _luck(draft: Draft, c: Combatant, command: cmd.SpendHeroPoint) -> None:
    """Luck of the Heroes: a minor change to the story, "only with the
    approval of the Games Master" (seed 004); recorded as a note."""
    if not command.note.strip():
        raise RuleError("Luck of the Heroes needs the story change as a note: --note \"the rope holds\"")
    if not command.approved:
        raise RuleError("Luck of the Heroes needs the Games Master's approval: pass --gm-approves")
    _record(draft, c, "luck", note=command.note.strip())
    draft.emit(ev.NoteAdded(text=f"Luck of the Heroes for {c.name}, approved by the GM: {command.note.strip()}"))


def _glancing_blow(draft: Draft, c: Combatant, location: str) -> None:
    """Glancing Blow: a Major Wound becomes a Serious Wound, and the location
    is set to a negative score equal to its starting HP (seed 004). Under
    ruling ``major_wound_boundary=inclusive`` that score is still major, so
    the location goes to one point above it. Limb: severed becomes useless;
    the blood-loss count and the death test end; a pending wound step is
    replaced by the Serious Wound's (1D4 actions lost, consciousness test
    for abdomen, chest or head)."""
    if c.status == "dead":
        raise RuleError(f"{c.name} is dead; a Glancing Blow comes too late (a Second Chance may re-roll the test)")
    rulings = rulings_of(draft.state)
    majors = [l for l in c.locations if tables.wound_severity(l.hp, l.max_hp, rulings) == "major"]
    if location:
        try:
            location = tables.normalize_location(location)
        except ValueError as exc:
            raise RuleError(str(exc)) from None
        majors = [l for l in majors if l.name == location]
    if not majors:
        raise RuleError(f"{c.name} has no Major Wound{' to the ' + location if location else ''} to downgrade")
    if len(majors) > 1:
        raise RuleError(f"{c.name} has Major Wounds to {', '.join(l.name for l in majors)}; name one with --location")
    loc = majors[0]
    target = -loc.max_hp if rulings.major_wound_boundary == "strict" else -loc.max_hp + 1
    _record(draft, c, "glancing-blow", location=loc.name)
    draft.emit(ev.HitPointsRestored(handle=c.handle, location=loc.name, amount=target - loc.hp, reason="Glancing Blow"))
    draft.emit(ev.WoundEased(target=c.handle, location=loc.name, severity="serious", reason="Glancing Blow"))
    label = f"Serious Wound to the {loc.name}"
    for cond in draft.state.combatants[c.handle].conditions:
        if cond.location != loc.name:
            continue
        if cond.name in ("bleeding-out", "death-test") or (loc.limb and cond.name in ("severed-limb", "resilience-retest")):
            draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=cond.id, reason="Glancing Blow"))
    if loc.limb:
        draft.emit(ev.ConditionApplied(handle=c.handle, condition=cat.make(
            "useless-limb", cause=draft.state.version, round=draft.state.round, step=draft.state.step,
            ends="event", location=loc.name, effects={"useless-limb": 1}, note=label)))
    pending = list(draft.state.pending)
    for i, s in enumerate(pending):
        if s.kind == "wound" and s.who == c.handle and s.data.get("location") == loc.name and s.data.get("severity") == "major":
            tests = "" if loc.limb else "consciousness"
            dice = (ev.DiceNeed("combat actions lost", "1D4", by=c.handle),) + (
                (ev.DiceNeed("Resilience (consciousness)", "1D100", by=c.handle),) if tests else ())
            what = "loses the next 1D4 combat actions" + ("; Resilience test or fall unconscious" if tests else "")
            pending[i] = replace(s, prompt=f"{c.name}: {label}: {what}", dice=dice,
                                 data={"location": loc.name, "severity": "serious", "tests": tests})
            draft.emit(ev.StepsAwaited(steps=tuple(pending)))
            break


# --------------------------------------------------------------------------- #
# Second Chance
# --------------------------------------------------------------------------- #


class _Superseding:
    """The command's dice, with roll number ``position`` re-rolled and marked
    as superseding the roll recorded at version ``supersedes``.

    With engine dice the superseded roll's number is spent, so the engine
    draws the re-roll at the next number (a new roll, never the old one);
    with table values the next value typed is the re-roll."""

    def __init__(self, inner, position: int, supersedes: int) -> None:
        self.inner, self.position, self.supersedes, self.n = inner, position, supersedes, 0

    def roll(self, expr, purpose: str, by: str = "") -> ev.DiceRolled:
        k, self.n = self.n, self.n + 1
        if k != self.position:
            return self.inner.roll(expr, purpose, by=by)
        if not self.inner.remaining_values and not self.inner.manual:
            self.inner.roll(expr, purpose, by=by)  # the old roll's number: already used
        rolled = self.inner.roll(expr, purpose, by=by)
        return replace(rolled, supersedes=self.supersedes, purpose=f"{purpose} (Second Chance)")

    def __getattr__(self, name):
        return getattr(self.inner, name)


def _second_chance(draft: Draft, c: Combatant, command: cmd.SpendHeroPoint) -> None:
    """Second Chance: re-roll a roll that affects the character (seed 004).

    ``affray hero WHO second-chance`` retracts the newest command (an undo,
    kept in the log) and issues this one with that command in ``redo``: it
    is decided again with the same dice up to roll ``position``, which is
    rolled anew as a roll that supersedes the old one (version ``roll``):
    the step ``command:redecide`` (the router in :mod:`.system` decides it),
    then ``hero:second-chance-check``."""
    if not command.redo or not command.roll:
        raise RuleError("a Second Chance names the roll it re-rolls: use 'affray hero WHO second-chance'")
    redo = to_command(command.redo)
    if isinstance(redo, cmd.SpendHeroPoint):
        raise RuleError("a Second Chance cannot re-run another Hero Point")
    _record(draft, c, "second-chance", roll=command.roll)
    draft.then("command:redecide", command=redo, dice=_Superseding(draft.dice, command.position, command.roll),
               then="hero:second-chance-check", roll=command.roll, position=command.position)


def second_chance_check(draft: Draft, events: list, roll: int, position: int) -> None:
    """The step ``hero:second-chance-check``: the re-decided command's
    ``events`` must re-roll the roll (version ``roll``); they are emitted.
    Raises :class:`RuleError` when that roll is gone (fewer dice rolled)."""
    if not any(isinstance(e, ev.DiceRolled) and e.supersedes == roll for e in events):
        raise RuleError(f"the command rolled only {position} dice this time; the roll to re-roll is gone")
    draft.emit(*events)
