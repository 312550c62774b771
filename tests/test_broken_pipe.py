"""A reader that goes away (``affray rulings | head``) is not an error: the
fast path ends quietly with exit 0 instead of a BrokenPipeError traceback
(DESIGN.md, "CLI conventions": a traceback is always a bug)."""

from __future__ import annotations

import sys

from affray.cli.dispatch import answer


class _ClosedPipe:
    """A stdout whose reader has gone: every write raises BrokenPipeError."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self) -> int:
        raise ValueError("no file descriptor")


def test_rulings_into_a_closed_pipe_exits_0(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert answer(["--db", str(tmp_path / "none.db"), "rulings", "--system", "mythras"]) == 0
