"""Human views for the terminal (rich tables)."""

from __future__ import annotations


def render_state(state) -> None:
    """Print the state: the round, the order of action and each combatant."""
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    head = f"[b]{state.name}[/b] ({state.system}) — version {state.version}, "
    if state.phase == "setup":
        head += "not started"
    else:
        head += f"round {state.round}, step {state.step}, {state.phase}"
    console.print(head)
    if state.turn:
        console.print("Acting now: " + ", ".join(state.combatants[h].name for h in state.turn))
    if state.winner:
        console.print(f"Winner: [b]{state.winner}[/b]")
    if state.order:
        console.print("Order: " + ", ".join(f"{state.combatants[o.handle].name} {o.rank}" for o in state.order if o.handle in state.combatants))
    table = Table(show_lines=False)
    for col in ("Combatant", "Side", "Status", "CA", "React", "Locations (HP/max, AP)", "Conditions"):
        table.add_column(col)
    for c in state.combatants.values():
        locs = "\n".join(
            f"{l.name} {l.hp}/{l.max_hp}" + (f" AP{l.ap}" if l.ap else "") + (f" [red]{l.wound}[/red]" if l.wound else "")
            for l in c.locations
        )
        conds = "\n".join(
            f"{x.name}{' (' + x.location + ')' if x.location else ''} since {x.since_round}.{x.since_step} ← v{x.cause}"
            for x in c.conditions
        ) or "-"
        status = c.status + ("" if c.stance == "standing" else f", {c.stance}")
        table.add_row(
            f"{c.name}\n[dim]{c.handle}[/dim]",
            c.side,
            status,
            f"{c.combat_actions}/{c.max_combat_actions}",
            f"{c.reactions}/{c.max_reactions}",
            locs,
            conds,
        )
    console.print(table)


def render_log(items) -> None:
    """Print log entries; retracted and void ones struck through."""
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False)
    current = None
    for e in items:
        if e.round != current:
            current = e.round
            console.print(f"[b]{'Round ' + str(current) if current else 'Setup'}[/b]")
        text = escape(e.text)
        if e.status in ("retracted", "void"):
            text = f"[strike]{text}[/strike] [dim]({e.status})[/dim]"
        console.print(f"  [dim]v{e.version:<4} {e.actor:<8}[/dim] {text}")
