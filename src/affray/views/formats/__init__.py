"""The play-by-post formats, one module each (markdown, bbcode, discord,
html, jsonl), on one shared layer (:mod:`affray.views.formats.common`):
entries grouped by round and exchange, status, secret notes, round ranges.

Every renderer has the signature ``render(records, *, rounds=None,
show_secret=False) -> str``; :func:`affray.views.export.export` is the one
entry point the CLI calls.
"""
