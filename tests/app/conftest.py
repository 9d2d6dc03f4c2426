"""AppTest helpers: run a page inside the multipage app, with query parameters seeded."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def run_page(page: str | None = None, query: dict[str, str] | None = None) -> AppTest:
    """Run ``page`` (e.g. ``pages/1_Bandwidth_cliff.py``; None for the home page) like a deep link."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    if page:
        at.switch_page(page)
    at.run()
    return at


@pytest.fixture
def page_runner():
    return run_page


def chart_specs(at: AppTest) -> list[dict]:
    import json

    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def live_charts(at: AppTest) -> list:
    """The page's live charts (the inline component of ``interconnect.ui.live``)."""
    return [c for c in at.get("bidi_component") if c.proto.component_name.endswith("live_chart")]


def diagrams(at: AppTest) -> list:
    """The page's diagrams (the inline component of ``interconnect.ui.diagram``), each with its scene as ``json``."""
    return [c for c in at.get("bidi_component") if c.proto.component_name.endswith("diagram")]


def diagram_scenes(at: AppTest) -> list[dict]:
    """The scenes the page's diagrams draw (:func:`interconnect.figures.diagram.diagram_scene`)."""
    import json

    return [json.loads(c.proto.json) for c in diagrams(at)]


def chart_keys(at: AppTest) -> list[str]:
    """The keys of the charts with exports: the diagrams (each page's main picture, drawn first), then Plotly's."""
    return [str(c.key) for c in diagrams(at)] + [str(c.key) for c in at.get("plotly_chart")]
