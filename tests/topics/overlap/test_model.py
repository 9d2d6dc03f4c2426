"""The data-parallel step schedule, the overlap-fraction model and the rooflines (models/overlap.py)."""

import math
import shutil

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from interconnect.catalog import get_catalog
from interconnect.hardware.cluster import resolve_cluster
from interconnect.hardware.collectives import allreduce
from interconnect.topics.overlap.model import (
    DEFAULT_BUCKET_BYTES,
    MAX_BUCKETS,
    ModelShape,
    Production,
    check_claim,
    cluster_roofline_tokens,
    comm_share_for_saving,
    gradient_production,
    load_bucket_costs,
    make_buckets,
    node_sweep,
    overlap_step_time,
    playbook_ratios,
    scaling_book_rooflines,
    schedule_from_times,
    slowest_rank_lag,
    step_schedule,
    time_saved_fraction,
    token_sweep,
)
from interconnect.workloads.presets import load_model_presets

CLUSTER, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
PRESETS = load_model_presets()
LLAMA_8B = ModelShape.from_preset(PRESETS["llama3-8b"])
CUSTOM_8B = ModelShape.from_params(8e9, 32)


# --- rooflines ------------------------------------------------------------------------------------

# Austin et al., How to Scale Your Model, "How to Think About GPUs" (jax-ml.github.io/scaling-book/gpus/):
# "Within a node ... 990e12 / 450e9 = 2200"; "Within an SU or at the spine level ... 990e12 / 400e9 = 2475";
# Quiz 5 question 1 (B200): "2250e12 / 400e9 = 5625".
SCALING_BOOK = [2200, 2475, 5625]


def test_scaling_book_rooflines_rebuilt_from_catalog_figures_within_two_percent():
    rows = scaling_book_rooflines()
    assert [row.published_tokens for row in rows] == SCALING_BOOK
    for row, published in zip(rows, SCALING_BOOK, strict=True):
        assert row.tokens == pytest.approx(published, rel=0.02), row.label
        assert row.tokens == pytest.approx(row.flops_per_s / row.bandwidth_bytes_per_s)
        sources = get_catalog().sources
        assert row.source_ids and all(source in sources for source in row.source_ids)
    # the bandwidths the book uses: 450 GB/s NVLink per GPU, 400 GB/s per 8-GPU node (8 x 400 Gbit/s)
    assert [round(row.bandwidth_bytes_per_s / 1e9) for row in rows] == [450, 400, 400]


def test_cluster_roofline_is_the_book_figure_for_the_matching_cluster():
    one_node, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    assert cluster_roofline_tokens(one_node) == pytest.approx(2200, rel=0.02)
    assert cluster_roofline_tokens(CLUSTER) == pytest.approx(2475, rel=0.02)
    assert cluster_roofline_tokens(CLUSTER, "fp32") == pytest.approx(2 * cluster_roofline_tokens(CLUSTER))


# --- the schedule ---------------------------------------------------------------------------------


def bucket_times(cluster, buckets):
    result = allreduce(cluster, [buckets.size_bytes, buckets.last_bytes])
    return float(result.time_us[0]) * 1e-6, float(result.time_us[1]) * 1e-6


@pytest.mark.parametrize("workload", [LLAMA_8B, CUSTOM_8B], ids=["llama3-8b", "custom"])
@pytest.mark.parametrize("tokens", [256, 4096, 65536])
def test_without_overlap_the_step_is_compute_plus_every_bucket(workload, tokens):
    step = step_schedule(CLUSTER, workload, tokens, mode="none")
    t_full, t_last = bucket_times(CLUSTER, step.buckets)
    all_buckets = (step.buckets.count - 1) * t_full + t_last
    assert step.comm_s == pytest.approx(all_buckets, rel=1e-12)
    assert step.step_s == pytest.approx(step.forward_s + step.backward_s + step.optimizer_s + all_buckets, rel=1e-12)
    assert step.exposed_comm_s == pytest.approx(all_buckets, rel=1e-9)
    assert step.overlap_fraction == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("workload", [LLAMA_8B, ModelShape.from_preset(PRESETS["llama3-405b"])], ids=["8b", "405b"])
def test_ideal_overlap_with_ample_tokens_exposes_only_the_last_bucket(workload):
    step = step_schedule(CLUSTER, workload, 2_000_000, mode="ideal")
    assert step.exposed_comm_s == pytest.approx(step.last_bucket_time_s, rel=1e-9)
    assert step.contention_s == 0


def test_bucketed_overlap_with_ample_tokens_exposes_the_embedding_gradient():
    # The input embedding's gradient (128,256 x 4,096 bf16 = 1.05 GB) is complete only at the end of the
    # backward pass, so its buckets cannot hide however many tokens there are.
    step = step_schedule(CLUSTER, LLAMA_8B, 2_000_000, mode="overlap")
    embedding_bytes = PRESETS["llama3-8b"].vocab * PRESETS["llama3-8b"].hidden * 2
    tail_buckets = math.ceil(embedding_bytes / step.buckets.size_bytes)
    assert step.exposed_comm_s == pytest.approx((tail_buckets - 1) * step.bucket_time_s + step.last_bucket_time_s,
                                                rel=0.05)
    assert step.exposed_comm_s > 10 * step.last_bucket_time_s


def test_step_identity_and_event_list_are_consistent():
    step = step_schedule(CLUSTER, LLAMA_8B, 8192, sm_contention=0.15)
    assert step.step_s == pytest.approx(step.compute_s + step.contention_s + step.tail_s, rel=1e-12)
    assert step.exposed_comm_s == pytest.approx(step.contention_s + step.tail_s, rel=1e-12)
    events = step.events
    assert len(events) == 3 + step.buckets.count
    starts, ends = events.buckets()
    assert np.all(np.diff(starts) > 0) and np.all(starts[1:] >= ends[:-1] - 1e-15)  # one stream, in order
    assert np.all(ends - starts > 0)
    assert events.end_s.max() == pytest.approx(step.step_s)
    production = gradient_production(step.workload, 2, "overlap")
    ready = step.forward_s + production.fraction(step.buckets.end_bytes) * (step.backward_s + step.contention_s)
    assert np.all(starts >= ready - 1e-12)  # never before its gradients exist
    rows = events.rows()
    assert rows[0]["label"] == "forward" and rows[-1]["label"].startswith("all-reduce of bucket")
    assert {row["lane"] for row in rows} == {"compute", "communication"}


def test_sm_contention_slows_compute_only_while_communication_runs():
    clean = step_schedule(CLUSTER, LLAMA_8B, 16384)
    slowed = step_schedule(CLUSTER, LLAMA_8B, 16384, sm_contention=0.2)
    assert clean.contention_s == 0
    overlapped = slowed.comm_s - slowed.tail_s
    assert slowed.contention_s == pytest.approx(0.2 * overlapped, rel=1e-3)  # the fixed point
    assert slowed.step_s > clean.step_s
    assert step_schedule(CLUSTER, LLAMA_8B, 16384, sm_contention=0.2, mode="ideal").contention_s == 0


def test_the_sweeps_use_the_same_closed_form_as_the_schedule():
    tokens = [512, 4096, 32768]
    sweep = token_sweep(CLUSTER, LLAMA_8B, tokens, bucket_bytes=DEFAULT_BUCKET_BYTES, sm_contention=0.1)
    for row, mode in enumerate(sweep.series):
        for column, count in enumerate(tokens):
            step = step_schedule(CLUSTER, LLAMA_8B, count, mode=mode, sm_contention=0.1)
            assert sweep.exposed_s[row, column] == pytest.approx(step.exposed_comm_s, rel=1e-9, abs=1e-12)
            assert sweep.utilization[row, column] == pytest.approx(step.compute_utilization, rel=1e-9)


def test_node_sweep_ring_latency_stops_dp_from_hiding_at_scale():
    # Ultra-Scale Playbook: "at the 512+ GPU scale ... bound by ring latency ... we can no longer fully
    # overlap the DP communications". With 25 MiB buckets and a forced ring, exposed time keeps growing.
    sweep = node_sweep(CLUSTER, LLAMA_8B, 16384, [8, 16, 32, 64, 128], bucket_bytes=DEFAULT_BUCKET_BYTES)
    ring = sweep.exposed_s[sweep.series.index("ring")]
    assert np.all(np.diff(ring[1:]) > 0)
    assert ring[-1] > 10 * ring[1]
    point = step_schedule(CLUSTER.with_nodes(64), LLAMA_8B, 16384, algorithm="ring")
    assert ring[3] == pytest.approx(point.exposed_comm_s, rel=1e-9)


# --- what a bucket costs besides its bytes ---------------------------------------------------------

LINEAR = Production((0.0, 100e6), (0.0, 1.0))


def _four_buckets(mode, **kwargs):
    # 100 MB of gradient in four 25 MB buckets of 2 ms each; forward 30 ms, backward 60 ms, optimizer 5 ms
    return schedule_from_times(ModelShape.from_params(25e6, 50), 1, 0.030, 0.060, 0.005, make_buckets(100e6, 25e6),
                               0.002, 0.002, production=LINEAR, mode=mode, **kwargs)


def test_launch_cost_without_overlap_is_count_times_launch_on_the_serial_step():
    step = _four_buckets("none", bucket_launch_s=50e-6)
    # closed form: T = T_fwd + T_bwd + n t_launch + n t_bucket + T_opt = 30 + 60 + 0.2 + 8 + 5 ms
    assert step.step_s == pytest.approx(0.1032, rel=1e-12)
    assert step.launch_s == pytest.approx(4 * 50e-6, rel=1e-12)
    assert step.no_overlap_step_s == pytest.approx(step.step_s, rel=1e-12)


def test_launch_cost_with_hidden_buckets_stretches_the_backward_pass_only():
    # every bucket but the last hides (2 ms each against 15 ms of backward per bucket), so
    # T = T_fwd + (T_bwd + n t_launch) + t_last + T_opt = 30 + 60.2 + 2 + 5 ms
    step = _four_buckets("overlap", bucket_launch_s=50e-6)
    assert step.step_s == pytest.approx(0.0972, rel=1e-12)
    assert step.tail_s == pytest.approx(0.002, rel=1e-9)
    assert step.exposed_comm_s == pytest.approx(0.0022, rel=1e-9)  # the launches and the last bucket
    assert step.backward_end_s == pytest.approx(0.0902, rel=1e-12)


def test_the_ideal_bound_charges_no_launch_contention_or_wait():
    ideal = _four_buckets("ideal", bucket_launch_s=50e-6, sm_contention=0.3, straggler=0.05)
    assert (ideal.launch_s, ideal.contention_s, ideal.wait_s) == (0.0, 0.0, 0.0)
    assert ideal.step_s == pytest.approx(0.097, rel=1e-12)


def test_the_slowest_rank_sets_the_pace_of_forward_and_backward():
    plain, lagged = _four_buckets("overlap"), _four_buckets("overlap", straggler=0.05)
    # closed form: forward and backward 5 % longer, the rest unchanged: wait = 0.05 x 90 ms
    assert lagged.wait_s == pytest.approx(0.0045, rel=1e-12)
    assert lagged.step_s - plain.step_s == pytest.approx(0.0045, rel=1e-9)
    assert lagged.forward_s == plain.forward_s and lagged.backward_s == plain.backward_s


def test_step_is_the_sum_of_its_breakdown_with_every_cost_on():
    step = step_schedule(CLUSTER, LLAMA_8B, 8192, sm_contention=0.19, bucket_launch_s=12e-6, speed_spread=0.08)
    assert step.step_s == pytest.approx(step.compute_s + step.wait_s + step.launch_s + step.contention_s
                                        + step.tail_s, rel=1e-12)
    assert step.exposed_comm_s == pytest.approx(step.step_s - step.compute_s, rel=1e-12)
    assert step.launch_s == pytest.approx(step.buckets.count * 12e-6, rel=1e-12)
    # 32 ranks: the slowest of 32 lags w/2 x 31/33 behind a typical GPU
    assert step.wait_s == pytest.approx(0.04 * 31 / 33 * (step.forward_s + step.backward_s), rel=1e-9)
    assert step.events.end_s.max() == pytest.approx(step.step_s)


def test_slowest_rank_lag_is_the_expected_maximum_of_uniform_speeds():
    spread = 0.08
    assert slowest_rank_lag(1, spread) == 0
    grid = np.linspace(-spread / 2, spread / 2, 200_001)
    for n in (2, 3, 8, 16):
        # E[max of n uniform draws] = integral of x d(F(x)^n), F uniform on [-w/2, w/2], by the trapezoid rule
        cdf_n = ((grid + spread / 2) / spread) ** n
        expected = grid[-1] - np.trapezoid(cdf_n, grid)
        assert float(slowest_rank_lag(n, spread)) == pytest.approx(expected, rel=1e-6)
    assert float(slowest_rank_lag(10**6, spread)) == pytest.approx(spread / 2, rel=1e-5)


def test_sourced_bucket_costs_match_their_sources():
    costs = load_bucket_costs()
    # arXiv 2507.03114, abstract: "an average computational slowdown of 18.9%, with a maximum of 40.0%"
    assert costs.contention == pytest.approx(0.189, abs=0.005)
    # Sinha et al., SC22 (arXiv 2208.11035), abstract: "8% (max 22%) average performance variation"
    assert costs.spread == 0.08
    # PyTorch DDP benchmark README, the four 1-GPU DDP rows: p50 with 25 MB buckets and the throughput
    # change with 1 MB buckets; the per-bucket cost is the time added over the buckets added (median)
    from interconnect.topics.overlap.ddp_benchmark import load_ddp_benchmark
    per_bucket = []
    for row in load_ddp_benchmark():
        if row["gpus"] == 1 and row["machines"] == 1:
            added = make_buckets(row["params"] * 4, 2**20).count - make_buckets(row["params"] * 4, 25 * 2**20).count
            slower = row["p50_s"] / (1 + row["bucket1_diff_pct"] / 100) - row["p50_s"]
            per_bucket.append(slower / added)
    assert len(per_bucket) == 4
    assert costs.launch_s == pytest.approx(float(np.median(per_bucket)), abs=1e-6)
    for cost in (costs.launch, costs.sm_contention, costs.gpu_spread):
        assert cost.url.startswith("https://") and cost.source and cost.note


def test_sweeps_carry_the_bucket_costs_like_the_schedule():
    kwargs = {"sm_contention": 0.19, "bucket_launch_s": 12e-6, "speed_spread": 0.08}
    tokens = [1024, 16384]
    sweep = token_sweep(CLUSTER, LLAMA_8B, tokens, bucket_bytes=DEFAULT_BUCKET_BYTES, **kwargs)
    for row, mode in enumerate(sweep.series):
        for column, count in enumerate(tokens):
            step = step_schedule(CLUSTER, LLAMA_8B, count, mode=mode, **kwargs)
            assert sweep.step_s[row, column] == pytest.approx(step.step_s, rel=1e-9)
    nodes = node_sweep(CLUSTER, LLAMA_8B, 8192, [2, 16], bucket_bytes=DEFAULT_BUCKET_BYTES, algorithms=("auto",),
                       **kwargs)
    for column, count in enumerate([2, 16]):
        step = step_schedule(CLUSTER.with_nodes(count), LLAMA_8B, 8192, **kwargs)
        assert nodes.step_s[0, column] == pytest.approx(step.step_s, rel=1e-9)


def test_bucket_costs_reject_out_of_range_values():
    with pytest.raises(ValueError, match="launch time per bucket"):
        step_schedule(CLUSTER, LLAMA_8B, 8192, bucket_launch_s=-1e-6)
    with pytest.raises(ValueError, match="speed spread"):
        step_schedule(CLUSTER, LLAMA_8B, 8192, speed_spread=0.9)


# --- properties -----------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    preset=st.sampled_from(["llama3-8b", "llama3-70b", "custom"]),
    mode=st.sampled_from(["overlap", "ideal", "none"]),
    contention=st.sampled_from([0.0, 0.1, 0.4]),
    bucket_mib=st.sampled_from([1, 4, 25, 100, 1000]),
    low=st.integers(min_value=1, max_value=200_000),
    factor=st.floats(min_value=1.0, max_value=50.0),
    launch_us=st.sampled_from([0.0, 12.0, 200.0]),
    spread=st.sampled_from([0.0, 0.08, 0.3]),
)
def test_more_tokens_never_increase_the_all_reduce_after_backward(preset, mode, contention, bucket_mib, low, factor,
                                                                launch_us, spread):
    # The tail only: the exposed communication in all also counts the wait for the slowest GPU, which grows
    # with the compute.
    workload = CUSTOM_8B if preset == "custom" else ModelShape.from_preset(PRESETS[preset])
    kwargs = {"mode": mode, "sm_contention": contention, "bucket_bytes": bucket_mib * 2**20,
              "bucket_launch_s": launch_us * 1e-6, "speed_spread": spread}
    fewer = step_schedule(CLUSTER, workload, low, **kwargs)
    more = step_schedule(CLUSTER, workload, low * factor, **kwargs)
    assert more.tail_s <= fewer.tail_s * (1 + 1e-9) + 1e-12


@settings(max_examples=25, deadline=None)
@given(
    best_count=st.floats(min_value=2.5, max_value=140.0),
    bandwidth_gbps=st.floats(min_value=20.0, max_value=800.0),
    params=st.floats(min_value=2e8, max_value=4e9),
    slack=st.floats(min_value=1.2, max_value=20.0),
)
def test_the_best_bucket_size_is_where_the_alpha_beta_model_puts_it(best_count, bandwidth_gbps, params, slack):
    """Ideal overlap, buckets of G / n bytes, bucket time t = alpha + b / B, backward T.

    Exposed time is max(t, T/n + n alpha + G/B - T): the last bucket when communication keeps up,
    the backlog otherwise. Bigger buckets (small n) pay a long last bucket, smaller ones pay n
    latencies, so the best count is n_opt = max((T - G/B) / alpha, sqrt(T / alpha)).

    The latency alpha is solved from a drawn optimum ``best_count`` (both terms fall as alpha grows, so
    alpha = max((T - G/B) / n, T / n^2) puts n_opt at n), which keeps every example inside the swept
    counts; drawing alpha itself left most examples outside them (Hypothesis' filter_too_much).
    """
    beta = 1 / (bandwidth_gbps * 1e9)
    gradient = params * 2
    pure_transfer = gradient * beta
    alpha = max((slack - 1) * pure_transfer / best_count, slack * pure_transfer / best_count**2)

    def bucket_time(size):
        return alpha + np.asarray(size) * beta

    workload = ModelShape.from_params(params, 32)
    probe = step_schedule(CLUSTER, workload, 1024, mode="ideal", bucket_time_fn=bucket_time)
    tokens = 1024 * slack * gradient * beta / probe.backward_s  # backward = slack x the pure transfer time
    backward = probe.backward_s * tokens / 1024
    n_opt = max((backward - gradient * beta) / alpha, math.sqrt(backward / alpha))
    assume(2 <= n_opt <= 150)

    counts = np.arange(1, 301)
    exposed = []
    for n in counts:
        step = step_schedule(CLUSTER, workload, tokens, mode="ideal", bucket_bytes=gradient / n,
                             bucket_time_fn=bucket_time)
        assert step.buckets.count == n
        expected = max(alpha + gradient * beta / n, backward / n + n * alpha + gradient * beta - backward)
        assert step.exposed_comm_s == pytest.approx(expected, rel=1e-6, abs=1e-12)
        exposed.append(step.exposed_comm_s)
    best = int(counts[int(np.argmin(exposed))])
    assert best in (math.floor(n_opt), math.ceil(n_opt)) or exposed[best - 1] == pytest.approx(
        min(exposed[math.floor(n_opt) - 1], exposed[math.ceil(n_opt) - 1]), rel=1e-9)


# --- inputs that make no sense --------------------------------------------------------------------


def test_zero_tokens_and_bad_modes_are_refused():
    with pytest.raises(ValueError, match="at least 1"):
        step_schedule(CLUSTER, LLAMA_8B, 0)
    with pytest.raises(ValueError, match="mode"):
        step_schedule(CLUSTER, LLAMA_8B, 1024, mode="both")
    with pytest.raises(ValueError, match="dtype"):
        step_schedule(CLUSTER, LLAMA_8B, 1024, gradient_dtype="int3")
    with pytest.raises(ValueError, match="positive"):
        make_buckets(1e9, float("nan"))


def test_a_bucket_larger_than_the_model_is_one_bucket_with_a_note():
    step = step_schedule(CLUSTER, LLAMA_8B, 4096, bucket_bytes=1e15)
    assert step.buckets.count == 1
    assert "larger than" in step.notes[0]
    assert step.exposed_comm_s == pytest.approx(step.comm_s)  # nothing to overlap with


def test_too_many_buckets_are_merged_with_a_note():
    buckets = make_buckets(810e9, 1024)
    assert buckets.count == MAX_BUCKETS and "buckets" in buckets.notes[0]


def test_one_gpu_has_nothing_to_communicate():
    single, _ = resolve_cluster("h100-sxm", gpus_per_node=1, nodes=1)
    step = step_schedule(single, LLAMA_8B, 4096)
    assert step.comm_s == 0 and step.exposed_comm_s == 0 and step.compute_utilization == pytest.approx(1.0)


# --- the overlap-fraction model and the episode's claim ---------------------------------------------


def test_overlap_fraction_formula():
    # T = T_comp + (1 - f) T_comm
    assert overlap_step_time(100.0, 50.0, 0.85)[0] == pytest.approx(107.5)
    assert overlap_step_time(100.0, 50.0, [0.0, 1.0]).tolist() == [150.0, 100.0]


def test_the_claim_needs_communication_at_35_percent_of_the_serialized_step():
    # "Overlapping ~85% of communication cut iteration time ~30%": saving = f s, so s = 0.30 / 0.85 = 35.3 %,
    # and communication was 0.545 of compute. No source states this (the claim is unsourced).
    assert comm_share_for_saving(0.30, 0.85) == pytest.approx(0.3529, abs=1e-4)
    check = check_claim(step_schedule(CLUSTER, LLAMA_8B, 4096))
    assert check.needed_comm_share == pytest.approx(0.3529, abs=1e-4)
    assert check.needed_comm_over_compute == pytest.approx(0.5455, abs=1e-4)
    assert time_saved_fraction(check.needed_comm_share, 0.85)[0] == pytest.approx(0.30)


def test_claim_check_reports_the_steps_own_fraction_and_saving():
    step = step_schedule(CLUSTER, LLAMA_8B, 8192)
    check = check_claim(step)
    assert check.step_fraction == pytest.approx(step.overlap_fraction)
    assert check.step_saving == pytest.approx((step.no_overlap_step_s - step.step_s) / step.no_overlap_step_s)
    # without contention the step obeys T = T_comp + (1 - f) T_comm exactly
    assert overlap_step_time(step.compute_s, step.comm_s, step.overlap_fraction)[0] == pytest.approx(step.step_s)


def test_playbook_ratios_use_the_corrected_dp_form():
    ratios = playbook_ratios(LLAMA_8B, 4096, CLUSTER)
    dp = CLUSTER.ranks
    assert ratios["dp"] == pytest.approx((dp - 1) / dp * cluster_roofline_tokens(CLUSTER) / 4096)
    assert ratios["zero3"] == pytest.approx(ratios["dp"] / 2)
    # TP inside an 8-GPU NVLink 4 node: (8 - 1) / (2 x 4096) x 989.4e12 / 450e9 = 1.88 (exposed)
    assert ratios["tp"] == pytest.approx(7 / (2 * 4096) * 989.4e12 / 450e9, rel=1e-6)
    # PP, one stage per node (32 / 4 = 8 layers), one 400 Gbit/s NIC per GPU: C / (32 h L W) = 0.019
    assert ratios["pp"] == pytest.approx(989.4e12 / (32 * 4096 * 8 * 50e9), rel=1e-6)


@pytest.mark.parametrize("algorithm", ["nvls", "collnet"])
def test_an_algorithm_the_cluster_cannot_run_falls_back_with_a_note(algorithm):
    # NVLS needs one NVLink domain, SHARP/CollNet needs the switches' reduction: neither on 4 x 8 H100 here.
    step = step_schedule(CLUSTER, LLAMA_8B, 4096, algorithm=algorithm)
    assert math.isfinite(step.step_s) and step.algorithm != algorithm
    assert f"The {algorithm} all-reduce cannot run on this cluster" in step.notes[-1]
    sweep = token_sweep(CLUSTER, LLAMA_8B, [4096], bucket_bytes=DEFAULT_BUCKET_BYTES, algorithm=algorithm)
    assert np.all(np.isfinite(sweep.exposed_s))


@settings(max_examples=30, deadline=None)
@given(
    mode=st.sampled_from(["overlap", "none"]),
    bucket_mib=st.sampled_from([1, 25, 400]),
    tokens=st.integers(min_value=64, max_value=500_000),
    launch_us=st.floats(min_value=0.0, max_value=500.0),
    contention=st.floats(min_value=0.0, max_value=0.8),
    spread=st.floats(min_value=0.0, max_value=0.5),
)
def test_costs_per_bucket_never_make_a_step_faster(mode, bucket_mib, tokens, launch_us, contention, spread):
    kwargs = {"mode": mode, "bucket_bytes": bucket_mib * 2**20}
    plain = step_schedule(CLUSTER, LLAMA_8B, tokens, **kwargs)
    costly = step_schedule(CLUSTER, LLAMA_8B, tokens, bucket_launch_s=launch_us * 1e-6, sm_contention=contention,
                           speed_spread=spread, **kwargs)
    assert costly.step_s >= plain.step_s * (1 - 1e-12)
    assert costly.step_s == pytest.approx(costly.compute_s + costly.wait_s + costly.launch_s + costly.contention_s
                                          + costly.tail_s, rel=1e-12)
    assert costly.exposed_comm_s >= plain.exposed_comm_s * (1 - 1e-12) - 1e-15


@pytest.mark.parametrize("bucket_bytes", [1e-320, 5e-324, 1.0])
def test_a_denormal_bucket_is_merged_like_any_tiny_one_not_an_overflow(bucket_bytes):
    # Issue 21: ceil(gradient / 1e-320) was ceil(inf), an OverflowError.
    buckets = make_buckets(16e9, bucket_bytes)
    assert buckets.count == MAX_BUCKETS and buckets.size_bytes == pytest.approx(16e9 / MAX_BUCKETS)
    assert f"({MAX_BUCKETS:,} buckets)" in buckets.notes[0]


def _copy_bucket_costs(tmp_path):
    from interconnect.datafiles.tables import packaged_data_file

    target = tmp_path / "ddp-bucket-costs.toml"
    shutil.copy(packaged_data_file("published/ddp-bucket-costs.toml"), target)
    return target


def test_the_packaged_bucket_costs_read_the_same_from_a_copy(tmp_path):
    assert load_bucket_costs(_copy_bucket_costs(tmp_path)) == load_bucket_costs()


@pytest.mark.parametrize(("old", "new", "message"), [
    ('value = "12 us"', 'value = "12 m"', r"\[launch\]: 'value': expected a time"),
    ('value = "12 us"', 'value = "-12 us"', r"\[launch\]: 'value': expected a positive time"),
    ('value = "0.189"', 'value = "1.89"', r"\[sm_contention\]: 'value' must be a fraction in \[0, 1\)"),
    ('basis = "measured"', 'basis = "rumour"', r"\[launch\]: 'basis' must be one of"),
    ('value = "0.08"\n', '', r"\[gpu_spread\]: missing key\(s\) value"),
    ('[gpu_spread]', '[gpu_speed]', r"unknown table\(s\) gpu_speed"),
])
def test_the_bucket_costs_loader_names_the_table_and_key_of_a_broken_file(tmp_path, old, new, message):
    from interconnect.datafiles.bucket_costs import OverlapDataError

    path = _copy_bucket_costs(tmp_path)
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(OverlapDataError, match=rf"^ddp-bucket-costs\.toml: .*{message}"):
        load_bucket_costs(path)
