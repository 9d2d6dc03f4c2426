"""The one secondary chart a page draws under its main chart, chosen in the link (``view=``) or a picker.

Every Plotly chart on a page delays the page's first chart in a new browser session (about 230 ms
each, even hidden in a tab or an expander, README: performance), and every chart a control change
redraws costs 100-140 ms. So a page with several charts draws its main chart and only the further
chart asked for, and draws nothing for the others (not even hidden).

``auto`` (the default, left out of links) shows a secondary chart only when the page's values set
something that only that chart shows (see :func:`interconnect.ui.pagespecs.resolve_view`). A tour
step whose chart is a secondary one shows that chart too, so old tour links keep their chart.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from interconnect.inputs.links import VIEW_AUTO, VIEW_KEY, VIEW_NONE, PageViews, resolve_view
from interconnect.ui.state import PageState
from interconnect.ui.talk import talk_state, tour_steps

__all__ = ["shown_views", "view_picker"]


def _tour_view(page: str, views: PageViews) -> str | None:
    """The secondary view holding the chart of the tour step this link is on, if it is on this page."""
    step_number = talk_state().tour_step
    if not step_number:
        return None
    step = tour_steps()[step_number - 1]
    return views.view_for_chart(step.chart) if step.page == page and step.chart else None


def view_picker(state: PageState, views: PageViews, *, container: Any = None) -> None:
    """The "More charts" picker (its value is the page's ``view``); draw it where the page's charts follow."""
    labels = {VIEW_AUTO: "Auto", **views.labels, VIEW_NONE: "None"}
    (container if container is not None else st).radio(
        "More charts", list(labels), key=state.key(VIEW_KEY), horizontal=True, format_func=labels.get,
        help="One further chart under the main one (each chart drawn costs time in the browser). Auto: none, "
             "unless a setting is off its default that only one of them shows; then that one. The choice is in "
             "the link (`view`).")


def shown_views(state: PageState, views: PageViews, *, wanted: str | None = None) -> frozenset[str]:
    """The secondary charts this run draws: the picker's view (``auto`` resolved), and a tour step's chart.

    ``wanted``: a view the page needs for a reason the link does not hold (a pasted log on All-reduce);
    used only while the picker is on ``auto``.
    """
    shown = {resolve_view(state[VIEW_KEY], views, state.specs, state.values(), wanted=wanted)}
    tour = _tour_view(state.page, views)
    if tour:
        shown.add(tour)
    shown.discard(VIEW_NONE)
    return frozenset(shown)
