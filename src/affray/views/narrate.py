"""Narration: each event as a line a player can read.

``narrate(event, names, system)`` gives the plain text of one event (or
``""`` for bookkeeping events nobody needs to read), in the words of the
encounter's rule system (:data:`TERMS`); :func:`entries` walks a log and
pairs every line with its version, round, exchange, command, actor, status
(live, retracted or void) and the dice behind it, which the CLI log and every
export format build on. :func:`iter_entries` does the same as a stream, one
command at a time (:func:`command_batches`), with each command's status
worked out from the meta events alone
(:class:`~affray.projections.timeline.Liveness`): the exports use it so as
never to hold the log. :func:`rounds_by_version`, :func:`is_secret` and
:func:`in_rounds` are the one definition of "which round" and "which events
an export leaves out" that every format shares.
"""

from typing import Iterable, Iterator

import msgspec

from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1
from affray.events import mythras as ev_mythras
from affray.events import uesrpg as ev_ues
from affray.events import rolemaster as ev_rm
from affray.events import rq3 as ev_rq3
from affray.events.envelope import Recorded
from affray.projections.timeline import Liveness, Timeline, is_meta


class Entry(msgspec.Struct):
    """One readable line of the log. (A msgspec struct, not a dataclass:
    ``affray log`` then never imports :mod:`dataclasses`, whose import of
    :mod:`inspect` costs milliseconds on every call.)"""

    version: int
    round: int
    command_id: str
    actor: str
    status: str  # live | retracted | void | meta
    text: str
    kind: str  # the event tag
    secret: bool = False
    #: every roll behind this line, ``"; "``-joined :func:`describe_roll` texts
    #: (``1D100=34 (engine roll #3) for close attack on Broo 1``), for tooltips
    source: str = ""
    #: the exchange this line belongs to (attack through wounds); 0 outside one
    exchange: int = 0
    #: the same rolls as ``source``, one :func:`describe_roll` text each
    rolls: tuple[str, ...] = ()
    #: the ``DiceRolled`` records behind ``rolls``, in the same order (for
    #: structured rolls: ``affray log --json --dice``)
    dice: tuple[Recorded, ...] = ()


def _mods(mods: Iterable[ev.Modifier]) -> str:
    parts = [f"{m.value:+d} {m.reason}" for m in mods]
    return f" ({', '.join(parts)})" if parts else ""


#: Bookkeeping events that :func:`narrate` has nothing to say about (no case
#: below, or an explicit ``""``): answered before the ``match``, since a long
#: log is mostly these.
SILENT = frozenset({ev.CommandIssued, ev.TurnBegan, ev.StepsAwaited, ev.AttackResolved, ev.EngagementChanged, ev.ExchangeEnded})


#: Conditions that are bookkeeping for the table's flow, told by other lines
#: (mrq1 ``acting``: an action waiting for free attacks, which the
#: ``mrq1-action-taken`` lines tell).
QUIET_CONDITIONS = frozenset({"acting", "moving", "attacked"})  # uesrpg "moving": a mover waiting for attacks of opportunity; rolemaster "attacked": the attack line tells it
#: rq3: the Statement of Intent's bookkeeping (its own events narrate it)
QUIET_CONDITIONS = QUIET_CONDITIONS | {"declared", "intent", "moved", "defended"}


class Terms(msgspec.Struct, frozen=True):
    """The words a rule system uses for its order of action and its action
    economy, as the log prints them: ``order`` heads a round's order
    (``Round 1 begins. Strike ranks: ...``), ``actions``/``action`` count
    a combatant's allowance (``joins side heroes (3 combat actions)``);
    ``columns`` head the allowance columns of ``affray state`` (combat
    actions and reactions, or Action Points alone)."""

    order: str
    actions: str
    action: str
    columns: tuple[str, ...] = ("CA", "React")


#: The terms every system uses unless it has its own (mrq1's: seed 004
#: "Strike Ranks", "Combat Actions").
DEFAULT_TERMS = Terms(order="Strike ranks", actions="combat actions", action="combat action")

#: A system's own terms, by system key. mythras: seed 001 "Initiative"
#: ("The Games Master counts down through Initiative values") and "Actions
#: in Combat" ("All beginning characters get 2 Action Points per Round").
TERMS = {
    "mythras": Terms(order="Initiative", actions="Action Points", action="Action Point", columns=("AP",)),
    # rolemaster: seed 000 "You have initiative", "a 1 `Action Point` action"
    # (RMH tactical-activity-tracking: Initiative, 4 Action Points a round)
    "rolemaster": Terms(order="Initiative", actions="Action Points", action="Action Point", columns=("AP",)),
}


def terms_for(system: str) -> Terms:
    """The :class:`Terms` of ``system`` (a system key; ``""`` or an unknown
    key: :data:`DEFAULT_TERMS`)."""
    return TERMS.get(system, DEFAULT_TERMS)


def narrate(e: ev.Event, names: dict[str, str], system: str = "") -> str:
    """The readable text of ``e``; ``names`` maps handles to display names,
    ``system`` is the encounter's rule system key, whose words (:data:`TERMS`)
    the order of action and the action economy are told in."""
    if type(e) in SILENT:
        return ""
    terms = terms_for(system)

    def n(handle: str) -> str:
        return names.get(handle, handle)

    match e:
        case ev.EncounterOpened():
            dice = "manual dice" if e.manual_dice else f"dice seed committed: {e.seed_sha256[:12]}…" + (
                " (a seed chosen by the GM)" if e.is_chosen else "")
            return f"Encounter \"{e.name}\" ({e.system}) opened; {dice}"
        case ev.CombatantJoined():
            return f"{e.name} joins side {e.side} ({e.combat_actions} {terms.action if e.combat_actions == 1 else terms.actions})" + (" — surprised" if e.surprised else "")
        case ev.RoundStarted():
            order = ", ".join(f"{n(o.handle)} {o.rank}" + (f" ({o.detail.rsplit(' = ', 1)[0]})" if o.detail else "") for o in e.order)
            return f"Round {e.round} begins. {terms.order}: {order}"
        case ev.OrderChanged():
            order = ", ".join(f"{n(o.handle)} {o.rank}" for o in e.order)
            return f"{terms.order} now: {order}" + (f" ({e.reason})" if e.reason else "")
        case ev.SkillTested():
            return f"{n(e.handle)}: {e.skill} {e.roll:02d} vs {e.target}%{_mods(e.modifiers)} — {e.result} ({e.purpose})"
        case ev.AttackDeclared():
            base = e.kind.split(";", 1)[0]
            what = {
                "riposte": "ripostes against",
                "grapple": "tries to grapple",
                "charge": "charges",
                "ranged": "shoots at",
                "free": "makes a free attack on",
                "flurry": "strikes in a flurry at",
                "off-hand": "makes an off-hand attack on",
            }.get(base, "attacks")
            opts = dict(part.partition("=")[::2] for part in e.kind.split(";")[1:])
            extra = f" (precise: {opts['precise']})" if opts.get("precise") else ""
            if opts.get("cover"):
                extra += f" (cover: {opts['cover']})"
            if not e.weapon:  # a mythras Leaping Attack: the leaper's body, on Athletics (seed 001 "Leaping Attacks")
                return f"{n(e.attacker)} {'leaps at' if base == 'leap' else what} {n(e.target)}{extra}"
            if opts.get("of"):  # uesrpg: a later defender of one attack against several
                return f"{n(e.attacker)}'s {e.weapon} attack of exchange {opts['of']} now resolves against {n(e.target)}"
            targets = " and ".join(n(h) for h in (e.target, *filter(None, opts.get("group", "").split("+"))))
            return f"{n(e.attacker)} {what} {targets} with {e.weapon}{extra}"
        case ev.ReactionChosen() if e.reaction in ("block", "counter"):  # uesrpg: declared before the attack roll
            # (an Evade reads plainly: mythras evades too, and an event names no system)
            return f"{n(e.handle)} {_UES_DEFENCES[e.reaction]}" + (f" with {e.with_item}" if e.with_item else "") + " (declared before the roll)"
        case ev.ReactionChosen():
            if e.reaction == "none":
                return f"{n(e.handle)} does not react"
            if e.reaction.startswith("grapple-"):
                used = e.with_item or e.reaction[8:].capitalize()
                return f"{n(e.handle)} resists the grapple with {used}"
            verb = {"parry": "parries", "dodge": "dodges", "evade": "evades",
                    "withstand": "tries to withstand the leap"}.get(e.reaction, e.reaction)
            return f"{n(e.handle)} {verb}" + (f" with {e.with_item}" if e.with_item else "")
        case ev.ReactionResolved():
            table, _, cell = e.cell.partition(":")
            return f"{table.capitalize()} table, {cell}: {e.outcome}"
        case ev.DamageDealt() if e.location == "HP" and e.note:  # uesrpg: one HP pool; the note names where it struck
            struck, _, how = e.note.partition("; ")
            armour = f" (AR −{e.armour})" if e.armour else ""
            crit = " critical" if e.critical else ""
            return f"{e.rolled}{crit} damage to {n(e.target)}'s {struck}{armour} → {e.final} HP lost" + (f" [{how}]" if how else "")
        case ev.DamageDealt():
            extra = []
            if e.reduced:
                extra.append(f"parry −{e.reduced}")
            if e.armour:
                extra.append(f"armour −{e.armour}")
            crit = " critical" if e.critical else ""
            how = f" [{e.note}]" if e.note else ""
            after = f" ({', '.join(extra)})" if extra else ""
            return f"{e.rolled}{crit} damage to {n(e.target)}'s {e.location}{after} → {e.final} HP lost{how}"
        case ev.WoundInflicted() if e.severity == "wound":  # uesrpg: damage after AR over the Wound Threshold
            return f"{n(e.target)}: a wound to the {e.location} (damage over the Wound Threshold)"
        case ev.WoundInflicted():
            return f"{n(e.target)}: {e.severity.capitalize()} Wound to the {e.location}"
        case ev.WoundEased():
            why = f" ({e.reason})" if e.reason else ""
            return f"{n(e.target)}: the wound to the {e.location} is now {e.severity}{why}"
        case ev.ConditionApplied() if e.condition.name in QUIET_CONDITIONS:
            return ""
        case ev.ConditionExpired() if e.condition_id.split(":", 1)[0] in QUIET_CONDITIONS:
            return ""
        case ev.ConditionApplied():
            c = e.condition
            where = f" ({c.location})" if c.location else ""
            count = f" ×{c.effects['lost-actions']}" if "lost-actions" in c.effects else (
                f", {c.ends.count} rounds left" if c.ends.kind == "rounds" else ""
            )
            why = f" — {c.note}" if c.note else ""
            return f"{n(e.handle)}: {c.name}{where}{count}{why}"
        case ev.ConditionExpired():
            return f"{n(e.handle)}: {e.condition_id} ends ({e.reason})"
        case ev.StanceChanged():
            return f"{n(e.handle)} is now {e.stance}" + (f" ({e.reason})" if e.reason else "")
        case ev.CombatantMoved():
            away = f" away from {n(e.away_from)}" if e.away_from else ""
            return f"{n(e.handle)} moves {e.distance:g} m{away} ({e.reason})"
        case ev.WeaponDropped():
            return f"{n(e.handle)} drops {e.weapon}" + (f" ({e.reason})" if e.reason else "")
        case ev.WeaponReadied():
            return f"{n(e.handle)} readies {e.weapon}"
        case ev.StatusChanged():
            return f"{n(e.handle)} is {e.status.upper()}" + (f" ({e.reason})" if e.reason else "")
        case ev.ActionSpent():
            if e.reason.startswith("lost"):
                return f"{n(e.handle)} loses {'an' if terms.action[0] in 'AEIOU' else 'a'} {terms.action} ({e.reason[5:].strip('()')})"
            return ""
        case ev.FightEnded():
            return f"The fight is over: side {e.winner} wins ({e.reason})" if e.winner else f"The fight is over ({e.reason})"
        case ev.RoundEnded():
            return f"End of round {e.round}"
        case ev.ExchangeEnded():
            return ""
        case ev.NoteAdded():
            return ("GM note (secret): " if e.secret else "GM note: ") + e.text
        case ev.EncounterClosed():
            return f"Encounter closed; dice seed revealed: {e.seed}"
        case ev.SaltAdded():
            return f"Salt added ({e.value!r}): it is mixed into every engine roll from #{e.from_index} on"
        case ev.CommandRetracted():
            return f"Undo: command {e.command_id} retracted"
        case ev.CommandRestored():
            return f"Redo: command {e.command_id} restored"
        case ev.EncounterRewound():
            return f"Rewound to version {e.to_version}"
        case ev.HitPointsSet():
            return f"GM ruling: {n(e.handle)}'s {e.location} now has {e.hp} HP ({e.reason})"
        case ev.CombatantOut():
            return f"GM ruling: {n(e.handle)} is out of the fight, {e.how} ({e.reason})"
        case ev.FightRuledOver():
            return (f"GM ruling: the fight ends, side {e.winner} wins ({e.reason})" if e.winner
                    else f"GM ruling: the fight ends in a draw ({e.reason})")
        case ev.RulingChanged():
            return f"GM ruling: {e.name} is now {e.value}" + (f", was {e.was}" if e.was else "") + f" ({e.reason})"
        case ev.HitPointsRestored():
            return f"{n(e.handle)}'s {e.location} regains {e.amount} HP ({e.reason})"
        case ev_mrq1.ImpaleChosen():
            return f"{n(e.attacker)} chooses to {e.choice} the {e.weapon}"
        case ev_mrq1.GiveGroundChosen():
            return f"{n(e.attacker)} {'follows' if e.follow else 'stays'}"
        case ev_mrq1.ActionTaken():
            return e.text
        case ev_mrq1.SpellCast():
            if e.success:
                return f"{n(e.handle)} casts {e.spell} ({e.actions} combat action{'s' if e.actions != 1 else ''}); the GM applies its effect"
            return f"{n(e.handle)}'s {e.spell} fails" + (f" ({e.reason})" if e.reason else "")
        case ev_mrq1.ItemDamaged():
            state = "broken" if e.hp_left <= 0 else f"{e.hp_left} HP left"
            return f"{e.rolled} damage to {n(e.handle)}'s {e.item} (AP {e.ap}) → {state}"
        case ev_mrq1.AreaEffect():
            return f"{e.name}: {e.damage} damage to {', '.join(n(h) for h in e.targets)}; each may dive for cover"
        case ev_mrq1.GrappleManoeuvred():
            return e.outcome or f"{n(e.handle)}: {e.manoeuvre} {'succeeds' if e.success else 'fails'}"
        case ev_mrq1.HeroPointSpent():
            what = {"second-chance": "Second Chance (a re-roll)", "glancing-blow": f"Glancing Blow ({e.location}: Major to Serious)",
                    "luck": f"Luck of the Heroes: {e.note}"}.get(e.option, e.option)
            return f"{n(e.handle)} spends a Hero Point on {what}; {e.left} left"
        case ev_mrq1.RidingTested():
            return f"{n(e.handle)} {'keeps' if e.success else 'loses'} control of {n(e.mount)}" + ("" if e.success else ": it flees this round")
        case ev_mythras.SpecialEffectChosen():
            return _special_effect(e, n)
        case ev_mythras.MagicResolved():
            at = f" at {n(e.target)}" if e.target else ""
            what = f": {e.effect}" if e.effect and e.outcome == "takes effect" else ""
            return f"{n(e.caster)}'s {e.spell}{at} {e.outcome}{what}"
        case ev_ues.CombatRollResolved():
            return _ues_combat_roll(e, n)
        case ev_ues.AdvantageChosen():
            if e.advantage == "none":
                return f"{n(e.by)} leaves it: {e.detail}"
            name = e.advantage.replace("-", " ").title()
            return f"{n(e.by)} spends an Advantage on {name}" + (f": {e.detail}" if e.detail else "") + f" (against {n(e.against)})"
        case ev_ues.BlockResolved():
            how = f", {e.note}" if e.note else ""
            if e.held:
                return f"{n(e.defender)}'s {e.shield} holds: {e.damage} damage against BR {e.br}{how}, no damage taken"
            return f"{n(e.defender)}'s {e.shield} is beaten: {e.damage} damage over BR {e.br}{how}; the full damage lands on the shield arm"
        case ev_rm.AttackLookedUp():
            return _rm_attack(e, n)
        case ev_rm.CriticalLookedUp():
            return f"{e.severity} critical ({e.table}, d100={e.roll:02d}, row {e.row_low}-{e.row_high}) on {n(e.target)}: {e.text}"
        case ev_rm.TerrainLookedUp():
            return f"{n(e.handle)} is knocked back into {e.terrain} ({e.table}): {e.text}"
        case ev_rm.ChargeLanded():
            crit = f", {e.severity_from or 'no'} critical → {e.severity}" if e.severity != e.severity_from else ""
            return f"{n(e.attacker)}'s charge at {e.speed} m/s: {e.hits_from} hits → {e.hits}{crit}"
        case ev_rm.CriticalSplit():
            return f"{e.severity} critical on {n(e.target)}: {e.table} has no {e.severity} column, so it is rolled as {' + '.join(e.parts)}"
        case ev_rm.FumbleLookedUp():
            return f"{n(e.handle)} fumbles ({e.table}, d100={e.roll:02d}): {e.text}"
        case ev_rm.ManeuverResolved():
            dice = "+".join(f"{d:02d}" for d in e.dice)
            extra = f"; {e.unusual}" if e.unusual else ""
            value = f" → +{e.value} DB" if e.maneuver == "dodge" else ""
            outcome = e.outcome.replace("-", " ") if e.where == "band" else (e.outcome or "the column's number")
            return (f"{n(e.handle)}: {e.maneuver} {dice}={e.roll}{_mods(e.parts)} = {e.total} on {e.table}"
                    f" ({e.column}): {outcome}{value}{extra}")
        case ev_rm.ActionDeclared():
            if e.hold:
                return f"{n(e.handle)} declares on {e.count}: {e.action} ({e.ap} AP), held until {e.hold}"
            if e.resolves_at == e.count:
                return f"{n(e.handle)} declares on {e.count}: {e.action} ({e.ap} AP)"
            return f"{n(e.handle)} declares on {e.count}: {e.action} ({e.ap} AP), resolving on {e.resolves_at}"
        case ev_rm.ActionReadied():
            return f"{n(e.handle)}'s held action ({e.action}) is ready on {e.count}, waiting until {e.hold}"
        case ev_rm.ActionTriggered():
            return f"{n(e.handle)}'s held action ({e.action}) is triggered on {e.count}: {e.hold}"
        case ev_rm.ActionDropped():
            spent = f" ({e.spent} AP gone)" if e.spent else ""
            return f"{n(e.handle)}'s action ({e.action}) is {e.how} on {e.count}: {e.reason}{spent}"
        case ev_rq3.IntentDeclared():
            kinds = {3: "triple move, no melee actions", 2: "double move and one melee action", 1: "single move and two melee actions"}
            acts = f": {'; '.join(e.actions)}" if e.actions else ""
            return f"{n(e.handle)} states their intent: {kinds.get(e.moves, e.moves)}{acts}" + ("; braced" if e.brace else "")
        case ev_rq3.ActionAborted():
            instead = f": {e.replacement} instead" if e.replacement else ""
            what = {"plain": "drops", "defensive": "makes a Defensive Abort of", "movement": "makes a Movement Abort of"}
            return f"{n(e.handle)} {what.get(e.abort, e.abort)} declared action {e.slot}{instead}"
        case ev_rq3.ManeuverContested():
            won = f"{n(e.winner)} wins" if e.winner else "the same level: nothing changes"
            return (f"Contest of Maneuver ({e.purpose}): {n(e.mover)} {e.mover_level}, "
                    f"{n(e.against)} {e.against_level}; {won}")
        case ev_rq3.ActionResolved():
            return f"SR {e.sr}: {n(e.handle)} {e.kind.replace('-', ' ')}" + (f" ({e.detail})" if e.detail else "")
        case ev_rq3.SpecialApplied():
            return f"{n(e.by)}'s {e.effect} special: {e.detail}"
    return ""


#: uesrpg defences (seed 003 Step 2) as the log tells them.
_UES_DEFENCES = {"evade": "evades", "block": "blocks", "counter": "counter-attacks"}

#: uesrpg outcome rows (seed 003 Step 3) as the log tells them.
_UES_ROWS = {
    "both-fail": "both fail: neither attack nor defence resolves",
    "both-critical": "both critical: nothing resolves and no Advantage is gained",
    "both-fumble": "both critical failures: nothing resolves and no Advantage is gained",
    "attacker-wins": "one fails: the attack hits",
    "defender-wins": "one fails: the defence holds",
    "attack-vs-block": "both pass, attack vs Block: the block holds whatever the DoS",
    "attack-vs-parry": "both pass, attack vs Parry: the attacker needs more DoS",
    "attack-vs-evade": "both pass, attack vs Evade: the attacker needs more DoS",
    "counter-attack": "both pass, Counter-Attack: more DoS hits, equal DoS resolves nothing",
}


def _ues_side(roll: int, tn: int, result: str, degrees: int) -> str:
    if not roll:
        return "no defence (an automatic failure)"
    grade = {"fumble": "critical failure"}.get(result, result)
    unit = "DoS" if result in ("critical", "success") else "DoF"
    return f"{roll:02d} vs {tn}% {grade}, {degrees} {unit}"


def _ues_combat_roll(e, n) -> str:
    """A uesrpg combat roll: both tests with their DoS/DoF, the row of the
    outcome table, who is struck and the Advantages gained."""
    defence = "" if e.defence == "none" else f"{e.defence} "
    text = (f"Combat roll: {n(e.attacker)} {_ues_side(e.attack_roll, e.attack_tn, e.attack_result, e.attack_degrees)}; "
            f"{n(e.defender)} {defence}{_ues_side(e.defence_roll, e.defence_tn, e.defence_result, e.defence_degrees)} "
            f"→ {_UES_ROWS.get(e.row, e.row)}")
    if e.hits:
        text += f"; {n(e.attacker if e.hits == 'attacker' else e.defender)} is struck"
        if e.row == "defender-wins" or (e.row == "counter-attack" and e.hits == "attacker"):
            text += " by the counter-attack"
    elif e.blocked:
        text += "; the damage is rolled against the Block Rating"
    elif e.winner == "defender":
        text += f"; {n(e.defender)}'s {e.defence} holds"
    if e.advantages:
        text += f"; {n(e.attacker if e.advantage_to == 'attacker' else e.defender)} gains {e.advantages} Advantage{'s' if e.advantages > 1 else ''}"
    return text


def _rm_attack(e, n) -> str:
    """A rolemaster attack lookup in one line: roll, OB, DB, table, cell."""
    if e.fumble:
        return f"{n(e.attacker)}: {e.first:02d} is within the fumble range {e.fumble_range[0]}-{e.fumble_range[1]} of {e.weapon}: a fumble"
    dice = "+".join(f"{d:02d}" for d in e.dice)
    article = "an" if e.severity in ("A", "E", "F") else "a"
    result = "a miss" if not e.hits else f"{e.hits} hits" + (f" and {article} {e.severity} critical ({e.crit_type})" if e.severity else "")
    return (f"{n(e.attacker)}: {dice}={e.roll} +{e.ob} OB −{e.db} DB = {e.total} on {e.table}"
            f" [{e.row_low}..{e.row_high}, {e.column}] → {e.cell}: {result}")


#: Special Effect keys (mythras, seed 001 "Special Effects Table") as the
#: table names them.
_EFFECT_NAMES = {
    "accidental-injury": "Accidental Injury", "arise": "Arise", "bash": "Bash", "bleed": "Bleed",
    "blind-opponent": "Blind Opponent", "bypass-armor": "Bypass Armor", "choose-location": "Choose Location",
    "circumvent-parry": "Circumvent Parry", "damage-weapon": "Damage Weapon", "disarm-opponent": "Disarm Opponent",
    "enhance-parry": "Enhance Parry", "entangle": "Entangle", "force-failure": "Force Failure", "grip": "Grip",
    "impale": "Impale", "sharpshooter": "Sharpshooter", "maximize-damage": "Maximize Damage",
    "prepare-counter": "Prepare Counter", "rapid-reload": "Rapid Reload", "scar-foe": "Scar Foe",
    "select-target": "Select Target", "slip-free": "Slip Free", "stun-location": "Stun Location", "sunder": "Sunder",
    "trip-opponent": "Trip Opponent", "withdraw": "Withdraw",
}


def _special_effect(e, n) -> str:
    """A mythras Special Effect pick, so the table sees which effect was
    chosen, by whom, against whom (and its detail: the location chosen, a
    bystander, a grade). Prepare Counter never says what it counters: that
    is in a secret condition."""
    name = _EFFECT_NAMES.get(e.effect, e.effect)
    if e.effect == "prepare-counter":
        return f"{n(e.by)} chooses Prepare Counter against {n(e.against)} (the effect countered is noted in secret)"
    if e.detail == "countered":
        return f"{n(e.by)} tries {name} against {n(e.against)}, but it is countered"
    detail = e.detail
    if e.effect == "select-target" and detail:
        detail = n(detail)
    return f"{n(e.by)} chooses {name} against {n(e.against)}" + (f" ({detail})" if detail else "")


def describe_roll(e: ev.DiceRolled) -> str:
    """``1D8=6 (engine roll #4)`` or ``1D100=71 (table dice typed by sam)``."""
    faces = "+".join(str(f) for f in e.faces)
    src = f"engine roll #{e.index}" if e.source == "engine" else f"table dice typed by {e.typed_by or 'the GM'}"
    shown = f"{faces}={e.total}" if len(e.faces) > 1 else f"{e.total}"
    return f"{e.expr}={shown} ({src}) for {e.purpose}"


def is_secret(e: ev.Event) -> bool:
    """Whether ``e`` is secret (left out of exports unless asked for): a
    secret GM note, a condition marked ``secret`` (mythras Prepare
    Counter), or the record of a command issued as ``secret`` (the choice
    that set it)."""
    if isinstance(e, ev.NoteAdded):
        return e.secret
    if isinstance(e, ev.ConditionApplied):
        return bool(e.condition.effects.get("secret"))
    if isinstance(e, ev.CommandIssued):
        return bool(e.command.get("secret"))
    return False


def in_rounds(round_no: int, rounds: tuple[int, int] | None) -> bool:
    """Whether ``round_no`` (0: setup) is in the inclusive ``rounds`` span
    (``None``: every round)."""
    return not rounds or rounds[0] <= round_no <= rounds[1]


def rounds_by_version(records: list[Recorded], timeline: Timeline | None = None) -> dict[int, int]:
    """version -> the round each event belongs to: the newest *live*
    ``RoundStarted`` at or before it (0, the setup, before round 1)."""
    tl = timeline if timeline is not None else Timeline(records)
    out: dict[int, int] = {}
    current = 0
    for rec in records:
        if isinstance(rec.event, ev.RoundStarted) and tl.status(rec.command_id) == "live":
            current = rec.event.round
        out[rec.version] = current
    return out


def entries(records: list[Recorded], names: dict[str, str], *, dice: bool = False, system: str = "") -> list[Entry]:
    """Readable entries for ``records`` (a whole encounter log), each with
    its status after undo and rewind. ``dice`` adds a line per roll;
    ``system`` as for :func:`iter_entries`.

    Every entry also carries the rolls that led to it (``source``/``rolls``):
    the ``DiceRolled`` events of its command since the previous entry (rolls
    left over at the end of a command go to that command's last entry). Its
    ``exchange`` is the number of the exchange in progress: set by any event
    that names one (``AttackDeclared`` ... ``WoundInflicted``), cleared by a
    live ``ExchangeEnded`` or ``RoundStarted``.

    The list form of :func:`iter_entries`.
    """
    records = list(records)
    return list(iter_entries(records, names, Liveness(r for r in records if is_meta(r.event)), dice=dice, system=system))


def command_batches(records: Iterable[Recorded], liveness: Liveness) -> Iterator[tuple[str, list[Recorded]]]:
    """``(status, records)`` per command, in log order, from a stream of one
    encounter's records: each command's events are consecutive, so a batch
    ends where the command id changes, and its status (``live``,
    ``retracted``, ``void``, ``meta``) is then known from ``liveness`` (the
    encounter's meta events) and the batch alone. Holds one command at a time."""
    batch: list[Recorded] = []
    for rec in records:
        if batch and rec.command_id != batch[0].command_id:
            yield _status(batch, liveness), batch
            batch = []
        batch.append(rec)
    if batch:
        yield _status(batch, liveness), batch


def _status(batch: list[Recorded], liveness: Liveness) -> str:
    return liveness.status(batch[0].command_id, (r.version for r in batch if not is_meta(r.event)))


def iter_entries(
    records: Iterable[Recorded], names: dict[str, str], liveness: Liveness, *, dice: bool = False, round_no: int = 0,
    system: str = "",
) -> Iterator[Entry]:
    """:func:`entries` as a stream: ``records`` is walked once, in version
    order, and at most one command's entries are held at a time.
    ``liveness`` comes from the encounter's meta events (``store.read_meta``),
    ``names`` from its ``CombatantJoined`` events. Each entry's round is that
    of the newest live ``RoundStarted`` at or before it, as the stream goes;
    ``round_no`` is the round in progress where ``records`` start (for a
    stream that starts mid-log, at a command's first event). ``system`` is
    the encounter's rule system key, whose words the lines use
    (:func:`narrate`); ``""`` takes it from the ``EncounterOpened`` of the
    stream, when it starts there."""
    current_round = round_no
    exchange = 0
    for status, batch in command_batches(records, liveness):
        live = status == "live"
        out: list[Entry] = []
        held: list[str] = []  # rolls of this command not yet shown with an entry
        held_recs: list[Recorded] = []  # their records
        for rec in batch:
            e = rec.event
            if isinstance(e, ev.EncounterOpened) and not system:
                system = e.system
            if isinstance(e, ev.RoundStarted) and live:
                current_round = e.round
                exchange = 0
            number = getattr(e, "exchange", 0)
            if number:
                exchange = number
            if isinstance(e, ev.ExchangeEnded) and live:
                exchange = 0
            rolls: tuple[str, ...] = ()
            recs: tuple[Recorded, ...] = ()
            if isinstance(e, ev.DiceRolled):
                described = describe_roll(e)
                if not dice:
                    held.append(described)
                    held_recs.append(rec)
                    continue
                text = "roll: " + described
                rolls = (described,)
                recs = (rec,)
            else:
                text = narrate(e, names, system)
            if not text:
                continue
            if held:
                rolls = tuple(held) + rolls
                recs = tuple(held_recs) + recs
                held.clear()
                held_recs.clear()
            out.append(
                Entry(
                    version=rec.version,
                    round=current_round,
                    command_id=rec.command_id,
                    actor=rec.actor,
                    status=status,
                    text=text,
                    kind=rec.type,
                    secret=is_secret(e),
                    source="; ".join(rolls),
                    exchange=exchange,
                    rolls=rolls,
                    dice=recs,
                )
            )
        if held and out:
            last = out[-1]
            last.rolls += tuple(held)
            last.dice += tuple(held_recs)
            last.source = "; ".join(last.rolls)
        yield from out


def system_of(records: Iterable[Recorded]) -> str:
    """The rule system key of the ``EncounterOpened`` in ``records`` (``""``
    when there is none)."""
    return next((r.event.system for r in records if isinstance(r.event, ev.EncounterOpened)), "")


def names_of(records: Iterable[Recorded]) -> dict[str, str]:
    """handle -> display name from every ``CombatantJoined`` in ``records``."""
    return {r.event.handle: r.event.name for r in records if isinstance(r.event, ev.CombatantJoined)}
