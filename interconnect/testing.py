"""Helpers for the project's tests and benchmarks: unit-aware asserts and a corpus of hostile input.

Kept in the package (as MetPy keeps ``metpy.testing``) so tests, benchmarks and fuzzers share one
definition of "close" for quantities and one list of the inputs a public link can carry.
"""

from __future__ import annotations

import numpy as np
import pint

__all__ = ["HOSTILE_LINKS", "HOSTILE_VALUES", "assert_quantity_close", "hostile_value"]


def assert_quantity_close(actual: pint.Quantity, expected: pint.Quantity, *, rel: float = 1e-6,
                          abs_: pint.Quantity | None = None, msg: object = None) -> None:
    """Assert two quantities have the same dimension and agree within ``rel`` or ``abs_``.

    Units are checked before magnitudes: ``50 GB/s`` against ``400 Gbit/s`` passes, against
    ``50 GHz`` fails with a message naming both dimensions. Magnitudes are compared in
    ``expected``'s unit and pass where ``|actual - expected| <= max(rel * |expected|, abs_)``, the
    rule of ``pytest.approx``; the default ``rel`` is also pytest's, so a converted
    ``x.to(unit).magnitude == pytest.approx(y)`` keeps its tolerance. ``abs_`` is a quantity of the
    same dimension (``Q_(1, "ns")``), never a bare number. Magnitudes may be numpy arrays: ``expected``
    has the shape of ``actual`` or is a single value. NaN never passes; equal infinities do. ``msg``
    is added to the failure message, like the text after ``assert ...,``.

    >>> from interconnect.units import Q_
    >>> assert_quantity_close(Q_(50, "GB/s"), Q_(400, "Gbit/s"))
    """
    suffix = "" if msg is None else f" ({msg})"
    if not isinstance(actual, pint.Quantity) or not isinstance(expected, pint.Quantity):
        raise AssertionError(f"expected two quantities, got {type(actual).__name__} and "
                             f"{type(expected).__name__}{suffix}")
    if actual.dimensionality != expected.dimensionality:
        raise AssertionError(f"dimension differs: {actual:~P} is {actual.dimensionality}, "
                             f"{expected:~P} is {expected.dimensionality}{suffix}")
    if not rel >= 0:
        raise ValueError(f"rel must be a non-negative number, got {rel!r}")
    unit = expected.units
    if abs_ is None:
        allowed_abs = 0.0
    elif not isinstance(abs_, pint.Quantity) or abs_.dimensionality != expected.dimensionality:
        raise ValueError(f"abs_ must be a quantity of dimension {expected.dimensionality}, got {abs_!r}")
    else:
        allowed_abs = float(abs_.to(unit).magnitude)
        if not allowed_abs >= 0:
            raise ValueError(f"abs_ must be non-negative, got {abs_:~P}")
    got = np.asarray(actual.to(unit).magnitude, dtype=float)
    want = np.asarray(expected.magnitude, dtype=float)
    if want.shape not in ((), got.shape):
        raise AssertionError(f"shape differs: {got.shape} against {want.shape}{suffix}")
    want = np.broadcast_to(want, got.shape)
    with np.errstate(invalid="ignore", over="ignore"):
        difference = np.abs(got - want)
        tolerance = np.maximum(rel * np.abs(want), allowed_abs)
        close = (got == want) | (np.isfinite(difference) & (difference <= tolerance))
    if close.all():
        return
    allowed = f"{rel:g} relative" + (f" or {abs_:~P}" if abs_ is not None else "")
    if got.ndim == 0:
        where, misses = "", ""
        index: tuple[int, ...] = ()
    else:
        # Report the worst miss; a NaN or an infinity counts as worse than any finite miss.
        badness = np.where(close, -1.0, np.where(np.isfinite(difference), difference, np.inf))
        index = np.unravel_index(int(np.argmax(badness)), got.shape)
        where = f" at index {index[0] if len(index) == 1 else index}"
        misses = f"{int((~close).sum())} of {got.size} values differ; "
    given = f"{actual:~P}" if got.ndim == 0 else f"an array in {actual.units:~P}"
    shown_got, shown_want, shown_off = (f"{float(v[index]):.12g} {unit:~P}" for v in (got, want, difference))
    raise AssertionError(f"{misses}{shown_got} is not close to {shown_want}{where} (off by {shown_off}, "
                         f"allowed {allowed}; actual given as {given}){suffix}")


#: Values a pasted link can carry that once broke a page somewhere, or would break a careless one.
HOSTILE_VALUES: tuple[str, ...] = (
    "", " ", "0", "-1", "-0", "1e999", "-1e999", "nan", "NaN", "inf", "-inf", "1e-400", "9" * 5000,
    "9^9^8 B", "10^400 B", "2**2**2**2**2 GB", "1e400 B", "5 parsecs", "3 GHz", "0 B", "-3 GB/s",
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "javascript:alert(1)",
    "[click](javascript:alert(1))", "`code`", "$$\\\\frac{1}{0}$$", "**bold**", "# heading",
    "\x00", "\u202e\u0000", "\ufeff", "🚀" * 60, "../../etc/passwd", "%00", "%27%22", "' OR 1=1 --",
    "None", "True", "[]", "{}", "x" * 10_000, "1,2,3", "1.5", "1e3", "0x10", "١٢٣", "Ⅻ",
    "h100-sxm", "H100-SXM", "ib-ndr", "auto", "custom", "256 MiB", "400 Gbit/s", "11 m",
    # Issue 21: Unicode digits that str.isdigit() accepts and int() refuses (or reads), numbers just past
    # Python's 4,300-digit limit for int(), and the finite extremes of a float, bare and with units.
    "\u00b2", "\u0663", "\uff18", "9" * 4301, "1e308", "-1e308", "5e-324", "1e-320",
    "1e308 B", "5e-324 B", "1e308 Gbit/s", "1e-320 Gbit/s", "1e308 s", "5e-324 s", "1 KiB",
)


def hostile_value(index: int) -> str:
    """The ``index``-th hostile value, cycling through :data:`HOSTILE_VALUES`."""
    return HOSTILE_VALUES[index % len(HOSTILE_VALUES)]


#: The worst links the fuzzers and reviews found: each once cost seconds to minutes of server CPU, or
#: crashed a page, before the input parsers were made strict and linear.
HOSTILE_LINKS: tuple[str, ...] = (
    "/All_reduce?size=9%5E9%5E8%20B",
    "/All_reduce?size=10%5E400%20B",
    "/All_reduce?nic=custom&nic_bw=2**2**2**2**2%20Gbit/s",
    "/All_reduce?nodes=100000&gpn=1024",
    "/Bandwidth_cliff?gpu=" + "x" * 5000 + "&nics=" + "9" * 5000,
    "/Catalog?kind=%3Cimg%20src=x%20onerror=alert(1)%3E&entry=" + "z" * 5000,
    # Issue 21: a superscript two as the tour's stop drew nothing on every page; 4,301 digits too.
    "/?tour=1&step=%C2%B2",
    "/Across_sites?tour=1&stop=" + "9" * 4301,
    "/Overlap?model=deepseek-v3&bucket=1%20KiB",
)
