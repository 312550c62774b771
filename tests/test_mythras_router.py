"""The mythras router's tables (affray.rules.mythras.system): every step
kind a rule queues, every pending roll or choice the table can answer and
every action ``affray act`` accepts has a handler, and no rule module
imports another (DESIGN.md, "Inside a system, steps are data and imports
run one way")."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from affray.rules.mythras import actions, system

PACKAGE = Path(system.__file__).parent
RULE_MODULES = ("actions", "attack", "damage", "defence", "effect_choice", "effects", "holds", "luck", "magic",
                "movement", "movement_modes", "ranged", "special_attacks", "terrain", "turns", "wounds")


def _calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            yield name, node


def _literal(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _kinds_in_source() -> dict[str, set[str]]:
    """Step kinds named in the mythras sources: queued (``draft.then``, a
    ``then=`` continuation) and pending (``PendingStep(verb=..., kind=...)``,
    ``sub_step(who, kind, ...)``, ``_fall_step(state, who, kind, ...)``)."""
    found: dict[str, set[str]] = {"queued": set(), "roll": set(), "choose": set()}
    for path in PACKAGE.glob("*.py"):
        for name, call in _calls(ast.parse(path.read_text())):
            keywords = {k.arg: _literal(k.value) for k in call.keywords if k.arg}
            if name == "then" and call.args and _literal(call.args[0]):
                found["queued"].add(_literal(call.args[0]))
            if keywords.get("then"):
                found["queued"].add(keywords["then"])
            if name == "PendingStep" and keywords.get("verb") in ("roll", "choose") and keywords.get("kind"):
                found[keywords["verb"]].add(keywords["kind"])
            if name == "sub_step" and len(call.args) > 1 and _literal(call.args[1]):
                found["choose"].add(_literal(call.args[1]))
            if name == "_fall_step" and len(call.args) > 2 and _literal(call.args[2]):
                found["roll"].add(_literal(call.args[2]))
    return found


def test_every_step_kind_the_rules_name_has_a_handler():
    found = _kinds_in_source()
    assert found["queued"] and found["roll"] and found["choose"]  # the scan sees the sources
    missing = sorted(k for k in found["queued"] if k not in system.STEPS)
    missing += sorted("roll:" + k for k in found["roll"] if "roll:" + k not in system.STEPS)
    missing += sorted("choose:" + k for k in found["choose"] if "choose:" + k not in system.STEPS)
    assert missing == []


def test_every_action_has_a_handler():
    assert sorted(n for n in actions.TURN + actions.FREE if "act:" + n not in system.STEPS) == []
    assert "turns:delay" in system.STEPS  # pass, delay, stand (actions.BASIC)


@pytest.mark.parametrize("kind", sorted(system.STEPS))
def test_each_step_handler_is_a_public_documented_rule(kind):
    handler = system.STEPS[kind]
    assert not handler.__name__.startswith("_")
    assert inspect.getdoc(handler)
    assert handler.__module__.startswith("affray.rules.mythras.")


def test_rule_modules_import_no_other_rule_module():
    grimp = pytest.importorskip("grimp")  # comes with import-linter
    graph = grimp.build_graph("affray")
    prefix = "affray.rules.mythras."
    offending = []
    for name in RULE_MODULES:
        for imported in graph.find_modules_directly_imported_by(prefix + name):
            if imported.startswith(prefix) and imported[len(prefix):] in RULE_MODULES:
                offending.append(f"{name} -> {imported[len(prefix):]}")
    assert offending == []
    below = [prefix + m for m in ("core", "sheet", "tables", "rulings", "conditions")]
    for low in below:
        assert not any(graph.chain_exists(importer=low, imported=prefix + r) for r in RULE_MODULES), low


def test_no_function_local_imports_of_affray():
    local = []
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("affray"):
                        local.append(f"{path.name}:{node.lineno}")
                    if isinstance(node, ast.Import) and any(a.name.startswith("affray") for a in node.names):
                        local.append(f"{path.name}:{node.lineno}")
    assert local == []
