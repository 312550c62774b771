"""The event-store backends the conformance suite runs on, and how to reach them.

SQLite always runs. PostgreSQL runs when ``AFFRAY_TEST_POSTGRES`` holds a
libpq URL of a server the tests may create schemas in (README, "PostgreSQL":
two commands start a throwaway one); otherwise its tests are skipped with
that reason. When the variable is set but the server cannot be reached, the
tests fail: CI must not pass by skipping.

Each PostgreSQL test gets a schema of its own (``search_path`` in the URL),
dropped afterwards, so tests never see each other's logs.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from pathlib import Path

import pytest

ENV = "AFFRAY_TEST_POSTGRES"
SKIP_REASON = (
    f"no PostgreSQL server: set {ENV}=postgresql://... to run the PostgreSQL backend "
    "(README, 'PostgreSQL', starts a throwaway one with two commands)"
)


def postgres_dsn() -> str | None:
    """The test server's URL, or ``None`` (the PostgreSQL tests skip)."""
    return os.environ.get(ENV, "").strip() or None


def with_schema(dsn: str, schema: str) -> str:
    """``dsn`` with ``search_path`` set to ``schema``."""
    return f"{dsn}{'&' if '?' in dsn else '?'}options=-csearch_path%3D{schema}"


class Backend:
    """One store backend under test: ``target`` (a file path or a URL) and
    what a test needs besides the store: ``open(**kw)`` another connection,
    ``tamper(*sql)`` edit behind affray's back (triggers off), ``query(sql)``
    rows from a plain connection, ``module`` the store's module (to patch)."""

    name: str
    target: str

    def open(self, **kw):
        from affray.store import open_store

        return open_store(self.target, **kw)

    def close(self) -> None:  # pragma: no cover - overridden
        pass


class SqliteBackend(Backend):
    name = "sqlite"

    def __init__(self, folder: Path) -> None:
        self.target = str(folder / "affray.db")

    @property
    def module(self):
        import affray.store.sqlite as mod

        return mod

    def tamper(self, *statements: str) -> None:
        conn = sqlite3.connect(self.target, isolation_level=None)
        conn.execute("DROP TRIGGER IF EXISTS events_no_update")
        conn.execute("DROP TRIGGER IF EXISTS events_no_delete")
        for sql in statements:
            conn.execute(sql)
        conn.close()

    def query(self, sql: str, *, tamper: bool = False) -> list[tuple]:
        conn = sqlite3.connect(self.target, isolation_level=None)
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()

    def connect(self):
        return sqlite3.connect(self.target, isolation_level=None)


class PostgresBackend(Backend):
    name = "postgresql"

    def __init__(self, dsn: str) -> None:
        import psycopg

        self.dsn = dsn
        self.schema = "t_" + uuid.uuid4().hex[:12]
        try:
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(f"CREATE SCHEMA {self.schema}")
        except psycopg.OperationalError as exc:
            pytest.fail(f"{ENV} is set but the server cannot be reached: {exc}")
        self.target = with_schema(dsn, self.schema)

    @property
    def module(self):
        import affray.store.postgres as mod

        return mod

    def connect(self):
        import psycopg

        return psycopg.connect(self.target, autocommit=True)

    def tamper(self, *statements: str) -> None:
        with self.connect() as conn:
            conn.execute("SET session_replication_role = replica")  # ordinary triggers off (superuser)
            for sql in statements:
                conn.execute(sql)

    def query(self, sql: str) -> list[tuple]:
        with self.connect() as conn:
            return conn.execute(sql).fetchall()

    def close(self) -> None:
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {self.schema} CASCADE")


BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param(
        "postgresql", id="postgresql",
        marks=pytest.mark.skipif(postgres_dsn() is None, reason=SKIP_REASON),
    ),
]


def make_backend(name: str, tmp_path: Path) -> Backend:
    if name == "sqlite":
        return SqliteBackend(tmp_path)
    return PostgresBackend(postgres_dsn())


@pytest.fixture(params=BACKENDS)
def backend(request, tmp_path):
    """A fresh, empty log on each backend (see :class:`Backend`)."""
    b = make_backend(request.param, tmp_path)
    yield b
    b.close()


@pytest.fixture
def pg_backend(tmp_path):
    """A fresh PostgreSQL log (skipped without a server)."""
    if postgres_dsn() is None:
        pytest.skip(SKIP_REASON)
    b = PostgresBackend(postgres_dsn())
    yield b
    b.close()
