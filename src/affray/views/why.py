"""Asking the log questions: ``affray why`` (and the JSON shape of ``affray
replay``, built in :mod:`affray.views.round_replay`; the log index both use
is :mod:`affray.views.log_index`).

Every function here takes the records of one encounter (the whole log, as
``store.read`` gives it) and, for ``why``, the state to explain, and never
rules (UX.md, "Asking the log questions"). ``why_store(store, encounter_id,
state, handle, subject)`` gives the same answer as ``why`` without reading
the whole log (``affray why`` uses it): it reads the meta events and the
names through the type index, then only small windows of the log around the
events the chains go through (:class:`StoreIndex`), so its cost does not
grow with the length of the fight.

``why(records, state, handle, subject)`` builds causal chains from the
present back to the attack:

- for a condition: its ``cause`` version → the event at that version → the
  exchange it belongs to (attack, reaction, damage, wound), newest first;
  a cause outside any exchange (an end-of-round Resilience re-test) is
  followed to the wound it tests;
- for a location: every ``DamageDealt`` to it, each with its exchange;
- with no subject: the combatant's status and each of its conditions;
- the GM's rulings on the combatant (``affray set``, ``heal``, ``out``) as
  chains of kind ``ruling``, each with the GM's reason, with the location
  they touch or with no subject.

Each link carries its rolls with their source ("engine roll #N" or "table
dice typed by sam") and its modifiers with their reasons; each chain lists
the named rulings in force that its events depended on.

``replay(records, round)`` is a round step by step: per live command its
step, actor, the command as issued, its readable lines and its rolls.

JSON shapes (stable)::

    why:    {"combatant", "name", "status", "subject", "headline",
             "chains": [{"kind": "status|condition|location|ruling", "subject",
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

import msgspec

from affray.events import core as ev
from affray.events import uesrpg as ev_ues
from affray.events import rolemaster as ev_rm
from affray.events.envelope import Recorded
from affray.projections.state import Combatant, State

from affray.views.log_index import Link, LogIndex, StoreIndex


class Chain(msgspec.Struct):
    """A causal chain: ``links`` newest first."""

    kind: str
    subject: str
    title: str
    since: str = ""
    cause_version: int = 0
    links: list[Link] = msgspec.field(default_factory=list)
    rulings: list[tuple[str, str, str]] = msgspec.field(default_factory=list)

    def data(self) -> dict:
        return {
            "kind": self.kind,
            "subject": self.subject,
            "title": self.title,
            "since": self.since,
            "cause_version": self.cause_version,
            "links": [_with_lookup(link) for link in self.links],
            "rulings": [{"name": n, "value": v, "why": w} for n, v, w in self.rulings],
        }


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
    # uesrpg (seed 003; rules-reference.md D rulings)
    "parry_evade_tie": "both pass a Parry or Evade with equal DoS: the defence holds, or the attack hits",
    "critical_vs_block": "a critical against a Block: the block holds (its Advantage gained), or the critical hits",
    "advantage_count": "a critical against a failure gives two Advantages in all, not three",
    "roll_100_over_tn": "a 100 on a TN above 100 fails unless Lucky",
    "hit_location": "the location comes from the ones digit of the roll that resolved the hit, or a d10",
    "partial_armour": "partial armour counts half its AR",
}


def _rulings(ix: LogIndex, links: list[Link], rulings: dict[str, str]) -> list[tuple[str, str, str]]:
    wanted: list[str] = []
    at: dict[str, int] = {}  # ruling -> the version of the newest event that depended on it
    for link in links:
        count = len(wanted)
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
            hit = ix.last_hit(link.rec.version, e.target, e.location)
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
        elif isinstance(e, ev_ues.CombatRollResolved):
            wanted += _ues_rulings(e)
        elif isinstance(e, ev.DamageDealt) and e.location == "HP" and "; " in e.note:  # uesrpg's pool
            wanted += ["hit_location"] + (["partial_armour"] if "partial" in e.note else [])
        for name in wanted[count:]:
            at.setdefault(name, link.rec.version)
    out = []
    for name in dict.fromkeys(wanted):
        if name in rulings:
            value, why = str(rulings[name]), _RULING_WHY.get(name, "")
            changed = _ruling_in_force(ix, name, at.get(name, 0))
            if changed is not None:
                value, note = changed
                why = f"{why}; {note}" if why else note
            out.append((name, value, why))
    return out


def _ruling_in_force(ix: LogIndex, name: str, version: int) -> tuple[str, str] | None:
    """``(value, note)`` of ruling ``name`` at ``version`` when the GM
    changed it during the fight (``affray ruling``), else None: the newest
    change before ``version``, or the value the first change after it
    replaced."""
    if not version:
        return None
    rec = ix.newest(ev.RulingChanged, lambda e: e.name == name, before=version, key=("name", name))
    if rec is not None:
        return rec.event.value, f"the GM's ruling at v{rec.version}: {rec.event.reason}"
    later = ix.every(ev.RulingChanged, lambda e: e.name == name, key=("name", name))
    after = [r for r in later if r.version > version]
    if after:
        return after[0].event.was, f"before the GM changed it at v{after[0].version}"
    return None


def _ues_rulings(e) -> list[str]:
    """The uesrpg rulings a combat roll depended on (seed 003 Step 3)."""
    out = []
    passed = ("critical", "success")
    both = e.attack_result in passed and e.defence_result in passed
    if both and e.row in ("attack-vs-parry", "attack-vs-evade") and e.attack_degrees == e.defence_degrees:
        out.append("parry_evade_tie")
    if e.row == "attack-vs-block" and e.attack_result == "critical":
        out.append("critical_vs_block")
    if e.advantages == 2:
        out.append("advantage_count")
    if 100 in (e.attack_roll, e.defence_roll) and max(e.attack_tn, e.defence_tn) > 100:
        out.append("roll_100_over_tn")
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
        wound = ix.newest(
            ev.WoundInflicted,
            lambda e: e.target == handle and e.location == location,
            before=cause.version,
            key=("target", handle),
        )
        if wound is not None:
            links += _back_from(ix, wound, handle)
    return links


def _cause_record(ix: LogIndex, handle: str, cond: ev.Condition) -> Recorded | None:
    if cond.cause > 0:
        ix.ensure(cond.cause)
    rec = ix.by_version.get(cond.cause)
    if rec is not None:
        return rec
    # the cause is not live (or not recorded right): the event that applied it
    return ix.newest(
        ev.ConditionApplied,
        lambda e: e.handle == handle and e.condition.id == cond.id,
        key=("handle", handle),
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
    rec = ix.newest(ev.StatusChanged, lambda e: e.handle == c.handle, key=("handle", c.handle))
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
    hits = ix.every(
        ev.DamageDealt, lambda e: e.target == c.handle and e.location == location, key=("target", c.handle)
    )
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


def _ruling_chains(ix: LogIndex, c: Combatant, location: str = "") -> list[Chain]:
    """The GM's rulings on ``c`` (on its ``location`` only, when given),
    newest first: HP set or restored, put out of the fight. Each is its own
    chain of kind ``ruling``, with the GM's reason in its title."""
    found = ix.every(ev.HitPointsSet, lambda e: e.handle == c.handle and (not location or e.location == location),
                     key=("handle", c.handle))
    if not location:
        found += ix.every(ev.CombatantOut, lambda e: e.handle == c.handle, key=("handle", c.handle))
    chains = []
    for rec in sorted(found, key=lambda r: r.version, reverse=True):
        rnd, step = ix.where.get(rec.version, (0, 0))
        e = rec.event
        what = f"{e.location} set to {e.hp} HP" if isinstance(e, ev.HitPointsSet) else f"out of the fight, {e.how}"
        title = f"GM ruling in round {rnd}, step {step}: {what} ({e.reason})"
        chain = Chain("ruling", e.location if isinstance(e, ev.HitPointsSet) else e.how, title, f"{rnd}.{step}", rec.version)
        chain.links = [ix.link(rec)]
        chains.append(chain)
    return chains


def _location_headline(c: Combatant, location: str, hits: int) -> str:
    loc = c.location(location)
    wound = f", {loc.wound} wound" if loc.wound else ""
    times = "never hit" if not hits else f"hit {hits} time{'s' if hits > 1 else ''}"
    if not loc.max_hp:  # a location without HP of its own (uesrpg: the HP are one pool; AR here)
        return f"{c.name}'s {location}: AR {loc.ap}{', wounded' if loc.wound else ''}; every blow is under 'why {c.handle} HP'"
    return f"{c.name}'s {location}: {loc.hp}/{loc.max_hp} HP{wound}, {times}"


def _norm(text: str) -> str:
    return re.sub(r"[\s_-]+", " ", text.strip().lower())


def why(records: list[Recorded], state: State, handle: str, subject: str = "") -> dict:
    """The causal chains for ``handle`` (see the module docstring) as the
    documented JSON shape. Raises ``ValueError`` with one line when the
    subject is neither a location nor a condition of the combatant."""
    if handle not in state.combatants:
        raise ValueError(f"no combatant {handle!r} in this encounter")
    return _why(LogIndex(records), state, handle, subject)


def why_store(store, encounter_id: str, state: State, handle: str, subject: str = "") -> dict:
    """:func:`why` for an encounter of ``store``, without reading the whole
    log (:class:`StoreIndex`): from a condition's ``cause`` version, the
    windows of the log around it and around the events the chain leads to.
    The same answer as ``why(list(store.read(encounter_id)), ...)``."""
    if handle not in state.combatants:
        raise ValueError(f"no combatant {handle!r} in this encounter")
    return _why(StoreIndex(store, encounter_id), state, handle, subject)


def _why(ix: LogIndex, state: State, handle: str, subject: str) -> dict:
    c = state.combatants[handle]
    chains: list[Chain] = []
    headline = ""
    wanted = _norm(subject)
    if wanted:
        locs = [loc.name for loc in c.locations if _norm(loc.name) == wanted]
        conds = [x for x in c.conditions if _norm(x.id) == wanted or _norm(x.name) == wanted]
        if locs:
            chains = _location_chains(ix, state, c, locs[0])
            headline = _location_headline(c, locs[0], len(chains))
            chains = _ruling_chains(ix, c, locs[0]) + chains
        elif conds:
            chains = [_condition_chain(ix, state, c, x) for x in conds]
        elif wanted == c.status and c.status != "active":
            found = _status_chain(ix, state, c)
            chains = [found] if found else []
            outs = [x for x in _ruling_chains(ix, c) if x.subject in ("fled", "surrendered", "removed", "dead")]
            chains = outs[:1] + chains
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
        chains += _ruling_chains(ix, c)
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
            lines += [f"      {x}" for x in lookup_lines(link.get("lookup"))]
        if chain["rulings"]:
            lines.append(
                "  rulings: " + "; ".join(f"{r['name']}={r['value']} ({r['why']})" if r["why"] else f"{r['name']}={r['value']}" for r in chain["rulings"])
            )
    return lines


# --------------------------------------------------------------------------- #
# rolemaster: the table lookups behind a result, in full (issue 13)
# --------------------------------------------------------------------------- #


def _with_lookup(link: Link) -> dict:
    """``link.data()``, with ``"lookup"`` added for a rolemaster table
    lookup (attack, critical, fumble, maneuver, and a knock-back's terrain,
    a charge, an F critical's split): every figure the result was read
    from. JSON shape: ``{"kind": "attack|critical|fumble|maneuver|terrain|charge|split",
    ...the event's fields...}``."""
    data = link.data()
    e = link.rec.event
    kinds = {ev_rm.AttackLookedUp: "attack", ev_rm.CriticalLookedUp: "critical",
             ev_rm.FumbleLookedUp: "fumble", ev_rm.ManeuverResolved: "maneuver",
             ev_rm.TerrainLookedUp: "terrain", ev_rm.ChargeLanded: "charge", ev_rm.CriticalSplit: "split"}
    kind = kinds.get(type(e))
    if kind is not None:
        data["lookup"] = {"kind": kind, **msgspec.to_builtins(e)}
    return data


def _parts(parts: list[dict]) -> str:
    return ", ".join(f"{p['value']:+d} {p['reason']}" for p in parts) or "none"


def lookup_lines(lookup: dict | None) -> list[str]:
    """The human lines of a rolemaster lookup: roll, OB, DB with its parts,
    table, row, column, cell; or the critical roll, table, column, effects."""
    if not lookup:
        return []
    k = lookup["kind"]
    if k == "attack":
        dice = " + ".join(f"{d:02d}" for d in lookup["dice"])
        fr = lookup["fumble_range"]
        out = [f"roll: {dice} = {lookup['roll']} (open-ended; first die {lookup['first']:02d}, fumble range {fr[0]}-{fr[1]})"]
        if lookup["fumble"]:
            return out + [f"fumble: the first die is within {fr[0]}-{fr[1]}; the attack ends (table {lookup['table']})"]
        sha = f" sha256 {lookup['table_sha256'][:12]}" if lookup.get("table_sha256") else ""
        capped = f", read as {lookup['read']}" if lookup["read"] != lookup["total"] else ""
        crit = f" + {lookup['severity']} critical ({lookup['crit_type']})" if lookup["severity"] else ""
        return out + [
            f"OB {lookup['ob']:+d}: {_parts(lookup['ob_parts'])}",
            f"DB {lookup['db']}: {_parts(lookup['db_parts'])}",
            f"total {lookup['roll']} {lookup['ob']:+d} −{lookup['db']} = {lookup['total']}{capped}",
            f"table {lookup['table']}{sha}: row {lookup['row_low']}..{lookup['row_high']}, column {lookup['column']}, "
            f"cell {lookup['cell']} → {lookup['hits']} hits{crit}",
        ]
    effects = ", ".join(f"{n} {v}" if v != 1 else n for n, v in lookup.get("effects", {}).items()) or "none"
    if k == "critical":
        return [f"critical roll {lookup['roll']:02d} (closed) on {lookup['table']} ({lookup['crit_type']}), "
                f"column {lookup['severity']}, row {lookup['row_low']}..{lookup['row_high']}",
                f"text: {lookup['text']}", f"effects: {effects}"]
    if k == "terrain":
        sha = f" sha256 {lookup['table_sha256'][:12]}" if lookup.get("table_sha256") else ""
        return [f"knock-back into {lookup['terrain']}: table {lookup['table']}{sha}", f"text: {lookup['text']}",
                f"effects: {effects}"]
    if k == "charge":
        return [f"charge at {lookup['speed']} m/s: {lookup['hits_from']} hits -> {lookup['hits']}, "
                f"critical {lookup['severity_from'] or 'none'} -> {lookup['severity'] or 'none'}"]
    if k == "split":
        return [f"{lookup['severity']} critical: {lookup['table']} has no {lookup['severity']} column, "
                f"read as {' + '.join(lookup['parts'])} (ruling severity_f)"]
    if k == "fumble":
        return [f"fumble roll {lookup['roll']:02d} (closed) on {lookup['table']}, row {lookup['row_low']}..{lookup['row_high']}",
                f"text: {lookup['text']}", f"effects: {effects}"]
    dice = " + ".join(f"{d:02d}" for d in lookup["dice"])
    where = {"bottom": " (off the bottom: a fumble)", "top": " (off the top: the column's best)"}.get(lookup["where"], "")
    low = "" if lookup["row_low"] is None else lookup["row_low"]
    high = "" if lookup["row_high"] is None else lookup["row_high"]
    said = [x for x in (lookup["outcome"], f"value {lookup['value']}" if lookup["value"] else "", lookup["unusual"]) if x]
    shown = {k: v for k, v in (lookup.get("effects") or {}).items() if k != "value"}
    return [f"{lookup['maneuver']}: roll {dice} = {lookup['roll']}; {_parts(lookup['parts'])}; total {lookup['total']}",
            f"table {lookup['table']}, column {lookup['column']}, row {low}..{high}{where}: {'; '.join(said) or 'no result'}"]\
        + ([f"effects: {effects}"] if shown else [])
