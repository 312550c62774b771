"""The parsed-TOML cache of the rule tables (``affray.rules.tables.parsed_toml``)
and the fast path's stand-in for ``platform`` (``affray.cli.dispatch``): both
keep the fight verbs' imports short, and neither may change what is read."""

from __future__ import annotations

import glob
import os
import subprocess
import sys

import msgspec
import pytest

from affray.rules import tables

DATA_FILES = sorted(glob.glob(os.path.join(os.path.dirname(tables.__file__), "*", "data", "*.toml")))


@pytest.fixture
def cache_on(tmp_path, monkeypatch):
    """Caches written under ``tmp_path/pycache``, as with PYTHONPYCACHEPREFIX."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "pycache"))
    return tmp_path / "pycache"


def test_every_data_file_reads_the_same_through_the_cache(cache_on):
    assert len(DATA_FILES) >= 5  # every system keeps its tables in data/*.toml
    for path in DATA_FILES:
        with open(path, "rb") as f:
            expected = msgspec.toml.decode(f.read())
        assert tables.parsed_toml(path) == expected  # parsed, and the cache written
        assert os.path.exists(tables.cache_path(path))
        assert tables.parsed_toml(path) == expected  # from the cache


def test_a_cache_hit_does_not_parse(cache_on, tmp_path, monkeypatch):
    path = tmp_path / "t.toml"
    path.write_text('source = "x"\nrows = [1, 2.5, "three", true]\n[sub]\nk = -4\n')
    first = tables.parsed_toml(path)

    def no_parse(*a, **k):
        raise AssertionError("parsed again")

    monkeypatch.setattr(msgspec.toml, "decode", no_parse)
    assert tables.parsed_toml(path) == first == {"source": "x", "rows": [1, 2.5, "three", True], "sub": {"k": -4}}


def test_an_edited_file_is_parsed_again_whatever_its_times(cache_on, tmp_path):
    path = tmp_path / "t.toml"
    path.write_text("a = 1\n")
    stat = os.stat(path)
    assert tables.parsed_toml(path) == {"a": 1}
    path.write_text("a = 2\n")  # same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the same time
    assert tables.parsed_toml(path) == {"a": 2}


def test_a_damaged_cache_is_ignored_and_rewritten(cache_on, tmp_path):
    path = tmp_path / "t.toml"
    path.write_text("a = 1\n")
    tables.parsed_toml(path)
    cache = tables.cache_path(str(path))
    for junk in (b"", b"\xc1garbage", msgspec.msgpack.encode([1, 2, 3]), msgspec.msgpack.encode("x")):
        with open(cache, "wb") as f:
            f.write(junk)
        assert tables.parsed_toml(path) == {"a": 1}
    with open(cache, "rb") as f:
        assert msgspec.msgpack.decode(f.read()) == [b"a = 1\n", {"a": 1}]


def test_dates_are_not_cached(cache_on, tmp_path):
    path = tmp_path / "t.toml"
    path.write_text("when = 1979-05-27T07:32:00-08:00\nday = 1979-05-27\n")
    data = tables.parsed_toml(path)
    assert data == msgspec.toml.decode(path.read_bytes())
    assert not os.path.exists(tables.cache_path(str(path)))  # msgpack would give the offset back as UTC


def test_no_cache_is_written_without_bytecode(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "pycache"))
    path = tmp_path / "t.toml"
    path.write_text("a = 1\n")
    assert tables.parsed_toml(path) == {"a": 1}
    assert not (tmp_path / "pycache").exists()


def test_an_unwritable_cache_folder_still_reads(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setattr(sys, "pycache_prefix", str(blocker))  # a file where the folder would go
    path = tmp_path / "t.toml"
    path.write_text("a = 1\n")
    assert tables.parsed_toml(path) == {"a": 1}


def test_load_checks_as_the_toml_decoder_does(cache_on, tmp_path):
    class Table(tables.Sourced):
        n: int

    path = tmp_path / "t.toml"
    path.write_text('source = "s"\nn = 3\n')
    assert tables.load(tmp_path, "t.toml", Table) == Table(source="s", n=3)
    path.write_text('source = "s"\nn = 3\nextra = 1\n')
    with pytest.raises(msgspec.ValidationError) as cached:
        tables.load(tmp_path, "t.toml", Table)
    with pytest.raises(msgspec.ValidationError) as direct:
        msgspec.toml.decode(path.read_bytes(), type=Table)
    assert str(cached.value) == str(direct.value)


def test_the_fast_path_loads_msgspec_without_platform_and_leaves_the_real_one():
    code = (
        "import sys, os\n"
        "from affray.cli.dispatch import _without_typing_extensions\n"
        "_without_typing_extensions()\n"
        "import uuid\n"
        "assert 'msgspec' in sys.modules and 'platform' not in sys.modules, sorted(sys.modules)\n"
        "import platform\n"
        "assert platform.__file__ and platform.system() == os.uname().sysname\n"
        "assert uuid._LINUX == (platform.system() == 'Linux') and uuid._AIX == (platform.system() == 'AIX')\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "ok\n"
