#!/bin/sh
# A sample rolemaster fight typed by hand: Kestrel against Gruk, every die
# from --dice. It is the golden fight of tests/test_rolemaster_golden.py
# (the figures are worked out there) and shows an open-ended roll that
# chains, a parry allocation, a critical that stuns, the stun wearing off,
# a fumble and dodges. The tables are affray's INVENTED samples. It is
# scripted one exchange after another, so it opens with the ruling
# resolution=when-declared (the default resolves each action when its
# Action Points are spent, further down the countdown).
#
#   AFFRAY_DB=/tmp/rm.db sh sample-fight.sh && affray --db /tmp/rm.db why gruk
set -e
cd "$(dirname "$0")"
export AFFRAY_ACTOR="${AFFRAY_ACTOR:-gm}"
affray new "Golden rolemaster duel" --system rolemaster --manual-dice --ruling resolution=when-declared
affray join kestrel.toml --side heroes
affray join gruk.toml --side orcs
affray start --dice 10,5,3,4
affray attack kestrel gruk --situation parry=20
affray react gruk parry:30 --dice 97,40
affray roll --dice 85
affray act gruk pass
affray end-round --dice 8,6,9,9
affray attack kestrel gruk
affray react gruk none --dice 30
affray attack gruk kestrel
affray react kestrel none --dice 02
affray roll --dice 80
affray end-round --dice 9,9,8,6
affray attack kestrel gruk
affray react gruk dodge --dice 75,60
affray end-round --dice 5,5,5,5
affray attack kestrel gruk
affray react gruk dodge --dice 10,99,98,40
affray roll --dice 95
affray end-round --dice 5,5,5,5
affray attack kestrel gruk
affray react gruk dodge --dice 30,85
affray roll --dice 20
