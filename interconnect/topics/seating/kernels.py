"""What a GPU's kernels reach: sourced GEMM and attention throughput per GPU family, and GEMM shape.

The figures live in ``data/published/gpu-kernels.toml`` (one set per family, each with its source; read
and checked by :mod:`interconnect.topics.seating.kernels_data`, whose names are re-exported here):
the sustained or best measured dense BF16 matrix-multiply rate, flash attention's share of the peak,
and the number of SMs that GEMM tiles are spread over. :func:`gemm_shape_factor` says how much of
that rate a GEMM of a given shape keeps: a GEMM is cut into output tiles (256 x 128 or 128 x 128,
whichever wastes least), and the tiles run in waves of one per SM; a partly filled last wave or
tile is idle hardware (NVIDIA's "Matrix Multiplication Background" guide; Anthony et al. 2024,
arXiv 2401.14489). Tensor parallelism slices the GEMMs, so narrow slices lose more of it.

>>> k = kernel_figures("a100-sxm")
>>> k.family, k.gemm_flops / 1e12, k.sms
('ampere', 230.0, 108)
>>> f"{float(gemm_shape_factor(8192, 4608, 12288, k.sms)):.3f}"   # GPT-3's QKV slice at TP 8
'0.970'
"""

from __future__ import annotations

import math

import numpy as np

from interconnect.topics.seating.kernels_data import KernelFigures, TileGrid, kernel_figures, kernel_sources

__all__ = ["KernelFigures", "TileGrid", "gemm_pass_shapes", "gemm_shape_factor", "kernel_figures", "kernel_sources"]

#: Output tile shapes (rows x columns) a GEMM library picks from (NVIDIA's matmul guide's examples).
TILES = ((256, 128), (128, 256), (128, 128))


def gemm_shape_factor(m: np.ndarray | float, n: np.ndarray | float, k: np.ndarray | float,
                      sms: int | TileGrid) -> np.ndarray:
    r"""Share of the large-GEMM rate an (m x k) @ (k x n) GEMM keeps, from its tiles, waves and reduced dimension.

    Parameters
    ----------
    m, n, k : array_like
        Rows of the output (tokens), its columns and the reduced dimension.
    sms : int or TileGrid
        SMs the tiles are spread over (0 means unknown: no tile or wave quantization), or the family's
        :class:`TileGrid` (:meth:`KernelFigures.tile_grid`), which adds the per-tile cost of the reduction.

    Returns
    -------
    numpy.ndarray
        Between 0 and 1: the best over the tile shapes of

        .. math:: \frac{m n}{\lceil m / t_m \rceil t_m \lceil n / t_n \rceil t_n}
                  \cdot \frac{T}{\lceil T / S \rceil S}, \qquad
                  T = \lceil m / t_m \rceil \lceil n / t_n \rceil

        (useful share of the tiles, times the share of SMs busy over the waves; whole waves are what measured
        best shapes have, the MAMF tables' winners), times what the reduction keeps. A tile spends a fixed time
        besides its ``k`` steps (filling the pipeline, writing the output tile), worth :math:`k_0` steps, so against
        the shape the family's rate was measured at (reduced dimension :math:`k_r`) it keeps

        .. math:: \frac{k}{k + k_0} \Big/ \frac{k_r}{k_r + k_0}

        (at most 1; :math:`k_0` fitted to a published per-shape sweep of the family, ``gemm_k_overhead``). A
        family without one keeps :math:`\min(1, k / 1024)` (the older assumption: too little work per tile
        below 1,024 to hide loads).

    Examples
    --------
    >>> float(gemm_shape_factor(6912, 16384, 2048, 108))  # the A100's best measured shape: 54 x 128 tiles
    1.0
    >>> f"{float(gemm_shape_factor(2048, 1536, 12288, 108)):.2f}"   # a narrow TP slice: 96 tiles on 108 SMs
    '0.89'
    >>> hopper = kernel_figures("h100-sxm").tile_grid()
    >>> [f"{float(gemm_shape_factor(8192, 8448, k, hopper)):.3f}" for k in (1024, 2048, 8192, 20480)]
    ['0.864', '0.930', '0.986', '0.998']
    """
    grid = sms if isinstance(sms, TileGrid) else TileGrid(sms)
    if all(np.size(v) == 1 for v in (m, n, k, grid.sms)):  # one GEMM (a plan of one layout): plain floats
        value = _scalar_shape_factor(*(float(np.ravel(v)[0]) for v in (m, n, k)), grid)
        shape = np.broadcast_shapes(*(np.shape(v) for v in (m, n, k, grid.sms)))
        return np.full(shape, value) if shape else np.float64(value)
    count = np.asarray(grid.sms, dtype=float)  # an array where streams share the SMs (TP overlap's chunks)
    m, n, k = (np.asarray(v, dtype=float) for v in (m, n, k))
    shape = np.broadcast(m, n, k).shape
    if grid.k_overhead > 0:
        k0, ref = grid.k_overhead, grid.reference_k
        reduction = np.minimum(1.0, (k / (k + k0)) / (ref / (ref + k0)))
    elif np.all(count > 0):
        reduction = np.minimum(1.0, k / 1024.0)
    else:
        return np.ones(shape)
    calls = 0.0 if grid.call_flop <= 0 else grid.call_flop / np.maximum(2.0 * m * n * k, 1.0)
    if np.any(count <= 0):
        return 1.0 / (1.0 / np.broadcast_to(reduction, shape) + calls)
    best = np.zeros(shape)
    for tm, tn in TILES:
        rows, cols = np.ceil(m / tm), np.ceil(n / tn)
        tiles = rows * cols
        useful = (m * n) / (rows * tm * cols * tn)
        waves = np.ceil(tiles / count)
        best = np.maximum(best, useful * tiles / (waves * count))
    return 1.0 / (1.0 / (best * reduction) + calls)


def _scalar_shape_factor(m: float, n: float, k: float, grid: TileGrid) -> float:
    """:func:`gemm_shape_factor` for one GEMM, in plain floats (the same operations in the same order; the published
    runs and a single plan call it thousands of times with scalars, where numpy's per-call cost dominates)."""
    count = float(np.ravel(grid.sms)[0])
    if grid.k_overhead > 0:
        k0, ref = grid.k_overhead, grid.reference_k
        reduction = min(1.0, (k / (k + k0)) / (ref / (ref + k0)))
    elif count > 0:
        reduction = min(1.0, k / 1024.0)
    else:
        return 1.0
    calls = 0.0 if grid.call_flop <= 0 else grid.call_flop / max(2.0 * m * n * k, 1.0)
    if count <= 0:
        return 1.0 / (1.0 / reduction + calls)
    best = 0.0
    for tm, tn in TILES:
        rows, cols = math.ceil(m / tm), math.ceil(n / tn)
        tiles = rows * cols
        useful = (m * n) / (rows * tm * cols * tn)
        waves = math.ceil(tiles / count)
        best = max(best, useful * tiles / (waves * count))
    return 1.0 / (1.0 / (best * reduction) + calls)


def gemm_pass_shapes(m: np.ndarray | float, n: np.ndarray | float,
                     k: np.ndarray | float) -> tuple[tuple[np.ndarray | float, ...], ...]:
    r"""The three GEMMs a linear layer runs in training, as (rows, columns, reduced) of each output.

    A forward GEMM of ``m`` tokens, ``k`` inputs and ``n`` outputs, :math:`Y_{m \times n} = X_{m \times k}
    W_{k \times n}`, is followed in the backward pass by the inputs' gradient, :math:`dX = dY\,W^T`
    (``m`` x ``k``, reducing over ``n``), and the weights' gradient, :math:`dW = X^T dY` (``k`` x ``n``,
    reducing over the ``m`` tokens). NVIDIA's "Linear/Fully-Connected Layers User's Guide" (Deep Learning
    Performance documentation, Table 1,
    https://docs.nvidia.com/deeplearning/performance/dl-performance-fully-connected/index.html) gives the same three
    shapes: forward propagation, activation gradient
    and weight gradient. Each has its own tiles and waves (:func:`gemm_shape_factor`), so the backward pass's
    two GEMMs keep a share of the rate that can differ from the forward's.

    Examples
    --------
    >>> [tuple(int(v) for v in s) for s in gemm_pass_shapes(8192, 2560, 8192)]   # Llama 3 70B's QKV slice at TP 4
    [(8192, 2560, 8192), (8192, 8192, 2560), (8192, 2560, 8192)]
    """
    return (m, n, k), (m, k, n), (k, n, m)
