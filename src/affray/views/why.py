"""Asking the log questions: ``affray why`` and ``affray replay``.

Pure: every function here takes the records of one encounter (the whole
log, as ``store.read`` gives it) and, for ``why``, the state to explain; it
never touches the store and never rules (UX.md, "Asking the log questions").

``why(records, state, handle, subject)`` builds causal chains from the
present back to the attack:

- for a condition: its ``cause`` version → the event at that version → the
  exchange it belongs to (attack, reaction, damage, wound), newest first;
  a cause outside any exchange (an end-of-round Resilience re-test) is
  followed to the wound it tests;
- for a location: every ``DamageDealt`` to it, each with its exchange;
- with no subject: the combatant's status and each of its conditions.

Each link carries its rolls with their source ("engine roll #N" or "table
dice typed by sam") and its modifiers with their reasons; each chain lists
the named rulings in force that its events depended on.

``replay(records, round)`` is a round step by step: per live command its
step, actor, the command as issued, its readable lines and its rolls.

JSON shapes (stable)::

    why:    {"combatant", "name", "status", "subject", "headline",
             "chains": [{"kind": "status|condition|location", "subject",
                         "title", "since", "cause_version",
                         "links": [link], "rulings": [{"name", "value", "why"}]}]}
    link:   {"version", "command_id", "actor", "round", "step", "type",
             "text", "exchange", "rolls": [roll], "modifiers": [{"value", "reason"}]}
    roll:   {"version", "purpose", "expr", "faces", "total", "source",
             "index", "typed_by", "by", "text"}
    replay: {"round", "steps": [{"step", "command_id", "actor", "command",
             "lines": [str], "rolls": [roll]}]}
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.projections.state import Combatant, State
from affray.projections.timeline import Timeline
from affray.views.narrate import narrate, names_of

#: Events that are bookkeeping, never a link of a chain.
_QUIET = (
    ev.DiceRolled, ev.CommandIssued, ev.StepsAwaited, ev.TurnBegan, ev.ActionSpent,
    ev.ExchangeEnded, ev.EngagementChanged, ev.AttackResolved,
)


def roll_data(rec: Recorded) -> dict:
    """A ``DiceRolled`` record as a roll entry (see the module docstring)."""
    e = rec.event
    return {
        "version": rec.version,
        "purpose": e.purpose,
        "expr": e.expr,
        "faces": list(e.faces),
        "total": e.total,
        "source": e.source,
        "index": e.index,
        "typed_by": e.typed_by,
        "by": e.by,
        "text": roll_text(e),
    }


def roll_text(e: ev.DiceRolled) -> str:
    """``d100=58, engine roll #6`` or ``1D8+1D4=6+3=9, table dice typed by sam``."""
    expr = e.expr
    if len(e.faces) == 1 and expr.upper().startswith("1D") and expr[2:].isdigit():
        shown = f"d{expr[2:]}={e.total}"
    elif len(e.faces) > 1:
        shown = f"{expr}={'+'.join(str(f) for f in e.faces)}={e.total}"
    else:
        shown = f"{expr}={e.total}"
    if e.source == "engine":
        src = f"engine roll #{e.index}" if e.index >= 0 else "no dice"
    else:
        src = f"table dice typed by {e.typed_by or 'the GM'}"
    return f"{shown}, {src}"


@dataclass
class Link:
    """One step of a chain: an event with its rolls and modifiers."""

    rec: Recorded
    round: int
    step: int
    text: str
    exchange: int = 0
    rolls: list[Recorded] = field(default_factory=list)

    def data(self) -> dict:
        mods = getattr(self.rec.event, "modifiers", ()) or ()
        return {
            "version": self.rec.version,
            "command_id": self.rec.command_id,
            "actor": self.rec.actor,
            "round": self.round,
            "step": self.step,
            "type": self.rec.type or self.rec.event.__struct_config__.tag,
            "text": self.text,
            "exchange": self.exchange,
            "rolls": [roll_data(r) for r in self.rolls],
            "modifiers": [{"value": m.value, "reason": m.reason} for m in mods],
        }


@dataclass
class Chain:
    """A causal chain: ``links`` newest first."""

    kind: str
    subject: str
    title: str
    since: str = ""
    cause_version: int = 0
    links: list[Link] = field(default_factory=list)
    rulings: list[tuple[str, str, str]] = field(default_factory=list)

    def data(self) -> dict:
        return {
            "kind": self.kind,
            "subject": self.subject,
            "title": self.title,
            "since": self.since,
            "cause_version": self.cause_version,
            "links": [link.data() for link in self.links],
            "rulings": [{"name": n, "value": v, "why": w} for n, v, w in self.rulings],
        }


class LogIndex:
    """What ``why`` and ``replay`` need to know about the live log, in one
    pass: each live record's round, step, exchange and rolls."""

    def __init__(self, records: list[Recorded]):
        self.timeline = Timeline(records)
        self.names = names_of(records)
        self.live: list[Recorded] = []
        self.by_version: dict[int, Recorded] = {}
        self.where: dict[int, tuple[int, int]] = {}
        self.exchange_of: dict[int, int] = {}
        self.exchanges: dict[int, list[Recorded]] = {}
        self.commands: dict[str, list[Recorded]] = {}
        self.rolls_of: dict[int, list[Recorded]] = {}  # version of a link -> the rolls it used
        self.hp_after: dict[int, tuple[int, int]] = {}  # DamageDealt version -> (HP left, starting HP)
        hp: dict[tuple[str, str], list[int]] = {}
        rnd, step, last, current = 0, 0, None, 0
        pending: list[Recorded] = []
        for rec in self.timeline.live_records():
            e = rec.event
            if rec.command_id != last:
                step += 1
                last = rec.command_id
                pending = []
            if isinstance(e, ev.EncounterOpened):
                step = 0
            elif isinstance(e, ev.RoundStarted):
                rnd, step = e.round, 0
            elif isinstance(e, ev.AttackDeclared):
                current = e.exchange
            self.live.append(rec)
            self.by_version[rec.version] = rec
            self.where[rec.version] = (rnd, step)
            self.commands.setdefault(rec.command_id, []).append(rec)
            xid = getattr(e, "exchange", 0) or current
            if isinstance(e, ev.StepsAwaited):
                xid = current
            if xid:
                self.exchange_of[rec.version] = xid
                self.exchanges.setdefault(xid, []).append(rec)
            if isinstance(e, ev.ExchangeEnded) and e.exchange == current:
                current = 0
            if isinstance(e, ev.CombatantJoined):
                for loc in e.locations:
                    hp[(e.handle, loc.name)] = [loc.hp, loc.hp]
            elif isinstance(e, ev.DamageDealt) and (e.target, e.location) in hp:
                cell = hp[(e.target, e.location)]
                cell[0] -= e.final
                self.hp_after[rec.version] = (cell[0], cell[1])
            elif isinstance(e, ev.HitPointsRestored) and (e.handle, e.location) in hp:
                cell = hp[(e.handle, e.location)]
                cell[0] = min(cell[1], cell[0] + e.amount)
            if isinstance(e, ev.DiceRolled):
                if e.faces:
                    pending.append(rec)
            elif pending and not isinstance(e, _QUIET) and self.text(rec):
                self.rolls_of[rec.version] = pending
                pending = []

    def text(self, rec: Recorded) -> str:
        return narrate(rec.event, self.names)

    def link(self, rec: Recorded) -> Link:
        rnd, step = self.where.get(rec.version, (0, 0))
        return Link(
            rec=rec,
            round=rnd,
            step=step,
            text=self.text(rec),
            exchange=self.exchange_of.get(rec.version, 0),
            rolls=list(self.rolls_of.get(rec.version, ())),
        )

    def significant(self, recs: list[Recorded]) -> list[Recorded]:
        return [r for r in recs if not isinstance(r.event, _QUIET) and self.text(r)]


# --------------------------------------------------------------------------- #
# why
# --------------------------------------------------------------------------- #

_WOUND = re.compile(r"(?:Minor|Serious|Major) Wound to the ([a-z ]+)")

_RULING_WHY = {
    "reaction_attacker_roll": "which attack roll the reaction table reads; fresh = a new d100 after the reaction",
    "critical_on": "a critical is read off the modified skill, or the base one",
    "automatic_results": "01–05 always succeed and 96–00 always fail",
    "fumble_on_99": "a 99 is a fumble",
    "fumble_effect": "what a fumble costs",
    "major_wound_boundary": "where a Serious Wound becomes a Major one",
    "half_ap_rounding": "how half of an odd AP is rounded",
    "parried_critical_keeps_max": "a parried critical keeps its maximised damage",
    "knockback_after_parry": "knockback counts the damage after the parry",
    "overextended_applies_to": "who is Overextended by the table",
    "surprise_reactions": "when a surprised combatant may react",
}


def _rulings(ix: LogIndex, links: list[Link], rulings: dict[str, str]) -> list[tuple[str, str, str]]:
    wanted: list[str] = []
    for link in links:
        e = link.rec.event
        if isinstance(e, ev.ReactionResolved):
            wanted.append("reaction_attacker_roll")
            halves = e.effects.get("parry_ap_halves", 0)
            if halves and halves % 2:
                wanted.append("half_ap_rounding")
        elif isinstance(e, ev.SkillTested):
            if e.result == "critical":
                wanted.append("critical_on")
            if e.result == "fumble":
                wanted += ["fumble_on_99"] if e.roll == 99 else []
                wanted.append("fumble_effect")
            if e.roll <= 5 or e.roll >= 96:
                wanted.append("automatic_results")
        elif isinstance(e, ev.WoundInflicted) and e.severity in ("serious", "major"):
            hit = next(
                (
                    ix.hp_after[v]
                    for v in sorted(ix.hp_after, reverse=True)
                    if v < link.rec.version and ix.by_version[v].event.target == e.target
                    and ix.by_version[v].event.location == e.location
                ),
                None,
            )
            if hit is not None and hit[0] in (-hit[1], -hit[1] - 1):  # strict and inclusive part here
                wanted.append("major_wound_boundary")
        elif isinstance(e, ev.DamageDealt) and e.critical and e.reduced:
            wanted.append("parried_critical_keeps_max")
        elif isinstance(e, ev.CombatantMoved) and e.reason == "knockback":
            wanted.append("knockback_after_parry")
        elif isinstance(e, ev.ConditionApplied) and e.condition.name == "overextended":
            wanted.append("overextended_applies_to")
        elif isinstance(e, ev.ConditionApplied) and e.condition.name == "surprised":
            wanted.append("surprise_reactions")
    out = []
    for name in dict.fromkeys(wanted):
        if name in rulings:
            out.append((name, str(rulings[name]), _RULING_WHY.get(name, "")))
    return out


def _back_from(ix: LogIndex, cause: Recorded, handle: str, hint: str = "") -> list[Link]:
    """The links from ``cause`` back to the attack that began it: the cause
    itself (or, for a roll, the event that used it), then what came before
    it in its exchange, newest first. Other conditions applied or ended on
    the way are left out: they are not causes."""
    command = ix.commands.get(cause.command_id, [])
    anchor = cause
    if not ix.significant([cause]):
        anchor = next((r for r in ix.significant(command) if r.version >= cause.version), cause)
    xid = ix.exchange_of.get(anchor.version, 0)
    if xid:
        recs = [r for r in ix.exchanges[xid] if r.version < anchor.version]
        # a riposte opened its own exchange: show the parry that granted it too
        first = ix.exchanges[xid][0].event
        if isinstance(first, ev.AttackDeclared) and first.kind == "riposte":
            earlier = [x for x in ix.exchanges if x < xid]
            if earlier:
                start = ix.exchanges[xid][0].version
                recs = [r for r in ix.exchanges[max(earlier)] if r.version < start] + recs
    else:
        recs = [r for r in command if r.version < anchor.version]
    recs = [r for r in ix.significant(recs) if not isinstance(r.event, (ev.ConditionApplied, ev.ConditionExpired))]
    links = [ix.link(anchor)] + [ix.link(r) for r in reversed(recs)]
    if xid:
        return links
    # outside an exchange (an end-of-round re-test): follow the wound it tests
    found = _WOUND.search(hint) or next(
        (m for m in (_WOUND.search(getattr(r.event, "purpose", "") or "") for r in command) if m), None
    )
    if found:
        location = found.group(1)
        wound = next(
            (
                r
                for r in reversed(ix.live)
                if r.version < cause.version
                and isinstance(r.event, ev.WoundInflicted)
                and r.event.target == handle
                and r.event.location == location
            ),
            None,
        )
        if wound is not None:
            links += _back_from(ix, wound, handle)
    return links


def _cause_record(ix: LogIndex, handle: str, cond: ev.Condition) -> Recorded | None:
    rec = ix.by_version.get(cond.cause)
    if rec is not None:
        return rec
    # the cause is not live (or not recorded right): the event that applied it
    return next(
        (
            r
            for r in reversed(ix.live)
            if isinstance(r.event, ev.ConditionApplied) and r.event.handle == handle and r.event.condition.id == cond.id
        ),
        None,
    )


def _condition_chain(ix: LogIndex, state: State, c: Combatant, cond: ev.Condition) -> Chain:
    where = f" ({cond.location})" if cond.location and cond.location not in cond.id.split(":", 1)[0] else ""
    head = f"{c.name} is {cond.name.upper()}" if cond.name == "unconscious" else f"{c.name}: {cond.name}{where}"
    extra = []
    if cond.effects:
        signed = ("penalty", "reaction-bonus", "next-reaction")
        extra.append(
            ", ".join(
                f"{k} {v:+d}" if k in signed else (k if v == 1 and k != "lost-actions" else f"{k} {v}")
                for k, v in cond.effects.items()
            )
        )
    if cond.note:
        extra.append(cond.note)
    title = f"{head} since round {cond.since_round}, step {cond.since_step}" + (f" ({'; '.join(extra)})" if extra else "")
    chain = Chain("condition", cond.id, title, f"{cond.since_round}.{cond.since_step}", cond.cause)
    cause = _cause_record(ix, c.handle, cond)
    if cause is not None:
        chain.links = _back_from(ix, cause, c.handle, cond.note)
    chain.rulings = _rulings(ix, chain.links, state.rulings)
    return chain


def _status_chain(ix: LogIndex, state: State, c: Combatant) -> Chain | None:
    rec = next(
        (r for r in reversed(ix.live) if isinstance(r.event, ev.StatusChanged) and r.event.handle == c.handle),
        None,
    )
    if rec is None:
        return None
    rnd, step = ix.where.get(rec.version, (0, 0))
    title = f"{c.name} is {c.status.upper()} since round {rnd}, step {step}" + (
        f" ({rec.event.reason})" if rec.event.reason else ""
    )
    chain = Chain("status", c.status, title, f"{rnd}.{step}", rec.version)
    chain.links = _back_from(ix, rec, c.handle, rec.event.reason)
    chain.rulings = _rulings(ix, chain.links, state.rulings)
    return chain


def _location_chains(ix: LogIndex, state: State, c: Combatant, location: str) -> list[Chain]:
    chains = []
    hits = [r for r in ix.live if isinstance(r.event, ev.DamageDealt) and r.event.target == c.handle and r.event.location == location]
    for rec in reversed(hits):
        rnd, step = ix.where.get(rec.version, (0, 0))
        title = f"{rec.event.final} HP lost to the {location} in round {rnd}, step {step}"
        chain = Chain("location", location, title, f"{rnd}.{step}", rec.version)
        after = [
            r
            for r in ix.commands.get(rec.command_id, [])
            if r.version > rec.version and isinstance(r.event, ev.WoundInflicted)
            and r.event.target == c.handle and r.event.location == location
        ]
        chain.links = [ix.link(r) for r in after] + _back_from(ix, rec, c.handle)
        chain.rulings = _rulings(ix, chain.links, state.rulings)
        chains.append(chain)
    return chains


def _location_headline(c: Combatant, location: str, hits: int) -> str:
    loc = c.location(location)
    wound = f", {loc.wound} wound" if loc.wound else ""
    times = "never hit" if not hits else f"hit {hits} time{'s' if hits > 1 else ''}"
    return f"{c.name}'s {location}: {loc.hp}/{loc.max_hp} HP{wound}, {times}"


def _norm(text: str) -> str:
    return re.sub(r"[\s_-]+", " ", text.strip().lower())


def why(records: list[Recorded], state: State, handle: str, subject: str = "") -> dict:
    """The causal chains for ``handle`` (see the module docstring) as the
    documented JSON shape. Raises ``ValueError`` with one line when the
    subject is neither a location nor a condition of the combatant."""
    c = state.combatants.get(handle)
    if c is None:
        raise ValueError(f"no combatant {handle!r} in this encounter")
    ix = LogIndex(records)
    chains: list[Chain] = []
    headline = ""
    wanted = _norm(subject)
    if wanted:
        locs = [loc.name for loc in c.locations if _norm(loc.name) == wanted]
        conds = [x for x in c.conditions if _norm(x.id) == wanted or _norm(x.name) == wanted]
        if locs:
            chains = _location_chains(ix, state, c, locs[0])
            headline = _location_headline(c, locs[0], len(chains))
        elif conds:
            chains = [_condition_chain(ix, state, c, x) for x in conds]
        elif wanted == c.status and c.status != "active":
            found = _status_chain(ix, state, c)
            chains = [found] if found else []
        else:
            names = ", ".join(loc.name for loc in c.locations)
            now = ", ".join(x.id for x in c.conditions) or "none"
            raise ValueError(
                f"{c.name} has no location or condition called {subject!r} (locations: {names}; conditions now: {now})"
            )
    else:
        covered = c.status == "unconscious" and c.has("unconscious")
        if c.status != "active" and not covered:
            found = _status_chain(ix, state, c)
            if found:
                chains.append(found)
        first = sorted(c.conditions, key=lambda x: x.name != "unconscious")  # the headline first
        chains += [_condition_chain(ix, state, c, x) for x in first]
    return {
        "combatant": c.handle,
        "name": c.name,
        "status": c.status,
        "subject": subject,
        "headline": headline,
        "chains": [ch.data() for ch in chains],
    }


def why_lines(data: dict, state: State | None = None) -> list[str]:
    """The human view of :func:`why` (UX.md's example shape)."""
    lines: list[str] = [data["headline"]] if data.get("headline") else []
    if not data["chains"] and not lines:
        lines.append(f"{data['name']} is {data['status']}, with no conditions.")
        if state is not None:
            c = state.combatants[data["combatant"]]
            hurt = [f"{loc.name} {loc.hp}/{loc.max_hp}" for loc in c.locations if loc.hp < loc.max_hp]
            if hurt:
                lines.append(f"  Hurt: {', '.join(hurt)}; ask 'affray why {c.handle} LOCATION'.")
        return lines
    for chain in data["chains"]:
        lines.append(chain["title"])
        for link in chain["links"]:
            rolls = "; ".join(r["text"] for r in link["rolls"])
            where = f"round {link['round']}, step {link['step']}, {link['command_id']} by {link['actor']}"
            lines.append(f"  ← {link['text']}" + (f"  [{rolls}]" if rolls else "") + f"  ({where})")
        if chain["rulings"]:
            lines.append(
                "  rulings: " + "; ".join(f"{r['name']}={r['value']} ({r['why']})" if r["why"] else f"{r['name']}={r['value']}" for r in chain["rulings"])
            )
    return lines


# --------------------------------------------------------------------------- #
# replay
# --------------------------------------------------------------------------- #


def replay(records: list[Recorded], round_no: int) -> dict:
    """Round ``round_no`` step by step (the documented JSON shape). A
    command that starts the round (its strike ranks) is its step 0, and it
    also closes the round before. Raises ``ValueError`` with one line when
    the live timeline has no such round."""
    from affray.commands.travel import command_points, command_text

    ix = LogIndex(records)
    points = command_points(records, ix.timeline)
    rounds = sorted({p.start[0] for p in points} | {p.end[0] for p in points})
    chosen = [p for p in points if p.start[0] == round_no or p.end == (round_no, 0)]
    if not chosen or round_no not in rounds:
        shown = f"{rounds[0]}–{rounds[-1]}" if rounds else "none yet"
        raise ValueError(f"the live timeline has no round {round_no} (rounds: {shown}); 'affray log' shows the fight")
    steps = []
    for p in chosen:
        step = 0 if p.end == (round_no, 0) else p.start[1]
        lines = [ix.text(r) for r in p.records if not isinstance(r.event, ev.DiceRolled) and ix.text(r)]
        rolls = [roll_data(r) for r in p.records if isinstance(r.event, ev.DiceRolled) and r.event.faces]
        steps.append(
            {
                "step": step,
                "command_id": p.command_id,
                "actor": p.actor,
                "command": command_text(p.issued.command, p.issued.dice) if p.issued is not None else p.kind,
                "lines": lines,
                "rolls": rolls,
            }
        )
    return {"round": round_no, "steps": steps}


def replay_lines(data: dict) -> list[str]:
    """The human view of :func:`replay`."""
    out = [f"Round {data['round']}"]
    for s in data["steps"]:
        out.append(f"{data['round']}.{s['step']}  {s['command_id']}  {s['actor']}: {s['command']}")
        out += [f"    {line}" for line in s["lines"]]
        out += [f"    roll: {r['text']} for {r['purpose']}" for r in s["rolls"]]
    return out
