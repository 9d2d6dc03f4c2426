"""Helpers for the project's tests and benchmarks: unit-aware asserts and a corpus of hostile input.

Kept in the package (as MetPy keeps ``metpy.testing``) so tests, benchmarks and fuzzers share one
definition of "close" for quantities and one list of the inputs a public link can carry.
"""

from __future__ import annotations

import math

import pint

__all__ = ["HOSTILE_LINKS", "HOSTILE_VALUES", "assert_quantity_close", "hostile_value"]


def assert_quantity_close(actual: pint.Quantity, expected: pint.Quantity, *, rel: float = 1e-9,
                          abs_: pint.Quantity | None = None) -> None:
    """Assert two quantities have the same dimension and agree within ``rel`` (and ``abs_``).

    Units are checked before magnitudes: ``50 GB/s`` against ``400 Gbit/s`` passes, against
    ``50 GHz`` fails with a message naming both dimensions.

    >>> from interconnect.units import Q_
    >>> assert_quantity_close(Q_(50, "GB/s"), Q_(400, "Gbit/s"))
    """
    if not isinstance(actual, pint.Quantity) or not isinstance(expected, pint.Quantity):
        raise AssertionError(f"expected two quantities, got {type(actual).__name__} and {type(expected).__name__}")
    if actual.dimensionality != expected.dimensionality:
        raise AssertionError(f"dimension differs: {actual.dimensionality} against {expected.dimensionality}")
    got = float(actual.to(expected.units).magnitude)
    want = float(expected.magnitude)
    tolerance = rel * abs(want) + (float(abs_.to(expected.units).magnitude) if abs_ is not None else 0.0)
    if not (math.isfinite(got) and abs(got - want) <= tolerance):
        raise AssertionError(f"{actual:~P} is not within {rel:g} (relative) of {expected:~P}")


#: Values a pasted link can carry that once broke a page somewhere, or would break a careless one.
HOSTILE_VALUES: tuple[str, ...] = (
    "", " ", "0", "-1", "-0", "1e999", "-1e999", "nan", "NaN", "inf", "-inf", "1e-400", "9" * 5000,
    "9^9^8 B", "10^400 B", "2**2**2**2**2 GB", "1e400 B", "5 parsecs", "3 GHz", "0 B", "-3 GB/s",
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "javascript:alert(1)",
    "[click](javascript:alert(1))", "`code`", "$$\\\\frac{1}{0}$$", "**bold**", "# heading",
    "\x00", "\u202e\u0000", "\ufeff", "🚀" * 60, "../../etc/passwd", "%00", "%27%22", "' OR 1=1 --",
    "None", "True", "[]", "{}", "x" * 10_000, "1,2,3", "1.5", "1e3", "0x10", "١٢٣", "Ⅻ",
    "h100-sxm", "H100-SXM", "ib-ndr", "auto", "custom", "256 MiB", "400 Gbit/s", "11 m",
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
)
