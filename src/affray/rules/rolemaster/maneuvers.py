"""Surprised / Confused (seed 000 "Surprised / Confused Effect"):

A Perception roll (an ambush, a hidden foe) or an orientation roll (after
a confusing action) is a static maneuver: an open-ended d100 + the skill
+ the difficulty (rules-reference.md A7) - the maneuver penalties, read on
the static bands (A8). Failure: no further actions this round; Partial
success: Stunned 1 round; Near success: Dazed 1 round; Success: no
effect. Spectacular and Absolute failure count as Failure (ruling
``surprise_worst``); orientation rolls take -20 (RMH, A9); 66 and 100 are
flagged for the GM (ruling ``unusual_checks``). Any other static
maneuver (``act WHO maneuver SKILL``) is read on the same bands and
recorded for the GM.
"""

from __future__ import annotations

from affray.events import core as ev
from affray.events import rolemaster as rev
from affray.rules.base import Draft, RuleError
from affray.rules.rolemaster import core, tables

#: Band outcome -> what it does in the Surprised / Confused rule.
SURPRISE = {
    "spectacular-failure": "failure",
    "absolute-failure": "failure",
    "failure": "failure",
    "partial-success": "stunned",
    "near-success": "dazed",
    "success": "",
    "absolute-success": "",
}


def unusual(state, first: int, total: int) -> str:
    """The 66/100 flag (A8 and ruling ``unusual_checks``), or ""."""
    how = core.rulings_of(state).unusual_checks
    value = first if how == "unmodified-die" else total if how == "total" else None
    return {66: "unusual event (66)", 100: "unusual success (100)"}.get(value, "")


def static_roll(draft: Draft, who: str, maneuver: str, difficulty: str, parts: list[ev.Modifier]) -> str:
    """Roll a static maneuver for ``who``: open-ended (A1) + ``parts`` +
    the ``difficulty`` (A7) - the maneuver penalties, read on the static
    bands (A8) or the campaign's table; records ``ManeuverResolved`` and
    returns the outcome. One line for an unknown difficulty."""
    state = draft.state
    c = state.combatants[who]
    if difficulty not in tables.DIFFICULTY_MODS:
        raise RuleError(f"unknown difficulty {difficulty!r}; use one of {', '.join(tables.DIFFICULTIES)}")
    if tables.DIFFICULTY_MODS[difficulty]:
        parts = parts + [ev.Modifier(tables.DIFFICULTY_MODS[difficulty], difficulty)]
    parts = parts + list(core.maneuver_penalty(state, c))
    dice, roll = core.open_ended(draft, f"{c.name}: {maneuver}", who)
    total = roll + sum(m.value for m in parts)
    name, low, high, outcome, percent = core.static_result(state, c, total)
    draft.emit(rev.ManeuverResolved(handle=who, maneuver=maneuver, table=name, column=difficulty, dice=dice,
                                    roll=roll, parts=tuple(parts), total=total, row_low=low, row_high=high, where="band",
                                    outcome=outcome, value=percent, unusual=unusual(state, dice[0], total)))
    return outcome


def surprise_check(draft: Draft, who: str, kind: str, difficulty: str = "medium") -> None:
    """Roll a Perception or orientation maneuver for ``who`` and apply the
    Surprised / Confused result."""
    s = core.sheet_of(draft.state.combatants[who])
    parts = [ev.Modifier(s.skill("perception"), "Perception")]
    if kind == "orientation":
        parts.append(ev.Modifier(-20, "orientation roll (RMH)"))
    outcome = static_roll(draft, who, kind, difficulty, parts)
    result = SURPRISE[outcome]
    why = f"{'surprised' if kind == 'perception' else 'confused'} ({outcome.replace('-', ' ')})"
    if result == "failure":
        core.lose_round(draft, who, why)
    elif result == "stunned":
        core.add_state(draft, who, "stunned", 1, why)
    elif result == "dazed":
        core.add_state(draft, who, "dazed", 1, why)


def roll_perception(draft: Draft, step: ev.PendingStep) -> None:
    """Round 1's Perception roll of a combatant who joined ``--surprised``;
    when the last one is rolled, the first turn begins."""
    surprise_check(draft, step.who, "perception")
    rest = tuple(s for s in draft.state.pending if s is not step and s != step)
    draft.emit(ev.StepsAwaited(steps=rest))
    if not rest:
        draft.hand_over()


def act_check(kind: str):
    """``affray act WHO orientation|perception [diff=D]``: the GM calls for
    the roll after a confusing action or a hidden foe (no Action Points:
    RMH gives orientation 0)."""

    def handler(draft: Draft, who: str, args: tuple[str, ...]) -> None:
        if draft.state.phase != "round":
            raise RuleError("no round is in progress")
        difficulty = "medium"
        for a in args:
            key, sep, value = a.partition("=")
            if key not in ("diff", "difficulty") or not sep:
                raise RuleError(f"{kind} takes [diff=DIFFICULTY]; got {a!r}")
            difficulty = value.strip().lower()
        surprise_check(draft, who, kind, difficulty)
        if draft.state.combatants[who].effect("no-actions") and who in draft.state.turn:
            draft.emit(ev.StepsAwaited(steps=()))
            draft.hand_over()

    return handler


def act_maneuver(draft: Draft, who: str, args: tuple[str, ...], resolving: bool = False) -> None:
    """``affray act WHO maneuver SKILL [diff=D] [ap=N]``: any other static
    maneuver (RMH ``dice-rolling-conventions.md``: an open-ended roll + the
    skill + the difficulty, read on the static bands of rules-reference.md
    A8 or the campaign's table). The outcome and its share of the action
    are recorded for the GM; nothing else follows from it. ``ap=N`` spends
    Action Points in the combatant's turn (RMH: "Misc. Static Action 8+",
    Perception 1-2), resolved when they are spent (ruling ``resolution``);
    by default it is a free roll the GM calls for."""
    state = draft.state
    if state.phase != "round":
        raise RuleError("no round is in progress")
    c = state.combatants[who]
    s = core.sheet_of(c)
    if not args or args[0].startswith(("diff=", "difficulty=", "ap=")):
        raise RuleError(f"name the skill: 'affray act {who} maneuver SKILL [diff=D] [ap=N]' (skills: {', '.join(s.skills) or 'none'})")
    skill = args[0].lower()
    if skill not in s.skills:
        raise RuleError(f"{c.name}'s sheet lists no skill {skill!r} (skills: {', '.join(s.skills) or 'none'})")
    difficulty, ap = "medium", 0
    for a in args[1:]:
        key, sep, value = a.partition("=")
        if key in ("diff", "difficulty") and sep:
            difficulty = value.strip().lower()
        elif key == "ap" and sep and value.strip().isdigit():
            ap = int(value)
        else:
            raise RuleError(f"maneuver takes SKILL [diff=DIFFICULTY] [ap=N]; got {a!r}")
    if difficulty not in tables.DIFFICULTY_MODS:
        raise RuleError(f"unknown difficulty {difficulty!r}; use one of {', '.join(tables.DIFFICULTIES)}")
    if ap:

        def check():
            core.own_turn(state, who)
            if ap > c.combat_actions:
                raise RuleError(f"{c.name} has {c.combat_actions} Action Points left; the {skill} maneuver needs {ap}")
            return ap

        if core.attempt(draft, who, resolving, check) is None:
            return
        if not core.proceed(draft, who, ap, "act:maneuver", f"{skill} maneuver", resolving=resolving, args=args):
            return
    static_roll(draft, who, skill, difficulty, [ev.Modifier(s.skill(skill), skill.replace("_", " ").capitalize())])
    if ap:
        draft.emit(ev.StepsAwaited(steps=()))
        draft.hand_over()
