"""``affray replay --round N``: a round step by step, per live command its
step, actor, the command as issued, its readable lines and its rolls (the
JSON shape is in :mod:`affray.views.why`). It only reads."""

from __future__ import annotations


from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.views.log_index import LogIndex, roll_data

# --------------------------------------------------------------------------- #
# replay
# --------------------------------------------------------------------------- #


def replay(records: list[Recorded], round_no: int) -> dict:
    """Round ``round_no`` step by step (the documented JSON shape). A
    command that starts the round (its strike ranks) is its step 0, and it
    also closes the round before. Raises ``ValueError`` with one line when
    the live timeline has no such round."""
    from affray.commands.points import command_points, command_text

    ix = LogIndex(records)
    points = command_points(records, ix.timeline)
    rounds = sorted({p.start[0] for p in points} | {p.end[0] for p in points})
    chosen = [p for p in points if p.start[0] == round_no or p.end == (round_no, 0)]
    if not chosen or round_no not in rounds:
        shown = f"{rounds[0]}–{rounds[-1]}" if rounds else "none yet"
        raise ValueError(f"the live timeline has no round {round_no} (rounds: {shown}); 'affray log' shows the fight")
    steps = []
    for p in chosen:
        step = 0 if p.end == (round_no, 0) else p.start[1]
        lines = [ix.text(r) for r in p.records if not isinstance(r.event, ev.DiceRolled) and ix.text(r)]
        rolls = [roll_data(r) for r in p.records if isinstance(r.event, ev.DiceRolled) and r.event.faces]
        steps.append(
            {
                "step": step,
                "command_id": p.command_id,
                "actor": p.actor,
                "command": command_text(p.issued.command, p.issued.dice) if p.issued is not None else p.kind,
                "lines": lines,
                "rolls": rolls,
            }
        )
    return {"round": round_no, "steps": steps}


def replay_lines(data: dict) -> list[str]:
    """The human view of :func:`replay`."""
    out = [f"Round {data['round']}"]
    for s in data["steps"]:
        out.append(f"{data['round']}.{s['step']}  {s['command_id']}  {s['actor']}: {s['command']}")
        out += [f"    {line}" for line in s["lines"]]
        out += [f"    roll: {r['text']} for {r['purpose']}" for r in s["rolls"]]
    return out
