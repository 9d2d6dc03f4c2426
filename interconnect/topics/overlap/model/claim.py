"""The overlap-fraction model and the episode's claim about how much overlap saves.

Closed forms for step time with a share of communication hidden, and the check of the claim against a step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from interconnect.topics.overlap.model.step import StepResult
from interconnect.topics.overlap.model.workload import CLAIM_OVERLAP_FRACTION, CLAIM_TIME_SAVED
from interconnect.units import expects

__all__ = [
    "ClaimCheck",
    "check_claim",
    "comm_share_for_saving",
    "overlap_step_time",
    "time_saved_fraction",
]


@expects(compute_s="s", comm_s="s")
def overlap_step_time(compute_s: object, comm_s: object, overlap_fraction: object) -> np.ndarray:
    r"""Compute the iteration time when a fraction of the communication hides behind compute.

    Parameters
    ----------
    compute_s : array_like
        T_comp, s.
    comm_s : array_like
        T_comm, s.
    overlap_fraction : array_like
        f, the share of communication hidden.

    Returns
    -------
    numpy.ndarray
        Iteration time, s.

    Notes
    -----
    .. math:: T = T_{comp} + (1 - f) \, T_{comm}

    The textbook overlap model (as the Ultra-Scale Playbook writes it, ``ultrascale-playbook``,
    data-parallelism section); contention is left out.

    Examples
    --------
    >>> from interconnect.units import Q_
    >>> overlap_step_time(100.0, 50.0, 0.85).tolist()
    [107.5]
    >>> f"{overlap_step_time(Q_(0.1, 's'), Q_(50, 'ms'), 0.85)[0]:.4f} s"
    '0.1075 s'
    """
    return np.atleast_1d(np.asarray(compute_s, float) + (1 - np.asarray(overlap_fraction, float))
                         * np.asarray(comm_s, float))


def time_saved_fraction(comm_share: object, overlap_fraction: object) -> np.ndarray:
    r"""Compute the share of the serialized step saved by overlapping a fraction of communication.

    Parameters
    ----------
    comm_share : array_like
        s = T_comm / (T_comp + T_comm).
    overlap_fraction : array_like
        f, the share of communication hidden.

    Returns
    -------
    numpy.ndarray
        The saving, a fraction of the serialized step.

    Notes
    -----
    From :func:`overlap_step_time` (our rearrangement):

    .. math:: \frac{f \, T_{comm}}{T_{comp} + T_{comm}} = f \, s

    Examples
    --------
    >>> f"{float(time_saved_fraction(0.353, 0.85)[0]):.1%}"
    '30.0%'
    """
    return np.atleast_1d(np.asarray(overlap_fraction, float) * np.asarray(comm_share, float))


def comm_share_for_saving(saving: float, overlap_fraction: float) -> float:
    r"""Compute the communication share that makes a claimed saving true.

    Parameters
    ----------
    saving : float
        The claimed saving, a fraction of the serialized step.
    overlap_fraction : float
        f, the share of communication hidden.

    Returns
    -------
    float
        s = saving / f (above 1: impossible; infinite for f <= 0).

    Notes
    -----
    .. math:: s = \frac{\text{saving}}{f}

    the inverse of :func:`time_saved_fraction`.

    Examples
    --------
    >>> f"{comm_share_for_saving(0.30, 0.85):.1%}"
    '35.3%'
    """
    if overlap_fraction <= 0:
        return math.inf
    return saving / overlap_fraction


@dataclass(frozen=True)
class ClaimCheck:
    """The 85 % -> 30 % claim against T = T_comp + (1 - f) T_comm, and what a given step gives."""

    claimed_fraction: float
    claimed_saving: float
    needed_comm_share: float
    needed_comm_over_compute: float
    step_fraction: float
    step_comm_share: float
    step_saving: float
    step_saving_if_claimed_fraction: float


def check_claim(step: StepResult, *, fraction: float = CLAIM_OVERLAP_FRACTION,
                saving: float = CLAIM_TIME_SAVED) -> ClaimCheck:
    r"""Check the 85 % -> 30 % claim: what communication share makes it true, and what a step gives.

    Parameters
    ----------
    step : StepResult
        A scheduled step.
    fraction : float, default :data:`CLAIM_OVERLAP_FRACTION`
        f, the claimed overlap.
    saving : float, default :data:`CLAIM_TIME_SAVED`
        The claimed saving.

    Returns
    -------
    ClaimCheck
        Fractions (dimensionless) for the claim and for ``step``.

    Notes
    -----
    The needed share is :math:`s = \text{saving} / f` (35.3 % for 30 % at f = 0.85);
    communication is then

    .. math:: \frac{T_{comm}}{T_{comp}} = \frac{s}{1 - s} = 0.55

    of compute. The step's own saving is measured against its no-overlap step.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> from interconnect.topics.overlap.model import ModelShape, step_schedule
    >>> check = check_claim(step_schedule(cluster, ModelShape.from_params(8e9, 32), 4096))
    >>> f"{check.needed_comm_share:.1%}", f"{check.needed_comm_over_compute:.2f}"
    ('35.3%', '0.55')
    """
    share = comm_share_for_saving(saving, fraction)
    serial = step.no_overlap_step_s
    return ClaimCheck(
        claimed_fraction=fraction, claimed_saving=saving, needed_comm_share=share,
        needed_comm_over_compute=share / (1 - share) if share < 1 else math.inf,
        step_fraction=step.overlap_fraction, step_comm_share=step.comm_share,
        step_saving=step.saved_s / serial if serial > 0 else 0.0,
        step_saving_if_claimed_fraction=float(time_saved_fraction(step.comm_share, fraction)[0]),
    )
