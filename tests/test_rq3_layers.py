"""rq3 imports run one way (DESIGN.md, "Inside a system, steps are data and
imports run one way"; helper brief "The rules-layer shape"): ``system.py``
is the only module importing rule modules; rule modules import only
``core``, ``sheet``, ``tables``, ``rulings``, ``conditions`` and shared
helpers; ``core`` imports no rule module; nothing imports another system,
the commands layer, the store, the views or the CLI; no function-local
imports."""

from __future__ import annotations

import ast
from pathlib import Path

import affray.rules.rq3 as pkg

ROOT = Path(pkg.__file__).parent
LOWER = {"core", "sheet", "tables", "rulings", "conditions"}
RULES = {p.stem for p in ROOT.glob("*.py")} - LOWER - {"system", "__init__"}
FORBIDDEN = ("affray.commands", "affray.store", "affray.views", "affray.cli", "affray.rules.mrq1", "affray.rules.mythras")


def _imports(path: Path) -> tuple[set[str], list[int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    local: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mod = node.module if isinstance(node, ast.ImportFrom) else None
            found = [a.name for a in node.names] if mod is None else [mod] + [f"{mod}.{a.name}" for a in node.names]
            names.update(found)
            if node.col_offset > 0:
                local.append(node.lineno)
    return names, local


def _rq3_modules(names: set[str]) -> set[str]:
    return {n.split(".")[3] for n in names if n.startswith("affray.rules.rq3.") and len(n.split(".")) > 3}


def test_rule_modules_never_import_each_other():
    assert RULES >= {"turns", "intent", "movement", "attack", "defence", "damage", "wounds", "knockback"}
    for stem in RULES:
        names, _ = _imports(ROOT / f"{stem}.py")
        assert _rq3_modules(names) <= LOWER, (stem, _rq3_modules(names) - LOWER)


def test_core_and_below_import_no_rule_module():
    for stem in LOWER:
        names, _ = _imports(ROOT / f"{stem}.py")
        assert not (_rq3_modules(names) & (RULES | {"system"})), stem


def test_no_forbidden_layer_and_no_local_imports():
    for path in ROOT.glob("*.py"):
        names, local = _imports(path)
        assert not [n for n in names if n.startswith(FORBIDDEN)], path.name
        assert local == [], (path.name, local)
