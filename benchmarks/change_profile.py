"""Where the browser spends a control change: JavaScript self time per change, by script, against a bare page.

Opens a page in headless Chromium, makes two warm-up changes of one number input, then records a CPU
profile (Chrome DevTools Protocol, 200 µs sampling) over ``changes`` more changes, alternating two
values. Prints each change's time (script idle plus two frames, as ``interaction.py`` measures it)
and the profile's self time per change, grouped by the script it ran in (Streamlit's code is split
into chunks named after what they hold: ``react-dom``, ``emotion-styled``, ``StreamlitMarkdown``,
``PlotlyChart``...). ``(program)`` is the browser's own work outside JavaScript (style, layout,
paint); ``(idle)`` includes waiting for the server. The bare page (one number input, one Plotly
chart) is profiled the same way first.

A timing moves with the machine's load; the split between scripts moves much less, which is what
this is for: it says whether a page's extra cost per change is Plotly, React rendering, styling or
Markdown, before anyone optimises one of them.

Run from the repository root: ``.venv/bin/python benchmarks/change_profile.py [changes] [page name ...]``
(names as in ``interaction.py``: "Bandwidth cliff", All-reduce, Overlap, "Seating chart", "Across sites").
"""

from __future__ import annotations

import collections
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_bench import chromium, server  # noqa: E402
from browser_helpers import number_changer, open_and_watch, timed_change, url_shows, wait_for_first_chart  # noqa: E402
from interaction import PAGES  # noqa: E402
from playwright.sync_api import Error as PlaywrightError  # noqa: E402

CHANGES = 6
SAMPLING_US = 200
SHOWN_SCRIPTS = 8


def profile_changes(page, key: str, values: tuple, changes: int) -> tuple[list[float], dict[str, float]]:
    """Times of ``changes`` changes of the number input ``key`` (ms) and self time per change by script (ms)."""
    def change(value) -> float | None:
        try:
            return timed_change(page, number_changer(page, key, value), shown=url_shows(key.split(".", 1)[1], value))
        except PlaywrightError:  # a keystroke the page never answered: left out, as interaction.py does
            return None

    for value in values:  # warm-up: both values' caches filled
        change(value)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": SAMPLING_US})
    cdp.send("Profiler.start")
    times = [change(values[i % 2]) for i in range(changes)]
    profile = cdp.send("Profiler.stop")["profile"]
    cdp.detach()
    done = [t for t in times if t is not None]
    nodes = {node["id"]: node for node in profile["nodes"]}
    by_script: collections.Counter[str] = collections.Counter()
    for node_id, delta_us in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = nodes[node_id]["callFrame"]
        script = frame["url"].rsplit("/", 1)[-1].split(".")[0] or frame["functionName"] or "?"
        by_script[script] += delta_us / 1000 / max(len(done), 1)
    return done, dict(by_script)


def report(name: str, changes_made: int, times: list[float], by_script: dict[str, float]) -> None:
    busy = {script: ms for script, ms in by_script.items() if script != "(idle)"}
    median = f"{statistics.median(times):.0f} ms" if times else "no change answered"
    dropped = f" ({changes_made - len(times)} unanswered: their waits inflate idle and (program))" \
        if changes_made > len(times) else ""
    print(f"{name}: change median {median} over {len(times)}{dropped}; busy {sum(busy.values()):.0f} ms per change, "
          f"idle/waiting {by_script.get('(idle)', 0):.0f} ms")
    for script, ms in sorted(busy.items(), key=lambda item: -item[1])[:SHOWN_SCRIPTS]:
        print(f"    {ms:7.1f} ms  {script}")


def main() -> None:
    changes = int(sys.argv[1]) if len(sys.argv) > 1 else CHANGES
    only = set(sys.argv[2:])
    chosen = [(name, path, key, values) for name, path, key, values, _, _ in PAGES
              if values and (not only or name in only)]
    print(f"JavaScript self time per control change (CDP CPU profile, {SAMPLING_US} µs sampling, "
          f"{changes} changes each after two warm-up changes)")
    with chromium() as context:
        with server(bare=True) as bare, server() as app:
            page = context.new_page()
            open_and_watch(page, bare, "/", 1)
            wait_for_first_chart(page)
            report("bare page", changes, *profile_changes(page, "bare.n", (40, 80), changes))
            page.close()
            for name, path, key, values in chosen:
                page = context.new_page()
                open_and_watch(page, app, path, 0)
                wait_for_first_chart(page)
                report(name, changes, *profile_changes(page, key, values, changes))
                page.close()


if __name__ == "__main__":
    main()
