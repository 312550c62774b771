"""The HTML export in a real browser: headless Chromium renders the page.

Checks, on the DOM as Chromium built it (``--dump-dom``, after the page
loaded): every round heading and every exchange of the export is there, the
table of contents points at them, a combatant named
``<script>alert(1)</script>`` shows as text, and no script from the user's
text exists or ran. A note holds ``<script>document.title='pwned'</script>``:
had it run, the dumped ``<title>`` would say so. A control page with that
script really in it shows that this browser does run scripts, so the check
can fail.

At a phone's width (390 px, an iPhone's), the page must never scroll
sideways: a copy of the export, with a measuring script added at its end
(the export itself has none), is loaded in a 390 px window; the script
writes the document's scroll width and the window's inner width into the
title, which the dumped DOM shows. Checked for the table view and the record
view with their footer (the 64-character hashes), on a fight whose names and
notes hold words longer than the screen is wide.

Skipped when ``/usr/bin/chromium`` (or ``$AFFRAY_CHROMIUM``) is missing:
install Debian's ``chromium`` package to run it (CI does).
"""

from __future__ import annotations

import os
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from affray.events import commands as cmd
from affray.commands.handler import execute
from affray.commands.demo import autoplay, examples_dir
from affray.rules import base
from affray.store import EventStore
from affray.views.export import export
from affray.views.formats.common import prepare

CHROMIUM = os.environ.get("AFFRAY_CHROMIUM", "/usr/bin/chromium")
XSS = "<script>alert(1)</script>"
CANARY = "<script>document.title='pwned'</script>"

pytestmark = pytest.mark.skipif(
    not os.path.exists(CHROMIUM),
    reason=f"no Chromium at {CHROMIUM}: install Debian's 'chromium' package (or set AFFRAY_CHROMIUM) to run the browser test",
)


def _records():
    store = EventStore(":memory:")
    eid = execute(
        store, cmd.OpenEncounter(name="Raid at the ford", system="mrq1"), seed=b"browser", allow_short_seed=True, actor="gm"
    ).encounter_id
    mrq1 = base.get("mrq1")
    for sheet, side, name, handle in (
        ("vasana.toml", "heroes", XSS, "xss"),
        ("broo.toml", "<b>broo</b>", "Broo <img src=x onerror=\"document.title='pwned'\">", "broo"),
    ):
        data = mrq1.load_sheet(str(examples_dir() / "mrq1" / sheet))
        execute(store, cmd.JoinCombatant(sheet=data, side=side, name=name, handle=handle), encounter_id=eid, actor="gm")
    execute(store, cmd.AddNote(text=f"{CANARY} the water is cold"), encounter_id=eid, actor="gm")
    execute(store, cmd.AddNote(text="A" * 150 + " wide as a river"), encounter_id=eid, actor="gm")
    execute(store, cmd.StartRound(), encounter_id=eid, actor="gm")
    execute(store, cmd.DeclareAttack(attacker="xss", target="broo"), encounter_id=eid, actor="gm")
    execute(store, cmd.Undo(), encounter_id=eid, actor="gm")  # a struck-through attack
    state = autoplay(store, eid, actor=f"{CANARY}sam")
    assert state.phase == "over" and state.round >= 2
    records = list(store.read(eid))
    store.close()
    return records


def _dump_dom(page: Path, profile: Path, *extra: str) -> str:
    result = subprocess.run(
        [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
            *extra, "--dump-dom", page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"chromium exited {result.returncode}: {result.stderr[-2000:]}"
    assert "<html" in result.stdout, f"chromium dumped no DOM: {result.stderr[-2000:]}"
    return result.stdout


class _Dom(HTMLParser):
    """Headings, ids, links, script elements, the <title> and all text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.h2: list[str] = []
        self.h3: list[str] = []
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.scripts = 0
        self.title = ""
        self.text: list[str] = []
        self.handlers: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.scripts += 1
        for k, v in attrs:
            if k == "id":
                self.ids.add(v)
            elif k == "href":
                self.hrefs.append(v)
            elif k.startswith("on"):
                self.handlers.append(k)
        if tag in ("h2", "h3"):
            getattr(self, tag).append("")
        self.stack.append(tag)

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop() != tag:
            pass

    def handle_data(self, data):
        self.text.append(data)
        if "title" in self.stack and "head" in self.stack:
            self.title += data
        for tag in ("h3", "h2"):
            if tag in self.stack:
                getattr(self, tag)[-1] += data
                break


def _parse(dom: str) -> _Dom:
    d = _Dom()
    d.feed(dom)
    d.close()
    return d


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser")
    records = _records()
    page = root / "fight.html"
    page.write_text(export(records, "html", show_secret=True), encoding="utf-8")
    return records, _parse(_dump_dom(page, root / "profile"))


def test_every_round_and_exchange_is_in_the_rendered_page(rendered):
    records, dom = rendered
    log = prepare(records, show_secret=True)
    rounds = [r.title for r in log.rounds]
    assert rounds[0] == "Setup" and "Round 2" in rounds
    assert [h for h in dom.h2 if h != "Contents"] == rounds
    exchanges = [f"Exchange {b.exchange}" for r in log.rounds for b in r.blocks if b.exchange]
    assert len(exchanges) >= 3
    assert dom.h3 == exchanges
    for r in log.rounds:
        anchor = "setup" if r.number == 0 else f"round-{r.number}"
        assert anchor in dom.ids and f"#{anchor}" in dom.hrefs
        for b in r.blocks:
            if b.exchange:
                assert f"{anchor}-exchange-{b.exchange}" in dom.ids


def test_hostile_text_is_shown_and_nothing_runs(rendered):
    _, dom = rendered
    text = "".join(dom.text)
    assert XSS in text and CANARY in text and "<b>broo</b>" in text
    assert "onerror=\"document.title='pwned'\"" in text
    assert dom.scripts == 0, "a <script> element came from the user's text"
    assert dom.handlers == [], "an event handler attribute came from the user's text"
    assert dom.title == "Raid at the ford", f"the page's title was changed to {dom.title!r}: a script ran"


def test_the_browser_does_run_scripts(tmp_path):
    """The control: the same canary, really a script, does change the title."""
    page = tmp_path / "control.html"
    page.write_text(f"<!DOCTYPE html><html><head><title>before</title></head><body>{CANARY}</body></html>")
    dom = _parse(_dump_dom(page, tmp_path / "profile"))
    assert dom.title == "pwned"


#: Added at the end of a copy of the page: the widths, sent to the frame's parent.
_MEASURE = (
    "<script>(function(){var d=document.documentElement,w=0,who='';"
    "document.querySelectorAll('body *').forEach(function(e){var r=e.getBoundingClientRect();"
    "if(r.right>w){w=r.right;who=e.tagName+'.'+e.className;}});"
    "parent.postMessage(d.scrollWidth+' '+window.innerWidth+' '+Math.round(w)+' '+who,'*');})();</script>"
)
#: A 390 px wide frame holding the page (a headless window is at least 500 px wide).
_PHONE = (
    "<!DOCTYPE html><html><head><title>waiting</title></head><body style='margin:0'>"
    "<script>addEventListener('message',function(e){document.title=e.data;});</script>"
    "<iframe src='phone.html' style='width:390px;height:844px;border:0'></iframe></body></html>"
)


@pytest.mark.parametrize("view", ["table", "record"])
def test_no_sideways_scroll_on_a_phone(tmp_path, view):
    records = _records()
    text = export(records, "html", show_secret=True, view=view, footer=True)
    assert "<script" not in text.replace("&lt;script", "")
    (tmp_path / "phone.html").write_text(text.replace("</body>", _MEASURE + "</body>"), encoding="utf-8")
    frame = tmp_path / "frame.html"
    frame.write_text(_PHONE, encoding="utf-8")
    dom = _parse(_dump_dom(frame, tmp_path / "profile", "--virtual-time-budget=5000"))
    scroll, inner, widest, who = (dom.title.split(" ", 3) + ["", "", "", ""])[:4]
    assert inner == "390", f"the frame is not 390 px wide: {dom.title!r}"
    assert int(scroll) <= 390, f"the page scrolls sideways at 390 px: {dom.title!r} (widest: {who})"
    assert int(widest) <= 390, f"an element reaches past 390 px: {dom.title!r}"
    assert ("As it stands" in text) == (view == "table")
    assert "Dice seed commitment" in text and "Log head" in text
