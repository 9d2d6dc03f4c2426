"""The unit-aware assert in :mod:`interconnect.testing`: what it accepts and, above all, what it rejects."""

from __future__ import annotations

import numpy as np
import pytest

from interconnect.testing import assert_quantity_close
from interconnect.units import Q_


def test_equal_quantities_in_different_units_pass():
    assert_quantity_close(Q_(50, "GB/s"), Q_(400, "Gbit/s"))  # 8 bits per byte
    assert_quantity_close(Q_(256, "MiB"), Q_(2**28, "B"))
    assert_quantity_close(Q_(5, "µs"), Q_(5000, "ns"))


def test_a_unit_mismatch_fails_before_any_magnitude_is_read():
    # 50 GB/s and 50 GHz: stock pint would call these 400 GHz apart, ours calls them different things.
    with pytest.raises(AssertionError, match=r"dimension differs: 50 GB/s is .*\[information\].*50 GHz"):
        assert_quantity_close(Q_(50, "GB/s"), Q_(50, "GHz"))
    with pytest.raises(AssertionError, match="dimension differs"):
        assert_quantity_close(Q_(1, "m"), Q_(1, "s"), rel=1e9)  # no tolerance excuses a wrong dimension


def test_a_wrong_magnitude_fails_and_shows_both_values_with_units():
    with pytest.raises(AssertionError) as failure:
        assert_quantity_close(Q_(400, "Gbit/s"), Q_(51, "GB/s"))
    text = str(failure.value)
    assert "50 GB/s is not close to 51 GB/s" in text  # both in the expected unit
    assert "off by 1 GB/s" in text and "400 Gbit/s" in text  # and the actual as given


def test_a_bare_number_is_not_a_quantity():
    with pytest.raises(AssertionError, match="expected two quantities, got float and Quantity"):
        assert_quantity_close(50.0, Q_(50, "GB/s"))
    with pytest.raises(AssertionError, match="got Quantity and int"):
        assert_quantity_close(Q_(50, "GB/s"), 50)


def test_the_default_relative_tolerance_is_pytest_approx_s():
    assert_quantity_close(Q_(1 + 0.9e-6, "s"), Q_(1, "s"))
    assert Q_(1 + 0.9e-6, "s").to("s").magnitude == pytest.approx(1.0)
    with pytest.raises(AssertionError):
        assert_quantity_close(Q_(1 + 1.1e-6, "s"), Q_(1, "s"))
    assert Q_(1 + 1.1e-6, "s").to("s").magnitude != pytest.approx(1.0)


def test_relative_tolerance_is_measured_from_the_expected_value():
    assert_quantity_close(Q_(101, "m"), Q_(100, "m"), rel=0.011)
    with pytest.raises(AssertionError, match="allowed 0.009 relative"):
        assert_quantity_close(Q_(101, "m"), Q_(100, "m"), rel=0.009)


def test_absolute_tolerance_is_a_quantity_and_the_larger_allowance_wins():
    assert_quantity_close(Q_(0.5, "ns"), Q_(0, "s"), abs_=Q_(1, "ns"))
    with pytest.raises(AssertionError, match=r"allowed 1e-06 relative or 0.1 ns"):
        assert_quantity_close(Q_(0.5, "ns"), Q_(0, "s"), abs_=Q_(0.1, "ns"))
    # max(rel * |expected|, abs_), as pytest.approx: 10 % of 100 m covers 9 m whatever abs_ says.
    assert_quantity_close(Q_(109, "m"), Q_(100, "m"), rel=0.1, abs_=Q_(1, "mm"))
    with pytest.raises(AssertionError):  # the two allowances do not add: 0.4 m and 0.2 m do not cover 0.5 m
        assert_quantity_close(Q_(100.5, "m"), Q_(100, "m"), rel=0.004, abs_=Q_(0.2, "m"))
    assert 100.5 != pytest.approx(100, rel=0.004, abs=0.2)
    with pytest.raises(ValueError, match="abs_ must be a quantity"):
        assert_quantity_close(Q_(1, "m"), Q_(1, "m"), abs_=Q_(1, "s"))
    with pytest.raises(ValueError, match="abs_ must be a quantity"):
        assert_quantity_close(Q_(1, "m"), Q_(1, "m"), abs_=0.1)
    with pytest.raises(ValueError, match="rel must be"):
        assert_quantity_close(Q_(1, "m"), Q_(1, "m"), rel=-1)


def test_arrays_compare_element_by_element_and_name_the_worst_miss():
    assert_quantity_close(Q_(np.array([1.0, 2.0, 3.0]), "km"), Q_(np.array([1000, 2000, 3000]), "m"))
    assert_quantity_close(Q_(np.full(4, 8.0), "Gbit/s"), Q_(1, "GB/s"))  # one expected value for all
    with pytest.raises(AssertionError, match=r"2 of 3 values differ; 3000 m is not close to 3300 m at index 2"):
        assert_quantity_close(Q_(np.array([1.0, 2.0, 3.0]), "km"), Q_(np.array([1000, 2001, 3300]), "m"))
    with pytest.raises(AssertionError, match=r"shape differs: \(3,\) against \(2,\)"):
        assert_quantity_close(Q_(np.ones(3), "m"), Q_(np.ones(2), "m"))


def test_nan_never_passes_and_equal_infinities_do():
    with pytest.raises(AssertionError, match="nan m is not close to 1 m"):
        assert_quantity_close(Q_(float("nan"), "m"), Q_(1, "m"), rel=1e9)
    with pytest.raises(AssertionError, match="at index 1"):
        assert_quantity_close(Q_(np.array([1.0, np.nan]), "m"), Q_(np.array([1.0, np.nan]), "m"))
    assert_quantity_close(Q_(float("inf"), "s"), Q_(float("inf"), "s"))
    with pytest.raises(AssertionError):
        assert_quantity_close(Q_(float("inf"), "s"), Q_(1, "s"), rel=1e9)


def test_the_message_carries_the_caller_s_note():
    with pytest.raises(AssertionError, match=r"\(ib-ndr\)$"):
        assert_quantity_close(Q_(1, "m"), Q_(2, "m"), msg="ib-ndr")
    with pytest.raises(AssertionError, match=r"dimension differs.*\(ib-ndr\)$"):
        assert_quantity_close(Q_(1, "m"), Q_(2, "s"), msg="ib-ndr")
