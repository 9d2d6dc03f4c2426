"""Time from a control change to the page redrawn, in headless Chromium, against a bare Streamlit page.

Starts the app and a bare page (one number input, one 100-point chart) on loopback, drives one
typical number control per page (alternating two values, CHANGES times), and measures from the
change to the page's link holding the new value with the script idle, plus two animation frames (a
short run can finish without its "running" state ever being drawn, so that state is not waited for;
see ``timed_change``). Each change of a page
comes right after a change of the bare page (open in another tab), so a shared machine's changing
load reaches both alike; prints each page's median, min and max and its ratio to the bare page's
changes made alongside it.

A change that redraws two charts is held to a bare page that redraws two (target: within 1.5x of
the bare page redrawing as many charts as the page's change does, in the same run). So each page
names how many charts its measured change redraws (Plotly charts plus live charts, in the view the
link opens), a bare page with that many charts is served as well, and each change of the page comes
right after a change of the matching bare page and of the one-chart bare page; both ratios are
printed (the one-chart ratio for comparison with earlier runs).
The same bare page redrawing four charts is measured too, against the one-chart page: what
Streamlit itself adds per further chart.

Run from the repository root: ``.venv/bin/python benchmarks/interaction.py [changes] [page name ...]``
(names as printed, e.g. ``Overlap "Across sites"``; all pages by default). With ``--against DIR`` (another
checkout of the app, e.g. an export of the main branch), each page of that checkout is measured too, in the
same rounds as the same page of this one (each change right after its own changes of the bare pages): a change
and the code before it, under the same load. With ``--frozen-bare`` the bare pages freeze their heap after their
first run, as the app's pages do (``interconnect/ui/heap.py``): a bare page given the same care as the app.
"""

from __future__ import annotations

import contextlib
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_bench import ROOT, chromium, open_and_watch, paired_arguments, server, timed_change  # noqa: E402
from browser_helpers import url_shows, wait_for_first_chart  # noqa: E402
from playwright.sync_api import Error as PlaywrightError  # noqa: E402

CHANGES = 9
TARGET_RATIO = 1.5
#: The same bare page redrawing this many charts on each change: Streamlit's own cost of a control
#: that changes four figures (the All-reduce and Overlap pages), for reading their ratios.
FLOOR_CHARTS = 4
#: Changes the page never answered (the browser dropped the keystroke), by URL path.
DROPPED: dict[str, int] = {}

#: (page name, URL path, widget key of a number input, two values to alternate, charts on first load (Plotly
#: or diagram), charts the change redraws). The live-chart pages draw no Plotly chart at their default view (view=auto),
#: and the change reruns the fragment holding the live chart: one chart (the cliff's NIC count reruns
#: ``cliff._nics_view``, All-reduce's node count ``allreduce.node_count_fragment``, Overlap's ``overlap_view``,
#: Across sites' ``explorer``; none of them draws a further chart at view=auto). Seating chart's node
#: count redraws the seating grid (an SVG diagram since 3 December 2026, Plotly before) and the live chart over
#: node counts: two.
PAGES = [
    ("Bandwidth cliff", "/Bandwidth_cliff", "cliff.nics", (4, 8), 0, 1),
    ("All-reduce", "/All_reduce", "allreduce.nodes", (8, 4), 0, 1),
    ("Overlap", "/Overlap", "overlap.nodes", (8, 4), 0, 1),
    ("Seating chart", "/Seating_chart", "seating.nodes", (4, 2), 1, 2),
    ("Reach", "/Reach", "reach.size", None, 1, 1),
    ("Across sites", "/Across_sites", "crossdc.sites", (3, 2), 0, 1),
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
            return timed_change(self.page, number_changer(self.page, self.key, value),
                                shown=url_shows(self.key.split(".", 1)[1], value))
        except PlaywrightError:
            DROPPED[self.path] = DROPPED.get(self.path, 0) + 1
            return None


def measure(page: Watched, bares: list[Watched], changes: int) -> tuple[list[float], list[list[float]]]:
    """``changes`` timed changes of ``page``, each right after one change of every page in ``bares`` (so a
    shared machine's changing load reaches all alike), after one warm-up change of each: (page's timings,
    each bare page's timings)."""
    return measure_together([page], bares, changes)[0]


def measure_together(pages: list[Watched], bares: list[Watched], changes: int
                     ) -> list[tuple[list[float], list[list[float]]]]:
    """:func:`measure` for several pages in turn within each round (a page and the same page of the code before a
    change: the load of the moment reaches both alike): per page, its timings and the bare pages' changed right
    before each of them."""
    for page in pages:
        page.change()  # the first change warms caches of the new value
    for bare in bares:
        bare.change()
    ours: list[list[float | None]] = [[] for _ in pages]
    theirs: list[list[list[float | None]]] = [[[] for _ in bares] for _ in pages]
    for _ in range(changes):
        for page, own, before in zip(pages, ours, theirs, strict=True):
            for timings, bare in zip(before, bares, strict=True):
                timings.append(bare.change())
            own.append(page.change())
    return [([t for t in own if t is not None], [[t for t in ts if t is not None] for ts in before])
            for own, before in zip(ours, theirs, strict=True)]


def ratio_text(median_ms: float, bare_ms: float | None) -> str:
    return f"{median_ms / bare_ms:.2f}x" if bare_ms else "-"


def line(name: str, charts: int, timings: list[float], same: list[float] | None, one: list[float]) -> str:
    """One row: the median, min and max, the ratio to the bare page redrawing as many charts (``same``) and
    to the one-chart bare page (``one``), each changed alongside, and those bare pages' medians."""
    median = statistics.median(timings)
    same_ms = statistics.median(same) if same else None
    one_ms = statistics.median(one) if one else None
    alongside = f"{same_ms:.0f} / {one_ms:.0f}" if same_ms and one_ms else (f"- / {one_ms:.0f}" if one_ms else "-")
    return (f"{name:<26} {charts:>6} {median:>8.0f} {min(timings):>6.0f} {max(timings):>6.0f} "
            f"{ratio_text(median, same_ms):>12} {ratio_text(median, one_ms):>9}  ({alongside})")


def main() -> None:
    changes, only, against, frozen = paired_arguments(sys.argv[1:], CHANGES)
    pages = [entry for entry in PAGES if entry[3] is not None and (ROOT / "pages" / PAGE_FILES[entry[1]]).is_file()
             and (not only or entry[0] in only)]
    counts = sorted({1, FLOOR_CHARTS} | {entry[5] for entry in pages})
    rows, failures = [], []
    bare_all: list[float] = []  # every change of the one-chart bare page
    with chromium() as context, contextlib.ExitStack() as stack:
        bare_servers = {n: stack.enter_context(server(bare=True, charts=n, frozen=frozen)) for n in counts}
        app = stack.enter_context(server())
        other = stack.enter_context(server(root=Path(against))) if against else None
        bare = Watched(bare_servers[1], context, "/", "bare.n", (200, 100), 1)
        floor = Watched(bare_servers[FLOOR_CHARTS], context, "/", "bare.n", (200, 100), FLOOR_CHARTS)
        floor_timings, (floor_bare,) = measure(floor, [bare], changes)
        bare_all += floor_bare
        floor.page.close()
        matching: dict[int, Watched] = {}
        for name, path, key, values, plotly, charts in pages:
            try:
                if charts != 1 and charts not in matching:
                    matching[charts] = Watched(bare_servers[charts], context, "/", "bare.n", (200, 100), charts)
                bares = [bare] + ([matching[charts]] if charts != 1 else [])
                served = [(name, app)] + ([(f"{name} (before)", other)] if other is not None else [])
                watched = [Watched(srv, context, path, key, values, plotly) for _, srv in served]
                for (label, _), one, (ours, theirs) in zip(served, watched, measure_together(watched, bares, changes),
                                                          strict=True):
                    one.page.close()
                    rows.append((label, charts, ours, theirs[-1], theirs[0]))
                    bare_all += theirs[0]
            except (AssertionError, PlaywrightError) as exc:  # one page's failure must not hide the others
                failures.append((name, str(exc).splitlines()[0][:200]))
    print(f"control change -> page idle + 2 frames, headless Chromium, {changes} changes each, each right after a "
          f"change of the bare page redrawing as many charts and of the bare one-chart page (target: within "
          f"{TARGET_RATIO}x of the bare page redrawing as many charts)")
    if frozen:
        print("the bare pages freeze their heap after their first run, as the app's pages do")
    if against:
        print(f"'(before)': the same page served from {against}, changed in the same rounds as this "
              "checkout's, each change right after its own changes of the bare pages")
    print(f"{'page':<26} {'charts':>6} {'median ms':>8} {'min':>6} {'max':>6} {'ratio (same)':>12} "
          f"{'ratio (1)':>9}  (bare pages alongside, same / one chart: median ms)")
    print(line("bare page", 1, bare_all, None, []) + "  (all its changes)")
    print(line(f"bare, {FLOOR_CHARTS} charts", FLOOR_CHARTS, floor_timings, None, floor_bare))
    for name, charts, ours, same, one in rows:
        print(line(name, charts, ours, same, one))
    if against:  # each round's change of this checkout against the same round's change of the other
        print("this checkout / before, the median of each round's ratio (the same load for both):")
        timings = {name: ours for name, _, ours, _, _ in rows}
        for name, _, ours, _, _ in rows:
            before = timings.get(f"{name} (before)")
            if before and len(before) == len(ours):
                ratios = [a / b for a, b in zip(ours, before, strict=True)]
                print(f"  {name:<24} {statistics.median(ratios):.2f}x")
    for name, reason in failures:
        print(f"{name:<16} FAILED: {reason}")
    if DROPPED:
        print("changes left out (no script run started, even when made twice): "
              + ", ".join(f"{path} {count}" for path, count in DROPPED.items()))


if __name__ == "__main__":
    main()
