"""Measured busbw over the model's curve with its band: the log's nccl-tests rows, the sizes of its COLL lines, the
band from the collective accuracy rules (hardware/collectives/accuracy.py) on the cluster the log describes."""

from __future__ import annotations

from pathlib import Path

import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.hardware.collectives.accuracy import collective_band, size_band
from interconnect.io.nccl_debug import read_nccl_debug
from interconnect.topics.explain.figures import measured_figure
from interconnect.topics.explain.model import explain, explain_source

DATA = Path(__file__).resolve().parents[2] / "data" / "nccl_debug_logs"


def test_nccl_tests_rows_are_plotted_as_nccl_tests_computes_busbw():
    # azure-aks#30, line 55: 2048 B all-reduce, out-of-place 40.60 us on 16 ranks (2 nodes x 8, NCCL's count)
    out = explain_source((DATA / "azure-aks-30-ib-gdrdma-cumem.log").read_bytes())
    rows = {r["size_bytes"]: r for r in out.measured["rows"]}
    assert sorted(rows) == [8, 32, 128, 512, 2048]
    expected = 2048 / 40.60e-6 * 2 * 15 / 16 / 1e9  # busbw = S/t x 2(n-1)/n
    assert rows[2048]["measured_busbw_gbps"] == pytest.approx(expected, rel=1e-3)
    assert out.measured["line"] == 51 and out.measured["collective"] == "all_reduce"


def test_band_is_the_accuracy_rules_band_on_the_logs_cluster():
    out = explain_source((DATA / "azure-aks-30-ib-gdrdma-cumem.log").read_bytes())
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2, fabric="infiniband")
    curve = out.measured["curve"]
    for size, model, low, high in zip(curve["size_bytes"], curve["busbw_gbps"], curve["band_low"], curve["band_high"],
                                      strict=True):
        band = collective_band(cluster, "all_reduce", size)
        if band.extrapolation:
            assert low is None and high is None
        else:  # a time ratio model / measured is the ratio measured busbw / model busbw
            assert low == pytest.approx(model * band.low) and high == pytest.approx(model * band.high)
    finding = next(f for f in out.findings if f.topic == "model")
    band = out.measured["bands"][size_band(2048)]
    ratio = out.facts["comparison"]["measured_busbw_gbps"] / out.facts["comparison"]["model_busbw_gbps"]
    assert ("this run is inside it" in finding.text) == (band["low"] <= ratio <= band["high"])


def test_coll_lines_put_the_jobs_sizes_on_the_curve_without_a_time():
    out = explain_source((DATA / "nccl-1193-ray-prefix-coll.log").read_bytes())
    measured = out.measured
    assert not measured["rows"]
    # nccl#1193 line 3: AllReduce count 7382228 datatype 7 (float32) -> 29,528,912 B
    assert 7382228 * 4 in {j["size_bytes"] for j in measured["job"]}
    assert all(j["model_busbw_gbps"] > 0 for j in measured["job"])
    figure = measured_figure(measured)
    assert [t.name for t in figure.data][-1].startswith("the job's sizes")


def test_no_rows_no_coll_no_chart():
    log = "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
    assert explain(read_nccl_debug(log)).measured is None


def test_each_ranks_handle_of_one_collective_is_one_finding():
    # every rank prints its own communicator pointer; 512 ranks of one AllReduce are one finding, not 512
    lines = [f"h{r // 8}:1:{r} [{r % 8}] NCCL INFO AllReduce: opCount {op:x} sendbuff 0x1 recvbuff 0x1 count 1024 "
             f"datatype 7 op 0 root 0 comm 0x{1000 + r:x} [nranks=16] stream 0x2" for op in range(3) for r in range(16)]
    out = explain(read_nccl_debug("\n".join(lines) + "\n"))
    found = [f.text for f in out.findings if f.topic == "collectives"]
    assert found == ["AllReduce on a 16-rank communicator: 48 COLL lines from 16 ranks' handles (about 3 calls each), "
                     "4,096 B, float32 sum."]


def test_handles_at_different_last_opcounts_are_a_possible_hang():
    lines = [f"h:1:{r} [{r}] NCCL INFO AllReduce: opCount {op:x} sendbuff 0x1 recvbuff 0x1 count 8 datatype 7 op 0 "
             f"root 0 comm 0x{1000 + r:x} [nranks=4] stream 0x2"
             for op in range(5) for r in range(4) if op < 4 or r < 1]
    found = [f for f in explain(read_nccl_debug("\n".join(lines) + "\n")).findings if f.warn]
    assert len(found) == 1 and "(3 to 4; 3 of the 4 handles seen are behind)" in found[0].text


def test_two_nccl_tests_headers_on_one_node_are_separate_jobs():
    head = "# nThread 1 nGpus 8 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
    body = "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0\n"
    out = explain(read_nccl_debug(head + head + body))
    assert out.facts["separate_runs"] == 2
    assert any(f.warn and "separate jobs" in f.text and f.line == 1 for f in out.findings)
    net = body + "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0\n"
    out = explain(read_nccl_debug(head + head + net))
    assert not any("separate jobs" in f.text for f in out.findings)
    assert any("2 runs in one file" in f.text for f in out.findings)
