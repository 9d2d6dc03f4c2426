"""Many visitors at once: real browser sessions with different links, each changing its own controls.

Opens SESSIONS headless-Chromium sessions against one server, each on a different All-reduce or
Bandwidth-cliff link, changes a number control in every session ROUNDS times, and checks after each
change that the session's address bar and control show its own value (no session sees another's
state). Prints sessions, interactions, p50/p95 change-to-redraw time and the server's resident
memory before, at its peak and after the sessions close.

Run from the repository root: ``.venv/bin/python benchmarks/load.py [sessions] [rounds]``.

``benchmarks/load.py victim [changes]`` measures what one visitor's many sessions cost another: a
victim session changes its node count on the All-reduce page ``changes`` times (default 8) alone,
then beside one hostile session, then beside four. Each hostile session is its own process driving
its own Chromium page, uploading a fresh 2 MB nccl-tests log (a new one every time, so no cache
helps) to the All-reduce page as fast as the page takes them. Prints the victim's median and worst
change-to-redraw time in each case, and how many logs the hostiles got parsed meanwhile. Bounded:
the hostiles stop when the measurement does (about two minutes in all on two cores).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
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


def hostile(base_url: str, seconds: float, counter: Path) -> None:
    """One hostile session (a process of its own): upload a new large log to the All-reduce page, again and again."""
    from parse_speed import build_log

    log = build_log(18_000).encode()  # about 2 MB, under the parser's row limit: read in full every time
    uploads = 0
    with chromium(1280, 720) as context:
        page = context.new_page()
        open_and_watch(page, _Url(base_url), "/All_reduce?gpu=h100-sxm&nodes=2", 0)
        wait_for_first_chart(page)
        uploader = page.locator("[data-testid=stFileUploaderDropzoneInput]").first
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            body = log + f"\n# hostile upload {time.time_ns()}\n".encode()  # new bytes: a cache miss each time
            try:
                timed_change(page, lambda body=body: uploader.set_input_files(
                    files=[{"name": "all_reduce.log", "mimeType": "text/plain", "buffer": body}]))
            except Exception:  # noqa: BLE001 - a slow or missed round is still load
                pass
            uploads += 1
            counter.write_text(str(uploads))


class _Url:
    """What open_and_watch needs of a server: its address (the hostile processes share the victim's server)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.pages_opened = 0

    def log_tail(self, chars: int = 0) -> str:
        return ""


def victim(changes: int) -> None:
    """The victim's change time alone, beside one hostile session and beside four."""
    import tempfile

    results = []
    with server() as app, chromium(1280, 720) as context:
        page = context.new_page()
        open_and_watch(page, app, "/All_reduce?gpu=h100-sxm&nodes=2", 0)
        wait_for_first_chart(page)
        value = 2
        for hostiles in (0, 1, 4):
            folder = Path(tempfile.mkdtemp())
            processes = [subprocess.Popen([sys.executable, __file__, "hostile", app.base_url, "600",
                                           str(folder / f"h{i}.count")], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL) for i in range(hostiles)]
            try:
                if hostiles:
                    time.sleep(20)  # the hostile pages load and start uploading
                timings = []
                for _ in range(changes):
                    value = 3 if value == 2 else 2
                    timings.append(timed_change(page, number_changer(page, "allreduce.nodes", value),
                                                shown=url_shows("nodes", value)))
                uploads = sum(int(p.read_text() or 0) for p in folder.glob("*.count"))
            finally:
                for process in processes:
                    process.terminate()
                for process in processes:
                    try:
                        process.wait(timeout=20)
                    except subprocess.TimeoutExpired:
                        process.kill()
                        process.wait()
            results.append((hostiles, statistics.median(timings), max(timings), uploads))
    print(f"victim: {changes} node-count changes on /All_reduce, change -> redraw")
    for hostiles, median, worst, uploads in results:
        beside = "alone" if not hostiles else f"beside {hostiles} hostile session{'s' if hostiles > 1 else ''}"
        extra = f"; 2 MB logs parsed meanwhile: {uploads}" if hostiles else ""
        print(f"  {beside:<30} median {median:6.0f} ms, worst {worst:6.0f} ms{extra}")


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
    if sys.argv[1:2] == ["victim"]:
        victim(int(sys.argv[2]) if len(sys.argv) > 2 else 8)
    elif sys.argv[1:2] == ["hostile"]:
        hostile(sys.argv[2], float(sys.argv[3]), Path(sys.argv[4]))
    else:
        main()
