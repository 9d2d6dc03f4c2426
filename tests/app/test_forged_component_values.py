"""A client can send any state for a live chart or a diagram over the websocket: the page is drawn anyway.

AppTest cannot move a component, so these runs put the forged state in the widget states a run sends, as a
browser's message would (the real websocket: tests/browser/test_live_chart.py).
"""

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetStates

from tests.app.conftest import diagrams, live_charts, run_page

LIVE_PAGES = {
    "pages/1_Bandwidth_cliff.py": "NICs per server",
    "pages/2_All_reduce.py": "Nodes",
    "pages/3_Overlap.py": "Tokens per GPU per step",
    "pages/4_Seating_chart.py": "Nodes",
    "pages/5_Reach.py": "Distance",
    "pages/6_Across_sites.py": "WAN bandwidth per site",
}


def send(at, element, text: str):
    """Run ``at`` once with ``text`` as ``element``'s JSON state, beside the other widgets' own states."""
    states: WidgetStates = at._tree.get_widget_states()
    forged = states.widgets.add()
    forged.id, forged.json_value = element.proto.id, text
    return at._run(states)


def assert_drawn(at) -> None:
    assert not at.exception, [e.message for e in at.exception]
    assert at.title and at.get("bidi_component")


@pytest.mark.parametrize("page", LIVE_PAGES)
def test_forged_live_chart_values_leave_the_page_drawn_and_say_so(page):
    at = run_page(page)
    query = dict(at.query_params)
    for value in ('{"value": NaN}', '{"value": 1e999}', '{"value": -Infinity}', '{"value": 1' + "0" * 4299 + "}",
                  '{"value": "12"}', '{"value": [1]}', '{"value": {"a": 1}}'):
        send(at, live_charts(at)[0], value)
        assert_drawn(at)
        assert len(at.warning) == 1 and LIVE_PAGES[page] in at.warning[0].value, (value, at.warning)
        assert "the page's value is kept" in at.warning[0].value
        assert dict(at.query_params) == query  # nothing the page showed changed
    at.run()
    assert_drawn(at)
    assert not at.warning  # said once


@pytest.mark.parametrize("page", LIVE_PAGES)
def test_a_state_that_is_not_json_is_set_aside_and_the_session_recovers(page):
    at = run_page(page)
    for text in ("", "\ufeff{}", "[" * 50_000, '{"value": 1' + "0" * 4300 + "}"):
        send(at, live_charts(at)[0], text)
        assert_drawn(at)
        assert len(at.warning) == 1 and "could not be read" in at.warning[0].value
        at.run()  # the runs after it: once the session stayed broken here
        assert_drawn(at)
        assert not at.warning


def test_a_diagrams_state_that_is_not_json_is_set_aside():
    at = run_page("pages/4_Seating_chart.py")
    send(at, diagrams(at)[0], "")
    assert_drawn(at)
    assert "`seating-grid`" in at.warning[0].value
    at.run()
    assert_drawn(at)


def test_an_out_of_range_value_is_clamped_and_written_to_the_link():
    at = run_page("pages/2_All_reduce.py")
    send(at, live_charts(at)[0], '{"value": 1000000000}')
    assert_drawn(at)
    assert "above the maximum 100000" in at.warning[0].value
    assert at.query_params["nodes"] == "100000"
