"""How right the overlap step is: the model's error on the published DDP runs like this case.

The band arithmetic is :mod:`interconnect.hardware.accuracy`. The only published measurement of bucketed
DDP overlap the package holds is PyTorch's own DDP benchmark (:mod:`interconnect.topics.overlap.ddp_benchmark`:
ResNet and ResNeXt on 2-16 V100s, 25 MB buckets, fp32 gradients). Its rows on more than one GPU are the
cases; each is judged, with the per-bucket costs of ``ddp-bucket-costs.toml``, by the time the extra GPUs
add over one (slowest-GPU wait, SM contention and exposed communication), model / measured: the part of
the step the overlap model adds to compute. (The compute itself comes from the case's FLOPs and is not
what this benchmark judges; the basis says so.)

**Similarity rules**, strongest first: *mode* (hard): bucketed overlap, as DDP runs it (no overlap and
ideal overlap were not measured); *scale* (hard): a GPU count within 8x of the case's; *GPU family*
(soft): the catalog GPU's maker and architecture. Every row has one source, so a case that is one of the
rows (``leave_out="pytorch-ddp-benchmark"``) has no band. Cached per process.

>>> from interconnect.hardware.cluster import resolve_cluster
>>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
>>> overlap_band(cluster, "overlap").n
16
>>> big, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=64)
>>> overlap_band(big, "overlap").extrapolation
True
"""

from __future__ import annotations

import dataclasses
import functools

from interconnect.hardware.accuracy import (
    Criterion,
    ErrorBand,
    Evaluated,
    Expected,
    extrapolation,
    gpu_family,
    select_band,
)
from interconnect.hardware.cluster import Cluster
from interconnect.topics.overlap.ddp_benchmark import compare_ddp_benchmark
from interconnect.topics.overlap.model import StepResult

__all__ = ["QUANTITY", "SOURCE", "judged_s", "overlap_band", "step_expected"]

QUANTITY = "time the extra GPUs add over one GPU's compute (model / measured)"
SOURCE = "pytorch-ddp-benchmark"
_FAMILY = gpu_family("v100")  # DGX-1 machines
_SCALE = 8


@functools.lru_cache(maxsize=1)
def _cases() -> tuple[Evaluated, ...]:
    return tuple(Evaluated(f"{row.model}, {row.gpus} GPUs", SOURCE,
                           row.model_comm_overhead_s / row.measured_comm_overhead_s,
                           {"gpus": row.gpus, "family": _FAMILY})
                 for row in compare_ddp_benchmark() if row.gpus > 1 and row.measured_comm_overhead_s > 0)


def overlap_band(cluster: Cluster, mode: str = "overlap", *, leave_out: str | None = None) -> ErrorBand:
    """Return the band of one overlap step: the model's error on the DDP benchmark's runs like it."""
    if mode != "overlap":
        return extrapolation("only bucketed overlap, as DDP runs it, has been measured", QUANTITY)
    gpus, family = cluster.ranks, gpu_family(cluster.gpu)
    low, high = gpus / _SCALE, gpus * _SCALE
    band = select_band(_cases(), [
        Criterion("bucketed overlap (DDP)", lambda c: True, hard=True),
        Criterion(f"GPUs within {_SCALE}x of {gpus:,}", lambda c: low <= c.attrs["gpus"] <= high, hard=True),
        Criterion(family, lambda c: c.attrs["family"] == family),
    ], leave_out=leave_out, quantity=QUANTITY)
    if band.extrapolation:
        return band
    return dataclasses.replace(band, basis=band.basis + "; judges the time communication adds, not the compute")


def judged_s(step: StepResult) -> float:
    """The part of a step the band judges, s: the slowest-GPU wait, SM contention and the all-reduce after the
    backward pass (the DDP benchmark's one-GPU run already holds the bucket launches)."""
    return step.wait_s + step.contention_s + step.tail_s


def step_expected(band: ErrorBand, step: StepResult, scale: float = 1.0, unit: str = "s") -> Expected | None:
    """What a measurement of this step would likely read, in ``unit`` (``scale`` per s): the rest of the step as
    modelled, plus the part the band judges (:func:`judged_s`) read through it; None for an extrapolation.

    With ``j`` the judged part, the step measures about ``step_s - j + j / r`` for the band's ratios r, from
    ``step_s - j + j / high`` to ``step_s - j + j / low``.

    >>> from interconnect.hardware.accuracy import band_from_ratios
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> from interconnect.topics.overlap.model import ModelShape, step_schedule
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> step = step_schedule(cluster, ModelShape.from_params(8e9, 32), 4096)
    >>> got = step_expected(band_from_ratios([0.5, 1.0, 2.0], basis="x"), step)
    >>> j = judged_s(step)
    >>> [round(x, 9) for x in (got.low - (step.step_s - j / 2), got.high - (step.step_s + j))]
    [0.0, 0.0]
    """
    judged = judged_s(step) * scale
    read = band.expected(judged, unit, quantity="step time (the rest as modelled)")
    return None if read is None else read.plus(step.step_s * scale - judged)
