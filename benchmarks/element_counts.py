"""Elements the server sends: on a new session's first load, and per change of each page's main control.

The browser's time for a rerun follows the number of elements the server sends (one React render
each; see the README's performance section), and unlike a time this count does not move with the
machine's load, so it is the figure to compare before and after a change to a page's layout. Each
page is opened in a new session of headless Chromium; the websocket's ForwardMsgs are decoded and
counted until the script finishes: every delta (a new element, a block, a transient) and every
reference to a cached message. Widgets and charts on first load are printed by kind.

Run from the repository root: ``.venv/bin/python benchmarks/element_counts.py [-v] [page name ...]``
(``-v`` also prints the kinds each change sends, ``-vv`` each element of the last change: its place, kind and
first words).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_bench import chromium, server  # noqa: E402
from browser_helpers import number_changer, wait_for_first_chart  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

#: (page name, URL path, widget key of a number input, two values to alternate).
PAGES = [
    ("Home", "/", None, None),
    ("Bandwidth cliff", "/Bandwidth_cliff", "cliff.nics", (4, 8)),
    ("All-reduce", "/All_reduce", "allreduce.nodes", (8, 4)),
    ("Overlap", "/Overlap", "overlap.nodes", (8, 4)),
    ("Seating chart", "/Seating_chart", "seating.nodes", (4, 2)),
    ("Reach", "/Reach", None, None),
    ("Across sites", "/Across_sites", "crossdc.sites", (3, 2)),
    ("Fabric", "/Fabric", None, None),
]
CHANGES = 2


class Recorder:
    """Counts the ForwardMsgs of each script run on one page's websocket."""

    def __init__(self) -> None:
        self.runs: list[Counter[str]] = []
        self.current: Counter[str] = Counter()
        self.lines: list[list[str]] = []  # each run's deltas, one line each (``-vv``)
        self.current_lines: list[str] = []

    def frame(self, payload: Any) -> None:
        if not isinstance(payload, bytes):
            return
        msg = ForwardMsg()
        try:
            msg.ParseFromString(payload)
        except Exception:  # noqa: BLE001 - not a ForwardMsg: ignore
            return
        kind = msg.WhichOneof("type")
        if kind == "delta":
            delta = msg.delta
            inner = delta.WhichOneof("type")
            path = ".".join(map(str, msg.metadata.delta_path))
            if inner == "new_element":
                element = delta.new_element.WhichOneof("type")
                self.current["element:" + element] += 1
                self.current_lines.append(f"{path:<14} {element:<16} {_text(delta.new_element)}")
            else:
                self.current[str(inner)] += 1
                detail = delta.add_block.WhichOneof("type") if inner == "add_block" else ""
                self.current_lines.append(f"{path:<14} {inner:<16} {detail}")
        elif kind == "ref_hash":
            self.current["ref_hash"] += 1
            self.current_lines.append(f"{'':<14} ref_hash")
        elif kind == "script_finished":
            self.runs.append(self.current)
            self.current = Counter()
            self.lines.append(self.current_lines)
            self.current_lines = []


def _text(element: Any) -> str:
    """The first words of an element's text (its body, label or value), for ``-vv``."""
    inner = getattr(element, element.WhichOneof("type"))
    for field in ("body", "label", "text", "value"):
        value = getattr(inner, field, None)
        if isinstance(value, str) and value:
            return " ".join(value.split())[:60]
    return ""


def total(run: Counter[str]) -> int:
    return sum(run.values())


def widgets(run: Counter[str]) -> int:
    skip = {"markdown", "plotly_chart", "empty", "heading", "alert", "page_link", "metric", "code", "exception",
            "bidi_component", "arrow_data_frame", "table", "text", "html", "iframe", "divider", "imgs", "json"}
    return sum(n for name, n in run.items() if name.startswith("element:") and name[8:] not in skip)


def main(names: list[str], verbose: int = 0) -> None:
    pages = [p for p in PAGES if not names or p[0] in names]
    with server() as srv, chromium() as context:
        print(f"{'page':<16} {'first load':>10} {'widgets':>8} {'charts':>7} {'per change':>11}  kinds on first load")
        for name, path, key, values in pages:
            recorder = Recorder()
            page = context.new_page()
            page.on("websocket", lambda ws, r=recorder: ws.on("framereceived", r.frame))
            page.goto(srv.base_url + path, wait_until="domcontentloaded", timeout=60_000)
            wait_for_first_chart(page)
            page.wait_for_function("() => true")
            _wait_runs(page, recorder, 1)
            first = recorder.runs[0]
            changes = []
            if key:
                for i in range(CHANGES):
                    before = len(recorder.runs)
                    number_changer(page, key, values[i % 2])()
                    _wait_runs(page, recorder, before + 1)
                    changes.append(total(recorder.runs[-1]))
            charts = first["element:plotly_chart"] + first["element:bidi_component"]
            shown = first.most_common(None if verbose else 6)
            kinds = ", ".join(f"{k.removeprefix('element:')} {n}" for k, n in shown)
            per_change = "/".join(map(str, changes)) if changes else "-"
            print(f"{name:<16} {total(first):>10} {widgets(first):>8} {charts:>7} {per_change:>11}  {kinds}")
            if verbose and changes:
                last = recorder.runs[-1].most_common()
                change_kinds = ", ".join(f"{k.removeprefix('element:')} {n}" for k, n in last)
                print(f"{'':<16} per change: {change_kinds}")
            if verbose > 1 and changes:
                print("\n".join("    " + line for line in recorder.lines[-1]))
            page.close()


def _wait_runs(page: Any, recorder: Recorder, runs: int, timeout_ms: int = 60_000) -> None:
    waited = 0
    while len(recorder.runs) < runs and waited < timeout_ms:
        page.wait_for_timeout(100)
        waited += 100
    page.wait_for_timeout(500)  # a fragment's rerun right after (a live chart's value) counts as its own run
    if len(recorder.runs) < runs:
        raise SystemExit(f"no script run finished within {timeout_ms} ms")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    main([a for a in arguments if a not in ("-v", "-vv")], verbose=2 if "-vv" in arguments else int("-v" in arguments))
