"""The other actions of a turn (RMH tactical action table, the round
structure seed 000 implies): ``pass`` (ends the combatant's actions this
round), ``stand`` (prone to standing, 1 Action Point: seed 000 "Staggered
or Prone"), ``draw WEAPON`` (1 Action Point, RMH "Draw weapon"),
``reload [WEAPON]`` (a missile weapon's ``reload`` Action Points, RMH
"Ammo reload"; more than are left this round carry over to the next, RMH
"Round to Round Actions")."""

from __future__ import annotations

from affray.events import core as ev
from affray.rules.base import Draft, RuleError
from affray.rules.rolemaster import conditions as cat
from affray.rules.rolemaster import core, tables


def act_pass(draft: Draft, who: str, args: tuple[str, ...]) -> None:
    """Give up the rest of the round's Action Points."""
    core.own_turn(draft.state, who)
    c = draft.state.combatants[who]
    core.spend(draft, who, c.combat_actions, "pass")
    draft.emit(ev.StepsAwaited(steps=()))
    draft.hand_over()


def act_stand(draft: Draft, who: str, args: tuple[str, ...], resolving: bool = False) -> None:
    """Stand up from prone: "a 1 Action Point action" (seed 000), resolved
    when the AP is spent (ruling ``resolution``)."""

    def check():
        core.own_turn(draft.state, who)
        c = draft.state.combatants[who]
        if c.stance != "prone":
            raise RuleError(f"{c.name} is not prone")
        if c.combat_actions < 1:
            raise RuleError(f"{c.name} has no Action Points left to stand up with")
        return c

    if core.attempt(draft, who, resolving, check) is None:
        return
    if not core.proceed(draft, who, 1, "act:stand", "stand up", resolving=resolving, args=args):
        return
    draft.emit(ev.StanceChanged(handle=who, stance="standing", reason="stands up (1 AP)"))
    draft.emit(ev.StepsAwaited(steps=()))
    draft.hand_over()


def _weapon_named(c, args: tuple[str, ...]):
    try:
        return core.sheet_of(c).weapon(" ".join(args))
    except ValueError as exc:
        raise RuleError(str(exc)) from None


def act_draw(draft: Draft, who: str, args: tuple[str, ...], resolving: bool = False) -> None:
    """Draw or pick up a weapon of the sheet (1 Action Point, RMH),
    resolved when the AP is spent (ruling ``resolution``)."""

    def check():
        core.own_turn(draft.state, who)
        c = draft.state.combatants[who]
        if not args:
            raise RuleError(f"name the weapon: 'affray act {who} draw WEAPON'")
        w = _weapon_named(c, args)
        if w.name in c.ready:
            raise RuleError(f"{c.name} already holds {w.name}")
        if c.combat_actions < 1:
            raise RuleError(f"{c.name} has no Action Points left to draw {w.name} with")
        return w

    w = core.attempt(draft, who, resolving, check)
    if w is None or not core.proceed(draft, who, 1, "act:draw", f"draw {w.name}", resolving=resolving, args=args):
        return
    draft.emit(ev.WeaponReadied(handle=who, weapon=w.name))
    draft.emit(ev.StepsAwaited(steps=()))
    draft.hand_over()


def act_reload(draft: Draft, who: str, args: tuple[str, ...], resolving: bool = False) -> None:
    """Reload a held missile weapon: spend its ``reload`` Action Points, as
    many as are left this round; the rest carry over (RMH). Resolved when
    those AP are spent (ruling ``resolution``)."""

    def check():
        core.own_turn(draft.state, who)
        c = draft.state.combatants[who]
        if args:
            w = _weapon_named(c, args)
        else:
            w = next((w for w in core.held(c) if w.kind == "missile" and core.unloaded(c, w.name) is not None), None)
            if w is None:
                raise RuleError(f"{c.name} holds no missile weapon that needs reloading")
        if core.unloaded(c, w.name) is None:
            raise RuleError(f"{c.name}'s {w.name} is loaded")
        if w.name not in c.ready:
            raise RuleError(f"{c.name} does not hold {w.name}; 'affray act {who} draw {w.name}'")
        return w

    w = core.attempt(draft, who, resolving, check)
    if w is None:
        return
    c = draft.state.combatants[who]
    cond = core.unloaded(c, w.name)
    left = cond.effects.get("reload-left", 0)
    step = min(left, c.combat_actions)
    if not core.proceed(draft, who, step, "act:reload", f"reload {w.name}", resolving=resolving, args=(w.name,)):
        return
    if step >= left:
        draft.emit(ev.ConditionExpired(handle=who, condition_id=cond.id, reason=f"{w.name} reloaded"))
    else:
        core.mark_unloaded(draft, who, w, left - step)
    draft.emit(ev.StepsAwaited(steps=()))
    draft.hand_over()


def act_terrain(draft: Draft, who: str, args: tuple[str, ...]) -> None:
    """``affray act WHO terrain KIND|clear``: the GM sets the ground under
    ``who`` (no Action Points, at any time in a round): an RMH terrain
    (``ob-db-modifiers.md`` "Terrain Condition": its OB modifier, the
    Quickness part of DB halved or lost) or a terrain of the knockback
    table (what a knock-back into it adds, seed 000 "Knocked Back")."""
    state = draft.state
    if state.phase != "round":
        raise RuleError("no round is in progress; set the terrain once the fight has begun")
    c = state.combatants[who]
    kind = " ".join(args).strip().lower()
    old = core.terrain_of(c)
    if kind == "clear":
        if old is None:
            raise RuleError(f"{c.name} stands on no terrain the GM set")
        draft.emit(ev.ConditionExpired(handle=who, condition_id=old.id, reason="the GM cleared the terrain"))
        return
    name = core.rulings_of(state).knockback_table
    knock = core.table(state, c, name, tables.KnockbackTable).terrain if name else {}
    known = list(tables.TERRAIN) + [k for k in knock if k not in tables.TERRAIN]
    if kind not in known:
        raise RuleError(f"unknown terrain {kind!r}; use one of {', '.join(known)} or clear (RMH terrain; ruling knockback_table)")
    effects = {f"terrain:{kind}": 1}
    rmh = tables.TERRAIN.get(kind)
    if rmh is not None:
        if rmh.ob:
            effects["terrain-ob"] = rmh.ob
        if rmh.quickness == "half":
            effects["terrain-qu-half"] = 1
        elif rmh.quickness == "none":
            effects["terrain-qu-none"] = 1
    draft.emit(ev.ConditionApplied(handle=who, condition=cat.make(
        "footing", cause=draft.next_version, round=state.round, step=state.step, ends="never",
        effects=effects, note=f"terrain {kind}")))
