"""Drawing a diagram (the seating grid, the fabric's picture) as SVG in the browser, without Plotly.

A page's first picture should not wait for Plotly's code to load. :func:`diagram` takes the Plotly
figure a builder made, turns it into a scene (:func:`interconnect.figures.diagram.diagram_scene`)
and draws that with a small inline component (``diagram.js`` beside this module). The figure stays
the one source: its exports (offline HTML, CSV) are the same as any chart's, a tour step that shows
it draws it with Plotly as before, and a figure the scene cannot hold is drawn with Plotly too.

Nothing a visitor typed reaches the component's HTML: the markup below is a constant, and the
script writes every text with ``textContent``.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import streamlit as st

from interconnect.figures.diagram import UnsupportedFigure, diagram_scene
from interconnect.ui import component_guard
from interconnect.ui.charts import chart, export_popover, prepared_figure
from interconnect.ui.talk import is_focus, talk_state

__all__ = ["AS_PLOTLY", "diagram"]

#: A session's flag that draws every diagram as a Plotly chart: set by the export (interconnect.ui.export), whose
#: files embed plotly.js and take each chart's figure from the page's Plotly elements.
AS_PLOTLY = "_interconnect_diagrams_as_plotly"

_HTML = '<div class="diagram-chart"><svg role="img"></svg><div class="diagram-legend"></div></div>'
_CSS = """
.diagram-chart { color: #111827; width: 100%; }  /* the page's own type, as Streamlit's theme gives its charts */
.diagram-chart svg { display: block; max-width: 100%; font-family: inherit; }
.diagram-legend { display: flex; flex-wrap: wrap; gap: 0.3em 1.2em; font-size: var(--diagram-legend-font, 14px);
                  margin: 0.1em 0 0.4em; }
.diagram-key { display: inline-flex; align-items: center; gap: 0.4em; }
"""


@st.cache_resource(show_spinner=False)
def _component():
    script = resources.files("interconnect.ui").joinpath("diagram.js").read_text(encoding="utf-8")
    # In the page's own DOM, like a Plotly chart (its styles are all under .diagram-chart): what measures or finds
    # a page's charts, a reader's tools included, finds it the same way.
    return st.components.v2.component("interconnect_diagram", html=_HTML, css=_CSS, js=script, isolate_styles=False)


def _scene(figure: Any) -> dict:
    """The scene of a prepared figure, computed once per figure (prepared figures are cached and never changed)."""
    scene = getattr(figure, "_diagram_scene", None)
    if scene is None:
        scene = figure._diagram_scene = diagram_scene(figure)
    return scene


def diagram(figure: Any, key: str, *, exports: bool = True) -> None:
    """Draw ``figure`` as an SVG diagram full width, with the same exports as :func:`~interconnect.ui.charts.chart`.

    The tour's own chart, an export's run (:data:`AS_PLOTLY`) and any figure outside what a scene holds are drawn
    with Plotly instead.
    """
    if is_focus(key) or st.session_state.get(AS_PLOTLY):
        chart(figure, key, exports=exports)
        return
    present = talk_state().present
    prepared = prepared_figure(figure, present=present)
    try:
        scene = _scene(prepared)
    except UnsupportedFigure:
        chart(figure, key, exports=exports)
        return
    component_guard.show_refused(key)  # a forged state the guard set aside (the diagram's fragment may run alone)
    _component()(key=key, data=scene)
    if exports and not present:
        export_popover(prepared, key)
