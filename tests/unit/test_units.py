"""The unit registry: information is a dimension, and user input fails with a clear message."""

import pickle

import pint
import pytest

from interconnect.testing import assert_quantity_close
from interconnect.units import (
    Q_,
    QuantityInputError,
    format_bandwidth,
    format_duration,
    format_quantity,
    format_size,
    parse_quantity,
    ureg,
)


def test_bits_are_a_dimension_so_a_link_rate_is_not_a_clock_rate():
    # Stock pint treats bit as dimensionless and gives 8 GHz here; ours must refuse.
    with pytest.raises(pint.DimensionalityError):
        Q_("1 GB/s").to("GHz")


def test_400_gbit_per_s_is_50_gbyte_per_s():
    # A 400 Gbit/s InfiniBand NDR port carries 50 GB/s per direction (1 byte = 8 bits).
    assert_quantity_close(Q_("400 Gbit/s"), Q_(50.0, "GB/s"))


def test_gb_is_the_gilbert_not_gigabit():
    # pint's 'Gb' is gigagilbert (magnetomotive force): the reason we always write 'Gbit'.
    assert Q_("1 Gb").dimensionality == ureg.gilbert.dimensionality
    assert Q_("1 Gb").dimensionality != Q_("1 Gbit").dimensionality


def test_project_units():
    assert_quantity_close(Q_("1 bluray"), Q_(50.0, "GB"))
    assert_quantity_close(Q_("989 TFLOP/s"), Q_(989e12, "FLOP/s"))
    with pytest.raises(pint.DimensionalityError):
        Q_("1 TFLOP/s").to("TB/s")


def test_application_registry_survives_pickling():
    # st.cache_data pickles return values; they must come back in the same registry.
    restored = pickle.loads(pickle.dumps(Q_("450 GB/s")))
    assert_quantity_close(restored + Q_("50 GB/s"), Q_(500, "GB/s"))


@pytest.mark.parametrize(
    ("text", "gbytes_per_s"),
    [("400 Gbit/s", 50.0), ("400 Gbps", 50.0), ("400 Gb/s", 50.0), ("50 GB/s", 50.0), ("50GBps", 50.0),
     ("3.2 Tbit/s", 400.0), ("25 GiB/s", 25 * 2**30 / 1e9), ("1,600 Gbit/s", 200.0)],
)
def test_parse_bandwidth_forms(text, gbytes_per_s):
    assert_quantity_close(parse_quantity(text, "bandwidth").quantity, Q_(gbytes_per_s, "GB/s"))


def test_networking_shorthand_is_explained():
    parsed = parse_quantity("200 Gb/s", "bandwidth")
    assert "gilbert" in parsed.note
    assert parse_quantity("200 Gbit/s", "bandwidth").note == ""


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("5 parsecs", "got a length"),
        ("3 GHz", "frequency"),
        ("400", "without a unit"),
        ("-3 GB/s", "positive"),
        ("0 GB/s", "positive"),
        ("", "empty"),
        ("fast", "unknown unit"),
        ("<script>alert(1)</script>", "not part of a quantity"),
        ("1e999 GB/s", "not finite"),
        ("9" * 100 + " GB/s", "characters"),
        ("4 GB", "got a data size"),
    ],
)
def test_bad_bandwidths_get_a_clear_message(text, fragment):
    with pytest.raises(QuantityInputError) as info:
        parse_quantity(text, "bandwidth")
    assert fragment in str(info.value)
    assert "expected a bandwidth like '400 Gbit/s'" in str(info.value) or "positive" in str(info.value)


def test_parse_other_dimensions():
    assert_quantity_close(parse_quantity("256 MiB", "size").quantity, Q_(2**28, "B"), rel=0)  # exact
    assert_quantity_close(parse_quantity("11 m", "length").quantity, Q_(1100, "cm"))
    assert_quantity_close(parse_quantity("5 µs", "time").quantity, Q_(5000, "ns"))
    with pytest.raises(QuantityInputError, match="expected a length"):
        parse_quantity("5 s", "length")


def test_non_string_input_is_refused():
    with pytest.raises(QuantityInputError):
        parse_quantity(None, "bandwidth")


@pytest.mark.parametrize(
    ("quantity", "unit", "text"),
    [(Q_("450 GB/s"), "B/s", "450 GB/s"), (Q_("50 GB/s"), "bit/s", "400 Gbit/s"),
     (Q_("900 GB/s"), "bluray/s", "18 Blu-rays/s"), (Q_("12 kB/s"), "B/s", "12 kB/s"),
     (Q_("3.35 TB/s"), "B/s", "3.35 TB/s"), (Q_("50 GB/s"), "bluray/s", "1 Blu-ray/s"),
     # Fewer than one 50 GB disc a second reads as the time one disc takes: 50 GB / 25 MB/s = 2000 s.
     (Q_("25 MB/s"), "bluray/s", "1 Blu-ray every 33.3 min"),
     (Q_("50 kB/s"), "bluray/s", "1 Blu-ray every 11.6 days")],
)
def test_format_bandwidth(quantity, unit, text):
    assert format_bandwidth(quantity, unit) == text


def test_format_other():
    assert format_duration(Q_(3.2, "us")) == "3.2 µs"
    assert format_duration(Q_(48, "ms")) == "48 ms"
    assert format_duration(Q_(4000, "s")) == "1.11 h"
    assert format_size(Q_(2**28, "B")) == "256 MiB"
    assert format_quantity(Q_("15 m")) == "15 m"
    assert format_quantity(Q_("40 km")) == "40 km"
    assert format_quantity(Q_("80 GB")) == "80 GB"


@pytest.mark.parametrize(
    "text",
    ["9^9^8 B", "10^400 B", "2**3 B", "(1) B", "1 B + 1 B", "1e3*1e3 B", "2 * 3 GB", "1e5e5 B", "B 3"],
)
def test_arithmetic_is_refused_never_evaluated(text):
    # pint's own string parser evaluates expressions: 9^9^8 as an exact integer took over a minute.
    # The strict grammar refuses anything but "number unit" before a unit is even looked up.
    with pytest.raises(QuantityInputError):
        parse_quantity(text, "size")


@pytest.mark.parametrize(
    ("text", "expected", "unit", "value"),
    [("2 light-seconds", "length", "km", 2 * 299_792.458), ("3 ft", "length", "m", 0.9144),
     ("1000 km", "length", "m", 1e6), (".5 GB", "size", "MB", 500), ("+2e3 us", "time", "ms", 2),
     ("1 GB * s^-1", "bandwidth", "GB/s", 1), ("400 Gbit / s", "bandwidth", "GB/s", 50)],
)
def test_strict_grammar_reads_numbers_and_unit_products(text, expected, unit, value):
    assert_quantity_close(parse_quantity(text, expected).quantity, Q_(value, unit))


def test_float_overflow_is_a_clear_message_not_a_crash():
    with pytest.raises(QuantityInputError, match="not finite"):
        parse_quantity("1e400 B", "size")


def test_every_error_is_an_interconnect_error_and_pickles():
    # st.cache_data pickles what it caches; an error that cannot round-trip breaks a cached call.
    from interconnect.catalog import CatalogError, UnknownIdError
    from interconnect.cli.output import CliError
    from interconnect.units import InterconnectError

    errors = [QuantityInputError("expected a bandwidth"), CatalogError("gpus.toml: bad"),
              UnknownIdError("GPU", "h9000", ["h100-sxm", "b200"]), CliError("--size: bad")]
    for error in errors:
        assert isinstance(error, InterconnectError)
        restored = pickle.loads(pickle.dumps(error))
        assert type(restored) is type(error) and str(restored) == str(error)


def test_the_topic_errors_join_the_family_and_pickle():
    from interconnect.io.nccl_tests import NcclLogError
    from interconnect.topics.crossdc.model import CrossDCError
    from interconnect.topics.seating.model import LayoutError
    from interconnect.units import InterconnectError
    from interconnect.workloads.presets import ModelPresetError

    for error in (NcclLogError("expected 13 columns", 17), CrossDCError("H must be at least 1"),
                  LayoutError("TP must divide the heads"), ModelPresetError("models.toml: bad")):
        assert isinstance(error, InterconnectError)
        restored = pickle.loads(pickle.dumps(error))
        assert type(restored) is type(error) and str(restored) == str(error)


def test_expects_converts_positional_keyword_and_keyword_only_arguments() -> None:
    from interconnect.units import UnitMismatchError, expects

    @expects(size_bytes="B", time_us="us", distance_m="m")
    def rate(size_bytes, time_us=1.0, *, distance_m=0.0):
        return size_bytes / time_us, distance_m

    assert rate(Q_(2, "kB"), Q_(1, "ms")) == (2.0, 0.0)  # 2000 B / 1000 us
    assert rate(2000, time_us=Q_(1, "ms"), distance_m=Q_(3, "km")) == (2.0, 3000.0)
    assert rate(2000.0, 1000.0, distance_m=5) == (2.0, 5)  # plain numbers pass through untouched
    with pytest.raises(UnitMismatchError, match=r"rate\(distance_m=\.\.\.\) expects a length \(in m\), got a time"):
        rate(1, distance_m=Q_(1, "s"))
    with pytest.raises(TypeError, match="does not take"):
        expects(size_bytes="B")(lambda n: n)
