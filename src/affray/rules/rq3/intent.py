"""Statement of Intent and its aborts (seed 002 "1) STATEMENT OF INTENT",
"ALTERING STATEMENT OF INTENT").

``affray act WHO "intent TYPE ACTION... [brace]"``: TYPE is ``triple``
(triple move, no melee actions), ``double`` (double move, one melee action,
+3 SR) or ``single`` (single move, two melee actions). Each ACTION is
``KIND:FIELD:FIELD...`` with KIND from the seed's list of nine:

- ``attack:TARGET:WEAPON:MODE`` (MODE slash, crush, impale, or a tactic:
  aimed, slam, bash, disarm, break, @entangle, @feint, @flurry, @aimed-blow;
  ``@entangle:weapon`` entangles the foe's weapon; a parry
  ``@swordbreaking:damage`` damages a caught weapon instead of disarming)
- ``missile:TARGET:WEAPON[:aimed]``
- ``cast:SPELL:MP[:ready|divine][+enhance]`` (``enhance``: the spell
  enhances the declared attack, which then comes at the later SR)
- ``parry:SOURCE:WEAPON[:@TACTIC]`` (or a shield covering locations
  against missiles: ``parry:SOURCE:SHIELD:cover:head+chest``),
  ``dodge:SOURCE[:@counter]``
- ``draw:WEAPON``, ``spirit-attack:TARGET``, ``spirit-defend``, ``misc:TEXT``

A creature with more than two sources of attack or parry may join
weapons with ``+`` (``attack:vasana:Claw+Bite``). Empty fields
(``attack::Broadsword``) are chosen later (the target at the
SR, the source at or before the attack). A Draw Weapon or Miscellaneous
Action beyond the type's allowance gives up a move phase (seed 002: "either
move phase [may] be sacrificed"). ``brace`` braces against knockback;
``mobility=N`` adds a Mobility spell's N m to each Move Phase;
``concentrate`` (on an active spell) limits movement to a third.

``affray act WHO "abort SLOT [defensive parry:SOURCE:WEAPON | defensive
dodge:SOURCE | movement]"`` aborts an unused declared action; one special
abort (defensive or movement) per round.
"""

from __future__ import annotations

import msgspec

from affray.events import core as ev
from affray.events import rq3 as rev
from affray.rules.base import Draft, RuleError, find_combatant
from affray.rules.rq3 import core
from affray.rules.rq3.sheet import ATTACK_TACTICS, MODES, TRAINED

ALLOWED = {3: 0, 2: 1, 1: 2}


def _weapon_ok(c, w, kinds: tuple[str, ...], drawn: set[str], what: str) -> None:
    if w.kind not in kinds:
        raise RuleError(f"{c.name}'s {w.name} is a {w.kind} weapon and cannot {what}; name another weapon")
    if w.kind not in ("unarmed",) and w.name not in c.ready and w.name not in drawn:
        raise RuleError(f"{c.name} does not hold {w.name} ready; declare 'draw:{w.name}' before it (+3 SR)")


def _tactic_ok(c, w, tactic: str, use: str) -> None:
    """A trained ``@`` tactic must be on the sheet for that weapon, with its
    minimums (seed 002 "SPECIAL TACTICS")."""
    if tactic not in TRAINED[use]:
        raise RuleError(f"{tactic!r} is not a {use} tactic; {use} tactics: {', '.join(TRAINED[use])}")
    if tactic not in w.tactics:
        raise RuleError(f"{c.name} has not trained {tactic} with {w.name}; only tactics on the sheet may be used")
    ch = core.sheet_of(c).characteristics
    if tactic == "@glancing" and ch.DEX < w.min_dex + 3:
        raise RuleError(f"@glancing needs DEX at least 3 above {w.name}'s minimum {w.min_dex}; {c.name} has {ch.DEX}")
    if tactic == "@flurry" and not (ch.STR >= w.min_str + 3 or (ch.STR >= w.min_str + 1 and ch.DEX >= w.min_dex + 3)):
        raise RuleError(f"@flurry needs STR 3 above {w.name}'s minimum, or STR 1 and DEX 3 above; {c.name} falls short")
    if tactic == "@aimed-blow" and ch.DEX < 13:
        raise RuleError(f"@aimed-blow needs DEX 13 or more; {c.name} has {ch.DEX}")


def parse_action(draft: Draft, handle: str, token: str, drawn: set[str]) -> tuple[str, str, str, str]:
    """``(kind, target, weapon, mode)`` of one declared action, checked
    against the sheet. Raises :class:`RuleError` (one line)."""
    state = draft.state
    c = state.combatants[handle]
    fields = token.split(":")
    kind = fields[0].strip().lower()
    rest = [f.strip() for f in fields[1:]]
    if kind not in core.ACTIONS:
        raise RuleError(f"unknown melee action {kind!r}; the seed's nine: {', '.join(core.ACTIONS)}")

    def target(i: int) -> str:
        return find_combatant(state, rest[i]) if len(rest) > i and rest[i] else ""

    if kind in ("attack", "missile"):
        tgt = target(0)
        wname = rest[1] if len(rest) > 1 and rest[1] else next(iter(c.ready), "")
        if not wname:
            raise RuleError(f"{c.name} holds no weapon; name one: {kind}:TARGET:WEAPON")
        w = core.weapon_of(c, wname)
        _weapon_ok(c, w, ("missile",) if kind == "missile" else ("melee", "shield", "unarmed"), drawn, kind)
        mode = (rest[2].lower() if len(rest) > 2 and rest[2] else (w.modes[0] if w.modes else "crush"))
        if w.name == "Grapple" and kind == "attack":
            if mode not in core.GRAPPLE_MODES:
                raise RuleError(f"a grapple is one of {', '.join(core.GRAPPLE_MODES)}, not {mode!r}")
            holding = any(x.name == "grappling" and x.id.endswith(f":{tgt}") for x in c.conditions) if tgt else False
            if mode in ("immobilise", "throw", "damage") and not holding:
                raise RuleError(f"{c.name} holds no location of {tgt or 'that foe'}: grapple first (seed 002 'GRAPPLING')")
            weapon_held = any(x.name == "grappling" and x.id.endswith(f":{tgt}") and x.effects.get("weapon-held")
                              for x in c.conditions) if tgt else False
            if mode == "damage" and weapon_held:
                raise RuleError(f"{c.name} holds a weapon or shield of {tgt}, not a location: immobilise it or throw "
                                "the foe (seed 002 'GRAPPLING')")
            if mode == "break-free" and not c.has("immobilised"):
                raise RuleError(f"{c.name} is not immobilised; nothing to break free from")
            return kind, tgt, w.name, mode
        if mode in core.GRAPPLE_MODES:
            raise RuleError(f"{mode} is a grapple: attack:TARGET:Grapple:{mode}")
        if mode.startswith("@"):
            _tactic_ok(c, w, mode, "attack")
            if mode == "@entangle" and len(rest) > 3 and rest[3].lower() == "weapon":
                # seed 002 "@Entangle": "entangles the hit location struck or the weapon attacked"
                return kind, tgt, w.name, "@entangle/weapon"
        elif mode not in MODES + ATTACK_TACTICS + ("disarm-dex",):
            raise RuleError(f"unknown mode {mode!r}; modes: {', '.join(w.modes)}; tactics: {', '.join(ATTACK_TACTICS)}")
        elif mode in MODES and mode not in w.modes:
            raise RuleError(f"{w.name} attacks in {', '.join(w.modes)} mode, not {mode}")
        if mode == "break" and not {"slash", "crush"} & set(w.modes):
            raise RuleError(f"an impaling weapon cannot break weapons unless it cuts or crushes (seed 002 'Break Weapon')")
        if mode in ("aimed", "@aimed-blow"):
            where = rest[3].lower().replace("-", " ") if len(rest) > 3 and rest[3] else ""
            names = [loc.name for loc in c.locations]
            if where not in names:
                raise RuleError(f"name the location aimed at: {kind}:TARGET:{w.name}:{mode}:LOCATION ({', '.join(n.replace(' ', '-') for n in names)})")
            mode = f"{mode}/{where}"
        return kind, tgt, w.name, mode
    if kind == "parry":
        tgt = target(0)
        wname = rest[1] if len(rest) > 1 and rest[1] else next(iter(c.ready), "")
        if not wname:
            raise RuleError(f"{c.name} holds nothing to parry with; name a weapon: parry:SOURCE:WEAPON")
        w = core.weapon_of(c, wname)
        _weapon_ok(c, w, ("melee", "shield", "unarmed") if w.name == "Grapple" else ("melee", "shield"), drawn, "parry")
        tactic = rest[2].lower() if len(rest) > 2 and rest[2] else "standard"
        if tactic == "cover":
            # seed 002: "Instead of parrying, shields can be used to cover locations" (against missiles)
            if w.kind != "shield":
                raise RuleError(f"only a shield covers locations; {w.name} is a {w.kind} weapon")
            names = [loc.name for loc in c.locations]
            where = [x.lower().replace("-", " ") for x in (rest[3].split("+") if len(rest) > 3 and rest[3] else [])]
            if not where or any(x not in names for x in where):
                raise RuleError(f"name the locations covered: parry:SOURCE:{w.name}:cover:head+chest "
                                f"({', '.join(n.replace(' ', '-') for n in names)})")
            return kind, tgt, w.name, "cover/" + "+".join(where)
        if tactic != "standard":
            _tactic_ok(c, w, tactic, "parry")
        option = rest[3].lower() if len(rest) > 3 and rest[3] else ""
        if option and not (tactic == "@swordbreaking" and option in ("disarm", "damage")):
            raise RuleError(f"{tactic} takes no option {option!r}; only @swordbreaking takes :disarm or :damage")
        if option == "damage":
            # seed 002 "@Swordbreaking": "or to damage the attacking weapon", chosen in the Statement of Intent
            return kind, tgt, w.name, "@swordbreaking/damage"
        return kind, tgt, w.name, tactic
    if kind == "dodge":
        tgt = target(0)
        tactic = rest[1].lower() if len(rest) > 1 and rest[1] else ""
        if tactic:
            held = [core.weapon_of(c, r) for r in c.ready]
            w = next((w for w in held if tactic in w.tactics), None)
            if w is None:
                raise RuleError(f"{c.name} has not trained {tactic} with a ready weapon; only tactics on the sheet may be used")
            _tactic_ok(c, w, tactic, "dodge")
            return kind, tgt, w.name, tactic
        return kind, tgt, "", ""
    if kind == "draw":
        if not rest or not rest[0]:
            raise RuleError("name the weapon to draw: draw:WEAPON")
        w = core.weapon_of(c, rest[0])
        reload = w.kind == "missile" and not w.thrown
        # issue 16: drawing what is in hand would spend the action for nothing, but a
        # missile weapon in hand is reloaded by the same action (seed 002 "6. Draw weapon":
        # "draw a new missile and reload it in a missile weapon")
        if w.name in c.ready and not reload:
            raise RuleError(f"{c.name} already holds {w.name} ready; draw another weapon, or declare another action")
        if w.name in drawn:
            raise RuleError(f"{w.name} is already drawn in this statement; declare it once")
        drawn.add(w.name)
        return kind, "", w.name, ""
    if kind == "cast":
        if not rest or not rest[0]:
            raise RuleError("name the spell: cast:SPELL:MP[:ready|divine]")
        mp = rest[1] if len(rest) > 1 and rest[1] else "0"
        if not mp.isdigit():
            raise RuleError(f"magic points must be a whole number, not {mp!r}: cast:SPELL:MP")
        how = rest[2].lower() if len(rest) > 2 and rest[2] else ""
        words = set(how.split("+")) - {""}
        if not words <= {"ready", "divine", "enhance"} or {"ready", "divine"} <= words:
            raise RuleError(f"a spell is 'ready' (needs readying, +3 SR) or 'divine', and may 'enhance' the attack "
                            f"(ready+enhance), not {how!r}")
        return kind, "", rest[0], mp + (f"/{how}" if how else "")
    if kind == "misc":
        return kind, "", ":".join(rest).strip() or "miscellaneous action", ""
    if kind == "spirit-attack":
        return kind, target(0), "", ""
    return kind, "", "", ""


def _spell_sr(dex_sr: int, mode: str) -> int:
    mp, _, how = mode.partition("/")
    mp = int(mp or 0)
    words = set(how.split("+"))
    if "divine" in words:
        return dex_sr + mp
    return dex_sr + mp + (3 if "ready" in words else 0)


def sources(c, use: str) -> int:
    """How many sources of attack (or means of parrying) a creature has: its
    weapons able to attack (parry) (seed 002 "1. Melee Attack", "4. Parry")."""
    kinds = ("melee", "unarmed", "shield")
    return sum(1 for w in core.sheet_of(c).weapons if w.kind in kinds and (w.attack if use == "attack" else w.parry) > 0)


def parse_group(draft: Draft, handle: str, token: str, drawn: set[str]) -> list[tuple[str, str, str, str]]:
    """One declared action, which for a creature with more than two sources
    of attack or parry may name several weapons joined by ``+``
    (``attack:vasana:Claw+Bite``): one entry per weapon."""
    fields = token.split(":")
    if fields[0].strip().lower() in ("attack", "parry") and len(fields) > 2 and "+" in fields[2]:
        return [parse_action(draft, handle, ":".join(fields[:2] + [name] + fields[3:]), drawn)
                for name in fields[2].split("+")]
    return [parse_action(draft, handle, token, drawn)]


def check_sources(c, groups: list[list[tuple[str, str, str, str]]]) -> None:
    """Seed 002: creatures with more than two sources of attack (means of
    parrying; ruling ``multi_arm``: three or more) use up to half of them
    with one attack (parry) option, all of them with two."""
    for use in ("attack", "parry"):
        mine = [g for g in groups if g[0][0] == use]
        blows = sum(len(g) for g in mine)
        if all(len(g) == 1 for g in mine):
            continue
        n = sources(c, use)
        if n < 3:
            raise RuleError(f"only a creature with more than two sources of {use} may {use} with several at once")
        limit = n if len(mine) >= 2 else n // 2
        if blows > limit:
            raise RuleError(f"{c.name} may {use} with up to {limit} of its {n} sources "
                            f"({'half with one option' if len(mine) < 2 else 'all with two options'}), not {blows}")


def strike_ranks(draft: Draft, handle: str, moves: int, actions: list[tuple[str, str, str, str]],
                 slots: list[int] | None = None) -> list[core.Declared]:
    """Each declared action with its SR and penalty (seed 002 actions 1-9,
    two attacks, two parries, two spells; rules-reference.md C3):
    melee SR = DEX SR + SIZ SR + weapon SR, missile and other actions at
    DEX SR, a spell at DEX SR + MP (+3 to ready it), +3 SR after a Draw
    Weapon, +3 SR on a double move."""
    c = draft.state.combatants[handle]
    d = core.derived(c)
    extra = 3 if moves == 2 else 0
    drawn: set[str] = set()
    out: list[core.Declared] = []
    attacks = [a for a in actions if a[0] == "attack"]
    same_weapon = len(attacks) == 2 and attacks[0][2] == attacks[1][2]
    parries = [a for a in actions if a[0] == "parry"]
    spells_sr = 0
    for slot, (kind, target, weapon, mode) in zip(slots or range(1, len(actions) + 1), actions):
        penalty = 0
        if kind == "attack":
            w = core.weapon_of(c, weapon)
            sr = d.dex_sr + d.siz_sr + w.sr + extra + (3 if weapon in drawn else 0)
            if mode == "slam":
                sr = d.dex_sr + d.siz_sr + 3 + extra  # "as if ... Weapon SR 3" (seed 002 "Slam")
            if mode in ("immobilise", "throw", "damage", "break-free"):
                sr = d.dex_sr + extra  # seed 002 "GRAPPLING": the follow-ups at DEX SR
            if same_weapon:
                penalty = -10
                first = next((o for o in out if o.kind == "attack"), None)
                if first is not None:
                    sr = first.sr + 3 if first.sr < 8 else 10
        elif kind == "missile":
            sr = d.dex_sr + extra + (3 if weapon in drawn else 0)
        elif kind == "cast":
            own = _spell_sr(d.dex_sr, mode) + extra
            sr = own if not spells_sr else spells_sr + (own - d.dex_sr)
            if spells_sr and sr > 10:
                raise RuleError(f"two spells must add up to 10 SR or less; these come to {sr} (seed 002 'two Cast Spell actions')")
            spells_sr = sr
        elif kind == "parry":
            sr = 0
            w = core.weapon_of(c, weapon)
            if (len(parries) == 2 and parries[0][2] == parries[1][2] and w.hands == 1
                    and parries[0][1] != parries[1][1]):
                penalty = -20  # two attackers with the same 1H weapon
        elif kind == "dodge":
            sr = 0
        else:
            sr = d.dex_sr + extra
        if kind == "draw":
            drawn.add(weapon)
        out.append(core.Declared(slot=slot, kind=kind, target=target, weapon=weapon, mode=mode, sr=sr, penalty=penalty))
    enhance = max((d.sr for d in out if d.kind == "cast" and "enhance" in d.mode), default=0)
    if enhance:
        # seed 002: an attack the spell enhances comes at its own SR or the spell's, whichever is later
        out = [msgspec.structs.replace(d, sr=max(d.sr, enhance)) if d.kind in ("attack", "missile") else d
               for d in out]
    return out


def declare(draft: Draft, handle: str, words: list[str]) -> None:
    """``intent TYPE ACTION... [brace]``: record the Statement of Intent of
    ``handle`` (an ``IntentDeclared`` event and its conditions). Refused,
    one line each: not this combatant's turn to declare; an unknown type;
    more melee actions than the type allows; an unknown action, weapon,
    mode or untrained ``@`` tactic; two spells over 10 SR; a dodge while
    braced; """
    state = draft.state
    core.expect(state, ("intent",), handle, "state an intent")
    c = state.combatants[handle]
    if not words:
        raise RuleError("say the type: intent triple | intent double ACTION | intent single ACTION ACTION")
    kind = words[0].lower()
    if kind not in core.TYPES:
        raise RuleError(f"unknown Statement of Intent type {words[0]!r}; use triple, double or single")
    moves = core.TYPES[kind]
    rest = [w for w in words[1:] if w.lower() != "brace"]
    brace = len(rest) != len(words) - 1
    mobility, concentrate = 0, 0
    for w in list(rest):
        low = w.lower()
        if low.startswith("mobility="):
            value = low.split("=", 1)[1]
            if not value.isdigit():
                raise RuleError(f"mobility= takes the spell's metres per Move Phase, a whole number, not {value!r}")
            mobility = int(value)  # seed 002 "MOVE": Mobility adds to the total movement in each Move Phase
            rest.remove(w)
        elif low == "concentrate":
            concentrate = 1  # seed 002 "MOVE": concentrating on an active spell, 1/3 movement
            rest.remove(w)
    drawn: set[str] = set()
    groups = [parse_group(draft, handle, w, drawn) for w in rest]
    check_sources(c, groups)
    actions = [g[0] for g in groups]
    allowed = ALLOWED[moves]
    extra = len(actions) - allowed
    if extra > 0:
        spare = [a for a in actions if a[0] in ("draw", "misc")]
        if len(spare) < extra or extra > 2 or (moves == 1 and extra > 1):
            raise RuleError(
                f"a {core.TYPE_NAMES[moves]} statement allows {allowed} melee action{'s' if allowed != 1 else ''}, "
                f"not {len(actions)}; only a Draw Weapon or Miscellaneous Action may take a move phase's place")
    spirit_attacks = sum(1 for a in actions if a[0] == "spirit-attack")
    if spirit_attacks == 2 and len(actions) > 2:
        raise RuleError("attacking twice in spirit combat allows no other action (seed 002)")
    if brace and any(a[0] == "dodge" for a in actions):
        raise RuleError("one cannot dodge while braced (seed 002 'BRACING AGAINST KNOCKBACK'); drop the dodge or the brace")
    slots, flat = [], []
    for i, g in enumerate(groups, start=1):
        for j, one in enumerate(g):
            slots.append(i if j == 0 else 40 + len(flat))
            flat.append(one)
    declared = strike_ranks(draft, handle, moves, flat, slots)
    carried = next((x for x in c.conditions if x.name == "spell-carried"), None)
    if carried is not None:
        # seed 002 "3. Cast Spell": the carried spell needs another Cast Spell action, else it is aborted
        cast = next((d for d in declared if d.kind == "cast"), None)
        if cast is not None:
            declared = [msgspec.structs.replace(d, sr=carried.effects.get("sr", 0), weapon=carried.note)
                        if d is cast else d for d in declared]
        draft.emit(ev.ConditionExpired(handle=handle, condition_id=carried.id,
                                       reason="completed this round" if cast else "aborted: no Cast Spell declared"))
    sacrificed = max(0, extra)
    draft.emit(rev.IntentDeclared(handle=handle, round=state.round, moves=moves,
                                  actions=tuple(d.text for d in declared), brace=brace))
    effects = {"moves": moves, "aborted": 0, "brace": int(brace), "sacrificed": sacrificed}
    if mobility:
        effects["mobility"] = mobility
    if concentrate:
        effects["concentrate"] = 1
    core.condition(draft, handle, "intent", effects=effects,
                   note=core.TYPE_NAMES[moves] + ("; braced" if brace else ""))
    if brace:
        core.condition(draft, handle, "braced", note="braced against knockback")
    for d in declared:
        draft.emit(core.declared_condition(draft, handle, d))
    draft.hand_over()


def abort(draft: Draft, handle: str, words: list[str]) -> None:
    """``abort SLOT [defensive ACTION | movement]``: drop an unused declared
    action, or turn it into a Dodge or Parry at -20% (Defensive Abort) or
    one more movement category in the Post Melee Move (Movement Abort);
    one special abort per round (seed 002 "ALTERING STATEMENT OF INTENT")."""
    state = draft.state
    c = state.combatants[handle]
    intent = core.intent_of(c)
    if intent is None:
        raise RuleError(f"{c.name} has stated no intent this round; nothing to abort")
    if not words or not words[0].isdigit():
        raise RuleError("say which declared action: abort SLOT [defensive parry:SOURCE:WEAPON | defensive dodge:SOURCE | movement]")
    slot = int(words[0])
    d = next((x for x in core.declared(c) if x.slot == slot), None)
    if d is None or d.used or d.abort:
        raise RuleError(f"{c.name} has no unused declared action {slot}; see 'affray state'")
    how = words[1].lower() if len(words) > 1 else "plain"
    if how not in ("plain", "defensive", "movement"):
        raise RuleError(f"an abort is plain, defensive or movement, not {how!r}")
    if how != "plain" and intent.effects.get("aborted"):
        raise RuleError(f"{c.name} has used this round's abort already (one per melee round)")
    if how != "plain" and core.spirit_bound(c):
        raise RuleError(f"{c.name} chose two actions in spirit combat and can take no other action this round, "
                        "not even a defence (seed 002); a plain abort only")
    replacement = ""
    if how == "defensive":
        if len(words) < 3:
            raise RuleError("a Defensive Abort names the new action: defensive parry:SOURCE:WEAPON or defensive dodge:SOURCE")
        kind, target, weapon, mode = parse_action(draft, handle, words[2], set())
        if kind not in ("parry", "dodge"):
            raise RuleError("a Defensive Abort becomes a Dodge or a Parry (seed 002)")
        if kind == "dodge" and intent.effects.get("brace"):
            raise RuleError("one cannot dodge while braced (seed 002 'BRACING AGAINST KNOCKBACK')")
        new = core.Declared(slot=10 + slot, kind=kind, target=target, weapon=weapon, mode=mode, sr=0, penalty=-20)
        replacement = new.text
    core.abort_events(draft, handle, d, how, replacement)
    if how == "defensive":
        draft.emit(core.declared_condition(draft, handle, new))
    draft.hand_over()

