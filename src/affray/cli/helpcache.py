"""The help pages and usage errors Typer printed, kept to be printed again
without importing Typer.

``affray --help`` and ``affray attack --help`` are answered by the Typer
app (:mod:`affray.cli.app`), the one definition of the interface; importing
it and rendering a page costs 60–90 ms, five to eight times a bare
``python -c pass``. The console script (:func:`affray.cli.main.main`)
therefore keeps what Typer printed for a command line that only asked for
help (exit 0) or was refused as a usage error (exit 2, nothing run), and
prints those bytes again, with the same exit code, the next time the same
command line comes in the same conditions:

- the key (:func:`key`) is the command line, the terminal (whether stdout
  and stderr are terminals, their encodings, the size of stdout's
  terminal), the environment variables that can change what Typer, click or
  affray print (:data:`ENV_NAMES`, :data:`ENV_PREFIXES`: ``COLUMNS``,
  ``NO_COLOR``, ``FORCE_COLOR``, ``TERM``, ``AFFRAY_*``, ...) and the
  interpreter's version;
- each entry also lists every source file that was loaded while Typer
  rendered it (affray's own modules, Typer's, the standard library's) and
  the installed distribution's ``METADATA`` (its version), with their size
  and modification time. An entry whose files changed (an upgrade, an
  edited editable install) is not used: Typer renders the page again and
  the entry is replaced.

What is kept is exactly what Typer wrote, byte for byte; a command line
that ran a verb's body, or whose output went through anything but the
standard streams' text layer, is not kept. The entries live in
``$AFFRAY_CACHE_DIR/help`` (default ``$XDG_CACHE_HOME/affray/help``, or
``~/.cache/affray/help``). A cache that cannot be read or written never
changes what the command does: it only costs the render.
"""

from __future__ import annotations

import os
import sys

#: the first bytes of an entry (its format's version)
MAGIC = b"affray-help 1\n"
#: environment variables that can change what Typer, click or affray print
ENV_NAMES = frozenset({
    "COLUMNS", "LINES", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "PY_COLORS",
    "TERMINAL_WIDTH", "GITHUB_ACTIONS", "JUPYTER_COLUMNS", "JUPYTER_LINES", "TTY_COMPATIBLE", "TTY_INTERACTIVE",
    "PYTHONIOENCODING", "PYTHONUTF8", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "USER", "LOGNAME",
})
#: prefixes of environment variables that can change it (affray's own, Typer's and click's)
ENV_PREFIXES = ("AFFRAY_", "_AFFRAY", "TYPER_", "_TYPER", "CLICK_", "_CLICK")
#: an output larger than this (bytes, stdout and stderr together) is not kept
MAX_OUTPUT = 1 << 20


def cache_dir() -> str:
    """The folder of the entries: ``$AFFRAY_CACHE_DIR/help``, else
    ``$XDG_CACHE_HOME/affray/help``, else ``~/.cache/affray/help``."""
    base = os.environ.get("AFFRAY_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = os.path.join(xdg if xdg and os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".cache"), "affray")
    return os.path.join(base, "help")


def _terminal(stream) -> str:  # noqa: ANN001
    """``tty/encoding/errors`` of one standard stream (``-`` when it is None)."""
    if stream is None:
        return "-"
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError, OSError):
        tty = None
    return f"{tty}/{getattr(stream, 'encoding', None)}/{getattr(stream, 'errors', None)}"


def key(argv: list[str]) -> str:
    """Everything besides the source files that can change what Typer prints
    for the command line ``argv`` (without the program name), as one text."""
    try:
        size = tuple(os.get_terminal_size(sys.__stdout__.fileno()))  # what shutil.get_terminal_size asks
    except (AttributeError, ValueError, OSError):
        size = None
    env = sorted(
        (name, value) for name, value in os.environ.items() if name in ENV_NAMES or name.startswith(ENV_PREFIXES)
    )
    parts = [
        sys.version, repr(argv), repr(sys.argv[:1]), _terminal(sys.stdout), _terminal(sys.stderr),
        _terminal(sys.__stdout__), repr(size), repr(env),
    ]
    return "\n".join(parts)


def _path_of(text: str) -> str:
    from affray.digest import sha256

    return os.path.join(cache_dir(), sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:40])


def replay(argv: list[str]) -> int | None:
    """Print the kept output of the command line ``argv`` and give its exit
    code, or None when there is no entry still valid for it (a missing,
    stale, damaged or unreadable entry, or a standard stream without its
    binary buffer: the caller renders with Typer). A reader that goes away
    while it prints (``affray --help | head -1``) is not an error."""
    if "_AFFRAY_COMPLETE" in os.environ:  # shell completion: click's business, never kept
        return None
    try:
        wanted = key(argv).encode("utf-8", "surrogateescape")
        with open(_path_of(wanted.decode("utf-8", "surrogateescape")), "rb") as f:
            data = f.read()
        if not data.startswith(MAGIC):
            return None
        head_end = data.index(b"\n", len(MAGIC))
        n_key, n_files, n_out, n_err, code = (int(x) for x in data[len(MAGIC):head_end].split())
        at = head_end + 1
        if data[at:at + n_key] != wanted:
            return None
        at += n_key
        files = data[at:at + n_files].decode("utf-8", "surrogateescape")
        at += n_files
        for line in files.split("\n"):
            mtime, size, path = line.split(" ", 2)
            st = os.stat(path)
            if st.st_mtime_ns != int(mtime) or st.st_size != int(size):
                return None
        if len(data) != at + n_out + n_err:  # cut short, or more than it says
            return None
        out, err = data[at:at + n_out], data[at + n_out:]
    except (OSError, ValueError, UnicodeError):
        return None
    streams = ((sys.stdout, out), (sys.stderr, err))
    if any(chunk and getattr(stream, "buffer", None) is None for stream, chunk in streams):
        return None  # a closed or replaced stream: Typer's business
    try:
        for stream, chunk in streams:
            if chunk:
                stream.flush()
                stream.buffer.write(chunk)
                stream.buffer.flush()
    except BrokenPipeError:  # the reader went away (affray --help | head): not an error
        pass
    return code


class Recorder:
    """A standard stream that writes through to ``real`` and keeps a copy
    of what went through its text layer, encoded as ``real`` encodes it.

    Anything else (its binary ``buffer``) still goes to ``real`` but marks
    the copy as incomplete (``whole`` False), so it is not kept.
    """

    def __init__(self, real) -> None:  # noqa: ANN001
        self.real = real
        self.chunks: list[bytes] = []
        self.size = 0
        self.whole = True

    def write(self, text):  # noqa: ANN001
        n = self.real.write(text)
        if isinstance(text, str):
            chunk = text.encode(self.real.encoding, self.real.errors or "strict")
            self.chunks.append(chunk)
            self.size += len(chunk)
        else:
            self.whole = False
        return n

    def writelines(self, lines) -> None:  # noqa: ANN001
        for line in lines:
            self.write(line)

    @property
    def buffer(self):
        self.whole = False
        return self.real.buffer

    def __getattr__(self, name: str):
        return getattr(self.real, name)


def _utf8(stream) -> bool:  # noqa: ANN001
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
    return encoding in ("utf-8", "utf8") and hasattr(stream, "buffer")


def record(argv: list[str], render, context_class) -> None:  # noqa: ANN001
    """Run ``render()`` (the Typer app, on the command line ``argv``), and
    keep what it printed when it only printed help (exit 0) or refused the
    command line (exit 2) without running a verb's body.

    ``context_class`` is the click context class whose ``get_help`` (the
    help page) and ``invoke`` (a command's body) are watched while it runs.
    The body of a verb runs with the real ``sys.stdout`` and ``sys.stderr``:
    the copy stops before it. ``render``'s ``SystemExit`` (or any other
    exception) goes on as it came.
    """
    if "_AFFRAY_COMPLETE" in os.environ or not (_utf8(sys.stdout) and _utf8(sys.stderr)):
        render()
        return
    real_out, real_err = sys.stdout, sys.stderr
    out, err = Recorder(real_out), Recorder(real_err)
    seen = {"help": False, "ran": False}
    get_help, invoke = context_class.get_help, context_class.invoke

    def watched_get_help(ctx):  # noqa: ANN001
        seen["help"] = True
        return get_help(ctx)

    def watched_invoke(ctx, callback, /, *args, **kwargs):  # noqa: ANN001
        if not isinstance(getattr(ctx.command, "commands", None), dict):  # a verb's body, not a group's options
            seen["ran"] = True
            if sys.stdout is out:
                sys.stdout = real_out
            if sys.stderr is err:
                sys.stderr = real_err
        return invoke(ctx, callback, *args, **kwargs)

    context_class.get_help, context_class.invoke = watched_get_help, watched_invoke
    sys.stdout, sys.stderr = out, err
    code = None
    try:
        render()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        raise
    finally:
        context_class.get_help, context_class.invoke = get_help, invoke
        if sys.stdout is out:
            sys.stdout = real_out
        if sys.stderr is err:
            sys.stderr = real_err
        if (
            code is not None and not seen["ran"] and out.whole and err.whole
            and out.size + err.size <= MAX_OUTPUT
            and ((code == 0 and seen["help"]) or (code == 2 and not out.chunks))
        ):
            store(argv, code, b"".join(out.chunks), b"".join(err.chunks))


def loaded_files() -> list[str]:
    """The source files of every loaded module, and the ``METADATA`` of
    every installed affray distribution on ``sys.path`` (its version)."""
    paths = {
        f for m in list(sys.modules.values())
        if isinstance(f := getattr(m, "__file__", None), str)
    }
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:  # not a folder (a zip), or gone
            continue
        paths.update(
            os.path.join(entry, name, "METADATA") for name in names
            if name.lower().startswith("affray-") and name.endswith(".dist-info")
        )
    return sorted(paths)


def store(argv: list[str], code: int, out: bytes, err: bytes) -> None:
    """Keep ``out``/``err``/``code`` for ``argv``, under :func:`key` and
    the stamps of :func:`loaded_files`; silently nothing when the cache
    cannot be written."""
    try:
        text = key(argv)
        stamps = []
        for path in loaded_files():
            if "\n" in path:
                return
            try:
                st = os.stat(path)
            except OSError:  # a module without a file (a namespace, a zip): nothing to stamp
                continue
            stamps.append(f"{st.st_mtime_ns} {st.st_size} {path}")
        wanted = text.encode("utf-8", "surrogateescape")
        files = "\n".join(stamps).encode("utf-8", "surrogateescape")
        data = b"".join((
            MAGIC, b"%d %d %d %d %d\n" % (len(wanted), len(files), len(out), len(err), code), wanted, files, out, err,
        ))
        path = _path_of(text)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        scratch = f"{path}.{os.getpid()}.tmp"
        try:
            with open(scratch, "wb") as f:
                f.write(data)
            os.replace(scratch, path)
        finally:
            if os.path.exists(scratch):
                os.unlink(scratch)
    except (OSError, ValueError, UnicodeError):  # an unwritable cache costs the next render, nothing else
        pass
