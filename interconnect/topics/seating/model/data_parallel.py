"""What data parallelism costs a step: the gradients' reductions and ZeRO's gathers as each stack runs them, the
optimizer step, the gradients' accumulation over the micro-batches and PyTorch FSDP2's copies, on the step's grid
(:mod:`interconnect.topics.seating.model.grid`).
"""

from __future__ import annotations

import numpy as np

from interconnect.topics.seating.model.compute import (
    _hbm_bytes_per_s,
    layer_params,
)
from interconnect.topics.seating.model.grid import _Grid, _layer_gemm_shapes, _LayerTimes
from interconnect.topics.seating.model.stacks import (
    DEEPSPEED_ALLREDUCE_ELEMENTS,
    DEEPSPEED_FALLBACK_COPY_BYTES,
    DEEPSPEED_GATHERED_PER_LAYER,
    accumulation_bytes,
    deepspeed_2021_bucket_wait_s,
    deepspeed_2021_gather_overhead_s,
    fsdp2_copy_bytes,
)
from interconnect.topics.seating.model.traffic import _time_s
from interconnect.units import expects

__all__ = ["OPTIMIZER_BYTES_PER_PARAM", "chunked_sync_exposed_s", "gradient_reductions", "megatron_bucket_params",
           "megatron_core_bucket_params", "megatron_core_calls", "per_micro_batch_reduce_exposed_s"]


@expects(sync_s="s", spacing_s="s", last_window_s="s")
def chunked_sync_exposed_s(sync_s: np.ndarray | float, calls: np.ndarray | float, chunks: np.ndarray | float,
                           spacing_s: np.ndarray | float, last_window_s: np.ndarray | float) -> np.ndarray:
    r"""Seconds of a data-parallel sync the compute does not hide when each model chunk's share starts on its own.

    Megatron-Core's interleaved schedule (NVIDIA/Megatron-LM megatron/core/pipeline_parallel/schedules.py,
    ``forward_backward_pipelining_with_interleaving``, at f2e5db402c and at core_v0.15.0; rule R53 of
    ``training-runs.toml``) starts the data-parallel traffic of its :math:`v` model chunks one chunk at a time, each
    :math:`t/v` of the stage's :math:`t`, on one network queue that runs them in order:

    - gradients: with ``grad_sync_func`` set (``--overlap-grad-reduce`` with delay_grad_reduce or align_grad_reduce,
      megatron/training/training.py), a chunk's reduce-scatter starts when the backward of its last micro-batch has
      run, after rank offset ``r`` backward slots; pipeline rank ``r`` ends ``r`` chunk backwards before rank 0, so
      the offset starts every rank's call at the same moment. The last micro-batch group of the backward runs chunks
      :math:`v-1 \dots 0`, ``p`` micro-batches each, so the chunks' syncs start :math:`s = p\,b` apart (``b`` one
      chunk's backward of a micro-batch) and chunk 0's starts as rank 0's last backward ends, with nothing left to
      hide behind (:math:`w = 0`); finalize_model_grads waits for them all;
    - weights (ZeRO-1's all-gather): with ``param_sync_func`` set (``--overlap-param-gather`` with delay_param_gather
      at f2e5db402c or align_param_gather at core_v0.15.0), chunks 0 and 1 are gathered before the first forward and
      chunk :math:`k+1` from the first forward of chunk :math:`k`, again offset by the rank so that every rank starts
      together; chunk :math:`k`'s first forward on rank 0 comes :math:`k\,p` chunk forwards into the warm-up
      (:math:`s = p\,f`), and each chunk's buckets are waited for as its own first forward reaches them (:math:`w = f`).

    A queue started :math:`s` apart that must end within :math:`w` of the last start is late by the larger of its
    first and its last chunk's lateness (the lateness is linear in the chunk's place), and never by less than its
    last bucket:

    .. math:: t_{exp} = \max\left(\frac{t}{\max(c, v)},\; \frac{t}{v} - w,\; t - (v - 1)\,s - w\right)

    with :math:`c` the stage's bucket calls. With one chunk it is the one-window form the model uses without
    interleaving, :math:`\max(t/c,\; t - w)`; with windows wide enough only one chunk's share is left; with a network
    too slow for the queue, all but what :math:`v - 1` spacings hide.

    >>> round(float(chunked_sync_exposed_s(0.6, 10, 1, 0.0, 0.4)), 3)   # one chunk: max(t/c, t - w)
    0.2
    >>> round(float(chunked_sync_exposed_s(0.6, 20, 10, 0.5, 0.0)), 3)   # wide spacing: one chunk's share, t/v
    0.06
    >>> round(float(chunked_sync_exposed_s(0.6, 20, 10, 0.02, 0.0)), 3)  # saturated: t - (v-1) s
    0.42
    """
    sync_s, calls, chunks, spacing_s, last_window_s = (
        np.asarray(v, dtype=float) for v in (sync_s, calls, chunks, spacing_s, last_window_s))
    chunks = np.maximum(chunks, 1.0)
    bucket = sync_s / np.maximum(np.maximum(calls, chunks), 1.0)
    return np.maximum(np.maximum(bucket, sync_s / chunks - last_window_s),
                      sync_s - (chunks - 1.0) * spacing_s - last_window_s)


def _data_parallel(g: _Grid, dense_gpu: np.ndarray, expert_gpu: np.ndarray,
                   compute_micro: np.ndarray, lt: _LayerTimes | None = None, wall_micro: np.ndarray | None = None,
                   others: tuple[tuple[np.ndarray, np.ndarray], ...] = (),
                   chunks: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """DP: gradients (and weights under ZeRO) across replicas, and what of it the last backward cannot hide.

    Buckets are reduced while the last micro-batch's backward runs (2/3 of its compute); what is left, and
    at least the last bucket, is exposed. Gradients held sharded (ZeRO-2/3) while several micro-batches
    accumulate are reduce-scattered in every micro-batch's backward instead (:func:`gradient_reductions`,
    :func:`per_micro_batch_reduce_exposed_s`). ZeRO-1/2's weight all-gather overlaps the next step's first
    forward; ZeRO-3's gathers are prefetched a layer ahead of the compute (with ``zero3_fetch = "on-demand"``
    gathered as each module runs and waited for: forward, recomputed forward and backward). With
    ``bucket_bytes <= 0`` there is one reduction per transformer layer, as FSDP reduce-scatters one wrapped unit
    (a layer) at a time (Zhao et al. 2023, PyTorch FSDP, arXiv 2304.11277, section 3). Under DeepSpeed's pipeline
    engine ZeRO-1's weight gather runs inside the optimizer step, after the last micro-batch, and is exposed; with
    ``ddp = "deepspeed-bf16"`` the gradients are all-reduced whole in 500M-element calls even under ZeRO-1 (DeepSpeed's
    BF16_Optimizer; rule R35 of ``training-runs.toml``). DeepSpeed's ZeRO-3 of 2021 (on demand, ``ddp = "per-tensor"``)
    synchronizes the device before every gather, so each gradient bucket overlaps only the module backward it was
    issued under and the next gather waits for the rest (:func:`deepspeed_2021_bucket_wait_s`, rule R43; ``lt`` gives
    the layer's backward). An earlier round of per-micro-batch reduce-scatters runs through the micro-batch's wall time
    on the slowest stage (``wall_micro``: its compute and the TP, CP and EP collectives it waits for), less the time the
    other dimensions' traffic holds the same links (``others``: per micro-batch seconds and domains spanned of TP, CP,
    EP and PP; a dimension shares the DP group's links when both stay inside a scale-up domain or both leave it);
    without ``wall_micro``, its compute alone. Under Megatron-Core's interleaved schedule with ``chunks`` model chunks
    a rank (``Workload.chunk_dp_sync``, rule R53) the gradients of ZeRO-0/1, and with ``grads-params`` ZeRO-1's
    weights, move chunk by chunk from the cool-down's backwards and the warm-up's forwards
    (:func:`chunked_sync_exposed_s`).
    """
    workload, cluster, z, micro, layers = g.workload, g.cluster, g.zero, g.micro, g.most
    grad_bytes = float(workload.grad_bytes or g.nbytes)  # FP32 gradients (Llama 3) move twice BF16's bytes
    after_backward = workload.ddp == "after-backward"
    # DeepSpeed's BF16_Optimizer all-reduces its FP32 gradients whole even under its own ZeRO-1 (rule R35)
    whole = workload.ddp == "deepspeed-bf16"
    # DeepSpeed's ZeRO-1/2 optimizers gather the updated weights inside the optimizer step (rule R35)
    gather_in_step = workload.pipeline_engine == "deepspeed"
    on_demand = workload.zero3_fetch == "on-demand"
    hbm = _hbm_bytes_per_s(cluster, workload)
    bucket = workload.bucket_bytes if workload.bucket_bytes > 0 else None

    def sync(name: str, total: np.ndarray, per: np.ndarray, dom: np.ndarray,
             degree: np.ndarray, value_bytes: float = grad_bytes) -> tuple[np.ndarray, np.ndarray]:
        if after_backward:
            calls = np.ones_like(total)  # the whole gradient buffer in one call
        elif workload.ddp == "megatron-core":
            calls = megatron_core_calls(total, degree, workload.dp_bucket_params, value_bytes)
        elif workload.ddp in ("deepspeed-bf16", "per-tensor"):
            # buffered_allreduce_fallback's buckets, and all_gather_dp_groups' shards of allgather_bucket_size (the
            # same 500,000,000 elements by default, bf16_optimizer.py at 56c5223)
            calls = np.maximum(1, np.ceil(total / (DEEPSPEED_ALLREDUCE_ELEMENTS * value_bytes)))
        else:
            calls = np.maximum(1, np.ceil(total / bucket)) if bucket is not None else np.maximum(1.0, layers)
        return calls * _time_s(cluster, name, per, dom, total / calls), calls

    totals = {key: np.zeros_like(g.tp) for key in ("time", "calls", "bytes", "exposed", "beside")}
    backward_window = 2 / 3 * compute_micro  # the last micro-batch's backward on this stage
    forward_window = 1 / 3 * compute_micro   # the next step's first forward
    # Megatron-Core's interleaved schedule starts each model chunk's syncs on its own (rule R53): v chunks a rank, p
    # micro-batches of one chunk between two chunks' starts (the schedule's group of p; fewer with fewer micro-batches)
    v = np.ones_like(g.tp) if chunks is None else np.maximum(np.asarray(chunks, dtype=float), 1.0)
    staggered = ((workload.chunk_dp_sync != "") & (workload.schedule == "interleaved")
                 & (workload.pipeline_engine == "megatron") & (v > 1) & (g.pp > 1) & (z <= 1)
                 & (not after_backward) & (not whole) & (workload.ddp != "per-tensor"))
    staggered_gather = staggered & (workload.chunk_dp_sync == "grads-params")
    group = np.minimum(g.pp, np.maximum(micro, 1.0))
    # the gradients move at grad_bytes a value (FP32 where they are reduced in FP32), the weights ZeRO gathers at the
    # weights' own bytes (2: BF16, or FP16; Llama 3 and torchtitan reduce FP32 gradients but gather BF16 weights)
    # the dense weights' gradients are reduced, and under ZeRO sharded, over every rank holding the same weights: the
    # data-parallel replicas and their context-parallel ranks (see _memory; CP ranks see other tokens of the same
    # sequences, so their gradients must be summed too)
    for params, (per, dom), degree in ((dense_gpu, g.groups["dpcp"], g.weight_ranks),
                                       (expert_gpu, g.groups["edp"], g.edp)):
        # weights gathered in FP8 where the stack keeps them so (Workload.fp8_param_gather), else at the wire's 2 bytes
        weight_bytes = 1.0 if workload.fp8_param_gather and workload.dtype_bytes == 1 else float(g.nbytes)
        weights = params * weight_bytes
        grads = params * grad_bytes
        active = (degree > 1) & (grads > 0)
        if not active.any():
            continue
        ar, ar_calls = sync("all_reduce", grads, per, dom, degree)
        # DeepSpeed's ZeRO-3 of 2021 without contiguous_gradients (its default) reduces each bucket of gradients by
        # all-reducing it whole (buffered_reduce_fallback), in every micro-batch's backward (rule R25)
        rs, rs_calls = (ar, ar_calls) if workload.ddp == "per-tensor" else sync("reduce_scatter", grads, per, dom,
                                                                                degree)
        ag, ag_calls = sync("all_gather", weights, per, dom, degree, weight_bytes)
        if workload.ddp == "per-tensor":
            # DeepSpeed 2021 gathers each weight matrix of a layer in its own call (the small tensors stay whole)
            gathered = DEEPSPEED_GATHERED_PER_LAYER
            layer_ag = gathered * _time_s(cluster, "all_gather", per, dom, weights / layers / gathered)
        else:
            gathered = 1
            layer_ag = _time_s(cluster, "all_gather", per, dom, weights / layers)
        # weights gathered forward and backward, every micro-batch; fetched on demand and released after each use
        # (Workload.zero3_fetch), once more in the recomputed forward of full recomputation
        gathers = 2.0 + (g.full_share if on_demand else 0.0)
        # PyTorch's FSDP2 under its pipelining keeps the stage's weights gathered from the first micro-batch's forward
        # to the end of the step (reshard_after_forward=False with PP, rule R29): one gather a layer per step, the
        # traffic the memory of those weights (Workload.pipeline_fsdp_unsharded) already assumes
        gathers = np.where(workload.pipeline_fsdp_unsharded & (g.pp > 1), 1.0 / np.maximum(micro, 1.0), gathers)
        z3_ag = gathers * micro * layers * layer_ag
        if on_demand:
            z3_ag = z3_ag + deepspeed_2021_gather_overhead_s(gathers * micro * layers * gathered, degree,
                                                             gathers * micro * weights, hbm)
        # sharded gradients under accumulation: one reduce-scatter per micro-batch, else one per step; gradients
        # all-reduced whole (no ZeRO, or DeepSpeed's BF16 optimizer under ZeRO-1/2, rule R35) once a step
        low = (z == 0) | (whole & (z < 3))
        rounds = np.where(low, 1.0, gradient_reductions(z, micro, g.pp, workload.pipeline_fsdp_unsharded))
        grad_part = np.where(low, ar, rounds * rs)
        seconds = grad_part + np.where(z == 0, 0.0, np.where(z < 3, ag, z3_ag))
        calls = (np.where(low, ar_calls, rounds * rs_calls)
                 + np.where(z == 0, 0.0, np.where(z < 3, ag_calls, gathers * micro * layers * gathered)))
        share = np.where(degree > 1, (degree - 1) / degree, 0.0)
        grad_volume = 2.0 if workload.ddp == "per-tensor" else 1.0  # an all-reduce moves twice a reduce-scatter
        volume = share * (np.where(low, 2.0 * grads, rounds * grad_volume * grads)
                          + np.where(z == 0, 0.0, np.where(z < 3, weights, gathers * micro * weights)))
        last_bucket = np.where(low, ar / ar_calls, rs / rs_calls)
        # an earlier round hides behind a micro-batch's compute, less the time ZeRO-3's prefetched gathers hold the
        # same network in it
        gathers_per_micro = np.where((z >= 3) & (not on_demand), z3_ag / np.maximum(micro, 1.0), 0.0)
        if wall_micro is None:
            base = compute_micro
        else:
            # the reduction stream works while the compute stream waits for collectives on other links (Llama 3's TP
            # on NVLink while its DP leaves the server), not while other traffic holds its own links (PP's sends)
            shared = sum((np.where((d_dom > 1) == (dom > 1), sec, 0.0) for sec, d_dom in others), 0.0 * g.tp)
            base = np.maximum(wall_micro - shared, 0.0)
        round_window = np.maximum(base - gathers_per_micro, 0.0)
        hidden_grad = np.where(low, np.maximum(last_bucket, ar - backward_window),
                               per_micro_batch_reduce_exposed_s(rs, rs_calls, backward_window, rounds, round_window))
        # rule R53: chunk by chunk from the cool-down, p chunk backwards apart, the last started after its backward
        chunk_grad = chunked_sync_exposed_s(np.where(low, ar, rs), np.where(low, ar_calls, rs_calls), v,
                                            group * backward_window / v, 0.0)
        hidden_grad = np.where(staggered, chunk_grad, hidden_grad)
        if on_demand and workload.ddp == "per-tensor" and lt is not None:
            # DeepSpeed's ZeRO-3 of 2021 (rule R43): each bucket hides only behind the module backward it is issued
            # under (the gather after it synchronizes the device); the bucket left and the embeddings' gradients are
            # reduced after the backward, every micro-batch
            hidden_grad = np.where(z >= 3, rounds * _deepspeed_2021_grad_waits_s(g, lt, params, per, dom, grad_bytes,
                                                                                  hbm), hidden_grad)
        if after_backward:
            # Megatron-LM 2021's local DDP all-reduces the gradient buffer after the last backward, nothing overlaps
            hidden_grad = grad_part
        if workload.pipeline_engine == "deepspeed" and workload.schedule != "dualpipe":
            # DeepSpeed's TrainSchedule reduces the gradients after the last micro-batch (runtime/pipe/schedule.py:
            # ReduceTiedGrads, ReduceGrads, OptimizerStep at the last step): nothing overlaps them
            hidden_grad = np.where(g.pp > 1, grad_part, hidden_grad)
        # prefetched, ZeRO-3's gathers hide behind the compute a layer ahead; on demand each waits before its compute
        z3_exposed = z3_ag if on_demand else np.maximum(layer_ag, z3_ag - micro * compute_micro)
        z12_exposed = ag if gather_in_step else np.maximum(ag / ag_calls, ag - forward_window)
        # rule R53: chunk by chunk over the warm-up's forwards, p chunk forwards apart, each waited for in its own
        z12_exposed = np.where(staggered_gather, chunked_sync_exposed_s(ag, ag_calls, v, group * forward_window / v,
                                                                        forward_window / v), z12_exposed)
        gather_exposed = np.where(z == 0, 0.0, np.where(z < 3, z12_exposed, z3_exposed))
        # ... and flattens each bucket, divides it by DP and copies it back into the gradients on its reduction stream
        # (allreduce_bucket, allreduce_and_copy: 3 x (2 + 2) bytes a gradient), beside the compute
        beside = (rounds * DEEPSPEED_FALLBACK_COPY_BYTES * params / hbm if workload.ddp == "per-tensor"
                  else 0.0 * params)
        for key, value in (("time", seconds), ("calls", calls), ("bytes", volume),
                           ("exposed", hidden_grad + gather_exposed), ("beside", beside)):
            totals[key] += np.where(active, value, 0.0)
    per, dom = g.groups["dpcp"]
    return dict(dp_bytes=totals["bytes"], dp_calls=totals["calls"], dp_time=totals["time"],
                dp_exposed=totals["exposed"], dp_domains=dom, dp_per=per, dp_beside=totals["beside"])


def _deepspeed_2021_grad_waits_s(g: _Grid, lt: _LayerTimes, params: np.ndarray, per: np.ndarray, dom: np.ndarray,
                                 grad_bytes: float, hbm: np.ndarray | float) -> np.ndarray:
    """Seconds one backward pass of DeepSpeed's ZeRO-3 of 2021 waits for its gradient buckets (rule R43).

    A layer's gradients arrive FC2, FC1, the output projection, QKV (Megatron-LM's layer in backward order), each
    module's backward at its share of the layer's weights, the projection's followed by the attention core (no gathered
    weights, so no synchronize in between); a bucket costs its all-reduce plus its flatten, division and copy back
    (:data:`DEEPSPEED_FALLBACK_COPY_BYTES`). What the layers leave held and the rest of the weights (the embeddings,
    whose gradients come last) are reduced after the backward, in one call when they fit a bucket, else two.
    """
    shapes = _layer_gemm_shapes(g)
    order = ("fc2", "fc1", "proj", "qkv")
    weights = {k: shapes[k][2] for k in order}
    total = sum(weights.values())
    tensors = [weights[k] / g.tp for k in order]
    windows = [lt.gemm_bwd * weights[k] / total + (lt.attn_bwd if k == "proj" else 0.0) for k in order]
    cap = float(DEEPSPEED_ALLREDUCE_ELEMENTS)

    def reduce_s(elements: np.ndarray) -> np.ndarray:
        elements = np.broadcast_to(np.asarray(elements, dtype=float), g.tp.shape)
        return (_time_s(g.cluster, "all_reduce", per, dom, elements * grad_bytes)
                + DEEPSPEED_FALLBACK_COPY_BYTES * elements / hbm)

    waits, held = deepspeed_2021_bucket_wait_s(tensors, windows, g.most, reduce_s, cap)
    rest = np.maximum(params - g.most * sum(tensors), 0.0)
    together = held + rest <= cap
    end = np.where(together, reduce_s(held + rest), reduce_s(held) + reduce_s(rest))
    return waits + end


def gradient_reductions(zero: np.ndarray, micro: np.ndarray, pp: np.ndarray,
                        pipeline_fsdp_unsharded: bool = False) -> np.ndarray:
    """Gradient reduce-scatters per step across data parallelism: one per micro-batch where the gradients stay sharded.

    A GPU that holds only its shard of the gradients (ZeRO-2 and ZeRO-3) cannot add one micro-batch's gradient to the
    next unless each is reduce-scattered first, so with several micro-batches a step it reduce-scatters in every
    backward: DeepSpeed's ZeRO-2 reduces its gradient buckets during every backward where ZeRO-1 waits for the
    accumulation boundary (deepspeed/runtime/engine.py, ``allreduce_gradients``), Megatron-FSDP's "optim_grads" and
    "optim_grads_params" never delay the reduction (megatron_fsdp.py, is_delay_grad_reduce), and PyTorch FSDP does so
    unless gradient sync is switched off (pytorch/pytorch pull request 126166: it "incurs the collective per microbatch
    backward but saves gradient memory"). With switched-off sync the gradients stay whole until the last micro-batch
    and are reduced once: torchtitan under PyTorch's pipelining (``pipeline_fsdp_unsharded``, rule R29), whose
    memory :func:`_memory` counts whole. ZeRO-0/1 keep the whole gradient buffer and reduce once a step.

    >>> gradient_reductions(np.array([1, 2, 3, 2]), np.array([64, 64, 16, 1]), np.array([4, 4, 1, 4])).tolist()
    [1.0, 64.0, 16.0, 1.0]
    >>> gradient_reductions(np.array([3.0]), np.array([8.0]), np.array([8.0]), pipeline_fsdp_unsharded=True).tolist()
    [1.0]
    """
    zero, micro, pp = (np.asarray(v, dtype=float) for v in (zero, micro, pp))
    sharded = zero >= 2
    if pipeline_fsdp_unsharded:
        sharded = sharded & ~((pp > 1) & (micro > 1))
    return np.where(sharded & (micro > 1), micro, 1.0)


@expects(reduce_s="s", last_window_s="s", round_window_s="s")
def per_micro_batch_reduce_exposed_s(reduce_s: np.ndarray | float, calls: np.ndarray | float,
                                     last_window_s: np.ndarray | float, rounds: np.ndarray | float,
                                     round_window_s: np.ndarray | float = 0.0) -> np.ndarray:
    r"""Seconds of the gradient reduce-scatters the compute does not hide, one reduction per round.

    A round is a micro-batch whose gradients are reduce-scattered as its backward produces them (or the step's single
    reduction). The reductions run on their own stream and nothing waits for them until the optimizer step (FSDP adds
    each into the gradient shard as it lands; Megatron-FSDP waits for its pending reduce-scatters in
    ``finish_grad_sync``), so an earlier round hides behind one micro-batch, its own backward and the next forward,
    :math:`W`: its wall time, the collectives the compute waits for on other links included, less what the same links
    carry in that time (ZeRO-3's weight gathers, the pipeline's sends where both leave the server). The last
    round has only the last backward, :math:`w`, and its last bucket starts when that backward ends:

    .. math:: t = (r - 1)\,\max(0,\; t_{rs} - W) + \max\left(\frac{t_{rs}}{c},\; t_{rs} - w\right)

    with :math:`r` the rounds, :math:`t_{rs}` one round's reduce-scatter and :math:`c` its calls (buckets).

    >>> [round(float(v), 3) for v in per_micro_batch_reduce_exposed_s(0.3, 10, 0.2, np.array([1, 64]), 0.25)]
    [0.1, 3.25]
    >>> float(per_micro_batch_reduce_exposed_s(0.1, 10, 0.2, 64, 0.3))   # hidden but the last bucket
    0.01
    """
    reduce_s, calls, last_window_s, rounds, round_window_s = (
        np.asarray(v, dtype=float) for v in (reduce_s, calls, last_window_s, rounds, round_window_s))
    last = np.maximum(reduce_s / np.maximum(calls, 1.0), reduce_s - last_window_s)
    return (rounds - 1.0) * np.maximum(reduce_s - round_window_s, 0.0) + last


#: HBM bytes the optimizer step moves per parameter this GPU updates (mixed-precision Adam with FP32 master weights,
#: moments and gradients): Adam reads the gradient, the master weight and both moments and writes the last three
#: (7 x 4 = 28; Transformer Engine's and Apex's FusedAdam, one pass), the gradient norm for clipping reads the
#: gradients once more (4; Megatron-Core optimizer/clip_grads.py, get_grad_norm_fp32), and the updated master
#: weight is cast to the 16-bit weight the layers use (read 4, write 2: Megatron-Core's distributed optimizer,
#: _copy_main_params_to_model_params). Our count from those implementations; the step also zeroes the gradient
#: buffer it accumulates into (grad bytes per parameter held, see :func:`_optimizer_s`).
OPTIMIZER_BYTES_PER_PARAM = 28.0 + 4.0 + 6.0


def _optimizer_s(g: _Grid, dense_gpu: np.ndarray, expert_gpu: np.ndarray) -> np.ndarray:
    """Seconds of the optimizer step, memory-bound: :data:`OPTIMIZER_BYTES_PER_PARAM` per parameter it updates.

    With ZeRO-1 and up a GPU updates its 1/(DP x CP) shard of the dense parameters (the shard the memory holds) and
    its 1/EDP shard of the experts'; it also zeroes its gradient buffer (the whole buffer below ZeRO-2, its shard
    from ZeRO-2 up).
    """
    sharded = np.where(g.zero >= 1, 1.0, 0.0)
    dense_share = 1.0 / np.where(sharded > 0, g.weight_ranks, 1.0)
    expert_share = 1.0 / np.where(sharded > 0, g.edp, 1.0)
    updated = dense_gpu * dense_share + expert_gpu * expert_share
    held = np.where(g.zero >= 2, updated, dense_gpu + expert_gpu)
    grad_bytes = float(g.workload.grad_bytes or g.nbytes)
    return (OPTIMIZER_BYTES_PER_PARAM * updated + grad_bytes * held) / _hbm_bytes_per_s(g.cluster, g.workload)


def _fsdp2_copies_s(g: _Grid, dense_gpu: np.ndarray, expert_gpu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """FSDP2's copies (rule R37): seconds per layer and micro-batch on the compute stream, and per step beside it.

    Zero unless ``fsdp2_copies`` and ZeRO-3 over more than one rank (DP x CP for the dense weights, the expert-data
    ranks for the experts', as the memory shards them).
    """
    workload = g.workload
    if not workload.fsdp2_copies:
        return 0.0 * g.tp, 0.0 * g.tp
    hbm = _hbm_bytes_per_s(g.cluster, workload)
    pipelined = workload.pipeline_fsdp_unsharded & (g.pp > 1)
    reduce_bytes = float(workload.grad_bytes or g.nbytes)
    shard_dense = g.weight_ranks
    shard_expert = np.where(g.ep > 1, g.edp, shard_dense)
    compute = beside = 0.0 * g.tp
    for params, shard in ((dense_gpu, shard_dense), (expert_gpu, shard_expert)):
        on = (g.zero >= 3) & (shard > 1)
        c, b = fsdp2_copy_bytes(g.micro, shard, pipelined, g.nbytes, g.nbytes, reduce_bytes)
        compute = compute + np.where(on, c * params, 0.0)
        beside = beside + np.where(on, b * params, 0.0)
    per_layer = compute / hbm / (np.maximum(g.micro, 1.0) * np.maximum(g.most, 1.0))
    return per_layer, beside / hbm


def _accumulation_s(g: _Grid) -> tuple[np.ndarray, np.ndarray]:
    """Per micro-batch: the accumulation of one layer's gradients on a GPU, and of the embedding or output layer.

    :func:`accumulation_bytes` a parameter at the rate of the model's memory-bound passes, in the compute stream
    (a backward hook, autograd's own add or DeepSpeed's ``update_hp_grads``), so nothing overlaps it. The end term is
    one V x h matrix on the last stage (the tied embedding's copy or the output layer), both of them with a single
    stage holding an untied model.
    """
    per_param = accumulation_bytes(g.workload, g.micro, g.zero)
    model = g.model
    _, embed_params = layer_params(model)
    ends = 1 if model.tied_embeddings else 2
    dense_layer = (model.dense_params - ends * embed_params) / model.layers / g.tp
    expert_layer = model.expert_params / model.layers / np.where(g.ep > 1, g.ep, g.tp)
    end = embed_params / g.tp * np.where(g.pp <= 1, float(ends), 1.0)
    if g.workload.mtp_layers:
        # rule R46: eh_proj's weights, and the embedding's copy on a last stage that is not the first
        copy = np.where((g.pp > 1) & (g.workload.schedule != "dualpipe"), embed_params, 0.0)
        end = end + (g.workload.mtp_layers * 2.0 * float(model.hidden) ** 2 + copy) / g.tp
    hbm = _hbm_bytes_per_s(g.cluster, g.workload)
    return per_param * (dense_layer + expert_layer) / hbm, per_param * end / hbm


def megatron_bucket_params(dp: np.ndarray | float) -> np.ndarray:
    """Parameters per gradient bucket in Megatron-Core's DistributedDataParallel when none is set.

    ``max(40,000,000, 1,000,000 x DP)``: larger data-parallel groups get larger buckets so that each rank's chunk
    of a ring collective stays bandwidth-bound, not latency-bound (NVIDIA/Megatron-LM
    megatron/core/distributed/distributed_data_parallel_config.py, ``bucket_size``, and
    distributed_data_parallel.py, where the default is set).

    >>> [int(v) for v in megatron_bucket_params(np.array([8, 40, 1024]))]
    [40000000, 40000000, 1024000000]
    """
    return np.maximum(40e6, 1e6 * np.asarray(dp, dtype=float))


def megatron_core_bucket_params(dp: np.ndarray | float, given: float = 0.0) -> np.ndarray:
    """Parameters per gradient bucket in Megatron-Core's DistributedDataParallel: the size a recipe gives, else its own.

    Megatron-Core keeps a ``bucket_size`` its DDP config is handed and falls back to :func:`megatron_bucket_params`
    only when it is None (megatron/core/distributed/distributed_data_parallel.py at 0d8e071 and b0cc270);
    Megatron-Bridge's performance recipes hand it 128 x 1024 x 1024 with DP > 1 and the distributed optimizer
    (src/megatron/bridge/training/comm_overlap.py, ``_get_optimizer_overlap_cfgs``; rule R55 of
    ``training-runs.toml``). ``given`` <= 0 means none was given.

    >>> [int(v) for v in megatron_core_bucket_params(np.array([8, 1024]), 128 * 1024 * 1024)]
    [134217728, 134217728]
    >>> [int(v) for v in megatron_core_bucket_params(np.array([8, 1024]))]
    [40000000, 1024000000]
    """
    default = megatron_bucket_params(dp)
    return np.full_like(default, float(given)) if given > 0 else default


@expects(total_bytes="B", value_bytes="B")
def megatron_core_calls(total_bytes: np.ndarray, dp: np.ndarray | float, given: float,
                        value_bytes: float) -> np.ndarray:
    r"""Calls of one of Megatron-Core's data-parallel collectives: one a bucket, whatever bytes a value it moves.

    ``total_bytes`` the bytes the collective moves in all, ``value_bytes`` the bytes of one value of it, ``dp`` the
    group's size and ``given`` the bucket size a recipe sets (0: Megatron-Core's own).
    Megatron-Core cuts its parameter-and-gradient buffer into buckets of :func:`megatron_core_bucket_params`
    parameters, each bucket a view of the gradients (FP32 with ``grad_reduce_in_fp32``) and of the weights (BF16, or
    a uint8 buffer for FP8 weights) over the same parameters, and reduce-scatters and all-gathers bucket by bucket
    (NVIDIA/Megatron-LM at f2e5db402c: megatron/core/distributed/param_and_grad_buffer.py, Bucket.start_grad_sync;
    megatron/core/optimizer/distrib_optimizer.py, _dispatch_gather_model_params; rule R60 (c) of
    ``training-runs.toml``): one call a bucket, :math:`\lceil \psi / b \rceil` for :math:`\psi` parameters,
    however many bytes a value the collective moves.

    >>> psi = 4e9   # parameters; 48M a bucket at DP 48
    >>> [int(megatron_core_calls(np.array([psi * v]), 48, 0.0, v)[0]) for v in (4.0, 2.0, 1.0)]
    [84, 84, 84]
    """
    bucket_params = megatron_core_bucket_params(dp, given)
    return np.maximum(1, np.ceil(np.asarray(total_bytes, dtype=float) / (bucket_params * value_bytes)))
