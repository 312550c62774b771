"""Magic in mythras: ``cast``, ``hold``, ``release`` and Counter Spell
(seed 001 "Cast Magic", "Hold Magic", "Counter Spell"). Queued as ``act:ACTION`` steps by
:func:`affray.rules.mythras.actions.act`.
"""

from __future__ import annotations

from msgspec.structs import replace

from affray.events import core as ev
from affray.events.mythras import MagicResolved
from affray.projections.state import Combatant
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.d100 import is_success
from affray.rules.mythras import conditions as cat
from affray.rules.mythras import tables
from affray.rules.mythras.core import at, done, grade_modifiers, resume, rulings_of, sheet_of, spend, test


def _spell(c: Combatant, name: str):
    spells = sheet_of(c).spells
    want = name.strip().lower()
    hits = [s for s in spells if s.name.lower() == want] or [s for s in spells if s.name.lower().startswith(want)]
    if len(hits) != 1:
        raise RuleError(f"{c.name} has no spell {name!r} (spells: {', '.join(s.name for s in spells) or 'none'})")
    return hits[0]


def cast(draft: Draft, who: str, arg: str) -> None:
    """Cast Magic: each Turn of the Casting Time costs an Action Point;
    once concluded, the magic can be released at any moment up to the
    caster's next Turn (seed 001 "Cast Magic")."""
    c = draft.state.combatants[who]
    casting = next((k for k in c.conditions if k.name == "casting"), None)
    if casting is not None and not arg:
        spell = sheet_of(c).spells[casting.effects.get("spell", 0)]
    else:
        spell = _spell(c, arg) if arg else None
        if spell is None:
            raise RuleError("cast needs a spell: 'affray act WHO cast:SPELL'")
        if casting is not None:
            draft.emit(ev.ConditionExpired(handle=who, condition_id=casting.id, reason="casting abandoned"))
            casting = None
    idx = sheet_of(c).spells.index(spell)
    spend(draft, who, f"cast {spell.name}")
    left = (casting.effects.get("left", 0) if casting is not None else spell.casting_time) - 1
    if left > 0:
        draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
            "casting", ends="event", effects={"spell": idx, "left": left},
            note=f"casting {spell.name}: {left} more Turn(s)", **at(draft))))
    else:
        if casting is not None:
            draft.emit(ev.ConditionExpired(handle=who, condition_id=casting.id, reason="casting concluded"))
        draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
            "spell-ready", ends="event", key=str(idx), effects={"spell": idx},
            note=f"{spell.name} ready to release", **at(draft))))
    done(draft)


def hold(draft: Draft, who: str, arg: str) -> None:
    """Hold Magic: keep a cast spell in check for another Turn (1 AP); it
    lets enemies use Counter Spell freely (seed 001 "Hold Magic")."""
    c = draft.state.combatants[who]
    cond = next((k for k in c.conditions if k.name == "spell-ready"), None)
    if cond is None:
        raise RuleError(f"{c.name} has no cast spell to hold")
    spend(draft, who, "hold magic")
    effects = {k: v for k, v in cond.effects.items() if k != "due"}
    draft.emit(ev.ConditionApplied(handle=who, condition=replace(
        cond, effects={**effects, "held": 1}, note=cond.note.split(";")[0] + "; held (Hold Magic)")))
    done(draft)


def release(draft: Draft, who: str, arg: str) -> None:
    """Release a cast spell (no further Action Point): the casting roll is
    made now; an enemy able to counter may answer (seed 001 "Cast Magic",
    "Hold Magic": the roll of a held spell is made when it is cast)."""
    state = draft.state
    c = state.combatants[who]
    cond = next((k for k in c.conditions if k.name == "spell-ready"), None)
    if cond is None:
        raise RuleError(f"{c.name} has no cast spell to release; cast one first with 'affray act {who} cast:SPELL'")
    if state.exchange is not None or any(s.kind not in ("turn", "end-round") for s in state.pending):
        raise RuleError("release the spell when no exchange is open (see 'affray pending')")
    spell = sheet_of(c).spells[cond.effects.get("spell", 0)]
    target = find_combatant(state, arg) if arg else ""
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=who, verb="roll", kind="cast", prompt=f"{c.name} releases {spell.name}: roll {spell.skill}",
        dice=(ev.DiceNeed(f"{c.name}: {spell.skill}", "1D100", by=who),),
        data={"cond": cond.id, "target": target, "held": cond.effects.get("held", 0),
              "resume": ",".join(s.who for s in state.pending if s.kind == "turn")}),) + tuple(state.pending)))


def roll_cast(draft: Draft, step: ev.PendingStep, rest) -> None:
    """The casting roll of a released spell; on a success a foe able to
    counter is asked first (seed 001 "Cast Magic", "Counter Spell")."""
    state = draft.state
    c = state.combatants[step.who]
    cond = next(k for k in c.conditions if k.id == step.data["cond"])
    spell = sheet_of(c).spells[cond.effects.get("spell", 0)]
    skill = sheet_of(c).skill(spell.skill)
    tested = test(draft, c, spell.skill, skill, f"cast {spell.name}", grade_modifiers(state, c, skill, (), "both", combat=False))
    draft.emit(ev.ConditionExpired(handle=c.handle, condition_id=cond.id, reason="released"))
    rest = tuple(_without_release(s, c.handle) for s in rest)
    target = str(step.data.get("target", ""))
    if not is_success(tested.result):
        draft.emit(MagicResolved(caster=c.handle, spell=spell.name, target=target, outcome="fails", effect=spell.effect))
        resume(draft, rest)
        return
    held = bool(step.data.get("held"))
    free = held and rulings_of(state).held_counter_cost == "free"
    counterers = [o for o in state.combatants.values() if o.side != c.side and o.can_fight
                  and (free or o.combat_actions > 0) and any(s.counter and s.casting_time == 1 for s in sheet_of(o).spells)]
    if counterers:
        o = counterers[0]
        draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
            who=o.handle, verb="choose", kind="counter-spell",
            prompt=f"{o.name}: counter {c.name}'s {spell.name} ({tested.roll} vs {tested.target}%)? counter | none"
                   + (" (free: the spell was held)" if free else " (1 AP)"),
            options=("counter", "none"),
            data={"caster": c.handle, "spell": spell.name, "effect": spell.effect, "target": target,
                  "roll": tested.roll, "skill": tested.target, "free": int(free)}),) + tuple(rest)))
        return
    draft.emit(MagicResolved(caster=c.handle, spell=spell.name, target=target, outcome="takes effect", effect=spell.effect))
    resume(draft, rest)


def _without_release(step: ev.PendingStep, who: str) -> ev.PendingStep:
    """``who``'s waiting turn step without ``release | hold``: the spell is
    released (the turn step was made while it was ready)."""
    if step.kind != "turn" or step.who != who or "release" not in step.options:
        return step
    options = tuple(o for o in step.options if o not in ("release", "hold"))
    return replace(step, options=options, prompt=step.prompt.replace("release | hold | ", ""))


def counter_choice(draft: Draft, step: ev.PendingStep, option: str) -> None:
    """Counter Spell (a Reaction, 1 AP; free against held magic): an
    opposed roll against the casting roll; success negates the whole spell
    (seed 001 "Counter Spell")."""
    state = draft.state
    rest = tuple(s for s in state.pending if s is not step)
    d = step.data
    if option == "none":
        draft.emit(MagicResolved(caster=str(d["caster"]), spell=str(d["spell"]), target=str(d["target"]),
                                 outcome="takes effect", effect=str(d["effect"])))
        resume(draft, rest)
        return
    o = state.combatants[step.who]
    spell = next(s for s in sheet_of(o).spells if s.counter and s.casting_time == 1)
    if not d.get("free"):
        draft.emit(ev.ActionSpent(handle=o.handle, kind="combat-action", reason=f"Counter Spell ({spell.name})"))
    draft.emit(ev.StepsAwaited(steps=(ev.PendingStep(
        who=o.handle, verb="roll", kind="counter-spell", prompt=f"{o.name} counters with {spell.name}: roll {spell.skill}",
        dice=(ev.DiceNeed(f"{o.name}: {spell.skill}", "1D100", by=o.handle),), data=dict(d)),) + rest))


def roll_counter_spell(draft: Draft, step: ev.PendingStep, rest) -> None:
    """Counter Spell's roll, opposed to the casting roll: won, the spell is
    negated; else it takes effect (seed 001 "Counter Spell")."""
    state = draft.state
    o = state.combatants[step.who]
    spell = next(s for s in sheet_of(o).spells if s.counter and s.casting_time == 1)
    skill = sheet_of(o).skill(spell.skill)
    t = test(draft, o, spell.skill, skill, f"counter with {spell.name}", grade_modifiers(state, o, skill, (), "both", combat=False))
    caster_level = tables.skill_test(int(step.data["roll"]), int(step.data["skill"]))
    won = tables.opposed_winner(t.result, t.roll, caster_level, int(step.data["roll"])) == "a"
    d = step.data
    draft.emit(MagicResolved(caster=str(d["caster"]), spell=str(d["spell"]), target=str(d["target"]),
                             outcome=f"countered by {o.name}" if won else "takes effect", effect=str(d["effect"])))
    resume(draft, rest)
