"""The Explain page: upload or paste a NCCL_DEBUG=INFO log; see what ran, each verdict with its line number.

Nothing from the log is rendered as HTML or Markdown markup: every piece of its text goes through
:func:`~interconnect.ui.markdown.escape_markdown` or into a dataframe cell.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from interconnect import site
from interconnect.hardware.collectives.accuracy import SIZE_BANDS
from interconnect.inputs.links import link_to_page
from interconnect.io.nccl_debug import NcclDebugError
from interconnect.io.nccl_tests import MAX_LOG_BYTES
from interconnect.topics.explain.figures import (
    fabric_figure,
    fabric_title,
    measured_figure,
    node_figure,
    node_title,
    untitled,
)
from interconnect.topics.explain.inputs import explain_specs
from interconnect.topics.explain.model import Explanation, explain_source
from interconnect.ui.charts import chart
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.error_band import keep_percents
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.state import PageState

# The same limit as the All-reduce page's log box: the nccl-tests reader's MAX_LOG_BYTES (5 MiB).
LOG_LIMIT = f"{MAX_LOG_BYTES / 2**20:g} MiB"
_UPLOAD_CEILING_MB = math.ceil(MAX_LOG_BYTES / 1_000_000)


@st.cache_data(max_entries=4, show_spinner=False)
def _explain(data: bytes) -> Explanation:
    return explain_source(data)


def _log_bytes() -> bytes | None:
    upload = st.session_state.get("explain.upload")
    pasted = st.session_state.get("explain.paste") or ""
    if upload is not None:
        return upload.getvalue()
    return pasted.encode("utf-8") if pasted.strip() else None


def _line_text(finding) -> str:
    where = f"line {finding.line}" if finding.line else "no line"
    return f"**{where}** · {escape_markdown(finding.text)}"


def _ranked(explanation: Explanation) -> None:
    ranked = explanation.ranked()
    if not ranked:
        return
    st.subheader("Look here first")
    st.caption("The log's warnings, most likely cause of a slow or failed job first (sockets between nodes, "
               "GPUDirect RDMA off, host memory instead of peer to peer, a node unlike its peers, a hang), then the "
               "rest; each with the line it rests on.")
    for number, finding in enumerate(ranked, start=1):
        st.markdown(f"{number}. {_line_text(finding)}")


def _findings(explanation: Explanation) -> None:
    st.subheader("What the log says")
    for finding in explanation.findings:
        text = _line_text(finding)
        if finding.warn:
            st.warning(text)
        else:
            st.markdown(f"- {text}")
    for assumption in explanation.assumptions:
        st.caption(escape_markdown(assumption))


def _tables(explanation: Explanation) -> None:
    if explanation.transports:
        st.subheader("Connections by transport")
        st.dataframe(pd.DataFrame([{
            "transport": row["transport"], "connection lines": row["connections"],
            # text in both cells: a column mixing blanks and numbers cannot be converted for the table
            "with GDRDMA": "" if row["gdr_on"] is None else str(row["gdr_on"]),
            "without GDRDMA": "" if row["gdr_off"] is None else str(row["gdr_off"]),
            "first line": row["line"], "as printed": row["as_printed"]} for row in explanation.transports]),
            hide_index=True)
    if explanation.nics:
        st.subheader("NICs that carry traffic")
        st.dataframe(pd.DataFrame([{
            "NIC": row["nic"], "device": row["name"] or "", "connection lines": row["connections"],
            "ranks": ", ".join(str(r) for r in row["ranks"]), "hosts": ", ".join(row["hosts"]),
            "first line": row["line"]} for row in explanation.nics]), hide_index=True)
    elif explanation.facts.get("nics_listed"):
        st.subheader("NICs listed")
        st.dataframe(pd.DataFrame({"NIC": explanation.facts["nics_listed"]}), hide_index=True)
    nodes = explanation.facts.get("per_node") or []
    if len(nodes) > 1:
        st.subheader("Node by node")
        st.caption("What each host's own lines show, the values the per-node checks compare (a node unlike its peers "
                   "first). Blank: not in that host's lines.")
        st.dataframe(pd.DataFrame([{
            "host": row["host"], "unlike its peers": ", ".join(row["unlike_peers"]),
            "NICs listed": "" if row["nics_listed"] is None else str(row["nics_listed"]),
            "NICs used": str(row["nics_used"]),
            "NIC port GB/s": ", ".join(f"{r:g}" for r in row["nic_port_gbytes"]),
            "connection lines": ", ".join(f"{t} {n}" for t, n in row["transports"].items()),
            "GDRDMA on/off": f"{row['gdr_on']}/{row['gdr_off']}" if row["gdr_on"] or row["gdr_off"] else "",
            "set-up s": "" if row["init_s"] is None else f"{row['init_s']:.3g}",
            "failure WARNs": str(row["failure_warns"])} for row in nodes]), hide_index=True)


def _drawing(explanation: Explanation) -> None:
    topo = explanation.topology
    if topo is None or topo.node is None:
        return
    st.subheader("The hardware as the log shows it")
    st.caption("In colour: what the log shows carrying traffic (GPU-to-GPU connections by transport, NICs with "
               "network connection lines, NVLS when its channels were built); grey and dotted: listed, but no "
               "connection line uses it. Only what the given lines show: one rank's excerpt draws that rank's "
               "connections.")
    # titles as text above each drawing, so that they wrap at any width (a Plotly title is one line, cut when wider)
    st.markdown(f"**{escape_markdown(node_title(topo))}**")
    chart(untitled(node_figure(topo)), "explain-node", exports=False)
    if len(topo.nodes) + topo.nodes_not_drawn > 1:
        st.markdown(f"**{escape_markdown(fabric_title(topo))}**")
        chart(untitled(fabric_figure(topo)), "explain-fabric", exports=False)
    for note in topo.notes:
        st.caption(escape_markdown(note))


def _measured(explanation: Explanation) -> None:
    measured = explanation.measured
    if not measured:
        return
    st.subheader("Measured against the model")
    chart(measured_figure(measured), "explain-busbw", exports=False)
    band = measured["bands"]
    # one size band after another, each its own sentence (a band's own text holds semicolons)
    words = " ".join(f"{SIZE_BANDS[name][0].upper()}{SIZE_BANDS[name][1:]}: "
                     f"{escape_markdown(keep_percents(b['text']))}."
                     for name, b in band.items())
    what = ("The log's nccl-tests rows (dots) over the model's busbw" if measured["rows"] else
            "The log holds no timed rows (COLL lines give sizes, not times): the diamonds mark the sizes the job "
            "used on the model's busbw")
    cluster = escape_markdown(measured["cluster"])
    st.caption(f"{what} on the cluster the log describes ({cluster}), shaded by the model's band: where the next "
               f"published table like this case would fall, by message size.\n\n{words}")


def _allreduce_link(explanation: Explanation) -> None:
    query = explanation.cluster_query
    if not query:
        return
    target = "allreduce"
    href, _ = link_to_page(site.pages()[target][0], site.page_specs()[target](), query)
    shown = ", ".join(f"{k}={v}" for k, v in query.items())
    gpu_note = next((a for a in explanation.assumptions if a.startswith("GPU: ")), "GPU: as the log names it.")
    st.markdown(f"[Time collectives on this cluster on the All-reduce page]({href}) "
                f"({escape_markdown(shown)}; check the {escape_markdown(gpu_note)}) "
                "The link carries the cluster only, never the log.")


def render() -> None:
    """Draw the page."""
    page_setup("Explain my run", "Paste a job's NCCL_DEBUG=INFO output: what ran, line by line, against the model.")
    state = PageState("explain", explain_specs())
    state.show_warnings()
    st.markdown(f"Run the job with `NCCL_DEBUG=INFO` and upload or paste its output (one rank's or all ranks', "
                f"any launcher prefixes), up to {LOG_LIMIT}. It is read here, kept only in this session, and never "
                "put in the page's link.")
    st.file_uploader(f"NCCL_DEBUG=INFO output (up to {LOG_LIMIT})", key="explain.upload",
                     max_upload_size=_UPLOAD_CEILING_MB)
    st.text_area("…or paste it", key="explain.paste", height=180, max_chars=MAX_LOG_BYTES)
    state.sync_url()
    data = _log_bytes()
    if data is not None:
        if len(data) > MAX_LOG_BYTES:
            st.error(f"The log is {len(data) / 2**20:.1f} MiB; the limit is {LOG_LIMIT}. The command line "
                     "`interconnect explain LOGFILE` reads any size.")
        else:
            try:
                explanation = _explain(data)
            except NcclDebugError as exc:
                st.error(escape_markdown(str(exc)))
            else:
                _ranked(explanation)
                _findings(explanation)
                _drawing(explanation)
                _measured(explanation)
                _tables(explanation)
                _allreduce_link(explanation)
    footer()
