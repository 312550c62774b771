"""The shape of rules/rolemaster (DESIGN.md, "Inside a system, steps are
data and imports run one way"): system.py is the only module importing
rule modules; rule modules never import each other; core imports no rule
module; the lower modules import neither; no function-local imports; no
other system imported; nothing from commands, store, views or cli."""

from __future__ import annotations

import ast
from pathlib import Path

import affray.rules.rolemaster as pkg

ROOT = Path(pkg.__file__).parent
RULE_MODULES = {"attack", "defence", "criticals", "maneuvers", "turns", "actions", "hits", "tactical"}
LOWER = {"sheet", "tables", "rulings", "conditions"}


def imports(path: Path) -> tuple[set[str], list[int]]:
    tree = ast.parse(path.read_text())
    names, local = set(), []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if isinstance(node, ast.ImportFrom) and node.module == "affray.rules.rolemaster":
                mods = [f"affray.rules.rolemaster.{a.name}" for a in node.names]
            names.update(mods)
            if node.col_offset > 0:
                local.append(node.lineno)
    return names, local


def own(names: set[str]) -> set[str]:
    prefix = "affray.rules.rolemaster."
    return {n[len(prefix):].split(".")[0] for n in names if n.startswith(prefix)}


def test_imports_run_one_way():
    for path in ROOT.glob("*.py"):
        names, local = imports(path)
        mine = own(names)
        stem = path.stem
        assert not local, f"{path.name}: function-local imports at lines {local}"
        assert not any(n.startswith(p) for n in names for p in (
            "affray.commands", "affray.store", "affray.views", "affray.cli", "affray.rules.mrq1", "affray.rules.mythras")), path.name
        if stem in RULE_MODULES:
            assert not mine & RULE_MODULES, f"{stem} imports {mine & RULE_MODULES}"
        if stem == "core":
            assert not mine & RULE_MODULES
        if stem in LOWER:
            assert not mine & (RULE_MODULES | {"core", "system"}), f"{stem} imports {mine}"
    assert own(imports(ROOT / "system.py")[0]) >= RULE_MODULES


def test_every_ruling_is_documented_with_its_default():
    """Every named ruling is listed by 'affray rulings' with its true default."""
    from affray.rules.rolemaster.rulings import DEFAULT_RULINGS, RULINGS_DOC, Rulings

    assert list(RULINGS_DOC) == list(Rulings.__struct_fields__)
    for name, (default, text, source) in RULINGS_DOC.items():
        assert str(getattr(DEFAULT_RULINGS, name)) == default and text and source
