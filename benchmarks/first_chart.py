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
from playwright.sync_api import Error as PlaywrightError  # noqa: E402

VISITS = 5
TARGET_RATIO = 1.2
PAGES = [("Home", "/", "app.py"), ("Bandwidth cliff", "/Bandwidth_cliff", "pages/1_Bandwidth_cliff.py"),
         ("All-reduce", "/All_reduce", "pages/2_All_reduce.py"), ("Overlap", "/Overlap", "pages/3_Overlap.py"),
         ("Seating chart", "/Seating_chart", "pages/4_Seating_chart.py"), ("Reach", "/Reach", "pages/5_Reach.py"),
         ("Across sites", "/Across_sites", "pages/6_Across_sites.py")]


#: Visits whose page drew no chart within a minute, by page name (left out of the medians, reported).
NEVER_DREW: dict[str, int] = {}


def first_chart_ms(browser, base_url: str, path: str, name: str = "") -> float | None:
    """Milliseconds to the first chart drawn, or None (counted in NEVER_DREW) if none came within 60 s."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    started = time.perf_counter()
    try:
        page.goto(base_url + path, wait_until="commit", timeout=60_000)
        page.locator(CHART_SVG).first.wait_for(state="visible", timeout=60_000)
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
    rows = []
    with chromium() as context:
        browser = context.browser
        with server(bare=True) as bare, server() as app:
            first_chart_ms(browser, bare.base_url, "/")
            bare_times = drawn([first_chart_ms(browser, bare.base_url, "/", "bare page") for _ in range(visits)])
            for name, path, script in PAGES:
                if not (ROOT / script).is_file():
                    continue
                first_chart_ms(browser, app.base_url, path)
                rows.append((name, drawn([first_chart_ms(browser, app.base_url, path, name) for _ in range(visits)])))
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
