"""The import graph of ``src/affray`` (issue 10; DESIGN.md, "Inside a system,
steps are data and imports run one way").

``lint-imports`` checks the contracts in ``pyproject.toml``; these tests
check what a contract cannot say:

- no import cycle anywhere in the package (the graph is built with grimp,
  which import-linter brings, and counts function-local imports too);
- no function-local import in ``rules/``, ``commands/`` or ``dice/`` without
  a reason comment (the one allowed reason: deferring a heavy optional
  library);
- every top-level module sits in the whole-package layers contract, and
  every rule system in the independence contract, so a new module or
  system cannot slip past them;
- the contracts themselves hold (the same check as CI's ``lint-imports``).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import tomllib
from collections import deque
from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PYPROJECT = ROOT / "pyproject.toml"

#: System packages whose own restructure (steps as data, one-way imports
#: inside the system) is still under way: their internal cycles and
#: function-local imports are skipped here, and ONLY theirs (a cycle that
#: leaves the package still fails). Empty: every system has the shape.
PENDING_RESTRUCTURE: set[str] = set()

#: Where function-local imports are not allowed (brief, "How we build").
NO_LOCAL_IMPORTS = ("affray.rules", "affray.commands", "affray.dice")

#: The grep of issue 10's "Done when": an indented import of our own code.
INDENTED_AFFRAY_IMPORT = re.compile(r"^\s+(from|import) affray")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("affray", cache_dir=None)


def _contracts() -> dict[str, dict]:
    """The contracts of ``pyproject.toml`` by ``id`` (by name when one has none)."""
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]
    return {c.get("id", c["name"]): c for c in config["contracts"]}


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _pending(module: str) -> str | None:
    return next((p for p in PENDING_RESTRUCTURE if _inside(module, p)), None)


def strongly_connected(adjacency: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module
    (iterative, so a deep graph cannot hit the recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(adjacency):
        if root in index:
            continue
        work = [(root, iter(sorted(adjacency[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(adjacency[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def shortest_cycle(adjacency: dict[str, set[str]], component: list[str]) -> list[str]:
    """One shortest cycle through the first module of ``component``, for
    the failure message (``a -> b -> a``)."""
    start, members = component[0], set(component)
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in sorted(adjacency[node] & members):
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return path[::-1] + [start]
            if child not in came_from:
                came_from[child] = node
                queue.append(child)
    return component


def _adjacency(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def test_the_cycle_finder_finds_cycles():
    """The helpers above, on a made-up graph: a 3-cycle, a 2-cycle and a tail."""
    adjacency = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    assert sorted(strongly_connected(adjacency)) == [["a", "b", "c"], ["d", "e"]]
    assert shortest_cycle(adjacency, ["a", "b", "c"]) == ["a", "b", "c", "a"]
    assert shortest_cycle(adjacency, ["d", "e"]) == ["d", "e", "d"]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_anywhere(graph):
    """No module of ``affray`` reaches itself through imports (at any
    depth, function-local imports included). A cycle wholly inside one
    package of :data:`PENDING_RESTRUCTURE` is left to its own branch."""
    adjacency = _adjacency(graph)
    cycles = []
    for component in strongly_connected(adjacency):
        owners = {_pending(m) for m in component}
        if len(owners) == 1 and None not in owners:
            continue  # wholly inside one package still being restructured
        cycles.append(" -> ".join(shortest_cycle(adjacency, component)) + f" ({len(component)} modules in the cycle)")
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def _comment_lines(source: str) -> set[int]:
    return {
        tok.start[0]
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT
    }


def _nested_imports(tree: ast.Module) -> dict[int, ast.stmt]:
    """Import statements that do not run at module level: inside a
    function or a class, by first line."""
    found: dict[int, ast.stmt] = {}

    def walk(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)) and nested:
                found[child.lineno] = child
            inner = nested or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
            walk(child, inner)

    walk(tree, False)
    return found


def unexplained_local_imports(path: Path, source: str | None = None) -> list[str]:
    """``path:line: text`` for each import in ``path`` that the rule forbids
    and no comment explains: every function- or class-local import, and
    every indented ``from affray``/``import affray`` statement (the issue's
    grep; a line in a docstring is not a statement). A reason is a comment
    on the import's line or on the line above it."""
    text = path.read_text(encoding="utf-8") if source is None else source
    tree = ast.parse(text)
    comments = _comment_lines(text)
    statements = {n.lineno: n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))}
    suspects = dict(_nested_imports(tree))
    for number, line in enumerate(text.splitlines(), start=1):
        if INDENTED_AFFRAY_IMPORT.match(line) and number in statements:
            suspects[number] = statements[number]
    lines = text.splitlines()
    return [
        f"{path}:{number}: {lines[number - 1].strip()}"
        for number in sorted(suspects)
        if not comments & {number, number - 1, getattr(suspects[number], "end_lineno", number)}
    ]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def test_the_local_import_check_reads_statements_not_text(tmp_path):
    """The checker on a made-up module: a docstring line is no import, a
    commented deferral passes, an unexplained one in a function or class
    does not, and a module-level import is always fine."""
    source = '''"""Docs that show code:

    from affray import dice
"""
import json
from affray import text


def heavy():
    # deferred: a heavy optional library, imported only when used
    import numpy
    import csv
    from affray.dice import parse  # noqa: this one is explained


class Late:
    from affray import errors
'''
    found = unexplained_local_imports(tmp_path / "m.py", source)
    assert [line.split(": ", 1)[1] for line in found] == ["import csv", "from affray import errors"]


def test_no_unexplained_function_local_imports():
    """``rules/``, ``commands/`` and ``dice/`` import at module level
    (brief, "How we build"): a local import needs a reason comment, and
    the only reason allowed is deferring a heavy optional library. The
    packages of :data:`PENDING_RESTRUCTURE` are left to their branches."""
    problems = []
    for path in sorted(SRC.joinpath("affray").rglob("*.py")):
        module = _module_name(path)
        if not any(_inside(module, p) for p in NO_LOCAL_IMPORTS) or _pending(module):
            continue
        problems += unexplained_local_imports(path)
    assert not problems, "function-local imports without a reason comment:\n" + "\n".join(problems)


def _layer_members(layers: list[str]) -> set[str]:
    return {name.strip() for layer in layers for name in re.split(r"[|:]", layer)}


def test_every_top_level_module_is_in_the_package_layers(graph):
    """A new module or package directly under ``affray`` has to be placed
    in the whole-package layers contract, or nothing would check it."""
    placed = _layer_members(_contracts()["package-layers"]["layers"])
    top = {m for m in graph.find_children("affray")} - {"affray.examples"}  # sample sheets, no code
    assert top - placed == set(), f"add to [tool.importlinter] package-layers: {sorted(top - placed)}"
    assert placed - top == set(), f"package-layers names modules that do not exist: {sorted(placed - top)}"


def test_every_rule_system_is_in_the_independence_contract(graph):
    """Each system package under ``affray.rules`` (every one with a
    ``system.py``) is in the independence contract: no system imports
    another."""
    systems = {
        m for m in graph.find_children("affray.rules") if f"{m}.system" in graph.modules
    }
    assert {"affray.rules.mrq1", "affray.rules.mythras"} <= systems
    listed = set(_contracts()["systems-independent"]["modules"])
    assert systems == listed, f"systems-independent lists {sorted(listed)}, the systems are {sorted(systems)}"


def test_the_import_contracts_hold(capsys):
    """``lint-imports`` (CI's step) passes: the layers, forbidden and
    independence contracts of ``pyproject.toml``."""
    code = lint_imports(config_filename=str(PYPROJECT), no_cache=True)
    assert code == 0, capsys.readouterr().out


def _all_modules() -> set[str]:
    return {_module_name(p) for p in SRC.joinpath("affray").rglob("*.py")}


def private_names_crossing(path: Path, source: str | None = None, known: set[str] | None = None) -> list[str]:
    """``path:line: name`` for each private name (``_x``, not ``__x__``)
    this module takes from another affray module: ``from affray.m import
    _x``, or ``m._x`` where ``m`` is an affray module it imported
    (``known``: the module names; default, every module of the package)."""
    known = _all_modules() if known is None else known
    text = path.read_text(encoding="utf-8") if source is None else source
    tree = ast.parse(text)
    private = re.compile(r"^_(?!_)")
    modules: set[str] = set()  # local names bound to affray modules
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("affray"):
            for alias in node.names:
                if private.match(alias.name):
                    found.append(f"{path}:{node.lineno}: {alias.name}")
                if f"{node.module}.{alias.name}" in known:  # a module (from affray import dice)
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("affray"):
                    modules.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and private.match(node.attr)
        ):
            found.append(f"{path}:{node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_the_private_name_check(tmp_path):
    """The checker on a made-up module."""
    source = '''from affray.dice.table import _check, face
from affray import dice as dicelib
from affray.commands import handler
import affray.rules.base
x = dicelib._hidden(1) + handler.__name__ + face._self_is_not_a_module
'''
    known = {"affray.dice", "affray.dice.table", "affray.commands.handler", "affray.rules.base"}
    found = private_names_crossing(tmp_path / "m.py", source, known)
    assert [line.split(": ", 1)[1] for line in found] == ["_check", "dicelib._hidden"]


def test_no_private_name_crosses_a_module():
    """A name another module uses is public and has a docstring (issue
    10). The packages of :data:`PENDING_RESTRUCTURE` are left to their
    branches."""
    problems, known = [], _all_modules()
    for path in sorted(SRC.joinpath("affray").rglob("*.py")):
        if not _pending(_module_name(path)):
            problems += private_names_crossing(path, known=known)
    assert not problems, "private names imported across modules:\n" + "\n".join(problems)
