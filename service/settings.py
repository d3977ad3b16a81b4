"""Configuration: defaults, then the user's settings file (``ratings.toml`` in the platform's
per-user config folder, e.g. ``~/.config/ratings/`` on Linux, ``%LOCALAPPDATA%\\ratings\\`` on
Windows), then ``config/ratings.toml`` in the working directory (or the file named by
``RATINGS_CONFIG``), then ``RATINGS_*`` environment variables, each overriding the one before.

This module is the only reader of :class:`Settings`. It turns them, once, into a
:class:`Configuration` of frozen values: the formula's :class:`~ratings.parameters.MeloParams`, the
jobs' option objects (``jobs.options``), and what the command line, the scheduler and the web
service need themselves.
"""

from __future__ import annotations

import difflib
import getpass
import os
import tomllib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import platformdirs
from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from jobs.options import BackupOptions, ListOptions, MatchOptions, MonthlyOptions
from ratings.errors import ConfigurationError, TimeZoneError
from ratings.parameters import RATING_SCALE, MeloParams
from ratings.rounding import Rounding

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

DEFAULT_CONFIG = Path("config/ratings.toml")
PREFIX = "RATINGS_"
"""Every environment variable of a setting starts with it, as do the project's others below."""
OTHER_VARIABLES = frozenset(
    {
        "RATINGS_CONFIG",
        # Fault injection for the crash tests of the monthly job, backups and restores.
        "RATINGS_CRASH_AT",
        # The test suite's and the benchmark's own.
        "RATINGS_TEST_POSTGRES_URL",
        "RATINGS_TEST_WORKERS",
        "RATINGS_REQUIRE_POSTGRES",
        "RATINGS_REQUIRE_BROWSER",
        "RATINGS_TEST_ARTIFACTS",
        "RATINGS_CHROMIUM",
        "RATINGS_CHROMEDRIVER",
        "RATINGS_BENCH_POSTGRES_URL",
    }
)
"""The variables starting with ``RATINGS_`` that are no setting: any other that is no setting
either is a mistake (``RATINGS_DATABSE_URL``), named as an unknown key of a file is."""


def current_user() -> str:
    """Who runs the service, as the operating system says (Windows sets no ``$USER``)."""
    try:
        return getpass.getuser() or "officer"
    except (OSError, KeyError, ImportError):
        # getpass raises when neither the environment nor the password database names anyone
        # (a container without an entry for its user id).
        return "officer"


def config_file() -> Path:
    """The TOML file settings are read from: ``RATINGS_CONFIG`` or ``config/ratings.toml``."""
    return Path(os.environ.get("RATINGS_CONFIG", str(DEFAULT_CONFIG)))


def user_config_file() -> Path:
    """The user's own settings file, whatever the working directory."""
    return Path(platformdirs.user_config_dir("ratings", appauthor=False)) / "ratings.toml"


def settings_files() -> list[Path]:
    """The settings files that exist, the one that counts most last. ``RATINGS_CONFIG`` naming
    a file that does not exist is an error: a typing mistake must not silently mean defaults."""
    named = os.environ.get("RATINGS_CONFIG")
    if named is not None and not Path(named).is_file():
        raise ConfigurationError(f"RATINGS_CONFIG names {named}, which is not a file")
    return [path for path in (user_config_file(), config_file()) if path.is_file()]


class Settings(BaseSettings):
    """Every setting of the service, with its environment variable ``RATINGS_<NAME>``."""

    model_config = SettingsConfigDict(env_prefix="RATINGS_", extra="ignore", frozen=True)

    database_url: str = "sqlite:///ratings.sqlite"
    """Any SQLAlchemy URL; the embedded default is a SQLite file in the working directory."""
    initial_rating: Decimal = Decimal(1000)
    """Rating of a new player (seed 004, section 2, point 4)."""
    k_regular: int = Field(5, ge=0)
    k_grandmaster: int = Field(10, ge=0)
    k_national: int = Field(20, ge=0)
    k_international: int = Field(30, ge=0)
    elo_scale: float = Field(400.0, gt=0)
    rounding: Rounding = Rounding.HALF_UP
    """How lists turn an exact rating into the whole number they show."""
    active_months: int = Field(24, ge=1)
    """A player is active with a game within this many months."""
    imported_by: str = Field(default_factory=current_user)
    """Recorded with every import."""
    inbox_dir: Path = Path("inbox")
    """Where tournament directors' files wait for the monthly job; ``archive/`` and
    ``rejected/`` live inside it."""
    publish_dir: Path = Path("publish")
    """Where the monthly job writes the exports of each published list."""
    schedule: str = "0 3 1 * *"
    """When ``ratings serve`` runs the monthly job: a cron expression (minute hour day month
    weekday), by default 03:00 on the 1st."""
    backup_dir: Path = Path("backups")
    """Where ``ratings db backup`` and the service's scheduled backups write their archives."""
    backup_schedule: str = "after-monthly"
    """When ``ratings serve`` backs up the database: ``after-monthly`` (after each run of the
    monthly job), a cron expression of its own, or ``off``."""
    backup_keep: int = Field(12, ge=1)
    """How many archives the scheduled backups keep in ``backup_dir``; older ones are deleted."""
    timezone: str = "UTC"
    """The federation's time zone, for the schedule and for what day it is (an IANA name such as
    ``Europe/Zurich``)."""
    review_score: float = Field(85.0, ge=0, le=100)
    """An import asks about a new name whose similarity (0-100) to a known player's is at least
    this, instead of creating the player."""
    http_host: str = "127.0.0.1"
    """Address the web service listens on (loopback by default)."""
    http_port: int = Field(8080, ge=1, le=65535)
    upload_limit_bytes: int = Field(2 * 1024 * 1024, ge=1)
    """Largest participant file the web service and ``ratings seed`` accept."""
    http_header_timeout: float = Field(10.0, gt=0)
    """Seconds a client has to send a request's head after connecting; then it is dropped."""
    http_body_timeout: float = Field(60.0, gt=0)
    """Seconds a client has to send a request's whole body (an upload); then it gets a 408."""
    http_keep_alive: int = Field(5, ge=1)
    """Seconds an idle connection is kept open after a response for the next request."""
    http_max_connections: int = Field(500, ge=1)
    """Most connections open at once; past it the oldest idle one is closed for a new one, and
    when none is idle new requests get a 503."""
    http_stop_timeout: int = Field(5, ge=1)
    """Seconds requests in progress get to finish when the service is stopped (SIGTERM)."""
    seed_concurrency: int = Field(2, ge=1)
    """Most uploads decoded and seeded at once; more get a 503 with ``Retry-After``."""
    chart_queue: int = Field(8, ge=1)
    """Most player charts drawn or waiting to be drawn at once; more get a 503."""
    input_limit_bytes: int = Field(256 * 1024 * 1024, ge=1)
    """Largest input file the command line and the monthly job read."""
    smtp_host: str = ""
    """Mail server for the officer's notices (a failed run, rejected files); empty: no mail."""
    smtp_port: int = Field(25, ge=1, le=65535)
    smtp_user: str = ""
    """User name for the mail server, when it wants one (with ``smtp_password``)."""
    smtp_password: SecretStr = SecretStr("")
    """Held as a secret: ``ratings config`` and the logs show it as ``***``."""
    smtp_starttls: bool = False
    """Switch the connection to TLS (STARTTLS) before logging in."""
    mail_from: str = "ratings@localhost"
    mail_to: str = ""
    """Who gets the notices: addresses separated by commas; empty: no mail."""
    secure_cookies: bool = False
    """The site is served over TLS (behind a proxy that speaks HTTPS): its cookies are sent
    only over HTTPS (``Secure``)."""
    signing_key: SecretStr = SecretStr("")
    """The key the site signs its CSRF cookies with; empty: one is made on first use and kept
    in the database."""
    login_failures_per_account: int = Field(5, ge=1)
    """Failed logins of one account within ``login_throttle_seconds`` before ``/login`` answers
    429 for it."""
    login_failures_per_address: int = Field(20, ge=1)
    """Failed logins from one address within ``login_throttle_seconds`` before 429."""
    login_throttle_seconds: int = Field(900, ge=1)

    @field_validator("initial_rating")
    @classmethod
    def _ten_decimals(cls, value: Decimal) -> Decimal:
        if value != round(value, 10):
            raise ValueError(f"must have at most 10 decimals, not {value}")
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        files = [user_config_file(), config_file()]
        toml = TomlConfigSettingsSource(settings_cls, toml_file=files)
        return (init_settings, env_settings, toml)


@dataclass(frozen=True, slots=True)
class WebOptions:
    """What the web service is told: where it listens, what it accepts, how lists look."""

    lists: ListOptions
    upload_limit: int
    """Largest participant file, in bytes."""
    host: str = "127.0.0.1"
    port: int = 8080
    inbox_dir: Path = Path("inbox")
    """The monthly job's inbox, whose waiting and rejected files ``/health`` counts."""
    rating: MeloParams = field(default_factory=MeloParams)
    """The parameters ratings must have been computed with to be up to date."""
    header_timeout: float = 10.0
    """Seconds to send a request's head."""
    body_timeout: float = 60.0
    """Seconds to send a request's body."""
    keep_alive: int = 5
    """Seconds an idle connection stays open after a response."""
    max_connections: int = 500
    """Most connections open at once."""
    stop_timeout: int = 5
    """Seconds requests in progress get to finish on a stop."""
    seed_concurrency: int = 2
    """Most uploads decoded and seeded at once."""
    review_score: float = 85.0
    """How close a participant's name must be to a player's for the seed tool to ask who it
    is (the import's ``review_score``)."""
    chart_queue: int = 8
    """Most charts drawn or waiting at once."""
    secure_cookies: bool = False
    """Cookies only over HTTPS."""
    signing_key: str = field(default="", repr=False)
    """The CSRF signing key; empty: the database's own. Never in a representation or a log."""
    login_failures_per_account: int = 5
    login_failures_per_address: int = 20
    login_throttle_seconds: int = 900
    publish_dir: Path = Path("publish")
    """Where a publication from the desk writes the list's files, as the monthly job does."""
    mail: MailOptions | None = None
    """Where a rejection's notice goes (the director's address), when mail is set up."""


@dataclass(frozen=True, slots=True)
class MailOptions:
    """Where the officer's notices go; ``enabled`` only with a server and a recipient."""

    host: str = ""
    port: int = 25
    user: str = ""
    password: SecretStr = field(default_factory=lambda: SecretStr(""))
    starttls: bool = False
    sender: str = "ratings@localhost"
    recipients: tuple[str, ...] = ()

    @property
    def enabled(self) -> bool:
        return bool(self.host and self.recipients)


AFTER_MONTHLY = "after-monthly"
NO_BACKUPS = "off"


@dataclass(frozen=True, slots=True)
class Configuration:
    """Every setting, read once, as the values each part of the service takes."""

    database_url: str
    imported_by: str
    """Who the command line records as the author of imports, merges and lists."""
    input_limit: int
    """Largest input file read, in bytes."""
    rating: MeloParams
    lists: ListOptions
    matching: MatchOptions
    monthly: MonthlyOptions
    web: WebOptions
    schedule: str
    """The monthly job's cron expression."""
    timezone: str
    """The federation's IANA time zone."""
    mail: MailOptions = field(default_factory=MailOptions)
    backup: BackupOptions = field(default_factory=BackupOptions)
    backup_schedule: str = AFTER_MONTHLY
    """When the service backs up: :data:`AFTER_MONTHLY`, :data:`NO_BACKUPS` or a cron
    expression."""

    def today(self, now: datetime) -> date:
        """The date in the federation's time zone at the instant ``now``. The command line and
        the scheduler both take the day from here, so a monthly run by hand just after midnight
        on the 1st picks the same period as the scheduled one, whatever the machine's zone."""
        return now.astimezone(time_zone(self.timezone)).date()


def utc_now() -> datetime:
    """The clock of the service; everything that needs the time takes a clock, so tests set it."""
    return datetime.now(UTC)


def time_zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise TimeZoneError(name) from None


def configure(settings: Settings) -> Configuration:
    """The values each part of the service takes, from ``settings``."""
    rating = MeloParams(
        k_regular=settings.k_regular,
        k_grandmaster=settings.k_grandmaster,
        k_national=settings.k_national,
        k_international=settings.k_international,
        initial_rating=int(settings.initial_rating * RATING_SCALE),
        scale=settings.elo_scale,
    )
    lists = ListOptions(
        active_months=settings.active_months,
        rounding=settings.rounding,
        initial_rating=rating.initial_rating,
    )
    matching = MatchOptions(review_score=settings.review_score)
    mail = MailOptions(
        host=settings.smtp_host,
        port=settings.smtp_port,
        user=settings.smtp_user,
        password=settings.smtp_password,
        starttls=settings.smtp_starttls,
        sender=settings.mail_from,
        recipients=tuple(a.strip() for a in settings.mail_to.split(",") if a.strip()),
    )
    return Configuration(
        database_url=settings.database_url,
        imported_by=settings.imported_by,
        input_limit=settings.input_limit_bytes,
        rating=rating,
        lists=lists,
        matching=matching,
        monthly=MonthlyOptions(
            inbox_dir=settings.inbox_dir,
            publish_dir=settings.publish_dir,
            imported_by=settings.imported_by,
            rating=rating,
            lists=lists,
            input_limit=settings.input_limit_bytes,
            matching=matching,
        ),
        web=WebOptions(
            lists=lists,
            upload_limit=settings.upload_limit_bytes,
            review_score=settings.review_score,
            host=settings.http_host,
            port=settings.http_port,
            inbox_dir=settings.inbox_dir,
            rating=rating,
            header_timeout=settings.http_header_timeout,
            body_timeout=settings.http_body_timeout,
            keep_alive=settings.http_keep_alive,
            max_connections=settings.http_max_connections,
            stop_timeout=settings.http_stop_timeout,
            seed_concurrency=settings.seed_concurrency,
            chart_queue=settings.chart_queue,
            secure_cookies=settings.secure_cookies,
            signing_key=settings.signing_key.get_secret_value(),
            login_failures_per_account=settings.login_failures_per_account,
            login_failures_per_address=settings.login_failures_per_address,
            login_throttle_seconds=settings.login_throttle_seconds,
            publish_dir=settings.publish_dir,
            mail=mail,
        ),
        schedule=settings.schedule,
        timezone=settings.timezone,
        backup=BackupOptions(folder=settings.backup_dir, keep=settings.backup_keep),
        backup_schedule=settings.backup_schedule.strip(),
        mail=mail,
    )


def load() -> Configuration:
    """The configuration of this process, from the settings files and the environment."""
    return configure(read_settings()[0])


def read_settings() -> tuple[Settings, dict[str, str]]:
    """The settings of this process, and where each came from: ``default``, a file's path, or
    ``environment RATINGS_NAME``. A file with a key that is no setting is an error naming it,
    as is a value the service cannot use (with where it came from)."""
    origins = dict.fromkeys(Settings.model_fields, "default")
    for path in settings_files():
        for key in _read_toml(path):
            if key not in Settings.model_fields:
                close = difflib.get_close_matches(key, Settings.model_fields, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise ConfigurationError(f"unknown setting {key!r} in {path}{hint}")
            origins[key] = str(path)
    _check_environment()
    for name in Settings.model_fields:
        variable = f"{PREFIX}{name.upper()}"
        if variable in os.environ:
            origins[name] = f"environment {variable}"
    try:
        settings = Settings()
    except ValidationError as error:
        raise ConfigurationError(_invalid(error, origins)) from None
    return settings, origins


def _check_environment() -> None:
    """A ``RATINGS_*`` variable that is no setting is an error naming it (all of them, each
    with the setting it may be a misspelling of): ignored, a mistyped database URL would mean
    the default database."""
    variables = {f"{PREFIX}{name.upper()}" for name in Settings.model_fields}
    unknown = sorted(
        name
        for name in os.environ
        # Settings are read whatever the case of a variable's name, so it is checked the same.
        if name.upper().startswith(PREFIX)
        and name.upper() not in variables
        and name.upper() not in OTHER_VARIABLES
    )
    if not unknown:
        return
    named = []
    for name in unknown:
        # Compared without the prefix every name shares, which would make any two look alike.
        close = difflib.get_close_matches(name[len(PREFIX) :].lower(), Settings.model_fields, n=1)
        hint = f" (did you mean {PREFIX + close[0].upper()!r}?)" if close else ""
        named.append((name, hint))
    if len(named) == 1:
        name, hint = named[0]
        raise ConfigurationError(f"unknown setting {name!r} in the environment{hint}")
    listed = ", ".join(f"{name!r}{hint}" for name, hint in named)
    raise ConfigurationError(f"unknown settings in the environment: {listed}")


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as stream:
            return tomllib.load(stream)
    except tomllib.TOMLDecodeError as error:
        raise ConfigurationError(f"cannot read the settings file {path}: {error}") from None
    except OSError as error:
        raise ConfigurationError(
            f"cannot read the settings file {path}: {error.strerror}"
        ) from None


def _invalid(error: ValidationError, origins: dict[str, str]) -> str:
    """Every setting that has a value the service cannot use, with the value, the reason and
    where the value came from."""
    found = []
    for item in error.errors():
        name = ".".join(str(part) for part in item["loc"])
        origin = origins.get(str(item["loc"][0]), "default") if item["loc"] else "default"
        found.append(f"{name} = {item['input']!r} (from {origin}): {item['msg']}")
    return "bad settings: " + "; ".join(found)


MIGRATION_WAIT_SECONDS = 600.0
"""How long opening a database waits for another process's job before migrating it."""


def open_database(
    url: str,
    *,
    upgrade_schema: bool = True,
    create: bool = False,
    waiting: Callable[[], None] | None = None,
    command: bool = False,
) -> Engine:
    """The database at ``url``, its schema migrated to the newest version unless told not to:
    the one place where the command line and the service open it. The migration holds the job
    lock, so two processes starting on a new database never migrate it at once: the second waits
    (``waiting`` is called when it starts to), then finds the schema current.

    A SQLite file that does not exist is an error unless ``create`` is given, which only
    ``ratings db upgrade`` does: a command or a scheduled job run in the wrong folder must not
    make an empty database there and report success on it.

    ``command`` says that the process ends once its command is done (the command line's): on
    SQLite the copy of a large transaction into the database file may then go on after it
    (:func:`ratings.storage.write_ahead.copy_log`)."""
    from jobs.schema import migrate_if_needed
    from ratings.storage.database import open_engine
    from ratings.storage.write_ahead import ends_with_process

    engine = open_engine(url, upgrade_schema=False, create=create)
    if command:
        ends_with_process(engine)

    def lock() -> AbstractContextManager[None]:
        # Taken only when the schema is behind: a schema already current needs no lock.
        from jobs.locking import job_lock

        return job_lock(engine, wait=MIGRATION_WAIT_SECONDS, waiting=waiting)

    if upgrade_schema:
        migrate_if_needed(engine, lock)
    return engine
