"""The exported talk opened as a speaker opens it on a borrowed laptop: from files, with no network.

``interconnect export`` writes two views; Chromium opens ``deck.html`` in its folder (plotly.js loaded
from beside it), the same deck copied alone to another folder (it unpacks its own plotly.js), and a
chart file of the folder. Any request that is not a local file is
aborted and fails the test; the right and left arrow keys move the deck and its counter follows.
"""

from __future__ import annotations

import shutil
from urllib.parse import urlsplit

import pytest
from browser_helpers import new_context

from interconnect.cli import main

pytestmark = pytest.mark.browser


@pytest.fixture
def offline_page(browser):
    context = new_context(browser, 1280, 720)
    remote: list[str] = []
    errors: list[str] = []

    def files_only(route) -> None:
        if urlsplit(route.request.url).scheme == "file":
            route.continue_()
        else:
            remote.append(route.request.url)
            route.abort()

    context.route("**/*", files_only)
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield page
    finally:
        context.close()
    assert not remote, f"the export fetched from the network: {remote}"
    assert not errors, f"the page raised in the browser: {errors}"


def test_the_deck_and_the_chart_files_run_from_files_alone(tmp_path, offline_page):
    assert main(["export", "--out", str(tmp_path), "/Bandwidth_cliff?gpu=b200", "/All_reduce?nodes=8"]) == 0
    page = offline_page
    page.goto((tmp_path / "deck.html").as_uri())
    page.locator(".slide.on .chart .main-svg").first.wait_for(state="visible", timeout=20_000)
    assert page.locator("#counter").inner_text() == "Step 1 of 2"
    assert "B200" in page.locator(".slide.on").inner_text()
    page.keyboard.press("ArrowRight")
    page.locator("#step2.on .chart .main-svg").first.wait_for(state="visible", timeout=20_000)
    assert page.locator("#counter").inner_text() == "Step 2 of 2" and page.url.endswith("#2")
    assert page.locator("#step2 .chart").count() >= 2  # every chart of the view is on its slide
    # Nothing of a slide is under the navigation bar (a tour step's legend once sat half under it at 1280x720):
    # a slide taller than the window scrolls above the bar, and its first chart, legend and all, fits above it.
    slide_bottom, chart_bottom, bar_top = page.evaluate(
        "() => [document.querySelector('.slide.on').getBoundingClientRect().bottom,"
        " document.querySelector('.slide.on .chart').getBoundingClientRect().bottom,"
        " document.getElementById('bar').getBoundingClientRect().top]")
    assert slide_bottom <= bar_top + 0.5 and chart_bottom <= bar_top, (slide_bottom, chart_bottom, bar_top)
    page.keyboard.press("ArrowRight")  # past the end it stays on the last step
    assert page.locator("#counter").inner_text() == "Step 2 of 2"
    page.keyboard.press("ArrowLeft")
    assert page.locator("#counter").inner_text() == "Step 1 of 2"

    alone = tmp_path / "usb-stick"
    alone.mkdir()
    shutil.copy(tmp_path / "deck.html", alone / "deck.html")  # the one file, without the folder's plotly.js
    page.goto((alone / "deck.html").as_uri() + "#2")
    page.locator("#step2.on .chart .main-svg").first.wait_for(state="visible", timeout=30_000)
    assert page.locator("#counter").inner_text() == "Step 2 of 2" and not page.locator("#note").inner_text()

    page.goto((tmp_path / "view02-chart1.html").as_uri())  # a chart file loads the folder's plotly.js
    page.locator(".main-svg").first.wait_for(state="visible", timeout=20_000)
