"""The web service in a real browser: headless Chromium loads the list and the seed form, submits a
participant file as a person would, and reads the page that comes back.

Screenshots go to ``tests/artifacts/`` (or ``RATINGS_TEST_ARTIFACTS``), a folder git ignores. The
tests skip when Chromium or its driver is missing, except with ``RATINGS_REQUIRE_BROWSER=1`` (as CI
sets it), where that is a failure.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from jobs.importing import import_files
from jobs.rating import run_ratings
from ratings.formula import MeloParams
from ratings.storage.database import open_engine
from service.web import create_app
from tests.service.web.support import (
    GENERATED,
    HOLLERS,
    NOW,
    PERIODS,
    add_generated_list,
    go_participants_csv,
    participants_csv,
    publish,
    running_server,
    settings,
)
from tests.support.data import GOLDEN

CHROMIUM = Path(os.environ.get("RATINGS_CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("RATINGS_CHROMEDRIVER", "/usr/bin/chromedriver"))
ARTIFACTS = Path(
    os.environ.get("RATINGS_TEST_ARTIFACTS", Path(__file__).resolve().parents[1] / "artifacts")
)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
)
WAIT = 15.0
JUVISY = GOLDEN / "go_opengotha" / "juvisy2019.xml"


def _unavailable(reason: str) -> None:
    if os.environ.get("RATINGS_REQUIRE_BROWSER") == "1":
        pytest.fail(f"a browser is required (RATINGS_REQUIRE_BROWSER=1) but {reason}")
    pytest.skip(reason)


def screenshot(driver: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    # The folder ignores itself, so screenshots never end up in a commit.
    (ARTIFACTS / ".gitignore").write_text("*\n")
    path = ARTIFACTS / f"{name}.png"
    # The whole page, not only the window: what is below the fold is what a reviewer looks for.
    # Captured so, the page is laid out without a scrollbar: as wide as the window.
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    width = max(int(driver.execute_script("return innerWidth")), int(size["width"]), 1)
    clip = {"x": 0, "y": 0, "width": width, "height": max(1, min(int(size["height"]), 8000))}
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot", {"captureBeyondViewport": True, "clip": clip | {"scale": 1}}
    )
    path.write_bytes(base64.b64decode(shot["data"]))
    assert path.read_bytes().startswith(b"\x89PNG")
    return path


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("browser")
    engine = open_engine(f"sqlite:///{folder / 'ratings.sqlite'}")
    publish(engine, folder / "history.csv")
    add_generated_list(engine, 3_000)
    # An event that came as a crosstable, for its round-by-round table and the players' games.
    import_files(engine, [JUVISY], imported_by="t", now=NOW)
    run_ratings(engine, MeloParams(), now=NOW)
    with running_server(create_app(engine, settings())) as url:
        yield url
    engine.dispose()


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    for program in (CHROMIUM, CHROMEDRIVER):
        if not program.is_file():
            _unavailable(f"{program} does not exist (apt-get install chromium chromium-driver)")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _unavailable("selenium is not installed")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    # With the driver's path given, Selenium never looks for (or downloads) one itself.
    browser = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
    browser.set_page_load_timeout(WAIT)
    try:
        yield browser
    finally:
        browser.quit()


def wait_for(driver: Any, css: str) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, css))
    )


def _gone(element: Any) -> bool:
    """Whether ``element`` left the document. Mid-navigation Chromium may answer a question about
    it with "Node with given id does not belong to the document" instead of a stale reference:
    the same fact, in another exception."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    try:
        element.is_enabled()
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        if "does not belong to the document" in str(error):
            return True
        raise
    return False


def follow(driver: Any, element: Any, css: str) -> Any:
    """Click ``element`` and wait for the next page's ``css``: the old page must be gone first,
    or its own heading would be found (and go stale) while the browser is still navigating."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    old = driver.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(driver, WAIT).until(lambda _driver: _gone(old))
    # And the next page loaded whole: an element found while it was still loading could belong
    # to a document Chromium then replaced ("Node with given id does not belong to the
    # document" when read).
    WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )
    return wait_for(driver, css)


def audit(driver: Any) -> list[str]:
    """The serious and critical accessibility violations axe-core finds on the current page."""
    from axe_core_python.base import AXE_SCRIPT

    driver.execute_script(AXE_SCRIPT)
    result = driver.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "axe.run(document).then(function (r) { done(r.violations); });"
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in result
        if v["impact"] in ("serious", "critical")
    ]


def page_width(driver: Any) -> int:
    """How wide the page is beyond what the window shows: the window's width less its scrollbar
    plus whatever scrolls sideways."""
    width, shown, inner = driver.execute_script(
        "var d = document.documentElement; return [d.scrollWidth, d.clientWidth, innerWidth];"
    )
    return int(inner) + max(0, int(width) - int(shown))


def at_width(driver: Any, width: int) -> None:
    driver.set_window_size(width, 1000)
    # The window's outer size includes the browser's frame: make the page itself that wide.
    inner = int(driver.execute_script("return window.innerWidth"))
    driver.set_window_size(2 * width - inner, 1000)


def check_page(driver: Any, name: str) -> None:
    """At 1280 and at 390 px: no serious accessibility problem, no sideways scrolling on a
    phone, and a screenshot of each."""
    for width in (1280, 390):
        at_width(driver, width)
        driver.refresh()
        wait_for(driver, "footer")
        assert audit(driver) == [], f"{name} at {width} px"
        assert page_width(driver) <= width, f"{name} scrolls sideways at {width} px"
        screenshot(driver, f"{name}-{width}")
    at_width(driver, 1280)


def test_list_to_player_to_event(driver: Any, base_url: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(f"{base_url}/")
    assert driver.title == f"World ranking {PERIODS[-1]}"
    assert len(driver.find_elements(By.CSS_SELECTOR, "table.ranking tbody tr")) > 5
    check_page(driver, "list")
    link = driver.find_element(By.CSS_SELECTOR, "table.ranking td.name a")
    name = link.text
    assert follow(driver, link, "h1").text.startswith(name)
    chart = driver.find_element(By.CSS_SELECTOR, ".chart img")
    loaded = "return arguments[0].complete && arguments[0].naturalWidth"
    assert driver.execute_script(loaded, chart) > 0
    check_page(driver, "player")
    event = driver.find_element(By.CSS_SELECTOR, "main table td.name a")
    title = event.text
    assert follow(driver, event, "h1").text == title
    assert name in [a.text for a in driver.find_elements(By.CSS_SELECTOR, "td.name a")]
    check_page(driver, "event")


def test_a_crosstable_event_to_a_players_games_to_an_opponent(driver: Any, base_url: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(f"{base_url}/events/{juvisy_key()}")
    assert driver.find_element(By.XPATH, "//h2[text()='Crosstable']")
    rows = driver.find_elements(By.CSS_SELECTOR, "tr:has(td.round)")
    assert len(rows) == 19
    assert [c.text for c in rows[0].find_elements(By.CSS_SELECTOR, "td.round")][:1] != ["-"]
    check_page(driver, "event-crosstable")
    # The page was loaded again at each width: its elements are found anew.
    player = driver.find_element(By.CSS_SELECTOR, "tr:has(td.round) td.name a")
    name = player.text
    assert follow(driver, player, "h1").text.startswith(name)
    games = driver.find_elements(By.XPATH, "//h2[text()='Games']/following::table[1]/tbody/tr[td]")
    assert len(games) == 4
    check_page(driver, "player-games")
    opponent = driver.find_element(
        By.XPATH, "(//h2[text()='Games']/following::table[1]/tbody/tr/td[@class='name']/a)[1]"
    )
    other = opponent.text
    assert follow(driver, opponent, "h1").text.startswith(other)
    back = driver.find_elements(By.XPATH, "//h2[text()='Games']/following::table[1]//td/a")
    assert name in [a.text for a in back]


def juvisy_key() -> str:
    from importers.crosstables import read_crosstable

    crosstable = read_crosstable(JUVISY)
    assert crosstable.name is not None
    assert crosstable.end_date is not None
    return quote(f"{crosstable.name} {crosstable.end_date}")


def test_searching_holler_finds_the_three_hollers(driver: Any, base_url: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(f"{base_url}/lists/{GENERATED}")
    driver.find_element(By.ID, "q").send_keys("holler")
    Select(driver.find_element(By.ID, "all")).select_by_value("true")
    submit = driver.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]")
    follow(driver, submit, "h1")
    found = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "td.name a")]
    assert sorted(found) == sorted(" ".join(n.split()) for n in HOLLERS)
    assert "q=holler" in driver.current_url
    screenshot(driver, "search-holler")


def test_paging_through_a_large_list_keeps_the_state_in_the_url(driver: Any, base_url: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(f"{base_url}/lists/{GENERATED}")
    for page in (2, 3):
        follow(driver, driver.find_element(By.CSS_SELECTOR, "a[rel=next]"), "h1")
        assert driver.current_url.endswith(f"page={page}")
        first = driver.find_element(By.CSS_SELECTOR, "table.ranking tbody td").text
        assert first == str((page - 1) * 50 + 1)
    driver.back()
    wait_for(driver, "table.ranking")
    assert driver.current_url.endswith("page=2")
    screenshot(driver, "paged")


@pytest.mark.parametrize("path", ["/lists", "/players", "/about", "/about/rating", "/seed"])
def test_every_other_page_passes_the_audit_at_both_widths(
    driver: Any, base_url: str, path: str
) -> None:
    driver.get(f"{base_url}{path}")
    check_page(driver, path.strip("/").replace(".", "-").replace("/", "-") or "home")


def test_the_lists_page_links_to_each_list(driver: Any, base_url: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(f"{base_url}/lists")
    names = [link.text for link in driver.find_elements(By.CSS_SELECTOR, "tbody td:first-child a")]
    assert names[: len(PERIODS)] == list(reversed(PERIODS))
    heading = follow(driver, driver.find_element(By.LINK_TEXT, PERIODS[0]), "h1")
    assert heading.text == f"World ranking {PERIODS[0]}"
    assert driver.current_url == f"{base_url}/lists/{PERIODS[0]}%401"


def test_the_seed_form_returns_the_seed_list(driver: Any, base_url: str, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    participants = tmp_path / "club-open.csv"
    participants.write_bytes(participants_csv())
    driver.get(f"{base_url}/seed")
    assert driver.find_element(By.TAG_NAME, "h1").text == "Seed list for the first round"
    driver.find_element(By.ID, "file").send_keys(str(participants))
    Select(driver.find_element(By.ID, "system")).select_by_value("swiss")
    assert Select(driver.find_element(By.ID, "format")).first_selected_option.text.startswith(
        "page"
    )
    screenshot(driver, "seed-form")
    submit = driver.find_element(By.CSS_SELECTOR, "form.seed button[type=submit]")
    heading = follow(driver, submit, "h1")
    assert heading.text == "Seed list (Swiss): club-open.csv"
    assert driver.current_url == f"{base_url}/seed"
    headers = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "thead th")]
    assert headers[:3] == ["Seed", "Id", "Name"]
    rows = [
        [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
        for row in driver.find_elements(By.CSS_SELECTOR, "tbody tr")
    ]
    assert [row[0] for row in rows] == ["1", "2", "3", "4", "5", "6"]
    assert sorted(row[2] for row in rows) == [
        "Newcomer Nina (newcomer)", "Player 1", "Player 2", "Player 3", "Player 4", "Player 5",
    ]  # fmt: skip
    screenshot(driver, "seed-result")


def test_the_seed_form_seeds_unrated_players_last_when_chosen(
    driver: Any, base_url: str, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    participants = tmp_path / "with-unrated.csv"
    participants.write_bytes(participants_csv() + b",Ole Ny,NOR,\n,Ada Alt,NOR,\n")
    for width in (1280, 390):
        at_width(driver, width)
        driver.get(f"{base_url}/seed")
        driver.find_element(By.ID, "file").send_keys(str(participants))
        unrated = Select(driver.find_element(By.ID, "unrated"))
        assert unrated.first_selected_option.get_attribute("value") == "initial"
        unrated.select_by_value("last")
        assert page_width(driver) <= width
        screenshot(driver, f"seed-form-unrated-{width}")
        submit = driver.find_element(By.CSS_SELECTOR, "form.seed button[type=submit]")
        follow(driver, submit, "h1")
        rows = [
            [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
            for row in driver.find_elements(By.CSS_SELECTOR, "tbody tr")
        ]
        assert [row[0] for row in rows] == [str(n) for n in range(1, 9)]
        assert [row[2] for row in rows[-2:]] == ["Ada Alt (newcomer)", "Ole Ny (newcomer)"]
        screenshot(driver, f"seed-result-unrated-{width}")
    at_width(driver, 1280)


def test_a_wrong_file_in_the_form_shows_every_problem(
    driver: Any, base_url: str, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    results = tmp_path / "results.csv"
    results.write_text("tournament,end_date,name,wins\nOpen,2024-01-01,A,1\n")
    driver.get(f"{base_url}/seed")
    driver.find_element(By.ID, "file").send_keys(str(results))
    submit = driver.find_element(By.CSS_SELECTOR, "form.seed button[type=submit]")
    heading = follow(driver, submit, "h1")
    assert heading.text == "The participant file has problems"
    assert driver.find_element(By.CSS_SELECTOR, "[role=status]").text == (
        "3 problems found in the file: correct the file and choose it again."
    )
    columns = [
        row.find_elements(By.TAG_NAME, "td")[1].text
        for row in driver.find_elements(By.CSS_SELECTOR, "tbody tr")
    ]
    assert columns == ["tournament", "end_date", "wins"]
    # The form is there again, what was entered kept; the broken file is chosen again.
    assert driver.find_element(By.ID, "file").get_attribute("required") == "true"
    screenshot(driver, "seed-error")


def test_the_seed_form_asks_who_a_name_is_and_keeps_what_was_entered(
    driver: Any, base_url: str, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    participants = tmp_path / "club-open.csv"
    # "Player" alone is part of every name of the list: the TD is asked, not given a newcomer.
    participants.write_text("player_id,name\n1,\n,Player\n")
    driver.get(f"{base_url}/seed")
    driver.find_element(By.ID, "file").send_keys(str(participants))
    Select(driver.find_element(By.ID, "first_board")).select_by_value("black")
    submit = driver.find_element(By.CSS_SELECTOR, "form.seed button[type=submit]")
    assert follow(driver, submit, "h1").text == "Choose who the participant is"
    assert driver.find_element(By.CSS_SELECTOR, "fieldset.unclear legend").text == (
        "Line 3: Player"
    )
    choices = driver.find_elements(By.CSS_SELECTOR, "fieldset.unclear label.choice")
    assert choices[0].find_element(By.CSS_SELECTOR, ".id").text == "2"
    assert choices[-1].text == "none of them: a newcomer"
    assert "Kept: club-open.csv" in driver.find_element(By.CSS_SELECTOR, ".kept").text
    assert Select(driver.find_element(By.ID, "first_board")).first_selected_option.text == "Black"
    screenshot(driver, "seed-candidates")
    driver.set_window_size(390, 1000)
    screenshot(driver, "seed-candidates-phone")
    driver.set_window_size(1280, 1000)
    choices[0].click()
    submit = driver.find_element(By.CSS_SELECTOR, "form.seed button[type=submit]")
    assert follow(driver, submit, "h1").text == "Seed list (Swiss): club-open.csv"
    names = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "tbody td:nth-child(3)")]
    assert sorted(names) == ["Player 1", "Player 2"]


def test_the_seed_form_opens_the_pairing_sheet(driver: Any, base_url: str, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    participants = tmp_path / "club-open.csv"
    participants.write_bytes(participants_csv())
    driver.get(f"{base_url}/seed")
    driver.find_element(By.ID, "file").send_keys(str(participants))
    driver.find_element(By.ID, "pairings").click()
    submit = driver.find_element(By.CSS_SELECTOR, "form.seed button[type=submit]")
    assert follow(driver, submit, "h1").text == "Round 1 pairing (Swiss): club-open.csv"
    assert len(driver.find_elements(By.CSS_SELECTOR, "table.wallchart tbody tr")) == 3
    assert len(driver.find_elements(By.CSS_SELECTOR, ".card")) == 3
    assert audit(driver) == []
    screenshot(driver, "pairing-1280")
    at_width(driver, 390)
    assert page_width(driver) <= 390
    screenshot(driver, "pairing-390")
    at_width(driver, 1280)
    follow(driver, driver.find_element(By.LINK_TEXT, "Back to the form"), "form.seed")


def test_a_handicap_mcmahon_pairing_prints_the_handicap_on_each_card(
    driver: Any, base_url: str, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    participants = tmp_path / "go-cup.csv"
    participants.write_bytes(go_participants_csv())
    driver.get(f"{base_url}/seed")
    driver.find_element(By.ID, "file").send_keys(str(participants))
    Select(driver.find_element(By.ID, "system")).select_by_value("mcmahon")
    driver.find_element(By.ID, "pairings").click()
    Select(driver.find_element(By.ID, "handicap")).select_by_value("9")
    submit = driver.find_element(By.CSS_SELECTOR, "form.seed button[type=submit]")
    assert follow(driver, submit, "h1").text == "Round 1 pairing (McMahon): go-cup.csv"
    cards = driver.find_elements(By.CSS_SELECTOR, ".card")
    assert [c.find_element(By.CSS_SELECTOR, ".handicap").text for c in cards[:2]] == [
        "Handicap: 2 stones", "Handicap: 6 stones",
    ]  # fmt: skip
    assert "3d, MMS 22" in cards[0].text
    assert audit(driver) == []
    screenshot(driver, "pairing-handicap-1280")
    at_width(driver, 390)
    assert page_width(driver) <= 390
    screenshot(driver, "pairing-handicap-390")
    at_width(driver, 1280)


def test_a_players_history_page_fits_a_screen_and_a_phone(driver: Any, base_url: str) -> None:
    """The exported history (``ratings player -o x.html`` writes the same page): nothing runs
    off the right edge, neither the page nor its table, at 1280 and at 390 px."""
    for width in (1280, 390):
        at_width(driver, width)
        driver.get(f"{base_url}/players/1.html")
        wait_for(driver, "table.history tbody tr")
        assert page_width(driver) <= width, f"the history scrolls sideways at {width} px"
        table, box = driver.execute_script(
            "var t = document.querySelector('table.history');"
            "return [t.getBoundingClientRect().right, t.parentElement.clientWidth"
            " + t.parentElement.getBoundingClientRect().left];"
        )
        assert table <= box + 0.5, f"the history's table is cut off at {width} px"
        screenshot(driver, f"history-{width}")
    at_width(driver, 1280)


def test_the_diff_page_passes_the_audit_at_both_widths(driver: Any, base_url: str) -> None:
    driver.get(f"{base_url}/lists/{PERIODS[1]}/diff/{PERIODS[0]}?exact=true")
    check_page(driver, "diff-exact")
