"""Transformer Engine's userbuffers TP overlap: configurations as the sources set them, and the closed forms."""

from __future__ import annotations

import numpy as np
import pytest

from interconnect.topics.seating.kernels import gemm_shape_factor
from interconnect.topics.seating.model.tp_overlap import (
    UB_STREAMS,
    UbGemm,
    bulk_extra_s,
    packed_sms,
    pipeline_s,
    ring_s,
    ub_config,
)


def test_transformer_engine_defaults_as_initialize_ub_sets_them():
    # NVIDIA/TransformerEngine v2.9 transformer_engine/pytorch/module/base.py, initialize_ub.get_default_config:
    # "num_sm": 1 if method == "ring_exchange" else 16, "set_sm_margin": not method == "ring_exchange",
    # "num_splits": tp_size if method == "ring_exchange" else 4; methods: ring_exchange for qkv_fprop, fc1_fprop,
    # proj_dgrad, fc2_dgrad, pipeline for proj_fprop, fc2_fprop, bulk for qkv/fc1 dgrad and wgrad
    te = ub_config("")
    for name in ("qkv_fprop", "fc1_fprop", "proj_dgrad", "fc2_dgrad"):
        assert te[name] == UbGemm("ring", 1, False)
    for name in ("proj_fprop", "fc2_fprop"):
        assert te[name] == UbGemm("pipeline", 16, True, 4)
    for name in ("qkv_dgrad", "qkv_wgrad", "fc1_dgrad", "fc1_wgrad"):
        assert te[name] == UbGemm("bulk", 16, True)
    assert UB_STREAMS == 3  # _NUM_MAX_UB_STREAMS = 3 there (cpp_extensions/gemm.py from v2.10 to v2.12)


def test_megatron_bridge_configs_the_benchmarks_select():
    # NVIDIA-NeMo/Megatron-Bridge v0.2.0 src/megatron/bridge/training/comm_overlap.py:
    # userbuffers_fp8_h100_h16384_tp8_cp2_mbs1_seqlen8192: qkv_wgrad=BulkOverlapCfg(num_sm=24, ...,
    # set_sm_margin=False), proj_fprop=RingExchangeOverlapCfg(num_sm=1, set_sm_margin=True)
    fp8 = ub_config("userbuffers_fp8_h100_h16384_tp8_cp2_mbs1_seqlen8192")
    assert fp8["qkv_wgrad"] == UbGemm("bulk", 24, False)
    assert fp8["qkv_dgrad"] == UbGemm("bulk", 2, False)
    assert fp8["proj_fprop"] == fp8["fc2_fprop"] == UbGemm("ring", 1, True)
    assert fp8["qkv_fprop"] == UbGemm("ring", 1, False)
    # the BF16 sibling: proj_fprop=PipelineOverlapCfg(num_sm=24, cga_size=2, num_splits=4, set_sm_margin=True),
    # fc2_fprop=PipelineOverlapCfg(num_sm=8, ...)
    bf16 = ub_config("userbuffers_bf16_h100_h16384_tp8_cp2_mbs1_seqlen8192")
    assert bf16["proj_fprop"] == UbGemm("pipeline", 24, True, 4)
    assert bf16["fc2_fprop"] == UbGemm("pipeline", 8, True, 4)
    # userbuffers_fp8_b200_h16384_tp4_cp2_mbs1_seqlen8192: qkv_dgrad 8, qkv_wgrad 32, fc1_dgrad 2, fc1_wgrad 8 SMs
    b200 = ub_config("userbuffers_fp8_b200_h16384_tp4_cp2_mbs1_seqlen8192")
    assert [b200[n].num_sm for n in ("qkv_dgrad", "qkv_wgrad", "fc1_dgrad", "fc1_wgrad")] == [8, 32, 2, 8]


def test_unknown_configuration_is_named_in_the_error():
    with pytest.raises(ValueError, match="unknown TP-overlap configuration 'nope'"):
        ub_config("nope")


def test_a_ring_chunk_by_tiles_and_waves():
    # Llama 3.1 405B's QKV slice at TP 8, CP 2 (4,096 tokens a CP rank): a ring chunk is 512 token rows x 2,304
    # outputs x 16,384 inputs. By hand, 128 x 128 tiles: 4 x 18 = 72 tiles, one wave on an H100's 132 SMs:
    # 72/132 of the rate. Three chunks side by side on the three streams: 216 tiles, 2 waves of 132: 216/264; the
    # same as one chunk on 132/3 = 44 SMs (72 tiles, 2 waves of 44: 72/88).
    assert float(gemm_shape_factor(512, 2304, 16384, 132)) == pytest.approx(72 / 132)
    assert float(packed_sms(132, 8)) == 44.0
    assert float(gemm_shape_factor(512, 2304, 16384, packed_sms(132, 8))) == pytest.approx(216 / 264)
    # two chunks (TP 2) pack only two at a time
    assert float(packed_sms(132, 2)) == 66.0
    # the whole GEMM, 4,096 rows: 32 x 18 = 576 tiles, 5 waves of 132
    assert float(gemm_shape_factor(4096, 2304, 16384, 132)) == pytest.approx(576 / 660)


def test_ring_and_pipeline_closed_forms():
    # ring: max(c t_packed, (c - 1) t_step + t_alone); 8 chunks
    assert float(ring_s(np.array(0.6), np.array(0.4), np.array(0.1), np.array(8.0))) == pytest.approx(3.2)
    assert float(ring_s(np.array(0.6), np.array(0.4), np.array(0.5), np.array(8.0))) == pytest.approx(7 * 0.5 + 0.6)
    # with instant steps and one chunk (TP 1) the ring is the GEMM
    assert float(ring_s(np.array(1.0), np.array(1.0), np.array(0.0), np.array(1.0))) == pytest.approx(1.0)
    # pipeline: max(k t_gemm + t_rs, t_gemm + k t_rs); 4 splits
    assert float(pipeline_s(np.array(1.0), np.array(0.3), 4)) == pytest.approx(4.3)
    assert float(pipeline_s(np.array(0.3), np.array(1.0), 4)) == pytest.approx(4.3)


def test_bulk_overlap_charges_the_sms_the_collective_holds():
    # no margin: the GEMM keeps all S SMs but loses n of them while the collective runs: t_comm n / S
    assert float(bulk_extra_s(1.0, 0.5, 24, 132, False)) == pytest.approx(0.5 * 24 / 132)
    # margin: the GEMM runs on S - n SMs throughout: t_gemm n / (S - n)
    assert float(bulk_extra_s(1.0, 0.5, 16, 132, True)) == pytest.approx(16 / 116)
    # a collective longer than its GEMM shows what outlasts the (slowed) GEMM
    lost = 1.0 * 2 / 132
    assert float(bulk_extra_s(1.0, 2.0, 2, 132, False)) == pytest.approx(lost + (2.0 - 1.0 - lost))


def test_userbuffers_overlap_replaces_the_generic_slowdown_for_tp():
    # with TP overlap the SMs TP's collectives hold are charged by the mechanisms above, so the generic
    # OVERLAP_SLOWDOWN covers only the other dimensions' hidden traffic: OVERLAP_SLOWDOWN x min(hidden, compute)
    from dataclasses import replace

    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.topics.seating.model import Workload
    from interconnect.topics.seating.model.step import OVERLAP_SLOWDOWN, evaluate_layouts
    from interconnect.workloads.presets import load_model_presets

    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    model = load_model_presets()["llama3-70b"]
    wl = Workload(global_batch=64, tp_comm_overlap=True)
    out = evaluate_layouts(model, cluster, wl, a(8), a(1), a(2), a(1), a(1), a(1))
    hidden = sum(float(out[f"{d}_time"][0] - out[f"{d}_exposed"][0]) for d in ("cp", "ep", "pp", "dp"))
    assert float(out["interference_s"][0]) == pytest.approx(OVERLAP_SLOWDOWN * min(hidden, float(out["compute_s"][0])))
    assert float(out["tp_exposed"][0]) > 0
    # an unknown configuration name is refused
    with pytest.raises(ValueError, match="unknown TP-overlap configuration"):
        evaluate_layouts(model, cluster, replace(wl, tp_overlap_config="x"), a(8), a(1), a(2), a(1), a(1), a(1))


def test_narrow_ring_chunks_cost_more_than_the_whole_gemm():
    # the chunked forward of a ring exchange at TP 8 on 1,024 tokens (128-row chunks: one row of tiles each)
    # against the same GEMMs whole: the overlap's cost beyond the whole GEMMs grows as the chunks narrow
    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.topics.seating.model import Workload
    from interconnect.topics.seating.model.step import _grid, _tensor_parallel, _tp_overlap_extra
    from interconnect.workloads.presets import load_model_presets

    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    model = load_model_presets()["llama3-70b"]

    def extra(seq):
        g = _grid(model, cluster, Workload(global_batch=8, seq_len=seq, tp_comm_overlap=True), a(8), a(1), a(1),
                  a(1), a(1), a(1))
        return float(_tp_overlap_extra(g, _tensor_parallel(g)[0])[0]) / seq

    assert extra(1024) > extra(8192)
