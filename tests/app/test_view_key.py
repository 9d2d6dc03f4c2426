"""The ``view`` link key: each page with several charts draws its main chart and the one further chart asked for.

Every further Plotly chart on a page delays the page's first chart in a new browser session (README,
performance), so a chart that is not asked for is not drawn at all, not even hidden. ``view`` is read
from the link and written back to it (``auto``, the default, never is, so links made before the key
keep their form), a bad value is named in the page's warning, and a tour step still shows its chart.
"""

import re

import pytest

from interconnect.inputs.links import HOME_VIEWS, VIEW_KEY
from interconnect.site import page_views
from interconnect.topics.allreduce.inputs import ALLREDUCE_VIEWS
from interconnect.topics.cliff.inputs import CLIFF_VIEWS
from interconnect.topics.crossdc.inputs import CROSSDC_VIEWS
from interconnect.topics.fabric.inputs import FABRIC_VIEWS
from interconnect.topics.overlap.inputs import OVERLAP_VIEWS
from interconnect.topics.reach.inputs import REACH_VIEWS
from interconnect.topics.seating.inputs import SEATING_VIEWS
from interconnect.ui.talk import tour_steps
from tests.app.conftest import chart_keys, live_charts, run_page

#: (page script, widget prefix, its views, the main chart: a live chart or a Plotly chart's key)
PAGES = [
    (None, "home", HOME_VIEWS, "layers-chart"),
    ("pages/1_Bandwidth_cliff.py", "cliff", CLIFF_VIEWS, "live"),
    ("pages/2_All_reduce.py", "allreduce", ALLREDUCE_VIEWS, "live"),
    ("pages/3_Overlap.py", "overlap", OVERLAP_VIEWS, "live"),
    ("pages/4_Seating_chart.py", "seating", SEATING_VIEWS, "seating-grid"),
    ("pages/5_Reach.py", "reach", REACH_VIEWS, "live"),
    ("pages/6_Across_sites.py", "crossdc", CROSSDC_VIEWS, "live"),
    ("pages/10_Fabric.py", "fabric", FABRIC_VIEWS, "fabric-picture"),
]
assert {page[1] for page in PAGES} == set(page_views()), "every page that reads view= is checked here"
HOSTILE = ["<script>alert(1)</script>", "tim\u0435\u202e", "x" * 10_000]


def further_charts(at, main: str) -> list[str]:
    """The Plotly charts drawn besides the main chart, after checking the main chart is there."""
    keys = chart_keys(at)
    if main == "live":
        assert len(live_charts(at)) == 1
        return keys
    assert keys[:1] == [main]
    return keys[1:]


@pytest.mark.parametrize(("script", "prefix", "views", "main"), PAGES, ids=[page[1] for page in PAGES])
def test_each_view_draws_its_chart_alone_and_round_trips(script, prefix, views, main):
    at = run_page(script)
    assert not at.exception and not at.warning
    assert further_charts(at, main) == [] and VIEW_KEY not in at.query_params
    assert at.radio(key=f"{prefix}.view").value == "auto"
    for view, charts in views.charts.items():
        opened = run_page(script, {VIEW_KEY: view})  # the link sets it ...
        assert not opened.exception and not opened.warning
        assert further_charts(opened, main) == list(charts), view
        assert opened.query_params[VIEW_KEY] == view and opened.radio(key=f"{prefix}.view").value == view
    at.radio(key=f"{prefix}.view").set_value(view).run()  # ... and the picker writes it to the link
    assert at.query_params[VIEW_KEY] == view and further_charts(at, main) == list(charts)
    at.radio(key=f"{prefix}.view").set_value("none").run()
    assert at.query_params[VIEW_KEY] == "none" and further_charts(at, main) == []


@pytest.mark.parametrize(("number", "page"), list(enumerate(PAGES)), ids=[page[1] for page in PAGES])
def test_a_hostile_view_is_named_in_the_warning_and_the_page_draws(number, page):
    script, _, _, main = page
    raw = HOSTILE[number % len(HOSTILE)]
    at = run_page(script, {VIEW_KEY: raw})
    assert not at.exception
    assert len(at.warning) == 1
    message = at.warning[0].value
    assert message.startswith("More charts (link parameter `view`): ") and "using `auto`" in message
    assert "(got `" in message and "<" not in re.sub(r"`[^`]*`", "", message)  # user text only inside code
    assert further_charts(at, main) == [] and VIEW_KEY not in at.query_params


@pytest.mark.parametrize("raw", HOSTILE)
def test_hostile_views_on_all_reduce(raw):
    at = run_page("pages/2_All_reduce.py", {VIEW_KEY: raw, "nodes": "2"})
    assert not at.exception and len(at.warning) == 1
    assert "link parameter `view`" in at.warning[0].value and "using `auto`" in at.warning[0].value
    if len(raw) > 200:
        assert "10,000 characters is too long" in at.warning[0].value
    assert at.query_params["nodes"] == "2" and VIEW_KEY not in at.query_params


def test_auto_shows_the_chart_a_link_setting_needs():
    # A published measurement is drawn only on the time chart: a link with one opens that chart.
    at = run_page("pages/2_All_reduce.py", {"overlay": "h100-ib-sharp-96rank"})
    assert [str(chart.key) for chart in at.get("plotly_chart")] == ["allreduce-time"]
    assert VIEW_KEY not in at.query_params  # still auto: the link is the one that was opened
    # The direction and unit show only on the cliff's bars.
    at = run_page("pages/1_Bandwidth_cliff.py", {"dir": "both", "unit": "bluray"})
    assert [str(chart.key) for chart in at.get("plotly_chart")] == ["cliff-chart"]
    # An explicit choice wins over auto.
    at = run_page("pages/1_Bandwidth_cliff.py", {"dir": "both", "view": "none"})
    assert len(at.get("plotly_chart")) == 0


# Steps about a chart. The post-training stop carries view= only so that walking on from the Across-sites step
# (whose chart stays open on the same page) and opening the stop on its own show the same charts; it is about
# the weight-sync section, which has no chart.
@pytest.mark.parametrize("number", [n for n, step in enumerate(tour_steps(), start=1)
                                    if dict(step.params).get(VIEW_KEY) and step.chart])
def test_an_old_tour_link_without_view_still_shows_the_steps_chart(number):
    step = tour_steps()[number - 1]
    params = {key: value for key, value in dict(step.params).items() if key != VIEW_KEY}
    script = {"cliff": "pages/1_Bandwidth_cliff.py", "allreduce": "pages/2_All_reduce.py",
              "overlap": "pages/3_Overlap.py", "reach": "pages/5_Reach.py",
              "crossdc": "pages/6_Across_sites.py"}[step.page]
    at = run_page(script, {**params, "tour": "1", "stop": str(number), "present": "1"})
    assert not at.exception and not at.warning
    assert step.chart in [str(chart.key) for chart in at.get("plotly_chart")]
