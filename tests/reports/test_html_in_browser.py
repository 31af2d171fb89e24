"""The HTML report in a real browser: Debian's headless Chromium, driven by Selenium through
Debian's ChromeDriver (nothing is downloaded at run time; `.ci/run` installs both packages).

What a vendor sees on the first screen of a failing run, whether the filters work, and a
screenshot kept where ``ENGRAM_CI_ARTEFACTS`` says (CI keeps it as an artefact)."""

from __future__ import annotations

import copy
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from engram_conformance.reports import ReportDocument, html

from .documents import small

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
#: the first screen: a laptop's window
WIDTH, HEIGHT = 1280, 800
#: the reference with one planted bug (a capture replay answers a candidate never issued)
PLANTED = Path(__file__).parents[1] / "conformance" / "fixtures" / "planted_bug_server.py"

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


def _first_cause_item(driver: object, label: str) -> object:
    """The value under ``label`` in the first cause's evidence."""
    path = f"(//section[contains(@class, 'cause')])[1]//dt[.='{label}']/following-sibling::dd[1]"
    return driver.find_element("xpath", path)  # type: ignore[attr-defined]


def _window_height(driver: object) -> int:
    return int(driver.execute_script("return window.innerHeight"))  # type: ignore[attr-defined]


def _in_shell(command: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """``command`` run by bash in ``folder``, as a vendor pastes it, the kit's commands found
    on the ``PATH``."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return subprocess.run(
        ["bash", "-c", command],
        cwd=folder,
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_failing_runs_first_screen_holds_a_reproduction_that_runs_as_pasted(
    browser: object, tmp_path: Path
) -> None:
    """Issue 26, done when: the report of a real failing run, opened in the browser, shows the
    first failure's evidence and its reproduction on the first screen; the reproduction's text,
    taken from the page, runs as printed from the run's folder."""
    server = shlex.join([sys.executable, str(PLANTED), "{state_dir}", "{host_public_key_file}"])
    run = _in_shell(
        f"engram-conformance run --stdio {shlex.quote(server)} --only IDEM-001 --report-dir out",
        tmp_path,
    )
    assert run.returncode == 1, run.stdout + run.stderr  # IDEM-001 fails: the gate is shut
    driver = browser
    driver.get((tmp_path / "out" / "report.html").as_uri())  # type: ignore[attr-defined]
    driver.execute_script("window.scrollTo(0, 0)")  # type: ignore[attr-defined]
    cause = "#fails section.cause"
    assert "IDEM-001" in driver.find_element("css selector", cause).text  # type: ignore[attr-defined]
    # a real answer is long: the evidence's end, past the calls, is a scroll away, but what was
    # expected and the reproduction are whole on the first screen, and what came begins there
    for label, whole in (("Expected", True), ("Reproduce", True), ("Observed", False)):
        box = _first_cause_item(driver, label).rect  # type: ignore[attr-defined]
        seen = box["y"] + (box["height"] if whole else 20)
        assert box["y"] >= 0 and seen <= _window_height(driver), (label, box)
    reproduce = _first_cause_item(driver, "Reproduce")
    assert reproduce.text.startswith("engram-conformance replay out/transcripts/")  # type: ignore[attr-defined]
    replayed = _in_shell(reproduce.text, tmp_path)  # type: ignore[attr-defined]
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "calls replayed, 0 answered differently" in replayed.stdout


def _keep_screenshot(driver: object, name: str) -> None:
    folder = os.environ.get("ENGRAM_CI_ARTEFACTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    shot = Path(folder) / name
    driver.save_screenshot(str(shot))  # type: ignore[attr-defined]
    assert shot.stat().st_size > 0
