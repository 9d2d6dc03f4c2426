"""What the All-reduce page shows: sweeps, crossover, ring limit, node curve and the checked claims."""

import numpy as np
import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.hardware.collectives import allreduce
from interconnect.topics.allreduce.view import (
    PLAYBOOK_CLUSTER,
    SIZES_BYTES,
    allreduce_view,
    hierarchical_speedup,
    measured_busbw_gbps,
    node_count_curve,
    playbook_curve,
    traffic_per_gpu,
)


def cluster(nodes=1, gpu="h100-sxm", **kwargs):
    result, warnings = resolve_cluster(gpu, gpus_per_node=8, nodes=nodes, **kwargs)
    assert warnings == []
    return result


def test_sizes_span_8_bytes_to_16_gib():
    assert SIZES_BYTES[0] == 8 and SIZES_BYTES[-1] == 16 * 2**30
    assert np.all(np.diff(SIZES_BYTES) > 0)


def test_view_covers_every_algorithm_and_the_choice_is_never_slower_than_ncc_candidates():
    view = allreduce_view(cluster(nodes=4))
    finite = {name: t for name, t in view.time_us_by_algorithm.items() if np.isfinite(t).all()}
    assert {"ring", "tree", "flat_ring", "hierarchical"} <= set(finite)
    assert view.chosen.time_us.shape == SIZES_BYTES.shape
    # Latency-bound below the crossover, bandwidth-bound above: crossover inside the swept range.
    assert SIZES_BYTES[0] < view.crossover_bytes < SIZES_BYTES[-1]


def test_single_node_ring_limit_is_nvlink_and_nvls_beats_it():
    # NCCL plans 18 x 20.6 GB/s per H100 (topo.h); NVLS busbw ~480 GB/s exceeds it (nccl-tests #212).
    view = allreduce_view(cluster(nodes=1))
    assert view.wire_gbps == pytest.approx(370.8)
    assert view.busbw_above_wire[-1]


def test_multi_node_ring_limit_is_the_servers_nics_together():
    # DGX A100: 8 HDR NICs x ~24 GB/s -> NVIDIA measured 192 GB/s busbw across nodes (NCCL issue 812).
    view = allreduce_view(cluster(nodes=4, gpu="a100-sxm"))
    assert view.wire_gbps == pytest.approx(8 * 24.0, rel=0.05)


def test_node_curve_falls_with_cluster_size_at_256_mib():
    curve = node_count_curve(cluster(), 2**28)
    assert curve.node_counts[0] == 1 and curve.node_counts[-1] == 1024
    assert curve.busbw_chosen[0] > curve.busbw_chosen[-1]
    assert np.all(np.isfinite(curve.busbw_chosen))


def test_playbook_curve_is_the_cited_one():
    # Ultra-Scale Playbook chart data (pp_comm_bandwidth): 436 -> 362 -> 160 -> 99.6 -> 84.7 -> 64.9 -> 32.9 GB/s
    # for 1..64 nodes.
    curve = playbook_curve()
    assert list(curve.x) == [1, 2, 4, 8, 16, 32, 64]
    assert list(curve.busbw_gbps) == [436, 362, 160, 99.6, 84.7, 64.9, 32.9]
    assert curve.source_url.startswith("https://")


def test_traffic_per_gpu_closed_forms():
    # flat ring 2(n-1)/n S; hierarchical 2(k-1)/k S/g. 4 nodes x 8 GPUs, S = 1 MiB.
    size = 2**20
    traffic = traffic_per_gpu(cluster(nodes=4), size)
    assert traffic["flat_ring"] == pytest.approx(2 * 31 / 32 * size)
    assert traffic["hierarchical"] == pytest.approx(2 * 3 / 4 * size / 8)
    assert traffic["ring"] == pytest.approx(2 * 31 / 32 * size / 8)


def test_speedup_at_512_gpus_depends_on_size_and_baseline():
    flat, ring = hierarchical_speedup(cluster(nodes=4))
    assert flat.ranks == ring.ranks == 512
    assert flat.lowest < flat.highest and flat.lowest > 1  # always better than a node-unaware ring
    assert ring.highest < flat.lowest  # much less to gain against NCCL's ring


def test_measured_busbw_uses_the_all_reduce_factor():
    # nccl-tests PERFORMANCE.md: busbw = S/t x 2(n-1)/n. 1 GiB in 4027.3 us on 8 ranks -> 466.57 GB/s
    # (h100-8gpu-nvls table).
    busbw = measured_busbw_gbps(np.array([2**30]), np.array([4027.3]), 8)
    assert busbw[0] == pytest.approx(466.57, rel=1e-3)


@pytest.mark.parametrize(("nodes", "algorithm", "protocol"), [(4, "auto", "auto"), (64, "auto", "auto"),
                                                              (8, "ring", "Simple"), (2, "auto", "LL128")])
def test_node_curve_is_the_headline_at_every_node_count(nodes, algorithm, protocol):
    # Issue 8, fault 1: one choice everywhere. The chosen line is allreduce() (what the headline and
    # the CLI print) at each node count, and the fastest line is never slower.
    base = cluster(nodes=nodes)
    curve = node_count_curve(base, 2**28, algorithm=algorithm, protocol=protocol)
    for count, busbw, fastest in zip(curve.node_counts, curve.busbw_chosen, curve.busbw_fastest, strict=True):
        expected = allreduce(base.with_nodes(int(count)), [2**28], algorithm, protocol=protocol)
        if np.isfinite(expected.time_us[0]):
            assert busbw == pytest.approx(expected.busbw_gbps[0], rel=1e-12)
            assert fastest >= busbw * (1 - 1e-12)


def test_view_pick_changes_and_the_fastest_line():
    view = allreduce_view(cluster(nodes=4))
    changes = [(c.algorithm, c.protocol) for c in view.pick_changes]
    assert ("nvls_tree", "Simple") in changes
    for change in view.pick_changes:
        index = int(np.searchsorted(view.size_bytes, change.size_bytes))
        assert view.chosen.algorithm[index] == change.algorithm and view.chosen.protocol[index] == change.protocol
        assert (view.chosen.algorithm[index - 1], view.chosen.protocol[index - 1]) != (change.algorithm,
                                                                                       change.protocol)
    assert np.all(view.fastest.time_us <= view.chosen.time_us * (1 + 1e-12))


def test_busbw_above_the_ring_limit_is_explained_not_flagged():
    # 2 nodes: NVLSTree (in-switch reduction, and a two-node tree) reports more than the wire; a ring
    # forced on 4 nodes cannot (nccl-tests #196 and PERFORMANCE.md).
    two = allreduce_view(cluster(nodes=2))
    assert two.busbw_above_wire.any() and "two nodes" in two.above_wire_reason
    ring = allreduce_view(cluster(nodes=4), "ring")
    assert not ring.busbw_above_wire.any() and ring.above_wire_reason == ""


def test_playbook_curve_carries_its_published_spread():
    # The chart data of the Playbook's pp_comm_bandwidth: 5th-95th percentile 422.3-461.5 GB/s on
    # one node, 12.5-177.4 GB/s on 64 nodes.
    curve = playbook_curve()
    assert curve.low_gbps[0] == 422.3 and curve.high_gbps[0] == 461.5
    assert curve.low_gbps[-1] == 12.5 and curve.high_gbps[-1] == 177.4
    assert np.all(curve.low_gbps <= curve.busbw_gbps) and np.all(curve.busbw_gbps <= curve.high_gbps)


def test_a_bad_playbook_row_is_refused_by_name(tmp_path):
    from interconnect.datafiles.playbook import PlaybookDataError, load_playbook_allreduce
    from interconnect.datafiles.tables import packaged_data_file

    text = packaged_data_file("published/playbook-allreduce-256mb.csv").read_text(encoding="utf-8")
    bad = tmp_path / "playbook-allreduce-256mb.csv"
    bad.write_text(text.replace("64,32.9,12.5,177.4", "64,32.9,40.0,177.4"), encoding="utf-8")
    with pytest.raises(PlaybookDataError, match="64 nodes: the median must lie within its 5th-95th percentile"):
        load_playbook_allreduce(bad)
    bad.write_text(text.replace("64,32.9,", "16,32.9,"), encoding="utf-8")
    with pytest.raises(PlaybookDataError, match="'nodes' must rise"):
        load_playbook_allreduce(bad)


def test_playbook_preset_is_aws_p5():
    inputs = dict(PLAYBOOK_CLUSTER)
    preset, warnings = resolve_cluster(str(inputs.pop("gpu")), **inputs)
    assert warnings == [] and preset.nics_per_node == 32 and preset.fabric == "efa"
    assert preset.nic_devices_per_domain == 8  # four 100G EFA adapters per GPU, one NCCL device


def test_aws_p5_tuner_picks_barely_move_the_model_on_the_playbook_cluster():
    # aws-ofi-nccl src/tuner/nccl_ofi_regions.cpp (p5/p5e, all-reduce, 8 ranks per node): 256 MB lies above
    # the Tree/LL128 edge at 32 and 64 ranks (36 and 112 MiB), so Ring/LL128; below it from 128 ranks
    # (288 MiB) on, so Tree/LL128. The Playbook's medians at 4-64 nodes are 160, 99.6, 84.7, 64.9, 32.9 GB/s
    # (pp_comm_bandwidth chart data): the tuner's picks cannot explain them.
    from interconnect.topics.allreduce.view import P5_TUNER_PICKS_256MB, p5_tuner_check

    rows = p5_tuner_check()
    assert [row.nodes for row in rows] == [4, 8, 16, 32, 64]
    assert {row.nodes: (row.tuner_algorithm, row.tuner_protocol) for row in rows} == P5_TUNER_PICKS_256MB
    for row, median in zip(rows, (160.0, 99.6, 84.7, 64.9, 32.9), strict=True):
        assert row.tuner_busbw_gbps == pytest.approx(row.model_busbw_gbps, rel=0.10)
        assert row.tuner_busbw_gbps > 1.5 * median
