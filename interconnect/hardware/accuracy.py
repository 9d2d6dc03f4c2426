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
   default) when ``n >= 5``; ``median`` is the median of all ``n``. A model that states the share of
   further cases its band should hold uses :func:`coverage_range` instead (order statistics: the training
   runs and the across-sites figures, at 80 %) or :func:`prediction_range` (a prediction interval that may
   reach past the readings: the nccl-tests tables, at 95 %). Fewer than
   :data:`MIN_NEIGHBOURS` cases even with every soft criterion dropped: no band, the text says
   "extrapolation: no published run like this".

Ratios are model / measured of the quantity named in ``quantity`` (a throughput or a time); a ratio of
1.10 reads "+10 %": the model says 10 % more than was measured.

**The band read the other way** (:meth:`ErrorBand.expected`): since a ratio r is model / measured, a
measurement of a case the model puts at ``v`` would read ``v / r``; the band's ``high``, ``median`` and
``low`` give the likely measured range ``v / high`` .. ``v / low``, about ``v / median``. For the reciprocal
quantity (a time from a throughput band) the ratio is ``1 / r`` and the range is ``v * low`` .. ``v * high``.
This changes nothing in the model: it is the same published misses, said in the estimate's own unit.

>>> band = band_from_ratios([0.9, 1.0, 1.2], basis="a hand-made set")
>>> band.low, band.high, band.median, band.n
(0.9, 1.2, 1.0, 3)
>>> band.text()
'published runs like this: the model reads -10 % to +20 % (3 runs, median +0 %)'
"""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from interconnect.catalog import UnknownIdError, get_catalog
from interconnect.units import SECONDS_PER_UNIT

__all__ = ["MIN_NEIGHBOURS", "PERCENTILE_FROM", "Criterion", "ErrorBand", "Evaluated", "Expected", "band_from_ratios",
           "coverage_neighbours", "coverage_range", "expected_text", "extrapolation", "format_range", "gpu_family",
           "prediction_range", "robust_range", "seconds_in_unit_of", "select_band", "student_t_quantile"]

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


def coverage_range(ratios: Sequence[float], coverage: float,
                   sources: Sequence[str] | None = None) -> tuple[float, float]:
    """Return ``(low, high)``: the k-th smallest and largest ratio, largest k with (n + 1 - 2k) / (n + 1) >= coverage.

    That range holds one more ratio drawn like these with probability (n + 1 - 2k) / (n + 1), whatever their
    distribution (k = 1 at the least: smallest to largest). The arithmetic counts independent draws; the ratios of
    one source (one paper's table, one vendor's page) share that source's inputs and stack, and a case is judged
    with its own source left out, so with ``sources`` (one per ratio) n is the number of distinct sources.

    >>> coverage_range([1.3, 0.8, 1.0], 0.8)
    (0.8, 1.3)
    >>> coverage_range([float(i) for i in range(1, 20)], 0.8)  # 19 ratios: k = 2, (20 - 4) / 20 = 80 %
    (2.0, 18.0)
    >>> coverage_range([float(i) for i in range(1, 20)], 0.8, ["a"] * 10 + ["b"] * 9)  # two sources: k = 1
    (1.0, 19.0)
    """
    values = sorted(float(r) for r in ratios)
    if not values:
        raise ValueError("no ratios")
    n = len(set(sources)) if sources is not None else len(values)
    k = max(1, int(math.floor((n + 1) * (1.0 - coverage) / 2.0 + 1e-9)))
    k = min(k, (len(values) + 1) // 2)
    return values[k - 1], values[-k]


def student_t_quantile(p: float, df: int) -> float:
    """Return the ``p`` quantile of Student's t distribution with ``df`` degrees of freedom (0.5 < p < 1).

    The density is integrated by Simpson's rule and the quantile found by bisection (numpy only; the app has no
    scipy). Closed forms check it: one degree of freedom is the Cauchy distribution, t = tan(pi (p - 1/2));
    two give t = (2p - 1) sqrt(2 / (4p (1 - p))); many approach the normal's 1.95996 at p = 0.975.

    >>> round(student_t_quantile(0.975, 1), 3), round(student_t_quantile(0.975, 2), 3)
    (12.706, 4.303)
    >>> round(student_t_quantile(0.975, 10), 3), round(student_t_quantile(0.975, 10_000), 2)
    (2.228, 1.96)
    """
    if not 0.5 < p < 1.0:
        raise ValueError("p must lie strictly between 0.5 and 1")
    if df < 1:
        raise ValueError("a t quantile needs at least one degree of freedom")
    return _t_quantile(round(float(p), 12), int(df))


@functools.lru_cache(maxsize=256)
def _t_quantile(p: float, df: int) -> float:
    nu = float(df)
    scale = math.exp(math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2)) / math.sqrt(nu * math.pi)

    def upper_half(x: float) -> float:  # integral of the density from 0 to x
        grid = np.linspace(0.0, x, 4001)
        f = scale * (1.0 + grid * grid / nu) ** (-(nu + 1) / 2)
        h = x / 4000
        return float(h / 3 * (f[0] + f[-1] + 4 * f[1:-1:2].sum() + 2 * f[2:-1:2].sum()))

    target, low, high = p - 0.5, 0.0, 1.0
    while upper_half(high) < target:
        low, high = high, high * 2
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if upper_half(mid) < target else (low, mid)
    return (low + high) / 2


def prediction_range(ratios: Sequence[float], coverage: float,
                     sources: Sequence[str] | None = None) -> tuple[float, float]:
    """Return ``(low, high)``: where one more ratio drawn like these falls with probability ``coverage``.

    The ratios' logarithms are taken as a normal sample and the range is its prediction interval, mean +- t s
    sqrt(1 + 1/n) with Student's t at n - 1 degrees of freedom, exponentiated. Unlike the order statistics of
    :func:`coverage_range`, it can reach past the smallest and largest ratio seen, which a high coverage from
    a few ratios needs: smallest to largest of n holds the next one only (n - 1) / (n + 1) of the time. With
    ``sources`` (one per ratio) n is the number of distinct sources, since ratios of one source are not
    independent draws; the mean and spread are still those of every ratio. The range never stops short of the
    smallest or largest ratio seen: one far reading inflates the spread but can still lie past mean +- t s, and
    a band that leaves out a published reading it was drawn from would be wrong on its face.

    One spread serves both sides, although a model's misses are seldom symmetric: a two-piece normal (one
    spread below the median, one above) was tried for the collective bands in December 2026 and held fewer of
    the held-out nccl-tests sweeps (docs/accuracy-history.md, "a 95 % prediction interval").

    >>> low, high = prediction_range([0.9, 1.0, 1.1, 1.0], 0.95)  # exp(-0.0025 -+ 3.182 x 0.0820 x sqrt(5 / 4))
    >>> round(low, 3), round(high, 3)
    (0.745, 1.335)
    >>> prediction_range([1.0, 1.0, 1.0], 0.95)
    (1.0, 1.0)
    >>> low, high = prediction_range([0.3, 1.0, 1.0, 1.02, 0.98, 1.01, 0.99, 1.0, 1.03], 0.95)  # one far reading:
    >>> low, round(high, 2)  # exp(mean - t s ..) would be 0.33, above it; the spread it adds widens both sides
    (0.3, 2.34)
    """
    values = [float(r) for r in ratios]
    if len(values) < 2:
        raise ValueError("a prediction range needs at least two ratios")
    if not 0.5 < coverage < 1.0:
        raise ValueError("coverage must lie strictly between 0.5 and 1")
    n = len(set(sources)) if sources is not None else len(values)
    if n < 2:
        raise ValueError("a prediction range needs ratios from at least two sources")
    logs = np.log(values)
    centre, spread = float(logs.mean()), float(logs.std(ddof=1))
    half = student_t_quantile((1 + coverage) / 2, n - 1) * spread * math.sqrt(1 + 1 / n)
    return min(math.exp(centre - half), min(values)), max(math.exp(centre + half), max(values))


@dataclass(frozen=True)
class Expected:
    """What a measurement of one case would likely read: an estimate read through its band.

    ``low`` <= ``central`` <= ``high`` in ``unit``; ``quantity`` names what they are of ("step time").
    """

    low: float
    central: float
    high: float
    unit: str = ""
    quantity: str = ""

    def plus(self, value: float) -> Expected:
        """The same range with ``value`` added to each end: a part of the estimate the band does not judge.

        >>> Expected(1.0, 2.0, 3.0, "s").plus(10.0)
        Expected(low=11.0, central=12.0, high=13.0, unit='s', quantity='')
        """
        return Expected(self.low + value, self.central + value, self.high + value, self.unit, self.quantity)

    def text(self, fmt: Callable[[float], str], noun: str = "") -> str:
        """``"43–54 % MFU (about 50 %)"``: the range, ``noun``, and the central value, each value written by ``fmt``.

        >>> Expected(0.432, 0.497, 0.538).text(lambda x: f"{x:.0%}", "MFU")
        '43–54% MFU (about 50%)'
        >>> Expected(9.06, 10.0, 11.44, "s").text(lambda x: f"{x:.1f} s", "per step")
        '9.1–11.4 s per step (about 10.0 s)'
        """
        return f"{format_range(self.low, self.high, fmt)}{' ' + noun if noun else ''} (about {fmt(self.central)})"

    def as_json(self, digits: int = 4) -> dict[str, Any]:
        """``low``, ``central``, ``high`` (``digits`` significant figures), ``unit`` and ``quantity``.

        >>> Expected(0.123456, 0.2, 0.3, "s", "step time").as_json()
        {'low': 0.1235, 'central': 0.2, 'high': 0.3, 'unit': 's', 'quantity': 'step time'}
        """
        def r(x: float) -> float:
            return float(f"{x:.{digits}g}")
        return {"low": r(self.low), "central": r(self.central), "high": r(self.high), "unit": self.unit,
                "quantity": self.quantity}


def _shared_tail(a: str, b: str) -> str:
    """The unit two written values share at their end: " s" of "1.2 s" and "1.5 s", "%" of "38%" and "48%".

    The longest common ending without a digit, taken only when both values end in a digit before it ("900 µs"
    and "1.1 ms" share no unit).
    """
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n] and not a[-1 - n].isdigit():
        n += 1
    if n == 0 or n == len(a) or n == len(b):
        return ""
    rest_a, rest_b = a[:len(a) - n].rstrip(), b[:len(b) - n].rstrip()
    return a[len(a) - n:] if rest_a[-1:].isdigit() and rest_b[-1:].isdigit() else ""


def format_range(low: float, high: float, fmt: Callable[[float], str]) -> str:
    """Write ``low``..``high`` with ``fmt``, the unit once when both ends share it: "1.2–1.5 s", "900 µs–1.1 ms".

    >>> format_range(1.2, 1.5, lambda x: f"{x:.1f} s"), format_range(0.38, 0.477, lambda x: f"{x:.0%}")
    ('1.2–1.5 s', '38–48%')
    >>> format_range(0.9, 1.1, lambda x: f"{x * 1e3:.0f} µs" if x < 1 else f"{x:.1f} ms")
    '900 µs–1.1 ms'
    """
    a, b = fmt(low), fmt(high)
    if a == b:
        return a
    tail = _shared_tail(a, b)
    return f"{a[:len(a) - len(tail)]}–{b}"


def seconds_in_unit_of(reference: Callable[[float], str], seconds: float) -> Callable[[float], str]:
    """A writer of times in the one unit ``reference`` writes ``seconds`` in, so a range reads "48.0–72.0 s", not
    "48 s–1.2 min"; three significant figures (whole numbers from 1,000 up).

    >>> from interconnect.units import format_seconds
    >>> fmt = seconds_in_unit_of(format_seconds, 56.7)
    >>> format_range(48.0, 72.0, fmt), fmt(0.5)
    ('48.0–72.0 s', '0.500 s')
    >>> seconds_in_unit_of(format_seconds, 0.00163)(0.00237)
    '2.37 ms'
    """
    unit = reference(seconds).rsplit(" ", 1)[-1]
    factor = SECONDS_PER_UNIT.get(unit)
    if factor is None:
        return reference

    def write(value: float) -> str:
        scaled = float(f"{value / factor:.3g}")
        if abs(scaled) >= 1000:
            return f"{value / factor:,.0f} {unit}"
        return f"{scaled:#.3g}".rstrip(".") + f" {unit}"
    return write


def expected_text(*readings: tuple[Expected | None, Callable[[float], str], str], reader: str = "a measurement") -> str:
    """One clause: what ``reader`` would likely read, each ``(expected, fmt, noun)`` in turn; "" when none.

    >>> step = Expected(9.06, 10.0, 11.44, "s")
    >>> expected_text((step, lambda x: f"{x:.1f} s", "per step"), (None, str, ""))
    'a measurement would likely read 9.1–11.4 s per step (about 10.0 s)'
    >>> expected_text((None, str, ""))
    ''
    """
    parts = [e.text(fmt, noun) for e, fmt, noun in readings if e is not None]
    return f"{reader} would likely read {', '.join(parts)}" if parts else ""


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
    ``coverage`` is the share of further cases like these the band is drawn to hold (None for the shared
    10th-90th percentile rule). ``observed`` is set when the band reaches past what its neighbours read (a
    prediction interval, :func:`prediction_range`): their smallest and largest ratio, which the text then gives
    first, so that "the model reads" is only ever said of readings.
    """

    low: float | None
    high: float | None
    median: float | None
    n: int
    basis: str
    quantity: str = ""
    runs: tuple[str, ...] = ()
    noun: str = "runs"
    coverage: float | None = None
    observed: tuple[float, float] | None = None

    @property
    def extrapolation(self) -> bool:
        """True when no published case is like this one."""
        return self.n == 0

    def contains(self, ratio: float) -> bool:
        """Whether a model / measured ratio lies inside the band (False for an extrapolation)."""
        return not self.extrapolation and self.low <= ratio <= self.high  # type: ignore[operator]

    def text(self) -> str:
        """One line: "published runs like this: the model reads -8 % to +21 % (14 runs, median +6 %)".

        A band that reaches past its neighbours' readings (``observed``) says both, readings first:

        >>> band = ErrorBand(0.7, 1.4, 0.95, 12, "x", noun="tables", coverage=0.95, observed=(0.8, 1.2))
        >>> for part in band.text().split("; "):
        ...     print(part)
        published tables like this: the model reads -20 % to +20 % (12 tables, median -5 %)
        the next one like them, at 95 %: -30 % to +40 %
        """
        if self.extrapolation:
            return EXTRAPOLATION
        if self.observed is not None:
            seen_low, seen_high = self.observed
            return (f"published {self.noun} like this: the model reads {_pct(seen_low)} to {_pct(seen_high)} "
                    f"({self.n} {self.noun}, median {_pct(self.median)}); the next one like them, at "  # type: ignore[arg-type]
                    f"{round((self.coverage or 0) * 100)} %: {_pct(self.low)} to {_pct(self.high)}")  # type: ignore[arg-type]
        return (f"published {self.noun} like this: the model reads {_pct(self.low)} to {_pct(self.high)} "  # type: ignore[arg-type]
                f"({self.n} {self.noun}, median {_pct(self.median)})")  # type: ignore[arg-type]

    def inverted(self, quantity: str) -> ErrorBand:
        """The same band for the reciprocal quantity (a time from a throughput, busbw from a time)."""
        if self.extrapolation:
            return ErrorBand(None, None, None, 0, self.basis, quantity, self.runs, self.noun)
        observed = None if self.observed is None else (1.0 / self.observed[1], 1.0 / self.observed[0])
        return ErrorBand(1.0 / self.high, 1.0 / self.low, 1.0 / self.median, self.n, self.basis,  # type: ignore[operator]
                         quantity, self.runs, self.noun, self.coverage, observed)

    def expected(self, value: float, unit: str = "", *, reciprocal: bool = False,
                 quantity: str = "") -> Expected | None:
        r"""What a measurement of this case would likely read, given the model's ``value``; None when extrapolating.

        Parameters
        ----------
        value : float
            The estimate, in ``unit``: of this band's quantity, or of its reciprocal with ``reciprocal``.
        unit, quantity : str
            Carried into the result.
        reciprocal : bool
            ``value`` is of the reciprocal quantity (a time where the band is of a throughput, busbw where it is
            of a time).

        Returns
        -------
        Expected or None
            ``low``, ``central`` and ``high`` in ``unit``; None for an extrapolation.

        Notes
        -----
        With r = model / measured the band's ratio, a measurement reads :math:`m = v / r`; for the reciprocal
        quantity the ratio is :math:`1 / r` and :math:`m = v \, r`:

        .. math::

            m \in [v / r_{high},\ v / r_{low}], \quad m_c = v / r_{median}
            \qquad\text{or, reciprocal,}\qquad
            m \in [v \, r_{low},\ v \, r_{high}], \quad m_c = v \, r_{median}

        Examples
        --------
        >>> band = band_from_ratios([0.8, 1.0, 1.25], basis="x")  # the model reads -20 % to +25 %
        >>> band.expected(100.0, "TFLOP/s")  # 100 / 1.25 .. 100 / 0.8
        Expected(low=80.0, central=100.0, high=125.0, unit='TFLOP/s', quantity='')
        >>> band.expected(2.0, "s", reciprocal=True)  # a time from the throughput band: 2 x 0.8 .. 2 x 1.25
        Expected(low=1.6, central=2.0, high=2.5, unit='s', quantity='')
        >>> extrapolation("none near").expected(1.0) is None
        True
        """
        if self.extrapolation:
            return None
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"an estimate to read through its band must be finite, not {value}")
        ratios = (self.low, self.median, self.high)
        ends = [value * r for r in ratios] if reciprocal else [value / r for r in ratios]  # type: ignore[operator]
        low, central, high = sorted(ends)
        return Expected(low, central, high, unit, quantity or self.quantity)

    def as_json(self) -> dict[str, Any]:
        """``low``, ``high``, ``median`` (4 places, None if extrapolating), ``n``, ``basis``, ``quantity``, ``runs``,
        ``coverage`` (the share of further cases the band is drawn to hold, or None) and ``observed`` (the
        neighbours' smallest and largest ratio where the band reaches past them, else None)."""
        def r(x: float | None) -> float | None:
            return None if x is None else round(float(x), 4)
        return {"low": r(self.low), "high": r(self.high), "median": r(self.median), "n": self.n,
                "basis": self.basis, "quantity": self.quantity, "runs": list(self.runs), "coverage": self.coverage,
                "observed": None if self.observed is None else [r(x) for x in self.observed]}


def band_from_ratios(ratios: Sequence[float], *, basis: str, quantity: str = "", runs: Iterable[str] = (),
                     noun: str = "runs", coverage: float | None = None,
                     sources: Sequence[str] | None = None) -> ErrorBand:
    """Build the band of a set of neighbour ratios (:func:`robust_range`, or :func:`coverage_range` at ``coverage``,
    counting ``sources`` where given)."""
    ratios = [float(r) for r in ratios]
    if len(ratios) < MIN_NEIGHBOURS:
        return extrapolation(basis, quantity, noun)
    low, high = robust_range(ratios) if coverage is None else coverage_range(ratios, coverage, sources)
    return ErrorBand(low, high, float(statistics.median(ratios)), len(ratios), basis, quantity, tuple(runs), noun,
                     coverage)


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
                                    runs=[c.id for c in chosen], noun=noun, coverage=coverage,
                                    sources=[c.source for c in chosen])
    need = ", ".join(k.label for k in hard) or "any rule"
    found = f"{len(pool)} published {noun if len(pool) != 1 else noun.rstrip('s')}"
    return extrapolation(f"{found} with {need}{left}; a band needs {MIN_NEIGHBOURS}", quantity, noun)
