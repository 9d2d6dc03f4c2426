"""Charts as files that work without a server or a network: self-contained HTML and CSV.

The HTML embeds plotly.js itself (no CDN), so a talk can run from a laptop with no connection; the
CSV holds each trace's points, so a reader can check or re-plot the numbers.
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

__all__ = ["ExportedView", "figure_csv", "figure_html", "index_html"]


def figure_html(figure: go.Figure, *, title: str = "", caption: str = "") -> str:
    """A complete HTML page holding ``figure`` with plotly.js embedded (renders offline).

    >>> text = figure_html(go.Figure(go.Bar(x=["a"], y=[1])), title="T")
    >>> "<script" in text and 'src="https://cdn' not in text and len(text) > 1_000_000
    True
    """
    body = figure.to_html(include_plotlyjs=True, full_html=False, config={"displaylogo": False})
    heading = f"<h1>{html.escape(title)}</h1>" if title else ""
    note = f"<p>{html.escape(caption)}</p>" if caption else ""
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title or 'chart')}</title>"
            f"<style>body{{font-family:Helvetica,Arial,sans-serif;margin:2rem;max-width:1400px}}</style></head>"
            f"<body>{heading}{note}{body}</body></html>")


def figure_csv(figure: go.Figure) -> str:
    """Every trace's points as CSV rows: trace, x, y (and text where the trace has it).

    >>> print(figure_csv(go.Figure(go.Scatter(name="ring", x=[1, 2], y=[3.5, 4]))).strip())
    trace,x,y,text
    ring,1,3.5,
    ring,2,4,
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["trace", "x", "y", "text"])
    for index, trace in enumerate(figure.data):
        name = trace.name or f"trace {index + 1}"
        xs = list(trace.x) if getattr(trace, "x", None) is not None else []
        ys = list(trace.y) if getattr(trace, "y", None) is not None else []
        texts = getattr(trace, "text", None)
        texts = list(texts) if isinstance(texts, list | tuple) else [texts] * max(len(xs), len(ys))
        for row in range(max(len(xs), len(ys))):
            writer.writerow([name, xs[row] if row < len(xs) else "", ys[row] if row < len(ys) else "",
                             texts[row] if row < len(texts) and texts[row] is not None else ""])
    return out.getvalue()


@dataclass(frozen=True)
class ExportedView:
    """One exported view: its title, caption, the original link and the chart files written for it."""

    title: str
    caption: str
    link: str
    files: tuple[str, ...]


def index_html(views: Sequence[ExportedView], *, title: str = "Interconnect Explorer, offline") -> str:
    """An index page linking every exported chart, with each view's caption (all text escaped)."""
    items = []
    for number, view in enumerate(views, start=1):
        links = " · ".join(f"<a href='{html.escape(name)}'>chart {i + 1}</a>" for i, name in enumerate(view.files))
        items.append(f"<li><h2>{number}. {html.escape(view.title)}</h2><p>{html.escape(view.caption)}</p>"
                     f"<p>{links or 'no charts on this view'}</p>"
                     f"<p><small>Live view: <code>{html.escape(view.link)}</code></small></p></li>")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            "<style>body{font-family:Helvetica,Arial,sans-serif;margin:2rem;max-width:1000px}li{margin:1.5rem 0}"
            "</style></head>"
            f"<body><h1>{html.escape(title)}</h1><ol>{''.join(items)}</ol></body></html>")
