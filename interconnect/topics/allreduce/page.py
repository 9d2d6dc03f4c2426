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
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

from interconnect.catalog import get_catalog
from interconnect.hardware.accuracy import expected_text, seconds_in_unit_of
from interconnect.hardware.cluster import Cluster
from interconnect.hardware.collectives import (
    ALGORITHM_LABELS,
    ALLREDUCE_ALGORITHMS,
    COLLECTIVE_LABELS,
    allreduce,
    calibrate,
    compare_collective,
    efficiency_vs_spec,
    hierarchical_traffic_claim,
    load_measurements,
    normalize_collective,
)
from interconnect.hardware.collectives import collective as collective_model
from interconnect.hardware.collectives.accuracy import band_rows, collective_band, collective_expected
from interconnect.hardware.collectives.measurements import host_issue_us, launch_overhead_us
from interconnect.inputs.cluster import CLUSTER_KEYS, LAUNCH_LABELS
from interconnect.io.nccl_tests import MAX_LOG_BYTES, NcclLogError, parse_nccl_runs
from interconnect.topics.allreduce.figures import (
    SHORT_NAMES,
    Overlay,
    busbw_figure,
    choice_label,
    node_count_figure,
    time_figure,
    traffic_figure,
)
from interconnect.topics.allreduce.inputs import ALLREDUCE_VIEWS, PROTOCOL_CHOICES, allreduce_specs
from interconnect.topics.allreduce.page_live import live_caption, live_nodes
from interconnect.topics.allreduce.view import (
    PLAYBOOK_CLUSTER,
    PLAYBOOK_SIZE,
    SMOL_PLAYBOOK_P5,
    SMOL_PLAYBOOK_URL,
    allreduce_view,
    collective_view,
    hierarchical_speedup,
    launch_from_log,
    measured_busbw_gbps,
    node_count_curve,
    p5_tuner_check,
    playbook_curve,
    traffic_per_gpu,
    vendor_words,
)
from interconnect.ui.charts import built_figure, chart
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.cluster import (
    CLUSTER_HASH,
    cluster_controls,
    cluster_line,
    cluster_source_popovers,
    nodes_input,
    resolve_page_cluster,
    set_cluster,
)
from interconnect.ui.error_band import show_error_band
from interconnect.ui.heavy import run_heavy, waiting_notice
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.state import PageState
from interconnect.ui.views import shown_views, view_picker
from interconnect.units import Q_, format_bandwidth, format_duration, format_seconds, format_size, read_quantity

__all__ = ["node_count_fragment"]

MEASUREMENTS = {m.id: m for m in load_measurements()}
PROTOCOL_NAMES = {"auto": "The library's choice", "LL": "LL (low latency)", "LL128": "LL128", "Simple": "Simple (bulk)"}


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=CLUSTER_HASH)
def _view(cluster: Cluster, algorithm: str, protocol: str, coll: str = "all_reduce"):
    if coll != "all_reduce":
        return collective_view(cluster, coll)
    return allreduce_view(cluster, algorithm, protocol)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=CLUSTER_HASH)
def _node_curve(cluster: Cluster, size_bytes: int, algorithm: str, protocol: str):
    return node_count_curve(cluster, size_bytes, algorithm=algorithm, protocol=protocol)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=CLUSTER_HASH)
def _time_and_busbw_figures(cluster: Cluster, algorithm: str, protocol: str, coll: str, overlay_id: str,
                            log_key: str, _log: LogFit | None):
    view = _view(cluster, algorithm, protocol, coll)
    overlays = []
    if overlay_id != "none" and MEASUREMENTS[overlay_id].collective == coll:
        measurement = MEASUREMENTS[overlay_id]
        ranks = measurement.cluster().ranks
        overlays.append(Overlay(f"measured: {measurement.system}", measurement.size_bytes, measurement.time_us,
                                measured_busbw_gbps(measurement.size_bytes, measurement.time_us, ranks)))
    floor = plateau = None
    if _log is not None and _log.collective == coll:
        overlays.append(_log.overlay)
        floor, plateau = _log.calibration.latency_floor_us, _log.calibration.plateau_busbw_gbps
    label = choice_label(algorithm if coll == "all_reduce" else "auto", protocol if coll == "all_reduce" else "auto",
                         vendor_words(cluster).library)
    words = vendor_words(cluster)
    return (time_figure(view, overlays, chosen_label=label, floor_us=floor, words=words),
            busbw_figure(view, overlays, chosen_label=label, plateau_gbps=plateau, words=words))


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=CLUSTER_HASH)
def _node_figure(cluster: Cluster, size_bytes: int, algorithm: str, protocol: str, size_label: str):
    curve = _node_curve(cluster, size_bytes, algorithm, protocol)
    return node_count_figure(curve, playbook_curve(),
                             chosen_label=choice_label(algorithm, protocol, vendor_words(cluster).library),
                             size_label=size_label,
                             reference_band=SMOL_PLAYBOOK_P5,
                             reference_label="Smol Training Playbook, nccl-tests on AWS p5 (large messages)",
                             words=vendor_words(cluster))


@st.cache_resource(max_entries=1, show_spinner=False)
def _p5_tuner_rows():
    return p5_tuner_check()


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=CLUSTER_HASH)
def _traffic_figure(cluster: Cluster, size_bytes: int):
    return traffic_figure(traffic_per_gpu(cluster, size_bytes), size_bytes, words=vendor_words(cluster))


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=CLUSTER_HASH)
def _at_size(cluster: Cluster, size_bytes: int, algorithm: str, protocol: str):
    return allreduce(cluster, [size_bytes], algorithm, protocol=protocol)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=CLUSTER_HASH)
def _speedups(cluster: Cluster):
    return hierarchical_speedup(cluster)


def _parse_log(data: bytes):
    """The runs of a pasted or uploaded log, parsed once per content: the cache is keyed by the bytes' SHA-256 (a
    5 MiB paste is not rehashed by Streamlit on every run) and keeps a log that could not be read as its message,
    so a bad paste is not parsed again on each rerun. A parse runs in the server's one heavy-work slot."""
    with waiting_notice("Reading the log"):
        runs, problem = _parsed(hashlib.sha256(data).hexdigest(), data)
    if problem is not None:
        raise NcclLogError(problem)
    return runs


@st.cache_data(max_entries=16, show_spinner=False)
def _parsed(digest: str, _data: bytes) -> tuple[list | None, str | None]:
    try:
        return run_heavy(parse_nccl_runs, _data), None
    except NcclLogError as exc:
        return None, str(exc)


class LogFit:
    """A log read on the page: its points, its collective and the calibration fitted to it."""

    def __init__(self, overlay: Overlay, collective: str, calibration) -> None:
        self.overlay = overlay
        self.collective = collective
        self.calibration = calibration


def _use_measurement(state: PageState, link: dict) -> None:
    """Button callback: the log's calibration becomes the cluster's (and the link's): cal, net_eff, up_eff, xlat."""
    st.session_state[state.key("cal")] = True
    for key in ("net_eff", "up_eff", "xlat"):
        st.session_state[state.key(key)] = float(link[key])


def _set_value(state: PageState, key: str, value: str) -> None:
    """Button callback: set one of the page's controls (the launch mode, the collective shown)."""
    st.session_state[state.key(key)] = value


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


def _log_inputs(tests: str) -> Any:
    """The log expander, its text and its two inputs (drawn by :func:`node_count_fragment`, which a node count change
    does not rerun); returns the place inside it where :func:`_log_section` writes what the log says."""
    with st.expander(f"Compare your own {tests} output", expanded=False):
        st.markdown(f"Upload or paste the output of `all_reduce_perf`, `all_gather_perf`, `reduce_scatter_perf`, "
                    f"`alltoall_perf` or `sendrecv_perf` (nccl-tests or rccl-tests text, or the JSON file written "
                    f"with `-J`), up to {LOG_LIMIT}. It is read here and never stored; set the cluster above to "
                    "the system it ran on.")
        st.markdown(_UPLOAD_NOTE_CSS, unsafe_allow_html=True)  # a constant of ours, never user input
        st.file_uploader(f"{tests} output (up to {LOG_LIMIT})", key="allreduce.upload",
                         max_upload_size=_UPLOAD_CEILING_MB)
        st.text_area("…or paste it", key="allreduce.paste", height=150, max_chars=MAX_LOG_BYTES)
        return st.container()


def _log_section(state: PageState, values: dict, cluster: Cluster, algorithm: str, protocol: str, place: Any
                 ) -> LogFit | None:
    """The uploaded or pasted log (:func:`_log_inputs`): read it, compare it with the model of its collective,
    calibrate; what it says is drawn in ``place``."""
    words = vendor_words(cluster)
    upload = st.session_state.get("allreduce.upload")
    pasted = st.session_state.get("allreduce.paste") or ""
    data = upload.getvalue() if upload is not None else pasted.encode("utf-8") if pasted.strip() else None
    if data is None:
        return None
    with place:
        try:
            runs = _parse_log(data)
        except NcclLogError as exc:
            st.error(f"Could not read this as {words.tests} output: {escape_markdown(str(exc))}")
            return None
        index = 0
        if len(runs) > 1:
            names = [f"Run {i + 1}: {r.collective or 'collective not named'}, {r.size_bytes.size} rows, "
                     f"{r.ranks or '?'} ranks" for i, r in enumerate(runs)]
            st.info(f"This file holds {len(runs)} runs, each read with its own header; pick the one to compare.")
            index = st.selectbox("Run in this file", range(len(runs)), format_func=lambda i: names[i],
                                 key="allreduce.run")
        run = runs[index]
        for warning in run.warnings:
            st.warning(escape_markdown(warning))
        try:
            key = normalize_collective(run.collective) if run.collective else "all_reduce"
        except ValueError:
            st.error(f"The log holds {escape_markdown(run.collective or '')}, which the model does not time "
                     f"(it times {', '.join(COLLECTIVE_LABELS.values())}).")
            return None
        name = COLLECTIVE_LABELS[key]
        source = (f"`{escape_markdown(run.collective)}`" if run.collective
                  else "the log does not name it, so it is read as all-reduce")
        st.markdown(f"**Read: {name}** ({source}), {run.size_bytes.size} rows, "
                    f"{run.ranks or 'unknown'} ranks ({escape_markdown(run.ranks_source)}).")
        if run.ranks and run.ranks != cluster.ranks:
            st.warning(f"The log has {run.ranks} ranks; the cluster above has {cluster.ranks}. Set GPUs per node "
                       "and nodes to match.")
        launch, launch_source = launch_from_log(run.gpus_per_process, run.ranks)
        if run.gpus_per_process is not None and launch != values["procs"]:
            floor = host_issue_us(launch, run.gpus_per_process or 1)
            cost = (f"so no call is shorter than the host's time to issue it, about {floor:.2g} µs" if floor
                    else f"which adds about {launch_overhead_us(launch, run.gpus_per_process or 1):.2g} µs per call")
            st.info(f"How it was launched: {escape_markdown(launch_source)}, {cost}; the page models "
                    f"\"{LAUNCH_LABELS[values['procs']]}\".")
            if st.button(f"Model it as launched: {LAUNCH_LABELS[launch]}", key="allreduce.set_launch",
                         on_click=_set_value, args=(state, "procs", launch)):
                st.rerun()
        times = run.time_us
        if not np.isfinite(times).any() and np.isfinite(run.inplace_time_us).any():
            st.info("The log has no out-of-place times; comparing its in-place column.")
            times = run.inplace_time_us
        base, _ = resolve_page_cluster(values, calibrated=False)
        forced_algo = algorithm if key == "all_reduce" else "auto"
        forced_proto = protocol if key == "all_reduce" else "auto"
        try:
            comparison = compare_collective(cluster, key, run.size_bytes, times, forced_algo, forced_proto)
            calibration = calibrate(base, run.size_bytes, times, key, forced_algo, forced_proto)
        except ValueError as exc:
            st.error(f"Could not compare this log with the model: {escape_markdown(str(exc))}")
            return None
        overlay = Overlay("your log", comparison.size_bytes, comparison.measured_time_us,
                          comparison.measured_busbw_gbps)
        f1, f2, f3, f4 = st.columns(4)
        f1.metric("Rows read", f"{comparison.size_bytes.size}")
        if calibration.latency_floor_us is not None:
            f2.metric("Latency floor (measured)", format_duration(Q_(calibration.latency_floor_us, "us")),
                      help=f"Median time of the rows up to 8 KiB; the model gives "
                           f"{format_duration(Q_(calibration.model_latency_floor_us, 'us'))} uncalibrated.")
        if calibration.plateau_busbw_gbps is not None:
            f3.metric("Plateau busbw (measured)", format_bandwidth(Q_(calibration.plateau_busbw_gbps, "GB/s")),
                      help=f"Median busbw of the largest rows; the model gives "
                           f"{format_bandwidth(Q_(calibration.model_plateau_busbw_gbps, 'GB/s'))} uncalibrated.")
        f4.metric("Model ÷ measured time (geomean)", f"{comparison.geomean_time_ratio:.2f}")
        with st.container(border=True):
            st.markdown("**What the log says about this system** (red lines on the charts: the latency floor "
                        "and the plateau)\n\n" + "\n".join(f"- {escape_markdown(s)}" for s in calibration.sentences()))
            if calibration.changes_anything:
                link = calibration.link_values()
                applied = values["cal"] and all(abs(float(values[k]) - float(link[k])) < 0.05
                                                for k in ("net_eff", "up_eff", "xlat"))
                if applied:
                    st.caption("This calibration is in use: every page that times a collective uses it, through "
                               "the link (`cal`, `net_eff`, `up_eff`, `xlat`).")
                elif st.button("Use my measurement", key="allreduce.use_measurement", on_click=_use_measurement,
                               args=(state, link), help="The hardware stays what it is; the wire efficiency and "
                               "the extra latency go in the link and every page that times a collective uses them."):
                    st.rerun()
        efficiency = efficiency_vs_spec(cluster, comparison.measured_busbw_gbps)
        st.dataframe(_results_table(comparison, efficiency), hide_index=True, width="stretch")
        if key != values["coll"]:
            st.info(f"The charts below show {COLLECTIVE_LABELS[values['coll']]}; this log is {name}.")
            if st.button(f"Show the {name} view", key="allreduce.show_collective", on_click=_set_value,
                         args=(state, "coll", key)):
                st.rerun()
    return LogFit(overlay, key, calibration)


class _Slots(NamedTuple):
    """Places in the page, in reading order, that :func:`_cluster_analysis` fills on every run of its own (its
    own body, where it is called, holds the cluster's warnings and the live chart)."""

    cluster_line: Any  # the cluster in one line
    summary: Any  # a size typed that could not be used, the figures at the message size, the overlay's source
    log: Any  # inside the log expander: what the log says against the model
    by_size: Any  # the time and busbw charts and their captions
    nodes: Any  # the node-count chart (view=nodes)
    traffic: Any  # the traffic chart (view=traffic) and the claim about it that names the node count


@st.fragment
def node_count_fragment(state: PageState, nodes_column: Any) -> None:
    """Everything below the cluster box, and the node count in its column of the box.

    This fragment draws the view controls (collective, message size, algorithm, protocol, overlay, the
    chart picker) and what depends on no cluster size: the log's inputs, the definitions, the headings.
    The node count and everything the cluster drives are the nested fragment :func:`_cluster_analysis`,
    drawn into places kept here for it (:class:`_Slots`): a node count change reruns only that, and a
    view control reruns this fragment and so that one too.
    """
    values = state.values()
    cluster = resolve_page_cluster(values)[0]  # its GPU and NIC, which no node count changes
    words = vendor_words(cluster)  # the GPU's maker's words
    body = st.container()  # the nested fragment's own place, at the same position on every run
    live_caption()
    view_picker(state, ALLREDUCE_VIEWS)  # the one further chart drawn below (view=), chosen here or in the link
    cluster_line = st.container()
    cluster_source_popovers(cluster)
    all_reduce = values["coll"] == "all_reduce"
    library = words.library
    with st.container(border=True):
        s0, s1, s2, s3, s4 = st.columns([2, 2, 3, 2.6, 3])
        s0.selectbox("Collective", list(COLLECTIVE_LABELS), key=state.key("coll"),
                     format_func=lambda c: COLLECTIVE_LABELS[c].capitalize(),
                     help="The time and bandwidth charts show this collective, with the algorithms the library "
                          "would choose; the cluster-size and traffic sections below are all-reduce.")
        s1.text_input("Message size", key=state.key("size"),
                      help="For the summary, the cluster-size chart and the traffic chart.")
        s2.selectbox("Algorithm", ["auto", *ALLREDUCE_ALGORITHMS], key=state.key("algo"), disabled=not all_reduce,
                     format_func=lambda a: f"{library}'s choice" if a == "auto" else ALGORITHM_LABELS[a],
                     help="Forcing one is modelled for all-reduce." if not all_reduce else None)
        s3.selectbox("Protocol", list(PROTOCOL_CHOICES), key=state.key("proto"),
                     format_func=lambda p: f"{library}'s choice" if p == "auto" else PROTOCOL_NAMES[p],
                     disabled=not all_reduce,
                     help="Force one as NCCL_PROTO does (many cloud guides set NCCL_PROTO=simple).")
        s4.selectbox("Overlay a published measurement", ["none", *MEASUREMENTS], key=state.key("overlay"),
                     format_func=lambda m: "None" if m == "none" else
                     f"{MEASUREMENTS[m].system} ({COLLECTIVE_LABELS[MEASUREMENTS[m].collective]})")
    summary = st.container()
    log = _log_inputs(words.tests)
    by_size = st.container()
    _definitions()
    # What no node count changes is drawn here, once per run of this fragment, not on every node count: the
    # rates, the two publications against the model (a curve over every node count) and the 512-GPU claim.
    size_bytes = int(read_quantity(values["size"], "size").to("B").magnitude)
    algorithm, protocol = (values["algo"], values["proto"]) if all_reduce else ("auto", "auto")
    st.subheader("Spec against achievable")
    _rates_text(cluster, library)
    _node_section_head(state)
    nodes = st.container()
    _publications_box(cluster, size_bytes, algorithm, protocol)
    st.subheader("Bytes that leave the node")
    traffic = st.container()
    _speedup_box(cluster)
    with body:
        _cluster_analysis(state, nodes_column, _Slots(cluster_line, summary, log, by_size, nodes, traffic))


@st.fragment
def _cluster_analysis(state: PageState, nodes_column: Any, slots: _Slots) -> None:
    """The node count and everything the cluster drives: the warnings and the live chart where it is called,
    the rest each in its place (:class:`_Slots`).

    Whether a run writes to a place depends only on what reruns the fragment around this one (the view, a
    pasted log), never on the node count: a run of this fragment alone writes to the places the last run
    wrote to, so none is claimed with a container of its own (two more blocks for the browser on every node
    count, where a place is filled or not; see :mod:`interconnect.ui.places`)."""
    nodes_input(state, nodes_column)
    values = state.values()
    cluster, cluster_warnings = resolve_page_cluster(values)
    for warning in cluster_warnings:
        st.warning(escape_markdown(warning))
    live_nodes(state, cluster)  # the main chart, under the cluster box and above the fold
    with slots.cluster_line:
        cluster_line(cluster)
    with slots.summary:
        state.sync_url()  # a message size that could not be used is reported here, under the controls
    coll = values["coll"]
    words = vendor_words(cluster)
    size_bytes = int(read_quantity(values["size"], "size").to("B").magnitude)
    algorithm, protocol = (values["algo"], values["proto"]) if coll == "all_reduce" else ("auto", "auto")
    label = choice_label(algorithm, protocol, words.library)

    if coll == "all_reduce":
        at_size = _at_size(cluster, size_bytes, algorithm, protocol)
    else:
        at_size = collective_model(cluster, coll, [size_bytes])
    with slots.summary:
        # One row of five (a horizontal container: six elements a change, where five columns took eleven).
        row = st.container(horizontal=True)
        row.metric("GPUs (ranks)", f"{cluster.ranks:,}")
        finite = bool(np.isfinite(at_size.time_us[0]))
        if finite:
            row.metric(f"Time at {format_size(Q_(size_bytes, 'B'))}",
                       format_duration(Q_(float(at_size.time_us[0]), "us")))
            row.metric("busbw", format_bandwidth(Q_(float(at_size.busbw_gbps[0]), "GB/s")))
            chosen_name = str(at_size.algorithm[0])
            row.metric(f"Algorithm · {at_size.protocol[0]}", SHORT_NAMES.get(chosen_name, chosen_name),
                       help=f"{label}: {ALGORITHM_LABELS.get(chosen_name, chosen_name)}, {at_size.protocol[0]} "
                            "protocol. The same choice as every chart below and the command line.")
        row.metric("Server egress (achievable)", format_bandwidth(Q_(cluster.node_egress_gbps, "GB/s")))
        if finite:
            band = collective_band(cluster, coll, size_bytes)
            read = collective_expected(band, float(at_size.time_us[0]), float(at_size.busbw_gbps[0])) or {}
            in_unit = seconds_in_unit_of(format_seconds, float(at_size.time_us[0]) * 1e-6)
            expected = expected_text((read.get("time"), lambda us: in_unit(us * 1e-6), ""),
                                     (read.get("busbw"), lambda gbps: format_bandwidth(Q_(gbps, "GB/s")), "busbw"))
            show_error_band(band, band_rows(band, size_bytes), "time, model / measured; busbw reads the inverse",
                            key="allreduce.band", expected=expected)
        if not finite:
            st.error(f"{words.library} has no algorithm and protocol for {escape_markdown(label)} on this cluster "
                     "(NVLS, NVLSTree and SHARP run only with Simple; NVLS needs Hopper or newer and an NVSwitch "
                     "domain).")
        if values["overlay"] != "none":
            _overlay_box(state, MEASUREMENTS[values["overlay"]])

    log = _log_section(state, values, cluster, algorithm, protocol, slots.log)
    # Only the secondary chart asked for is built and drawn (view=; a pasted log shows on the time chart).
    shown = shown_views(state, ALLREDUCE_VIEWS, wanted="time" if log is not None else None)
    by_size = bool({"time", "busbw"} & shown)
    log_key = "" if log is None else (log.collective + hashlib.sha1(log.overlay.time_us.tobytes()).hexdigest()
                                      + repr(log.calibration.link_values()))
    time_fig = busbw_fig = None
    if by_size:
        time_fig, busbw_fig = built_figure("time and busbw", _time_and_busbw_figures, cluster, algorithm, protocol,
                                           coll, values["overlay"], log_key, log) or (None, None)
    view = _view(cluster, algorithm, protocol, coll)
    with slots.by_size:
        if by_size and values["overlay"] != "none" and MEASUREMENTS[values["overlay"]].collective != coll:
            st.caption(f"The overlay is {COLLECTIVE_LABELS[MEASUREMENTS[values['overlay']].collective]}: it is "
                       "drawn on that collective's view.")
        if time_fig is not None and "time" in shown:
            chart(time_fig, key="allreduce-time")
        if by_size:
            _by_size_caption(view, words.library, label, coll, log)
        if busbw_fig is not None and "busbw" in shown:
            chart(busbw_fig, key="allreduce-busbw")
    # Under the busbw chart, or under the summary's busbw when no chart by size is drawn (whether it is said
    # depends on the node count; whether those charts are drawn does not).
    if view.above_wire_reason:
        (slots.by_size if by_size else slots.summary).caption(
            "busbw above the ring limit is not a faster wire: " + escape_markdown(view.above_wire_reason) + ".")
    with slots.nodes:
        _node_section(cluster, size_bytes, values["size"], algorithm, protocol, label, "nodes" in shown)
    with slots.traffic:
        _traffic_section(cluster, size_bytes, "traffic" in shown)


def _overlay_box(state: PageState, measurement: Any) -> None:
    """The published measurement overlaid on the charts: its system, source and assumption, and a button."""
    with st.container(border=True):
        st.markdown(f"**Overlay:** {escape_markdown(measurement.system)}. "
                    f"Source: {escape_markdown(measurement.source)}.")
        if measurement.assumption:
            st.caption("Assumed for the model: " + escape_markdown(measurement.assumption))
        if st.button("Set the cluster to this system", key="allreduce.set_overlay", on_click=set_cluster,
                     args=(state, dict(measurement.cluster_inputs))):
            st.rerun()


def _definitions() -> None:
    """algbw and busbw as nccl-tests defines them, with the sources (the same for every view)."""
    with st.expander("algbw and busbw, as nccl-tests defines them"):
        st.markdown(
            "- **algbw** = message size ÷ time. It is what your training step sees, but it falls as the ring grows.\n"
            "- **busbw** = algbw × 2(n−1)/n for all-reduce: the load on the busiest link in a ring, comparable "
            "across rank counts and with the link's rate.\n"
            "- busbw can exceed the ring limit when the data crosses the bottleneck fewer times than a ring sends "
            "it: in-switch reduction (NVLS inside an NVSwitch domain, SHARP in InfiniBand switches) sends each "
            "GPU's data once, and on exactly two nodes a tree sends each byte across the network once per node. "
            "nccl-tests keeps 2(n−1)/n for every all-reduce algorithm, as it cannot see which one the library chose "
            "(its maintainers, nccl-tests #366): under NVLS or SHARP, busbw is the link rate a ring would need "
            "for the same time, not the rate on the wire. The tool gives no other factor for in-network "
            "reduction; the one proposed in an unmerged pull request (#239) rested on a relation its author "
            "corrected in that thread."
        )
        st.markdown("Sources: [nccl-tests doc/PERFORMANCE.md](https://github.com/NVIDIA/nccl-tests/blob/master/"
                    "doc/PERFORMANCE.md); [nccl-tests #366](https://github.com/NVIDIA/nccl-tests/issues/366) "
                    "(busbw under NVLS); [nccl-tests #239](https://github.com/NVIDIA/nccl-tests/pull/239) "
                    "(open pull request); [nccl-tests #196](https://github.com/NVIDIA/nccl-tests/issues/196) "
                    "(two-node trees).")


def _rates_text(cluster: Cluster, library: str) -> None:
    """The model's achievable rates against the datasheet's, for the scale-up link and the NIC."""
    scaleup_spec = format_bandwidth(Q_(cluster.scaleup_spec_gbps, "GB/s"))
    scaleup_model = format_bandwidth(Q_(cluster.intra_bw_gbps, "GB/s"))
    nic_line = format_bandwidth(Q_(cluster.nic_line_gbps, "GB/s"))
    nic_model = format_bandwidth(Q_(cluster.nic_achieved_gbps, "GB/s"))
    devices = cluster.nic_devices_per_domain
    merged = (f" {library} sees the {cluster.nics_per_node} NICs of a node as {devices} network devices of "
              f"{format_bandwidth(Q_(cluster.nic_device_gbps, 'GB/s'))} each (the ports next to one GPU merged), "
              "which is how NVLSTree can use all of them." if cluster.nics_per_domain > cluster.domain_size else "")
    st.markdown(
        f"The model runs on achievable rates, not datasheet ones: {escape_markdown(cluster.scaleup_link)} per GPU is "
        f"{scaleup_spec} per direction on paper and {scaleup_model} in the model ({library}'s own per-link "
        "figure); "
        f"each NIC is {nic_line} per direction on paper and {nic_model} in the model. Software reaching about "
        f"80 % of the wire is normal; the gap is protocol overhead, not a fault.{merged}"
    )


def _by_size_caption(view: Any, library: str, label: str, coll: str, log: LogFit | None) -> None:
    """What the lines of the time and busbw charts are."""
    picks = ", ".join(f"{SHORT_NAMES.get(c.algorithm, c.algorithm)} {c.protocol} from "
                      f"{format_size(Q_(c.size_bytes, 'B'))}" for c in view.pick_changes)
    st.caption(
        f"Dotted: each algorithm on its own (the protocol {library}'s tuner would pick). Thick grey: "
        f"{label}, the one number the summary above, every chart and the command line share"
        + (f"; it changes to {picks} (dotted verticals)" if picks else "") + ". "
        + (f"Orange dashes: the fastest algorithm and protocol the model knows, where {library}'s tuner, which "
           "estimates without the pipeline start-up, picks a slower one. " if view.fastest_differs else "")
        + "Left of the shaded boundary the fixed latency of each step dominates; right of it, the bandwidth of "
        "the slowest link does."
        + (f" Flat ring and hierarchical are textbook schemes {library} does not pick by name."
           if coll == "all_reduce" else "")
        + (" Red dash-dots: your log's latency floor and plateau." if log is not None and log.collective == coll
           else "")
    )


def _node_section_head(state: PageState) -> None:
    """The cluster-size section's heading and the Playbook's cluster (the same for every cluster)."""
    st.subheader("Bigger clusters, lower bus bandwidth")
    b1, b2 = st.columns([2, 5])
    if b1.button("Set the cluster to the Playbook's", key="allreduce.playbook", on_click=_set_playbook,
                 args=(state,)):
        st.rerun()
    b2.caption("AWS p5: 8 × H100 and 32 × 100 Gbit/s EFA per node, and the Playbook's 256 MB message. The "
               "Playbook says only \"1-64 nodes of 8xH100s\" on its cluster with EFA between nodes; the same team's "
               f"[Smol Training Playbook]({SMOL_PLAYBOOK_URL}) names AWS p5 with four 100G EFA adapters per GPU.")


def _node_section(cluster: Cluster, size_bytes: int, size_text: str, algorithm: str, protocol: str, label: str,
                  drawn: bool) -> None:
    """The node-count chart and its caption, only when asked for (view=nodes)."""
    if not drawn:
        return
    published = playbook_curve()
    chart(_node_figure(cluster, size_bytes, algorithm, protocol, size_text), key="allreduce-nodes")
    st.caption(
        f"Thick line: {label} at every node count, the same computation as the summary above. Orange: "
        f"{published.label} and, shaded, the spread of its runs (5th to 95th percentile). "
        f"[{published.source_title}]({published.source_url}). {published.note} Blue band: the same team's "
        f"nccl-tests on AWS p5 ([Smol Training Playbook]({SMOL_PLAYBOOK_URL}), message size not stated)."
    )


def _publications_box(cluster: Cluster, size_bytes: int, algorithm: str, protocol: str) -> None:
    """The two publications against the model: the model's curve over every node count (it depends on the
    cluster's nodes, not on how many), so a node count change does not redraw it."""
    published = playbook_curve()
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


def _traffic_section(cluster: Cluster, size_bytes: int, drawn: bool) -> None:
    library = vendor_words(cluster).library
    if drawn:  # the chart only when asked for (view=traffic); the claims below are text
        chart(_traffic_figure(cluster, size_bytes), key="allreduce-traffic")
    claim = hierarchical_traffic_claim(cluster.gpus_per_node, max(cluster.nodes, 2))
    with st.container(border=True):
        st.markdown(
            f"**Often quoted:** hierarchical all-reduce cuts inter-node traffic by about 87% on 8-node clusters.\n\n"
            f"**Under its real condition** (against a ring that ignores node boundaries, where every GPU's "
            f"{claim.flat_ring_fraction:.3g} × S crosses the network), {claim.gpus_per_node} GPUs per node and "
            f"{claim.nodes} nodes give **{claim.saving_vs_flat_ring:.1%}** less; the limit for many nodes is "
            f"1 − 1/g = {1 - 1 / claim.gpus_per_node:.1%}.\n\n"
            f"**Against what {library} actually runs** (node-aware rings, {claim.node_aware_ring_fraction:.3g} × S per "
            f"GPU): **{claim.saving_vs_node_aware_ring:.1%}** less. The claim is not in the Ultra-Scale Playbook."
        )


def _speedup_box(cluster: Cluster) -> None:
    """The claim about 512 GPUs: its nodes repeated to 512 GPUs, so the node count does not change it."""
    library = vendor_words(cluster).library
    flat, nccl_ring = _speedups(cluster)
    with st.container(border=True):
        st.markdown(
            "**Often quoted:** hierarchical all-reduce gives about 2× the throughput of a flat all-reduce at 512 "
            f"GPUs.\n\n**In this model** ({flat.nodes} nodes × {cluster.gpus_per_node} = {flat.ranks} GPUs of this "
            f"cluster): against a node-unaware flat ring, **{flat.lowest:.2g}×** (at "
            f"{format_size(Q_(flat.lowest_at_bytes, 'B'))}) to **{flat.highest:.2g}×** (at "
            f"{format_size(Q_(flat.highest_at_bytes, 'B'))}); against {library}'s node-aware ring, "
            f"**{nccl_ring.lowest:.2g}×** to **{nccl_ring.highest:.2g}×**. The answer depends on the message size "
            "and on what \"flat\" means, and no source gives the 2× figure."
        )


def render() -> None:
    """Draw the page: what the bandwidth cliff costs an all-reduce, by algorithm, message size and cluster size.

    The cluster box reruns the whole page, except its node count. Everything below the box is one
    fragment (:func:`interconnect.topics.allreduce.page.node_count_fragment`) with the view controls; the node count and
    everything the cluster drives are another, nested in it, so a node count change reruns only what
    depends on the cluster and a view control reruns both.
    """
    page_setup("All-reduce: what the cliff costs",
               "Time, bandwidth and network traffic of an all-reduce, by algorithm, message size and cluster size.")
    catalog = get_catalog()
    state = PageState("allreduce", allreduce_specs(), shared=CLUSTER_KEYS)
    state.show_warnings()
    nodes_column = cluster_controls(state, catalog, nodes_later=True, lazy_more=True)
    node_count_fragment(state, nodes_column)  # the node count, the live chart, the sources and the analysis
    footer()
