"""The Streamlit glue of the Bandwidth cliff page: the controls and everything they drive, as one fragment.

:func:`cliff_view` is a Streamlit fragment: a change of GPU, network card, NIC count, direction,
unit or basis reruns only the headline, the charts, the sources and the Blu-ray table, not the
section below it. :func:`layers_section` depends on no control and is drawn once per page load;
:func:`generations_section` depends on none either but is drawn only when asked for (``view=generations``),
so it sits in the fragment with the picker. The figures are cached by their inputs for the whole server process.

The arithmetic is in :mod:`interconnect.topics.cliff.model`; the figures in :mod:`interconnect.topics.cliff.figures`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, NamedTuple

import pandas as pd
import streamlit as st

from interconnect.catalog import LAYER_TITLES, Catalog, Gpu, get_catalog
from interconnect.figures.theme import FORMAT_UNITS
from interconnect.hardware.custom import CUSTOM_GPU_ID, CUSTOM_NIC_ID, catalog_with, custom_nic
from interconnect.inputs.cluster import CUSTOM_GPU_KEYS, page_gpu
from interconnect.topics.cliff.figures import bar_text, cliff_figure, generation_figure
from interconnect.topics.cliff.inputs import CLIFF_VIEWS, DIRECTIONS, cliff_specs
from interconnect.topics.cliff.model import (
    CliffSummary,
    cliff_bars,
    cliff_summary,
    generation_ratios,
    quoted_claims,
    server_nics,
    short_link_name,
    transfer_time,
)
from interconnect.topics.cliff.page_live import live_caption, live_nics
from interconnect.ui.charts import chart
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.markdown import escape_markdown, markdown_table, quiet_text
from interconnect.ui.pickers import custom_gpu_controls, gpu_picker
from interconnect.ui.sources import direction_text, figure_sources, source_popover
from interconnect.ui.state import PageState, bounds
from interconnect.ui.views import shown_views, view_picker
from interconnect.units import format_bandwidth, format_duration, read_quantity

PHYSICAL_LAYERS = ("scale-up", "host", "scale-out", "long-reach")
#: The page's keys shared with the other pages' cluster (a custom GPU or NIC travels too).
CLIFF_SHARED = ("gpu", *CUSTOM_GPU_KEYS, "nic", "nic_bw", "nics")


@st.cache_resource(show_spinner=False, max_entries=64)
def view_catalog(custom: tuple):
    """The catalog plus the custom GPU and/or NIC the link describes.

    ``custom`` is ``(custom GPU values or (), custom NIC rate or "", catalog GPU whose server's NIC family
    a custom NIC takes)``, or ``()`` for the catalog as it is.
    """
    base = get_catalog()
    if not custom:
        return base
    gpu_values, nic_bw, like_gpu = custom
    gpu_entry = page_gpu(dict(gpu_values)) if gpu_values else None
    nic_entry = None
    if nic_bw:
        rate_gbit_s = float(read_quantity(nic_bw, "bandwidth").to("Gbit/s").magnitude)
        nic_entry = custom_nic(rate_gbit_s, base.nic(base.reference_node(like_gpu).nic))
    return catalog_with(base, gpu_entry, nic_entry)


# Figures are pure functions of a few ids and numbers: built once per server process for each view.
@st.cache_resource(show_spinner=False, max_entries=512)
def _cliff_chart(gpu_id: str, nic_id: str, nics: int, direction: str, unit_key: str, basis: str, custom: tuple = ()):
    bars = _bars_view(gpu_id, nic_id, nics, direction, unit_key, basis, custom)[0]  # the same bars as the text
    return cliff_figure(bars, unit_key, direction, basis)


@st.cache_resource(show_spinner=False)
def _generations_chart():
    return generation_figure(generation_ratios(get_catalog()))


@st.cache_resource(show_spinner=False)
def _layer_table(layer: str) -> str:
    return markdown_table(pd.DataFrame([{
        "Link": link.name, "What it is": link.summary, "Medium": link.medium,
        "Reach": link.reach.text() if link.reach else "—", "Properties": _properties(link), "Made by": link.vendor,
    } for link in get_catalog().layer(layer).values()]))


def _properties(link) -> str:
    words = ["switched" if link.switched else "point to point"]
    words.append({True: "routable", False: "not routable", None: ""}[link.routable])
    if link.in_network_reduction:
        words.append("adds up data in the switch")
    return ", ".join(word for word in words if word)


def _bar_source(bar, catalog) -> str:
    """One bar's figure as published, its direction, basis, catalog id, note and sources, in Markdown."""
    head = (f"**{escape_markdown(bar.label)}**: {bar.figure.text()} as published, {direction_text(bar.figure)}, "
            f"{bar.basis} · catalog id `{bar.entry_id}`")
    note = f"  \n{quiet_text(bar.figure.note)}" if bar.figure.note else ""
    return f"{head}{note}\n\n{figure_sources(catalog, bar.figure)}"


@st.cache_resource(show_spinner=False, max_entries=512)
def _bars_view(gpu_id: str, nic_id: str, nics: int, direction: str, unit_key: str, basis: str, custom: tuple = ()):
    """The bars of one view, their sources as Markdown and the Blu-ray table: built once per view."""
    catalog = view_catalog(custom)
    bars = cliff_bars(catalog, gpu_id, nic_id, direction=direction, basis=basis, nics_per_node=nics)
    # A disc goes one way: its time is one direction's rate, whichever direction the bars show.
    one_way = cliff_bars(catalog, gpu_id, nic_id, direction="per_direction", basis=basis, nics_per_node=nics)
    table_unit = "GBps" if unit_key == "bluray" else unit_key  # the next column already counts discs
    blu_ray = markdown_table(pd.DataFrame({
        "Link": [bar.label for bar in bars],
        "Bandwidth": [bar_text(replace(bar, basis=basis), table_unit, direction, basis)
                      for bar in bars],  # the basis has its own column
        "One Blu-ray takes (one way)": [format_duration(transfer_time(bar.bandwidth)) for bar in one_way],
        "Basis": [bar.basis for bar in bars],
    }))
    return bars, "\n\n".join(_bar_source(bar, catalog) for bar in bars), blu_ray


class _Hardware(NamedTuple):
    """What the first row of controls chose: the GPU, the NIC (None: its server's own) and the catalog with them."""

    gpu: Gpu
    nic_id: str | None
    catalog: Catalog
    custom_key: tuple
    nics_column: Any  # where the NIC count is drawn (by the fragment that follows it)


def _hardware_controls(state: PageState) -> _Hardware:
    """The GPU and network card pickers (and a custom GPU's or NIC's fields while in use); the NIC count's
    column is returned for :func:`_nics_input`."""
    catalog = get_catalog()
    custom_nic_chosen = state["nic"] == "custom"
    # The custom rate's column exists only while it is in use, so the NIC count keeps room for "8 (auto)".
    columns = st.columns([2, 2, 1.3, 1.3] if custom_nic_chosen else [2, 2, 1.3])
    left, middle, right = columns[0], columns[1], columns[-1]
    gpu = gpu_picker(state, catalog=catalog, container=left)
    custom_gpu_controls(state, catalog)
    custom_key = ()
    if gpu.id == CUSTOM_GPU_ID or custom_nic_chosen:
        custom_key = (tuple((key, state[key]) for key in ("gpu", *CUSTOM_GPU_KEYS)) if gpu.id == CUSTOM_GPU_ID else (),
                      state["nic_bw"] if custom_nic_chosen else "",
                      state["gpu_base"] if gpu.id == CUSTOM_GPU_ID else gpu.id)
    catalog = view_catalog(custom_key)
    node = catalog.reference_node(gpu.id)
    nics = catalog.nics()
    nic_names = {"auto": f"As in its server: {short_link_name(nics[node.nic].name)}",
                 **{nic_id: link.name for nic_id, link in nics.items() if nic_id != CUSTOM_NIC_ID},
                 "custom": "Custom rate…"}
    nic_choice = middle.selectbox("Network card", list(nic_names), key=state.key("nic"), format_func=nic_names.get,
                                  help=f"The GPU's reference server is the {node.name}.")
    if custom_nic_chosen:  # in the link only while in use, so drawn only then
        columns[2].text_input("Custom NIC rate", key=state.key("nic_bw"),
                              help="Per direction, e.g. '800 Gbit/s' or '1.6 Tbit/s'.")
    nic_id = None if nic_choice == "auto" else CUSTOM_NIC_ID if custom_nic_chosen else nic_choice
    return _Hardware(gpu, nic_id, catalog, custom_key, right)


def _nics_input(state: PageState, hardware: _Hardware) -> None:
    """The NIC count, drawn in the last column of the hardware row."""
    gpu, catalog = hardware.gpu, hardware.catalog
    node = catalog.reference_node(gpu.id)
    auto_nics = server_nics(catalog, gpu.id, hardware.nic_id).nics
    hardware.nics_column.number_input(
        "NICs per server", **bounds(state, "nics"), step=1, key=state.key("nics"), placeholder=f"{auto_nics} (auto)",
        help=f"Empty: as many as the GPU's own server has ({node.name}: {node.nics}); one per GPU for another card.")


def _view_controls(state: PageState, library: str) -> None:
    """Direction, unit and basis: how the same figures are shown."""
    # One row of three (a horizontal container: one block, where three columns took four).
    a = b = c = st.container(horizontal=True)
    # Each radio stretches to a third, as the columns gave them.
    a.radio("Direction", list(DIRECTIONS), key=state.key("dir"), horizontal=True, width="stretch",
            format_func=lambda d: "Per direction" if d == "per" else "Both directions summed")
    b.radio("Unit", ["GBps", "Gbitps", "bluray"], key=state.key("unit"), horizontal=True, width="stretch",
            format_func={"GBps": "GB/s", "Gbitps": "Gbit/s", "bluray": "Blu-rays/s"}.get)
    c.radio("Figures", ["spec", "achieved"], key=state.key("basis"), horizontal=True, width="stretch",
            format_func={"spec": "Spec sheet", "achieved": f"What {library} achieves"}.get)


def _headline_metrics(gpu: Gpu, summary: CliffSummary, fmt_unit: str, node_bar, direction: str) -> None:
    """The ratio like for like, as often quoted, as achieved, and the whole server's egress as its bar shows it
    (``node_bar``: in the page's direction, unit and basis)."""
    brand, library, server = gpu.scaleup_brand.name, gpu.collective_library.name, summary.server
    # One row of four (a horizontal container: five elements a change, where five columns took nine).
    row = st.container(horizontal=True)
    row.metric("Like for like (per direction)", f"{summary.ratio_like_for_like:.3g} : 1",
               help=f"{brand} per GPU, per direction ÷ the network per GPU, per direction "
                    f"({server.nics} NICs shared by {server.gpus} GPUs).")
    row.metric("As often quoted", f"{summary.ratio_as_quoted:.3g} : 1",
               help=f"{brand} with both directions summed ÷ the network in one direction: mixes two conventions.")
    achieved = summary.ratio_achieved
    row.metric(f"What {library} achieves", f"{achieved:.3g} : 1" if achieved else "n/a",
               help=f"The scale-up rate {library} reaches ÷ what a collective library reaches per NIC, per GPU. "
                    "n/a where the catalog has no achieved figure for the GPU or the NIC.")
    how = "both directions summed" if direction == "both_directions" else "per direction"
    figures = f"what {library} achieves" if node_bar.basis == "achieved" else f"{node_bar.basis} figures"
    row.metric(f"Whole {server.word} out", format_bandwidth(node_bar.bandwidth, fmt_unit),
               help=f"All {server.nics} NICs of the {server.word} together, {how}, {figures}: the bar "
                    f"'{node_bar.label}'.")


def _network_words(summary: CliffSummary) -> str:
    """The network one GPU gets, in words: 'its own ... card', '3 RoCE v2 over 200 GbE ports', 'a 1/2 share ...'."""
    server, name, per_gpu = summary.server, short_link_name(summary.nic.name), summary.nics_per_gpu
    if per_gpu == 1:
        return f"its own {name} card"
    if per_gpu > 1 and per_gpu == int(per_gpu):
        return f"{int(per_gpu)} {name} ports"
    return f"a {server.nics}/{server.gpus} share of the {server.word}'s {name} cards"


def _corrected_lines(gpu: Gpu, summary: CliffSummary, catalog: Catalog) -> list[str]:
    """The popular ratio, the corrected one, the mesh caveat and the whole server, as Markdown paragraphs."""
    brand = gpu.scaleup_brand.name
    short_brand = short_link_name(brand)  # "Gaudi on-chip RoCE" once the full name has been given
    server, nic, node = summary.server, summary.nic, catalog.reference_node(gpu.id)
    up_pd = format_bandwidth(summary.scaleup_per_direction)
    up_both = format_bandwidth(summary.scaleup_both_directions)
    net_pd = format_bandwidth(summary.network_per_gpu_per_direction)
    net_bits = format_bandwidth(summary.network_per_gpu_per_direction, "bit/s")
    lines = [
        f"**Often quoted:** {gpu.name} has {up_both} of {brand} against {net_pd} for the network, "
        f"so the cliff is {summary.ratio_as_quoted:.3g} to 1.",
        f"**Corrected:** {up_both} is both directions added up; the network's {net_pd} ({net_bits}, "
        f"{_network_words(summary)}) is one direction. Like for like it is {up_pd} against {net_pd}: "
        f"**{summary.ratio_like_for_like:.3g} to 1**.",
    ]
    if summary.is_mesh and summary.scaleup_per_peer_per_direction is not None:
        peer = format_bandwidth(summary.scaleup_per_peer_per_direction)
        basis = gpu.scaleup_per_peer.basis if gpu.scaleup_per_peer else "spec"
        hedge = {"estimate": " (our estimate)", "measured": " (one measurement)"}.get(basis, "")
        lines.append(
            f"**A mesh, not a switch:** {short_brand} wires each GPU straight to its peers, so {up_pd} per "
            f"direction is the sum over all {server.gpus - 1} peers at once. To one neighbour a GPU sends {peer} "
            f"per direction{hedge}: {summary.ratio_one_peer:.3g} to 1 against its network."
        )
    if server.is_reference:
        how = f"the {node.name} has {server.nics} × {short_link_name(nic.name)} for its {server.gpus} GPUs"
    else:
        how = (f"with {server.nics} × {short_link_name(nic.name)} for its {server.gpus} GPUs (the {node.name} "
               f"ships with {node.nics} × {short_link_name(catalog.nics()[node.nic].name)})")
    lines.append(
        f"**And the {server.word} is not one NIC:** {how}, so it sends "
        f"{format_bandwidth(summary.node_egress_per_direction)} per direction, against "
        f"{format_bandwidth(summary.node_scaleup_per_direction)} of {short_brand} among its GPUs."
    )
    return lines


def _popular_claims(catalog: Catalog, gpu: Gpu, bars: list) -> None:
    """The popular figures about the links on the chart, each with what the sources say."""
    # A custom GPU only borrows its base's scale-up link: the popular figures about that link are not about it.
    claims = quoted_claims(catalog, [bar for bar in bars
                                     if gpu.id != CUSTOM_GPU_ID or bar.key not in ("scaleup", "peer")])
    if claims:
        st.subheader("Popular figures, checked")
        for link_name, claim in claims:
            with st.container(border=True):
                st.markdown(f"**Often quoted** ({claim['by']}, on {link_name}): {claim['claim']}")
                st.markdown(f"**What the sources say:** {claim['correction']}")


#: The label of the expander with every bar's sources; its key (not a link key) holds whether it is open.
SOURCES_LABEL = "Where every bar comes from"
SOURCES_KEY = "cliff-sources"


class _Slots(NamedTuple):
    """Places in the page, in reading order, that :func:`_nics_view` fills on every run of its own (it draws the
    NIC count in the hardware row, and the headline ratios and the live chart where it is called)."""

    bars: Any  # the bars chart (view=bars) and the note on achieved figures
    sources: Any  # the expander "Where every bar comes from" (drawn by the outer fragment, filled by this one
    # while open)
    blu_ray: Any  # the Blu-ray table


@st.fragment
def cliff_view(state: PageState) -> None:
    """The controls, the live chart, the headline ratio, the cliff chart, its sources and the Blu-ray table.

    Everything that follows the NIC count (the count itself, the live chart, the ratios, the bars, the
    Blu-ray table and the link) is the nested fragment :func:`_nics_view`, drawn into places this one
    keeps for it: a change of the count reruns only that, and leaves the pickers, the pop-overs and the
    popular figures, which do not depend on it, as they are.
    """
    with st.container():  # one place, however many fields a custom GPU or NIC adds, so the next stays put
        hardware = _hardware_controls(state)
        _view_controls(state, hardware.gpu.collective_library.name)
    gpu, catalog = hardware.gpu, hardware.catalog
    # The headline ratios and the 9:1 / 18:1 box first, on the first screen; the live chart under them.
    st.subheader("The headline ratio, two ways")
    # The nested fragment's own place, at the same position on every run: the ratios and the live chart are its
    # own body (each place it fills outside its body costs the browser one more block on every NIC count).
    live = st.container()
    # the same for every count: drawn here, not on every run of the nested fragment
    live_caption(state["basis"], DIRECTIONS[state["dir"]], gpu.collective_library.name)
    view_picker(state, CLIFF_VIEWS)  # the one further chart drawn below (view=)
    shown = shown_views(state, CLIFF_VIEWS)
    bars_slot = st.container()
    # The NIC card (not its count) and the links on the chart: the same for every NIC count.
    summary = cliff_summary(catalog, gpu.id, hardware.nic_id, nics_per_node=state["nics"])
    nic = summary.nic
    # The three pop-overs in one row (a horizontal container: one block, where three columns took four).
    popovers = st.container(horizontal=True)
    source_popover(gpu, f"Sources: {gpu.name}", catalog, container=popovers)
    source_popover(nic, f"Sources: {nic.name}", catalog, container=popovers)
    source_popover(catalog.link(gpu.scaleup_link), f"Sources: {catalog.link(gpu.scaleup_link).name}", catalog,
                   container=popovers)
    # Its text names the NIC count, so the nested fragment fills it; only while open (opening or closing it
    # reruns this fragment), so a first look and a change of the count do not send the long text.
    sources = st.expander(SOURCES_LABEL, key=SOURCES_KEY, on_change="rerun")
    bars = _bars_view(gpu.id, nic.id, summary.server.nics, DIRECTIONS[state["dir"]], state["unit"], state["basis"],
                      hardware.custom_key)[0]
    _popular_claims(catalog, gpu, bars)
    st.subheader("In human terms: how long to move one Blu-ray disc (50 GB)?")
    blu_ray = st.container()
    if "generations" in shown:  # it depends on no control, but is drawn only when asked for (view=generations)
        generations_section()
    with live:  # the ratios and the live chart are drawn there; the rest of what it draws goes to the slots
        _nics_view(state, hardware, shown, _Slots(bars_slot, sources, blu_ray))


@st.fragment
def _nics_view(state: PageState, hardware: _Hardware, shown: frozenset[str], slots: _Slots) -> None:
    """The NIC count and everything that follows it: the headline ratios and the live chart (and a typed rate that
    could not be used) where it is called, the rest each in its place (:class:`_Slots`)."""
    gpu, nic_id, catalog, custom_key = hardware.gpu, hardware.nic_id, hardware.catalog, hardware.custom_key
    _nics_input(state, hardware)
    state.sync_url()
    direction, unit_key, basis = DIRECTIONS[state["dir"]], state["unit"], state["basis"]
    summary = cliff_summary(catalog, gpu.id, nic_id, nics_per_node=state["nics"])
    server, nic = summary.server, summary.nic
    bars, bar_sources, blu_ray = _bars_view(gpu.id, nic.id, server.nics, direction, unit_key, basis, custom_key)
    _headline_metrics(gpu, summary, FORMAT_UNITS[unit_key], next(bar for bar in bars if bar.key == "node"),
                      direction)
    lines = _corrected_lines(gpu, summary, catalog)
    if gpu.id in ("h100-sxm", "h200") and nic.id == "ib-ndr" and summary.nics_per_gpu == 1:
        lines.append("*The 18:1 that is often quoted for H100 is the honest ratio for B200 (NVLink 5, 900 GB/s per "
                     "direction) against the same 400 Gbit/s card.*")
    with st.container(border=True):
        st.markdown("\n\n".join(lines))  # one element, the note on 18:1 included
    # the main chart, under the headline box, in the page's direction, unit and basis
    live_nics(state, catalog, summary, custom_key, direction=direction, unit=FORMAT_UNITS[unit_key], basis=basis)

    with slots.bars:
        if "bars" in shown:
            chart(_cliff_chart(gpu.id, nic.id, server.nics, direction, unit_key, basis, custom_key),
                  key="cliff-chart")
        if basis == "achieved":
            fallback = [bar.label for bar in bars if bar.basis != "achieved"]
            if fallback:
                st.caption("No achieved figure in the catalog for: " + "; ".join(fallback) + ". Their spec or "
                           "measured figure is shown, marked on its bar.")
    if slots.sources.open:
        slots.sources.markdown(bar_sources)  # one element: a fast redraw
    slots.blu_ray.markdown(blu_ray)  # a Markdown table: lighter for the browser than st.table


def generations_section() -> None:
    """The cliff of every GPU generation in its maker's server (no control changes it)."""
    st.subheader("The cliff across GPU generations")
    st.caption("Each GPU in the server its maker ships it in, per GPU: the network is that server's NICs shared out "
               "over its GPUs (Gaudi 3: 24 on-chip 200 GbE ports for 8 cards; GB200: 72 NICs for the 72 GPUs of an "
               "NVL72 rack). By release year; within a year, each maker's generations in order.")
    chart(_generations_chart(), key="generation-chart")


def layers_section() -> None:
    """One table per physical layer: what each link is, its medium and reach (no control changes it)."""
    st.subheader("What each link physically is")
    st.markdown("These are layers of one system, not rival products: a real cluster uses all of them at once.")
    tabs = st.tabs([LAYER_TITLES[layer] for layer in PHYSICAL_LAYERS])
    for tab, layer in zip(tabs, PHYSICAL_LAYERS, strict=True):
        # A Markdown table wraps long text (every column stays on screen at 1280 px) and costs the browser
        # less than st.table.
        tab.markdown(_layer_table(layer))
    st.caption("NVLink and NVSwitch are NVIDIA's; so, since NVIDIA bought Mellanox (closed April 2020), is most "
               "InfiniBand. RoCE v2 carries the same RDMA verbs over routable UDP/IP Ethernet. Infinity Fabric is "
               "AMD's; Gaudi's scale-up and scale-out ports are standard Ethernet (RoCE v2) on the chip itself.")


def render() -> None:
    """Draw the page: the bandwidth cliff at the edge of the server chassis.

    The controls and what they drive are one fragment (:func:`interconnect.topics.cliff.page.cliff_view`), so a
    change reruns only that part, with the one further chart chosen (``view=``); the layer tables below
    depend on no control.
    """
    page_setup("The bandwidth cliff",
               "How much a GPU can send to the other GPUs of its server, against what it can send anywhere else.")
    state = PageState("cliff", cliff_specs(), shared=CLIFF_SHARED)
    state.show_warnings()
    cliff_view(state)
    layers_section()
    footer()
