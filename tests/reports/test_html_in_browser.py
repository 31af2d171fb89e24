"""The HTML report in a real browser: Debian's headless Chromium, driven by Selenium through
Debian's ChromeDriver (nothing is downloaded at run time; `.ci/run` installs both packages).

What a vendor sees on the first screen of a failing run, whether the filters work, and a
screenshot kept where ``ENGRAM_CI_ARTEFACTS`` says (CI keeps it as an artefact)."""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from engram_conformance.reports import ReportDocument, html

from .documents import small

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
#: the first screen: a laptop's window
WIDTH, HEIGHT = 1280, 800

webdriver = pytest.importorskip("selenium.webdriver")
if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
    pytest.skip(
        "Debian's chromium and chromium-driver are not installed (.ci/run installs them)",
        allow_module_level=True,
    )


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        f"--window-size={WIDTH},{HEIGHT}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    try:
        yield driver
    finally:
        driver.quit()


def _failing_run() -> ReportDocument:
    """The small document with one fault read as an error by several rules, as a server that
    stopped answering leaves it."""
    data = copy.deepcopy(small())
    reason = "the server faulted: no answer within 10.0 s"
    for number in range(1, 13):
        rule = copy.deepcopy(data["rules"][4])  # IDEM-003, an error
        rule.update(id=f"IDEM-{100 + number}", reason=reason)
        data["rules"].append(rule)
    data["counts"]["error"] += 12
    return ReportDocument.from_dict(data)


@pytest.fixture(scope="module")
def page(browser: object, tmp_path_factory: pytest.TempPathFactory) -> object:
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(html.render(_failing_run()), encoding="utf-8")
    browser.get(path.as_uri())  # type: ignore[attr-defined]
    return browser


def _on_first_screen(driver: object, selector: str) -> bool:
    script = (
        "const box = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return box.top >= 0 && box.bottom <= window.innerHeight;"
    )
    return bool(driver.execute_script(script, selector))  # type: ignore[attr-defined]


def test_the_first_failure_its_evidence_and_reproduction_are_on_the_first_screen(
    page: object,
) -> None:
    driver = page
    driver.execute_script("window.scrollTo(0, 0)")  # type: ignore[attr-defined]
    cause = "#fails section.cause"
    assert _on_first_screen(driver, f"{cause} h3")
    assert _on_first_screen(driver, f"{cause} dl.evidence")  # expected, observed, reproduce
    text = driver.find_element("css selector", f"{cause} dl.evidence").text  # type: ignore[attr-defined]
    assert "engram-conformance replay" in text and "engram_memory_get" in text
    _keep_screenshot(driver, "report-first-screen.png")


def test_the_filters_show_only_what_is_asked(page: object) -> None:
    driver = page
    rows = driver.find_elements("css selector", "#rules tbody tr")  # type: ignore[attr-defined]
    shown = driver.find_element("id", "shown")  # type: ignore[attr-defined]
    assert shown.text == f"{len(rows)} of {len(rows)} rules shown"
    driver.find_element("css selector", "input[name=verdict][value=pass]").click()  # type: ignore[attr-defined]
    visible = [row.get_attribute("id") for row in rows if row.is_displayed()]
    assert "rule-ENV-001" not in visible and "rule-ENV-002" in visible
    search = driver.find_element("css selector", "input[name=text]")  # type: ignore[attr-defined]
    search.send_keys("IDEM-1")
    visible = [row.get_attribute("id") for row in rows if row.is_displayed()]
    assert visible == [f"rule-IDEM-{100 + n}" for n in range(1, 13)]
    assert shown.text == f"12 of {len(rows)} rules shown"


def _keep_screenshot(driver: object, name: str) -> None:
    folder = os.environ.get("ENGRAM_CI_ARTEFACTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    shot = Path(folder) / name
    driver.save_screenshot(str(shot))  # type: ignore[attr-defined]
    assert shot.stat().st_size > 0
