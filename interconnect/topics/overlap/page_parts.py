"""The Streamlit glue of the Overlap page: cached figure builders and the page's sections.

Kept out of ``pages/3_Overlap.py`` so the cached functions are defined once per process (a cache
decorator in a page script is rebuilt on every run) and the page stays a list of sections.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Any

import streamlit as st

from interconnect.catalog import Catalog
from interconnect.hardware.accuracy import expected_text, seconds_in_unit_of
from interconnect.hardware.cluster import Cluster
from interconnect.hardware.collectives import ALGORITHM_LABELS, ALLREDUCE_ALGORITHMS
from interconnect.hardware.vendor import vendor_words
from interconnect.inputs.cluster import ALGORITHM_SHORT_NAMES, CLUSTER_KEYS
from interconnect.topics.overlap.accuracy import overlap_band, step_expected
from interconnect.topics.overlap.figures import claim_figure, node_sweep_figure, timeline_figure, token_sweep_figure
from interconnect.topics.overlap.model import (
    CLAIM_OVERLAP_FRACTION,
    CLAIM_TIME_SAVED,
    MODE_LABELS,
    MODES,
    PLAYBOOK_TITLE,
    PLAYBOOK_URL,
    SCALING_BOOK_TITLE,
    SCALING_BOOK_URL,
    ModelShape,
    StepResult,
    check_claim,
    cluster_roofline_tokens,
    load_bucket_costs,
    node_sweep,
    playbook_ratios,
    scaling_book_rooflines,
    step_schedule,
    token_sweep,
)
from interconnect.ui.charts import chart
from interconnect.ui.error_band import show_error_band
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.more import KEEP_HIDDEN, lazy_expander
from interconnect.ui.state import PageState, bounds
from interconnect.units import Q_, format_seconds, format_size, read_quantity
from interconnect.workloads.presets import load_model_presets

__all__ = ["StepInputs", "breakdown_html", "claim_html", "heading_html", "main_step_controls", "nodes_figure",
           "show_claim_chart", "show_ddp_check", "show_metrics", "show_rooflines", "show_text_block", "show_timeline",
           "show_why_not_note", "step_box", "step_controls", "step_result", "timeline_of", "tokens_figure",
           "why_not_html", "workload_for"]

TOKEN_GRID = tuple(float(2 ** (i / 2)) for i in range(14, 39))  # 128 .. 512k tokens, half-octaves
NODE_GRID = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
MODEL_NAMES = {**{key: preset.name for key, preset in load_model_presets().items()},
               "custom": "Custom: parameters and layers"}


NBSP = "\u00a0"  # keeps a number with its unit in a narrow table cell


def duration(seconds: float) -> str:
    return format_seconds(float(seconds)) if seconds > 0 else "0 s"


def workload_for(model: str, params_billions: float, layers: int) -> ModelShape:
    """A preset's workload, or a custom one from billions of parameters and a depth (the page's units)."""
    if model == "custom":
        return ModelShape.from_params(params_billions * 1e9, layers)
    return ModelShape.from_preset(load_model_presets()[model])


@dataclass(frozen=True, eq=False)
class StepInputs:
    """Everything one step depends on, with cheap hashable keys for the caches below.

    Streamlit hashes a cached function's arguments on every call; a whole :class:`Cluster` costs
    milliseconds, so the caches get a tuple of the page's own values and the objects ride along as
    underscore arguments, which Streamlit does not hash.
    """

    cluster: Cluster
    workload: ModelShape
    tokens: int
    bucket_bytes: float
    dtype: str
    sm: float
    eff: float
    mode: str
    algo: str
    identity: tuple  # the cluster's and the model's URL values
    launch_us: float = 0.0
    spread_pct: float = 0.0

    @property
    def costs(self) -> dict:
        """The per-bucket costs as :func:`step_schedule` takes them (SI units)."""
        return {"sm_contention": self.sm, "bucket_launch_s": self.launch_us * 1e-6,
                "speed_spread": self.spread_pct / 100}

    @classmethod
    def from_values(cls, values: dict, cluster: Cluster, cluster_keys: tuple[str, ...]) -> StepInputs:
        model = values["model"]
        model_key = (model,) if model != "custom" else (model, values["params"], values["layers"])
        bucket = float(read_quantity(values["bucket"], "size").to("B").magnitude)
        return cls(cluster, workload_for(model, values["params"], values["layers"]), values["tokens"], bucket,
                   values["dtype"], values["sm"], values["eff"], values["mode"], values["algo"],
                   (tuple(values[key] for key in cluster_keys), model_key), values["launch"], values["spread"])

    @property
    def common(self) -> tuple:
        return (*self.identity, self.tokens, self.bucket_bytes, self.dtype, self.sm, self.eff, self.launch_us,
                self.spread_pct)


@st.cache_resource(max_entries=48, show_spinner=False)
def _step(key: tuple, _inputs: StepInputs) -> StepResult:
    i = _inputs
    return step_schedule(i.cluster, i.workload, i.tokens, bucket_bytes=i.bucket_bytes, gradient_dtype=i.dtype,
                         mode=i.mode, efficiency=i.eff, algorithm=i.algo, **i.costs)


@st.cache_resource(max_entries=48, show_spinner=False)
def _timeline(key: tuple, _step: StepResult):
    return timeline_figure(_step)


def step_result(inputs: StepInputs) -> StepResult:
    """The step, cached by the page's values."""
    return _step((*inputs.common, inputs.mode, inputs.algo), inputs)


def timeline_of(inputs: StepInputs, step: StepResult):
    """The step's timeline figure (27-63 ms to build for a large model), cached; built only when drawn."""
    return _timeline((*inputs.common, inputs.mode, inputs.algo), step)


@st.cache_resource(max_entries=48, show_spinner=False)
def _tokens_figure(key: tuple, _inputs: StepInputs, threshold: float):
    i = _inputs
    sweep = token_sweep(i.cluster, i.workload, TOKEN_GRID, bucket_bytes=i.bucket_bytes, gradient_dtype=i.dtype,
                        efficiency=i.eff, algorithm=i.algo, **i.costs)
    return token_sweep_figure(sweep, current_tokens=i.tokens, hide_threshold_tokens=threshold,
                              roofline_tokens=cluster_roofline_tokens(i.cluster, i.dtype))


def tokens_figure(inputs: StepInputs, threshold: float):
    """Exposed time and compute share against tokens per GPU (every mode), cached."""
    return _tokens_figure((*inputs.common, inputs.algo), inputs, threshold)


@st.cache_resource(max_entries=48, show_spinner=False)
def _nodes_figure(key: tuple, _inputs: StepInputs):
    i = _inputs
    counts = [k for k in NODE_GRID if k * i.cluster.gpus_per_node <= 1_000_000]
    sweep = node_sweep(i.cluster, i.workload, i.tokens, counts, bucket_bytes=i.bucket_bytes, gradient_dtype=i.dtype,
                       efficiency=i.eff, **i.costs)
    return node_sweep_figure(sweep, gpus_per_node=i.cluster.gpus_per_node, current_nodes=i.cluster.nodes,
                             labels={"auto": f"{vendor_words(i.cluster).library}-like choice", "ring": "ring (forced)"})


def nodes_figure(inputs: StepInputs):
    """Exposed time and compute share against the node count (the library's choice and a forced ring), cached."""
    return _nodes_figure(inputs.common, inputs)


@st.cache_resource(max_entries=48, show_spinner=False)
def claim_chart(key: tuple):
    fraction, share, saving = key
    return claim_figure(claimed_fraction=CLAIM_OVERLAP_FRACTION, claimed_saving=CLAIM_TIME_SAVED,
                        step_fraction=fraction, step_share=share, step_saving=saving)


def step_box(container: Any) -> tuple[Any, Any, Any]:
    """The step's controls' bordered box in ``container`` (a narrow column), with its title, and its three places
    in reading order: the model, the tokens per GPU, the bucket size with the overlap and "More settings".

    The tokens per GPU (:func:`main_step_controls`) and the rest (:func:`step_controls`) are drawn by two
    fragments, so a change of the tokens per GPU reruns only what it drives.
    """
    box = container.container(border=True)
    box.markdown("**The model and the step**")
    return box.container(), box.container(), box.container()


def step_controls(state: PageState, model_place: Any, more_place: Any) -> None:
    """The step's controls but the tokens per GPU: the model (and a custom model's shape) in ``model_place``, the
    bucket size, the overlap and a collapsed "More settings" expander with the rest in ``more_place``
    (places from :func:`step_box`), so the live chart beside them sits above the fold at 1440 x 900. The
    expander starts open when the session opened with any of its settings away from the default (a link that
    sets them shows them). Its contents are drawn only while it is open (opening or closing it reruns the
    fragment that draws it); their widgets keep their values while hidden (``persist_state="page"``)."""
    custom = state["model"] == "custom"
    with model_place:
        st.selectbox("Model", list(MODEL_NAMES), key=state.key("model"), format_func=MODEL_NAMES.get)
        if custom:
            _shape_controls(state, custom)
    with more_place:
        _bucket_control(state)  # under the tokens per GPU (the step analysis's place above this one)
        st.radio("Overlap", list(MODES), key=state.key("mode"), format_func=MODE_LABELS.get)
        keys = [spec.key for spec in state.specs if spec.key not in (*STEP_MAIN_KEYS, *CLUSTER_KEYS)]
        more = lazy_expander(state, "More settings", key=MORE_KEY, keys=keys, name="step_more")
        if more is not None:  # drawn only while open; its widgets keep their values while hidden (KEEP_HIDDEN)
            with more:
                if not custom:
                    _shape_controls(state, custom)
                _more_step_controls(state)


def main_step_controls(state: PageState, container: Any) -> None:
    """The tokens per GPU, in ``container`` (its place in :func:`step_box`). The bucket size under it is drawn by
    :func:`step_controls`: a widget is one of the costliest elements a change sends (a change of the node count
    took 16 ms less JavaScript without the two inputs), and only the tokens per GPU, which the live chart sets,
    must be sent again with the node count."""
    container.number_input("Tokens per GPU per step", **bounds(state, "tokens"), step=1024,
                           key=state.key("tokens"), help="Tokens one GPU processes in the backward pass that ends "
                                                         "with the all-reduce (micro-batch x sequence length).")


def _bucket_control(state: PageState) -> None:
    st.text_input("Bucket size", key=state.key("bucket"),
                  help="PyTorch DDP's bucket_cap_mb=25 means 25 MiB. Try 1 MiB or 1 GiB.")


#: The key of the step's "More settings" expander (its open state; opening or closing it reruns the step's controls).
MORE_KEY = "overlap-more"

#: The step's keys drawn in its main column; every other step key is in "More settings".
STEP_MAIN_KEYS = ("model", "tokens", "bucket", "mode")


def _shape_controls(state: PageState, custom: bool) -> None:
    m2, m3 = st.columns(2)
    m2.number_input("Parameters (billions)", **bounds(state, "params"), step=1.0, format="%g",
                    key=state.key("params"), **KEEP_HIDDEN,
                    disabled=not custom, help="Used with the custom model; presets have their published shape.")
    m3.number_input("Layers", **bounds(state, "layers"), step=1, key=state.key("layers"), disabled=not custom,
                    **KEEP_HIDDEN)


def _more_step_controls(state: PageState) -> None:
    costs = load_bucket_costs()
    st.selectbox("Gradients sent as", list(state.specs_by_key["dtype"].choices), key=state.key("dtype"), **KEEP_HIDDEN)
    st.slider("Share of peak FLOP/s", **bounds(state, "eff"), step=0.05, key=state.key("eff"), **KEEP_HIDDEN,
              help="1 is the rooflines' assumption. Llama 3 405B pre-training reached 38-43 % of BF16 peak "
                   "(Meta, The Llama 3 Herd of Models, Table 4).")
    st.selectbox("All-reduce algorithm for the buckets", ["auto", *ALLREDUCE_ALGORITHMS], key=state.key("algo"),
                 format_func=lambda a: "The library's choice" if a == "auto" else ALGORITHM_LABELS[a], **KEEP_HIDDEN)
    st.markdown("**What a bucket costs besides its bytes** (defaults from measurements; sources below the "
                "timeline)")
    st.number_input("Launch per bucket (µs)", **bounds(state, "launch"), step=1.0, format="%g",
                    key=state.key("launch"), **KEEP_HIDDEN,
                    help=f"Compute-lane time per bucket: the reducer's bookkeeping and the collective's launch. "
                         f"Default {costs.launch.text}, from PyTorch's DDP benchmark on one GPU, where no bytes "
                         "move: 1 MB buckets against 25 MB.")
    st.slider("SM contention", **bounds(state, "sm"), step=0.01, format="%.3f", key=state.key("sm"), **KEEP_HIDDEN,
              help=f"Share of compute speed lost while communication kernels run beside it. Default "
                   f"{costs.contention:g}: the average slowdown measured on A100, H100, MI250 and MI210 "
                   "(arXiv 2507.03114). Calculon assumes 0.15 for NVLink traffic.")
    st.slider("GPU speed spread (%)", **bounds(state, "spread"), step=0.5, key=state.key("spread"), **KEEP_HIDDEN,
              help=f"Range of speeds between GPUs of one model. Every bucket waits for the slowest rank, so "
                   f"the step runs at its pace. Default {costs.spread:.0%}: Sinha et al., SC22, V100 clusters.")


def show_metrics(step: StepResult, roofline: float, cluster: Cluster | None = None) -> None:
    """The step's five figures in one row (a horizontal container: six elements a change, where five columns
    took eleven), and, given the cluster, how right they are on the published DDP runs like it and the cluster in
    one line (one caption)."""
    row = st.container(horizontal=True)
    row.metric("Step time", duration(step.step_s), help="Forward + backward + optimizer + the exposed communication.")
    row.metric("Exposed comm", duration(step.exposed_comm_s),
               help="The step time minus the compute time, the same in every mode: waiting for the slowest GPU, "
                    "bucket launches, SM contention and the all-reduce after the backward pass (the breakdown).")
    row.metric("Compute share", f"{step.compute_utilization:.0%}",
               help="Compute utilisation: compute time ÷ step time (MFU when the share of peak FLOP/s is 1).")
    row.metric("Saved by overlap", duration(step.saved_s),
               help=f"Against the same step with no overlap: {duration(step.no_overlap_step_s)}.")
    hides = f"{step.hide_threshold_tokens:,.0f}" if math.isfinite(step.hide_threshold_tokens) else "never"
    row.metric("Hides from", hides,
               help=f"Tokens per GPU from which the backward pass lasts as long as every bucket's all-reduce but the "
                    f"last. The Scaling Book's C / W for this cluster, from spec figures: {roofline:,.0f}.")
    if cluster is not None:
        band = overlap_band(cluster, step.mode)
        read = step_expected(band, step)
        expected = expected_text((read, seconds_in_unit_of(format_seconds, step.step_s), "per step"))
        show_error_band(band, [{"PyTorch DDP benchmark run": run} for run in band.runs],
                        "the time communication adds over compute, model / measured", key="overlap.band",
                        after=escape_markdown(cluster.describe()),  # the cluster in one line, in the same caption
                        expected=expected)


def show_timeline(step: StepResult, timeline, cluster: Cluster) -> None:
    chart(timeline, key="overlap-timeline")
    buckets = step.buckets
    short = ALGORITHM_SHORT_NAMES.get(step.algorithm, step.algorithm)
    if 0 < step.exposed_comm_s and step.overlap_fraction > 0.995:
        hidden = f"all but {duration(step.exposed_comm_s)} of it"
    else:
        hidden = f"{step.overlap_fraction:.0%} of it"
    st.caption(
        f"{buckets.count:,} buckets of {format_size(Q_(buckets.size_bytes, 'B'))} "
        f"(the last {format_size(Q_(buckets.last_bytes, 'B'))}), each all-reduced across {cluster.ranks:,} GPUs "
        f"in {duration(step.bucket_time_s)} ({escape_markdown(short)}): {duration(step.comm_s)} of communication, "
        f"{hidden} hidden behind the backward pass. "
        + ("The input embedding's gradient is complete only at the very end of the backward pass, so its buckets "
           "cannot hide. " if step.mode == "overlap" and step.workload.embedding_params > 0 else "")
        + "The optimizer step waits for the last bucket."
    )


def _text(value: str) -> str:
    """Plain text for an HTML block: every character that means something in HTML escaped."""
    return html.escape(value, quote=True)


def _link(title: str, url: str) -> str:
    """A link to a source of ours (titles and https addresses from the project's data files), escaped."""
    return f'<a href="{_text(url)}" target="_blank" rel="noopener noreferrer">{_text(title)}</a>'


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """A table from cells already in HTML (escaped by their makers)."""
    head = "".join(f"<th>{cell}</th>" for cell in header)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def show_text_block(parts: list[str]) -> None:
    """Paragraphs, headings, tables and the claim's box, made by :func:`breakdown_html`, :func:`claim_html` and
    :func:`why_not_html`, as one HTML element styled as Streamlit draws Markdown (the page's style, ``.text-block``).

    Streamlit parses Markdown in the browser on every redraw: as HTML, a node change ran 4-11 ms less JavaScript
    than with the same text as one Markdown block (``docs/performance.md``). Every value in ``parts`` is escaped
    by its maker; none comes from a visitor's text."""
    st.html('<div class="text-block">' + "".join(parts) + "</div>")


def breakdown_html(step: StepResult, cluster: Cluster) -> str:
    """Where the step's time goes: compute, then each cost a bucket adds besides its bytes, with sources."""
    costs = load_bucket_costs()
    rows = [
        ("Compute (forward, backward, optimizer)", step.compute_s, "FLOPs at the share of peak you set; "
         "the optimizer at HBM speed"),
        ("Waiting for the slowest GPU", step.wait_s,
         f"Forward and backward run at the pace of the slowest of {cluster.ranks:,} GPUs. "
         + _link(costs.gpu_spread.source, costs.gpu_spread.url)),
        ("Bucket launches", step.launch_s,
         f"{step.buckets.count:,} × the launch per bucket. " + _link(costs.launch.source, costs.launch.url)),
        ("SM contention", step.contention_s,
         "Compute slowed while all-reduces run beside it. "
         + _link(costs.sm_contention.source, costs.sm_contention.url)),
        ("All-reduce after the backward pass", step.tail_s, "What the optimizer waits for (the last bucket at "
         "least)"),
    ]
    cells = []
    for name, seconds, why in rows:
        share = seconds / step.step_s if step.step_s > 0 else 0.0
        cells.append((name, _text(duration(seconds).replace(" ", NBSP)), f"{share:.1%}", why))
    exposed = step.exposed_comm_s / step.step_s if step.step_s > 0 else 0.0
    cells.append(("<strong>Exposed communication</strong> (all but compute)",
                  f"<strong>{_text(duration(step.exposed_comm_s).replace(' ', NBSP))}</strong>", f"{exposed:.1%}",
                  "the step time minus the compute time"))
    cells.append(("<strong>Step</strong>", f"<strong>{_text(duration(step.step_s).replace(' ', NBSP))}</strong>",
                  "100%", ""))
    note = (" The ideal bound charges none of the three costs between compute and the all-reduce after the backward "
            "pass, so its exposed communication is that all-reduce alone." if step.mode == "ideal" else "")
    return (f"<p>Where the step's time goes, and what each bucket costs besides its bytes.{note}</p>"
            + _table(("part of the step", "time", "share", "from"), cells))


def heading_html(text: str) -> str:
    return f"<h3>{_text(text)}</h3>"


def claim_html(step: StepResult) -> str:
    """The 85 %/30 % claim against this step, in words, in a box (a quote, which the page's style draws as a
    bordered container is drawn)."""
    check = check_claim(step)
    return (
        "<blockquote>"
        f"<p><strong>Often quoted:</strong> overlapping about {CLAIM_OVERLAP_FRACTION:.0%} of the communication cut "
        f"iteration time by about {CLAIM_TIME_SAVED:.0%}.</p>"
        "<p><strong>What the sources say:</strong> no source for the claim has been found (it is not in the "
        "Ultra-Scale Playbook). It is arithmetic, not a law: with <code>T = T_comp + (1 − f) × T_comm</code> the "
        "time saved is f × the communication share, so it holds only if communication was "
        f"<strong>{check.needed_comm_share:.1%}</strong> of the step without overlap "
        f"({check.needed_comm_over_compute:.2f} × the compute).</p>"
        f"<p><strong>This cluster and model:</strong> communication is {check.step_comm_share:.1%} of the step "
        f"without overlap; {check.step_fraction:.0%} of it hides, which saves <strong>{check.step_saving:.1%}"
        f"</strong>. Hiding {CLAIM_OVERLAP_FRACTION:.0%} here would save "
        f"{check.step_saving_if_claimed_fraction:.1%}.</p>"
        "</blockquote>"
    )


def show_claim_chart(step: StepResult) -> None:
    """The claim against this step as a chart (view=claim)."""
    check = check_claim(step)
    key = (round(check.step_fraction, 4), round(check.step_comm_share, 4), round(check.step_saving, 4))
    chart(claim_chart(key), key="overlap-claim")


def why_not_html(step: StepResult, cluster: Cluster, heading: str) -> str:
    """The Playbook's overlap condition for each kind of parallelism, evaluated here: one table under ``heading``;
    its note on C and W, which no input changes, is :func:`show_why_not_note`."""
    ratios = playbook_ratios(step.workload, step.tokens_per_gpu, cluster)
    modelled = step.comm_s / step.backward_s if step.backward_s > 0 else math.inf

    def verdict(ratio: float) -> str:
        return f"<strong>{ratio:.2g}</strong>: " + ("can hide" if ratio <= 1 else "cannot hide")

    rows = [
        ("Data parallel (this page)", "((DP−1)/DP) · C ÷ (tokens · W)",
         f"{verdict(ratios['dp'])} (with this cluster's modelled buckets: <strong>{modelled:.2g}</strong>)",
         "The whole gradient against the backward pass. The Playbook prints (N / 2·tokens) · ((DP−1)/DP) · (C / W), "
         "which keeps a stray factor of N (one bucket against the whole backward pass)."),
        ("ZeRO-3 / FSDP", "(1 / (2 · seq · mbs)) · ((DP−1)/DP) · (C / W)", verdict(ratios["zero3"]),
         "Each layer's parameters are gathered first; prefetching layer n+1 while layer n computes hides it, "
         "as long as DP stays below about 512 (Playbook)."),
        ("Tensor parallel", "((TP−1) / (2h)) · (C / W of NVLink)", verdict(ratios["tp"]),
         "Each layer's output is all-reduced before the next layer can start: exposed by construction in the "
         "forward pass (Megatron-style overlap with the first MLP matmul hides part of it)."),
        ("Pipeline parallel", "C ÷ (32 · h · layers per stage · W)", verdict(ratios["pp"]),
         "Only activations cross between stages, once per micro-batch, while the next micro-batch computes; "
         "the price is the pipeline bubble, not the wire."),
    ]
    cells = [(kind, _text(formula), value, why) for kind, formula, value, why in rows]
    return (
        heading_html(heading)
        + "<p>Each kind of parallelism has its own communication, and not all of it can run under compute. The "
        "Ultra-Scale Playbook's overlap conditions (a ratio of at most 1 can hide), for this model, "
        f"{int(step.tokens_per_gpu):,} tokens per GPU and this cluster:</p>"
        + _table(("parallelism", "t_comm ÷ t_compute (Playbook A3)", "here", "why"), cells)
    )


def show_why_not_note() -> None:
    """What C and W are in :func:`why_not_html`'s table, and its source (the same for every input)."""
    st.caption(f"C: dense BF16 peak of the GPU; W: spec bandwidth per direction (node egress for DP and ZeRO-3, "
               f"NVLink for TP, one NIC for PP), so these are on-paper ratios: real collectives reach less, and "
               f"each call pays a latency. Source: [{PLAYBOOK_TITLE}]({PLAYBOOK_URL}).")


def show_rooflines(catalog: Catalog) -> None:
    """The Scaling Book's three data-parallel rooflines next to the same ratio from catalog figures."""
    rows = scaling_book_rooflines(catalog)
    lines = ["| where | C (dense BF16) | W (per direction) | C / W here | the book |", "|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {escape_markdown(row.label)} | {row.flops_per_s / 1e12:,.1f} TFLOP/s | "
                     f"{row.bandwidth_bytes_per_s / 1e9:,.0f} GB/s | {row.tokens:,.0f} | {row.published_tokens:,} |")
    st.markdown("\n".join(lines))
    sources = {sid: catalog.source(sid) for row in rows for sid in row.source_ids}
    st.caption(
        "Data parallelism is compute-bound when tokens per GPU exceed C / W: the backward pass does 4 FLOPs per "
        "parameter per token and the all-reduce moves about 2 × 2 bytes per parameter (bf16). "
        f"Book: [{SCALING_BOOK_TITLE}]({SCALING_BOOK_URL}). Catalog figures: "
        + ", ".join(f"[{escape_markdown(s.title)}]({s.url})" for s in sources.values()) + "."
    )


@st.cache_resource(show_spinner=False)
def _ddp_rows():
    from interconnect.topics.overlap.ddp_benchmark import compare_ddp_benchmark

    return compare_ddp_benchmark()


@st.cache_resource(show_spinner=False)
def _ddp_table() -> str:
    lines = ["| model | GPUs | iteration: measured | model | extra over 1 GPU with DDP: measured | model | "
             "bytes only | 1 MB buckets: measured | model | bytes only |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row in _ddp_rows():
        if row.gpus in (2, 8, 16):
            lines.append(
                f"| {row.model} | {row.gpus} | {duration(row.measured_s)} | {duration(row.model_s)} | "
                f"{duration(row.measured_comm_overhead_s)} | {duration(row.model_comm_overhead_s)} | "
                f"{duration(row.bytes_only_comm_overhead_s)} | "
                f"{row.measured_bucket1_diff:+.1%} | {row.model_bucket1_diff:+.1%} | "
                f"{row.bytes_only_bucket1_diff:+.1%} |")
    return "\n".join(lines)


def show_ddp_check() -> None:
    """The model beside PyTorch's published DDP benchmark (ResNet and ResNeXt on DGX-1 V100 machines)."""
    from interconnect.topics.overlap.ddp_benchmark import DDP_BENCHMARK_SOURCE

    rows = _ddp_rows()
    multi = [row for row in rows if row.gpus > 1]
    ratios = sorted(row.model_comm_overhead_s / row.measured_comm_overhead_s for row in multi)
    worst = max(abs(row.ratio - 1) for row in rows)
    plain_exposed = [row.bytes_only_exposed_s for row in multi]
    measured_extra = [row.measured_comm_overhead_s for row in multi]
    small = [-row.model_bucket1_diff for row in rows]
    small_measured = [-row.measured_bucket1_diff for row in rows if row.measured_bucket1_diff is not None]
    st.markdown(
        "PyTorch's own DDP benchmark times torchvision models at batch 32 per GPU on DGX-1 machines (8 × V100, "
        "4 × 100 Gbit/s InfiniBand each), on one GPU without DDP and on 2-16 GPUs with it, and again with 1 MB "
        "buckets. Run with the measured one-GPU iteration as compute, 25 MiB buckets of fp32 gradients and the "
        f"page's default costs per bucket, the model lands within {worst:.0%} of every run. Counting bytes only, "
        f"it hid all but one bucket ({min(plain_exposed) * 1e3:.1f}-{max(plain_exposed) * 1e3:.1f} ms exposed) "
        f"where the runs lose {min(measured_extra) * 1e3:.0f}-{max(measured_extra) * 1e3:.0f} ms to the extra "
        "GPUs, and it made 1 MB buckets faster where every run was slower. What the bytes leave out: each bucket "
        "waits for the slowest GPU (the largest share, growing with the model's compute and the GPU count), NCCL "
        "takes SMs from the backward pass while it runs, and each bucket's launch costs the compute lane. With "
        f"those, the model gives {ratios[0]:.0%}-{ratios[-1]:.0%} of the extra time (median "
        f"{ratios[len(ratios) // 2]:.0%}) and makes 1 MB buckets {min(small):.1%}-{max(small):.1%} slower "
        f"(measured {min(small_measured):.1%}-{max(small_measured):.1%}). Still left out: DDP's per-parameter "
        "bookkeeping (one GPU with DDP is 2-10 ms slower than without), and the runs' step from 4 to 8 GPUs is "
        "larger than the model's."
    )
    st.markdown(_ddp_table())
    st.caption("Extra time, model: waiting for the slowest GPU + SM contention + exposed communication; bytes only: "
               "exposed communication alone. 1 MB buckets: the change in throughput against 25 MB buckets.")
    st.caption(f"Source: [{DDP_BENCHMARK_SOURCE}](https://github.com/pytorch/pytorch/blob/"
               "bf69c149b872e3c19ad493406a6d67ce3e97d716/benchmarks/distributed/ddp/README.md). "
               "All rows: `benchmarks/overlap_accuracy.py`.")
