"""URL state parsing: typed, clamped, and never raising on hostile input."""

from hypothesis import given
from hypothesis import strategies as st

from interconnect.inputs.params import (
    BoolParam,
    ChoiceParam,
    FloatParam,
    IntParam,
    QuantityParam,
    parse_state,
    safe_echo,
    to_query,
)

SPECS = [
    ChoiceParam("gpu", "h100-sxm", choices=("h100-sxm", "b200", "a100-sxm")),
    ChoiceParam("unit", "GBps", choices=("GBps", "Gbitps", "bluray")),
    IntParam("nodes", 8, minimum=1, maximum=1024),
    FloatParam("overlap", 0.85, minimum=0.0, maximum=1.0),
    BoolParam("nvls", True),
    QuantityParam("nic_bw", "400 Gbit/s", dimension="bandwidth", minimum="1 Mbit/s", maximum="100 Tbit/s"),
]


def test_defaults_when_absent():
    values, warnings = parse_state(SPECS, {})
    assert values == {"gpu": "h100-sxm", "unit": "GBps", "nodes": 8, "overlap": 0.85, "nvls": True,
                      "nic_bw": "400 Gbit/s"}
    assert warnings == []


def test_good_values_round_trip():
    query = {"gpu": "b200", "unit": "Gbitps", "nodes": "64", "overlap": "0.5", "nvls": "0", "nic_bw": "200 Gbit/s"}
    values, warnings = parse_state(SPECS, query)
    assert warnings == []
    assert to_query(SPECS, values) == query


def test_case_insensitive_choice_but_exact_first():
    values, _ = parse_state(SPECS, {"gpu": "B200", "unit": "GBps"})
    assert values["gpu"] == "b200"
    assert values["unit"] == "GBps"  # not confused with Gbitps


def test_each_bad_value_names_the_parameter_and_the_fallback():
    query = {"gpu": "<script>alert(1)</script>", "nodes": "0", "overlap": "nan", "nvls": "maybe",
             "nic_bw": "5 parsecs", "unit": "x" * 10_000}
    values, warnings = parse_state(SPECS, query)
    by_key = {warning.key: warning for warning in warnings}
    assert set(by_key) == {"gpu", "nodes", "overlap", "nvls", "nic_bw", "unit"}
    assert values["nodes"] == 1 and "minimum" in by_key["nodes"].reason
    assert values["gpu"] == "h100-sxm" and by_key["gpu"].used == "h100-sxm"
    assert "got a length" in by_key["nic_bw"].reason and values["nic_bw"] == "400 Gbit/s"
    assert "too long" in by_key["unit"].reason
    assert by_key["gpu"].message().startswith("Link parameter `gpu`")


def test_clamping_above_maximum():
    values, warnings = parse_state(SPECS, {"nodes": "1000000000", "nic_bw": "1 Pbit/s"})
    assert values["nodes"] == 1024
    assert values["nic_bw"] == "100 Tbit/s"
    assert len(warnings) == 2


def test_repeated_parameter_takes_the_last():
    values, _ = parse_state(SPECS, {"nodes": ["2", "4"]})
    assert values["nodes"] == 4


def test_safe_echo_neutralises_markup():
    echoed = safe_echo("`x`\n<b>\u202e" + "y" * 100)
    assert "`" not in echoed and "\n" not in echoed and "\u202e" not in echoed
    assert echoed.endswith("…") and len(echoed) <= 41


@given(st.dictionaries(st.sampled_from(["gpu", "unit", "nodes", "overlap", "nvls", "nic_bw", "other"]),
                       st.text(max_size=300)))
def test_any_query_parses_to_valid_values(query):
    values, warnings = parse_state(SPECS, query)
    assert values["gpu"] in ("h100-sxm", "b200", "a100-sxm")
    assert 1 <= values["nodes"] <= 1024
    assert 0.0 <= values["overlap"] <= 1.0
    assert isinstance(values["nvls"], bool)
    for warning in warnings:
        assert "`" not in warning.received


def test_whole_numbers_are_ascii_digits_only_and_short():
    specs = [IntParam("nodes", 8, minimum=1, maximum=1024)]
    for raw in ("\u00b2", "\u0663", "\uff18", "9" * 4301, "8.0", "1e3", "0x10", "1__0", "_1"):
        values, warnings = parse_state(specs, {"nodes": raw})
        assert values["nodes"] == 8 and warnings and warnings[0].key == "nodes", raw
    assert parse_state(specs, {"nodes": " 1,000 "})[0]["nodes"] == 1000
    assert parse_state(specs, {"nodes": "1_0"})[0]["nodes"] == 10


def test_a_typed_quantity_is_read_once_and_carries_its_number(monkeypatch):
    import interconnect.units
    from interconnect.units import QuantityText

    values, _ = parse_state(SPECS, {"nic_bw": " 200  Gbit/s"})
    rate = values["nic_bw"]
    # the text for the link (its blanks collapsed), the number for the code: 200 Gbit/s is 25 GB/s
    assert isinstance(rate, QuantityText) and rate == "200 Gbit/s" and rate.magnitude("GB/s") == 25.0
    assert to_query(SPECS, values)["nic_bw"] == "200 Gbit/s" and type(to_query(SPECS, values)["nic_bw"]) is str
    assert parse_state(SPECS, {})[0]["nic_bw"].magnitude("Gbit/s") == 400.0  # the default carries its number too

    def refuse(*args, **kwargs):
        raise AssertionError("parsed again")

    monkeypatch.setattr(interconnect.units, "parse_quantity", refuse)
    spec = SPECS[-1]
    assert spec.clean(rate) is rate  # a value read already is range-checked, not parsed again
    assert interconnect.units.read_quantity(rate, "bandwidth") is rate.quantity
    # a value out of this parameter's range (read by another parameter of the key) is checked all the same
    fast = QuantityText("200 Tbit/s", 200 * interconnect.units.ureg("Tbit/s"), "bandwidth")
    assert spec.clean(fast) == "400 Gbit/s"  # a value out of range falls back to the default, as typed text does
