"""Render a view of the app without a server: run its page script headless and collect its charts.

The page scripts are the one place that decides what a view shows, so the export runs them (with
Streamlit's own test harness, no browser, no network) instead of keeping a second copy of every
page's logic. Used by ``interconnect export``.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import plotly.graph_objects as go
from streamlit.testing.v1 import AppTest

from interconnect.ui.diagram import AS_PLOTLY
from interconnect.units import InterconnectError

__all__ = ["ViewError", "render_charts", "render_view"]

ROOT = Path(__file__).resolve().parents[2]


class ViewError(InterconnectError, RuntimeError):
    """A page raised while rendering a view for export."""


def render_view(script: str | None, params: dict[str, str], *, timeout_s: float = 120) -> list[go.Figure]:
    """The Plotly figures a page draws for ``params`` (its link parameters), in page order.

    ``script`` is the page file relative to the repository (``"pages/2_All_reduce.py"``) or None
    for the home page.
    """
    return [figure for _, figure in render_charts(script, params, timeout_s=timeout_s)]


def render_charts(script: str | None, params: dict[str, str], *,
                  timeout_s: float = 120) -> list[tuple[str, go.Figure]]:
    """Like :func:`render_view`, with each chart's key (``"cliff-chart"``) beside its figure."""
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").setLevel(logging.ERROR)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout_s)
    for key, value in params.items():
        at.query_params[key] = value
    at.session_state[AS_PLOTLY] = True  # the seating grid and the fabric's picture as Plotly figures, like every chart
    if script:
        at.switch_page(script)
    at.run()
    if at.exception:
        raise ViewError(f"{script or 'home'}: {at.exception[0].value}")
    return [(str(element.key or ""), go.Figure(json.loads(element.proto.spec))) for element in at.get("plotly_chart")]
