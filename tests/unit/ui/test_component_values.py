"""A live chart's value comes from the browser: it is read by the link's strict readers, and a state that
is not JSON is set aside before Streamlit's decoder sees it (inputs/params.py, ui/component_guard.py)."""

import json

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetStates

from interconnect.inputs.params import FloatParam, IntParam, read_component_value
from interconnect.ui import component_guard

NODES = IntParam("nodes", 8, "Nodes", minimum=1, maximum=100_000)
METRES = FloatParam("d", 1.0, "Distance", minimum=0.1, maximum=2e7)


@pytest.mark.parametrize("spec", [NODES, METRES], ids=["int", "float"])
@pytest.mark.parametrize("raw", [float("nan"), float("inf"), float("-inf"), json.loads("1e999"),
                                 json.loads('{"v": NaN}')["v"], json.loads('{"v": -Infinity}')["v"]])
def test_a_number_that_is_not_finite_is_not_used(spec, raw):
    value, warning = read_component_value(spec, raw)
    assert value is None
    assert warning.reason == "not a finite number" and warning.label == spec.label


@pytest.mark.parametrize("spec", [NODES, METRES], ids=["int", "float"])
@pytest.mark.parametrize("digits", [201, 4300, 4301, 100_000])
def test_an_integer_of_thousands_of_digits_is_refused_without_being_written_out(spec, digits):
    value, warning = read_component_value(spec, 10 ** (digits - 1))
    assert value is None
    assert "too long" in warning.reason and (digits < 300 or f"{digits:,}-digit number" in warning.reason)
    value, warning = read_component_value(spec, -(10 ** (digits - 1)))
    assert value is None and warning.received.startswith("-")


@pytest.mark.parametrize("raw", ["12", "", "nan", "<b>1</b>", [3], {"value": 3}, {"a": [[[]]]}, None, True, False])
def test_anything_but_a_json_number_is_not_used(raw):
    value, warning = read_component_value(NODES, raw)
    assert value is None and warning.reason.startswith("not a number")
    assert "<" not in warning.message() or "`" in warning.message()


@pytest.mark.parametrize(("raw", "used"), [(0, 1), (-5, 1), (10**9, 100_000), (1e15, 100_000), (-1e15, 1)])
def test_a_number_out_of_range_is_clamped_with_a_warning(raw, used):
    value, warning = read_component_value(NODES, raw)
    assert value == used and warning.used == str(used)
    assert warning.reason.startswith(("below the minimum", "above the maximum"))


def test_a_number_too_long_to_write_as_a_whole_number_is_refused_not_clamped():
    assert read_component_value(NODES, -1e300)[0] is None and read_component_value(NODES, 10**40)[0] is None


def test_in_range_numbers_are_read_as_a_link_value_is():
    assert read_component_value(NODES, 16) == (16, None)
    assert read_component_value(NODES, 16.0) == (16, None)
    assert read_component_value(NODES, 16.5)[0] is None  # not a whole number: refused, not rounded
    assert read_component_value(METRES, 1.5) == (1.5, None)
    assert read_component_value(METRES, 3) == (3.0, None)
    assert read_component_value(METRES, 1e30)[0] == 2e7


@pytest.mark.parametrize("text", ["", " ", "\ufeff{\"value\": 4}", "{", "{'value': 4}", "[" * 100_000,
                                  "[" * 65 + "]" * 65, '{"value": 1' + "0" * 4300 + "}", "\x00"])
def test_a_state_streamlit_could_not_decode_is_taken_out_of_the_message(text):
    states = WidgetStates()
    bad = states.widgets.add()
    bad.id, bad.json_value = "$$ID-abc-cliff.live_nics", text
    trigger = states.widgets.add()
    trigger.id, trigger.json_trigger_value = "$$ID-abc-other", text
    good = states.widgets.add()
    good.id, good.json_value = "$$ID-def-allreduce.live_nodes", '{"value": NaN}'  # decodes: the reader's job
    other = states.widgets.add()
    other.id, other.int_value = "$$ID-ghi-count", 3
    assert component_guard.refused_states(states) == ["$$ID-abc-cliff.live_nics", "$$ID-abc-other"]
    assert [w.id for w in states.widgets] == ["$$ID-def-allreduce.live_nodes", "$$ID-ghi-count"]


def test_the_guard_is_installed_once():
    from streamlit.runtime.state.session_state import SessionState

    component_guard.install()
    wrapped = SessionState.on_script_will_rerun
    component_guard.install()
    assert SessionState.on_script_will_rerun is wrapped and wrapped._interconnect_guard
