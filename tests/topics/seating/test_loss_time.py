"""The loss's memory-bound passes on the last stage (rule R59 of training-runs.toml)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.seating.model import Workload
from interconnect.topics.seating.model.compute import _hbm_bytes_per_s
from interconnect.topics.seating.model.stack_defaults import STACKS, stack_workload
from interconnect.topics.seating.model.step import _grid, _layer_times, loss_s
from interconnect.workloads.presets import load_model_presets

PRESETS = load_model_presets()


def _output_s(workload: Workload, tp: int) -> float:
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    g = _grid(PRESETS["llama3-8b"], cluster, workload, a(tp), a(1), a(8 // tp), a(1), a(1), a(1))
    return float(_layer_times(g).output[0])


@pytest.mark.parametrize("tp", [1, 4])
def test_loss_adds_tokens_times_vocab_share_times_bytes_over_the_memory_bound_rate(tp):
    # Closed form: T x V/t logits x 52 bytes / (H100 spec HBM x Hopper's memory-bound share). 52 bytes a logit is
    # Megatron-Core's unfused vocab_parallel_cross_entropy (megatron/core/tensor_parallel/cross_entropy.py at
    # b0cc270): cast to FP32 2 + 4, max 4, subtract 8, exp 8, sum 4, divide 8; backward multiply 8, cast back 4 + 2.
    wl = Workload(global_batch=16, micro_batch=1, recompute="none")
    assert wl.loss_bytes_per_logit == 2 + 4 + 4 + 8 + 8 + 4 + 8 + 8 + 4 + 2
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    model = PRESETS["llama3-8b"]
    tokens = wl.tokens(model) * wl.micro_batch
    expected = tokens * model.vocab / tp * 52.0 / _hbm_bytes_per_s(cluster, wl)
    added = _output_s(wl, tp) - _output_s(replace(wl, loss_bytes_per_logit=0.0), tp)
    assert added == pytest.approx(expected, rel=1e-9)
    assert loss_s(tokens, model.vocab / tp, 52.0, _hbm_bytes_per_s(cluster, wl)) == pytest.approx(expected)


def test_stacks_take_the_bytes_their_loss_code_moves():
    # Transformer Engine's Triton cross entropy (transformer_engine/pytorch/triton/cross_entropy.py, v2.9-v2.12),
    # which Megatron-Bridge's performance scripts select: read 2, read 2 + write 2 forward, read 2 + write 2 backward.
    # torchtitan (9dec370): cast 6, log_softmax 16, zero fill 4, its backward 16, cast back 6.
    assert STACKS["megatron-bridge"].loss_bytes_per_logit == 2 + 2 + 2 + 2 + 2
    assert STACKS["torchtitan"].loss_bytes_per_logit == 6 + 16 + 4 + 16 + 6
    assert STACKS["megatron-core"].loss_bytes_per_logit == Workload().loss_bytes_per_logit == 52.0
    assert stack_workload(Workload(), "torchtitan").loss_bytes_per_logit == 48.0
    wl = Workload(global_batch=16, micro_batch=1, recompute="none")
    fused = _output_s(stack_workload(wl, "megatron-bridge"), 1)
    assert fused < _output_s(wl, 1)
