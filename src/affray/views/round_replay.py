"""``affray replay --round N``: a round step by step, per live command its
step, actor, the command as issued, its readable lines and its rolls (the
JSON shape is in :mod:`affray.views.why`). It only reads: from a list of
records (:func:`replay`) or, reading only that round, from the store
(:func:`replay_store`)."""

from __future__ import annotations


from affray.events import core as ev
from affray.events.envelope import Recorded
from affray.views.log_index import LogIndex, roll_data
from affray.views.narrate import narrate

# --------------------------------------------------------------------------- #
# replay
# --------------------------------------------------------------------------- #


def replay(records: list[Recorded], round_no: int) -> dict:
    """Round ``round_no`` step by step (the documented JSON shape), from a
    whole encounter log. A command that starts the round (its strike ranks)
    is its step 0, and it also closes the round before. Raises
    ``ValueError`` with one line when the live timeline has no such round."""
    from affray.commands.points import command_points

    ix = LogIndex(records)
    points = command_points(records, ix.timeline)
    rounds = sorted({p.start[0] for p in points} | {p.end[0] for p in points})
    return _steps(points, round_no, lambda: rounds, ix.text)


def replay_store(store, encounter_id: str, round_no: int) -> dict:
    """:func:`replay` for one encounter of ``store``, reading only round
    ``round_no``: from the first event of the command that started it (its
    live ``RoundStarted``, found through the type index) to the last event
    of the command that started the next (or the head), so that memory and
    time do not grow with the fight. Same result, same errors."""
    from affray.commands.points import command_points
    from affray.views.log_view import LogReader

    reader = LogReader(store, encounter_id)
    span = reader.round_span(round_no)
    if span is None:
        return _steps([], round_no, reader.rounds, str)
    first, last = span
    lo = reader.command_start(first) if round_no else 1
    hi = reader.command_end(last + 1) if last < reader.head else last
    records = list(reader.records(lo, hi))
    names = reader.names
    points = command_points(records, reader.live(records))
    # the walk starts in round 0: only the round's own commands are looked at;
    # the round is live (its span was found), so the list of rounds (every
    # live RoundStarted decoded) is read only for the error of no steps
    return _steps(points, round_no, reader.rounds, lambda r: narrate(r.event, names, reader.system), live=True)


def _steps(points, round_no: int, rounds, text, *, live: bool = False) -> dict:
    """The steps of round ``round_no`` among ``points`` (``text`` gives a
    record's readable line). ``rounds()`` gives the live timeline's rounds,
    called only when they are needed: to check ``round_no`` is one of them
    (skipped when ``live`` says it is known to be) and for the error."""
    from affray.commands.points import command_text

    chosen = [p for p in points if p.start[0] == round_no or p.end == (round_no, 0)]
    if not chosen or not (live or round_no in rounds()):
        known = rounds()
        shown = f"{known[0]}–{known[-1]}" if known else "none yet"
        raise ValueError(f"the live timeline has no round {round_no} (rounds: {shown}); 'affray log' shows the fight")
    steps = []
    for p in chosen:
        step = 0 if p.end == (round_no, 0) else p.start[1]
        lines = [text(r) for r in p.records if not isinstance(r.event, ev.DiceRolled) and text(r)]
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
