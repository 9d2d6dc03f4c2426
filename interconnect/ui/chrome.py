"""The frame around every page: :func:`page_setup` first, :func:`footer` last.

``page_setup`` sets the page config and shared style, draws the sidebar's page links and presentation
switch, the title row with the slot for the share link, the caption, the link preview and, on a tour
step, the tour's banner. Between the two a page stays thin: it declares its parameters, binds them
with :class:`~interconnect.ui.state.PageState`, draws widgets on its keys, calls one core function and
draws the figures from :mod:`interconnect.figures`.
"""

from __future__ import annotations

import streamlit as st

from interconnect.inputs.links import MAX_LINK_CHARS, MAX_LINK_FIELDS, TOO_MANY_KEY, ignored_link_message, tour_stop
from interconnect.ui import component_guard
from interconnect.ui.heap import settle_long_lived
from interconnect.ui.pages import PAGES, link_to, page_exists
from interconnect.ui.share import hold_share_slot
from interconnect.ui.talk import (
    PRESENT_CSS,
    clear_focus_slot,
    link_preview,
    presenting,
    reserve_focus_slot,
    show_tour_banner,
    talk_state,
    tour_query,
    tour_steps,
)

__all__ = ["footer", "page_description", "page_setup"]

component_guard.install()  # before any run that can carry a component's state: every page imports this module

_CSS = """
<style>
  /* A place for warnings kept by a page's fragments (written on every run, so a fragment's rerun may fill it):
     while it holds no warning, its empty row would still cost a 1 rem gap. */
  [data-testid="stLayoutWrapper"]:has(> .st-key-notes):not(:has([data-testid="stAlert"])) { display: none; }
  /* Larger type for projectors; the charts carry their own 16 px theme. */
  [data-testid="stMetricValue"], [data-testid="stMetricValue"] * { font-size: 2.1rem; }
  .block-container { padding-top: 2.2rem; max-width: 1280px; }
  /* Our script-only HTML (the link preview's metadata, the tour's arrow keys) has run once inserted; its
     empty row would still cost a 1 rem gap. */
  [data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > script:only-child) { display: none; }
  /* A choice longer than its box ends in an ellipsis, not a cut letter ("Quantum-2 QM970"). */
  [data-testid="stSelectbox"] input { text-overflow: ellipsis; }
  /* Every width from 800 px (sidebar open: about 500 px for the page) to 1920 px. The page's width, not the
     window's, decides: a row of columns too narrow for its controls puts some on the next line instead of
     squeezing each control until its text is cut ("NVIDI...") or its words break ("parame ters"). */
  .block-container { container: page / inline-size; }
  [data-testid="stColumn"]:has([data-testid="stSelectbox"]) { min-width: min(100%, 15rem); }
  [data-testid="stColumn"]:has(> [data-testid="stVerticalBlock"] > * > [data-testid="stCheckbox"]) {
    min-width: min(100%, 9rem); }
  @container page (max-width: 760px) {
    [data-testid="stColumn"] { min-width: min(100%, 13rem); }
  }
  /* The title row: the title takes what the "Link to this view" button (and presentation mode's exit) leave. */
  .st-key-talk-head > [data-testid="stHorizontalBlock"] > [data-testid="stColumn"] { flex: 0 0 auto; width: auto; }
  .st-key-talk-head > [data-testid="stHorizontalBlock"] > [data-testid="stColumn"]:first-child { flex: 1 1 0;
    min-width: min(100%, 16rem); }
  /* Words break between words, never inside one. */
  [data-testid="stWidgetLabel"] *, [data-testid="stExpander"] summary *, [data-testid="stMetricLabel"] *,
  [data-testid="stMarkdownContainer"] th { overflow-wrap: normal; word-break: normal; }
  /* The home page's layers picture is laid out in its own coordinates, its labels in pixels: narrower than
     800 px its labels would run into each other, so there it keeps 800 px and scrolls sideways in its own box. */
  .st-key-layers-chart { overflow-x: auto; }
  .st-key-layers-chart > * { min-width: 800px; }
  /* A quote in our Markdown is drawn as a bordered container is (the Overlap page's claim): a box inside a block
     of text costs a change no element of its own. */
  .stMarkdown [data-testid="stMarkdownContainer"] blockquote, .text-block blockquote {
    border: 1px solid rgb(220, 216, 212); border-radius: 0.5rem; padding: calc(1rem - 1px); margin: 0 0 1rem;
    opacity: 1; }
  .stMarkdown [data-testid="stMarkdownContainer"] blockquote > :last-child, .text-block blockquote > :last-child {
    margin-bottom: 0; }
  /* A page's text block drawn as HTML (ui: the Overlap page's tables), looking as Streamlit's Markdown does: the
     browser does not parse it as Markdown on every redraw. */
  .text-block { font-size: 1rem; line-height: 1.6; color: rgb(47, 45, 43); overflow-wrap: break-word;
    margin-bottom: -1rem; }
  .text-block p { margin: 0 0 1rem; word-break: break-word; }
  .text-block h3 { font-size: 1.75rem; font-weight: 600; line-height: 1.2; letter-spacing: -0.005em; margin: 0;
    padding: 0.75rem 0 1rem; scroll-margin-top: 3.75rem; word-break: break-word; }
  .text-block strong { font-weight: 600; }
  .text-block a { color: rgb(36, 79, 180); text-decoration: underline; }
  .text-block code { font-family: "Source Code Pro", monospace; font-size: 0.75em; line-height: 1.6;
    padding: 0.2em 0.4em; background-color: rgb(247, 247, 246); border-radius: 0.25rem; white-space: pre-wrap;
    word-break: break-word; }
  .text-block table { display: block; max-width: 100%; overflow-x: auto; border-collapse: collapse;
    margin: 0 0 1rem; }
  .text-block tr { border-top: 1px solid rgb(232, 229, 226); }
  .text-block th, .text-block td { padding: 0.375rem 0.75rem; border: 1px solid rgb(232, 229, 226);
    text-align: left; vertical-align: middle; }
  .text-block th { font-weight: 700; overflow-wrap: normal; word-break: normal; }
  /* a long path in a source's title may break anywhere, so a narrow window wraps the table instead of cutting it */
  .text-block td a { overflow-wrap: anywhere; }
  /* A table wider than the page scrolls inside its own box; the page itself never scrolls sideways. */
  [data-testid="stMarkdownContainer"] table { display: block; max-width: 100%; overflow-x: auto; }
</style>
"""


#: Streamlit ignores a link of more than 1,000 parameters whole, and the page never learns of it: it sees no
#: query at all. When it sees none, this constant script (no user text in it) looks at the address the tab loaded
#: (the navigation's own URL: the page may already have written its defaults over the address bar) and, if
#: Streamlit dropped it, reloads the page with only a count (``too_many=N``), which the page reports and then
#: leaves out of the address like any key it does not use.
_IGNORED_LINK_SCRIPT = f"""<script>
(() => {{
const loaded = performance.getEntriesByType('navigation')[0];
const search = new URL(loaded ? loaded.name : window.location.href).search.slice(1);
if (!search) return;
const fields = search.split('&').length;
if (fields <= {MAX_LINK_FIELDS} && search.length <= {MAX_LINK_CHARS}) return;
window.location.replace(window.location.pathname + '?{TOO_MANY_KEY}=' + (fields > {MAX_LINK_FIELDS} ? fields : 0));
}})();
</script>"""


def _check_ignored_link() -> None:
    """Say so when Streamlit ignored the link whole (see :data:`_IGNORED_LINK_SCRIPT`)."""
    query = st.query_params.to_dict()
    message = ignored_link_message(query)
    if message:
        st.warning(message)
    elif not query:
        st.html(_IGNORED_LINK_SCRIPT, unsafe_allow_javascript=True)  # a constant of ours


def page_setup(title: str, caption: str | None = None) -> None:
    """First call of every page: page config, shared style, title, caption, tour banner and link slot.

    The guided tour and presentation mode are read from the link (``tour``/``stop``/``present``).
    """
    description = page_description(title, caption)
    st.set_page_config(page_title=f"{title} · Interconnect Explorer", layout="wide",
                       initial_sidebar_state="collapsed" if presenting() else "auto",
                       menu_items={"About": f"**Interconnect Explorer** · {title}: {description}"})
    st.markdown(_CSS, unsafe_allow_html=True)  # a constant of ours, never user input
    talk = talk_state()
    if talk.present:
        st.markdown(PRESENT_CSS, unsafe_allow_html=True)  # a constant of ours
    with st.sidebar:
        st.markdown("### Interconnect Explorer")
        for name, (_, label) in PAGES.items():
            if page_exists(name):
                link_to(name, label)
        st.divider()
        st.toggle("Presentation mode", value=talk.present, key="talk.present_toggle", on_change=_toggle_present,
                  help="Bigger chart text, no sidebar; adds present=1 to the link.")
        if not talk.tour_step:
            st.page_link(PAGES["home"][0], label="▶ Start the guided tour", query_params=tour_query(1, talk.present))
    with st.container(key="talk-head"):
        if talk.present:  # the title, the link and the way out on one row
            head, link_slot, leave = st.columns([11, 4, 5], vertical_alignment="center")
            leave.button("Exit presentation mode", key="talk.exit", on_click=_exit_present)
        else:
            head, link_slot = st.columns([5, 2], vertical_alignment="bottom")
        head.title(title)
        hold_share_slot(link_slot)
    if caption and not (talk.present and talk.tour_step):  # on a tour step the step's caption says it
        st.caption(caption)
    link_preview(f"{title} · Interconnect Explorer", description)
    clear_focus_slot()
    _check_ignored_link()
    component_guard.show_refused()
    if talk.tour_step:
        show_tour_banner(talk)
        _, problem = tour_stop(st.query_params.to_dict(), len(tour_steps()))
        if problem:
            st.warning(problem.message())
        if talk.present:
            reserve_focus_slot(tour_steps()[talk.tour_step - 1].chart)


def page_description(title: str, caption: str | None) -> str:
    """One line on what a page shows, for its link preview: its caption's first sentence, or its title.

    >>> page_description("Overlap", "Hide it behind the backward pass. What is left, the step waits for.")
    'Hide it behind the backward pass.'
    """
    if not caption:
        return f"{title}: GPU interconnect explained, every figure with its unit and source."
    first = caption.split(". ")[0].strip()
    return first if first.endswith((".", "?", "!")) else first + "."


def footer() -> None:
    """Last call of every page's full run: the note on sources and the link to the catalog; then what the run
    imported is frozen out of the collection after each later run (:func:`~interconnect.ui.heap.settle_long_lived`)."""
    st.divider()
    st.caption(
        "Every figure in this app carries its unit, direction and source. "
        "See the **Catalog and sources** page for all of them, or the pop-overs beside each chart."
    )
    link_to("catalog", "Catalog and sources")
    settle_long_lived()


def _toggle_present() -> None:
    if st.session_state.get("talk.present_toggle"):
        st.query_params["present"] = "1"
    elif "present" in st.query_params:
        del st.query_params["present"]


def _exit_present() -> None:
    if "present" in st.query_params:
        del st.query_params["present"]
