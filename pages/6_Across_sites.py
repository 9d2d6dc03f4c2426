"""Page: training across data centres: what crosses the WAN, and how busy the GPUs stay."""

import streamlit as st

from interconnect.catalog import get_catalog
from interconnect.models.crossdc import get_crossdc_data
from interconnect.models.crossdc_view import table4_check
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.crossdc import run_controls, show_results
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.pagespecs import CUSTOM_GPU_KEYS, crossdc_inputs, crossdc_specs
from interconnect.ui.state import PageState

page_setup("Across sites: training between data centres",
           "When training spans buildings or regions, the algorithm bends to the wire: synchronise rarely, "
           "and send less. How much WAN bandwidth keeps the GPUs busy, per method.")
catalog = get_catalog()
data = get_crossdc_data()
state = PageState("crossdc", crossdc_specs(), shared=("gpu", *CUSTOM_GPU_KEYS))
state.show_warnings()

CONFIDENCE_WORDS = {"high": "high (read in the paper's own text)",
                    "medium": "medium (abstract only, or a secondary copy whose arithmetic checks out)",
                    "low": "low (secondary only)"}


@st.cache_data(show_spinner=False)
def table4_markdown() -> str:
    """Streaming DiLoCo's Table 4 against the model as one Markdown table (paper / model, Gbit/s)."""
    cells = table4_check()
    targets = sorted({cell.utilization for cell in cells})
    rows: dict[tuple[str, str], list[str]] = {}
    for cell in cells:
        text = f"{cell.paper_gbit_per_s:g} / {cell.model_gbit_per_s:.3g}"
        rows.setdefault((cell.model, cell.variant), []).append(text)
    header = "| model | method | " + " | ".join(f"{t:.0%}" for t in targets) + " |"
    lines = [header, "|" + "---|" * (len(targets) + 2)]
    lines += [f"| {model} | {variant} | " + " | ".join(values) + " |" for (model, variant), values in rows.items()]
    return "\n".join(lines)


@st.fragment
def explorer() -> None:
    run_controls(state, catalog)
    state.sync_url()
    show_results(state, crossdc_inputs(state.values()))


explorer()

st.subheader("What was reported")
st.caption("Each card: the number, where it is stated, and how much of the source was read.")
columns = st.columns(2)
for i, card in enumerate(data.reported):
    sources = "; ".join(f"[{escape_markdown(catalog.source(s).title)}]({catalog.source(s).url})" for s in card.sources)
    note = f"\n\n*{escape_markdown(card.note)}*" if card.note else ""
    with columns[i % 2].container(border=True):
        st.markdown(f"#### {escape_markdown(card.headline)}\n**{escape_markdown(card.work)}.** "
                    f"{escape_markdown(card.claim)}{note}\n\nSource: {sources}, {escape_markdown(card.where)}. "
                    f"Confidence: {CONFIDENCE_WORDS[card.confidence]}.")

with st.expander("This model against Streaming DiLoCo's Table 4 (Gbit/s needed: paper / model)"):
    st.markdown(table4_markdown())
    st.caption("Two replicas, H = 100, step times of 0.1, 0.8 and 4.9 s, no latency (arXiv 2501.18512, Table 4). The "
               "paper's bandwidths are points of one grid about 1.21× apart, so each is the first grid value that "
               "reaches the target. The model is within 20 % of every cell up to 95 % utilisation; at 99 % it "
               "misses 100B Streaming DiLoCo without overlap by a third (13.1 against 19.3).")

st.subheader("Often quoted, and what the sources say")
for quote in data.quoted:
    sources = "; ".join(f"[{escape_markdown(catalog.source(s).title)}]({catalog.source(s).url})" for s in quote.sources)
    with st.container(border=True):
        st.markdown(f"**Often quoted:** {escape_markdown(quote.claim)}\n\n"
                    f"**What the sources say:** {escape_markdown(quote.correction)} ({sources})")

st.subheader("The honest limits")
limits = [f"- {escape_markdown(limit.text)} ({'; '.join(f'[source]({catalog.source(s).url})' for s in limit.sources)})"
          for limit in data.limits]
st.markdown("\n".join(limits) + "\n"
            "- This model is an alpha-beta sketch: it leaves out single-flow TCP limits (window ÷ round trip), "
            "congestion and stragglers, compute slowed by communication kernels, and whether the method trains "
            "as well as data parallel. Utilisation is not quality: the papers above measure both.")
footer()
