"""The All-reduce page's analysis: everything below the cluster box, as one Streamlit fragment.

Kept here rather than in ``pages/2_All_reduce.py`` so the page stays thin and so the cached
computations and the fragment are defined once per process, not on every rerun.

Speed (issue 16): a control of the analysis reruns only this fragment; the model's results and the
figures are cached by their inputs with ``st.cache_resource`` (shared between sessions, never copied
and never mutated here: a Plotly figure takes far longer to build or unpickle than to send), so a
control that does not change a chart does not rebuild it.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pandas as pd
import streamlit as st

from interconnect.figures.allreduce import (
    SHORT_NAMES,
    Overlay,
    busbw_figure,
    choice_label,
    node_count_figure,
    time_figure,
    traffic_figure,
)
from interconnect.io.nccl_tests import MAX_LOG_BYTES, NcclLogError, parse_nccl_tests
from interconnect.models.allreduce_view import (
    PLAYBOOK_CLUSTER,
    PLAYBOOK_SIZE,
    SMOL_PLAYBOOK_P5,
    SMOL_PLAYBOOK_URL,
    allreduce_view,
    hierarchical_speedup,
    measured_busbw_gbps,
    node_count_curve,
    p5_tuner_check,
    playbook_curve,
    traffic_per_gpu,
)
from interconnect.models.cluster import Cluster, resolve_cluster
from interconnect.models.collectives import (
    ALGORITHM_LABELS,
    ALLREDUCE_ALGORITHMS,
    allreduce,
    cluster_from_fit,
    compare_sweep,
    efficiency_vs_spec,
    hierarchical_traffic_claim,
    load_measurements,
)
from interconnect.ui.cluster import CLUSTER_HASH, set_cluster
from interconnect.ui.page import PageState, built_figure, chart, escape_markdown
from interconnect.ui.pagespecs import PROTOCOL_CHOICES, cluster_inputs
from interconnect.units import Q_, format_bandwidth, format_duration, format_size, parse_quantity

__all__ = ["analysis", "page_cluster"]

MEASUREMENTS = {m.id: m for m in load_measurements()}
PROTOCOL_NAMES = {"auto": "NCCL's choice", "LL": "LL (low latency)", "LL128": "LL128", "Simple": "Simple (bulk)"}


@st.cache_resource(max_entries=64, show_spinner=False)
def _resolve(gpu: str, inputs: tuple) -> tuple[Cluster, list[str]]:
    return resolve_cluster(gpu, **dict(inputs))


def page_cluster(values: dict) -> tuple[Cluster, list[str]]:
    """The cluster the page's values describe (cached by those values), and its warnings."""
    return _resolve(values["gpu"], tuple(sorted(cluster_inputs(values).items())))


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=CLUSTER_HASH)
def _view(cluster: Cluster, algorithm: str, protocol: str):
    return allreduce_view(cluster, algorithm, protocol)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=CLUSTER_HASH)
def _node_curve(cluster: Cluster, size_bytes: int, algorithm: str, protocol: str):
    return node_count_curve(cluster, size_bytes, algorithm=algorithm, protocol=protocol)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=CLUSTER_HASH)
def _time_and_busbw_figures(cluster: Cluster, algorithm: str, protocol: str, overlay_id: str, log_key: str,
                            _log_overlay: Overlay | None):
    view = _view(cluster, algorithm, protocol)
    overlays = []
    if overlay_id != "none":
        measurement = MEASUREMENTS[overlay_id]
        ranks = measurement.cluster().ranks
        overlays.append(Overlay(f"measured: {measurement.system}", measurement.size_bytes, measurement.time_us,
                                measured_busbw_gbps(measurement.size_bytes, measurement.time_us, ranks)))
    if _log_overlay is not None:
        overlays.append(_log_overlay)
    label = choice_label(algorithm, protocol)
    return time_figure(view, overlays, chosen_label=label), busbw_figure(view, overlays, chosen_label=label)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=CLUSTER_HASH)
def _node_figure(cluster: Cluster, size_bytes: int, algorithm: str, protocol: str, size_label: str):
    curve = _node_curve(cluster, size_bytes, algorithm, protocol)
    return node_count_figure(curve, playbook_curve(), chosen_label=choice_label(algorithm, protocol),
                             size_label=size_label,
                             reference_band=SMOL_PLAYBOOK_P5,
                             reference_label="Smol Training Playbook, nccl-tests on AWS p5 (large messages)")


@st.cache_resource(max_entries=1, show_spinner=False)
def _p5_tuner_rows():
    return p5_tuner_check()


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=CLUSTER_HASH)
def _traffic_figure(cluster: Cluster, size_bytes: int):
    return traffic_figure(traffic_per_gpu(cluster, size_bytes), size_bytes)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=CLUSTER_HASH)
def _at_size(cluster: Cluster, size_bytes: int, algorithm: str, protocol: str):
    return allreduce(cluster, [size_bytes], algorithm, protocol=protocol)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=CLUSTER_HASH)
def _speedups(cluster: Cluster):
    return hierarchical_speedup(cluster)


@st.cache_resource(max_entries=16, show_spinner=False)
def _parse_log(data: bytes):
    return parse_nccl_tests(data)


def _use_measurement(state: PageState, nic_gbit_s: float, hop_latency_us: float) -> None:
    """Button callback: the fitted NIC rate and hop latency become the cluster's own (and the URL's)."""
    st.session_state[state.key("nic")] = "custom"
    st.session_state[state.key("nic_bw")] = f"{nic_gbit_s:g} Gbit/s"
    st.session_state[state.key("lat")] = f"{hop_latency_us:g} us"


def _set_playbook(state: PageState) -> None:
    """Button callback: the Ultra-Scale Playbook's cluster and message size."""
    set_cluster(state, dict(PLAYBOOK_CLUSTER))
    st.session_state[state.key("size")] = PLAYBOOK_SIZE


def _results_table(comparison, efficiency) -> pd.DataFrame:
    """The log against the model, row by row, in readable units."""
    return pd.DataFrame({
        "size": [format_size(Q_(float(s), "B")) for s in comparison.size_bytes],
        "measured time": [format_duration(Q_(float(t), "us")) for t in comparison.measured_time_us],
        "model time": [format_duration(Q_(float(t), "us")) for t in comparison.model_time_us],
        "model ÷ measured": [f"{r:.2f}" for r in comparison.time_ratio],
        "measured busbw": [format_bandwidth(Q_(float(b), "GB/s")) for b in comparison.measured_busbw_gbps],
        "model busbw": [format_bandwidth(Q_(float(b), "GB/s")) for b in comparison.model_busbw_gbps],
        "busbw ÷ spec": [f"{e:.0%}" for e in efficiency],
        "model's pick": [f"{SHORT_NAMES.get(a, a)} {p}" for a, p in
                         zip(comparison.algorithm, comparison.protocol, strict=True)],
    })


# One limit for logs, pasted or uploaded: the parser's MAX_LOG_BYTES (5 MiB), stated in the labels and in
# the parser's message. Streamlit's uploader takes whole megabytes, which its browser side counts as
# 1,000,000 bytes and its server as 1,048,576 bytes; the next whole number above the parser's limit lets
# every log the parser accepts through, and Streamlit's own "6MB per file" note is hidden.
LOG_LIMIT = f"{MAX_LOG_BYTES / 2**20:g} MiB"
_UPLOAD_CEILING_MB = math.ceil(MAX_LOG_BYTES / 1_000_000)
_UPLOAD_NOTE_CSS = ('<style>.st-key-allreduce-upload [data-testid="stFileUploaderDropzoneInstructions"] '
                    "{ display: none; }</style>")


def _log_section(state: PageState, cluster: Cluster, algorithm: str, protocol: str) -> Overlay | None:
    """Upload or paste an nccl-tests log: read it, compare, and offer to make its fit the cluster's own."""
    log_overlay = None
    with st.expander("Compare your own nccl-tests / rccl-tests output", expanded=False):
        st.markdown("Upload or paste the output of `all_reduce_perf` (text, or the JSON file written with `-J`), "
                    f"up to {LOG_LIMIT}. It is read here and never stored; set the cluster above to the system it "
                    "ran on.")
        st.markdown(_UPLOAD_NOTE_CSS, unsafe_allow_html=True)  # a constant of ours, never user input
        upload = st.file_uploader(f"nccl-tests output (up to {LOG_LIMIT})", key="allreduce.upload",
                                  max_upload_size=_UPLOAD_CEILING_MB)
        pasted = st.text_area("…or paste it", key="allreduce.paste", height=150, max_chars=MAX_LOG_BYTES)
        data = upload.getvalue() if upload is not None else pasted.encode("utf-8") if pasted.strip() else None
        if data is None:
            return None
        try:
            run = _parse_log(data)
        except NcclLogError as exc:
            st.error(f"Could not read this as nccl-tests output: {escape_markdown(str(exc))}")
            return None
        for warning in run.warnings:
            st.warning(escape_markdown(warning))
        if run.ranks and run.ranks != cluster.ranks:
            st.warning(f"The log has {run.ranks} ranks ({escape_markdown(run.ranks_source)}); "
                       f"the cluster above has {cluster.ranks}. Set GPUs per node and nodes to match.")
        times = run.time_us
        if not np.isfinite(times).any() and np.isfinite(run.inplace_time_us).any():
            st.info("The log has no out-of-place times; comparing its in-place column.")
            times = run.inplace_time_us
        try:
            comparison = compare_sweep(cluster, run.size_bytes, times, algorithm, protocol)
        except ValueError as exc:
            st.error(f"Could not compare this log with the model: {escape_markdown(str(exc))}")
            return None
        log_overlay = Overlay("your log", comparison.size_bytes, comparison.measured_time_us,
                              comparison.measured_busbw_gbps)
        f1, f2, f3, f4 = st.columns(4)
        f1.metric("Rows read", f"{comparison.size_bytes.size}")
        if comparison.fit is not None:
            f2.metric("Fitted latency", format_duration(Q_(comparison.fit.latency_us, "us")))
            f3.metric("Fitted bandwidth (algbw)", format_bandwidth(Q_(comparison.fit.bandwidth_gbps, "GB/s")))
        f4.metric("Model ÷ measured time (geomean)", f"{comparison.geomean_time_ratio:.2f}")
        if comparison.fit is not None and comparison.fit.points >= 2:
            measured = cluster_from_fit(cluster, comparison.fit, float(comparison.size_bytes.min()),
                                        float(comparison.size_bytes.max()), algorithm, protocol)
            if measured.nic_gbit_s is None:
                st.info(measured.note)
            else:
                st.markdown(
                    f"**Use my measurement:** the model reproduces this fit with NICs of "
                    f"**{measured.nic_gbit_s:g} Gbit/s** and **{measured.hop_latency_us:g} µs** of extra "
                    "latency per network hop. One click makes them this cluster's own; they travel in the "
                    "link (`nic=custom`, `nic_bw`, `lat`) to every page that times a collective.")
                if measured.note:
                    st.caption(escape_markdown(measured.note))
                if st.button("Use my measurement", key="allreduce.use_measurement", on_click=_use_measurement,
                             args=(state, measured.nic_gbit_s, measured.hop_latency_us)):
                    st.rerun()
        efficiency = efficiency_vs_spec(cluster, comparison.measured_busbw_gbps)
        st.dataframe(_results_table(comparison, efficiency), hide_index=True, width="stretch")
    return log_overlay


@st.fragment
def analysis(state: PageState) -> None:
    """Everything below the cluster box: the view controls and what they drive (one fragment)."""
    with st.container(border=True):
        s1, s2, s3, s4 = st.columns([2, 3, 2, 3])
        s1.text_input("Message size", key=state.key("size"),
                      help="For the summary, the cluster-size chart and the traffic chart.")
        s2.selectbox("Algorithm", ["auto", *ALLREDUCE_ALGORITHMS], key=state.key("algo"),
                     format_func=lambda a: "NCCL's choice" if a == "auto" else ALGORITHM_LABELS[a])
        s3.selectbox("Protocol", list(PROTOCOL_CHOICES), key=state.key("proto"), format_func=PROTOCOL_NAMES.get,
                     help="Force one as NCCL_PROTO does (many cloud guides set NCCL_PROTO=simple).")
        s4.selectbox("Overlay a published measurement", ["none", *MEASUREMENTS], key=state.key("overlay"),
                     format_func=lambda m: "None" if m == "none" else MEASUREMENTS[m].system)
    state.sync_url()
    values = state.values()
    cluster, _ = page_cluster(values)
    size_bytes = int(parse_quantity(values["size"], "size").quantity.to("B").magnitude)
    algorithm, protocol = values["algo"], values["proto"]
    label = choice_label(algorithm, protocol)

    at_size = _at_size(cluster, size_bytes, algorithm, protocol)
    m1, m2, m3, m4, m5 = st.columns(5)
    m1.metric("GPUs (ranks)", f"{cluster.ranks:,}")
    if not np.isfinite(at_size.time_us[0]):
        st.error(f"NCCL has no algorithm and protocol for {escape_markdown(label)} on this cluster (NVLS, NVLSTree "
                 "and SHARP run only with Simple; NVLS needs Hopper or newer and an NVSwitch domain).")
    else:
        m2.metric(f"Time at {format_size(Q_(size_bytes, 'B'))}",
                  format_duration(Q_(float(at_size.time_us[0]), "us")))
        m3.metric("busbw", format_bandwidth(Q_(float(at_size.busbw_gbps[0]), "GB/s")))
        chosen_name = str(at_size.algorithm[0])
        m4.metric(f"Algorithm · {at_size.protocol[0]}", SHORT_NAMES.get(chosen_name, chosen_name),
                  help=f"{label}: {ALGORITHM_LABELS.get(chosen_name, '')}, {at_size.protocol[0]} protocol. "
                       "The same choice as every chart below and the command line.")
    m5.metric("Server egress (achievable)", format_bandwidth(Q_(cluster.node_egress_gbps, "GB/s")))

    if values["overlay"] != "none":
        measurement = MEASUREMENTS[values["overlay"]]
        with st.container(border=True):
            st.markdown(f"**Overlay:** {escape_markdown(measurement.system)}. "
                        f"Source: {escape_markdown(measurement.source)}.")
            if measurement.assumption:
                st.caption("Assumed for the model: " + escape_markdown(measurement.assumption))
            if st.button("Set the cluster to this system", key="allreduce.set_overlay", on_click=set_cluster,
                         args=(state, dict(measurement.cluster_inputs))):
                st.rerun()

    log_overlay = _log_section(state, cluster, algorithm, protocol)
    log_key = "" if log_overlay is None else hashlib.sha1(log_overlay.time_us.tobytes()).hexdigest()
    time_fig, busbw_fig = built_figure("time and busbw", _time_and_busbw_figures, cluster, algorithm, protocol,
                                       values["overlay"], log_key, log_overlay) or (None, None)
    view = _view(cluster, algorithm, protocol)
    if time_fig is not None:
        chart(time_fig, key="allreduce-time")
    picks = ", ".join(f"{SHORT_NAMES.get(c.algorithm, c.algorithm)} {c.protocol} from "
                      f"{format_size(Q_(c.size_bytes, 'B'))}" for c in view.pick_changes)
    st.caption(
        f"Dotted: each algorithm on its own (the protocol NCCL's tuner would pick). Thick grey: {label}, the "
        "one number the summary above, every chart and the command line share"
        + (f"; it changes to {picks} (dotted verticals)" if picks else "") + ". "
        + ("Orange dashes: the fastest algorithm and protocol the model knows, where NCCL's tuner, which "
           "estimates without the pipeline start-up, picks a slower one. " if view.fastest_differs else "")
        + "Left of the shaded boundary the fixed latency of each step dominates; right of it, the bandwidth of "
        "the slowest link does. Flat ring and hierarchical are textbook schemes NCCL does not pick by name."
    )
    if busbw_fig is not None:
        chart(busbw_fig, key="allreduce-busbw")
    if view.above_wire_reason:
        st.caption("busbw above the ring limit is not a faster wire: " + escape_markdown(view.above_wire_reason)
                   + ".")
    with st.expander("algbw and busbw, as nccl-tests defines them"):
        st.markdown(
            "- **algbw** = message size ÷ time. It is what your training step sees, but it falls as the ring grows.\n"
            "- **busbw** = algbw × 2(n−1)/n for all-reduce: the load on the busiest link in a ring, comparable "
            "across rank counts and with the link's rate.\n"
            "- busbw can exceed the ring limit when the data crosses the bottleneck fewer times than a ring sends "
            "it: in-switch reduction (NVLS inside an NVSwitch domain, SHARP in InfiniBand switches) sends each "
            "GPU's data once, and on exactly two nodes a tree sends each byte across the network once per node. "
            "nccl-tests' own documentation gives only 2(n−1)/n, (n−1)/n and 1; a factor (n−1)/(n+1) for "
            "in-network reduction comes from an unmerged contributor pull request (nccl-tests #239) and the "
            "maintainer's reply in its thread, not from the tool."
        )
        st.markdown("Sources: [nccl-tests doc/PERFORMANCE.md](https://github.com/NVIDIA/nccl-tests/blob/master/"
                    "doc/PERFORMANCE.md); [nccl-tests #239](https://github.com/NVIDIA/nccl-tests/pull/239) "
                    "(open pull request); [nccl-tests #196](https://github.com/NVIDIA/nccl-tests/issues/196) "
                    "(two-node trees).")

    st.subheader("Spec against achievable")
    scaleup_spec = format_bandwidth(Q_(cluster.scaleup_spec_gbps, "GB/s"))
    scaleup_model = format_bandwidth(Q_(cluster.intra_bw_gbps, "GB/s"))
    nic_line = format_bandwidth(Q_(cluster.nic_line_gbps, "GB/s"))
    nic_model = format_bandwidth(Q_(cluster.nic_achieved_gbps, "GB/s"))
    devices = cluster.nic_devices_per_domain
    merged = (f" NCCL sees the {cluster.nics_per_node} NICs of a node as {devices} network devices of "
              f"{format_bandwidth(Q_(cluster.nic_device_gbps, 'GB/s'))} each (the ports next to one GPU merged), "
              "which is how NVLSTree can use all of them." if cluster.nics_per_domain > cluster.domain_size else "")
    st.markdown(
        f"The model runs on achievable rates, not datasheet ones: {escape_markdown(cluster.scaleup_link)} per GPU is "
        f"{scaleup_spec} per direction on paper and {scaleup_model} in the model (NCCL's own per-link figure); "
        f"each NIC is {nic_line} per direction on paper and {nic_model} in the model. Software reaching about "
        f"80 % of the wire is normal; the gap is protocol overhead, not a fault.{merged}"
    )

    _node_section(state, cluster, size_bytes, values["size"], algorithm, protocol, label)
    _traffic_section(cluster, size_bytes)


def _node_section(state: PageState, cluster: Cluster, size_bytes: int, size_text: str, algorithm: str,
                  protocol: str, label: str) -> None:
    st.subheader("Bigger clusters, lower bus bandwidth")
    published = playbook_curve()
    b1, b2 = st.columns([2, 5])
    if b1.button("Set the cluster to the Playbook's", key="allreduce.playbook", on_click=_set_playbook,
                 args=(state,)):
        st.rerun()
    b2.caption("AWS p5: 8 × H100 and 32 × 100 Gbit/s EFA per node, and the Playbook's 256 MB message. The "
               "Playbook says only \"1-64 nodes of 8xH100s\" on its cluster with EFA between nodes; the same team's "
               f"[Smol Training Playbook]({SMOL_PLAYBOOK_URL}) names AWS p5 with four 100G EFA adapters per GPU.")
    chart(_node_figure(cluster, size_bytes, algorithm, protocol, size_text), key="allreduce-nodes")
    st.caption(
        f"Thick line: {label} at every node count, the same computation as the summary above. Orange: "
        f"{published.label} and, shaded, the spread of its runs (5th to 95th percentile). "
        f"[{published.source_title}]({published.source_url}). {published.note} Blue band: the same team's "
        f"nccl-tests on AWS p5 ([Smol Training Playbook]({SMOL_PLAYBOOK_URL}), message size not stated)."
    )
    curve = _node_curve(cluster, size_bytes, algorithm, protocol)
    by_nodes = dict(zip(curve.node_counts.tolist(), curve.busbw_chosen.tolist(), strict=True))
    ratios = [(int(n), by_nodes[int(n)] / float(b)) for n, b in zip(published.x, published.busbw_gbps, strict=True)
              if int(n) in by_nodes and np.isfinite(by_nodes[int(n)])]
    tuner = _p5_tuner_rows()
    moved = [row for row in tuner if row.tuner_algorithm != row.model_algorithm]
    tuner_text = "; ".join(
        f"{row.nodes} nodes {SHORT_NAMES.get(row.model_algorithm, row.model_algorithm)}/{row.model_protocol} "
        f"{row.model_busbw_gbps:.0f} → {SHORT_NAMES.get(row.tuner_algorithm, row.tuner_algorithm)}/"
        f"{row.tuner_protocol} {row.tuner_busbw_gbps:.0f} GB/s" for row in moved)
    change = max((abs(row.tuner_busbw_gbps / row.model_busbw_gbps - 1) for row in tuner), default=0.0)
    low, high = published.low_gbps, published.high_gbps
    with st.container(border=True):
        st.markdown(
            "**Two publications, the same kind of machine, two curves.** The Ultra-Scale Playbook's 256 MB median "
            f"falls from {published.busbw_gbps[0]:.0f} GB/s on one node to {published.busbw_gbps[-1]:.3g} GB/s on "
            f"{published.x[-1]} (its runs spread from {low[-1]:.3g} to {high[-1]:.0f} GB/s there). The same team's "
            f"[Smol Training Playbook]({SMOL_PLAYBOOK_URL}) ran nccl-tests on AWS p5, very likely the same machines, "
            "and reports 480 GB/s on one node, 479 on two and 320-350 GB/s from 3 to 16 nodes. One idle p5 cluster "
            "cannot give both curves. The model is fitted to neither: its constants come from NCCL's source and "
            "other published runs.\n\n"
            "**What the model leaves out, and the evidence.** The model is one NCCL job on an idle, "
            "non-blocking fabric. On this cluster it gives "
            + ", ".join(f"{ratio:.2g}× the Playbook's median at {n} node{'s' if n > 1 else ''}" for n, ratio in ratios)
            + ". Where the two part, the evidence points away from NCCL's own cost terms:\n\n"
            "- *Congestion and a busy cluster.* The Playbook's runs spread from 12.5 to 177 GB/s at 64 nodes (5th "
            "to 95th percentile, from its chart data); the authors apologise for \"blocking most of the science "
            "cluster\" while they benchmarked. The fast end of that spread (177-219 GB/s from 4 to 64 nodes) stays "
            "near the model; the median does not.\n"
            "- *EFA at scale.* The same team's nccl-tests on AWS p5 hold 320-350 GB/s from 3 to 16 nodes (Smol "
            "Training Playbook), and NCCL's own latency terms, even with the 75 µs per hop that aws-ofi-nccl reports "
            "for p5, give about 2-3 ms for 256 MB at 64 nodes, not the 16 ms the 32.9 GB/s median implies.\n"
            "- *AWS's tuner.* From 3 nodes on, aws-ofi-nccl's tuner sets the algorithm on p5 from fixed (size, "
            "ranks) regions (`src/tuner/nccl_ofi_regions.cpp`): for 256 MB, Ring/LL128 at 4 and 8 nodes and "
            "Tree/LL128 from 16 on. On the Playbook's cluster those picks change the model's busbw by at most "
            f"{change:.0%} ({tuner_text or 'the model already picks them'}), nowhere near the gap to the median.\n"
            "- *Rail layout and placement.* The model assumes every rail reaches every node at full rate; the Smol "
            "Training Playbook warns that instances under different top-level switches see higher latency and "
            "lower bandwidth, and the Playbook does not say how its nodes were placed.\n"
            "- *Tree depth.* NCCL's trees and NVLSTree add a level per doubling of nodes; the model counts their "
            "latency and pipeline start-up, which is small at 256 MB.\n"
            "- *How it was measured.* The Playbook does not give its NCCL or plugin versions or its benchmark "
            "script; an older EFA stack measured on two p5 nodes (NCCL 2.18.5) was 1.7-2.2× slower at 64-256 MiB "
            "than a newer one (awsome-distributed-training)."
        )


def _traffic_section(cluster: Cluster, size_bytes: int) -> None:
    st.subheader("Bytes that leave the node")
    chart(_traffic_figure(cluster, size_bytes), key="allreduce-traffic")
    claim = hierarchical_traffic_claim(cluster.gpus_per_node, max(cluster.nodes, 2))
    with st.container(border=True):
        st.markdown(
            f"**Often quoted:** hierarchical all-reduce cuts inter-node traffic by about 87% on 8-node clusters.\n\n"
            f"**Under its real condition** (against a ring that ignores node boundaries, where every GPU's "
            f"{claim.flat_ring_fraction:.3g} × S crosses the network), {claim.gpus_per_node} GPUs per node and "
            f"{claim.nodes} nodes give **{claim.saving_vs_flat_ring:.1%}** less; the limit for many nodes is "
            f"1 − 1/g = {1 - 1 / claim.gpus_per_node:.1%}.\n\n"
            f"**Against what NCCL actually runs** (node-aware rings, {claim.node_aware_ring_fraction:.3g} × S per "
            f"GPU): **{claim.saving_vs_node_aware_ring:.1%}** less. The claim is not in the Ultra-Scale Playbook."
        )
    flat, nccl_ring = _speedups(cluster)
    with st.container(border=True):
        st.markdown(
            "**Often quoted:** hierarchical all-reduce gives about 2× the throughput of a flat all-reduce at 512 "
            f"GPUs.\n\n**In this model** ({flat.nodes} nodes × {cluster.gpus_per_node} = {flat.ranks} GPUs of this "
            f"cluster): against a node-unaware flat ring, **{flat.lowest:.2g}×** (at "
            f"{format_size(Q_(flat.lowest_at_bytes, 'B'))}) to **{flat.highest:.2g}×** (at "
            f"{format_size(Q_(flat.highest_at_bytes, 'B'))}); against NCCL's node-aware ring, "
            f"**{nccl_ring.lowest:.2g}×** to **{nccl_ring.highest:.2g}×**. The answer depends on the message size "
            "and on what \"flat\" means, and no source gives the 2× figure."
        )
