"""Cold navigation: from opening a page in a new browser session to its first chart drawn.

Against a bare one-chart Streamlit page served on the same machine in the same run, so the ratio
says what the app adds to Streamlit's own start-up (target: within 1.2x). Each visit is a new
browser context, so a new Streamlit session; the servers are warmed by one visit first.

Run from the repository root: ``.venv/bin/python benchmarks/first_chart.py [visits]``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_bench import ROOT, chromium, server  # noqa: E402
from browser_helpers import CHART_SVG  # noqa: E402

VISITS = 5
TARGET_RATIO = 1.2
PAGES = [("Home", "/", "app.py"), ("Bandwidth cliff", "/Bandwidth_cliff", "pages/1_Bandwidth_cliff.py"),
         ("All-reduce", "/All_reduce", "pages/2_All_reduce.py"), ("Overlap", "/Overlap", "pages/3_Overlap.py"),
         ("Seating chart", "/Seating_chart", "pages/4_Seating_chart.py"), ("Reach", "/Reach", "pages/5_Reach.py"),
         ("Across sites", "/Across_sites", "pages/6_Across_sites.py")]


def first_chart_ms(browser, base_url: str, path: str) -> float:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    started = time.perf_counter()
    page.goto(base_url + path, wait_until="commit", timeout=60_000)
    page.locator(CHART_SVG).first.wait_for(state="visible", timeout=60_000)
    elapsed = (time.perf_counter() - started) * 1000
    context.close()
    return elapsed


def main() -> None:
    visits = int(sys.argv[1]) if len(sys.argv) > 1 else VISITS
    rows = []
    with chromium() as context:
        browser = context.browser
        with server(bare=True) as bare, server() as app:
            first_chart_ms(browser, bare.base_url, "/")
            bare_times = [first_chart_ms(browser, bare.base_url, "/") for _ in range(visits)]
            for name, path, script in PAGES:
                if not (ROOT / script).is_file():
                    continue
                first_chart_ms(browser, app.base_url, path)
                rows.append((name, [first_chart_ms(browser, app.base_url, path) for _ in range(visits)]))
    bare_ms = statistics.median(bare_times)
    print(f"new session -> first chart drawn, headless Chromium, {visits} visits each (target within {TARGET_RATIO}x)")
    print(f"{'page':<16} {'median ms':>9} {'ratio':>6}")
    print(f"{'bare page':<16} {bare_ms:>9.0f} {1:>6.2f}")
    for name, times in rows:
        print(f"{name:<16} {statistics.median(times):>9.0f} {statistics.median(times) / bare_ms:>6.2f}")


if __name__ == "__main__":
    main()
