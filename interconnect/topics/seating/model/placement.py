"""Where the ranks sit, in Megatron-LM's order (TP fastest, then CP, DP, PP).

The groups of each dimension, and how many scale-up domains (NVLink islands) each group spans.
"""

from __future__ import annotations

import math

import numpy as np

from interconnect.topics.seating.model.layout import DIMENSIONS, Layout

__all__ = [
    "group_domains",
    "groups_of",
    "rank_grid",
    "seat_map",
]


def rank_grid(layout: Layout) -> np.ndarray:
    """Arrange the ranks as ``(pp, dp, cp, tp)`` in Megatron-LM's order (TP fastest).

    Parameters
    ----------
    layout : Layout
        The degrees.

    Returns
    -------
    numpy.ndarray
        Rank ids, shape (pp, dp, cp, tp).

    Examples
    --------
    >>> rank_grid(Layout(tp=2, dp=2)).tolist()
    [[[[0, 1]], [[2, 3]]]]
    """
    return np.arange(layout.gpus).reshape(layout.pp, layout.dp, layout.cp, layout.tp)


def _groups(layout: Layout, dim: str) -> np.ndarray:
    """Rank ids of every group of one dimension: shape (groups, group size)."""
    grid = rank_grid(layout)
    if dim == "ep":
        # EP groups: ep consecutive DP ranks (Megatron's expert-model-parallel groups)
        pp, dp, cp, tp = grid.shape
        g = grid.reshape(pp, dp // layout.ep, layout.ep, cp, tp)
        return np.moveaxis(g, 2, -1).reshape(-1, layout.ep)
    axis = {"pp": 0, "dp": 1, "cp": 2, "tp": 3}[dim]
    size = grid.shape[axis]
    return np.moveaxis(grid, axis, -1).reshape(-1, size)


def groups_of(layout: Layout, dim: str) -> np.ndarray:
    """List the rank ids of every group of one dimension.

    Parameters
    ----------
    layout : Layout
        The degrees.
    dim : {"tp", "cp", "ep", "dp", "pp"}
        The dimension.

    Returns
    -------
    numpy.ndarray
        Shape (groups, group size).

    Examples
    --------
    >>> groups_of(Layout(tp=2, dp=2), "dp").tolist()
    [[0, 2], [1, 3]]
    """
    return _groups(layout, dim)


def group_domains(layout: Layout, dim: str, domain_size: int) -> tuple[np.ndarray, int]:
    """Count the scale-up domains each group of a dimension spans, and its most members in one domain.

    Parameters
    ----------
    layout : Layout
        The degrees.
    dim : {"tp", "cp", "ep", "dp", "pp"}
        The dimension.
    domain_size : int
        GPUs per scale-up domain (consecutive ranks).

    Returns
    -------
    spans : numpy.ndarray
        Domains spanned, one per group.
    per_domain : int
        The most members any group has in one domain.

    Examples
    --------
    A TP group of 8 on 8-GPU nodes spans 1 domain; of 16, it spans 2 (8 each):

    >>> spans, per_domain = group_domains(Layout(tp=16, dp=2), "tp", 8)
    >>> spans.tolist(), per_domain
    ([2, 2], 8)
    """
    groups = _groups(layout, dim)
    domains = np.sort(groups // max(domain_size, 1), axis=1)
    spans = 1 + np.count_nonzero(np.diff(domains, axis=1), axis=1)
    if groups.shape[1] == 1:
        return spans, 1
    # members per domain: the longest run of equal domain ids
    change = np.diff(domains, axis=1) != 0
    per_domain = _longest_run(change)
    return spans, per_domain


def _longest_run(change: np.ndarray) -> int:
    best = 1
    for row in change[: min(len(change), 64)]:  # groups of one dimension share a shape; a few suffice
        run = cur = 1
        for flag in row:
            cur = 1 if flag else cur + 1
            run = max(run, cur)
        best = max(best, run)
    return best


def seat_map(layout: Layout, domain_size: int) -> dict[str, np.ndarray]:
    """Place every rank and name the groups it belongs to, for drawing the seating chart.

    Parameters
    ----------
    layout : Layout
        The degrees.
    domain_size : int
        GPUs per scale-up domain.

    Returns
    -------
    dict of str to numpy.ndarray
        One entry per rank: ``rank``, ``domain``, ``tp``, ``cp``, ``dp``, ``pp`` (the rank's index
        in each dimension), ``ep`` (its expert group within DP) and, per dimension,
        ``straddle_<dim>``: the rank's group crosses a domain boundary it should not. Any TP group
        that spans two domains is flagged (its all-reduces then go over the NICs), a CP or EP group
        that spans more domains than its size needs; DP and PP groups cross domains by design.

    Examples
    --------
    >>> seats = seat_map(Layout(tp=4, dp=3), 6)
    >>> seats["domain"].tolist(), seats["straddle_tp"].tolist()[:8]
    ([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1], [False, False, False, False, True, True, True, True])
    """
    n = layout.gpus
    ranks = np.arange(n)
    domain = ranks // max(domain_size, 1)
    tp_i = ranks % layout.tp
    cp_i = (ranks // layout.tp) % layout.cp
    dp_i = (ranks // (layout.tp * layout.cp)) % layout.dp
    pp_i = ranks // (layout.tp * layout.cp * layout.dp)
    out = {"rank": ranks, "domain": domain, "tp": tp_i, "cp": cp_i, "dp": dp_i, "pp": pp_i,
           "ep": dp_i // max(layout.ep, 1)}
    for dim in DIMENSIONS:
        size = getattr(layout, dim)
        if size <= 1:
            out[f"straddle_{dim}"] = np.zeros(n, dtype=bool)
            continue
        groups = _groups(layout, dim)
        spans, _ = group_domains(layout, dim, domain_size)
        needed = math.ceil(size / max(domain_size, 1))
        # DP and PP groups span domains by design; TP must not, CP and EP not more than they need
        bad = (spans > 1) if dim == "tp" else (spans > needed) if dim in ("cp", "ep") else np.zeros_like(spans, bool)
        flags = np.zeros(n, dtype=bool)
        flags[groups[bad].ravel()] = True
        out[f"straddle_{dim}"] = flags
    return out
