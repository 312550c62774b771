"""``affray audit``: every recorded decision re-derived with today's rules.

An untouched log re-derives to itself (0 differences), on table dice and on
engine dice, after undos, re-rolls, rewinds, amends and branches. When a
rule changes (here a Parry table cell swapped by monkeypatch, or a ruling's
table), the audit names the commands it would decide otherwise. The audit
only reads: the number of rows never changes.
"""

from __future__ import annotations

import json


from affray.audit import audit_encounter, audit_records, report_lines
from affray.cli import travel as cli_travel
from affray.cli.app import app
from affray.events import commands as cmd
from affray.commands.handler import execute
from affray.commands.amend import amend
from affray.commands.demo import autoplay, setup
from affray.events import core as ev
from affray.rules.mrq1 import tables
from affray.store import EventStore

from test_golden import SCRIPT, open_duel

cli_travel.register(app)


def _golden() -> tuple[EventStore, str]:
    store = EventStore(":memory:")
    eid = open_duel(store, manual=True)
    for command, dice in SCRIPT:
        execute(store, command, encounter_id=eid, dice=dice, actor="gm")
    return store, eid


def rows(store, eid) -> list[tuple]:
    return list(store.read_raw(eid))


def test_an_untouched_log_re_derives_to_itself():
    store, eid = _golden()
    before = rows(store, eid)
    report = audit_encounter(store, eid)
    fight_commands = len(SCRIPT) + 2  # and the two joins
    assert (report.checked, report.differences, report.skipped) == (fight_commands, [], [])
    assert report_lines(report) == [f"audit: {fight_commands} commands re-derived, 0 differ"]
    assert rows(store, eid) == before


def test_engine_dice_fights_with_undos_rewinds_and_rerolls_re_derive():
    store = EventStore(":memory:")
    eid = setup(store, "duel", seed=b"audit me", allow_short_seed=True, actor="gm")
    autoplay(store, eid, max_commands=12)
    execute(store, cmd.Undo(), encounter_id=eid)
    execute(store, cmd.Undo(), encounter_id=eid)
    execute(store, cmd.Rewind(to_point="1.2"), encounter_id=eid)
    autoplay(store, eid)
    report = audit_encounter(store, eid)
    assert report.differences == [] and report.checked > 10

    manual = EventStore(":memory:")
    m = open_duel(manual, manual=True)
    for command, dice in SCRIPT[:3]:
        execute(manual, command, encounter_id=m, dice=dice)
    execute(manual, cmd.Undo(), encounter_id=m)
    execute(manual, SCRIPT[2][0], encounter_id=m, dice="90,90", reroll="knocked over")  # the note comes last
    assert audit_encounter(manual, m).differences == []


def test_amended_replayed_and_branched_logs_re_derive():
    store, eid = _golden()
    amend(
        store,
        cmd.AmendCommand(target="1.5", modifiers=(ev.Modifier(70, "she saw it coming"),), replay=True),
        encounter_id=eid,
    )
    assert audit_encounter(store, eid).differences == []
    execute(store, cmd.BranchEncounter(name="b", at_point="1.4"), encounter_id=eid)
    report = audit_encounter(store, "b")
    assert report.differences == [] and report.checked == 2 + 1 + 4  # the joins, the start, steps 1.1–1.4


def test_a_swapped_parry_cell_is_reported(monkeypatch):
    """Swap the Parry table's success/success and success/failure cells: the
    golden duel's two parries that read them (1.2 and the parry in round 2)
    now decide otherwise; nothing else does, and nothing is written."""
    store, eid = _golden()
    before = rows(store, eid)
    ss, sf = tables.PARRY[("success", "success")], tables.PARRY[("success", "failure")]
    monkeypatch.setitem(tables.PARRY, ("success", "success"), sf)
    monkeypatch.setitem(tables.PARRY, ("success", "failure"), ss)
    report = audit_encounter(store, eid)
    assert len(report.differences) == 2
    first, second = report.differences
    assert first.command == "react broo1 parry --dice 30,50"
    assert "reaction-resolved" in first.text and "outcome" in first.text
    assert "Attack succeeds as normal" in first.text
    assert second.command == "react broo1 parry --dice 50,10"
    lines = report_lines(report)
    assert lines[-1] == f"audit: {len(SCRIPT) + 2} commands re-derived, 2 differ"
    assert lines[0].startswith(f"{first.command_id} v{first.version} (react broo1 parry --dice 30,50): ")
    assert rows(store, eid) == before


def test_a_rule_that_now_needs_other_dice_or_refuses_is_reported(monkeypatch):
    store, eid = _golden()
    records = list(store.read(eid))
    # a Parry success/success that no longer deducts anything: the damage differs further on
    cell = tables.PARRY[("success", "success")]
    monkeypatch.setitem(tables.PARRY, ("success", "success"), tables.TableCell(cell.outcome, {**cell.effects, "parry_ap_halves": 0}))
    report = audit_records(records, eid)
    assert [d.command for d in report.differences] == ["react broo1 parry --dice 30,50"]
    assert "effects.parry_ap_halves 2 → 0" in report.differences[0].text
    monkeypatch.undo()
    # a dodge table whose failure/success now hits: the exchange goes on to damage
    cell = tables.DODGE[("failure", "success")]
    monkeypatch.setitem(tables.DODGE, ("failure", "success"), tables.TableCell("hit anyway", {**cell.effects, "hit": 1}))
    report = audit_records(records, eid)
    assert [d.command for d in report.differences] == ["react vasana dodge --dice 10,70"]
    assert report.differences[0].text == (
        "reaction-resolved: outcome 'Attack fails' → 'hit anyway'; effects.hit 0 → 1 (+4 more events differ)"
    )
    monkeypatch.undo()
    # damage that is now always maximised rolls no weapon die: the recorded faces no longer fit
    from affray.rules.mrq1 import damage

    plan = damage.damage_plan
    monkeypatch.setattr(damage, "damage_plan", lambda draft: (*plan(draft)[:2], "max", plan(draft)[3]))
    report = audit_records(records, eid)
    texts = {d.command: d.text for d in report.differences}
    assert texts["roll --dice 8,4,11"] == "the recorded dice no longer fit: d4 takes values 1–4; got 8"
    # a step that is now refused
    monkeypatch.undo()
    from affray.rules.mrq1 import attack

    real = attack.declare_attack

    def refuse_broo(draft, attacker, *rest):
        if attacker == "broo1":
            from affray.rules.base import RuleError

            raise RuleError("broo may not attack today")
        return real(draft, attacker, *rest)

    monkeypatch.setattr(attack, "declare_attack", refuse_broo)
    report = audit_records(records, eid)
    assert {d.text for d in report.differences} == {"the rules now refuse it: broo may not attack today"}
    assert len(report.differences) == 2


def test_cli_audit(manual_duel):
    cli = manual_duel
    cli.ok("start", "--dice", "5,3")
    cli.ok("attack", "vasana", "broo1", "--dice", "40")
    cli.ok("react", "broo1", "parry", "--dice", "30,50")
    n = cli.events()
    assert cli.ok("audit").stdout == "audit: 5 commands re-derived, 0 differ\n"
    data = cli.json("audit")
    assert data == {"encounter": "ford", "checked": 5, "differ": 0, "differences": [], "skipped": []}
    assert cli.events() == n


def test_cli_audit_reports_a_changed_table(manual_duel, monkeypatch):
    cli = manual_duel
    cli.ok("start", "--dice", "5,3")
    cli.ok("attack", "vasana", "broo1", "--dice", "40")
    cli.ok("react", "broo1", "parry", "--dice", "30,50")
    n = cli.events()
    ss, sf = tables.PARRY[("success", "success")], tables.PARRY[("success", "failure")]
    monkeypatch.setitem(tables.PARRY, ("success", "success"), sf)
    result = cli("audit")
    assert result.exit_code == 1  # a difference is a finding (issue 11)
    out = result.stdout.splitlines()
    assert len(out) == 2 and out[-1] == "audit: 5 commands re-derived, 1 differ"
    assert "(react broo1 parry --dice 30,50): reaction-resolved:" in out[0]
    as_json = cli("audit", "--json")
    assert as_json.exit_code == 1
    assert json.loads(as_json.stdout)["differences"][0]["command"] == "react broo1 parry --dice 30,50"
    assert cli.events() == n
