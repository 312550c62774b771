"""The console script's fast path stays lean (issue 17: every fight verb
within 5x ``python -c pass``), and what keeps it lean gives what the heavier
library gave.

- A fight verb run through the console script imports neither ``pathlib``
  (with ``urllib.parse`` and ``ipaddress``), nor OpenSSL (``_hashlib``,
  ``hashlib``, ``hmac``), nor the CLI framework; a verb that decides no rule
  (``note``, ``undo``, ``redo``, ``rewind``) does not import the rule
  system either. It leaves without the interpreter's teardown
  (:func:`affray.cli.main.leave`), its output flushed and its exit code
  kept, and its collector runs young collections every
  :data:`affray.cli.main.YOUNG_COLLECTION_AFTER` allocations.
- The stand-ins: :func:`affray.errors.file_suffix` is
  ``PurePath.suffix``, :func:`affray.store.sqlite.file_uri` is
  ``Path.resolve().as_uri()``, :data:`affray.digest.sha256` is
  ``hashlib.sha256``.
"""

from __future__ import annotations

import difflib
import hashlib
import hmac
import subprocess
import sys
from pathlib import Path, PurePath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from affray.commands.handler import execute
from affray.digest import sha256
from affray.dice.engine import EngineKey, engine_face
from affray.errors import file_stem, file_suffix
from affray.events import commands as cmd
from affray.store import EventStore
from affray.store.chain import bulk_sha256, chain_hash
from affray.store.sqlite import file_uri
from affray.text import nearest, quick_ratio

from test_dice import reference_face

# The console script's main(), with leave() reporting what was imported
# (and the collector's threshold) before it ends the process as usual.
PROBE = (
    "import gc, sys\n"
    "import affray.cli.main as m\n"
    "end = m.leave\n"
    "def leave(code):\n"
    "    mods = ('pathlib', 'urllib.parse', 'ipaddress', '_hashlib', 'hashlib', 'hmac', 'typer', 'click',\n"
    "            'sqlite_utils', 'rich', 'typing_extensions', 'difflib_never', 'dataclasses', 'inspect')\n"
    "    loaded = sorted(x for x in mods if x in sys.modules)\n"
    "    systems = sorted(x for x in sys.modules if x.startswith('affray.rules.') and x.count('.') == 3)\n"
    "    print('PROBE', code, gc.get_threshold()[0], ','.join(loaded) or '-', ','.join(systems) or '-', file=sys.stderr)\n"
    "    end(code)\n"
    "m.leave = leave\n"
    "sys.argv[0] = 'affray'\n"
    "m.main()\n"
)


def _probe(db: Path, *argv: str, cache: Path | None = None) -> tuple[int, list[str], list[str], subprocess.CompletedProcess]:
    env = {"AFFRAY_ACTOR": "sam", "PATH": "/usr/bin:/bin", "AFFRAY_CACHE_DIR": str(cache or db.parent / "affray-cache")}
    proc = subprocess.run([sys.executable, "-c", PROBE, "--db", str(db), *argv], capture_output=True, text=True, env=env)
    line = next(x for x in proc.stderr.splitlines() if x.startswith("PROBE "))
    _, code, threshold, loaded, systems = line.split(" ")
    assert int(code) == proc.returncode
    from affray.cli.main import YOUNG_COLLECTION_AFTER

    assert int(threshold) == YOUNG_COLLECTION_AFTER
    return proc.returncode, [] if loaded == "-" else loaded.split(","), [] if systems == "-" else systems.split(","), proc


@pytest.mark.parametrize("argv", [["note", "light"], ["undo"], ["pending"], ["state"], ["log", "--tail", "3"]])
def test_verbs_that_decide_no_rule_import_no_rule_system(fight, argv):
    code, loaded, systems, proc = _probe(fight.db, "-e", "ford", *argv)
    assert code == 0, proc.stderr
    assert loaded == [], loaded
    assert systems == [], systems


@pytest.mark.parametrize("argv", [
    ["verify"], ["verify", "--dice", "--json"], ["head"], ["head", "--json"], ["why", "broo1"], ["replay", "--round", "1"],
    ["export", "-f", "bbcode"], ["export", "--round", "1", "-f", "html"], ["audit"],
])
def test_reads_import_no_cli_framework_nor_dataclasses(fight, argv):
    """verify, head, why, replay, export and audit: no typer, click, sqlite-utils
    or rich, and no dataclasses (whose import of inspect costs about 5 ms):
    their records are msgspec structs."""
    code, loaded, _, proc = _probe(fight.db, "-e", "ford", *argv)
    assert code in (0, 4), proc.stderr  # 4: the dice not checkable yet
    assert not {"typer", "click", "sqlite_utils", "rich", "dataclasses", "inspect"} & set(loaded), loaded


def test_redo_and_rewind_import_no_rule_system(fight):
    assert _probe(fight.db, "-e", "ford", "note", "one")[0] == 0
    assert _probe(fight.db, "-e", "ford", "undo")[0] == 0
    for argv in (["redo"], ["rewind", "--to", "1.0"]):
        code, loaded, systems, proc = _probe(fight.db, "-e", "ford", *argv)
        assert code == 0, proc.stderr
        assert (loaded, systems) == ([], []), (argv, loaded, systems)


def test_a_fight_verb_loads_its_system_but_no_pathlib_nor_openssl(fight):
    code, loaded, systems, proc = _probe(fight.db, "-e", "ford", "attack", "vasana", "broo1")
    assert code == 0, proc.stderr
    assert loaded == [], loaded
    assert "affray.rules.mrq1.system" in systems
    code, loaded, _, proc = _probe(fight.db, "-e", "ford", "react", "broo1", "parry", "--dice", "50,50")
    assert code == 0 and loaded == [], (proc.stderr, loaded)


def test_a_rolemaster_fight_imports_no_pathlib(tmp_path):
    """rolemaster's tables and sheet locate their files with os.path too."""
    db = tmp_path / "rm.db"
    examples = Path(__file__).resolve().parents[1] / "examples" / "rolemaster"
    assert _probe(db, "new", "Ambush", "-s", "rolemaster", "--id", "rm")[0] == 0
    for sheet, side in (("kestrel", "heroes"), ("gruk", "orcs")):
        code, loaded, systems, proc = _probe(db, "-e", "rm", "join", str(examples / f"{sheet}.toml"), "--side", side)
        assert code == 0 and loaded == [], (proc.stderr, loaded)
        assert "affray.rules.rolemaster.system" in systems
    code, loaded, systems, proc = _probe(db, "-e", "rm", "start")
    assert code == 0 and loaded == [], (proc.stderr, loaded)


def test_leave_flushes_the_output_and_keeps_the_exit_code(fight):
    code, _, _, proc = _probe(fight.db, "-e", "ford", "log")
    assert code == 0 and proc.stdout.rstrip().splitlines()[0] == "Setup" and proc.stdout.endswith("\n")
    code, _, _, proc = _probe(fight.db, "-e", "nowhere", "note", "x")
    assert code == 2 and proc.stderr.startswith("error: ") and proc.stdout == ""


def test_a_reader_that_goes_away_is_not_an_error(fight):
    with EventStore(fight.db) as store:  # more than a pipe holds (64 KiB), so the writer meets the closed end
        for i in range(400):
            execute(store, cmd.AddNote(text=f"line {i} " + "x" * 200), encounter_id="ford", actor="sam")
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.argv[0] = 'affray'; from affray.cli.main import main; main()",
         "--db", str(fight.db), "-e", "ford", "log"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={"AFFRAY_ACTOR": "sam", "PATH": "/usr/bin:/bin"},
    )
    assert proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait() == 0 and "Traceback" not in err, err


@pytest.mark.parametrize("argv", [["--help"], ["attack", "--help"], ["react", "--weapon"]])
def test_help_and_usage_errors_from_the_cache_import_no_cli_framework(tmp_path, argv):
    """The first run renders with Typer and keeps what it printed
    (:mod:`affray.cli.helpcache`); the next one prints it with neither
    typer, click nor rich loaded, the same bytes and exit code."""
    db = tmp_path / "none.db"
    first = subprocess.run(
        [sys.executable, "-c", PROBE, "--db", str(db), *argv], capture_output=True, text=True,
        env={"AFFRAY_ACTOR": "sam", "PATH": "/usr/bin:/bin", "AFFRAY_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert "PROBE" not in first.stderr  # Typer printed it and ended the process
    code, loaded, systems, proc = _probe(db, *argv, cache=tmp_path / "cache")
    assert (loaded, systems) == ([], [])
    assert (code, proc.stdout) == (first.returncode, first.stdout)
    assert [x for x in proc.stderr.splitlines() if not x.startswith("PROBE ")] == first.stderr.splitlines()
    assert not db.exists()


# --------------------------------------------------------------------------- #
# The stand-ins give what the heavier modules give
# --------------------------------------------------------------------------- #

_PATHISH = st.lists(st.sampled_from(["a", "b.c", ".", "..", "", ".toml", "x.", "s.TOML", "t.tar.gz", "é.yml", " .j"]),
                    max_size=5).map("/".join)


@given(st.one_of(_PATHISH, st.text(max_size=30)))
def test_file_suffix_and_stem_are_purepaths(path):
    if "\0" in path:
        return
    assert file_suffix(path) == PurePath(path).suffix
    assert file_stem(path) == PurePath(path).stem


@settings(max_examples=60)
@given(st.text(alphabet=st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), min_size=1, max_size=20))
def test_file_uri_is_paths_as_uri(tmp_path_factory, name):
    base = tmp_path_factory.getbasetemp()
    for path in (str(base / name.replace("/", "_")), name if not name.startswith("/") else "rel" + name):
        assert file_uri(path) == Path(path).resolve().as_uri()


@given(st.binary(max_size=300), st.binary(max_size=100))
def test_digest_sha256_is_hashlibs(data, more):
    assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    h = sha256(data)
    copy = h.copy()
    copy.update(more)
    assert (h.digest(), copy.digest()) == (hashlib.sha256(data).digest(), hashlib.sha256(data + more).digest())


@given(st.binary(min_size=1, max_size=100), st.binary(max_size=80))
def test_engine_key_is_hmac_sha256(seed, msg):
    assert EngineKey(seed).digest(msg) == hmac.digest(seed, msg, "sha256")


def test_engine_face_golden_is_unchanged():
    # the module docstring's example, written with hmac and hashlib (OpenSSL): test_dice.reference_face
    seed = bytes.fromhex("00ff" * 16)
    for index in range(50):
        for sides in (3, 6, 100, 2**64 - 1):
            assert engine_face(seed, "ford", index, sides) == reference_face(seed, "ford", index, sides)


_NAMES = st.text(alphabet="aAbBeErRsStT -é", max_size=12)


@given(_NAMES, _NAMES)
def test_quick_ratio_is_difflibs(a, b):
    assert quick_ratio(a, b) == difflib.SequenceMatcher(None, a, b).quick_ratio()


@given(_NAMES, st.lists(_NAMES, max_size=6), st.sampled_from([0.0, 0.6, 0.8, 1.0]))
def test_nearest_is_difflibs_close_match(word, choices, cutoff):
    """:func:`affray.text.nearest` skips difflib when no choice can pass its
    quick_ratio bound: the same answer as asking difflib every time."""
    by_lower = {c.lower(): c for c in choices}
    hits = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=cutoff)
    assert nearest(word, choices, cutoff) == (by_lower[hits[0]] if hits else None)


def test_a_sheet_with_skills_the_rules_never_read_imports_no_difflib():
    script = (
        "import sys\n"
        "from affray.text import nearest\n"
        "assert nearest('Athletics', ['Dodge', 'Resilience', 'Persistence'], 0.8) is None\n"
        "assert 'difflib' not in sys.modules\n"
        "assert nearest('Resiliance', ['Dodge', 'Resilience'], 0.8) == 'Resilience'\n"
        "print('ok')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.stdout.strip() == "ok", proc.stderr


@given(st.text(max_size=70), st.text(max_size=200))
def test_chain_hash_is_the_same_with_either_sha256(prev, text):
    if prev:  # an empty prev_hash reads the opening event's text (chain.start_of)
        assert chain_hash(prev, text) == chain_hash(prev, text, bulk_sha256())
        assert chain_hash(prev, text) == hashlib.sha256((prev + text).encode()).hexdigest()


def test_msgspec_inspect_and_textwrap_load_on_first_use():
    script = (
        "import sys\n"
        "from affray.cli.dispatch import _without_typing_extensions\n"
        "_without_typing_extensions()\n"
        "import msgspec\n"
        "lazy = [type(sys.modules[m]).__name__ for m in ('msgspec.inspect', 'textwrap')]\n"
        "assert lazy == ['_LazyModule', '_LazyModule'], lazy\n"
        "assert not any(type(f).__name__ == 'LoadedOnFirstUse' for f in sys.meta_path)\n"
        "class S(msgspec.Struct):\n"
        "    '''  A doc.'''\n"
        "    x: int\n"
        "assert msgspec.json.schema(S)['$defs']['S']['description'] == 'A doc.'\n"
        "assert msgspec.inspect.type_info(int) == msgspec.inspect.IntType()\n"
        "import textwrap\n"
        "assert textwrap.dedent('  a') == 'a' and type(sys.modules['textwrap']).__name__ == 'module'\n"
        "print('ok')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.stdout.strip() == "ok", proc.stderr


#: The modules whose structs msgspec decodes or converts on a command's path.
EAGER_ANNOTATIONS = (
    "affray.events.core", "affray.events.commands", "affray.events.envelope", "affray.projections.state",
    "affray.store.chain", "affray.rules.tables", "affray.rules.base", "affray.commands.core",
    "affray.commands.points", "affray.commands.travel", "affray.views.narrate",
    *(f"affray.rules.{key}.{part}" for key in ("mrq1", "mythras", "rolemaster", "rq3", "uesrpg")
      for part in ("sheet", "tables", "rulings")),
    *(f"affray.events.{key}" for key in ("mrq1", "mythras", "rolemaster", "rq3", "uesrpg")),
)


@pytest.mark.parametrize("name", EAGER_ANNOTATIONS)
def test_structs_on_the_path_have_evaluated_annotations(name):
    """msgspec turns a string annotation into a ``typing.ForwardRef``,
    which compiles it: about 20 µs each, 252 of them for a fight verb when
    these modules had ``from __future__ import annotations``."""
    import importlib

    import msgspec

    module = importlib.import_module(name)
    structs = [v for v in vars(module).values()
               if isinstance(v, type) and issubclass(v, msgspec.Struct) and v.__module__ == name]
    strings = [f"{s.__name__}.{field}" for s in structs
               for field, hint in vars(s).get("__annotations__", {}).items() if isinstance(hint, str)]
    assert not strings, strings
