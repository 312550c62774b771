"""SHA-256 for the commands' own few hashes, without OpenSSL's start-up cost.

``sha256`` is the constructor of CPython's built-in SHA-256 (the
``_sha256`` module up to 3.11, ``_sha2`` from 3.12), the one
:mod:`hashlib` itself falls back to: the same digests, and the same
``update``/``copy``/``digest``/``hexdigest`` methods. Importing
:mod:`hashlib` loads OpenSSL's ``libcrypto`` (``_hashlib``), and :mod:`hmac`
loads it too: about 3 ms of every fight verb (``python -X importtime``),
which hashes a handful of short texts (the hash chain of the events it
appends, the dice's HMAC, the seed's commitment). OpenSSL is faster per byte
(about twice, on 300-byte texts), which matters only to whatever hashes a
whole log (``verify``, ``branch``), and those use :mod:`hashlib`
(:func:`affray.store.chain.bulk_sha256`). Falls back to ``hashlib.sha256``
on an interpreter built without its own SHA-256.
"""

from __future__ import annotations

try:
    from _sha256 import sha256  # CPython <= 3.11
except ImportError:  # pragma: no cover - depends on the interpreter
    try:
        from _sha2 import sha256  # CPython >= 3.12
    except ImportError:
        from hashlib import sha256

__all__ = ["sha256"]
