"""The Fabric page's sections: the controls, the bill of materials, the picture, the published designs,
what the topology does to collectives, and the Playbook hypothesis.

The arithmetic is in :mod:`interconnect.hardware.fabric`; the pictures in :mod:`interconnect.topics.fabric.figures`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from interconnect.catalog import get_catalog
from interconnect.hardware.cluster import MAX_NODES
from interconnect.hardware.fabric import (
    DEFAULT_DISTANCES,
    TOPOLOGY_LABELS,
    Fabric,
    FabricError,
    build_fabric,
    get_fabric_data,
    server_inputs,
)
from interconnect.topics.fabric.figures import PATHS, fabric_figure, playbook_figure
from interconnect.topics.fabric.inputs import FABRIC_VIEWS, fabric_specs
from interconnect.topics.fabric.playbook import playbook_hypothesis
from interconnect.ui.charts import chart
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.diagram import diagram
from interconnect.ui.markdown import escape_markdown, markdown_table
from interconnect.ui.more import KEEP_HIDDEN, lazy_expander
from interconnect.ui.pages import link_to
from interconnect.ui.state import PageState, bounds
from interconnect.ui.views import shown_views, view_picker
from interconnect.units import Q_, format_bandwidth

__all__ = ["INTRO", "collectives_section", "controls", "designs_section", "fabric_from_values", "hypothesis_section",
           "more_settings", "picture_section", "summary_section"]

INTRO = (
    "Between the servers sits a network of switches in tiers. Each GPU's NIC goes to a **leaf**; leaves go up to "
    "**spines**, and when two tiers cannot reach every leaf, spines go up to **cores**. In a **rail-optimised** "
    "fabric, NIC *i* of every server in a group goes to the same leaf (rail *i*), so NCCL's rings stay on one "
    "leaf; a plain fat tree puts all of a server's NICs on one top-of-rack leaf. **Oversubscription** gives the "
    "servers more ports than the uplinks above them: cheaper, until traffic has to cross."
)


def controls(state: PageState) -> None:
    """The page's main inputs in a bordered box: GPUs, server, switch, topology (the tapers, tiers, rails
    and cable runs are in :func:`more_settings`, under the picture)."""
    catalog = get_catalog()
    switches = get_fabric_data().switches
    with st.container(border=True):
        st.markdown("**The cluster and its network**")
        c1, c2, c3, c4 = st.columns([2, 3, 3, 3])
        c1.number_input("GPUs", **bounds(state, "gpus"), step=8, key=state.key("gpus"))
        c2.selectbox("Server", list(catalog.nodes), key=state.key("server"),
                     format_func=lambda i: catalog.node(i).name)
        c3.selectbox("Switch", list(switches), key=state.key("switch"),
                     format_func=lambda i: switches[i].name.split(" (")[0])
        c4.selectbox("Topology", list(TOPOLOGY_LABELS), key=state.key("topo"), format_func=TOPOLOGY_LABELS.get)


#: The label of the collapsed "More settings" expander; its key (not a link key) holds whether it is open.
MORE_LABEL = "More settings: tapers, tiers, rails, cable runs"
MORE_KEY = "fabric-more"


def more_settings(state: PageState) -> None:
    """The tapers, tiers, rails and cable runs in a "More settings" expander, drawn right under the picture
    so that the picture comes first, under the main controls. The expander starts open when the session's
    link set any of them. Their values are in the session before they are drawn (``state``), so the
    picture above already uses them.

    Its widgets are drawn only while it is open (opening or closing it reruns the page); each keeps its value
    while hidden (``persist_state="page"``), so the fabric and the link still have it.
    """
    more = lazy_expander(state, MORE_LABEL, key=MORE_KEY, keys=_MORE_KEYS)
    if more is not None:
        with more:
            _more_controls(state)


def _more_controls(state: PageState) -> None:
    """What "More settings" holds: two rows of four, the cable runs leaving the last place empty."""
    d1, d2, d3, d4 = st.columns(4)
    d1.number_input("Leaf taper (x:1)", **bounds(state, "osub"), step=0.5, key=state.key("osub"),
                    help="Oversubscription at the leaves, down : up; 2 means 2:1.", **KEEP_HIDDEN)
    d2.number_input("Spine taper (x:1)", **bounds(state, "sosub"), step=0.5, key=state.key("sosub"),
                    help="Oversubscription at the spines (down : up), when there is a third tier.", **KEEP_HIDDEN)
    d3.selectbox("Tiers", ["auto", "2", "3"], key=state.key("tiers"),
                 format_func=lambda t: "Auto" if t == "auto" else t,
                 help="Auto: the fewest tiers that reach every leaf.", **KEEP_HIDDEN)
    d4.number_input("Rails", **bounds(state, "rails"), step=1, key=state.key("rails"),
                    help="Rails of a rail-optimised fabric; 0: automatic (the NIC count, at most 8).", **KEEP_HIDDEN)
    names = {"auto": "Usual", "rack": "In the rack (3 m)", "row": "Across a row (50 m)",
             "hall": "Across a hall (500 m)"}
    d5, d6, d7, _ = st.columns(4)
    for column, key, label in ((d5, "d1", "Server-leaf run"), (d6, "d2", "Leaf-spine run"),
                               (d7, "d3", "Spine-core run")):
        column.selectbox(label, list(names), key=state.key(key), format_func=names.get, **KEEP_HIDDEN)


#: The keys drawn in "More settings".
_MORE_KEYS = ("osub", "sosub", "tiers", "rails", "d1", "d2", "d3")
_FABRIC_KEYS = ("gpus", "server", "switch", "topo", "osub", "sosub", "tiers", "rails", "d1", "d2", "d3")


def fabric_from_values(values: dict[str, Any]) -> tuple[Fabric | None, list[str]]:
    """Build the fabric the page's values describe; ``(None, [reason])`` when it cannot be built.

    Cached by the values that define it (the path drawn is not one of them).
    """
    fabric, problems = _fabric_cached(tuple((key, values[key]) for key in _FABRIC_KEYS))
    return fabric, list(problems)


@st.cache_resource(show_spinner=False, max_entries=64)
def _fabric_cached(items: tuple) -> tuple[Fabric | None, tuple[str, ...]]:
    fabric, problems = _build(dict(items))
    return fabric, tuple(problems)


def _build(values: dict[str, Any]) -> tuple[Fabric | None, list[str]]:
    usual = DEFAULT_DISTANCES[values["topo"]]
    distances = tuple(usual[i] if values[k] == "auto" else values[k] for i, k in enumerate(("d1", "d2", "d3")))
    try:
        inputs, warnings = server_inputs(values["server"], values["gpus"], values["switch"], topology=values["topo"],
                                         oversubscription=(values["osub"], values["sosub"]), distances=distances,
                                         rails=values["rails"])
        tiers = 0 if values["tiers"] == "auto" else int(values["tiers"])
        return build_fabric(inputs, tiers=tiers), warnings
    except FabricError as exc:
        return None, [str(exc)]


def _watts(watts: float | None) -> str:
    if watts is None:
        return "not found"
    return f"{watts / 1e3:,.1f} kW" if watts >= 1e3 else f"{watts:,.0f} W"


def carries(medium) -> str:
    """What one plug of a tier's medium carries, in a few words: ``twin-port module, 2 x 400 Gbit/s links``."""
    kind = "cable plug" if medium.copper else "module"
    if medium.ports_per_plug > 1:
        rate = medium.rate_gbit_s / medium.ports_per_plug
        return f"twin-port {kind}, {medium.ports_per_plug} links of {rate:g} Gbit/s" if medium.ports_per_plug == 2 \
            else f"{kind} of {medium.ports_per_plug} links of {rate:g} Gbit/s"
    return f"{kind} of one {medium.rate_gbit_s:g} Gbit/s link"


def _modules_help(fabric: Fabric) -> str:
    parts = [f"{tier.name}: {tier.modules:,} ({carries(tier.medium)}), {tier.cables:,} cables"
             for tier in fabric.tiers if tier.medium is not None]
    return ("Modules and cables as bought: an optical link has a module at each end, and a twin-port module carries "
            f"two links (each on its own fibre). {fabric.links:,} links, {fabric.cables:,} cables. " + "; ".join(parts))


def summary_section(fabric: Fabric) -> None:
    """Headline figures, then the bill of materials per tier and the hops between two GPUs."""
    # One row of five (a horizontal container: six elements, where five columns took eleven).
    row = st.container(horizontal=True)
    row.metric("Switches", f"{fabric.switches:,}", help=f"{len(fabric.tiers)} tiers")
    row.metric("Links", f"{fabric.links:,}")
    row.metric("Optical modules", f"{fabric.modules:,}", help=_modules_help(fabric))
    row.metric("Power of modules and cables", _watts(fabric.media_power_w),
               help="Every plug bought (optical modules, active copper cables' ends), at the maker's figure.")
    row.metric("Bisection per GPU", format_bandwidth(Q_(fabric.bisection_per_gpu_gbit_s, "Gbit/s"), "bit/s"),
               help="Per direction, across the worst cut in half, per GPU of one half: "
                    f"{format_bandwidth(Q_(fabric.bisection_gbit_s, 'Gbit/s'), 'bit/s')} in all.")
    rows = []
    for tier in fabric.tiers:
        medium = tier.medium
        rows.append({
            "Tier": tier.name,
            "Switches": f"{tier.switches:,}",
            "Ports down / up (each)": f"{tier.down_ports} / {tier.up_ports}",
            "Links in": f"{tier.links_down:,} x {tier.down_gbit_s:g} Gbit/s",
            "Links up": f"{tier.links_up:,}" if tier.links_up else "none",
            "Taper": f"{tier.oversubscription:.2g}:1" if tier.up_ports else "top",
            "Medium (distance)": "nothing reaches" if medium is None else f"{medium.name} ({tier.distance})",
            "Modules / cables": f"{tier.modules:,} / {tier.cables:,}",
            "Power of the links in": _watts(tier.media_power_w),
        })
    st.markdown(markdown_table(pd.DataFrame(rows)))
    hop_names = {"same_rail": "Same rail, same group", "cross_rail": "Other rail, same group",
                 "cross_group": "Other leaf group", "cross_pod": "Other pod"}
    hops = fabric.hops()
    st.caption(
        "Switch hops between GPUs of two servers: " + "; ".join(f"{hop_names[k]} {v}" for k, v in hops.items())
        + (". On a rail-optimised fabric NCCL's PXN first moves data over NVLink to the GPU on the right rail, "
           "so a cross-rail message can take one hop instead of three." if fabric.inputs.topology == "rail-leaf-spine"
           else ".")
        + f" {fabric.groups:,} leaf group(s) of {fabric.servers_per_group:,} servers"
        + (f", {fabric.pods:,} pods." if len(fabric.tiers) == 3 else "."))
    for note in fabric.notes:
        st.caption(escape_markdown(note))
    with st.popover("Sources: switch and media"):
        catalog = get_catalog()
        switch = fabric.inputs.switch
        lines = [f"**{escape_markdown(switch.name)}**: {escape_markdown(switch.note)}"]
        lines += [f"- [{escape_markdown(catalog.source(s).title)}]({catalog.source(s).url})" for s in switch.sources]
        for tier in fabric.tiers:
            medium = tier.medium
            if medium is None:
                continue
            if medium.power_per_end_w is None:
                power = "power not found"
            else:
                power = f"{medium.power_per_end_w:g} W per plug"
                if medium.ports_per_plug > 1:
                    power += f", a {carries(medium)}"
                if medium.power_note:
                    power += f" ({escape_markdown(medium.power_note)})"
            lines.append(f"**{escape_markdown(medium.name)}** ({tier.name}): reach {medium.reach_m:g} m; {power}")
            lines += [f"- [{escape_markdown(catalog.source(s).title)}]({catalog.source(s).url})"
                      for s in tier.medium.sources]
        st.markdown("\n".join(lines))


def picture_section(state: PageState, fabric: Fabric) -> None:
    """The picture of the fabric with one path between two GPUs, and the choice of path."""
    st.radio("Path between two GPUs", list(PATHS), key=state.key("path"), format_func=PATHS.get, horizontal=True)
    diagram(_picture(fabric, state["path"]), key="fabric-picture")  # SVG: it needs no Plotly to appear
    st.caption("A sample of the fabric: at most three leaf groups, four servers each, eight rails, eight spines and "
               "four cores are drawn; the labels on the left give the real counts. Rail colours: NIC i of each "
               "server goes to the leaf of the same colour.")


@st.cache_resource(show_spinner=False, max_entries=64, hash_funcs={Fabric: repr})
def _picture(fabric: Fabric, path: str):
    """The picture, built once per fabric and path (a few hundred Plotly objects: about 0.1 s)."""
    return fabric_figure(fabric, path)


@st.cache_resource(show_spinner=False)
def _hypothesis():
    """The Playbook chart and table (Markdown): the same for every visitor."""
    rows, tapered = playbook_hypothesis()
    table = pd.DataFrame([{
        "Nodes": r.nodes,
        "Measured": f"{r.measured_gbps:g} GB/s",
        "Model, no fabric limit": f"{r.model_gbps:.0f} GB/s",
        "Share it behaves as if it had": f"{r.implied_share:.0%}",
        "As oversubscription alone": "none" if r.implied_share >= 0.95 else f"{r.implied_oversubscription:.1f}:1",
        "As other traffic alone": "none" if r.implied_share >= 0.95 else f"{r.implied_shared:.0%} of the spine",
    } for r in rows])
    return playbook_figure(rows, tapered), markdown_table(table)


def designs_section() -> None:
    """Published fabrics rebuilt from their stated inputs, with both sets of counts side by side."""
    table, sources = _designs_markdown()
    st.markdown(table)
    st.markdown(sources)
    st.caption("Switches and links per tier from the leaves up. The tests rebuild each design from the inputs its "
               "publication states; the table is the same comparison, run live.")


@st.cache_resource(show_spinner=False)
def _designs_markdown() -> tuple[str, str]:
    """The designs' table and their sources as Markdown: the same for every visitor."""
    catalog = get_catalog()
    rows = []
    for design in get_fabric_data().designs.values():
        fabric = build_fabric(design.inputs)
        model_switches = tuple(t.switches for t in fabric.tiers)
        model_links = tuple(t.links_down for t in fabric.tiers)
        same = design.reproduced_by(fabric)
        unstated = len(model_switches) - len(design.expected_switches)
        rows.append({
            "Design": design.name,
            "Inputs": f"{design.inputs.gpus:,} GPUs, {design.inputs.switch.name.split(' (')[0]}",
            "Published switches": " / ".join(f"{n:,}" for n in design.expected_switches)
            + (" / not stated" * unstated),
            "Model switches": " / ".join(f"{n:,}" for n in model_switches),
            "Published links": " / ".join(f"{n:,}" for n in design.expected_links),
            "Model links": " / ".join(f"{n:,}" for n in model_links),
            "Match": "yes" if same else "NO",
        })
    cited = dict.fromkeys(s for design in get_fabric_data().designs.values() for s in design.sources)
    return (markdown_table(pd.DataFrame(rows)),
            "Sources: " + "; ".join(f"[{escape_markdown(catalog.source(s).title)}]({catalog.source(s).url})"
                                    for s in cited))


def collectives_section(values: dict[str, Any], fabric: Fabric) -> None:
    """What this fabric does to a collective, and a link that opens All-reduce with it."""
    node = get_catalog().node(values["server"])
    topo = fabric.inputs.topology
    group = fabric.servers_per_group
    ratio = fabric.inputs.oversubscription_at(0)
    crossing = (f"where the leaves' **{ratio:g}:1** taper caps each NIC at {1 / ratio:.0%} of its rate"
                if ratio > 1 else "which at 1:1 takes nothing away (other traffic on the spine still would)")
    st.markdown(
        f"A ring or tree of NCCL follows the rails: on this fabric it stays under one set of leaves up to "
        f"**{group:,} servers**, then crosses the spine, {crossing}. All-to-all (expert parallelism) "
        + ("crosses the spine as soon as two servers take part: NIC *i* only reaches rail *i*."
           if topo == "rail-leaf-spine" else f"stays on a top-of-rack leaf up to {group:,} servers.")
    )
    query = {"gpu": node.gpu, "gpn": str(node.gpus), "nodes": str(min(fabric.inputs.servers, MAX_NODES)),
             "topo": topo, "switch": fabric.inputs.switch.id, "osub": f"{ratio:g}"}
    link_to("allreduce", "Open All-reduce on this cluster and fabric →", query_params=query)


def hypothesis_section(drawn: bool = True) -> None:
    """The Playbook's 256 MB curve against the model, and what taper or shared traffic would explain it;
    the chart only when ``drawn`` (view=playbook), the table and the reasoning always."""
    figure, table = _hypothesis()
    st.markdown(
        "The Ultra-Scale Playbook measured a 256 MB all-reduce falling from **436 GB/s** busbw on one node to "
        "**32.9 GB/s** on 64; the same team's later nccl-tests on its AWS p5 cluster report **320-350 GB/s** from 3 "
        "to 16 nodes, and the model follows the second. **Hypothesis, not a fit:** for each node count, the share of "
        "each NIC's rate the first curve behaves as if it had, and the taper or the other traffic that would cost "
        "exactly that on its own."
    )
    if drawn:
        chart(figure, key="fabric-playbook")
    st.markdown(table)
    st.markdown(
        "- **Oversubscription** (a taper in the fabric) gives a step and then a flat line (the dashed curves); the "
        "measured curve keeps falling, so one taper does not explain it, several nested ones could. Against it: the "
        "later 320-350 GB/s at 3-16 nodes on the same kind of cluster, which a taper below 16 nodes would have "
        "capped too. AWS does not publish the p5 fabric's oversubscription (not found).\n"
        "- **Shared traffic** (other jobs on the same spine, or a placement spread over more of it) would fall "
        "with node count as a job spans more of the fabric, and would vary from run to run: the Playbook's "
        "5th-95th percentile band is wide (12.5 to 177 GB/s at 64 nodes), which a fixed taper would not produce. "
        "Nothing the Playbook states measures it."
    )
    st.caption("Model: the All-reduce page's, on the Playbook's cluster as described there (AWS p5: 8 x H100, "
               "32 x 100 Gbit/s EFA per node), 256 MB. Dashed: the same model with a 2:1 or 7:1 taper beyond leaf "
               "groups of two servers, for comparison only.")


def render() -> None:
    """Draw the page: fabric. From GPUs to switches, optics and watts, and what the topology does to collectives.

    The arithmetic is in :mod:`interconnect.hardware.fabric`, the pictures in :mod:`interconnect.topics.fabric.figures`
    and the sections in :mod:`interconnect.topics.fabric.page`.
    """
    page_setup("Fabric: from GPUs to switches and optics",
               "Tiers, rails and oversubscription: the switches, links and watts of a GPU cluster's network, "
               "and what they do to collectives.")
    state = PageState("fabric", fabric_specs())
    state.show_warnings()
    controls(state)
    values = state.values()
    fabric, problems = fabric_from_values(values)
    for problem in problems:
        st.warning(escape_markdown(problem))
    if fabric is not None:
        picture_section(state, fabric)  # the main chart, under the main controls and above the fold
    more_settings(state)  # tapers, tiers, rails, cable runs: under the picture (their values are already in use above)
    view_picker(state, FABRIC_VIEWS)  # the one further chart drawn below (view=)
    st.markdown(INTRO)
    if fabric is not None:
        summary_section(fabric)
        st.subheader("What the topology does to collectives")
        collectives_section(values, fabric)
    st.subheader("Checked against published designs")
    designs_section()
    st.subheader("The Playbook's falling curve: a hypothesis")
    hypothesis_section("playbook" in shown_views(state, FABRIC_VIEWS))
    state.sync_url()
    footer()
