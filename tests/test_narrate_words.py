"""Narration grammar (issue 15, mythras item 12: "<name> evade" for
"evades"): a reaction reads as a verb in the third person."""

from affray.events import core as ev
from affray.views.narrate import narrate


def test_an_evade_reads_evades():
    line = narrate(ev.ReactionChosen(exchange=1, handle="kaelin", reaction="evade"), {"kaelin": "Kaelin"})
    assert line == "Kaelin evades"


def test_parry_and_dodge_keep_their_verbs():
    names = {"a": "Ann"}
    assert narrate(ev.ReactionChosen(exchange=1, handle="a", reaction="parry", with_item="Shield"), names) == "Ann parries with Shield"
    assert narrate(ev.ReactionChosen(exchange=1, handle="a", reaction="dodge"), names) == "Ann dodges"
