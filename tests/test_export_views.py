"""Exports for players and for the record (issue 16, item 1).

The newcomer's evening, end to end through the CLI: a fight with a join
undone, an attack undone and typed again, a round played, rewound away and
played again, and an amend with ``--replay`` (no branch), to the end. Then
``export --view table`` in every format must hold only the live entries, in
play order, with no voided round, each amend as one line, exchanges numbered
1, 2, 3 ..., the roster without the undone join, and the final result; and
``--view record`` must still hold the whole trail. Every format but jsonl
ends with the seed commitment and the head (version and hash).

Also: bbcode's posts (split at round boundaries under a limit), the
``--view``/``--limit`` options' errors, and the table view's building blocks
on the golden duel.
"""

from __future__ import annotations

import io
import json
import random
import re
from html.parser import HTMLParser

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from affray.projections.timeline import Timeline
from affray.store import EventStore
from affray.views.export import FORMATS, export, export_store
from affray.views.formats import bbcode, discord
from affray.views.formats.common import Source, TableWalk
from affray.views.narrate import entries, names_of

from conftest import BROO, GORP, VASANA, Cli
from test_export_stream import random_fight

#: Lines a player must never see in the table view.
TRAIL = ("Undo:", "Redo:", "Rewound to", "amend: replaying", "GM note: amend:", "(void)", "(retracted)")


def _play_the_evening(cli: Cli) -> dict:
    """The fight, as a newcomer plays it; returns what the checks need."""
    cli.ok("new", "Ambush at the ford", "--manual-dice", "--seed", "00ff")
    cli.ok("join", VASANA, "--side", "heroes")
    cli.ok("join", BROO, "--name", "Broo 1", "--side", "broo")
    cli.ok("join", GORP, "--side", "broo")
    cli.ok("undo")  # Gorp was never meant to be here
    cli.ok("start", "--dice", "5,3")
    cli.ok("attack", "vasana", "broo1", "--dice", "40")
    cli.ok("undo")  # a slip of the GM's hand, typed again
    cli.ok("attack", "vasana", "broo1", "--dice", "40")
    for args in (
        ("react", "broo1", "parry", "--dice", "30,50"),
        ("roll", "--dice", "8,4,11"),
        ("attack", "broo1", "vasana", "--dice", "25"),
        ("react", "vasana", "dodge", "--dice", "10,70"),
        ("attack", "vasana", "broo1", "--dice", "80"),
        ("attack", "broo1", "vasana", "--dice", "30"),
        ("react", "vasana", "parry", "--dice", "03,80"),
        ("react", "vasana", "riposte", "--dice", "02"),
        ("react", "broo1", "dodge", "--dice", "90,50"),
        ("roll", "--dice", "3,8"),
        ("roll", "--dice", "2,30"),
        ("act", "vasana", "defend"),
        ("end-round",),
        ("roll", "--dice", "20"),
        ("start", "--dice", "2,9"),
        ("attack", "vasana", "broo1", "--dice", "20"),
        ("react", "broo1", "parry", "--dice", "50,10"),
    ):
        cli.ok(*args)
    # round 2 went wrong: back to before it began, kept on record
    start2 = [e for e in cli.json("log") if e["type"] == "round-started" and e["status"] == "live"][-1]
    cli.ok("rewind", "--version", str(int(start2["command_id"][1:]) - 1))
    cli.ok("start", "--dice", "2,9")
    cli.ok("attack", "vasana", "broo1", "--dice", "20")
    cli.ok("react", "broo1", "parry", "--dice", "50,10")
    cli.ok("roll", "--dice", "7,2,12")
    cli.ok("roll", "--dice", "1,70")
    # then the GM remembers Vasana saw the spear coming: amend her dodge, replay the rest
    dodge = next(
        e for e in cli.json("log") if e["status"] == "live" and e["type"] == "reaction-chosen" and "dodges" in e["text"]
    )["command_id"]
    cli.ok("amend", dodge, "--mod", "+70:she saw it coming", "--replay")
    return {"dodge": dodge, "voided_round_start": start2["version"]}


@pytest.fixture(scope="module")
def evening(tmp_path_factory):
    cli = Cli(tmp_path_factory.mktemp("evening") / "affray.db")
    facts = _play_the_evening(cli)
    log = cli.json("log")
    with EventStore(cli.db, readonly=True) as store:
        (eid,) = [row[0] for row in store._conn.execute("SELECT DISTINCT encounter_id FROM events")]
        records = list(store.read(eid))
    facts.update(
        cli=cli,
        log=log,
        records=records,
        head=records[-1],
        live=[e for e in log if e["status"] == "live"],
        table={fmt: cli.ok("export", "--format", fmt, *(("--view", "table") if fmt == "jsonl" else ())).stdout for fmt in FORMATS},
        record={fmt: cli.ok("export", "--format", fmt, "--view", "record").stdout for fmt in FORMATS},
    )
    state = cli.state()
    assert state["phase"] == "over" and state["winner"] == "heroes"
    return facts


def test_the_evening_really_had_undo_rewind_and_amend(evening):
    statuses = {e["status"] for e in evening["log"]}
    assert {"live", "retracted", "void", "meta"} <= statuses
    texts = [e["text"] for e in evening["log"]]
    assert any(t.startswith("Rewound to") for t in texts)
    assert sum("amend: replaying" in t for t in texts) >= 5
    assert any(e["type"] == "round-started" and e["status"] == "void" for e in evening["log"])


@pytest.mark.parametrize("fmt", ["markdown", "bbcode", "discord", "html"])
def test_the_table_view_holds_only_the_fight_as_it_stands(evening, fmt):
    text = evening["table"][fmt]
    for line in TRAIL:
        assert line not in text, (fmt, line)
    assert "~~" not in text and "[s]" not in text and "<del>" not in text
    assert text.count("Round 2 begins") == 1 and text.count("Round 1 begins") == 1
    assert text.count("GM amended") == 1
    assert f"GM amended {evening['dodge']} (step 1.5): modifier +70 she saw it coming" in text
    assert "Gorp" not in text  # the join was undone
    assert "As it stands" in text
    assert "The fight is over: side heroes wins" in text.replace("*", "").replace("[b]", "").replace("[/b]", "")
    # HP per location and conditions of the final state
    plain = re.sub(r"<[^>]+>|\[/?[bi]\]|\*\*", "", text)
    assert "chest -2/7 (serious wound)" in plain and "unconscious" in plain
    # the footer: the whole commitment and the head
    opening = evening["records"][0].event
    assert f"Dice seed commitment (SHA-256): {opening.seed_sha256}" in plain
    assert f"Log head: version {evening['head'].version}, hash {evening['head'].hash}" in plain


def test_the_table_view_is_in_play_order_with_every_live_line(evening):
    """The HTML carries each line's version: they are exactly the live
    entries of 'affray log', in order, less the notes amend put on its
    replays (its note on the amended command being the one 'GM amended'
    line)."""
    shown = [int(v) for v in re.findall(r'<li id="v(\d+)"', evening["table"]["html"])]
    assert shown == sorted(shown)
    expected = [e["version"] for e in evening["live"] if "amend: replaying" not in e["text"]]
    assert shown == expected


def test_exchanges_are_numbered_in_play_order(evening):
    page = evening["table"]["html"]
    numbers = [int(n) for n in re.findall(r'data-exchange="(\d+)"', page)]
    firsts = list(dict.fromkeys(numbers))
    assert firsts == list(range(1, len(firsts) + 1)) and len(firsts) >= 5
    headings = re.findall(r"<h3 [^>]*>Exchange (\d+)</h3>", page)
    assert [int(h) for h in headings] == numbers
    record = [int(n) for n in re.findall(r'data-exchange="(\d+)"', evening["record"]["html"])]
    assert record != sorted(record)  # the record view shows the numbers the log has, repeats and all


def test_the_roster_leaves_out_the_undone_join(evening):
    roster = re.search(r'<table class="roster">.*?</table>', evening["table"]["html"], re.S).group()
    assert "Vasana" in roster and "Broo 1" in roster and "Gorp" not in roster
    assert "Gorp" in evening["record"]["html"]
    assert "Gorp" not in evening["table"]["bbcode"].split("\n", 2)[1]


def test_rounds_are_each_shown_once_and_in_order(evening):
    md = evening["table"]["markdown"]
    assert re.findall(r"^## (.*)$", md, re.M) == ["Setup", "Round 1", "Round 2", "As it stands"]
    assert re.findall(r"^\*\*(Setup|Round \d+)\*\*$", evening["table"]["discord"], re.M) == ["Setup", "Round 1", "Round 2"]


def test_jsonl_table_view_is_the_live_events(evening):
    lines = [json.loads(line) for line in evening["table"]["jsonl"].splitlines()]
    versions = [line["version"] for line in lines]
    assert versions == sorted(versions)
    live_commands = {e["command_id"] for e in evening["live"]}
    assert {line["command_id"] for line in lines} <= live_commands
    assert not {"command-retracted", "command-restored", "encounter-rewound"} & {line["type"] for line in lines}
    assert evening["voided_round_start"] not in versions
    assert [line["data"]["round"] for line in lines if line["type"] == "round-started"] == [1, 2]
    assert any(line["type"] == "fight-ended" and line["data"]["winner"] == "heroes" for line in lines)
    by_version = {r.version: r for r in evening["records"]}
    assert all(line["hash"] == by_version[line["version"]].hash for line in lines)


def test_jsonl_defaults_to_the_whole_record_which_imports(evening, tmp_path):
    cli = evening["cli"]
    whole = cli.ok("export", "--format", "jsonl", "--secret").stdout
    assert whole == cli.ok("export", "--format", "jsonl", "--secret", "--view", "record").stdout
    assert len(whole.splitlines()) == evening["head"].version
    path = tmp_path / "whole.jsonl"
    path.write_text(whole, encoding="utf-8")
    other = Cli(tmp_path / "other.db")
    assert "Imported encounter" in other.ok("import", path).stdout
    table = tmp_path / "table.jsonl"
    table.write_text(evening["table"]["jsonl"], encoding="utf-8")
    refused = other("import", table, "--as-id", "copy")
    assert refused.exit_code == 2 and "expected version" in refused.stderr


def test_the_record_view_keeps_the_whole_trail(evening):
    for fmt in ("markdown", "bbcode", "discord", "html"):
        text = evening["record"][fmt]
        assert "Rewound to" in text and "amend: replaying" in text and "(void)" in text and "(retracted)" in text, fmt
        assert "As it stands" not in text
        assert f"hash {evening['head'].hash}" in text, fmt
    # byte for byte the API's record view, with the footer
    assert evening["record"]["markdown"] == export(evening["records"], "markdown", view="record", footer=True)


def test_the_cli_table_view_is_the_apis(evening):
    for fmt in FORMATS:
        assert evening["table"][fmt] == export(evening["records"], fmt, view="table", footer=True), fmt


@pytest.mark.parametrize("fmt", ["markdown", "bbcode", "discord", "html"])
def test_a_round_range_keeps_the_numbers_and_drops_the_final_block_before_the_end(evening, fmt):
    one = export(evening["records"], fmt, rounds=(1, 1), view="table")
    assert "Round 1 begins" in one and "Round 2 begins" not in one and "As it stands" not in one
    two = export(evening["records"], fmt, rounds=(2, 2), view="table")
    assert "Round 2 begins" in two and "As it stands" in two
    if fmt == "html":
        assert min(int(n) for n in re.findall(r'data-exchange="(\d+)"', two)) > 1


# --------------------------------------------------------------------------- #
# bbcode posts
# --------------------------------------------------------------------------- #


def test_bbcode_fits_one_post_without_a_separator(evening):
    text = evening["table"]["bbcode"]
    assert len(text) < bbcode.LIMIT and "--- post" not in text
    assert bbcode.split(text) == [text.removesuffix("\n")]


@pytest.mark.parametrize("limit", [400, 1000, 3500])
def test_bbcode_posts_are_cut_at_round_boundaries_under_the_limit(evening, limit):
    text = export(evening["records"], "bbcode", view="table", footer=True, limit=limit)
    posts = bbcode.split(text)
    assert len(posts) >= 2 and all(0 < len(p) <= limit for p in posts)
    assert [int(n) for n in bbcode.SEPARATOR_RE.findall(text)] == list(range(1, len(posts) + 1))
    assert all(p.strip() == p for p in posts)  # no blank line at a post's top or bottom
    if limit >= 1000:  # no line is longer than that: the posts hold the one-post export's lines, none cut
        whole = export(evening["records"], "bbcode", view="table", footer=True)
        assert [line for p in posts for line in p.splitlines() if line] == [line for line in whole.splitlines() if line]
    if limit == 3500:  # each round fits in a post: none is cut, and round 2 (not fitting after round 1) starts one
        assert len(posts) == 2 and posts[1].startswith("[b]Round 2[/b]")
        assert "[b]Round 1[/b]" in posts[0] and "End of round 1" in posts[0]


def test_bbcode_cuts_a_round_longer_than_a_post_between_exchanges(evening):
    text = export(evening["records"], "bbcode", view="record", limit=1200)
    posts = bbcode.split(text)
    assert all(len(p) <= 1200 for p in posts)
    # round 1 alone is longer than 1,200 characters: cut, but never inside a line
    whole = export(evening["records"], "bbcode", view="record").splitlines()
    assert {line for p in posts for line in p.splitlines()} <= set(whole)


def test_bbcode_cuts_a_line_longer_than_a_post_at_spaces(evening, tmp_path):
    cli = Cli(tmp_path / "long.db")
    cli.ok("new", "Long notes", "--manual-dice")
    cli.ok("note", " ".join(["word"] * 500))  # 2,499 characters
    cli.ok("note", "--", "--- post 2 ---")  # would read as a separator
    out = cli.ok("export", "--format", "bbcode", "--limit", "600").stdout
    posts = bbcode.split(out)
    assert all(len(p) <= 600 for p in posts) and len(posts) >= 5
    assert sum(p.count("word") for p in posts) == 500
    assert len(bbcode.SEPARATOR_RE.findall(out)) == len(posts)


def test_a_line_that_reads_as_a_post_separator_is_defused():
    posts = list(bbcode.pack_posts([["--- post 2 ---", "fine"]], 100))
    assert posts == ["-\u200b-- post 2 ---\nfine"] and not bbcode.SEPARATOR_RE.search(posts[0])


def test_discord_takes_a_limit(evening):
    text = export(evening["records"], "discord", view="table", footer=True, limit=500)
    assert all(discord.units(m) <= 500 for m in discord.split(text)) and len(discord.split(text)) > 4


# --------------------------------------------------------------------------- #
# the options
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "args, says",
    [
        (["--view", "players"], "unknown view 'players'; choose one of table, record"),
        (["--format", "markdown", "--limit", "5000"], "--limit applies to bbcode and discord only"),
        (["--format", "bbcode", "--limit", "10"], "--limit takes 200 to 1000000 characters, got 10"),
    ],
)
def test_bad_export_options_are_one_clear_line(evening, args, says):
    result = evening["cli"]("export", *args)
    assert result.exit_code == 2 and says in result.stderr and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_api_refuses_a_bad_view_or_limit(evening):
    with pytest.raises(ValueError, match="unknown export view"):
        export(evening["records"], "markdown", view="players")
    with pytest.raises(ValueError, match="applies to bbcode and discord only"):
        export(evening["records"], "html", limit=3000)


# --------------------------------------------------------------------------- #
# the building blocks
# --------------------------------------------------------------------------- #


def test_a_gm_note_that_looks_like_amends_is_still_shown(tmp_path):
    """Only amend's own notes, on a fight command, are folded: a note the
    GM types is its own command and always shown as it is."""
    cli = Cli(tmp_path / "notes.db")
    cli.ok("new", "Notes", "--manual-dice")
    cli.ok("note", "amend: replaying c1 (step 1.1) with its recorded dice")
    cli.ok("note", "amend: c1 (step 1.1) issued again: nothing")
    out = cli.ok("export").stdout
    assert "GM note: amend: replaying c1" in out and "GM note: amend: c1 (step 1.1) issued again" in out
    assert "GM amended" not in out


def test_table_walk_knows_the_fight_ended(evening):
    src = Source.from_records(evening["records"])
    walk = TableWalk(src)
    entries = list(walk.entries())
    assert walk.fight_ended is not None and walk.fight_ended.winner == "heroes"
    assert all(e.status == "live" for e in entries)
    assert src.live_roster() == [("Vasana", "heroes"), ("Broo 1", "broo")]
    assert ("Gorp", "broo") in src.roster


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []

    def handle_data(self, data):
        self.text.append(data)


def test_the_html_standing_is_readable_text(evening):
    page = _Text()
    page.feed(evening["table"]["html"])
    text = "".join(page.text)
    assert "As it stands" in text and "Broo 1 (broo): unconscious" in text


# --------------------------------------------------------------------------- #
# generated fights
# --------------------------------------------------------------------------- #


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 70))
def test_the_table_view_of_any_fight_is_its_live_timeline(seed, steps):
    """Generated fights with undo, redo, rewind and notes (secret or not):
    the table view streams as the list renders it, holds only the live
    entries in log order, numbers the exchanges 1, 2, 3 ... and ends with
    the final block and the footer."""
    store = EventStore(":memory:")
    eid = random_fight(store, random.Random(seed), steps)
    records = list(store.read(eid))
    tl = Timeline(records)
    live = [e.version for e in entries(records, names_of(records)) if e.status == "live" and not e.secret]
    for fmt in FORMATS:
        buf = io.StringIO()
        export_store(store, eid, fmt, buf, view="table", footer=True)
        assert buf.getvalue() == export(records, fmt, view="table", footer=True), fmt
    page = export(records, "html", view="table", footer=True)
    assert [int(v) for v in re.findall(r'<li id="v(\d+)"', page)] == live
    numbers = list(dict.fromkeys(int(n) for n in re.findall(r'data-exchange="(\d+)"', page)))
    assert numbers == list(range(1, len(numbers) + 1))
    md = export(records, "markdown", view="table", footer=True)
    assert not any(word in md for word in TRAIL) and "~~" not in md
    assert "## As it stands" in md and f"version {records[-1].version}, hash {records[-1].hash}" in md
    rows = [json.loads(line) for line in export(records, "jsonl", view="table", show_secret=True).splitlines()]
    assert all(tl.status(row["command_id"]) == "live" for row in rows)


def test_an_amended_reaction_reads_as_what_the_gm_changed():
    from affray.commands.amend import amend
    from affray.commands.handler import execute
    from affray.events import commands as cmd

    from test_golden import SCRIPT, open_duel

    store = EventStore(":memory:")
    eid = open_duel(store, manual=True)
    outs = [execute(store, c, encounter_id=eid, dice=d, actor="gm") for c, d in SCRIPT[:7]]
    dodge = outs[5].records[0].command_id
    amend(store, cmd.AmendCommand(target=dodge, reaction="parry"), encounter_id=eid, actor="gm")
    text = export(list(store.read(eid)), "markdown", view="table")
    assert f"GM amended {dodge} (step 1.5): parry instead of dodge" in text
    assert "Vasana parries" in text and "Vasana dodges" not in text
    walk = TableWalk(Source.from_records(list(store.read(eid))))
    assert walk.readable_changes("target broo1 (was vasana); modifier -20 river; weapon Shortspear (was Broadsword)") == (
        "target Broo 1 instead of Vasana; modifier -20 river; weapon Shortspear instead of Broadsword"
    )
