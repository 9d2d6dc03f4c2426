"""Where a figure comes from, as the pages show it: its sources, direction words and the pop-overs.

Catalog text is ours and trusted, but it is escaped anyway before it is drawn.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from interconnect.catalog import DIRECTION_WORDS, Catalog, Figure, Gpu, Link, Node, get_catalog
from interconnect.hardware.custom import CUSTOM_SOURCE
from interconnect.ui.markdown import escape_markdown, quiet_text
from interconnect.units import format_bandwidth

__all__ = ["CUSTOM_SOURCE_TEXT", "direction_text", "entry_markdown", "figure_label", "figure_sources",
           "show_entry", "source_popover"]

#: What the sources panel says for a figure the viewer typed (a custom GPU or NIC): it has no source.
CUSTOM_SOURCE_TEXT = "custom (your input)"


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
    if name == "fp8_dense":
        return "FP8 dense"
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
