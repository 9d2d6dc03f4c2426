"""The Overlap page's interactive part, drawn: the cluster box, the step's controls and everything they drive,
as three nested fragments. ``pages/3_Overlap.py`` calls :func:`overlap_view`, then draws the text below it.

- :func:`overlap_view`: the cluster's controls but its node count, the GPU's and the NIC's sources, and
  the places the two fragments inside it fill (containers made on each of its runs, at fixed positions,
  :class:`_Places`). A change of the GPU, the NIC or the fabric reruns it and the two fragments inside it.
- :func:`_step_view`: the step's controls but the tokens per GPU, the live chart's caption and the chart
  picker. A change of the model, the bucket size, the overlap, a setting under "More settings" or the chart
  picked reruns it and the fragment inside it.
- :func:`_step_analysis`: the node count, the tokens per GPU (which the live chart sets), and everything the
  step drives (the warnings, the live chart, the metrics, the charts, the claim, the table), each in its place.
  A change of those two reruns only this, and sends no other input.

Kept apart from :mod:`~interconnect.topics.overlap.page_parts` because the live chart
(:mod:`~interconnect.topics.overlap.page_live`) imports that module's
:class:`~interconnect.topics.overlap.page_parts.StepInputs`; the Seating chart's page is laid out the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from interconnect.catalog import Catalog, get_catalog
from interconnect.hardware.cluster import Cluster
from interconnect.inputs.cluster import CLUSTER_KEYS
from interconnect.topics.overlap.inputs import OVERLAP_VIEWS, overlap_specs
from interconnect.topics.overlap.model import StepResult, cluster_roofline_tokens
from interconnect.topics.overlap.page_live import live_caption, live_tokens
from interconnect.topics.overlap.page_parts import (
    StepInputs,
    breakdown_html,
    claim_html,
    heading_html,
    main_step_controls,
    nodes_figure,
    show_claim_chart,
    show_ddp_check,
    show_metrics,
    show_rooflines,
    show_text_block,
    show_timeline,
    show_why_not_note,
    step_box,
    step_controls,
    step_result,
    timeline_of,
    tokens_figure,
    why_not_html,
)
from interconnect.ui.charts import chart
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.cluster import (
    cluster_controls,
    cluster_source_popovers,
    nodes_input,
    resolve_page_cluster,
)
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.state import PageState
from interconnect.ui.views import shown_views, view_picker

__all__ = ["overlap_view"]

TIMELINE_INTRO = (
    "PyTorch's DistributedDataParallel packs gradients into buckets and starts each bucket's all-reduce as "
    "soon as its gradients exist, on a second stream, while the backward pass carries on. Below: one step "
    "of one GPU on two lanes, with every bucket timed by the all-reduce model of the cluster you describe "
    "(the same model and cluster as the All-reduce page)."
)
TOKENS_CAPTION = (
    "The backward pass grows with the tokens each GPU processes; the all-reduce does not. Once the "
    "backward pass is longer than all the buckets' all-reduces, only the tail is left. The Scaling "
    "Book's line assumes the full spec bandwidth; real buckets reach less, and each one pays a latency."
)
CLAIM_HEADING = "Check the claim: 85 % overlapped, 30 % faster"
NODES_CAPTION = (
    "A ring all-reduce takes 2(n−1) steps, so its latency grows with the GPU count: the Ultra-Scale "
    "Playbook warns that at 512+ GPUs data-parallel communication can no longer be fully overlapped. "
    "NCCL and RCCL switch to trees, whose latency grows with log(n)."
)


@dataclass(frozen=True)
class _Places:
    """Places :func:`overlap_view` makes on each of its runs for the two fragments inside it, in reading order.

    Every place the step analysis writes to outside its own body is made here, by the outermost fragment:
    Streamlit 1.67 lets a fragment write to a container made outside it only if it wrote to it in its last
    run (the step analysis writes to each of these on every run) or if the container's maker is the
    fragment being rerun; a container made by the step view while a rerun of this fragment runs it does not
    count, so a change of the GPU would fail.
    """
    nodes: Any  # the node count's column of the cluster box (the step analysis)
    notes: Any  # warnings about the inputs, above the step's controls (the step analysis)
    model: Any  # the model in the step's box (the step view's own place)
    step_inputs: Any  # the tokens per GPU, under it (the step analysis)
    more: Any  # the bucket size, the overlap and "More settings", under them (the step view)
    live: Any  # the live chart, beside the step's box (the step analysis)
    main: Any  # the live chart's column: its caption and the chart picker follow the live chart (the step view)
    figures: Any  # a value that could not be used, the metrics and the cluster in one line (the step analysis)
    body: Any  # below the GPU's and the NIC's sources: the step analysis's own place, made by the step view


@st.fragment
def overlap_view(state: PageState, catalog: Catalog) -> None:
    """The cluster's controls, the step's controls and everything they drive (three nested fragments)."""
    nodes_column = cluster_controls(state, catalog, nodes_later=True, lazy_more=True)
    notes = st.container(key="notes")  # the warnings, above the step's controls and the main chart beside them
    controls, main = st.columns([1, 2.6])
    model, step_inputs, more = step_box(controls)
    live = main.container()
    figures = st.container()
    # The sources of the GPU and the NIC, which no node count changes: drawn here, between two places the
    # step analysis fills.
    cluster_source_popovers(resolve_page_cluster(state.values())[0], catalog)
    body = st.container()
    places = _Places(nodes_column, notes, model, step_inputs, more, live, main, figures, body)
    with model:
        _step_view(state, places)


@st.fragment
def _step_view(state: PageState, places: _Places) -> None:
    """The step's controls but the tokens per GPU, the live chart's caption, the chart picker, and the step
    analysis."""
    step_controls(state, places.model, places.more)
    with places.main:
        live_caption()
        view_picker(state, OVERLAP_VIEWS)  # the one further chart drawn below (view=)
    # The step analysis's own place, made on each run of this fragment: a nested fragment is known by where it
    # is called, and a container made by an earlier run has moved on by the elements it holds since. Its results
    # are its own body, not a place it writes to from outside: those, rerun by this fragment, left the last
    # run's charts hidden in the page until the step analysis's next run of its own.
    with places.body.container():
        _step_analysis(state, places)
    with places.body:
        show_why_not_note()  # under the step analysis's last table; no input of it changes this note


@st.fragment
def _step_analysis(state: PageState, places: _Places) -> None:
    """The node count, the tokens per GPU, and everything the step drives: the warnings,
    the live chart, the metrics, each in its place, and the results below the sources in its own body."""
    nodes_input(state, places.nodes)
    main_step_controls(state, places.step_inputs)
    values = state.values()
    cluster, cluster_warnings = resolve_page_cluster(values)
    inputs = StepInputs.from_values(values, cluster, CLUSTER_KEYS)
    step = step_result(inputs)
    # The warnings' place is written on every run (an empty element when there is none; the page's style hides
    # the row then), so that a warning may appear in a rerun of this fragment alone.
    notes = places.notes.empty()
    warnings = (*cluster_warnings, *step.notes)
    if warnings:
        with notes.container():
            for warning in warnings:
                st.warning(escape_markdown(warning))
    with places.live:
        live_tokens(state, inputs)  # the main chart, beside the step's controls
    with places.figures:
        # The URL and the share link are written here, in every run of the fragments around this one too:
        # a fragment may update the title's link slot only if it wrote it in the last full run.
        state.sync_url()  # a bucket size that could not be used is reported here, above the metrics
        show_metrics(step, cluster_roofline_tokens(cluster, values["dtype"]), cluster)  # and the cluster line
    _results(inputs, step, cluster, shown_views(state, OVERLAP_VIEWS))


def _results(inputs: StepInputs, step: StepResult, cluster: Cluster, shown: frozenset[str]) -> None:
    """Everything the step drives below the sources: the timeline, where the time goes, the chart picked
    (``shown``), the claim and why not all of it overlaps.

    The text between two charts is one HTML block styled as Streamlit's Markdown (:func:`show_text_block`): the
    breakdown's table, the claim's heading and box and the table of why not all of it overlaps are one element a
    change sends when no chart comes between them, where they were four Markdown blocks and a bordered container
    (a change's cost in the browser follows the elements it sends, and Markdown is parsed on each redraw)."""
    if "timeline" in shown:
        st.markdown(TIMELINE_INTRO)
        show_timeline(step, timeline_of(inputs, step), cluster)
    text = [breakdown_html(step, cluster)]  # not yet drawn: drawn as one block before the next chart
    if "tokens" in shown:
        show_text_block(text)
        text = []
        st.subheader("When does it hide?")
        chart(tokens_figure(inputs, step.hide_threshold_tokens), key="overlap-tokens")
        st.caption(TOKENS_CAPTION)
    if "nodes" in shown:
        if text:
            show_text_block(text)
            text = []
        st.subheader("Same step, more nodes")
        chart(nodes_figure(inputs), key="overlap-nodes")
        st.caption(NODES_CAPTION)
    text += [heading_html(CLAIM_HEADING), claim_html(step)]
    if "claim" in shown:
        show_text_block(text)
        text = []
        show_claim_chart(step)
    text.append(why_not_html(step, cluster, "Why not all of it overlaps"))
    show_text_block(text)


def render() -> None:
    """Draw the page: hide the gradient all-reduce behind the backward pass, and see what stays exposed.

    The cluster box, the step's controls and everything they drive are three nested fragments
    (:func:`interconnect.topics.overlap.page.overlap_view`): a change of the node count or the tokens per GPU
    reruns only what the step drives, not the other controls or the text below.
    """
    page_setup("Overlap: talk while you compute",
               "Data-parallel training all-reduces every gradient each step. Start early and most of it hides "
               "behind the backward pass; what is left over, the step waits for.")
    catalog = get_catalog()
    state = PageState("overlap", overlap_specs(), shared=CLUSTER_KEYS)
    state.show_warnings()
    overlap_view(state, catalog)  # the cluster, the step and what they drive: three nested fragments

    st.subheader("The Scaling Book's rooflines, rebuilt from the catalog")
    show_rooflines(catalog)
    with st.expander("Checked against a measurement: PyTorch's DDP benchmark"):
        show_ddp_check()

    with st.expander("How the step is modelled"):
        st.markdown(
            "- Compute: forward 2·N·D and backward 4·N·D FLOPs (N matmul parameters, D tokens per GPU) at the GPU's "
            "dense BF16 peak times the share you set; the optimizer step is Adam reading and writing 26 bytes of "
            "state per parameter plus the gradient at HBM speed (our estimate, from the mixed-precision layout in "
            "the ZeRO paper).\n"
            "- Buckets are cut from the gradient in backward order: the output layer's gradient first, the blocks' "
            "as their backward runs, the input embedding's at the end. PyTorch never splits a tensor across "
            "buckets and caps its first bucket at 1 MiB; this model cuts evenly.\n"
            "- Each bucket's all-reduce time comes from the cluster's all-reduce model at that size, and buckets "
            "queue on one stream. Ideal overlap streams gradients evenly and charges none of the costs below.\n"
            "- What a bucket costs besides its bytes, three terms with measured defaults (each can be set above):\n"
            "  - Launch per bucket: the compute lane pays a fixed time per bucket (the reducer finishing the bucket, "
            "the collective's launch), so many small buckets cost more. Default 12 µs: in PyTorch's DDP benchmark "
            "on one GPU, where no bytes move, 1 MB buckets added 3-16 µs per extra bucket over 25 MB ones (median "
            "12 µs); an NCCL all-reduce of a few bytes takes about 10 µs "
            "([NCCL issue 757](https://github.com/NVIDIA/nccl/issues/757)).\n"
            "  - SM contention: while communication runs, compute runs slower by c (a fixed point: the backward pass "
            "is stretched by c × the communication that overlaps it). Small buckets pay it more: each all-reduce "
            "also pays its latency, so the SMs are shared longer. Default 0.19, the average compute slowdown "
            "measured under overlapped communication on A100, H100, MI250 and MI210 "
            "([arXiv 2507.03114](https://arxiv.org/abs/2507.03114)). NCCL runs on 16 SMs by default, 32 for a tree "
            "at full speed, of an H100's 132 ([NCCL issue 1649](https://github.com/NVIDIA/nccl/issues/1649)); "
            "Calculon's H100 system file assumes 0.15 while NVLink traffic runs and 0.02 for the network "
            "([calculon systems/h100_80g_nvl8.json](https://github.com/calculon-ai/calculon/blob/main/systems/"
            "h100_80g_nvl8.json)).\n"
            "  - Waiting for the slowest GPU: no bucket's all-reduce can finish before every rank has its gradients, "
            "so forward and backward run at the pace of the slowest GPU. GPUs of one model differ: 8 % on average "
            "(at most 22 %) across V100 clusters ([Sinha et al., SC22](https://arxiv.org/abs/2208.11035)). Taking "
            "speeds uniform over that range, the slowest of N GPUs is w/2 · (N−1)/(N+1) behind a typical one "
            "(our model).\n"
            "- Left out: attention's sequence-dependent FLOPs (more compute, so easier hiding), gradient "
            "accumulation, and tensor/pipeline/FSDP communication (see the panels above)."
        )
    footer()
