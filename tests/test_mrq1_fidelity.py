"""Rule fidelity for mrq1 (issue 15, "mrq1 (seed 004)"), each item played
through the real command path with table dice.

Every test names its seed section (seed 004_71637fb3cfde52c9.txt) and quotes
the seed's words it checks. Figures come from the example sheets (see
``test_mrq1_flow`` and ``test_mrq1_grapple``).
"""

from __future__ import annotations

from affray.events import commands as cmd
from affray.events import core as ev
from affray.events import mrq1 as ev_mrq1

from test_mrq1_grapple import G, grappled

# --------------------------------------------------------------------------- #
# Item 3: Immobilise in a one-on-one fight does not end the fight
# --------------------------------------------------------------------------- #


def test_immobilise_one_on_one_keeps_the_fight_going():
    """Seed 004 "Grappling Combatants": "Grappling combatants will remain
    locked together until one combatant breaks free or is thrown out of the
    grapple"; Immobilise: "While immobilised, enemies are considered
    helpless". The held Broo is helpless, not out of the fight: Ulfrik's
    next turn still offers Inflict Pain and Throw, and the fight is not over."""
    t = grappled()
    t(cmd.TakeAction(who="broo", action="pass"))
    t(G(who="ulfrik", manoeuvre="immobilise"), "42")
    assert t.c("broo").has("immobilised") and not t.c("broo").can_fight
    assert t.state.phase == "round" and not t.state.winner
    assert not t.new(ev.FightEnded)
    step = t.step()
    assert (step.kind, step.who) == ("turn", "ulfrik")
    assert {"inflict-pain", "throw"} <= set(step.options)
    # Inflict Pain on the held foe: 70 - (DEX 13 + CON 12) = 45
    t(G(who="ulfrik", manoeuvre="inflict-pain"), "45")
    assert t.one(ev_mrq1.GrappleManoeuvred).success
    assert t.step().kind == "grapple-damage"


def test_throw_of_an_immobilised_foe_frees_him_and_the_fight_goes_on():
    """Seed 004 "Grappling Combatants", Throw: "the opponent is thrown 2
    metres and suffers 1D6 damage, applied to a random location. The
    grapple ends in this case." Thrown, the Broo is no longer immobilised
    and fights on."""
    t = grappled()
    t(cmd.TakeAction(who="broo", action="pass"))
    t(G(who="ulfrik", manoeuvre="immobilise"), "42")
    t(G(who="ulfrik", manoeuvre="throw"), "40")  # 70 - (DEX 13 + SIZ 13) = 44
    assert t.one(ev_mrq1.GrappleManoeuvred).success
    assert not t.c("broo").has("immobilised") and not t.c("broo").has("grappling")
    t(cmd.RollPending(), "3,11")
    assert t.state.phase == "round" and t.c("broo").can_fight
