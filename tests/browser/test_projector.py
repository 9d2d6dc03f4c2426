"""The projector budget, measured in a real browser at 1280x720 (the usual projector) on every page.

For each Plotly chart on each page, from the bounding boxes the browser gives its SVG text:

* every piece of chart text is at least 14 px tall as drawn (font size times any scaling Plotly
  applied, so a bar label shrunk to fit its bar counts at its shrunken size);
* no two labels overlap (ticks, bar values, point labels, annotations, legend, titles);
* the chart, with its title and legend, fits the window: no wider than the viewport, no taller than
  the part of it below Streamlit's header, and no text sticks out of the chart's own box;
* the title and the legend do not touch.

And on the Home page, the way into every other page is visible without scrolling at 1440x900 and at
1280x720.

One page load per page, not per case: a case whose link is the page's plain link or ``?view=<view>``
alone is measured on the page this module keeps open for that page (``kept_pages``) when there is
one, by choosing the view in the page's "More charts" picker (a script run) instead of opening the
link in a new session. The picker gives the page the same values as the link (the test checks that
the address bar, which holds all the page's values, changes in ``view`` alone), and the charts
measured are those the view draws (checked by key). A case is measured on a newly opened page when
no page is kept for it (run alone, or on another xdist worker) or when its link sets more than the
view; a failed case closes the kept page.
"""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import (
    CHART,
    assert_healthy,
    open_page,
    poll,
    query_of,
    settled_chart_count,
    wait_for_charts,
    wait_settled,
    widget,
)

from interconnect.inputs.links import HOME_VIEWS, VIEW_AUTO
from interconnect.site import page_views
from interconnect.topics.allreduce.inputs import ALLREDUCE_VIEWS
from interconnect.topics.cliff.inputs import CLIFF_VIEWS
from interconnect.topics.crossdc.inputs import CROSSDC_VIEWS
from interconnect.topics.fabric.inputs import FABRIC_VIEWS
from interconnect.topics.overlap.inputs import OVERLAP_VIEWS
from interconnect.topics.reach.inputs import REACH_VIEWS
from interconnect.ui.pages import PAGES, page_exists

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 1280, "height": 720}
LAPTOP = {"width": 1440, "height": 900}
#: Streamlit's header bar covers the top of the window: a chart must fit in what is left.
HEADER_PX = 60
MIN_TEXT_PX = 14.0
#: Two boxes closer than this (in both directions) count as touching; a pixel of anti-aliasing is not a clash.
OVERLAP_TOLERANCE_PX = 1.0

#: Collects, for every chart of the page, its box and every visible SVG text with its drawn size.
_COLLECT_CHARTS = """
(selector) => Array.from(document.querySelectorAll(selector)).map((chart, index) => {
  const plot = chart.querySelector('.js-plotly-plot') || chart;
  const box = plot.getBoundingClientRect();
  const texts = [];
  for (const el of plot.querySelectorAll('svg.main-svg text, .diagram-chart > svg text')) {
    const content = (el.textContent || '').trim();
    if (!content) continue;
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden' || parseFloat(style.opacity) === 0) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const m = el.getScreenCTM();
    const scale = m ? Math.sqrt(m.a * m.a + m.b * m.b) : 1;
    let kind = 'text';
    for (const [cls, name] of [['legendtext', 'legend'], ['gtitle', 'title'], ['diagram-title', 'title'],
                               ['xtick', 'tick'], ['ytick', 'tick'], ['annotation-text', 'annotation'],
                               ['bartext', 'bar'], ['textpoint', 'point'], ['xtitle', 'axis title'],
                               ['ytitle', 'axis title']]) {
      if (el.classList.contains(cls) || el.closest('.' + cls)) { kind = name; break; }
    }
    texts.push({text: content.slice(0, 60), kind, size: parseFloat(style.fontSize) * scale,
                left: r.left, top: r.top, right: r.right, bottom: r.bottom});
  }
  const legend = plot.querySelector('g.legend, .diagram-legend');
  const title = plot.querySelector('.gtitle, .diagram-title');
  const rect = (el) => { if (!el) return null; const r = el.getBoundingClientRect();
    return (r.width && r.height) ? {left: r.left, top: r.top, right: r.right, bottom: r.bottom} : null; };
  return {index, left: box.left, top: box.top, right: box.right, bottom: box.bottom,
          width: box.width, height: box.height, texts, legend: rect(legend), title: rect(title)};
})
"""


def page_path(name: str) -> str:
    return "/" if name == "home" else "/" + PAGES[name][0].split("/", 1)[1].removesuffix(".py").split("_", 1)[1]


def overlap(a: dict[str, float], b: dict[str, float], tolerance: float = OVERLAP_TOLERANCE_PX) -> bool:
    """Whether two boxes overlap by more than ``tolerance`` pixels in both directions.

    >>> overlap({"left": 0, "top": 0, "right": 10, "bottom": 10}, {"left": 9.5, "top": 0, "right": 20, "bottom": 10})
    False
    >>> overlap({"left": 0, "top": 0, "right": 10, "bottom": 10}, {"left": 5, "top": 5, "right": 20, "bottom": 20})
    True
    """
    return (min(a["right"], b["right"]) - max(a["left"], b["left"]) > tolerance
            and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > tolerance)


def budget_problems(chart: dict[str, Any], viewport: dict[str, int]) -> list[str]:
    """Everything about one chart that breaks the projector budget, in words (empty when it fits).

    >>> text = {"text": "9:1", "kind": "bar", "size": 15.0, "left": 10, "top": 10, "right": 30, "bottom": 28}
    >>> chart = {"index": 0, "left": 0, "top": 0, "right": 800, "bottom": 500, "width": 800, "height": 500,
    ...          "texts": [text, {**text, "text": "18:1", "left": 25, "right": 45}], "legend": None, "title": None}
    >>> budget_problems(chart, PROJECTOR)
    ["chart 0: bar text '9:1' overlaps bar text '18:1'"]
    """
    name = f"chart {chart['index']}"
    problems = []
    if chart["width"] > viewport["width"]:
        problems.append(f"{name}: {chart['width']:.0f} px wide, wider than the {viewport['width']} px window")
    if chart["height"] > viewport["height"] - HEADER_PX:
        problems.append(f"{name}: {chart['height']:.0f} px tall, taller than the window below the header "
                        f"({viewport['height'] - HEADER_PX} px)")
    texts = chart["texts"]
    for text in texts:
        if text["size"] < MIN_TEXT_PX - 0.05:
            problems.append(f"{name}: {text['kind']} text {text['text']!r} drawn at {text['size']:.1f} px")
        if (text["left"] < chart["left"] - 1 or text["right"] > chart["right"] + 1
                or text["top"] < chart["top"] - 1 or text["bottom"] > chart["bottom"] + 1):
            problems.append(f"{name}: {text['kind']} text {text['text']!r} sticks out of the chart")
    for i, first in enumerate(texts):
        for second in texts[i + 1:]:
            if overlap(first, second):
                problems.append(f"{name}: {first['kind']} text {first['text']!r} overlaps "
                                f"{second['kind']} text {second['text']!r}")
    if chart["legend"] and chart["title"] and overlap(chart["legend"], chart["title"], tolerance=0):
        problems.append(f"{name}: the title touches the legend")
    return problems


#: Charts each page draws by default (a page missing here is measured with whatever it draws).
CHARTS_AT_LEAST = {"home": 1, "catalog": 0}


def open_at(new_page: Any, server: Any, name: str, viewport: dict[str, int], query: str = "") -> Any:
    page = new_page(viewport["width"], viewport["height"])
    open_page(page, server, page_path(name) + query)
    assert_healthy(page, server)
    return page


PAGE_NAMES = [name for name in PAGES if page_exists(name)]
#: Pages whose charts do not meet the budget yet, with why; a page that starts to meet it fails here
#: (strict), so its entry is removed the day it is fixed.
KNOWN_OVER_BUDGET: dict[str, str] = {}
#: Links that change what a chart must hold: the widest labels (Blu-ray times, both directions, a
#: mesh GPU's extra bar, a rack of 72 GPUs, an asymmetric link's two rates).
EXTRA_LINKS = {
    "cliff-mi300x-bluray": ("cliff", "?gpu=mi300x&unit=bluray&dir=both&basis=achieved"),
    "cliff-gb200-bits": ("cliff", "?gpu=gb200&unit=Gbitps&dir=both"),
    "cliff-gaudi3": ("cliff", "?gpu=gaudi3&unit=Gbitps"),
}
#: Every further chart a page draws only when asked for (``view=``), one case each.
EXTRA_LINKS.update({f"{page}-{view}": (page, f"?view={view}") for page, views in
                    (("home", HOME_VIEWS), ("cliff", CLIFF_VIEWS), ("allreduce", ALLREDUCE_VIEWS),
                     ("overlap", OVERLAP_VIEWS), ("reach", REACH_VIEWS), ("crossdc", CROSSDC_VIEWS),
                     ("fabric", FABRIC_VIEWS))
                    for view in views.labels})
CASES = [pytest.param(name, "", id=name, marks=[pytest.mark.xfail(reason=KNOWN_OVER_BUDGET[name], strict=True)]
                      if name in KNOWN_OVER_BUDGET else []) for name in PAGE_NAMES]
CASES += [pytest.param(name, query, id=case) for case, (name, query) in EXTRA_LINKS.items() if page_exists(name)]
#: Each page's cases side by side (plain link first), so that a worker measures a page's views on one page load.
CASES.sort(key=lambda case: PAGE_NAMES.index(case.values[0]))


def view_of(query: str) -> str | None:
    """The view a link sets when it sets nothing else (``auto`` for the plain link ``""``), else None
    (``?gpu=gaudi3&view=bars`` sets more than the view)."""
    values = query_of("http://host/" + query)
    if not values:
        return VIEW_AUTO
    return values["view"] if list(values) == ["view"] else None


def choose_view(page: Any, server: Any, name: str, view: str) -> None:
    """Choose ``view`` in the page's "More charts" picker and wait for the run it starts to finish.

    The page writes all its values into the address bar; after the choice it must read as before with
    only ``view`` changed (left out for ``auto``): the values the link of the case gives the page.
    """
    expected = {key: value for key, value in query_of(page.url).items() if key != "view"}
    if view != VIEW_AUTO:
        expected["view"] = view
    if query_of(page.url) == expected:
        return
    label = "Auto" if view == VIEW_AUTO else page_views()[name].labels[view]
    widget(page, f"{name}.view").get_by_text(label, exact=True).click()
    assert poll(page, lambda: query_of(page.url) == expected), f"choosing {label!r} left the link at {page.url}"
    wait_settled(page)
    assert_healthy(page, server)


def wrong_view_charts(page: Any, name: str, view: str) -> list[str]:
    """What differs from ``view``'s charts drawn once each and no other view's chart drawn at all."""
    wrong = []
    for other, keys in page_views()[name].charts.items():
        for key in keys:
            drawn = page.locator(f".st-key-{key} .js-plotly-plot").count()
            if drawn != (other == view):
                wrong.append(f"chart {key} drawn {drawn} times")
    return wrong


@pytest.mark.parametrize(("name", "query"), CASES)
def test_every_chart_fits_the_projector_budget(new_page, kept_pages, streamlit_server, name, query):
    view = view_of(query) if name in page_views() else None
    page = kept_pages.get(name) if view else None
    kept = page is not None
    try:
        if kept:
            choose_view(page, streamlit_server, name, view)
        else:
            page = open_at(new_page, streamlit_server, name, PROJECTOR, query)
            if view:
                kept_pages.keep(name, page)
        if view and view != VIEW_AUTO:  # the charts measured are the view's, not another view's left over
            wrong: list[str] = []

            def only_the_views_charts() -> bool:
                wrong[:] = wrong_view_charts(page, name, view)
                return not wrong

            assert poll(page, only_the_views_charts), f"{page_path(name)}{query}: " + "; ".join(wrong)
        # On a kept page the other charts were drawn before the choice and the view's chart is there now; a page
        # just opened may still be mounting its elements after the script went idle.
        charts = page.locator(CHART).count() if kept and view != VIEW_AUTO else settled_chart_count(page)
        least = 1 if "view=" in query else CHARTS_AT_LEAST.get(name, 0)
        assert charts >= least, f"only {charts} charts drawn on {page_path(name)}{query}"
        if charts:
            wait_for_charts(page, minimum=charts)
            page.wait_for_timeout(600)  # Plotly's second layout pass (automargins) after the first draw
        measured = page.evaluate(_COLLECT_CHARTS, CHART)
        assert len(measured) == charts
        problems = [problem for chart in measured for problem in budget_problems(chart, PROJECTOR)]
        assert not problems, f"{page_path(name)}{query} at 1280x720:\n" + "\n".join(problems)
        assert all(chart["texts"] for chart in measured), "a chart with no text at all was measured"
    except BaseException:
        kept_pages.drop(name)
        raise


@pytest.mark.parametrize("viewport", [LAPTOP, PROJECTOR], ids=["1440x900", "1280x720"])
def test_home_entry_points_are_above_the_fold(new_page, streamlit_server, viewport):
    page = open_at(new_page, streamlit_server, "home", viewport)
    main = page.get_by_test_id("stMain")
    for name in PAGE_NAMES:
        if name == "home":
            continue
        link = main.get_by_test_id("stPageLink-NavLink").filter(has_text=PAGES[name][1]).first
        link.wait_for(state="visible")
        box = link.bounding_box()
        assert box is not None, name
        assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], (
            f"the link to {name} is below the fold at {viewport['width']}x{viewport['height']}: {box}")
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], box
        # Big enough to find at a glance: the card's text is at least the body size.
        size = link.evaluate("el => parseFloat(getComputedStyle(el.querySelector('p') || el).fontSize)")
        assert size >= 16, f"the link to {name} is set in {size} px type"
