"""Cold navigation: from opening a deep link in a new browser session to the page's first chart drawn.

The first chart is whichever kind the page draws first: a Plotly chart's SVG, or a live chart
(``interconnect.ui.live``) with its curves drawn. Each topic page is opened with a deep link that sets
a few of its values (no ``view``: the page shows what a shared link shows).

Against a bare one-chart Streamlit page served on the same machine in the same run, so the ratio
says what the app adds to Streamlit's own start-up (target: within 1.2x). Each visit is a new
browser context, so a new Streamlit session; the servers are warmed by one visit first. The visits
go in rounds (the bare page, then each page), so a shared machine's changing load reaches both sides.

Run from the repository root: ``.venv/bin/python benchmarks/first_chart.py [visits] [page name ...]``
(names as printed, e.g. ``Overlap "Across sites"``; all pages by default).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_bench import ROOT, chromium, server  # noqa: E402
from browser_helpers import FIRST_CHART  # noqa: E402
from playwright.sync_api import Error as PlaywrightError  # noqa: E402

VISITS = 5
TARGET_RATIO = 1.2
PAGES = [("Home", "/", "app.py"),
         ("Bandwidth cliff", "/Bandwidth_cliff?gpu=b200&nics=8", "pages/1_Bandwidth_cliff.py"),
         ("All-reduce", "/All_reduce?gpu=b200&nodes=8&size=1+GiB", "pages/2_All_reduce.py"),
         ("Overlap", "/Overlap?gpu=b200&nodes=8&tokens=32768", "pages/3_Overlap.py"),
         ("Seating chart", "/Seating_chart?gpu=b200&nodes=8", "pages/4_Seating_chart.py"),
         ("Reach", "/Reach?d=100+m", "pages/5_Reach.py"),
         ("Across sites", "/Across_sites?gpu=b200&bw=100+Gbit/s", "pages/6_Across_sites.py"),
         ("Fabric", "/Fabric?gpus=4096", "pages/10_Fabric.py")]


#: Visits whose page drew no chart within a minute, by page name (left out of the medians, reported).
NEVER_DREW: dict[str, int] = {}


def first_chart_ms(browser, base_url: str, path: str, name: str = "") -> float | None:
    """Milliseconds to the first chart drawn, or None (counted in NEVER_DREW) if none came within 60 s."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    started = time.perf_counter()
    try:
        page.goto(base_url + path, wait_until="commit", timeout=60_000)
        page.locator(FIRST_CHART).first.wait_for(state="visible", timeout=60_000)
        return (time.perf_counter() - started) * 1000
    except PlaywrightError:
        NEVER_DREW[name or path] = NEVER_DREW.get(name or path, 0) + 1
        return None
    finally:
        context.close()


def drawn(times: list[float | None]) -> list[float]:
    return [t for t in times if t is not None]


def main() -> None:
    visits = int(sys.argv[1]) if len(sys.argv) > 1 else VISITS
    only = set(sys.argv[2:])
    with chromium() as context:
        browser = context.browser
        with server(bare=True) as bare, server() as app:
            pages = [(name, path) for name, path, script in PAGES
                     if (ROOT / script).is_file() and (not only or name in only)]
            first_chart_ms(browser, bare.base_url, "/")
            for _, path in pages:  # warm: each page's first run on this server
                first_chart_ms(browser, app.base_url, path)
            # Rounds: the bare page, then every page, so a change in the machine's load reaches both sides.
            bare_runs: list[float | None] = []
            runs: dict[str, list[float | None]] = {name: [] for name, _ in pages}
            for _ in range(visits):
                bare_runs.append(first_chart_ms(browser, bare.base_url, "/", "bare page"))
                for name, path in pages:
                    runs[name].append(first_chart_ms(browser, app.base_url, path, name))
            bare_times = drawn(bare_runs)
            rows = [(name, drawn(times)) for name, times in runs.items()]
    bare_ms = statistics.median(bare_times)
    print(f"new session -> first chart drawn, headless Chromium, {visits} visits each (target within {TARGET_RATIO}x)")
    print(f"{'page':<16} {'median ms':>9} {'ratio':>6}")
    print(f"{'bare page':<16} {bare_ms:>9.0f} {1:>6.2f}")
    for name, times in rows:
        if times:
            print(f"{name:<16} {statistics.median(times):>9.0f} {statistics.median(times) / bare_ms:>6.2f}")
    for name, count in NEVER_DREW.items():
        print(f"{name}: {count} visit(s) drew no chart within 60 s (left out above)")


if __name__ == "__main__":
    main()
