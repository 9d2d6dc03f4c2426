"""The data-parallel step over tokens per GPU and bucket sizes at once: what the Overlap page's live chart draws.

The Overlap page's live chart lets the viewer drag the tokens per GPU and watch the compute share
against the bucket size follow at once. The browser can only do that if it already holds every
curve, so this module computes the whole table (every slider position, every bucket size, every
overlap mode) with the page's own model: one vectorized
:func:`~interconnect.topics.overlap.model.token_sweep` over the token axis per bucket size, the same closed
form as :func:`~interconnect.topics.overlap.model.step_schedule`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from interconnect.catalog import Catalog
from interconnect.hardware.cluster import Cluster
from interconnect.topics.overlap.model import GRADIENT_BYTES, MODES, ModelShape, make_buckets, token_sweep

__all__ = ["BUCKET_GRID_BYTES", "TOKEN_GRID", "TokenBucketFamily", "live_bucket_sizes", "live_token_counts",
           "token_bucket_family"]

#: The slider's tokens per GPU: powers of two and one and a half times them, 128 to 512k.
TOKEN_GRID: tuple[int, ...] = tuple(sorted({int(m * 2**k) for k in range(7, 20) for m in (1, 1.5)} - {786_432}))
#: The chart's bucket sizes: half-octaves from 256 KiB to 4 GiB (B), PyTorch's 25 MiB in between.
BUCKET_GRID_BYTES: tuple[float, ...] = tuple(float(2 ** (k / 2)) for k in range(36, 65))


@dataclass(frozen=True, eq=False)
class TokenBucketFamily:
    """Step, exposed communication and compute share at every (mode, tokens, bucket size).

    Arrays have shape ``(len(modes), tokens.size, bucket_bytes.size)``; times in s, the compute
    share a fraction; ``bucket_count`` is the buckets per step at each bucket size.
    """

    tokens: np.ndarray
    bucket_bytes: np.ndarray
    modes: tuple[str, ...]
    step_s: np.ndarray
    exposed_s: np.ndarray
    utilization: np.ndarray
    bucket_count: np.ndarray


def live_token_counts(current: int, maximum: int = 100_000_000) -> tuple[int, ...]:
    """Return the slider's token counts: :data:`TOKEN_GRID` and the page's own count.

    >>> live_token_counts(4096)[9:13]
    (3072, 4096, 6144, 8192)
    >>> 5000 in live_token_counts(5000), len(live_token_counts(5000)) == len(TOKEN_GRID) + 1
    (True, True)
    """
    current = max(1, min(int(current), int(maximum)))
    return tuple(sorted({*TOKEN_GRID, current}))


def live_bucket_sizes(current_bytes: float) -> tuple[float, ...]:
    """Return the chart's bucket sizes (B): :data:`BUCKET_GRID_BYTES` and the page's own size.

    >>> sizes = live_bucket_sizes(25 * 2**20)
    >>> len(sizes) == len(BUCKET_GRID_BYTES) + 1, 25 * 2**20 in sizes
    (True, True)
    >>> live_bucket_sizes(2**24) == BUCKET_GRID_BYTES  # 16 MiB is on the grid already
    True
    """
    return tuple(sorted({*BUCKET_GRID_BYTES, float(current_bytes)}))


def token_bucket_family(cluster: Cluster, workload: ModelShape, tokens: Sequence[float],
                        bucket_sizes_bytes: Sequence[float], *, gradient_dtype: str = "bf16",
                        sm_contention: float = 0.0, efficiency: float = 1.0, algorithm: str = "auto",
                        catalog: Catalog | None = None, bucket_launch_s: float = 0.0, speed_spread: float = 0.0,
                        modes: Sequence[str] = MODES) -> TokenBucketFamily:
    r"""Compute the step at every token count and bucket size, for each overlap mode.

    Parameters
    ----------
    cluster : Cluster
        The cluster (each bucket's all-reduce time comes from its model).
    workload : ModelShape
        The model.
    tokens : sequence of float
        Tokens per GPU (the live slider's positions).
    bucket_sizes_bytes : sequence of float
        Bucket capacities, B (the chart's x axis).
    gradient_dtype, sm_contention, efficiency, algorithm, catalog, bucket_launch_s, speed_spread
        As for :func:`~interconnect.topics.overlap.model.step_schedule`.
    modes : sequence of str
        Overlap modes, one row each.

    Returns
    -------
    TokenBucketFamily
        Arrays of shape ``(modes, tokens, bucket sizes)``.

    Notes
    -----
    Each point is :func:`~interconnect.topics.overlap.model.step_schedule`'s step (the same closed form,
    vectorized over the tokens by :func:`~interconnect.topics.overlap.model.token_sweep`), and the compute
    share is

    .. math:: U = \frac{T_{fwd} + T_{bwd} + T_{opt}}{T_{step}}

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> family = token_bucket_family(cluster, ModelShape.from_params(8e9, 32), [4096], [25 * 2**20])
    >>> overlap = family.modes.index("overlap")
    >>> f"{family.step_s[overlap, 0, 0] * 1e3:.0f} ms", f"{family.exposed_s[overlap, 0, 0] * 1e3:.1f} ms exposed"
    ('352 ms', '86.7 ms exposed')
    >>> int(family.bucket_count[0])  # the same as step_schedule's example
    611
    """
    token_axis = np.asarray(tokens, dtype=float)
    sizes = np.asarray(bucket_sizes_bytes, dtype=float)
    shape = (len(modes), token_axis.size, sizes.size)
    step, exposed, share = np.empty(shape), np.empty(shape), np.empty(shape)
    counts = np.empty(sizes.size, dtype=np.int64)
    gradient_bytes = workload.params * GRADIENT_BYTES[gradient_dtype]
    for j, size in enumerate(sizes):
        sweep = token_sweep(cluster, workload, token_axis, bucket_bytes=float(size), gradient_dtype=gradient_dtype,
                            sm_contention=sm_contention, efficiency=efficiency, modes=tuple(modes),
                            algorithm=algorithm, catalog=catalog, bucket_launch_s=bucket_launch_s,
                            speed_spread=speed_spread)
        step[:, :, j], exposed[:, :, j], share[:, :, j] = sweep.step_s, sweep.exposed_s, sweep.utilization
        counts[j] = make_buckets(gradient_bytes, float(size)).count
    return TokenBucketFamily(token_axis, sizes, tuple(modes), step, exposed, share, counts)
