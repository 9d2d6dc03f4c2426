"""The slowest GPU sets the pace: how far the slowest of N GPUs of one model lags a typical one.

Synchronous training waits at every collective for the last rank to arrive, so a step runs at the speed of its
slowest GPU. GPUs of one model differ in speed (silicon, cooling, the board's shared power budget), and a one-GPU
benchmark measures a typical GPU. The Overlap page charges the lag to its data-parallel buckets, the Seating chart to
the tensor-core kernels of the whole job.
"""

from __future__ import annotations

import numpy as np

__all__ = ["slowest_rank_lag"]


def slowest_rank_lag(ranks: object, spread: float) -> np.ndarray:
    r"""Compute how far the slowest of ``ranks`` GPUs lags a typical one, for speeds spread over ``spread``.

    Parameters
    ----------
    ranks : int or array of int
        GPUs that wait for each other (a data-parallel group; a whole synchronous job).
    spread : float
        w, the range of speeds of GPUs of one model, as a fraction of the median (0.08: 8 %).

    Returns
    -------
    numpy.ndarray
        s, the fraction by which the slowest rank is slower than a typical one (0 for one rank).

    Notes
    -----
    Our model: GPU speeds uniform over :math:`[-w/2, w/2]` around the median, ranks drawn at
    random; the slowest of :math:`N` is on average

    .. math:: s_N = \frac{w}{2} \, \frac{N - 1}{N + 1}

    slower than the median GPU, which a one-GPU run measures on average. Published spreads: Sinha et al. (SC22,
    arXiv 2208.11035) measured 8 % average performance variation (at most 22 %) between V100s of one SKU on Summit,
    Vortex and Longhorn (the Overlap page's ``gpu_spread``); Stas Bekman's sustained matmul benchmark with all eight
    GPUs of a node busy spreads 4.5 % on an H200 node and 10.4 % on a B200 node (the Seating chart's
    ``speed_spread`` of ``gpu-kernels.toml``).

    Examples
    --------
    >>> [round(float(s), 4) for s in slowest_rank_lag(np.array([1, 2, 8]), 0.08)]
    [0.0, 0.0133, 0.0311]
    """
    n = np.maximum(np.asarray(ranks, dtype=float), 1.0)
    return spread / 2 * (n - 1) / (n + 1)
