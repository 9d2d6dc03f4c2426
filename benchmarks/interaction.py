"""Time from a control change to the page redrawn, in headless Chromium, against a bare Streamlit page.

Starts the app and a bare page (one number input, one 100-point chart) on loopback, drives one
typical number control per page (alternating two values, CHANGES times), and measures from the
change to Streamlit's script state ``notRunning`` plus two animation frames. Each change of a page
comes right after a change of the bare page (open in another tab), so a shared machine's changing
load reaches both alike; prints each page's median, min and max and its ratio to the bare page's
changes made alongside it (target: within 1.3x).
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


class Watched:
    """One open page whose number input is changed back and forth, each change timed."""

    def __init__(self, srv, context, path: str, key: str, values: tuple[int, int], charts: int) -> None:
        self.path, self.key, self.values, self.count = path, key, values, 0
        self.page = context.new_page()
        open_and_watch(self.page, srv, path, charts)
        wait_for_first_chart(self.page)
        self.page.locator(".st-key-" + key.replace(".", "-") + " input").first.wait_for(state="visible",
                                                                                        timeout=30_000)

    def change(self) -> float | None:
        """One timed change; None (counted in ``DROPPED``) if the page never answered it."""
        self.count += 1
        self.page.bring_to_front()  # the tab in front, as a visitor's would be
        field = self.page.locator(".st-key-" + self.key.replace(".", "-") + " input").first
        # The other of the two values from what the field holds: a change that landed late is not typed again.
        value = self.values[1] if field.input_value().strip() == str(self.values[0]) else self.values[0]
        try:
            return timed_change(self.page, number_changer(self.page, self.key, value))
        except PlaywrightError:
            DROPPED[self.path] = DROPPED.get(self.path, 0) + 1
            return None


def measure(page: Watched, bare: Watched, changes: int) -> tuple[list[float], list[float]]:
    """``changes`` timed changes of ``page``, each right after one of ``bare`` (so a shared machine's
    changing load reaches both alike), after one warm-up change of each: (page's, bare's) timings."""
    page.change(), bare.change()  # the first change warms caches of the new value
    ours, theirs = [], []
    for _ in range(changes):
        theirs.append(bare.change())
        ours.append(page.change())
    return [t for t in ours if t is not None], [t for t in theirs if t is not None]


def line(name: str, timings: list[float], bare_ms: float | None) -> str:
    median = statistics.median(timings)
    ratio = f"{median / bare_ms:.2f}x" if bare_ms else "1.00x"
    return f"{name:<16} {median:>8.0f} {min(timings):>6.0f} {max(timings):>6.0f} {ratio:>7}"


def main() -> None:
    changes = int(sys.argv[1]) if len(sys.argv) > 1 else CHANGES
    only = set(sys.argv[2:])
    rows, failures = [], []
    with chromium() as context:
        with server(bare=True) as bare_srv, server(bare=True, charts=FLOOR_CHARTS) as floor_srv, server() as app:
            bare = Watched(bare_srv, context, "/", "bare.n", (200, 100), 1)
            floor = Watched(floor_srv, context, "/", "bare.n", (200, 100), FLOOR_CHARTS)
            floor_timings, bare_timings = measure(floor, bare, changes)
            floor.page.close()
            for name, path, key, values, charts in PAGES:
                if values is None or not (ROOT / "pages" / PAGE_FILES[path]).is_file() or (only and name not in only):
                    continue
                try:
                    watched = Watched(app, context, path, key, values, charts)
                    ours, theirs = measure(watched, bare, changes)
                    watched.page.close()
                    rows.append((name, ours, theirs))
                    bare_timings += theirs
                except (AssertionError, PlaywrightError) as exc:  # one page's failure must not hide the others
                    failures.append((name, str(exc).splitlines()[0][:200]))
    print(f"control change -> page idle + 2 frames, headless Chromium, {changes} changes each, each right after a "
          f"change of the bare one-chart page (target: within {TARGET_RATIO}x of the bare page)")
    print(f"{'page':<16} {'median ms':>8} {'min':>6} {'max':>6} {'ratio':>7}  (bare page alongside: median ms)")
    print(line("bare page", bare_timings, None) + "  (all its changes)")
    print(line(f"bare, {FLOOR_CHARTS} charts", floor_timings, statistics.median(bare_timings[:changes]))
          + f"  ({statistics.median(bare_timings[:changes]):.0f})")
    for name, ours, theirs in rows:
        print(line(name, ours, statistics.median(theirs)) + f"  ({statistics.median(theirs):.0f})")
    for name, reason in failures:
        print(f"{name:<16} FAILED: {reason}")
    if DROPPED:
        print("changes left out (no script run started, even when made twice): "
              + ", ".join(f"{path} {count}" for path, count in DROPPED.items()))


if __name__ == "__main__":
    main()
