"""Fixtures for the real-browser tests: ``streamlit run`` servers and headless Chromium.

Why a real server: Streamlit decides once per server process, on the first script run, how the
app's pages are routed. AppTest resets that every run, so only a browser against a server that
has never served a page catches a deep link that breaks when it is the first request.

- ``streamlit_server``: one server shared by every test of the pytest process (each xdist worker
  has its own), for tests about what a page does, not about a server's first request. Each test
  still has its own Streamlit session (its own browser context); a server that died is replaced.
- ``cold_server`` (function scope): a server no page has been requested from; open it with
  :func:`browser_helpers.open_cold` so the first page request it ever sees is the deep link. The
  next one is launched while the test runs (it boots in the background, untouched until handed
  out), and a used one is stopped without waiting for it to exit.
- ``page``: a new browser context per test (its own Streamlit session). Requests to anything but
  127.0.0.1 are aborted and listed in the ``blocked_requests`` fixture; an uncaught error in the
  page's JavaScript fails the test at teardown.

A cold deep-link test for a new page is one function::

    def test_cold_deep_link_foo(cold_server, page):
        open_cold(page, cold_server, "/Foo?x=1")
        assert_healthy(page, cold_server)
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from browser_helpers import CHROMIUM_ARGS, HOST, RERUN_TIMEOUT_MS, StreamlitServer, new_context


def _skip_or_fail(reason: str) -> None:
    if os.environ.get("CI", "").strip().lower() == "true":
        pytest.fail(f"{reason} under CI=true: the browser tests must run in CI (.ci/run installs chromium)")
    pytest.skip(reason)


class _Servers:
    """The servers of one pytest process: the shared one, the cold one launched ahead, and those stopping."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self._tmp = tmp_path_factory
        self._shared: StreamlitServer | None = None
        self._spare: StreamlitServer | None = None
        self._stopping: list[StreamlitServer] = []

    def _new(self, name: str) -> StreamlitServer:
        return StreamlitServer(self._tmp.mktemp("streamlit") / f"{name}.log")

    def shared(self) -> StreamlitServer:
        if self._shared is None or not self._shared.alive:
            if self._shared is not None:
                self.release(self._shared)
            self._shared = self._new("shared").start()
        return self._shared

    def cold(self) -> StreamlitServer:
        server = (self._spare or self._new("cold").launch()).ready()
        self._spare = self._new("cold").launch()
        assert server.pages_opened == 0
        return server

    def release(self, server: StreamlitServer) -> None:
        server.stop(wait=False)
        self._stopping.append(server)

    def close(self) -> None:
        for server in (self._shared, self._spare, *self._stopping):
            if server is not None:
                server.stop(wait=False)
        for server in (self._shared, self._spare, *self._stopping):
            if server is not None:
                server.stop()


@pytest.fixture(scope="session")
def _servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Servers]:
    servers = _Servers(tmp_path_factory)
    try:
        yield servers
    finally:
        servers.close()


@pytest.fixture
def streamlit_server(_servers: _Servers) -> StreamlitServer:
    """The server this pytest process shares between tests (started on first use)."""
    return _servers.shared()


@pytest.fixture
def cold_server(_servers: _Servers) -> Iterator[StreamlitServer]:
    """A server for this test alone: no page has been requested from it yet."""
    server = _servers.cold()
    try:
        yield server
    finally:
        _servers.release(server)


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
    context = new_context(browser, 1400, 1000)
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
