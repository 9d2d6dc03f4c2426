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
