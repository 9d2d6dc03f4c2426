"""What each training stack's own code adds to a step beyond the layer math, read from that code.

Pure functions and constants (no grid, no cluster): the passes over HBM and the host costs that belong to one
software stack's way of doing a thing, each with the rule of ``training-runs.toml`` that says which published runs
ran it. :mod:`interconnect.topics.seating.model.step` applies them to its grid of layouts.

* context parallelism: PyTorch's experimental ring (:func:`pytorch_ring_hbm_bytes`, rule R32) and Transformer
  Engine's ring for Megatron-Core (:func:`te_ring_hbm_bytes`, rule R39);
* DeepSpeed's ZeRO-3 of 2021: its calls per layer, its gradient buckets' copies and each gather's host and HBM cost
  (:func:`deepspeed_2021_gather_overhead_s`, :func:`list_allgather_rank_s`; rules R25, R31, R38), and what of its
  gradient buckets' reductions the next gather waits for (:func:`deepspeed_2021_bucket_wait_s`, rule R43);
* DeepSpeed's BF16_Optimizer under its pipeline engine (:func:`bf16_accumulation_s`, rule R35);
* PyTorch FSDP2's copies around its collectives (:func:`fsdp2_copy_bytes`, rule R37);
* how each stack adds a micro-batch's gradients to the step's (:func:`accumulation_bytes`, rule R36).
"""

from __future__ import annotations

import numpy as np

from interconnect.topics.seating.model.layout import Workload
from interconnect.units import expects

__all__ = ["A100_40GB_HBM_BYTES_PER_S", "BF16_ACCUMULATION_BYTES", "DEEPSPEED_ALLREDUCE_ELEMENTS",
           "DEEPSPEED_FALLBACK_COPY_BYTES", "DEEPSPEED_GATHERED_PER_LAYER",
           "FSDP2_SHARD_BYTES", "GRAD_16_BYTES", "LIST_ALLGATHER_BENCH_CALLS", "LIST_ALLGATHER_BENCH_ELEMENTS",
           "LIST_ALLGATHER_BENCH_RANKS", "LIST_ALLGATHER_SAVED_S", "TORCH_CALL_S", "accumulation_bytes",
           "bf16_accumulation_s", "deepspeed_2021_bucket_wait_s", "deepspeed_2021_gather_overhead_s",
           "fsdp2_copy_bytes", "list_allgather_rank_s", "pytorch_ring_hbm_bytes", "te_ring_hbm_bytes"]


def pytorch_ring_hbm_bytes(cp: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    r"""Bytes PyTorch's ring attention moves through HBM beside its kernels, per value of the local attention output.

    PyTorch's experimental ``context_parallel`` as torchtitan ran it (rule R32 of ``training-runs.toml``:
    torch/distributed/tensor/experimental/_attention.py, ``_SDPAMerger`` and ``_templated_ring_attention_backward``,
    ``convert_to_f32`` on) merges each step's BF16 output into an FP32 running output by its log-sum-exp, and in the
    backward pass accumulates the gradients of Q, K and V in FP32, K's and V's passed on to the next rank after every
    step. With the block compiled whole, each merge or accumulation is one elementwise kernel, so per value of the
    output (queries x query width / TP; K and V have as many, repeated to the query heads) on the rank whose every
    step uses all its queries (the busiest):

    - forward, :math:`12 + 10 (c - 1)`: the first step's output cast to FP32 (read 2, write 4); each later step reads
      the running output (4) and the step's output (2) and writes the running output (4); the result cast back
      (read 4, write 2). The log-sum-exp is one value a row of head_dim values, left out;
    - backward, :math:`36 + 28 (c - 1)`: the first step's three gradients made FP32 accumulators (read 2, write 4,
      three times); each later step adds its gradient of Q (read 4 and 2, write 4) and, for K and V, reads the FP32
      gradients arriving from the previous rank (4 each) and its own for the half of the keys it used (2 bytes on
      half the values: 1 each) and writes the sums in FP32 into the buffer sent on (4 each); at the end the three
      cast back (read 4, write 2, three times).

    Parameters
    ----------
    cp : array_like
        The context-parallel degree :math:`c` (ring steps per pass).

    Returns
    -------
    tuple of numpy.ndarray
        Forward and backward bytes per output value, for one pass of the layer's attention.

    Examples
    --------
    >>> [tuple(float(v) for v in pytorch_ring_hbm_bytes(c)) for c in (2, 8)]
    [(22.0, 64.0), (82.0, 232.0)]
    """
    c = np.asarray(cp, dtype=float)
    return 12.0 + 10.0 * (c - 1), 36.0 + 28.0 * (c - 1)


def te_ring_hbm_bytes(cp: np.ndarray | float, kv_share: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Bytes Transformer Engine's ring attention moves through HBM beside its kernels, per value of the local output.

    Megatron-Core's context parallelism (rule R39 of ``training-runs.toml``: TE v2.9's ``AttnFuncWithCPAndKVP2P``,
    ``cp_comm_type`` "p2p") keeps the merges and gradient sums in the tensors' own 16-bit type. Per value of the
    output (queries x query width / TP), on the rank whose every step uses all its queries (the busiest), with
    :math:`k` K and V values per output value (``kv_share``: twice the KV heads over the query heads):

    - forward, :math:`4 + 6 (c - 1) + 4k`: the first step's output rescaled into the running output (read 2, write
      2); each later step reads the running output and its own (2 and 2) and writes the sum (2); K and V
      concatenated into the send buffer once (read 2, write 2);
    - backward, :math:`(4 + 6 (c - 1))(1 + k) + 4k`: dQ, dK and dV copied from the first step (read 2, write 2)
      and added for every later one (read 2 and 2, write 2); K and V copied into the send buffer once.

    The log-sum-exp corrections (one FP32 value a row of head_dim values) are left out.

    ``cp`` and the result as :func:`pytorch_ring_hbm_bytes`'s; ``kv_share`` is :math:`k`. At CP 2 and 4 with Llama's
    8 KV heads of 128 query heads (:math:`k` = 0.125):

    >>> [tuple(float(v) for v in te_ring_hbm_bytes(c, 0.125)) for c in (2, 4)]
    [(10.5, 11.75), (22.5, 25.25)]
    """
    c = np.asarray(cp, dtype=float)
    merges = 4.0 + 6.0 * (c - 1)
    return merges + 4.0 * kv_share, merges * (1.0 + kv_share) + 4.0 * kv_share


#: Weight tensors of one GPT layer (Megatron-LM 2021's two LayerNorms and four linear layers, each a weight and a
#: bias) that DeepSpeed's ZeRO-3 of April 2021 partitions and gathers, one all-gather each (_allgather_param per
#: parameter): the four weight matrices; biases and LayerNorms are under param_persistence_threshold (1e5 elements
#: by default, stage3.py at c83e49f) and stay whole on every GPU. Its gradients are all-reduced in buckets instead
#: (rule R25, corrected: the per-tensor reduce-scatters need contiguous_gradients, off by default).
DEEPSPEED_GATHERED_PER_LAYER = 4
#: HBM bytes per gradient DeepSpeed's ZeRO-3 of 2021 moves around each all-reduce of its fallback path (rule R25):
#: the bucket flattened into one buffer, divided by the DP size in place, and copied back into the gradients
#: (stage3.py at c83e49f, allreduce_bucket and allreduce_and_copy), each a read and a write of 2 bytes.
DEEPSPEED_FALLBACK_COPY_BYTES = 3 * (2.0 + 2.0)


#: Host seconds of one call of a torch function from Python on a ``torch.Tensor``: "on the order of 2 μs"
#: (PyTorch's own ``__torch_function__`` micro-benchmark, pytorch/pytorch benchmarks/overrides_benchmark/README.md;
#: a PyTorch maintainer puts a small tensor operation at about 2 µs, half of it Python's, in pytorch/pytorch issue
#: 41383, 2020). One figure for every host, as the source gives one.
TORCH_CALL_S = 2e-6


#: DeepSpeed's own measurement of PyTorch's list all-gather against in-place NCCL all-gathers (rule R38):
#: deepspeedai/DeepSpeed pull request 1188 (https://github.com/deepspeedai/DeepSpeed/pull/1188, commit 67b3db3 of
#: 2021-06-30, "micro benchmark shows the improvement of allgather a transformer layer with 9834560 elements in half
#: precision is about 1.1ms on aws-p4d instance"). Its benchmark (tests/benchmarks/allgather_bench.py in that commit)
#: gathers a layer's 12 tensors, 9,834,560 FP16 elements a rank in all, over the 8 GPUs of one p4d.24xlarge (8 A100
#: 40 GB, AWS's "Amazon EC2 P4d instances deep dive", https://aws.amazon.com/blogs/compute/amazon-ec2-p4d-instances-deep-dive/),
#: each through torch.distributed.all_gather with a list of 8 narrow() views, against one grouped launch of in-place
#: ncclAllGather calls on the same buffers.
LIST_ALLGATHER_SAVED_S = 1.1e-3
LIST_ALLGATHER_BENCH_CALLS = 12
LIST_ALLGATHER_BENCH_RANKS = 8
LIST_ALLGATHER_BENCH_ELEMENTS = 9_834_560
#: HBM bandwidth of the A100 40 GB those GPUs are, B/s (NVIDIA's A100 datasheet: 1,555 GB/s; sources.toml
#: ``nvidia-a100-datasheet``); Ampere has no published ``hbm_share``, so the model's memory-bound passes run at it.
A100_40GB_HBM_BYTES_PER_S = 1.555e12


def list_allgather_rank_s() -> float:
    r"""Seconds PyTorch's list all-gather adds per rank and call beyond what :func:`deepspeed_2021_gather_overhead_s`
    charges otherwise: its copy out of the flat buffer, one ``copy_`` per rank issued on the NCCL stream (rule R38).

    The 1.1 ms DeepSpeed's pull request 1188 saved on :math:`c = 12` calls over :math:`n = 8` A100 40 GB, less what the
    model already charges that list path (a Python slice per rank at :data:`TORCH_CALL_S`, and the copy-out's read and
    write of the gathered :math:`2 n E` bytes, :math:`E` FP16 elements a rank), spread over the :math:`c\,n` pieces:

    .. math:: t_\text{rank} = \frac{\Delta - c\,n\,t_\text{torch} - 2 \cdot 2 n E / \text{HBM}}{c\,n}

    The measurement does not split a part per call from the part per rank; all of it is read as per rank.

    >>> f"{list_allgather_rank_s() * 1e6:.2f} us"
    '7.35 us'
    """
    pieces = LIST_ALLGATHER_BENCH_CALLS * LIST_ALLGATHER_BENCH_RANKS
    copy_out = 2.0 * 2.0 * LIST_ALLGATHER_BENCH_RANKS * LIST_ALLGATHER_BENCH_ELEMENTS / A100_40GB_HBM_BYTES_PER_S
    return (LIST_ALLGATHER_SAVED_S - pieces * TORCH_CALL_S - copy_out) / pieces


@expects(gathered_bytes="B", hbm_bytes_per_s="B/s")
def deepspeed_2021_gather_overhead_s(calls: np.ndarray | float, ranks: np.ndarray | float,
                                     gathered_bytes: np.ndarray | float, hbm_bytes_per_s: float) -> np.ndarray:
    r"""Seconds DeepSpeed's ZeRO-3 of April 2021 adds to its on-demand weight gathers beyond the collective itself.

    Read from deepspeed/runtime/zero/partition_parameters.py at c83e49f, ``_allgather_param``, one call per
    partitioned weight: it zero-fills a buffer of the whole weight (one write of it), synchronizes the device, and
    cuts the buffer into one view per rank in a Python loop (``narrow``, a torch call each, with the GPU idle,
    :data:`TORCH_CALL_S`); ``torch.distributed.all_gather`` with that list of views gathers into PyTorch's own flat
    buffer and then issues one ``copy_`` per rank back out of it on the NCCL stream (ProcessGroupNCCL's list
    all-gather, one read and one write of the weight in all, and :func:`list_allgather_rank_s` a rank for the copies'
    issue beyond their bytes, rule R38; ``_all_gather_base``, which skips them, came in pytorch/pytorch pull request
    56315 of April 2021). The fetch then waits for the device before the module computes, so all of it is exposed:

    .. math:: t = c\,n\,(t_\text{torch} + t_\text{rank}) + \frac{3\,B}{\text{HBM}}

    with :math:`c` the gathers, :math:`n` the ranks of the group, :math:`B` the bytes they gather in all and HBM the
    rate the model's memory-bound passes run at. ``get_rank`` in the slicing loop has no published cost of its own.

    >>> f"{float(deepspeed_2021_gather_overhead_s(1152, 1536, 1.05e12, 2.039e12)):.2f} s"
    '18.09 s'
    """
    per_rank = TORCH_CALL_S + list_allgather_rank_s()
    return calls * np.asarray(ranks, dtype=float) * per_rank + 3.0 * np.asarray(gathered_bytes) / hbm_bytes_per_s


@expects(windows_s="s")
def deepspeed_2021_bucket_wait_s(tensors, windows_s, layers, reduction, bucket_elements: float = 5e8
                                 ) -> tuple[np.ndarray, np.ndarray]:
    r"""Seconds DeepSpeed's ZeRO-3 of 2021 waits for its gradient buckets in one backward pass, and the bucket left.

    Rule R43 (stage3.py and partition_parameters.py at c83e49f): when a weight's gradient arrives (its hook fires once
    its module's backward is issued) and the elements held plus its own exceed the bucket (``reduce_bucket_size``,
    5e8), the held ones are reduced on the reduction stream (flattened, all-reduced, copied back) and the new gradient
    starts the next bucket. Every gather begins with ``torch.cuda.synchronize()``, so that reduction overlaps only the
    compute queued when it is issued, :math:`w_i`, and the rest delays the next gather:

    .. math:: t = \sum_{\text{layers}} \sum_i \max\left(0,\; r(B_i) - w_i\right),
              \qquad B_i = \begin{cases} H & H > 0,\ H + e_i > E \\ 0 & \text{otherwise} \end{cases}

    with :math:`e_i` the elements of the layer's :math:`i`-th gradient in backward order, :math:`H` the elements held
    when it arrives, :math:`E` the bucket and :math:`r` the seconds to reduce a bucket (``reduction``, a callable on
    an array of elements; zero elements must give zero). ``tensors`` and ``windows_s`` are sequences of arrays (one
    entry per layout), ``layers`` the layers of a backward pass per layout. Returns the waits and the elements still
    held after the last layer (reduced after the backward with what follows, nothing overlapping them).

    Two gradients of 6e8 and 1.5e8 elements a layer, reduced at 1 ms per 1e8 elements, overlapping 4 and 1 ms: the
    second layer's 6e8-element hook reduces the first layer's 1.5e8 (1.5 ms, 4 ms hidden), each 1.5e8-element hook
    the 6e8 before it (6 ms against 1 ms: 5 ms each); two layers wait 10 ms and leave 1.5e8 held:

    >>> waits, held = deepspeed_2021_bucket_wait_s([np.array([6e8]), np.array([1.5e8])], [4e-3, 1e-3],
    ...                                            np.array([2]), lambda e: e / 1e8 * 1e-3)
    >>> f"{waits[0] * 1e3:.1f} ms", f"{held[0]:.2e}"
    ('10.0 ms', '1.50e+08')
    """
    layers = np.asarray(layers, dtype=float)
    tensors = [np.broadcast_to(np.asarray(t, dtype=float), layers.shape) for t in tensors]
    windows = [np.broadcast_to(np.asarray(w, dtype=float), layers.shape) for w in windows_s]
    held = np.zeros(layers.shape)
    waits = np.zeros(layers.shape)
    for k in range(int(np.max(layers, initial=0.0))):
        active = k < layers
        for elements, window in zip(tensors, windows, strict=True):
            full = active & (held > 0) & (held + elements > bucket_elements)
            reduced = np.where(full, held, 0.0)
            waits = waits + np.where(full, np.maximum(np.asarray(reduction(reduced)) - window, 0.0), 0.0)
            held = np.where(active, np.where(full, elements, held + elements), held)
    return waits, held


#: HBM bytes per parameter that DeepSpeed's BF16_Optimizer moves after every micro-batch's backward under the pipeline
#: engine: ``update_hp_grads`` (deepspeed/runtime/bf16_optimizer.py at 56c5223, pull request 1801, the branch BLOOM
#: trained on) runs ``hp_grad.add_(lp.grad.to(float32))`` for each parameter, so the BF16 gradient is read (2) and
#: written out as an FP32 copy (4), and the add reads that copy and the FP32 buffer and writes the buffer (3 x 4).
#: The engine sets the BF16 gradients to None before each backward (``clear_lp_grads``), so autograd adds nothing of
#: its own. Our count from that code.
BF16_ACCUMULATION_BYTES = 2.0 + 4.0 + 3 * 4.0

#: Elements per all-reduce call of DeepSpeed's ``buffered_allreduce_fallback`` (``MEMORY_OPT_ALLREDUCE_SIZE``,
#: deepspeed/runtime/constants.py), the call its pipeline engine reduces the BF16_Optimizer's FP32 gradients with.
DEEPSPEED_ALLREDUCE_ELEMENTS = 500_000_000


@expects(hbm_bytes_per_s="B/s")
def bf16_accumulation_s(params: np.ndarray | float, hbm_bytes_per_s: float) -> np.ndarray:
    r"""Seconds one GPU spends after each micro-batch adding its gradients into DeepSpeed's FP32 buffers.

    Under DeepSpeed's pipeline engine with the BF16_Optimizer (rule R35 of ``training-runs.toml``),
    ``PipelineEngine._exec_backward_pass`` calls ``update_hp_grads`` after every micro-batch's backward, on every
    stage (the last stage through ``BF16_Optimizer.backward``), in the compute stream between one instruction and
    the next, so nothing overlaps it:

    .. math:: t = \frac{b\,P}{\text{HBM}}

    with :math:`P` the parameters the GPU holds, :math:`b` = :data:`BF16_ACCUMULATION_BYTES` and HBM the rate the
    model's memory-bound passes run at. The loop's three torch calls a tensor (a few hundred on a stage) are left out.

    >>> f"{float(bf16_accumulation_s(3.7e9, 2.039e12)) * 1e3:.1f} ms"   # a BLOOM 176B stage: 6 layers at TP 4
    '32.7 ms'
    """
    return BF16_ACCUMULATION_BYTES * np.asarray(params, dtype=float) / hbm_bytes_per_s


#: Bytes per value of the weights PyTorch's FSDP2 keeps sharded under torchtitan's mixed precision: FP32 (the model is
#: built in FP32 and ``MixedPrecisionPolicy(param_dtype=bfloat16)`` casts only what is gathered; parallelize_llama.py
#: at 9dec370), read by every gather's copy-in (rule R37 of ``training-runs.toml``).
FSDP2_SHARD_BYTES = 4.0


@expects(gather_bytes="B", grad_bytes="B", reduce_bytes="B")
def fsdp2_copy_bytes(micro: np.ndarray | float, shard: np.ndarray | float, pipelined: np.ndarray | bool = False,
                     gather_bytes: float = 2.0, grad_bytes: float = 2.0,
                     reduce_bytes: float = 4.0) -> tuple[np.ndarray, np.ndarray]:
    r"""HBM bytes PyTorch's FSDP2 moves per weight per step outside its collectives: on the compute stream and beside.

    Read from FSDP2's code (torch/distributed/fsdp ``_fsdp_collectives.py``, ``_fsdp_param.py`` and
    ``_fsdp_param_group.py``; rule R37 of ``training-runs.toml``), per weight the GPU holds whole, with :math:`N` the
    ranks it is sharded over, :math:`a` the gathered dtype's bytes, :math:`g` the gradient's, :math:`r` the reduce
    dtype's and :math:`s` = :data:`FSDP2_SHARD_BYTES` the shard's:

    - a gather's copy-in (its own stream, beside the compute): the shard cast to the gathered dtype and copied into
      the gather's input buffer, :math:`(s + 3a)/N`;
    - a gather's copy-out (``split_with_sizes_copy`` on the compute stream, after it waits for the gather): :math:`2a`;
    - a reduce-scatter's copy-in (``chunk_cat`` into a buffer of the reduce dtype, which the compute stream waits for
      before it frees the gradients): :math:`g + r`; no division (NCCL's average) and no cast after it (the reduce
      dtype is the shard's), and from the second micro-batch on the reduced shard is added to the one held, on the
      reduce-scatter stream: :math:`3r/N`.

    Without a pipeline every micro-batch gathers each layer twice (forward, and again for the backward after
    ``reshard_after_forward``) and reduce-scatters once; under PyTorch's pipelining with :math:`m > 1` (``pipelined``)
    the weights are gathered once a step and the gradients kept whole: the first micro-batch's cast into an FP32
    accumulator (:math:`g + r`, in ``post_backward`` on the compute stream), each later one added into it
    (:math:`g + 2r`), and one reduce-scatter whose copy-in is already in the reduce dtype (:math:`2r`):

    .. math::

        B_\text{compute} = \begin{cases} m\,(4a + g + r) \\ 2a + (g + r) + (m - 1)(g + 2r) + 2r \end{cases}
        \qquad
        B_\text{beside} = \begin{cases} \left(2m\,(s + 3a) + 3r\,(m - 1)\right)/N \\ (s + 3a)/N \end{cases}

    The last block's gather saved by torchtitan (its ``reshard_after_forward`` is off) and the root module's own
    gathers are counted as the model counts the gathers themselves: every weight twice a micro-batch.

    Parameters
    ----------
    micro : array_like
        :math:`m`, micro-batches per step.
    shard : array_like
        :math:`N`, the ranks the weights are sharded over (DP x CP).
    pipelined : array_like of bool, default False
        Whether the stage runs under PyTorch's pipelining with the gradients kept whole (torchtitan with PP).
    gather_bytes, grad_bytes, reduce_bytes : float
        :math:`a`, :math:`g`, :math:`r`, B per value (BF16 gathered weights and gradients, FP32 reduction).

    Returns
    -------
    tuple of numpy.ndarray
        Bytes per weight per step on the compute stream, and beside it.

    Examples
    --------
    >>> [float(v) for v in fsdp2_copy_bytes(1, 8)]          # 14 on the compute stream, 20/8 beside it
    [14.0, 2.5]
    >>> [float(v) for v in fsdp2_copy_bytes(8, 8, True)]    # 4 + 6 + 70 + 8; one copy-in of 10/8
    [88.0, 1.25]
    """
    m = np.asarray(micro, dtype=float)
    n = np.maximum(np.asarray(shard, dtype=float), 1.0)
    copy_in = (FSDP2_SHARD_BYTES + 3.0 * gather_bytes) / n
    copy_out = 2.0 * gather_bytes
    cast_in = grad_bytes + reduce_bytes
    whole = np.asarray(pipelined, dtype=bool) & (m > 1)
    compute = np.where(whole, copy_out + cast_in + (m - 1.0) * (grad_bytes + 2.0 * reduce_bytes) + 2.0 * reduce_bytes,
                       m * (2.0 * copy_out + cast_in))
    beside = np.where(whole, copy_in, 2.0 * m * copy_in + (m - 1.0) * 3.0 * reduce_bytes / n)
    return compute, beside


#: HBM bytes per parameter of a 16-bit weight gradient as the backward pass produces it.
GRAD_16_BYTES = 2.0


def accumulation_bytes(workload: Workload, micro_batches: np.ndarray | float, zero: np.ndarray | float = 0
                       ) -> np.ndarray:
    """HBM bytes per parameter a GPU moves, per micro-batch on average, adding its gradients to the step's.

    By ``workload.grad_accumulation`` (rule R36 of ``training-runs.toml``, read from each stack's code) and
    ``workload.ddp``:

    - ``ddp = "deepspeed-bf16"``: :data:`BF16_ACCUMULATION_BYTES` after every micro-batch (rule R35);
    - ``buffer`` (Megatron-LM 2021's local DDP: its backward hook runs ``param.main_grad.add_(param.grad.data)``
      for every parameter of every micro-batch, the buffer zeroed at the step's start; megatron/model/
      distributed.py at de7dc40): the 16-bit gradient read, the buffer read and written, at ``grad_bytes`` (FP32
      under ``--accumulate-allreduce-grads-in-fp32``, which Megatron-LM forces for BF16; else the weights' 2);
    - ``autograd`` (PyTorch's AccumulateGrad, which assigns the first micro-batch's gradient and adds each later one
      in place, so the sum, the new gradient and the result move: 3 x 2 bytes, on m - 1 of m micro-batches);
    - ``fused`` or gradients sharded (ZeRO-2/3: each micro-batch's are reduce-scattered, a shard added): nothing.

    >>> from interconnect.topics.seating.model.layout import Workload
    >>> [float(accumulation_bytes(Workload(grad_accumulation=mode), 4)) for mode in ("fused", "buffer", "autograd")]
    [0.0, 6.0, 4.5]
    >>> float(accumulation_bytes(Workload(grad_accumulation="buffer", grad_bytes=4), 4))   # FP32 buffer
    10.0
    >>> float(accumulation_bytes(Workload(grad_accumulation="autograd"), 1))   # one micro-batch: nothing added
    0.0
    """
    m = np.maximum(np.asarray(micro_batches, dtype=float), 1.0)
    whole = np.asarray(zero, dtype=float) < 2
    if workload.ddp == "deepspeed-bf16":
        return BF16_ACCUMULATION_BYTES + 0.0 * m
    if workload.grad_accumulation == "buffer":
        buffer = float(workload.grad_bytes or GRAD_16_BYTES)
        return np.where(whole, GRAD_16_BYTES + 2.0 * buffer, 0.0) + 0.0 * m
    if workload.grad_accumulation == "autograd":
        return np.where(whole, 3.0 * GRAD_16_BYTES * (m - 1.0) / m, 0.0)
    return 0.0 * m
