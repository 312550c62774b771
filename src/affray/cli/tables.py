"""Human views for the terminal.

``state`` is plain, aligned text: it never imports rich, whose import costs
more than the whole replay of a state (``affray state`` is meant to answer in
well under 150 ms). ``log`` uses rich (strike-through, dim) when stdout is a
terminal, and plain text with ``~~strike~~`` otherwise (pipes, files, tests).
Every text a user, a sheet or an imported log supplied passes
:func:`affray.text.safe_line` (``state`` line by line, :func:`safe_indented`).
"""

from __future__ import annotations

import sys
from typing import Iterator

from affray.cli.term import color as use_color
from affray.text import safe_line


def _columns(rows: list[tuple[str, ...]], indent: str = "", gap: str = "  ") -> list[str]:
    """``rows`` as lines with every column padded to its widest cell
    (the last column is not padded, so no line ends in spaces)."""
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(max(len(r) for r in rows))]
    out = []
    for r in rows:
        cells = [c.ljust(widths[i]) for i, c in enumerate(r[:-1])] + [r[-1]]
        out.append((indent + gap.join(cells)).rstrip())
    return out


def state_lines(state) -> list[str]:
    """The human view of ``state``, one string per line.

    A heading (name, system, version, round, step, phase), who acts now
    ("Acting now" only while the table waits for nothing but turns; "Turn
    of" while a reaction, roll or choice comes first), each step the table
    waits for and whose it is, the winner and the order of action; then one
    block per combatant: a summary row (name and handle, side, status and
    stance, combat actions and reactions left of the maximum), its hit
    locations (``chest 1/7 AP3 serious``), the weapons in hand and its
    conditions (``since ROUND.STEP ← vN``, the version of
    the event that caused it).
    """
    from affray.views.narrate import terms_for  # the system's own words for its columns

    names = {h: c.name for h, c in state.combatants.items()}
    head = f"{state.name} ({state.system}) — version {state.version}, "
    if state.phase == "setup":
        head += "not started"
    else:
        head += f"round {state.round}, step {state.step}, {state.phase}"
    lines = [head]
    acting = ", ".join(names.get(h, h) for h in state.turn)
    if state.turn and all(s.kind == "turn" for s in state.pending):
        lines.append("Acting now: " + acting)
    elif state.turn:  # a reaction, a roll or a choice comes first
        lines.append(f"Turn of: {acting}, once the table has what it waits for")
    for s in state.pending:
        lines.append(f"Waiting for {names.get(s.who, s.who)}: {s.prompt} (affray {s.verb})")
    if state.winner:
        lines.append(f"Winner: {state.winner}")
    if state.order:
        lines.append("Order: " + ", ".join(f"{names[o.handle]} {o.rank}" for o in state.order if o.handle in names))
    if not state.combatants:
        lines.append("No combatants yet: 'affray join SHEET --side SIDE' adds one.")
        return lines

    columns = terms_for(state.system).columns  # mythras: one AP column (seed 001 "Action Points")
    summary = [("Combatant", "Side", "Status") + columns]
    for c in state.combatants.values():
        status = c.status + ("" if c.stance == "standing" else f", {c.stance}")
        allowance = (f"{c.combat_actions}/{c.max_combat_actions}", f"{c.reactions}/{c.max_reactions}")
        summary.append((f"{c.name} ({c.handle})", c.side, status) + allowance[:len(columns)])
    summary_lines = _columns(summary)
    # locations aligned across every combatant, so the blocks read as one table
    loc_rows = {
        c.handle: [
            (l.name, f"{l.hp}/{l.max_hp}" if l.max_hp else "", f"AP{l.ap}" if l.ap else "", l.wound)
            for l in c.locations  # max_hp 0: a location without HP of its own (uesrpg's pool)
        ]
        for c in state.combatants.values()
    }
    every = [r for rows in loc_rows.values() for r in rows]
    widths = [max((len(r[i]) for r in every), default=0) for i in range(4)]

    lines.append("")
    lines.append(summary_lines[0])
    for c, line in zip(state.combatants.values(), summary_lines[1:]):
        lines.append(line)
        for name, hp, ap, wound in loc_rows[c.handle]:
            lines.append(
                f"    {name.ljust(widths[0])}  {hp.rjust(widths[1])}  {ap.ljust(widths[2])}  {wound}".rstrip()
            )
        lines.append("    in hand: " + (", ".join(c.ready) or "nothing"))
        if c.conditions:
            for x in c.conditions:
                where = f" ({x.location})" if x.location else ""
                lines.append(f"    condition: {x.name}{where} since {x.since_round}.{x.since_step} ← v{x.cause}")
        else:
            lines.append("    conditions: none")
    return lines


def render_state(state) -> None:
    """Print the state (see :func:`state_lines`)."""
    sys.stdout.write("\n".join(safe_indented(line) for line in state_lines(state)) + "\n")


def safe_indented(line: str) -> str:
    """``line`` through :func:`affray.text.safe_line`, its indentation
    kept (a line break inside it becomes `` / ``, not a new line)."""
    body = line.lstrip(" ")
    return line[: len(line) - len(body)] + safe_line(body)


def log_lines(items) -> list[str]:
    """Log entries as plain text: a heading per round, then ``vN actor text``;
    retracted and void entries as ``~~text~~ (retracted)``."""
    return list(iter_log_lines(items))


def iter_log_lines(items) -> Iterator[str]:
    """:func:`log_lines` as a stream: one line at a time, as the entries come."""
    current = None
    for e in items:
        if e.round != current:
            current = e.round
            yield f"Round {current}" if current else "Setup"
        text = safe_line(e.text)
        if e.status in ("retracted", "void"):
            text = f"~~{text}~~ ({e.status})"
        yield f"  v{e.version:<4} {safe_line(e.actor):<8} {text}"


def render_log(items, *, color: bool | None = None) -> None:
    """Print log entries (any iterable: they are written as they come);
    retracted and void ones struck through (with rich on a terminal,
    ``~~text~~`` otherwise; ``color`` forces either; by default
    :func:`affray.cli.core.color`: never under ``NO_COLOR``)."""
    if color is None:
        color = use_color()
    if not color:
        write = sys.stdout.write
        for line in iter_log_lines(items):
            write(line + "\n")
        return
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False)
    current = None
    for e in items:
        if e.round != current:
            current = e.round
            console.print(f"[b]{'Round ' + str(current) if current else 'Setup'}[/b]")
        text = escape(safe_line(e.text))
        if e.status in ("retracted", "void"):
            text = f"[strike]{text}[/strike] [dim]({e.status})[/dim]"
        console.print(f"  [dim]v{e.version:<4} {escape(safe_line(e.actor)):<8}[/dim] {text}")
