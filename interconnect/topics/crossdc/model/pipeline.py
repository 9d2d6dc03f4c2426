r"""A pipeline across sites: the model's layers split over S sites, activations crossing the WAN.

Instead of each site holding a whole replica (data parallel, DiLoCo), the pipeline's stages are spread
over the sites: the first :math:`p/S` stages in site 1, the next in site 2, and so on. Only the
:math:`S-1` cuts between sites cross the WAN, and what crosses is small and frequent: each micro-batch's
activations going forward and their gradients coming back (CrossPipe, ``arxiv-crosspipe``, §2 and §3).

1. **Message** (:func:`message_bytes`): one micro-batch's activations at a cut, for every pipeline
   (data-parallel replica of the pipeline) whose cut shares the link:

   .. math:: M = b \, s \, d \, v \, n_\text{DP}

   with micro-batch :math:`b` sequences of :math:`s` tokens, hidden size :math:`d`, :math:`v` bytes per
   value (2 for bf16) and :math:`n_\text{DP}` pipelines. The gradients coming back are the same size, on
   the link's other direction. CrossPipe §3 counts the same volume: :math:`b\,s\,d\,n_\text{DP}\cdot 2`
   bytes (1 GB for its 70B-class model at :math:`n_\text{DP}=16`).

2. **Compute per micro-batch per stage** (:func:`stage_time_s`): forward and backward of one micro-batch
   on one stage of :math:`g` GPUs,

   .. math:: t_\text{mb} = \frac{6\,N\,b\,s}{p \, g \, F \, \mathrm{MFU}}, \qquad t_F = t_\text{mb}/3

   (6 FLOPs per parameter per token, Kaplan et al. §2.1; the backward pass is twice the forward).

3. **Schedule** (:data:`SCHEDULES`): the backward is split, as the zero-bubble papers do, into
   :math:`T_B` (gradient of the input, which the previous stage waits for) and :math:`T_W` (gradient of the
   weights, which nothing waits for), so :math:`t_\text{mb} = T_F + T_B + T_W` with :math:`T_B + T_W = 2T_F`
   and, by default, :math:`T_B = T_W = T_F` (the papers' own assumption). Each schedule has a bubble (idle
   time per step, :func:`schedule_bubble_s`), a peak activation memory in units of :math:`M_B`, one
   micro-batch's activations of a whole stage (:func:`activation_memory`), and a number of times each
   micro-batch crosses a cut each way (:func:`cut_crossings`):

   ============  ====================================  =====================  ==========
   schedule      bubble per step                       activation memory      crossings
   ============  ====================================  =====================  ==========
   1F1B          :math:`(p-1)(T_F+T_B+T_W)`            :math:`p`              1
   interleaved   :math:`(p-1)(T_F+T_B+T_W)/v`          :math:`p + (p-1)/v`    :math:`2v-1`
   ZB-H1         :math:`(p-1)(T_F+T_B-T_W)`            :math:`p`              1
   ZB-H2         :math:`(p-1)(T_F+T_B-2T_W)`           :math:`2p-1`           1
   ZBV           0 at :math:`T_F=T_B=T_W`              :math:`p`              2
   ============  ====================================  =====================  ==========

   1F1B and interleaved (:math:`v = 2` chunks per stage here): Narayanan et al. 2021 (arXiv 2104.04473)
   §2.2; the interleaved memory is counted from its warm-up (the first stage runs :math:`2(p-1) + (v-1)p`
   chunk forwards before its first backward, each :math:`1/v` of a stage). ZB-H1 and ZB-H2: Qi et al.
   (``arxiv-zero-bubble``) §2, where ZB-H1 keeps 1F1B's memory and ZB-H2 allows :math:`(2p-1)M_B`. ZBV (two
   chunks per stage in a V): the authors' comparison table (``hf-zero-bubble-space``: bubble 0, memory 1x
   and pipeline traffic 2x of 1F1B's at :math:`T_F=T_B=T_W`) and Qi et al. 2024 (``arxiv-pp-controllable-memory``:
   "almost zero pipeline bubbles while maintaining the same activation memory as 1F1B"). Away from
   :math:`T_F=T_B=T_W` the model gives ZBV ZB-H2's form, :math:`(p-1)\max(0, T_F+T_B-2T_W)`: our
   approximation, not the papers'. The crossings count what a cut between two sites carries: one message
   for a schedule that walks the stages once; two for the V, which walks them down and back; :math:`2v-1`
   for the interleaved loop, which walks them :math:`v` times and wraps from the last stage to the first
   :math:`v-1` times. For :math:`v = 2` these are CrossPipe's counts for UD, Wave and Loop schedules (2, 4
   and 6 transfers per micro-batch both ways, §3).

4. **Step** (:func:`pipeline_step_s`) with :math:`p` stages, :math:`m` micro-batches per pipeline and
   :math:`k` crossings per micro-batch:

   .. math::
      \tau = \max(t_\text{mb},\ k\,M/B), \qquad
      t_\text{step} = m\,\tau + \text{bubble} + 2k(S-1)\,(\alpha + M/B)

   :math:`\tau` is the steady-state period: a stage finishes a micro-batch every :math:`t_\text{mb}`
   unless the WAN, carrying :math:`k` messages per micro-batch in each direction, is slower. The first
   forward and the last backward each cross the :math:`S-1` cuts :math:`k` times, paying latency
   :math:`\alpha` (one way) and the transfer :math:`M/B` each time. For 1F1B the bubble is
   :math:`(p-1)/m` of the ideal compute.

   **What this assumes** (and CrossPipe shows is not free): the steady state keeps enough micro-batches
   in flight before each cut to cover its round trip, so the WAN's latency is paid only in the fill and
   the drain. A static 1F1B does not: CrossPipe §3 finds its critical path crosses the sites once per
   micro-batch, so latency is paid :math:`O(m)` times; its solver and greedy schedules (and, with memory to
   spare, more micro-batches in flight) recover most of it. :func:`in_flight_extra` gives how many extra
   micro-batches of activations the stage before a cut must hold for this, the memory price.

5. **Against data parallel and DiLoCo on the same WAN** (:func:`compare`): the same GPUs as :math:`S`
   replicas, each processing its share of the same global batch without a bubble (each replica's own
   pipeline on ZBV, as CrossPipe's Appendix E runs its data-parallel baseline), plus the gradient
   all-reduce over the WAN per step from
   :mod:`~interconnect.topics.crossdc.model.timing`; DiLoCo-style methods at their papers' settings, as
   the page computes them.

Units are in the names: ``_bytes``, ``_bytes_per_s``, ``_s``. No file is read here and nothing is drawn;
CrossPipe's published cases are in ``interconnect/data/crossdc_pipeline.toml``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from interconnect.topics.crossdc.model.methods import CrossDCInputError
from interconnect.units import expects

__all__ = [
    "INTERLEAVED_CHUNKS",
    "SCHEDULE",
    "SCHEDULES",
    "WEIGHT_SHARE",
    "PipelineResult",
    "PipelineScenario",
    "activation_memory",
    "bubble_fraction",
    "check_schedule",
    "cut_crossings",
    "dp_exchange_step_s",
    "evaluate_pipeline",
    "in_flight_extra",
    "message_bytes",
    "pass_times",
    "pipeline_step_s",
    "schedule_bubble_s",
    "stage_time_s",
]

#: The schedules the model times, by id (the link's ``ppsched`` and the command's ``--schedule``).
SCHEDULES = {
    "1f1b": "1F1B (one forward, one backward; latency hidden in the steady state)",
    "interleaved": "interleaved 1F1B (2 chunks per stage; latency hidden in the steady state)",
    "zb-h1": "ZB-H1 (zero bubble at 1F1B's memory; latency hidden in the steady state)",
    "zb-h2": "ZB-H2 (zero bubble, twice 1F1B's memory; latency hidden in the steady state)",
    "zbv": "ZBV (zero-bubble V, 2 chunks per stage; latency hidden in the steady state)",
}
#: The default schedule's description (kept for callers of the first version).
SCHEDULE = SCHEDULES["1f1b"]
#: Chunks per stage of the interleaved schedule (CrossPipe's Loop counts are for 2).
INTERLEAVED_CHUNKS = 2
#: Share of the backward that is the weight gradient W (the rest, B, is the input gradient); the zero-bubble
#: papers' T_B = T_W.
WEIGHT_SHARE = 0.5


def check_schedule(schedule: str) -> str:
    """The schedule id, or a one-line error naming the choices.

    >>> check_schedule("zbv")
    'zbv'
    """
    if schedule not in SCHEDULES:
        raise CrossDCInputError(f"unknown pipeline schedule {str(schedule)[:40]!r}: choose one of "
                                f"{', '.join(SCHEDULES)}")
    return schedule


@expects(stage_s="s")
def pass_times(stage_s, weight_share=WEIGHT_SHARE):
    r"""Forward, input-gradient and weight-gradient times :math:`(T_F, T_B, T_W)` of one micro-batch on one
    stage: :math:`T_F = t_\text{mb}/3`, :math:`T_B = (1-w)\,2t_\text{mb}/3`, :math:`T_W = w\,2t_\text{mb}/3`.

    >>> [round(float(x), 3) for x in pass_times(0.327)]
    [0.109, 0.109, 0.109]
    """
    t = _positive("stage time", stage_s, strict=False)
    w = np.asarray(weight_share, dtype=float)
    if np.any(~np.isfinite(w) | (w < 0) | (w > 1)):
        raise CrossDCInputError(f"the weight-gradient share of the backward must lie in [0, 1], got {weight_share}")
    return t / 3, (1 - w) * 2 * t / 3, w * 2 * t / 3


@expects(forward_s="s", input_grad_s="s", weight_grad_s="s")
def schedule_bubble_s(schedule, stages, forward_s, input_grad_s, weight_grad_s):
    r"""Idle time per step of one stage, from the closed forms of the table in the module's text.

    >>> [round(float(schedule_bubble_s(k, 8, 1, 1, 1)), 3) for k in SCHEDULES]
    [21.0, 10.5, 7.0, 0.0, 0.0]
    """
    p = _positive("stages", stages, 1, strict=False)
    f, b, w = forward_s, input_grad_s, weight_grad_s
    schedule = check_schedule(schedule)
    if schedule == "1f1b":
        return (p - 1) * (f + b + w)
    if schedule == "interleaved":
        return (p - 1) * (f + b + w) / INTERLEAVED_CHUNKS
    if schedule == "zb-h1":
        return (p - 1) * np.maximum(f + b - w, 0.0)
    return (p - 1) * np.maximum(f + b - 2 * w, 0.0)  # ZB-H2 as published; ZBV: 0 at F = B = W (ours beyond)


def activation_memory(schedule, stages):
    r"""Peak activations of the first stage, in micro-batches of a whole stage (:math:`M_B`).

    >>> [round(float(activation_memory(k, 8)), 2) for k in SCHEDULES]
    [8.0, 11.5, 8.0, 15.0, 8.0]
    """
    p = _positive("stages", stages, 1, strict=False)
    schedule = check_schedule(schedule)
    if schedule == "interleaved":
        return p + (p - 1) / INTERLEAVED_CHUNKS
    if schedule == "zb-h2":
        return 2 * p - 1
    return p


def cut_crossings(schedule) -> int:
    """Messages one micro-batch sends over a cut between sites, each way: 1, or 2 for the V, or 2v - 1 for the
    interleaved loop.

    >>> {k: cut_crossings(k) for k in SCHEDULES}
    {'1f1b': 1, 'interleaved': 3, 'zb-h1': 1, 'zb-h2': 1, 'zbv': 2}
    """
    schedule = check_schedule(schedule)
    return {"interleaved": 2 * INTERLEAVED_CHUNKS - 1, "zbv": 2}.get(schedule, 1)


def _positive(name: str, value: object, low: float = 0.0, strict: bool = True) -> np.ndarray:
    a = np.asarray(value, dtype=float)
    bad = ~np.isfinite(a) | ((a <= low) if strict else (a < low))
    if np.any(bad):
        raise CrossDCInputError(f"{name} must be {'>' if strict else '>='} {low:g}, got {value}")
    return a


@expects(bytes_per_value="B")
def message_bytes(micro_batch, seq_len, hidden, bytes_per_value=2.0, pipelines=1):
    r"""Bytes one cut carries per micro-batch in one direction: :math:`b\,s\,d\,v\,n_\text{DP}`.

    >>> f"{float(message_bytes(1, 4096, 8192, 2, 16)) / 1e9:.2f} GB"  # CrossPipe §3: "1 GB"
    '1.07 GB'
    """
    b, s = _positive("micro-batch", micro_batch), _positive("sequence length", seq_len)
    d, v = _positive("hidden size", hidden), _positive("bytes per value", bytes_per_value)
    return b * s * d * v * _positive("pipelines", pipelines)


@expects(peak_flops_per_s="FLOP/s")
def stage_time_s(params, micro_batch, seq_len, stages, gpus_per_stage, peak_flops_per_s, mfu,
                 flops_per_param_per_token=6.0):
    r"""Forward and backward of one micro-batch on one stage: :math:`6\,N\,b\,s / (p\,g\,F\,\mathrm{MFU})`.

    >>> f"{float(stage_time_s(70e9, 1, 4096, 8, 8, 989.4e12, 0.4)):.3f} s"
    '0.068 s'
    """
    n = _positive("parameters", params)
    tokens = _positive("micro-batch", micro_batch) * _positive("sequence length", seq_len)
    p, g = _positive("stages", stages), _positive("GPUs per stage", gpus_per_stage)
    f, u = _positive("peak FLOP/s", peak_flops_per_s), _positive("MFU", mfu)
    if np.any(u > 1):
        raise CrossDCInputError(f"MFU must lie in (0, 1], got {mfu}")
    return flops_per_param_per_token * n * tokens / (p * g * f * u)


def bubble_fraction(stages, micro_batches, schedule="1f1b", weight_share=WEIGHT_SHARE):
    r"""A schedule's bubble as a share of the ideal compute :math:`m\,t_\text{mb}`; for 1F1B :math:`(p-1)/m`.

    >>> float(bubble_fraction(8, 32))
    0.21875
    >>> round(float(bubble_fraction(8, 32, "zb-h1")), 5)  # a third of 1F1B's at T_F = T_B = T_W
    0.07292
    """
    m = _positive("micro-batches", micro_batches, 1, strict=False)
    return schedule_bubble_s(schedule, stages, *pass_times(1.0, weight_share)) / m


@expects(stage_s="s", message_bytes="B", wan_bytes_per_s="B/s", latency_s="s")
def pipeline_step_s(stage_s, stages, micro_batches, sites, message_bytes, wan_bytes_per_s, latency_s,
                    schedule="1f1b", weight_share=WEIGHT_SHARE):
    r"""One step with :math:`S-1` cuts on the WAN:
    :math:`m\,\max(t_\text{mb}, k\,M/B) + \text{bubble} + 2k(S-1)(\alpha + M/B)`.

    One site (no cut) is the schedule's plain step, :math:`m\,t_\text{mb} + \text{bubble}`; for 1F1B
    :math:`(m+p-1)\,t_\text{mb}`.

    >>> float(pipeline_step_s(1.0, 4, 8, 1, 1e9, 1e9, 0.05))
    11.0
    >>> round(float(pipeline_step_s(1.0, 4, 8, 2, 1e9, 1e9, 0.05)), 6)  # + 2 x (50 ms + 1 s)
    13.1
    >>> float(pipeline_step_s(1.0, 4, 8, 2, 4e9, 1e9, 0.0))  # the WAN sets the pace: 4 s per micro-batch
    43.0
    >>> float(pipeline_step_s(1.0, 4, 8, 1, 1e9, 1e9, 0.05, "zbv"))  # no bubble at T_F = T_B = T_W
    8.0
    """
    t = _positive("stage time", stage_s)
    p = _positive("stages", stages, 1, strict=False)
    m = _positive("micro-batches", micro_batches, 1, strict=False)
    s = _positive("sites", sites, 1, strict=False)
    if np.any(s > p):
        raise CrossDCInputError("each site needs at least one stage: stages must be >= sites")
    wire = _positive("message", message_bytes, strict=False) / _positive("WAN bandwidth", wan_bytes_per_s)
    lat = _positive("latency", latency_s, strict=False)
    k = cut_crossings(schedule)
    cuts = s - 1
    wire = np.where(cuts > 0, wire, 0.0)
    bubble = schedule_bubble_s(schedule, p, *pass_times(t, weight_share))
    return m * np.maximum(t, k * wire) + bubble + 2 * k * cuts * (lat + wire)


@expects(stage_s="s", message_bytes="B", wan_bytes_per_s="B/s", latency_s="s")
def in_flight_extra(stage_s, message_bytes, wan_bytes_per_s, latency_s):
    r"""Extra micro-batches the stage before a cut keeps in flight to hide the cut's round trip:
    :math:`\lceil 2(\alpha + M/B) / t_\text{mb} \rceil`.

    >>> int(in_flight_extra(0.327, 0.27e9, 4e9, 0.128))  # a 405B-like stage at 4 GB/s and 128 ms
    2
    """
    t = _positive("stage time", stage_s)
    return np.ceil(2 * (_positive("latency", latency_s, strict=False)
                        + _positive("message", message_bytes, strict=False) / _positive("WAN bandwidth",
                                                                                        wan_bytes_per_s)) / t)


@dataclass(frozen=True)
class PipelineScenario:
    """One pipeline across sites, in plain numbers with units in their names.

    The global batch is ``pipelines`` x ``micro_batches`` x ``micro_batch`` sequences of ``seq_len``
    tokens; the GPUs are ``pipelines`` x ``stages`` x ``gpus_per_stage``, spread evenly over ``sites``.
    ``stage_s`` (if > 0) is the typed compute per micro-batch per stage (forward and backward); 0 derives
    it from the model size, ``peak_flops_per_s`` and ``mfu``. ``latency_s`` is one way; the data-parallel
    comparison uses twice it as the round trip. ``schedule`` is an id of :data:`SCHEDULES`.
    """

    params: float
    hidden: int
    seq_len: int = 4096
    micro_batch: int = 1
    micro_batches: int = 32
    stages: int = 8
    gpus_per_stage: int = 8
    pipelines: int = 1
    sites: int = 2
    bytes_per_value: float = 2.0
    wan_bytes_per_s: float = 12.5e9
    latency_s: float = 0.01
    peak_flops_per_s: float = 989.4e12
    mfu: float = 0.4
    stage_s: float = 0.0
    schedule: str = "1f1b"

    def __post_init__(self) -> None:
        check_schedule(self.schedule)
        for name, value, low in (("parameters", self.params, 1.0), ("hidden size", self.hidden, 1),
                                 ("sequence length", self.seq_len, 1), ("micro-batch", self.micro_batch, 1),
                                 ("micro-batches", self.micro_batches, 1), ("stages", self.stages, 1),
                                 ("GPUs per stage", self.gpus_per_stage, 1), ("pipelines", self.pipelines, 1),
                                 ("sites", self.sites, 1)):
            if not (math.isfinite(value) and value >= low):
                raise CrossDCInputError(f"{name} must be at least {low:g}, got {value}")
        if self.sites > self.stages:
            raise CrossDCInputError(f"each site needs at least one stage: {self.stages} stages for {self.sites} "
                                    "sites")
        if self.stages % self.sites:
            raise CrossDCInputError(f"the stages ({self.stages}) must divide evenly over the sites ({self.sites})")
        for name, value in (("WAN bandwidth", self.wan_bytes_per_s), ("peak FLOP/s", self.peak_flops_per_s),
                            ("bytes per value", self.bytes_per_value)):
            if not (math.isfinite(value) and value > 0):
                raise CrossDCInputError(f"{name} must be positive, got {value}")
        if not (math.isfinite(self.latency_s) and self.latency_s >= 0):
            raise CrossDCInputError(f"latency must be zero or positive, got {self.latency_s}")
        if not (math.isfinite(self.stage_s) and self.stage_s >= 0):
            raise CrossDCInputError(f"the typed stage time must be zero or positive, got {self.stage_s}")
        if not 0 < self.mfu <= 1:
            raise CrossDCInputError(f"MFU must lie in (0, 1], got {self.mfu}")

    @property
    def gpus(self) -> int:
        """All GPUs of all sites."""
        return self.pipelines * self.stages * self.gpus_per_stage

    @property
    def tokens_per_step(self) -> float:
        """Tokens of the global batch."""
        return float(self.pipelines * self.micro_batches * self.micro_batch * self.seq_len)


@dataclass(frozen=True)
class PipelineResult:
    """A pipeline scenario's message, times and step, and the step with every stage in one site."""

    scenario: PipelineScenario
    stage_s: float  #: forward and backward of one micro-batch on one stage
    forward_s: float  #: the forward third of it (CrossPipe's T_F)
    message_bytes: float  #: per micro-batch, per cut, each direction
    transfer_s: float  #: message / WAN bandwidth
    bubble_fraction: float  #: the schedule's bubble over m x t_mb; (p - 1) / m for 1F1B
    step_s: float
    one_site_step_s: float  #: the same schedule with no WAN cut
    wan_bound: bool  #: whether the WAN, not compute, sets the steady-state pace
    in_flight_extra: int  #: micro-batches held before a cut to hide its round trip
    wan_bytes_per_step: float  #: both directions of one cut, per step
    activation_memory: float = 0.0  #: peak activations of the first stage, in micro-batches of a whole stage
    crossings: int = 1  #: messages per micro-batch over each cut, each way

    @property
    def slowdown(self) -> float:
        """Step across sites over the step in one site (the same schedule)."""
        return self.step_s / self.one_site_step_s

    @property
    def ideal_step_s(self) -> float:
        """The step with no bubble and no WAN, m x t_mb (ZBV in one site at T_F = T_B = T_W)."""
        return self.scenario.micro_batches * self.stage_s

    @property
    def slowdown_vs_ideal(self) -> float:
        """Step across sites over the ideal one-site step with no bubble."""
        return self.step_s / self.ideal_step_s


def evaluate_pipeline(s: PipelineScenario) -> PipelineResult:
    """Everything about one pipeline scenario.

    >>> r = evaluate_pipeline(PipelineScenario(70e9, 8192, stages=8, micro_batches=32, stage_s=0.3,
    ...                                        wan_bytes_per_s=12.5e9, latency_s=0.01))
    >>> f"{r.message_bytes / 1e6:.0f} MB, {r.step_s:.2f} s, {r.slowdown:.3f} x one site"
    '67 MB, 11.73 s, 1.003 x one site'
    """
    if s.stage_s > 0:
        stage = s.stage_s
    else:
        stage = float(stage_time_s(s.params, s.micro_batch, s.seq_len, s.stages, s.gpus_per_stage,
                                   s.peak_flops_per_s, s.mfu))
    msg = float(message_bytes(s.micro_batch, s.seq_len, s.hidden, s.bytes_per_value, s.pipelines))
    transfer = msg / s.wan_bytes_per_s if s.sites > 1 else 0.0
    k = cut_crossings(s.schedule)
    args = (stage, s.stages, s.micro_batches)
    step = float(pipeline_step_s(*args, s.sites, msg, s.wan_bytes_per_s, s.latency_s, s.schedule))
    one = float(pipeline_step_s(*args, 1, msg, s.wan_bytes_per_s, s.latency_s, s.schedule))
    extra = int(in_flight_extra(stage, msg, s.wan_bytes_per_s, s.latency_s)) if s.sites > 1 else 0
    return PipelineResult(s, stage, stage / 3, msg, transfer,
                          float(bubble_fraction(s.stages, s.micro_batches, s.schedule)), step, one,
                          k * transfer > stage, extra, 2 * k * msg * s.micro_batches if s.sites > 1 else 0.0,
                          float(activation_memory(s.schedule, s.stages)), k)


@expects(stage_s="s", wan_bytes_per_s="B/s", latency_s="s")
def dp_exchange_step_s(stage_s, stages, micro_batches, params, wan_bytes_per_s, latency_s, schedule="zbv",
                       grad_bytes_per_param=2.0):
    r"""Data parallel across sites as CrossPipe's Appendix E runs it: each site's pipelines on ``schedule``
    (ZBV there), then the exchange between sites, not overlapped, :math:`2\alpha + 2N\beta`:

    .. math:: t = m\,t_\text{mb} + \text{bubble} + 2\alpha + g\,N/B

    with :math:`N` parameters, :math:`g` bytes per gradient value (2 for bf16, the reading of
    :math:`2N\beta` with :math:`\beta` per byte) and :math:`B` the link's bandwidth.

    >>> round(float(dp_exchange_step_s(0.327, 16, 32, 405e9, 4e9, 0.004)), 2)  # Llama-3-405B at 4 GB/s
    212.97
    """
    t = _positive("stage time", stage_s)
    m = _positive("micro-batches", micro_batches, 1, strict=False)
    n = _positive("parameters", params)
    g = _positive("bytes per gradient value", grad_bytes_per_param)
    bubble = schedule_bubble_s(schedule, stages, *pass_times(t))
    return (m * t + bubble + 2 * _positive("latency", latency_s, strict=False)
            + g * n / _positive("WAN bandwidth", wan_bytes_per_s))
