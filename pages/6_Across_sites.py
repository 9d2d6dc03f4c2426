"""Page: training across data centres: what crosses the WAN, and how busy the GPUs stay."""

import streamlit as st

from interconnect.catalog import get_catalog
from interconnect.figures.crossdc import bytes_figure, required_bandwidth_figure, utilization_figure
from interconnect.models.crossdc import METHODS, TOPOLOGIES, get_crossdc_data
from interconnect.models.crossdc_view import (
    BANDWIDTH_GRID_BYTES_PER_S,
    PARAMS_GRID,
    PageInputs,
    crossdc_view,
    table4_check,
)
from interconnect.ui.crossdc_live import live_bandwidth
from interconnect.ui.page import (
    PageState,
    chart,
    custom_gpu_controls,
    escape_markdown,
    footer,
    gpu_picker,
    page_setup,
)
from interconnect.ui.pagespecs import CUSTOM_GPU_KEYS, crossdc_inputs, crossdc_specs
from interconnect.units import Q_, format_bandwidth, format_duration, format_quantity

page_setup("Across sites: training between data centres",
           "When training spans buildings or regions, the algorithm bends to the wire: synchronise rarely, "
           "and send less. How much WAN bandwidth keeps the GPUs busy, per method.")
catalog = get_catalog()
data = get_crossdc_data()
state = PageState("crossdc", crossdc_specs(), shared=("gpu", *CUSTOM_GPU_KEYS))
state.show_warnings()

CONFIDENCE_WORDS = {"high": "high (read in the paper's own text)",
                    "medium": "medium (abstract only, or a secondary copy whose arithmetic checks out)",
                    "low": "low (secondary only)"}
TOPOLOGY_LABELS = {"auto": "The method's", "ring": "Flat ring (every GPU)", "hierarchical": "Hierarchical",
                   "allgather": "All-gather"}


# Shared, never copied: the view is a frozen result only read here. Keyed by the inputs' repr (one string).
@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs={PageInputs: repr})
def cached_view(inputs: PageInputs):
    return crossdc_view(inputs)


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs={PageInputs: repr})
def cached_figures(inputs: PageInputs):
    view = cached_view(inputs)
    chosen = inputs.method
    markers = [(net.name.split(",")[0], net.bandwidth_bytes_per_s) for net in data.networks.values()]
    utilization = utilization_figure(BANDWIDTH_GRID_BYTES_PER_S, view.utilization_curves, view.labels, chosen,
                                     inputs.wan_bytes_per_s, inputs.target_utilization, markers)
    results = [view.results[m] for m in METHODS]
    sizes = bytes_figure([view.labels[m] for m in METHODS], [r.payload_bytes for r in results],
                         [r.bytes_per_step for r in results], METHODS.index(chosen))
    required = required_bandwidth_figure(PARAMS_GRID, view.required_curves, view.labels, chosen, inputs.params,
                                         inputs.target_utilization)
    return utilization, sizes, required


@st.cache_data(show_spinner=False)
def table4_markdown() -> str:
    """Streaming DiLoCo's Table 4 against the model as one Markdown table (paper / model, Gbit/s)."""
    cells = table4_check()
    targets = sorted({cell.utilization for cell in cells})
    rows: dict[tuple[str, str], list[str]] = {}
    for cell in cells:
        text = f"{cell.paper_gbit_per_s:g} / {cell.model_gbit_per_s:.3g}"
        rows.setdefault((cell.model, cell.variant), []).append(text)
    header = "| model | method | " + " | ".join(f"{t:.0%}" for t in targets) + " |"
    lines = [header, "|" + "---|" * (len(targets) + 2)]
    lines += [f"| {model} | {variant} | " + " | ".join(values) + " |" for (model, variant), values in rows.items()]
    return "\n".join(lines)


def use_network(network_id: str) -> None:
    network = data.networks[network_id]
    st.session_state[state.key("bw")] = format_bandwidth(Q_(network.bandwidth_bytes_per_s, "B/s"), "bit/s")
    st.session_state[state.key("rtt")] = format_duration(Q_(network.rtt_s, "s"))


def _time(seconds: float) -> str:
    return format_duration(Q_(seconds, "s")) if seconds > 0 else "0 s"


@st.fragment
def explorer() -> None:
    with st.container(border=True):
        st.markdown("**The run and the link between sites**")
        c1, c2, c3, c4 = st.columns(4)
        c1.text_input("Model parameters", key=state.key("params"), help="1e9, 7B, 70e9, 1.5T")
        c2.number_input("Sites", min_value=2, max_value=10_000, step=1, key=state.key("sites"),
                        help="Data centres, each with a full replica of the model.")
        c3.number_input("GPUs per site", min_value=1, max_value=1_000_000, step=1, key=state.key("gpus"))
        gpu_picker(state, catalog=catalog, container=c4)
        custom_gpu_controls(state, catalog)
        l1, l2, l3 = st.columns([1, 1, 2])
        l1.text_input("WAN bandwidth per site", key=state.key("bw"), help="Each direction, e.g. '10 Gbit/s'.")
        l2.text_input("Round-trip time", key=state.key("rtt"), help="e.g. '20 ms' or '100 us'.")
        l3.caption("Or pick a network class (CrossPipe, arXiv 2507.00217 §2.3). Campus figures are per port: a "
                   "site with many ports has that many times the bandwidth.")
        for column, network in zip(st.columns(len(data.networks)), data.networks.values(), strict=True):
            column.button(network.name.split(",")[0], key=f"crossdc.net.{network.id}", on_click=use_network,
                          args=(network.id,), help=f"Published: {network.published}", width="stretch")
    with st.container(border=True):
        st.markdown("**The method**")
        m1, m2, m3, m4 = st.columns(4)
        method = m1.selectbox("Method", list(METHODS), key=state.key("method"),
                              format_func=lambda m: data.methods[m].name)
        defaults = data.methods[method]
        m2.number_input(f"Inner steps H (0 = {defaults.inner_steps})", min_value=0, max_value=1_000_000, step=1,
                        key=state.key("h"), help="Inner steps between synchronisations; 0 takes the paper's.")
        m3.selectbox("Bits per value", ["auto", "32", "16", "8", "4", "2", "1"], key=state.key("bits"),
                     format_func=lambda b: f"auto ({defaults.bits})" if b == "auto" else b)
        m4.selectbox("Exchange", ["auto", *TOPOLOGIES], key=state.key("topo"),
                     format_func=lambda t: f"auto ({defaults.topology})" if t == "auto" else TOPOLOGY_LABELS[t])
        if method in ("streaming-diloco", "sparseloco"):
            k1, k2, k3, _ = st.columns(4)
            if method == "streaming-diloco":
                k1.number_input("Fragments (0 = one per 3 layers)", min_value=0, max_value=100_000, step=1,
                                key=state.key("frag"))
                k2.number_input("Overlap steps tau", min_value=0, max_value=1_000_000, step=1, key=state.key("tau"),
                                help="Inner steps a fragment's exchange may run behind before the worker waits.")
            else:
                k1.number_input("Chunk (values)", min_value=2, max_value=1 << 24, step=1, key=state.key("chunk"))
                k2.number_input("Kept per chunk (top-k)", min_value=1, max_value=1 << 24, step=1,
                                key=state.key("topk"))
                k3.number_input("Index bits", min_value=1, max_value=32, step=1, key=state.key("ibits"))
        o1, o2, o3, o4 = st.columns(4)
        o1.number_input("Layers (0 = from the size)", min_value=0, max_value=100_000, step=1, key=state.key("layers"))
        o2.number_input("Target utilisation (%)", min_value=1.0, max_value=99.9, step=0.5, key=state.key("target"))
        o3.toggle("Overlap", key=state.key("overlap"),
                  help="Hide the exchange behind the backward pass (and tau steps for Streaming DiLoCo).")
    with st.container(border=True):
        st.markdown("**The step time of one site**")
        t1, t2, t3, _ = st.columns(4)
        t1.radio("Step time", ["typed", "derived"], key=state.key("step"), horizontal=True,
                 format_func={"typed": "Typed", "derived": "From FLOPs"}.get)
        if state["step"] == "typed":
            t2.text_input("Step time", key=state.key("t"), help="One inner step of one site, e.g. '1 s'.")
        else:
            t2.text_input("Tokens per step per site", key=state.key("tokens"), help="e.g. '1M' or '4e6'.")
            t3.number_input("MFU (%)", min_value=1.0, max_value=100.0, step=1.0, key=state.key("mfu"))
    state.sync_url()

    inputs = crossdc_inputs(state.values())
    method = inputs.method
    view = cached_view(inputs)
    for warning in view.warnings:
        st.warning(escape_markdown(warning))
    result, scenario = view.result, view.scenario
    if inputs.step_mode == "derived":
        st.caption("Step time: " + escape_markdown(view.step_note))
    target = f"{inputs.target_utilization * 100:.3g} %"
    s1, s2, s3, s4, s5 = st.columns(5)
    per = f" Streaming DiLoCo sends one of {result.fragments} fragments at a time." if result.fragments > 1 else ""
    s1.metric("Payload per sync", format_quantity(Q_(result.payload_bytes, "B")),
              help="What one site contributes to one synchronisation." + per)
    s2.metric("WAN time per sync", _time(result.sync_s))
    s3.metric(f"Exposed per {result.scenario.method.inner_steps} steps", _time(result.exposed_s),
              help=f"With overlap: {_time(result.exposed_overlap_s)}; without: {_time(result.exposed_no_overlap_s)}; "
                   f"compute per round: {_time(result.compute_s)}.")
    s4.metric("Compute utilisation", f"{result.utilization:.1%}",
              help=f"With overlap {result.utilization_overlap:.1%}, without {result.utilization_no_overlap:.1%}.")
    needed = result.required_bytes_per_s
    s5.metric(f"WAN needed for {target}",
              format_bandwidth(Q_(needed, "B/s"), "bit/s") if needed < float("inf") else "out of reach",
              help="Per site, each direction. 'Out of reach' when the round trips alone exceed the time allowed.")
    st.caption(
        f"{scenario.sites} sites × {scenario.gpus_per_site} GPUs, {scenario.method.topology} exchange: each site sends "
        f"and receives {format_quantity(Q_(result.wan_bytes_per_sync, 'B'))} per sync. Without overlap the GPUs "
        f"would be busy {result.utilization_no_overlap:.1%} of the time and need "
        + (format_bandwidth(Q_(result.required_no_overlap_bytes_per_s, "B/s"), "bit/s")
           if result.required_no_overlap_bytes_per_s < float("inf") else "an unreachable bandwidth")
        + f"; with overlap {result.utilization_overlap:.1%}."
    )
    live_bandwidth(state, inputs, view)
    utilization, sizes, required = cached_figures(inputs)
    chart(utilization, key="crossdc-utilization")
    others = ", ".join(f"{m.name} H = {m.inner_steps}, {m.bits}-bit" for m in data.methods.values() if m.id != method)
    st.caption(f"Thick: the method as set above. Dotted: the others as their papers ran them ({others}). Dashed "
               "line: your WAN bandwidth. Dotted grey lines: CrossPipe's network classes.")
    chart(sizes, key="crossdc-bytes")
    chart(required, key="crossdc-required")
    st.caption("The step time grows in proportion to the model (same tokens per step, same GPUs), so payload and "
               "compute grow together and data parallel and DiLoCo need the same bandwidth at every size. Streaming "
               "DiLoCo needs less: a bigger model has more layers, so more and smaller fragments, each hidden behind "
               "its own overlap window.")


explorer()

st.subheader("What was reported")
st.caption("Each card: the number, where it is stated, and how much of the source was read.")
columns = st.columns(2)
for i, card in enumerate(data.reported):
    sources = "; ".join(f"[{escape_markdown(catalog.source(s).title)}]({catalog.source(s).url})" for s in card.sources)
    note = f"\n\n*{escape_markdown(card.note)}*" if card.note else ""
    with columns[i % 2].container(border=True):
        st.markdown(f"#### {escape_markdown(card.headline)}\n**{escape_markdown(card.work)}.** "
                    f"{escape_markdown(card.claim)}{note}\n\nSource: {sources}, {escape_markdown(card.where)}. "
                    f"Confidence: {CONFIDENCE_WORDS[card.confidence]}.")

with st.expander("This model against Streaming DiLoCo's Table 4 (Gbit/s needed: paper / model)"):
    st.markdown(table4_markdown())
    st.caption("Two replicas, H = 100, step times of 0.1, 0.8 and 4.9 s, no latency (arXiv 2501.18512, Table 4). The "
               "paper's bandwidths are points of one grid about 1.21× apart, so each is the first grid value that "
               "reaches the target. The model is within 20 % of every cell up to 95 % utilisation; at 99 % it "
               "misses 100B Streaming DiLoCo without overlap by a third (13.1 against 19.3).")

st.subheader("Often quoted, and what the sources say")
for quote in data.quoted:
    sources = "; ".join(f"[{escape_markdown(catalog.source(s).title)}]({catalog.source(s).url})" for s in quote.sources)
    with st.container(border=True):
        st.markdown(f"**Often quoted:** {escape_markdown(quote.claim)}\n\n"
                    f"**What the sources say:** {escape_markdown(quote.correction)} ({sources})")

st.subheader("The honest limits")
limits = [f"- {escape_markdown(limit.text)} ({'; '.join(f'[source]({catalog.source(s).url})' for s in limit.sources)})"
          for limit in data.limits]
st.markdown("\n".join(limits) + "\n"
            "- This model is an alpha-beta sketch: it leaves out single-flow TCP limits (window ÷ round trip), "
            "congestion and stragglers, compute slowed by communication kernels, and whether the method trains "
            "as well as data parallel. Utilisation is not quality: the papers above measure both.")
footer()
