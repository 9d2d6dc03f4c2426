"""Utilisation over inner steps H at a whole range of WAN bandwidths: the family the Across-sites live chart draws.

The Across-sites page's live chart lets the viewer drag the WAN bandwidth per site and watch how
rarely each method must synchronise to keep its GPUs busy. The browser can only follow at once if it
already holds every curve, so this module computes them for every bandwidth the slider offers with
the page's own model: :func:`~interconnect.topics.crossdc.model.utilization_curve`, vectorized over the
bandwidths, once per method and value of H.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from interconnect.topics.crossdc.model import METHODS, CrossDCData, Scenario, method_scenarios, utilization_curve

__all__ = ["BANDWIDTH_STEPS_BYTES_PER_S", "INNER_STEPS_GRID", "BandwidthFamily", "bandwidth_family",
           "live_bandwidths", "live_inner_steps"]

#: The slider's WAN bandwidths per site: 1, 2 and 5 times each power of ten from 10 Mbit/s to 10 Tbit/s (B/s).
BANDWIDTH_STEPS_BYTES_PER_S: tuple[float, ...] = tuple(m * 10.0**k / 8 for k in range(7, 14) for m in (1, 2, 5)
                                                       if m * 10.0**k <= 1e13)
#: The chart's inner steps H: 1 to 10,000, about eight points a decade.
INNER_STEPS_GRID: tuple[int, ...] = tuple(int(h) for h in np.unique(np.rint(np.geomspace(1, 10_000, 33))))


@dataclass(frozen=True, eq=False)
class BandwidthFamily:
    """Utilisation (fraction) by method, shape ``(bandwidths, inner steps)`` each.

    Data parallel synchronises every step, so its row is the same at every H (drawn as a level to
    compare against); the chosen method keeps the page's knobs, the others their papers' defaults.
    """

    bandwidths_bytes_per_s: np.ndarray
    inner_steps: np.ndarray
    utilization: dict[str, np.ndarray]


def live_bandwidths(current_bytes_per_s: float) -> tuple[float, ...]:
    """Return the slider's bandwidths (B/s): :data:`BANDWIDTH_STEPS_BYTES_PER_S` and the page's own.

    >>> len(BANDWIDTH_STEPS_BYTES_PER_S), BANDWIDTH_STEPS_BYTES_PER_S[0] * 8, BANDWIDTH_STEPS_BYTES_PER_S[-1] * 8
    (19, 10000000.0, 10000000000000.0)
    >>> live_bandwidths(1.25e9) == BANDWIDTH_STEPS_BYTES_PER_S  # 10 Gbit/s is on the grid
    True
    >>> 3e9 / 8 in live_bandwidths(3e9 / 8)
    True
    """
    return tuple(sorted({*BANDWIDTH_STEPS_BYTES_PER_S, float(current_bytes_per_s)}))


def live_inner_steps(current: int) -> tuple[int, ...]:
    """Return the chart's inner steps: :data:`INNER_STEPS_GRID` and the page's own H.

    >>> INNER_STEPS_GRID[:8]
    (1, 2, 3, 4, 6, 7, 10, 13)
    >>> 500 in live_inner_steps(500), 20_000 in live_inner_steps(20_000)
    (True, True)
    """
    return tuple(sorted({*INNER_STEPS_GRID, max(1, int(current))}))


def bandwidth_family(scenario: Scenario, bandwidths_bytes_per_s: Sequence[float], inner_steps: Sequence[int],
                     data: CrossDCData | None = None) -> BandwidthFamily:
    r"""Compute every method's utilisation at each WAN bandwidth and each number of inner steps H.

    Parameters
    ----------
    scenario : Scenario
        The page's scenario (its method with the page's knobs; its own bandwidth is ignored).
    bandwidths_bytes_per_s : sequence of float
        WAN bandwidths per site in each direction, B/s (the slider's positions).
    inner_steps : sequence of int
        Values of H (the chart's x axis).
    data : CrossDCData, optional
        Where the other methods' defaults come from.

    Returns
    -------
    BandwidthFamily
        One array per id of :data:`~interconnect.topics.crossdc.model.METHODS`, shape
        ``(len(bandwidths), len(inner_steps))``.

    Notes
    -----
    Each point is :func:`~interconnect.topics.crossdc.model.utilization_curve` of the method's scenario
    with H replaced:

    .. math:: U = \frac{H \, t_{step}}{H \, t_{step} + E(H, B_{WAN})}

    (:func:`~interconnect.topics.crossdc.model.exposed_time_s` for E). Streaming DiLoCo's overlap steps
    tau cannot exceed H, so they are cut to H where the grid goes below them.

    Examples
    --------
    >>> from interconnect.topics.crossdc.model import evaluate, make_method
    >>> s = Scenario(1e9, 2, step_s=1.0, wan_bytes_per_s=1.25e9, rtt_s=0.02, method=make_method("diloco"))
    >>> family = bandwidth_family(s, [1.25e9], [1, 500])
    >>> u = family.utilization["diloco"][0, 1]
    >>> bool(u == evaluate(s).utilization), f"{u:.1%}"
    (True, '99.8%')
    >>> f"{family.utilization['dp'][0, 0]:.1%}"  # 1 s / (1 s + 1.62 s - 0.67 s hidden)
    '51.2%'
    """
    bandwidths = np.asarray(bandwidths_bytes_per_s, dtype=float)
    steps = [int(h) for h in inner_steps]
    out = {}
    for method_id, s in method_scenarios(scenario, data).items():
        if method_id in ("dp", "crosspipe"):  # both exchange every step: H does not apply
            row = utilization_curve(s, bandwidths)
            out[method_id] = np.repeat(row[:, None], len(steps), axis=1)
            continue
        table = np.empty((bandwidths.size, len(steps)))
        for j, h in enumerate(steps):
            method = replace(s.method, inner_steps=h, overlap_steps=min(s.method.overlap_steps, h))
            table[:, j] = utilization_curve(replace(s, method=method), bandwidths)
        out[method_id] = table
    return BandwidthFamily(bandwidths, np.asarray(steps, dtype=np.int64), {m: out[m] for m in METHODS})
