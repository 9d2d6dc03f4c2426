"""The live chart component: a slider whose chart redraws in the browser while the hand moves.

One Streamlit component (``st.components.v2``, inline, no build step) draws a family of curves
prepared by :mod:`interconnect.figures.live`. Its JavaScript (``live_chart.js`` beside this module)
picks among the server's numbers while the slider moves; when the movement ends it sends the chosen
value back, and :func:`live_chart` hands it to the page's ``on_value`` callback, which sets the
page's own widget and so the link. The slider is an ``<input type="range">``: arrow keys, a
presenter's clicker and screen readers work with it.

Nothing a visitor typed reaches the component's HTML: the markup below is a constant, and the
script writes every text from the server with ``textContent``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any

import streamlit as st

from interconnect.inputs.params import FloatParam, IntParam, ParamWarning, read_component_value
from interconnect.ui import component_guard

__all__ = ["live_chart"]

_HTML = (
    '<div class="live-chart">'
    '<div class="live-control"><label><span class="live-label"></span> '
    '<input type="range"></label> <strong class="live-value"></strong></div>'
    '<div class="live-readout" aria-live="polite"></div>'
    '<svg role="img" preserveAspectRatio="xMidYMid meet"></svg>'
    '<div class="live-legend"></div>'
    "</div>"
)
_CSS = """
.live-chart { font-family: "Source Sans Pro", Inter, Helvetica, Arial, sans-serif; font-size: var(--live-font, 15px);
              color: #111827; }
.live-control { display: flex; align-items: center; gap: 0.6em; flex-wrap: wrap; }
.live-chart:not(.live-ready) .live-control { visibility: hidden; }
/* The slider takes the room its column has, no more: at 800 px with the sidebar open it stays on screen. */
.live-control label { display: flex; align-items: center; gap: 0.6em; flex: 0 1 36em; min-width: 0; flex-wrap: wrap; }
.live-control input[type=range] { flex: 1 1 12em; min-width: 6em; max-width: 420px; accent-color: #1565c0; }
.live-readout { min-height: 1.4em; margin: 0.2em 0 0.3em; color: #374151; }
.live-chart svg { width: 100%; height: auto; display: block; aspect-ratio: 1000 / 340; }
.live-grid line { stroke: #e5e7eb; stroke-width: 1; }
.live-grid text, .live-title { fill: #374151; }
.live-legend { display: flex; flex-wrap: wrap; gap: 0.3em 1.2em; margin-top: 0.2em; min-height: 1.5em; }
.live-key { display: inline-flex; align-items: center; gap: 0.4em; }
.live-key i { display: inline-block; width: 1.8em; height: 0; }
"""


@st.cache_resource(show_spinner=False)
def _component():
    script = resources.files("interconnect.ui").joinpath("live_chart.js").read_text(encoding="utf-8")
    return st.components.v2.component("interconnect_live_chart", html=_HTML, css=_CSS, js=script)


#: Session-state prefix of the warning a refused value left for its chart's next run.
_REFUSED = "_live.refused."


def refused_message(key: str, warning: ParamWarning) -> str:
    """One line on a value a live chart's state carried that the page could not use.

    >>> from interconnect.inputs.params import IntParam, read_component_value
    >>> refused_message("cliff.live_nics", read_component_value(IntParam("nics", 8, "NICs per server"), "8")[1])
    "NICs per server (the live chart `cliff.live_nics`): not a number (text) (got `8`); the page's value is kept."
    """
    name = f"{warning.label or warning.key} (the live chart `{key}`)"
    used = f"using `{warning.used}`" if warning.used else "the page's value is kept"
    return f"{name}: {warning.reason} (got `{warning.received}`); {used}."


def live_chart(key: str, spec: dict, on_value: Callable[[Any], None], reader: IntParam | FloatParam) -> None:
    """Mount a live chart; ``on_value`` gets the slider's value, read by ``reader``, when a movement ends.

    The value comes from the browser, so it is read like a link's value
    (:func:`~interconnect.inputs.params.read_component_value`): a number out of ``reader``'s range is
    clamped, anything else (NaN, infinity, text, a huge integer) is not used, and either way the next
    run shows a warning naming the control. The callback runs before the next script run (as a widget's
    ``on_change`` does), so it may set the page's widgets in ``st.session_state``.
    """

    def changed() -> None:
        state = st.session_state.get(key)
        raw = state.get("value") if isinstance(state, Mapping) else state
        value, warning = read_component_value(reader, raw)
        if warning is not None:
            st.session_state[_REFUSED + key] = refused_message(key, warning)
        if value is not None:
            on_value(value)

    refused = st.session_state.pop(_REFUSED + key, None)
    if refused:
        st.warning(refused)
    component_guard.show_refused(key)  # a state that was not even JSON (the chart's fragment may run alone)
    _component()(key=key, data=spec, default={"value": spec["slider"]["values"][spec["slider"]["index"]]},
                 on_value_change=changed)
