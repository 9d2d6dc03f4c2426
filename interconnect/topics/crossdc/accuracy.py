"""How right the Across sites page's estimates are: the model's error on the published figures like each one.

The band arithmetic (neighbour ratios to ``low``/``high``/``median``, leave one source out, the coverage rule)
is :mod:`interconnect.hardware.accuracy`; this module says which published figures judge which estimate.

**The published comparisons**, each evaluated once per process with the live model (model / published):

* *pipeline step*: CrossPipe's figures whose model value is the pipeline's step, alone or over a reference
  the model takes from the inputs (``crossdc_pipeline.toml``: Table 5's CrossUD runtime per micro-batch, the
  405B step at two latencies, the 405B step over the ideal one-site step; 7 figures). Its speed-up over data
  parallel and its schedule gain are left out: their model values are mostly another model's (the
  data-parallel exchange, the static 1F1B), not the pipeline's step.
* *pipeline message*: CrossPipe's message size and its transfer time over the forward (3 figures).
* *exchange bandwidth*: every cell of Streaming DiLoCo's Table 4 (``crossdc.toml``; the WAN bandwidth data
  parallel, DiLoCo and Streaming DiLoCo need for a target utilisation, 75 cells, the 99 % column included).
* *weight-sync payload*: the payload rows of ``weight_sync.toml`` the model is compared with (4).
* *weight-sync time*: every ``[[ratio]]`` row of ``weight_sync.toml`` (8, the three the model misses
  included): one measured time over another of the same system. The software path's rate cancels in a
  ratio, so these judge how the model's time scales with the bytes and the receivers, not its absolute
  time, which inside a site no source allows predicting (the file's rule 3).

Figures that only restate an input (T_lat / T_F) are not counted: the model cannot miss them.

**Similarity rules** (fixed before the bands were computed), strongest first:

* pipeline (main explorer's CrossPipe method, and the pipeline section): *quantity* (hard): step or
  message. No soft rule: every figure is CrossPipe's own setting.
* replica methods (data parallel, DiLoCo, Streaming DiLoCo): *quantity* (hard): WAN bandwidth needed;
  *method* (hard): one Table 4 ran (DiLoCo int8, SparseLoCo, CoCoDC and MT-DAO have none: extrapolation);
  *same method* (soft); *target utilisation* (soft, the weakest): Table 4's column nearest the page's.
* weight sync: *quantity* (hard): payload or time; for the time, *delivery* (hard): a broadcast tree (every
  published sync is one; a fan-out is extrapolation) and *route* (soft): the same route (node or site; no
  published ratio crosses a WAN). For the payload, *what is sent* (soft): full or sparse.

**How many, and which range** (the rule of the Seating chart, and of the nccl-tests bands until their 95 %
interval of December 2026, from the same stated principle: the band should hold the next published figure like
the case about 80 % of the time, :data:`BAND_COVERAGE`). Soft rules are dropped from the weakest until nine
figures are left, or all the hard rules leave if fewer; the range is the k-th smallest to the k-th largest ratio,
k = max(1, floor((n + 1) / 10)). Fewer than three: extrapolation.

**Leave one source out**: a case with the inputs of a published one (every input the published figure states
that the page also has is equal) is judged without any figure of its source. Every CrossPipe figure is
from one paper and every Table 4 cell from one, so such a case has no band.

**What is arithmetic, not an estimate**: the replica methods' payload (parameters x bits per value / 8, or the
method's sparse encoding) and WAN time per sync (bytes over the link plus the round trips), the pipeline's
stage time and bubble, and the weight sync's absolute time (bytes over the slowest link plus the latencies).
No published figure judges them beyond the checks above: the page says so.

>>> band = exchange_band("dp", 0.9)
>>> band.n, band.basis.split(";")[0]
(15, 'held: WAN bandwidth needed, a method Table 4 ran, data parallel')
>>> weight_sync_time_band("site", "fanout").extrapolation
True
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace

from interconnect.hardware.accuracy import (
    Criterion,
    ErrorBand,
    Evaluated,
    Expected,
    expected_text,
    extrapolation,
    select_band,
)
from interconnect.topics.crossdc.data import (
    get_crossdc_data,
    get_pipeline_cases,
    get_weight_sync_data,
    get_weight_sync_ratios,
)
from interconnect.topics.crossdc.model.methods import make_method
from interconnect.topics.crossdc.model.pipeline import PipelineScenario
from interconnect.topics.crossdc.model.pipeline_compare import predict_case
from interconnect.topics.crossdc.model.scenario import Scenario, evaluate
from interconnect.topics.crossdc.model.weight_sync import WeightSyncScenario, evaluate_weight_sync

__all__ = ["BAND_COVERAGE", "PIPELINE_ARITHMETIC", "PIPELINE_MESSAGE", "PIPELINE_STEP", "REPLICA_ARITHMETIC",
           "TABLE4_METHODS", "WEIGHT_SYNC_ARITHMETIC", "band_rows", "crossdc_band", "evaluated", "exchange_band",
           "expected_json", "judged", "leave_one_source_out", "pipeline_band", "pipeline_prediction",
           "pipeline_section_band", "pipeline_source", "published_reading", "table4_source", "weight_sync_bands",
           "weight_sync_payload_band", "weight_sync_source", "weight_sync_time_band"]

#: The share of further published figures like a case that its band should hold.
BAND_COVERAGE = 0.8
#: CrossPipe's quantities judged as the pipeline's step, and as its message.
PIPELINE_STEP = ("runtime_per_micro_batch", "latency_step_ratio", "slowdown_vs_ideal")
PIPELINE_MESSAGE = ("message_bytes", "transfer_over_forward")
#: Table 4's variants by the page's method id.
TABLE4_METHODS = {"data-parallel": "dp", "vanilla-diloco": "diloco", "streaming": "streaming-diloco",
                  "streaming-overlap": "streaming-diloco", "streaming-overlap-fp4": "streaming-diloco"}
_TABLE4_KNOBS = {"data-parallel": {}, "vanilla-diloco": {"inner_steps": 100, "bits": 16},
                 "streaming": {"bits": 16, "overlap_steps": 0}, "streaming-overlap": {"bits": 16, "overlap_steps": 1},
                 "streaming-overlap-fp4": {"bits": 4, "overlap_steps": 1}}
_METHOD_NAMES = {"dp": "data parallel", "diloco": "DiLoCo", "streaming-diloco": "Streaming DiLoCo"}


# --- evaluation -----------------------------------------------------------------------------------------

def pipeline_prediction(case) -> float:
    """The model's value of one CrossPipe figure from the case's own inputs (the rules of ``crossdc_pipeline.toml``,
    :func:`~interconnect.topics.crossdc.model.pipeline_compare.predict_case`); ``ValueError`` for a quantity the
    model does not predict."""
    try:
        return predict_case(case.quantity, case.inputs)
    except ValueError:
        raise ValueError(f"{case.id}: no prediction for {case.quantity}") from None


def _weight_sync_value(m) -> float:
    """The model's payload (B) or sync time (s) for a measurement's inputs, at the wire's rate alone."""
    r = evaluate_weight_sync(WeightSyncScenario(m.params, m.bytes_per_value, m.mode, m.fraction, m.index_bits,
                                                route=m.route, receivers=m.receivers))
    return r.payload_bytes if m.quantity == "payload" else r.sync_s


@functools.lru_cache(maxsize=1)
def evaluated() -> dict[str, tuple[Evaluated, ...]]:
    """Every published figure that judges an estimate, by group: ``pipeline-step``, ``pipeline-message``,
    ``exchange-bandwidth``, ``weight-sync-payload``, ``weight-sync-time``; model / published each."""
    groups: dict[str, list[Evaluated]] = {k: [] for k in ("pipeline-step", "pipeline-message", "exchange-bandwidth",
                                                         "weight-sync-payload", "weight-sync-time")}
    for case in get_pipeline_cases():
        if not case.compared or case.quantity not in (*PIPELINE_STEP, *PIPELINE_MESSAGE):
            continue
        group = "pipeline-step" if case.quantity in PIPELINE_STEP else "pipeline-message"
        groups[group].append(Evaluated(case.id, case.sources[0], pipeline_prediction(case) / case.published,
                                       {"quantity": case.quantity, "published": case.published}))
    data = get_crossdc_data()
    table = data.table4
    for row in table.rows:
        base = Scenario(row.params, table.sites, row.step_s, wan_bytes_per_s=1e9, rtt_s=0.0,
                        method=make_method(TABLE4_METHODS[row.variant], **_TABLE4_KNOBS[row.variant]),
                        layers=row.layers, backward_fraction=data.compute.backward_fraction)
        for target, paper in zip(table.utilization, row.required_gbit_per_s, strict=True):
            needed = evaluate(replace(base, target_utilization=target)).required_bytes_per_s * 8 / 1e9
            if math.isfinite(needed):
                groups["exchange-bandwidth"].append(Evaluated(
                    f"Table 4 {row.model} {row.variant} {target:.0%}", table.sources[0], needed / paper,
                    {"method": TABLE4_METHODS[row.variant], "target": target, "params": row.params,
                     "step_s": row.step_s, "published": paper}))
    for m in get_weight_sync_data():
        if m.quantity == "payload" and m.compared:
            groups["weight-sync-payload"].append(Evaluated(m.id, m.sources[0], _weight_sync_value(m) / m.measured,
                                                           {"mode": m.mode, "route": m.route, "published": m.measured}))
    for r in get_weight_sync_ratios():
        if r.compared or r.pending.startswith("Not reproduced"):
            model = _weight_sync_value(r.of) / _weight_sync_value(r.against)
            groups["weight-sync-time"].append(Evaluated(r.id, r.sources[0], model / r.measured,
                                                        {"route": r.of.route, "published": r.measured}))
    return {k: tuple(v) for k, v in groups.items()}


# --- which published figure a case is ---------------------------------------------------------------------

def _same(a: float, b: float) -> bool:
    return math.isclose(float(a), float(b), rel_tol=1e-6)


def pipeline_source(inputs: dict[str, float]) -> str | None:
    """The source of the compared CrossPipe figure whose stated inputs ``inputs`` all match, if any.

    ``inputs`` holds what the page knows under the file's names (``hidden``, ``seq_len``, ``micro_batch``,
    ``bytes_per_value``, ``pipelines``, ``stages``, ``micro_batches``, ``sites``, ``params``); at least two
    shared inputs must match.

    >>> pipeline_source({"stages": 8, "micro_batches": 16, "sites": 2})
    'arxiv-crosspipe'
    >>> pipeline_source({"stages": 8, "micro_batches": 32, "sites": 2}) is None
    True
    """
    for case in get_pipeline_cases():
        if not case.compared:
            continue
        shared = set(case.inputs) & set(inputs)
        if len(shared) >= 2 and all(_same(case.inputs[k], inputs[k]) for k in shared):
            return case.sources[0]
    return None


def table4_source(params: float, step_s: float, sites: int, rtt_s: float) -> str | None:
    """Table 4's source when a case has the shape of one of its rows (size, step time, two sites, no latency)."""
    table = get_crossdc_data().table4
    if sites != table.sites or rtt_s != 0:
        return None
    for row in table.rows:
        if _same(row.params, params) and _same(row.step_s, step_s):
            return table.sources[0]
    return None


def weight_sync_source(s: WeightSyncScenario) -> str | None:
    """The source of a published weight-sync row in a band (a compared payload, or a time of a ratio row) with this
    scenario's model, precision and payload mode.

    >>> weight_sync_source(WeightSyncScenario(1e12, 1.0))  # Kimi-K2 in fp8, checkpoint-engine's rows
    'moonshot-checkpoint-engine'
    >>> weight_sync_source(WeightSyncScenario(70e9, 2.0)) is None  # a 70B row exists (vLLM over gloo) but is in no band
    True
    """
    in_bands = {c.id for c in evaluated()["weight-sync-payload"]}
    in_bands |= {m.id for r in get_weight_sync_ratios() if r.id in {c.id for c in evaluated()["weight-sync-time"]}
                 for m in (r.of, r.against)}
    for m in get_weight_sync_data():
        if m.id not in in_bands:
            continue
        if _same(m.params, s.params) and _same(m.bytes_per_value, s.bytes_per_value) and m.mode == s.mode and \
                (m.mode == "full" or _same(m.fraction, s.fraction)):
            return m.sources[0]
    return None


# --- the bands ------------------------------------------------------------------------------------------

def pipeline_band(quantity: str = "step", *, leave_out: str | None = None) -> ErrorBand:
    """The band of a pipeline's step (``"step"``) or its message per micro-batch (``"message"``).

    >>> pipeline_band("step").n, pipeline_band("message").n
    (7, 3)
    >>> pipeline_band("step", leave_out="arxiv-crosspipe").extrapolation
    True
    """
    if quantity not in ("step", "message"):
        raise ValueError(f"quantity must be 'step' or 'message', got {quantity!r}")
    what = ("pipeline step time (model / published; utilisation the inverse)" if quantity == "step"
            else "message per micro-batch (model / published)")
    return select_band(evaluated()[f"pipeline-{quantity}"], [Criterion(f"CrossPipe's {quantity} figures",
                                                                       lambda c: True, hard=True)],
                       leave_out=leave_out, quantity=what, noun="figures", coverage=BAND_COVERAGE)


def exchange_band(method_id: str, target: float, *, leave_out: str | None = None) -> ErrorBand:
    """The band of a replica method's WAN bandwidth needed for ``target`` utilisation (Streaming DiLoCo's Table 4)."""
    quantity = "WAN bandwidth needed (model / published)"
    if method_id not in _METHOD_NAMES:
        return extrapolation("no published bandwidth for this method", quantity, "figures")
    nearest = min(get_crossdc_data().table4.utilization, key=lambda t: abs(t - target))
    return select_band(evaluated()["exchange-bandwidth"], [
        Criterion("WAN bandwidth needed", lambda c: True, hard=True),
        Criterion("a method Table 4 ran", lambda c: True, hard=True),
        Criterion(_METHOD_NAMES[method_id], lambda c: c.attrs["method"] == method_id),
        Criterion(f"target {nearest:.0%}", lambda c: c.attrs["target"] == nearest),
    ], leave_out=leave_out, quantity=quantity, noun="figures", coverage=BAND_COVERAGE)


def weight_sync_payload_band(mode: str, *, leave_out: str | None = None) -> ErrorBand:
    """The band of a weight sync's payload.

    >>> weight_sync_payload_band("full").n
    4
    """
    sparse = mode != "full"
    return select_band(evaluated()["weight-sync-payload"], [
        Criterion("payload", lambda c: True, hard=True),
        Criterion("sparse" if sparse else "every value", lambda c: (c.attrs["mode"] != "full") == sparse),
    ], leave_out=leave_out, quantity="payload per replica (model / measured)", noun="figures",
        coverage=BAND_COVERAGE)


def weight_sync_time_band(route: str, topology: str = "tree", *, leave_out: str | None = None) -> ErrorBand:
    """The band of how a weight sync's time scales: the ratio rows (one time over another of one system).

    >>> weight_sync_time_band("site").n
    8
    """
    quantity = "how the sync time scales with bytes and receivers (ratios of two times, model / measured)"
    if topology != "tree":
        return extrapolation("every published sync is a broadcast tree", quantity, "figures")
    return select_band(evaluated()["weight-sync-time"], [
        Criterion("time ratio", lambda c: True, hard=True),
        Criterion("broadcast tree", lambda c: True, hard=True),
        Criterion(f"route {route}", lambda c: c.attrs["route"] == route),
    ], leave_out=leave_out, quantity=quantity, noun="figures", coverage=BAND_COVERAGE)


def band_rows(band: ErrorBand) -> list[dict[str, str]]:
    """One row per figure of a band, for the page's pop-over: the figure, its source and model / published."""
    by_id = {c.id: c for group in evaluated().values() for c in group}
    return [{"Figure": c.id, "Source": c.source, "Published": f"{c.attrs['published']:.4g}",
             "Model / published": f"{c.ratio:.3f}"} for c in (by_id[i] for i in band.runs)]


# --- what each part of the page shows -----------------------------------------------------------------------

#: What the replica methods' payload, WAN time and time-to-target are, where no published figure judges them.
REPLICA_ARITHMETIC = ("Payload and WAN time are arithmetic: parameters × bits / 8 (or the method's encoding), bytes / "
                      "bandwidth + round trips; utilisation and exposed time are the same formula at your bandwidth. "
                      "Time to data parallel's loss: extrapolation: no published run like this.")
#: The same for the pipeline's stage time and bubble.
PIPELINE_ARITHMETIC = ("Stage time and bubble are arithmetic: 6 × parameters × tokens / (GPUs × FLOP/s × MFU), "
                       "(p − 1) / m.")
#: The same for a weight sync's absolute time.
WEIGHT_SYNC_ARITHMETIC = ("The time itself is arithmetic, payload / the slowest link + latencies: inside a site no "
                          "source allows predicting it.")


def published_reading(expected: dict[str, Expected] | None, fmt, noun: str) -> str:
    """``"a published figure would likely read 0.50–0.60 Gbit/s needed (about 0.54 Gbit/s)"``: the one reading of a
    band's ``expected`` (empty when None). Said of a published figure, not a measurement: Table 4 is the paper's
    simulation, and CrossPipe's figures mix its simulator and its runs.

    >>> published_reading({"x": Expected(1.0, 1.5, 2.0)}, lambda v: f"{v:.1f} s", "per step")
    'a published figure would likely read 1.0–2.0 s per step (about 1.5 s)'
    """
    if not expected:
        return ""
    (e,) = expected.values()
    return expected_text((e, fmt, noun), reader="a published figure")


def expected_json(expected: dict[str, Expected] | None) -> dict[str, dict] | None:
    """A band's ``expected`` as the commands' ``--json`` gives it (None for an extrapolation)."""
    return None if expected is None else {k: e.as_json() for k, e in expected.items()}


def crossdc_band(scenario: Scenario, result) -> tuple[ErrorBand, dict[str, Expected] | None, str]:
    """The main explorer's band: ``(band, expected, note)``.

    A replica method's band is of its WAN bandwidth needed (``expected``: ``{"required_wan_bandwidth"}`` in
    Gbit/s); CrossPipe's is of the pipeline's step (``expected``: ``{"compute_utilization"}`` in %, the inverse,
    its upper end capped at 100 %).
    ``note`` says what is arithmetic.
    """
    method = scenario.method
    if method.pipeline:
        leave = pipeline_source({"sites": scenario.sites, "stages": scenario.sites,
                                 "micro_batches": method.micro_batches, "hidden": scenario.resolved_hidden,
                                 "params": scenario.params})
        band = pipeline_band("step", leave_out=leave)
        read = band.expected(result.utilization * 100, "%", reciprocal=True, quantity="compute utilisation")
        message = pipeline_band("message", leave_out=leave)
        note = f"Payload (the message per micro-batch): {message.text()}. {PIPELINE_ARITHMETIC}"
        if read is not None:
            read = replace(read, high=min(read.high, 100.0))
        return band, None if read is None else {"compute_utilization": read}, note
    leave = table4_source(scenario.params, scenario.step_s, scenario.sites, scenario.rtt_s)
    band = exchange_band(method.id, scenario.target_utilization, leave_out=leave)
    needed = result.required_bytes_per_s * 8 / 1e9
    read = band.expected(needed, "Gbit/s", quantity="WAN bandwidth needed") if math.isfinite(needed) else None
    return band, None if read is None else {"required_wan_bandwidth": read}, REPLICA_ARITHMETIC


def pipeline_section_band(scenario: PipelineScenario,
                          result) -> tuple[ErrorBand, dict[str, Expected] | None, str, ErrorBand]:
    """The pipeline section's band, of its step (``expected``: ``{"step_time"}`` in s), its note (the message's band
    and what is arithmetic) and the message's own band."""
    leave = pipeline_source({k: float(getattr(scenario, k)) for k in ("hidden", "seq_len", "micro_batch",
                                                                      "bytes_per_value", "pipelines", "stages",
                                                                      "micro_batches", "sites", "params")})
    band = pipeline_band("step", leave_out=leave)
    read = band.expected(result.step_s, "s", quantity="step time")
    message = pipeline_band("message", leave_out=leave)
    note = f"Message per micro-batch: {message.text()}. {PIPELINE_ARITHMETIC}"
    return band, None if read is None else {"step_time": read}, note, message


def weight_sync_bands(scenario: WeightSyncScenario) -> tuple[ErrorBand, ErrorBand, str]:
    """The weight-sync section's bands: ``(time, payload, note)``."""
    leave = weight_sync_source(scenario)
    time = weight_sync_time_band(scenario.route, scenario.topology, leave_out=leave)
    payload = weight_sync_payload_band(scenario.mode, leave_out=leave)
    return time, payload, f"Payload: {payload.text()}. {WEIGHT_SYNC_ARITHMETIC}"


def judged(group: str, by: str = "source") -> list[tuple[Evaluated, ErrorBand]]:
    """Each figure of a group with the band of the others: its own source left out (``by="source"``, the rule the
    page applies), or only itself (``by="figure"``, a weaker check for a group of one source, whose figures may miss
    together). The group's one hard rule stands; the similarity rules of the page are not applied."""
    cases = evaluated()[group]
    out = []
    for case in cases:
        pool = cases if by == "source" else [c for c in cases if c.id != case.id]
        out.append((case, select_band(pool, [Criterion(group, lambda c: True, hard=True)],
                                      leave_out=case.source if by == "source" else None, coverage=BAND_COVERAGE)))
    return out


def leave_one_source_out(by: str = "source") -> dict[str, tuple[int, int, int, float | None]]:
    """Each group's totals of :func:`judged`: ``{group: (figures, with a band, contained, median high / low)}``; a
    group of one source has no band once its source is left out.
    """
    import statistics

    out = {}
    for group in evaluated():
        banded = [(case, band) for case, band in judged(group, by) if not band.extrapolation]
        widths = [band.high / band.low for _, band in banded]
        out[group] = (len(evaluated()[group]), len(banded), sum(band.contains(case.ratio) for case, band in banded),
                      statistics.median(widths) if widths else None)
    return out
