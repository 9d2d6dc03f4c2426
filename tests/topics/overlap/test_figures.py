"""The Overlap page's figure builders: one trace for all buckets, readable units, marked thresholds."""

import numpy as np
import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.overlap.figures import (
    TIMELINE_SEGMENTS,
    claim_figure,
    node_sweep_figure,
    timeline_figure,
    token_sweep_figure,
)
from interconnect.topics.overlap.model import (
    ModelShape,
    check_claim,
    cluster_roofline_tokens,
    node_sweep,
    step_schedule,
    token_sweep,
)
from interconnect.workloads.presets import load_model_presets

CLUSTER, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
LLAMA_8B = ModelShape.from_preset(load_model_presets()["llama3-8b"])


def test_timeline_draws_every_bucket_of_a_small_model_in_one_trace():
    step = step_schedule(CLUSTER, ModelShape.from_params(1e9, 16), 4096)
    figure = timeline_figure(step)
    assert len(figure.data) == 2  # compute lane, communication lane
    comm = figure.data[1]
    assert len(comm.x) == step.buckets.count
    assert np.sum(comm.x) == pytest.approx(step.comm_s * 1e3)  # ms: every bucket's duration drawn
    assert figure.layout.xaxis.title.text == "time into the step (ms)"


def test_timeline_of_405b_merges_thirty_thousand_buckets_into_one_trace():
    step = step_schedule(CLUSTER, ModelShape.from_preset(load_model_presets()["llama3-405b"]), 4096)
    assert step.buckets.count > 30_000
    figure = timeline_figure(step, max_segments=600)
    comm = figure.data[1]
    assert len(figure.data) == 2 and 1 <= len(comm.x) <= 601
    # merged segments still cover the communication from its first start to its last end
    starts, ends = step.events.buckets()
    assert comm.base[0] == pytest.approx(starts[0]) and comm.base[-1] + comm.x[-1] == pytest.approx(ends[-1])
    assert figure.layout.xaxis.title.text == "time into the step (s)"
    assert f"{step.buckets.count:,} buckets" in figure.layout.title.text


def test_timeline_draws_at_most_its_default_segment_count():
    step = step_schedule(CLUSTER, ModelShape.from_preset(load_model_presets()["llama3-405b"]), 4096)
    comm = timeline_figure(step).data[1]
    assert TIMELINE_SEGMENTS < 600 and len(comm.x) <= TIMELINE_SEGMENTS + 1
    assert np.sum(comm.x) == pytest.approx(step.events.buckets()[1][-1] - step.events.buckets()[0][0], rel=0.05)


def test_timeline_shades_the_exposed_tail():
    step = step_schedule(CLUSTER, LLAMA_8B, 4096)
    figure = timeline_figure(step)
    assert any(a.text.startswith("exposed") for a in figure.layout.annotations)
    assert figure.layout.shapes and figure.layout.shapes[0].x1 == pytest.approx(
        (step.forward_s + step.backward_s + step.exposed_comm_s) * 1e3)


def test_token_sweep_figure_marks_the_rooflines_and_uses_decade_time_ticks():
    sweep = token_sweep(CLUSTER, LLAMA_8B, np.geomspace(256, 262144, 24), bucket_bytes=25 * 2**20)
    figure = token_sweep_figure(sweep, current_tokens=4096, hide_threshold_tokens=17_000,
                                roofline_tokens=cluster_roofline_tokens(CLUSTER))
    texts = [a.text for a in figure.layout.annotations]
    assert any(t.startswith("Scaling Book C/W 2,47") for t in texts)
    assert any(t.startswith("hides from 17,000") for t in texts)
    assert figure.layout.xaxis.type == "log" and figure.layout.yaxis.type == "log"
    assert all(text.endswith(("µs", "ms", " s")) for text in figure.layout.yaxis.ticktext)
    assert len(figure.data) == 2 * len(sweep.series)


def test_node_sweep_figure_marks_512_gpus():
    sweep = node_sweep(CLUSTER, LLAMA_8B, 8192, [1, 4, 16, 64, 256], bucket_bytes=25 * 2**20)
    figure = node_sweep_figure(sweep, gpus_per_node=8, current_nodes=4, labels={"auto": "NCCL-like"})
    assert any(a.text == "512 GPUs (Playbook)" for a in figure.layout.annotations)
    assert figure.data[0].name == "NCCL-like"


def test_claim_figure_places_the_claim_at_35_percent():
    check = check_claim(step_schedule(CLUSTER, LLAMA_8B, 8192))
    figure = claim_figure(claimed_fraction=check.claimed_fraction, claimed_saving=check.claimed_saving,
                          step_fraction=check.step_fraction, step_share=check.step_comm_share,
                          step_saving=check.step_saving)
    claim = next(trace for trace in figure.data if trace.name == "the claim")
    assert claim.x[0] == pytest.approx(0.3529, abs=1e-4) and claim.y[0] == pytest.approx(0.30)
