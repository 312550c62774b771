"""A progress bar for long work (an export), shown only on a terminal.

DESIGN.md, "CLI conventions": long work shows a progress bar when the
output is a terminal. :func:`progress_bar` gives a :class:`Bar` whose
``tick(version)`` moves a rich progress bar (total: the head version) and
whose ``sink`` is where the work's text output goes:

- neither stdout nor stderr is a terminal (tests, pipes, cron): no bar at
  all, rich is not even imported; ``tick`` is ``None`` and ``sink`` writes
  to stdout in 64 KiB chunks;
- stderr is a terminal: the bar is drawn on stderr, and erased when done;
- the text goes to stdout and stdout is that terminal: the text is printed
  through the bar's console (line by line, never wrapped or styled), so that
  the bar stays below it instead of tearing it; the bar is then drawn on
  that console (stdout);
- only stdout is a terminal and the text goes to a file: the bar is drawn
  on stdout.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Callable, Iterator


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


class Chunked:
    """A text sink that writes to ``write`` in chunks of about ``size``
    characters (fewer, larger writes to a stream that flushes on each)."""

    def __init__(self, write: Callable[[str], object], size: int = 1 << 16) -> None:
        self._write = write
        self._parts: list[str] = []
        self._len = 0
        self._size = size

    def write(self, text: str) -> int:
        self._parts.append(text)
        self._len += len(text)
        if self._len >= self._size:
            self.flush()
        return len(text)

    def flush(self) -> None:
        if self._parts:
            text = "".join(self._parts)
            self._parts, self._len = [], 0
            self._write(text)


class _Lines(Chunked):
    """A sink that prints whole lines through a rich console (for text sent
    to the terminal the bar is drawn on); a partial line waits for its end."""

    def __init__(self, console) -> None:
        super().__init__(self._print)
        self._console = console
        self._tail = ""

    def _print(self, text: str) -> None:
        text = self._tail + text
        cut = text.rfind("\n")
        if cut < 0:
            self._tail = text
            return
        self._tail = text[cut + 1:]
        self._console.out(text[:cut], highlight=False)

    def close(self) -> None:
        self.flush()
        if self._tail:
            self._console.out(self._tail, highlight=False, end="")
            self._tail = ""


class Bar:
    """``tick(version)`` (``None`` when no bar is shown) and ``sink``, where
    text meant for stdout goes."""

    def __init__(self, tick: Callable[[int], None] | None, sink) -> None:
        self.tick = tick
        self.sink = sink


@contextmanager
def progress_bar(total: int, *, text_to_stdout: bool, label: str = "Exporting") -> Iterator[Bar]:
    """A :class:`Bar` for work over ``total`` events (see the module
    docstring for where it is drawn, if anywhere). Text written to
    ``bar.sink`` reaches stdout by the end of the ``with`` block."""
    out, err = sys.stdout, sys.stderr
    out_tty, err_tty = _isatty(out), _isatty(err)
    if not (out_tty or err_tty):
        sink = Chunked(out.write)
        yield Bar(None, sink)
        sink.flush()
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    if text_to_stdout and out_tty:
        console = Console(file=out)
    elif err_tty:
        console = Console(file=err)
    else:
        console = Console(file=out)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("events"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        redirect_stdout=False,
        redirect_stderr=False,
    )
    if text_to_stdout and console.file is out:
        sink = _Lines(console)
    else:
        sink = Chunked(out.write)
    task = progress.add_task(label, total=max(total, 1))

    def tick(version: int) -> None:
        progress.update(task, completed=min(version, total))

    with progress:
        yield Bar(tick, sink)
        if isinstance(sink, _Lines):
            sink.close()
        else:
            sink.flush()
