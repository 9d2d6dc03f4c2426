"""Sending a chart: a figure made readable (or projector-sized) once, drawn full width with its exports."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from interconnect.figures.export import figure_csv, figure_html
from interconnect.figures.theme import presentation_figure, readable_figure
from interconnect.inputs.params import safe_echo
from interconnect.ui.heavy import run_heavy
from interconnect.ui.talk import chart_container, focus_figure, is_focus, talk_state

__all__ = ["SentFigure", "built_figure", "chart", "export_popover", "prepared_figure"]


class SentFigure(go.Figure):
    """A figure ready to send, never changed again: its ``to_dict()`` is computed once and reused.

    ``st.plotly_chart`` turns a figure into a dict (a deep copy) on every rerun before encoding it;
    for a figure that a cache hands back unchanged, that copy is the same every time.
    """

    def to_dict(self) -> dict:
        cached = getattr(self, "_sent_dict", None)
        if cached is None:
            cached = self._sent_dict = super().to_dict()
        return cached


#: Prepared (readable or presentation) copies of the figures the pages draw, by the identity of the
#: source figure. Page figures come from caches, so the same object arrives on every rerun and its
#: copy is made once per process; the source is kept in the entry, so its id cannot be reused.
_PREPARED: OrderedDict[tuple[int, bool], tuple[Any, SentFigure]] = OrderedDict()
_PREPARED_LOCK = threading.Lock()
_PREPARED_MAX = 256


def prepared_figure(figure: Any, *, present: bool = False) -> SentFigure:
    """``figure`` with the projector's text sizes (presentation mode) or at least 14 px text, built once.

    >>> fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]), layout={"font": {"size": 10}})
    >>> first = prepared_figure(fig)
    >>> first is prepared_figure(fig), first.layout.font.size, fig.layout.font.size
    (True, 14, 10)
    >>> prepared_figure(fig, present=True).layout.font.size
    20
    """
    entry_key = (id(figure), present)
    with _PREPARED_LOCK:
        entry = _PREPARED.get(entry_key)
        if entry is not None and entry[0] is figure:
            _PREPARED.move_to_end(entry_key)
            return entry[1]
    ready = SentFigure(presentation_figure(figure) if present else readable_figure(go.Figure(figure)))
    with _PREPARED_LOCK:
        _PREPARED[entry_key] = (figure, ready)
        while len(_PREPARED) > _PREPARED_MAX:
            _PREPARED.popitem(last=False)
    return ready


def built_figure(what: str, build: Callable[..., Any], *args: Any) -> Any:
    """``build(*args)``; if it fails, None and one line saying the ``what`` chart is not drawn and why.

    Figure builders are meant never to raise on finite data; this is the page's last guard, so a
    number nobody foresaw (a pasted log's row) costs one chart, not the page or the session.
    """
    try:
        return build(*args)
    except Exception as exc:  # noqa: BLE001 - anything a builder raises; Streamlit's reruns are BaseExceptions
        st.warning(f"The {what} chart is not drawn: these numbers are outside what it can plot "
                   f"(`{safe_echo(f'{type(exc).__name__}: {exc}')}`). The rest of the page is unaffected.")
        return None


def chart(figure: Any, key: str, *, exports: bool = True) -> None:
    """Draw a Plotly figure full width (projector-sized in presentation mode), with offline exports.

    PNG comes from the chart's own toolbar; the pop-over under it offers the chart as one HTML file
    that works with no network (plotly.js embedded) and its points as CSV. Both files are built
    only when clicked.
    """
    present = talk_state().present
    figure = prepared_figure(figure, present=present)
    if is_focus(key):  # the tour step's own chart: under the caption, on the first screen
        chart_container(key).plotly_chart(focus_figure(figure), width="stretch", height="stretch", key=key)
        return
    st.plotly_chart(figure, width="stretch", key=key)
    if exports and not present:
        export_popover(figure, key)


def export_popover(figure: Any, key: str) -> None:
    """The pop-over under a chart: the figure as one offline HTML file and its points as CSV, built when clicked.

    Its two buttons are drawn only while it is open (opening it reruns the chart's fragment): a control change
    that redraws the chart sends one element for the pop-over, not three.
    """
    popover = st.popover("Export this chart", key=f"{key}.export", on_change="rerun")
    if not popover.open:
        return
    with popover:
        st.download_button("Offline HTML (opens without a network)", data=lambda: run_heavy(figure_html, figure),
                           file_name=f"{key}.html", mime="text/html", key=f"{key}.html", on_click="ignore")
        st.download_button("Data as CSV", data=lambda: figure_csv(figure), file_name=f"{key}.csv",
                           mime="text/csv", key=f"{key}.csv", on_click="ignore")
