"""The diagram component on a page: a diagram is drawn as SVG, anything else still as a Plotly chart."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

SCRIPT = """
import plotly.graph_objects as go
from interconnect.ui.diagram import diagram

picture = go.Figure(go.Scatter(x=[0, 1], y=[0, 2], mode="markers", name="<b>x</b>"))
picture.update_xaxes(visible=False).update_yaxes(visible=False)
diagram(picture, key="picture")
diagram(go.Figure(go.Bar(x=["a"], y=[1])), key="bars")
"""


def test_a_diagram_is_drawn_as_svg_and_a_bar_chart_falls_back_to_plotly():
    at = AppTest.from_string(SCRIPT, default_timeout=30).run()
    assert not at.exception
    components = list(at.get("bidi_component"))
    assert [c.key for c in components] == ["picture"]
    scene = json.loads(components[0].proto.json)
    assert scene["layers"][0]["x"] == [0.0, 1.0] and scene["font_size"] >= 14  # the readable copy is what is drawn
    assert [c.key for c in at.get("plotly_chart")] == ["bars"]
    # both keep the chart's exports (HTML and CSV), built only when clicked
    assert len(at.get("popover")) == 2
    html = components[0].proto.html_content
    assert "<b>" not in html and "picture" not in html  # the markup is the module's constant; no text goes into it
