"""Helpers for the real-browser tests: the Streamlit server process, page waits and checks.

Fixtures live in ``conftest.py``; the test modules import these helpers by name
(``from browser_helpers import open_cold, ...``). Everything waits by polling the page, never
by sleeping a fixed time, with timeouts generous enough for a cold 2-core CI machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
SERVER_START_TIMEOUT_S = 30
#: The first script run on a cold 2-core machine imports pandas, plotly and pint: give it time.
FIRST_RENDER_TIMEOUT_MS = 45_000
RERUN_TIMEOUT_MS = 20_000
#: How long a control change may take to start a script run before it is made again.
CHANGE_START_TIMEOUT_MS = 10_000

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

#: Every test's browser context asks for reduced motion (the ``prefers-reduced-motion`` media feature).
#: Streamlit's front end animates its loading skeletons and running indicators while a page loads; in
#: headless Chromium without a GPU every frame of those animations is composited in software, which
#: cost more CPU than the rest of a page load together (12 s of 25 s for one Bandwidth cliff load on
#: the shared 2-core machine, 0.7 s of 12 s with reduced motion). The app itself never reads the
#: setting, and no test is about an animation; benchmarks/ keep a visitor's default.
CONTEXT_OPTIONS: dict[str, Any] = {"reduced_motion": "reduce"}

#: A diagram (interconnect.ui.diagram: the seating grid, the fabric's picture) once its script has drawn it.
DIAGRAM_SVG = ".diagram-chart.diagram-ready > svg"
#: A chart with its exports: a Plotly chart, or a diagram drawn as SVG from a Plotly figure.
CHART = '[data-testid="stPlotlyChart"], .diagram-chart'
CHART_SVG = f".js-plotly-plot .main-svg, {DIAGRAM_SVG}"
#: Inside one element matched by CHART: its drawing, once drawn (Plotly's SVG, or the diagram's own).
DRAWN_IN_CHART = ".js-plotly-plot .main-svg, :scope.diagram-ready > svg"
#: A chart's title: Plotly's, or a diagram's.
CHART_TITLE = ".js-plotly-plot .gtitle, .diagram-chart .diagram-title"
#: A live chart (interconnect.ui.live) once its script has drawn its curves.
LIVE_CHART_SVG = ".live-chart svg:has(path)"
#: A page's first chart, whichever kind: a Plotly chart or a diagram drawn as SVG, or a live chart with its curves.
FIRST_CHART = f"{CHART_SVG}, {LIVE_CHART_SVG}"
EXCEPTION = '[data-testid="stException"]'
ALERT = '[data-testid="stAlert"], [data-testid="stAlertContentWarning"]'
METRIC_VALUE = '[data-testid="stMetricValue"]'
SCRIPT_IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
#: Settled as Streamlit's own end-to-end harness defines it: the websocket connected, the script
#: idle, and no skeleton placeholder left (the page has drawn what the run sent).
APP_SETTLED = '[data-testid="stApp"][data-test-connection-state="CONNECTED"][data-test-script-state="notRunning"]'
SKELETON = '[data-testid="stSkeleton"]'
#: A server that dies at start (a port taken between choosing and binding it) is tried again on a new port.
SERVER_START_ATTEMPTS = 3

T = TypeVar("T")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


@dataclass
class StreamlitServer:
    """``streamlit run app.py`` as a child process on 127.0.0.1 and a free port."""

    log_path: Path
    app_dir: Path = REPO_ROOT  # the folder holding app.py (a benchmark's bare page lives elsewhere)
    port: int = field(default_factory=_free_port)
    process: subprocess.Popen | None = None
    pages_opened: int = 0
    stopping: bool = False  # asked to exit (SIGTERM sent), perhaps not reaped yet

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no server log)"

    def start(self) -> StreamlitServer:
        """Start the server and wait for its health check (:meth:`launch`, then :meth:`ready`)."""
        return self.launch().ready()

    def launch(self) -> StreamlitServer:
        """Start the process and return at once; :meth:`ready` waits until it answers.

        A server launched ahead of the test that needs it boots while the test before runs; until a
        page is opened on it, it is as fresh as one started on the spot.
        """
        command = [
            sys.executable, "-m", "streamlit", "run", "app.py",
            "--server.headless", "true", "--server.address", HOST, "--server.port", str(self.port),
            "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
        ]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(command, cwd=self.app_dir, stdout=log, stderr=subprocess.STDOUT, env=env)
        self.stopping = False
        return self

    def ready(self) -> StreamlitServer:
        """Wait for the health check; if the process dies early (a port taken between choosing and
        binding it), start it again on a fresh port."""
        if self.process is None:
            self.launch()
        failure = self._wait_healthy()
        for _attempt in range(SERVER_START_ATTEMPTS - 1):
            if not failure:
                return self
            self.stop()
            self.port = _free_port()
            failure = self.launch()._wait_healthy()
        if failure:
            self.stop()  # not left running: nothing holds a server that never became healthy
            pytest.fail(failure)
        return self

    def _wait_healthy(self) -> str:
        """"" once the launched process answers its health check, else what went wrong with its log."""
        assert self.process is not None
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return f"streamlit exited with code {self.process.returncode}:\n{self.log_tail()}"
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"{self.base_url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        return ""
            time.sleep(0.1)
        return f"streamlit not healthy after {SERVER_START_TIMEOUT_S} s:\n{self.log_tail()}"

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, wait: bool = True) -> None:
        """Terminate the process we started (by its own handle), killing it if it does not exit.

        ``wait=False`` only asks it to exit (Streamlit takes a few seconds to shut down); call ``stop()``
        again later to reap it.
        """
        if self.process is None or self.process.poll() is not None:
            return
        if not self.stopping:
            self.process.terminate()
            self.stopping = True
        if not wait:
            return
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


def new_context(browser: Any, width: int, height: int) -> Any:
    """A new browser context (its own cookies, storage and Streamlit sessions) of ``width`` x ``height``
    with the tests' :data:`CONTEXT_OPTIONS`."""
    return browser.new_context(viewport={"width": width, "height": height}, **CONTEXT_OPTIONS)


def open_page(page: Any, server: StreamlitServer, path: str) -> None:
    """Navigate to ``path`` on ``server`` and wait until its script run has finished (or failed)."""
    server.pages_opened += 1
    page.goto(server.base_url + path, wait_until="domcontentloaded", timeout=FIRST_RENDER_TIMEOUT_MS)
    wait_for_run(page, server, timeout_ms=FIRST_RENDER_TIMEOUT_MS)


def open_cold(page: Any, server: StreamlitServer, path: str) -> None:
    """Open ``path`` as the very first page request ``server`` has ever received (use ``cold_server``)."""
    assert server.pages_opened == 0, "open_cold needs the `cold_server` fixture: this server already served a page"
    open_page(page, server, path)


def wait_for_run(page: Any, server: StreamlitServer | None = None, timeout_ms: int = RERUN_TIMEOUT_MS) -> None:
    """Wait until the page has settled: its first element drawn, then connected, idle and without skeletons."""
    try:
        page.locator(f"{CHART}, {EXCEPTION}, h1").first.wait_for(state="visible", timeout=timeout_ms)
        wait_settled(page, timeout_ms)
    except Exception as exc:  # playwright's TimeoutError; re-raised with the server's side of the story
        log = f"\n--- server log ---\n{server.log_tail()}" if server else ""
        raise AssertionError(f"page never finished rendering {page.url}: {exc}{log}") from exc


def wait_settled(page: Any, timeout_ms: int = RERUN_TIMEOUT_MS) -> None:
    """Connection ``CONNECTED``, script state ``notRunning`` and no ``stSkeleton`` left on the page."""
    page.wait_for_selector(APP_SETTLED, state="attached", timeout=timeout_ms)
    page.locator(SKELETON).first.wait_for(state="detached", timeout=timeout_ms)


def assert_healthy(page: Any, server: StreamlitServer | None = None) -> None:
    """No Streamlit exception element and no "Page not found" dialog on the page."""
    exceptions = page.locator(EXCEPTION)
    if exceptions.count():
        log = f"\n--- server log ---\n{server.log_tail()}" if server else ""
        raise AssertionError(f"Streamlit exception on {page.url}:\n{exceptions.first.inner_text()}{log}")
    assert page.get_by_text("This app has encountered an error").count() == 0, f"redacted error on {page.url}"
    assert page.get_by_text("Page not found").count() == 0, f"'Page not found' shown for {page.url}"
    assert page.get_by_text("no corresponding file was found").count() == 0, f"page file missing for {page.url}"


def wait_for_charts(page: Any, minimum: int = 1, timeout_ms: int = FIRST_RENDER_TIMEOUT_MS) -> None:
    """At least ``minimum`` Plotly charts visible and drawn as SVG."""
    page.locator(CHART).nth(minimum - 1).wait_for(state="visible", timeout=timeout_ms)
    page.locator(CHART_SVG).first.wait_for(state="visible", timeout=timeout_ms)
    assert page.locator(CHART).count() >= minimum


def wait_for_first_chart(page: Any, timeout_ms: int = FIRST_RENDER_TIMEOUT_MS) -> None:
    """The page's first chart drawn: a Plotly chart's SVG or a live chart's curves."""
    page.locator(FIRST_CHART).first.wait_for(state="visible", timeout=timeout_ms)


def settled_chart_count(page: Any, quiet_ms: int = 1500, timeout_ms: int = 30_000) -> int:
    """The number of charts on the page once it has stopped changing for ``quiet_ms``.

    Streamlit reports the script idle a moment before the browser has mounted every element, so a
    count taken at once can be short (even zero).
    """
    count, stable_ms, waited_ms = page.locator(CHART).count(), 0, 0
    while stable_ms < quiet_ms and waited_ms < timeout_ms:
        page.wait_for_timeout(250)
        waited_ms += 250
        now = page.locator(CHART).count()
        stable_ms = stable_ms + 250 if now == count else 0
        count = now
    return count


def widget(page: Any, key: str) -> Any:
    """The element of the widget with Streamlit key ``key`` (``cliff.dir`` -> ``.st-key-cliff-dir``)."""
    return page.locator(".st-key-" + re.sub(r"[^A-Za-z0-9_-]", "-", key))


def open_select(page: Any, key: str) -> None:
    """Open the select box with key ``key``, scrolled into view first: a select box's menu closes when
    the page scrolls, and a click on a box below the fold scrolls the page as it clicks."""
    box = widget(page, key).get_by_role("combobox")
    box.scroll_into_view_if_needed()
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    box.click()


def query_of(url: str) -> dict[str, str]:
    """The query string of ``url`` as a flat dict (last value wins, as the app reads it)."""
    return {key: values[-1] for key, values in parse_qs(urlsplit(url).query, keep_blank_values=True).items()}


def poll(page: Any, check: Callable[[], T], timeout_s: float = 10.0, interval_ms: int = 100) -> T:
    """Call ``check()`` until it returns something truthy; return that, or the last falsy result at timeout.

    Waits with ``page.wait_for_timeout``, not ``time.sleep``: playwright's sync API only processes
    browser events (such as a URL change, which updates ``page.url``) while one of its calls runs.
    """
    deadline = time.monotonic() + timeout_s
    result = check()
    while not result and time.monotonic() < deadline:
        page.wait_for_timeout(interval_ms)
        result = check()
    return result


#: Installed in the page: records every change of Streamlit's script state with its time.
OBSERVER_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  window.__states = [];
  new MutationObserver(() => window.__states.push([performance.now(), app.getAttribute('data-test-script-state')]))
    .observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""
TWO_FRAMES_JS = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now()))))"


def open_and_watch(page: Any, srv: StreamlitServer, path: str, charts: int = 1) -> None:
    """Open ``path``, wait for its charts, and start recording script-state changes."""
    page.goto(srv.base_url + path, wait_until="domcontentloaded", timeout=60_000)
    wait_for_run(page, srv, timeout_ms=60_000)
    if charts:
        wait_for_charts(page, minimum=charts)
    page.evaluate(OBSERVER_JS)


def url_shows(param: str, value: object) -> str:
    """A JavaScript expression, true once the page's address has ``param=value``: for ``timed_change``'s
    ``shown`` on a page that writes the control's value to its link at the end of a run."""
    return f"new URLSearchParams(location.search).get({json.dumps(param)}) === {json.dumps(str(value))}"


def timed_change(page: Any, change: Any, shown: str | None = None) -> float:
    """Milliseconds from a control change to the script idle again plus two animation frames.

    A change that starts no script run within ``CHANGE_START_TIMEOUT_MS`` (a keystroke the browser
    dropped while the page was still re-rendering) is made once more and timed from the second try.

    ``shown``, a JavaScript expression, is true once the page shows what the change asked for (see
    :func:`url_shows`). With it, the change is done when that is on the page and the script is idle,
    and still idle two frames later, whatever script states were seen on the way. Without it a run
    must be seen to start, and a short run's messages can reach the browser in one burst that React
    draws in one render: the script-state attribute never reads "running" (9 of 30 changes of the
    bare one-chart page on a quiet machine, 3 December 2026; about one run in ten of the isolation
    test while another session loads a heavy page).
    """
    if shown is None:
        start = "t0 => window.__states.some(s => s[0] > t0)"
        done = ("t0 => window.__states.some(s => s[0] > t0 && s[1] === 'running') && "
                "window.__states.length && window.__states[window.__states.length - 1][1] === 'notRunning'")
    else:
        start = f"t0 => window.__states.some(s => s[0] > t0) || Boolean({shown})"
        done = f"t0 => Boolean({shown}) && document.querySelector({json.dumps(SCRIPT_IDLE)}) !== null"
    started = page.evaluate("() => performance.now()")
    change()
    try:
        page.wait_for_function(start, arg=started, timeout=CHANGE_START_TIMEOUT_MS)
    except Exception:  # playwright's TimeoutError: nothing started, so the change did not reach the app
        page.mouse.click(1, 1)  # leave the field, then make the change again
        page.wait_for_timeout(500)
        started = page.evaluate("() => performance.now()")
        change()
    deadline = time.monotonic() + RERUN_TIMEOUT_MS / 1000
    while True:
        page.wait_for_function(done, arg=started, timeout=max(1, (deadline - time.monotonic()) * 1000))
        ended = page.evaluate(TWO_FRAMES_JS)
        # The address can change before React has drawn the run's "running": still idle two frames on?
        if shown is None or page.locator(SCRIPT_IDLE).count():
            return ended - started


def number_changer(page: Any, key: str, value: float) -> Callable[[], None]:
    """A function that types ``value`` into the number input with Streamlit key ``key`` and presses Enter."""
    def change() -> None:
        field = widget(page, key).locator("input").first
        field.fill(str(value))
        field.press("Enter")
    return change


def check_closed_expander_keeps_link_values(page: Any, server: StreamlitServer, path: str, hidden: dict[str, str], *,
                                            expander: str, probe: tuple[str, str], change: tuple[str, str]) -> None:
    """A "More settings" expander drawn only while open (issue 26) keeps its values while closed.

    Opens ``path`` with the ``hidden`` values in its link, so the expander (Streamlit key ``expander``) starts
    open and its widget ``probe[0]`` shows ``probe[1]``; closes it, so the widget is gone; types ``change[1]``
    into the number input ``change[0]`` (a rerun that reads no link); then every hidden value must still be in
    the URL, and opened again, the probe shows its value. Without ``persist_state`` the values fall back to
    their defaults. Leaves the expander open.
    """
    open_page(page, server, path + "?" + urlencode(hidden))
    wait_for_first_chart(page)
    more = page.locator(".st-key-" + re.sub(r"[^A-Za-z0-9_-]", "-", expander))
    probe_key, probe_value = probe
    assert widget(page, probe_key).locator("input").first.input_value() == probe_value  # the link opened it
    more.locator("summary").first.click()  # close it: its widgets are no longer drawn
    assert poll(page, lambda: widget(page, probe_key).count() == 0 or None), f"{expander} did not close"
    wait_for_run(page, server)
    control, value = change
    field = widget(page, control).locator("input").first
    field.fill(value)
    field.press("Enter")
    url_key = control.split(".", 1)[1]
    assert poll(page, lambda: query_of(page.url).get(url_key) == value or None), page.url
    wait_for_run(page, server)
    assert_healthy(page, server)
    url_query = query_of(page.url)
    for key, expected in hidden.items():
        assert url_query.get(key) == expected, f"{key} lost while {expander} was closed: {page.url}"
    more.locator("summary").first.click()  # opened again, the widgets show the values they kept
    assert poll(page, lambda: widget(page, probe_key).count() == 1 or None), f"{expander} did not reopen"
    assert widget(page, probe_key).locator("input").first.input_value() == probe_value
