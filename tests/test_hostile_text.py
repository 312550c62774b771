"""Nothing a user typed can take over a terminal or forge a post (issue 16,
item 4, for the exports).

Hostile text (ESC and CSI, OSC, C1 controls, bidi overrides and isolates,
NUL and DEL, every kind of line break, and a forged roll line after a line
break) is put in every field an export prints: the encounter's name, a
combatant's name and side, a note, the actor of every command (``--as``).
Every format, in both views, must then hold no control, escape or bidi
character, and the forged roll line must never begin a line. jsonl stays
lossless (the values decode to exactly what was typed) and its envelope and
line structure hold no raw control either.

And the one sanitiser, :func:`affray.text.safe_line`, as hypothesis
properties: its output has no unsafe character and no line break, it is
idempotent, and it leaves clean text alone.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from affray.events import commands as cmd
from affray.commands.demo import examples_dir
from affray.commands.handler import execute
from affray.rules import base
from affray.store import EventStore
from affray.text import BIDI, escape_json, is_unsafe, one_line, safe_line
from affray.views.export import FORMATS, export
from affray.views.formats.jsonl import parse

from conftest import BROO, VASANA, Cli

#: A forged roll line, planted after a line break.
FORGED = "Broadsword 01 vs 99% — critical"
HOSTILE = (
    "Bad\x1b[2J\x1b]0;pwned\x07\x9b31m\u202eevil\u2066\u200f\u061c \x85x\r\n- Vasana: "
    + FORGED
    + "\u2028\x00\x7f\x1b\\\x0b\x0c\x1c end"
)
BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def _hostile_records() -> list:
    store = EventStore(":memory:")
    eid = execute(store, cmd.OpenEncounter(name=HOSTILE, system="mrq1"), seed=b"hostile", allow_short_seed=True, actor=HOSTILE).encounter_id
    mrq1 = base.get("mrq1")
    for sheet, side, name, handle in (("vasana.toml", "heroes", "Vasana", "vasana"), ("broo.toml", HOSTILE, HOSTILE, "broo")):
        data = mrq1.load_sheet(str(examples_dir() / "mrq1" / sheet))
        execute(store, cmd.JoinCombatant(sheet=data, side=side, name=name, handle=handle), encounter_id=eid, actor=HOSTILE)
    execute(store, cmd.AddNote(text=HOSTILE), encounter_id=eid, actor=HOSTILE)
    execute(store, cmd.AddNote(text=HOSTILE, secret=True), encounter_id=eid, actor=HOSTILE)
    execute(store, cmd.StartRound(), encounter_id=eid, actor=HOSTILE)
    execute(store, cmd.DeclareAttack(attacker="vasana", target="broo"), encounter_id=eid, actor=HOSTILE)
    execute(store, cmd.Undo(), encounter_id=eid, actor=HOSTILE)  # a struck-through line in the record view
    execute(store, cmd.DeclareAttack(attacker="vasana", target="broo"), encounter_id=eid, actor=HOSTILE)
    return list(store.read(eid))


@pytest.fixture(scope="module")
def records():
    return _hostile_records()


def _check_printable(text: str, where: str, start: str = "Bad") -> None:
    bad = sorted({f"U+{ord(c):04X}" for c in text if c != "\n" and is_unsafe(c)})
    assert not bad, f"{where}: unsafe characters {bad}"
    for line in text.split("\n"):
        if FORGED in line:  # only ever inside the one-lined field, after its start
            assert start in line and line.index(start) < line.index(FORGED), f"{where}: a forged line: {line!r}"


@pytest.mark.parametrize("view", ["table", "record"])
@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "jsonl"])
def test_no_export_prints_a_control_or_a_forged_line(records, fmt, view):
    text = export(records, fmt, view=view, footer=True, show_secret=True)
    assert "evil" in text and "end" in text  # the field is there, made safe, not dropped
    _check_printable(text, f"{fmt} ({view})")
    shown = text.replace(records[0].encounter_id, "")  # the id is a slug of the name: letters and dashes
    assert "pwned" not in shown  # the OSC sequence is removed whole
    assert "2J" not in shown and "31m" not in shown  # and so are the CSI ones


@pytest.mark.parametrize("view", ["table", "record"])
def test_jsonl_is_lossless_and_has_no_raw_control(records, view):
    text = export(records, "jsonl", view=view, show_secret=True)
    # split on "\n" alone: data keeps a name's raw U+2028 or U+0085 (the hash covers
    # the stored text), and str.splitlines() would cut there
    lines = text.removesuffix("\n").split("\n")
    assert all(line.startswith('{"seq":') for line in lines)  # one event per line: no break leaked out
    for line in lines:
        assert not any(c in line for c in "\x00\x1b\x07\x0b\x0c\n\r"), line[:80]
        envelope = line[: line.index(',"data":')]
        assert not any(is_unsafe(c) for c in envelope), envelope
        row = json.loads(line)
        assert row["actor"] == HOSTILE or row["actor"] == ""
    opened = json.loads(lines[0])["data"]
    assert opened["name"] == HOSTILE
    if view == "record":
        _, rows = parse(text)  # the chain still verifies: nothing was changed
        assert len(rows) == len(records)


def test_the_cli_one_lines_the_name_and_the_actor(tmp_path):
    cli = Cli(tmp_path / "h.db")
    name = "Ford\n- Vasana: " + FORGED
    cli.ok("new", name, "--id", "ford", "--manual-dice")
    cli.ok("join", VASANA, "--side", "heroes\n## Round 9")
    cli.ok("--as", "sam\n- Broo 1: Dodge 01 vs 99% — critical", "join", BROO, "--name", "Broo\x1b[31m 1", "--side", "broo")
    cli.ok("--as", "gm\x1b]0;pwned\x07", "note", "mind\u202e the ford\r\n- Vasana: " + FORGED)
    for fmt in FORMATS:
        for view in ("table", "record"):
            out = cli.ok("export", "--format", fmt, "--view", view).stdout
            if fmt == "jsonl":
                assert all(json.loads(line) for line in out.removesuffix("\n").split("\n"))
                continue
            _check_printable(out, f"{fmt} ({view})", start=" / ")
            starts = [line.lstrip("-#*> \\[]bi/") for line in out.splitlines()]
            assert not any(s.startswith(("Vasana: Broadsword 01", "Broo 1: Dodge 01", "Round 9")) for s in starts), fmt
    md = cli.ok("export", "--format", "markdown").stdout
    assert md.startswith("# Ford / - Vasana: " + FORGED + "\n")  # one line: the would-be bullet stays in the title


# --------------------------------------------------------------------------- #
# the sanitiser
# --------------------------------------------------------------------------- #


_SPECIAL = st.sampled_from(
    ["\x1b", "\x1b[", "\x1b]", "\x07", "\x9b", "\x9d", "\x9c", "\x1b\\", "[2J", "0;", "\n", "\r\n", "\t"]
    + sorted(BIDI) + list(BREAKS) + ["\ud800", "\udfff", "\x00", "\x7f", "\x80", "\x9f", "\u200d", "é", "👍"]
)
_TEXT = st.lists(st.one_of(_SPECIAL, st.text(max_size=6)), max_size=20).map("".join)


@given(_TEXT)
def test_safe_line_leaves_nothing_unsafe(text):
    out = safe_line(text)
    assert not any(is_unsafe(c) for c in out)
    assert not any(c in BREAKS for c in out) and len(out.splitlines()) <= 1
    assert not any(c in BIDI for c in out)
    assert not any(0x80 <= ord(c) <= 0x9F or ord(c) < 0x20 or ord(c) == 0x7F for c in out)
    assert safe_line(out) == out
    out.encode("utf-8")  # lone surrogates are escaped, so it can always be written


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters=sorted(BIDI))))
def test_safe_line_leaves_clean_text_alone(text):
    assert safe_line(text) == text


@given(st.text())
def test_escape_json_is_lossless(text):
    encoded = escape_json(json.dumps({"v": text}, ensure_ascii=False))
    assert json.loads(encoded) == {"v": text}
    assert not any(is_unsafe(c) for c in encoded)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("plain", "plain"),
        ("two\nlines", "two / lines"),
        ("\x1b[2Jcleared", "cleared"),
        ("\x1b]0;title\x07after", "after"),
        ("\x1b]8;;http://x\x1b\\link", "link"),
        ("\x9b31mred", "red"),
        ("Broo\u202e1", "Broo\\u202e1"),
        ("bell\x07", "bell\\x07"),
        ("tab\there", "tab here"),
        ("a\u2028b", "a / b"),
        ("\n\n", ""),
    ],
)
def test_safe_line_cases(text, expected):
    assert safe_line(text) == expected


def test_one_line_is_still_the_error_messages_escape():
    assert one_line("Resiliance\n= 50\x1b") == "Resiliance\\n= 50\\x1b"
