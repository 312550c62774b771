"""The help cache (:mod:`affray.cli.helpcache`, issue 17): ``--help`` and
usage errors printed again from what Typer printed, byte for byte, without
importing Typer; an entry is used only while everything it was rendered
from is unchanged; a cache that cannot be written changes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.core import TyperCommand
from typer.testing import CliRunner

from affray.cli import helpcache
from affray.cli.app import app

SCRIPT = Path(sys.executable).with_name("affray")
# The console script's main(), reporting on stderr whether the CLI framework
# was imported before it leaves (as tests/test_lean_path.py probes it).
PROBE = (
    "import sys\n"
    "import affray.cli.main as m\n"
    "end = m.leave\n"
    "def leave(code):\n"
    "    heavy = sorted(x for x in ('typer', 'click', 'rich') if x in sys.modules)\n"
    "    print('PROBE', code, ','.join(heavy) or '-', file=sys.stderr)\n"
    "    end(code)\n"
    "m.leave = leave\n"
    "sys.argv[0] = 'affray'\n"
    "m.main()\n"
)
# Typer alone, as the console script ran it before the cache: the reference.
TYPER = "import sys\nsys.argv[0] = 'affray'\nfrom affray.cli.app import main\nmain()\n"

SHOWN = [["--help"], ["attack", "--help"], [], ["tables"], ["--db", "x.db", "note", "--help"]]
REFUSED = [["atack"], ["attack", "--weapon"], ["--frobnicate"]]


def _env(cache: Path, **more: str) -> dict:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "AFFRAY_ACTOR": "sam", "AFFRAY_CACHE_DIR": str(cache), **more}


def _run(code: str, argv: list[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, env=env)


def _probe(argv: list[str], env: dict) -> tuple[subprocess.CompletedProcess, list[str] | None]:
    """The console script's run: the process, and the heavy modules it had
    loaded when it left through ``leave`` (None: it ended through Typer)."""
    proc = _run(PROBE, argv, env)
    lines = [x for x in proc.stderr.decode().splitlines() if x.startswith("PROBE ")]
    if not lines:
        return proc, None
    _, code, heavy = lines[-1].split(" ")
    assert int(code) == proc.returncode
    return proc, [] if heavy == "-" else heavy.split(",")


def _stderr(proc: subprocess.CompletedProcess) -> bytes:
    return b"".join(x + b"\n" for x in proc.stderr.split(b"\n") if x and not x.startswith(b"PROBE "))


def _entries(cache: Path) -> list[Path]:
    folder = cache / "help"
    return sorted(folder.iterdir()) if folder.exists() else []


@pytest.mark.parametrize("argv", SHOWN + REFUSED)
def test_the_second_run_prints_typers_bytes_without_typer(tmp_path, argv):
    env = _env(tmp_path / "cache")
    typer_only = _run(TYPER, argv, env)
    first, heavy_first = _probe(argv, env)  # rendered by Typer, and kept
    second, heavy_second = _probe(argv, env)  # from the cache
    assert heavy_first is None  # Typer printed it (and ended the process)
    assert heavy_second == [], heavy_second
    for proc in (first, second):
        assert proc.returncode == typer_only.returncode
        assert proc.stdout == typer_only.stdout
        assert _stderr(proc) == typer_only.stderr
    assert typer_only.returncode == (0 if argv in SHOWN else 2)
    assert len(_entries(tmp_path / "cache")) == 1


def test_each_terminal_width_has_its_own_entry(tmp_path):
    cache = tmp_path / "cache"
    outputs = {}
    for columns in ("60", "120", "60"):
        env = _env(cache, COLUMNS=columns)
        proc, _ = _probe(["attack", "--help"], env)
        assert proc.stdout == _run(TYPER, ["attack", "--help"], env).stdout
        outputs.setdefault(columns, proc.stdout)
        assert outputs[columns] == proc.stdout
    assert outputs["60"] != outputs["120"]
    assert len(_entries(cache)) == 2


def test_colour_and_encoding_variables_are_part_of_the_key(tmp_path):
    cache = tmp_path / "cache"
    for more in ({}, {"NO_COLOR": "1"}, {"FORCE_COLOR": "1"}, {"TERM": "dumb"}, {"PYTHONIOENCODING": "utf-8"}):
        _probe(["--help"], _env(cache, **more))
    assert len(_entries(cache)) == 5


def test_a_changed_source_file_renders_again(tmp_path):
    """An entry whose stamps no longer match a file (as after editing an
    editable install) is not used: Typer renders, and the entry is renewed."""
    cache = tmp_path / "cache"
    env = _env(cache)
    reference = _run(TYPER, ["attack", "--help"], env)
    _probe(["attack", "--help"], env)
    (entry,) = _entries(cache)
    data = entry.read_bytes()
    app_py = os.path.realpath(sys.modules["affray.cli.app"].__file__).encode()
    stamp_line = next(line for line in data.split(b"\n") if line.endswith(b" " + app_py))
    mtime, size, _ = stamp_line.split(b" ", 2)
    stale = b"%d %s %s" % (int(mtime) - 1_000_000_000, size, app_py)
    entry.write_bytes(data.replace(stamp_line, stale))
    proc, heavy = _probe(["attack", "--help"], env)
    assert heavy is None  # Typer rendered it again
    assert proc.stdout == reference.stdout and proc.returncode == 0
    assert stale not in entry.read_bytes() and stamp_line in entry.read_bytes()
    proc, heavy = _probe(["attack", "--help"], env)
    assert heavy == [] and proc.stdout == reference.stdout


def test_a_damaged_entry_is_ignored(tmp_path):
    cache = tmp_path / "cache"
    env = _env(cache)
    reference = _run(TYPER, ["--help"], env)
    _probe(["--help"], env)
    (entry,) = _entries(cache)
    for damage in (b"", b"garbage", entry.read_bytes()[:-40], entry.read_bytes()[:200]):
        entry.write_bytes(damage)
        proc, _ = _probe(["--help"], env)
        assert proc.stdout == reference.stdout and proc.returncode == 0


@pytest.mark.parametrize("argv", [["--help"], ["atack"]])
def test_an_unwritable_cache_changes_nothing(tmp_path, argv):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    env = _env(blocker / "cache")
    reference = _run(TYPER, argv, env)
    for _ in range(2):
        proc, heavy = _probe(argv, env)
        assert heavy is None
        assert (proc.returncode, proc.stdout, _stderr(proc)) == (reference.returncode, reference.stdout, reference.stderr)


def test_a_verb_that_ran_is_not_kept(tmp_path, fight):
    """Only help pages and refused command lines are kept: a verb's body that
    ran through Typer (here ones that fail with exit 2 after reading a file
    or the log) is not."""
    cache = tmp_path / "cache"
    env = _env(cache)
    for argv in (["--db", str(fight.db), "import", str(tmp_path / "missing.jsonl")],
                 ["copy", str(fight.db), str(fight.db)],
                 ["--version"], ["tables", "check", str(tmp_path / "missing.csv")],
                 ["sheet", "check", str(Path(__file__).resolve().parents[1] / "examples" / "mrq1" / "vasana.toml")]):
        first, _ = _probe(argv, env)
        again, heavy = _probe(argv, env)
        assert heavy is None, argv
        assert (again.returncode, again.stdout) == (first.returncode, first.stdout)
    assert _entries(cache) == []


def test_completion_is_never_kept(tmp_path):
    cache = tmp_path / "cache"
    env = _env(cache, _AFFRAY_COMPLETE="complete_bash", COMP_WORDS="affray ver", COMP_CWORD="1")
    for _ in range(2):
        proc, _ = _probe([], env)
        assert proc.returncode == 0 and proc.stdout.split() == [b"verify"]
    assert _entries(cache) == []


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("AFFRAY_CACHE_DIR", str(tmp_path / "mine"))
    assert helpcache.cache_dir() == str(tmp_path / "mine" / "help")
    monkeypatch.delenv("AFFRAY_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert helpcache.cache_dir() == str(tmp_path / "xdg" / "affray" / "help")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/is/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert helpcache.cache_dir() == str(tmp_path / "home" / ".cache" / "affray" / "help")


# --------------------------------------------------------------------------- #
# In process, with Typer's CliRunner
# --------------------------------------------------------------------------- #


def _typer(argv: list[str]):
    return lambda: app(args=list(argv), prog_name="affray")


@pytest.mark.parametrize("argv", SHOWN + REFUSED)
def test_record_and_replay_give_clirunners_bytes(monkeypatch, tmp_path, argv):
    monkeypatch.setenv("AFFRAY_CACHE_DIR", str(tmp_path))
    runner = CliRunner()
    expected = runner.invoke(app, argv, prog_name="affray")
    with runner.isolation() as (out, err, _):
        with pytest.raises(SystemExit) as ended:
            helpcache.record(argv, _typer(argv), TyperCommand.context_class)
        recorded = (ended.value.code, out.getvalue(), err.getvalue())
    with runner.isolation() as (out, err, _):
        replayed = (helpcache.replay(argv), out.getvalue(), err.getvalue())
    assert recorded == replayed == (expected.exit_code, expected.stdout_bytes, expected.stderr_bytes)
    assert expected.exit_code in (0, 2)


def test_replay_needs_the_same_files(monkeypatch, tmp_path):
    monkeypatch.setenv("AFFRAY_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "source.py"
    source.write_text("x = 1\n")
    monkeypatch.setattr(helpcache, "loaded_files", lambda: [str(source)])
    runner = CliRunner()
    with runner.isolation():  # the same terminal (none) as the replays below: it is part of the key
        helpcache.store(["--help"], 0, b"kept\n", b"")
    with runner.isolation() as (out, _, _):
        assert helpcache.replay(["--help"]) == 0 and out.getvalue() == b"kept\n"
    with runner.isolation() as (out, _, _):
        assert helpcache.replay(["attack", "--help"]) is None and out.getvalue() == b""
    source.write_text("x = 22\n")  # another size
    with runner.isolation() as (out, _, _):
        assert helpcache.replay(["--help"]) is None and out.getvalue() == b""
    source.unlink()
    with runner.isolation():
        assert helpcache.replay(["--help"]) is None


def test_record_keeps_nothing_when_the_output_went_around_the_text_layer(monkeypatch, tmp_path):
    monkeypatch.setenv("AFFRAY_CACHE_DIR", str(tmp_path))

    def render():
        sys.stdout.buffer.write(b"raw bytes\n")
        sys.exit(2)

    with CliRunner().isolation():
        with pytest.raises(SystemExit):
            helpcache.record(["atack"], render, TyperCommand.context_class)
    assert not (tmp_path / "help").exists() or not any((tmp_path / "help").iterdir())


def test_replay_leaves_a_closed_stdout_to_typer(monkeypatch, tmp_path):
    monkeypatch.setenv("AFFRAY_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(helpcache, "loaded_files", lambda: [__file__])
    monkeypatch.setattr(sys, "stdout", None)
    helpcache.store(["--help"], 0, b"kept\n", b"")
    assert helpcache.replay(["--help"]) is None

