"""The public interface stays exactly as it is: CLI flags, output and JSON keys, and page links.

A fixed set of CLI calls and page links is recorded in ``tests/data/public_interface.json``. The
test replays them and compares the output with the record, so a refactor that moves code (the
package layout) cannot silently rename a flag, a JSON key or a URL parameter.

When a change is *meant* to alter an output (a model correction changes a number), re-record with
``python tests/test_public_interface.py --update`` and say so in the commit message.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "tests" / "data" / "public_interface.json"
LOG = "tests/unit/data/nccl_logs/nccl-tests-2.19-all_reduce-2x8xH100.json"

CLI_CALLS: list[list[str]] = [
    ["--help"],
    ["catalog", "--help"],
    ["cliff", "--help"],
    ["allreduce", "--help"],
    ["compare", "--help"],
    ["catalog", "--kind", "gpu", "--json"],
    ["catalog", "--kind", "scale-out"],
    ["cliff", "--gpu", "h100-sxm", "--nic", "ib-ndr", "--json"],
    ["cliff", "--gpu", "b200", "--nic", "ib-ndr"],
    ["allreduce", "--gpu", "h100-sxm", "--nodes", "4", "--json"],
    ["allreduce", "--gpu", "a100-sxm", "--nodes", "2", "--nic", "200 Gbit/s", "--fabric", "roce", "--size", "25 MB"],
    ["allreduce", "--gpu", "h100-sxm", "--nodes", "1", "--size", "sweep", "--algorithm", "ring", "--json"],
    ["compare", LOG, "--json"],
    ["allreduce", "--gpu", "h9000"],
    ["allreduce", "--size", "9^9^8 B"],
    ["plan", "--help"],
    ["plan", "--model", "llama3-70b", "--gpu", "h100-sxm", "--gpus-per-node", "8", "--nodes", "2", "--tp", "8",
     "--pp", "1", "--dp", "2", "--zero", "1", "--json"],
    ["overlap", "--help"],
    ["overlap", "--params", "8e9", "--tokens-per-gpu", "4096", "--gpu", "h100-sxm", "--gpus-per-node", "8",
     "--nodes", "4", "--bucket", "25 MB"],
    ["overlap", "--tokens-per-gpu", "0"],
    ["crossdc", "--method", "dp", "--json"],
    ["crossdc", "--method", "crosspipe", "--json"],
    ["weight-sync", "--json"],
    ["crossdc-pipeline", "--json"],
    ["plan", "--model", "llama3-70b", "--gpu", "h100-sxm", "--gpus-per-node", "8", "--nodes", "2", "--tp", "8",
     "--pp", "1", "--dp", "2", "--zero", "1", "--stack", "nemo", "--json"],
    ["plan", "--nodes", "2", "--tp", "8", "--pp", "1", "--dp", "2", "--stack", "torchtitan", "--tp-overlap", "on"],
]

PAGE_LINKS: list[tuple[str | None, dict[str, str]]] = [
    (None, {}),
    ("pages/1_Bandwidth_cliff.py", {}),
    ("pages/1_Bandwidth_cliff.py", {"gpu": "b200", "dir": "both", "unit": "bluray"}),
    ("pages/2_All_reduce.py", {}),
    ("pages/2_All_reduce.py", {"gpu": "a100-sxm", "nodes": "2", "nic": "custom", "nic_bw": "100 Gbit/s",
                               "nics": "16", "fabric": "roce"}),
    ("pages/9_Catalog.py", {"kind": "scale-up", "entry": "nvlink4"}),
    ("pages/3_Overlap.py", {"model": "llama3-70b", "tokens": "8192", "bucket": "100 MiB", "mode": "ideal"}),
    ("pages/4_Seating_chart.py", {"stack": "nemo", "tpov": "on"}),
]


def run_cli(argv: list[str]) -> dict[str, object]:
    from interconnect.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # --help
            code = exc.code
    return {"argv": argv, "exit": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def run_link(page: str | None, query: dict[str, str]) -> dict[str, object]:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    if page:
        at.switch_page(page)
    at.run()
    return {
        "page": page,
        "query": query,
        "url_after": {key: at.query_params[key] for key in sorted(at.query_params)},
        "metrics": [[m.label, m.value] for m in at.metric],
        "charts": len(at.get("plotly_chart")),
        "live_charts": len(at.get("bidi_component")),
        "warnings": len(at.warning),
        "exception": bool(at.exception),
    }


def record() -> dict[str, object]:
    os.environ["COLUMNS"] = "100"  # argparse wraps help text to the terminal width
    return {"cli": [run_cli(argv) for argv in CLI_CALLS], "links": [run_link(p, q) for p, q in PAGE_LINKS]}


@pytest.fixture(scope="module")
def recorded() -> dict[str, object]:
    return json.loads(RECORD.read_text(encoding="utf-8"))


@pytest.mark.parametrize("index", range(len(CLI_CALLS)))
def test_cli_output_unchanged(recorded, index, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert run_cli(CLI_CALLS[index]) == recorded["cli"][index]


def test_the_record_holds_no_broken_page(recorded):
    # A record taken while a page was broken would make the comparison meaningless.
    assert not any(link["exception"] for link in recorded["links"])
    assert all(link["charts"] + link["live_charts"] >= 1 or link["page"] == "pages/9_Catalog.py"
               for link in recorded["links"])


@pytest.mark.parametrize("index", range(len(PAGE_LINKS)))
def test_page_link_unchanged(recorded, index):
    page, query = PAGE_LINKS[index]
    assert run_link(page, query) == recorded["links"][index]


if __name__ == "__main__":
    if "--update" not in sys.argv:
        sys.exit("usage: python tests/test_public_interface.py --update")
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    RECORD.write_text(json.dumps(record(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"recorded {len(CLI_CALLS)} CLI calls and {len(PAGE_LINKS)} links in {RECORD.relative_to(ROOT)}")
