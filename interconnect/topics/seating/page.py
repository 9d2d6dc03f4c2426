"""The Seating chart page, drawn: its controls, the fragment of the node count and what the cluster drives,
and the text below. ``pages/4_Seating_chart.py`` calls these in order.

The node count and everything the cluster drives (the seating grid, the bill, the live chart, the
comparisons) are one fragment, :func:`layout_fragment`, drawn into the places the page keeps for it: a
change of the node count reruns that, not the page's frame, the other controls or the text that no
control changes. The grid and the comparisons are fragments nested in it, so their radios rerun only
their section.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import streamlit as st

from interconnect.catalog import Catalog, get_catalog
from interconnect.hardware.cluster import Cluster
from interconnect.inputs.cluster import CLUSTER_KEYS
from interconnect.topics.seating.figures import MAX_GRID_GPUS
from interconnect.topics.seating.inputs import (
    DTYPE_BYTES,
    RECOMPUTE_MODULE_KEYS,
    SEATING_COLOURS,
    SEATING_COMPARISONS,
    SEATING_SCHEDULES,
    SEATING_VIEWS,
    seating_specs,
)
from interconnect.topics.seating.model import (
    ATTENTION_KERNELS,
    RECOMPUTE_WORDS,
    STACKS,
    TP_OVERLAP_CHOICES,
    Layout,
    Plan,
    Workload,
    layout_problems,
)
from interconnect.topics.seating.page_live import LIVE_NODES, live_seating
from interconnect.topics.seating.page_parts import (
    a2a_overlap_blocked,
    bill_view,
    cached_plan,
    cached_search,
    grid_figure,
    memory_view,
    module_blocked,
    reference_view,
    seating_inputs,
    section_choice,
    show_bill_metrics,
    show_plan_band,
    tp_pair,
)
from interconnect.ui.charts import chart
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.cluster import cluster_controls, cluster_source_popovers, nodes_input, resolve_page_cluster
from interconnect.ui.diagram import diagram
from interconnect.ui.heavy import waiting_notice
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.more import KEEP_HIDDEN, lazy_expander
from interconnect.ui.state import PageState, bounds
from interconnect.ui.views import shown_views, view_picker
from interconnect.units import format_seconds
from interconnect.workloads.presets import ModelPreset, load_model_presets, model_sources

__all__ = ["claim_box", "layout_fragment", "reference_section", "run_controls", "sources_section"]

#: The run's keys in its "More settings" (the rest of the run's keys are in its main box).
MORE_RUN_KEYS = ("recompute", *RECOMPUTE_MODULE_KEYS.values(), "a2a", "sched", "vs", "attn", "stack", "tpov", "eff",
                 "sp", "ends")


def _use_layout(state: PageState, layout: Layout, workload: Workload | None = None) -> None:
    for key, value in layout.as_dict().items():
        st.session_state[state.key(key)] = value
    if workload is not None:  # the search may also have changed recomputation, micro-batch and schedule
        st.session_state[state.key("recompute")] = workload.recompute
        st.session_state[state.key("mb")] = workload.micro_batch
        st.session_state[state.key("sched")] = workload.schedule
        st.session_state[state.key("vs")] = workload.virtual_stages


def run_controls(state: PageState) -> Any:
    """The model and run box and the layout box in a narrow column; returns the column beside it, where the
    seating chart goes (both above the fold at 1440 x 900)."""
    presets = load_model_presets()
    controls_column, chart_column = st.columns([1.25, 2.75])
    with controls_column.container(border=True):
        st.markdown("**The model and the run**")
        names = {**{k: v.name for k, v in presets.items()}, "custom": "Custom…"}
        st.selectbox("Model", list(names), key=state.key("model"), format_func=names.get)
        row = st.container(horizontal=True, wrap=False)
        row.number_input("Sequence length (0 = model's)", **bounds(state, "seq"), step=1024,
                         key=state.key("seq"))
        row.number_input("Micro-batch", **bounds(state, "mb"), step=1, key=state.key("mb"))
        row = st.container(horizontal=True, wrap=False)
        row.number_input("Global batch", **bounds(state, "gb"), step=16, key=state.key("gb"),
                         help="Sequences per optimizer step, over all data-parallel replicas.")
        row.selectbox("Data type", list(DTYPE_BYTES), key=state.key("dtype"), format_func=str.upper)
        if state["model"] == "custom":
            row = st.container(horizontal=True, wrap=False)
            row.number_input("Parameters (B)", **bounds(state, "params"), key=state.key("params"))
            row.number_input("Active (B, 0 = all)", **bounds(state, "active"), key=state.key("active"))
            row = st.container(horizontal=True, wrap=False)
            row.number_input("Layers", **bounds(state, "layers"), key=state.key("layers"))
            row.number_input("Hidden", **bounds(state, "hidden"), step=256, key=state.key("hidden"))
            row = st.container(horizontal=True, wrap=False)
            row.number_input("Heads", **bounds(state, "heads"), key=state.key("heads"))
            row.number_input("Experts", **bounds(state, "experts"), key=state.key("experts"))
            row.number_input("Top-k", **bounds(state, "topk"), key=state.key("topk"))
            st.number_input("KV heads (0 = heads)", **bounds(state, "kv"), key=state.key("kv"))
            st.number_input("MLP width (0 = 4 × hidden)", **bounds(state, "ffn"), step=1024,
                            key=state.key("ffn"))
            st.number_input("Vocabulary (0 = 128,256)", **bounds(state, "vocab"), step=1024,
                            key=state.key("vocab"))
        # Its own name ("run_more"): the cluster's expander has "more_settings" (both once shared that one, so a
        # link that set only the schedule left this expander closed).
        more = lazy_expander(state, "More settings", key="seating-run-more", keys=MORE_RUN_KEYS, name="run_more")
        if more is not None:
            with more:
                _more_run_controls(state)

    with controls_column.container(border=True):
        st.markdown("**The layout**")
        st.caption("TP × PP × DP × CP must equal the GPU count; EP is carved out of DP.")
        row = st.container(horizontal=True, wrap=False)
        row.number_input("TP", **bounds(state, "tp"), step=1, key=state.key("tp"))
        row.number_input("PP", **bounds(state, "pp"), step=1, key=state.key("pp"))
        row = st.container(horizontal=True, wrap=False)
        row.number_input("DP (0 = the rest)", **bounds(state, "dp"), step=1, key=state.key("dp"))
        row.number_input("CP", **bounds(state, "cp"), step=1, key=state.key("cp"))
        moe = state["experts"] > 0 if state["model"] == "custom" else presets[state["model"]].is_moe
        row = st.container(horizontal=True, wrap=False)
        row.number_input("EP", **bounds(state, "ep"), step=1, key=state.key("ep"),
                         disabled=not moe and state["ep"] == 1,
                         help="Expert parallelism: only for a mixture-of-experts model.")
        row.selectbox("ZeRO stage", [0, 1, 2, 3], key=state.key("zero"))
    return chart_column


def _more_run_controls(state: PageState) -> None:
    """The run's secondary settings, drawn only while their expander is open. Each keeps its value while hidden
    (``persist_state="page"``), so the bill, the link and a fragment's rerun still read what the link or the viewer
    set."""
    keep = KEEP_HIDDEN
    st.selectbox("Recomputation", ["none", "selective", "full"], key=state.key("recompute"), **keep)
    _moe_run_controls(state)
    st.selectbox("Pipeline schedule", list(SEATING_SCHEDULES), key=state.key("sched"),
                 format_func=SEATING_SCHEDULES.get,
                 help="1F1B idles p − 1 micro-batch times per step; interleaved with v chunks per GPU "
                      "(p − 1)/v; zero-bubble (ZB-H1) about a third of 1F1B's; DualPipe (DeepSeek-V3) "
                      "(p/2 − 1) × 2/3, and hides the expert all-to-all behind compute.", **keep)
    st.number_input("Virtual stages (0 = fastest)", **bounds(state, "vs"), step=1, key=state.key("vs"),
                    disabled=state["sched"] != "interleaved",
                    help="Model chunks per GPU, interleaved schedule only.", **keep)
    st.selectbox("Attention kernel", list(ATTENTION_KERNELS), key=state.key("attn"),
                 help="Flash attention never writes the scores to memory; unfused (Megatron-LM before 2023) "
                      "does. flash is the newest FlashAttention for the GPU; flash2 is FlashAttention-2, which "
                      "reaches 35 % of an H100's peak where FlashAttention-3 reaches about 60 %.", **keep)
    st.selectbox("Training stack", list(STACKS), key=state.key("stack"), format_func=lambda s: STACKS[s].name,
                 help="What the stack does where the page has no setting of its own (NeMo and Megatron-Bridge: "
                      "their performance recipes). It also picks the published runs the error band compares with: "
                      "those of Megatron-Core's stacks, or those of the others. "
                      + " ".join(f"{STACKS[s].summary()}." for s in STACKS), **keep)
    st.selectbox("TP-communication overlap", list(TP_OVERLAP_CHOICES), key=state.key("tpov"),
                 format_func=lambda c: f"The stack's ({'on' if STACKS[state['stack']].tp_comm_overlap else 'off'})"
                 if c == "auto" else TP_OVERLAP_CHOICES[c],
                 help="TP's all-gathers and reduce-scatters run inside the GEMMs they feed (Transformer Engine's "
                      "userbuffers overlap). It needs sequence parallelism and TP > 1.", **keep)
    st.slider("Compute efficiency override (0 = sourced)", 0.0, 1.0, step=0.05, key=state.key("eff"),
              help="0 uses what GEMM and attention kernels are measured to reach on this GPU family, at the "
                   "layout's matrix shapes. Any other value: that share of the BF16 peak for every kernel.", **keep)
    st.toggle("Sequence parallelism", key=state.key("sp"), **keep)
    st.toggle("First and last stage one layer lighter", key=state.key("ends"),
              help="Room for the embedding and the output layer, as Llama 3 did (126 layers on 16 stages).", **keep)


def _moe_run_controls(state: PageState) -> None:
    """Megatron-Core's recompute modules and the expert all-to-all overlap (plan's ``--recompute-module`` and
    ``--ep-a2a-overlap``), each disabled, its reason in its label, where it cannot act (the link keeps the value; the
    bill leaves it out)."""
    keep = KEEP_HIDDEN
    if state["model"] == "custom":
        mla, moe = False, state["experts"] > 0
    else:
        preset = load_model_presets()[state["model"]]
        mla, moe = preset.is_mla, preset.is_moe
    help_text = {"mla_up_proj": "The latent-attention up-projections' outputs are freed and computed again in the "
                                "backward pass: less activation memory, one more forward of those GEMMs.",
                 "layernorm": "The layer norms' outputs are freed and computed again in the backward pass.",
                 "moe_act": "The experts' activation function's outputs are freed and computed again in the backward "
                            "pass."}
    for module, key in RECOMPUTE_MODULE_KEYS.items():  # one a line: a reason in a label wraps instead of being cut
        blocked = module_blocked(module, mla, moe)
        st.toggle(f"Recompute {module}{f' ({blocked})' if blocked else ''}", key=state.key(key),
                  disabled=bool(blocked), help=help_text[module], **keep)
    blocked = a2a_overlap_blocked(moe, state["ep"], state["recompute"])
    st.toggle(f"Overlap the expert all-to-alls{f' ({blocked})' if blocked else ''}", key=state.key("a2a"),
              disabled=bool(blocked),
              help="Each MoE layer's dispatch and combine all-to-alls run beside another micro-batch's compute "
                   "(Megatron-Core's overlap_moe_expert_parallel_comm); the warm-up and cool-down micro-batches "
                   "still wait for theirs.", **keep)


def layout_fragment(state: PageState, catalog: Catalog, nodes_column: Any, chart_column: Any) -> None:
    """The node count and everything the cluster drives, each part where the page keeps room for it.

    The sources of the GPU and the NIC (a row of two pop-overs) do not depend on the node count, so they
    are drawn here, in a full run, between the places of the fragment's figures and the rest.
    """
    figures_slot = st.container()
    cluster_source_popovers(resolve_page_cluster(state.values())[0], catalog)
    # The body's headings, the live chart's caption, the chart picker and the note on bytes depend on no control
    # of the fragment: drawn here, in a full run, around the three places the fragment fills (the live chart, the
    # bill, the memory), so a node count sends those three and not the nine elements of the whole body.
    st.subheader("More GPUs, same batch")
    live_slot = st.container()
    LIVE_NODES.caption()
    view_picker(state, SEATING_VIEWS)  # the one further chart drawn below (view=)
    st.subheader("The bill, per dimension")
    bill_slot = st.container()
    st.caption("Bytes are what each GPU sends per step (nccl-tests' bus factors: all-reduce 2(n−1)/n, "
               "all-gather, reduce-scatter and all-to-all (n−1)/n). Times come from this app's collective "
               "models on the tier each group actually spans.")
    st.subheader("Memory per GPU")
    memory_slot = st.container()
    _cluster_part(state, nodes_column, chart_column, figures_slot, _Body(live_slot, bill_slot, memory_slot))


class _Body(NamedTuple):
    """The places of the body that the node count's fragment fills on every run (each gets at least one element,
    so that a rerun of the fragment alone may write there)."""

    live: Any  # the live chart over node counts
    bill: Any  # the bill chart (view=bill) and table
    memory: Any  # the memory chart (view=memory) and the activations' caption


@st.fragment
def _cluster_part(state: PageState, nodes_column: Any, chart_column: Any, figures_slot: Any, body: _Body) -> None:
    """The fragment of the node count: what the cluster drives, in the places the page keeps for it."""
    nodes_input(state, nodes_column)
    # Containers made here, in the chart's column, on every run: a rerun of this fragment may then write to them.
    # The nested fragments are called from containers at fixed places, so that each keeps its identity (and its
    # right to write the link) whatever this run draws before them. The figures and the body are written
    # straight into the page's places: every run writes to both (the cluster line, the chart picker), so a rerun
    # of this fragment alone may write there, and each costs the browser one block less on every node count
    # than a container of its own.
    grid_box = chart_column.container()
    notes = grid_box.container()  # warnings about the inputs, above the chart
    figures, comparison_box = figures_slot, st.container()
    # The URL and the share link are written by the two fragments below, which run in every run of this one:
    # a fragment may only update the title's link slot if it wrote it in the last full run, and a third
    # write from here made Streamlit's front end fail on about one cold visit in six (a blank page).
    values = state.values()
    cluster, cluster_warnings = resolve_page_cluster(values)
    for warning in cluster_warnings:
        notes.warning(escape_markdown(warning))
    inputs = seating_inputs(values, cluster)
    model, workload, layout = inputs.model, inputs.workload, inputs.layout
    for note in inputs.model_notes:
        notes.warning(escape_markdown(note))
    if inputs.layout_change:
        notes.info(escape_markdown(inputs.layout_change + " Set DP to choose it yourself."))
    if inputs.stack_note:
        notes.info(escape_markdown(inputs.stack_note))
    domain_label = "rack" if cluster.domain_size > 16 else "node"

    problems = layout_problems(model, cluster, layout, workload)
    bill = None
    if problems:
        notes.error("**This layout cannot run.** " + " ".join(escape_markdown(p) for p in problems))
        notes.caption("Change the layout's degrees, or let the page find the fastest layout that fits (Compare with, "
                      "below).")
    else:
        bill = cached_plan(model, cluster, layout, workload)

    with grid_box:
        _grid_section(state, bool(problems), layout, cluster, domain_label)
    with figures:  # the step's figures and the cluster in one line, under the grid
        show_bill_metrics(bill, escape_markdown(cluster.describe()))  # the cluster line ends the bill's caption
    _body(state, model, cluster, layout, workload, bill, body)  # below the sources, up to the comparisons
    with comparison_box:
        _comparison_section(state, model, cluster, layout, workload, bill, domain_label)


@st.fragment
def _grid_section(state: PageState, problems: bool, layout: Layout, cluster: Cluster, domain_label: str) -> None:
    section_choice(state, "Who sits where", "Colour the GPUs by", "colour", SEATING_COLOURS)
    if problems:
        st.info("The chart appears once the layout can run.")
        return
    if layout.gpus > MAX_GRID_GPUS:
        st.info(f"The chart draws up to {MAX_GRID_GPUS:,} GPUs; this cluster has {layout.gpus:,}. The bill below "
                "still covers all of them.")
        return
    colour = state["colour"]
    diagram(grid_figure(layout, cluster.domain_size, colour, domain_label), key="seating-grid")  # SVG, no Plotly
    st.caption(
        f"Each box is one {domain_label}: its GPUs share NVLink. Green rings: a group's traffic on NVLink; blue "
        f"dashed lines: traffic that has to leave the {domain_label} through the NICs (the first groups are "
        "drawn). A red outline marks a tensor, context or expert group split across boxes for no reason of size."
    )


def _body(state: PageState, model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload,
          bill: Plan | None, places: _Body) -> None:
    """The live chart, the bill and the memory, each in its place under the cluster's sources (a line that says
    why in the first, and an empty element in the others, while the layout cannot run)."""
    if bill is None:
        places.live.info("The live chart, the bill and the memory appear once the layout can run.")
        places.bill.empty()
        places.memory.empty()
        return
    with places.live:
        live_seating(state, model, cluster, layout, workload)
    shown = shown_views(state, SEATING_VIEWS)
    with places.bill:
        figure, table = bill_view(model, cluster, layout, workload)
        if "bill" in shown:
            chart(figure, key="seating-bill")
        st.markdown(table)  # a Markdown table: it loads sooner than a data grid and grows on a projector
    with places.memory:
        figure, modes = memory_view(model, cluster, layout, workload)
        if "memory" in shown:
            chart(figure, key="seating-memory")
        flash_note = (" Flash attention never writes the attention scores, so selective recomputation saves "
                      "nothing more here." if abs(modes["none"] - modes["selective"]) < 1e6 else "")
        st.caption(
            f"Activations with this layout, on the fullest pipeline stage ({SEATING_SCHEDULES[workload.schedule]} "
            f"holds its micro-batches in flight): {modes['none'] / 1e9:.1f} GB stored as they are, "
            f"{modes['selective'] / 1e9:.1f} GB recomputing attention (selective), {modes['full'] / 1e9:.1f} GB "
            "recomputing whole layers (full)." + flash_note + " Mixed-precision Adam: 2 + 2 + 12 bytes per "
            "parameter, sharded by ZeRO (Rajbhandari et al. 2019); activations per Korthikanti et al. 2022; 10 % "
            "of the GPU's memory kept for the CUDA and NCCL context, buffers and fragmentation (our allowance; the "
            "ZeRO paper saw fragmentation alone leave up to 30 % unusable)."
        )


@st.fragment
def _comparison_section(state: PageState, model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload,
                        bill: Plan | None, domain_label: str) -> None:
    section_choice(state, "One click, two comparisons", "Compare with", "cmp", SEATING_COMPARISONS)
    choice = state["cmp"]
    if choice == "tp":
        inside, across = tp_pair(model, cluster, layout, workload)
        cols = st.columns(2)
        for col, side, title in ((cols[0], inside, "TP inside the NVLink domain"),
                                 (cols[1], across, "TP across two domains")):
            with col.container(border=True):
                if isinstance(side, str):
                    st.markdown(f"**{title}**")
                    st.info(escape_markdown(side))
                    continue
                tp_row = next(d for d in side.dimensions if d.name == "tp")  # the title and the layout: one element
                st.markdown(f"**{title}**\n\n{escape_markdown(side.layout.label())}: TP traffic on **{tp_row.tier}**")
                a, b = st.columns(2)
                a.metric("Step time", format_seconds(side.step_s))
                b.metric("TP exposed", format_seconds(tp_row.exposed_s))
                _memory_line(side)
        if not isinstance(inside, str) and not isinstance(across, str):
            ratio = across.step_s / inside.step_s
            st.markdown(f"Crossing the {domain_label} boundary makes each step **{ratio:.2f}×** as long here. "
                        "Nothing in the model says where TP belongs: the NIC is simply slower per call than "
                        "NVLink, and TP calls sit on the critical path.")
            short = [title for side, title in ((inside, "TP inside"), (across, "TP across"))
                     if side.memory.verdict == "does not fit"]
            if len(short) == 2:
                st.error("**Neither layout fits in memory:** both step times are for layouts that cannot run as "
                         "set. Raise the ZeRO stage or PP, recompute activations, or let the search find one that "
                         "fits.")
            elif short:
                st.error(f"**{short[0]} does not fit in memory:** its step time is for a layout that cannot run as "
                         "set.")
    elif choice == "search":
        with waiting_notice("The layout search"):
            found = cached_search(model, cluster, workload)
        if found.best is None:
            st.error(escape_markdown(" ".join((found.headline(cluster.ranks), *found.advice))))
            return
        best = found.best
        bw = best.workload
        st.markdown(f"Tried {found.tried:,} layouts (factorizations × ZeRO stage × recomputation × micro-batch × "
                    f"schedule): {found.valid:,} can run, {found.fitting:,} fit. Fastest: "
                    f"**{escape_markdown(best.layout.label())}**, {RECOMPUTE_WORDS[bw.recompute]} recomputation, "
                    f"micro-batch "
                    f"{bw.micro_batch}, {SEATING_SCHEDULES[bw.schedule]}"
                    + (f" ({best.virtual_stages} chunks per GPU)" if bw.schedule == "interleaved" else "")
                    + f": step {format_seconds(best.step_s)}, {best.tflops_per_gpu / 1e12:.0f} TFLOP/s per GPU, "
                    f"MFU {best.mfu:.0%}, memory {best.memory.summary}.")
        show_plan_band(best, key="seating.search-band")
        if best.layout.zero >= 2 and best.layout.dp > 1 and "every micro-batch" in next(
                d.overlap for d in best.dimensions if d.name == "dp"):
            st.caption(f"ZeRO-{best.layout.zero} keeps only a shard of the gradients, so the {best.micro_batches} "
                       "micro-batches of a step each reduce-scatter theirs (counted in the step above). Megatron-Core "
                       "runs it as Megatron-FSDP (optim_grads or optim_grads_params), not as its distributed "
                       "optimizer, which is ZeRO-1.")
        if bill is not None and bill.memory.verdict == "does not fit":
            st.caption(f"This page's layout: step {format_seconds(bill.step_s)}, but memory {bill.memory.summary}: "
                       "it cannot run as set, so it is not compared with the fastest layout that fits.")
        elif bill is not None:
            tight = ", memory tight" if bill.memory.verdict == "tight" else ""
            st.caption(f"This page's layout: step {format_seconds(bill.step_s)} "
                       f"({bill.step_s / best.step_s:.2f}× the fastest{tight}).")
        st.button("Use this layout", on_click=_use_layout, args=(state, best.layout, best.workload),
                  key="seating.use-best")


def _memory_line(side: Plan) -> None:
    """A comparison card's memory in the page's words: plain when it fits, yellow when tight, red when it does not."""
    text = f"Memory: {side.memory.summary}"  # digits and words only
    {"fits": st.markdown, "tight": st.warning}.get(side.memory.verdict, st.error)(text)


def claim_box() -> None:
    """The often-quoted rule and what the numbers say, under the cluster's part."""
    with st.container(border=True):
        st.markdown(
            "**Often quoted:** tensor parallelism talks constantly and must sit inside the NVLink domain; pipeline "
            "stages pass small activations and can cross the network; data parallelism talks once per step and can "
            "go furthest.\n\n"
            "**What the numbers say:** the rule holds, and this page derives it rather than assuming it: compare TP "
            "inside and across the domain above, or let the search pick. The reason is per call, not per byte: on "
            "8 × 400 Gbit/s H100 nodes the NICs together nearly match NVLink's bandwidth, but every TP call then pays "
            "network latency on the critical path. On B200, NVLink 5 doubles and the gap per byte opens too."
        )


def reference_section() -> None:
    """The model against published training runs, in a collapsed expander drawn only while open (a first load
    sends none of its five Markdown elements, nor computes the runs)."""
    section = st.expander("Checked against published training runs", key="seating-reference", on_change="rerun")
    if not section.open:
        return
    with section:
        table, misses, reference_links = reference_view()
        st.markdown(
            "Each published run below is described to the model as its paper gives it (model shape, GPUs, layout, "
            "schedule, recomputation, batch) and run with the sourced kernel figures, nothing set per run. TFLOP/s are "
            "counted the way each paper counts them (Megatron-LM's formula with recomputation, or model FLOPs).")
        st.markdown(table)
        st.markdown("**Where the model misses (outside ±15 % or not fitting), and why.**\n\n"
                    + "\n".join(f"- {miss}" for miss in misses))
        st.markdown(
            "The scale-out pairs (Llama 3: 8,192 → 16,384 GPUs; MT-NLG: 2,240 → 3,360) lose per GPU what the papers "
            "report within 5 points: with half the micro-batches per pipeline the bubble's share doubles, and the "
            "gradient reduce-scatter has only the last micro-batch's backward to hide behind.")
        st.markdown(reference_links)


def sources_section(state: PageState) -> None:
    """The model preset's sources and the page's, in a collapsed expander drawn only while open."""
    presets = load_model_presets()
    section = st.expander("Sources", key="seating-sources", on_change="rerun")
    if not section.open:
        return
    with section:
        if state["model"] != "custom":
            sources = model_sources()
            for source_id in presets[state["model"]].source_ids:
                source = sources[source_id]
                st.markdown(f"- [{escape_markdown(source.title)}]({source.url})")
        st.markdown(
            "- Traffic per dimension: [Hugging Face, The Ultra-Scale Playbook](https://huggingface.co/spaces/nanotron/"
            "ultrascale-playbook) (data, tensor, sequence, context, pipeline, expert parallelism; appendix A3)\n"
            "- Memory: [Rajbhandari et al., ZeRO (arXiv 1910.02054)](https://arxiv.org/abs/1910.02054), "
            "[Korthikanti et al., Reducing Activation Recomputation (arXiv 2205.05198)](https://arxiv.org/abs/2205.05198)\n"
            "- Pipeline bubble: [Narayanan et al., Megatron-LM at scale (arXiv 2104.04473)](https://arxiv.org/abs/2104.04473)"
        )


def render() -> None:
    """Draw the page: the seating chart. Seat each kind of parallelism on the wire it can afford, and see the bill.

    The node count and everything the cluster drives (the seating grid, the bill, the live chart, the
    comparisons) are one fragment (:func:`interconnect.topics.seating.page.layout_fragment`), drawn into the
    places the page keeps for it, so a change of the node count reruns that, not the page's frame, the
    other controls or the text that no control changes.
    """
    page_setup("The seating chart",
               "Which kind of parallelism sits on which wire, what it sends per step, and what that costs.")
    catalog = get_catalog()
    state = PageState("seating", seating_specs(), shared=CLUSTER_KEYS)
    state.show_warnings()
    nodes_column = cluster_controls(state, catalog, nodes_later=True, lazy_more=True)
    chart_column = run_controls(state)  # the model, the run and the layout beside the seating chart's column
    layout_fragment(state, catalog, nodes_column, chart_column)  # the node count, the grid, the bill, the comparisons
    claim_box()
    reference_section()
    sources_section(state)
    footer()
