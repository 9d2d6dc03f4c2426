"""Page: hide the gradient all-reduce behind the backward pass, and see what stays exposed.

The cluster box, the step's controls and everything they drive are three nested fragments
(:func:`interconnect.topics.overlap.page.overlap_view`): a change of the node count, the tokens per GPU or
the bucket size reruns only what the step drives, not the other controls or the text below.
"""

import streamlit as st

from interconnect.catalog import get_catalog
from interconnect.inputs.cluster import CLUSTER_KEYS
from interconnect.topics.overlap.inputs import overlap_specs
from interconnect.topics.overlap.page import overlap_view
from interconnect.topics.overlap.page_parts import show_ddp_check, show_rooflines
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.state import PageState

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
