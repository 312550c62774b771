"""The play-by-post formats, one module each (markdown, bbcode, discord,
html, jsonl), on one shared layer (:mod:`affray.views.formats.common`):
entries grouped by round and exchange, status, secret notes, round ranges.

Every renderer has the signature ``render(records, *, rounds=None,
show_secret=False, view="record", footer=False) -> str`` (bbcode and discord
also take ``limit``; jsonl has no footer) and a streaming ``write(src, out,
...)`` with the same options; :func:`affray.views.export.export_store` is
the one entry point the CLI calls.
"""

#: The views of an export (see :mod:`affray.views.export`): ``table``, the
#: fight as it stands, for players; ``record``, the full trail.
VIEWS = ("table", "record")
