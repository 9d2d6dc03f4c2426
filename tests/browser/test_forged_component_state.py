"""A forged live-chart state sent over the real websocket: the session is not broken by it.

The page's own websocket is routed through the test (Playwright's ``route_web_socket``), which rewrites
the state the live chart sends when its slider stops into text that is not JSON, as a hostile client
could. Once Streamlit's decoder raised on it on that run and on every run after; now the page says the
state was set aside, and the next change works.
"""

from __future__ import annotations

import re

import pytest
from browser_helpers import assert_healthy, open_page, poll, query_of, wait_settled
from streamlit.proto.BackMsg_pb2 import BackMsg

pytestmark = pytest.mark.browser

SLIDER = ".live-chart input[type=range]"


def test_a_forged_state_over_the_websocket_is_set_aside_and_the_session_goes_on(streamlit_server, page):
    forged = {"text": "\ufeff{not json", "sent": 0}

    def route(socket) -> None:
        server = socket.connect_to_server()

        def from_page(message) -> None:
            if isinstance(message, bytes) and forged["text"] is not None:
                back = BackMsg()
                back.ParseFromString(message)
                if back.WhichOneof("type") == "rerun_script":
                    for state in back.rerun_script.widget_states.widgets:
                        if state.id.endswith("cliff.live_nics") and state.WhichOneof("value") == "json_value":
                            state.json_value = forged["text"]
                            forged["sent"] += 1
                    message = back.SerializeToString()
            server.send(message)

        socket.on_message(from_page)
        server.on_message(socket.send)

    page.route_web_socket(re.compile(r"/_stcore/stream"), route)
    open_page(page, streamlit_server, "/Bandwidth_cliff?gpu=h100-sxm&nics=8")
    slider = page.locator(SLIDER).first
    slider.wait_for(state="visible", timeout=90_000)
    slider.focus()
    page.keyboard.press("ArrowRight")
    warning = page.get_by_text("could not be read")
    warning.wait_for(state="visible", timeout=40_000)
    assert forged["sent"] >= 1
    wait_settled(page)
    assert_healthy(page, streamlit_server)
    assert query_of(page.url).get("nics") == "8"

    forged["text"] = None  # the same session's next change goes through
    slider.focus()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert poll(page, lambda: query_of(page.url).get("nics") not in (None, "8") or None, timeout_s=40), page.url
    wait_settled(page)
    assert_healthy(page, streamlit_server)
