"""The cluster controls every collective-timing page shares (All-reduce, Overlap, Seating, ...).

One description of a cluster (GPU, GPUs per node, nodes, NIC, fabric, NVLink domain, SHARP) drawn
the same way on every page, with the same URL keys (:data:`~interconnect.ui.pagespecs.CLUSTER_KEYS`),
so a cluster chosen on one page is where the next page starts (the session carries it) and a
pasted link opens the cluster it names (the link always wins).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from interconnect.catalog import Catalog, get_catalog
from interconnect.hardware.cluster import FABRICS, Cluster, resolve_cluster
from interconnect.hardware.collectives.calibration import apply_calibration
from interconnect.hardware.custom import custom_gpu, custom_nic
from interconnect.inputs.cluster import (
    FABRIC_CHOICES,
    FABRIC_LABELS,
    LAUNCH_LABELS,
    calibration_inputs,
    cluster_inputs,
    cluster_widget_values,
)
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.more import KEEP_HIDDEN, lazy_expander, starts_open
from interconnect.ui.pickers import custom_gpu_controls, gpu_picker
from interconnect.ui.sources import source_popover
from interconnect.ui.state import PageState, bounds

#: How Streamlit's caches key a cluster: by its repr (every field, deterministic), one string. Without
#: it, Streamlit walks the frozen dataclass field by field on every call, a few ms per cached call.
CLUSTER_HASH = {Cluster: repr}

__all__ = ["calibration_controls", "cluster_controls", "cluster_line", "cluster_source_popovers", "nodes_input",
           "resolve_page_cluster", "set_cluster", "show_cluster_sources", "topology_controls"]


#: The cluster's secondary settings: drawn in the collapsed "More settings" expander under the main row.
MORE_KEYS = ("domain", "lat", "nics", "sharp", "cal", "net_eff", "up_eff", "xlat", "procs", "topo", "switch", "osub",
             "shared")


def cluster_controls(state: PageState, catalog: Catalog | None = None, *, title: str = "The cluster",
                     nodes_later: bool = False, lazy_more: bool = False) -> Any:
    """Draw the cluster widgets, bound to ``state``'s keys, in a bordered box.

    One row of main settings (GPU, GPUs per node, nodes, NIC and its custom rate, fabric) and a
    collapsed "More settings" expander with the rest, so the page's main chart fits above the fold at
    1440 x 900. The expander starts open when the session opened with any of its settings away from
    the default (a link that sets them shows them).

    With ``nodes_later`` the node count is left out and its column returned, for a fragment to draw it
    there with :func:`nodes_input`: a change of the node count then reruns that fragment, not the page.

    With ``lazy_more`` the expander's widgets are drawn only while it is open (opening or closing it reruns
    the page), each keeping its value while hidden (``persist_state="page"``): a page's first load then sends
    none of them. Without it (the default) they are always drawn, collapsed or not.
    """
    catalog = catalog or get_catalog()
    with st.container(border=True):
        st.markdown(f"**{title}**")
        # The custom rate sits in the main row while it is in use, in "More settings" otherwise (drawn on every
        # run, so the value a link gives it stays).
        custom_nic = state["nic"] == "custom"
        c1, c2, c3, c4, *c5, c6 = st.columns([3, 2, 2, 3, 2, 2.4] if custom_nic else [3, 2, 2, 3, 2.6])
        gpu_picker(state, catalog=catalog, container=c1)
        c2.number_input("GPUs per node", **bounds(state, "gpn"), step=1, key=state.key("gpn"))
        if not nodes_later:
            nodes_input(state, c3)
        nic_names = {"auto": "The GPU's usual NIC", "custom": "Custom rate…",
                     **{k: v.name for k, v in catalog.nics().items()}}
        c4.selectbox("NIC", list(nic_names), key=state.key("nic"), format_func=nic_names.get)
        if custom_nic:
            _nic_rate(state, c5[0], KEEP_HIDDEN if lazy_more else {})
        c6.selectbox("Fabric", list(FABRIC_CHOICES), key=state.key("fabric"), format_func=FABRIC_LABELS.get)
        custom_gpu_controls(state, catalog)
        label = "More settings: NVLink domain, hop latency, NICs per node, SHARP, topology, calibration"
        if lazy_more:
            more = lazy_expander(state, label, key=f"{state.page}-cluster-more", keys=MORE_KEYS)
            if more is not None:
                with more:
                    _more_controls(state, custom_nic, KEEP_HIDDEN)
        else:
            with st.expander(label, expanded=starts_open(state, "more_settings", MORE_KEYS)):
                _more_controls(state, custom_nic, {})
    return c3 if nodes_later else None


def _more_controls(state: PageState, custom_nic: bool, keep: dict[str, Any]) -> None:
    """The cluster's secondary settings, in "More settings"; ``keep`` goes to every widget (``persist_state``)."""
    n1, n2, n3, n4, *n5 = st.columns([2, 2.4, 2, 1.4] if custom_nic else [2, 2.4, 2, 1.4, 2])
    n1.number_input("NVLink domain (0 = usual)", **bounds(state, "domain"), step=1, key=state.key("domain"),
                    help="GPUs that share NVLink: 8 on an HGX board, 72 in a GB200 NVL72 rack.", **keep)
    n2.text_input("Extra latency per network hop", key=state.key("lat"), placeholder="the fabric's own",
                  help="Added to NCCL's own per-hop latency, e.g. '25 us'. Empty: the fabric's value ("
                       + ", ".join(f"{FABRIC_LABELS[name]} {model.hop_latency_us:g} µs"
                                   for name, model in FABRICS.items()) + ").", **keep)
    n3.number_input("NICs per node (0 = one per GPU)", **bounds(state, "nics"), step=1, key=state.key("nics"),
                    **keep)
    n4.toggle("SHARP", key=state.key("sharp"), help="In-network reduction in the InfiniBand switches.", **keep)
    if not custom_nic:
        _nic_rate(state, n5[0], keep)
    if "topo" in state.specs_by_key:
        topology_controls(state, nested=True, keep=keep)
    calibration_controls(state, keep=keep)


def nodes_input(state: PageState, container: Any) -> None:
    """The cluster's node count, in ``container`` (a column of the cluster box)."""
    container.number_input("Nodes", **bounds(state, "nodes"), step=1, key=state.key("nodes"))


def _nic_rate(state: PageState, container: Any, keep: dict[str, Any]) -> None:
    container.text_input("Custom NIC rate", key=state.key("nic_bw"), disabled=state["nic"] != "custom",
                         help="Per direction, e.g. '200 Gbit/s' or '25 GB/s'; used with NIC 'Custom rate…'.", **keep)


def calibration_controls(state: PageState, *, keep: dict[str, Any] | None = None) -> None:
    """The calibration from the viewer's own log and the launch mode (one row; they travel in the link).

    ``keep`` goes to every widget (``{"persist_state": "page"}`` where the row is drawn only while its expander
    is open)."""
    keep = keep or {}
    on = bool(state["cal"])
    if on:
        k1, k2, k3, k4, k5 = st.columns([2, 2, 2, 2, 3])
    else:
        k1, k2, k5 = st.columns([2, 6, 3])
    k1.toggle("Calibrated", key=state.key("cal"),
              help="Use a measured wire efficiency and extra latency (the All-reduce page fits them to your "
                   "nccl-tests log). The hardware stays what the catalog says.", **keep)
    if on:  # drawn only when on: the three numbers travel in the link only then (cal=1)
        k2.number_input("NIC % of line rate", **bounds(state, "net_eff"), step=1.0, key=state.key("net_eff"),
                        help="0: the fabric's own efficiency.", **keep)
        k3.number_input("Scale-up % of line rate", **bounds(state, "up_eff"), step=1.0,
                        key=state.key("up_eff"), help="0: the catalog's achievable rate.", **keep)
        k4.number_input("Extra µs per call", **bounds(state, "xlat"), step=1.0, key=state.key("xlat"),
                        **keep)
    else:
        k2.caption("Off: the model as sourced. The All-reduce page fits a wire efficiency and an extra latency to "
                   "your own log (\"Compare your own\") and sets them here.")
    k5.selectbox("Launch", list(LAUNCH_LABELS), key=state.key("procs"), format_func=LAUNCH_LABELS.get,
                 help="How the benchmark drives the GPUs. One process driving all of a node's GPUs spends about "
                      "4.2 µs issuing each GPU's call (33.7 µs at -g 8 on a DGX A100); back-to-back calls overlap "
                      "that with the GPUs' work, so no call is shorter.", **keep)


def topology_controls(state: PageState, *, nested: bool = False, keep: dict[str, Any] | None = None) -> None:
    """The cluster's optional fabric: topology, switch, leaf oversubscription, other traffic (one row).

    In its own expander, or, with ``nested`` (inside another expander, where Streamlit allows none), under
    a bold line with the same title. ``keep`` goes to every widget, as in :func:`calibration_controls`.
    """
    keep = keep or {}
    from interconnect.hardware.fabric import TOPOLOGY_LABELS, get_fabric_data

    switches = get_fabric_data().switches
    names = {"none": "No fabric modelled", **TOPOLOGY_LABELS}
    off = state["topo"] == "none"
    title = "Network fabric: none modelled (every NIC at its full rate)" if off else \
        f"Network fabric: {names[state['topo']].lower()}, {state['osub']:g}:1 at the leaves"
    if nested:
        st.markdown(f"**{title}**")
        _topology_row(state, names, switches, keep)
        return
    with st.expander(title, expanded=not off):
        _topology_row(state, names, switches, keep)


def _topology_row(state: PageState, names: dict, switches: dict, keep: dict[str, Any]) -> None:
    t1, t2, t3, t4 = st.columns([2.3, 4.5, 1.6, 1.6])  # the switch's name is long: "NVIDIA Quantum-2 QM9700 (NDR ...)"
    t1.selectbox("Fabric topology", list(names), key=state.key("topo"), format_func=names.get,
                 help="Rings and trees stay in their rail until the job outgrows one leaf group; all-to-all "
                      "crosses rails through the spine. 'No fabric modelled': every NIC gets its full rate.", **keep)
    off = state["topo"] == "none"
    t2.selectbox("Switch", list(switches), key=state.key("switch"), format_func=lambda i: switches[i].name,
                 disabled=off, **keep)
    t3.number_input("Leaf oversubscription", **bounds(state, "osub"), step=0.5, key=state.key("osub"),
                    disabled=off, help="Down : up at the leaves; 2 means 2:1.", **keep)
    t4.number_input("Spine used by others, %", **bounds(state, "shared"), step=5.0, key=state.key("shared"),
                    disabled=off, help="Share of the spine's capacity other jobs use while this one runs.",
                    **keep)


#: Session-state key of the clusters resolved in this session, by the inputs they were resolved from.
_RESOLVED = "cluster.resolved"
#: How many it keeps: a page's cluster and its uncalibrated twin, on each of a few pages visited in turn.
_RESOLVED_KEPT = 8


def resolve_page_cluster(values: dict[str, Any], *, calibrated: bool = True) -> tuple[Cluster, list[str]]:
    """The :class:`Cluster` the page's values describe, and warnings for anything clamped.

    The cluster is resolved (:func:`~interconnect.hardware.cluster.resolve_cluster`, the one clamp) once for
    each set of values and kept in the session under them: a page and its fragments ask for it as often as
    they draw it, and a rerun that changes no cluster input resolves nothing. ``calibrated=False`` gives the
    same cluster with the launch mode only (what a log is calibrated against).
    """
    calibration = calibration_inputs(values if calibrated else {**values, "cal": False})
    inputs = cluster_inputs(values)
    key = (values["gpu"], tuple(sorted(inputs.items())), tuple(sorted(calibration.items())))
    resolved = st.session_state.setdefault(_RESOLVED, {})
    if key not in resolved:
        cluster, warnings = resolve_cluster(values["gpu"], **inputs)
        while len(resolved) >= _RESOLVED_KEPT:
            resolved.pop(next(iter(resolved)))
        resolved[key] = (apply_calibration(cluster, **calibration), tuple(warnings))
    cluster, warnings = resolved[key]
    return cluster, list(warnings)


def set_cluster(state: PageState, inputs: dict[str, Any]) -> None:
    """Button callback: set the cluster widgets to a system given as ``resolve_cluster`` inputs."""
    for key, value in cluster_widget_values(inputs, tuple(get_catalog().nics())).items():
        st.session_state[state.key(key)] = value


def show_cluster_sources(cluster: Cluster, catalog: Catalog | None = None) -> None:
    """The cluster in one line and pop-overs with the sources of its GPU and NIC."""
    cluster_line(cluster)
    cluster_source_popovers(cluster, catalog)


def cluster_line(cluster: Cluster) -> None:
    """The cluster in one line (it names the node count; the pop-overs below it do not)."""
    st.caption(escape_markdown(cluster.describe()))


def cluster_source_popovers(cluster: Cluster, catalog: Catalog | None = None) -> None:
    """Pop-overs with the sources of the cluster's GPU and NIC (the same for every node count)."""
    catalog = catalog or get_catalog()
    row = st.container(horizontal=True)  # one block, where three columns took four; each button its own width
    gpu = catalog.gpu(cluster.gpu)
    if cluster.gpu_custom:  # the base's figures, the scale-up typed by the viewer
        gpu = custom_gpu(gpu, cluster.scaleup_spec_gbps, cluster.gpu_name)
    source_popover(gpu, f"Sources: {gpu.name}", catalog, container=row)
    if cluster.nic in catalog.nics():
        nic = catalog.nic(cluster.nic)
    else:  # a typed rate
        nic = custom_nic(cluster.nic_line_gbps * 8, catalog.nic(catalog.gpu(cluster.gpu).typical_nic))
    source_popover(nic, f"Sources: {nic.name}", catalog, container=row)
