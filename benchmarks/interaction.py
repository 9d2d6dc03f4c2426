"""Time from a control change to the page redrawn, in headless Chromium, against a bare Streamlit page.

Starts the app and a bare page (one number input, one 100-point chart) on loopback, drives one
typical number control per page (alternating two values, CHANGES times), and measures from the
change to Streamlit's script state ``notRunning`` plus two animation frames. Prints each page's
median, min and max and its ratio to the bare page measured in the same run (target: within 1.3x).
The same bare page redrawing four charts is measured too: it is what Streamlit itself needs when
one control changes four figures, as on the All-reduce and Overlap pages.

Run from the repository root: ``.venv/bin/python benchmarks/interaction.py [changes] [page name ...]``
(names as printed, e.g. ``Overlap "Across sites"``; all pages by default).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_bench import ROOT, chromium, open_and_watch, server, timed_change  # noqa: E402
from browser_helpers import wait_for_first_chart  # noqa: E402
from playwright.sync_api import Error as PlaywrightError  # noqa: E402

CHANGES = 9
TARGET_RATIO = 1.3
#: The same bare page redrawing this many charts on each change: Streamlit's own cost of a control
#: that changes four figures (the All-reduce and Overlap pages), for reading their ratios.
FLOOR_CHARTS = 4
#: Changes the page never answered (the browser dropped the keystroke), by URL path.
DROPPED: dict[str, int] = {}

#: (page name, URL path, widget key of a number input, two values to alternate, Plotly charts on first load).
#: The live-chart pages draw no Plotly chart at their default view (view=auto); each change redraws the
#: live chart, so the bare one-chart page is the one to compare with.
PAGES = [
    ("Bandwidth cliff", "/Bandwidth_cliff", "cliff.nics", (4, 8), 0),
    ("All-reduce", "/All_reduce", "allreduce.nodes", (8, 4), 0),
    ("Overlap", "/Overlap", "overlap.nodes", (8, 4), 0),
    ("Seating chart", "/Seating_chart", "seating.nodes", (4, 2), 1),
    ("Reach", "/Reach", "reach.size", None, 1),
    ("Across sites", "/Across_sites", "crossdc.sites", (3, 2), 0),
]
PAGE_FILES = {"/Bandwidth_cliff": "1_Bandwidth_cliff.py", "/All_reduce": "2_All_reduce.py", "/Overlap": "3_Overlap.py",
              "/Seating_chart": "4_Seating_chart.py", "/Reach": "5_Reach.py", "/Across_sites": "6_Across_sites.py"}


def number_changer(page, key: str, value: int):
    selector = ".st-key-" + key.replace(".", "-") + " input"

    def change() -> None:
        field = page.locator(selector).first
        field.fill(str(value))
        field.press("Enter")
    return change


def measure(srv, context, path: str, key: str, values: tuple[int, int], charts: int, changes: int) -> list[float]:
    """Change-to-redraw times of ``changes`` changes (after one warm-up); a change the page never
    answered is left out and counted in ``DROPPED``."""
    page = context.new_page()
    open_and_watch(page, srv, path, charts)
    wait_for_first_chart(page)
    page.locator(".st-key-" + key.replace(".", "-") + " input").first.wait_for(state="visible", timeout=30_000)
    timings = []
    for i in range(changes + 1):
        try:
            timings.append(timed_change(page, number_changer(page, key, values[i % 2])))
        except PlaywrightError:
            DROPPED[path] = DROPPED.get(path, 0) + 1
    page.close()
    return timings[1:]  # the first change warms caches of the new value


def line(name: str, timings: list[float], bare_ms: float | None) -> str:
    median = statistics.median(timings)
    ratio = f"{median / bare_ms:.2f}x" if bare_ms else "1.00x"
    return f"{name:<16} {median:>8.0f} {min(timings):>6.0f} {max(timings):>6.0f} {ratio:>7}"


def main() -> None:
    changes = int(sys.argv[1]) if len(sys.argv) > 1 else CHANGES
    only = set(sys.argv[2:])
    rows, failures = [], []
    with chromium() as context:
        with server(bare=True) as bare:
            bare_timings = measure(bare, context, "/", "bare.n", (200, 100), 1, changes)
        with server(bare=True, charts=FLOOR_CHARTS) as bare:
            floor_timings = measure(bare, context, "/", "bare.n", (200, 100), FLOOR_CHARTS, changes)
        bare_ms = statistics.median(bare_timings)
        with server() as app:
            for name, path, key, values, charts in PAGES:
                if values is None or not (ROOT / "pages" / PAGE_FILES[path]).is_file() or (only and name not in only):
                    continue
                try:
                    rows.append((name, measure(app, context, path, key, values, charts, changes)))
                except (AssertionError, PlaywrightError) as exc:  # one page's failure must not hide the others
                    failures.append((name, str(exc).splitlines()[0][:200]))
    print(f"control change -> page idle + 2 frames, headless Chromium, {changes} changes each "
          f"(target: within {TARGET_RATIO}x of the bare page)")
    print(f"{'page':<16} {'median ms':>8} {'min':>6} {'max':>6} {'ratio':>7}")
    print(line("bare page", bare_timings, None))
    print(line(f"bare, {FLOOR_CHARTS} charts", floor_timings, bare_ms))
    for name, timings in rows:
        print(line(name, timings, bare_ms))
    for name, reason in failures:
        print(f"{name:<16} FAILED: {reason}")
    if DROPPED:
        print("changes left out (no script run started, even when made twice): "
              + ", ".join(f"{path} {count}" for path, count in DROPPED.items()))


if __name__ == "__main__":
    main()
