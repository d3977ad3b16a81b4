"""The whole way in Chromium, on both databases: a director logs in and submits a results file,
the officer answers the review of its new players, accepts, runs the rating and publishes, and
the director sees "rated, in list YYYY-MM". Every page on the way is audited and photographed
at 1280 and 390 px (``tests/artifacts/desk-*``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from ratings.storage.database import open_engine
from service.web import create_app
from tests.service.web.accounts import PASSWORDS, add_accounts
from tests.service.web.support import running_server, settings
from tests.service.web.test_browser import (  # noqa: F401 (the fixture)
    at_width,
    audit,
    driver,
    follow,
    page_width,
    screenshot,
    wait_for,
)
from tests.service.web.test_submissions import CLUB_CUP
from tests.support.filled import samples_2023_rated
from tests.support.prepared import PreparedDatabases

SAMPLES = Path(__file__).parents[3] / "samples"
NOW = datetime(2026, 11, 1, tzinfo=UTC)


@pytest.fixture
def site(database_url: str, tmp_path: Path, prepared: PreparedDatabases) -> Iterator[str]:
    prepared.fill(database_url, "samples-2023-rated", samples_2023_rated)
    engine = open_engine(database_url)
    add_accounts(engine)
    with running_server(create_app(engine, settings(publish_dir=tmp_path / "publish"))) as url:
        yield url
    engine.dispose()


def look(browser: Any, name: str, backend: str) -> None:
    """At 1280 and 390 px: no serious accessibility problem, nothing scrolls sideways on a
    phone, a screenshot of each."""
    for width in (1280, 390):
        at_width(browser, width)
        browser.refresh()
        wait_for(browser, "footer")
        assert audit(browser) == [], f"{name} at {width} px"
        assert page_width(browser) <= width, f"{name} scrolls sideways at {width} px"
        screenshot(browser, f"desk-{backend}-{name}-{width}")
    at_width(browser, 1280)


def log_in(browser: Any, base: str, name: str) -> None:
    from selenium.webdriver.common.by import By

    browser.delete_all_cookies()
    browser.get(f"{base}/login")
    browser.find_element(By.ID, "name").send_keys(name)
    browser.find_element(By.ID, "password").send_keys(PASSWORDS[name])
    follow(browser, browser.find_element(By.CSS_SELECTOR, "form.account button"), "h1")


def log_out(browser: Any) -> None:
    from selenium.webdriver.common.by import By

    follow(browser, browser.find_element(By.CSS_SELECTOR, "form.logout button"), "h1")


def test_the_whole_way_from_a_directors_file_to_a_published_list(
    driver: Any,  # noqa: F811
    site: str,
    database_url: str,
    tmp_path: Path,
) -> None:
    from selenium.webdriver.common.by import By

    backend = database_url.split(":")[0].split("+")[0]
    # The director submits.
    log_in(driver, site, "dan")
    assert driver.current_url.endswith("/submit")
    look(driver, "submit", backend)
    upload = tmp_path / "club-cup.csv"
    upload.write_bytes(CLUB_CUP)
    driver.find_element(By.ID, "file").send_keys(str(upload))
    follow(driver, driver.find_element(By.CSS_SELECTOR, "form.account button"), "h1")
    assert "/submissions/" in driver.current_url
    assert driver.find_element(By.CSS_SELECTOR, ".status").text == "needs answers"
    look(driver, "submission", backend)
    log_out(driver)
    # The officer answers the review and accepts.
    log_in(driver, site, "olga")
    assert driver.current_url.endswith("/desk")
    look(driver, "queue", backend)
    follow(driver, driver.find_element(By.CSS_SELECTOR, "table.queue td.name a"), "h1")
    legends = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "fieldset.review legend")]
    # A name that is markup is shown as text (and nothing ran).
    assert any("<script>alert(1)</script>" in text for text in legends)
    look(driver, "review", backend)
    driver.find_element(By.CSS_SELECTOR, "input[name=answer_1][value=P0000238]").click()
    follow(driver, driver.find_element(By.XPATH, "//button[text()='Accept and import']"), "h1")
    assert driver.find_element(By.CSS_SELECTOR, ".status").text == "accepted"
    # The rating, in the background.
    driver.get(f"{site}/desk/rating")
    follow(
        driver,
        driver.find_element(By.XPATH, "//button[text()='Rate the pending tournaments']"),
        "h1",
    )
    deadline = time.monotonic() + 60
    while "ended: rated" not in driver.find_element(By.TAG_NAME, "main").text:
        assert time.monotonic() < deadline, "the rating did not end"
        time.sleep(0.5)
        driver.get(f"{site}/desk/rating")
    look(driver, "rating", backend)
    # Publishing after the preview.
    driver.get(f"{site}/desk/publish?period=2024-03")
    assert "2024-03 version 1" in driver.find_element(By.TAG_NAME, "main").text
    look(driver, "publish-preview", backend)
    follow(driver, driver.find_element(By.XPATH, "//button[text()='Publish 2024-03']"), "h1")
    assert "Published 2024-03 version 1" in driver.find_element(By.CSS_SELECTOR, ".notice").text
    log_out(driver)
    # The director sees what became of the file.
    log_in(driver, site, "dan")
    status = driver.find_element(By.CSS_SELECTOR, "table.submissions .status").text
    assert status == "rated, in list 2024-03"
    look(driver, "submit-rated", backend)
