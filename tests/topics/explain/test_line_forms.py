"""Every line form of interconnect/io/nccl_debug/forms.py (taken from NCCL's and RCCL's source, by release) is read.

Each example line is written from the format string with plausible values; the test reads it alone, with NCCL's
prefix, and checks what the table says the reader must get. A form the reader does not know fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from interconnect.io.nccl_debug import read_nccl_debug
from interconnect.io.nccl_debug import tests_runs as nccl_tests_runs
from interconnect.io.nccl_debug.forms import FORMS, NCCL_RELEASES, markdown_table
from interconnect.topics.explain.model import explain

DOCS = Path(__file__).resolve().parents[3] / "docs" / "explain.md"


def _probe(log, what):  # noqa: C901 - one lookup per kind of reading
    net = {k: v for k, v in log.transports.items() if k.startswith("NET/")}
    match what:
        case "version" | "cuda" | "vendor" | "network" | "plugin" | "bootstrap" | "collnet" | "rings" | "trees" \
                | "coll_channels" | "nvls_channels" | "nnodes" | "local_ranks" | "trees_nranks" | "ring_ranks" \
                | "ring_gdr":
            at = getattr(log, what)
            return at.value if at is not None else None
        case "ranks":
            return log.comm_nranks.value if log.comm_nranks else None
        case "transport":
            return tuple(sorted(log.transports))
        case "nics":
            return tuple(sorted(f"{t}/{i}" for t, i in log.nic_use))
        case "gdr":
            return (sum(v.gdr_on for v in net.values()), sum(v.gdr_off for v in net.values()))
        case "gdr_verdict":
            return explain(log, nccl_tests_runs(log)).facts["gdr"]
        case "ib_nics":
            return tuple(("+".join(e.devices), e.link_layer) for e in log.ib_nics.value) if log.ib_nics else None
        case "socket_nics":
            return tuple(name for _, name in log.socket_nics.value) if log.socket_nics else None
        case "ib_speeds":
            return {i: at.value for i, at in log.ib_speeds.items()}
        case "topo_nets":
            return {i: at.value for i, at in log.topo_nets.items()}
        case "topo_xgmi":
            return "XGMI" in log.topo_links
        case "init_total":
            return next(iter(log.init_timings.values())).total_s if log.init_timings else None
        case "tuning":
            return len(log.tuning)
        case "env":
            return next(((k, at.value) for k, at in log.env.items()), None)
        case "ib_absent" | "nvls_available" | "nvls_unavailable" | "nvls_used" | "gdr_enabled" | "gdr_disabled":
            return bool(getattr(log, what))
    raise AssertionError(f"unknown reading {what!r}")


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.key)
def test_each_line_form_is_read(form):
    log = read_nccl_debug(form.example + "\n")
    assert log.skipped_count == 0, f"{form.key}: the line was skipped"
    for what, want in form.reads:
        assert _probe(log, what) == want, f"{form.key}: {what}"


#: Forms read only with NCCL's prefix: a tuning row stripped of it ("    AllReduce |  14.4/ 43.6 |") is too like
#: any other table to be taken for NCCL's.
PREFIX_NEEDED = {"tuning-row"}


@pytest.mark.parametrize("form", [f for f in FORMS if f.example.startswith("host-7:") and f.key not in PREFIX_NEEDED],
                         ids=lambda f: f.key)
def test_each_form_reads_the_same_without_the_prefix(form):
    """Posters strip NCCL's prefix; the message alone gives the same readings (host-bound ones aside)."""
    bare = form.example.split(" NCCL INFO ", 1)[1]
    log = read_nccl_debug(bare + "\n")
    for what, want in form.reads:
        assert _probe(log, what) == want, f"{form.key}: {what}"


def test_every_release_has_the_forms_each_verdict_needs():
    """For each NCCL release looked at: a version, a rank count, a transport, GDR, NIC and NVLS form."""
    for release in NCCL_RELEASES:
        kinds = {f.verdict for f in FORMS if f.library == "NCCL" and release in f.releases}
        assert {"version", "shape", "transport", "gdr", "nics", "nvls"} <= kinds, release


def test_the_docs_show_the_table():
    assert markdown_table() in DOCS.read_text(encoding="utf-8")


def test_a_nic_port_at_zero_is_not_a_rate():
    """Found by fuzz_explain (a '25.0' made 0 in per-node-link-rates.log gave a node verdict of ratio 0)."""
    log = read_nccl_debug("a:1:2 [0] NCCL INFO + NET[0.0] - NET/0\nb:3:4 [0] NCCL INFO + NET[25.0] - NET/0\n")
    assert {i: at.value for i, at in log.topo_nets.items()} == {0: 25.0}
    assert all(v["ratio"] > 0 for v in explain(log, []).facts.get("node_outliers", []))
