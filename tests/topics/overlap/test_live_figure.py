"""The Overlap page's live chart: every slider position is the step the core schedules on its own."""

from __future__ import annotations

import math

import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.overlap.live_figure import token_family_spec
from interconnect.topics.overlap.model import MODES, ModelShape, load_bucket_costs, step_schedule
from interconnect.topics.overlap.sweep import (
    BUCKET_GRID_BYTES,
    TOKEN_GRID,
    live_bucket_sizes,
    live_token_counts,
    token_bucket_family,
)
from interconnect.units import format_seconds
from interconnect.workloads.presets import load_model_presets


def _duration(seconds: float) -> str:
    return format_seconds(float(seconds)) if seconds > 0 else "0 s"


def test_the_grids_always_hold_the_pages_own_values():
    assert live_token_counts(4096) == TOKEN_GRID  # on the grid already
    assert 5000 in live_token_counts(5000) and live_token_counts(0)[0] == 1
    assert live_token_counts(10**12, maximum=100_000_000)[-1] == 100_000_000
    assert 25 * 2**20 in live_bucket_sizes(25 * 2**20) and 2.0**10 in live_bucket_sizes(2.0**10)
    assert set(BUCKET_GRID_BYTES) <= set(live_bucket_sizes(3e9))


@pytest.mark.parametrize("model, mode, nodes", [("llama3-8b", "overlap", 4), ("llama3-70b", "ideal", 16),
                                                ("llama3-8b", "none", 2)])
def test_every_position_equals_the_step_the_core_schedules(model, mode, nodes):
    """The sentence beside the slider and the thick line at the page's bucket size are, at each token
    count, what step_schedule gives for that step on its own (the page's metrics use it too)."""
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=nodes)
    workload = ModelShape.from_preset(load_model_presets()[model])
    costs = load_bucket_costs()
    kwargs = {"sm_contention": costs.contention, "bucket_launch_s": costs.launch_s, "speed_spread": costs.spread}
    bucket = 25 * 2**20
    tokens = live_token_counts(4096)
    sizes = live_bucket_sizes(bucket)
    family = token_bucket_family(cluster, workload, tokens, sizes, **kwargs)
    spec = token_family_spec(family, 4096, bucket, mode)
    assert spec["slider"]["values"] == [float(t) for t in tokens]
    assert spec["slider"]["index"] == tokens.index(4096)
    thick = next(series for series in spec["series"] if series["width"] == 4.0)
    x = spec["x"]["values"].index(float(bucket))
    assert spec["markers"][0]["x"] == float(bucket)
    for position, count in enumerate(tokens):
        step = step_schedule(cluster, workload, count, bucket_bytes=bucket, mode=mode, **kwargs)
        readout = spec["readouts"][position]
        assert readout.startswith(f"{count:,} tokens per GPU: step {_duration(step.step_s)}, "
                                  f"{_duration(step.exposed_comm_s)} of it exposed"), readout
        assert f"compute share {step.compute_utilization:.0%} ({step.buckets.count:,} buckets" in readout
        assert math.isclose(thick["y"][position][x], step.compute_utilization, rel_tol=1e-9)


def test_other_bucket_sizes_and_modes_on_the_chart_match_the_core_too():
    cluster, _ = resolve_cluster("b200", gpus_per_node=8, nodes=8)
    workload = ModelShape.from_params(8e9, 32)
    sizes = (2.0**20, 2.0**27)
    family = token_bucket_family(cluster, workload, (1024, 65536), sizes, bucket_launch_s=12e-6)
    for m, mode in enumerate(MODES):
        for i, tokens in enumerate((1024, 65536)):
            for j, size in enumerate(sizes):
                step = step_schedule(cluster, workload, tokens, bucket_bytes=size, mode=mode, bucket_launch_s=12e-6)
                assert math.isclose(family.step_s[m, i, j], step.step_s, rel_tol=1e-9)
                assert math.isclose(family.utilization[m, i, j], step.compute_utilization, rel_tol=1e-9)


def test_present_mode_enlarges_the_text():
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    family = token_bucket_family(cluster, ModelShape.from_params(8e9, 32), (4096,), (2.0**24,))
    assert token_family_spec(family, 4096, 2.0**24, "overlap", present=True)["font_scale"] > 1
    assert token_family_spec(family, 4096, 2.0**24, "overlap")["font_scale"] == 1
