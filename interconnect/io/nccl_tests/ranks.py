"""How many ranks a run had, and the busbw factor of each collective (nccl-tests' ``*GetBw`` functions)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from interconnect.io.nccl_tests.decode import _show

# ---------------------------------------------------------------------------------------------
# Collectives and the busbw factor
# ---------------------------------------------------------------------------------------------

_FACTOR_ALL_REDUCE = "2(n-1)/n"
_FACTOR_N_MINUS_1 = "(n-1)/n"
_FACTOR_ONE = "1"

# Normalised name -> busbw factor, from the *GetBw functions in nccl-tests src/<collective>.cu.
_FACTOR_BY_COLLECTIVE = {
    "allreduce": _FACTOR_ALL_REDUCE,
    "allgather": _FACTOR_N_MINUS_1,
    "reducescatter": _FACTOR_N_MINUS_1,
    "alltoall": _FACTOR_N_MINUS_1,
    "alltoallv": _FACTOR_N_MINUS_1,
    "gather": _FACTOR_N_MINUS_1,
    "scatter": _FACTOR_N_MINUS_1,
    "broadcast": _FACTOR_ONE,
    "reduce": _FACTOR_ONE,
    "sendrecv": _FACTOR_ONE,
    "hypercube": _FACTOR_ONE,
}

# Collectives whose algbw numerator is the printed size column, so algbw = size / time holds.
_ALGBW_IS_SIZE_OVER_TIME = {"allreduce", "broadcast", "reduce", "sendrecv", None}


def _collective_key(name: str) -> str | None:
    """``"./build/all_reduce_perf"``, ``"AllReduce"``, ``"all-reduce"`` -> ``"allreduce"``; None if unknown."""
    base = re.split(r"[\\/]", name.strip())[-1].lower().removesuffix(".exe")
    for suffix in ("_perf_mpi", "_perf"):
        base = base.removesuffix(suffix)
    key = re.sub(r"[\s_\-]", "", base)
    return key if key in _FACTOR_BY_COLLECTIVE else None


def busbw_factor(collective: str, ranks: int) -> float:
    r"""Compute the ratio busbw / algbw that nccl-tests applies for a collective on n ranks.

    Parameters
    ----------
    collective : str
        ``"all_reduce_perf"``, ``"all_reduce"``, ``"allreduce"``, ... (case, ``_perf`` suffix,
        underscores and directories are ignored).
    ranks : int
        Number of ranks n, at least 1.

    Returns
    -------
    float
        The dimensionless factor F.

    Raises
    ------
    ValueError
        Unknown collective or ``ranks < 1``.

    Notes
    -----
    nccl-tests reports :math:`\mathrm{algbw} = S / t` and
    :math:`\mathrm{busbw} = \mathrm{algbw} \cdot F` with

    .. math::

        F_{all\text{-}reduce} = \frac{2(n-1)}{n}, \qquad
        F_{all\text{-}gather,\ reduce\text{-}scatter,\ alltoall(v),\ gather,\ scatter} = \frac{n-1}{n},
        \qquad F_{broadcast,\ reduce,\ sendrecv,\ hypercube} = 1

    (``nccl-tests-performance``: ``doc/PERFORMANCE.md``, "Bus bandwidth"; the ``*GetBw`` functions
    in ``src/<collective>.cu``). The all-reduce factor follows from a ring moving each element
    through :math:`2(n-1)` steps over :math:`n` links: :math:`t = (S/B) \cdot 2(n-1)/n`, so
    :math:`B = \mathrm{algbw} \cdot 2(n-1)/n` is the bandwidth each link must sustain, comparable
    across rank counts.

    Examples
    --------
    >>> busbw_factor("all_reduce_perf", 8)
    1.75
    >>> busbw_factor("allgather", 4)
    0.75
    >>> busbw_factor("broadcast", 16)
    1.0
    """
    kind = _collective_key(collective) if isinstance(collective, str) else None
    if kind is None:
        known = ", ".join(sorted(_FACTOR_BY_COLLECTIVE))
        raise ValueError(f"unknown collective {collective!r}; known: {known} (with or without _perf)")
    if isinstance(ranks, bool) or not isinstance(ranks, int | np.integer) or ranks < 1:
        raise ValueError(f"ranks must be a whole number >= 1, got {ranks!r}")
    n = int(ranks)
    factor = _FACTOR_BY_COLLECTIVE[kind]
    if factor == _FACTOR_ALL_REDUCE:
        return 2.0 * (n - 1) / n
    if factor == _FACTOR_N_MINUS_1:
        return (n - 1) / n
    return 1.0


# ---------------------------------------------------------------------------------------------
# Rank count from busbw / algbw
# ---------------------------------------------------------------------------------------------

_MIN_ALGBW_FOR_RATIO_GBPS = 1.0  # printed with 2 decimals, smaller values say little about the ratio


@dataclass(frozen=True)
class _RankEstimate:
    ranks: int
    ratio: float  # median busbw / algbw over the rows used
    ranks_exact: float  # n solved from the median ratio, before rounding
    low: float  # smallest n consistent with every row at the printed precision (nan if rows disagree)
    high: float  # largest such n (may be inf)
    factor: str

    def admits(self, ranks: int) -> bool:
        if math.isnan(self.low):
            return ranks == self.ranks
        return self.low - 1e-9 <= ranks <= self.high + 1e-9

    def whole_numbers_admitted(self) -> int:
        if math.isnan(self.low):
            return 1
        if math.isinf(self.high):
            return 2**31
        return max(0, math.floor(self.high + 1e-9) - math.ceil(self.low - 1e-9) + 1)


def _printed_resolution_gbps(values: np.ndarray) -> np.ndarray:
    """Half a unit in the last printed digit: nccl-tests prints %6.2f, then %6.1f, then %6.0f."""
    magnitude = np.abs(values)
    return np.where(magnitude < 1000, 0.005, np.where(magnitude < 10000, 0.05, 0.5))


def _ranks_from_ratio(ratio: float, factor: str) -> float:
    """Invert ``busbw/algbw = F(n)``; inf when the ratio is at or beyond the factor's limit."""
    limit = 2.0 if factor == _FACTOR_ALL_REDUCE else 1.0
    if ratio >= limit:
        return math.inf
    return limit / (limit - ratio)


def _estimate_ranks(
    factor: str | None, algbw_gbps: np.ndarray, busbw_gbps: np.ndarray, *, resolution_gbps: float | None = None
) -> _RankEstimate | None:
    """Estimate the rank count implied by busbw/algbw.

    ``factor`` None means "collective unknown": a ratio above 1 can only be all-reduce's 2(n-1)/n
    and one below 1 only (n-1)/n.

    ``resolution_gbps`` None means values were printed by nccl-tests (2 decimals); JSON passes a
    tiny number because it carries 6 decimals.
    """
    if factor == _FACTOR_ONE:
        return None
    algbw = np.asarray(algbw_gbps, dtype=np.float64).ravel()
    busbw = np.asarray(busbw_gbps, dtype=np.float64).ravel()
    with np.errstate(invalid="ignore"):
        usable = np.isfinite(algbw) & np.isfinite(busbw) & (algbw >= _MIN_ALGBW_FOR_RATIO_GBPS) & (busbw >= 0)
    if not usable.any():
        return None
    algbw, busbw = algbw[usable], busbw[usable]
    ratio = float(np.median(busbw / algbw))
    if resolution_gbps is None:
        algbw_err, busbw_err = _printed_resolution_gbps(algbw), _printed_resolution_gbps(busbw)
    else:
        algbw_err = busbw_err = np.full_like(algbw, resolution_gbps)
    ratio_low_rows = np.maximum(busbw - busbw_err, 0.0) / (algbw + algbw_err)
    ratio_high_rows = (busbw + busbw_err) / (algbw - algbw_err)
    ratio_low, ratio_high = float(ratio_low_rows.max()), float(ratio_high_rows.min())
    rows_agree = ratio_low <= ratio_high
    if factor is None:
        low_side, high_side = (ratio_low, ratio_high) if rows_agree else (ratio, ratio)
        if low_side > 1.0:
            factor = _FACTOR_ALL_REDUCE
        elif high_side < 1.0:
            factor = _FACTOR_N_MINUS_1
        else:
            return None
    ranks_exact = _ranks_from_ratio(ratio, factor)
    if not math.isfinite(ranks_exact) or ranks_exact < 0.5:
        return None
    ranks = max(1, round(ranks_exact))
    low = high = math.nan
    if rows_agree and math.isfinite(_ranks_from_ratio(ratio_low, factor)):
        low, high = _ranks_from_ratio(ratio_low, factor), _ranks_from_ratio(ratio_high, factor)
        first = max(1, math.ceil(low - 1e-9))
        if math.isinf(high):
            ranks = max(ranks, first)
        elif first <= math.floor(high + 1e-9):
            ranks = min(max(first, ranks), math.floor(high + 1e-9))
    return _RankEstimate(ranks, ratio, ranks_exact, low, high, factor)


def infer_ranks(collective: str | None, algbw: np.ndarray, busbw: np.ndarray) -> int | None:
    r"""Infer the number of ranks from busbw / algbw, or None if the data cannot tell.

    Parameters
    ----------
    collective : str or None
        Collective or program name, or None when the log does not say.
    algbw, busbw : array_like
        Algorithm and bus bandwidth in GB/s, same length.

    Returns
    -------
    int or None
        The rank count n, or None (too few rows with ``algbw >= 1 GB/s``, or a collective whose
        factor is 1).

    Raises
    ------
    ValueError
        Unknown collective name, or arrays of different lengths.

    Notes
    -----
    Inverts :func:`busbw_factor` for the median ratio :math:`r` over rows with
    :math:`\mathrm{algbw} \ge 1` GB/s (smaller values, printed with 2 decimals, say little):

    .. math::

        n = \frac{2}{2 - r} \ \text{(all-reduce)}, \qquad
        n = \frac{1}{1 - r} \ \text{(all-gather, reduce-scatter, alltoall, gather, scatter)}

    The result is the whole number nearest :math:`n` that every row allows at that printed
    precision (our inversion of ``nccl-tests-performance``). With ``collective=None`` a ratio above
    1 is read as all-reduce, below 1 as :math:`(n-1)/n`. Broadcast, reduce and sendrecv (factor 1)
    carry no rank information.

    Examples
    --------
    >>> infer_ranks("all_reduce_perf", [239.71, 248.83], [419.49, 435.46])
    8
    >>> infer_ranks(None, [20.0, 40.0], [15.0, 30.0])  # (n-1)/n = 0.75
    4
    """
    factor = None
    if collective is not None:
        key = _collective_key(collective) if isinstance(collective, str) else None
        if key is None:
            raise ValueError(f"unknown collective {collective!r}")
        factor = _FACTOR_BY_COLLECTIVE[key]
    algbw_arr, busbw_arr = np.asarray(algbw, dtype=np.float64), np.asarray(busbw, dtype=np.float64)
    if algbw_arr.shape != busbw_arr.shape:
        raise ValueError(f"algbw and busbw differ in shape: {algbw_arr.shape} vs {busbw_arr.shape}")
    estimate = _estimate_ranks(factor, algbw_arr, busbw_arr)
    return None if estimate is None else estimate.ranks



def _decide_ranks(
    collective: str | None,
    algbw_gbps: np.ndarray,
    busbw_gbps: np.ndarray,
    listed_ranks: int | None,
    listed_label: str,
    listed_source: str,
    header_ranks: int | None,
    resolution_gbps: float | None,
    warnings: list[str],
) -> tuple[int | None, str]:
    """Pick the rank count: listed devices, else busbw/algbw, else the header; warn on disagreement.

    Messages about the busbw/algbw estimate are given only when the estimate is the count used;
    when devices are listed, only a disagreement with them is reported, naming both sources.
    """
    factor: str | None = None
    if collective is not None:
        key = _collective_key(collective)
        if key is None:
            if listed_ranks is None:
                warnings.append(
                    f"collective {_show(collective)} has no known busbw factor; ranks not inferred from busbw/algbw"
                )
            estimate = None
        else:
            factor = _FACTOR_BY_COLLECTIVE[key]
            estimate = _estimate_ranks(factor, algbw_gbps, busbw_gbps, resolution_gbps=resolution_gbps)
    else:
        estimate = _estimate_ranks(None, algbw_gbps, busbw_gbps, resolution_gbps=resolution_gbps)

    if estimate is not None and listed_ranks is None:
        if math.isnan(estimate.low):
            warnings.append(
                f"busbw/algbw varies between rows more than printing rounds it (median {estimate.ratio:.5f}); "
                "the rank count was inferred from the median ratio"
            )
        elif estimate.whole_numbers_admitted() == 0:
            warnings.append(
                f"busbw/algbw = {estimate.ratio:.5f} gives {estimate.ranks_exact:.2f} ranks, not a whole number: "
                "busbw may not follow nccl-tests' standard factor here"
            )
        if collective is None:
            name = "all-reduce's 2(n-1)/n" if estimate.factor == _FACTOR_ALL_REDUCE else "(n-1)/n"
            warnings.append(
                f"the log does not name the collective; busbw/algbw = {estimate.ratio:.4f} fits {name}, "
                "which was used to infer the rank count"
            )

    impossible = (listed_ranks == 1 and estimate is not None and estimate.ranks > 1
                  and bool(np.any(np.asarray(busbw_gbps, dtype=float) > 0)))
    if impossible:  # one rank sends nothing to anyone: its busbw is 0, so a non-zero busbw rules out 1
        warnings.append(
            f"{listed_label} names 1 rank, but one rank cannot have a non-zero busbw; busbw/algbw gives "
            f"{estimate.ranks}, which is used (under MPI each process lists only its own GPUs)"
        )
        return estimate.ranks, "inferred from busbw/algbw"
    if listed_ranks is not None:
        if estimate is not None and not estimate.admits(listed_ranks):
            warnings.append(
                f"ranks from {listed_label} ({listed_ranks}) disagree with busbw/algbw ({estimate.ranks}); "
                f"the count from the {listed_label} is used"
            )
        return listed_ranks, listed_source
    if estimate is not None:
        spread = estimate.whole_numbers_admitted()
        if spread > 1 and math.isfinite(estimate.high):
            warnings.append(
                f"busbw/algbw pins the rank count only to {math.ceil(estimate.low - 1e-9)}-"
                f"{math.floor(estimate.high + 1e-9)} (bandwidths are printed with 2 decimals); "
                f"{estimate.ranks} fits the median best"
            )
        if header_ranks is not None and estimate.ranks < header_ranks and not estimate.admits(header_ranks):
            warnings.append(
                f"busbw/algbw implies {estimate.ranks} ranks, fewer than nThread*nGpus = {header_ranks} in the header"
            )
        return estimate.ranks, "inferred from busbw/algbw"
    if header_ranks is not None:
        warnings.append(
            f"rank count taken from the header's nThread*nGpus ({header_ranks}); under MPI every process "
            "prints its own GPUs only, so the real count may be a multiple of it"
        )
        return header_ranks, "nthread*ngpus header"
    return None, "unknown"
