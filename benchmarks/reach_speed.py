"""Speed of the Reach page: warm reruns, its core, and what a distance change sends in a real browser.

Prints (asserts nothing; performance is measured here, never in the tests):

1. **Warm rerun in AppTest** (as ``page_speed.py`` times every page): the Reach page, alternating a
   distance typed into the box (between two slider stops, then always a new stop) with plain reruns; median,
   p90 and p95 against the 60 ms budget, and the median CPU time, which a busy shared machine
   barely changes. The Bandwidth cliff page is timed the same way in the same run, so a busy
   machine shows up in both numbers. AppTest always reruns the whole script.
2. **The core**: reading a distance, the links that reach, the two-site all-reduce on 64
   distances, and each figure built from scratch (the page caches them by their inputs).
3. **In Chromium against a real server** (skipped without Chromium): what a distance change
   reruns and sends. The page's sections are fragments, so typing a distance should rerun only
   them: the script's end message says whether a run was a fragment run, and the number of
   element messages sent is counted against a full run. Also the time from the change to the
   page idle (script state ``notRunning`` plus two animation frames), median of at least 7.

Run from the repository root: ``.venv/bin/python benchmarks/reach_speed.py [runs]``.
"""

from __future__ import annotations

import logging
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RUNS = 30
BUDGET_MS = 60.0
STOPS = ("11 m", "2 km")  # two of the slider's stops, typed: the episode's 11 m and a campus
TYPED = ("40 km", "11 m")


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (p90 of 30 runs is the 27th fastest)."""
    ranked = sorted(values)
    return ranked[max(0, min(len(ranked) - 1, round(fraction * len(ranked)) - 1))]


def apptest_reruns(page: str, widget: tuple[str, str, tuple] | None, runs: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU milliseconds of ``runs`` warm reruns (CPU time barely moves when other
    processes share the machine, so it says what the page itself costs)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page(page)
    at.run()
    if at.exception:
        raise SystemExit(f"{page} raised: {at.exception[0].value}")
    timings, cpu = [], []
    for run in range(runs):
        if widget and run % 2 == 0:
            accessor, key, values = widget
            getattr(at, accessor)(key=key).set_value(values[(run // 2 + 1) % len(values)])
        start, start_cpu = time.perf_counter(), time.process_time()
        at.run()
        timings.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        if at.exception:
            raise SystemExit(f"{page} rerun {run} raised: {at.exception[0].value}")
    return timings, cpu


def summary(name: str, measured: tuple[list[float], list[float]], budget: float | None = None) -> str:
    timings, cpu = measured
    target = f"; budget < {budget:g} ms" if budget else ""
    return (f"{name}: median {statistics.median(timings):.0f} ms, p90 {percentile(timings, 0.9):.0f} ms, "
            f"p95 {percentile(timings, 0.95):.0f} ms; CPU median {statistics.median(cpu):.0f} ms "
            f"({len(timings)} runs{target})")


def core_speed() -> list[str]:
    import numpy as np

    from interconnect.catalog import get_catalog
    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.topics.reach.figures import leash_figure, timeout_figure, training_figure
    from interconnect.topics.reach.model import (
        PROPAGATION,
        TIMEOUTS,
        media_with_reach,
        read_distance,
        two_site_allreduce,
    )

    catalog = get_catalog()
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    distances = np.geomspace(0.1, 2e7, 64)
    media = media_with_reach(catalog.links.values(), catalog)
    result = two_site_allreduce(cluster, 2**30, distances, sync_every=100)
    timeouts = [PROPAGATION[key] for key in ("fibre", "copper-cable", "vacuum")]
    leash_figure(media, 11.0)  # warm-up: Plotly's first figure loads its templates

    def median_ms(call, repeats: int = 20) -> float:
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            call()
            samples.append((time.perf_counter() - start) * 1000)
        return statistics.median(samples)

    rows = [
        ("read a typed distance ('2 light-seconds')", lambda: read_distance("2 light-seconds")),
        (f"links with a reach ({len(media)} of {len(catalog.links)})",
         lambda: media_with_reach(catalog.links.values(), catalog)),
        ("two-site all-reduce, 64 distances, 32 GPUs", lambda: two_site_allreduce(cluster, 2**30, distances)),
        ("leash figure", lambda: leash_figure(media, 11.0)),
        ("timeout figure (drawn once per process)", lambda: timeout_figure(None, timeouts, TIMEOUTS)),
        ("training figure", lambda: training_figure(result, 11.0)),
    ]
    return [f"  {name}: {median_ms(call):.2f} ms median" for name, call in rows]


def browser_fragment_check(changes: int) -> list[str]:
    """Type distances in Chromium; count what each change reruns and sends; time change -> idle."""
    if shutil.which("chromium") is None:
        return ["  skipped: chromium is not installed"]
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return ["  skipped: the playwright package is missing"]
    sys.path.insert(0, str(ROOT / "tests" / "browser"))
    from browser_helpers import CHROMIUM_ARGS, StreamlitServer, wait_for_run, wait_settled, widget
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    fragment_finish = ForwardMsg.DESCRIPTOR.fields_by_name["script_finished"].enum_type.values_by_name[
        "FINISHED_FRAGMENT_RUN_SUCCESSFULLY"].number
    runs: list[dict[str, int]] = [{"deltas": 0, "refs": 0, "finished": -1}]

    def on_frame(payload: bytes | str) -> None:
        if isinstance(payload, str):
            return
        message = ForwardMsg.FromString(payload)
        kind = message.WhichOneof("type")
        if kind == "delta":
            runs[-1]["deltas"] += 1
        elif kind == "ref_hash":
            runs[-1]["refs"] += 1
        elif kind == "script_finished":
            runs[-1]["finished"] = message.script_finished
            runs.append({"deltas": 0, "refs": 0, "finished": -1})

    lines = []
    with tempfile.TemporaryDirectory() as scratch:
        server = StreamlitServer(Path(scratch) / "server.log").start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.on("websocket", lambda ws: ws.on("framereceived", on_frame))
                page.goto(server.base_url + "/Reach", wait_until="domcontentloaded", timeout=120_000)
                wait_for_run(page, server, timeout_ms=120_000)
                page.wait_for_timeout(500)
                full = next(run for run in runs if run["finished"] >= 0)

                def timed_change(act) -> float:
                    """Milliseconds from a control change to the script's end and two animation frames."""
                    done = len(runs)
                    start = time.perf_counter()
                    act()
                    while len(runs) == done:
                        page.wait_for_timeout(2)
                    wait_settled(page)
                    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
                    return (time.perf_counter() - start) * 1000

                box = widget(page, "reach.d_text").locator("input")
                timings, fragment_runs, sent = [], 0, []
                for index in range(changes):
                    box.fill(TYPED[index % 2])
                    timings.append(timed_change(lambda: box.press("Enter")))
                    finished = runs[-2]
                    fragment_runs += finished["finished"] == fragment_finish
                    sent.append(finished["deltas"])
                # The Bandwidth cliff page in the same browser and run, for comparison.
                page.goto(server.base_url + "/Bandwidth_cliff", wait_until="domcontentloaded", timeout=120_000)
                wait_for_run(page, server, timeout_ms=120_000)
                page.wait_for_timeout(500)
                choices = ("Both directions summed", "Per direction")
                cliff = [timed_change(lambda i=index: widget(page, "cliff.dir").get_by_text(choices[i % 2]).click())
                         for index in range(changes)]
                browser.close()
        finally:
            server.stop()
    lines.append(f"  full first run: {full['deltas']} element messages")
    lines.append(f"  distance typed {changes} times: {fragment_runs} of {changes} were fragment runs (the page above "
                 f"the distance section was not rerun); {statistics.median(sent):.0f} element messages sent per change "
                 f"(median; {full['deltas']} on a full run)")
    lines.append(f"  change -> idle in Chromium: median {statistics.median(timings):.0f} ms, min {min(timings):.0f}, "
                 f"max {max(timings):.0f} ({changes} changes); Bandwidth cliff page's direction radio in the same "
                 f"run: median {statistics.median(cliff):.0f} ms (Reach / cliff = "
                 f"{statistics.median(timings) / statistics.median(cliff):.2f})")
    return lines


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else RUNS
    for name, words in (("streamlit.runtime.scriptrunner_utils.script_run_context", "missing ScriptRunContext"),
                        ("streamlit.runtime.caching.cache_data_api", "No runtime found")):
        logging.getLogger(name).addFilter(lambda record, words=words: words not in record.getMessage())
    from interconnect.topics.reach.model import distance_text
    from interconnect.topics.reach.sweep import DISTANCE_STOPS_M

    reach = apptest_reruns("pages/5_Reach.py", ("text_input", "reach.d_text", STOPS), runs)
    # Every change to a stop not seen before: nothing the page caches by distance can be reused.
    fresh = apptest_reruns("pages/5_Reach.py", ("text_input", "reach.d_text",
                                                tuple(distance_text(stop) for stop in DISTANCE_STOPS_M[1:])), runs)
    cliff = apptest_reruns("pages/1_Bandwidth_cliff.py", ("radio", "cliff.dir", ("per", "both")), runs)
    print("Warm rerun (AppTest, whole script):")
    print("  " + summary("Reach page, distance typed, between two stops every other run", reach, BUDGET_MS))
    print("  " + summary("Reach page, distance typed, a new stop every other run (no cache hits)", fresh,
                         BUDGET_MS))
    print("  " + summary("Bandwidth cliff page, same machine and run, for comparison", cliff))
    print("The core (no Streamlit):")
    for line in core_speed():
        print(line)
    print("A distance change in Chromium against a real server:")
    for line in browser_fragment_check(changes=9):
        print(line)


if __name__ == "__main__":
    main()
