"""The mrq1 router's tables against the rule modules (DESIGN.md, "Inside a
system, steps are data and imports run one way").

A step kind a handler queues with no handler in ``STEPS`` would only fail
when a fight reaches it (a ``KeyError``, a bug); these tests find it by
reading the sources. The import rules are checked on the real import graph,
as the import-linter contract in ``pyproject.toml`` does.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import pkgutil
import re
from pathlib import Path

import pytest

import affray.rules.mrq1 as mrq1
from affray.rules.mrq1.core import ACTION_WORDS
from affray.rules.mrq1.system import COMMANDS, ROUTER, STEPS

PACKAGE = Path(mrq1.__file__).parent
MODULES = sorted(m.name for m in pkgutil.iter_modules([str(PACKAGE)]))
RULE_MODULES = [
    m for m in MODULES if m not in ("system", "common", "core", "sheet", "tables", "rulings", "conditions")
]


def _queued_kinds() -> set[str]:
    """Every literal step kind a module queues: ``draft.then("kind", ...)``."""
    kinds = set()
    for name in MODULES:
        tree = ast.parse((PACKAGE / f"{name}.py").read_text())
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "then"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                kinds.add(node.args[0].value)
    return kinds


def test_every_queued_step_kind_has_a_handler():
    queued = _queued_kinds()
    assert "damage:queue" in queued and "turn:next" in queued  # the reader finds them
    assert sorted(queued - set(STEPS)) == []


def test_every_action_word_and_finisher_is_routed():
    assert [w for w in ACTION_WORDS if "act:" + w not in STEPS] == []
    finishers = {k.split(":", 1)[1] for k in STEPS if k.startswith("finish:")}
    assert finishers <= set(ACTION_WORDS)


def test_every_pending_roll_kind_has_a_handler():
    """Each PendingStep(verb="roll", kind=K) the rules await is answered by ``roll:K``."""
    kinds = set()
    for name in MODULES:
        text = (PACKAGE / f"{name}.py").read_text()
        kinds |= set(re.findall(r'verb="roll",\s*kind="([a-z-]+)"', text))
        kinds |= set(re.findall(r'await_roll\([^)]*?"roll", "([a-z-]+)"', text, flags=re.S))
    assert {"damage", "wound", "retest", "knockback", "grapple-damage"} <= kinds
    assert sorted(k for k in kinds if "roll:" + k not in STEPS) == []


def test_step_handlers_take_the_arguments_they_are_queued_with():
    """Handlers are called as ``handler(draft, **args)``: each has a draft first."""
    for kind, handler in STEPS.items():
        params = list(inspect.signature(handler).parameters)
        assert params[0] == "draft", kind


def test_the_router_is_the_one_table():
    assert ROUTER.steps is STEPS and ROUTER.commands is COMMANDS
    assert ROUTER.system == "mrq1"


def test_rule_modules_never_import_each_other_and_nothing_cycles():
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("affray")
    full = [f"affray.rules.mrq1.{m}" for m in MODULES]
    rules = {f"affray.rules.mrq1.{m}" for m in RULE_MODULES}
    for m in rules:
        assert sorted(graph.find_modules_directly_imported_by(m) & rules) == [], m
    lower = {f"affray.rules.mrq1.{m}" for m in ("core", "sheet", "tables", "rulings", "conditions")}
    for m in lower:
        assert sorted(graph.find_modules_directly_imported_by(m) & (rules | {"affray.rules.mrq1.system"})) == [], m
    cycles = [(a, b) for a, b in itertools.combinations(full, 2) if graph.chain_exists(a, b) and graph.chain_exists(b, a)]
    assert cycles == []


def test_no_function_local_imports_of_affray():
    pattern = re.compile(r"^[ \t]+(from|import) affray", re.M)
    assert [m for m in MODULES if pattern.search((PACKAGE / f"{m}.py").read_text())] == []
