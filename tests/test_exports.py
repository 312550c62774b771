"""The play-by-post exports (markdown, bbcode, discord, html, jsonl).

A "chronicle" of the golden duel (tests/test_golden.py, table dice) is played
with an undone attack (struck through), a public note and a secret note; a
"raid" between combatants with hostile names (HTML, BBCode and markdown in
them) is played with engine dice from a fixed seed. Every format is checked on
both: round ranges, secret notes, its own escaping and layout; the Discord
split is also a hypothesis property over long random notes.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from affray.events import commands as cmd
from affray.commands.handler import execute
from affray.commands.demo import autoplay, examples_dir
from affray.events import core as ev
from affray.rules import base
from affray.store import EventStore
from affray.views.export import FORMATS, export
from affray.views.formats import discord
from affray.views.formats.common import one_line, prepare, segments
from affray.views.narrate import entries, names_of

from test_golden import SCRIPT, open_duel

SECRET = "the broo's spear is cursed"
PUBLIC = "the ford is knee-deep"
XSS = "<script>alert(1)</script>"
HOSTILE_BROO = "[/b][s]Broo *1*_~|"
HOSTILE_NOTE = "<script>document.title='pwned'</script> [/s] [b]x[/b] --- message 2 --- @everyone **bold** ~~no~~"
HOSTILE_ACTOR = "<img src=x onerror=alert(1)>"


def _chronicle_records():
    """The golden duel with an undone attack (re-typed with the same dice), a
    secret note in round 1 and a public note in round 2."""
    store = EventStore(":memory:")
    eid = open_duel(store, manual=True)

    def run(command, dice=""):
        return execute(store, command, encounter_id=eid, dice=dice, actor="gm")

    for i, (command, dice) in enumerate(SCRIPT):
        run(command, dice)
        if i == 1:  # Vasana's first attack: undo it, then type it again
            run(cmd.Undo())
            run(command, dice)
            run(cmd.AddNote(text=SECRET, secret=True))
        if i == len(SCRIPT) - 3:
            run(cmd.AddNote(text=PUBLIC))
    records = list(store.read(eid))
    store.close()
    return records


def _raid_records():
    """Hostile names, sides, notes, actor and encounter name; engine dice."""
    store = EventStore(":memory:")
    eid = execute(
        store, cmd.OpenEncounter(name="<b>Raid</b> & [b]co[/b]", system="mrq1"), seed=b"raid", allow_short_seed=True, actor=HOSTILE_ACTOR
    ).encounter_id
    mrq1 = base.get("mrq1")
    for sheet, side, name, handle in (
        ("vasana.toml", "<i>heroes</i>", XSS, "xss"),
        ("broo.toml", "[s]broo", HOSTILE_BROO, "broo"),
    ):
        data = mrq1.load_sheet(str(examples_dir() / "mrq1" / sheet))
        execute(store, cmd.JoinCombatant(sheet=data, side=side, name=name, handle=handle), encounter_id=eid, actor="gm")
    execute(store, cmd.AddNote(text=HOSTILE_NOTE), encounter_id=eid, actor=HOSTILE_ACTOR)
    execute(store, cmd.AddNote(text="<b>secret</b>\nsecond line", secret=True), encounter_id=eid, actor="gm")
    state = autoplay(store, eid, actor="gm")
    assert state.phase == "over"
    records = list(store.read(eid))
    store.close()
    return records


@pytest.fixture(scope="module")
def chronicle():
    return _chronicle_records()


@pytest.fixture(scope="module")
def raid():
    return _raid_records()


def rounds_played(records) -> list[int]:
    return sorted({r.event.round for r in records if isinstance(r.event, ev.RoundStarted)})


# --------------------------------------------------------------------------- #
# every format
# --------------------------------------------------------------------------- #


def test_the_formats():
    assert FORMATS == ("markdown", "bbcode", "discord", "html", "jsonl")
    with pytest.raises(ValueError, match="unknown export format 'pdf'"):
        export([], "pdf")


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_tells_the_whole_fight(chronicle, fmt):
    text = export(chronicle, fmt, show_secret=True)
    assert text.endswith("\n")
    # the last word of the fight, and the undone attack, are in every format
    key = "unconscious" if fmt != "jsonl" else '"type":"fight-ended"'
    assert key in text
    assert text == export(chronicle, fmt, show_secret=True), "an export is deterministic"
    assert export([], fmt) == ""


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "jsonl"])
def test_retracted_entries_are_struck_through(chronicle, fmt):
    text = export(chronicle, fmt)
    marks = {
        "markdown": ("~~", "~~ *(retracted)*"),
        "bbcode": ("[s]", "[/s] [i](retracted)[/i]"),
        "discord": ("~~", "~~ *(retracted)*"),
        "html": ("<del>", '</del> <span class="status">(retracted)</span>'),
    }[fmt]
    struck = [line for line in text.splitlines() if marks[1] in line]
    assert len(struck) == 2  # the undone attack and its roll
    assert all(marks[0] in line and "Broadsword" in line for line in struck)


@pytest.mark.parametrize("fmt", FORMATS)
def test_secret_notes_hidden_unless_asked_for(chronicle, raid, fmt):
    assert "cursed" not in export(chronicle, fmt)
    assert "cursed" in export(chronicle, fmt, show_secret=True)
    assert PUBLIC in export(chronicle, fmt)
    assert "second line" not in export(raid, fmt)
    assert "second line" in export(raid, fmt, show_secret=True)


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "jsonl"])
def test_round_ranges(chronicle, fmt):
    assert rounds_played(chronicle) == [1, 2]
    heading = {
        "markdown": "## {}",
        "bbcode": "[b]{}[/b]",
        "discord": "**{}**",
        "html": '<h2><a class="self" href="#{anchor}">{}</a></h2>',
    }[fmt]

    def has(text: str, title: str) -> bool:
        anchor = "setup" if title == "Setup" else title.lower().replace(" ", "-")
        return heading.format(title, anchor=anchor) in text

    whole = export(chronicle, fmt)
    assert all(has(whole, t) for t in ("Setup", "Round 1", "Round 2"))
    two = export(chronicle, fmt, rounds=(2, 2))
    assert has(two, "Round 2") and not has(two, "Round 1") and not has(two, "Setup")
    assert "Dodge 90 vs 30%" not in two.replace("**", "").replace("[b]", "").replace("[/b]", "")
    assert "joins side" not in two
    one = export(chronicle, fmt, rounds=(1, 1))
    assert has(one, "Round 1") and not has(one, "Round 2")
    setup = export(chronicle, fmt, rounds=(0, 0))
    assert has(setup, "Setup") and not has(setup, "Round 1")
    both = export(chronicle, fmt, rounds=(1, 2))
    assert has(both, "Round 1") and has(both, "Round 2") and not has(both, "Setup")
    none = export(chronicle, fmt, rounds=(7, 9))
    assert not has(none, "Round 1") and "attacks" not in none


def test_jsonl_round_range(chronicle):
    import json

    two = [json.loads(line) for line in export(chronicle, "jsonl", rounds=(2, 2)).splitlines()]
    assert two and {"encounter-opened", "combatant-joined"}.isdisjoint(i["type"] for i in two)
    assert [i["data"]["round"] for i in two if i["type"] == "round-started"] == [2]


# --------------------------------------------------------------------------- #
# the shared layer
# --------------------------------------------------------------------------- #


def test_entries_carry_exchange_and_dice(chronicle):
    items = entries(chronicle, names_of(chronicle))
    attack = next(e for e in items if e.text.startswith("Vasana: Broadsword 40 vs 65%") and e.status == "live")
    assert attack.exchange == 1
    assert attack.source == "1D100=40 (table dice typed by gm) for close attack on Broo 1"
    damage = next(e for e in items if e.kind == "damage-dealt")
    assert damage.rolls == (
        "1D8=8 (table dice typed by gm) for Broadsword damage",
        "1D4=4 (table dice typed by gm) for damage modifier",
        "1D20=11 (table dice typed by gm) for hit location",
    )
    start = next(e for e in items if e.kind == "round-started")
    assert start.exchange == 0 and len(start.rolls) == 2
    assert {e.exchange for e in items if e.kind == "combatant-joined"} == {0}
    assert {e.exchange for e in items if e.kind == "round-ended"} == {0}
    # the log verb's view is unchanged: dice lines only on request
    assert not any(e.text.startswith("roll: ") for e in items)
    assert any(e.text.startswith("roll: ") for e in entries(chronicle, names_of(chronicle), dice=True))


def test_blocks_are_exchanges_or_commands(chronicle):
    log = prepare(chronicle)
    round1 = next(r for r in log.rounds if r.number == 1)
    exchanges = [b.exchange for b in round1.blocks if b.exchange]
    assert exchanges == sorted(set(exchanges)) and exchanges[0] == 1
    for block in round1.blocks:
        if block.exchange == 0:
            assert len({e.command_id for e in block.entries}) == 1
        else:
            assert all(e.exchange == block.exchange for e in block.entries)


def test_segments_and_one_line():
    pieces = segments("Broo 10: Dodge 07 vs 30% against Broo 1", ["Broo 1", "Broo 10"])
    assert pieces == [
        ("name", "Broo 10"), ("text", ": Dodge "), ("roll", "07"), ("text", " vs 30% against "), ("name", "Broo 1"),
    ]
    assert "".join(p for _, p in segments(HOSTILE_NOTE, [XSS])) == HOSTILE_NOTE
    assert one_line("plain text ") == "plain text "
    assert one_line("a\nb\r\n\nc") == "a / b / c"


# --------------------------------------------------------------------------- #
# bbcode
# --------------------------------------------------------------------------- #

_BB_TAG = re.compile(r"\[(/?)(b|i|s|table|tr|td|th)\]", re.I)


def _balanced(text: str) -> bool:
    stack: list[str] = []
    for m in _BB_TAG.finditer(text):
        closing, tag = m.group(1), m.group(2).lower()
        if not closing:
            stack.append(tag)
        elif not stack or stack.pop() != tag:
            return False
    return not stack


def test_bbcode_reads_like_a_forum_post(chronicle):
    text = export(chronicle, "bbcode")
    lines = text.splitlines()
    assert lines[0] == "[b]Golden duel[/b]"
    assert lines[1] == (
        "[table][tr][th]Combatant[/th][th]Side[/th][/tr][tr][td]Vasana[/td][td]heroes[/td][/tr]"
        "[tr][td]Broo 1[/td][td]broo[/td][/tr][/table]"
    )
    assert "[b]Vasana[/b] attacks [b]Broo 1[/b] with Broadsword [i]— gm[/i]" in lines
    assert "[b]Vasana[/b]: Broadsword [b]40[/b] vs 65% — success (close attack on [b]Broo 1[/b])" in lines
    assert "[s][b]Vasana[/b] attacks [b]Broo 1[/b] with Broadsword[/s] [i](retracted)[/i] [i]— gm[/i]" in lines
    assert _balanced(text)


@pytest.mark.parametrize("secret", [False, True])
def test_bbcode_tags_stay_balanced_with_hostile_text(raid, secret):
    text = export(raid, "bbcode", show_secret=secret)
    assert _balanced(text)
    # the user's brackets can never open or close a tag
    assert "[/b][s]Broo" not in text and "[/s] [b]x[/b]" not in text
    assert "[\u200b/b][\u200bs]Broo *1*_~|" in text
    assert text.replace("\u200b", "").count("[/b][s]Broo *1*_~|") == text.count("[\u200b/b][\u200bs]Broo")


# --------------------------------------------------------------------------- #
# discord
# --------------------------------------------------------------------------- #


def _message_lines(text: str) -> list[list[str]]:
    return [m.split("\n") for m in discord.split(text)]


@pytest.mark.parametrize("fmt_records", ["chronicle", "raid"])
def test_discord_messages(request, fmt_records):
    records = request.getfixturevalue(fmt_records)
    text = export(records, "discord", show_secret=True)
    numbers = [int(n) for n in discord.SEPARATOR_RE.findall(text)]
    assert numbers == list(range(1, len(numbers) + 1)) and numbers
    assert text.startswith("--- message 1 ---\n")
    messages = discord.split(text)
    assert len(messages) == len(numbers)
    for m in messages:
        assert 0 < discord.units(m) <= discord.LIMIT
        assert m == m.strip("\n") and "\n\n\n" not in m
    # no line of a message can pass for a separator
    assert not any(discord.SEPARATOR_RE.match(line) for m in messages for line in m.split("\n"))


def test_discord_escapes_and_defuses(raid):
    text = export(raid, "discord")
    assert "@everyone" not in text and "@\u200beveryone" in text
    assert r"\-\-\- message" not in text  # only a line start needs escaping
    assert discord.SEPARATOR_RE.findall(text) == [str(i) for i in range(1, len(discord.split(text)) + 1)]
    assert r"**\[/b\]\[s\]Broo \*1\*\_\~\|**" in text


def test_discord_splits_between_blocks(chronicle):
    """With a small limit the split falls between blocks, a round heading
    stays with its first block, and no line is lost or reordered."""
    limit = 400
    log = prepare(chronicle, show_secret=True)
    blocks = discord.blocks(log, limit)
    messages = discord.pack(blocks, limit)
    assert len(messages) > 3
    assert all(discord.units(m) <= limit for m in messages)
    # (block number, line) for every non-blank line, in order
    flat = [(i, line) for i, b in enumerate(blocks) for line in b if line]
    got = [line for m in messages for line in m.split("\n") if line]
    assert got == [line for _, line in flat]
    # each cut between messages falls between two blocks, unless the block
    # it falls in is too long for one message
    at = 0
    for m in messages[:-1]:
        at += len([line for line in m.split("\n") if line])
        before, after = flat[at - 1][0], flat[at][0]
        if before == after:
            assert discord.units("\n".join(blocks[before])) > limit
    assert sum(1 for b in blocks if discord.units("\n".join(b)) <= limit) > 3
    for m in messages:
        assert not re.search(r"\*\*Round \d+\*\*$", m), "a round heading was left at the end of a message"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    notes=st.lists(
        st.tuples(
            st.text(
                alphabet=st.one_of(
                    st.sampled_from(" \n*_~`|<>[]#-@😀ü\\"),
                    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
                ),
                min_size=1,
                max_size=4500,
            ).filter(lambda t: t.strip()),
            st.booleans(),
        ),
        min_size=1,
        max_size=6,
    ),
    words=st.integers(min_value=0, max_value=900),
)
def test_discord_limit_property(notes, words):
    """Random long notes (some longer than a message): every message is at
    most 2,000 UTF-16 units, the split is only between lines, and the
    messages' lines, in order, are exactly the export's lines."""
    store = EventStore(":memory:")
    eid = open_duel(store, manual=True)
    for command, dice in SCRIPT[:4]:
        execute(store, command, encounter_id=eid, dice=dice, actor="gm")
    if words:
        execute(store, cmd.AddNote(text=" ".join(["word"] * words)), encounter_id=eid, actor="gm")
    for text, secret in notes:
        execute(store, cmd.AddNote(text=text, secret=secret), encounter_id=eid, actor="gm")
    records = list(store.read(eid))
    store.close()

    out = export(records, "discord", show_secret=True)
    messages = discord.split(out)
    assert messages
    for m in messages:
        assert discord.units(m) <= discord.LIMIT
    # every line of the unsplit export, each already cut to the limit when longer
    expected = [line for block in discord.blocks(prepare(records, show_secret=True)) for line in block if line]
    got = [line for m in messages for line in m.split("\n") if line]
    assert got == expected
    assert all(discord.units(line) <= discord.LIMIT for line in expected)
    # no content line can be taken for a separator
    assert [int(n) for n in discord.SEPARATOR_RE.findall(out)] == list(range(1, len(messages) + 1))


def test_discord_long_line_is_cut_at_spaces():
    """One note longer than a message: pieces at word boundaries, each
    within the limit, which put back together give the note."""
    store = EventStore(":memory:")
    eid = open_duel(store, manual=True)
    note = " ".join(f"w{i}" for i in range(1500))  # about 7,400 characters
    execute(store, cmd.AddNote(text=note), encounter_id=eid, actor="sam")
    execute(store, cmd.AddNote(text="x" * 4100), encounter_id=eid, actor="sam")  # no space at all
    records = list(store.read(eid))
    lines = [line for block in discord.blocks(prepare(records)) for line in block]
    pieces = [line for line in lines if "w1" in line or line.startswith("w")]
    assert len(pieces) >= 4
    assert all(discord.units(p) <= discord.LIMIT for p in pieces)
    joined = "".join(p.removesuffix(" — *sam*") for p in pieces)
    assert joined == "GM note: " + note
    assert all(p.endswith(" ") for p in pieces[:-1]), "cut only after a space"
    xs = [line for line in lines if line.startswith("GM note: xxx") or set(line.removesuffix(" — *sam*")) == {"x"}]
    assert "".join(x.removesuffix(" — *sam*") for x in xs) == "GM note: " + "x" * 4100
    assert all(discord.units(x) <= discord.LIMIT for x in xs)


# --------------------------------------------------------------------------- #
# html
# --------------------------------------------------------------------------- #


class _Page(HTMLParser):
    """Collects tags, ids, hrefs, titles and the text of an HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.ids: list[str] = []
        self.hrefs: list[str] = []
        self.titles: list[str] = []
        self.text: list[str] = []
        self.attrs: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            self.attrs.append((k, v or ""))
            if k == "id":
                self.ids.append(v)
            elif k == "href":
                self.hrefs.append(v)
            elif k == "title":
                self.titles.append(v)

    def handle_data(self, data):
        self.text.append(data)


def _page(text: str) -> _Page:
    p = _Page()
    p.feed(text)
    p.close()
    return p


def test_html_is_one_self_contained_page(chronicle):
    text = export(chronicle, "html")
    page = _page(text)
    assert text.startswith("<!DOCTYPE html>")
    assert "script" not in page.tags and "link" not in page.tags and "img" not in page.tags
    assert not re.search(r"(src|href)=\"(https?:)?//", text), "no external resources"
    assert "@import" not in text and "url(" not in text
    # a table of contents linking every round
    assert page.hrefs[:3] == ["#setup", "#round-1", "#round-2"]
    for href in page.hrefs:
        assert href[1:] in page.ids
    assert len(page.ids) == len(set(page.ids)), "ids are unique"
    # every exchange under its round: five in round 1 (the riposte is one), one in round 2
    exchanges = [i for i in page.ids if "-exchange-" in i]
    assert exchanges == [f"round-1-exchange-{x}" for x in range(1, 6)] + ["round-2-exchange-6"]
    declared = {r.event.exchange for r in chronicle if isinstance(r.event, ev.AttackDeclared)}
    assert declared == set(range(1, 7))
    # retracted entries struck through
    assert text.count("<del>") == 2


def test_html_shows_each_rolls_source_on_hover(chronicle, raid):
    titles = _page(export(chronicle, "html")).titles
    assert "1D100=40 (table dice typed by gm) for close attack on Broo 1" in titles
    assert all("table dice typed by gm" in t for t in titles)
    # every roll of the fight is behind some line's title
    rolls = [r.event for r in chronicle if isinstance(r.event, ev.DiceRolled)]
    assert sum(t.count(" for ") for t in titles) == len(rolls)
    engine = _page(export(raid, "html")).titles
    assert any(re.search(r"\(engine roll #\d+\)", t) for t in engine)


@pytest.mark.parametrize("secret", [False, True])
def test_html_escapes_every_user_text(raid, secret):
    text = export(raid, "html", show_secret=secret)
    page = _page(text)
    assert page.tags.count("script") == 0
    assert "img" not in page.tags and "i" not in page.tags
    assert "<script>" not in text and "<img" not in text and "<b>Raid" not in text
    assert html.escape(XSS) in text
    shown = "".join(page.text)
    assert XSS in shown and HOSTILE_ACTOR in shown and "<b>Raid</b> & [b]co[/b]" in shown
    assert HOSTILE_NOTE in shown
    assert ("<b>secret</b>" in shown) == secret
    assert all("onerror" not in k for k, _ in page.attrs)
    assert "<title>&lt;b&gt;Raid&lt;/b&gt; &amp; [b]co[/b]</title>" in text


# --------------------------------------------------------------------------- #
# the CLI passes every format through
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("fmt", FORMATS)
def test_cli_export_every_format(fight, fmt, tmp_path):
    fight.ok("note", "hidden plans", "--secret")
    fight.ok("attack", "vasana", "broo1", "--dice", "34")
    out = fight.ok("export", "--format", fmt).stdout
    assert "hidden plans" not in out
    assert "hidden plans" in fight.ok("export", "--format", fmt, "--secret").stdout
    assert "Broo 1" in out
    only = fight.ok("export", "--format", fmt, "--round", "1").stdout
    assert "joins side" not in only and '"combatant-joined"' not in only
    path = tmp_path / f"fight.{fmt}"
    fight.ok("export", "--format", fmt, "--out", path)
    assert path.read_text(encoding="utf-8") == out
