"""Hiding gradient communication behind the backward pass: the data-parallel step, bucket by bucket.

In data-parallel training every GPU computes the gradient of the whole model on its own tokens, then
an all-reduce averages the gradients before the optimizer step. PyTorch DDP does not wait for the
end of the backward pass: it packs gradients into buckets (``bucket_cap_mb=25``, i.e. 25 MiB) and
starts each bucket's all-reduce as soon as its gradients exist, on a second CUDA stream, while the
backward pass goes on (pytorch/pytorch ``torch/nn/parallel/distributed.py``; Li et al., "PyTorch
Distributed", VLDB 2020, https://arxiv.org/abs/2006.15704). Whatever communication is still running
when the backward pass ends, the step waits for.

*Exposed communication* has one meaning here, in every mode, chart, metric and JSON: the step time
minus the compute time (:attr:`StepResult.exposed_comm_s`). It counts everything data-parallel
communication adds to the step: waiting for the slowest GPU, the buckets' launches, SM contention,
and the all-reduce still running after the backward pass (``tail_s``).

This module computes that step as an event list on two lanes (compute, communication) for three
modes, with every bucket's all-reduce time taken from the cluster model
(:func:`interconnect.hardware.collectives.allreduce`) at the bucket's size:

* ``none``: forward, backward, then every bucket's all-reduce back to back, then the optimizer.
* ``overlap``: bucketed overlap as DDP runs it. Gradients appear in backward order: the output
  layer's first, the transformer blocks' in proportion to their compute, the input embedding's at
  the very end (its backward costs almost nothing). Buckets queue on one communication stream.
  While communication kernels run, compute slows by the SM-contention factor ``c``, and every
  bucket costs the compute lane a fixed launch time (the reducer's bookkeeping and the collective's
  launch), whether or not bytes move (:func:`load_bucket_costs` gives sourced values for both).
* ``ideal``: the textbook bound. Gradients stream out evenly over the backward pass and there is no
  contention and no per-bucket cost, so with enough tokens only the last bucket's all-reduce is exposed.

Conventions: times in seconds (``_s``), sizes in bytes, rates in FLOP/s and bytes/s; a dense
transformer computes ``2 N`` FLOPs per token forward and ``4 N`` backward over its ``N`` matmul
parameters (the input embedding is a lookup, not a matmul). Quantities with units appear only at
the boundary (the CLI and the page parse "25 MiB" with :func:`interconnect.units.parse_quantity`).

Simplifications, said once: PyTorch never splits a tensor across buckets and caps its first bucket
at 1 MiB; here buckets are cut from the gradient as one stream. Attention's sequence-dependent
FLOPs are left out (they lengthen compute, so hiding gets easier with long sequences). Gradient
accumulation is not modelled: ``tokens_per_gpu`` are the tokens of the backward pass that ends
with the all-reduce.
"""

from __future__ import annotations

from interconnect.datafiles.bucket_costs import BucketCost, BucketCosts, load_bucket_costs
from interconnect.topics.overlap.model.buckets import (
    Buckets,
    Production,
    gradient_production,
    make_buckets,
    slowest_rank_lag,
)
from interconnect.topics.overlap.model.claim import (
    ClaimCheck,
    check_claim,
    comm_share_for_saving,
    overlap_step_time,
    time_saved_fraction,
)
from interconnect.topics.overlap.model.rooflines import (
    Roofline,
    cluster_roofline_tokens,
    playbook_ratios,
    scaling_book_rooflines,
)
from interconnect.topics.overlap.model.step import (
    EventList,
    StepResult,
    bucket_times_s,
    schedule_from_times,
    step_schedule,
)
from interconnect.topics.overlap.model.sweeps import Sweep, node_sweep, token_sweep
from interconnect.topics.overlap.model.workload import (
    CLAIM_OVERLAP_FRACTION,
    CLAIM_TIME_SAVED,
    DEFAULT_BUCKET_BYTES,
    GRADIENT_BYTES,
    MAX_BUCKETS,
    MODE_LABELS,
    MODES,
    OPTIMIZER_BYTES_PER_PARAM,
    PLAYBOOK_TITLE,
    PLAYBOOK_URL,
    SCALING_BOOK_TITLE,
    SCALING_BOOK_URL,
    ModelShape,
    compute_times_s,
    gpu_rates,
)

__all__ = [
    "BucketCost",
    "BucketCosts",
    "Buckets",
    "CLAIM_OVERLAP_FRACTION",
    "CLAIM_TIME_SAVED",
    "ClaimCheck",
    "DEFAULT_BUCKET_BYTES",
    "EventList",
    "GRADIENT_BYTES",
    "MAX_BUCKETS",
    "MODES",
    "MODE_LABELS",
    "OPTIMIZER_BYTES_PER_PARAM",
    "PLAYBOOK_TITLE",
    "PLAYBOOK_URL",
    "Production",
    "Roofline",
    "SCALING_BOOK_TITLE",
    "SCALING_BOOK_URL",
    "StepResult",
    "Sweep",
    "ModelShape",
    "bucket_times_s",
    "check_claim",
    "cluster_roofline_tokens",
    "comm_share_for_saving",
    "compute_times_s",
    "gpu_rates",
    "gradient_production",
    "load_bucket_costs",
    "make_buckets",
    "node_sweep",
    "overlap_step_time",
    "playbook_ratios",
    "scaling_book_rooflines",
    "schedule_from_times",
    "slowest_rank_lag",
    "step_schedule",
    "time_saved_fraction",
    "token_sweep",
]
