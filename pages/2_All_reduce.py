"""Page: what the bandwidth cliff costs an all-reduce, by algorithm, message size and cluster size."""

import math

import numpy as np
import pandas as pd
import streamlit as st

from interconnect.allreduce_view import (
    allreduce_view,
    hierarchical_speedup,
    measured_busbw_gbps,
    node_count_curve,
    playbook_curve,
    traffic_per_gpu,
)
from interconnect.catalog import get_catalog
from interconnect.cluster import resolve_cluster
from interconnect.collectives import (
    ALGORITHM_LABELS,
    ALLREDUCE_ALGORITHMS,
    allreduce,
    compare_sweep,
    efficiency_vs_spec,
    hierarchical_traffic_claim,
    load_measurements,
)
from interconnect.figures_allreduce import Overlay, busbw_figure, node_count_figure, time_figure, traffic_figure
from interconnect.nccl_tests import MAX_LOG_BYTES, NcclLogError, parse_nccl_tests
from interconnect.pagespecs import FABRIC_CHOICES, allreduce_specs, cluster_inputs
from interconnect.streamlit_ui import PageState, escape_markdown, footer, gpu_picker, page_setup, source_popover
from interconnect.units import Q_, format_bandwidth, format_duration, format_size, parse_quantity

page_setup("All-reduce: what the cliff costs",
           "Time, bandwidth and network traffic of an all-reduce, by algorithm, message size and cluster size.")
catalog = get_catalog()
state = PageState("allreduce", allreduce_specs())
state.show_warnings()
MEASUREMENTS = {m.id: m for m in load_measurements()}
# One limit for logs, pasted or uploaded: the parser's MAX_LOG_BYTES (5 MiB), stated in the labels and in
# the parser's message. Streamlit's uploader takes whole megabytes, which its browser side counts as
# 1,000,000 bytes (1,048,576 on Windows) and its server as 1,048,576 bytes; the next whole number above the
# parser's limit lets every log the parser accepts through, and its own "6MB per file" note is hidden.
LOG_LIMIT = f"{MAX_LOG_BYTES / 2**20:g} MiB"
UPLOAD_CEILING_MB = math.ceil(MAX_LOG_BYTES / 1_000_000)
UPLOAD_NOTE_CSS = ('<style>.st-key-allreduce-upload [data-testid="stFileUploaderDropzoneInstructions"] '
                   "{ display: none; }</style>")
SHORT_NAMES = {"flat_ring": "Flat ring", "ring": "Ring", "tree": "Tree", "hierarchical": "Hier.", "nvls": "NVLS",
               "nvls_tree": "NVLSTree", "collnet": "SHARP", "none": "none"}


def use_measurement_cluster(measurement_id: str) -> None:
    """Button callback: set the cluster controls to the system a published sweep was measured on."""
    inputs = dict(MEASUREMENTS[measurement_id].cluster_inputs)
    st.session_state[state.key("gpu")] = inputs["gpu"]
    st.session_state[state.key("gpn")] = int(inputs.get("gpus_per_node", 8))
    st.session_state[state.key("nodes")] = int(inputs.get("nodes", 1))
    nic = str(inputs.get("nic", "auto"))
    if nic in catalog.nics():
        st.session_state[state.key("nic")] = nic
    elif nic != "auto":
        st.session_state[state.key("nic")] = "custom"
        st.session_state[state.key("nic_bw")] = nic
    else:
        st.session_state[state.key("nic")] = "auto"
    st.session_state[state.key("nics")] = int(inputs.get("nics_per_node", 0))
    st.session_state[state.key("fabric")] = str(inputs.get("fabric", "auto"))
    st.session_state[state.key("domain")] = int(inputs.get("scaleup_domain", 0))
    st.session_state[state.key("sharp")] = bool(inputs.get("in_network_reduction", False))


with st.container(border=True):
    st.markdown("**The cluster**")
    c1, c2, c3, c4 = st.columns(4)
    gpu_picker(state, catalog=catalog, container=c1)
    c2.number_input("GPUs per node", min_value=1, max_value=1024, step=1, key=state.key("gpn"))
    c3.number_input("Nodes", min_value=1, max_value=100_000, step=1, key=state.key("nodes"))
    c4.number_input("NVLink domain (0 = usual)", min_value=0, max_value=576, step=1, key=state.key("domain"),
                    help="GPUs that share NVLink: 8 on an HGX board, 72 in a GB200 NVL72 rack.")
    n1, n2, n3, n4, n5 = st.columns([3, 2, 2, 2, 2])
    nic_names = {"auto": "The GPU's usual NIC", "custom": "Custom rate…",
                 **{k: v.name for k, v in catalog.nics().items()}}
    n1.selectbox("NIC", list(nic_names), key=state.key("nic"), format_func=nic_names.get)
    n2.text_input("Custom NIC rate", key=state.key("nic_bw"), disabled=state["nic"] != "custom",
                  help="Per direction, e.g. '200 Gbit/s' or '25 GB/s'.")
    n3.number_input("NICs per node (0 = one per GPU)", min_value=0, max_value=4096, step=1, key=state.key("nics"))
    n4.selectbox("Fabric", list(FABRIC_CHOICES), key=state.key("fabric"),
                 format_func=lambda f: {"auto": "From the NIC", "infiniband": "InfiniBand", "roce": "RoCE",
                                        "ethernet": "Ethernet (TCP)", "efa": "AWS EFA"}[f])
    n5.toggle("SHARP", key=state.key("sharp"), help="In-network reduction in the InfiniBand switches.")
    s1, s2, s3 = st.columns(3)
    s1.text_input("Message size for the summary and cluster-size charts", key=state.key("size"))
    s2.selectbox("Algorithm", ["auto", *ALLREDUCE_ALGORITHMS], key=state.key("algo"),
                 format_func=lambda a: "NCCL-like choice" if a == "auto" else ALGORITHM_LABELS[a])
    s3.selectbox("Overlay a published measurement", ["none", *MEASUREMENTS], key=state.key("overlay"),
                 format_func=lambda m: "None" if m == "none" else MEASUREMENTS[m].system)

state.sync_url()
values = state.values()
cluster, cluster_warnings = resolve_cluster(values["gpu"], **cluster_inputs(values))
for warning in cluster_warnings:
    st.warning(escape_markdown(warning))
size_bytes = int(parse_quantity(values["size"], "size").quantity.to("B").magnitude)
algorithm = values["algo"]

view = allreduce_view(cluster, algorithm)
at_size = allreduce(cluster, [size_bytes], algorithm)
st.caption(escape_markdown(cluster.describe()))
p1, p2, _ = st.columns([1, 1, 2])
source_popover(catalog.gpu(cluster.gpu), f"Sources: {catalog.gpu(cluster.gpu).name}", catalog, container=p1)
if cluster.nic in catalog.nics():
    source_popover(catalog.nic(cluster.nic), f"Sources: {catalog.nic(cluster.nic).name}", catalog, container=p2)
m1, m2, m3, m4, m5 = st.columns(5)
m1.metric("GPUs (ranks)", f"{cluster.ranks:,}")
m2.metric(f"Time at {format_size(Q_(size_bytes, 'B'))}", format_duration(Q_(float(at_size.time_us[0]), "us")))
m3.metric("busbw", format_bandwidth(Q_(float(at_size.busbw_gbps[0]), "GB/s")))
chosen_name = str(at_size.algorithm[0])
m4.metric(f"Algorithm · {at_size.protocol[0]}", SHORT_NAMES.get(chosen_name, chosen_name),
          help=f"{ALGORITHM_LABELS.get(chosen_name, '')}, {at_size.protocol[0]} protocol")
m5.metric("Server egress (achievable)", format_bandwidth(Q_(cluster.node_egress_gbps, "GB/s")))

overlays = []
if values["overlay"] != "none":
    measurement = MEASUREMENTS[values["overlay"]]
    ranks = measurement.cluster().ranks
    overlays.append(Overlay(f"measured: {measurement.system}", measurement.size_bytes, measurement.time_us,
                            measured_busbw_gbps(measurement.size_bytes, measurement.time_us, ranks)))
    with st.container(border=True):
        st.markdown(f"**Overlay:** {escape_markdown(measurement.system)}. "
                    f"Source: {escape_markdown(measurement.source)}.")
        if measurement.assumption:
            st.caption("Assumed for the model: " + escape_markdown(measurement.assumption))
        st.button("Set the cluster to this system", on_click=use_measurement_cluster, args=(measurement.id,))

uploaded_run = None
with st.expander("Compare your own nccl-tests / rccl-tests output", expanded=False):
    st.markdown("Upload or paste the output of `all_reduce_perf` (text, or the JSON file written with `-J`), "
                f"up to {LOG_LIMIT}. It is read here and never stored; set the cluster above to the system it ran on.")
    st.markdown(UPLOAD_NOTE_CSS, unsafe_allow_html=True)  # a constant of ours, never user input
    upload = st.file_uploader(f"nccl-tests output (up to {LOG_LIMIT})", key="allreduce.upload",
                              max_upload_size=UPLOAD_CEILING_MB)
    pasted = st.text_area("…or paste it", key="allreduce.paste", height=150, max_chars=MAX_LOG_BYTES)
    data = upload.getvalue() if upload is not None else pasted.encode("utf-8") if pasted.strip() else None
    if data is not None:
        try:
            with st.spinner("Reading the log…"):
                uploaded_run = parse_nccl_tests(data)
        except NcclLogError as exc:
            st.error(f"Could not read this as nccl-tests output: {escape_markdown(str(exc))}")
    comparison = None
    if uploaded_run is not None:
        for warning in uploaded_run.warnings:
            st.warning(escape_markdown(warning))
        if uploaded_run.ranks and uploaded_run.ranks != cluster.ranks:
            st.warning(f"The log has {uploaded_run.ranks} ranks ({escape_markdown(uploaded_run.ranks_source)}); "
                       f"the cluster above has {cluster.ranks}. Set GPUs per node and nodes to match.")
        times = uploaded_run.time_us
        if not np.isfinite(times).any() and np.isfinite(uploaded_run.inplace_time_us).any():
            st.info("The log has no out-of-place times; comparing its in-place column.")
            times = uploaded_run.inplace_time_us
        try:
            comparison = compare_sweep(cluster, uploaded_run.size_bytes, times, algorithm)
        except ValueError as exc:
            st.error(f"Could not compare this log with the model: {escape_markdown(str(exc))}")
            comparison = None
    if uploaded_run is not None and comparison is not None:
        overlays.append(Overlay("your log", comparison.size_bytes, comparison.measured_time_us,
                                comparison.measured_busbw_gbps))
        f1, f2, f3, f4 = st.columns(4)
        f1.metric("Rows read", f"{comparison.size_bytes.size}")
        if comparison.fit is not None:
            f2.metric("Fitted latency", format_duration(Q_(comparison.fit.latency_us, "us")))
            f3.metric("Fitted bandwidth (algbw)", format_bandwidth(Q_(comparison.fit.bandwidth_gbps, "GB/s")))
        f4.metric("Model ÷ measured time (geomean)", f"{comparison.geomean_time_ratio:.2f}")
        efficiency = efficiency_vs_spec(cluster, comparison.measured_busbw_gbps)
        st.dataframe(pd.DataFrame({
            "size": [format_size(Q_(float(s), "B")) for s in comparison.size_bytes],
            "measured time (µs)": comparison.measured_time_us,
            "model time (µs)": comparison.model_time_us,
            "measured busbw (GB/s)": comparison.measured_busbw_gbps,
            "model busbw (GB/s)": comparison.model_busbw_gbps,
            "busbw ÷ spec": efficiency,
            "model algorithm": comparison.algorithm,
        }), hide_index=True, width="stretch")

st.plotly_chart(time_figure(view, overlays), width="stretch", key="allreduce-time")
st.caption(
    "Dotted: each algorithm on its own (best protocol). Thick grey: what an NCCL-like chooser picks at each size. "
    "Left of the shaded boundary the fixed latency of each step dominates; right of it, the bandwidth of the "
    "slowest link does. Flat ring and hierarchical are textbook schemes NCCL does not pick by name."
)
st.plotly_chart(busbw_figure(view, overlays), width="stretch", key="allreduce-busbw")
with st.expander("algbw and busbw, as nccl-tests defines them"):
    st.markdown(
        "- **algbw** = message size ÷ time. It is what your training step sees, but it falls as the ring grows.\n"
        "- **busbw** = algbw × 2(n−1)/n for all-reduce: the load on the busiest link in a ring, comparable "
        "across rank counts and with the link's rate.\n"
        "- With in-switch reduction (NVLS inside an NVSwitch domain, SHARP in the InfiniBand fabric) each GPU "
        "sends its data once instead of 2(n−1)/n times, so busbw can exceed the wire rate (red triangles): it is "
        "no longer a wire speed. nccl-tests now documents a separate factor (n−1)/(n+1) for in-network reduction."
    )
    st.markdown("Source: [nccl-tests doc/PERFORMANCE.md](https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md)")

st.subheader("Spec against achievable")
scaleup_spec = format_bandwidth(Q_(cluster.scaleup_spec_gbps, "GB/s"))
scaleup_model = format_bandwidth(Q_(cluster.intra_bw_gbps, "GB/s"))
nic_line = format_bandwidth(Q_(cluster.nic_line_gbps, "GB/s"))
nic_model = format_bandwidth(Q_(cluster.nic_achieved_gbps, "GB/s"))
st.markdown(
    f"The model runs on achievable rates, not datasheet ones: {escape_markdown(cluster.scaleup_link)} per GPU is "
    f"{scaleup_spec} per direction on paper and {scaleup_model} in the model (NCCL's own per-link figure); "
    f"each NIC is {nic_line} per direction on paper and {nic_model} in the model. Software reaching about "
    f"80 % of the wire is normal; the gap is protocol overhead, not a fault."
)

st.subheader("Bigger clusters, lower bus bandwidth")
curve = node_count_curve(cluster, size_bytes)
published = playbook_curve()
st.plotly_chart(node_count_figure(curve, published), width="stretch", key="allreduce-nodes")
st.caption(f"Orange: {published.label}. [{published.source_title}]({published.source_url}). "
           f"{published.note} The model assumes a non-blocking fabric and this page's NICs, so a real cluster's "
           "curve can fall faster.")

st.subheader("Bytes that leave the node")
traffic = traffic_per_gpu(cluster, size_bytes)
st.plotly_chart(traffic_figure(traffic, size_bytes), width="stretch", key="allreduce-traffic")
claim = hierarchical_traffic_claim(cluster.gpus_per_node, max(cluster.nodes, 2))
with st.container(border=True):
    st.markdown(
        f"**Often quoted:** hierarchical all-reduce cuts inter-node traffic by about 87% on 8-node clusters.\n\n"
        f"**Under its real condition** (against a ring that ignores node boundaries, where every GPU's "
        f"{claim.flat_ring_fraction:.3g} × S crosses the network), {claim.gpus_per_node} GPUs per node and "
        f"{claim.nodes} nodes give **{claim.saving_vs_flat_ring:.1%}** less; the limit for many nodes is "
        f"1 − 1/g = {1 - 1 / claim.gpus_per_node:.1%}.\n\n"
        f"**Against what NCCL actually runs** (node-aware rings, {claim.node_aware_ring_fraction:.3g} × S per GPU): "
        f"**{claim.saving_vs_node_aware_ring:.1%}** less. The claim is not in the Ultra-Scale Playbook."
    )
flat, nccl_ring = hierarchical_speedup(cluster)


def _size_text(size: int) -> str:
    return format_size(Q_(size, "B"))


with st.container(border=True):
    st.markdown(
        "**Often quoted:** hierarchical all-reduce gives about 2× the throughput of a flat all-reduce at 512 GPUs.\n\n"
        f"**In this model** ({flat.nodes} nodes × {cluster.gpus_per_node} = {flat.ranks} GPUs of this cluster): "
        f"against a node-unaware flat ring, **{flat.lowest:.2g}×** (at {_size_text(flat.lowest_at_bytes)}) to "
        f"**{flat.highest:.2g}×** (at {_size_text(flat.highest_at_bytes)}); against NCCL's node-aware ring, "
        f"**{nccl_ring.lowest:.2g}×** to **{nccl_ring.highest:.2g}×**. The answer depends on the message size and "
        "on what \"flat\" means, and no source gives the 2× figure."
    )
footer()
