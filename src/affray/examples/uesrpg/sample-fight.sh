#!/bin/sh
# The UESRPG 3e sample fight (seed 003), typed as at a table with --manual-dice:
# Hrolfdar (Nord PC, axe and shield) against Vethis Ilnoth (Dunmer NPC, sword
# and buckler). It shows a critical with two Advantages and a wound over the
# Wound Threshold, a block that holds, a parry lost on DoS, a block that fails
# onto the shield arm and a counter-attack. tests/test_uesrpg_cli.py plays
# these lines; tests/test_uesrpg_golden.py plays the same fight from Python
# and works every figure out in its comments.
#
# Run from this folder in a scratch directory: AFFRAY_DB=/tmp/sample.db sh sample-fight.sh
set -e
affray new "UESRPG sample fight" --system uesrpg --manual-dice
affray join hrolfdar.toml --side heroes --handle hrolfdar
affray join vethis.toml --side sellswords --handle vethis
affray start --dice 6,1
# Round 1: a Lucky 27 against a failed Evade: two Advantages; a wound to the leg
affray attack hrolfdar vethis
affray react vethis evade
affray roll --dice 27,80
affray choose hrolfdar "precision-strike:right leg"
affray choose hrolfdar forceful-impact
affray roll --dice 6,5
affray roll --dice 20
# a block that holds (6 against BR 7)
affray attack vethis hrolfdar
affray react hrolfdar block
affray roll --dice 42,30
affray roll --dice 6
affray end-round
# Round 2: a parry lost on DoS (5 against 3 + 1 for the buckler)
affray attack hrolfdar vethis
affray react vethis parry
affray roll --dice 55,35
affray roll --dice 1,1
# a block that fails: 8 over BR 7 lands on the shield arm
affray attack vethis hrolfdar
affray react hrolfdar block
affray roll --dice 38,12
affray roll --dice 8
affray end-round
# Round 3: a counter-attack; the attacker has more DoS and hits
affray attack hrolfdar vethis
affray react vethis counter
affray roll --dice 45,21
affray roll --dice 3,2
affray export --format markdown
