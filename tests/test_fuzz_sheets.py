"""Hostile sheets in TOML, YAML and JSON, fuzzed with hypothesis (issue 6).

A sheet file either loads (and then every figure derives, and ``affray join``
takes it) or is refused with ONE line naming the file, as a
:class:`SheetError` from the API and as ``error:`` with exit 2 and nothing
appended from the CLI. The files are the example sheets with random edits,
random data of every JSON/YAML/TOML type, and random bytes. YAML is loaded
safely: tags that would build Python objects or run a program are refused,
and their side effect never happens. Nesting deep enough to crash the YAML
parser, or to exhaust the recursion of the JSON and TOML ones, is refused too.
"""

from __future__ import annotations

import copy
import os
import shutil
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from affray.rules.mrq1.sheet import MAX_SHEET_BYTES, Sheet, SheetError, derive, load_sheet

from conftest import BROO_YAML, GORP, VASANA, assert_clean_outcome, fuzz_case, fuzz_examples

FUZZ = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
SUFFIXES = (".toml", ".yaml", ".yml", ".json")

BASE_SHEETS = [
    msgspec.toml.decode(VASANA.read_bytes()),
    msgspec.yaml.decode(BROO_YAML.read_bytes()),
    msgspec.json.decode(GORP.read_bytes()),
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.integers(-5, 400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["1D8", "2D6+1", "1D0", "0D6", "1000D6", "D%", "+1D4", "-1D2", "", " ", "melee", "shield",
                     "chest", "Right-Leg", "head", "tail", "'; DROP TABLE events; --", "<script>", "\x00", "x" * 5000]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=12,
)


def _paths(x, prefix=()):
    """Every path into ``x`` (dict keys and list indices)."""
    yield prefix
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _paths(v, prefix + (i,))


def _parent(doc, path):
    for key in path[:-1]:
        doc = doc[key]
    return doc


@st.composite
def mutated_sheets(draw):
    """An example sheet with one to three random edits: a value replaced,
    a field removed, or an unknown field added."""
    doc = copy.deepcopy(draw(st.sampled_from(BASE_SHEETS)))
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = _parent(doc, path)
        action = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if action == "replace":
            parent[path[-1]] = draw(values)
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.text(max_size=12))] = draw(values)
        else:
            parent.append(draw(values))
    return doc


def _encode(doc, suffix: str) -> bytes:
    """``doc`` in the format of ``suffix``; what a format cannot hold (None
    in TOML, NaN in JSON, ...) falls back to JSON text, or to its repr."""
    try:
        if suffix == ".toml":
            return msgspec.toml.encode(doc)
        if suffix in (".yaml", ".yml"):
            return msgspec.yaml.encode(doc)
        return msgspec.json.encode(doc)
    except Exception:  # noqa: BLE001 - the writer cannot hold it
        try:
            return msgspec.json.encode(doc)
        except Exception:  # noqa: BLE001 - anything, as bytes
            return repr(doc).encode("utf-8", "surrogatepass")


def check_sheet_file(path: Path) -> Sheet | None:
    """Load ``path``: a sheet whose figures all derive, or one clean line."""
    try:
        sheet = load_sheet(path)
    except SheetError as exc:
        line = str(exc)
        assert "\n" not in line and "\r" not in line, repr(line)
        assert line.startswith(str(path)), line  # names the file
        return None
    derived = derive(sheet)
    assert derived.combat_actions >= 1 and len(derived.locations) == 7
    return sheet


@pytest.fixture
def sheet_dir(tmp_path) -> Path:
    d = tmp_path / "sheets"
    d.mkdir()
    return d


def test_the_example_sheets_load():
    for path in (VASANA, BROO_YAML, GORP):
        assert check_sheet_file(path) is not None


@settings(max_examples=fuzz_examples(300), **FUZZ)
@given(doc=mutated_sheets(), suffix=st.sampled_from(SUFFIXES))
def test_mutated_sheets(sheet_dir, doc, suffix):
    path = sheet_dir / f"sheet{suffix}"
    path.write_bytes(_encode(doc, suffix))
    fuzz_case("sheets")
    check_sheet_file(path)


@settings(max_examples=fuzz_examples(200), **FUZZ)
@given(doc=values, suffix=st.sampled_from(SUFFIXES))
def test_random_documents(sheet_dir, doc, suffix):
    path = sheet_dir / f"doc{suffix}"
    path.write_bytes(_encode(doc, suffix))
    fuzz_case("sheets")
    check_sheet_file(path)


format_text = st.text(alphabet=st.sampled_from(list('[]{}:,-=#"\'!&*|>?%@`\n \t.0123456789abcDEX\\\x00é🗡')), max_size=200)


@settings(max_examples=fuzz_examples(300), **FUZZ)
@given(data=st.one_of(st.binary(max_size=300), format_text.map(lambda t: t.encode("utf-8"))), suffix=st.sampled_from(SUFFIXES))
def test_random_bytes(sheet_dir, data, suffix):
    path = sheet_dir / f"bytes{suffix}"
    path.write_bytes(data)
    fuzz_case("sheets")
    check_sheet_file(path)


@settings(max_examples=fuzz_examples(40), **FUZZ)
@given(
    opener=st.sampled_from(["[", "{a: ", "- "]),
    depth=st.integers(33, 200_000),
    suffix=st.sampled_from(SUFFIXES),
)
def test_deep_nesting(sheet_dir, opener, depth, suffix):
    """Deep nesting crashed libyaml (a segmentation fault, not even a
    traceback) and raised RecursionError from the JSON and TOML decoders."""
    path = sheet_dir / f"deep{suffix}"
    if suffix == ".json":
        body = "[" * depth + "]" * depth if opener != "{a: " else '{"a": ' * depth + "1" + "}" * depth
    elif suffix == ".toml":
        body = "name = " + "[" * depth + "]" * depth if opener != "{a: " else "name = " + "{a = " * depth + "1" + "}" * depth
    elif opener == "- ":
        body = "name:\n  " + "- " * depth + "x\n"
    else:
        close = "]" if opener == "[" else "}"
        body = "name: " + opener * depth + ("" if opener == "[" else "1") + close * depth + "\n"
    data = body.encode()
    assume(len(data) <= MAX_SHEET_BYTES)
    path.write_bytes(data)
    fuzz_case("sheets")
    assert check_sheet_file(path) is None


def test_a_sheet_too_big_is_refused_unread(sheet_dir):
    path = sheet_dir / "big.toml"
    path.write_bytes(b"# " + b"x" * (MAX_SHEET_BYTES + 10) + b"\n")
    with pytest.raises(SheetError, match="too big for a sheet"):
        load_sheet(path)


# --------------------------------------------------------------------------- #
# YAML that would run code
# --------------------------------------------------------------------------- #

DANGEROUS_TAGS = [
    '!!python/object/apply:os.system ["touch {marker}"]',
    '!!python/object/apply:subprocess.check_output [["touch", "{marker}"]]',
    '!!python/object/new:subprocess.Popen [["touch", "{marker}"]]',
    '!!python/object:__main__.Sheet {{name: x}}',
    "!!python/name:os.system",
    "!!python/module:os",
    '!!python/tuple ["touch", "{marker}"]',
    "!<tag:yaml.org,2002:python/object/apply:os.system> ['touch {marker}']",
    '!!python/object/apply:builtins.exec ["open(\'{marker}\', \'w\').close()"]',
    '!!python/object/apply:builtins.eval ["__import__(\'os\').system(\'touch {marker}\')"]',
    "!custom {{a: 1}}",
]


@pytest.mark.parametrize("where", ["document", "name", "skill", "weapon"])
@pytest.mark.parametrize("tag", DANGEROUS_TAGS, ids=lambda t: t.split()[0][:40])
def test_yaml_tags_that_would_run_code(sheet_dir, tmp_path, tag, where):
    marker = tmp_path / "pwned"
    payload = tag.format(marker=marker)
    text = {
        "document": f"{payload}\n",
        "name": f"name: {payload}\ncharacteristics: {{STR: 10, CON: 10, SIZ: 10, INT: 10, POW: 10, DEX: 10, CHA: 10}}\n",
        "skill": f"name: x\nskills:\n  Dodge: {payload}\n",
        "weapon": f"name: x\nweapons:\n  - {payload}\n",
    }[where]
    path = sheet_dir / "evil.yaml"
    path.write_text(text)
    fuzz_case("sheets")
    assert check_sheet_file(path) is None
    assert not marker.exists(), "the YAML ran code"


def test_the_issue_example_through_the_cli(fight, tmp_path):
    """The exact example of the issue: refused in one line, /tmp/pwned not made."""
    pwned = Path("/tmp/pwned")
    existed = pwned.exists()
    path = tmp_path / "evil.yaml"
    path.write_text('!!python/object/apply:os.system ["touch /tmp/pwned"]\n')
    before = fight.events()
    result = fight("join", str(path), "--side", "x")
    fuzz_case("sheets")
    assert_clean_outcome(result)
    assert result.exit_code == 2 and "not valid YAML" in result.stderr
    assert fight.events() == before
    assert pwned.exists() == existed, "the YAML ran code"


# --------------------------------------------------------------------------- #
# Through the CLI: 'affray join'
# --------------------------------------------------------------------------- #


@settings(max_examples=fuzz_examples(60), **FUZZ)
@given(
    content=st.one_of(
        st.tuples(mutated_sheets(), st.sampled_from(SUFFIXES)).map(lambda t: (_encode(*t), t[1])),
        st.tuples(st.binary(max_size=200), st.sampled_from(SUFFIXES)),
    ),
    side=st.sampled_from(["red", "", "'; DROP TABLE events; --", "<b>"]),
)
def test_join_fuzzed_sheets(duel, sheet_dir, content, side):
    data, suffix = content
    path = sheet_dir / f"join{suffix}"
    path.write_bytes(data)
    before = duel.events()
    result = duel("join", str(path), "--side", side)
    fuzz_case("sheets")
    assert_clean_outcome(result)
    if result.exit_code:
        assert duel.events() == before
    else:
        assert duel.events() > before
