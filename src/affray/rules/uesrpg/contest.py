"""Step 3 of the uesrpg exchange: roll the tests and determine the result
(seed 003 "Step 3: Roll Tests & Determine Result", "Critical
Success/Failure"; rules-reference.md D2-D4, D6-D7).

:func:`outcome` is the seed's outcome table as a pure function of the two
graded tests, the defence and whether the exchange is melee; :func:`roll_tests`
rolls both d100s, records them with their Degrees of Success or Failure and
the row applied, and hands the winner its Advantages (a ``choose`` step) or
goes straight to Step 4.
"""

import msgspec

from affray.events import core as ev
from affray.events import uesrpg as ev_ues
from affray.rules.base import Draft
from affray.rules.d100 import CRITICAL, FAILURE, FUMBLE, SUCCESS
from affray.rules.uesrpg import conditions as cat
from affray.rules.uesrpg import tables
from affray.rules.uesrpg.core import (
    Test,
    exchange_kind,
    grade,
    group_of,
    is_melee,
    luck_of,
    member_data,
    pack_waiting,
    passed,
    rulings_of,
    sheet_of,
    unpack_mods,
)
from affray.rules.uesrpg.rulings import DEFAULT_RULINGS, Rulings


class Outcome(msgspec.Struct, frozen=True):
    """A row of the outcome table applied: ``row`` its name, ``winner``
    attacker/defender/"", ``hits`` who is struck (defender, or attacker by a
    Counter-Attack, or ""), ``blocked`` (a Block to roll against BR),
    ``advantages`` gained by ``advantage_to``, and both results after an
    opponent's critical failure has made a success critical."""

    row: str
    attack_result: str
    defence_result: str
    winner: str = ""
    hits: str = ""
    blocked: bool = False
    advantages: int = 0
    advantage_to: str = ""


def outcome(attack: Test, defence: Test | None, kind: str, melee: bool, rulings: Rulings = DEFAULT_RULINGS) -> Outcome:
    """The seed's outcome table (seed 003 Step 3, "Critical Success/Failure";
    rulings ``parry_evade_tie``, ``critical_vs_block``, ``advantage_count``).

    ``defence`` None (or ``kind`` "none") is a defender who does not or
    cannot defend: an automatic failure. Rows: ``both-critical``,
    ``both-fumble`` (nothing resolves, no Advantage), ``both-fail``,
    ``attacker-wins`` / ``defender-wins`` (one fails: one Advantage in
    melee, two against a critical failure or with a critical), and when both
    pass ``attack-vs-block``, ``attack-vs-parry``, ``attack-vs-evade``,
    ``counter-attack``. Advantages are never gained outside melee.
    """
    a = attack.result
    d = defence.result if defence is not None and kind != "none" else FAILURE
    if a == FUMBLE and d == SUCCESS:  # an opponent's critical failure makes a success critical
        d = CRITICAL
    if d == FUMBLE and a == SUCCESS:
        a = CRITICAL
    base = {"attack_result": a, "defence_result": d}
    if a == d == CRITICAL:
        return Outcome(row="both-critical", **base)
    if a == d == FUMBLE:
        return Outcome(row="both-fumble", **base)
    ap, dp = passed(a), passed(d)
    if not ap and not dp:
        return Outcome(row="both-fail", **base)
    if ap != dp:
        winner = "attacker" if ap else "defender"
        won = a if ap else d
        n = (2 if won == CRITICAL else 1) if melee else 0
        if winner == "attacker":
            return Outcome(row="attacker-wins", winner=winner, hits="defender", advantages=n,
                           advantage_to=winner if n else "", **base)
        return Outcome(row="defender-wins", winner=winner, hits="attacker" if kind == "counter" else "",
                       advantages=n, advantage_to=winner if n else "", **base)
    # both pass: a critical counts as more DoS and gains one Advantage
    crit_a, crit_d = a == CRITICAL, d == CRITICAL
    gainer = "attacker" if crit_a else "defender" if crit_d else ""
    n = 1 if gainer and melee else 0
    adv = {"advantages": n, "advantage_to": gainer if n else ""}
    if crit_a != crit_d:
        cmp = 1 if crit_a else -1
    else:
        cmp = (attack.degrees > defence.degrees) - (attack.degrees < defence.degrees)
    if kind == "block":
        if crit_a and not crit_d and rulings.critical_vs_block == "critical-hits":
            return Outcome(row="attack-vs-block", winner="attacker", hits="defender", **adv, **base)
        return Outcome(row="attack-vs-block", winner="defender", blocked=True, **adv, **base)
    if kind in ("parry", "evade"):
        if cmp > 0 or (cmp == 0 and rulings.parry_evade_tie == "attack-hits"):
            return Outcome(row=f"attack-vs-{kind}", winner="attacker", hits="defender", **adv, **base)
        return Outcome(row=f"attack-vs-{kind}", winner="defender", **adv, **base)
    # Counter-Attack: more DoS hits the other; equal DoS: neither resolves
    if cmp == 0:
        return Outcome(row="counter-attack", **adv, **base)
    if cmp > 0:
        return Outcome(row="counter-attack", winner="attacker", hits="defender", **adv, **base)
    return Outcome(row="counter-attack", winner="defender", hits="attacker", **adv, **base)


def _tested(draft: Draft, handle: str, tn: int, purpose: str) -> Test:
    state = draft.state
    c = state.combatants[handle]
    roll = draft.roll("1D100", purpose, by=handle).total
    lucky, unlucky = luck_of(c)
    return grade(roll, tn, lucky, unlucky, rulings_of(state))


def _degrees_text(t: Test) -> str:
    return f"{t.degrees} DoS" if passed(t.result) else f"{t.degrees} DoF"


def _defence_test(draft: Draft, handle: str, data: dict) -> tuple[Test | None, dict]:
    """Roll one defender's declared defence (none: no roll); a buckler adds
    +1 DoS to a successful parry (D13). Returns the test and the data with
    any ``note``."""
    t = draft.state.combatants[handle]
    defence = str(data.get("defence", "none"))
    if defence == "none":
        return None, data
    dfn = _tested(draft, handle, int(data["tn"]), f"{t.name}: {defence} test")
    if defence == "parry" and passed(dfn.result):
        extra = max((tables.SHIELD_VARIANTS[s.variant].parry_dos for s in sheet_of(t).shields), default=0)
        if extra:
            dfn = msgspec.structs.replace(dfn, degrees=dfn.degrees + extra)
            data = {**data, "note": f" (+{extra} buckler)"}
    return dfn, data


def one_defensive_advantage(results: list[tuple[Test | None, Outcome]], rulings: Rulings = DEFAULT_RULINGS) -> list[Outcome]:
    """Several defenders against one attack: only one gains the defensive
    Advantage (seed 003 Step 4 Block; ruling ``several_defenders``): the
    winning defender with the most DoS, a critical counting as more, ties to
    the first declared (``most-dos``), or the first declared winner
    (``first-declared``). ``results`` are (defence test, outcome) in the
    order the defences were declared; the others keep their row but lose the
    Advantage."""
    gainers = [i for i, (_, o) in enumerate(results) if o.advantage_to == "defender" and o.advantages]
    if len(gainers) <= 1:
        return [o for _, o in results]
    keep = gainers[0]
    if rulings.several_defenders == "most-dos":
        def rank(i: int) -> tuple[int, int, int]:
            test, o = results[i]
            return (o.defence_result == CRITICAL, test.degrees if test else 0, -i)
        keep = max(gainers, key=rank)
    return [o if i == keep or i not in gainers else msgspec.structs.replace(o, advantages=0, advantage_to="")
            for i, (_, o) in enumerate(results)]


def _carry(res: Outcome, defence: str, data: dict, att: Test, dfn: Test | None) -> dict:
    """What Step 4 needs of one defender's result."""
    return {
        "defence": defence, "hits": res.hits, "blocked": int(res.blocked), "winner": res.winner,
        "item": str(data.get("item", "")),
        # the roll that resolves the hit picks the location (ruling hit_location): a counter's winner's own
        "hit_roll": (dfn.roll if dfn else 0) if res.hits == "attacker" else att.roll,
        "critical": int((res.attack_result if res.hits != "attacker" else res.defence_result) == CRITICAL),
    }


def roll_tests(draft: Draft, step: ev.PendingStep) -> None:
    """``affray roll`` on the tests step: the attack d100, then each
    defence's; all recorded as ``SkillTested`` with their DoS/DoF, then the
    row of the outcome table for each defender
    (``uesrpg-combat-roll-resolved``). The first defender's Step 4 follows
    at once; the others' wait, in order, in an ``attacking-several``
    condition on the attacker (seed 003 Step 4, several defenders)."""
    state = draft.state
    x = state.exchange
    a = state.combatants[x.attacker]
    _, opts = exchange_kind(x)
    att_test = opts.get("test", "attack")
    att = _tested(draft, a.handle, int(opts.get("tn", 0)), f"{a.name}: attack test")
    melee = is_melee(x)
    rulings = rulings_of(state)
    defenders = [(x.target, dict(step.data))] + [(h, member_data(step.data, h)) for h in group_of(x)]
    rolled = []
    for h, data in defenders:
        dfn, data = _defence_test(draft, h, data)
        rolled.append((h, data, dfn, outcome(att, dfn, str(data.get("defence", "none")), melee, rulings)))
    outcomes = one_defensive_advantage([(dfn, res) for _, _, dfn, res in rolled], rulings)
    names = " and ".join(state.combatants[h].name for h, _ in defenders)
    draft.emit(ev.SkillTested(handle=a.handle, skill=att_test, base=int(opts.get("base", 0)), target=att.tn,
                              roll=att.roll, result=outcomes[0].attack_result, modifiers=x.modifiers,
                              purpose=f"attack on {names}: {_degrees_text(att)}"))
    for (h, data, dfn, first), res in zip(rolled, outcomes):
        defence = str(data.get("defence", "none"))
        if dfn is not None:
            lost = " (no Advantage: only one defender gains it)" if first.advantages and not res.advantages else ""
            draft.emit(ev.SkillTested(handle=h, skill=str(data["test"]), base=int(data["base"]), target=dfn.tn,
                                      roll=dfn.roll, result=res.defence_result, modifiers=unpack_mods(str(data.get("mods", ""))),
                                      purpose=f"{defence} against {a.name}: {_degrees_text(dfn)}{data.get('note', '')}{lost}"))
        if h == x.target:
            draft.emit(ev.AttackResolved(exchange=x.id, hit=res.hits == "defender", critical=res.attack_result == CRITICAL,
                                         fumble=res.attack_result == FUMBLE, roll=att.roll, skill=att.tn))
        draft.emit(ev_ues.CombatRollResolved(
            exchange=x.id, attacker=a.handle, defender=h, defence=defence,
            attack_roll=att.roll, attack_tn=att.tn, attack_result=res.attack_result, attack_degrees=att.degrees,
            defence_roll=dfn.roll if dfn else 0, defence_tn=dfn.tn if dfn else 0,
            defence_result=res.defence_result if dfn else FAILURE, defence_degrees=dfn.degrees if dfn else 0,
            row=res.row, winner=res.winner, hits=res.hits, blocked=res.blocked,
            advantages=res.advantages, advantage_to=res.advantage_to,
        ))
    if len(rolled) > 1:
        waiting = {}
        for order, ((h, data, dfn, _), res) in enumerate(zip(rolled[1:], outcomes[1:]), start=1):
            waiting.update(pack_waiting(state, h, order, _carry(res, str(data.get("defence", "none")), data, att, dfn), res))
        items = [i.name for i in (*sheet_of(a).weapons, *sheet_of(a).spells)]
        waiting.update({"exchange": x.id, "roll": att.roll, "tn": att.tn, "weapon": items.index(x.weapon)})
        draft.emit(ev.ConditionApplied(handle=a.handle, condition=cat.make(
            "attacking-several", cause=draft.next_version, round=state.round, step=state.step, ends="event",
            effects=waiting, note=f"{x.weapon}: {len(rolled) - 1} more defender(s) to resolve")))
    res, (h, data, dfn, _) = outcomes[0], rolled[0]
    carry = _carry(res, str(data.get("defence", "none")), data, att, dfn)
    if res.advantages:
        draft.then("advantages", carry=carry, left=res.advantages,
                   by=x.attacker if res.advantage_to == "attacker" else x.target)
    else:
        draft.then("resolve", carry=carry)
