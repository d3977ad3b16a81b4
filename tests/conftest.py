"""Fixtures shared by the whole suite: databases (SQLite and PostgreSQL) and small input files.

PostgreSQL tests use ``RATINGS_TEST_POSTGRES_URL`` (default: the local server at 127.0.0.1:5432,
user postgres, database test). They skip only when no server answers, and never when
``RATINGS_REQUIRE_POSTGRES=1`` is set, as CI sets it: there an unreachable server is a failure.
Each test session (each pytest-xdist worker) works in a scratch database of its own, dropped at the end.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from alembic import command
from hypothesis import settings
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine, make_url

import jobs.accounts
from ratings.storage.database import open_engine
from tests.support.data import GOLDEN
from tests.support.prepared import PreparedDatabases
from tests.support.schema_template import SchemaTemplates

# A property test runs its examples without a deadline: on a shared machine one example may wait
# for a core longer than any deadline, which says nothing about the code. (A test that sets its
# own deadline keeps it.)
settings.register_profile("shared-machine", deadline=None)
settings.load_profile("shared-machine")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` starts two workers per processor: a good part of the suite waits (on a
    database, a child process, a browser), and with one worker per processor the processors
    stood idle a quarter of the time. ``RATINGS_TEST_WORKERS`` sets the number."""
    named = os.environ.get("RATINGS_TEST_WORKERS")
    if named:
        return int(named)
    return (
        2 * len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else 2 * (os.cpu_count() or 1)
    )


POSTGRES_URL = os.environ.get(
    "RATINGS_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def _postgres_admin() -> Engine | None:
    engine = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception as error:
        engine.dispose()
        if os.environ.get("RATINGS_REQUIRE_POSTGRES") == "1":
            raise RuntimeError(f"PostgreSQL is required but not reachable: {error}") from error
        return None
    return engine


@pytest.fixture(scope="session", autouse=True)
def schema_templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SchemaTemplates]:
    """An empty database migrated to the newest revision gets the schema of a template made once
    per session by Alembic (see :mod:`tests.support.schema_template`), in this process."""
    templates = SchemaTemplates(tmp_path_factory.mktemp("schema-template"), _postgres_admin)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(command, "upgrade", templates.upgrade)
        try:
            yield templates
        finally:
            templates.close()


@pytest.fixture(scope="session")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PreparedDatabases]:
    """Filled databases built once per session and copied into each test that asks for one
    (:mod:`tests.support.prepared`)."""
    databases = PreparedDatabases(tmp_path_factory.mktemp("prepared"), _postgres_admin)
    try:
        yield databases
    finally:
        databases.close()


@pytest.fixture(autouse=True)
def real_migrations(
    request: pytest.FixtureRequest, schema_templates: SchemaTemplates
) -> Iterator[None]:
    """A test marked ``real_migrations`` has every migration run by Alembic, none copied."""
    if request.node.get_closest_marker("real_migrations") is None:
        yield
        return
    schema_templates.enabled = False
    try:
        yield
    finally:
        schema_templates.enabled = True


CHEAP_HASHER = PasswordHash((Argon2Hasher(time_cost=1, memory_cost=1024, parallelism=1),))
"""argon2 still, at the least work it allows: the product's parameters cost 0.15 s a hash, and
the suite logs in and creates accounts thousands of times."""


@pytest.fixture(autouse=True)
def cheap_password_hashing(request: pytest.FixtureRequest) -> Iterator[None]:
    """Passwords are hashed with :data:`CHEAP_HASHER`, except in a test marked
    ``real_password_hashing`` (the parameters themselves, and a hash made again at login)."""
    if request.node.get_closest_marker("real_password_hashing") is not None:
        yield
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jobs.accounts, "HASHER", CHEAP_HASHER)
        yield


@contextmanager
def scratch_postgres(prefix: str) -> Iterator[str]:
    """URL of a new PostgreSQL database named ``prefix`` and a random tail, dropped on exit
    (its connections ended); the test skips when no server answers."""
    admin = _postgres_admin()
    if admin is None:
        pytest.skip(f"no PostgreSQL server at {make_url(POSTGRES_URL).render_as_string()}")
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[str]:
    """URL of a scratch PostgreSQL database for this test session."""
    with scratch_postgres("ratings_test") as url:
        yield url


def _empty_postgres(url: str) -> None:
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(text("DROP SCHEMA public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))
    engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database on each backend (the test runs once per backend)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ratings.sqlite'}"
    url: str = request.getfixturevalue("postgres_database")
    _empty_postgres(url)
    return url


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def module_database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """An empty database of its own on each backend that a module's tests share: for tests that
    read, or that are refused and change nothing, which need no database each (a PostgreSQL
    schema made again costs a test a third of a second on a busy machine). Its own database,
    not the session's scratch one, which the module's other tests empty."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('module') / 'ratings.sqlite'}"
        return
    with scratch_postgres("ratings_module") as url:
        yield url


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = open_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def sqlite_engine(tmp_path: Path) -> Iterator[Engine]:
    engine = open_engine(f"sqlite:///{tmp_path / 'ratings.sqlite'}")
    yield engine
    engine.dispose()


@pytest.fixture
def postgres_url(postgres_database: str) -> str:
    """An empty PostgreSQL database (for tests that compare backends side by side)."""
    _empty_postgres(postgres_database)
    return postgres_database


@pytest.fixture(autouse=True)
def no_user_settings(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The settings file in the user's config folder of whoever runs the suite never counts, and
    a scheduled backup a test sets off goes to a folder of its own, not to ``backups/`` of the
    folder the suite runs in (a test that looks at the archives names its folder itself)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("user-config")))
    monkeypatch.setenv("RATINGS_BACKUP_DIR", str(tmp_path_factory.mktemp("backups")))


@pytest.fixture(scope="session")
def golden() -> Path:
    """The folder of real tournament files the golden tests compare with (``tests/data/golden``)."""
    return GOLDEN
