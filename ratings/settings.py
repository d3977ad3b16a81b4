"""Configuration: defaults, then ``config/ratings.toml`` (or the file in ``RATINGS_CONFIG``), then
``RATINGS_*`` environment variables, each overriding the one before.

Only the command line and the jobs read settings; they hand the formula a :class:`MeloParams`.
"""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from ratings.formula import RATING_SCALE, MeloParams
from ratings.rounding import Rounding

DEFAULT_CONFIG = Path("config/ratings.toml")


def config_file() -> Path:
    """The TOML file settings are read from: ``RATINGS_CONFIG`` or ``config/ratings.toml``."""
    return Path(os.environ.get("RATINGS_CONFIG", str(DEFAULT_CONFIG)))


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
    imported_by: str = Field(default_factory=lambda: os.environ.get("USER", "officer"))
    """Recorded with every import."""
    inbox_dir: Path = Path("inbox")
    """Where tournament directors' files wait for the monthly job; ``archive/`` and
    ``rejected/`` live inside it."""
    publish_dir: Path = Path("publish")
    """Where the monthly job writes the exports of each published list."""
    schedule: str = "0 3 1 * *"
    """When ``ratings serve`` runs the monthly job: a cron expression (minute hour day month
    weekday), by default 03:00 on the 1st."""
    timezone: str = "UTC"
    """The federation's time zone, for the schedule (an IANA name such as ``Europe/Zurich``)."""
    http_host: str = "127.0.0.1"
    """Address the web service listens on (loopback by default)."""
    http_port: int = Field(8080, ge=1, le=65535)
    upload_limit_bytes: int = Field(2 * 1024 * 1024, ge=1)
    """Largest participant file the web service accepts."""

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
        toml = TomlConfigSettingsSource(settings_cls, toml_file=config_file())
        return (init_settings, env_settings, toml)

    def melo_params(self) -> MeloParams:
        return MeloParams(
            k_regular=self.k_regular,
            k_grandmaster=self.k_grandmaster,
            k_national=self.k_national,
            k_international=self.k_international,
            initial_rating=int(self.initial_rating * RATING_SCALE),
            scale=self.elo_scale,
        )
