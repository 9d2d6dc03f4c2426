"""Shared plumbing for the browser benchmarks: a Streamlit server, headless Chromium, timing a rerun.

Not a benchmark itself: run as a script it only says so. The server helper is the one the browser
tests use.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT))

from browser_helpers import CHROMIUM_ARGS, StreamlitServer, open_and_watch, timed_change  # noqa: E402, F401

BARE_PAGE = '''
CHARTS = {charts}
import numpy as np
import plotly.graph_objects as go
import streamlit as st

n = st.number_input("Points", min_value=1, max_value=1000, value=100, key="bare.n")
st.query_params["n"] = str(n)  # the value in the link, as the app's pages write theirs: how a change is seen done
x = np.linspace(0, 1, 100)
for chart in range(CHARTS):
    st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.sin(x * n + chart))), key=f"bare-chart-{chart}")
if {frozen} and not getattr(st, "_bare_heap_frozen", False):  # as the app's pages do (interconnect/ui/heap.py)
    import gc
    gc.collect()
    gc.freeze()
    st._bare_heap_frozen = True
'''

@contextlib.contextmanager
def server(bare: bool = False, charts: int = 1, root: Path | None = None,
           frozen: bool = False) -> Iterator[StreamlitServer]:
    """The app (or, with ``bare``, a one-input page redrawing ``charts`` 100-point charts) on a free loopback port.

    ``frozen``: the bare page freezes its heap after its first run, as the app's pages do after theirs
    (:mod:`interconnect.ui.heap`), so the collection Streamlit makes after every run is as short as the app's.

    ``root``: another checkout of the app to serve (its own code imported: ``PYTHONPATH`` points at it while the
    server starts), to measure a change against the code before it in the same run.
    """
    app_dir = ROOT if root is None else Path(root).resolve()
    if bare:
        app_dir = Path(tempfile.mkdtemp())
        (app_dir / "app.py").write_text(BARE_PAGE.replace("{charts}", str(charts)).replace("{frozen}", str(frozen)))
    saved = os.environ.get("PYTHONPATH")
    if root is not None:
        os.environ["PYTHONPATH"] = str(app_dir)
    try:
        srv = StreamlitServer(Path(tempfile.mkdtemp()) / "server.log", app_dir=app_dir).start()
    finally:
        if root is not None:
            if saved is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = saved
    try:
        yield srv
    finally:
        srv.stop()


@contextlib.contextmanager
def chromium(width: int = 1440, height: int = 900) -> Iterator[Any]:
    """A headless Chromium page (Debian's chromium) that may only talk to loopback."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium")
    if executable is None:
        raise SystemExit("chromium is not installed (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": width, "height": height})
            context.route("**/*", lambda route: route.continue_() if "127.0.0.1" in route.request.url
                          else route.abort())
            yield context
        finally:
            browser.close()


if __name__ == "__main__":
    print("helper module for the browser benchmarks; run benchmarks/interaction.py")


def paired_arguments(arguments: list[str], default_changes: int) -> tuple[int, set[str], str | None, bool]:
    """The paired benchmarks' command line: ``[CHANGES] [PAGE ...] [--against DIR] [--frozen-bare]``, as
    (changes, pages named, the other checkout or None, whether the bare page freezes its heap too)."""
    arguments = list(arguments)
    against = None
    if "--against" in arguments:
        at = arguments.index("--against")
        against = arguments[at + 1]
        del arguments[at:at + 2]
    frozen = "--frozen-bare" in arguments
    if frozen:
        arguments.remove("--frozen-bare")
    changes = int(arguments[0]) if arguments else default_changes
    return changes, set(arguments[1:]), against, frozen
