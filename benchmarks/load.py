"""Many visitors at once: real browser sessions with different links, each changing its own controls.

Opens SESSIONS headless-Chromium sessions against one server, each on a different All-reduce or
Bandwidth-cliff link, changes a number control in every session ROUNDS times, and checks after each
change that the session's address bar and control show its own value (no session sees another's
state). Prints sessions, interactions, p50/p95 change-to-redraw time and the server's resident
memory before, at its peak and after the sessions close.

Run from the repository root: ``.venv/bin/python benchmarks/load.py [sessions] [rounds]``.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_bench import chromium, open_and_watch, server, timed_change  # noqa: E402
from browser_helpers import number_changer, url_shows, wait_for_first_chart  # noqa: E402

SESSIONS = 10
ROUNDS = 4
GPUS = ["h100-sxm", "b200", "a100-sxm", "h200", "mi300x", "gb200", "v100", "gaudi3"]


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    sessions = int(sys.argv[1]) if len(sys.argv) > 1 else SESSIONS
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else ROUNDS
    timings: list[float] = []
    leaks: list[str] = []
    page_errors: list[str] = []  # uncaught errors in Streamlit's front end, any session
    with server() as app, chromium() as first_context:
        browser = first_context.browser
        before = peak = rss_mib(app.process.pid)
        visitors = []
        for i in range(sessions):
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            page = context.new_page()
            page.on("pageerror", lambda error: page_errors.append(str(error)))
            if i % 2 == 0:
                path, key, url_key, base = "/All_reduce", "allreduce.nodes", "nodes", 2 + i
                query = f"?gpu={GPUS[i % len(GPUS)]}&nodes={base}"
            else:
                path, key, url_key, base = "/Bandwidth_cliff", "cliff.nics", "nics", 2 + i
                query = f"?gpu={GPUS[i % len(GPUS)]}&nics={base}"
            open_and_watch(page, app, path + query, 0)
            wait_for_first_chart(page)  # the live chart: these links draw no Plotly chart (view=auto)
            visitors.append((page, key, url_key, base, GPUS[i % len(GPUS)]))
            peak = max(peak, rss_mib(app.process.pid))
        for round_number in range(rounds):
            for index, (page, key, url_key, base, gpu) in enumerate(visitors):
                value = base + round_number + 1  # distinct per round, inside every control's range
                timings.append(timed_change(page, number_changer(page, key, value), shown=url_shows(url_key, value)))
                query = {k: v[-1] for k, v in parse_qs(urlsplit(page.url).query).items()}
                if query.get(url_key) != str(value) or query.get("gpu") != gpu:
                    leaks.append(f"session {index}: expected {url_key}={value}, gpu={gpu}; URL has {query}")
                peak = max(peak, rss_mib(app.process.pid))
        for page, *_ in visitors:
            page.context.close()
        after = rss_mib(app.process.pid)
    timings.sort()
    p95 = timings[min(len(timings) - 1, int(round(0.95 * len(timings))) - 1)]
    print(f"sessions: {sessions}; interactions: {len(timings)}; sessions that saw another's state: {len(leaks)}")
    print(f"change -> redraw: p50 {statistics.median(timings):.0f} ms, p95 {p95:.0f} ms")
    print(f"server memory (RSS): before {before:.0f} MiB, peak {peak:.0f} MiB, after {after:.0f} MiB")
    print(f"uncaught errors in the browser: {len(page_errors)}")
    for problem in [*leaks[:5], *page_errors[:5]]:
        print("  " + problem)


if __name__ == "__main__":
    main()
