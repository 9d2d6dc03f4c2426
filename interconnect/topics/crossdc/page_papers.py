"""The Across-sites page's sections below its explorer: what the papers report, beside the model.

The reported figures as cards, this model against Streaming DiLoCo's Table 4, the figures often quoted
against what their sources say, and the limits of the model. No control changes them: the page draws
them once per run of the whole page, outside the explorer's fragments. The records are read by
:mod:`interconnect.topics.crossdc.data`; the Table 4 cells are computed by
:func:`interconnect.topics.crossdc.view.table4_check`.
"""

from __future__ import annotations

import streamlit as st

from interconnect.catalog import Catalog
from interconnect.topics.crossdc.model import get_crossdc_data
from interconnect.topics.crossdc.view import table4_check
from interconnect.ui.markdown import escape_markdown

__all__ = ["CONFIDENCE_WORDS", "limits_section", "quoted_section", "reported_section", "table4_markdown",
           "table4_section"]

#: What each confidence level of a reported card means, as the card says it.
CONFIDENCE_WORDS = {"high": "high (read in the paper's own text)",
                    "medium": "medium (abstract only, or a secondary copy whose arithmetic checks out)",
                    "low": "low (secondary only)"}


def _source_links(catalog: Catalog, source_ids: tuple[str, ...] | list[str]) -> str:
    return "; ".join(f"[{escape_markdown(catalog.source(s).title)}]({catalog.source(s).url})" for s in source_ids)


def reported_section(catalog: Catalog) -> None:
    """"What was reported": each card with its number, where it is stated and how much of the source was read."""
    st.subheader("What was reported")
    st.caption("Each card: the number, where it is stated, and how much of the source was read.")
    columns = st.columns(2)
    for i, card in enumerate(get_crossdc_data().reported):
        note = f"\n\n*{escape_markdown(card.note)}*" if card.note else ""
        with columns[i % 2].container(border=True):
            st.markdown(f"#### {escape_markdown(card.headline)}\n**{escape_markdown(card.work)}.** "
                        f"{escape_markdown(card.claim)}{note}\n\nSource: {_source_links(catalog, card.sources)}, "
                        f"{escape_markdown(card.where)}. Confidence: {CONFIDENCE_WORDS[card.confidence]}.")


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


def table4_section() -> None:
    """This model against Streaming DiLoCo's Table 4, in a collapsed expander."""
    with st.expander("This model against Streaming DiLoCo's Table 4 (Gbit/s needed: paper / model)"):
        st.markdown(table4_markdown())
        st.caption("Two replicas, H = 100, step times of 0.1, 0.8 and 4.9 s, no latency (arXiv 2501.18512, Table 4). "
                   "The paper's bandwidths are points of one grid about 1.21× apart, so each is the first grid value "
                   "that reaches the target. The model is within 20 % of every cell up to 95 % utilisation; at 99 % "
                   "it misses 100B Streaming DiLoCo without overlap by a third (13.1 against 19.3).")


def quoted_section(catalog: Catalog) -> None:
    """Figures often quoted, each with what its sources say."""
    st.subheader("Often quoted, and what the sources say")
    for quote in get_crossdc_data().quoted:
        with st.container(border=True):
            st.markdown(f"**Often quoted:** {escape_markdown(quote.claim)}\n\n"
                        f"**What the sources say:** {escape_markdown(quote.correction)} "
                        f"({_source_links(catalog, quote.sources)})")


def limits_section(catalog: Catalog) -> None:
    """The limits the papers state, and the model's own."""
    st.subheader("The honest limits")
    limits = [f"- {escape_markdown(limit.text)} "
              f"({'; '.join(f'[source]({catalog.source(s).url})' for s in limit.sources)})"
              for limit in get_crossdc_data().limits]
    st.markdown("\n".join(limits) + "\n"
                "- This model is an alpha-beta sketch: it leaves out single-flow TCP limits (window ÷ round trip), "
                "congestion and stragglers, compute slowed by communication kernels, and whether the method trains "
                "as well as data parallel. Utilisation is not quality: the papers above measure both.")
