"""Every page at every width a visitor has, measured in a real browser.

Each page (the list of :mod:`interconnect.site`) is opened once, in a window of 800 x 900 (a laptop's
split screen or a tablet, with Streamlit's sidebar open), then the window is resized to 1280 x 720
(the usual projector), 1440 x 900 and 1920 x 1080. Presentation mode at 1920 x 1080 is then measured
with the sidebar's toggle (a script run) on the pages off the guided tour; the pages on the tour are
measured in presentation mode as the tour shows them, step by step, by ``test_tour_presentation``'s walk
at 1920 x 1080 (one walk of the tour for both). What is measured at each size is
:mod:`layout_checks`'s.

No page is loaded twice and no size gets a new page.
"""

from __future__ import annotations

import time

import pytest
from browser_helpers import (
    FIRST_RENDER_TIMEOUT_MS,
    assert_healthy,
    open_cold,
    open_page,
    wait_settled,
    widget,
)
from layout_checks import WIDTHS, measure, present

from interconnect.site import HOME, TOPICS
from interconnect.ui.talk import tour_steps

pytestmark = pytest.mark.browser


def _path(script: str) -> str:
    return "/" if script == "app.py" else "/" + script.removeprefix("pages/").removesuffix(".py").split("_", 1)[1]


def test_every_page_reads_at_every_width(cold_server, new_page):
    problems: list[str] = []
    started = time.monotonic()
    toured = {step.page for step in tour_steps()}
    page = new_page(*WIDTHS[0][:2])
    for number, topic in enumerate((HOME, *TOPICS)):
        (open_cold if number == 0 else open_page)(page, cold_server, _path(topic.script))
        assert_healthy(page, cold_server)
        for width, height, min_text in WIDTHS:
            page.set_viewport_size({"width": width, "height": height})
            problems += measure(page, f"{topic.name} {width}x{height}", min_text)
        if topic.name in toured:
            continue  # presented as its tour step shows it (test_tour_presentation, 1920 x 1080)
        # Presentation mode at 1920 x 1080: the sidebar's toggle (a script run on the open page).
        widget(page, "talk.present_toggle").locator("label").first.click()
        page.wait_for_function("() => new URLSearchParams(location.search).get('present') === '1'",
                               timeout=FIRST_RENDER_TIMEOUT_MS)
        wait_settled(page, FIRST_RENDER_TIMEOUT_MS)
        assert_healthy(page, cold_server)
        problems += present(page, f"{topic.name} 1920x1080 presentation")
    elapsed = time.monotonic() - started
    assert not problems, f"{len(problems)} problems (walk took {elapsed:.0f} s):\n" + "\n".join(problems)


@pytest.mark.parametrize("name", ["nccl-1453-nvls-heads-ibext-v8-srun.log",
                                  # its "Look here first" list: long sentences naming nodes, ahead of the findings
                                  "synthetic/per-node-links.log"])
def test_explain_with_a_log_reads_at_every_width(cold_server, new_page, name):
    """The Explain page draws its node, its fabric and its findings only once a log is given: measured with one."""
    from pathlib import Path

    log = Path(__file__).resolve().parents[1] / "data" / "nccl_debug_logs" / name
    explain = next(topic for topic in TOPICS if topic.name == "explain")
    page = new_page(*WIDTHS[0][:2])
    open_cold(page, cold_server, _path(explain.script))
    page.set_input_files("input[type=file]", str(log))
    page.wait_for_selector(".js-plotly-plot", timeout=FIRST_RENDER_TIMEOUT_MS)
    wait_settled(page, FIRST_RENDER_TIMEOUT_MS)
    assert_healthy(page, cold_server)
    problems: list[str] = []
    for width, height, min_text in WIDTHS:
        page.set_viewport_size({"width": width, "height": height})
        problems += measure(page, f"explain with a log {width}x{height}", min_text)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)
