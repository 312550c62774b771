"""Narration grammar (issue 15, mythras item 12: "<name> evade" for
"evades"): a reaction reads as a verb in the third person."""

from affray.events import commands as cmd
from affray.events import core as ev
from affray.views.narrate import narrate


def test_an_evade_reads_evades():
    line = narrate(ev.ReactionChosen(exchange=1, handle="kaelin", reaction="evade"), {"kaelin": "Kaelin"})
    assert line == "Kaelin evades"


def test_parry_and_dodge_keep_their_verbs():
    names = {"a": "Ann"}
    assert narrate(ev.ReactionChosen(exchange=1, handle="a", reaction="parry", with_item="Shield"), names) == "Ann parries with Shield"
    assert narrate(ev.ReactionChosen(exchange=1, handle="a", reaction="dodge"), names) == "Ann dodges"


# --------------------------------------------------------------------------- #
# Each system's own words (issue 15, mythras item 12)
# --------------------------------------------------------------------------- #


def _order():
    return ev.RoundStarted(round=1, order=(ev.InitiativeEntry(handle="a", rank=17, detail="d10=7 +13 −3 armour = 17"),),
                           combat_actions={"a": 2}, reactions={})


def _joined(actions: int):
    return ev.CombatantJoined(handle="a", name="Ann", side="heroes", sheet={}, locations=(), combat_actions=actions,
                              reactions=0)


def test_mythras_narration_says_initiative_and_action_points():
    """Seed 001 "Initiative": "The Games Master counts down through
    Initiative values from the highest to the lowest"; "Actions in Combat":
    "All beginning characters get 2 Action Points per Round". No "Strike
    ranks", no "combat actions" in a mythras log."""
    names = {"a": "Ann"}
    assert narrate(_order(), names, "mythras") == "Round 1 begins. Initiative: Ann 17 (d10=7 +13 −3 armour)"
    assert narrate(_joined(2), names, "mythras") == "Ann joins side heroes (2 Action Points)"
    assert narrate(_joined(1), names, "mythras") == "Ann joins side heroes (1 Action Point)"


def test_mrq1_and_a_log_without_a_system_keep_strike_ranks_and_combat_actions():
    """Seed 004 "Strike Ranks", "Combat Actions": mrq1's words are kept
    (its golden fights stay byte-identical)."""
    names = {"a": "Ann"}
    for system in ("mrq1", ""):
        assert narrate(_order(), names, system) == "Round 1 begins. Strike ranks: Ann 17 (d10=7 +13 −3 armour)"
        assert narrate(_joined(3), names, system) == "Ann joins side heroes (3 combat actions)"


def test_a_mythras_log_and_export_use_mythras_words_throughout():
    """The log and every export of a mythras fight (the words come from
    the encounter's system, found in its log)."""
    from affray.views.export import export
    from affray.views.log_view import log_entries
    from test_mythras_flow import kaelin_first

    t = kaelin_first()
    t(cmd.TakeAction(who="kaelin", action="pass"))
    texts = [e.text for e in log_entries(t.store, t.eid)]
    assert "Round 1 begins. Initiative: Kaelin 17 (d10=7 +13 −3 armour), Grusk 13 (d10=5 +10 −2 armour)" in texts
    assert "Kaelin joins side heroes (2 Action Points)" in texts
    tail = [e.text for e in log_entries(t.store, t.eid, tail=200)]
    assert tail == texts
    assert [e.text for e in log_entries(t.store, t.eid, round_no=1)][0].startswith("Round 1 begins. Initiative:")
    for view in ("record", "table"):
        for fmt in ("markdown", "bbcode", "discord", "html"):
            out = export(list(t.store.read(t.eid)), fmt, view=view)
            assert "Strike ranks" not in out and "combat action" not in out, (fmt, view)
            assert "Initiative:" in out, (fmt, view)


def test_mythras_state_shows_one_action_points_column():
    """Seed 001 "Actions in Combat": mythras counts Action Points only (no
    reactions allowance): ``affray state`` has an AP column, not CA/React."""
    from affray.cli.tables import state_lines
    from test_mythras_flow import kaelin_first

    t = kaelin_first()
    lines = state_lines(t.state)
    header = next(l for l in lines if l.startswith("Combatant"))
    assert header.split() == ["Combatant", "Side", "Status", "AP"]
    assert next(l for l in lines if l.startswith("Kaelin")).split()[-1] == "2/2"
