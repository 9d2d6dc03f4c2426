"""How right an estimate is: the model's error on the published cases nearest it, each source left out in turn.

Every headline estimate (a step time, a TFLOP/s, an all-reduce time) carries an :class:`ErrorBand`: the
range of model / measured ratios the model reads on the published cases like this one. This module holds
the parts every topic shares; which cases count as "like this one" is each model's own rule, written in
its accuracy module (:mod:`interconnect.topics.seating.accuracy` for training runs,
:mod:`interconnect.hardware.collectives.accuracy` for nccl-tests tables).

The design, in four steps:

1. **Evaluate** the live model on every published case (the caller's module does it from the loaders and
   the model functions, cached per process; nothing is hard-coded), giving one :class:`Evaluated` per case:
   its model / measured ratio, its source and the attributes the similarity rules read.
2. **Select neighbours** with explicit :class:`Criterion` rules, strongest first. *Hard* criteria always
   hold (a case outside them has no neighbours: extrapolation). *Soft* criteria are dropped one at a time,
   the weakest (last) first, until at least :data:`MIN_NEIGHBOURS` cases are left; ``basis`` says which held
   and which were dropped.
3. **Leave one source out**: when the case being judged is itself a published case (or any case its
   caller ties to a source), every case of that source is removed before selecting, so a band never
   contains the paper or table it is judging.
4. **Range**: with ``n`` neighbour ratios, ``low`` and ``high`` are the smallest and largest when
   ``n < 5`` and the 10th and 90th percentiles (linear interpolation between order statistics, numpy's
   default) when ``n >= 5``; ``median`` is the median of all ``n``. Fewer than
   :data:`MIN_NEIGHBOURS` cases even with every soft criterion dropped: no band, the text says
   "extrapolation: no published run like this".

Ratios are model / measured of the quantity named in ``quantity`` (a throughput or a time); a ratio of
1.10 reads "+10 %": the model says 10 % more than was measured.

>>> band = band_from_ratios([0.9, 1.0, 1.2], basis="a hand-made set")
>>> band.low, band.high, band.median, band.n
(0.9, 1.2, 1.0, 3)
>>> band.text()
'published runs like this: the model reads -10 % to +20 % (3 runs, median +0 %)'
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from interconnect.catalog import UnknownIdError, get_catalog

__all__ = ["MIN_NEIGHBOURS", "PERCENTILE_FROM", "Criterion", "ErrorBand", "Evaluated", "band_from_ratios",
           "coverage_neighbours", "coverage_range", "extrapolation", "gpu_family", "robust_range", "select_band"]

#: The fewest neighbours a band is given for; fewer, even with every soft criterion dropped, is extrapolation.
MIN_NEIGHBOURS = 3
#: From this many neighbours on, the band is the 10th-90th percentile; below it, the smallest to largest.
PERCENTILE_FROM = 5
EXTRAPOLATION = "extrapolation: no published run like this"


def gpu_family(gpu_id: str) -> str:
    """Return a catalog GPU's family, its maker and architecture ("NVIDIA Hopper"); the id itself when unknown.

    >>> gpu_family("h100-sxm"), gpu_family("h200"), gpu_family("a100-sxm")
    ('NVIDIA Hopper', 'NVIDIA Hopper', 'NVIDIA Ampere')
    """
    try:
        gpu = get_catalog().gpu(gpu_id)
    except (UnknownIdError, KeyError):
        return gpu_id
    return f"{gpu.vendor} {gpu.architecture}"


def robust_range(ratios: Sequence[float]) -> tuple[float, float]:
    """Return ``(low, high)`` of a set of ratios: min and max below :data:`PERCENTILE_FROM`, else 10th-90th percentile.

    >>> robust_range([1.3, 0.8, 1.0])
    (0.8, 1.3)
    >>> [round(x, 6) for x in robust_range([float(i) for i in range(1, 12)])]  # 1..11: 10th = 2, 90th = 10
    [2.0, 10.0]
    """
    values = np.asarray(sorted(float(r) for r in ratios), dtype=float)
    if values.size == 0:
        raise ValueError("no ratios")
    if values.size < PERCENTILE_FROM:
        return float(values[0]), float(values[-1])
    low, high = np.percentile(values, [10.0, 90.0])
    return float(low), float(high)


def coverage_neighbours(coverage: float) -> int:
    """Return the fewest n ratios whose smallest-to-largest range holds one more with probability >= ``coverage``.

    That probability is (n - 1) / (n + 1).

    For n exchangeable ratios the new one falls in each of the n + 1 gaps between them with equal chance, so
    the range from the smallest to the largest misses it with probability 2 / (n + 1).

    >>> coverage_neighbours(0.8), coverage_neighbours(0.5)
    (9, 3)
    """
    if not 0.0 < coverage < 1.0:
        raise ValueError("coverage must lie strictly between 0 and 1")
    n = 2
    while (n - 1) / (n + 1) < coverage - 1e-12:
        n += 1
    return n


def coverage_range(ratios: Sequence[float], coverage: float) -> tuple[float, float]:
    """Return ``(low, high)``: the k-th smallest and largest ratio, largest k with (n + 1 - 2k) / (n + 1) >= coverage.

    That range holds one more ratio drawn like these with probability (n + 1 - 2k) / (n + 1), whatever their
    distribution (k = 1 at the least: smallest to largest).

    >>> coverage_range([1.3, 0.8, 1.0], 0.8)
    (0.8, 1.3)
    >>> coverage_range([float(i) for i in range(1, 20)], 0.8)  # 19 ratios: k = 2, (20 - 4) / 20 = 80 %
    (2.0, 18.0)
    """
    values = sorted(float(r) for r in ratios)
    if not values:
        raise ValueError("no ratios")
    n = len(values)
    k = max(1, int(math.floor((n + 1) * (1.0 - coverage) / 2.0 + 1e-9)))
    return values[k - 1], values[-k]


def _pct(ratio: float) -> str:
    value = (ratio - 1.0) * 100.0
    rounded = round(value)
    return f"{'+' if rounded >= 0 else '-'}{abs(rounded):.0f} %"


@dataclass(frozen=True)
class ErrorBand:
    """The model's error on the published cases like one estimate: model / measured ratios.

    ``low``, ``high`` and ``median`` are None for an extrapolation (``n`` is then 0). ``runs`` names the
    neighbours (their ids), ``basis`` says which similarity rules held and which source was left out,
    ``quantity`` what the ratios are of, ``noun`` what a neighbour is called in the text ("runs", "tables").
    """

    low: float | None
    high: float | None
    median: float | None
    n: int
    basis: str
    quantity: str = ""
    runs: tuple[str, ...] = ()
    noun: str = "runs"

    @property
    def extrapolation(self) -> bool:
        """True when no published case is like this one."""
        return self.n == 0

    def contains(self, ratio: float) -> bool:
        """Whether a model / measured ratio lies inside the band (False for an extrapolation)."""
        return not self.extrapolation and self.low <= ratio <= self.high  # type: ignore[operator]

    def text(self) -> str:
        """One line: "published runs like this: the model reads -8 % to +21 % (14 runs, median +6 %)"."""
        if self.extrapolation:
            return EXTRAPOLATION
        return (f"published {self.noun} like this: the model reads {_pct(self.low)} to {_pct(self.high)} "  # type: ignore[arg-type]
                f"({self.n} {self.noun}, median {_pct(self.median)})")  # type: ignore[arg-type]

    def inverted(self, quantity: str) -> ErrorBand:
        """The same band for the reciprocal quantity (a time from a throughput, busbw from a time)."""
        if self.extrapolation:
            return ErrorBand(None, None, None, 0, self.basis, quantity, self.runs, self.noun)
        return ErrorBand(1.0 / self.high, 1.0 / self.low, 1.0 / self.median, self.n, self.basis,  # type: ignore[operator]
                         quantity, self.runs, self.noun)

    def as_json(self) -> dict[str, Any]:
        """``low``, ``high``, ``median`` (4 places, None if extrapolating), ``n``, ``basis``, ``quantity``, ``runs``."""
        def r(x: float | None) -> float | None:
            return None if x is None else round(float(x), 4)
        return {"low": r(self.low), "high": r(self.high), "median": r(self.median), "n": self.n,
                "basis": self.basis, "quantity": self.quantity, "runs": list(self.runs)}


def band_from_ratios(ratios: Sequence[float], *, basis: str, quantity: str = "", runs: Iterable[str] = (),
                     noun: str = "runs", coverage: float | None = None) -> ErrorBand:
    """Build the band of a set of neighbour ratios (:func:`robust_range`, or :func:`coverage_range` at ``coverage``)."""
    ratios = [float(r) for r in ratios]
    if len(ratios) < MIN_NEIGHBOURS:
        return extrapolation(basis, quantity, noun)
    low, high = robust_range(ratios) if coverage is None else coverage_range(ratios, coverage)
    return ErrorBand(low, high, float(statistics.median(ratios)), len(ratios), basis, quantity, tuple(runs), noun)


def extrapolation(reason: str, quantity: str = "", noun: str = "runs") -> ErrorBand:
    """The band of a case no published case is like; ``reason`` says why."""
    basis = EXTRAPOLATION + (f" ({reason})" if reason else "")
    return ErrorBand(None, None, None, 0, basis, quantity, (), noun)


@dataclass(frozen=True)
class Evaluated:
    """One published case, judged: the model / measured ratio, its source, and attributes for the rules."""

    id: str
    source: str
    ratio: float
    attrs: dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Criterion:
    """One similarity rule: ``holds(case)`` for a published case; ``label`` says it in words ("GPU family Hopper")."""

    label: str
    holds: Callable[[Evaluated], bool]
    hard: bool = False


def select_band(cases: Iterable[Evaluated], criteria: Sequence[Criterion], *, leave_out: str | None = None,
                quantity: str = "", noun: str = "runs", coverage: float | None = None) -> ErrorBand:
    """Pick the neighbours of a case and return their band.

    Parameters
    ----------
    cases : iterable of Evaluated
        Every published case, judged by the live model.
    criteria : sequence of Criterion
        Strongest first. Hard ones always hold; soft ones are dropped from the last (the weakest) until at
        least :data:`MIN_NEIGHBOURS` cases are left.
    leave_out : str, optional
        A source whose cases are all removed first (the case being judged is one of its cases).
    quantity, noun : str
        What the ratios are of, and what a case is called in the text.
    coverage : float, optional
        The share of further cases like this one the band should hold. With it, soft criteria are dropped
        until :func:`coverage_neighbours` cases are left (all the hard criteria leave, if fewer, from
        :data:`MIN_NEIGHBOURS` up), and the range is :func:`coverage_range`; without it, the rule of step 2
        and 4 above.

    Returns
    -------
    ErrorBand
        With ``basis`` naming the criteria that held, those dropped and the source left out.

    Examples
    --------
    >>> cases = [Evaluated(f"r{i}", src, ratio, {"gpu": gpu}) for i, (src, ratio, gpu) in enumerate(
    ...     [("a", 1.0, "x"), ("b", 1.2, "x"), ("c", 0.9, "y"), ("d", 1.1, "x")])]
    >>> band = select_band(cases, [Criterion("GPU x", lambda c: c.attrs["gpu"] == "x")], leave_out="a")
    >>> band.n, band.low, band.high, band.basis
    (3, 0.9, 1.2, 'held: none; dropped: GPU x; left out: source a')
    """
    pool = [c for c in cases if leave_out is None or c.source != leave_out]
    hard = [c for c in criteria if c.hard]
    soft = [c for c in criteria if not c.hard]
    pool = [c for c in pool if all(k.holds(c) for k in hard)]
    left = f"; left out: source {leave_out}" if leave_out else ""
    enough = MIN_NEIGHBOURS if coverage is None else max(MIN_NEIGHBOURS, coverage_neighbours(coverage))
    for keep in range(len(soft), -1, -1):
        held, dropped = [*hard, *soft[:keep]], soft[keep:]
        chosen = [c for c in pool if all(k.holds(c) for k in soft[:keep])]
        if len(chosen) >= enough or (keep == 0 and len(chosen) >= MIN_NEIGHBOURS):
            basis = (f"held: {', '.join(k.label for k in held) or 'none'}; "
                     f"dropped: {', '.join(k.label for k in dropped) or 'none'}{left}")
            return band_from_ratios([c.ratio for c in chosen], basis=basis, quantity=quantity,
                                    runs=[c.id for c in chosen], noun=noun, coverage=coverage)
    need = ", ".join(k.label for k in hard) or "any rule"
    found = f"{len(pool)} published {noun if len(pool) != 1 else noun.rstrip('s')}"
    return extrapolation(f"{found} with {need}{left}; a band needs {MIN_NEIGHBOURS}", quantity, noun)
