"""``affray hero WHO second-chance``: a Hero Point re-roll (seed 004 "Hero
Points", Second Chance) as two appends: an undo of the newest command
(``CommandRetracted``, the old roll stays in the log, struck through) and a
``SpendHeroPoint`` that decides that command again with the chosen roll
re-rolled; the new roll's ``supersedes`` names the old one.

Without ``--roll`` the roll re-rolled is the character's own failed roll
of that command (seed 004 "Hero Points": Second Chance, "A character can
re-roll any dice roll that affects his character. This can be a skill
test, damage roll or anything else"; a player spends it on the roll he
failed): the newest roll he made whose test failed or fumbled, else the
newest roll he made, else the newest roll that names him. Only that roll is
rolled anew: with table dice, the dice rolled after it in the command are
typed again as they were (the attacker's fresh roll against a dodge keeps
its value), after any values given with ``--dice``; with engine dice, the
engine draws them.

Both are checked before anything is appended, so a refusal (no Hero Point
left, a roll that does not affect the character, missing table dice)
appends nothing. The other uses (glancing-blow, luck) are plain commands.
"""

from __future__ import annotations

import msgspec

from affray import dice as dicelib
from affray.events import commands as cmd
from affray.events import core as ev
from affray.projections.timeline import Timeline, fold
from affray.projections.state import State
from affray.commands.handler import execute
from affray.commands.lookup import resolve_encounter
from affray.commands.points import command_points, decide_only
from affray.rules.base import RuleError, find_combatant

REASON = "Hero Point: Second Chance"


def _affects(batch, who: str, rolled: ev.DiceRolled) -> bool:
    """A roll affects ``who`` if it is his, or if his command batch names
    him (as target, defender or tested character)."""
    if rolled.by == who:
        return True
    return any(getattr(r.event, f, None) == who for r in batch for f in ("target", "handle", "defender"))


def _failed(batch, rolled_version: int, who: str) -> bool:
    """Whether the roll at ``rolled_version`` is ``who``'s failed test: the
    first ``SkillTested`` after it in ``batch`` is his, on that roll, and a
    failure or fumble."""
    after = [r.event for r in batch if r.version > rolled_version and isinstance(r.event, ev.SkillTested)]
    return bool(after) and after[0].handle == who and after[0].result in ("failure", "fumble")


def default_roll(batch, rolls, who: str):
    """The roll a Second Chance re-rolls when none is named: ``who``'s own
    failed roll (newest first), else his own newest roll, else the newest
    roll affecting him; ``None`` when none affects him."""
    own = [r for r in rolls if r.event.by == who]
    failed = [r for r in own if _failed(batch, r.version, who)]
    mine = [r for r in rolls if _affects(batch, who, r.event)]
    for pick in (failed, own, mine):
        if pick:
            return pick[-1]
    return None


def second_chance(store, who: str, *, roll: int = 0, dice: str = "", encounter_id: str | None = None, actor: str = ""):
    """Re-roll roll ``roll`` (a version; default: :func:`default_roll`, the
    character's own failed roll) of the newest live fight command. Returns
    the spend's Outcome."""
    eid = resolve_encounter(store, encounter_id)
    records = list(store.read(eid))
    tl = Timeline(records)
    head = fold(State(), tl.live_records())
    handle = find_combatant(head, who)
    points = command_points(records, tl)
    p = points[-1] if points else None
    if p is None or p.issued is None or p.kind in ("open", "join", "branch", "hero"):
        raise RuleError("a Second Chance re-rolls a roll of the newest fight command, and there is none to re-roll")
    rolls = [r for r in p.records if isinstance(r.event, ev.DiceRolled)]
    mine = [r for r in rolls if _affects(p.records, handle, r.event)]
    if roll:
        chosen = next((r for r in rolls if r.version == roll), None)
        if chosen is None or chosen not in mine:
            raise RuleError(f"version {roll} is not a roll of the newest command that affects {head.combatants[handle].name}")
    elif mine:
        chosen = default_roll(p.records, rolls, handle)
    else:
        raise RuleError(f"the newest command ({p.kind}) rolled nothing that affects {head.combatants[handle].name}")
    position = rolls.index(chosen)
    before = [r.event for r in rolls[:position] if r.event.faces]
    sources = {e.source for e in before}
    typed = dicelib.parse_values(dice) if dice.strip() else []
    seed = store.get_seed(eid)
    manual = head.manual_dice or seed is None
    kept: list[str] = []  # the dice after it, as typed then (table dice only)
    if "table" in sources or manual:
        if "engine" in sources:
            raise RuleError(f"{p.command_id} mixes engine and table dice before that roll; amend it instead")
        values = [str(f) for e in before for f in e.faces] + typed  # the dice before it, as typed then
        later = [r.event for r in rolls[position + 1:] if r.event.faces]
        if all(e.source == "table" for e in later):
            kept = [str(f) for e in later for f in e.faces]
    else:
        values = typed  # the engine re-derives the dice before it
    spend = cmd.SpendHeroPoint(
        who=handle, option="second-chance", roll=chosen.version, position=position, redo=dict(p.issued.command)
    )
    # the state once the newest command is retracted: check the spend first
    base = fold(State(), (r for r in tl.live_records() if r.command_id != p.command_id))
    base = msgspec.structs.replace(base, version=head.version + 1)
    def check(values: list[str]) -> None:  # the engine as execute will roll: with the salts
        decide_only(base, spend, values, seed=seed, stream=base.dice_stream or eid, manual=manual, actor=actor,
                    reroll=REASON, salts=tuple(store.salts(eid)))

    try:
        check(values + kept)
        values = values + kept
    except dicelib.TooManyDice as exc:
        if not kept or len(exc.used) < len(values):
            raise
        values = values + kept[: len(exc.used) - len(values)]  # the re-decided command needs fewer of them
        check(values)
    execute(store, cmd.Undo(), encounter_id=eid, actor=actor)
    return execute(store, spend, encounter_id=eid, dice=",".join(values), actor=actor, reroll=REASON)
