#!/bin/sh
# A sample rolemaster fight under the default rulings, typed by hand:
# Kestrel against Gruk on the RMH countdown, where each action is declared
# at its maker's count and resolves when its Action Points are spent
# (ruling resolution=when-spent). It is the golden fight of
# tests/test_rolemaster_golden.py (COUNTDOWN; the figures are worked out
# there): declarations and resolutions interleave, an attack is lost to a
# stun, a held attack is triggered, an action is cancelled. The tables are
# affray's INVENTED samples.
#
#   AFFRAY_DB=/tmp/rmc.db sh sample-countdown.sh && affray --db /tmp/rmc.db why gruk body
set -e
cd "$(dirname "$0")"
export AFFRAY_ACTOR="${AFFRAY_ACTOR:-gm}"
affray new "Golden rolemaster countdown" --system rolemaster --manual-dice
affray join kestrel.toml --side heroes
affray join gruk.toml --side orcs
affray start --dice 10,5,3,4
affray attack kestrel gruk --situation parry=20
affray attack gruk kestrel
affray react gruk parry:30 --dice 97,40
affray roll --dice 85
affray end-round --dice 8,6,9,9
affray attack kestrel gruk
affray attack gruk kestrel
affray react gruk none --dice 30
affray react kestrel none --dice 02
affray roll --dice 80
affray end-round --dice 9,9,8,6
affray attack kestrel gruk --situation "hold=gruk strikes"
affray act gruk draw Club
affray attack gruk kestrel --situation ap=3
affray act kestrel trigger
affray react gruk none --dice 60
affray react kestrel none --dice 75
affray end-round --dice 5,5,5,5
affray attack kestrel gruk
affray act kestrel cancel
affray attack kestrel gruk --situation ap=3
affray attack gruk kestrel
affray react gruk none --dice 99,98,40
affray roll --dice 95
affray end-round --dice 5,5,5,5
affray attack kestrel gruk
affray attack gruk kestrel
affray react gruk none --dice 90
affray roll --dice 20
