"""``affray state`` says what the table waits for and whose step it is,
and the weapons in hand; it does not say "Acting now" while a reaction is
pending (issue 16, item 7)."""

from __future__ import annotations


def test_state_names_the_turn_step_and_the_weapons_in_hand(fight):
    text = fight.ok("state").stdout
    assert "Acting now: Vasana" in text
    assert "Waiting for Vasana: " in text and "(affray attack)" in text
    assert "    in hand: Broadsword, Target Shield" in text
    data = fight.state()
    assert [w["who"] for w in data["waiting_for"]] == ["vasana"]
    assert data["waiting_for"][0]["verb"] == "attack"


def test_state_while_a_reaction_is_pending(fight):
    fight.ok("attack", "vasana", "broo1", "--dice", "20")
    text = fight.ok("state").stdout
    assert "Acting now" not in text
    assert "Turn of: Vasana, once the table has what it waits for" in text
    assert "Waiting for Broo 1: " in text and "(affray react)" in text
    assert [w["verb"] for w in fight.state()["waiting_for"]] == ["react"]


def test_state_after_the_fight_waits_for_nothing(fight):
    fight.ok("end", "--winner", "heroes", "--reason", "the broo ran")
    text = fight.ok("state").stdout
    assert "Waiting for" not in text and "Acting now" not in text and "Winner: heroes" in text
    assert fight.state()["waiting_for"] == []
