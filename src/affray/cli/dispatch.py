"""The fast way into the common verbs: a small dispatcher that answers them
without importing typer (60–100 ms of imports) or sqlite-utils.

The Typer app (:mod:`affray.cli.app`) stays the one definition of the
interface: its help, its errors, its defaults. :data:`VERBS` only mirrors,
verb by verb, how the Typer command parses its arguments, and names the
framework-free body both call (:mod:`affray.cli.fight_verbs`,
:mod:`affray.cli.read_verbs`, with the same parameter names). A test
(``tests/test_dispatch.py``) checks every entry against the Typer command
and runs a matrix of command lines through both ways, comparing stdout,
stderr and the exit code.

:func:`answer` takes a command line it fully understands: global options
(``--db``, ``--encounter``/``-e``, ``--as``, as ``--opt VALUE`` or
``--opt=VALUE``, and the flag ``--no-color``; before the verb, or after it:
:func:`hoist` moves them, as the Typer app does), a verb of the table, its
arguments and its options
(``--opt VALUE``, ``--opt=VALUE``, a flag, a repeated option, options
between the arguments, as click allows). Anything else (``--help``, ``--``,
an unknown verb or option, a missing or extra argument, a value that does
not convert, a flag given a value, shell completion) returns None, and the
caller hands the command line to Typer, which prints the help or the error.

To add a verb to the fast path: write its body as ``verb(opts, **params)``
in a framework-free module, make the Typer command forward to it
(``forward(ctx, module.verb, locals())``) and add a :class:`Verb` here.
"""

from __future__ import annotations

import os
import sys

#: kinds of option value
STR, INT, FLAG, MANY = "str", "int", "flag", "many"

#: the global options of the Typer callback (:func:`affray.cli.app.main_options`)
#: that take a value
GLOBAL = {"--db": "db", "--encounter": "encounter", "-e": "encounter", "--as": "actor"}
#: the global flags of the Typer callback
GLOBAL_FLAGS = {"--no-color": "no_color"}


class Verb:
    """How one verb parses, and the body it runs.

    ``target`` is ``"module:function"``, imported when the verb is run.
    ``args`` are the positional parameters in order; ``"name?"`` is optional
    (the body's default applies), ``"name*"`` takes one or more (a list).
    ``options`` maps each option string (``--weapon``, ``-w``) to
    ``(parameter, kind)``, kind one of ``STR``, ``INT``, ``FLAG``, ``MANY``
    (repeatable, a list). ``required`` names the options that must be given.
    """

    __slots__ = ("target", "args", "options", "required")

    def __init__(
        self,
        target: str,
        args: tuple[str, ...] = (),
        options: dict[str, tuple[str, str]] | None = None,
        required: tuple[str, ...] = (),
    ):
        self.target, self.args, self.options, self.required = target, args, options or {}, required

    def body(self):
        """The function this verb runs."""
        import importlib

        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)

    def parse(self, tokens: list[str]) -> dict | None:
        """``tokens`` (after the verb) as the body's keyword arguments, or
        None when click would not take them as they are (see the module
        docstring)."""
        values: dict = {}
        positional: list[str] = []
        i, n = 0, len(tokens)
        while i < n:
            token = tokens[i]
            i += 1
            if token[:1] != "-" or token == "-":
                positional.append(token)
                continue
            name, eq, value = token.partition("=") if token[:2] == "--" else (token, "", "")
            spec = self.options.get(name)
            if spec is None:
                return None
            dest, kind = spec
            if kind == FLAG:
                if eq:
                    return None
                values[dest] = True
                continue
            if not eq:
                if i >= n:
                    return None
                value = tokens[i]
                i += 1
            if kind == INT:
                try:
                    value = int(value)
                except ValueError:
                    return None
            if kind == MANY:
                values.setdefault(dest, []).append(value)
            else:
                values[dest] = value
        for name in self.args:
            if name.endswith("*"):
                if not positional:
                    return None
                values[name[:-1]] = positional
                positional = []
            elif positional:
                values[name.rstrip("?")] = positional.pop(0)
            elif not name.endswith("?"):
                return None
        if positional or any(name not in values for name in self.required):
            return None
        return values


FIGHT = "affray.cli.fight_verbs:"
READ = "affray.cli.read_verbs:"
_DICE = {"--dice": ("dice", STR), "--reroll": ("reroll", STR), "--salt": ("salt", STR)}
_MODS = {"--mod": ("mod", MANY), "--situation": ("situation", MANY)}
_JSON = {"--json": ("json", FLAG)}
_REASON = {"--reason": ("reason", STR)}
GM = "affray.cli.gm_verbs:"

#: Every verb the fast path answers, by name (each must match its Typer command).
VERBS: dict[str, Verb] = {
    # reads
    "state": Verb(READ + "state", (), {**_JSON, "--at": ("at", STR), "--version": ("version", INT)}),
    "pending": Verb(READ + "pending", (), _JSON),
    "list": Verb(READ + "list_", (), _JSON),
    "log": Verb(READ + "log", (), {**_JSON, "--dice": ("dice", FLAG), "--tail": ("tail", INT), "--round": ("round_no", INT)}),
    "why": Verb(READ + "why", ("combatant", "subject?"), _JSON),
    "replay": Verb(READ + "replay", (), {"--round": ("round_no", INT), **_JSON}, required=("round_no",)),
    "rulings": Verb(READ + "rulings", (), {"--system": ("system", STR), "-s": ("system", STR), **_JSON}),
    "verify": Verb(READ + "verify", (), {
        "--dice": ("dice", FLAG), "--against": ("against", STR), "--full": ("full", FLAG), **_JSON,
    }),
    "head": Verb(READ + "head", (), _JSON),
    "export": Verb(READ + "export", (), {
        "--format": ("fmt", STR), "-f": ("fmt", STR), "--out": ("out", STR), "-o": ("out", STR),
        "--round": ("rounds", STR), "--secret": ("secret", FLAG), "--view": ("view", STR), "--limit": ("limit", INT),
    }),
    "audit": Verb(READ + "audit", (), _JSON),
    # the fight
    "new": Verb(FIGHT + "new", ("name",), {
        "--system": ("system", STR), "-s": ("system", STR), "--manual-dice": ("manual_dice", FLAG),
        "--ruling": ("ruling", MANY), "--id": ("encounter_id", STR), "--seed": ("seed", STR),
    }),
    "join": Verb(FIGHT + "join", ("sheet",), {
        "--side": ("side", STR), "--name": ("name", STR), "--handle": ("handle", STR), "--surprised": ("surprised", FLAG),
    }, required=("side",)),
    "start": Verb(FIGHT + "start", (), _DICE),
    "attack": Verb(FIGHT + "attack", ("attacker", "target"), {
        "--weapon": ("weapon", STR), "-w": ("weapon", STR), **_MODS, "--charge": ("charge", INT),
        "--past": ("past", STR), "--flurry": ("flurry", FLAG), "--precise": ("precise", STR),
        "--off-hand": ("off_hand", FLAG), "--range": ("range_m", INT), "--cover": ("cover", STR),
        "--crowd": ("crowd", STR), **_DICE,
    }),
    "react": Verb(FIGHT + "react", ("defender", "reaction"), {"--with": ("with_item", STR), **_MODS, **_DICE}),
    "roll": Verb(FIGHT + "roll", ("who?",), _DICE),
    "choose": Verb(FIGHT + "choose", ("who", "option"), {"--secret": ("secret", FLAG)}),
    "act": Verb(FIGHT + "act", ("who", "action*"), _DICE),
    "end-round": Verb(FIGHT + "end_round", (), _DICE),
    "note": Verb(FIGHT + "note", ("text",), {"--secret": ("secret", FLAG)}),
    "undo": Verb(FIGHT + "undo"),
    "redo": Verb(FIGHT + "redo"),
    "close": Verb(FIGHT + "close", (), {"--reason": ("reason", STR)}),
    "grapple": Verb(FIGHT + "grapple", ("who", "manoeuvre", "target?"), {
        "--weapon": ("weapon", STR), "-w": ("weapon", STR), **_MODS, **_DICE,
    }),
    "hero": Verb(FIGHT + "hero", ("who", "option"), {
        "--roll": ("roll", INT), "--location": ("location", STR), "--note": ("note", STR),
        "--gm-approves": ("gm_approves", FLAG), "--dice": ("dice", STR),
    }),
    # the GM's rulings (affray.cli.gm)
    "set": Verb(GM + "set_", ("who", "field", "location", "hp"), _REASON, required=("reason",)),
    "heal": Verb(GM + "heal", ("who", "location?", "amount?"), _REASON, required=("reason",)),
    "out": Verb(GM + "out", ("who", "how"), _REASON, required=("reason",)),
    "end": Verb(GM + "end", (), {"--winner": ("winner", STR), **_REASON}, required=("winner", "reason")),
    "ruling": Verb(GM + "ruling", ("assignment",), _REASON, required=("reason",)),
    "mount": Verb(FIGHT + "mount", ("rider", "beast?"), {"--off": ("off", FLAG)}),
    "salt": Verb(FIGHT + "salt", ("value",)),
    # time travel
    "rewind": Verb(FIGHT + "rewind", (), {"--to": ("to", STR), "--version": ("version", INT)}),
    "branch": Verb(FIGHT + "branch", ("name",), {"--at": ("at", STR), "--version": ("version", INT), "--id": ("encounter_id", STR)}),
    "amend": Verb(FIGHT + "amend", ("target",), {
        **_MODS, "--reaction": ("reaction", STR), "--target": ("target_combatant", STR), "--weapon": ("weapon", STR),
        "--dice": ("dice", STR), "--reroll": ("reroll", STR), "--replay": ("replay", FLAG), "--on-branch": ("on_branch", STR),
    }),
}


def hoist(argv: list[str], takes_value) -> list[str]:
    """``argv`` with the global options given after the verb (``affray
    verify -e ford``, ``affray log --tail 3 --db x.db``) moved before it,
    where click looks for them; otherwise unchanged.

    ``takes_value(verb)`` gives the set of the verb's own option strings that
    take a value (their values are skipped: ``--reason --db`` is a reason),
    or None for a verb it does not know (nothing is moved). A global option
    the verb defines itself stays the verb's; nothing after ``--`` moves.
    Both ways into a verb use it: the fast dispatcher and the Typer app
    (:class:`affray.cli.app.OneLineErrors`).
    """
    i, n = 0, len(argv)
    while i < n and argv[i][:1] == "-" and argv[i] != "--":  # the globals before the verb
        name = argv[i].partition("=")[0] if argv[i][:2] == "--" else argv[i]
        i += 2 if name in GLOBAL and "=" not in argv[i] else 1
    if i >= n or argv[i][:1] == "-":
        return argv
    own = takes_value(argv[i])
    if own is None:
        return argv
    moved: list[str] = []
    rest: list[str] = []
    j = i + 1
    while j < n:
        token = argv[j]
        if token == "--":
            rest.extend(argv[j:])
            break
        name = token.partition("=")[0] if token[:2] == "--" else token
        if name in own:
            rest.append(token)
            if "=" not in token and j + 1 < n:
                rest.append(argv[j + 1])
                j += 1
        elif name in GLOBAL_FLAGS:
            moved.append(token)
        elif name in GLOBAL:
            moved.append(token)
            if "=" not in token and j + 1 < n:
                moved.append(argv[j + 1])
                j += 1
        elif token[:2] == "-e" and len(token) > 2 and "-e" not in own:
            moved.append(token)  # -eVALUE, as click takes it
        else:
            rest.append(token)
        j += 1
    if not moved:
        return argv
    return argv[:i] + moved + [argv[i]] + rest


def _value_options(verb: str) -> set[str] | None:
    spec = VERBS.get(verb)
    if spec is None:
        return None
    return {name for name, (_, kind) in spec.options.items() if kind != FLAG}


def parse(argv: list[str]) -> tuple[dict, Verb, dict] | None:
    """``argv`` (without the program name) as ``(global values, verb,
    the verb's keyword arguments)``, or None for a form left to Typer.
    Global options may come after the verb too (:func:`hoist`)."""
    argv = hoist(argv, _value_options)
    values = {
        "db": os.environ.get("AFFRAY_DB") or "affray.db", "encounter": os.environ.get("AFFRAY_ENCOUNTER") or "",
        "actor": "", "no_color": False,
    }
    i, n = 0, len(argv)
    while i < n and argv[i][:1] == "-":
        name, eq, value = argv[i].partition("=") if argv[i][:2] == "--" else (argv[i], "", "")
        if name in GLOBAL_FLAGS and not eq:
            values[GLOBAL_FLAGS[name]] = True
            i += 1
            continue
        key = GLOBAL.get(name)
        if key is None:
            return None
        if not eq:
            if i + 1 >= n:
                return None
            value = argv[i + 1]
            i += 1
        values[key] = value
        i += 1
    if i >= n or "--help" in argv or "--" in argv:
        return None
    verb = VERBS.get(argv[i])
    if verb is None:
        return None
    kwargs = verb.parse(argv[i + 1:])
    if kwargs is None:
        return None
    return values, verb, kwargs


def answer(argv: list[str]) -> int | None:
    """Run the command line ``argv`` if the fast path takes it (see the
    module docstring): its exit code, or None to hand it to Typer."""
    if "_AFFRAY_COMPLETE" in os.environ:  # shell completion: click's business
        return None
    parsed = parse(argv)
    if parsed is None:
        return None
    values, verb, kwargs = parsed
    _without_typing_extensions()
    from affray.cli.core import Options, default_actor, echo, error_of

    opts = Options(
        db=values["db"], encounter=values["encounter"] or None, actor=values["actor"] or default_actor(),
        no_color=values["no_color"],
    )
    try:
        return verb.body()(opts, **kwargs) or 0
    except BrokenPipeError:  # the reader went away (| head): not an error, and no traceback
        from affray.cli.read_verbs import quiet_stdout

        quiet_stdout()
        return 0
    except (Exception, KeyboardInterrupt) as exc:
        shown = error_of(exc)
        if shown is None:
            raise
        echo(f"error: {shown[0]}", err=True)
        return shown[1]


def _without_typing_extensions() -> None:
    """Let msgspec load without ``typing_extensions``, ``platform``, and with
    ``msgspec.inspect`` and ``textwrap`` loaded on first use
    (:class:`LoadedOnFirstUse`).

    msgspec imports ``typing_extensions``, if installed (typer needs it), only to read that
    module's ``Required``/``NotRequired`` and ``get_type_hints``; affray's
    structs use neither, and the import drags in ``inspect``, ``ast`` and
    ``dis``: about 10 ms of the fast path. A ``None`` entry in
    ``sys.modules`` makes msgspec fall back to :mod:`typing`. Only when
    msgspec is not loaded yet; the entry is removed again at once, so a later
    import of ``typing_extensions`` (by typer) works as usual.
    """
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]
    platform = _platform_for_uuid()
    lazy = LoadedOnFirstUse(("msgspec.inspect", "textwrap"))
    sys.meta_path.insert(0, lazy)
    try:
        import msgspec  # noqa: F401
    finally:
        sys.meta_path.remove(lazy)
        if sys.modules.get("typing_extensions", 0) is None:
            del sys.modules["typing_extensions"]
        if platform is not None and sys.modules.get("platform") is platform:
            del sys.modules["platform"]


class LoadedOnFirstUse:
    """An import finder that makes the modules ``names`` load on first use.

    msgspec's ``__init__`` imports :mod:`msgspec.inspect` (type
    introspection) and, through ``msgspec.json``'s JSON Schema support,
    :mod:`textwrap`; a command uses neither, and they cost about 1.5 ms
    together. While msgspec loads, this finder (first on
    ``sys.meta_path``) gives those two the spec the ordinary path finder
    gives, with its loader wrapped in :class:`importlib.util.LazyLoader`
    (the standard library's lazy import): the module is in ``sys.modules``
    and bound where it is imported, and runs its code the first time one of
    its attributes is read, so whatever uses it later gets the whole module.
    Any other name, and a name the path finder does not find, is left to the
    other finders (None).
    """

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = frozenset(names)

    def find_spec(self, name: str, path=None, target=None):  # noqa: ANN001 - the finder protocol
        if name not in self.names:
            return None
        import importlib.machinery  # here: the finder is asked only while msgspec loads
        import importlib.util

        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = importlib.util.LazyLoader(spec.loader)
        return spec


def _platform_for_uuid():
    """A stand-in for :mod:`platform` while msgspec imports :mod:`uuid`.

    On Linux, ``uuid`` imports ``platform`` only to call
    ``platform.system()`` once (is this AIX?), and ``platform`` compiles a
    dozen regular expressions at import: 2–4 ms of every command. The
    stand-in answers ``system()`` as ``platform`` does (``os.uname()``) and
    leaves ``sys.modules`` again once msgspec is loaded, so a later
    ``import platform`` gets the real module. None (nothing done) when
    ``platform`` or ``uuid`` is loaded already, or without ``os.uname``.
    """
    if "platform" in sys.modules or "uuid" in sys.modules or not hasattr(os, "uname"):
        return None
    stand_in = type(sys)("platform")
    stand_in.system = lambda: os.uname().sysname
    sys.modules["platform"] = stand_in
    return stand_in
