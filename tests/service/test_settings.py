"""Settings become the frozen values each part of the service takes, read once and checked."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from jobs.options import ListOptions
from ratings.errors import ConfigurationError
from ratings.formula import RATING_SCALE, MeloParams
from service.settings import (
    OTHER_VARIABLES,
    Settings,
    load,
    read_settings,
    user_config_file,
)


@pytest.fixture(autouse=True)
def no_settings_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Only the test's own settings file and environment count."""
    config = tmp_path / "ratings.toml"
    config.touch()
    monkeypatch.setenv("RATINGS_CONFIG", str(config))
    return config


def test_the_defaults_are_the_seeds() -> None:
    config = load()
    assert config.rating == MeloParams()
    assert config.lists == ListOptions()
    assert config.monthly.lists is config.lists
    assert config.web.lists is config.lists
    assert (config.schedule, config.timezone) == ("0 3 1 * *", "UTC")


def test_the_file_and_the_environment_reach_every_part(
    no_settings_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_settings_file.write_text(
        'initial_rating = "1200.5"\nk_national = 25\nrounding = "truncate"\nactive_months = 12\n'
    )
    monkeypatch.setenv("RATINGS_K_NATIONAL", "21")
    monkeypatch.setenv("RATINGS_INBOX_DIR", "/srv/inbox")
    monkeypatch.setenv("RATINGS_UPLOAD_LIMIT_BYTES", "1000")
    config = load()
    initial = 12005 * RATING_SCALE // 10
    assert (config.rating.k_national, config.rating.initial_rating) == (21, initial)
    assert config.lists == ListOptions(
        active_months=12, rounding="truncate", initial_rating=initial
    )
    assert config.monthly.inbox_dir == Path("/srv/inbox")
    assert config.monthly.rating == config.rating
    assert (config.web.upload_limit, config.web.lists) == (1000, config.lists)


def test_a_bad_setting_is_a_configuration_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATINGS_K_REGULAR", "-1")
    with pytest.raises(
        ConfigurationError,
        match=(
            r"^bad settings: k_regular = '-1' \(from environment RATINGS_K_REGULAR\): "
            r"Input should be greater than or equal to 0$"
        ),
    ):
        load()


def test_an_unreadable_settings_file_is_a_configuration_error(no_settings_file: Path) -> None:
    no_settings_file.write_text("k_regular = = 5\n")
    with pytest.raises(
        ConfigurationError, match=r"^cannot read the settings file .*ratings\.toml: "
    ):
        load()


# 00:30 on 1 November in Zurich is still 31 October in UTC.
JUST_AFTER_MIDNIGHT = datetime(2026, 10, 31, 23, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("zone", "day"),
    [
        ("Europe/Zurich", date(2026, 11, 1)),
        ("UTC", date(2026, 10, 31)),
        ("America/Lima", date(2026, 10, 31)),
    ],
)
def test_today_is_the_federations_date(
    monkeypatch: pytest.MonkeyPatch, zone: str, day: date
) -> None:
    monkeypatch.setenv("RATINGS_TIMEZONE", zone)
    assert load().today(JUST_AFTER_MIDNIGHT) == day


def test_a_bad_time_zone_is_named_when_the_date_is_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATINGS_TIMEZONE", "Mars/Olympus")
    config = load()
    with pytest.raises(
        ConfigurationError,
        match=r"^timezone must be an IANA time zone such as Europe/Zurich, not 'Mars/Olympus'$",
    ):
        config.today(JUST_AFTER_MIDNIGHT)


def test_a_misspelled_key_is_named_with_its_file(no_settings_file: Path) -> None:
    no_settings_file.write_text('databse_url = "sqlite:///x.sqlite"\n')
    with pytest.raises(
        ConfigurationError,
        match=(
            rf"^unknown setting 'databse_url' in {re.escape(str(no_settings_file))} "
            r"\(did you mean 'database_url'\?\)$"
        ),
    ):
        load()


def test_a_misspelled_environment_variable_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATINGS_DATABSE_URL", "sqlite:////srv/ratings/ratings.sqlite")
    with pytest.raises(ConfigurationError) as raised:
        load()
    assert str(raised.value) == (
        "unknown setting 'RATINGS_DATABSE_URL' in the environment"
        " (did you mean 'RATINGS_DATABASE_URL'?)"
    )
    # Every one is named, those like no setting without a guess, whatever the case.
    monkeypatch.setenv("ratings_k_regularr", "6")
    monkeypatch.setenv("RATINGS_FLAVOUR", "vanilla")
    with pytest.raises(ConfigurationError) as raised:
        load()
    assert str(raised.value) == (
        "unknown settings in the environment: 'RATINGS_DATABSE_URL' (did you mean"
        " 'RATINGS_DATABASE_URL'?), 'RATINGS_FLAVOUR', 'ratings_k_regularr' (did you mean"
        " 'RATINGS_K_REGULAR'?)"
    )


def test_the_projects_other_variables_are_no_unknown_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every ``RATINGS_*`` variable the code and the tests read is a setting or one of the
    others the settings know of; the others are accepted."""
    root = Path(__file__).resolve().parents[2]
    named = {
        match
        for folder in (
            "benchmarks",
            "exporters",
            "importers",
            "jobs",
            "ratings",
            "service",
            "tests",
        )
        for path in (root / folder).rglob("*.py")
        if path != Path(__file__).resolve()  # whose misspellings are on purpose
        for match in re.findall(r"[\"'](RATINGS_[A-Z0-9_]+)[\"']", path.read_text("utf-8"))
    }
    settings = {f"RATINGS_{name.upper()}" for name in Settings.model_fields}
    assert "RATINGS_CRASH_AT" in named
    assert named - settings <= OTHER_VARIABLES
    for name in OTHER_VARIABLES:
        monkeypatch.setenv(name, "1")
    monkeypatch.setenv("RATINGS_CONFIG", str(root / "config" / "ratings.toml"))
    load()


def test_a_wrong_type_names_the_key_the_value_and_the_file(no_settings_file: Path) -> None:
    no_settings_file.write_text('k_regular = "many"\n')
    with pytest.raises(
        ConfigurationError,
        match=(
            rf"^bad settings: k_regular = 'many' \(from {re.escape(str(no_settings_file))}\): "
            r"Input should be a valid integer, unable to parse string as an integer$"
        ),
    ):
        load()


def test_a_settings_file_named_by_ratings_config_must_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "typo.toml"
    monkeypatch.setenv("RATINGS_CONFIG", str(missing))
    with pytest.raises(
        ConfigurationError,
        match=rf"^RATINGS_CONFIG names {re.escape(str(missing))}, which is not a file$",
    ):
        load()


def test_the_users_settings_file_counts_below_the_working_directorys(
    tmp_path: Path, no_settings_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home"))
    user = user_config_file()
    assert user == tmp_path / "home" / "ratings" / "ratings.toml"
    user.parent.mkdir(parents=True)
    user.write_text('k_national = 22\nk_regular = 6\ndatabase_url = "sqlite:///u.sqlite"\n')
    no_settings_file.write_text("k_regular = 7\n")
    monkeypatch.setenv("RATINGS_DATABASE_URL", "sqlite:///e.sqlite")
    settings, origins = read_settings()
    assert (settings.k_national, settings.k_regular, settings.database_url) == (
        22, 7, "sqlite:///e.sqlite"
    )  # fmt: skip
    assert (origins["k_national"], origins["k_regular"], origins["database_url"]) == (
        str(user), str(no_settings_file), "environment RATINGS_DATABASE_URL"
    )  # fmt: skip
    assert origins["rounding"] == "default"
