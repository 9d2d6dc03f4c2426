"""Presentation mode as a speaker uses it: the step's chart on the first screen, and the tour's banner.

In presentation mode on a tour step, :func:`reserve_focus_slot` keeps a place right under the step's
caption; :func:`chart_container` hands that place to the chart the step is about (the step's
``chart`` key in ``data/tour/episode.toml``), so the room sees title, caption and chart without a
scroll. The rest of the page (its controls, prose and other charts) goes into one collapsed expander,
"Controls and the rest of the page", right under the chart: out of the room's way, one click away
for a speaker who wants to change a number live. The widgets keep their keys (an expander adds no
key), so links and tests find them as in normal mode; the expander exists only in presentation mode
on a tour step with a chart, and normal mode's layout is untouched.
The chart is drawn in that slot on every full run of the page (also from inside a fragment, which
Streamlit allows for a container the fragment wrote to in the last full run).

The tour and presentation mode are read from the link (``tour``/``stop``/``present``): :func:`talk_state`
gives them, :func:`talk_query` keeps them in the next address, :func:`show_tour_banner` draws a step's banner.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

import streamlit as st

from interconnect.inputs.links import tour_stop
from interconnect.site import tour_steps
from interconnect.ui.pages import PAGES

__all__ = ["FOCUS_HEIGHT_PX", "PRESENT_CSS", "REST_LABEL", "TalkState", "chart_container", "focus_figure",
           "link_preview", "presenting", "preview_script", "reserve_focus_slot", "show_tour_banner", "talk_query",
           "talk_state", "tour_query", "tour_steps"]

_FOCUS_SLOT = "talk.focus_slot"
_FOCUS_KEY = "talk.focus_key"

#: The label of presentation mode's expander that holds the page below the step's chart.
REST_LABEL = "Controls and the rest of the page"

#: The tallest a step's chart is drawn in presentation mode: title, tour caption and chart then fit a
#: 1280 x 720 window (a common projector) without scrolling.
FOCUS_HEIGHT_PX = 450

#: Presentation mode's look (a constant of ours, never user input): no sidebar, no Streamlit top bar
#: (it covered the top of "Link to this view"), a compact title and tour banner, and type sized for a room.
PRESENT_CSS = """
<style>
  /* The sidebar and its opener (stExpandSidebarButton in Streamlit 1.4x; stSidebarCollapsedControl before). */
  [data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
  [data-testid="stExpandSidebarButton"], [data-testid="stHeader"] { display: none; }
  .block-container { max-width: 100%; padding-top: 0.6rem !important; padding-bottom: 2rem; }
  h1 { font-size: 2.1rem !important; padding: 0.2rem 0 !important; }
  p, li, [data-testid="stCaptionContainer"] { font-size: 1.25rem !important; }
  [data-testid="stMetricValue"], [data-testid="stMetricValue"] * { font-size: 2.6rem !important; line-height: 1.2; }
  [data-testid="stMetricLabel"] p { font-size: 1.2rem !important; }
  .st-key-talk-banner { padding: 0.5rem 1rem !important; gap: 0.3rem !important; }
  .st-key-talk-banner [data-testid="stProgress"] p { font-size: 1.2rem !important; }
  .st-key-talk-banner [data-testid="stMarkdownContainer"] p { line-height: 1.45; }
  .st-key-talk-banner [data-testid="stPageLink-NavLink"] { padding: 0 0.4rem; }
  .st-key-talk-head { gap: 0.5rem !important; }
  /* The zero-height style blocks take no row of their own: each empty row still cost a 1 rem gap above
     the chart (the script-only rows are hidden on every page, by chrome.py's style). A diagram brings its
     own style block and stays. */
  [data-testid="stElementContainer"]:has(style):not(:has(.diagram-chart)) { display: none; }
  /* The expander that holds the page below the step's chart: a quiet one-line bar until opened. */
  [data-testid="stExpander"] summary p { font-size: 1.05rem !important; }
  /* A 1080p screen: the page's text 1.25 times as large, and the step's chart takes the height the screen has
     left under the title and the banner (at least its own), so the screen is filled to the bottom, not 60 %. */
  @media (min-width: 1900px) and (min-height: 1000px) { html { font-size: 20px; } }
  .block-container:has(.st-key-talk-focus) { min-height: 100vh; display: flex; flex-direction: column; }
  .block-container:has(.st-key-talk-focus) > [data-testid="stVerticalBlock"] { flex: 1 1 auto; }
  [data-testid="stLayoutWrapper"]:has(> .st-key-talk-focus), .st-key-talk-focus > [data-testid="stElementContainer"]
    { flex: 1 1 auto; }
</style>
"""


def reserve_focus_slot(chart_key: str) -> None:
    """Keep a place here for the chart ``chart_key`` (the tour step's chart), then open the collapsed
    expander that everything the page writes after this goes into; nothing for an empty key.

    The expander is entered and not left: Streamlit starts every run of a script (and every rerun of
    a fragment, from the containers it had when first called) with its own stack of containers, so
    the rest of this run, fragments included, writes into it, and the next run starts afresh.
    """
    st.session_state[_FOCUS_KEY] = chart_key
    st.session_state[_FOCUS_SLOT] = st.empty() if chart_key else None
    if chart_key:
        st.expander(REST_LABEL, expanded=False, icon=":material/tune:").__enter__()


def clear_focus_slot() -> None:
    st.session_state[_FOCUS_KEY] = ""
    st.session_state[_FOCUS_SLOT] = None


def chart_container(key: str) -> Any:
    """Where the chart ``key`` is drawn: the reserved slot under the tour caption for the step's chart,
    otherwise where the page is writing."""
    slot = st.session_state.get(_FOCUS_SLOT)
    if slot is not None and key and st.session_state.get(_FOCUS_KEY) == key:
        return slot.container(key="talk-focus")
    return st


def is_focus(key: str) -> bool:
    return bool(key) and st.session_state.get(_FOCUS_SLOT) is not None and st.session_state.get(_FOCUS_KEY) == key


def focus_figure(figure: Any) -> Any:
    """A copy of a (presentation) figure no taller than :data:`FOCUS_HEIGHT_PX`, for the first screen.

    >>> import plotly.graph_objects as go
    >>> focus_figure(go.Figure(layout={"height": 600})).layout.height
    450
    >>> focus_figure(go.Figure(layout={"height": 300})).layout.height
    300
    """
    import plotly.graph_objects as go

    height = int(figure.layout.height or 450)
    if height <= FOCUS_HEIGHT_PX:
        return figure
    smaller = go.Figure(figure)
    smaller.layout.height = FOCUS_HEIGHT_PX
    # Titles and legends placed in pixels from the top (yref "container") keep their pixel offsets.
    for item in (smaller.layout.title, smaller.layout.legend):
        if item is not None and getattr(item, "yref", None) == "container" and item.y is not None:
            item.y = 1 - (1 - item.y) * height / FOCUS_HEIGHT_PX
    # A legend below the plot (paper y < 0) keeps its distance in pixels from the axis, so the shorter
    # plot does not pull it up onto the tick labels and the axis title.
    legend, margin = smaller.layout.legend, smaller.layout.margin
    if legend is not None and getattr(legend, "yref", None) in (None, "paper") and (legend.y or 0) < 0:
        spare = (margin.t or 0) + (margin.b or 0)
        if FOCUS_HEIGHT_PX - spare > 50:
            legend.y = legend.y * (height - spare) / (FOCUS_HEIGHT_PX - spare)
    return smaller


#: The site's name in every page title and preview.
SITE_NAME = "Interconnect Explorer"


def _js_string(text: str) -> str:
    r"""``text`` as a JavaScript string literal that cannot end its script element.

    >>> print(_js_string('a "b" </script>'))
    "a \"b\" \u003c/script>"
    """
    return json.dumps(text).replace("<", "\\u003c")


def preview_script(title: str, description: str) -> str:
    """The script that writes a page's preview metadata into the app's document head: the description,
    and the Open Graph and Twitter card fields link previews read (title, description, site name)."""
    fields = [("name", "description", description), ("property", "og:title", title),
              ("property", "og:description", description), ("property", "og:site_name", SITE_NAME),
              ("property", "og:type", "website"), ("name", "twitter:card", "summary"),
              ("name", "twitter:title", title), ("name", "twitter:description", description)]
    lines = [f"  put({_js_string(attribute)}, {_js_string(name)}, {_js_string(content)});"
             for attribute, name, content in fields]
    return ("<script>\n(() => {\nconst head = document.head;\n"
            "function put(attribute, name, content) {\n"
            "  let tag = head.querySelector(`meta[${attribute}=\"${name}\"]`);\n"
            "  if (!tag) { tag = document.createElement('meta'); tag.setAttribute(attribute, name);"
            " head.appendChild(tag); }\n"
            "  tag.setAttribute('content', content);\n}\n" + "\n".join(lines) + "\n})();\n</script>")


def link_preview(title: str, description: str) -> None:
    """Give the open page its preview metadata (description, Open Graph, Twitter card).

    Streamlit serves the same static ``index.html`` (title "Streamlit", no description) for every
    page and fills in the page's title with JavaScript. A browser's tab, bookmarks and history, and
    any previewer that runs JavaScript, see the page's own title and this description; chat apps'
    link unfurlers that read only the served HTML (Slack, Teams, Discord, ...) see "Streamlit".
    """
    _run_script(preview_script(title, description))


def _run_script(html: str) -> None:
    """Run one of this module's own constant scripts in the app's document (no user text reaches it
    unescaped: :func:`_js_string` writes every value). ``st.html`` puts a script-only body in no visible
    element; it replaced ``st.components.v1.html`` frames, which Streamlit deprecates."""
    st.html(html, unsafe_allow_javascript=True)


# --- The guided tour and presentation mode as the link gives them ---------------------------------

#: Arrow keys move through the tour by clicking the banner's Previous/Next links (our constant script).
#: The script runs in the app's own document, which lives on across pages (a single-page app), so each
#: banner replaces the handler the one before installed, and the handler follows only the banner's
#: links: once the tour is left, the arrow keys do nothing of ours.
_TOUR_KEYS_HTML = """<script>
(() => {
const doc = document;
if (doc.__interconnectTourKeys) doc.removeEventListener('keydown', doc.__interconnectTourKeys);
doc.__interconnectTourKeys = (event) => {
  const tag = (event.target.tagName || '').toLowerCase();
  if (tag === 'input' || tag === 'textarea' || event.target.isContentEditable) return;
  const word = event.key === 'ArrowRight' ? 'Next' : event.key === 'ArrowLeft' ? 'Previous' : null;
  if (!word) return;
  const links = [...doc.querySelectorAll('.st-key-talk-banner a')];
  const link = links.find(a => a.textContent.trim().startsWith(word + ':'));
  if (link) { event.preventDefault(); link.click(); }
};
doc.addEventListener('keydown', doc.__interconnectTourKeys);
})();
</script>"""


@dataclass(frozen=True)
class TalkState:
    """Presentation mode and the tour step, as the link gives them (already validated)."""

    present: bool
    tour_step: int  # 1-based; 0 = not on the tour


def presenting() -> bool:
    """Whether the link asks for presentation mode (``present=1``)."""
    return str(st.query_params.get("present", "0")).strip().lower() in ("1", "true", "on", "yes")


def talk_state() -> TalkState:
    """Read ``present`` and ``tour``/``stop`` from the link; a bad stop falls back to the first."""
    tour_step, _ = tour_stop(st.query_params.to_dict(), len(tour_steps()))
    return TalkState(present=presenting(), tour_step=tour_step)


def talk_query(talk: TalkState) -> dict[str, str]:
    """The link parameters that keep presentation mode and the tour step."""
    query: dict[str, str] = {}
    if talk.present:
        query["present"] = "1"
    if talk.tour_step:
        query.update({"tour": "1", "stop": str(talk.tour_step)})
    return query


@functools.cache
def tour_query(step_number: int, present: bool) -> dict[str, str]:
    """The full link parameters of one tour step (its view, the tour position, presentation mode)."""
    step = tour_steps()[step_number - 1]
    return {**dict(step.params), **talk_query(TalkState(present, step_number))}


def show_tour_banner(talk: TalkState) -> None:
    """The current step's caption, progress and Previous/Next links (arrow keys work too)."""
    steps = tour_steps()
    step = steps[talk.tour_step - 1]
    with st.container(border=True, key="talk-banner"):
        st.progress(talk.tour_step / len(steps), text=f"Guided tour · step {talk.tour_step} of {len(steps)}: "
                                                      f"**{step.title}**")
        st.markdown(step.caption)
        back, forward, leave = st.columns([5, 5, 2])
        if talk.tour_step > 1:
            previous = steps[talk.tour_step - 2]
            back.page_link(PAGES[previous.page][0], label=f"Previous: {previous.title}",
                           query_params=tour_query(talk.tour_step - 1, talk.present))
        if talk.tour_step < len(steps):
            following = steps[talk.tour_step]
            forward.page_link(PAGES[following.page][0], label=f"Next: {following.title}",
                              query_params=tour_query(talk.tour_step + 1, talk.present))
        leave.page_link(PAGES[step.page][0], label="Leave the tour", query_params=dict(step.params))
    _run_script(_TOUR_KEYS_HTML)
