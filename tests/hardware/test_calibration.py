"""Calibration on a measured sweep keeps the hardware true and never makes the model worse (issue 24)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.hardware.collectives import (
    LAUNCH_OVERHEAD_US,
    allreduce,
    apply_calibration,
    calibrate,
    collective,
    compare_collective,
    load_measurements,
)
from interconnect.hardware.collectives.measurements import host_issue_us

EVERY_RUN = load_measurements(collective=None)
SIZES = np.array([8.0 * 2**i for i in range(31)])  # 8 B .. 8 GiB, as all_reduce_perf -b 8 -e 8G -f 2


def _apply(cluster, calibration):
    share = calibration.wire_efficiency
    return apply_calibration(cluster, extra_latency_us=calibration.extra_latency_us,
                             network_efficiency=share if calibration.wire == "network" else None,
                             scaleup_efficiency=share if calibration.wire == "scale-up" else None)


@pytest.mark.parametrize("m", EVERY_RUN, ids=[m.id for m in EVERY_RUN])
def test_calibrating_on_a_run_never_makes_the_error_on_that_run_worse(m) -> None:
    cluster = m.cluster()
    calibration = calibrate(cluster, m.size_bytes, m.time_us, m.collective, m.algorithm, m.protocol, m.launch)
    before = compare_collective(cluster, m.collective, m.size_bytes, m.time_us, m.algorithm, m.protocol, m.launch)
    after = compare_collective(_apply(cluster, calibration), m.collective, m.size_bytes, m.time_us, m.algorithm,
                               m.protocol, m.launch)
    assert after.geomean_error_factor <= before.geomean_error_factor + 1e-12
    assert calibration.error_before == pytest.approx(before.geomean_error_factor)
    assert calibration.error_after == pytest.approx(after.geomean_error_factor)
    # The hardware stays the catalog's: only the achieved share of the line rate and a latency change.
    calibrated = _apply(cluster, calibration)
    assert (calibrated.nic_line_gbps, calibrated.scaleup_spec_gbps, calibrated.nics_per_node) == (
        cluster.nic_line_gbps, cluster.scaleup_spec_gbps, cluster.nics_per_node)


@pytest.mark.parametrize(("gpu", "nodes", "name"), [("h100-sxm", 1, "all_reduce"), ("h100-sxm", 2, "all_reduce"),
                                                    ("a100-sxm", 4, "all_reduce"), ("mi300x", 1, "all_reduce"),
                                                    ("h100-sxm", 2, "all_gather"), ("h100-sxm", 4, "alltoall")])
def test_a_run_the_model_already_matches_changes_nothing(gpu: str, nodes: int, name: str) -> None:
    cluster, _ = resolve_cluster(gpu, gpus_per_node=8, nodes=nodes)
    calibration = calibrate(cluster, SIZES, collective(cluster, name, SIZES).time_us, name)
    assert calibration.wire_efficiency is None
    assert calibration.extra_latency_us == 0.0
    assert not calibration.changes_anything
    assert calibration.error_after == pytest.approx(1.0)


@pytest.mark.parametrize(("nodes", "share", "extra_us"), [(4, 0.82, 10.0), (8, 0.6, 0.0), (4, 0.96, 25.0)])
def test_a_known_calibration_is_found_again(nodes: int, share: float, extra_us: float) -> None:
    # A sweep made by the model itself with slower NICs and a slower call: the fit finds both numbers.
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=nodes)
    slower = apply_calibration(cluster, network_efficiency=share, extra_latency_us=extra_us)
    calibration = calibrate(cluster, SIZES, allreduce(slower, SIZES).time_us)
    found = calibration.wire_efficiency if calibration.wire_efficiency is not None else calibration.model_efficiency
    assert found == pytest.approx(share, abs=0.005)
    assert calibration.extra_latency_us == pytest.approx(extra_us, abs=0.15)
    assert calibration.error_after < 1.002


def test_one_node_calibrates_the_scale_up_wire() -> None:
    cluster, _ = resolve_cluster("a100-sxm", gpus_per_node=8, nodes=1)
    slower = apply_calibration(cluster, scaleup_efficiency=0.7)
    calibration = calibrate(cluster, SIZES, allreduce(slower, SIZES).time_us)
    assert calibration.wire == "scale-up"
    assert calibration.wire_efficiency == pytest.approx(0.7, abs=0.005)
    assert calibration.link_values()["up_eff"] == 70.0
    assert calibration.link_values()["net_eff"] == 0.0


def test_the_calibration_reports_no_nic_rate_of_its_own() -> None:
    m = next(m for m in EVERY_RUN if m.id == "aws-p4de-2node-efa")
    calibration = calibrate(m.cluster(), m.size_bytes, m.time_us, launch=m.launch)
    data = calibration.as_dict()
    assert not any("nic" in key for key in data)
    assert 0 < data["wire_efficiency"] <= 1
    text = " ".join(calibration.sentences())
    assert "reaches" in text and "line rate" in text


def test_the_plateau_and_floor_are_the_measured_ends_of_the_sweep() -> None:
    m = next(m for m in EVERY_RUN if m.id == "h100-2node-k8s")
    calibration = calibrate(m.cluster(), m.size_bytes, m.time_us, launch=m.launch)
    large = m.size_bytes >= 256 * 2**20
    busbw = m.size_bytes[large] / (m.time_us[large] * 1e3) * 2 * 15 / 16
    assert calibration.plateau_busbw_gbps == pytest.approx(float(np.median(busbw)))


def test_one_process_driving_the_node_makes_the_hosts_issue_time_the_floor_of_every_call() -> None:
    # 8 x MI300X small all-reduce: 13-14 µs with one process per GPU (ROCm blog "mi300x-rccl-xgmi"),
    # 34-45 µs with one process driving all eight (AMD acceptance guide). nccl-tests times back-to-back
    # calls, so the host's issue time (4.21 µs per GPU, nccl-tests issue 123: 33.7 µs at -g 8 on a DGX
    # A100) overlaps the GPUs' time: a call takes the longer of the two, nothing is added.
    cluster, _ = resolve_cluster("mi300x", gpus_per_node=8, nodes=1)
    one = float(allreduce(cluster, [8]).time_us[0])
    driven = float(allreduce(apply_calibration(cluster, launch="single-process"), [8]).time_us[0])
    assert one < 33.7 * 0.9  # the GPUs' own time is below the host's: the host sets the call
    assert driven == pytest.approx(33.7)
    assert all(0.74 <= driven / measured <= 1.0 for measured in (34.0, 45.0))  # the small-message bar is x2
    # Where the GPUs' time is the longer (1 GiB), the launch mode changes nothing.
    big = [2**30]
    assert allreduce(apply_calibration(cluster, launch="single-process"), big).time_us == pytest.approx(
        allreduce(cluster, big).time_us)
    assert LAUNCH_OVERHEAD_US["single-process"] == 0.0


def test_the_host_issue_constant_reproduces_its_own_source_sweep() -> None:
    # nccl-tests issue 123 (DGX A100, NCCL_ALGO=Ring NCCL_MAX_NCHANNELS=1, -b 8 -e 128, -g 2..8): the
    # constant is the -g 8 floor over 8; the same sweep's -g 4..7 floors are then predicted within 1.5 %.
    measured = {4: 16.88, 5: 20.8, 6: 25.2, 7: 29.5, 8: 33.7}
    for gpus, time in measured.items():
        assert host_issue_us("single-process", gpus) == pytest.approx(time, rel=0.015)
    assert host_issue_us("process-per-gpu", 8) == 0.0


# 2 x H100 80GB HBM3 driven from one process (both ranks Pid 15386: nccl-tests -g 2, nThread 1 nGpus 2),
# out-of-place times at 1-64 KiB. Source: "NCCL Guide for DigitalOcean Bare Metal Machines", Step 6.2
# "Basic NCCL All-Reduce Test" (a public GitHub markdown page, host am4g2r31bm1; the file's repository was
# not identified from the index copy it was read in, so the run is pinned here and not packaged).
H100_2GPU_G2_SMALL = {1024: 15.75, 2048: 14.16, 4096: 13.10, 8192: 12.32, 16384: 12.17, 32768: 12.68, 65536: 14.05}


def test_one_process_driving_two_gpus_is_set_by_the_gpus_not_the_host() -> None:
    # Two GPUs from one thread: 2 x 4.21 = 8.4 µs of host issue per call, below the GPUs' own 11.8-12.3 µs,
    # so the model is the one-process-per-GPU time (12 µs; adding 20 µs whatever -g made it 32 µs, x2.0-2.6).
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=2, nodes=1)
    assert host_issue_us("single-process", 2) == pytest.approx(2 * 33.7 / 8)
    sizes, times = list(H100_2GPU_G2_SMALL), list(H100_2GPU_G2_SMALL.values())
    driven = compare_collective(cluster, "all_reduce", sizes, times, launch="single-process")
    assert driven.model_time_us == pytest.approx(allreduce(cluster, sizes).time_us)
    assert np.all(driven.model_time_us > host_issue_us("single-process", 2))
    assert np.all((driven.model_time_us > 11.0) & (driven.model_time_us < 13.0))  # measured 12.2-15.8 µs
    assert np.all((driven.time_ratio > 0.74) & (driven.time_ratio < 1.0))  # the small-message bar is x2


def test_bad_inputs_are_refused_with_their_name() -> None:
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    with pytest.raises(ValueError, match="launch"):
        apply_calibration(cluster, launch="threads")
    with pytest.raises(ValueError, match="network efficiency"):
        apply_calibration(cluster, network_efficiency=1.5)
    assert dataclasses.replace(cluster) == apply_calibration(cluster)
