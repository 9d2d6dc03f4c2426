"""Charts as files that work without a server or a network: HTML, CSV, an index and a one-file deck.

A single chart's HTML embeds plotly.js itself (no CDN), so it opens anywhere with no connection. An
exported folder instead holds one copy of plotly.js beside its chart files (``plotly_src``), and
:func:`deck_html` writes every step of a talk into one self-contained file (captions, charts, arrow
keys, a step counter) that uses that copy when it sits beside it and otherwise unpacks its own,
gzip-compressed copy (a third of the size), so the whole folder holds plotly.js once plus a packed copy.
The CSV holds each trace's points, so a reader can check or re-plot the numbers.
Captions are our own Markdown; :func:`markdown_html` renders its inline marks (escaping everything).
"""

from __future__ import annotations

import base64
import csv
import gzip
import html
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import plotly.graph_objects as go
from plotly.utils import PlotlyJSONEncoder

__all__ = ["DeckStep", "ExportedView", "deck_html", "figure_csv", "figure_html", "index_html", "markdown_html",
           "pack_script", "plotly_js_path"]

#: The file name of the one copy of plotly.js in an exported folder.
PLOTLY_JS_NAME = "plotly.min.js"


def plotly_js_path() -> Path:
    """The minified plotly.js that ships inside the ``plotly`` package (no network needed)."""
    import plotly

    return Path(plotly.__file__).resolve().parent / "package_data" / PLOTLY_JS_NAME


def _pairs(text: str, mark: str, tag: str, inside, outside) -> str:
    """``text`` split at ``mark``: every closed pair becomes ``<tag>`` around ``inside(part)``, the rest
    ``outside(part)``; a last mark without a partner, and an empty pair, stay literal."""
    parts = text.split(mark)
    if len(parts) % 2 == 0:  # an odd number of marks: the last one has no partner
        parts[-2:] = [parts[-2] + mark + parts[-1]]
    return "".join((f"<{tag}>{inside(part)}</{tag}>" if part else mark * 2) if index % 2 else outside(part)
                   for index, part in enumerate(parts))


def markdown_html(text: str) -> str:
    """Our captions' inline Markdown as HTML: `code`, **bold**, *italic*; everything else escaped.

    Linear in the length of the text (splits only, no backtracking); no links, no raw HTML.

    >>> markdown_html("*Interconnect* is **9 to 1** <b>`x*y`</b>")
    '<em>Interconnect</em> is <strong>9 to 1</strong> &lt;b&gt;<code>x*y</code>&lt;/b&gt;'
    >>> markdown_html("5 * 3 = 15")
    '5 * 3 = 15'
    """
    def emphasis(part: str) -> str:
        return _pairs(part, "*", "em", html.escape, html.escape)

    def strong(part: str) -> str:
        return _pairs(part, "**", "strong", emphasis, emphasis)

    return _pairs(text, "`", "code", html.escape, strong)


def figure_html(figure: go.Figure, *, title: str = "", caption: str = "", plotly_src: str | None = None) -> str:
    """A complete HTML page holding ``figure``; plotly.js embedded, or loaded from ``plotly_src`` (a file
    beside the page, as in an exported folder). Renders offline either way.

    >>> text = figure_html(go.Figure(go.Bar(x=["a"], y=[1])), title="T")
    >>> "<script" in text and 'src="https://cdn' not in text and len(text) > 1_000_000
    True
    >>> small = figure_html(go.Figure(go.Bar(x=["a"], y=[1])), caption="**9 to 1**", plotly_src="plotly.min.js")
    >>> len(small) < 20_000, 'src="plotly.min.js"' in small, "<strong>9 to 1</strong>" in small
    (True, True, True)
    """
    body = figure.to_html(include_plotlyjs=plotly_src or True, full_html=False, config={"displaylogo": False})
    heading = f"<h1>{html.escape(title)}</h1>" if title else ""
    note = f"<p>{markdown_html(caption)}</p>" if caption else ""
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
    """One exported view: its title, caption (Markdown), the original link and the chart files written for it."""

    title: str
    caption: str
    link: str
    files: tuple[str, ...]
    pictures: tuple[str, ...] = ()


_PAGE_STYLE = ("body{font-family:Helvetica,Arial,sans-serif;margin:2rem;max-width:1000px;line-height:1.45}"
               "li{margin:1.5rem 0}h2{margin:0 0 .4rem}code{background:#f3f4f6;padding:0 .2rem}")


def index_html(views: Sequence[ExportedView], *, title: str = "Interconnect Explorer, offline",
               deck: str | None = None) -> str:
    """An index page linking every exported chart, with each view's caption rendered (our Markdown,
    every character escaped first). The list numbers the views; titles carry no numbers of their own.

    >>> page = index_html([ExportedView("One word", "*Interconnect*: **9 to 1**", "/", ("a.html",))])
    >>> "<em>Interconnect</em>: <strong>9 to 1</strong>" in page, "1. " in page
    (True, False)
    """
    items = []
    for view in views:
        links = " · ".join(f"<a href='{html.escape(name)}'>chart {i + 1}</a>" for i, name in enumerate(view.files))
        pictures = " · ".join(f"<a href='{html.escape(name)}'>PNG {i + 1}</a>" for i, name in enumerate(view.pictures))
        caption = f"<p>{markdown_html(view.caption)}</p>" if view.caption else ""
        items.append(f"<li><h2>{html.escape(view.title)}</h2>{caption}"
                     f"<p>{links or 'no charts on this view'}{' · ' + pictures if pictures else ''}</p>"
                     f"<p><small>Live view: <code>{html.escape(view.link)}</code></small></p></li>")
    deck_line = (f"<p>The whole talk in one file, arrow keys to move: <a href='{html.escape(deck)}'>"
                 f"{html.escape(deck)}</a></p>") if deck else ""
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{_PAGE_STYLE}</style></head>"
            f"<body><h1>{html.escape(title)}</h1>{deck_line}<ol>{''.join(items)}</ol></body></html>")


@dataclass(frozen=True)
class DeckStep:
    """One slide of a deck: a title, a caption (our Markdown), the live link, and its charts in order."""

    title: str
    caption: str
    link: str
    figures: tuple[go.Figure, ...]


def _script_json(value: object) -> str:
    """JSON safe inside a ``<script>`` element (no ``</script>`` can end it early)."""
    return json.dumps(value, cls=PlotlyJSONEncoder).replace("<", "\\u003c")  # "<" occurs only inside strings


_DECK_STYLE = """
html,body{margin:0;height:100%;font-family:Helvetica,Arial,sans-serif;color:#111827;background:#fff}
.slide{display:none;box-sizing:border-box;height:calc(100vh - 3rem);overflow-y:auto;padding:1.2rem 2.5rem 1rem}
.slide.on{display:block}
.slide h1{font-size:2.1rem;margin:0 0 .5rem}
.slide .caption{font-size:1.35rem;line-height:1.45;margin:0 0 .8rem;max-width:75rem}
.slide .chart{width:100%;margin-bottom:1rem}
.slide .link{color:#6b7280;font-size:.95rem}
code{background:#f3f4f6;padding:0 .2rem}
#bar{position:fixed;bottom:0;left:0;right:0;height:3rem;box-sizing:border-box;display:flex;gap:1rem;
     align-items:center;justify-content:flex-end;padding:0 1.2rem;background:#fff;border-top:1px solid #e5e7eb;
     font-size:1.1rem}
#bar button{font-size:1.1rem;padding:.2rem .9rem}
#note{margin-right:auto;color:#b91c1c}
"""

_DECK_SCRIPT = """
const slides = [...document.querySelectorAll('.slide')];
const figures = JSON.parse(document.getElementById('deck-figures').textContent);
let current = 0;
// The slide's first chart fits the screen under the title and caption (down to 320 px tall, its legend with
// it); the others keep their own height below it.
function fitted(slide, div, layout, first) {
  if (!first) return layout;
  const room = slide.getBoundingClientRect().bottom - div.getBoundingClientRect().top - 16;
  return {...layout, height: Math.round(Math.max(320, Math.min(layout.height || 450, room)))};
}
function draw(index) {
  if (!window.Plotly) return;  // drawn once plotly.js is ready
  slides[index].querySelectorAll('.chart').forEach((div, k) => {
    if (div.dataset.drawn) { Plotly.Plots.resize(div); return; }
    const figure = figures[div.dataset.figure];
    Plotly.newPlot(div, figure.data, fitted(slides[index], div, figure.layout, k === 0),
                   {displaylogo: false, responsive: true});
    div.dataset.drawn = '1';
  });
}
function show(index) {
  current = Math.max(0, Math.min(slides.length - 1, index));
  slides.forEach((slide, i) => slide.classList.toggle('on', i === current));
  document.getElementById('counter').textContent = `Step ${current + 1} of ${slides.length}`;
  if (location.hash !== `#${current + 1}`) history.replaceState(null, '', `#${current + 1}`);
  draw(current);
}
// plotly.js: the folder's copy if the deck sits beside it (loaded above), else the deck's own packed copy,
// unpacked by the browser (DecompressionStream: Chrome and Edge 80, Firefox 113, Safari 16.4 and later).
function unpackPlotly() {
  if (window.Plotly) return Promise.resolve();
  if (!window.DecompressionStream) return Promise.reject(new Error('no DecompressionStream'));
  const text = atob(document.getElementById('plotly-packed').textContent.trim());
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Response(stream).text().then((code) => {
    const script = document.createElement('script');
    script.textContent = code;
    document.head.appendChild(script);
  });
}
document.addEventListener('keydown', (event) => {
  const forward = ['ArrowRight', 'PageDown', ' '].includes(event.key);
  const back = ['ArrowLeft', 'PageUp'].includes(event.key);
  if (forward || back) { event.preventDefault(); show(current + (forward ? 1 : -1)); }
  else if (event.key === 'Home') show(0);
  else if (event.key === 'End') show(slides.length - 1);
});
document.getElementById('prev').onclick = () => show(current - 1);
document.getElementById('next').onclick = () => show(current + 1);
show((parseInt(location.hash.slice(1), 10) || 1) - 1);
unpackPlotly().then(() => draw(current)).catch(() => {
  document.getElementById('note').textContent = 'This browser cannot unpack the charts: open deck.html '
    + 'beside plotly.min.js (its export folder), or in a browser from 2023 or later.';
});
"""


def deck_html(steps: Sequence[DeckStep], *, title: str = "Interconnect Explorer: the guided tour",
              plotly_js: str | None = None) -> str:
    """Every step of a talk in one self-contained HTML file: one slide per step (title, caption, charts),
    the arrow keys (and Page Up/Down, Space, Home, End) to move, a step counter, no network.

    The deck first loads ``plotly.min.js`` from beside it (the export folder's one copy, which any
    browser can run); opened alone, it unpacks its own copy of plotly.js (``plotly_js``: its text;
    default the copy inside the ``plotly`` package), embedded gzip-compressed and base64-encoded.
    Each chart is drawn when its slide is first shown.

    >>> deck = deck_html([DeckStep("One", "**9 to 1**", "/", (go.Figure(go.Bar(x=["a"], y=[1])),))], plotly_js="")
    >>> "<strong>9 to 1</strong>" in deck, "ArrowRight" in deck, "id='counter'" in deck, "http" in deck
    (True, True, True, False)
    """
    if plotly_js is None:
        plotly_js = plotly_js_path().read_text(encoding="utf-8")
    figures: list[dict] = []
    slides = []
    for number, step in enumerate(steps, start=1):
        charts = []
        for figure in step.figures:
            charts.append(f"<div class='chart' data-figure='{len(figures)}'></div>")
            figures.append(figure.to_plotly_json())
        caption = f"<p class='caption'>{markdown_html(step.caption)}</p>" if step.caption else ""
        slides.append(f"<section class='slide' id='step{number}'><h1>{html.escape(step.title)}</h1>{caption}"
                      f"{''.join(charts)}<p class='link'>Live view: <code>{html.escape(step.link)}</code></p>"
                      "</section>")
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'><style>{_DECK_STYLE}</style>"
            f"<script src='{PLOTLY_JS_NAME}'></script></head><body>{''.join(slides)}"
            "<div id='bar'><span id='note'></span>"
            "<button id='prev' title='Previous (left arrow)'>◀</button><span id='counter'></span>"
            "<button id='next' title='Next (right arrow)'>▶</button></div>"
            f"<script type='application/json' id='deck-figures'>{_script_json(figures)}</script>"
            f"<script type='application/octet-stream' id='plotly-packed'>{pack_script(plotly_js)}</script>"
            f"<script>{_DECK_SCRIPT}</script></body></html>")


def pack_script(code: str) -> str:
    """``code`` gzip-compressed (the same bytes on every run) and base64-encoded, for :func:`deck_html`.

    >>> import base64, gzip
    >>> gzip.decompress(base64.b64decode(pack_script("Plotly = {};"))).decode()
    'Plotly = {};'
    """
    return base64.b64encode(gzip.compress(code.encode("utf-8"), compresslevel=9, mtime=0)).decode("ascii")
