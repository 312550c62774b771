"""JSON Lines: one event per line with its whole envelope (lossless).

Each line is one JSON object with the keys ``seq``, ``encounter_id``,
``version``, ``command_id``, ``type``, ``schema``, ``recorded_at``,
``actor``, ``hash`` and ``data`` (the event, exactly the JSON stored in the
``data`` column). A whole export (``--secret``, no ``--round``) keeps every
hash, so :func:`parse` and ``affray import`` can rebuild the log and
``affray verify`` checks it. ``seq`` is the row's place in the file it came
from and is not kept by an import.

Views: the record view (the default, and what ``affray export --format
jsonl`` writes unless told ``--view table``) is every event: the lossless log
that ``affray import`` reads back. The table view is the live timeline's
events alone: no undo, redo or rewind event, nothing undone or rewound
away; each line keeps its whole envelope (so each still shows the hash it
has in the log), but the versions have gaps, so it is data for a reader,
not an import (``affray import`` refuses it, naming the gap).

Terminal safety: JSON escapes the C0 controls (ESC included) and line
breaks inside strings, so every event is one line. The envelope's strings
(the actor, the ids) also have their C1, bidi and line-separator characters
written as ``\\uXXXX`` escapes (:func:`affray.text.escape_json`: the same
values once decoded). ``data`` is the exact JSON text the store holds, which
the hash chain covers, so it is written unchanged: C1 or bidi characters a
sheet put in a name stay raw there. Read a jsonl export with a JSON tool,
not with ``cat`` on a terminal.

The dice seed of an open encounter is not in the log (only its SHA-256 is):
it is revealed in the ``encounter-closed`` event. ``verify --dice`` on an
imported encounter that was still open reports the seed missing.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator

import msgspec

from affray.errors import AffrayError
from affray.events import codec
from affray.events.envelope import Recorded
from affray.events import core as ev
from affray.projections.timeline import Liveness
from affray.text import escape_json
from affray.views.formats.common import Source, check_view, source_of
from affray.views.narrate import command_batches, in_rounds, is_secret


def render(
    records: list[Recorded] | Source,
    *,
    rounds: tuple[int, int] | None = None,
    show_secret: bool = False,
    view: str = "record",
) -> str:
    """One JSON object per event: the envelope with the event as ``data``.

    Lossless when neither ``rounds`` nor hidden secret notes leave events
    out: the envelope keeps every hash, so the log can be rebuilt and
    verified. ``data`` is the event encoded by the one codec, byte for byte
    what the store wrote for an event at its current schema. ``view``
    ``table`` keeps the live timeline's events alone (see the module
    docstring).
    """
    buf = io.StringIO()
    write(source_of(records), buf, rounds=rounds, show_secret=show_secret, view=view)
    return buf.getvalue()


def write(
    src: Source,
    out,
    *,
    rounds: tuple[int, int] | None = None,
    show_secret: bool = False,
    view: str = "record",
) -> None:
    """:func:`render` streamed to ``out`` (anything with ``write(str)``),
    line by line. From a store (``Source.from_store``) the rows are not
    decoded at all, but for the round-started events that set the round
    (with ``rounds``) and the notes (whose secrecy is in their data): each
    line's ``data`` is the stored JSON text itself, so an event stored at an
    older schema keeps the bytes its hash covers."""
    live_only = check_view(view) == "table"
    rows = src.raw_rows()
    if rows is None:
        _write_records(src.records(), src.liveness, out, rounds, show_secret, live_only)
    else:
        _write_rows(rows, src.liveness, out, rounds, show_secret, live_only)


_ENCODER = msgspec.json.Encoder()
_META_TAGS = frozenset(cls.__struct_config__.tag for cls in ev.META_EVENTS)


def _line(seq, eid, version, command_id, type_, schema, recorded_at, actor, hash_, data) -> str:
    envelope = _ENCODER.encode(
        {
            "seq": seq,
            "encounter_id": eid,
            "version": version,
            "command_id": command_id,
            "type": type_,
            "schema": schema,
            "recorded_at": recorded_at,
            "actor": actor,
            "hash": hash_,
        }
    ).decode()
    return escape_json(envelope[:-1]) + ',"data":' + _ENCODER.encode(data).decode() + "}"


def _write_records(records, liveness: Liveness, out, rounds, show_secret, live_only: bool = False) -> None:
    current = 0
    for status, batch in command_batches(records, liveness):
        if live_only and status != "live":
            continue
        for r in batch:
            if isinstance(r.event, ev.RoundStarted) and status == "live":
                current = r.event.round
            if not show_secret and is_secret(r.event):
                continue
            if rounds and not in_rounds(current, rounds):
                continue
            out.write(
                _line(r.seq, r.encounter_id, r.version, r.command_id, r.type, r.schema, r.recorded_at, r.actor, r.hash, r.event)
                + "\n"
            )


#: Event types that can be secret (:func:`affray.views.narrate.is_secret`);
#: only rows naming ``secret`` are decoded to check.
_MAYBE_SECRET = frozenset({"note-added", "condition-applied", "command-issued"})


def _names_secret(data) -> bool:
    if isinstance(data, str):
        return '"secret"' in data
    return b'"secret"' in bytes(data)


def _write_rows(rows, liveness: Liveness, out, rounds, show_secret, live_only: bool = False) -> None:
    current = 0
    batch: list[tuple] = []

    def flush() -> None:
        nonlocal current
        status = liveness.status(batch[0][3], (row[2] for row in batch if row[4] not in _META_TAGS))
        if live_only and status != "live":
            batch.clear()
            return
        for seq, eid, version, command_id, type_, schema, data, recorded_at, actor, hash_ in batch:
            if type_ == "round-started" and status == "live" and rounds:
                current = codec.decode(type_, schema, data).round
            if (not show_secret and type_ in _MAYBE_SECRET and _names_secret(data)
                    and is_secret(codec.decode(type_, schema, data))):
                continue
            if rounds and not in_rounds(current, rounds):
                continue
            out.write(
                _line(seq, eid, version, command_id, type_, schema, recorded_at, actor, hash_, msgspec.Raw(data))
                + "\n"
            )
        batch.clear()

    for row in rows:
        if batch and row[3] != batch[0][3]:
            flush()
        batch.append(row)
    if batch:
        flush()


# --------------------------------------------------------------------------- #
# reading it back
# --------------------------------------------------------------------------- #


class NotAffrayJsonl(AffrayError):
    """The file is not an affray jsonl export (or not a whole one)."""


class Line(msgspec.Struct, forbid_unknown_fields=True):
    """One line of the export; ``data`` kept as the exact JSON text."""

    seq: int
    encounter_id: str
    version: int
    command_id: str
    type: str
    schema: int
    recorded_at: str
    actor: str
    hash: str
    data: msgspec.Raw


#: ``(version, command_id, type, schema, data, recorded_at, actor, hash)``:
#: a stored row without its ``seq`` and ``encounter_id``, as
#: :meth:`affray.store.EventStore.import_records` takes it.
Row = tuple[int, str, str, int, str, str, str, str]


def parse(text: str | bytes, *, name: str = "the file") -> tuple[str, list[Row]]:
    """``(encounter_id, rows)`` from an export made by :func:`render`.

    Checks that every line is an envelope of the same encounter, that the
    versions run 1, 2, 3 ... without a gap, that every ``data`` decodes as
    the event its ``type`` names (at its ``schema``, through the upcasters),
    and that the hash chain holds. Raises :class:`NotAffrayJsonl` with one
    line naming ``name``, the line number and what to do. The whole list is
    built; :func:`stream` is the same check one line at a time.
    """
    raw = text.encode() if isinstance(text, str) else text
    eid, rows = stream(raw.splitlines(), name=name)
    return eid, list(rows)


def stream(lines: Iterable[bytes], *, name: str = "the file") -> tuple[str, Iterator[Row]]:
    """``(encounter_id, rows)`` read lazily from the lines of an export.

    The first event is read and checked at once (so the encounter id is
    known, and an empty file or one not starting with the opening is refused
    before anything is written); every later row is checked as it is taken
    from the iterator, and a bad one raises :class:`NotAffrayJsonl` there,
    so a caller that stores rows inside one transaction rolls it back. Memory
    stays flat however long the log (``affray import`` of 1,000,000 events).
    """
    rows = _rows(iter(lines), name)
    first = next(rows, None)
    if first is None:
        raise NotAffrayJsonl(f"{name} holds no events; make one with 'affray export --format jsonl --secret'")
    head, eid = first
    if head[2] != "encounter-opened":
        raise NotAffrayJsonl(f"{name} line 1 is a {head[2]!r} event, not the encounter's opening; {_WHOLE}")

    def all_rows() -> Iterator[Row]:
        yield head
        for row, _ in rows:
            yield row

    return eid, all_rows()


_WHOLE = "export the whole log with 'affray export --format jsonl --secret' (no --round)"


def _rows(lines: Iterator[bytes], name: str) -> Iterator[tuple[Row, str]]:
    from affray.store.chain import canonical, chain_hash

    decoder = msgspec.json.Decoder(Line)
    eid = ""
    prev = ""
    expected = 0
    for n, chunk in enumerate(lines, 1):
        if not chunk.strip():
            continue
        try:
            ln = decoder.decode(chunk)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise NotAffrayJsonl(
                f"{name} is not an affray jsonl export (line {n}: {_first_line(exc)}); "
                "make one with 'affray export --format jsonl --secret'"
            ) from None
        where = f"{name} line {n}"
        if not eid:
            eid = ln.encounter_id
            if not eid:
                raise NotAffrayJsonl(f"{where}: the encounter id is empty; {_WHOLE}")
        elif ln.encounter_id != eid:
            raise NotAffrayJsonl(
                f"{where} is from encounter {ln.encounter_id!r}, not {eid!r}; import one encounter per file"
            )
        expected += 1
        if ln.version != expected:
            raise NotAffrayJsonl(
                f"{where}: expected version {expected}, found {ln.version} (events are missing or out of "
                f"order); an export with --round, or without --secret, leaves events out: {_WHOLE}"
            )
        data = bytes(ln.data)
        try:
            event = codec.decode(ln.type, ln.schema, data)
        except codec.UnknownEvent as exc:
            raise NotAffrayJsonl(f"{where}: {exc}; it was written by a newer affray, upgrade affray") from None
        except (msgspec.DecodeError, msgspec.ValidationError, TypeError, ValueError) as exc:
            raise NotAffrayJsonl(f"{where}: its data does not decode as {ln.type!r} ({_first_line(exc)})") from None
        if codec.tag_of(event) != ln.type:
            raise NotAffrayJsonl(f"{where}: data says type {codec.tag_of(event)!r} but the line says {ln.type!r}")
        text_data = data.decode()
        prev = chain_hash(
            prev, canonical(eid, ln.version, ln.command_id, ln.type, ln.schema, ln.recorded_at, ln.actor, text_data)
        )
        if prev != ln.hash:
            raise NotAffrayJsonl(
                f"{where}: the hash chain does not verify at version {ln.version} "
                "(the event or one before it was changed); nothing was imported"
            )
        yield (ln.version, ln.command_id, ln.type, ln.schema, text_data, ln.recorded_at, ln.actor, ln.hash), eid


def renamed(rows: Iterable[Row], old_id: str, new_id: str) -> Iterator[Row]:
    """``rows`` moved to encounter ``new_id``: the ``encounter_id`` of the
    opening event's data is changed, and since the id is part of every
    hash, the chain is computed anew (check the old chain first). Every
    other field, and every other event's data, is kept as it was. Lazy:
    rows are renamed as they are taken."""
    from affray.store.chain import canonical, chain_hash

    prev = ""
    for version, command_id, type_, schema, data, recorded_at, actor, _ in rows:
        if type_ == "encounter-opened":
            fields = msgspec.json.decode(data)
            if fields.get("encounter_id") == old_id:
                fields["encounter_id"] = new_id
                data = msgspec.json.encode(fields).decode()
        prev = chain_hash(prev, canonical(new_id, version, command_id, type_, schema, recorded_at, actor, data))
        yield (version, command_id, type_, schema, data, recorded_at, actor, prev)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
