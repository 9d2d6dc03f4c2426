"""Page: hide the gradient all-reduce behind the backward pass, and see what stays exposed."""

import streamlit as st

from interconnect.catalog import get_catalog
from interconnect.models.overlap import cluster_roofline_tokens
from interconnect.ui.charts import chart
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.cluster import cluster_controls, resolve_page_cluster, show_cluster_sources
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.overlap import (
    StepInputs,
    nodes_figure,
    show_breakdown,
    show_claim,
    show_ddp_check,
    show_metrics,
    show_rooflines,
    show_timeline,
    show_why_not,
    step_controls,
    step_result,
    timeline_of,
    tokens_figure,
)
from interconnect.ui.overlap_live import live_tokens
from interconnect.ui.pagespecs import CLUSTER_KEYS, OVERLAP_VIEWS, overlap_specs
from interconnect.ui.state import PageState
from interconnect.ui.views import shown_views, view_picker

page_setup("Overlap: talk while you compute",
           "Data-parallel training all-reduces every gradient each step. Start early and most of it hides "
           "behind the backward pass; what is left over, the step waits for.")
catalog = get_catalog()
state = PageState("overlap", overlap_specs(), shared=CLUSTER_KEYS)
state.show_warnings()


@st.fragment
def overlap_view() -> None:
    cluster_controls(state, catalog)
    notes = st.container()  # the warnings, above the step's controls and the main chart beside them
    controls, main = st.columns([1, 2.6])
    with controls:
        step_controls(state)
    state.sync_url()
    values = state.values()
    cluster, cluster_warnings = resolve_page_cluster(values)
    for warning in cluster_warnings:
        notes.warning(escape_markdown(warning))
    inputs = StepInputs.from_values(values, cluster, CLUSTER_KEYS)
    step = step_result(inputs)
    for note in step.notes:
        notes.warning(escape_markdown(note))
    with main:
        live_tokens(state, inputs)
        view_picker(state, OVERLAP_VIEWS)  # the one further chart drawn below (view=)
    shown = shown_views(state, OVERLAP_VIEWS)
    show_metrics(step, cluster_roofline_tokens(cluster, values["dtype"]))
    show_cluster_sources(cluster, catalog)
    if "timeline" in shown:
        st.markdown(
            "PyTorch's DistributedDataParallel packs gradients into buckets and starts each bucket's all-reduce as "
            "soon as its gradients exist, on a second stream, while the backward pass carries on. Below: one step "
            "of one GPU on two lanes, with every bucket timed by the all-reduce model of the cluster you describe "
            "(the same model and cluster as the All-reduce page)."
        )
        show_timeline(step, timeline_of(inputs, step), cluster)
    show_breakdown(step, cluster)

    if "tokens" in shown:
        st.subheader("When does it hide?")
        chart(tokens_figure(inputs, step.hide_threshold_tokens), key="overlap-tokens")
        st.caption("The backward pass grows with the tokens each GPU processes; the all-reduce does not. Once the "
                   "backward pass is longer than all the buckets' all-reduces, only the tail is left. The Scaling "
                   "Book's line assumes the full spec bandwidth; real buckets reach less, and each one pays a latency.")
    if "nodes" in shown:
        st.subheader("Same step, more nodes")
        chart(nodes_figure(inputs), key="overlap-nodes")
        st.caption("A ring all-reduce takes 2(n−1) steps, so its latency grows with the GPU count: the Ultra-Scale "
                   "Playbook warns that at 512+ GPUs data-parallel communication can no longer be fully overlapped. "
                   "NCCL and RCCL switch to trees, whose latency grows with log(n).")

    st.subheader("Check the claim: 85 % overlapped, 30 % faster")
    show_claim(step, "claim" in shown)
    st.subheader("Why not all of it overlaps")
    show_why_not(step, cluster)


overlap_view()

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
