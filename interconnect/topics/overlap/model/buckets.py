"""Gradient buckets and when their gradients are ready during the backward pass.

How DDP cuts the gradient into buckets, when each is produced (by mode), and the slowest rank's lag.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from interconnect.hardware.stragglers import slowest_rank_lag
from interconnect.topics.overlap.model.workload import MAX_BUCKETS, ModelShape
from interconnect.units import expects

__all__ = [
    "Buckets",
    "Production",
    "gradient_production",
    "make_buckets",
    "slowest_rank_lag",
]


@dataclass(frozen=True)
class Buckets:
    """How the gradient is cut: ``count`` buckets of ``size_bytes``, the last one ``last_bytes``."""

    gradient_bytes: float
    size_bytes: float
    count: int
    last_bytes: float
    notes: tuple[str, ...] = ()

    @property
    def end_bytes(self) -> np.ndarray:
        """Cumulative bytes at the end of each bucket, B (the last is the whole gradient)."""
        ends = (np.arange(self.count, dtype=float) + 1) * self.size_bytes
        ends[-1] = self.gradient_bytes
        return ends

    @property
    def sizes_bytes(self) -> np.ndarray:
        """Size of each bucket, B (the last may be smaller)."""
        sizes = np.full(self.count, self.size_bytes)
        sizes[-1] = self.last_bytes
        return sizes


@expects(gradient_bytes="B", bucket_bytes="B")
def make_buckets(gradient_bytes: float, bucket_bytes: float) -> Buckets:
    r"""Cut a gradient into buckets of at most a given size, saying what was changed.

    Parameters
    ----------
    gradient_bytes : float
        G, the gradient's size, B.
    bucket_bytes : float
        b, the bucket capacity, B (PyTorch DDP: 25 MiB, :data:`DEFAULT_BUCKET_BYTES`).

    Returns
    -------
    Buckets
        Count, full size and last size in B, and notes when the size was changed.

    Raises
    ------
    ValueError
        When ``bucket_bytes`` is not a positive finite number.

    Notes
    -----
    .. math:: n = \lceil G / b \rceil, \qquad s_{last} = G - (n - 1) \, b

    A bucket larger than the gradient holds it all; more than :data:`MAX_BUCKETS` buckets are
    merged into that many.

    Examples
    --------
    >>> from interconnect.units import Q_
    >>> b = make_buckets(16e9, 25 * 2**20)
    >>> b.count, f"{b.last_bytes:.4g} B"
    (611, '9.216e+06 B')
    >>> make_buckets(Q_(16, "GB"), Q_(25, "MiB")).count
    611
    >>> make_buckets(1e9, 5e9).notes[0]
    'A bucket of 5 GB is larger than the 1 GB gradient: one bucket holds it all, so nothing can overlap.'
    """
    notes: list[str] = []
    gradient = float(gradient_bytes)
    size = float(bucket_bytes)
    if not (math.isfinite(size) and size > 0):
        raise ValueError("the bucket size must be a positive number of bytes")
    if size >= gradient:
        if size > gradient:
            notes.append(f"A bucket of {_bytes_text(size)} is larger than the {_bytes_text(gradient)} gradient: "
                         "one bucket holds it all, so nothing can overlap.")
        size = gradient
    ratio = gradient / size  # infinite for a denormal size: never handed to ceil()
    count = math.ceil(ratio - 1e-9) if ratio <= MAX_BUCKETS else MAX_BUCKETS + 1
    if count > MAX_BUCKETS:
        wanted = size
        size = gradient / MAX_BUCKETS
        count = MAX_BUCKETS
        many = f"{math.ceil(ratio):,}" if math.isfinite(ratio) else f"far more than {MAX_BUCKETS:,}"
        notes.append(f"{_bytes_text(wanted)} buckets would make {many} of them; "
                     f"using {_bytes_text(size)} ({MAX_BUCKETS:,} buckets).")
    last = gradient - (count - 1) * size
    return Buckets(gradient, size, count, max(last, 0.0), tuple(notes))


def _bytes_text(size: float) -> str:
    for factor, unit in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if size >= factor:
            return f"{size / factor:.3g} {unit}"
    return f"{size:.3g} B"


@dataclass(frozen=True)
class Production:
    """When gradient bytes become ready during the backward pass (piecewise linear, non-decreasing).

    The share of the backward pass elapsed when byte x of the gradient is ready is
    ``interp(x, bytes_knots, fraction_knots)``.
    """

    bytes_knots: tuple[float, ...]
    fraction_knots: tuple[float, ...]

    @expects(at_bytes="B")
    def fraction(self, at_bytes: np.ndarray) -> np.ndarray:
        """Compute the share of the backward pass elapsed when the given gradient bytes are ready.

        Parameters
        ----------
        at_bytes : numpy.ndarray
            Positions in the gradient, B.

        Returns
        -------
        numpy.ndarray
            Fractions in [0, 1].

        Examples
        --------
        >>> Production((0.0, 100e6), (0.0, 1.0)).fraction(np.array([25e6, 100e6])).tolist()
        [0.25, 1.0]
        """
        return np.interp(at_bytes, self.bytes_knots, self.fraction_knots)


def gradient_production(workload: ModelShape, gradient_bytes_per_param: int, mode: str) -> Production:
    """Order the gradient bytes as the backward pass produces them: output layer first, blocks, input embedding last.

    Parameters
    ----------
    workload : ModelShape
        The model.
    gradient_bytes_per_param : int
        g, bytes per gradient element.
    mode : {"overlap", "none", "ideal"}
        ``ideal`` streams gradients evenly over the backward pass.

    Returns
    -------
    Production
        Knots in B and in backward-pass share.

    Notes
    -----
    Our model of the backward order: the output layer's share of backward time is its share of
    matmul parameters, :math:`N_{head} / N_{mm}`; the blocks fill the rest evenly; the embedding's
    gradient (a scatter-add, almost free) is complete only at the end. A tied output layer computes
    first but its gradient, shared with the embedding, is ready last. A model without that
    information streams gradients evenly.

    Examples
    --------
    >>> from interconnect.workloads.presets import load_model_presets
    >>> p = gradient_production(ModelShape.from_preset(load_model_presets()["llama3-8b"]), 2, "overlap")
    >>> [round(f, 3) for f in p.fraction_knots]
    [0.0, 0.07, 1.0, 1.0]
    """
    g = float(gradient_bytes_per_param)
    total = workload.params * g
    if mode == "ideal" or (workload.head_params == 0 and workload.embedding_params == 0):
        return Production((0.0, total), (0.0, 1.0))
    head_share = min(workload.head_params / workload.matmul_params, 1.0) if workload.matmul_params > 0 else 0.0
    head = 0.0 if workload.tied else workload.head_params * g
    blocks_end = total - workload.embedding_params * g
    xs, fs = [0.0], [0.0 if head > 0 else head_share]
    for x, f in ((head, head_share), (blocks_end, 1.0), (total, 1.0)):
        if x > xs[-1]:
            xs.append(x)
            fs.append(f)
    return Production(tuple(xs), tuple(fs))
