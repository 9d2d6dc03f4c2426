"""Fixtures for the real-browser tests: a freshly started ``streamlit run`` and headless Chromium.

Why a real server: Streamlit decides once per server process, on the first script run, how the
app's pages are routed. AppTest resets that every run, so only a browser against a server that
has never served a page catches a deep link that breaks when it is the first request.

- ``streamlit_server`` (module scope): one fresh server shared by the tests of a module.
- ``cold_server`` (function scope): a server started for one test; open it with
  :func:`browser_helpers.open_cold` so the first page request it ever sees is the deep link.
- ``page``: a new browser context per test (its own Streamlit session). Requests to anything but
  127.0.0.1 are aborted and listed in the ``blocked_requests`` fixture; an uncaught error in the
  page's JavaScript fails the test at teardown.

A cold deep-link test for a new page is one function::

    def test_cold_deep_link_foo(cold_server, page):
        open_cold(page, cold_server, "/Foo?x=1")
        assert_healthy(page, cold_server)
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from browser_helpers import CHROMIUM_ARGS, HOST, RERUN_TIMEOUT_MS, StreamlitServer


def _skip_or_fail(reason: str) -> None:
    if os.environ.get("CI", "").strip().lower() == "true":
        pytest.fail(f"{reason} under CI=true: the browser tests must run in CI (.ci/run installs chromium)")
    pytest.skip(reason)


@contextlib.contextmanager
def _running_server(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[StreamlitServer]:
    server = StreamlitServer(tmp_path_factory.mktemp("streamlit") / f"{name}.log")
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(scope="module")
def streamlit_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StreamlitServer]:
    """One fresh server for the whole test module."""
    with _running_server(tmp_path_factory, "module") as server:
        yield server


@pytest.fixture
def cold_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StreamlitServer]:
    """A server started for this test alone: no page has been requested from it yet."""
    with _running_server(tmp_path_factory, "cold") as server:
        yield server


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    executable = shutil.which("chromium")
    if executable is None:
        _skip_or_fail("chromium missing (install Debian's chromium; `playwright install` cannot download here)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _skip_or_fail("the playwright Python package is missing (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def blocked_requests() -> list[str]:
    """URLs the page tried to load from anywhere but 127.0.0.1 (they were aborted)."""
    return []


@pytest.fixture
def page(browser: Any, blocked_requests: list[str]) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(RERUN_TIMEOUT_MS)

    def only_localhost(route: Any) -> None:
        if urlsplit(route.request.url).hostname == HOST:
            route.continue_()
        else:
            blocked_requests.append(route.request.url)
            route.abort()

    context.route("**/*", only_localhost)
    errors: list[str] = []
    try:
        opened = context.new_page()
        opened.on("pageerror", lambda error: errors.append(str(error)))
        yield opened
    finally:
        context.close()
    # An uncaught error in Streamlit's front end can leave a blank or half-drawn page that the test's
    # own checks happen to pass (a blank Seating chart once did): every browser test fails on one.
    assert not errors, f"the page raised in the browser: {errors}"
