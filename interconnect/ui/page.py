"""The Streamlit glue shared by the pages: URL state, pickers, source pop-overs, page chrome.

This is the only module under ``interconnect/`` that imports Streamlit. Pages stay thin: they
declare their parameters, call :class:`PageState`, draw widgets bound to its keys, call one core
function, and render the figures from :mod:`interconnect.figures`.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
import streamlit.components.v1  # noqa: F401  (st.components.v1.html for the tour keys)
from streamlit.errors import StreamlitAPIException

from interconnect.catalog import DIRECTION_WORDS, Catalog, Figure, Gpu, Link, Node, TourStep, get_catalog, load_tour
from interconnect.figures.export import figure_csv, figure_html
from interconnect.figures.theme import presentation_figure, readable_figure
from interconnect.models.custom import CUSTOM_GPU_ID, CUSTOM_SOURCE, MAX_NAME_CHARS
from interconnect.ui.pagespecs import CUSTOM_GPU_KEYS, known_link_keys, page_gpu, page_query, tour_stop
from interconnect.ui.talk import (
    PRESENT_CSS,
    chart_container,
    clear_focus_slot,
    focus_figure,
    is_focus,
    link_preview,
    reserve_focus_slot,
)
from interconnect.ui.urlstate import Param, QuantityParam, parse_state, safe_echo, to_query, unknown_keys
from interconnect.units import format_bandwidth

__all__ = ["CUSTOM_SOURCE_TEXT", "PageState", "custom_gpu_controls", "direction_text", "escape_markdown",
           "figure_label", "figure_sources", "footer", "gpu_picker",
           "nic_picker", "page_setup", "show_entry", "source_popover"]

PAGES = {
    "home": ("app.py", "Home"),
    "cliff": ("pages/1_Bandwidth_cliff.py", "Bandwidth cliff"),
    "allreduce": ("pages/2_All_reduce.py", "All-reduce"),
    "overlap": ("pages/3_Overlap.py", "Overlap"),
    "seating": ("pages/4_Seating_chart.py", "Seating chart"),
    "reach": ("pages/5_Reach.py", "Reach"),
    "crossdc": ("pages/6_Across_sites.py", "Across sites"),
    "claims": ("pages/7_Claims.py", "Claims checked"),
    "units": ("pages/8_Unit_traps.py", "Unit traps"),
    "catalog": ("pages/9_Catalog.py", "Catalog and sources"),
    "fabric": ("pages/10_Fabric.py", "Fabric"),
}

#: What the sources panel says for a figure the viewer typed (a custom GPU or NIC): it has no source.
CUSTOM_SOURCE_TEXT = "custom (your input)"
#: The GPU picker's entry for a custom GPU (its name, bandwidth and base are set below the picker).
CUSTOM_GPU_LABEL = "Custom GPU (describe it below)"

_CSS = """
<style>
  /* Larger type for projectors; the charts carry their own 16 px theme. */
  [data-testid="stMetricValue"], [data-testid="stMetricValue"] * { font-size: 2.1rem; }
  .block-container { padding-top: 2.2rem; max-width: 1280px; }
</style>
"""


_ROOT = Path(__file__).resolve().parents[2]
#: Session-state prefix of values shared between pages (not widget keys, so they survive a page switch).
_SHARED = "shared."


@functools.cache
def page_exists(name: str) -> bool:
    """Whether a page's script is present (pages land one issue at a time); asked once per process."""
    return (_ROOT / PAGES[name][0]).is_file()


def page_for_path(path: str) -> str | None:
    """The page script a mistyped URL path most likely meant (``/all_reduce`` -> the All-reduce page).

    Matches the page's URL name case-insensitively, ignoring ``-``/``_``/spaces; None if no page fits.

    >>> page_for_path("/ALL-REDUCE/")
    'pages/2_All_reduce.py'
    """
    def normal(text: str) -> str:
        return "".join(char for char in text.lower() if char.isalnum())

    wanted = normal(path.rstrip("/").rsplit("/", 1)[-1])
    if not wanted:
        return None
    for script, _ in PAGES.values():
        url_name = Path(script).stem.split("_", 1)[-1] if script.startswith("pages/") else ""
        if url_name and normal(url_name) == wanted and page_exists_path(script):
            return script
    return None


def page_exists_path(script: str) -> bool:
    return (_ROOT / script).is_file()


def redirect_mistyped_page() -> None:
    """On the home page: if the address names a page in the wrong case (``/all_reduce``), open that page.

    Streamlit matches page paths exactly and runs the home page for anything else.
    """
    try:
        path = urlsplit(st.context.url or "").path
    except Exception:  # no browser context (AppTest)
        return
    if path.rstrip("/") in ("", "/"):
        return
    target = page_for_path(path)
    if target is not None:
        st.switch_page(target)


def page_setup(title: str, caption: str | None = None) -> None:
    """First call of every page: page config, shared style, title, caption, tour banner and link slot.

    The guided tour and presentation mode are read from the link (``tour``/``stop``/``present``).
    """
    description = page_description(title, caption)
    st.set_page_config(page_title=f"{title} · Interconnect Explorer", layout="wide",
                       initial_sidebar_state="collapsed" if _presenting() else "auto",
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
        st.session_state[_LINK_SLOT] = link_slot.empty()
    if caption and not (talk.present and talk.tour_step):  # on a tour step the step's caption says it
        st.caption(caption)
    link_preview(f"{title} · Interconnect Explorer", description)
    clear_focus_slot()
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


class PageState:
    """Binds a page's parameters to the URL query string and to widget keys.

    On the first run of a session the widgets are seeded from the URL (bad values become warnings
    and defaults); after the widgets are drawn, :meth:`sync_url` writes the state back so the
    address bar is always a link to the current view.
    """

    def __init__(self, page: str, specs: Sequence[Param], *, shared: Sequence[str] = ()) -> None:
        self.page = page
        self.specs = list(specs)
        self.specs_by_key = {spec.key: spec for spec in self.specs}
        self.shared = tuple(key for key in shared if key in self.specs_by_key)
        self._cleaned: dict[tuple, Any] = {}
        query = page_query(st.query_params.to_dict())
        self._query = query
        values, self.warnings = parse_state(self.specs, query)
        # The address changed since this page last wrote it (a tour step, a claim's link, a pasted
        # link in the same tab): the link's own parameters replace what the widgets held.
        written = st.session_state.get(_WRITTEN + page)
        navigated = written is not None and _page_part(query, self.specs) != written
        for spec in self.specs:
            widget_key = self.key(spec.key)
            if navigated and spec.key in query:
                st.session_state[widget_key] = values[spec.key]
            elif widget_key not in st.session_state:
                value = values[spec.key]
                # A shared value (the cluster chosen on another page) fills what the link leaves out;
                # a parameter in the link always wins.
                if spec.key in self.shared and spec.key not in query and _SHARED + spec.key in st.session_state:
                    value = spec.clean(st.session_state[_SHARED + spec.key])
                st.session_state[widget_key] = value

    def key(self, name: str) -> str:
        """The widget key for a parameter (stable, used by tests to find widgets)."""
        return f"{self.page}.{name}"

    def __getitem__(self, name: str) -> Any:
        spec = self.specs_by_key[name]
        raw = st.session_state.get(self.key(name), spec.default)
        try:
            memo_key = (name, type(raw), raw)
            hash(memo_key)
        except TypeError:  # an unhashable value: clean it every time
            return spec.clean(raw)
        # Cleaning a typed quantity parses and compares with pint; a run asks for each value many times.
        if memo_key not in self._cleaned:
            self._cleaned[memo_key] = spec.clean(raw)
        return self._cleaned[memo_key]

    def values(self) -> dict[str, Any]:
        return {spec.key: self[spec.key] for spec in self.specs}

    def show_warnings(self) -> None:
        """Every problem with the link in one warning box: bad values by control, then ignored keys."""
        lines = [warning.message() for warning in self.warnings]
        ignored = unknown_keys(self.specs, self._query, known_link_keys())
        if ignored:
            shown = ", ".join(f"`{key}`" for key in ignored[:5]) + (" …" if len(ignored) > 5 else "")
            lines.append(f"Ignored link parameters no page uses: {shown}.")
        if len(lines) == 1:
            st.warning(lines[0])
        elif lines:
            st.warning("This link had problems; the page shows the nearest view it could:\n\n"
                       + "\n".join(f"- {line}" for line in lines))

    def sync_url(self) -> None:
        """Write the view to the address bar; a typed value that could not be used is reported first."""
        for spec in self.specs:
            if isinstance(spec, QuantityParam):
                raw = str(st.session_state.get(self.key(spec.key), ""))
                if self[spec.key] != " ".join(raw.split()):
                    _, problem = spec.parse(raw)
                    reason = f" ({escape_markdown(problem)})" if problem else ""
                    st.warning(f"{spec.label or spec.key}: could not use `{safe_echo(raw)}`{reason}; using "
                               f"`{self[spec.key]}`.")
        values = self.values()
        for key in self.shared:
            st.session_state[_SHARED + key] = values[key]
        query = to_query(self.specs, values)
        st.session_state[_WRITTEN + self.page] = query
        full = {**query, **talk_query(talk_state())}
        if st.query_params.to_dict() != full:
            st.query_params.from_dict(full)
        show_share_link(full)


def gpu_picker(state: PageState, name: str = "gpu", label: str = "GPU", catalog: Catalog | None = None,
               container: Any = st) -> Gpu:
    """The GPU selectbox; on a page with a custom GPU's keys it offers "custom" too (and returns that GPU).

    Draw :func:`custom_gpu_controls` somewhere on the page for the custom GPU's own fields.
    """
    catalog = catalog or get_catalog()
    options = list(catalog.gpus)
    custom = "gpu_bw" in state.specs_by_key
    if custom:
        options.append(CUSTOM_GPU_ID)

    def label_of(gpu_id: str) -> str:  # fixed labels: the options keep one identity between runs
        return CUSTOM_GPU_LABEL if gpu_id == CUSTOM_GPU_ID else catalog.gpus[gpu_id].name

    gpu_id = container.selectbox(label, options, key=state.key(name), format_func=label_of)
    if gpu_id != CUSTOM_GPU_ID:
        return catalog.gpu(gpu_id)
    return page_gpu({key: state[key] for key in (name, *CUSTOM_GPU_KEYS)})


def custom_gpu_controls(state: PageState, catalog: Catalog | None = None, container: Any = st) -> None:
    """The custom GPU's name, scale-up bandwidth and base, shown only while ``gpu=custom``."""
    if state["gpu"] != CUSTOM_GPU_ID:
        return
    catalog = catalog or get_catalog()
    gpu = page_gpu({key: state[key] for key in ("gpu", *CUSTOM_GPU_KEYS)})
    with container.container(border=True):
        c1, c2, c3 = st.columns([2, 2, 3])
        c1.text_input("Custom GPU: name", key=state.key("gpu_name"), max_chars=MAX_NAME_CHARS,
                      help="Letters, digits, spaces and plain punctuation.")
        c2.text_input("Scale-up per direction", key=state.key("gpu_bw"),
                      help="One direction, e.g. '1.8 TB/s' or '900 GB/s'. Makers usually quote both directions "
                           "added up: NVLink 5's '1.8 TB/s' is 900 GB/s per direction.")
        c3.selectbox("Compute, memory and server of", list(catalog.gpus), key=state.key("gpu_base"),
                     format_func=lambda i: catalog.gpus[i].name)
        up = gpu.scaleup_bandwidth
        st.caption(f"**{escape_markdown(gpu.name)}**: {format_bandwidth(up.per_direction())} per direction = "
                   f"{format_bandwidth(up.both_directions())} both directions added up. Everything else is the "
                   f"{escape_markdown(catalog.gpu(state['gpu_base']).name)}'s. Not in the catalog: the source of a "
                   "custom figure is your input.")


def nic_picker(state: PageState, name: str = "nic", label: str = "Network card (per GPU)",
               catalog: Catalog | None = None, container: Any = st) -> Link:
    catalog = catalog or get_catalog()
    nics = catalog.nics()
    nic_id = container.selectbox(label, list(nics), key=state.key(name), format_func=lambda i: nics[i].name)
    return catalog.nic(nic_id)


def escape_markdown(text: str) -> str:
    """Backslash-escape Markdown syntax so text renders literally (no links, no HTML, no LaTeX)."""
    return "".join("\\" + char if char in "\\`*_{}[]()#+-.!|<>$~" else char for char in text)


def markdown_table(frame: pd.DataFrame) -> str:
    """A table as Markdown, every cell escaped: a static table drawn by the text element.

    Cheaper for the browser than ``st.table`` (about 0.5 s less to a cold page's first chart for the
    Bandwidth cliff's five tables in headless Chromium) and wraps long text the same way.

    >>> print(markdown_table(pd.DataFrame({"Link": ["a|b"], "Reach": ["3 m"]})))
    | Link | Reach |
    |---|---|
    | a\\|b | 3 m |
    """
    def cell(value: Any) -> str:
        return escape_markdown(" ".join(str(value).split()))

    lines = ["| " + " | ".join(cell(name) for name in frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def figure_sources(catalog: Catalog, figure: Figure) -> str:
    """Markdown list of a figure's sources, from our own catalog (trusted text, escaped anyway)."""
    lines = []
    for source_id in figure.source_ids:
        if source_id == CUSTOM_SOURCE:
            lines.append(f"- {CUSTOM_SOURCE_TEXT}")
            continue
        source = catalog.source(source_id)
        note = f" — {escape_markdown(source.note)}" if source.note else ""
        lines.append(f"- [{escape_markdown(source.title)}]({source.url}) *({source.kind})*{note}")
    return "\n".join(lines)


def figure_label(entry: Gpu | Link | Node, name: str) -> str:
    """How a figure's field name reads: 'memory bandwidth'; 'BF16 dense', or 'FP16 dense' for a GPU
    without BF16 (P100, V100), whose dense figure is FP16."""
    if name == "bf16_dense":
        return f"{getattr(entry, 'dense_format', 'BF16')} dense"
    return name.replace("_", " ")


def direction_text(figure: Figure) -> str:
    """The direction words of a figure; an asymmetric link also gives both directions together.

    >>> from interconnect.catalog import get_catalog
    >>> direction_text(get_catalog().link("home-broadband").bandwidth)
    'per direction, down and up differ (15 MB/s = 120 Mbit/s both directions together)'
    """
    words = DIRECTION_WORDS[figure.direction]
    if figure.is_asymmetric:
        both = format_bandwidth(figure.both_directions())
        if "bit" in str(figure.quantity.units):  # published in bits: say it in bits too
            both += f" = {format_bandwidth(figure.both_directions(), 'bit/s')}"
        return f"{words}, down and up differ ({both} both directions together)"
    return words


def quiet_text(text: str) -> str:
    """Catalog text in grey, as a caption reads; in italics where brackets would end the grey early.

    >>> quiet_text("NCCL's plan"), quiet_text("see [1]")
    (":gray[NCCL's plan]", '*see [1]*')
    """
    return f"*{text}*" if "[" in text or "]" in text else f":gray[{text}]"


def entry_markdown(entry: Gpu | Link | Node, catalog: Catalog, *, full: bool = False) -> str:
    """Every figure of a catalog entry with its direction, basis, note and sources, as one Markdown text.

    ``full`` adds what the Catalog page shows besides: the summary, the sources behind the prose,
    the popular claims with their corrections, and the notes. One text, drawn as one element: a
    browser redraws a pop-over of twenty small elements far slower than one block.
    """
    blocks: list[str] = []
    if full and getattr(entry, "summary", ""):
        blocks.append(entry.summary)
    for name, figure in entry.figures().items():
        parts = [figure.text(), direction_text(figure), figure.basis]
        lines = [f"**{figure_label(entry, name)}**: " + " · ".join(part for part in parts if part)]
        if figure.note:
            lines.append(quiet_text(figure.note))
        blocks.append("  \n".join(lines) + "\n\n" + figure_sources(catalog, figure))
    prose_sources = entry.source_ids if isinstance(entry, Node) else getattr(entry, "sources", ())
    if prose_sources and (full or isinstance(entry, Node)):
        lines = ["**Further sources** (for the notes and corrections):", ""]
        for source_id in prose_sources:
            source = catalog.source(source_id)
            lines.append(f"- [{escape_markdown(source.title)}]({source.url}) *({source.kind})*")
        blocks.append("\n".join(lines))
    if full:
        for claim in getattr(entry, "quoted", ()):
            blocks.append(f"**Often quoted:** {claim['claim']} *({claim['by']})*  \n"
                          f"**Corrected:** {claim['correction']}")
    for line in getattr(entry, "disagreements", ()):
        blocks.append(f":orange-badge[Sources disagree] {escape_markdown(line)}")
    if full and getattr(entry, "notes", ""):
        blocks.append(quiet_text(entry.notes))
    return "\n\n".join(blocks)


def show_entry(entry: Gpu | Link | Node, catalog: Catalog, *, full: bool = False) -> None:
    """Draw :func:`entry_markdown` as one element."""
    st.markdown(entry_markdown(entry, catalog, full=full))


def source_popover(entry: Gpu | Link | Node, label: str = "Sources", catalog: Catalog | None = None,
                   container: Any = st) -> None:
    """A pop-over listing every figure of a catalog entry with its direction, basis and sources."""
    catalog = catalog or get_catalog()
    with container.popover(label):
        st.markdown(f"**{escape_markdown(entry.name)}** · id `{entry.id}`")
        show_entry(entry, catalog)


def footer() -> None:
    st.divider()
    st.caption(
        "Every figure in this app carries its unit, direction and source. "
        "See the **Catalog and sources** page for all of them, or the pop-overs beside each chart."
    )
    link_to("catalog", "Catalog and sources")


def link_to(name: str, label: str, **options: Any) -> None:
    """``st.page_link`` to one of our pages (``options`` go to it: ``icon``, ``width``); a plain link
    when run outside the multipage app."""
    path = PAGES[name][0]
    try:
        st.page_link(path, label=label, **options)
    except StreamlitAPIException:
        slug = Path(path).stem.split("_", 1)[-1] if name != "home" else ""
        st.markdown(f"[{label}](./{slug})")


# --- talks: presentation mode, the guided tour, the link to the view --------------------------

_LINK_SLOT = "talk.link_slot"
_WRITTEN = "url.written."


#: Arrow keys move through the tour by clicking the banner's Previous/Next links (our constant script).
#: The handler is replaced by every new banner: a listener whose iframe was removed (the page before,
#: in this single-page app) is never called again by the browser, so a "install once" guard would
#: leave the keys dead after the first step.
_TOUR_KEYS_HTML = """<script>
const doc = window.parent.document;
if (doc.__interconnectTourKeys) doc.removeEventListener('keydown', doc.__interconnectTourKeys);
doc.__interconnectTourKeys = (event) => {
  const tag = (event.target.tagName || '').toLowerCase();
  if (tag === 'input' || tag === 'textarea' || event.target.isContentEditable) return;
  const word = event.key === 'ArrowRight' ? 'Next' : event.key === 'ArrowLeft' ? 'Previous' : null;
  if (!word) return;
  const link = [...doc.querySelectorAll('a')].find(a => a.textContent.trim().startsWith(word + ':'));
  if (link) { event.preventDefault(); link.click(); }
};
doc.addEventListener('keydown', doc.__interconnectTourKeys);
</script>"""


@dataclass(frozen=True)
class TalkState:
    """Presentation mode and the tour step, as the link gives them (already validated)."""

    present: bool
    tour_step: int  # 1-based; 0 = not on the tour


def _presenting() -> bool:
    return str(st.query_params.get("present", "0")).strip().lower() in ("1", "true", "on", "yes")


def talk_state() -> TalkState:
    """Read ``present`` and ``tour``/``stop`` from the link; a bad stop falls back to the first."""
    tour_step, _ = tour_stop(st.query_params.to_dict(), len(tour_steps()))
    return TalkState(present=_presenting(), tour_step=tour_step)


def talk_query(talk: TalkState) -> dict[str, str]:
    """The link parameters that keep presentation mode and the tour step."""
    query: dict[str, str] = {}
    if talk.present:
        query["present"] = "1"
    if talk.tour_step:
        query.update({"tour": "1", "stop": str(talk.tour_step)})
    return query


@functools.cache
def tour_steps() -> tuple[TourStep, ...]:
    """The tour's steps whose page exists in this build of the app (read once per process)."""
    return tuple(step for step in load_tour_cached() if step.page in PAGES and page_exists(step.page))


@functools.cache
def load_tour_cached() -> tuple[TourStep, ...]:
    return load_tour()


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
    st.components.v1.html(_TOUR_KEYS_HTML, height=0)


def share_url(base_url: str, query: dict[str, str]) -> str:
    """The address of the current view: the page's URL with every parameter that defines it.

    >>> share_url("http://localhost:8501/All_reduce?old=1", {"gpu": "b200", "size": "256 MiB"})
    'http://localhost:8501/All_reduce?gpu=b200&size=256+MiB'
    """
    parts = urlsplit(base_url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def show_share_link(query: dict[str, str]) -> None:
    """Fill the slot beside the title with a copyable link to this exact view."""
    slot = st.session_state.get(_LINK_SLOT)
    if slot is None:
        return
    try:
        base = st.context.url or ""
    except Exception:  # no browser context (AppTest)
        base = ""
    with slot.container():
        with st.popover("Link to this view"):
            st.caption("Copy it (the icon on the right); it reopens exactly this view, settings included.")
            st.code(share_url(base or "http://localhost:8501/", query), language=None, wrap_lines=True)


def _toggle_present() -> None:
    if st.session_state.get("talk.present_toggle"):
        st.query_params["present"] = "1"
    elif "present" in st.query_params:
        del st.query_params["present"]


def _exit_present() -> None:
    if "present" in st.query_params:
        del st.query_params["present"]


def _page_part(query: dict[str, Any], specs: Sequence[Param]) -> dict[str, str]:
    keys = {spec.key for spec in specs}
    return {key: value for key, value in query.items() if key in keys}


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
        chart_container(key).plotly_chart(focus_figure(figure), width="stretch", key=key)
        return
    st.plotly_chart(figure, width="stretch", key=key)
    if exports and not present:
        with st.popover("Export this chart"):
            st.download_button("Offline HTML (opens without a network)", data=lambda: figure_html(figure),
                               file_name=f"{key}.html", mime="text/html", key=f"{key}.html", on_click="ignore")
            st.download_button("Data as CSV", data=lambda: figure_csv(figure), file_name=f"{key}.csv",
                               mime="text/csv", key=f"{key}.csv", on_click="ignore")
