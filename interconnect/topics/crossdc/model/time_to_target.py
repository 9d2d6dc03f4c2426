"""Time to a target loss: the bandwidth a method saves against the steps it may lose, as one number.

Each method synchronises less than data parallel, so its GPUs wait less per step (its utilisation), but it
may need more steps, or fewer, to reach the loss fully synchronous data parallel reaches. The published step
ratios are in ``crossdc.toml`` (``[[time_to_target]]``); this module multiplies them by the wall-clock time per
step the page already computes, so each method gets its time to data parallel's loss relative to data
parallel on the same link. Pure arithmetic: no file, no Streamlit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from interconnect.topics.crossdc.data import CrossDCData, TargetSteps, get_crossdc_data
from interconnect.topics.crossdc.model.scaling_law import DiLoCoSteps, diloco_steps
from interconnect.topics.crossdc.model.scenario import CrossDCResult

__all__ = ["TimeToTarget", "resolved_steps_ratios", "time_to_target", "time_to_target_ratio"]


def time_to_target_ratio(steps_ratio: object, utilization: object, utilization_dp: object) -> np.ndarray:
    r"""Compute a method's time to data parallel's loss, over data parallel's time on the same link.

    Parameters
    ----------
    steps_ratio : array_like
        :math:`r`, the method's steps to data parallel's loss over data parallel's steps (same global batch).
    utilization : array_like
        :math:`U`, the method's compute utilisation (fraction).
    utilization_dp : array_like
        :math:`U_{DP}`, data parallel's utilisation on the same link (fraction).

    Returns
    -------
    numpy.ndarray
        :math:`T / T_{DP}` (dimensionless; below 1 the method gets there first).

    Notes
    -----
    A step of compute :math:`t` takes :math:`t / U` of wall-clock time, so with :math:`S` data-parallel steps

    .. math:: \frac{T}{T_{DP}} = \frac{r S \, t / U}{S \, t / U_{DP}} = r \, \frac{U_{DP}}{U}

    Examples
    --------
    Data parallel busy 38.46 % of the time, DiLoCo 99.68 %, DiLoCo needing no more steps:

    >>> f"{float(time_to_target_ratio(1.0, 500 / 501.6, 1 / 2.6)):.4f}"
    '0.3858'
    """
    return np.asarray(steps_ratio, dtype=float) * np.asarray(utilization_dp, dtype=float) / np.asarray(
        utilization, dtype=float)


def resolved_steps_ratios(rows: tuple[TargetSteps, ...], overrides: Mapping[str, float] | None = None
                          ) -> dict[str, float]:
    """Multiply each row's ratio through its ``relative_to`` chain, so every ratio is against data parallel.

    ``overrides`` replaces a row's own ratio (a law's value at the case) before the chain is followed.

    Examples
    --------
    >>> ratios = resolved_steps_ratios(get_crossdc_data().time_to_target)
    >>> ratios["dp"], ratios["cocodc"]
    (1.0, 0.79)
    """
    overrides = overrides or {}
    resolved: dict[str, float] = {}
    for row in rows:  # the data layer guarantees relative_to names a row above (or the row itself)
        base = 1.0 if row.relative_to == row.id else resolved[row.relative_to]
        resolved[row.id] = overrides.get(row.id, row.steps_ratio) * base
    return resolved


@dataclass(frozen=True)
class TimeToTarget:
    """One method's steps and time to data parallel's loss, on the scenario's link.

    ``step_wall_s`` and ``relative_time`` are NaN for a row with no timing on the page (its own published
    ``row.time_ratio`` stands instead). ``params_factor`` is the page's model size over the size the ratio
    was measured at (NaN when not stated); ``sites``/``inner_steps`` are the page's, beside ``row.replicas`` and
    ``row.inner_steps``.
    """

    row: TargetSteps
    steps_ratio: float
    utilization: float
    step_wall_s: float
    relative_time: float
    params: float
    sites: int
    inner_steps: int
    #: Where a law's ratio comes from at this case, in words ("" when the row's published ratio is used).
    law_note: str = ""
    #: The law's basis at this case ("" when the row's published ratio is used).
    law_basis: str = ""

    @property
    def basis(self) -> str:
        """``measured``, ``extrapolated`` or ``exact``: the law's at this case, else the row's."""
        return self.law_basis or self.row.basis

    @property
    def params_factor(self) -> float:
        """The page's model size over the size the ratio was measured at (NaN when not stated)."""
        return self.params / self.row.params if self.row.params > 0 else math.nan

    @property
    def same_setting(self) -> bool:
        """Whether the page's case is the one the ratio was measured at (size, replicas and H all stated and equal)."""
        row = self.row
        return (row.params > 0 and row.replicas > 0 and row.inner_steps > 0 and math.isclose(self.params, row.params)
                and self.sites == row.replicas and self.inner_steps == row.inner_steps)


def time_to_target(results: Mapping[str, CrossDCResult], data: CrossDCData | None = None) -> tuple[TimeToTarget, ...]:
    """Compute each method's time to data parallel's loss, relative to data parallel on the same link.

    Parameters
    ----------
    results : mapping of str to CrossDCResult
        One result per method id on the same scenario (as :func:`method_scenarios` and :func:`evaluate` give),
        including ``"dp"``.
    data : CrossDCData, optional
        Where the step ratios come from.

    Returns
    -------
    tuple of TimeToTarget
        In the file's order; the wall-clock per step is the step time over the utilisation (s).

    Examples
    --------
    >>> from interconnect.topics.crossdc.model import Scenario, evaluate, make_method, method_scenarios
    >>> s = Scenario(1e9, 2, step_s=1.0, wan_bytes_per_s=1.25e9, rtt_s=0.0, method=make_method("diloco"),
    ...              overlap=False)
    >>> rows = {r.row.id: r for r in time_to_target({k: evaluate(v) for k, v in method_scenarios(s).items()})}
    >>> f"{rows['dp'].step_wall_s:.2f} s", f"{rows['diloco'].relative_time:.4f}"  # 1.0276 x 0.3858
    ('2.60 s', '0.3965')
    """
    data = data or get_crossdc_data()
    dp = results["dp"]
    laws: dict[str, DiLoCoSteps] = {}
    for row in data.time_to_target:
        if row.law == "diloco-scaling" and data.diloco_scaling is not None:
            timed = results.get(row.timing) if row.timing else None
            inner = timed.scenario.method.inner_steps if timed is not None else data.diloco_scaling.inner_steps
            laws[row.id] = diloco_steps(dp.scenario.params, dp.scenario.sites, inner, data.diloco_scaling)
    ratios = resolved_steps_ratios(data.time_to_target, {k: v.steps_ratio for k, v in laws.items()})
    out = []
    for row in data.time_to_target:
        result = results.get(row.timing) if row.timing else None
        if result is None:
            utilization = wall = relative = math.nan
            scenario = dp.scenario
            inner = row.inner_steps
        else:
            utilization = result.utilization
            scenario = result.scenario
            wall = scenario.step_s / utilization
            relative = float(time_to_target_ratio(ratios[row.id], utilization, dp.utilization))
            inner = scenario.method.inner_steps
        law = laws.get(row.id)
        out.append(TimeToTarget(row, ratios[row.id], utilization, wall, relative, scenario.params, scenario.sites,
                                inner, law.note if law else "", law.basis if law else ""))
    return tuple(out)
