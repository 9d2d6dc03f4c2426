"""Drag a live control and time each redraw, in headless Chromium: input event to the chart's next paint.

For every page with a live chart, the slider is moved two ways: with the arrow keys (one press every
60 ms, as a held key or a presenter's clicker) and with the pointer (pressed on the thumb and moved
across the track in small steps, about 60 moves a second). The page's own script records, for each
``input`` event, the time from the event to two animation frames after the redraw (the frame that
showed it). Prints the median, 95th percentile and count per page and way, the frame rate while the
pointer moved, and whether the link followed when the movement ended. Target: median at most 50 ms.

Run from the repository root: ``.venv/bin/python benchmarks/drag.py`` (all pages), or name some:
``.venv/bin/python benchmarks/drag.py Reach "Across sites"``.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_bench import chromium, open_and_watch, server  # noqa: E402

TARGET_MS = 50.0
KEY_PRESSES = 20
POINTER_MOVES = 60



def _number(shown: str) -> str:
    """The link's value for a slider label that starts with a count: '8,192 tokens' -> '8192'."""
    return shown.split()[0].replace(",", "")


#: (page name, deep link, the URL key the live slider writes, the link's value for the slider's label)
PAGES = [
    ("Bandwidth cliff", "/Bandwidth_cliff?nics=8", "nics", _number),
    ("All-reduce", "/All_reduce?nodes=4", "nodes", _number),
    ("Overlap", "/Overlap?nodes=4&tokens=4096", "tokens", _number),
    ("Across sites", "/Across_sites?bw=10+Gbit/s", "bw", str),
    ("Seating chart", "/Seating_chart?nodes=8", "nodes", _number),
    ("Reach", "/Reach?d=11+m", "d", lambda shown: shown.split(" · ")[0]),  # '20 m · along a row of racks' -> '20 m'
]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _samples(page) -> list[float]:
    return list(page.evaluate("() => window.__liveChartLatencyMs || []"))


def _reset(page) -> None:
    page.evaluate("() => { window.__liveChartLatencyMs = []; }")


def drag_page(context, srv, path: str, url_key: str, link_value: Callable[[str], str]) -> dict:
    page = context.new_page()
    open_and_watch(page, srv, path, 0)
    slider = page.locator(".live-chart input[type=range]").first
    slider.wait_for(state="visible", timeout=60_000)
    time.sleep(1.0)
    result = {}

    _reset(page)
    slider.focus()
    for i in range(KEY_PRESSES):
        page.keyboard.press("ArrowRight" if (i // 5) % 2 == 0 else "ArrowLeft")
        time.sleep(0.06)
    time.sleep(0.3)
    result["keys"] = _samples(page)

    time.sleep(2.0)  # the last key's value reaches the server; let that rerun settle
    _reset(page)
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    page.evaluate("""() => { window.__frames = 0; const tick = () => { window.__frames += 1;
                     if (window.__counting) requestAnimationFrame(tick); }; window.__counting = true;
                     requestAnimationFrame(tick); }""")
    started = time.perf_counter()
    page.mouse.move(box["x"] + 4, y)
    page.mouse.down()
    for step in range(POINTER_MOVES):
        page.mouse.move(box["x"] + 4 + (box["width"] - 8) * (step + 1) / POINTER_MOVES, y)
        time.sleep(1 / 60)
    page.mouse.up()
    elapsed = time.perf_counter() - started
    frames = page.evaluate("() => { window.__counting = false; return window.__frames; }")
    result["pointer"] = _samples(page)
    result["fps"] = frames / elapsed
    shown = page.locator(".live-value").first.inner_text()
    wanted = link_value(shown)
    deadline, value = time.time() + 20, ""
    while time.time() < deadline:
        query = parse_qs(page.evaluate("() => location.search").lstrip("?"))
        value = query.get(url_key, [""])[-1]
        if value == wanted:
            break
        time.sleep(0.2)
    result["link"] = (f"link {url_key}={value} {time.time() - deadline + 20:.1f} s after release"
                      f" (slider shows {shown})")
    page.close()
    return result


def main() -> None:
    print(f"{'page':<16} {'way':<8} {'median':>7} {'p95':>6} {'n':>4}  (ms, input event to next paint; target "
          f"{TARGET_MS:.0f} ms)")
    failures = []
    only = set(sys.argv[1:])
    unknown = only - {name for name, *_ in PAGES}
    if unknown:
        sys.exit(f"no live chart on {', '.join(sorted(unknown))}; pages: {', '.join(name for name, *_ in PAGES)}")
    with server() as srv, chromium() as context:
        for name, path, key, link_value in PAGES:
            if only and name not in only:
                continue
            result = drag_page(context, srv, path, key, link_value)
            for way in ("keys", "pointer"):
                samples = result[way]
                if not samples:
                    failures.append(f"{name} {way}: no redraw recorded")
                    continue
                median = statistics.median(samples)
                print(f"{name:<16} {way:<8} {median:>7.1f} {_percentile(samples, 0.95):>6.1f} {len(samples):>4}")
                if median > TARGET_MS:
                    failures.append(f"{name} {way}: median {median:.1f} ms")
            print(f"{name:<16} frames while the pointer moved: {result['fps']:.0f} per second; {result['link']}")
    print("all within target" if not failures else "over target: " + "; ".join(failures))


if __name__ == "__main__":
    main()
