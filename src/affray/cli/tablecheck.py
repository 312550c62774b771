"""``affray tables check FILE``: validate a Rolemaster-style table file
(attack, critical, fumble, moving-maneuver, static-maneuver or knockback;
TOML, YAML or CSV) in the
format of :mod:`affray.rules.rolemaster.tables`, without an encounter."""

from __future__ import annotations

import typer

from affray.cli.common import UserError, echo, handles_errors


def register(app: typer.Typer) -> None:
    """Add the ``tables`` group (``tables check``) to ``app``."""
    group = typer.Typer(name="tables", help="Check rule tables you supply (rolemaster).\n\nExample: affray tables check my-tables/broadsword.csv",
                        no_args_is_help=True)

    @group.command("check")
    @handles_errors
    def check(
        files: list[str] = typer.Argument(..., metavar="FILE...", help="Table files (.toml, .yaml, .yml, .csv)."),
        json: bool = typer.Option(False, "--json", help='Machine-readable output: [{"file", "kind", "name", "rows", "columns", "source"}].'),
    ):
        """Validate table files; one line each, exit 2 at the first bad one.

        Example: affray tables check my-tables/broadsword.csv
        """
        from affray.cli.common import echo_json
        from affray.rules.rolemaster import tables
        from affray.text import safe_line

        checked = []
        for path in files:
            try:
                t = tables.load_file(path)
            except tables.TableError as exc:
                raise UserError(f"{exc}; see the README, 'Rolemaster rules', for the format") from None
            missing = unresolved(t, path)
            if missing:
                raise UserError(f"{path}: {missing}; put it beside the file or name an existing table")
            if json:
                checked.append({
                    "file": path, "kind": type(t).__name__.replace("Table", "").lower(), "name": t.name,
                    "rows": len(t.rows), "columns": list(getattr(t, "columns", ())), "source": t.source,
                })
            else:
                echo(safe_line(f"OK: {path}: {describe(t)}"))
        if json:
            echo_json(checked)

    app.add_typer(group)


def describe(t) -> str:
    """One line on a loaded table: kind, name, size, source."""
    kind = type(t).__name__.replace("Table", "").lower()
    cols = getattr(t, "columns", ())
    if not hasattr(t, "rows"):  # a knockback table: terrain names, not rows
        return f"{kind} table {t.name}, {len(t.terrain)} terrains ({', '.join(t.terrain)}); source: {t.source}"
    shape = f"{len(t.rows)} rows" + (f" × {len(cols)} columns ({', '.join(cols)})" if cols else "")
    return f"{kind} table {t.name}, {shape}; source: {t.source}"


def unresolved(t, path: str) -> str:
    """For an attack table: the first critical or fumble table it names that
    is neither beside it nor among the shipped samples, as a phrase; else ""."""
    from pathlib import Path

    from affray.rules.rolemaster import tables

    if not isinstance(t, tables.AttackTable):
        return ""
    here = (str(Path(path).resolve().parent),)
    named = [(f"critical table {n!r} (type {k})", n) for k, n in t.criticals.items()]
    named += [(f"fumble table {t.fumble_table!r}", t.fumble_table)] if t.fumble_table else []
    for what, name in named:
        if tables.find(name, here) is None:
            return f"{what} is not found"
    return ""
