"""Settings for the whole suite.

AppTest scans every installed distribution for Streamlit component manifests once per ``AppTest``
(``BidiComponentManager.discover_and_register_components``): about 0.2 s of CPU each time, a third
of the CPU the AppTest files spend. The installed packages do not change while pytest runs, so the
scan is done once per process and its result reused; each AppTest still registers what it found in
a registry of its own, as before.
"""

from __future__ import annotations

import functools


def _scan_component_manifests_once() -> None:
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:  # a Streamlit without v2 components scans nothing
        return
    scan = getattr(manifest_scanner, "scan_component_manifests", None)
    if scan is None or hasattr(scan, "cache_info"):
        return

    found = functools.cache(lambda: tuple(scan()))

    def scan_component_manifests(max_workers: int | None = None) -> list:
        return list(found())  # a new list per caller, as before

    scan_component_manifests.cache_info = found.cache_info  # marks the patch as done
    manifest_scanner.scan_component_manifests = scan_component_manifests


_scan_component_manifests_once()


#: Tests that take 30-60 s each on a 2-core machine (a page opened in six new sessions, the timed
#: isolation walk, the tour walked step by step): they start first.
LONGEST_FIRST = (
    "tests/browser/test_seating_page.py::test_new_sessions_always_draw_the_page",
    "tests/browser/test_isolation.py::",
    "tests/browser/test_tour_presentation.py::",
)


def pytest_collection_modifyitems(items: list) -> None:
    """Run the browser tests first, the longest of them first.

    xdist's work stealing hands each worker a contiguous share of the list and lets an idle worker
    take the back half of a busy worker's queue. With the long, mostly waiting browser tests at the
    front, the other worker's CPU-bound tests fill the cores meanwhile and the run ends on many
    short tests, not on one worker finishing a long browser test alone.
    """

    def rank(item) -> int:
        if item.nodeid.startswith(LONGEST_FIRST):
            return 0
        return 1 if item.get_closest_marker("browser") else 2

    items.sort(key=rank)  # stable: the order within each group is unchanged


def _hypothesis_without_deadline() -> None:
    """No per-example deadline: CI runs three workers on two cores, so one example's wall time says nothing.

    Hypothesis' default 200 ms deadline turned a slow example on a busy machine into a failure
    (``test_any_query_parses_to_valid_values`` under ``-n 2`` beside other work). Linear time is checked by
    the timing tests of each parser, which take the best of several runs.
    """
    try:
        from hypothesis import settings
    except ImportError:
        return
    settings.register_profile("suite", deadline=None)
    settings.load_profile("suite")


_hypothesis_without_deadline()
