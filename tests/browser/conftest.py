"""Fixtures for the real-browser tests: ``streamlit run`` servers and headless Chromium.

Why a real server: Streamlit decides once per server process, on the first script run, how the
app's pages are routed. AppTest resets that every run, so only a browser against a server that
has never served a page catches a deep link that breaks when it is the first request.

- ``streamlit_server``: one server shared by every test of the pytest process (each xdist worker
  has its own), for tests about what a page does, not about a server's first request. Each test
  still has its own Streamlit session (its own page); a server that died is replaced.
- ``cold_server`` (function scope): a server no page has been requested from; open it with
  :func:`browser_helpers.open_cold` so the first page request it ever sees is the deep link. The
  next one is launched while the test runs (it boots in the background, untouched until handed
  out), and a used one is stopped without waiting for it to exit.
- ``page``: a new page (its own Streamlit session) in the one browser context each pytest process
  shares (``browser_context``), 1400 x 1000 unless the test sets another size. ``new_page`` makes
  more of them; every page a test opened is closed when it ends, and an uncaught error in one of
  its pages' JavaScript fails the test at teardown.
- ``kept_pages``: pages a test module keeps open from one test to the next (one per name, in the
  shared context), for tests that measure the same page in several states: a later test changes a
  control on the open page (a script run) instead of loading the page again in a new session (a
  Streamlit and Plotly start-up in Chromium, most of a browser test's CPU). ``new_page``'s teardown
  leaves them open; an uncaught error in one fails the test that was using it.
- No request leaves the machine: Chromium resolves no host but 127.0.0.1 (``OFFLINE_ARGS``), and
  every request to another host that a test's pages make is listed in ``blocked_requests``.

Why one shared context: a context that routes requests (``context.route``) runs without an HTTP
cache, and a new context starts with an empty one, so each page load used to download and compile
all of Streamlit's and Plotly's JavaScript again (served as ``immutable``). Pages of one context
share its cache (and its cookies and local storage, where Streamlit keeps only the sidebar's
width and whether its page list is expanded); each is still a new Streamlit session. Tests about
visitors on separate browsers (``test_isolation``) open their own context, as the export deck's
test does for its file pages.

A cold deep-link test for a new page is one function::

    def test_cold_deep_link_foo(cold_server, page):
        open_cold(page, cold_server, "/Foo?x=1")
        assert_healthy(page, cold_server)
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from browser_helpers import CHROMIUM_ARGS, HOST, RERUN_TIMEOUT_MS, StreamlitServer, new_context

#: Chromium resolves no host name or address but 127.0.0.1 (IP literals included): a request for
#: anything else fails with ERR_NAME_NOT_RESOLVED before a connection is tried.
OFFLINE_ARGS = [f"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE {HOST}"]


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
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS + OFFLINE_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


class _RemoteRequests:
    """Where the shared context's request listener lists requests to other hosts: the running test's list."""

    def __init__(self) -> None:
        self.sink: list[str] | None = None

    def record(self, request: Any) -> None:
        split = urlsplit(request.url)
        if split.scheme in ("http", "https", "ws", "wss") and split.hostname != HOST and self.sink is not None:
            self.sink.append(request.url)


_REMOTE = _RemoteRequests()


@pytest.fixture(scope="session")
def browser_context(browser: Any) -> Iterator[Any]:
    """The browser context of this pytest process, shared by every test's pages (with its HTTP cache)."""
    context = new_context(browser, 1400, 1000)
    context.set_default_timeout(RERUN_TIMEOUT_MS)
    context.on("request", _REMOTE.record)
    try:
        yield context
    finally:
        context.close()


@pytest.fixture
def blocked_requests() -> Iterator[list[str]]:
    """URLs this test's pages in the shared context requested from anywhere but 127.0.0.1 (they failed:
    Chromium resolves no other host)."""
    requests: list[str] = []
    _REMOTE.sink = requests
    try:
        yield requests
    finally:
        _REMOTE.sink = None


@pytest.fixture
def new_page(browser_context: Any, blocked_requests: list[str]) -> Iterator[Callable[..., Any]]:
    """Makes new pages in the shared context, ``new_page()`` or ``new_page(width, height)``; each is a new
    Streamlit session. At teardown every page of the context is closed (also those a test opened itself)
    and an uncaught error in a page made here fails the test."""
    errors: list[str] = []

    def make(width: int | None = None, height: int | None = None) -> Any:
        opened = browser_context.new_page()
        opened.on("pageerror", lambda error: errors.append(str(error)))
        if width is not None and height is not None:
            opened.set_viewport_size({"width": width, "height": height})
        return opened

    try:
        yield make
    finally:
        for opened in browser_context.pages:
            if not _KEPT.holds(opened):
                opened.close()
    # An uncaught error in Streamlit's front end can leave a blank or half-drawn page that the test's
    # own checks happen to pass (a blank Seating chart once did): every browser test fails on one.
    assert not errors, f"the page raised in the browser: {errors}"


@pytest.fixture
def page(new_page: Callable[..., Any]) -> Any:
    """A new page, 1400 x 1000, in the shared context: a Streamlit session of its own."""
    return new_page()


class KeptPages:
    """Pages kept open across the tests of one module, by name (see ``kept_pages``)."""

    def __init__(self) -> None:
        self._pages: dict[str, Any] = {}
        #: Uncaught JavaScript errors of any kept page since the running test began.
        self.errors: list[str] = []

    def holds(self, page: Any) -> bool:
        return any(kept is page for kept in self._pages.values())

    def get(self, name: str) -> Any | None:
        """The page kept under ``name``, or None (none kept, or it was closed)."""
        page = self._pages.get(name)
        if page is not None and page.is_closed():
            del self._pages[name]
            return None
        return page

    def keep(self, name: str, page: Any) -> Any:
        """Keep ``page`` (made by ``new_page``) open under ``name`` for the module's later tests."""
        self.drop(name)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        self._pages[name] = page
        return page

    def drop(self, name: str) -> None:
        """Close the page kept under ``name``, if any (after a failed test: its state is unknown)."""
        page = self._pages.pop(name, None)
        if page is not None and not page.is_closed():
            page.close()

    def close(self) -> None:
        for name in list(self._pages):
            self.drop(name)


_KEPT = KeptPages()


@pytest.fixture(scope="module")
def _kept_pages(browser_context: Any) -> Iterator[KeptPages]:
    try:
        yield _KEPT
    finally:
        _KEPT.close()


@pytest.fixture
def kept_pages(_kept_pages: KeptPages, new_page: Callable[..., Any]) -> Iterator[KeptPages]:
    """The pages this module keeps open between its tests (:class:`KeptPages`); make them with ``new_page``,
    then ``keep`` them. An uncaught error in a kept page while this test runs fails it."""
    _kept_pages.errors = []
    yield _kept_pages
    errors, _kept_pages.errors = _kept_pages.errors, []
    assert not errors, f"a kept page raised in the browser: {errors}"
