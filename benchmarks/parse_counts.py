"""How many times one page run resolves the cluster and reads each typed quantity (issue 40, item 3).

Runs a page in Streamlit's AppTest (a first load in a cold process, the first load of a second visitor, then
two changes of the node count; AppTest reruns the whole script each time) and counts, per run: the page's
requests for its cluster (``cluster asked``), the cluster resolutions (``resolve_cluster`` executed), the
quantity parses (``parse_quantity`` executed, by text; a cache of parsed texts is bypassed, so each read is
counted) and the reads of a link parameter's text (``QuantityParam.parse``, by key). Every module's binding of a
counted function is wrapped, so calls through any import name are seen. A parameter's declared bounds and default
(constants of the code, ``inputs.params._declared``) are read once per process and counted when they are.

Run from the repository root: ``PYTHONPATH=. .venv/bin/python benchmarks/parse_counts.py [page ...]``
(``allreduce``, ``overlap``, ``seating``; all three by default; ``-v`` lists each text and key).
"""

from __future__ import annotations

import collections
import functools
import importlib
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: page name: (page script, widget key of the node count, two values it takes in turn)
PAGES = {
    "allreduce": ("pages/2_All_reduce.py", "allreduce.nodes", (8, 4)),
    "overlap": ("pages/3_Overlap.py", "overlap.nodes", (8, 4)),
    "seating": ("pages/4_Seating_chart.py", "seating.nodes", (4, 2)),
}

COUNTS: collections.Counter = collections.Counter()


def _import_everything() -> None:
    import interconnect

    for info in pkgutil.walk_packages(interconnect.__path__, "interconnect."):
        if info.name.endswith(("__main__",)):
            continue
        try:
            importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - a module that needs Streamlit's runtime is counted anyway when run
            pass


def _wrap_everywhere(original, label, key_of) -> None:
    @functools.wraps(original)
    def counted(*args, **kwargs):
        COUNTS[(label, key_of(args, kwargs))] += 1
        return original(*args, **kwargs)

    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("interconnect") and getattr(module, original.__name__,
                                                                                 None) is original:
            setattr(module, original.__name__, counted)


def _instrument() -> None:
    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.inputs.params import QuantityParam
    from interconnect.units import parse_quantity

    # A cache of parsed texts hides how often a text is read: each is counted as read, the cache left out.
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("interconnect"):
            for name in ("_parse_text", "_remembered_parse", "_remembered_distance", "_metres", "_size_bytes"):
                if hasattr(getattr(module, name, None), "__wrapped__") and hasattr(getattr(module, name), "cache_info"):
                    setattr(module, name, getattr(module, name).__wrapped__)
    for module_name, name in (("interconnect.ui.cluster", "resolve_page_cluster"),
                              ("interconnect.topics.allreduce.page", "page_cluster")):  # the page's own, before
        module = sys.modules.get(module_name)
        if module is not None and hasattr(module, name):
            _wrap_everywhere(getattr(module, name), "cluster asked", lambda a, k: "")
    _wrap_everywhere(resolve_cluster, "resolve_cluster", lambda a, k: "")
    _wrap_everywhere(parse_quantity, "parse_quantity", lambda a, k: repr(a[0]))
    for cls in {QuantityParam, *QuantityParam.__subclasses__(),
                *(s for c in QuantityParam.__subclasses__() for s in c.__subclasses__())}:
        if "parse" in vars(cls):
            original = vars(cls)["parse"]

            def counted(self, raw, _original=original):
                COUNTS[("QuantityParam.parse", self.key)] += 1
                return _original(self, raw)

            cls.parse = counted


def _report(title: str) -> None:
    totals = collections.Counter()
    for (label, _), n in COUNTS.items():
        totals[label] += n
    print(f"  {title}: " + ", ".join(f"{label} {totals[label]}" for label in
                                     ("cluster asked", "resolve_cluster", "parse_quantity", "QuantityParam.parse")))
    if "-v" in sys.argv:
        detail = sorted(((label, key), n) for (label, key), n in COUNTS.items()
                        if label not in ("resolve_cluster", "cluster asked"))
        for (label, key), n in detail:
            print(f"      {label}[{key}] x{n}")
    COUNTS.clear()


def main(names: list[str]) -> None:
    from streamlit.testing.v1 import AppTest

    _import_everything()
    _instrument()
    for name in names:
        script, nodes_key, (first, second) = PAGES[name]
        print(name)
        for visit in ("first load, cold process", "first load, another visitor"):
            at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
            at.switch_page(script)
            COUNTS.clear()
            at.run()
            assert not at.exception, at.exception
            _report(visit)
        for value in (first, second):
            at.number_input(key=nodes_key).set_value(value)
            at.run()
            assert not at.exception, at.exception
            _report(f"nodes -> {value}")


if __name__ == "__main__":
    main([name for name in sys.argv[1:] if name != "-v"] or list(PAGES))
